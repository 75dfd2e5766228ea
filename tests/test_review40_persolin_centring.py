"""review40: Perso-lin's per-node centring (``skfed.boosting._perso_lin.
_centred_block``) sums a node's weights in the weights' dtype.  Next to
float32 X the fit keeps them in float32 (``skfed._fit_weights``: weights
float32 holds are not promoted), so a node of 30 weights of 3e38 (each
below float32's 3.4e38) has a total of inf, and its feature means
(sums / inf) become 0: the node is silently not centred (a RuntimeWarning
"overflow encountered in reduceat" only).  The problem is the same (the
centring is a reparametrization) but its preconditioning is lost.
Reference: the NumPy float64 weighted means.  Fixed: the weights are
taken in float64 before the sums.
"""

import warnings

import numpy as np

from skfed.boosting._perso_lin import _centred_block


def _design(seed=0):
    rng = np.random.RandomState(seed)
    X = np.c_[rng.randn(60, 3) + 2.0, np.ones(60)].astype(np.float32)
    seg = np.array([0, 30, 60])
    ref = np.array([X[:30, :3].astype(np.float64).mean(axis=0),
                    X[30:, :3].astype(np.float64).mean(axis=0)])
    return X, seg, ref


def test_centring_means_are_the_weighted_means():
    X, seg, ref = _design()
    for w in (1.0, 0.5, 1e30):
        _, means = _centred_block(X, np.full(60, w, dtype=np.float32), seg, 3)
        np.testing.assert_allclose(means, ref, rtol=1e-6)   # (float32 totals)


def test_centring_means_with_float32_weights_near_their_largest():
    X, seg, ref = _design()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, means = _centred_block(X, np.full(60, 3e38, dtype=np.float32), seg, 3)
    np.testing.assert_allclose(means, ref, rtol=1e-6)
