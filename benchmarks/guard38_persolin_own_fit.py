"""Perso-lin's own-fit guard (skfed/_join_own_fit.py): where it fires, what it changes.

Perso-lin's posterior and feature-mean joins flag a two-class newcomer whose
own leave-one-out ridge fit ranks its samples significantly better than the
joined model (:func:`skfed._join_own_fit.own_fit_beats_join`, level 0.01),
besides the errors test; a flagged newcomer keeps the model it solves
alone.  Each join is run twice on a copy of the same fit, with the own-fit
test and with it switched off (main's guard before guard38):

- ``--table``: ``benchmarks/new_nodes.py``'s Perso-lin rows (newcomers that
  resemble fitted nodes: a flag is a false alarm).  Per row: newcomers
  tested, flagged, the smallest p-value, and whether every newcomer's
  decision values and the join's bytes are identical both ways.
- ``--unlike``: ``benchmarks/new_nodes_unlike.py``'s newcomer turned by
  ``angle`` degrees; per angle and ``k`` the newcomers flagged and the
  mean accuracy on its other samples: Local, the join off, the join on.

Usage: ``python benchmarks/guard38_persolin_own_fit.py --table --datasets
moons,landmine,har --seeds 0,1,2 --ks 5,10,20``; ``python
benchmarks/guard38_persolin_own_fit.py --unlike --seeds
0,1,2,3,4,5,6,7,8,9,10,11 --ks 5,10,20 --angles 0,90,180``.

Results (2026-11-30, branch guard38 from main 732136fa, guard38; one BLAS
thread):

- ``--table`` (the first command, 4 min 53 s): 27 rows, 270 newcomers
  tested (moons 20, Landmine 6, HAR 4 a row), 0 flagged, 27 of 27 rows
  identical with the test off (every newcomer's decision values and the
  join's bytes), so growing.rst's Perso-lin rows are unchanged; smallest
  p-value 0.0705 (Landmine seed 0, k = 20; guardw37's own measurement of
  the same rule, ``benchmarks/guardw37_table_pvalues.py``, found the same).
- ``--unlike`` (the second command, 26 s; accuracy on the newcomer's other
  samples, mean of seeds 0-11)::

      angle  k   flagged  Local  join off  join on
        0    5      0     0.742   0.979    0.979
        0   10      0     0.838   0.977    0.977
        0   20      0     0.935   0.977    0.977
       90    5      0     0.753   0.544    0.544
       90   10      0     0.862   0.542    0.542
       90   20      4     0.929   0.575    0.663
      180    5      0     0.742   0.209    0.209
      180   10      9     0.838   0.752    0.810
      180   20     11     0.935   0.894    0.894

- Seeds 0-2 only (``--seeds 0,1,2 --angles 90,180``, growing.rst's
  setting): every join unchanged (90 degrees 0.539 / 0.507 / 0.617, 180
  degrees 0.267 / 0.827 / 0.925 at k = 5 / 10 / 20); its flags there (1 at
  90, k = 20; 3 and 3 at 180, k = 10 and 20) are newcomers the errors test
  already flags.
- Conclusion: the test never fires on an alike newcomer or a table row
  and changes nothing there; at 90 degrees it serves 4 of 12 newcomers
  of 20 samples (+0.09 on the mean), at 180 degrees it adds newcomers of
  10 samples the errors test missed (+0.06).  At 90 degrees, k <= 10, it
  cannot tell the own fit from the join on so few samples (0 of 24).
"""

import argparse
import copy
import itertools
import os
import sys
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes
import new_nodes_unlike

import skfed._graph_join_unlike as graph_guard
import skfed._join_own_fit as own_fit
from skfed import PersonalizedLinearClassifier

STATE = {"off": False, "tested": 0, "flagged": 0, "p": []}
_test = own_fit.own_fit_beats_join


def _counting(X, F, codes, offsets, alpha=own_fit.ALPHA):
    out = _test(X, F, codes, offsets, alpha)
    if STATE["off"]:
        return np.zeros_like(out)
    STATE["tested"] += len(out)
    STATE["flagged"] += int(out.sum())
    STATE["p"].extend(own_fit.own_fit_pvalues(X, F, codes, offsets))
    return out


def _both(base, X, y, g):
    """The join with the own-fit test on and off: ``(on, off, tested, flagged, p)``."""
    out = {}
    for off in (False, True):
        STATE.update(off=off, tested=0, flagged=0, p=[])
        joined = copy.deepcopy(base)
        new_nodes.add_nodes(joined, X, y, g)
        out[off] = joined, STATE["tested"], STATE["flagged"], list(STATE["p"])
    return out[False][0], out[True][0], *out[False][1:]


def _fitted(name, seed):
    """A table data set's arrays, its newcomers' order and Perso-lin fitted on the rest."""
    X, y, groups, task, *extra = new_nodes.load(name, seed)
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, *extra[:1])
    base = new_nodes.make_estimator("persolin", task, seed)
    return X, y, groups, order, base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])


def run_table(args):
    new_nodes._import_joins()
    total = dict.fromkeys(("tested", "flagged", "rows", "identical"), 0)
    for name, seed in itertools.product(args.datasets.split(","),
                                        [int(s) for s in args.seeds.split(",")]):
        X, y, groups, order, base = _fitted(name, seed)
        for k in (int(s) for s in args.ks.split(",")):
            train, test = new_nodes.new_node_rows(order, k)
            on, off, tested, flagged, p = _both(base, X[train], y[train], groups[train])
            Xt, gt = X[test], groups[test]
            same = (np.array_equal(on.decision_function(Xt, groups=gt),
                                   off.decision_function(Xt, groups=gt))
                    and on.join_communication_.total_bytes == off.join_communication_.total_bytes)
            print(f"persolin {name:8s} seed {seed} k {k:2d}: tested {tested:3d} flagged "
                  f"{flagged:2d}  min p {min(p) if p else float('nan'):.4g}  identical {same}",
                  flush=True)
            for key, value in zip(("tested", "flagged", "rows", "identical"),
                                  (tested, flagged, 1, int(same))):
                total[key] += value
    print(f"total: {total}")


def run_unlike(args):
    for angle in (float(a) for a in args.angles.split(",")):
        for k in (int(s) for s in args.ks.split(",")):
            scores = {"Local": [], "off": [], "on": []}
            flags = 0
            for seed in (int(s) for s in args.seeds.split(",")):
                X, y, groups = new_nodes_unlike.data(seed, args.nodes, args.samples, angle)
                new = args.nodes - 1
                position = np.arange(len(y)) % args.samples
                train = (groups == new) & (position < k)
                test = (groups == new) & (position >= k)
                base = PersonalizedLinearClassifier(random_state=seed).fit(
                    X[groups < new], y[groups < new], groups=groups[groups < new])
                on, off, _, flagged, _ = _both(base, X[train], y[train], groups[train])
                flags += flagged
                scores["Local"].append(new_nodes_unlike.best_sklearn(
                    X[train], y[train], X[test], y[test]))
                scores["off"].append(off.score(X[test], y[test], groups=groups[test]))
                scores["on"].append(on.score(X[test], y[test], groups=groups[test]))
            print(f"angle {angle:3g} k {k:2d}: flagged {flags:2d}  " + "  ".join(
                f"{key} {np.mean(v):.3f}" for key, v in scores.items()), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--unlike", action="store_true")
    parser.add_argument("--datasets", default="moons,landmine,har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--angles", default="0,90,180")
    parser.add_argument("--nodes", type=int, default=16)
    parser.add_argument("--samples", type=int, default=60)
    args = parser.parse_args()
    graph_guard.own_fit_beats_join = _counting
    warnings.filterwarnings("ignore")
    with threadpool_limits(1):
        if args.unlike:
            run_unlike(args)
        if args.table:
            run_table(args)


if __name__ == "__main__":
    main()
