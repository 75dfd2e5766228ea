"""Feature-mean neighbours: a MOCHA newcomer's prior centre (issue 32).

A newcomer of 5-20 samples whose labels are mostly of one class cannot
rank the fitted tasks by its labels, but its samples' *feature mean* may
still say which tasks it resembles: on Landmine the tasks come from two
terrains, and the fitted nodes' feature means separate them.  Where the
tasks share one input distribution (rotated moons, HAR's subjects, the
clusters of :func:`~skfed.datasets.make_related_tasks`) the means say
nothing, and centring a newcomer there on its nearest-mean tasks loses
points.  So the federation first measures whether the means carry task
signal (a *gate*), on its own data:

* every fitted node scores, on its own rows, the size-weighted mean model
  of the :data:`NEIGHBOURS` fitted nodes whose feature means are nearest
  its own (Euclidean, in the fit's feature space ``phi``) against the
  size-weighted mean model of all the other fitted nodes; its gain is the
  difference of their weighted errors (misclassification, or the squared
  error of a regressor);
* the gate is open when the mean gain over the nodes is more than
  :data:`GATE_T` of its standard errors (over the nodes).

With the gate open a newcomer's prior centre ``m_n`` (what its problem
shrinks toward; the fitted ``w_0`` or the rehearsal's centre otherwise,
:mod:`skfed.multitask._join`) is the size-weighted mean of the models of
the :data:`NEIGHBOURS` fitted nodes whose feature means are nearest the
mean of its own samples; it still solves its own problem on its samples
at its rehearsed scale.  The rule and the gate's threshold come from
landmine1's analysis (``benchmarks/new_nodes_landmine_neighbours.py``,
where the gate opened on 24 of 24 Landmine fits and stayed closed on 78
held-out fits); the measured rows are in
``benchmarks/new_nodes_mocha_neighbours.py``.

Cost and bytes.  The gate is computed when the fit ends (one product of
each node's rows with two models: a few milliseconds), if its exchange
fits the budget below, and its exchange is
counted with the first join (as the rehearsal's reports are): each
fitted node uploads its feature mean (``d`` floats, the features without
the intercept column), the server sends it the two mean models (``2 P
d'`` floats) and it answers its gain (1 float).  A newcomer then also
uploads its own feature mean (``d`` floats) with its number of samples;
the centre replaces ``w_0`` in what it downloads.  The gate's exchange is
counted whether it opens or not (the server learns which from it); with
the gate closed the newcomers' models are those of the join without it,
bit for bit.  A federation of fewer than ``NEIGHBOURS + 2`` fitted nodes
has no gate (and sends nothing for it), nor one whose gate would cost more
than :data:`GATE_BYTE_SHARE` of the fit's bytes (``communication_``): the
exchange grows with the nodes and features (``n (d + 2 P d' + 1)`` floats)
where the rest of a join grows with the newcomers; on rotated moons (80
nodes, 20 features) it was 44 kB against a 5.5 kB join and a 48 kB fit,
on Landmine (23 nodes, 9 features) 6.6 kB against a 3.5 kB join and a
200 kB fit.

Under drops (``network.drop_rate > 0``) the gate's messages take the
join's rounds (:class:`FittedExchange`, under the join's draws, which are
public: ``network.random_state`` and the estimator's ``random_state``): a
fitted node takes each step (its mean up; the two models down and its gain
up; an open gate's scatter up) in its first round up once the step has
started, a step starts when every node has taken the last (the server
ranks the means once it holds them all and decides once it holds every
gain), and the newcomers' exchanges start once it is complete.  The server
waits for every node, so the gate decides on all of them, with or without
drops, and its bytes are the same; only their rounds move.  Without drops
the whole exchange is in the join's first round, as before.  A straggler
finishes (a join has no deadline); MOCHA refuses rogue nodes.

Under ``privacy`` there is no gate (as there is no rehearsal): the means
and the gains would be releases no accountant covers.

**One gate with Dada's and Perso-lin's** (:mod:`skfed._mean_neighbours`).
The means (:func:`~skfed._mean_neighbours.node_means`), the nearest query
(:func:`~skfed._mean_neighbours.nearest_rows`), the mean models, each
node's gain on its own rows (:func:`~skfed._mean_neighbours.node_gains`:
accuracy, or minus the squared error of a regressor, which only MOCHA
has), the statistic ``t`` and its threshold, and the scatter round's pool
and map (:func:`~skfed._mean_scatter.whitening_round`) are that module's.
What differs is the hub.  There the hub is fitted node 0, which holds no
model: each node asks its 5 nearest peers for their models and the
mass-weighted sum of all models goes through node 0 and back, so every
node can form the two mean models.  Here the hub is MOCHA's server, which
holds every fitted model and weight already: it sends each node the two
mean models, keeps the gains and decides (no ``t`` sent back), and every
fitted node, node 0 included, sends it its scatter.  On Landmine (23
nodes, ``d = 9``, one problem) the decentralized exchange would cost about
22.3 kB against these 6.6 kB (closed forms, without the scatter) for the
same gains.

**Mahalanobis placement** (maha28).  With the gate open (at most 32
features) every fitted node also sends the server its within-node
scatter's upper triangle (``d (d + 1) / 2`` values as float32,
:data:`SCATTER_DTYPE`, counted with the gate's exchange; whether the gate
is affordable is decided without it, before it opens), and the server
ranks the fitted means by the Mahalanobis distance of their pooled scatter
(:func:`skfed._mean_scatter.whitening_round`, Dada's and Perso-lin's round;
each node's scatter bounded against rogue values).  Euclidean placement is
measured by ``benchmarks/new_nodes_maha_landmine.py``, which drops the map.  Landmine, Mahalanobis minus
Euclidean at k = 5 / 10 / 20 (``python
benchmarks/new_nodes_maha_landmine.py --families mocha --seeds ...``):
seeds 0-5 +0.19 / -0.03 / +0.09, seeds 6-11 +0.30 / +0.51 / +0.18; held
out with the byte budget lifted (``--mocha-any-cost``; by default the gate
does not run there), seeds 0-5: clustered-shifted -0.08 / -0.02 / +0.07,
with mixed features +3.1 / +0.6 / +0.1.  The first join's bytes on
Landmine: +4.5 kB (about 14.6 kB, 0.07-0.08 of a refit's).
"""


import numpy as np

from .._mean_neighbours import (GATE_T, N_NEAREST, gate_statistic, nearest, nearest_rows,
                                node_gains, node_means, weighted_accuracy)
from .._mean_neighbours import mean_model as _mean_model
from .._mean_scatter import scatter_bytes, whitening_round
from .._pending import DropWait
from ..network import float_bytes

__all__ = ["FeatureNeighbours", "FittedExchange", "feature_neighbours", "nearest_nodes"]

# The nearest fitted nodes averaged and the gate's threshold are the other
# families' (skfed._mean_neighbours: t > 3, where null federations open 2 %
# of fits against 7 % at 2; MOCHA's Landmine fits have t 3.5-5.6).
NEIGHBOURS = N_NEAREST
# The gate runs (and is paid for) only if its exchange costs at most this
# share of the fit's bytes: the goal gives a join a tenth of a
# refit's bytes, and on rotated moons (80 nodes of 20 features, a 48 kB fit)
# the exchange, 44 kB, cost eight times the rest of the join.
GATE_BYTE_SHARE = 0.05
# A scatter's values are sent as float32 (on Landmine in float64 the first
# join's bytes were 0.100 of a refit's, the goal's limit; float32: 0.075).
SCATTER_DTYPE = np.float32
SCATTER_BYTES = float_bytes(SCATTER_DTYPE)


def nearest_nodes(means, point, m, exclude=None):
    """Indices of the ``m`` rows of ``means`` nearest ``point`` (squared
    Euclidean distance; ties by index), skipping index ``exclude``
    (:func:`skfed._mean_neighbours.nearest`).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask._join_neighbours import nearest_nodes
    >>> nearest_nodes(np.array([[0.], [3.], [1.], [2.]]), np.array([0.9]), 2).tolist()
    [2, 0]
    """
    return nearest(means, point, m, exclude)


def mean_model(W, weights, chosen):
    """The ``weights``-weighted mean of models ``W[:, chosen]`` (``W`` is
    ``(P, n_nodes, d')``); ``(P, d')``."""
    return _mean_model(np.moveaxis(np.asarray(W), 1, 0),
                       np.asarray(weights, dtype=np.float64), np.asarray(chosen))


def negative_squared_error(Z, Y, sw, model):
    """Minus the ``sw``-weighted mean squared error (summed over the
    problems) of ``model`` ``(P, d')`` on the rows ``Z`` with targets ``Y``
    ``(P, n)``: a regressor's score in the gate (higher is better, as
    :func:`skfed._mean_neighbours.weighted_accuracy`)."""
    e = ((model @ np.asarray(Z, dtype=np.float64).T - Y) ** 2).sum(axis=0)
    return -float(e @ sw / sw.sum())


class FeatureNeighbours:
    """The fitted nodes' feature means and the gate (see the module).

    Parameters
    ----------
    Z : ndarray of shape (n_samples, d')
        The fitted rows in the fit's feature space, node after node.
    Y : ndarray of shape (n_problems, n_samples)
        Their targets as the fit's solver sees them.
    sw : ndarray of shape (n_samples,)
        Their sample weights.
    offsets : ndarray of shape (n_nodes + 1,)
        Where each node's rows start (and the end).
    W : ndarray of shape (n_problems, n_nodes, d')
        The fitted nodes' models.
    loss_name : str
    n_features : int
        The features a mean holds (``d'`` without the intercept column).

    Attributes
    ----------
    means : ndarray of shape (n_nodes, n_features)
    weights : ndarray of shape (n_nodes,)
        Each node's total sample weight (the averages' weights).
    gains : ndarray of shape (n_nodes,)
        Each node's error of the all-others mean model minus that of its
        neighbours' mean model (NaN: too few nodes for a gate).
    t : float
        The mean gain over its standard error (every gain equal: +-inf, or
        0 if they are 0).
    open : bool
        ``t > GATE_T``.
    counted : bool
        Whether the gate's exchange was counted (by the first join).
    whiten : ndarray of shape (n_features, r) or None
        The server's map of the pooled within-node scatter (open gate, at
        most 32 features): distances between means are taken after it.
    """

    def __init__(self, Z, Y, sw, offsets, W, loss_name, n_features):
        n = len(offsets) - 1
        self.n_features = int(n_features)
        self.means, self.weights = node_means(Z[:, :n_features], sw, offsets)
        self.gains = np.full(n, np.nan)
        self.t, self.open = 0.0, False
        self.n_problems, self.d = W.shape[0], W.shape[2]
        self.counted = n < NEIGHBOURS + 2  # (no gate: nothing to send)
        if self.counted:
            return
        # the all-others mean from one weighted total (linear in the nodes)
        total = np.einsum("t,ptd->pd", self.weights, W)
        mass = float(self.weights.sum())
        near_all = nearest_rows(self.means, self.means, NEIGHBOURS, exclude=np.arange(n))
        # each node's gain on its own rows (skfed._mean_neighbours.node_gains)
        self.gains = node_gains(
            Z, Y, sw, offsets, lambda i: mean_model(W, self.weights, near_all[i]),
            lambda i: (total - self.weights[i] * W[:, i]) / (mass - self.weights[i]),
            negative_squared_error if loss_name == "squared" else weighted_accuracy)
        self.t = gate_statistic(self.gains)  # (all gains equal: +-inf, or 0 if all 0)
        self.open = bool(self.t > GATE_T)
        # open: the nodes' within-node scatters pooled at the server, the
        # shared round's map (skfed._mean_scatter; every node sends, counted
        # by count: the server is no node)
        # (the masses it holds size the rogue bound: skfed._mean_scatter.size_limit)
        self.whiten = (whitening_round(Z[:, :n_features], sw, offsets, self.means,
                                       SCATTER_DTYPE, None, hub_masses=self.weights)
                       if self.open else None)

    def centres(self, W, Z, offsets, sw):
        """Each newcomer's centre ``(P, n_new, d')``: the weighted mean of
        the fitted models ``W`` ``(P, n_fitted, d')`` of the nodes nearest
        its feature mean (its rows ``Z`` node after node, ``offsets``,
        weights ``sw``)."""
        means = node_means(Z[:, :self.n_features], sw, offsets)[0]
        L = getattr(self, "whiten", None)
        fitted, means = (self.means, means) if L is None else (self.means @ L, means @ L)
        return np.stack([mean_model(W, self.weights, near)
                         for near in nearest_rows(fitted, means, NEIGHBOURS)], axis=1)

    def n_bytes(self, float_bytes, header_bytes, scatter=True):
        """The gate's exchange in bytes (0 without a gate): per fitted node
        three messages, its mean, two models and its gain, and with
        ``scatter`` an open gate's scatter message (see the module)."""
        if not np.isfinite(self.gains).all():
            return 0
        sent = scatter and getattr(self, "whiten", None) is not None  # (an open gate's)
        extra = len(self.means) * (_scatter_message(self) + header_bytes) if sent else 0
        return _exchange_bytes(len(self.means), self.n_features, self.n_problems, self.d,
                               float_bytes, header_bytes) + extra

    def affordable(self, fit_bytes, float_bytes, header_bytes):
        """Whether the exchange costs at most :data:`GATE_BYTE_SHARE` of the
        fit's ``fit_bytes`` (else the federation runs no gate: nothing is
        sent and the join is the one without it)."""
        cost = self.n_bytes(float_bytes, header_bytes, scatter=False)  # (decided before it opens)
        return cost > 0 and fit_bytes is not None and cost <= GATE_BYTE_SHARE * fit_bytes

    def steps(self, float_bytes):
        """The gate's exchange, once (see the module), as the steps of a
        :class:`FittedExchange` (empty after the first call): each fitted
        node uploads its mean; then it downloads the two mean models and
        uploads its gain; then, the gate open, it uploads its scatter.  A
        step starts when the last is complete (the server ranks the means
        once it holds them all and decides once it holds every gain)."""
        if self.counted:
            return []
        self.counted = True
        n = len(self.means)
        nodes = np.arange(n, dtype=np.intp)
        steps = [[("up", nodes, np.full(n, self.n_features * float_bytes, np.int64))],
                 [("down", nodes, np.full(n, 2 * self.n_problems * self.d * float_bytes,
                                          np.int64)),
                  ("up", nodes, np.full(n, float_bytes, np.int64))]]
        if getattr(self, "whiten", None) is not None:  # each node's scatter, once
            steps.append([("up", nodes, np.full(n, _scatter_message(self), np.int64))])
        return steps


class FittedExchange:
    """The server's exchanges with the fitted nodes at a join, through the
    join's drop draws (mochagate34).

    Each exchange is a list of steps; a step is a list of ``(kind, nodes,
    payloads)`` (``kind`` ``"up"``: node to server, ``"down"``: server to
    node).  A fitted node takes a step's messages in the first round, from
    the step's start, in which it is not dropped (a dropped node answers
    nothing and the server asks again in the next round: as in the fit's
    rounds, the server addresses only the nodes that are up, and the
    requests are not counted); a step starts, in the same round, once every
    node has taken the step before, since the server needs all of them
    (the rule of :class:`skfed._pending.DropWait`, which schedules each
    exchange).  The exchanges run side by side.  Without drops every step is in the
    join's first round, as one exchange; under drops the same messages take
    more rounds, and what they decide (the gate, the rehearsed scales) does
    not change: the server waits for every node.  A straggler finishes (a
    join has no deadline); rogue nodes are refused by MOCHA.

    The rehearsal's request and report
    (:meth:`skfed.multitask._rehearsal.Rehearsal.collect`) are recorded as
    one step through :meth:`broadcast_from_server` and
    :meth:`gather_to_server` (the counter's calls).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask._join_neighbours import FittedExchange
    >>> from skfed.network import SimulatedNetwork
    >>> sim = SimulatedNetwork(header_bytes=16).start(2, server=True)
    >>> ex = FittedExchange()
    >>> ex.add([[("up", np.array([0, 1]), np.array([8, 8]))]])
    >>> ex.take_round(sim.counter, np.array([True, False]))   # node 1 dropped
    False
    >>> sim.counter.next_round()
    >>> ex.take_round(sim.counter, np.array([True, True]))
    True
    >>> sim.counter.next_round()
    >>> sim.log().bytes_per_round.tolist()
    [24, 24]
    """

    def __init__(self):
        self._exchanges = []  # (steps, their DropWait: skfed._pending)
        self._recorded = []

    def add(self, steps):
        """Add an exchange (its steps; nothing when empty)."""
        steps = [step for step in steps if len(step)]
        if steps:
            # each message waits for its fitted node (sender or receiver)
            self._exchanges.append((steps, DropWait(
                [np.concatenate([nodes for _, nodes, _ in step]) for step in steps])))

    def broadcast_from_server(self, receivers, payloads):
        """Record the server's messages to ``receivers`` (the counter's call)."""
        self._recorded.append(("down", np.array(receivers, dtype=np.intp),
                               np.array(payloads, dtype=np.int64)))

    def gather_to_server(self, senders, payloads):
        """Record the messages ``senders`` send the server (the counter's call)."""
        self._recorded.append(("up", np.array(senders, dtype=np.intp),
                               np.array(payloads, dtype=np.int64)))

    def add_recorded(self):
        """Add the messages recorded since the last call, as one step."""
        step, self._recorded = self._recorded, []
        self.add([step])

    @property
    def pending(self):
        """The fitted nodes that still have a message to take."""
        left = [wait.waiting for _, wait in self._exchanges if not wait.complete]
        return np.unique(np.concatenate(left)) if left else np.zeros(0, dtype=np.intp)

    def take_round(self, counter, active):
        """Count on ``counter`` the messages of the round whose draws are
        ``active`` (by node of the join's network); return whether every
        exchange is complete."""
        for steps, wait in self._exchanges:
            for step, sent in wait.take(active):
                start = 0
                for kind, nodes, payloads in steps[step]:
                    # the step's messages, part after part (sent: ascending)
                    part = sent[(sent >= start) & (sent < start + len(nodes))] - start
                    start += len(nodes)
                    if part.size:
                        send = (counter.gather_to_server if kind == "up"
                                else counter.broadcast_from_server)
                        send(np.ascontiguousarray(nodes[part]),
                             np.ascontiguousarray(payloads[part]))
        return all(wait.complete for _, wait in self._exchanges)


def _exchange_bytes(n, n_features, n_problems, d, float_bytes, header_bytes):
    """Bytes of the gate's exchange without the scatter: per fitted node its
    mean up, the two mean models down and its gain up (three messages)."""
    return n * ((n_features + 2 * n_problems * d + 1) * float_bytes + 3 * header_bytes)


def _scatter_message(gate):
    """Bytes of one node's scatter message (:func:`skfed._mean_scatter.scatter_bytes`)."""
    return scatter_bytes(gate.n_features, SCATTER_DTYPE)


def feature_neighbours(est, nodes, W):
    """The gate of a fit (``omega_mode_ == "shared"``, not private) from
    its fitted nodes ``nodes`` (``Z``, ``Y``, ``sw``, ``layout``) and models
    ``W`` ``(P, m, d')``; None if it would cost more than
    :data:`GATE_BYTE_SHARE` of the fit's bytes (not computed: on rotated
    moons and related-small it took 4 % of the fit's CPU time).  A join
    checks the share again."""
    from ..network import resolve_network
    from ._compression import _FLOAT

    Z = np.asarray(nodes.Z, dtype=np.float64)
    n_features = Z.shape[1] - int(bool(est._fitted_bias()))
    n, (P, _, d) = nodes.layout.n_nodes, W.shape
    header = resolve_network(est.network).header_bytes
    cost = _exchange_bytes(n, n_features, P, d, _FLOAT, header)
    log = getattr(est, "communication_", None)
    if n < NEIGHBOURS + 2 or log is None or cost > GATE_BYTE_SHARE * log.total_bytes:
        return None
    return FeatureNeighbours(Z, np.asarray(nodes.Y, dtype=np.float64),
                             np.asarray(nodes.sw, dtype=np.float64),
                             np.asarray(nodes.layout.offsets), np.asarray(W, dtype=np.float64),
                             est.loss, n_features)
