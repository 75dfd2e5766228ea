"""The linear network function newcomers may start from (``join_function="auto"``).

With a nonlinear ``kernel_`` the network function (:mod:`._network_function`)
is a compressed mean in that kernel, and a node that joins after the fit
starts from it or from its neighbours (:mod:`._join`).  Where the fitted
nodes' functions are nonlinear but the population's rule is nearly linear
(HAR's people), that start is bounded by the kernel: the newcomers score
under a pooled linear model (``benchmarks/online_join_linear_network.py``).
With ``join_function="auto"`` a classifier's ``fit`` therefore ends with
two more steps, after the network function's:

1. **Linear solve.**  The exact linear function ``w' x`` (``w`` of shape
   ``(n_features, n_outputs)``, one per connected component) minimizing the
   nodes' summed smooth loss plus ``(alpha_w W / 2) ||w||^2``, ``alpha_w
   = 3 x alpha`` (:mod:`._linear_solve`: one Nystrom-preconditioned L-BFGS
   solve on every node from ``w = 0``, at most 10 iterations).  Every
   evaluation is one tree round (:func:`._selection.tree_round`): every
   node sends its parent its subtree's loss, weight and gradient (``d
   n_out + 2`` float64; the first report also the ``d x rank`` Nystrom
   sketch) and receives the next ``w`` (``d n_out`` float64).
2. **Gate.**  Every node computes, on its own rows, its mean (weighted)
   loss with ``w' x`` and with the network function, and sends up the
   tree the sums of its difference, its square and its count (3 float64);
   the root computes the paired ``t`` over the nodes from them
   (:func:`t_from_sums`) and sends down its choice (an int32) and ``w``
   (``d n_out`` float64).  The gate is open when ``t <= LINEAR_GATE``: the
   fitted nodes' own losses favour the linear function over the network
   function they hold.

Both are rounds of ``network_communication_`` (so in ``n_bytes_sent_``),
under the fit's drops (a node that is dropped in a round reports or
forwards in a later one).  Recorded in ``network_linear_coef_`` and
``network_linear_gate_`` (with the solve's evaluations and penalty
factor).  A newcomer whose component's gate is open
receives ``w`` (``d n_out`` float64) instead of the network function and
starts from ``w' x`` with an empty dictionary: ``w' x`` is its *linear
term*, which it keeps (a fixed part of its function that its later steps
add kernel terms to: the solver :func:`~skfed._core._online_fast.run_rounds`
adds it wherever the node's function is read, in its own steps, its
answers and its neighbours' copies; it is public, so never sent again).
A node's linear term is ``linear_scale_[i] w_c``; the network function
built in a later ``partial_fit`` carries the subtree sums of those scales
(one float64 a message, only once some node has a term), so it is the
mean of the nodes' whole functions (``network_linear_share_``).

Not run by ``partial_fit`` (the fit's ``w`` and gate are kept), for a
regressor (no such evidence was measured), with a linear or affine
``kernel_`` (the network function is linear already) or with more than
``COORDINATE_LIMIT - 1`` features.  Refused by name with rogue nodes (the
reports are not checked).  The MPI engine's root runs it with its ranks
answering for their nodes (:class:`LinearData`'s questions,
``skfed.engines._mpi_online``).
"""

import numpy as np

from ..network import payload_bytes, resolve_network
from ._coordinates import COORDINATE_LIMIT, coordinate_points
from ._holdout import loss_values
from ._linear_solve import (
    CURVATURE,
    FIXED_FACTOR,
    NYSTROM_RANK,
    sketch_directions,
    solve_fixed,
)
from ._network_function import NodeSums
from ._selection import tree_round

# The gate opens when the paired t over the fitted nodes of (mean loss with
# w' x) - (mean loss with the network function) is at most this.  Measured
# (benchmarks/online_join_linear_choice.py, in-sample t): HAR -6.9 to -8.7
# (seeds 0-2), every held-out family +38 to +129 (Landmine, shared circles,
# with 40 noise features, 150 nodes of 8 rows).
LINEAR_GATE = -2.0

JOIN_FUNCTION_DOC = """\
join_function : {"network", "auto"}, default="network"
    What a node that joins after the fit (``add_nodes``) may start from.
    ``"network"``: the network function or its neighbours.  ``"auto"``:
    with a nonlinear ``kernel_``, ``fit`` also solves the linear function
    ``w' x`` on the nodes' summed losses (penalty ``3 x alpha``) and
    gates it on their own losses (``network_linear_gate_``,
    ``skfed/online/_linear.py``); when the gate is open, newcomers start
    from ``w' x``, which they keep as a linear term of their functions.  It
    costs the fit one tree round per solver evaluation (3.3-3.6 % of a
    HAR fit's bytes, 0.3-4.6 % where the gate stays closed), so it is
    opt-in (benchmarks/onlinedef37_linear_cut.py)."""

JOIN_FUNCTION_ATTRIBUTES = """\
network_linear_coef_ : list of ndarray of shape (n_features, n_outputs) or None
    The linear function of every component (``join_function="auto"``),
    None otherwise or where it was not solved.
network_linear_gate_ : dict or None
    ``t`` (per component), ``open`` (bool per component),
    ``evaluations`` of the linear solve and ``alpha_factor`` (its penalty
    over ``alpha``, 3); None without it.
network_linear_share_ : ndarray of shape (n_components,)
    The mean of the nodes' linear scales in the network function (0 until
    a network function is built after newcomers with a linear term
    joined): that function is its kernel part plus ``share w_c' x``.
linear_scale_ : ndarray of shape (n_nodes,)
    Every node's linear term ``linear_scale_[i] w_c``: 0 for the fitted
    nodes, 1 for a newcomer that started from ``w' x``."""


def _indent(text):
    return "".join("    " + line if line.strip() else line
                   for line in text.splitlines(True))


REGRESSOR_JOIN_FUNCTION_DOC = """join_function : {"network"}, default="network"
    What a newcomer of :meth:`add_nodes` starts from: the fitted network
    function (see ``network_share``).  The classifier's ``"auto"`` (a linear
    network function solved beside it) is not built for regression and is
    refused here by name."""


def with_join_function_doc(doc, regressor=False):
    """The classifier's docstring with ``join_function`` and its attributes
    (the regressor's: the parameter alone, its one value)."""
    doc = doc.replace("\n\n    Attributes\n", "\n" + _indent(
        REGRESSOR_JOIN_FUNCTION_DOC if regressor else JOIN_FUNCTION_DOC)
        + "\n\n    Attributes\n", 1)
    if regressor:
        return doc
    return doc.replace("\n\n    See Also\n", "\n" + _indent(JOIN_FUNCTION_ATTRIBUTES)
                       + "\n\n    See Also\n", 1)


def gate_sums(node_diff):
    """What the nodes send up the gate's tree, summed: ``(sum d, sum d^2,
    n)`` (the root's ``t``: :func:`t_from_sums`)."""
    d = np.asarray(node_diff, dtype=np.float64)
    return float(d.sum()), float(np.dot(d, d)), float(len(d))


def t_from_sums(s, s2, n):
    """The paired ``t`` of the nodes' loss differences from their
    :func:`gate_sums` (``mean / (sd / sqrt(n))``, ``sd`` with ``n - 1``):
    ``nan`` below two nodes (no statistic: the gate stays closed and
    ``network_linear_gate_`` records it so), ``-inf`` / ``+inf`` for
    differences of one sign and no spread.

    The feature-mean gate's :func:`skfed._mean_neighbours.gate_statistic`
    is the same ``t`` from the gains themselves, 0 where this is ``nan``
    (no node or no spread around 0): both gates then stay closed, but the
    recorded ``t`` differs, so they are kept apart."""
    if n < 2:
        return float("nan")
    mean = s / n
    var = max((s2 - n * mean * mean) / (n - 1), 0.0)
    if var == 0.0:
        return float("nan") if mean == 0.0 else float(np.sign(mean) * np.inf)
    return mean / np.sqrt(var / n)


def _linear_kernel(_gamma):
    return lambda A, B: np.asarray(A, dtype=np.float64) @ np.asarray(B, dtype=np.float64).T


class LinearData:
    """What the linear solve and its gates read of the nodes' rows held in
    this process: all of them in one process, a rank's own in the MPI
    engine, whose root asks every rank the same three questions and places
    each node's answer where one process computes it
    (``skfed.engines._mpi_online``).  Every answer is per node, computed
    from that node's rows only, so the answers do not depend on which
    process holds which node."""

    def __init__(self, est, X, y, codes, sample_weight):
        self.est = est
        self.X = np.asarray(X, dtype=np.float64)
        self.y, self.codes = y, np.asarray(codes)
        self.sums = NodeSums(_linear_kernel, est._loss_name(), self.X, y, codes,
                             sample_weight, None, est._loss_threshold())
        self.D = coordinate_points("linear", self.X.shape[1])
        self._net_losses = {}

    def reports(self, A, nodes):
        """The nodes' ``(loss, weight, gradient)`` at ``w = A``
        (:class:`~._network_function.NodeSums`): (len(nodes), 2 + d n_out)."""
        return self.sums(self.D, 1.0, A, nodes)

    def sketches(self, nodes, omega):
        """Every node's ``X_i' diag(s_i) X_i omega``: (len(nodes), d, rank),
        zeros for a node without rows here."""
        out = np.zeros((len(nodes), self.X.shape[1], omega.shape[1]))
        for r, node in enumerate(nodes):
            rows = self.sums.rows.get(int(node))
            if rows is not None:
                Xi = self.X[rows]
                out[r] = Xi.T @ (self.sums.w[rows][:, None] * (Xi @ omega))
        return out

    def differences(self, c, A, nodes):
        """Every node's weighted mean loss with ``X A`` minus with component
        ``c``'s network function on its rows (NaN for a node without rows
        here): (len(nodes),).  The network function's losses are computed
        once per component)."""
        rows = np.isin(self.codes, nodes)
        est = self.est
        if c not in self._net_losses:
            self._net_losses[c] = loss_values(
                est._loss_name(), est._network_values(self.X[rows], component=c),
                self.y[rows], est._loss_threshold())
        diff = est._linear_loss_difference(self.X[rows], self.y[rows], self.codes[rows],
                                           self.sums.w[rows], A, self._net_losses[c])
        return diff[np.asarray(nodes, dtype=np.intp)]


class _LinearJoinMixin:
    """The linear network function and the nodes' linear terms."""

    def _linear_applies(self, n_features):
        return (getattr(self, "join_function", "network") == "auto"
                and not self._is_regressor()
                and self.kernel_ not in ("linear", "affine")
                and n_features + 1 <= COORDINATE_LIMIT)

    def _check_join_function(self):
        network = resolve_network(self.network)
        if getattr(self, "join_function", "network") == "auto" and network.rogue_fraction:
            raise ValueError(
                "join_function='auto' needs honest nodes: its solve and gate do not "
                "check the nodes' reports, so network.rogue_fraction must be 0 (or use "
                "join_function='network')."
            )

    def _linear_terms(self):
        """``(linear, on)`` for the solver: every node's ``linear_scale_[i]
        w_c`` (n_nodes, n_features, n_outputs) and whether it has one; ``(None,
        None)`` when no node has one."""
        scale = self._network_linear_scales()
        if scale is None:
            return None, None
        # (built once per state, not per solver call: n d n_out values)
        key = (scale.tobytes(), self.network_component_.tobytes())
        cached = self.__dict__.get("_linear_cache")
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        n, d = len(scale), self._points.shape[2]
        linear = np.zeros((n, d, self._n_outputs))
        for i in np.flatnonzero(scale != 0):
            linear[i] = scale[i] * self.network_linear_coef_[self.network_component_[i]]
        on = np.ascontiguousarray(scale != 0, dtype=np.uint8)
        self._linear_cache = (key, linear, on)
        return linear, on

    def _node_function(self, node, X):
        out = super()._node_function(node, X)
        scale = getattr(self, "_linear_scale", None)
        if scale is not None and scale[node] != 0:
            w = self.network_linear_coef_[self.network_component_[node]]
            out = out + scale[node] * (np.asarray(X, dtype=np.float64) @ w)
        return out

    def _set_linear_attributes(self):
        scale = getattr(self, "_linear_scale", None)
        self.linear_scale_ = (np.zeros(len(self.nodes_)) if scale is None else scale.copy())

    def _fit_linear_network(self, X, y, codes, sample_weight, parents, component, excluded,
                            sim, solve, data=None):
        """Steps 1-2 of the module (a fit's network round) or, in a
        ``partial_fit``, nothing (the fit's ``w`` and gate are kept).
        ``data`` answers for the nodes' rows (:class:`LinearData`; by
        default over ``X, y, codes, sample_weight``; the MPI engine's root
        passes its ranks' exchange)."""
        if not hasattr(self, "join_function"):
            return   # (the regressor)
        if not solve:
            self._set_linear_attributes()
            return
        self._linear_scale = None
        self._fitted_join_function = self.join_function
        self.__dict__.pop("_linear_cache", None)
        self.network_linear_coef_ = None
        self.network_linear_gate_ = None
        self.network_linear_share_ = np.zeros(len(self.network_dictionary_))
        d, n_out = self._points.shape[2], self._n_outputs
        if data is None and X is not None:
            data = LinearData(self, X, y, codes, sample_weight)
        if data is None or not self._linear_applies(d):
            self._set_linear_attributes()
            return
        n_comp = len(self.network_dictionary_)
        coefs, t, opened, evaluations = [None] * n_comp, np.full(n_comp, np.nan), \
            np.zeros(n_comp, dtype=bool), np.zeros(n_comp, dtype=np.intp)
        factors = np.full(n_comp, np.nan)
        for c in range(n_comp):
            nodes = np.flatnonzero((component == c) & ~excluded)
            if not len(nodes):
                continue
            # (_linear_solve: the sketch summed over the nodes in their
            # order, then the fixed-penalty solve)
            rank = min(NYSTROM_RANK, d)
            omega = sketch_directions(d, rank)
            sketch = data.sketches(nodes, omega).sum(axis=0)
            A, n_eval = solve_fixed((d, n_out), float(self.alpha), data.reports, nodes,
                                    sketch, omega, CURVATURE.get(self._loss_name(), 1.0))
            for k in range(n_eval):
                tree_round(sim, parents, nodes,
                           payload_bytes(n_float64=d * n_out + 2 + (d * rank if k == 0
                                                                     else 0)),
                           payload_bytes(n_float64=d * n_out))
            factors[c], evaluations[c] = FIXED_FACTOR, n_eval
            coefs[c] = np.ascontiguousarray(A)
            # The gate: every node's mean loss with w' x and with the
            # network function on its own rows (3 float64 up; the choice and
            # w down).
            node_diff = data.differences(c, A, nodes)
            tree_round(sim, parents, nodes, payload_bytes(n_float64=3),
                       payload_bytes(n_int32=1, n_float64=d * n_out))
            t[c] = t_from_sums(*gate_sums(node_diff))
            opened[c] = bool(t[c] <= LINEAR_GATE)
        self.network_linear_coef_ = coefs
        self.network_linear_gate_ = {"t": t, "open": opened, "evaluations": evaluations,
                                     "alpha_factor": factors}
        self._set_linear_attributes()

    def _linear_loss_difference(self, X, y, codes, weights, w, net_loss):
        """Every node's weighted mean loss with ``X w`` minus with the
        network function (``net_loss``: its per-row losses at ``X``; NaN
        for a node without rows): (n_nodes,)."""
        n = len(self.nodes_)
        per_row = (loss_values(self._loss_name(), X @ w, y, self._loss_threshold())
                   - net_loss)
        total = np.bincount(codes, weights=weights, minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.bincount(codes, weights=weights * per_row, minlength=n) / total

    def _check_join_function_fitted(self):
        """A join reads what the fit solved: ``join_function`` changed since
        (``set_params``) is refused by name, not silently ignored."""
        if not hasattr(self, "join_function"):
            return
        fitted = getattr(self, "_fitted_join_function", "network")
        if self.join_function != fitted:
            raise ValueError(
                f"join_function={self.join_function!r} was set after the fit, which ran "
                f"with join_function={fitted!r}: the linear network function is solved "
                "in fit; refit, or set it back before add_nodes / partial_fit with new "
                "nodes."
            )

    def _linear_gate_open(self, c):
        gate = getattr(self, "network_linear_gate_", None)
        return bool(gate is not None and gate["open"][c])

    # ------------------------------------------------------------- joins
    def _linear_scales(self, nodes):
        scale = getattr(self, "_linear_scale", None)
        if scale is None:
            return np.zeros(len(nodes))
        return scale[np.asarray(nodes, dtype=np.intp)]

    def _linear_term(self, scale, c, X):
        """``scale w_c' x`` at the rows of ``X`` (zeros for a zero scale)."""
        if scale == 0:
            return np.zeros((X.shape[0], self._n_outputs))
        return scale * (np.asarray(X, dtype=np.float64) @ self.network_linear_coef_[c])

    def _linear_values(self, nodes, X):
        """The linear terms of ``nodes`` at ``X``: (len(nodes), n, n_out)
        (public: whoever evaluates a node's function adds it itself)."""
        out = np.zeros((len(nodes), X.shape[0], self._n_outputs))
        scales = self._linear_scales(nodes)
        for k, node in enumerate(nodes):
            if scales[k] != 0:
                out[k] = self._linear_term(scales[k], self.network_component_[node], X)
        return out

    def _linear_start(self):
        """A newcomer's start from ``w' x``: an empty dictionary (its linear
        term is the function), as ``_join_start`` returns one."""
        d = self._points.shape[2]
        return (np.zeros((0, d), dtype=self._dtype), np.zeros((0, self._n_outputs)),
                np.zeros((0, 0)), 0.0)

    def _linear_payload(self):
        """Bytes of ``w`` to a newcomer: ``d n_out`` float64."""
        return payload_bytes(n_float64=self._points.shape[2] * self._n_outputs)

    def _extend_linear(self, new_scales):
        """Append the newcomers' linear scales (the fitted nodes' unchanged)."""
        if not hasattr(self, "join_function"):
            return
        n_old = len(self.nodes_) - len(new_scales)
        old = getattr(self, "_linear_scale", None)
        old = np.zeros(n_old) if old is None else old
        scale = np.concatenate([old, np.asarray(new_scales, dtype=np.float64)])
        self._linear_scale = scale if np.any(scale != 0) else None
        self._set_linear_attributes()

    # ------------------------------------------- the network function's mean
    def _network_linear_scales(self):
        """Every node's linear scale, or None when no node has a linear term
        (the solver then adds none and the network function's messages
        carry nothing more)."""
        scale = getattr(self, "_linear_scale", None)
        if scale is None or not np.any(scale != 0):
            return None
        return scale

    def _set_network_linear_share(self, totals):
        """``network_linear_share_``: per component, the mean of its nodes'
        linear scales (``totals``: the root's ``(sum, count)`` or None)."""
        if not hasattr(self, "join_function"):
            return
        self.network_linear_share_ = np.array(
            [0.0 if t is None or not t[1] > 0 else t[0] / t[1] for t in totals])

    def _network_linear_share(self, c):
        share = getattr(self, "network_linear_share_", None)
        return 0.0 if share is None or c >= len(share) else float(share[c])
