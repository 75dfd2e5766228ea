"""The Omega step of kernelized MOCHA and the math around it.

The closed-form step (:func:`omega_update`, factored for linear mode with
many nodes: :class:`_LowRankSigma`), the CoCoA+ scaling ``rho``
(:func:`_rho`), the joint objectives that certify the alternation
(:func:`joint_objectives`), the server's line search along a round's steps
(:func:`line_search_step`, :func:`conjugate_change`) and the stopping rule
that decides when an Omega step is due and when the fit stops
(:class:`_StoppingRule`, used by every engine's loop).
"""

import numpy as np
from scipy import linalg
from threadpoolctl import ThreadpoolController


# Eigenvalues of W^T W below this fraction of the largest are raised to it
# before the square root (keeps Omega = Sigma^{-1} finite).
_OMEGA_EIG_FLOOR = 1e-7


# With omega="learn", the W-step (at fixed Omega) counts as finished, and
# the Omega step is taken, once its relative duality gap is at most this
# factor times tol.
_W_STEP_TOL_FACTOR = 10.0


_TINY = 1e-300


# With the line search, the nodes scale their subproblems by this factor
# times the coupling ratio measured on the last round's steps (within [1,
# rho]).  Measured (rounds to the stopping rule, factor 1 / 2 / 3 / rho):
# HAR sitting RFF 1000: 103 / 74 / 82 / 254; Nystroem 100: 78 / 62 / 58 /
# 175; 100 bench_scale nodes, rounds of the second W-step: 808 / 632 / 736 /
# > 995.  Held out: School RFF 180 / 131 (rho: 845), Landmine linear 13 / 16
# (rho: 24).
_COUPLING_MARGIN = 2.0


_CONTROLLER = []


def _blas_controller():
    """One cached threadpoolctl controller (building one inspects every library)."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def _rho(sigma):
    """The safe CoCoA+ scaling ``rho = lambda_max(D^-1/2 Sigma D^-1/2)``, ``D = diag(Sigma)``.

    The nodes' separable subproblems bound the coupling term
    ``alpha^T K alpha`` of the dual by ``rho sum_t sigma_tt alpha_t^T K_tt
    alpha_t``; that bound holds for every data set exactly when ``Sigma <=
    rho diag(Sigma)`` (``K = Z^T (Sigma kron I) Z`` with ``Z`` block
    diagonal), and this ``rho`` is the smallest such scalar.  It is at most
    MOCHA's Gershgorin bound ``max_t sum_u |sigma_tu| / sigma_tt`` (equal
    for a diagonal Sigma, where it is 1), so every W-step is damped less.
    """
    if isinstance(sigma, _LowRankSigma):
        return sigma.rho()
    scale = 1.0 / np.sqrt(np.diag(sigma))
    with _blas_controller().limit(limits=1, user_api="blas"):
        top = linalg.eigvalsh(sigma * scale[:, None] * scale[None, :])[-1]
    # Never above the Gershgorin bound (round-off) and never below 1 (the
    # diagonal alone already needs 1).
    gershgorin = float(np.max(np.abs(sigma).sum(axis=1) / np.diag(sigma)))
    return float(min(max(top * (1.0 + 1e-12), 1.0), gershgorin))


def omega_update(gram, *, floor=_OMEGA_EIG_FLOOR):
    """The closed-form Omega step: ``Sigma = (W^T W)^{1/2} / tr((W^T W)^{1/2})``.

    Parameters
    ----------
    gram : ndarray of shape (n_nodes, n_nodes)
        ``W^T W`` (symmetrised here).
    floor : float, default=1e-7
        Eigenvalues of ``W^T W`` below ``floor`` times the largest one are
        raised to it, so ``Sigma`` stays positive definite.

    Returns
    -------
    sigma : ndarray of shape (n_nodes, n_nodes) or None
        The new ``Sigma = Omega^{-1}`` (trace 1); None when ``W = 0``.
    """
    gram = 0.5 * (gram + gram.T)
    # One BLAS thread: the matrices are n_nodes x n_nodes, and threaded
    # LAPACK only slows such sizes down.
    with _blas_controller().limit(limits=1, user_api="blas"):
        evals, evecs = linalg.eigh(gram)
        top = evals[-1]
        if not top > 0:
            return None
        evals = np.maximum(evals, floor * top)
        root = (evecs * np.sqrt(evals)) @ evecs.T
    root = 0.5 * (root + root.T)
    return root / np.trace(root)


class _LowRankSigma:
    """``Sigma = f I + U diag(s) U^T`` (m x m, never formed; ``U`` orthonormal).

    In linear mode with ``n_problems * d' < m``, ``W^T W`` has rank ``r <=
    n_problems d'``, so the exact Omega step (:func:`omega_update`: square
    root with the eigenvalue floor, trace one) *is* a multiple of the
    identity plus a rank-``r`` term: this keeps it in ``O(m r)`` memory and
    applies it to ``V`` in ``O(m r d')``.  The initial ``Sigma = I / m`` is
    the case ``r = 0``.
    """

    def __init__(self, f, U, s):
        self.f = float(f)
        self.U = U
        self.s = s
        self.m = U.shape[0]

    @classmethod
    def scaled_identity(cls, m):
        return cls(1.0 / m, np.zeros((m, 0)), np.zeros(0))

    @classmethod
    def omega_update(cls, M, *, floor=_OMEGA_EIG_FLOOR):
        """:func:`omega_update` of ``W^T W = M M^T`` (``M``: m x q), in ``O(m q^2)``."""
        m = M.shape[0]
        with _blas_controller().limit(limits=1, user_api="blas"):
            Q, S, _ = linalg.svd(M, full_matrices=False)
        evals = S * S
        top = evals[0] if evals.size else 0.0
        if not top > 0:
            return None
        base = np.sqrt(floor * top)
        roots = np.sqrt(np.maximum(evals, floor * top)) - base
        trace = m * base + roots.sum()
        return cls(base / trace, Q, roots / trace)

    def copy(self):
        return type(self)(self.f, self.U.copy(), self.s.copy())

    def diag(self):
        return self.f + (self.U * self.U) @ self.s

    def apply(self, V):
        """``Sigma`` applied to the node axis of ``V`` (n_problems, m, d)."""
        out = self.f * V
        if self.s.size:
            proj = np.einsum("tr,ktd->krd", self.U, V)
            out += np.einsum("tr,krd->ktd", self.U * self.s, proj)
        return out

    def dense(self):
        """The m x m matrix (``O(m^2)`` memory: only on request)."""
        out = (self.U * self.s) @ self.U.T
        out[np.diag_indices(self.m)] += self.f
        return out

    def inverse_dense(self):
        """``Omega = Sigma^{-1} = I / f + U diag(1 / (f + s) - 1 / f) U^T`` (m x m)."""
        out = (self.U * (1.0 / (self.f + self.s) - 1.0 / self.f)) @ self.U.T
        out[np.diag_indices(self.m)] += 1.0 / self.f
        return out

    def rho(self):
        """:func:`_rho`: top eigenvalue of ``f D^-1 + B diag(s) B^T``, ``B = D^-1/2 U``.

        Lanczos on the ``O(m r)`` operator (dense below 500 nodes), padded
        by ``1e-8`` relative (a Ritz value is a lower bound), and capped by
        the cheap bound ``max(f / D) + lambda_max(S^1/2 B^T B S^1/2)``.
        """
        if not self.s.size:
            return 1.0
        D = self.diag()
        a = self.f / D
        B = self.U / np.sqrt(D)[:, None]
        root = np.sqrt(self.s)
        with _blas_controller().limit(limits=1, user_api="blas"):
            small = (B * root).T @ (B * root)
            bound = float(a.max() + linalg.eigvalsh(small)[-1])
            if self.m < 500:
                top = linalg.eigvalsh(np.diag(a) + (B * self.s) @ B.T)[-1] * (1.0 + 1e-12)
            else:
                from scipy.sparse.linalg import LinearOperator, eigsh

                op = LinearOperator(
                    (self.m, self.m), dtype=np.float64,
                    matvec=lambda x: a * x.ravel() + B @ (self.s * (B.T @ x.ravel())),
                )
                top = eigsh(op, k=1, which="LA", tol=1e-12, v0=np.ones(self.m),
                            return_eigenvectors=False)[0] * (1.0 + 1e-8)
        return float(min(max(top, 1.0), max(bound, 1.0)))


def _sigma_diag(sigma):
    return sigma.diag() if isinstance(sigma, _LowRankSigma) else np.diag(sigma)


def _task_gram(gram, sigma, lam):
    """``W^T W = Sigma G Sigma / lambda^2`` from the nodes' Gram matrix ``G``."""
    with _blas_controller().limit(limits=1, user_api="blas"):
        return sigma @ gram @ sigma / lam**2


def joint_objectives(primal, dual, gram, sigma, lam):
    """Primal and dual objectives of the joint problem in ``(W, Omega)``.

    For the models ``W = W(alpha, Sigma)`` and the dual variables ``alpha``:

    - primal: the objective at ``W`` and the best ``Omega`` for it,
      ``loss(W) + (lambda / 2) ||W||_*^2`` (``min`` over trace-one
      ``Sigma`` of ``tr(W Sigma^{-1} W^T)`` is the squared trace norm);
    - dual: ``-sum conjugates - lambda_max(G) / (2 lambda)``, the minimum
      over trace-one ``Sigma`` of the fixed-Omega dual (``alpha^T K alpha``
      is ``tr(Sigma G)``, ``G[t, u] = sum_ij alpha_ti alpha_uj k(x_ti, x_uj) /
      (n_t n_u)``).

    The problem is convex in ``(W, Sigma)`` and the dual is concave in
    ``alpha`` and linear in ``Sigma`` over a compact set, so the minimax
    theorem gives: joint primal >= optimum >= joint dual.  Their
    difference (the joint duality gap) bounds how far the fitted model's
    objective is from the optimum of the whole alternation.

    Parameters
    ----------
    primal, dual : float
        The fixed-Omega objectives at ``Sigma``: ``loss(W) + tr(Sigma G) /
        (2 lambda)`` and ``-sum conjugates - tr(Sigma G) / (2 lambda)``.
    gram : ndarray of shape (n_nodes, n_nodes)
        ``G`` (summed over the binary problems).
    sigma : ndarray of shape (n_nodes, n_nodes)
        The ``Sigma`` of ``W``.
    lam : float

    Returns
    -------
    primal, dual : float
    """
    gram = 0.5 * (gram + gram.T)
    with _blas_controller().limit(limits=1, user_api="blas"):
        top = max(float(linalg.eigvalsh(gram)[-1]), 0.0)
        evals = linalg.eigvalsh(_task_gram(gram, sigma, lam))
    half_cross = float(np.sum(sigma * gram)) / (2.0 * lam)  # tr(Sigma G) / (2 lambda)
    trace_norm = float(np.sqrt(np.maximum(evals, 0.0)).sum())
    return (primal - half_cross + 0.5 * lam * trace_norm**2,
            dual + half_cross - top / (2.0 * lam))


def line_search_step(linear, quadratic, cross, curvature, lam):
    """The step ``s`` in [0, 1] that maximizes the dual along the round's direction.

    Along ``alpha + s dalpha`` (every active node's full local step, scaled
    by one ``s``) the dual at fixed ``Sigma`` is, per binary problem,
    ``D(s) = D(0) - (linear s + quadratic s^2) - (s cross + s^2 curvature / 2)
    / lambda``: the change of the conjugate sum ``sum_t (1 / W_t) sum_i s_ti
    l*(-g_ti)`` (its two coefficients summed over the nodes) and of the
    quadratic term ``<V, Sigma V> / (2 lambda)`` (``cross = <dV, Sigma V>``,
    ``curvature = <dV, Sigma dV>``).  ``D`` is concave, so the maximizer
    clipped to [0, 1] is the best step in the segment; every point of the
    segment is feasible (the dual domains are convex) and ``s = 0`` keeps
    ``D(0)``, so the dual never decreases.

    Returns
    -------
    steps : ndarray of shape (n_problems,)
    """
    slope = -(np.asarray(linear) + np.asarray(cross) / lam)  # D'(0)
    bend = 2.0 * np.asarray(quadratic) + np.asarray(curvature) / lam  # -D''
    steps = np.ones_like(slope, dtype=np.float64)
    curved = bend > 0.0
    steps[curved] = np.clip(slope[curved] / bend[curved], 0.0, 1.0)
    steps[~curved & (slope <= 0.0)] = 0.0
    return steps


# Coefficients of the conjugate's change along a step that a node sends:
# the hinge and logistic ones use the change at the full step only.
_CONJUGATE_COEFFICIENTS = {"hinge": 1, "logistic": 1, "squared_hinge": 2, "squared": 2}


def conjugate_change(loss, Y, sw, g, dg, weights):
    """Coefficients of the conjugate sum's change along ``g + s dg``.

    ``sum_i weights_i [l*(-(g_i + s dg_i)) - l*(-g_i)] = linear s +
    quadratic s^2`` per binary problem, with ``weights = s_ti / W_t`` (the
    dual's weights); each node computes its own terms and sends its
    coefficients with its update (one number per problem for the hinge and
    logistic losses, two for the others).  The hinge conjugate ``-y g`` is
    linear in ``g``, the squared (``g^2 / 2 - g y``) and squared-hinge
    (``-a + a^2 / 4``, ``a = y g``) ones quadratic: their coefficients are
    exact, computed from ``dg`` itself (not as differences of sums, which
    would lose the small changes near the optimum to round-off).  The
    logistic conjugate (an entropy) is neither: its chord (``quadratic =
    0``, ``linear`` the change at ``s = 1``) lies above it by convexity, so
    the step maximizes a lower bound of the dual that is exact at ``s = 0``
    and ``s = 1``, and is still an ascent step.

    Parameters
    ----------
    loss : str
        ``"hinge"``, ``"squared_hinge"``, ``"logistic"`` or ``"squared"``.
    Y, g, dg : ndarray of shape (n_problems, n_samples)
    weights : ndarray of shape (n_samples,)

    Returns
    -------
    linear, quadratic : ndarray of shape (n_problems,)
    """
    if loss == "hinge":
        return -(Y * dg) @ weights, np.zeros(Y.shape[0])
    if loss == "squared":
        return ((g - Y) * dg) @ weights, 0.5 * (dg * dg) @ weights
    if loss == "squared_hinge":
        return (Y * dg * (0.5 * Y * g - 1.0)) @ weights, 0.25 * (dg * dg) @ weights
    from scipy.special import xlogy  # logistic: the chord

    def entropy(a):
        return xlogy(a, a) + xlogy(1.0 - a, 1.0 - a)

    a = np.clip(Y * g, 0.0, 1.0)
    a_new = np.clip(Y * (g + dg), 0.0, 1.0)
    moved = dg != 0.0
    change = np.where(moved, entropy(a_new) - entropy(a), 0.0)
    return change @ weights, np.zeros(Y.shape[0])


def _check_omega(omega, n_nodes):
    """Validate a user-given Omega and return ``(omega, sigma)`` in float64."""
    try:
        omega = np.asarray(omega, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("omega must be 'learn', 'independent' or a numeric array.") from exc
    if omega.shape != (n_nodes, n_nodes):
        raise ValueError(
            f"omega must be an (n_nodes, n_nodes) = ({n_nodes}, {n_nodes}) matrix, "
            f"rows and columns in the order of nodes_; got shape {omega.shape}."
        )
    if not np.all(np.isfinite(omega)):
        raise ValueError("omega contains NaN or infinite values.")
    scale = max(1.0, float(np.abs(omega).max()))
    if np.abs(omega - omega.T).max() > 1e-10 * scale:
        raise ValueError("omega must be symmetric.")
    omega = 0.5 * (omega + omega.T)
    try:
        linalg.cholesky(omega, lower=True)
    except linalg.LinAlgError as exc:
        raise ValueError("omega must be positive definite.") from exc
    sigma = linalg.inv(omega)
    sigma = 0.5 * (sigma + sigma.T)
    return omega, sigma


class _StoppingRule:
    """When to take an Omega step and when to stop (every engine's loop).

    Fixed Omega: stop when the duality gap is at most ``tol`` times the
    primal objective.  Learned Omega (the alternation of W- and Omega
    steps): the W-step counts as finished when its relative duality gap at
    the current Omega is at most ``10 tol``; the Omega step is due then (or
    after ``omega_update_every`` rounds, if set).  At a due step the engine
    first reports the joint objective of the models the W-step reached
    (:meth:`before_omega_step`: ``loss(W) + (lambda / 2) ||W||_*^2``, the
    objective of ``W`` with its best Omega, and the joint dual of the dual
    variables, both from :func:`joint_objectives`).  The fit stops there,
    *without* taking the step (the returned models are those ``W``, the
    returned Omega the best one for them, which the step computes), when
    after a finished W-step

    - that joint objective changed by at most ``tol`` (relative) since the
      previous finished W-step's Omega step, or
    - the certified joint gap, that objective minus the best joint dual
      seen so far, is at most ``tol`` times it.

    The joint objectives of successive W-steps' models form the
    majorize-minimize sequence of the alternation (each Omega step gives
    the W-step a problem that majorizes the joint objective and touches it
    at the previous models), so they decrease up to the W-steps' own gaps,
    unlike the objective just after an Omega step, which keeps the dual
    variables and so moves the models.
    """

    def __init__(self, estimator, learn):
        self.tol = float(estimator.tol)
        self.every = estimator.omega_update_every
        self.learn = learn
        self.since_update = 0
        self.w_step_done = False
        self.stepped = False
        self.joint = None  # (primal, dual) of the joint problem, last known
        self.before = None  # (primal, dual) of the models the last W-step reached
        self.best_dual = -np.inf  # best joint dual seen (a lower bound on the optimum)
        self.last_done = None  # joint objective before the last finished W-step's Omega step
        self.last_change = None  # its relative change between finished W-steps
        self.stop_before_step = False  # the fit stopped at a due Omega step, not taking it
        self.curve = []  # joint objective of the W-step's models at every due Omega step

    def omega_step_due(self, gap, primal):
        """Count the round; True when an Omega step follows it."""
        self.since_update += 1
        self.stepped = False
        self.curve.append(np.nan)
        self.w_step_done = gap <= _W_STEP_TOL_FACTOR * self.tol * abs(primal)
        return self.learn and (
            self.w_step_done or (self.every is not None and self.since_update >= self.every)
        )

    def before_omega_step(self, primal, dual, gram, sigma, lam, joint=None):
        """Record the models the W-step reached (objectives at the current Sigma,
        before the due Omega step); True to stop without taking the step.

        ``joint``: the joint objectives when computed without ``gram``
        (factored Sigma)."""
        self.before = joint_objectives(primal, dual, gram, sigma, lam) if joint is None else joint
        self.joint = self.before
        self.best_dual = max(self.best_dual, self.before[1])
        self.curve[-1] = self.before[0]
        stop = False
        if self.w_step_done:
            value = self.before[0]
            if self.last_done is not None:
                self.last_change = abs(self.last_done - value) / max(abs(value), _TINY)
                stop = self.last_change <= self.tol
            stop = stop or value - self.best_dual <= self.tol * abs(value)
            self.last_done = value
        self.stop_before_step = stop
        return stop

    def after_omega_step(self, primal, dual, gram, sigma, lam, joint=None):
        """Record the Omega step (objectives at the new Sigma); False: the
        stop is decided before the step (:meth:`before_omega_step`)."""
        self.since_update = 0
        self.stepped = True
        after = joint_objectives(primal, dual, gram, sigma, lam) if joint is None else joint
        self.best_dual = max(self.best_dual, after[1])
        return False

    @property
    def joint_gap(self):
        """The certified joint gap of the last recorded models (NaN if none)."""
        if self.joint is None:
            return np.nan
        return self.joint[0] - max(self.best_dual, self.joint[1])

    def without_omega_step(self, gap, primal, dual):
        """A round without Omega step; True to stop (fixed Omega only)."""
        if self.learn:
            return False
        self.joint = (primal, dual)
        self.curve[-1] = primal
        return gap <= self.tol * abs(primal)
