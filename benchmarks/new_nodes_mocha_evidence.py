"""Could a MOCHA newcomer choose its prior scale by its own evidence?

A newcomer of MOCHA's shared model (``omega_mode_ == "shared"``) solves
its problem toward the fitted ``w_0`` with the prior variance ``c_n``
times a scale the fitted nodes' rehearsal picks
(:mod:`skfed.multitask._rehearsal`): one scale per size, measured on the
fitted nodes' draws, not on the newcomer.  This script measures the
classical empirical-Bayes alternative, computed by each newcomer alone
from its ``k`` samples and the ``w_0`` it already received (nothing more
is sent): the newcomer's join objective, multiplied by its weight ``W_n``,
is a logistic likelihood with the Gaussian prior ``N(w_0, I / alpha_s)``,
``alpha_s = lambda W_n / (c_n s)`` for the scale ``s``, and its
log-marginal likelihood (the Laplace approximation at the joined model
``w_s``, with ``D = diag(s_i sigma_i (1 - sigma_i))``)::

    log p(y | s) ~ -sum_i s_i loss_i(w_s) - (alpha_s / 2) ||w_s - w_0||^2
                   - (1 / 2) log det(I_k + Z D Z^T / alpha_s)

(``k x k``: cheap for any ``d'``; ``s = 0`` gives ``-sum_i s_i
loss_i(w_0)``) is compared over the scales of
:data:`SCALES`.  Rows (means over the seeds; each scale's models are the
package's joins at that fixed scale, as in ``new_nodes_mocha_scales.py``):

* ``join``: the default join (the rehearsal's scale);
* ``evidence``: every newcomer at the scale of largest evidence;
* ``evid>=1``: the evidence's scale, but never below the rehearsal's (a
  newcomer may only trust its data more than the rehearsal says);
* ``evid<=1``: never above it;

``s=<scale>`` rows are the fixed scales, and the stationarity of each
joined model is checked (the gradient of the per-sample-sum objective at
``w_s``, relative to ``alpha_s ||w_s - w_0||``) so the evidence is taken
at the MAP the formula assumes.

    python benchmarks/new_nodes_mocha_evidence.py --datasets har,moons,landmine \\
        --seeds 0,1,2 --ks 5,10,20
"""

import argparse
import copy
import warnings

import new_nodes as nn
import numpy as np
from new_nodes_mocha_scales import _FixedScale
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

SCALES = (0.0, 1.0 / 16, 0.25, 1.0, 4.0, 16.0)


def log_evidence(Z, y, w, m, alpha):
    """Laplace log-marginal likelihood of one binary logistic problem.

    ``Z`` (k, d), ``y`` in +-1, ``w`` the MAP, ``m`` the prior mean,
    ``alpha`` the prior precision (``inf``: the prior mean itself).
    Returns ``(log evidence, relative gradient norm at w)``.
    """
    f = Z @ w
    loss = np.logaddexp(0.0, -y * f).sum()
    if not np.isfinite(alpha):
        return -np.logaddexp(0.0, -y * (Z @ m)).sum(), 0.0
    p = 1.0 / (1.0 + np.exp(-f))
    v = w - m
    grad = Z.T @ (p - (y > 0)) + alpha * v
    rel = np.linalg.norm(grad) / max(alpha * np.linalg.norm(v), 1e-300)
    D = p * (1.0 - p)
    sq = np.sqrt(D)
    G = (sq[:, None] * Z) @ (Z.T * sq[None, :]) / alpha
    _, logdet = np.linalg.slogdet(np.eye(len(y)) + G)
    return -loss - 0.5 * alpha * v @ v - 0.5 * logdet, rel


def run(name, seeds, ks):
    scores, baselines, picks = {}, {}, {}
    worst_rel = 0.0
    for seed in seeds:
        data = nn.load(name, seed)
        X, y, groups, task = data[:4]
        extra = data[4] if len(data) > 4 else None
        fit_rows, new, order = nn.split(X, y, groups, seed, extra)
        fitted = nn.make_estimator("mocha", task, seed).fit(
            X[fit_rows], y[fit_rows], groups=groups[fit_rows])
        assert fitted.omega_mode_ == "shared" and len(fitted.classes_) == 2
        lam, n_fit = fitted._join_lam, len(fitted.nodes_)
        b, mean_mass = float(fitted.shared_weight_), fitted._join_mass
        w0 = np.asarray(fitted._W[0, -1], dtype=np.float64)
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            Xt, yt, gt = X[test], y[test], groups[test]
            ests = {}
            default = copy.deepcopy(fitted)
            default.add_nodes(X[train], y[train], groups=groups[train])
            ests["join"] = default
            for s in SCALES:
                est = copy.deepcopy(fitted)
                est._join_rehearsal = _FixedScale(s)
                est.add_nodes(X[train], y[train], groups=groups[train])
                ests[s] = est
            preds = {key: est.predict(Xt, groups=gt) for key, est in ests.items()}
            # each newcomer's evidence per scale, and the default's scale
            choice = {v: preds["join"].copy() for v in ("evidence", "evid>=1", "evid<=1")}
            for node in new:
                rows = train[groups[train] == node]
                trows = gt == node
                col = int(np.flatnonzero(default.nodes_ == node)[0])
                Z = default._features(np.asarray(X[rows], dtype=np.float64))
                yy = np.where(y[rows] == fitted.classes_[1], 1.0, -1.0)
                ev = []
                for s in SCALES:
                    alpha = np.inf if s == 0 else lam * n_fit * mean_mass / ((1.0 - b) * s)
                    e, rel = log_evidence(Z, yy, np.asarray(ests[s]._W[0, col], float), w0, alpha)
                    worst_rel = max(worst_rel, rel)
                    ev.append(e)
                # the default's scale: the fixed scale whose model equals it
                same = [s for s in SCALES if np.allclose(ests[s]._W[0, col], default._W[0, col],
                                                         rtol=1e-10, atol=1e-12)]
                s_def = same[0] if same else np.nan
                s_ev = SCALES[int(np.argmax(ev))]
                picks.setdefault((name, k), []).append((seed, node, s_def, s_ev, int((yy > 0).sum())))
                for v, s in (("evidence", s_ev), ("evid>=1", max(s_ev, s_def)),
                             ("evid<=1", min(s_ev, s_def))):
                    choice[v][trows] = preds[s][trows]
            for v, p in choice.items():
                scores[(v, seed, k)] = nn.score(task, yt, p)
            scores[("join", seed, k)] = nn.score(task, yt, preds["join"])
            for s in SCALES:
                scores[(f"s={s:g}", seed, k)] = nn.score(task, yt, preds[s])
            baselines[(seed, k)] = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
            print(name, seed, k, {v: round(sc, 2) for (v, sd, kk), sc in scores.items()
                                  if sd == seed and kk == k}, flush=True)
    for (dname, k), rows in picks.items():
        print(f"{dname} k={k} picks (seed, node, rehearsal, evidence, positives):",
              [(sd, int(nd), f"{a:g}", f"{e:g}", npos) for sd, nd, a, e, npos in rows])
    print(f"largest relative gradient at a joined model: {worst_rel:.2e}")
    variants = ["join", "evidence", "evid>=1", "evid<=1"] + [f"s={s:g}" for s in SCALES]
    print(f"\n{name}: means over seeds {seeds}")
    print(f"{'variant':10s} " + " ".join(f"{'k=' + str(k):>7s}" for k in ks))
    for v in variants:
        print(f"{v:10s} " + " ".join(f"{np.mean([scores[(v, s, k)] for s in seeds]):7.2f}"
                                     for k in ks))
    for label, part in (("Global", 0), ("Local", 1)):
        cells = []
        for k in ks:
            names = baselines[(seeds[0], k)][part]
            means = {bn: np.mean([baselines[(s, k)][part][bn] for s in seeds]) for bn in names}
            best = max(means, key=means.get)
            cells.append(f"{means[best]:7.2f}")
        print(f"{label:10s} " + " ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har,moons,landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            run(name, seeds, ks)


if __name__ == "__main__":
    main()
