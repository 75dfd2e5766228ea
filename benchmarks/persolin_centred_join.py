"""Perso-lin joins after the centred local solve: which part moved.

The lead's change of 2026-11-28 solves Perso-lin's purely local models on
each node's centred design (``_centred_block`` in
``skfed/boosting/_perso_lin.py``): the same problems, but the accelerated
gradient stops at ``LOCAL_TOL`` at another point.  ``benchmarks/new_nodes.py``
then measured the HAR joins 0.5-1.3 points lower while the refit gained.
This script separates the causes on the same arrays as ``new_nodes.py``
(its split, its ``k`` samples, seed by seed): the fit solved the old way
(raw design) or the new way (centred), crossed with the newcomers' local
models solved the old way, the new way, or to a tight tolerance
(``--tight``, centred: a reference close to the exact local optimum).  For
each it prints the join's accuracy on the new nodes' test samples, the
newcomers' local objective (sum over newcomers of ``losses``, what the
local solve returns) and the norm of their local models.

    python benchmarks/persolin_centred_join.py [--datasets har] [--seeds 0] \
        [--ks 10,20] [--tight 1e-9] [--fits old,new] [--fit-tol T] \
        [--oracle GAP] [--fitted-gap TOL]

    python benchmarks/persolin_centred_join.py --datasets har,moons,landmine \
        --seeds 0,1,2 --ks 5,10,20 --fits new --tight 1e-3,3e-4,1e-4,1e-9

(``--fits`` old / new: the fit's local solve on the raw or the centred
design; ``--fit-tol`` its LOCAL_TOL.)

Results (2026-11-28, plcentre, main 8124cf4, one BLAS thread)
-------------------------------------------------------------

HAR sitting, ``--seeds 0,1,2 --ks 10,20`` (default ``--fits old,new``):
join accuracy per seed 0 / 1 / 2, fit x newcomer::

    k   fit  newcomer   seed 0  seed 1  seed 2   mean
    10  old  old        94.97   90.17   95.97    93.70   (the join before)
    10  old  new        92.65   89.54   93.76    91.98
    10  new  old        92.42   88.85   91.71    90.99
    10  new  new        94.15   89.75   93.32    92.41   (main now)
    10  new  tight1e-9  94.37   90.37   94.35    93.03
    20  old  old        94.97   90.60   96.83    94.13   (the join before)
    20  old  new        94.43   90.88   94.33    93.21
    20  new  old        92.27   89.60   91.91    91.26
    20  new  new        93.81   90.81   93.73    92.78   (main now)
    20  new  tight1e-9  94.35   91.24   96.15    93.91

So both sides moved, and they must match: a newcomer solved the old way
with the new fit (or the new way with the old fit) is worse than either
matched pair.  The old raw-design solve stopped far from the local
optima (newcomers' local model norms 0.09-0.30 of the optimum's, local
objective 3.7-50 % above it; fitted nodes' median norm 3.1 against 9.0-9.8
centred): an early stop that acted as a strong, shared shrinkage, which
this HAR join liked.  With the centred fit the newcomer's own solve is
about half of the drop at ``k = 10`` and most of it at ``k = 20``: at ``LOCAL_TOL`` (3e-3, relative to the start
gradient) the 5-20-sample newcomers on HAR's 561 features stop 0.4-19 %
above their optimum (local objective summed over a join's newcomers, 9
seed and ``k`` rows; norm 0.63-0.92 of the optimum's), while every fitted
node stops 0.08-0.29 % above its own (median 0.16 %, norm 0.84-0.97 of
the optimum's; seed 0, against a 1e-9 solve)::

    python benchmarks/persolin_centred_join.py --seeds 0 --fitted-gap 1e-9  Solving the newcomers to 1e-9 (fit unchanged) recovers 0.6 /
1.1 of the 1.3 / 1.35 points lost at ``k = 10 / 20``; what remains is the
fit's own models (more exact, larger).

Newcomer tolerance with the centred fit, means over seeds 0-2 at
``k = 5 / 10 / 20`` (``--fits new --tight 1e-3,3e-4,1e-4,1e-9``; "old" =
raw-design newcomer; newcomers' local steps summed, mean over seeds)::

    data      newcomer   join                     steps
    HAR       old        90.50 / 90.99 / 91.26    450 / 704 / 831
    HAR       3e-3 (now) 91.85 / 92.41 / 92.78    1299 / 1087 / 1027
    HAR       1e-3       92.70 / 92.84 / 93.80    1956 / 1509 / 1539
    HAR       3e-4       92.39 / 93.08 / 93.89    3017 / 2144 / 2094
    HAR       1e-4       92.05 / 93.03 / 93.94    4481 / 2773 / 2919
    HAR       1e-9       92.47 / 93.03 / 93.91    25472 / 30209 / 31982
    moons     old        55.24 / 57.98 / 61.41    1284 / 893 / 676
    moons     3e-3 (now) 53.99 / 57.79 / 61.31    928 / 747 / 643
    moons     1e-3       54.34 / 57.59 / 61.51    1510 / 1156 / 900
    moons     3e-4       54.23 / 57.53 / 61.44    2132 / 1520 / 1130
    moons     1e-4       54.23 / 57.56 / 61.47    2681 / 1864 / 1400
    moons     1e-9       54.29 / 57.53 / 61.50    17432 / 8956 / 4120
    Landmine  3e-3 (now) 93.64 / 93.59 / 93.77    303 / 301 / 246
    Landmine  1e-3..1e-9 93.64 / 93.59 / 93.76    515-46924

A tighter newcomer tolerance lifts HAR (1e-3: +0.85 / +0.43 / +1.02) but
costs rotated moons at ``k = 10`` (57.79 -> 57.5-57.6 at every tighter
value) and Landmine at ``k = 20`` one test sample, so by the rule of the
change (no Perso-lin row of growing.rst drops) none is adopted.  The fit
solved tighter too does not help: ``--fits new --fit-tol 1e-4 --tight
1e-4`` gives HAR 91.91 / 92.55 / 93.47 and moons 54.28 / 57.12 / 61.27,
below the fit at 3e-3 with newcomers at 1e-4 (HAR 92.05 / 93.03 / 93.94,
moons 54.23 / 57.56 / 61.47).  Seed 0, ``--fitted-gap 1e-9``: the fitted
nodes stop a median 0.175 % above their optimum on rotated moons (0.02 % to
a separable node's unbounded gap) and 0.078 % on Landmine (0.01-0.27 %);
the newcomers' summed gap at ``LOCAL_TOL`` is, at ``k = 5 / 10 / 20``,
4.48 / 0.72 / 0.54 % on HAR and 0.64 / 0.13 / 0.075 % on moons.  So a rule
"a newcomer stops no farther from its optimum than a fitted node" would
tighten HAR and moons ``k = 5`` (both gain at 1e-3) and leave moons
``k = 10 / 20`` as they are (where tightening loses).  Its oracle
(``--fits new --tight "" --oracle 2e-3``: each newcomer keeps the loosest
of 3e-3 ... 1e-5 whose local objective is within 0.2 % of its 1e-9 solve,
seeds 0-2, ``k = 5 / 10 / 20``): HAR 91.85 / 92.41 / 92.78 -> 92.52 /
92.89 / 93.76, rotated moons 53.99 / 57.79 / 61.31 -> 54.28 / 57.62 /
61.31, Landmine unchanged 93.64 / 93.59 / 93.77.  Per newcomer, some moons
newcomers of ``k = 10`` are tightened and the row still drops 0.17, so
even an exact certificate of that rule fails the no-drop condition; it
was not implemented.  Not tried (next): a certificate the solve can
compute for such a rule (a duality gap; the intercept is unpenalized, so
``l2`` alone bounds no gap) with a looser target, and a
stronger ``alpha`` for few-sample newcomers (the shrinkage the old early
stop gave), each measured against the same rows.

Both tried (2026-11-28, joinsg9; ``benchmarks/persolin_join_points.py``,
numbers in its docstring): a duality-gap certificate with the intercept
at its exact minimizer (``--certify GAP``: newcomers re-solved at 1e-3 ...
1e-5 until certified within GAP) gives HAR 92.53 / 92.72 / 93.67 at
``2e-2`` with rotated moons and Landmine unchanged, but loses the held-out
related-wide family 0.38 at ``k = 5`` (seeds 0-5; 0.09 with re-solves only
above a 5e-2 trigger); a stronger newcomer ``alpha`` (3 or 10 times) lowers
HAR and rotated moons.  Adopted: the certificate for newcomers under a
tenth of the fit's median node mass only (``JOIN_LIGHT_RATIO``): HAR
92.53 / 92.72 / 93.67, every other family unchanged.
"""

import argparse
import contextlib
import copy
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import new_nodes as nn

import skfed.boosting._perso_lin as pl

_ORIG_CENTRED = pl._centred_block
_ORIG_SOLVE = pl.solve_local_problems


def _raw_block(X, sw, seg, n_penalized):
    return X, None


@contextlib.contextmanager
def local_solve(mode, tol=None, record=None):
    """``mode`` 'old' (raw design) or 'new' (centred) for every local solve
    made inside; ``tol`` overrides LOCAL_TOL; ``record`` collects the
    solved ``(theta, losses)`` of each call."""
    saved_tol = pl.LOCAL_TOL
    pl._centred_block = _raw_block if mode == "old" else _ORIG_CENTRED
    if tol is not None:
        pl.LOCAL_TOL = tol

    def solve(X, Y, sw, offsets, theta, *args, **kw):
        out = _ORIG_SOLVE(X, Y, sw, offsets, theta, *args, **kw)
        if record is not None:
            losses = args[4] if len(args) >= 5 else kw["losses"]
            record.append((theta.copy(), np.array(losses, copy=True), out.copy()))
        return out

    pl.solve_local_problems = solve
    try:
        yield
    finally:
        pl._centred_block = _ORIG_CENTRED
        pl.solve_local_problems = _ORIG_SOLVE
        pl.LOCAL_TOL = saved_tol


ORACLE_TOLS = (3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5)


@contextlib.contextmanager
def oracle_solve(target, record=None):
    """Every newcomer keeps the loosest of ORACLE_TOLS whose local objective
    is at most ``target`` (relative) above its 1e-9 solve: what a stopping
    rule "no farther from the optimum than a fitted node" would give with
    an exact certificate (an oracle: the 1e-9 solve is not affordable)."""
    def solve(X, Y, sw, offsets, theta, loss, inv_mass, l2, n_pen, losses, *rest):
        start = theta.copy()
        ref_th, ref_lo = start.copy(), losses.copy()
        saved = pl.LOCAL_TOL
        try:
            pl.LOCAL_TOL = 1e-9
            _ORIG_SOLVE(X, Y, sw, offsets, ref_th, loss, inv_mass, l2, n_pen, ref_lo, *rest)
            best = ref_lo.sum(axis=1)
            chosen = np.zeros(len(best), dtype=bool)
            steps = np.zeros(len(best), dtype=np.intp)
            for tol in ORACLE_TOLS:
                th, lo = start.copy(), losses.copy()
                pl.LOCAL_TOL = tol
                st = _ORIG_SOLVE(X, Y, sw, offsets, th, loss, inv_mass, l2, n_pen, lo, *rest)
                ok = ~chosen & (lo.sum(axis=1) - best <= target * np.abs(best))
                theta[ok], losses[ok], steps[ok] = th[ok], lo[ok], st[ok]
                chosen |= ok
            rest_ = ~chosen
            theta[rest_], losses[rest_] = ref_th[rest_], ref_lo[rest_]
        finally:
            pl.LOCAL_TOL = saved
        if record is not None:
            record.append((theta.copy(), np.array(losses, copy=True), steps))
        return steps

    pl.solve_local_problems = solve
    try:
        yield
    finally:
        pl.solve_local_problems = _ORIG_SOLVE


def run(name, seed, ks, tights, fit_modes=("old", "new"), fit_tol=None, oracle=None):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = nn.split(X, y, groups, seed, extra)
    fits = {}
    for fit_mode in fit_modes:
        est = nn.make_estimator("persolin", task, seed)
        rec = []
        with local_solve(fit_mode, fit_tol, record=rec):
            fits[fit_mode] = est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
        theta, losses, steps = rec[0]
        norms = np.sqrt((theta.astype(np.float64) ** 2).sum(axis=(1, 2)))
        print(json.dumps(dict(dataset=name, seed=seed, fit=fit_mode, n_solves=len(rec),
                              fitted_objective=float(losses.sum()),
                              fitted_norm_median=float(np.median(norms)),
                              fitted_steps=int(steps.sum()))), flush=True)
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xt, yt, gt = X[test], y[test], groups[test]
        for fit_mode, base in fits.items():
            for new_mode, tol in [("old", None), ("new", None)] + [("new", t) for t in tights]:
                joined = copy.deepcopy(base)
                rec = []
                with local_solve(new_mode, tol, rec):
                    joined.add_nodes(Xk, yk, groups=gk)
                theta, losses, steps = rec[0]
                acc = nn.score(task, yt, joined.predict(Xt, groups=gt))
                row = dict(dataset=name, seed=seed, k=k, fit=fit_mode,
                           newcomer=new_mode if tol is None else f"tight{tol:g}",
                           join=round(acc, 3), objective=float(losses.sum()),
                           norm=float(np.sqrt((theta.astype(np.float64) ** 2).sum())),
                           steps=int(steps.sum()), n_solves=len(rec))
                print(json.dumps(row), flush=True)
                rows.append(row)
            if oracle is not None and fit_mode == "new":
                joined = copy.deepcopy(base)
                rec = []
                with oracle_solve(oracle, rec):
                    joined.add_nodes(Xk, yk, groups=gk)
                acc = nn.score(task, yt, joined.predict(Xt, groups=gt))
                print(json.dumps({"dataset": name, "seed": seed, "k": k, "fit": fit_mode,
                                  "newcomer": f"oracle{oracle:g}", "join": round(acc, 3),
                                  "objective": float(rec[0][1].sum())}), flush=True)
    return rows


def fitted_gap(name, seed, tol):
    """Every fitted node's local objective at LOCAL_TOL against ``tol``."""
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    fit_rows, _, _ = nn.split(X, y, groups, seed, data[4] if len(data) > 4 else None)
    res = []
    for t in (None, tol):
        rec = []
        with local_solve("new", t, rec):
            nn.make_estimator("persolin", task, seed).fit(X[fit_rows], y[fit_rows],
                                                          groups=groups[fit_rows])
        res.append(rec[0])
    (th_a, lo_a, _), (th_b, lo_b, _) = res
    gap = 100 * (lo_a.sum(axis=1) - lo_b.sum(axis=1)) / lo_b.sum(axis=1)
    ratio = (np.sqrt((th_a.astype(np.float64) ** 2).sum(axis=(1, 2)))
             / np.sqrt((th_b.astype(np.float64) ** 2).sum(axis=(1, 2))))
    print(json.dumps({"dataset": name, "seed": seed, "fitted_gap_pct": [
        round(float(q), 3) for q in (gap.min(), np.median(gap), gap.max())],
        "fitted_norm_ratio": [round(float(q), 3) for q in
                              (ratio.min(), np.median(ratio), ratio.max())]}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default="har")
    p.add_argument("--seeds", default="0")
    p.add_argument("--ks", default="10,20")
    p.add_argument("--tight", default="1e-9",
                   help="comma-separated LOCAL_TOL values for the newcomers' centred solve")
    p.add_argument("--fits", default="old,new")
    p.add_argument("--fit-tol", type=float, default=None,
                   help="LOCAL_TOL of the fit's local solve (default: the package's)")
    p.add_argument("--fitted-gap", type=float, default=None,
                   help="only print the fitted nodes' local objective gap (min / median "
                        "/ max, %%) and norm ratio at LOCAL_TOL against this tolerance")
    p.add_argument("--oracle", type=float, default=None,
                   help="also join with each newcomer at the loosest tolerance whose local "
                        "objective is within this relative gap of its 1e-9 solve")
    a = p.parse_args()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        for name in a.datasets.split(","):
            for seed in map(int, a.seeds.split(",")):
                if a.fitted_gap is not None:
                    fitted_gap(name, seed, a.fitted_gap)
                    continue
                run(name, seed, [int(k) for k in a.ks.split(",")],
                    [float(t) for t in a.tight.split(",")] if a.tight else [],
                    a.fits.split(","), a.fit_tol, a.oracle)


if __name__ == "__main__":
    main()
