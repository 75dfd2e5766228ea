"""Perso-lin's graph defaults re-checked after its local models became optima.

``PersonalizedLinearClassifier``'s docstring justifies three graph
defaults with measurements taken when each local model was 100 plain
gradient steps: ``graph_update_every=None`` ("0.5 point higher than
re-learning"), ``graph_init_iter=50 * n_nodes`` ("10 steps per node lose
2-3 points of accuracy and 7-11 points of the weight inside the true
clusters on the moons") and ``peer_scoring=False``.  Since 2026-11-28 the
local models (the graph's input) are each node's optimum of ``F_k``.
This fits, on ``benchmarks/dada_experiments.py``'s cases (the four moons
families, 100 nodes of 3-14 samples; Computer buyers, School and HAR
walking, Dada's splits), the defaults and one variant at a time, and
prints the test accuracy % (mean over the seeds) and, on the moons, the
share of the graph's weight inside the true clusters %.  ``--steps N``
fits every variant with ``N`` plain local gradient steps instead (the
earlier rule, ``N = 100``).

Usage::

    python benchmarks/persolin_graph_knobs.py [--seeds 0 1 2] [--steps N]
        [--cases moons-paper,...,har]

Measured 2026-11-28 (main at 73692d1; seeds 0 1 2; accuracy % / weight
inside the clusters %), solved local models (the default)::

    case           default        relearn        init10         peer
    moons-paper    69.30 / 92.0   69.72 / 86.1   69.59 / 76.5   69.46 / 92.5
    moons-random   63.98 / 67.6   64.30 / 56.5   64.89 / 55.2   64.15 / 68.4
    moons-noisy    57.98 / 39.8   57.49 / 32.7   59.85 / 39.3   57.79 / 39.1
    moons-jitter   64.33 / 76.3   64.60 / 66.9   65.70 / 66.9   64.31 / 76.9
    computer       68.52          67.34          68.28          68.07
    school         72.44          72.33          72.24          72.25
    har            99.89          99.88          99.87          99.88
    mean           70.92          70.81          71.49          70.84

and with ``--steps 100`` (the earlier rule)::

    moons-paper    69.18 / 91.6   69.90 / 84.6   69.52 / 76.3   69.47 / 92.6
    moons-random   64.08 / 67.6   64.07 / 56.8   65.00 / 55.0   64.30 / 68.0
    moons-noisy    58.93 / 42.3   59.05 / 40.8   60.60 / 41.2   58.09 / 42.0
    moons-jitter   64.37 / 76.3   64.32 / 65.1   65.66 / 66.9   64.36 / 76.9
    computer       68.01          66.94          69.01          67.56
    school         72.28          72.24          72.01          72.42
    har            99.88          99.88          99.88          99.87

Keeping the graph (the default) still keeps more of its weight inside the
clusters than re-learning it (by 6-11 points on the moons), but on these
seeds it scores only 0.1 point higher on the mean of the seven cases (0.05
with 100 steps), not 0.5.  Ten graph steps per node (``init10``) lose
9-16 points of the weight inside the clusters on paper / random / jitter
(the docstring says 7-11), but *gain* 0.3-1.9 points of accuracy on every
moons family (either rule) and lose 0.2 on Computer buyers and School
with the solved models (with 100 steps Computer gained 1.0): the
docstring's "lose 2-3 points of accuracy" does not hold on seeds 0-2.
Peer scoring stays within 0.5 point everywhere.  No default changed here
(a defaults pass over more families should decide).

The defaults pass (``benchmarks/persolin_defaults.py``, 28 November 2026)
measured ``init10`` on these seven cases, HAR sitting and six held-out
families: 0.8 point higher on the mean, worst family -0.45 (HAR sitting),
but the joins (HAR sitting -0.5 to -1.6) and the private released models
(moons -3.2) lose: not adopted; the numbers are in its docstring.
"""

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dada_experiments as de  # noqa: E402
from skfed.boosting import PersonalizedLinearClassifier  # noqa: E402
from skfed.boosting import _perso_lin  # noqa: E402
from persolin_max_neighbors import fixed_steps  # noqa: E402

CASES = ("moons-paper", "moons-random", "moons-noisy", "moons-jitter", "computer", "school",
         "har")
VARIANTS = ("default", "relearn", "init10", "peer")


def variant_params(name, n_nodes):
    """The estimator's parameters of a variant (defaults otherwise)."""
    return {"default": {}, "relearn": {"graph_update_every": "n_nodes"},
            "init10": {"graph_init_iter": 10 * n_nodes},
            "peer": {"peer_scoring": True}}[name]


def one_case(case, seed):
    X, Xt, y, yt, g, gt, _, clusters = de._load_case(case, seed)
    out = {}
    for name in VARIANTS:
        est = PersonalizedLinearClassifier(random_state=seed,
                                           **variant_params(name, len(np.unique(g))))
        est.fit(X, y, groups=g)
        acc = 100 * float(np.mean(est.predict(Xt, groups=gt) == yt))
        inside = (100 * de._graph_recovery(est, clusters)["weight_inside_clusters"]
                  if clusters is not None else np.nan)
        out[name] = (acc, inside)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    solved = _perso_lin.solve_local_models
    if args.steps is not None:
        _perso_lin.solve_local_models = fixed_steps(args.steps)
    try:
        print(f"{'case':14s}" + "".join(f"{v + ' acc / in':>22s}" for v in VARIANTS))
        for case in args.cases.split(","):
            runs = [one_case(case, s) for s in args.seeds]
            cells = []
            for name in VARIANTS:
                acc, inside = np.mean([r[name] for r in runs], axis=0)
                cells.append(f"{acc:13.2f} / {inside:5.1f}" if not np.isnan(inside)
                             else f"{acc:13.2f} /     -")
            print(f"{case:14s}" + "".join(f"{c:>22s}" for c in cells), flush=True)
    finally:
        _perso_lin.solve_local_models = solved


if __name__ == "__main__":
    main()
