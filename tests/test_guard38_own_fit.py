"""guard38: Perso-lin's own-fit guard (skfed/_join_own_fit.py).

Its leave-one-out ridge margins against a refit without each sample
(NumPy, written here); its p-values against guardw37's measured rule
(``benchmarks/guardw37_own_fit.py``, a separate implementation); the
sign-flip null's level by simulation; and the guard on Perso-lin's and
Dada's joins: a newcomer at 90 degrees (Perso-lin flagged and served,
Dada untouched by it), an alike one (unflagged, identical to the test
switched off).
"""

import copy
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import skfed._graph_join_unlike as graph_guard
from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed._join_own_fit import (
    loo_ridge_margins,
    own_fit_beats_join,
    own_fit_pvalues,
    sign_flip_pvalue,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import guardw37_own_fit as measured


def _refit_margins(X, t):
    """Each sample predicted by the ridge fit of the others (same scaling and
    penalty, an unpenalized intercept): one solve per sample."""
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    lam = np.sum(Z ** 2) / len(t)
    D = np.c_[np.ones(len(t)), Z]
    P = lam * np.eye(D.shape[1])
    P[0, 0] = 0.0
    out = np.empty(len(t))
    for i in range(len(t)):
        keep = np.arange(len(t)) != i
        w = np.linalg.solve(D[keep].T @ D[keep] + P, D[keep].T @ t[keep])
        out[i] = D[i] @ w
    return out


@pytest.mark.parametrize("n, d", [(12, 3), (30, 4), (8, 10)])
def test_loo_margins_are_refits_without_each_sample(n, d):
    rng = np.random.RandomState(n + d)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0, d)
    t = np.where(rng.rand(n) < 0.5, 1.0, -1.0)
    t[:2] = [1.0, -1.0]
    np.testing.assert_allclose(loo_ridge_margins(X, t), _refit_margins(X, t),
                               rtol=1e-8, atol=1e-10)


def test_pvalues_equal_guardw37s_measured_rule():
    rng = np.random.RandomState(38)
    sizes = [2, 5, 9, 12, 13, 20, 31]
    offsets = np.r_[0, np.cumsum(sizes)]
    X = rng.normal(size=(offsets[-1], 3))
    codes = (X[:, 1] + 0.5 * rng.normal(size=len(X)) > 0).astype(int)
    codes[offsets[1]:offsets[2]] = 1  # one node of one class
    F = np.where(np.repeat(np.arange(len(sizes)) % 2, sizes) == 0, X[:, 0], X[:, 1])[None]
    ours = own_fit_pvalues(X, F, codes, offsets)
    theirs = measured.own_fit_pvalues(X, F, codes, offsets)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert ours[0] == ours[1] == 1.0 and ours.min() < 0.01  # both outcomes occur
    np.testing.assert_array_equal(own_fit_beats_join(X, F, codes, offsets), ours < 0.01)
    assert np.all(own_fit_pvalues(X, np.vstack([F, F]), codes, offsets) == 1.0)


@pytest.mark.parametrize("n", [10, 16])
def test_sign_flip_level_under_exchangeable_pairs(n):
    rng = np.random.RandomState(n)
    reps = 600 if n == 16 else 1500
    fired = 0
    for _ in range(reps):
        positive = np.zeros(n, dtype=bool)
        positive[rng.permutation(n)[: n // 2]] = True
        base = positive + rng.normal(size=n)  # both models rank equally well
        fired += sign_flip_pvalue(base + rng.normal(size=n), base + rng.normal(size=n),
                                  positive) < 0.01
    assert fired / reps <= 0.01 + 2 * np.sqrt(0.01 * 0.99 / reps)


def _ninety(cls, seed, k=20, angle=90):
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(16), 60)
    X = rng.normal(size=(960, 4))
    theta = np.deg2rad(np.where(g == 15, angle, 0.0))
    y = (np.cos(theta) * X[:, 0] + np.sin(theta) * X[:, 1] > 0).astype(int)
    fitted, pos = g < 15, np.arange(960) % 60
    train, test = (g == 15) & (pos < k), (g == 15) & (pos >= k)
    est = cls(random_state=seed).fit(X[fitted], y[fitted], groups=g[fitted])
    return est, X, y, g, train, test


def _join(est, X, y, g, train, monkeypatch, off):
    calls = []
    test = graph_guard.own_fit_beats_join

    def spy(*args):
        out = np.zeros(1, dtype=bool) if off else test(*args)
        calls.append(out.tolist())
        return out
    with monkeypatch.context() as m:
        m.setattr(graph_guard, "own_fit_beats_join", spy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            joined = copy.deepcopy(est).add_nodes(X[train], y[train], groups=g[train])
    return joined, calls


def test_persolin_ninety_degree_newcomer_flagged_and_served(monkeypatch):
    est, X, y, g, train, test = _ninety(PersonalizedLinearClassifier, 6)
    on, calls = _join(est, X, y, g, train, monkeypatch, off=False)
    off, _ = _join(est, X, y, g, train, monkeypatch, off=True)
    assert calls == [[True]]
    assert on.score(X[test], y[test], groups=g[test]) >= 0.8
    assert off.score(X[test], y[test], groups=g[test]) <= 0.65
    # nothing more is sent for the test
    assert on.join_communication_.total_bytes == off.join_communication_.total_bytes


@pytest.mark.parametrize("seed", [0, 1])
def test_alike_persolin_newcomer_unflagged_and_identical(seed, monkeypatch):
    est, X, y, g, train, test = _ninety(PersonalizedLinearClassifier, seed, angle=0)
    on, calls = _join(est, X, y, g, train, monkeypatch, off=False)
    off, _ = _join(est, X, y, g, train, monkeypatch, off=True)
    assert calls == [[False]]
    np.testing.assert_array_equal(on.decision_function(X[test], groups=g[test]),
                                  off.decision_function(X[test], groups=g[test]))


def test_dada_does_not_run_it(monkeypatch):
    est, X, y, g, train, _ = _ninety(DecentralizedBoostingClassifier, 6)
    _, calls = _join(est, X, y, g, train, monkeypatch, off=False)
    assert calls == []
