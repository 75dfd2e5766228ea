"""SimulatedNetwork, topologies and the CommunicationLog."""

import pickle

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone

from skfed.network import (
    CommunicationLog,
    SimulatedNetwork,
    check_adjacency,
    index_bits,
    make_topology,
    payload_bytes,
    resolve_network,
)


def test_named_topologies_have_the_expected_degrees():
    assert make_topology("ring", 6).sum(axis=1).tolist() == [2] * 6
    assert make_topology("complete", 5).sum(axis=1).tolist() == [4] * 5
    star = make_topology("star", 5)
    assert star.sum(axis=1).tolist() == [4, 1, 1, 1, 1]
    assert make_topology("k_regular", 10, {"degree": 4}).sum(axis=1).tolist() == [4] * 10
    assert make_topology("k_regular", 10, {"degree": 3}).sum(axis=1).tolist() == [3] * 10
    for name in ("ring", "star", "complete", "k_regular"):
        adjacency = make_topology(name, 8)
        assert np.array_equal(adjacency, adjacency.T)
        assert not adjacency.diagonal().any()


@pytest.mark.parametrize("name, params", [("erdos_renyi", {"p": 0.3}), ("random_geometric", {"radius": 0.5}), ("erdos_renyi", None)])
def test_random_topologies_are_connected_and_seeded(name, params):
    a = make_topology(name, 30, params, random_state=1)
    b = make_topology(name, 30, params, random_state=1)
    np.testing.assert_array_equal(a, b)
    n_components, _ = sparse.csgraph.connected_components(sparse.csr_matrix(a))
    assert n_components == 1
    assert np.array_equal(a, a.T) and not a.diagonal().any()


def test_erdos_renyi_density_matches_p():
    a = make_topology("erdos_renyi", 200, {"p": 0.1}, random_state=0)
    density = a.sum() / (200 * 199)
    assert abs(density - 0.1) < 0.01


def test_topology_errors_name_the_parameter():
    with pytest.raises(ValueError, match="topology='torus'"):
        make_topology("torus", 4)
    with pytest.raises(ValueError, match="degree"):
        make_topology("k_regular", 4, {"degree": 4})
    with pytest.raises(ValueError, match="topology_params"):
        make_topology("ring", 4, {"degree": 2})
    with pytest.raises(ValueError, match="connected"):
        make_topology("erdos_renyi", 50, {"p": 1e-4}, random_state=0)


def test_check_adjacency_rejects_bad_graphs():
    good = make_topology("ring", 4)
    assert check_adjacency(good, 4).nnz == 8
    with pytest.raises(ValueError, match="4 nodes"):
        check_adjacency(make_topology("ring", 5), 4, name="graph")
    asym = good.astype(float)
    asym[0, 1] = 0
    with pytest.raises(ValueError, match="symmetric"):
        check_adjacency(asym, 4)
    neg = good.astype(float)
    neg[0, 1] = neg[1, 0] = -1
    with pytest.raises(ValueError, match="negative"):
        check_adjacency(neg, 4)
    loop = good.astype(float)
    loop[2, 2] = 1
    with pytest.raises(ValueError, match="self-loops"):
        check_adjacency(loop, 4)
    nan = good.astype(float)
    nan[0, 1] = nan[1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        check_adjacency(nan, 4)
    with pytest.raises(ValueError, match="square"):
        check_adjacency(np.ones((3, 4)), 3)


def test_networkx_graph_topology():
    nx = pytest.importorskip("networkx")
    graph = nx.cycle_graph(5)
    sim = SimulatedNetwork(topology=graph).start(5)
    np.testing.assert_array_equal(sim.adjacency.toarray(), make_topology("ring", 5))
    # A graph over the node labels is ordered like nodes_.
    labelled = nx.Graph([("b", "a"), ("b", "c")])
    sim = SimulatedNetwork(topology=labelled).start(3, node_labels=np.array(["a", "b", "c"]))
    np.testing.assert_array_equal(sim.neighbors(1), [0, 2])
    np.testing.assert_array_equal(sim.neighbors(0), [1])


def test_callable_and_array_topologies():
    sim = SimulatedNetwork(topology=lambda n, rng: make_topology("star", n)).start(4)
    np.testing.assert_array_equal(sim.neighbors(0), [1, 2, 3])
    sim = SimulatedNetwork(topology=sparse.csr_matrix(make_topology("ring", 4))).start(4)
    np.testing.assert_array_equal(sim.neighbors(0), [1, 3])
    with pytest.raises(ValueError, match="topology_params"):
        SimulatedNetwork(topology=make_topology("ring", 4), topology_params={"p": 1}).start(4)


def test_parameters_are_validated_and_clonable():
    net = SimulatedNetwork(topology="ring", drop_rate=0.2, random_state=3)
    assert clone(net).get_params() == net.get_params()
    with pytest.raises(ValueError, match="drop_rate"):
        SimulatedNetwork(drop_rate=1.0).start(3)
    with pytest.raises(ValueError, match="rogue_fraction"):
        SimulatedNetwork(rogue_fraction=0.5).start(3)
    with pytest.raises(ValueError, match="rogue_behavior"):
        SimulatedNetwork(rogue_behavior="evil").start(3)
    with pytest.raises(TypeError, match="SimulatedNetwork"):
        resolve_network("ring")
    assert resolve_network(None).is_perfect


def test_rogue_nodes_and_their_messages():
    sim = SimulatedNetwork(rogue_fraction=0.3, random_state=0).start(10)
    assert sim.rogue.sum() == 3
    bits = np.array([True, False, True])
    rogue, honest = np.flatnonzero(sim.rogue)[0], np.flatnonzero(~sim.rogue)[0]
    np.testing.assert_array_equal(sim.corrupt_bits(bits, honest), bits)
    np.testing.assert_array_equal(sim.corrupt_bits(bits, rogue), ~bits)
    np.testing.assert_array_equal(sim.corrupt_values(np.array([1.0, -2.0]), rogue), [-1.0, 2.0])
    sim = SimulatedNetwork(rogue_fraction=0.3, rogue_behavior="random", random_state=0).start(10)
    rogue = np.flatnonzero(sim.rogue)[0]
    draws = np.array([sim.corrupt_bits(np.zeros(1000, bool), rogue).mean() for _ in range(5)])
    assert np.all(np.abs(draws - 0.5) < 0.08)


def test_seeded_simulations_are_reproducible():
    a = SimulatedNetwork(topology="erdos_renyi", drop_rate=0.3, random_state=5).start(12)
    b = SimulatedNetwork(topology="erdos_renyi", drop_rate=0.3, random_state=5).start(12)
    np.testing.assert_array_equal(a.adjacency.toarray(), b.adjacency.toarray())
    np.testing.assert_array_equal(a.draw_rounds(10)[0], b.draw_rounds(10)[0])
    # Without its own seed the network follows the estimator's random_state.
    c = SimulatedNetwork(drop_rate=0.3).start(12, random_state=7)
    d = SimulatedNetwork(drop_rate=0.3).start(12, random_state=7)
    np.testing.assert_array_equal(c.draw_rounds(10)[1], d.draw_rounds(10)[1])


def test_communication_log_totals_and_exports():
    sim = SimulatedNetwork(topology="ring").start(4, server=True)
    counter = sim.counter
    for node in range(4):
        counter.multicast_message(node, sim.neighbors(node).astype(np.intp), payload_bytes(n_float64=1))
    counter.next_round()
    counter.gather_to_server(np.arange(4, dtype=np.intp), np.full(4, 4, dtype=np.int64))
    counter.next_round()
    log = sim.log(node_labels=np.array(["a", "b", "c", "d"]))
    assert log.total_messages == 8 + 4
    assert log.total_bytes == 8 * 24 + 4 * 20
    np.testing.assert_array_equal(log.bytes_per_round, [8 * 24, 4 * 20])
    np.testing.assert_array_equal(log.bytes_sent, [68, 68, 68, 68, 0])
    np.testing.assert_array_equal(log.bytes_received, [48, 48, 48, 48, 80])
    d = log.to_dict()
    assert d["endpoints"] == ["a", "b", "c", "d", "server"] and d["total_bytes"] == 272
    assert "272 bytes in 12 messages over 2 rounds (4 nodes + server)" in log.summary()
    restored = pickle.loads(pickle.dumps(log))
    np.testing.assert_array_equal(restored.pair_bytes, log.pair_bytes)
    pd = pytest.importorskip("pandas")
    frame = log.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.loc["server", "bytes_received"] == 80
    assert "CommunicationLog(total_bytes=272" in repr(log)


def test_module_helpers():
    assert payload_bytes(n_float64=1, n_float32=1, n_int32=1, n_bits=9) == 18
    assert index_bits(1000) == 10
    empty = CommunicationLog(np.zeros((2, 2)), np.zeros((2, 2)), [], [])
    assert empty.total_bytes == 0 and empty.n_rounds == 0


# ------------------------------------------------------------ scaling to many nodes
def test_log_is_sparse_and_equals_the_dense_counts():
    sim = SimulatedNetwork(topology="ring").start(6, server=True)
    counter = sim.counter
    ref = np.zeros((7, 7), dtype=np.int64)
    for node in range(6):
        neighbours = sim.neighbors(node).astype(np.intp)
        counter.multicast_message(node, neighbours, 8)
        ref[node, neighbours] += 8 + 16
    counter.next_round()
    counter.gather_to_server(np.array([1, 4], dtype=np.intp), np.array([5, 9], dtype=np.int64))
    ref[1, 6] += 21
    ref[4, 6] += 25
    log = sim.log()
    assert isinstance(log.pair_bytes_sparse, sparse.csr_array)
    assert log.pair_bytes_sparse.nnz == 12 + 2 == log.pair_messages_sparse.nnz
    np.testing.assert_array_equal(log.pair_bytes, ref)
    np.testing.assert_array_equal(log.pair_messages, (ref > 0).astype(np.int64))
    np.testing.assert_array_equal(log.bytes_sent, ref.sum(axis=1))
    np.testing.assert_array_equal(log.bytes_received, ref.sum(axis=0))
    np.testing.assert_array_equal(log.messages_sent, (ref > 0).sum(axis=1))
    assert log.bytes_sent.dtype == np.int64 and log.total_bytes == ref.sum()
    # A log built from dense arrays (what a Flower run reports) is the same.
    dense = CommunicationLog(ref, (ref > 0).astype(int), log.bytes_per_round,
                             log.messages_per_round, has_server=True)
    assert (dense.pair_bytes_sparse != log.pair_bytes_sparse).nnz == 0
    # combine: pair counts add up, rounds append (what partial_fit reports).
    both = log.combine(log)
    np.testing.assert_array_equal(both.pair_bytes, 2 * ref)
    np.testing.assert_array_equal(both.bytes_per_round, np.tile(log.bytes_per_round, 2))
    assert both.total_messages == 2 * log.total_messages
    restored = pickle.loads(pickle.dumps(log))
    np.testing.assert_array_equal(restored.pair_bytes, ref)
    with pytest.raises(ValueError, match="combine"):
        log.combine(CommunicationLog(np.zeros((3, 3)), np.zeros((3, 3)), [], []))


def test_log_of_a_hundred_thousand_clients_stays_linear():
    n_nodes = 100_000
    sim = SimulatedNetwork().start(n_nodes, server=True)
    everyone = np.arange(n_nodes, dtype=np.intp)
    sim.counter.gather_to_server(everyone, np.full(n_nodes, 3, dtype=np.int64))
    sim.counter.next_round()
    log = sim.log()
    matrix = log.pair_bytes_sparse
    held = matrix.data.nbytes + matrix.indices.nbytes + matrix.indptr.nbytes
    assert matrix.nnz == n_nodes and held <= 24 * (n_nodes + 2)
    assert log.total_bytes == 19 * n_nodes and log.bytes_received[-1] == 19 * n_nodes
    assert log.bytes_sent.shape == (n_nodes + 1,) and log.bytes_sent[:-1].max() == 19


@pytest.mark.parametrize("behavior", ["complement", "random"])
def test_row_corruption_equals_one_call_per_node(behavior):
    def simulation():
        net = SimulatedNetwork(rogue_fraction=0.3, rogue_behavior=behavior, random_state=4)
        return net.start(40)

    rng = np.random.default_rng(0)
    nodes = np.sort(rng.choice(40, size=25, replace=False))
    bits = rng.uniform(size=(25, 11)) < 0.5
    values = rng.normal(size=(25, 6))
    values[3] = 0.0  # a zero message: scale 1 for random noise
    a, b = simulation(), simulation()
    assert a.rogue[nodes].any() and not a.rogue[nodes].all()
    expected_bits = np.array([a.corrupt_bits(bits[k], node) for k, node in enumerate(nodes)])
    expected_values = np.array([a.corrupt_values(values[k], node) for k, node in enumerate(nodes)])
    np.testing.assert_array_equal(b.corrupt_bit_rows(bits, nodes), expected_bits)
    np.testing.assert_array_equal(b.corrupt_value_rows(values, nodes), expected_values)
    honest = ~a.rogue[nodes]
    np.testing.assert_array_equal(expected_values[honest], values[honest])


def test_sparse_topologies_equal_their_dense_definitions(monkeypatch):
    import skfed._topology as _topology
    import skfed.network as network

    # Erdos-Renyi: the same stream as one dense uniform draw, whatever the block.
    monkeypatch.setattr(_topology, "_DRAW_BLOCK", 23)
    n, p = 40, 0.15
    rng = np.random.RandomState(3)
    for _ in range(1000):  # the dense definition, redrawn until connected
        upper = np.triu(rng.uniform(size=(n, n)) < p, k=1)
        dense = upper | upper.T
        if sparse.csgraph.connected_components(sparse.csr_matrix(dense))[0] == 1:
            break
    got = network._topology_csr("erdos_renyi", n, {"p": p}, random_state=3)
    np.testing.assert_array_equal(got.toarray(), dense)
    # Random geometric: pairs strictly closer than the radius.
    radius = 0.3
    rng = np.random.RandomState(5)
    for _ in range(1000):
        points = rng.uniform(size=(n, 2))
        dense = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1)) < radius
        np.fill_diagonal(dense, False)
        if sparse.csgraph.connected_components(sparse.csr_matrix(dense))[0] == 1:
            break
    got = network._topology_csr("random_geometric", n, {"radius": radius}, random_state=5)
    np.testing.assert_array_equal(got.toarray(), dense)
    # k-regular ring lattice with odd degree: the i + n/2 chords.
    got = network._topology_csr("k_regular", 8, {"degree": 3}).toarray()
    i = np.arange(8)
    ref = np.zeros((8, 8), dtype=bool)
    ref[i, (i + 1) % 8] = ref[(i + 1) % 8, i] = ref[i, (i + 4) % 8] = True
    np.testing.assert_array_equal(got, ref)


def test_simulated_topology_of_many_nodes_is_sparse():
    n_nodes = 100_000
    sim = SimulatedNetwork(topology="k_regular", topology_params={"degree": 6}).start(n_nodes)
    adjacency = sim.adjacency
    assert sparse.issparse(adjacency) and adjacency.nnz == 6 * n_nodes
    np.testing.assert_array_equal(sim.neighbors(0), [1, 2, 3, n_nodes - 3, n_nodes - 2, n_nodes - 1])
    geometric = SimulatedNetwork(topology="random_geometric", random_state=0).start(20_000)
    degree = np.diff(geometric.adjacency.indptr)
    # Mean degree of a random geometric graph ~ n pi r^2 = 2 log n (edges cut at the border).
    assert 0.7 * 2 * np.log(20_000) < degree.mean() < 2 * np.log(20_000)


@pytest.mark.parametrize("topology, params, match", [
    ("hypercube", None, r"topology='hypercube' is not one of"),
    ("k_regular", {"degree": 50}, r"topology_params\['degree'\] must be an integer in \[1, 7\]"),
    ("k_regular", {"degree": 2.0}, r"topology_params\['degree'\] must be an integer"),
    ("k_regular", {"degre": 3}, r"topology_params \['degre'\] do not apply to "
                                r"topology='k_regular' \(allowed: \['degree'\]\)"),
    ("erdos_renyi", {"p": 1.5}, r"topology_params\['p'\] must be in \(0, 1\]"),
    ("erdos_renyi", {"p": "half"}, r"topology_params\['p'\] must be in \(0, 1\]"),
    ("random_geometric", {"radius": 0.0}, r"topology_params\['radius'\] must be a finite"),
    ("ring", {"p": 0.5}, r"topology_params \['p'\] do not apply to topology='ring'"),
])
@pytest.mark.parametrize("server", [False, True])
def test_named_topology_checked_at_start_for_every_method(topology, params, match, server):
    # Issue 31: a server-coordinated fit never built the (lazy) topology, so
    # none of these was refused there.
    net = SimulatedNetwork(topology=topology, topology_params=params)
    with pytest.raises(ValueError, match=match):
        net.start(8, server=server)


def test_k_regular_odd_degree_needs_an_even_number_of_nodes():
    with pytest.raises(ValueError, match=r"odd degree=3 needs an even number of nodes, got 7"):
        SimulatedNetwork(topology="k_regular", topology_params={"degree": 3}).start(
            7, server=True)
    # The check does not draw: a server method over 10^6 nodes pays nothing.
    SimulatedNetwork(topology="erdos_renyi").start(10**6, server=True)


@pytest.mark.parametrize("n_nodes, degree", [(8, 1), (8, 3), (8, 7), (9, 4), (2, 1)])
def test_k_regular_has_exactly_its_degree(n_nodes, degree):
    # degree=1 used to give degree 3 (a ring plus the opposite node).
    adjacency = make_topology("k_regular", n_nodes, {"degree": degree})
    assert adjacency.sum(axis=1).tolist() == [degree] * n_nodes
    assert (adjacency == adjacency.T).all() and not adjacency.diagonal().any()


@pytest.mark.parametrize("drop_rate", [0.0, 0.3])
def test_streamed_active_rounds_equal_draw_rounds(drop_rate):
    net = SimulatedNetwork(drop_rate=drop_rate, straggler_rate=0.2, rogue_fraction=0.2)
    a = net.start(5, random_state=np.random.RandomState(1))
    b = net.start(5, random_state=np.random.RandomState(1))
    active, _ = a.draw_rounds(17)
    stream = b.stream_active(17)
    parts = []
    while stream.remaining:
        parts.append(stream.read(4))
    np.testing.assert_array_equal(np.concatenate(parts), active.astype(np.uint8))
    # ...and the simulation's stream goes on as after draw_rounds(17).
    for x, y in zip(a.draw_rounds(3), b.draw_rounds(3)):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.rng.integers(1000, size=5), b.rng.integers(1000, size=5))


def test_communication_log_leaves_the_given_counts_untouched():
    # An int64 CSR array with an explicit zero and unsorted indices: the log
    # stores its own pruned, sorted copy and the caller's arrays stay as given.
    from scipy import sparse as sp

    pair = sp.csr_array((np.array([5, 0, 7], dtype=np.int64), np.array([2, 1, 0]),
                         np.array([0, 2, 3, 3])), shape=(3, 3))
    pair.has_sorted_indices = False
    before = (pair.data.copy(), pair.indices.copy(), pair.indptr.copy())
    log = CommunicationLog(pair, pair, [12], [2])
    assert log.pair_bytes_sparse.nnz == 2 and log.total_bytes == 12
    np.testing.assert_array_equal(log.pair_bytes, [[0, 0, 5], [7, 0, 0], [0, 0, 0]])
    for b, a in zip(before, (pair.data, pair.indices, pair.indptr)):
        np.testing.assert_array_equal(a, b)
    assert pair.nnz == 3
