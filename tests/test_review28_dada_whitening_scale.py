"""Dada's one-class newcomer placement is invariant to each feature's unit
(review28).

Dada's fit is invariant to rescaling a feature by a power of two (its stumps'
thresholds follow the feature, the gate's means and gains too): the fitted
nodes' decision values stay bit-equal.  dada27 places one-class newcomers by
the Mahalanobis distance of the pooled within-node scatter, which is itself
invariant to each feature's unit, but ``skfed.boosting._dada_gate.
hub_whitening`` drops eigenvalues below ``1e-10`` times the largest: with
features in units 2**12 apart (variances 2**48 apart, e.g. a count in
thousands next to a fraction) the terrain feature's direction is dropped as
if it were rank deficiency, the newcomer is placed by the other features
only and its decision values move by 2.3 (2**20 apart: 3.5).  Scaling the
pooled scatter by its diagonal before the eigendecomposition (a Jacobi
preconditioning; the cut then applies to the correlation matrix) and back
after keeps the distances and restores bit-equality here.  Pending: the
scatter code is moving to a shared module this session (maha28), so the
fix belongs there.
"""

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier

from .test_dada27_whitened_join import correlated_terrains, newcomer

_Q = np.random.RandomState(2).normal(size=(40, 4)) + [3.0, 0.0, 0.0, 0.0]


def _fit_join(scale):
    X, y, g = correlated_terrains()
    a, ya, ga = newcomer()
    est = DecentralizedBoostingClassifier(n_estimators=12, random_state=0)
    est.fit(X * scale, y, groups=g).add_nodes(a * scale, ya, groups=ga)
    assert est.newcomer_rule_ == "one-class"
    fitted = est.decision_function(_Q * scale, groups=np.full(len(_Q), 3))
    joined = est.decision_function(_Q * scale, groups=np.full(len(_Q), 100))
    return fitted, joined


@pytest.mark.parametrize("scale", [
    [2.0**-8, 1.0, 2.0**8, 1.0],
    pytest.param([2.0**-12, 1.0, 2.0**12, 2.0**12], marks=pytest.mark.xfail(
        strict=True, reason="hub_whitening's relative eigenvalue cut drops a feature "
                            "whose unit is 2**12 smaller (review28; fix with maha28)")),
])
def test_units_of_the_features_do_not_move_the_one_class_newcomer(scale):
    fitted0, joined0 = _fit_join(np.ones(4))
    fitted, joined = _fit_join(np.asarray(scale))
    np.testing.assert_array_equal(fitted, fitted0)      # the fit: invariant
    np.testing.assert_array_equal(joined, joined0)      # the placement too


def _node_level_terrains(seed):
    """Feature 0 tells the terrain and is constant within every node (a
    node-level covariate: a site's type, a device model); opposite rules on
    feature 1."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(14):
        side = 1 if k % 2 else -1
        x = rng.normal(size=(30, 3))
        x[:, 0] = 3.0 * side
        X.append(x)
        y.append((side * x[:, 1] > 0).astype(int))
        g.append(np.full(30, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


@pytest.mark.xfail(strict=True, reason="the pseudo-inverse gives a direction of zero "
                                       "within-node spread weight 0 instead of infinite "
                                       "(review28; fix with maha28)")
def test_node_level_feature_places_the_one_class_newcomer_in_its_terrain():
    """A node-level feature has no within-node spread, so ``hub_whitening``'s
    pseudo-inverse drops its direction: the Mahalanobis distance ignores the
    one feature that tells the terrains apart, and a one-class newcomer of
    terrain +1 is linked to nodes of the other terrain (seeds 0-5: accuracy
    0.86 / 0.02 / 0.86 / 0.02 / 0.14 / 0.82 on 200 rows of its terrain,
    mean 0.45; with the Euclidean placement, ``WHITEN_MAX_FEATURES = 0``,
    0.86 / 0.98 / 0.90 / 0.98 / 0.96 / 0.82, mean 0.92).  Zero within-node
    spread along a direction that separates node means is the strongest
    evidence, not none."""
    X, y, g = _node_level_terrains(1)
    est = DecentralizedBoostingClassifier(n_estimators=12, random_state=1).fit(X, y, groups=g)
    assert est.newcomer_rule_ == "one-class"
    rng = np.random.RandomState(101)
    a = rng.normal(size=(6, 3))
    a[:, 0] = 3.0
    a[:, 1] = np.abs(a[:, 1])
    est.add_nodes(a, np.ones(6, int), groups=np.full(6, 100))
    links = np.flatnonzero(est.collaboration_graph_.toarray()[-1])
    assert len(links) and np.all(np.asarray(est.nodes_)[links] % 2 == 1)   # terrain +1: odd nodes
