# The communication layer: counters that every solver calls when a node sends.
#
# Byte model (documented in ``skfed.network`` and checked by the tests):
#   a message costs ``header_bytes`` plus its payload, where a payload is
#   8 bytes per float64, 4 per float32, 4 per int32 index, and packed bits
#   rounded up to whole bytes (``ceil(n_bits / 8)``).
#
# Memory is linear: per-pair counts live in a hash table that holds only the
# sender -> receiver pairs that actually talked (never an n x n array).
#
# Not thread-safe: one thread at a time may call send / multicast /
# end_round on a counter (a first send of a new pair may grow the table).
# Node-parallel solvers give each worker its own messages to report, or
# report them after the parallel section.

from libc.stdint cimport uint32_t, uint64_t

from ._typedefs cimport int64_t, intp_t


cdef extern from *:
    """
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    /* volatile: a function made only of __builtin_prefetch calls is found
       free of side effects by GCC, and its calls are deleted */
    #define SKFED_PREFETCH(p) __asm__ volatile("prefetcht0 %0" : : "m"(*(const char*)(p)))
    #elif defined(__GNUC__) || defined(__clang__)
    #define SKFED_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define SKFED_PREFETCH(p) ((void)0)
    #endif
    """
    # A hint to load the cache line at ``p`` (no effect on any value).
    void prefetch "SKFED_PREFETCH"(const void* p) noexcept nogil


cdef inline int64_t payload_bytes(int64_t n_float64, int64_t n_float32,
                                  int64_t n_int32, int64_t n_bits) noexcept nogil:
    """Bytes of a payload holding the given numbers of values (no header)."""
    return 8 * n_float64 + 4 * n_float32 + 4 * n_int32 + (n_bits + 7) // 8


cdef inline int64_t index_bits(int64_t n_choices) noexcept nogil:
    """Bits needed to name one of ``n_choices`` items: ceil(log2(n)), at least 1."""
    cdef int64_t bits = 1
    while (<int64_t>1 << bits) < n_choices:
        bits += 1
    return bits


# One slot of the pair table, packed in 20 bytes: ``key`` is
# ``src * n_endpoints + dst + 1`` (0 when the slot is empty, so a calloc'ed
# table is empty), ``n_messages`` the low 32 bits of the pair's message count
# (each wrap past 2^32 - 1 is recorded in ``CommCounter.message_wraps``).
cdef packed struct PairCount:
    uint64_t key
    int64_t n_bytes
    uint32_t n_messages


cdef class CommCounter:
    cdef readonly intp_t n_nodes
    cdef readonly intp_t n_endpoints
    cdef readonly intp_t server
    cdef readonly int64_t header_bytes
    cdef readonly intp_t n_rounds
    # Open-addressing hash table of the pairs that talked (linear probing,
    # capacity a power of two, at most 3/4 full).
    cdef PairCount* pairs
    cdef readonly intp_t n_pairs
    cdef readonly intp_t pair_capacity
    cdef bint out_of_memory
    # key -> number of times the pair's 32-bit message count wrapped.
    cdef dict message_wraps
    cdef int64_t[::1] round_bytes
    cdef int64_t[::1] round_messages

    cdef void send(self, intp_t src, intp_t dst, int64_t payload) noexcept nogil
    cdef void multicast(self, intp_t src, const intp_t* dst, intp_t n_dst,
                        int64_t payload) noexcept nogil
    cdef void end_round(self) noexcept nogil
    cdef void _grow(self) noexcept nogil
    cdef PairCount* _pair(self, uint64_t key) noexcept nogil
    cdef void _wrap_messages(self, uint64_t key) noexcept nogil
    cdef bint _rehash(self, intp_t capacity) noexcept nogil


cdef inline uint64_t _mix(uint64_t key) noexcept nogil:
    """splitmix64's finalizer: spreads consecutive keys over the table."""
    key = (key ^ (key >> 30)) * <uint64_t>0xbf58476d1ce4e5b9ULL
    key = (key ^ (key >> 27)) * <uint64_t>0x94d049bb133111ebULL
    return key ^ (key >> 31)


cdef inline void prefetch_pair(CommCounter counter, intp_t src, intp_t dst) noexcept nogil:
    """Hint the cache line of pair ``src -> dst``'s home slot before a send (a
    solver that knows its next receivers overlaps the table's cache misses;
    the counts do not change)."""
    cdef uint64_t key = <uint64_t>src * <uint64_t>counter.n_endpoints + <uint64_t>dst + 1
    prefetch(&counter.pairs[_mix(key) & <uint64_t>(counter.pair_capacity - 1)])
