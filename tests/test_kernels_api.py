"""The public kernel API: skfed.kernels."""

import pickle
from dataclasses import FrozenInstanceError

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics.pairwise import pairwise_kernels

from skfed.kernels import (
    KERNELS,
    KernelSpec,
    kernel_params,
    pairwise_kernel,
    resolve_kernel,
)

# skfed name -> scikit-learn's pairwise_kernels metric name
SKLEARN_METRIC = {
    "linear": "linear",
    "rbf": "rbf",
    "poly": "polynomial",
    "sigmoid": "sigmoid",
    "laplacian": "laplacian",
}


def sklearn_reference(X, Y, name, **params):
    if name == "linear":
        params = {}
    elif name in ("rbf", "laplacian"):
        params = {"gamma": params.get("gamma")}
    elif name == "sigmoid":
        params = {"gamma": params.get("gamma"), "coef0": params.get("coef0", 1.0)}
    return pairwise_kernels(X, Y, metric=SKLEARN_METRIC[name], **params)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((23, 5)), rng.standard_normal((17, 5))


def test_kernel_names():
    assert KERNELS == ("linear", "rbf", "poly", "sigmoid", "laplacian")


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("gamma", [None, 0.3])
def test_pairwise_kernel_matches_sklearn(data, name, gamma):
    X, Y = data
    params = {"gamma": gamma, "degree": 2, "coef0": 0.5}
    K = pairwise_kernel(X, Y, kernel=name, **params)
    assert K.shape == (23, 17) and K.dtype == np.float64 and K.flags.c_contiguous
    assert_allclose(K, sklearn_reference(X, Y, name, **params), rtol=1e-12, atol=1e-12)
    # Y=None: the Gram matrix of X, exactly symmetric.
    K_XX = pairwise_kernel(X, kernel=name, **params)
    assert_allclose(K_XX, sklearn_reference(X, None, name, **params), rtol=1e-12, atol=1e-12)
    assert_array_equal(K_XX, K_XX.T)
    assert_array_equal(pairwise_kernel(X, X, kernel=name, **params), K_XX)


def test_gamma_none_is_one_over_n_features(data):
    X, Y = data
    assert_array_equal(pairwise_kernel(X, Y, gamma=None), pairwise_kernel(X, Y, gamma=1 / 5))
    assert resolve_kernel("rbf", n_features=8).gamma == 0.125


def test_polynomial_alias(data):
    X, Y = data
    assert resolve_kernel("polynomial", n_features=5).name == "poly"
    assert_array_equal(pairwise_kernel(X, Y, kernel="polynomial"),
                       pairwise_kernel(X, Y, kernel="poly"))


@pytest.mark.parametrize("name", KERNELS)
def test_float32_stays_float32(data, name):
    X, Y = data
    X32, Y32 = X.astype(np.float32), Y.astype(np.float32)
    K = pairwise_kernel(X32, Y32, kernel=name)
    assert K.dtype == np.float32
    assert_allclose(K, pairwise_kernel(X32.astype(np.float64), Y32.astype(np.float64),
                                       kernel=name), rtol=1e-5, atol=1e-5)
    # Y follows the dtype of X.
    assert pairwise_kernel(X32, Y, kernel=name).dtype == np.float32
    assert pairwise_kernel(X, Y32, kernel=name).dtype == np.float64


@pytest.mark.parametrize("dtype", [np.int64, np.float16, np.bool_])
def test_other_dtypes_become_float64(dtype):
    X = (np.arange(12).reshape(4, 3) % 2).astype(dtype)
    K = pairwise_kernel(X, kernel="linear")
    assert K.dtype == np.float64
    X64 = X.astype(np.float64)
    assert_array_equal(K, X64 @ X64.T)


def test_list_input():
    X = [[0.0, 1.0], [1.0, 1.0]]
    assert_allclose(pairwise_kernel(X, kernel="linear"), [[1.0, 1.0], [1.0, 2.0]])


@pytest.mark.parametrize("name", KERNELS)
def test_non_contiguous_and_read_only_inputs(data, name):
    X, Y = data
    expected = pairwise_kernel(X, Y, kernel=name)
    X_fortran = np.asfortranarray(X)
    Y_strided = np.repeat(Y, 2, axis=0)[::2]
    assert not Y_strided.flags.c_contiguous
    assert_array_equal(pairwise_kernel(X_fortran, Y_strided, kernel=name), expected)
    X_ro, Y_ro = X.copy(), Y.copy()
    X_ro.setflags(write=False)
    Y_ro.setflags(write=False)
    assert_array_equal(pairwise_kernel(X_ro, Y_ro, kernel=name), expected)
    # A non-contiguous X against itself (Y=None) is still the Gram matrix.
    X_wide = np.repeat(X, 2, axis=1)[:, ::2]
    assert_allclose(pairwise_kernel(X_wide, kernel=name), pairwise_kernel(X, kernel=name),
                    rtol=1e-15, atol=1e-15)


def test_kernel_spec_is_accepted(data):
    X, Y = data
    spec = resolve_kernel("poly", gamma=0.2, degree=4, coef0=0.1, n_features=5)
    expected = pairwise_kernels(X, Y, metric="polynomial", gamma=0.2, degree=4, coef0=0.1)
    # The spec's own parameters win over the keyword defaults.
    assert_allclose(pairwise_kernel(X, Y, kernel=spec), expected, rtol=1e-12)
    assert_allclose(spec(X, Y), expected, rtol=1e-12)
    assert resolve_kernel(spec, n_features=5) == spec


def test_kernel_spec_frozen_hashable_picklable():
    spec = resolve_kernel("sigmoid", gamma=0.5, coef0=-1, n_features=2)
    with pytest.raises(FrozenInstanceError):
        spec.gamma = 1.0
    assert {spec: 1}[resolve_kernel("sigmoid", gamma=0.5, coef0=-1, n_features=2)] == 1
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_resolve_kernel_fields():
    spec = resolve_kernel("poly", gamma=2, degree=3, coef0=0, n_features=4)
    assert spec == KernelSpec("poly", 2.0, 3.0, 0.0, None, 2)
    assert isinstance(spec.gamma, float) and not spec.is_callable
    for kind, name in enumerate(KERNELS):
        assert resolve_kernel(name, n_features=3).kind == kind


def test_kernel_params():
    spec = resolve_kernel("rbf", gamma=0.25, n_features=3)
    params = kernel_params(spec)
    assert params == (1, 0.25, 1.0, 3.0)
    assert all(type(p) is float for p in params[1:]) and type(params[0]) is int
    with pytest.raises(ValueError, match="callable"):
        kernel_params(resolve_kernel(lambda X, Y: X @ Y.T, n_features=3))
    with pytest.raises(ValueError, match="spec"):
        kernel_params("rbf")


def test_callable_kernel(data):
    X, Y = data
    calls = []

    def cosine(A, B):
        calls.append((A.dtype, A.flags.c_contiguous, B.shape))
        A_n = A / np.linalg.norm(A, axis=1, keepdims=True)
        B_n = B / np.linalg.norm(B, axis=1, keepdims=True)
        return A_n @ B_n.T

    K = pairwise_kernel(X, Y, kernel=cosine)
    assert_allclose(K, pairwise_kernels(X, Y, metric="cosine"), rtol=1e-12)
    assert calls == [(np.float64, True, (17, 5))]
    assert pairwise_kernel(X.astype(np.float32), kernel=cosine).dtype == np.float32
    spec = resolve_kernel(cosine, n_features=5)
    assert spec.is_callable and spec.name == "callable" and spec.kind == -1
    # A callable returning a list of lists is accepted.
    assert_array_equal(pairwise_kernel([[1.0], [2.0]], kernel=lambda A, B: (A @ B.T).tolist()),
                       [[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize(
    "func, match",
    [
        (
            lambda A, B: A @ A.T,
            r"shape \(n_samples_X, n_samples_Y\) = \(23, 17\), got shape \(23, 23\)",
        ),
        (lambda A, B: (A @ B.T)[:, 0], "shape"),
        (lambda A, B: np.full((A.shape[0], B.shape[0]), np.nan), "non-finite"),
        (lambda A, B: np.full((A.shape[0], B.shape[0]), np.inf), "non-finite"),
        (lambda A, B: "not an array", "numeric array"),
    ],
)
def test_callable_bad_output(data, func, match):
    X, Y = data
    with pytest.raises(ValueError, match=match) as excinfo:
        pairwise_kernel(X, Y, kernel=func)
    assert "kernel callable" in str(excinfo.value)


@pytest.mark.parametrize(
    "params, name",
    [
        ({"kernel": "gaussian"}, "kernel"),
        ({"kernel": 3}, "kernel"),
        ({"kernel": None}, "kernel"),
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": -1.0}, "gamma"),
        ({"gamma": np.nan}, "gamma"),
        ({"gamma": np.inf}, "gamma"),
        ({"gamma": "scale"}, "gamma"),
        ({"gamma": True}, "gamma"),
        ({"degree": 0.5}, "degree"),
        ({"degree": 0}, "degree"),
        ({"degree": "3"}, "degree"),
        ({"degree": np.inf}, "degree"),
        ({"coef0": np.nan}, "coef0"),
        ({"coef0": None}, "coef0"),
    ],
)
def test_bad_parameters_are_named(data, params, name):
    X, Y = data
    with pytest.raises(ValueError, match=f"^{name} must"):
        pairwise_kernel(X, Y, **params)
    kernel = params.pop("kernel", "rbf")
    with pytest.raises(ValueError, match=f"^{name} must"):
        resolve_kernel(kernel, n_features=5, **params)


@pytest.mark.parametrize("n_features", [0, -2, 2.0, True])
def test_bad_n_features(n_features):
    with pytest.raises(ValueError, match="^n_features must"):
        resolve_kernel("rbf", n_features=n_features)


def test_invalid_spec_is_revalidated(data):
    X, Y = data
    bad = KernelSpec("rbf", -1.0, 3.0, 1.0, None, 1)
    with pytest.raises(ValueError, match="^gamma must"):
        pairwise_kernel(X, Y, kernel=bad)
    with pytest.raises(ValueError, match="^kernel must"):
        pairwise_kernel(X, Y, kernel=KernelSpec("cubic", 1.0, 3.0, 1.0, None, 7))


def test_bad_arrays(data):
    X, Y = data
    with pytest.raises(ValueError, match="Y has 4 features, but X has 5"):
        pairwise_kernel(X, Y[:, :4])
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pairwise_kernel(X_nan, Y)
    Y_inf = Y.copy()
    Y_inf[1, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        pairwise_kernel(X, Y_inf)
    with pytest.raises(ValueError, match="2D"):
        pairwise_kernel(X[0], Y)
    with pytest.raises(ValueError, match="0 sample"):
        pairwise_kernel(X[:0], Y)
