"""Evidence for ``rogue_tolerance="auto"``: exact recovery against the server's margin.

The votes of :class:`skfed.FederatedSupportRecovery` do not depend on
``rogue_tolerance`` (only the server's reference rate ``(1 - beta) q0 +
beta`` does), so every problem is fitted once and the server's binomial
test is re-run on its votes for every candidate ``beta`` in ``--betas``.
Reported per design, size and (d, s): exact recovery and F1 at each beta,
the weakest support feature's vote fraction and the largest one outside the
support, beside the fraction of clients that ran the OLS t-test (the
clients with ``n_i >= d + 4``: the conditional statistic).

Designs: those of ``support_vs_pooled.py`` (independent, Toeplitz rho =
0.5, heterogeneous) and the held-out ``equicorrelated`` and ``block``
families of ``support_held_out.py`` (d = 50 only).

    python benchmarks/support_rogue_auto.py --sizes 10000x10 1000x30 \\
        --dims 20:3 20:10 200:5 1000:10 --seeds 0 1 2

The last line is one JSON object with every row (with the votes).
"""

import argparse
import json
import sys
import time
import warnings

import numpy as np
from scipy import stats

from skfed import FederatedSupportRecovery
from skfed.support._rules import DEFAULT_FWER, null_selection_rate

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from support_held_out import make_family  # noqa: E402
from support_vs_pooled import make_design  # noqa: E402

BETAS = (0.0, 0.01, 0.02, 0.05, 0.1)


def server_test(votes, n_reports, beta, q0, fwer=DEFAULT_FWER):
    """The server's rule at tolerance ``beta`` (as in ``_server_vote``, no privacy)."""
    reference = (1.0 - beta) * q0 + beta
    pvalues = stats.binom.sf(votes - 1, n_reports, reference)
    return pvalues <= fwer / len(votes)


def run_problem(design, g, n, d, s, seed):
    if design in ("equicorrelated", "block"):
        X, y, groups, true = make_family(design, g, n, seed)[:4]
    else:
        X, y, groups, *_, true = make_design(design, g, n, d, s, seed)
    cpu = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedSupportRecovery(rogue_tolerance=0.0).fit(X, y, groups=groups)
    cpu = time.process_time() - cpu
    q0 = null_selection_rate(1.0)
    f = est.vote_fraction_
    row = dict(design=design, clients=g, samples=n, d=len(true), s=int(true.sum()),
               seed=seed, cpu_s=cpu, ols_fraction=float(est.ols_clients_.mean()),
               true_min=float(f[true].min()), null_max=float(f[~true].max()),
               votes=est.votes_.tolist(), n_reports=est.n_reports_.tolist(),
               support=np.flatnonzero(true).tolist())
    for beta in BETAS:
        found = server_test(est.votes_, est.n_reports_, beta, q0)
        row[f"exact@{beta:g}"] = bool(np.array_equal(found, true))
        row[f"f1@{beta:g}"] = float(2 * np.sum(found & true) / (found.sum() + true.sum()))
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", nargs="+",
                        default=["independent", "toeplitz", "heterogeneous"])
    parser.add_argument("--sizes", nargs="+", default=["10000x10", "1000x30"])
    parser.add_argument("--dims", nargs="+", default=["20:3", "20:10", "200:5", "1000:10"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    args = parser.parse_args(argv)
    rows = []
    for design in args.designs:
        dims = ["50:5"] if design in ("equicorrelated", "block") else args.dims
        for size in args.sizes:
            g, n = (int(v) for v in size.split("x"))
            for dim in dims:
                d, s = (int(v) for v in dim.split(":"))
                for seed in args.seeds:
                    row = run_problem(design, g, n, d, s, seed)
                    short = {k: v for k, v in row.items()
                             if k not in ("votes", "n_reports", "support")}
                    print(json.dumps(short), file=sys.stderr, flush=True)
                    rows.append(row)
    head = "| design | clients x n | d/s | OLS clients | true min | null max | " + " | ".join(
        f"exact (F1) beta={b:g}" for b in BETAS) + " |"
    print(head)
    print("|" + "---|" * (6 + len(BETAS)))
    for r in rows:
        cells = [f"{int(r[f'exact@{b:g}'])} ({r[f'f1@{b:g}']:.2f})" for b in BETAS]
        print(f"| {r['design']} s{r['seed']} | {r['clients']:,} x {r['samples']} | "
              f"{r['d']}/{r['s']} | {r['ols_fraction']:.2f} | {r['true_min']:.3f} | "
              f"{r['null_max']:.3f} | " + " | ".join(cells) + " |")
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
