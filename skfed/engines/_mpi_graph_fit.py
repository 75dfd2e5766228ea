"""The MPI driver shared by Dada, Perso-lin and the graph learner.

Private part of :mod:`skfed.engines.mpi`: the validation every rank runs
(``_prepare``), the alternation of model and graph phases on the ranks
(``_alternate``, with ``_RankState`` and ``_RankGraphRunner`` standing in for
the simulated fit's state and graph learner), the gathering of the result on
rank 0 (``_finish``), and :func:`fit_graph`, the graph learner alone on MPI.
How a run is scheduled over the ranks is in ``_mpi_graph_run.py``.
"""

import warnings
from functools import partial

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

from .._base import check_network_faults, node_seeds
from .._join_params import record_join_params
from .._node_ids import plain_label
from ..boosting import _graph_objective_value
from ..boosting._base import check_node_mass
from ..graph import _GraphRunner, sparsify_to_connected
from ..network import CommunicationLog, resolve_network
from ._mpi_comm import Traffic
from ._mpi_graph_run import _Run, _local_arrays, _targets


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
            f"data contains only one class: {classes[:1].tolist()[0]!r}."
        )
    est.nodes_ = block.labels
    record_join_params(est)
    est.classes_ = classes
    est.n_features_in_ = widths.pop()
    Xs, codes, sws, offsets = _local_arrays(block, local, classes, dtype)
    Y = _targets(codes, len(classes), dtype)
    mass_local = np.add.reduceat(sws.astype(np.float64), offsets[block.mine]) \
        if block.mine.size else np.zeros(0)
    mass = np.zeros(K)
    for nodes, m in peer.allgather("setup", (block.mine, mass_local)):
        mass[nodes] = m
    check_node_mass(mass, block.labels)
    return Xs, Y, sws, offsets, mass, dtype


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
        label = plain_label(block.labels[k])
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
    record_join_params(est)
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
        self.own_nodes = run.block.mine  # (a rank counts its own nodes' messages)

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
            end_rounds=False, record=False, trace=False, score_data=None, sent_models=None,
            dense_scores=False):
        n_done, spent, curve = self._run.graph_run(self, n_steps, budget, spent,
                                                   end_rounds=end_rounds, record=record,
                                                   scoring=score_data is not None,
                                                   sent_models=sent_models,
                                                   dense_scores=dense_scores)
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
