"""small36: the magnitude bounds are the estimator's working dtype's.

``check_magnitude`` refuses values (and row norms) whose squares overflow
the dtype the estimator squares them in (``skfed._magnitude.working_dtype``).
The boosting family (Dada, Perso-lin) keeps float32 X but squares it in
float64 (relevance votes, preconditioners, Lipschitz bounds, row norms):
float32 data within float64's bounds fit there, with the float64 fit's
predictions (tests/test_review35_mass_and_magnitude.py).  The kernel
learners square float32 data in float32 (kernels in the fit's dtype) and
keep float32's bounds: checked against what the refusal protects, the
float32 fit with the check bypassed gives other decision values than the
float64 fit of the same arrays.  So does MOCHA in its kernel modes (its
kernel matrices and landmark kernels in X's dtype): its float32 fit past
the bound moves 20 % from the float64 fit, at unit scale 1e-7.  (The
support family and LocalEstimator keep their data's dtype as working
dtype, not audited: see ``skfed._magnitude.working_dtype``.)

And data cast to a kernel learner's float32 after the check (``partial_fit``
and ``add_nodes`` with float64 X on a float32 fit) are checked against
float32's bounds: they were checked against float64's and then cast.
"""

import copy
import warnings

import numpy as np
import pytest

import skfed._base as skfed_base
import skfed.online._classes as online_classes
from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
)
from skfed._magnitude import working_dtype


def _data(n_features=3, n=30, K=4, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n * K, n_features)
    y = (X[:, 0] + 0.3 * rng.randn(len(X)) > 0).astype(int)
    return X, y, np.repeat(np.arange(K), n)


def _bypassed(monkeypatch):
    for module in (skfed_base, online_classes):  # (_join_common imports _base's)
        monkeypatch.setattr(module, "check_magnitude", lambda *a, **k: None)


def _quiet_fit(est, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(*args, **kwargs)
    return est, [w for w in caught if issubclass(w.category, RuntimeWarning)]


def test_working_dtypes():
    f32 = np.dtype(np.float32)
    assert working_dtype(DecentralizedBoostingClassifier(), f32) == np.float64
    assert working_dtype(PersonalizedLinearClassifier(), f32) == np.float64
    assert working_dtype(DecentralizedKernelSGDClassifier(), f32) == np.float32
    assert working_dtype(FederatedMultiTaskClassifier(), f32) == np.float32
    assert working_dtype(DecentralizedBoostingClassifier(), np.float64) == np.float64


@pytest.mark.parametrize("Est", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_boosting_fits_float32_rows_above_float32s_bound(Est):
    X, y, g = _data(n_features=400)
    X32 = (X * 1e18).astype(np.float32)            # row norms ~2e19 > 1.84e19
    assert np.linalg.norm(X32.astype(np.float64), axis=1).max() > np.sqrt(np.finfo(np.float32).max)
    kw = {"n_estimators": 10} if Est is DecentralizedBoostingClassifier else {}
    ref = Est(random_state=0, **kw).fit(X32.astype(np.float64), y, groups=g)
    est = Est(random_state=0, **kw).fit(X32, y, groups=g)
    np.testing.assert_array_equal(est.predict(X32, groups=g),
                                  ref.predict(X32.astype(np.float64), groups=g))
    # float64's bound still holds for it: a row norm above 1.34e154
    with pytest.raises(ValueError, match=r"X holds a row of norm .* overflows float64"):
        Est(**kw).fit(np.full((8, 2), 1e154) * [1.0, -1.0], np.arange(8) % 2,
                      groups=np.arange(8) // 4)


def test_kernel_learner_keeps_float32s_row_norm_bound(monkeypatch):
    X, y, g = _data(n_features=400)
    X32 = (X * 1e18).astype(np.float32)
    with pytest.raises(ValueError, match=r"X holds a row of norm .* overflows float32"):
        DecentralizedKernelSGDClassifier(random_state=0).fit(X32, y, groups=g)
    # what it protects: the float32 fit without it is not the float64 fit
    ref = DecentralizedKernelSGDClassifier(random_state=0).fit(X32.astype(np.float64), y,
                                                                groups=g)
    expected = ref.decision_function(X32.astype(np.float64), groups=g)
    assert np.isfinite(expected).all()
    _bypassed(monkeypatch)
    est, _ = _quiet_fit(DecentralizedKernelSGDClassifier(random_state=0), X32, y, groups=g)
    got = est.decision_function(X32, groups=g)
    assert not np.allclose(got, expected, rtol=1e-3, equal_nan=False)


@pytest.mark.parametrize("scale, refused", [(3.0, False), (3e18, True)])
def test_mocha_kernel_mode_keeps_float32s_row_norm_bound(scale, refused, monkeypatch):
    X, y, g = _data(n_features=400)
    X32 = (X * scale).astype(np.float32)      # row norms 65 scale / 3
    params = {"kernel": "rbf", "approximation": None, "gamma": 1.0 / (400 * scale**2),
              "max_rounds": 20, "random_state": 0}
    ref = FederatedMultiTaskClassifier(**params).fit(X32.astype(np.float64), y, groups=g)
    expected = ref.decision_function(X32.astype(np.float64), groups=g)
    if refused:
        with pytest.raises(ValueError, match=r"X holds a row of norm .* overflows float32"):
            FederatedMultiTaskClassifier(**params).fit(X32, y, groups=g)
        _bypassed(monkeypatch)
    est, _ = _quiet_fit(FederatedMultiTaskClassifier(**params), X32, y, groups=g)
    moved = np.abs(est.decision_function(X32, groups=g) - expected).max() / np.abs(expected).max()
    # float32 rounding at unit scale; the overflowing Gram matrix past the bound
    assert (moved > 0.05) if refused else (moved < 1e-5)


@pytest.mark.parametrize("call", ["partial_fit", "add_nodes"])
def test_float64_data_cast_to_a_float32_fit_meet_float32s_bound(call):
    X, y, g = _data()
    est = DecentralizedKernelSGDClassifier(random_state=0).fit(X.astype(np.float32), y, groups=g)
    big = X[:30] * 1e20        # fine in float64, squared above float32's max once cast
    node = 0 if call == "partial_fit" else 9
    with pytest.raises(ValueError, match=r"X holds a value .* overflows float32"):
        getattr(copy.deepcopy(est), call)(big, y[:30], groups=np.full(30, node))
    # the same values given in float32 are refused alike, and float64 data
    # within float32's bounds are taken
    with pytest.raises(ValueError, match=r"X holds a value .* overflows float32"):
        getattr(copy.deepcopy(est), call)(big.astype(np.float32), y[:30],
                                          groups=np.full(30, node))
    getattr(copy.deepcopy(est), call)(X[:30] * 1e3, y[:30], groups=np.full(30, node))
