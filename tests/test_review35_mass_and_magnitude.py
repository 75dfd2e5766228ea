"""review35: the mass cap against a NaN report, and the magnitude bounds on float32 data.

* rogue34's bound (``skfed/_node_mass.py``) promises that fewer than half
  liars shrink honest confidences by at most ``MASS_CLIP`` "whatever they
  report"; one node reporting NaN made the agreed ``M`` NaN and every
  confidence NaN (``min(max, 4 x median)`` of NaN).  Fixed in
  ``agreed_max_mass`` (NaN reports count as absent): the tests below fail
  before it.
* ``check_magnitude`` sized its bounds on X's dtype: float32 features whose
  value or row norm is above ``sqrt(finfo(float32).max) = 1.84e19``, and
  float32 fits with a sample_weight above it, were refused ("whose square
  overflows float32"), although the same arrays in float64 fit, and the
  float32 fit with the check bypassed gives the float64 fit's predictions
  (Dada on these arrays: the bound protected nothing there).  Fixed by
  small36: the bounds are the estimator's working dtype's
  (``skfed._magnitude.working_dtype``; the boosting family squares in
  float64); tests/test_small36_float32_bounds.py keeps the float32 bounds
  of the families that square in float32.
"""

import numpy as np
import pytest

import skfed._base as skfed_base
import skfed._node_mass as node_mass
from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier


def _data(n_features=3, seed=0, n=30, K=4):
    rng = np.random.RandomState(seed)
    X = rng.randn(n * K, n_features)
    y = (X[:, 0] + 0.3 * rng.randn(len(X)) > 0).astype(int)
    return X, y, np.repeat(np.arange(K), n)


def test_agreed_max_mass_ignores_a_nan_report():
    honest = np.array([2.0, 4.0, 9.0, 5.0])
    # closed form: min(max, 4 x median) of the honest reports = min(9, 18)
    assert node_mass.agreed_max_mass(honest) == 9.0
    reports = np.array([2.0, 4.0, np.nan, 9.0, 5.0])
    assert node_mass.agreed_max_mass(reports) == 9.0
    # a NaN liar next to a 1e9 liar: the bound still holds, 4 x the median of
    # the other six (5.5): honest confidences shrink by 9 / 22, under MASS_CLIP
    assert node_mass.agreed_max_mass(np.array([2.0, 4.0, np.nan, 9.0, 5.0, 1e9, 6.0])) == 22.0
    confidence, M = node_mass.node_scale(np.array([2.0, 4.0, 9.0, 5.0]))
    np.testing.assert_array_equal(confidence, honest / 9.0)


@pytest.mark.parametrize("Est", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_nan_mass_liar_leaves_honest_confidences(Est, monkeypatch):
    X, y, g = _data()
    original = node_mass.agreed_max_mass

    def lying(mass):  # node 1 reports NaN to the root (the benchmark's wrapper)
        mass = np.array(mass, dtype=np.float64)
        mass[1] = np.nan
        return original(mass)

    kw = {"n_estimators": 10} if Est is DecentralizedBoostingClassifier else {}
    honest_fit = Est(random_state=0, **kw).fit(X, y, groups=g)
    monkeypatch.setattr(node_mass, "agreed_max_mass", lying)
    est = Est(random_state=0, **kw).fit(X, y, groups=g)
    # every node holds 30 rows: M is 30 without node 1's report too
    np.testing.assert_array_equal(est.confidence_, np.ones(4))
    np.testing.assert_array_equal(est.predict(X, groups=g), honest_fit.predict(X, groups=g))


def _float32_cases():
    X, y, g = _data(n_features=400)
    big_rows = (X * 1e18).astype(np.float32)   # values <= 5e18, row norms ~2e19
    big_value = X[:, :3].astype(np.float32).copy()
    big_value[0, 2] = 1e20                      # one value above 1.84e19
    unit = X[:, :3].astype(np.float32)
    return [("row norm", big_rows, y, g, None), ("value", big_value, y, g, None),
            ("sample_weight", unit, y, g, np.full(len(y), 1e20))]


@pytest.mark.parametrize("case", _float32_cases(), ids=lambda c: c[0])
def test_float32_magnitude_controls(case, monkeypatch):
    """Controls: the float64 copy fits; the float32 fit with the magnitude
    checks bypassed gives the float64 fit's predictions (so the refusal
    below protects nothing); a float64 row norm above 1.34e154 is refused."""
    _, X32, y, g, sw = case
    est = DecentralizedBoostingClassifier(n_estimators=10, random_state=0)
    ref = est.fit(X32.astype(np.float64), y, groups=g, sample_weight=sw).predict(
        X32.astype(np.float64), groups=g)
    assert np.mean(ref == y) > 0.8
    monkeypatch.setattr(skfed_base, "check_magnitude", lambda *a, **k: None)
    est32 = DecentralizedBoostingClassifier(n_estimators=10, random_state=0)
    np.testing.assert_array_equal(
        est32.fit(X32, y, groups=g, sample_weight=sw).predict(X32, groups=g), ref)
    monkeypatch.undo()
    X64 = np.full((8, 2), 1e154)
    with pytest.raises(ValueError, match="row of norm"):
        DecentralizedBoostingClassifier(n_estimators=2).fit(
            X64 * np.array([1.0, -1.0]), np.arange(8) % 2, groups=np.arange(8) // 4)


@pytest.mark.parametrize("case", _float32_cases(), ids=lambda c: c[0])
def test_float32_data_within_float64_bounds_fit(case):
    _, X32, y, g, sw = case
    ref = DecentralizedBoostingClassifier(n_estimators=10, random_state=0).fit(
        X32.astype(np.float64), y, groups=g, sample_weight=sw).predict(
        X32.astype(np.float64), groups=g)
    est = DecentralizedBoostingClassifier(n_estimators=10, random_state=0)
    np.testing.assert_array_equal(est.fit(X32, y, groups=g, sample_weight=sw).predict(
        X32, groups=g), ref)
