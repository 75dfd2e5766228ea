"""``consensus_penalty="auto"``: how strongly to couple, chosen by validation.

No single coupling suits every federation: a weak one (``c = 0.1`` over a
ring) keeps every node close to its own data, which wins where the nodes
differ (clustered rules, personal targets); a strong one (``c = 1`` over a
faster-mixing random regular graph, :func:`skfed._topology.random_regular_degree`)
pulls the nodes towards one pooled function, which wins where they share
one rule; none (``c = 0``: every node alone, nothing sent) wins where the
nodes' tasks share nothing.  ``"auto"`` fits the three on every node's
training rows and keeps the one of smallest held-out error:

* every node holds out every 4th of its samples in arrival order (the
  samples of ``kernel="auto"``, :mod:`._holdout`);
* the candidates are fitted, with their consensus and their messages
  (counted; the uncoupled one sends none), on the other samples, with the
  kernel already chosen;
* every node scores them on its held-out samples: the error rate
  (classification; weighted by ``sample_weight``) or the loss the
  regressor minimizes; the reports are summed up a spanning tree of the
  weak candidate's graph (``n_candidates + 1`` float64 values up, one
  int32 back down, counted in a round of its own) and every node keeps
  the candidate of least mean error (on a tie the first: weak, strong),
  none only when its error is under ``NONE_MARGIN`` (0.95) times the best
  coupling's;
* the fit then runs on all samples with the chosen coupling (and graph).

The strong candidate's KOMP budget is ``epsilon`` times ``c_weak /
c_strong``: its steps are that much smaller, and at the weak candidate's
budget they would be pruned away.  With an explicit ``network.topology``
both candidates use it and only ``c`` and the budget differ.

The rounds of such a fit: the robust loss's scale and the ``kernel="auto"``
sum (one round over the weak graph's spanning tree, when either runs), each
candidate fit (one round: the sum of its messages), the selection's sum;
``consensus_error_curve_`` is NaN in all of them.
"""

import numpy as np
from sklearn.base import clone

from .._core._comm import CommCounter
from .._topology import _topology_csr, random_regular_degree
from ..network import CommunicationLog, resolve_network
from ._holdout import loss_values, node_mean_losses, rows_by_node
from ._robust import count_scale_messages
from ._selection import count_selection_messages, holdout_mask, tree_parents
from ._share import node_spread

__all__ = ["NONE_MARGIN", "NO_COUPLING", "STRONG_COUPLING", "WEAK_COUPLING"]

# The couplings of consensus_penalty="auto" (measured on the held-out
# families, doc/user_guide/online.rst).  The uncoupled candidate comes last,
# so that a tie keeps a coupling, and a fit that does not choose it is the
# two-candidate selection's (benchmarks/coupling38_zero_candidate.py).
WEAK_COUPLING = 0.1
STRONG_COUPLING = 1.0
NO_COUPLING = 0.0
# The uncoupled candidate is kept only when its mean held-out error is under
# this fraction of the best coupling's: every node's own function then won
# clearly (unrelated sites: 0.2-0.3 regression, 0.56-0.91 classification),
# not by the held-out rows' noise (near-chance d = 500 nodes, many nodes of
# 8 samples: 0.98-0.99, where keeping it cost up to 1.6 points);
# benchmarks/coupling38_zero_candidate.py.
NONE_MARGIN = 0.95
# Stream of the strong candidate's graph (beside the network seed's).
_GRAPH_STREAM = 1
def _collapsed(log):
    """``log`` as one round (its bytes and messages summed)."""
    return CommunicationLog(
        log.pair_bytes_sparse, log.pair_messages_sparse,
        [int(log.bytes_per_round.sum())], [int(log.messages_per_round.sum())],
        node_labels=log.node_labels, has_server=log.has_server,
        header_bytes=log.header_bytes,
    )


class _CouplingSelectionMixin:
    """``consensus_penalty="auto"``: fit a weak, a strong and no coupling on
    every node's training rows, keep the one of least held-out error."""

    def _initial_coupling(self):
        """``(consensus_penalty_, epsilon_)`` before any selection."""
        if self.consensus_penalty == "auto":
            return WEAK_COUPLING, float(self.epsilon)
        return float(self.consensus_penalty), float(self.epsilon)

    def _coupling_candidates(self, n_nodes):
        """``[(label, c, epsilon, topology, topology_params)]``; topology
        ``None``: the estimator's own (the default ring)."""
        network = resolve_network(self.network)
        eps = float(self.epsilon)
        strong_eps = eps * WEAK_COUPLING / STRONG_COUPLING
        if network.topology is None and n_nodes > 3:
            # Drawn from the estimator's random_state (not the network's,
            # which draws the faults), so a fault-free network fits as None.
            graph = _topology_csr(
                "random_regular", n_nodes, {"degree": random_regular_degree(n_nodes)},
                random_state=np.random.RandomState([self._network_seed, _GRAPH_STREAM]))
            strong_graph = (graph, None)
        else:
            strong_graph = (None, None)
        return [("weak", WEAK_COUPLING, eps, None, None),
                ("strong", STRONG_COUPLING, strong_eps, *strong_graph),
                ("none", NO_COUPLING, eps, None, None)]

    def _coupled_candidate(self, c, eps, topology, topology_params, X, codes, epochs,
                           shuffle):
        """The candidate estimator of ``_fit_coupled`` and its epoch orders,
        set up but not run (the MPI engine runs it with its own rounds)."""
        network = resolve_network(self.network)
        if topology is not None:
            network = clone(network).set_params(topology=topology,
                                                topology_params=topology_params)
        cand = clone(self).set_params(
            kernel=self.kernel_, consensus_penalty=c, epsilon=eps, network=network,
            group_column=None, random_state=int(self._node_seeds[0]), max_epochs=epochs,
        )
        cand.nodes_ = self.nodes_
        cand._dtype = self._dtype
        cand._n_outputs = self._n_outputs
        if hasattr(self, "classes_"):
            cand.classes_ = self.classes_
        for name in ("loss_threshold_", "target_offset_", "target_scale_"):
            if hasattr(self, name):  # (the encoding the targets it is given had)
                setattr(cand, name, getattr(self, name))
        cand._setup(X, codes, self._compress)
        cand.gamma_ = self.gamma_
        cand._kernel_sup_seen = self._kernel_sup_seen
        cand._s_max_seen = self._s_max_seen
        cand._target_scale = self._target_scale
        return cand, cand._make_queues(codes, epochs, shuffle)

    def _held_out_errors(self, cand, X, y_encoded, codes, sample_weight):
        """Every node's mean held-out error of a candidate (NaN: no row)."""
        n_nodes = len(self.nodes_)
        F = np.zeros((len(y_encoded), self._n_outputs))
        for node, rows in rows_by_node(codes):
            F[rows] = cand._node_function(node, X[rows])
        if self._is_regressor():
            values = loss_values(self._loss_name(), F, y_encoded, self._loss_threshold())
        elif self._n_outputs == 1:
            values = ((F[:, 0] > 0) != (y_encoded > 0)).astype(np.float64)
        else:
            values = (np.argmax(F, axis=1) != y_encoded.astype(np.intp)).astype(np.float64)
        return node_mean_losses(values, codes, n_nodes, sample_weight)


    def _coupling_setup(self, X, codes, sample_weight, y_encoded, combine=None):
        """What both engines do before the candidates run.

        Sets the step's statistics of every row (``_kernel_sup_seen``,
        ``_s_max_seen``: the candidates' step and divergence guard read all
        rows) and returns ``(candidates, held, ready)``: the
        candidates (:meth:`_coupling_candidates`), the held-out mask of
        these rows, whether the selection runs (some node holds a row out
        and the training rows hold every class; else the weak coupling is
        kept).
        ``combine`` (the MPI engine's reduction over the ranks: ``max``,
        one collective) makes these federation-wide when every process
        holds only its own nodes' rows.
        """
        n_nodes = len(self.nodes_)
        held = holdout_mask(codes, n_nodes)
        # The largest k(x, x) and sample weight; whether a row is held out;
        # whether each class has a training row.  All combined by a max.
        n_classes = 0 if self._is_regressor() else len(self.classes_)
        values = np.zeros(3 + n_classes)
        values[0] = self._kernel_sup(X, codes) if len(X) else 0.0
        values[1] = float(sample_weight.max()) if len(sample_weight) else 0.0
        values[2] = float(held.any())
        if n_classes:
            train = ~held
            index = ((y_encoded[train] > 0).astype(np.intp) if self._n_outputs == 1
                     else y_encoded[train].astype(np.intp))
            values[3:] = np.bincount(index, minlength=n_classes)[:n_classes] > 0
        if combine is not None:
            values = combine.max(values)
        self._kernel_sup_seen = float(values[0])
        self._s_max_seen = float(values[1]) if len(X) or combine is not None else 1.0
        ready = bool(values[2] > 0 and np.all(values[3:] > 0))
        return self._coupling_candidates(n_nodes), held, ready

    def _selection_counters(self, weak_adjacency, n_candidates, senders=None):
        """The spanning-tree rounds of the selection, counted.

        Returns ``(before, after)``: the round of a robust loss's scale and
        ``kernel="auto"``'s sum, which ran before the candidates over a
        spanning tree of the weak graph (``None`` when neither ran), and the
        round of the selection itself (the held-out errors summed up the
        tree, the choice sent back down).  ``senders``: count only these
        nodes' messages (an MPI rank's own).
        """
        parents = tree_parents(weak_adjacency)
        before = None
        n_kernels = self.__dict__.pop("_pending_selection", 0)
        if self.__dict__.pop("_pending_scale", False) or n_kernels:
            before = self._tree_counter()
            if self._is_regressor():
                count_scale_messages(before, parents, senders=senders)
            if n_kernels:
                count_selection_messages(before, parents, n_kernels, senders=senders)
            before.next_round()
        after = self._tree_counter()
        count_selection_messages(after, parents, n_candidates, senders=senders)
        after.next_round()
        return before, after

    def _adopt_coupling(self, candidates, errors, topology_adjacency):
        """Keep the candidate of least mean held-out error (no coupling
        only under ``NONE_MARGIN`` times the best coupling's).

        ``errors`` (n_candidates, n_nodes) are the federation's held-out
        errors (NaN: a node without held-out rows; all NaN when the
        selection did not run: the weak coupling), ``topology_adjacency``
        the strong candidate's graph (``None``: not fitted).  Sets
        ``consensus_penalty_``, ``epsilon_``, ``consensus_selection_`` and
        the graph of the fit that follows.
        """
        labels = [label for label, *_ in candidates]
        mean = np.full(len(candidates), np.nan)
        choice = 0
        reporting = ~np.isnan(errors[0])
        if reporting.any():
            mean = errors[:, reporting].mean(axis=1)
            choice = int(np.argmin(mean))  # ties: the weak coupling (first)
            if labels[choice] == "none":
                # No coupling only by a margin over the best coupling: its
                # near-ties are the held-out noise.
                coupled = [k for k, lab in enumerate(labels) if lab != "none"]
                best = coupled[int(np.argmin(mean[coupled]))]
                if not mean[choice] < NONE_MARGIN * mean[best]:
                    choice = best
        label, c, eps, topology, _ = candidates[choice]
        self.consensus_penalty_, self.epsilon_ = c, eps
        # The chosen graph, when it is not the estimator's own.
        self._coupling_adjacency = (topology_adjacency if (choice == 1 and topology is not None)
                                    else None)
        self.consensus_selection_ = {
            "candidates": labels,
            "consensus_penalty": [cand[1] for cand in candidates],
            "epsilon": [cand[2] for cand in candidates],
            "topology": ["default" if cand[3] is None else "random_regular"
                         for cand in candidates],
            "mean_validation_error": mean,
            "node_validation_error": errors,
            "choice": label,
        }

    def _select_coupling(self, X, codes, sample_weight, y_encoded, epochs, shuffle,
                         solve=True):
        """Choose ``consensus_penalty_``, ``epsilon_`` and the graph
        (:meth:`_adopt_coupling`); fills ``consensus_selection_`` and the
        selection's log (prepended to the fit's).  A federation where no
        node can hold out a sample, or whose training rows miss a class,
        keeps the weak coupling (``consensus_selection_`` says so).
        ``solve``: whether the network function of ``network_share="auto"``'s
        candidate is re-solved, as the call's own will be (``fit``: yes,
        ``partial_fit``: no)."""
        n_nodes = len(self.nodes_)
        candidates, held, ready = self._coupling_setup(X, codes, sample_weight, y_encoded)
        train = ~held
        errors = np.full((len(candidates), n_nodes), np.nan)
        if not ready:
            self._adopt_coupling(candidates, errors, None)
            return
        logs, fitted = [], []
        for k, (_, c, eps, topology, params) in enumerate(candidates):
            cand, queues = self._coupled_candidate(c, eps, topology, params, X[train],
                                                   codes[train], epochs, shuffle)
            cand._run(X[train], y_encoded[train], sample_weight[train], queues, epochs)
            errors[k] = self._held_out_errors(cand, X[held], y_encoded[held], codes[held],
                                              sample_weight[held])
            logs.append(_collapsed(cand.communication_))
            fitted.append(cand)
        before, after = self._selection_counters(fitted[0].adjacency_, len(candidates))
        if before is not None:
            logs.insert(0, CommunicationLog.from_counter(before, node_labels=self.nodes_))
        logs.append(CommunicationLog.from_counter(after, node_labels=self.nodes_))
        self._adopt_coupling(candidates, errors, fitted[1].adjacency_)
        shares = self._share_grid()
        if shares is not None:
            # network_share="auto" (._share): the chosen candidate's network
            # function (its rounds in one), every share scored on the held-out
            # rows, the sums up the weak graph's tree (a round of its own).
            chosen = fitted[[cand[0] for cand in candidates].index(
                self.consensus_selection_["choice"])]
            net = chosen._build_network_function(X[train], y_encoded[train], codes[train],
                                                 sample_weight[train], solve=solve)
            logs.append(_collapsed(net))
            spread = node_spread(y_encoded[train], codes[train], n_nodes, sample_weight[train])
            self._adopt_share(shares, self._share_errors(
                chosen, X[held], y_encoded[held], codes[held], sample_weight[held], shares,
                spread))
            counter = self._tree_counter()
            self._count_share_round(counter, tree_parents(fitted[0].adjacency_), len(shares))
            logs.append(CommunicationLog.from_counter(counter, node_labels=self.nodes_))
        log = logs[0]
        for later in logs[1:]:
            log = log.combine(later)
        self._log = log
        self.communication_ = log
        self._consensus_curve = np.full(len(logs), np.nan)
        self._order_curve = np.zeros((len(logs), n_nodes), dtype=np.intp)

    def _tree_counter(self):
        """A counter for one round over the spanning trees."""
        return CommCounter(len(self.nodes_), server=False,
                           header_bytes=resolve_network(self.network).header_bytes)
