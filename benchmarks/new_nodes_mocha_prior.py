"""Could a MOCHA newcomer start from a better prior mean than ``w_0``?

A newcomer of MOCHA's shared model (``omega_mode_ == "shared"``) solves its
problem toward the fitted shared model ``w_0`` with the rehearsed prior
variance (:mod:`skfed.multitask._join`).  On HAR seed 1 the fitted ``w_0``
scores 93.4 on the new nodes where pooled ``LogisticRegression`` scores
95.6, so a prior mean closer to the newcomer's task could help.  This
script tries means built from the fitted per-node models ``w_t`` (which
the server holds) and the newcomer's own samples, each cheaper than a
refit: one extra download of the ``m`` fitted models and, for ``omega``,
one extra local solve.

For each newcomer ``n`` and prior mean ``m_n``:

* ``w0``: ``m_n = w_0`` (the default);
* ``mean``: the plain mean of the fitted ``w_t``;
* ``best``: the mean of the fitted ``w_t`` with the smallest loss of the
  fit on the newcomer's samples (its ``--best`` fraction of them);
* ``omega``: ``m_n = sum_t a_t w_t`` with ``a`` the restricted Omega
  step's row (:func:`skfed.multitask._join.omega_row`) for the newcomer's
  model ``w_n`` of the default join (a second solve from ``m_n``);
* ``<name>+w0``: halfway between ``w_0`` and ``<name>``;
* ``auto``: ``best`` where a rehearsal on the fitted nodes (as the join's
  rehearsal of scales, but of the prior means alone: each fitted node
  ranks the *other* fitted models on ``k`` of its samples) finds the
  error of ``best`` below that of ``w_0`` by ``--evidence`` standard errors of the
  paired difference, else ``w0`` (one choice per seed and ``k``);
  ``auto-mean`` the same against the plain mean of the other fitted models
  (which, like ``best``, leaves the rehearsing node's own model out);
* ``loo``: ``best`` where the newcomer's own leave-one-out (``best``
  ranked without the left-out sample) gives a smaller mean loss of the fit
  on its samples than ``w_0``, else ``w0`` (one choice per newcomer).

Each newcomer is joined alone (a copy of the fitted estimator whose shared
column is replaced by ``m_n``; the rehearsed scale is the default's, computed
at ``w_0``), its test samples predicted by its joined model; ``w0`` is the
same single join at ``w_0`` (the reference; it scored exactly the default
join's means on HAR, rotated moons and Landmine).  ``@0`` rows score ``m_n``
alone.  Means over the seeds, then the best Global and Local baselines of
``new_nodes.py``.

    python benchmarks/new_nodes_mocha_prior.py --datasets har,moons \\
        --seeds 0,1,2 --ks 5,10,20

Measured (2026-11-27, one process per data set, ``--best 0.25``, means
over seeds 0-2, ``k = 5 / 10 / 20``; HAR and moons as in the command
above, ``--datasets landmine,related-small,related-clustered,
related-alike,related-wide,related-narrow`` for the others)::

    prior mean   HAR sitting            rotated moons          Landmine
    w0           97.48 / 97.33 / 97.81  55.72 / 60.44 / 62.83  93.54 / 93.58 / 93.53
    mean         97.51 / 97.40 / 97.80  55.78 / 60.33 / 62.72  93.54 / 93.58 / 93.54
    omega        97.46 / 97.38 / 97.73  56.45 / 60.04 / 63.30  93.60 / 93.59 / 93.37
    best         96.63 / 97.18 / 97.57  56.78 / 60.33 / 63.63  93.70 / 93.57 / 93.60
    best+w0      97.17 / 97.49 / 97.70  55.98 / 60.13 / 63.33  93.62 / 93.63 / 93.60
    loo          96.82 / 97.16 / 97.64  56.76 / 60.41 / 63.60  93.64 / 93.57 / 93.47
    auto (1 se)  97.19 / 97.40 / 97.47  55.72 / 60.44 / 62.83  93.63 / 93.56 / 93.53
    Global       97.89 / 97.88 / 97.89  50.03 / 51.19 / 53.08  93.81 / 93.77 / 93.78
    Local        78.02 / 82.82 / 88.44  55.92 / 59.06 / 62.59  93.54 / 93.54 / 93.56

    prior mean   related-clustered      related-small          related-alike
    w0           68.33 / 71.00 / 77.08  90.86 / 91.00 / 91.65  91.00 / 91.05 / 91.14
    mean         68.33 / 70.86 / 76.97  90.86 / 91.00 / 91.65  90.98 / 91.05 / 91.14
    omega        67.76 / 70.60 / 76.64  90.77 / 90.93 / 91.54  90.98 / 91.00 / 91.19
    best         74.47 / 78.48 / 83.53  90.81 / 90.97 / 91.56  90.87 / 91.02 / 91.33
    best+w0      71.93 / 74.81 / 80.81  90.86 / 91.06 / 91.61  91.04 / 91.02 / 91.22
    loo          73.09 / 78.05 / 83.53  90.82 / 91.00 / 91.58  90.87 / 90.93 / 91.19
    auto (1 se)  74.47 / 78.48 / 83.53  90.84 / 91.00 / 91.65  91.07 / 91.05 / 91.31
    Global       65.58 / 65.19 / 66.22  91.26 / 91.25 / 91.84  90.58 / 90.64 / 90.86
    Local        60.84 / 65.19 / 72.50  61.69 / 65.82 / 73.12  60.62 / 66.38 / 71.69

    prior mean   related-wide           related-narrow         School (R^2)
    w0           89.64 / 89.62 / 89.53  91.76 / 91.88 / 91.89  32.88 / 33.75 / 35.03
    mean         89.64 / 89.62 / 89.50  91.78 / 91.95 / 91.89  32.89 / 33.76 / 35.03
    omega        89.58 / 89.60 / 89.28  91.71 / 91.48 / 91.97  31.05 / 32.20 / 32.64
    best         89.62 / 89.55 / 89.42  91.78 / 91.83 / 92.25  31.86 / 33.05 / 34.03
    best+w0      89.58 / 89.62 / 89.47  91.84 / 91.88 / 92.11  32.49 / 33.52 / 34.60
    loo          89.58 / 89.45 / 89.47  91.87 / 91.88 / 92.08  32.12 / 33.44 / 34.45
    auto (1 se)  89.64 / 89.62 / 89.53  91.73 / 91.86 / 92.14
    auto (3 se)                                                32.88 / 33.27 / 34.80
    Global       89.69 / 89.90 / 89.97  91.31 / 91.31 / 91.39  31.83 / 31.75 / 31.94
    Local        57.02 / 59.02 / 61.36  71.87 / 81.10 / 86.25  -12.15 / 5.66 / 13.34

(School: ``--datasets school --evidence 3``; Landmine with ``--evidence 3``:
``auto`` 93.54 / 93.61 / 93.40.)

Findings:

* No prior mean beats ``w_0`` on both HAR and rotated moons.  ``mean``
  predicts as ``w_0`` does (its ``@0`` rows equal ``w0@0`` on HAR and
  moons) and joins within 0.1 of it; ``omega`` is ``w_0``'s join within
  0.1 on HAR (on moons, ``d' = 3`` and 80 fitted models, its mean
  reproduces the newcomer's joined model exactly: ``omega@0`` equals
  ``w0``).  HAR seed 1, where ``w_0`` is weakest (93.4 alone), is not
  helped by any combination of the fitted models (``best`` 93.1 / 93.7 /
  95.2 against ``w0`` 94.1 / 93.8 / 94.9).
* ``best`` (the fitted models that fit the newcomer's samples best) is
  the newcomer's cluster when the tasks come in clusters: related-clustered
  +6.1 / +7.5 / +6.5 points (every seed and ``k`` +4.7 to +9.2, far above
  Global and Local), rotated moons +1.06 / -0.11 / +0.80 (meets Local at
  ``k = 5``: 56.78 against 55.92), Landmine +0.16 / -0.01 / +0.07; but on
  HAR, whose subjects share one task, it loses 0.85 / 0.15 / 0.24 (seed 0:
  -0.9 / -0.6 / -1.0).  ``--best 0.5`` (half the fitted models): moons
  56.24 / 60.53 / 63.54, HAR seed 0 still -0.7 / -0.3 / -0.8.
* Choosing per newcomer by its own leave-one-out (``loo``) does not tell
  HAR from the clustered families (HAR -0.66 / -0.17 / -0.17).
* The fitted nodes' rehearsal (``auto``) does: on related-clustered its
  paired difference is 4.8-10 standard errors in favour of ``best`` at
  every seed and ``k``; on HAR at most 2.3 (seed 2, where ``best`` is
  +0.22 / 0.00), but at 1 standard error it picks ``best`` on HAR seed 0
  (k = 5, 20) and loses 0.29 / 0.34 there.  On rotated moons the fitted
  nodes keep 3-15 samples, too few held out to say anything (it keeps
  ``w_0``).  A stricter ``--evidence 3`` (read off the HAR, Landmine and
  clustered runs) keeps ``w_0`` on HAR, moons, related-small, -alike and
  -wide and takes ``best`` on related-clustered everywhere, but it fails
  on School: ``best`` loses there at every seed and ``k`` (-0.6 to -1.5
  R^2 points), yet the rehearsal's squared errors favour it by 3.2-3.4
  standard errors at seed 1 ``k = 10, 20`` (``auto`` 33.27 / 34.80
  against 33.75 / 35.03); Landmine -0.13 at ``k = 20`` (seed 0, -0.38),
  related-narrow picks it once (seed 0 ``k = 5``, -0.06).

So ``w_0`` stays the prior mean.  The next step, if any: a selector that
is right on School as well as on HAR and clustered tasks (the rehearsal's
table is flattered by ``w_0`` and by the fitted models' coupling through
it), measured on a second clustered family before any default.  Cost of
``best`` if it were used: the newcomer downloads the ``m`` fitted models
(``P m d'`` floats instead of ``P d'``, on HAR 17 x 562 instead of 562) and ranks them
locally (nothing else sent).
"""

import argparse
import copy
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.multitask._join import _sample_losses, _targets, omega_row


def fitted_models(est):
    m = len(est.nodes_)
    return np.asarray(est._W[:, :m], dtype=np.float64)  # (P, m, d)


def node_losses(est, W, Xk, yk):
    """Mean loss of the fit of every fitted model on one newcomer's samples."""
    Z = np.asarray(est._features(Xk), dtype=np.float64)
    Y = _targets(est, yk)  # (P, k)
    f = np.einsum("kd,ptd->tpk", Z, W)  # (m, P, k)
    return _sample_losses(est.loss, f, Y[None]).sum(axis=1).mean(axis=1)


def join_one(est, mean, Xk, yk, label, Xt):
    """A copy of ``est`` joined by one newcomer at prior mean ``mean``;
    its predictions for ``Xt`` (``mean`` alone if ``alone``)."""
    e = copy.deepcopy(est)
    if mean is not None:
        W = e._W.copy()
        W[:, -1] = mean
        e._W = W
    e.add_nodes(Xk, yk, groups=np.full(len(yk), label))
    return e.predict(Xt, groups=np.full(len(Xt), label)), e


def predict_with(est, mean, Xt):
    Z = np.asarray(est._features(Xt), dtype=np.float64)
    f = Z @ mean.T  # (n, P)
    if not hasattr(est, "classes_"):
        return f[:, 0]
    if f.shape[1] == 1:
        return est.classes_[(f[:, 0] > 0).astype(int)]
    return est.classes_[np.argmax(f, axis=1)]


def errors(est, mean, X, y):
    """Per sample: misclassified (classifier) or squared error of ``mean``."""
    pred = predict_with(est, mean, X)
    return (pred != y).astype(float) if hasattr(est, "classes_") else (pred - y) ** 2


def rehearse_best(est, W, w0, X, y, g, k, q, seed, max_draws=32, others_mean=False):
    """The fitted nodes' rehearsal of ``best`` against ``w0`` (prior means
    alone): each fitted node with more than ``k`` samples (at most
    ``max_draws``) takes ``k`` of them, ranks the *other* fitted models by
    the fit's loss on them, and scores the mean of its ``q`` best and
    ``w_0`` on its other samples.  Returns the mean paired difference of
    the error rates (best - w0) and its standard error."""
    rng = np.random.RandomState([seed, k, 31])
    diffs = []
    nodes = [t for t, node in enumerate(est.nodes_) if (g == node).sum() > k]
    for t in rng.permutation(nodes)[:max_draws]:
        rows = rng.permutation(np.flatnonzero(g == est.nodes_[t]))
        tr, held = rows[:k], rows[k:]
        losses = node_losses(est, W, X[tr], y[tr])
        losses[t] = np.inf  # the node's own model is not a newcomer's
        mean = W[:, np.argsort(losses, kind="stable")[:q]].mean(axis=1)
        # the reference: w_0, or (others_mean) the plain mean of the other
        # fitted models, which, like best, leaves the node's own model out
        ref = np.delete(W, t, axis=1).mean(axis=1) if others_mean else w0
        diffs.append(errors(est, mean, X[held], y[held]).mean()
                     - errors(est, ref, X[held], y[held]).mean())
    if len(diffs) < 2:  # no fitted node has more than k samples: no evidence
        return np.nan, np.nan
    diffs = np.array(diffs)
    return diffs.mean(), diffs.std(ddof=1) / np.sqrt(len(diffs))


def loo_prefers_best(est, W, w0, Xk, yk, q):
    """The newcomer's own leave-one-out: for each of its samples, ``best``
    ranked on the others; whether its mean loss of the fit on the left-out
    samples is below ``w_0``'s (no message)."""
    Z = np.asarray(est._features(Xk), dtype=np.float64)
    Y = _targets(est, yk)
    f = np.einsum("kd,ptd->tpk", Z, W)
    L = _sample_losses(est.loss, f, Y[None]).sum(axis=1)  # (m, k)
    l0 = _sample_losses(est.loss, np.einsum("kd,pd->pk", Z, w0), Y).sum(axis=0)
    k = len(yk)
    held_best = []
    for i in range(k):
        others = np.delete(np.arange(k), i)
        top = np.argsort(L[:, others].mean(axis=1), kind="stable")[:q]
        mean = W[:, top].mean(axis=1)
        held_best.append(_sample_losses(est.loss, Z[i] @ mean.T, Y[:, i]).sum())
    return np.mean(held_best) < l0.mean()


def run(name, seeds, ks, best_fraction, evidence):
    scores = {}
    baselines = {}
    variants = None
    for seed in seeds:
        data = nn.load(name, seed)
        X, y, groups, task = data[:4]
        extra = data[4] if len(data) > 4 else None
        fit_rows, new, order = nn.split(X, y, groups, seed, extra)
        est = nn.make_estimator("mocha", task, seed).fit(X[fit_rows], y[fit_rows],
                                                          groups=groups[fit_rows])
        assert est.omega_mode_ == "shared", est.omega_mode_
        W = fitted_models(est)
        w0 = np.asarray(est._W[:, -1], dtype=np.float64)
        q = max(1, round(best_fraction * W.shape[1]))
        for k in ks:
            preds, truth = {}, []
            for node in new:
                tr, te = order[node][:k], order[node][k:]
                Xk, yk, Xt = X[tr], y[tr], X[te]
                truth.append(y[te])
                pred_w0, joined = join_one(est, None, Xk, yk, node, Xt)
                w_n = np.asarray(joined._W[:, len(est.nodes_)], dtype=np.float64)
                losses = node_losses(est, W, Xk, yk)
                means = {"mean": W.mean(axis=1),
                         "best": W[:, np.argsort(losses, kind="stable")[:q]].mean(axis=1),
                         "omega": np.einsum("t,ptd->pd", omega_row(W, w_n, 1.0)[0], W)}
                for key in list(means):
                    means[key + "+w0"] = 0.5 * (means[key] + w0)
                out = {"w0": pred_w0, "w0@0": predict_with(est, w0, Xt)}
                for key, mn in means.items():
                    out[key] = join_one(est, mn, Xk, yk, node, Xt)[0]
                    out[key + "@0"] = predict_with(est, mn, Xt)
                out["loo"] = (out["best"] if loo_prefers_best(est, W, w0, Xk, yk, q)
                              else out["w0"])
                for key, p in out.items():
                    preds.setdefault(key, []).append(p)
            diff, se = rehearse_best(est, W, w0, X[fit_rows], y[fit_rows], groups[fit_rows],
                                     k, q, seed)
            pick = "best" if diff < -evidence * se else "w0"
            preds["auto"] = preds[pick]
            print(f"  rehearsal k={k}: best - w0 error {diff:+.4f} (se {se:.4f}) -> {pick}")
            diff, se = rehearse_best(est, W, w0, X[fit_rows], y[fit_rows], groups[fit_rows],
                                     k, q, seed, others_mean=True)
            pick = "best" if diff < -evidence * se else "w0"
            preds["auto-mean"] = preds[pick]
            print(f"  rehearsal k={k}: best - others' mean {diff:+.4f} (se {se:.4f}) -> {pick}")
            yt = np.concatenate(truth)
            for key, p in preds.items():
                scores[(key, seed, k)] = nn.score(task, yt, np.concatenate(p))
            variants = list(preds)
            train, test = nn.new_node_rows(order, k)
            baselines[(seed, k)] = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
            print(name, seed, k, {v: round(sc, 2) for (v, sd, kk), sc in scores.items()
                                  if sd == seed and kk == k}, flush=True)
    print(f"\n{name}: means over seeds {seeds}")
    print(f"{'prior mean':12s} " + " ".join(f"{'k=' + str(k):>7s}" for k in ks))
    for v in variants:
        print(f"{v:12s} " + " ".join(f"{np.mean([scores[(v, s, k)] for s in seeds]):7.2f}"
                                     for k in ks))
    for label, part in (("Global", 0), ("Local", 1)):
        cells = []
        for k in ks:
            names = baselines[(seeds[0], k)][part]
            means = {b: np.mean([baselines[(s, k)][part][b] for s in seeds]) for b in names}
            cells.append(f"{max(means.values()):7.2f}")
        print(f"{label:12s} " + " ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har,moons")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--best", type=float, default=0.25,
                        help="fraction of the fitted models averaged by 'best'")
    parser.add_argument("--evidence", type=float, default=1.0,
                        help="standard errors by which 'auto' needs best ahead of w0")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            run(name, seeds, ks, args.best, args.evidence)


if __name__ == "__main__":
    main()
