"""The Cython message counters against closed forms on tiny networks."""

import numpy as np
import pytest

from skfed._core._comm import CommCounter, py_index_bits, py_payload_bytes
from skfed.network import SimulatedNetwork, make_topology

HEADER = 16


def _multicast_to_neighbours(counter, adjacency, payload):
    for node in range(adjacency.shape[0]):
        neighbours = np.flatnonzero(adjacency[node]).astype(np.intp)
        counter.multicast_message(node, neighbours, payload)


@pytest.mark.parametrize(
    "name, n_nodes, n_edges",
    [("ring", 4, 4), ("star", 5, 4), ("complete", 5, 10), ("complete", 2, 1)],
)
def test_neighbour_broadcast_matches_closed_form(name, n_nodes, n_edges):
    # Every node sends 3 float64 and one int32 index to each neighbour.
    adjacency = make_topology(name, n_nodes)
    payload = py_payload_bytes(n_float64=3, n_int32=1)
    assert payload == 3 * 8 + 4
    counter = CommCounter(n_nodes, header_bytes=HEADER)
    _multicast_to_neighbours(counter, adjacency, payload)
    counter.next_round()
    snap = counter.snapshot()
    n_messages = 2 * n_edges  # one message per direction of every edge
    assert snap["pair_messages"].sum() == n_messages
    assert snap["pair_bytes"].sum() == n_messages * (payload + HEADER)
    np.testing.assert_array_equal(snap["pair_messages"], adjacency.astype(np.int64))
    np.testing.assert_array_equal(snap["round_bytes"], [n_messages * (payload + HEADER)])
    np.testing.assert_array_equal(snap["round_messages"], [n_messages])


def test_star_centre_sends_and_receives_most():
    adjacency = make_topology("star", 5)
    counter = CommCounter(5, header_bytes=HEADER)
    _multicast_to_neighbours(counter, adjacency, 8)
    snap = counter.snapshot()
    sent = snap["pair_bytes"].sum(axis=1)
    received = snap["pair_bytes"].sum(axis=0)
    np.testing.assert_array_equal(sent, [4 * 24, 24, 24, 24, 24])
    np.testing.assert_array_equal(received, [4 * 24, 24, 24, 24, 24])


def test_rounds_are_separated_and_unclosed_round_counts():
    counter = CommCounter(3, header_bytes=HEADER, capacity=1)
    for round_ in range(5):  # forces the per-round arrays to grow
        for _ in range(round_ + 1):
            counter.send_message(0, 1, 10)
        counter.next_round()
    counter.send_message(2, 0, 4)  # an open last round is still reported
    snap = counter.snapshot()
    np.testing.assert_array_equal(snap["round_messages"], [1, 2, 3, 4, 5, 1])
    np.testing.assert_array_equal(snap["round_bytes"], (26 * np.array([1, 2, 3, 4, 5])).tolist() + [20])
    assert snap["pair_bytes"][0, 1] == 15 * 26
    assert snap["pair_bytes"][2, 0] == 20


def test_server_gather_and_broadcast():
    counter = CommCounter(4, server=True, header_bytes=HEADER)
    assert counter.server == 4 and counter.n_endpoints == 5
    senders = np.array([0, 2, 3], dtype=np.intp)
    counter.gather_to_server(senders, np.array([8, 16, 24], dtype=np.int64))
    counter.broadcast_from_server(np.arange(4, dtype=np.intp), np.full(4, 40, dtype=np.int64))
    snap = counter.snapshot()
    np.testing.assert_array_equal(snap["pair_bytes"][:4, 4], [24, 0, 32, 40])
    np.testing.assert_array_equal(snap["pair_bytes"][4, :4], [56, 56, 56, 56])
    assert snap["pair_messages"].sum() == 7


@pytest.mark.parametrize("p, vector_bytes", [(4, 100), (5, 8 * 7), (2, 1)])
def test_ring_collectives(p, vector_bytes):
    chunk = -(-vector_bytes // p)
    counter = CommCounter(p, header_bytes=HEADER)
    counter.reduce_scatter_ring(np.arange(p, dtype=np.intp), vector_bytes)
    assert counter.snapshot()["pair_messages"].sum() == p * (p - 1)
    assert counter.snapshot()["pair_bytes"].sum() == p * (p - 1) * (chunk + HEADER)
    counter = CommCounter(p, header_bytes=HEADER)
    counter.allreduce_ring(np.arange(p, dtype=np.intp), vector_bytes)
    snap = counter.snapshot()
    assert snap["pair_messages"].sum() == 2 * p * (p - 1)
    assert snap["pair_bytes"].sum() == 2 * p * (p - 1) * (chunk + HEADER)
    # Every message goes to the ring successor.
    for k in range(p):
        assert snap["pair_messages"][k, (k + 1) % p] == 2 * (p - 1)


def test_byte_model_units():
    assert py_payload_bytes(n_float64=2) == 16
    assert py_payload_bytes(n_float32=3) == 12
    assert py_payload_bytes(n_int32=5) == 20
    assert py_payload_bytes(n_bits=1000) == 125
    assert py_payload_bytes(n_bits=1001) == 126
    assert py_payload_bytes(n_bits=1) == 1
    assert py_payload_bytes() == 0
    assert [py_index_bits(n) for n in (1, 2, 3, 4, 200, 256, 257)] == [1, 1, 2, 2, 8, 8, 9]


def test_bad_endpoints_and_payloads_raise():
    counter = CommCounter(3)
    with pytest.raises(ValueError, match="dst=3"):
        counter.send_message(0, 3, 1)
    with pytest.raises(ValueError, match="payload"):
        counter.send_message(0, 1, -1)
    with pytest.raises(ValueError, match="server=True"):
        counter.gather_to_server(np.array([0], dtype=np.intp), np.array([1], dtype=np.int64))
    with pytest.raises(ValueError, match="n_nodes"):
        CommCounter(0)
    with pytest.raises(ValueError):
        py_payload_bytes(n_bits=-1)


@pytest.mark.parametrize("drop_rate, straggler_rate, min_work", [(0.3, 0.0, 0.1), (0.1, 0.4, 0.5)])
def test_fault_draws_match_their_rates(drop_rate, straggler_rate, min_work):
    net = SimulatedNetwork(
        drop_rate=drop_rate,
        straggler_rate=straggler_rate,
        straggler_min_work=min_work,
        random_state=0,
    )
    sim = net.start(50)
    active, work = sim.draw_rounds(4000)
    n = active.size
    # Binomial standard error is below 0.0025 here: 5 sigma tolerances.
    assert abs((~active).mean() - drop_rate) < 5 * np.sqrt(drop_rate * (1 - drop_rate) / n) + 1e-12
    assert np.all(work[~active] == 0)
    straggling = active & (work < 1)
    expected = (1 - drop_rate) * straggler_rate
    assert abs(straggling.mean() - expected) < 5 * np.sqrt(expected * (1 - expected) / n) + 1e-12
    if straggler_rate:
        fractions = work[straggling]
        assert fractions.min() >= min_work and fractions.max() < 1
        # Uniform on [min_work, 1): mean and variance.
        assert abs(fractions.mean() - (1 + min_work) / 2) < 0.01
        assert abs(fractions.var() - (1 - min_work) ** 2 / 12) < 0.005
