"""MOCHA ``add_nodes`` with newcomer sample weights past the fit's float32
bound (review33).

leadfix57b (be63001) made ``fit`` refuse ``C`` times the total sample
weight above 8.5e37, where ``lambda = 1 / (C n)`` underflows float32 (``mu
= lambda m / (1 - b)`` travels as float32).  ``add_nodes`` has no such
check: in the shared mode (``omega="auto"`` on these data) a newcomer's
``mu`` is divided by its confidence ``total weight / fitted mean weight``
(skfed/multitask/_join.py, the ``mode == "shared"`` branch) and its model
goes erratic past the same scale, with only the "local solve did not reach
its tolerance" warning.  Measured (one newcomer of 30 rows, every weight
``s``, norm of its coefficients; 10 fitted nodes of 30 rows, separable
labels): s = 1: 5.27, 1e30: 198, 1e36: 133, 1e37: 2.4e30, 1e38: 1.1e6,
1e39: 4.8e32, 1e45: 5.2e38, and at 1e60 and 1e100 back to 5.27296 (s = 1:
5.2729615, s = 1e60: 5.2729614: the weight silently has no effect).  Expected, as
``fit`` does with the same weights: a ValueError naming ``sample_weight``.
"""

import copy
import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier


def _data():
    rng = np.random.RandomState(0)
    w = rng.normal(size=5)
    X = rng.normal(size=(330, 5))
    y = (X @ w > 0).astype(int)
    g = np.repeat(np.arange(11), 30)
    return X, y, g


@pytest.fixture(scope="module")
def fitted():
    X, y, g = _data()
    fit = g < 10
    est = FederatedMultiTaskClassifier(random_state=0).fit(X[fit], y[fit], groups=g[fit])
    assert est.omega_mode_ == "shared"
    return est


def test_fit_refuses_these_weights_by_name():
    """Control: the same per-row weight on the fitted nodes is refused."""
    X, y, g = _data()
    with pytest.raises(ValueError, match="sample_weight"):
        FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g,
                                                         sample_weight=np.full(len(y), 1e60))


def test_moderate_weights_move_the_newcomer(fitted):
    """Control: within the bound, heavier newcomers trust their own rows more
    (the coefficient norm grows from the prior's on separable rows)."""
    X, y, g = _data()
    new = g == 10
    norms = []
    for s in (1.0, 1e10):
        e = copy.deepcopy(fitted)
        e.add_nodes(X[new], y[new], groups=g[new], sample_weight=np.full(30, s))
        norms.append(np.linalg.norm(e.coef_[-1]))
    assert norms[1] > 2 * norms[0]


def test_join_refuses_weights_past_the_float32_bound(fitted):
    X, y, g = _data()
    new = g == 10
    e = copy.deepcopy(fitted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="sample_weight"):
            e.add_nodes(X[new], y[new], groups=g[new], sample_weight=np.full(30, 1e60))
