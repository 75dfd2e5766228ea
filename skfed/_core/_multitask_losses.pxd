"""Declarations of :mod:`skfed._core._multitask_losses` (cimported by the node solvers)."""

from ._typedefs cimport intp_t


cdef class MultiTaskLoss:
    cdef double value(self, double z, double y) noexcept nogil
    cdef double conjugate(self, double g, double y) noexcept nogil
    cdef double step(self, double g, double p, double y, double q) noexcept nogil


# The multinomial loss's joint step of one sample and its gap terms.
cdef void _softmax_step(const double* p, double* pi, intp_t K, double q) noexcept nogil

cdef void _joint_terms(const double* f, intp_t fs, const double* Y, intp_t ys,
                       const double* G, intp_t gs, intp_t K, double* out) noexcept nogil
