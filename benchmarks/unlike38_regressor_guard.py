"""Where the regressors' contradicting-newcomer guard fires, and that it changes nothing else.

The joins of ``benchmarks/new_nodes.py`` (its data sets, split, estimators
and ``k``) of the regressor families, each run twice on a copy of the same
fit: with the guard (:func:`skfed._join_unlike.worse_than_own_mean`) and
with its test switched off (every newcomer unflagged: main's join).  Per row
it prints the newcomers tested and flagged, the join's score both ways,
whether every newcomer's predictions and the join's bytes are identical, and
the smallest p-value of the test over the row's newcomers (MOCHA tests its
prior's centre, the online learner its start).

``--synthetic`` runs held-out regression families instead (:func:`synthetic`:
nearly alike nodes, clusters, many small nodes, uninformative features, low
and high dimension, School-like node offsets, and a reversed control whose
newcomers' response is the negative of the fitted nodes'): 20 newcomers of
``k`` samples each, scored on 50 fresh samples of each.

Usage: ``python benchmarks/unlike38_regressor_guard.py --families
mocha,online --datasets school --seeds 0,1,2 --ks 5,10,20``;
``python benchmarks/unlike38_regressor_guard.py --synthetic --seeds 0,1,2``.

Results (2026-11-30, main 78bec11e, unlike38; one BLAS thread):

- School, the first command (MOCHA and online, seeds 0-2, k = 5, 10,
  20): 504 newcomers tested, 0 flagged, 18 of 18 rows identical with the
  test off (every newcomer's predictions and the join's bytes); smallest
  p-value 0.055.  ``python benchmarks/new_nodes.py --families mocha,online
  --datasets school --seeds 0,1,2 --ks 5,10,20`` on this branch and on main
  (a ``git archive`` of it) gives identical ``join``, ``join_bytes``,
  ``refit`` and ``refit_bytes`` in all 18 rows.
- ``--synthetic`` (MOCHA and online, seeds 0-2, k = 5, 10, 20): the seven
  alike families, 2,520 newcomers, 0 flagged, 126 of 126 rows identical;
  smallest p-values 0.011 (9 of 10 samples worse: MOCHA on clustered,
  seeds 1 and 2, k = 10, whose centre averages four clusters' models),
  then 0.021 (MOCHA clustered, lowdim).
  The reversed control (20 newcomers a row): flagged 0 / 0 / 0 at k = 5
  (a sign test cannot fire below 7 samples), 2 / 5 / 8 (online 3 / 5 / 8)
  at k = 10 (all 10
  must be worse), 19 / 16 / 20 at k = 20 (both families alike: the tested
  centre and start are the fitted nodes' model); R^2 x 100 of the row at
  k = 20, means over the seeds, guard off -> on: MOCHA -76.8 -> 77.5,
  online 32.2 -> 84.0; at k = 10 MOCHA -160.0 -> -119.9, online -127.4 ->
  -74.7 (most newcomers unflagged there).
- Conclusion: the test never fired where the newcomer is like the fitted
  nodes (School, alike, clustered, small, noisy, low and high dimension,
  node offsets) and changed nothing there; it rescues reversed newcomers of
  20 samples, a third of those of 10 and none of 5.
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
from table_cells import add_row, table_cells

import skfed._join_unlike as guard

MODULES = ("skfed.multitask._join_unlike", "skfed.online._join_unlike")
STATE = {"off": False, "tested": 0, "flagged": 0, "p": []}
_original = guard.worse_than_own_mean


def _counting(pred, y, offsets, alpha=guard.ALPHA):
    out = _original(pred, y, offsets, alpha)
    if STATE["off"]:
        return np.zeros_like(out)
    STATE["tested"] += len(out)
    STATE["flagged"] += int(out.sum())
    STATE["p"].extend(guard.own_mean_sign_pvalues(pred, y, offsets))
    return out


def _min(values):
    return f"{min(values):.3g}" if len(values) else "-"


SYNTHETIC = {
    # name: (fitted nodes, samples a node, features, informative, personal
    # scale, clusters, node offset scale, newcomers' sign)
    "alike": (40, 30, 10, 10, 0.1, 1, 0.0, 1.0),
    "clustered": (40, 30, 10, 10, 0.1, 4, 0.0, 1.0),
    "small": (150, 8, 5, 5, 0.3, 1, 0.0, 1.0),
    "noisy": (40, 30, 100, 5, 0.3, 1, 0.0, 1.0),
    "lowdim": (40, 30, 2, 2, 0.3, 1, 0.0, 1.0),
    "highdim": (30, 20, 50, 50, 0.3, 1, 0.0, 1.0),
    "offsets": (40, 30, 10, 10, 0.3, 1, 1.0, 1.0),
    "reversed": (40, 30, 10, 10, 0.1, 1, 0.0, -1.0),
}


def synthetic(name, seed, k, n_new=20, n_fresh=50):
    """``(X, y, groups)`` of the fitted nodes and ``(X, y, groups)`` of the
    newcomers (their first ``k`` samples each, then ``n_fresh``)."""
    m, n, d, informative, personal, clusters, offset, sign = SYNTHETIC[name]
    rng = np.random.RandomState(seed)
    centres = rng.normal(size=(clusters, d)) * (np.arange(d) < informative)

    def nodes(count, size, sign):
        ws = centres[rng.randint(clusters, size=count)]
        ws = ws + personal * rng.normal(size=ws.shape) * (np.arange(d) < informative)
        shift = offset * rng.normal(size=count)
        X = rng.normal(size=(count * size, d))
        g = np.repeat(np.arange(count), size)
        y = sign * (np.einsum("id,id->i", X, ws[g]) + shift[g]) + 0.5 * rng.normal(size=len(g))
        return X, y, g

    fitted = nodes(m, n, 1.0)
    X, y, g = nodes(n_new, k + n_fresh, sign)
    return fitted, (X, y, g + 10_000)


def _estimator(family, seed):
    if family == "mocha":
        from skfed.multitask import FederatedMultiTaskRegressor
        return FederatedMultiTaskRegressor(random_state=seed)
    from skfed.online import DecentralizedKernelSGDRegressor
    return DecentralizedKernelSGDRegressor(random_state=seed)


def _compare(base, joining, fresh, task, label, total):
    """Join ``joining`` to copies of ``base`` with the test on and off; print
    the row (scores on ``fresh``) and add it to ``total``."""
    out = {}
    for off in (False, True):
        STATE.update(off=off, tested=0, flagged=0, p=[])
        joined = copy.deepcopy(base)
        new_nodes.add_nodes(joined, *joining)
        out[off] = (joined, STATE["tested"], STATE["flagged"], list(STATE["p"]))
    (on, tested, flagged, p), off = out[False], out[True][0]
    Xt, yt, gt = fresh
    pon, poff = on.predict(Xt, groups=gt), off.predict(Xt, groups=gt)
    same = (np.array_equal(pon, poff)
            and on.join_communication_.total_bytes == off.join_communication_.total_bytes)
    print(f"{label}: tested {tested:3d} flagged {flagged:2d}  join "
          f"{new_nodes.score(task, yt, pon):7.3f} (off {new_nodes.score(task, yt, poff):7.3f})"
          f"  identical {same}  min p {_min(p)}", flush=True)
    add_row(total, tested, flagged, same)


def run_synthetic(args):
    """The held-out families: flagged newcomers and R^2 x 100 with and without the guard."""
    total = {"tested": 0, "flagged": 0, "rows": 0, "identical": 0}
    for name in SYNTHETIC:
        for family in args.families.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                for k in (int(s) for s in args.ks.split(",")):
                    (X, y, g), (Xn, yn, gn) = synthetic(name, seed, k)
                    first = np.concatenate([np.flatnonzero(gn == c)[:k] for c in np.unique(gn)])
                    fresh = np.setdiff1d(np.arange(len(gn)), first)
                    base = _estimator(family, seed).fit(X, y, groups=g)
                    _compare(base, (Xn[first], yn[first], gn[first]),
                             (Xn[fresh], yn[fresh], gn[fresh]), "regression",
                             f"{family:7s} {name:10s} seed {seed} k {k:2d}", total)
    print(f"total: {total}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="mocha,online")
    parser.add_argument("--datasets", default="school")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--synthetic", action="store_true")
    args = parser.parse_args()
    for name in MODULES:
        importlib.import_module(name).worse_than_own_mean = _counting
    warnings.filterwarnings("ignore")
    new_nodes._import_joins()
    if args.synthetic:
        with threadpool_limits(1):
            run_synthetic(args)
        return
    total = {"tested": 0, "flagged": 0, "rows": 0, "identical": 0}
    for c in table_cells(args):
        _compare(c.base, (c.X[c.train], c.y[c.train], c.groups[c.train]),
                 (c.X[c.test], c.y[c.test], c.groups[c.test]), c.task,
                 f"{c.family:8s} {c.name:8s} seed {c.seed} k {c.k:2d}", total)
    print(f"total: {total}")


if __name__ == "__main__":
    main()
