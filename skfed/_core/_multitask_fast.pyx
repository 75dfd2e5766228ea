# Node-level solvers of federated kernel multi-task learning (kernelized MOCHA).
#
# Notation (see ``skfed.multitask`` and ALGORITHMS.md section 1): node t has
# samples x_ti with weights s_ti (1 by default) and total weight W_t; the dual
# variable of sample i is alpha_ti = s_ti g_ti, where g_ti is the dual
# variable "per unit weight" the losses below work with.  The node's margins
# are f_t(x_ti) = w_t . phi(x_ti) and one round of the local subproblem
# (MOCHA's eq. 4) on node t maximises
#
#   - (1/W_t) sum_i s_ti l*(-(g_ti + dg_i)) - (1/W_t) sum_i s_ti dg_i f_ti
#   - (c / (2 W_t)) dalpha^T K_tt dalpha,       c = rho sigma_tt / (lambda W_t)
#
# by dual coordinate ascent with closed-form (hinge, squared hinge, squared)
# or safeguarded-Newton (logistic) coordinate steps.  The node keeps its
# "local view" of its margins, p = f_t + c K_tt dalpha, up to date after every
# step, so each step costs one kernel row (kernel mode) or two d-vectors
# (linear mode).  The local duality gap of this subproblem is
#
#   sum_i s_ti [ l(p_i) + l*(-g'_i) + g'_i p_i ]            (times 1 / W_t)
#
# which at dalpha = 0 is exactly node t's term of the global duality gap.
#
# Python validates, allocates, draws the per-node seeds and simulates the
# network; everything here only computes, without the GIL.  The losses are
# in ``_multitask_losses``, the exact subproblems in ``_multitask_exact``.

from libc.math cimport exp, fabs, log, log1p, INFINITY, NAN

import numpy as np

from cython cimport floating
from scipy.linalg.cython_blas cimport daxpy, ddot, dgemv
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs

from ._random cimport rand_int

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SKFED_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define SKFED_PREFETCH(p) ((void)0)
    #endif
    """
    void SKFED_PREFETCH(const void* p) noexcept nogil
from ._mixed_dots cimport _axpy_mixed, _dot_mixed, _dot_single
from ._multitask_losses cimport MultiTaskLoss, _joint_terms, _softmax_step
from ._typedefs cimport intp_t, uint32_t

# (the losses and the exact subproblems live in their own modules since
# issue 30's split; re-exported so imports and pickles keep their names)
from ._multitask_losses import Hinge, Logistic, Multinomial, Squared, SquaredHinge
from ._multitask_exact import _check_node_batch, local_solve_exact_nodes
from . import _multitask_losses
# (the cimported base class is not a module attribute by itself)
globals()["MultiTaskLoss"] = _multitask_losses.MultiTaskLoss


# ------------------------------------------------------------------ helpers
cdef void _shuffle(intp_t* perm, intp_t n, uint32_t* state) noexcept nogil:
    """Fisher-Yates shuffle driven by the node's xorshift state."""
    cdef intp_t k, j, tmp
    for k in range(n - 1, 0, -1):
        j = rand_int(k + 1, state)
        tmp = perm[k]
        perm[k] = perm[j]
        perm[j] = tmp


cdef double _gap_sum(MultiTaskLoss loss, const double* p, const double* y,
                     const double* sw, const double* g, intp_t n) noexcept nogil:
    """sum_i s_i [l(p_i) + l*(-g_i) + g_i p_i] (the local gap times W_t)."""
    cdef intp_t i
    cdef double total = 0.0
    for i in range(n):
        if sw[i] > 0.0:
            total += sw[i] * (loss.value(p[i], y[i]) + loss.conjugate(g[i], y[i])
                              + g[i] * p[i])
    return total


cdef inline void _view_margins(const floating* X, const double* work, double* p, intp_t n,
                               intp_t d, intp_t K) noexcept nogil:
    """``p[k n + i] = x_i . work[k d:(k + 1) d]``: the margins of a node's
    ``n`` rows under its ``K`` local views (one per problem solved together)."""
    cdef intp_t i, k
    for k in range(K):
        for i in range(n):
            p[k * n + i] = _dot_mixed(&X[i * d], &work[k * d], d)


cdef inline void _pass_setup(const floating* X, const double* W, intp_t ws, double* work,
                             double* p, intp_t* perm, intp_t n, intp_t d,
                             intp_t K) noexcept nogil:
    """The set-up of a node's dual pass (binary ``K = 1`` or multinomial):
    the local views ``work`` (K d) start at the models ``W + k ws``, ``p``
    (K n) holds their margins and ``perm`` the identity before its first
    shuffle."""
    cdef intp_t i, j, k
    for k in range(K):
        for j in range(d):
            work[k * d + j] = W[k * ws + j]
    _view_margins(X, work, p, n, d, K)
    for i in range(n):
        perm[i] = i


def _check_node_arrays(intp_t n, y, sw, g, p, delta, perm, state):
    if (y.shape[0] != n or sw.shape[0] != n or g.shape[0] != n or p.shape[0] != n
            or delta.shape[0] != n or perm.shape[0] != n):
        raise ValueError("the per-sample arrays of a node must all have its n_samples entries.")
    if state.shape[0] != 1:
        raise ValueError("state must hold exactly one uint32 seed.")


# ------------------------------------------------------------ local solvers
def local_solve_kernel(
    const floating[:, ::1] K,      # IN (n, n) the node's own kernel block
    const double[::1] y,           # IN (n,) targets (+-1 for classification)
    const double[::1] sw,          # IN (n,) sample weights (0: row skipped)
    double[::1] g,                 # IN/OUT (n,) dual variables per unit weight
    double[::1] p,                 # IN margins f_t(x_i); OUT local view f + c K dalpha
    double[::1] delta,             # OUT (n,) change of alpha = sw * g; zero on entry
    double c,                      # IN rho * sigma_tt / (lambda * W_t)
    MultiTaskLoss loss,            # IN
    intp_t n_steps,                # IN coordinate steps to do this round
    double theta,                  # IN stop after a pass once gap <= theta * gap0 (0: never)
    uint32_t[::1] state,           # IN/OUT (1,) the node's xorshift state
    intp_t[::1] perm,              # SCRATCH (n,) coordinate order
):
    """One round of dual coordinate ascent on a node's local subproblem (kernel mode).

    Coordinates are visited in a fresh random order every pass over the
    node's samples, ``n_steps`` steps in all (a fraction of a pass for a
    straggler); with ``theta > 0`` the node also stops at the end of a pass
    once its local gap is at most ``theta`` times its value at the start.

    Returns
    -------
    n_done : int
        Coordinate steps done.
    gap_start, gap_end : float
        Local duality gap (times ``W_t``) at the start and at the end.
    """
    _refuse_joint(loss, "local_solve_kernel")
    cdef intp_t n = K.shape[0]
    if K.shape[1] != n:
        raise ValueError(f"K must be square, got shape ({K.shape[0]}, {K.shape[1]}).")
    _check_node_arrays(n, y, sw, g, p, delta, perm, state)
    if n == 0:
        return 0, 0.0, 0.0
    cdef double[3] result
    with nogil:
        _kernel_round(&K[0, 0], &y[0], &sw[0], &g[0], &p[0], &delta[0], n, c, loss, n_steps,
                      theta, &state[0], &perm[0], result)
    return <intp_t>result[0], result[1], result[2]



cdef void _kernel_round(
    const floating* K, const double* y, const double* sw, double* g, double* p,
    double* delta, intp_t n, double c, MultiTaskLoss loss, intp_t n_steps, double theta,
    uint32_t* state, intp_t* perm, double* result,
) noexcept nogil:
    """One node's round of :func:`local_solve_kernel` (``n >= 1``; ``K`` is n x n);
    ``result``: steps done, gap at the start and at the end."""
    cdef intp_t i, j, k, done = 0
    cdef double q, g_new, da, coef, gap0, gap
    cdef bint stop = False
    cdef const floating* row
    gap0 = _gap_sum(loss, p, y, sw, g, n)
    gap = gap0
    for i in range(n):
        perm[i] = i
    while done < n_steps and not stop:
        _shuffle(perm, n, state)
        for k in range(n):
            if done >= n_steps:
                break
            i = perm[k]
            done += 1
            if sw[i] <= 0.0:
                continue
            row = K + i * n
            q = c * row[i] * sw[i]
            g_new = loss.step(g[i], p[i], y[i], q)
            if g_new != g[i]:
                da = sw[i] * (g_new - g[i])
                g[i] = g_new
                delta[i] += da
                coef = c * da
                for j in range(n):
                    p[j] += coef * row[j]
        if theta > 0.0 and done < n_steps:
            gap = _gap_sum(loss, p, y, sw, g, n)
            if gap <= theta * gap0:
                stop = True
    if not stop:
        gap = _gap_sum(loss, p, y, sw, g, n)
    result[0] = <double>done
    result[1] = gap0
    result[2] = gap


cdef void _kernel_nodes(
    floating** blocks, const double* Y, const double* sw, double* G, double* P_,
    double* delta, intp_t n, intp_t n_problems, const intp_t* active, intp_t n_active,
    const intp_t* offsets, const double* c, const intp_t* steps, double theta,
    MultiTaskLoss loss, uint32_t* states, intp_t* perm,
) noexcept nogil:
    cdef intp_t a, t, k, lo, n_t
    cdef double[3] result
    for a in range(n_active):
        t = active[a]
        lo = offsets[t]
        n_t = offsets[t + 1] - lo
        if n_t == 0:
            continue
        for k in range(n_problems):
            _kernel_round(blocks[a], Y + k * n + lo, sw + lo, G + k * n + lo, P_ + k * n + lo,
                          delta + k * n + lo, n_t, c[t], loss, steps[t], theta, &states[t],
                          perm, result)


def local_solve_kernel_nodes(
    list blocks,                   # IN (n_nodes,) own kernel blocks (n_t, n_t), one dtype
    const double[:, ::1] Y,        # IN (n_problems, n) targets, node by node
    const double[::1] sw,          # IN (n,)
    double[:, ::1] G,              # IN/OUT (n_problems, n) dual variables per unit weight
    double[:, ::1] P,              # IN margins f; OUT the local views (active nodes' rows)
    double[:, ::1] delta,          # OUT (n_problems, n) change of alpha; zero on entry
    const intp_t[::1] active,      # IN (n_active,) node indices
    const intp_t[::1] offsets,     # IN (n_nodes + 1,) node boundaries
    const double[::1] c,           # IN (n_nodes,) rho sigma_tt / (lambda W_t)
    const intp_t[::1] steps,       # IN (n_nodes,) coordinate steps of this round
    double theta,                  # IN
    MultiTaskLoss loss,            # IN
    uint32_t[::1] states,          # IN/OUT (n_nodes,) the nodes' xorshift states
):
    """One round of :func:`local_solve_kernel` on every active node, in one call.

    Node ``active[a]`` runs its binary problems one after the other on its
    columns ``offsets[t]:offsets[t + 1]`` with its own block, drawing from
    its own state, exactly as one :func:`local_solve_kernel` call per node
    and problem would (bit-identical results).  No Python work per node.
    """
    cdef intp_t n = Y.shape[1], n_problems = Y.shape[0], m = offsets.shape[0] - 1
    cdef intp_t n_active = active.shape[0], a, t, n_t, widest = 1
    _refuse_joint(loss, "local_solve_kernel_nodes")
    cdef float[:, ::1] b32
    cdef double[:, ::1] b64
    if (sw.shape[0] != n or G.shape[0] != n_problems or G.shape[1] != n
            or P.shape[0] != n_problems or P.shape[1] != n
            or delta.shape[0] != n_problems or delta.shape[1] != n):
        raise ValueError("the per-sample arrays must all have n_samples entries per problem.")
    if len(blocks) != m or c.shape[0] != m or steps.shape[0] != m or states.shape[0] != m:
        raise ValueError("blocks, c, steps and states must have one entry per node.")
    if m < 0 or offsets[0] != 0 or offsets[m] != n:
        raise ValueError("offsets must run from 0 to n_samples.")
    if n_active == 0 or n == 0:
        return
    cdef bint single = blocks[active[0]].dtype == np.float32
    pointers = np.zeros(n_active, dtype=np.uintp)
    for a in range(n_active):
        t = active[a]
        if not (0 <= t < m):
            raise ValueError("active must hold node indices.")
        n_t = offsets[t + 1] - offsets[t]
        widest = max(widest, n_t)
        if single:
            b32 = blocks[t]
            if b32.shape[0] != n_t or b32.shape[1] != n_t:
                raise ValueError(f"the block of node {t} must be ({n_t}, {n_t}).")
            if n_t:
                pointers[a] = <size_t>&b32[0, 0]
        else:
            b64 = blocks[t]
            if b64.shape[0] != n_t or b64.shape[1] != n_t:
                raise ValueError(f"the block of node {t} must be ({n_t}, {n_t}).")
            if n_t:
                pointers[a] = <size_t>&b64[0, 0]
    cdef size_t[::1] ptr = pointers
    cdef intp_t[::1] perm = np.empty(widest, dtype=np.intp)
    with nogil:
        if single:
            _kernel_nodes(<float**>&ptr[0], &Y[0, 0], &sw[0], &G[0, 0], &P[0, 0], &delta[0, 0],
                          n, n_problems, &active[0], n_active, &offsets[0], &c[0], &steps[0],
                          theta, loss, &states[0], &perm[0])
        else:
            _kernel_nodes(<double**>&ptr[0], &Y[0, 0], &sw[0], &G[0, 0], &P[0, 0],
                          &delta[0, 0], n, n_problems, &active[0], n_active, &offsets[0],
                          &c[0], &steps[0], theta, loss, &states[0], &perm[0])


cdef void _linear_round(
    const floating* X, const double* sq_norms, const double* y, const double* sw,
    double* g, const double* w, double* dv, double* delta, double* work, double* p,
    intp_t n, intp_t d, double c, MultiTaskLoss loss, intp_t n_steps, double theta,
    uint32_t* state, intp_t* perm, double* result,
) noexcept nogil:
    """One node's round of :func:`local_solve_linear` on its ``n`` rows
    (``n >= 1``); ``result``: steps done, gap at the start and at the end."""
    cdef intp_t i, k, done = 0
    cdef double q, g_new, da, gap0, gap
    cdef bint stop = False
    _pass_setup(X, w, 0, work, p, perm, n, d, 1)
    gap0 = _gap_sum(loss, p, y, sw, g, n)
    gap = gap0
    while done < n_steps and not stop:
        _shuffle(perm, n, state)
        for k in range(n):
            if done >= n_steps:
                break
            i = perm[k]
            done += 1
            if sw[i] <= 0.0:
                continue
            q = c * sq_norms[i] * sw[i]
            g_new = loss.step(g[i], _dot_mixed(&X[i * d], work, d), y[i], q)
            if g_new != g[i]:
                da = sw[i] * (g_new - g[i])
                g[i] = g_new
                delta[i] += da
                _axpy_mixed(da, &X[i * d], dv, d)
                _axpy_mixed(c * da, &X[i * d], work, d)
        if theta > 0.0 and done < n_steps:
            _view_margins(X, work, p, n, d, 1)
            gap = _gap_sum(loss, p, y, sw, g, n)
            if gap <= theta * gap0:
                stop = True
    if not stop:
        _view_margins(X, work, p, n, d, 1)
        gap = _gap_sum(loss, p, y, sw, g, n)
    result[0] = <double>done
    result[1] = gap0
    result[2] = gap


def local_solve_linear(
    const floating[:, ::1] X,      # IN (n, d) the node's (augmented) features
    const double[::1] sq_norms,    # IN (n,) squared norms of the rows of X
    const double[::1] y,           # IN (n,)
    const double[::1] sw,          # IN (n,)
    double[::1] g,                 # IN/OUT (n,) dual variables per unit weight
    const double[::1] w,           # IN (d,) the node's current w_t
    double[::1] dv,                # OUT (d,) sum_i dalpha_i x_i; zero on entry
    double[::1] delta,             # OUT (n,) change of alpha; zero on entry
    double[::1] work,              # SCRATCH (d,) w + c dv
    double[::1] p,                 # SCRATCH (n,) margins (for the gaps)
    double c,                      # IN rho * sigma_tt / (lambda * W_t)
    MultiTaskLoss loss,            # IN
    intp_t n_steps,                # IN
    double theta,                  # IN
    uint32_t[::1] state,           # IN/OUT (1,)
    intp_t[::1] perm,              # SCRATCH (n,)
):
    """One round of dual coordinate ascent on a node's local subproblem (primal ``w_t`` kept).

    MOCHA's own local solver: the margin of sample i in the local view is
    ``x_i . (w_t + c dv)``.  Same order, budget and ``theta`` rule as
    :func:`local_solve_kernel`.

    Returns
    -------
    n_done : int
    gap_start, gap_end : float
        Local duality gap (times ``W_t``) at the start and at the end.
    """
    _refuse_joint(loss, "local_solve_linear")
    cdef intp_t n = X.shape[0], d = X.shape[1]
    cdef double[3] result
    _check_node_arrays(n, y, sw, g, p, delta, perm, state)
    if sq_norms.shape[0] != n:
        raise ValueError("sq_norms must have n_samples entries.")
    if w.shape[0] != d or dv.shape[0] != d or work.shape[0] != d:
        raise ValueError("w, dv and work must have n_features entries.")
    if n == 0:
        return 0, 0.0, 0.0
    with nogil:
        _linear_round(&X[0, 0], &sq_norms[0], &y[0], &sw[0], &g[0], &w[0], &dv[0], &delta[0],
                      &work[0], &p[0], n, d, c, loss, n_steps, theta, &state[0], &perm[0],
                      result)
    return <intp_t>result[0], result[1], result[2]


# ----------------------------------------------------------- state updates
def update_state(
    const floating[:, ::1] cache,  # IN (n_slots, n_u) rows k(x_sv, X_u) (+ bias term)
    const intp_t[::1] slots,       # IN (n_changes,) cache row of each changed vector
    const intp_t[::1] rows,        # IN (n_changes,) row of S: problem * m + source node
    const double[::1] coefs,       # IN (n_changes,) dalpha / W_source
    double[:, ::1] S,              # IN/OUT (n_problems * m, n_u)
):
    """Node u adds the received dual changes to its state.

    ``S[k m + t, i] = s_t(x_ui)`` for binary problem k: the contribution of
    node t's support vectors to the margins of node u's samples.  For every
    change ``S[rows[c]] += coefs[c] * cache[slots[c]]``.
    """
    cdef intp_t n_changes = slots.shape[0], n_u = S.shape[1], c, i, r, s
    cdef double a
    if rows.shape[0] != n_changes or coefs.shape[0] != n_changes:
        raise ValueError("slots, rows and coefs must have the same length.")
    if cache.shape[1] != n_u:
        raise ValueError("cache and S must have one column per sample of the node.")
    for c in range(n_changes):
        if not (0 <= slots[c] < cache.shape[0]) or not (0 <= rows[c] < S.shape[0]):
            raise ValueError("slot or row index out of range.")
    with nogil:
        for c in range(n_changes):
            a = coefs[c]
            s = slots[c]
            r = rows[c]
            for i in range(n_u):
                S[r, i] += a * cache[s, i]



cdef void _update_nodes(
    floating** own, floating** caches, double** states, const intp_t* n_rows,
    intp_t n_recv, const intp_t* receivers, const intp_t* src, const intp_t* local,
    const intp_t* rows, const double* coefs, const intp_t* slots, intp_t n_changes,
) noexcept nogil:
    """The loop of :func:`update_states` (``slots`` is (n_nodes, n_changes)).

    A run of consecutive changes to the same row of ``S_u`` is added in
    blocks of columns: every block of the row is loaded and stored once per
    run, and gets the changes in their order (the same sums as one change
    at a time, bit for bit).
    """
    cdef intp_t a, u, c, c0, c1, i, i0, i1, n_u
    cdef double s
    cdef const floating* row
    cdef const floating* nxt
    cdef double* out
    cdef double[256] acc
    for a in range(n_recv):
        u = receivers[a]
        n_u = n_rows[a]
        c0 = 0
        while c0 < n_changes:
            c1 = c0 + 1
            while c1 < n_changes and rows[c1] == rows[c0]:
                c1 += 1
            out = states[a] + rows[c0] * n_u
            i0 = 0
            while i0 < n_u:
                i1 = min(i0 + 256, n_u)
                for i in range(i0, i1):
                    acc[i - i0] = out[i]
                for c in range(c0, c1):
                    if src[c] == u:
                        row = own[a] + local[c] * n_u
                    elif slots[u * n_changes + c] >= 0:
                        row = caches[a] + slots[u * n_changes + c] * n_u
                    else:
                        continue
                    if c + 1 < c1 and src[c + 1] != u and slots[u * n_changes + c + 1] >= 0:
                        # The next row's block: fetched while this one is added.
                        nxt = caches[a] + slots[u * n_changes + c + 1] * n_u
                        for i in range(i0, i1, 16):
                            SKFED_PREFETCH(nxt + i)
                    s = coefs[c]
                    for i in range(i0, i1):
                        acc[i - i0] += s * row[i]
                for i in range(i0, i1):
                    out[i] = acc[i - i0]
                i0 = i1
            c0 = c1


def update_states(
    list own,                      # IN (n_nodes,) own kernel blocks (n_u, n_u), X's dtype
    list caches,                   # IN (n_nodes,) received kernel rows (n_slots_u, n_u), same dtype
    list states,                   # IN/OUT (n_nodes,) S_u (n_problems * n_nodes, n_u) float64
    const intp_t[::1] receivers,   # IN (n_recv,) the nodes this call updates
    const intp_t[::1] src,         # IN (n_changes,) source node of each change
    const intp_t[::1] local,       # IN (n_changes,) index of the changed sample in its node
    const intp_t[::1] rows,        # IN (n_changes,) row of S: problem * n_nodes + source node
    const double[::1] coefs,       # IN (n_changes,) dalpha / W_source
    const intp_t[:, ::1] slots,    # IN (n_nodes, n_changes) cache row on node u; -1: skipped
):
    """:func:`update_state` of every receiving node and every change, in one call.

    Node u adds change c to ``S_u[rows[c]]`` with the kernel row of its
    own block when ``src[c] == u``, else with its cached row ``slots[u,
    c]`` (skipped when -1: node u does not hold that support vector).  The
    changes are applied in their order, so every row of ``S_u`` gets the
    same additions in the same order as one :func:`update_state` call per
    node (bit-identical).  No Python work per node or change.
    """
    cdef intp_t m = len(states), n_recv = receivers.shape[0], n_changes = src.shape[0]
    cdef intp_t a, u, c, n_u, n_own
    cdef float[:, ::1] own32, cache32
    cdef double[:, ::1] own64, cache64, S
    if len(own) != m or len(caches) != m:
        raise ValueError("own, caches and states must have one entry per node.")
    if (local.shape[0] != n_changes or rows.shape[0] != n_changes
            or coefs.shape[0] != n_changes):
        raise ValueError("src, local, rows and coefs must have the same length.")
    if slots.shape[0] != m or slots.shape[1] != n_changes:
        raise ValueError("slots must be (n_nodes, n_changes).")
    if n_recv == 0 or n_changes == 0:
        return
    cdef bint single = own[receivers[0]].dtype == np.float32
    cdef intp_t n_slots
    own_ptr = np.zeros(n_recv, dtype=np.uintp)
    cache_ptr = np.zeros(n_recv, dtype=np.uintp)
    state_ptr = np.zeros(n_recv, dtype=np.uintp)
    cdef intp_t[::1] n_rows = np.empty(n_recv, dtype=np.intp)
    for a in range(n_recv):
        u = receivers[a]
        if not (0 <= u < m):
            raise ValueError("receivers must be node indices.")
        S = states[u]
        n_u = S.shape[1]
        if S.shape[0] <= <intp_t>0:
            raise ValueError("states must have one row per (problem, node).")
        n_rows[a] = n_u
        if single:
            own32 = own[u]
            cache32 = caches[u]
            n_own, n_slots = own32.shape[0], cache32.shape[0]
            if own32.shape[1] != n_u or cache32.shape[1] != n_u:
                raise ValueError("own, caches and states of a node must have n_u columns.")
            if n_own and n_u:
                own_ptr[a] = <size_t>&own32[0, 0]
            if n_slots and n_u:
                cache_ptr[a] = <size_t>&cache32[0, 0]
        else:
            own64 = own[u]
            cache64 = caches[u]
            n_own, n_slots = own64.shape[0], cache64.shape[0]
            if own64.shape[1] != n_u or cache64.shape[1] != n_u:
                raise ValueError("own, caches and states of a node must have n_u columns.")
            if n_own and n_u:
                own_ptr[a] = <size_t>&own64[0, 0]
            if n_slots and n_u:
                cache_ptr[a] = <size_t>&cache64[0, 0]
        if n_u:
            state_ptr[a] = <size_t>&S[0, 0]
        for c in range(n_changes):
            if not (0 <= rows[c] < S.shape[0]):
                raise ValueError("row index out of range.")
            if src[c] == u:
                if not (0 <= local[c] < n_own):
                    raise ValueError("local index out of range.")
            elif slots[u, c] >= n_slots:
                raise ValueError("slot index out of range.")
    cdef size_t[::1] op = own_ptr, cp = cache_ptr, sp = state_ptr
    with nogil:
        if single:
            _update_nodes(<float**>&op[0], <float**>&cp[0], <double**>&sp[0], &n_rows[0],
                          n_recv, &receivers[0], &src[0], &local[0], &rows[0], &coefs[0],
                          &slots[0, 0], n_changes)
        else:
            _update_nodes(<double**>&op[0], <double**>&cp[0], <double**>&sp[0], &n_rows[0],
                          n_recv, &receivers[0], &src[0], &local[0], &rows[0], &coefs[0],
                          &slots[0, 0], n_changes)


def gap_terms(
    const double[::1] f,           # IN (n,) margins f_t(x_i)
    const double[::1] y,           # IN (n,)
    const double[::1] sw,          # IN (n,)
    const double[::1] g,           # IN (n,) dual variables per unit weight
    MultiTaskLoss loss,            # IN
):
    """A node's sums for the objective and the duality gap.

    Returns
    -------
    loss_sum : float
        ``sum_i s_i l(f_i, y_i)``.
    conjugate_sum : float
        ``sum_i s_i l*(-g_i)``.
    cross_sum : float
        ``sum_i alpha_i f_i`` with ``alpha_i = s_i g_i``.
    """
    cdef intp_t n = f.shape[0]
    cdef double[:, ::1] out = np.zeros((1, 3))
    cdef intp_t[::1] offsets = np.array([0, n], dtype=np.intp)
    node_gap_terms(f, y, sw, g, offsets, loss, out)
    return out[0, 0], out[0, 1], out[0, 2]


def node_gap_terms(
    const double[::1] f,           # IN (n,) margins, node by node
    const double[::1] y,           # IN (n,)
    const double[::1] sw,          # IN (n,)
    const double[::1] g,           # IN (n,)
    const intp_t[::1] offsets,     # IN (n_nodes + 1,) node boundaries
    MultiTaskLoss loss,            # IN
    double[:, ::1] out,            # OUT (n_nodes, 3) += the sums of gap_terms per node
):
    """:func:`gap_terms` of every node at once (added to ``out``)."""
    cdef intp_t n = f.shape[0], m = offsets.shape[0] - 1, t, i
    cdef double ls, cs, xs
    _refuse_joint(loss, "node_gap_terms")
    if y.shape[0] != n or sw.shape[0] != n or g.shape[0] != n:
        raise ValueError("f, y, sw and g must have the same length.")
    if m < 0 or out.shape[0] != m or out.shape[1] != 3 or offsets[0] != 0 or offsets[m] != n:
        raise ValueError("offsets must run from 0 to n_samples and out be (n_nodes, 3).")
    with nogil:
        for t in range(m):
            ls = cs = xs = 0.0
            for i in range(offsets[t], offsets[t + 1]):
                if sw[i] > 0.0:
                    ls += sw[i] * loss.value(f[i], y[i])
                    cs += sw[i] * loss.conjugate(g[i], y[i])
                    xs += sw[i] * g[i] * f[i]
            out[t, 0] += ls
            out[t, 1] += cs
            out[t, 2] += xs



# ------------------------------------------- multinomial (joint) rounds
cdef double _joint_gap_sum(const double* p, intp_t ps, const double* Y, intp_t ys,
                           const double* sw, const double* G, intp_t gs, intp_t n,
                           intp_t K) noexcept nogil:
    """sum_i s_i [l(p_i) + l*(-g_i) + g_i . p_i] of the multinomial loss
    (rows strided by class: ``p[k * ps + i]``, ``Y[k * ys + i]``, ``G[k * gs + i]``)."""
    cdef intp_t i
    cdef double total = 0.0
    cdef double[3] terms
    for i in range(n):
        if sw[i] > 0.0:
            terms[0] = terms[1] = terms[2] = 0.0
            _joint_terms(&p[i], ps, &Y[i], ys, &G[i], gs, K, terms)
            total += sw[i] * (terms[0] + terms[1] + terms[2])
    return total


cdef void _joint_linear_round(
    const double* X, const double* sq_norms, const double* Y, intp_t ys, const double* sw,
    double* G, intp_t gs, const double* W, intp_t ws, double* dV, intp_t dvs,
    double* delta, intp_t ds, double* work, double* p, double* pk, double* pi,
    const intp_t* label, intp_t n, intp_t d, intp_t K, double c, intp_t n_steps, double theta,
    uint32_t* state, intp_t* perm, double* result,
) noexcept nogil:
    """One node's round of joint coordinate ascent under the multinomial loss.

    The same round as :func:`_linear_round` with the ``K`` problems of a
    sample taken together: a step visits one sample and moves its ``K``
    dual variables to the maximiser of its local subproblem
    (:func:`_softmax_step`, ``q = c ||x_i||^2 s_i`` the same for every
    class, the models of the classes sharing the node's scaling ``c``).
    ``W + k ws``, ``dV + k dvs``: class k's model and change of ``v``;
    ``work`` (K d) the local views, ``p`` (K n) scratch margins, ``pk``,
    ``pi`` (K) scratch; ``label[i]`` the class of row i.
    """
    cdef intp_t i, j, k, done = 0, y
    cdef double q, g_new, da, gap0, gap
    cdef bint stop = False
    _pass_setup(X, W, ws, work, p, perm, n, d, K)
    gap0 = _joint_gap_sum(p, n, Y, ys, sw, G, gs, n, K)
    gap = gap0
    while done < n_steps and not stop:
        _shuffle(perm, n, state)
        for j in range(n):
            if done >= n_steps:
                break
            i = perm[j]
            done += 1
            if sw[i] <= 0.0:
                continue
            q = c * sq_norms[i] * sw[i]
            y = label[i]
            for k in range(K):
                pk[k] = _dot_mixed(&X[i * d], &work[k * d], d)
                pi[k] = -G[k * gs + i]
            pi[y] += 1.0
            _softmax_step(pk, pi, K, q)
            for k in range(K):
                g_new = (1.0 if k == y else 0.0) - pi[k]
                if g_new != G[k * gs + i]:
                    da = sw[i] * (g_new - G[k * gs + i])
                    G[k * gs + i] = g_new
                    delta[k * ds + i] += da
                    _axpy_mixed(da, &X[i * d], &dV[k * dvs], d)
                    _axpy_mixed(c * da, &X[i * d], &work[k * d], d)
        if theta > 0.0 and done < n_steps:
            _view_margins(X, work, p, n, d, K)
            gap = _joint_gap_sum(p, n, Y, ys, sw, G, gs, n, K)
            if gap <= theta * gap0:
                stop = True
    if not stop:
        _view_margins(X, work, p, n, d, K)
        gap = _joint_gap_sum(p, n, Y, ys, sw, G, gs, n, K)
    result[0] = <double>done
    result[1] = gap0
    result[2] = gap


def _class_labels(const double[:, ::1] Y):
    """The class index of every column of a one-hot (+1 / -1) ``Y``, checked."""
    Ya = np.asarray(Y)
    positive = Ya > 0.0
    if Ya.shape[0] < 2 or not np.all(positive.sum(axis=0) == 1) or not np.all(
            positive | (Ya == -1.0)):
        raise ValueError(
            "the multinomial loss needs Y with +1 in the row of every sample's class and -1 "
            "in the others (at least two rows)."
        )
    return np.ascontiguousarray(np.argmax(positive, axis=0), dtype=np.intp)


def _refuse_joint(MultiTaskLoss loss, str where):
    if isinstance(loss, Multinomial):
        raise ValueError(
            f"{where} solves one problem at a time; the multinomial loss couples the "
            "problems of a sample (use local_solve_linear_nodes and problem_gap_terms)."
        )


def problem_gap_terms(
    const double[:, ::1] F,        # IN (n_problems, n) margins, node by node
    const double[:, ::1] Y,        # IN (n_problems, n)
    const double[::1] sw,          # IN (n,)
    const double[:, ::1] G,        # IN (n_problems, n)
    const intp_t[::1] offsets,     # IN (n_nodes + 1,) node boundaries
    MultiTaskLoss loss,            # IN
    double[:, ::1] out,            # OUT (n_nodes, 3) += the sums of gap_terms per node
):
    """:func:`node_gap_terms` of every problem, added to ``out``.

    For the losses of one margin, one :func:`node_gap_terms` call per
    problem in order (the same sums, bit for bit); for the multinomial
    loss the joint terms of every sample: ``s_i (log sum_k exp(f_ki) -
    f_{y_i i})``, ``s_i sum_k pi_ki log pi_ki`` and ``s_i g_i . f_i``.
    """
    cdef intp_t P = F.shape[0], n = F.shape[1], m = offsets.shape[0] - 1, t, i
    cdef double s
    cdef double[3] terms
    if Y.shape[0] != P or G.shape[0] != P or Y.shape[1] != n or G.shape[1] != n \
            or sw.shape[0] != n:
        raise ValueError("F, Y and G must be (n_problems, n) and sw (n,).")
    if not isinstance(loss, Multinomial):
        for k in range(P):
            node_gap_terms(F[k], Y[k], sw, G[k], offsets, loss, out)
        return
    if m < 0 or out.shape[0] != m or out.shape[1] != 3 or offsets[0] != 0 or offsets[m] != n:
        raise ValueError("offsets must run from 0 to n_samples and out be (n_nodes, 3).")
    _class_labels(Y)
    if n == 0:
        return
    with nogil:
        for t in range(m):
            for i in range(offsets[t], offsets[t + 1]):
                s = sw[i]
                if s > 0.0:
                    terms[0] = terms[1] = terms[2] = 0.0
                    _joint_terms(&F[0, i], n, &Y[0, i], n, &G[0, i], n, P, terms)
                    out[t, 0] += s * terms[0]
                    out[t, 1] += s * terms[1]
                    out[t, 2] += s * terms[2]


# --------------------------------------------------- batched primal rounds
def local_solve_linear_nodes(
    const double[:, ::1] X,        # IN (n, d) every node's features, node by node
    const double[::1] sq_norms,    # IN (n,)
    const double[:, ::1] Y,        # IN (n_problems, n)
    const double[::1] sw,          # IN (n,)
    double[:, ::1] G,              # IN/OUT (n_problems, n) dual variables per unit weight
    const double[:, :, ::1] W,     # IN (n_problems, n_nodes, d) the nodes' models w_t
    double[:, :, ::1] dV,          # OUT (n_problems, n_active, d) sum_i dalpha_i x_i; zero on entry
    double[:, ::1] delta,          # OUT (n_problems, n) change of alpha; zero on entry
    const intp_t[::1] active,      # IN (n_active,) increasing node indices
    const intp_t[::1] offsets,     # IN (n_nodes + 1,) node boundaries in the rows
    const double[::1] c,           # IN (n_nodes,) rho sigma_tt / (lambda W_t)
    const intp_t[::1] steps,       # IN (n_nodes,) coordinate steps of this round
    double theta,                  # IN
    MultiTaskLoss loss,            # IN
    uint32_t[::1] states,          # IN/OUT (n_nodes,) the nodes' xorshift states
):
    """One round of :func:`local_solve_linear` on every active node, in one call.

    Node ``active[a]`` runs its binary problems one after the other on its
    rows ``offsets[t]:offsets[t + 1]``, each from its model ``W[k, t]``,
    drawing from its own state, exactly as one :func:`local_solve_linear`
    call per node and problem would (bit-identical results); its change of
    ``v`` goes to ``dV[k, a]``.  Costs ``O(steps_t d)`` per node and
    problem (nothing for a node with no steps, e.g. one the exact solver
    handles), and no Python work per node.  Under the :class:`Multinomial`
    loss a node's problems are solved together instead
    (:func:`_joint_linear_round`: one step moves a sample's dual variables
    of every class; ``steps`` counts samples visited).
    """
    cdef intp_t n = X.shape[0], d = X.shape[1], P = Y.shape[0], m = offsets.shape[0] - 1
    cdef intp_t n_active = active.shape[0], a, t, k, lo, n_t, widest = 0
    cdef double[3] result
    if sq_norms.shape[0] != n:
        raise ValueError("the per-sample arrays must all have n_samples entries per problem.")
    _check_node_batch(n, d, P, m, Y, sw, G, W, dV, delta, active, offsets)
    if c.shape[0] != m or steps.shape[0] != m or states.shape[0] != m:
        raise ValueError("c, steps and states must have one entry per node.")
    for a in range(n_active):
        t = active[a]
        widest = max(widest, offsets[t + 1] - offsets[t])
    cdef bint joint = isinstance(loss, Multinomial)
    cdef intp_t[::1] label
    cdef double[::1] work = np.empty(max(d * (P if joint else 1), 1))
    cdef double[::1] p = np.empty(max(widest * (P if joint else 1), 1))
    cdef double[::1] pk = np.empty(max(P, 1))
    cdef double[::1] pi = np.empty(max(P, 1))
    cdef intp_t[::1] perm = np.empty(max(widest, 1), dtype=np.intp)
    if joint:
        label = _class_labels(Y)
    if n_active == 0 or d == 0:
        return
    if joint:
        with nogil:
            for a in range(n_active):
                t = active[a]
                lo = offsets[t]
                n_t = offsets[t + 1] - lo
                if n_t == 0 or steps[t] <= 0:
                    continue
                _joint_linear_round(
                    &X[lo, 0], &sq_norms[lo], &Y[0, lo], n, &sw[lo], &G[0, lo], n,
                    &W[0, t, 0], m * d, &dV[0, a, 0], n_active * d, &delta[0, lo], n,
                    &work[0], &p[0], &pk[0], &pi[0], &label[lo], n_t, d, P, c[t], steps[t],
                    theta, &states[t], &perm[0], result,
                )
        return
    with nogil:
        for a in range(n_active):
            t = active[a]
            lo = offsets[t]
            n_t = offsets[t + 1] - lo
            if n_t == 0 or steps[t] <= 0:
                # No step: the round would only evaluate the node's gap
                # (two passes over its features), which nobody reads here.
                continue
            for k in range(P):
                _linear_round(
                    &X[lo, 0], &sq_norms[lo], &Y[k, lo], &sw[lo], &G[k, lo], &W[k, t, 0],
                    &dV[k, a, 0], &delta[k, lo], &work[0], &p[0], n_t, d, c[t], loss,
                    steps[t], theta, &states[t], &perm[0], result,
                )


def node_margins(
    const floating[:, ::1] X,      # IN (n, d) features, node by node
    const double[:, :, ::1] W,     # IN (n_problems, n_nodes, d)
    const intp_t[::1] offsets,     # IN (n_nodes + 1,)
    double[:, ::1] out,            # OUT (n_problems, n) out[k, i] = W[k, node(i)] . x_i
):
    """Every sample's margin under its own node's model, in one call (O(n d)).

    ``X`` float64 (BLAS ddot per row) or float32 (products exact in double,
    summed in double: the same numbers as on the float64 copy up to the
    order of the sums, at half the memory traffic)."""
    cdef intp_t n = X.shape[0], d = X.shape[1], P = W.shape[0], m = offsets.shape[0] - 1
    cdef intp_t t, i, k
    cdef int dd = <int>d, inc = 1
    if W.shape[1] != m or W.shape[2] != d or out.shape[0] != P or out.shape[1] != n:
        raise ValueError("W must be (n_problems, n_nodes, d) and out (n_problems, n).")
    if m < 0 or offsets[0] != 0 or offsets[m] != n:
        raise ValueError("offsets must run from 0 to n_samples.")
    if d == 0:
        out[:, :] = 0.0
        return
    with nogil:
        for k in range(P):
            for t in range(m):
                for i in range(offsets[t], offsets[t + 1]):
                    if floating is float:
                        out[k, i] = _dot_single(&X[i, 0], &W[k, t, 0], d)
                    else:
                        out[k, i] = ddot(&dd, <double*>&X[i, 0], &inc, <double*>&W[k, t, 0],
                                         &inc)
