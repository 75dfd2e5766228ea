"""review36: the online and Dada joins miss a newcomer whose task opposes the federation's.

The setting of ``test_review36_mocha_join_opposite_task.py``: three fitted
nodes of 40 rows with ``y = [x_0 > 0]``, a newcomer with ``y = [x_0 <=
0]``, accuracy on 200 fresh rows of its task; ``random_state=0``, measured
at bcda3b7.

Online (``DecentralizedKernelSGDClassifier``, 20 newcomer rows, seeds 0-8):

- join 0.98 / 0.465 / 0.46 / 0.815 / 0.15 / 0.805 / 0.75 / 0.745 / 0.78
  (mean 0.661);
- refit of the same estimator with the newcomer 0.98 / 0.75 / 0.82 /
  0.845 / 0.865 / 0.69 / 0.97 / 0.78 / 0.905 (mean 0.845);
- Local (better of LogisticRegression and SVC on its 20 rows): mean 0.861.

Dada (``DecentralizedBoostingClassifier``, 100 newcomer rows, more than
any fitted node, seeds 0-2): join 0.0 / 0.015 / 0.0, refit 0.905 / 0.855 /
0.88.  (At 20 rows Dada's refit also scores 0.00-0.01, so only the 100-row
case is pinned.)

growing.rst's goal (join >= refit - 1, >= max(Global, Local)) misses by
~18 points on average online (72 on seed 4) and ~87 for Dada; its Limits
do not list the case.  Strict xfails (skfed/online/_join*.py;
skfed/boosting/_dada*.py and skfed/_graph_join*.py: other helpers', not
small fixes).
"""

import warnings

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier, DecentralizedKernelSGDClassifier

# estimator, newcomer rows, seeds, the measured miss (strict xfail reason)
CASES = {
    "online": (DecentralizedKernelSGDClassifier, 20, range(9),
               ("the online join scores 0.661 on average over seeds 0-8 (0.15 on seed 4) "
                "where a refit scores 0.845 and Local 0.861 (skfed/online/_join*.py)")),
    "dada": (DecentralizedBoostingClassifier, 100, range(3),
             ("Dada's join scores 0.0-0.015 on seeds 0-2 where a refit scores "
              "0.855-0.905 (skfed/boosting/_dada*.py, skfed/_graph_join*.py)")),
}


def _join_and_refit(Est, n_new, seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat([0, 1, 2], 40)
    Xn = rng.normal(size=(n_new + 200, 3))
    yn = 1 - (Xn[:, 0] > 0).astype(int)  # the opposite task
    tr, te = slice(0, n_new), slice(n_new, n_new + 200)
    new, fresh = np.full(n_new, 9), np.full(200, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = Est(random_state=0).fit(X, y, groups=g)
        est.add_nodes(Xn[tr], yn[tr], groups=new)
        join = np.mean(est.predict(Xn[te], groups=fresh) == yn[te])
        refit = Est(random_state=0).fit(np.r_[X, Xn[tr]], np.r_[y, yn[tr]],
                                        groups=np.r_[g, new])
        refit_score = np.mean(refit.predict(Xn[te], groups=fresh) == yn[te])
    return join, refit_score


@pytest.fixture(scope="module", params=sorted(CASES))
def scores(request):
    Est, n_new, seeds, _ = CASES[request.param]
    return request.param, np.array([_join_and_refit(Est, n_new, seed) for seed in seeds])


def test_control_the_refit_learns_the_opposite_task(scores):
    _, table = scores
    assert table[:, 1].mean() >= 0.8
    assert table[:, 1].min() >= 0.6


def test_join_within_a_point_of_the_refit(scores, request):
    name, table = scores
    request.applymarker(pytest.mark.xfail(strict=True, reason="review36: " + CASES[name][3]))
    join, refit = table.mean(axis=0)
    assert join >= refit - 0.01, (join, refit)
