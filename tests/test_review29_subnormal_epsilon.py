"""review29: the smallest positive epsilon is refused by name, not crashed.

f0fbf1b refuses a budget too small to calibrate (epsilon 1e-12 .. 1e-300)
naming epsilon, but at ``epsilon=5e-324`` (the least positive double, a
valid ``DifferentialPrivacy``) the class vote's share ``0.1 * epsilon``
underflows to 0 and ``vote_guard`` divided by it: Perso-lin and MOCHA
raised ``ZeroDivisionError: float division by zero`` before any check.
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier
from skfed._class_vote import split_budget
from skfed.boosting import PersonalizedLinearClassifier
from skfed.privacy import DifferentialPrivacy


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 3))
    return X, (X[:, 0] > 0).astype(int), np.repeat(np.arange(10), 20)


@pytest.mark.parametrize("cls", [PersonalizedLinearClassifier, FederatedMultiTaskClassifier])
def test_least_positive_epsilon_refused_by_name(cls):
    X, y, g = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"epsilon=5e-324.*too small"):
            cls(privacy=DifferentialPrivacy(epsilon=5e-324), random_state=0).fit(X, y, groups=g)


def test_split_budget_underflow_keeps_the_whole_budget_for_the_fit():
    # no vote share can be spent: the fit takes all of it (as below the guard)
    assert split_budget(5e-324, 10) == (5e-324, 0.0)
    fit, vote = split_budget(1.0, 10 ** 6)
    assert vote > 0 and fit + vote == pytest.approx(1.0)
