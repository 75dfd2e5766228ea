"""Decentralized online kernel learning: functional SGD with a consensus
penalty and destructive kernel orthogonal matching pursuit (KOMP).

Koppel, Paternain, Richard & Ribeiro, "Decentralized Online Learning with
Kernels" (Asilomar 2018 / IEEE TSP).  :mod:`skfed.online` validates,
allocates and lays the data out; :func:`run_rounds` only computes.

One synchronous round
---------------------
Every available node ``i`` that still has a sample ``(x, y)`` in its queue

1. evaluates ``f_i(x)`` (one kernel row against its own dictionary, kept
   for step 3) and obtains ``f_j(x)`` from each available neighbour ``j``
   (a neighbour that is dropped this round does not answer and is left out
   of the sum; a rogue neighbour answers ``-f_j(x)`` or noise).  With
   ``exchange_every = 0`` each value is a query (``x`` out, ``f_j(x)``
   back) or ``j``'s whole dictionary, whichever costs fewer bytes, and ``i``
   uses what it receives (with 4-byte values, the answer or the
   dictionary's weights rounded to float32); with
   ``exchange_every = T`` node ``i`` evaluates its copy of ``f_j``, which
   ``j`` brings up to date after every ``T``-th of its steps by a delta
   (changed slots, all weights; see ``_publish``), so with ``T = 1`` the
   values are exactly those of the query exchange;
2. forms ``omega = s loss'(f_i(x), y) + c sum_j (f_i(x) - f_j(x))``
   (``s`` the sample weight);
3. once every node has finished 1-2 (so all reads see the iterates of the
   previous round), steps ``f_i <- (1 - eta lambda) f_i - eta omega k_i(x, .)``
   (scale the weights, append ``x`` with weight ``-eta omega``) and
   compresses the result by KOMP.

KOMP with budget ``epsilon``
----------------------------
``Q`` is the inverse Gram matrix of the dictionary ``D'`` and ``beta`` the
weights of the projection ``g`` of the uncompressed function ``f~`` onto
``span(D')``.  Removing element ``j`` costs (Pythagoras, since
``D' \\ j`` is a subset of ``D'``)::

    ||f~ - P_{D' \\ j} f~||^2 = ||f~ - g||^2 + ||beta_j||^2 / Q_jj

so every candidate is priced in O(1); the cheapest is removed while the
total stays within ``epsilon^2`` (or while the dictionary is larger than
``max_size``), ``beta <- beta - Q[:, j] beta_j / Q_jj`` re-projects the
weights and ``Q <- Q - Q[:, j] Q[j, :] / Q_jj`` downdates the inverse
(rank one); the last element then moves into slot j (so dictionaries are
not kept in arrival order).  A new point is added by the bordered-inverse rank-one update
with Schur complement ``s = k(x, x) - k^T Q k``; the pricing of the bordered
dictionary is computed before the border is formed, and when the new point
itself is the cheapest removal it is folded into the old dictionary
(``beta += Q k a^T``, cost ``s ||a||^2``) without ever forming the border;
when it is an old element ``j`` (the steady state of a bounded dictionary:
one point in, one out), border and removal are fused into one rank-2 pass
over ``Q`` and the new point takes slot ``j``.
A point with ``s <= 1e-12 k(x, x)`` lies numerically in the span of the
dictionary and is always folded.  ``Q`` is symmetric and only its upper
triangle (row-major, ``Q[a, b]`` with ``a <= b``; BLAS's column-major lower
triangle) is stored and updated, which halves the memory traffic of the
O(M^2) updates (``dsymv``, ``dsyr``, a one-triangle rank-2 pass); column
``j`` is gathered as ``Q[a, j]`` for ``a < j`` and ``Q[j, a]`` after.  There is no refactorization per step;
``refactor_every`` (0 = never) recomputes ``Q`` from the kernel matrix by
Cholesky as a guard against drift, and so does a non-positive pivot.
"""

from libc.math cimport NAN, cos, exp, fabs, log, pow, sqrt
from libc.string cimport memcmp, memcpy, memmove
from scipy.linalg.cython_blas cimport ddot, dgemv, dger, dscal, dsymv, dsyr
from scipy.linalg.cython_lapack cimport dpotrf, dpotri

from cython cimport floating

from ._comm cimport CommCounter
from ._kernels cimport KernelParams, kernel_block, kernel_pair_double, make_kernel_params
from ._online_losses cimport OnlineLoss
from ._random cimport rand_uniform
from ._typedefs cimport int64_t, intp_t, uint8_t, uint32_t

import numpy as np

from ._online_losses import (  # re-exported: skfed.online picks its losses here
    SquaredLoss, HuberLoss, EpsilonInsensitiveLoss, HingeLoss,
    LogisticLoss, MulticlassHingeLoss, MultinomialLogLoss,
)

cdef enum:
    # Step-size schedules.
    C_SCHEDULE_CONSTANT = 0
    C_SCHEDULE_DIMINISHING = 1
    # What a rogue node answers.
    C_ROGUE_COMPLEMENT = 0
    C_ROGUE_RANDOM = 1
    # Return status of run_rounds.
    C_STATUS_CHUNK_DONE = 0
    C_STATUS_ALL_DONE = 1
    C_STATUS_NEED_CAPACITY = 2
    C_STATUS_DIVERGED = 3

SCHEDULE_CONSTANT = C_SCHEDULE_CONSTANT
SCHEDULE_DIMINISHING = C_SCHEDULE_DIMINISHING
ROGUE_COMPLEMENT = C_ROGUE_COMPLEMENT
ROGUE_RANDOM = C_ROGUE_RANDOM
STATUS_CHUNK_DONE = C_STATUS_CHUNK_DONE
STATUS_ALL_DONE = C_STATUS_ALL_DONE
STATUS_NEED_CAPACITY = C_STATUS_NEED_CAPACITY
STATUS_DIVERGED = C_STATUS_DIVERGED

# A new point whose Schur complement is below this fraction of k(x, x) is in
# the span of the dictionary up to rounding: it is always folded.
cdef double SPAN_TOL = 1e-12
# ... or below this fraction of sum_j |k(x, d_j) u_j|, the size of the terms
# whose difference it is (u = Q k): when Q is ill-conditioned (near-dependent
# points kept at epsilon = 0) these dwarf k(x, x), and the subtraction's
# rounding error, up to about n eps of them for n terms, could make a
# dependent point look new and blow up the border 1 / s.  1e-13 is about 450
# eps; it folds nothing at the defaults on the fits tested (bit-identical).
cdef double SPAN_CANCELLATION = 1e-13
# A point the budget would keep (epsilon 0 or tiny) but whose complement is
# below 1e-6 of k(x, x) is folded too (the usual numerical-rank cut-off of
# kernel dictionaries): its border 1 / s would exceed 1e6 / k(x, x), and the
# drift of the rank-one-updated Q (about eps cond(K) per update) then blows
# the bordered Q, and the weights projected with it, up.  Measured on moons
# at epsilon 0: a cut at 1e-8 or 1e-7 still diverged in 13 and 3 of 60 fits,
# 1e-6 in none of those nor of 24 fits with 300 samples a node (no cut: 4 of
# 10 and 11 of 24).  Any budget that prices such a point folds it first
# (cost_new <= eps2), so those fits are unchanged.
cdef double SPAN_RANK = 1e-6


# ============================================================ node functions
cdef void _eval_function(const KernelParams* kp, const floating* x,
                         const floating* D, intp_t M, intp_t n_features,
                         const double* W, intp_t n_outputs, double* krow,
                         double* out) noexcept nogil:
    """krow[m] = k(x, D[m]) and out = W^T krow (W is M x n_outputs, row-major)."""
    cdef intp_t m, r
    cdef int n = <int>M, inc = 1, n_out = <int>n_outputs
    cdef double one = 1.0, zero = 0.0
    cdef char trans = b'N'
    for m in range(M):
        krow[m] = kernel_pair_double(kp, x, D + m * n_features, n_features)
    if M == 0:
        for r in range(n_outputs):
            out[r] = 0.0
    elif n_outputs == 1:
        out[0] = ddot(&n, krow, &inc, <double*>W, &inc)
    else:
        # Row-major W (M, n_out) is the column-major (n_out, M) matrix W^T.
        dgemv(&trans, &n_out, &n, &one, <double*>W, &n_out, krow, &inc,
              &zero, out, &inc)


cdef inline void _get_column(const double* Q, intp_t ld_q, intp_t j, intp_t m,
                             double* out) noexcept nogil:
    """out[a] = Q[a, j] for a < m, read from the stored upper triangle."""
    cdef intp_t a
    for a in range(j):
        out[a] = Q[a * ld_q + j]
    memcpy(out + j, Q + j * ld_q + j, (m - j) * sizeof(double))


cdef void _remove_element(intp_t j, intp_t m, floating* D, intp_t n_features,
                          double* W, intp_t n_outputs, double* Q, intp_t ld_q,
                          double* q, double* bj, double* A, intp_t* ids) noexcept nogil:
    """Remove element j of an m-element dictionary; re-project W, downdate Q.

    ``W`` holds the projection weights ``beta`` on entry.  The last element
    moves into slot j (O(M) moves instead of shifting the matrix).  ``A``
    (the averaged weights on the same dictionary, or NULL) is projected the
    same way; ``ids`` (or NULL), the sample row of every slot, moves with
    the points.
    """
    cdef int mi = <int>m, n_out = <int>n_outputs, inc = 1, ld = <int>ld_q
    cdef double qjj = Q[j * ld_q + j]
    cdef double neg_inv = -1.0 / qjj
    cdef char uplo = b'L'
    _get_column(Q, ld_q, j, m, q)
    memcpy(bj, W + j * n_outputs, n_outputs * sizeof(double))
    # beta <- beta - Q[:, j] beta_j^T / Q_jj
    dger(&n_out, &mi, &neg_inv, bj, &inc, q, &inc, W, &n_out)
    if A != NULL:
        memcpy(bj, A + j * n_outputs, n_outputs * sizeof(double))
        dger(&n_out, &mi, &neg_inv, bj, &inc, q, &inc, A, &n_out)
    # Q <- Q - Q[:, j] Q[j, :] / Q_jj (upper triangle only)
    dsyr(&uplo, &mi, &neg_inv, q, &inc, Q, &ld)
    _move_last_into(j, m, D, n_features, W, n_outputs, Q, ld_q, A, ids)


cdef inline void _add_linear(const floating* x, const double* L, intp_t n_features,
                             intp_t n_outputs, double* out) noexcept nogil:
    """out[r] += sum_f x[f] L[f, r]: a node's linear term ``w' x`` (L is
    n_features x n_outputs, row-major), beside its kernel expansion."""
    cdef intp_t f, r
    cdef double xf
    for f in range(n_features):
        xf = <double>x[f]
        for r in range(n_outputs):
            out[r] += xf * L[f * n_outputs + r]


cdef void _move_last_into(intp_t j, intp_t m, floating* D, intp_t n_features,
                          double* W, intp_t n_outputs, double* Q,
                          intp_t ld_q, double* A, intp_t* ids) noexcept nogil:
    """Drop element j of m by moving element m - 1 into its slot.

    Upper triangle: the new ``Q[a, j]`` (``a < j``) and ``Q[j, a]``
    (``j < a < m - 1``) are the old ``Q[a, m - 1]``.
    """
    cdef intp_t a, last = m - 1
    if j == last:
        return
    for a in range(j):
        Q[a * ld_q + j] = Q[a * ld_q + last]
    for a in range(j + 1, last):
        Q[j * ld_q + a] = Q[a * ld_q + last]
    Q[j * ld_q + j] = Q[last * ld_q + last]
    memcpy(D + j * n_features, D + last * n_features, n_features * sizeof(floating))
    memcpy(W + j * n_outputs, W + last * n_outputs, n_outputs * sizeof(double))
    if A != NULL:
        memcpy(A + j * n_outputs, A + last * n_outputs, n_outputs * sizeof(double))
    if ids != NULL:
        ids[j] = ids[last]


cdef inline void _project_replaced(intp_t j, intp_t M, double* V, intp_t n_outputs,
                                   const double* q, double qjj, double qM,
                                   const double* entering, double* vj) noexcept nogil:
    """Weights ``V`` after x (weight ``entering``, NULL for 0) replaces element j:
    ``V - qf V_j / qf_j`` with ``qf = (q, qM)``, x's row written into slot j."""
    cdef intp_t a_, r
    cdef double coef_q
    for r in range(n_outputs):
        vj[r] = V[j * n_outputs + r]
    for a_ in range(M):
        coef_q = q[a_] / qjj
        for r in range(n_outputs):
            V[a_ * n_outputs + r] -= coef_q * vj[r]
    for r in range(n_outputs):
        V[j * n_outputs + r] = (entering[r] if entering != NULL else 0.0) - qM / qjj * vj[r]


cdef void _add_and_remove(intp_t j, intp_t M, const floating* x, floating* D,
                          intp_t n_features, double* W, intp_t n_outputs,
                          const double* a, double* Q, intp_t ld_q,
                          const double* u, double s, double* q,
                          double* bj, double* A, double* bjA) noexcept nogil:
    """Add x (weight a) and remove old element j in one pass over Q.

    With the bordered inverse ``Qf = [[Q + u u^T / s, -u / s], [-u^T / s,
    1 / s]]`` and ``qf = Qf[:, j]``, the result is ``Qf - qf qf^T / qf_j``
    without row and column j: a rank-2 update of the old block, and x takes
    slot j.  Weights: ``beta = w - qf w_j / qf_j``.
    """
    cdef intp_t a_, b, r
    cdef double inv_s = 1.0 / s, uj = u[j], qjj, qM, coef_u, coef_q
    cdef double* row
    # q = Qf[:M, j], qM = Qf[M, j]
    _get_column(Q, ld_q, j, M, q)
    for a_ in range(M):
        q[a_] += u[a_] * uj * inv_s
    qM = -uj * inv_s
    qjj = q[j]
    # Weights of the old elements, then of x (into slot j); the averaged
    # weights the same way, x entering them with weight 0.
    _project_replaced(j, M, W, n_outputs, q, qjj, qM, a, bj)
    if A != NULL:
        _project_replaced(j, M, A, n_outputs, q, qjj, qM, NULL, bjA)
    # Rank-2 update of the old block's upper triangle, one pass.
    for a_ in range(M):
        row = Q + a_ * ld_q
        coef_u = u[a_] * inv_s
        coef_q = q[a_] / qjj
        for b in range(a_, M):
            row[b] += coef_u * u[b] - coef_q * q[b]
    # Row and column j now belong to x.
    for a_ in range(j):
        Q[a_ * ld_q + j] = -u[a_] * inv_s - q[a_] * qM / qjj
    for b in range(j + 1, M):
        Q[j * ld_q + b] = -u[b] * inv_s - q[b] * qM / qjj
    Q[j * ld_q + j] = inv_s - qM * qM / qjj
    memcpy(D + j * n_features, x, n_features * sizeof(floating))


cdef int _refactor(const KernelParams* kp, const floating* D, intp_t m,
                   intp_t n_features, double* Q, intp_t ld_q) noexcept nogil:
    """Q <- K_DD^{-1} from scratch (Cholesky); returns the LAPACK info."""
    cdef intp_t a, b
    cdef int n = <int>m, ld = <int>ld_q, info = 0
    cdef char uplo = b'L'
    if m == 0:
        return 0
    for a in range(m):
        for b in range(a, m):
            Q[a * ld_q + b] = kernel_pair_double(kp, D + a * n_features,
                                          D + b * n_features, n_features)
    # The row-major upper triangle filled above is LAPACK's (column-major)
    # lower triangle; dpotri leaves the inverse there, then it is mirrored.
    dpotrf(&uplo, &n, Q, &ld, &info)
    if info != 0:
        return info
    dpotri(&uplo, &n, Q, &ld, &info)
    for a in range(m):
        for b in range(a + 1, m):
            Q[b * ld_q + a] = Q[a * ld_q + b]
    return info


cdef intp_t _step_node(
    const KernelParams* kp, const floating* x, intp_t n_features,
    floating* D, double* W, double* Q, intp_t ld_q, intp_t M,
    const double* krow, const double* a, intp_t n_outputs, double scale,
    bint compress, double eps2, intp_t max_size,
    double* u, double* q, double* bj, double* err2_out,
    double* A, double* bjA, intp_t* ids, intp_t new_id) noexcept nogil:
    """One functional SGD step of one node, then KOMP; returns the new size.

    ``krow`` = k(D[m], x) for the M current elements, ``a`` the weight of
    the new element (``-eta omega``), ``scale = 1 - eta lambda``.  ``A``
    (or NULL) holds averaged weights on the same dictionary: KOMP projects
    them with the same formulas (a new point enters them with weight 0);
    the caller then moves them toward ``W``.  ``ids`` (or NULL) holds the
    sample row of every slot; ``x`` enters with ``new_id``.
    """
    cdef intp_t m, r, j, best
    cdef int n = <int>M, n_out = <int>n_outputs, inc = 1, ld = <int>ld_q
    cdef int total = <int>(M * n_outputs)
    cdef double one = 1.0, zero = 0.0, kxx, s, qjj, cost, best_cost
    cdef double a_sq = 0.0, cost_new, err2 = 0.0, w_sq, inv_s, terms = 0.0
    cdef char uplo = b'L'
    cdef bint forced, fold = False, fused = False

    if scale != 1.0 and total > 0:
        dscal(&total, &scale, W, &inc)
    err2_out[0] = 0.0
    if not compress:
        memcpy(D + M * n_features, x, n_features * sizeof(floating))
        for r in range(n_outputs):
            W[M * n_outputs + r] = a[r]
            if A != NULL:
                A[M * n_outputs + r] = 0.0
        if ids != NULL:
            ids[M] = new_id
        return M + 1

    for r in range(n_outputs):
        a_sq += a[r] * a[r]
    kxx = kernel_pair_double(kp, x, x, n_features)
    s = kxx
    if M > 0:
        dsymv(&uplo, &n, &one, Q, &ld, <double*>krow, &inc, &zero, u, &inc)
        s = kxx - ddot(&n, <double*>krow, &inc, u, &inc)
        for m in range(M):
            terms += fabs(krow[m] * u[m])
    cost_new = a_sq * s
    if (s <= SPAN_TOL * fabs(kxx) or s <= SPAN_CANCELLATION * terms
            or (s <= SPAN_RANK * fabs(kxx) and cost_new > eps2)):
        fold = True
        if cost_new < 0.0:
            cost_new = 0.0
    else:
        # Pricing of the bordered dictionary, before the border is formed:
        # (Q_full)_jj = Q_jj + u_j^2 / s; the new element is the cheapest
        # removal when its cost beats every old one (ties go to old ones).
        best_cost = -1.0
        best = -1
        for j in range(M):
            qjj = Q[j * ld_q + j] + u[j] * u[j] / s
            w_sq = 0.0
            for r in range(n_outputs):
                w_sq = w_sq + W[j * n_outputs + r] * W[j * n_outputs + r]
            cost = w_sq / qjj
            if best_cost < 0.0 or cost < best_cost:
                best_cost = cost
                best = j
        forced = max_size > 0 and M + 1 > max_size
        if (best_cost < 0.0 or cost_new < best_cost) and (forced or cost_new <= eps2):
            fold = True
        elif best >= 0 and (forced or best_cost <= eps2):
            # The cheapest removal is an old element: add x and remove it in
            # one pass over Q (x takes its slot).
            _add_and_remove(best, M, x, D, n_features, W, n_outputs, a, Q, ld_q,
                            u, s, q, bj, A, bjA)
            if ids != NULL:
                ids[best] = new_id
            err2 = best_cost
            fused = True

    if fused:
        m = M
    elif fold:
        # Remove the new element at once: beta_old += (Q k) a^T.
        if M > 0:
            dger(&n_out, &n, &one, <double*>a, &inc, u, &inc, W, &n_out)
        err2 = cost_new
        m = M
    else:
        # Bordered inverse: [[Q + u u^T / s, -u / s], [-u^T / s, 1 / s]].
        inv_s = 1.0 / s
        if M > 0:
            dsyr(&uplo, &n, &inv_s, u, &inc, Q, &ld)
        for j in range(M):
            Q[j * ld_q + M] = -u[j] * inv_s
        Q[M * ld_q + M] = inv_s
        memcpy(D + M * n_features, x, n_features * sizeof(floating))
        for r in range(n_outputs):
            W[M * n_outputs + r] = a[r]
            if A != NULL:
                A[M * n_outputs + r] = 0.0
        if ids != NULL:
            ids[M] = new_id
        m = M + 1

    # Destructive KOMP on the remaining dictionary.
    while m > 0:
        best = -1
        best_cost = 0.0
        for j in range(m):
            qjj = Q[j * ld_q + j]
            w_sq = 0.0
            for r in range(n_outputs):
                w_sq = w_sq + W[j * n_outputs + r] * W[j * n_outputs + r]
            if qjj > 0.0:
                cost = w_sq / qjj
            else:
                cost = 0.0  # numerically redundant element
            if best < 0 or cost < best_cost:
                best = j
                best_cost = cost
        forced = max_size > 0 and m > max_size
        if not forced and err2 + best_cost > eps2:
            break
        if Q[best * ld_q + best] <= 0.0:
            # Lost positive definiteness: rebuild Q, then price again.
            if _refactor(kp, D, m, n_features, Q, ld_q) != 0:
                break
            continue
        _remove_element(best, m, D, n_features, W, n_outputs, Q, ld_q, q, bj, A, ids)
        err2 = err2 + best_cost
        m -= 1
    err2_out[0] = err2
    return m


cdef void _publish(intp_t i, const floating* D, const double* W, intp_t M,
                   floating* pub_D, double* pub_W, intp_t* pub_M,
                   intp_t n_features, intp_t n_outputs, int64_t value_bytes,
                   const intp_t* neighbours, intp_t n_neighbours,
                   CommCounter counter, const intp_t* ids, uint8_t* sent) noexcept nogil:
    """Bring the neighbours' copy of node i's function up to date.

    The message is a delta: every slot whose point changed since the last
    publication (an int32 slot index and the point, or, when ``sent`` is
    given and the neighbours already received that sample row, an int32
    slot index and an int32 reference to it), all ``M`` weights (rounded to
    float32 when a value costs 4 bytes, as the neighbours receive them),
    and the new size (an int32); one message to each neighbour.
    """
    cdef intp_t a, changed = 0, referenced = 0
    cdef size_t row = n_features * sizeof(floating)
    for a in range(M):
        if a >= pub_M[0] or memcmp(D + a * n_features, pub_D + a * n_features, row) != 0:
            memcpy(pub_D + a * n_features, D + a * n_features, row)
            if sent != NULL and ids[a] >= 0 and sent[ids[a]]:
                referenced += 1
            else:
                changed += 1
                if sent != NULL and ids[a] >= 0:
                    sent[ids[a]] = 1
    if value_bytes == 4:
        for a in range(M * n_outputs):
            pub_W[a] = <double>(<float>W[a])
    else:
        memcpy(pub_W, W, M * n_outputs * sizeof(double))
    pub_M[0] = M
    if n_neighbours > 0:
        counter.multicast(
            i, neighbours, n_neighbours,
            changed * (n_features * value_bytes + 4) + referenced * 8
            + M * n_outputs * value_bytes + 4)


cdef inline double _normal(uint32_t* state) noexcept nogil:
    """Standard normal draw (Box-Muller) from the xorshift state."""
    cdef double u1 = rand_uniform(0.0, 1.0, state)
    cdef double u2 = rand_uniform(0.0, 1.0, state)
    if u1 < 1e-300:
        u1 = 1e-300
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2)


# ================================================================= the rounds
def run_rounds(
    const floating[:, ::1] X,           # IN  (n_samples, n_features)
    const double[::1] y,                # IN  encoded targets (+-1, class index or value)
    const double[::1] sample_weight,    # IN  (n_samples,)
    const intp_t[::1] queue,            # IN  rows of X in processing order, node by node
    const intp_t[::1] queue_end,        # IN  (n_nodes,) end of each node's queue segment
    intp_t[::1] position,               # IN/OUT (n_nodes,) next queue entry of each node
    const uint8_t[:, ::1] active,       # IN  (n_rounds, n_nodes) 0 where a node is dropped
    const intp_t[::1] indptr,           # IN  topology (CSR, symmetric, no self-loops)
    const intp_t[::1] indices,          # IN
    const double[::1] gamma,            # IN  (n_nodes,) kernel parameter of each node
    int kernel_kind, double coef0, double degree,
    OnlineLoss loss,
    int schedule, double eta0, double power_t, double alpha, double consensus,
    double epsilon, intp_t max_size, bint compress, intp_t refactor_every,
    double value_limit,                 # IN  a node value beyond this (or NaN) is divergence
    intp_t exchange_every,              # IN  0: query exchange; T: copies published every T steps
    floating[:, :, ::1] points,         # IN/OUT (n_nodes, capacity, n_features)
    double[:, :, ::1] weights,          # IN/OUT (n_nodes, capacity, n_outputs)
    double[:, :, ::1] gram_inv,         # IN/OUT (n_nodes, capacity, capacity) when compress
    intp_t[::1] sizes,                  # IN/OUT (n_nodes,) model orders
    int64_t[::1] n_steps,               # IN/OUT (n_nodes,) steps taken by each node
    const uint8_t[::1] rogue,           # IN  (n_nodes,)
    int rogue_mode,
    uint32_t[::1] rng_state,            # IN/OUT (n_nodes,) xorshift states
    CommCounter counter,
    int64_t value_bytes,                # IN  4 (float32) or 8 (float64) per value
    double[::1] consensus_out,          # OUT (n_rounds,)
    intp_t[:, ::1] order_out,           # OUT (n_rounds, n_nodes)
    double[::1] komp_error_out,         # OUT (n_nodes,) max KOMP error (RKHS norm)
    double[:, ::1] krows,               # scratch (n_nodes, capacity)
    double[:, ::1] omegas,              # scratch (n_nodes, n_outputs)
    double[:, ::1] work,                # scratch (8, max(capacity, n_outputs, 1))
    floating[:, :, ::1] pub_points,     # IN/OUT (n_nodes, capacity, n_features) copies
    double[:, :, ::1] pub_weights,      # IN/OUT (n_nodes, capacity, n_outputs) the neighbours hold
    intp_t[::1] pub_sizes,              # IN/OUT (n_nodes,)
    int64_t[::1] since_publish,         # IN/OUT (n_nodes,) steps since the last publication
    double[:, :, ::1] avg_weights,      # IN/OUT (n_nodes, capacity, n_outputs) averaged weights
    const int64_t[::1] avg_start,       # IN  (n_nodes,) step from which a node averages
    bint averaging,
    intp_t[:, ::1] slot_ids=None,       # IN/OUT (n_nodes, capacity) sample row of every slot, -1 unknown
    uint8_t[::1] sent=None,             # IN/OUT (n_samples,) 1 once a row reached the neighbours
    const int64_t[::1] publish_period=None,  # IN (n_nodes,) per-node period (overrides exchange_every)
    const double[:, :, ::1] linear=None,     # IN  (n_nodes, n_features, n_outputs) linear terms
    const uint8_t[::1] linear_on=None,       # IN  (n_nodes,) 1 where a node has one
):
    """Run synchronous rounds until the chunk ``active`` is used up.

    Returns
    -------
    n_rounds_done : int
        Rounds completed (rows of ``active``, ``consensus_out`` and
        ``order_out`` filled).
    status : int
        ``STATUS_CHUNK_DONE`` (every row of ``active`` used),
        ``STATUS_ALL_DONE`` (every queue empty) or ``STATUS_NEED_CAPACITY``
        (a node that must step has a full dictionary: grow and call again)
        or ``STATUS_DIVERGED`` (a node's own value ``f_i(x)`` was NaN, infinite
        or larger than ``value_limit`` in absolute value: the round was not
        applied and ``diverged_node`` says which node).

    With ``linear`` (and ``linear_on``), a node ``i`` with ``linear_on[i]``
    has the function ``linear[i]' x`` plus its kernel expansion: the term
    is public and fixed (a newcomer's start, ``skfed.online._linear``), so
    it is added wherever ``f_i(x)`` is read (its own value, its answers and
    its neighbours' copies) and never stepped, shrunk or sent.
    diverged_node : int
        The node that diverged, or -1.
    """
    cdef intp_t n_nodes = sizes.shape[0]
    cdef intp_t n_features = X.shape[1]
    cdef intp_t n_outputs = weights.shape[2]
    cdef intp_t capacity = points.shape[1]
    cdef intp_t ld_q = gram_inv.shape[2] if compress else 0
    cdef intp_t n_rounds = active.shape[0]
    cdef intp_t rnd, i, j, jj, r, row, M, Mj
    cdef int status = C_STATUS_CHUNK_DONE
    cdef bint any_left, answered
    cdef intp_t diverged_node = -1, m
    cdef double eta, scale, eps_t, eps2, diff, cons_sum, err2, fval
    cdef intp_t n_pairs
    cdef int64_t header = counter.header_bytes
    cdef int64_t query_cost, dict_cost, unit = (n_features + n_outputs) * value_bytes
    cdef KernelParams kp
    cdef double* fi = &work[0, 0]
    cdef double* fj = &work[1, 0]
    cdef double* grad = &work[2, 0]
    cdef double* tmp = &work[3, 0]
    cdef double* u = &work[4, 0]
    cdef double* q = &work[5, 0]
    cdef double* bj = &work[6, 0]
    cdef double* bjA = &work[7, 0]
    cdef double* A
    cdef double* Wi
    cdef double avg_coef
    cdef double* Q
    cdef bint track = slot_ids is not None
    cdef bint cache = track and sent is not None
    cdef bint per_node = publish_period is not None
    cdef intp_t* ids_i = NULL
    cdef int64_t period = exchange_every
    cdef bint has_linear = linear is not None and linear_on is not None

    with nogil:
        rnd = 0
        while rnd < n_rounds:
            any_left = False
            for i in range(n_nodes):
                if position[i] < queue_end[i]:
                    any_left = True
                    if active[rnd, i] and sizes[i] + 1 > capacity:
                        status = C_STATUS_NEED_CAPACITY
            if not any_left:
                status = C_STATUS_ALL_DONE
                break
            if status == C_STATUS_NEED_CAPACITY:
                break

            # Phase 1: every stepping node reads f_i(x) and its neighbours'
            # f_j(x) at the iterates of the previous round.
            cons_sum = 0.0
            n_pairs = 0
            for i in range(n_nodes):
                if not active[rnd, i] or position[i] >= queue_end[i]:
                    continue
                row = queue[position[i]]
                M = sizes[i]
                kp = make_kernel_params(kernel_kind, gamma[i], coef0, degree)
                _eval_function(&kp, &X[row, 0], &points[i, 0, 0], M, n_features,
                               &weights[i, 0, 0], n_outputs, &krows[i, 0], fi)
                if has_linear and linear_on[i]:
                    _add_linear(&X[row, 0], &linear[i, 0, 0], n_features, n_outputs, fi)
                for r in range(n_outputs):
                    if not (fabs(fi[r]) <= value_limit):  # also catches NaN
                        diverged_node = i
                if diverged_node >= 0:
                    break
                for r in range(n_outputs):
                    omegas[i, r] = 0.0
                for jj in range(indptr[i], indptr[i + 1]):
                    j = indices[jj]
                    if not active[rnd, j]:
                        continue  # a dropped neighbour does not answer
                    kp = make_kernel_params(kernel_kind, gamma[j], coef0, degree)
                    answered = False
                    if exchange_every > 0:
                        # i evaluates its copy of j's function (bytes were
                        # counted when j published it).
                        _eval_function(&kp, &X[row, 0], &pub_points[j, 0, 0],
                                       pub_sizes[j], n_features, &pub_weights[j, 0, 0],
                                       n_outputs, tmp, fj)
                        if has_linear and linear_on[j]:
                            # (public: i adds j's linear term itself)
                            _add_linear(&X[row, 0], &linear[j, 0, 0], n_features,
                                        n_outputs, fj)
                    else:
                        Mj = sizes[j]
                        # Bytes: query (x out, value back) or j's whole
                        # dictionary, whichever is cheaper.
                        query_cost = 2 * header + unit
                        dict_cost = header + Mj * unit
                        answered = dict_cost >= query_cost
                        if answered:
                            counter.send(i, j, n_features * value_bytes)
                            counter.send(j, i, n_outputs * value_bytes)
                        else:
                            counter.send(j, i, Mj * unit)
                        _eval_function(&kp, &X[row, 0], &points[j, 0, 0], Mj,
                                       n_features, &weights[j, 0, 0], n_outputs,
                                       tmp, fj)
                        if value_bytes == 4:
                            if answered and has_linear and linear_on[j]:
                                # j's answer holds its linear term
                                _add_linear(&X[row, 0], &linear[j, 0, 0], n_features,
                                            n_outputs, fj)
                            # What i uses is what it received: the answer, or
                            # the dictionary's weights, travelled as float32.
                            for r in range(n_outputs):
                                if answered:
                                    fj[r] = <double>(<float>fj[r])
                                else:
                                    fval = 0.0
                                    for m in range(Mj):
                                        fval = fval + tmp[m] * <double>(<float>weights[j, m, r])
                                    fj[r] = fval
                            if not answered and has_linear and linear_on[j]:
                                # the dictionary's function plus j's public term
                                _add_linear(&X[row, 0], &linear[j, 0, 0], n_features,
                                            n_outputs, fj)
                        elif has_linear and linear_on[j]:
                            _add_linear(&X[row, 0], &linear[j, 0, 0], n_features,
                                        n_outputs, fj)
                    for r in range(n_outputs):
                        diff = fi[r] - fj[r]
                        cons_sum = cons_sum + diff * diff
                    n_pairs += 1
                    if rogue[j]:
                        for r in range(n_outputs):
                            if rogue_mode == C_ROGUE_COMPLEMENT:
                                fj[r] = -fj[r]
                            else:
                                fval = fabs(fj[r])
                                if fval == 0.0:
                                    fval = 1.0
                                fj[r] = fval * _normal(&rng_state[j])
                    if answered and value_bytes == 4 and rogue[j]:
                        # A rogue's answer travels as float32 too.
                        for r in range(n_outputs):
                            fj[r] = <double>(<float>fj[r])
                    for r in range(n_outputs):
                        omegas[i, r] += fi[r] - fj[r]
                loss.derivative(fi, y[row], grad, n_outputs)
                for r in range(n_outputs):
                    omegas[i, r] = (sample_weight[row] * grad[r]
                                    + consensus * omegas[i, r])

            if diverged_node >= 0:
                status = C_STATUS_DIVERGED
                break

            # Phase 2: step and compress, node by node.
            for i in range(n_nodes):
                if not active[rnd, i] or position[i] >= queue_end[i]:
                    continue
                row = queue[position[i]]
                if schedule == C_SCHEDULE_CONSTANT:
                    eta = eta0
                    eps_t = epsilon
                else:
                    eta = eta0 / pow(1.0 + <double>n_steps[i], power_t)
                    eps_t = epsilon * (eta / eta0) * (eta / eta0)
                eps2 = eps_t * eps_t
                scale = 1.0 - eta * alpha
                for r in range(n_outputs):
                    omegas[i, r] = -eta * omegas[i, r]
                kp = make_kernel_params(kernel_kind, gamma[i], coef0, degree)
                Q = &gram_inv[i, 0, 0] if compress else NULL
                A = NULL
                avg_coef = 0.0
                if averaging:
                    A = &avg_weights[i, 0, 0]
                    if n_steps[i] >= avg_start[i]:
                        # Running mean of the iterates from step avg_start on.
                        avg_coef = 1.0 / <double>(n_steps[i] - avg_start[i] + 1)
                if (compress and refactor_every > 0 and n_steps[i] > 0
                        and n_steps[i] % refactor_every == 0):
                    _refactor(&kp, &points[i, 0, 0], sizes[i], n_features, Q, ld_q)
                ids_i = &slot_ids[i, 0] if track else NULL
                sizes[i] = _step_node(
                    &kp, &X[row, 0], n_features, &points[i, 0, 0],
                    &weights[i, 0, 0], Q, ld_q, sizes[i], &krows[i, 0],
                    &omegas[i, 0], n_outputs, scale, compress, eps2, max_size,
                    u, q, bj, &err2, A, bjA, ids_i, row)
                if avg_coef > 0.0:
                    Wi = &weights[i, 0, 0]
                    for r in range(sizes[i] * n_outputs):
                        A[r] += avg_coef * (Wi[r] - A[r])
                err2 = sqrt(err2)
                if err2 > komp_error_out[i]:
                    komp_error_out[i] = err2
                position[i] += 1
                n_steps[i] += 1
                if exchange_every > 0:
                    since_publish[i] += 1
                    if per_node:
                        period = publish_period[i]
                    if since_publish[i] >= period:
                        _publish(i, &points[i, 0, 0], &weights[i, 0, 0], sizes[i],
                                 &pub_points[i, 0, 0], &pub_weights[i, 0, 0],
                                 &pub_sizes[i], n_features, n_outputs, value_bytes,
                                 &indices[indptr[i]] if indptr[i + 1] > indptr[i] else NULL,
                                 indptr[i + 1] - indptr[i], counter, ids_i,
                                 &sent[0] if cache else NULL)
                        since_publish[i] = 0

            consensus_out[rnd] = cons_sum / n_pairs if n_pairs > 0 else NAN
            for i in range(n_nodes):
                order_out[rnd, i] = sizes[i]
            counter.end_round()
            rnd += 1
    return rnd, status, diverged_node


# ============================================================ test entry points
def py_step_node(
    floating[:, ::1] points,            # IN/OUT (capacity, n_features)
    double[:, ::1] weights,             # IN/OUT (capacity, n_outputs)
    double[:, ::1] gram_inv,            # IN/OUT (capacity, capacity)
    intp_t size,
    const floating[::1] x,
    const double[::1] a,
    double scale,
    int kernel_kind, double gamma, double coef0, double degree,
    bint compress, double epsilon, intp_t max_size,
):
    """One step + KOMP of a single node (for the tests); returns (size, error)."""
    cdef intp_t n_features = points.shape[1], n_outputs = weights.shape[1]
    cdef intp_t capacity = points.shape[0], m
    cdef double err2 = 0.0
    cdef KernelParams kp = make_kernel_params(kernel_kind, gamma, coef0, degree)
    if size + 1 > capacity:
        raise ValueError("capacity too small")
    krow = np.zeros(max(capacity, 1))
    cdef double[::1] kv = krow
    scratch = np.zeros((3, max(capacity, n_outputs, 1)))
    cdef double[:, ::1] sv = scratch
    cdef double* Q = &gram_inv[0, 0] if compress else NULL
    cdef intp_t ld_q = gram_inv.shape[1] if compress else 0
    with nogil:
        for m in range(size):
            kv[m] = kernel_pair_double(&kp, &x[0], &points[m, 0], n_features)
        m = _step_node(&kp, &x[0], n_features, &points[0, 0], &weights[0, 0],
                       Q, ld_q, size, &kv[0], &a[0], n_outputs, scale, compress,
                       epsilon * epsilon, max_size, &sv[0, 0], &sv[1, 0],
                       &sv[2, 0], &err2, NULL, NULL, NULL, -1)
        if compress:
            _mirror_upper(Q, ld_q, m)
    return m, sqrt(err2)


cdef void _mirror_upper(double* Q, intp_t ld_q, intp_t m) noexcept nogil:
    """Copy the stored upper triangle into the lower one (test entry points)."""
    cdef intp_t a, b
    for a in range(m):
        for b in range(a + 1, m):
            Q[b * ld_q + a] = Q[a * ld_q + b]


def py_mirror_upper(double[:, ::1] gram_inv, intp_t size):
    """Make the stored (upper-triangle) inverse Gram matrix symmetric."""
    if size > 0:
        with nogil:
            _mirror_upper(&gram_inv[0, 0], gram_inv.shape[1], size)


def py_refactor(floating[:, ::1] points, intp_t size, double[:, ::1] gram_inv,
                int kernel_kind, double gamma, double coef0, double degree):
    """Recompute the inverse Gram matrix of the first ``size`` points."""
    cdef KernelParams kp = make_kernel_params(kernel_kind, gamma, coef0, degree)
    cdef int info
    with nogil:
        info = _refactor(&kp, &points[0, 0], size, points.shape[1],
                         &gram_inv[0, 0], gram_inv.shape[1])
    return info


def kernel_matrix(const floating[:, ::1] X, const floating[:, ::1] Y,
                  floating[:, ::1] out, int kernel_kind, double gamma,
                  double coef0, double degree):
    """out[i, j] = k(X[i], Y[j]) (kernel_block); for predictions."""
    cdef KernelParams kp = make_kernel_params(kernel_kind, gamma, coef0, degree)
    with nogil:
        kernel_block(&kp, X, Y, out)


def py_eval_function(const floating[:, ::1] X, const floating[:, ::1] D,
                     const double[:, ::1] W, int kernel_kind, double gamma,
                     double coef0, double degree, double[:, ::1] out):
    """out[s] = f(X[s]) one sample at a time, as a node evaluates it in a step.

    ``M`` kernel evaluations and one ``W^T k`` per sample (the benchmark's
    reference cost of a step).
    """
    cdef KernelParams kp = make_kernel_params(kernel_kind, gamma, coef0, degree)
    cdef intp_t s
    krow = np.empty(max(D.shape[0], 1))
    cdef double[::1] kv = krow
    with nogil:
        for s in range(X.shape[0]):
            _eval_function(&kp, &X[s, 0], &D[0, 0], D.shape[0], X.shape[1],
                           &W[0, 0], W.shape[1], &kv[0], &out[s, 0])
