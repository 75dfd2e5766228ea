"""Perso-lin's posterior join: candidates weighed by their evidence as prior centres (persolin34).

The posterior join (:mod:`skfed.boosting._perso_lin_posterior`) weighs a
newcomer's candidate ``r`` by its likelihood ``exp(-m L(theta_r))`` on the
newcomer's ``k`` samples (``m`` its mass) and solves its block
``TRUST c F(theta) + (mu / 2) ||theta - u||^2`` around ``u = sum_r a_r
theta_r``.  The likelihood of a fixed model is a noisy ranking when ``k``
is 5-20 and most features are noise: it scores the candidate as it is, not
the model the newcomer would reach from it.  This script measures, on
``benchmarks/new_nodes.py``'s split, the *evidence* of each candidate as
the centre of the newcomer's Gaussian prior (the block read as a prior of
precision ``lam = mu m / (E c)`` around ``theta_r``, the ridge ``m alpha``
on the weights; Laplace's approximation at the block's solution
``theta_r*``, summed over the one-vs-rest problems)::

    log ev_r = -sum_i S_i loss_i(theta_r*) - sum_j Lam_j (theta_r*_j - ubar_rj)^2 / 2
               - log det(I + R Z Lam^-1 Z' R) / 2

(``Lam = lam + m alpha`` on the weights, ``lam`` on the intercept, ``ubar_r
= lam theta_r / Lam``, ``R^2 = S loss''``): the likelihood softened by how
far the newcomer's own solution moves from the candidate.  ``E -> 0`` is
the likelihood rule.  Variants (``--variants``):

* ``post``: the join as it is (likelihood weights, ``TRUST = 2``);
* ``evE<e> T<t>``: evidence weights at ``E = e``, the block around their
  mean at trust ``t``;
* ``bmaE<e>``: the evidence-weighted mean of the candidates' solutions
  ``theta_r*`` themselves (Bayesian model averaging);

all run through the estimator's own ``add_nodes`` with
``_candidate_models`` replaced on the module for the call (the library
holds no switch for them).  ``Local`` is the best of LinearSVC / SVC /
LogisticRegression on the newcomers' ``k`` samples.  Accuracy % on the
newcomers' pooled test samples, mean over seeds.

With ``--diag`` (rotated moons only), per newcomer of the default join:
the posterior's weight inside the newcomer's cluster, and the join's and
Local LinearSVC's accuracy on that newcomer.

    python benchmarks/persolin_evidence_prior.py --datasets moons --seeds 3,4,5 --diag
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes  # noqa: E402

import skfed.boosting._perso_lin_posterior as post  # noqa: E402
from skfed.datasets import make_rotated_moons  # noqa: E402

DEFAULT_MODELS = post._candidate_models


def evidence(est, Z, Y, W, G, mass, confidences, E):
    """``(log_ev (n, q), theta* (n, q, P, d))``: each candidate's Laplace
    evidence as the newcomer's prior centre at precision ``mu m / (E c)``."""
    n, q, P, d = G.shape
    k = Z.shape[1]
    alpha, mu = float(est.alpha), float(est.mu)
    n_pen = d - int(est.fit_intercept)
    Ub = G.reshape(n, q * P, d)
    Yb = np.tile(Y, (1, q, 1))                                          # (n, qP, k)
    theta = post.newcomer_blocks(Z, Yb, W, Ub, E * confidences, alpha, mu, n_pen, est.loss)
    S = W * mass[:, None]
    lam = mu * mass / (E * confidences)                                 # (n,)
    Lam = np.repeat(lam[:, None], d, axis=1)
    Lam[:, :n_pen] += mass[:, None] * alpha
    ubar = Ub * (lam[:, None] / Lam)[:, None, :]
    margins = Yb * np.einsum("nkd,njd->njk", Z, theta)
    data = np.einsum("nk,njk->nj", S, post._loss_terms(est.loss, margins, values_only=True))
    prior = 0.5 * np.einsum("nd,njd->nj", Lam, (theta - ubar) ** 2)
    _, _, d2 = post._loss_terms(est.loss, margins)
    r = np.sqrt(S[:, None, :] * d2)                                     # (n, qP, k)
    K = np.einsum("nid,njd->nij", Z / Lam[:, None, :], Z)
    A = np.eye(k) + r[..., :, None] * K[:, None] * r[..., None, :]
    logdet = np.linalg.slogdet(A)[1]
    log_ev = -(data + prior + 0.5 * logdet).reshape(n, q, P).sum(axis=2)
    return log_ev, theta.reshape(n, q, P, d)


def softmax_rows(x):
    x = x - x.max(axis=1, keepdims=True)
    a = np.exp(x)
    return a / a.sum(axis=1, keepdims=True)


def variant(name):
    """``_candidate_models`` for a variant name (see the module)."""
    if name == "post":
        def models(est, Z, Y, W, G, mass, confidences):
            a, th = DEFAULT_MODELS(est, Z, Y, W, G, mass, confidences)
            est._bench_a, est._bench_G = a, G
            return a, th
        return models
    if name.startswith("bma"):
        E = float(name[4:])

        def models(est, Z, Y, W, G, mass, confidences):
            log_ev, theta = evidence(est, Z, Y, W, G, mass, confidences, E)
            a = softmax_rows(log_ev)
            est._bench_a = a
            return a, np.einsum("nq,nqpd->npd", a, theta)
        return models
    if name.startswith("h"):
        return hop_variant(name)
    if name.startswith("coh"):
        return coherence_variant(name)
    e, t = name[2:].split(" T")
    E, T = float(e), float(t)

    def models(est, Z, Y, W, G, mass, confidences):
        log_ev, _ = evidence(est, Z, Y, W, G, mass, confidences, E)
        a = softmax_rows(log_ev)
        est._bench_a = a
        U = np.einsum("nq,nqpd->npd", a, G)
        n_pen = G.shape[-1] - int(est.fit_intercept)
        return a, post.newcomer_blocks(Z, Y, W, U, T * confidences, float(est.alpha),
                                       float(est.mu), n_pen, est.loss)
    return models


def smoothed(est, hops):
    """The fitted models averaged ``hops`` times with their neighbours'
    under the fit's graph (``(theta_i + sum_j w_ij theta_j) / (1 + sum_j
    w_ij)``), ``(K, P * d)``."""
    from skfed._graph_join import _models

    K = len(est.nodes_)
    th = _models(est).reshape(K, -1).astype(np.float64)
    Wf = est.collaboration_graph_[:K, :K].toarray()
    out = th
    for _ in range(hops):
        out = (out + Wf @ out) / (1.0 + Wf.sum(axis=1))[:, None]
    return th, out


def hop_variant(name):
    """``h<hops> T<t>``: the candidates' models replaced by their ``hops``-hop
    smoothed models (weights and prior); ``h<hops>w T<t>``: weights from
    the smoothed models, the prior the mean of the raw ones."""
    head, t = name.split(" T")
    weights_only = head.endswith("w")
    hops, T = int(head[1:].rstrip("w")), float(t)

    def models(est, Z, Y, W, G, mass, confidences):
        th, hop = est._bench_smoothed(hops)
        n, q, P, d = G.shape
        Gf = G.reshape(n * q, -1)
        idx = np.array([np.argmin(((th - g) ** 2).sum(axis=1)) for g in Gf])
        H = hop[idx].reshape(n, q, P, d)
        values = post._loss_terms(est.loss, Y[:, :, :, None] * np.einsum("nkd,nqpd->npkq", Z, H),
                                  values_only=True)
        data_losses = np.einsum("nk,npkq->nq", W, values)
        a = softmax_rows(-mass[:, None] * data_losses)
        est._bench_a = a
        U = np.einsum("nq,nqpd->npd", a, G if weights_only else H)
        n_pen = d - int(est.fit_intercept)
        return a, post.newcomer_blocks(Z, Y, W, U, T * confidences, float(est.alpha),
                                       float(est.mu), n_pen, est.loss)
    return models


def coherence(a, G):
    """``||sum_r a_r theta_r||^2 / sum_r a_r ||theta_r||^2`` per newcomer (1:
    its candidates agree; near 0: the prior is a cancellation of models that
    disagree), over every problem and coordinate."""
    Gf = G.reshape(G.shape[0], G.shape[1], -1)
    u = np.einsum("nq,nqd->nd", a, Gf)
    return np.sum(u * u, axis=1) / np.einsum("nq,nq->n", a, np.sum(Gf * Gf, axis=2))


def coherence_variant(name):
    """``coh<b>[p<p>][c<cap>]``: the join with each newcomer's trust ``b /
    rho^p`` (``rho`` its prior's :func:`coherence`, ``p`` 1 unless given),
    at most ``cap`` (default 1e6)."""
    head = name[3:]
    head, cap = (head.split("c") + ["1e6"])[:2]
    b, power = (head.split("p") + ["1"])[:2]
    b, power, cap = float(b), float(power), float(cap)

    def models(est, Z, Y, W, G, mass, confidences):
        values = post._loss_terms(est.loss, Y[:, :, :, None] * np.einsum("nkd,nqpd->npkq", Z, G),
                                  values_only=True)
        a = softmax_rows(-mass[:, None] * np.einsum("nk,npkq->nq", W, values))
        rho = coherence(a, G)
        est._bench_a, est._bench_rho = a, rho
        U = np.einsum("nq,nqpd->npd", a, G)
        T = np.minimum(b / np.maximum(rho, 1e-12) ** power, cap)
        n_pen = G.shape[-1] - int(est.fit_intercept)
        return a, post.newcomer_blocks(Z, Y, W, U, T * confidences, float(est.alpha),
                                       float(est.mu), n_pen, est.loss)
    return models


def _node_acc(pred, y, groups, nodes):
    return np.array([100.0 * np.mean(pred[groups == g] == y[groups == g]) for g in nodes])


def run(dataset, seed, ks, variants, local=True, diag=False):
    data = new_nodes.load(dataset, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, extra)
    base = new_nodes.make_estimator("persolin", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    clusters = None
    if diag and dataset == "moons":
        clusters = make_rotated_moons(n_nodes=100, n_test_per_node=60, random_state=seed)[7]
    out, rows = {}, []
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        res = {}
        for name in variants:
            post._candidate_models = variant(name)
            try:
                joined = copy.deepcopy(base)
                joined._bench_smoothed = lambda h, b=base: smoothed(b, h)
                joined.add_nodes(X[train], y[train], groups=groups[train])
            finally:
                post._candidate_models = DEFAULT_MODELS
            pred = joined.predict(X[test], groups=groups[test])
            res[name] = new_nodes.score(task, y[test], pred)
            res["rule"] = joined.newcomer_rule_
            if name.startswith("coh"):
                res[name + " rho"] = float(np.median(joined._bench_rho))
            if clusters is not None and name == variants[0]:
                new = joined.nodes_[len(base.nodes_):]
                a, G = joined._bench_a, joined._bench_G
                K = len(base.nodes_)
                th = np.hstack([base.coef_.reshape(K, -1), base.intercept_.reshape(K, 1)])
                Gf = G.reshape(G.shape[0], G.shape[1], -1)
                cand = np.argmin(((Gf[:, :, None, :] - th[None, None]) ** 2).sum(-1), axis=2)
                same = clusters[np.asarray(base.nodes_)][cand] == clusters[new][:, None]
                inside = np.sum(a * same, axis=1)
                acc_j = _node_acc(pred, y[test], groups[test], new)
                from sklearn.svm import LinearSVC
                loc = new_nodes.LocalEstimator(LinearSVC()).fit(X[train], y[train],
                                                                groups=groups[train])
                acc_l = _node_acc(loc.predict(X[test], groups=groups[test]), y[test],
                                  groups[test], new)
                rows += [(seed, k, float(i), float(j), float(lo)) for i, j, lo in
                         zip(inside, acc_j, acc_l)]
        if local:
            loc = {}
            for lname, make in new_nodes.baseline_makers(task, k).items():
                est = new_nodes.LocalEstimator(make()).fit(X[train], y[train], groups=groups[train])
                loc[lname] = new_nodes.score(task, y[test], est.predict(X[test], groups=groups[test]))
            res["Local"] = max(loc.values())
        out[k] = res
        print(dataset, seed, k, {n: (round(v, 2) if isinstance(v, float) else v)
                                 for n, v in res.items()}, flush=True)
    return out, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="post,ev1 T2,ev2 T2,bmaE2")
    parser.add_argument("--no-local", action="store_true")
    parser.add_argument("--diag", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ks = [int(k) for k in args.ks.split(",")]
    variants = args.variants.split(",")
    datasets = args.datasets.split(",")
    if datasets == ["related"]:
        datasets = list(new_nodes.RELATED)
    for dataset in datasets:
        runs = [run(dataset, int(s), ks, variants, not args.no_local, args.diag)
                for s in args.seeds.split(",")]
        print(f"== {dataset} seeds {args.seeds}")
        names = [v for name in variants
                 for v in ([name, name + " rho"] if name.startswith("coh") else [name])]
        names += [] if args.no_local else ["Local"]
        print("name       " + "  ".join(f"k={k:<5d}" for k in ks))
        for name in names:
            print(f"{name:10s} " + "  ".join(
                f"{np.mean([r[k][name] for r, _ in runs]):7.2f}" for k in ks), flush=True)
        rows = np.array([row for _, rs in runs for row in rs])
        if len(rows):
            for k in ks:
                sel = rows[rows[:, 1] == k]
                low = sel[:, 2] < 0.5
                print(f"diag k={k}: in-cluster weight mean {sel[:, 2].mean():.2f}; "
                      f"join-LinSVC {np.mean(sel[:, 3] - sel[:, 4]):+.2f} overall, "
                      f"{np.mean(sel[low, 3] - sel[low, 4]):+.2f} on {low.sum()} newcomers "
                      f"under 0.5, {np.mean(sel[~low, 3] - sel[~low, 4]):+.2f} on "
                      f"{(~low).sum()} at or over", flush=True)


if __name__ == "__main__":
    main()
