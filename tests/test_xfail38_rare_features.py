"""xfail38: rare binary features and the scatter pool's size check.

``skfed._mean_scatter.spanned_median``: a feature whose coordinate-wise
median variance is (nearly) 0 -- more than half the nodes hold it constant
-- but in which at least ``SPAN`` (a third) of the nodes vary is sized
against the median of their variances, and ``pool_scatters`` keeps a node
within either limit (the median's or the spanned one's).  References: the
spanned median in NumPy, the nodes the median's limit alone keeps
(``node_sizes(..., spanned=True)`` patched to None), and the pool along a
feature no honest node varies in.  The direction check
(``direction_factors``) takes the same median along a node's own direction
that more than half the nodes lack but a third span.
"""

import numpy as np
import pytest

from skfed import _mean_scatter as ms


def _binary(seed, p=0.1, n=30, rows=10, d=9, extra=0):
    """Scatters of ``n`` nodes of binary features (rate ``p``), with
    ``extra`` more features every node holds constant."""
    rng = np.random.RandomState(seed)
    full = np.zeros((n, d + extra, d + extra))
    for i in range(n):
        x = (rng.rand(rows, d) < p).astype(float)
        c = x - x.mean(axis=0)
        full[i, :d, :d] = c.T @ c
    return full


def _tri(full):
    iu = np.triu_indices(full.shape[1])
    return full[:, iu[0], iu[1]]


def _median_limit_only(monkeypatch):
    """The size check as before xfail38: the median's limit alone."""
    saved = ms.node_sizes
    monkeypatch.setattr(ms, "node_sizes", lambda tri, d, spanned=False:
                        None if spanned else saved(tri, d))


@pytest.mark.parametrize("seed", [2, 5])
def test_spanned_median_against_numpy(seed):
    full = _binary(seed)
    n, d = full.shape[:2]
    median = np.median(full, axis=0)
    var = np.einsum("nii->ni", full)
    expected = median.copy()
    raised = 0
    for j in range(d):
        if median[j, j] <= ms.FLOOR * np.diag(median).max():
            positive = var[:, j][var[:, j] > 0]
            assert 0 < len(positive) < n / 2               # a rare feature
            if len(positive) >= n / 3:
                expected[j, j] = np.median(positive)
                raised += 1
    assert raised >= 1
    got = ms.spanned_median(median, _tri(full), d)
    np.testing.assert_array_equal(got, expected)
    # the off-diagonal entries are the coordinate-wise median's
    off = ~np.eye(d, dtype=bool)
    np.testing.assert_array_equal(got[off], median[off])


@pytest.mark.parametrize("p, seed, before", [(0.1, 2, 14), (0.1, 5, 12), (0.07, 1, 11),
                                             (0.07, 10, 14)])
def test_honest_rare_feature_nodes_stay_in_the_pool(p, seed, before, monkeypatch):
    tri = _tri(_binary(seed, p))
    masses = np.full(30, 10.0)
    pooled, factors = ms.pool_scatters(tri, 9, masses=masses)
    assert factors.tolist() == [1.0] * 30
    np.testing.assert_allclose(pooled, _binary(seed, p).sum(axis=0), rtol=1e-12, atol=1e-12)
    _median_limit_only(monkeypatch)
    assert int((ms.pool_scatters(tri, 9, masses=masses)[1] == 0).sum()) == before


@pytest.mark.parametrize("p", [0.1, 0.07, 0.05, 0.03])
def test_no_node_the_median_limit_keeps_is_left_out(p, monkeypatch):
    # rarer features (School-like): the spanned limit alone would leave out
    # the nodes varying in the features fewer than a third vary in
    masses = np.full(30, 10.0)
    tris = [_tri(_binary(seed, p)) for seed in range(12)]
    now = [ms.pool_scatters(t, 9, masses=masses)[1] == 0 for t in tris]
    _median_limit_only(monkeypatch)
    before = [ms.pool_scatters(t, 9, masses=masses)[1] == 0 for t in tris]
    for a, b in zip(now, before):
        assert not np.any(a & ~b)


def test_continuous_features_are_not_raised():
    # Gaussian nodes: no median variance is near 0, the median is returned
    # as it is (the same object) and the spanned sizes are not computed
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 10, 5))
    full = np.einsum("nri,nrj->nij", X, X)
    median = np.median(full, axis=0)
    assert ms.spanned_median(median, _tri(full), 5) is median
    assert ms.node_sizes(_tri(full), 5, spanned=True) is None


@pytest.mark.parametrize("seed", [2, 5])
@pytest.mark.parametrize("t", [1.0, 1e3, 1e6])
def test_rogues_under_a_third_cannot_open_a_constant_feature(seed, t, monkeypatch):
    # a tenth feature every honest node holds constant; q rogues send t e e^T:
    # the pool along it is what the median's limit alone gives (0 from
    # t = 1e3 on; at t = 1 the direction check scales them to < 1e-3)
    full = _binary(seed, extra=1)
    d = full.shape[1]
    masses = np.full(30, 10.0)
    attacked = []
    for q in (1, 3, 6, 9):
        bad = full.copy()
        bad[:q] = 0.0
        bad[:q, d - 1, d - 1] = t
        attacked.append(_tri(bad))
    now = [ms.pool_scatters(tri, d, masses=masses) for tri in attacked]
    _median_limit_only(monkeypatch)
    for q, tri, (pooled, factors) in zip((1, 3, 6, 9), attacked, now):
        before = ms.pool_scatters(tri, d, masses=masses)[0][d - 1, d - 1]
        assert pooled[d - 1, d - 1] == before
        assert pooled[d - 1, d - 1] < (1e-2 if t == 1.0 else 1e-300)
        assert factors[q:].min() > 0.0                     # no honest node left out


@pytest.mark.xfail(strict=True, reason=(
    "xfail38: 10 rogues of 30 (a third, SPAN) sending t e e^T along a feature every honest "
    "node holds constant set its raised median themselves (skfed/_mean_scatter.py "
    "spanned_median, and direction_factors' median share along it) and are kept whole: the "
    "pool along it is 10 t (1e4 at t = 1e3, 1e7 at 1e6; main: 0 for any q under half).  "
    "The trade for review39's honest rare-feature nodes"))
@pytest.mark.parametrize("t", [1e3, 1e6])
def test_a_third_of_rogues_cannot_open_a_constant_feature(t):
    full = _binary(2, extra=1)
    d = full.shape[1]
    bad = full.copy()
    bad[:10] = 0.0
    bad[:10, d - 1, d - 1] = t
    assert ms.pool_scatters(_tri(bad), d, masses=np.full(30, 10.0))[0][d - 1, d - 1] == 0.0


@pytest.mark.parametrize("p, seed", [(0.05, 0), (0.05, 3), (0.05, 5), (0.05, 7), (0.05, 8),
                                     (0.07, 11)])
def test_direction_check_keeps_nodes_varying_in_one_rare_feature(p, seed, monkeypatch):
    # a node varying in one feature only sends e e^T along it; where fewer
    # than half the nodes vary there the median share along e was 0 (the
    # floor) and the direction check scaled it to ~1e-4; with at least a
    # third of the nodes varying there it is compared with their median
    full = _binary(seed, p)
    var = np.einsum("nii->ni", full)
    varying = var > 0
    single = np.flatnonzero(varying.sum(axis=1) == 1)
    spanned = [i for i in single if varying[:, np.argmax(varying[i])].sum() >= 30 / 3]
    masses = np.full(30, 10.0)
    factors = ms.pool_scatters(_tri(full), 9, masses=masses)[1]
    assert factors.min() > 0.1
    monkeypatch.setattr(ms, "SPAN", 2.0)                   # (no feature raised: before)
    before = ms.pool_scatters(_tri(full), 9, masses=masses)[1]
    assert before.min() < 1e-3
    assert len(spanned) >= 1
    assert before[spanned].min() < 1e-3 and factors[spanned].min() == 1.0
