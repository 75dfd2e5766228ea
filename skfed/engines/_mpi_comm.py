"""Messaging, traffic accounting and the agreed schedule of the MPI engine.

Private helpers of :mod:`skfed.engines.mpi`: a thin layer over ``mpi4py``
that pickles every message once, counts its bytes by item (what
``mpi_traffic_`` reports), and waits for messages with a bounded timeout;
plus a pure-Python copy of skfed's xorshift32 stream, so that every rank
draws the same node wake-ups as the Cython solvers of the simulation.
"""

import pickle
import time
from collections import defaultdict

import numpy as np

__all__ = ["Peer", "MPITimeoutError", "Traffic", "xorshift_next", "rand_int", "sample_peers"]

_RAND_R_MAX = 0x7FFFFFFF
# Message tags of the lost-rank protocol (the drivers use tags 11-23).
TAG_AGREE = 31
TAG_EXCHANGE = 32
TAG_RESULT = 33
_MASK32 = 0xFFFFFFFF


# ------------------------------------------------------------------ xorshift
def xorshift_next(state):
    """One step of ``skfed._core._random.our_rand_r``: ``(new_state, value)``."""
    state = int(state) & _MASK32
    if state == 0:
        state = 49421
    state ^= (state << 13) & _MASK32
    state ^= state >> 17
    state ^= (state << 5) & _MASK32
    return state, state & _RAND_R_MAX


def rand_int(end, state_array, index=0):
    """``rand_int(end, &state[index])`` of ``_random.pxd``: advances the state in place."""
    state, value = xorshift_next(state_array[index])
    state_array[index] = state
    return value % int(end)


def sample_peers(topo_indptr, topo_indices, complete, n_nodes, k, kappa, state_array, index):
    """The peers ``_graph_fast._sample_peers`` draws for node k (advances the state).

    Candidates: the other nodes (``complete``; position ``p`` is node ``p +
    (p >= k)``) or k's links in the topology CSR; draws are uniform over the
    positions, redrawn while they repeat.

    Returns
    -------
    peers : list of int
        The peers in draw order.
    """
    if complete:
        n_cand = int(n_nodes) - 1

        def node(p):
            return p + (p >= k)
    else:
        start = int(topo_indptr[k])
        n_cand = int(topo_indptr[k + 1]) - start

        def node(p):
            return int(topo_indices[start + p])
    kappa = max(int(kappa), 1)
    if kappa >= n_cand:
        return [node(p) for p in range(n_cand)]
    picks = []
    while len(picks) < kappa:
        pick = rand_int(n_cand, state_array, index)
        if pick not in picks:
            picks.append(pick)
    return [node(p) for p in picks]


# ------------------------------------------------------------------- traffic
class Traffic:
    """Bytes and messages one rank sent over MPI, by item.

    ``bytes`` counts the pickled message (what MPI moved, before its own
    envelope).
    """

    def __init__(self):
        self.bytes = defaultdict(int)
        self.messages = defaultdict(int)

    def add(self, item, nbytes, n_messages=1):
        self.bytes[item] += int(nbytes)
        self.messages[item] += int(n_messages)

    def as_dict(self):
        return {item: {"bytes": int(self.bytes[item]), "messages": int(self.messages[item])}
                for item in sorted(self.bytes)}

    @staticmethod
    def merge(dicts):
        """Sum the :meth:`as_dict` of every rank."""
        total = {}
        for d in dicts:
            for item, counts in d.items():
                slot = total.setdefault(item, {"bytes": 0, "messages": 0})
                slot["bytes"] += counts["bytes"]
                slot["messages"] += counts["messages"]
        return dict(sorted(total.items()))


class MPITimeoutError(RuntimeError):
    """A rank waited longer than the engine's timeout for a message."""


class Peer:
    """Point-to-point messaging of one rank, counted and with bounded waits.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    timeout : float
        Longest wait, in seconds, for any one message.
    """

    def __init__(self, comm, timeout, *, delay=0.0, hang_after=None, stop_round=None):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = float(timeout)
        self.traffic = Traffic()
        self._pending = []
        # Injected faults (tests and drills): a slow rank waits ``delay``
        # seconds before every message; a hung rank stops answering after
        # ``hang_after`` messages (it sleeps until the others give up and
        # abort the run); a stopped rank stops answering from round
        # ``stop_round`` of a synchronous method on (the others go on
        # without its nodes).
        self.delay = float(delay)
        self.hang_after = hang_after
        self.stop_round = stop_round
        self._n_sent = 0
        self.last_nbytes = None  # size of the last message received (recv)
        # Ranks the live ranks agreed have stopped answering (see agree()).
        self.dead = set()

    def _before_send(self):
        if self.delay:
            time.sleep(self.delay)
        self._n_sent += 1
        if self.hang_after is not None and self._n_sent > self.hang_after:
            while True:  # a node that stopped answering: only an abort ends it
                time.sleep(1.0)

    def send(self, dest, tag, item, obj):
        """Send ``obj`` to rank ``dest`` without blocking; count it under ``item``."""
        self._before_send()
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.traffic.add(item, len(data))
        self._pending.append((int(dest), self.comm.isend(data, dest=int(dest), tag=int(tag))))
        if len(self._pending) > 256:
            self._pending = [(d, req) for d, req in self._pending if not req.Test()]

    def recv(self, source, tag=None, *, timeout=None, what="a message"):
        """Wait for the next message from ``source`` (``tag`` or any): ``(tag, obj)``.

        Polls (yielding the CPU while waiting, so oversubscribed ranks do not
        starve each other) and raises :class:`MPITimeoutError` after
        ``timeout`` seconds (the engine's by default).  ``last_nbytes`` is
        then the size of the message received (pickled, as its sender's
        :meth:`send` counted it).
        """
        MPI = self.MPI
        tag = MPI.ANY_TAG if tag is None else int(tag)
        limit = self.timeout if timeout is None else float(timeout)
        deadline = None
        status = MPI.Status()
        polls = 0
        while True:
            message = self.comm.improbe(source=int(source), tag=tag, status=status)
            if message is not None:
                data = message.recv()
                self.last_nbytes = len(data)
                return status.Get_tag(), pickle.loads(data)
            polls += 1
            if polls < 64:
                continue
            now = time.monotonic()
            if deadline is None:
                deadline = now + limit
            elif now > deadline:
                raise MPITimeoutError(
                    f"rank {self.rank} waited more than {limit:g} s for {what} from rank "
                    f"{source}"
                )
            time.sleep(0 if polls < 2000 else 2e-4)

    def flush(self, dead=()):
        """Wait until every message this rank sent has left (except to dead ranks)."""
        dead = set(dead) | self.dead
        for dest, req in self._pending:
            if dest not in dead:
                req.Wait()
        self._pending = []

    # ------------------------------------------------------ lost ranks
    def live_others(self):
        """The other ranks not agreed dead, in rank order."""
        return [r for r in range(self.size) if r != self.rank and r not in self.dead]

    @property
    def root(self):
        """The lowest live rank: it returns the fitted estimator."""
        return min(set(range(self.size)) - self.dead)

    def agree(self, suspects, what):
        """Agree with the other live ranks on who stopped answering; return the new dead.

        Every live rank calls this at the same point of the run (each after
        its own timeout): it sends its suspects to every live rank it does
        not suspect and adds theirs (a rank that does not answer within
        twice the timeout is suspected too).  Every rank suspected by one is
        dead for all from then on.
        """
        suspects = set(suspects) - {self.rank}
        others = [r for r in self.live_others() if r not in suspects]
        for r in others:
            self.send(r, TAG_AGREE, "control", (what, sorted(suspects)))
        for r in others:
            try:
                _, (_, theirs) = self.recv(r, TAG_AGREE, timeout=2 * self.timeout,
                                           what=f"agreement on lost ranks ({what})")
                suspects.update(theirs)
            except MPITimeoutError:
                suspects.add(r)
        suspects.discard(self.rank)
        new = suspects - self.dead
        self.dead |= new
        return new

    def collect(self, item, obj, what="the result"):
        """Every live rank's ``obj`` on the root (a list in rank order), None elsewhere.

        Point to point, with bounded waits: a rank that does not answer the
        root is left out (and dead for the root).
        """
        root = self.root
        if self.rank != root:
            self.send(root, TAG_RESULT, item, obj)
            self.flush()
            return None
        out = [obj]
        for r in self.live_others():
            try:
                out.append(self.recv(r, TAG_RESULT, what=what)[1])
            except MPITimeoutError:
                self.dead.add(r)
        return out

    def exchange(self, item, obj, what):
        """Every live rank's ``obj`` (a dict by rank), point to point with bounded waits.

        A rank that does not answer within the timeout is agreed dead
        (:meth:`agree`, run every time: a rank may have heard from one
        that another did not) and left out of the answer.
        """
        others = self.live_others()
        for r in others:
            self.send(r, TAG_EXCHANGE, item, obj)
        received, suspects = {self.rank: obj}, set()
        for r in others:
            try:
                received[r] = self.recv(r, TAG_EXCHANGE, what=what)[1]
            except MPITimeoutError:
                suspects.add(r)
        self.agree(suspects, what)
        return {r: v for r, v in sorted(received.items()) if r not in self.dead}

    def stop_if_told(self, round_index):
        """A rank told to stop at this round stops answering (an injected fault)."""
        if self.stop_round is not None and round_index >= self.stop_round:
            while True:  # only the others' end of the run (an abort) ends it
                time.sleep(1.0)

    # ------------------------------------------------------------ collectives
    def allgather(self, item, obj):
        """Every rank's ``obj`` (a list in rank order), counted as point-to-point sends."""
        self._before_send()
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.traffic.add(item, len(data) * (self.size - 1), self.size - 1)
        return [pickle.loads(d) if isinstance(d, bytes) else d
                for d in self.comm.allgather(data)]

    def allreduce_sum(self, item, value):
        """Sum of ``value`` over the ranks (in rank order, so every rank agrees)."""
        return sum(self.allgather(item, value))

    def gather(self, item, obj, root=0):
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        if self.rank != root:
            self.traffic.add(item, len(data))
        out = self.comm.gather(data, root=root)
        return None if out is None else [pickle.loads(d) for d in out]

    def bcast(self, item, obj, root=0):
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL) if self.rank == root else None
        if self.rank == root:
            self.traffic.add(item, len(data) * (self.size - 1), self.size - 1)
        return pickle.loads(self.comm.bcast(data, root=root))


def ranks_of_blocks(n_nodes, n_ranks):
    """Owner rank of every node: contiguous blocks of nearly equal size."""
    bounds = np.linspace(0, n_nodes, n_ranks + 1).round().astype(np.intp)
    owner = np.zeros(n_nodes, dtype=np.intp)
    for r in range(n_ranks):
        owner[bounds[r]: bounds[r + 1]] = r
    return owner, bounds
