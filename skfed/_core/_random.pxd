# Per-node pseudo-random numbers for code running without the GIL.
#
# Python draws one uint32 seed per node from ``check_random_state(random_state)``
# (see ``skfed._base.node_seeds``); Cython keeps one ``uint32_t`` state per node
# and advances it with Marsaglia's xorshift32.  Results therefore depend only
# on the seeds, never on thread scheduling.  Never use NumPy's RNG or C's
# ``rand()`` inside ``nogil`` code.

from libc.stdint cimport uint32_t

cdef enum:
    # Largest value returned by ``our_rand_r``.
    RAND_R_MAX = 0x7FFFFFFF


cdef inline uint32_t our_rand_r(uint32_t* state) noexcept nogil:
    """Advance ``state`` and return a number in [0, RAND_R_MAX]."""
    if state[0] == 0:
        # xorshift has 0 as a fixed point: replace it by an arbitrary constant.
        state[0] = 49421
    state[0] ^= <uint32_t>(state[0] << 13)
    state[0] ^= <uint32_t>(state[0] >> 17)
    state[0] ^= <uint32_t>(state[0] << 5)
    return state[0] & <uint32_t>RAND_R_MAX


cdef inline Py_ssize_t rand_int(Py_ssize_t end, uint32_t* state) noexcept nogil:
    """Uniform integer in [0, end)."""
    return our_rand_r(state) % end


cdef inline double rand_uniform(double low, double high, uint32_t* state) noexcept nogil:
    """Uniform double in [low, high)."""
    return ((high - low) * <double>our_rand_r(state) / (<double>RAND_R_MAX + 1.0)) + low
