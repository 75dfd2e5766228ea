"""unlike36 (copied from review36, xfail removed): MOCHA's default join ignores a newcomer whose task opposes the federation's.

Three fitted nodes share ``y = [x_0 > 0]``; a newcomer's labels are the
opposite, ``y = [x_0 <= 0]``, on 20 or 100 rows (a node whose labels are
coded the other way round, or a population whose response is reversed).
Measured at bcda3b7, seeds 0-2, accuracy on 200 fresh rows of the
newcomer's task:

- 20 rows: Local 0.72-0.91; MOCHA default join 0.01-0.06; a refit of the
  same estimator 0.78-0.91; the ``omega="learn"`` join 0.86-0.95.
- 100 rows: Local 0.95-0.99; default join 0.03-0.06; learn join 0.95-0.99.

The default join (``omega="auto"``, the shared mode) gives the newcomer
the federation's model: 0.00-0.10 on its own training rows, even with 100
of them, where a refit of the same estimator scores 0.78-0.91 on the
fresh rows and the learned-Omega join follows the newcomer's data.  The
growing.rst goal (join >= max(Global, Local), >= refit - 1) misses by
~75 points; growing.rst's Limits do not list it.  The online learner's
join also misses on 2 of the 3 seeds at 20 rows (0.46-0.47 against Local
0.72-0.91 and a refit 0.75-0.82; at 100 rows 0.90-0.94, Local 0.95-0.99).
Perso-lin and Dada score 0.00-0.07 there as well, but their refits too
(0.00-0.06 at 20 rows): their fit, not their join (Perso-lin's refit stays
at 0.06 with 100 rows and confidence 1, its link weight 0.03: ``mu=1``
holds it to its neighbour as documented, ``mu / c_k`` sets the pull;
``mu=0.01`` gives 0.985; Dada's refit reaches 0.86-0.91 with 100 rows).  Measured at bcda3b7 (before unlike36); passes with unlike36's guard
(skfed/_join_unlike.py).
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier


def _federation(seed, n_new):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    Xn = rng.normal(size=(n_new + 200, 3))
    yn = 1 - (Xn[:, 0] > 0).astype(int)  # the opposite task
    return X, y, np.repeat([0, 1, 2], 40), Xn[:n_new], yn[:n_new], Xn[n_new:], yn[n_new:]


def _join_and_refit(seed, n_new, **params):
    X, y, g, Xn, yn, Xt, yt = _federation(seed, n_new)
    new = np.full(n_new, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskClassifier(random_state=0, **params).fit(X, y, groups=g)
        est.add_nodes(Xn, yn, groups=new)
        join = np.mean(est.predict(Xt, groups=np.full(len(yt), 9)) == yt)
        own = np.mean(est.predict(Xn, groups=new) == yn)
        refit = FederatedMultiTaskClassifier(random_state=0, **params).fit(
            np.r_[X, Xn], np.r_[y, yn], groups=np.r_[g, new])
        refit_score = np.mean(refit.predict(Xt, groups=np.full(len(yt), 9)) == yt)
    return join, own, refit_score


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_controls_refit_and_learned_join_follow_the_newcomer(seed):
    # the same estimator learns the newcomer's task in a refit, and so does
    # the learned-Omega join: the task is learnable from these 20 rows
    _, _, refit = _join_and_refit(seed, 20)
    assert refit >= 0.7
    join, own, _ = _join_and_refit(seed, 20, omega="learn")
    assert join >= 0.8 and own >= 0.9


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_join_learns_an_opposite_newcomer(seed):
    join, _, refit = _join_and_refit(seed, 20)
    assert join >= refit - 0.05, (join, refit)
    _, own, _ = _join_and_refit(seed, 100)
    assert own >= 0.8, own
