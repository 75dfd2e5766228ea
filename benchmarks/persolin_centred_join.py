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
        [--ks 10,20] [--tight 1e-9]

Results
-------
(filled in below as measured)
"""

import argparse
import contextlib
import copy
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import new_nodes as nn  # noqa: E402

import skfed.boosting._perso_lin as pl  # noqa: E402

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


def run(name, seed, ks, tights, fit_modes=("old", "new")):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    fits = {}
    for fit_mode in fit_modes:
        est = nn.make_estimator("persolin", task, seed)
        rec = []
        with local_solve(fit_mode, record=rec):
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
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default="har")
    p.add_argument("--seeds", default="0")
    p.add_argument("--ks", default="10,20")
    p.add_argument("--tight", default="1e-9",
                   help="comma-separated LOCAL_TOL values for the newcomers' centred solve")
    p.add_argument("--fits", default="old,new")
    a = p.parse_args()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        for name in a.datasets.split(","):
            for seed in map(int, a.seeds.split(",")):
                run(name, seed, [int(k) for k in a.ks.split(",")],
                    [float(t) for t in a.tight.split(",")], a.fits.split(","))


if __name__ == "__main__":
    main()
