"""The simulated network every skfed estimator trains over.

:class:`SimulatedNetwork` describes the network (who talks to whom, which
faults happen); :meth:`SimulatedNetwork.start` turns it, for one ``fit``, into
a :class:`NetworkSimulation` that draws the faults round by round and owns the
Cython :class:`~skfed._core._comm.CommCounter` the solvers report every
message to.  At the end of ``fit`` the counts become a
:class:`CommunicationLog`, exposed as the estimator's ``communication_``.

Byte model
----------
Every message costs a fixed header (``header_bytes``, 16 by default) plus its
payload:

========================  =====================================
value                     bytes
========================  =====================================
float64                   8
float32                   4
int32 index               4
bits (votes, indices)     packed: ``ceil(n_bits / 8)`` per message
========================  =====================================

An index that names one of ``n`` items may be sent as ``ceil(log2 n)`` bits
(:func:`index_bits`).  Collective operations are counted as the messages
they are made of: a ring all-reduce of ``B`` bytes among ``p`` nodes is
``2 (p - 1)`` messages of ``ceil(B / p)`` bytes per node, a reduce-scatter
half of that, and a server round is one message per node each way.
"""

import numbers

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from ._compat import Interval, StrOptions, validate_params_from_attributes
from ._base import DocLinkMixin

from ._core._comm import CommCounter, py_index_bits, py_payload_bytes
from ._topology import (  # noqa: F401  (public here, as before the split)
    TOPOLOGIES,
    _topology_csr,
    check_adjacency,
    check_topology,
    make_topology,
)

__all__ = [
    "SimulatedNetwork",
    "NetworkSimulation",
    "ActiveRounds",
    "CommunicationLog",
    "payload_bytes",
    "index_bits",
    "DEFAULT_HEADER_BYTES",
]

DEFAULT_HEADER_BYTES = 16



def payload_bytes(n_float64=0, n_float32=0, n_int32=0, n_bits=0):
    """Payload size in bytes of a message under skfed's byte model.

    Parameters
    ----------
    n_float64, n_float32, n_int32 : int, default=0
        Numbers of values of each type.
    n_bits : int, default=0
        Number of packed bits (rounded up to whole bytes).

    Returns
    -------
    int
        ``8 n_float64 + 4 n_float32 + 4 n_int32 + ceil(n_bits / 8)``; the
        header is not included.
    """
    return int(py_payload_bytes(n_float64, n_float32, n_int32, n_bits))


def index_bits(n_choices):
    """Bits needed to name one of ``n_choices`` items: ``max(1, ceil(log2 n))``."""
    return int(py_index_bits(n_choices))


def float_bytes(dtype):
    """Bytes per value of a float array of ``dtype`` under the byte model."""
    return 4 if np.dtype(dtype) == np.float32 else 8


# --------------------------------------------------------------------- topology
# SimulatedNetwork._validate_params' records of values that passed (a few
# hundred at most).
_PASSED_PARAMS = set()


class SimulatedNetwork(DocLinkMixin, BaseEstimator):
    """A simulated network with a topology, dropped nodes, stragglers and rogue nodes.

    Pass it as the ``network`` parameter of any skfed estimator; ``None``
    there means a perfect network (complete topology, no faults).  It is an
    ordinary scikit-learn parameter object: :func:`~sklearn.base.clone` and
    ``get_params`` work, and ``set_params(network__drop_rate=0.5)`` reaches
    it through the estimator.

    Parameters
    ----------
    topology : str, array-like, sparse matrix, networkx graph or callable, default=None
        Who may talk to whom, for the peer-to-peer methods (the
        server-coordinated ones do not route over it, but check it all the
        same: an explicit graph must have the right size, a named one a
        valid name and ``topology_params`` for the number of nodes).
        ``None`` is the complete graph.
        A string names a generator: ``"complete"``, ``"ring"``, ``"star"``,
        ``"k_regular"``, ``"random_regular"`` (a union of random cycles, the
        online learner's fast-mixing graph), ``"erdos_renyi"``,
        ``"random_geometric"``, configured by ``topology_params``.  An array, sparse matrix or networkx graph
        is used as given (symmetric, non-negative, no self-loops).  A callable
        ``topology(n_nodes, random_state) -> adjacency`` is called at fit.
        It places the fit's nodes only: a node that joins later
        (``add_nodes``) may ask any node already in.
    topology_params : dict, default=None
        Parameters of a named topology: ``degree`` for ``"k_regular"`` and
        ``"random_regular"`` (even; by default the even number above
        ``ln(n_nodes)``), ``p`` for ``"erdos_renyi"``, ``radius`` for
        ``"random_geometric"``.
    drop_rate : float in [0, 1), default=0.0
        Probability that a node is unavailable in a round (it neither works
        nor sends; independent across nodes and rounds).
    straggler_rate : float in [0, 1], default=0.0
        Probability that an available node is a straggler in a round.
    straggler_min_work : float in (0, 1], default=0.1
        A straggler does a fraction of its local work drawn uniformly in
        ``[straggler_min_work, 1)``.
    rogue_fraction : float in [0, 0.5), default=0.0
        Fraction of nodes that are rogue for the whole fit
        (``round(rogue_fraction * n_nodes)`` nodes, drawn once).
    rogue_behavior : {"complement", "random"}, default="complement"
        What a rogue node sends instead of its honest message: the
        complement of it (flipped bits, negated values: the worst case of
        the support-recovery paper) or random bits / values.  Each method's
        docstring says what its messages are.
    header_bytes : int, default=16
        Fixed cost of every message in the byte model.
    random_state : int, RandomState instance or None, default=None
        Seed of the fault draws and random topologies.  ``None`` takes the
        seed from the estimator's ``random_state``, so one seed there makes
        the whole fit reproducible.

    See Also
    --------
    CommunicationLog : what an estimator reports after fit.

    Examples
    --------
    >>> from skfed.network import SimulatedNetwork
    >>> net = SimulatedNetwork(topology="ring", drop_rate=0.1, random_state=0)
    >>> sim = net.start(4)
    >>> sim.adjacency.toarray().astype(int)
    array([[0, 1, 0, 1],
           [1, 0, 1, 0],
           [0, 1, 0, 1],
           [1, 0, 1, 0]])
    """

    _parameter_constraints = {
        # Checked at start(): names, arrays, sparse matrices, networkx graphs, callables.
        "topology": "no_validation",
        "topology_params": [None, dict],
        "drop_rate": [Interval(numbers.Real, 0, 1, closed="left")],
        "straggler_rate": [Interval(numbers.Real, 0, 1, closed="both")],
        "straggler_min_work": [Interval(numbers.Real, 0, 1, closed="right")],
        "rogue_fraction": [Interval(numbers.Real, 0, 0.5, closed="left")],
        "rogue_behavior": [StrOptions({"complement", "random"})],
        "header_bytes": [Interval(numbers.Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        topology=None,
        *,
        topology_params=None,
        drop_rate=0.0,
        straggler_rate=0.0,
        straggler_min_work=0.1,
        rogue_fraction=0.0,
        rogue_behavior="complement",
        header_bytes=DEFAULT_HEADER_BYTES,
        random_state=None,
    ):
        self.topology = topology
        self.topology_params = topology_params
        self.drop_rate = drop_rate
        self.straggler_rate = straggler_rate
        self.straggler_min_work = straggler_min_work
        self.rogue_fraction = rogue_fraction
        self.rogue_behavior = rogue_behavior
        self.header_bytes = header_bytes
        self.random_state = random_state

    @property
    def is_perfect(self):
        """True when no fault can happen (no drops, stragglers or rogue nodes)."""
        return self.drop_rate == 0 and self.straggler_rate == 0 and self.rogue_fraction == 0

    def _validate_params(self):
        """scikit-learn's check of the parameters against
        ``_parameter_constraints``, in the same (sorted) order, with the
        values read from the attributes, skipped for values that passed
        before.  A small join's fixed CPU is mostly checks like this one
        (``get_params`` inspects ``__init__``'s signature on every call).
        A record of the class, every value's type and the numbers' and
        strings' values decides: the other values' constraints (a dict, a
        ``RandomState``, the unchecked topology) are on their type only."""
        params = {key: getattr(self, key) for key in sorted(self._parameter_constraints)}
        record = (type(self),) + tuple(
            (type(value), value if isinstance(value, (numbers.Number, str)) else None)
            for value in params.values())
        if record in _PASSED_PARAMS:
            return
        validate_params_from_attributes(self)
        if len(_PASSED_PARAMS) < 256:
            _PASSED_PARAMS.add(record)

    def start(self, n_nodes, *, server=False, random_state=None, node_labels=None):
        """Begin one simulated training run over ``n_nodes`` nodes.

        Parameters
        ----------
        n_nodes : int
        server : bool, default=False
            Whether the method has a server (an extra endpoint ``n_nodes``).
        random_state : int, RandomState instance or None
            The estimator's randomness, used when this network's own
            ``random_state`` is None.
        node_labels : array-like of shape (n_nodes,), default=None
            Node labels, for error messages and for matching a networkx
            topology whose nodes are the labels.

        Returns
        -------
        NetworkSimulation
        """
        self._validate_params()
        # The seed of the fault stream is always drawn from the estimator's
        # randomness, even when this network has its own random_state, so the
        # estimator's later draws (node seeds, shuffles) do not depend on
        # whether the network is seeded: network=None and a fault-free
        # SimulatedNetwork(random_state=0) give the same fit.
        seed = None
        if random_state is not None or self.random_state is None:
            seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
        if self.random_state is not None:
            seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        if isinstance(self.topology, str):
            # Checked here for every method, without drawing the graph: a
            # server-coordinated one never routes over it (it is built
            # lazily, by the peer-to-peer methods only), but a misspelt
            # name or parameter, or one impossible on n_nodes nodes, is a
            # mistake to report whoever the estimator is.
            check_topology(self.topology, self.topology_params, n_nodes)
        simulation = NetworkSimulation(
            self, n_nodes, server=server, seed=seed, node_labels=node_labels
        )
        if server and not (self.topology is None or isinstance(self.topology, str)):
            # A server-coordinated method never routes over the topology, but
            # one given for another number of nodes is a mistake to report.
            simulation.adjacency
        return simulation


def resolve_network(network):
    """Return ``network`` or a perfect :class:`SimulatedNetwork` when None."""
    if network is None:
        return SimulatedNetwork()
    if not isinstance(network, SimulatedNetwork):
        raise TypeError(
            f"network must be a skfed.network.SimulatedNetwork or None, got "
            f"{type(network).__name__}."
        )
    return network


class NetworkSimulation:
    """One training run on a :class:`SimulatedNetwork`: faults and counters.

    Created by :meth:`SimulatedNetwork.start`; estimators use it, users see
    its result as ``communication_``.

    Attributes
    ----------
    n_nodes : int
    adjacency : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        The topology (1.0 on edges).
    rogue : ndarray of shape (n_nodes,), dtype=bool
        Nodes that are rogue for this run.
    counter : skfed._core._comm.CommCounter
        Message counter, handed to the Cython solvers.
    rng : numpy.random.Generator
        The stream the fault draws come from.
    """

    def __init__(self, network, n_nodes, *, server, seed, node_labels=None):
        self.network = network
        self.n_nodes = int(n_nodes)
        self.rng = np.random.default_rng(seed)
        # The topology has its own stream, drawn on first use, so methods
        # with a server (which never look at it) neither pay for it nor
        # shift the fault draws.
        self._topology_seed = int(self.rng.integers(2**31 - 1))
        self._node_labels = node_labels
        self._adjacency = None
        topology = network.topology
        if network.topology_params and not (topology is None or isinstance(topology, str)):
            raise ValueError("topology_params only apply to a named topology.")
        n_rogue = int(round(network.rogue_fraction * self.n_nodes))
        self.rogue = np.zeros(self.n_nodes, dtype=bool)
        if n_rogue:
            self.rogue[self.rng.choice(self.n_nodes, size=n_rogue, replace=False)] = True
        self.counter = CommCounter(self.n_nodes, server=server, header_bytes=network.header_bytes)

    @property
    def is_complete(self):
        """True when the topology is the complete graph (``None`` or ``"complete"``).

        Every node may then talk to every other: a method can draw its peers
        without building the ``n_nodes (n_nodes - 1)`` links of
        :attr:`adjacency`.
        """
        topology = self.network.topology
        return topology is None or (isinstance(topology, str) and topology == "complete")

    @property
    def adjacency(self):
        """The topology as a CSR matrix (1.0 on edges), built on first use."""
        if self._adjacency is None:
            self._adjacency = self._build_topology(self._node_labels)
        return self._adjacency

    def _build_topology(self, node_labels):
        topology = self.network.topology
        if topology is None:
            topology = "complete"
        if isinstance(topology, str):
            adjacency = _topology_csr(
                topology,
                self.n_nodes,
                self.network.topology_params,
                random_state=np.random.RandomState(self._topology_seed),
            )
        elif callable(topology) and not hasattr(topology, "nodes"):
            adjacency = topology(self.n_nodes, np.random.RandomState(self._topology_seed))
        else:
            adjacency = topology
            if hasattr(topology, "nodes") and node_labels is not None:
                labels = list(node_labels)
                if set(topology.nodes()) == set(labels):
                    import networkx as nx

                    adjacency = nx.to_scipy_sparse_array(topology, nodelist=labels, weight=None)
        return check_adjacency(adjacency, self.n_nodes)

    def neighbors(self, node):
        """Indices of the neighbours of ``node`` in the topology."""
        start, end = self.adjacency.indptr[node], self.adjacency.indptr[node + 1]
        return self.adjacency.indices[start:end]

    def draw_rounds(self, n_rounds):
        """Draw the faults of ``n_rounds`` rounds at once.

        Returns
        -------
        active : ndarray of shape (n_rounds, n_nodes), dtype=bool
            False where a node is dropped in that round.
        work : ndarray of shape (n_rounds, n_nodes), dtype=float64
            Fraction of its local work each node does: 1 for a normal
            node, uniform in ``[straggler_min_work, 1)`` for a straggler,
            0 for a dropped node.
        """
        shape = (int(n_rounds), self.n_nodes)
        net = self.network
        if net.is_perfect:
            # Nothing can fail: every node active with all its work, and the
            # stream moved past the draws as if they were made (the same
            # later draws), without 3 draws per node and round (a tree
            # round on a ring of n nodes draws n rounds: quadratic).
            self._skip_doubles(3 * shape[0] * shape[1])
            return np.ones(shape, dtype=bool), np.ones(shape)
        active = self.rng.uniform(size=shape) >= net.drop_rate
        straggling = self.rng.uniform(size=shape) < net.straggler_rate
        fractions = self.rng.uniform(net.straggler_min_work, 1.0, size=shape)
        work = np.where(straggling, fractions, 1.0)
        work[~active] = 0.0
        return active, work

    def stream_active(self, n_rounds):
        """The ``active`` array of :meth:`draw_rounds`, drawn a block at a time.

        ``draw_rounds(n_rounds)`` allocates ``3 n_rounds n_nodes`` floats at
        once; a method that needs only ``active`` over many rounds reads it
        from the returned :class:`ActiveRounds` a block at a time, in memory
        ``O(block n_nodes)``, and gets the very same rows.  This simulation's
        stream is left where ``draw_rounds(n_rounds)`` leaves it, so the
        draws that follow are the same too.

        Parameters
        ----------
        n_rounds : int

        Returns
        -------
        ActiveRounds
        """
        n_rounds = int(n_rounds)
        # A stream of its own, starting where draw_rounds would start...
        own = np.random.Generator(type(self.rng.bit_generator)())
        own.bit_generator.state = self.rng.bit_generator.state
        # ...and this one moved past the 3 n_rounds n_nodes doubles that
        # draw_rounds takes (active, straggling, fractions)
        self._skip_doubles(3 * n_rounds * self.n_nodes)
        return ActiveRounds(own, n_rounds, self.n_nodes, self.network.drop_rate)

    def _skip_doubles(self, count):
        """Move the stream past ``count`` uniform doubles (one 64-bit output
        each), keeping the buffered 32-bit half that doubles do not touch."""
        state = self.rng.bit_generator.state
        self.rng.bit_generator.advance(count)
        moved = self.rng.bit_generator.state
        moved["has_uint32"], moved["uinteger"] = state["has_uint32"], state["uinteger"]
        self.rng.bit_generator.state = moved

    def draw_round(self):
        """Faults of one round: ``(active, work)`` of shape (n_nodes,)."""
        active, work = self.draw_rounds(1)
        return active[0], work[0]

    def draw_round_active(self, nodes):
        """``draw_round()[0][nodes]``, drawing only the entries of ``nodes``.

        The draws of the other nodes are skipped by advancing the stream
        (``draw_round`` takes ``3 n_nodes`` doubles, one 64-bit output each:
        ``active``'s first), so a round of a few nodes of a large network
        costs its nodes, and the stream is left where ``draw_round`` leaves
        it: later draws are the same.

        Parameters
        ----------
        nodes : array-like of int, sorted, without repeats

        Returns
        -------
        active : ndarray of shape (len(nodes),), dtype=bool
        """
        nodes = np.asarray(nodes, dtype=np.intp)
        if nodes.size and (np.any(np.diff(nodes) <= 0) or nodes[0] < 0
                           or nodes[-1] >= self.n_nodes):
            raise ValueError("nodes must be sorted node indices without repeats.")
        generator = self.rng.bit_generator
        state = generator.state
        # runs of consecutive nodes: one draw each, the gaps skipped
        breaks = np.flatnonzero(np.diff(nodes) > 1) + 1
        starts = np.concatenate([[0], breaks]).astype(np.intp)[: len(nodes)]
        ends = np.concatenate([breaks, [len(nodes)]]).astype(np.intp)[: len(nodes)]
        values = np.empty(len(nodes))
        position = 0
        for a, b in zip(starts.tolist(), ends.tolist()):
            generator.advance(int(nodes[a]) - position)
            values[a:b] = self.rng.random(b - a)
            position = int(nodes[b - 1]) + 1
        generator.advance(3 * self.n_nodes - position)
        # (advance clears the buffered 32-bit half, which doubles never use)
        moved = generator.state
        moved["has_uint32"], moved["uinteger"] = state["has_uint32"], state["uinteger"]
        generator.state = moved
        return values >= self.network.drop_rate

    def corrupt_bits(self, bits, node):
        """What node ``node`` sends in place of the bit vector ``bits``.

        Honest nodes send ``bits``; a rogue node sends its complement or
        random bits, per ``rogue_behavior``.
        """
        return self.corrupt_bit_rows(np.asarray(bits, dtype=bool)[None], [node])[0]

    def corrupt_values(self, values, node):
        """What node ``node`` sends in place of the float array ``values``.

        A rogue node sends ``-values`` ("complement") or Gaussian noise of
        the same scale ("random").
        """
        return self.corrupt_value_rows(np.asarray(values)[None], [node])[0]

    def corrupt_bit_rows(self, bits, nodes):
        """:meth:`corrupt_bits` of many nodes at once, without a loop over them.

        ``bits[k]`` is what node ``nodes[k]`` would send honestly.

        Returns
        -------
        ndarray of shape bits.shape, dtype=bool
        """
        return self._corrupt_rows(
            np.array(bits, dtype=bool), nodes, np.logical_not,
            lambda rows: self.rng.uniform(size=rows.shape) < 0.5,
        )

    def corrupt_value_rows(self, values, nodes):
        """:meth:`corrupt_values` of many nodes at once, without a loop over them.

        ``values[k]`` is what node ``nodes[k]`` would send honestly.

        Returns
        -------
        ndarray of shape values.shape
        """

        def noise(rows):
            # Gaussian noise at each row's root mean square (1 for a zero row).
            flat = rows.reshape(len(rows), -1)
            scale = np.sqrt(np.mean(flat**2, axis=1)) if flat.shape[1] else np.zeros(len(rows))
            scale[scale == 0] = 1.0
            scale = scale.reshape((-1,) + (1,) * (rows.ndim - 1))
            return self.rng.standard_normal(rows.shape) * scale

        return self._corrupt_rows(np.array(values), nodes, np.negative, noise)

    def _corrupt_rows(self, rows, nodes, complement, draw):
        """Replace the rows of rogue nodes by ``complement(rows)`` or ``draw(rows)``.

        Rows are taken in node order, so the random stream is the same as
        one call per node.
        """
        rogue = self.rogue[np.asarray(nodes, dtype=np.intp)]
        if rogue.any():
            if self.network.rogue_behavior == "complement":
                rows[rogue] = complement(rows[rogue])
            else:
                rows[rogue] = draw(rows[rogue])
        return rows

    def log(self, node_labels=None):
        """The counts so far as a :class:`CommunicationLog`."""
        return CommunicationLog.from_counter(self.counter, node_labels=node_labels)


class ActiveRounds:
    """Which nodes are up in each of ``n_rounds`` rounds, read a block at a time.

    Made by :meth:`NetworkSimulation.stream_active`; the rows are those of
    ``draw_rounds(n_rounds)[0]``.

    Attributes
    ----------
    remaining : int
        Rounds not read yet.
    """

    def __init__(self, rng, n_rounds, n_nodes, drop_rate):
        self._rng = rng
        self.remaining = int(n_rounds)
        self._n_nodes = int(n_nodes)
        self._drop_rate = drop_rate

    def read(self, n_rounds):
        """The next ``min(n_rounds, remaining)`` rounds.

        Returns
        -------
        ndarray of shape (min(n_rounds, remaining), n_nodes), dtype=uint8
            1 where a node is up, 0 where it is dropped.
        """
        n_rounds = min(int(n_rounds), self.remaining)
        self.remaining -= n_rounds
        draws = self._rng.uniform(size=(n_rounds, self._n_nodes))
        return np.ascontiguousarray(draws >= self._drop_rate, dtype=np.uint8)


# ---------------------------------------------------------------------- the log
class CommunicationLog:
    """What a fit communicated: per pair, per node and per round.

    Plain NumPy and SciPy inside, so it pickles and survives
    :func:`~sklearn.base.clone` of the estimator's fitted copies.  Endpoints
    are the nodes, in the order of the estimator's ``nodes_``, then the
    server when the method has one.

    Memory is linear in the number of endpoints and in the number of pairs
    that actually talked: the per-pair counts are stored as sparse matrices
    (``pair_bytes_sparse``, ``pair_messages_sparse``); per-endpoint and
    per-round totals are computed from them.  The dense ``pair_bytes`` and
    ``pair_messages`` views are built on access and take ``8 n_endpoints^2``
    bytes each (80 GB at 100,000 nodes): use them on small networks only.

    Parameters
    ----------
    pair_bytes, pair_messages : {ndarray, sparse matrix} of shape (n_endpoints, n_endpoints)
        Bytes / messages endpoint i sent to endpoint j.
    bytes_per_round, messages_per_round : array-like of shape (n_rounds,)
    node_labels : array-like of shape (n_nodes,), default=None
    has_server : bool, default=False
    header_bytes : int, default=16

    Attributes
    ----------
    node_labels : ndarray of shape (n_nodes,)
    has_server : bool
    header_bytes : int
    pair_bytes_sparse : scipy.sparse.csr_array of shape (n_endpoints, n_endpoints)
        ``pair_bytes_sparse[i, j]``: bytes endpoint i sent to endpoint j;
        only the pairs that talked are stored.
    pair_messages_sparse : scipy.sparse.csr_array of shape (n_endpoints, n_endpoints)
    bytes_per_round : ndarray of shape (n_rounds,)
    messages_per_round : ndarray of shape (n_rounds,)
    """

    def __init__(
        self,
        pair_bytes,
        pair_messages,
        bytes_per_round,
        messages_per_round,
        *,
        node_labels=None,
        has_server=False,
        header_bytes=DEFAULT_HEADER_BYTES,
        _checked=False,
    ):
        # ``_checked`` (private, for :meth:`from_counter`): the pair counts
        # are fresh int64 CSR arrays the log may own and prune in place, so
        # the copying check of user input is skipped.
        check = _owned_pair_matrix if _checked else _pair_matrix
        self.pair_bytes_sparse = check(pair_bytes, "pair_bytes")
        self.pair_messages_sparse = check(pair_messages, "pair_messages")
        if self.pair_bytes_sparse.shape != self.pair_messages_sparse.shape:
            raise ValueError(
                f"pair_bytes {self.pair_bytes_sparse.shape} and pair_messages "
                f"{self.pair_messages_sparse.shape} must have the same shape."
            )
        self.bytes_per_round = np.asarray(bytes_per_round, dtype=np.int64)
        self.messages_per_round = np.asarray(messages_per_round, dtype=np.int64)
        self.has_server = bool(has_server)
        self.header_bytes = int(header_bytes)
        n_nodes = self.pair_bytes_sparse.shape[0] - int(self.has_server)
        if node_labels is None:
            node_labels = np.arange(n_nodes)
        self.node_labels = np.asarray(node_labels)

    @classmethod
    def from_counter(cls, counter, node_labels=None):
        """Build a log from a :class:`~skfed._core._comm.CommCounter`.

        Costs memory linear in the pairs that talked (no dense copy).
        """
        snap = counter.snapshot(dense=False)
        # The snapshot's arrays are fresh int64 CSR arrays with sorted
        # indices: the log takes them as they are, without their zeros.
        return cls(
            snap["pair_bytes"], snap["pair_messages"],
            snap["round_bytes"], snap["round_messages"],
            node_labels=node_labels, has_server=snap["server"] >= 0,
            header_bytes=snap["header_bytes"], _checked=True,
        )

    def combine(self, later):
        """This log followed by ``later`` (same endpoints): pairs add up, rounds append.

        What a warm-started or ``partial_fit`` run reports; stays sparse.

        Parameters
        ----------
        later : CommunicationLog

        Returns
        -------
        CommunicationLog
        """
        if later.pair_bytes_sparse.shape != self.pair_bytes_sparse.shape:
            raise ValueError(
                f"Cannot combine logs over {self.pair_bytes_sparse.shape[0]} and "
                f"{later.pair_bytes_sparse.shape[0]} endpoints."
            )
        return CommunicationLog(
            self.pair_bytes_sparse + later.pair_bytes_sparse,
            self.pair_messages_sparse + later.pair_messages_sparse,
            np.concatenate([self.bytes_per_round, later.bytes_per_round]),
            np.concatenate([self.messages_per_round, later.messages_per_round]),
            node_labels=later.node_labels,
            has_server=later.has_server,
            header_bytes=later.header_bytes,
        )

    @property
    def pair_bytes(self):
        """Dense ``(n_endpoints, n_endpoints)`` bytes per pair (built on access).

        Takes ``8 n_endpoints^2`` bytes; prefer ``pair_bytes_sparse`` on
        large networks.
        """
        return self.pair_bytes_sparse.toarray()

    @property
    def pair_messages(self):
        """Dense ``(n_endpoints, n_endpoints)`` messages per pair (built on access).

        Takes ``8 n_endpoints^2`` bytes; prefer ``pair_messages_sparse`` on
        large networks.
        """
        return self.pair_messages_sparse.toarray()

    @property
    def n_endpoints(self):
        return self.pair_bytes_sparse.shape[0]

    @property
    def n_nodes(self):
        return len(self.node_labels)

    @property
    def n_rounds(self):
        return len(self.bytes_per_round)

    @property
    def total_bytes(self):
        """All bytes sent by every endpoint."""
        # (the stored values' sum: SciPy's sum() costs ten times more)
        return int(self.pair_bytes_sparse.data.sum())

    @property
    def total_messages(self):
        return int(self.pair_messages_sparse.data.sum())

    @property
    def bytes_sent(self):
        """Bytes sent per endpoint (nodes, then the server)."""
        return _row_sums(self.pair_bytes_sparse)

    @property
    def bytes_received(self):
        """Bytes received per endpoint (nodes, then the server)."""
        return _row_sums(self.pair_bytes_sparse.T)

    @property
    def messages_sent(self):
        return _row_sums(self.pair_messages_sparse)

    @property
    def messages_received(self):
        return _row_sums(self.pair_messages_sparse.T)

    def _endpoint_labels(self):
        labels = [str(label) for label in self.node_labels]
        if self.has_server:
            labels.append("server")
        return labels

    def to_dict(self):
        """Totals and per-endpoint / per-round arrays as a dict of plain values."""
        return {
            "total_bytes": self.total_bytes,
            "total_messages": self.total_messages,
            "n_rounds": self.n_rounds,
            "header_bytes": self.header_bytes,
            "endpoints": self._endpoint_labels(),
            "bytes_sent": self.bytes_sent.tolist(),
            "bytes_received": self.bytes_received.tolist(),
            "messages_sent": self.messages_sent.tolist(),
            "messages_received": self.messages_received.tolist(),
            "bytes_per_round": self.bytes_per_round.tolist(),
            "messages_per_round": self.messages_per_round.tolist(),
        }

    def to_frame(self):
        """Per-endpoint totals as a pandas DataFrame (needs pandas).

        One row per node, indexed by its label as a string (``str(label)``:
        ``frame.loc["6"]``, not ``frame.loc[6]``, for node ``6``), then a
        row ``"server"`` when there is one.
        """
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "CommunicationLog.to_frame needs pandas: pip install pandas"
            ) from exc
        return pd.DataFrame(
            {
                "bytes_sent": self.bytes_sent,
                "bytes_received": self.bytes_received,
                "messages_sent": self.messages_sent,
                "messages_received": self.messages_received,
            },
            index=pd.Index(self._endpoint_labels(), name="endpoint"),
        )

    def summary(self):
        """A short human-readable account of the communication."""
        sent = self.bytes_sent[: self.n_nodes]
        lines = [
            f"{self.total_bytes:,} bytes in {self.total_messages:,} messages over "
            f"{self.n_rounds} rounds ({self.n_nodes} nodes"
            + (" + server)" if self.has_server else ")"),
        ]
        if self.n_nodes:
            lines.append(
                f"per node sent: mean {sent.mean():,.0f}, max {sent.max():,} bytes "
                f"(node {self.node_labels[int(np.argmax(sent))]})"
            )
        if self.has_server:
            lines.append(
                f"server sent {int(self.bytes_sent[-1]):,} and received "
                f"{int(self.bytes_received[-1]):,} bytes"
            )
        lines.append(f"byte model: {self.header_bytes}-byte header per message")
        return "\n".join(lines)

    def __repr__(self):
        return (
            f"CommunicationLog(total_bytes={self.total_bytes}, "
            f"total_messages={self.total_messages}, n_rounds={self.n_rounds}, "
            f"n_nodes={self.n_nodes}, has_server={self.has_server})"
        )


def _pair_matrix(counts, name):
    """Per-pair counts (dense or sparse, square) as an int64 CSR array."""
    if sparse.issparse(counts):
        # A copy: pruning the zeros must not touch the caller's arrays.
        matrix = sparse.csr_array(counts, dtype=np.int64, copy=True)
    else:
        counts = np.asarray(counts)
        if counts.ndim != 2:
            raise ValueError(f"{name} must be 2-d, got shape {counts.shape}.")
        matrix = sparse.csr_array(counts.astype(np.int64))
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"{name} must be square, got shape {matrix.shape}.")
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix


def _owned_pair_matrix(matrix, name):
    """A CommCounter snapshot's fresh int64 CSR array, pruned and sorted in place."""
    if (not sparse.issparse(matrix) or matrix.dtype != np.int64 or matrix.format != "csr"
            or matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]):
        return _pair_matrix(matrix, name)
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix


def _row_sums(matrix):
    """Row sums of a sparse matrix as a 1-d int64 array."""
    return np.asarray(matrix.sum(axis=1), dtype=np.int64).ravel()
