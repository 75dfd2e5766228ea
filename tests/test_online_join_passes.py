"""The online join's passes by default (issue 32): a classifier's newcomer
streams max_epochs passes, as the fit's nodes do, unless its start
misclassifies at most a tenth of its samples; a regressor's always
streams them, its samples weighted by k / (n + k) (their NumPy reference:
tests/test_online.py)."""

import copy

import numpy as np
import pytest
from numpy.testing import assert_allclose

import skfed.online._join as join
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor


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


def test_regressor_newcomers_stream_max_epochs_passes_weighted_by_their_share():
    # Every regressor newcomer starts from the network function and makes
    # max_epochs passes whatever the coupling; its samples weigh k / (n + k),
    # k its samples, n its neighbours' mean count (30 each here).
    X, y, g = _data(regression=True)
    fit = g < 4
    new = (g == 4) & (np.arange(len(g)) % 30 < 6)
    for c in (0.0, 0.3, 3.0):
        est = DecentralizedKernelSGDRegressor(max_epochs=3, consensus_penalty=c,
                                              random_state=0).fit(X[fit], y[fit], groups=g[fit])
        est.add_nodes(X[new], y[new], groups=g[new])
        assert est.join_passes_.tolist() == [3]
        assert est.join_start_.tolist() == ["network"]
        assert est.join_sample_scale_.tolist() == [6 / (30 + 6)]
        assert est.n_steps_[4] == 3 * 6
    # A later newcomer counts the first one's 6 samples if it links to it.
    rest = (g == 4) & ~new
    est.add_nodes(X[rest][:4], y[rest][:4], groups=np.full(4, 5))
    counts = np.array([30.0] * 4 + [6.0])
    neighbours = est.adjacency_[5].indices
    assert_allclose(est.join_sample_scale_, [4 / (counts[neighbours].mean() + 4)])


def test_classifier_newcomers_are_not_weighted():
    X, y, g = _data()
    fit = g < 4
    new = (g == 4) & (np.arange(len(g)) % 30 < 6)
    est = DecentralizedKernelSGDClassifier(max_epochs=3, random_state=0)
    est.fit(X[fit], y[fit], groups=g[fit]).add_nodes(X[new], y[new], groups=g[new])
    assert est.join_sample_scale_.tolist() == [1.0]
