"""The graph-recovery ceiling of the held-out "noisy" moons (issue 33).

``benchmarks/dada_graph_ceiling.py`` re-draws every node's true rotation
angle from the generator's stream and scores graphs built from those
angles and from a Bayes oracle's posteriors.  These tests check its
pieces against independent computations: the re-drawn angles against the
angle the node's own test samples point to, the oracle's likelihood
against its class posterior, the 5-nearest-neighbour graph against
``dada_graph_signal.py``'s, and the ceiling the benchmark reports.
"""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def ceiling():
    path = BENCHMARKS / "dada_graph_ceiling.py"
    if not path.exists():
        pytest.skip("benchmarks/dada_graph_ceiling.py is not in this checkout")
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("dada_graph_ceiling", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def test_true_angles_are_the_angles_the_test_samples_show(ceiling):
    """The re-drawn angle of a node is where the likelihood of 60 of its own
    test samples peaks (within 6 degrees; grid of 1 degree), for nodes of
    every cluster, on the "noisy" family and its i.i.d.-arc twin, and the
    four cluster angles are the benchmark's."""
    X, X_test, y, y_test, g, g_test, _, clusters = ceiling.moons_family("noisy", 0)
    angles, clusters_again, true = ceiling.node_angles(0, np.bincount(g))
    np.testing.assert_array_equal(clusters, clusters_again)
    np.testing.assert_allclose(angles, ceiling.cluster_angles(0))
    # The jitter: N(0, 0.15) around the cluster's angle.
    offsets = (true - angles[clusters] + np.pi) % (2 * np.pi) - np.pi
    assert 0.10 < offsets.std() < 0.20 and abs(offsets.mean()) < 0.05
    thetas = np.linspace(0.0, 2 * np.pi, 360, endpoint=False)
    for k in (0, 15, 40, 77, 99):
        rows = g_test == k
        ll = ceiling.log_likelihood(X_test[rows, :2][:60], y_test[rows][:60], thetas, n_arc=91)
        error = ceiling.circular_distance(thetas[[ll.argmax()]], true[[k]])[0, 0]
        assert np.degrees(error) < 6.0
    # The i.i.d.-arc family of ``dada_vote_evidence.py`` draws from the same stream.
    X, X_test, y, y_test, g, g_test, clusters = ceiling.load("iid", 0)
    _, _, true_iid = ceiling.node_angles(0, np.bincount(g))
    np.testing.assert_allclose(true_iid, true)
    for k in (3, 60):
        rows = g_test == k
        ll = ceiling.log_likelihood(X_test[rows, :2][:60], y_test[rows][:60], thetas, n_arc=91)
        assert np.degrees(ceiling.circular_distance(thetas[[ll.argmax()]], true[[k]])[0, 0]) < 6
    with pytest.raises(RuntimeError, match="sample counts"):
        ceiling.node_angles(0, np.bincount(g) + 1)


def test_bayes_posterior_is_the_likelihoods_ratio(ceiling):
    """``P(y = +1 | x)`` equals ``p(x, +1) / (p(x, +1) + p(x, -1))`` from the
    likelihood, and the Bayes classifier at the true angle labels a node's
    100 test samples far better than chance (noise 0.15, 5 % flips)."""
    X, X_test, y, y_test, g, g_test, _, _ = ceiling.moons_family("noisy", 2)
    _, _, true = ceiling.node_angles(2, np.bincount(g))
    x = X_test[:7, :2]
    theta = np.array([true[0]])
    plus = np.exp([ceiling.log_likelihood(x[[i]], [1], theta)[0] for i in range(7)])
    minus = np.exp([ceiling.log_likelihood(x[[i]], [-1], theta)[0] for i in range(7)])
    np.testing.assert_allclose(ceiling.bayes_probability(x, true[0]), plus / (plus + minus),
                               rtol=1e-9)
    accuracy = [np.mean((ceiling.bayes_probability(X_test[g_test == k, :2], true[k]) > 0.5)
                        == (y_test[g_test == k] == 1)) for k in range(0, 100, 10)]
    assert np.mean(accuracy) > 0.85


def test_knn_graph_and_shares(ceiling):
    """The symmetrized 5-NN graph is ``dada_graph_signal.py``'s (same share on
    a random cost); the share counts each weight once between two nodes of
    one cluster; ``merged`` joins clusters closer than the given angle."""
    rng = np.random.RandomState(0)
    cost = rng.uniform(size=(30, 30))
    clusters = np.repeat(np.arange(3), 10)
    A = ceiling.knn_graph(-cost)
    assert np.array_equal(A, A.T) and (A.sum(1) >= 5).all() and np.all(np.diag(A) == 0)
    assert ceiling.inside_share(A, clusters) == pytest.approx(ceiling.knn_share(cost, clusters))
    W = np.zeros((4, 4))
    W[0, 1] = W[1, 0] = 3.0
    W[0, 2] = W[2, 0] = 1.0
    assert ceiling.inside_share(W, np.array([0, 0, 1, 1])) == pytest.approx(0.75)
    angles = np.radians([0.0, 40.0, 180.0, 300.0])
    labels = ceiling.merged(np.array([0, 1, 2, 3, 3]), angles, 45.0)
    assert labels[0] == labels[1] and len(np.unique(labels)) == 3 and labels[3] == labels[4]
    # 300 and 0 degrees are 60 apart on the circle: not merged at 45, merged at 61.
    assert len(np.unique(ceiling.merged(np.arange(4), angles, 61.0))) == 2


def test_the_ceiling_is_above_the_target_on_the_closest_seed(ceiling):
    """Seed 4 has the closest clusters of seeds 0-4 (30.8 degrees): the graph
    of the true angles and the Bayes oracle's graph (coarse grids) still put
    more than 90 % of their weight inside the clusters, issue 33's 85 % with
    room to spare (``python benchmarks/dada_graph_ceiling.py``)."""
    X, _, y, _, g, _, _, clusters = ceiling.moons_family("noisy", 4)
    angles, _, true = ceiling.node_angles(4, np.bincount(g))
    ordered = np.sort(np.degrees(angles) % 360)
    assert np.diff(np.r_[ordered, ordered[0] + 360]).min() == pytest.approx(30.8, abs=0.05)
    d = ceiling.circular_distance(true, true)
    assert ceiling.inside_share(ceiling.knn_graph(-d), clusters) > 0.95
    cluster_post, _ = ceiling.bayes_scores(X, y, g, angles, n_grid=180, n_arc=61)
    assert np.mean(cluster_post.argmax(1) == clusters) > 0.9
    share = ceiling.inside_share(ceiling.knn_graph(cluster_post @ cluster_post.T), clusters)
    assert share > 0.9
