"""Node ids matter only through their sorted order (nodes.rst, "Sample layout
and seeds"; probe item 8): an order-preserving relabelling gives exactly the
same fit, a reordering one another run with other per-node seeds."""

import numpy as np
import pytest

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
)

ESTIMATORS = [
    lambda: FederatedMultiTaskClassifier(random_state=0),
    lambda: PersonalizedLinearClassifier(random_state=0),
    lambda: DecentralizedBoostingClassifier(random_state=0, n_estimators=30),
    lambda: DecentralizedKernelSGDClassifier(random_state=0),
]


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    ids = np.repeat(np.arange(5), 30)
    X = rng.normal(size=(150, 4))
    W = rng.normal(size=4) + 0.5 * rng.normal(size=(5, 4))
    y = ((X * W[ids]).sum(1) > 0).astype(int)
    order = rng.permutation(150)  # rows of the nodes interleaved
    return X[order], y[order], ids[order]


@pytest.mark.parametrize("make", ESTIMATORS)
def test_order_preserving_relabel_is_the_same_fit(make, data):
    X, y, ids = data
    plain = make().fit(X, y, groups=ids)
    ref = plain.decision_function(X, groups=ids)
    for labels in (np.array(["n0", "n1", "n2", "n3", "n4"]), np.array([-7, 3, 10, 11, 400])):
        relabelled = make().fit(X, y, groups=labels[ids])
        np.testing.assert_array_equal(relabelled.nodes_, labels)
        np.testing.assert_array_equal(relabelled.decision_function(X, groups=labels[ids]), ref)


def test_reordering_relabel_is_another_seed_draw(data):
    # Reordering the ids hands node k another node's seed: the kernel-SGD fit
    # changes (a permutation of the first fit would leave it unchanged).
    X, y, ids = data
    make = ESTIMATORS[3]
    ref = make().fit(X, y, groups=ids).decision_function(X, groups=ids)
    moved = np.array([4, 2, 0, 1, 3])[ids]
    other = make().fit(X, y, groups=moved).decision_function(X, groups=moved)
    assert np.abs(other - ref).max() > 1e-3
