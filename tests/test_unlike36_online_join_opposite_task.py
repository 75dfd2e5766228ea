"""unlike36 (copied from review36, xfail removed): the online learner's join misses a newcomer whose task opposes the federation's.

The setting of ``test_review36_mocha_join_opposite_task.py``: three fitted
nodes of 40 rows with ``y = [x_0 > 0]``, a newcomer of 20 rows with ``y =
[x_0 <= 0]``, accuracy on 200 fresh rows of its task.  Measured at bcda3b7
with ``DecentralizedKernelSGDClassifier(random_state=0)``, seeds 0-8:

- join 0.98 / 0.465 / 0.46 / 0.815 / 0.15 / 0.805 / 0.75 / 0.745 / 0.78
  (mean 0.661);
- refit of the same estimator with the newcomer 0.98 / 0.75 / 0.82 /
  0.845 / 0.865 / 0.69 / 0.97 / 0.78 / 0.905 (mean 0.845);
- Local (better of LogisticRegression and SVC on its 20 rows): mean 0.861.

growing.rst's goal (join >= refit - 1, >= max(Global, Local)) misses by
~18 points on average and by 72 on seed 4; growing.rst's Limits do not
list the case.  Measured at bcda3b7 (before unlike36); passes with unlike36's guard
(skfed/_join_unlike.py).
"""

import warnings

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier

SEEDS = range(9)


def _join_and_refit(seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat([0, 1, 2], 40)
    Xn = rng.normal(size=(220, 3))
    yn = 1 - (Xn[:, 0] > 0).astype(int)  # the opposite task
    tr, te = slice(0, 20), slice(20, 220)
    new, fresh = np.full(20, 9), np.full(200, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=g)
        est.add_nodes(Xn[tr], yn[tr], groups=new)
        join = np.mean(est.predict(Xn[te], groups=fresh) == yn[te])
        refit = DecentralizedKernelSGDClassifier(random_state=0).fit(
            np.r_[X, Xn[tr]], np.r_[y, yn[tr]], groups=np.r_[g, new])
        refit_score = np.mean(refit.predict(Xn[te], groups=fresh) == yn[te])
    return join, refit_score


@pytest.fixture(scope="module")
def scores():
    return np.array([_join_and_refit(seed) for seed in SEEDS])


def test_control_the_refit_learns_the_opposite_task(scores):
    assert scores[:, 1].mean() >= 0.8
    assert scores[:, 1].min() >= 0.6


def test_join_within_a_point_of_the_refit(scores):
    join, refit = scores.mean(axis=0)
    assert join >= refit - 0.01, (join, refit)
