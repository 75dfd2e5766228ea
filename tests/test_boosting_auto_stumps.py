"""Dada's ``n_estimators="auto"``: max(200, 2 x the features that get stumps)."""
import numpy as np
import pytest
from sklearn.datasets import make_moons

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._stumps import resolve_n_estimators


@pytest.mark.parametrize("n_voted, expected", [(0, 200), (1, 200), (99, 200), (100, 200),
                                               (101, 202), (526, 1052)])
def test_resolution_rule(n_voted, expected):
    assert resolve_n_estimators("auto", n_voted) == expected
    # An integer is never changed.
    assert resolve_n_estimators(37, n_voted) == 37


def test_low_dimensional_auto_is_bit_identical_to_200():
    X, y = make_moons(300, noise=0.3, random_state=0)
    g = np.arange(300) % 5
    auto = DecentralizedBoostingClassifier(random_state=0).fit(X, y, groups=g)
    fixed = DecentralizedBoostingClassifier(200, random_state=0).fit(X, y, groups=g)
    assert auto.n_estimators == "auto" and auto.n_estimators_ == 200
    np.testing.assert_array_equal(auto.stump_features_, fixed.stump_features_)
    np.testing.assert_array_equal(auto.stump_thresholds_, fixed.stump_thresholds_)
    np.testing.assert_array_equal(auto.decision_function(X, groups=g),
                                  fixed.decision_function(X, groups=g))


def test_high_dimensional_auto_gives_two_stumps_per_voted_feature():
    rng = np.random.RandomState(0)
    X = rng.randn(400, 300)
    y = (X[:, :150].sum(axis=1) > 0).astype(int)
    g = np.arange(400) % 4
    clf = DecentralizedBoostingClassifier(random_state=0, max_iter=20).fit(X, y, groups=g)
    n_voted = int(clf.selected_features_.sum())
    assert n_voted >= 100
    assert clf.n_estimators_ == 2 * n_voted == clf.stump_features_.shape[0]
    # Every voted feature gets its two stumps.
    np.testing.assert_array_equal(
        np.bincount(clf.stump_features_, minlength=300)[clf.selected_features_], 2)
    fixed = DecentralizedBoostingClassifier(50, random_state=0, max_iter=20).fit(X, y, groups=g)
    assert fixed.n_estimators_ == 50 == fixed.stump_features_.shape[0]


@pytest.mark.parametrize("bad", ["Auto", "max", 0, 1.5])
def test_n_estimators_validation(bad):
    X, y = make_moons(60, random_state=0)
    with pytest.raises(ValueError, match="n_estimators"):
        DecentralizedBoostingClassifier(bad).fit(X, y, groups=np.arange(60) % 2)
