"""float32 input: the only difference from float64 is the rounding of the data.

The solver keeps every kernel value in double (``kernel_pair_double``), so
a float32 fit equals a float64 fit of the same data rounded to float32,
even where KOMP's pruning choices are sensitive to rounding (the linear
kernel at the default budget, the second probe's finding 15: before, the
float32 regressor's predictions moved by up to 0.14 while a float64 fit
of the rounded data moved by at most 0.01).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor


def _related(seed, regression):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(6), 40)
    X = rng.normal(size=(240, 10))
    coef = np.where(np.arange(10) < 3, 1.5, 0.0) + 0.1 * rng.normal(size=(6, 10)) * (
        np.arange(10) < 3)
    y = np.einsum("ij,ij->i", X, coef[groups]) + 0.3 * rng.normal(size=240)
    return X, (y if regression else (y > 0).astype(int)), groups


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("regression", [True, False])
@pytest.mark.parametrize("kernel", ["linear", "laplacian"])
def test_float32_fit_equals_float64_fit_of_rounded_data(seed, regression, kernel):
    X, y, groups = _related(seed, regression)
    Est = DecentralizedKernelSGDRegressor if regression else DecentralizedKernelSGDClassifier
    est = Est(kernel=kernel, consensus_penalty=0.1, random_state=0)
    f32 = est.fit(X.astype(np.float32), y, groups=groups)
    out32 = (f32.predict if regression else f32.decision_function)(X, groups=groups)
    assert f32.dictionaries_[0].dtype == np.float32
    rounded = X.astype(np.float32).astype(np.float64)
    f64 = Est(**est.get_params()).fit(rounded, y, groups=groups)
    out64 = (f64.predict if regression else f64.decision_function)(X, groups=groups)
    # Same pruning choices, same dictionaries: agreement to float32 resolution.
    for a, b in zip(f32.dictionaries_, f64.dictionaries_):
        assert_allclose(a, b, rtol=0, atol=0)
    assert_allclose(out32, out64, rtol=1e-4, atol=1e-4 * np.abs(out64).max())
