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


def _reference_gate(est, X, y, g, rogue=None):
    """Gains and t by plain loops from the module's description (``rogue``:
    those nodes send their means and gains negated)."""
    nodes = list(est.nodes_)
    means = np.array([X[g == v].mean(axis=0) for v in nodes])
    sent = means.copy() if rogue is None else np.where(rogue[:, None], -means, means)
    A = est.adjacency_.toarray()
    gains = np.full(len(nodes), np.nan)
    for i, v in enumerate(nodes):
        nb = np.flatnonzero(A[i])
        if len(nb) < 2:
            continue
        dist = [np.sum((sent[j] - means[i]) ** 2) for j in nb]
        near = nb[np.argsort(dist, kind="stable")[0]]
        far = nb[np.argsort(-np.asarray(dist), kind="stable")[0]]
        rows = g == v
        t = np.where(y[rows] == est.classes_[1], 1.0, -1.0)

        def acc(j):
            return np.mean(np.where(_held(est, j, X[rows])[:, 0] > 0, 1.0, -1.0) == t)

        gains[i] = acc(near) - acc(far)
    if rogue is not None:
        gains[rogue] *= -1
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
def test_fit_unchanged_and_gate_bytes_closed_form_at_the_first_join(monkeypatch, terrains):
    X, y, g = _terrains(n_nodes=16, alike=not terrains)
    fit, new = g < 14, g >= 14
    est = _clf().fit(X[fit], y[fit], groups=g[fit])
    with monkeypatch.context() as m:
        m.setattr(jg._NeighbourGateMixin, "_newcomer_gate", lambda self, *a: None)
        m.setattr(jg._NeighbourGateMixin, "_gate_join", lambda self, *a: None)
        plain = _clf().fit(X[fit], y[fit], groups=g[fit])
        plain_joined = copy.deepcopy(plain).add_nodes(X[new], y[new], groups=g[new])
    # The fit is the fit without the gate, its log and bytes too.
    for a, b in zip(est.dual_coef_, plain.dual_coef_):
        assert np.array_equal(a, b)
    assert est.n_bytes_sent_ == plain.n_bytes_sent_
    n, d = len(est.nodes_), X.shape[1]
    gate = est.newcomer_gate_
    assert gate["open"] == terrains and not gate["sent"]
    expected = est.adjacency_.nnz * (HEADER + 8 * d) + 2 * (n - 1) * (HEADER + 8)
    if gate["open"]:
        expected += (n - 1) * (HEADER + 8 * (d + 1))
    assert gate["n_bytes"] == expected == jg.gate_bytes(est.adjacency_, d, gate["open"])
    first = copy.deepcopy(est).add_nodes(X[g == 14], y[g == 14], groups=g[g == 14])
    assert first.newcomer_gate_["sent"]
    second = copy.deepcopy(first).add_nodes(X[g == 15], y[g == 15], groups=g[g == 15])
    join1 = first.join_communication_.total_bytes
    join2 = second.join_communication_.total_bytes - join1
    if not terrains:
        # Closed: the graph join as without the gate, plus the gate's bytes once.
        assert set(first.join_start_) <= {"network", "neighbours"}
        both = copy.deepcopy(est).add_nodes(X[new], y[new], groups=g[new])
        assert (both.join_communication_.total_bytes
                == plain_joined.join_communication_.total_bytes + expected)
        np.testing.assert_array_equal(both.predict(X[new], groups=g[new]),
                                      plain_joined.predict(X[new], groups=g[new]))
    else:
        # Open: each newcomer's join in closed form; the first adds the gate.
        assert join1 - expected == _features_join_bytes(est, X, g, 14, fit)
        assert join2 == _features_join_bytes(est, X, g, 15, fit)


def _features_join_bytes(est, X, g, v, fit):
    """Mean up, answer down, 5 empty requests, 5 dictionaries."""
    means = np.array([X[fit][g[fit] == u].mean(axis=0) for u in est.nodes_[:14]])
    near = np.argsort(((means - X[g == v].mean(axis=0)) ** 2).sum(1), kind="stable")[:5]
    d = X.shape[1]
    return (HEADER + 8 * d) + (HEADER + 5 * 4 + 5 * 8) + 5 * HEADER + sum(
        HEADER + len(est.dictionaries_[j]) * (d + 1) * 8 for j in near)


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
    gate = est.newcomer_gate_["n_bytes"]     # (sent with this first join)
    assert joined.n_bytes_sent_ - bytes_before == join_bytes + gate
    assert joined.join_communication_.total_bytes == join_bytes + gate


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


def test_gate_over_a_dropping_network_same_bytes_more_rounds():
    X, y, g = _terrains(n_nodes=16, seed=1)
    fit, new = g < 14, g >= 14
    est = _clf(network=SimulatedNetwork(drop_rate=0.3, random_state=0)).fit(
        X[fit], y[fit], groups=g[fit])
    gains, t = _reference_gate(est, X[fit], y[fit], g[fit])
    assert est.newcomer_gate_["t"] == pytest.approx(t, rel=1e-12) and t > 3
    calm = copy.deepcopy(est)
    calm.network = SimulatedNetwork(random_state=0)
    calm.add_nodes(X[new], y[new], groups=g[new])
    stormy = copy.deepcopy(est).add_nodes(X[new], y[new], groups=g[new])
    # The gate's messages wait for dropped senders: same bytes, more rounds
    # (the join's requests to dropped nodes repeat: whole headers).
    extra = stormy.join_communication_.total_bytes - calm.join_communication_.total_bytes
    assert extra >= 0 and extra % HEADER == 0
    assert (len(stormy.join_communication_.bytes_per_round)
            > len(calm.join_communication_.bytes_per_round))


def test_no_gate_where_none_runs():
    X, y, g = _terrains()
    small = g < 6
    est = _clf().fit(X[small], y[small], groups=g[small])        # 6 nodes
    assert est.newcomer_rule_ == "graph" and est.newcomer_gate_ is None
    assert not hasattr(est, "_gate_pending")
    est = _clf(exchange_every=None).fit(X, y, groups=g)          # no copies held
    assert est.newcomer_rule_ == "graph" and est.newcomer_gate_ is None
    est = _clf().partial_fit(X, y, groups=g, classes=[0, 1])     # a stream
    assert est.newcomer_rule_ == "graph" and est.newcomer_gate_ is None
    # A fit after it runs the gate; a partial_fit after a fit keeps its rule.
    est.fit(X, y, groups=g)
    assert est.newcomer_rule_ == "features"
    est.partial_fit(X[:50], y[:50], groups=g[:50])
    assert est.newcomer_rule_ == "features"


def test_rogue_nodes_send_negated_means_and_gains():
    X, y, g = _terrains(n_nodes=16, seed=1)
    fit, new = g < 14, g >= 14
    net = SimulatedNetwork(rogue_fraction=0.15, rogue_behavior="complement", random_state=0)
    est = _clf(network=net).fit(X[fit], y[fit], groups=g[fit])
    rogue = est._rogue.copy()
    assert rogue.any()
    gains, t = _reference_gate(est, X[fit], y[fit], g[fit], rogue=rogue)
    np.testing.assert_allclose(est.newcomer_gate_["gains"], gains, atol=1e-12)
    assert est.newcomer_gate_["t"] == pytest.approx(t, rel=1e-12)
    if est.newcomer_gate_["open"]:
        means, _ = est._gate_table
        true = np.array([X[fit][g[fit] == v].mean(axis=0) for v in range(14)])
        np.testing.assert_allclose(means, np.where(rogue[:, None], -true, true))
    joined = copy.deepcopy(est).add_nodes(X[new], y[new], groups=g[new])
    assert len(joined.nodes_) == 16


def test_partial_fit_with_new_ids_joins_by_features_then_streams():
    X, y, g = _terrains(n_nodes=16, seed=1)
    fit, new = g < 14, g >= 14
    est = _clf().fit(X[fit], y[fit], groups=g[fit])
    assert est.newcomer_rule_ == "features"
    streamed = copy.deepcopy(est).partial_fit(X[new], y[new], groups=g[new])
    assert list(streamed.join_start_) == ["features", "features"]
    assert streamed.newcomer_gate_["sent"] and len(streamed.nodes_) == 16
    joined = copy.deepcopy(est).add_nodes(X[new], y[new], groups=g[new])
    # The same join (bytes), then a pass over their samples in the stream.
    assert (streamed.join_communication_.total_bytes
            == joined.join_communication_.total_bytes)
    assert streamed.n_steps_[14:].sum() == new.sum() and joined.n_steps_[14:].sum() == 0
