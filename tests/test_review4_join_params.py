"""add_nodes refuses a model-shaping parameter changed since fit.

Review of 2026-11-28: ``add_nodes`` extends the fitted model, but read
some parameters from the estimator as it is now.  After ``set_params``
on a fitted estimator a join then failed with an unrelated error
(``fit_intercept=False``: a NumPy broadcasting or index error; a ``loss``
the estimator does not have: ``KeyError``) or silently gave the newcomers
models of another problem than the fitted nodes' (``intercept_scaling``,
``loss`` of the multi-task classifier, ``mu`` of the graph methods).  The
join now refuses, naming the parameter, its fitted value and its value now;
parameters the join is documented to read (a kernel-SGD ``gamma`` dict,
a support ``vote``) and the ones it does not use stay free.
"""

import warnings

import numpy as np
import pytest

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    FederatedSparseLinearRegression,
    PersonalizedLinearClassifier,
)

CASES = [
    (FederatedMultiTaskClassifier, False, "fit_intercept", False),
    (FederatedMultiTaskClassifier, False, "intercept_scaling", 5.0),
    (FederatedMultiTaskClassifier, False, "loss", "squared_hinge"),
    (FederatedMultiTaskRegressor, True, "fit_intercept", False),
    (PersonalizedLinearClassifier, False, "fit_intercept", False),
    (PersonalizedLinearClassifier, False, "loss", "squared_hinge"),
    (PersonalizedLinearClassifier, False, "mu", 10.0),
    (DecentralizedBoostingClassifier, False, "mu", 10.0),
    (DecentralizedKernelSGDClassifier, False, "loss", "log_loss"),
    (FederatedSparseLinearRegression, True, "fit_intercept", False),
    (FederatedSparseLinearRegression, True, "per_node_intercept", False),
]


def _data(regression, seed, n=60):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    target = X @ np.array([1.0, -1.0, 0.0]) + 0.2 * rng.normal(size=n)
    return X, (target if regression else (target > 0).astype(int))


def _fitted(Estimator, regression):
    X, y = _data(regression, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Estimator(random_state=0).fit(X, y, groups=np.repeat(np.arange(3), 20))


@pytest.mark.parametrize("Estimator, regression, param, value", CASES,
                         ids=[f"{e.__name__}-{p}" for e, _, p, _ in CASES])
def test_join_refuses_a_parameter_changed_after_fit(Estimator, regression, param, value):
    est = _fitted(Estimator, regression)
    fitted_value = est.get_params()[param]
    assert fitted_value != value
    nodes, coef = est.nodes_.copy(), np.copy(getattr(est, "coef_", 0.0))
    X_new, y_new = _data(regression, 1, n=20)
    est.set_params(**{param: value})
    with pytest.raises(ValueError, match=(
            rf"add_nodes: {param} was changed after fit \({fitted_value!r} -> {value!r}\)")):
        est.add_nodes(X_new, y_new, groups=np.repeat([10, 11], 10))
    np.testing.assert_array_equal(est.nodes_, nodes)
    np.testing.assert_array_equal(getattr(est, "coef_", 0.0), coef)
    # Set back, the join runs and equals the join of the untouched model.
    est.set_params(**{param: fitted_value})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X_new, y_new, groups=np.repeat([10, 11], 10))
        other = _fitted(Estimator, regression).add_nodes(
            X_new, y_new, groups=np.repeat([10, 11], 10))
    assert est.nodes_.tolist() == [0, 1, 2, 10, 11]
    np.testing.assert_array_equal(est.predict(X_new, groups=np.repeat([10, 11], 10)),
                                  other.predict(X_new, groups=np.repeat([10, 11], 10)))


def test_parameters_the_join_does_not_fix_stay_free():
    # The multi-task join uses the fitted lambda whatever C is now: C may
    # change (a refit takes it).
    est = _fitted(FederatedMultiTaskClassifier, False)
    X_new, y_new = _data(False, 1, n=20)
    groups = np.repeat([10, 11], 10)
    untouched = _fitted(FederatedMultiTaskClassifier, False).add_nodes(X_new, y_new,
                                                                        groups=groups)
    est.set_params(C=100.0).add_nodes(X_new, y_new, groups=groups)
    np.testing.assert_array_equal(est.coef_, untouched.coef_)
    assert est.get_params()["C"] == 100.0 and len(est.nodes_) == 5


def test_a_refit_takes_the_new_value():
    est = _fitted(FederatedMultiTaskClassifier, False)
    X, y = _data(False, 0)
    est.set_params(intercept_scaling=5.0).fit(X, y, groups=np.repeat(np.arange(3), 20))
    X_new, y_new = _data(False, 1, n=20)
    est.add_nodes(X_new, y_new, groups=np.repeat([10, 11], 10))
    assert len(est.nodes_) == 5


def test_a_parameter_set_from_its_default_none_is_refused_and_equal_numbers_pass():
    est = _fitted(PersonalizedLinearClassifier, False)
    assert est.mu_graph is None
    X_new, y_new = _data(False, 1, n=20)
    groups = np.repeat([10, 11], 10)
    est.set_params(mu_graph=2.0)
    with pytest.raises(ValueError, match=r"mu_graph was changed after fit \(None -> 2.0\)"):
        est.add_nodes(X_new, y_new, groups=groups)
    # mu=1 is the fitted mu=1.0: the same value, not a change
    est.set_params(mu_graph=None, mu=int(est.mu))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X_new, y_new, groups=groups)
    assert len(est.nodes_) == 5
