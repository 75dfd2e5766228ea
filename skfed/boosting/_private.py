"""Differential privacy of Dada and Perso-lin: what is public, budgets, calibration.

* What a private fit treats as public (``privacy_public_``).
* :class:`_WakeupBudget`, the per-node budget of an asynchronous fit.
* Dada's private Frank-Wolfe choices: the exponential mechanism on the
  scores, whose sensitivity :func:`fw_score_sensitivity` derives.
* Perso-lin's private gradient releases: discrete Gaussian noise on the
  clipped local gradients.
* The final private refit of each node's kept models.

The estimators call these functions; the Cython kernels do the draws.
"""

import inspect
import math
import warnings

import numpy as np

from .._class_vote import (
    BALLOT,
    ballot_payloads,
    closed_round,
    record_no_vote,
    run_class_vote,
    split_budget,
    vote_evidence,
)
from .._kept_local import choose_classifier
from .._node_ids import plain_label
from .._private_refit import neighbour_prior, refit_boosting, refit_linear
from .._secure_noise import CHOICE_RESOLUTION, NoiseSource, gaussian_grid, record_noise_source
from ..network import index_bits
from ..privacy import (
    PrivacyBudgetWarning,
    calibrate_discrete_gaussian,
    calibrate_exponential,
    describe,
    epsilon_spent,
    max_uses,
)
from ._agreement import _aggregation_tree

# ------------------------------------------------------------------ privacy
# What a private fit treats as public (``privacy_public_``): not protected by
# the noise, known to every node and to an observer.
_SHARED_PUBLIC = {
    "node_sizes": "every node's number of samples m_k (its confidence c_k = m_k / max_l "
                  "m_l and its noise scale depend on it)",
    "class_set": "classes_, the set of labels present in the pooled data (one problem "
                 "per class, one-vs-rest)",
    "n_features": "the number of features",
    "schedule": "wake-up times, peer sampling, the step sizes and the budget stop "
                "(public randomness fixed by random_state, and counts)",
    "graph": "the collaboration graph, learned from the nodes' released models only "
             "(post-processing; no loss value or peer score is sent)",
}
_DADA_PUBLIC = dict(
    _SHARED_PUBLIC,
    base_predictors="the base predictors (stumps on a feature range given without "
                    "looking at the data)",
)
_PERSOLIN_PUBLIC = dict(
    _SHARED_PUBLIC,
    feature_scale="the bound on the feature scale behind the step size (features "
                  "standardized: mean square 1 per column)",
)


class _WakeupBudget:
    """Per-node privacy budget of an asynchronous fit: plan, stop, account.

    Every private step of a node (a local step or a wake-up) uses the
    calibrated mechanism ``uses_per_step`` times.  The mechanism is
    calibrated so that ``n_local`` local steps plus ``ceil(a + 2 sqrt(a))``
    wake-ups spend exactly the budget, ``a = max_iter / n_nodes`` the
    expected wake-ups of a node (its count is Binomial(max_iter, 1 /
    n_nodes): mean plus two standard deviations, so that few nodes run out);
    a node that has used all the wake-ups the accountant allows stops
    sending (the budget stop).
    """

    def __init__(self, spec, calibrate, *, n_nodes, max_iter, n_local, uses_per_step,
                 vote=False):
        # vote: the nodes' private class vote takes its public share of the
        # budget (skfed._class_vote.split_budget), the fit the rest
        total, self.delta = spec.budget()
        self.epsilon, self.vote_epsilon = split_budget(
            total, n_nodes, vote and getattr(spec, "local_estimator", None) is None)
        mean = max_iter / n_nodes
        self.planned = math.ceil(mean + 2.0 * math.sqrt(mean))
        self.n_local, self.per = int(n_local), int(uses_per_step)
        n_plan = self.per * (self.n_local + self.planned)
        self.mechanism = calibrate(self.epsilon, self.delta, n_plan)
        limit = self.per * (self.n_local + int(max_iter))
        affordable = max_uses(self.mechanism, self.epsilon, self.delta, limit, n_plan)
        self.affordable = max(affordable // self.per - self.n_local, 0)
        self.wakeups_left = np.full(n_nodes, self.affordable, dtype=np.int64)
        self.stopped_at = np.full(n_nodes, -1, dtype=np.int64)
        self.local_done = np.zeros(n_nodes, dtype=np.int64)

    def uses(self):
        return self.per * (self.local_done + self.affordable - self.wakeups_left)

    def finish(self, estimator, state, composition, public, **extra):
        """Set ``privacy_spent_``, ``privacy_``, ``privacy_public_`` and
        ``privacy_guarantee_void_``; drop the exact objective curve of a
        finite budget; warn about stopped nodes."""
        uses = self.uses()
        estimator.privacy_spent_ = epsilon_spent(self.mechanism, uses, self.delta)
        estimator.privacy_ = describe(
            self.mechanism, uses=uses, delta=self.delta, composition=composition,
            planned_wakeups=self.planned, affordable_wakeups=self.affordable,
            stopped_at=self.stopped_at.copy(), level="sample (replace one)",
            noise_source=state.source.describe(), **extra,
        )
        estimator.privacy_public_ = dict(public)
        record_noise_source(estimator, state.source)
        if math.isfinite(self.epsilon):
            # The objective values are exact functions of the training data:
            # a private fit does not keep them.
            estimator.objective_curve_ = None
            estimator.objective_ = None
        stopped = np.flatnonzero(self.stopped_at >= 0)
        if stopped.size:
            labels = estimator.nodes_.tolist()
            names = ", ".join(
                f"{labels[k]!r} at iteration {self.stopped_at[k]}" for k in stopped
            )
            warnings.warn(
                f"{type(estimator).__name__}: {stopped.size} node(s) spent their privacy "
                f"budget for the model's messages (epsilon={self.epsilon:g}"
                + (f" of the {self.epsilon + self.vote_epsilon:g} given; the class vote took "
                   f"{self.vote_epsilon:g}" if self.vote_epsilon > 0 else "")
                + f", delta={self.delta:g}) after "
                f"{self.affordable} wake-ups and stopped sending, like dropped nodes: "
                f"{names}.",
                PrivacyBudgetWarning,
                stacklevel=3,
            )


def fw_score_sensitivity(n_samples, beta):
    """Sensitivity of Dada's Frank-Wolfe scores to one replaced sample.

    The data part of node k's gradient is ``-d_k c_k A_k^T eta_k``, with
    ``eta_k`` the softmax weights ``w_i / sum_l w_l``, ``w_i =
    exp(-margin_i)``, and ``|A_k[i, j]| <= 1``.  A model in the l1 ball of
    radius ``beta`` over base predictors with values in [-1, 1] has margins
    in ``[-beta, beta]``, so every ``w_i`` lies in ``[e^-beta, e^beta]``.
    Write ``(A_k^T eta)_j = nu + w (a - nu) / (R + w)`` for the sample
    ``(a, w)`` that changes, with ``R >= (m - 1) e^-beta`` the weight of the
    ``m - 1`` others and ``nu`` in [-1, 1] their weighted mean.  Replacing
    it by ``(a', w')`` moves the score by ``(a' - nu) f(w') - (a - nu) f(w)``,
    ``f(x) = x / (R + x)`` increasing, which is at most ``(1 - nu) f(e^beta)
    + (1 + nu) f(e^beta) = 2 f(e^beta)``::

        Delta_A = 2 e^beta / ((m - 1) e^-beta + e^beta) = 2 / (1 + (m - 1) e^(-2 beta)),

    attained when the others all have margin ``beta`` and the replaced
    sample margin ``-beta`` with ``a = -1, a' = +1``.  The score of node k
    moves by at most ``d_k c_k Delta_A`` (the smoothing term depends only on
    models, which are post-processing of earlier private choices).
    """
    n_samples = np.asarray(n_samples, dtype=np.float64)
    return 2.0 / (1.0 + (n_samples - 1.0) * math.exp(-2.0 * float(beta)))


def _check_private_inputs(estimator, sample_weight, spec=None):
    check_private_peer_scoring(estimator, spec)
    if sample_weight is not None:
        raise ValueError(
            f"{type(estimator).__name__}(privacy=...) does not accept sample_weight: "
            "the sensitivities are derived for unit-weight samples (one replaced "
            "sample); a weighted sample would need a public bound on its weight."
        )


def check_private_peer_scoring(estimator, spec):
    """Refuse an explicit ``peer_scoring`` under a finite privacy budget.

    Peer scores are losses of received models on a node's own samples, which
    no mechanism protects, so a private fit runs without them.  Dada's
    default (``True``) is documented to switch off there; an explicit weight
    (Dada) or ``True`` (Perso-lin, whose default is ``False``) would be
    silently ignored, so it is refused naming the parameter.
    """
    if spec is None or not math.isfinite(spec.epsilon):
        return
    value = plain_label(estimator.peer_scoring)  # (np.True_ is True)
    default = inspect.signature(type(estimator).__init__).parameters["peer_scoring"].default
    if value is False or value is default or (not isinstance(value, bool) and value == 0):
        return
    raise ValueError(
        f"peer_scoring={value!r} cannot be used with a finite privacy budget: peer "
        "scores are losses of received models on a node's own samples, which no "
        f"mechanism protects, so {type(estimator).__name__}(privacy=...) learns its "
        f"graph without them; leave peer_scoring at its default ({default!r}) or "
        "set it to False.")


def plan_private_choices(estimator, state, spec, mass):
    """Calibrate the exponential mechanism on the Frank-Wolfe scores; set the budget."""
    K = len(estimator.nodes_)
    max_iter, n_local = estimator._schedule(K)
    state.dp = _WakeupBudget(
        spec, lambda eps, delta, n: calibrate_exponential(eps, delta, n),
        n_nodes=K, max_iter=max_iter, n_local=n_local, uses_per_step=state.P,
    )
    state.source = NoiseSource.for_fit(spec, type(estimator).__name__)
    state.sensitivity = fw_score_sensitivity(mass, estimator.beta)
    if math.isfinite(state.dp.mechanism.epsilon):
        # Quality grid step Delta / resolution per unit loss weight (times
        # d_k c_k in Cython), at the mechanism's integer scale.
        state.unit = np.ascontiguousarray(state.sensitivity / CHOICE_RESOLUTION)
        state.choice_scale = int(state.dp.mechanism.scale)
    else:
        state.unit, state.choice_scale = None, 0


def plan_private_gradients(estimator, state, spec, mass):
    """Calibrate the discrete Gaussian noise on the local gradients; set the budget."""
    K = len(estimator.nodes_)
    max_iter, n_local = estimator._schedule(K)
    dim = state.P * state.X.shape[1]
    state.dp = _WakeupBudget(
        spec, lambda eps, delta, n: calibrate_discrete_gaussian(eps, delta, 1.0, n, dim),
        n_nodes=K, max_iter=max_iter, n_local=n_local, uses_per_step=1, vote=True,
    )
    state.source = NoiseSource.for_fit(spec, type(estimator).__name__)
    finite = math.isfinite(state.dp.epsilon)
    # No noise, nothing to bound: epsilon=inf leaves the gradients unclipped.
    state.clip = float(spec.clip_norm) if finite else 0.0
    if finite:
        # The step 1 / L_F,k read ||X_k||_2 off the data; a private node uses
        # the public bound for features on a unit scale instead:
        # ||X_k||_2^2 / m_k <= mean ||x_i||^2 = n_columns when every column
        # has mean square 1 (standardized features, intercept column 1).
        state.lipschitz = np.full(
            state.K, state.loss.py_curvature() * state.X.shape[1] + state.l2
        )
    state.row_norm = np.ascontiguousarray(
        np.linalg.norm(state.X.astype(np.float64), axis=1)
    )
    # One replaced sample moves each problem's clipped mean gradient by at
    # most 2 C / m_k in l2, so the P blocks together by 2 C sqrt(P) / m_k.
    state.sensitivity = 2.0 * float(spec.clip_norm) * math.sqrt(state.P) / mass
    # The mechanism is calibrated for sensitivity 1: its sigma is the noise
    # multiplier; node k's grid step sigma_k / 2^20 makes its grid
    # sensitivity, hence its rho, the calibrated one.
    state.sigma = np.ascontiguousarray(
        state.dp.mechanism.sigma * state.sensitivity, dtype=np.float64
    )
    if finite:
        step, state.grid_steps = gaussian_grid(1.0)
        state.grid_step = np.ascontiguousarray(state.sigma * step)
    else:
        state.grid_step, state.grid_steps = None, 0


# Perso-lin's vote round.  A ballot travels as 2 bits (its code: 0 abstain,
# 1 + j option j of BALLOT), sealed to the root in one byte; codes a rogue can
# send are only these four, any other byte is refused.  The same ballot and
# result as MOCHA's server round (one count of both).
BALLOT_BYTES, RESULT_BYTES = ballot_payloads()


def vote_tree(simulation, online):
    """``(parent, order)``: the tree of Perso-lin's vote round over the online nodes.

    On a complete topology a star on the first online node (every node is
    one hop from the root, so no node relays another's ballot); otherwise
    the breadth-first aggregation tree of the topology between the online
    nodes (:func:`skfed.boosting._agreement._aggregation_tree`), which
    leaves out those they cannot reach.  ``parent`` is -1 for the root and
    for nodes not in the tree; ``order`` lists the tree's nodes parents
    first.
    """
    nodes = np.flatnonzero(online).astype(np.intp)
    if simulation.is_complete:
        parent = np.full(simulation.n_nodes, -1, dtype=np.intp)
        parent[nodes[1:]] = nodes[:1]
        return parent, nodes
    return _aggregation_tree(simulation, nodes)


def _subtrees(parent, order):
    """Every tree node's subtree in the public slot order of its vote message:
    the node itself, then its children's subtrees (children in ``order``);
    the tree's preorder, so each subtree is one contiguous run of it."""
    children = {k: [] for k in order.tolist()}
    for k in order[1:].tolist():
        children[int(parent[k])].append(k)
    preorder, stack = [], [int(order[0])] if order.size else []
    while stack:
        k = stack.pop()
        preorder.append(k)
        stack.extend(reversed(children[k]))
    size = {k: 1 for k in order.tolist()}
    for k in order[:0:-1].tolist():  # children before parents
        size[int(parent[k])] += size[k]
    preorder = np.asarray(preorder, dtype=np.intp)
    where = {k: i for i, k in enumerate(preorder.tolist())}
    return {k: preorder[where[k]:where[k] + size[k]] for k in order.tolist()}


def rogue_vote_message(simulation):
    """The network's rogue behaviour in the vote round, for :func:`tree_tally`.

    A rogue node corrupts what it sends as the network corrupts bits
    (:meth:`NetworkSimulation.corrupt_bit_rows`): its own ballot's two-bit
    code flipped (``"complement"``: abstain <-> the rbf model, the logistic
    regression <-> LinearSVC) or drawn (``"random"``), and the sealed
    ballots it relays corrupted the same way, which fails the root's seal
    check (marked -1: refused).  It passes the elected option on
    corrupted, so its subtree does not hear it.
    """
    n_bits = index_bits(len(BALLOT) + 1)
    weights = 1 << np.arange(n_bits)

    def corrupt(k, message):
        message = np.asarray(message, dtype=np.int64).copy()
        bits = (message[:1, None] >> np.arange(n_bits)) & 1
        bits = simulation.corrupt_bit_rows(bits.astype(bool), [k])
        message[0] = int(bits[0].astype(np.int64) @ weights)
        message[1:] = -1
        return message, False

    return corrupt


def tree_tally(simulation, online, ballots=None, corrupt=None):
    """Perso-lin's vote round: sealed ballots up the vote tree of the
    ``online`` nodes, checked by its root; the elected option back down.

    The tree is :func:`vote_tree`: a star on the root on a complete
    topology, else the breadth-first aggregation tree.  Every node of the
    tree but the root sends its parent one message holding the sealed
    ballot of every node of its subtree (its own first, then its children's
    messages; :data:`BALLOT_BYTES` each), and receives the elected option
    (:data:`RESULT_BYTES`, signed by the root) from it: ``2 (n - 1)``
    messages, ``sum_k size_k BALLOT_BYTES + (n - 1) RESULT_BYTES`` payload
    bytes, ``size_k`` the subtree of node k (1 each on a star).  A ballot is
    sealed to the root (authenticated encryption, its overhead not counted,
    as the fit's masks): a relay reads none and can alter none.

    The root's check, the only trusted step: a message whose length is not
    its sender's public subtree size is refused whole; a slot counts only
    when its code is one of the ``len(BALLOT) + 1`` codes and, for a
    relayed ballot, it is the one its node sealed.  Refused slots count as
    abstentions.  So a node that sends anything can recast its own ballot
    and erase (never recast) the ballots it relays; it can also withhold
    the elected option from its subtree (those nodes keep their own rule).
    ``k`` rogues whose subtrees hold ``s`` nodes in all change the counted
    ballots of at most ``s`` nodes, each by one ballot: any outcome's
    probability moves by at most ``exp(s epsilon_v)`` (``s = k`` on a
    star).  The root sees every counted ballot, as MOCHA's server does.

    Parameters
    ----------
    simulation : NetworkSimulation
        The fit's network; the round is counted on its counter as one more
        round.
    online : ndarray of shape (n_nodes,), dtype=bool
        The nodes up for the round (the fault draw).
    ballots : array-like of shape (n_nodes,), default=None
        Each node's ballot, an index into ``BALLOT`` or -1 (abstain).
        None: only the messages are counted (``counted`` is None).
    corrupt : callable, default=None
        ``corrupt(k, message) -> (message, forwards)`` for the nodes the
        network marks rogue: what node ``k`` sends instead of its honest
        ``message`` (the codes of its subtree's slots) and whether it
        passes the elected option on.  None: :func:`rogue_vote_message`.

    Returns
    -------
    reached : ndarray of shape (n_nodes,), dtype=bool
        The nodes that hear the elected option (the root included).
    n_bytes, n_messages : int
        The round's bytes (headers included) and messages, as logged.
    counted : ndarray of shape (n_nodes,) or None
        The ballots as the root counts them (-1: abstain, refused or not
        in the tree).
    """
    parent, order = vote_tree(simulation, online)
    in_tree = np.zeros(simulation.n_nodes, dtype=bool)
    in_tree[order] = True
    slots = _subtrees(parent, order)
    counter = simulation.counter
    for k in order[1:].tolist():
        counter.send_message(k, int(parent[k]), slots[k].size * BALLOT_BYTES)
        counter.send_message(int(parent[k]), k, RESULT_BYTES)
    counter.next_round()
    n_bytes, n_messages = closed_round(counter)
    if corrupt is None:
        corrupt = rogue_vote_message(simulation)
    rogue = np.asarray(simulation.rogue, dtype=bool)
    reached = in_tree.copy()
    counted = None
    sealed = None
    if ballots is not None:
        sealed = np.where(in_tree, np.asarray(ballots, dtype=np.int64) + 1, 0)
    # Bottom-up: each node's message is its own code then its children's
    # messages as it received them; a rogue replaces it.
    message = {}
    for k in order[::-1].tolist():
        own = [int(sealed[k])] if sealed is not None else [0]
        parts = [np.asarray(own, dtype=np.int64)]
        for c in slots[k][1:].tolist():
            if parent[c] == k:
                # an honest parent passes on a child's message of the child's
                # public subtree size, else as many refused slots (-1): a
                # rogue child cannot spoil its siblings' slots
                ok = message[c].size == slots[c].size
                parts.append(message[c] if ok else np.full(slots[c].size, -1, np.int64))
        honest = np.concatenate(parts)
        if rogue[k]:
            sent, forwards = corrupt(k, honest.copy())
            if not forwards:
                reached[slots[k][1:]] = False
            sent = np.asarray(sent, dtype=np.int64).ravel()
            if sealed is not None and sent.size == honest.size and 0 <= sent[0] <= len(BALLOT):
                sealed[k] = sent[0]  # a node's own slot: whatever valid code it seals
            message[k] = sent
        else:
            message[k] = honest
    if sealed is not None:
        counted = np.full(simulation.n_nodes, -1, dtype=np.int64)
        root = int(order[0]) if order.size else -1
        if root >= 0:
            counted[root] = sealed[root] - 1
        for k in order[1:].tolist():
            if parent[k] != root:
                continue
            sent = message[k]
            if sent.size != slots[k].size:
                continue  # refused whole
            ok = (sent >= 0) & (sent <= len(BALLOT)) & (sent == sealed[slots[k]])
            counted[slots[k][ok]] = sent[ok] - 1
    return reached, n_bytes, n_messages, counted


def _vote_round(estimator, simulation, ballots):
    """Perso-lin's class-vote round (:func:`tree_tally`):
    each node is online with probability ``1 - drop_rate`` (one fault draw
    after the fit's), the sealed ballots go up the vote tree of the online
    nodes, the root counts the ones that pass its check and sends the
    elected option down; the estimator's communication attributes then
    include the round.  Returns ``(reached, bytes, messages, counted)``."""
    result = tree_tally(simulation, simulation.draw_round()[0], ballots)
    estimator._set_communication(simulation)
    return result


def refit_private_final(estimator, state, rng):
    """Each node's final (kept, never sent) models under a finite budget.

    Returns ``(models, trust, radius)``: the node refits its own block
    on its exact samples with its graph neighbours held at their
    released models (:mod:`skfed._private_refit`); the released models
    stay in ``state.public``.  Returns None without a finite budget.

    Sets ``kept_local_models_`` (n_nodes,): the scikit-learn model a node
    trained alone on its raw features (``state.raw_X``) and keeps instead,
    when it is the simplest candidate within one standard error of the
    lowest held-out error on the same folds (:mod:`skfed._kept_local`),
    else None (with ``DifferentialPrivacy(local_estimator=...)``: that
    model unless the collaborative model is significantly better at
    level 0.05 / n_nodes, :func:`skfed._kept_local.choose_reference`); ``models``, ``trust`` and
    ``radius`` stay the collaborative model's, which such a node does not
    predict with.
    """
    for name in ("kept_local_models_", "elected_local_class_"):
        estimator.__dict__.pop(name, None)  # a previous private fit's
    if state.dp is None or not math.isfinite(state.dp.epsilon):
        return None
    released = np.asarray(state.public, dtype=np.float64)
    models = np.empty_like(released)
    trust = np.zeros(released.shape[:2])
    radius = np.zeros(released.shape[:2])
    kept_local = np.full(state.K, None, dtype=object)
    W = state.graph.tocsr()
    # DifferentialPrivacy(local_estimator=...): the Local model a node keeps
    # unless its collaborative model is significantly better
    reference = getattr(estimator.privacy, "local_estimator", None)
    # The class vote (skfed._class_vote.run_class_vote), when the budget
    # split held one: every node's evidence first, then the election, then
    # each node's kept model under the elected option.
    # Perso-lin's nodes vote (with no local_estimator); a Dada node's
    # candidates include AdaBoost and it does not.
    voting = state.dp.vote_epsilon > 0.0 and not hasattr(state, "H")
    if not voting and not hasattr(state, "H"):
        record_no_vote(estimator)
    evidence = [None] * state.K
    for k in range(state.K):
        rows = slice(state.offsets[k], state.offsets[k + 1])
        prior = neighbour_prior(W, released, k)
        S = np.asarray(state.Y[:, rows], dtype=np.float64)
        if hasattr(state, "H"):  # Dada (stump outputs), else Perso-lin (features)
            H = np.asarray(state.H[rows], dtype=np.float64)
            label = estimator.nodes_[k]
            models[k], trust[k], radius[k], heldout, fold, n_folds = refit_boosting(
                H, S, prior, rng, node=label.item() if hasattr(label, "item") else label)
        else:
            Z = np.asarray(state.X[rows], dtype=np.float64)
            models[k], trust[k], heldout, fold, n_folds = refit_linear(
                Z, S, prior, state.n_penalized, estimator.loss, rng)
        # The models the node can train alone (issue 27): kept instead when
        # they validate as well on the same folds, within one standard error
        # of the best (skfed._kept_local.kept_choice).
        codes = (S[0] > 0).astype(np.intp) if S.shape[0] == 1 else np.argmax(S, axis=0)
        seed = int(rng.randint(2**31 - 1))
        if voting:
            evidence[k] = vote_evidence(np.asarray(state.raw_X[rows]), codes, heldout, fold,
                                        n_folds, seed)
            continue
        kept_local[k] = choose_classifier(
            np.asarray(state.raw_X[rows]), codes, heldout, fold, n_folds,
            seed, reference=reference, node=k, n_nodes=state.K,
            boosting=hasattr(state, "H"))
    if voting:
        kept_local = run_class_vote(estimator, evidence, state.dp.vote_epsilon, state.source,
                                    tally=lambda ballots: _vote_round(
                                        estimator, state.simulation, ballots))
    estimator.kept_local_models_ = kept_local
    return models.astype(state.dtype), trust, radius
