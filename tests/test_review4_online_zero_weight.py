"""Zero-weight rows of new nodes are absent rows, in add_nodes and partial_fit.

Review of 2026-11-28: the kernel-SGD fit drops samples of zero weight
("absent rows": they set no width, take no step and are never sent), but
``add_nodes`` and ``partial_fit`` streamed a new node's zero-weight rows
(the regressor's joined model moved by 0.14 on the probe below; a
``partial_fit`` newcomer by 0.16), and ``partial_fit`` with a new node
whose weights are all zero raised only after that node had joined
(``nodes_`` grown, a model kept for a node without data).
"""

import copy

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor


def _fitted(Estimator):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    target = X @ np.array([1.0, -0.5, 0.3]) + 0.5 * rng.normal(size=120)
    groups = np.repeat(np.arange(6), 20)
    regressor = Estimator is DecentralizedKernelSGDRegressor
    y = target if regressor else (target > 0).astype(int)
    est = Estimator(random_state=0).fit(X, y, groups=groups)
    X_new = rng.normal(size=(20, 3))
    target = X_new @ np.array([1.0, -0.5, 0.3])
    return est, X_new, (target if regressor else (target > 0).astype(int))


def _values(est, X, groups):
    if hasattr(est, "decision_function"):
        return est.decision_function(X, groups=groups)
    return est.predict(X, groups=groups)


@pytest.mark.parametrize("Estimator", [DecentralizedKernelSGDRegressor,
                                       DecentralizedKernelSGDClassifier])
@pytest.mark.parametrize("method", ["add_nodes", "partial_fit"])
def test_zero_weight_rows_of_a_newcomer_change_nothing(Estimator, method):
    est, X_new, y_new = _fitted(Estimator)
    groups = np.repeat([10, 11], 10)
    weights = np.ones(20)
    weights[[1, 4, 5, 12, 13, 14, 18]] = 0.0
    kept = weights > 0
    without = getattr(copy.deepcopy(est), method)(X_new[kept], y_new[kept], groups=groups[kept])
    with_zeros = getattr(copy.deepcopy(est), method)(X_new, y_new, groups=groups,
                                                     sample_weight=weights)
    assert with_zeros.nodes_.tolist() == without.nodes_.tolist() == [0, 1, 2, 3, 4, 5, 10, 11]
    np.testing.assert_array_equal(_values(with_zeros, X_new, groups),
                                  _values(without, X_new, groups))
    np.testing.assert_array_equal(with_zeros._sizes, without._sizes)  # dictionary sizes
    assert with_zeros.n_bytes_sent_ == without.n_bytes_sent_


@pytest.mark.parametrize("Estimator", [DecentralizedKernelSGDRegressor,
                                       DecentralizedKernelSGDClassifier])
def test_partial_fit_refuses_a_weightless_new_node_before_it_joins(Estimator):
    est, X_new, y_new = _fitted(Estimator)
    before = copy.deepcopy(est)
    weights = np.r_[np.ones(10), np.zeros(10)]
    with pytest.raises(ValueError, match=r"Node 11 has no sample with a positive sample_weight"):
        est.partial_fit(X_new, y_new, groups=np.repeat([10, 11], 10), sample_weight=weights)
    assert est.nodes_.tolist() == before.nodes_.tolist()
    np.testing.assert_array_equal(est._sizes, before._sizes)
    assert est.n_bytes_sent_ == before.n_bytes_sent_
