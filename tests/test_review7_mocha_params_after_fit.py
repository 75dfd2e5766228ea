"""Review7: a fitted MOCHA model predicts with its fit's kernel and bias.

``set_params`` on a fitted estimator must not change its predictions
before a refit (scikit-learn's convention).  MOCHA's predictions read the
current ``kernel``, ``fit_intercept`` and ``intercept_scaling``: after a
linear fit, ``set_params(kernel="poly")`` made ``predict`` fail with
``AttributeError: ... '_sv_coef'``, ``fit_intercept=False`` with a shape
error, and ``intercept_scaling=10`` silently changed every score.
"""

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor

CHANGES = [
    {"kernel": "poly"},
    {"kernel": "linear"},
    {"fit_intercept": False},
    {"intercept_scaling": 10.0},
    {"gamma": 3.0},
    {"degree": 2, "coef0": 5.0},
]


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    groups = np.repeat(np.arange(12), 10)
    y = X[:, 0] - 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=120)
    return X, y, groups


@pytest.mark.parametrize("cls", [FederatedMultiTaskClassifier, FederatedMultiTaskRegressor])
@pytest.mark.parametrize("params", [
    {"kernel": "linear"},
    {"kernel": "rbf", "approximation": "rff"},
    {"kernel": "rbf", "approximation": "nystroem"},
    {"kernel": "rbf", "approximation": None},
])
def test_predictions_do_not_change_with_set_params_after_fit(cls, params):
    X, y, groups = _data()
    if cls is FederatedMultiTaskClassifier:
        y = np.where(y > 0, 1, -1)
    est = cls(random_state=0, max_rounds=5, **params).fit(X, y, groups=groups)
    scores = (est.decision_function(X, groups=groups) if hasattr(est, "decision_function")
              else est.predict(X, groups=groups))
    predicted = est.predict(X, groups=groups)
    for change in CHANGES:
        before = {key: est.get_params()[key] for key in change}
        est.set_params(**change)
        if hasattr(est, "decision_function"):
            np.testing.assert_array_equal(est.decision_function(X, groups=groups), scores)
        np.testing.assert_array_equal(est.predict(X, groups=groups), predicted)
        est.set_params(**before)
