"""Dada and Perso-lin: convergence rate, byte counts, graphs, the estimator contract."""

import pickle
import warnings

import numpy as np
import pytest
from scipy import sparse
from scipy.special import logsumexp, softmax
from sklearn.linear_model import LogisticRegression

from skfed import SingleNodeWarning
from skfed.boosting import (
    DecentralizedBoostingClassifier,
    PersonalizedLinearClassifier,
    fw_message_bytes,
    make_stumps,
    stump_predictions,
)
from skfed.datasets import make_rotated_moons
from skfed.network import SimulatedNetwork, index_bits


def _clusters(seed=0, K=6, m=15, n_features=2):
    """Two groups of nodes with opposite tasks."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(K * m, n_features))
    groups = np.repeat(np.arange(K), m)
    sign = np.where(groups < K // 2, 1, -1)
    y = np.where(sign * X[:, 0] + 0.3 * rng.normal(size=K * m) > 0, 1, 0)
    return X, y, groups


def _ring(K):
    W = np.zeros((K, K))
    for k in range(K):
        W[k, (k + 1) % K] = W[(k + 1) % K, k] = 1.0
    return W


def _margin_matrices(clf, X, y, groups):
    H = stump_predictions(X, clf.stump_features_, clf.stump_thresholds_, np.float64)
    if clf.fit_intercept:
        H = np.column_stack([H, np.ones(len(X))])
    s = np.where(y == clf.classes_[1], 1.0, -1.0)
    return [s[groups == k, None] * H[groups == k] for k in range(len(clf.nodes_))]


def _l1_projection(v, radius):
    if np.abs(v).sum() <= radius:
        return v
    u = np.sort(np.abs(v))[::-1]
    cs = np.cumsum(u)
    rho = np.nonzero(u * np.arange(1, len(u) + 1) > cs - radius)[0][-1]
    theta = (cs[rho] - radius) / (rho + 1.0)
    return np.sign(v) * np.maximum(np.abs(v) - theta, 0)


def _eq1(alpha, A, W, c, mu):
    d = W.sum(axis=1)
    value = sum(d[k] * c[k] * logsumexp(-A[k] @ alpha[k]) for k in range(len(A)))
    K = len(A)
    return value + sum(0.5 * mu * W[k, l] * np.sum((alpha[k] - alpha[l]) ** 2)
                       for k in range(K) for l in range(k + 1, K))


def _fista_minimum(A, W, c, mu, beta, n_iter=20000):
    """Centralized accelerated projected gradient on eq. 1 (independent reference)."""
    K, n = len(A), A[0].shape[1]
    d = W.sum(axis=1)
    L = max(d[k] * c[k] * np.linalg.norm(A[k], 2) ** 2 for k in range(K)) + 2 * mu * d.max()
    x = np.zeros((K, n))
    z = x.copy()
    t = 1.0
    for _ in range(n_iter):
        grad = np.stack([-d[k] * c[k] * A[k].T @ softmax(-A[k] @ z[k]) for k in range(K)])
        grad += mu * (d[:, None] * z - W @ z)
        x_new = np.stack([_l1_projection(v, beta) for v in z - grad / L])
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        z = x_new + (t - 1) / t_new * (x_new - x)
        x, t = x_new, t_new
    return _eq1(x, A, W, c, mu)


def _vertex(grad):
    """Coordinate of the Frank-Wolfe vertex: largest |g_j|, ties (within a
    relative 1e-12) to the smallest index."""
    a = np.abs(grad)
    return int(np.flatnonzero(a >= a.max() * (1 - 1e-12))[0])


# ---------------------------------------------------------------- Theorem 1
def test_objective_decreases_at_the_rate_of_theorem_1():
    X, y, groups = _clusters(0, K=6, m=12)
    rng = np.random.RandomState(0)
    W = np.triu(rng.uniform(0.2, 1.0, size=(6, 6)), 1)
    W = W + W.T
    beta, mu, T, K = 2.0, 0.5, 3000, 6
    curves = []
    for seed in range(8):
        clf = DecentralizedBoostingClassifier(12, beta=beta, mu=mu, graph=W, max_iter=T,
                                              random_state=seed).fit(X, y, groups=groups)
        curves.append(clf.objective_curve_)
    A = _margin_matrices(clf, X, y, groups)
    c = clf.confidence_
    alpha = np.column_stack([clf.coef_, clf.intercept_])
    assert clf.objective_ == pytest.approx(_eq1(alpha, A, W, c, mu), rel=1e-10)
    f_star = _fista_minimum(A, W, c, mu, beta)
    gap = np.mean(curves, axis=0) - f_star
    assert gap.min() > -1e-6  # nobody beats the centralized minimum
    t = np.arange(1, T + 1)
    # Theorem 1: E f(alpha_t) - f* <= 2K (C + h0) / (t + 2K), with the
    # curvature constant of each block bounded by 4 beta^2 d_k (c_k + mu)
    # (|A_ij| <= 1, l1 diameter 2 beta).
    d = W.sum(axis=1)
    curvature = np.sum(4 * beta**2 * d * (c + mu))
    h0 = _eq1(np.zeros_like(alpha), A, W, c, mu) - f_star
    assert np.all(gap <= 2 * K * (curvature + h0) / (t + 2 * K))
    # The rate itself: (t + 2K) * gap(t) stays bounded (a 1/sqrt(t) decrease
    # would grow it fourfold over this 16-fold range of t).
    scaled = (t + 2 * K) * gap
    assert scaled[T // 16 :].max() <= 2.0 * scaled[T // 16]
    assert gap[-1] < 0.05 * gap[T // 16 - 1]


# --------------------------------------------------------------- byte model
def test_bytes_equal_the_closed_form_on_a_ring():
    X, y, groups = _clusters(1, K=6)
    K, T, n_features = 6, 400, X.shape[1]
    ring = _ring(K)
    clf = DecentralizedBoostingClassifier(10, graph=ring, max_iter=T, random_state=0)
    clf.fit(X, y, groups=groups)
    # Range agreement on the complete topology: up and down the aggregation
    # tree (5 edges), every message the (min, max) of 2 features (4 float64).
    # (Two features: no feature vote, q = ceil(sqrt(2)) = 2 would keep both.)
    range_bytes = 2 * (K - 1) * (16 + 2 * n_features * 8)
    # A Frank-Wolfe message: 4 bits of index (10 stumps + intercept) and one
    # float64 signed step, to each of the 2 ring neighbours.
    message = 16 + 8 + (index_bits(11) + 7) // 8
    assert message == 16 + fw_message_bytes(11)
    # The masses (every c_k = m_k / max m): each subtree's masses up the same
    # tree (node j's over its depth_j edges: heap depths 0,1,1,2,2,2), the
    # (max, mean) back down (skfed._node_mass; rogue34).
    mass_bytes = (K - 1) * (16 + 16 + 2 * 8) + 8 * (0 + 1 + 1 + 2 + 2 + 2)
    assert clf.n_bytes_sent_ == range_bytes + mass_bytes + T * 2 * message
    assert clf.n_messages_ == 4 * (K - 1) + 2 * T
    assert len(clf.bytes_per_round_) == clf.n_iter_ == T == len(clf.objective_curve_)
    assert clf.bytes_per_round_[0] == range_bytes + mass_bytes + 2 * message
    np.testing.assert_array_equal(clf.bytes_per_round_[1:], 2 * message)
    # On a ring topology the extremes are flooded on change (NumPy reference).
    on_ring = DecentralizedBoostingClassifier(10, graph=ring, max_iter=T, random_state=0,
                                              network=SimulatedNetwork(topology="ring"))
    on_ring.fit(X, y, groups=groups)
    lo = np.array([X[groups == k].min(axis=0) for k in range(K)])
    hi = np.array([X[groups == k].max(axis=0) for k in range(K)])
    _, _, n_flood = _flood_reference(lo, hi, ring > 0)
    # (on the ring the mass tree is breadth-first from node 0: depths 0,1,2,3,2,1)
    ring_mass = (K - 1) * (16 + 16 + 2 * 8) + 8 * (0 + 1 + 2 + 3 + 2 + 1)
    assert on_ring.n_bytes_sent_ == n_flood * (16 + 32) + ring_mass + T * 2 * message
    np.testing.assert_allclose(on_ring.coef_, clf.coef_)


def _flood_reference(lo, hi, A):
    """Min/max flooding on change, one message per (sender, neighbour) per round."""
    K = len(lo)
    lo, hi = lo.copy(), hi.copy()
    senders, n_messages = list(range(K)), 0
    while senders:
        new_lo, new_hi = lo.copy(), hi.copy()
        for k in senders:
            for l in np.flatnonzero(A[k]):
                n_messages += 1
                new_lo[l] = np.minimum(new_lo[l], lo[k])
                new_hi[l] = np.maximum(new_hi[l], hi[k])
        senders = [k for k in range(K) if (new_lo[k] < lo[k]).any() or (new_hi[k] > hi[k]).any()]
        lo, hi = new_lo, new_hi
        if A.sum() == K * (K - 1):
            break  # complete topology: every node heard every other node
    return lo, hi, n_messages


@pytest.mark.parametrize("topology", [None, "ring", "star", "k_regular"])
def test_feature_range_is_the_global_range(topology):
    # Extremes sit on different nodes (one far from node 0 on a 30-node ring,
    # diameter 15), and a zero-weight sample holding the largest value of
    # feature 0 must not count.
    K, m = 30, 4
    rng = np.random.RandomState(0)
    X = rng.normal(size=(K * m, 3))
    groups = np.repeat(np.arange(K), m)
    y = (X[:, 0] > 0).astype(int)
    X[groups == 15, 1] += 9.0
    X[groups == 7, 2] -= 9.0
    sw = np.ones(K * m)
    X[5, 0] = 50.0
    sw[5] = 0.0
    keep = sw > 0
    network = SimulatedNetwork(topology=topology)
    clf = DecentralizedBoostingClassifier(
        12, graph=np.zeros((K, K)), mu=0.0, max_iter=1, network=network, random_state=0,
        feature_selection=None, join_neighbours="graph",  # (no gate: the flood's bytes alone)
    ).fit(X, y, groups=groups, sample_weight=sw)
    np.testing.assert_array_equal(clf.feature_range_[0], X[keep].min(axis=0))
    np.testing.assert_array_equal(clf.feature_range_[1], X[keep].max(axis=0))
    assert clf.feature_range_[1, 0] < 50.0
    # Message count and bytes of the flood against the NumPy reference; on
    # the complete topology, once up and once down a spanning tree.
    lo = np.array([X[(groups == k) & keep].min(axis=0) for k in range(K)])
    hi = np.array([X[(groups == k) & keep].max(axis=0) for k in range(K)])
    if topology is None:
        n_messages = 2 * (K - 1)
    else:
        adjacency = network.start(K, random_state=0).adjacency.toarray() > 0
        ref_lo, ref_hi, n_messages = _flood_reference(lo, hi, adjacency)
        np.testing.assert_array_equal(ref_lo[0], clf.feature_range_[0])
    # ... plus the masses' exchange (skfed._node_mass): up a spanning tree of
    # the topology (the heap, or breadth-first from node 0), node j's mass
    # over its depth_j edges (rogue34), the (max, mean) down.
    if topology is None:
        depth = np.floor(np.log2(np.arange(K) + 1))
    else:
        from scipy.sparse.csgraph import breadth_first_order

        order, pred = breadth_first_order(sparse.csr_matrix(adjacency), 0, directed=False)
        depth = np.zeros(K)
        for k in order[1:]:
            depth[k] = depth[pred[k]] + 1
    mass_bytes = (K - 1) * (16 + 16 + 2 * 8) + 8 * int(depth.sum())
    assert clf.n_messages_ == n_messages + 2 * (K - 1)
    assert clf.n_bytes_sent_ == n_messages * (16 + 3 * 2 * 8) + mass_bytes
    features, thresholds = make_stumps(X[keep].min(axis=0), X[keep].max(axis=0), 12)
    np.testing.assert_allclose(clf.stump_thresholds_, thresholds)


def test_communication_budget_stops_the_fit():
    X, y, groups = _clusters(2, K=6)
    full = DecentralizedBoostingClassifier(10, mu=1.0, max_iter=600, random_state=0)
    full.fit(X, y, groups=groups)
    budget = full.n_bytes_sent_ // 2
    cut = DecentralizedBoostingClassifier(10, mu=1.0, max_iter=600, random_state=0,
                                          communication_budget=budget)
    cut.fit(X, y, groups=groups)
    assert cut.n_iter_ < 600
    assert budget <= cut.n_bytes_sent_ <= budget + 20_000
    assert cut.bytes_per_round_.sum() == cut.n_bytes_sent_
    assert len(cut.objective_curve_) == cut.n_iter_


# ------------------------------------------------------------- single node
def test_one_node_is_classical_frank_wolfe_boosting():
    X, y, _ = _clusters(3, K=1, m=60)
    with pytest.warns(SingleNodeWarning):
        clf = DecentralizedBoostingClassifier(8, beta=3.0, max_iter=50).fit(X, y)
    features, thresholds = make_stumps(X.min(axis=0), X.max(axis=0), 8)
    np.testing.assert_array_equal(clf.stump_features_, features)
    np.testing.assert_allclose(clf.stump_thresholds_, thresholds)
    A = np.column_stack([stump_predictions(X, features, thresholds), np.ones(60)])
    A *= np.where(y == 1, 1.0, -1.0)[:, None]
    a = np.zeros(9)
    for t in range(50):
        grad = -A.T @ softmax(-A @ a)
        j = _vertex(grad)
        s = np.zeros(9)
        s[j] = -3.0 * np.sign(grad[j])
        a += 2.0 / (t + 2.0) * (s - a)
    np.testing.assert_allclose(clf.coef_[0], a[:8], rtol=1e-10, atol=1e-12)
    assert clf.intercept_[0] == pytest.approx(a[8], abs=1e-12)
    assert clf.n_bytes_sent_ == 0


# -------------------------------------------------------------- the paper
def test_moons_oracle_and_learned_graphs_beat_local_and_global():
    X, Xt, y, yt, g, gt, oracle, clusters = make_rotated_moons(
        30, cluster_sizes=[10, 20], n_samples_range=(3, 14), n_features=4, padding_std=0.0,
        random_state=0,
    )
    common = dict(n_estimators=40, beta=10.0, random_state=0)
    K = 30
    local = DecentralizedBoostingClassifier(mu=0.0, graph=np.zeros((K, K)), max_iter=300 * K,
                                            **common).fit(X, y, groups=g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleNodeWarning)
        glob = DecentralizedBoostingClassifier(max_iter=3000, **common).fit(X, y)
    orc = DecentralizedBoostingClassifier(mu=10.0, graph=oracle, max_iter=300 * K, **common)
    orc.fit(X, y, groups=g)
    # The learned graph with the estimator's defaults (beta, mu, graph
    # learner); before the defaults of issue 18 this row used beta=10, mu=1.
    learned = DecentralizedBoostingClassifier(40, random_state=0).fit(X, y, groups=g)
    acc = {
        "local": local.score(Xt, yt, groups=gt),
        "global": glob.score(Xt, yt),
        "oracle": orc.score(Xt, yt, groups=gt),
        "learned": learned.score(Xt, yt, groups=gt),
    }
    assert acc["oracle"] > max(acc["local"], acc["global"]) + 0.05
    assert acc["learned"] > max(acc["local"], acc["global"])
    W = learned.collaboration_graph_.toarray()
    same = clusters[:, None] == clusters[None, :]
    # 93 % with the defaults on this random-layout instance (75 % with the
    # former max_neighbors=10; the former 90 % was measured with the stumps
    # over node 0's range only, issue 18).
    assert W[same].sum() > 0.85 * W.sum()
    assert learned.collaboration_graph_.nnz < (oracle > 0).sum()


def test_max_neighbors_bounds_the_relearned_graph_and_keeps_the_objective_exact():
    X, Xt, y, yt, g, gt, oracle, clusters = make_rotated_moons(
        30, cluster_sizes=[10, 20], n_samples_range=(3, 14), n_features=4, padding_std=0.0,
        random_state=1,
    )
    # The cap's own effect: without the sparsify-to-connected post-processing
    # and without peer scores, on the boosting models (with scores, or with
    # the kernel graph models, the uncapped graph already keeps all its
    # weight inside the clusters here).
    kw = dict(n_estimators=40, beta=10.0, mu=3.0, lambda_graph=1.0, max_iter=300 * 30,
              graph_update_every=100, sparsify_graph=None, peer_scoring=False,
              random_state=0, graph_signal="boosting")
    free = DecentralizedBoostingClassifier(max_neighbors=None, **kw).fit(X, y, groups=g)
    capped = DecentralizedBoostingClassifier(max_neighbors=4, **kw).fit(X, y, groups=g)
    W = capped.collaboration_graph_.toarray()
    assert np.all((W > 0).sum(axis=1) <= 4)
    np.testing.assert_allclose(W, W.T)
    same = clusters[:, None] == clusters[None, :]
    inside = W[same].sum() / W.sum()
    free_W = free.collaboration_graph_.toarray()
    assert inside > free_W[same].sum() / free_W.sum()
    assert inside > 0.8
    # Dropped edges change eq. 1 by exactly their linear part: the running
    # objective still equals the one recomputed from scratch.
    assert capped.objective_curve_[-1] == pytest.approx(capped.objective_, rel=1e-8)
    # With stumps over the global range (the range fix) the uncapped graph
    # scores 82.7 % here and the capped one 80.5 %: the cap buys cluster
    # recovery and bounded degrees, not accuracy, on this instance.
    assert capped.score(Xt, yt, groups=gt) >= free.score(Xt, yt, groups=gt) - 0.03


@pytest.mark.parametrize("layout, seed, min_inside, init_per_node", [
    # Pinned at the former graph_init_iter=50 * n_nodes (its measured numbers
    # below), and at the defaults (graph_init_iter=10 * n_nodes: paper seed 0
    # 99.15 % accuracy, 100 % inside, 182 non-zeros; random seed 0 75.05 %,
    # 99.5 %, 162; on random seed 1 it puts 84.9 % inside, 80.03 % accuracy).
    ("paper", 0, 0.95, 50), ("random", 1, 0.85, 50),
    ("paper", 0, 0.95, None), ("random", 0, 0.85, None),
])
def test_defaults_beat_local_and_global_boosting_on_moons(layout, seed, min_inside,
                                                          init_per_node):
    """With no tuning at all, learned-graph Dada beats every Local / Global
    boosting baseline: scikit-learn's AdaBoost of stumps pooled and per node,
    and l1-boosting pooled and per node (the same solver without a graph)."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    from skfed.baselines import LocalEstimator

    X, Xt, y, yt, g, gt, oracle, clusters = make_rotated_moons(
        40, cluster_sizes=[10, 30], n_samples_range=(3, 14), n_features=6, padding_std=0.0,
        layout=layout, random_state=seed,
    )
    K = 40
    stumps = DecisionTreeClassifier(max_depth=1)
    baselines = {
        "global AdaBoost": AdaBoostClassifier(stumps, n_estimators=50, random_state=0)
        .fit(X, y).score(Xt, yt),
        "local AdaBoost": LocalEstimator(AdaBoostClassifier(stumps, n_estimators=50,
                                                            random_state=0))
        .fit(X, y, groups=g).score(Xt, yt, groups=gt),
        "local l1-boosting": DecentralizedBoostingClassifier(
            60, mu=0.0, graph=np.zeros((K, K)), random_state=0)
        .fit(X, y, groups=g).score(Xt, yt, groups=gt),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleNodeWarning)
        baselines["global l1-boosting"] = DecentralizedBoostingClassifier(
            60, max_iter=10 * K, random_state=0).fit(X, y).score(Xt, yt)
    init = None if init_per_node is None else init_per_node * K
    dada = DecentralizedBoostingClassifier(60, graph_init_iter=init, random_state=0)
    dada.fit(X, y, groups=g)
    accuracy = dada.score(Xt, yt, groups=gt)
    assert accuracy > max(baselines.values()), (accuracy, baselines)
    W = dada.collaboration_graph_.toarray()
    same = clusters[:, None] == clusters[None, :]
    inside = W[same].sum() / W.sum()
    # Paper layout: 100 % of the weight inside the clusters (random: 87 %;
    # 94 % and 84 % without peer scoring, 72 % on the random layout with the
    # former max_neighbors=10), 184 / 164 non-zeros against 960 for the
    # oracle graph.
    assert inside > min_inside
    assert dada.collaboration_graph_.nnz < (oracle > 0).sum()


def test_peer_scoring_recovers_the_clusters_better_and_counts_its_messages():
    """Scores of the peers' models on a node's own data: more of the learned
    weight inside the true clusters, and every score message counted."""
    from skfed.boosting import _BoostingState
    from skfed.graph import _GraphRunner
    from skfed.network import payload_bytes

    X, Xt, y, yt, g, gt, oracle, clusters = make_rotated_moons(
        40, cluster_sizes=[10, 30], n_samples_range=(3, 14), n_features=6, padding_std=0.0,
        layout="paper", random_state=0,
    )
    same = clusters[:, None] == clusters[None, :]
    inside = {}
    for scoring in (False, True):
        # The scores of the boosting models (graph_signal="kernel" puts all
        # the weight inside with or without them here).
        fit = DecentralizedBoostingClassifier(60, peer_scoring=scoring, random_state=0,
                                              graph_signal="boosting")
        fit.fit(X, y, groups=g)
        W = fit.collaboration_graph_.toarray()
        inside[scoring] = W[same].sum() / W.sum()
        log = fit.communication_
        assert log.total_bytes == fit.n_bytes_sent_
    # Measured: 1.0 with the scores, 0.941 without.
    assert inside[True] > inside[False] + 0.03, inside
    # The refresh before a re-learning: one float64 from every node to each of
    # its graph neighbours, counted per pair.
    K = 5
    W = np.zeros((K, K))
    W[0, 1] = W[1, 0] = 0.5
    W[2, 4] = W[4, 2] = 1.0
    W[1, 4] = W[4, 1] = 0.25
    sim = SimulatedNetwork().start(K, server=False, random_state=0)
    runner = _GraphRunner(sim, mu=1.0, mu_graph=1.0, lambda_graph=1.0, delta=1e-3, kappa=2,
                          clock=np.ones(1, np.uint32), node_state=np.ones(K, np.uint32), W=W)
    state = _BoostingState(np.ones((K, 2)), np.ones((1, K)), np.ones(K), np.arange(K + 1),
                           np.ones(K), 1.0, 1.0, np.float64, np.zeros(K, np.uint8), 0)
    spent = state.score_exchange(runner, sim.counter)
    header = sim.counter.header_bytes
    assert spent == 6 * (payload_bytes(n_float64=1) + header)
    pairs = sim.counter.snapshot()["pair_bytes"]
    assert pairs.sum() == spent
    sent = sim.counter.snapshot()
    only_one = _BoostingState.score_exchange(state, runner, sim.counter, nodes=[4])
    assert only_one == spent  # the bytes of all nodes' messages
    assert sim.counter.snapshot()["pair_bytes"].sum() - sent["pair_bytes"].sum() == 2 * (
        payload_bytes(n_float64=1) + header)


# ------------------------------------------------------------------ graphs
def test_fixed_graph_inputs_agree_and_bad_graphs_raise():
    nx = pytest.importorskip("networkx")
    X, y, groups = _clusters(4, K=5)
    labels = np.array(["n0", "n1", "n2", "n3", "n4"])[groups]
    W = _ring(5) * np.array([1, 2, 3, 4, 5])[:, None]
    W = (W + W.T) / 2
    kw = dict(n_estimators=6, max_iter=200, random_state=0)
    dense = DecentralizedBoostingClassifier(graph=W, **kw).fit(X, y, groups=labels)
    sp = DecentralizedBoostingClassifier(graph=sparse.csr_matrix(W), **kw).fit(X, y, groups=labels)
    G = nx.Graph()
    G.add_nodes_from(["n3", "n0", "n4", "n2", "n1"])
    for i in range(5):
        for j in range(i + 1, 5):
            if W[i, j]:
                G.add_edge(f"n{i}", f"n{j}", weight=W[i, j])
    net = DecentralizedBoostingClassifier(graph=G, **kw).fit(X, y, groups=labels)
    for other in (sp, net):
        np.testing.assert_array_equal(other.coef_, dense.coef_)
        np.testing.assert_allclose(other.collaboration_graph_.toarray(), W)
    with pytest.raises(ValueError, match="graph has shape"):
        DecentralizedBoostingClassifier(graph=np.ones((4, 4)), **kw).fit(X, y, groups=labels)
    asym = W.copy()
    asym[0, 1] += 1
    with pytest.raises(ValueError, match="graph must be symmetric"):
        DecentralizedBoostingClassifier(graph=asym, **kw).fit(X, y, groups=labels)
    with pytest.raises(ValueError, match="network.topology"):
        DecentralizedBoostingClassifier(
            graph=np.ones((5, 5)) - np.eye(5), network=SimulatedNetwork(topology="ring"), **kw
        ).fit(X, y, groups=labels)


def test_learned_graph_attributes():
    X, y, groups = _clusters(5, K=8, m=20)
    clf = DecentralizedBoostingClassifier(10, beta=5.0, mu=1.0, random_state=0)
    clf.fit(X, y, groups=groups)
    W = clf.collaboration_graph_
    assert isinstance(W, sparse.csr_matrix) and W.shape == (8, 8)
    dense = W.toarray()
    np.testing.assert_allclose(dense, dense.T)
    assert np.all(dense >= 0) and np.all(np.diag(dense) == 0) and np.all(W.data > 0)
    np.testing.assert_allclose(clf.confidence_, np.ones(8))
    # graph_update_every="n_nodes": one update every 8 iterations.
    assert clf.graph_update_every == "n_nodes"
    assert clf.n_graph_updates_ == clf.n_iter_ // 8 - (clf.n_iter_ % 8 == 0)
    every = DecentralizedBoostingClassifier(10, beta=5.0, mu=1.0, graph_update_every=30,
                                            random_state=0).fit(X, y, groups=groups)
    assert every.n_graph_updates_ == every.n_iter_ // 30 - (every.n_iter_ % 30 == 0)
    # graph_update_every=None: the graph learned from the local models is kept.
    once = DecentralizedBoostingClassifier(10, beta=5.0, mu=1.0, graph_update_every=None,
                                           random_state=0).fit(X, y, groups=groups)
    assert once.n_graph_updates_ == 0
    fewer = once.n_bytes_sent_ < clf.n_bytes_sent_
    assert fewer


# ----------------------------------------------------------- the contract
def test_multiclass_one_vs_rest_and_single_class_nodes():
    rng = np.random.RandomState(6)
    X = rng.uniform(-1, 1, size=(120, 2))
    groups = np.repeat([0, 1, 2, 3], 30)
    y = np.digitize(X[:, 0], [-0.33, 0.33])
    y[groups == 3] = 2  # node 3 only ever saw class 2
    labels = np.array(["a", "b", "c"])[y]
    clf = DecentralizedBoostingClassifier(12, beta=5.0, mu=0.5, max_iter=800, random_state=0)
    clf.fit(X, labels, groups=groups)
    assert clf.coef_.shape == (4, 3, 12) and clf.intercept_.shape == (4, 3)
    np.testing.assert_array_equal(clf.classes_, ["a", "b", "c"])
    scores = clf.decision_function(X, groups=groups)
    assert scores.shape == (120, 3)
    assert clf.score(X[groups < 3], labels[groups < 3], groups=groups[groups < 3]) > 0.8
    assert set(clf.predict(X, groups=groups)) <= {"a", "b", "c"}
    lin = PersonalizedLinearClassifier(mu=0.5, max_iter=800, random_state=0)
    lin.fit(X, labels, groups=groups)
    assert lin.coef_.shape == (4, 3, 2)
    assert lin.decision_function(X, groups=groups).shape == (120, 3)


@pytest.mark.parametrize("Estimator", [DecentralizedBoostingClassifier,
                                       PersonalizedLinearClassifier])
def test_dtype_seed_pickle_jobs_and_permutations(Estimator):
    X, y, groups = _clusters(7, K=6, m=20)
    kw = dict(mu=1.0, max_iter=600, random_state=3)
    a = Estimator(**kw).fit(X, y, groups=groups)
    b = Estimator(**kw, n_jobs=2).fit(X, y, groups=groups)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.collaboration_graph_.toarray(),
                                  b.collaboration_graph_.toarray())
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.decision_function(X, groups=groups),
                                  a.decision_function(X, groups=groups))
    perm = np.random.RandomState(0).permutation(len(y))
    d = Estimator(**kw).fit(X[perm], y[perm], groups=groups[perm])
    np.testing.assert_allclose(d.coef_, a.coef_, rtol=1e-10, atol=1e-12)
    # An order-preserving relabelling of the nodes changes nothing.
    e = Estimator(**kw).fit(X, y, groups=groups * 10 + 7)
    np.testing.assert_allclose(e.coef_, a.coef_, rtol=1e-10, atol=1e-12)
    f32 = Estimator(**kw).fit(X.astype(np.float32), y, groups=groups)
    assert f32.coef_.dtype == np.float32
    agree = np.mean(f32.predict(X, groups=groups) == a.predict(X, groups=groups))
    assert agree > 0.95


@pytest.mark.parametrize("Estimator", [DecentralizedBoostingClassifier,
                                       PersonalizedLinearClassifier])
def test_unseen_nodes_and_integer_weights(Estimator):
    X, y, groups = _clusters(8, K=4, m=20)
    W = _ring(4)
    clf = Estimator(graph=W, max_iter=400, random_state=0).fit(X, y, groups=groups)
    mean_model = clf.coef_.mean(axis=0), clf.intercept_.mean(axis=0)
    scores = clf.decision_function(X[:5], groups=np.full(5, 99))
    Z = X[:5] if Estimator is PersonalizedLinearClassifier else stump_predictions(
        X[:5], clf.stump_features_, clf.stump_thresholds_, np.float64)
    np.testing.assert_allclose(scores, Z @ mean_model[0] + mean_model[1], rtol=1e-10)
    strict = Estimator(graph=W, max_iter=50, handle_unknown="error").fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="not seen in fit"):
        strict.predict(X[:2], groups=[99, 99])
    weights = np.random.RandomState(0).randint(1, 4, size=len(y))
    weighted = Estimator(graph=W, max_iter=400, random_state=0)
    weighted.fit(X, y, groups=groups, sample_weight=weights)
    rep = np.repeat(np.arange(len(y)), weights)
    repeated = Estimator(graph=W, max_iter=400, random_state=0)
    repeated.fit(X[rep], y[rep], groups=groups[rep])
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-8, atol=1e-10)


def test_bad_inputs_raise_clear_errors():
    X, y, groups = _clusters(9, K=3)
    with pytest.raises(ValueError, match="at least 2 classes"):
        DecentralizedBoostingClassifier().fit(X, np.zeros(len(y)), groups=groups)
    w = np.ones(len(y))
    w[groups == 1] = 0
    with pytest.raises(ValueError, match="Node 1 has no sample with positive weight"):
        PersonalizedLinearClassifier().fit(X, y, groups=groups, sample_weight=w)
    with pytest.raises(ValueError, match=r"base_predictors\[0\]"):
        DecentralizedBoostingClassifier(base_predictors=[lambda Z: 3 * Z[:, 0]]).fit(
            X, y, groups=groups)
    with pytest.raises(ValueError, match="mu_graph > 0"):
        DecentralizedBoostingClassifier(mu=0.0).fit(X, y, groups=groups)
    fitted = DecentralizedBoostingClassifier(max_iter=30).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="needs the node id"):
        fitted.predict(X)


def test_user_supplied_base_predictors():
    X, y, groups = _clusters(10, K=4)
    base = [lambda Z: np.sign(Z[:, 0]), lambda Z: np.tanh(Z[:, 1]),
            lambda Z: np.clip(Z[:, 0] - Z[:, 1], -1, 1)]
    clf = DecentralizedBoostingClassifier(base_predictors=base, beta=4.0, mu=0.5,
                                          max_iter=400, random_state=0)
    clf.fit(X, y, groups=groups)
    assert clf.coef_.shape == (4, 3) and clf.stump_features_ is None
    assert clf.score(X, y, groups=groups) > 0.8


# --------------------------------------------------------------- Perso-lin
def test_perso_lin_on_one_node_is_logistic_regression():
    rng = np.random.RandomState(11)
    X = rng.normal(size=(80, 3))
    y = (X @ [1.0, -2.0, 0.5] + 0.5 * rng.normal(size=80) > 0).astype(int)
    alpha = 0.05
    with pytest.warns(SingleNodeWarning):
        clf = PersonalizedLinearClassifier(alpha=alpha, max_iter=20000).fit(X, y)
    ref = LogisticRegression(C=1.0 / (alpha * 80), tol=1e-12, max_iter=10000).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], ref.coef_[0], rtol=1e-5, atol=1e-6)
    assert clf.intercept_[0] == pytest.approx(ref.intercept_[0], abs=1e-6)


def test_perso_lin_learns_the_groups_and_smooths_over_them():
    X, y, groups = _clusters(12, K=8, m=8)
    X_test, y_test, g_test = _clusters(13, K=8, m=200)
    local = PersonalizedLinearClassifier(mu=0.0, graph=np.zeros((8, 8)), max_iter=2000,
                                         random_state=0).fit(X, y, groups=groups)
    learned = PersonalizedLinearClassifier(mu=1.0, max_iter=2000, random_state=0)
    learned.fit(X, y, groups=groups)
    W = learned.collaboration_graph_.toarray()
    same = (np.arange(8) < 4)[:, None] == (np.arange(8) < 4)[None, :]
    assert W[same].sum() > 0.9 * W.sum()
    assert learned.score(X_test, y_test, groups=g_test) > local.score(X_test, y_test,
                                                                       groups=g_test)
    # A stronger pull along the graph brings connected models together.
    def spread(mu):
        clf = PersonalizedLinearClassifier(mu=mu, graph=_ring(8), max_iter=4000,
                                           random_state=0).fit(X, y, groups=groups)
        return np.ptp(clf.coef_, axis=0).max() / np.abs(clf.coef_).mean()

    assert spread(10.0) < 0.3 * spread(0.01)


@pytest.mark.parametrize("Estimator", [DecentralizedBoostingClassifier,
                                       PersonalizedLinearClassifier])
def test_learned_graph_is_sparsified_to_connected(Estimator):
    from skfed.graph import sparsify_to_connected

    X, X_test, y, y_test, g, g_test, oracle, clusters = make_rotated_moons(
        30, cluster_sizes=[10, 20], n_samples_range=(3, 14), n_features=4, padding_std=0.0,
        random_state=0,
    )
    # lambda_graph=10: a denser learned graph, so the threshold has edges to drop;
    # graph_init_iter pinned at 50 * n_nodes (Dada's default before; with 10 *
    # n_nodes the initial graph of this instance has no edge below the threshold).
    kw = dict(graph_update_every=None, max_iter=600, lambda_graph=10.0, random_state=0,
              graph_init_iter=50 * 30)
    full = Estimator(sparsify_graph=None, **kw).fit(X, y, groups=g)
    kept = Estimator(**kw).fit(X, y, groups=g)
    expected = sparsify_to_connected(full.collaboration_graph_)
    np.testing.assert_array_equal(kept.collaboration_graph_.toarray(), expected.toarray())
    assert kept.collaboration_graph_.nnz < full.collaboration_graph_.nnz
    # The models were learned on the sparsified graph: fewer model messages.
    assert kept.n_bytes_sent_ < full.n_bytes_sent_


@pytest.mark.parametrize("Estimator", [DecentralizedBoostingClassifier,
                                       PersonalizedLinearClassifier])
def test_learned_graph_leaves_no_node_alone(Estimator):
    """The documented effect of the log barrier and of the sparsification: at
    the defaults every node of the learned graph keeps a neighbour, with or
    without the cut, and the cut keeps the learned graph's components."""
    from scipy.sparse.csgraph import connected_components

    from skfed.graph import sparsify_to_connected

    X, X_test, y, y_test, g, g_test, oracle, clusters = make_rotated_moons(
        40, cluster_sizes=[10, 30], n_samples_range=(3, 14), n_features=4, padding_std=0.0,
        random_state=3,
    )
    kw = dict(max_iter=40 * 20, random_state=0)
    kept = Estimator(**kw).fit(X, y, groups=g).collaboration_graph_
    assert np.asarray(kept.sum(axis=1)).ravel().min() > 0
    full = Estimator(sparsify_graph=None, **kw).fit(X, y, groups=g).collaboration_graph_
    assert np.asarray(full.sum(axis=1)).ravel().min() > 0
    # Cutting keeps the components (so no node loses its last neighbour);
    # the learned graph need not be connected.
    n_full = connected_components(full, directed=False)[0]
    assert connected_components(sparsify_to_connected(full), directed=False)[0] == n_full


@pytest.mark.parametrize("placement", ["range", "global_range", "quantile"])
def test_stump_placement_against_numpy(placement):
    K, m = 8, 25
    rng = np.random.RandomState(1)
    # Features on different scales, one heavy-tailed.
    X = np.column_stack([rng.normal(size=K * m), 5 * rng.uniform(size=K * m),
                         rng.exponential(size=K * m) ** 2])
    groups = np.repeat(np.arange(K), m)
    y = (X[:, 0] + X[:, 1] > 2.5).astype(int)
    n_est = 11  # 4, 4, 3 stumps
    clf = DecentralizedBoostingClassifier(
        n_est, stump_placement=placement, graph=np.zeros((K, K)), mu=0.0, max_iter=1,
        network=SimulatedNetwork(topology="ring"), random_state=0, feature_selection=None,
    ).fit(X, y, groups=groups)
    lo, hi = X.min(axis=0), X.max(axis=0)
    counts = [4, 4, 3]
    np.testing.assert_array_equal(clf.stump_features_, np.repeat([0, 1, 2], counts))
    expected = []
    for f, q in enumerate(counts):
        levels = np.arange(1, q + 1) / (q + 1)
        if placement == "range":
            expected.append(lo[f] + levels * (hi[f] - lo[f]))
        elif placement == "global_range":
            expected.append(lo.min() + levels * (hi.max() - lo.min()))
        else:
            hist, edges = np.histogram(X[:, f], bins=256, range=(lo[f], hi[f]))
            cdf = np.concatenate([[0], np.cumsum(hist)]) / len(X)
            expected.append([edges[np.searchsorted(cdf, v) - 1]
                             + (v - cdf[np.searchsorted(cdf, v) - 1])
                             / (cdf[np.searchsorted(cdf, v)] - cdf[np.searchsorted(cdf, v) - 1])
                             * (edges[1] - edges[0]) for v in levels])
            # Within two bins of the exact pooled quantile.
            np.testing.assert_allclose(expected[-1], np.quantile(X[:, f], levels),
                                       atol=2 * (hi[f] - lo[f]) / 256)
    np.testing.assert_allclose(clf.stump_thresholds_, np.concatenate(expected), rtol=1e-10)
    if placement == "quantile":
        # Spanning tree of the ring: 7 edges, counts up (3 x 256 int32),
        # 11 float64 thresholds down, one header each way.
        _, _, n_flood = _flood_reference(
            np.array([X[groups == k].min(axis=0) for k in range(K)]),
            np.array([X[groups == k].max(axis=0) for k in range(K)]), _ring(K) > 0)
        # (and the masses up the same tree, node j's over its depth_j edges
        # (ring depths 0,1,2,3,4,3,2,1; rogue34), 2 float64 down: skfed._node_mass)
        assert clf.n_bytes_sent_ == (n_flood * (16 + 48) + 7 * (16 + 3 * 256 * 4 + 16 + 88)
                                     + 7 * (16 + 16 + 16) + 8 * 16)
    if placement == "global_range":
        assert np.all(clf.stump_thresholds_ > lo.min()) and np.all(clf.stump_thresholds_ < hi.max())


def test_perso_lin_peer_scores_are_its_mean_loss_differences(monkeypatch):
    """Perso-lin's peer scores, as its graph steps compute them, against NumPy:
    ``e_kl = (c_k / m_k) sum_i s_i (log(1 + e^(-y_i theta_l.x_i)) - log(1 + e^(-y_i theta_k.x_i)))``."""
    from skfed._core._boosting_fast import Logistic
    from skfed.graph import _GraphRunner
    from skfed.privacy import DifferentialPrivacy

    X, y, groups = _clusters(3, K=8, m=10)
    calls = []
    original = _GraphRunner.run

    def spy(self, models, losses, n_steps, **kw):
        out = original(self, models, losses, n_steps, **kw)
        # The scores kept with the stored links after the phase.
        calls.append((self.links(), None if self.slot_cost is None else self.slot_cost.copy(),
                      np.array(models), kw))
        return out

    monkeypatch.setattr(_GraphRunner, "run", spy)
    kw = dict(max_iter=400, random_state=0)
    scored = PersonalizedLinearClassifier(peer_scoring=True, **kw).fit(X, y, groups=groups)
    (link_rows, link_cols, _, slots), cost, models, call = calls[0]
    Z, Y, sw, offsets, factor, loss = call["score_data"]
    assert isinstance(loss, Logistic)
    np.testing.assert_allclose(factor, np.full(8, 1 / 10))  # c_k / m_k, equal nodes
    K, n = 8, Z.shape[1]
    L = np.zeros((K, K))
    for k in range(K):
        rows = slice(offsets[k], offsets[k + 1])
        for m in range(K):
            L[k, m] = np.sum(sw[rows] * np.logaddexp(0, -Y[0, rows] * (Z[rows] @ models[m, :n])))
    E = factor[:, None] * (L - np.diag(L)[:, None])
    cost = cost[slots]
    assert link_rows.size > 0 and not np.isnan(cost).any()
    np.testing.assert_allclose(cost, E[link_rows, link_cols], rtol=1e-10, atol=1e-12)
    # The scores change the learned graph; the log counts every byte.
    plain = PersonalizedLinearClassifier(**kw).fit(X, y, groups=groups)
    assert np.abs((scored.collaboration_graph_ - plain.collaboration_graph_).toarray()).max() > 0
    assert scored.communication_.total_bytes == scored.n_bytes_sent_
    # Under a finite privacy budget the scores cannot be used: an explicit
    # peer_scoring=True is refused by name (82feb65; it was silently unused).
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    spec = DifferentialPrivacy(5.0, delta=1e-5, insecure_noise_seed=0)
    a = PersonalizedLinearClassifier(peer_scoring=True, privacy=spec, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="peer_scoring=True cannot be used"):
            a.fit(Xs, y, groups=groups)


# ------------------------------------------------------ bad input (issue 31)
@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_negative_sample_weight_is_refused_by_name(cls):
    # Dada accepted negative weights silently; Perso-lin's SVD did not converge.
    X, y, groups = _clusters(9, K=3)
    w = np.ones(len(y))
    w[[4, 20]] = [-1.0, -0.5]
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative; 2 of its 45 "
                                         r"values are negative \(the first, at index 4, is -1.0\)"):
        cls(max_iter=20).fit(X, y, groups=groups, sample_weight=w)


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_n_jobs_zero_is_refused_by_name(cls):
    X, y, groups = _clusters(9, K=3)
    with pytest.raises(ValueError, match=rf"The 'n_jobs' parameter of {cls.__name__} must be "
                                         r"None, an int in the range \(-inf, -1\]"):
        cls(n_jobs=0, max_iter=20).fit(X, y, groups=groups)


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_kappa_above_the_other_nodes_warns_allocates_by_the_cap_and_changes_nothing(cls):
    # kappa=10**9 on 6 nodes allocated O(kappa) scratch (7.45 GiB on 8 nodes)
    # before it was capped at n_nodes - 1, and kappa=20 was capped silently.
    import tracemalloc

    X, y, groups = _clusters(3, K=6, m=10)
    params = dict(max_iter=60, graph_iter=200, random_state=0)
    capped = cls(kappa=5, **params).fit(X, y, groups=groups)
    for kappa in (20, 10**9):
        tracemalloc.start()
        try:
            with pytest.warns(UserWarning, match=rf"kappa={kappa} is more than the "
                                                 r"n_nodes - 1 = 5 other nodes"):
                big = cls(kappa=kappa, **params).fit(X, y, groups=groups)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 64 * 2**20, peak
        np.testing.assert_array_equal(big.collaboration_graph_.toarray(),
                                      capped.collaboration_graph_.toarray())
        np.testing.assert_array_equal(big.decision_function(X, groups=groups),
                                      capped.decision_function(X, groups=groups))
        assert big.n_bytes_sent_ == capped.n_bytes_sent_


# ------------------------------------------------------------ feature vote
def _vote_problem(seed=0, K=40, n_noise=10):
    """Nodes of 4-12 samples whose labels follow features 0 and 1 (signs vary by node)."""
    rng = np.random.RandomState(seed)
    sizes = rng.randint(4, 13, size=K)
    groups = np.repeat(np.arange(K), sizes)
    X = rng.normal(size=(groups.size, 2 + n_noise))
    X[:, 2:] *= rng.uniform(0.1, 10.0, size=n_noise)  # scales must not matter
    flip = np.where(rng.uniform(size=K) < 0.5, 1.0, -1.0)[groups]
    y = (flip * (X[:, 0] + X[:, 1]) + 0.3 * rng.normal(size=groups.size) > 0).astype(int)
    return X, y, groups


def test_feature_vote_against_numpy():
    """The vote of feature_selection="vote", recomputed in NumPy: each node's
    correlation ratios, its q best varying features (ties by the same random
    keys), its significance ballot (F test of each correlation ratio), the
    two binomial thresholds, the selection and the bytes of the vote up and
    down the aggregation tree."""
    import math

    from scipy.special import betainc

    from skfed._base import node_seeds

    X, y, groups = _vote_problem()
    K, d = 40, X.shape[1]
    X[groups == 3, 5] = 1.5  # a feature constant at one node: no relevance there
    y[groups == np.argmax(np.bincount(groups))] = 1  # a voter with one class
    clf = DecentralizedBoostingClassifier(
        50, graph=np.zeros((K, K)), mu=0.0, max_iter=1, random_state=0,
        join_neighbours="graph").fit(X, y, groups=groups)  # (no gate: the vote's bytes alone)
    # eta2[k, j] = sum_c n_c (m_c - m)^2 / sum_i (x_i - m)^2, node by node.
    eta2 = np.zeros((K, d))
    for k in range(K):
        Xk, yk = X[groups == k], y[groups == k]
        for j in range(d):
            x = Xk[:, j]
            total = np.sum((x - x.mean()) ** 2)
            if total > 1e-12 * np.sum(x ** 2):
                eta2[k, j] = sum(np.sum(yk == c) * (x[yk == c].mean() - x.mean()) ** 2
                                 for c in np.unique(yk)) / total
    assert eta2[3, 5] == 0.0
    # The estimator's draws: the network's seed, then one seed per node (+2).
    rng = np.random.RandomState(0)
    SimulatedNetwork().start(K, random_state=rng)
    seeds = node_seeds(rng, K + 2)[:K]
    key = np.random.default_rng(seeds).random((K, d))
    q = math.ceil(math.sqrt(d))
    # Only the nodes with at least the median number of samples vote.
    sizes = np.bincount(groups, minlength=K)
    median = float(np.median(sizes))
    assert clf.vote_min_samples_ == median and (sizes < median).sum() >= 10
    ballots = np.zeros((K, d), dtype=bool)
    for k in range(K):
        if sizes[k] < median:
            continue
        order = sorted(range(d), key=lambda j: (-eta2[k, j], key[k, j]))
        for j in order[:q]:
            ballots[k, j] = eta2[k, j] > 0
    votes = ballots.sum(axis=0)
    one_class = [k for k in range(K) if len(np.unique(y[groups == k])) == 1
                 and sizes[k] >= median]
    assert one_class and not ballots[one_class].any()  # they abstain
    # Significance ballots: every node with two classes and more samples
    # than classes votes for the features whose F statistic has a p-value
    # below 0.05; P(F(1, n - 2) >= F) = I_{(n-2)/(n-2+F)}((n - 2) / 2, 1 / 2).
    tested = np.array([len(np.unique(y[groups == k])) == 2 and sizes[k] > 2
                       for k in range(K)])
    significant = np.zeros((K, d), dtype=bool)
    for k in np.flatnonzero(tested):
        m2 = sizes[k] - 2
        F = eta2[k] / np.maximum(1 - eta2[k], 1e-300) * m2
        p_value = betainc(m2 / 2, 0.5, m2 / (m2 + F))
        significant[k] = (p_value < 0.05) & (eta2[k] > 0)
    np.testing.assert_array_equal(clf.feature_votes_, [votes, significant.sum(axis=0)])

    # Thresholds: least v with P(Binomial(n, p) >= v) <= 0.05 / d, for the
    # n voters at p = q / d and the n nodes tested at p = 0.05; the latter
    # also at least 1.5 * 0.05 = 3 / 40 of the nodes tested.
    def threshold_of(n, p):
        def tail(v):
            return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(v, n + 1))
        return next(v for v in range(n + 2) if tail(v) <= 0.05 / d)

    n_tested = int(tested.sum())
    thresholds = [threshold_of(int(ballots.any(axis=1).sum()), q / d),
                  max(threshold_of(n_tested, 0.05), -(-3 * n_tested // 40))]
    np.testing.assert_array_equal(clf.vote_threshold_, thresholds)
    selected = (votes >= thresholds[0]) | (significant.sum(axis=0) >= thresholds[1])
    np.testing.assert_array_equal(clf.selected_features_, selected)
    assert selected[:2].all() and not selected[2:].any()
    assert set(clf.stump_features_.tolist()) == {0, 1}
    # Bytes: ranges and votes up and down the heap tree (parent of k: (k - 1) // 2).
    parent = (np.arange(K) - 1) // 2
    # Per node 2 d + 1 counts: ranking votes, significance votes, tested.
    subtree = np.hstack([ballots, significant, tested[:, None]])
    for k in range(K - 1, 0, -1):
        subtree[parent[k]] |= subtree[k]
    width = 2 * d + 1
    bits = index_bits(width)
    down = (min(d, int(selected.sum()) * index_bits(d)) + 7) // 8
    # Up: the subtree's voters and samples, then its non-zero counts.
    vote_bytes = sum(16 + min(4 * (2 + width), 4 * (2 + m) + (m * bits + 7) // 8) + 16 + down
                     for m in subtree[1:].sum(axis=1))
    range_bytes = 2 * (K - 1) * (16 + 2 * d * 8)
    # The median of the sizes: each subtree's distinct sizes up (two int32
    # each), the median down (one float64).
    subtree_sizes = [{int(sizes[k])} for k in range(K)]
    for k in range(K - 1, 0, -1):
        subtree_sizes[parent[k]] |= subtree_sizes[k]
    median_bytes = sum(16 + 8 * len(subtree_sizes[k]) + 16 + 8 for k in range(1, K))
    # The masses (skfed._node_mass): node j's over its depth_j heap edges up
    # (rogue34), (max, mean) down.
    mass_bytes = (K - 1) * (16 + 16 + 2 * 8) + 8 * int(np.floor(np.log2(np.arange(K) + 1)).sum())
    assert clf.n_bytes_sent_ == range_bytes + median_bytes + vote_bytes + mass_bytes
    # Without the vote: stumps on every feature, fewer bytes.
    every = DecentralizedBoostingClassifier(
        50, graph=np.zeros((K, K)), mu=0.0, max_iter=1, random_state=0,
        feature_selection=None, join_neighbours="graph").fit(X, y, groups=groups)
    assert every.selected_features_.all() and every.feature_votes_ is None
    assert len(set(every.stump_features_.tolist())) == d
    assert every.n_bytes_sent_ == range_bytes + mass_bytes


def test_n_estimators_means_the_same_with_noise_features():
    """With 200 noise features added, the vote keeps the two that carry the
    labels: the same stumps as a fit on those two alone."""
    X, y, groups = _vote_problem(1, K=60, n_noise=200)
    K = 60
    kw = dict(graph=np.zeros((K, K)), mu=0.0, max_iter=1, random_state=0)
    wide = DecentralizedBoostingClassifier(40, **kw).fit(X, y, groups=groups)
    narrow = DecentralizedBoostingClassifier(40, **kw).fit(X[:, :2], y, groups=groups)
    np.testing.assert_array_equal(np.flatnonzero(wide.selected_features_), [0, 1])
    np.testing.assert_array_equal(wide.stump_features_, narrow.stump_features_)
    np.testing.assert_array_equal(wide.stump_thresholds_, narrow.stump_thresholds_)
    # Without the vote the 40 stumps are spread over all 202 features.
    spread = DecentralizedBoostingClassifier(40, feature_selection=None, **kw).fit(
        X, y, groups=groups)
    assert np.isin(spread.stump_features_, [0, 1]).sum() <= 2


def test_vote_caps_a_features_stumps_at_the_training_samples():
    """A vote that singles out a few features of many: each takes at most as
    many stumps as there are training samples (no more distinct splits
    exist), the rest spread evenly over the other varying features."""
    X, y, groups = _vote_problem(0, K=40, n_noise=10)
    n, K = X.shape[0], 40
    n_est = 2 * n + 10 * 7 + 3  # 7 or 8 stumps on each of the 10 others
    kw = dict(graph=np.zeros((K, K)), mu=0.0, max_iter=1, random_state=0)
    clf = DecentralizedBoostingClassifier(n_est, **kw).fit(X, y, groups=groups)
    np.testing.assert_array_equal(np.flatnonzero(clf.selected_features_), [0, 1])
    counts = np.bincount(clf.stump_features_, minlength=12)
    np.testing.assert_array_equal(counts, [n, n] + [8, 8, 8] + [7] * 7)
    lo, hi = clf.feature_range_
    np.testing.assert_allclose(clf.stump_thresholds_[:n],
                               lo[0] + np.arange(1, n + 1) * (hi[0] - lo[0]) / (n + 1))
    # No cap when no feature is left out, nor without the vote.
    features, _ = make_stumps(lo, hi, n_est, features=np.ones(12, bool), max_per_feature=5)
    assert features.size == n_est and np.bincount(features).max() > 5
    every = DecentralizedBoostingClassifier(3 * n * 12, feature_selection=None, **kw).fit(
        X, y, groups=groups)
    np.testing.assert_array_equal(np.bincount(every.stump_features_), np.full(12, 3 * n))


def test_feature_vote_keeps_every_feature_when_none_stands_out():
    rng = np.random.RandomState(3)
    K = 30
    groups = np.repeat(np.arange(K), 6)
    X = rng.normal(size=(groups.size, 9))
    y = rng.randint(0, 2, size=groups.size)  # labels unrelated to every feature
    clf = DecentralizedBoostingClassifier(27, graph=np.zeros((K, K)), mu=0.0, max_iter=1,
                                          random_state=0).fit(X, y, groups=groups)
    assert np.all(clf.feature_votes_.max(axis=1) < clf.vote_threshold_)
    assert clf.selected_features_.all()
    np.testing.assert_array_equal(np.bincount(clf.stump_features_), np.full(9, 3))
    with pytest.raises(ValueError, match="feature_selection"):
        DecentralizedBoostingClassifier(feature_selection="all").fit(X, y, groups=groups)


def _vote_data(n_nodes=6, n_per=30, d=10, seed=0):
    """Related tasks on few samples that follow feature 2 alone, where the
    vote singles out one feature and its stump cap (the distinct samples)
    binds."""
    rng = np.random.RandomState(seed)
    w0 = rng.randn(d)
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.randn(n_nodes * n_per, d)
    W = (w0 + 0.3 * rng.randn(n_nodes, d)) * (np.arange(d) == 2)
    y = ((X * W[groups]).sum(axis=1) + 0.3 * rng.randn(len(groups)) > 0).astype(int)
    return X, y, groups


def _weighted_eta2(X, y, groups, sw):
    """NumPy reference of the weighted correlation ratio, node by node."""
    nodes = np.unique(groups)
    eta2 = np.zeros((len(nodes), X.shape[1]))
    for k, node in enumerate(nodes):
        at = (groups == node) & (sw > 0)
        x, c, s = X[at], y[at], sw[at]
        m = np.average(x, axis=0, weights=s)
        total = (s[:, None] * (x - m) ** 2).sum(axis=0)
        between = sum(s[c == v].sum() * (np.average(x[c == v], axis=0, weights=s[c == v]) - m) ** 2
                      for v in np.unique(c))
        eta2[k] = between / total
    return eta2


def test_feature_vote_weights_samples_like_duplicates_and_drops():
    from skfed.boosting import feature_relevance

    # (12 nodes: only those with at least the median positive-weight samples
    # vote, and the vote must single out one feature.)
    X, y, groups = _vote_data(n_nodes=12, n_per=15, seed=2)
    offsets = np.r_[0, np.cumsum(np.bincount(groups))]
    rng = np.random.RandomState(1)
    sw = rng.choice([0.0, 1.0, 2.0], size=len(y), p=[0.2, 0.5, 0.3])
    np.testing.assert_allclose(feature_relevance(X, y, offsets, sw),
                               _weighted_eta2(X, y, groups, sw), rtol=1e-10)
    # Weight 2 == the row duplicated, weight 0 == the row dropped.
    rows = np.repeat(np.arange(len(y)), sw.astype(int))
    offsets_rows = np.r_[0, np.cumsum(np.bincount(groups[rows]))]
    np.testing.assert_allclose(feature_relevance(X[rows], y[rows], offsets_rows),
                               _weighted_eta2(X, y, groups, sw), rtol=1e-10)

    # The whole fit: the same vote, the same stumps, the same model.  (The
    # selected feature's stumps were capped at the number of rows, so weight
    # 2 vs duplicated rows changed 16.7 % of the test predictions.)
    fits = {}
    for placement in ("range", "quantile"):
        common = dict(stump_placement=placement, random_state=0)
        weighted = DecentralizedBoostingClassifier(**common).fit(
            X, y, groups=groups, sample_weight=sw)
        expanded = DecentralizedBoostingClassifier(**common).fit(
            X[rows], y[rows], groups=groups[rows])
        fits[placement] = weighted
        for name in ("selected_features_", "feature_votes_", "vote_threshold_",
                     "stump_features_", "stump_thresholds_"):
            np.testing.assert_array_equal(getattr(weighted, name), getattr(expanded, name),
                                          err_msg=f"{placement}: {name}")
        X_new = np.random.RandomState(2).randn(120, X.shape[1])
        g_new = np.repeat(np.arange(12), 10)
        np.testing.assert_allclose(weighted.decision_function(X_new, groups=g_new),
                                   expanded.decision_function(X_new, groups=g_new),
                                   rtol=1e-9, atol=1e-12)
    # The cap binds here: the one selected feature takes as many stumps as
    # there are distinct positive-weight samples, the rest go to the others.
    fit = fits["range"]
    (selected,) = np.flatnonzero(fit.selected_features_)
    n_distinct = int(np.count_nonzero(sw > 0))
    assert np.count_nonzero(fit.stump_features_ == selected) == n_distinct < fit.n_estimators_


def test_significance_ballot_rejects_slightly_miscalibrated_null_at_many_nodes():
    """At 10,000 nodes the significance count needs an effect size, not only a p-value.

    Feature 0 is voted by 5.7 % of the nodes (a useless
    feature whose per-node F test is a little liberal), feature 1 by 9 %,
    the others by 5 %.  The binomial test alone keeps feature 0;
    the floor of 1.5 * 0.05 of the nodes tested rejects it and keeps
    feature 1.  Thresholds are checked against an independent computation
    (normal tail for the binomial count, exact integer floor).
    """
    from scipy.stats import binom

    from skfed.boosting import _count_votes, binomial_threshold, significance_threshold

    rng = np.random.RandomState(0)
    K, d = 10000, 20
    rates = np.full(d, 0.05)
    rates[0], rates[1] = 0.057, 0.09
    # Each feature voted by exactly its expected number of nodes, at random.
    significant = np.zeros((K, d), dtype=bool)
    for j in range(d):
        significant[rng.permutation(K)[:round(rates[j] * K)], j] = True
    tested = np.ones((K, 1), dtype=bool)
    ballots = np.hstack([np.zeros((K, d), dtype=bool), significant, tested])
    selected, votes, threshold = _count_votes(ballots, np.ones(d, dtype=bool), 5)
    counts = significant.sum(axis=0)
    np.testing.assert_array_equal(votes[1], counts)
    # Independent binomial threshold: least v with P(X >= v) <= 0.05 / 20.
    tail = binom.sf(np.arange(K + 1) - 1, K, 0.05)
    binomial = int(np.argmax(tail <= 0.05 / d))
    assert binomial == binomial_threshold(K, 0.05, d)
    assert 555 < binomial < 570  # about 500 + 2.8 standard deviations (z of 0.0025)
    assert threshold[1] == max(binomial, 3 * K // 40) == 750
    assert threshold[1] == significance_threshold(K, d)
    # The binomial test alone would keep the miscalibrated feature.
    assert counts[0] >= binomial and counts[1] >= threshold[1]
    assert selected.tolist() == [False, True] + [False] * (d - 2)
    # Below a few hundred nodes the binomial threshold is the larger one.
    assert significance_threshold(100, d) == binomial_threshold(100, 0.05, d)
    with pytest.raises(ValueError, match="margin"):
        significance_threshold(100, d, margin=0.5)


def _vote_evidence_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "dada_vote_evidence.py"
    if not path.exists():
        pytest.skip("benchmarks/dada_vote_evidence.py is not in this checkout")
    spec = importlib.util.spec_from_file_location("dada_vote_evidence", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_feature_vote_rejects_the_noisy_familys_noise_features():
    """The held-out "noisy" moons (issue 33), seeds 0-4: the vote keeps none of
    the 18 N(0, 1) features (counted) and feature 0 on every seed; feature 1 on
    seeds 0, 2, 3, 4, not on seed 1, whose training skeletons (make_moons'
    evenly spaced arc points) carry no label signal on it: its counts stay
    under the thresholds and a magnitude-pooled test (within-node permutation
    z, Stouffer) is near zero, where the same family with i.i.d. arc positions
    gives it z > 5 and the vote keeps exactly features 0 and 1 on all five
    seeds (``benchmarks/dada_vote_evidence.py``)."""
    evidence = _vote_evidence_module()
    kept, noise_kept = [], 0
    for seed in range(5):
        X, _, y, _, g, _, _, _ = evidence.moons_family("noisy", seed)
        clf = DecentralizedBoostingClassifier(
            200, graph=np.zeros((100, 100)), mu=0.0, max_iter=1, random_state=seed,
        ).fit(X, y, groups=g)
        selected = np.flatnonzero(clf.selected_features_)
        noise_kept += int(np.count_nonzero(selected >= 2))
        kept.append(selected[selected < 2].tolist())
        if seed == 1:
            votes, threshold = clf.feature_votes_, clf.vote_threshold_
            assert votes[0, 1] < threshold[0] and votes[1, 1] < threshold[1]
            loc, _, n_tested = evidence.pooled_evidence(X, y, g, seed, n_permutations=50)
            assert 80 <= n_tested <= 100 and abs(loc[1]) < 2.0 < loc[0]
        X_iid, _, y_iid, _, g_iid, _, _ = evidence.iid_moons(seed)
        assert X_iid.shape[1] == 20 and np.unique(g_iid).size == 100
        iid = DecentralizedBoostingClassifier(
            200, graph=np.zeros((100, 100)), mu=0.0, max_iter=1, random_state=seed,
        ).fit(X_iid, y_iid, groups=g_iid)
        assert np.flatnonzero(iid.selected_features_).tolist() == [0, 1]
        if seed == 1:
            loc_iid, _, _ = evidence.pooled_evidence(X_iid, y_iid, g_iid, seed,
                                                     n_permutations=50)
            assert loc_iid[1] > 5.0 and np.abs(loc_iid[2:]).max() < 3.5
    assert noise_kept == 0
    assert kept == [[0, 1], [0], [0, 1], [0, 1], [0, 1]]
