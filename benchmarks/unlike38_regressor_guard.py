"""Where the regressors' contradicting-newcomer guard fires, and that it changes nothing else.

The joins of ``benchmarks/new_nodes.py`` (its data sets, split, estimators
and ``k``) of the regressor families, each run twice on a copy of the same
fit: with the guard (:func:`skfed._join_unlike.worse_than_own_mean`) and
with its test switched off (every newcomer unflagged: main's join).  Per row
it prints the newcomers tested and flagged, the join's score both ways,
whether every newcomer's predictions and the join's bytes are identical, and
the smallest p-value of the test over the row's newcomers.  With
``--centre`` it also prints the smallest p-value the same test gives MOCHA's
prior centre (the model before the newcomer's own solve): a diagnostic of the
alternative of testing the centre instead of the joined model.

Usage: ``python benchmarks/unlike38_regressor_guard.py --families
mocha,online --datasets school --seeds 0,1,2 --ks 5,10,20 [--centre]``.
"""

import argparse
import copy
import importlib
import os
import sys
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes

import skfed._join_unlike as guard

MODULES = ("skfed.multitask._join_unlike", "skfed.online._join_unlike")
STATE = {"off": False, "tested": 0, "flagged": 0, "p": [], "centre_p": []}
_original = guard.worse_than_own_mean


def _counting(pred, y, offsets, alpha=guard.ALPHA):
    out = _original(pred, y, offsets, alpha)
    if STATE["off"]:
        return np.zeros_like(out)
    STATE["tested"] += len(out)
    STATE["flagged"] += int(out.sum())
    STATE["p"].extend(guard.own_mean_sign_pvalues(pred, y, offsets))
    return out


def _centre_recorder(original):
    def contradicted(nodes, keeps_centre, M, regression=False):
        if regression and not STATE["off"]:
            node_of = np.repeat(np.arange(nodes.m), nodes.layout.counts)
            F = np.einsum("id,pid->pi", nodes.Z, M[:, node_of])
            STATE["centre_p"].extend(guard.own_mean_sign_pvalues(
                F[0], nodes.Y[0], nodes.layout.offsets))
        return original(nodes, keeps_centre, M, regression)
    return contradicted


def _min(values):
    return f"{min(values):.3g}" if len(values) else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="mocha,online")
    parser.add_argument("--datasets", default="school")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--centre", action="store_true")
    args = parser.parse_args()
    for name in MODULES:
        importlib.import_module(name).worse_than_own_mean = _counting
    if args.centre:
        mocha = importlib.import_module("skfed.multitask._join_unlike")
        mocha.contradicted = _centre_recorder(mocha.contradicted)
    warnings.filterwarnings("ignore")
    new_nodes._import_joins()
    total = {"tested": 0, "flagged": 0, "rows": 0, "identical": 0}
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                data = new_nodes.load(name, seed)
                X, y, groups, task = data[:4]
                extra = data[4] if len(data) > 4 else None
                fit_rows, _, order = new_nodes.split(X, y, groups, seed, extra)
                for family in args.families.split(","):
                    base = new_nodes.make_estimator(family, task, seed)
                    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
                    for k in (int(s) for s in args.ks.split(",")):
                        train, test = new_nodes.new_node_rows(order, k)
                        out = {}
                        for off in (False, True):
                            STATE.update(off=off, tested=0, flagged=0, p=[], centre_p=[])
                            joined = copy.deepcopy(base)
                            new_nodes.add_nodes(joined, X[train], y[train], groups[train])
                            out[off] = (joined, STATE["tested"], STATE["flagged"],
                                        list(STATE["p"]), list(STATE["centre_p"]))
                        (on, tested, flagged, p, centre_p), off = out[False], out[True][0]
                        Xt, gt = X[test], groups[test]
                        pon, poff = on.predict(Xt, groups=gt), off.predict(Xt, groups=gt)
                        same = (np.array_equal(pon, poff)
                                and on.join_communication_.total_bytes
                                == off.join_communication_.total_bytes)
                        centre = f"  centre min p {_min(centre_p)}" if args.centre else ""
                        print(f"{family:8s} {name:8s} seed {seed} k {k:2d}: tested {tested:3d} "
                              f"flagged {flagged:2d}  join {new_nodes.score(task, y[test], pon):.3f} "
                              f"(off {new_nodes.score(task, y[test], poff):.3f})  identical {same}"
                              f"  min p {_min(p)}{centre}", flush=True)
                        total["tested"] += tested
                        total["flagged"] += flagged
                        total["rows"] += 1
                        total["identical"] += int(same)
    print(f"total: {total}")


if __name__ == "__main__":
    main()
