"""xfail37: the hub's check along each node's own directions
(``skfed._mean_scatter.direction_factors``), against a NumPy loop.

Reference: per node, the eigenvectors of its scaled, mass-normalized
scatter, the median share of the reference nodes along each, the largest
ratio, then ``DIRECTION_CAP`` times the median ratio as the limit; the
capped rogue's share along its own direction in closed form; bit-for-bit
factors under power-of-two units.
"""

import numpy as np
import pytest

from skfed import _mean_scatter as ms


def _nodes(seed, n=30, d=4, rows=10):
    rng = np.random.RandomState(seed)
    A = rng.normal(size=(d, d))
    full = []
    for _ in range(n):
        x = rng.normal(size=(rows, d)) @ A
        x -= x.mean(axis=0)
        full.append(x.T @ x)
    return np.array(full), np.full(n, float(rows))


def _tri(full):
    iu = np.triu_indices(full.shape[1])
    return full[:, iu[0], iu[1]]


def _numpy_factors(full, masses, cap=ms.DIRECTION_CAP, ref=None):
    """The check in plain loops (every node kept; medians over ``ref``,
    default all)."""
    n, d = full.shape[:2]
    ref = np.arange(n) if ref is None else ref
    diag = sum(np.diag(S) for S in full)
    D = np.diag(1 / np.sqrt(diag))
    A = [D @ S @ D / m for S, m in zip(full, masses)]
    floor = ms.FLOOR * np.median([np.trace(A[k]) for k in ref])
    worst = []
    for a in A:
        lam, V = np.linalg.eigh(a)
        ratios = [lam[j] / max(np.median([V[:, j] @ A[k] @ V[:, j] for k in ref]), floor)
                  for j in range(d) if lam[j] > 0]
        worst.append(max(ratios))
    worst = np.array(worst)
    limit = cap * np.median(worst)
    return np.where(worst > limit, limit / worst, 1.0), limit, A


def _attacked(seed, q, t=1e4):
    full, masses = _nodes(seed)
    rng = np.random.RandomState(50 + seed)
    u = rng.normal(size=full.shape[1])
    u /= np.linalg.norm(u)
    bad = full.copy()
    bad[1:1 + q] = t * np.trace(np.median(full, axis=0)) * np.outer(u, u)
    return bad, masses, u


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("q", [0, 2, 4])
def test_factors_match_numpy(seed, q):
    bad, masses, _ = _attacked(seed, q)
    expected, _, _ = _numpy_factors(bad, masses)
    got = ms.direction_factors(_tri(bad), bad.shape[1], np.ones(len(bad), bool), masses)
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    if q:   # the rogues are scaled down, far below 1
        assert got[1:1 + q].max() < 0.1
    assert np.sum(got[1 + q:] < 1) <= 1       # honest nodes (nearly) whole


def test_capped_rogue_share_in_closed_form():
    # after the check a rogue's share along its own direction, per unit of
    # mass, is the limit times the median share there (scaled coordinates)
    bad, masses, u = _attacked(0, 2)
    _, limit, A = _numpy_factors(bad, masses)
    got = ms.direction_factors(_tri(bad), bad.shape[1], np.ones(len(bad), bool), masses)
    lam, V = np.linalg.eigh(A[1])
    e = V[:, -1]
    median = np.median([e @ b @ e for b in A])
    np.testing.assert_allclose(got[1] * lam[-1], limit * median, rtol=1e-9)
    # ... and the pool along u stays within a few honest sums
    pooled = ms.pool_scatters(_tri(bad), bad.shape[1], masses=masses)[0]
    H = bad[3:].sum(axis=0) + bad[0]
    assert u @ pooled @ u < 2 * (u @ H @ u)
    assert (u @ bad.sum(axis=0) @ u) > 100 * (u @ H @ u)     # (the plain sum)


def test_factors_are_unit_free_to_the_bit():
    bad, masses, _ = _attacked(1, 3)
    units = 2.0 ** np.array([-20, 0, 7, 33])
    scaled = bad * units[None, :, None] * units[None, None, :]
    kept = np.ones(len(bad), bool)
    np.testing.assert_array_equal(ms.direction_factors(_tri(scaled), 4, kept, masses),
                                  ms.direction_factors(_tri(bad), 4, kept, masses))


def test_where_the_check_does_not_run():
    bad, masses, _ = _attacked(2, 3)
    kept = np.ones(len(bad), bool)
    assert (ms.direction_factors(_tri(bad), 4, kept, None) == 1.0).all()     # no masses
    assert (ms.direction_factors(_tri(bad), 4, kept, np.full(30, 3.0)) == 1.0).all()  # 3 rows
    one = bad[:, :1, :1]
    assert (ms.direction_factors(_tri(one), 1, kept, masses) == 1.0).all()   # one feature
    # a node left out by the size limit is not counted, and keeps factor 1 here
    # (pool_scatters multiplies: it stays 0 there)
    kept[5] = False
    f = ms.direction_factors(_tri(bad), 4, kept, masses)
    assert f[5] == 1.0 and f[1:4].max() < 0.1


def test_reference_nodes_are_a_sample_past_direction_sample():
    # 100 nodes, 10 rogues: the medians are over 64 evenly spaced nodes
    # (the check's cost stays linear in the nodes)
    full, masses = _nodes(3, n=100)
    rng = np.random.RandomState(7)
    u = rng.normal(size=4)
    full[::10] = 1e4 * np.trace(np.median(full, axis=0)) * np.outer(u, u) / (u @ u)
    masses = np.full(100, 10.0)
    ref = np.unique(np.linspace(0, 99, ms.DIRECTION_SAMPLE).astype(np.intp))
    assert len(ref) == ms.DIRECTION_SAMPLE
    expected = _numpy_factors(full, masses, ref=ref)[0]
    got = ms.direction_factors(_tri(full), 4, np.ones(100, bool), masses)
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    assert got[::10].max() < 0.1
    # (all 100 as the reference: other medians, other factors)
    assert not np.allclose(_numpy_factors(full, masses)[0], expected, rtol=1e-6)
