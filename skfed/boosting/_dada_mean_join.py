"""Dada newcomers of one class join by feature-mean neighbours (issue 32).

A newcomer whose samples are all of one class cannot rank its candidates'
models by its labels: on Landmine (5-20 samples, 6 % positives) its graph
row went mostly to fields of the other terrain.  The nodes' feature means
place it there, but only where tasks differ in their input distribution,
so a fit with ``join_neighbours="auto"`` first runs the gate of
:mod:`skfed._mean_neighbours` (its messages in ``communication_``; not
under ``privacy``; refused before the fit on a topology that is not
complete or a peer view under ``n_nodes - 1``, since its hub, fitted node 0,
hears from every node; refused by the MPI engine): each node scores on its
own rows the mean model of its 5 nearest-mean peers against the mean of
all others, and the gate opens when the gains' ``t`` exceeds ``GATE_T``
(3; ``newcomer_gate_``).

With the gate open (``newcomer_rule_ == "one-class"``), :meth:`add_nodes`
splits the call: newcomers holding samples of two classes or more join as
before (the graph join of :mod:`skfed._graph_join`, among themselves), then
the one-class newcomers (appended after them) each send the hub their
sample-weighted feature mean (``d`` float64), get back the 5 fitted nodes
nearest it and their masses (5 int32 and 5 float64), ask those for their
models and take the mass-weighted mean of the models (:data:`ONE_CLASS_MODEL` ``"mean"``; no
training, no feature vote).  Its graph row holds those nodes with the mass
shares as weights (each is sent its weight); its confidence is its mass
over the fit's largest.  Rounds repeat until the hub and the asked nodes
answer.  This is :func:`skfed._mean_neighbours.mean_neighbour_join`'s
protocol; its loss line is Perso-lin's (an l2 term), hence this copy.

Every other newcomer, every join with the gate closed and every fitted
node are exactly what the graph join gives.

Measured (``python benchmarks/new_nodes.py --families dada --datasets
landmine --seeds 0,1,2 --ks 5,10,20 --dada-join-neighbours auto``; gate
open on all 6 Landmine fits of seeds 0-5, t 3.4-6.5): joins 93.52 / 93.56 /
93.76 -> 93.77 / 93.75 / 93.92 at ``k = 5 / 10 / 20`` (Global, pooled SVC,
93.81 / 93.77 / 93.78; join bytes 35-41 kB -> 16-31 kB); seeds 0-5
(``benchmarks/dada_join_one_class.py``): 93.74 / 93.77 / 93.73 against
Global 93.64 / 93.61 / 93.60.  Held out (moons, related-*, HAR,
shifted-alike; seeds 0-2): the gate stayed closed on every fit (largest t
2.13, shifted-alike seed 2), so those joins are the graph join's to the
row.  The gate's bytes: 0.10 MB of a 2.62 MB Landmine fit (4 %), 0.37 MB of
a 2.05 MB HAR fit (18 %: 561 features), hence not the default.
"""

import numpy as np
from scipy import sparse
from sklearn.utils import _safe_indexing

from .._mean_neighbours import JOIN_NEIGHBOURS, N_NEAREST, hub_answer, run_gate
from ._dada_view import resolve_peer_view
from ..graph import model_message_bytes
from ..network import payload_bytes

__all__ = ["JOIN_NEIGHBOURS", "check_gate", "fit_gate", "one_class_nodes", "one_class_join", "OneClassJoinMixin"]

# What a one-class newcomer's model is: "mean", the mass-weighted mean of its
# neighbours' models, or "fw", the graph join's Frank-Wolfe model steps on its
# own samples from that mean (dada15's warm start), its row the mass shares
# (degree 1; 10 or the fitted nodes' mean degree gave the same predictions on
# Landmine seeds 0-2: from S / d the coupling's gradient starts at zero).
# Landmine seeds 0-5, k = 5 / 10 / 20: "mean" 93.75 / 93.77 / 93.73, "fw"
# 93.73 / 93.80 / 93.67 (benchmarks/dada_join_one_class.py): kept "mean".
ONE_CLASS_MODEL = "mean"


def check_gate(est, simulation, spec):
    """Refuse ``join_neighbours="auto"`` (before the fit) where the gate's
    hub (fitted node 0, which hears from every node) is not allowed: a
    topology that is not complete, or a peer view under ``n_nodes - 1``."""
    if spec is not None or est.join_neighbours == "graph":
        return
    K = simulation.n_nodes
    view = (resolve_peer_view(est.peer_view, est.graph_signal_)
            if est.graph is None and K > 1 else None)
    if not simulation.is_complete or (view is not None and view < K - 1):
        raise ValueError(
            "join_neighbours='auto' sends every node's feature mean to fitted node 0 "
            "after the fit: it needs a complete topology and a peer_view of at least "
            f"n_nodes - 1 ({K - 1}; this fit: topology {simulation.network.topology!r}, "
            f"peer view {view}); use join_neighbours='graph'.")


def fit_gate(est, state, simulation, spec):
    """Run the gate at the end of a Dada fit; set ``newcomer_rule_`` and
    ``newcomer_gate_`` (``None`` and ``"graph"`` when it does not run)."""
    est.newcomer_rule_, est.newcomer_gate_ = "graph", None
    est.__dict__.pop("_feature_table", None)
    if spec is not None or est.join_neighbours == "graph" or state.K < 3:
        return
    check_gate(est, simulation, spec)
    gate = run_gate(state.H, state.Y, state.sw, state.offsets, state.raw_X,
                    est._full_coef(), simulation)
    before = est.n_bytes_sent_
    est._set_communication(simulation)
    est.newcomer_gate_ = {key: gate[key] for key in ("t", "mean_gain", "gains", "open", "m")}
    est.newcomer_gate_["n_bytes"] = int(est.n_bytes_sent_ - before)
    if gate["open"]:
        est.newcomer_rule_ = "one-class"
        est._feature_table = (gate["means"], gate["masses"])


def one_class_nodes(y, sw, layout, n_new):
    """Boolean mask of the newcomers whose positive-weight samples (one at
    least) are all of one class."""
    out = np.zeros(n_new, dtype=bool)
    for k in range(n_new):
        idx = layout.node_indices(k)
        labels = np.asarray(y)[idx][np.asarray(sw)[idx] > 0]
        out[k] = len(labels) > 0 and len(np.unique(labels)) == 1  # (weightless: graph join)
    return out


def one_class_join(est, X, y, groups, sample_weight=None):
    """Join one-class newcomers by their feature-mean neighbours (see the
    module); their messages go to ``join_communication_``."""
    from .._graph_join import _design, _models, _Newcomer, _random_seed, _schedule, _targets
    from .._graph_join import _WARM_START
    from .._graph_join_fitted import csr_of_pairs, join_random_state, join_simulation

    info = est._join_info
    X, y, sample_weight, new_labels, layout = est._validate_join_data(
        X, y, groups, sample_weight)
    sw = (np.ones(X.shape[0]) if sample_weight is None
          else np.asarray(sample_weight, dtype=np.float64))
    means, masses = est._feature_table
    n_fit, n_old, n_new = len(means), len(est.nodes_), len(new_labels)
    models = _models(est)
    dtype = models.dtype
    seed = int(getattr(est, "_join_seed", 0))
    rng = join_random_state([_random_seed(est), seed, 104759])  # (the network's draws)
    sim = join_simulation(est, n_old + n_new, rng)
    rogue_old = np.asarray(info.get("rogue", np.zeros(n_old, bool)), dtype=bool)
    sim.rogue[:] = np.concatenate([rogue_old, np.zeros(n_new, dtype=bool)])
    own = [layout.node_indices(k) for k in range(n_new)]
    own_means = np.array([np.average(np.asarray(X[i], dtype=np.float64), axis=0,
                                     weights=sw[i]) for i in own])
    flat = models[:n_fit].reshape(n_fit, -1).astype(np.float64)
    payloads = model_message_bytes(flat, dtype)
    newcomers = n_old + np.arange(n_new, dtype=np.intp)
    # The newcomer's mean up to the hub (fitted node 0), which answers with its
    # m nearest fitted nodes and their masses (as in the gate's step 1).
    chosen, waiting = [None] * n_new, np.arange(n_new)
    up = payload_bytes(n_float64=means.shape[1])
    down = payload_bytes(n_float64=N_NEAREST, n_int32=N_NEAREST)
    while len(waiting):
        active = sim.draw_rounds(1)[0][0]
        sim.counter.send_pairs(newcomers[waiting], np.zeros(len(waiting), np.intp),
                               np.full(len(waiting), up, np.int64))
        if active[0]:
            sim.counter.send_pairs(np.zeros(len(waiting), np.intp), newcomers[waiting],
                                   np.full(len(waiting), down, np.int64))
            for k in waiting.tolist():
                chosen[k] = hub_answer(sim, means, own_means[k], N_NEAREST)
            waiting = waiting[:0]
        sim.counter.next_round()
    # The chosen nodes' final models (asked again until each answers).
    received = [dict() for _ in range(n_new)]
    while any(len(received[k]) < len(chosen[k]) for k in range(n_new)):
        active = sim.draw_rounds(1)[0][0]
        for k in range(n_new):
            todo = np.array([j for j in chosen[k] if int(j) not in received[k]], dtype=np.intp)
            if not len(todo):
                continue
            sim.counter.send_pairs(np.full(len(todo), newcomers[k], np.intp), todo,
                                   np.zeros(len(todo), np.int64))
            got = todo[active[todo]]
            sim.counter.send_pairs(got, np.full(len(got), newcomers[k], np.intp),
                                   payloads[got].astype(np.int64))
            answers = sim.corrupt_value_rows(flat[got].copy(), got) if len(got) else flat[got]
            for j, a in zip(got.tolist(), answers):
                received[k][j] = a
        sim.counter.next_round()
    shape = models.shape[1:]
    new_models = np.zeros((n_new,) + shape, dtype=dtype)
    losses, confidences, rows, cols, weights = np.zeros(n_new), np.zeros(n_new), [], [], []
    Z_all, Y_all = _design(est, X, dtype), _targets(est, y, dtype)
    _, n_steps = _schedule(est, int(info.get("n_fit", n_fit)))
    for k in range(n_new):
        c = np.asarray(chosen[k], dtype=np.intp)
        w = masses[c] / masses[c].sum()
        S = np.tensordot(w, np.stack([received[k][int(j)] for j in c]), axes=1)
        idx = own[k]
        node = _Newcomer(est, np.ascontiguousarray(Z_all[idx]),
                         np.ascontiguousarray(Y_all[:, idx]),
                         np.ascontiguousarray(sw[idx], dtype=dtype), float(info["max_mass"]),
                         dtype)
        if ONE_CLASS_MODEL == "fw":
            node.model_steps(np.ascontiguousarray(S.reshape(shape), dtype=np.float64), 1.0,
                             0, n_steps, None, _WARM_START * n_steps)
            new_models[k] = node.model[0]
        else:
            new_models[k] = S.reshape(shape)
        losses[k] = node.confidence * float(node.data_losses(new_models[k][None]).sum())
        confidences[k] = node.confidence
        rows.append(np.full(len(c), n_old + k))
        cols.append(c)
        weights.append(w)
    r = np.concatenate(rows).astype(np.intp)
    c = np.concatenate(cols).astype(np.intp)
    w = np.concatenate(weights)
    # Last round: each newcomer tells its neighbours their weight.
    sim.counter.send_pairs(r, c, np.full(len(r), payload_bytes(n_float64=1), np.int64))
    sim.counter.next_round()
    est._append_nodes(new_labels)
    n_coef = shape[1] - int(est.fit_intercept)
    coef = new_models[:, :, :n_coef]
    intercept = (new_models[:, :, n_coef] if est.fit_intercept
                 else np.zeros(new_models.shape[:2], dtype))
    if est.coef_.ndim == 2:
        coef, intercept = coef[:, 0, :], intercept[:, 0]
    est.coef_ = np.ascontiguousarray(np.concatenate([est.coef_, coef]))
    est.intercept_ = np.ascontiguousarray(np.concatenate([est.intercept_, intercept]))
    est.confidence_ = np.concatenate([est.confidence_, confidences])
    W_old = sparse.csr_matrix(est.collaboration_graph_)
    old_row = np.repeat(np.arange(n_old, dtype=np.intp), np.diff(W_old.indptr))
    est.collaboration_graph_ = csr_of_pairs(
        np.concatenate([W_old.data, w, w]), np.concatenate([old_row, r, c]),
        np.concatenate([W_old.indices, c, r]), n_old + n_new)
    graph_models = info.get("graph_models")
    est._join_info = dict(info, losses=np.concatenate([info["losses"], losses]),
                          rogue=np.concatenate([rogue_old, np.zeros(n_new, dtype=bool)]),
                          graph_models=None if graph_models is None else np.concatenate(
                              [graph_models, new_models]))
    est._join_seed = seed + 1
    est._record_join(sim.log(node_labels=est.nodes_))
    return est


class OneClassJoinMixin:
    """``add_nodes`` of a Dada fit whose gate opened (see the module)."""

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        if getattr(self, "newcomer_rule_", "graph") != "one-class":
            return super().add_nodes(X, y, groups=groups, sample_weight=sample_weight)
        from .._kept_local import extend_kept_local

        _, yv, swv, new_labels, layout = self._validate_join_data(X, y, groups, sample_weight)
        swv = np.ones(len(yv)) if swv is None else np.asarray(swv)
        one = one_class_nodes(yv, swv, layout, len(new_labels))
        if not one.any():
            return super().add_nodes(X, y, groups=groups, sample_weight=sample_weight)
        node_of = np.empty(len(yv), dtype=np.intp)
        for k in range(len(new_labels)):
            node_of[layout.node_indices(k)] = k
        rows = np.flatnonzero(one[node_of])

        def part(mask_rows):
            take = lambda a: None if a is None else _safe_indexing(a, mask_rows)  # noqa: E731
            return take(X), take(y), take(groups), take(sample_weight)

        if not one.all():
            Xm, ym, gm, sm = part(np.flatnonzero(~one[node_of]))
            super().add_nodes(Xm, ym, groups=gm, sample_weight=sm)
        Xo, yo, go, so = part(rows)
        n_before = len(self.nodes_)
        one_class_join(self, Xo, yo, go, so)
        extend_kept_local(self, len(self.nodes_) - n_before)
        return self
