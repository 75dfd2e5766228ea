"""The network function that every fit of the online learner ends with.

Checked against a NumPy version of the same protocol: breadth-first tree
of the ring rooted at node 0, every node's function in the common width,
subtree means merged bottom-up and compressed by a KOMP written here from
fresh least-squares projections, the root's mean sent back down; and the
bytes of the up and down messages in closed form.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import sparse

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor


def rbf(A, B, gamma):
    sq = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)
    return np.exp(-gamma * sq)


def ring(n):
    A = np.zeros((n, n), dtype=int)
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1
    return A


def komp(Z, W, gamma, eps, max_size):
    """Destructive KOMP from fresh projections: remove the point whose
    removal (with the weights re-projected onto the others) moves the
    function least, while the distance to the function it started from
    stays within ``eps`` or the dictionary is larger than ``max_size``."""
    Z0, W0 = Z.copy(), W.copy()

    def distance2(Z1, W1):
        return float(np.sum(W0 * (rbf(Z0, Z0, gamma) @ W0))
                     - 2 * np.sum(W0 * (rbf(Z0, Z1, gamma) @ W1))
                     + np.sum(W1 * (rbf(Z1, Z1, gamma) @ W1)))

    while len(Z) > 0:
        best = None
        for j in range(len(Z)):
            rest = np.delete(np.arange(len(Z)), j)
            K_rest = rbf(Z[rest], Z[rest], gamma)
            W_rest = np.linalg.solve(K_rest, rbf(Z[rest], Z, gamma) @ W) if len(rest) else W[:0]
            cost = distance2(Z[rest], W_rest)
            if best is None or cost < best[0]:
                best = (cost, rest, W_rest)
        if len(Z) <= max_size and best[0] > eps ** 2:
            break
        Z, W = Z[best[1]], best[2]
    return Z, W


def tree(n):
    """Parents of the breadth-first tree of the ring rooted at 0, and the
    nodes deepest first."""
    parents = np.full(n, -1)
    order, seen = [0], {0}
    for node in order:
        for nb in sorted(((node - 1) % n, (node + 1) % n)):
            if nb not in seen:
                seen.add(nb)
                parents[nb] = node
                order.append(nb)
    return parents, order[::-1]


def held(D, blocks):
    """How many rows of ``D`` occur (exactly) in the rows of ``blocks``."""
    rows = {tuple(r) for B in blocks for r in np.asarray(B)}
    return sum(tuple(r) in rows for r in np.asarray(D))


def message_bytes(m, n_ref, d, n_out, value, referencing):
    """A dictionary of m points: with references a bit mask over the points
    (whole bytes), 4 bytes per referenced point and d values per other
    point; n_out weights per point."""
    if not referencing:
        return m * (d + n_out) * value
    return m * n_out * value + -(-m // 8) + 4 * n_ref + (m - n_ref) * d * value


@pytest.mark.parametrize("gamma", [0.5, "median"])
@pytest.mark.parametrize("drop_rate", [0.0, 0.4])
@pytest.mark.parametrize("exchange_every", ["auto", None])
def test_network_function_equals_numpy_tree_merge_and_bytes(gamma, drop_rate, exchange_every):
    n_nodes, n, d, header = 6, 12, 2, 16
    rng = np.random.RandomState(0)
    X = rng.normal(size=(n_nodes * n, d))
    groups = np.repeat(np.arange(n_nodes), n)
    y = (X[:, 0] + 0.2 * groups * X[:, 1] > 0).astype(int)
    eps, max_size = 0.05, 8
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma=gamma, epsilon=eps, max_dictionary_size=max_size,
        consensus_penalty=0.2, max_epochs=3, random_state=0, exchange_every=exchange_every,
        network=SimulatedNetwork(ring(n_nodes), header_bytes=header, drop_rate=drop_rate,
                                 random_state=0),
    ).fit(X, y, groups=groups)
    gammas = est.gamma_
    width = gammas[0] if gamma == 0.5 else float(np.exp(np.mean(np.log(gammas))))
    assert est.network_gamma_[0] == pytest.approx(width, rel=1e-12)
    parents, deepest_first = tree(n_nodes)
    # Every node's function in the common width (ridge interpolation at its
    # own points when its width differs).
    own = []
    for j in range(n_nodes):
        D, W = est.dictionaries_[j], est.dual_coef_[j]
        if gammas[j] != width:
            W = np.linalg.solve(rbf(D, D, width) + 1e-6 * np.eye(len(D)),
                                rbf(D, D, gammas[j]) @ W)
        own.append((D, W))
    # With copies every node holds its neighbours' published dictionaries:
    # a point of a network-function message found in the sender's or the
    # receiver's travels as an int32 reference.
    referencing = exchange_every is not None
    pub = [est._pub_points[j, :est._pub_sizes[j]] for j in range(n_nodes)]
    sub, count, up_bytes, n_refs, plain_bytes = {}, {}, 0, 0, 0
    for node in deepest_first:
        children = [c for c in range(n_nodes) if parents[c] == node]
        total = 1 + sum(count[c] for c in children)
        Z = np.vstack([own[node][0]] + [sub[c][0] for c in children])
        W = np.vstack([own[node][1] / total] + [sub[c][1] * count[c] / total
                                                for c in children])
        sub[node], count[node] = komp(Z, W, width, eps, max_size), total
        if parents[node] >= 0:
            m = len(sub[node][0])
            n_ref = held(sub[node][0], [pub[node], pub[parents[node]]]) if referencing else 0
            n_refs += n_ref
            # (+ 16: the join's two sums, skfed/online/_join_means.py)
            up_bytes += header + 4 + 16 + message_bytes(m, n_ref, d, 1, 8, referencing)
            plain_bytes += header + 4 + 16 + message_bytes(m, 0, d, 1, 8, False)
    D_ref, W_ref = sub[0]
    assert count[0] == n_nodes
    # Intermediate sizes: every message is a compressed subtree mean.
    assert len(est.network_dictionary_[0]) == len(D_ref) <= max_size
    grid = rng.normal(size=(40, d))
    # Step 3's mean (the weights step 4 starts from; see
    # test_online_network_solve.py for the solve).
    D_net = est.network_dictionary_[0]
    assert_allclose(rbf(grid, D_net, width) @ est._network_mean_coef[0][:, 0],
                    rbf(grid, D_ref, width) @ W_ref[:, 0], rtol=1e-7, atol=1e-9)
    # An unknown node is predicted with the function on those points.
    assert_allclose(est.decision_function(grid, groups=[99] * len(grid)),
                    rbf(grid, D_net, width) @ est.network_coef_[0][:, 0], rtol=1e-7, atol=1e-9)
    # Bytes: a compressed subtree mean (points, weights, an int32 count) up
    # every tree edge, the root's mean down every edge, and with per-node
    # widths their log sum and count up (2 float64) and the width down.
    # A node receiving the root's mean also holds the subtree mean it sent up.
    down_bytes = 0
    for node in range(1, n_nodes):
        n_ref = (held(D_ref, [sub[node][0], pub[parents[node]], pub[node]])
                 if referencing else 0)
        n_refs += n_ref
        down_bytes += header + message_bytes(len(D_ref), n_ref, d, 1, 8, referencing)
        plain_bytes += header + message_bytes(len(D_ref), 0, d, 1, 8, False)
    if referencing:
        # Intermediate count: the copies do hold points of the messages.
        assert n_refs > 0
    width_bytes = 0 if gamma == 0.5 else (n_nodes - 1) * ((header + 16) + (header + 8))
    # The solve: per evaluation m + 2 float64 up and m down every tree
    # edge, then the gate's 3 float64 up and an int32 down.
    m, solve_rounds = len(D_ref), int(est._network_solve_rounds[0])
    assert solve_rounds >= 2
    solve_bytes = (n_nodes - 1) * ((solve_rounds - 1) * (2 * header + (2 * m + 2) * 8)
                                   + 2 * header + 3 * 8 + 4)
    log = est.network_communication_
    assert log.total_bytes == up_bytes + down_bytes + width_bytes + solve_bytes
    assert log.total_messages == 2 * (n_nodes - 1) * ((1 if gamma == 0.5 else 2) + solve_rounds)
    depth = 3  # the ring of 6 from node 0
    # (the widths' tree round and each of the solve's go up and back down
    # the tree)
    rounds = 2 * depth * (1 + (gamma != 0.5) + solve_rounds)
    assert log.n_rounds == rounds if drop_rate == 0 else log.n_rounds > rounds
    assert est.n_bytes_sent_ == est.communication_.total_bytes + log.total_bytes
    # Rebuilt with every point sent as its values: the same function (same
    # seeds, same drops) and the bytes without references.
    mean = est._network_mean_coef[0].copy()
    plain_log = est._build_network_function(references=False)   # (no data: no solve)
    assert plain_log.total_bytes == plain_bytes + width_bytes
    assert np.array_equal(est.network_coef_[0], mean)


def test_partial_fit_rebuilds_it_and_joins_start_from_it():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(60, 2))
    groups = np.repeat(np.arange(4), 15)
    y = np.sin(X[:, 0])
    est = DecentralizedKernelSGDRegressor(kernel="rbf", gamma=0.5, max_epochs=2,
                                          random_state=0)
    est.partial_fit(X[:30], y[:30], groups=groups[:30])
    first = est.network_communication_.total_bytes
    before = est._network_values(X[:5]).copy()
    est.partial_fit(X[30:], y[30:], groups=groups[30:])
    # A second call ends with a new network function, its bytes appended.
    assert est.network_communication_.total_bytes > first
    assert not np.allclose(est._network_values(X[:5]), before)
    # A node that joins receives it (one dictionary) besides its neighbours'.
    fitted = [W.copy() for W in est.dual_coef_]
    est.add_nodes(X[:5] + 0.1, y[:5], groups=[9] * 5)
    assert est.join_start_[0] in ("network", "neighbours")
    for j in range(4):
        assert np.array_equal(est.dual_coef_[j], fitted[j])
    assert est.network_component_.tolist() == [0, 0, 0, 0, 0]


def test_disconnected_graph_has_one_function_per_component():
    A = sparse.csr_matrix(np.kron(np.eye(2, dtype=int), np.array([[0, 1], [1, 0]])))
    rng = np.random.RandomState(2)
    X = rng.normal(size=(80, 2))
    groups = np.repeat(np.arange(4), 20)
    y = (X[:, 0] > 0).astype(int)
    est = DecentralizedKernelSGDClassifier(kernel="rbf", gamma=0.5, max_epochs=2,
                                           consensus_penalty=0.1, random_state=0,
                                           network=SimulatedNetwork(A)).fit(X, y, groups=groups)
    assert est.network_component_.tolist() == [0, 0, 1, 1]
    assert len(est.network_dictionary_) == 2
    # Unknown nodes: the components' functions weighted by their nodes.
    grid = rng.normal(size=(10, 2))
    parts = [est._network_values(grid, component=c) for c in (0, 1)]
    assert_allclose(est._network_values(grid), 0.5 * parts[0] + 0.5 * parts[1])
    # Step 3 gives each its pair's mean (within KOMP's budget at two levels).
    for c, pair in enumerate([(0, 1), (2, 3)]):
        mean = np.mean([est._node_function(j, grid) for j in pair], axis=0)
        step3 = rbf(grid, est.network_dictionary_[c], 0.5) @ est._network_mean_coef[c]
        assert np.abs(step3 - mean).max() <= 2 * est.epsilon_
    # One message up and one down per component's tree edge, and as many
    # per round of its solve.
    rounds = est._network_solve_rounds
    assert len(rounds) == 2 and np.all(rounds >= 2)
    assert est.network_communication_.total_messages == 4 + 2 * int(rounds.sum())


def test_linear_kernel_network_function_is_the_exact_mean():
    # A linear kernel's function is w' x whatever its points: the network
    # function is the exact mean, held as one point w with weight 1
    # (skfed/online/_coordinates.py; the kernel has no width, so no width
    # round).
    rng = np.random.RandomState(3)
    X = rng.normal(size=(120, 3))
    groups = np.repeat(np.arange(6), 20)
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=120)
    est = DecentralizedKernelSGDRegressor(kernel="linear", loss="squared_error",
                                          max_epochs=3, random_state=0).fit(X, y, groups=groups)
    assert len(np.unique(est.gamma_)) == 6
    assert len(est.network_dictionary_[0]) == 1
    # step 3's mean against the nodes' own w = D' W (independent of the
    # protocol: every node's dictionary and weights)
    w = np.mean([est.dictionaries_[j].T @ est.dual_coef_[j] for j in range(6)], axis=0)
    assert_allclose(est._network_mean_dictionary[0].T @ est._network_mean_coef[0], w,
                    rtol=1e-10, atol=1e-12)
    grid = rng.normal(size=(20, 3))
    mean = np.mean([est._node_function(j, grid) for j in range(6)], axis=0)
    step3 = est._join_eval(est._network_mean_dictionary[0], est._network_mean_coef[0],
                           est.network_gamma_[0], grid)
    assert_allclose(step3, mean, rtol=1e-10, atol=1e-12)
    # up and down the 5 tree edges, then 2 messages an edge per solve round
    rounds = int(est._network_solve_rounds[0])
    assert rounds >= 2
    assert est.network_communication_.total_messages == 2 * 5 + 2 * 5 * rounds


def test_partial_fit_recomputes_it_when_the_steps_double():
    # A stream of small batches: the network function (a tree pass of whole
    # dictionaries) is recomputed only once the network's steps have doubled.
    rng = np.random.RandomState(3)
    X = rng.normal(size=(400, 2))
    groups = np.tile(np.arange(4), 100)
    y = np.sin(X[:, 0])
    est = DecentralizedKernelSGDRegressor(kernel="rbf", gamma=0.5, random_state=0)
    est.partial_fit(X[:40], y[:40], groups=groups[:40])  # 40 steps: computed
    built = [est.network_communication_.total_bytes]
    for start in range(40, 400, 20):
        est.partial_fit(X[start:start + 20], y[start:start + 20],
                        groups=groups[start:start + 20])
        built.append(est.network_communication_.total_bytes)
    steps = np.arange(40, 401, 20)
    assert int(est.n_steps_.sum()) == 400
    changed = np.flatnonzero(np.diff(built) > 0) + 1
    # recomputed at 80, 160 and 320 steps, never in between
    assert steps[changed].tolist() == [80, 160, 320]
    assert est.n_bytes_sent_ == (est.communication_.total_bytes
                                 + est.network_communication_.total_bytes)


def test_reference_split_indexes_the_concatenation_both_ends_hold():
    from skfed.online._network_function import dictionary_bytes, reference_split

    rng = np.random.RandomState(4)
    A, B = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    new = rng.normal(size=(2, 3))
    D = np.vstack([B[2], new[0], A[1], B[2], new[1], A[4]])
    is_ref, index = reference_split(D, [A, B])
    assert is_ref.tolist() == [True, False, True, True, False, True]
    assert index.tolist() == [5 + 2, 1, 5 + 2, 4]
    held_rows = np.vstack([A, B])[index]
    assert np.array_equal(held_rows, D[is_ref])
    # A point held twice is referenced at its first row.
    _, index = reference_split(A[:1], [A[:1], A[:1]])
    assert index.tolist() == [0]
    # 6 points, 4 referenced, 3 features, 2 outputs, float32: 6 x 2 weights,
    # one byte of mask, 4 int32, 2 points of 3 values.
    assert dictionary_bytes(6, 4, 3, 2, 4, True) == 48 + 1 + 16 + 24
    assert dictionary_bytes(6, 4, 3, 2, 4, False) == 6 * 5 * 4
    assert dictionary_bytes(9, 0, 3, 1, 8, True) == 72 + 2 + 9 * 24


def test_signed_zeros_are_one_point_in_unions_and_references():
    from skfed.online._network_function import dictionary_bytes, reference_split, union

    # -0.0 and 0.0 are the same point (every kernel gives them the same
    # values): a union holds it once, a message references it.
    P = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    Q = np.array([[-0.0, 1.5, 0.0], [2.0, -0.0, -1.0], [3.0, 3.0, 3.0]])
    Z, W = union([(P, np.array([[1.0], [2.0]])), (Q, np.array([[10.0], [20.0], [30.0]]))])
    assert len(Z) == 3
    assert np.array_equal(Z, np.vstack([P, Q[2:]]))
    assert W[:, 0].tolist() == [11.0, 22.0, 30.0]
    is_ref, index = reference_split(Q, [P])
    assert is_ref.tolist() == [True, True, False]
    assert index.tolist() == [0, 1]
    # 3 points of 3 features, 1 output, float64: 2 referenced -> 3 weights,
    # one byte of mask, 2 int32 and one point of 3 values.
    assert dictionary_bytes(3, int(is_ref.sum()), 3, 1, 8, True) == 24 + 1 + 8 + 24


@pytest.mark.parametrize("exchange_every", ["auto", None])
def test_network_function_of_signed_zero_copies_equals_plain_zeros(exchange_every):
    # Node 1 holds node 0's samples, their zeros negated: the fit (every
    # kernel value the same) and its network function, values and bytes,
    # are those of the same samples with plain zeros.
    rng = np.random.RandomState(3)
    base = np.round(rng.normal(size=(15, 3)), 0) + 0.0
    assert np.sum(base == 0) > 5
    X_plain = np.vstack([base, base, rng.normal(size=(15, 3))])
    X_signed = X_plain.copy()
    X_signed[15:30][base == 0] = -0.0
    assert np.signbit(X_signed[15:30][base == 0]).all()
    y = (X_plain[:, 0] + X_plain[:, 1] > 0).astype(int)
    groups = np.repeat([0, 1, 2], 15)
    path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    fits = [DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma=0.5, epsilon=0.01, max_dictionary_size=40, consensus_penalty=0.2,
        max_epochs=3, random_state=0, exchange_every=exchange_every,
        network=SimulatedNetwork(path, header_bytes=16, random_state=0),
    ).fit(X, y, groups=groups) for X in (X_plain, X_signed)]
    plain, signed = fits
    assert (plain.network_communication_.total_bytes
            == signed.network_communication_.total_bytes)
    assert len(plain.network_dictionary_[0]) == len(signed.network_dictionary_[0])
    grid = rng.normal(size=(30, 3))
    assert_allclose(signed._network_values(grid), plain._network_values(grid),
                    rtol=1e-12, atol=1e-12)
