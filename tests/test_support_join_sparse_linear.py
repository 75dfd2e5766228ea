"""FederatedSparseLinearRegression.add_nodes (skfed/support/_join.py): the
new nodes' intercepts, fault draws and bytes against NumPy references, the
fitted nodes untouched, and the re-seeded RandomState's streams."""

import copy
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy import sparse

from skfed.network import SimulatedNetwork
from skfed.support import FederatedSparseLinearRegression
from skfed.support._join import _seeded

HEADER = 16


def _data(seed=0, n_nodes=30, n=25, d=12):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = 2 * X[:, 1] - X[:, 4] + 0.2 * groups + 0.3 * rng.normal(size=len(groups))
    weights = rng.uniform(0.5, 2.0, size=len(groups))
    return X, y, groups, weights


def _fitted_state(reg):
    return {name: copy.deepcopy(getattr(reg, name)) for name in (
        "coef_", "intercept_", "support_", "client_supports_", "answered_",
        "refit_answered_", "rogue_", "nodes_", "votes_", "n_reports_")}


@pytest.mark.parametrize("fmt", ["dense", "csr", "float32"])
@pytest.mark.parametrize("weighted", [False, True])
def test_new_intercepts_are_weighted_means_and_fitted_nodes_unchanged(fmt, weighted):
    X, y, groups, weights = _data()
    if fmt == "float32":
        X = X.astype(np.float32)
    Xa = sparse.csr_matrix(X) if fmt == "csr" else X
    w = weights if weighted else np.ones(len(y))
    old = groups < 22
    reg = FederatedSparseLinearRegression(per_node_intercept=True, random_state=0).fit(
        Xa[old], y[old], groups=groups[old], sample_weight=w[old] if weighted else None)
    before = _fitted_state(reg)
    # the new nodes' rows interleaved (the layout sorts them by node)
    new = np.flatnonzero(~old)
    new = new[np.random.RandomState(1).permutation(len(new))]
    reg.add_nodes(Xa[new], y[new], groups=groups[new],
                  sample_weight=w[new] if weighted else None)
    support = np.flatnonzero(reg.support_)
    assert len(support) >= 2
    # NumPy: mean y - mean x_S . coef_S, weighted, node by node (the
    # weights are validated to X's dtype)
    w = w.astype(X.dtype).astype(np.float64)
    for i, node in enumerate(range(22, 30)):
        rows = groups == node
        mean_y = np.average(y[rows], weights=w[rows])
        mean_x = np.average(X[rows][:, support].astype(np.float64), axis=0, weights=w[rows])
        expected = mean_y - mean_x @ before["coef_"][support]
        np.testing.assert_allclose(reg.intercept_[22 + i], expected, rtol=1e-12, atol=1e-12)
    # the fitted nodes' entries and the shared model are bit-identical
    for name, value in before.items():
        now = getattr(reg, name)
        if name in ("coef_", "support_", "votes_", "n_reports_"):
            np.testing.assert_array_equal(now, value)
        else:
            np.testing.assert_array_equal(now[:22], value)
    assert reg.intercept_.shape == (30,)
    assert reg.client_supports_.shape == (30, X.shape[1])
    assert not reg.client_supports_[22:].any()
    assert not reg.answered_[22:].any() and not reg.refit_answered_[22:].any()
    assert reg.nodes_.tolist() == list(range(30))


@pytest.mark.parametrize("per_node, fit_intercept, extra", [
    (True, True, 0), (False, True, 1), (True, False, 0), ("shrunk", True, 2),
    ("shrunk", False, 0)])
def test_join_bytes_are_the_closed_form_under_drops(per_node, fit_intercept, extra):
    # every new node receives the support bits and the m coefficients
    # exactly once, whatever the rounds it waited (shrunk intercepts: the
    # prior's mu and tau^2 / sigma^2 in the coefficients' message)
    X, y, groups, _ = _data(seed=2)
    old = groups < 20
    net = SimulatedNetwork(drop_rate=0.5, random_state=4)
    reg = FederatedSparseLinearRegression(
        network=net, per_node_intercept=per_node, fit_intercept=fit_intercept,
        random_state=3).fit(X[old], y[old], groups=groups[old])
    reg.add_nodes(X[~old], y[~old], groups=groups[~old])
    d, m = X.shape[1], len(reg.refit_features_) + extra
    log = reg.join_communication_
    per_new = (HEADER + -(-d // 8)) + (HEADER + 8 * m)
    assert log.total_bytes == 10 * per_new
    assert log.total_messages == 20
    assert log.n_rounds >= 2  # at drop rate 0.5 some of the 10 waited
    assert reg.n_bytes_sent_ == reg.communication_.total_bytes + 10 * per_new
    if not fit_intercept:
        assert reg.intercept_ == 0.0
    elif not per_node:
        assert np.ndim(reg.intercept_) == 0


def test_rogue_draw_of_new_nodes_is_the_public_seed_stream():
    # rogue_ of the new nodes: uniform draws of RandomState([s, n_old, 7907])
    # with s the first draw of RandomState(random_state), below the fraction
    X, y, groups, _ = _data(seed=3)
    old = groups < 18
    net = SimulatedNetwork(drop_rate=0.1, rogue_fraction=0.4, random_state=5)
    reg = FederatedSparseLinearRegression(network=net, random_state=11, rogue_tolerance=0.45)
    reg.fit(X[old], y[old], groups=groups[old])
    reg.add_nodes(X[~old], y[~old], groups=groups[~old])
    s = np.random.RandomState(11).randint(2**31 - 1)
    expected = np.random.RandomState([s, 18, 7907]).uniform(size=12) < 0.4
    np.testing.assert_array_equal(reg.rogue_[18:], expected)
    assert 0 < expected.sum() < 12


def test_random_state_instance_is_advanced_by_one_draw():
    X, y, groups, _ = _data(seed=4)
    old = groups < 25
    rs = np.random.RandomState(9)
    reg = FederatedSparseLinearRegression(random_state=rs).fit(X[old], y[old], groups=groups[old])
    twin = copy.deepcopy(rs)
    reg.add_nodes(X[~old], y[~old], groups=groups[~old])
    twin.randint(2**31 - 1)
    assert rs.randint(1 << 30) == twin.randint(1 << 30)


def test_reseeded_state_gives_a_new_random_states_stream():
    for seed in (0, 7, 2**31 - 2, [5, 111, 7919], [1, 2, 7907]):
        np.testing.assert_array_equal(_seeded(seed).uniform(size=5),
                                      np.random.RandomState(seed).uniform(size=5))
        assert _seeded(seed).randint(2**31 - 1) == np.random.RandomState(seed).randint(2**31 - 1)


def test_joins_in_threads_equal_joins_in_sequence():
    # each thread re-seeds its own RandomState
    X, y, groups, _ = _data(seed=5)
    old = groups < 20
    net = SimulatedNetwork(drop_rate=0.3, rogue_fraction=0.2, random_state=None)
    fitted = [FederatedSparseLinearRegression(network=net, random_state=r, rogue_tolerance=0.2)
              .fit(X[old], y[old], groups=groups[old]) for r in range(6)]
    sequential = [copy.deepcopy(f).add_nodes(X[~old], y[~old], groups=groups[~old])
                  for f in fitted]
    threaded = [copy.deepcopy(f) for f in fitted]
    with ThreadPoolExecutor(max_workers=3) as pool:
        # (result() re-raises a thread's error)
        threaded = [job.result() for job in [
            pool.submit(reg.add_nodes, X[~old], y[~old], groups=groups[~old])
            for reg in threaded]]
    for a, b in zip(sequential, threaded):
        np.testing.assert_array_equal(a.rogue_, b.rogue_)
        np.testing.assert_array_equal(a.intercept_, b.intercept_)
        assert a.join_communication_.n_rounds == b.join_communication_.n_rounds
        assert a.n_bytes_sent_ == b.n_bytes_sent_


@pytest.mark.parametrize("nodes", [[5, 6, 7], [0], [9], [0, 3, 4, 9], [], list(range(10))])
def test_draw_round_active_is_draw_round_at_the_nodes(nodes):
    # the join's rounds draw only the waiting new nodes' faults: the same
    # values as a full round's, the stream left where a full round leaves it
    net = SimulatedNetwork(drop_rate=0.4, straggler_rate=0.3)
    full = net.start(10, server=True, random_state=np.random.RandomState(1))
    part = net.start(10, server=True, random_state=np.random.RandomState(1))
    for sim in (full, part):  # a buffered 32-bit half in the stream
        sim.rng.integers(1 << 31, dtype=np.uint32)
    n_dropped = 0
    for _ in range(4):
        active, _ = full.draw_round()
        np.testing.assert_array_equal(part.draw_round_active(nodes), active[nodes])
        n_dropped += int((~active).sum())
    assert n_dropped > 0
    np.testing.assert_array_equal(full.draw_round()[1], part.draw_round()[1])
    assert full.rng.integers(1 << 31, dtype=np.uint32) == part.rng.integers(1 << 31, dtype=np.uint32)
    with pytest.raises(ValueError, match="sorted node indices"):
        part.draw_round_active([3, 2])
