"""Why Dada's rotated-moons join at k = 10 is 5 points under its refit on
seed 0 (issue 32, dada25), and a join-side change measured and rejected.

``vote``: Dada at its defaults on ``new_nodes.py``'s fitted nodes of rotated
moons, seeds 0-5: the features the fit's vote selected, the votes of the two
informative features (ranking and significance ballots), the thresholds,
and the fitted nodes' accuracy on their own test rows.  ``cold``: every
(seed, k) joined twice, the newcomers' Frank-Wolfe steps warm-started from
their neighbours' mean (``_graph_join._WARM_START = 8``, the default) and
cold (0), with the features the join's vote added to the fit's.

    python benchmarks/dada_moons_seed0.py vote --seeds 0,1,2,3,4,5
    python benchmarks/dada_moons_seed0.py cold --datasets moons --seeds 0,1,2,3,4,5
    python benchmarks/dada_moons_seed0.py cold --datasets related --seeds 0,1,2

Results (2026-11-29, dada25)::

    vote   seed 0  selected [0]     f0 22 / 7, f1 16 / 7 (thresholds 21 / 11)  fitted 62.4
           seed 1  selected [0, 1]  f0 30 / 11, f1 27 / 16                      fitted 81.0
           seed 2  [0, 1]  fitted 83.1;  seed 3  [0, 1] (f0 20, f1 19; threshold 19)  72.4
           seed 4  [0, 1]  fitted 78.1;  seed 5  [0, 1]  fitted 75.0
           seed 0's refit at k = 10 (the newcomers' ballots in): f1 26 / 11 over 24 / 13,
           selected [0, 1], its fitted nodes 76.1 on the same rows, its newcomers 77.8

The cause is the fit, not the join: on seed 0 the 80 fitted nodes (3-15
samples each) gave the second informative feature 16 ranking votes of the
21 needed (a noise feature got 18), so every fitted model boosts stumps of
feature 0 alone and scores 62.4 on its own test rows.  The join already
adds the newcomers' ballots (feature 1 is selected at k = 10 and 20), but
the fitted neighbours it learns from hold no weight on the new stumps; the
refit re-learns every node with feature 1.  A join that leaves the fitted
nodes unchanged cannot recover that (a Dada fit of the 20 newcomers alone,
new_nodes.py's docstring: 73.6 at k = 10).

``cold``: where the join's vote added a feature, starting the newcomers
cold instead of from their neighbours' mean (which has zero weight on the
new stumps) helps seed 0 (k = 10 / 20: 72.58 -> 73.01, 78.70 -> 81.39; no
other moons seed adds a feature), but on the held-out joins that add one
it loses on 9 of 12 (related-small seed 0 k = 5 / 10 / 20 -1.66 / -1.58 /
-2.84, seed 1 k = 10 / 20 +0.67 / +1.68, seed 2 -3.87 / -2.22; related-wide
seed 1 -1.72 / -2.09, seed 2 0.00 / -0.50; related-alike seed 2 k = 20
-2.67), and cold everywhere loses on most joins (moons seeds 1-5, all
related families): not adopted.
"""

import argparse
import copy
import json
import warnings

import new_nodes as nn
import numpy as np
from threadpoolctl import threadpool_limits

from skfed import _graph_join as gj


def vote(seed):
    data = nn.load("moons", seed)
    X, y, groups = data[:3]
    fit_rows, new, _ = nn.split(X, y, groups, seed, data[4])
    est = nn.make_estimator("dada", "classification", seed)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    rows = np.setdiff1d(np.flatnonzero(~np.isin(groups, new)), fit_rows)
    acc = float(np.mean(est.predict(X[rows], groups=groups[rows]) == y[rows]))
    print(json.dumps(dict(seed=seed, selected=np.flatnonzero(est.selected_features_).tolist(),
                          votes_f0_f1=est.feature_votes_[:, :2].tolist(),
                          threshold=est.vote_threshold_.tolist(),
                          fitted_test=round(100 * acc, 1))), flush=True)


def cold(name, seed):
    data = nn.load(name, seed)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("dada", "classification", seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    for k in (5, 10, 20):
        train, test = nn.new_node_rows(order, k)
        row = dict(dataset=name, seed=seed, k=k)
        for warm in (gj._WARM_START, 0):
            saved, gj._WARM_START = gj._WARM_START, warm
            try:
                joined = copy.deepcopy(base).add_nodes(X[train], y[train], groups=groups[train])
            finally:
                gj._WARM_START = saved
            pred = joined.predict(X[test], groups=groups[test])
            row[f"warm{warm}"] = round(100 * float(np.mean(pred == y[test])), 2)
        row["added"] = np.flatnonzero(joined.selected_features_
                                      & ~base.selected_features_).tolist()
        print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=("vote", "cold"))
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="0,1,2,3,4,5")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    seeds = [int(s) for s in args.seeds.split(",")]
    with threadpool_limits(1):
        if args.what == "vote":
            for seed in seeds:
                vote(seed)
            return
        names = []
        for name in args.datasets.split(","):
            names += list(nn.RELATED) if name == "related" else [name]
        for name in names:
            for seed in seeds:
                cold(name, seed)


if __name__ == "__main__":
    main()
