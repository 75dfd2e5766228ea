"""Dada, Perso-lin and their graph learner with the nodes spread over MPI ranks.

Private driver of :mod:`skfed.engines.mpi` for the estimators of
:mod:`skfed.boosting`.  This module holds the schedule every rank runs
(``_Run``); the drivers are in ``_mpi_dada.py``, ``_mpi_persolin.py`` and
``_mpi_graph_fit.py`` (shared, and the graph learner alone).  Every rank runs this code; it
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
of any node may sample any peer.  Models that never change during the fit
(Dada's kernel graph models) are shared once, before the first graph phase
(``"kernel_models"``); the pairs whose receiver holds a sender's model are
replicated on every rank, so each step counts a model once per pair, as
the simulation does.
"""

from functools import partial

import numpy as np
from scipy import sparse

from .._core._comm import CommCounter
from .._core._graph_fast import cap_node, graph_steps, pair_scores, score_tables
from ..graph import model_message_bytes
from ._mpi_comm import MPITimeoutError, rand_int, sample_peers


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
        # score_tables of the shared models: built once per share, since the
        # one-step calls would otherwise rebuild them over every model.
        self._tables = None

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
        self._tables = None

    def tables(self, models, stumps=False):
        """:func:`~skfed._core._graph_fast.score_tables` of the shared ``models``.

        Built at the first call after :meth:`share_models` and kept: the
        models stay fixed through a graph phase, while a one-step call would
        rebuild the tables over every model (the simulation builds them once
        per phase, in one call).  ``stumps``: with Dada's stump scores (the
        int8 H), else only the distances' lists.
        """
        if self._tables is None:
            # The standalone graph learner's models are scored by nobody.
            score_data = getattr(self.state, "score_data", None)
            data = score_data() if score_data is not None else (None,) * 6
            H8, groups = (tuple(data[6:]) + (None, None))[:2]
            scored = H8 is not None and data[5] is None
            self._tables = (score_tables(models, data[0].shape[1] if scored else models.shape[1],
                                         groups if scored else None), scored)
        tables, scored = self._tables
        return tables if scored or not stumps else None

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
        block = self.block
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
            # Dada's kernel graph models are scored densely (graph_steps'
            # dense_scores in the simulation).
            dense = getattr(self.state, "kernel", None) is not None
            models = np.ascontiguousarray(self.state.graph_models())
            tables = (self.tables(models, stumps=True)
                      if fast and fast[0] is not None and loss is None else None)
            pair_scores(models, H, Y, sw, offsets,
                        confidence, np.ascontiguousarray(rows, dtype=np.intp),
                        np.ascontiguousarray(cols, dtype=np.intp), out, loss, *fast,
                        dense=dense, tables=tables)
        return out

    def score_exchange(self, runner, counter):
        """``_BoostingState.score_exchange``, this rank counting its own nodes."""
        return self.state.score_exchange(runner, counter, nodes=self.block.mine)

    def graph_run(self, runner, n_steps, budget, spent, end_rounds=False, record=False,
                  scoring=False, sent_models=None, dense_scores=False):
        """``_GraphRunner.run`` with the waking node's rank doing each step.

        Every rank keeps the whole graph (the runner's rows); a step's rank
        sends the rows it changed to the others.  Returns ``(n_done, spent,
        curve)``: ``curve`` is ``h(w)`` after every step when ``record``
        (the step's rank sends it with the rows), empty otherwise.

        ``sent_models`` (models fixed during the fit, every rank holding
        all of them: Dada's kernel graph models): the
        :class:`~skfed._core._graph_fast.SentModels` of the pairs whose
        receiver holds the sender's model, replicated on every rank (a
        step's rank sends its sampled peers with the rows, the others
        record the same pairs), so that each step counts a model's bytes
        once per pair as the simulation does.  ``dense_scores``: the models
        are dense (``graph_steps``' argument).
        """
        state, peer, block = self.state, self.peer, self.block
        self._sent, self._dense = sent_models, bool(dense_scores)
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
                        # (fixed models: every rank already holds them)
                        peer.send(o, TAG_REQUEST, "peer_answer",
                                  (asked, models[asked] if sent_models is None else None,
                                   losses[asked], runner.degree[asked], scores))
                        continue
                    break
            except MPITimeoutError:
                self.lose({o}, f"graph step {it}")
                if end_rounds:
                    self.counter.next_round()
                continue
            _, rows, spent, suspects, theirs, objective, peers = msg
            if sent_models is not None:
                for l in peers:  # the pairs graph_steps recorded on the step's rank
                    sent_models.insert(k, l)
                    sent_models.insert(l, k)
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
        if sent_models is not None:
            sent_models.check()
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
                    runner.slot_cost, peer_cost=peer_cost, sent_models=self._sent,
                    dense_scores=self._dense,
                    tables=None if self._dense else self.tables(models),
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
        update = (it, rows, int(spent), sorted(suspects), theirs, objective,
                  peers if self._sent is not None else None)
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
