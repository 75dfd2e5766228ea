"""The hub's nearest-peers queries through a KD-tree or matrix products
(skfed._mean_neighbours.nearest_rows, review25): the same neighbours as the
full stable argsort of the squared distances (ties by index) on tie-heavy
draws, on both paths and the scan; a Perso-lin fit's gate and join the same
through the tree as through the scan.
"""

import numpy as np
import pytest

from skfed import _mean_neighbours as mn
from skfed.boosting import PersonalizedLinearClassifier


def _argsort_reference(means, target, m, exclude=None):
    dist = ((means - target) ** 2).sum(axis=1)
    if exclude is not None:
        dist[exclude] = np.inf
    count = min(m, len(means) - (exclude is not None))
    return np.argsort(dist, kind="stable")[:count].tolist()


def _draw(kind, n, d, rng):
    if kind == "grid":        # many equal distances
        return rng.randint(0, 3, size=(n, d)).astype(float)
    if kind == "copies":      # whole groups of identical means (ties at 0)
        return rng.normal(size=(4, d))[rng.randint(0, 4, size=n)]
    if kind == "far":         # far from the origin, close together
        return 1e3 + 1e-3 * rng.randint(0, 4, size=(n, d))
    return rng.normal(size=(n, d))


@pytest.mark.parametrize("path", ["tree", "product"])
@pytest.mark.parametrize("kind", ["grid", "copies", "far", "normal"])
def test_nearest_rows_is_the_stable_argsort(monkeypatch, path, kind):
    monkeypatch.setattr(mn, "BRUTE_MAX_NODES", 0)
    monkeypatch.setattr(mn, "KD_MAX_FEATURES", 10 ** 9 if path == "tree" else -1)
    rng = np.random.RandomState(["grid", "copies", "far", "normal"].index(kind))
    checked = 0
    for _ in range(40):
        n, d, m = rng.randint(8, 120), rng.randint(1, 5), rng.randint(1, 7)
        means = _draw(kind, n, d, rng)
        got = mn.nearest_rows(means, means, m, exclude=np.arange(n))
        assert [g.tolist() for g in got] == [_argsort_reference(means, means[i], m, i)
                                             for i in range(n)]
        targets = np.vstack([means[:5], _draw(kind, 5, d, rng)])
        got = mn.nearest_rows(means, targets, m)
        assert [g.tolist() for g in got] == [_argsort_reference(means, t, m) for t in targets]
        assert all(len(g) == min(m, n) for g in got)
        checked += 2 * n + 10
    assert checked > 1000


def test_ties_reach_past_the_proposals(monkeypatch):
    """20 identical means: every query's ties span far more than the
    ``count + 2`` proposals, and the lowest indices win."""
    monkeypatch.setattr(mn, "BRUTE_MAX_NODES", 0)
    means = np.vstack([np.zeros((20, 2)), np.ones((30, 2))])
    got = mn.nearest_rows(means, means, 5, exclude=np.arange(50))
    assert got[0].tolist() == [1, 2, 3, 4, 5]
    assert got[3].tolist() == [0, 1, 2, 4, 5]
    assert got[49].tolist() == [20, 21, 22, 23, 24]


def test_small_or_non_finite_use_the_scan(monkeypatch):
    means = np.arange(12.0).reshape(6, 2)
    assert [g.tolist() for g in mn.nearest_rows(means, means[:2], 9)] == [
        _argsort_reference(means, means[0], 9), _argsort_reference(means, means[1], 9)]
    monkeypatch.setattr(mn, "BRUTE_MAX_NODES", 0)
    means = np.vstack([np.arange(40.0).reshape(20, 2), [[np.nan, 0.0]]])
    got = mn.nearest_rows(means, means[:3], 4, exclude=np.arange(3))
    assert [g.tolist() for g in got] == [mn.nearest(means, means[i], 4, i).tolist()
                                         for i in range(3)]


def _terrains(n_nodes, n_rows=12, seed=0):
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(n_nodes):
        Xk = rng.normal(size=(n_rows, 3)) + (np.array([4.0, 0, 0]) if k % 2 else 0.0)
        y.append((Xk[:, 1 if k % 2 else 2] > 0).astype(int))
        X.append(Xk)
        g.append(np.full(n_rows, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def test_persolin_gate_and_join_same_through_the_tree(monkeypatch):
    X, y, g = _terrains(90)
    Xn, yn, gn = _terrains(4, seed=5)
    fits = []
    for brute in (10 ** 9, 0):
        monkeypatch.setattr(mn, "BRUTE_MAX_NODES", brute)
        clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
        clf.add_nodes(Xn, yn, groups=gn + 1000)
        fits.append(clf)
    scan, tree = fits
    assert scan.newcomer_gate_ is not None and scan.newcomer_rule_ == "features"
    assert tree.newcomer_gate_["t"] == scan.newcomer_gate_["t"]
    np.testing.assert_array_equal(tree.newcomer_gate_["gains"], scan.newcomer_gate_["gains"])
    np.testing.assert_array_equal(tree.coef_, scan.coef_)
    assert (tree.collaboration_graph_ != scan.collaboration_graph_).nnz == 0
    assert tree.n_bytes_sent_ == scan.n_bytes_sent_
