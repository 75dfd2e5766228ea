"""Fitted attributes of the multi-task estimators that resolve a setting:
``gamma_`` (the kernel width the fit used)."""

import numpy as np
import pytest
from sklearn.svm import SVC

from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor


def _data(seed=0):
    rng = np.random.RandomState(seed)
    X = 3.0 * rng.randn(120, 4) + 1.0
    y = (X[:, 0] + rng.randn(120) > 1.0).astype(int)
    g = np.repeat(np.arange(4), 30)
    return X, y, g


@pytest.mark.parametrize("gamma", ["scale", "auto", 0.37])
@pytest.mark.parametrize("approximation", [None, "rff"])
def test_gamma_is_svc_gamma(gamma, approximation):
    """``gamma_`` is the width scikit-learn's SVC resolves on the pooled data
    (its private ``_gamma``, an independent reference for "scale"/"auto")."""
    X, y, g = _data()
    est = FederatedMultiTaskClassifier(kernel="rbf", gamma=gamma, approximation=approximation,
                                       omega="learn", max_rounds=3, random_state=0)
    with pytest.warns(Warning):  # max_rounds=3 does not converge
        est.fit(X, y, groups=g)
    assert est.gamma_ == pytest.approx(SVC(gamma=gamma).fit(X, y)._gamma, rel=1e-12)
    if approximation == "rff":
        # the random features are drawn at that width: N(0, 2 gamma) weights
        scale = np.std(est.random_weights_) / np.sqrt(2.0 * est.gamma_)
        assert 0.9 < scale < 1.1


def test_gamma_is_none_without_a_width():
    X, y, g = _data()
    linear = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
    assert linear.kernel == "linear" and linear.gamma_ is None
    reg = FederatedMultiTaskRegressor(kernel=lambda A, B: A @ B.T, approximation=None,
                                      omega="learn", max_rounds=2, random_state=0)
    with pytest.warns(Warning):
        reg.fit(X, X[:, 0], groups=g)
    assert reg.gamma_ is None
