"""Declarations of :mod:`skfed._core._support_partial` (cimported by ``_support_fast``)."""

cdef double CONSTANT_RTOL
