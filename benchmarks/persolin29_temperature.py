"""Perso-lin's posterior join: per-newcomer trust and temperature (persolin29).

The posterior join (:mod:`skfed.boosting._perso_lin_posterior`) weighs a
newcomer's candidates by ``exp(-s m_n L_n(theta_r))`` (``s = 1``: the
likelihood) and solves its block at ``TRUST`` (2) times its confidence.
This script runs the estimator's own join (``add_nodes``) with other rules
put in for the call (``posterior_weights``, ``TRUST`` and, for the
per-newcomer rules, ``_candidate_models`` replaced on the module by this
script's :func:`with_trust`), on ``benchmarks/new_nodes.py``'s
split and scoring (accuracy % on the newcomers' pooled test samples, mean
over seeds), next to Local (the best of LinearSVC / SVC / LogisticRegression
on the newcomers' ``k`` samples; ``--no-local`` skips it)::

    python benchmarks/persolin29_temperature.py --datasets moons --seeds 3,4,5 \
        --variants "s1 T2,s2 T2,s1 T10,cv2,err2,ev2,loc,sp,ent0.9"

Variants (``X T`` rows: the median multiplier the rule chose):

* ``sS TT``: temperature ``1 / S`` on the likelihood, fixed ``TRUST = T``;
* ``cv`` / ``cv2`` / ``cv3``: each newcomer's ``TRUST`` from 1,2,4,8,16 /
  2..16 / 1..32 by 5-fold cross-validation (leave-one-out under 5 samples)
  of its block's logistic loss, the prior and confidence recomputed on
  each fold's training part; ``err2`` / ``errb`` / ``errc``: the same on
  errors (ties by the loss), grids 2..16 / {2, 16} / {2, 8};
* ``ev`` / ``ev2`` / ``ev3``: ``TRUST`` of largest Laplace evidence of the
  newcomer's labels (the block read as a Gaussian prior of precision ``mu
  m / (T c)`` around ``u``), grids 1..32 / 2..32 / 0.5..64;
* ``loc``: ``2 / (1 - a_0)``, ``a_0`` the posterior of "its own task" (the
  leave-one-out likelihood of its local model) against the candidates;
* ``sp``: ``2 max(1, rho)``, ``rho`` the candidates' posterior spread
  around ``u`` over the fit's spread of a node around its neighbours' mean;
* ``ent<h>``: 16 where the posterior's normalized entropy is under ``h``,
  else 2 (``diag`` only records the entropy).

Measured on 2026-11-29 (persolin29, main 006cb47), moons seeds 3-5 the
choice block (``k = 5 / 10 / 20``)::

    s1 T2 (default) 54.46/57.84/62.24   Local 56.15/58.02/62.35
    s1 T1 54.28/57.24/61.07  s1 T3 54.94/57.95/62.62  s1 T5 55.49/58.47/63.14
    s1 T10 56.07/58.67/63.70  s1 T20 56.15/58.61/63.88
    s0.5 T2 54.46/57.38/62.38  s2 T2 54.23/58.88/61.90  s3 T2 53.89/58.33/61.42
    s2 T5 54.97/58.99/62.66  s2 T10 55.62/59.13/63.52
    cv 55.62/57.27/61.84 (T 11/1.5/2)  cv2 55.49/57.67/62.49  cv3 55.65/57.24/61.94
    err2 55.49/57.75/62.80 (T 12.7/5.3/4)  errb 55.49/57.38/62.83  errc 55.33/57.61/62.76
    ev 54.38/57.22/61.00 (always 1)  ev2 = default (always 2)  ev3 53.62/56.75/60.34 (0.5)
    loc 54.43/57.70/62.21 (always 2)   sp 56.59/58.36/63.88 (T 55/42/33)
    ent0.8 54.69/58.58/63.53  ent0.85 54.90/58.44/63.77  ent0.9 55.88/58.70/63.77

No per-newcomer rule reaches Local at ``k = 5`` on the choice block (best
``ent0.9`` 55.88, ``cv3`` 55.65 vs 56.15); only a large trust for every
newcomer does (``s1 T10``, ``s1 T20``, ``sp``, which picks 33-55).  The
likelihood-based signals (loss CV, evidence, the local hypothesis) prefer
the prior at ``T <= 2`` on moons, where accuracy wants ``T >= 10``.
Checks of the candidates (seeds 6-8 and 0-2 of moons; held-out families
seeds 3-5, ``--datasets related --no-local``; HAR seeds 3-5)::

    moons 6-8          s1 T2 55.10/58.41/62.98  Local 55.66/58.31/61.25
                       s1 T5 55.64/59.26/63.23  s1 T10 56.11/58.72/63.11  s1 T20 56.18/58.69/63.07
                       s2 T5 56.09/59.56/63.51  s2 T10 56.21/58.96/63.50
                       err2 55.54/58.44/62.87  cv2 55.31/58.58/62.03  ev2 55.26/58.18/62.91
                       ent0.9 56.03/58.60/63.04
    moons 0-2          s1 T2 56.49/60.21/63.33  Local 56.05/59.06/62.96
                       s1 T10 57.03/60.56/63.23  s2 T2 57.26/60.19/62.46
                       err2 56.52/60.41/63.30  cv2 56.47/60.53/63.39  ent0.9 56.80/60.27/63.40
    related-alike      s1 T2 90.00/89.86/90.25  T5 89.96/89.76/90.17  T10 89.73/89.10/89.19
                       err2 89.67/89.40/89.47  cv2 89.67/89.48/89.58  sp 88.33/86.98/86.08
                       ent0.9 90.00/89.81/89.69
    related-clustered  s1 T2 83.69/87.76/89.39  T5 83.51/88.05/90.03  T10 83.42/87.86/89.64
                       err2 83.62/87.31/89.53  cv2 83.69/87.31/89.64  sp 80.91/86.64/89.22
                       ent0.9 83.09/87.48/89.22
    related-small      s1 T2 89.30/89.50/89.93  T5 88.77/88.74/89.46  T10 87.64/87.29/88.25
                       T20 86.19/84.94/86.49  err2 88.11/88.35/89.18  cv2 88.13/88.35/89.23
                       sp 85.90/84.53/86.53  ent0.9 89.08/89.04/89.28
    related-wide       s1 T2 89.20/89.29/89.00  T5 88.89/88.79/88.39  T10 88.56/88.36/87.42
                       err2 88.89/88.74/88.39  cv2 88.89/88.67/88.25  sp 87.80/87.50/85.69
                       ent0.9 89.20/89.17/88.33
    related-narrow     s1 T2 89.29/89.33/89.72  T10 89.20/89.24/89.53
                       err2 89.33/88.93/89.31  ent0.9 89.40/89.40/89.39
    HAR 3-5            s1 T2 94.07/94.83/94.91  Local 82.34/85.03/90.39
                       s1 T10 93.41/93.59/94.67  err2 93.54/93.61/94.96
                       cv2 93.54/93.75/94.96  ent0.9 93.36/93.36/94.44
    Landmine 0-5       the feature-mean gate opens (rule "features"): no posterior join

The posterior's normalized entropy (``diag``) separates moons (0.87 / 0.76
/ 0.63) from related-alike, -small, -wide, -narrow (0.91-0.98), not from
related-clustered (0.75 / 0.67 / 0.64); ``ent0.9``, the only rule that
meets Local on moons seeds 3-8 (55.96 / 58.65 / 63.41 vs 55.91 / 58.17 /
61.80), loses 0.2-0.7 on related-* and 0.5-1.5 on HAR.  Nothing passes
the rule (no loss over 0.1 on any block or family): the default stays
``s = 1``, ``TRUST = 2``.
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
DEFAULT_MODELS = post._candidate_models


def with_trust(rule):
    """``post._candidate_models`` with each newcomer's block solved at
    ``rule(est, Z, Y, S, G, values, U, confidences)`` times its confidence
    instead of ``TRUST`` (the library's function, its trust replaced; patched
    in for a run: the library holds no seam for it since persolin32)."""

    def candidate_models(est, Z, Y, W, G, mass, confidences):
        S = W * mass[:, None]
        values = post._loss_terms(est.loss, Y[:, :, :, None] * np.einsum("nkd,nqpd->npkq", Z, G),
                                  values_only=True)
        data_losses = np.einsum("nk,npkq->nq", W, values)
        a = np.stack([post.posterior_weights(mass[i], data_losses[i]) for i in range(len(Z))])
        U = np.einsum("nq,nqpd->npd", a, G)
        trust = rule(est, Z, Y, S, G, values, U, confidences)
        n_pen = G.shape[-1] - int(est.fit_intercept)
        return a, post.newcomer_blocks(Z, Y, W, U, trust * confidences, float(est.alpha),
                                       float(est.mu), n_pen, est.loss)

    return candidate_models


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



def spread_trust(est, G, a, base=2.0, lo=1.0, hi=None):
    """``base * clip(rho, lo, hi)``, ``rho`` the posterior spread of the
    candidates around the prior, ``sum_r a_r ||theta_r - u||^2``, over the
    fit's: the mean over fitted nodes of ``||theta_i - u_i||^2``, ``u_i``
    the mean of its neighbours under ``collaboration_graph_`` (the spread
    the fit's ``mu`` holds a node to)."""
    from skfed._graph_join import _models

    th = _models(est).reshape(len(est.nodes_), -1).astype(np.float64)
    Wf = est.collaboration_graph_[:len(th), :len(th)].toarray()
    deg = Wf.sum(axis=1)
    has = deg > 0
    u_fit = Wf[has] @ th / deg[has, None]
    fit_spread = np.mean(np.sum((th[has] - u_fit) ** 2, axis=1))
    Gf = G.reshape(G.shape[0], G.shape[1], -1)
    u = np.einsum("nq,nqd->nd", a, Gf)
    spread = np.einsum("nq,nq->n", a, np.sum((Gf - u[:, None]) ** 2, axis=2))
    return base * np.clip(spread / fit_spread, lo, hi)


def local_hypothesis_trust(Z, Y, S, values, alpha, n_pen, loss, base=2.0, cap=1e6):
    """``base / (1 - a_0)``, ``a_0`` the posterior weight of the hypothesis
    "its own task" against the candidates: its likelihood is the
    leave-one-out likelihood of the newcomer's local model (``argmin F_n``),
    the candidates' their likelihood (they never saw its samples), from a
    uniform prior over the ``q + 1`` hypotheses.  The block's prior term is
    then weighed by the probability ``1 - a_0`` that the candidates' prior
    applies.  A newcomer with one sample keeps ``base``."""
    n, k, d = Z.shape
    counts = (S > 0).sum(axis=1)
    out = np.full(n, base)
    ok = np.flatnonzero(counts >= 2)
    if ok.size == 0:
        return out
    m = len(ok)
    held = np.eye(k, dtype=bool)[None] & (S[ok] > 0)[:, None, :]       # (m, k, k): row j leaves j out
    train = np.where(held, 0.0, S[ok][:, None, :])
    mass = train.sum(axis=2)
    Wl = (train / np.where(mass > 0, mass, 1.0)[..., None]).reshape(m * k, k)
    Zb = np.repeat(Z[ok], k, axis=0)
    Yb = np.repeat(Y[ok], k, axis=0)
    U0 = np.zeros((m * k, Y.shape[1], d))
    theta = post.newcomer_blocks(Zb, Yb, Wl, U0, np.ones(m * k), alpha, 1e-6, n_pen, loss)
    margins = Yb * np.einsum("bkd,bpd->bpk", Zb, theta)
    per = post._loss_terms(loss, margins, values_only=True).sum(axis=1).reshape(m, k, k)
    loo = np.einsum("mjk,mjk->m", np.where(held, S[ok][:, None, :], 0.0), per)
    cand = np.einsum("mk,mpkq->mq", S[ok], values[ok])
    logits = -np.concatenate([loo[:, None], cand], axis=1)
    logits -= logits.max(axis=1, keepdims=True)
    a = np.exp(logits)
    a0 = a[:, 0] / a.sum(axis=1)
    out[ok] = np.minimum(base / np.maximum(1.0 - a0, 1e-300), cap)
    return out


def trust_rule(name):
    """A per-newcomer trust rule of this script (for :func:`with_trust`)."""
    from skfed._graph_join_fitted import newcomer_confidence

    def rule(est, Z, Y, S, G, values, U, confidences):
        alpha, mu = float(est.alpha), float(est.mu)
        n_pen = G.shape[-1] - int(est.fit_intercept)
        if name == "diag":  # TRUST, recording the posterior's normalized entropy
            ell = np.einsum("nk,npkq->nq", S, values)
            a = np.exp(-(ell - ell.min(axis=1, keepdims=True)))
            a /= a.sum(axis=1, keepdims=True)
            ent = -np.sum(a * np.log(np.maximum(a, 1e-300)), axis=1) / np.log(a.shape[1])
            est._newcomer_trust = ent
            return np.full(len(Z), post.TRUST)
        if name.startswith("ent"):  # "ent<h>": 16 where the normalized entropy is under h, else TRUST
            ell = np.einsum("nk,npkq->nq", S, values)
            a = np.exp(-(ell - ell.min(axis=1, keepdims=True)))
            a /= a.sum(axis=1, keepdims=True)
            ent = -np.sum(a * np.log(np.maximum(a, 1e-300)), axis=1) / np.log(a.shape[1])
            trust = np.where(ent < float(name[3:]), 16.0, post.TRUST)
            est._newcomer_trust = trust
            return trust
        if name == "loc":
            trust = local_hypothesis_trust(Z, Y, S, values, alpha, n_pen, est.loss)
        elif name in SPREAD:
            ell = np.einsum("nk,npkq->nq", S, values)
            a = np.exp(-(ell - ell.min(axis=1, keepdims=True)))
            trust = spread_trust(est, G, a / a.sum(axis=1, keepdims=True), *SPREAD[name])
        elif name in EVIDENCE:
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
         "err2": (2.0, 4.0, 8.0, 16.0), "errb": (2.0, 16.0), "errc": (2.0, 8.0)}
EVIDENCE = {"ev": (1.0, 2.0, 4.0, 8.0, 16.0, 32.0), "ev2": (2.0, 4.0, 8.0, 16.0, 32.0),
            "ev3": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)}
OTHER = {"loc", "diag", "ent0.8", "ent0.85", "ent0.9"}
SPREAD = {"sp": (2.0, 1.0, None), "sp32": (2.0, 1.0, 16.0), "sp1": (1.0, 2.0, None)}
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
            s, trust = (1.0, 2.0) if name in GRIDS or name in EVIDENCE or name in SPREAD or name in OTHER else (VARIANTS.get(name) or parse(name))
            post.posterior_weights = lambda m, L, s=s: ORIGINAL(s * m, L)
            post.TRUST = trust
            if name in GRIDS or name in EVIDENCE or name in SPREAD or name in OTHER:
                post._candidate_models = with_trust(trust_rule(name))
            try:
                joined = copy.deepcopy(base)
                joined.add_nodes(X[train], y[train], groups=groups[train])
            finally:
                post.posterior_weights, post.TRUST = ORIGINAL, 2.0
                post._candidate_models = DEFAULT_MODELS
            if name in GRIDS or name in EVIDENCE or name in SPREAD or name in OTHER:
                res[name + " T"] = float(np.median(getattr(joined, "_newcomer_trust", np.nan)))
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
        names = [v for name in variants for v in ([name, name + " T"] if name in GRIDS or name in EVIDENCE or name in SPREAD or name in OTHER else [name])]
        names += [] if args.no_local else ["Local"]
        print("name       " + "  ".join(f"k={k:<5d}" for k in ks))
        for name in names:
            print(f"{name:10s} " + "  ".join(
                f"{np.mean([r[k][name] for r in runs]):7.2f}" for k in ks), flush=True)


if __name__ == "__main__":
    main()
