"""What Dada and Perso-lin share: validation, graph, alternation, states, scores.

:class:`_BaseGraphPersonalized` is the driver of both estimators: it
validates, lays out the nodes, alternates asynchronous model steps with the
graph steps of :mod:`skfed.graph`, and grows the federation
(``add_nodes``).  :class:`_StateMixin` is the graph bookkeeping of both
fit states.
"""

import inspect
import math
import numbers
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._base import FederatedClassifierMixin, FederatedMixin, node_seeds
from .._base import N_JOBS_CONSTRAINT, check_network_faults
from .._compat import Interval, StrOptions
from .._join_params import same_param
from .._core._boosting_fast import Logistic, SquaredHinge
from ..graph import _GraphRunner, _csr_arrays
from ..network import check_adjacency, payload_bytes, resolve_network
from .._node_mass import agree_on_masses, mass_kind
from ._private import refit_private_final

_LOSSES = {"logistic": Logistic, "squared_hinge": SquaredHinge}
# The fault the graph-personalized fits and their joins refuse (check_network_faults).
NO_STRAGGLERS = {
    "straggler_rate": "a node's step is atomic and asynchronous (a slow "
    "node wakes up less often, which its random clock already models), "
    "so there is no partial work to cut",
}


# -------------------------------------------------------------- base class

def check_node_mass(mass, labels):
    """Raise naming the first node whose ``sample_weight`` sums to 0 (``mass``
    in node order; the simulation's fit and the MPI engine's)."""
    empty = np.flatnonzero(np.asarray(mass) <= 0)
    if empty.size:
        raise ValueError(
            f"Node {np.asarray(labels).tolist()[empty[0]]!r} has no sample with positive "
            "weight; every node needs data (sample_weight sums to 0 there)."
        )

class _BaseGraphPersonalized(FederatedClassifierMixin, FederatedMixin, BaseEstimator):
    """Shared driver: validation, one-vs-rest labels, graph, alternation."""

    # float32 X stays float32, but every square, norm and weighted sum of it
    # (relevance votes, preconditioners, Lipschitz bounds, row norms,
    # scatters) is computed in float64: the magnitude bounds are float64's
    # (skfed._magnitude.working_dtype)
    _squares_dtype = np.float64

    # what a join reads besides _join_params.JOIN_FIXED_PARAMS (Perso-lin's l2
    # term, Dada's Frank-Wolfe radius, the graph objective's and the fit's
    # schedule): add_nodes refuses them changed since fit
    _join_fixed_params = ("alpha", "beta", "lambda_graph", "delta", "max_neighbors",
                          "sparsify_graph", "kappa", "max_iter", "graph_update_every",
                          "peer_scoring")
    # what only the graph learning reads: neither a fit with a fixed graph
    # nor its joins use them (a fixed-graph join learns a newcomer's row
    # with the graph objective's and the candidates' parameters, which stay
    # free); a non-default value beside a fixed graph is refused
    _learned_graph_only = ("graph_update_every", "graph_init_iter", "graph_iter")

    _common_constraints = {
        "mu": [Interval(numbers.Real, 0, None, closed="left")],
        "graph": "no_validation",
        "mu_graph": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "lambda_graph": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, None, closed="neither")],
        "kappa": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_neighbors": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "sparsify_graph": [None, StrOptions({"connected"})],
        "graph_update_every": [None, StrOptions({"n_nodes", "geometric"}),
                               Interval(numbers.Integral, 1, None, closed="left")],
        "graph_init_iter": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "graph_iter": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "max_iter": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "communication_budget": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "network": "no_validation",
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        **FederatedMixin._federated_parameter_constraints,
    }

    # Graph steps per node of the initial graph learning (graph_init_iter=None).
    _graph_init_per_node = 50
    # Iterations per node of max_iter=None under a finite privacy budget
    # (None: the non-private default, 100).
    _private_iter_per_node = None
    # graph_update_every="geometric": growth of the gap between two updates.
    _gap_growth = 2.0

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        return tags

    # ---------------------------------------------------------------- helpers
    def _mu_graph(self):
        mu_graph = self.mu if self.mu_graph is None else self.mu_graph
        if self.graph is None and mu_graph <= 0:
            raise ValueError(
                "Learning the graph (graph=None) needs mu_graph > 0; with "
                "mu_graph=None it equals mu, so set mu > 0 or give mu_graph."
            )
        return mu_graph

    def _check_fixed_graph_params(self):
        """Refuse, by name, a non-default :attr:`_learned_graph_only` setting
        beside a fixed ``graph`` (it would have no effect)."""
        if self.graph is None:
            return
        defaults = inspect.signature(type(self).__init__).parameters
        for name in self._learned_graph_only:
            value, default = getattr(self, name), defaults[name].default
            if not same_param(value, default):
                raise ValueError(
                    f"{name}={value!r} has no effect with a fixed graph (graph is "
                    f"given): it is used only when the graph is learned (graph=None). "
                    f"Leave it at its default ({default!r}) or let the graph be learned."
                )

    def _fixed_graph(self, simulation):
        K = simulation.n_nodes
        graph = self.graph
        if hasattr(graph, "nodes") and hasattr(graph, "edges"):
            labels = self.nodes_.tolist()
            if set(graph.nodes()) == set(labels) and set(labels) != set(range(K)):
                import networkx as nx

                graph = nx.to_scipy_sparse_array(graph, nodelist=labels, weight="weight")
        W = check_adjacency(graph, K, name="graph", allow_weights=True)
        if simulation.is_complete:
            return W
        outside = sparse.csr_matrix(W - W.multiply(simulation.adjacency))
        outside.eliminate_zeros()
        if outside.nnz:
            raise ValueError(
                "graph has edges between nodes that the network topology does not "
                "connect; every edge of the collaboration graph must be a link of "
                "network.topology."
            )
        return W

    def _node_rows(self, layout, sw):
        mass = np.add.reduceat(sw, layout.offsets[:-1])
        check_node_mass(mass, self.nodes_)
        return mass

    def _prepare(self, X, y, groups, sample_weight):
        X, y, sw, layout = self._validate_fit_data(X, y, groups, sample_weight)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in the "
                f"data, but the data contains only one class: {self.classes_[:1].tolist()[0]!r}."
            )
        dtype = X.dtype
        if sw is None:
            sw = np.ones(X.shape[0], dtype=dtype)
        Xs = layout.sort(X)
        ys = y_enc.ravel()[layout.order]
        sws = np.ascontiguousarray(sw[layout.order], dtype=dtype)
        mass = self._node_rows(layout, sws.astype(np.float64))
        if n_classes == 2:
            Y = np.where(ys == 1, 1.0, -1.0)[None, :]
        else:
            Y = np.where(ys[None, :] == np.arange(n_classes)[:, None], 1.0, -1.0)
        Y = np.ascontiguousarray(Y, dtype=dtype)
        return Xs, Y, sws, layout, mass

    def _start(self, rng):
        check_network_faults(self, self.network, NO_STRAGGLERS)
        network = resolve_network(self.network)
        K = len(self.nodes_)
        simulation = network.start(K, server=False, random_state=rng, node_labels=self.nodes_)
        seeds = node_seeds(rng, K + 2)
        return simulation, seeds

    def _schedule(self, n_nodes):
        """``(max_iter, n_local)``: global iterations and purely local steps."""
        per_node = 100
        privacy = getattr(self, "privacy", None)
        if self._private_iter_per_node and privacy is not None and math.isfinite(privacy.epsilon):
            per_node = self._private_iter_per_node
        max_iter = per_node * n_nodes if self.max_iter is None else self.max_iter
        learned = self.graph is None and n_nodes > 1
        return max_iter, (max(1, math.ceil(max_iter / n_nodes)) if learned else 0)

    def _peer_score_scale(self, confidence):
        """Factor of a node's peer score ``e_kl`` given its confidence ``c_k``
        (Perso-lin: ``c_k`` itself; Dada overrides it)."""
        return confidence

    def _update_gap(self, n_nodes, n_done):
        """Model iterations before the next graph update, ``n_done`` updates done."""
        every = self.graph_update_every
        if every == "n_nodes":
            return n_nodes
        if every == "geometric":
            return max(1, int(round(n_nodes * self._gap_growth ** n_done)))
        return every

    def _offline(self, simulation, n_steps):
        drop = simulation.network.drop_rate
        if drop == 0 or n_steps == 0:
            return np.zeros(0, dtype=np.uint8)
        return (simulation.rng.uniform(size=n_steps) < drop).astype(np.uint8)

    def _peer_scores(self, state, runner, simulation, initial):
        """``(score_data, bytes)`` of a graph phase; ``(None, 0)`` without peer scoring.

        With ``peer_scoring`` (not under a finite ``privacy`` budget: the
        scores depend on the data, like the losses), every node scores the
        models it receives on its own samples (computed when a graph step
        needs them).  Before a re-learning (``initial=False``) the nodes
        first refresh the scores of their current graph neighbours, whose
        models they hold: one float64 message per neighbour, whose bytes
        are returned.  A graph step's answer carries the peer's score
        (counted by the graph steps).
        """
        private = state.dp is not None and math.isfinite(state.dp.epsilon)
        if not getattr(self, "peer_scoring", False) or private:
            return None, 0
        spent = 0 if initial else state.score_exchange(runner, simulation.counter)
        return state.peer_scores(runner), spent

    def _refit_private_final(self, state, rng):
        """Each node's final (kept, never sent) models under a finite budget
        (``_private.refit_private_final``)."""
        return refit_private_final(self, state, rng)

    def _shared_coef(self):
        """Models a node unseen in fit averages: the fit's nodes' (a join
        changes nothing but its newcomers), their released ones under a
        private fit."""
        released = hasattr(self, "released_coef_")
        n_fit = (getattr(self, "_join_info", None) or {}).get("n_fit", len(self.nodes_))
        if n_fit == len(self.nodes_):
            return self._full_coef(released=True) if released else None
        return self._full_coef(released=released)[:n_fit]

    # ------------------------------------------------------------------- fit
    def _fit_alternating(self, state, simulation, seeds, n_jobs_nodes, graph_runner=_GraphRunner):
        """Alternate asynchronous model steps and graph steps; set attributes.

        ``graph_runner`` builds the graph learner (``skfed.engines.mpi``
        passes one whose steps run on MPI ranks).
        """
        self._check_fixed_graph_params()
        K = len(self.nodes_)
        max_iter, n_local = self._schedule(K)
        budget = -1 if self.communication_budget is None else self.communication_budget
        clock = seeds[K : K + 1].copy()
        graph_clock = seeds[K + 1 : K + 2].copy()
        node_state = seeds[:K].copy()
        state.node_state = node_state
        # Every confidence c_k = m_k / max_l m_l: the masses' exchange (skfed._node_mass).
        state.setup_bytes += agree_on_masses(simulation, mass_kind(self), state.node_mass,
                                             nodes=getattr(state, "own_nodes", None))
        spent = state.setup_bytes
        learned = self.graph is None and K > 1
        curves = []
        runner = None
        if learned:
            mu_graph = self._mu_graph()
            runner = graph_runner(
                simulation, mu=self.mu, mu_graph=mu_graph, lambda_graph=self.lambda_graph,
                delta=self.delta, kappa=self.kappa, clock=graph_clock,
                node_state=node_state, max_neighbors=self.max_neighbors,
            )
            # The graph is first learned from purely local models.
            state.local_models(n_local, n_jobs_nodes)
            init_iter = (self._graph_init_per_node * K if self.graph_init_iter is None
                         else self.graph_init_iter)
            data, _ = self._peer_scores(state, runner, simulation, initial=True)
            # Models that never change (Dada's kernel graph models) are sent
            # once per pair: the graph steps record the pairs.
            sent = getattr(state, "sent_models", None)
            cached = {} if sent is None else {"sent_models": sent, "dense_scores": True}
            _, spent, _, _ = runner.run(
                state.graph_models(), state.graph_losses(), init_iter,
                model_dtype=state.dtype, budget=budget, spent=spent, score_data=data,
                **cached,
            )
            if self.sparsify_graph == "connected":
                runner.sparsify_to_connected()
            # The models and losses the graph was learned from (kept for
            # add_nodes when the graph is not re-learned later).
            # (the boosting models: a kernel graph signal's models are not
            # what a newcomer's row is learned from, see add_nodes)
            graph_models = state.public.reshape(K, -1).copy()
            graph_losses = np.array(state.graph_losses(), dtype=np.float64)
            # The joint phase continues from the local models (alternating
            # minimization of the joint objective); the step counter starts at 0.
            W = runner.graph_csr()
        elif self.graph is None:
            W = sparse.csr_matrix((K, K))
        else:
            W = self._fixed_graph(simulation)
        self.n_graph_updates_ = 0
        state.set_graph(W)
        n_iter = 0
        t = 0
        graph_iter = K if self.graph_iter is None else self.graph_iter
        stopped = budget >= 0 and spent >= budget
        while n_iter < max_iter and not stopped:
            block = max_iter - n_iter
            updating = learned and self.graph_update_every is not None
            if updating:
                block = min(block, self._update_gap(K, self.n_graph_updates_))
            offline = self._offline(simulation, block)
            n_done, n_updates, spent, curve = state.async_steps(
                t, block, clock, node_state, offline, simulation, budget, spent
            )
            curves.append(curve)
            n_iter += n_done
            t += n_updates
            stopped = n_done < block or (budget >= 0 and spent >= budget)
            if updating and n_iter < max_iter and not stopped and graph_iter > 0:
                data, exchanged = self._peer_scores(state, runner, simulation,
                                                    initial=False)
                spent += exchanged
                _, spent, _, _ = runner.run(
                    state.graph_models(), state.graph_losses(), graph_iter,
                    model_dtype=state.dtype, budget=budget, spent=spent, score_data=data,
                    **cached,
                )
                self.n_graph_updates_ += 1
                if self.sparsify_graph == "connected":
                    # The objective is recomputed: the dropped weights are
                    # not in the graph steps' running change.
                    runner.sparsify_to_connected()
                    state.set_graph(runner.graph_csr())
                elif sent is not None:
                    # The graph steps compared other models (Dada's kernel
                    # graph models): their change of eq. 1 is not eq. 1's.
                    state.set_graph(runner.graph_csr())
                else:
                    state.set_graph(runner.graph_csr(), runner.linear_change)
                stopped = budget >= 0 and spent >= budget
        self.n_iter_ = int(n_iter)
        self.n_updates_ = int(t)
        self.objective_curve_ = (
            np.concatenate(curves) if curves else np.zeros(0, dtype=np.float64)
        )
        self.objective_ = state.objective()
        graph = state.graph.copy()
        self.collaboration_graph_ = graph
        self.confidence_ = state.confidence.copy()
        # A refit starts without the joins of an earlier fit (their log and
        # the seed of the next join's draws).
        for name in ("join_communication_", "_join_seed"):
            self.__dict__.pop(name, None)
        self._set_communication(simulation)
        state.simulation = simulation  # the private class vote's round (_private)
        # What add_nodes needs later (skfed._graph_join): every node's
        # confidence-weighted loss as its graph-step answers carry it (zeros
        # under a finite privacy budget), the models the graph was learned
        # from, the largest node mass (the newcomers' confidences), the rogue
        # draw and the fit's node count (the schedule).  Public or already
        # sent; no raw row is kept.
        # With a graph learned once (graph_update_every=None) a newcomer
        # learns its row as the fit did, from the models and losses the
        # graph was learned from (the local ones); otherwise from the final
        # ones.
        once = learned and self.graph_update_every is None
        self._join_info = {
            "losses": (graph_losses if once
                       else np.array(state.graph_losses(), dtype=np.float64)),
            "graph_models": graph_models.reshape(state.public.shape) if once else None,
            "max_mass": float(state.max_mass),
            "rogue": np.asarray(simulation.rogue, dtype=bool).copy(),
            "n_fit": int(K),
        }
        return state


    # ------------------------------------------------------------- joining
    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Give nodes that join after the fit their place in the graph and a model.

        The fitted nodes' models and weights are held fixed; each new node
        (every id of ``groups``, none of them in ``nodes_``) runs, on its
        own samples only:

        1. the fit's purely local steps (``ceil(max_iter / n_fitted)``);
        2. a query to ``min(n_nodes, 20 kappa)`` nodes drawn by the
           peer-sampling service for their model, loss and degree (what a
           graph step receives: the models the graph was learned from, the
           local ones when it was learned once; dropped nodes do not
           answer, rogue ones answer corrupted values);
        3. its row of the graph objective with every other weight fixed,
           solved exactly, then the fit's ``max_neighbors`` cap and
           ``sparsify_graph`` threshold (its neighbours then send their
           final models if they answered with local ones);
        4. the fit's mean number of wake-ups of a node
           (``ceil(max_iter / n_fitted)``) of model steps (Frank-Wolfe for
           Dada; for Perso-lin the fit's ``local_update``, by default block
           solves) with its neighbours' models
           fixed, re-solving its row every ``max(50, ceil(graph_update_every
           / n_fitted))`` of its steps when the fit re-learns its graph
           (every 50 with the default schedules); it then sends each
           neighbour its weight.

        Before these steps, Dada's newcomers add their ballots to the fit's
        feature vote (``feature_selection="vote"``): a feature they carry
        over the vote's threshold gets stumps, with weight zero in every
        fitted model (``coef_`` grows by those columns; the fitted nodes'
        predictions do not change).

        Nodes joined earlier answer like fitted ones; a node unseen in fit
        and in every join still predicts with the average of the fit's
        nodes' models (a join changes nothing but its newcomers).  The
        peer-sampling service draws from all nodes already in (fitted or
        joined earlier) whatever ``network.topology``: the topology places the fit's nodes only, a
        newcomer has no place in it, and the fitted nodes' edges among
        themselves stay inside it.  Each newcomer is rogue with probability
        ``network.rogue_fraction`` (public randomness): it then answers the
        other newcomers, and later joins, with corrupted values.  With a fixed
        ``graph`` a new node still learns its row by the graph objective
        (``mu_graph``, ``lambda_graph``, ``delta``): the given graph does not
        say where newcomers belong.  Under a finite
        ``privacy`` budget no loss is sent, every step of a new node is
        private with the fit's mechanism (as many as a fitted node could
        afford) and its spend is appended to ``privacy_spent_``.  Stragglers
        are refused as in ``fit``.  A Perso-lin fit whose feature-mean gate
        opened (``newcomer_rule_ == "features"``, see ``join_neighbours``)
        gives each newcomer the mean model of its 5 nearest-mean fitted
        nodes instead of these steps; one whose shared-model gate opened
        (``join_neighbours="shared"``) gives it that model; one whose
        feature-mean gate closed (``newcomer_rule_ == "posterior"``) gives it
        the block solved from its candidates' posterior mean model
        (:mod:`skfed.boosting._perso_lin_posterior`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples of the new nodes, with the features of ``fit``.
        y : array-like of shape (n_samples,)
            Their classes (classes of ``classes_`` only).
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``); each
            must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights inside each new node's loss; every new node
            needs a positive total (its mass over the largest node mass of
            the fit is its confidence, at most 1: a node heavier than every
            fitted one gets a refit's 1).

        Returns
        -------
        self
            With the new nodes appended to ``nodes_``, ``coef_``,
            ``intercept_``, ``confidence_`` and ``collaboration_graph_``
            (rows of the fitted nodes unchanged but for their edges to the
            new nodes), and what the join sent in ``join_communication_``
            (``n_bytes_sent_`` and ``n_messages_`` include it).

        Examples
        --------
        >>> import numpy as np
        >>> from skfed.boosting import PersonalizedLinearClassifier
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
        >>> groups = np.repeat([0, 1, 2, 3, 4], 20)
        >>> clf = PersonalizedLinearClassifier(random_state=0)
        >>> clf = clf.fit(X[:80], y[:80], groups=groups[:80])
        >>> before = clf.coef_.copy()
        >>> clf = clf.add_nodes(X[80:90], y[80:90], groups=groups[80:90])
        >>> clf.nodes_.tolist(), bool(np.array_equal(clf.coef_[:4], before))
        ([0, 1, 2, 3, 4], True)
        >>> bool(clf.score(X[90:], y[90:], groups=groups[90:]) > 0.8)
        True
        """
        from .._graph_join import graph_join_nodes
        from .._kept_local import extend_kept_local

        check_is_fitted(self)
        check_network_faults(self, self.network, NO_STRAGGLERS)  # (every join rule, as in fit)
        n_before = len(self.nodes_)
        rule = getattr(self, "newcomer_rule_", "graph")
        if rule == "features":  # (Perso-lin's gate)
            from .._mean_neighbours import mean_neighbour_join
            mean_neighbour_join(self, X, y, groups, sample_weight)
        elif rule == "shared":  # (Perso-lin's join_neighbours="shared")
            from ._perso_lin_shared import shared_join
            shared_join(self, X, y, groups, sample_weight)
        elif rule == "posterior":  # (Perso-lin's gate closed, see join_neighbours)
            from ._perso_lin_posterior import posterior_join
            posterior_join(self, X, y, groups, sample_weight)
        else:
            graph_join_nodes(self, X, y, groups, sample_weight)
        extend_kept_local(self, len(self.nodes_) - n_before)
        return self


# ------------------------------------------------------------- Dada state
class _StateMixin:
    """Graph bookkeeping shared by the Dada and Perso-lin states."""

    current = None  # running value of eq. 1, kept exact by the kernels
    dp = None  # _WakeupBudget of a private fit
    source = None  # NoiseSource of a private fit: all of its noise
    stream = None  # its stream of the asynchronous phase
    node_state = None  # per-node public random states (set by the driver)
    n_iter_done = 0
    max_mass = None  # the largest node mass (the confidences' scale), set by the fit

    def graph_models(self):
        return self.public.reshape(self.K, -1)

    def graph_losses(self):
        if self.dp is not None and math.isfinite(self.dp.epsilon):
            # Private fits do not send loss values: the graph is learned
            # from the models alone (post-processing of private messages).
            return np.zeros(self.K)
        return self.confidence * self.losses.sum(axis=1)

    def set_graph(self, W, linear_change=None):
        """Use graph W; ``linear_change`` (from the graph steps) updates eq. 1 exactly."""
        W = sparse.csr_matrix(W, dtype=np.float64)
        W.eliminate_zeros()
        W.sort_indices()
        old_degree = getattr(self, "degree", None)
        self.graph = W
        self.indptr, self.indices, self.weights = _csr_arrays(W)
        self.degree = np.asarray(W.sum(axis=1)).ravel()
        if linear_change is None or self.current is None or self.rogue.any():
            self.current = None
        else:
            # A node of degree 0 weighs its loss by 1 instead of 0.
            isolated = (self.degree == 0).astype(float) - (old_degree == 0).astype(float)
            self.current += linear_change + float(
                (isolated * self.confidence) @ self.losses.sum(axis=1)
            )

    def running_objective(self):
        if self.current is None:
            self.current = self.objective()
        return self.current

    def peer_scores(self, runner):
        """What the graph steps of a phase need to score the models they receive."""
        return self.score_data()

    def score_exchange(self, runner, counter, nodes=None):
        """Count every node's score of each graph neighbour (one float64 each).

        Only ``nodes``' messages are counted (all by default); returns the
        bytes of all nodes' messages.
        """
        payload = payload_bytes(n_float64=1)
        rows, cols, _, _ = runner.links()
        if nodes is not None:
            mine = np.isin(rows, np.asarray(nodes))
            counted_rows, counted_cols = rows[mine], cols[mine]
        else:
            counted_rows, counted_cols = rows, cols
        counter.send_pairs(np.ascontiguousarray(counted_rows, dtype=np.intp),
                           np.ascontiguousarray(counted_cols, dtype=np.intp),
                           np.full(counted_rows.size, payload, dtype=np.int64))
        return int(rows.size) * (payload + counter.header_bytes)


def _graph_objective_value(models, losses, graph, degree, confidence, mu):
    """``sum_k d'_k c_k L_k + (mu / 2) sum_{k<l} w_kl ||m_k - m_l||^2`` (d' = d or 1 if d = 0).

    The smoothness term is ``sum_k d_k ||m_k||^2 - sum_{k,l} w_kl m_k.m_l``.
    """
    K = models.shape[0]
    weight = np.where(degree > 0, degree, 1.0) * confidence
    value = float(weight @ losses.sum(axis=1))
    if graph.nnz and mu:
        A = models.reshape(K, -1).astype(np.float64)
        value += 0.5 * mu * float(
            degree @ np.einsum("ij,ij->i", A, A) - np.sum(A * (graph @ A))
        )
    return value


def _node_chunks(n_nodes, n_jobs):
    if n_jobs is None or n_jobs == 1 or n_nodes == 1:
        return [(0, n_nodes)]
    import os

    n = (os.cpu_count() or 1) if n_jobs < 0 else n_jobs
    n = max(1, min(int(n), n_nodes))
    bounds = np.linspace(0, n_nodes, n + 1).astype(int)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _run_chunks(function, chunks):
    if len(chunks) == 1:
        function(chunks[0])
        return
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        list(pool.map(function, chunks))


_REFIT_ATTRIBUTES = ("released_coef_", "released_intercept_", "refit_trust_", "refit_radius_")

# Marker in the Dada and Perso-lin class docstrings, replaced by
# _released_attributes_doc (one text for both estimators).
_RELEASED_DOC_MARKER = "    <released and refit attributes>\n"


def _released_attributes_doc(trust, alone):
    """The numpydoc entries of ``released_coef_``, ``released_intercept_`` and
    ``refit_trust_`` (``trust``: the symbol of the refit's trust weight;
    ``alone``: what a trust of 0 means)."""
    return (
        "    released_coef_, released_intercept_ : ndarray\n"
        "        Only with a finite ``privacy`` budget: the models the nodes released\n"
        "        (shapes of ``coef_`` and ``intercept_``), which the guarantee\n"
        "        covers; ``coef_`` and ``intercept_`` are then each node's own\n"
        "        refit, never sent (see Notes).\n"
        "    refit_trust_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)\n"
        f"        Only with a finite ``privacy`` budget: the weight ``{trust}`` each\n"
        "        node's refit put on its neighbours' released models (0: the node\n"
        f"        alone{alone}).\n"
        "    kept_local_models_ : ndarray of shape (n_nodes,), dtype object\n"
        "        Only with a finite ``privacy`` budget: the scikit-learn model a\n"
        "        node trained alone on its raw features and predicts with instead of\n"
        "        its refit, because it validated better by more than one standard\n"
        "        error on the refit's folds: ``LinearSVC()``, ``LogisticRegression()``\n"
        "        or the rbf SVM in the primal, a ``Pipeline`` of 300 public random\n"
        "        Fourier features (``RBFSampler``, ``gamma = 1 / n_features``,\n"
        "        directions from ``random_state``) and ``LinearSVC(C=10)``; None for\n"
        "        a node that predicts with its refit (``coef_``).  None stores a\n"
        "        training row (no kernel model with support vectors).  Never sent\n"
        "        (no budget), not private for the node's own samples (fitted on\n"
        "        them), like Local.\n"
    )


def _fill_released_doc(doc, trust, alone=""):
    """``doc`` with its released-attributes marker replaced (it must hold one)."""
    if _RELEASED_DOC_MARKER not in doc:
        raise AssertionError("docstring lacks the released-attributes marker")
    return doc.replace(_RELEASED_DOC_MARKER, _released_attributes_doc(trust, alone))


def _squeeze_problems(values):
    """(n_nodes, n_problems) -> (n_nodes,) for a binary problem."""
    return np.ascontiguousarray(values[:, 0] if values.shape[1] == 1 else values)


def _split_models(models, n_cols, fit_intercept):
    """(n_nodes, n_problems, n_cols [+ 1]) models -> ``coef_``, ``intercept_`` shapes."""
    coef = models[:, :, :n_cols]
    intercept = (models[:, :, n_cols] if fit_intercept
                 else np.zeros(models.shape[:2], models.dtype))
    if models.shape[1] == 1:
        return np.ascontiguousarray(coef[:, 0, :]), np.ascontiguousarray(intercept[:, 0])
    return np.ascontiguousarray(coef), np.ascontiguousarray(intercept)


def _personalized_scores(Z, codes, coef, shared=None):
    """``scores[i] = Z[i] @ coef[codes[i]].T``; for code -1 the mean of ``shared``
    (default ``coef``): a private fit passes the released models, since a new
    node only ever receives those."""
    n_problems = coef.shape[1]
    scores = np.zeros((Z.shape[0], n_problems))
    mean = (coef if shared is None else shared).mean(axis=0)
    for code in np.unique(codes):
        rows = np.flatnonzero(codes == code)
        model = coef[code] if code >= 0 else mean
        scores[rows] = Z[rows] @ np.asarray(model, dtype=np.float64).T
    return scores[:, 0] if n_problems == 1 else scores
