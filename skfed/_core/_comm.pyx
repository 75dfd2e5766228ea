"""Message and byte counters of the simulated network.

A :class:`CommCounter` is created by Python (``SimulatedNetwork.start``) and
handed to the Cython solvers, which call :meth:`CommCounter.send` /
:meth:`CommCounter.multicast` without the GIL each time a node sends
something.  Counts are kept per sender -> receiver pair (cumulative) and per
round (totals); Python turns them into a :class:`skfed.network.CommunicationLog`
at the end of ``fit``.

Endpoints ``0 .. n_nodes - 1`` are the nodes; when the method has a server it
is endpoint ``n_nodes`` (``counter.server``), otherwise ``counter.server`` is
-1.
"""

import numpy as np

from ._typedefs cimport int64_t, intp_t


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
    """

    def __cinit__(self, intp_t n_nodes, bint server=False, int64_t header_bytes=16,
                  intp_t capacity=64):
        if n_nodes < 1:
            raise ValueError(f"n_nodes must be >= 1, got {n_nodes}.")
        if header_bytes < 0:
            raise ValueError(f"header_bytes must be >= 0, got {header_bytes}.")
        self.n_nodes = n_nodes
        self.n_endpoints = n_nodes + 1 if server else n_nodes
        self.server = n_nodes if server else -1
        self.header_bytes = header_bytes
        self.n_rounds = 0
        capacity = max(capacity, 1)
        self.pair_bytes = np.zeros((self.n_endpoints, self.n_endpoints), dtype=np.int64)
        self.pair_messages = np.zeros((self.n_endpoints, self.n_endpoints), dtype=np.int64)
        self.round_bytes = np.zeros(capacity, dtype=np.int64)
        self.round_messages = np.zeros(capacity, dtype=np.int64)

    # ------------------------------------------------------------------ nogil API
    cdef void send(self, intp_t src, intp_t dst, int64_t payload) noexcept nogil:
        """Count one message of ``payload`` bytes (header added here)."""
        cdef int64_t total = payload + self.header_bytes
        self.pair_bytes[src, dst] += total
        self.pair_messages[src, dst] += 1
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
        cdef intp_t k
        self._check_endpoint(src, "src")
        for k in range(dst.shape[0]):
            self._check_endpoint(dst[k], "dst")
        if payload < 0:
            raise ValueError(f"payload must be >= 0 bytes, got {payload}.")
        if dst.shape[0] > 0:
            with nogil:
                self.multicast(src, &dst[0], dst.shape[0], payload)

    def gather_to_server(self, const intp_t[::1] senders, const int64_t[::1] payloads):
        """Each node in ``senders`` sends its payload to the server."""
        cdef intp_t k
        if self.server < 0:
            raise ValueError("gather_to_server needs a counter created with server=True.")
        if senders.shape[0] != payloads.shape[0]:
            raise ValueError("senders and payloads must have the same length.")
        for k in range(senders.shape[0]):
            self._check_endpoint(senders[k], "senders")
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
        for k in range(receivers.shape[0]):
            self._check_endpoint(receivers[k], "receivers")
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
        for k in range(p):
            self._check_endpoint(participants[k], "participants")
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

    def snapshot(self):
        """Counts as plain NumPy arrays (copies).

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
        return {
            "pair_bytes": np.asarray(self.pair_bytes).copy(),
            "pair_messages": np.asarray(self.pair_messages).copy(),
            "round_bytes": np.asarray(self.round_bytes)[:n_rounds].copy(),
            "round_messages": np.asarray(self.round_messages)[:n_rounds].copy(),
            "n_nodes": int(self.n_nodes),
            "server": int(self.server),
            "header_bytes": int(self.header_bytes),
        }


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
