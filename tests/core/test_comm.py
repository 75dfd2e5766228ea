"""The Cython message counters against closed forms on tiny networks."""

import itertools

import numpy as np
import pytest
from scipy import sparse

from skfed._core._comm import (
    PAIR_SLOT_BYTES,
    CommCounter,
    pair_capacity_for,
    py_index_bits,
    py_payload_bytes,
)
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


# ------------------------------------------------- sparse counts, linear memory
def _random_traffic(counter, n_endpoints, n_messages, seed):
    """Random sends; returns the dense reference counts built with np.add.at."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n_endpoints, size=n_messages)
    dst = rng.integers(0, n_endpoints, size=n_messages)
    payload = rng.integers(0, 50, size=n_messages)
    ref_bytes = np.zeros((n_endpoints, n_endpoints), dtype=np.int64)
    ref_messages = np.zeros((n_endpoints, n_endpoints), dtype=np.int64)
    np.add.at(ref_bytes, (src, dst), payload + HEADER)
    np.add.at(ref_messages, (src, dst), 1)
    for k in range(n_messages):
        counter.send_message(int(src[k]), int(dst[k]), int(payload[k]))
        if k % 97 == 96:
            counter.next_round()
    return ref_bytes, ref_messages


@pytest.mark.parametrize("n_nodes, server, n_messages", [(3, False, 40), (7, True, 500), (60, False, 3000)])
def test_sparse_pair_counts_equal_a_dense_reference(n_nodes, server, n_messages):
    counter = CommCounter(n_nodes, server=server, header_bytes=HEADER)
    n_endpoints = counter.n_endpoints
    ref_bytes, ref_messages = _random_traffic(counter, n_endpoints, n_messages, seed=n_nodes)
    talked = ref_messages > 0
    assert counter.n_pairs == talked.sum()
    # The table grew past its initial 64 slots on the larger networks and
    # stays at most 3/4 full.
    assert 4 * counter.n_pairs <= 3 * counter.pair_capacity
    assert counter.pair_capacity == pair_capacity_for(counter.n_pairs)
    src, dst, n_bytes, n_messages_ = counter.pair_counts()
    np.testing.assert_array_equal(np.c_[src, dst], np.argwhere(talked))
    np.testing.assert_array_equal(n_bytes, ref_bytes[talked])
    np.testing.assert_array_equal(n_messages_, ref_messages[talked])
    dense = counter.snapshot()
    sparse_ = counter.snapshot(dense=False)
    assert sparse.issparse(sparse_["pair_bytes"]) and sparse_["pair_bytes"].nnz == talked.sum()
    np.testing.assert_array_equal(dense["pair_bytes"], ref_bytes)
    np.testing.assert_array_equal(dense["pair_messages"], ref_messages)
    np.testing.assert_array_equal(sparse_["pair_bytes"].toarray(), ref_bytes)
    np.testing.assert_array_equal(sparse_["pair_messages"].toarray(), ref_messages)
    assert dense["round_bytes"].sum() == ref_bytes.sum()
    np.testing.assert_array_equal(dense["round_messages"][:-1], 97)


def test_memory_is_linear_in_the_pairs_that_talked():
    # A server round with 100,000 clients: 200,000 pairs, never 10^10.
    n_nodes = 100_000
    counter = CommCounter(n_nodes, server=True, header_bytes=HEADER)
    idle = counter.nbytes
    assert idle < 10_000  # nothing per node until a node sends
    everyone = np.arange(n_nodes, dtype=np.intp)
    counter.gather_to_server(everyone, np.full(n_nodes, 3, dtype=np.int64))
    counter.next_round()
    counter.broadcast_from_server(everyone, np.full(n_nodes, 3, dtype=np.int64))
    counter.next_round()
    assert counter.n_pairs == 2 * n_nodes
    assert 4 * counter.n_pairs <= 3 * counter.pair_capacity <= 8 * counter.n_pairs
    assert counter.pair_capacity == pair_capacity_for(counter.n_pairs) == 2**19
    assert counter.nbytes == 20 * counter.pair_capacity + idle - 20 * 64
    assert counter.nbytes <= 20 * 8 * counter.n_pairs // 3 + idle
    snap = counter.snapshot(dense=False)
    assert snap["pair_bytes"].nnz == 2 * n_nodes
    assert snap["pair_bytes"][17, n_nodes] == 19 and snap["pair_bytes"][n_nodes, 17] == 19
    assert snap["pair_bytes"].sum() == 2 * n_nodes * 19
    # Repeating the same traffic adds to the same pairs: no growth.
    capacity = counter.pair_capacity
    counter.gather_to_server(everyone, np.full(n_nodes, 3, dtype=np.int64))
    assert counter.pair_capacity == capacity and counter.n_pairs == 2 * n_nodes


def test_vectorised_endpoint_checks_name_the_bad_entry():
    counter = CommCounter(4, server=True)
    with pytest.raises(ValueError, match="senders=7"):
        counter.gather_to_server(np.array([0, 7, 1], dtype=np.intp), np.ones(3, dtype=np.int64))
    with pytest.raises(ValueError, match="receivers=-1"):
        counter.broadcast_from_server(np.array([-1], dtype=np.intp), np.ones(1, dtype=np.int64))
    with pytest.raises(ValueError, match="participants=9"):
        counter.reduce_scatter_ring(np.array([0, 9], dtype=np.intp), 8)
    assert counter.n_pairs == 0  # nothing was counted


def test_send_pairs_equals_one_send_per_pair():
    rng = np.random.RandomState(0)
    src = rng.randint(0, 6, size=40).astype(np.intp)
    dst = rng.randint(0, 6, size=40).astype(np.intp)
    payloads = rng.randint(0, 50, size=40).astype(np.int64)
    bulk, single = CommCounter(6), CommCounter(6)
    bulk.send_pairs(src, dst, payloads)
    for s, d, b in zip(src, dst, payloads):
        single.send_message(int(s), int(d), int(b))
    a, b = bulk.snapshot(), single.snapshot()
    np.testing.assert_array_equal(a["pair_bytes"], b["pair_bytes"])
    np.testing.assert_array_equal(a["pair_messages"], b["pair_messages"])
    with pytest.raises(ValueError, match="dst=6"):
        bulk.send_pairs(src[:1], np.array([6], dtype=np.intp), payloads[:1])
    with pytest.raises(ValueError, match="payloads"):
        bulk.send_pairs(src[:1], dst[:1], np.array([-1], dtype=np.int64))
    with pytest.raises(ValueError, match="same length"):
        bulk.send_pairs(src, dst[:3], payloads)


def _splitmix_finalizer(key):
    """The table's hash (splitmix64's finalizer), in Python integers."""
    mask = (1 << 64) - 1
    key = ((key ^ (key >> 30)) * 0xBF58476D1CE4E5B9) & mask
    key = ((key ^ (key >> 27)) * 0x94D049BB133111EB) & mask
    return key ^ (key >> 31)


@pytest.mark.parametrize("n_pairs", [0, 1, 48, 49, 96, 97, 1000, 3 * 2**12, 3 * 2**12 + 1])
def test_table_holds_n_distinct_pairs_in_the_documented_capacity(n_pairs):
    # Documented: 20-byte slots, the smallest power of two C >= 64 with
    # n_pairs <= 3 C / 4; nbytes = 20 C + 16 bytes a round of capacity.
    expected = 64
    while 4 * n_pairs > 3 * expected:
        expected *= 2
    assert pair_capacity_for(n_pairs) == expected
    assert PAIR_SLOT_BYTES == 20
    n_nodes = 200
    counter = CommCounter(n_nodes, header_bytes=HEADER, capacity=8)
    keys = np.random.default_rng(n_pairs).choice(n_nodes * n_nodes, size=n_pairs, replace=False)
    src, dst = np.divmod(keys, n_nodes)
    counter.send_pairs(src.astype(np.intp), dst.astype(np.intp), np.full(n_pairs, 5, dtype=np.int64))
    assert counter.n_pairs == n_pairs
    assert counter.pair_capacity == expected
    assert counter.nbytes == 20 * expected + 16 * 8
    # Sending again on the same pairs never grows the table.
    counter.send_pairs(src.astype(np.intp), dst.astype(np.intp), np.full(n_pairs, 5, dtype=np.int64))
    assert counter.pair_capacity == expected and counter.n_pairs == n_pairs
    got_src, got_dst, n_bytes, n_messages = counter.pair_counts()
    order = np.argsort(keys)
    np.testing.assert_array_equal(got_src, src[order])
    np.testing.assert_array_equal(got_dst, dst[order])
    np.testing.assert_array_equal(n_bytes, 2 * (5 + HEADER))
    np.testing.assert_array_equal(n_messages, 2)


def test_counts_equal_a_dict_reference_on_colliding_traffic():
    # Half of the pairs share one home slot in every table up to 1024 slots
    # (the same 10 low bits of the hash), so their probe sequences collide;
    # the rest are random.  Counts must equal a plain dict's.
    n_nodes = 1000
    rng = np.random.default_rng(7)
    colliding = list(itertools.islice(
        (key for key in range(n_nodes * n_nodes) if _splitmix_finalizer(key + 1) & 1023 == 5),
        300,
    ))
    assert len(colliding) == 300
    pool = np.concatenate([colliding, rng.choice(n_nodes * n_nodes, size=300, replace=False)])
    counter = CommCounter(n_nodes, header_bytes=HEADER)
    ref = {}
    for _ in range(6):
        keys = rng.choice(pool, size=2000)
        payloads = rng.integers(0, 1000, size=2000)
        src, dst = np.divmod(keys, n_nodes)
        counter.send_pairs(src.astype(np.intp), dst.astype(np.intp), payloads.astype(np.int64))
        counter.next_round()
        for key, payload in zip(keys.tolist(), payloads.tolist()):
            n_bytes, n_messages = ref.get(key, (0, 0))
            ref[key] = (n_bytes + payload + HEADER, n_messages + 1)
    assert counter.n_pairs == len(ref)
    assert counter.pair_capacity == pair_capacity_for(len(ref))
    src, dst, n_bytes, n_messages = counter.pair_counts()
    got = {
        int(s) * n_nodes + int(d): (int(b), int(m))
        for s, d, b, m in zip(src, dst, n_bytes, n_messages)
    }
    assert got == ref
    assert list(src * n_nodes + dst) == sorted(ref)


def test_message_counts_carry_past_32_bits():
    # The table stores 32 bits of a pair's message count; a pair that
    # passes 2^32 - 1 messages carries into a dict, so counts stay exact.
    counter = CommCounter(3, header_bytes=HEADER)
    counter.send_message(0, 1, 4)
    counter.send_message(2, 1, 4)
    counter._set_pair_messages(0, 1, 2**32 - 2)
    for _ in range(3):  # 2^32 - 1, then 2^32 (wraps), then 2^32 + 1
        counter.send_message(0, 1, 4)
    counter._set_pair_messages(2, 1, 2**32 - 1)
    counter.send_message(2, 1, 4)  # wraps to 2^32
    counter._set_pair_messages(2, 1, 2**32 - 1)
    counter.send_message(2, 1, 4)  # wraps a second time: 2 * 2^32
    src, dst, n_bytes, n_messages = counter.pair_counts()
    np.testing.assert_array_equal(np.c_[src, dst], [[0, 1], [2, 1]])
    np.testing.assert_array_equal(n_messages, [2**32 + 1, 2 * 2**32])
    np.testing.assert_array_equal(n_bytes, [4 * (4 + HEADER), 3 * (4 + HEADER)])
    assert counter.snapshot(dense=False)["pair_messages"][0, 1] == 2**32 + 1
    with pytest.raises(ValueError, match="has not talked"):
        counter._set_pair_messages(1, 0, 3)
