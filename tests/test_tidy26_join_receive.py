"""What an online newcomer receives in the graph join's step 2, and the
feature-mean join's hub round (tidy26).

``_join_receive`` against NumPy copies of the neighbours' functions (their
raw iterates as their graph neighbours hold them with copies, the iterates
themselves with the query exchange; their averaged functions under
``benchmarks/online_join_averaged.py``'s ``received_averaged``, the
alternative it measures), through drops, with the bytes in closed
form; :func:`skfed._mean_neighbours.hub_round` against a brute-force
nearest search and its bytes in closed form over the rounds the hub is
dropped.
"""

import importlib.util
import os
import sys

import numpy as np
import pytest

from skfed._mean_neighbours import N_NEAREST, hub_round
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.online import _join

HEADER = 16


def _data(n_nodes=10, n_rows=30, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_nodes * n_rows, 3))
    y = (X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0).astype(int)
    return X, y, np.repeat(np.arange(n_nodes), n_rows)


def _benchmark():
    """``benchmarks/online_join_averaged.py`` (it carries the averaged alternative)."""
    where = os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks")
    sys.path.insert(0, where)
    try:
        spec = importlib.util.spec_from_file_location(
            "online_join_averaged", os.path.join(where, "online_join_averaged.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(where)
    return module


def _fitted(exchange_every):
    X, y, g = _data()
    return DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma=0.5, max_epochs=4, exchange_every=exchange_every,
        random_state=0).fit(X, y, g)


@pytest.mark.parametrize("exchange_every", ["auto", None])
@pytest.mark.parametrize("mode", ["raw", "averaged"])
def test_join_receive_against_numpy(exchange_every, mode):
    est = _fitted(exchange_every)
    n_old, d, n_out = len(est.nodes_), 3, 1
    neighbours = [np.array([0, 2, 5]), np.array([1, 7])]
    # NumPy copies of what each neighbour j sends, from the state arrays.
    expected = {}
    for j in range(n_old):
        if mode == "averaged":
            size = est._sizes[j]
            expected[j] = (est._points[j, :size].copy(), est._avg_weights[j, :size].copy())
        elif exchange_every is not None:
            size = est._pub_sizes[j]
            expected[j] = (est._pub_points[j, :size].copy(), est._pub_weights[j, :size].copy())
        else:
            size = est._sizes[j]
            expected[j] = (est._points[j, :size].copy(), est._weights[j, :size].copy())
    assert est.average > 0 and not np.allclose(est._avg_weights[0, :est._sizes[0]],
                                               est._weights[0, :est._sizes[0]])
    sim = SimulatedNetwork(drop_rate=0.4, random_state=1).start(n_old + 2, server=False)
    if mode == "averaged":
        with _benchmark().received_averaged():
            received = est._join_receive(sim, neighbours, n_old)
        assert "_join_model" not in vars(est)   # (the patch is undone)
    else:
        received = est._join_receive(sim, neighbours, n_old)
    log = sim.log()
    total = 0
    for k, nb in enumerate(neighbours):
        assert len(received[k]) == len(nb)
        for (D, W), j in zip(received[k], nb):
            np.testing.assert_array_equal(D, expected[j][0])
            np.testing.assert_array_equal(W, expected[j][1])
            M = len(expected[j][0])
            if exchange_every is not None:   # a whole copy as _publish sends it
                total += HEADER + M * (d * 8 + 4) + M * n_out * 8 + 4
            else:                            # points and weights
                total += HEADER + M * (d + n_out) * 8
    # every neighbour sends once, however many rounds the drops take
    assert log.total_bytes == total
    assert log.total_messages == sum(len(nb) for nb in neighbours)
    assert log.n_rounds >= 1


def test_join_receives_raw_by_default():
    """The graph join sends the iterates the fit couples, not the averaged
    functions (the library has no switch: the alternative lives in the
    benchmark that measured it)."""
    assert not hasattr(_join, "_JOIN_RECEIVES")


@pytest.mark.parametrize("drop_rate", [0.0, 0.6])
def test_hub_round_against_brute_force(drop_rate):
    rng = np.random.RandomState(3)
    means, targets = rng.normal(size=(12, 4)), rng.normal(size=(5, 4))
    def start():
        return SimulatedNetwork(drop_rate=drop_rate, random_state=2).start(17, server=False)

    # The rounds until the hub (node 0) is active, from the same stream.
    probe, rounds = start(), 1
    while not probe.draw_rounds(1)[0][0][0]:
        rounds += 1
    assert (rounds > 1) == (drop_rate > 0)   # the drops are exercised
    sim = start()
    senders = np.arange(12, 17)
    chosen = hub_round(sim, means, targets, senders)
    for t, c in zip(targets, chosen):
        dist = ((means - t) ** 2).sum(axis=1)
        np.testing.assert_array_equal(c, np.argsort(dist, kind="stable")[:N_NEAREST])
    log = sim.log()
    up, down = HEADER + 8 * 4, HEADER + N_NEAREST * (8 + 4)
    assert log.n_rounds == rounds
    assert log.total_bytes == 5 * (rounds * up + down)
    assert log.total_messages == 5 * (rounds + 1)
    assert hub_round(sim, means, targets[:0], senders[:0]) == []
