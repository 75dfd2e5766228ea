# Node solvers of Dada (decentralized Frank-Wolfe boosting) and of the
# personalized linear models (Perso-lin), for ``skfed.boosting``.
#
# Notation (Zantedeschi, Bellet & Tommasi, AISTATS 2020, eqs. 1, 3-4):
#   H[i, j] = h_j(x_i)            base predictor j on sample i (node-ordered rows)
#   A_k[i, j] = y_i h_j(x_i)      margin matrix of node k (never formed: y * H)
#   L_k(a) = log sum_i s_i exp(-[A_k a]_i)          (s_i: sample weights)
#   f(alpha) = sum_k d_k c_k L_k(alpha_k) + (mu / 2) sum_{k<l} w_kl ||alpha_k - alpha_l||^2
#   grad_k f = -d_k c_k A_k^T eta_k + mu (d_k alpha_k - sum_l w_kl alpha_l),
#   eta_k = softmax(-A_k alpha_k)  (weighted by s_i).
# A Frank-Wolfe step of node k moves alpha_k toward the l1-ball vertex
# ``-beta sign(g_j) e_j`` with ``j = argmax_j |g_j|``.  The margins
# ``A_k alpha_k`` are kept up to date with one column of A_k per step, so a
# step costs O(m_k n) (the gradient) plus O(deg_k n) (the neighbour sum).
#
# Several binary problems (one-vs-rest) share the same graph: every array
# with a leading ``P`` axis holds one problem per row, and a node that wakes
# up does one step on each of them.
#
# Python allocates every array and validates every argument; these functions
# only compute.  ``# IN`` arrays are read, ``# IN/OUT`` arrays are updated in
# place, ``# OUT`` arrays are written.

from libc.math cimport exp, floor, log, log1p, fabs, rint, sqrt, INFINITY
from cython cimport floating
from scipy.linalg.cython_blas cimport dgemv

import numpy as np

from ._comm cimport CommCounter
from ._random cimport rand_int, rand_uniform
from ._secure_noise cimport BitStream, exponential_choice
from ._typedefs cimport int64_t, intp_t, uint8_t, uint32_t
from libc.stdint cimport uint64_t


# ----------------------------------------------------------------- losses
cdef class LossFunction:
    """Smooth margin loss ``loss(z)``, ``z = y f(x)``, of the Perso-lin models."""

    cdef double loss(self, double z) noexcept nogil:
        return 0.0

    cdef double dloss(self, double z) noexcept nogil:
        return 0.0

    cdef double curvature(self) noexcept nogil:
        """Upper bound on the second derivative of ``loss``."""
        return 0.0

    def py_loss(self, double z):
        """Python wrapper of ``loss`` (tests)."""
        return self.loss(z)

    def py_dloss(self, double z):
        """Python wrapper of the derivative ``dloss`` (tests)."""
        return self.dloss(z)

    def py_curvature(self):
        """Python wrapper of ``curvature`` (tests)."""
        return self.curvature()

    def __reduce__(self):
        return (type(self), ())


cdef class Logistic(LossFunction):
    """``log(1 + exp(-z))``; second derivative at most 1/4."""

    cdef double loss(self, double z) noexcept nogil:
        if z > 0:
            return log1p(exp(-z))
        return -z + log1p(exp(z))

    cdef double dloss(self, double z) noexcept nogil:
        cdef double e
        if z > 0:
            e = exp(-z)
            return -e / (1.0 + e)
        return -1.0 / (1.0 + exp(z))

    cdef double curvature(self) noexcept nogil:
        return 0.25


cdef class SquaredHinge(LossFunction):
    """``max(0, 1 - z)^2``; second derivative at most 2."""

    cdef double loss(self, double z) noexcept nogil:
        if z < 1.0:
            return (1.0 - z) * (1.0 - z)
        return 0.0

    cdef double dloss(self, double z) noexcept nogil:
        if z < 1.0:
            return -2.0 * (1.0 - z)
        return 0.0

    cdef double curvature(self) noexcept nogil:
        return 2.0


# ------------------------------------------------------------ shared parts
cdef inline double _node_lse(
    const double[:, ::1] margins, const floating[::1] sw,
    intp_t p, intp_t start, intp_t end, double* amax_out, double* z_out,
) noexcept nogil:
    """``log sum_i s_i exp(-margin_i)`` over rows [start, end) of problem p."""
    cdef double amax = -INFINITY, z = 0.0, a
    cdef intp_t i
    for i in range(start, end):
        if sw[i] > 0:
            a = -margins[p, i]
            if a > amax:
                amax = a
    if amax == -INFINITY:
        amax_out[0] = amax
        z_out[0] = 0.0
        return -INFINITY
    for i in range(start, end):
        if sw[i] > 0:
            z += sw[i] * exp(-margins[p, i] - amax)
    amax_out[0] = amax
    z_out[0] = z
    return amax + log(z)


cdef void _neighbour_sum(
    const floating[:, :, ::1] models, intp_t p,
    const intp_t[::1] indptr, const intp_t[::1] indices, const double[::1] weights,
    intp_t k, double* out, intp_t n,
) noexcept nogil:
    """``out = sum_l w_kl models[l, p]`` over the neighbours l of node k."""
    cdef intp_t e, l, j
    cdef double w
    for j in range(n):
        out[j] = 0.0
    for e in range(indptr[k], indptr[k + 1]):
        l = indices[e]
        w = weights[e]
        for j in range(n):
            out[j] += w * models[l, p, j]


cdef double _reg_terms(
    const floating[:, :, ::1] models, intp_t k, intp_t p, const double* S,
    intp_t n, double* dot_out,
) noexcept nogil:
    """Return ``||models[k, p]||^2`` and set ``dot_out = <models[k, p], S>``."""
    cdef double sq = 0.0, dot = 0.0, v
    cdef intp_t j
    for j in range(n):
        v = models[k, p, j]
        sq += v * v
        dot += v * S[j]
    dot_out[0] = dot
    return sq


cdef void _fw_node(
    const floating[:, ::1] H,
    const floating[:, ::1] Y,
    const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] alpha,
    double[:, ::1] margins,
    double loss_weight, double mu, double dk, const double* S,
    double beta, double gamma,
    double* grad, double* coef_buf,
    intp_t* j_out, double* s_out, double* loss_out,
    double unit, uint64_t scale, BitStream stream, int64_t* quality,
) noexcept nogil:
    """One Frank-Wolfe step of node k on problem p (eqs. 3-4).

    ``loss_weight`` is ``d_k c_k``; ``S`` the neighbour sum
    ``sum_l w_kl alpha_l`` (ignored when ``mu == 0``).  Updates
    ``alpha[k, p]`` and the node's margins, returns the chosen coordinate,
    the vertex value ``s_j = +-beta`` (the smallest j among coordinates
    whose |g_j| is within a relative 1e-12 of the largest) and the new loss.  ``coef_buf`` holds
    at least ``end - start`` doubles (scratch for the BLAS gradient).

    With ``scale > 0`` the vertex is chosen privately instead: the
    exponential mechanism over the 2 n vertices ``s e_j`` (s = +-1) with
    integer qualities ``floor(-s g_j / unit)`` and integer scale ``scale``,
    sampled exactly from ``stream`` (``quality`` is scratch for 2 n values;
    see ``_private_vertex`` and ``skfed.boosting``).
    """
    cdef int n = <int>H.shape[1], m = <int>(end - start), inc = 1
    cdef intp_t i, j, best = 0
    cdef double amax, z, coef, gmax = -1.0, s, h, one_minus = 1.0 - gamma, one = 1.0
    _node_lse(margins, sw, p, start, end, &amax, &z)
    for j in range(n):
        if mu != 0.0:
            grad[j] = mu * (dk * alpha[k, p, j] - S[j])
        else:
            grad[j] = 0.0
    if z > 0:
        # grad += A_k^T eta: the O(m_k n) part of the step.
        if floating is double:
            for i in range(start, end):
                coef_buf[i - start] = 0.0
                if sw[i] > 0:
                    coef_buf[i - start] = (-loss_weight * sw[i] * exp(-margins[p, i] - amax)
                                           / z * Y[p, i])
            if m > 0 and n > 0:
                # H rows [start, end) are an n x m column-major matrix.
                dgemv(b"N", &n, &m, &one, <double*>&H[start, 0], &n, coef_buf, &inc, &one,
                      grad, &inc)
        else:
            for i in range(start, end):
                if sw[i] > 0:
                    coef = -loss_weight * sw[i] * exp(-margins[p, i] - amax) / z * Y[p, i]
                    for j in range(n):
                        grad[j] += coef * H[i, j]
    if scale > 0:
        best, s = _private_vertex(grad, n, unit, scale, stream, quality)
        s *= beta
    else:
        for j in range(n):
            if fabs(grad[j]) > gmax:
                gmax = fabs(grad[j])
        # Ties (duplicate or opposite base predictors on this node's samples) go
        # to the smallest index, whatever the rounding of the summation order.
        gmax *= 1.0 - 1e-12
        for j in range(n):
            if fabs(grad[j]) >= gmax:
                best = j
                break
        s = -beta if grad[best] > 0 else beta
    for j in range(n):
        alpha[k, p, j] = <floating>(one_minus * alpha[k, p, j])
    alpha[k, p, best] = <floating>(alpha[k, p, best] + gamma * s)
    for i in range(start, end):
        h = H[i, best]
        margins[p, i] = one_minus * margins[p, i] + gamma * s * Y[p, i] * h
    j_out[0] = best
    s_out[0] = s
    loss_out[0] = _node_lse(margins, sw, p, start, end, &amax, &z)


# Qualities are clamped to +-2^50 grid steps: clamping never increases a
# sensitivity, and below 2^50 the rounding of ``score / unit`` is at most
# 1/8 of a step, inside the half step of floating-point error the
# accounting allows (``skfed._secure_noise.choice_qualities``).
cdef double _QUALITY_LIMIT = 1125899906842624.0


cdef inline int64_t _quality(double score, double unit) noexcept nogil:
    cdef double q = floor(score / unit)
    if q > _QUALITY_LIMIT:
        q = _QUALITY_LIMIT
    elif q < -_QUALITY_LIMIT:
        q = -_QUALITY_LIMIT
    return <int64_t>q


cdef (intp_t, double) _private_vertex(
    const double* grad, intp_t n, double unit, uint64_t scale, BitStream stream,
    int64_t* quality,
) noexcept nogil:
    """The exponential mechanism over the vertices ``s e_j``, exactly.

    Returns ``(j, s)`` with s = +-1, drawn with probability proportional to
    ``exp(q_(j,s) / scale)``, ``q_(j,s) = floor(-s g_j / unit)`` (``unit``:
    the score sensitivity over the resolution of the grid).
    """
    cdef intp_t j, pick
    for j in range(n):
        quality[2 * j] = _quality(-grad[j], unit)
        quality[2 * j + 1] = _quality(grad[j], unit)
    pick = exponential_choice(stream, quality, 2 * n, scale)
    return pick // 2, (1.0 if pick % 2 == 0 else -1.0)


def private_vertex_draws(const double[::1] grad, double unit, uint64_t scale,
                         intp_t n_draws, BitStream stream):
    """``n_draws`` private vertex choices on fixed scores (tests).

    Returns the chosen ``j`` and sign of every draw, from the same
    ``_private_vertex`` the Frank-Wolfe steps use.
    """
    cdef intp_t d, n = grad.shape[0]
    cdef (intp_t, double) choice
    js = np.zeros(n_draws, dtype=np.intp)
    signs = np.zeros(n_draws)
    quality_arr = np.zeros(max(2 * n, 1), dtype=np.int64)
    cdef int64_t[::1] quality = quality_arr
    cdef intp_t[::1] js_v = js
    cdef double[::1] signs_v = signs
    with nogil:
        for d in range(n_draws):
            choice = _private_vertex(&grad[0], n, unit, scale, stream, &quality[0])
            js_v[d] = choice[0]
            signs_v[d] = choice[1]
    stream.check()
    return js, signs


cdef inline void _fw_public(
    floating[:, :, ::1] public, intp_t k, intp_t p, intp_t j, double s,
    double gamma,
) noexcept nogil:
    """What the neighbours replay on their copy of alpha_k: the same step."""
    cdef intp_t jj
    cdef double one_minus = 1.0 - gamma
    for jj in range(public.shape[2]):
        public[k, p, jj] = <floating>(one_minus * public[k, p, jj])
    public[k, p, j] = <floating>(public[k, p, j] + gamma * s)


cdef inline bint _budget_spent(
    int64_t[::1] wakeups_left, int64_t[::1] stopped_at, intp_t k, int64_t it,
) noexcept nogil:
    """The budget stop of a private wake-up of node k at global iteration it.

    True when the node has no private step left: it stops sending, like a
    dropped node, and its first refused iteration goes to ``stopped_at[k]``.
    Otherwise the step is counted and False returned.
    """
    if wakeups_left[k] <= 0:
        if stopped_at[k] < 0:
            stopped_at[k] = it
        return True
    wakeups_left[k] -= 1
    return False


# --------------------------------------------------------------- Frank-Wolfe
def _max_node_size(const intp_t[::1] offsets):
    cdef intp_t k, size = 0
    for k in range(offsets.shape[0] - 1):
        if offsets[k + 1] - offsets[k] > size:
            size = offsets[k + 1] - offsets[k]
    return size


def lse_losses(
    const double[:, ::1] margins,      # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    double[:, ::1] out,                # OUT (n_nodes, P)
):
    """Per-node losses ``L_k = log sum_i s_i exp(-margin_i)`` of every problem."""
    cdef intp_t K = offsets.shape[0] - 1, P = margins.shape[0], k, p
    cdef double amax, z
    with nogil:
        for k in range(K):
            for p in range(P):
                out[k, p] = _node_lse(margins, sw, p, offsets[k], offsets[k + 1], &amax, &z)


def fw_local(
    const floating[:, ::1] H,          # IN (n_samples, n_base)
    const floating[:, ::1] Y,          # IN (P, n_samples), +-1
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] alpha,         # IN/OUT (n_nodes, P, n_base)
    double[:, ::1] margins,            # IN/OUT (P, n_samples)
    double[:, ::1] losses,             # OUT (n_nodes, P)
    double beta,
    intp_t n_steps,
    intp_t node_start,
    intp_t node_end,
    const double[::1] unit=None,       # IN (n_nodes,) private choices: quality grid step
    uint64_t scale=0,                  # integer scale of the private choices
    BitStream stream=None,             # IN/OUT secure random words of the choices
):
    """Purely local Frank-Wolfe: nodes [node_start, node_end) alone.

    Each node runs ``n_steps`` steps of classical Frank-Wolfe on its own loss
    ``L_k`` over the l1 ball (step ``2 / (tau + 2)``), without
    communicating.  Nodes are independent, so disjoint node ranges can run in
    parallel threads (one ``stream`` each).  With ``unit`` every vertex is
    chosen by the exponential mechanism on qualities of grid step
    ``unit[k]`` (loss weight 1) at integer scale ``scale``.
    """
    cdef intp_t n = H.shape[1], P = Y.shape[0], k, p, tau, j
    cdef double s, loss, u = 0.0
    cdef bint private = unit is not None and scale > 0
    cdef uint64_t sc = scale if private else 0
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    quality_arr = np.zeros(max(2 * n, 1), dtype=np.int64)
    cdef int64_t[::1] quality = quality_arr
    coef_arr = np.zeros(max(_max_node_size(offsets), 1), dtype=np.float64)
    cdef double[::1] grad = grad_arr
    cdef double[::1] coef = coef_arr
    cdef double dummy = 0.0
    with nogil:
        for k in range(node_start, node_end):
            if private:
                u = unit[k]
            for tau in range(n_steps):
                for p in range(P):
                    _fw_node(H, Y, sw, offsets[k], offsets[k + 1], p, k, alpha, margins,
                             1.0, 0.0, 0.0, &dummy, beta, 2.0 / (tau + 2.0),
                             &grad[0], &coef[0], &j, &s, &loss, u, sc, stream, &quality[0])
                    losses[k, p] = loss
    if private:
        stream.check()
    return None


def fw_async(
    const floating[:, ::1] H,          # IN (n_samples, n_base)
    const floating[:, ::1] Y,          # IN (P, n_samples), +-1
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] alpha,         # IN/OUT (n_nodes, P, n_base) models
    floating[:, :, ::1] public,        # IN/OUT (n_nodes, P, n_base) neighbours' copies
    double[:, ::1] margins,            # IN/OUT (P, n_samples)
    double[:, ::1] losses,             # IN/OUT (n_nodes, P)
    const intp_t[::1] indptr,          # IN graph CSR (n_nodes + 1,)
    const intp_t[::1] indices,         # IN graph CSR
    const double[::1] weights,         # IN graph CSR
    const double[::1] degree,          # IN (n_nodes,)
    const double[::1] confidence,      # IN (n_nodes,)
    double beta,
    double mu,
    int64_t t_start,
    intp_t n_steps,
    uint32_t[::1] clock,               # IN/OUT (1,) xorshift state of the clocks
    uint32_t[::1] node_state,          # IN/OUT (n_nodes,) per-node xorshift states
    const uint8_t[::1] offline,        # IN (n_steps,) or (0,): woken node unavailable
    const uint8_t[::1] rogue,          # IN (n_nodes,)
    int rogue_mode,                    # 0: complement (flipped vertex), 1: random vertex
    CommCounter counter,
    int64_t payload,                   # bytes of one update message, header excluded
    int64_t budget,                    # stop once this many bytes are spent (-1: none)
    int64_t spent,
    double objective,
    double[::1] objective_out,         # OUT (n_steps,)
    intp_t[::1] trace_node,            # OUT (n_steps,) or (0,)
    intp_t[::1] trace_coord,           # OUT (n_steps,) or (0,)
    double[::1] trace_step,            # OUT (n_steps,) or (0,)
    const double[::1] unit=None,       # IN (n_nodes,) private choices: grid step / (d_k c_k)
    uint64_t scale=0,                  # integer scale of the private choices
    BitStream stream=None,             # IN/OUT secure random words of the choices
    int64_t[::1] wakeups_left=None,    # IN/OUT (n_nodes,) private steps each node can afford
    int64_t[::1] stopped_at=None,      # IN/OUT (n_nodes,) iteration of the first refused step
    int64_t it_offset=0,               # global index of this call's first iteration
):
    """Asynchronous decentralized Frank-Wolfe (Algorithm 1 of Dada).

    At each global iteration one node, drawn uniformly at random (Poisson
    clocks), takes a Frank-Wolfe step on every problem with step size
    ``gamma = 2 K / (t + 2 K)`` (t: updates done so far, counting
    ``t_start``), and sends ``(coordinate index, signed step)`` to each of
    its neighbours; every iteration is one round of the counter.

    With ``unit`` (privacy) the vertex of every problem is chosen by the
    exponential mechanism on qualities of grid step ``unit[k] * d_k c_k``
    at integer scale ``scale`` (``_private_vertex``); a node
    whose ``wakeups_left`` is 0 when it wakes up does nothing, like an
    offline node (its budget is spent), and the first such iteration
    (``it_offset`` + index) is written to ``stopped_at[k]`` if still -1.

    Returns
    -------
    (n_done, n_updates, spent, objective)
        Iterations done (stops early when the budget is spent), updates
        among them (offline nodes do none), bytes spent so far and the
        objective after the last one.
    """
    cdef intp_t K = offsets.shape[0] - 1
    cdef intp_t P = Y.shape[0], n = H.shape[1]
    cdef intp_t it, k, p, e, j, jr, n_done = 0, n_updates = 0
    cdef double gamma, dk, lw, s, sr, new_loss, sq_old, dot_old, sq_new, dot_new
    cdef double u = 0.0
    cdef bint private = unit is not None and scale > 0
    cdef uint64_t sc = scale if private else 0
    cdef bint budgeted = wakeups_left is not None
    cdef bint has_offline = offline.shape[0] > 0
    cdef bint has_trace = trace_node.shape[0] > 0
    cdef bint any_rogue = False
    cdef int64_t header = counter.header_bytes
    for k in range(K):
        if rogue[k]:
            any_rogue = True
    quality_arr = np.zeros(max(2 * n, 1), dtype=np.int64)
    cdef int64_t[::1] quality = quality_arr
    S_arr = np.zeros(max(n, 1), dtype=np.float64)
    St_arr = np.zeros(max(n, 1), dtype=np.float64)
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    coef_arr = np.zeros(max(_max_node_size(offsets), 1), dtype=np.float64)
    cdef double[::1] S = S_arr
    cdef double[::1] S_true = St_arr
    cdef double[::1] grad = grad_arr
    cdef double[::1] coef = coef_arr
    cdef double* S_obj
    with nogil:
        for it in range(n_steps):
            if budget >= 0 and spent >= budget:
                break
            k = rand_int(K, &clock[0])
            n_done += 1
            if has_trace:
                trace_node[it] = k
                trace_coord[it] = -1
                trace_step[it] = 0.0
            if has_offline and offline[it]:
                objective_out[it] = objective
                counter.end_round()
                continue
            if budgeted and _budget_spent(wakeups_left, stopped_at, k, it_offset + it):
                objective_out[it] = objective
                counter.end_round()
                continue
            gamma = 2.0 * K / (<double>(t_start + n_updates) + 2.0 * K)
            dk = degree[k]
            lw = (dk if dk > 0 else 1.0) * confidence[k]
            if private:
                u = unit[k] * lw
            for p in range(P):
                _neighbour_sum(public, p, indptr, indices, weights, k, &S[0], n)
                if any_rogue:
                    _neighbour_sum(alpha, p, indptr, indices, weights, k, &S_true[0], n)
                    S_obj = &S_true[0]
                else:
                    S_obj = &S[0]
                sq_old = _reg_terms(alpha, k, p, S_obj, n, &dot_old)
                _fw_node(H, Y, sw, offsets[k], offsets[k + 1], p, k, alpha, margins,
                         lw, mu, dk, &S[0], beta, gamma, &grad[0], &coef[0], &j, &s,
                         &new_loss, u, sc, stream, &quality[0])
                sq_new = _reg_terms(alpha, k, p, S_obj, n, &dot_new)
                objective += lw * (new_loss - losses[k, p])
                objective += 0.5 * mu * (dk * (sq_new - sq_old) - 2.0 * (dot_new - dot_old))
                losses[k, p] = new_loss
                if rogue[k]:
                    if rogue_mode == 0:
                        jr = j
                        sr = -s
                    else:
                        jr = rand_int(n, &node_state[k])
                        sr = beta if rand_int(2, &node_state[k]) == 0 else -beta
                    _fw_public(public, k, p, jr, sr, gamma)
                else:
                    _fw_public(public, k, p, j, s, gamma)
                if has_trace and p == 0:
                    trace_coord[it] = j
                    trace_step[it] = gamma * s / beta
            n_updates += 1
            for e in range(indptr[k], indptr[k + 1]):
                counter.send(k, indices[e], payload)
            spent += (indptr[k + 1] - indptr[k]) * (payload + header)
            objective_out[it] = objective
            counter.end_round()
    if private:
        stream.check()
    return n_done, n_updates, spent, objective


# ------------------------------------------------------------------ Perso-lin
# Gradients are clamped to +-2^50 grid steps before rounding (a clamp never
# increases a sensitivity; below 2^50 steps the rounding of ``g / step`` is
# at most 1/8 of a step, inside the half step of floating-point error that
# ``skfed._secure_noise.grid_l2_sensitivity`` allows).
cdef double _GRID_LIMIT = 1125899906842624.0


cdef inline double _on_grid(double value, double step, int64_t z) noexcept nogil:
    """``step * (round(value / step) + z)``: a grid release (see ``skfed._secure_noise``)."""
    cdef double q = rint(value / step)
    if q > _GRID_LIMIT:
        q = _GRID_LIMIT
    elif q < -_GRID_LIMIT:
        q = -_GRID_LIMIT
    return step * (q + <double>z)


cdef double _lin_node_loss(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    const floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double* grad, const double* row_norm=NULL, double clip=0.0,
) noexcept nogil:
    """``F_k(theta) = inv_mass sum_i s_i loss(y_i theta.x_i) + l2/2 ||theta_pen||^2``.

    Also writes its gradient into ``grad`` when ``grad`` is not NULL; with
    ``clip > 0`` each sample's term ``loss'(y_i z_i) y_i x_i`` of the
    gradient is clipped to l2 norm ``clip`` (``row_norm[i] = ||x_i||``).
    """
    cdef intp_t n = X.shape[1], i, j
    cdef double f = 0.0, z, y, coef, v, gnorm
    if grad != NULL:
        for j in range(n):
            grad[j] = 0.0
    for i in range(start, end):
        if sw[i] > 0:
            z = 0.0
            for j in range(n):
                z += theta[k, p, j] * X[i, j]
            y = Y[p, i]
            f += sw[i] * loss.loss(y * z)
            if grad != NULL:
                coef = inv_mass * sw[i] * loss.dloss(y * z) * y
                if clip > 0.0:
                    gnorm = fabs(loss.dloss(y * z)) * row_norm[i]
                    if gnorm > clip:
                        coef *= clip / gnorm
                for j in range(n):
                    grad[j] += coef * X[i, j]
    f *= inv_mass
    for j in range(n_penalized):
        v = theta[k, p, j]
        f += 0.5 * l2 * v * v
        if grad != NULL:
            grad[j] += l2 * v
    return f


cdef void _lin_grad(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    const floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized, double* grad,
) noexcept nogil:
    """``grad F_k(theta)`` of problem p into ``grad``: the gradient
    :func:`_lin_node_loss` writes, term by term in its order (so the same
    bits), without the loss value (a step needs only the gradient; the
    logistic loss's ``log1p`` and second ``exp`` per sample were about half
    of a step's time).  Used by the local solve and the newcomers' batched
    join steps (``_join_fast``)."""
    cdef intp_t n = X.shape[1], i, j
    cdef double z, y, coef
    for j in range(n):
        grad[j] = 0.0
    for i in range(start, end):
        if sw[i] > 0:
            z = 0.0
            for j in range(n):
                z += theta[k, p, j] * X[i, j]
            y = Y[p, i]
            coef = inv_mass * sw[i] * loss.dloss(y * z) * y
            for j in range(n):
                grad[j] += coef * X[i, j]
    for j in range(n_penalized):
        grad[j] += l2 * theta[k, p, j]


def lin_losses(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    const floating[:, :, ::1] theta,   # IN (n_nodes, P, n_features)
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,) 1 / sum of the node's weights
    double l2,
    intp_t n_penalized,
    double[:, ::1] out,                # OUT (n_nodes, P)
):
    """Per-node losses ``F_k(theta_k)`` of every problem."""
    cdef intp_t K = offsets.shape[0] - 1, P = Y.shape[0], k, p
    with nogil:
        for k in range(K):
            for p in range(P):
                out[k, p] = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k,
                                           theta, loss, inv_mass[k], l2, n_penalized, NULL)


cdef void _lin_node_step(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double loss_weight, double mu, double dk, const double* S, double lipschitz,
    double* grad, double step=0.0, const int64_t* z=NULL,
    const double* row_norm=NULL, double clip=0.0,
) noexcept nogil:
    """Block gradient step of node k: ``theta_k -= grad_k / L_k``.

    ``grad_k = d_k c_k grad F_k(theta_k) + mu (d_k theta_k - sum_l w_kl theta_l)``
    and ``L_k = d_k c_k L_F + mu d_k`` (``lipschitz``).  With ``step > 0``
    (privacy) ``grad F_k`` has its per-sample terms clipped to ``clip`` and
    is released on the grid of ``step`` with the pre-drawn discrete Gaussian
    integers ``z`` (one per coordinate): ``step (round(g / step) + z)``.
    """
    cdef intp_t n = X.shape[1], j
    _lin_node_loss(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized, grad,
                   row_norm, clip)
    if step > 0.0:
        for j in range(n):
            grad[j] = _on_grid(grad[j], step, z[j])
    for j in range(n):
        grad[j] = loss_weight * grad[j]
        if mu != 0.0:
            grad[j] += mu * (dk * theta[k, p, j] - S[j])
        theta[k, p, j] = <floating>(theta[k, p, j] - grad[j] / lipschitz)


cdef intp_t _agd_solve(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double loss_weight, double mu, double dk, const double* S,
    const double* sc, const double* step, double limit, double tol, intp_t max_iter,
    double* grad, double* x, double* yv, double* prev, bint from_start=True,
) noexcept nogil:
    """Accelerated gradient with gradient restart on ``G(theta) = c F_k(theta)
    + (mu / 2)(d_k ||theta||^2 - 2 theta . S)`` (``c = loss_weight``; ``mu =
    0``: ``c F_k``, S unread), from ``theta_k``, steps ``step_j g_j``, until
    ``max_j |sc_j g_j|`` is at most ``limit`` and (``from_start``) at most
    ``tol`` times its value at the start (``limit < 0``: the latter only), or after
    ``max_iter`` iterations (then ``theta_k`` is the last ``x``).  The loop of ``lin_local_solve`` (see there) and of
    ``_lin_block_solve``.  Returns the iterations taken."""
    cdef intp_t n = X.shape[1], j, it = 0
    cdef double t = 1.0, t_next, beta, gmax, uphill, xn
    for j in range(n):
        x[j] = theta[k, p, j]
        yv[j] = x[j]
    while it < max_iter:
        for j in range(n):
            theta[k, p, j] = <floating>yv[j]
        _lin_grad(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized, grad)
        gmax = 0.0
        for j in range(n):
            grad[j] = loss_weight * grad[j]
            if mu != 0.0:
                grad[j] += mu * (dk * yv[j] - S[j])
            if fabs(sc[j] * grad[j]) > gmax:
                gmax = fabs(sc[j] * grad[j])
        if it == 0 and (limit < 0.0 or (from_start and tol * gmax < limit)):
            limit = tol * gmax
        if gmax <= limit:
            for j in range(n):
                x[j] = yv[j]
            break
        uphill = 0.0
        for j in range(n):
            xn = yv[j] - step[j] * grad[j]
            uphill += grad[j] * (xn - x[j])
            prev[j] = x[j]
            x[j] = xn
        it += 1
        if uphill > 0.0:
            t = 1.0
            for j in range(n):
                yv[j] = x[j]
        else:
            t_next = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t))
            beta = (t - 1.0) / t_next
            for j in range(n):
                yv[j] = x[j] + beta * (x[j] - prev[j])
            t = t_next
    for j in range(n):
        theta[k, p, j] = <floating>x[j]
    return it


cdef intp_t _lin_block_solve(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double loss_weight, double mu, double dk, const double* S,
    const double* local_scale, double local_lipschitz, double tol, intp_t max_iter,
    double* grad, double* x, double* yv, double* prev, double* step, double* sc,
    bint from_start=True, double* g0=NULL, bint g0_ready=False, bint prepared=False,
) noexcept nogil:
    """Block solve of node k: ``theta_k`` minimizes its block of the objective.

    ``G(theta) = c F_k(theta) + (mu / 2) (d_k ||theta||^2 - 2 theta . S)``,
    ``c = loss_weight`` and ``S = sum_l w_kl theta_l`` fixed: the terms of
    the objective that hold ``theta_k``, up to a constant.  Its gradient is
    the one ``_lin_node_step`` steps along.  Solved from ``theta_k`` by the
    accelerated gradient with gradient restart of ``lin_local_solve`` in
    Jacobi-preconditioned coordinates: ``D'_j = c D_j + mu d_k`` (``D_j =
    1 / local_scale_j^2``, 0 where ``local_scale_j = 0``, the diagonal bound
    of ``local_preconditioner``), ``sc_j = 1 / sqrt(D'_j)``, and the
    Lipschitz constant in those coordinates bounded (Weyl) by
    ``local_lipschitz max_j r_j + max_j (1 - r_j)``, ``r_j = c D_j / D'_j``
    (the first term bounds ``c sc A sc = sqrt(r) (D^-1/2 A D^-1/2)
    sqrt(r)``).  Stops once ``max_j |sc_j g_j|`` is at most ``tol`` times
    the smaller of its value at the start and at ``theta = 0`` (the start
    alone would make a far-off wake-up solve its block ever more finely;
    every wake-up still divides its block's gradient by ``1 / tol``, so
    more wake-ups keep converging; without ``from_start``, the value at 0
    only: a newcomer's solves, which stop once one starts solved), or
    after ``max_iter`` iterations (``_agd_solve``).  Returns the
    iterations taken.

    Caches (the same bits as without them): with ``prepared``, ``sc`` and
    ``step`` already hold this node's values (they depend only on
    ``local_scale``, ``local_lipschitz``, ``loss_weight``, ``mu`` and
    ``d_k``, constant over a call of ``lin_async`` / the join steps);
    otherwise they are written.  With ``g0`` not NULL, ``g0`` holds
    ``grad F_k(0)`` of problem p when ``g0_ready`` (a function of the node's
    rows only), otherwise it is computed into ``g0``.
    """
    cdef intp_t n = X.shape[1], j
    cdef double Dj, Dp, rmax = 0.0, qmax = 0.0, lip, gmax
    cdef double* ref = grad if g0 == NULL else g0
    if not prepared:
        for j in range(n):
            Dj = 1.0 / (local_scale[j] * local_scale[j]) if local_scale[j] > 0.0 else 0.0
            Dp = loss_weight * Dj + mu * dk
            if Dp > 0.0:
                sc[j] = 1.0 / sqrt(Dp)
                if loss_weight * Dj / Dp > rmax:
                    rmax = loss_weight * Dj / Dp
                if mu * dk / Dp > qmax:
                    qmax = mu * dk / Dp
            else:
                sc[j] = 0.0
        lip = local_lipschitz * rmax + qmax
        if lip < 1e-12:
            lip = 1e-12
        for j in range(n):
            step[j] = sc[j] * sc[j] / lip
    if g0 == NULL or not g0_ready:
        # the reference: the scaled gradient of G at 0
        for j in range(n):
            x[j] = theta[k, p, j]
            theta[k, p, j] = 0
        _lin_grad(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized, ref)
        for j in range(n):
            theta[k, p, j] = <floating>x[j]
    gmax = 0.0
    for j in range(n):
        if fabs(sc[j] * (loss_weight * ref[j] - mu * S[j])) > gmax:
            gmax = fabs(sc[j] * (loss_weight * ref[j] - mu * S[j]))
    return _agd_solve(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized,
                      loss_weight, mu, dk, S, sc, step, tol * gmax, tol, max_iter, grad, x, yv,
                      prev, from_start)


def lin_local(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] theta,         # IN/OUT (n_nodes, P, n_features)
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,)
    const double[::1] lipschitz,       # IN (n_nodes,) L_F of every node's F_k
    double l2,
    intp_t n_penalized,
    double[:, ::1] losses,             # OUT (n_nodes, P)
    intp_t n_steps,
    intp_t node_start,
    intp_t node_end,
    const double[::1] grid_step=None,  # IN (n_nodes,) privacy: grid step of the release
    const int64_t[:, ::1] noise=None,  # IN (n_nodes * n_steps, P * n_features) integers
    const double[::1] row_norm=None,   # IN (n_samples,) ||x_i|| for the clipping
    double clip=0.0,                   # per-sample gradient clip (0: none)
):
    """Purely local models: ``n_steps`` gradient steps ``1 / L_F`` on each F_k.

    With ``grid_step`` every step is private (see ``_lin_node_step``); step
    tau of node k uses row ``k * n_steps + tau`` of ``noise``.
    """
    cdef intp_t n = X.shape[1], P = Y.shape[0], k, p, tau
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] grad = grad_arr
    cdef double dummy = 0.0, step = 0.0
    cdef bint private = grid_step is not None
    cdef const int64_t* z = NULL
    cdef const double* norms = NULL
    if private and noise.shape[0] < offsets.shape[0] * n_steps - n_steps:
        raise ValueError("noise must hold one row per node and step.")
    if clip > 0.0:
        if row_norm is None:
            raise ValueError("clip > 0 needs row_norm.")
        norms = &row_norm[0]
    with nogil:
        for k in range(node_start, node_end):
            if private:
                step = grid_step[k]
            for tau in range(n_steps):
                for p in range(P):
                    if private:
                        z = &noise[k * n_steps + tau, p * n]
                    _lin_node_step(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                   inv_mass[k], l2, n_penalized, 1.0, 0.0, 0.0, &dummy,
                                   lipschitz[k], &grad[0], step, z, norms, clip)
            for p in range(P):
                losses[k, p] = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k,
                                              theta, loss, inv_mass[k], l2, n_penalized, NULL)


def lin_local_solve(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] theta,         # IN/OUT (n_nodes, P, n_features) starting point
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,)
    const double[:, ::1] scale,        # IN (n_nodes, n_features) 1 / sqrt(D_kj), 0 if D_kj = 0
    const double[::1] lipschitz,       # IN (n_nodes,) L of the preconditioned problem
    double l2,
    intp_t n_penalized,
    double[:, ::1] losses,             # OUT (n_nodes, P)
    double tol,
    intp_t max_iter,
    intp_t node_start,
    intp_t node_end,
    intp_t[::1] n_iter,                # OUT (n_nodes,) steps taken, summed over the problems
    intp_t[::1] n_capped=None,         # OUT (n_nodes,) problems stopped at max_iter
):
    """Purely local models solved: preconditioned accelerated gradient on each ``F_k``.

    Nesterov's accelerated gradient with the gradient restart of
    O'Donoghue & Candes (2015), run in the Jacobi-preconditioned
    coordinates ``v_j = sqrt(D_j) theta_j`` (``D_j`` the diagonal curvature
    bound of coordinate j, ``scale[k, j] = 1 / sqrt(D_j)``, and
    ``lipschitz[k]`` a Lipschitz constant of the gradient in those
    coordinates; see ``skfed.boosting._perso_lin.local_preconditioner``)
    and written in ``theta``'s coordinates: from ``theta_k`` (``y = x``,
    ``t = 1``), every iteration evaluates ``g = grad F_k(y)`` and its
    preconditioned form ``h_j = scale_j g_j``; stops with ``theta_k = y``
    once ``max_j |h_j| <= tol * max_j |h0_j|`` (``h0`` at the start), else
    sets ``x+_j = y_j - scale_j^2 g_j / L`` and, when ``g . (x+ - x) > 0``
    (the momentum points uphill), restarts (``y = x+``, ``t = 1``);
    otherwise ``t+ = (1 + sqrt(1 + 4 t^2)) / 2`` and
    ``y = x+ + ((t - 1) / t+) (x+ - x)``.  Rescaling one feature rescales
    its ``D_j`` by the square of the factor, so the iterates (in ``v``),
    the steps and the stopping rule do not change with a feature's scale
    (up to the ``l2`` term, which is not scale invariant).  At most
    ``max_iter`` iterations per problem (then ``theta_k`` is the last
    ``x``, counted in ``n_capped`` when given).  Local computation only:
    nothing is sent, so solving to a tolerance costs no bytes.
    """
    cdef intp_t n = X.shape[1], P = Y.shape[0], k, p, j, it
    if scale.shape[0] < node_end or scale.shape[1] != n:
        raise ValueError("scale must hold one row of n_features per node.")
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    x_arr = np.zeros(max(n, 1), dtype=np.float64)
    y_arr = np.zeros(max(n, 1), dtype=np.float64)
    prev_arr = np.zeros(max(n, 1), dtype=np.float64)
    step_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] grad = grad_arr, x = x_arr, yv = y_arr, prev = prev_arr
    cdef double[::1] step = step_arr
    cdef bint count_capped = n_capped is not None
    with nogil:
        for k in range(node_start, node_end):
            n_iter[k] = 0
            if count_capped:
                n_capped[k] = 0
            for j in range(n):
                step[j] = scale[k, j] * scale[k, j] / lipschitz[k]
            for p in range(P):
                it = _agd_solve(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                inv_mass[k], l2, n_penalized, 1.0, 0.0, 0.0, NULL,
                                &scale[k, 0], &step[0], -1.0, tol, max_iter, &grad[0], &x[0],
                                &yv[0], &prev[0])
                losses[k, p] = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k,
                                              theta, loss, inv_mass[k], l2, n_penalized, NULL)
                n_iter[k] += it
                if count_capped and it == max_iter:
                    n_capped[k] += 1


def lin_async(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] theta,         # IN/OUT (n_nodes, P, n_features)
    floating[:, :, ::1] public,        # IN/OUT (n_nodes, P, n_features)
    double[:, ::1] losses,             # IN/OUT (n_nodes, P)
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,)
    const double[::1] lipschitz,       # IN (n_nodes,) L_F of every node's F_k
    double l2,
    intp_t n_penalized,
    const intp_t[::1] indptr,          # IN graph CSR
    const intp_t[::1] indices,         # IN graph CSR
    const double[::1] weights,         # IN graph CSR
    const double[::1] degree,          # IN (n_nodes,)
    const double[::1] confidence,      # IN (n_nodes,)
    double mu,
    intp_t n_steps,
    uint32_t[::1] clock,               # IN/OUT (1,)
    uint32_t[::1] node_state,          # IN/OUT (n_nodes,) per-node xorshift states
    const uint8_t[::1] offline,        # IN (n_steps,) or (0,)
    const uint8_t[::1] rogue,          # IN (n_nodes,)
    int rogue_mode,                    # 0: negated model, 1: uniform noise of the same scale
    CommCounter counter,
    int64_t payload,                   # bytes of one model message, header excluded
    int64_t budget,
    int64_t spent,
    double objective,
    double[::1] objective_out,         # OUT (n_steps,)
    intp_t[::1] trace_node,            # OUT (n_steps,) or (0,)
    const double[::1] grid_step=None,  # IN (n_nodes,) privacy: grid step of the release
    const int64_t[:, ::1] noise=None,  # IN (n_rows, P * n_features) discrete Gaussian integers
    int64_t[::1] noise_used=None,      # IN/OUT (1,) rows of noise used so far
    const double[::1] row_norm=None,   # IN (n_samples,) ||x_i|| for the clipping
    double clip=0.0,                   # per-sample gradient clip (0: none)
    int64_t[::1] wakeups_left=None,    # IN/OUT (n_nodes,) private steps each node can afford
    int64_t[::1] stopped_at=None,      # IN/OUT (n_nodes,) iteration of the first refused step
    int64_t it_offset=0,               # global index of this call's first iteration
    const double[:, ::1] block_scale=None,   # IN (n_nodes, n_features) block solves
    const double[::1] block_lipschitz=None,  # IN (n_nodes,)
    double block_tol=0.0,
    intp_t block_max_iter=0,
    int64_t[::1] block_iter=None,      # IN/OUT (1,) block-solve iterations so far
    bint block_cache=True,             # reuse each node's preconditioner and gradient at 0
):
    """Asynchronous decentralized block coordinate descent of Perso-lin.

    At each global iteration a node drawn uniformly at random takes a block
    gradient step on its own model (every problem), with step ``1 / L_k``,
    ``L_k = d_k c_k L_F + mu d_k``, and sends its new model to its
    neighbours.  With ``block_scale`` (``local_update="block"``) the waking
    node instead minimizes its block of the objective, its neighbours'
    models fixed (``_lin_block_solve`` with ``local_preconditioner``'s
    ``block_scale[k]`` and ``block_lipschitz[k]``, ``block_tol``,
    ``block_max_iter``): the same message, sent the same way; not with
    privacy (the sensitivity is that of one gradient release).  With
    ``block_cache`` (the default) a node's block preconditioner and its
    problems' gradients at 0 are computed at its first wake-up of the call
    and reused (the same bits; ``False`` recomputes them at every wake-up,
    for the tests).  With ``grid_step`` (privacy) the gradient of ``F_k`` is
    clipped and released on the grid with the next row of ``noise``
    (``_lin_node_step``; every wake-up that steps uses one of
    ``wakeups_left``, so ``min(n_steps, sum(wakeups_left))`` rows suffice),
    and a node whose
    ``wakeups_left`` is 0 does nothing, like an offline node (the first
    such iteration goes to ``stopped_at[k]``, as in ``fw_async``).

    Returns
    -------
    (n_done, n_updates, spent, objective)
    """
    cdef intp_t K = offsets.shape[0] - 1
    cdef intp_t P = Y.shape[0], n = X.shape[1]
    cdef intp_t it, k, p, e, j, n_done = 0, n_updates = 0
    cdef double dk, lw, lip, new_loss, sq_old, dot_old, sq_new, dot_new, scale
    cdef double step = 0.0
    cdef bint private = grid_step is not None
    cdef bint budgeted = wakeups_left is not None
    cdef const int64_t* z = NULL
    cdef const int64_t* row = NULL
    cdef const double* norms = NULL
    if clip > 0.0:
        if row_norm is None:
            raise ValueError("clip > 0 needs row_norm.")
        norms = &row_norm[0]
    if private and (wakeups_left is None or noise_used is None
                    or noise.shape[0] < min(n_steps, int(np.sum(wakeups_left)))):
        raise ValueError("noise must hold min(n_steps, sum(wakeups_left)) rows.")
    cdef bint has_offline = offline.shape[0] > 0
    cdef bint has_trace = trace_node.shape[0] > 0
    cdef bint any_rogue = False
    cdef int64_t header = counter.header_bytes
    for k in range(K):
        if rogue[k]:
            any_rogue = True
    S_arr = np.zeros(max(n, 1), dtype=np.float64)
    St_arr = np.zeros(max(n, 1), dtype=np.float64)
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] S = S_arr
    cdef double[::1] S_true = St_arr
    cdef double[::1] grad = grad_arr
    cdef double* S_obj
    cdef bint block = block_scale is not None
    cdef int64_t n_block = 0
    if block:
        if private or clip > 0.0:
            raise ValueError("block solves are not private: a private fit steps.")
        if block_lipschitz is None or block_scale.shape[0] < K or block_scale.shape[1] != n:
            raise ValueError("block_scale must hold one row of n_features per node, "
                             "with block_lipschitz.")
    bx_arr = np.zeros((5, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] bx = bx_arr
    # Block solves: each node's preconditioner (sc, step) and its problems'
    # gradients at 0, computed at its first wake-up of this call and reused
    # (degree, confidence and mu are fixed for the call; the same bits).
    cdef intp_t KB = K if block and block_cache else 0
    bsc_arr = np.zeros((KB, max(n, 1)), dtype=np.float64)
    bstep_arr = np.zeros((KB, max(n, 1)), dtype=np.float64)
    bg0_arr = np.zeros((KB, P, max(n, 1)), dtype=np.float64)
    bready_arr = np.zeros(KB, dtype=np.uint8)
    cdef double[:, ::1] bsc = bsc_arr
    cdef double[:, ::1] bstep = bstep_arr
    cdef double[:, :, ::1] bg0 = bg0_arr
    cdef uint8_t[::1] bready = bready_arr
    with nogil:
        for it in range(n_steps):
            if budget >= 0 and spent >= budget:
                break
            k = rand_int(K, &clock[0])
            n_done += 1
            if has_trace:
                trace_node[it] = k
            if has_offline and offline[it]:
                objective_out[it] = objective
                counter.end_round()
                continue
            if budgeted:
                if _budget_spent(wakeups_left, stopped_at, k, it_offset + it):
                    objective_out[it] = objective
                    counter.end_round()
                    continue
            if private:
                step = grid_step[k]
                row = &noise[noise_used[0], 0]
                noise_used[0] += 1
            dk = degree[k]
            lw = (dk if dk > 0 else 1.0) * confidence[k]
            lip = lw * lipschitz[k] + mu * dk
            for p in range(P):
                _neighbour_sum(public, p, indptr, indices, weights, k, &S[0], n)
                if any_rogue:
                    _neighbour_sum(theta, p, indptr, indices, weights, k, &S_true[0], n)
                    S_obj = &S_true[0]
                else:
                    S_obj = &S[0]
                sq_old = _reg_terms(theta, k, p, S_obj, n, &dot_old)
                if private:
                    z = row + p * n
                if block:
                    n_block += _lin_block_solve(
                        X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss, inv_mass[k],
                        l2, n_penalized, lw, mu, dk, &S[0], &block_scale[k, 0],
                        block_lipschitz[k], block_tol, block_max_iter, &grad[0], &bx[0, 0],
                        &bx[1, 0], &bx[2, 0], &bstep[k, 0] if block_cache else &bx[3, 0],
                        &bsc[k, 0] if block_cache else &bx[4, 0], True,
                        &bg0[k, p, 0] if block_cache else NULL,
                        block_cache and bready[k] != 0,
                        block_cache and (bready[k] != 0 or p > 0))
                else:
                    _lin_node_step(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                   inv_mass[k], l2, n_penalized, lw, mu, dk, &S[0], lip,
                                   &grad[0], step, z, norms, clip)
                new_loss = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta,
                                          loss, inv_mass[k], l2, n_penalized, NULL)
                sq_new = _reg_terms(theta, k, p, S_obj, n, &dot_new)
                objective += lw * (new_loss - losses[k, p])
                objective += 0.5 * mu * (dk * (sq_new - sq_old) - 2.0 * (dot_new - dot_old))
                losses[k, p] = new_loss
                if rogue[k] and rogue_mode == 1:
                    scale = 0.0
                    for j in range(n):
                        if fabs(theta[k, p, j]) > scale:
                            scale = fabs(theta[k, p, j])
                    if scale == 0.0:
                        scale = 1.0
                    for j in range(n):
                        public[k, p, j] = <floating>rand_uniform(-scale, scale, &node_state[k])
                else:
                    for j in range(n):
                        if rogue[k]:
                            public[k, p, j] = -theta[k, p, j]
                        else:
                            public[k, p, j] = theta[k, p, j]
            if block and block_cache:
                bready[k] = 1
            n_updates += 1
            for e in range(indptr[k], indptr[k + 1]):
                counter.send(k, indices[e], payload)
            spent += (indptr[k + 1] - indptr[k]) * (payload + header)
            objective_out[it] = objective
            counter.end_round()
    if block_iter is not None:
        block_iter[0] += n_block
    return n_done, n_updates, spent, objective


# ------------------------------------------------------------------ joining
# A node that joins after the fit (issue 32) learns alone: its neighbours'
# models and weights are fixed, so its part of eq. 1 is a function of its
# own model only, and its row of the graph objective (eq. 5 of skfed.graph)
# a function of its own weights only.

cdef inline double _join_weight(double a, double u, double e, double lam) noexcept nogil:
    """Minimizer over v >= 0 of ``a v + lam v^2 - u v - log(e + v)``.

    The stationarity condition ``(c + 2 lam v)(e + v) = 1``, ``c = a - u``,
    has one positive root when ``c e < 1`` (the derivative at 0 is negative),
    written without cancellation; otherwise the minimizer is 0.
    """
    cdef double c = a - u, b
    if c * e >= 1.0:
        return 0.0
    b = c - 2.0 * lam * e
    return 2.0 * (1.0 - c * e) / (c + 2.0 * lam * e + (b * b + 8.0 * lam) ** 0.5)


def graph_row(
    const double[::1] a,               # IN (q,) linear coefficient of each candidate pair
    const double[::1] d,               # IN (q,) the candidates' degrees (fixed edges)
    double d0,                         # IN the joining node's degree over fixed edges
    double mu_graph,
    double lam,
    double delta,
    double[::1] out,                   # OUT (q,) the weights
):
    """Exact minimizer of one node's row of the graph objective.

    With every other weight fixed, node k's weights ``v_r = w_k,l_r`` toward
    its ``q`` candidates minimize::

        phi(v) = sum_r a_r v_r + mu_graph (lam sum_r v_r^2 - log(D + delta)
                                           - sum_r log(d_r + v_r + delta)),

    ``D = d0 + sum_r v_r``, over ``v >= 0`` (``a_r = l_k + l_r + (mu / 2)
    z_kr`` plus peer scores; ``d_r`` the candidates' degrees).  Given D, each
    ``v_r`` minimizes a strictly convex scalar function in closed form
    (``_join_weight`` with ``u = 1 / (D + delta)``) and decreases with D, so
    the optimal D is the unique fixed point of ``D = d0 + sum_r v_r(D)``,
    found by bisection to a relative 1e-15.  Returns the number of bisection
    steps.
    """
    cdef intp_t q = a.shape[0], r, it = 0
    cdef double lo = d0, hi, mid, total, u
    cdef double lam_g = lam, inv_mu = 1.0 / mu_graph
    with nogil:
        u = 1.0 / (lo + delta)
        hi = d0
        for r in range(q):
            hi += _join_weight(a[r] * inv_mu, u, d[r] + delta, lam_g)
        # F(D) - D decreases from F(lo) - lo >= 0 to F(hi) - hi <= 0.
        while it < 200 and hi - lo > 1e-15 * hi:
            mid = 0.5 * (lo + hi)
            u = 1.0 / (mid + delta)
            total = d0
            for r in range(q):
                total += _join_weight(a[r] * inv_mu, u, d[r] + delta, lam_g)
            if total > mid:
                lo = mid
            else:
                hi = mid
            it += 1
        u = 1.0 / (hi + delta)
        for r in range(q):
            out[r] = _join_weight(a[r] * inv_mu, u, d[r] + delta, lam_g)
    return it


def fw_join(
    const floating[:, ::1] H,          # IN (m, n_base) the joining node's samples
    const floating[:, ::1] Y,          # IN (P, m), +-1
    const floating[::1] sw,            # IN (m,)
    floating[:, :, ::1] alpha,         # IN/OUT (1, P, n_base) its model
    double[:, ::1] margins,            # IN/OUT (P, m)
    double[::1] losses,                # OUT (P,)
    const double[:, ::1] S,            # IN (P, n_base) sum_l w_kl alpha_l, neighbours fixed
    double dk,                         # IN its degree
    double confidence,                 # IN c_k
    double beta,
    double mu,
    intp_t tau_start,                  # its steps done so far
    intp_t n_steps,
    double unit=0.0,                   # privacy: quality grid step per unit loss weight
    uint64_t scale=0,                  # integer scale of the private choices (0: exact)
    BitStream stream=None,
):
    """Frank-Wolfe steps of one node on its block of eq. 1, neighbours fixed.

    Step tau (counting ``tau_start``) moves alpha toward the vertex of
    ``g = -d_k c_k A_k^T eta + mu (d_k alpha - S)`` with ``gamma = 2 / (tau
    + 2)`` (the step of a node's tau-th wake-up in ``fw_async``: ``2 K / (t
    + 2 K)`` at ``t ~ tau K``).  A node of degree 0 weighs its loss by 1.
    With ``scale > 0`` the vertex is drawn by the exponential mechanism on
    qualities of grid step ``unit d_k c_k`` (as in ``fw_async``).
    """
    cdef intp_t n = H.shape[1], P = Y.shape[0], m = H.shape[0], tau, p, j
    cdef double s, loss, lw = (dk if dk > 0 else 1.0) * confidence
    cdef double u = unit * lw
    cdef uint64_t sc = scale if (scale > 0 and stream is not None) else 0
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    coef_arr = np.zeros(max(m, 1), dtype=np.float64)
    quality_arr = np.zeros(max(2 * n, 1), dtype=np.int64)
    cdef double[::1] grad = grad_arr
    cdef double[::1] coef = coef_arr
    cdef int64_t[::1] quality = quality_arr
    with nogil:
        for tau in range(tau_start, tau_start + n_steps):
            for p in range(P):
                _fw_node(H, Y, sw, 0, m, p, 0, alpha, margins, lw, mu, dk, &S[p, 0], beta,
                         2.0 / (tau + 2.0), &grad[0], &coef[0], &j, &s, &loss, u, sc,
                         stream, &quality[0])
                losses[p] = loss
    if sc > 0:
        stream.check()
    return None


def lin_join(
    const floating[:, ::1] X,          # IN (m, n_features) the joining node's samples
    const floating[:, ::1] Y,          # IN (P, m)
    const floating[::1] sw,            # IN (m,)
    floating[:, :, ::1] theta,         # IN/OUT (1, P, n_features) its model
    double[::1] losses,                # OUT (P,) F_k after the steps
    LossFunction loss,
    double inv_mass,
    double lipschitz,                  # L_F of its F_k
    double l2,
    intp_t n_penalized,
    const double[:, ::1] S,            # IN (P, n_features) sum_l w_kl theta_l, fixed
    double dk,
    double confidence,
    double mu,
    intp_t n_steps,
    double grid_step=0.0,              # privacy: grid step of the releases (0: exact)
    const int64_t[:, ::1] noise=None,  # IN (n_steps, P * n_features) discrete Gaussian integers
    const double[::1] row_norm=None,   # IN (m,) ||x_i|| for the clipping
    double clip=0.0,
    const double[::1] block_scale=None,  # IN (n_features,) block solves (see lin_async)
    double block_lipschitz=1.0,
    double block_tol=0.0,
    intp_t block_max_iter=0,
    bint block_cache=True,             # reuse the preconditioner and gradients at 0
):
    """Block gradient steps of one node on its part of Perso-lin's objective.

    With ``block_scale`` each step is a block solve instead
    (``_lin_block_solve``, as a wake-up of ``lin_async`` with
    ``local_update="block"``); a solve that starts at its tolerance ends the
    steps (the neighbours are fixed: every later solve would stay there).

    Each step is ``theta -= g / L`` with ``g = d_k c_k grad F_k(theta) + mu
    (d_k theta - S)`` and ``L = d_k c_k L_F + mu d_k`` (a node of degree 0
    weighs its loss by 1), the neighbours' models fixed: the step of a
    wake-up in ``lin_async``.  With ``grid_step > 0`` the gradient of F_k is
    clipped and released on the grid with row tau of ``noise``.
    """
    cdef intp_t n = X.shape[1], P = Y.shape[0], m = X.shape[0], tau, p
    cdef double lw = (dk if dk > 0 else 1.0) * confidence
    cdef double lip = lw * lipschitz + mu * dk
    cdef bint private = grid_step > 0.0
    cdef const int64_t* z = NULL
    cdef const double* norms = NULL
    if private and (noise is None or noise.shape[0] < n_steps):
        raise ValueError("noise must hold one row per step.")
    if clip > 0.0:
        if row_norm is None:
            raise ValueError("clip > 0 needs row_norm.")
        norms = &row_norm[0]
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] grad = grad_arr
    cdef bint block = block_scale is not None
    cdef intp_t moved
    if block and (private or clip > 0.0):
        raise ValueError("block solves are not private: a private join steps.")
    if block and block_scale.shape[0] != n:
        raise ValueError("block_scale must hold n_features values.")
    bx_arr = np.zeros((5, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] bx = bx_arr
    # the preconditioner and the gradients at 0, from the first solve on
    bg0_arr = np.zeros((P if block and block_cache else 0, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] bg0 = bg0_arr
    with nogil:
        for tau in range(n_steps):
            if block:
                moved = 0
                for p in range(P):
                    moved += _lin_block_solve(
                        X, Y, sw, 0, m, p, 0, theta, loss, inv_mass, l2, n_penalized, lw, mu,
                        dk, &S[p, 0], &block_scale[0], block_lipschitz, block_tol,
                        block_max_iter, &grad[0], &bx[0, 0], &bx[1, 0], &bx[2, 0], &bx[3, 0],
                        &bx[4, 0], False, &bg0[p, 0] if block_cache else NULL,
                        block_cache and tau > 0, block_cache and (tau > 0 or p > 0))
                if moved == 0:
                    break
                continue
            for p in range(P):
                if private:
                    z = &noise[tau, p * n]
                _lin_node_step(X, Y, sw, 0, m, p, 0, theta, loss, inv_mass, l2, n_penalized,
                               lw, mu, dk, &S[p, 0], lip, &grad[0], grid_step, z, norms, clip)
        for p in range(P):
            losses[p] = _lin_node_loss(X, Y, sw, 0, m, p, 0, theta, loss, inv_mass, l2,
                                       n_penalized, NULL)
    return None
