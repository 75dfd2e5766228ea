"""The Cython client pass of support recovery against a NumPy reference."""

import numpy as np
import pytest
from scipy import sparse

from skfed._core._support_fast import (
    client_ols_csr,
    client_ols_dense,
    client_pass_csr,
    client_pass_dense,
    ols_work_shape,
    pack_bits,
    refit_statistics,
    tally_votes,
    unpack_bits,
)


def reference_client(X, y, w, lam, z, auto, center):
    """The client's statistics by the textbook formulas, with NumPy."""
    W = w.sum()
    if center:
        X = X - np.average(X, axis=0, weights=w)
        y = y - np.average(y, weights=w)
    sigma = (w[:, None] * X**2).sum(axis=0) / W
    alpha = (w[:, None] * X * y[:, None]).sum(axis=0) / W
    if auto:
        # lam is the critical correlation: |corr(x_j, y)| > lam.
        var_y = (w * y**2).sum() / W
        threshold = lam * np.sqrt(sigma * var_y)
    else:
        threshold = np.full(X.shape[1], lam)
    bits = np.abs(alpha) > threshold
    with np.errstate(divide="ignore", invalid="ignore"):
        coef = np.where(
            bits, np.sign(alpha) * (np.abs(alpha) - threshold) / sigma, 0.0
        )
    return sigma, alpha, threshold, coef, bits


def run(X, y, w, offsets, lam, z, auto, center, *, csr=False, nodes=None):
    n_nodes = len(offsets) - 1
    d = X.shape[1]
    out = [np.full((n_nodes, d), np.nan) for _ in range(4)]
    packed = np.full((n_nodes, (d + 7) // 8), 255, dtype=np.uint8)
    nodes = np.arange(n_nodes, dtype=np.intp) if nodes is None else nodes
    scratch = np.zeros((1, d))
    if csr:
        Xs = sparse.csr_matrix(X)
        client_pass_csr(
            Xs.data, Xs.indices.astype(np.intp), Xs.indptr.astype(np.intp), d, y, w,
            offsets, nodes, lam, auto, center, *out, packed, scratch,
        )
    else:
        client_pass_dense(X, y, w, offsets, nodes, lam, auto, center, *out, packed, scratch)
    return (*out, packed)


def make_data(n=157, d=45, seed=0, dtype=np.float64, sparsity=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=2.0, size=(n, d))
    if sparsity:
        X[rng.uniform(size=X.shape) < sparsity] = 0.0
    y = X[:, 3] - 2 * X[:, 10] + rng.normal(size=n) + 1.5
    w = rng.uniform(0.2, 3.0, size=n)
    offsets = np.array([0, 9, 60, 61, n], dtype=np.intp)  # a one-sample node too
    return X.astype(dtype), y.astype(dtype), w.astype(dtype), offsets


@pytest.mark.parametrize("csr", [False, True])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("auto", [False, True])
def test_client_statistics_match_numpy(auto, center, csr):
    X, y, w, offsets = make_data(sparsity=0.3 if csr else 0.0)
    lam = np.array([0.5, 1.0, 0.0, 2.0]) if not auto else np.array([0.3, 0.1, 0.0, 0.2])
    sigma, alpha, threshold, coef, packed = run(X, y, w, offsets, lam, 1.7, auto, center, csr=csr)
    d = X.shape[1]
    for i in range(len(offsets) - 1):
        rows = slice(offsets[i], offsets[i + 1])
        ref = reference_client(X[rows], y[rows], w[rows], lam[i], 1.7, auto, center)
        if offsets[i + 1] - offsets[i] == 1:
            if center:
                # One sample: every centred feature is constant (all zero).
                assert np.all(sigma[i] == 0) and np.all(alpha[i] == 0)
                assert not packed[i].any()
                continue
        np.testing.assert_allclose(sigma[i], ref[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(alpha[i], ref[1], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(threshold[i], ref[2], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(coef[i], ref[3], rtol=1e-10, atol=1e-12)
        bits = np.unpackbits(packed[i], bitorder="little", count=d).astype(bool)
        np.testing.assert_array_equal(bits, ref[4])
        np.testing.assert_array_equal(packed[i], np.packbits(ref[4], bitorder="little"))


@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("auto", [False, True])
def test_csr_equals_dense(auto, center):
    X, y, w, offsets = make_data(n=300, d=70, sparsity=0.6, seed=3)
    lam = np.array([0.3, 0.3, 0.3, 0.3])
    dense = run(X, y, w, offsets, lam, 2.0, auto, center)
    csr = run(X, y, w, offsets, lam, 2.0, auto, center, csr=True)
    for a, b in zip(dense[:4], csr[:4]):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-13)
    np.testing.assert_array_equal(dense[4], csr[4])


def test_float32_close_to_float64():
    X, y, w, offsets = make_data(seed=5)
    lam = np.full(4, 0.5)
    ref = run(X, y, w, offsets, lam, 2.0, True, True)
    got = run(X.astype(np.float32), y.astype(np.float32), w.astype(np.float32), offsets,
              lam, 2.0, True, True)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-4, atol=1e-5)


def test_constant_feature_is_never_selected_when_centred():
    X, y, w, offsets = make_data(seed=1)
    X[:, 7] = 3.3  # constant, with a mean far from zero
    X[:, 8] = 0.0
    lam = np.zeros(4)
    for csr in (False, True):
        sigma, alpha, threshold, coef, packed = run(X, y, w, offsets, lam, 1.0, True, True, csr=csr)
        bits = np.unpackbits(packed, axis=1, bitorder="little", count=X.shape[1])
        assert np.all(sigma[:, 7] == 0) and np.all(alpha[:, 7] == 0)
        assert not bits[:, 7].any() and not bits[:, 8].any()
        # Without centring the constant column carries the mean of y.
        _, alpha_raw, *_ = run(X, y, w, offsets, lam, 1.0, False, False, csr=csr)
        for i in range(4):
            rows = slice(offsets[i], offsets[i + 1])
            np.testing.assert_allclose(
                alpha_raw[i, 7], 3.3 * np.average(y[rows], weights=w[rows]), rtol=1e-12
            )


def test_unit_weights_are_plain_means_and_partial_node_list():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 9))
    y = rng.normal(size=50)
    w = np.ones(50)
    offsets = np.array([0, 20, 50], dtype=np.intp)
    out = run(X, y, w, offsets, np.array([0.1, 0.1]), 1.0, False, False,
              nodes=np.array([1], dtype=np.intp))
    np.testing.assert_allclose(out[1][1], X[20:].T @ y[20:] / 30, rtol=1e-12)
    np.testing.assert_allclose(out[0][1], (X[20:] ** 2).mean(axis=0), rtol=1e-12)
    # Node 0 was not processed: its rows are left as they were.
    assert np.all(np.isnan(out[0][0]))


def test_zero_weight_node_sends_nothing():
    X, y, w, offsets = make_data()
    w[offsets[1] : offsets[2]] = 0.0
    out = run(X, y, w, offsets, np.zeros(4), 1.0, True, True)
    assert np.all(out[1][1] == 0) and not out[4][1].any()


@pytest.mark.parametrize("d", [1, 7, 8, 9, 64, 131])
def test_pack_unpack_tally(d):
    rng = np.random.default_rng(d)
    bits = (rng.uniform(size=(6, d)) < 0.4).astype(np.uint8)
    packed = np.full((6, (d + 7) // 8), 77, dtype=np.uint8)
    pack_bits(bits, packed)
    np.testing.assert_array_equal(packed, np.packbits(bits, axis=1, bitorder="little"))
    back = np.zeros_like(bits)
    unpack_bits(packed, back)
    np.testing.assert_array_equal(back, bits)
    senders = np.array([0, 2, 5], dtype=np.intp)
    votes = np.full(d, -1, dtype=np.int64)
    tally_votes(packed, senders, votes)
    np.testing.assert_array_equal(votes, bits[senders].sum(axis=0))


def test_read_only_inputs():
    X, y, w, offsets = make_data()
    for a in (X, y, w, offsets):
        a.setflags(write=False)
    out = run(X, y, w, offsets, np.full(4, 0.5), 2.0, True, True)
    assert np.isfinite(out[1]).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("center, add_intercept", [(True, False), (False, True), (False, False)])
def test_refit_statistics_equal_per_node_numpy(dtype, center, add_intercept):
    rng = np.random.default_rng(3)
    sizes = np.array([5, 1, 9, 4])
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    n, s = offsets[-1], 3
    XS = rng.normal(size=(n, s)).astype(dtype)
    y = rng.normal(size=n).astype(dtype)
    w = rng.uniform(0.5, 2.0, size=n).astype(dtype)
    means = np.array([
        np.average(np.column_stack([y, XS])[a:b].astype(np.float64), axis=0, weights=w[a:b])
        for a, b in zip(offsets[:-1], offsets[1:])
    ])
    nodes = np.array([2, 0, 3], dtype=np.intp)
    m = s + add_intercept
    iu = np.triu_indices(m)
    out = np.full((len(nodes), len(iu[0]) + m), np.nan)
    refit_statistics(XS, y, w, offsets, nodes, means, center, add_intercept, out, np.zeros(m))
    for k, i in enumerate(nodes):
        a, b = offsets[i], offsets[i + 1]
        Z, r, wi = XS[a:b].astype(np.float64), y[a:b].astype(np.float64), w[a:b].astype(np.float64)
        if center:
            Z, r = Z - means[i, 1:], r - means[i, 0]
        if add_intercept:
            Z = np.column_stack([np.ones(b - a), Z])
        G = Z.T @ (wi[:, None] * Z)
        np.testing.assert_allclose(out[k], np.concatenate([G[iu], Z.T @ (wi * r)]), rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------- OLS clients
def run_ols(X, y, w, offsets, df, tcrit, center, *, csr=False):
    n_nodes = len(offsets) - 1
    d = X.shape[1]
    out = [np.full((n_nodes, d), np.nan) for _ in range(4)]
    packed = np.full((n_nodes, (d + 7) // 8), 255, dtype=np.uint8)
    solved = np.full(n_nodes, 7, dtype=np.uint8)
    nodes = np.arange(n_nodes, dtype=np.intp)
    work = np.zeros(ols_work_shape(d))
    if csr:
        Xs = sparse.csr_matrix(X)
        client_ols_csr(Xs.data, Xs.indices.astype(np.intp), Xs.indptr.astype(np.intp), d,
                       y, w, offsets, nodes, df, tcrit, center, *out, packed, solved, work)
    else:
        client_ols_dense(X, y, w, offsets, nodes, df, tcrit, center, *out, packed, solved,
                         work)
    return (*out, packed, solved)


def reference_ols(X, y, w, df, tcrit, center):
    """Weighted least squares and its t statistics with numpy.linalg."""
    if center:
        X = X - np.average(X, axis=0, weights=w)
        y = y - np.average(y, weights=w)
    G = X.T @ (w[:, None] * X)
    beta = np.linalg.solve(G, X.T @ (w * y))
    rss = np.sum(w * (y - X @ beta) ** 2)
    se = np.sqrt(rss / df * np.diag(np.linalg.inv(G)))
    return beta, tcrit * se, np.abs(beta / se) > tcrit


@pytest.mark.parametrize("csr", [False, True])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("d", [1, 9, 70])
def test_ols_client_matches_numpy(d, center, csr):
    rng = np.random.default_rng(d)
    sizes = np.array([d + 5, d + 40, 3 * d + 7])
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    n = offsets[-1]
    X = rng.normal(loc=2.0, size=(n, d))
    if csr:
        X[rng.uniform(size=X.shape) < 0.3] = 0.0
    y = X[:, 0] - 0.3 * X[:, d // 2] + rng.normal(size=n) + 4.0
    w = rng.uniform(0.3, 2.5, size=n)
    df = sizes - d - float(center)
    tcrit = np.array([0.7, 1.3, 2.1])
    *out, packed, solved = run_ols(X, y, w, offsets, df, tcrit, center, csr=csr)
    assert np.all(solved == 1)
    for i in range(3):
        rows = slice(offsets[i], offsets[i + 1])
        beta, thr, bits = reference_ols(X[rows], y[rows], w[rows], df[i], tcrit[i], center)
        np.testing.assert_allclose(out[3][i], beta, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(out[2][i], thr, rtol=1e-8)
        np.testing.assert_array_equal(
            packed[i], np.packbits(bits, bitorder="little")
        )


@pytest.mark.parametrize("csr", [False, True])
def test_ols_singular_gram_pivots_in_column_order(csr):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    X[30:, 4] = 2 * X[30:, 1] - X[30:, 2]   # collinear on node 1
    X[:30, 3] = 1.5                          # constant on node 0 (centred: zero)
    y = rng.normal(size=60) + X[:, 0]
    w = rng.uniform(0.5, 2.0, size=60)
    offsets = np.array([0, 30, 60], dtype=np.intp)
    df = np.array([24.0, 24.0])
    out = run_ols(X, y, w, offsets, df, np.ones(2), True, csr=csr)
    np.testing.assert_array_equal(out[5], [2, 2])
    assert out[4].tolist() == [[0], [0]]  # the caller sets the pivoted bits
    # node 0 drops the constant column 3, node 1 the last of the collinear ones
    assert np.isnan(out[3][0]).tolist() == [False, False, False, True, False]
    assert np.isnan(out[3][1]).tolist() == [False, False, False, False, True]
    for i, drop in ((0, 3), (1, 4)):
        s = slice(offsets[i], offsets[i + 1])
        keep = [j for j in range(5) if j != drop]
        # weighted OLS with an explicit intercept on the kept columns,
        # residual variance over 30 - 1 - 4 = df + 1 degrees of freedom
        sw = np.sqrt(w[s])
        A = np.column_stack([np.ones(30), X[s][:, keep]]) * sw[:, None]
        coef, rss = np.linalg.lstsq(A, y[s] * sw, rcond=None)[:2]
        se = np.sqrt(rss[0] / 25 * np.diag(np.linalg.inv(A.T @ A)))[1:]
        np.testing.assert_allclose(out[3][i][keep], coef[1:], rtol=1e-8)
        np.testing.assert_allclose(out[2][i][keep], se, rtol=1e-8)  # threshold = se
    # A column constant on every row (not centred: zero) is dropped too.
    Z = X[:30].copy()
    Z[:, 2] = 0.0
    out = run_ols(Z, y[:30], np.ones(30), offsets[:2], np.array([25.0]), np.ones(1), False)
    assert out[5][0] == 2 and np.isnan(out[3][0, 2])
    # Without centring the constant (non-zero) column is a regressor like any other.
    out = run_ols(X[:30], y[:30], np.ones(30), offsets[:2], np.array([25.0]), np.ones(1), False)
    assert out[5][0] == 1


def test_ols_float32_close_and_read_only():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 12))
    y = X[:, 3] + rng.normal(size=200)
    w = np.ones(200)
    offsets = np.array([0, 80, 200], dtype=np.intp)
    df, tcrit = np.array([67.0, 107.0]), np.ones(2)
    ref = run_ols(X, y, w, offsets, df, tcrit, True)
    args = [a.astype(np.float32) for a in (X, y, w)]
    for a in args:
        a.setflags(write=False)
    got = run_ols(*args, offsets, df, tcrit, True)
    np.testing.assert_allclose(got[3], ref[3], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[2], ref[2], rtol=1e-4)
