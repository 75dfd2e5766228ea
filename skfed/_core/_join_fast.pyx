# Batched kernels of a Perso-lin join (``skfed._graph_join``): every newcomer
# of one ``add_nodes`` call in one call, with the fitted nodes' models fixed.
#
# A newcomer n is independent of the others given its candidates (their
# models, losses and degrees are answers it received) and, between two
# synchronous blocks, given its peers' models.  So the per-node steps of the
# join -- its row of the graph objective (eq. 5 of ``skfed.graph``) and its
# gradient steps on its block of eq. 1 -- are loops over the newcomers here,
# each the computation of ``_boosting_fast.graph_row`` (the same root, found
# by safeguarded Newton steps instead of bisection: see ``_solve_row``) and
# exactly that of ``_perso_lin_fast.lin_join`` for that one node, without a
# Python call (and its argument checks and allocations) per node.
#
# Candidates of all newcomers are stored back to back: those of newcomer k
# are rows ``indptr[k]:indptr[k + 1]`` of every candidate array.
#
# Python allocates every array and validates every argument; these functions
# only compute.  ``# IN`` arrays are read, ``# IN/OUT`` arrays are updated in
# place, ``# OUT`` arrays are written.

from libc.math cimport fabs
from libc.stdlib cimport free, malloc
from cython cimport floating

import numpy as np

from ._boosting_base cimport LossFunction
from ._perso_lin_fast cimport _lin_block_solve, _lin_grad, _lin_node_loss
from ._typedefs cimport intp_t


# ------------------------------------------------------------ graph rows
cdef inline double _pair_weight(double c, double e, double lam) noexcept nogil:
    """Minimizer over v >= 0 of ``c v + lam v^2 - log(e + v)`` (``c`` the
    linear coefficient net of the degree term): the positive root of
    ``(c + 2 lam v)(e + v) = 1`` when ``c e < 1``, else 0."""
    cdef double b
    if c * e >= 1.0:
        return 0.0
    b = c - 2.0 * lam * e
    return 2.0 * (1.0 - c * e) / (c + 2.0 * lam * e + (b * b + 8.0 * lam) ** 0.5)


cdef double _row_total(const double* a, const double* d, const intp_t* idx, intp_t q,
                       double inv_mu, double D, double lam, double delta,
                       double* out) noexcept nogil:
    """``sum_r v_r(D)`` over candidates ``idx[:q]`` (writing each ``v_r`` into
    ``out[idx[r]]`` when ``out`` is not NULL)."""
    cdef double u = 1.0 / (D + delta), total = 0.0, v
    cdef intp_t r
    for r in range(q):
        v = _pair_weight(a[idx[r]] * inv_mu - u, d[idx[r]] + delta, lam)
        total += v
        if out != NULL:
            out[idx[r]] = v
    return total


cdef double _row_slope(const double* a, const double* d, const intp_t* idx, intp_t q,
                       double inv_mu, double D, double lam, double delta,
                       double* slope) noexcept nogil:
    """``sum_r v_r(D)`` over candidates ``idx[:q]`` and its derivative in D
    (into ``slope``): a positive ``v_r`` solves ``c + 2 lam v = 1 / (e + v)``
    with ``c = a_r / mu - 1 / (D + delta)``, so ``dv_r / dD = -(1 / (D +
    delta)^2) / (2 lam + 1 / (e + v_r)^2)``; a zero one stays zero nearby."""
    cdef double u = 1.0 / (D + delta), total = 0.0, deriv = 0.0, v, ev
    cdef intp_t r
    for r in range(q):
        ev = d[idx[r]] + delta
        v = _pair_weight(a[idx[r]] * inv_mu - u, ev, lam)
        total += v
        if v > 0.0:
            ev = ev + v
            deriv -= 1.0 / (2.0 * lam + 1.0 / (ev * ev))
    slope[0] = deriv * u * u
    return total


cdef void _solve_row(const double* a, const double* d, const intp_t* idx, intp_t q,
                     double mu_graph, double lam, double delta, double* out) noexcept nogil:
    """Exact minimizer of a node's row over candidates ``idx[:q]`` (weights
    written to ``out[idx[r]]``; the others untouched):

        sum_r a_r v_r + mu_graph (lam sum_r v_r^2 - log(D + delta)
                                  - sum_r log(d_r + v_r + delta)),  D = sum_r v_r.

    Given D every ``v_r`` is in closed form and decreases with D; D is the
    root of ``f(D) = sum_r v_r(D) - D`` (decreasing) in ``[0, sum_r
    v_r(0)]``, found by Newton steps kept inside a shrinking bracket (a step
    that leaves it halves the bracket instead) to a relative 1e-15 (at most
    200 steps).  The fit's ``graph_row`` bisects the same root; Newton takes
    a median 8 evaluations of the row instead of 65 (random rows of 80
    candidates, at most 22 against 74).
    """
    cdef double inv_mu = 1.0 / mu_graph, lo = 0.0, hi, D, f, slope, step
    cdef intp_t it = 0
    hi = _row_total(a, d, idx, q, inv_mu, lo, lam, delta, NULL)
    D = hi
    while it < 200 and hi - lo > 1e-15 * hi:
        f = _row_slope(a, d, idx, q, inv_mu, D, lam, delta, &slope) - D
        if f > 0.0:
            lo = D
        elif f < 0.0:
            hi = D
        else:
            lo = D
            hi = D
            break
        step = f / (1.0 - slope)          # Newton: D - f / f', f' = slope - 1 < 0
        if fabs(step) <= 1e-16 * D:
            hi = D
            break
        D = D + step
        if not (lo < D < hi):
            D = 0.5 * (lo + hi)
        it += 1
    _row_total(a, d, idx, q, inv_mu, hi, lam, delta, out)


def join_rows(
    const double[:, ::1] node_models,   # IN (n_new, D) each newcomer's flattened model
    const double[::1] node_losses,      # IN (n_new,) its confidence-weighted loss l_n
    const double[:, ::1] cand_models,   # IN (T, D) the candidates' models, back to back
    const double[::1] cand_losses,      # IN (T,) their losses l_r
    const double[::1] cand_degrees,     # IN (T,) their degrees d_r (fixed edges)
    const intp_t[::1] indptr,           # IN (n_new + 1,)
    double mu,
    double mu_graph,
    double lam,
    double delta,
    intp_t cap,                         # max_neighbors (-1: none)
    double threshold,                   # sparsify threshold t (< 0: none)
    double[::1] out,                    # OUT (T,) every newcomer's weights
):
    """Every newcomer's row of the graph objective toward its candidates.

    For newcomer n and its candidates r: ``a_r = l_n + l_r + (mu / 2)
    ||alpha_n - alpha_r||^2``, the row solved exactly (``_solve_row``);
    with ``cap >= 0`` and more than ``cap`` positive weights, the ``cap``
    positive ones of the smallest ``(mu / 2) z_nr`` (first index on ties)
    are kept and the row is solved again on them; with ``threshold >= 0``
    the weights below ``min(threshold, max_r v_r)`` are set to 0.  With
    ``mu_graph <= 0`` every weight is 0.
    """
    cdef intp_t n_new = node_models.shape[0], D = node_models.shape[1]
    cdef intp_t T = cand_models.shape[0], k, r, s, j, q, start, n_pos, key_i
    cdef double z, dot, xx, top, cut, key_p
    cdef double* a = <double*> malloc(max(T, 1) * sizeof(double))
    cdef double* pair = <double*> malloc(max(T, 1) * sizeof(double))
    cdef intp_t* idx = <intp_t*> malloc(max(T, 1) * sizeof(intp_t))
    if a == NULL or pair == NULL or idx == NULL:
        free(a); free(pair); free(idx)
        raise MemoryError()
    try:
        with nogil:
            for r in range(T):
                out[r] = 0.0
            if mu_graph > 0.0:
                for k in range(n_new):
                    start, q = indptr[k], indptr[k + 1] - indptr[k]
                    if q == 0:
                        continue
                    xx = 0.0
                    for j in range(D):
                        xx += node_models[k, j] * node_models[k, j]
                    for r in range(start, start + q):
                        z = 0.0
                        dot = 0.0
                        for j in range(D):
                            z += cand_models[r, j] * cand_models[r, j]
                            dot += cand_models[r, j] * node_models[k, j]
                        z = z - 2.0 * dot + xx
                        if z < 0.0:
                            z = 0.0
                        pair[r] = 0.5 * mu * z
                        a[r] = node_losses[k] + cand_losses[r] + pair[r]
                        idx[r - start] = r
                    _solve_row(a, &cand_degrees[0], idx, q, mu_graph, lam, delta, &out[0])
                    if cap >= 0:
                        n_pos = 0
                        for r in range(start, start + q):
                            if out[r] > 0.0:
                                idx[n_pos] = r
                                n_pos += 1
                        if n_pos > cap:
                            # stable insertion sort of the positive ones by pair
                            for s in range(1, n_pos):
                                key_i, key_p = idx[s], pair[idx[s]]
                                j = s - 1
                                while j >= 0 and pair[idx[j]] > key_p:
                                    idx[j + 1] = idx[j]
                                    j -= 1
                                idx[j + 1] = key_i
                            for r in range(start, start + q):
                                out[r] = 0.0
                            # the kept ones in index order (the re-solve's sums)
                            for s in range(1, cap):
                                key_i = idx[s]
                                j = s - 1
                                while j >= 0 and idx[j] > key_i:
                                    idx[j + 1] = idx[j]
                                    j -= 1
                                idx[j + 1] = key_i
                            _solve_row(a, &cand_degrees[0], idx, cap, mu_graph, lam, delta,
                                       &out[0])
                    if threshold >= 0.0:
                        top = 0.0
                        for r in range(start, start + q):
                            if out[r] > top:
                                top = out[r]
                        if top > 0.0:
                            cut = threshold if threshold < top else top
                            for r in range(start, start + q):
                                if out[r] < cut:
                                    out[r] = 0.0
    finally:
        free(a)
        free(pair)
        free(idx)


# ------------------------------------------------------------ model steps
def lin_join_steps(
    const floating[:, ::1] X,          # IN (n_samples, n_features) the newcomers' samples
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_new + 1,) newcomer k's samples
    floating[:, :, ::1] theta,         # IN/OUT (n_new, P, n_features) their models
    double[:, ::1] losses,             # OUT (n_new, P) F_n after the steps
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_new,)
    const double[::1] lipschitz,       # IN (n_new,) L_F of every F_n
    double l2,
    intp_t n_penalized,
    const double[:, :, ::1] S,         # IN (n_new, P, n_features) sum_r w_nr theta_r, fixed
    const double[::1] degree,          # IN (n_new,) d_n
    const double[::1] confidence,      # IN (n_new,) c_n
    double mu,
    intp_t n_steps,
    const double[:, ::1] block_scale=None,  # IN (n_new, n_features) block solves
    const double[::1] block_lipschitz=None,  # IN (n_new,)
    double block_tol=0.0,
    intp_t block_max_iter=0,
    bint block_cache=True,             # reuse a newcomer's preconditioner and gradients at 0
):
    """``n_steps`` block gradient steps of every newcomer, neighbours fixed.

    With ``block_scale`` every step is a block solve instead (``lin_join``'s
    rule: a solve that starts at its tolerance ends that newcomer's steps;
    ``block_cache`` as there).

    Newcomer n's step is ``theta -= g / L``, ``g = d_n c_n grad F_n(theta)
    + mu (d_n theta - S_n)``, ``L = d_n c_n L_F + mu d_n`` (a newcomer of
    degree 0 weighs its loss by 1): ``lin_join`` of each newcomer in turn.
    """
    cdef intp_t n_new = theta.shape[0], P = theta.shape[1], n = theta.shape[2]
    cdef intp_t k, p, tau, j
    cdef double lw, lip, dk, g
    cdef bint block = block_scale is not None
    cdef intp_t moved
    if block and (block_lipschitz is None or block_scale.shape[0] < n_new
                  or block_scale.shape[1] != n):
        raise ValueError("block_scale must hold one row of n_features per newcomer, "
                         "with block_lipschitz.")
    cdef double* grad = <double*> malloc(max(n, 1) * 6 * sizeof(double))
    if grad == NULL:
        raise MemoryError()
    # a newcomer's preconditioner and gradients at 0, from its first solve on
    bg0_arr = np.zeros((P if block and block_cache else 0, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] bg0 = bg0_arr
    try:
        with nogil:
            for k in range(n_new):
                dk = degree[k]
                lw = (dk if dk > 0 else 1.0) * confidence[k]
                lip = lw * lipschitz[k] + mu * dk
                for tau in range(n_steps):
                    if block:
                        moved = 0
                        for p in range(P):
                            moved += _lin_block_solve(
                                X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                inv_mass[k], l2, n_penalized, lw, mu, dk, &S[k, p, 0],
                                &block_scale[k, 0], block_lipschitz[k], block_tol,
                                block_max_iter, grad, grad + n, grad + 2 * n, grad + 3 * n,
                                grad + 4 * n, grad + 5 * n, False,
                                &bg0[p, 0] if block_cache else NULL, block_cache and tau > 0,
                                block_cache and (tau > 0 or p > 0))
                        if moved == 0:
                            break
                        continue
                    for p in range(P):
                        _lin_grad(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                  inv_mass[k], l2, n_penalized, grad)
                        for j in range(n):
                            g = lw * grad[j]
                            if mu != 0.0:
                                g = g + mu * (dk * theta[k, p, j] - S[k, p, j])
                            theta[k, p, j] = <floating>(theta[k, p, j] - g / lip)
                for p in range(P):
                    losses[k, p] = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p,
                                                  k, theta, loss, inv_mass[k], l2,
                                                  n_penalized, NULL)
    finally:
        free(grad)


# ------------------------------------------------------------ the fitted graph
cdef intp_t _root(intp_t* parent, intp_t i) noexcept nogil:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def forest_threshold(
    const intp_t[::1] rows,            # IN (n_edges,) edges in decreasing weight
    const intp_t[::1] cols,            # IN (n_edges,)
    const double[::1] weights,         # IN (n_edges,) decreasing
    intp_t n_nodes,
):
    """The smallest weight of a maximum spanning forest (Kruskal's).

    Edges are taken in the given (decreasing) order; one that joins two
    components enters the forest, so the last one to enter has the smallest
    weight of the forest: the largest threshold whose edges keep the
    graph's components (``skfed.graph.connected_threshold``).  0.0 without
    edges.  The forest's smallest weight is the same for every maximum
    spanning forest, whatever the order among equal weights.
    """
    cdef intp_t n_edges = rows.shape[0], e, a, b, joined = 0
    cdef double last = 0.0
    cdef intp_t* parent = <intp_t*> malloc(max(n_nodes, 1) * sizeof(intp_t))
    if parent == NULL:
        raise MemoryError()
    try:
        with nogil:
            for a in range(n_nodes):
                parent[a] = a
            for e in range(n_edges):
                a = _root(parent, rows[e])
                b = _root(parent, cols[e])
                if a != b:
                    parent[a] = b
                    last = weights[e]
                    joined += 1
                    if joined == n_nodes - 1:
                        break
    finally:
        free(parent)
    return last


def csr_times_dense(
    const intp_t[::1] indptr,          # IN (n_rows + 1,) a CSR matrix A
    const intp_t[::1] indices,         # IN (nnz,)
    const double[::1] data,            # IN (nnz,)
    const double[:, ::1] B,            # IN (n_columns of A, D)
    double[:, ::1] out,                # OUT (n_rows, D) A @ B
):
    """``A @ B`` of a CSR matrix and a dense one, summed as SciPy's
    ``csr_matvecs`` sums it (each row from zero, its entries in their
    stored order, explicit zeros included): the same bits, without
    building a sparse matrix object per product (the join's sums of its
    neighbours' models, ``sum_r w_nr theta_r``)."""
    cdef intp_t n_rows = out.shape[0], D = out.shape[1], i, jj, j, c
    cdef double a
    with nogil:
        for i in range(n_rows):
            for c in range(D):
                out[i, c] = 0.0
            for jj in range(indptr[i], indptr[i + 1]):
                j = indices[jj]
                a = data[jj]
                for c in range(D):
                    out[i, c] += a * B[j, c]
