"""The privacy hooks of kernelized MOCHA (``privacy=``): the discrete Gaussian mechanism
on the nodes' updates and the fixed round schedule of a private fit."""

import numpy as np
from scipy import linalg, stats
from threadpoolctl import threadpool_limits

from .._class_vote import record_no_vote, run_class_vote, vote_evidence
from .._class_vote_pooled import split_budget_pooled
from .._kept_local import (
    choose_classifier,
    choose_regressor,
    cross_fitted_scores,
    local_name,
    one_se_choice,
)
from .._secure_noise import NoiseSource
from ..privacy import calibrate_discrete_gaussian, describe, epsilon_spent
from ._omega import _StoppingRule
from ._state import _PrivateRelease


class _PrivateSchedule(_StoppingRule):
    """The rounds of a private fit: no gap-based decision.

    The gap terms are not sent under ``privacy``, so the fit runs
    ``max_rounds`` rounds, with an Omega step every ``omega_update_every``
    rounds when Omega is learned (the curves are still recorded).
    """

    def omega_step_due(self, gap, primal):
        super().omega_step_due(gap, primal)
        self.w_step_done = False
        return self.learn and self.since_update >= self.every

    def before_omega_step(self, primal, dual, gram, sigma, lam, joint=None):
        super().before_omega_step(primal, dual, gram, sigma, lam, joint=joint)
        self.stop_before_step = False
        return False

    def without_omega_step(self, gap, primal, dual):
        super().without_omega_step(gap, primal, dual)
        return False


# What a private MOCHA fit treats as public (``privacy_public_``): not
# protected by the noise, known to the server and every node.
_MOCHA_PUBLIC = {
    "total_samples": "the total number of training samples n, through lambda = 1 / (C n) "
                     "(one number for the federation; a node's own size n_t is never "
                     "released: each message is the change of v_t itself, not scaled by n_t)",
    "class_set": "classes_, the set of labels present in the pooled data (one problem per "
                 "class, one-vs-rest)",
    "n_features": "the number of features",
    "feature_map": "the random Fourier features (drawn from random_state, "
                   "data-independent) and gamma (1 / n_features under privacy: the pooled "
                   "variance is not released)",
    "schedule": "the rounds (max_rounds), the Omega steps (every omega_update_every rounds) "
                "and each round's participating nodes (network faults drawn from "
                "random_state)",
    "omega": "Omega and every w_t the server sends, computed from the noisy releases "
             "only (post-processing; the Omega step's noise correction uses the public "
             "noise scale)",
}


# The noise-aware Omega step adopts a relation that is noise alone in at
# most this fraction of fits (Bonferroni over pairs and Omega steps).
_FALSE_RELATION_RATE = 1e-3


class _PrivateUpdates:
    """Discrete Gaussian mechanism on every node's update ``Delta v_t`` (primal modes).

    Each round a participating node clips its update (all problems together)
    to Frobenius norm ``B`` (``clip_norm``) and releases it through the
    discrete Gaussian mechanism (:class:`~skfed.privacy.DiscreteGaussianMechanism`):
    rounded to a grid of ``sigma / 2^20`` and added exact discrete Gaussian
    noise of standard deviation ``sigma`` per entry, drawn from the fit's
    secure source (:class:`~skfed._secure_noise.NoiseSource`: the operating
    system's CSPRNG, never ``random_state``).  Whatever its data, a clipped
    update moves by at most ``2 B``, so every release has sensitivity ``2 B``
    with respect to the node's whole data set (client-level privacy, which
    implies it for every one of its samples); ``sigma`` makes ``max_rounds``
    releases spend the budget (zCDP composition, converted to ``(epsilon,
    delta)``), and a node sends at most one update a round, so it never
    runs out.  With ``epsilon=inf`` nothing is clipped or noised, and the
    gap terms are sent as in the non-private fit (which it then equals).

    Parameters
    ----------
    spec : DifferentialPrivacy
    n_nodes, max_rounds, dim : int
        ``dim``: the entries of one update (``n_problems d'``).
    estimator_name : str
        For the warning of the testing switch (``insecure_noise_seed``).
    """

    def __init__(self, spec, n_nodes, max_rounds, dim, estimator_name="MOCHA", vote=False):
        # vote: a classifier's nodes hold the private class vote and its
        # pooled test, which take their public shares of the budget
        # (skfed._class_vote_pooled.split_budget_pooled)
        total, self.delta = spec.budget()
        self.epsilon, self.vote_epsilon, self.pooled_epsilon = split_budget_pooled(
            total, n_nodes, vote and getattr(spec, "local_estimator", None) is None)
        self.clip = float(spec.clip_norm)
        self.mechanism = calibrate_discrete_gaussian(
            self.epsilon, self.delta, 2.0 * self.clip, int(max_rounds), int(dim)
        )
        self.sigma = self.mechanism.sigma
        self.uses = np.zeros(n_nodes, dtype=np.int64)
        self.planned_steps = 1  # Omega steps of the fit (the protocol sets it)
        self.source = None
        if self.sigma > 0.0:
            self.source = NoiseSource.for_fit(spec, estimator_name)

    def release(self, update):
        """``update`` clipped to ``B`` and released through the mechanism."""
        norm = float(np.linalg.norm(update))
        if norm > self.clip:
            update = update * (self.clip / norm)
        return self.mechanism.apply(update, self.source)

    def privatize(self, active, results, totals):
        """The active nodes' releases: node t sends ``clip(Delta v_t) + noise``.

        The release is the change of ``v_t = sum_i alpha_ti x_ti / n_t``
        itself, which the server adds to its ``V`` as it is: no message is
        scaled by ``n_t``, so the node's size is not revealed (a release of
        ``(clip(Delta v_t) + noise) n_t`` would show it in the noise's
        scale).  Returns a :class:`~skfed.multitask._state._PrivateRelease`
        (the exact steps stay with the nodes).
        """
        if self.sigma == 0.0:
            # epsilon=inf: no noise, nothing to bound; the results go on as
            # they are (compressed ones included)
            self.uses[active] += 1
            return results
        dV = np.stack([dvs for dvs, _ in results], axis=1)
        released = np.empty_like(dV)
        for i, t in enumerate(active):
            self.uses[t] += 1
            released[:, i] = self.release(dV[:, i] / totals[t])
        return _PrivateRelease(active, released, dV, getattr(results, "deltas", None))

    def denoised_gram(self, V):
        """The noise-aware Omega step's Gram matrix ``G = V^T V``, or None.

        The server's ``V`` is the sum of the nodes' releases: node u's
        column carries ``uses_u`` independent noise vectors of variance
        ``sigma^2`` per entry (``s_u^2 = uses_u sigma^2``, public), so
        ``V^T V`` overestimates ``G_uu`` by ``dim s_u^2`` and its
        off-diagonal entries carry noise of standard deviation about
        ``sqrt(dim s_t^2 s_u^2 + G_tt s_u^2 + G_uu s_t^2)``.  The step
        subtracts the bias from the diagonal (floored at 0) and keeps an
        off-diagonal entry only where it exceeds ``z`` of those standard
        deviations, ``z`` the two-sided Bonferroni threshold at 0.1 % over
        the ``m (m - 1) / 2`` pairs and the fit's planned Omega steps
        (``planned_steps``; measured: at 5 % per step, one fit in five on
        HAR adopted a relation that was noise, and the noise of the other
        nodes entered its models): an entry that noise alone explains is
        taken as 0 (no relation).  When no pair survives, the noise
        dominates every relation, and the step keeps the current ``Sigma``
        (None): with the initial diagonal one every node keeps learning
        from its own exact share alone, the ``omega="independent"`` fit,
        rather than from noise.  All of it is post-processing of the
        releases.
        """
        dim = V.shape[0] * V.shape[2]
        m = V.shape[1]
        noisy = np.einsum("ktd,kud->tu", V, V)
        var = self.uses.astype(float) * self.sigma**2  # s_u^2 per entry
        diag = np.maximum(np.diag(noisy) - dim * var, 0.0)
        sd = np.sqrt(dim * np.outer(var, var) + np.outer(diag, var) + np.outer(var, diag))
        n_tests = max(m * (m - 1) // 2, 1) * max(int(self.planned_steps), 1)
        z = float(stats.norm.isf(_FALSE_RELATION_RATE / 2.0 / n_tests))
        keep = np.abs(noisy) > z * sd
        np.fill_diagonal(keep, False)
        self.last_kept = int(keep.sum() // 2)
        if not keep.any():
            return None
        gram = np.where(keep, noisy, 0.0)
        gram[np.diag_indices(m)] = diag
        return gram

    def finish(self, estimator):
        estimator.privacy_spent_ = epsilon_spent(self.mechanism, self.uses, self.delta)
        estimator.privacy_ = describe(
            self.mechanism, uses=self.uses, delta=self.delta,
            composition="one discrete Gaussian release of the clipped update per round the "
            "node takes part in, composed over its rounds (zCDP)",
            sigma=self.sigma, clip_norm=self.clip, level="client (the node's whole data set)",
            noise_source=("none (epsilon=inf)" if self.source is None
                          else self.source.describe()),
        )
        estimator.privacy_guarantee_void_ = (
            self.source is not None and not self.source.secure
        )
        estimator.privacy_public_ = dict(_MOCHA_PUBLIC)
        # for the kept models' class vote (kept_node_models), which runs
        # after the rounds: its budget share and the fit's secure source
        estimator._class_vote_plan = (self.vote_epsilon, self.source, self.pooled_epsilon)


# ----------------------------------------------------------------------------
# The model each node keeps (issue 27): chosen on its own data, never sent.
# ----------------------------------------------------------------------------
# Candidate C values of a node's own model (objective: mean loss + 1 / (2 C
# n_t) ||w||^2, scikit-learn's C for the node alone), and of the trust in the
# other nodes' part of the server's model.
NODE_C = (0.1, 1.0, 10.0)
# The losses a classifier node tries alone: the logistic loss (scikit-learn's
# LogisticRegression) and the squared hinge (LinearSVC's loss): per node
# either can win (HAR: LinearSVC 0.990 against LogisticRegression 0.984).
NODE_LOSSES = ("logistic", "squared_hinge")
NODE_FOLDS = 5


def _node_loss(margin, s, loss):
    """Mean loss, its first and (generalized) second derivatives in the margin."""
    m = margin.shape[0]
    if loss == "squared":
        r = margin - s
        return 0.5 * float(r @ r) / m, r / m, np.full(m, 1.0 / m)
    if loss == "logistic":
        z = s * margin
        p = np.exp(-np.logaddexp(0.0, z))  # sigmoid(-z)
        return float(np.logaddexp(0.0, -z).sum()) / m, -s * p / m, p * (1.0 - p) / m
    slack = np.maximum(0.0, 1.0 - s * margin)  # squared hinge
    return float(slack @ slack) / m, -2.0 * s * slack / m, 2.0 * (slack > 0) / m


def _newton(D, s, offset, pen, loss):
    """Minimize ``mean loss(s, offset + D b) + 1/2 sum_j pen_j b_j^2`` by Newton's
    method with backtracking (the squared hinge: its generalized Hessian)."""
    b = np.zeros(D.shape[1])

    def value(b):
        return _node_loss(offset + D @ b, s, loss)[0] + 0.5 * float(pen @ (b * b))

    f = value(b)
    for _ in range(100):
        _, g1, h1 = _node_loss(offset + D @ b, s, loss)
        grad = D.T @ g1 + pen * b
        if np.max(np.abs(grad)) < 1e-10:
            break
        hess = (D * h1[:, None]).T @ D
        hess[np.diag_indices_from(hess)] += pen + 1e-10
        step = linalg.solve(hess, grad, assume_a="pos")
        decrease = float(grad @ step)
        t = 1.0
        while True:
            trial = b - t * step
            f_new = value(trial)
            if f_new <= f - 1e-4 * t * decrease or t < 1e-10:
                break
            t *= 0.5
        b, f = trial, f_new
        if loss == "squared" or t * np.max(np.abs(step)) < 1e-12:
            break
    return b


class _NodeDesign:
    """A node's design reduced to the span of its rows.

    The penalized weights of every candidate (``theta_w - prior_w``) lie in
    the span of the node's rows (the representer theorem: the loss sees
    them only through ``Z theta``, the penalty is a norm), so they are fit
    in an orthonormal basis ``Q`` of that span: ``r <= n_t`` coordinates
    instead of ``d'`` (HAR: 260 samples, 562 features), for the whole fit
    and every fold (a fold's rows span a subspace of it).
    """

    def __init__(self, Z, penalized):
        F = Z[:, :penalized]
        self.Q = None
        if penalized > Z.shape[0]:
            self.Q, R = linalg.qr(F.T, mode="economic")
            F = R.T  # = F Q
        self.F_full = Z[:, :penalized]
        self.D = np.hstack([F, Z[:, penalized:]])
        self.penalized = penalized
        self.n_pen = F.shape[1]

    def fit(self, rows, s, prior, lam, loss):
        """The candidate fit on ``rows`` (a boolean mask or slice); returns theta."""
        pen = np.zeros(self.D.shape[1])
        pen[: self.n_pen] = lam
        offset = self.F_full[rows] @ prior[: self.penalized]
        b = _newton(self.D[rows], s, offset, pen, loss)
        theta = np.zeros(self.F_full.shape[1] + self.D.shape[1] - self.n_pen)
        w = b[: self.n_pen] if self.Q is None else self.Q @ b[: self.n_pen]
        theta[: self.penalized] = prior[: self.penalized] + w
        theta[self.penalized:] = b[self.n_pen:]
        return theta


def _node_fit(Z, s, prior, lam, penalized, loss):
    """A node's model for one problem: the minimizer of ``mean loss(s z.theta)
    + lam / 2 ||theta_w - prior_w||^2`` (``theta_w`` the first ``penalized``
    entries: the intercept column is not penalized)."""
    return _NodeDesign(Z, penalized).fit(slice(None), s, prior, lam, loss)


def _node_error(Z, s, theta, loss):
    """Held-out error per sample: 0-1 for classifiers (compares losses),
    squared error for the regressor."""
    f = Z @ theta
    if loss == "squared":
        return (f - s) ** 2
    return (s * f <= 0).astype(float)


def node_candidates(loss, C, m_t, has_prior):
    """The candidates ``(name, loss, lam, trusts_prior)`` of a node of ``m_t`` samples.

    The first (the reference of the one-standard-error rule) is the fit's
    own model: with no ``has_prior`` (no task relation survived the noise)
    the fit's loss at its ``C`` alone, then the node's other losses and C
    values alone; with ``has_prior`` the fit's loss at its ``C`` trusting
    the other nodes' part of the server's model, then the candidates alone,
    then the trusting ones at the other C values.  So as the noise vanishes
    a node falls back on the collaborative model, not on itself alone
    (continuity: ``benchmarks/private_mocha_continuity.py``, 60 nodes of 6
    samples at epsilon 1e12: 0.840 against 0.739 with the node alone first,
    non-private MOCHA 0.884).
    """
    losses = (loss,) if loss == "squared" else (loss,) + tuple(
        x for x in NODE_LOSSES if x != loss)
    cs = (float(C),) + tuple(c for c in NODE_C if c != float(C))
    cands = [(f"{x} C={c:g}", x, 1.0 / (c * m_t), False) for x in losses for c in cs]
    if has_prior:
        trusting = [(f"{loss} C={c:g} +others", loss, 1.0 / (c * m_t), True) for c in cs]
        cands = trusting[:1] + cands + trusting[1:]
    return cands


def choose_node_models(Z, Y, offsets, others, loss, C, fit_intercept, rng, raw_X=None,
                       reference=None, vote=None, estimator=None):
    """Each node's kept model of a private MOCHA fit, chosen on its own data.

    A node's own model costs no privacy: it is never sent, and uses the
    node's exact samples (which it needs no protection from) and, as
    post-processing of the noisy releases, ``others``, the part of the
    server's model of that node that the other nodes' releases make
    (``sum_{u != t} sigma_tu v~_u / lambda``; zero when no task relation
    survived the noise).  Node t picks, per problem, the candidate of
    :func:`node_candidates` with the lowest ``NODE_FOLDS``-fold
    cross-validated error on its own samples when it beats the first (the
    fit's own loss and C) by more than one standard error, else the first
    (:func:`skfed._kept_local.one_se_choice` against candidate 0), then
    refits it on all of them.

    Parameters
    ----------
    Z : ndarray of shape (n, d')
        The node-ordered features (the intercept column last when
        ``fit_intercept``).
    Y : ndarray of shape (n_problems, n)
        Labels in {-1, +1} (classifier) or targets (regressor).
    offsets : ndarray of shape (n_nodes + 1,)
    others : ndarray of shape (n_problems, n_nodes, d')
    loss : str
    C : float
    fit_intercept : bool
    rng : numpy.random.RandomState
        Public randomness (the folds).
    raw_X : ndarray of shape (n, n_features), default=None
        The node-ordered raw features: when given, each node also compares
        the collaborative model it chose with the standard models it can
        train alone on them (:mod:`skfed._kept_local`: LinearSVC, the rbf
        SVM in the primal on public random features and LogisticRegression,
        or Ridge, kernel ridge on those features and LassoCV for
        ``loss="squared"``; none stores a training row)
        on the same folds (classifiers: the simplest within one standard
        error of the lowest held-out error,
        :func:`skfed._kept_local.kept_choice`; regressors: a model trained
        alone only when better by one standard error).
    reference : estimator, default=None
        ``DifferentialPrivacy.local_estimator``: each node keeps its fit of
        it unless the collaborative model is significantly better at level
        0.05 / n_nodes (:func:`skfed._kept_local.choose_reference`; the
        collaborative model's held-out scores are cross-fitted,
        :func:`skfed._kept_local.cross_fitted_scores`).
    vote : tuple, default=None
        ``(vote_epsilon, source, pooled_epsilon[, tally])``: a classifier's
        nodes (with ``raw_X`` and no ``reference``) hold the class vote and
        its pooled test (:func:`skfed._class_vote.run_class_vote`,
        :mod:`skfed._class_vote_pooled`; ``vote_epsilon`` 0: no vote is held
        and each node keeps its own rule) on the fit's secure ``source``,
        the ballots and statistics sent in the round ``tally`` counts;
        ``estimator`` gets its results.
    estimator : estimator, default=None
        With ``vote``: the fitted estimator (``elected_local_class_``,
        ``privacy_spent_``, ``privacy_``).

    Returns
    -------
    W : ndarray of shape (n_problems, n_nodes, d')
        The collaborative kept models (also of a node that keeps a Local
        model).
    choice : ndarray of shape (n_nodes, n_problems), dtype object
        The chosen candidate's name per node and problem (``"local rff-LinearSVC"``
        and so on for every problem of a node that keeps a Local model).
    kept_local : ndarray of shape (n_nodes,), dtype object
        The Local model each node keeps, or None.
    """
    P, m = Y.shape[0], len(offsets) - 1
    d = Z.shape[1]
    penalized = d - int(bool(fit_intercept))
    W = np.empty((P, m, d))
    choice = np.empty((m, P), dtype=object)
    kept_local = np.full(m, None, dtype=object)
    zero = np.zeros(d)
    # The class vote (skfed._class_vote.run_class_vote) of a classifier's
    # nodes without a given Local model: every node's evidence first, then
    # the election, then each node's kept model under the elected option.
    voting = (vote is not None and vote[0] > 0.0 and raw_X is not None and reference is None
              and loss != "squared")
    if estimator is not None and not voting and loss != "squared":
        record_no_vote(estimator)
    evidence = [None] * m
    for t in range(m):
        Zt = np.asarray(Z[offsets[t]:offsets[t + 1]], dtype=np.float64)
        m_t = Zt.shape[0]
        n_folds = min(NODE_FOLDS, m_t)
        fold = (np.arange(m_t) % max(n_folds, 1))[rng.permutation(m_t)]
        design = _NodeDesign(Zt, penalized)
        held = np.zeros((P, m_t))  # held-out scores of the chosen candidates
        for p in range(P):
            s = np.asarray(Y[p, offsets[t]:offsets[t + 1]], dtype=np.float64)
            prior = others[p, t]
            cands = node_candidates(loss, C, m_t, bool(np.any(prior != 0.0)))
            best = 0
            if n_folds >= 2 and (len(cands) > 1 or raw_X is not None):
                err = np.zeros((len(cands), m_t))
                score = np.zeros((len(cands), m_t))
                for f in range(n_folds):
                    test = fold == f
                    for c, (_, x, lam, trust) in enumerate(cands):
                        theta = design.fit(~test, s[~test], prior if trust else zero, lam, x)
                        score[c, test] = Zt[test] @ theta
                        err[c, test] = _node_error(Zt[test], s[test], theta, x)
                # one standard error against the first: on nodes of tens of
                # samples a plain minimum over six candidates follows the
                # folds' noise (School, 139 schools: 0.708 against 0.712)
                best = one_se_choice(err, 0)
                # compared with the Local models: on each fold the candidate
                # the same rule picks on the other folds (the chosen one's
                # own held-out errors are optimistic, it was picked on them)
                held[p] = cross_fitted_scores(err, score, fold, n_folds)[0]
            name, x, lam, trust = cands[best]
            W[p, t] = design.fit(slice(None), s, prior if trust else zero, lam, x)
            choice[t, p] = name
        if raw_X is None or n_folds < 2:
            continue
        Xt = np.asarray(raw_X[offsets[t]:offsets[t + 1]])
        seed = int(rng.randint(2**31 - 1))
        if loss == "squared":
            kept = choose_regressor(Xt, np.asarray(Y[0, offsets[t]:offsets[t + 1]], float),
                                    (held[0] - Y[0, offsets[t]:offsets[t + 1]]) ** 2,
                                    fold, n_folds, seed, reference=reference, node=t,
                                    n_nodes=m)
        else:
            S = np.asarray(Y[:, offsets[t]:offsets[t + 1]])
            codes = (S[0] > 0).astype(np.intp) if P == 1 else np.argmax(S, axis=0)
            if voting:
                evidence[t] = vote_evidence(Xt, codes, held, fold, n_folds, seed)
                continue
            kept = choose_classifier(Xt, codes, held, fold, n_folds, seed,
                                     reference=reference, node=t, n_nodes=m)
        if kept is not None:
            kept_local[t] = kept
            choice[t, :] = local_name(kept)
    if voting:
        vote_epsilon, source, pooled_epsilon = vote[:3]
        kept_local = run_class_vote(estimator, evidence, vote_epsilon, source,
                                    tally=vote[3] if len(vote) > 3 else None,
                                    pooled_epsilon=pooled_epsilon)
        for t, kept in enumerate(kept_local):
            if kept is not None:
                choice[t, :] = local_name(kept)
    return W, choice, kept_local


def kept_node_models(estimator, state, sigma, lam, raw_X=None):
    """The hook of a private fit's ``_store_model``: every node's kept model
    (:func:`choose_node_models`) and the choices (``refit_choice_``); sets
    ``kept_local_models_`` (the Local model a node keeps instead, or None;
    compared only when the node-ordered raw features ``raw_X`` are given).

    ``others`` is the server's ``W = V Sigma / lambda`` less each node's own
    noisy share ``sigma_tt v~_t / lambda``: what the node learns from the
    others' releases (post-processing).  The folds are public randomness
    from ``random_state``.
    """
    from sklearn.utils import check_random_state

    W = state.weights(sigma, lam)
    others = W - (np.diag(np.asarray(sigma)) / lam)[None, :, None] * state.V
    others[np.abs(others) <= 1e-12 * max(float(np.abs(W).max()), 1.0)] = 0.0
    # small dense solves: one BLAS thread (threads only contend on them)
    with threadpool_limits(limits=1, user_api="blas"):
        W, choice, estimator.kept_local_models_ = choose_node_models(
            state.Z, state.Y, state.layout.offsets, others, estimator.loss, estimator.C,
            estimator.fit_intercept, check_random_state(estimator.random_state),
            raw_X=raw_X, reference=getattr(estimator.privacy, "local_estimator", None),
            vote=estimator.__dict__.pop("_class_vote_plan", None), estimator=estimator,
        )
    return W, choice
