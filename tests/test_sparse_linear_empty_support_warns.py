"""FederatedSparseLinearRegression warns when no feature is selected.

review13: on a dense model (500 features, every effect small, 100 nodes of 8
samples) the vote selects nothing and the refit predicts intercepts only
(R^2 about 0); the fit said nothing.  It now warns, and stays silent when
the support is found.
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedSparseLinearRegression
from skfed.datasets import make_federated_sparse_regression


def test_dense_model_empty_support_warns_and_predicts_intercepts():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(800, 500))
    y = X @ (0.05 * rng.normal(size=500)) + rng.normal(size=800)
    groups = np.repeat(np.arange(100), 8)
    with pytest.warns(UserWarning, match="No features were selected"):
        est = FederatedSparseLinearRegression().fit(X, y, groups=groups)
    assert est.support_.sum() == 0
    assert np.all(est.pvalues_ > 0.05 / 500)  # none significant at the Bonferroni level
    np.testing.assert_array_equal(est.coef_, 0.0)


def test_found_support_does_not_warn():
    X, y, groups, true, _ = make_federated_sparse_regression(
        n_clients=100, n_samples=60, n_features=20, n_informative=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        est = FederatedSparseLinearRegression().fit(X, y, groups=groups)
    np.testing.assert_array_equal(est.support_, true)
