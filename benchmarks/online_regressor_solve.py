"""The online regressor's network solve with its held-back gate, as the package runs it.

Since online16 a regressor's ``fit`` re-solves its network function's
weights on the rows its nodes do not hold back (about a fifth of every
node's rows, drawn from the public seed) and keeps them when the held-back
rows' loss falls by more than 1 % of the mean's
(``skfed/online/_network_function.py``, ``SOLVE_MARGIN``).  This script
fits the package's estimator twice on the same arrays: as it is
(``solved``) and with the margin set so high that no solve is kept
(``mean``: the network function before; the solve's bytes still paid), and
prints the joins' R^2 x 100 at every ``k`` (``new_nodes.py``'s split and
newcomers), the gate's held-back losses and the solve's share of the fit's
bytes.  Data: School and ``online_experiments.py``'s held-out regressions
(training and test rows pooled, as ``online_shared_function.py`` does).

    PYTHONPATH=. python benchmarks/online_regressor_solve.py \
        --datasets school,alike-regression,nonlinear-regression,heavy-tailed-regression,outlier-regression \
        --seeds 0,1,2

Measured: see the end of this docstring (filled in by the run below).
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402

import skfed.online._network_function as nf  # noqa: E402


def _data(name, seed):
    if name.endswith("-regression"):
        import online_experiments as oe

        _, Xtr, Xte, ytr, yte, gtr, gte = oe.held_out_family(name, seed)
        return (np.concatenate([Xtr, Xte]), np.concatenate([ytr, yte]),
                np.concatenate([gtr, gte]), "regression", {"train_rows": np.arange(len(Xtr))})
    return nn.load(name, seed)


def run(name, seed, ks):
    data = _data(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    rows = {}
    margin = nf.SOLVE_MARGIN
    for label, value in (("mean", 2.0), ("solved", margin)):
        nf.SOLVE_MARGIN = value
        try:
            est = nn.make_estimator("online", task, seed)
            est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
        finally:
            nf.SOLVE_MARGIN = margin
        cells = []
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            joined = copy.deepcopy(est).add_nodes(X[train], y[train], groups=groups[train])
            cells.append(nn.score(task, y[test], joined.predict(X[test], groups=groups[test])))
        rows[label] = cells
        held = est._network_held_losses
    fall = 100 * (1 - held[:, 1] / held[:, 0])
    print(f"{name} seed {seed}: mean " + " / ".join(f"{c:.2f}" for c in rows["mean"])
          + "  solved " + " / ".join(f"{c:.2f}" for c in rows["solved"])
          + f"  (held-back loss fall {', '.join(f'{f:.2f}' for f in fall)} %, kept "
          f"{est._network_solved.tolist()}, solve rounds {est._network_solve_rounds.tolist()},"
          f" {est.network_communication_.total_bytes / est.n_bytes_sent_:.3f} of the fit's"
          f" bytes in the network rounds)", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="school")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.datasets.split(","):
            per = [run(name, int(s), ks) for s in args.seeds.split(",")]
            for label in ("mean", "solved"):
                m = np.mean([p[label] for p in per], axis=0)
                print(f"{name} {label:6s} means " + " / ".join(f"{c:.2f}" for c in m), flush=True)


if __name__ == "__main__":
    main()
