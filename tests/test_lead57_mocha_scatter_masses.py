"""MOCHA's gate sizes the rogue bound of its scatter pool with the node
masses its server holds, as Dada's and Perso-lin's hubs do (scatter32):
with nodes of 2-3 rows every honest scatter is in the pool (the plain sum),
where the fixed 4x-median limit left some out."""

import numpy as np

from skfed._mean_scatter import node_scatters, pool_scatters
from skfed.multitask import _join_neighbours


def test_mocha_gate_pools_small_honest_nodes(monkeypatch):
    rng = np.random.RandomState(3)
    rows = rng.choice([2, 3], size=30)
    offsets = np.r_[0, np.cumsum(rows)]
    d = 3
    Z = np.hstack([rng.lognormal(size=(offsets[-1], d)), np.ones((offsets[-1], 1))])
    Y = np.where(rng.rand(1, offsets[-1]) > 0.5, 1.0, -1.0)
    sw = np.ones(offsets[-1])
    W = rng.normal(size=(1, 30, d + 1))
    seen = {}

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    real = _join_neighbours.whitening_round
    monkeypatch.setattr(_join_neighbours, "whitening_round", spy)
    monkeypatch.setattr(_join_neighbours, "GATE_T", -np.inf)  # open the gate
    gate = _join_neighbours.FeatureNeighbours(Z, Y, sw, offsets, W, "hinge", d)
    assert gate.open and gate.whiten is not None
    np.testing.assert_array_equal(seen["hub_masses"], rows.astype(float))
    # the pool it took is the plain sum of the honest scatters (NumPy)
    means = np.array([Z[a:b, :d].mean(axis=0) for a, b in zip(offsets[:-1], offsets[1:])])
    iu = np.triu_indices(d)
    tri = node_scatters(Z[:, :d], sw, offsets, means)[:, iu[0], iu[1]]
    tri = tri.astype(_join_neighbours.SCATTER_DTYPE).astype(np.float64)
    plain = sum(((Z[a:b, :d] - m).T @ (Z[a:b, :d] - m))
                for a, b, m in zip(offsets[:-1], offsets[1:], means))
    pooled, factors = pool_scatters(tri, d, masses=rows.astype(float))
    assert factors.tolist() == [1.0] * 30
    np.testing.assert_allclose(pooled, plain, rtol=1e-5)
    # the fixed limit (no masses) leaves honest small nodes out here
    assert (pool_scatters(tri, d)[1] < 1).any()
