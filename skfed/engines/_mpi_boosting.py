"""Dada, Perso-lin and their graph learner with the nodes spread over MPI ranks.

Private driver of :mod:`skfed.engines.mpi` for the estimators of
:mod:`skfed.boosting`.  Every rank runs this code; it
mirrors ``_BaseGraphPersonalized._fit_alternating`` of :mod:`skfed.boosting`
step for step, with the same random draws in the same order, so the result
equals the simulated fit:

* every rank builds the same :class:`~skfed.network.NetworkSimulation` and
  per-node seeds from the same ``random_state``, and so draws the same
  dropped steps and the same wake-up order (the Poisson clocks of the
  simulation are one xorshift stream, replayed on every rank by
  :func:`~skfed.engines._mpi_comm.rand_int`);
* the node that wakes up is computed only by the rank that owns it, with the
  simulation's Cython solver called for that one step
  (``fw_async``/``lin_async``/``graph_steps`` with ``n_steps=1`` on the
  clock state before the draw, so the solver draws the same node);
* what the node sends goes as real MPI messages to the ranks that need it:
  a Frank-Wolfe update ``(coordinate, signed step)`` per problem (Dada,
  replayed by the receivers with ``_boosting_fast._fw_public``'s
  arithmetic) or the new model (Perso-lin) to the ranks owning a graph
  neighbour, with the node's loss and the step's change of the objective
  (a short ``"step"`` message to the other ranks: every rank hears of every
  step); a graph step's request to the
  owners of the sampled peers, their answers (model, loss, degree), and the
  changed weights and degrees to the other ranks (each rank keeps the
  learned graph whole, O(links) memory).
* each rank counts its own nodes' messages in its own ``CommCounter`` (a
  graph step's peer answers are counted by the peers' ranks); the counters
  add up to the simulation's ``communication_``.
* a rank that stops answering is noticed by all the others at the same
  step, agreed lost (``Peer.agree``), and its nodes dropped from then on
  as the simulation drops a node; the block objectives, model sharing and
  the result are point-to-point exchanges with bounded waits, which also
  pool the survivors' copies of the lost nodes (:meth:`_Run.pooled_exchange`);
  the peer scores (Dada's, and Perso-lin's with ``peer_scoring=True``) of a lost
  node's links that only it could compute (on
  its own data) are 0 from then on.

What a rank holds: the data, margins, losses and models of its own nodes;
the public copies of its nodes' graph neighbours' models; the graph.  At
the start of every graph phase the ranks exchange their nodes' current
models and losses (``"models"`` in ``mpi_traffic_``), as the graph steps
of any node may sample any peer.
"""

import warnings
from functools import partial

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

from .._base import check_network_faults, node_seeds
from .._core._boosting_fast import fw_async, fw_local, lin_async, lin_local
from .._core._comm import CommCounter
from .._core._graph_fast import cap_node, graph_steps, pair_scores
from ..boosting import (
    _LOSSES,
    _BoostingState,
    _LinearState,
    _check_connected,
    _count_votes,
    _graph_objective_value,
    _tree_round_trip,
    _vote_messages,
    _vote_size,
    feature_relevance,
    fw_message_bytes,
    make_stumps,
    node_votes,
)
from ..graph import _GraphRunner, model_message_bytes, sparsify_to_connected
from ..network import CommunicationLog, payload_bytes, resolve_network
from ._mpi_comm import MPITimeoutError, Traffic, rand_int, sample_peers

TAG_FW = 11
TAG_REQUEST = 12
TAG_GRAPH = 13
TAG_FLOOD = 14

_EMPTY_U8 = np.zeros(0, dtype=np.uint8)
_EMPTY_I = np.zeros(0, dtype=np.intp)
_EMPTY_D = np.zeros(0)


class NodeBlock:
    """The nodes of one rank and their data, in the simulation's node order.

    Parameters
    ----------
    labels : ndarray of shape (n_nodes,)
        Sorted labels of all nodes (the fitted ``nodes_``).
    owner : ndarray of shape (n_nodes,)
        Rank owning each node.
    data : dict
        ``label -> (X, y, sample_weight or None)`` for this rank's nodes.
    """

    def __init__(self, labels, owner, rank, data):
        self.labels = labels
        self.owner = owner
        self.rank = rank
        self.K = len(labels)
        mine = np.flatnonzero(owner == rank)
        self.lo = int(mine[0]) if mine.size else 0
        self.hi = int(mine[-1]) + 1 if mine.size else 0
        self.mine = mine
        self.data = [data[labels[k].item() if hasattr(labels[k], "item") else labels[k]]
                     for k in mine]


def _local_arrays(block, local, classes, dtype):
    """Node-ordered X, y codes, sample weights and offsets of this rank's nodes."""
    Xs, ys, sws, counts = [], [], [], np.zeros(block.K, dtype=np.intp)
    for k, (X, y, sw) in zip(block.mine, local):
        Xs.append(X)
        ys.append(np.searchsorted(classes, y))
        sws.append(sw)
        counts[k] = X.shape[0]
    n_features = Xs[0].shape[1] if Xs else 0
    X = np.ascontiguousarray(np.concatenate(Xs) if Xs else np.zeros((0, n_features)),
                             dtype=dtype)
    codes = np.concatenate(ys) if ys else np.zeros(0, dtype=np.intp)
    sw = np.concatenate(sws) if sws else np.zeros(0)
    offsets = np.zeros(block.K + 1, dtype=np.intp)
    np.cumsum(counts, out=offsets[1:])
    return X, codes, np.ascontiguousarray(sw, dtype=dtype), offsets


def _targets(codes, n_classes, dtype):
    if n_classes == 2:
        Y = np.where(codes == 1, 1.0, -1.0)[None, :]
    else:
        Y = np.where(codes[None, :] == np.arange(n_classes)[:, None], 1.0, -1.0)
    return np.ascontiguousarray(Y, dtype=dtype)


# ---------------------------------------------------------------- flooding
def flood_extremes(peer, block, lo, hi, adjacency, counter, payload):
    """``boosting._flood_extremes`` with every node-to-node message on MPI.

    ``lo``/``hi`` hold this rank's nodes' rows (others are ignored).  Every
    round, each sending node's extremes go to the ranks owning its topology
    neighbours; a rank then merges what its nodes heard.
    """
    adjacency = sparse.csr_matrix(adjacency)
    K = block.K
    indptr, indices = adjacency.indptr, adjacency.indices.astype(np.intp)
    complete = adjacency.nnz == K * (K - 1)
    owner = block.owner
    senders = block.mine.copy()
    spent = 0
    n_rounds = 0
    while adjacency.nnz:
        any_senders = peer.allreduce_sum("control", int(senders.size))
        if not any_senders:
            break
        n_rounds += 1
        outgoing = {r: [] for r in range(peer.size) if r != peer.rank}
        for k in senders.tolist():
            nbrs = indices[indptr[k]: indptr[k + 1]]
            if nbrs.size:
                counter.multicast_message(k, np.ascontiguousarray(nbrs), payload)
                spent += int(nbrs.size) * (payload + counter.header_bytes)
            for r in np.unique(owner[nbrs]).tolist():
                if r != peer.rank:
                    outgoing[r].append(k)
        for r, ks in outgoing.items():
            ks = np.asarray(ks, dtype=np.intp)
            peer.send(r, TAG_FLOOD, "extremes", (ks, lo[ks], hi[ks]))
        heard = {}
        for k in senders.tolist():
            heard[k] = (lo[k], hi[k])
        for r in outgoing:
            _, (ks, los, his) = peer.recv(r, TAG_FLOOD, what="feature extremes")
            for i, k in enumerate(ks.tolist()):
                heard[k] = (los[i], his[i])
        new_lo, new_hi = lo.copy(), hi.copy()
        for l in block.mine.tolist():
            for k in indices[indptr[l]: indptr[l + 1]].tolist():
                if k in heard:
                    new_lo[l] = np.minimum(new_lo[l], heard[k][0])
                    new_hi[l] = np.maximum(new_hi[l], heard[k][1])
        if complete:
            lo, hi = new_lo, new_hi
            break
        mine = block.mine
        changed = ((new_lo[mine] < lo[mine]) | (new_hi[mine] > hi[mine])).any(axis=1)
        senders = mine[changed]
        lo, hi = new_lo, new_hi
    peer.flush()
    return lo, hi, spent


# ------------------------------------------------------ replicated graph rows
def _near(runner, nodes):
    """``nodes`` and their current graph neighbours (the rows a step may change)."""
    R = runner.row_capacity
    out = [np.asarray(nodes, dtype=np.intp)]
    for a in nodes:
        out.append(runner.nbr[a * R: a * R + runner.n_slots[a]])
    return np.unique(np.concatenate(out))


def _row_snapshot(runner, nodes):
    """``(nodes, counts, neighbours, weights, scores, degrees)`` of these rows."""
    R = runner.row_capacity
    nodes = np.asarray(nodes, dtype=np.intp)
    counts = runner.n_slots[nodes].copy()
    slots = np.concatenate([np.arange(a * R, a * R + c) for a, c in zip(nodes, counts)]
                           or [np.zeros(0, dtype=np.intp)]).astype(np.intp)
    cost = None if runner.slot_cost is None else runner.slot_cost[slots].copy()
    return (nodes, counts, runner.nbr[slots].copy(), runner.wv[slots].copy(), cost,
            runner.degree[nodes].copy())


def _changed_rows(before, after):
    """The nodes whose row (links, weights or degree) differs between two snapshots."""
    def rows(snap):
        nodes, counts, nbr, wv, _, degree = snap
        ends = np.cumsum(counts)
        return {int(a): (tuple(nbr[e - c: e]), tuple(wv[e - c: e]), float(d))
                for a, c, e, d in zip(nodes, counts, ends, degree)}

    old, new = rows(before), rows(after)
    return np.array(sorted(a for a in new if old.get(a) != new[a]), dtype=np.intp)


def _apply_rows(runner, update):
    """Overwrite the rows of ``update`` (a :func:`_row_snapshot` plus the capacity)."""
    nodes, counts, nbr, wv, cost, degree, capacity = update
    while runner.row_capacity < capacity:
        runner._grow()
    R = runner.row_capacity
    start = 0
    for a, c in zip(nodes.tolist(), counts.tolist()):
        row = slice(a * R, a * R + c)
        runner.nbr[a * R: (a + 1) * R] = -1
        runner.wv[a * R: (a + 1) * R] = 0.0
        runner.nbr[row] = nbr[start: start + c]
        runner.wv[row] = wv[start: start + c]
        if runner.slot_cost is not None:
            runner.slot_cost[a * R: (a + 1) * R] = np.nan
            if cost is not None:
                runner.slot_cost[row] = cost[start: start + c]
        runner.n_slots[a] = c
        start += c
    runner.degree[nodes] = degree


def _share(peer, item, obj, what):
    """Every rank's ``obj`` (a list in rank order), point to point with bounded waits.

    For the setup, before a lost rank can be survived: a rank that does not
    answer raises :class:`MPITimeoutError` (the command line then aborts).
    """
    for r in range(peer.size):
        if r != peer.rank:
            peer.send(r, TAG_FLOOD, item, obj)
    out = []
    for r in range(peer.size):
        out.append(obj if r == peer.rank else peer.recv(r, TAG_FLOOD, what=what)[1])
    peer.flush()
    return out


# ----------------------------------------------------------- the schedule
class _Run:
    """The replicated state of one Dada run on one rank."""

    def __init__(self, est, method, peer, block, state, simulation):
        self.est = est
        self.method = method
        self.peer = peer
        self.block = block
        self.state = state
        self.simulation = simulation
        self.counter = simulation.counter
        self.K = block.K
        self.block_starts = []     # start objective of every model block (the root's is used)
        self.block_deltas = []     # objective change of every step of every model block
        self.block_lengths = []    # iterations done in every model block
        self.lost = np.zeros(self.K, dtype=bool)   # nodes of the ranks agreed dead
        # Set when the peer scores just shared the models: the graph phase that
        # follows (with no model step between) uses them instead of sharing again.
        self._models_fresh = False

    # ------------------------------------------------------- lost ranks
    def lose(self, suspects, what):
        """Agree on the ranks that stopped answering; their nodes are dropped from now on."""
        if suspects:
            self.peer.agree(suspects, what)
        self.update_lost()

    def update_lost(self):
        self.lost = np.isin(self.block.owner, sorted(self.peer.dead))

    def counted(self, call, split=False):
        """``call(counter)``, counting only the messages between live nodes.

        A message to or from a node of a lost rank is not sent, so it is not
        counted either.  With ``split``, the messages sent by other ranks'
        nodes (a graph step's peer answers and cap messages) are returned
        for their ranks to count, so that each rank counts what its own
        nodes send (and a lost rank's counts hold only its nodes').

        Returns
        -------
        result, n_bytes, theirs
            ``call``'s result; the bytes counted (None when nothing was
            left out or split); ``(src, dst, bytes, messages)`` of the other
            ranks' nodes.
        """
        if not split and not self.lost.any():
            return call(self.counter), None, []
        scratch = CommCounter(self.K, header_bytes=self.counter.header_bytes)
        out = call(scratch)
        owner, rank = self.block.owner, self.peer.rank
        kept, theirs = 0, []
        for count in zip(*scratch.pair_counts()):
            s, d = count[:2]
            if self.lost[s] or self.lost[d]:
                continue
            kept += int(count[2])
            if owner[s] == rank:
                self.add_counts([count])
            else:
                theirs.append(tuple(int(c) for c in count))
        for _ in range(scratch.n_rounds):
            self.counter.next_round()
        return out, kept, theirs

    def add_counts(self, counts):
        """Count ``(src, dst, bytes, messages)`` of this rank's nodes in the current round."""
        header = self.counter.header_bytes
        owner, rank = self.block.owner, self.peer.rank
        for s, d, n_bytes, n_messages in counts:
            if owner[s] != rank:
                continue
            for _ in range(int(n_messages) - 1):
                self.counter.send_message(s, d, 0)
            self.counter.send_message(s, d, int(n_bytes) - int(n_messages) * header)

    # ------------------------------------------------------------- graph
    def set_graph(self, W):
        """Use graph W; recompute which ranks need each node's model updates."""
        state = self.state
        state.set_graph(W)
        owner = self.block.owner
        indptr, indices = state.indptr, state.indices
        self.listeners = []
        for k in range(self.K):
            ranks = np.unique(owner[indices[indptr[k]: indptr[k + 1]]])
            self.listeners.append([int(r) for r in ranks if r != owner[k]])

    def heard_copies(self):
        """This rank's copies of the lost nodes it hears (it owns one of their neighbours).

        Such a rank received every update of the lost node, with its loss,
        until it stopped: the copy is the lost node's last state.
        """
        lost = np.flatnonzero(self.lost)
        listeners = getattr(self, "listeners", None)
        if listeners is None or not lost.size:
            return None
        heard = np.array([k for k in lost if self.peer.rank in listeners[k]], dtype=np.intp)
        return heard, self.state.public[heard], self.state.losses[heard]

    def pooled_exchange(self, item, payload, what):
        """``peer.exchange`` of ``payload()``, pooling the ranks' copies of the lost nodes.

        Redone when it finds a rank lost (the payload may depend on who is
        lost, and the new lost nodes' copies are to be pooled too).
        """
        while True:
            known = set(self.peer.dead)
            parts = self.peer.exchange(item, (payload(), self.heard_copies()), what)
            self.update_lost()
            if self.peer.dead == known:
                break
        for _, copies in parts.values():
            if copies is not None:
                nodes, public, losses = copies
                self.state.public[nodes] = public
                self.state.losses[nodes] = losses
        return {r: part for r, (part, _) in parts.items()}

    def share_models(self):
        """Every rank gets every live node's current public model and graph loss.

        A lost rank's nodes get the last copies the survivors heard.
        """
        state, mine = self.state, self.block.mine
        parts = self.pooled_exchange(
            "models", lambda: (mine, state.public[mine], state.losses[mine]),
            "the nodes' models",
        )
        for nodes, public, losses in parts.values():
            state.public[nodes] = public
            state.losses[nodes] = losses

    def peer_scores(self, runner):
        """The peer scores of every stored link, each rank scoring on its own nodes' data.

        The simulated fit computes a score when a graph step first needs it
        and keeps it with the link; here each rank scores its nodes' stored
        links at the start of the phase (same arithmetic,
        :func:`~skfed._core._graph_fast.pair_scores`) and the ranks share
        them (``"scores"`` in ``mpi_traffic_``), so every step sees the same
        values; a step's new links get theirs from the step (the peer's
        answer carries its score).  Returns the marker the graph steps read
        as "scoring on".
        """
        state, block = self.state, self.block
        self.share_models()
        self._models_fresh = True
        runner.reset_scores()
        rows, cols, _, slots = runner.links()
        mine = np.isin(rows, block.mine)
        values = self._scores(rows[mine], cols[mine])
        # Point to point with bounded waits, as every exchange after the setup;
        # a lost rank's links keep the scores the survivors computed (none: 0).
        for where, got in self.peer.exchange("scores", (slots[mine], values),
                                             "the peer scores").values():
            runner.slot_cost[where] = got
        lost = np.isnan(runner.slot_cost[slots])
        runner.slot_cost[slots[lost]] = 0.0
        return "given"

    def _scores(self, rows, cols):
        """``e_kl`` for pairs whose scoring nodes ``rows`` are this rank's."""
        out = np.zeros(len(rows))
        if len(rows):
            H, Y, sw, offsets, confidence, loss, *fast = self.state.score_data()
            pair_scores(np.ascontiguousarray(self.state.graph_models()), H, Y, sw, offsets,
                        confidence, np.ascontiguousarray(rows, dtype=np.intp),
                        np.ascontiguousarray(cols, dtype=np.intp), out, loss, *fast)
        return out

    def score_exchange(self, runner, counter):
        """``_BoostingState.score_exchange``, this rank counting its own nodes."""
        return self.state.score_exchange(runner, counter, nodes=self.block.mine)

    def graph_run(self, runner, n_steps, budget, spent, end_rounds=False, record=False,
                  scoring=False):
        """``_GraphRunner.run`` with the waking node's rank doing each step.

        Every rank keeps the whole graph (the runner's rows); a step's rank
        sends the rows it changed to the others.  Returns ``(n_done, spent,
        curve)``: ``curve`` is ``h(w)`` after every step when ``record``
        (the step's rank sends it with the rows), empty otherwise.
        """
        state, peer, block = self.state, self.peer, self.block
        if not self._models_fresh:
            self.share_models()
        self._models_fresh = False
        models = np.ascontiguousarray(state.graph_models())
        if models.dtype not in (np.float32, np.float64):
            models = models.astype(np.float64)
        losses = np.ascontiguousarray(state.graph_losses(), dtype=np.float64)
        n_steps = int(n_steps)
        offline = runner._offline(n_steps)
        payloads = model_message_bytes(models, state.dtype)
        if not scoring:
            runner.slot_cost = None
        owner = block.owner
        params = (runner.mu, runner.mu_graph, runner.lambda_graph, runner.delta)
        clock = runner.clock
        objective = runner.objective(models, losses) if record else 0.0
        curve = np.zeros(n_steps if record else 0)
        n_done = 0
        for it in range(n_steps):
            if budget >= 0 and spent >= budget:
                break
            if end_rounds:  # the standalone learner: its iterations are the rounds
                peer.stop_if_told(it)
            before = clock.copy()
            k = rand_int(self.K, clock)
            n_done += 1
            if record:
                curve[it] = objective
            if (offline.shape[0] and offline[it]) or self.lost[k]:
                if end_rounds:
                    self.counter.next_round()
                continue
            o = int(owner[k])
            if o == peer.rank:
                spent, objective = self._graph_step(
                    k, it, before, models, losses, payloads, runner, params, spent,
                    end_rounds, objective, scoring)
                if record:
                    curve[it] = objective
                continue
            # The owner may itself wait up to the timeout for a peer's answer.
            try:
                while True:
                    tag, msg = peer.recv(o, timeout=2 * peer.timeout,
                                         what=f"graph step {it} of node {k}")
                    if tag == TAG_REQUEST:
                        _, asked = msg
                        scores = self._scores(asked, np.full(len(asked), k)) if scoring \
                            else None
                        peer.send(o, TAG_REQUEST, "peer_answer",
                                  (asked, models[asked], losses[asked],
                                   runner.degree[asked], scores))
                        continue
                    break
            except MPITimeoutError:
                self.lose({o}, f"graph step {it}")
                if end_rounds:
                    self.counter.next_round()
                continue
            _, rows, spent, suspects, theirs, objective = msg
            self.add_counts(theirs)
            if end_rounds:
                self.counter.next_round()
            if record:
                curve[it] = objective
            _apply_rows(runner, rows)
            if suspects:
                peer.dead |= set(suspects) - {peer.rank}
                self.update_lost()
        peer.flush()
        # Degrees are updated incrementally; recompute them exactly (as run()).
        runner.degree[:] = runner._row_sums()
        runner.linear_change = None
        return n_done, spent, curve[:n_done]

    def _graph_step(self, k, it, before, models, losses, payloads, runner, params, spent,
                    end_rounds, objective, scoring):
        """Node k's graph step on its rank; returns ``(spent, objective)``."""
        peer, owner = self.peer, self.block.owner
        state_copy = runner.node_state[k: k + 1].copy()
        peers = sample_peers(runner.topo_indptr, runner.topo_indices, runner.complete,
                             self.K, k, runner.kappa, state_copy, 0)
        kappa = max(runner.kappa, 1)
        peer_cost = np.zeros(2 * kappa) if scoring else None
        by_rank = {}
        for r_, l in enumerate(peers):
            # A lost peer is not asked: the step uses the copies every rank holds
            # (its last shared model and loss, its degree in the replicated graph)
            # and a score of 0.
            if owner[l] != peer.rank and not self.lost[l]:
                by_rank.setdefault(int(owner[l]), []).append(l)
            elif owner[l] == peer.rank and scoring:
                peer_cost[kappa + r_] = self._scores([l], [k])[0]
        for r, asked in by_rank.items():
            peer.send(r, TAG_REQUEST, "peer_request", (k, np.asarray(asked, dtype=np.intp)))
        suspects = set()
        for r in by_rank:
            try:
                _, (asked, _, their_losses, their_degree, scores) = peer.recv(
                    r, TAG_REQUEST, what=f"peer answers of node {k}"
                )
            except MPITimeoutError:
                suspects.add(r)
                continue
            losses[asked] = their_losses
            runner.degree[asked] = their_degree
            if scoring:
                for l, e in zip(asked.tolist(), scores):
                    peer_cost[kappa + peers.index(l)] = e
        if suspects:
            peer.dead |= suspects
            self.update_lost()
        if scoring:
            peer_cost[: len(peers)] = self._scores([k] * len(peers), peers)
        involved = [k] + peers
        rows_before = _row_snapshot(runner, _near(runner, involved))
        trace_peers = np.zeros(kappa, dtype=np.intp)
        mu, mu_graph, lam, delta = params
        start = int(spent)

        def step(counter):
            while True:
                clock = before.copy()
                _, used, value, _, full = graph_steps(
                    models, losses, runner.wv, runner.nbr, runner.n_slots, runner.degree,
                    runner.topo_indptr, runner.topo_indices, runner.complete, mu, mu_graph,
                    lam, delta, runner.kappa, 1, clock, runner.node_state, _EMPTY_U8,
                    payloads, counter, False, -1, start, objective, _EMPTY_D,
                    np.zeros(1, dtype=np.intp), trace_peers, _EMPTY_D, -1,
                    runner.slot_cost, peer_cost=peer_cost,
                )
                if full < 0:
                    break
                runner._grow()
            if runner.max_neighbors >= 0:
                for a in involved:
                    _, used, change, _ = cap_node(
                        models, losses, runner.wv, runner.nbr, runner.n_slots, runner.degree,
                        a, runner.max_neighbors, mu, mu_graph, lam, delta, counter, int(used),
                        runner.slot_cost)
                    value += change
            if end_rounds:
                counter.next_round()
            return value

        objective, kept, theirs = self.counted(step, split=True)
        spent = start + kept
        if trace_peers[: len(peers)].tolist() != peers:
            raise RuntimeError(
                f"The replayed peer sampling of node {k} disagrees with the solver's "
                f"({peers} vs {trace_peers.tolist()})."
            )
        nodes = np.union1d(rows_before[0], _near(runner, involved))
        now = _row_snapshot(runner, nodes)
        changed = _changed_rows(rows_before, now)
        rows = _row_snapshot(runner, changed) + (runner.row_capacity,)
        update = (it, rows, int(spent), sorted(suspects), theirs, objective)
        for r in peer.live_others():
            peer.send(r, TAG_GRAPH, "weights" if r in by_rank else "graph_update", update)
        return spent, objective

    # ------------------------------------------------------------- models
    def partial_objective(self):
        """This rank's terms of eq. 1: its nodes', and its edges to the lost nodes.

        The edge term between a lost node and a live node is added by the
        live node's rank, which heard every update of the lost node; the
        rest of a lost node's term by the root (:meth:`lost_objective`).
        """
        state, owner = self.state, self.block.owner
        value = 0.0
        A = state.public.reshape(self.K, -1).astype(np.float64)
        smooth = bool(state.graph.nnz and state.mu)
        for k in self.block.mine.tolist():
            d = state.degree[k]
            value += (d if d > 0 else 1.0) * state.confidence[k] * state.losses[k].sum()
            if smooth:
                s, e = state.indptr[k], state.indptr[k + 1]
                neigh = state.weights[s:e] @ A[state.indices[s:e]]
                value += 0.5 * state.mu * (d * A[k] @ A[k] - A[k] @ neigh)
        if smooth:
            for k in np.flatnonzero(self.lost).tolist():
                s, e = state.indptr[k], state.indptr[k + 1]
                nbrs, w = state.indices[s:e], state.weights[s:e]
                ours = owner[nbrs] == self.peer.rank
                value -= 0.5 * state.mu * float(w[ours] @ (A[nbrs[ours]] @ A[k]))
        return value

    def lost_objective(self):
        """The lost nodes' terms of eq. 1 but their edges to live nodes (pooled copies)."""
        state = self.state
        value = 0.0
        A = state.public.reshape(self.K, -1).astype(np.float64)
        smooth = bool(state.graph.nnz and state.mu)
        for k in np.flatnonzero(self.lost).tolist():
            d = state.degree[k]
            value += (d if d > 0 else 1.0) * state.confidence[k] * state.losses[k].sum()
            if smooth:
                s, e = state.indptr[k], state.indptr[k + 1]
                nbrs, w = state.indices[s:e], state.weights[s:e]
                both = self.lost[nbrs]
                value += 0.5 * state.mu * (d * float(A[k] @ A[k])
                                           - float(w[both] @ (A[nbrs[both]] @ A[k])))
        return value

    def model_block(self, t, n_steps, clock, node_state, offline, budget, spent):
        """``state.async_steps`` with each step on its node's rank.

        Every step's rank tells every other live rank that it took the step
        (with the change of the objective): the model update to the ranks
        holding a graph neighbour, a short ``"step"`` message to the others.
        So every live rank waits for every step, and a rank that stops
        answering is noticed by all at the same step: they agree it is lost
        (:meth:`lose`), and its nodes are dropped from then on, as the
        simulation drops a node (their steps do nothing; their neighbours
        keep their last models).
        """
        state, peer, block, method = self.state, self.peer, self.block, self.method
        K = self.K
        payload = method.payload(state)
        header = self.counter.header_bytes
        parts = self.pooled_exchange("control", self.partial_objective, "the objective")
        # Only the root's value is used (it returns the fit).
        start = sum(parts.values())
        if peer.rank == peer.root and self.lost.any():
            start += self.lost_objective()
        self.block_starts.append(start)
        first_iter = sum(self.block_lengths)
        deltas = np.zeros(n_steps)
        n_done = n_updates = 0
        owner = block.owner
        for it in range(n_steps):
            if budget >= 0 and spent >= budget:
                break
            peer.stop_if_told(first_iter + it)
            before = clock.copy()
            k = rand_int(K, clock)
            n_done += 1
            if (offline.shape[0] and offline[it]) or self.lost[k]:
                self.counter.next_round()
                continue
            step_t = t + n_updates
            o = int(owner[k])
            if o == peer.rank:
                old = state.public[k].astype(np.float64)
                delta, _, _ = self.counted(
                    partial(method.step, self, before, node_state, step_t, payload, spent)
                )
                deltas[it] = delta
                listening = [r for r in self.listeners[k] if r not in peer.dead]
                message = method.message(state, k, old, step_t, K) if listening else None
                loss = state.losses[k].tolist() if listening else None
                for r in peer.live_others():
                    if r in listening:
                        peer.send(r, TAG_FW, "model_update", (it, delta, message, loss))
                    else:
                        peer.send(r, TAG_FW, "step", (it, delta, None, None))
            else:
                try:
                    _, (_, delta, message, loss) = peer.recv(o, TAG_FW,
                                                             what=f"step {it} of node {k}")
                except MPITimeoutError:
                    self.lose({o}, f"step {first_iter + it}")
                    self.counter.next_round()
                    continue
                deltas[it] = delta
                if message is not None:
                    method.replay(state, k, message, step_t, K)
                    state.losses[k] = loss
                self.counter.next_round()
            n_updates += 1
            s, e = state.indptr[k], state.indptr[k + 1]
            live = int(np.count_nonzero(~self.lost[state.indices[s:e]]))
            spent += live * (payload + header)
        peer.flush()
        self.block_deltas.append(deltas[:n_done])
        return n_done, n_updates, spent


class _Dada:
    """How a Dada node steps, and what it sends: ``(j, s)`` per problem."""

    @staticmethod
    def models(state):
        return state.alpha

    @staticmethod
    def payload(state):
        return fw_message_bytes(state.n_base, state.P)

    @staticmethod
    def local(state, n_steps, lo, hi):
        fw_local(state.H, state.Y, state.sw, state.offsets, state.alpha, state.margins,
                 state.losses, state.beta, n_steps, lo, hi)

    @staticmethod
    def step(run, before, node_state, step_t, payload, spent, counter):
        state = run.state
        curve = np.zeros(1)
        fw_async(
            state.H, state.Y, state.sw, state.offsets, state.alpha, state.public,
            state.margins, state.losses, state.indptr, state.indices, state.weights,
            state.degree, state.confidence, state.beta, state.mu, int(step_t), 1,
            before, node_state, _EMPTY_U8, state.rogue, state.rogue_mode,
            counter, payload, -1, int(spent), 0.0, curve, _EMPTY_I, _EMPTY_I, _EMPTY_D,
        )
        return float(curve[0])

    @staticmethod
    def _gamma(step_t, K):
        return 2.0 * K / (float(step_t) + 2.0 * K)

    @classmethod
    def message(cls, state, k, old, step_t, K):
        gamma = cls._gamma(step_t, K)
        return [_fw_message(old[p], state.public[k, p], gamma, state.beta, state.dtype)
                for p in range(state.P)]

    @classmethod
    def replay(cls, state, k, message, step_t, K):
        gamma = cls._gamma(step_t, K)
        for p, item in enumerate(message):
            _replay_fw(state.public, k, p, item, gamma, state.dtype)


class _PersoLin:
    """How a Perso-lin node steps, and what it sends: its new model."""

    @staticmethod
    def models(state):
        return state.theta

    @staticmethod
    def payload(state):
        return payload_bytes(
            **{("n_float32" if state.dtype == np.float32 else "n_float64"):
               state.P * state.n_features}
        )

    @staticmethod
    def local(state, n_steps, lo, hi):
        lin_local(state.X, state.Y, state.sw, state.offsets, state.theta, state.loss,
                  state.inv_mass, state.lipschitz, state.l2, state.n_penalized, state.losses,
                  n_steps, lo, hi)

    @staticmethod
    def step(run, before, node_state, step_t, payload, spent, counter):
        state = run.state
        curve = np.zeros(1)
        lin_async(
            state.X, state.Y, state.sw, state.offsets, state.theta, state.public,
            state.losses, state.loss, state.inv_mass, state.lipschitz, state.l2,
            state.n_penalized, state.indptr, state.indices, state.weights, state.degree,
            state.confidence, state.mu, 1, before, node_state, _EMPTY_U8, state.rogue,
            state.rogue_mode, counter, payload, -1, int(spent), 0.0, curve, _EMPTY_I,
        )
        return float(curve[0])

    @staticmethod
    def message(state, k, old, step_t, K):
        return np.array(state.public[k])

    @staticmethod
    def replay(state, k, message, step_t, K):
        state.public[k] = message


def _fw_message(old, new, gamma, beta, dtype):
    """What a Frank-Wolfe step sends: ``(j, s)``, or the whole row if it cannot be read."""
    scaled = (old * (1.0 - gamma)).astype(dtype)
    diff = np.flatnonzero(new != scaled)
    if diff.size == 1:
        j = int(diff[0])
        s = beta if new[j] > scaled[j] else -beta
        replay = scaled.copy()
        replay[j] = dtype.type(float(scaled[j]) + gamma * s)
        if np.array_equal(replay, new):
            return (j, s)
    return np.array(new)


def _replay_fw(public, k, p, message, gamma, dtype):
    """``_boosting_fast._fw_public``: the receiver's copy takes the same step."""
    if isinstance(message, np.ndarray):
        public[k, p] = message
        return
    j, s = message
    row = (public[k, p].astype(np.float64) * (1.0 - gamma)).astype(dtype)
    row[j] = dtype.type(float(row[j]) + gamma * s)
    public[k, p] = row


# ------------------------------------------------------------------ driver
def _prepare(est, peer, block, validate):
    """Validate this rank's nodes and agree with the others on classes, dtype, masses.

    Sets ``nodes_``, ``classes_`` and ``n_features_in_`` as ``fit`` does.
    """
    est._validate_params()
    K = block.K
    local = [validate(block.labels[k], *d) for k, d in zip(block.mine, block.data)]
    summary = (
        np.unique(np.concatenate([y for _, y, _ in local])) if local else np.zeros(0),
        {X.shape[1] for X, _, _ in local},
        {X.dtype.str for X, _, _ in local},
    )
    parts = peer.allgather("setup", summary)
    classes = np.unique(np.concatenate([p[0] for p in parts]))
    widths = set().union(*[p[1] for p in parts])
    if len(widths) != 1:
        raise ValueError(f"The nodes' data have different numbers of features: {sorted(widths)}.")
    dtype = np.dtype(np.float32) if set().union(*[p[2] for p in parts]) == {"<f4"} \
        else np.dtype(np.float64)
    if len(classes) < 2:
        raise ValueError(
            f"{type(est).__name__} needs samples of at least 2 classes in the data, but the "
            f"data contains only one class: {classes[0]!r}."
        )
    est.nodes_ = block.labels
    est.classes_ = classes
    est.n_features_in_ = widths.pop()
    Xs, codes, sws, offsets = _local_arrays(block, local, classes, dtype)
    Y = _targets(codes, len(classes), dtype)
    mass_local = np.add.reduceat(sws.astype(np.float64), offsets[block.mine]) \
        if block.mine.size else np.zeros(0)
    mass = np.zeros(K)
    for nodes, m in peer.allgather("setup", (block.mine, mass_local)):
        mass[nodes] = m
    empty = np.flatnonzero(mass <= 0)
    if empty.size:
        raise ValueError(
            f"Node {block.labels.tolist()[empty[0]]!r} has no sample with positive weight; "
            "every node needs data (sample_weight sums to 0 there)."
        )
    return Xs, Y, sws, offsets, mass, dtype


def fit_dada(est, peer, block, validate, random_state):
    """Run one Dada fit on this rank; return the fitted estimator on rank 0."""
    _refuse(est)
    if est.base_predictors is not None:
        raise ValueError("The MPI engine builds decision stumps: base_predictors must be None.")
    if est.stump_placement == "quantile":
        raise ValueError(
            'The MPI engine agrees on feature ranges only: stump_placement="quantile" is not '
            'supported (use "range" or "global_range").'
        )
    Xs, Y, sws, offsets, mass, dtype = _prepare(est, peer, block, validate)
    K = block.K
    simulation, seeds = est._start(check_random_state(random_state))
    # Feature ranges (up and down the aggregation tree on a complete
    # topology, by flooding otherwise), the feature vote, then the stumps.
    d = est.n_features_in_
    mine = block.mine
    lo = np.zeros((K, d))
    hi = np.zeros((K, d))
    for k in mine.tolist():
        rows = slice(offsets[k], offsets[k + 1])
        keep = (sws[rows] > 0)[:, None]
        lo[k] = np.where(keep, Xs[rows], np.inf).min(axis=0)
        hi[k] = np.where(keep, Xs[rows], -np.inf).max(axis=0)
    payload = payload_bytes(
        **{("n_float32" if dtype == np.float32 else "n_float64"): 2 * d}
    )
    if simulation.is_complete:
        # The tree's sums: every rank sends its nodes' extremes to the others
        # (bounded waits); the tree's messages are what the counters count.
        parts = _share(peer, "extremes", (lo[mine].min(axis=0), hi[mine].max(axis=0))
                       if mine.size else None, "feature extremes")
        lo0 = np.min([p[0] for p in parts if p is not None], axis=0)
        hi0 = np.max([p[1] for p in parts if p is not None], axis=0)
        setup_bytes = _tree_round_trip(simulation, payload, payload, nodes=mine)
    else:
        _check_connected(simulation.adjacency)
        lo, hi, spent = flood_extremes(peer, block, lo, hi, simulation.adjacency,
                                       simulation.counter, payload)
        setup_bytes = peer.allreduce_sum("control", spent)
        ranges = peer.allgather("control", (lo[block.lo], hi[block.lo]) if mine.size else None)
        lo0, hi0 = next(r for r in ranges if r is not None)
    est.feature_range_ = np.vstack([lo0, hi0])
    varying = hi0 > lo0
    selected, votes, threshold = varying.copy(), None, None
    n_rows = None
    if est.feature_selection == "vote":
        # The pooled number of training samples, summed with the vote: the cap
        # of a feature's stumps (make_stumps' max_per_feature).
        n_rows = int(peer.allreduce_sum("setup", int(Xs.shape[0])))
        n_varying = int(varying.sum())
        q = _vote_size(n_varying)
        votes = np.zeros(d, dtype=np.int64)
        threshold = 0
        if n_varying > 1 and q < n_varying:
            # Every rank ranks its own nodes' features (same tie keys on every rank).
            tie_key = np.random.default_rng(seeds[:K]).random((K, d))
            own = np.zeros((mine.size, d), dtype=bool)
            if mine.size:
                counts = np.diff(offsets)[mine]
                codes = (Y[0] > 0).astype(np.intp) if Y.shape[0] == 1 else np.argmax(Y, axis=0)
                relevance = feature_relevance(Xs, codes, np.r_[0, np.cumsum(counts)], sws)
                own = node_votes(relevance, varying, q, tie_key[mine])
            ballots = np.zeros((K, d), dtype=bool)
            for nodes, part in _share(peer, "votes", (mine, own), "feature votes"):
                ballots[nodes] = part
            selected, votes, threshold = _count_votes(ballots, varying, q)
            setup_bytes += _vote_messages(simulation, ballots, selected, nodes=mine)
    if not selected.any():
        selected = np.ones(d, dtype=bool)
    est.selected_features_ = selected
    est.feature_votes_ = votes
    est.vote_threshold_ = threshold
    est.stump_features_, est.stump_thresholds_ = make_stumps(
        lo0, hi0, est.n_estimators, est.stump_placement, features=selected,
        max_per_feature=n_rows,
    )
    est.base_predictors_ = None
    H = est._base_matrix(Xs, dtype) if Xs.shape[0] else np.zeros(
        (0, est.n_estimators + int(est.fit_intercept)), dtype=dtype)
    state = _BoostingState(H, Y, sws, offsets, mass / mass.max(), est.beta, est.mu, dtype,
                           np.zeros(K, dtype=np.uint8), 0)
    state.setup_bytes = setup_bytes
    state.max_mass = float(mass.max())
    run = _Run(est, _Dada, peer, block, state, simulation)
    _alternate(est, run, simulation, seeds)
    fitted = _finish(est, run, state, H.shape[1] - int(est.fit_intercept))
    if fitted is not None:
        fitted.n_base_predictors_ = H.shape[1]
    return fitted


def fit_perso_lin(est, peer, block, validate, random_state):
    """Run one Perso-lin fit on this rank; return the fitted estimator on rank 0."""
    _refuse(est)
    Xs, Y, sws, offsets, mass, dtype = _prepare(est, peer, block, validate)
    simulation, seeds = est._start(check_random_state(random_state))
    Z = est._design(Xs, dtype)
    state = _LinearState(
        Z, Y, sws, offsets, mass, mass / mass.max(), _LOSSES[est.loss](), est.alpha,
        Xs.shape[1], est.mu, dtype, np.zeros(block.K, dtype=np.uint8), 0,
    )
    state.max_mass = float(mass.max())
    run = _Run(est, _PersoLin, peer, block, state, simulation)
    _alternate(est, run, simulation, seeds)
    return _finish(est, run, state, Xs.shape[1])


class _ModelsState:
    """The node models a standalone graph learner reads (all of them, once shared)."""

    def __init__(self, public, losses):
        self.public, self.losses, self.dtype = public, losses, public.dtype

    def graph_models(self):
        return self.public

    def graph_losses(self):
        return self.losses


def fit_graph(est, peer, block, validate, random_state):
    """Run one :class:`~skfed.graph.CollaborationGraphLearner` fit on this rank.

    Node k's data is its model (one row) and its loss (``y``, one value):
    ``save_partitions(models, losses, np.arange(n_nodes), directory)``
    writes them, a callable returns ``(model, loss)``.  Returns the fitted
    learner on the root.
    """
    est._validate_params()
    _refuse(est)
    K = block.K
    if K < 2:
        raise ValueError("CollaborationGraphLearner needs at least 2 nodes (models).")
    rows, values = [], []
    for k, (X, y, _) in zip(block.mine.tolist(), block.data):
        label = block.labels[k].item()
        model = check_array(np.atleast_2d(X), dtype=[np.float64, np.float32],
                            input_name=f"the model of node {label!r}")
        loss = np.asarray(y, dtype=np.float64).ravel()
        if model.shape[0] != 1 or loss.size != 1 or not np.isfinite(loss[0]):
            raise ValueError(
                f"Node {label!r} must hold one model (one row, got {model.shape[0]}) and one "
                f"finite loss (got {loss.size} values) for CollaborationGraphLearner."
            )
        rows.append(model[0])
        values.append(loss[0])
    parts = peer.allgather("setup", ({len(r) for r in rows}, {r.dtype.str for r in rows}))
    widths = set().union(*[p[0] for p in parts])
    if len(widths) != 1:
        raise ValueError(f"The nodes' models have different lengths: {sorted(widths)}.")
    dtype = np.dtype(np.float32) if set().union(*[p[1] for p in parts]) == {"<f4"} \
        else np.dtype(np.float64)
    n_dims = widths.pop()
    models = np.zeros((K, n_dims), dtype=dtype)
    losses = np.zeros(K)
    if rows:
        models[block.mine] = np.vstack(rows)
        losses[block.mine] = values
    mu_graph = est._mu_graph()
    check_network_faults(est, est.network, {
        "straggler_rate": "a wake-up is one atomic step",
    })
    rng = check_random_state(random_state)
    simulation = resolve_network(est.network).start(K, random_state=rng)
    seeds = node_seeds(rng, K + 1)
    runner = _GraphRunner(
        simulation, mu=est.mu, mu_graph=mu_graph, lambda_graph=est.lambda_graph,
        delta=est.delta, kappa=est.kappa, clock=seeds[K:].copy(),
        node_state=seeds[:K].copy(), max_neighbors=est.max_neighbors,
    )
    run = _Run(est, None, peer, block, _ModelsState(models, losses), simulation)
    max_iter = 100 * K if est.max_iter is None else est.max_iter
    budget = -1 if est.communication_budget is None else est.communication_budget
    n_done, _, curve = run.graph_run(runner, max_iter, budget, 0, end_rounds=True, record=True)
    peer.exchange("control", None, "the end of the run")
    gathered = peer.collect("result", simulation.counter.snapshot(dense=False))
    traffic = peer.collect("result", peer.traffic.as_dict())
    if gathered is None:
        return None
    graph = runner.graph_csr()
    if est.sparsify_graph == "connected":
        graph = sparsify_to_connected(graph)
    est.collaboration_graph_ = graph
    est.degree_ = np.asarray(graph.sum(axis=1)).ravel()
    est.nodes_ = block.labels
    est.n_features_in_ = n_dims
    est.n_iter_ = int(n_done)
    est.objective_curve_ = curve
    log = _merge_counts(gathered, est.nodes_)
    est.communication_ = log
    est.n_bytes_sent_ = log.total_bytes
    est.n_messages_ = log.total_messages
    est.bytes_per_round_ = log.bytes_per_round
    est.mpi_traffic_ = Traffic.merge(traffic)
    warn_lost(est, peer, block, "whose edges stay as last learned")
    return est


def refuse_privacy(est):
    """The MPI engine sends no noised messages: ``privacy=`` is refused, named."""
    if getattr(est, "privacy", None) is not None:
        raise ValueError(
            f"The MPI engine does not run {type(est).__name__}(privacy=...): its messages "
            "are not noised or accounted on MPI yet. Fit it simulated, or use privacy=None."
        )


def _refuse(est):
    """Settings the MPI engine does not run: a clear error naming each."""
    refuse_privacy(est)
    network = est.network
    if network is not None and network.rogue_fraction:
        raise ValueError(
            "The MPI engine runs honest nodes only: network.rogue_fraction must be 0."
        )


def _alternate(est, run, simulation, seeds):
    """The estimator's own ``_fit_alternating``, its steps on the MPI ranks."""
    est._fit_alternating(_RankState(run), simulation, seeds, None,
                         graph_runner=partial(_RankGraphRunner, run=run))


class _RankState:
    """A rank's view of the fit's state, as ``_fit_alternating`` drives it.

    Delegates to the method's state (``_BoostingState``/``_LinearState``,
    holding this rank's nodes' data); the purely local phase, the
    asynchronous steps and the graph changes go through the :class:`_Run`.
    """

    def __init__(self, run):
        self._run = run

    def __getattr__(self, name):
        return getattr(self._run.state, name)

    def local_models(self, n_steps, n_jobs):
        run, block = self._run, self._run.block
        if block.mine.size:
            run.method.local(run.state, n_steps, block.lo, block.hi)
        run.state.public[...] = run.method.models(run.state)

    def async_steps(self, t, n_steps, clock, node_state, offline, simulation, budget, spent):
        run = self._run
        n_done, n_updates, spent = run.model_block(
            t, n_steps, clock, node_state, offline, budget, spent
        )
        run.block_lengths.append(n_done)
        # The curve is summed on rank 0 at the end (_finish).
        return n_done, n_updates, spent, np.zeros(n_done)

    def set_graph(self, W, linear_change=None):
        self._run.set_graph(W)

    def peer_scores(self, runner):
        return self._run.peer_scores(runner)

    def score_exchange(self, runner, counter):
        return self._run.score_exchange(runner, counter)

    def objective(self):
        # Needs every node's model: computed on rank 0 at the end (_finish).
        return np.nan


class _RankGraphRunner(_GraphRunner):
    """The graph learner whose steps run on the waking nodes' ranks."""

    def __init__(self, simulation, *, run, **params):
        super().__init__(simulation, **params)
        self._run = run

    def run(self, models, losses, n_steps, *, model_dtype, budget=-1, spent=0,
            end_rounds=False, record=False, trace=False, score_data=None):
        n_done, spent, curve = self._run.graph_run(self, n_steps, budget, spent,
                                                   end_rounds=end_rounds, record=record,
                                                   scoring=score_data is not None)
        return n_done, spent, curve, None


def _finish(est, run, state, n_weights):
    """Gather models and counts on the root and set the fitted attributes.

    The root is the lowest live rank (rank 0 unless it stopped answering).
    ``n_weights`` is the number of model entries before the intercept's.
    A lost rank's nodes keep the last models the survivors heard (the copy
    of a rank owning a graph neighbour, else the root's copy from the last
    graph phase) and their counts are lost with their rank.
    """
    peer, block = run.peer, run.block
    # Every live rank agrees on who is still there, hence on the root.
    peer.exchange("control", None, "the end of the run")
    run.update_lost()
    snap = run.simulation.counter.snapshot(dense=False)
    mine = block.mine
    models = run.method.models(state)
    # A rank owning a graph neighbour of a lost node heard all its updates:
    # its copy is the lost node's last model.
    gathered = peer.collect("result", (mine, models[mine], state.losses[mine], snap,
                                       run.heard_copies()))
    traffic = peer.collect("result", peer.traffic.as_dict())
    if gathered is None:
        return None
    run.update_lost()
    P = state.P
    full = np.array(state.public, dtype=models.dtype)
    losses = np.array(state.losses, dtype=np.float64)
    snaps = []
    for nodes, a, l, s, copies in gathered:
        full[nodes] = a
        losses[nodes] = l
        if copies is not None:
            heard, public, heard_losses = copies
            full[heard] = public
            losses[heard] = heard_losses
        snaps.append(s)
    curves = [start + np.cumsum(d) for start, d in zip(run.block_starts, run.block_deltas)]
    est.objective_curve_ = np.concatenate(curves) if curves else np.zeros(0)
    est.objective_ = _graph_objective_value(full, losses, state.graph, state.degree,
                                            state.confidence, state.mu)
    est.collaboration_graph_ = state.graph.copy()
    est.confidence_ = state.confidence.copy()
    # What add_nodes needs, from the gathered final models and losses (a
    # rank holds only its own nodes' models of the graph phase, so joins
    # after an MPI fit are answered with the final models).
    est._join_info = {
        "losses": state.confidence * losses.sum(axis=1),
        "graph_models": None,
        "max_mass": float(state.max_mass),
        "rogue": np.zeros(len(est.nodes_), dtype=bool),
        "n_fit": len(est.nodes_),
    }
    log = _merge_counts(snaps, est.nodes_)
    est.communication_ = log
    est.n_bytes_sent_ = log.total_bytes
    est.n_messages_ = log.total_messages
    est.bytes_per_round_ = log.bytes_per_round
    coef = full[:, :, :n_weights]
    intercept = full[:, :, n_weights] if est.fit_intercept else np.zeros(full.shape[:2],
                                                                          full.dtype)
    if P == 1:
        est.coef_ = np.ascontiguousarray(coef[:, 0, :])
        est.intercept_ = np.ascontiguousarray(intercept[:, 0])
    else:
        est.coef_ = np.ascontiguousarray(coef)
        est.intercept_ = np.ascontiguousarray(intercept)
    est.mpi_traffic_ = Traffic.merge(traffic)
    warn_lost(est, peer, block)
    return est


def warn_lost(est, peer, block, kept="whose models are the last the survivors heard"):
    """Set ``mpi_lost_nodes_``; warn naming the lost ranks and nodes, if any."""
    lost = np.flatnonzero(np.isin(block.owner, sorted(peer.dead)))
    est.mpi_lost_nodes_ = est.nodes_[lost]
    if lost.size:
        warnings.warn(
            f"MPI rank(s) {sorted(peer.dead)} stopped answering; the fit went on without "
            f"their {lost.size} node(s) {est.nodes_[lost][:5].tolist()}, dropped from then "
            f"on as the simulation drops a node, {kept} (mpi_lost_nodes_ names them).",
            UserWarning,
        )


def _merge_counts(snaps, node_labels):
    """One :class:`CommunicationLog` from every rank's counter snapshot."""
    n_rounds = max(len(s["round_bytes"]) for s in snaps)

    def padded(values):
        out = np.zeros(n_rounds, dtype=np.int64)
        out[: len(values)] = values
        return out

    first = snaps[0]
    return CommunicationLog(
        sum(s["pair_bytes"] for s in snaps[1:]) + first["pair_bytes"] if len(snaps) > 1
        else first["pair_bytes"],
        sum(s["pair_messages"] for s in snaps[1:]) + first["pair_messages"]
        if len(snaps) > 1 else first["pair_messages"],
        sum(padded(s["round_bytes"]) for s in snaps),
        sum(padded(s["round_messages"]) for s in snaps),
        node_labels=node_labels,
        has_server=first["server"] >= 0,
        header_bytes=first["header_bytes"],
    )
