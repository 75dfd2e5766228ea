"""review36: an integer node id that float64 cannot hold, looked up in float ids.

``_lookup_labels`` (``skfed/_node_ids.py``) sent float ``nodes_`` and
integer ids to ``searchsorted``, which compares them as float64: after a
fit on ids ``0.5, 1.5, 2.0**53``, ``predict(groups=[2**53 + 1])`` (an id
never fitted) found node ``2**53`` and predicted with its model, also
under ``handle_unknown="error"`` (measured at bcda3b7; review18 had moved
signed against unsigned integers to the exact dict for the same reason).
Fixed: ids of different numeric kinds are compared exactly (the dict).
"""

import warnings

import numpy as np
import pytest

from skfed import PersonalizedLinearClassifier
from skfed._node_ids import _lookup_labels

BIG = 2**53


def _reference(nodes, labels):
    """Python's exact comparison, label by label."""
    nodes = nodes.tolist()
    return [next((i for i, v in enumerate(nodes) if v == label), -1)
            for label in labels.tolist()]


@pytest.mark.parametrize("nodes, labels", [
    (np.array([0.5, 1.5, float(BIG)]), np.array([BIG + 1, BIG, 3], dtype=np.int64)),
    (np.array([0.5, 1.5, float(BIG)]), np.array([BIG + 1, BIG], dtype=np.uint64)),
    (np.array([1, BIG, BIG + 1], dtype=np.int64), np.array([float(BIG), 1.0, 0.5])),
    (np.array([0.0, 1.0, 2.0]), np.array([2, 0, 7], dtype=np.int64)),
    (np.array([3, 1, 2], dtype=np.int64), np.array([1.0, 2.5, 3.0])),  # unsorted (joins)
])
def test_lookup_matches_exact_comparison(nodes, labels):
    assert _lookup_labels(nodes, labels).tolist() == _reference(nodes, labels)


def test_predict_refuses_a_big_int_id_never_fitted():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(random_state=0, handle_unknown="error").fit(
            X, y, groups=np.repeat([0.5, 1.5, float(BIG)], 40))
    # the fitted id itself, as an int, is found
    np.testing.assert_array_equal(
        est.decision_function(X[:5], groups=np.full(5, BIG, dtype=np.int64)),
        est.decision_function(X[:5], groups=np.full(5, float(BIG))))
    with pytest.raises(ValueError, match="not seen in fit"):
        est.predict(X[:3], groups=np.full(3, BIG + 1, dtype=np.int64))
