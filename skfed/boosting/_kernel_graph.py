"""Dada's graph models: each node's kernel ridge model on public random Fourier features.

Dada's collaboration graph compares the nodes' models (the graph objective's
model term) and scores them on each other's samples (``peer_scoring``).  Its
boosted stump models are smoothed along the graph being learned and, on a
node with a few samples, carry little of the node's own decision function,
so they separate nearby clusters poorly (``benchmarks/dada_graph_signal.py``).
With ``graph_signal="kernel"`` the graph steps compare, instead, a second
model every node fits once, alone: kernel ridge regression of its +-1 labels
on ``D`` random Fourier features (Rahimi & Recht, 2007) of the voted
features, standardized by their pooled mean and spread.  The directions are
public randomness derived from ``random_state``.  The model of node ``l``,
``w_l = Phi_l^T (Phi_l Phi_l^T + ridge S_l^-1)^-1 y_l`` (``S_l`` the sample
weights), rescaled to the norm ``KERNEL_NORM`` = 2 per class problem, is
the one message a peer needs, and it never changes during the fit, so each
receiver keeps it (:class:`skfed._core._graph_fast.SentModels`).  The
rescaling makes the graph compare the shapes of the nodes' functions, not
their sizes: the ridge shrinks the model of a node with a few samples
toward zero, and unscaled models paired the small nodes with each other,
away from the large ones (Landmine's refits with five-sample newcomers fell
from 93.5 to 79.1 %, HAR sitting's from 87.6 to 81.9 %).  The norm 2 was
chosen against 1, 3 and the nodes' mean norm
(``benchmarks/dada_kernel_graph.py``'s docstring).
"""

import math

import numpy as np

from .._core._graph_fast import SentModels
from ..network import payload_bytes
from ._agreement import _tree_round_trip

# Settings of the kernel graph models, chosen on the noisy moons seeds 0-4
# (``python benchmarks/dada_graph_signal.py rff noisy 0 1 2 3 4``: 5-NN share
# of the cross losses inside the clusters, bandwidth / ridge 0.3 / 1 against
# 0.3 / 0.3 and 0.5 / 1; 300 features against 100 in ``rff-graph ... D=100``).
KERNEL_FEATURES = 300
KERNEL_BANDWIDTH = 0.3
KERNEL_RIDGE = 1.0
# Norm of every graph model (per class problem); see the module docstring.
KERNEL_NORM = 2.0


def kernel_directions(n_inputs, seeds, n_features=KERNEL_FEATURES,
                      bandwidth=KERNEL_BANDWIDTH):
    """The public random Fourier directions ``(W, b)``.

    ``W`` has shape ``(n_inputs, n_features)``, entries ``N(0, 1 /
    bandwidth^2)``; ``b`` uniform in ``[0, 2 pi)``.  Drawn from a generator
    seeded by ``seeds`` (public: every node derives the same directions from
    the fit's ``random_state``).
    """
    rng = np.random.default_rng(np.asarray(seeds, dtype=np.uint64))
    W = rng.normal(scale=1.0 / bandwidth, size=(n_inputs, n_features))
    b = rng.uniform(0.0, 2.0 * np.pi, n_features)
    return W, b


def pooled_moments(Xs, sws, offsets, features, simulation):
    """Pooled weighted mean and standard deviation of ``features``, and their bytes.

    Every node sends up the aggregation tree its weight sum, its weighted
    mean and its weighted sum of squared deviations from that mean per
    feature (``2 d + 1`` float64, :func:`node_moment_sums`); the two are
    merged exactly (:func:`moments_from_node_sums`), and the root sends the
    means and spreads back down (``2 d`` float64).  Deviations from each
    node's own mean keep the spread exact where ``E[z^2] - E[z]^2`` would
    cancel (a feature with a large mean, a constant one).  Only positively
    weighted samples count.  A feature without spread gets the spread 1.
    """
    K = len(offsets) - 1
    mean, spread = moments_from_node_sums(
        node_moment_sums(Xs, sws, offsets, features, np.arange(K)))
    d = int(np.size(features))
    spent = _tree_round_trip(simulation, payload_bytes(n_float64=2 * d + 1),
                             payload_bytes(n_float64=2 * d))
    return mean, spread, spent


def kernel_features(X, features, mean, spread, W, b):
    """``phi(x) = sqrt(2 / D) cos(W^T z + b)``, ``z`` the standardized ``features``."""
    Z = (np.asarray(X[:, features], dtype=np.float64) - mean) / spread
    phi = Z @ W  # one (n_samples, D) array, transformed in place
    phi += b
    np.cos(phi, out=phi)
    phi *= np.sqrt(2.0 / W.shape[1])
    return phi


def kernel_ridge_models(phi, Y, sws, offsets, ridge=KERNEL_RIDGE):
    """Every node's kernel ridge models, one per problem, fitted alone.

    Node ``k`` solves ``min_w sum_i s_i (phi_i^T w - y_i)^2 + ridge ||w||^2``
    for every row of ``Y`` (the +-1 labels of each one-vs-rest problem), in
    the smaller of its two normal systems: the dual ``w = Phi^T S^(1/2) a``
    with ``(S^(1/2) Phi Phi^T S^(1/2) + ridge I) a = S^(1/2) y`` (``m_k``
    unknowns) when ``m_k <= D``, else the primal ``(Phi^T S Phi + ridge I) w
    = Phi^T S y`` (``D`` unknowns), so a node's cost is ``O(m_k min(m_k,
    D)^2)``, linear in its samples (rows of weight 0 drop out).  Nodes of
    the same size are solved together.

    Returns
    -------
    models : ndarray of shape (n_nodes, n_problems, D)
    """
    K = offsets.shape[0] - 1
    P, D = Y.shape[0], phi.shape[1]
    models = np.zeros((K, P, D))
    sizes = np.diff(offsets)
    root = np.sqrt(np.asarray(sws, dtype=np.float64))
    for m in np.unique(sizes).tolist():
        if m == 0:
            continue
        nodes = np.flatnonzero(sizes == m)
        if m > D:  # primal, one node at a time: no (n, m, D) copy of big nodes
            for k in nodes.tolist():
                A = phi[offsets[k]:offsets[k + 1]] * root[offsets[k]:offsets[k + 1], None]
                rhs = A.T @ (np.asarray(Y, dtype=np.float64)[:, offsets[k]:offsets[k + 1]]
                             * root[offsets[k]:offsets[k + 1]]).T          # (D, P)
                models[k] = np.linalg.solve(A.T @ A + ridge * np.eye(D), rhs).T
            continue
        rows = offsets[nodes][:, None] + np.arange(m)            # (n, m)
        A = phi[rows] * root[rows][:, :, None]                    # (n, m, D)
        G = A @ A.transpose(0, 2, 1) + ridge * np.eye(m)          # (n, m, m)
        rhs = (np.asarray(Y, dtype=np.float64)[:, rows] * root[rows]).transpose(1, 2, 0)
        a = np.linalg.solve(G, rhs)                               # (n, m, P)
        models[nodes] = (A.transpose(0, 2, 1) @ a).transpose(0, 2, 1)
    return models


def rescaled_models(models, norm=KERNEL_NORM):
    """Every node's model of every problem rescaled to the Euclidean norm
    ``norm`` (a zero model stays zero)."""
    norms = np.linalg.norm(models, axis=-1, keepdims=True)
    return models / np.where(norms > 0, norms, 1.0) * norm


def graph_signal_used(est, spec, n_nodes):
    """The models a Dada fit's graph steps compare: ``est.graph_signal``, except
    that a fit without graph learning has none (None) and a finite privacy
    budget keeps the boosting models (the kernel models are not privatized)."""
    if est.graph is not None or n_nodes < 2:
        return None
    if spec is not None and math.isfinite(spec.epsilon):
        return "boosting"
    return est.graph_signal


def fit_graph_models(est, state, Xs, sws, layout, simulation, seeds):
    """Fit every node's kernel graph model into ``state``; return the bytes.

    The inputs are the features that got stumps (the vote's), or every
    feature with ``base_predictors``; the nodes agree on their pooled mean
    and spread (:func:`pooled_moments`, counted), derive the public random
    Fourier directions from the fit's two global seeds (not from the node
    seeds' stream: the rest of the fit draws the same numbers as with the
    boosting signal) and fit their models alone
    (:func:`kernel_ridge_models`, rescaled by :func:`rescaled_models`).
    ``state.sent_models`` then records the
    (sender, receiver) pairs whose receiver holds the sender's model.
    """
    K = layout.n_nodes
    if est.base_predictors is None:
        features = np.flatnonzero(est.selected_features_)
    else:
        features = np.arange(Xs.shape[1])
    mean, spread, spent = pooled_moments(Xs, sws, layout.offsets, features, simulation)
    W, b = kernel_directions(features.size, [int(seeds[K]), int(seeds[K + 1]), 0x6B726666])
    phi = kernel_features(Xs, features, mean, spread, W, b)
    models = rescaled_models(kernel_ridge_models(phi, state.Y, sws, layout.offsets))
    state.kernel = (np.ascontiguousarray(phi, dtype=state.dtype),
                    np.ascontiguousarray(models, dtype=state.dtype))
    state.sent_models = SentModels(K)
    est.kernel_features_ = features
    return spent


# ------------------------------------------------- pieces for the MPI engine
def node_moment_sums(Xs, sws, offsets, features, nodes):
    """Each node's moments of the kernel's inputs, for the moments' reduction.

    Row ``i`` holds node ``nodes[i]``'s ``(sum s, mean z, sum s (z - mean
    z)^2)`` over its positively weighted samples (``2 d + 1`` values, ``z``
    the columns ``features``, weights ``s``; zeros for a node without
    such samples): what it sends up the aggregation tree
    (:func:`pooled_moments`).  ``skfed.engines.mpi`` computes them on the
    rank owning the node.
    """
    d = int(np.size(features))
    out = np.zeros((len(nodes), 2 * d + 1))
    for i, k in enumerate(np.asarray(nodes, dtype=np.intp).tolist()):
        rows = slice(offsets[k], offsets[k + 1])
        keep = sws[rows] > 0
        Z = np.asarray(Xs[rows][keep][:, features], dtype=np.float64)
        w = np.asarray(sws[rows][keep], dtype=np.float64)
        total = w.sum()
        if not total > 0:
            continue
        mean = (w @ Z) / total
        deviation = Z - mean
        out[i, 0] = total
        out[i, 1:d + 1] = mean
        out[i, d + 1:] = w @ (deviation * deviation)
    return out


def moments_from_node_sums(sums):
    """The pooled mean and spread from every node's :func:`node_moment_sums` row.

    The exact merge of the nodes' weights ``s_k``, means ``m_k`` and sums of
    squared deviations ``M_k``: ``mean = sum_k s_k m_k / S`` and ``M = sum_k
    M_k + sum_k s_k (m_k - mean)^2`` with ``S = sum_k s_k`` (every term
    non-negative: no cancellation), ``spread = sqrt(M / S)``, set to 1 for a
    constant feature (``spread <= 1e-12 |mean|``, a bound relative to the
    feature's own magnitude: the spread does not depend on its units).  The rows are
    reduced as one array in node order, so the result does not depend on how
    the nodes are spread over ranks (bit for bit).
    """
    sums = np.asarray(sums, dtype=np.float64)
    d = (sums.shape[1] - 1) // 2
    s = sums[:, 0]
    means, squares = sums[:, 1:d + 1], sums[:, d + 1:]
    total = s.sum()
    mean = (s @ means) / total
    gap = means - mean
    var = (squares.sum(axis=0) + s @ (gap * gap)) / total
    spread = np.sqrt(np.maximum(var, 0.0))
    # Constant: rounding leaves a spread near eps |mean| (the nodes' means
    # differ in their last bits), exactly 0 at mean 0.  Relative to the mean
    # only, so a feature in small units (spread 1e-13) keeps its spread.
    spread[spread <= 1e-12 * np.abs(mean)] = 1.0
    return mean, spread


def graph_models_from_moments(Xs, Y, sws, offsets, features, mean, spread, seeds, n_nodes,
                              dtype):
    """``(phi, models)`` as :func:`fit_graph_models` stores them in ``state.kernel``,
    given the agreed moments: the public directions from the fit's two
    global seeds, the kernel features of ``Xs`` and every node's rescaled
    kernel ridge models (zero for a node without rows in ``Xs``, e.g. another
    rank's)."""
    K = n_nodes
    W, b = kernel_directions(np.size(features), [int(seeds[K]), int(seeds[K + 1]), 0x6B726666])
    phi = kernel_features(Xs, features, mean, spread, W, b)
    models = rescaled_models(kernel_ridge_models(phi, Y, sws, offsets))
    return (np.ascontiguousarray(phi, dtype=dtype),
            np.ascontiguousarray(models, dtype=dtype))
