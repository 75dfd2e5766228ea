"""The pieces the MPI engine runs Dada's kernel graph signal with, without MPI.

The engine (``skfed.engines._mpi_dada``) sums every node's moments on its
rank and adds the rows in node order, fits its nodes' kernel models with the
simulation's functions, replays every rank's graph steps' pairs into its own
:class:`~skfed._core._graph_fast.SentModels`, and scores the kernel models
densely as the simulated graph steps do.  Each piece is checked here against
a NumPy reference or the simulation's own function; the fits on 2 and 4
ranks are compared with the simulated fit in ``test_engines_mpi.py``.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from skfed._core._graph_fast import SentModels, pair_scores

from skfed.boosting._agreement import _tree_round_trip
from skfed.boosting._kernel_graph import (
    KERNEL_FEATURES,
    KERNEL_NORM,
    KERNEL_RIDGE,
    fit_graph_models,
    graph_models_from_moments,
    moments_from_node_sums,
    node_moment_sums,
    pooled_moments,
)
from skfed.network import resolve_network


def _nodes(seed=0, sizes=(7, 7, 12, 3, 7), d=4):
    """Node-sorted samples with some zero weights and a constant feature."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    X = rng.normal(size=(n, d)) * np.arange(1, d + 1) + 3.0
    X[:, 2] = 5.0  # no spread: its spread is 1
    sw = rng.uniform(0.5, 2.0, n)
    sw[[1, 9, 20]] = 0.0
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return X, sw, offsets, y[None, :]


def _simulation(K):
    return resolve_network(None).start(K, random_state=np.random.RandomState(0))


def test_node_sums_reduce_to_the_pooled_moments_on_any_split_of_the_nodes():
    X, sw, offsets, _ = _nodes()
    K, features = len(offsets) - 1, np.array([0, 2, 3])
    d = features.size
    sums = node_moment_sums(X, sw, offsets, features, np.arange(K))
    assert sums.shape == (K, 2 * d + 1)
    # NumPy reference, one node at a time over its positively weighted rows:
    # weight, weighted mean, weighted sum of squared deviations.
    for k in range(K):
        rows = slice(offsets[k], offsets[k + 1])
        keep = sw[rows] > 0
        Z, w = X[rows][keep][:, features], sw[rows][keep]
        m = np.average(Z, axis=0, weights=w)
        np.testing.assert_allclose(sums[k], np.r_[w.sum(), m,
                                                  (w[:, None] * (Z - m) ** 2).sum(0)],
                                   rtol=1e-13, atol=1e-24)
    # A rank computes its own nodes' rows: any split gives the same rows,
    # and the node-order merge the same bits whatever the split.
    split = np.vstack([node_moment_sums(X, sw, offsets, features, [0, 1]),
                       node_moment_sums(X, sw, offsets, features, [2, 3, 4])])
    np.testing.assert_array_equal(split, sums)
    mean, spread = moments_from_node_sums(sums)
    simulation = _simulation(K)
    ref_mean, ref_spread, spent = pooled_moments(X, sw, offsets, features, simulation)
    np.testing.assert_array_equal(mean, ref_mean)
    np.testing.assert_array_equal(spread, ref_spread)
    keep = sw > 0
    pooled = X[keep][:, features]
    ref_std = np.sqrt(np.cov(pooled, rowvar=False, aweights=sw[keep], bias=True).diagonal())
    np.testing.assert_allclose(spread[[0, 2]], ref_std[[0, 2]], rtol=1e-12)
    # The constant feature: every node's deviations are at rounding (its mean
    # is a weighted average of equal values), far under the threshold: spread 1.
    assert spread[1] == 1.0
    keep = sw > 0
    np.testing.assert_allclose(mean, np.average(X[keep][:, features], axis=0,
                                                weights=sw[keep]), rtol=1e-14)
    # The tree's bytes: K - 1 moments up (2 d + 1 float64), K - 1 moments down
    # (2 d float64), each message with its header.  The engine counts each
    # rank's nodes' messages; the ranks' counts add up to this.
    header = simulation.counter.header_bytes
    assert spent == (K - 1) * (8 * (2 * d + 1) + 8 * 2 * d + 2 * header)
    parts = []
    for nodes in ([0, 1], [2, 3, 4]):
        sim = _simulation(K)
        assert _tree_round_trip(sim, 8 * (2 * d + 1), 8 * 2 * d, nodes=nodes) == spent
        parts.append(sim.counter.snapshot(dense=True)["pair_bytes"])
    np.testing.assert_array_equal(parts[0] + parts[1],
                                  simulation.counter.snapshot(dense=True)["pair_bytes"])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_models_from_the_moments_equal_fit_graph_models_and_split_over_ranks(dtype):
    X, sw, offsets, Y = _nodes(1)
    X, sw, Y = X.astype(dtype), sw.astype(dtype), Y.astype(dtype)
    K = len(offsets) - 1
    selected = np.array([True, True, False, True])
    features = np.flatnonzero(selected)
    seeds = np.array([11, 12, 13, 14, 15, 901, 902], dtype=np.uint32)
    est = SimpleNamespace(base_predictors=None, selected_features_=selected)
    state = SimpleNamespace(Y=Y, dtype=np.dtype(dtype))
    spent = fit_graph_models(est, state, X, sw, SimpleNamespace(n_nodes=K, offsets=offsets),
                             _simulation(K), seeds)
    assert spent > 0 and isinstance(state.sent_models, SentModels)
    np.testing.assert_array_equal(est.kernel_features_, features)
    mean, spread, _ = pooled_moments(X, sw, offsets, features, _simulation(K))
    phi, models = graph_models_from_moments(X, Y, sw, offsets, features, mean, spread, seeds,
                                            K, np.dtype(dtype))
    assert phi.dtype == models.dtype == dtype
    np.testing.assert_array_equal(phi, state.kernel[0])
    np.testing.assert_array_equal(models, state.kernel[1])
    assert models.shape == (K, 1, KERNEL_FEATURES)
    np.testing.assert_allclose(np.linalg.norm(models.astype(float), axis=-1), KERNEL_NORM,
                               rtol=1e-5)
    # A rank holding nodes 2 and 4 only (the others have no rows there) fits
    # the same models for them, bit for bit; the others stay zero.
    rows = np.r_[offsets[2]:offsets[3], offsets[4]:offsets[5]]
    local_offsets = np.zeros(K + 1, dtype=np.intp)
    local_offsets[3:] = offsets[3] - offsets[2]
    local_offsets[5:] += offsets[5] - offsets[4]
    _, local = graph_models_from_moments(X[rows], Y[:, rows], sw[rows], local_offsets,
                                         features, mean, spread, seeds, K, np.dtype(dtype))
    np.testing.assert_array_equal(local[[2, 4]], models[[2, 4]])
    assert not local[[0, 1, 3]].any()
    # Independent reference of node 2's model: the primal normal equations.
    if dtype == np.float64:
        P2 = phi[offsets[2]:offsets[3]]
        s2 = sw[offsets[2]:offsets[3]]
        w = np.linalg.solve(P2.T @ (s2[:, None] * P2) + KERNEL_RIDGE * np.eye(P2.shape[1]),
                            P2.T @ (s2 * Y[0, offsets[2]:offsets[3]]))
        np.testing.assert_allclose(models[2, 0], KERNEL_NORM * w / np.linalg.norm(w),
                                   rtol=1e-7, atol=1e-9)


def test_sent_models_insert_replays_the_graph_steps_pairs():
    sent = SentModels(5)
    assert sent.insert(1, 3) is True
    assert sent.insert(1, 3) is False
    assert sent.contains(1, 3) and not sent.contains(3, 1)
    assert sent.insert(3, 1) is True
    assert sent.n_pairs == 2
    for k in range(5):  # past the first table's capacity: it grows
        for l in range(5):
            if k != l:
                sent.insert(k, l)
    assert sent.n_pairs == 20
    sent.check()
    with pytest.raises(ValueError, match=r"in \[0, 5\), got 5, 0"):
        sent.insert(5, 0)


def test_dense_pair_scores_are_the_log_sum_exp_scores_of_dense_models():
    rng = np.random.default_rng(3)
    sizes = np.array([4, 6, 5])
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    n, D, P = sizes.sum(), 9, 2
    H = rng.normal(size=(n, D))
    Y = np.where(rng.random((P, n)) < 0.5, 1.0, -1.0)
    sw = rng.uniform(0.5, 2.0, n)
    sw[2] = 0.0
    models = rng.normal(size=(3, P * D))
    confidence = np.array([0.5, 1.0, 2.0])
    rows = np.array([0, 0, 1, 2, 2], dtype=np.intp)
    cols = np.array([1, 2, 0, 0, 1], dtype=np.intp)
    dense, sparse_scan = np.zeros(5), np.zeros(5)
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, dense, dense=True)
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, sparse_scan)

    def loss(k, l):
        rows_k = slice(offsets[k], offsets[k + 1])
        keep = sw[rows_k] > 0
        total = 0.0
        for p in range(P):
            margins = -Y[p, rows_k][keep] * (H[rows_k][keep] @ models[l, p * D:(p + 1) * D])
            total += np.log(np.sum(sw[rows_k][keep] * np.exp(margins)))
        return total

    expected = [confidence[k] * (loss(k, l) - loss(k, k)) for k, l in zip(rows, cols)]
    np.testing.assert_allclose(dense, expected, rtol=1e-12)
    np.testing.assert_allclose(sparse_scan, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="dense reads the float H"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, dense,
                    H8=np.ones(H.shape, dtype=np.int8), dense=True)


def test_the_spread_of_a_feature_with_a_large_mean_is_exact():
    """E[z^2] - E[z]^2 cancels for a feature far from 0 (spread 1e-3 at mean
    1e6: all its digits lost); the nodes' deviations from their own means
    keep it to rounding, and a feature constant at 1e6 gets the spread 1."""
    rng = np.random.default_rng(5)
    sizes = np.array([30, 45, 20])
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    n = sizes.sum()
    X = np.column_stack([1e6 + 1e-3 * rng.normal(size=n), np.full(n, 1e6),
                         rng.normal(size=n)])
    sw = rng.uniform(0.5, 2.0, n)
    features = np.arange(3)
    mean, spread, _ = pooled_moments(X, sw, offsets, features, _simulation(3))
    dev = X - np.average(X, axis=0, weights=sw)
    exact = np.sqrt(np.average(dev ** 2, axis=0, weights=sw))
    np.testing.assert_allclose(spread[[0, 2]], exact[[0, 2]], rtol=1e-6)
    assert spread[1] == 1.0
    np.testing.assert_allclose(mean, np.average(X, axis=0, weights=sw), rtol=1e-15)
