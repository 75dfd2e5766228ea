"""Would a share chosen for nodes left out of the fit give MOCHA's newcomers a better ``w_0``?

A newcomer of MOCHA's shared model solves its problem toward the fitted
``w_0`` (:mod:`skfed.multitask._join`).  The fit chooses the share ``b``
behind ``w_0`` by within-node validation (``share_selection_``): every
held-out sample belongs to a node whose other samples trained ``w_0``,
which is not the newcomer's situation.  ``new_nodes_mocha_share.py``
found that on HAR a ``w_0`` of a higher share predicts the unseen
subjects better, and that a higher share for every newcomer drops rotated
moons and Landmine.  This script measures the selection a newcomer would
want: leave-one-node-out validation of ``w_0`` itself.

For every share ``b`` of ``--shares`` and the fit's own, the shared
model's joint problem at fixed ``b`` (binary logistic loss, the fit's
intercept column and ``lambda``; ``new_nodes_mocha_share.shared_w0``, SciPy
L-BFGS, independent of the package) is solved on all fitted nodes and
once more without each fitted node ``t`` (warm-started), and ``w_0^{-t}(b)``
alone is scored on node ``t``'s samples; ``lono(b)`` is the mean over the
fitted nodes of that error.  Also printed: the same with the no-message
estimate ``w_0 - u_t / H`` of the leave-out (``u_t = mu v_t``, ``H =
lambda m / b + (m - 1) min(1, n / (m d')) mu``, the estimate the rehearsal
leave-out of ``new_nodes_mocha_scales.py`` used), so a fit could compute
the score without refits.  Then the rows of ``new_nodes.py``'s splits:
``w_0(b)`` alone on the new nodes' test samples, and the join from it
(the package's ``add_nodes`` on a copy whose ``w_0`` and rehearsal point
are ``w_0(b)``; the newcomers keep the fit's personal weight ``mu``, as
``new_nodes_mocha_share.py --keep-mu``), and the join from the share
``lono`` selects (lowest error; ties: the fit's share first).

    python benchmarks/new_nodes_mocha_lono.py --datasets har,moons,landmine \\
        --seeds 0,1,2 --ks 5,10,20
"""

import argparse
import copy
import warnings

import new_nodes as nn
import numpy as np
from new_nodes_mocha_share import shared_w0
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits


def join_from(est, w0, Xk, yk, gk):
    """``add_nodes`` on a copy of ``est`` whose shared model is ``w0`` (the
    newcomers keep the fit's ``mu``; the rehearsal re-run at ``w0``)."""
    joined = copy.deepcopy(est)
    joined._W[0, -1] = w0
    rehearsal = joined._join_rehearsal
    rehearsal.w0 = w0[None, :].copy()
    rehearsal.results = {}
    return joined.add_nodes(Xk, yk, groups=gk)


def leave_one_out(Z, ys, idx, lam, b, theta, exact_refits=True):
    """Per fitted node: the error of the exact leave-out ``w_0^{-t}`` (NaN
    without ``exact_refits``) and of its estimate ``w_0 - u_t / H`` on the
    node's samples."""
    m, d = int(idx.max()) + 1, Z.shape[1]
    w0, V = theta[:d], theta[d:].reshape(m, d)
    mu = lam * m / (1.0 - b)
    H = lam * m / b + (m - 1) * min(1.0, len(ys) / (m * d)) * mu
    exact, estimate = np.zeros(m), np.zeros(m)
    for t in range(m):
        keep, own = idx != t, idx == t
        w0_e = w0 - mu * V[t] / H
        estimate[t] = np.mean(ys[own] * (Z[own] @ w0_e) <= 0)
        if not exact_refits:
            exact[t] = np.nan
            continue
        others = np.r_[w0, np.delete(V, t, axis=0).ravel()]
        sub = idx[keep] - (idx[keep] > t)
        w0_t = shared_w0(Z[keep], ys[keep], sub, lam, b, others)[:d]
        exact[t] = np.mean(ys[own] * (Z[own] @ w0_t) <= 0)
    return exact, estimate


GATE = 2.0  # a share other than the fit's is picked only this many SE better


def gated_pick(lono, b_fit, j):
    """The share of lowest mean leave-out error (``j``: 0 exact, 1 estimate)
    among the fit's and those better than it by :data:`GATE` standard
    errors of the paired per-node difference (printed)."""
    best, best_err = b_fit, lono[b_fit][j].mean()
    for b, errors in lono.items():
        diff = errors[j] - lono[b_fit][j]
        if b == b_fit or not np.all(np.isfinite(diff)):
            continue
        se = diff.std(ddof=1) / np.sqrt(len(diff))
        print(f"    {'exact' if j == 0 else 'estimate'} b {b:.4f} - fit's: {diff.mean():+.4f} "
              f"(SE {se:.4f})")
        if diff.mean() < -GATE * se and errors[j].mean() < best_err:
            best, best_err = b, errors[j].mean()
    return best


def run(name, seed, ks, shares, exact_refits=True):
    data = nn.load(name, seed)
    X, y, g, task = data[:4]
    fit_rows, _, order = nn.split(X, y, g, seed, data[4] if len(data) > 4 else None)
    est = nn.make_estimator("mocha", task, seed).fit(X[fit_rows], y[fit_rows],
                                                     groups=g[fit_rows])
    if est.omega_mode_ != "shared" or est._W.shape[0] != 1 or est.loss != "logistic":
        raise ValueError("this check needs the shared model of a binary logistic fit")
    Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
    classes = est.classes_
    ys = np.where(yf == classes[1], 1.0, -1.0)
    Z = np.c_[Xf, np.full(len(Xf), est.intercept_scaling)]
    _, idx = np.unique(gf, return_inverse=True)
    lam = float(est._join_lam)
    b_fit = float(est.shared_weight_)
    models, lono, theta = {}, {}, None
    for b in [b_fit] + [s for s in shares if abs(s - b_fit) > 1e-9]:
        theta = shared_w0(Z, ys, idx, lam, b, theta)
        models[b] = theta[:Z.shape[1]].copy()
        lono[b] = leave_one_out(Z, ys, idx, lam, b, theta, exact_refits)
        print(f"{name} seed {seed} b {b:.4f}{' (fit)' if b == b_fit else ''}: lono error "
              f"{lono[b][0].mean():.4f} (estimate {lono[b][1].mean():.4f})", flush=True)
    # lowest exact lono error; ties: the fit's share (first in the dict)
    key = 0 if exact_refits else 1
    picked = min(models, key=lambda b: (round(lono[b][key].mean(), 12), b != b_fit))
    picked_e = min(models, key=lambda b: (round(lono[b][1].mean(), 12), b != b_fit))
    gated = [gated_pick(lono, b_fit, j) for j in (0, 1)]
    print(f"{name} seed {seed}: lono picks {picked:.4f}, the estimate {picked_e:.4f}; "
          f"gated at {GATE} SE: {gated[0]:.4f}, the estimate {gated[1]:.4f}")
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], g[train]
        Xt, yt, gt = X[test], y[test], g[test]
        Zt = np.c_[Xt, np.full(len(Xt), est.intercept_scaling)]
        base = nn.score(task, yt, copy.deepcopy(est).add_nodes(Xk, yk, groups=gk)
                        .predict(Xt, groups=gt))
        cells = [f"package join {base:.2f}"]
        for b, w0 in models.items():
            alone = nn.score(task, yt, np.where(Zt @ w0 > 0, classes[1], classes[0]))
            join = nn.score(task, yt, join_from(est, w0, Xk, yk, gk).predict(Xt, groups=gt))
            tags = "".join(t for t, p in zip("LEGg", (picked, picked_e) + tuple(gated))
                           if b == p)
            cells.append(f"b {b:.3f}{tags}: w0 {alone:.2f} join {join:.2f}")
        print(f"  {name} seed {seed} k {k}: " + " | ".join(cells), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har",
                        help="binary data sets of new_nodes.py (har, moons, landmine)")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--shares", default="0.5,0.9,0.99")
    parser.add_argument("--estimate-only", action="store_true",
                        help="no leave-out refits: only the estimate w_0 - u_t / H")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                run(name, seed, [int(k) for k in args.ks.split(",")],
                    [float(s) for s in args.shares.split(",")], not args.estimate_only)


if __name__ == "__main__":
    main()
