# What the node solvers of ``skfed.boosting`` share: the margin losses of the
# Perso-lin models (also the graph learner's peer scores, ``_graph_fast``)
# and the parts of a wake-up that Dada's Frank-Wolfe steps
# (``_boosting_fast``) and Perso-lin's gradient steps (``_perso_lin_fast``)
# both take: the neighbours' weighted sum, the regularization terms and the
# privacy budget's stop.  Split from ``_boosting_fast`` (issue 30: no module
# over 1,000 lines); ``_boosting_fast`` re-exports the loss classes, so
# imports and pickles that name them there keep working.

from libc.math cimport exp, log1p
from cython cimport floating

from ._typedefs cimport int64_t, intp_t



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


cdef bint _budget_spent(
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

