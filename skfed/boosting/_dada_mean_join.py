"""Dada newcomers of one class join by feature-mean neighbours (issue 32).

A newcomer whose samples are all of one class cannot rank its candidates'
models by its labels: on Landmine (5-20 samples, 6 % positives) its graph
row went mostly to fields of the other terrain.  The nodes' feature means
place it there, but only where tasks differ in their input distribution,
so a fit with ``join_neighbours="auto"`` (the default since dada25) first
runs the gate of :mod:`skfed._mean_neighbours`, with Dada's message sizes
(:mod:`skfed.boosting._dada_gate`; its messages in ``communication_``), where
:func:`gate_runs`: no ``privacy``, more than 6 nodes, a complete topology
and no bounding ``peer_view`` (its hub, fitted node 0, hears from every
node), not on the MPI engine
(every node's rows would have to meet on one rank); elsewhere newcomers
join by the graph (``newcomer_gate_`` None).  Each node scores on its own
rows the mean model of its 5 nearest-mean peers against the mean of all
others, and the gate opens when the gains' ``t`` exceeds ``GATE_T`` (3;
``newcomer_gate_``).

With the gate open (``newcomer_rule_ == "one-class"``), :meth:`add_nodes`
splits the call: newcomers holding samples of two classes or more join as
before (the graph join of :mod:`skfed._graph_join`, among themselves), then
the one-class newcomers (appended after them) each send the hub their
sample-weighted feature mean (``d`` float64), get back the 5 fitted nodes
nearest it and their masses (5 int32 and 5 float64; nearest by the
Mahalanobis distance of the fitted nodes' pooled within-node covariance,
below), ask those for their
models and take the mass-weighted mean of the models (no training, no
feature vote; the graph join's Frank-Wolfe model steps on the newcomer's
own samples from that mean scored 93.73 / 93.80 / 93.67 against 93.75 /
93.77 / 93.73 on Landmine seeds 0-5, k = 5 / 10 / 20: variant ``fw`` of
``benchmarks/dada_join_one_class.py``, which carries it).  Its graph row holds those nodes with the mass
shares as weights (each is sent its weight); its confidence is its mass
over the fit's largest.  Rounds repeat until the hub and the asked nodes
answer.  This is :func:`skfed._mean_neighbours.mean_neighbour_join`'s
protocol; its loss line is Perso-lin's (an l2 term), hence this copy.

Every other newcomer, every join with the gate closed and every fitted
node are exactly what the graph join gives.

**Placement by likelihood** (dada27).  A k-sample mean is noisy in the
directions where the features vary within a node: on Landmine its distance
to the newcomer's own mean (whitened) is 0.4-1.8 at k = 5, against 0.4-0.5
between the two terrains' nearest fields, and Euclidean distance weighs
every direction alike.  So when the gate opens, every fitted node but the
hub sends the hub its within-node scatter ``sum w (x - mean)(x - mean)^T``
(upper triangle, ``d (d + 1) / 2`` values in the fit's dtype, once; up to
``WHITEN_MAX_FEATURES`` = 32 features, else the query stays Euclidean), and
the hub ranks the fitted means by ``(a - b)^T S^+ (a - b)`` with ``S`` their
rogue-bounded sum (:mod:`skfed._mean_scatter`, shared with Perso-lin and
MOCHA; unit-free, node-level features kept): the order of the
Gaussian likelihood of the newcomer's mean under each node.  Measured
(``python benchmarks/dada_landmine_shrink.py --seeds ... --variants
mean,whitepool,oracle``, rows ``mean`` -> ``whitepool``, k = 5 / 10 / 20):
seeds 3-5 93.72 / 93.79 / 93.54 -> 93.81 / 93.83 / 93.64, seeds 0-2
93.77 / 93.76 / 93.92 -> 93.78 / 93.75 / 93.89, fresh seeds 6-17 93.73 /
93.85 / 94.04 -> 94.01 / 94.09 / 94.17 (per-seed paired t 2.3); +7-8 kB of
a 2.55-2.61 MB Landmine fit (0.3 %).  Shrinking the k-sample mean toward the
pooled mean by its standard error, per feature: with the newcomer's own
variance -0.09 / -0.03 / -0.07 on seeds 0-2 (fresh seeds 6-17 t 0.55), with
the pooled within-node variance -0.26 / 0.00 / -0.10 (seeds 3-5 -0.27 /
-0.19 / -0.03).

Measured (``python benchmarks/new_nodes.py --families dada --datasets
landmine --seeds 0,1,2 --ks 5,10,20 --dada-join-neighbours auto``; gate
open on all 6 Landmine fits of seeds 0-5, t 3.4-6.5): joins 93.52 / 93.56 /
93.76 -> 93.77 / 93.75 / 93.92 at ``k = 5 / 10 / 20`` (Global, pooled SVC,
93.81 / 93.77 / 93.78; join bytes 35-41 kB -> 16-31 kB); seeds 0-5
(``benchmarks/dada_join_one_class.py``): 93.74 / 93.77 / 93.73 against
Global 93.64 / 93.61 / 93.60.  Held out (moons, related-*, HAR,
shifted-alike; seeds 0-2): the gate stayed closed on every fit (largest t
2.13, shifted-alike seed 2), so those joins are the graph join's to the
row.  The gate's bytes were 0.10 MB of a 2.62 MB Landmine fit (4 %) and
0.37 MB of a 2.05 MB HAR fit (18 %: 561 features, its sums sent dense),
hence opt-in; with Dada's message sizes (dada25) 0.05 MB (2.0 %) and
0.08 MB (4.7 %), and the default (``benchmarks/dada_landmine_default.py``).
"""

import numpy as np
from sklearn.utils import _safe_indexing

from .._mean_neighbours import JOIN_NEIGHBOURS, N_NEAREST, mean_neighbour_join
from ._dada_gate import run_gate
from ._dada_view import resolve_peer_view

__all__ = ["JOIN_NEIGHBOURS", "gate_runs", "fit_gate", "one_class_nodes", "one_class_join", "OneClassJoinMixin"]


def gate_runs(est, simulation, spec):
    """Whether a fit ends with the gate: ``join_neighbours="auto"``, no
    ``privacy``, more than ``N_NEAREST + 1`` nodes (else every gain is 0), a
    complete topology and no bounding peer view (its hub, fitted node 0,
    hears from every node: a ring or a view of ``peer_view < n_nodes - 1``
    peers would be broken).  Elsewhere newcomers join by the graph
    (``newcomer_gate_`` None)."""
    K = simulation.n_nodes
    if spec is not None or est.join_neighbours != "auto" or K <= N_NEAREST + 1:
        return False
    view = (resolve_peer_view(est.peer_view, est.graph_signal_)
            if est.graph is None else None)
    return simulation.is_complete and (view is None or view >= K - 1)


def fit_gate(est, state, simulation, spec):
    """Run the gate at the end of a Dada fit where :func:`gate_runs`; set
    ``newcomer_rule_`` and ``newcomer_gate_`` (``"graph"`` and ``None`` when
    it does not run).  Its rounds count in the fit's last round of
    ``bytes_per_round_`` (one per iteration, as ``objective_curve_``)."""
    est.newcomer_rule_, est.newcomer_gate_ = "graph", None
    est.__dict__.pop("_feature_table", None)
    est.__dict__.pop("_feature_map", None)
    if not gate_runs(est, simulation, spec):
        return
    gate = run_gate(state.H, state.Y, state.sw, state.offsets, state.raw_X,
                    est._full_coef(), simulation)
    before, n_rounds = est.n_bytes_sent_, len(est.bytes_per_round_)
    est._set_communication(simulation)
    if n_rounds:
        per_round = est.bytes_per_round_
        est.bytes_per_round_ = np.concatenate(
            [per_round[:n_rounds - 1], [per_round[n_rounds - 1:].sum()]]).astype(per_round.dtype)
    est.newcomer_gate_ = {key: gate[key] for key in ("t", "mean_gain", "gains", "open", "m")}
    est.newcomer_gate_["n_bytes"] = int(est.n_bytes_sent_ - before)
    if gate["open"]:
        est.newcomer_rule_ = "one-class"
        est._feature_table = (gate["means"], gate["masses"])
        est._feature_map = gate.get("whiten")


def one_class_nodes(y, sw, layout, n_new):
    """Boolean mask of the newcomers whose positive-weight samples (one at
    least) are all of one class."""
    out = np.zeros(n_new, dtype=bool)
    for k in range(n_new):
        idx = layout.node_indices(k)
        labels = np.asarray(y)[idx][np.asarray(sw)[idx] > 0]
        out[k] = len(labels) > 0 and len(np.unique(labels)) == 1  # (weightless: graph join)
    return out


def _one_class_model(est, node, mean):
    """A one-class newcomer's model, its neighbours' mean, and its loss
    (Dada's local term has no penalty)."""
    return mean, node.confidence * float(node.data_losses(mean[None]).sum())


def one_class_join(est, X, y, groups, sample_weight=None):
    """Join one-class newcomers by their feature-mean neighbours (see the
    module): :func:`skfed._mean_neighbours.mean_neighbour_join` with Dada's
    table of means, network draws and newcomer model; their messages go to
    ``join_communication_``."""
    return mean_neighbour_join(est, X, y, groups, sample_weight, table=est._feature_table,
                               salt=104759, finish=_one_class_model,
                               hub_map=getattr(est, "_feature_map", None))


class OneClassJoinMixin:
    """``add_nodes`` of a Dada fit whose gate opened (see the module)."""

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        if getattr(self, "newcomer_rule_", "graph") != "one-class":
            return super().add_nodes(X, y, groups=groups, sample_weight=sample_weight)
        from .._base import check_network_faults
        from .._kept_local import extend_kept_local
        from ._base import NO_STRAGGLERS

        check_network_faults(self, self.network, NO_STRAGGLERS)  # (as in fit)

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
