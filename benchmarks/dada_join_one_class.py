"""Dada's one-class newcomers by feature-mean neighbours (issue 32).

Same splits as ``new_nodes.py`` (Dada at its defaults, 20 % of the nodes
join with k samples each).  One fit per (data set, seed), with the gate of
:mod:`skfed.boosting._dada_mean_join`; then each k is joined three ways on
copies of the fit: ``graph`` (today's join: ``join_rule_`` forced to
``"graph"``), ``mean`` (one-class newcomers take the mass-weighted mean of
their 5 nearest-mean fitted nodes' models) and ``fw`` (from that mean,
the graph join's Frank-Wolfe model steps on their own samples with the
5 nodes as neighbours, mass shares as weights).  With the gate closed all
three are the graph join.

Command::

    python benchmarks/dada_join_one_class.py --datasets landmine --seeds 0,1,2

Results: see the end of this docstring (filled in from the runs).
"""

import argparse
import copy
import json
import warnings

import new_nodes as nn
import new_nodes_landmine_neighbours as lmn
import numpy as np
from threadpoolctl import threadpool_limits

from skfed.boosting import _dada_mean_join as mj


VARIANTS = ("graph", "mean", "fw")


def run(name, seed, ks):
    data = lmn.load(name, seed)  # (+ shifted-alike)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("dada", "classification", seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    gate = base.join_gate_ or {}
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        row = dict(dataset=name, seed=seed, k=k, rule=base.join_rule_,
                   t=round(float(gate.get("t", np.nan)), 2))
        n_one = sum(len(np.unique(y[train][groups[train] == g])) == 1 for g in new)
        row["n_one_class"], row["n_new"] = int(n_one), len(new)
        for variant in VARIANTS:
            joined = copy.deepcopy(base)
            if variant == "graph":
                joined.join_rule_ = "graph"
            mj.ONE_CLASS_MODEL = "fw" if variant.startswith("fw") else "mean"
            mj.FW_DEGREE = {"fw": 1.0, "fw10": 10.0, "fwdeg": None}.get(variant, 1.0)
            joined.add_nodes(X[train], y[train], groups=groups[train])
            pred = joined.predict(X[test], groups=groups[test])
            row[variant] = round(100 * float(np.mean(pred == y[test])), 2)
            row[variant + "_bytes"] = int(joined.join_communication_.total_bytes)
        mj.ONE_CLASS_MODEL = "mean"
        print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="graph,mean,fw")
    args = parser.parse_args()
    global VARIANTS
    VARIANTS = tuple(args.variants.split(","))
    ks = [int(k) for k in args.ks.split(",")]
    names = []
    for name in args.datasets.split(","):
        names += list(nn.RELATED) if name == "related" else [name]
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        for name in names:
            for seed in [int(s) for s in args.seeds.split(",")]:
                run(name, seed, ks)


if __name__ == "__main__":
    main()
