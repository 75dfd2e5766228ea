# Exact samplers of privacy noise (see ``_secure_noise.pyx`` and
# ``skfed._secure_noise``), for the Cython loops that draw noise per step.

from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef class BitStream:
    cdef uint64_t[::1] buffer
    cdef object _array
    cdef Py_ssize_t pos
    cdef Py_ssize_t size
    cdef readonly object fill
    cdef readonly bint failed
    cdef readonly Py_ssize_t n_words_used
    cdef void _refill(self) noexcept
    cdef uint64_t next_word(self) noexcept nogil


cdef uint64_t uniform_below(BitStream stream, uint64_t n) noexcept nogil
cdef bint bernoulli_ratio(BitStream stream, uint64_t num, uint64_t den) noexcept nogil
cdef bint bernoulli_exp(BitStream stream, uint64_t num, uint64_t den) noexcept nogil
cdef int64_t discrete_laplace(BitStream stream, uint64_t scale) noexcept nogil
cdef int64_t discrete_gaussian(BitStream stream, uint64_t sigma) noexcept nogil
cdef bint bernoulli_float(BitStream stream, double p) noexcept nogil
cdef Py_ssize_t exponential_choice(
    BitStream stream, const int64_t* quality, Py_ssize_t n, uint64_t scale) noexcept nogil
