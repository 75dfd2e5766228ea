"""Could the fitted nodes' rehearsal choose a MOCHA newcomer's ``w_0`` share?

(experiment in progress; docstring completed below when measured)
"""

import argparse
import copy
import warnings

import new_nodes as nn
import numpy as np
from new_nodes_mocha_share import fit_binary_shared, shared_w0
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.multitask._rehearsal import (
    REHEARSAL_EVIDENCE,
    REHEARSAL_SCALES,
    nearest_size,
    node_paired_difference,
)


def draw_errors(est, w0, k):
    """The rehearsal's per-draw errors ``(n_scales, n_kept)`` of size ``k``
    at centre ``w0`` (the fit's draws and seeds), the kept draws' owners,
    and the scale the package's rule picks from them."""
    r = copy.deepcopy(est._join_rehearsal)
    r.w0 = w0[None, :].copy()
    a = r.usable[int(nearest_size([k], r.sizes)[0][0])]
    kk, owners, perms = r.draws[a]
    E = r._solve(kk, owners, perms, r.kept[a], r.seeds[a], r.exact[a])
    kept = r.kept[a]
    E, owners = E[:, kept], owners[kept]
    mean = E.mean(axis=1)
    diff = E - E[0]
    se = diff.std(axis=1, ddof=1) / np.sqrt(kept.sum())
    best = int(np.argmin(mean))
    chosen = best if mean[best] - mean[0] + REHEARSAL_EVIDENCE * se[best] < 0 else 0
    return E, owners, chosen


def join_at(est, w0, Xk, yk, gk, Xt, gt):
    joined = copy.deepcopy(est)
    joined._W[0, -1] = w0
    joined._join_rehearsal.w0 = w0[None, :].copy()
    # one centre: the join toward w0 alone (the package's choice of centre off)
    joined._join_rehearsal.centres = [joined._join_rehearsal.w0]
    joined._join_rehearsal.centre_shares = joined._join_rehearsal.centre_shares[:1]
    joined._join_rehearsal.results = {}
    joined._join_rehearsal.one_class_errors = {}
    joined.add_nodes(Xk, yk, groups=gk)
    return joined.predict(Xt, groups=gt)


def run(name, seed, ks, shares, evidence):
    X, y, g, task, fit_rows, order, est = fit_binary_shared(name, seed)
    Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
    ys = np.where(yf == est.classes_[1], 1.0, -1.0)
    Z = np.c_[Xf, np.full(len(Xf), est.intercept_scaling)]
    _, idx = np.unique(gf, return_inverse=True)
    lam, b_fit = float(est._join_lam), float(est.shared_weight_)
    w0_fit = est._W[0, -1].astype(np.float64)
    centres, theta = {"fit": w0_fit}, None
    for b in shares:
        theta = shared_w0(Z, ys, idx, lam, b, theta)
        centres[f"b{b}"] = theta[:Z.shape[1]]
    r = est._join_rehearsal
    for b, w in zip(r.centre_shares[1:], r.centres[1:]):
        centres[f"f{b}"] = w[0]
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], g[train]
        Xt, yt, gt = X[test], y[test], g[test]
        E0, owners, c0 = draw_errors(est, w0_fit, k)
        row = {"name": name, "seed": seed, "k": k, "b_fit": b_fit,
               "fit": nn.score(task, yt, join_at(est, w0_fit, Xk, yk, gk, Xt, gt))}
        choice, best_z = "fit", 0.0
        for label, w0 in centres.items():
            if label == "fit":
                continue
            E, own, c = draw_errors(est, w0, k)
            assert np.array_equal(own, owners)
            mean, se = node_paired_difference(np.vstack([E0[c0], E[c]]), 0, owners)
            z = -mean[1] / se[1] if se is not None and se[1] > 0 else 0.0
            row[label] = nn.score(task, yt, join_at(est, w0, Xk, yk, gk, Xt, gt))
            row[label + " diff"] = float(mean[1]) if mean is not None else float("nan")
            row[label + " z"] = float(z)
            row[label + " scale"] = REHEARSAL_SCALES[c]
            if mean is not None and mean[1] + evidence * se[1] < 0 and z > best_z:
                choice, best_z = label, z
        row["fit scale"] = REHEARSAL_SCALES[c0]
        row["choice"] = choice
        row["chosen"] = row[choice]
        print(row, flush=True)
        out.append(row)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--shares", default="0.9,0.99")
    parser.add_argument("--evidence", type=float, default=1.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    rows = []
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                rows += run(name, seed, [int(k) for k in args.ks.split(",")],
                            [float(s) for s in args.shares.split(",")], args.evidence)
    labels = [c for c in rows[0] if c in ("fit", "chosen") or (c[0] in "bf" and " " not in c
                                                                and c != "b_fit")]
    for name in args.datasets.split(","):
        for k in args.ks.split(","):
            sel = [r for r in rows if r["name"] == name and r["k"] == int(k)]
            print(name, k, {c: round(float(np.mean([r[c] for r in sel])), 2) for c in labels},
                  [r["choice"] for r in sel])


if __name__ == "__main__":
    main()
