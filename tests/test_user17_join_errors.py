"""The error of ``add_nodes`` called without node ids names the route that works.

It used to repeat fit's help: "set group_column to the column of X that
holds them ... meta-estimators such as GridSearchCV route groups= to this
method" -- neither works for a join: ``group_column`` is fixed by the fit
(X would need one more column than the fit's), and no meta-estimator calls
``add_nodes``.
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfed.baselines import LocalEstimator
from skfed.boosting import PersonalizedLinearClassifier
from skfed.support import FederatedSupportRecovery


@pytest.mark.parametrize("make", [
    lambda: LocalEstimator(LogisticRegression()),
    lambda: PersonalizedLinearClassifier(random_state=0),
    lambda: FederatedSupportRecovery(),
])
def test_join_without_groups_says_to_pass_groups(make):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(np.arange(5), 20)
    est = make().fit(X[:80], y[:80], groups=groups[:80])
    with pytest.raises(ValueError) as info:
        est.add_nodes(X[80:], y[80:])
    message = str(info.value)
    assert "add_nodes needs the node id of every sample" in message
    assert "groups=" in message
    assert "GridSearchCV" not in message
    assert "set group_column" not in message
    assert "fitted without group_column" in message
