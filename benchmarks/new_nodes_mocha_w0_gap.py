"""Where MOCHA's shared model ``w_0`` loses to pooled ``LogisticRegression()`` on HAR.

Issue 32's MOCHA join rows on HAR sitting miss pooled
``LogisticRegression()`` at ``k = 5, 10``, and the miss is the fitted
``w_0`` itself (``new_nodes_mocha_share.py``, ``new_nodes_mocha_heldout_
choice.py``: seeds 1, 3, 4 put ``w_0`` alone 1.2-2.2 points under pooled
``LogisticRegression()``).  The shared model's objective (``omega_mode_ ==
"shared"``, binary logistic loss, ``lambda = 1 / (C n)``, ``m`` fitted
nodes, intercept a constant column of ``intercept_scaling``)::

    sum_t mean_t loss((w_0 + v_t) . z, y) + (lambda m / 2) (||w_0||^2 / b + ||V||^2 / (1 - b))

differs from pooled ``LogisticRegression()`` (mean loss over every
sample + ``||w||^2 / (2 C n)``, intercept not penalized) in four ways,
and this script takes them one at a time on ``new_nodes.py``'s splits
(fitted nodes' rows only; ``w_0`` alone scored on the new nodes' test
samples at ``k = 5``, which is what an unseen node gets):

* ``fit w0``: the package's fitted ``w_0``; ``ref b_fit``: the same
  objective solved here (NumPy + SciPy L-BFGS, ``new_nodes_mocha_share.
  shared_w0``) at the fit's share ``b`` (the check: its distance to the
  package's);
* ``ref b_fit, free icpt``: the intercept coordinate of ``w_0`` left out
  of the penalty (the personal parts' intercepts still penalized);
* ``ref w0 at lambda``: ``w_0``'s penalty ``lambda m`` (pooled
  ``LogisticRegression()``'s) instead of ``lambda m / b``, ``V``'s
  unchanged (``w_0`` regularized as if the personal parts were absent);
* ``ref b 0.999``: the share near its pooled end (the personal parts
  held near zero);
* ``pooled bal, pen icpt``: ``LogisticRegression(fit_intercept=False)``
  on the fitted rows with the intercept column and node-balanced sample
  weights, i.e. the objective's ``b -> 1`` limit; ``pooled bal``: the
  same with sklearn's free intercept; ``pooled pen icpt``: penalized
  intercept, no weights; ``pooled``: ``LogisticRegression()`` on the
  fitted rows (the table's Global also holds the newcomers' ``k`` rows).

    python benchmarks/new_nodes_mocha_w0_gap.py --seeds 0,1,2,3,4,5
    python benchmarks/new_nodes_mocha_w0_gap.py --datasets landmine,moons --seeds 0,1,2
    python benchmarks/new_nodes_mocha_w0_gap.py --seeds 0,1,2,3,4,5 --intercept-scalings 1,10

Measured (joinsm15, 2026-11-29, main e42c5aa, machine at load 7-14; the
fitted ``C`` is 1, i.e. ``lambda = 1 / n`` and at ``b -> 1`` the objective
is node-balanced pooled ``LogisticRegression()`` exactly: ``w_0``'s
penalty does not grow with the number of tasks).  ``w_0`` alone on the
new nodes at ``k = 5``, HAR sitting, seeds 1 / 3 / 4 (the seeds where it
misses) and their mean::

    fit w0                  94.71   93.44 / 96.43 / 94.27
    ref b_fit               94.74   93.51 / 96.43 / 94.27   (distance 0.003-0.009)
    ref b_fit, free icpt    94.98   92.90 / 97.98 / 94.05
    ref w0 at lambda        94.98   93.78 / 96.82 / 94.34
    ref b 0.999             95.64   94.67 / 96.89 / 95.36
    pooled bal, pen icpt    96.12   95.29 / 97.20 / 95.86
    pooled bal              96.19   95.42 / 97.28 / 95.86
    pooled pen icpt         96.21   95.56 / 97.20 / 95.86
    pooled                  96.19   95.42 / 97.20 / 95.94

Seeds 0 / 2 / 5 (``w_0`` within 0.5 of pooled there) and the means over
seeds 0-5::

    fit w0                  97.85   99.41 / 97.98 / 96.17    0-5: 96.28
    ref b_fit               97.80   99.41 / 97.98 / 96.03         96.27
    ref b_fit, free icpt    97.92   99.26 / 97.54 / 96.97         96.45
    ref w0 at lambda        97.95   99.48 / 98.12 / 96.25         96.47
    ref b 0.999             98.26   99.56 / 98.70 / 96.53         96.95
    pooled bal, pen icpt    98.31   99.41 / 98.63 / 96.90         97.22
    pooled bal              98.33   99.41 / 98.63 / 96.97         97.26
    pooled pen icpt         98.29   99.41 / 98.63 / 96.82         97.25
    pooled                  98.29   99.41 / 98.63 / 96.82         97.24

So of the 1.5 points between the fit's ``w_0`` and pooled
``LogisticRegression()`` on seeds 1 / 3 / 4 (0.96 over seeds 0-5), 1.4
(0.94) are the share: the same
objective nearer its pooled end (``b`` 0.999, then the ``b -> 1`` limit)
closes it, i.e. at the learned share (0.50-0.67) the personal parts carry
signal that every subject shares.  The node balance is 0.04-0.07, the
intercept's penalty 0.0-0.1 in the pooled model and -0.6 / +1.6 / -0.2 in
``w_0`` on seeds 1 / 3 / 4 (no sign; +0.18 over seeds 0-5), ``w_0``'s penalty at ``lambda`` instead of ``lambda /
b`` 0.27 (part of the share's effect).  MOCHA has no class weighting, and
the shared mode has no Omega step: its task relation is the share.  On
rotated moons and Landmine (seeds 0-2) every variant leaves ``w_0`` where
it is (49.5-49.8 and 93.4-93.5 means; pooled 48.4 and 93.45).

The lighter intercept penalty is available in the package
(``intercept_scaling``): fitted with ``intercept_scaling=10`` (HAR seeds
0-5, ``k = 5 / 10 / 20``, the fit re-selects its share) ``w_0`` alone
moves 96.28 -> 96.40 and the joins 96.79 / 97.28 / 97.82 -> 96.62 / 97.29
/ 97.71 (seed 4: the share falls 0.67 -> 0.5 and its ``k = 5`` join loses
1.1; seed 1 gains 0.5): not a better default on the target itself, so the
held-out families were not run.  The share is the fit's choice on the
fitted nodes' held-out samples (``new_nodes_mocha_share.py``,
``new_nodes_mocha_lono.py``: no gate found that moves HAR's share without
dropping rotated moons), so HAR's rows at ``k = 5, 10`` stay short.
"""

import argparse
import copy
import warnings

import new_nodes as nn
import numpy as np
from new_nodes_mocha_share import fit_binary_shared
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits


def shared_ref(Z, ys, idx, lam, b, w0_scale=None, free_last=False, start=None):
    """``(w_0, V)`` of the shared objective above; ``w0_scale`` replaces
    ``w_0``'s penalty ``lambda m / b`` by ``lambda m w0_scale``;
    ``free_last`` leaves ``w_0``'s last coordinate (the shared intercept)
    unpenalized (the personal intercepts stay penalized: both free, the
    split between them would be undetermined)."""
    order = np.argsort(idx, kind="stable")
    Z, ys, idx = Z[order], ys[order], idx[order]
    m, d = int(idx.max()) + 1, Z.shape[1]
    starts = np.searchsorted(idx, np.arange(m))
    weight = 1.0 / np.bincount(idx)[idx]
    p0 = lam * m * (1.0 / b if w0_scale is None else w0_scale)
    pv = lam * m / (1.0 - b)
    mask0 = np.ones(d)
    if free_last:
        mask0[-1] = 0.0

    def objective(theta):
        w0, V = theta[:d], theta[d:].reshape(m, d)
        f = Z @ w0 + np.einsum("id,id->i", Z, V[idx])
        z = -ys * f
        slope = -ys * 0.5 * (1.0 + np.tanh(0.5 * z)) * weight
        g0 = Z.T @ slope + p0 * mask0 * w0
        gV = np.add.reduceat(Z * slope[:, None], starts, axis=0) + pv * V
        value = (weight * np.logaddexp(0.0, z)).sum() + 0.5 * (
            p0 * (mask0 * w0) @ w0 + pv * (V * V).sum())
        return value, np.concatenate([g0, gV.ravel()])

    theta = np.zeros(d * (m + 1)) if start is None else start
    result = minimize(objective, theta, jac=True, method="L-BFGS-B",
                      options=dict(maxiter=20000, gtol=1e-10, ftol=1e-15))
    return result.x


def run(seed, name="har", k=5):
    X, y, g, task, fit_rows, order, est = fit_binary_shared(name, seed)
    Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
    classes = est.classes_
    ys = np.where(yf == classes[1], 1.0, -1.0)
    bias = float(est.intercept_scaling)
    Z = np.c_[Xf, np.full(len(Xf), bias)]
    _, idx = np.unique(gf, return_inverse=True)
    m = idx.max() + 1
    lam = float(est._join_lam)
    b_fit = float(est.shared_weight_)
    w0_fit = est._W[0, -1].astype(np.float64)
    _, test = nn.new_node_rows(order, k)
    Xt, yt, gt = X[test], y[test], g[test]
    Zt = np.c_[Xt, np.full(len(Xt), bias)]

    def acc_w(w):
        return nn.score(task, yt, np.where(Zt @ w > 0, classes[1], classes[0]))

    rows = {"fit w0": nn.score(task, yt, est.predict(Xt, groups=gt))}
    ref = shared_ref(Z, ys, idx, lam, b_fit)
    d = Z.shape[1]
    dist = np.linalg.norm(ref[:d] - w0_fit) / np.linalg.norm(w0_fit)
    rows["ref b_fit"] = acc_w(ref[:d])
    rows["ref b_fit, free icpt"] = acc_w(shared_ref(Z, ys, idx, lam, b_fit, free_last=True,
                                                    start=ref)[:d])
    rows["ref w0 at lambda"] = acc_w(shared_ref(Z, ys, idx, lam, b_fit, w0_scale=1.0,
                                                start=ref)[:d])
    rows["ref b 0.999"] = acc_w(shared_ref(Z, ys, idx, lam, 0.999, start=ref)[:d])
    counts = np.bincount(idx)
    balanced = (len(yf) / m) / counts[idx]
    C = 1.0 / (lam * len(yf))  # lambda = 1 / (C n)
    for label, weights, free in (("pooled bal, pen icpt", balanced, False),
                                 ("pooled bal", balanced, True),
                                 ("pooled pen icpt", None, False),
                                 ("pooled", None, True)):
        clf = LogisticRegression(C=C, fit_intercept=free, max_iter=5000)
        clf.fit(Xf if free else Z, yf, sample_weight=weights)
        rows[label] = nn.score(task, yt, clf.predict(Xt if free else Zt))
    print(f"{name} seed {seed}: b_fit {b_fit:.3f}, m {m}, C {C:.3g}, ref distance {dist:.4f}, "
          f"positives {np.mean(yf == classes[1]):.3f}", flush=True)
    for label, value in rows.items():
        print(f"    {label:22s} {value:6.2f}", flush=True)
    return rows


def scaling_run(seed, scalings, name="har", ks=(5, 10, 20)):
    """The package fitted at each ``intercept_scaling``: ``w_0`` alone and the
    joins (``add_nodes``) on the new nodes' test samples, per ``k``."""
    from skfed.multitask import FederatedMultiTaskClassifier

    data = nn.load(name, seed)
    X, y, g = data[:3]
    fit_rows, _, order = nn.split(X, y, g, seed, data[4] if len(data) > 4 else None)
    out = {}
    for s in scalings:
        est = FederatedMultiTaskClassifier(random_state=seed, intercept_scaling=s).fit(
            X[fit_rows], y[fit_rows], groups=g[fit_rows])
        alone, joins = [], []
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            joined = copy.deepcopy(est).add_nodes(X[train], y[train], groups=g[train])
            alone.append(nn.score("classification", y[test], est.predict(X[test], groups=g[test])))
            joins.append(nn.score("classification", y[test], joined.predict(X[test], groups=g[test])))
        print(f"{name} seed {seed} intercept_scaling {s}: share {est.shared_weight_:.3f}, w0 "
              + " / ".join(f"{v:.2f}" for v in alone) + ", join "
              + " / ".join(f"{v:.2f}" for v in joins), flush=True)
        out[s] = (alone, joins)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2,3,4,5")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--intercept-scalings", default=None,
                        help="instead: fit the package at these intercept_scaling values")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    with threadpool_limits(1):
        if args.intercept_scalings:
            scalings = [float(v) for v in args.intercept_scalings.split(",")]
            for name in args.datasets.split(","):
                runs = [scaling_run(int(s), scalings, name) for s in args.seeds.split(",")]
                for v in scalings:
                    alone = np.mean([r[v][0] for r in runs], axis=0)
                    joins = np.mean([r[v][1] for r in runs], axis=0)
                    print(f"{name} intercept_scaling {v}: w0 " + " / ".join(f"{a:.2f}" for a in alone)
                          + ", join " + " / ".join(f"{a:.2f}" for a in joins))
            return
        for name in args.datasets.split(","):
            table = [run(int(s), name, args.k) for s in args.seeds.split(",")]
            print(f"{name}: means over seeds {args.seeds}")
            for label in table[0]:
                values = [r[label] for r in table]
                print(f"    {label:22s} {np.mean(values):6.2f}   "
                      + " / ".join(f"{v:.2f}" for v in values))


if __name__ == "__main__":
    main()
