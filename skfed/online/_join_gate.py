"""The online classifier's feature-mean gate and join (issue 32).

A newcomer with a few samples, mostly of one class, cannot rank the fitted
nodes' functions by its labels; on Landmine the nodes' feature means locate
the terrain (:mod:`skfed._mean_neighbours`).  Perso-lin's and MOCHA's gate
compares, on every node's rows, its mean-nearest peers' mean model with the
mean model of all other nodes; for a kernel learner that mean is every
dictionary (37 % of a Landmine fit's bytes, ``benchmarks/
new_nodes_online_mean_gate.py``).  This gate compares models the fit has
already sent: every node holds the copies of its graph neighbours'
functions that it evaluated in its consensus term.

**The gate** (end of ``fit`` of :class:`DecentralizedKernelSGDClassifier`).

1. Every node sends its sample-weighted feature mean (``d`` float64) to
   each graph neighbour (one message per edge direction).
2. A node with at least two neighbours takes the one whose mean is nearest
   its own and the one whose mean is farthest (Euclidean; ties by index)
   and scores their functions, as it holds them, on its own rows: its gain
   ``g_i`` is the sample-weighted accuracy of the nearest minus that of the
   farthest.  Nothing is sent for it: the fit's copies.
3. The gains go to fitted node 0 (one float64 each) and ``t =
   gate_statistic(g)`` comes back (one float64 to every other node).
4. The gate opens when ``t > GATE_T`` (3, the shared threshold).  Open,
   every node sends its mean and mass (``d + 1`` float64) to node 0, the
   hub of the join: ``newcomer_rule_ = "features"``; closed,
   ``"graph"``.

Bytes (header ``h``): ``nnz(adjacency) (h + 8 d) + 2 (n - 1) (h + 8)``, plus
``(n - 1) (h + 8 (d + 1))`` when open (:func:`gate_bytes`,
``newcomer_gate_["n_bytes"]``).  The gate is decided on the fit's rows and
functions, but its messages are sent and counted with the first join after
the fit (in ``join_communication_``; ``newcomer_gate_["sent"]``): the fit's
log, bytes and MPI parity are those of a fit without it, and a federation
that never grows never pays for it.  (A ``partial_fit`` between the fit
and the first join changes the functions, not the gate.)  Under drops a node
sends in a later round (:func:`skfed._mean_neighbours._deliver`); rogue nodes
send corrupted means and gains.  No gate (``"graph"``) with at most
``N_NEAREST + 1`` nodes, without copies to score (``exchange_every=None``,
the query exchange, or no consensus: ``consensus_penalty_ == 0``), on a
``partial_fit`` stream, and in the MPI engine's fit (it records
``"graph"``).  The online learner refuses ``privacy=``, so no budget is
spent.

The graph neighbours of a random ``k``-regular graph (the strong coupling's)
are a random sample of the other nodes, so the nearest of them against the
farthest asks whether feature-mean proximity picks better functions, as the
nearest five against all others did; on the default ring, built in label
order, it sees only the contrasts that order gives.  Measured
(``benchmarks/new_nodes_online_gate.py``): Landmine ``t`` 6.6 / 5.1 / 7.3
/ 1.0 / 5.1 / 5.3 on seeds 0-5 (seed 3's fit chose the weak coupling, whose
graph is the default ring, in label order: every node's neighbours are of
its terrain but at the two boundaries); held-out fits (rotated moons,
related-*, HAR) at most 2.2; null federations (one input distribution,
opposite label rules) open on 0 % of 200 fits of 18 nodes and of 100 fits
of 40 nodes.

**The join** (``newcomer_rule_ == "features"``).  The newcomer sends its
sample-weighted feature mean (``d`` float64) to the hub, which answers with
its ``N_NEAREST`` nearest fitted nodes and their masses (``m`` int32 and
``m`` float64; :func:`skfed._mean_neighbours.hub_round`); it asks each
(an empty request, again in every round it is dropped) for its function
(its dictionary, as the graph join's step 2 prices it) and starts from
their mass-weighted mean in the width of the nearest (a given ``gamma``:
its own), compressed by KOMP to ``epsilon`` and ``max_dictionary_size``
(``_join_start``); it links to those nodes and makes no passes
(``join_passes_`` 0, ``join_start_ = "features"``).  The fitted nodes do not
change.
"""

import numpy as np
from sklearn.base import clone

from .._mean_neighbours import (GATE_T, N_NEAREST, _deliver, gate_statistic, hub_round,
                                nearest)
from .._pending import ask_until_answered
from ..network import float_bytes, payload_bytes, resolve_network
from ._join_steps import _rows_bytes

# Salts of the gate's and the feature join's network draws.
_GATE_SALT = 7927
_JOIN_SALT = 7933


def gate_bytes(adjacency, n_features, open_, header=16):
    """Closed form of the gate's bytes (see the module)."""
    n = adjacency.shape[0]
    total = adjacency.nnz * (header + 8 * n_features) + 2 * (n - 1) * (header + 8)
    if open_:
        total += (n - 1) * (header + 8 * (n_features + 1))
    return int(total)


def graph_gains(values_near, values_far, y, sw):
    """A node's gain: weighted accuracy of the nearest neighbour's values
    minus the farthest's (``(n_rows, n_out)`` each; ``y`` encoded: +-1 for
    one output, the class index for several)."""
    def accuracy(F):
        if F.shape[1] == 1:
            right = np.where(F[:, 0] > 0, 1.0, -1.0) == y
        else:
            right = np.argmax(F, axis=1) == y
        return float(np.sum(sw * right) / np.sum(sw))

    return accuracy(values_near) - accuracy(values_far)


def _farthest(means, target):
    """Index of the row of ``means`` farthest from ``target`` (ties: the
    smallest index)."""
    dist = ((np.asarray(means) - np.asarray(target)) ** 2).sum(axis=1)
    return int(np.argsort(-dist, kind="stable")[0])


class _NeighbourGateMixin:
    """The gate after a fit, and the join it opens (see the module)."""

    def _network_round(self, X=None, y=None, codes=None, sample_weight=None, lost=None,
                       solve=False, node_sums=None, linear_data=None):
        super()._network_round(X, y, codes, sample_weight, lost=lost, solve=solve,
                               node_sums=node_sums, linear_data=linear_data)
        if solve:  # a fit (partial_fit does not solve the network function)
            self._newcomer_gate(X, y, codes, sample_weight)
        elif not hasattr(self, "newcomer_rule_"):
            self.newcomer_rule_, self.newcomer_gate_ = "graph", None

    def _gate_copies(self):
        """Whether every node holds its neighbours' functions after the fit."""
        return self.exchange_every is not None and float(self.consensus_penalty_) > 0

    def _newcomer_gate(self, X, y_encoded, codes, sample_weight):
        """The gate's outcome over the fit's rows and functions (see the
        module); its messages are sent, and counted, with the first join
        (``_gate_join``)."""
        self.newcomer_rule_, self.newcomer_gate_ = "graph", None
        for name in ("_gate_table", "_gate_pending"):
            self.__dict__.pop(name, None)
        n = len(self.nodes_)
        if X is None or n <= N_NEAREST + 1 or not self._gate_copies():
            return
        sw = (np.ones(len(codes)) if sample_weight is None
              else np.asarray(sample_weight, dtype=np.float64))
        Xd = np.asarray(X, dtype=np.float64)
        masses = np.bincount(codes, weights=sw, minlength=n)
        sums = np.zeros((n, Xd.shape[1]))
        np.add.at(sums, codes, Xd * sw[:, None])
        means = sums / masses[:, None]
        # What rogue nodes send instead (drawn from a stream of the gate's own).
        sim = clone(resolve_network(self.network)).set_params(
            topology=None, topology_params=None,
            random_state=np.random.RandomState([self._network_seed, self._n_calls, _GATE_SALT]),
        ).start(n, server=False)
        sim.rogue[:] = self._rogue
        rogue = bool(sim.rogue.any())
        A = self.adjacency_.tocsr()
        # Step 1: means along every edge (a rogue node sends a corrupted one).
        sent = sim.corrupt_value_rows(means.copy(), np.arange(n)) if rogue else means
        # Step 2: nearest and farthest neighbour, their held copies scored.
        gains, scored = np.zeros(n), np.zeros(n, dtype=bool)
        for i in range(n):
            nb = A.indices[A.indptr[i]:A.indptr[i + 1]].astype(np.intp)
            if len(nb) < 2:
                continue
            near = int(nb[nearest(sent[nb], means[i], 1)[0]])
            far = int(nb[_farthest(sent[nb], means[i])])
            rows = np.flatnonzero(codes == i)
            Xi = np.ascontiguousarray(X[rows])
            gains[i] = graph_gains(self._held_values(near, Xi), self._held_values(far, Xi),
                                   y_encoded[rows], sw[rows])
            scored[i] = True
        # Step 3: gains to node 0 (a rogue node's corrupted), t back.
        seen = sim.corrupt_value_rows(gains.copy(), np.arange(n)) if rogue else gains
        t = gate_statistic(seen[scored])
        is_open = bool(t > GATE_T)
        if is_open:
            # Step 4: the join's table at the hub.
            table = np.column_stack([means, masses])
            if rogue:
                table = sim.corrupt_value_rows(table, np.arange(n))
            self._gate_table = (table[:, :-1], np.abs(table[:, -1]))
            self.newcomer_rule_ = "features"
        self._gate_pending = (A.indices.astype(np.intp),
                              np.repeat(np.arange(n, dtype=np.intp), np.diff(A.indptr)),
                              np.flatnonzero(scored[1:]) + 1, means.shape[1], is_open)
        self.newcomer_gate_ = {
            "t": float(t), "mean_gain": float(np.mean(seen[scored])),
            "gains": np.where(scored, seen, np.nan), "open": is_open, "m": N_NEAREST,
            "n_bytes": gate_bytes(A, means.shape[1], is_open,
                                  resolve_network(self.network).header_bytes),
            "sent": False}

    def _gate_join(self, X, y, sample_weight, codes, new_labels):
        """At the first join after a fit: the gate's messages (counted in
        ``join_communication_``, through the network's drops); then the
        feature join when the gate is open (returns its codes), else None
        (the graph join follows)."""
        pending = self.__dict__.pop("_gate_pending", None)
        if pending is not None:
            senders, receivers, up, d, is_open = pending
            n = len(self.nodes_)
            sim = clone(resolve_network(self.network)).set_params(
                topology=None, topology_params=None,
                random_state=np.random.RandomState([self._network_seed, self._n_calls,
                                                    _GATE_SALT + 1]),
            ).start(n, server=False)
            rest = np.arange(1, n, dtype=np.intp)
            hub = np.zeros(n - 1, np.intp)
            one = payload_bytes(n_float64=1)
            _deliver(sim, senders, receivers, np.full(len(senders), payload_bytes(n_float64=d)))
            _deliver(sim, up, np.zeros(len(up), np.intp), np.full(len(up), one))
            _deliver(sim, hub, rest, np.full(n - 1, one))
            if is_open:
                _deliver(sim, rest, hub, np.full(n - 1, payload_bytes(n_float64=d + 1)))
            self._record_join(sim.log(node_labels=self.nodes_))
            self.newcomer_gate_["sent"] = True
        if self.newcomer_rule_ != "features":
            return None
        return self._join_features(X, y, sample_weight, codes, new_labels)

    def _held_values(self, node, X):
        """Values at ``X`` of ``node``'s function as its neighbours hold it
        (its last published copy): ``(n_rows, n_outputs)``."""
        D, W = self._join_model(node, published=True)
        if not len(D):
            return np.zeros((X.shape[0], self._n_outputs))
        if float_bytes(self._dtype) == 4:
            W = W.astype(np.float32).astype(np.float64)
        return self._join_kernel(self.gamma_[node])(X, D) @ W

    def _join_features(self, X, y, sample_weight, codes, new_labels):
        """Steps 1-2 of :meth:`add_nodes` under an open gate (see the
        module); same contract as ``_join_new``."""
        from .._base import _check_label_kinds

        _check_label_kinds(self.nodes_, new_labels)
        means, masses = self._gate_table
        n_old, n_new = len(self.nodes_), len(new_labels)
        new_rows = np.flatnonzero(codes < 0)
        new_codes = -1 - codes[new_rows]
        X_new = X[new_rows]
        w_new = (np.ones(len(new_rows)) if sample_weight is None
                 else np.asarray(sample_weight, dtype=np.float64)[new_rows])
        gamma = self._join_gamma(new_labels, X_new, new_codes)
        _, rogue_new, sim = self._join_draws(n_new, _JOIN_SALT)
        own_means = np.array([np.average(np.asarray(X_new[new_codes == k], np.float64),
                                         axis=0, weights=w_new[new_codes == k])
                              for k in range(n_new)])
        newcomers = n_old + np.arange(n_new, dtype=np.intp)
        # Round(s) 1: its mean to the hub (fitted node 0), which answers with
        # its N_NEAREST nearest fitted nodes and their masses.
        chosen = [np.asarray(c, dtype=np.intp) for c in hub_round(sim, means, own_means,
                                                                  newcomers)]
        # Round(s) 2: the chosen nodes' functions (asked again until each answers).
        value_bytes = float_bytes(self._dtype)
        n_features, n_out = X.shape[1], self._n_outputs
        received = [{} for _ in range(n_new)]

        def answer(k, got):
            for j in got.tolist():
                # (the function it predicts with: averaged weights)
                D, W = self.dictionaries_[j], self.dual_coef_[j]
                sim.counter.send_message(j, newcomers[k],
                                         _rows_bytes(len(D), n_features, n_out, value_bytes))
                if value_bytes == 4:
                    W = W.astype(np.float32).astype(np.float64)
                received[k][j] = (D, sim.corrupt_value_rows(W[None], [j])[0])

        ask_until_answered(sim, newcomers, chosen, answer)
        start, neighbours = [], []
        self.join_start_ = np.full(n_new, "features", dtype=object)
        for k in range(n_new):
            c = chosen[k]
            if isinstance(self.gamma, str):
                gamma[k] = self.gamma_[c[0]]
            start.append(self._join_start([received[k][int(j)] for j in c], self.gamma_[c],
                                          gamma[k], masses[c] / masses[c].sum()))
            neighbours.append(np.sort(c))
        self._join_values = [(np.flatnonzero(new_codes == k), None, None) for k in range(n_new)]
        self._join_keep = np.ones(n_new, dtype=bool)     # no passes
        self._join_share = np.full(n_new, np.nan)
        self._extend_state(new_labels, gamma, rogue_new, neighbours, start)
        nearest_node = np.array([c[0] for c in chosen], dtype=np.intp)
        self.network_component_ = np.concatenate([self.network_component_,
                                                  self.network_component_[nearest_node]])
        excluded = getattr(self, "network_excluded_",
                           np.zeros(len(self.network_component_) - n_new, dtype=bool))
        self.network_excluded_ = np.concatenate([excluded, np.ones(n_new, dtype=bool)])
        self._record_join(sim.log(node_labels=self.nodes_))
        codes = codes.copy()
        codes[new_rows] = n_old + new_codes
        return codes

