"""The Cython client pass of support recovery against a NumPy reference."""

import numpy as np
import pytest
from scipy import sparse

from skfed._core._support_fast import (
    client_pass_csr,
    client_pass_dense,
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
        var = (w[:, None] * (X * y[:, None]) ** 2).sum(axis=0) / W - alpha**2
        threshold = z * np.sqrt(np.maximum(var, 0) / W)
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
    scratch = np.zeros((2, d))
    if csr:
        Xs = sparse.csr_matrix(X)
        client_pass_csr(
            Xs.data, Xs.indices.astype(np.intp), Xs.indptr.astype(np.intp), d, y, w,
            offsets, nodes, lam, z, auto, center, *out, packed, scratch,
        )
    else:
        client_pass_dense(X, y, w, offsets, nodes, lam, z, auto, center, *out, packed, scratch)
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
    lam = np.array([0.5, 1.0, 0.0, 2.0])
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
            if auto:
                # var_t(y x_j) of one sample is 0 up to the rounding of
                # mean(z^2) - mean(z)^2 (then square-rooted).
                assert np.all(threshold[i] < 1e-6)
                threshold[i] = ref[2]
                coef[i], packed[i] = ref[3], np.packbits(ref[4], bitorder="little")
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
