"""Dada newcomers modelled by their nearest fitted nodes in feature means (an experiment).

landmine1 (``/work/wt/landmine_findings.md``) found Landmine's newcomers
join wrong-terrain neighbours: the graph objective compares models on a
newcomer's k mostly negative samples, while the nodes' feature means
separate the terrains.  Here, on ``new_nodes.py``'s splits, each newcomer
takes the size-weighted mean of the decision functions of the ``m``
fitted nodes whose feature means (over their fit rows) are nearest
(Euclidean) to the mean of its own ``k`` samples: no training, the
fitted Dada models as they are.  Printed per data set, seed and ``k``:
Dada's join and the mean-neighbour rule at ``m`` = 3 / 5 (accuracy %
over the newcomers' test rows, as ``new_nodes.py``).

Usage::

    python benchmarks/dada_join_mean_neighbours.py --datasets landmine --seeds 0,1,2

Measured (dada17, 2026-11-29, ``--datasets landmine --seeds 0,1,2``;
per seed join / near3 / near5)::

    k    seed 0                 seed 1                 seed 2                 mean
    5    93.60 92.54 92.45      92.82 93.40 93.55      94.14 93.84 93.90      93.52 93.26 93.30
    10   93.45 93.04 93.01      92.81 93.51 93.48      94.43 94.12 94.46      93.56 93.56 93.65
    20   93.61 93.55 93.61      93.29 93.52 93.71      94.39 94.61 94.64      93.76 93.89 93.99

(pooled SVC 93.81 / 93.77 / 93.78).  For Dada the rule is no remedy:
0.2-0.3 under the join at ``k = 5``, even at 10, +0.1-0.2 at 20; unlike
Perso-lin's linear models in landmine1's prototype, the fitted Dada models
of the nearest nodes do not carry a newcomer past the join.  Not pursued
(no held-out family run).
"""

import argparse
import copy
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import new_nodes  # noqa: E402


def mean_neighbour_scores(base, X, groups, fit_rows, Xk, gk, Xt, gt, m):
    nodes = base.nodes_
    means = np.array([X[fit_rows][groups[fit_rows] == n].mean(axis=0) for n in nodes])
    sizes = np.array([np.sum(groups[fit_rows] == n) for n in nodes], dtype=float)
    scores = np.zeros(len(gt)) if len(base.classes_) == 2 else np.zeros((len(gt), len(base.classes_)))
    for new in np.unique(gk):
        own = Xk[gk == new].mean(axis=0)
        near = np.argsort(np.linalg.norm(means - own, axis=1))[:m]
        rows = gt == new
        w = sizes[near] / sizes[near].sum()
        for node, weight in zip(near, w):
            scores[rows] += weight * base.decision_function(
                Xt[rows], groups=np.full(rows.sum(), nodes[node], dtype=nodes.dtype))
    if scores.ndim == 1:
        return base.classes_[(scores > 0).astype(int)]
    return base.classes_[np.argmax(scores, axis=1)]


def main():
    warnings.simplefilter("ignore")
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    for name in args.datasets.split(","):
        for seed in map(int, args.seeds.split(",")):
            data = new_nodes.load(name, seed)
            X, y, groups, task = data[:4]
            fit_rows, _, order = new_nodes.split(X, y, groups, seed,
                                                 data[4] if len(data) > 4 else None)
            base = new_nodes.make_estimator("dada", task, seed)
            base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
            for k in map(int, args.ks.split(",")):
                train, test = new_nodes.new_node_rows(order, k)
                Xk, yk, gk = X[train], y[train], groups[train]
                Xt, yt, gt = X[test], y[test], groups[test]
                joined = copy.deepcopy(base)
                joined.add_nodes(Xk, yk, groups=gk)
                out = [100 * np.mean(joined.predict(Xt, groups=gt) == yt)]
                for m in (3, 5):
                    pred = mean_neighbour_scores(base, X, groups, fit_rows, Xk, gk, Xt, gt, m)
                    out.append(100 * np.mean(pred == yt))
                print(f"{name} {seed} {k} join {out[0]:.2f} near3 {out[1]:.2f} "
                      f"near5 {out[2]:.2f}", flush=True)


if __name__ == "__main__":
    main()
