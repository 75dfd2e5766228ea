"""unlike36 (copied from review36, xfail removed): Dada's join gives an opposite-task newcomer the federation's vote.

Three fitted nodes of 40 rows with ``y = [x_0 > 0]``, a newcomer of 100
rows (more than any fitted node) with ``y = [x_0 <= 0]``; accuracy on 200
fresh rows of its task.  Measured at bcda3b7,
``DecentralizedBoostingClassifier(random_state=0)``, seeds 0-2: join 0.0 /
0.015 / 0.0, a refit of the same estimator with the newcomer 0.905 /
0.855 / 0.88.  (At 20 rows the refit also scores 0.00-0.01, so only the
100-row case is pinned.)  growing.rst's goal (join >= refit - 1) misses by
~87 points; its Limits do not list the case.  Measured at bcda3b7 (before unlike36); passes with unlike36's guard
(skfed/_join_unlike.py).
"""

import warnings

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier


def _join_and_refit(seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat([0, 1, 2], 40)
    Xn = rng.normal(size=(300, 3))
    yn = 1 - (Xn[:, 0] > 0).astype(int)  # the opposite task
    new, fresh = np.full(100, 9), np.full(200, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedBoostingClassifier(random_state=0).fit(X, y, groups=g)
        est.add_nodes(Xn[:100], yn[:100], groups=new)
        join = np.mean(est.predict(Xn[100:], groups=fresh) == yn[100:])
        refit = DecentralizedBoostingClassifier(random_state=0).fit(
            np.r_[X, Xn[:100]], np.r_[y, yn[:100]], groups=np.r_[g, new])
        refit_score = np.mean(refit.predict(Xn[100:], groups=fresh) == yn[100:])
    return join, refit_score


@pytest.fixture(scope="module")
def scores():
    return np.array([_join_and_refit(seed) for seed in range(3)])


def test_control_the_refit_learns_the_opposite_task(scores):
    assert scores[:, 1].min() >= 0.8


def test_join_within_a_point_of_the_refit(scores):
    join, refit = scores.mean(axis=0)
    assert join >= refit - 0.01, (join, refit)
