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
  error of ``best`` below that of ``w_0`` by one standard error of the
  paired difference, else ``w0`` (one choice per seed and ``k``).

Each newcomer is joined alone (a copy of the fitted estimator whose shared
column is replaced by ``m_n``; the rehearsed scale is the default's, computed
at ``w_0``), its test samples predicted by its joined model; ``w0`` is the
same single join at ``w_0`` (the reference, equal to the default join's
score up to the local solver's seeds).  ``@0`` rows score ``m_n`` alone.
Means over the seeds, then the best Global and Local baselines of
``new_nodes.py``.

    python benchmarks/new_nodes_mocha_prior.py --datasets har,moons \\
        --seeds 0,1,2 --ks 5,10,20
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


def rehearse_best(est, W, w0, X, y, g, k, q, seed, max_draws=32):
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
        diffs.append(errors(est, mean, X[held], y[held]).mean()
                     - errors(est, w0, X[held], y[held]).mean())
    if len(diffs) < 2:  # no fitted node has more than k samples: no evidence
        return np.nan, np.nan
    diffs = np.array(diffs)
    return diffs.mean(), diffs.std(ddof=1) / np.sqrt(len(diffs))


def run(name, seeds, ks, best_fraction):
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
                for key, p in out.items():
                    preds.setdefault(key, []).append(p)
            diff, se = rehearse_best(est, W, w0, X[fit_rows], y[fit_rows], groups[fit_rows],
                                     k, q, seed)
            pick = "best" if diff < -se else "w0"
            preds["auto"] = preds[pick]
            print(f"  rehearsal k={k}: best - w0 error {diff:+.4f} (se {se:.4f}) -> {pick}")
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
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            run(name, seeds, ks, args.best)


if __name__ == "__main__":
    main()
