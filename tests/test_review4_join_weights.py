"""add_nodes refuses negative sample weights, as fit does.

Review of 2026-11-28: ``fit`` of every estimator refuses a negative
``sample_weight`` (naming the first one), but ``add_nodes`` of the
multi-task estimators, the kernel-SGD estimators and the sparse linear
regression accepted one silently (a negative weight inside a newcomer's
loss) as long as its node kept a positive total; the boosting estimators had
their own, differently worded check.  ``_validate_join_data`` now applies
the fit's check to every estimator's join.
"""

import numpy as np
import pytest

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    FederatedSparseLinearRegression,
    FederatedSupportRecovery,
    PersonalizedLinearClassifier,
)

ESTIMATORS = [
    (FederatedMultiTaskClassifier, False),
    (FederatedMultiTaskRegressor, True),
    (DecentralizedKernelSGDClassifier, False),
    (FederatedSparseLinearRegression, True),
    (FederatedSupportRecovery, True),
    (PersonalizedLinearClassifier, False),
    (DecentralizedBoostingClassifier, False),
]


def _data(regression, seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(60, 3))
    target = X @ np.array([1.0, -1.0, 0.0])
    y = target if regression else (target > 0).astype(int)
    return X, y


@pytest.mark.filterwarnings("ignore:Too few reports")
@pytest.mark.parametrize("Estimator, regression", ESTIMATORS,
                         ids=[e.__name__ for e, _ in ESTIMATORS])
def test_add_nodes_refuses_a_negative_weight_naming_it(Estimator, regression):
    X, y = _data(regression, 0)
    est = Estimator(random_state=0).fit(X, y, groups=np.repeat(np.arange(3), 20))
    n_nodes = len(est.nodes_)
    X_new, y_new = _data(regression, 1)
    X_new, y_new = X_new[:20], y_new[:20]
    weights = np.ones(20)
    weights[7] = -0.5  # its node keeps a positive total
    with pytest.raises(ValueError, match=r"non-negative; 1 of its 20 values are negative "
                                         r"\(the first, at index 7, is -0.5\)"):
        est.add_nodes(X_new, y_new, groups=np.repeat([10, 11], 10), sample_weight=weights)
    assert len(est.nodes_) == n_nodes  # nothing joined
    # Zero weights stay allowed when the node keeps a positive total.
    weights[7] = 0.0
    est.add_nodes(X_new, y_new, groups=np.repeat([10, 11], 10), sample_weight=weights)
    assert est.nodes_.tolist()[-2:] == [10, 11]


@pytest.mark.filterwarnings("ignore:Too few reports")
@pytest.mark.parametrize("Estimator, regression", ESTIMATORS,
                         ids=[e.__name__ for e, _ in ESTIMATORS])
def test_add_nodes_names_a_weightless_newcomer_by_its_id(Estimator, regression):
    # The message names the node as the user wrote it ("Node 11", "New node
    # 11"), not as a NumPy scalar's repr ("np.int64(11)").
    X, y = _data(regression, 0)
    est = Estimator(random_state=0).fit(X, y, groups=np.repeat(np.arange(3), 20))
    X_new, y_new = _data(regression, 1)
    weights = np.r_[np.ones(10), np.zeros(10)]
    with pytest.raises(ValueError, match=r"[Nn]ode 11 has no sample with a positive "
                                         r"sample_weight"):
        est.add_nodes(X_new[:20], y_new[:20], groups=np.repeat([10, 11], 10),
                      sample_weight=weights)
