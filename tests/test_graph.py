"""CollaborationGraphLearner against a centralized bound-constrained solver."""

import pickle

import warnings

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import check_grad, minimize

from scipy.sparse.csgraph import connected_components

from skfed.graph import (
    CollaborationGraphLearner,
    connected_threshold,
    sparsify_to_connected,
    block_lipschitz_bound,
    graph_gradient,
    graph_objective,
    model_message_bytes,
)
from skfed.network import SimulatedNetwork, index_bits


def _problem(seed=0, K=10, dim=5):
    rng = np.random.RandomState(seed)
    models = rng.normal(size=(K, dim))
    models[: K // 2] += 2.0  # two groups of similar models
    losses = rng.uniform(0.1, 1.0, size=K)
    return models, losses


def _centralized_minimum(models, losses, **kw):
    K = models.shape[0]
    iu = np.triu_indices(K, 1)

    def fun(wv):
        W = np.zeros((K, K))
        W[iu] = wv
        W = W + W.T
        return graph_objective(W, models, losses, **kw), graph_gradient(W, models, losses, **kw)[iu]

    res = minimize(fun, np.full(len(iu[0]), 0.1), jac=True, method="L-BFGS-B",
                   bounds=[(0, None)] * len(iu[0]),
                   options=dict(maxiter=20000, ftol=1e-15, gtol=1e-12))
    W = np.zeros((K, K))
    W[iu] = res.x
    return res.fun, W + W.T


@pytest.mark.parametrize("kw", [
    dict(mu=1.0, mu_graph=1.0, lambda_graph=0.5, delta=1e-3),
    dict(mu=3.0, mu_graph=0.5, lambda_graph=2.0, delta=1e-2),
])
def test_reaches_the_lbfgsb_minimum_of_h(kw):
    models, losses = _problem()
    h_star, W_star = _centralized_minimum(models, losses, **kw)
    learner = CollaborationGraphLearner(kappa=3, max_iter=6000, random_state=0,
                                        sparsify_graph=None, **kw)
    learner.fit(models, losses=losses)
    h = learner.objective(models, losses)
    assert abs(h - h_star) <= 1e-4 * abs(h_star)
    assert learner.objective_curve_[-1] == pytest.approx(h, rel=1e-9)
    # Same support and weights as the centralized solution.
    W = learner.collaboration_graph_.toarray()
    np.testing.assert_allclose(W, W_star, atol=2e-3)


def test_gradient_matches_finite_differences_and_lipschitz_bound_holds():
    models, losses = _problem(1, K=6)
    kw = dict(mu=0.8, mu_graph=1.7, lambda_graph=0.3, delta=0.05)
    K = 6
    iu = np.triu_indices(K, 1)

    def to_W(wv):
        W = np.zeros((K, K))
        W[iu] = wv
        return W + W.T

    w0 = np.random.RandomState(0).uniform(0.1, 1.0, size=len(iu[0]))
    err = check_grad(lambda v: graph_objective(to_W(v), models, losses, **kw),
                     lambda v: graph_gradient(to_W(v), models, losses, **kw)[iu], w0)
    assert err < 1e-5
    # Block Hessian of node 0 on kappa = 3 peers, at a point with all degrees 0.
    kappa = 3
    d = np.zeros(K)
    hess = kw["mu_graph"] * (2 * kw["lambda_graph"] * np.eye(kappa)
                             + np.ones((kappa, kappa)) / (d[0] + kw["delta"]) ** 2
                             + np.diag(1 / (d[1:4] + kw["delta"]) ** 2))
    bound = block_lipschitz_bound(kappa, mu_graph=kw["mu_graph"],
                                  lambda_graph=kw["lambda_graph"], delta=kw["delta"])
    assert np.linalg.eigvalsh(hess).max() <= bound * (1 + 1e-12)
    assert np.linalg.eigvalsh(hess).max() >= 0.5 * bound  # and it is nearly tight there


def test_learned_graph_is_symmetric_sparse_and_finds_the_groups():
    models, losses = _problem(2, K=12)
    learner = CollaborationGraphLearner(mu=5.0, lambda_graph=0.5, kappa=4, random_state=0,
                                        sparsify_graph=None)
    learner.fit(models, losses=losses)
    W = learner.collaboration_graph_
    assert sparse.isspmatrix_csr(W) or isinstance(W, sparse.csr_matrix)
    dense = W.toarray()
    np.testing.assert_allclose(dense, dense.T)
    assert np.all(dense >= 0) and np.all(np.diag(dense) == 0)
    assert np.all(W.data > 0)  # no explicit zeros
    group = np.arange(12) < 6
    same = group[:, None] == group[None, :]
    assert dense[same].sum() > 0.9 * dense.sum()
    np.testing.assert_allclose(learner.degree_, dense.sum(axis=1))
    assert learner.n_iter_ == 100 * 12 == len(learner.objective_curve_)
    assert np.all(np.diff(learner.objective_curve_) <= 1e-9 * np.abs(learner.objective_curve_[:-1]))


def test_bytes_equal_the_closed_form():
    rng = np.random.RandomState(3)
    K, dim, kappa, n_iter = 7, 12, 3, 50
    models = rng.normal(size=(K, dim))
    learner = CollaborationGraphLearner(kappa=kappa, max_iter=n_iter, random_state=1).fit(models)
    dense = 8 * dim  # 12 float64 (sparse pairs would cost 12 * 8 + ceil(12 * 4 / 8))
    per_peer = (16 + dense) + (16 + dense + 16) + (16 + 8)
    assert learner.n_bytes_sent_ == n_iter * kappa * per_peer
    assert learner.n_messages_ == n_iter * kappa * 3
    np.testing.assert_array_equal(learner.bytes_per_round_, np.full(n_iter, kappa * per_peer))


def test_model_message_bytes_choose_the_cheaper_encoding():
    models = np.zeros((3, 100))
    models[0] = 1.0
    models[1, [3, 50]] = 2.0
    bits = index_bits(100)
    out = model_message_bytes(models)
    assert out.tolist() == [800, 2 * 8 + (2 * bits + 7) // 8, 0]
    assert model_message_bytes(models.astype(np.float32), np.float32)[0] == 400


def test_budget_topology_drops_and_reproducibility():
    models, losses = _problem(4, K=8)
    full = CollaborationGraphLearner(kappa=2, max_iter=400, random_state=0).fit(models)
    budget = full.n_bytes_sent_ // 3
    cut = CollaborationGraphLearner(kappa=2, max_iter=400, communication_budget=budget,
                                    random_state=0).fit(models)
    assert cut.n_iter_ < 400 and budget <= cut.n_bytes_sent_ < budget + 2 * 700
    again = CollaborationGraphLearner(kappa=2, max_iter=400, random_state=0).fit(models)
    np.testing.assert_array_equal(again.collaboration_graph_.toarray(),
                                  full.collaboration_graph_.toarray())
    ring = SimulatedNetwork(topology="ring")
    on_ring = CollaborationGraphLearner(kappa=2, network=ring, random_state=0).fit(models)
    W = on_ring.collaboration_graph_.toarray()
    allowed = np.abs(np.subtract.outer(np.arange(8), np.arange(8))) % 6
    allowed = (allowed == 1) | (np.abs(np.subtract.outer(np.arange(8), np.arange(8))) == 7)
    assert np.all(W[~allowed] == 0)
    dropped = CollaborationGraphLearner(kappa=2, max_iter=400, random_state=0,
                                        network=SimulatedNetwork(drop_rate=0.5)).fit(models)
    assert dropped.n_messages_ < full.n_messages_
    clone = pickle.loads(pickle.dumps(full))
    np.testing.assert_array_equal(clone.collaboration_graph_.toarray(),
                                  full.collaboration_graph_.toarray())


def test_warm_start_graph_and_bad_inputs():
    models, losses = _problem(5, K=6)
    init = np.ones((6, 6)) - np.eye(6)
    # One wake-up changes only the weights of the node that woke up: every
    # other entry is still the warm start.
    learner = CollaborationGraphLearner(max_iter=1, random_state=0).fit(models, init_graph=init)
    changed = np.argwhere(learner.collaboration_graph_.toarray() != init)
    assert len(changed) > 0
    woke = np.bincount(changed.ravel()).argmax()
    assert np.all((changed == woke).any(axis=1))
    with pytest.raises(ValueError, match="max_iter"):
        CollaborationGraphLearner(max_iter=0).fit(models)
    with pytest.raises(ValueError, match="losses must have one value per node"):
        CollaborationGraphLearner().fit(models, losses=np.ones(5))
    with pytest.raises(ValueError, match="init_graph"):
        CollaborationGraphLearner().fit(models, init_graph=np.ones((5, 5)))
    with pytest.raises(ValueError, match="mu_graph must be > 0"):
        CollaborationGraphLearner(mu=0.0).fit(models)
    with pytest.raises(ValueError):
        CollaborationGraphLearner().fit(np.c_[models[:, :-1], np.full(6, np.nan)])


def test_max_neighbors_keeps_the_closest_peers_and_is_validated():
    models, losses = _problem(7, K=12)
    kw = dict(mu=5.0, lambda_graph=5.0, kappa=4, random_state=0, sparsify_graph=None)
    free = CollaborationGraphLearner(**kw).fit(models, losses=losses)
    capped = CollaborationGraphLearner(max_neighbors=2, **kw).fit(models, losses=losses)
    dense = capped.collaboration_graph_.toarray()
    counts = (dense > 0).sum(axis=1)
    assert counts.max() <= 2 < (free.collaboration_graph_.toarray() > 0).sum(axis=1).max()
    np.testing.assert_allclose(dense, dense.T)
    np.testing.assert_allclose(capped.degree_, dense.sum(axis=1))
    # The edges kept are those toward the closest models: all inside the groups.
    group = np.arange(12) < 6
    same = group[:, None] == group[None, :]
    assert np.all(same[dense > 0])
    # The curve stays h(w) of the current graph.
    assert capped.objective_curve_[-1] == pytest.approx(
        capped.objective(models, losses=losses), rel=1e-9
    )
    with pytest.raises(ValueError, match="max_neighbors"):
        CollaborationGraphLearner(max_neighbors=0).fit(models)


def _brute_force_threshold(W):
    """Try every weight, largest first: the first keeping the component count."""
    n_target = connected_components(sparse.csr_matrix(W > 0), directed=False)[0]
    for t in np.unique(W[W > 0])[::-1]:
        if connected_components(sparse.csr_matrix(W >= t), directed=False)[0] == n_target:
            return t
    return 0.0


@pytest.mark.parametrize("seed", range(6))
def test_sparsify_to_connected_matches_a_brute_force_threshold_search(seed):
    rng = np.random.RandomState(seed)
    K = 15
    W = np.triu(rng.uniform(size=(K, K)) * (rng.uniform(size=(K, K)) < 0.3), 1)
    if seed % 2:
        W[:, :3] = W[:3, :] = 0.0  # isolated nodes: keep the components, not connect
        W[3:6, 3:6] = 0.0
        W[3, 4] = 0.7
    W = W + W.T
    t = _brute_force_threshold(W)
    assert connected_threshold(W) == t
    assert connected_threshold(sparse.csr_matrix(W)) == t
    kept = sparsify_to_connected(W).toarray()
    np.testing.assert_array_equal(kept, np.where(W >= t, W, 0.0))
    n = connected_components(sparse.csr_matrix(W > 0), directed=False)[0]
    assert connected_components(sparse.csr_matrix(kept), directed=False)[0] == n
    # One weight less (the threshold edge itself) would split a component.
    if t > 0:
        assert connected_components(sparse.csr_matrix(W > t), directed=False)[0] > n
    assert connected_threshold(np.zeros((4, 4))) == 0.0


def _authors_threshold(W):
    """The authors' post-processing as the docs describe it, in NumPy: thresholds
    ``max(W) / sqrt(10) ** j``, j = 1, 2, ..., the first at which the second
    smallest eigenvalue of the thresholded graph's Laplacian exceeds 1e-3
    (None when no threshold above the smallest weight passes)."""
    top, low = W.max(), W[W > 0].min()
    j = 1
    while top / np.sqrt(10) ** j >= low:
        t = top / np.sqrt(10) ** j
        kept = np.where(W >= t, W, 0.0)
        laplacian = np.diag(kept.sum(axis=1)) - kept
        if np.linalg.eigvalsh(laplacian)[1] > 1e-3:
            return t
        j += 1
    return None


@pytest.mark.parametrize("seed", range(6))
def test_exact_threshold_keeps_fewer_edges_than_the_authors_grid(seed):
    """The documented difference from the authors' code: their grid keeps at
    least the exact threshold's edges (up to sqrt(10) below it) on a connected
    graph, and on a disconnected one no grid threshold passes (every edge
    kept) while the exact threshold still drops edges inside the components."""
    rng = np.random.RandomState(seed)
    K = 20
    W = np.triu(rng.uniform(size=(K, K)) * (rng.uniform(size=(K, K)) < 0.4), 1)
    W[np.arange(K - 1), np.arange(1, K)] = rng.uniform(0.01, 1.0, K - 1)  # connected
    W = W + W.T
    t_exact, t_authors = connected_threshold(W), _authors_threshold(W)
    assert t_authors is not None and t_exact / np.sqrt(10) < t_authors <= t_exact
    assert np.count_nonzero(W >= t_authors) >= np.count_nonzero(W >= t_exact)
    # Two components: no Laplacian of a thresholded graph has lambda_2 > 0.
    W[: K // 2, K // 2:] = W[K // 2:, : K // 2] = 0.0
    assert _authors_threshold(W) is None
    kept = sparsify_to_connected(W)
    assert connected_components(kept, directed=False)[0] == 2
    assert kept.nnz < np.count_nonzero(W)


def test_learner_sparsifies_its_graph_by_default():
    models, losses = _problem(2, K=12)
    kw = dict(mu=5.0, lambda_graph=0.5, kappa=4, random_state=0)
    full = CollaborationGraphLearner(sparsify_graph=None, **kw).fit(models, losses=losses)
    kept = CollaborationGraphLearner(**kw).fit(models, losses=losses)
    W = full.collaboration_graph_.toarray()
    t = _brute_force_threshold(W)
    np.testing.assert_array_equal(kept.collaboration_graph_.toarray(), np.where(W >= t, W, 0))
    assert kept.collaboration_graph_.nnz < full.collaboration_graph_.nnz
    np.testing.assert_allclose(kept.degree_, kept.collaboration_graph_.toarray().sum(axis=1))
    assert kept.n_bytes_sent_ == full.n_bytes_sent_
    with pytest.raises(ValueError, match="sparsify_graph"):
        CollaborationGraphLearner(sparsify_graph="tree").fit(models)


def test_kappa_above_the_other_nodes_warns_and_changes_nothing():
    # Issue 31: kappa=10**9 allocated 7.45 GiB before the cap, kappa=20 was
    # capped silently.  Every node then samples all its neighbours, as with
    # kappa = n_nodes - 1.
    models = np.random.RandomState(0).normal(size=(8, 3))
    capped = CollaborationGraphLearner(kappa=7, max_iter=100, random_state=0).fit(models)
    for kappa in (20, 10**9):
        with pytest.warns(UserWarning, match=rf"kappa={kappa} is more than the "
                                             r"n_nodes - 1 = 7 other nodes"):
            big = CollaborationGraphLearner(kappa=kappa, max_iter=100,
                                            random_state=0).fit(models)
        np.testing.assert_array_equal(big.collaboration_graph_.toarray(),
                                      capped.collaboration_graph_.toarray())
        assert big.n_bytes_sent_ == capped.n_bytes_sent_


def test_negative_losses_are_refused():
    models = np.random.RandomState(0).normal(size=(8, 3))
    losses = np.ones(8)
    losses[2] = -0.5
    with pytest.raises(ValueError, match=r"losses must be non-negative .* node 2 has -0.5"):
        CollaborationGraphLearner(max_iter=10).fit(models, losses=losses)


# ------------------------------------------- peer sampling without the K^2 links
def test_sampled_candidates_decrease_h_as_the_dense_step_in_expectation():
    """The steps draw their peers from all the other nodes without holding the
    K (K - 1) candidate links: from one state, the mean decrease of h over
    seeded one-step runs equals the dense computation's expectation (every
    waking node and every kappa-subset of its peers, enumerated in NumPy)."""
    import itertools

    from skfed._base import node_seeds
    from skfed.graph import _GraphRunner

    rng = np.random.RandomState(0)
    K, kappa = 6, 2
    models = rng.normal(size=(K, 3))
    models[:3] += 1.5
    losses = rng.uniform(0, 0.3, size=K)
    kw = dict(mu=1.0, mu_graph=0.7, lambda_graph=0.8, delta=1e-2)
    W = np.triu(rng.uniform(0, 0.6, size=(K, K)) * (rng.uniform(size=(K, K)) < 0.5), 1)
    W = W + W.T
    h0 = graph_objective(W, models, losses, **kw)

    def dense_step(k, peers):
        # Projected block gradient step with backtracking on the dense W.
        d = W.sum(axis=1)
        grad = graph_gradient(W, models, losses, **kw)[k, peers]
        L = kw["mu_graph"] * (2 * kw["lambda_graph"] + len(peers) / (d[k] + kw["delta"]) ** 2
                              + np.max(1 / (d[peers] + kw["delta"]) ** 2))
        L_max = block_lipschitz_bound(len(peers), mu_graph=kw["mu_graph"],
                                      lambda_graph=kw["lambda_graph"], delta=kw["delta"])
        L = min(L, L_max)
        while True:
            v = np.maximum(0.0, W[k, peers] - grad / L)
            new = W.copy()
            new[k, peers] = new[peers, k] = v
            step = v - W[k, peers]
            h1 = graph_objective(new, models, losses, **kw)
            if h1 <= h0 + grad @ step + 0.5 * L * step @ step + 1e-12 * abs(h0) or L >= L_max:
                return h0 - h1
            L = min(2 * L, L_max)

    decrease = {(k, frozenset(p)): dense_step(k, list(p))
                for k in range(K) for p in itertools.combinations(
                    [l for l in range(K) if l != k], kappa)}
    expected = np.mean(list(decrease.values()))  # uniform node, uniform peer subset
    sim_rng = np.random.RandomState(1)
    observed, draws = [], {}
    n_runs = 1500
    sim = SimulatedNetwork().start(K, random_state=0)
    runner = _GraphRunner(sim, kappa=kappa, clock=np.ones(1, np.uint32),
                          node_state=np.ones(K, np.uint32), **kw)
    for _ in range(n_runs):
        seeds = node_seeds(sim_rng, K + 1)
        runner.clock[:] = seeds[K:]
        runner.node_state[:] = seeds[:K]
        runner.set_graph(W)
        _, _, _, (node, peers, _) = runner.run(models, losses, 1, model_dtype=np.float64,
                                               trace=True)
        key = (int(node[0]), frozenset(peers[0].tolist()))
        h1 = graph_objective(runner.graph_csr(), models, losses, **kw)
        # Each seeded step is exactly the dense step of its draw ...
        assert h0 - h1 == pytest.approx(decrease[key], rel=1e-9, abs=1e-12)
        observed.append(h0 - h1)
        draws[key] = draws.get(key, 0) + 1
        # ... and never holds more than the stored links.
        assert runner.wv.size == K * runner.row_capacity
    # ... drawn uniformly, so the mean decrease is the dense expectation.
    values = np.array(list(decrease.values()))
    se = values.std() / np.sqrt(len(observed))
    assert abs(np.mean(observed) - expected) < 4 * se
    counts = np.array([draws.get(key, 0) for key in decrease])
    n_outcomes = len(decrease)
    chi2 = np.sum((counts - n_runs / n_outcomes) ** 2 / (n_runs / n_outcomes))
    assert chi2 < n_outcomes + 5 * np.sqrt(2 * n_outcomes)


def test_rows_grow_without_changing_the_fit():
    """A step that needs a slot in a full row is retaken after the rows grow:
    the learned graph, the bytes and the curve do not depend on the capacity."""
    from skfed.graph import _GraphRunner

    models, losses = _problem(6, K=14)
    kw = dict(mu=1.0, mu_graph=1.0, lambda_graph=0.3, delta=1e-3, kappa=4)
    out = []
    for capacity in (None, 2):
        sim = SimulatedNetwork().start(14, random_state=0)
        runner = _GraphRunner(sim, clock=np.array([7], np.uint32),
                              node_state=np.arange(1, 15, dtype=np.uint32), **kw)
        if capacity:
            runner._allocate(capacity)
        _, spent, curve, _ = runner.run(models, losses, 400, model_dtype=np.float64,
                                        record=True)
        out.append((runner.graph_csr().toarray(), spent, curve, runner.row_capacity))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][1] == out[1][1]
    np.testing.assert_array_equal(out[0][2], out[1][2])
    assert out[1][3] > 2 and (out[0][0] > 0).sum(axis=1).max() > 2


def test_complete_topology_is_never_built(monkeypatch):
    """On the default (complete) network the graph learner, Dada and Perso-lin
    never build the n (n - 1) links of the topology."""
    from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
    from skfed.network import NetworkSimulation

    def refuse(self, labels):
        raise AssertionError("the complete topology was built")

    monkeypatch.setattr(NetworkSimulation, "_build_topology", refuse)
    rng = np.random.RandomState(0)
    K = 300
    CollaborationGraphLearner(max_iter=2 * K, random_state=0).fit(rng.normal(size=(K, 3)))
    X = rng.normal(size=(4 * K, 3))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(np.arange(K), 4)
    for est in (DecentralizedBoostingClassifier(12, max_iter=2 * K, random_state=0),
                PersonalizedLinearClassifier(max_iter=2 * K, random_state=0)):
        est.fit(X, y, groups=groups)
        assert est.collaboration_graph_.nnz > 0


def test_learned_graph_leaves_no_node_alone():
    """The log barrier at the defaults: every node keeps a neighbour, before
    and after the cut to the connected threshold."""
    models, losses = _problem(4, K=30)
    for sparsify in ("connected", None):
        learner = CollaborationGraphLearner(sparsify_graph=sparsify, random_state=0)
        W = learner.fit(models, losses=losses).collaboration_graph_
        assert np.asarray(W.sum(axis=1)).ravel().min() > 0


def test_default_kappa_on_a_small_federation_does_not_warn():
    # kappa=5 is the default: on 4 nodes it means the 3 other nodes, and a
    # user who set nothing gets no warning about it; the fit equals kappa=3.
    models = np.random.RandomState(1).normal(size=(4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        default = CollaborationGraphLearner(max_iter=50, random_state=0).fit(models)
    three = CollaborationGraphLearner(kappa=3, max_iter=50, random_state=0).fit(models)
    np.testing.assert_array_equal(default.collaboration_graph_.toarray(),
                                  three.collaboration_graph_.toarray())
    with pytest.warns(UserWarning, match=r"kappa=6 is more than the n_nodes - 1 = 3"):
        CollaborationGraphLearner(kappa=6, max_iter=50, random_state=0).fit(models)


@pytest.mark.parametrize("sorted_indices", [True, False])
def test_connected_threshold_and_sparsify_leave_their_argument_untouched(sorted_indices):
    # A float64 CSR input with explicit zeros (and, second case, unsorted
    # column indices): neither function may prune or reorder its arrays.
    dense = np.array(
        [[0.0, 0.4, 0.0, 0.9], [0.4, 0.0, 0.2, 0.0], [0.0, 0.2, 0.0, 0.6], [0.9, 0.0, 0.6, 0.0]]
    )
    W = sparse.csr_matrix(dense)
    W.data[W.data == 0.2] = 0.0  # edge 1-2 becomes an explicit zero
    if not sorted_indices:
        order = np.concatenate([np.arange(a, b)[::-1] for a, b in zip(W.indptr[:-1], W.indptr[1:])])
        W.indices, W.data = W.indices[order].copy(), W.data[order].copy()
        W.has_sorted_indices = False
    before = (W.indptr.copy(), W.indices.copy(), W.data.copy())
    assert W.nnz == 8
    # Without edge 1-2 the forest is 0-3 (0.9), 2-3 (0.6), 0-1 (0.4).
    assert connected_threshold(W) == 0.4
    kept = sparsify_to_connected(W)
    np.testing.assert_array_equal(kept.toarray(), np.where(dense == 0.2, 0.0, dense))
    assert W.nnz == 8
    for b, a in zip(before, (W.indptr, W.indices, W.data)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("allow_weights", [True, False])
def test_check_adjacency_leaves_a_float_csr_argument_untouched(allow_weights):
    # A weighted float64 CSR with an explicit zero: the check returns its own
    # pruned (and, without weights, 0/1) copy; the caller's arrays stay.  A
    # Perso-lin fit with it as ``graph`` leaves it as given too.
    from skfed._topology import check_adjacency
    from skfed.boosting import PersonalizedLinearClassifier

    W = sparse.csr_matrix(np.array([[0, 1.5, 3.0], [1.5, 0, 2.0], [3.0, 2.0, 0]]))
    W.data[W.data == 3.0] = 0.0
    before = (W.data.copy(), W.indices.copy(), W.indptr.copy())
    checked = check_adjacency(W, 3, name="graph", allow_weights=allow_weights)
    expected = np.array([[0, 1.5, 0], [1.5, 0, 2.0], [0, 2.0, 0]])
    np.testing.assert_array_equal(checked.toarray(), expected if allow_weights else expected > 0)
    assert checked.nnz == 4
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3))
    PersonalizedLinearClassifier(graph=W, max_iter=10, random_state=0).fit(
        X, (X[:, 0] > 0).astype(int), groups=np.repeat(np.arange(3), 20))
    assert W.nnz == 6
    for b, a in zip(before, (W.data, W.indices, W.indptr)):
        np.testing.assert_array_equal(a, b)
