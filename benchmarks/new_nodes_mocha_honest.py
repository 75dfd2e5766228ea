"""MOCHA's rehearsal with an honest ``w_0``: each rehearsing node solves toward ``w_0`` refitted without it.

The rehearsal (:mod:`skfed.multitask._rehearsal`) scores draws of fitted
nodes toward the fitted ``w_0``, whose fit used the very rows it scores on,
so the table flatters ``w_0`` and the small scales
(``new_nodes_mocha_seeds.py``: rotated moons, size 5, ``w_0`` alone errs
0.426 on the table against 0.516 on the real newcomers).  This script
measures the ceiling of any fix of that optimism: every rehearsing node
``t`` solves its draws toward the *exact* leave-node-out shared model
``w_0^{-t}`` (the shared objective at the fit's share ``b_w`` and personal
weight ``mu`` re-solved without node ``t``: NumPy + SciPy L-BFGS, the
package's own ``w_0`` plus the reference's ``w_0^{-t} - w_0``, so the
reference's small distance to the package's cancels), with the rehearsal's
scale grid as it is (``exact``) or with the scale 16 added (``exact16``).
``leave`` / ``leave16`` are befc140's no-message estimate of the same
leave-out (``new_nodes_mocha_grid.py``).  No candidate here is affordable
as it stands (one refit of the shared model per rehearsing node); it says
whether an honest table would choose better.

    python benchmarks/new_nodes_mocha_honest.py --datasets moons --seeds 3,4,5 \
        --variants default,exact,exact16,up16

    python benchmarks/new_nodes_mocha_honest.py --datasets moons \
        --seeds 0,1,2,6,7,8,9,10,11 --variants default,exact
    python benchmarks/new_nodes_mocha_honest.py --datasets related-alike,related-clustered,\
related-small,related-narrow,related-wide --seeds 0,1,2 --variants default,exact
    python benchmarks/new_nodes_mocha_honest.py --datasets landmine --seeds 0,1,2,3,4,5 \
        --variants default,exact

Measured (mocha28, 2026-11-29, main 3eb98bc, load 6-9; join accuracy,
means over the seed block, ``k = 5 / 10 / 20``; Local the best per-node
baseline of ``new_nodes.py``)::

    rotated moons  seeds  default                exact                  Local
                   0-2    55.72 / 60.44 / 62.83  55.42 / 60.24 / 62.45  55.92 / 59.06 / 62.59
                   3-5    54.99 / 55.55 / 61.66  55.48 / 56.93 / 61.94  56.15 / 58.02 / 62.14
                   6-8    50.26 / 52.81 / 55.67  52.44 / 55.73 / 59.81  55.66 / 58.28 / 60.98
                   9-11   52.67 / 55.70 / 59.42  53.53 / 55.96 / 59.77  53.14 / 56.62 / 58.71
    related-alike      0-2  91.00 / 91.05 / 91.14  91.00 / 91.10 / 91.17
    related-clustered  0-2  68.33 / 71.00 / 77.08  identical
    related-small      0-2  90.82 / 91.14 / 91.61  identical
    related-narrow     0-2  91.76 / 91.88 / 91.89  91.73 / 91.88 / 91.81
    related-wide       0-2  89.69 / 89.62 / 89.50  89.67 / 89.43 / 89.42
    Landmine           0-5  93.83 / 93.89 / 93.81  93.84 / 93.89 / 93.76

``exact16`` (scale 16 in the grid too) equals ``exact`` on moons seeds 3-5
(16 is picked for one size, 2, that no newcomer uses); ``up16`` alone
equals ``default`` there.  The reference's ``w_0`` is within 2 % (relative
norm) of the package's; the leave-out moves it by 14 % on moons (0.056 of
0.386, seed 3).

Finding: the optimism is real and removing it exactly helps moons on fresh
seeds (+0.5..+4.1), but it is not enough and not free of losses: the moons
rows stay under Local on 8 of 12 seed-block sizes (only seeds 9-11 at
``k = 5, 20`` reach it), seeds 0-2 lose 0.2-0.4 (befc140 measured the
same), and the held-out related-wide family loses 0.19 at ``k = 10``.
Since this is the ceiling of any cheaper leave-out (a Newton step with
each node's ``d' x d'`` curvature would cost ``d'(d'+1)/2`` floats a node:
nothing on moons, 158,203 a node on HAR), no affordable version was built.
"""

import argparse
import json
import warnings

import new_nodes as nn
import new_nodes_mocha_grid as grid
import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.multitask import _rehearsal

grid.VARIANTS.update({
    "exact": {"_M25_LEAVE_OUT": True, "_M28_EXACT": True},
    "exact16": {"_M25_LEAVE_OUT": True, "_M28_EXACT": True,
                "REHEARSAL_SCALES": (1.0, 4.0, 0.25, 1.0 / 16, 0.0, 16.0)},
})
_rehearsal._M28_EXACT = False


def one_class_two_sided(E, base, owners):
    """:func:`~skfed.multitask._rehearsal.one_class_scale` with every scale
    competing (above ``base`` too) at the same two standard errors over the
    rehearsing nodes; among those within one standard error of the best,
    the one nearest ``base`` on a log scale (0 counted as 2^-10)."""
    mean, se = _rehearsal.node_paired_difference(E, base, owners)
    if mean is None:
        return base
    scales = np.asarray(_rehearsal.REHEARSAL_SCALES)
    wins = np.flatnonzero(mean + _rehearsal.ONE_CLASS_EVIDENCE * se < 0)
    if not wins.size:
        return base
    best = wins[np.argmin(mean[wins])]
    near = wins[mean[wins] <= mean[best] + se[best]]
    logs = np.log2(np.maximum(scales, 2.0 ** -10))  # (0 as 2^-10: the farthest down)
    far = np.abs(logs[near] - logs[base])
    return int(near[np.argmin(far)])


grid.VARIANTS["oc2side"] = {"one_class_scale": one_class_two_sided}
_grid_init = _rehearsal.Rehearsal.__init__
_grid_centres = _rehearsal._m25_centres


def shared_reference(Z, ys, weight, idx, pen_w0, pen_v, start=None):
    """``(w_0, V)`` minimizing ``sum_i weight_i log(1 + exp(-y_i (w_0 + v_t(i)) . z_i))
    + (pen_w0 / 2) ||w_0||^2 + (pen_v / 2) ||V||_F^2`` (rows sorted by node)."""
    m, d = int(idx.max()) + 1, Z.shape[1]
    starts = np.searchsorted(idx, np.arange(m))

    def objective(theta):
        w0, V = theta[:d], theta[d:].reshape(m, d)
        f = Z @ w0 + np.einsum("id,id->i", Z, V[idx])
        z = -ys * f
        slope = -ys * 0.5 * (1.0 + np.tanh(0.5 * z)) * weight
        g0 = Z.T @ slope + pen_w0 * w0
        gV = np.add.reduceat(Z * slope[:, None], starts, axis=0) + pen_v * V
        value = (weight * np.logaddexp(0.0, z)).sum() + 0.5 * (
            pen_w0 * w0 @ w0 + pen_v * (V * V).sum())
        return value, np.concatenate([g0, gV.ravel()])

    theta = np.zeros(d * (m + 1)) if start is None else start
    res = minimize(objective, theta, jac=True, method="L-BFGS-B",
                   options=dict(maxiter=5000, gtol=1e-10, ftol=1e-15))
    return res.x


def _init(self, est, nodes, lam):
    _grid_init(self, est, nodes, lam)
    self._m28_shift = {}
    if not NEED_EXACT or est.loss != "logistic" or np.asarray(nodes.w0).shape[0] != 1:
        return
    layout = nodes.layout
    m, Z = layout.n_nodes, np.asarray(nodes.Z, dtype=np.float64)
    ys = np.asarray(nodes.Y, dtype=np.float64)[0]
    sw = np.asarray(nodes.sw, dtype=np.float64)
    idx = np.repeat(np.arange(m), layout.counts)
    totals = np.asarray(nodes.totals, dtype=np.float64)
    weight = sw / totals[idx]
    b = float(est.shared_weight_)
    b_w = float((getattr(est, "share_selection_", None) or {}).get("shared_part_share", b))
    pen_w0, pen_v = lam * m / b_w, float(nodes.mu)
    d = Z.shape[1]
    full = shared_reference(Z, ys, weight, idx, pen_w0, pen_v)
    w0_ref = full[:d]
    w0_pkg = np.asarray(nodes.w0, dtype=np.float64)[0]
    self._m28_ref_gap = float(np.linalg.norm(w0_ref - w0_pkg) / max(np.linalg.norm(w0_pkg), 1e-12))
    V = full[d:].reshape(m, d)
    for t in self.rows:
        keep = idx != t
        others = np.r_[w0_ref, np.delete(V, t, axis=0).ravel()]
        sub = idx[keep] - (idx[keep] > t)
        # the objective without node t: m - 1 nodes, so lam (m - 1) / b_w
        w0_t = shared_reference(Z[keep], ys[keep], weight[keep], sub,
                                lam * (m - 1) / b_w, pen_v, others)[:d]
        self._m28_shift[t] = (w0_ref - w0_t)[None, :]
    print(json.dumps({"reference_gap": round(self._m28_ref_gap, 5),
                      "mean_shift": round(float(np.mean([np.linalg.norm(s) for s in
                                                          self._m28_shift.values()])), 5),
                      "w0_norm": round(float(np.linalg.norm(w0_pkg)), 5)}), flush=True)


def _centres(self, w0, owners, n_new):
    if _rehearsal._M28_EXACT and w0 is self.w0:
        return np.ascontiguousarray(np.stack([w0 - self._m28_shift[int(t)] for t in owners],
                                             axis=1))
    return _grid_centres(self, w0, owners, n_new)


_rehearsal.Rehearsal.__init__ = _init
NEED_EXACT = True  # main(): only when an exact variant is asked for
_rehearsal._m25_centres = _centres


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="default,exact,exact16,up16")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    variants = args.variants.split(",")
    global NEED_EXACT
    NEED_EXACT = any(grid.VARIANTS[v].get("_M28_EXACT") for v in variants)
    rows = []
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in map(int, args.seeds.split(",")):
                rows += grid.run(name, seed, [int(k) for k in args.ks.split(",")], variants,
                                 args.out)
    grid.summarize(rows, variants)


if __name__ == "__main__":
    main()
