"""A relabelling that reorders the nodes (defects14, item 2).

nodes.rst ("Sample layout and seeds"): node ids matter only through their
sorted order, which hands out the per-node seeds and, for the named
topologies (the online learner's default ring included), the places in the
graph.  These tests check that nothing else follows the order: fits that
draw no per-node randomness are the same fit under a reordering relabelling
(to round-off), and the online learner is too once its two order-bound
inputs (sample shuffling and the ring) are taken away; with the default
ring, the graph is laid over the new sorted order, not permuted with the
labels.
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfed import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    FederatedMultiTaskRegressor,
    FederatedSparseLinearRegression,
    LocalEstimator,
    SimulatedNetwork,
)

M = 8
MOVE = np.array([5, 2, 7, 0, 3, 6, 1, 4])   # node k gets label MOVE[k]


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    ids = np.repeat(np.arange(M), 40)
    X = rng.normal(size=(M * 40, 4))
    W = 1 + 0.5 * rng.normal(size=(M, 4))
    score = (X * W[ids]).sum(1)
    y = (score + 0.5 * rng.normal(size=len(ids)) > 0).astype(int)
    t = score + 0.3 * rng.normal(size=len(ids))
    return X, y, t, ids


def _both(make, X, target, ids, method):
    plain = make().fit(X, target, groups=ids)
    moved = make().fit(X, target, groups=MOVE[ids])
    return (getattr(plain, method)(X, groups=ids),
            getattr(moved, method)(X, groups=MOVE[ids]), plain, moved)


@pytest.mark.parametrize("make, regression, method", [
    (lambda: FederatedMultiTaskRegressor(random_state=0), True, "predict"),
    (lambda: FederatedSparseLinearRegression(random_state=0), True, "predict"),
    (lambda: LocalEstimator(LogisticRegression()), False, "decision_function"),
])
@pytest.mark.filterwarnings("ignore:4 of the 4 features are significant")
def test_fits_without_per_node_draws_are_the_same_fit(make, regression, method, data):
    X, y, t, ids = data
    a, b, plain, moved = _both(make, X, t if regression else y, ids, method)
    assert np.ptp(a) > 1.0   # (not a constant prediction)
    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("Est, regression", [
    (DecentralizedKernelSGDClassifier, False), (DecentralizedKernelSGDRegressor, True)])
def test_online_learner_without_shuffle_and_ring_is_the_same_fit(Est, regression, data):
    X, y, t, ids = data

    def make():
        return Est(random_state=0, shuffle=False, network=SimulatedNetwork("complete"))

    a, b, plain, moved = _both(make, X, t if regression else y, ids, "decision_function"
                               if not regression else "predict")
    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10)
    # with the default ring (and shuffling) the same relabelling moves the fit
    a2, b2, ring, ring_moved = _both(lambda: Est(random_state=0), X, t if regression else y,
                                     ids, "decision_function" if not regression else "predict")
    assert np.abs(b2 - a2).max() > 1e-3


def test_default_ring_is_laid_over_the_sorted_labels(data):
    X, y, t, ids = data
    plain = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=ids)
    moved = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=MOVE[ids])
    ring = np.zeros((M, M))
    for k in range(M):
        ring[k, (k + 1) % M] = ring[(k + 1) % M, k] = 1
    # both graphs are the ring over nodes_ (sorted), so node k's neighbours
    # are other nodes after the relabelling
    for est in (plain, moved):
        np.testing.assert_array_equal(np.asarray(est.adjacency_.todense()) != 0, ring != 0)
    neighbours = {int(MOVE[k]): {int(MOVE[j]) for j in np.flatnonzero(ring[k])} for k in range(M)}
    moved_neighbours = {int(moved.nodes_[k]): {int(moved.nodes_[j]) for j in np.flatnonzero(ring[k])}
                        for k in range(M)}
    assert neighbours != moved_neighbours
