"""scatter32: the rogue bound of the pooled scatter (skfed._mean_scatter)
with nodes of a few rows.

A node of ``m`` rows sends a scatter of rank ``m - 1`` at most whose size
against the median scatter is a chi-square-like draw of ``m - 1`` degrees of
freedom: with the median node at 2-3 rows, honest sizes reach 5-30 times
the median (``benchmarks/new_nodes_maha_small_nodes.py``), over the fixed
limit of 4.  When the median mass the hub holds is at most ``FEW_ROWS``
the limit widens to ``min(WIDEST, exp(SPREAD * s))`` times the median,
``s`` the spread of the log sizes (normalized median absolute deviation).
References: NumPy sums of the honest scatters, and a NumPy version of the
sizes and the limit for the bound ``P <= H + q c M`` in the Loewner order.
"""

import numpy as np
import pytest

from skfed import _mean_scatter as ms
from skfed._mean_scatter import pool_scatters


def _scatter(X):
    C = X - X.mean(axis=0)
    return C.T @ C


def _federation(seed, n, rows, d, corr=False):
    rng = np.random.RandomState(seed)
    A = rng.normal(size=(d, d)) if corr else np.eye(d)
    counts = np.array([rows[k % len(rows)] for k in range(n)])
    iu = np.triu_indices(d)
    tri = np.array([_scatter(rng.normal(size=(c, d)) @ A + 3 * rng.normal(size=d))[iu]
                    for c in counts])
    return tri, counts.astype(float)


def _reference_limit(tri, d, masses):
    """NumPy: the median scatter, its floored inverse root, every node's
    largest whitened eigenvalue, and the limit of the module's docstring."""
    iu = np.triu_indices(d)
    full = np.zeros((len(tri), d, d))
    full[:, iu[0], iu[1]] = tri
    full[:, iu[1], iu[0]] = tri
    finite = np.isfinite(tri).all(axis=1)
    counted = finite & (tri != 0).any(axis=1)
    M = np.median(full[counted], axis=0)
    lam, V = np.linalg.eigh(M)
    lam = np.maximum(lam, ms.FLOOR * lam.max())
    M_floor = (V * lam) @ V.T
    root = V / np.sqrt(lam)
    sizes = np.array([np.abs(np.linalg.eigvalsh(root.T @ S @ root)).max() if ok else np.inf
                      for S, ok in zip(full, finite)])
    r = sizes[counted]
    if np.median(masses[counted]) <= ms.FEW_ROWS:
        logs = np.log(r)
        s = 1.4826 * np.median(np.abs(logs - np.median(logs)))
        limit = np.median(r) * min(ms.WIDEST, max(ms.CAP, np.exp(ms.SPREAD * s)))
    else:
        limit = ms.CAP * np.median(r)
    return sizes, limit, M_floor


FAMILIES = [(30, (2,), 1, False), (30, (2, 3, 3), 3, False), (100, (2, 3, 3), 3, True),
            (100, (1, 2, 3), 2, True), (30, (2, 2, 2, 2, 20), 9, False),
            (100, (3,), 32, True), (300, (2,), 1, True), (30, (5,), 2, False)]


@pytest.mark.parametrize("n, rows, d, corr", FAMILIES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_honest_small_nodes_pool_is_the_plain_sum(n, rows, d, corr, seed):
    tri, masses = _federation(seed, n, rows, d, corr)
    pooled, factors = pool_scatters(tri, d, masses=masses)
    assert factors.tolist() == [1.0] * n
    iu = np.triu_indices(d)
    np.testing.assert_array_equal(pooled[iu], tri.sum(axis=0))
    # the fixed limit (before scatter32) left some of them out here
    sizes, limit, _ = _reference_limit(tri, d, masses)
    assert sizes[np.isfinite(sizes)].max() <= limit


def test_without_masses_or_with_many_rows_the_limit_is_cap_times_the_median():
    tri, masses = _federation(0, 30, (2,), 2)
    sizes = ms.node_sizes(tri, 2)
    counted = np.isfinite(sizes) & (tri != 0).any(axis=1)
    fixed = ms.CAP * np.median(sizes[counted])
    assert ms.size_limit(sizes, counted) == fixed
    assert ms.size_limit(sizes, counted, masses=masses * 11) == fixed
    assert ms.size_limit(sizes, counted, masses=masses) > fixed
    # without masses the fixed limit leaves honest 2-row nodes out (review29)
    assert pool_scatters(tri, 2)[1].min() == 0.0
    assert pool_scatters(tri, 2, masses=masses)[1].min() == 1.0


def _attacks(tri, d, q, rng):
    iu = np.triu_indices(d)
    full = np.zeros((len(tri), d, d))
    full[:, iu[0], iu[1]] = tri
    full[:, iu[1], iu[0]] = tri
    diag = np.einsum("nii->n", full)
    big = 1e6 * np.median(diag[diag > 0])
    weakest = np.linalg.eigh(full.sum(axis=0))[1][:, 0]
    e0 = np.eye(d)[0]
    R = np.linalg.qr(rng.normal(size=(d, d)))[0]
    rogue = np.arange(1, 1 + q)
    scale = np.sqrt(np.mean(tri[rogue] ** 2, axis=1))[:, None]
    rows = {
        "huge along e0": np.tile((big * np.outer(e0, e0))[iu], (q, 1)),
        "huge along the weakest direction": np.tile((big * np.outer(weakest, weakest))[iu],
                                                    (q, 1)),
        "negated": -1e6 * tri[rogue],
        "rotated": np.einsum("ij,njk,lk->nil", R, full[rogue], R)[:, iu[0], iu[1]],
        "nan": np.full((q, len(iu[0])), np.nan),
        "complement": -tri[rogue],
        "random": rng.normal(size=tri[rogue].shape) * scale,
        "tiny and huge": np.vstack([1e-9 * tri[rogue[: q // 2]],
                                    np.tile((big * np.outer(e0, e0))[iu], (q - q // 2, 1))]),
    }
    for name, bad in rows.items():
        t = tri.copy()
        t[rogue] = bad
        yield name, t, rogue


@pytest.mark.parametrize("n, rows, d, corr", FAMILIES)
def test_rogue_small_nodes_stay_within_the_bound(n, rows, d, corr):
    # q rogue nodes of n (fewer than half) sending each attack; the pool P
    # lies between H - h and H + q c M (H the honest sum, h the honest
    # nodes left out, c M the limit times the floored median scatter)
    rng = np.random.RandomState(5)
    tri, masses = _federation(7, n, rows, d, corr)
    q = max(2, n // 10)
    iu = np.triu_indices(d)
    for name, t, rogue in _attacks(tri, d, q, rng):
        pooled, factors = pool_scatters(t, d, masses=masses)
        kept_tri = ms.positive_parts(t, d)
        sizes, limit, M = _reference_limit(kept_tri, d, masses)
        honest = np.setdiff1d(np.arange(n), rogue)
        np.testing.assert_array_equal(factors, (sizes <= limit).astype(float), err_msg=name)
        H = np.zeros((d, d))
        H[iu] = tri[honest].sum(axis=0)
        H = H + np.triu(H, 1).T
        left = honest[factors[honest] == 0]
        h = np.zeros((d, d))
        h[iu] = tri[left].sum(axis=0)
        h = h + np.triu(h, 1).T
        scale = np.abs(H).max()
        upper = np.linalg.eigvalsh(H + q * limit * M - pooled).min()
        lower = np.linalg.eigvalsh(pooled - (H - h)).min()
        assert upper >= -1e-9 * (scale + q * limit * np.abs(M).max()), name
        assert lower >= -1e-9 * scale, name
        assert np.isfinite(pooled).all(), name


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_persolin_honest_small_nodes_pool_is_the_plain_sum(monkeypatch, seed):
    # review29's federation (30 nodes of 2-3 rows, correlated features) on
    # six seeds: the hub takes every scatter, the pool is the NumPy sum
    from skfed.boosting import PersonalizedLinearClassifier

    from .test_review29_scatter_small_nodes import small_nodes

    seen = []
    original = ms.pool_scatters

    def spy(tri, d, cap=ms.CAP, masses=None):
        out = original(tri, d, cap, masses)
        seen.append((np.array(tri), None if masses is None else np.array(masses), out))
        return out

    monkeypatch.setattr(ms, "pool_scatters", spy)
    X, y, g = small_nodes(seed)
    clf = PersonalizedLinearClassifier(random_state=0).fit(
        np.vstack(X), np.concatenate(y), groups=np.concatenate(g))
    if clf.newcomer_rule_ != "features":
        pytest.skip("gate closed on this seed: no scatter round")
    assert len(seen) == 1
    tri, masses, (pooled, factors) = seen[0]
    assert masses.tolist() == [3.0 if k % 3 == 0 else 2.0 for k in range(30)]
    assert factors.tolist() == [1.0] * 30
    expected = sum(_scatter(x) for x in X)
    np.testing.assert_allclose(pooled, expected, rtol=1e-12, atol=1e-12)


def test_dada_gate_passes_its_masses_to_the_pool(monkeypatch):
    # Dada's one-class join: the hub sizes the scatters with the masses it
    # received in the gate's step 1 (rows here: unit weights)
    from .test_dada27_whitened_join import _fit, correlated_terrains

    seen = []
    original = ms.pool_scatters

    def spy(tri, d, cap=ms.CAP, masses=None):
        seen.append(None if masses is None else np.array(masses))
        return original(tri, d, cap, masses)

    monkeypatch.setattr(ms, "pool_scatters", spy)
    X, y, g = correlated_terrains()
    clf = _fit(X, y, g)
    assert len(seen) == 1 and seen[0] is not None
    rows = np.array([np.sum(g == k) for k in clf.nodes_], dtype=float)
    np.testing.assert_array_equal(seen[0], rows)
