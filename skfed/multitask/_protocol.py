"""The round protocol of kernelized MOCHA: what travels, when, and its bytes.

Protocol and byte counts
------------------------
A server (endpoint ``n_nodes``) coordinates; nodes never talk to each
other.  Every round, each participating (not dropped) node gets one message
from the server and sends one back; what they hold depends on the mode.
Data vectors (support vectors, landmarks) travel in the data's dtype (4
bytes a value in float32, 8 in float64); every other number (dual changes,
model vectors, ``Sigma`` rows, gap terms) is a float64, every sample index
an int32; each message also pays the network's header (see
:mod:`skfed.network`).

*Exact kernel mode* (``approximation=None``, any kernel but ``"linear"``).
Node t keeps ``S_t[i, u] = sum_j (alpha_uj / n_u) k(x_uj, x_ti)``, the
contribution of node u's support vectors to its own margins, so that
``f_t(x_ti) = (1/lambda) sum_u sigma_tu S_t[i, u]``.

- server -> node u: its row of ``Sigma = Omega^{-1}`` and ``rho`` (m + 1
  floats) when they changed since u last got them; then, for every support
  vector j of another node t with ``sigma_tu != 0`` whose dual variable
  changed since u was last told, its index and its net change (one float
  per binary problem), preceded by the vector itself (d values) the first
  time u hears of it.  A node caches every vector it has received, so a
  vector crosses each link once.
- node t -> server: for every sample whose dual variable changed this round,
  its index and change (one float per binary problem), preceded by the
  vector the first time it is sent; plus three floats of gap terms.
- an Omega update (when the W-step's relative gap falls to ``10 tol``, or
  every ``omega_update_every`` rounds if set) costs one more exchange per participating node: the
  server delivers every pending change (whatever ``Sigma`` says), the node
  answers with its row of ``G[t, u] = sum_i (alpha_ti / n_t) S_t[i, u]``
  (m floats).  The server forms ``W^T W = Sigma G Sigma / lambda^2`` and
  the new ``Sigma``, which goes out with the next round's messages.  For a
  node dropped during the update, the server computes the missing entries
  (its diagonal, and pairs of two dropped nodes; the others come from the
  reports by symmetry) itself from the support vectors and dual changes it
  has relayed, so the update is exact; this costs the server kernel
  evaluations, not messages.

*Primal modes* (``kernel="linear"``, MOCHA itself, and the approximate
modes, which run linear MOCHA on explicit features): the server keeps
``V = [v_1 ... v_m]``, ``v_t = sum_i alpha_ti x_ti / n_t``, and
``W = V Sigma / lambda``.

- server -> node t: ``w_t`` (d' floats per binary problem), plus
  ``sigma_tt`` and ``rho`` (2 floats) when they changed;
- node t -> server: the change of ``v_t`` (d' floats per binary problem)
  plus three floats of gap terms.  The Omega update needs no messages.
- under the multinomial loss (``multi_class_="multinomial"``) a sample's
  dual variables sum to zero over the ``K`` classes, so every ``v_t``,
  ``w_t`` (and the shared model's ``w_0`` and ``u_t``) has class rows that
  sum to zero: ``K - 1`` rows travel and the receiver forms the last
  (:func:`~skfed.multitask._multiclass.rows_sent`), here and in the
  shared model's messages; compressed, the ``K - 1`` rows share one
  scale (here a float64 one: ``8 + ceil((K - 1) d' b / 8)`` bytes; in the
  shared model's messages a float32 one: ``4 + ceil((K - 1) d' b / 8)``,
  :func:`~skfed.multitask._multiclass.quantize_rows`).
- with ``aggregation`` searching the step (the default here), in rounds
  where ``rho > 1``: the server also sends the nodes' scaling (1 float)
  with every message and the step of a node's last update (1 float per
  binary problem) with its next message or the final delivery; the node
  also sends the change of its conjugate sum along its step (1 float per
  binary problem for the hinge and logistic losses, 2 for the others):
  see :func:`~skfed.multitask._omega.line_search_step`.
- with ``compression=b`` (``"auto"``: 8 bits), ``w_t`` and the change of
  ``v_t`` travel as one float64 scale and ``b``-bit integers per binary
  problem (``8 + ceil(d' b / 8)`` bytes, :func:`~skfed.multitask._compression.quantize`).  Error
  feedback keeps both sides exact up to one rounding: the node adds what
  rounding left out of its earlier updates to the next one (the server's
  ``V`` differs from the dual variables' by that residual only), and the
  server sends the difference between ``w_t`` and the model the node holds
  (which it knows), so the node's model follows ``w_t`` within one rounding
  of the last difference; the node solves with its model plus its own
  residual's term.  With the line search each node also sends its exact
  term of ``<dV, Sigma V>`` (1 float per binary problem), which the
  server's ``V`` and the rounded steps would miss.  The stopping rule's gap
  is that of the server's model (the returned one) against the dual
  variables' dual objective, so it still bounds the returned model's
  distance to the optimum; the final ``w_t`` goes out in float64.

*Cost model of linear mode* (``kernel="linear"``).  ``Omega`` is m x m by
definition; with ``n_problems d' < m`` it is never formed during the fit:
``W^T W`` then has rank ``r <= n_problems d'``, and the exact Omega step
gives ``Sigma = f I + U diag(s) U^T`` (``U``: m x r), kept factored
(:class:`~skfed.multitask._omega._LowRankSigma`).  A round costs ``O(local_epochs n d')`` at the
nodes with coordinate ascent, or a few ``O(n_t^3)`` Newton iterations per
node with the exact local solver (``local_solver``; ``sum_t n_t^2`` floats
of Gram matrices, ``O(n_t^2 d')`` once to form them), in one Cython call
for all of them, plus ``O(m r d' + n d')`` at the
server (``W = V Sigma / lambda`` from the factors, the margins for the
duality gap); an Omega step ``O(m (n_problems d')^2)`` (thin SVDs of the
m x (n_problems d') matrices ``W`` and ``V``, Lanczos for ``rho``).  With
``n_problems d' >= m``, Sigma is dense and a round costs ``O(m^2 d')``, an
Omega step ``O(m^3)``.

*Setup* (in the first round without drops; under drops see
:meth:`_RoundProtocol.count_setup`): ``gamma="scale"`` needs the pooled
variance of the features: each node sends its count, sum and sum of squares
(3 floats) and receives ``gamma`` (1 float).  ``approximation="nystroem"``
draws its ``n_components`` landmarks once, before the first round: every
node picks a share proportional to its number of samples, uniformly at
random among its own samples, sends them to the server, and receives the
other nodes' landmarks (so every landmark crosses to every node once: the
landmarks are raw data and leave their node).  With ``landmarks="kmeans"``
the landmarks are k-means centres instead: every node clusters its own
samples into twice its share of local centres (k-means++ then Lloyd) and
sends them with their cluster sizes (``d + 1`` values each); the server
runs weighted k-means over all local centres and sends the
``n_components`` centres to every node (no sample leaves its node, only
averages of local clusters).  ``approximation="rff"``
draws its random Fourier features from a seed every node shares: nothing
about the data leaves a node.

*End of fit*: the server sends every node what it still lacks to predict on
its own (pending changes and vectors, its ``Sigma`` row, or its final
``w_t``), counted in the last round.

The duality gap that decides when to stop is the exact one, evaluated by the
simulation over all nodes after every round; in a deployment it is the sum
of the three-float reports the nodes send.

The server's side of this protocol is one object, :class:`_RoundProtocol`:
the simulated fit runs it with the nodes in the same process, the Flower
engine with the nodes on SuperNodes; both count the bytes above through
it, so a change of the protocol is made there once.
"""

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils import check_random_state

from .._base import check_network_faults, node_seeds
from .._class_vote import server_tally
from .._core._multitask_fast import Multinomial, problem_gap_terms
from .._pending import DropWait
from ..network import resolve_network
from ._compression import _FLOAT
from ._omega import (
    _COUPLING_MARGIN,
    _CONJUGATE_COEFFICIENTS,
    _LowRankSigma,
    _StoppingRule,
    _rho,
    _sigma_diag,
    _task_gram,
    joint_objectives,
    omega_update,
)
from ._private import _PrivateSchedule, _PrivateUpdates
from ._setup_note import setup_note
from ._state import _PrimalState


# Fault draws are made in chunks of this many rounds, so the faults of the
# first rounds do not depend on ``max_rounds``.
_ROUND_CHUNK = 64


# Faults of SimulatedNetwork that MOCHA refuses (here and on Flower).
_UNSUPPORTED_FAULTS = {
    "rogue_fraction": "the paper defines no rogue nodes and the server sums the "
    "nodes' updates with no robust rule",
}


def _steps(work, n_samples, local_epochs):
    """Coordinate steps of nodes that do a fraction ``work`` of their epochs."""
    steps = np.maximum(1, np.ceil(local_epochs * work * n_samples)).astype(np.intp)
    return np.where(work > 0, steps, 0)


def _fault_note(network, simulation):
    """``" with network.drop_rate=0.9 (...)"`` for a message, or ``""``."""
    if network is None or network.is_perfect:
        return ""
    faults = [
        f"network.{name}={getattr(network, name)!r}"
        for name in ("drop_rate", "straggler_rate")
        if getattr(network, name)
    ]
    sent = np.asarray(simulation.log().messages_sent).ravel()[: simulation.n_nodes]
    return (
        f" with {' and '.join(faults)} (the least active node sent "
        f"{int(sent.min())} messages, the median one {int(np.median(sent))})"
    )


class _Faults:
    """Round-by-round faults drawn in fixed chunks from the simulation."""

    def __init__(self, simulation):
        self.simulation = simulation
        self.active = self.work = None
        self.position = _ROUND_CHUNK

    def next(self):
        if self.position >= _ROUND_CHUNK:
            self.active, self.work = self.simulation.draw_rounds(_ROUND_CHUNK)
            self.position = 0
        active = self.active[self.position]
        work = self.work[self.position]
        self.position += 1
        return active, work


def _objectives(loss_sum, conj_sum, cross_sum):
    """``(gap, primal, dual)`` at fixed ``Sigma`` from the three gap sums.

    The sums are over all nodes, each node's terms divided by its total
    weight: ``sum s l(f, y)``, ``sum s l*(-g)`` and ``sum alpha f`` (the
    three floats a node reports every round).
    """
    primal = loss_sum + 0.5 * cross_sum
    dual = -conj_sum - 0.5 * cross_sum
    return loss_sum + conj_sum + cross_sum, primal, dual


class _RoundProtocol:
    """The server's side of one fit of kernelized MOCHA: its rounds, bytes and stop.

    One object per fit holds the protocol's state from round to round: the
    network's simulation and its byte counter, the fault draws, ``Sigma``
    and ``rho`` (and which nodes hold them), the line search's coupling
    ratio and pending steps, the privacy mechanism, the stopping rule and
    the curves.  Its methods are the named steps of a round; every engine
    runs them, so a change of the protocol (what a message holds and
    costs, when Omega steps, when the fit stops) is made here once:

    - the simulated fit runs :meth:`run` (the nodes are a mode state of
      :mod:`skfed.multitask._state` in this process);
    - the Flower engine (:mod:`skfed.engines._flower_multitask`) carries the
      messages and calls the same steps around its exchanges.

    A round, in order: :meth:`draw_round` (the faults), :meth:`count_setup`
    (until every node has its setup), :meth:`count_downlink`,
    :meth:`local_scaling`, the
    nodes' local solves, the line search and :meth:`privatize`,
    :meth:`count_uplink`, the server's update, the duality gap,
    :meth:`omega_step_or_stop`, :meth:`record`, :meth:`count_final` (last
    round only) and :meth:`end_round`; :meth:`finish` after the last one.

    Parameters
    ----------
    estimator : _BaseMultiTask
        Reads its parameters (``network``, ``random_state``, ``tol``,
        ``max_rounds``, ...) and receives the fitted attributes.
    n_nodes : int

    Notes
    -----
    The constructor makes the random draws every engine makes first, in
    this order: the nodes' seeds (:attr:`seeds`), then the network's
    simulation; :attr:`rng` then draws the setup's random numbers (random
    features, landmarks).  The privacy noise comes from its own secure
    source, never from ``random_state``.
    """

    def __init__(self, estimator, n_nodes):
        self.estimator = estimator
        self.m = n_nodes
        self.rng = check_random_state(estimator.random_state)
        self.seeds = node_seeds(self.rng, n_nodes)
        check_network_faults(estimator, estimator.network, _UNSUPPORTED_FAULTS)
        network = resolve_network(estimator.network)
        self.simulation = network.start(n_nodes, server=True, random_state=self.rng,
                                        node_labels=estimator.nodes_)
        self.counter = self.simulation.counter
        self.everyone = np.arange(n_nodes, dtype=np.intp)
        # Setup messages (count_setup: each node's in its first round up): per node.
        self.setup_up = np.zeros(n_nodes, dtype=np.int64)
        self.setup_down = np.zeros(n_nodes, dtype=np.int64)
        self.rounds_waited = 0  # rounds without a W-step: a setup missing (setup_note)
        self.gamma_setup = False

    # ------------------------------------------------------------ setup
    def add_gamma_setup(self):
        """``gamma="scale"`` with a named kernel: every node sends its count, sum
        and sum of squares (3 floats) and receives ``gamma`` (1 float).
        Returns whether the exchange takes place."""
        est = self.estimator
        if (callable(est.kernel) or est.kernel == "linear" or est._noised()
                or not (isinstance(est.gamma, str) and est.gamma == "scale")):
            return False
        self.gamma_setup = True
        self.setup_up += 3 * _FLOAT
        self.setup_down += _FLOAT
        return True

    def begin(self, *, sigma, learn, lam, totals, counts, n_problems, sigma_info_floats,
              state=None, loss=None, dp_spec=None, line_search=False, compressed=False):
        """Start the rounds: the loop state, the stopping rule and the privacy mechanism.

        Parameters
        ----------
        sigma : ndarray of shape (n_nodes, n_nodes) or _LowRankSigma
            The initial ``Sigma = Omega^{-1}``.
        learn : bool
            Whether Omega is learned.
        lam : float
        totals, counts : ndarray of shape (n_nodes,)
            Every node's total sample weight and number of samples.
        n_problems : int
            Binary problems (one per class for more than two classes).
        sigma_info_floats : int
            Floats of a node's ``Sigma`` information (its row and ``rho`` in
            the exact kernel mode, ``sigma_tt`` and ``rho`` otherwise).
        state : _PrimalState or _KernelState, default=None
            The nodes, for :meth:`run` (the simulated fit).
        loss : Cython loss, default=None
            For :meth:`run`.
        dp_spec : privacy specification, default=None
        line_search : bool, default=False
            Whether the server searches the step (``aggregation``, resolved).
        compressed : bool, default=False
            Whether the round messages are quantized (``compression``).
        """
        est = self.estimator
        m = self.m
        self.state = state
        self.loss = loss
        if state is not None and hasattr(state, "multinomial"):
            # the primal modes send K - 1 class rows (_multiclass.rows_sent)
            state.multinomial = isinstance(loss, Multinomial)
        self.lam = lam
        self.totals = totals
        self.counts = counts
        self.line_search = line_search
        # The line search: the last measured coupling ratio (the nodes'
        # scaling is twice it, within [1, rho]), and which nodes have not yet
        # been told the step of their last update.
        self.ratio = 1.0
        self.step_pending = np.zeros(m, dtype=bool)
        self.step_floats = n_problems * _FLOAT
        self.search_floats = n_problems * _CONJUGATE_COEFFICIENTS[est.loss] * _FLOAT
        if compressed:
            self.search_floats += n_problems * _FLOAT  # the node's cross term
        self.start_rounds()
        self.sigma = sigma
        self.rho = _rho(sigma)
        self.version = 0  # counts the adopted Sigmas
        self.sigma_sent = np.zeros(m, dtype=bool)  # nodes holding the current Sigma info
        self.sigma_info = sigma_info_floats * _FLOAT
        self.private = None
        self.rule = _StoppingRule(est, learn and m > 1)
        if dp_spec is not None:
            dim = n_problems * getattr(state, "d", 1)
            self.private = _PrivateUpdates(dp_spec, m, est._max_rounds(), dim, type(est).__name__,
                                           vote=is_classifier(est))
            if self.private.sigma > 0.0:
                self.rule = _PrivateSchedule(est, learn and m > 1)
                self.rule.every = est._omega_update_every()
                if self.rule.every is not None:
                    self.private.planned_steps = est._max_rounds() // self.rule.every
                state.start_private()
        # Private fits with noise do not send the three gap terms.
        noised = self.private is not None and self.private.sigma > 0.0
        self.gap_terms = 0 if noised else 3 * _FLOAT
        self.gaps, self.objectives, self.duals = [], [], []
        self.converged = False
        self.best_sigma = None
        self.zero_objective = None
        # Learned Omega: the models of the W-step with the lowest joint
        # objective so far (restored when max_rounds runs out with worse ones).
        self.best_models = None
        # An engine whose nodes hold the dual variables: its keep / restore /
        # gram hooks for the returned-model rule (see best_or_current).
        self.keeper = None

    def start_rounds(self):
        """The fault draws and the round count (also for the shared model's
        own loop, :class:`skfed.multitask._shared._SharedFit`)."""
        self.faults = _Faults(self.simulation)
        self.round = 0

    # ------------------------------------------------------- one round
    def draw_round(self):
        """The faults of the next round: ``(active_mask, work, active)``."""
        active_mask, work = self.faults.next()
        return active_mask, work, np.flatnonzero(active_mask).astype(np.intp)

    def setup_wait(self):
        """The setup still owed as a :class:`skfed._pending.DropWait`: step
        0, each node's setup up; step 1, once the server holds them all,
        its setup down (the nodes whose ``setup_up`` / ``setup_down`` are
        not 0, read afresh: what is owed changes between round loops)."""
        return DropWait([np.flatnonzero(self.setup_up > 0), np.flatnonzero(self.setup_down > 0)])

    def setup_waits(self, active):
        """Whether the W-steps still wait, after the round whose nodes up
        are ``active``, for a node's setup message up (see :meth:`count_setup`)."""
        wait = self.setup_wait()
        wait.take(self._up_mask(active))
        return wait.step == 0

    def _up_mask(self, active):
        """The nodes ``active`` as a mask of the fit's nodes."""
        mask = np.zeros(self.m, dtype=bool)
        mask[active] = True
        return mask

    def count_setup(self, active):
        """The setup messages of the round whose nodes up are ``active``;
        returns the nodes of the round's W-step.

        The setup (``gamma="scale"``: a node's count, sum and sum of squares
        up, ``gamma`` down; Nystroem: its landmark rows or local centres
        up, the others' landmarks down; ``warm_start``: its previous dual
        variables up) runs under the fit's drop draws: a node sends its
        setup up in its first round up.  Every node's first solve needs
        what the server computes from all of them (``gamma``, the
        landmarks, the warm-started sums), so the W-steps start in the
        round in which the server holds every node's setup up; before it no
        node solves (none returned: the round is one in which every node
        is dropped, and counts towards ``max_rounds``).  A node receives its
        setup down in its first round up from then on (before its first
        W-step messages), or with the final delivery (:meth:`count_final`).
        Without drops all of it is in the first round.  Each message is
        counted once, also when one fit runs several round loops (the
        shared model's share selection).  The schedule is
        :class:`skfed._pending.DropWait`'s (:meth:`setup_wait`).
        """
        wait = self.setup_wait()
        if wait.complete:
            return active
        for step, sent in wait.take(self._up_mask(active)):
            nodes = wait.nodes(step)[sent]
            if nodes.size:
                owed = self.setup_up if step == 0 else self.setup_down
                send = (self.counter.gather_to_server if step == 0
                        else self.counter.broadcast_from_server)
                send(nodes, owed[nodes])
                owed[nodes] = 0
        if wait.step == 0:  # a setup up still missing: no W-step
            self.rounds_waited += 1
            return active[:0]
        return active

    def setup_note(self):
        """The convergence warning's words on the setup (:func:`setup_note`)."""
        return setup_note(self)

    def take_setup_down(self, receivers):
        """The setup downs ``receivers`` have not yet received (now counted
        as part of a message to them: the final delivery)."""
        payloads = self.setup_down[receivers].copy()
        self.setup_down[receivers] = 0
        return payloads

    def searching(self):
        """Whether this round's step is searched.  With a diagonal Sigma
        (``rho = 1``) the subproblems are the dual's own blocks: full steps,
        nothing to search."""
        return self.line_search and self.rho > 1.0

    def count_downlink(self, active, payloads, searching=False):
        """Server -> active nodes: the mode's ``payloads`` plus the ``Sigma``
        information where a node's copy is stale, the step of a node's last
        update (which it applies before it solves) and, when searching, the
        round's scaling."""
        down = payloads + np.where(self.sigma_sent[active], 0, self.sigma_info)
        self.sigma_sent[active] = True
        down += np.where(self.step_pending[active], self.step_floats, 0)
        down += _FLOAT if searching else 0
        self.step_pending[active] = False
        self.counter.broadcast_from_server(active, down)

    def local_scaling(self, searching=False):
        """``c_t = scale sigma_tt / (lambda W_t)`` of the nodes' subproblems
        (``scale``: ``rho``, or twice the coupling ratio within [1, rho] when
        searching)."""
        if searching:
            scale = min(max(_COUPLING_MARGIN * self.ratio, 1.0), self.rho)
        else:
            scale = self.rho
        return scale * _sigma_diag(self.sigma) / (self.lam * self.totals)

    def privatize(self, active, results):
        """The nodes' updates as released under ``privacy`` (unchanged without)."""
        if self.private is None:
            return results
        return self.private.privatize(active, results, self.totals)

    def count_uplink(self, active, payloads, searching=False):
        """Active nodes -> server: the mode's ``payloads``, the gap terms and,
        when searching, the conjugate coefficients (and compressed, the
        cross term)."""
        up = payloads + self.gap_terms
        up += self.search_floats if searching else 0
        self.counter.gather_to_server(active, up)

    def count_omega_exchange(self, active, down, up):
        """The exact kernel mode's Omega exchange (pending changes down, G rows up)."""
        if active.size:
            self.counter.broadcast_from_server(active, down)
            self.counter.gather_to_server(active, up)

    def omega_candidate(self, gram):
        """The Omega step's new ``Sigma`` from the nodes' Gram matrix ``G``
        (:func:`~skfed.multitask._omega.omega_update`; None when ``W = 0``)."""
        return omega_update(_task_gram(gram, self.sigma, self.lam))

    def adopt(self, sigma):
        """Take ``sigma`` as the new ``Sigma``: every node's copy is stale."""
        self.sigma = sigma
        self.rho = _rho(sigma)
        self.sigma_sent[:] = False
        self.version += 1

    def omega_due_next(self):
        """Whether the next round's gap will be followed by a scheduled Omega
        step (``omega_update_every``) whatever the gap (for an engine that
        prepares the step's messages before it knows the gap)."""
        rule, every = self.rule, self.rule.every
        return rule.learn and every is not None and rule.since_update + 1 >= every

    def omega_step_or_stop(self, gap, primal, dual, *, step, evaluate, joint=None):
        """The stopping rule after the round's gap, and the Omega step when due.

        Parameters
        ----------
        gap, primal, dual : float
            The round's duality gap and objectives at the current ``Sigma``.
        step : callable
            ``step() -> (gram, new_sigma)``: the Omega step's Gram matrix
            ``G`` (None with a factored ``Sigma``) and new ``Sigma`` (None
            when ``W = 0``); an engine counts its messages there.
        evaluate : callable
            ``evaluate(new_sigma) -> (gap, primal, dual)`` at the adopted
            ``Sigma`` (``new_sigma`` None: the unchanged one).
        joint : callable, default=None
            ``joint(gram, primal, dual, sigma)``: the joint objectives where
            :func:`~skfed.multitask._omega.joint_objectives` on ``G`` does not
            apply (None where it does).

        Returns
        -------
        gap, primal, dual : float
            The round's values to record: after the Omega step when it is
            taken, else the given ones.
        """
        rule, lam = self.rule, self.lam
        if not rule.omega_step_due(gap, primal):
            self.converged = rule.without_omega_step(gap, primal, dual)
            return gap, primal, dual
        gram, new_sigma = step()
        # The joint objective of the models the W-step reached (the Omega
        # step keeps the dual variables, so it moves them).
        sigma = self.sigma
        self.converged = rule.before_omega_step(
            primal, dual, gram, sigma, lam,
            joint=None if joint is None else joint(gram, primal, dual, sigma),
        )
        self.keep_if_best(rule.before, sigma, new_sigma)
        if self.converged:
            # Stop with those models; their best Omega is the step's.
            self.best_sigma = sigma if new_sigma is None else new_sigma
            return gap, primal, dual
        if new_sigma is not None:
            self.adopt(new_sigma)
        gap, primal, dual = evaluate(new_sigma)
        rule.after_omega_step(
            primal, dual, gram, self.sigma, lam,
            joint=None if joint is None else joint(gram, primal, dual, self.sigma),
        )
        return gap, primal, dual

    def keep_if_best(self, joint, sigma, new_sigma):
        """Keep the models a W-step reached when their joint objective is the
        lowest so far; :meth:`best_or_current` returns to them.

        The simulated fit copies the dual variables and the server's ``V``;
        an engine whose nodes hold the dual variables passes its
        :attr:`keeper` (:meth:`keep` tells it to keep them, at no message's
        cost: each node keeps its own)."""
        state, keeper = self.state, self.keeper
        if (state is None and keeper is None) or not self.rule.learn:
            return
        if self.best_models is not None and not joint[0] < self.best_models["joint"][0]:
            return
        if keeper is not None:
            models = keeper.keep()
        else:
            models = (state.g.copy(),
                      state.V.copy() if isinstance(state, _PrimalState) else None)
        self.best_models = dict(
            joint=tuple(joint), models=models, sigma=sigma,
            best_sigma=sigma if new_sigma is None else new_sigma,
        )

    def best_or_current(self):
        """When max_rounds ran out in the middle of a learned-Omega W-step: the
        returned models are the better, by joint objective, of the current
        ones (with their best Omega) and the best W-step's, and
        ``joint_objective_`` is theirs.

        Every engine runs this rule, without a message: the current models'
        objectives are the last round's (recorded), their Omega step's Gram
        matrix is the server's (the simulation's state, or the
        :attr:`keeper`'s ``gram()``: the primal server's ``V``, the exact
        mode's last reported rows), and a return to the best W-step is the
        keeper's ``restore`` (the simulation restores its copies).  Called
        again, it does nothing."""
        rule, state, best, keeper = self.rule, self.state, self.best_models, self.keeper
        if ((state is None and keeper is None) or not rule.learn or self.converged
                or rule.stop_before_step or self.private is not None or not self.gaps):
            return
        primal, dual = self.objectives[-1], self.duals[-1]
        if keeper is not None:
            gram = keeper.gram()
            new_sigma = self.omega_candidate(gram)
        else:
            gram, new_sigma = self.omega_step_quiet()
        sigma = self.sigma
        current = self.joint_objectives(gram, primal, dual, sigma)
        if current is None:
            current = joint_objectives(primal, dual, gram, sigma, self.lam)
        rule.best_dual = max(rule.best_dual, current[1])
        if best is None or current[0] <= best["joint"][0]:
            rule.joint = current
            self.best_sigma = sigma if new_sigma is None else new_sigma
        else:
            if keeper is not None:
                keeper.restore(best["models"])
            else:
                g, V = best["models"]
                state.g[...] = g
                if V is not None:
                    state.V[...] = V
            self.sigma = best["sigma"]
            rule.joint = best["joint"]
            self.best_sigma = best["best_sigma"]
        rule.stop_before_step = True  # report best_sigma, the models' best Omega

    def omega_step_quiet(self):
        """The Omega step's ``(gram, new_sigma)`` without counting messages
        (the simulation's own evaluation of the returned models)."""
        state, sigma = self.state, self.sigma
        if isinstance(sigma, _LowRankSigma):
            return None, state.low_rank_omega_update(sigma, self.lam)
        gram = state.gram()
        return gram, self.omega_candidate(gram)

    def record(self, gap, primal, dual, n_active, engine=""):
        """The round's point of the curves (and its line with ``verbose``)."""
        self.gaps.append(gap)
        self.objectives.append(primal)
        self.duals.append(dual)
        if self.estimator.verbose:
            rule = self.rule
            print(
                f"round {self.round + 1}: gap {gap:.3e} primal {primal:.6e} "
                f"({n_active}/{self.m} nodes)"
                + (f"; Omega step, joint objective {rule.joint[0]:.6e} "
                   f"(dual {rule.best_dual:.6e})"
                   + (", stop before the step" if rule.stop_before_step else "")
                   if rule.stepped or rule.stop_before_step else "")
                + engine
            )

    def last_round(self):
        """Whether the fit stops after this round."""
        return self.converged or self.round == self.estimator._max_rounds() - 1

    def count_final(self, receivers, payloads):
        """End of fit: what every node still lacks to predict on its own
        (the mode's ``payloads``, its ``Sigma`` information, its last step)."""
        payloads = payloads + np.where(self.sigma_sent[receivers], 0, self.sigma_info)
        payloads += np.where(self.step_pending[receivers], self.step_floats, 0)
        payloads += self.take_setup_down(receivers)  # a node never up since the setup
        self.counter.broadcast_from_server(receivers, payloads.astype(np.int64))

    def end_round(self):
        self.counter.next_round()
        self.round += 1

    def finish(self):
        """After the last round: the privacy account, the curves, Omega and
        the communication attributes of the estimator.

        Returns
        -------
        sigma : ndarray or _LowRankSigma
            The reported ``Sigma``: the current one, or after a stop at a due
            Omega step, the best one for the last W-step's models.
        """
        est = self.estimator
        converged = self.converged
        if self.noised():
            # A private fit runs its max_rounds by design (no gap is sent) and
            # computes no exact objective: nothing to warn about.
            converged = True
        if self.private is not None:
            self.private.finish(est)
            if "_class_vote_plan" in est.__dict__:
                # the class vote after the rounds (kept_node_models): one more
                # server round on this fit's network and fault draws
                est._class_vote_plan += (self.vote_round,)
        self.best_or_current()
        reported = self.best_sigma if self.rule.stop_before_step else self.sigma
        est._set_fit_results(
            self.gaps, self.objectives, self.duals, reported, self.rho, self.simulation,
            converged, zero_objective=self.zero_objective, rule=self.rule,
            setup=self.setup_note(),
        )
        if self.noised():
            # The objective and duality-gap values are exact functions of the
            # training data: a private fit neither computes nor keeps them.
            for name in ("duality_gap_curve_", "objective_curve_", "dual_objective_curve_",
                         "joint_objective_curve_", "joint_objective_", "joint_duality_gap_"):
                setattr(est, name, None)
        return reported

    def vote_round(self, ballots):
        """The private class vote's round (:func:`skfed._class_vote.server_tally`):
        the next round's fault draw, the active nodes' ballots up and the
        elected option down; the estimator's communication attributes then
        include it.  Returns ``(reached, bytes, messages, counted)``."""
        active_mask, _, _ = self.draw_round()
        result = server_tally(self.counter, active_mask, ballots,
                              pooled=getattr(self.private, "pooled_epsilon", 0.0) > 0.0)
        self.estimator._set_communication(self.simulation)
        return result

    def noised(self):
        """Whether the fit is private with a finite budget (noised releases)."""
        return self.private is not None and self.private.sigma > 0.0

    # --------------------------------------------- the simulated fit
    def gap(self):
        """``(gap, primal, dual)`` at the current ``Sigma``, over every node's
        data (in a deployment: the sum of the nodes' three-float reports).
        A private fit sends no gap terms: NaN, computed from nothing."""
        if self.noised():
            return np.nan, np.nan, np.nan
        state, sigma, lam = self.state, self.sigma, self.lam
        f = state.margins(sigma, lam)
        sums = np.zeros((self.m, 3))
        problem_gap_terms(np.ascontiguousarray(f), state.Y, state.sw, state.g,
                          state.layout.offsets, self.loss, sums)
        loss_sum, conj_sum, cross_sum = (sums / self.totals[:, None]).sum(axis=0)
        quadratic = getattr(state, "quadratic_terms", lambda *a: None)(sigma, lam)
        if quadratic is not None:
            # compression: the server's model is not exactly W(alpha); the
            # gap of that model against the dual variables' dual objective
            primal = loss_sum + quadratic[0]
            dual = -conj_sum - quadratic[1]
            return primal - dual, primal, dual
        return _objectives(loss_sum, conj_sum, cross_sum)

    def warm_start(self, g):
        """``warm_start=True``: the previous fit's dual variables reach the
        server (and through it the other nodes) as ordinary changes from
        zero, counted with the setup messages (:meth:`count_setup`)."""
        state, layout = self.state, self.state.layout
        state.g[...] = g
        alpha = g * state.sw
        primal = isinstance(state, _PrimalState)
        results = []
        for t in range(self.m):
            sl = layout.node_slice(t)
            results.append((alpha[:, sl] @ state.Z[sl], alpha[:, sl]) if primal
                           else alpha[:, sl])
        self.setup_up += state.uplink(self.everyone, results)
        state.apply(self.everyone, results, None)

    def run(self, *, theta, n_chunks, warm=None):
        """The simulated fit's rounds, until the stopping rule or ``max_rounds``.

        Parameters
        ----------
        theta : float
            The local solvers' gap target (``local_gap_target``, 0: none).
        n_chunks : int
            Blocks of nodes per round when the node solves run in parallel.
        warm : ndarray of shape (n_problems, n_samples), default=None
            The dual variables to start from (``warm_start``).
        """
        est = self.estimator
        self.theta, self.n_chunks = theta, n_chunks
        # The objective of the all-zero model (every dual variable is 0 here):
        # a fit that ends above it has diverged (see _set_fit_results).
        self.zero_objective = self.gap()[1]
        if warm is not None:
            self.warm_start(warm)
        with est._parallel_context() as parallel:
            parallel = parallel if est._use_parallel() else None
            for _ in range(est._max_rounds()):
                self.simulated_round(parallel)
                if self.converged:
                    break

    def simulated_round(self, parallel):
        """One round with the nodes in this process."""
        active_mask, work, active = self.draw_round()
        active = self.count_setup(active)
        if active.size:
            self.w_step(active, work, parallel)
        gap, primal, dual = self.omega_step_or_stop(
            *self.gap(), step=lambda: self.omega_step(active),
            evaluate=lambda new_sigma: self.gap(), joint=self.joint_objectives,
        )
        self.record(gap, primal, dual, active.size)
        if self.last_round():
            self.count_final(*self.state.final_delivery(self.sigma))
        self.end_round()

    def w_step(self, active, work, parallel):
        """The active nodes' local solves and the server's update (one W-step round)."""
        est, state = self.estimator, self.state
        searching = self.searching()
        self.count_downlink(active, state.downlink(active, self.sigma), searching)
        c = self.local_scaling(searching)
        steps = _steps(work, self.counts, est.local_epochs)
        if searching:
            g_before = state.g.copy()
        results = state.solve(
            active, steps, c, self.sigma, self.lam, self.theta, self.loss, parallel,
            self.n_chunks, **({"full": work >= 1.0} if isinstance(state, _PrimalState) else {}),
        )
        if searching:
            _, self.ratio = state.line_search(
                active, results, g_before, self.sigma, self.lam, est.loss
            )
            self.step_pending[active] = True
        results = self.privatize(active, results)
        self.count_uplink(active, state.uplink(active, results), searching)
        state.apply(active, results, parallel)

    def omega_step(self, active):
        """The simulated Omega step: ``(gram, new_sigma)``.

        Under a finite privacy budget the server's ``G`` is that of its noisy
        ``V``: the noise-aware step
        (:meth:`~skfed.multitask._private._PrivateUpdates.denoised_gram`)
        takes the pairs the noise does not explain, or keeps ``Sigma``."""
        state, sigma = self.state, self.sigma
        if self.noised():
            gram = self.private.denoised_gram(state.V)
            if gram is None:
                return None, None
            return gram, self.omega_candidate(gram)
        if isinstance(sigma, _LowRankSigma):
            return None, state.low_rank_omega_update(sigma, self.lam)
        gram, exchange = state.omega_exchange(active, sigma)
        if exchange is not None:
            self.count_omega_exchange(active, *exchange)
        return gram, self.omega_candidate(gram)

    def joint_objectives(self, gram, primal, dual, sigma):
        """The joint objectives where :func:`joint_objectives` on the dense
        ``G`` does not apply (None where it does): factored ``Sigma`` (from
        the factors) and compressed messages (the server's ``G`` for the
        primal, the dual variables' for the dual)."""
        state = self.state
        if self.noised():
            return np.nan, np.nan  # a private fit computes no exact objective
        if gram is None:
            return state.low_rank_joint_objectives(primal, dual, sigma, self.lam)
        if getattr(state, "bits", None) is not None:
            return state.compressed_joint_objectives(primal, dual, sigma, self.lam)
        return None
