"""Perso-lin's shared newcomer model (``join_neighbours="shared"``, opt-in; issue 32).

On HAR a Perso-lin newcomer of 5-20 samples is almost its graph
neighbours' mean model (its confidence ``k / max m`` is 0.01-0.06), and
the fitted models are pulled to the estimator's ``alpha`` (the paper's
objective, kept), so newcomers scored 93.6 / 93.9 / 94.6 against 97.8 for
pooled ``LogisticRegression()``.  With ``join_neighbours="shared"`` the fit
ends by also learning one shared logistic model ``S`` for newcomers, and a
gate decides whether newcomers take it.

**The shared model** (after the Perso-lin fit; its models are unchanged).
Every fitted node holds back one in ``HOLD_BACK`` of its samples (public
randomness from ``random_state``); on the others, for each one-vs-rest
problem ``p``, ``S_p`` minimizes scikit-learn's ``C = 1`` objective scaled
by the kept mass ``M``::

    (1 / M) sum_i s_i log(1 + exp(-y_pi S_p . z_i)) + ||S_p,w||^2 / (2 M)

(``S_p,w`` without the intercept), by L-BFGS at a hub (fitted node 0),
every value sent as float32 (half float64's bytes; HAR's newcomers as
with float64, ``benchmarks/persolin_shared_cost.py``):

1. every other node sends its kept mass and column sums of squares
   (``n_base + 1``): the hub's Jacobi scaling ``s``;
2. the hub sends ``s`` (``n_base``); every other node sends its sketch
   ``diag(s) Z_k' W_k Z_k diag(s) Omega`` (``n_base r``, ``r =
   min(SKETCH_RANK, n_base)``, ``Omega`` public orthonormal directions):
   the hub's Nystrom model of the scaled Hessian at 0 preconditions the
   L-BFGS (:func:`sketch_preconditioner`; HAR's 561 correlated features
   left the Jacobi-scaled solve far from the optimum after 20-30
   evaluations);
3. each evaluation of the objective is one exchange (the hub sends ``S``,
   ``P n_base``; each node answers its loss sums and gradient sums, ``P
   (n_base + 1)``), at most ``SHARED_ROUNDS`` evaluations (L-BFGS-B's
   ``gtol`` 1e-5 may stop it earlier); ``S`` is the evaluated point of
   lowest objective.

A node dropped in a round answers in a later one (the hub waits: the sum
needs every node); a rogue node's answers (its sketch included) are
corrupted.  Newcomers take this ``S`` (``newcomer_gate_["n_rounds"]`` holds
its evaluations): the second solve on every row that followed the gate
until persolin32 (3 more sketched evaluations) was 0-0.6 lower on HAR
seeds 0-2.

**The gate.**  Every node with held-back samples compares, on them, the
sample-weighted log-loss of ``S`` with that of the mean of the models it
holds from its graph neighbours (weighted by its row of the graph: what a
newcomer of few samples gets from the graph join); its gain (positive: ``S``
better) goes to the hub (one float64), which answers ``t`` (one float64):
``t = mean / standard error`` over those nodes
(:func:`skfed._mean_neighbours.gate_statistic`).  ``t > GATE_T`` (3):
``newcomer_rule_ = "shared"``; else what ``"auto"`` does (the feature-mean
gate of :mod:`skfed._mean_neighbours`, its result in
``newcomer_gate_["features"]``, then the graph join if it closes too).
The neighbours' models were pulled toward the node's own samples during the
fit, which flatters them: the gate errs toward the graph join.

**The join** (``newcomer_rule_ == "shared"``).  Each newcomer asks the hub
(an empty request, again until the hub is up) and receives ``S`` (``P
n_base`` float64); it then solves its block of Perso-lin's objective with
``S`` in place of its neighbours' mean: ``min_theta c F(theta) + (mu / 2)
||theta - S||^2``, ``F`` its mean loss (the estimator's ``loss``) plus
``(alpha / 2) ||theta_w||^2``, ``c`` its mass over the fit's largest (the
paper's confidence, as in the graph join), by the posterior join's Newton
solver, every newcomer of the call at once
(:func:`skfed.boosting._perso_lin_posterior.newcomer_blocks`; on its own
samples: nothing sent).  Its graph row is one
edge to the hub of weight 1 (it sends the hub that weight).

Refused by name: a finite ``privacy`` budget (the gradients and the gate
are not privatized) and the MPI engine.

Measured (``benchmarks/persolin_shared_cost.py``, its docstring): HAR
joins 98.03 / 98.00 / 98.19 at ``k = 5 / 10 / 20`` on seeds 0-2 (Global,
the best of LinearSVC / SVC / LogisticRegression, 97.89 / 97.98 / 97.89),
96.77 / 97.79 / 98.18 on seeds 3-5 (97.07 / 97.24 / 97.39), 96.73 / 96.89 /
97.09 on seeds 6-8 (97.12 / 97.23 / 97.22), the gate open on all nine; the
solve and gate cost 5.1-5.8 % of a HAR fit's bytes (the sketch a quarter
of it).  The gate closed on every held-out fit (moons, Landmine,
``related-*``, seeds 0-2: newcomers join by ``"auto"``'s rules), where
they cost 1.2-2.6 %.  ``SKETCH_RANK`` 10 and ``SHARED_ROUNDS`` 15 were
chosen on HAR seeds 0-2 (rank 5: 0.3-0.5 lower on seed 1; 10 evaluations:
0.7 lower on seed 0 and the gate closes on seed 2).  Before the sketch (persolin28): 50 + 10 evaluations, 15.8 % of a HAR
fit's bytes (``benchmarks/persolin_shared_newcomer.py``).
"""

import math

import numpy as np
from scipy import sparse

from .._mean_neighbours import GATE_T, JOIN_NEIGHBOURS, _deliver, fit_gate
from .._mean_neighbours import record_newcomers
from .._mean_neighbours import gate_statistic
from .._node_mass import MAX_MASS_BYTES
from .._shared_model import SHARED_GTOL, SKETCH_RANK, HubLink, node_sums, sent, solve_logistic
from .._shared_model import sketch_preconditioner as _sketch
from ..graph import model_message_bytes
from ..network import payload_bytes

JOIN_RULES = JOIN_NEIGHBOURS + ("shared", "posterior")
HOLD_BACK = 5  # one sample in HOLD_BACK of every node is held back from S
SHARED_ROUNDS = 15  # objective evaluations (exchanges) at most
# (SKETCH_RANK, SHARED_GTOL, node_sums and the solve: skfed._shared_model)
__all__ = ["SHARED_GTOL", "SKETCH_RANK", "node_sums", "sketch_preconditioner", "solve_shared"]


_NOT_PRIVATE = {"shared": "sends gradients and gate gains that are not privatized",
                "posterior": "releases the newcomers' models without noise"}


def check_shared(est, spec):
    """Refuse ``join_neighbours="shared"`` or ``"posterior"`` under a finite
    privacy budget."""
    why = _NOT_PRIVATE.get(est.join_neighbours)
    if why is not None and spec is not None and math.isfinite(spec.epsilon):
        raise ValueError(
            f"join_neighbours={est.join_neighbours!r} {why}: use join_neighbours='auto' or "
            "'graph' with a finite privacy budget.")


def held_back(offsets, rng):
    """Boolean mask of the held-back samples: ``m_k // HOLD_BACK`` of node k's,
    drawn by ``rng`` node after node."""
    back = np.zeros(int(offsets[-1]), dtype=bool)
    for k in range(len(offsets) - 1):
        a, b = int(offsets[k]), int(offsets[k + 1])
        n_back = (b - a) // HOLD_BACK
        if n_back:
            back[a + rng.choice(b - a, size=n_back, replace=False)] = True
    return back


class _GraphHub(HubLink):
    """The shared solve's messages through Perso-lin's graph simulation: the
    hub is fitted node 0, every other node answers it; rogue answers are
    corrupted by the simulation."""

    def __init__(self, sim, n_nodes):
        super().__init__(n_nodes, sim.rogue)
        self.sim = sim
        self.rest = np.arange(1, n_nodes, dtype=np.intp)
        self.hub = np.zeros(n_nodes - 1, dtype=np.intp)

    def up(self, n_bytes):
        _deliver(self.sim, self.rest, self.hub, np.full(len(self.rest), n_bytes))

    def down(self, n_bytes):
        _deliver(self.sim, self.hub, self.rest, np.full(len(self.rest), n_bytes))

    def corrupt(self, values, nodes):
        return self.sim.corrupt_value_rows(values, nodes)

    def sent(self, values, what="the shared model's messages"):
        return _sent(values, what)


def _sent(values, what="the shared model's messages"):
    """``values`` as a float32 message delivers them
    (:func:`skfed._shared_model.sent`)."""
    return sent(values, what)


def solve_shared(Z, Y, sw, offsets, keep, sim, n_pen, rounds=SHARED_ROUNDS):
    """``S`` of shape ``(P, n_base)`` and the number of evaluations; every
    message through ``sim`` (see the module; the solve is
    :func:`skfed._shared_model.solve_logistic`)."""
    link = _GraphHub(sim, len(offsets) - 1)
    return solve_logistic(
        Z, Y, sw, offsets, keep, link, n_pen, rounds,
        lambda Z_, w_, offsets_, scale, mass, _: sketch_preconditioner(
            Z_, w_, offsets_, scale, mass, sim))


def sketch_preconditioner(Z, w, offsets, scale, mass, sim):
    """Round 2 of the solve (see the module and
    :func:`skfed._shared_model.sketch_preconditioner`), through ``sim``."""
    return _sketch(Z, w, offsets, scale, mass, _GraphHub(sim, len(offsets) - 1),
                   rank=SKETCH_RANK)


def _row_means(W, models):
    """Each node's graph-row-weighted mean of the models ``(n, P, n_base)``."""
    W = sparse.csr_matrix(W)
    W = W - sparse.diags(W.diagonal())
    deg = np.asarray(W.sum(axis=1)).ravel()
    flat = np.asarray(models, dtype=np.float64).reshape(len(deg), -1)
    out = np.zeros_like(flat)
    np.divide(W @ flat, deg[:, None], out=out, where=deg[:, None] > 0)
    return out.reshape(models.shape), deg > 0


def shared_gate(Z, Y, sw, offsets, back, S, W, held, sim):
    """Gains and ``t`` of the gate (see the module), messages through ``sim``."""
    n = len(offsets) - 1
    u, linked = _row_means(W, held)
    Z64, Y64 = np.asarray(Z, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    gains, has_gain = [], []
    for k in range(n):
        rows = np.arange(int(offsets[k]), int(offsets[k + 1]))
        rows = rows[back[rows]]
        if not len(rows) or not linked[k]:
            continue
        has_gain.append(k)
        s = np.asarray(sw[rows], dtype=np.float64)

        def logloss(model):
            return float(np.sum(s * np.logaddexp(0.0, -Y64[:, rows] * (model @ Z64[rows].T)))
                         / s.sum())
        gains.append(logloss(u[k]) - logloss(S))
    rest, hub = np.arange(1, n, dtype=np.intp), np.zeros(n - 1, dtype=np.intp)
    one = payload_bytes(n_float64=1)
    senders = np.asarray([k for k in has_gain if k != 0], dtype=np.intp)
    # only a node with a gain sends one (4-row nodes hold none back)
    _deliver(sim, senders, np.zeros(len(senders), dtype=np.intp), np.full(len(senders), one))
    _deliver(sim, hub, rest, np.full(n - 1, one))
    gains = np.asarray(gains)
    return gains, gate_statistic(gains)


def fit_newcomer_rule(est, state, simulation, spec):
    """The fit's last step: the feature-mean gate (``"auto"``), nothing
    (``"graph"``, ``"posterior"``) or the shared model and its gate, then
    ``"auto"``'s if it closes (``"shared"``); where the feature-mean gate
    closes, the posterior rule (:mod:`skfed.boosting._perso_lin_posterior`).
    ``fit`` has refused ``"shared"`` under privacy (:func:`check_shared`)."""
    from ._perso_lin_posterior import posterior_rule

    if est.join_neighbours == "posterior":
        return posterior_rule(est, spec)
    if est.join_neighbours != "shared":
        fit_gate(est, state, simulation, spec)
        return posterior_rule(est, spec)
    est.newcomer_rule_, est.newcomer_gate_ = "graph", None
    n = len(state.offsets) - 1
    if n < 2:
        return fit_gate(est, state, simulation, spec)
    rng = np.random.RandomState(_seed(est))
    back = held_back(state.offsets, rng)
    n_pen = state.X.shape[1] - int(est.fit_intercept)
    S, n_rounds = solve_shared(state.X, state.Y, state.sw, state.offsets, ~back, simulation,
                               n_pen)
    gains, t = shared_gate(state.X, state.Y, state.sw, state.offsets, back, S, state.graph,
                           state.public, simulation)
    before = est.n_bytes_sent_
    est._set_communication(simulation)
    est.newcomer_gate_ = {"t": t, "mean_gain": float(np.mean(gains)) if len(gains) else 0.0,
                          "gains": gains, "open": bool(t > GATE_T), "n_rounds": n_rounds,
                          "n_bytes": int(est.n_bytes_sent_ - before)}
    if t > GATE_T:
        est.newcomer_rule_ = "shared"
        est._join_info["shared_model"] = S.astype(state.X.dtype)
        return None
    shared_gate_ = est.newcomer_gate_
    fit_gate(est, state, simulation, spec)  # closed: "auto"'s feature-mean gate
    features = est.newcomer_gate_
    est.newcomer_gate_ = dict(shared_gate_, features=features)
    if features is not None:
        est.newcomer_gate_["n_bytes"] += features["n_bytes"]
    return posterior_rule(est, spec)


def _seed(est):
    from .._graph_join import _random_seed

    return [_random_seed(est), 7919]


def start_join(est, X, y, groups, sample_weight, salt):
    """What Perso-lin's shared and posterior joins start with: the checked
    newcomers, their weights, the models, the join's seed, its network (seeded
    by ``salt``; each newcomer rogue with probability ``rogue_fraction``, as in
    every join) and the RandomState that seeded it.

    Returns ``(X, y, sw, new_labels, layout, models, seed, rng, sim, rogue_old)``."""
    from .._graph_join import _models, _random_seed
    from .._graph_join_fitted import join_random_state, join_rogue, join_simulation

    X, y, sample_weight, new_labels, layout = est._validate_join_data(
        X, y, groups, sample_weight)
    sw = (np.ones(X.shape[0]) if sample_weight is None
          else np.asarray(sample_weight, dtype=np.float64))
    models = _models(est)
    n_old, n_new = len(est.nodes_), len(new_labels)
    seed = int(getattr(est, "_join_seed", 0))
    rng = join_random_state([_random_seed(est), seed, salt])
    sim = join_simulation(est, n_old + n_new, rng)
    rogue_old = np.asarray(est._join_info.get("rogue", np.zeros(n_old, bool)), dtype=bool)
    sim.rogue[:] = join_rogue(sim.network, rogue_old, n_new, [_random_seed(est), seed, 7919])
    return X, y, sw, new_labels, layout, models, seed, rng, sim, rogue_old


def shared_join(est, X, y, groups, sample_weight=None):
    """Newcomers take the shared model ``S`` (see the module)."""
    from ._perso_lin_posterior import newcomer_blocks, newcomer_losses, padded_newcomers

    info = est._join_info
    X, y, sw, new_labels, layout, models, seed, _, sim, rogue_old = start_join(
        est, X, y, groups, sample_weight, 7927)
    dtype = models.dtype
    n_old, n_new = len(est.nodes_), len(new_labels)
    S = np.asarray(info["shared_model"], dtype=dtype)
    flat = S.reshape(1, -1)
    answer = sim.corrupt_value_rows(flat.astype(np.float64), np.zeros(1, np.intp))[0] \
        if rogue_old[0] else flat[0]
    newcomers = n_old + np.arange(n_new, dtype=np.intp)
    zero = np.zeros(n_new, dtype=np.intp)
    payload = int(model_message_bytes(flat, dtype)[0])
    # Round(s) 1: each newcomer asks the hub (again while it is down); it answers S.
    while True:
        up = sim.draw_rounds(1)[0][0][0]
        sim.counter.send_pairs(newcomers, zero, np.zeros(n_new, np.int64))
        if up:
            # (S and the fit's largest mass: the newcomers' confidences)
            sim.counter.send_pairs(zero, newcomers, np.full(n_new, payload + MAX_MASS_BYTES, np.int64))
        sim.counter.next_round()
        if up:
            break
    # Last round: each newcomer sends the hub its edge weight (1).
    sim.counter.send_pairs(newcomers, zero, np.full(n_new, payload_bytes(n_float64=1), np.int64))
    sim.counter.next_round()
    model = np.asarray(answer, dtype=dtype).reshape(S.shape).astype(np.float64)
    Z, Y, _, W, _, confidences = padded_newcomers(est, X, y, sw, layout,
                                                  float(info["max_mass"]), dtype)
    U = np.broadcast_to(model, (n_new,) + model.shape)
    new_models = newcomer_blocks(Z, Y, W, U, confidences, float(est.alpha), float(est.mu),
                                 model.shape[1] - int(est.fit_intercept), est.loss).astype(dtype)
    losses = newcomer_losses(est, Z, Y, W, new_models, confidences)
    ones = np.ones(n_new)
    return record_newcomers(est, sim, info, new_labels, models, new_models, losses,
                            confidences, (ones, newcomers, zero), seed)
