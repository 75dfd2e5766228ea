"""review29: the rogue bound of the pooled scatter (skfed._mean_scatter)
with nodes of one or two rows.

The module sizes each node against the coordinate-wise median scatter and
promises a pool between ``H - h`` and ``H + q c M`` "whatever they send, as
long as fewer than half the nodes are rogue", and that honest nodes are
never left out on the measured families.  A node of one row has a zero
scatter, one of two rows a rank-1 scatter, so with many small nodes (a
held-out family of the project) the median is 0 or nearly singular:

* more than half the nodes with one row: the median scatter is 0,
  ``node_sizes`` returns None and the pool is the plain sum; one rogue
  scatter 1e6 times too large is summed as is (the bound says ``c M = 0``);
* about half (9 one-row, 8 five-row, the rogue): the median is half the
  smallest honest values, all 8 honest five-row nodes are left out and the
  rogue alone makes the pool (diagonal 1e6, 0, 0);
* honest only, 5 one-row and 15 two-row nodes: 3 of the 15 two-row nodes
  are left out (pool diagonal 0.34-0.80 of the plain sum's);
* an honest Perso-lin fit of 30 nodes of 2-3 rows whose gate opens: the hub
  leaves out 0, 3, 4, 1 of the 30 scatters on seeds 0-3 (3-row nodes: 0).

References: NumPy sums of the honest scatters.  Fixed (lead) for the first
three: zero scatters (one-row nodes) are left out of the median scatter and
of the median size.  Fixed (scatter32) for the last: the Perso-lin fit
of 2-3-row nodes, whose rank-1 and rank-2 scatters are sized against a
median of low-rank ones; with the median mass at most ``FEW_ROWS`` the
hub's limit widens by the spread of the sizes (``size_limit``;
``tests/test_scatter32_small_nodes.py``).
"""

import numpy as np

from skfed._mean_scatter import pool_scatters

D = 3
IU = np.triu_indices(D)


def _honest(rng, rows):
    Z = rng.normal(size=(rows, D))
    C = Z - Z.mean(axis=0)
    return (C.T @ C)[IU]


def _rogue():
    bad = np.zeros((D, D))
    bad[0, 0] = 1e6
    return bad[IU]


def small_nodes(seed):
    """30 nodes of 2-3 rows (every third has 3), two terrains told apart by
    feature 0, feature 2 correlated with feature 1, opposite label rules:
    per-node lists ``X``, ``y``, ``groups``."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(30):
        r = 2 if k % 3 else 3
        x = rng.normal(size=(r, 3))
        x[:, 0] += 3 * (k % 2)
        x[:, 2] = 2 * x[:, 1] + 0.5 * rng.normal(size=r)
        X.append(x)
        y.append(((x[:, 1] > 0) if k % 2 else (x[:, 1] < 0)).astype(int))
        g.append(np.full(r, k))
    return X, y, g


def test_bound_holds_with_multi_row_nodes():
    # the reference case: 19 five-row nodes and a rogue, rogue left out
    rng = np.random.RandomState(0)
    honest = np.array([_honest(rng, 5) for _ in range(19)])
    pooled, factors = pool_scatters(np.vstack([honest, _rogue()]), D)
    assert factors.tolist() == [1.0] * 19 + [0.0]
    np.testing.assert_allclose(pooled[IU], honest.sum(axis=0), rtol=1e-12)


def test_rogue_bounded_when_most_nodes_have_one_row():
    rng = np.random.RandomState(0)
    honest = np.array([np.zeros(6)] * 11 + [_honest(rng, 5) for _ in range(8)])
    pooled, factors = pool_scatters(np.vstack([honest, _rogue()]), D)
    assert factors[-1] == 0.0
    assert pooled[0, 0] < 10 * honest.sum(axis=0)[0]


def test_rogue_bounded_when_half_the_nodes_have_one_row():
    rng = np.random.RandomState(0)
    honest = np.array([np.zeros(6)] * 9 + [_honest(rng, 5) for _ in range(8)])
    pooled, factors = pool_scatters(np.vstack([honest, _rogue()]), D)
    assert factors[9:17].tolist() == [1.0] * 8 and factors[-1] == 0.0


def test_honest_two_row_nodes_are_kept():
    rng = np.random.RandomState(0)
    honest = np.array([np.zeros(6)] * 5 + [_honest(rng, 2) for _ in range(15)])
    pooled, factors = pool_scatters(honest, D)
    assert factors.tolist() == [1.0] * 20
    np.testing.assert_allclose(pooled[IU], honest.sum(axis=0), rtol=1e-12)


def test_persolin_honest_small_nodes_pool_is_the_plain_sum(monkeypatch):
    # an honest Perso-lin fit (no rogue node) of 30 nodes of 2-3 rows whose
    # gate opens: the hub leaves out 4 of the 30 scatters (seeds 1-3: 3, 4, 1)
    from skfed import _mean_scatter as ms
    from skfed.boosting import PersonalizedLinearClassifier

    factors = []
    original = ms.pool_scatters

    def spy(tri, d, cap=ms.CAP, masses=None):
        out = original(tri, d, cap, masses)
        factors.append(out[1])
        return out

    monkeypatch.setattr(ms, "pool_scatters", spy)
    X, y, g = small_nodes(2)
    clf = PersonalizedLinearClassifier(random_state=0).fit(
        np.vstack(X), np.concatenate(y), groups=np.concatenate(g))
    assert clf.newcomer_rule_ == "features" and len(factors) == 1
    assert factors[0].tolist() == [1.0] * 30
