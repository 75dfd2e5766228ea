"""scatter34: rogue scatters along the top direction of the node means' spread.

rogue34 found the attack the hub's size limit (:mod:`skfed._mean_scatter`)
does not bound: ``q`` rogue nodes send ``t u u^T``, ``u`` the top direction
of the fitted node means' spread, ``t`` the largest the hub keeps.  The
pool then grows along the very direction that tells nodes apart, and
Dada's one-class newcomers lose up to 30 points on Landmine cut to 10 rows
(``benchmarks/rogue34_scatter_placement.py``).  scatter34 measured a share
limit along the pool's top direction (``benchmarks/scatter34_direction.py``):
it cuts that loss (-27.8 -> -2.9 on seeds 3-5, 10 %) but leaves out 3-9 of
23 honest Landmine nodes of 10 rows (their shares there reach 5-20 times
the median) and still costs -15.6 at 3 features with 20 % rogues, so it
was not adopted.

References: the pool against a NumPy sum, the inflation against its closed
form ``1 + q t u^T H^-1 u``, the honest shares along the pool's top
direction in NumPy.
"""

import numpy as np
import pytest

from skfed import _mean_scatter as ms
from skfed.datasets import load_landmine


@pytest.fixture(scope="module")
def landmine10():
    """Landmine's 29 nodes cut to their first 10 rows: scatters, means."""
    X, _, g = load_landmine(return_X_y=True)
    rows = [np.flatnonzero(g == k)[:10] for k in np.unique(g)]
    means = np.array([X[r].mean(axis=0) for r in rows])
    full = np.array([(X[r] - m).T @ (X[r] - m) for r, m in zip(rows, means)])
    return full, means, np.full(len(rows), 10.0)


def _tri(full):
    iu = np.triu_indices(full.shape[1])
    return full[:, iu[0], iu[1]]


def _strongest_top(full, means, masses, q):
    """The largest ``t u u^T`` (``t = 1e6 max |S| x 0.9^j``) the hub keeps
    from nodes ``1..q``; the attacked scatters, ``t`` and ``u``."""
    C = means - means.mean(axis=0)
    u = np.linalg.eigh(C.T @ C)[1][:, -1]
    rogue = np.arange(1, 1 + q)
    t = 1e6 * np.abs(full).max()
    while True:
        bad = full.copy()
        bad[rogue] = t * np.outer(u, u)
        if ms.pool_scatters(_tri(bad), full.shape[1], masses=masses)[1][rogue].all():
            return bad, t, u
        t *= 0.9


def _size_limit_only(monkeypatch):
    """The size limit's stage alone (xfail37's check along each node's own
    directions after it, ``direction_factors``, off)."""
    monkeypatch.setattr(ms, "direction_factors",
                        lambda tri, d, kept, masses=None, cap=None: np.ones(len(tri)))


@pytest.mark.parametrize("q", [3, 6])
def test_top_attack_is_what_the_hub_sums(landmine10, q, monkeypatch):
    _size_limit_only(monkeypatch)
    full, means, masses = landmine10
    n, d = full.shape[:2]
    bad, t, u = _strongest_top(full, means, masses, q)
    pooled, factors = ms.pool_scatters(_tri(bad), d, masses=masses)
    assert factors.tolist() == [1.0] * n              # every node kept, rogues too
    np.testing.assert_allclose(pooled, bad.sum(axis=0), rtol=1e-12,
                               atol=1e-12 * np.abs(bad).max())
    # ... and 1 / 0.9 more is left out: the attack is the strongest kept
    over = full.copy()
    over[1:1 + q] = (t / 0.9) * np.outer(u, u)
    assert ms.pool_scatters(_tri(over), d, masses=masses)[1][1:1 + q].max() == 0.0
    honest = np.setdiff1d(np.arange(n), np.arange(1, 1 + q))
    H = full[honest].sum(axis=0)
    Li = np.linalg.inv(np.linalg.cholesky(H))
    inflation = np.linalg.eigvalsh(Li @ pooled @ Li.T).max()
    closed = 1 + q * t * u @ np.linalg.solve(H, u)
    np.testing.assert_allclose(inflation, closed, rtol=1e-8)
    assert inflation > 100                            # measured 647 (q=3), 2190 (q=6)


def test_honest_landmine_pools_are_the_plain_sum(landmine10):
    # what a fix must keep: every honest Landmine node (all rows, and cut to
    # 10) in the pool, which is then the plain sum to the bit
    full, means, masses = landmine10
    d = full.shape[1]
    pooled, factors = ms.pool_scatters(_tri(full), d, masses=masses)
    assert factors.tolist() == [1.0] * len(full)
    np.testing.assert_array_equal(pooled[np.triu_indices(d)], _tri(full).sum(axis=0))
    X, _, g = load_landmine(return_X_y=True)
    nodes = np.unique(g)
    offsets = np.concatenate([[0], np.cumsum([np.sum(g == k) for k in nodes])])
    order = np.argsort(g, kind="stable")
    Xs = X[order]
    m_all = np.array([Xs[offsets[i]:offsets[i + 1]].mean(axis=0) for i in range(len(nodes))])
    tri = _tri(ms.node_scatters(Xs, np.ones(len(Xs)), offsets, m_all))
    assert ms.pool_scatters(tri, d, masses=np.diff(offsets).astype(float))[1].min() == 1.0


def test_honest_shares_along_the_top_direction_reach_the_attack(landmine10):
    # why a direction-wise limit does not separate: whitened by the pool and
    # then by the coordinate-wise median scatter (NumPy), honest nodes'
    # shares along the pool's top direction reach 11-16 times their median
    # (4 of 29 nodes; measured 15.6 at most); a limit under that leaves
    # honest nodes out, one over it keeps the attack's rogues
    full = landmine10[0]
    lam, V = np.linalg.eigh(full.sum(axis=0))
    Wp = V / np.sqrt(lam)
    A = np.einsum("ji,njk,kl->nil", Wp, full, Wp)
    mu, U = np.linalg.eigh(np.median(A, axis=0))
    Wm = U / np.sqrt(mu)
    A = np.einsum("ji,njk,kl->nil", Wm, A, Wm)
    v = np.linalg.eigh(A.sum(axis=0))[1][:, -1]
    shares = np.einsum("i,nij,j->n", v, A, v)
    assert shares.min() > 0
    assert shares.max() / np.median(shares) > 10


# xfail37: the check along each node's own directions
# (skfed/_mean_scatter.py direction_factors) bounds 3 rogues (10 %): the
# pool grows 1.13 times along u (was 116); with 6 (20 %) 2.32 (was 352)
@pytest.mark.parametrize("q", [3, pytest.param(6, marks=pytest.mark.xfail(strict=True, reason=(
    "xfail37: with 6 rogues of 29 (20 %) the pool still grows 2.32 times along u after "
    "the check along each node's own directions (352 before; 3 rogues: 1.13): the "
    "rogues move the median node's ratio from 1.48 to 3.09 (they also weigh in the "
    "pool's diagonal that scales the features), and a cap of 4 x the median ratio is the "
    "lowest that scales no honest node of this data (3: 3 of them); "
    "benchmarks/xfail37_scatter_caps.py")))])
def test_top_attack_bounded(landmine10, q):
    full, means, masses = landmine10
    n, d = full.shape[:2]
    bad, _, u = _strongest_top(full, means, masses, q)
    pooled = ms.pool_scatters(_tri(bad), d, masses=masses)[0]
    H = full[np.setdiff1d(np.arange(n), np.arange(1, 1 + q))].sum(axis=0)
    assert u @ pooled @ u <= 2 * (u @ H @ u)
    assert u @ bad.sum(axis=0) @ u > 100 * (u @ H @ u)   # (the plain sum: 116 / 352)
