"""Perso-lin: personalized linear models smoothed over a collaboration graph.

Vanhaesebrouck, Bellet & Tommasi, "Decentralized Collaborative Learning of
Personalized Models over Networks" (AISTATS 2017): asynchronous block
coordinate descent on a smooth loss, on a fixed graph or one learned as
Dada learns it (:mod:`skfed.graph`).
"""

import numbers
import warnings

import numpy as np
from scipy.special import xlogy
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions
from .._join_params import fitted_param
from ._perso_lin_shared import JOIN_RULES, check_shared, fit_newcomer_rule
from .._core._boosting_fast import lin_async, lin_local, lin_local_solve, lin_losses
from ._perso_lin_block import LOCAL_UPDATES, async_block_args, resolved_local_update
from ..network import payload_bytes
from ..privacy import DifferentialPrivacy, check_privacy
from ._base import (
    _LOSSES,
    _REFIT_ATTRIBUTES,
    _BaseGraphPersonalized,
    _StateMixin,
    _fill_released_doc,
    _graph_objective_value,
    _node_chunks, _personalized_scores,
    _run_chunks,
    _split_models,
    _squeeze_problems,
)
from ._dada import DecentralizedBoostingClassifier
from .._kept_local import apply_kept_local
from .._node_mass import node_scale
from ._private import _PERSOLIN_PUBLIC, _check_private_inputs, plan_private_gradients

# ------------------------------------------------------------- Perso-lin
# Without privacy the purely local models (the graph's first input and the
# block coordinate descent's starting point) are solved by accelerated
# gradient in Jacobi-preconditioned coordinates (``local_preconditioner``)
# until max_j |grad F_k(theta)_j| / sqrt(D_j) is LOCAL_TOL times its value at
# the start, at most LOCAL_MAX_ITER steps per problem.  Local computation
# sends nothing.
LOCAL_TOL = 3e-3
LOCAL_MAX_ITER = 10_000


def local_preconditioner(X, sw, offsets, loss, inv_mass, l2, n_penalized, lo=0, hi=None):
    """Jacobi preconditioner of the local problems of nodes ``lo:hi``.

    The Hessian of ``F_k`` is bounded by
    ``A = c inv_mass_k X_k^T S_k X_k + l2 I_pen`` (``c`` the loss's
    curvature bound, ``S_k`` the node's positive sample weights, ``I_pen``
    the penalized coordinates); ``D_j = A_jj``.  In the coordinates
    ``v_j = sqrt(D_j) theta_j`` the gradient is Lipschitz with constant
    ``lambda_max(D^-1/2 A D^-1/2)``, bounded (Weyl's inequality) by
    ``c inv_mass_k ||S_k^1/2 X_k D^-1/2||_2^2 + l2 max_{j pen} 1 / D_j``:
    the first term is the largest eigenvalue of the node's scaled Gram
    matrix (LAPACK, exact to rounding, as ``L_F`` is), so the bound is
    proven, not estimated.  It is at most ``lambda_max + 1`` (the scaled
    matrix has a unit diagonal, so ``lambda_max >= 1`` and the second term
    is at most 1).  A coordinate with ``D_j = 0`` (an unpenalized column of
    zeros on the node) does not enter ``F_k``: its scale is 0, it stays
    where it starts.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    sw : ndarray of shape (n_samples,)
    offsets : ndarray of shape (n_nodes + 1,)
    loss : LossFunction
    inv_mass : ndarray of shape (n_nodes,)
    l2 : float
    n_penalized : int
    lo, hi : int
        The nodes to fill (all by default); the other rows stay 0 / 1.

    Returns
    -------
    scale : ndarray of shape (n_nodes, n_features)
        ``1 / sqrt(D_kj)``, 0 where ``D_kj = 0``.
    lipschitz : ndarray of shape (n_nodes,)
        The bound above for every node of ``lo:hi``.
    """
    from .._graph_join_batch import top_squared_singular_values

    K, n = offsets.shape[0] - 1, X.shape[1]
    hi = K if hi is None else hi
    scale = np.zeros((K, n))
    lipschitz = np.ones(K)
    if hi <= lo:
        return scale, lipschitz
    a, b = int(offsets[lo]), int(offsets[hi])
    seg = np.asarray(offsets[lo:hi + 1], dtype=np.intp) - a
    lengths = np.diff(seg)
    s = np.asarray(sw[a:b], dtype=np.float64)
    R = np.sqrt(np.where(s > 0, s, 0.0))[:, None] * np.asarray(X[a:b], dtype=np.float64)
    curv = loss.py_curvature()
    colsq = np.zeros((hi - lo, n))
    filled = lengths > 0
    if filled.any():
        colsq[filled] = np.add.reduceat(R * R, seg[:-1][filled], axis=0)
    D = curv * inv_mass[lo:hi, None] * colsq
    D[:, :n_penalized] += l2
    r = np.zeros_like(D)
    np.divide(1.0, np.sqrt(D), out=r, where=D > 0)
    top = top_squared_singular_values(R * np.repeat(r, lengths, axis=0), seg)
    pen = (r[:, :n_penalized] ** 2).max(axis=1) if n_penalized and l2 > 0 else 0.0
    scale[lo:hi] = r
    lipschitz[lo:hi] = np.maximum(curv * inv_mass[lo:hi] * top + l2 * pen, 1e-12)
    return scale, lipschitz


def _centred_block(X, sw, seg, n_penalized):
    """The design of some nodes with each node's penalized columns centred.

    With one unpenalized constant column (the intercept), ``theta . x =
    theta_pen . (x_pen - m_k) + (theta_c + theta_pen . m_k / c) c``: the
    same problem (the intercept is not penalized), whose curvature no
    longer couples the intercept with features far from 0, which a
    diagonal preconditioner cannot undo.  ``m_k`` is node k's mean over
    its samples of positive weight.  Returns ``(X, means)``: the centred
    copy (X's dtype) and the means, or ``(X, None)`` when X has no such
    column (nothing to shift).
    """
    n = X.shape[1]
    if n != n_penalized + 1 or X.shape[0] == 0:
        return X, None
    c = X[0, n_penalized]
    if c == 0 or not np.all(X[:, n_penalized] == c):
        return X, None
    lengths = np.diff(seg)
    w = np.fmax(np.asarray(sw, dtype=np.float64), 0.0)   # float64: float32 totals overflow
    means = np.zeros((len(lengths), n_penalized))
    filled = lengths > 0
    if filled.any():
        starts = seg[:-1][filled]
        total = np.add.reduceat(w, starts)
        sums = np.add.reduceat(w[:, None] * np.asarray(X[:, :n_penalized], dtype=np.float64),
                               starts, axis=0)
        means[filled] = np.divide(sums, total[:, None], out=np.zeros_like(sums),
                                  where=total[:, None] > 0)
    Xc = np.array(X, dtype=np.float64)
    Xc[:, :n_penalized] -= np.repeat(means, lengths, axis=0)
    return np.ascontiguousarray(Xc, dtype=X.dtype), means


def _intercept_shift(theta, means, n_penalized, Xc):
    """``theta_pen . m_k / c`` for every node and problem."""
    c = float(Xc[0, n_penalized])
    return np.einsum("kpj,kj->kp", np.asarray(theta[:, :, :n_penalized], dtype=np.float64),
                     means) / c


def solve_local_problems(X, Y, sw, offsets, theta, loss, inv_mass, l2, n_penalized,
                         losses, lo=0, hi=None, labels=None, tol=LOCAL_TOL):
    """Nodes ``lo:hi`` (all by default) get their local optimum (see LOCAL_TOL).

    ``theta`` (their starting points, zeros for a fresh model) and
    ``losses`` are overwritten; returns every node's number of steps.  The
    fit's nodes and a join's newcomers use this one rule: accelerated
    gradient preconditioned by ``local_preconditioner``, so a feature's
    scale does not change the steps.  A node whose
    problem stops at LOCAL_MAX_ITER steps short of LOCAL_TOL raises a
    ConvergenceWarning naming it (``labels[k]``, else its position).
    ``tol`` replaces LOCAL_TOL (a join's newcomers: ``solve_newcomer_problems``).
    """
    K = offsets.shape[0] - 1
    hi = K if hi is None else hi
    n_iter = np.zeros(K, dtype=np.intp)
    n_capped = np.zeros(K, dtype=np.intp)
    if hi > lo:
        a, b = int(offsets[lo]), int(offsets[hi])
        seg = np.asarray(offsets[lo:hi + 1], dtype=np.intp) - a
        Xb, means = _centred_block(X[a:b], sw[a:b], seg, n_penalized)
        Yb = np.ascontiguousarray(Y[:, a:b])
        th, mass, out = theta[lo:hi], inv_mass[lo:hi], losses[lo:hi]
        if means is not None:
            th[:, :, n_penalized] += _intercept_shift(th, means, n_penalized, Xb)
        scale, lipschitz = local_preconditioner(Xb, sw[a:b], seg, loss, mass, l2, n_penalized)
        lin_local_solve(Xb, Yb, sw[a:b], seg, th, loss, mass, scale, lipschitz, l2,
                        n_penalized, out, float(tol), LOCAL_MAX_ITER, 0, hi - lo,
                        n_iter[lo:hi], n_capped[lo:hi])
        if means is not None:
            th[:, :, n_penalized] -= _intercept_shift(th, means, n_penalized, Xb)
    capped = np.flatnonzero(n_capped)
    if capped.size:
        if labels is None:  # joins and the MPI engine: positions in the call's node order
            names = [f"the node at position {k}" for k in capped[:5]]
        else:
            names = [labels[k].item() if hasattr(labels[k], "item") else labels[k]
                     for k in capped[:5]]
            names = [f"Node {name!r}" for name in names]
        warnings.warn(
            f"Perso-lin's local solve stopped at {LOCAL_MAX_ITER} steps short of its "
            f"tolerance at {capped.size} node(s): " + ", ".join(names)
            + (", ..." if capped.size > 5 else "")
            + " (strongly correlated features? a larger alpha conditions the problem).",
            ConvergenceWarning, stacklevel=2,
        )
    return n_iter


# A join's newcomer far lighter than the fitted nodes (HAR: 5-20 samples
# against 281-409, on 561 features) stops at LOCAL_TOL much farther from its
# local optimum than they do (0.5-4.5 % of the objective against a median
# 0.16 %), and its local model is all it places itself by among their
# near-optimal ones.  So the local solve of a newcomer holding less than
# 1 / JOIN_LIGHT_RATIO of the fit's median node mass is certified: if its
# duality gap bound is above JOIN_LOCAL_GAP of its objective, it is solved
# again from zero at each of JOIN_LOCAL_TOLS until the bound is under it
# (the last solve kept otherwise).  Newcomers about as light as the fitted
# nodes are left as they are: there the shared tolerance's early stop helps
# (related-wide, 30-sample fitted nodes on 100 features, lost 0.4 at k = 5
# when every newcomer was certified).  ``benchmarks/persolin_join_points.py``.
JOIN_LOCAL_GAP = 2e-2
JOIN_LOCAL_TOLS = (1e-3, 3e-4, 1e-4, 3e-5, 1e-5)
JOIN_LIGHT_RATIO = 10.0


def light_mass(confidence, max_mass):
    """The mass under which a join's newcomer is certified: the fitted
    nodes' median mass (``confidence * max_mass``) over JOIN_LIGHT_RATIO."""
    return float(np.median(confidence)) * float(max_mass) / JOIN_LIGHT_RATIO


def _loss_terms(name, z):
    """``phi(z)``, ``phi'(z)`` and ``phi''(z)`` of a margin loss, elementwise."""
    if name == "logistic":
        e = np.exp(-np.abs(z))
        value = np.maximum(-z, 0.0) + np.log1p(e)
        sig = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))   # 1 / (1 + exp(-z))
        return value, sig - 1.0, sig * (1.0 - sig)
    r = np.maximum(1.0 - z, 0.0)                                  # squared hinge
    return r * r, -2.0 * r, 2.0 * (r > 0)


def _conjugate(name, u):
    """``phi*(-u)`` at the dual point ``u = -phi'(z)``."""
    if name == "logistic":
        u = np.clip(u, 0.0, 1.0)
        return xlogy(u, u) + xlogy(1.0 - u, 1.0 - u)   # 0 log 0 = 0
    return -u + 0.25 * u * u


def _bound_defined(X, Y, sw, offsets, l2, n_penalized, n_columns):
    """Nodes whose problems have a finite optimum ``local_duality_gap`` can
    certify: ``l2 > 0``, an intercept column (if any) constant and nonzero,
    and both classes among the positive-weight samples of every problem."""
    offsets = np.asarray(offsets, dtype=np.intp)
    K = offsets.shape[0] - 1
    lengths = np.diff(offsets)
    ok = lengths > 0
    if l2 <= 0:
        return np.zeros(K, dtype=bool)
    if n_columns > n_penalized:
        c_col = np.asarray(X, dtype=np.float64)[:, n_penalized]
        if len(c_col) and (c_col[0] == 0 or not np.all(c_col == c_col[0])):
            return np.zeros(K, dtype=bool)
        y = np.asarray(Y, dtype=np.float64)
        positive = np.asarray(sw, dtype=np.float64) > 0
        for sign in (y > 0, y < 0):
            counts = np.zeros((y.shape[0], K))
            if ok.any():
                counts[:, ok] = np.add.reduceat(sign & positive, offsets[:-1][ok], axis=1)
            ok &= (counts > 0).all(axis=0)
    return ok


def local_duality_gap(X, Y, sw, offsets, theta, loss_name, inv_mass, l2, n_penalized):
    """Certified bound on every node's local suboptimality, relative to its optimum.

    Node k's problem (``F_k`` of ``lin_losses``, summed over its P problems)
    is ``P(theta) = sum_i q_i phi(y_i theta . x_i) + l2 / 2 ||theta_pen||^2``,
    ``q_i = s_i / m_k``.  With ``u_i = -phi'(z_i)`` taken at ``theta'``,
    ``theta`` whose intercept (the unpenalized constant column, if any) is
    replaced by its exact minimizer given the other coordinates (so that
    ``sum_i q_i u_i y_i = 0``, the dual constraint of an unpenalized
    intercept; ``P`` itself is taken at ``theta``), the Fenchel dual
    ``D(u) = -sum_i q_i phi*(-u_i) - ||sum_i q_i u_i y_i x_i,pen||^2 / (2 l2)``
    is at most the optimum ``P*``, so ``(P(theta) - D) / D`` bounds
    ``(P(theta) - P*) / P*`` whenever ``D > 0``.

    Parameters
    ----------
    X, Y, sw, offsets, theta, inv_mass, l2, n_penalized
        As for ``solve_local_problems``.
    loss_name : {"logistic", "squared_hinge"}

    Returns
    -------
    gap : ndarray of shape (n_nodes,)
        The bound, ``inf`` where it certifies nothing: ``l2 = 0``, a node
        whose positive-weight samples are of one class in some problem (its
        intercept's optimum is at infinity) or ``D <= 0``.
    """
    K = offsets.shape[0] - 1
    P, n = theta.shape[1], theta.shape[2]
    gap = np.full(K, np.inf)
    if K == 0 or l2 <= 0:
        return gap
    offsets = np.asarray(offsets, dtype=np.intp)
    lengths = np.diff(offsets)
    owner = np.repeat(np.arange(K), lengths)
    Xd = np.asarray(X, dtype=np.float64)
    th = np.asarray(theta, dtype=np.float64)
    w = np.fmax(np.asarray(sw, dtype=np.float64), 0.0)   # float64: float32 totals overflow
    q = w * np.asarray(inv_mass, dtype=np.float64)[owner]          # (N,)
    y = np.asarray(Y, dtype=np.float64)                            # (P, N)
    base = np.einsum("ij,ipj->pi", Xd[:, :n_penalized], th[owner, :, :n_penalized])
    starts = offsets[:-1]
    filled = lengths > 0

    def per_node(values):                                          # (P, N) -> (P, K)
        out = np.zeros((values.shape[0], K))
        if filled.any():
            out[:, filled] = np.add.reduceat(values, starts[filled], axis=1)
        return out

    ok = _bound_defined(Xd, y, sw, offsets, l2, n_penalized, n)
    if n > n_penalized:                                            # an intercept column
        c_col = Xd[:, n_penalized]
        c = float(c_col[0]) if len(c_col) else 0.0
        if c == 0 or not np.all(c_col == c):
            return gap
        # The intercept's minimizer: h(b) = sum_i q_i phi'(y_i (a_i + b c)) y_i c
        # increases in b; safeguarded Newton steps inside a bracket.
        b = th[:, :, n_penalized].T.copy()                         # (P, K)
        lo_b, hi_b = np.full((P, K), -np.inf), np.full((P, K), np.inf)
        for _ in range(100):
            z = y * (base + b[:, owner] * c)
            _, d1, d2 = _loss_terms(loss_name, z)
            h = per_node(q * d1 * y) * c
            slope = per_node(q * d2) * c * c
            lo_b = np.where(h < 0, b, lo_b)
            hi_b = np.where(h > 0, b, hi_b)
            done = (np.abs(h) <= 1e-13 * np.maximum(per_node(q * np.abs(d1)) * abs(c), 1e-300))
            if np.all(done | ~ok[None, :]):
                break
            with np.errstate(over="ignore"):  # (a subnormal slope: the bracket decides)
                step = np.where(slope > 0, -h / np.where(slope > 0, slope, 1.0), 0.0)
            nb = b + step
            inside = (nb > lo_b) & (nb < hi_b) & (slope > 0)
            finite = np.isfinite(lo_b) & np.isfinite(hi_b)
            mid = np.where(finite, 0.5 * (lo_b + hi_b),
                           np.where(h < 0, b + np.maximum(1.0, np.abs(b)),
                                    b - np.maximum(1.0, np.abs(b))))
            b = np.where(done, b, np.where(inside, nb, mid))
        own = base + th[owner, :, n_penalized].T * c               # theta's own intercept
        base = base + b[:, owner] * c
    else:
        own = base
    primal = per_node(q * _loss_terms(loss_name, y * own)[0])      # (P, K), at theta
    u = -_loss_terms(loss_name, y * base)[1]                       # the dual point, at theta'
    dual = -per_node(q * _conjugate(loss_name, u))
    wn = th[:, :, :n_penalized]
    primal += 0.5 * l2 * (wn * wn).sum(axis=2).T
    v = np.zeros((P, K, n_penalized))
    if filled.any():
        v[:, filled] = np.add.reduceat((q * u * y)[:, :, None] * Xd[None, :, :n_penalized],
                                       starts[filled], axis=1)
    dual -= (v * v).sum(axis=2) / (2.0 * l2)
    Pk, Dk = primal.sum(axis=0), dual.sum(axis=0)
    good = ok & (Dk > 0)
    gap[good] = np.maximum(Pk[good] - Dk[good], 0.0) / Dk[good]
    return gap


def solve_newcomer_problems(X, Y, sw, offsets, theta, loss, loss_name, inv_mass, l2,
                            n_penalized, losses, light_below=None):
    """A join's newcomers get their local models (``solve_local_problems``).

    Those of a mass (``1 / inv_mass``) under ``light_below`` (None: none)
    are certified within JOIN_LOCAL_GAP of their optimum where it is
    finite (``local_duality_gap``; its bound is infinite there only far
    from the optimum, ``D <= 0``): one above it is solved again from
    zero at each of JOIN_LOCAL_TOLS in turn until it is under it (the last
    solve kept otherwise).  ``theta`` (zeros) and ``losses`` are
    overwritten; returns every newcomer's number of steps (all its solves).
    """
    steps = solve_local_problems(X, Y, sw, offsets, theta, loss, inv_mass, l2, n_penalized,
                                 losses)
    light = (np.zeros(len(inv_mass), dtype=bool) if light_below is None
             else 1.0 / np.asarray(inv_mass, dtype=np.float64) < light_below)
    if not light.any():
        return steps
    todo = np.flatnonzero(light)
    gap = local_duality_gap(X, Y, sw, offsets, theta, loss_name, inv_mass, l2, n_penalized)
    # an infinite bound where a finite optimum exists is a dual value D <= 0,
    # far from that optimum: re-solved too (not a problem without one)
    defined = _bound_defined(X, Y, sw, offsets, l2, n_penalized, theta.shape[2])
    todo = todo[defined[todo] & ~(gap[todo] <= JOIN_LOCAL_GAP)]
    offsets = np.asarray(offsets, dtype=np.intp)
    for tol in JOIN_LOCAL_TOLS:
        if not len(todo):
            break
        rows = np.concatenate([np.arange(offsets[k], offsets[k + 1]) for k in todo.tolist()])
        sub_off = np.zeros(len(todo) + 1, dtype=np.intp)
        np.cumsum(offsets[todo + 1] - offsets[todo], out=sub_off[1:])
        Xs = np.ascontiguousarray(X[rows])
        Ys = np.ascontiguousarray(Y[:, rows])
        ss = np.ascontiguousarray(sw[rows])
        th = np.zeros((len(todo),) + theta.shape[1:], dtype=theta.dtype)
        lo = np.zeros((len(todo), losses.shape[1]))
        mass = np.ascontiguousarray(inv_mass[todo])
        with warnings.catch_warnings():
            # (a re-solve that reaches LOCAL_MAX_ITER keeps its last point,
            # nearer the optimum than the certified-too-far one it replaces)
            warnings.simplefilter("ignore", ConvergenceWarning)
            st = solve_local_problems(Xs, Ys, ss, sub_off, th, loss, mass, l2, n_penalized, lo,
                                      tol=tol)
        theta[todo], losses[todo] = th, lo
        steps[todo] += st
        g = local_duality_gap(Xs, Ys, ss, sub_off, th, loss_name, mass, l2, n_penalized)
        todo = todo[g > JOIN_LOCAL_GAP]
    return steps


def solve_local_models(state, lo, hi):
    """Nodes ``lo:hi`` of a Perso-lin state get their local optimum."""
    return solve_local_problems(state.X, state.Y, state.sw, state.offsets, state.theta,
                                state.loss, state.inv_mass, state.l2,
                                state.n_penalized, state.losses, lo, hi,
                                getattr(state, "labels", None))


class _LinearState(_StateMixin):
    """Arrays of one Perso-lin fit, node-ordered (see ``_boosting_fast``)."""

    grid_step = None  # per node: the grid of its private gradient releases

    def __init__(self, X, Y, sw, offsets, mass, confidence, loss, l2, n_penalized, mu,
                 dtype, rogue, rogue_mode):
        self.X, self.Y, self.sw, self.offsets = X, Y, sw, offsets
        self.confidence = confidence
        self.inv_mass = 1.0 / mass
        self.loss = loss
        self.l2, self.n_penalized = float(l2), int(n_penalized)
        self.mu, self.dtype = float(mu), dtype
        self.K = offsets.shape[0] - 1
        self.P = Y.shape[0]
        self.n_features = X.shape[1]
        self.rogue, self.rogue_mode = rogue, rogue_mode
        self.setup_bytes = 0
        self.local_update = "gradient"  # the fit sets "block" (``_perso_lin_block``)
        self.block_iter = np.zeros(1, dtype=np.int64)
        curv = loss.py_curvature()
        lip = np.empty(self.K)
        for k in range(self.K):
            rows = slice(offsets[k], offsets[k + 1])
            Z = np.sqrt(sw[rows].astype(np.float64))[:, None] * X[rows].astype(np.float64)
            top = np.linalg.norm(Z, 2) ** 2 if Z.size else 0.0
            lip[k] = curv * top * self.inv_mass[k] + self.l2
        self.lipschitz = np.maximum(lip, 1e-12)
        self.reset_models()

    def reset_models(self):
        self.theta = np.zeros((self.K, self.P, self.n_features), dtype=self.dtype)
        self.public = np.zeros_like(self.theta)
        self.losses = np.zeros((self.K, self.P))
        self._recompute_losses()

    def _recompute_losses(self):
        lin_losses(self.X, self.Y, self.sw, self.offsets, self.theta, self.loss,
                   self.inv_mass, self.l2, self.n_penalized, self.losses)

    def local_models(self, n_steps, n_jobs):
        chunks = _node_chunks(self.K, n_jobs)

        private = {}
        if self.dp is not None:
            private = {"row_norm": self.row_norm, "clip": self.clip}
            if self.grid_step is not None:
                private["grid_step"] = self.grid_step
                private["noise"] = self.draw_noise(self.K * n_steps)
            self.dp.local_done[:] = n_steps

        # Without noise and clipping (no privacy, or epsilon=inf) every node
        # solves its local problem; a private node takes its n_steps
        # budgeted noisy steps.
        solved = self.dp is None or (self.grid_step is None and not self.clip)

        def run(chunk):
            if solved:
                solve_local_models(self, chunk[0], chunk[1])
                return
            lin_local(self.X, self.Y, self.sw, self.offsets, self.theta, self.loss,
                      self.inv_mass, self.lipschitz, self.l2, self.n_penalized, self.losses,
                      n_steps, chunk[0], chunk[1], **private)

        _run_chunks(run, chunks)
        self.public[...] = self.theta

    def objective(self):
        return _graph_objective_value(self.theta, self.losses, self.graph, self.degree,
                                      self.confidence, self.mu)

    def score_data(self):
        """What the graph steps need to score a received model on a node's data.

        ``(X, Y, sw, offsets, factor, loss)``: the mean margin loss
        ``(1 / m_k) sum_i s_i loss(y_i theta.x_i)`` (the data term of
        ``F_k``), weighted by the confidence ``c_k``: ``factor = c_k / m_k``.
        """
        factor = np.ascontiguousarray(self.confidence * self.inv_mass, dtype=np.float64)
        return self.X, self.Y, self.sw, self.offsets, factor, self.loss

    def async_steps(self, t, n_steps, clock, node_state, offline, simulation, budget, spent):
        curve = np.zeros(n_steps)
        payload = payload_bytes(
            **{("n_float32" if self.dtype == np.float32 else "n_float64"): self.P * self.n_features}
        )
        n_done, n_updates, spent, self.current = lin_async(
            self.X, self.Y, self.sw, self.offsets, self.theta, self.public, self.losses,
            self.loss, self.inv_mass, self.lipschitz, self.l2, self.n_penalized,
            self.indptr, self.indices, self.weights, self.degree, self.confidence, self.mu,
            int(n_steps), clock, node_state, offline, self.rogue, self.rogue_mode,
            simulation.counter, payload, int(budget), int(spent), self.running_objective(), curve,
            np.zeros(0, dtype=np.intp), **self._private_args(n_steps),
            **async_block_args(self),
        )
        self.n_iter_done += n_done
        return n_done, n_updates, spent, curve[:n_done]

    def draw_noise(self, n_rows):
        """``n_rows`` releases' worth of discrete Gaussian integers (secure source)."""
        return self.source.discrete_gaussian(self.grid_steps, (int(n_rows), self.P * self.n_features))

    def _private_args(self, n_steps):
        if self.dp is None:
            return {}
        args = {"row_norm": self.row_norm, "clip": self.clip,
                "wakeups_left": self.dp.wakeups_left, "stopped_at": self.dp.stopped_at,
                "it_offset": int(self.n_iter_done)}
        if self.grid_step is not None:
            rows = min(int(n_steps), int(self.dp.wakeups_left.sum()))
            args.update(grid_step=self.grid_step, noise=self.draw_noise(rows),
                        noise_used=np.zeros(1, dtype=np.int64))
        return args


class PersonalizedLinearClassifier(_BaseGraphPersonalized):
    """Perso-lin: personalized linear models smoothed over a collaboration graph.

    Every node k learns its own linear model ``theta_k`` (Vanhaesebrouck,
    Bellet & Tommasi, AISTATS 2017), pulled toward its neighbours' along the
    weighted edges of a collaboration graph, fixed or learned as in Dada
    (:mod:`skfed.graph`)::

        min  sum_k d_k c_k F_k(theta_k) + (mu / 2) sum_{k<l} w_kl ||theta_k - theta_l||^2

        F_k(theta) = (1 / m_k) sum_i s_i loss(y_i theta . x_i) + (alpha / 2) ||theta_w||^2

    with ``d_k = sum_l w_kl``, ``c_k = m_k / max_l m_l`` (``m_k`` the node's
    total sample weight), ``loss`` logistic or squared hinge and
    ``theta_w`` the weights without the intercept.

    **Algorithm.** Asynchronous decentralized block coordinate descent: the
    node whose Poisson clock ticks (drawn uniformly at random) takes a
    gradient step on its own block with step ``1 / L_k``, ``L_k = d_k c_k
    L_F,k + mu d_k`` where ``L_F,k = curvature * ||X_k||_2^2 / m_k + alpha``
    is the Lipschitz constant of ``grad F_k`` (curvature 1/4 for the
    logistic loss, 2 for the squared hinge), i.e.
    ``theta_k <- theta_k - (d_k c_k grad F_k(theta_k) + mu (d_k theta_k -
    sum_l w_kl theta_l)) / L_k``, and sends its new model (``n_features
    (+1)`` values) to its neighbours: ``local_update="gradient"``.  By
    default (``"auto"``, without privacy) the waking node instead
    minimizes its block of the objective, its neighbours' models fixed
    (``local_update="block"``; same messages, same bytes).  With ``graph=None`` the graph is
    learned exactly as in :class:`DecentralizedBoostingClassifier`: first
    from purely local models, from which the block coordinate descent
    then starts.  Each local model is the node's own optimum of ``F_k``
    (the paper's local model), found by accelerated gradient until the
    largest gradient entry is ``3e-3`` of its value at zero (at most
    10,000 steps; nothing is sent, so the accuracy costs no bytes);
    under a finite ``privacy`` budget it is ``ceil(max_iter / n_nodes)``
    private gradient steps instead.  A fixed number of plain gradient steps left
    ill-conditioned nodes far from their optimum: on HAR sitting (561 features, 21
    people) 100 steps per node gave 87.6-89.0 % test accuracy, the solved local models
    96.9-97.5 % (``python benchmarks/persolin_local_models.py``).  The graph is kept by
    default (``graph_update_every=None``; an integer or ``"n_nodes"`` re-learns it that
    often) and sparsified to connected.  Multiclass: one-vs-rest, one shared graph.

    Parameters
    ----------
    loss : {"logistic", "squared_hinge"}, default="logistic"
    alpha : float, default=1e-2
        l2 regularization of every node's weights (not the intercept).
    fit_intercept : bool, default=True
    mu : float, default=1.0
        Weight of the pull toward the neighbours.  ``d_k`` multiplies both
        of node k's terms, so its block optimum minimizes ``c_k
        F_k(theta) + (mu / 2) ||theta - u_k||^2``, ``u_k`` the weighted
        average of its neighbours' models: ``mu / c_k``, not the weight of
        its links, sets how closely a node follows them (a node whose
        labels are all one class can keep a neighbour's boundary; see the
        user guide's page on nodes).
    graph : None, array-like, sparse matrix or networkx graph, default=None
        ``None`` learns the graph; otherwise the fixed graph.  With a fixed
        graph a non-default ``graph_update_every``, ``graph_init_iter`` or
        ``graph_iter`` is refused (ValueError naming it: used only when the
        graph is learned), and the other graph parameters are used only by
        :meth:`add_nodes`, as in :class:`DecentralizedBoostingClassifier`.
    mu_graph, lambda_graph, delta, kappa, sparsify_graph : see
        :class:`DecentralizedBoostingClassifier`.
    max_neighbors : int, default=10
        As in :class:`DecentralizedBoostingClassifier`.  A count, so that a
        node's messages do not grow with the number of nodes: uncapped
        (``None``), the learned graph gets denser as nodes are added (each
        node samples about ``2 * 50 * kappa`` peers once or twice in the
        initial graph learning, too few visits to zero their weights, and
        ``sparsify_graph="connected"`` keeps weaker edges on a larger
        graph), and every wake-up sends the model to every neighbour: mean
        degree 4.7 / 12.2 / 14.0 at 100 / 400 / 1,600 nodes of 10 rows
        (72 / 120 / 132 kB a node).  With 10: 76 / 91 / 101 kB a node
        (each of a node's 100 wake-ups sends at most 10 models), accuracy within 0.4 point of ``None`` (3 seeds: 0.922 / 0.929 /
        0.904 against 0.918 / 0.931 / 0.908).
    peer_scoring : bool, default=False
        As in :class:`DecentralizedBoostingClassifier`, with Perso-lin's own
        loss: node k scores a received model ``theta_l`` on its samples by
        ``e_kl = c_k (G_k(theta_l) - G_k(theta_k))``, ``G_k(theta) = (1 / m_k)
        sum_i s_i loss(y_i theta . x_i)`` (the data term of ``F_k``, without
        its l2 term), O(m_k n_features) per received model; the pair (k, l)
        then also pays ``e_kl + e_lk`` in the graph objective, and
        ``max_neighbors`` drops the neighbours of the largest ``(mu / 2)
        ||theta_k - theta_l||^2 + e_kl + e_lk``.  Each graph-step answer
        carries one more float64, and before a re-learning each node sends
        each graph neighbour its score of it.  Off by default: unlike
        Dada's stump weights, linear models that predict alike are close
        in distance, so the scores add little.  On the moons seeds used to
        choose the defaults, a node's five nearest peers by score are as
        often in its own cluster as by distance (65-67 % random layout, 93-94 %
        against 91 % paper layout), the weight inside the true clusters
        goes from 68.2 to 68.9 % (random) and 90.4 to 91.0 % (paper) and the
        accuracy changes by +0.2 point, while Computer buyers loses 0.3 point
        (School and HAR walking: no change).  Refused under a finite
        ``privacy`` budget.
    graph_update_every : int, "n_nodes", "geometric" or None, default=None
        As in :class:`DecentralizedBoostingClassifier`; by default the graph
        is learned once, from the local models (on the data sets of the
        user guide, seeds 0-2, this scores 0.1 point higher than
        re-learning on the mean, with fewer bytes and 6-11 points more of
        the weight inside the true clusters of the moons:
        ``python benchmarks/persolin_graph_knobs.py``).  Used only when the
        graph is learned (``graph=None``).
    graph_init_iter : int, default=None
        Graph steps of the initial graph learning (used only when the graph
        is learned, ``graph=None``); ``None``: ``50 * n_nodes``
        (not Dada's ``10 * n_nodes``: Perso-lin keeps the graph it learns
        from the local models, and 10 steps per node lose 9-16 points of
        the weight inside the true clusters on the paper, random and jitter
        moons; on seeds 0-2 they score 0.3-1.9 points higher on the four
        moons families and 0.2 lower on Computer buyers and School,
        ``python benchmarks/persolin_graph_knobs.py``; over 14 families
        0.8 higher on the mean, but the joins of new nodes lose 0.5-1.6
        points on HAR, ``python benchmarks/persolin_defaults.py``).
    graph_iter : see :class:`DecentralizedBoostingClassifier`.
    max_iter : int, default=None
        Global iterations; ``None``: ``100 * n_nodes``, and ``30 * n_nodes``
        under a finite ``privacy`` budget (fewer, larger private steps: at
        ``epsilon = 3`` the released models score 0.799 instead of 0.769 on
        the moons, 0.529 instead of 0.516 on Computer buyers).
    communication_budget : int, default=None
    network : SimulatedNetwork, default=None
        A rogue node sends the negated model (``"complement"``) or uniform
        noise of the same scale (``"random"``).  Stragglers are refused with
        an error (a step is atomic).
    group_column : int, str or None, default=None
    handle_unknown : {"global", "error"}, default="global"
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads for the purely local phase.
    privacy : DifferentialPrivacy, default=None
        Make every node's messages ``(epsilon, delta)``-differentially
        private with respect to one of its samples by Gaussian noise on its
        gradients (see Notes; needs ``delta > 0`` and no ``sample_weight``).
        None: no privacy.
    local_update : {"auto", "block", "gradient"}, default="auto"
        What a waking node (and a newcomer of :meth:`add_nodes`) does with
        its block: ``"gradient"`` the step above; ``"block"`` minimizes it
        (preconditioned accelerated gradient until the largest scaled
        gradient entry is ``1e-2`` of the smaller of its values at the
        start and at zero, a newcomer's ``1e-10`` of the latter, at most 500
        iterations a solve; local computation, no bytes); ``"auto"``: ``"block"``,
        or ``"gradient"`` under ``privacy`` (the analysed release; an
        explicit ``"block"`` with ``privacy`` is refused).  At the default
        ``max_iter`` the gradient steps stop up to 36 % above the
        objective's optimum (53-95 % on HAR), block solves within 1.3 %
        (0.6 % on HAR), scoring 5-6 points higher at d = 500, 0.6 on many
        small nodes, at most 0.03 lower on the other held-out families
        (``python benchmarks/persolin_block_update.py``);
        a wake-up costs more CPU (HAR's fit 9 times, d = 500's 6 times).
    join_neighbours : {"auto", "graph", "posterior", "shared"}, default="auto"
        ``"auto"``: a gate ends the fit (bytes in ``communication_``); open, newcomers take the mean
        model of their 5 nearest-feature-mean fitted nodes (:mod:`skfed._mean_neighbours`); closed,
        ``"posterior"``'s: a prior from the candidates' likelihoods (:mod:`._perso_lin_posterior`).
        ``"graph"`` (and ``privacy``, MPI, 6 fitted nodes or fewer): the graph join.  ``"shared"``
        (opt-in): a hub-solved logistic model behind a gate (:mod:`._perso_lin_shared`).

    Attributes
    ----------
    nodes_, classes_ : ndarray
    coef_ : ndarray of shape (n_nodes, n_features) or (n_nodes, n_classes, n_features)
    intercept_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
    collaboration_graph_ : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
    confidence_ : ndarray of shape (n_nodes,)
    n_iter_, n_updates_, n_graph_updates_ : int
    objective_curve_ : ndarray of shape (n_iter_,)
    objective_ : float
    communication_, n_bytes_sent_, n_messages_, bytes_per_round_
        As for :class:`DecentralizedBoostingClassifier` (the totals include
        the joins); a private fit that held the class vote has one more
        round, the vote's, last (``privacy_["class_vote"]``).
    join_communication_ : CommunicationLog
        What the joins of :meth:`add_nodes` sent; only after a join.
    newcomer_rule_, newcomer_gate_ : str, dict or None
        :meth:`add_nodes`'s rule (``"graph"``, ``"features"``, ``"shared"``, ``"posterior"``), its gate's ``t``...
    n_features_in_ : int
    privacy_spent_ : ndarray of shape (n_nodes,)
        Only with ``privacy``: the epsilon each node spent at the
        specification's delta (the accountant's figure for its releases,
        plus the class vote's, ``privacy_["class_vote"]``).
    privacy_ : dict
        Only with ``privacy``: mechanism, noise standard deviation per node
        (``sigma``), clip norm, sensitivities, uses per node, planned and
        affordable wake-ups, ``stopped_at`` (-1: never ran out), the class
        vote (``class_vote``).
    privacy_public_ : dict
        Only with ``privacy``: what the fit treats as public (not protected
        by the noise), each with why.
    privacy_guarantee_void_ : bool
        Only with ``privacy``: True when the noise came from
        ``insecure_noise_seed`` (testing only: no guarantee).
    <released and refit attributes>
    elected_local_class_ : str or None
        Only with a finite ``privacy`` budget: the Local model class the
        nodes' private class vote elected for every node (``"LinearSVC"``,
        ``"rff-LinearSVC"``), or None (no fixed class: each node's own
        one-standard-error rule; or no vote held, ``privacy_["class_vote"]``).
        The vote spends ``epsilon / 3`` of the budget, included in
        ``privacy_spent_`` (:mod:`skfed._class_vote`, the privacy guide).

    Notes
    -----
    **Privacy** (``privacy=``), the private peer-to-peer scheme of Bellet et
    al. (2018) with Gaussian instead of Laplace noise.  The data enter what
    a node sends only through the gradient of its local loss ``F_k``; under
    ``privacy`` every sample's term ``loss'(y_i theta.x_i) y_i x_i`` of it
    is clipped to l2 norm ``C`` (``privacy.clip_norm``), so one replaced
    sample moves the mean gradient of each problem by at most ``2 C / m_k``
    and the ``P`` one-vs-rest problems together by ``Delta_k = 2 C sqrt(P)
    / m_k``; the node adds ``N(0, sigma_k^2)`` noise to every coordinate
    before its step, ``sigma_k = sigma_1 Delta_k``.  The model it sends is
    post-processing of these noisy gradients (and of its neighbours'
    models).  A node releases one noisy gradient per local step and per
    wake-up; ``sigma_1`` is calibrated (analytic Gaussian mechanism,
    composed per node) so that the local steps plus ``ceil(a + 2 sqrt(a))``
    wake-ups, ``a = max_iter / n_nodes``, spend the budget, and a node that
    has used every wake-up the budget affords stops sending, like a dropped
    node, with a :class:`~skfed.privacy.PrivacyBudgetWarning` naming it and
    the iteration.  The graph steps use the models alone (loss values are
    not sent); what is treated as public is listed in ``privacy_public_``
    and the objective values are not kept.  The step size
    ``1 / L_k`` reads ``||X_k||_2`` off the data, so a private node uses the
    public bound ``L_F = curvature * n_columns + alpha`` instead, valid for
    standardized features (``||X_k||_2^2 / m_k`` is at most the mean squared
    row norm, ``n_columns`` then): standardize the features under
    ``privacy``.  With ``epsilon=np.inf`` nothing is clipped, noised or
    changed.

    **What a node keeps** (finite budget).  The guarantee covers what a
    node sends: the models its neighbours hold, ``released_coef_`` and
    ``released_intercept_``.  Its final model ``coef_`` / ``intercept_`` is
    never sent, so each node refits it on its own samples, exactly (a node
    needs no protection from itself), with its graph neighbours held at
    their released models (post-processing: no budget spent): Newton's
    method on ``min_theta (1 / m_k) sum_i loss(y_i theta . x_i) + (lam /
    2) ||theta_w - u_w||^2``, ``u`` the graph-weighted mean of its
    neighbours' released models (``theta_w``, ``u_w`` without the
    intercept).  The candidates are the node alone (``u = 0``, ``lam = 1 /
    m_k``: scikit-learn's ``LogisticRegression()`` on its samples, with the
    logistic loss) and ``lam`` in {0.03, 0.3, 3} toward ``u``; 5-fold
    cross-validation of the loss on the node's own samples (folds from
    ``random_state``) chooses, and a candidate that trusts the neighbours
    replaces the node alone only when it validates better by more than one
    standard error.  ``coef_`` is therefore, like a Local model, not
    private with respect to the node's own samples, and depends on the
    other nodes' data only through their released models; the choice is in
    ``refit_trust_``.  On the same folds the node then compares that refit
    with the models it can train alone on its raw features
    (``LinearSVC()``, the rbf SVM on public random Fourier features,
    ``LogisticRegression()``) and keeps the simplest candidate whose
    held-out error is within one standard error of the lowest
    (``kept_local_models_`` when it is one trained alone, fitted on the
    class indices: ``classes_[model.predict(X)]`` are its labels): a node
    that does keeps exactly what Local would give it.  Measured in the
    privacy user guide.

    See Also
    --------
    DecentralizedBoostingClassifier : nonlinear personalized models (Dada).
    skfed.baselines.LocalEstimator : one model per node, no collaboration.

    References
    ----------
    P. Vanhaesebrouck, A. Bellet and M. Tommasi. "Decentralized Collaborative
    Learning of Personalized Models over Networks", AISTATS 2017.

    V. Zantedeschi, A. Bellet and M. Tommasi. "Fully Decentralized Joint
    Learning of Personalized Models and Collaboration Graphs", AISTATS 2020.

    A. Bellet, R. Guerraoui, M. Taziki and M. Tommasi. "Personalized and
    Private Peer-to-Peer Machine Learning", AISTATS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.boosting import PersonalizedLinearClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(200, 2)); groups = np.repeat([0, 1, 2, 3], 50)
    >>> y = np.where(groups < 2, X[:, 0] > 0, X[:, 1] > 0).astype(int)
    >>> clf = PersonalizedLinearClassifier(mu=0.1, random_state=0)
    >>> clf.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.9
    True
    """

    # Fewer, larger private steps (measured in max_iter's entry above).
    _private_iter_per_node = 30

    __doc__ = _fill_released_doc(__doc__, "lam", ", ``LogisticRegression()`` on its samples")

    _join_fixed_params = _BaseGraphPersonalized._join_fixed_params + ("local_update", "join_neighbours")

    _parameter_constraints = {
        "loss": [StrOptions(set(_LOSSES))],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "peer_scoring": ["boolean"],
        "privacy": [None, DifferentialPrivacy],
        "local_update": [StrOptions(set(LOCAL_UPDATES))],
        "join_neighbours": [StrOptions(set(JOIN_RULES))],
        **_BaseGraphPersonalized._common_constraints,
    }

    def __init__(
        self,
        *,
        loss="logistic",
        alpha=1e-2,
        fit_intercept=True,
        mu=1.0,
        graph=None,
        mu_graph=None,
        lambda_graph=1.0,
        delta=1e-3,
        kappa=5,
        max_neighbors=10,
        peer_scoring=False,
        sparsify_graph="connected",
        graph_update_every=None,
        graph_init_iter=None,
        graph_iter=None,
        max_iter=None,
        communication_budget=None,
        network=None,
        group_column=None,
        handle_unknown="global",
        random_state=None,
        n_jobs=None,
        privacy=None,
        local_update="auto",
        join_neighbours="auto",
    ):
        self.loss = loss
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.mu = mu
        self.graph = graph
        self.mu_graph = mu_graph
        self.lambda_graph = lambda_graph
        self.delta = delta
        self.kappa = kappa
        self.max_neighbors = max_neighbors
        self.peer_scoring = peer_scoring
        self.sparsify_graph = sparsify_graph
        self.graph_update_every = graph_update_every
        self.graph_init_iter = graph_init_iter
        self.graph_iter = graph_iter
        self.max_iter = max_iter
        self.communication_budget = communication_budget
        self.network = network
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.privacy = privacy
        self.local_update = local_update
        self.join_neighbours = join_neighbours

    def _design(self, X, dtype):
        if fitted_param(self, "fit_intercept"):  # (the fit's: set_params waits for a fit)
            X = np.column_stack([X, np.ones(X.shape[0])])
        return np.ascontiguousarray(X, dtype=dtype)

    def fit(self, X, y, groups=None, sample_weight=None):
        """Jointly learn the per-node linear models and the collaboration graph.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None
            Weights inside each node's mean loss ``F_k``; node masses set
            the confidences.  A weight acts as a repetition (weight 2 fits
            as the sample twice), and since ``F_k`` is a weighted mean and
            the confidences are relative masses, multiplying every weight
            by a constant leaves the fit unchanged.

        Returns
        -------
        self : PersonalizedLinearClassifier
        """
        self._validate_params()
        spec = check_privacy(self.privacy, type(self).__name__, local_estimator=True)
        check_shared(self, spec)
        if spec is not None:
            _check_private_inputs(self, sample_weight, spec)
        Xs, Y, sws, layout, mass = self._prepare(X, y, groups, sample_weight)
        dtype = Xs.dtype
        rng = check_random_state(self.random_state)
        simulation, seeds = self._start(rng)
        Z = self._design(Xs, dtype)
        rogue, (confidence, max_mass) = simulation.rogue.astype(np.uint8), node_scale(mass)
        rogue_mode = 0 if simulation.network.rogue_behavior == "complement" else 1
        state = _LinearState(
            Z, Y, sws, layout.offsets, mass, confidence, _LOSSES[self.loss](),
            self.alpha, Xs.shape[1], self.mu, dtype, rogue, rogue_mode,
        )
        state.max_mass, state.node_mass = max_mass, mass
        state.raw_X = Xs  # the nodes' raw features (private kept models)
        state.labels = self.nodes_  # node-ordered, for the local solve's warning
        state.local_update = resolved_local_update(self, spec)
        if spec is not None:
            self._plan_private_gradients(state, spec, mass)
        state = self._fit_alternating(state, simulation, seeds, self.n_jobs)
        if spec is not None:
            state.dp.finish(
                self, state, composition=(
                    "one discrete Gaussian release of the clipped gradient (all problems) "
                    "per local step and per wake-up of the node, composed over its steps "
                    "(zCDP)"
                ),
                public=_PERSOLIN_PUBLIC,
                clip_norm=state.clip, gradient_sensitivity=state.sensitivity,
                sigma=state.sigma, grid_step=state.grid_step,
                lipschitz=state.lipschitz.copy(),
            )
        n_features = Xs.shape[1]
        refit = self._refit_private_final(state, rng)
        for name in _REFIT_ATTRIBUTES:  # a previous private fit's
            self.__dict__.pop(name, None)
        if refit is not None:
            self.released_coef_, self.released_intercept_ = _split_models(
                state.public, n_features, self.fit_intercept)
            self.refit_trust_ = _squeeze_problems(refit[1])
        self.coef_, self.intercept_ = _split_models(
            state.theta if refit is None else refit[0], n_features, self.fit_intercept)
        fit_newcomer_rule(self, state, simulation, spec)
        return self

    def _plan_private_gradients(self, state, spec, mass):
        """Calibrate the discrete Gaussian noise on the local gradients; set the budget."""
        plan_private_gradients(self, state, spec, mass)

    def _full_coef(self, released=False):
        return DecentralizedBoostingClassifier._full_coef(self, released)

    def decision_function(self, X, groups=None):
        """Score of every sample under its node's linear model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        check_is_fitted(self)
        X, codes = self._validate_predict_data(X, groups)
        return apply_kept_local(self, X, codes, _personalized_scores(
            self._design(X, np.float64), codes, self._full_coef(), self._shared_coef()))

    predict = DecentralizedBoostingClassifier.predict
