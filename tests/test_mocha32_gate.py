"""MOCHA's feature-mean gate runs the shared gate code (mocha32).

References: a NumPy loop of every node's gain (score of its nearest
peers' mean model minus that of all the others, on its own rows), the
pooled scatter's inverse in NumPy, and the closed form of the scatter
round's bytes (fitted node 0 as the hub: ``n - 1`` messages; MOCHA's
server as the hub: ``n``).
"""

import numpy as np
import pytest

from skfed import _mean_neighbours as mn
from skfed import _mean_scatter as ms
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.multitask import _join_neighbours as jn
from skfed.network import DEFAULT_HEADER_BYTES, SimulatedNetwork

from .test_multitask_join_neighbours import _terrains


def _nodes(n=9, d=3, seed=0):
    rng = np.random.RandomState(seed)
    counts = 4 + rng.randint(0, 6, size=n)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    X = rng.normal(size=(offsets[-1], d)) * np.array([1.0, 3.0, 0.5])[:d]
    X += np.repeat(rng.normal(size=(n, d)) * 2.0, counts, axis=0)
    sw = rng.uniform(0.5, 2.0, size=offsets[-1])
    return X, sw, offsets


@pytest.mark.parametrize("regression", [False, True])
def test_node_gains_equal_a_numpy_loop(regression):
    X, sw, offsets = _nodes()
    rng = np.random.RandomState(1)
    n, P = len(offsets) - 1, 1 if regression else 3
    Z = np.column_stack([X, np.ones(len(X))])
    if regression:
        Y = rng.normal(size=(P, len(X)))
    else:
        Y = -np.ones((P, len(X)))
        Y[rng.randint(0, P, size=len(X)), np.arange(len(X))] = 1.0
    models = rng.normal(size=(n, P, Z.shape[1]))
    score = jn.negative_squared_error if regression else mn.weighted_accuracy
    gains = mn.node_gains(Z, Y, sw, offsets, lambda i: models[i], lambda i: models[(i + 1) % n],
                          score)
    expected = []
    for i in range(n):
        rows = np.arange(offsets[i], offsets[i + 1])
        w = sw[rows] / sw[rows].sum()

        def s(model):
            F = Z[rows] @ model.T                       # (rows, P)
            if regression:
                return -np.sum(w * ((F - Y[:, rows].T) ** 2).sum(axis=1))
            return np.sum(w * (F.argmax(axis=1) == Y[:, rows].argmax(axis=0)))

        expected.append(s(models[i]) - s(models[(i + 1) % n]))
    np.testing.assert_allclose(gains, expected, rtol=1e-12, atol=1e-12)
    assert gains.shape == (n,) and np.abs(gains).max() > 0


def test_scatter_round_without_a_simulation_is_its_map():
    """``sim=None`` (MOCHA's server counts the messages itself): the same map,
    bit for bit, as the round through a simulation, which sends ``n - 1``
    float32 triangles to fitted node 0 (closed form)."""
    X, sw, offsets = _nodes(n=9, d=3)
    means = mn.node_means(X, sw, offsets)[0]
    sim = SimulatedNetwork().start(9, random_state=0)
    through = ms.whitening_round(X, sw, offsets, means, np.float32, sim)
    alone = ms.whitening_round(X, sw, offsets, means, np.float32, None)
    np.testing.assert_array_equal(through, alone)
    assert sim.counter.snapshot()["n_nodes"] == 9
    log = sim.log()
    assert log.total_bytes == 8 * (3 * 4 // 2 * 4 + DEFAULT_HEADER_BYTES)
    assert log.total_messages == 8 and np.all(log.bytes_received[1:] == 0)
    # the map inverts the pooled float32 scatter (NumPy)
    S = sum((X[offsets[i]:offsets[i + 1]] - means[i]).T * sw[offsets[i]:offsets[i + 1]]
            @ (X[offsets[i]:offsets[i + 1]] - means[i]) for i in range(9))
    np.testing.assert_allclose(alone @ alone.T, np.linalg.inv(S), rtol=1e-5)


@pytest.mark.parametrize("regression", [False, True])
def test_mocha_gate_is_the_shared_gate_with_the_server_as_hub(regression, monkeypatch):
    """The fitted gate's means, gains and map are the shared functions' on
    MOCHA's rows; its first join counts every fitted node's scatter (the
    server is no node: n messages, where fitted node 0 as hub takes n - 1)."""
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)
    X, y, g = _terrains(regression=regression)
    old = g < 14
    cls = FederatedMultiTaskRegressor if regression else FederatedMultiTaskClassifier
    est = cls(random_state=0).fit(X[old], y[old], groups=g[old])
    gate = est._join_rehearsal.neighbours
    assert gate.open
    Xo, go = X[old], g[old]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(go))])
    sw = np.ones(len(Xo))
    means, masses = mn.node_means(Xo, sw, offsets)
    np.testing.assert_allclose(gate.means, means, rtol=1e-13)
    np.testing.assert_array_equal(gate.weights, masses)
    # gains: the near-5 mean model against all the others, from coef_ / intercept_
    coef = est.coef_.reshape(14, -1, 3)
    W = np.concatenate([coef, est.intercept_.reshape(14, -1, 1)], axis=2)
    near = mn.nearest_rows(means, means, 5, exclude=np.arange(14))
    Z = np.column_stack([Xo, np.ones(len(Xo))])
    yt = y[old].astype(np.float64) if regression else np.where(y[old] > 0, 1.0, -1.0)

    def score(rows, model):
        F = Z[rows] @ model[0]
        return -np.mean((F - yt[rows]) ** 2) if regression else np.mean((F > 0) == (yt[rows] > 0))

    gains = []
    for i in range(14):
        rows = go == i
        nm = masses[near[i]] @ W[near[i], 0] / masses[near[i]].sum()
        rest = (masses @ W[:, 0] - masses[i] * W[i, 0]) / (masses.sum() - masses[i])
        gains.append(score(rows, nm[None]) - score(rows, rest[None]))
    np.testing.assert_allclose(gate.gains, gains, rtol=1e-6, atol=1e-9)
    assert gate.t == pytest.approx(mn.gate_statistic(np.array(gains)), rel=1e-6)
    np.testing.assert_array_equal(
        gate.whiten, ms.whitening_round(Xo, sw, offsets, gate.means, np.float32, None))
    # bytes: the scatter part of the gate's exchange, one message per fitted node
    extra = gate.n_bytes(8, DEFAULT_HEADER_BYTES) - gate.n_bytes(8, DEFAULT_HEADER_BYTES,
                                                                 scatter=False)
    assert extra == 14 * (ms.scatter_bytes(3, np.float32) + DEFAULT_HEADER_BYTES)


def test_no_placement_switch_left():
    """The Euclidean alternative lives in its benchmark (it drops the map)."""
    assert not hasattr(jn, "PLACEMENT")
