"""Dada's one-class newcomers by feature-mean neighbours (issue 32).

Same splits as ``new_nodes.py`` (Dada at its defaults, 20 % of the nodes
join with k samples each).  One fit per (data set, seed), with the gate of
:mod:`skfed.boosting._dada_mean_join`; then each k is joined three ways on
copies of the fit: ``graph`` (today's join: ``newcomer_rule_`` forced to
``"graph"``), ``mean`` (one-class newcomers take the mass-weighted mean of
their 5 nearest-mean fitted nodes' models) and ``fw`` (from that mean,
the graph join's Frank-Wolfe model steps on their own samples with the
5 nodes as neighbours, mass shares as weights).  With the gate closed all
three are the graph join.

Commands (from benchmarks/; ``--global`` adds the better pooled baseline)::

    python dada_join_one_class.py --datasets landmine --seeds 0,1,2
    python dada_join_one_class.py --datasets landmine --seeds 3,4,5 --global
    python dada_join_one_class.py --datasets moons,related --seeds 0,1,2
    python dada_join_one_class.py --datasets shifted-alike,har --seeds 0,1,2 \
        --variants graph,mean

Results (2026-11-29, dada18, gate t > 3 and the hub protocol of
skfed/_mean_neighbours.py at persolin16 856b6fb; mean accuracy over the
seeds, k = 5 / 10 / 20)::

    Landmine seeds 0-2   graph 93.52 / 93.56 / 93.76   mean 93.77 / 93.76 / 93.92
                         fw    93.74 / 93.85 / 93.83   Global 93.81 / 93.77 / 93.78
    Landmine seeds 3-5   graph 93.38 / 93.56 / 93.39   mean 93.72 / 93.79 / 93.54
                         fw    93.72 / 93.75 / 93.50   Global 93.48 / 93.45 / 93.42
    Landmine seeds 0-5   mean - Global  +0.10 / +0.16 / +0.13; per seed 0-5:
                         k = 5   +0.19 +0.18 -0.49 -0.11 +0.55 +0.29
                         k = 10  -0.31 +0.15 +0.12 +0.18 +0.56 +0.26
                         k = 20  +0.10 +0.19 +0.13  0.00 +0.29 +0.06

Gate: open on all 6 Landmine fits (t 3.36-6.45); one-class newcomers 2-6 of
6 at k = 5, 1-4 at k = 20.  Held out, seeds 0-2 (24 fits: shifted-alike,
moons, related-alike / -clustered / -small / -wide / -narrow, HAR): closed
on every fit (largest t 2.13, shifted-alike seed 2; moons <= 0.72, related
<= 0.66, HAR <= 0.96), so "mean" and "fw" equal "graph" there to the row
and byte.  (At landmine1's threshold 2 shifted-alike seed 2 opened: graph
73.87 / 75.86 / 80.83, mean 76.87 / 77.14 / 80.92.)  The "fw" form (the
natural Dada form: neighbours as graph weights, Frank-Wolfe from their mean)
is no better than the plain mean (seeds 0-5: -0.01 / +0.03 / -0.07) and is
not used; its row weight (1, 10, or the fitted mean degree) changed no
prediction.  Join bytes on Landmine fall (graph 35-41 kB -> mean 16-31
kB: a one-class newcomer asks 5 nodes, not 20 kappa candidates).
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
GLOBAL = False
_MEAN_MODEL = mj._one_class_model


def fw_model(est, node, mean):
    """Variant ``fw``: the graph join's Frank-Wolfe model steps on the
    newcomer's own samples from its neighbours' mean model (dada15's warm
    start; its row the mass shares), then the library's loss of it.  The
    library's rule is ``mean`` (the model is the mean itself)."""
    from skfed._graph_join import _WARM_START, _schedule

    _, n_steps = _schedule(est, int(est._join_info.get("n_fit", len(est._feature_table[0]))))
    node.model_steps(np.ascontiguousarray(mean, dtype=np.float64), 1.0,
                     0, n_steps, None, _WARM_START * n_steps)
    return _MEAN_MODEL(est, node, node.model[0])


def set_model(variant):
    """Point the library's one-class model at ``variant`` (``fw*`` or the mean)."""
    mj._one_class_model = fw_model if variant.startswith("fw") else _MEAN_MODEL


def run(name, seed, ks):
    data = lmn.load(name, seed)  # (+ shifted-alike)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("dada", "classification", seed).set_params(join_neighbours="auto")
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    gate = base.newcomer_gate_ or {}
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        row = dict(dataset=name, seed=seed, k=k, rule=base.newcomer_rule_,
                   t=round(float(gate.get("t", np.nan)), 2))
        n_one = sum(len(np.unique(y[train][groups[train] == g])) == 1 for g in new)
        row["n_one_class"], row["n_new"] = int(n_one), len(new)
        for variant in VARIANTS:
            joined = copy.deepcopy(base)
            if variant == "graph":
                joined.newcomer_rule_ = "graph"
            set_model(variant)
            joined.add_nodes(X[train], y[train], groups=groups[train])
            pred = joined.predict(X[test], groups=groups[test])
            row[variant] = round(100 * float(np.mean(pred == y[test])), 2)
            row[variant + "_bytes"] = int(joined.join_communication_.total_bytes)
        set_model("mean")
        if GLOBAL:  # the better pooled baseline on the same arrays (new_nodes.py's)
            pooled, _ = nn.baselines("classification", X, y, groups, fit_rows, train, test, k)
            row["global"] = round(max(pooled.values()), 2)
        print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="graph,mean,fw")
    parser.add_argument("--global", dest="with_global", action="store_true",
                        help="also the Global baseline (pooled LinearSVC / SVC / LogReg)")
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
