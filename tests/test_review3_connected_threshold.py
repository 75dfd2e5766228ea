"""skfed.graph.connected_threshold on weights spread over many orders of magnitude.

The threshold is the smallest weight of a maximum spanning forest.  It was
computed as a minimum spanning forest of ``max(W) + 1 - W``: two weights
that differ by less than the float spacing of ``max(W) + 1`` (1e-17 and
2e-17 beside a weight near 1) flip to the same number, the forest may take
the smaller, and the threshold came out below the true one (sparsification
kept edges it should drop).  The Perso-lin / Dada join computes it by
Kruskal's rule on the weights themselves
(``skfed._graph_join_fitted.connected_threshold``), so the fit and the join
disagreed on the same graph.  The reference here is a brute-force search
over the weights (the largest that keeps the component count).
"""

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from skfed._graph_join_fitted import connected_threshold as join_threshold
from skfed.graph import connected_threshold, sparsify_to_connected


def _brute_force(W):
    n_target = connected_components(sparse.csr_matrix(W > 0), directed=False)[0]
    for t in np.unique(W[W > 0])[::-1]:
        if connected_components(sparse.csr_matrix(W >= t), directed=False)[0] == n_target:
            return t
    return 0.0


def test_tiny_weights_by_hand():
    # nodes 0, 2, 3 (node 1 isolated): 0-2 and 2-3 weigh 2e-17, 0-3 1e-17.
    # Every maximum spanning forest is {0-2, 2-3}: threshold 2e-17 (keeping
    # 0-3 as well is not needed to connect them).
    W = np.zeros((4, 4))
    W[0, 2] = W[2, 3] = 2e-17
    W[0, 3] = 1e-17
    W = W + W.T
    assert _brute_force(W) == 2e-17
    assert connected_threshold(W) == 2e-17
    assert join_threshold(sparse.csr_matrix(W)) == 2e-17
    kept = sparsify_to_connected(W).toarray()
    assert kept[0, 3] == 0.0 and kept[0, 2] == 2e-17 and kept[2, 3] == 2e-17


@pytest.mark.parametrize("seed", range(4))
def test_weights_over_twenty_orders_of_magnitude(seed):
    # weights 10^U(-20, 0) (a similarity exp(-d) of far nodes is tiny), or
    # drawn from {1, 1e-17, 2e-17, 3e-17}: both spread below the float
    # spacing of 1 + max(W); on the seeds here the old rule missed.
    rng = np.random.RandomState(seed)
    n_checked = 0
    for trial in range(60):
        n = rng.randint(3, 9)
        mask = np.triu(rng.uniform(size=(n, n)) < 0.5, 1)
        if trial % 2:
            W = rng.choice([1.0, 1e-17, 2e-17, 3e-17], size=(n, n))
        else:
            W = 10.0 ** rng.uniform(-20, 0, size=(n, n))
        W = np.where(mask, W, 0.0)
        W = W + W.T
        t = _brute_force(W)
        assert connected_threshold(W) == t
        assert connected_threshold(sparse.csr_matrix(W)) == t
        assert join_threshold(sparse.csr_matrix(W)) == t
        n_checked += t > 0
    assert n_checked > 30


def test_the_argument_is_left_untouched():
    # a float64 CSR argument with an explicit zero keeps its arrays
    W = sparse.csr_matrix(np.array([[0, 1.0, 0.5], [1.0, 0, 0], [0.5, 0, 0]]))
    W.data[0] = 0.0  # (0, 1) stored as an explicit zero
    before = [a.copy() for a in (W.indptr, W.indices, W.data)]
    assert connected_threshold(W) == 0.5
    for a, b in zip(before, (W.indptr, W.indices, W.data)):
        np.testing.assert_array_equal(a, b)
