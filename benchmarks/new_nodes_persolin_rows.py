"""Where Perso-lin's joins on rotated moons lose: the newcomer's model taken apart.

Issue 32's rotated moons rows of Perso-lin miss the goal
(``python benchmarks/new_nodes.py --families persolin --datasets moons
--seeds 0,1,2 --ks 5,10,20``: join 54.3 / 58.1 / 62.0 against Local
``LinearSVC()`` 55.9 / 59.1 / 62.6 and the refit 55.7 / 57.8 / 63.7 at
``k = 5 / 10 / 20``; CPU 0.27-0.32 of the refit).  On the same split
(``new_nodes.py``'s), the fitted estimator and its join, this script scores
on the new nodes' test samples (accuracy %, pooled, mean of the seeds):

* ``join``: the joined newcomer's model;
* ``own``: its local model, the first step of the join (its optimum of
  ``F_n`` on its ``k`` samples, read from what the join keeps for later
  joins), with no neighbour;
* ``neighbours``: the weighted average of its fitted neighbours' models
  under its join row (what it would be with no data of its own);
* ``cluster``: the average of the fitted models of its cluster (an oracle
  row: every fitted node of its cluster, equal weights);
* ``best``: the best single fitted model on its test samples (an oracle);
* ``inside``: the share of its row's weight on fitted nodes of its cluster
  (chance: about the cluster's share of the fitted nodes, 10-40 %).

    python benchmarks/new_nodes_persolin_rows.py [--seeds 0,1,2] [--ks 5,10,20]

Measured on 2026-11-28 (joinsg7, main at f28c2af, seeds 0-2)::

    k    join   own  neighbours  cluster  best  inside %
    5    54.3  55.6        53.0     62.2  68.4      38.5
    10   58.1  58.8        55.5     62.0  68.3      50.3
    20   62.0  62.2        54.5     61.7  69.3      67.8

Reading: the join ends below the newcomer's own local model (by 1.3 /
0.7 / 0.2 points): its neighbours' average is 2.6-7.7 points below that
model, while the fitted models of its cluster average 61.7-62.2 (above
Local at ``k = 5`` and ``10``).  The loss is the row: from 5 samples the
newcomer's local model places 38.5 % of its weight in its own cluster
(hardly above chance), from 20 samples 67.8 %, and the weight outside its
cluster mixes models of clusters rotated against it (``neighbours`` stays
at 53-55 % at every ``k``).  The refit itself is under Local at ``k = 5``
(55.7), so a join that copies the refit's computation cannot be expected
to reach Local there; a better row needs a better
guide to a 5-sample node's cluster than its linear model (``peer_scoring``
at join time, scoring the candidates on its own samples, was measured in
``new_nodes.py``'s docstring: +4.5 at ``k = 20``, -0.4 at ``k = 5``, mixed
on the held-out families).  The CPU ratio is hard to bring under 0.1 at
this size: 20 newcomers are a fifth of the nodes and a refit of 100 nodes
of 3-15 samples takes about 31 ms (the join about 10 ms, one idle
sitting), so a join doing per newcomer what the fit does per node would
be near 0.2 before any fixed cost.
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes

from skfed.datasets import make_rotated_moons

COLUMNS = ("join", "own", "neighbours", "cluster", "best", "inside")


def _hits(coef, intercept, X, positive):
    """Correct predictions of the linear model ``(coef, intercept)``."""
    return int(np.sum((X @ coef + intercept > 0) == positive))


def one_split(seed, ks):
    """The columns of every ``k`` on one seed (accuracy %, inside share %)."""
    data = new_nodes.load("moons", seed)
    X, y, groups, task = data[:4]
    clusters = make_rotated_moons(n_nodes=100, n_test_per_node=60, random_state=seed)[7]
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, data[4])
    base = new_nodes.make_estimator("persolin", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    K = len(base.nodes_)
    out = {}
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        joined = copy.deepcopy(base)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        coef = joined.coef_.reshape(len(joined.nodes_), -1)
        intercept = joined.intercept_.reshape(len(joined.nodes_))
        # The newcomers' local models (what they answer later joins with).
        local = joined._join_info["graph_models"][K:, 0]
        W = joined.collaboration_graph_[K:, :K].toarray()
        hits = dict.fromkeys(COLUMNS[:-1], 0)
        inside, n_test = [], 0
        for i, node in enumerate(joined.nodes_[K:]):
            rows = test[groups[test] == node]
            Xt, positive = X[rows], y[rows] == joined.classes_[1]
            same = clusters[base.nodes_] == clusters[node]
            hits["join"] += _hits(coef[K + i], intercept[K + i], Xt, positive)
            hits["own"] += _hits(local[i, :-1], local[i, -1], Xt, positive)
            v = W[i]
            if v.sum() > 0:
                hits["neighbours"] += _hits(v @ coef[:K] / v.sum(),
                                            v @ intercept[:K] / v.sum(), Xt, positive)
            hits["cluster"] += _hits(coef[:K][same].mean(axis=0),
                                     intercept[:K][same].mean(), Xt, positive)
            hits["best"] += max(_hits(coef[j], intercept[j], Xt, positive) for j in range(K))
            inside.append(100 * v[same].sum() / v.sum() if v.sum() > 0 else np.nan)
            n_test += len(rows)
        out[k] = [100 * hits[c] / n_test for c in COLUMNS[:-1]] + [np.nanmean(inside)]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    warnings.simplefilter("ignore")
    per_seed = [one_split(seed, ks) for seed in seeds]
    print("k   " + "  ".join(f"{c:>10s}" for c in COLUMNS))
    for k in ks:
        mean = np.mean([row[k] for row in per_seed], axis=0)
        print(f"{k:<3d} " + "  ".join(f"{m:10.1f}" for m in mean))


if __name__ == "__main__":
    main()
