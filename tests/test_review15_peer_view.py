"""review15: Dada's ``peer_view`` on an explicit topology with a hub.

The view on an explicit topology keeps each link when both its ends still
have fewer than ``size`` kept links.  On a topology where a node has more
than ``size`` links whose other ends have no other link (``"star"``), the
hub's first ``size`` links filled it and every other spoke kept no view
peer: its graph steps sampled nobody and it ended the fit with no
collaborator, silently (a star of 210 nodes at the default
``peer_view="auto"``, 200: 9 nodes alone).  A node left without a view
peer now keeps its first link over the other end's bound.
"""

import warnings

import numpy as np
from scipy import sparse

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._dada_view import peer_view
from skfed.network import SimulatedNetwork


def _star(K):
    A = np.zeros((K, K))
    A[0, 1:] = A[1:, 0] = 1
    return A


def test_star_view_keeps_every_spoke_linked_to_the_hub():
    # the view itself: the greedy pass gives the hub `size` spokes and leaves
    # the other K - 1 - size without a view peer; each of them then keeps its
    # only link, over the hub's bound (closed form: the whole star)
    K, size = 40, 10
    indptr, indices = peer_view(K, size, [1, 2], sparse.csr_matrix(_star(K)))
    degree = np.diff(indptr)
    assert degree[0] == K - 1
    assert np.all(degree[1:] == 1) and np.all(indices[indptr[1]:] == 0)


def test_view_on_a_topology_bounds_degrees_but_strands_no_node():
    # a random topology with two hubs: every node with a link keeps a view
    # peer; a node above `size` only through links of nodes left otherwise
    # alone; every view link is a topology link
    rng = np.random.default_rng(0)
    K, size = 120, 6
    A = (rng.random((K, K)) < 0.04).astype(float)
    A[0, :] = A[1, :] = 1.0
    A = np.triu(A, 1)
    A = A + A.T
    indptr, indices = peer_view(K, size, [3, 4], sparse.csr_matrix(A))
    degree = np.diff(indptr)
    linked = A.sum(axis=1) > 0
    assert np.all(degree[linked] >= 1)
    rows = np.repeat(np.arange(K), degree)
    assert np.all(A[rows, indices] == 1)
    for k in np.flatnonzero(degree > size):
        peers = indices[indptr[k]:indptr[k + 1]]
        # beyond `size`, every extra peer is a node whose only view peer is k
        extra = [p for p in peers if degree[p] == 1]
        assert degree[k] - len(extra) <= size


def _fit(K, **params):
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(K), 6)
    X = rng.normal(size=(len(groups), 2))
    y = (X[:, 0] > 0).astype(int)
    return DecentralizedBoostingClassifier(
        n_estimators=6, max_iter=3000, random_state=0,
        network=SimulatedNetwork(topology="star"), **params).fit(X, y, groups=groups)


def test_default_view_leaves_no_node_of_the_topology_alone_silently():
    without = _fit(210, peer_view=None)
    alone_without = np.asarray(without.collaboration_graph_.sum(axis=1)).ravel() == 0
    assert not alone_without.any()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = _fit(210)
    assert clf.peer_view_ == 200
    alone = np.asarray(clf.collaboration_graph_.sum(axis=1)).ravel() == 0
    warned = any("peer_view" in str(w.message) for w in caught)
    assert warned or not alone.any(), f"{int(alone.sum())} nodes left alone, no warning"
