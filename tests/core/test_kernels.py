"""The Cython kernels of skfed._core._kernels against sklearn.metrics.pairwise.

Everything here calls the compiled functions directly (no validation layer):
kernel_block through pairwise_kernel_fast, and kernel_pair, kernel_row,
kernel_block_sq_norms and sq_row_norms through their ``py_*`` wrappers.
"""

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import pairwise

from skfed._core import _kernels

LINEAR, RBF, POLY, SIGMOID, LAPLACIAN = range(5)
KINDS = {"linear": LINEAR, "rbf": RBF, "poly": POLY, "sigmoid": SIGMOID, "laplacian": LAPLACIAN}


def sklearn_kernel(name, X, Y, gamma, coef0, degree):
    """The reference: scikit-learn's pairwise kernel of the same name."""
    if name == "linear":
        return pairwise.linear_kernel(X, Y)
    if name == "rbf":
        return pairwise.rbf_kernel(X, Y, gamma=gamma)
    if name == "poly":
        return pairwise.polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0)
    if name == "sigmoid":
        return pairwise.sigmoid_kernel(X, Y, gamma=gamma, coef0=coef0)
    return pairwise.laplacian_kernel(X, Y, gamma=gamma)


def fast_kernel(name, X, Y, gamma, coef0, degree):
    out = np.empty((X.shape[0], Y.shape[0]), dtype=X.dtype)
    _kernels.pairwise_kernel_fast(X, Y, KINDS[name], gamma, coef0, degree, out)
    return out


@contextmanager
def tiles_of(n_rows, n_y, itemsize):
    """Set the tile budget so that tiles have ``n_rows`` rows of X.

    Tiles are at most 4096 columns wide; with fewer than 4 * n_features
    rows the kernels switch to 4096-row tiles (the gemm-bound path).
    """
    previous = _kernels._set_tile_bytes(n_rows * min(n_y, 4096) * itemsize)
    try:
        yield
    finally:
        _kernels._set_tile_bytes(previous)


@pytest.fixture(params=[True, False], ids=["simd_exp", "libm_exp"])
def exp_impl(request):
    """Run a test with the AVX2 exp loops (where available) and with libm."""
    before = _kernels._SIMD_MATH
    _kernels._use_simd_math(request.param)
    yield request.param
    _kernels._use_simd_math(before)


# (n_x, n_y, n_features): tiny, odd, n_features=1, several cache tiles
# (tiles of max(16, 4 * n_features) rows below), more columns than the widest
# tile (4096), more rows than the tallest tile (4096).
SHAPES = [(1, 1, 1), (7, 5, 3), (33, 17, 1), (101, 67, 13), (260, 130, 40),
          (5, 4100, 3), (4100, 3, 2)]


def small_tiles(shape, dtype=np.float64):
    n_x, n_y, n_features = shape
    return tiles_of(max(16, 4 * n_features), n_y, np.dtype(dtype).itemsize)
# (gamma, coef0, degree): integer and fractional degrees, negative coef0.
PARAMS = [(0.1, 1.0, 3.0), (0.73, -0.4, 2.0), (0.02, 2.5, 2.5)]


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("params", PARAMS)
def test_block_matches_sklearn_float64(name, shape, params, exp_impl):
    n_x, n_y, n_features = shape
    gamma, coef0, degree = params
    rng = np.random.default_rng(n_x + 7 * n_y + n_features)
    X = rng.standard_normal((n_x, n_features))
    Y = rng.standard_normal((n_y, n_features))
    expected = sklearn_kernel(name, X, Y, gamma, coef0, degree)
    with small_tiles(shape):
        K = fast_kernel(name, X, Y, gamma, coef0, degree)
    assert_allclose(K, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("tile_rows", [44, 100, 4096])
def test_symmetric_block_matches_sklearn(name, tile_rows):
    """X against itself: half the tiles, mirrored; exactly symmetric."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((203, 11))
    with tiles_of(tile_rows, 203, 8):
        K = fast_kernel(name, X, X, 0.09, 0.5, 3.0)
    expected = sklearn_kernel(name, X, None, 0.09, 0.5, 3.0)
    assert_allclose(K, expected, rtol=1e-12, atol=1e-12)
    assert_array_equal(K, K.T)
    if name in ("rbf", "laplacian"):
        assert_array_equal(np.diag(K), 1.0)


@pytest.mark.parametrize("n_features", [30, 700])
def test_large_n_features_uses_tall_tiles_and_matches(n_features):
    # A budget of fewer than 4 * n_features rows: the gemm-bound path, with
    # tiles of 4096 rows (two of them for 4100 rows).
    rng = np.random.default_rng(4)
    n_x = 4100 if n_features == 30 else 300
    X = rng.standard_normal((n_x, n_features))
    Y = rng.standard_normal((90, n_features))
    with tiles_of(16, 90, 8):
        for name in KINDS:
            assert_allclose(fast_kernel(name, X, Y, 1 / n_features, 1.0, 2.0),
                            sklearn_kernel(name, X, Y, 1 / n_features, 1.0, 2.0),
                            rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("shape", [(7, 5, 3), (33, 17, 1), (260, 130, 40), (5, 4100, 3)])
def test_block_float32_agrees_with_float64(name, shape, exp_impl):
    n_x, n_y, n_features = shape
    rng = np.random.default_rng(11)
    X = rng.standard_normal((n_x, n_features)).astype(np.float32)
    Y = rng.standard_normal((n_y, n_features)).astype(np.float32)
    gamma = 1.0 / n_features
    with small_tiles(shape, np.float32):
        K = fast_kernel(name, X, Y, gamma, 1.0, 3.0)
    assert K.dtype == np.float32
    expected = sklearn_kernel(name, X.astype(np.float64), Y.astype(np.float64),
                              gamma, 1.0, 3.0)
    assert_allclose(K, expected, rtol=1e-5, atol=1e-5)


def test_float32_rbf_far_from_origin():
    # ||x||^2 ~ 1e7 while ||x - y||^2 ~ 20: the expanded float32 distance is
    # all rounding error, so the cancellation guard must recompute it.
    rng = np.random.default_rng(5)
    X = (1000.0 + rng.standard_normal((40, 10))).astype(np.float32)
    Y = (1000.0 + rng.standard_normal((30, 10))).astype(np.float32)
    K = fast_kernel("rbf", X, Y, 0.1, 0.0, 1.0)
    expected = pairwise.rbf_kernel(X.astype(np.float64), Y.astype(np.float64), gamma=0.1)
    assert_allclose(K, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", list(KINDS))
def test_read_only_inputs(name, dtype):
    rng = np.random.default_rng(6)
    X = rng.standard_normal((20, 4)).astype(dtype)
    Y = rng.standard_normal((9, 4)).astype(dtype)
    expected = fast_kernel(name, X, Y, 0.3, 1.0, 2.0)
    X.setflags(write=False)
    Y.setflags(write=False)
    assert_array_equal(fast_kernel(name, X, Y, 0.3, 1.0, 2.0), expected)
    # Read-only and the same array: the symmetric path.
    assert_allclose(fast_kernel(name, X, X, 0.3, 1.0, 2.0),
                    sklearn_kernel(name, X.astype(np.float64), None, 0.3, 1.0, 2.0),
                    rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-6)])
@pytest.mark.parametrize("name", list(KINDS))
def test_kernel_pair_and_row_equal_block(name, dtype, rtol):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((13, 6)).astype(dtype)
    Y = rng.standard_normal((300, 6)).astype(dtype)
    args = (KINDS[name], 0.2, 0.7, 3.0)
    K = fast_kernel(name, X, Y, *args[1:])
    pairs = np.array([[_kernels.py_kernel_pair(x, y, *args) for y in Y] for x in X])
    assert_allclose(pairs, K, rtol=rtol, atol=rtol)
    for i in (0, 5, 12):
        row = np.empty(Y.shape[0], dtype=dtype)
        _kernels.py_kernel_row(X[i], Y, *args, row)
        assert_allclose(row, K[i], rtol=rtol, atol=rtol)
        assert_array_equal(row, pairs[i].astype(dtype))


def test_kernel_pair_closed_forms():
    x = np.array([1.0, 2.0, -1.0])
    y = np.array([0.5, -1.0, 3.0])
    dot, sq, l1 = x @ y, np.sum((x - y) ** 2), np.sum(np.abs(x - y))
    assert _kernels.py_kernel_pair(x, y, LINEAR, 0.0, 0.0, 0.0) == pytest.approx(dot, rel=1e-15)
    assert _kernels.py_kernel_pair(x, y, RBF, 0.3, 0.0, 0.0) == pytest.approx(
        np.exp(-0.3 * sq), rel=1e-15)
    assert _kernels.py_kernel_pair(x, y, POLY, 0.5, 2.0, 3.0) == pytest.approx(
        (0.5 * dot + 2.0) ** 3, rel=1e-15)
    assert _kernels.py_kernel_pair(x, y, POLY, 0.5, 4.0, 1.5) == pytest.approx(
        (0.5 * dot + 4.0) ** 1.5, rel=1e-15)
    assert _kernels.py_kernel_pair(x, y, SIGMOID, 0.5, -1.0, 0.0) == pytest.approx(
        np.tanh(0.5 * dot - 1.0), rel=1e-15)
    assert _kernels.py_kernel_pair(x, y, LAPLACIAN, 0.4, 0.0, 0.0) == pytest.approx(
        np.exp(-0.4 * l1), rel=1e-15)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_precomputed_norms(dtype):
    rng = np.random.default_rng(8)
    X = rng.standard_normal((40, 9)).astype(dtype)
    Y = rng.standard_normal((31, 9)).astype(dtype)
    x_norms = np.empty(40)
    y_norms = np.empty(31)
    _kernels.py_sq_row_norms(X, x_norms)
    _kernels.py_sq_row_norms(Y, y_norms)
    assert_allclose(x_norms, np.einsum("ij,ij->i", X.astype(np.float64), X.astype(np.float64)),
                    rtol=1e-14)
    for name, kind in KINDS.items():
        out = np.empty((40, 31), dtype=dtype)
        _kernels.py_kernel_block_sq_norms(X, Y, kind, 0.1, 1.0, 2.0, x_norms, y_norms, out)
        assert_allclose(out, fast_kernel(name, X, Y, 0.1, 1.0, 2.0),
                        rtol=1e-12 if dtype == np.float64 else 1e-6)
    # The norms are really used: wrong norms give a different rbf.
    out = np.empty((40, 31), dtype=dtype)
    _kernels.py_kernel_block_sq_norms(X, Y, RBF, 0.1, 0.0, 1.0, x_norms + 1.0, y_norms, out)
    assert_allclose(out, np.exp(-0.1) * fast_kernel("rbf", X, Y, 0.1, 0.0, 1.0), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exp_over_its_whole_range(dtype, exp_impl):
    # Laplacian with one feature and x = 0 gives exp(-gamma |y|): every
    # exponent from 0 down to far below the underflow threshold.
    rng = np.random.default_rng(9)
    z = np.concatenate([rng.uniform(0, 800, 5000), rng.uniform(0, 1e-3, 1000),
                        [0.0, 5e-324, 707.9, 708.0, 708.1, 745.2, 3e38]])
    Y = z.reshape(-1, 1).astype(dtype)
    X = np.zeros((1, 1), dtype=dtype)
    K = fast_kernel("laplacian", X, Y, 1.0, 0.0, 0.0)[0]
    expected = np.exp(-Y[:, 0].astype(np.float64))
    if dtype == np.float64:
        # Results below exp(-708) ~ 3e-308 may be flushed to 0.
        assert_allclose(K, expected, rtol=1e-15, atol=1e-307)
    else:
        assert_allclose(K, expected.astype(np.float32), rtol=1e-6, atol=1e-38)
    assert np.all(K >= 0.0) and K[-1] == 0.0 and K[-7] == 1.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tanh_over_its_whole_range(dtype, exp_impl):
    # Sigmoid with one feature, x = 1, gamma = 1, coef0 = 0 gives tanh(y),
    # on both sides of the switch between polynomial and exp form (0.1).
    rng = np.random.default_rng(12)
    z = np.concatenate([rng.uniform(-25, 25, 4000), rng.uniform(-0.2, 0.2, 4000),
                        [0.0, -0.0, 1e-300, -1e-300, 0.1, -0.1, 0.0999999, 40.0, -800.0]])
    Y = z.reshape(-1, 1).astype(dtype)
    X = np.ones((1, 1), dtype=dtype)
    K = fast_kernel("sigmoid", X, Y, 1.0, 0.0, 0.0)[0]
    expected = np.tanh(Y[:, 0].astype(np.float64))
    if dtype == np.float64:
        assert_allclose(K, expected, rtol=5e-15, atol=0)
    else:
        assert_allclose(K, expected.astype(np.float32), rtol=1e-6, atol=0)
    assert K[-2] == 1.0 and K[-1] == -1.0


def test_gil_released_threads_agree():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((300, 20))
    serial = [fast_kernel(name, X, X[::-1].copy(), 0.05, 1.0, 3.0) for name in KINDS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = list(pool.map(
            lambda name: fast_kernel(name, X, X[::-1].copy(), 0.05, 1.0, 3.0), KINDS))
    for a, b in zip(serial, threaded):
        assert_array_equal(a, b)


def test_degenerate_shapes():
    empty_rows = np.empty((0, 3))
    Y = np.ones((4, 3))
    out = np.empty((0, 4))
    _kernels.pairwise_kernel_fast(empty_rows, Y, RBF, 1.0, 0.0, 1.0, out)
    # No features: the kernels of two empty vectors.
    X0, Y0 = np.empty((3, 0)), np.empty((2, 0))
    expected = {"linear": 0.0, "rbf": 1.0, "poly": 2.0 ** 3, "sigmoid": np.tanh(2.0),
                "laplacian": 1.0}
    for name, value in expected.items():
        assert_allclose(fast_kernel(name, X0, Y0, 0.5, 2.0, 3.0), np.full((3, 2), value))


def test_checks_in_the_python_entry_point():
    X, Y = np.ones((3, 2)), np.ones((4, 2))
    with pytest.raises(ValueError, match="kind"):
        _kernels.pairwise_kernel_fast(X, Y, 5, 1.0, 0.0, 1.0, np.empty((3, 4)))
    with pytest.raises(ValueError, match="features"):
        _kernels.pairwise_kernel_fast(X, np.ones((4, 3)), 1, 1.0, 0.0, 1.0, np.empty((3, 4)))
    with pytest.raises(ValueError, match="out must have shape"):
        _kernels.pairwise_kernel_fast(X, Y, 1, 1.0, 0.0, 1.0, np.empty((4, 3)))
    with pytest.raises(ValueError, match="same length"):
        _kernels.py_kernel_pair(np.ones(2), np.ones(3), 1, 1.0, 0.0, 1.0)
