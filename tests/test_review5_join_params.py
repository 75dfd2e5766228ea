"""add_nodes refuses the graph methods' regularization changed since fit.

Review of 2026-11-28 (review5): review4's fixed-parameter list left out
Perso-lin's ``alpha`` (the local models' l2 term, read by the join's local
solve and eq. 5 rows) and Dada's ``beta`` (the l1 radius of every model,
read by the join's Frank-Wolfe steps).  After ``set_params`` on a fitted
estimator the newcomers silently solved another problem than the fitted
nodes'.
"""

import warnings

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier

CASES = [
    (PersonalizedLinearClassifier, "alpha", 10.0),
    (DecentralizedBoostingClassifier, "beta", 0.01),
]


def _data(seed, n=60):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    y = (X @ np.array([1.0, -1.0, 0.0]) + 0.2 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _fitted(Estimator):
    X, y = _data(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Estimator(random_state=0).fit(X, y, groups=np.repeat(np.arange(3), 20))


@pytest.mark.parametrize("Estimator, param, value", CASES,
                         ids=[f"{e.__name__}-{p}" for e, p, _ in CASES])
def test_join_refuses_the_regularization_changed_after_fit(Estimator, param, value):
    est = _fitted(Estimator)
    fitted_value = est.get_params()[param]
    assert fitted_value != value
    X_new, y_new = _data(1, n=20)
    groups = np.repeat([10, 11], 10)
    est.set_params(**{param: value})
    with pytest.raises(ValueError, match=(
            rf"add_nodes: {param} was changed after fit \({fitted_value!r} -> {value!r}\)")):
        est.add_nodes(X_new, y_new, groups=groups)
    assert est.nodes_.tolist() == [0, 1, 2]
    # set back, the join runs and equals the untouched model's join
    est.set_params(**{param: fitted_value})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X_new, y_new, groups=groups)
        other = _fitted(Estimator).add_nodes(X_new, y_new, groups=groups)
    assert est.nodes_.tolist() == [0, 1, 2, 10, 11]
    np.testing.assert_array_equal(est.decision_function(X_new, groups=groups),
                                  other.decision_function(X_new, groups=groups))


def test_the_changed_regularization_moved_the_newcomers_models_before_the_fix():
    # What the refusal prevents: the newcomers' models with alpha=10 differ
    # from the ones the fitted problem gives (the join read est.alpha).
    from skfed._join_params import JOIN_FIXED_PARAMS
    X_new, y_new = _data(1, n=20)
    groups = np.repeat([10, 11], 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = _fitted(PersonalizedLinearClassifier).add_nodes(X_new, y_new, groups=groups)
        est = _fitted(PersonalizedLinearClassifier)
        est._join_params = {k: v for k, v in est._join_params.items() if k != "alpha"}
        est.set_params(alpha=10.0).add_nodes(X_new, y_new, groups=groups)
    assert "alpha" not in JOIN_FIXED_PARAMS  # the check is per estimator
    gap = np.abs(est.decision_function(X_new, groups=groups)
                 - base.decision_function(X_new, groups=groups)).max()
    assert gap > 0.1
