"""Where the opposite-task guard fires, and that it changes nothing else.

The joins of ``benchmarks/new_nodes.py`` (its data sets, split, estimators
and ``k``), each run twice on a copy of the same fit: with the guard of
:mod:`skfed._join_unlike` and with its test switched off (every newcomer
unflagged: main's join).  Per row it prints the newcomers tested and
flagged, the join's accuracy both ways, whether every newcomer's decision
values and the join's bytes are identical, and the number of newcomers
whose predictions differ.  A row with no flagged newcomer must be
identical (the guarded paths return before touching anything).  No
baselines or refits (``new_nodes.py`` has those); one fit per family,
data set and seed.

Usage: ``python benchmarks/unlike36_guard_firing.py --families
mocha,dada,persolin,online --datasets har,moons,landmine --seeds 0,1,2
--ks 5,10,20``.

Results (2026-11-30, branch unlike36 from main 7e469ed, unlike36; the command above
with ``--datasets moons,landmine,har``, about 17 min): 108 rows (4 families x
3 data sets x seeds 0-2 x k = 5, 10, 20), 743 newcomers tested, 0 flagged,
108 of 108 rows identical (decision values of every newcomer's test
samples and join bytes), so growing.rst's table rows are unchanged.
Tested 0 are rows whose join does not run a guarded path: Perso-lin's
default joins there (its posterior or feature-mean rules) and the online
learner's open feature gate on Landmine.  School (regression) runs no
guard (classifiers only).
"""

import argparse
import copy
import importlib
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes
from table_cells import add_row, table_cells

import skfed._join_unlike as guard

MODULES = ("skfed.multitask._join_unlike", "skfed._graph_join_unlike",
           "skfed.online._join_unlike")
STATE = {"off": False, "tested": 0, "flagged": 0}
_original = guard.worse_than_chance


def _counting(pred, y, offsets, alpha=guard.ALPHA):
    out = _original(pred, y, offsets, alpha)
    if STATE["off"]:
        return np.zeros_like(out)
    STATE["tested"] += len(out)
    STATE["flagged"] += int(out.sum())
    return out


def _values(est, X, groups):
    f = getattr(est, "decision_function", None)
    return np.asarray(f(X, groups=groups) if f is not None else est.predict(X, groups=groups))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="mocha,dada,persolin,online")
    parser.add_argument("--datasets", default="har,moons,landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    for name in MODULES:
        importlib.import_module(name).worse_than_chance = _counting
    warnings.filterwarnings("ignore")
    new_nodes._import_joins()
    total = {"tested": 0, "flagged": 0, "rows": 0, "identical": 0}
    for c in table_cells(args):
        out = {}
        for off in (False, True):
            STATE.update(off=off, tested=0, flagged=0)
            joined = copy.deepcopy(c.base)
            new_nodes.add_nodes(joined, c.X[c.train], c.y[c.train], c.groups[c.train])
            out[off] = (joined, STATE["tested"], STATE["flagged"])
        (on, tested, flagged), (off, _, _) = out[False], out[True]
        Xt, gt, yt = c.X[c.test], c.groups[c.test], c.y[c.test]
        same = (np.array_equal(_values(on, Xt, gt), _values(off, Xt, gt))
                and on.join_communication_.total_bytes
                == off.join_communication_.total_bytes)
        pon, poff = on.predict(Xt, groups=gt), off.predict(Xt, groups=gt)
        moved = len(np.unique(gt[pon != poff]))
        print(f"{c.family:8s} {c.name:8s} seed {c.seed} k {c.k:2d}: tested {tested:3d} "
              f"flagged {flagged:2d}  join {100 * np.mean(pon == yt):.3f} "
              f"(off {100 * np.mean(poff == yt):.3f})  identical {same}  "
              f"newcomers moved {moved}", flush=True)
        add_row(total, tested, flagged, same)
    print(f"total: {total}")


if __name__ == "__main__":
    main()
