"""Dada's kernel graph models against its boosting models as the graph step's signal (issue 33).

``graph_signal="kernel"`` (the default since dada6, 2026-11-28): every node
fits kernel ridge alone on 300 public random Fourier features of the voted
features, and Dada's graph steps compare and score those models, each sent
once per (sender, receiver) pair; ``graph_signal="boosting"`` is the former
default (the boosted stump models, re-sent at every graph step).  Per
family or data set, the mean over the seeds / runs of: test accuracy %,
share of the learned weight inside the true clusters % (moons only),
non-zeros of the learned graph, MB sent, and the kernel fit's bytes as a
ratio to the boosting fit's; CPU seconds of the two fits (one process,
``time.process_time``) as a ratio.

Usage::

    python benchmarks/dada_kernel_graph.py noisy 5 6 7 8 9
    python benchmarks/dada_kernel_graph.py noisy jitter paper random iid 0 1 2 3 4
    python benchmarks/dada_kernel_graph.py school har computer 0 1 2

Results: see the docstring's section below (filled by the runs of this
script).
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dada_experiments import load_run  # noqa: E402
from dada_graph_signal import inside_share, load  # noqa: E402

import skfed.boosting._kernel_graph as kernel_module  # noqa: E402
from skfed.boosting import DecentralizedBoostingClassifier  # noqa: E402
from skfed.boosting._kernel_graph import KERNEL_BANDWIDTH, kernel_directions  # noqa: E402

REAL = ("school", "har", "computer")


class bandwidth_rule:
    """Within the block, the kernel directions use ``rule(d)`` as bandwidth
    (``d`` the number of input features); a measurement of other rules."""

    def __init__(self, rule):
        self.rule = rule

    def __enter__(self):
        def directions(n_inputs, seeds, **kw):
            return kernel_directions(n_inputs, seeds, bandwidth=self.rule(n_inputs))
        kernel_module.kernel_directions = directions
        return self

    def __exit__(self, *exc):
        kernel_module.kernel_directions = kernel_directions


RULES = {
    "fixed": lambda d: KERNEL_BANDWIDTH,
    "sqrt": lambda d: KERNEL_BANDWIDTH * np.sqrt(d / 2.0),
    "sqrt2": lambda d: 2 * KERNEL_BANDWIDTH * np.sqrt(d / 2.0),
    "sqrt.5": lambda d: 0.5 * KERNEL_BANDWIDTH * np.sqrt(d / 2.0),
}


def run_rules(names, seeds, rules):
    """Kernel fits under each bandwidth rule: accuracy, inside, inputs."""
    for name in names:
        table = {}
        for rule in rules:
            rows = []
            with bandwidth_rule(RULES[rule]):
                for seed in seeds:
                    row = fit_row(name, seed, "kernel")
                    rows.append(row)
            table[rule] = np.mean(rows, axis=0)
            print(f"  {name} {rule}: " + " ".join(f"{r[0]:.2f}" for r in rows), flush=True)
        print(f"{name:9s} seeds {seeds}: " + "  ".join(
            f"{rule} {v[0]:.2f} {v[1]:.1f} {v[3]:.1f} MB" for rule, v in table.items()),
            flush=True)


def fit_row(name, seed, signal):
    if name in REAL:
        X, X_test, y, y_test, g, g_test, n_estimators = load_run(name, seed)
        clusters = None
    else:
        X, X_test, y, y_test, g, g_test, clusters = load(name, seed)
        n_estimators = 200
    start = time.process_time()
    model = DecentralizedBoostingClassifier(n_estimators, random_state=seed,
                                            graph_signal=signal).fit(X, y, groups=g)
    cpu = time.process_time() - start
    G = model.collaboration_graph_.toarray()
    return [100 * np.mean(model.predict(X_test, groups=g_test) == y_test),
            100 * inside_share(G, clusters) if clusters is not None else np.nan,
            np.count_nonzero(G), model.n_bytes_sent_ / 1e6, cpu]


def main(args):
    names = [a for a in args if not a.isdigit()] or ["noisy"]
    seeds = [int(a) for a in args if a.isdigit()] or [0, 1, 2, 3, 4]
    for name in names:
        rows = {"boosting": [], "kernel": []}
        for seed in seeds:
            for signal in rows:
                rows[signal].append(fit_row(name, seed, signal))
            b, k = rows["boosting"][-1], rows["kernel"][-1]
            print(f"  {name} seed {seed}: boosting {b[0]:.2f} {b[1]:.1f} {b[2]} {b[3]:.2f} | "
                  f"kernel {k[0]:.2f} {k[1]:.1f} {k[2]} {k[3]:.2f}", flush=True)
        b, k = (np.mean(rows[s], axis=0) for s in ("boosting", "kernel"))
        ratio = np.mean([kr[3] / br[3] for kr, br in zip(rows["kernel"], rows["boosting"])])
        print(f"{name:9s} seeds {seeds}: boosting {b[0]:.2f} {b[1]:.1f} {b[2]:.0f} {b[3]:.1f} MB"
              f" | kernel {k[0]:.2f} {k[1]:.1f} {k[2]:.0f} {k[3]:.1f} MB | bytes x{ratio:.2f}"
              f" | CPU x{k[4] / b[4]:.2f}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["rules"]:
        args = sys.argv[2:]
        rules = [a[5:] for a in args if a.startswith("rule=")] or list(RULES)
        args = [a for a in args if not a.startswith("rule=")]
        run_rules([a for a in args if not a.isdigit()],
                  [int(a) for a in args if a.isdigit()], rules)
    else:
        main(sys.argv[1:])
