"""Dada on MPI ranks: Frank-Wolfe messages and :func:`fit_dada`.

Private part of :mod:`skfed.engines.mpi`.  A Frank-Wolfe step of a node is
sent to the ranks owning its graph neighbours as ``(coordinate, signed
step)`` per problem (:func:`_fw_message`) and replayed there on their public
copy (:func:`_replay_fw`, ``_boosting_fast._fw_public``'s arithmetic).  The
schedule is ``_mpi_graph_run._Run``'s, shared with Perso-lin.  With
``graph_signal="kernel"`` (the default) the graph steps compare the nodes'
kernel graph models, fitted once before the model steps
(:func:`_kernel_graph_models`).
"""

import numpy as np
from sklearn.utils import check_random_state

from .._core._boosting_fast import fw_async, fw_local
from .._core._graph_fast import SentModels
from ..boosting import (
    _BoostingState,
    _check_connected,
    _count_votes,
    _tree_round_trip,
    _vote_messages,
    _vote_size,
    feature_relevance,
    fw_message_bytes,
    make_stumps,
    node_ballots,
)
from ..boosting._agreement import _size_median_messages
from ..boosting._dada import _node_sizes
from ..boosting._dada_vote import conditional_ballots, count_second_round, second_round_key
from ..boosting._kernel_graph import (
    graph_models_from_moments,
    graph_signal_used,
    moments_from_node_sums,
    node_moment_sums,
)
from ..boosting._stumps import resolve_n_estimators, vote_eligible
from .._node_mass import node_scale
from ..network import payload_bytes
from ._mpi_graph_fit import _alternate, _finish, _prepare, _refuse
from ._mpi_graph_run import _EMPTY_D, _EMPTY_I, _EMPTY_U8, _Run, _share, flood_extremes


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


def _kernel_graph_models(est, state, peer, block, Xs, sws, offsets, simulation, seeds):
    """``_kernel_graph.fit_graph_models`` on the ranks; return the bytes counted.

    Each rank computes its own nodes' moments (:func:`node_moment_sums`);
    the ranks share these rows and merge them in node order, as the
    simulation does, so the moments are its bit for bit (the aggregation
    tree's messages are counted, each rank counting its nodes', as
    :func:`pooled_moments` counts them).  Each rank then fits its own
    nodes' kernel models with the simulation's functions and sends them to
    the others once (``"kernel_models"`` in ``mpi_traffic_``): the models
    never change, and the graph steps of any node may sample any peer.
    Which receiver holds which model is counted as in the simulation
    (``state.sent_models``, replayed on every rank).
    """
    K, mine = block.K, block.mine
    features = np.flatnonzero(est.selected_features_)
    d = int(features.size)
    sums = np.zeros((K, 2 * d + 1))
    own = node_moment_sums(Xs, sws, offsets, features, mine)
    for nodes, part in _share(peer, "moments", (mine, own), "the kernel moments"):
        sums[nodes] = part
    mean, spread = moments_from_node_sums(sums)
    spent = _tree_round_trip(simulation, payload_bytes(n_float64=2 * d + 1),
                             payload_bytes(n_float64=2 * d), nodes=mine)
    phi, models = graph_models_from_moments(Xs, state.Y, sws, offsets, features, mean, spread,
                                            seeds, K, state.dtype)
    for nodes, part in _share(peer, "kernel_models", (mine, models[mine]),
                              "the kernel graph models"):
        models[nodes] = part
    state.kernel = (phi, models)
    state.sent_models = SentModels(K)
    est.kernel_features_ = features
    return spent


def _second_round(est, peer, simulation, Xs, codes, sws, local, mine, K, varying, selected,
                  threshold, sizes, seeds):
    """The vote's conditional second round (``feature_selection="conditional_vote"``),
    as :func:`skfed.boosting._dada_vote.vote_on_features` holds it: every rank
    casts its nodes' ballots (``codes``, ``local``: its rows' class codes and
    node offsets), the counts and messages are the simulation's."""
    d = varying.shape[0]
    candidates = varying & ~selected
    if not np.any(np.asarray(threshold) > 0) or not candidates.any():
        return selected, 0
    key = second_round_key(seeds[:K], (K, d))
    own = np.zeros((mine.size, d), dtype=bool)
    if mine.size:
        own, _ = conditional_ballots(Xs, codes, local, selected, candidates, key[mine],
                                     vote_eligible(sizes)[mine], sample_weight=sws)
    cast = np.zeros((K, d), dtype=bool)
    for nodes, part in _share(peer, "votes2", (mine, own), "second-round feature votes"):
        cast[nodes] = part
    added, votes, threshold = count_second_round(cast, candidates)
    est.conditional_features_, est.conditional_votes_ = added, (votes, threshold)
    return selected | added, _vote_messages(simulation, cast, added, nodes=mine)


def fit_dada(est, peer, block, validate, random_state):
    """Run one Dada fit on this rank; return the fitted estimator on rank 0."""
    _refuse(est)
    if est.beta == "auto":
        raise ValueError('The MPI engine runs one fit: beta="auto" (two candidate fits on '
                         "held-back rows, then the fit) is not supported; give a numeric beta.")
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
    est.vote_min_samples_ = None
    est._vote_tally = None  # what a join's vote adds to (skfed._graph_join)
    n_rows = None
    est.conditional_votes_ = None  # (no vote held: no second round either, as in the simulation)
    est.conditional_features_ = (np.zeros(d, dtype=bool)
                                 if est.feature_selection == "conditional_vote" else None)
    if est.feature_selection in ("vote", "conditional_vote"):
        # The pooled number of distinct positive-weight samples, summed with
        # the vote: the cap of a feature's stumps (make_stumps' max_per_feature).
        # Every node's size (who votes: vote_eligible), summed over the ranks.
        sizes = peer.allreduce_sum("setup", _node_sizes(Xs, sws, offsets))
        n_rows = int(sizes.sum())
        n_varying = int(varying.sum())
        q = _vote_size(n_varying)
        votes = np.zeros(d, dtype=np.int64)
        threshold = 0
        if n_varying > 1 and q < n_varying:
            # Every rank ranks its own nodes' features (same tie keys on every rank).
            tie_key = np.random.default_rng(seeds[:K]).random((K, d))
            own = np.zeros((mine.size, 2 * d + 1), dtype=bool)
            local = np.r_[0, np.cumsum(np.diff(offsets)[mine])]  # this rank's nodes' rows
            codes = (Y[0] > 0).astype(np.intp) if Y.shape[0] == 1 else np.argmax(Y, axis=0)
            if mine.size:
                relevance = feature_relevance(Xs, codes, local, sws)
                own = node_ballots(relevance, codes, local, varying, q, tie_key[mine],
                                   vote_eligible(sizes)[mine], sws)
            ballots = np.zeros((K, 2 * d + 1), dtype=bool)
            for nodes, part in _share(peer, "votes", (mine, own), "feature votes"):
                ballots[nodes] = part
            selected, votes, threshold = _count_votes(ballots, varying, q)
            est._vote_tally = (ballots[:, :d].any(1).sum(), ballots[:, 2 * d].sum(), n_rows)
            est.vote_min_samples_ = float(np.median(sizes))
            setup_bytes += _size_median_messages(simulation, sizes, nodes=mine)
            setup_bytes += _vote_messages(simulation, ballots, selected, nodes=mine)
            if est.feature_selection == "conditional_vote":
                selected, spent = _second_round(est, peer, simulation, Xs, codes, sws, local,
                                                mine, K, varying, selected, threshold, sizes,
                                                seeds)
                setup_bytes += spent
    if not selected.any():
        selected = np.ones(d, dtype=bool)
    est.selected_features_ = selected
    est.n_estimators_ = resolve_n_estimators(est.n_estimators, selected.sum())
    est.feature_votes_ = votes
    est.vote_threshold_ = threshold
    est.stump_features_, est.stump_thresholds_ = make_stumps(
        lo0, hi0, est.n_estimators_, est.stump_placement, features=selected,
        max_per_feature=n_rows,
    )
    est.base_predictors_ = None
    H = est._base_matrix(Xs, dtype) if Xs.shape[0] else np.zeros(
        (0, est.n_estimators_ + int(est.fit_intercept)), dtype=dtype)
    confidence, max_mass = node_scale(mass)
    state = _BoostingState(H, Y, sws, offsets, confidence, est.beta, est.mu, dtype,
                           np.zeros(K, dtype=np.uint8), 0, score_weight=est._score_weight())
    state.setup_bytes = setup_bytes
    state.max_mass, state.node_mass = max_mass, mass
    state.stump_layout = (est.stump_features_, est.stump_thresholds_)  # as the simulation
    est.graph_signal_ = graph_signal_used(est, None, K)
    est.__dict__.pop("kernel_features_", None)  # a previous kernel fit's
    if est.graph_signal_ == "kernel":
        state.setup_bytes += _kernel_graph_models(est, state, peer, block, Xs, sws, offsets,
                                                  simulation, seeds)
    run = _Run(est, _Dada, peer, block, state, simulation)
    _alternate(est, run, simulation, seeds)
    fitted = _finish(est, run, state, H.shape[1] - int(est.fit_intercept))
    if fitted is not None:
        fitted.n_base_predictors_ = H.shape[1]
        fitted.newcomer_rule_, fitted.newcomer_gate_ = "graph", None  # (MPI: no gate, as Perso-lin)
    return fitted
