"""Perso-lin's posterior join: a sharper posterior or more trust (persolin29).

The posterior join (:mod:`skfed.boosting._perso_lin_posterior`) weighs a
newcomer's candidates by ``exp(-s m_n L_n(theta_r))`` (``s = 1``: the
likelihood) and solves its block at ``TRUST`` times its confidence.  This
script runs the estimator's own join (``add_nodes``) with other ``s`` and
``TRUST`` (set on the module for the call), on ``benchmarks/new_nodes.py``'s
split and scoring (accuracy % on the newcomers' pooled test samples, mean
over seeds), next to Local (the best of LinearSVC / SVC / LogisticRegression
on the newcomers' ``k`` samples)::

    python benchmarks/persolin29_temperature.py --datasets moons --seeds 3,4,5

Results: see the end of this docstring (filled in when measured).
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

ORIGINAL = post.posterior_weights
DEFAULT_TRUST = post.newcomer_trust


def choose_trust(Z, Y, S, G, ell, c_of_mass, alpha, mu, n_pen, loss, grid, metric, folds=5):
    """Each newcomer's trust multiplier: the one of ``grid`` whose block has
    the least held-out loss (``metric="loss"``) or errors (``"error"``) over ``min(folds, n_i)`` folds of its samples
    (sample ``j`` of a newcomer in fold ``j mod F``).

    On each fold the prior is recomputed from the training part only (the
    posterior ``exp(-sum_train S_j ell_jr)``), the confidence is that of the
    training mass (``c_of_mass``), and the held-out loss is the sample
    weights times the loss summed over the problems.  A newcomer with fewer
    than 2 samples keeps ``TRUST``.  ``Z`` ``(n, k, d)``, ``Y`` ``(n, P,
    k)``, ``S`` ``(n, k)`` sample weights (0 on padding), ``G`` ``(n, q, P,
    d)`` the candidates' models, ``ell`` ``(n, k, q)`` each candidate's loss
    on each sample summed over the problems.  Returns ``(n,)``.
    """
    n, k, _ = Z.shape
    counts = (S > 0).sum(axis=1)
    F = np.minimum(folds, counts)
    grid = np.asarray(grid, dtype=np.float64)
    out = np.full(n, post.TRUST)
    ok = np.flatnonzero(F >= 2)
    if ok.size == 0:
        return out
    nf = int(F[ok].max())
    pos = np.arange(k)
    fold_of = pos[None, :] % np.maximum(F[ok], 1)[:, None]            # (m, k)
    held = (fold_of[:, None, :] == np.arange(nf)[None, :, None]) & (S[ok] > 0)[:, None, :]
    valid = np.arange(nf)[None, :] < F[ok][:, None]                    # (m, nf)
    train_w = np.where(held, 0.0, S[ok][:, None, :])                   # (m, nf, k)
    m_train = train_w.sum(axis=2)
    logits = -np.einsum("mfk,mkq->mfq", train_w, ell[ok])
    logits -= logits.max(axis=2, keepdims=True)
    a = np.exp(logits)
    a /= a.sum(axis=2, keepdims=True)
    U = np.einsum("mfq,mqpd->mfpd", a, G[ok])                          # (m, nf, P, d)
    cf = np.asarray(c_of_mass(np.where(valid, m_train, 1.0)), dtype=np.float64)
    Wf = train_w / np.where(m_train > 0, m_train, 1.0)[..., None]
    ng = len(grid)
    # every (newcomer, fold, trust) block at once
    shape = (len(ok), nf, ng)
    Zb = np.broadcast_to(Z[ok][:, None, None], shape + Z.shape[1:]).reshape(-1, *Z.shape[1:])
    Yb = np.broadcast_to(Y[ok][:, None, None], shape + Y.shape[1:]).reshape(-1, *Y.shape[1:])
    Wb = np.broadcast_to(Wf[:, :, None], shape + (k,)).reshape(-1, k)
    Ub = np.broadcast_to(U[:, :, None], shape + U.shape[2:]).reshape(-1, *U.shape[2:])
    cb = (cf[:, :, None] * grid[None, None, :]).reshape(-1)
    theta = post.newcomer_blocks(Zb, Yb, Wb, Ub, cb, alpha, mu, n_pen, loss)
    margins = Yb * np.einsum("bkd,bpd->bpk", Zb, theta)
    values = post._loss_terms(loss, margins, values_only=True)
    if metric == "error":  # errors, ties broken by the loss
        values = (margins <= 0).astype(np.float64) + 1e-3 * values
    per_sample = values.sum(axis=1).reshape(shape + (k,))              # (m, nf, ng, k)
    heldw = np.where(held & valid[..., None], S[ok][:, None, :], 0.0)   # (m, nf, k)
    cv = np.einsum("mfk,mfgk->mg", heldw, per_sample)
    out[ok] = grid[np.argmin(cv, axis=1)]
    return out


def evidence_trust(Z, Y, S, U, c, alpha, mu, n_pen, loss, grid):
    """Each newcomer's trust multiplier: the one of ``grid`` of largest
    Laplace evidence of its labels.

    In likelihood units the block is ``sum_i S_i loss_i(theta) + (m alpha /
    2) ||w||^2 + (lam / 2) ||theta - u||^2`` with ``lam = mu m / (T c)``: a
    Gaussian prior of precision ``Lam_j`` (``lam + m alpha`` on the
    penalized coordinates, ``lam`` on the intercept) around ``ubar``.  The
    evidence at the block's solution ``theta*`` is, up to a constant,
    ``-sum_i S_i loss_i - sum_j Lam_j (theta*_j - ubar_j)^2 / 2 - log det(I +
    R Z Lam^-1 Z' R) / 2`` (``R^2 = S loss''``), summed over the problems.
    Returns ``(n,)``.
    """
    n, k, d = Z.shape
    grid = np.asarray(grid, dtype=np.float64)
    ng = len(grid)
    m = S.sum(axis=1)
    W = S / m[:, None]
    rep = lambda A: np.repeat(A, ng, axis=0)  # noqa: E731
    Zb, Yb, Wb, Ub, Sb, mb = rep(Z), rep(Y), rep(W), rep(U), rep(S), rep(m)
    cb = (c[:, None] * grid[None, :]).reshape(-1)
    theta = post.newcomer_blocks(Zb, Yb, Wb, Ub, cb, alpha, mu, n_pen, loss)
    lam = mu * mb / cb
    Lam = np.repeat(lam[:, None], d, axis=1)
    Lam[:, :n_pen] += mb[:, None] * alpha
    ubar = Ub * (lam[:, None] / Lam)[:, None, :]
    margins = Yb * np.einsum("bkd,bpd->bpk", Zb, theta)
    data = np.einsum("bk,bpk->b", Sb, post._loss_terms(loss, margins, values_only=True))
    prior = 0.5 * np.einsum("bd,bpd->b", Lam, (theta - ubar) ** 2)
    _, _, d2 = post._loss_terms(loss, margins)
    r = np.sqrt(Sb[:, None, :] * d2)                                   # (b, P, k)
    K = np.einsum("bid,bjd->bij", Zb / Lam[:, None, :], Zb)
    A = np.eye(k) + r[..., :, None] * K[:, None] * r[..., None, :]
    logdet = np.linalg.slogdet(A)[1].sum(axis=1)
    evidence = -(data + prior + 0.5 * logdet)
    return grid[np.argmax(evidence.reshape(n, ng), axis=1)]



def trust_rule(name):
    """``post.newcomer_trust`` for a per-newcomer rule of this script."""
    from skfed._graph_join_fitted import newcomer_confidence

    def rule(est, Z, Y, S, G, values, U, confidences):
        alpha, mu = float(est.alpha), float(est.mu)
        n_pen = G.shape[-1] - int(est.fit_intercept)
        if name in EVIDENCE:
            trust = evidence_trust(Z, Y, S, U, confidences, alpha, mu, n_pen, est.loss,
                                   EVIDENCE[name])
        else:
            max_mass = float(est._join_info["max_mass"])
            trust = choose_trust(Z, Y, S, G, np.einsum("npkq->nkq", values),
                                 lambda m: newcomer_confidence(m, max_mass), alpha, mu, n_pen,
                                 est.loss, GRIDS[name], "error" if name.startswith("err") else "loss")
        est._newcomer_trust = trust
        return trust

    return rule

GRIDS = {"cv": (1.0, 2.0, 4.0, 8.0, 16.0), "cv2": (2.0, 4.0, 8.0, 16.0),
         "cv3": (1.0, 2.0, 4.0, 8.0, 16.0, 32.0), "err": (1.0, 2.0, 4.0, 8.0, 16.0),
         "err2": (2.0, 4.0, 8.0, 16.0)}
EVIDENCE = {"ev": (1.0, 2.0, 4.0, 8.0, 16.0, 32.0), "ev2": (2.0, 4.0, 8.0, 16.0, 32.0),
            "ev3": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)}
VARIANTS = {"s1 T2": (1.0, 2.0), "s1 T1": (1.0, 1.0), "s1 T3": (1.0, 3.0),
            "s2 T2": (2.0, 2.0), "s3 T2": (3.0, 2.0), "s2 T3": (2.0, 3.0),
            "s3 T3": (3.0, 3.0)}


def parse(name):
    """``"s<scale> T<trust>"``, e.g. ``"s2 T5"``."""
    s, t = name.split()
    return float(s[1:]), float(t[1:])


def run(dataset, seed, ks, variants, local=True):
    data = new_nodes.load(dataset, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, extra)
    base = new_nodes.make_estimator("persolin", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    out = {}
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        res = {}
        for name in variants:
            s, trust = (1.0, 2.0) if name in GRIDS or name in EVIDENCE else (VARIANTS.get(name) or parse(name))
            post.posterior_weights = lambda m, L, s=s: ORIGINAL(s * m, L)
            post.TRUST = trust
            if name in GRIDS or name in EVIDENCE:
                post.newcomer_trust = trust_rule(name)
            try:
                joined = copy.deepcopy(base)
                joined.add_nodes(X[train], y[train], groups=groups[train])
            finally:
                post.posterior_weights, post.TRUST = ORIGINAL, 2.0
                post.newcomer_trust = DEFAULT_TRUST
            if name in GRIDS or name in EVIDENCE:
                res[name + " T"] = float(np.median(joined._newcomer_trust))
            res[name] = new_nodes.score(task, y[test], joined.predict(X[test], groups=groups[test]))
            res["rule"] = joined.newcomer_rule_
        if local:
            loc = {}
            for lname, make in new_nodes.baseline_makers(task, k).items():
                est = new_nodes.LocalEstimator(make()).fit(X[train], y[train], groups=groups[train])
                loc[lname] = new_nodes.score(task, y[test], est.predict(X[test], groups=groups[test]))
            res["Local"] = max(loc.values())
        out[k] = res
        print(dataset, seed, k, {n: (round(v, 2) if isinstance(v, float) else v)
                                 for n, v in res.items()}, flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--no-local", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ks = [int(k) for k in args.ks.split(",")]
    variants = args.variants.split(",")
    datasets = args.datasets.split(",")
    if datasets == ["related"]:
        datasets = list(new_nodes.RELATED)
    for dataset in datasets:
        runs = [run(dataset, int(s), ks, variants, not args.no_local)
                for s in args.seeds.split(",")]
        print(f"== {dataset} seeds {args.seeds}")
        names = [v for name in variants for v in ([name, name + " T"] if name in GRIDS or name in EVIDENCE else [name])]
        names += [] if args.no_local else ["Local"]
        print("name       " + "  ".join(f"k={k:<5d}" for k in ks))
        for name in names:
            print(f"{name:10s} " + "  ".join(
                f"{np.mean([r[k][name] for r in runs]):7.2f}" for k in ks), flush=True)


if __name__ == "__main__":
    main()
