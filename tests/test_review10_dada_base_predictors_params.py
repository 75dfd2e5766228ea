"""Review10: Dada refuses stump settings that user base predictors make unused.

``n_estimators``, ``stump_placement`` (and ``feature_selection``) shape
Dada's own stumps and are documented as ignored when ``base_predictors`` is
given; a non-default value was silently dropped (``n_estimators=50`` with
three predictors fitted three, ``stump_placement="quantile"`` nothing).
Such a value is now refused by name; the defaults (and
``feature_selection=None``, which asks for no selection) still fit.
"""

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier, make_stump_predictors
from skfed.datasets import make_rotated_moons


def _data():
    X, _, y, _, groups, *_ = make_rotated_moons(n_nodes=6, n_features=3, random_state=0)
    return X, y, groups


@pytest.mark.parametrize("params", [{"n_estimators": 50}, {"stump_placement": "quantile"},
                                    {"stump_placement": "global_range"}])
def test_unused_stump_setting_is_refused_by_name(params):
    X, y, groups = _data()
    stumps = make_stump_predictors([-3, -3, -3], [3, 3, 3], 6)
    (name, value), = params.items()
    with pytest.raises(ValueError, match=rf"{name}={value!r} .*base_predictors"):
        DecentralizedBoostingClassifier(base_predictors=stumps, random_state=0,
                                        **params).fit(X, y, groups=groups)


def test_defaults_and_no_selection_fit_with_base_predictors():
    X, y, groups = _data()
    stumps = make_stump_predictors([-3, -3, -3], [3, 3, 3], 6)
    a = DecentralizedBoostingClassifier(base_predictors=stumps, random_state=0,
                                        max_iter=50).fit(X, y, groups=groups)
    b = DecentralizedBoostingClassifier(base_predictors=stumps, random_state=0, max_iter=50,
                                        feature_selection=None).fit(X, y, groups=groups)
    assert a.n_estimators_ == len(stumps) == 6
    np.testing.assert_array_equal(a.coef_, b.coef_)
