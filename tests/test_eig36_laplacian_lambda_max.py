"""lambda_max of the graph Laplacian past 200 nodes (the online step bound).

:func:`skfed.online._laplacian.laplacian_lambda_max` takes closed forms
(circulant graphs by FFT, one-weight cycles and paths per connected piece)
and Lanczos from a fixed start elsewhere.  Every value is checked against
the dense reference ``numpy.linalg.eigvalsh``: never below it (up to the
reference's own rounding) and at most ``1e-6`` relative above it.
"""

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.linalg import eigsh

from skfed._topology import _topology_csr
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.online._laplacian import (
    _circulant_top,
    _path_cycle_tops,
    laplacian_lambda_max,
)


def _dense_top(A):
    A = sparse.csr_matrix(A, dtype=np.float64).toarray()
    return float(np.linalg.eigvalsh(np.diag(A.sum(axis=1)) - A)[-1])


def _path(n, weight=1.0):
    i = np.arange(n - 1)
    return sparse.csr_matrix(
        (np.full(2 * (n - 1), weight), (np.r_[i, i + 1], np.r_[i + 1, i])), shape=(n, n)
    )


def _permuted(A, seed):
    p = np.random.RandomState(seed).permutation(A.shape[0])
    return sparse.csr_matrix(A)[p][:, p]


def _weighted_random(n, seed):
    upper = sparse.triu(sparse.random(n, n, density=5.0 / n, random_state=seed), k=1)
    return (upper + upper.T).tocsr()


# (graph, which closed form applies: "circulant", "pieces" or None for Lanczos)
GRAPHS = {
    "ring_even": (lambda n: _topology_csr("ring", 2 * (n // 2)), "circulant"),
    "ring_odd": (lambda n: _topology_csr("ring", 2 * (n // 2) + 1), "circulant"),
    "default_k_regular_2": (lambda n: _topology_csr("k_regular", n, {"degree": 2}), "circulant"),
    "k_regular_4": (lambda n: _topology_csr("k_regular", n, {"degree": 4}), "circulant"),
    "k_regular_5": (lambda n: _topology_csr("k_regular", 2 * (n // 2), {"degree": 5}),
                    "circulant"),
    "weighted_ring": (lambda n: _topology_csr("ring", n).astype(np.float64) * 2.5, "circulant"),
    "path": (_path, "pieces"),
    "permuted_ring": (lambda n: _permuted(_topology_csr("ring", n), 1), "pieces"),
    "star": (lambda n: _topology_csr("star", n), None),
    "random_regular": (lambda n: _topology_csr("random_regular", n, random_state=0), None),
    "pieces": (lambda n: sparse.block_diag([
        _topology_csr("ring", n // 2 + 1), _path(n // 3, 1.5),
        _topology_csr("random_regular", 50, random_state=1), sparse.csr_matrix((3, 3)),
    ]).tocsr(), "pieces"),
    "weighted_random": (lambda n: _weighted_random(n, n), None),
}


@pytest.mark.parametrize("n", [201, 333, 1001])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_top_is_an_upper_bound_within_1e6_of_the_dense_eigenvalue(name, n):
    make, form = GRAPHS[name]
    A = make(n)
    exact = _dense_top(A)
    value = laplacian_lambda_max(A)
    # never below (eigvalsh's own rounding is ~1e-15 relative), at most 1e-6 above
    assert value >= exact * (1 - 1e-13)
    assert value <= exact * (1 + 1e-6) + 1e-12
    # never above Gershgorin's 2 max degree
    assert value <= 2 * np.asarray(sparse.csr_matrix(A).sum(axis=1)).max()
    # the route taken: circulant graphs in node order by FFT (exact to rounding)
    A = sparse.csr_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    circulant = _circulant_top(A)
    if form == "circulant":
        assert circulant == pytest.approx(exact, rel=1e-12)
    else:
        assert circulant is None
    n_pieces, labels = sparse.csgraph.connected_components(A, directed=False)
    tops = _path_cycle_tops(A, labels, n_pieces)
    if form == "pieces":
        # every path / cycle piece equals its own dense top eigenvalue
        for piece in np.flatnonzero(np.isfinite(tops)):
            members = np.flatnonzero(labels == piece)
            reference = _dense_top(A[members][:, members]) if len(members) > 1 else 0.0
            assert tops[piece] == pytest.approx(reference, rel=1e-12, abs=1e-12)
        assert np.isfinite(tops).any()
    elif form is None:
        # the Lanczos route: some piece (the big one) has no closed form
        assert np.isnan(tops[np.bincount(labels).argmax()])


def test_even_ring_is_exactly_gershgorin_and_odd_ring_closed_form():
    # even cycle: bipartite 2-regular, top = 4 exactly; odd: 2 + 2 cos(pi / n)
    assert laplacian_lambda_max(_topology_csr("ring", 4000)) == 4.0
    for n in (1001, 4001):
        closed = 2 + 2 * np.cos(np.pi / n)
        # past ~1,600 nodes the 1e-6 margin crosses Gershgorin's 4, which caps it
        expected = min(closed * (1 + 1e-6), 4.0)
        assert (expected < 4.0) == (n == 1001)
        assert laplacian_lambda_max(_topology_csr("ring", n)) == pytest.approx(
            expected, rel=1e-13)


def test_lanczos_route_does_not_depend_on_earlier_arpack_calls():
    # The fallback starts from a fixed vector: the value is the same whatever
    # ARPACK ran before (its own random start carries state across calls).
    A = _weighted_random(600, 3)
    first = laplacian_lambda_max(A)
    L = sparse.diags(np.asarray(A.sum(axis=1)).ravel()) - A
    eigsh(L, k=1, which="LA", tol=1e-6, return_eigenvectors=False)
    assert laplacian_lambda_max(A) == first


def test_empty_and_isolated_graphs():
    assert laplacian_lambda_max(sparse.csr_matrix((300, 300))) == 0.0
    # explicit zero weights are no edges
    A = _topology_csr("ring", 300).astype(np.float64)
    A.data[:] = 0.0
    assert laplacian_lambda_max(A) == 0.0


def _blobs(n_nodes, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(6 * n_nodes, 3))
    return X, (X[:, 0] > 0).astype(int), np.repeat(np.arange(n_nodes), 6)


@pytest.mark.parametrize("n_nodes", [150, 251])
def test_fit_step_bound_uses_the_exact_lambda_max(n_nodes):
    X, y, groups = _blobs(n_nodes)
    est = DecentralizedKernelSGDClassifier(
        consensus_penalty=1.0, kernel="rbf", max_epochs=1, random_state=0
    ).fit(X, y, groups=groups)
    exact = _dense_top(est.adjacency_)
    # the default topology: the ring (circulant; odd n_nodes has top < 4)
    assert np.all(np.diff(est.adjacency_.indptr) == 2)
    if n_nodes <= 200:
        assert est._lambda_max == exact  # dense, unchanged
    else:
        assert exact < 4.0
        assert exact * (1 - 1e-13) <= est._lambda_max <= exact * (1 + 1e-6)
    # eta0="auto": 1 / (alpha + K (s_max + c lambda_max)), K = 1 for rbf, s_max = 1
    assert est.eta0_ == pytest.approx(
        1.0 / (est.alpha + 1.0 * (1.0 + 1.0 * est._lambda_max)), rel=1e-12)
