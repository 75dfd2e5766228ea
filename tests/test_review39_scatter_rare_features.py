"""review39: honest nodes with rare binary features and the scatter pool's
size limit (:mod:`skfed._mean_scatter`, maha28 / rogue34; before this
session, not xfail37's direction check, which scales none of them).

30 honest nodes of 10 rows, 9 binary features each 1 with probability 0.1
(a rare category, one-hot): a node's feature is constant (all 0) with
probability 0.9^10 = 0.35, so on some seeds more than half the nodes hold
one feature constant and the coordinate-wise median scatter has a zero
there (NumPy below).  ``node_sizes`` floors that direction at ``FLOOR`` =
1e-6 of the median's largest eigenvalue ("a rogue's variance where honest
nodes have none counts as large"), so every honest node that does vary in
the feature is sized ~1e5 times the median and left out of the pool.
"""

import numpy as np
import pytest

from skfed import _mean_scatter as ms


def _binary_nodes(seed):
    rng = np.random.RandomState(seed)
    Xs = [(rng.rand(10, 9) < 0.1).astype(float) for _ in range(30)]
    iu = np.triu_indices(9)
    full = np.array([(x - x.mean(axis=0)).T @ (x - x.mean(axis=0)) for x in Xs])
    return full[:, iu[0], iu[1]], full


@pytest.mark.parametrize("seed", [0, 1])
def test_median_spans_every_feature_then_all_kept(seed):
    # control: where the median scatter spans every feature, none is left out
    tri, full = _binary_nodes(seed)
    assert np.all(np.median(np.einsum("nii->ni", full), axis=0) > 0)
    assert ms.pool_scatters(tri, 9, masses=np.full(30, 10.0))[1].min() == 1.0


@pytest.mark.parametrize("seed", [2, 5])
def test_rare_binary_features_keep_every_honest_node(seed):
    tri, full = _binary_nodes(seed)
    diag = np.einsum("nii->ni", full)
    constant = (diag == 0).sum(axis=0)
    assert constant.max() > 15                             # (the NumPy cause)
    factors = ms.pool_scatters(tri, 9, masses=np.full(30, 10.0))[1]
    assert factors.min() == 1.0
