"""The pair-signal screen of ``benchmarks/dada_graph_signal.py screen`` (issue 33).

Its NumPy pieces against independent computations: the local Frank-Wolfe
models against Dada's compiled local phase (``fw_local``), the cross
losses against a per-pair loop, the posterior overlap and the
standardized distance against their definitions, and the spectral cost's
clusters on a block matrix.
"""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def screen():
    path = BENCHMARKS / "dada_graph_signal.py"
    if not path.exists():
        pytest.skip("benchmarks/dada_graph_signal.py is not in this checkout")
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("dada_graph_signal", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def _stump_problem(seed=0, n_nodes=6):
    rng = np.random.RandomState(seed)
    sizes = rng.randint(3, 9, size=n_nodes)
    g = np.repeat(np.arange(n_nodes), sizes)
    X = rng.normal(size=(g.size, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=g.size) > 0, 1, 0)
    thresholds = np.linspace(-1.5, 1.5, 7)
    H = np.hstack([np.where(X[:, [f]] > thresholds, 1.0, -1.0) for f in (0, 1)]
                  + [np.ones((g.size, 1))])
    return H, np.where(y > 0, 1.0, -1.0), g, sizes


def test_local_frank_wolfe_matches_dadas_compiled_local_phase(screen):
    from skfed._core._boosting_fast import fw_local

    # Real-valued base predictors: no two coordinates tie for the largest
    # gradient (on a node's 3-8 samples, stumps often do, and the two codes
    # may then break the tie differently).
    _, signs, g, sizes = _stump_problem()
    H = np.random.RandomState(3).normal(size=(g.size, 9))
    n_nodes, n_base = sizes.size, H.shape[1]
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    for beta, n_steps in ((0.3, 1), (1.0, 7), (3.0, 40)):
        alpha = np.zeros((n_nodes, 1, n_base))
        margins = np.zeros((1, g.size))
        losses = np.zeros((n_nodes, 1))
        fw_local(np.ascontiguousarray(H), signs[None, :].copy(), np.ones(g.size), offsets,
                 alpha, margins, losses, beta, n_steps, 0, n_nodes)
        mine = screen.local_frank_wolfe(H, signs, g, n_nodes, beta, n_steps)
        np.testing.assert_allclose(mine, alpha[:, 0], atol=1e-10)
        # Convex combinations of the ball's vertices: inside it, and on its
        # surface after the first step (whose step size is 1).
        norms = np.abs(mine).sum(axis=1)
        assert np.all(norms <= beta * (1 + 1e-12))
        if n_steps == 1:
            np.testing.assert_allclose(norms, beta, rtol=1e-12)


def test_cross_losses_posterior_and_standardized_distance(screen):
    H, signs, g, sizes = _stump_problem(seed=1)
    n_nodes = sizes.size
    models = np.random.RandomState(2).normal(size=(n_nodes, H.shape[1]))
    margins = H @ models.T
    for t in (1e-3, 1.0, 3.0):
        L = screen.cross_logistic(margins, signs, g, n_nodes, t)
        for k in range(n_nodes):
            for l in range(n_nodes):
                rows = np.flatnonzero(g == k)
                loop = np.mean([np.log1p(np.exp(-t * signs[i] * (H[i] @ models[l])))
                                for i in rows])
                assert L[k, l] == pytest.approx(loop, rel=1e-12)
    # The posterior overlap: P_k(m) proportional to exp(-m_k L[k, m]).
    L = screen.cross_logistic(margins, signs, g, n_nodes)
    P = np.exp(-sizes[:, None] * L)
    P /= P.sum(axis=1, keepdims=True)
    overlap = np.array([[sum(P[k, m] * P[l, m] for m in range(n_nodes))
                         for l in range(n_nodes)] for k in range(n_nodes)])
    from scipy.special import softmax
    np.testing.assert_allclose(-(softmax(-sizes[:, None] * L, axis=1)
                                 @ softmax(-sizes[:, None] * L, axis=1).T), -overlap)
    D = screen.squared_distances(models)
    assert D[1, 4] == pytest.approx(((models[1] - models[4]) ** 2).sum(), rel=1e-10)
    assert np.all(np.diag(D) < 1e-10)


def test_spectral_cost_separates_two_blocks(screen):
    rng = np.random.RandomState(0)
    labels = np.repeat([0, 1], 8)
    cost = np.where(labels[:, None] == labels[None, :], 1.0, 4.0) + 0.1 * rng.rand(16, 16)
    cost = cost + cost.T
    np.fill_diagonal(cost, 0.0)
    spectral = screen.spectral_cost(cost, dim=2)
    same = labels[:, None] == labels[None, :]
    assert spectral[same].max() < spectral[~same].min()
    assert screen.knn_share(spectral, labels, k=3) == 1.0


def test_rff_local_models_solve_each_nodes_ridge_problem(screen):
    """The dual solve equals the primal ridge closed form on the same public
    features, the features have the stated map, and the cost is the
    both-ways mean log-loss of ``sigmoid(3 f)`` computed pair by pair."""
    rng = np.random.RandomState(4)
    sizes = np.array([3, 5, 9, 4])
    g = np.repeat(np.arange(4), sizes)
    X = rng.normal(size=(g.size, 5))
    y = (X[:, 1] > 0).astype(int)
    phi, models = screen.rff_local_models(X, y, g, 4, [1, 3], bandwidth=0.4, ridge=0.5,
                                          n_features=40, seed=11)
    # The map: standardized features 1 and 3, the public seed's W and b.
    Z = X[:, [1, 3]]
    Z = (Z - Z.mean(axis=0)) / Z.std(axis=0)
    r = np.random.RandomState(11)
    W = r.normal(scale=1 / 0.4, size=(2, 40))
    b = r.uniform(0, 2 * np.pi, 40)
    np.testing.assert_allclose(phi, np.sqrt(2 / 40) * np.cos(Z @ W + b), atol=1e-12)
    signs = np.where(y > 0, 1.0, -1.0)
    for l in range(4):
        P = phi[g == l]
        primal = np.linalg.solve(P.T @ P + 0.5 * np.eye(40), P.T @ signs[g == l])
        np.testing.assert_allclose(models[l], primal, atol=1e-10)
    cost = screen.rff_cost(phi, models, y, g, 4)
    for k in range(4):
        for l in range(4):
            one = lambda a, c: np.mean([np.log1p(np.exp(-3 * signs[i] * phi[i] @ models[c]))
                                        for i in np.flatnonzero(g == a)])
            assert cost[k, l] == pytest.approx(one(k, l) + one(l, k), rel=1e-12)


def test_rff_graph_models_are_node_ordered_whatever_the_sample_order(screen):
    """With the samples of the nodes interleaved, every node's kernel model
    is the ridge solution on its own samples only, and the score data's
    offsets and labels follow the sorted node order Dada's state uses."""
    rng = np.random.RandomState(5)
    g = rng.permutation(np.repeat([7, 2, 5], [4, 6, 3]))
    X = rng.normal(size=(g.size, 3))
    y = (X[:, 0] > 0).astype(int)
    patch = screen.rff_graph_models(X, y, g, [0, 2], scale=2.0)
    np.testing.assert_array_equal(patch.offsets, [0, 6, 9, 13])   # nodes 2, 5, 7
    order = np.argsort(g, kind="stable")
    np.testing.assert_array_equal(patch.Y[0], np.where(y[order] > 0, 1.0, -1.0))
    phi = patch.H / 2.0
    for row, node in enumerate((2, 5, 7)):
        P = phi[patch.offsets[row]:patch.offsets[row + 1]]
        target = np.where(y[g == node] > 0, 1.0, -1.0)
        primal = np.linalg.solve(P.T @ P + np.eye(P.shape[1]), P.T @ target)
        np.testing.assert_allclose(patch.models[row], primal, atol=1e-10)
