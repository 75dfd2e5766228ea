"""The contradicting-newcomer guard stays off under a finite privacy budget.

unlike36's guard (:mod:`skfed._join_unlike`) chooses, from a newcomer's raw
samples, between the join's model and the newcomer's local model; under
``privacy=`` that choice would not be covered by the join's accounting, so
the graph join skips it (:func:`skfed._graph_join_unlike.keep_local_if_contradicted`).
Checked by forcing the test to flag every newcomer: without privacy an
alike newcomer's model becomes its local one; under privacy (whose noise
no seed reproduces) the test is never consulted.
"""

import copy
import warnings

import numpy as np
import pytest

import skfed._graph_join_unlike as unlike
from skfed import PersonalizedLinearClassifier
from skfed.privacy import DifferentialPrivacy


def _fitted(privacy, join_neighbours="graph"):
    rng = np.random.RandomState(0)
    X = rng.randn(160, 3)
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat(np.arange(4), 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(join_neighbours=join_neighbours, random_state=0,
                                           privacy=privacy).fit(X, y, groups=g)
    Xn = rng.randn(20, 3)
    return est, Xn, (Xn[:, 0] > 0).astype(int), np.full(20, 9)


def _joined(est, Xn, yn, gn):
    est = copy.deepcopy(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(Xn, yn, groups=gn)
    return est.decision_function(Xn, groups=gn)


def test_forced_flag_gives_the_local_model_without_privacy(monkeypatch):
    est, Xn, yn, gn = _fitted(None)
    plain = _joined(est, Xn, yn, gn)
    monkeypatch.setattr(unlike, "contradicted", lambda Z, Y, layout, models, sw=None: np.ones(
        len(models), dtype=bool))
    forced = _joined(est, Xn, yn, gn)
    assert not np.array_equal(forced, plain)


@pytest.mark.parametrize("join_neighbours", ["graph", "auto"])  # ("posterior" refuses privacy)
def test_no_guard_under_privacy(join_neighbours, monkeypatch):
    est, Xn, yn, gn = _fitted(DifferentialPrivacy(epsilon=2.0), join_neighbours)

    def consulted(*args):
        raise AssertionError("the guard read a newcomer's samples under privacy")

    monkeypatch.setattr(unlike, "contradicted", consulted)
    decision = _joined(est, Xn, yn, gn)
    assert decision.shape == (20,) and np.isfinite(decision).all()
