"""A fitted online learner whose buffers hold empty rows pickles (online35).

``skfed/online/_state.py`` looks for the rows of ``_pub_points`` (and the
other repeated buffers) that share a prefix with ``_points``; a row of
length 0 (a buffer of capacity 0 along its second axis, e.g. every node's
published copy empty) made the prefix search reshape a size-0 array to
``(0, -1)`` and raise, so ``pickle.dumps`` and ``copy.deepcopy`` failed on
such a fit (found on rotated moons fitted over the clusters' graph with
``consensus_penalty=1``, ``benchmarks/online_join_moons_seeds.py
--oracle-graph --consensus-penalty 1 --seeds 4``, where every dictionary
ended empty; here a huge ``epsilon`` empties them on a small fit).  Checked: the pickle loads to an estimator
whose every fitted array attribute equals the original's, whose
predictions are the original's and which streams on (``partial_fit``)
exactly as the original; the prefix search itself on empty rows.
"""

import copy
import pickle

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor
from skfed.online._state import _common_prefix, pack, unpack


def _data(seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(40, 3))
    return X, X[:, 0] + 0.1 * rng.normal(size=40), np.repeat(np.arange(4), 10)


def _arrays_equal(a, b):
    # the fitted attributes (the private buffers are cut to the longest
    # dictionary when pickled, by design)
    names = [n for n, v in vars(a).items()
             if isinstance(v, np.ndarray) and n.endswith("_") and not n.startswith("_")]
    assert names
    for name in names:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("regress", [False, True])
def test_fit_with_empty_rows_pickles(kernel, regress):
    X, t, g = _data()
    cls = DecentralizedKernelSGDRegressor if regress else DecentralizedKernelSGDClassifier
    y = t if regress else (t > 0).astype(int)
    est = cls(kernel=kernel, epsilon=1e6, random_state=0).fit(X, y, groups=g)
    # every dictionary empty: the pickled buffers, cut to the longest
    # dictionary, have rows of length 0 (what failed)
    assert all(len(D) == 0 for D in est.dictionaries_)
    loaded = pickle.loads(pickle.dumps(est))
    _arrays_equal(est, loaded)
    np.testing.assert_array_equal(loaded.predict(X, groups=g), est.predict(X, groups=g))
    _arrays_equal(est, copy.deepcopy(est))
    # and it streams on exactly as the original
    again = pickle.loads(pickle.dumps(est))
    est.partial_fit(X, y, groups=g)
    again.partial_fit(X, y, groups=g)
    np.testing.assert_array_equal(again.decision_function(X, groups=g)
                                  if not regress else again.predict(X, groups=g),
                                  est.decision_function(X, groups=g)
                                  if not regress else est.predict(X, groups=g))


def test_common_prefix_of_empty_rows():
    empty = np.zeros((0, 5))
    assert _common_prefix(empty, empty.copy()) == 0
    a = np.arange(12.0).reshape(4, 3)
    b = a.copy()
    b[2, 1] = -1.0
    assert _common_prefix(a, b) == 2
    assert _common_prefix(a, a.copy()) == 4
    # a state of empty buffers round-trips
    state = {"_points": np.zeros((3, 0, 2)), "_pub_points": np.zeros((3, 0, 2))}
    packed = unpack(pack(dict(state)))
    for name, value in state.items():
        assert packed[name].shape == value.shape
