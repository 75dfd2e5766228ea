"""Message and byte counters of the simulated network.

A :class:`CommCounter` is created by Python (``SimulatedNetwork.start``) and
handed to the Cython solvers, which call :meth:`CommCounter.send` /
:meth:`CommCounter.multicast` without the GIL each time a node sends
something.  Counts are kept per sender -> receiver pair (cumulative) and per
round (totals); Python turns them into a :class:`skfed.network.CommunicationLog`
at the end of ``fit``.

Memory is linear in the number of nodes and in the number of pairs that
actually talked: the per-pair counts live in an open-addressing hash table
keyed by ``src * n_endpoints + dst`` that holds only the pairs that sent at
least one message, so a server round with 100,000 clients costs 200,000
pairs, never 10^10.  The table (linear probing) has a power-of-two number
of packed 20-byte slots (key, 64-bit byte count, 32-bit message count) and
doubles before more than 3/4 of them would be used: with ``P`` pairs it has
``C`` slots, the smallest power of two ``>= 64`` with ``P <= 3 C / 4``
(:func:`pair_capacity_for`), so ``20 C`` bytes, between ``26.7 P`` and
``53.3 P`` once ``P > 24``.  Doubling holds the old and the new table at
once (``30 C`` bytes for the time of the move).  A pair's message count
that passes ``2^32 - 1`` carries into a Python dict (one entry a pair that
wrapped; none in practice), so no count is ever truncated.

The counter is not thread-safe: one thread at a time may report messages
(a send that inserts a new pair may reallocate the table).

Endpoints ``0 .. n_nodes - 1`` are the nodes; when the method has a server it
is endpoint ``n_nodes`` (``counter.server``), otherwise ``counter.server`` is
-1.
"""

import numpy as np
from scipy import sparse

from libc.stdlib cimport calloc, free
from libc.stdint cimport uint32_t, uint64_t

from ._typedefs cimport int64_t, intp_t

# Smallest pair table (slots); it doubles before more than
# MAX_LOAD_NUM / MAX_LOAD_DEN of its slots would be used.
cdef intp_t MIN_PAIR_CAPACITY = 64
cdef intp_t MAX_LOAD_NUM = 3
cdef intp_t MAX_LOAD_DEN = 4
# Bytes of one slot of the pair table (sizeof(PairCount), packed).
PAIR_SLOT_BYTES = sizeof(PairCount)


def pair_capacity_for(n_pairs):
    """Slots of the pair table once it holds ``n_pairs`` distinct pairs.

    The smallest power of two ``C >= 64`` with ``n_pairs <= 3 C / 4``; the
    table then takes ``PAIR_SLOT_BYTES * C`` (20 C) bytes.
    """
    if n_pairs < 0:
        raise ValueError(f"n_pairs must be >= 0, got {n_pairs}.")
    capacity = MIN_PAIR_CAPACITY
    while MAX_LOAD_DEN * n_pairs > MAX_LOAD_NUM * capacity:
        capacity *= 2
    return capacity


cdef class CommCounter:
    """Per-pair and per-round message and byte counts.

    Parameters
    ----------
    n_nodes : int
        Number of nodes.
    server : bool
        Whether a server endpoint (index ``n_nodes``) exists.
    header_bytes : int
        Fixed cost of every message, added to its payload.
    capacity : int, default=64
        Initial number of rounds the per-round arrays hold; they grow as
        needed.

    Attributes
    ----------
    n_pairs : int
        Number of sender -> receiver pairs that exchanged at least one
        message so far.
    pair_capacity : int
        Slots of the pair table: ``pair_capacity_for(n_pairs)``, the smallest
        power of two ``>= 64`` with ``n_pairs <= 3 pair_capacity / 4``.
    nbytes : int
        Memory held by the counts, in bytes: ``20 pair_capacity`` (packed
        slots) plus the per-round arrays (``16`` bytes a round of capacity)
        plus, in the never-seen-in-practice case of pairs that sent more
        than ``2^32 - 1`` messages, their dict entries (not counted).
    """

    def __cinit__(self, intp_t n_nodes, bint server=False, int64_t header_bytes=16,
                  intp_t capacity=64):
        self.pairs = NULL
        if n_nodes < 1:
            raise ValueError(f"n_nodes must be >= 1, got {n_nodes}.")
        if header_bytes < 0:
            raise ValueError(f"header_bytes must be >= 0, got {header_bytes}.")
        self.n_nodes = n_nodes
        self.n_endpoints = n_nodes + 1 if server else n_nodes
        self.server = n_nodes if server else -1
        self.header_bytes = header_bytes
        self.n_rounds = 0
        self.n_pairs = 0
        self.pair_capacity = 0
        self.out_of_memory = False
        self.message_wraps = {}
        if not self._rehash(MIN_PAIR_CAPACITY):
            raise MemoryError("could not allocate the pair table of CommCounter.")
        capacity = max(capacity, 1)
        self.round_bytes = np.zeros(capacity, dtype=np.int64)
        self.round_messages = np.zeros(capacity, dtype=np.int64)

    def __dealloc__(self):
        free(self.pairs)

    # ------------------------------------------------------------------ nogil API
    cdef void send(self, intp_t src, intp_t dst, int64_t payload) noexcept nogil:
        """Count one message of ``payload`` bytes (header added here)."""
        cdef int64_t total = payload + self.header_bytes
        cdef uint64_t key = <uint64_t>src * <uint64_t>self.n_endpoints + <uint64_t>dst + 1
        cdef PairCount* slot = self._pair(key)
        if slot != NULL:
            slot.n_bytes += total
            slot.n_messages += 1
            if slot.n_messages == 0:
                self._wrap_messages(key)
        self.round_bytes[self.n_rounds] += total
        self.round_messages[self.n_rounds] += 1

    cdef void multicast(self, intp_t src, const intp_t* dst, intp_t n_dst,
                        int64_t payload) noexcept nogil:
        """Count the same payload sent by ``src`` to each of ``n_dst`` receivers."""
        cdef intp_t k
        for k in range(n_dst):
            self.send(src, dst[k], payload)

    cdef void end_round(self) noexcept nogil:
        """Close the current round; later sends count toward the next one."""
        self.n_rounds += 1
        if self.n_rounds >= self.round_bytes.shape[0]:
            self._grow()

    cdef void _grow(self) noexcept nogil:
        with gil:
            new_capacity = 2 * self.round_bytes.shape[0]
            round_bytes = np.zeros(new_capacity, dtype=np.int64)
            round_messages = np.zeros(new_capacity, dtype=np.int64)
            round_bytes[:self.round_bytes.shape[0]] = self.round_bytes
            round_messages[:self.round_messages.shape[0]] = self.round_messages
            self.round_bytes = round_bytes
            self.round_messages = round_messages

    cdef void _wrap_messages(self, uint64_t key) noexcept nogil:
        """Record that pair ``key``'s 32-bit message count wrapped to 0."""
        with gil:
            self.message_wraps[key] = self.message_wraps.get(key, 0) + 1

    cdef PairCount* _pair(self, uint64_t key) noexcept nogil:
        """The slot of pair ``key`` (``>= 1``), inserted (zero counts) on first use.

        NULL only when the table could not grow (``out_of_memory`` is set
        and reported by :meth:`snapshot`).
        """
        cdef uint64_t mask = <uint64_t>(self.pair_capacity - 1)
        cdef uint64_t h = _mix(key) & mask
        while self.pairs[h].key != key:
            if self.pairs[h].key == 0:
                if MAX_LOAD_DEN * (self.n_pairs + 1) > MAX_LOAD_NUM * self.pair_capacity:
                    if not self._rehash(2 * self.pair_capacity):
                        self.out_of_memory = True
                        return NULL
                    return self._pair(key)
                self.pairs[h].key = key
                self.n_pairs += 1
                break
            h = (h + 1) & mask
        return &self.pairs[h]

    cdef bint _rehash(self, intp_t capacity) noexcept nogil:
        """Move the pairs into a table of ``capacity`` slots; False if out of memory.

        The new table comes zeroed from ``calloc`` (key 0: empty), so only
        the slots that receive a pair are written here.
        """
        cdef PairCount* old = self.pairs
        cdef intp_t old_capacity = self.pair_capacity, i
        cdef uint64_t mask = <uint64_t>(capacity - 1), h
        cdef PairCount* table = <PairCount*>calloc(capacity, sizeof(PairCount))
        if table == NULL:
            return False
        for i in range(old_capacity):
            if old[i].key != 0:
                h = _mix(old[i].key) & mask
                while table[h].key != 0:
                    h = (h + 1) & mask
                table[h] = old[i]
        self.pairs = table
        self.pair_capacity = capacity
        free(old)
        return True

    # ----------------------------------------------------------------- Python API
    def send_message(self, intp_t src, intp_t dst, int64_t payload):
        """Count one message from ``src`` to ``dst`` carrying ``payload`` bytes."""
        self._check_endpoint(src, "src")
        self._check_endpoint(dst, "dst")
        if payload < 0:
            raise ValueError(f"payload must be >= 0 bytes, got {payload}.")
        self.send(src, dst, payload)

    def multicast_message(self, intp_t src, const intp_t[::1] dst, int64_t payload):
        """Count the same payload from ``src`` to every endpoint in ``dst``."""
        self._check_endpoint(src, "src")
        self._check_endpoints(dst, "dst")
        if payload < 0:
            raise ValueError(f"payload must be >= 0 bytes, got {payload}.")
        if dst.shape[0] > 0:
            with nogil:
                self.multicast(src, &dst[0], dst.shape[0], payload)

    def send_pairs(self, const intp_t[::1] src, const intp_t[::1] dst,
                   const int64_t[::1] payloads):
        """Count one message ``src[i] -> dst[i]`` of ``payloads[i]`` bytes for every i."""
        cdef intp_t i
        if src.shape[0] != dst.shape[0] or src.shape[0] != payloads.shape[0]:
            raise ValueError("src, dst and payloads must have the same length.")
        self._check_endpoints(src, "src")
        self._check_endpoints(dst, "dst")
        for i in range(payloads.shape[0]):
            if payloads[i] < 0:
                raise ValueError(f"payloads must be >= 0 bytes, got {payloads[i]}.")
        with nogil:
            for i in range(src.shape[0]):
                self.send(src[i], dst[i], payloads[i])

    def gather_to_server(self, const intp_t[::1] senders, const int64_t[::1] payloads):
        """Each node in ``senders`` sends its payload to the server."""
        cdef intp_t k
        if self.server < 0:
            raise ValueError("gather_to_server needs a counter created with server=True.")
        if senders.shape[0] != payloads.shape[0]:
            raise ValueError("senders and payloads must have the same length.")
        self._check_endpoints(senders, "senders")
        with nogil:
            for k in range(senders.shape[0]):
                self.send(senders[k], self.server, payloads[k])

    def broadcast_from_server(self, const intp_t[::1] receivers, const int64_t[::1] payloads):
        """The server sends ``payloads[k]`` bytes to node ``receivers[k]``."""
        cdef intp_t k
        if self.server < 0:
            raise ValueError("broadcast_from_server needs a counter created with server=True.")
        if receivers.shape[0] != payloads.shape[0]:
            raise ValueError("receivers and payloads must have the same length.")
        self._check_endpoints(receivers, "receivers")
        with nogil:
            for k in range(receivers.shape[0]):
                self.send(self.server, receivers[k], payloads[k])

    def reduce_scatter_ring(self, const intp_t[::1] participants, int64_t vector_bytes):
        """Ring reduce-scatter of a ``vector_bytes`` vector among ``participants``.

        With p participants in ring order, each sends p - 1 messages of
        ``ceil(vector_bytes / p)`` bytes to its successor.
        """
        cdef intp_t p = participants.shape[0], step, k
        cdef int64_t chunk
        self._check_endpoints(participants, "participants")
        if p < 2:
            return
        chunk = (vector_bytes + p - 1) // p
        with nogil:
            for step in range(p - 1):
                for k in range(p):
                    self.send(participants[k], participants[(k + 1) % p], chunk)

    def allreduce_ring(self, const intp_t[::1] participants, int64_t vector_bytes):
        """Ring all-reduce: a reduce-scatter followed by an all-gather.

        Each of the p participants sends 2 (p - 1) messages of
        ``ceil(vector_bytes / p)`` bytes to its successor.
        """
        self.reduce_scatter_ring(participants, vector_bytes)
        self.reduce_scatter_ring(participants, vector_bytes)

    def next_round(self):
        """Close the current round (Python entry point of ``end_round``)."""
        with nogil:
            self.end_round()

    def _check_endpoint(self, intp_t endpoint, str name):
        if endpoint < 0 or endpoint >= self.n_endpoints:
            raise ValueError(
                f"{name}={endpoint} is not an endpoint of this network "
                f"(0..{self.n_endpoints - 1})."
            )

    def _check_endpoints(self, const intp_t[::1] endpoints, str name):
        """:meth:`_check_endpoint` of every entry, in one C loop."""
        cdef intp_t k, n = endpoints.shape[0], bad = -1
        with nogil:
            for k in range(n):
                if endpoints[k] < 0 or endpoints[k] >= self.n_endpoints:
                    bad = k
                    break
        if bad >= 0:
            self._check_endpoint(endpoints[bad], name)

    def _set_pair_messages(self, intp_t src, intp_t dst, int64_t n_messages):
        """Testing hook: set the stored 32-bit message count of a pair that talked.

        Only the low 32 bits are stored (what a long run reaches after that
        many sends); lets the tests check the wrap-around without sending
        2^32 messages.
        """
        self._check_endpoint(src, "src")
        self._check_endpoint(dst, "dst")
        cdef uint64_t key = <uint64_t>src * <uint64_t>self.n_endpoints + <uint64_t>dst + 1
        cdef uint64_t mask = <uint64_t>(self.pair_capacity - 1)
        cdef uint64_t h = _mix(key) & mask
        while self.pairs[h].key != key:
            if self.pairs[h].key == 0:
                raise ValueError(f"pair {src} -> {dst} has not talked.")
            h = (h + 1) & mask
        self.pairs[h].n_messages = <uint32_t>(n_messages & 0xFFFFFFFF)

    @property
    def nbytes(self):
        return int(self.pair_capacity * sizeof(PairCount)
                   + 2 * self.round_bytes.shape[0] * sizeof(int64_t))

    def pair_counts(self):
        """The pairs that talked, as flat arrays sorted by (sender, receiver).

        Returns
        -------
        src, dst : ndarray of shape (n_pairs,), dtype=intp
        n_bytes, n_messages : ndarray of shape (n_pairs,), dtype=int64
        """
        cdef intp_t i, k = 0
        cdef int64_t[::1] keys, nb, nm
        cdef PairCount* slot
        if self.out_of_memory:
            raise MemoryError(
                f"CommCounter ran out of memory growing its pair table past "
                f"{self.pair_capacity} slots; the per-pair counts are incomplete."
            )
        # Peak: 5 arrays of n_pairs int64 (keys, counts, the sort order and
        # one reordered copy), never more.
        keys = np.empty(self.n_pairs, dtype=np.int64)
        nb = np.empty(self.n_pairs, dtype=np.int64)
        nm = np.empty(self.n_pairs, dtype=np.int64)
        with nogil:
            for i in range(self.pair_capacity):
                slot = &self.pairs[i]
                if slot.key != 0:
                    keys[k] = <int64_t>(slot.key - 1)
                    nb[k] = slot.n_bytes
                    nm[k] = slot.n_messages
                    k += 1
        keys_np = np.asarray(keys)
        keys = None
        order = np.argsort(keys_np)  # keys are distinct: any sort is stable
        keys_np = keys_np[order]
        n_bytes = np.asarray(nb)[order]
        nb = None
        n_messages = np.asarray(nm)[order]
        nm = None
        del order
        if self.message_wraps:
            wrapped = np.fromiter(self.message_wraps.keys(), dtype=np.int64) - 1
            wraps = np.fromiter(self.message_wraps.values(), dtype=np.int64)
            n_messages[np.searchsorted(keys_np, wrapped)] += wraps << 32
        src = np.empty_like(keys_np)
        np.divmod(keys_np, self.n_endpoints, out=(src, keys_np))
        return src, keys_np, n_bytes, n_messages

    def snapshot(self, dense=True):
        """Counts as plain NumPy / SciPy arrays (copies).

        Parameters
        ----------
        dense : bool, default=True
            Return the per-pair counts as dense ``(n_endpoints,
            n_endpoints)`` arrays, which take ``8 n_endpoints^2`` bytes each:
            meant for small networks (tests).  ``False`` returns them as
            ``scipy.sparse.csr_array`` holding only the pairs that talked
            (what :class:`skfed.network.CommunicationLog` uses).

        Returns
        -------
        dict
            ``pair_bytes`` and ``pair_messages`` (n_endpoints, n_endpoints),
            ``round_bytes`` and ``round_messages`` (n_rounds,), plus
            ``n_nodes``, ``server`` and ``header_bytes``.  A round that
            received messages but was not closed counts as a last round.
        """
        n_rounds = self.n_rounds
        if n_rounds < self.round_bytes.shape[0] and self.round_messages[n_rounds] > 0:
            n_rounds += 1
        src, dst, n_bytes, n_messages = self.pair_counts()
        shape = (self.n_endpoints, self.n_endpoints)
        if dense:
            pair_bytes = np.zeros(shape, dtype=np.int64)
            pair_messages = np.zeros(shape, dtype=np.int64)
            pair_bytes[src, dst] = n_bytes
            pair_messages[src, dst] = n_messages
        else:
            # Each matrix owns its index arrays (scipy edits them in place,
            # e.g. eliminate_zeros), int32 when they fit.
            indices, indptr = _csr_structure(src, dst, shape)
            del src, dst
            pair_bytes = sparse.csr_array((n_bytes, indices.copy(), indptr.copy()),
                                          shape=shape, copy=False)
            pair_messages = sparse.csr_array((n_messages, indices, indptr), shape=shape,
                                             copy=False)
        return {
            "pair_bytes": pair_bytes,
            "pair_messages": pair_messages,
            "round_bytes": np.asarray(self.round_bytes)[:n_rounds].copy(),
            "round_messages": np.asarray(self.round_messages)[:n_rounds].copy(),
            "n_nodes": int(self.n_nodes),
            "server": int(self.server),
            "header_bytes": int(self.header_bytes),
        }


def _csr_structure(src, dst, shape):
    """CSR ``indices`` and ``indptr`` of pairs sorted by (src, dst), without duplicates.

    int32 when they fit (4 bytes a pair instead of 8).
    """
    small = max(shape[0], len(dst)) < np.iinfo(np.int32).max
    index_dtype = np.int32 if small else np.int64
    indptr = np.zeros(shape[0] + 1, dtype=index_dtype)
    np.cumsum(np.bincount(src, minlength=shape[0]), out=indptr[1:])
    return dst.astype(index_dtype), indptr


def py_payload_bytes(int64_t n_float64=0, int64_t n_float32=0, int64_t n_int32=0,
                     int64_t n_bits=0):
    """Python wrapper of the byte model's payload size (no header)."""
    if min(n_float64, n_float32, n_int32, n_bits) < 0:
        raise ValueError("value counts must be >= 0.")
    return payload_bytes(n_float64, n_float32, n_int32, n_bits)


def py_index_bits(int64_t n_choices):
    """Python wrapper of ``index_bits``: bits to name one of ``n_choices`` items."""
    if n_choices < 1:
        raise ValueError(f"n_choices must be >= 1, got {n_choices}.")
    return index_bits(n_choices)
