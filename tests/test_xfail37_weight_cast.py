"""xfail37: a fit's sample weights next to float32 X (skfed/_fit_weights.py).

``_validate_fit_data`` validates the weights in float64, bounds their
squares by the dtype the estimator squares them in (float64 for
``LocalEstimator``, a meta-estimator), then keeps them in X's dtype.
References: NumPy's own float32 cast of the same weights, the float64 fit
of the same values, scikit-learn's model on each node.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import DataConversionWarning
from sklearn.linear_model import LogisticRegression

from skfed import (
    DecentralizedBoostingClassifier,
    FederatedMultiTaskClassifier,
    LocalEstimator,
    PersonalizedLinearClassifier,
)
from skfed._fit_weights import weights_in_data_dtype, weights_working_dtype


def _data():
    rng = np.random.RandomState(0)
    X = rng.randn(120, 3).astype(np.float32)
    y = (X[:, 0] + 0.3 * rng.randn(120) > 0).astype(int)
    return X, y, np.repeat(np.arange(4), 30)


@pytest.mark.parametrize("make", [
    lambda: LocalEstimator(LogisticRegression()),
    lambda: PersonalizedLinearClassifier(random_state=0),
    lambda: FederatedMultiTaskClassifier(max_rounds=3, random_state=0),
])
def test_weights_that_float32_holds_are_numpys_cast(make):
    # the usual case is unchanged: float32 weights, NumPy's rounding of each
    X, y, g = _data()
    w = np.random.RandomState(1).uniform(0.1, 3.0, len(y))
    _, _, sw, _ = make()._validate_fit_data(X, y, g, w)
    assert sw.dtype == np.float32
    np.testing.assert_array_equal(sw, w.astype(np.float32))
    _, _, sw, _ = make()._validate_fit_data(X.astype(np.float64), y, g, w)
    assert sw.dtype == np.float64
    np.testing.assert_array_equal(sw, w)


def test_the_cast_helper():
    X = np.ones((3, 2), dtype=np.float32)
    big = np.array([1.0, 2.0, 1e39])
    est = PersonalizedLinearClassifier()
    # a float64 worker: X promoted, weights kept to the bit
    with pytest.warns(DataConversionWarning, match="above the largest float32"):
        X2, w2 = weights_in_data_dtype(est, X, big, np.dtype(np.float64))
    assert X2.dtype == np.float64 and w2.dtype == np.float64
    np.testing.assert_array_equal(w2, big)
    np.testing.assert_array_equal(X2, X)
    # a float32 worker: refused naming sample_weight and the dtypes
    with pytest.raises(ValueError, match=r"sample_weight holds a weight of 1e\+39, above "
                                         r"the largest float32 \(3.4e\+38\)"):
        weights_in_data_dtype(est, X, big, np.dtype(np.float32))
    # exactly float32's largest value still fits (no promotion)
    edge = np.array([float(np.finfo(np.float32).max)])
    X3, w3 = weights_in_data_dtype(est, X[:1], edge, np.dtype(np.float64))
    assert X3.dtype == np.float32 and w3[0] == np.finfo(np.float32).max
    assert weights_working_dtype(LocalEstimator(LogisticRegression()),
                                 np.dtype(np.float32)) == np.float64
    assert weights_working_dtype(est, np.dtype(np.float32)) == np.float32


def test_local_refuses_weights_float32_cannot_hold_by_name():
    # LocalEstimator keeps float32 data in float32 (its model's own dtype):
    # 1e39 is refused naming sample_weight (it was sklearn's 'contains infinity')
    X, y, g = _data()
    with pytest.raises(ValueError, match="sample_weight holds a weight of 1e\\+39.*"
                                         "LocalEstimator keeps the weights"):
        LocalEstimator(LogisticRegression()).fit(X, y, groups=g,
                                                 sample_weight=np.full(len(y), 1e39))
    # ... the same weights with float64 X fit every node as scikit-learn does
    w = np.full(len(y), 1e39)
    est = LocalEstimator(LogisticRegression()).fit(X.astype(np.float64), y, groups=g,
                                                   sample_weight=w)
    for k in range(4):
        rows = g == k
        ref = LogisticRegression().fit(X[rows].astype(np.float64), y[rows],
                                       sample_weight=w[rows])
        np.testing.assert_allclose(est.decision_function(X[rows], groups=g[rows]),
                                   ref.decision_function(X[rows]), rtol=1e-6)


@pytest.mark.parametrize("Est", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_boosting_past_float32_is_the_float64_fit(Est):
    # uneven weights, one above float32's largest value: the float32-X fit is
    # the float64 fit of the same values, to the decision value
    X, y, g = _data()
    w = np.random.RandomState(2).uniform(1.0, 4.0, len(y)) * 1e38
    assert w.max() > np.finfo(np.float32).max
    ref = Est(random_state=0).fit(X.astype(np.float64), y, groups=g, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # (no overflowing cast left)
        with pytest.warns(DataConversionWarning, match=f"{Est.__name__} fits X as float64"):
            est = Est(random_state=0).fit(X, y, groups=g, sample_weight=w)
    np.testing.assert_array_equal(est.decision_function(X, groups=g),
                                  ref.decision_function(X, groups=g))
    assert np.mean(est.predict(X, groups=g) == y) > 0.8
