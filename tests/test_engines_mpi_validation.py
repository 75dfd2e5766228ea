"""Per-node data checks of the MPI engine (no mpiexec launch needed).

A rank validates each node's data it loads as ``fit`` validates the pooled
data: ``sample_weight`` goes through the shared
:func:`skfed._base.check_sample_weight`, and the error names the node.
"""

import numpy as np
import pytest

pytest.importorskip("mpi4py")

from skfed._base import check_sample_weight  # noqa: E402
from skfed.engines.mpi import _validate_node  # noqa: E402

X = np.arange(12, dtype=np.float64).reshape(4, 3)
y = np.array([0, 1, 0, 1])


def test_weights_default_to_ones_in_float64():
    _, _, sw = _validate_node("a", X.astype(np.float32), y, None)
    assert sw.dtype == np.float64
    np.testing.assert_array_equal(sw, np.ones(4))


def test_weights_are_those_of_the_shared_check():
    weights = [0.5, 0.0, 2.0, 1.0]
    _, _, sw = _validate_node("a", X, y, weights)
    np.testing.assert_array_equal(sw, check_sample_weight(weights, X, dtype=np.float64))
    np.testing.assert_array_equal(sw, weights)


@pytest.mark.parametrize(
    "weights, message",
    [
        ([1.0, -2.0, 1.0, -1.0], r"Node 'a': sample_weight must be non-negative; 2 of its 4 "
         r"values are negative \(the first, at index 1, is -2.0\)"),
        ([1.0, 1.0, 1.0], r"Node 'a': .*sample_weight"),
        ([1.0, np.nan, 1.0, 1.0], r"Node 'a': .*sample_weight"),
        ([1.0, np.inf, 1.0, 1.0], r"Node 'a': .*sample_weight"),
    ],
)
def test_bad_weights_are_refused_naming_the_node_and_the_parameter(weights, message):
    with pytest.raises(ValueError, match=message):
        _validate_node("a", X, y, weights)
