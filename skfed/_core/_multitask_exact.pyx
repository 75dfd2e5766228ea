# Exact local subproblems of federated linear multi-task learning
# (kernelized MOCHA in linear mode), for ``_multitask_fast``: the node's
# dual subproblem solved to optimality by projected Newton on its Gram
# matrix, for the losses with a quadratic conjugate.  Split from
# ``_multitask_fast`` (issue 30: no module over 1,000 lines), which
# re-exports ``local_solve_exact_nodes``; the shapes check shared by the
# batched node solvers is here too (``_multitask_fast`` imports it).

from libc.math cimport fabs, INFINITY

import numpy as np

from cython cimport floating
from scipy.linalg.cython_blas cimport dgemv
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs

from ._mixed_dots cimport _axpy_mixed, _dot_mixed, _dot_single
from ._typedefs cimport intp_t


def _check_node_batch(intp_t n, intp_t d, intp_t P, intp_t m, Y, sw, G, W, dV, delta,
                      const intp_t[::1] active, const intp_t[::1] offsets):
    """The shapes shared by the batched node solvers; active increasing."""
    cdef intp_t a, t
    if (Y.shape[1] != n or sw.shape[0] != n or G.shape[0] != P
            or G.shape[1] != n or delta.shape[0] != P or delta.shape[1] != n):
        raise ValueError("the per-sample arrays must all have n_samples entries per problem.")
    if W.shape[0] != P or W.shape[1] != m or W.shape[2] != d:
        raise ValueError("W must be (n_problems, n_nodes, n_features).")
    if dV.shape[0] != P or dV.shape[1] != active.shape[0] or dV.shape[2] != d:
        raise ValueError("dV must be (n_problems, n_active, n_features).")
    if m < 0 or offsets[0] != 0 or offsets[m] != n:
        raise ValueError("offsets must run from 0 to n_samples.")
    for a in range(active.shape[0]):
        t = active[a]
        if not (0 <= t < m) or (a > 0 and t <= active[a - 1]):
            raise ValueError("active must hold increasing node indices.")


# ------------------------------------------------- exact local subproblems
# The node's subproblem in the change of its dual variables ``d = dalpha``
# (rows with positive weight) is, for the losses whose conjugate is
# quadratic (hinge, squared hinge, squared; ``l*(-g) = A g^2 / 2 - y g``),
# the box-constrained quadratic program
#
#   min_d  sum_i s_i l*(-(g_i + d_i / s_i)) + d . f + (c / 2) d^T K_tt d
#
# with ``K_tt = Z_t Z_t^T`` the node's Gram matrix, Hessian
# ``H = c K_tt + diag(A / s_i)`` and bounds ``g + d / s`` in the loss's
# domain (``y g in [0, 1]`` hinge, ``y g >= 0`` squared hinge, none squared).
# It is solved by projected Newton (Bertsekas 1982): the variables at a bound
# whose gradient points out of the box are fixed, a Newton step (Cholesky of
# ``H`` on the free set) is taken on the others, projected onto the box,
# halved until the objective decreases enough; it stops once the projected
# gradient (in margin units) is at most ``tol``.
#
# Projected Newton changes the free set a few variables per iteration (and
# backtracks along the projected arc when a step crosses bounds), which on
# nodes of a few hundred samples took 5-40 iterations per round.  Unless
# dalpha = 0 meets the tolerance already, it starts instead from the point of a few primal-dual active-set iterations
# (Hintermueller, Ito & Kunisch 2002): guess every variable's bound from its
# coordinate-wise Newton step, solve the free variables' Newton system with
# the others on their bounds, repeat until no guess changes (then the point
# satisfies the optimality conditions, up to the rounding of the solve).
# These usually end in 2-4 factorizations; when they do not (they may cycle,
# the factorization may fail), their point clipped into the box is used only
# if it improves on dalpha = 0.  Projected Newton then checks the projected
# gradient and polishes as before, so the tolerance and the guarantees are
# those of projected Newton alone.

cdef double _clip(double x, double lo, double hi) noexcept nogil:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


# Active-set iterations before projected Newton (they rarely need more than 5).
cdef intp_t _ACTIVE_SET_MAX_ITER = 25


cdef void _local_margins(const double* K, const double* f, const double* dd, intp_t n,
                         double c, double* p) noexcept nogil:
    """``p = f + c K dd`` (``K`` symmetric, n x n)."""
    cdef intp_t i
    cdef int nn = <int>n, inc = 1
    cdef double one = 1.0
    cdef char trans = b'N'
    for i in range(n):
        p[i] = f[i]
    dgemv(&trans, &nn, &nn, &c, <double*>K, &nn, <double*>dd, &inc, &one, p, &inc)


cdef void _free_hessian(const double* K, const double* sw, const intp_t* free, intp_t nf,
                        intp_t n, double c, double A, double mu, double* H) noexcept nogil:
    """Upper triangle of the free block's Hessian, ``c K_FF + diag(A / sw_F) + mu I``
    (``nf x nf``, row-major, for LAPACK's ``dpotrf``)."""
    cdef intp_t a, b, i
    for a in range(nf):
        i = free[a]
        for b in range(a, nf):
            H[a * nf + b] = c * K[i * n + free[b]]
        H[a * nf + a] += A / sw[i] + mu


cdef intp_t _active_set_start(
    const double* K, const double* y, const double* sw, const double* g, const double* f,
    intp_t n, double c, double A, const double* lo, const double* hi, intp_t max_iter,
    intp_t rank, double* dd, double* p, double* rhs, double* status, double* H, intp_t* free,
) noexcept nogil:
    """Primal-dual active-set iterations on one node's subproblem, from ``dd
    = 0`` (``p = f`` on entry).  Leaves in ``dd`` (feasible) and ``p = f + c
    K dd`` the point projected Newton starts from: their last point clipped
    into the box when its objective is below that of ``dd = 0``, else 0.
    They stop early (projected Newton takes over) when the free block is
    singular (hinge, ``A = 0``, more free variables than ``rank``, the
    features' dimension) or when the number of changed guesses has not
    fallen for three iterations (the iterations may cycle).  Returns the
    factorizations done."""
    cdef intp_t i, a, b, nf = 0, it, n_changed, last_changed = n + 1, stalled = 0
    cdef double h, x, s, diag_max, mu, value
    cdef int nn, ld, info, one = 1
    cdef char uplo = b'L'
    for i in range(n):
        status[i] = 2.0  # nothing guessed yet
    it = 0
    while True:
        # Guess each variable's bound from its coordinate-wise Newton step.
        n_changed = 0
        nf = 0
        for i in range(n):
            if sw[i] <= 0.0:
                continue
            h = c * K[i * n + i] + A / sw[i]
            x = A * (g[i] + dd[i] / sw[i]) - y[i] + p[i]
            x = dd[i] - x / h if h > 0.0 else dd[i]
            if x <= lo[i]:
                s = -1.0
            elif x >= hi[i]:
                s = 1.0
            else:
                s = 0.0
                free[nf] = i
                nf += 1
            if s != status[i]:
                n_changed += 1
                status[i] = s
        if n_changed == 0 or it >= max_iter or (A == 0.0 and nf > rank):
            break
        if n_changed >= last_changed:
            stalled += 1
            if stalled >= 3:
                break
        else:
            stalled = 0
        last_changed = n_changed
        # The guessed-active variables on their bounds, then one Newton step
        # (exact: the objective is quadratic) on the free ones.
        for i in range(n):
            if status[i] < 0.0:
                dd[i] = lo[i]
            elif status[i] > 0.0 and status[i] < 2.0:
                dd[i] = hi[i]
        it += 1
        _local_margins(K, f, dd, n, c, p)
        if nf == 0:
            continue
        diag_max = 0.0
        for a in range(nf):
            i = free[a]
            rhs[a] = -(A * (g[i] + dd[i] / sw[i]) - y[i] + p[i])
            x = c * K[i * n + i] + A / sw[i]
            if x > diag_max:
                diag_max = x
        if not diag_max > 0.0:
            break
        mu = 1e-12 * diag_max
        _free_hessian(K, sw, free, nf, n, c, A, mu, H)
        nn = <int>nf
        ld = <int>nf
        dpotrf(&uplo, &nn, H, &ld, &info)
        if info != 0:
            break
        dpotrs(&uplo, &nn, &one, H, &ld, rhs, &ld, &info)
        if info != 0:
            break
        for a in range(nf):
            dd[free[a]] += rhs[a]
        _local_margins(K, f, dd, n, c, p)
    # Into the box; kept only if it beats dd = 0 (objective 0 there).
    for i in range(n):
        dd[i] = _clip(dd[i], lo[i], hi[i]) if sw[i] > 0.0 else 0.0
    _local_margins(K, f, dd, n, c, p)
    value = 0.0
    for i in range(n):
        if sw[i] > 0.0:
            value += dd[i] * (A * g[i] - y[i] + f[i] + 0.5 * A * dd[i] / sw[i]
                              + 0.5 * (p[i] - f[i]))
    if not value <= 0.0:
        for i in range(n):
            dd[i] = 0.0
            p[i] = f[i]
    return it


cdef intp_t _exact_qp(
    const double* K, const double* y, const double* sw, const double* g, const double* f,
    intp_t n, double c, int kind, double tol, intp_t max_iter, intp_t rank,
    double* dd, double* p, double* grad, double* step, double* lo, double* hi,
    double* change, double* Hchange, double* H, intp_t* free, double* result,
) noexcept nogil:
    """Projected Newton on one node's quadratic subproblem, from the point of
    :func:`_active_set_start`; ``dd`` (n,) the optimal change of alpha, ``p``
    the margins ``f + c K dd`` of the local view; ``result``: the final
    projected-gradient norm.  Returns the factorizations done (active-set
    iterations, at most ``_ACTIVE_SET_MAX_ITER``, plus Newton iterations, at
    most ``max_iter``)."""
    cdef double A = 0.0 if kind == 0 else (0.5 if kind == 1 else 1.0)
    cdef double viol, mu = 0.0, diag_max, t, slope, curv, value, gi, x
    cdef intp_t i, j, a, b, nf, it, half, start
    cdef bint accepted
    cdef int nn, ld, info, one = 1
    cdef char uplo = b'L'
    for i in range(n):
        dd[i] = 0.0
        p[i] = f[i]
        lo[i] = 0.0
        hi[i] = 0.0
        if sw[i] > 0.0:
            if kind == 0:
                lo[i] = sw[i] * ((y[i] if y[i] < 0.0 else 0.0) - g[i])
                hi[i] = sw[i] * ((y[i] if y[i] > 0.0 else 0.0) - g[i])
            elif kind == 1:
                lo[i] = -sw[i] * g[i] if y[i] > 0.0 else -INFINITY
                hi[i] = -sw[i] * g[i] if y[i] < 0.0 else INFINITY
            else:
                lo[i] = -INFINITY
                hi[i] = INFINITY
            # rounding may leave g a hair outside its domain
            if lo[i] > 0.0:
                lo[i] = 0.0
            if hi[i] < 0.0:
                hi[i] = 0.0
    it = 0
    start = -1  # the active-set start runs once, unless dd = 0 is optimal already
    viol = INFINITY
    while True:
        nf = 0
        viol = 0.0
        for i in range(n):
            if sw[i] <= 0.0:
                continue
            gi = A * (g[i] + dd[i] / sw[i]) - y[i] + p[i]
            grad[i] = gi
            if (dd[i] <= lo[i] and gi > 0.0) or (dd[i] >= hi[i] and gi < 0.0):
                continue
            free[nf] = i
            nf += 1
            if fabs(gi) > viol:
                viol = fabs(gi)
        if viol <= tol or it >= max_iter or nf == 0:
            break
        if start < 0:
            start = _active_set_start(K, y, sw, g, f, n, c, A, lo, hi,
                                      min(max_iter, _ACTIVE_SET_MAX_ITER), rank, dd, p,
                                      step, change, H, free)
            continue
        it += 1
        # Newton step on the free variables, damped: (H_FF + mu I) step =
        # -grad_F (Levenberg-Marquardt; mu grows while the projected step
        # fails to decrease the objective, which a singular H_FF, n_t > d',
        # can cause, and shrinks again after full steps).
        diag_max = 0.0
        for a in range(nf):
            i = free[a]
            x = c * K[i * n + i] + A / sw[i]
            if x > diag_max:
                diag_max = x
        if diag_max <= 0.0:
            break
        if mu < 1e-12 * diag_max:
            mu = 1e-12 * diag_max
        info = 1
        while info != 0 and mu <= 1e12 * diag_max:
            _free_hessian(K, sw, free, nf, n, c, A, mu, H)
            nn = <int>nf
            ld = <int>nf
            dpotrf(&uplo, &nn, H, &ld, &info)
            if info != 0:
                mu *= 100.0
        if info != 0:
            break
        for a in range(nf):
            step[a] = -grad[free[a]]
        dpotrs(&uplo, &nn, &one, H, &ld, step, &ld, &info)
        # Projected backtracking on the (exact) quadratic decrease.
        t = 1.0
        accepted = False
        for half in range(12):
            slope = 0.0
            for i in range(n):
                change[i] = 0.0
            for a in range(nf):
                i = free[a]
                change[i] = _clip(dd[i] + t * step[a], lo[i], hi[i]) - dd[i]
                slope += grad[i] * change[i]
            curv = 0.0
            for i in range(n):
                x = 0.0
                if sw[i] > 0.0:
                    for a in range(nf):
                        j = free[a]
                        x += K[i * n + j] * change[j]
                Hchange[i] = c * x
                if sw[i] > 0.0:
                    curv += change[i] * (Hchange[i] + A / sw[i] * change[i])
            value = slope + 0.5 * curv
            if slope < 0.0 and value <= 1e-4 * slope:
                accepted = True
                break
            t *= 0.5
        if not accepted:
            mu *= 100.0
            if mu > 1e12 * diag_max:
                break
            continue
        if half == 0:
            mu *= 0.1
        for i in range(n):
            dd[i] += change[i]
            p[i] += Hchange[i]
    result[0] = viol
    return max(start, 0) + it


def local_solve_exact_nodes(
    const floating[:, ::1] X,      # IN (n, d) every node's features, node by node (float32: exact copy)
    const double[::1] gram,        # IN the exact nodes' Gram matrices Z_t Z_t^T, row-major
    const intp_t[::1] gram_offsets,  # IN (n_nodes + 1,) node t's block starts there
    const double[:, ::1] Y,        # IN (n_problems, n)
    const double[::1] sw,          # IN (n,)
    double[:, ::1] G,              # IN/OUT (n_problems, n)
    const double[:, :, ::1] W,     # IN (n_problems, n_nodes, d)
    double[:, :, ::1] dV,          # OUT (n_problems, n_active, d) (written for exact nodes)
    double[:, ::1] delta,          # OUT (n_problems, n) (written for exact nodes)
    const intp_t[::1] active,      # IN (n_active,) increasing node indices
    const intp_t[::1] offsets,     # IN (n_nodes + 1,)
    const double[::1] c,           # IN (n_nodes,)
    const unsigned char[::1] exact,  # IN (n_nodes,) nodes solved here (others skipped)
    int kind,                      # IN 0 hinge, 1 squared hinge, 2 squared
    double tol,                    # IN projected-gradient tolerance (margin units)
    intp_t max_iter,               # IN Newton iterations per node and problem
):
    """Solve the subproblems of the active ``exact`` nodes to optimality.

    The same subproblem as :func:`local_solve_linear_nodes` (for the
    losses with a quadratic conjugate), solved by projected Newton on the
    node's ``n_t x n_t`` Gram matrix instead of coordinate ascent, started
    from a few primal-dual active-set iterations: each iteration costs a
    Cholesky factorization of the free variables' block, ``O(n_free^3)``; the memory is ``n_t^2`` floats for the Gram
    matrix and as many for the factor.  Writes ``G``, ``delta`` and
    ``dV[k, a]`` for every exact active node ``active[a]``.  ``X`` may be
    float32 when the features are float32 values (the margins and ``dV``
    are then computed in double from the exact products, at half the
    memory traffic; ``gram`` stays float64).

    Returns
    -------
    n_iter : int
        Largest number of factorizations of a node and problem (active-set
        iterations, at most 25, plus projected Newton iterations, at most
        ``max_iter``).
    violation : float
        Largest final projected gradient (at most ``tol`` unless a node
        hit ``max_iter``).
    """
    cdef intp_t n = X.shape[0], d = X.shape[1], P = Y.shape[0], m = offsets.shape[0] - 1
    cdef intp_t n_active = active.shape[0], a, t, k, lo, n_t, i, widest = 0, it, worst = 0
    cdef double[1] result
    cdef double violation = 0.0, s
    if kind < 0 or kind > 2:
        raise ValueError("kind must be 0 (hinge), 1 (squared hinge) or 2 (squared).")
    _check_node_batch(n, d, P, m, Y, sw, G, W, dV, delta, active, offsets)
    if c.shape[0] != m or exact.shape[0] != m or gram_offsets.shape[0] != m + 1:
        raise ValueError("c, exact and gram_offsets must have one entry per node (+1).")
    for a in range(n_active):
        t = active[a]
        if exact[t]:
            n_t = offsets[t + 1] - offsets[t]
            if (gram_offsets[t + 1] - gram_offsets[t] != n_t * n_t
                    or gram_offsets[t] < 0 or gram_offsets[t + 1] > gram.shape[0]):
                raise ValueError("gram must hold an n_t x n_t block per exact node.")
            widest = max(widest, n_t)
    if widest == 0:
        return 0, 0.0
    cdef double[:, ::1] vec = np.empty((9, widest))
    cdef double[::1] H = np.empty(widest * widest)
    cdef intp_t[::1] free = np.empty(widest, dtype=np.intp)
    with nogil:
        for a in range(n_active):
            t = active[a]
            lo = offsets[t]
            n_t = offsets[t + 1] - lo
            if not exact[t] or n_t == 0:
                continue
            for k in range(P):
                # margins f = Z_t w_t (vec[0])
                for i in range(n_t):
                    if floating is float:
                        vec[0, i] = _dot_single(&X[lo + i, 0], &W[k, t, 0], d)
                    else:
                        vec[0, i] = _dot_mixed(&X[lo + i, 0], &W[k, t, 0], d)
                it = _exact_qp(
                    &gram[gram_offsets[t]], &Y[k, lo], &sw[lo], &G[k, lo], &vec[0, 0], n_t,
                    c[t], kind, tol, max_iter, d, &vec[1, 0], &vec[2, 0], &vec[3, 0],
                    &vec[4, 0], &vec[5, 0], &vec[6, 0], &vec[7, 0], &vec[8, 0], &H[0],
                    &free[0], result,
                )
                worst = max(worst, it)
                violation = max(violation, result[0])
                for i in range(n_t):
                    s = vec[1, i]
                    if sw[lo + i] > 0.0 and s != 0.0:
                        G[k, lo + i] += s / sw[lo + i]
                        if kind < 2:
                            # a = y g on its bound exactly, not a rounding off it
                            s = Y[k, lo + i] * G[k, lo + i]
                            if s < 0.0 or (kind == 0 and s > 1.0):
                                G[k, lo + i] = Y[k, lo + i] * (0.0 if s < 0.0 else 1.0)
                            s = vec[1, i]
                        delta[k, lo + i] += s
                        _axpy_mixed(s, &X[lo + i, 0], &dV[k, a, 0], d)
    return worst, violation
