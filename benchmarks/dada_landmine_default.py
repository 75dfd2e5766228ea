"""Dada's Landmine newcomers under the feature-mean gate: which newcomers
take their 5 nearest-mean nodes' mean (issue 32, dada25).

Same splits as ``new_nodes.py`` (Dada at its defaults with
``join_neighbours="auto"``, 20 % of the nodes join with k samples each).
One fit per (data set, seed); every k is joined on copies of the fit:

* ``graph``: the graph join for every newcomer (``newcomer_rule_`` forced
  to ``"graph"``);
* ``mean``: dada18's rule, one-class newcomers take the mass-weighted mean
  of their 5 nearest-mean fitted nodes' models, the others the graph join;
* ``allmean``: every newcomer takes that mean (Perso-lin's rule);
* ``allfw``: every newcomer runs the graph join's Frank-Wolfe model steps
  on its own samples from that mean (``ONE_CLASS_MODEL = "fw"``).

With the gate closed every variant is the graph join.  ``--global`` adds
the better pooled baseline (new_nodes.py's).

    python benchmarks/dada_landmine_default.py --datasets landmine --seeds 0,1,2,3,4,5 --global
"""

import argparse
import copy
import json
import warnings

import new_nodes as nn
import numpy as np
from threadpoolctl import threadpool_limits

from skfed.boosting import _dada_mean_join as mj

VARIANTS = ("graph", "mean", "allmean", "allfw")
GLOBAL = False
_one_class_nodes = mj.one_class_nodes


def _every_node(y, sw, layout, n_new):
    return np.ones(n_new, dtype=bool)


def run(name, seed, ks):
    data = nn.load(name, seed)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("dada", "classification", seed).set_params(join_neighbours="auto")
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    gate = base.newcomer_gate_ or {}
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        row = dict(dataset=name, seed=seed, k=k, rule=base.newcomer_rule_,
                   t=round(float(gate.get("t", np.nan)), 2),
                   gate_bytes=gate.get("n_bytes"), fit_bytes=int(base.n_bytes_sent_))
        row["n_one_class"] = int(sum(len(np.unique(y[train][groups[train] == g])) == 1
                                     for g in new))
        row["n_new"] = len(new)
        for variant in VARIANTS:
            joined = copy.deepcopy(base)
            if variant == "graph":
                joined.newcomer_rule_ = "graph"
            mj.ONE_CLASS_MODEL = "fw" if variant.endswith("fw") else "mean"
            mj.one_class_nodes = _every_node if variant.startswith("all") else _one_class_nodes
            try:
                joined.add_nodes(X[train], y[train], groups=groups[train])
            finally:
                mj.ONE_CLASS_MODEL, mj.one_class_nodes = "mean", _one_class_nodes
            pred = joined.predict(X[test], groups=groups[test])
            row[variant] = round(100 * float(np.mean(pred == y[test])), 2)
            row[variant + "_bytes"] = int(joined.join_communication_.total_bytes)
        if GLOBAL:
            pooled, _ = nn.baselines("classification", X, y, groups, fit_rows, train, test, k)
            row["global"] = round(max(pooled.values()), 2)
        print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="graph,mean,allmean,allfw")
    parser.add_argument("--global", dest="with_global", action="store_true")
    args = parser.parse_args()
    global VARIANTS, GLOBAL
    VARIANTS, GLOBAL = tuple(args.variants.split(",")), args.with_global
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
