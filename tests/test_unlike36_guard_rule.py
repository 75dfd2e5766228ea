"""unlike36: the opposite-task guard of the joins, against references.

:func:`skfed._join_unlike.worse_than_chance` against an exact binomial tail
summed with :func:`math.comb`; then, for MOCHA, Dada, Perso-lin and the
online learner, a join of two newcomers, one alike (the federation's
task) and one opposite: the alike newcomer's model and every join's bytes
are those of the same join with the test switched off (the guard touches
only the flagged newcomer and sends nothing), and the opposite one is
flagged and then fits its own samples.
"""

import math
import warnings

import numpy as np
import pytest

import skfed._join_unlike as guard
from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
)


def _tail(errors, n, q):
    """P(X >= errors), X ~ Binomial(n, q), summed exactly."""
    return sum(math.comb(n, j) * q**j * (1 - q) ** (n - j) for j in range(errors, n + 1))


def test_binomial_rule_matches_an_exact_tail():
    rng = np.random.RandomState(0)
    for _ in range(200):
        n = int(rng.randint(1, 60))
        n_classes = int(rng.randint(1, 4))
        y = rng.randint(n_classes, size=n)
        pred = np.where(rng.rand(n) < rng.rand(), y, (y + 1) % 3)
        _, counts = np.unique(y, return_counts=True)
        q = 1 - counts.max() / n
        e = int(np.sum(pred != y))
        expected = q > 0 and _tail(e, n, q) < guard.ALPHA
        assert guard.worse_than_chance(pred, y, np.array([0, n]))[0] == expected


def test_rule_thresholds():
    y = np.array([0, 1] * 10)
    offsets = np.array([0, 20])
    fires = [guard.worse_than_chance(np.where(np.arange(20) < e, 1 - y, y), y, offsets)[0]
             for e in range(21)]
    assert fires.index(True) == 16 and all(fires[16:]) and not any(fires[:16])
    # five samples can never be significant at 0.01; one class never fires
    y5 = np.array([0, 1, 0, 1, 0])
    assert not guard.worse_than_chance(1 - y5, y5, np.array([0, 5]))[0]
    assert not guard.worse_than_chance(np.ones(30), np.zeros(30), np.array([0, 30]))[0]
    # per node
    both = guard.worse_than_chance(np.r_[1 - y, y], np.r_[y, y], np.array([0, 20, 40]))
    assert both.tolist() == [True, False]


def _data(seed=0, n_new=40):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat([0, 1, 2], 40)
    Xn = rng.normal(size=(2 * n_new, 3))
    yn = (Xn[:, 0] > 0).astype(int)
    yn[n_new:] = 1 - yn[n_new:]  # node 8 alike, node 9 opposite
    gn = np.repeat([8, 9], n_new)
    return X, y, g, Xn, yn, gn


FAMILIES = {
    "mocha": (lambda: FederatedMultiTaskClassifier(random_state=0),
              ["skfed.multitask._join_unlike"]),
    "dada": (lambda: DecentralizedBoostingClassifier(random_state=0),
             ["skfed._graph_join_unlike"]),
    "persolin": (lambda: PersonalizedLinearClassifier(random_state=0),
                 ["skfed._graph_join_unlike"]),
    "online": (lambda: DecentralizedKernelSGDClassifier(random_state=0),
               ["skfed.online._join_unlike"]),
}


def _join(family, monkeypatch, off):
    import importlib

    make, modules = FAMILIES[family]
    flags = []
    original = guard.worse_than_chance

    def spy(pred, y, offsets, alpha=guard.ALPHA):
        out = original(pred, y, offsets, alpha)
        flags.append(out.copy())
        return np.zeros_like(out) if off else out

    for name in modules:
        monkeypatch.setattr(importlib.import_module(name), "worse_than_chance", spy)
    X, y, g, Xn, yn, gn = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y, groups=g)
        est.add_nodes(Xn, yn, groups=gn)
    monkeypatch.undo()
    return est, flags, (Xn, yn, gn)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_guard_touches_only_the_contradicted_newcomer(family, monkeypatch):
    on, flags, (Xn, yn, gn) = _join(family, monkeypatch, off=False)
    off, _, _ = _join(family, monkeypatch, off=True)
    # the test ran once on both newcomers and flagged the opposite one only
    assert len(flags) == 1 and flags[0].tolist() == [False, True]
    alike, opposite = gn == 8, gn == 9
    # the alike newcomer is bit-identical, the bytes too
    np.testing.assert_array_equal(on.predict(Xn[alike], groups=gn[alike]),
                                  off.predict(Xn[alike], groups=gn[alike]))
    if family == "online":
        np.testing.assert_array_equal(on.decision_function(Xn[alike], groups=gn[alike]),
                                      off.decision_function(Xn[alike], groups=gn[alike]))
        assert on.join_start_.tolist()[1] == "zero"
        # it streams alone: no edge to the nodes it contradicts
        assert on.adjacency_[len(on.nodes_) - 1].nnz == 0
    else:
        np.testing.assert_array_equal(on.coef_[-2], off.coef_[-2])
        np.testing.assert_array_equal(on.coef_[:-2], off.coef_[:-2])
    assert on.join_communication_.total_bytes == off.join_communication_.total_bytes
    # the opposite newcomer: worse than chance without the guard (the online
    # learner's start is tested, and its 40 samples' passes undo most of it
    # here), fits its own samples with it
    own_off = np.mean(off.predict(Xn[opposite], groups=gn[opposite]) == yn[opposite])
    own_on = np.mean(on.predict(Xn[opposite], groups=gn[opposite]) == yn[opposite])
    assert own_on >= 0.8 and (family == "online" or own_off <= 0.3), (own_off, own_on)
