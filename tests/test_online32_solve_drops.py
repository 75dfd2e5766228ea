"""The online network solve (step 4 of ``skfed.online._network_function``)
under dropped nodes: its tree rounds are scheduled as every other tree
round of the protocol (a node reports once its children have and both it
and its parent are active; the reply travels an edge when both ends are
active), so the bytes of every round are what was sent in that round.

The reference is an independent count: the active nodes of every round
the network round's simulation drew (recorded by a pass-through spy), and
for every tree round of the solve the round each node's report leaves
(the first round at or after its children's reports arrived where it and
its parent are active) and the round the reply reaches it, in NumPy; the
bytes per round follow from the message sizes in closed form.
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import skfed.online._network_function as nf
from skfed.network import NetworkSimulation, SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor
from skfed.online._selection import tree_parents

from .test_online_network_function import ring

HEADER = 16


def _data(n_nodes=6, n=30, d=2, seed=0):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    score = X[:, 0] + 0.2 * groups * X[:, 1] + 0.3 * np.sin(3 * X[:, 1])
    return X, score, groups


def _spy(monkeypatch):
    """Record the active nodes of every round each simulation draws."""
    drawn, alive = {}, []
    real = NetworkSimulation.draw_rounds

    def recording(self, n_rounds):
        active, work = real(self, n_rounds)
        if id(self) not in drawn:
            alive.append(self)   # (kept alive: its id is not reused)
        drawn.setdefault(id(self), []).extend(np.array(active, dtype=bool))
        return active, work

    monkeypatch.setattr(NetworkSimulation, "draw_rounds", recording)
    return drawn


def _first_active(active, start, a, b):
    """The first round at or after ``start`` where ``a`` and ``b`` are active."""
    r = start
    while not (active[r][a] and active[r][b]):
        r += 1
    return r


def _tree_round_bytes(active, start, parents, up, down):
    """Bytes sent in each round of one sum up the tree and reply down it,
    from round ``start`` of ``active``; returns ``(bytes per round, next
    start)``."""
    n = len(parents)
    children = [[] for _ in range(n)]
    for v in range(n):
        if parents[v] >= 0:
            children[parents[v]].append(v)
    sent = {}

    def up_round(v):   # the round v's report leaves (memoized, leaves first)
        if v not in sent:
            ready = max([up_round(c) + 1 for c in children[v]], default=start)
            sent[v] = _first_active(active, ready, v, parents[v])
        return sent[v]

    senders = [v for v in range(n) if parents[v] >= 0]
    up_at = {v: up_round(v) for v in senders}
    up_end = max(up_at.values()) + 1
    down_at = {}
    order = [v for v in range(n) if parents[v] < 0]
    while order:
        v = order.pop(0)
        for c in children[v]:
            after = up_end if parents[v] < 0 else down_at[v] + 1
            down_at[c] = _first_active(active, after, c, v)
            order.append(c)
    end = max(down_at.values()) + 1
    per_round = np.zeros(end - start, dtype=np.int64)
    for v in senders:
        per_round[up_at[v] - start] += HEADER + up
        per_round[down_at[v] - start] += HEADER + down
    return per_round, end


@pytest.mark.parametrize("regressor", [False, True])
@pytest.mark.parametrize("drop_rate", [0.0, 0.4])
def test_solve_rounds_under_drops_are_the_bytes_actually_sent(regressor, drop_rate,
                                                              monkeypatch):
    drawn = _spy(monkeypatch)
    calls = []
    real_call = nf.NodeSums.__call__

    def counted(self, D, gamma, A, nodes):
        calls.append(A.copy())
        return real_call(self, D, gamma, A, nodes)

    monkeypatch.setattr(nf.NodeSums, "__call__", counted)
    X, score, groups = _data()
    params = dict(kernel="rbf", gamma=0.5, epsilon=0.05, max_dictionary_size=10,
                  max_epochs=2, alpha=1e-2, consensus_penalty=0.1, exchange_every=None,
                  network=SimulatedNetwork(ring(6), drop_rate=drop_rate), random_state=3)
    if regressor:
        est = DecentralizedKernelSGDRegressor(**params).fit(X, score, groups=groups)
    else:
        est = DecentralizedKernelSGDClassifier(**params).fit(X, (score > 0).astype(int),
                                                              groups=groups)
    # The network round's simulation: the last one that drew.
    active = drawn[list(drawn)[-1]]
    log = est.network_communication_
    m, n_out = len(est.network_dictionary_[0]), est._n_outputs
    rounds = int(est._network_solve_rounds[0])
    plain = est._build_network_function()   # steps 1-3 alone: same seeds, no solve
    start = plain.n_rounds                  # (gamma shared: no width round)
    # Intermediate: one tree round per evaluation, then the gate's.
    assert rounds == len(calls) + 1 >= 3
    # Every round of the network round drew its faults once (the solve's too).
    assert len(active) == log.n_rounds
    parents = tree_parents(ring(6))
    expected = []
    for _ in range(rounds - 1):
        per_round, start = _tree_round_bytes(active, start, parents, (m * n_out + 2) * 8,
                                             m * n_out * 8)
        expected.append(per_round)
    gate_up = (2 if regressor else 3) * 8
    per_round, start = _tree_round_bytes(active, start, parents, gate_up, 4)
    expected.append(per_round)
    expected = np.concatenate(expected)
    # Every round's bytes are those the schedule sends in it.
    assert_array_equal(log.bytes_per_round[plain.n_rounds:], expected)
    assert log.n_rounds == start
    if drop_rate:
        # Intermediate: the drops did delay reports (more rounds than a
        # drop-free tree of depth 3 takes: 6 per tree round).
        assert log.n_rounds - plain.n_rounds > 6 * rounds
    else:
        assert log.n_rounds - plain.n_rounds == 6 * rounds
    # The totals in closed form: 5 tree edges, each message once.
    edges = 5
    solve_bytes = edges * ((rounds - 1) * (2 * HEADER + (2 * m * n_out + 2) * 8)
                           + 2 * HEADER + gate_up + 4)
    assert log.total_bytes - plain.total_bytes == solve_bytes
    assert log.total_messages - plain.total_messages == 2 * edges * rounds


@pytest.mark.parametrize("drop_rate", [0.0, 0.4])
def test_width_round_under_drops(drop_rate, monkeypatch):
    # A width the nodes do not share (gamma="median"): the network round
    # starts with the widths' log sums and counts up the tree (2 float64)
    # and the common width down (1 float64), under the drops as every
    # other tree round.
    drawn = _spy(monkeypatch)
    X, score, groups = _data()
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma="median", epsilon=0.05, max_dictionary_size=10, max_epochs=2,
        alpha=1e-2, consensus_penalty=0.1, exchange_every=None,
        network=SimulatedNetwork(ring(6), drop_rate=drop_rate),
        random_state=3).fit(X, (score > 0).astype(int), groups=groups)
    active = drawn[list(drawn)[-1]]
    log = est.network_communication_
    assert len(active) == log.n_rounds
    expected, end = _tree_round_bytes(active, 0, tree_parents(ring(6)), 2 * 8, 8)
    assert_array_equal(log.bytes_per_round[:end], expected)
    # Intermediate: the widths differ (else nothing would be sent).
    assert np.ptp(est.gamma_) > 0
    assert end == 6 if not drop_rate else end > 6
