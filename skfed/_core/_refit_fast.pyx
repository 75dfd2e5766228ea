# Pairwise Frank-Wolfe for the block problem of a private Dada node's kept
# model (skfed/_private_refit.py):
#
#   min_a  log sum_i exp(-[A a]_i) + mu/2 ||a - prior||^2   s.t. ||a||_1 <= beta
#
# ``a`` is held as a convex combination of the l1 ball's vertices +-beta e_j
# (weights w_j for +e_j and w_{n+j} for -e_j).  Each step moves weight from the
# "away" vertex (the used vertex the gradient likes least) to the Frank-Wolfe
# vertex (the one it likes most), by the step minimizing the objective on that
# segment (safeguarded Newton on the convex one-dimensional problem); a step
# that empties the away vertex drops it.  Pairwise steps converge linearly on
# polytopes where plain Frank-Wolfe's 2 / (t + 2) steps zigzag toward a
# solution inside a face (Lacoste-Julien and Jaggi, NeurIPS 2015).  A problem
# stops when its Frank-Wolfe duality gap, an upper bound on its distance to the
# minimum, falls below ``tol * (1 + mu * beta)``.

from libc.math cimport exp, fabs

import numpy as np


cdef double _slope(double[::1] margins, double[::1] dm,
                   double mu, double rd, double dd, double g, double* curv) noexcept nogil:
    """Derivative (and second derivative in ``curv``) in g of the objective at
    margins + g dm; ``rd`` = (a - prior) . d and ``dd`` = d . d."""
    cdef Py_ssize_t i, m = margins.shape[0]
    cdef double zmax = -(margins[0] + g * dm[0])
    cdef double z, total = 0.0, mean = 0.0, second = 0.0, var
    for i in range(1, m):
        z = -(margins[i] + g * dm[i])
        if z > zmax:
            zmax = z
    for i in range(m):
        z = exp(-(margins[i] + g * dm[i]) - zmax)
        total += z
        mean += z * dm[i]
        second += z * dm[i] * dm[i]
    mean /= total
    var = second / total - mean * mean
    if var < 0.0:
        var = 0.0
    curv[0] = var + mu * dd
    return -mean + mu * (rd + g * dd)


cdef double _line_search(double[::1] margins, double[::1] dm, double mu, double rd, double dd) noexcept nogil:
    """Step in [0, 1] minimizing the objective on the segment."""
    cdef double curv, slope, lo = 0.0, hi = 1.0, g = 0.0, nxt
    cdef int it
    if _slope(margins, dm, mu, rd, dd, 1.0, &curv) <= 0.0:
        return 1.0
    for it in range(60):
        slope = _slope(margins, dm, mu, rd, dd, g, &curv)
        if slope > 0.0:
            hi = g
        else:
            lo = g
        nxt = g - slope / curv if curv > 0.0 else -1.0
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        if fabs(nxt - g) <= 1e-12 or hi - lo <= 1e-12:
            return nxt
        g = nxt
    return g


def pairwise_frank_wolfe(const double[:, ::1] A, const double[:, ::1] priors,
                         const double[::1] mus, const double[::1] betas,
                         double tol, int max_steps):
    """Solve every candidate's problem; returns ``(alpha, steps, converged)``.

    ``alpha`` (n_candidates, n_base) the solutions, ``steps`` the number of
    steps each took, ``converged`` whether each stopped on its gap (False:
    it stopped on the ``max_steps`` cap with its gap above ``tol``; a gap met
    at exactly ``max_steps`` steps counts as converged).
    """
    cdef Py_ssize_t m = A.shape[0], n = A.shape[1], n_cand = priors.shape[0]
    alpha_arr = np.zeros((n_cand, n))
    steps_arr = np.zeros(n_cand, dtype=np.intp)
    converged_arr = np.zeros(n_cand, dtype=np.uint8)
    cdef double[:, ::1] alpha = alpha_arr
    cdef Py_ssize_t[::1] steps = steps_arr
    cdef unsigned char[::1] converged = converged_arr
    cdef double[::1] weight = np.empty(2 * n)
    cdef double[::1] margins = np.empty(m)
    cdef double[::1] dm = np.empty(m)
    cdef double[::1] e = np.empty(m)
    cdef double[::1] grad = np.empty(n)
    cdef Py_ssize_t c, i, j, k, t, j_to, j_aw, k_to, k_aw
    cdef double mu, beta, zmax, total, gap, best, value, room, s_to, s_aw
    cdef double d_to, d_aw, rd, dd, g, moved
    with nogil:
        for c in range(n_cand):
            mu = mus[c]
            beta = betas[c]
            for k in range(2 * n):
                weight[k] = 0.0
            weight[0] = 0.5
            weight[n] = 0.5
            for i in range(m):
                margins[i] = 0.0
            t = 0
            while True:
                zmax = -margins[0]
                for i in range(1, m):
                    if -margins[i] > zmax:
                        zmax = -margins[i]
                total = 0.0
                for i in range(m):
                    e[i] = exp(-margins[i] - zmax)
                    total += e[i]
                gap = 0.0
                best = -1.0
                j_to = 0
                for j in range(n):
                    value = 0.0
                    for i in range(m):
                        value += e[i] * A[i, j]
                    grad[j] = -value / total + mu * (alpha[c, j] - priors[c, j])
                    gap += grad[j] * alpha[c, j]
                    if fabs(grad[j]) > best:
                        best = fabs(grad[j])
                        j_to = j
                gap += beta * best
                if gap <= tol * (1.0 + mu * beta):
                    converged[c] = 1
                    break
                if t >= max_steps:
                    break
                t += 1
                # Frank-Wolfe vertex -sign(grad) beta e_j, away vertex: the used
                # vertex with the largest grad . v
                k_to = j_to + n if grad[j_to] > 0.0 else j_to
                s_to = -1.0 if grad[j_to] > 0.0 else 1.0
                best = 0.0
                k_aw = -1
                for k in range(2 * n):
                    if weight[k] > 0.0:
                        value = grad[k] if k < n else -grad[k - n]
                        if k_aw < 0 or value > best:
                            best = value
                            k_aw = k
                j_aw = k_aw if k_aw < n else k_aw - n
                s_aw = 1.0 if k_aw < n else -1.0
                room = weight[k_aw]
                d_to = beta * room * s_to
                d_aw = -beta * room * s_aw
                for i in range(m):
                    dm[i] = d_to * A[i, j_to] + d_aw * A[i, j_aw]
                if j_to == j_aw:
                    rd = (alpha[c, j_to] - priors[c, j_to]) * (d_to + d_aw)
                    dd = (d_to + d_aw) * (d_to + d_aw)
                else:
                    rd = ((alpha[c, j_to] - priors[c, j_to]) * d_to
                          + (alpha[c, j_aw] - priors[c, j_aw]) * d_aw)
                    dd = d_to * d_to + d_aw * d_aw
                g = _line_search(margins, dm, mu, rd, dd)
                moved = g * room
                weight[k_to] += moved
                weight[k_aw] = 0.0 if g >= 1.0 else weight[k_aw] - moved
                alpha[c, j_to] = beta * (weight[j_to] - weight[j_to + n])
                alpha[c, j_aw] = beta * (weight[j_aw] - weight[j_aw + n])
                for i in range(m):
                    margins[i] += g * dm[i]
            steps[c] = t
    return alpha_arr, steps_arr, converged_arr.astype(bool)
