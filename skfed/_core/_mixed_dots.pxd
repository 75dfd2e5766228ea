"""Dot products and axpy of float32 or float64 rows with float64 vectors,
inline, for the multi-task node solvers (``_multitask_fast``,
``_multitask_exact``): a header only, like ``_random.pxd``."""

from cython cimport floating
from scipy.linalg.cython_blas cimport daxpy, ddot

from ._typedefs cimport intp_t


cdef inline double _dot_mixed(const floating* x, const double* w, intp_t d) noexcept nogil:
    """x . w accumulated in double (BLAS ddot for float64 rows)."""
    cdef intp_t j
    cdef int n = <int>d, inc = 1
    cdef double total = 0.0
    if floating is double:
        return ddot(&n, <double*>x, &inc, <double*>w, &inc)
    for j in range(d):
        total += x[j] * w[j]
    return total


cdef inline double _dot_single(const float* x, const double* w, intp_t d) noexcept nogil:
    """x . w accumulated in double, for float32 rows (exact products; eight
    running sums, so the compiler can vectorize it)."""
    cdef intp_t j, top = d - d % 8
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0
    for j in range(0, top, 8):
        s0 += <double>x[j] * w[j]
        s1 += <double>x[j + 1] * w[j + 1]
        s2 += <double>x[j + 2] * w[j + 2]
        s3 += <double>x[j + 3] * w[j + 3]
        s4 += <double>x[j + 4] * w[j + 4]
        s5 += <double>x[j + 5] * w[j + 5]
        s6 += <double>x[j + 6] * w[j + 6]
        s7 += <double>x[j + 7] * w[j + 7]
    for j in range(top, d):
        s0 += <double>x[j] * w[j]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


cdef inline void _axpy_mixed(double a, const floating* x, double* y, intp_t d) noexcept nogil:
    """y += a x (BLAS daxpy for float64 rows)."""
    cdef intp_t j
    cdef int n = <int>d, inc = 1
    if floating is double:
        daxpy(&n, &a, <double*>x, &inc, y, &inc)
        return
    for j in range(d):
        y[j] += a * x[j]
