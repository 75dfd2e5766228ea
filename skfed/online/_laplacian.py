"""The largest eigenvalue of a graph Laplacian, in time near-linear in the nodes.

The online learners' step bound needs ``lambda_max(L)`` of the
communication graph (:meth:`_ConsensusMixin._resolve_step`).  Lanczos
(``eigsh``) needs a number of iterations that grows with the inverse square
root of the gap under the top of the spectrum; on a ring that gap shrinks
like ``1 / n^2``, so the iterations grow like ``n`` and the cost like
``n^2`` (0.04 CPU s at 1,000 nodes, 3.9 s at 8,000:
``benchmarks/eig36_online_scaling.py``), and the Ritz value it stops at can
be the second eigenvalue of the cluster (a 2,000-node ring once gave
3.9999902 for 4).
The graphs where that happens have closed forms:

* a circulant graph in node order (node ``i`` linked to ``i + s mod n`` for
  the same offsets ``s`` and weights ``c_s`` at every node: the default
  ring lattice ``"k_regular"`` at any degree, ``"ring"``, ``"complete"``)
  has the eigenvalues ``sum_s c_s (1 - cos(2 pi j s / n))``, the
  real part of one FFT of ``c``;
* a connected piece whose edges all have one weight ``w`` and whose nodes
  all have degree 2 is a cycle of ``m`` nodes, top ``4 w sin^2(pi floor(m
  / 2) / m)``; one with ``m - 1`` edges and degree at most 2 is a path, top
  ``4 w cos^2(pi / (2 m))``, whatever the order of its nodes.

The other connected pieces keep the Lanczos estimate (dense below 200
nodes), from a fixed start vector so a fit does not depend on the ARPACK
calls made before it.  The result is the largest over the pieces, raised
by ``1e-6`` relative (the Lanczos estimate is approached from below) and
capped by Gershgorin's ``2 max degree``, which is exact on regular
bipartite graphs.
"""

import numpy as np
from scipy import sparse

# Relative margin over the computed top eigenvalue (and Lanczos' tolerance).
_MARGIN = 1e-6
# Pieces up to this many nodes are solved densely.
_DENSE_NODES = 200


def _circulant_top(A):
    """Top Laplacian eigenvalue of ``A`` if it is circulant in node order, else None."""
    n = A.shape[0]
    counts = np.diff(A.indptr)
    k = int(counts[0])
    if k == 0 or np.any(counts != k):
        return None
    offsets = ((A.indices - np.repeat(np.arange(n), k)) % n).reshape(n, k)
    order = np.argsort(offsets, axis=1, kind="stable")
    offsets = np.take_along_axis(offsets, order, axis=1)
    weights = np.take_along_axis(A.data.reshape(n, k), order, axis=1)
    if np.any(offsets != offsets[0]) or np.any(weights != weights[0]):
        return None
    c = np.zeros(n)
    c[offsets[0]] = weights[0]
    # eigenvalues of L: sum(c) - Re(FFT(c)) (c symmetric: c_s = c_{n - s})
    return float(c.sum() - np.fft.rfft(c).real.min())


def _path_cycle_tops(A, labels, n_pieces):
    """Every piece's top eigenvalue where it is a one-weight path or cycle (NaN elsewhere)."""
    counts = np.diff(A.indptr)
    nodes = np.bincount(labels, minlength=n_pieces)
    edges = np.bincount(labels, weights=counts, minlength=n_pieces) / 2
    max_degree = np.zeros(n_pieces)
    np.maximum.at(max_degree, labels, counts)
    # one weight per piece: the smallest and the largest of its rows' weights agree
    rows = np.repeat(np.arange(A.shape[0]), counts)
    low = np.full(n_pieces, np.inf)
    high = np.full(n_pieces, -np.inf)
    np.minimum.at(low, labels[rows], A.data)
    np.maximum.at(high, labels[rows], A.data)
    one_weight = (low == high) | (nodes == 1)
    w = np.where(np.isfinite(low), low, 0.0)
    m = nodes.astype(np.float64)
    tops = np.full(n_pieces, np.nan)
    cycle = one_weight & (max_degree == 2) & (edges == nodes) & (nodes >= 3)
    path = one_weight & (max_degree <= 2) & (edges == nodes - 1)
    tops[cycle] = 4.0 * w[cycle] * np.sin(np.pi * np.floor(m[cycle] / 2) / m[cycle]) ** 2
    tops[path] = np.where(nodes[path] == 1, 0.0,
                          4.0 * w[path] * np.cos(np.pi / (2.0 * m[path])) ** 2)
    return tops


def _lanczos_top(A):
    """Top Laplacian eigenvalue of a piece: dense when small, else Lanczos from a fixed start."""
    L = sparse.diags(np.asarray(A.sum(axis=1)).ravel()) - A
    if A.shape[0] <= _DENSE_NODES:
        return float(np.linalg.eigvalsh(L.toarray())[-1])
    from scipy.sparse.linalg import eigsh

    v0 = np.random.RandomState(0).uniform(-1.0, 1.0, size=A.shape[0])
    return float(eigsh(L, k=1, which="LA", tol=_MARGIN, v0=v0, return_eigenvectors=False)[0])


def laplacian_lambda_max(adjacency):
    """Largest eigenvalue of the Laplacian ``D - A`` of a symmetric graph.

    Parameters
    ----------
    adjacency : sparse matrix of shape (n_nodes, n_nodes)
        Symmetric, non-negative weights, no self-loops.

    Returns
    -------
    float
        ``min(top (1 + 1e-6), 2 max degree)``, ``top`` the largest
        eigenvalue over the connected pieces (closed forms for circulant
        graphs, paths and cycles; Lanczos elsewhere).  Time ``O(n log n)``
        on the closed forms.
    """
    A = sparse.csr_matrix(adjacency, dtype=np.float64, copy=True)
    A.eliminate_zeros()
    A.sum_duplicates()
    if A.nnz == 0:
        return 0.0
    cap = 2.0 * float(np.asarray(A.sum(axis=1)).max())
    top = _circulant_top(A)
    if top is None:
        n_pieces, labels = sparse.csgraph.connected_components(A, directed=False)
        tops = _path_cycle_tops(A, labels, n_pieces)
        rest = np.flatnonzero(np.isnan(tops)[labels])
        top = float(np.nanmax(tops)) if np.isfinite(tops).any() else 0.0
        if len(rest):
            top = max(top, _lanczos_top(A[rest][:, rest]))
    return min(top * (1.0 + _MARGIN), cap)
