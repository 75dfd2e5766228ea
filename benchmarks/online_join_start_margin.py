"""A classifier newcomer's start: the network function unless its neighbours do better by a margin?

A classifier's newcomer (``skfed/online/_join.py``, ``_join_prefers_network``)
starts from its neighbours' combination whenever their leave-one-out errors
on its ``k`` samples are fewer than the network function's; a regressor's
needs them fewer by ``_JOIN_START_MARGIN`` standard errors of the summed
per-sample difference.  The comment there records a margin of 1 for
classifiers as losing HAR (94.8 / 95.7 / 96.0 -> 91.7 / 95.2 / 96.0), by
the passes that newcomers starting from the network function then made;
since then such a newcomer keeps its start when it misclassifies at most
``_JOIN_KEEP_ERRORS`` of its samples.  onlinejoin20 found, on held-out
families whose newcomers should take the network function (alike nodes,
shared curved rules), joins 1-5 points under that function at ``k = 5``,
mostly from a few newcomers that chose their neighbours on 5 samples
(shared circles with 150 nodes of 8 rows, seed 0: 5 such newcomers lose
101 test rows).  This script measures the margin again: one default fit
per data set and seed (``benchmarks/new_nodes.py``'s split), then the
joins with a margin of 0 (the package), 1 and 2 standard errors (the
method replaced here, the package unchanged), accuracy on the newcomers'
test rows and how many newcomers start from their neighbours.

    python benchmarks/online_join_start_margin.py --datasets har --seeds 0,1,2
    python benchmarks/online_join_start_margin.py --datasets moons,landmine,related-alike,\\
related-clustered,related-small,related-wide,related-narrow,shared-circles,\\
shared-circles-small,shared-circles-wide,shared-moons --seeds 0,1,2

(``shared-*``: ``online_join_linear_network.py``'s families.)

Measured (2026-11-29, onlinejoin20 at main 8ba3212), mean accuracy of
seeds 0-2 with a margin of 0 (the package) / 1 / 2, ``k = 5 / 10 / 20``;
newcomers starting from their neighbours in brackets (all seeds)::

    HAR sitting          97.50 / 97.65 / 97.65   97.24 / 97.29 / 97.29   97.29 (same)      (1/0/0, 1/0/0, 0)
    rotated moons        57.15 / 57.90 / 57.48   59.71 / 60.22 / 60.02   62.96 / 63.10 / 63.04  (26/12/8 ...)
    Landmine             93.54 (same)            93.50 (same)            93.52 (same)      (none)
    related-alike        89.98 / 90.44 / 90.53   89.17 / 90.05 / 90.07   89.75 / 90.03 / 90.06
    related-clustered    70.89 / 69.38 / 68.56   74.71 / 72.50 / 71.00   78.28 / 77.89 / 77.19  (21/7/0, 30/9/1, 29/16/6)
    related-small        88.98 / 89.79 / 90.26   89.22 / 89.68 / 90.32   89.77 / 90.05 / 90.05
    related-wide         85.84 / 88.56 / 89.33   87.95 / 89.33 / 89.33   88.64 (same)
    related-narrow       90.89 (same)            91.21 / 91.10 / 91.05   90.72 / 91.17 / 91.06
    shared-circles       92.93 (same)            91.87 / 93.61 / 93.61   92.59 / 93.19 / 93.70
    shared-circles-small 88.96 / 92.63 / 92.63   92.64 / 93.31 / 93.31   93.26 (same)
    shared-circles-wide  73.96 / 75.48 / 76.07   73.97 / 76.51 / 76.51   75.46 (same)
    shared-moons         86.93 / 87.04 / 87.04   86.94 / 87.10 / 87.10   87.36 / 87.50 / 87.45

A margin of 1 gains on every family but one, up to 3.7 points
(shared-circles-small, ``k = 5``), and no longer costs HAR (the
``_JOIN_KEEP_ERRORS`` start keeps its newcomers from the passes); it does
not close HAR (97.65 against Global's 97.89) and it loses 1.5 / 2.2 /
0.4 points on related-clustered, the held-out family where a newcomer's
cluster-mates are what it needs.  By the held-out rule it is not adopted
(the package is unchanged); a start rule that knows whether the
federation is clustered (``_federation_alike`` says "alike" on rotated
moons and related-clustered too, so it cannot) would be the next thing
to measure.
"""

import argparse
import copy
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402
import online_join_linear_network as oj  # noqa: E402

from skfed.online import DecentralizedKernelSGDClassifier  # noqa: E402

PACKAGE_RULE = DecentralizedKernelSGDClassifier._join_prefers_network


def with_margin(margin):
    """A classifier's start rule with ``margin`` standard errors (the
    regressor's margin term, without its ratio and alike rules)."""
    def prefers(self, net_rows, neighbour_rows):
        net, neighbours = float(np.sum(net_rows)), float(np.sum(neighbour_rows))
        n = len(net_rows)
        extra = 0.0
        if n > 1:
            diff = np.asarray(neighbour_rows) - np.asarray(net_rows)
            extra = margin * float(np.sqrt(n / (n - 1) * np.sum((diff - diff.mean()) ** 2)))
        return net <= neighbours + extra
    return prefers


def run(name, seed, ks, margins):
    data = oj.load_curved(name, seed) if name in oj.CURVED else nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    est = DecentralizedKernelSGDClassifier(random_state=seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    out = {"dataset": name, "seed": seed, "kernel": est.kernel_}
    cls = DecentralizedKernelSGDClassifier
    try:
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            row = {}
            for margin in margins:
                cls._join_prefers_network = with_margin(margin) if margin else PACKAGE_RULE
                joined = copy.deepcopy(est)
                joined.add_nodes(X[train], y[train], groups=groups[train])
                row[str(margin)] = nn.score(task, y[test],
                                            joined.predict(X[test], groups=groups[test]))
                row[f"neighbours_{margin}"] = int(np.sum(joined.join_start_ == "neighbours"))
            out[str(k)] = row
    finally:
        cls._join_prefers_network = PACKAGE_RULE
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--margins", default="0,1,2")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    margins = [float(m) for m in args.margins.split(",")]
    for name in args.datasets.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            print(json.dumps(run(name, seed, ks, margins)), flush=True)


if __name__ == "__main__":
    main()
