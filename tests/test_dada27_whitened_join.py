"""Dada's one-class newcomers placed by the Mahalanobis distance of the
fitted nodes' pooled within-node covariance (skfed.boosting._dada_gate).

References: the pooled scatter from a NumPy loop over the nodes, the 5
nearest fitted means by a brute-force Mahalanobis distance with its
(pseudo-)inverse, and the scatter round's bytes in closed form.
"""

import copy

import numpy as np

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting import _dada_gate as dg
from skfed.network import DEFAULT_HEADER_BYTES, payload_bytes

from .test_dada18_one_class_join import nearest5, numpy_means, terrains


def correlated_terrains():
    """``terrains`` (feature 0 tells the terrain) with a fourth feature of
    large within-node spread, correlated with feature 2."""
    X, y, g = terrains(n_nodes=14)
    rng = np.random.RandomState(1)
    extra = 4.0 * X[:, 2] + 2.0 * rng.normal(size=len(X))
    return np.column_stack([X, extra]), y, g


def newcomer(seed=1):
    """One node of terrain +1, six samples of one class."""
    rng = np.random.RandomState(seed)
    a = rng.normal(size=(6, 3))
    a[:, 0] += 3
    a[:, 1] = np.abs(a[:, 1])
    a = np.column_stack([a, 4.0 * a[:, 2] + 2.0 * rng.normal(size=6)])
    return a, np.ones(6, int), np.full(6, 100)


def _fit(X, y, g):
    return DecentralizedBoostingClassifier(n_estimators=12, random_state=0,
                                           join_neighbours="auto").fit(X, y, groups=g)


def pooled_scatter(X, g, nodes):
    S = np.zeros((X.shape[1], X.shape[1]))
    for k in nodes:
        C = X[g == k] - X[g == k].mean(axis=0)
        for row in C:
            S += np.outer(row, row)
    return S


def mahalanobis5(means, target, S):
    P = np.linalg.pinv(S)
    diff = means - target
    return np.argsort(np.einsum("ij,jk,ik->i", diff, P, diff), kind="stable")[:5]


def test_map_is_the_pooled_scatter_inverse_and_places_the_newcomer():
    X, y, g = correlated_terrains()
    clf = _fit(X, y, g)
    assert clf.newcomer_rule_ == "one-class"
    S = pooled_scatter(X, g, clf.nodes_)
    L = clf._feature_map
    np.testing.assert_allclose(L @ L.T, np.linalg.inv(S), rtol=1e-8, atol=1e-14)
    Xn, yn, gn = newcomer()
    means, masses = numpy_means(X, g, clf.nodes_)
    near = mahalanobis5(means, Xn.mean(axis=0), S)
    euclid = nearest5(means, Xn.mean(axis=0))
    assert set(near) != set(euclid)                       # the case tells them apart
    assert set(clf.nodes_[near] % 2) == {1}                # its own terrain
    joined = copy.deepcopy(clf).add_nodes(Xn, yn, groups=gn)
    n_fit = len(clf.nodes_)
    W = joined.collaboration_graph_.toarray()
    assert set(np.flatnonzero(W[n_fit])) == set(near)
    np.testing.assert_allclose(W[n_fit, near], masses[near] / masses[near].sum())
    before = clf._full_coef()
    np.testing.assert_allclose(joined._full_coef()[n_fit],
                               np.tensordot(masses[near] / masses[near].sum(), before[near], axes=1),
                               rtol=1e-12, atol=1e-15)
    # the newcomer still sends its d-value mean: the join's bytes in closed form
    d = X.shape[1]
    from skfed.graph import model_message_bytes
    per_model = model_message_bytes(before.reshape(n_fit, -1), before.dtype)
    # (the hub's answer also carries the fit's largest mass: skfed._node_mass)
    expected = (payload_bytes(n_float64=d) + payload_bytes(n_float64=5 + 1, n_int32=5)
                + 5 * payload_bytes() + int(per_model[near].sum())
                + 5 * payload_bytes(n_float64=1) + DEFAULT_HEADER_BYTES * 17)
    assert joined.join_communication_.total_bytes == expected


def test_scatter_round_bytes_and_the_cap(monkeypatch):
    X, y, g = correlated_terrains()
    whitened = _fit(X, y, g)
    monkeypatch.setattr(dg, "WHITEN_MAX_FEATURES", X.shape[1] - 1)
    plain = _fit(X, y, g)
    assert plain._feature_map is None and plain.newcomer_rule_ == "one-class"
    n, d = len(plain.nodes_), X.shape[1]
    extra = (n - 1) * (payload_bytes(n_float64=d * (d + 1) // 2) + DEFAULT_HEADER_BYTES)
    assert whitened.newcomer_gate_["n_bytes"] - plain.newcomer_gate_["n_bytes"] == extra
    assert whitened.n_messages_ - plain.n_messages_ == n - 1
    assert whitened.n_bytes_sent_ == whitened.communication_.total_bytes
    np.testing.assert_array_equal(whitened.coef_, plain.coef_)   # the fit is unchanged
    # above the cap the newcomer's neighbours are the Euclidean ones
    Xn, yn, gn = newcomer()
    means, _ = numpy_means(X, g, plain.nodes_)
    joined = copy.deepcopy(plain).add_nodes(Xn, yn, groups=gn)
    W = joined.collaboration_graph_.toarray()
    assert set(np.flatnonzero(W[n])) == set(nearest5(means, Xn.mean(axis=0)))


def test_closed_gate_sends_no_scatter():
    X, y, g = terrains(n_nodes=14, shared=True, offset=0.0)
    clf = _fit(X, y, g)
    assert not clf.newcomer_gate_["open"] and getattr(clf, "_feature_map", None) is None


def test_hub_whitening_is_a_pseudo_inverse():
    rng = np.random.RandomState(0)
    A = rng.normal(size=(3, 5))
    S = A.T @ A                                              # rank 3 of 5
    L = dg.hub_whitening(S)
    assert L.shape == (5, 3)
    M = L @ L.T
    # a generalized inverse (S M S = S) whose distances on the range of S,
    # where every within-node difference lies, are pinv's; off the range the
    # Jacobi-scaled cut (review28: units must not matter) differs from pinv
    np.testing.assert_allclose(S @ M @ S, S, atol=1e-10)
    v = A.T @ rng.normal(size=(3, 7))                        # in range(S)
    np.testing.assert_allclose(np.einsum("ij,ik,kj->j", v, M, v),
                               np.einsum("ij,ik,kj->j", v, np.linalg.pinv(S), v), rtol=1e-9)
    full = S + np.diag([1e-3, 2.0, 0.5, 4.0, 1.0])           # full rank: the inverse
    np.testing.assert_allclose(dg.hub_whitening(full) @ dg.hub_whitening(full).T,
                               np.linalg.inv(full), rtol=1e-8, atol=1e-10)
    assert dg.hub_whitening(np.zeros((2, 2))) is None
    assert dg.hub_whitening(-np.eye(2)) is None
