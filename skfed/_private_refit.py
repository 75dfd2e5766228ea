"""Each node's final model of a private Dada or Perso-lin fit: its own data plus released models.

Under a finite privacy budget the models a node *sends* are noisy (they are
what the guarantee protects), but the model a node *keeps* for its own
predictions is never sent.  It may therefore use the node's own samples
exactly (a node needs no protection from itself) and, as post-processing,
the models its graph neighbours released: both cost no privacy.

Every node solves, for every one-vs-rest problem, its own block of the
method's objective with its neighbours held at their released models,

* Perso-lin: ``min_theta (1 / m) sum_i loss(y_i theta . x_i) + (lam / 2)
  ||theta_w - prior_w||^2`` (``theta_w`` without the intercept), Newton's
  method;
* Dada: ``min_alpha log sum_i exp(-[A alpha]_i) + (mu / 2) ||alpha -
  prior||^2`` over the l1 ball of radius ``beta``, Frank-Wolfe,

with ``prior`` the graph-weighted mean of its neighbours' released models.
The trust weight (``lam`` or ``mu``, and Dada's radius) is chosen by K-fold
cross-validation on the node's own samples among a few candidates, one of
which trusts nobody: Perso-lin's ``prior = 0, lam = 1 / m`` is exactly
scikit-learn's ``LogisticRegression()`` (C = 1) on the node alone; Dada's
is the same logistic regression on the base predictions (``radius = 0``),
and boosting alone (``mu = 0``) at each radius is a further candidate.
The one-standard-error rule keeps the trust-nobody candidate 0 unless
another candidate validates better by more than one standard error of the
difference: on a node with 5-10 samples a noisy validation would otherwise
follow noise.

What this choice protects and what it does not: the kept model is never
sent, so it spends no budget and the guarantee on what the node sends is
unchanged; but the kept model is an exact function of the node's own
samples, like a Local model, so publishing ``coef_`` (rather than the
released models) publishes non-private information about that node's data.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._core._refit_fast import pairwise_frank_wolfe
from ._kept_local import cross_fitted_scores, one_se_choice

# Candidates (prior weight ``lam``) that trust the neighbours, Perso-lin.
LINEAR_TRUST = (0.03, 0.3, 3.0)
# Dada: l1 radii of the final model and smoothing weights toward the
# neighbours' (l1-normalized, rescaled to the radius) mean model.
BOOST_RADII = (1.0, 3.0, 10.0)
BOOST_TRUST = (1.0, 10.0)
# Frank-Wolfe of the Dada candidates: stop at duality gap BOOST_TOL (1 + mu beta)
# (relative to the objective's curvature scale), at most BOOST_MAX_STEPS steps.
BOOST_TOL = 0.01
BOOST_MAX_STEPS = 10000
N_FOLDS = 5


def _folds(m, rng):
    """Fold index of every sample (public randomness from ``random_state``)."""
    n_folds = min(N_FOLDS, m)
    fold = np.arange(m) % n_folds
    return fold[rng.permutation(m)], n_folds


def neighbour_prior(W, released, k):
    """Graph-weighted mean of the models node k received (None: no neighbour)."""
    row = W.getrow(k)
    if row.nnz == 0:
        return None
    w = row.data
    return np.tensordot(w / w.sum(), released[row.indices], axes=1)


def _one_se_choice(losses):
    """Index of the chosen candidate; ``losses`` (n_candidates, m) held-out losses.

    Candidate 0 trusts nobody; another is chosen only when its mean held-out
    loss is lower than candidate 0's by more than one standard error of the
    per-sample difference.
    """
    return one_se_choice(losses, 0)


# ------------------------------------------------------------------ Perso-lin
def _linear_fit(Z, s, prior, lam, penalized, loss):
    """Newton's method on ``mean loss(s z.theta) + lam/2 ||theta_w - prior_w||^2``."""
    m, d = Z.shape
    pen = np.zeros(d)
    pen[:penalized] = lam
    theta = prior.copy()
    for _ in range(50):
        margin = s * (Z @ theta)
        if loss == "logistic":
            p = np.exp(-np.logaddexp(0.0, margin))  # sigmoid(-margin)
            g1, h1 = -p, p * (1.0 - p)
        else:  # squared hinge: (max(0, 1 - margin))^2
            slack = np.maximum(0.0, 1.0 - margin)
            g1, h1 = -2.0 * slack, 2.0 * (slack > 0)
        grad = Z.T @ (s * g1) / m + pen * (theta - prior)
        hess = (Z * h1[:, None]).T @ Z / m + np.diag(pen + 1e-8)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return theta


def _linear_loss(Z, s, theta, loss):
    margin = s * (Z @ theta)
    if loss == "logistic":
        return np.logaddexp(0.0, -margin)
    return np.maximum(0.0, 1.0 - margin) ** 2


def refit_linear(Z, S, prior, penalized, loss, rng):
    """Node's final Perso-lin models, one per problem.

    Z : (m, d) design (intercept column last when fitted); S : (P, m) labels
    in {-1, +1}; prior : (P, d) neighbours' mean released model or None.

    Returns ``(theta, trust, heldout, fold, n_folds)``: ``trust`` is the
    chosen prior weight per problem (0: the node alone); ``heldout`` (P, m)
    the held-out scores on the folds ``fold`` of the candidate the same
    rule chooses on the other folds
    (:func:`skfed._kept_local.cross_fitted_scores`; None when the node has
    fewer than 2 samples), which :mod:`skfed._kept_local` compares with
    the models the node can train alone.
    """
    m, d = Z.shape
    P = S.shape[0]
    fold, n_folds = _folds(m, rng)
    zero = np.zeros(d)
    theta = np.empty((P, d))
    trust = np.zeros(P)
    heldout = np.zeros((P, m)) if n_folds >= 2 else None
    for p in range(P):
        s = S[p]
        cands = [(zero, 1.0 / m)]
        if prior is not None:
            cands += [(prior[p], lam) for lam in LINEAR_TRUST]
        chosen = 0
        if n_folds >= 2:
            held = np.zeros((len(cands), m))
            score = np.zeros((len(cands), m))
            for f in range(n_folds):
                test = fold == f
                train = ~test
                for c, (mean, lam) in enumerate(cands):
                    t = _linear_fit(Z[train], s[train], mean, lam, penalized, loss)
                    held[c, test] = _linear_loss(Z[test], s[test], t, loss)
                    score[c, test] = Z[test] @ t
            if len(cands) > 1:
                chosen = _one_se_choice(held)
            # the scores a test against a Local model may use: on each fold
            # the candidate chosen on the other folds (not the chosen one's)
            heldout[p] = cross_fitted_scores(held, score, fold, n_folds)[0]
        mean, lam = cands[chosen]
        theta[p] = _linear_fit(Z, s, mean, lam, penalized, loss)
        trust[p] = 0.0 if chosen == 0 else lam
    return theta, trust, heldout, fold, n_folds


# ----------------------------------------------------------------------- Dada
def _boost_fit(A, priors, mus, betas, tol=BOOST_TOL, max_steps=BOOST_MAX_STEPS):
    """Pairwise Frank-Wolfe with exact line search for every candidate.

    Candidate c minimizes ``f(a) = log sum_i exp(-[A a]_i) + mus[c]/2 ||a -
    priors[c]||^2`` over ``||a||_1 <= betas[c]``; returns ``(alpha, steps,
    converged)``, the (n_candidates, n_base) solutions, the steps each took
    and whether each stopped on its gap.  A
    candidate stops once its Frank-Wolfe duality gap ``grad . a + betas[c]
    max_j |grad_j|`` (an upper bound on ``f(a) - min f``) is below ``tol (1 +
    mus[c] betas[c])`` (the objective's curvature scale), or after
    ``max_steps`` steps (:func:`skfed._core._refit_fast.pairwise_frank_wolfe`).
    """
    return pairwise_frank_wolfe(np.ascontiguousarray(A, dtype=np.float64),
                                np.ascontiguousarray(priors, dtype=np.float64),
                                np.ascontiguousarray(mus, dtype=np.float64),
                                np.ascontiguousarray(betas, dtype=np.float64),
                                float(tol), int(max_steps))


def _logistic_on_base(H, s, lam):
    """The node alone, logistic: ``min_a mean log(1 + e^(-s_i [H a]_i)) + lam / 2
    ||a||^2`` (Newton's method), scikit-learn's ``LogisticRegression(C=1 /
    (lam m), fit_intercept=False)`` on the base predictions."""
    from .multitask._private import _newton

    return _newton(H, s, np.zeros(H.shape[0]), np.full(H.shape[1], lam), "logistic")


def boosting_candidates(prior, n_base):
    """The boosting candidates of one problem: ``(mus, betas, priors)``.

    Boosting alone (trust 0) at every radius of ``BOOST_RADII`` and, when
    the neighbours' mean released model ``prior`` (``(n_base,)`` or None)
    is not zero, boosting toward it (l1-normalized, scaled by the radius)
    at every (radius, ``BOOST_TRUST``).
    """
    cands = [(0.0, b) for b in BOOST_RADII]
    direction = np.zeros(n_base)
    if prior is not None and np.abs(prior).sum() > 0:
        direction = prior / np.abs(prior).sum()
        cands += [(mu, b) for b in BOOST_RADII for mu in BOOST_TRUST]
    mus = np.array([c[0] for c in cands])
    betas = np.array([c[1] for c in cands])
    priors = direction[None, :] * betas[:, None] * (mus > 0)[:, None]
    return mus, betas, priors


def refit_boosting(H, S, prior, rng, node=None):
    """Node's final Dada models, one per problem.

    Returns ``(alpha, trust, radius, heldout, fold, n_folds)``; ``heldout``
    (P, m) the cross-fitted held-out scores on the folds ``fold`` (None
    below 2 samples), as in :func:`refit_linear`.

    H : (m, n_base) base predictions; S : (P, m) labels in {-1, +1};
    prior : (P, n_base) neighbours' mean released model or None;
    node : the node's label, which a ConvergenceWarning names (None: "A node").

    Candidate 0 is the node alone by l2-regularized logistic regression on
    the base predictions at ``C = 1`` (:func:`_logistic_on_base`; radius
    and trust 0); the others are boosting alone (Frank-Wolfe on the
    log-sum-exp loss) at every radius of ``BOOST_RADII`` and, with a
    prior, boosting toward the neighbours' mean released model at every
    (radius, ``BOOST_TRUST``).  A candidate replaces candidate 0 only when
    its cross-validated 0-1 error is lower by more than one standard error
    (the radius changes the scale of the margins, so losses do not compare
    candidates).  Measured at epsilon 3 (seeds 0-2, ``privacy_utility.py``):
    the moons 0.924 -> 0.937, Computer buyers 0.648 -> 0.654, against
    boosting alone as candidate 0.
    """
    m, n_base = H.shape
    P = S.shape[0]
    fold, n_folds = _folds(m, rng)
    alpha = np.empty((P, n_base))
    trust = np.zeros(P)
    radius = np.zeros(P)
    heldout = np.zeros((P, m)) if n_folds >= 2 else None
    for p in range(P):
        s = S[p]
        A = s[:, None] * H
        mus, betas, priors = boosting_candidates(None if prior is None else prior[p], n_base)
        chosen = 0
        if n_folds >= 2:
            score = np.zeros((len(mus) + 1, m))
            for f in range(n_folds):
                test = fold == f
                train = ~test
                logistic = _logistic_on_base(H[train], s[train], 1.0 / train.sum())
                score[0, test] = H[test] @ logistic
                a = _boost_fit(A[train], priors, mus, betas)[0]
                score[1:, test] = (H[test] @ a.T).T
            held = (s[None, :] * score <= 0).astype(float)
            chosen = _one_se_choice(held)
            heldout[p] = cross_fitted_scores(held, score, fold, n_folds)[0]
        if chosen == 0:
            alpha[p] = _logistic_on_base(H, s, 1.0 / m)
            continue
        c = slice(chosen - 1, chosen)
        final, _, converged = _boost_fit(A, priors[c], mus[c], betas[c],
                                         max_steps=BOOST_MAX_STEPS)
        if not converged[0]:
            who = "A node's" if node is None else f"Node {node!r}'s"
            warnings.warn(
                f"{who} final private Dada model stopped at {BOOST_MAX_STEPS} "
                f"Frank-Wolfe steps above its duality-gap tolerance {BOOST_TOL} "
                "(relative): it is not its block problem's solution.",
                ConvergenceWarning, stacklevel=2)
        alpha[p] = final[0]
        trust[p] = mus[c][0]
        radius[p] = betas[c][0]
    return alpha, trust, radius, heldout, fold, n_folds
