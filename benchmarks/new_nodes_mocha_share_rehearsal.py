"""Could the fitted nodes' rehearsal choose a MOCHA newcomer's ``w_0`` share?

Issue 32's MOCHA rows on HAR sitting miss pooled ``LogisticRegression()``
at ``k = 5, 10``: the newcomers solve toward the fitted ``w_0`` (the
rehearsal picks scales 1/16 or 0, i.e. about ``w_0`` alone), and ``w_0``
at the fit's learned share (0.64-0.66) leaves signal every subject shares
in the personal parts (``new_nodes_mocha_w0_gap.py``).  The prior
strength is already the rehearsal's choice (its scales of ``c_n``), so
this script asks whether the rehearsal can also choose the *centre*: on
``new_nodes.py``'s splits, per seed and ``k``, each fitted node's
rehearsal draws (the package's draws and seeds, :class:`~skfed.multitask.
_rehearsal.Rehearsal`) are solved toward each candidate centre at every
scale, each centre is scored at the scale the package's rule picks for it,
and its paired difference to ``w_0`` over the rehearsing nodes gives
``z`` (positive: the centre errs less).  Centres:

* ``b0.9``, ``b0.99``: ``w_0`` of the shared objective solved at that
  share on every fitted row (NumPy + SciPy, ``new_nodes_mocha_share.
  shared_w0``; a solve over all fitted data, which a join could not pay);
* ``f<share>``: the share selection's candidates of a larger share than
  the fit's, ``w_0`` of its last fold (every node holds them after the
  fit: no extra solve, no extra bytes to obtain them).

Each column is the join toward that centre alone (the newcomers keep the
fit's ``mu``); ``fit`` is the package's join before this change.

    python benchmarks/new_nodes_mocha_share_rehearsal.py --datasets har --seeds 0,1,2
    python benchmarks/new_nodes_mocha_share_rehearsal.py --datasets landmine --seeds 0,1,2
    python benchmarks/new_nodes_mocha_share_rehearsal.py --datasets moons --seeds 0,1,2

Measured (mochajoin16, 2026-11-29, main 8ba3212; ``z`` here compares on
every held-out row of a draw, which the centres were fitted on), join
accuracy (z)::

    HAR   seed k   fit    b0.9          b0.99         f0.9          f0.99
          0    5   99.26  99.48 (2.80)  99.41 (2.43)  99.41 (2.10)  99.41 (2.14)
          0   10   98.72  99.25 (3.84)  99.47 (2.37)  99.02 (3.50)  99.40 (2.05)
          0   20   99.15  99.46 (2.73)  99.38 (2.15)  99.46 (2.26)  99.38 (2.13)
          1    5   94.13  95.01 (2.79)  95.22 (2.16)  94.67 (2.24)  94.88 (1.77)
          1   10   94.25  95.08 (2.06)  95.29 (2.22)  94.60 (1.76)  94.67 (2.13)
          1   20   96.30  96.79 (3.05)  96.65 (2.35)  96.87 (2.85)  96.79 (2.17)
          2    5   99.06  98.84 (2.93)  99.06 (2.64)  98.92 (2.64)  98.92 (2.36)
          2   10   99.56  99.34 (3.30)  99.41 (2.65)  99.49 (2.22)  99.34 (2.13)
          2   20   99.40  99.62 (3.52)  99.70 (3.28)  99.62 (2.79)  99.70 (2.93)

On Landmine every ``z`` is at most 1.29 (seed 2, ``k = 5``: 94.27 either
way), most negative; on rotated moons (no share selection: small nodes,
so no ``f`` centre) the exact ``b`` solves reach ``z`` 1.23 once (seed 2,
``k = 5``: 56.03 -> 53.57 had it been taken).  So the rehearsal tells
HAR (a larger share helps every seed's newcomers but seed 2 at ``k = 5,
10``) from Landmine, and the share selection's own candidates carry most
of the exact solves' gain: the package's join now takes them
(:func:`skfed.multitask._rehearsal.choose_centre`).

A first package form compared the centres as above, on rows the centres
were fitted on: related-wide (held out, 100 features) lost 0.31 / 0.22 at
``k = 10 / 20`` (a larger share's ``w_0`` fits the rehearsing node's own
held-out rows better).  The package compares them on the rows of the
selection's last fold, outside every candidate's fit (the selected
candidate's fold ``w_0`` standing for ``w_0``), and asks at least two
nodes to gain (a single node's difference is one standard error exactly;
related-wide seed 2 ``k = 10`` had moved on rounding).  Comparing the
fitted ``w_0`` itself on the fold rows (``CENTRE_BASE = "fitted"``)
favours it (it was fitted on them): HAR back to 97.53 / 97.51 / 98.52.

The package's rows (``python benchmarks/new_nodes.py --families mocha
--datasets D --seeds 0,1,2 --ks 5,10,20``, one process per data set;
before -> after, means over seeds 0-2; Global the better baseline's mean)::

    row (k)            before  after   Global         Local         refit  bytes   CPU
    HAR sitting (5)    97.48   97.85   97.84 LogReg   78.02 SVC     93.05  0.0067  0.017
    HAR sitting (10)   97.51   97.97   97.91 LogReg   82.82 LinSVC  95.59  0.0069  0.023
    HAR sitting (20)   98.28   98.55   97.87 LogReg   88.44 LinSVC  98.12  0.0061  0.037
    Landmine (5)       93.54   93.55   93.81 SVC      93.54 SVC     92.12  0.0137  0.009
    Landmine (10)      93.58   93.58   93.77 SVC      93.54 SVC     92.07  0.0125  0.010
    Landmine (20)      93.53   93.53   93.78 SVC      93.56 SVC     93.18  0.0131  0.018
    related-wide (5)   89.64   89.69   89.69 LinSVC   57.02 LinSVC  89.51  0.0544  0.049
    related-wide (10)  89.62   89.62   89.90 LogReg   59.02 LinSVC  89.62  0.0541  0.062
    related-wide (20)  89.50   89.50   89.97 LinSVC   61.36 LinSVC  89.69  0.0237  0.122

(``before``: HAR and Landmine the ``fit`` column above, related-wide
``new_nodes.py`` with ``CENTRE_EVIDENCE`` set to infinity; bytes before
0.0058-0.0066 on HAR, 0.0085-0.0092 on Landmine.)  The newcomers solve
toward the chosen candidate's ``w_0`` averaged over the folds the
selection ran (HAR: 3); toward its last fold's ``w_0`` instead
(``JOIN_FOLD_MEAN = False``) HAR was 97.78 / 97.88 / 98.62, 0.06 / 0.03
under pooled ``LogisticRegression`` at ``k = 5 / 10``.  HAR's seeds:
99.26 / 98.72 / 99.15 -> 99.41 / 99.47 / 99.38 (seed 0), 94.13 / 94.25 /
96.30 -> 95.08 / 94.88 / 96.58 (seed 1; pooled 95.49 / 95.57 / 95.58),
99.06 / 99.56 / 99.40 -> 99.06 / 99.56 / 99.70 (seed 2, whose ``k = 5,
10`` keep ``w_0``: ``z`` 0.6-0.7).  HAR meets the goal at every ``k``
now, at ``k = 5`` by 0.01 only.  Rotated moons, School and the
related-small, -alike, -clustered and -narrow families fit without a share
selection (or with no candidate above the fit's share): one centre, rows,
bytes and models as before (moons 55.72 / 60.44 / 62.83: ``k = 5`` still
0.2 under Local ``LinearSVC``; School R^2 32.88 / 33.75 / 35.03).  The
join's CPU stays within a tenth of the refit's on every table row; on
related-wide at ``k = 20`` (a 0.23 s refit) it is 0.122 (0.087 before):
the fold comparison's extra solves.  Two more held-out families with
nodes large enough for the share selection
(``new_nodes_mocha_centre_heldout.py``): 40 clustered nodes of 150 samples
71.05 / 74.06 / 77.15 -> 70.88 / 74.06 / 77.15 (``k = 5``: one seed
-0.51), 40 alike nodes 90.98 / 91.32 / 91.32 -> 90.96 / 91.32 / 91.34.
Caveats: the fold mean was adopted after HAR's rows were seen (HAR's
``k = 5`` is above pooled by 0.01 only), and the clustered family's
``k = 5`` loss of 0.17 is within the held-out allowance, not clear of it.
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
