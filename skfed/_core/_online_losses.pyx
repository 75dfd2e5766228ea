"""Losses of the decentralized online kernel learner's functional SGD
(:mod:`skfed._core._online_fast` steps with them): each gives its value and
derivative at a node's ``n_outputs`` function values, without the GIL.
"""

from libc.math cimport exp, fabs, log

from ._typedefs cimport intp_t

import numpy as np


# ====================================================================== losses
cdef class OnlineLoss:
    """A loss ``loss(f, y)`` of the ``n_outputs`` function values ``f``.

    ``derivative`` writes d loss / d f (a subgradient where the loss is not
    differentiable) to ``out``.
    """

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        return 0.0

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        cdef intp_t r
        for r in range(n_outputs):
            out[r] = 0.0

    def py_value(self, f, double y):
        """Loss at the function values ``f`` (1-d array) and target ``y``."""
        cdef double[::1] fv = np.ascontiguousarray(np.atleast_1d(f), dtype=np.float64)
        return self.value(&fv[0], y, fv.shape[0])

    def py_derivative(self, f, double y):
        """Derivative with respect to ``f`` (1-d array) at target ``y``."""
        cdef double[::1] fv = np.ascontiguousarray(np.atleast_1d(f), dtype=np.float64)
        out = np.zeros(fv.shape[0])
        cdef double[::1] ov = out
        self.derivative(&fv[0], y, &ov[0], fv.shape[0])
        return out

    def __reduce__(self):
        return (type(self), ())


cdef class SquaredLoss(OnlineLoss):
    """``(f - y)^2 / 2`` (regression, one output)."""

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        return 0.5 * (f[0] - y) * (f[0] - y)

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        out[0] = f[0] - y


cdef class HuberLoss(OnlineLoss):
    """Huber loss of the residual ``r = f - y`` at threshold ``delta``:
    ``r^2 / 2`` where ``|r| <= delta``, ``delta (|r| - delta / 2)`` beyond
    (regression, one output); derivative ``clip(r, -delta, delta)``."""

    cdef readonly double delta

    def __init__(self, double delta=1.0):
        if not delta > 0.0:
            raise ValueError(f"delta must be > 0, got {delta}.")
        self.delta = delta

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        cdef double r = fabs(f[0] - y)
        if r <= self.delta:
            return 0.5 * r * r
        return self.delta * (r - 0.5 * self.delta)

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        cdef double r = f[0] - y
        if r > self.delta:
            out[0] = self.delta
        elif r < -self.delta:
            out[0] = -self.delta
        else:
            out[0] = r

    def __reduce__(self):
        return (type(self), (self.delta,))


cdef class EpsilonInsensitiveLoss(OnlineLoss):
    """``max(0, |f - y| - delta)`` (regression, one output); subgradient
    ``sign(f - y)`` outside the tube and 0 inside it and on its edge."""

    cdef readonly double delta

    def __init__(self, double delta=0.0):
        if not delta >= 0.0:
            raise ValueError(f"delta must be >= 0, got {delta}.")
        self.delta = delta

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        cdef double z = fabs(f[0] - y) - self.delta
        return z if z > 0.0 else 0.0

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        cdef double r = f[0] - y
        if r > self.delta:
            out[0] = 1.0
        elif r < -self.delta:
            out[0] = -1.0
        else:
            out[0] = 0.0

    def __reduce__(self):
        return (type(self), (self.delta,))


cdef class HingeLoss(OnlineLoss):
    """``max(0, 1 - y f)`` with ``y`` in {-1, +1}; subgradient 0 at the kink."""

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        cdef double z = 1.0 - y * f[0]
        return z if z > 0.0 else 0.0

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        out[0] = -y if y * f[0] < 1.0 else 0.0


cdef class LogisticLoss(OnlineLoss):
    """``log(1 + exp(-y f))`` with ``y`` in {-1, +1}."""

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        cdef double z = y * f[0]
        if z > 0.0:
            return log(1.0 + exp(-z))
        return -z + log(1.0 + exp(z))

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        cdef double z = y * f[0], e
        if z > 0.0:
            e = exp(-z)
            out[0] = -y * e / (1.0 + e)
        else:
            out[0] = -y / (1.0 + exp(z))


cdef class MulticlassHingeLoss(OnlineLoss):
    """``max(0, 1 + f_r - f_y)``, ``r = argmax_{r != y} f_r`` (Crammer-Singer).

    ``y`` is the class index; one function per class.
    """

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        cdef intp_t k = <intp_t>y, r, best = -1
        cdef double z
        for r in range(n_outputs):
            if r != k and (best < 0 or f[r] > f[best]):
                best = r
        if best < 0:
            return 0.0
        z = 1.0 + f[best] - f[k]
        return z if z > 0.0 else 0.0

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        cdef intp_t k = <intp_t>y, r, best = -1
        for r in range(n_outputs):
            out[r] = 0.0
            if r != k and (best < 0 or f[r] > f[best]):
                best = r
        if best >= 0 and 1.0 + f[best] - f[k] > 0.0:
            out[best] = 1.0
            out[k] = -1.0


cdef class MultinomialLogLoss(OnlineLoss):
    """``-log softmax(f)_y`` (multinomial logistic); ``y`` is the class index."""

    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil:
        cdef intp_t k = <intp_t>y, r
        cdef double fmax = f[0], total = 0.0
        for r in range(1, n_outputs):
            if f[r] > fmax:
                fmax = f[r]
        for r in range(n_outputs):
            total += exp(f[r] - fmax)
        return log(total) + fmax - f[k]

    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil:
        cdef intp_t k = <intp_t>y, r
        cdef double fmax = f[0], total = 0.0
        for r in range(1, n_outputs):
            if f[r] > fmax:
                fmax = f[r]
        for r in range(n_outputs):
            out[r] = exp(f[r] - fmax)
            total += out[r]
        for r in range(n_outputs):
            out[r] /= total
        out[k] -= 1.0
