"""A multi-task newcomer's zero-weight rows are absent rows.

Review of 2026-11-28: the multi-task join counted a newcomer's rows of zero
weight as samples: its rehearsed size (``omega="shared"``: the trust in
its prior is the one rehearsed at the size nearest its number of rows)
and its cross-validation folds (a regressor with a learned Omega) came
from all its rows.  A newcomer of 5 samples sent with 45 more rows of
weight 0 was rehearsed as a newcomer of 50: its model moved by up to 0.46
(seed 2 below: accuracy 0.92 -> 0.88 on its 50 rows) and the join's bytes
changed.  The join now drops them first, as the kernel-SGD fit does.
"""

import copy

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor


def _problem(seed):
    rng = np.random.RandomState(seed)
    m, n, d = 12, 60, 3
    X = rng.normal(size=(m * n, d))
    groups = np.repeat(np.arange(m), n)
    W = rng.normal(size=(m, d)) * 0.7 + rng.normal(size=d)
    y = np.einsum("ij,ij->i", X, W[groups]) + 0.5 * rng.normal(size=len(X))
    X_new = rng.normal(size=(50, d))
    y_new = X_new @ (rng.normal(size=d) * 0.7 + W.mean(axis=0)) + 0.5 * rng.normal(size=50)
    return X, y, groups, X_new, y_new


@pytest.mark.parametrize("Estimator, omega", [
    (FederatedMultiTaskClassifier, "shared"),
    (FederatedMultiTaskRegressor, "shared"),
    (FederatedMultiTaskRegressor, "learn"),
])
def test_zero_weight_rows_of_a_newcomer_change_nothing(Estimator, omega):
    X, y, groups, X_new, y_new = _problem(2)
    if Estimator is FederatedMultiTaskClassifier:
        y, y_new = (y > 0).astype(int), (y_new > 0).astype(int)
    est = Estimator(omega=omega, random_state=0).fit(X, y, groups=groups)
    # newcomer 98: 5 samples and 45 rows of weight 0; newcomer 99: 10 samples
    weights = np.r_[np.ones(5), np.zeros(45), np.ones(10)]
    X_all = np.vstack([X_new, X_new[:10]])
    y_all = np.r_[y_new, y_new[:10]]
    g_all = np.r_[np.full(50, 98), np.full(10, 99)]
    kept = weights > 0
    without = copy.deepcopy(est).add_nodes(X_all[kept], y_all[kept], groups=g_all[kept])
    with_zeros = copy.deepcopy(est).add_nodes(X_all, y_all, groups=g_all, sample_weight=weights)
    np.testing.assert_array_equal(with_zeros.coef_, without.coef_)
    np.testing.assert_array_equal(with_zeros.intercept_, without.intercept_)
    np.testing.assert_array_equal(with_zeros.task_covariance_, without.task_covariance_)
    assert with_zeros.join_communication_.total_bytes == without.join_communication_.total_bytes


def test_a_newcomer_without_positive_weight_is_still_named():
    X, y, groups, X_new, y_new = _problem(0)
    est = FederatedMultiTaskRegressor(omega="shared", random_state=0).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="Node 99 has no sample with a positive sample_weight"):
        est.add_nodes(X_new[:20], y_new[:20], groups=np.repeat([98, 99], 10),
                      sample_weight=np.r_[np.ones(10), np.zeros(10)])
    assert len(est.nodes_) == 12
