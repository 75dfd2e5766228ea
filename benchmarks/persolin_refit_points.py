"""Where a Perso-lin refit's newcomer gets its points, against the join.

On ``new_nodes.py``'s split (80 % of the nodes fitted, each new node with
``k`` samples, scored on the rest of its data), per seed and ``k``, pooled
over the new nodes (accuracy %):

* ``join``: the newcomer's model after ``add_nodes`` (the table's join);
* ``refit``: its model in a refit on the fitted and new nodes' samples;
* ``refit_nbrs``: the weighted average of its refit neighbours' refit
  models under its refit row (its model with no data of its own);
* ``fit_nbrs``: the same row over its fitted neighbours only, with their
  models from the fit (what a join, which keeps them, could average);
* ``c_join`` / ``c_refit``: its confidence in the join and in the refit
  (``mu`` is the estimator's in both), ``c_old``: the fitted nodes' mean
  confidence in the fit and in the refit;
* ``in_join`` / ``in_refit`` (rotated moons only): the share of its row's
  weight on nodes of its own cluster.

    python benchmarks/persolin_refit_points.py --datasets moons [--seeds 0,1,2] [--ks 5,10,20]

Results (2026-11-28, joinsg10, main at 8aeda58, one BLAS thread), rotated
moons, seeds 0 / 1 / 2::

    k   join               refit              refit_nbrs         fit_nbrs
    5   54.7 / 52.9 / 54.4  54.8 / 53.3 / 55.5  54.1 / 52.6 / 54.6  52.3 / 52.7 / 53.7
    10  57.8 / 59.1 / 56.5  56.6 / 60.3 / 59.4  54.9 / 57.7 / 58.5  54.8 / 54.7 / 55.1
    20  56.5 / 63.5 / 63.9  61.3 / 62.9 / 67.2  60.3 / 61.5 / 67.1  52.0 / 55.6 / 54.2

The newcomer's balance is the refit's: ``c`` = 0.333 / 0.667 / 1.000 at
``k = 5 / 10 / 20`` in both (the fitted nodes hold 3-15 samples; at ``k =
20`` the refit's new maximum rescales the fitted nodes, mean ``c`` 0.57-0.61
-> 0.43-0.46, not the newcomer) and ``mu`` is the same.  Its row is as good
(in-cluster weight 0.26-0.80 join, 0.28-0.76 refit, within 0.1 of each
other).  In both the newcomer's model is close to its neighbours' average
(refit - refit_nbrs: 0.1-2.5), and what differs is the neighbours: under
the refit's own row the fitted neighbours' models from the fit score
52.0-55.6 at ``k = 20``, their refit models 60.3-67.1, because in the refit
the 20-sample newcomers (the heaviest nodes) train their cluster-mates.
A join that keeps the fitted nodes bit-identical cannot take those points
(``persolin_join_gap.py`` measured the same from the other side).
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes
from skfed._graph_join import _design


def _hits(classes, Z, y, model):
    scores = Z @ np.asarray(model, dtype=np.float64).T
    pred = (classes[(scores[:, 0] > 0).astype(int)] if scores.shape[1] == 1
            else classes[np.argmax(scores, axis=1)])
    return int(np.sum(pred == y))


def _average(row, models):
    flat = models.reshape(len(models), -1)
    return (row @ flat / max(row.sum(), 1e-300)).reshape(models.shape[1:])


def one_split(dataset, seed, k):
    data = new_nodes.load(dataset, seed)
    X, y, groups, task = data[:4]
    fit_rows, _, order = new_nodes.split(X, y, groups, seed,
                                         data[4] if len(data) > 4 else None)
    train, test = new_nodes.new_node_rows(order, k)
    base = new_nodes.make_estimator("persolin", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    joined = copy.deepcopy(base)
    joined.add_nodes(X[train], y[train], groups=groups[train])
    rows = np.concatenate([fit_rows, train])
    refit = new_nodes.make_estimator("persolin", task, seed).fit(
        X[rows], y[rows], groups=groups[rows])
    clusters = None
    if dataset == "moons":
        from skfed.datasets import make_rotated_moons

        clusters = make_rotated_moons(n_nodes=len(np.unique(groups)), n_test_per_node=60,
                                      random_state=seed)[-1]
    new = np.unique(groups[train])
    W_r = refit.collaboration_graph_.toarray()
    W_j = joined.collaboration_graph_.toarray()
    M_r = refit._full_coef().astype(np.float64)
    M_j = joined._full_coef().astype(np.float64)
    M_b = base._full_coef().astype(np.float64)
    in_base = np.searchsorted(base.nodes_, refit.nodes_)
    old = ~np.isin(refit.nodes_, new)
    hits = dict.fromkeys(("join", "refit", "refit_nbrs", "fit_nbrs"), 0)
    n_test, c_join, c_refit, in_join, in_refit = 0, [], [], [], []
    for g in new:
        i = int(np.searchsorted(refit.nodes_, g))
        j = int(np.flatnonzero(joined.nodes_ == g)[0])
        t = test[groups[test] == g]
        Z = _design(refit, X[t], np.float64)
        classes = refit.classes_
        hits["join"] += _hits(classes, Z, y[t], M_j[j])
        hits["refit"] += _hits(classes, Z, y[t], M_r[i])
        hits["refit_nbrs"] += _hits(classes, Z, y[t], _average(W_r[i], M_r))
        hits["fit_nbrs"] += _hits(classes, Z, y[t],
                                  _average(W_r[i][old], M_b[in_base[old]]))
        n_test += len(t)
        c_join.append(joined.confidence_[j])
        c_refit.append(refit.confidence_[i])
        if clusters is not None:
            own_r = clusters[refit.nodes_] == clusters[g]
            own_j = clusters[joined.nodes_] == clusters[g]
            in_refit.append(W_r[i][own_r].sum() / max(W_r[i].sum(), 1e-300))
            in_join.append(W_j[j][own_j].sum() / max(W_j[j].sum(), 1e-300))
    out = {name: 100.0 * v / n_test for name, v in hits.items()}
    out.update(c_join=np.mean(c_join), c_refit=np.mean(c_refit),
               c_old_fit=base.confidence_.mean(), c_old_refit=refit.confidence_[old].mean(),
               in_join=np.mean(in_join) if in_join else np.nan,
               in_refit=np.mean(in_refit) if in_refit else np.nan)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args(argv)
    cols = ("join", "refit", "refit_nbrs", "fit_nbrs", "c_join", "c_refit", "c_old_fit",
            "c_old_refit", "in_join", "in_refit")
    print(f"{'data':9s} {'seed':>4s} {'k':>3s} " + " ".join(f"{c:>11s}" for c in cols))
    for dataset in args.datasets.split(","):
        for seed in [int(s) for s in args.seeds.split(",")]:
            for k in [int(s) for s in args.ks.split(",")]:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = one_split(dataset, seed, k)
                print(f"{dataset:9s} {seed:4d} {k:3d} "
                      + " ".join(f"{r[c]:11.3f}" if c.startswith("c_") or c.startswith("in_")
                                 else f"{r[c]:11.2f}" for c in cols), flush=True)


if __name__ == "__main__":
    main()
