"""add_nodes' input checks: the plain-array shortcut of ``_validate_join_data``
accepts and rejects what sklearn's ``validate_data`` does (issue 32)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.validation import validate_data

from skfed._plain_arrays import _valid_plain_arrays
from skfed.boosting import PersonalizedLinearClassifier


def _fitted(named=False):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat(np.arange(3), 20)
    if named:
        X = pd.DataFrame(X, columns=["a", "b", "c"])
    return PersonalizedLinearClassifier(max_iter=30, random_state=0).fit(X, y, groups=g)


def _outcome(call):
    """(error type, message) of ``call()``, or its warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except Exception as exc:  # noqa: BLE001 - compared, not swallowed
            return type(exc), str(exc)
    return None, sorted(str(w.message) for w in caught if "feature names" in str(w.message))


rng = np.random.RandomState(1)
GOOD_X = rng.normal(size=(8, 3))
GOOD_Y = np.array([0, 1] * 4)
NAN_X = GOOD_X.copy()
NAN_X[2, 1] = np.nan
INF_X = GOOD_X.copy()
INF_X[0, 0] = np.inf
HUGE_X = np.full((8, 3), 1e308)  # finite, but its sum overflows
CASES = {
    "good": (GOOD_X, GOOD_Y),
    "float32": (GOOD_X.astype(np.float32), GOOD_Y),
    "nan X": (NAN_X, GOOD_Y),
    "inf X": (INF_X, GOOD_Y),
    "huge X": (HUGE_X, GOOD_Y),
    "2 features": (GOOD_X[:, :2], GOOD_Y),
    "no sample": (GOOD_X[:0], GOOD_Y[:0]),
    "no feature": (GOOD_X[:, :0], GOOD_Y),
    "short y": (GOOD_X, GOOD_Y[:5]),
    "nan y": (GOOD_X, np.where(GOOD_Y == 0, np.nan, 1.0)),
    "complex y": (GOOD_X, GOOD_Y.astype(complex)),
    "3-d X": (GOOD_X[:, :, None], GOOD_Y),
    "1-d X": (GOOD_X[:, 0], GOOD_Y),
    "column y": (GOOD_X, GOOD_Y[:, None]),
    "int X": (np.arange(24).reshape(8, 3), GOOD_Y),
    "list X": (GOOD_X.tolist(), GOOD_Y.tolist()),
    "string y": (GOOD_X, np.array(["0", "1"] * 4)),
}


@pytest.mark.parametrize("named", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_shortcut_agrees_with_validate_data(case, named):
    est = _fitted(named)
    X, y = CASES[case]
    expected = _outcome(lambda: validate_data(est, X, y, reset=False,
                                              dtype=[np.float64, np.float32]))
    groups = np.full(len(y), 7)
    got = _outcome(lambda: est._validate_join_data(X, y, groups))
    if expected[0] is None:
        # Accepted by sklearn: the same warnings, and X/y returned with their values.
        assert got[0] is None or got[0] is ValueError and "class" in got[1], got
        if got[0] is None:
            assert got[1] == expected[1]
            X_ref, y_ref = validate_data(est, X, y, reset=False, dtype=[np.float64, np.float32])
            X_got, y_got = est._validate_join_data(X, y, groups)[:2]
            np.testing.assert_array_equal(X_got, X_ref)
            assert X_got.dtype == X_ref.dtype
            np.testing.assert_array_equal(y_got, y_ref)
    else:
        assert got == expected


def test_shortcut_takes_exactly_the_plain_finite_arrays():
    taken = {case for case, (X, y) in CASES.items() if _valid_plain_arrays(X, y)}
    assert taken == {"good", "float32", "2 features", "string y"}
