"""Perso-lin's batched join (skfed._graph_join_batch, skfed._core._join_fast)
against its kernels' NumPy references and against the newcomer-by-newcomer
join."""

import copy

import numpy as np
import pytest
from skfed._core._boosting_fast import Logistic, SquaredHinge, lin_local
from skfed._core._join_fast import join_rows, lin_join_steps

import skfed._graph_join as graph_join
from skfed._graph_join_batch import _SymmetricPattern, top_squared_singular_values
from skfed.boosting import PersonalizedLinearClassifier
from skfed.network import SimulatedNetwork

from .test_graph_join import _lin_numpy, _row_numpy


# ------------------------------------------------------------------ kernels
def _rows_numpy(node_models, node_losses, cand_models, cand_losses, cand_degrees, indptr,
                mu, mu_graph, lam, delta, cap, threshold):
    """Each newcomer's row in NumPy: exact row, cap on the smallest pair
    costs and re-solve, then the threshold."""
    out = np.zeros(len(cand_losses))
    for k in range(len(node_models)):
        seg = slice(indptr[k], indptr[k + 1])
        z = ((cand_models[seg] - node_models[k]) ** 2).sum(axis=1)
        pair = 0.5 * mu * z
        a = node_losses[k] + cand_losses[seg] + pair
        d = cand_degrees[seg]
        v = _row_numpy(a, d, 0.0, mu_graph, lam, delta)
        if cap >= 0 and np.count_nonzero(v) > cap:
            pos = np.flatnonzero(v > 0)
            kept = np.sort(pos[np.argsort(pair[pos], kind="stable")[:cap]])
            v = np.zeros_like(v)
            v[kept] = _row_numpy(a[kept], d[kept], 0.0, mu_graph, lam, delta)
        if threshold >= 0 and v.max() > 0:
            v[v < min(threshold, v.max())] = 0.0
        out[seg] = v
    return out


@pytest.mark.parametrize("cap, threshold", [(-1, -1.0), (3, -1.0), (-1, 0.05), (2, 0.02)])
def test_join_rows_equal_numpy_rows(cap, threshold):
    rng = np.random.RandomState(0)
    n_new, D = 4, 3
    lengths = np.array([7, 1, 12, 5])
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    T = indptr[-1]
    node_models = rng.normal(size=(n_new, D))
    cand_models = node_models[np.repeat(np.arange(n_new), lengths)] + rng.normal(
        scale=rng.choice([0.1, 2.0], size=(T, 1)), size=(T, D))
    node_losses = rng.uniform(0.1, 0.6, size=n_new)
    cand_losses = rng.uniform(0.1, 0.6, size=T)
    cand_degrees = rng.uniform(0.0, 0.5, size=T)
    args = (node_models, node_losses, cand_models, cand_losses, cand_degrees, indptr,
            1.0, 0.7, 1.0, 1e-3)
    out = np.full(T, np.nan)
    join_rows(*args, cap, threshold, out)
    expected = _rows_numpy(*args, cap, threshold)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-12)
    assert np.array_equal(out > 0, expected > 0)
    if cap >= 0:
        for k in range(n_new):
            assert np.count_nonzero(out[indptr[k]:indptr[k + 1]]) <= cap
    # no graph term: no weights
    zero = np.full(T, np.nan)
    join_rows(*args[:7], 0.0, 1.0, 1e-3, cap, threshold, zero)
    np.testing.assert_array_equal(zero, 0.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lin_join_steps_equal_numpy_gradient_steps(dtype):
    rng = np.random.RandomState(1)
    counts = np.array([3, 9, 5])
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    m, n, P = offsets[-1], 3, 2
    X = np.ascontiguousarray(np.c_[rng.normal(size=(m, n - 1)), np.ones(m)], dtype=dtype)
    Y = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(P, m)), dtype=dtype)
    sw = np.ascontiguousarray(rng.uniform(0.5, 2.0, size=m), dtype=dtype)
    theta0 = rng.normal(scale=0.3, size=(3, P, n))
    S = rng.normal(size=(3, P, n))
    degree = np.array([0.4, 0.0, 1.3])
    confidence = np.array([0.5, 1.0, 0.8])
    mass = np.add.reduceat(sw.astype(np.float64), offsets[:-1])
    lip = np.array([0.25 * np.linalg.norm(np.sqrt(sw[s].astype(np.float64))[:, None]
                                          * X[s].astype(np.float64), 2) ** 2 / mass[k] + 0.01
                    for k, s in enumerate(slice(offsets[k], offsets[k + 1])
                                          for k in range(3))])
    theta = np.array(theta0, dtype=dtype)  # (a copy: theta0 is the reference's start)
    losses = np.zeros((3, P))
    lin_join_steps(X, Y, sw, offsets, theta, losses, Logistic(), 1.0 / mass, lip, 0.01, n - 1,
                   S, degree, confidence, 0.9, 7)
    tol = 1e-11 if dtype == np.float64 else 1e-5
    for k in range(3):
        s = slice(offsets[k], offsets[k + 1])
        expected = _lin_numpy(X[s].astype(np.float64), Y[:, s].astype(np.float64),
                              sw[s].astype(np.float64), theta0[k].astype(dtype), S[k],
                              degree[k], confidence[k], 0.9, 0.01, n - 1, lip[k], 7)
        np.testing.assert_allclose(theta[k], expected, rtol=tol, atol=tol)
        for p in range(P):
            z = Y[p, s] * (X[s] @ theta[k, p]).astype(np.float64)
            F = (sw[s] @ np.log1p(np.exp(-z)) / mass[k]
                 + 0.005 * np.sum(theta[k, p, :n - 1].astype(np.float64) ** 2))
            np.testing.assert_allclose(losses[k, p], F, rtol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("loss", [Logistic(), SquaredHinge()], ids=["logistic", "sq-hinge"])
def test_lin_local_steps_equal_numpy(dtype, loss):
    # The private local phase's plain gradient steps (lin_local; the join
    # kernel that repeated them bit for bit was removed when the
    # non-private local models became solved ones): a zero-weight sample
    # and a node of one sample included; NumPy's gradient steps.
    rng = np.random.RandomState(4)
    counts = np.array([4, 1, 11, 6])
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    m, n, P = offsets[-1], 4, 3
    X = np.ascontiguousarray(np.c_[rng.normal(size=(m, n - 1)), np.ones(m)], dtype=dtype)
    Y = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(P, m)), dtype=dtype)
    sw = rng.uniform(0.5, 2.0, size=m)
    sw[7] = 0.0
    sw = np.ascontiguousarray(sw, dtype=dtype)
    mass = np.add.reduceat(sw.astype(np.float64), offsets[:-1])
    lip = rng.uniform(0.5, 2.0, size=4)
    theta0 = np.array(rng.normal(scale=0.3, size=(4, P, n)), dtype=dtype)
    fit = theta0.copy()
    fit_losses = np.zeros((4, P))
    lin_local(X, Y, sw, offsets, fit, loss, 1.0 / mass, lip, 0.02, n - 1, fit_losses, 9, 0, 4)
    assert not np.array_equal(fit, theta0)
    if isinstance(loss, Logistic):
        tol = 1e-11 if dtype == np.float64 else 1e-5
        for k in range(4):
            s = slice(offsets[k], offsets[k + 1])
            expected = _lin_numpy(X[s].astype(np.float64), Y[:, s].astype(np.float64),
                                  sw[s].astype(np.float64), theta0[k], np.zeros((P, n)),
                                  0.0, 1.0, 0.0, 0.02, n - 1, lip[k], 9)
            np.testing.assert_allclose(fit[k], expected, rtol=tol, atol=tol)


def test_top_squared_singular_values_equal_numpy_norms():
    # segments shorter and longer than the row width, of repeated and
    # single lengths, and an empty one
    rng = np.random.RandomState(3)
    lengths = np.array([2, 5, 0, 2, 9, 5, 1, 4])
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    R = rng.normal(size=(offsets[-1], 4))
    top = top_squared_singular_values(R, offsets)
    expected = [np.linalg.norm(R[offsets[k]:offsets[k + 1]], 2) ** 2 if lengths[k] else 0.0
                for k in range(len(lengths))]
    np.testing.assert_allclose(top, expected, rtol=1e-12, atol=1e-14)
    assert top[2] == 0.0 and top.shape == (8,)
    # Segments of one length back to back (the view path), wide and tall,
    # and rows past the last segment ignored.
    for m, width in [(3, 4), (6, 4), (4, 4)]:
        R = rng.normal(size=(5 * m + 2, width))
        offsets = np.arange(0, 5 * m + 1, m).astype(np.intp)
        top = top_squared_singular_values(R, offsets)
        expected = [np.linalg.norm(R[k * m:(k + 1) * m], 2) ** 2 for k in range(5)]
        np.testing.assert_allclose(top, expected, rtol=1e-12, atol=1e-14)
        # the same numbers as the general path (segments gathered one length at a time)
        shifted = top_squared_singular_values(np.vstack([R[:1], R]), offsets + 1)
        np.testing.assert_array_equal(top, shifted)


def test_symmetric_pattern_equals_scipy_mean_of_both_rows():
    from scipy import sparse

    rows = np.array([0, 0, 1, 2, 3, 3], dtype=np.intp)
    cols = np.array([1, 3, 0, 0, 1, 2], dtype=np.intp)
    values = np.array([0.4, 0.0, 0.2, 0.7, 0.1, 0.3])
    W, (k, j) = _SymmetricPattern(rows, cols, 5).matrix(values)
    V = sparse.csr_matrix((values, (rows, cols)), shape=(5, 5))
    expected = (0.5 * (V + V.T)).toarray()
    np.testing.assert_array_equal(W.toarray(), expected)
    # the links: every positive weight, row by row (0-3 has weight 0)
    pk, pj = np.nonzero(expected > 0)
    np.testing.assert_array_equal(k, pk)
    np.testing.assert_array_equal(j, pj)
    assert (0, 3) not in set(zip(k.tolist(), j.tolist())) and len(k) == 8


@pytest.mark.parametrize("scale, lam, mu_graph", [
    (1e-4, 1e-3, 1.0),    # nearly free pairs, weak square penalty: large weights
    (3.0, 1.0, 0.5),      # costly pairs, small graph weight: 6 of 58 weights positive
    (1.0, 100.0, 3.0),    # strong square penalty: many small weights
])
def test_join_rows_newton_root_at_extreme_scales(scale, lam, mu_graph):
    # the row's degree is found by bracketed Newton steps: the same row as
    # the NumPy bisection where weights are huge, tiny or mostly zero
    rng = np.random.RandomState(5)
    lengths = np.array([40, 3, 15])
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    T = indptr[-1]
    node_models = scale * rng.normal(size=(3, 2))
    cand_models = node_models[np.repeat(np.arange(3), lengths)] + scale * rng.normal(
        size=(T, 2))
    args = (node_models, scale * rng.uniform(0.1, 0.6, size=3), cand_models,
            scale * rng.uniform(0.1, 0.6, size=T), rng.uniform(0.0, 2.0, size=T), indptr,
            1.0, mu_graph, lam, 1e-3)
    out = np.full(T, np.nan)
    join_rows(*args, -1, -1.0, out)
    expected = _rows_numpy(*args, -1, -1.0)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-12 * max(1.0, expected.max()))
    assert np.array_equal(out > 0, expected > 0)


# ------------------------------------------- the batched join = node by node
def _clusters(seed, n_nodes=24, n_new=6):
    """Two clusters of tasks; the newcomers hold 4 to 30 samples (both
    sides of the fitted nodes' mean: some sample each other)."""
    rng = np.random.RandomState(seed)
    counts = np.concatenate([rng.randint(6, 16, size=n_nodes - n_new),
                             [4, 30, 25, 8, 20, 18][:n_new]])
    groups = np.repeat(np.arange(n_nodes), counts)
    X = rng.normal(size=(len(groups), 2))
    flip = np.where(np.arange(n_nodes) % 2 == 0, 1.0, -1.0)[groups]
    y = (flip * X[:, 0] + 0.3 * X[:, 1] + 0.3 * rng.normal(size=len(groups)) > 0).astype(int)
    return X, y, groups, groups >= n_nodes - n_new


def _both_ways(params, n_new=6, dtype=np.float64):
    X, y, groups, new = _clusters(0, n_new=n_new)
    X = X.astype(dtype)
    # (the graph join: the feature-mean gate opens by chance on this seed)
    est = PersonalizedLinearClassifier(random_state=0, join_neighbours="graph", **params).fit(
        X[~new], y[~new], groups=groups[~new])
    before = copy.deepcopy(est)
    batched = copy.deepcopy(est).add_nodes(X[new], y[new], groups=groups[new])
    one_by_one = graph_join.graph_join_nodes(copy.deepcopy(est), X[new], y[new], groups[new],
                                             one_by_one=True)
    return before, batched, one_by_one


@pytest.mark.parametrize("params", [
    {},  # the defaults: graph learned once, cap 10, sparsified
    dict(graph_update_every="n_nodes"),  # re-solves every 25 steps
    dict(max_neighbors=None, sparsify_graph=None),
    dict(network=SimulatedNetwork(drop_rate=0.3, random_state=2)),
], ids=["defaults", "resolve", "uncapped", "drops"])
def test_batched_join_equals_the_newcomer_by_newcomer_join(params):
    before, batched, one_by_one = _both_ways(params)
    K = len(before.nodes_)
    for est in (batched, one_by_one):
        np.testing.assert_array_equal(est.coef_[:K], before.coef_)
        np.testing.assert_array_equal(est.collaboration_graph_[:K, :K].toarray(),
                                      before.collaboration_graph_.toarray())
    np.testing.assert_allclose(batched.coef_, one_by_one.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(batched.intercept_, one_by_one.intercept_, rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(batched.confidence_, one_by_one.confidence_, rtol=1e-12)
    G, H = batched.collaboration_graph_.toarray(), one_by_one.collaboration_graph_.toarray()
    # no explicit zero kept in the joined graph
    assert batched.collaboration_graph_.nnz == np.count_nonzero(G)
    np.testing.assert_allclose(G, H, rtol=1e-9, atol=1e-12)
    assert np.array_equal(G > 0, H > 0)
    if "network" not in params:
        # some newcomers linked to each other (the heavy ones), not all
        assert (G[K:, K:] > 0).any() and not (G[K:, K:] > 0).all()
    # the same messages
    a, b = batched.join_communication_, one_by_one.join_communication_
    assert a.total_bytes == b.total_bytes and a.total_messages == b.total_messages
    np.testing.assert_array_equal(a.bytes_per_round, b.bytes_per_round)
    assert (a.pair_bytes_sparse != b.pair_bytes_sparse).nnz == 0
    for key in ("losses", "graph_models"):
        x, z = batched._join_info[key], one_by_one._join_info[key]
        if x is None:
            assert z is None
        else:
            np.testing.assert_allclose(x, z, rtol=1e-9, atol=1e-12)


def test_batched_join_in_float32_and_of_one_newcomer():
    before, batched, one_by_one = _both_ways({}, dtype=np.float32)
    assert batched.coef_.dtype == np.float32
    np.testing.assert_allclose(batched.coef_, one_by_one.coef_, rtol=1e-4, atol=1e-5)
    before, batched, one_by_one = _both_ways({}, n_new=1)
    np.testing.assert_allclose(batched.coef_, one_by_one.coef_, rtol=1e-9, atol=1e-12)
    assert batched.join_communication_.total_bytes == one_by_one.join_communication_.total_bytes


@pytest.mark.parametrize("seed", range(6))
def test_connected_threshold_of_the_join_equals_the_graph_modules(seed):
    # Kruskal's forest in Cython against the SciPy spanning tree of
    # skfed.graph: random symmetric graphs with two to four components, tied
    # weights (seeds 3-5 draw from 4 values), explicit zeros and isolated nodes.
    from scipy import sparse

    from skfed._graph_join_fitted import connected_threshold as _connected_threshold
    from skfed.graph import connected_threshold

    rng = np.random.RandomState(seed)
    n = 40
    block = rng.randint(2 + seed % 3, size=n)
    dense = rng.uniform(0.01, 1.0, size=(n, n)) * (rng.uniform(size=(n, n)) < 0.2)
    if seed >= 3:
        dense = np.where(dense > 0, rng.choice([0.1, 0.2, 0.3, 0.5], size=(n, n)), 0.0)
    dense = np.triu(dense * (block[:, None] == block[None, :]), 1)
    dense[:, -3:] = dense[-3:, :] = 0.0  # isolated
    dense = dense + dense.T
    W = sparse.csr_matrix(dense)
    W.data[::7] = 0.0  # explicit zeros stay in the pattern
    if seed == 0:
        W.eliminate_zeros()
    pattern = (W.indptr.copy(), W.indices.copy(), W.data.copy())
    expected = connected_threshold(W)
    assert expected > 0
    assert _connected_threshold(W) == expected
    for before, after in zip(pattern, (W.indptr, W.indices, W.data)):  # W untouched
        np.testing.assert_array_equal(before, after)
    # the threshold keeps the components; just above it one splits
    clean = W.copy()
    clean.eliminate_zeros()
    n_comp = sparse.csgraph.connected_components(clean)[0]
    kept = W.multiply(W >= expected)
    assert sparse.csgraph.connected_components(kept)[0] == n_comp
    above = W.multiply(W > expected)
    assert sparse.csgraph.connected_components(above)[0] > n_comp
    assert _connected_threshold(sparse.csr_matrix((n, n))) == 0.0


def test_csr_products_and_row_sums_equal_scipys_bit_for_bit():
    # The batched join's W @ models and W.sum(axis=1) on raw CSR arrays:
    # the same bits as SciPy's (explicit zeros and empty rows included).
    from scipy import sparse
    from skfed._core._join_fast import csr_times_dense

    from skfed._graph_join_fitted import row_sums

    rng = np.random.RandomState(2)
    dense = rng.uniform(-1.0, 1.0, size=(7, 30)) * (rng.uniform(size=(7, 30)) < 0.5)
    dense[3] = 0.0
    W = sparse.csr_matrix(dense)
    W.data[::4] = 0.0  # explicit zeros
    B = rng.normal(size=(30, 5)) * 10.0 ** rng.randint(-8, 8, size=(30, 1))
    out = np.full((7, 5), np.nan)
    csr_times_dense(W.indptr.astype(np.intp), W.indices.astype(np.intp), W.data, B, out)
    np.testing.assert_array_equal(out, W @ B)
    np.testing.assert_array_equal(row_sums(W.data, W.indptr),
                                  np.asarray(W.sum(axis=1)).ravel())
    assert out[3].tolist() == [0.0] * 5
    np.testing.assert_allclose(out, W.toarray() @ B, rtol=1e-9, atol=1e-9 * np.abs(B).max())
