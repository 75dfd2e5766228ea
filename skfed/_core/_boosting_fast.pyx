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
#
# The margin losses of the Perso-lin models and the parts both families share
# are in ``_boosting_base``, Perso-lin's solvers in ``_perso_lin_fast`` (both
# re-exported here).

from libc.math cimport exp, floor, log, log1p, fabs, rint, sqrt, INFINITY
from cython cimport floating
from scipy.linalg.cython_blas cimport dgemv

import numpy as np

from ._boosting_base cimport _budget_spent, _neighbour_sum, _reg_terms
from ._comm cimport CommCounter
from ._random cimport rand_int, rand_uniform
from ._secure_noise cimport BitStream, exponential_choice
from ._typedefs cimport int64_t, intp_t, uint8_t, uint32_t
from libc.stdint cimport uint64_t

# (re-exported: the loss classes and Perso-lin's solvers live in their own
# modules since issue 30's split; imports and pickles that name them here
# keep working)
from ._boosting_base import LossFunction, Logistic, SquaredHinge
from ._perso_lin_fast import lin_async, lin_join, lin_local, lin_local_solve, lin_losses



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
