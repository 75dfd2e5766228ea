"""Decentralized online kernel SGD with the nodes spread over MPI ranks.

Private driver of :mod:`skfed.engines.mpi` for
:class:`~skfed.online.DecentralizedKernelSGDClassifier` and
:class:`~skfed.online.DecentralizedKernelSGDRegressor`.  It mirrors
``_BaseDecentralizedKernelSGD._fit``/``_run`` round for round:

* every rank builds the same network simulation from the same seeds, so all
  ranks draw the same dropped nodes in every round, and every rank tracks
  every node's queue position (a synchronous round ends when every rank has
  done it);
* each rank calls the simulation's Cython ``run_rounds`` for one round at a
  time, with only its own nodes' queues non-empty, so only its nodes step;
* a node's step reads its neighbours' values ``f_j(x)``; the ranks owning a
  neighbour hold a copy of that neighbour's dictionary (points and weights,
  and its published copy in ``exchange_every`` mode), refreshed by one MPI
  message per rank after every round (``"round"`` in ``mpi_traffic_``,
  with the rank's report of the round), so ``run_rounds`` evaluates the same ``f_j(x)`` as in
  the simulation;
* every rank counts its own nodes' messages (skfed's byte model of the
  query protocol); the counters add up to the simulation's
  ``communication_``.

The consensus error of a round is a sum over the nodes of all ranks, so
``consensus_error_curve_`` equals the simulation's up to rounding.
"""


import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._base import check_network_faults, check_node_weights
from .._core import _online_fast
from .._join_params import record_join_params
from ..network import float_bytes
from ..online import _ROGUE, _ROUND_BLOCK, _one_blas_thread
from ..online._coupling import _collapsed
from ..online._linear import LinearData
from ..online._robust import count_scale_messages
from ..online._selection import count_selection_messages, tree_parents
from ._mpi_boosting import _merge_counts, refuse_privacy, warn_lost
from ._mpi_comm import MPITimeoutError, Traffic
from ._mpi_online_share import select_share

TAG_DICT = 21
TAG_SCALE = 22
TAG_SOLVE = 23


def fit_online(est, peer, block, validate, random_state):
    """Run one online kernel SGD fit on this rank; return the estimator on rank 0."""
    est._validate_params()
    refuse_privacy(est)
    K = block.K
    regressor = est._is_regressor()
    local = [validate(block.labels[k], *d, regressor=regressor)
             for k, d in zip(block.mine, block.data)]
    summary = (
        np.zeros(0) if regressor or not local else np.unique(np.concatenate(
            [y for _, y, _ in local])),
        {X.shape[1] for X, _, _ in local},
        {X.dtype.str for X, _, _ in local},
    )
    parts = peer.allgather("setup", summary)
    widths = set().union(*[p[1] for p in parts])
    if len(widths) != 1:
        raise ValueError(f"The nodes' data have different numbers of features: {sorted(widths)}.")
    dtype = np.dtype(np.float32) if set().union(*[p[2] for p in parts]) == {"<f4"} \
        else np.dtype(np.float64)
    network = est.network
    if network is not None and network.rogue_fraction:
        raise ValueError(
            "The MPI engine runs honest nodes only: network.rogue_fraction must be 0."
        )
    est.nodes_ = block.labels
    record_join_params(est)
    est.n_features_in_ = widths.pop()
    est._dtype = dtype
    classes = np.unique(np.concatenate([p[0] for p in parts])) if not regressor else None
    if not regressor:
        check_classification_targets(classes)
    est._init_targets(classes if not regressor else np.zeros(0), None, False)
    compress = est._check_hyperparameters()
    counts = np.zeros(K, dtype=np.intp)
    for k, (X, _, _) in zip(block.mine, local):
        counts[k] = X.shape[0]
    codes = np.repeat(np.arange(K), counts)
    X = np.ascontiguousarray(
        np.concatenate([X for X, _, _ in local]) if local
        else np.zeros((0, est.n_features_in_)), dtype=dtype)
    y = np.concatenate([y for _, y, _ in local]) if local else np.zeros(0)
    sw = np.concatenate([s for _, _, s in local]) if local else np.zeros(0)
    est._setup(X, codes, compress)
    check_network_faults(est, est.network, {
        "straggler_rate": "a step is one sample and cannot be cut",
    })
    check_node_weights(est, codes, sw)
    est._set_target_encoding(y, codes, combine=_RankReduce(peer, "setup"), sample_weight=sw)
    y_encoded = est._encode_targets(y)
    est.kernel_selection_ = None
    if est.kernel == "auto" and est.eta0 == "auto":
        # kernel="auto": every rank fits the candidates alone on its nodes'
        # training rows (the statistics the fits share by one allgather) and
        # the per-node held-out losses are summed by one allreduce, so every
        # rank chooses as the simulation does.
        kernel = est._select_kernel(
            X, codes, np.ascontiguousarray(sw, dtype=np.float64), y_encoded,
            est.max_epochs, est.shuffle, combine=_RankReduce(peer),
        )
        est._set_kernel(X, codes, kernel)
    gamma = np.zeros(K)
    for nodes, values in peer.allgather("setup", (block.mine, est.gamma_[block.mine])):
        gamma[nodes] = values
    est.gamma_ = gamma
    scale = float(np.abs(y_encoded).max()) if regressor and len(y) else (0.0 if regressor
                                                                        else 1.0)
    scale = max(peer.allgather("setup", scale))
    est._target_scale = max(getattr(est, "_target_scale", 0.0), scale)
    sample_weight = np.ascontiguousarray(sw, dtype=np.float64)
    est.consensus_selection_ = None
    est._reset_share()
    if est.consensus_penalty == "auto" and K > 1 and est.eta0 == "auto":
        _select_coupling(est, peer, block, X, codes, sample_weight, y_encoded,
                         est.max_epochs, est.shuffle)
    queues = est._make_queues(codes, est.max_epochs, est.shuffle)
    return _run(est, peer, block, X, y_encoded, sample_weight, queues, est.max_epochs,
                codes=codes)


def _select_coupling(est, peer, block, X, codes, sample_weight, y_encoded, epochs, shuffle):
    """``_CouplingSelectionMixin._select_coupling`` over the ranks.

    The set-up, the counted tree rounds and the choice are the mixin's own
    (:meth:`_coupling_setup` with this engine's reductions over the ranks,
    :meth:`_selection_counters`, :meth:`_adopt_coupling`); what differs is
    where the candidates run: every rank holds out its own nodes' samples
    (every 4th in arrival order, as simulated), runs both candidates on the
    training rows with this engine's rounds (their seeds and the strong
    candidate's graph are the simulation's: every rank draws them from the
    same seeds), scores its own nodes on their held-out rows, and one
    allreduce (``"coupling"`` in ``mpi_traffic_``) sums the per-node
    errors, so every rank chooses as the simulation does.  The messages of
    the candidates and of the spanning-tree rounds are counted by the rank
    of every sender and summed on the root (one message a rank), so
    ``communication_`` equals the simulation's.  The candidates' rounds are
    not stopped by an injected stop (the collectives after them need every
    rank).
    """
    K = len(est.nodes_)
    candidates, held, ready = est._coupling_setup(X, codes, sample_weight, y_encoded,
                                                  combine=_RankReduce(peer, "coupling"))
    train = ~held
    errors = np.full((len(candidates), K), np.nan)
    if not ready:
        est._adopt_coupling(candidates, errors, None)
        return
    snaps, fitted, finite = [], [], True
    for _, c, eps, topology, params in candidates:
        cand, queues = est._coupled_candidate(c, eps, topology, params, X[train],
                                              codes[train], epochs, shuffle)
        sim, consensus, _ = _rounds(cand, peer, block, X[train], y_encoded[train],
                                    sample_weight[train], queues, epochs, stoppable=False)
        cand._consensus_curve = np.asarray(consensus)
        cand._set_fitted()
        mine = block.mine
        finite &= bool(np.isfinite(cand._weights[mine]).all()
                       and np.isfinite(cand._avg_weights[mine]).all())
        errors[len(fitted)] = est._held_out_errors(cand, X[held], y_encoded[held],
                                                   codes[held], sample_weight[held])
        snaps.append(sim.counter.snapshot(dense=False))
        fitted.append(cand)
    # The rounds before the candidates (a robust loss's scale, kernel="auto"'s
    # sum) and the selection's own: this rank's nodes' messages.
    before, after = est._selection_counters(fitted[0].adjacency_, len(candidates),
                                            senders=block.mine)
    if before is not None:
        snaps.insert(0, before.snapshot(dense=False))
    snaps.append(after.snapshot(dense=False))
    # Every node's errors are non-zero on its own rank only: the sum is exact.
    reporting = ~np.isnan(errors[0])
    total = peer.allreduce_sum("coupling", np.vstack([
        np.where(np.isnan(errors), 0.0, errors), reporting[None].astype(np.float64),
        np.full((1, K), 0.0 if finite else 1.0)]))
    if np.any(total[-1] > 0):
        est._diverged("a consensus_penalty='auto' candidate (non-finite weights)")
    reporting = total[-2] > 0
    errors = np.where(reporting[None], total[:-2], np.nan)
    gathered = peer.collect("coupling", snaps)
    n_logs = len(snaps)
    est._consensus_curve = np.full(n_logs, np.nan)
    est._order_curve = np.zeros((n_logs, K), dtype=np.intp)
    if gathered is not None:
        logs = [_merge_counts([g[i] for g in gathered], est.nodes_) for i in range(n_logs)]
        first = n_logs - 1 - len(candidates)   # the candidates' logs: one round each
        for i in range(first, n_logs - 1):
            logs[i] = _collapsed(logs[i])
        log = logs[0]
        for later in logs[1:]:
            log = log.combine(later)
        est._log = log
        est.communication_ = log
    est._adopt_coupling(candidates, errors, fitted[1].adjacency_)
    if est._share_grid() is not None:
        # network_share="auto": the chosen candidate's network function and
        # the shares' held-out losses (skfed.online._share), over the ranks.
        choice = [cand[0] for cand in candidates].index(est.consensus_selection_["choice"])
        select_share(est, fitted[choice], fitted[0].adjacency_, peer, block,
                     (X[train], y_encoded[train], codes[train], sample_weight[train]),
                     (X[held], y_encoded[held], codes[held], sample_weight[held]))


class _RankReduce:
    """The kernel selection's reductions over the ranks (``"selection"`` in
    ``mpi_traffic_``): the element-wise max of the statistics, and the sum
    of the per-node losses (each node's are non-zero on its rank only, so
    the sum is exact)."""

    def __init__(self, peer, tag="selection"):
        self.peer = peer
        self.tag = tag

    def max(self, values):
        return np.max(self.peer.allgather(self.tag, values), axis=0)

    def sum(self, values):
        return self.peer.allreduce_sum(self.tag, values)

    def fmax(self, values):
        """Per-node values, NaN where a node is not this rank's: each node's
        value from its own rank (exact)."""
        return np.fmax.reduce(np.asarray(self.peer.allgather(self.tag, values)), axis=0)


def _run(est, peer, block, X, y, sample_weight, queues, epochs, codes=None):
    """``_BaseDecentralizedKernelSGD._run``, one round at a time on every rank
    (``codes``: the rows' indices into ``block``'s nodes, for a regressor's
    scale sums, see :func:`_scale_sums`)."""
    sim, consensus, orders = _rounds(est, peer, block, X, y, sample_weight, queues, epochs)
    samples = None if codes is None else (X, y, codes, sample_weight)
    return _finish(est, peer, block, sim, consensus, orders, samples)


def _rounds(est, peer, block, X, y, sample_weight, queues, epochs, stoppable=True):
    """The rounds of ``_run`` (every rank holding its own nodes' dictionaries
    and its neighbours' copies at the end); returns the network simulation,
    the consensus curve and this rank's nodes' model orders.  An injected
    stop (``faults={"stop": ...}``) counts the rounds of the fit itself
    (``stoppable``), not those of ``consensus_penalty="auto"``'s candidates."""
    K = len(est.nodes_)
    sim, network = est._start_network()
    n_candidates = est.__dict__.pop("_pending_selection", 0)
    scale_pending = est.__dict__.pop("_pending_scale", False)
    if n_candidates or scale_pending:
        # The simulation's round of the robust loss's scale and of the
        # kernel="auto" selection, counted by the rank of every sender (the
        # tree sums up, the scale and the choice back down).
        parents = tree_parents(est.adjacency_)
        if scale_pending:
            count_scale_messages(sim.counter, parents, senders=block.mine)
        if n_candidates:
            count_selection_messages(sim.counter, parents, n_candidates,
                                     senders=block.mine)
        sim.counter.next_round()
        est._consensus_curve = np.concatenate([est._consensus_curve, [np.nan]])
        est._order_curve = np.concatenate([est._order_curve, est._sizes[None]])
    # The step bound uses the largest k(x, x) and sample weight of all nodes.
    sup = est._kernel_sup(X, queues.codes) if len(X) else 0.0
    s_max = float(sample_weight.max()) if len(sample_weight) else 0.0
    sups = peer.allgather("setup", (sup, s_max))
    # (a consensus_penalty="auto" candidate: at least every row's, as simulated)
    est._kernel_sup_seen = max(max(s for s, _ in sups), getattr(est, "_kernel_sup_seen", 0.0))
    est._resolve_step(X[:0], np.array([max(m for _, m in sups)]))
    est._n_calls += 1
    lengths = queues.lengths
    all_lengths = np.zeros(K, dtype=np.int64)
    for nodes, values in peer.allgather("setup", (block.mine, lengths[block.mine])):
        all_lengths[nodes] = values
    done_all = np.zeros(K, dtype=np.intp)          # every node's steps so far
    limit = est._reserve(all_lengths, epochs)
    indptr, indices = est._exchange_graph()
    owner = block.owner
    mine = block.mine
    listeners = [sorted({int(r) for r in owner[indices[indptr[k]: indptr[k + 1]]]}
                        - {int(owner[k])}) for k in range(K)]
    rogue = np.zeros(K, dtype=np.uint8)
    value_bytes = float_bytes(est._dtype)
    loss = est._make_loss()
    averaging = est.average > 0
    avg_start = (est._n_steps + np.floor((1 - est.average) * lengths)).astype(np.int64)
    # Every node's publication period, from every node's pass length (as the
    # simulation computes it), and the rows of this rank's samples in the
    # dictionaries: which of them the neighbours already hold.
    period = est._exchange_period(X.shape[1], all_lengths // epochs)
    est._slot_ids[:] = -1
    sent = np.zeros(X.shape[0], dtype=np.uint8)
    consensus, orders = [], []
    stream, pending = None, None
    in_chunk = 0
    alive = np.ones(peer.size, dtype=bool)   # ranks still answering
    alive[sorted(peer.dead)] = False
    round_index = 0
    with _one_blas_thread():
        while True:
            node_alive = alive[owner]
            remaining = np.where(node_alive, all_lengths - done_all, 0)
            if not np.any(remaining > 0):
                break
            if pending is None or len(pending) == 0:
                # The fault draws, read a block at a time (as the simulation).
                if stream is None or stream.remaining == 0:
                    stream = sim.stream_active(int(remaining.max()))
                    in_chunk = 0
                pending = stream.read(max(1, _ROUND_BLOCK // max(K, 1)))
                # Every node holds the steps of these rounds: one step a round.
                queues.fill(len(pending))
                queue, queue_end, position = queues.queue, queues.queue_end, queues.position
            row = pending[:1].copy()
            row[0, ~node_alive] = 0     # a stopped rank's nodes neither step nor answer
            if stoppable:
                peer.stop_if_told(round_index)
            stepping = np.flatnonzero(row[0].astype(bool) & (remaining > 0))
            cons, n_pairs, bad = 0.0, 0, -1
            if np.any(position[mine] < queue_end[mine]):
                while True:
                    capacity = est._points.shape[1]
                    out = np.empty(1)
                    done, status, bad_node = est._run_rounds(
                        X, y, sample_weight, queue, queue_end, position, row, indptr,
                        indices, loss, rogue, _ROGUE[network.rogue_behavior], sim.counter,
                        value_bytes, avg_start, averaging, sent, period, out,
                        np.empty((1, K), dtype=np.intp),
                    )
                    if status == _online_fast.STATUS_NEED_CAPACITY:
                        est._grow(min(2 * capacity, limit))
                        continue
                    break
                if status == _online_fast.STATUS_DIVERGED:
                    bad = int(bad_node)
                else:
                    pairs = _active_pairs(stepping, mine, indptr, indices, row[0])
                    if pairs:
                        cons, n_pairs = float(out[0]) * pairs, pairs
            else:
                sim.counter.next_round()
            reports = _exchange_round(est, peer, block, stepping, listeners, alive, limit,
                                      (cons, n_pairs, bad), round_index)
            bads = [b for _, _, b in reports if b >= 0]
            if bads:
                est._diverged(f"node {est.nodes_[min(bads)]!r} after {in_chunk} rounds")
            total_pairs = sum(n for _, n, _ in reports)
            consensus.append(sum(c for c, _, _ in reports) / total_pairs if total_pairs
                             else np.nan)
            orders.append(est._sizes[mine].copy())
            done_all[stepping] += 1
            pending = pending[1:]
            in_chunk += 1
            round_index += 1
    return sim, consensus, orders


def _active_pairs(stepping, mine, indptr, indices, active):
    """Pairs (i, j) of this rank's stepping nodes i and their active neighbours j."""
    count = 0
    for i in np.intersect1d(stepping, mine).tolist():
        nbrs = indices[indptr[i]: indptr[i + 1]]
        count += int(active[nbrs].astype(bool).sum())
    return count


def _exchange_round(est, peer, block, stepping, listeners, alive, limit, report,
                    round_index):
    """End a round: reports and dictionaries to the other ranks, agreeing on who stopped.

    Every rank sends each other live rank one message: its report (consensus
    sum, pairs, diverged node) and the dictionaries of its nodes that
    stepped and neighbour that rank's nodes.  A rank whose message does not
    come within the timeout is suspected; the live ranks then exchange their
    suspicions, and every rank suspected by one is stopped for all: its
    message of this round is ignored and its nodes neither step nor answer
    from the next round on (a node the simulation drops for good).

    Returns
    -------
    reports : list of tuple
        The reports of this rank and of every live rank, in rank order.
    """
    others = peer.live_others()
    outgoing = {r: [] for r in others}
    for k in np.intersect1d(stepping, block.mine).tolist():
        size, pub = int(est._sizes[k]), int(est._pub_sizes[k])
        state = (k, est._points[k, :size], est._weights[k, :size], size,
                 est._pub_points[k, :pub], est._pub_weights[k, :pub], pub)
        for r in listeners[k]:
            if r in outgoing:
                outgoing[r].append(state)
    for r in others:
        peer.send(r, TAG_DICT, "round", (round_index, report, outgoing[r]))
    received, suspects = {}, set()
    for r in others:
        try:
            _, (_, their_report, states) = peer.recv(r, TAG_DICT, what=f"round {round_index}")
            received[r] = (their_report, states)
        except MPITimeoutError:
            suspects.add(r)
    # Every round, even without suspects: another rank may suspect one.
    peer.agree(suspects, f"round {round_index}")
    for r in peer.dead:
        alive[r] = False
    reports = {peer.rank: report}
    for r, (their_report, states) in received.items():
        if not alive[r]:
            continue
        reports[r] = their_report
        for k, points, weights, size, pub_points, pub_weights, pub in states:
            needed = max(size, pub)
            if needed > est._points.shape[1]:
                est._grow(max(needed, min(2 * est._points.shape[1], limit)))
            est._points[k, :size] = points
            est._weights[k, :size] = weights
            est._sizes[k] = size
            est._pub_points[k, :pub] = pub_points
            est._pub_weights[k, :pub] = pub_weights
            est._pub_sizes[k] = pub
    peer.flush()
    return [reports[r] for r in sorted(reports)]


def _finish(est, peer, block, sim, consensus, orders, samples=None):
    """Gather every live node's dictionary and counts on the root; set the fitted attributes.

    ``samples`` (this rank's ``X, y, codes, sample_weight``): a regressor's
    nodes then keep the scale sums of its joins (:func:`_scale_sums`)."""
    mine = block.mine
    sizes = est._sizes[mine]
    used = int(max(sizes.max() if len(sizes) else 0, 0))
    pub_used = int(est._pub_sizes[mine].max()) if len(mine) else 0
    node_state = (
        mine, sizes, est._points[mine, :used], est._weights[mine, :used],
        est._avg_weights[mine, :used],
        est._gram_inv[mine, :used, :used] if est._compress else None,
        est._pub_points[mine, :pub_used], est._pub_weights[mine, :pub_used],
        est._pub_sizes[mine], est._since_publish[mine], est._n_steps[mine],
        est._komp_error[mine], np.array(orders, dtype=np.intp).reshape(len(orders), len(mine)),
    )
    # Point to point, among the live ranks only (a stopped rank never answers).
    result = (node_state, sim.counter.snapshot(dense=False), peer.traffic.as_dict())
    gathered = peer.collect("result", result)
    if gathered is None:
        if samples is not None:
            _serve_solve(est, peer, samples)
            if est._is_regressor():
                _scale_sums(est, peer, samples)
        return None
    K = len(est.nodes_)
    capacity = max(1, max(int(s[1].max()) if len(s[1]) else 0 for s, _, _ in gathered),
                   max(int(s[8].max()) if len(s[8]) else 0 for s, _, _ in gathered))
    F, n_out = est._points.shape[2], est._n_outputs
    est._points = np.zeros((K, capacity, F), dtype=est._dtype)
    est._weights = np.zeros((K, capacity, n_out))
    est._avg_weights = np.zeros((K, capacity, n_out))
    est._gram_inv = np.zeros((K, capacity, capacity) if est._compress else (K, 0, 0))
    est._pub_points = np.zeros((K, capacity, F), dtype=est._dtype)
    est._pub_weights = np.zeros((K, capacity, n_out))
    est._sizes[:] = 0
    est._pub_sizes[:] = 0
    order = np.zeros((len(consensus), K), dtype=np.intp)
    for (nodes, sizes, points, weights, avg, gram, pub_p, pub_w, pub_s, since, steps, komp,
         orders), _, _ in gathered:
        used, pub_used = points.shape[1], pub_p.shape[1]
        est._sizes[nodes] = sizes
        est._points[nodes, :used] = points
        est._weights[nodes, :used] = weights
        est._avg_weights[nodes, :used] = avg
        if est._compress:
            est._gram_inv[nodes, :used, :used] = gram
        est._pub_points[nodes, :pub_used] = pub_p
        est._pub_weights[nodes, :pub_used] = pub_w
        est._pub_sizes[nodes] = pub_s
        est._since_publish[nodes] = since
        est._n_steps[nodes] = steps
        est._komp_error[nodes] = komp
        order[:, nodes] = orders
    finite = np.isfinite(est._weights).all(axis=(1, 2))
    finite &= np.isfinite(est._avg_weights).all(axis=(1, 2))
    if not finite.all():
        bad = np.flatnonzero(~finite)
        est._diverged(f"node {est.nodes_[bad[0]]!r} (non-finite weights at the end)")
    est._consensus_curve = np.concatenate([est._consensus_curve, np.asarray(consensus)])
    est._order_curve = np.concatenate([est._order_curve, order])
    est._merge_log(_merge_counts([s for _, s, _ in gathered], est.nodes_))
    est._set_fitted()
    # The network function, from the gathered dictionaries (the simulation's
    # protocol and counts: see skfed.online._network_function); the nodes of
    # a rank that stopped answering take no part in it (the trees span the
    # others, and their empty dictionaries count for nothing in the mean).
    lost = np.flatnonzero(np.isin(block.owner, sorted(peer.dead)))
    linear = None
    if samples is not None:
        # The network solve's sums and (join_function="auto") the linear
        # function's questions, from every rank's own nodes.
        solve = _SolveExchange(est, peer, samples)
        if est._linear_applies(est._points.shape[2]):
            linear = _LinearExchange(est, peer, samples)
        est._network_round(lost=lost, solve=True, node_sums=solve, linear_data=linear)
        solve.finish()
    else:
        solve = None
        est._network_round(lost=lost)
    traffic = [t for _, _, t in gathered]
    if solve is not None:
        traffic.append(solve.traffic.as_dict())
    if linear is not None:
        traffic.append(linear.finish())
    if samples is not None and est._is_regressor():
        traffic.append(_scale_sums(est, peer, samples))
    est.mpi_traffic_ = Traffic.merge(traffic)
    warn_lost(est, peer, block, "whose models stayed there (empty dictionaries here)")
    return est


def _ask_ranks(peer, traffic, category, message, out, what):
    """Send ``message`` to every live rank on ``TAG_SOLVE`` and place each
    answer ``(where, values)`` in ``out[where]`` (the rows of its own
    nodes); a rank that does not answer is lost.  The answers' sizes go in
    ``traffic`` under ``category``."""
    for r in peer.live_others():
        peer.send(r, TAG_SOLVE, category, message)
    for r in peer.live_others():
        try:
            where, values = peer.recv(r, TAG_SOLVE, what=what)[1]
        except MPITimeoutError:
            peer.dead.add(r)
            continue
        traffic.add(category, peer.last_nbytes)
        out[where] = values
    return out


class _SolveExchange:
    """The root's side of the network solve (step 4 of
    ``skfed.online._network_function``): called as its ``NodeSums``, it
    sends the points (once per component) and the weights to every live
    rank, which answer with their own nodes' reports; the root places each
    node's report where the simulation computes it, so the solve takes the
    same steps.  ``traffic``: this exchange's pickled bytes both ways, as
    ``Peer.send`` counted them (the root's own count of its sends and the
    size of every answer it received; the simulation's tree rounds are
    counted by the solve itself)."""

    def __init__(self, est, peer, samples):
        X, y, codes, sample_weight = samples
        self.peer, self.traffic, self.points = peer, Traffic(), None
        self.own = est._solve_sums(X, y, codes, sample_weight)
        self._sent = (peer.traffic.bytes.get("network_solve", 0),
                      peer.traffic.messages.get("network_solve", 0))

    def _send(self, r, message):
        self.peer.send(r, TAG_SOLVE, "network_solve", message)

    def __call__(self, D, gamma, A, nodes):
        return self._ask("weights", D, gamma, A, nodes, self.own(D, gamma, A, nodes))

    def errors(self, D, gamma, A, nodes):
        return self._ask("errors", D, gamma, A, nodes, self.own.errors(D, gamma, A, nodes))

    def held_losses(self, D, gamma, As, nodes):
        return self._ask("held", D, gamma, As, nodes, self.own.held_losses(D, gamma, As, nodes))

    def _ask(self, kind, D, gamma, A, nodes, out):
        if self.points is None or self.points[0] is not D or self.points[1] != gamma:
            self.points = (D, gamma)
            for r in self.peer.live_others():
                self._send(r, ("points", D, gamma))
        return _ask_ranks(self.peer, self.traffic, "network_solve", (kind, A, nodes), out,
                          "the network solve's sums")

    def finish(self):
        for r in self.peer.live_others():
            self._send(r, ("done",))
        self.peer.flush()
        self.traffic.add("network_solve",
                         self.peer.traffic.bytes.get("network_solve", 0) - self._sent[0],
                         self.peer.traffic.messages.get("network_solve", 0) - self._sent[1])


# What the ranks need of the network function for the linear gates.
_LINEAR_FUNCTION = ("network_dictionary_", "network_coef_", "network_gamma_",
                    "network_component_", "network_linear_share_")


class _LinearExchange:
    """The root's side of ``join_function="auto"`` (``skfed.online._linear``):
    it answers the linear solve's and gates' three questions
    (:class:`~skfed.online._linear.LinearData`: the nodes' reports at a
    ``w``, their sketches, their loss differences with the network
    function) by asking every live rank, which answers for its own nodes,
    and placing each node's answer where one process computes it, so the
    solve and the gates take the same steps as the simulation.  Before the
    first loss differences it sends the ranks the network function.  The
    messages are pickled on ``TAG_SOLVE`` (the ranks serve them in
    :func:`_serve_solve`) and counted as ``"network_linear"`` in
    ``mpi_traffic_``; the simulated tree rounds are counted by the solve."""

    def __init__(self, est, peer, samples):
        self.est, self.peer, self.traffic = est, peer, Traffic()
        self.own = LinearData(est, *samples)
        self._function_sent = False
        self._sent = (peer.traffic.bytes.get("network_linear", 0),
                      peer.traffic.messages.get("network_linear", 0))

    def reports(self, A, nodes):
        return self._ask(("linear_reports", nodes, A), self.own.reports(A, nodes))

    def sketches(self, nodes, omega):
        return self._ask(("linear_sketches", nodes, omega), self.own.sketches(nodes, omega))

    def differences(self, c, A, nodes):
        if not self._function_sent:
            self._function_sent = True
            function = tuple(getattr(self.est, name) for name in _LINEAR_FUNCTION)
            for r in self.peer.live_others():
                self.peer.send(r, TAG_SOLVE, "network_linear", ("linear_network", function))
        return self._ask(("linear_differences", nodes, c, A),
                         self.own.differences(c, A, nodes))

    def _ask(self, message, out):
        return _ask_ranks(self.peer, self.traffic, "network_linear", message, out,
                          "the linear function's answers")

    def finish(self):
        """This exchange's traffic (both ways, as ``Peer.send`` counted it)."""
        self.traffic.add("network_linear",
                         self.peer.traffic.bytes.get("network_linear", 0) - self._sent[0],
                         self.peer.traffic.messages.get("network_linear", 0) - self._sent[1])
        return self.traffic.as_dict()


def _answer_linear(est, linear, held, message):
    """A rank's answer to one of :class:`_LinearExchange`'s questions:
    ``(where, values)`` for its own nodes among the message's."""
    kind, nodes = message[0], message[1]
    where = np.flatnonzero(np.isin(nodes, held))
    mine = nodes[where]
    if kind == "linear_reports":
        return where, linear.reports(message[2], mine)
    if kind == "linear_sketches":
        return where, linear.sketches(mine, message[2])
    return where, linear.differences(message[2], message[3], mine)


def _serve_solve(est, peer, samples):
    """A rank's side of the network solve: its own nodes' reports
    (:class:`skfed.online._network_function.NodeSums`), for every weights
    the root sends, until it says done."""
    X, y, codes, sample_weight = samples
    # This rank's nodes' functions as the root reads them (the gate's own errors).
    sizes = est._sizes
    weights = est._avg_weights if est.average > 0 else est._weights
    est.dictionaries_ = [est._points[i, :sizes[i]].copy() for i in range(len(sizes))]
    est.dual_coef_ = [weights[i, :sizes[i]].copy() for i in range(len(sizes))]
    own = est._solve_sums(X, y, codes, sample_weight)
    held = np.unique(codes)
    D = gamma = linear = None
    while True:
        try:
            _, message = peer.recv(peer.root, TAG_SOLVE, what="the network solve")
        except MPITimeoutError:
            return
        if message[0] == "done":
            break
        if message[0] == "points":
            _, D, gamma = message
            continue
        if message[0] == "linear_network":
            for name, value in zip(_LINEAR_FUNCTION, message[1]):
                setattr(est, name, value)
            continue
        if message[0].startswith("linear_"):
            # (join_function="auto": the linear function's questions)
            if linear is None:
                linear = LinearData(est, X, y, codes, sample_weight)
            peer.send(peer.root, TAG_SOLVE, "network_linear",
                      _answer_linear(est, linear, held, message))
            continue
        kind, A, nodes = message
        where = np.flatnonzero(np.isin(nodes, held))
        answer = {"weights": own, "errors": own.errors, "held": own.held_losses}[kind]
        peer.send(peer.root, TAG_SOLVE, "network_solve",
                  (where, answer(D, gamma, A, nodes[where])))
    peer.flush()


def _scale_sums(est, peer, samples):
    """A regressor's scale sums of its joins, as the simulation keeps them.

    In the simulation every node computes ``(sum w f0 y, sum w f0^2, sum w)``
    over its own samples once the network function has reached it (the
    network round's messages, already counted; see
    ``_network_scale_sums``).  Here the root, which built the network
    function, sends it to every live rank (``"network"`` in
    ``mpi_traffic_``); each rank computes its own nodes' sums and sends them
    back (``"scale_sums"``), and the root keeps them in
    ``_network_fit_stats`` (and the join-offset sums,
    :mod:`skfed.online._join_offset`, in ``_network_offset_stats``).  The nodes of a rank that does not answer keep
    zero sums (a newcomer's scale leaves them out).  Called on every rank
    after ``Peer.collect``: the root with the fitted estimator, the
    others with their own.  Returns, on the root, the traffic of this
    exchange (both ways, pickled bytes, as ``Peer.send`` counted them: the
    root's own count of its sends and the size of each message it received;
    the ranks' own counts were gathered before it).
    """
    X, y, codes, sample_weight = samples
    names = ("network_dictionary_", "network_coef_", "network_gamma_", "network_component_")
    root = peer.root
    if peer.rank != root:
        try:
            _, function = peer.recv(root, TAG_SCALE, what="the network function")
        except MPITimeoutError:
            return
        for name, value in zip(names, function):
            setattr(est, name, value)
        est._keep_fit_sums(X, y, codes, sample_weight)   # (and the join offset's sums)
        peer.send(root, TAG_SCALE, "scale_sums", np.hstack([est._network_fit_stats,
                                                           est._network_offset_stats]))
        peer.flush()
        return
    function = tuple(getattr(est, name) for name in names)
    others = peer.live_others()
    traffic = Traffic()
    # Peer.send counts what it pickles: report its count of these sends.
    sent = peer.traffic.bytes.get("network", 0), peer.traffic.messages.get("network", 0)
    for r in others:
        peer.send(r, TAG_SCALE, "network", function)
    if others:
        traffic.add("network", peer.traffic.bytes["network"] - sent[0],
                    peer.traffic.messages["network"] - sent[1])
    # (each node's rows are on its rank only: the ranks' sums add up)
    est._keep_fit_sums(X, y, codes, sample_weight)
    sums = np.hstack([est._network_fit_stats, est._network_offset_stats])
    for r in others:
        try:
            part = peer.recv(r, TAG_SCALE, what="the scale sums")[1]
        except MPITimeoutError:
            peer.dead.add(r)
            continue
        traffic.add("scale_sums", peer.last_nbytes)  # as the sender's Peer.send counted it
        sums = sums + part
    peer.flush()
    est._network_fit_stats, est._network_offset_stats = sums[:, :3], sums[:, 3:]
    return traffic.as_dict()
