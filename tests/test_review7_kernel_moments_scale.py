"""Review7: Dada's kernel graph signal does not depend on the features' units.

The pooled spread of a kernel input is set to 1 when the feature is
constant.  The test was absolute for features with a small mean
(``spread <= 1e-12 * max(1, |mean|)``), so a feature measured in units of
1e-13 (its real spread below 1e-12) was taken for a constant: the kernel
graph models saw no signal and the learned graph changed, while the
boosting signal's fit stayed the same.  Scaling by a power of two is exact
in floating point, so the fit must be the same bit for bit.
"""

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._kernel_graph import moments_from_node_sums, node_moment_sums
from skfed.datasets import make_rotated_moons

SMALL = 2.0 ** -45  # about 2.8e-14, exact


def _moons():
    X, _, y, _, g, _, _, _ = make_rotated_moons(n_nodes=8, n_features=3, random_state=0)
    return X, y, g


def test_spread_of_small_unit_features_is_scaled_not_reset():
    X, _, g = _moons()
    offsets = np.r_[0, np.cumsum(np.bincount(g))]
    sw = np.ones(X.shape[0])
    features = np.arange(X.shape[1])
    nodes = np.arange(offsets.size - 1)
    mean, spread = moments_from_node_sums(node_moment_sums(X, sw, offsets, features, nodes))
    small_mean, small_spread = moments_from_node_sums(
        node_moment_sums(X * SMALL, sw, offsets, features, nodes))
    # NumPy reference of the pooled (population) spread
    np.testing.assert_allclose(spread, X.std(axis=0), rtol=1e-12)
    assert np.all(spread > 0.1)
    np.testing.assert_array_equal(small_spread, spread * SMALL)
    np.testing.assert_array_equal(small_mean, mean * SMALL)


@pytest.mark.parametrize("value", [0.0, 3.0, 1e-20, 7e6])
def test_constant_feature_still_gets_spread_one(value):
    X, _, g = _moons()
    X = X.copy()
    X[:, 1] = value
    offsets = np.r_[0, np.cumsum(np.bincount(g))]
    sw = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
    _, spread = moments_from_node_sums(
        node_moment_sums(X, sw, offsets, np.arange(3), np.arange(offsets.size - 1)))
    assert spread[1] == 1.0
    assert spread[0] != 1.0 and spread[2] != 1.0


def test_dada_kernel_signal_fit_does_not_depend_on_the_units():
    X, y, g = _moons()
    a = DecentralizedBoostingClassifier(random_state=0, max_iter=200).fit(X, y, groups=g)
    b = DecentralizedBoostingClassifier(random_state=0, max_iter=200).fit(X * SMALL, y,
                                                                         groups=g)
    assert a.graph_signal == "kernel"
    np.testing.assert_array_equal(a.collaboration_graph_.toarray(),
                                  b.collaboration_graph_.toarray())
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.n_bytes_sent_ == b.n_bytes_sent_
