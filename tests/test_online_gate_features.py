"""The online classifier's feature-mean gate and join (skfed/online/_join_gate.py).

The gate's gains and t against a NumPy loop written from the module's
description (graph neighbours, their held copies evaluated with a NumPy rbf
kernel); open on two terrains whose feature means differ, closed where every
node draws its features from one distribution; the gate's and the join's
bytes in closed form; the newcomer's function as the mass-weighted mean of
its nearest fitted nodes' functions (NumPy); the fitted nodes bit-identical;
no gate where the module says none runs.
"""

import copy

import numpy as np
import pytest

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.online import _join_gate as jg

HEADER = 16
GAMMA = 0.5


def _terrains(n_nodes=14, n_rows=40, shift=4.0, seed=0, alike=False):
    """Two terrains: even nodes near the origin label by feature 2, odd
    nodes shifted along feature 0 label by minus feature 2.  ``alike``:
    every node at the origin (the rules still conflict: means say nothing)."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(n_nodes):
        odd = k % 2
        Xk = rng.normal(size=(n_rows, 3))
        if odd and not alike:
            Xk[:, 0] += shift
        y.append(((-1 if odd else 1) * Xk[:, 2] + 0.2 * Xk[:, 1] > 0).astype(int))
        X.append(Xk)
        g.append(np.full(n_rows, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def _clf(**kw):
    params = dict(kernel="rbf", gamma=GAMMA, max_epochs=5,
                  random_state=0)
    params.update(kw)
    return DecentralizedKernelSGDClassifier(**params)


def _rbf(A, B, gamma):
    d2 = (A**2).sum(1)[:, None] + (B**2).sum(1)[None] - 2 * A @ B.T
    return np.exp(-gamma * np.maximum(d2, 0))


def _held(est, j, X):
    size = est._pub_sizes[j]
    return _rbf(X, est._pub_points[j, :size], est.gamma_[j]) @ est._pub_weights[j, :size]


def _reference_gate(est, X, y, g):
    """Gains and t by plain loops from the module's description."""
    nodes = list(est.nodes_)
    means = np.array([X[g == v].mean(axis=0) for v in nodes])
    A = est.adjacency_.toarray()
    gains = np.full(len(nodes), np.nan)
    for i, v in enumerate(nodes):
        nb = np.flatnonzero(A[i])
        if len(nb) < 2:
            continue
        dist = [np.sum((means[j] - means[i]) ** 2) for j in nb]
        near = nb[np.argsort(dist, kind="stable")[0]]
        far = nb[np.argsort(-np.asarray(dist), kind="stable")[0]]
        rows = g == v
        t = np.where(y[rows] == est.classes_[1], 1.0, -1.0)

        def acc(j):
            return np.mean(np.where(_held(est, j, X[rows])[:, 0] > 0, 1.0, -1.0) == t)

        gains[i] = acc(near) - acc(far)
    ok = gains[~np.isnan(gains)]
    return gains, ok.mean() / (ok.std(ddof=1) / np.sqrt(len(ok)))


def test_gate_matches_numpy_and_opens_on_terrains():
    X, y, g = _terrains()
    est = _clf().fit(X, y, groups=g)
    gains, t = _reference_gate(est, X, y, g)
    gate = est.newcomer_gate_
    np.testing.assert_allclose(gate["gains"], gains, atol=1e-12)
    assert gate["t"] == pytest.approx(t, rel=1e-12)
    assert gate["open"] and t > 3 and est.newcomer_rule_ == "features"
    assert np.all(gains[~np.isnan(gains)] >= -1) and np.all(gains[~np.isnan(gains)] <= 1)


def test_gate_closed_when_means_carry_no_task():
    X, y, g = _terrains(alike=True)
    est = _clf().fit(X, y, groups=g)
    gains, t = _reference_gate(est, X, y, g)
    assert est.newcomer_gate_["t"] == pytest.approx(t, rel=1e-12)
    assert not est.newcomer_gate_["open"] and est.newcomer_rule_ == "graph"
    # A closed gate's join is the graph join, as without the gate.
    Xn, yn, gn = _terrains(n_nodes=16, seed=5, alike=True)
    new = gn >= 14
    joined = copy.deepcopy(est).add_nodes(Xn[new], yn[new], groups=gn[new] + 100)
    assert set(joined.join_start_) <= {"network", "neighbours"}


@pytest.mark.parametrize("terrains", [True, False])
def test_fit_unchanged_and_gate_bytes_closed_form(monkeypatch, terrains):
    X, y, g = _terrains(alike=not terrains)
    est = _clf().fit(X, y, groups=g)
    monkeypatch.setattr(jg._NeighbourGateMixin, "_newcomer_gate", lambda self, *a: None)
    plain = _clf().fit(X, y, groups=g)
    for a, b in zip(est.dual_coef_, plain.dual_coef_):
        assert np.array_equal(a, b)
    n, d = len(est.nodes_), X.shape[1]
    nnz = est.adjacency_.nnz
    expected = nnz * (HEADER + 8 * d) + 2 * (n - 1) * (HEADER + 8)
    if est.newcomer_gate_["open"]:
        expected += (n - 1) * (HEADER + 8 * (d + 1))
    assert expected == jg.gate_bytes(est.adjacency_, d, est.newcomer_gate_["open"])
    assert est.newcomer_gate_["n_bytes"] == expected
    assert est.n_bytes_sent_ - plain.n_bytes_sent_ == expected
    assert est.gate_communication_.total_bytes == expected
    assert est.communication_.total_bytes == plain.communication_.total_bytes


def test_newcomer_is_the_mass_weighted_mean_of_its_nearest_fitted_nodes():
    # No compression (epsilon=0, no cap): the start is the mean exactly.
    X, y, g = _terrains(n_nodes=16, seed=1)
    fit, new = g < 14, g >= 14
    est = _clf(epsilon=0.0, max_dictionary_size=None).fit(X[fit], y[fit], groups=g[fit])
    assert est.newcomer_rule_ == "features"
    before = [(D.copy(), W.copy()) for D, W in zip(est.dictionaries_, est.dual_coef_)]
    bytes_before = est.n_bytes_sent_
    rows = np.flatnonzero(new)
    rng = np.random.RandomState(0)
    train = np.concatenate([rng.choice(rows[g[rows] == v], 5, replace=False) for v in (14, 15)])
    test = np.setdiff1d(rows, train)
    joined = copy.deepcopy(est).add_nodes(X[train], y[train], groups=g[train])
    assert list(joined.join_start_) == ["features", "features"]
    assert list(joined.join_passes_) == [0, 0]
    # Old nodes bit-identical.
    for (D, W), D2, W2 in zip(before, joined.dictionaries_, joined.dual_coef_):
        assert np.array_equal(D, D2) and np.array_equal(W, W2)
    means = np.array([X[fit][g[fit] == v].mean(axis=0) for v in range(14)])
    masses = np.array([np.sum(g[fit] == v) for v in range(14)], dtype=float)
    join_bytes = 0
    for k, v in enumerate((14, 15)):
        mine = X[train][g[train] == v].mean(axis=0)
        near = np.argsort(((means - mine) ** 2).sum(1), kind="stable")[:5]
        w = masses[near] / masses[near].sum()
        at = test[g[test] == v]
        ref = sum(wj * _rbf(X[at], est.dictionaries_[j], GAMMA) @ est.dual_coef_[j]
                  for wj, j in zip(w, near))[:, 0]
        np.testing.assert_allclose(joined.decision_function(X[at], groups=g[at]), ref,
                                   rtol=1e-9, atol=1e-9)
        i = 14 + k
        A = joined.adjacency_.toarray()
        assert sorted(np.flatnonzero(A[i]).tolist()) == sorted(near.tolist())
        join_bytes += (HEADER + 8 * 3) + (HEADER + 5 * 4 + 5 * 8) + 5 * HEADER + sum(
            HEADER + len(est.dictionaries_[j]) * (3 + 1) * 8 for j in near)
    assert joined.n_bytes_sent_ - bytes_before == join_bytes
    assert joined.join_communication_.total_bytes == join_bytes


def test_join_over_a_dropping_network_same_start_more_requests():
    X, y, g = _terrains(n_nodes=16, seed=1)
    fit, new = g < 14, g >= 14
    kw = dict(epsilon=0.0, max_dictionary_size=None)
    est = _clf(**kw).fit(X[fit], y[fit], groups=g[fit])
    assert est.newcomer_rule_ == "features"
    calm = copy.deepcopy(est).add_nodes(X[new], y[new], groups=g[new])
    stormy = copy.deepcopy(est)
    stormy.network = SimulatedNetwork(drop_rate=0.5, random_state=3)
    stormy.add_nodes(X[new], y[new], groups=g[new])
    for i in (14, 15):
        assert np.array_equal(stormy.dictionaries_[i], calm.dictionaries_[i])
        assert np.allclose(stormy.dual_coef_[i], calm.dual_coef_[i])
    extra = stormy.join_communication_.total_bytes - calm.join_communication_.total_bytes
    # Only headers repeat (asking the hub again, empty requests): whole headers.
    assert extra >= 0 and extra % HEADER == 0
    assert len(stormy.join_communication_.bytes_per_round) >= len(
        calm.join_communication_.bytes_per_round)


def test_gate_over_a_dropping_network_same_bytes():
    X, y, g = _terrains()
    est = _clf(network=SimulatedNetwork(drop_rate=0.3, random_state=0)).fit(X, y, groups=g)
    gains, t = _reference_gate(est, X, y, g)
    assert est.newcomer_gate_["t"] == pytest.approx(t, rel=1e-12)
    assert est.newcomer_gate_["n_bytes"] == jg.gate_bytes(est.adjacency_, X.shape[1],
                                                           est.newcomer_gate_["open"])


def test_no_gate_where_none_runs():
    X, y, g = _terrains()
    small = g < 6
    est = _clf().fit(X[small], y[small], groups=g[small])        # 6 nodes
    assert est.newcomer_rule_ == "graph" and est.newcomer_gate_ is None
    est = _clf(exchange_every=None).fit(X, y, groups=g)          # no copies held
    assert est.newcomer_rule_ == "graph" and est.newcomer_gate_ is None
    est = _clf().partial_fit(X, y, groups=g, classes=[0, 1])     # a stream
    assert est.newcomer_rule_ == "graph" and est.newcomer_gate_ is None
    # A fit after it runs the gate; a partial_fit after a fit keeps its rule.
    est.fit(X, y, groups=g)
    assert est.newcomer_rule_ == "features"
    est.partial_fit(X[:50], y[:50], groups=g[:50])
    assert est.newcomer_rule_ == "features"


def test_rogue_nodes_send_corrupted_means_and_the_join_still_runs():
    X, y, g = _terrains(n_nodes=16, seed=1)
    fit, new = g < 14, g >= 14
    net = SimulatedNetwork(rogue_fraction=0.15, rogue_behavior="complement", random_state=0)
    est = _clf(network=net).fit(X[fit], y[fit], groups=g[fit])
    assert est._rogue.any()
    gate = est.newcomer_gate_
    assert gate["n_bytes"] == jg.gate_bytes(est.adjacency_, 3, gate["open"])
    if gate["open"]:
        means, _ = est._gate_table
        true = np.array([X[fit][g[fit] == v].mean(axis=0) for v in range(14)])
        np.testing.assert_allclose(means[est._rogue], -true[est._rogue])
        np.testing.assert_allclose(means[~est._rogue], true[~est._rogue])
    joined = copy.deepcopy(est).add_nodes(X[new], y[new], groups=g[new])
    assert len(joined.nodes_) == 16
