"""Declarations of :mod:`skfed._core._online_losses` (cimported by the solver)."""

from ._typedefs cimport intp_t


cdef class OnlineLoss:
    cdef double value(self, const double* f, double y,
                      intp_t n_outputs) noexcept nogil
    cdef void derivative(self, const double* f, double y, double* out,
                         intp_t n_outputs) noexcept nogil
