"""Mahalanobis placement of newcomers through one scatter round
(skfed._mean_scatter) for Perso-lin and MOCHA, and the hub's bound on
rogue nodes' scatters.

References: the pooled scatter from a NumPy loop over the nodes and its
NumPy inverse, the 5 nearest fitted means by brute-force Mahalanobis
distance, the round's bytes in closed form, and the rogue bound from a
NumPy median and eigen-decomposition written from the module's text.
"""

import copy

import numpy as np
import pytest

from skfed import _mean_scatter as ms
from skfed.boosting import PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier
from skfed.multitask import _join_neighbours as jn
from skfed.network import DEFAULT_HEADER_BYTES, payload_bytes

from .test_dada18_one_class_join import nearest5, numpy_means
from .test_multitask_join_neighbours import _terrains
from .test_dada27_whitened_join import (correlated_terrains, mahalanobis5, newcomer,
                                        pooled_scatter)


def _scatters(n=15, d=4, seed=0):
    """Honest nodes' scatters (upper triangles) of correlated features."""
    rng = np.random.RandomState(seed)
    A = rng.normal(size=(d, d))
    out = []
    for _ in range(n):
        Z = rng.normal(size=(30 + rng.randint(20), d)) @ A
        C = Z - Z.mean(axis=0)
        out.append((C.T @ C)[np.triu_indices(d)])
    return np.array(out), A


def _full(tri, d):
    S = np.zeros((d, d))
    S[np.triu_indices(d)] = tri
    return S + np.triu(S, 1).T


def test_honest_pool_is_the_plain_sum_bit_for_bit():
    tri, _ = _scatters()
    pooled, factors = ms.pool_scatters(tri, 4)
    np.testing.assert_array_equal(factors, 1.0)
    np.testing.assert_array_equal(pooled, _full(tri.sum(axis=0), 4))
    np.testing.assert_array_equal(ms.pool_scatters(tri, 4, cap=None)[0], pooled)


@pytest.mark.parametrize("attack", ["huge", "rotated", "negated", "nan"])
def test_rogue_scatters_move_the_pool_at_most_the_bound(attack):
    d = 4
    tri, A = _scatters(d=d)
    honest = tri.copy()
    rogue = [2, 7, 11]
    rng = np.random.RandomState(3)
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    for i in rogue:
        S = _full(tri[i], d)
        S = {"huge": 1e6 * S, "rotated": 1e3 * Q @ S @ Q.T, "negated": -1e6 * S,
             "nan": np.full((d, d), np.nan)}[attack]
        tri[i] = S[np.triu_indices(d)]
    pooled, factors = ms.pool_scatters(tri, d)
    # reference: a received matrix with a clearly negative eigenvalue is
    # replaced by its positive part; the median of them, floored, whitens each
    fin = [i for i in range(len(tri)) if np.isfinite(tri[i]).all()]
    received = tri.copy()
    for i in fin:
        lam, V = np.linalg.eigh(_full(tri[i], d))
        if lam[0] < -1e-4 * np.abs(lam).max():
            tri[i] = (V @ np.diag(np.maximum(lam, 0)) @ V.T)[np.triu_indices(d)]
    M = np.median(np.stack([_full(tri[i], d) for i in fin]), axis=0)
    lam, V = np.linalg.eigh(M)
    R = V @ np.diag(1 / np.sqrt(np.maximum(lam, 1e-6 * lam.max()))) @ V.T
    r = np.array([np.abs(np.linalg.eigvalsh(R @ _full(tri[i], d) @ R)).max() if i in fin
                  else np.inf for i in range(len(tri))])
    c = ms.CAP * np.median(r[np.isfinite(r)])
    honest_ids = [i for i in range(len(tri)) if i not in rogue]
    assert (r[honest_ids] <= c).all() and (factors[honest_ids] == 1.0).all()
    if attack in ("huge", "rotated", "nan"):
        assert (factors[rogue] == 0.0).all() and (r[rogue] > c).all()  # left out
    H = _full(honest[honest_ids].sum(axis=0), d)
    # the rogue part of the pool lies between 0 and len(rogue) c M (Loewner order)
    E = np.linalg.eigvalsh(R @ (pooled - H) @ R)
    scale = np.linalg.eigvalsh(R @ H @ R).max()
    assert E.min() >= -1e-9 * scale and E.max() <= len(rogue) * c * (1 + 1e-9)
    # and the plain sum of what they sent does not
    if attack != "nan":
        plain = _full(received.sum(axis=0), d)
        assert np.abs(np.linalg.eigvalsh(R @ (plain - H) @ R)).max() > 100 * len(rogue) * c


def test_rogue_cannot_move_a_newcomer_but_the_plain_sum_does():
    """Two terrains (feature 0), a feature of large within-node spread:
    honest Mahalanobis placement picks the newcomer's terrain; a rogue
    scatter that puts all its variance on feature 0 (huge) flips the plain
    sum's choice, not the bounded pool's."""
    X, _, g = correlated_terrains()
    nodes = np.unique(g)
    means, _ = numpy_means(X, g, nodes)
    d = X.shape[1]
    iu = np.triu_indices(d)
    tri = np.array([pooled_scatter(X, g, [k])[iu] for k in nodes])
    target = newcomer()[0].mean(axis=0)
    honest = mahalanobis5(means, target, _full(tri.sum(axis=0), d))
    assert set(nodes[honest] % 2) == {1}
    attacked = tri.copy()
    bad = np.zeros((d, d))
    bad[0, 0] = 1e9
    attacked[[0, 3]] = bad[iu]
    L = ms.hub_whitening(ms.pool_scatters(attacked, d)[0])
    robust = np.argsort(((means @ L - target @ L) ** 2).sum(axis=1), kind="stable")[:5]
    plain = mahalanobis5(means, target, _full(attacked.sum(axis=0), d))
    assert set(robust) == set(honest)
    assert set(plain) != set(honest)


def _persolin(X, y, g):
    return PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)


def test_persolin_map_placement_and_bytes(monkeypatch):
    X, y, g = correlated_terrains()
    clf = _persolin(X, y, g)
    assert clf.newcomer_rule_ == "features"
    S = pooled_scatter(X, g, clf.nodes_)
    L = clf._join_info["feature_map"]
    np.testing.assert_allclose(L @ L.T, np.linalg.inv(S), rtol=1e-8, atol=1e-14)
    Xn, yn, gn = newcomer()
    means, masses = numpy_means(X, g, clf.nodes_)
    near = mahalanobis5(means, Xn.mean(axis=0), S)
    assert set(near) != set(nearest5(means, Xn.mean(axis=0)))   # the case tells them apart
    joined = copy.deepcopy(clf).add_nodes(Xn, yn, groups=gn)
    n = len(clf.nodes_)
    W = joined.collaboration_graph_.toarray()
    assert set(np.flatnonzero(W[n])) == set(near)
    np.testing.assert_allclose(W[n, near], masses[near] / masses[near].sum())
    np.testing.assert_allclose(
        joined._full_coef()[n], np.tensordot(masses[near] / masses[near].sum(),
                                             clf._full_coef()[near], axes=1), rtol=1e-12)
    # Euclidean (the scatter round off): no scatter sent, the fit's models
    # bit-identical
    monkeypatch.setattr(ms, "WHITEN_MAX_FEATURES", 0)
    plain = _persolin(X, y, g)
    assert plain._join_info["feature_map"] is None
    np.testing.assert_array_equal(plain.coef_, clf.coef_)
    d = X.shape[1]
    extra = (n - 1) * (payload_bytes(n_float64=d * (d + 1) // 2) + DEFAULT_HEADER_BYTES)
    assert clf.newcomer_gate_["n_bytes"] - plain.newcomer_gate_["n_bytes"] == extra
    assert clf.n_bytes_sent_ - plain.n_bytes_sent_ == extra
    eucl = copy.deepcopy(plain).add_nodes(Xn, yn, groups=gn)
    assert set(np.flatnonzero(eucl.collaboration_graph_.toarray()[n])) == set(
        nearest5(means, Xn.mean(axis=0)))
    assert eucl.join_communication_.total_bytes == joined.join_communication_.total_bytes


def _mocha_terrains():
    """MOCHA's gate test nodes (two kinds told apart by feature 2's mean) with
    a fourth feature of large within-node spread, correlated with feature 2."""
    X, y, g = _terrains()
    side = np.where(g % 2, 1.0, -1.0)
    extra = 4.0 * (X[:, 2] - 3.0 * side) + 2.0 * np.random.RandomState(1).normal(size=len(X))
    return np.column_stack([X, extra]), y, g


def test_mocha_map_centres_and_bytes(monkeypatch):
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)   # (a small fit)
    X, y, g = _mocha_terrains()
    old = g < 14
    est = FederatedMultiTaskClassifier(random_state=0).fit(X[old], y[old], groups=g[old])
    gate = est._join_rehearsal.neighbours
    assert gate.open
    nodes = np.unique(g[old])
    S = pooled_scatter(X[old], g[old], nodes)
    # the scatters travel as float32
    np.testing.assert_allclose(gate.whiten @ gate.whiten.T, np.linalg.inv(S), rtol=1e-5)
    rng = np.random.RandomState(2)
    Xn = np.column_stack([rng.normal(size=(6, 3)), np.zeros(6)])
    Xn[:, 2] += 3.0
    Xn[:, 3] = 4.0 * (Xn[:, 2] - 3.0) + 2.0 * rng.normal(size=6)
    Xn[:, 0] = np.abs(Xn[:, 0])
    yn, gn = np.ones(6, int), np.full(6, 100)
    means, masses = numpy_means(X[old], g[old], nodes)
    near = mahalanobis5(means, Xn.mean(axis=0), S)
    assert set(near) != set(nearest5(means, Xn.mean(axis=0)))
    assert set(nodes[near] % 2) == {1}
    W = est._W[:, :len(nodes)]
    centre = gate.centres(W, np.column_stack([Xn, np.ones(6)]), np.array([0, 6]), np.ones(6))
    np.testing.assert_allclose(
        centre[:, 0], np.tensordot(masses[near] / masses[near].sum(), W[:, near], axes=([0], [1])),
        rtol=1e-12)
    joined = copy.deepcopy(est).add_nodes(Xn, yn, groups=gn)
    plain_est = copy.deepcopy(est)
    plain_est._join_rehearsal.neighbours.whiten = None
    plain = plain_est.add_nodes(Xn, yn, groups=gn)
    d = X.shape[1]
    extra = len(nodes) * (d * (d + 1) // 2 * jn.SCATTER_BYTES + DEFAULT_HEADER_BYTES)
    assert (joined.join_communication_.total_bytes - plain.join_communication_.total_bytes
            == extra)
    assert gate.n_bytes(8, DEFAULT_HEADER_BYTES) - gate.n_bytes(
        8, DEFAULT_HEADER_BYTES, scatter=False) == extra


def test_no_scatter_above_the_feature_limit(monkeypatch):
    X, y, g = correlated_terrains()
    monkeypatch.setattr(ms, "WHITEN_MAX_FEATURES", X.shape[1] - 1)
    clf = _persolin(X, y, g)
    assert clf.newcomer_rule_ == "features" and clf._join_info["feature_map"] is None


def test_honest_rank_deficient_float32_scatters_are_kept_bit_for_bit():
    """Nodes of fewer samples than features (rotated moons: 3-15 of 20),
    rounded to float32 as a float32 fit sends them: none is taken for a
    negated scatter, the pool is their plain sum."""
    rng = np.random.RandomState(4)
    d = 6
    tri = []
    for n_rows in (2, 3, 4, 5, 3, 2, 6, 4):
        C = rng.normal(size=(n_rows, d)) * [1, 10, 0.1, 1, 100, 1]
        C = C - C.mean(axis=0)
        tri.append((C.T @ C)[np.triu_indices(d)].astype(np.float32).astype(np.float64))
    tri = np.array(tri)
    assert np.linalg.eigvalsh(_full(tri[0], d))[0] < 0      # rounding: slightly indefinite
    np.testing.assert_array_equal(ms.positive_parts(tri, d), tri)
    pooled, factors = ms.pool_scatters(tri, d)
    np.testing.assert_array_equal(factors, 1.0)
    np.testing.assert_array_equal(pooled, _full(tri.sum(axis=0), d))


def test_node_level_direction_kept_and_collinear_one_free():
    """With the node means, a feature of no within-node spread keeps a
    dominant weight (its difference of one spread of the means costs 1, a
    within-node direction ~1/rows), and an exactly collinear feature adds
    nothing (reference: NumPy distances on hand-built scatters)."""
    rng = np.random.RandomState(3)
    rows = rng.normal(size=(400, 2))
    W = np.zeros((4, 4))
    W[:2, :2] = rows.T @ rows                      # features 0, 1 vary within nodes
    W[3, :2] = W[:2, 3] = W[:2, :2] @ [1.0, 2.0]   # feature 3 = x0 + 2 x1
    W[3, 3] = np.array([1.0, 2.0]) @ W[:2, :2] @ [1.0, 2.0]
    means = rng.normal(size=(10, 4))
    means[:, 2] = np.repeat([-3.0, 3.0], 5)        # feature 2: the node's site, constant inside
    means[:, 3] = means[:, 0] + 2 * means[:, 1]
    L = ms.hub_whitening(W, means=means)
    mad = 1.4826 * np.median(np.abs(means[:, 2] - np.median(means[:, 2])))
    site = np.array([0.0, 0.0, mad, 0.0])
    np.testing.assert_allclose(np.sum((site @ L) ** 2), 1.0, rtol=1e-9)
    within = np.array([1.0, -0.5, 0.0, 0.0])
    within[3] = within[0] + 2 * within[1]
    np.testing.assert_allclose(np.sum((within @ L) ** 2),
                               within[:2] @ np.linalg.inv(W[:2, :2]) @ within[:2], rtol=1e-9)
    assert np.sum((within @ L) ** 2) < 1e-2
    # the site and the collinear direction are kept (4 columns), the latter
    # at no cost to differences that obey the relation (the distance above)
    assert L.shape[1] == 4
    assert ms.hub_whitening(W).shape[1] == 2        # without the means both are dropped
    assert np.sum((site @ ms.hub_whitening(W)) ** 2) < 1e-12
