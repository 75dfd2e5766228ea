"""Decentralized learning of a sparse collaboration graph (Dada, section 5).

Given one model per node (fixed), every node learns the weights of its
edges toward the other nodes, without any central server: a node wakes up,
draws ``kappa`` peers through a peer-sampling service, asks them for their
model, loss and degree, takes a projected gradient step on its ``kappa``
weights and sends each new weight to its peer.  The weights minimize (eq. 5
of Zantedeschi, Bellet & Tommasi, AISTATS 2020)::

    h(w) = sum_k d_k(w) l_k + (mu / 2) sum_{k<l} w_kl ||alpha_k - alpha_l||^2
           + mu_graph * (lambda_graph * sum_{k<l} w_kl^2
                         - sum_k log(d_k(w) + delta)),      w >= 0,

where ``alpha_k`` is node k's model, ``l_k = c_k L_k(alpha_k)`` its
confidence-weighted loss and ``d_k(w) = sum_l w_kl`` its degree.  The first
two terms are the part of the models' objective (eq. 1) that depends on the
graph; the last is the regularizer ``g(w)`` (a log barrier keeping every
node connected and an l2 term: a smaller ``lambda_graph`` gives a sparser
graph).

The estimator :class:`CollaborationGraphLearner` runs this on its own;
:class:`~skfed.boosting.DecentralizedBoostingClassifier` and
:class:`~skfed.boosting.PersonalizedLinearClassifier` alternate it with
their model updates.  The step rule, its Lipschitz constant and the byte
model of the messages are documented in :class:`CollaborationGraphLearner`.
"""

import numbers
import warnings

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ._base import node_seeds
from ._base import DocLinkMixin, check_network_faults
from ._compat import Interval, StrOptions
from ._core._graph_fast import graph_steps
from ._core._join_fast import forest_threshold
from .network import check_adjacency, index_bits, payload_bytes, resolve_network

__all__ = [
    "CollaborationGraphLearner",
    "connected_threshold",
    "sparsify_to_connected",
    "graph_objective",
    "graph_gradient",
    "block_lipschitz_bound",
    "model_message_bytes",
]


def _pair_distances(models):
    """``z[k, l] = ||models[k] - models[l]||^2`` for every pair (dense)."""
    models = np.asarray(models, dtype=np.float64)
    sq = np.einsum("ij,ij->i", models, models)
    z = sq[:, None] + sq[None, :] - 2.0 * models @ models.T
    np.maximum(z, 0.0, out=z)
    np.fill_diagonal(z, 0.0)
    return z


def _dense_graph(W):
    if sparse.issparse(W):
        return np.asarray(W.toarray(), dtype=np.float64)
    return np.asarray(W, dtype=np.float64)


def graph_objective(W, models, losses, *, mu=1.0, mu_graph=None, lambda_graph=1.0, delta=1e-3):
    """Objective ``h(w)`` of the graph given the models (eq. 5).

    Linear in the number of edges of ``W`` (sparse or dense).

    Parameters
    ----------
    W : array-like or sparse matrix of shape (n_nodes, n_nodes)
        Symmetric non-negative weights, zero diagonal.
    models : array-like of shape (n_nodes, n_dims)
        One model per node.
    losses : array-like of shape (n_nodes,)
        ``l_k = c_k L_k(alpha_k)``, the confidence-weighted loss of each node.
    mu, mu_graph, lambda_graph, delta : float
        See :class:`CollaborationGraphLearner`; ``mu_graph=None`` means
        ``mu``.

    Returns
    -------
    float
    """
    mu_graph = mu if mu_graph is None else mu_graph
    W = sparse.triu(sparse.csr_matrix(W, dtype=np.float64), k=1).tocoo()
    models = np.asarray(models, dtype=np.float64)
    losses = np.asarray(losses, dtype=np.float64)
    degree = np.bincount(W.row, W.data, minlength=models.shape[0]) + np.bincount(
        W.col, W.data, minlength=models.shape[0]
    )
    diff = models[W.row] - models[W.col]
    z = np.einsum("ij,ij->i", diff, diff)
    return float(
        degree @ losses
        + 0.5 * mu * np.sum(W.data * z)
        + mu_graph * (lambda_graph * np.sum(W.data**2) - np.sum(np.log(degree + delta)))
    )


def graph_gradient(W, models, losses, *, mu=1.0, mu_graph=None, lambda_graph=1.0, delta=1e-3):
    """Gradient of :func:`graph_objective` with respect to every pair weight.

    Returns
    -------
    ndarray of shape (n_nodes, n_nodes)
        Symmetric, ``G[k, l] = dh / dw_kl``
        ``= l_k + l_l + (mu / 2) z_kl``
        ``+ mu_graph (2 lambda w_kl - 1 / (d_k + delta) - 1 / (d_l + delta))``,
        zero diagonal.
    """
    mu_graph = mu if mu_graph is None else mu_graph
    W = _dense_graph(W)
    losses = np.asarray(losses, dtype=np.float64)
    degree = W.sum(axis=1)
    inv = 1.0 / (degree + delta)
    G = (
        losses[:, None]
        + losses[None, :]
        + 0.5 * mu * _pair_distances(models)
        + mu_graph * (2.0 * lambda_graph * W - inv[:, None] - inv[None, :])
    )
    np.fill_diagonal(G, 0.0)
    return G


def block_lipschitz_bound(kappa, *, mu_graph=1.0, lambda_graph=1.0, delta=1e-3):
    """Lipschitz constant of the gradient of h on one node's block of ``kappa`` weights.

    The Hessian of h restricted to the weights ``w_k,l1 .. w_k,lkappa`` of
    node k is ``mu_graph (2 lambda I + 1 1^T / (d_k + delta)^2 + diag(1 / (d_l
    + delta)^2))`` (the loss and distance terms are linear in w).  Its
    largest eigenvalue is at most ``mu_graph (2 lambda + kappa / (d_k +
    delta)^2 + max_l 1 / (d_l + delta)^2)``, and since every degree is
    non-negative, at most ``mu_graph (2 lambda + (kappa + 1) / delta^2)``
    everywhere on ``w >= 0``: this is the constant returned.

    Returns
    -------
    float
    """
    return float(mu_graph * (2.0 * lambda_graph + (kappa + 1.0) / delta**2))


def model_message_bytes(models, dtype=np.float64):
    """Payload bytes of the message carrying each node's model.

    A model of ``n`` values is sent either dense (``n`` values) or sparse
    (``nnz`` pairs of a ``ceil(log2 n)``-bit index and a value), whichever
    is smaller; values cost ``float_bytes(dtype)`` bytes each.

    Parameters
    ----------
    models : array-like of shape (n_nodes, n)
    dtype : dtype of the values, default=float64

    Returns
    -------
    ndarray of shape (n_nodes,), dtype=int64
    """
    models = np.asarray(models)
    n = models.shape[1]
    nnz = np.count_nonzero(models, axis=1).astype(np.int64)
    value = 4 if np.dtype(dtype) == np.float32 else 8
    bits = index_bits(max(n, 1))
    # payload_bytes: values, plus the packed index bits rounded up to bytes.
    dense = payload_bytes(**{("n_float32" if value == 4 else "n_float64"): n})
    sparse_ = value * nnz + (nnz * bits + 7) // 8
    return np.minimum(dense, sparse_).astype(np.int64)


def connected_threshold(W):
    """Largest weight threshold that keeps the graph's connected components.

    The largest ``t`` such that the edges of weight ``>= t`` connect the
    nodes into as many components as all the edges of ``W`` do (one when
    ``W`` is connected): the smallest weight of a maximum spanning forest
    of ``W``.  Time O(nnz log nnz).

    Parameters
    ----------
    W : array-like or sparse matrix of shape (n_nodes, n_nodes)
        Symmetric non-negative weights.

    Returns
    -------
    float
        0.0 for a graph without edges.
    """
    # A copy: pruning the explicit zeros must not touch the caller's arrays.
    W = sparse.csr_matrix(W, dtype=np.float64, copy=True)
    W.eliminate_zeros()
    if W.nnz == 0:
        return 0.0
    # Kruskal's rule on the weights themselves, largest first (a minimum
    # spanning forest of ``max(W) + 1 - W`` merged weights closer than the
    # float spacing of ``max(W) + 1``, e.g. 1e-17 and 2e-17, and could
    # return the smaller).
    rows = np.repeat(np.arange(W.shape[0], dtype=np.intp), np.diff(W.indptr))
    order = np.argsort(-W.data, kind="stable")
    return float(forest_threshold(rows[order], np.ascontiguousarray(W.indices[order], dtype=np.intp),
                                  np.ascontiguousarray(W.data[order]), W.shape[0]))


def sparsify_to_connected(W):
    """Keep only the weights at or above :func:`connected_threshold`.

    Drop the weakest edges as long as no connected component of the graph
    splits, with the exact threshold (the smallest weight of a maximum
    spanning forest).  Zantedeschi, Bellet & Tommasi's code thresholds
    every learned graph in the same spirit but not the same way: it tries
    the largest weight divided by ``sqrt(10)``, 10, ``10 sqrt(10)``, ...
    and stops at the first threshold at which the Laplacian's second
    smallest eigenvalue exceeds 1e-3.  That grid keeps more edges than the
    exact threshold (up to a factor ``sqrt(10)`` below it), and on a graph
    that is not connected no threshold passes, so nearly every edge is
    kept; this function keeps the components the graph has.

    Parameters
    ----------
    W : array-like or sparse matrix of shape (n_nodes, n_nodes)

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
    """
    W = sparse.csr_matrix(W, dtype=np.float64, copy=True)
    W.eliminate_zeros()
    threshold = connected_threshold(W)
    W.data[W.data < threshold] = 0.0
    W.eliminate_zeros()
    W.sort_indices()
    return W


def _csr_arrays(matrix):
    matrix = sparse.csr_matrix(matrix)
    matrix.sort_indices()
    return (
        np.ascontiguousarray(matrix.indptr, dtype=np.intp),
        np.ascontiguousarray(matrix.indices, dtype=np.intp),
        np.ascontiguousarray(matrix.data, dtype=np.float64),
    )


# Peers a node samples at each graph step unless told otherwise.
DEFAULT_KAPPA = 5


def _capped_kappa(kappa, n_nodes, cand_indptr):
    """``kappa`` bounded by the most peers any node can sample.

    A node samples ``min(kappa, its candidates)`` peers, so a larger
    ``kappa`` changes nothing but the scratch buffers the solver allocates
    (``O(kappa)``): they are sized by the bound.  A ``kappa`` above
    ``n_nodes - 1`` (more peers than there are nodes) warns, unless it is
    the default (5), which on a federation of 5 nodes or fewer simply means
    every other node.
    """
    if kappa > max(n_nodes - 1, 1) and kappa != DEFAULT_KAPPA:
        warnings.warn(
            f"kappa={kappa} is more than the n_nodes - 1 = {n_nodes - 1} other nodes; "
            f"every wake-up samples all of a node's neighbours, as with "
            f"kappa={max(n_nodes - 1, 1)}.",
            UserWarning,
            stacklevel=4,
        )
    widest = int(np.diff(cand_indptr).max()) if len(cand_indptr) > 1 else 0
    return int(min(kappa, max(widest, 1)))


class _GraphRunner:
    """State of the decentralized graph learner during one fit.

    Shared by :class:`CollaborationGraphLearner` and the alternating
    estimators of :mod:`skfed.boosting`: the symmetric non-zero weights, in
    per-node rows of ``row_capacity`` slots (see ``_graph_fast``), the
    degrees and the random states.  Peers are drawn from the topology by
    the peer-sampling service at every step: uniformly among all other
    nodes on a complete topology, whose ``n_nodes (n_nodes - 1)`` links are
    never built, among the node's links otherwise.  Memory and the cost of
    every call are linear in the nodes (and in the links of an explicit
    topology), never quadratic.
    """

    def __init__(self, simulation, *, mu, mu_graph, lambda_graph, delta, kappa, clock,
                 node_state, W=None, max_neighbors=None):
        self.simulation = simulation
        self.mu = float(mu)
        self.mu_graph = float(mu if mu_graph is None else mu_graph)
        self.lambda_graph = float(lambda_graph)
        self.delta = float(delta)
        self.kappa = int(kappa)
        self.max_neighbors = -1 if max_neighbors is None else int(max_neighbors)
        self.clock = clock
        self.node_state = node_state
        self.n_nodes = K = simulation.n_nodes
        self.complete = bool(simulation.is_complete)
        if self.complete:
            self.topo_indptr = np.zeros(K + 1, dtype=np.intp)
            self.topo_indices = np.zeros(0, dtype=np.intp)
        else:
            pattern = sparse.csr_matrix(simulation.adjacency, dtype=np.float64, copy=True)
            pattern.setdiag(0.0)
            pattern.eliminate_zeros()
            pattern.sort_indices()
            self.topo_indptr = np.ascontiguousarray(pattern.indptr, dtype=np.intp)
            self.topo_indices = np.ascontiguousarray(pattern.indices, dtype=np.intp)
        # kappa bounded by the most peers any node can sample (a kappa above
        # n_nodes - 1 warns), before any buffer is sized by it.
        widest = (np.array([0, K - 1], dtype=np.intp) if self.complete else self.topo_indptr)
        self.kappa = _capped_kappa(self.kappa, K, widest)
        # Room for the capped rows plus one step's new links; rows grow on demand.
        cap = self.max_neighbors if self.max_neighbors >= 0 else self.kappa
        self.slot_cost = None
        self._allocate(max(cap + self.kappa + 1, 2))
        if W is not None:
            W = sparse.csr_matrix(W, dtype=np.float64)
            if not self.complete:
                outside = W - W.multiply(sparse.csr_matrix(
                    (np.ones(self.topo_indices.size), self.topo_indices, self.topo_indptr),
                    shape=W.shape))
                if sparse.csr_matrix(outside).count_nonzero():
                    raise ValueError(
                        "init_graph has edges between nodes that the network topology does "
                        "not connect."
                    )
            self.set_graph(W)

    # ---------------------------------------------------------------- storage
    def _allocate(self, capacity):
        K = self.n_nodes
        self.row_capacity = int(capacity)
        self.nbr = np.full(K * self.row_capacity, -1, dtype=np.intp)
        self.wv = np.zeros(K * self.row_capacity)
        self.n_slots = np.zeros(K, dtype=np.intp)
        self.degree = np.zeros(K)
        if self.slot_cost is not None:
            self.slot_cost = np.full(self.wv.shape[0], np.nan)

    def links(self):
        """``(rows, cols, weights)`` of every stored link, both directions, rows sorted."""
        R = self.row_capacity
        rows = np.repeat(np.arange(self.n_nodes), self.n_slots)
        slots = np.arange(rows.size) - np.repeat(np.cumsum(self.n_slots) - self.n_slots,
                                                  self.n_slots) + rows * R
        return rows, self.nbr[slots], self.wv[slots], slots

    def graph_csr(self):
        """The current graph as a symmetric CSR matrix without explicit zeros."""
        rows, cols, weights, _ = self.links()
        K = self.n_nodes
        indptr = np.zeros(K + 1, dtype=np.intp)
        np.cumsum(self.n_slots, out=indptr[1:])
        matrix = sparse.csr_matrix((weights.copy(), cols.copy(), indptr), shape=(K, K))
        matrix.eliminate_zeros()
        matrix.sort_indices()
        return matrix

    def set_graph(self, W):
        """Store the symmetric non-negative weights of ``W`` (the rest is zero)."""
        W = sparse.csr_matrix(W, dtype=np.float64, copy=True)
        W.setdiag(0.0)
        W.data[W.data < 0] = 0.0
        W.eliminate_zeros()
        W.sort_indices()
        counts = np.diff(W.indptr)
        needed = int(counts.max()) if counts.size else 0
        capacity = max(self.row_capacity, needed + self.kappa + 1)
        scored = self.slot_cost is not None
        self._allocate(capacity)
        self.n_slots[:] = counts
        rows = np.repeat(np.arange(self.n_nodes), counts)
        slots = rows * capacity + (np.arange(W.nnz) - W.indptr[rows])
        self.nbr[slots] = W.indices
        self.wv[slots] = W.data
        if scored:
            self.slot_cost = np.full(self.wv.shape[0], np.nan)
        self.degree[:] = np.asarray(W.sum(axis=1)).ravel()

    def _grow(self):
        """Double the row capacity, keeping every stored link (and score)."""
        rows, cols, weights, old = self.links()
        cost = None if self.slot_cost is None else self.slot_cost[old]
        degree = self.degree.copy()
        counts = self.n_slots.copy()
        capacity = 2 * self.row_capacity
        self._allocate(capacity)
        self.n_slots[:] = counts
        slots = rows * capacity + (old - rows * (capacity // 2))
        self.nbr[slots] = cols
        self.wv[slots] = weights
        if cost is not None:
            self.slot_cost[slots] = cost
        self.degree[:] = degree

    def _row_sums(self):
        rows, _, weights, _ = self.links()
        return np.bincount(rows, weights, minlength=self.n_nodes)

    def objective(self, models, losses):
        return graph_objective(
            self.graph_csr(), models, losses, mu=self.mu, mu_graph=self.mu_graph,
            lambda_graph=self.lambda_graph, delta=self.delta,
        )

    def reset_scores(self):
        """Forget every cached peer score (the models changed); start scoring."""
        self.slot_cost = np.full(self.wv.shape[0], np.nan)

    def run(self, models, losses, n_steps, *, model_dtype, budget=-1, spent=0,
            end_rounds=False, record=False, trace=False, score_data=None, sent_models=None,
            dense_scores=False):
        """Run ``n_steps`` graph steps; return ``(n_done, spent, curve, trace)``.

        ``sent_models`` (a :class:`~skfed._core._graph_fast.SentModels`):
        the models never change during the fit, so each is sent once per
        (sender, receiver) pair and the receiver keeps it.  ``dense_scores``:
        the scores read every weight of the (dense) models in order.

        ``score_data`` (peer scoring: ``(H, Y, sw, offsets, confidence,
        loss)``, see ``_graph_fast.graph_steps``): the scores are computed
        when a step first needs them and kept with the stored links for
        this call (the models are fixed during it).
        """
        models = np.ascontiguousarray(models)
        if models.dtype not in (np.float32, np.float64):
            models = models.astype(np.float64)
        losses = np.ascontiguousarray(losses, dtype=np.float64)
        n_steps = int(n_steps)
        objective = self.objective(models, losses) if record else 0.0
        curve = np.zeros(n_steps if record else 0)
        offline = self._offline(n_steps)
        trace_node = np.zeros(n_steps if trace else 0, dtype=np.intp)
        trace_peers = np.zeros(n_steps * self.kappa if trace else 0, dtype=np.intp)
        trace_lip = np.zeros(n_steps if trace else 0)
        if score_data is not None:
            self.reset_scores()
        else:
            self.slot_cost = None
        payload = model_message_bytes(models, model_dtype)
        n_done, linear_change = 0, 0.0
        while True:
            offset, kk = n_done, self.kappa
            n, spent, objective, change, full = graph_steps(
                models, losses, self.wv, self.nbr, self.n_slots, self.degree,
                self.topo_indptr, self.topo_indices, self.complete,
                self.mu, self.mu_graph, self.lambda_graph, self.delta, self.kappa,
                n_steps - offset, self.clock, self.node_state,
                offline[offset:] if offline.size else offline, payload,
                self.simulation.counter, bool(end_rounds), int(budget), int(spent),
                float(objective), curve[offset:] if record else curve,
                trace_node[offset:] if trace else trace_node,
                trace_peers[offset * kk:] if trace else trace_peers,
                trace_lip[offset:] if trace else trace_lip,
                self.max_neighbors, self.slot_cost, *(score_data or ()),
                sent_models=sent_models, dense_scores=bool(dense_scores),
            )
            n_done += n
            linear_change += change
            if full < 0:
                break
            self._grow()
        if sent_models is not None:
            sent_models.check()
        # Degrees are updated incrementally; recompute them exactly.
        self.degree[:] = self._row_sums()
        self.linear_change = linear_change
        traced = None
        if trace:
            traced = (
                trace_node[:n_done],
                trace_peers[: n_done * self.kappa].reshape(n_done, self.kappa),
                trace_lip[:n_done],
            )
        return n_done, spent, curve[:n_done], traced

    def _offline(self, n_steps):
        drop = self.simulation.network.drop_rate
        if drop == 0 or n_steps == 0:
            return np.zeros(0, dtype=np.uint8)
        return (self.simulation.rng.uniform(size=n_steps) < drop).astype(np.uint8)

    def sparsify_to_connected(self):
        """Drop the weights below :func:`connected_threshold` (in place)."""
        self.set_graph(sparsify_to_connected(self.graph_csr()))


class CollaborationGraphLearner(DocLinkMixin, BaseEstimator):
    """Decentralized learning of a sparse collaboration graph from node models.

    Each row of ``X`` is the model of one node (for instance the
    ``coef_`` of a per-node estimator).  Without any server, nodes learn
    symmetric non-negative weights ``w_kl`` toward each other by minimizing
    (Zantedeschi, Bellet & Tommasi, AISTATS 2020, eq. 5)::

        h(w) = sum_k d_k(w) l_k + (mu / 2) sum_{k<l} w_kl ||x_k - x_l||^2
               + mu_graph * (lambda_graph * sum_{k<l} w_kl^2
                             - sum_k log(d_k(w) + delta)),        w >= 0

    with ``d_k(w) = sum_l w_kl`` the degree of node k and ``l_k`` its
    (confidence-weighted) loss, ``losses`` (or ``y``) in :meth:`fit` (zero by default).

    **Algorithm.** At each iteration one node, drawn uniformly at random
    (equivalent to every node having an independent Poisson clock of rate
    1: the next tick belongs to each node with probability ``1 / n_nodes``),
    draws ``kappa`` distinct peers uniformly among its neighbours in the
    network topology (all other nodes by default) through a peer-sampling
    service driven by its own random state, and updates its ``kappa``
    weights by a projected gradient step
    ``w_kl <- max(0, w_kl - dh/dw_kl / L)``, where
    ``dh/dw_kl = l_k + l_l + (mu / 2) ||x_k - x_l||^2 + mu_graph (2 lambda w_kl
    - 1 / (d_k + delta) - 1 / (d_l + delta))``.  The block Hessian is
    ``mu_graph (2 lambda I + 1 1^T / (d_k + delta)^2 + diag(1 / (d_l + delta)^2))``,
    so ``L <= mu_graph (2 lambda + (kappa + 1) / delta^2)`` on the whole
    orthant (:func:`block_lipschitz_bound`).  That bound is tiny-step
    conservative when degrees are far from 0, so each step starts from the
    curvature at the current point, ``mu_graph (2 lambda + kappa / (d_k +
    delta)^2 + max_l 1 / (d_l + delta)^2)``, and doubles it until the
    descent lemma holds (never beyond the global bound), so h never
    increases.

    **Bounded degrees** (Remark 2 of the paper, ``max_neighbors``): after
    each step, the waking node and its sampled peers each keep at most
    ``max_neighbors`` non-zero weights, setting to zero those toward the
    neighbours whose models are the most different from their own (a node
    holds its neighbours' models, so it knows these distances), except a
    link that is the neighbour's last one: the node keeps it and stays over
    the cap, so that no cap leaves a node alone.  This bounds
    the memory and the per-update messages of every node and keeps the graph
    sparse when models become alike; it is a heuristic (a projection onto a
    non-convex set), so h may then increase.

    **Messages** (counted by the network): for each sampled peer l, a
    request from k carrying k's model, an answer carrying l's model, loss
    and degree (two float64), and the new weight (one float64); with
    ``max_neighbors``, one float64 message per edge dropped by the cap.  A model is
    sent dense (``n_dims`` values) or sparse (``nnz`` pairs of an index of
    ``ceil(log2 n_dims)`` bits and a value), whichever is cheaper
    (:func:`model_message_bytes`).  Every iteration is one round.

    Parameters
    ----------
    mu : float, default=1.0
        Weight of the model-smoothness term ``(mu / 2) sum w_kl ||x_k - x_l||^2``.
    mu_graph : float, default=None
        Weight of the graph regularizer; ``None`` means ``mu``.
    lambda_graph : float, default=1.0
        l2 weight ``lambda`` of the regularizer: smaller values give
        sparser graphs with larger weights.
    delta : float, default=1e-3
        Offset of the log barrier ``log(d_k + delta)``.
    kappa : int, default=5
        Number of peers a node samples at each step; a node with fewer
        neighbours samples all of them.  A value above ``n_nodes - 1``
        warns (it is then ``n_nodes - 1``), except the default: on 5 nodes
        or fewer it samples every other node without a word.
    max_neighbors : int, default=None
        Most non-zero weights a node keeps (Remark 2): the weights toward
        the most different models are kept at zero, except a neighbour's
        last link (the node then keeps more).  ``None``: no cap.
    sparsify_graph : {"connected", None}, default="connected"
        Post-processing of the learned graph: ``"connected"`` keeps only the
        weights at or above the largest threshold at which the graph keeps
        its connected components (:func:`~skfed.graph.sparsify_to_connected`;
        not the authors' coarser search, see there); ``None`` keeps every
        learned weight.  The threshold is computed on the whole graph (a
        maximum spanning forest), a global step outside the decentralized
        protocol whose messages are not counted.
    max_iter : int, default=None
        Number of iterations (node wake-ups); ``None`` means
        ``100 * n_nodes``.
    communication_budget : int, default=None
        Stop as soon as this many bytes have been sent.
    network : SimulatedNetwork, default=None
        Topology (who may be sampled as a peer) and faults: a node that
        drops out when it wakes up does nothing; a rogue node sends its
        peers the negated model (``"complement"``) or Gaussian noise of the
        same scale (``"random"``) in place of its row of ``X``, and its own
        updates use that model too.  Stragglers are refused with an error (a
        wake-up is one atomic step).  ``None`` is a perfect complete network.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    collaboration_graph_ : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        Learned weights: symmetric, non-negative, zero diagonal.
    degree_ : ndarray of shape (n_nodes,)
    nodes_ : ndarray of shape (n_nodes,)
        ``arange(n_nodes)``: node k is row k of ``X``.
    n_iter_ : int
    objective_curve_ : ndarray of shape (n_iter_,)
        ``h(w)`` after every iteration (before ``sparsify_graph``).
    communication_ : CommunicationLog
    n_bytes_sent_, n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    n_features_in_ : int

    See Also
    --------
    skfed.boosting.DecentralizedBoostingClassifier : alternates this with boosting.
    skfed.boosting.PersonalizedLinearClassifier : alternates this with linear models.

    References
    ----------
    V. Zantedeschi, A. Bellet and M. Tommasi. "Fully Decentralized Joint
    Learning of Personalized Models and Collaboration Graphs", AISTATS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.graph import CollaborationGraphLearner
    >>> models = np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
    >>> learner = CollaborationGraphLearner(mu=10.0, lambda_graph=1.0, kappa=2,
    ...                                     random_state=0).fit(models)
    >>> W = learner.collaboration_graph_.toarray()
    >>> bool(W[0, 1] > W[0, 2] and W[2, 3] > W[1, 3])
    True
    """

    _parameter_constraints = {
        "mu": [Interval(numbers.Real, 0, None, closed="left")],
        "mu_graph": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "lambda_graph": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, None, closed="neither")],
        "kappa": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_neighbors": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "sparsify_graph": [None, StrOptions({"connected"})],
        "max_iter": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "communication_budget": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "network": "no_validation",
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        mu=1.0,
        mu_graph=None,
        lambda_graph=1.0,
        delta=1e-3,
        kappa=5,
        max_neighbors=None,
        sparsify_graph="connected",
        max_iter=None,
        communication_budget=None,
        network=None,
        random_state=None,
    ):
        self.mu = mu
        self.mu_graph = mu_graph
        self.lambda_graph = lambda_graph
        self.delta = delta
        self.kappa = kappa
        self.max_neighbors = max_neighbors
        self.sparsify_graph = sparsify_graph
        self.max_iter = max_iter
        self.communication_budget = communication_budget
        self.network = network
        self.random_state = random_state

    def _mu_graph(self):
        mu_graph = self.mu if self.mu_graph is None else self.mu_graph
        if mu_graph <= 0:
            raise ValueError(
                "mu_graph must be > 0 (with mu_graph=None it equals mu, so mu must "
                f"then be > 0), got {mu_graph!r}."
            )
        return mu_graph

    def fit(self, X, y=None, losses=None, init_graph=None):
        """Learn the graph between the nodes whose models are the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_nodes, n_dims)
            Model of every node.
        y : array-like of shape (n_nodes,), default=None
            The nodes' losses given by position, as the MPI engine reads them
            (each node's ``y`` is its loss): ``fit(models, losses)`` equals
            ``fit(models, losses=losses)``.  Giving both ``y`` and ``losses``
            is an error.
        losses : array-like of shape (n_nodes,), default=None
            Confidence-weighted loss ``l_k >= 0`` of every node's model on its
            own data; zeros when None (and ``y`` is None).
        init_graph : array-like, sparse matrix or networkx graph, default=None
            Starting weights (symmetric, non-negative); the empty graph when
            None.

        Returns
        -------
        self : CollaborationGraphLearner
        """
        self._validate_params()
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        n_nodes = X.shape[0]
        if y is not None:
            if losses is not None:
                raise ValueError(
                    "Give the nodes' losses once: as y (the second positional argument) "
                    "or as losses=, not both."
                )
            losses = y
        if losses is None:
            losses = np.zeros(n_nodes)
        try:
            losses = check_array(losses, ensure_2d=False, dtype=np.float64, input_name="losses")
        except (TypeError, ValueError) as exc:
            if "NaN" in str(exc) or "infinity" in str(exc):
                raise
            raise ValueError(
                f"losses must be numbers, one per node (given as losses= or as y): {exc}"
            ) from exc
        if losses.shape != (n_nodes,):
            raise ValueError(
                f"losses must have one value per node (shape ({n_nodes},)), got shape "
                f"{losses.shape}."
            )
        if np.any(losses < 0):
            first = int(np.flatnonzero(losses < 0)[0])
            raise ValueError(
                f"losses must be non-negative (a node's confidence-weighted loss); node "
                f"{first} has {float(losses[first])!r}."
            )
        mu_graph = self._mu_graph()
        check_network_faults(self, self.network, {
            "straggler_rate": "a wake-up is one atomic step (a slow node wakes up "
            "less often, which its random clock already models)",
        })
        rng = check_random_state(self.random_state)
        simulation = resolve_network(self.network).start(n_nodes, random_state=rng)
        if simulation.rogue.any():
            # What every node claims its model is: a rogue node's peers (and
            # its own updates) see the corrupted row.
            X = X.copy()
            for node in np.flatnonzero(simulation.rogue):
                X[node] = simulation.corrupt_values(X[node], node)
        seeds = node_seeds(rng, n_nodes + 1)
        W0 = None
        if init_graph is not None:
            W0 = check_adjacency(init_graph, n_nodes, name="init_graph", allow_weights=True)
        runner = _GraphRunner(
            simulation, mu=self.mu, mu_graph=mu_graph, lambda_graph=self.lambda_graph,
            delta=self.delta, kappa=self.kappa, clock=seeds[n_nodes:].copy(),
            node_state=seeds[:n_nodes].copy(), W=W0, max_neighbors=self.max_neighbors,
        )
        max_iter = 100 * n_nodes if self.max_iter is None else self.max_iter
        budget = -1 if self.communication_budget is None else self.communication_budget
        n_done, _, curve, _ = runner.run(
            X, losses, max_iter, model_dtype=X.dtype, budget=budget, end_rounds=True,
            record=True,
        )
        graph = runner.graph_csr()
        if self.sparsify_graph == "connected":
            graph = sparsify_to_connected(graph)
        self.collaboration_graph_ = graph
        self.degree_ = np.asarray(graph.sum(axis=1)).ravel()
        self.nodes_ = np.arange(n_nodes)
        self.n_iter_ = int(n_done)
        self.objective_curve_ = curve
        log = simulation.log(node_labels=self.nodes_)
        self.communication_ = log
        self.n_bytes_sent_ = log.total_bytes
        self.n_messages_ = log.total_messages
        self.bytes_per_round_ = log.bytes_per_round
        return self

    def objective(self, X, losses=None, graph=None):
        """``h(w)`` of ``graph`` (default: the learned one) for models ``X``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        losses = np.zeros(X.shape[0]) if losses is None else np.asarray(losses, float)
        graph = self.collaboration_graph_ if graph is None else graph
        return graph_objective(
            graph, X, losses, mu=self.mu, mu_graph=self._mu_graph(),
            lambda_graph=self.lambda_graph, delta=self.delta,
        )
