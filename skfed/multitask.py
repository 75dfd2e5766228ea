"""Federated kernel multi-task learning with a learned task-relationship matrix.

Kernelized MOCHA (Caldas, Smith & Talwalkar, "Federated Kernelized
Multi-Task Learning"; MOCHA: Smith, Chiang, Sanjabi & Talwalkar, NeurIPS
2017).  Every node t learns its own model ``w_t``; the models are tied by a
task-relationship matrix ``Omega`` that is learned too::

    min_{W, Omega}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                    + (lambda / 2) tr(W Omega W^T)
    s.t.  Omega^{-1} positive semi-definite,  tr(Omega^{-1}) = 1

solved by alternating between ``W`` (distributed dual coordinate ascent:
each round every participating node solves its local subproblem and ships
only what changed) and ``Omega`` (closed form, at the server).

Protocol and byte counts
------------------------
A server (endpoint ``n_nodes``) coordinates; nodes never talk to each
other.  Every round, each participating (not dropped) node gets one message
from the server and sends one back; what they hold depends on the mode.
Data vectors (support vectors, landmarks) travel in the data's dtype (4
bytes a value in float32, 8 in float64); every other number (dual changes,
model vectors, ``Sigma`` rows, gap terms) is a float64, every sample index
an int32; each message also pays the network's header (see
:mod:`skfed.network`).

*Exact kernel mode* (``approximation=None``, any kernel but ``"linear"``).
Node t keeps ``S_t[i, u] = sum_j (alpha_uj / n_u) k(x_uj, x_ti)``, the
contribution of node u's support vectors to its own margins, so that
``f_t(x_ti) = (1/lambda) sum_u sigma_tu S_t[i, u]``.

- server -> node u: its row of ``Sigma = Omega^{-1}`` and ``rho`` (m + 1
  floats) when they changed since u last got them; then, for every support
  vector j of another node t with ``sigma_tu != 0`` whose dual variable
  changed since u was last told, its index and its net change (one float
  per binary problem), preceded by the vector itself (d values) the first
  time u hears of it.  A node caches every vector it has received, so a
  vector crosses each link once.
- node t -> server: for every sample whose dual variable changed this round,
  its index and change (one float per binary problem), preceded by the
  vector the first time it is sent; plus three floats of gap terms.
- an Omega update (when the W-step's relative gap falls to ``10 tol``, or
  every ``omega_update_every`` rounds if set) costs one more exchange per participating node: the
  server delivers every pending change (whatever ``Sigma`` says), the node
  answers with its row of ``G[t, u] = sum_i (alpha_ti / n_t) S_t[i, u]``
  (m floats).  The server forms ``W^T W = Sigma G Sigma / lambda^2`` and
  the new ``Sigma``, which goes out with the next round's messages.  For a
  node dropped during the update, the server computes the missing entries
  (its diagonal, and pairs of two dropped nodes; the others come from the
  reports by symmetry) itself from the support vectors and dual changes it
  has relayed, so the update is exact; this costs the server kernel
  evaluations, not messages.

*Primal modes* (``kernel="linear"``, MOCHA itself, and the approximate
modes, which run linear MOCHA on explicit features): the server keeps
``V = [v_1 ... v_m]``, ``v_t = sum_i alpha_ti x_ti / n_t``, and
``W = V Sigma / lambda``.

- server -> node t: ``w_t`` (d' floats per binary problem), plus
  ``sigma_tt`` and ``rho`` (2 floats) when they changed;
- node t -> server: the change of ``v_t`` (d' floats per binary problem)
  plus three floats of gap terms.  The Omega update needs no messages.
- with ``aggregation`` searching the step (the default here), in rounds
  where ``rho > 1``: the server also sends the nodes' scaling (1 float)
  with every message and the step of a node's last update (1 float per
  binary problem) with its next message or the final delivery; the node
  also sends the change of its conjugate sum along its step (1 float per
  binary problem for the hinge and logistic losses, 2 for the others):
  see :func:`line_search_step`.
- with ``compression=b`` (``"auto"``: 8 bits), ``w_t`` and the change of
  ``v_t`` travel as one float64 scale and ``b``-bit integers per binary
  problem (``8 + ceil(d' b / 8)`` bytes, :func:`quantize`).  Error
  feedback keeps both sides exact up to one rounding: the node adds what
  rounding left out of its earlier updates to the next one (the server's
  ``V`` differs from the dual variables' by that residual only), and the
  server sends the difference between ``w_t`` and the model the node holds
  (which it knows), so the node's model follows ``w_t`` within one rounding
  of the last difference; the node solves with its model plus its own
  residual's term.  With the line search each node also sends its exact
  term of ``<dV, Sigma V>`` (1 float per binary problem), which the
  server's ``V`` and the rounded steps would miss.  The stopping rule's gap
  is that of the server's model (the returned one) against the dual
  variables' dual objective, so it still bounds the returned model's
  distance to the optimum; the final ``w_t`` goes out in float64.

*Cost model of linear mode* (``kernel="linear"``).  ``Omega`` is m x m by
definition; with ``n_problems d' < m`` it is never formed during the fit:
``W^T W`` then has rank ``r <= n_problems d'``, and the exact Omega step
gives ``Sigma = f I + U diag(s) U^T`` (``U``: m x r), kept factored
(:class:`_LowRankSigma`).  A round costs ``O(local_epochs n d')`` at the
nodes with coordinate ascent, or a few ``O(n_t^3)`` Newton iterations per
node with the exact local solver (``local_solver``; ``sum_t n_t^2`` floats
of Gram matrices, ``O(n_t^2 d')`` once to form them), in one Cython call
for all of them, plus ``O(m r d' + n d')`` at the
server (``W = V Sigma / lambda`` from the factors, the margins for the
duality gap); an Omega step ``O(m (n_problems d')^2)`` (thin SVDs of the
m x (n_problems d') matrices ``W`` and ``V``, Lanczos for ``rho``).  With
``n_problems d' >= m``, Sigma is dense and a round costs ``O(m^2 d')``, an
Omega step ``O(m^3)``.

*Setup* (counted in the first round): ``gamma="scale"`` needs the pooled
variance of the features: each node sends its count, sum and sum of squares
(3 floats) and receives ``gamma`` (1 float).  ``approximation="nystroem"``
draws its ``n_components`` landmarks once, before the first round: every
node picks a share proportional to its number of samples, uniformly at
random among its own samples, sends them to the server, and receives the
other nodes' landmarks (so every landmark crosses to every node once: the
landmarks are raw data and leave their node).  With ``landmarks="kmeans"``
the landmarks are k-means centres instead: every node clusters its own
samples into twice its share of local centres (k-means++ then Lloyd) and
sends them with their cluster sizes (``d + 1`` values each); the server
runs weighted k-means over all local centres and sends the
``n_components`` centres to every node (no sample leaves its node, only
averages of local clusters).  ``approximation="rff"``
draws its random Fourier features from a seed every node shares: nothing
about the data leaves a node.

*End of fit*: the server sends every node what it still lacks to predict on
its own (pending changes and vectors, its ``Sigma`` row, or its final
``w_t``), counted in the last round.

The duality gap that decides when to stop is the exact one, evaluated by the
simulation over all nodes after every round; in a deployment it is the sum
of the three-float reports the nodes send.
"""

import math
import numbers
import warnings

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy import linalg
from threadpoolctl import ThreadpoolController
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._base import (
    FederatedClassifierMixin,
    FederatedMixin,
    FederatedRegressorMixin,
    node_seeds,
)
from ._base import check_network_faults
from ._compat import HasMethods, Interval, StrOptions
from ._core._kernels import pairwise_kernel_fast
from ._core._multitask_fast import (
    Hinge,
    Logistic,
    Squared,
    SquaredHinge,
    local_solve_kernel_nodes,
    local_solve_linear,
    local_solve_exact_nodes,
    local_solve_linear_nodes,
    node_gap_terms,
    node_margins,
    update_state,
    update_states,
)
from .kernels import kernel_params, pairwise_kernel, resolve_kernel
from .network import payload_bytes, resolve_network
from .privacy import (
    DifferentialPrivacy,
    calibrate_gaussian,
    check_privacy,
    describe,
    epsilon_spent,
)

__all__ = [
    "FederatedMultiTaskClassifier",
    "FederatedMultiTaskRegressor",
    "FederatedMultiTaskClassifierCV",
    "FederatedMultiTaskRegressorCV",
]

_LOSSES = {
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "logistic": Logistic,
    "squared": Squared,
}

# Fault draws are made in chunks of this many rounds, so the faults of the
# first rounds do not depend on ``max_rounds``.
_ROUND_CHUNK = 64
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
_FLOAT = 8  # bytes of a float64 in the byte model
# local_solver="auto": a node solves its subproblem exactly (projected
# Newton on its n_t x n_t Gram matrix, n_t^2 floats kept) when the loss has a
# quadratic conjugate and it holds at most this many samples; above it, a
# Newton iteration (O(n_t^3)) and the Gram matrix cost more than
# coordinate ascent's O(local_epochs n_t d') per round.
_EXACT_MAX_SAMPLES = 1000
_EXACT_KIND = {"hinge": 0, "squared_hinge": 1, "squared": 2}
# Exact solver: stop at this projected gradient (margin units, relative to
# max(1, max |y|)), after at most this many Newton iterations.
_EXACT_TOL = 1e-10
_EXACT_MAX_ITER = 200
_INDEX = 4  # bytes of an int32 index
# compression="auto": bits per value of the primal modes' model vectors and
# updates (see quantize).
_AUTO_BITS = 8
# n_components="auto": this factor times sqrt(n) ln n (chosen on HAR sitting,
# split 0, hinge loss, 8-bit messages: factors 1, 1.5, 2 give 2.52, 2.37,
# 2.03 % error against the exact mode's 1.78 %).
_COMPONENTS_FACTOR = 2.0
# ... and at most this many: the primal modes hold the n x D feature matrix
# (8 n D bytes in float64), so an uncapped sqrt(n) ln n would grow faster
# than the data (13,816 features, 33 GB, at 10,000 nodes of 30 samples).
# Every shipped data set stays below it (HAR 1,225-1,278, Landmine and
# School about 2,000).
_MAX_AUTO_COMPONENTS = 4096
# approximation="auto": the rounds a random-feature fit is assumed to take
# when its bytes are weighed against the exact mode's (measured at the
# defaults on HAR sitting and activity, Landmine and School: 14 to 95).
_AUTO_ROUNDS = 100


# ---------------------------------------------------------------- helpers
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


def _steps(work, n_samples, local_epochs):
    """Coordinate steps of nodes that do a fraction ``work`` of their epochs."""
    steps = np.maximum(1, np.ceil(local_epochs * work * n_samples)).astype(np.intp)
    return np.where(work > 0, steps, 0)


def _proportional_shares(sizes, total):
    """Integer shares of ``total`` proportional to ``sizes`` (largest remainders),
    each at most its size."""
    share = sizes * total / sizes.sum()
    counts = np.floor(share).astype(np.intp)
    remainder = int(total - counts.sum())
    if remainder:
        order = np.argsort(-(share - counts), kind="stable")
        counts[order[:remainder]] += 1
    return np.minimum(counts, sizes)


def _kmeans_landmarks(X, layout, n_landmarks, rng, setup_up, setup_down, dtype_bytes):
    """Nystroem landmarks as k-means centres, computed once over the network.

    Every node clusters its own samples into ``k_t`` local centres
    (k-means++ and Lloyd, ``k_t`` twice its landmark share, at most
    ``n_t``) and sends them with their cluster sizes (``k_t (d + 1)``
    values); the server runs weighted k-means (k-means++ and Lloyd) over
    all local centres and sends the ``n_landmarks`` centres to every node.
    The bytes are added to ``setup_up`` / ``setup_down``.
    """
    from sklearn.cluster import KMeans  # only this mode needs it

    d = X.shape[1]
    local_k = np.minimum(layout.counts, 2 * _proportional_shares(layout.counts, n_landmarks))
    local_k = np.maximum(local_k, np.minimum(layout.counts, 1))
    centres, sizes = [], []
    for t in range(layout.n_nodes):
        Xt = X[layout.node_slice(t)]
        km = KMeans(local_k[t], n_init=1, random_state=rng.randint(2**31 - 1)).fit(Xt)
        centres.append(km.cluster_centers_)
        sizes.append(np.bincount(km.labels_, minlength=local_k[t]).astype(np.float64))
    centres = np.concatenate(centres)
    sizes = np.concatenate(sizes)
    keep = sizes > 0
    centres, sizes = centres[keep], sizes[keep]
    setup_up += local_k * (d * dtype_bytes + _FLOAT)
    setup_down += n_landmarks * d * dtype_bytes
    k = min(n_landmarks, centres.shape[0])
    server = KMeans(k, n_init=1, random_state=rng.randint(2**31 - 1))
    server.fit(centres, sample_weight=sizes)
    return np.ascontiguousarray(server.cluster_centers_, dtype=X.dtype)


def _fault_note(network, simulation):
    """``" with network.drop_rate=0.9 (...)"`` for a message, or ``""``."""
    if network is None or network.is_perfect:
        return ""
    faults = [
        f"network.{name}={getattr(network, name)!r}"
        for name in ("drop_rate", "straggler_rate")
        if getattr(network, name)
    ]
    sent = np.asarray(simulation.log().messages_sent).ravel()[: simulation.n_nodes]
    return (
        f" with {' and '.join(faults)} (the least active node sent "
        f"{int(sent.min())} messages, the median one {int(np.median(sent))})"
    )


class _Faults:
    """Round-by-round faults drawn in fixed chunks from the simulation."""

    def __init__(self, simulation):
        self.simulation = simulation
        self.active = self.work = None
        self.position = _ROUND_CHUNK

    def next(self):
        if self.position >= _ROUND_CHUNK:
            self.active, self.work = self.simulation.draw_rounds(_ROUND_CHUNK)
            self.position = 0
        active = self.active[self.position]
        work = self.work[self.position]
        self.position += 1
        return active, work


def _run_parallel(parallel, function, items):
    if parallel is None:
        return [function(*item) for item in items]
    return parallel(delayed(function)(*item) for item in items)


def _primal_node_solve(Z, sq_norms, Y, sw, g, W, c, steps, theta, loss, state):
    """One round of the local solver on one node (primal modes), by value.

    ``Z`` (n_t, d'), ``sq_norms`` (n_t,), ``Y`` and ``g`` (n_problems, n_t),
    ``sw`` (n_t,), ``W`` (n_problems, d') the node's model and ``state``
    its xorshift state (uint32 array of length 1).  Neither ``g`` nor
    ``state`` is modified: the node may run in another process (a Dask
    worker), so everything it changes is returned, as
    ``(dvs, deltas, g, state)``.
    """
    n_problems, n_t = Y.shape
    d = Z.shape[1]
    g = np.array(g, dtype=np.float64, order="C")
    state = np.array(state, dtype=np.uint32).reshape(1)
    dvs = np.zeros((n_problems, d))
    deltas = np.zeros((n_problems, n_t))
    work = np.empty(d)
    p = np.empty(n_t)
    perm = np.empty(n_t, dtype=np.intp)
    for k in range(n_problems):
        local_solve_linear(
            Z, sq_norms, Y[k], sw, g[k], W[k], dvs[k], deltas[k], work, p, c, loss,
            steps, theta, state, perm,
        )
    return dvs, deltas, g, state


def _primal_solve_chunk(Z, sq_norms, Y, sw, G, W, active, offsets, c, steps, theta, loss,
                        states, exact=None):
    """One round of a block of consecutive nodes (one task per worker), by value.

    The arrays hold the block's rows and nodes only (``active`` and
    ``offsets`` relative to its first node); ``G`` and ``states`` are not
    modified.  Returns ``(dV, deltas, G, states)``, the same numbers as
    :func:`_primal_node_solve` per node (one :func:`local_solve_linear_nodes`
    call for the block).
    """
    G = np.array(G, dtype=np.float64, order="C")
    states = np.array(states, dtype=np.uint32)
    dV = np.zeros((Y.shape[0], len(active), Z.shape[1]))
    deltas = np.zeros_like(G)
    local_solve_linear_nodes(Z, sq_norms, Y, sw, G, W, dV, deltas, active, offsets, c, steps,
                             theta, loss, states)
    if exact is not None:
        # (mask, gram, gram_offsets, kind, tol, features): the exact nodes,
        # whose coordinate-ascent steps are 0 above
        local_solve_exact_nodes(exact[5], exact[1], exact[2], Y, sw, G, W, dV, deltas, active,
                                offsets, c, exact[0], exact[3], exact[4], _EXACT_MAX_ITER)
    return dV, deltas, G, states


def _chunks(n_items, n_chunks):
    """Contiguous ``slice``s splitting ``range(n_items)`` into ``n_chunks`` parts."""
    n_chunks = max(1, min(n_items, n_chunks))
    bounds = np.linspace(0, n_items, n_chunks + 1).round().astype(int)
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def quantize(x, bits):
    """``x`` rounded to ``bits``-bit integers times one scale per vector.

    The message of a vector ``x`` (the last axis) is its scale ``s =
    max |x_j|`` (a float64) and the integers ``round(x_j L / s)``, ``L =
    2^(bits - 1) - 1``, packed ``bits`` bits each; the receiver decodes
    ``s q_j / L``.  Rounding is to the nearest integer (ties to even), so
    ``|x_j - decoded_j| <= s / (2 L)`` and the decoded vector is a
    deterministic function of ``x``: sender and receiver agree on it
    without any shared randomness.

    Parameters
    ----------
    x : ndarray of shape (..., d)
    bits : int
        From 2 to 32.

    Returns
    -------
    decoded : ndarray of shape (..., d)
        What the receiver holds.
    """
    levels = float(2 ** (int(bits) - 1) - 1)
    scale = np.max(np.abs(x), axis=-1, keepdims=True)
    safe = np.where(scale > 0.0, scale, 1.0)
    return np.rint(x * (levels / safe)) * (safe / levels)


def auto_components(n):
    """``n_components="auto"``: ``ceil(2 sqrt(n) ln n)``, at least 1 and at
    most 4,096 (the feature matrix is ``n x D``)."""
    D = math.ceil(_COMPONENTS_FACTOR * math.sqrt(n) * math.log(max(n, 2)))
    return int(min(max(1, D), _MAX_AUTO_COMPONENTS))


def quantized_bytes(d, bits):
    """Bytes of one quantized vector of ``d`` values: a float64 scale and
    ``d`` integers of ``bits`` bits, packed (the byte model's
    :func:`~skfed.network.payload_bytes`)."""
    return payload_bytes(n_float64=1, n_bits=int(d) * int(bits))


# ------------------------------------------------------------ mode states
class _PrimalState:
    """Linear MOCHA: ``kernel="linear"`` and the approximate modes.

    The server keeps ``V`` (n_problems, m, d'); node t the features ``Z_t``.
    ``Sigma`` is a dense m x m array, or a :class:`_LowRankSigma` (linear
    mode with ``n_problems d' < m``).
    """

    def __init__(self, Z, Y, sw, g, layout, totals, seeds, dtype_bytes, exact=None,
                 loss_name=None, bits=None):
        # Float32 features (float32 data) are also kept as they are: they
        # halve the memory read by the margins and the exact solver, the
        # passes over Z of every round (their sums stay in float64, from the
        # same products); the coordinate solver runs on the float64 copy.
        self.Z_pass = Z if Z.dtype == np.float32 else None
        Z = np.ascontiguousarray(Z, dtype=np.float64)
        if self.Z_pass is None:
            self.Z_pass = Z
        self.Z = Z
        self.Y = Y
        self.sw = sw
        self.g = g
        self.layout = layout
        self.totals = totals
        self.states = np.array(seeds, dtype=np.uint32)  # one xorshift state per node
        self.n_problems, self.n = Y.shape
        self.m = layout.n_nodes
        self.d = Z.shape[1]
        self.V = np.zeros((self.n_problems, self.m, self.d))
        self.sq_norms = np.einsum("ij,ij->i", Z, Z, dtype=np.float64)
        self.dtype_bytes = dtype_bytes
        self.sigma_info_floats = 2
        # Nodes solving their subproblem exactly keep their Gram matrix
        # Z_t Z_t^T (n_t^2 floats each), row-major, one block after another.
        m, counts = self.m, layout.counts
        self.exact = np.zeros(m, dtype=np.uint8) if exact is None else exact.astype(np.uint8)
        sizes = np.where(self.exact > 0, counts.astype(np.int64) ** 2, 0)
        self.gram_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self.grams = np.empty(int(self.gram_offsets[-1]))
        for t in np.flatnonzero(self.exact):
            sl = layout.node_slice(t)
            block = self.grams[self.gram_offsets[t]:self.gram_offsets[t + 1]]
            block[...] = (Z[sl] @ Z[sl].T).ravel()
        self.kind = _EXACT_KIND.get(loss_name, -1)
        scale = max(1.0, float(np.max(np.abs(Y)))) if Y.size else 1.0
        self.exact_tol = _EXACT_TOL * scale
        # compression: every round's w_t and Delta v_t travel as `bits`-bit
        # integers and one scale (:func:`quantize`).  Node t keeps the part
        # of its updates the server has not received, R[:, t] = n_t (v_t -
        # V[:, t]) (error feedback: it goes out with the next update), and
        # the model it holds, W_node[:, t], which the server knows too: it
        # sends the quantized difference between w_t and it.
        self.bits = bits
        if bits is not None:
            self.R = np.zeros_like(self.V)
            self.W_node = np.zeros_like(self.V)

    def weights(self, sigma, lam):
        if isinstance(sigma, _LowRankSigma):
            return sigma.apply(self.V) / lam
        return np.einsum("tu,kud->ktd", sigma, self.V) / lam

    def _vector_bytes(self, compressed=True):
        if self.bits is None or not compressed:
            return self.n_problems * self.d * _FLOAT
        return self.n_problems * quantized_bytes(self.d, self.bits)

    def downlink(self, active, sigma, flush=False):
        return np.full(len(active), self._vector_bytes(), dtype=np.int64)

    def true_V(self):
        """``V`` of the dual variables (the server's ``V`` plus what the
        nodes have not sent yet)."""
        if getattr(self, "bits", None) is None:
            return self.V
        return self.V + self.R / self.totals[None, :, None]

    def node_models(self, active, sigma, lam):
        """The models the nodes solve with this round (after its downlink).

        Uncompressed: ``W = V Sigma / lambda``.  Compressed: an active node
        adds the quantized difference between the server's ``w_t`` and the
        model it holds (error feedback: what rounding left out is in the
        next round's difference)."""
        W = self.weights(sigma, lam)
        if self.bits is None:
            return W
        held = self.W_node[:, active]
        self.W_node[:, active] = held + quantize(W[:, active] - held, self.bits)
        # node t adds its own unsent part, sigma_tt R_t / (n_t lambda), which
        # it knows (the other nodes' it does not)
        own = _sigma_diag(sigma) / (self.totals * lam)
        self.views = self.W_node + own[None, :, None] * self.R
        return self.views

    def _encode(self, results):
        """Compressed: replace the nodes' steps by what the server receives,
        ``quantize(dv_t + R_t)``, keeping the exact steps in ``dV_true``."""
        if self.bits is not None:
            results.dV_true = results.dV
            results.dV = quantize(results.dV + self.R[:, results.active], self.bits)
        return results

    def quadratic_terms(self, sigma, lam):
        """Compressed: ``(<V, Sigma V>, <V~, Sigma V~>) / (2 lambda)`` for the
        server's ``V`` (the returned model's regularizer) and the dual
        variables' ``V~`` (the dual's quadratic term); None otherwise (they
        are equal and come from the margins)."""
        if self.bits is None:
            return None
        out = []
        for V in (self.V, self.true_V()):
            SV = sigma.apply(V) if isinstance(sigma, _LowRankSigma) else np.einsum(
                "tu,kud->ktd", sigma, V)
            out.append(float(np.vdot(V, SV)) / (2.0 * lam))
        return out

    def _round_exact(self, full):
        """The nodes solving exactly this round: the exact ones doing their full
        work (a straggler does its fraction of coordinate-ascent epochs)."""
        if full is None or not self.exact.any():
            return None
        return (self.exact & np.asarray(full, dtype=np.uint8)).astype(np.uint8)

    def _block(self, nodes, W, c, steps, theta, loss, exact=None):
        """Arguments of :func:`_primal_solve_chunk` for the active ``nodes`` (a
        run of increasing indices): the rows and nodes from the first to the last."""
        first, last = nodes[0], nodes[-1] + 1
        offsets = self.layout.offsets
        lo, hi = offsets[first], offsets[last]
        return (
            self.Z[lo:hi], self.sq_norms[lo:hi], np.ascontiguousarray(self.Y[:, lo:hi]),
            self.sw[lo:hi], np.ascontiguousarray(self.g[:, lo:hi]),
            np.ascontiguousarray(W[:, first:last]), (nodes - first).astype(np.intp),
            (offsets[first:last + 1] - lo).astype(np.intp), c[first:last], steps[first:last],
            theta, loss, self.states[first:last],
            None if exact is None else (
                exact[first:last],
                self.grams[self.gram_offsets[first]:self.gram_offsets[last]],
                self.gram_offsets[first:last + 1] - self.gram_offsets[first],
                self.kind, self.exact_tol, self.Z_pass[lo:hi],
            ),
        )

    def solve(self, active, steps, c, sigma, lam, theta, loss, parallel, n_chunks=1, full=None):
        """Solve the active nodes' subproblems; write ``g`` and the RNG states back.

        ``full`` (n_nodes,) bool: the nodes doing their full work this round;
        those of them marked exact solve their subproblem to optimality
        (:func:`local_solve_exact_nodes`), the others run coordinate ascent.

        The block solves are pure (:func:`_primal_solve_chunk`), so they may
        run on any joblib backend, Dask worker processes included; with
        ``parallel`` they go out as ``n_chunks`` blocks of consecutive nodes
        (one task per worker and round).  Results never depend on the
        chunking: every node has its own seed, and the new dual variables
        and states are written back in node order.  Serially, all nodes run
        in one Cython call (:func:`local_solve_linear_nodes`, the same
        solver, bit-identical results).
        """
        W = self.node_models(active, sigma, lam)
        c = np.asarray(c, dtype=np.float64)
        steps = np.asarray(steps, dtype=np.intp)
        exact = self._round_exact(full)
        if exact is not None:
            steps = np.where(exact > 0, 0, steps)
        if parallel is None or len(active) <= 1:
            dV = np.zeros((self.n_problems, len(active), self.d))
            deltas = np.zeros_like(self.g)
            local_solve_linear_nodes(
                self.Z, self.sq_norms, self.Y, self.sw, self.g, W, dV, deltas, active,
                self.layout.offsets, c, steps, theta, loss, self.states,
            )
            if exact is not None:
                local_solve_exact_nodes(
                    self.Z_pass, self.grams, self.gram_offsets, self.Y, self.sw, self.g, W, dV,
                    deltas, active, self.layout.offsets, c, exact, self.kind, self.exact_tol,
                    _EXACT_MAX_ITER,
                )
            return self._encode(_PrimalResults(active, dV, deltas, self.layout))
        blocks = [active[sl] for sl in _chunks(len(active), n_chunks)]
        results = _run_parallel(
            parallel, _primal_solve_chunk,
            [self._block(nodes, W, c, steps, theta, loss, exact) for nodes in blocks],
        )
        deltas = np.zeros_like(self.g)
        offsets = self.layout.offsets
        for nodes, (_, block_deltas, g, states) in zip(blocks, results):
            lo, hi = offsets[nodes[0]], offsets[nodes[-1] + 1]
            self.g[:, lo:hi] = g
            deltas[:, lo:hi] = block_deltas
            self.states[nodes[0]:nodes[-1] + 1] = states
        dV = np.concatenate([result[0] for result in results], axis=1)
        return self._encode(_PrimalResults(active, dV, deltas, self.layout))

    def uplink(self, active, results):
        # warm-start duals and private updates go out uncompressed
        compressed = getattr(results, "dV_true", None) is not None
        return np.full(len(active), self._vector_bytes(compressed), dtype=np.int64)

    def line_search(self, active, results, g_before, sigma, lam, loss_name):
        """The server's exact step along the round's combined direction.

        ``results`` holds the active nodes' full local steps and ``self.g``
        their dual variables after them (``g_before``: before).  Scales
        both, per binary problem, by the step ``s`` in [0, 1] of
        :func:`line_search_step` (from ``dV``, which the server receives,
        its ``V`` and the nodes' conjugate coefficients,
        :func:`conjugate_change`, ``loss_name`` its loss), and returns ``(s, ratio)``: ``s`` of
        shape (n_problems,) and the coupling ratio ``<dV, Sigma dV> / sum_t
        sigma_tt ||dv_t||^2`` of the full steps (1 for a diagonal Sigma, at
        most ``rho``), the scaling the nodes use next round.
        """
        dV = np.zeros((self.n_problems, self.m, self.d))
        dV[:, active] = results.dV / self.totals[active][None, :, None]
        SdV = sigma.apply(dV) if isinstance(sigma, _LowRankSigma) else np.einsum(
            "tu,kud->ktd", sigma, dV)
        if results.dV_true is None:
            cross = np.einsum("ktd,ktd->k", SdV, self.V)  # <dV, Sigma V>
        else:
            # Compressed: the server's V and the quantized steps miss the
            # nodes' residuals (first order in the slope), so each node
            # sends its own term lambda <dv_t / n_t, w_t> (one float per
            # problem) from its exact step and the model it solved with.
            own = results.dV_true / self.totals[active][None, :, None]
            cross = lam * np.einsum("ktd,ktd->k", own, self.views[:, active])
        curvature = np.einsum("ktd,ktd->k", SdV, dV)  # <dV, Sigma dV>
        separable = float(np.einsum("t,ktd,ktd->", _sigma_diag(sigma), dV, dV))
        linear, quadratic = conjugate_change(
            loss_name, self.Y, self.sw, g_before, self.g - g_before,
            self.sw / np.repeat(self.totals, self.layout.counts),
        )
        steps = line_search_step(linear, quadratic, cross, curvature, lam)
        self.g[...] = g_before + steps[:, None] * (self.g - g_before)
        results.dV *= steps[:, None, None]
        if results.dV_true is not None:
            results.dV_true = results.dV_true * steps[:, None, None]
        results.deltas *= steps[:, None]
        ratio = float(curvature.sum()) / separable if separable > 0.0 else 1.0
        return steps, ratio

    def apply(self, active, results, parallel):
        # results: _PrimalResults, or (dvs, deltas) per active node (any
        # sequence, e.g. after noise is added to each node's update)
        if isinstance(results, _PrimalResults):
            dV = results.dV
            if results.dV_true is not None:
                # what the server did not receive stays with the node
                self.R[:, active] += results.dV_true - dV
        else:
            dV = np.stack([dvs for dvs, _ in results], axis=1)
        self.V[:, active, :] += dV / self.totals[active][None, :, None]

    def margins(self, sigma, lam):
        W = self.weights(sigma, lam)
        out = np.empty((self.n_problems, self.n))
        if isinstance(sigma, _LowRankSigma) or self.Z_pass is not self.Z:
            node_margins(self.Z_pass, np.ascontiguousarray(W), self.layout.offsets, out)
            return out
        for t in range(self.m):
            sl = self.layout.node_slice(t)
            out[:, sl] = W[:, t, :] @ self.Z[sl].T
        return out

    def gram(self):
        return np.einsum("ktd,kud->tu", self.V, self.V)

    def omega_exchange(self, active, sigma):
        """Gram matrix for the Omega step, and the bytes it costs (none)."""
        return self.gram(), None

    def _stacked(self, A):
        """(n_problems, m, d) -> (m, n_problems d): ``A^T A`` summed over problems."""
        return A.transpose(1, 0, 2).reshape(self.m, -1)

    def low_rank_omega_update(self, sigma, lam):
        """The Omega step from ``W`` itself, ``O(m (n_problems d')^2)``, no m x m array."""
        return _LowRankSigma.omega_update(self._stacked(self.weights(sigma, lam)))

    def low_rank_joint_objectives(self, primal, dual, sigma, lam):
        """:func:`joint_objectives` without ``G``: ``tr(Sigma G) = <V, Sigma V>``,
        ``lambda_max(G)`` and the trace norm of ``W`` from two thin SVDs."""
        SV = sigma.apply(self.V)
        half_cross = float(np.vdot(self.V, SV)) / (2.0 * lam)
        V_dual = self.true_V()  # the dual's V (the server's one without compression)
        half_dual = half_cross if V_dual is self.V else float(
            np.vdot(V_dual, sigma.apply(V_dual))) / (2.0 * lam)
        with _blas_controller().limit(limits=1, user_api="blas"):
            top = linalg.svd(self._stacked(V_dual), compute_uv=False)
            trace_norm = float(linalg.svd(self._stacked(SV / lam), compute_uv=False).sum())
        top = float(top[0]) ** 2 if top.size else 0.0
        return (primal - half_cross + 0.5 * lam * trace_norm**2,
                dual + half_dual - top / (2.0 * lam))

    def compressed_joint_objectives(self, primal, dual, sigma, lam):
        """Compressed, dense ``Sigma``: :func:`joint_objectives` with the
        server's ``G`` for the primal (the returned model) and the dual
        variables' ``G`` for the dual."""
        V_dual = self.true_V()
        return (joint_objectives(primal, dual, self.gram(), sigma, lam)[0],
                joint_objectives(primal, dual, np.einsum("ktd,kud->tu", V_dual, V_dual),
                                 sigma, lam)[1])

    def final_delivery(self, sigma):
        payloads = np.full(self.m, self.n_problems * self.d * _FLOAT, dtype=np.int64)
        return np.arange(self.m, dtype=np.intp), payloads


class _PrimalResults:
    """The serial round's output: ``dV`` (n_problems, n_active, d') and the
    changes of ``alpha`` (n_problems, n), with ``results[i] = (dvs, deltas)``
    of the i-th active node for code that wants it node by node."""

    def __init__(self, active, dV, deltas, layout):
        self.active, self.dV, self.deltas, self.layout = active, dV, deltas, layout
        self.dV_true = None  # compressed: the exact steps (dV is what the server got)

    def __len__(self):
        return len(self.active)

    def __getitem__(self, i):
        return self.dV[:, i, :], self.deltas[:, self.layout.node_slice(self.active[i])]

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class _KernelState:
    """Exact kernel mode: support-vector exchange through the server."""

    def __init__(self, X, Y, sw, g, layout, totals, seeds, spec, bias, needed,
                 dtype_bytes, parallel, capacity=None):
        self.X = X
        # capacity[u]: at most this many received kernel rows cached on node
        # u (None: unbounded); rows beyond it are recomputed when used.
        self.capacity = capacity
        self.Y = Y
        self.sw = sw
        self.g = g
        self.layout = layout
        self.totals = totals
        self.states = np.array(seeds, dtype=np.uint32)  # one xorshift state per node
        self.spec = spec
        self.bias = bias
        self.needed = needed  # needed[t, u]: node u needs node t's changes
        self.n_problems, self.n = Y.shape
        self.m = layout.n_nodes
        self.d = X.shape[1]
        self.dtype = X.dtype
        self.dtype_bytes = dtype_bytes
        self.sigma_info_floats = self.m + 1
        self.node_of = np.repeat(np.arange(self.m), layout.counts)
        # Own kernel blocks (the local subproblems) and states S_u.
        self.blocks = _run_parallel(
            parallel, self._own_block, [(t,) for t in range(self.m)]
        )
        self.S = [
            np.zeros((self.n_problems * self.m, layout.counts[u])) for u in range(self.m)
        ]
        # Kernel rows of received support vectors, per receiving node.
        self.slot = np.full((self.m, self.n), -1, dtype=np.intp)
        self.cache = [np.empty((0, layout.counts[u]), dtype=self.dtype) for u in range(self.m)]
        self.n_slots = np.zeros(self.m, dtype=np.intp)
        # Protocol bookkeeping (bytes only).
        self.server_has = np.zeros(self.n, dtype=bool)
        self.node_has = np.zeros((self.m, self.n), dtype=bool)
        for u in range(self.m):
            self.node_has[u, layout.node_slice(u)] = True
        self.pending = np.zeros((self.m, self.n), dtype=bool)
        self._arrays = None  # the last uplink's changes (see _changes)
        self._version = 0  # counts the state updates (see margins)
        self._margins = None

    def kernel(self, A, B, out):
        """``out = k(A, B) + bias^2`` (out is C-contiguous)."""
        if self.spec.is_callable:
            out[...] = pairwise_kernel(A, B, kernel=self.spec)
        else:
            kind, gamma, coef0, degree = kernel_params(self.spec)
            pairwise_kernel_fast(A, B, kind, gamma, coef0, degree, out)
        if self.bias:
            out += self.bias * self.bias

    def _own_block(self, t):
        Xt = self.X[self.layout.node_slice(t)]
        out = np.empty((Xt.shape[0], Xt.shape[0]), dtype=self.dtype)
        if self.spec.is_callable:
            out[...] = pairwise_kernel(Xt, kernel=self.spec)
        else:
            kind, gamma, coef0, degree = kernel_params(self.spec)
            pairwise_kernel_fast(Xt, Xt, kind, gamma, coef0, degree, out)
        if self.bias:
            out += self.bias * self.bias
        return out

    # -- protocol
    def downlink(self, active, sigma, flush=False):
        entry = _INDEX + self.n_problems * _FLOAT
        # sent[a, j]: receiver active[a] gets sample j's pending change (all of
        # them on a flush, else those whose sigma with j's node is non-zero).
        # (Every node active: slices, not copies.)
        rows = slice(None) if len(active) == self.m else active
        sent = self.pending[rows]
        linked = sigma[:, active] != 0
        if not (flush or linked.all()):
            sent = sent & linked[self.node_of].T
        new = sent & ~self.node_has[rows]
        payloads = (np.count_nonzero(sent, axis=1) * entry
                    + np.count_nonzero(new, axis=1) * self.d * self.dtype_bytes).astype(np.int64)
        self.node_has[rows] |= new
        self.pending[rows] &= ~sent
        return payloads

    # -- local work
    def margins(self, sigma, lam):
        """Every node's margins ``f_t = sigma_t S_t / lambda``.

        The last result is kept until the states or ``Sigma`` change: the
        round's local solves start from the margins the gap was computed on.
        (Computed node by node as a deployed node does, so the Flower engine
        gets the same numbers bit for bit.)
        """
        last = self._margins
        if last is not None and last[0] is sigma and last[1] == lam and last[2] == self._version:
            return last[3]
        out = np.empty((self.n_problems, self.n))
        for t in range(self.m):
            S = self.S[t].reshape(self.n_problems, self.m, -1)
            out[:, self.layout.node_slice(t)] = np.einsum("u,kui->ki", sigma[t], S) / lam
        self._margins = (sigma, lam, self._version, out)
        return out

    def solve(self, active, steps, c, sigma, lam, theta, loss, parallel, n_chunks=1):
        """Every active node's local solve, from the margins (one Cython call,
        or one per block of nodes on threads): updates ``g`` and the RNG
        states in place, returns each active node's change of ``alpha``."""
        active = np.asarray(active, dtype=np.intp)
        local_view = self.margins(sigma, lam).copy()
        deltas = np.zeros((self.n_problems, self.n))
        c = np.asarray(c, dtype=np.float64)
        steps = np.asarray(steps, dtype=np.intp)
        args = (self.Y, self.sw, self.g, local_view, deltas)
        tail = (self.layout.offsets, c, steps, theta, loss, self.states)
        if parallel is None or active.size <= 1:
            local_solve_kernel_nodes(self.blocks, *args, active, *tail)
        else:
            # Shared-memory threads only (see _BaseMultiTask._parallel_context).
            _run_parallel(parallel, local_solve_kernel_nodes,
                          [(self.blocks, *args, active[sl], *tail)
                           for sl in _chunks(active.size, n_chunks)])
        return [deltas[:, self.layout.node_slice(t)] for t in active]

    def uplink(self, active, results):
        entry = _INDEX + self.n_problems * _FLOAT
        self._arrays = None
        if len(active) == 0:
            return np.zeros(0, dtype=np.int64)
        # All active nodes at once: their samples (node order) and changes.
        active = np.asarray(active, dtype=np.intp)
        offsets = self.layout.offsets
        counts = (offsets[active + 1] - offsets[active]).astype(np.intp)
        pos = np.repeat(offsets[active] - np.cumsum(counts) + counts, counts)
        pos += np.arange(pos.size)
        D = np.concatenate([np.reshape(r, (self.n_problems, -1)) for r in results], axis=1)
        which = np.repeat(np.arange(len(active)), counts)  # active index of each column
        nz = D != 0
        changed = np.any(nz, axis=0)
        idx = pos[changed]
        fresh = ~self.server_has[idx]
        self.server_has[idx[fresh]] = True
        payloads = (np.bincount(which[changed], minlength=len(active)) * entry
                    + np.bincount(which[changed][fresh], minlength=len(active))
                    * self.d * self.dtype_bytes).astype(np.int64)
        if idx.size:
            # Every other node now has these changes pending (one scatter).
            self.pending[:, idx] = True
            self.pending[self.node_of[idx], idx] = False
        k, j = np.nonzero(nz)
        src = self.node_of[pos[j]]
        self._arrays = (src, k * self.m + src, pos[j], D[k, j] / self.totals[src])
        return payloads

    @property
    def _changes(self):
        """The last uplink's changes as ``(t, k, indices, dalpha / W_t)``, node by node."""
        if self._arrays is None:
            return []
        src, rows, idx, coefs = self._arrays
        out = []
        order = np.lexsort((idx, rows // self.m, src))
        src, rows, idx, coefs = src[order], rows[order], idx[order], coefs[order]
        cuts = np.flatnonzero(np.diff(rows)) + 1
        for s_, r_, i_, c_ in zip(*(np.split(a, cuts) for a in (src, rows, idx, coefs))):
            out.append((int(s_[0]), int(r_[0] // self.m), i_, c_))
        return out

    # -- state update
    def _update_node(self, u, src, rows, idx, coefs):
        own = src == u
        if np.any(own):
            update_state(
                self.blocks[u], idx[own] - self.layout.offsets[u], rows[own], coefs[own],
                self.S[u],
            )
        other = (~own) & self.needed[src, u]
        if not np.any(other):
            return
        slots = self.slot[u, idx[other]]
        cached = slots >= 0
        if cached.all():
            update_state(self.cache[u], slots, rows[other], coefs[other], self.S[u])
            return
        if cached.any():
            update_state(self.cache[u], slots[cached], rows[other][cached],
                         coefs[other][cached], self.S[u])
        # Over the cache bound: the kernel rows are recomputed for this round.
        missing, where = np.unique(idx[other][~cached], return_inverse=True)
        block = np.empty((missing.size, self.layout.counts[u]), dtype=self.dtype)
        self.kernel(np.ascontiguousarray(self.X[missing]),
                    self.X[self.layout.node_slice(u)], block)
        update_state(block, where.astype(np.intp).ravel(), rows[other][~cached],
                     coefs[other][~cached], self.S[u])

    def _fill_cache(self, u, new, rows):
        """Kernel rows of the support vectors ``new`` (data ``rows``) on node u."""
        count = new.size
        start = self.n_slots[u]
        if start + count > self.cache[u].shape[0]:
            capacity = max(2 * self.cache[u].shape[0], start + count, 16)
            if self.capacity is not None:
                capacity = min(capacity, self.capacity[u])
            grown = np.empty((capacity, self.cache[u].shape[1]), dtype=self.dtype)
            grown[:start] = self.cache[u][:start]
            self.cache[u] = grown
        self.kernel(rows, self.X[self.layout.node_slice(u)], self.cache[u][start : start + count])
        self.slot[u, new] = np.arange(start, start + count)
        self.n_slots[u] = start + count

    def apply(self, active, results, parallel):
        if self._arrays is None or not self._arrays[0].size:
            return
        self._version += 1
        src, rows, idx, coefs = self._arrays
        # New kernel rows each receiving node needs (decided here, in a fixed
        # order, so results never depend on n_jobs).
        order = np.argsort(idx, kind="stable")
        cand = idx[order]
        cand_src = src[order]
        keep = np.ones(cand.size, dtype=bool)
        keep[1:] = cand[1:] != cand[:-1]
        cand, cand_src = cand[keep], cand_src[keep]
        # The rows are gathered once; a node that needs all of them (the
        # usual case) gets the gathered block itself.
        nodes = np.arange(self.m)
        masks = list(
            (cand_src[None, :] != nodes[:, None]) & self.needed[cand_src].T
            & (self.slot[:, cand] < 0)
        )
        if self.capacity is not None:
            for u, mask in enumerate(masks):
                # The first rows up to the bound are cached, the rest recomputed.
                free = max(int(self.capacity[u] - self.n_slots[u]), 0)
                mask[np.flatnonzero(mask)[free:]] = False
        union = np.any(masks, axis=0) if masks else np.zeros(0, dtype=bool)
        gathered = np.ascontiguousarray(self.X[cand[union]])
        jobs = []
        for u, mask in enumerate(masks):
            if not mask.any():
                continue
            inside = mask[union]
            block = gathered if inside.all() else np.ascontiguousarray(gathered[inside])
            jobs.append((u, cand[mask], block))
        _run_parallel(parallel, self._fill_cache, jobs)
        # Every receiving node adds the changes it holds the vectors of (one
        # Cython call, or one per block of nodes in parallel); a node with
        # rows over its cache bound recomputes them (_update_node).
        held = self.needed[src].T & (src[None, :] != nodes[:, None])
        slots = np.where(held, self.slot[:, idx], -1)
        over = np.any(held & (slots < 0), axis=1)
        local = idx - self.layout.offsets[src]
        fast = np.flatnonzero(~over).astype(np.intp)
        blocks = [fast] if parallel is None else [fast[sl] for sl in _chunks(fast.size, self.m)]
        _run_parallel(
            parallel, update_states,
            [(self.blocks, self.cache, self.S, b, src, local, rows, coefs, slots)
             for b in blocks if b.size],
        )
        _run_parallel(
            parallel, self._update_node,
            [(u, src, rows, idx, coefs) for u in np.flatnonzero(over)],
        )
        self._arrays = None

    def gram_rows(self):
        """``G[t, u] = sum_k sum_i alpha_kti S_t[k, u, i] / n_t`` (exact)."""
        G = np.zeros((self.m, self.m))
        for t in range(self.m):
            sl = self.layout.node_slice(t)
            alpha = self.g[:, sl] * self.sw[sl]
            S = self.S[t].reshape(self.n_problems, self.m, -1)
            G[t] = np.einsum("ki,kui->u", alpha, S) / self.totals[t]
        return G

    def gram(self):
        G = self.gram_rows()
        return 0.5 * (G + G.T)

    def omega_exchange(self, active, sigma):
        """The Gram matrix for the Omega step, and the bytes of the exchange.

        Participating nodes first get every pending change, then report
        their G row.  The entries of dropped nodes (their diagonal, and the
        pairs of two dropped nodes) the server computes itself from the
        support vectors and dual changes it relayed, so the step is exact.
        """
        down = self.downlink(active, sigma, flush=True)
        up = np.full(len(active), self.m * _FLOAT, dtype=np.int64)
        return self.gram(), (down, up)

    def final_delivery(self, sigma):
        everyone = np.arange(self.m, dtype=np.intp)
        return everyone, self.downlink(everyone, sigma)


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


class _PrivateUpdates:
    """Gaussian mechanism on every node's update ``Delta v_t`` (primal modes).

    Each round a participating node clips its update (all problems together)
    to Frobenius norm ``B`` (``clip_norm``) and adds ``N(0, sigma^2)`` to every
    entry, ``sigma = sigma_1 * 2 B``: whatever its data, a clipped update
    moves by at most ``2 B``, so every release is a Gaussian mechanism of
    sensitivity ``2 B`` with respect to the node's whole data set
    (client-level privacy, which implies it for every one of its samples).
    ``sigma_1`` makes ``max_rounds`` releases spend the budget, and a node
    sends at most one update a round, so it never runs out.  With
    ``epsilon=inf`` nothing is clipped or noised, and the gap terms are sent
    as in the non-private fit (which it then equals).
    """

    def __init__(self, spec, n_nodes, max_rounds, random_state):
        self.epsilon, self.delta = spec.budget()
        self.clip = float(spec.clip_norm)
        self.mechanism = calibrate_gaussian(self.epsilon, self.delta, 1.0, int(max_rounds))
        self.sigma = self.mechanism.sigma * 2.0 * self.clip
        self.uses = np.zeros(n_nodes, dtype=np.int64)
        self.rng = None
        if self.sigma > 0.0:
            self.rng = np.random.default_rng(random_state.randint(1, np.iinfo(np.int32).max))

    def privatize(self, active, results, totals):
        if self.sigma == 0.0:
            # epsilon=inf: no noise, nothing to bound; the results go on as
            # they are (compressed ones included)
            self.uses[active] += 1
            return results
        out = []
        for t, (dvs, deltas) in zip(active, results):
            self.uses[t] += 1
            if self.sigma == 0.0:
                # epsilon=inf: no noise, nothing to bound.
                out.append((dvs, deltas))
                continue
            update = dvs / totals[t]
            norm = float(np.linalg.norm(update))
            if norm > self.clip:
                update = update * (self.clip / norm)
            update = update + self.rng.normal(0.0, self.sigma, size=update.shape)
            out.append((update * totals[t], deltas))
        return out

    def finish(self, estimator):
        estimator.privacy_spent_ = epsilon_spent(self.mechanism, self.uses, self.delta)
        estimator.privacy_ = describe(
            self.mechanism, uses=self.uses, delta=self.delta,
            composition="one Gaussian release of the clipped update per round the node "
            "takes part in, composed over its rounds",
            sigma=self.sigma, clip_norm=self.clip, level="client (the node's whole data set)",
        )


# ------------------------------------------------------------- estimators
# Faults of SimulatedNetwork that MOCHA refuses (here and on Flower).
_UNSUPPORTED_FAULTS = {
    "rogue_fraction": "the paper defines no rogue nodes and the server sums the "
    "nodes' updates with no robust rule",
}


class _BaseMultiTask(FederatedMixin, BaseEstimator):
    """Fitting machinery shared by the classifier and the regressor."""

    _parameter_constraints = {
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "lam": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"linear", "rbf", "poly", "sigmoid", "laplacian"}), callable],
        "gamma": [StrOptions({"scale", "auto"}), Interval(numbers.Real, 0, None, closed="neither")],
        "degree": [Interval(numbers.Real, 1, None, closed="left")],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "omega": [StrOptions({"learn", "independent"}), "array-like"],
        "omega_update_every": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "approximation": [None, StrOptions({"auto", "nystroem", "rff"})],
        "n_components": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        "landmarks": [StrOptions({"random", "kmeans"})],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        "local_epochs": [Interval(numbers.Real, 0, None, closed="neither")],
        "local_gap_target": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "local_solver": [StrOptions({"auto", "exact", "coordinate"})],
        "aggregation": [StrOptions({"auto", "line_search", "add"})],
        "compression": [StrOptions({"auto", "none"}),
                        Interval(numbers.Integral, 2, 32, closed="both")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_rounds": [Interval(numbers.Integral, 1, None, closed="left")],
        "cache_size": [None, Interval(numbers.Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        **FederatedMixin._federated_parameter_constraints,
        "network": [None, HasMethods(["start"])],
        "random_state": ["random_state"],
        "n_jobs": [None, numbers.Integral],
        "verbose": ["verbose"],
        "privacy": [None, DifferentialPrivacy],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds=1000,
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        self.C = C
        self.lam = lam
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.omega = omega
        self.omega_update_every = omega_update_every
        self.approximation = approximation
        self.n_components = n_components
        self.landmarks = landmarks
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.local_epochs = local_epochs
        self.local_gap_target = local_gap_target
        self.local_solver = local_solver
        self.aggregation = aggregation
        self.compression = compression
        self.tol = tol
        self.max_rounds = max_rounds
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.privacy = privacy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True
        return tags

    # Sigma and Omega are m x m by definition; linear mode with many nodes
    # keeps them factored (_LowRankSigma) and forms them on access only.
    @property
    def task_covariance_(self):
        sigma = self._task_covariance
        return sigma.dense() if isinstance(sigma, _LowRankSigma) else sigma

    @task_covariance_.setter
    def task_covariance_(self, value):
        self._task_covariance = value

    @property
    def omega_(self):
        omega = self._omega
        return omega.inverse_dense() if isinstance(omega, _LowRankSigma) else omega

    @omega_.setter
    def omega_(self, value):
        self._omega = value

    # ------------------------------------------------------------ fitting
    def _primal_mode(self):
        return self.approximation_ is not None or self.kernel == "linear"

    def _resolve_mode(self, n, d, m, n_problems, dtype_bytes):
        """Set ``approximation_`` and ``n_components_`` (the ``"auto"`` rules).

        ``n_components="auto"``: ``ceil(2 sqrt(n) ln n)`` (at least 1, at
        most 4,096 so that the ``n x D`` feature matrix grows like ``n``), ``n`` the
        training samples of all nodes: the order of random features
        (Rudi & Rosasco 2017) and Nystroem landmarks (Rudi, Camoriano &
        Rosasco 2015) with which the approximate kernel method keeps the
        exact one's learning rate.  ``approximation="auto"``: ``"rff"`` for
        the rbf kernel when :data:`_AUTO_ROUNDS` rounds of its messages (one
        model vector per binary problem each way per node, at the
        compression's precision) cost less than the exact mode ships once
        every sample is a support vector, ``(m - 1)`` times the raw upload
        (the logistic and squared losses always get there, the hinge loss
        with a dense ``Sigma`` a fraction ``n_SV / n`` of it); the exact
        kernel mode otherwise (other kernels, one node, small data, or a
        ``cache_size``, which only the exact mode uses).  Under ``privacy``
        it is ``"rff"`` for the rbf kernel (nothing about the data leaves a
        node).  A number ``n_components`` asks for an approximation:
        ``"rff"`` for the rbf kernel, ``"nystroem"`` for the others; where
        the fit has none (``approximation=None``, ``kernel="linear"``, a
        ``cache_size``) it raises rather than ignore it.
        """
        D = auto_components(n) if self.n_components == "auto" else self.n_components
        mode = self.approximation
        named = None if callable(self.kernel) else self.kernel
        if mode == "auto" and self.n_components != "auto" and named != "linear" \
                and self.cache_size is None:
            # A number of components asks for an approximation.
            mode = "rff" if named == "rbf" else "nystroem"
        elif mode == "auto":
            mode = None
            if named == "rbf" and self.cache_size is None:
                if self.privacy is not None:
                    mode = "rff"
                elif m > 1:
                    bits = {"auto": _AUTO_BITS, "none": 64}.get(self.compression,
                                                               self.compression)
                    message = n_problems * quantized_bytes(D + int(bool(self.fit_intercept)),
                                                           bits)
                    rff_bytes = 2 * _AUTO_ROUNDS * m * message
                    if rff_bytes < (m - 1) * n * d * dtype_bytes:
                        mode = "rff"
        if mode is None and self.n_components != "auto":
            ran = ("kernel='linear'" if not callable(self.kernel) and self.kernel == "linear"
                   else "the exact kernel mode" + (
                       " (cache_size is set)" if self.cache_size is not None else ""))
            raise ValueError(
                f"n_components={self.n_components!r} sets the landmarks or random features "
                f"of approximation='nystroem' / 'rff', but this fit runs {ran}, which has "
                "none: set approximation='rff' or 'nystroem', or leave n_components='auto'."
            )
        self.approximation_ = mode
        self.n_components_ = int(D) if mode is not None else None

    def _gamma_value(self, X):
        if isinstance(self.gamma, str):
            if self.gamma == "auto":
                return 1.0 / X.shape[1]
            var = float(X.var(dtype=np.float64))
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        return float(self.gamma)

    def _fit(self, X, Y, sample_weight, layout):
        """Run kernelized MOCHA on node-ordered data; ``Y`` is (n_problems, n)."""
        m = layout.n_nodes
        dtype = X.dtype
        dtype_bytes = 4 if dtype == np.float32 else 8
        n, d = X.shape
        self._resolve_mode(n, d, m, Y.shape[0], dtype_bytes)
        loss = _LOSSES[self.loss]()
        lam = self._regularization(n)
        dp_spec = check_privacy(self.privacy, type(self).__name__)
        if dp_spec is not None:
            self._check_private_mode(sample_weight)
        rng = check_random_state(self.random_state)
        seeds = node_seeds(rng, m)
        check_network_faults(self, self.network, _UNSUPPORTED_FAULTS)
        network = resolve_network(self.network)
        sim = network.start(m, server=True, random_state=rng, node_labels=self.nodes_)
        counter = sim.counter
        everyone = np.arange(m, dtype=np.intp)

        if sample_weight is None:
            sw = np.ones(n)
        else:
            sw = np.asarray(sample_weight, dtype=np.float64)
            if np.any(sw < 0):
                raise ValueError("sample_weight must be non-negative.")
        totals = np.add.reduceat(sw, layout.offsets[:-1]) if n else np.zeros(m)
        for t in range(m):
            if not totals[t] > 0:
                raise ValueError(
                    f"Node {self.nodes_.tolist()[t]!r} has no samples with positive weight."
                )

        # Omega.  Linear mode keeps Sigma factored when W^T W has rank below
        # m (n_problems * (d + intercept) < m): see _LowRankSigma.
        factored = (
            self.kernel == "linear" and self.approximation_ is None
            and Y.shape[0] * (d + int(bool(self.fit_intercept))) < m
        )
        learn, sigma = self._initial_task_covariance(m, factored=factored)
        warm = self._warm_start_duals(Y, layout)
        if warm is not None and learn:
            sigma = self._dual_state["sigma"].copy()

        # Kernel and features.
        setup_up = np.zeros(m, dtype=np.int64)
        setup_down = np.zeros(m, dtype=np.int64)
        gamma = None
        if not callable(self.kernel) and self.kernel != "linear":
            gamma = self._gamma_value(X)
            if isinstance(self.gamma, str) and self.gamma == "scale":
                setup_up += 3 * _FLOAT
                setup_down += _FLOAT
        spec = resolve_kernel(
            self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0, n_features=d
        )
        self._kernel_spec = spec
        bias = float(self.intercept_scaling) if self.fit_intercept else 0.0
        g = np.zeros(Y.shape)
        if self.cache_size is not None and self._primal_mode():
            raise ValueError(
                f"cache_size={self.cache_size!r} bounds the kernel rows of the exact "
                "kernel mode; the primal modes (kernel='linear', approximation="
                f"{self.approximation_!r}) keep none: leave cache_size=None."
            )
        if self.landmarks != "random" and self.approximation_ != "nystroem":
            raise ValueError(
                f"landmarks={self.landmarks!r} chooses Nystroem landmarks; it needs "
                f"approximation='nystroem' (got approximation={self.approximation!r})."
            )
        if self.approximation_ is not None:
            self._fit_feature_map(X, layout, spec, rng, setup_up, setup_down, dtype_bytes)
        if self._primal_mode():
            # The node solver runs on float64 features (BLAS dot / axpy); the
            # state makes them (and keeps float32 ones, see _PrimalState).
            state = _PrimalState(self._features(X), Y, sw, g, layout, totals, seeds, dtype_bytes,
                                 exact=self._exact_nodes(layout), loss_name=self.loss,
                                 bits=self._compression_bits(dp_spec))
        else:
            if self.local_solver == "exact":
                raise ValueError(
                    "local_solver='exact' solves the subproblems of the primal modes "
                    f"(kernel='linear' or an approximation); the exact kernel mode (kernel="
                    f"{self.kernel!r}) runs coordinate ascent: use local_solver='auto'."
                )
            self._compression_bits(dp_spec)  # refuses an explicit setting
            needed = np.ones((m, m), dtype=bool) if learn else (sigma != 0) | np.eye(m, dtype=bool)
            parallel = self._parallel_context()
            with parallel as p:
                state = _KernelState(
                    X, Y, sw, g, layout, totals, seeds, spec, bias, needed, dtype_bytes,
                    p if self._use_parallel() else None, self._cache_rows(layout, dtype),
                )

        theta = 0.0 if self.local_gap_target is None else float(self.local_gap_target)
        line_search = self._line_search(dp_spec)
        # Line search: the last measured coupling ratio (the nodes' scaling
        # is twice it, within [1, rho]), and which nodes have not yet been told the step
        # of their last update.
        ratio = 1.0
        step_pending = np.zeros(m, dtype=bool)
        step_floats = Y.shape[0] * _FLOAT
        search_floats = Y.shape[0] * _CONJUGATE_COEFFICIENTS[self.loss] * _FLOAT
        if getattr(state, "bits", None) is not None:
            search_floats += Y.shape[0] * _FLOAT  # the node's cross term (compressed)
        faults = _Faults(sim)
        rho = _rho(sigma)
        sigma_sent = np.zeros(m, dtype=bool)
        private = None
        rule = _StoppingRule(self, learn and m > 1)
        if dp_spec is not None:
            private = _PrivateUpdates(dp_spec, m, self.max_rounds, rng)
            if private.sigma > 0.0:
                rule = _PrivateSchedule(self, learn and m > 1)
        gaps, objectives, duals = [], [], []
        converged = False
        sigma_info = state.sigma_info_floats * _FLOAT
        n_chunks = effective_n_jobs(self.n_jobs) if self._use_parallel() else 1
        # The objective of the all-zero model (every dual variable is 0 here):
        # a fit that ends above it has diverged (see _set_fit_results).
        zero_objective = self._gap(state, sigma, lam, loss, layout, totals)[1]
        if warm is not None:
            # The previous fit's dual variables reach the server (and through
            # it the other nodes) as ordinary changes from zero, counted with
            # the setup messages of the first round.
            g[...] = warm
            alpha = warm * sw
            results = []
            for t in range(m):
                sl = layout.node_slice(t)
                results.append((alpha[:, sl] @ state.Z[sl], alpha[:, sl])
                               if self._primal_mode() else alpha[:, sl])
            setup_up += state.uplink(everyone, results)
            state.apply(everyone, results, None)
        with self._parallel_context() as parallel:
            parallel = parallel if self._use_parallel() else None
            for round_ in range(self.max_rounds):
                active_mask, work = faults.next()
                active = np.flatnonzero(active_mask).astype(np.intp)
                if round_ == 0 and (setup_up.any() or setup_down.any()):
                    # Setup messages go to every node (they all take part once).
                    senders = everyone[setup_up > 0]
                    counter.gather_to_server(senders, setup_up[setup_up > 0])
                    receivers = everyone[setup_down > 0]
                    counter.broadcast_from_server(receivers, setup_down[setup_down > 0])
                if active.size:
                    # With a diagonal Sigma (rho = 1) the subproblems are the
                    # dual's own blocks: full steps, nothing to search.
                    searching = line_search and rho > 1.0
                    down = state.downlink(active, sigma)
                    down += np.where(sigma_sent[active], 0, sigma_info)
                    sigma_sent[active] = True
                    # A node applies the step of its last update before it
                    # solves, and gets this round's scaling when searching.
                    down += np.where(step_pending[active], step_floats, 0)
                    down += _FLOAT if searching else 0
                    step_pending[active] = False
                    counter.broadcast_from_server(active, down)
                    scale = min(max(_COUPLING_MARGIN * ratio, 1.0), rho) if searching else rho
                    c = scale * _sigma_diag(sigma) / (lam * totals)
                    steps = _steps(work, layout.counts, self.local_epochs)
                    if searching:
                        g_before = state.g.copy()
                    results = state.solve(
                        active, steps, c, sigma, lam, theta, loss, parallel, n_chunks,
                        **({"full": work >= 1.0} if self._primal_mode() else {}),
                    )
                    if searching:
                        _, ratio = state.line_search(
                            active, results, g_before, sigma, lam, self.loss
                        )
                        step_pending[active] = True
                    gap_terms = 3 * _FLOAT
                    if private is not None:
                        results = private.privatize(active, results, totals)
                        # Private fits do not send the three gap terms.
                        gap_terms = 0 if private.sigma > 0.0 else gap_terms
                    up = state.uplink(active, results) + gap_terms
                    up += search_floats if searching else 0
                    counter.gather_to_server(active, up)
                    state.apply(active, results, parallel)
                gap, primal, dual = self._gap(state, sigma, lam, loss, layout, totals)
                if rule.omega_step_due(gap, primal):
                    if isinstance(sigma, _LowRankSigma):
                        gram = None
                        new_sigma = state.low_rank_omega_update(sigma, lam)
                    else:
                        gram, exchange = state.omega_exchange(active, sigma)
                        if exchange is not None and active.size:
                            counter.broadcast_from_server(active, exchange[0])
                            counter.gather_to_server(active, exchange[1])
                        new_sigma = omega_update(_task_gram(gram, sigma, lam))
                    # The joint objective of the models the W-step reached
                    # (the Omega step keeps the dual variables, so it moves them).
                    converged = rule.before_omega_step(
                        primal, dual, gram, sigma, lam,
                        joint=self._joint_override(state, gram, primal, dual, sigma, lam),
                    )
                    if converged:
                        # Stop with those models; their best Omega is the step's.
                        best_sigma = sigma if new_sigma is None else new_sigma
                    else:
                        if new_sigma is not None:
                            sigma = new_sigma
                            rho = _rho(sigma)
                            sigma_sent[:] = False
                        gap, primal, dual = self._gap(state, sigma, lam, loss, layout, totals)
                        rule.after_omega_step(
                            primal, dual, gram, sigma, lam,
                            joint=self._joint_override(state, gram, primal, dual, sigma, lam),
                        )
                else:
                    converged = rule.without_omega_step(gap, primal, dual)
                gaps.append(gap)
                objectives.append(primal)
                duals.append(dual)
                if self.verbose:
                    print(
                        f"round {round_ + 1}: gap {gap:.3e} primal {primal:.6e} "
                        f"({active.size}/{m} nodes)"
                        + (f"; Omega step, joint objective {rule.joint[0]:.6e} "
                           f"(dual {rule.best_dual:.6e})"
                           + (", stop before the step" if rule.stop_before_step else "")
                           if rule.stepped or rule.stop_before_step else "")
                    )
                if converged or round_ == self.max_rounds - 1:
                    receivers, payloads = state.final_delivery(sigma)
                    payloads = payloads + np.where(sigma_sent[receivers], 0, sigma_info)
                    payloads += np.where(step_pending[receivers], step_floats, 0)
                    counter.broadcast_from_server(receivers, payloads.astype(np.int64))
                counter.next_round()
                if converged:
                    break
        if private is not None:
            if private.sigma > 0.0:
                # A private fit runs its max_rounds by design (no gap is sent),
                # so it only warns when it ends worse than the all-zero model.
                converged = not objectives or objectives[-1] <= zero_objective
            private.finish(self)
        # Stopped at a due Omega step: the models are those of the last
        # W-step (at ``sigma``); the Omega reported is the best one for them.
        reported = best_sigma if rule.stop_before_step else sigma
        self._set_fit_results(
            gaps, objectives, duals, reported, rho, sim, converged,
            zero_objective=zero_objective, rule=rule,
        )
        self._store_model(state, X, Y, sw, layout, totals, sigma, lam, bias, dtype)
        # What warm_start=True starts the next fit from (the alternation's next Sigma).
        self._dual_state = dict(nodes=self.nodes_.copy(), counts=layout.counts.copy(),
                                loss=self.loss, Y=Y.copy(), g=g.copy(), sigma=reported.copy())
        return self

    @staticmethod
    def _joint_override(state, gram, primal, dual, sigma, lam):
        """The joint objectives where :func:`joint_objectives` on the dense
        ``G`` does not apply (None where it does): factored ``Sigma`` (from
        the factors) and compressed messages (the server's ``G`` for the
        primal, the dual variables' for the dual)."""
        if gram is None:
            return state.low_rank_joint_objectives(primal, dual, sigma, lam)
        if getattr(state, "bits", None) is not None:
            return state.compressed_joint_objectives(primal, dual, sigma, lam)
        return None

    def _compression_bits(self, dp_spec):
        """Bits per value of the primal modes' round messages, or None (float64).

        ``"auto"``: :data:`_AUTO_BITS` in the primal modes, None under
        ``privacy`` with a finite epsilon (the noise, not the rounding,
        bounds what the server learns) and in the exact kernel mode (which sends support vectors
        and dual changes, not model vectors).  An explicit number of bits
        there raises, naming the parameter.
        """
        if self.compression == "none":
            return None
        explicit = self.compression != "auto"
        if not self._primal_mode():
            if explicit:
                raise ValueError(
                    f"compression={self.compression!r} quantizes the model vectors of the "
                    "primal modes (kernel='linear' or an approximation); the exact kernel "
                    f"mode (kernel={self.kernel!r}, approximation=None) sends support vectors "
                    "and dual changes: use compression='auto' or 'none'."
                )
            return None
        if dp_spec is not None and math.isfinite(dp_spec.budget()[0]):
            if explicit:
                raise ValueError(
                    f"compression={self.compression!r} cannot be combined with privacy=: the "
                    "private updates go out with their noise, unquantized; use "
                    "compression='auto' or 'none'."
                )
            return None
        # (privacy with epsilon=inf releases the updates unnoised: the
        # non-private fit)
        return int(self.compression) if explicit else _AUTO_BITS

    def _exact_nodes(self, layout):
        """The nodes that solve their local subproblem exactly (``local_solver``)."""
        if self.local_solver == "coordinate":
            return np.zeros(layout.n_nodes, dtype=bool)
        if self.loss not in _EXACT_KIND:
            if self.local_solver == "exact":
                raise ValueError(
                    f"local_solver='exact' needs a loss with a quadratic conjugate (hinge, "
                    f"squared_hinge, squared); loss={self.loss!r} runs coordinate ascent: use "
                    "local_solver='auto' or 'coordinate'."
                )
            return np.zeros(layout.n_nodes, dtype=bool)
        if self.local_solver == "exact":
            return np.ones(layout.n_nodes, dtype=bool)
        return layout.counts <= _EXACT_MAX_SAMPLES

    def _line_search(self, dp_spec):
        """Whether the server searches the step (``aggregation``, resolved).

        A private fit with ``epsilon=inf`` releases its updates unnoised, so
        it is the non-private fit and searches too."""
        noised = dp_spec is not None and math.isfinite(dp_spec.budget()[0])
        if self.aggregation == "add":
            return False
        if self.aggregation == "auto":
            return self._primal_mode() and not noised
        if not self._primal_mode():
            raise ValueError(
                "aggregation='line_search' is implemented for the primal modes "
                "(kernel='linear', approximation='nystroem' or 'rff'); the exact kernel "
                f"mode (kernel={self.kernel!r}) adds the steps: use aggregation='add' or 'auto'."
            )
        if noised:
            raise ValueError(
                "aggregation='line_search' needs the nodes' exact conjugate changes, which "
                "privacy= does not release; use aggregation='add' or 'auto' with privacy."
            )
        return True

    def _check_private_mode(self, sample_weight):
        """Refuse the modes and settings whose messages ``privacy=`` cannot cover."""
        name = type(self).__name__
        if not self._primal_mode():
            raise ValueError(
                f"{name}(privacy=...) is refused in the exact kernel mode "
                "(approximation=None): its messages carry support vectors, raw samples "
                "of the nodes. Use approximation='rff' or kernel='linear'."
            )
        if self.approximation_ == "nystroem":
            raise ValueError(
                f"{name}(privacy=...) is refused with approximation='nystroem': its "
                "landmarks are raw samples sent to every node. Use approximation='rff' "
                "(data-independent features) or kernel='linear'."
            )
        if math.isinf(self.privacy.budget()[0]):
            # No noise: the gap terms and the setup statistics may be sent.
            pass
        elif self.kernel != "linear" and isinstance(self.gamma, str) and self.gamma == "scale":
            raise ValueError(
                f"{name}(privacy=...) needs a numeric gamma or gamma='auto': "
                "gamma='scale' sends every node's feature sums and sums of squares."
            )
        elif (isinstance(self.omega, str) and self.omega == "learn"
              and self.omega_update_every is None):
            raise ValueError(
                f"{name}(privacy=...) with omega='learn' needs omega_update_every: the "
                "learned-Omega stopping rule reads the nodes' duality-gap terms, which a "
                "private fit does not send."
            )
        if sample_weight is not None:
            raise ValueError(f"{name}(privacy=...) does not accept sample_weight.")

    def _warm_start_duals(self, Y, layout):
        """``warm_start=True``: the previous fit's dual variables (node order), or None.

        They are feasible at any ``C`` (the dual variables' box does not
        depend on it), so they start a fit at another ``C`` on the same
        samples; other samples, targets or loss raise.
        """
        state = getattr(self, "_dual_state", None)
        if not self.warm_start or state is None:
            return None
        same = (
            state["loss"] == self.loss
            and np.array_equal(state["nodes"], self.nodes_)
            and np.array_equal(state["counts"], layout.counts)
            and state["Y"].shape == Y.shape
            and np.array_equal(state["Y"], Y)
        )
        if not same:
            raise ValueError(
                "warm_start=True starts from the previous fit's dual variables, so it "
                "needs the same nodes, samples per node, targets and loss as that fit; "
                "set warm_start=False to fit other data."
            )
        return state["g"]

    def _cache_rows(self, layout, dtype):
        """Received kernel rows each node may cache under ``cache_size`` (None: all).

        The bound is split evenly over the nodes: node u keeps at most
        ``cache_size MB / (n_nodes n_u itemsize)`` rows of ``n_u`` values.
        """
        if self.cache_size is None:
            return None
        per_node = float(self.cache_size) * 2**20 / layout.n_nodes
        return np.floor(per_node / (layout.counts * np.dtype(dtype).itemsize)).astype(np.intp)

    def _initial_task_covariance(self, n_nodes, factored=False):
        """``(learn, Sigma_0)``: identity / m when Omega is learned or independent
        (a :class:`_LowRankSigma` if ``factored``), else the inverse of the
        given Omega (validated)."""
        learn = isinstance(self.omega, str) and self.omega == "learn"
        if isinstance(self.omega, str):
            if factored:
                return learn, _LowRankSigma.scaled_identity(n_nodes)
            return learn, np.eye(n_nodes) / n_nodes
        return learn, _check_omega(self.omega, n_nodes)[1]

    def _set_fit_results(self, gaps, objectives, duals, sigma, rho, simulation, converged,
                         *, zero_objective=None, rule=None):
        """Curves, Omega and communication attributes, shared by every engine's loop.

        A fit that did not converge warns; when it also ends worse than the
        all-zero model (objective ``zero_objective``), the warning says so,
        with the network's faults and how few updates the least active node
        sent, so a wrong answer never comes without a word.
        """
        joint = (np.nan, np.nan) if rule is None or rule.joint is None else rule.joint
        joint_gap = np.nan if rule is None else rule.joint_gap
        if not converged:
            faults = _fault_note(self.network, simulation)
            worse = ""
            if zero_objective is not None and objectives[-1] > zero_objective:
                worse = (
                    f"; the returned model is WORSE than the all-zero model (objective "
                    f"{objectives[-1]:.3e} > {zero_objective:.3e}): do not use it"
                )
            if rule is not None and rule.learn:
                # Learned Omega: the rule of _StoppingRule, not a duality gap.
                change = "none yet" if rule.last_change is None else f"{rule.last_change:.3e}"
                what = (
                    f"did not meet its learned-Omega stopping rule in "
                    f"max_rounds={self.max_rounds} rounds (the joint objective of the "
                    f"models a W-step solved to relative duality gap "
                    f"{_W_STEP_TOL_FACTOR * self.tol:g} reaches, changing by at most "
                    f"tol={self.tol} relative since the previous such W-step, or within "
                    f"tol of the best joint dual; last W-step relative gap "
                    f"{gaps[-1] / max(abs(objectives[-1]), _TINY):.3e}, last relative "
                    f"change {change}, joint objective {joint[0]:.3e}, certified joint "
                    f"gap {joint_gap:.3e})"
                )
            else:
                what = (
                    f"did not reach the duality gap tol={self.tol} (relative) in "
                    f"max_rounds={self.max_rounds} rounds (gap {gaps[-1]:.3e}, objective "
                    f"{objectives[-1]:.3e})"
                )
            warnings.warn(
                f"{type(self).__name__} {what}"
                f"{faults}{worse}; "
                "increase max_rounds or tol"
                + (", or lower the network's fault rates" if faults else "") + ".",
                ConvergenceWarning,
            )
        self.n_iter_ = len(gaps)
        # The joint problem's objective and gap (for a fixed Omega, the
        # W-problem's); NaN when Omega is learned but no Omega step ran.
        self.joint_objective_ = float(joint[0])
        self.joint_duality_gap_ = float(joint_gap)
        self.joint_objective_curve_ = np.asarray(
            rule.curve if rule is not None else np.full(len(gaps), np.nan), dtype=np.float64
        )
        self.duality_gap_curve_ = np.asarray(gaps)
        self.objective_curve_ = np.asarray(objectives)
        self.dual_objective_curve_ = np.asarray(duals)
        self.task_covariance_ = sigma
        if isinstance(sigma, _LowRankSigma):
            self.omega_ = sigma  # formed (m x m) on access only
        else:
            with _blas_controller().limit(limits=1, user_api="blas"):
                evals, evecs = linalg.eigh(sigma)
                omega = (evecs / evals) @ evecs.T
            self.omega_ = 0.5 * (omega + omega.T)
        self.rho_ = rho
        self._set_communication(simulation)

    def _gap(self, state, sigma, lam, loss, layout, totals):
        """``(gap, primal, dual)`` at fixed ``Sigma``."""
        f = state.margins(sigma, lam)
        sums = np.zeros((layout.n_nodes, 3))
        for k in range(f.shape[0]):
            node_gap_terms(f[k], state.Y[k], state.sw, state.g[k], layout.offsets, loss, sums)
        loss_sum, conj_sum, cross_sum = (sums / totals[:, None]).sum(axis=0)
        quadratic = getattr(state, "quadratic_terms", lambda *a: None)(sigma, lam)
        if quadratic is not None:
            # compression: the server's model is not exactly W(alpha); the
            # gap of that model against the dual variables' dual objective
            primal = loss_sum + quadratic[0]
            dual = -conj_sum - quadratic[1]
            return primal - dual, primal, dual
        primal = loss_sum + 0.5 * cross_sum
        dual = -conj_sum - 0.5 * cross_sum
        return loss_sum + conj_sum + cross_sum, primal, dual

    def _regularization(self, n_samples, warn=True):
        """``lambda`` of the objective: ``1 / (C n_samples)``, or the deprecated ``lam``.

        Every node needs it; in the byte model it travels folded into the
        ``Sigma`` entries the server sends (``sigma_tu / lambda``), at no cost.
        """
        if self.lam is None:
            return 1.0 / (float(self.C) * n_samples)
        if not warn:
            return float(self.lam)
        if self.C != 1.0:
            raise ValueError(
                f"Set C or the deprecated lam, not both (got C={self.C!r}, "
                f"lam={self.lam!r}); C = 1 / (lam * n_samples)."
            )
        warnings.warn(
            "lam was deprecated in skfed 0.1 and will be removed in 0.3; use "
            f"C = 1 / (lam * n_samples) instead (here C={1.0 / (self.lam * n_samples):.6g}), "
            "which means the same at any number of nodes and samples.",
            FutureWarning,
        )
        return float(self.lam)

    def _use_parallel(self):
        # n_jobs=None is parallel inside a joblib.parallel_config context.
        return effective_n_jobs(self.n_jobs) > 1

    def _parallel_context(self):
        if self._use_parallel():
            # The exact kernel mode updates its kernel caches, margin states,
            # dual variables and RNG states in place every round (too large to
            # ship to other processes): it requires shared memory, i.e. threads
            # even under parallel_config(backend="dask").  The primal modes'
            # node solves are pure and go to any backend.
            require = None if self._primal_mode() else "sharedmem"
            return Parallel(n_jobs=self.n_jobs, prefer="threads", require=require)
        return _NullContext()

    # ----------------------------------------------------- feature maps
    def _fit_feature_map(self, X, layout, spec, rng, setup_up, setup_down, dtype_bytes):
        d = X.shape[1]
        if self.approximation_ == "rff":
            if spec.name != "rbf":
                raise ValueError(
                    "approximation='rff' needs kernel='rbf' (random Fourier features "
                    f"of the Gaussian kernel); got kernel={self.kernel!r}."
                )
            D = self.n_components_
            self.random_weights_ = rng.normal(
                scale=np.sqrt(2.0 * spec.gamma), size=(d, D)
            ).astype(X.dtype)
            self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, size=D).astype(X.dtype)
            return
        # Nystroem: every node contributes a share of the landmarks (or of the
        # local centres) proportional to its number of samples.
        n = X.shape[0]
        n_landmarks = min(self.n_components_, n)
        counts = _proportional_shares(layout.counts, n_landmarks)
        if self.landmarks == "kmeans":
            self.components_ = _kmeans_landmarks(
                X, layout, n_landmarks, rng, setup_up, setup_down, dtype_bytes
            )
        else:
            picks = []
            for t in range(layout.n_nodes):
                if counts[t]:
                    local = rng.choice(layout.counts[t], size=counts[t], replace=False)
                    picks.append(np.sort(local) + layout.offsets[t])
            picks = np.concatenate(picks) if picks else np.zeros(0, dtype=np.intp)
            self.components_ = np.ascontiguousarray(X[picks])
            setup_up += counts * d * dtype_bytes
            setup_down += (len(picks) - counts) * d * dtype_bytes
        self._landmark_counts = counts
        K = pairwise_kernel(self.components_, kernel=spec).astype(np.float64)
        evals, evecs = linalg.eigh(0.5 * (K + K.T))
        evals = np.maximum(evals, 1e-12 * max(evals[-1], 1e-300))
        self.normalization_ = ((evecs / np.sqrt(evals)) @ evecs.T).astype(X.dtype)

    def _features(self, X):
        """Features the primal modes work on (with the intercept column)."""
        if self.approximation_ == "rff":
            D = self.n_components_
            Z = np.cos(X @ self.random_weights_ + self.random_offset_)
            Z *= np.sqrt(2.0 / D)
        elif self.approximation_ == "nystroem":
            Z = pairwise_kernel(X, self.components_, kernel=self._kernel_spec) @ self.normalization_
        else:
            Z = X
        Z = np.asarray(Z, dtype=X.dtype)
        if self.fit_intercept:
            column = np.full((Z.shape[0], 1), self.intercept_scaling, dtype=X.dtype)
            Z = np.hstack([Z, column])
        return np.ascontiguousarray(Z)

    # ------------------------------------------------------------ model
    def _store_model(self, state, X, Y, sw, layout, totals, sigma, lam, bias, dtype):
        m = layout.n_nodes
        alpha = state.g * sw  # (n_problems, n), node order
        support_sorted = np.flatnonzero(np.any(alpha != 0, axis=0))
        node_of = np.repeat(np.arange(m), layout.counts)
        self.support_ = layout.order[support_sorted]
        self.n_support_ = np.bincount(node_of[support_sorted], minlength=m).astype(np.int32)
        self.support_vectors_ = np.ascontiguousarray(X[support_sorted])
        self.dual_coef_ = alpha[:, support_sorted].astype(dtype)
        sv_node = node_of[support_sorted]
        if self._primal_mode():
            W = state.weights(sigma, lam)  # (n_problems, m, d')
            W = np.concatenate([W, W.mean(axis=1, keepdims=True)], axis=1)
            self._W = W
            n_feat = W.shape[2] - int(self.fit_intercept)
            coef = W[:, :m, :n_feat]
            intercept = (
                W[:, :m, n_feat] * self.intercept_scaling if self.fit_intercept
                else np.zeros(W.shape[:2])[:, :m]
            )
            if W.shape[0] == 1:
                self.coef_ = coef[0].astype(dtype)
                self.intercept_ = intercept[0].astype(dtype)
            else:
                self.coef_ = np.transpose(coef, (1, 0, 2)).astype(dtype)
                self.intercept_ = intercept.T.astype(dtype)
        else:
            # Coefficients of the personalized models over the support vectors:
            # f_t(x) = sum_j B[k, j, t] k(x_j, x); column m is the average model.
            scaled = alpha[:, support_sorted] / totals[sv_node]
            B = scaled[:, :, None] * sigma[sv_node][None, :, :] / lam
            B = np.concatenate([B, B.mean(axis=2, keepdims=True)], axis=2)
            self._sv_coef = B
            # The intercept is the bias feature's weight times intercept_scaling.
            intercept = bias * bias * B[:, :, :m].sum(axis=1)  # (n_problems, m)
            self.intercept_ = (intercept[0] if B.shape[0] == 1 else intercept.T).astype(dtype)

    def _raw_decision(self, X, groups):
        """Scores (n_samples, n_problems) of each sample's personalized model."""
        check_is_fitted(self)
        X, codes = self._validate_predict_data(X, groups)
        m = len(self.nodes_)
        columns = np.where(codes < 0, m, codes)
        dtype = self.support_vectors_.dtype if hasattr(self, "support_vectors_") else X.dtype
        X = np.ascontiguousarray(X, dtype=dtype)
        n_problems = self.dual_coef_.shape[0]
        out = np.empty((X.shape[0], n_problems))
        if X.shape[0] == 0:
            return out
        if self._primal_mode():
            Z = self._features(X).astype(np.float64)
            W = self._W  # (n_problems, m + 1, d')
            for k in range(n_problems):
                out[:, k] = np.einsum("id,id->i", Z, W[k, columns])
            return out
        bias = float(self.intercept_scaling) if self.fit_intercept else 0.0
        batch = 2048
        for start in range(0, X.shape[0], batch):
            stop = min(start + batch, X.shape[0])
            Xb = X[start:stop]
            if self.support_vectors_.shape[0]:
                Kb = pairwise_kernel(Xb, self.support_vectors_, kernel=self._kernel_spec)
                Kb = Kb.astype(np.float64)
                if bias:
                    Kb += bias * bias
            else:
                Kb = np.zeros((stop - start, 0))
            for k in range(n_problems):
                scores = Kb @ self._sv_coef[k]  # (batch, m + 1)
                out[start:stop, k] = scores[np.arange(stop - start), columns[start:stop]]
        return out


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


class FederatedMultiTaskClassifier(FederatedClassifierMixin, _BaseMultiTask):
    """Federated kernel multi-task classifier with a learned task relationship (kernelized MOCHA).

    Every node t (phone, user, hospital: the ``groups`` of its samples)
    learns its own classifier ``f_t(x) = w_t . phi(x)``; the node models are
    coupled by a task-relationship matrix ``Omega`` learned from the data
    (or fixed), and trained over a simulated network in which only dual
    updates, support vectors and small summaries travel.  The objective
    (Caldas, Smith & Talwalkar; Smith et al. 2017)::

        min_{W, Omega}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                        + (lam / 2) tr(W Omega W^T)
        s.t.  Sigma = Omega^{-1} positive definite,  tr(Sigma) = 1

    with dual (paper eq. 3), for fixed Omega, minimised over ``alpha``::

        (1 / (2 lam)) alpha^T K alpha + sum_t (1 / n_t) sum_i loss*(-alpha_ti)
        K[(t, i), (u, j)] = sigma_tu k(x_ti, x_uj) / (n_t n_u)

    Each round every participating node runs dual coordinate ascent on its
    local subproblem (MOCHA's eq. 4, with the safe scaling ``rho =
    lambda_max(D^-1/2 Sigma D^-1/2)``, ``D = diag(Sigma)``, at most MOCHA's
    ``max_t sum_u |sigma_tu| / sigma_tt``; in the primal modes, by default,
    with the coupling ratio measured on the last round's steps instead, the
    server then taking the exact best step along the nodes' combined step:
    ``aggregation``) and ships what changed; once that
    W-step is finished (relative duality gap ``10 tol``) the server sets
    ``Sigma = (W^T W)^{1/2} / tr((W^T W)^{1/2})`` (eqs. 5-6), keeping the
    dual variables (warm start).  ``lam = 1 / (C n_samples)``.  With sample weights ``s_ti`` the loss
    average of node t is weighted, ``(1 / sum_i s_ti) sum_i s_ti loss(...)``.
    The protocol and what it costs in bytes are described in
    :mod:`skfed.multitask`.

    Parameters
    ----------
    C : float > 0, default=1.0
        Inverse regularization per sample, as in :class:`~sklearn.svm.SVC`:
        ``lam = 1 / (C n_samples)``.  It means the same at any number of
        nodes and samples: with ``omega="independent"`` node t solves an
        SVM with ``C_t = C n_samples / (n_nodes n_t)`` (``C`` for equal
        node sizes), and when the learned Omega ties every node into one
        model the problem is the pooled SVM with this ``C``.
    lam : float > 0 or None, default=None
        The objective's ``lambda`` directly.

        .. deprecated:: 0.1
           ``lam`` is deprecated and will be removed in 0.3; use
           ``C = 1 / (lam n_samples)``, which gives exactly the same fit.
    loss : {"hinge", "squared_hinge", "logistic"}, default="squared_hinge"
        ``hinge``: ``max(0, 1 - y z)`` (SVM); ``squared_hinge``:
        ``max(0, 1 - y z)^2`` (the default, as for
        :class:`~sklearn.svm.LinearSVC`: on HAR sitting, HAR activity and
        Landmine it scores above the hinge loss, on Landmine's 6 % positives
        by 0.04 AUC; see the user guide); ``logistic``: ``log(1 +
        exp(-y z))`` (enables :meth:`predict_proba`).
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplacian"} or callable, default="rbf"
        The kernel, as in :func:`skfed.kernels.pairwise_kernel`.
        ``"linear"`` without approximation is MOCHA itself: the primal
        ``W`` is kept and a round costs ``d`` floats per node each way.
    gamma : {"scale", "auto"} or float > 0, default="scale"
        Kernel coefficient (rbf, poly, sigmoid, laplacian). ``"scale"`` is
        ``1 / (n_features * X.var())`` over the pooled training data (the
        nodes share three numbers each to compute it), ``"auto"`` is
        ``1 / n_features``.
    degree : float >= 1, default=3
        Degree of the poly kernel.
    coef0 : float, default=1.0
        Independent term of the poly and sigmoid kernels.
    omega : {"learn", "independent"} or array-like of shape (n_nodes, n_nodes), default="learn"
        ``"learn"``: start from ``Sigma = I / n_nodes`` and learn ``Omega``;
        ``"independent"``: keep ``Omega = n_nodes I`` (purely local models,
        nothing but gap terms is communicated); an array: a fixed ``Omega``
        (symmetric positive definite, rows in the order of ``nodes_``),
        used as given (not rescaled to ``tr(Omega^{-1}) = 1``).
    omega_update_every : int >= 1 or None, default=None
        ``omega="learn"``: the Omega step is taken once the W-step's
        relative duality gap is at most ``10 tol``; with an int ``H``, also
        after ``H`` rounds without an Omega step (the paper's fixed
        schedule).
    approximation : {"auto", None, "nystroem", "rff"}, default="auto"
        ``"auto"``: ``"rff"`` for the rbf kernel when the data are large
        relative to the model (100 rounds of quantized model vectors cost
        less than ``m - 1`` times the raw upload, what the exact mode ships
        once every sample is a support vector; under ``privacy`` always),
        ``None`` otherwise (and with a ``cache_size``); a number
        ``n_components`` asks for an approximation (``"rff"`` for the rbf
        kernel, ``"nystroem"`` for the others); the choice is
        ``approximation_`` and the user guide gives the evidence.  ``None``: the exact kernel, with
        support-vector exchange.
        ``"nystroem"``: linear MOCHA on the features
        ``z(x) = K(x, L) K(L, L)^{-1/2}`` of ``n_components`` landmarks ``L``
        drawn once, each node contributing a share proportional to its
        number of samples drawn uniformly from its own samples (the
        landmarks are sent to every node; their bytes are counted).
        ``"rff"``: linear MOCHA on random Fourier features
        ``sqrt(2 / D) cos(x V + b)``, ``V ~ N(0, 2 gamma)``, ``b ~ U(0, 2 pi)``
        from a seed all nodes share (rbf only; no data leaves a node).
    n_components : int or "auto", default="auto"
        Number of landmarks or random features; ``"auto"``: ``ceil(2
        sqrt(n) ln n)`` for ``n`` training samples (all nodes), the order
        with which random features and Nystroem landmarks keep the exact
        kernel method's learning rate (Rudi & Rosasco 2017; Rudi,
        Camoriano & Rosasco 2015), the factor 2 chosen on HAR (see the user
        guide): 5,137 samples give 1,225.  At most 4,096: the primal modes
        hold the ``n x D`` feature matrix (``8 n D`` bytes in float64), which
        would otherwise grow faster than the data.  The number used is
        ``n_components_``.
    landmarks : {"random", "kmeans"}, default="random"
        Nystroem landmarks (``approximation="nystroem"`` only; any other
        mode raises): ``"random"`` samples drawn by every node from its own
        samples; ``"kmeans"`` k-means centres computed once over the
        network (local k-means on every node, weighted k-means of the local
        centres at the server; see :mod:`skfed.multitask` for the bytes).
        On HAR sitting k-means landmarks cut the error of 100 landmarks
        from 4.6 % to 4.1 % at the same bytes.
    fit_intercept : bool, default=True
        Add a bias: a constant feature ``intercept_scaling`` (the kernel
        becomes ``k(x, x') + intercept_scaling^2``).  The bias is part of
        ``w_t``, so it is regularized and coupled through Omega like the
        other weights (as in :class:`~sklearn.svm.LinearSVC`).
    intercept_scaling : float > 0, default=1.0
        Value of the constant bias feature.
    local_epochs : float > 0, default=10.0
        Passes over its samples a node makes per round (MOCHA's local
        iterations; stragglers of ``network`` do a random fraction of them).
    local_gap_target : float in (0, 1) or None, default=None
        MOCHA's theta: a node also stops its round as soon as (after a pass)
        its local duality gap is at most this fraction of its value at the
        start of the round.
    local_solver : {"auto", "exact", "coordinate"}, default="auto"
        How a node solves its subproblem in the primal modes.
        ``"coordinate"``: MOCHA's dual coordinate ascent, ``local_epochs``
        passes per round.  ``"exact"`` (hinge, squared hinge and squared
        loss): to optimality (projected gradient at most 1e-10 in margin
        units) by projected damped Newton on the node's Gram matrix
        ``Z_t Z_t^T``, which it keeps: ``n_t^2`` floats per node and
        ``O(n_t^3)`` per Newton iteration (a few to a few tens per round);
        ``local_epochs`` and ``local_gap_target`` then apply only to
        stragglers, which do their fraction of coordinate-ascent epochs.
        ``"auto"``: ``"exact"`` on the nodes with at most 1,000 samples
        when the loss allows it (at most 8 MB of Gram matrix per node, and
        at most 1,000 floats per sample in all), ``"coordinate"``
        otherwise.  The exact kernel mode always runs coordinate ascent, and
        so does the Flower engine (``"auto"`` means ``"coordinate"`` there;
        ``"exact"`` is refused).
    aggregation : {"auto", "line_search", "add"}, default="auto"
        How the server combines the nodes' local steps.  ``"add"``:
        CoCoA+ adding, each node's subproblem scaled by the safe ``rho``
        (``rho_``), every step taken in full.  ``"line_search"`` (primal
        modes: ``kernel="linear"`` and the approximate modes): the nodes
        scale their subproblems by twice the coupling ratio the server
        measured on the previous round's steps (within [1, ``rho``]), and the
        server takes the step in [0, 1] along the sum of their steps that
        maximizes the dual exactly; each node sends one or two more floats
        (its conjugate's change) and gets the step back with its next
        message.  With a diagonal ``Sigma`` (``rho = 1``) both are the same
        and nothing is searched.  ``"auto"``: ``"line_search"`` in the
        primal modes without ``privacy`` (or with ``epsilon=inf``), ``"add"``
        otherwise (and on the Flower engine, whose server adds the steps).
        See the user guide.
    compression : {"auto", "none"} or int in [2, 32], default="auto"
        Precision of the primal modes' round messages (``w_t`` down,
        ``Delta v_t`` up).  An integer ``b``: each vector travels as one
        float64 scale and ``b``-bit integers (:func:`quantize`, ``8 +
        ceil(d' b / 8)`` bytes), with error feedback: node t keeps what
        rounding left out of its updates and sends it with the next one,
        and gets the difference between the server's ``w_t`` and the model
        it holds, so both errors stay within one rounding of the latest
        change.  The fitted model is the server's (its duality gap, the
        stopping rule's, is that of the returned model against the dual
        variables' dual objective, an honest certificate), delivered
        unquantized at the end.  ``"none"``: float64, as before.
        ``"auto"``: 8 bits in the primal modes, ``"none"`` under ``privacy``
        with a finite epsilon, in the exact kernel mode and on the Flower
        engine; an explicit number of bits there raises.  See the user guide.
    tol : float >= 0, default=1e-3
        Fixed Omega: stop when the duality gap is at most ``tol`` times the
        primal objective.  ``omega="learn"``: at every Omega step due after
        a W-step finished to a relative gap of ``10 tol``, the joint
        objective ``loss(W) + (lam / 2) ||W||_*^2`` of the models that
        W-step reached is evaluated; the fit stops there, without taking the
        step, when that value changed by at most ``tol`` (relative) since
        the previous such step, or is within ``tol`` (relative) of the best
        joint dual seen (a certified bound).  The models returned are those,
        with their best Omega; see the user guide for how close to the
        optimum that lands.
    max_rounds : int, default=1000
        Maximum number of communication rounds; a
        :class:`~sklearn.exceptions.ConvergenceWarning` is raised when they
        run out.
    cache_size : float >= 0 or None, default=None
        Exact kernel mode: a bound, in MB summed over all nodes, on the
        kernel rows of received support vectors the nodes cache (node u
        keeps at most ``cache_size / n_nodes`` MB, rows of ``n_u``
        values); None: every row is cached.  Rows beyond the bound are
        recomputed whenever their dual variable changes: each costs
        ``n_u d`` kernel operations per change instead of memory.  The fit
        (and its bytes) does not depend on it.  Not bounded by it: each
        node's own kernel block (``n_t^2`` values) and margin states
        (``n_problems n_nodes n_t`` floats).  Unbounded, the cache grows to
        ``n_SV n_t`` values per node (20 nodes of 1,000 samples: up to
        3 GB); any other mode raises.
    warm_start : bool, default=False
        Start from the previous fit's dual variables (and, with
        ``omega="learn"``, its ``Sigma``) instead of zero and ``I /
        n_nodes``: for a path over ``C`` on the same data (the dual
        variables stay feasible at any ``C``).  They reach the server and
        the other nodes in the first round as ordinary changes from zero,
        and their bytes are counted (as if nothing had been kept from the
        previous fit).  Other nodes, samples per node, targets or loss raise.
        On 8 HAR people (exact rbf, learned Omega) the path ``C = 0.1, 1,
        10, 100`` took about the same rounds as cold fits and 25-40 % fewer
        bytes at every ``C`` above the first.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        Nodes never seen in fit: ``"global"`` predicts with the average of
        the node models, ``"error"`` raises.
    network : SimulatedNetwork or None, default=None
        The simulated network (drops, stragglers); None is a perfect one.
        Rogue nodes are refused with an error (the paper defines none).
    random_state : int, RandomState instance or None, default=None
        Seeds the coordinate order of every node, the faults, landmarks and
        random features.
    n_jobs : int or None, default=None
        Nodes solved in parallel through joblib (threads by default: the
        node solvers release the GIL).  ``None`` means 1 unless inside a
        :func:`joblib.parallel_config` context.  In the primal modes
        (``kernel="linear"``, ``approximation="nystroem"`` or ``"rff"``)
        the node solves are pure, so any joblib backend works, Dask workers
        included (``parallel_config(backend="dask")``: one chunk of nodes
        per worker and round).  The exact kernel mode updates its kernel
        caches and margin states in place every round, so it requires
        shared memory and always runs on threads, even under the Dask
        backend.  Results do not depend on ``n_jobs`` or the backend.
    verbose : int, default=0
        Print the gap after every round, and at an Omega step the joint
        objective after it and that of the models the W-step reached
        before it.
    privacy : DifferentialPrivacy, default=None
        Make every node's messages ``(epsilon, delta)``-differentially
        private with respect to its whole data set (client level) by
        clipping each round's update ``Delta v_t`` (all problems) to
        Frobenius norm ``B = privacy.clip_norm`` and adding Gaussian noise
        of standard deviation ``sigma_1 * 2 B`` to every entry (sensitivity
        ``2 B`` whatever the data; ``sigma_1`` calibrated by the analytic
        Gaussian mechanism so that ``max_rounds`` releases spend the budget;
        the server's ``V`` and everything sent from it are post-processing).
        The nodes' duality-gap terms are not sent, so a private fit runs
        ``max_rounds`` rounds, with an Omega step every
        ``omega_update_every`` rounds (required with ``omega="learn"``).
        Only the modes that send no raw data: ``approximation="rff"`` (with
        a numeric ``gamma`` or ``"auto"``: ``"scale"`` sends feature sums)
        and ``kernel="linear"``; the exact kernel and Nystroem modes send
        samples and are refused with an error, as is ``sample_weight``.
        Sets ``privacy_spent_`` (epsilon per node, from the accountant, for
        the rounds it took part in) and ``privacy_``.  None: no privacy.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
        Node labels seen in fit.
    classes_ : ndarray of shape (n_classes,)
        All classes seen in fit (over every node).
    omega_ : ndarray of shape (n_nodes, n_nodes)
        The task-relationship matrix ``Omega`` (m x m by definition).  In
        linear mode with ``n_problems * (n_features + fit_intercept) <
        n_nodes`` the fit keeps it as identity plus low rank and forms this
        matrix only when it is read (``O(n_nodes^2)`` memory then).
    task_covariance_ : ndarray of shape (n_nodes, n_nodes)
        ``Sigma = Omega^{-1}`` (formed on access likewise).
    rho_ : float
        The safe scaling ``rho`` for the final ``Sigma``.
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        Dual variables ``alpha`` of the support vectors (one row per binary
        problem: one for two classes, one per class otherwise).
    support_ : ndarray of shape (n_SV,)
        Indices (into the training ``X``) of the support vectors, node by
        node in the order of ``nodes_``.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    n_support_ : ndarray of shape (n_nodes,)
        Support vectors of each node.
    coef_ : ndarray of shape (n_nodes, n_features') or (n_nodes, n_classes, n_features')
        Per-node weights, in the primal modes (``kernel="linear"``: input
        features; approximate modes: the ``n_components`` features).
    intercept_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Per-node bias (``intercept_scaling`` times the bias weight).
    components_ : ndarray of shape (n_components, n_features)
        Nystroem landmarks.
    normalization_ : ndarray of shape (n_components, n_components)
        ``K(L, L)^{-1/2}`` (Nystroem).
    random_weights_, random_offset_ : ndarray
        ``V`` and ``b`` of the random Fourier features.
    approximation_ : {None, "nystroem", "rff"}
        The mode the fit used (``approximation="auto"`` resolved).
    n_components_ : int or None
        Landmarks or random features used (None in the exact kernel and
        linear modes).
    n_iter_ : int
        Communication rounds run.
    duality_gap_curve_ : ndarray of shape (n_iter_,)
        Duality gap after every round (after the Omega update of that round,
        if any).
    objective_curve_ : ndarray of shape (n_iter_,)
        Primal objective after every round.
    dual_objective_curve_ : ndarray of shape (n_iter_,)
        Dual objective after every round.
    joint_objective_curve_ : ndarray of shape (n_iter_,)
        ``omega="learn"``: the joint objective ``loss(W) + (lam / 2)
        ||W||_*^2`` of the models the W-step reached, at every round where
        an Omega step was due (evaluated before the step), NaN in between
        (fixed Omega: the primal objective).
    joint_objective_ : float
        Its last value: for a fit that met the rule, the joint objective of
        the returned models with the returned Omega.
    joint_duality_gap_ : float
        A certified upper bound on ``joint_objective_`` minus the optimum:
        the gap to the best joint dual ``-sum conjugates - lambda_max(G) /
        (2 lam)`` seen during the fit (loose until Omega has settled: 12-17 %
        of the objective on HAR in linear mode); the duality gap for a
        fixed Omega.
    communication_ : CommunicationLog
        Bytes and messages per node and per round.
    n_bytes_sent_, n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    FederatedMultiTaskRegressor : The same method with the squared loss.
    skfed.baselines.LocalEstimator : One model per node, no communication.
    sklearn.svm.SVC : The global kernel SVM on pooled data.

    Notes
    -----
    Multiclass problems are solved one-vs-rest, one binary problem per
    class, with one Omega shared by all of them: the Omega step uses
    ``sum_k W_k^T W_k``.

    ``omega_`` is never used by the solver (only ``Sigma`` is); the Omega
    step raises eigenvalues of ``W^T W`` below ``1e-7`` times the largest
    (MOCHA raises negative ones to ``1e-7``), so ``omega_`` stays finite.

    Node t's model is always ``W(alpha, Sigma) = V Sigma / lam`` for the
    current dual variables (with ``compression``, for the ``V`` the server
    received, within one rounding of the dual variables' own), so an Omega
    step changes the models at once and the reported duality gap is exact;
    a fit that meets the learned-Omega rule stops before that step and
    returns the models the W-step reached, which have the lower joint
    objective, with the step's Omega.  (MOCHA's reference code instead
    keeps ``W`` and adds later updates with the new ``Sigma``.)  The
    alternation of W and Omega steps approaches its fixed point slowly when
    the learned ``Sigma`` is nearly singular; a tight ``tol`` then needs many
    rounds, while the accuracy usually settles much earlier.

    Cost of the exact kernel mode: every node keeps its own kernel block
    (``n_t^2`` values) and the kernel rows of the support vectors it has
    received (``n_SV x n_t``), and each round costs one kernel row per new
    support vector and ``n_t`` operations per changed dual variable on every
    node; ``cache_size`` bounds the received rows, trading memory for
    recomputed kernel rows.  Every support vector eventually reaches every node that needs it,
    which for many support vectors is more bytes than the raw data; the
    approximate modes trade accuracy for bytes and memory.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.
    .. [3] A. Rudi, L. Rosasco. "Generalization Properties of Learning with
       Random Features". NeurIPS 2017.
    .. [4] A. Rudi, R. Camoriano, L. Rosasco. "Less is More: Nystrom
       Computational Regularization". NeurIPS 2015.
    .. [5] F. Seide, H. Fu, J. Droppo, G. Li, D. Yu. "1-Bit Stochastic
       Gradient Descent and its Application to Data-Parallel Distributed
       Training of Speech DNNs". Interspeech 2014 (error feedback).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(120, 2)); groups = np.repeat([0, 1, 2], 40)
    >>> y = (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int)
    >>> clf = FederatedMultiTaskClassifier(random_state=0)
    >>> clf.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.9
    True
    >>> clf.omega_.shape
    (3, 3)
    """

    _parameter_constraints = {
        **_BaseMultiTask._parameter_constraints,
        "loss": [StrOptions({"hinge", "squared_hinge", "logistic"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss="squared_hinge",
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds=1000,
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        super().__init__(
            C=C, lam=lam, loss=loss, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
            omega=omega, omega_update_every=omega_update_every,
            approximation=approximation, n_components=n_components, landmarks=landmarks,
            fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
            local_epochs=local_epochs, local_gap_target=local_gap_target,
            local_solver=local_solver, aggregation=aggregation, compression=compression,
            tol=tol,
            max_rounds=max_rounds, cache_size=cache_size, warm_start=warm_start,
            group_column=group_column,
            handle_unknown=handle_unknown, network=network, random_state=random_state,
            n_jobs=n_jobs, verbose=verbose, privacy=privacy,
        )

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit the per-node classifiers and Omega over the simulated network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.  ``None`` (and no ``group_column``)
            means one node, with a :class:`~skfed.SingleNodeWarning`.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; every node needs a positive total.

        Returns
        -------
        self : FederatedMultiTaskClassifier
        """
        self._validate_params()
        X, y, sample_weight, layout = self._validate_fit_data(X, y, groups, sample_weight)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                "The number of classes has to be greater than one; got 1 class "
                f"({self.classes_[0]!r}) over all nodes."
            )
        Xs = layout.sort(X)
        codes = layout.sort(y_codes.ravel())
        if len(self.classes_) == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[None, :]
        else:
            Y = np.where(codes[None, :] == np.arange(len(self.classes_))[:, None], 1.0, -1.0)
        sw = layout.sort(sample_weight) if sample_weight is not None else None
        return self._fit(Xs, np.ascontiguousarray(Y), sw, layout)

    def decision_function(self, X, groups=None):
        """Score of each sample under its node's personalized model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column`` or
            after a one-node fit).

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, positive means ``classes_[1]``.
        """
        scores = self._raw_decision(X, groups)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X, groups=None):
        """Class of each sample under its node's personalized model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self._raw_decision(X, groups)
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _has_proba(self):
        return self.loss == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X, groups=None):
        """Class probabilities (``loss="logistic"`` only).

        Binary: the logistic function of the score; multiclass: the
        one-vs-rest logistic probabilities, normalized to sum to one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self._raw_decision(X, groups)
        if scores.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
            return np.column_stack([1.0 - p, p])
        p = 1.0 / (1.0 + np.exp(-scores))
        return p / p.sum(axis=1, keepdims=True)

    @available_if(_has_proba)
    def predict_log_proba(self, X, groups=None):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X, groups=groups))


class FederatedMultiTaskRegressor(FederatedRegressorMixin, _BaseMultiTask):
    """Federated kernel multi-task regression with a learned task relationship (kernelized MOCHA).

    The regression counterpart of :class:`FederatedMultiTaskClassifier`,
    with the squared loss::

        min_{W, Omega}  sum_t (1 / n_t) sum_i (w_t . phi(x_ti) - y_ti)^2 / 2
                        + (lam / 2) tr(W Omega W^T)
        s.t.  Sigma = Omega^{-1} positive definite,  tr(Sigma) = 1

    (for fixed Omega a multi-task kernel ridge regression).  The dual
    coordinate step is closed form: ``delta = (y - p - alpha) / (1 + q)``.
    Protocol, modes and byte counts as in :mod:`skfed.multitask`.

    Parameters
    ----------
    C : float > 0, default=1.0
        ``lam = 1 / (C n_samples)`` (see the classifier).
    lam : float > 0 or None, default=None
        The objective's ``lambda`` directly.

        .. deprecated:: 0.1
           Use ``C = 1 / (lam n_samples)``; removed in 0.3.
    loss : {"squared"}, default="squared"
        ``(z - y)^2 / 2``.
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplacian"} or callable, default="rbf"
        See :class:`FederatedMultiTaskClassifier`.
    gamma : {"scale", "auto"} or float > 0, default="scale"
    degree : float >= 1, default=3
    coef0 : float, default=1.0
    omega : {"learn", "independent"} or array-like of shape (n_nodes, n_nodes), default="learn"
    omega_update_every : int >= 1 or None, default=None
    approximation : {"auto", None, "nystroem", "rff"}, default="auto"
        Exact kernel or an approximation (see the classifier).
    n_components : int or "auto", default="auto"
        Number of landmarks or random features (see the classifier).
    landmarks : {"random", "kmeans"}, default="random"
        Nystroem landmarks (see the classifier).
    fit_intercept : bool, default=True
        Regularized bias through a constant feature (see the classifier).
        Targets are not centred: for targets far from zero use a larger
        ``intercept_scaling`` or centre ``y``.
    intercept_scaling : float > 0, default=1.0
    local_epochs : float > 0, default=10.0
    local_gap_target : float in (0, 1) or None, default=None
    local_solver : {"auto", "exact", "coordinate"}, default="auto"
        How a node solves its subproblem (see the classifier); with the
        squared loss the exact solve is one linear system per node.
    aggregation : {"auto", "line_search", "add"}, default="auto"
        How the server combines the nodes' steps (see the classifier).
    compression : {"auto", "none"} or int in [2, 32], default="auto"
        Precision of the primal modes' round messages (see the classifier).
    tol : float >= 0, default=1e-3
        Stopping rule, as for the classifier.
    max_rounds : int, default=1000
    cache_size : float >= 0 or None, default=None
        Memory bound (MB, all nodes) on the cached kernel rows of the exact
        kernel mode (see the classifier).
    warm_start : bool, default=False
        Start from the previous fit's dual variables and ``Sigma`` (see the
        classifier).
    group_column : int, str or None, default=None
    handle_unknown : {"global", "error"}, default="global"
    network : SimulatedNetwork or None, default=None
    random_state : int, RandomState instance or None, default=None
    n_jobs : int or None, default=None
    verbose : int, default=0
    privacy : DifferentialPrivacy, default=None
        See :class:`FederatedMultiTaskClassifier`.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
    omega_ : ndarray of shape (n_nodes, n_nodes)
    task_covariance_ : ndarray of shape (n_nodes, n_nodes)
    rho_ : float
    dual_coef_ : ndarray of shape (1, n_SV)
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray of shape (n_SV, n_features)
    n_support_ : ndarray of shape (n_nodes,)
    coef_ : ndarray of shape (n_nodes, n_features')
        Primal modes only.
    intercept_ : ndarray of shape (n_nodes,)
    n_iter_ : int
    duality_gap_curve_, objective_curve_, dual_objective_curve_ : ndarray of shape (n_iter_,)
    joint_objective_curve_ : ndarray of shape (n_iter_,)
    joint_objective_, joint_duality_gap_ : float
    communication_ : CommunicationLog
    n_bytes_sent_, n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    FederatedMultiTaskClassifier : The classifier, with the full description.
    sklearn.kernel_ridge.KernelRidge : The global kernel ridge on pooled data.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(90, 3)); groups = np.repeat(["a", "b", "c"], 30)
    >>> y = X @ [1.0, -1.0, 0.5] + 0.1 * rng.normal(size=90)
    >>> reg = FederatedMultiTaskRegressor(kernel="linear", random_state=0)
    >>> reg.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.95
    True
    """

    _parameter_constraints = {
        **_BaseMultiTask._parameter_constraints,
        "loss": [StrOptions({"squared"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss="squared",
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds=1000,
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        super().__init__(
            C=C, lam=lam, loss=loss, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
            omega=omega, omega_update_every=omega_update_every,
            approximation=approximation, n_components=n_components, landmarks=landmarks,
            fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
            local_epochs=local_epochs, local_gap_target=local_gap_target,
            local_solver=local_solver, aggregation=aggregation, compression=compression,
            tol=tol,
            max_rounds=max_rounds, cache_size=cache_size, warm_start=warm_start,
            group_column=group_column,
            handle_unknown=handle_unknown, network=network, random_state=random_state,
            n_jobs=n_jobs, verbose=verbose, privacy=privacy,
        )

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit the per-node regressors and Omega over the simulated network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : FederatedMultiTaskRegressor
        """
        self._validate_params()
        X, y, sample_weight, layout = self._validate_fit_data(
            X, y, groups, sample_weight, y_numeric=True
        )
        Y = layout.sort(np.asarray(y, dtype=np.float64).ravel())[None, :]
        sw = layout.sort(sample_weight) if sample_weight is not None else None
        return self._fit(X=layout.sort(X), Y=np.ascontiguousarray(Y), sample_weight=sw,
                         layout=layout)

    def predict(self, X, groups=None):
        """Prediction of each sample's node model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        return self._raw_decision(X, groups)[:, 0]


# ---------------------------------------------------------------- CV variants
# Parameters of the base estimators that the CV variants do not take: C is
# what they choose and lam is deprecated.  (warm_start is kept: it chooses
# between warm-started paths over Cs and independent fits in every fold.)
_CV_DROPPED = ("C", "lam")


def _check_Cs(Cs):
    """The grid of ``C`` values in increasing order (an int: that many on [0.1, 100])."""
    if isinstance(Cs, numbers.Integral) and not isinstance(Cs, bool):
        if Cs < 1:
            raise ValueError(f"Cs must be a positive int or a list of C values > 0, got {Cs!r}.")
        return np.logspace(-1, 2, int(Cs))
    if isinstance(Cs, str):
        raise TypeError(f"Cs must be a positive int or a list of C values > 0, got {Cs!r}.")
    try:
        values = np.asarray(Cs, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"Cs must be a positive int or a list of C values > 0, got {Cs!r}."
        ) from exc
    if values.size == 0:
        raise ValueError("Cs is empty; give at least one C value > 0.")
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"Every value of Cs must be a finite number > 0, got {Cs!r}.")
    return np.unique(values)


class _MultiTaskCV:
    """Within-node cross-validation of ``C`` (independent fits, or a
    warm-started path per fold with ``warm_start=True``).

    Mixed into a subclass of a multi-task estimator whose ``__init__`` takes
    ``Cs``, ``cv``, ``scoring`` and the base's parameters except
    ``_CV_DROPPED``.
    """

    _base_class = None

    def _inner(self, seed):
        params = {k: v for k, v in self.get_params(deep=False).items()
                  if k not in ("Cs", "cv", "scoring")}
        params["random_state"] = seed
        return self._base_class(**params)

    def _splitter(self):
        from .model_selection import WithinGroupKFold

        if self.cv is None:
            return WithinGroupKFold(n_splits=3)
        if isinstance(self.cv, numbers.Integral) and not isinstance(self.cv, bool):
            return WithinGroupKFold(n_splits=int(self.cv))
        if hasattr(self.cv, "split"):
            return self.cv
        return _Splits(list(self.cv))

    def _score(self, estimator, X, y, groups, sample_weight):
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        if self.group_column is None and groups is not None:
            kwargs["groups"] = groups
        if self.scoring is None:
            return float(estimator.score(X, y, **kwargs))
        return float(self.scoring(estimator, X, y, **kwargs))

    def _fit_cv(self, X, y, groups, sample_weight, y_numeric):
        from sklearn.utils import _safe_indexing

        from ._base import SingleNodeWarning

        self._validate_params()
        if self.privacy is not None:
            raise ValueError(
                f"privacy={self.privacy!r}: {type(self).__name__} runs n_folds x n_Cs + 1 "
                "fits on the same data, each spending the budget, and does not account "
                "for their composition; tune C on public data or with the base estimator."
            )
        Cs = _check_Cs(self.Cs)
        # Validates the data, sets nodes_ and n_features_in_, warns once
        # without node ids; the fits below get the original X and groups.
        _, y_checked, sw, layout = self._validate_fit_data(
            X, y, groups, sample_weight, y_numeric=y_numeric
        )
        if groups is not None and self.group_column is None:
            groups = np.asarray(groups)
        if not hasattr(X, "iloc"):  # (sparse X was refused above)
            X = np.asarray(X)  # lists and array-likes, for the folds' row indexing
        split_groups = layout.codes  # node index of every sample (0 for one node)
        splits = list(self._splitter().split(X, y_checked, groups=split_groups))
        if not splits:
            raise ValueError(f"cv={self.cv!r} produced no splits.")
        random_state = self.random_state
        if not isinstance(random_state, numbers.Integral):
            # One seed for every fit: the same random features, landmarks and
            # coordinate orders along a path and across folds.
            random_state = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
        n_folds, n_Cs = len(splits), len(Cs)
        scores = np.empty((n_folds, n_Cs))
        n_bytes = np.zeros((n_folds, n_Cs), dtype=np.int64)
        n_iter = np.zeros((n_folds, n_Cs), dtype=np.int64)
        fold_groups = groups if self.group_column is None else None

        def rows(a, idx):
            return None if a is None else _safe_indexing(a, idx)

        with warnings.catch_warnings():
            # One node (no ids): warned once above, not at every fit.
            warnings.simplefilter("ignore", SingleNodeWarning)
            for k, (train, test) in enumerate(splits):
                model = self._inner(random_state)  # warm_start: self.warm_start
                for j, C in enumerate(Cs):
                    model.set_params(C=float(C)).fit(
                        rows(X, train), rows(y_checked, train),
                        groups=rows(fold_groups, train),
                        sample_weight=rows(sw, train),
                    )
                    n_bytes[k, j] = model.n_bytes_sent_
                    n_iter[k, j] = model.n_iter_
                    scores[k, j] = self._score(model, rows(X, test), rows(y_checked, test),
                                               rows(fold_groups, test), rows(sw, test))
            mean = scores.mean(axis=0)
            if not np.all(np.isfinite(mean)):
                raise ValueError(
                    f"scoring={self.scoring!r} returned non-finite scores for Cs "
                    f"{Cs[~np.isfinite(mean)].tolist()}."
                )
            best = int(np.argmax(mean))  # ties: the smallest C (most regularized)
            final = self._inner(random_state).set_params(C=float(Cs[best]), warm_start=False)
            final.fit(X, y_checked, groups=fold_groups, sample_weight=sw)
        params = set(final.get_params(deep=False))
        for key, value in vars(final).items():
            if key not in params and key != "_dual_state":
                setattr(self, key, value)
        self.Cs_ = Cs
        self.C_ = float(Cs[best])
        self.scores_ = scores
        self.n_bytes_cv_path_ = n_bytes
        self.n_iter_cv_path_ = n_iter
        self.n_bytes_cv_ = int(n_bytes.sum())
        self.n_bytes_total_ = self.n_bytes_cv_ + int(self.n_bytes_sent_)
        self.cv_results_ = {
            "param_C": Cs.copy(),
            "mean_test_score": mean,
            "std_test_score": scores.std(axis=0),
            "rank_test_score": (np.argsort(np.argsort(-mean, kind="stable")) + 1),
            **{f"split{k}_test_score": scores[k] for k in range(n_folds)},
            "n_bytes": n_bytes.sum(axis=0),
            "n_iter": n_iter.sum(axis=0),
        }
        return self


class _Splits:
    """An iterable of ``(train, test)`` index pairs as a splitter."""

    def __init__(self, splits):
        self.splits = splits

    def split(self, X, y=None, groups=None):
        yield from self.splits


_CV_PARAMETER_CONSTRAINTS = {
    "Cs": [Interval(numbers.Integral, 1, None, closed="left"), "array-like"],
    "cv": [None, Interval(numbers.Integral, 2, None, closed="left"), "cv_object"],
    "scoring": [None, callable],
}



class FederatedMultiTaskClassifierCV(_MultiTaskCV, FederatedMultiTaskClassifier):
    """Federated multi-task classifier with ``C`` chosen by within-node cross-validation.

    :class:`FederatedMultiTaskClassifier` (the same objective, with
    ``lam = 1 / (C n_samples)``)::

        min_{W, Omega}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                        + (lam / 2) tr(W Omega W^T)

    whose ``C`` is picked among ``Cs`` by cross-validation inside every node
    (:class:`~skfed.model_selection.WithinGroupKFold`: every node is in
    every training and every validation set), as
    :class:`~sklearn.linear_model.LogisticRegressionCV` does for ``C``.
    Every fit of the search is a federated fit over the simulated network;
    their bytes are counted (``n_bytes_cv_``) next to the final fit's
    (``n_bytes_sent_``).

    With ``warm_start=True`` the fits of each fold form a path: one
    estimator is fitted at the values of ``Cs`` in increasing order, each fit
    starting from the previous one's dual variables and ``Sigma`` (valid in
    every mode: the dual variables' box does not depend on ``C``).  It is
    not the default because it costs more than independent fits at the
    defaults: on 8 HAR people (random features, learned Omega) the warm
    search took 2,979 rounds and 26.7 MB against 344 rounds and 3.4 MB cold,
    and in the exact kernel mode the warm fits at ``C >= 10`` did not reach
    the stopping rule in 1,000 rounds (cold: 66-163): started from the
    previous ``C``'s learned ``Sigma`` (larger ``rho``), the first W-step
    is slow; restarting ``Sigma`` and warm-starting only the dual variables
    was measured too and is not cheaper at the defaults (see the user
    guide).  With a fixed Omega it helps in the exact kernel mode (the
    tests' data: fewer rounds than cold fits).  Every fit uses one seed
    (``random_state``, or one draw from it), so all of them share their
    random features, landmarks and coordinate orders.  The ``C`` with the
    best mean validation score over the folds (ties: the smallest) is
    refitted on all the data from zero (on 8 HAR people: 0.52 MB, 43
    rounds, against 12.5 MB and 1,109 rounds for the warm path up to
    ``C_``).

    Parameters
    ----------
    Cs : int or array-like of float > 0, default=4
        The values of ``C`` to try (sorted increasingly, duplicates
        dropped).  An int ``n``: ``n`` values log-spaced on ``[0.1, 100]``
        (the default, ``[0.1, 1, 10, 100]``: decades around the untuned
        default ``C=1``, up to the ``C ~ 30`` that the old ``lam=1e-5`` meant on
        HAR; one value per decade because the validation score changes on
        that scale, and each value costs ``n_folds`` federated fits).
    cv : int, cross-validation generator or iterable, default=None
        How to split: None, 3 folds of
        :class:`~skfed.model_selection.WithinGroupKFold`; an int, that many
        folds of it; a splitter (its ``split`` gets the node index of every
        sample as ``groups``) or an iterable of ``(train, test)`` indices.
    scoring : callable or None, default=None
        None: the estimator's ``score`` (mean accuracy of the personalized
        predictions of the validation samples of all nodes, weighted by
        ``sample_weight``).  A callable ``scoring(estimator, X, y,
        groups=..., sample_weight=...)``, e.g. from
        :func:`~skfed.model_selection.make_group_scorer` (``groups`` is
        passed unless ``group_column`` is set, ``sample_weight`` when
        given); greater is better.
    loss, kernel, gamma, degree, coef0, omega, omega_update_every, approximation, \
n_components, landmarks, fit_intercept, intercept_scaling, local_epochs, \
local_gap_target, local_solver, aggregation, compression, tol, max_rounds, \
cache_size, group_column, handle_unknown, network, n_jobs, verbose
        As in :class:`FederatedMultiTaskClassifier`, for every fit of the
        search and the final fit (``n_jobs`` parallelizes the nodes inside
        each fit; the folds run one after another).
    warm_start : bool, default=False
        True: in every fold, fit the values of ``Cs`` in increasing order,
        each fit warm-started from the previous one (a path); False:
        independent fits, as :class:`~sklearn.model_selection.GridSearchCV`
        runs them (the default: cheaper at the defaults, see above).  The
        final fit is always cold.
    random_state : int, RandomState instance or None, default=None
        Seed of every fit (None or a RandomState: one integer drawn from
        it, shared by all fits).
    privacy : None, default=None
        Must be None: the search's ``n_folds x n_Cs + 1`` fits would each
        spend the privacy budget, and their composition is not accounted
        for, so a value raises an error.

    Attributes
    ----------
    C_ : float
        The chosen ``C``.
    Cs_ : ndarray of shape (n_Cs,)
        The values tried, increasing.
    scores_ : ndarray of shape (n_folds, n_Cs)
        Validation score of every fold and ``C``.
    cv_results_ : dict of ndarrays
        ``param_C``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score``, ``split<k>_test_score`` (as in
        :class:`~sklearn.model_selection.GridSearchCV`), and ``n_bytes`` and
        ``n_iter``: bytes and rounds of each ``C``'s fits summed over the
        folds.
    n_bytes_cv_path_, n_iter_cv_path_ : ndarray of shape (n_folds, n_Cs)
        Bytes and rounds of every fit of the search.
    n_bytes_cv_ : int
        Bytes of all the fits of the search (the sum of ``n_bytes_cv_path_``).
    n_bytes_sent_ : int
        Bytes of the final fit (its ``communication_``, ``n_messages_``,
        ``bytes_per_round_`` and ``n_iter_`` likewise).
    n_bytes_total_ : int
        ``n_bytes_cv_ + n_bytes_sent_``: what choosing and fitting cost.
    nodes_, classes_, omega_, task_covariance_, rho_, dual_coef_, support_, \
support_vectors_, n_support_, coef_, intercept_, approximation_, \
n_components_, n_iter_, communication_, n_features_in_
        Those of the final fit, as in :class:`FederatedMultiTaskClassifier`.

    See Also
    --------
    FederatedMultiTaskClassifier : The estimator at a given ``C``.
    skfed.model_selection.WithinGroupKFold : The default splitter.
    sklearn.linear_model.LogisticRegressionCV : The same idea, centralized.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed import FederatedMultiTaskClassifierCV
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(120, 2)); groups = np.repeat([0, 1, 2], 40)
    >>> y = (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int)
    >>> clf = FederatedMultiTaskClassifierCV(Cs=[0.1, 1.0, 10.0], random_state=0)
    >>> clf = clf.fit(X, y, groups=groups)
    >>> clf.C_ in (0.1, 1.0, 10.0), clf.scores_.shape
    (True, (3, 3))
    >>> bool(clf.n_bytes_total_ == clf.n_bytes_cv_path_.sum() + clf.n_bytes_sent_)
    True
    """

    _base_class = FederatedMultiTaskClassifier
    _parameter_constraints = {
        k: v for k, v in FederatedMultiTaskClassifier._parameter_constraints.items()
        if k not in _CV_DROPPED
    } | _CV_PARAMETER_CONSTRAINTS

    def __init__(
        self,
        *,
        Cs=4,
        cv=None,
        scoring=None,
        loss="squared_hinge",
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds=1000,
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.omega = omega
        self.omega_update_every = omega_update_every
        self.approximation = approximation
        self.n_components = n_components
        self.landmarks = landmarks
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.local_epochs = local_epochs
        self.local_gap_target = local_gap_target
        self.local_solver = local_solver
        self.aggregation = aggregation
        self.compression = compression
        self.tol = tol
        self.max_rounds = max_rounds
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.privacy = privacy

    def fit(self, X, y, groups=None, sample_weight=None):
        """Choose ``C`` by within-node cross-validation, then fit on all the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (routed under metadata routing).
            ``None`` (and no ``group_column``) means one node, with a
            :class:`~skfed.SingleNodeWarning`.
        sample_weight : array-like of shape (n_samples,), default=None
            Used by every fit and by the default score.

        Returns
        -------
        self : FederatedMultiTaskClassifierCV
        """
        return self._fit_cv(X, y, groups, sample_weight, y_numeric=False)


class FederatedMultiTaskRegressorCV(_MultiTaskCV, FederatedMultiTaskRegressor):
    """Federated multi-task regressor with ``C`` chosen by within-node cross-validation.

    :class:`FederatedMultiTaskRegressor` (squared loss,
    ``lam = 1 / (C n_samples)``)::

        min_{W, Omega}  sum_t (1 / n_t) sum_i (w_t . phi(x_ti) - y_ti)^2 / 2
                        + (lam / 2) tr(W Omega W^T)

    whose ``C`` is picked among ``Cs`` by cross-validation inside every node,
    as :class:`~sklearn.linear_model.RidgeCV` picks ``alpha``; the search's
    bytes are counted (``n_bytes_cv_``).

    The search (independent fits by default, warm-started paths with
    ``warm_start=True``, one seed for every fit, the refit at the best ``C``
    from zero) and its measured costs are those of
    :class:`FederatedMultiTaskClassifierCV`.

    Parameters
    ----------
    Cs : int or array-like of float > 0, default=4
        As in :class:`FederatedMultiTaskClassifierCV` (default ``[0.1, 1,
        10, 100]``).
    cv : int, cross-validation generator or iterable, default=None
        As in :class:`FederatedMultiTaskClassifierCV` (default 3 folds of
        :class:`~skfed.model_selection.WithinGroupKFold`).
    scoring : callable or None, default=None
        None: the estimator's ``score`` (R^2 of the personalized predictions
        of the validation samples of all nodes); else a callable
        ``scoring(estimator, X, y, groups=..., sample_weight=...)``, greater
        is better.
    loss, kernel, gamma, degree, coef0, omega, omega_update_every, approximation, \
n_components, landmarks, fit_intercept, intercept_scaling, local_epochs, \
local_gap_target, local_solver, aggregation, compression, tol, max_rounds, \
cache_size, group_column, handle_unknown, network, n_jobs, verbose
        As in :class:`FederatedMultiTaskRegressor`.
    warm_start : bool, default=False
        Warm-started paths over ``Cs`` in every fold, or independent fits
        (see :class:`FederatedMultiTaskClassifierCV`).
    random_state : int, RandomState instance or None, default=None
        Seed of every fit (None or a RandomState: one integer drawn from it).
    privacy : None, default=None
        Must be None (see :class:`FederatedMultiTaskClassifierCV`).

    Attributes
    ----------
    C_ : float
    Cs_ : ndarray of shape (n_Cs,)
    scores_ : ndarray of shape (n_folds, n_Cs)
    cv_results_ : dict of ndarrays
    n_bytes_cv_path_, n_iter_cv_path_ : ndarray of shape (n_folds, n_Cs)
    n_bytes_cv_, n_bytes_sent_, n_bytes_total_ : int
        As in :class:`FederatedMultiTaskClassifierCV`.
    nodes_, omega_, task_covariance_, rho_, dual_coef_, coef_, intercept_, \
approximation_, n_iter_, communication_, n_features_in_
        Those of the final fit, as in :class:`FederatedMultiTaskRegressor`.

    See Also
    --------
    FederatedMultiTaskRegressor : The estimator at a given ``C``.
    sklearn.linear_model.RidgeCV : The same idea, centralized.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed import FederatedMultiTaskRegressorCV
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(90, 3)); groups = np.repeat(["a", "b", "c"], 30)
    >>> y = X @ [1.0, -1.0, 0.5] + 0.1 * rng.normal(size=90)
    >>> reg = FederatedMultiTaskRegressorCV(kernel="linear", random_state=0)
    >>> reg.fit(X, y, groups=groups).C_
    10.0
    """

    _base_class = FederatedMultiTaskRegressor
    _parameter_constraints = {
        k: v for k, v in FederatedMultiTaskRegressor._parameter_constraints.items()
        if k not in _CV_DROPPED
    } | _CV_PARAMETER_CONSTRAINTS

    def __init__(
        self,
        *,
        Cs=4,
        cv=None,
        scoring=None,
        loss="squared",
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds=1000,
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.omega = omega
        self.omega_update_every = omega_update_every
        self.approximation = approximation
        self.n_components = n_components
        self.landmarks = landmarks
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.local_epochs = local_epochs
        self.local_gap_target = local_gap_target
        self.local_solver = local_solver
        self.aggregation = aggregation
        self.compression = compression
        self.tol = tol
        self.max_rounds = max_rounds
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.privacy = privacy

    def fit(self, X, y, groups=None, sample_weight=None):
        """Choose ``C`` by within-node cross-validation, then fit on all the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (routed under metadata routing).
        sample_weight : array-like of shape (n_samples,), default=None
            Used by every fit and by the default score.

        Returns
        -------
        self : FederatedMultiTaskRegressorCV
        """
        return self._fit_cv(X, y, groups, sample_weight, y_numeric=True)
