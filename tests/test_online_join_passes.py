"""The online join's passes by default (issue 32): a classifier's newcomer
streams max_epochs passes, as the fit's nodes do, unless its start
misclassifies at most a tenth of its samples; a regressor's chooses them
by cross-validation on its own samples (its NumPy reference with the
classifiers' choice switched on: tests/test_online.py)."""

import copy

import numpy as np
import pytest

import skfed.online._join as join
from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)

from ._helpers.coupling import coupled_candidates


def _data(seed=0, n_nodes=5, n_per=30, regression=False):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_nodes * n_per, 2))
    groups = np.repeat(np.arange(n_nodes), n_per)
    f = X[:, 0] * np.where(groups % 2 == 0, 1.0, -1.0) + 0.3 * X[:, 1]
    return X, (f if regression else (f > 0).astype(int)), groups


@pytest.mark.parametrize("loss, kept", [("hinge", True), ("log_loss", False)])
def test_classifier_newcomers_make_max_epochs_passes(loss, kept, monkeypatch):
    # max_epochs passes, or none when its start misclassifies at most a
    # tenth of its samples (_JOIN_KEEP_ERRORS): the start's errors counted
    # on a join that keeps every start.
    X, y, g = _data()
    fit = g < 4
    est = DecentralizedKernelSGDClassifier(loss=loss, max_epochs=3, random_state=0)
    # (the coupled federation the rule was measured on: with c = 0 among the
    # candidates (coupling38) these 4 nodes choose none on one held-out
    # sample, 0 errors against 1 of 28)
    with coupled_candidates():
        est.fit(X[fit], y[fit], groups=g[fit])
    new = (g == 4) & (np.arange(len(g)) % 30 < 6)
    with monkeypatch.context() as patch:
        patch.setattr(join, "_JOIN_KEEP_ERRORS", np.inf)
        start = copy.deepcopy(est).add_nodes(X[new], y[new], groups=g[new])
    assert start.join_passes_.tolist() == [0] and start.n_steps_[4] == 0
    errors = int(np.sum(start.predict(X[new], groups=g[new]) != y[new]))
    assert (errors <= 0.1 * new.sum()) == kept   # (both sides are checked)
    est.add_nodes(X[new], y[new], groups=g[new])
    assert est.join_start_.tolist() == start.join_start_.tolist()
    E = 0 if kept else 3
    assert est.join_passes_.tolist() == [E]
    assert est.n_steps_[4] == E * new.sum()


def test_regressor_newcomers_choose_among_the_passes(monkeypatch):
    X, y, g = _data(regression=True)
    fit = g < 4
    new = (g == 4) & (np.arange(len(g)) % 30 < 6)
    for c in (0.0, 0.3, 3.0):
        est = DecentralizedKernelSGDRegressor(max_epochs=3, consensus_penalty=c,
                                              random_state=0).fit(X[fit], y[fit], groups=g[fit])
        est.add_nodes(X[new], y[new], groups=g[new])
        assert est.join_passes_[0] in (0, 1, 3)
    # with one choice left, no cross-validation runs: the choice is that one
    monkeypatch.setattr(join, "_JOIN_PASSES", ())
    monkeypatch.setattr(join, "_cross_validated_passes", None)
    est.add_nodes(X[(g == 4) & ~new][:3], y[(g == 4) & ~new][:3],
                  groups=np.full(3, 5))
    assert est.join_passes_.tolist() == [3]
