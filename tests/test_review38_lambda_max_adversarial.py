"""review38: lambda_max(L) past 200 nodes on graphs built to mislead its routes.

``skfed.online._laplacian.laplacian_lambda_max`` recognizes circulant graphs
in node order, one-weight paths and cycles, and runs Lanczos elsewhere.
Each case here is checked against a reference that does not use those
routes: the eigenvalues of a circulant graph as ``sum_s c_s (1 - cos(2 pi j
s / n))`` summed directly, the top of a weighted path by SciPy's
tridiagonal solver, the dense ``eigvalsh`` of the Laplacian.  The value
must be an upper bound (up to the reference's rounding) and at most
``1e-6`` relative above it, or Gershgorin's ``2 max degree`` when that is
smaller.  Found no defect (review38); the cases stay as regression tests:
relabeled ring lattices go to Lanczos, whose top cluster is tight (its
Ritz value came within 1.3e-7 of the 1e-6 margin at 8,000 nodes), paths of
nearly one weight go to Lanczos and are capped by Gershgorin.
"""

import numpy as np
import pytest
from scipy import sparse
from scipy.linalg import eigvalsh_tridiagonal

from skfed._topology import _topology_csr
from skfed.online._laplacian import laplacian_lambda_max


def _circulant_reference(n, offsets, weight=1.0):
    """Top Laplacian eigenvalue of the circulant graph of ``offsets`` (both
    directions), summed over the offsets directly."""
    j = np.arange(n)[:, None]
    s = np.asarray(offsets)[None, :]
    return float(np.max(2 * weight * np.sum(1 - np.cos(2 * np.pi * j * s / n), axis=1)))


def _check(value, exact, A):
    cap = 2 * float(np.asarray(sparse.csr_matrix(A).sum(axis=1)).max())
    assert value >= exact * (1 - 1e-13)
    assert value <= min(exact * (1 + 1e-6), cap) * (1 + 1e-13)


@pytest.mark.parametrize("n, degree, seed", [(1000, 4, 0), (3000, 4, 1), (2001, 6, 2)])
def test_relabeled_ring_lattice(n, degree, seed):
    A = _topology_csr("k_regular", n, {"degree": degree}).astype(np.float64)
    p = np.random.RandomState(seed).permutation(n)
    exact = _circulant_reference(n, np.arange(1, degree // 2 + 1))
    _check(laplacian_lambda_max(sparse.csr_matrix(A)[p][:, p]), exact, A)


@pytest.mark.parametrize("n", [400, 1001])
def test_disconnected_circulants(n):
    # i -- i + n/2 (a perfect matching): circulant, n/2 components, top 2 w
    half = n // 2
    i = np.arange(half)
    A = sparse.csr_matrix((np.full(2 * half, 1.5), (np.r_[i, i + half], np.r_[i + half, i])),
                          shape=(2 * half, 2 * half))
    _check(laplacian_lambda_max(A), 3.0, A)
    # offset 2 alone (two interleaved cycles on an even n), and the ring plus it
    m = 2 * half
    B = _topology_csr("ring", m).astype(np.float64)
    rows = np.arange(m)
    C = sparse.csr_matrix((np.ones(2 * m), (np.r_[rows, rows], np.r_[(rows + 2) % m,
                                                                     (rows - 2) % m])),
                          shape=(m, m))
    _check(laplacian_lambda_max(C), _circulant_reference(m, [2]), C)
    _check(laplacian_lambda_max(B + C), _circulant_reference(m, [1, 2]), B + C)


@pytest.mark.parametrize("n, weak, where", [(801, 0.5, "end"), (1300, 0.9, "middle"),
                                            (2000, 0.99, "end"), (2000, 1.0 + 1e-7, "many")])
def test_paths_of_nearly_one_weight(n, weak, where):
    w = np.ones(n - 1)
    if where == "end":
        w[0] = weak
    elif where == "middle":
        w[n // 2] = weak
    else:
        w[::2] = weak
    i = np.arange(n - 1)
    A = sparse.csr_matrix((np.r_[w, w], (np.r_[i, i + 1], np.r_[i + 1, i])), shape=(n, n))
    d = np.zeros(n)
    d[:-1] += w
    d[1:] += w
    exact = eigvalsh_tridiagonal(d, -w, select="i", select_range=(n - 1, n - 1))[0]
    _check(laplacian_lambda_max(A), exact, A)


def test_ring_with_a_chord_and_a_pendant_against_dense():
    n = 600
    R = _topology_csr("ring", n).astype(np.float64).tolil()
    R[0, n // 2] = R[n // 2, 0] = 1.0
    A = sparse.lil_matrix((n + 1, n + 1))
    A[:n, :n] = R
    A[3, n] = A[n, 3] = 1.0
    A = A.tocsr()
    dense = A.toarray()
    exact = float(np.linalg.eigvalsh(np.diag(dense.sum(axis=1)) - dense)[-1])
    _check(laplacian_lambda_max(A), exact, A)
