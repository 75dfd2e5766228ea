"""Review7: ``add_nodes`` validates the parameters as ``fit`` does.

A join read parameters a user may change after the fit (those not fixed
by ``skfed._join_params``), but never checked them: after
``set_params(average=1.5)`` (documented ``[0, 1)``) the online
regressor's newcomers averaged over 150 % of their steps, and MOCHA's
joined with ``local_epochs=-1``, without an error.  Now every join starts
with the estimator's parameter validation, which names the parameter.
"""

import numpy as np
import pytest

from skfed import (
    FederatedMultiTaskClassifier,
    FederatedSparseLinearRegression,
    PersonalizedLinearClassifier,
)
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.online import DecentralizedKernelSGDRegressor


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    groups = np.repeat(np.arange(12), 10)
    y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=120)
    return X, y, groups, groups < 9


CASES = [
    (DecentralizedKernelSGDRegressor, False, "average", 1.5),
    (FederatedMultiTaskClassifier, True, "local_epochs", -1.0),
    (FederatedSparseLinearRegression, False, "threshold", -3.0),
    (DecentralizedBoostingClassifier, True, "n_estimators", 0),
    (PersonalizedLinearClassifier, True, "graph_iter", -2),
]


@pytest.mark.parametrize("cls, classify, name, value", CASES)
def test_add_nodes_refuses_an_invalid_parameter_by_name(cls, classify, name, value):
    X, y, groups, old = _data()
    if classify:
        y = np.where(y > 0, 1, -1)
    est = cls(random_state=0).fit(X[old], y[old], groups=groups[old])
    before = est.get_params()[name]
    est.set_params(**{name: value})
    with pytest.raises(ValueError, match=rf"'{name}' parameter of {cls.__name__} must be"):
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert len(est.nodes_) == 9
    est.set_params(**{name: before}).add_nodes(X[~old], y[~old], groups=groups[~old])
    assert len(est.nodes_) == 12
