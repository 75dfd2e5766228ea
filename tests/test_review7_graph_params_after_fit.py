"""Review7: Perso-lin and Dada predict with their fit's ``fit_intercept``.

Perso-lin's ``decision_function`` built its design from the current
``fit_intercept``: after ``set_params(fit_intercept=False)`` on a model
fitted with an intercept, it scored every sample without it (predictions
changed before any refit, against scikit-learn's convention).
"""

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.datasets import make_rotated_moons


@pytest.mark.parametrize("cls", [PersonalizedLinearClassifier, DecentralizedBoostingClassifier])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_set_params_after_fit_leaves_the_scores(cls, fit_intercept):
    X, X_test, y, _, g, g_test, _, _ = make_rotated_moons(n_nodes=8, n_features=3,
                                                          random_state=0)
    est = cls(random_state=0, max_iter=200, fit_intercept=fit_intercept).fit(X, y, groups=g)
    scores = est.decision_function(X_test, groups=g_test)
    est.set_params(fit_intercept=not fit_intercept)
    np.testing.assert_array_equal(est.decision_function(X_test, groups=g_test), scores)
    # a refit takes the new value, as a fresh estimator with it
    est.fit(X, y, groups=g)
    fresh = cls(random_state=0, max_iter=200, fit_intercept=not fit_intercept).fit(
        X, y, groups=g)
    np.testing.assert_array_equal(est.decision_function(X_test, groups=g_test),
                                  fresh.decision_function(X_test, groups=g_test))
