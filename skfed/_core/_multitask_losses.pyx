# The losses of federated kernel multi-task learning (kernelized MOCHA), for
# the node solvers of ``_multitask_fast``: each loss's value, its convex
# conjugate and one coordinate step of the dual subproblem (see the notation
# at the top of ``_multitask_fast``), and the multinomial loss's joint step.
# Split from ``_multitask_fast`` (issue 30: no module over 1,000 lines),
# which re-exports every class here, so imports and pickles that name them
# there keep working; the solvers cimport them through
# ``_multitask_losses.pxd``.

from libc.math cimport exp, fabs, log, log1p, INFINITY, NAN

import numpy as np

from ._typedefs cimport intp_t


# ------------------------------------------------------------------- losses
cdef class MultiTaskLoss:
    """A loss ``l(z, y)``, its convex conjugate at ``-g`` and one dual step.

    ``g`` is the dual variable per unit sample weight; for the
    classification losses ``g = y a`` with ``a >= 0``.  ``step(g, p, y, q)``
    returns the maximiser over ``g'`` of::

        -l*(-g') - (g' - g) p - (q / 2) (g' - g)^2

    the one-dimensional problem of a coordinate of the local subproblem.
    """

    cdef double value(self, double z, double y) noexcept nogil:
        return 0.0

    cdef double conjugate(self, double g, double y) noexcept nogil:
        return 0.0

    cdef double step(self, double g, double p, double y, double q) noexcept nogil:
        return g

    def py_value(self, double z, double y):
        """``l(z, y)``."""
        return self.value(z, y)

    def py_conjugate(self, double g, double y):
        """``l*(-g)`` for a feasible ``g``."""
        return self.conjugate(g, y)

    def py_step(self, double g, double p, double y, double q):
        """The coordinate step: maximiser of ``-l*(-g') - (g'-g) p - q/2 (g'-g)^2``."""
        return self.step(g, p, y, q)

    def __reduce__(self):
        return (type(self), ())


cdef class Hinge(MultiTaskLoss):
    """``l(z, y) = max(0, 1 - y z)``; ``l*(-g) = -a`` with ``g = y a``, ``a in [0, 1]``."""

    cdef double value(self, double z, double y) noexcept nogil:
        cdef double r = 1.0 - y * z
        return r if r > 0.0 else 0.0

    cdef double conjugate(self, double g, double y) noexcept nogil:
        return -y * g

    cdef double step(self, double g, double p, double y, double q) noexcept nogil:
        cdef double a = y * g, r = 1.0 - y * p
        if q > 0.0:
            a = a + r / q
        elif r > 0.0:
            a = 1.0
        elif r < 0.0:
            a = 0.0
        if a < 0.0:
            a = 0.0
        elif a > 1.0:
            a = 1.0
        return y * a


cdef class SquaredHinge(MultiTaskLoss):
    """``l(z, y) = max(0, 1 - y z)^2``; ``l*(-g) = -a + a^2 / 4`` with ``g = y a``, ``a >= 0``."""

    cdef double value(self, double z, double y) noexcept nogil:
        cdef double r = 1.0 - y * z
        return r * r if r > 0.0 else 0.0

    cdef double conjugate(self, double g, double y) noexcept nogil:
        cdef double a = y * g
        return -a + 0.25 * a * a

    cdef double step(self, double g, double p, double y, double q) noexcept nogil:
        cdef double a = y * g
        a = (1.0 - y * p + q * a) / (q + 0.5)
        if a < 0.0:
            a = 0.0
        return y * a


cdef inline double _xlogx(double x) noexcept nogil:
    return x * log(x) if x > 0.0 else 0.0


cdef inline double _sigmoid(double z) noexcept nogil:
    cdef double e
    if z >= 0.0:
        return 1.0 / (1.0 + exp(-z))
    e = exp(z)
    return e / (1.0 + e)


cdef class Logistic(MultiTaskLoss):
    """``l(z, y) = log(1 + exp(-y z))``; ``l*(-g) = a log a + (1 - a) log(1 - a)``, ``g = y a``.

    The coordinate step has no closed form: it solves
    ``log(a / (1 - a)) + y p + q (a - a_old) = 0`` for ``a`` in (0, 1) by
    Newton's method on the log-odds ``u = log(a / (1 - a))``, where the
    equation reads ``u + y p + q (sigmoid(u) - a_old) = 0`` (increasing, with
    derivative >= 1) and its root lies in ``[-y p - q (1 - a_old), -y p + q
    a_old]``; a Newton step that leaves the current bracket is replaced by
    bisection.
    """

    cdef double value(self, double z, double y) noexcept nogil:
        cdef double m = -y * z
        if m > 0.0:
            return m + log1p(exp(-m))
        return log1p(exp(m))

    cdef double conjugate(self, double g, double y) noexcept nogil:
        cdef double a = y * g
        if a < 0.0 or a > 1.0:
            return INFINITY
        return _xlogx(a) + _xlogx(1.0 - a)

    cdef double step(self, double g, double p, double y, double q) noexcept nogil:
        cdef double a_old = y * g, yp = y * p
        cdef double lo, hi, u, h, dh, s, u_new
        cdef int it
        if a_old < 0.0:
            a_old = 0.0
        elif a_old > 1.0:
            a_old = 1.0
        if q <= 0.0:
            return y * _sigmoid(-yp)
        lo = -yp - q * (1.0 - a_old)
        hi = -yp + q * a_old
        # Start from the previous value when it is inside the bracket.
        if 0.0 < a_old < 1.0:
            u = log(a_old) - log1p(-a_old)
            if u <= lo or u >= hi:
                u = 0.5 * (lo + hi)
        else:
            u = 0.5 * (lo + hi)
        for it in range(100):
            s = _sigmoid(u)
            h = u + yp + q * (s - a_old)
            if h == 0.0:
                break
            if h > 0.0:
                hi = u
            else:
                lo = u
            dh = 1.0 + q * s * (1.0 - s)
            u_new = u - h / dh
            if u_new <= lo or u_new >= hi:
                u_new = 0.5 * (lo + hi)
            if fabs(u_new - u) <= 1e-14 * (1.0 + fabs(u)):
                u = u_new
                break
            u = u_new
        return y * _sigmoid(u)


cdef class Squared(MultiTaskLoss):
    """``l(z, y) = (z - y)^2 / 2``; ``l*(-g) = g^2 / 2 - g y``."""

    cdef double value(self, double z, double y) noexcept nogil:
        return 0.5 * (z - y) * (z - y)

    cdef double conjugate(self, double g, double y) noexcept nogil:
        return 0.5 * g * g - g * y

    cdef double step(self, double g, double p, double y, double q) noexcept nogil:
        return g + (y - p - g) / (1.0 + q)


cdef inline double _lambertw_exp(double lz) noexcept nogil:
    """Lambert's ``W(exp(lz))`` (the root ``w > 0`` of ``w + log w = lz``).

    Newton's method on the concave increasing ``w + log w - lz``: from a
    start at or right of the root, the first step lands left of it and the
    later ones climb to it monotonically (so ``w`` stays positive)."""
    cdef double w, w_new, z
    cdef int it
    if lz < -20.0:
        z = exp(lz)
        return z * (1.0 - z)  # W(z) = z - z^2 + O(z^3)
    if lz < 1.0:
        w = log1p(exp(lz))
    else:
        w = lz - log(lz)
    for it in range(60):
        w_new = w * (1.0 + lz - log(w)) / (1.0 + w)
        if fabs(w_new - w) <= 1e-15 * w:
            return w_new
        w = w_new
    return w


cdef void _softmax_step(const double* p, double* pi, intp_t K, double q) noexcept nogil:
    """The joint step of one sample under the multinomial loss (in place on ``pi``).

    Returns in ``pi`` the maximiser over the simplex of::

        -sum_k pi'_k log pi'_k + pi' . p - (q / 2) ||pi' - pi||^2

    Its optimality conditions are ``log pi'_k + q pi'_k = s_k - tau`` with
    ``s_k = p_k + q pi_k`` and ``tau`` the multiplier of ``sum_k pi'_k =
    1``, i.e. ``pi'_k = W(q exp(s_k - tau)) / q`` (Lambert's W).  The sum
    is convex and decreasing in ``tau``: Newton's method from a ``tau``
    where it is at least 1 (every class at ``1 / K`` or more, or the
    largest at 1 or more) climbs to the root monotonically.  ``q = 0``:
    the softmax of ``p``.
    """
    cdef intp_t k
    cdef double smax, smin, tau, tau_lo, total, slope, pk, step, lq, tau_prev = 0.0
    cdef int it, tau_start_set = 0
    if K <= 0:
        return
    if q <= 0.0:
        smax = p[0]
        for k in range(1, K):
            if p[k] > smax:
                smax = p[k]
        total = 0.0
        for k in range(K):
            pi[k] = exp(p[k] - smax)
            total += pi[k]
        for k in range(K):
            pi[k] /= total
        return
    # The previous point: at tau = min_k (p_k - log pi_k) every class gets at
    # least its old probability (the sum is at least 1), and when the
    # margins did not move this is the root itself.
    for k in range(K):
        if pi[k] > 0.0:
            pk = p[k] - log(pi[k])
            if tau_start_set == 0 or pk < tau_prev:
                tau_prev = pk
                tau_start_set = 1
    for k in range(K):
        pi[k] = p[k] + q * pi[k]  # s_k, kept in pi until the end
    smax = pi[0]
    smin = pi[0]
    for k in range(1, K):
        if pi[k] > smax:
            smax = pi[k]
        if pi[k] < smin:
            smin = pi[k]
    tau_lo = smin + log(<double>K) - q / K
    tau = smax - q
    if tau_lo > tau:
        tau = tau_lo
    if tau_start_set and tau_prev > tau:
        tau = tau_prev
    lq = log(q)
    for it in range(100):
        total = -1.0
        slope = 0.0
        for k in range(K):
            pk = _lambertw_exp(lq + pi[k] - tau) / q
            total += pk
            slope += pk / (1.0 + q * pk)
        if fabs(total) <= 1e-15 or slope <= 0.0:
            break
        step = total / slope
        tau += step
        if fabs(step) <= 1e-15 * (1.0 + fabs(tau)):
            break
    total = 0.0
    for k in range(K):
        pi[k] = _lambertw_exp(lq + pi[k] - tau) / q
        total += pi[k]
    for k in range(K):
        pi[k] /= total


cdef void _joint_terms(const double* f, intp_t fs, const double* Y, intp_t ys,
                       const double* G, intp_t gs, intp_t K, double* out) noexcept nogil:
    """One sample's multinomial terms: ``out[0] += logsumexp(f) - f_y``,
    ``out[1] += sum_k pi_k log pi_k`` (``pi = e_y - g``; +inf outside the
    simplex), ``out[2] += g . f``; ``f``, ``Y`` and ``G`` strided by class."""
    cdef intp_t k
    cdef double fmax = f[0], total = 0.0, fy = 0.0, conj = 0.0, cross = 0.0, pk
    for k in range(1, K):
        if f[k * fs] > fmax:
            fmax = f[k * fs]
    for k in range(K):
        total += exp(f[k * fs] - fmax)
        if Y[k * ys] > 0.0:
            fy = f[k * fs]
            pk = 1.0 - G[k * gs]
        else:
            pk = -G[k * gs]
        if pk < 0.0 or pk > 1.0:
            conj = INFINITY
        else:
            conj += _xlogx(pk)
        cross += G[k * gs] * f[k * fs]
    out[0] += fmax + log(total) - fy
    out[1] += conj
    out[2] += cross


cdef class Multinomial(MultiTaskLoss):
    """The multinomial logistic (softmax) loss over the ``K`` problems of a sample.

    ``l(z, y) = log sum_k exp(z_k) - z_y`` for the vector of margins ``z``
    (one per class); ``Y`` holds +1 in the row of the sample's class and -1
    elsewhere.  Its conjugate at ``-g`` is finite on ``g = e_y - pi`` with
    ``pi`` in the simplex: ``l*(-g) = sum_k pi_k log pi_k``.  Unlike the
    other losses it couples the rows of a sample, so the scalar methods
    only give the conjugate's term of one class (``value`` is NaN: the loss
    of a margin alone is undefined); the solvers and
    :func:`problem_gap_terms` use the joint step (:meth:`py_step_joint`).
    """

    cdef double value(self, double z, double y) noexcept nogil:
        return NAN

    cdef double conjugate(self, double g, double y) noexcept nogil:
        cdef double pk = 1.0 - g if y > 0.0 else -g
        if pk < 0.0 or pk > 1.0:
            return INFINITY
        return _xlogx(pk)

    cdef double step(self, double g, double p, double y, double q) noexcept nogil:
        return NAN

    def py_step_joint(self, p, g, y, double q):
        """The joint step of one sample: the new ``g`` (K,) maximising
        ``-l*(-g') - (g' - g) . p - (q / 2) ||g' - g||^2``; ``y`` its class index."""
        cdef double[::1] pv = np.ascontiguousarray(p, dtype=np.float64)
        cdef double[::1] pi = -np.array(g, dtype=np.float64)
        cdef intp_t K = pv.shape[0], cls = y
        if pi.shape[0] != K or not (0 <= cls < K):
            raise ValueError("p and g must have K entries and y be a class index.")
        pi[cls] += 1.0
        _softmax_step(&pv[0], &pi[0], K, q)
        out = -np.asarray(pi)
        out[cls] += 1.0
        return out

    def py_value_joint(self, z, y):
        """``log sum_k exp(z_k) - z_y`` for the margins ``z`` (K,) and class index ``y``."""
        z = np.asarray(z, dtype=np.float64)
        zmax = z.max()
        return float(zmax + np.log(np.exp(z - zmax).sum()) - z[y])
