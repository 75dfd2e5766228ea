"""Finite but huge (or tiny) magnitudes: refused by name or fitted to finite
outputs (review32).

``tests/test_bad_input.py`` probes NaN / inf and every numeric
hyper-parameter at ``1e9``; it has no finite input whose arithmetic
overflows: a feature value whose square exceeds the largest float64
(``|x| > 1.34e154``), a sample weight or ``C`` so large that a derived
quantity underflows.  Each case here must end as every bad input should:
a ``ValueError`` / ``TypeError`` whose message names the parameter (``X``,
``sample_weight``, ``C``) or the node, or a fit whose outputs are finite.
Estimators that already pass (Local, Dada, Perso-lin at the same inputs,
measured at 8354eb6) are checked too, so a regression shows.

Defects found (each was a strict xfail; fixed by check_magnitude in
skfed/_base.py for X and sample_weight, and MOCHA refusing C n_samples
above 8.5e37, where lambda underflows in float32):

* MOCHA's shared mode (the default ``omega="auto"`` on these data):
  ``C >= 1e45`` or sample weights scaled by ``1e45`` crash with
  ``ZeroDivisionError`` in ``skfed/multitask/_shared.py``
  (``_personal_weight``: ``mu = lambda m / (1 - b)`` cast to float32
  underflows to 0, then ``lambda m / float(mu)``); ``C = 1e40`` fits.
* MOCHA: one feature value ``>= 1.35e155`` on node 0 leaves node 0 with a
  NaN model (``coef_[0]`` NaN, every decision value of node 0 NaN), the
  other nodes finite; nothing warns.  ``1e154`` fits.
* ``FederatedSparseLinearRegression``: the same value makes the fit raise
  SciPy's "array must not contain infs or NaNs" from ``linalg.lstsq``
  (``skfed/support/_sparse_linear.py``, the refit), naming neither ``X``
  nor the node; one sample weight of ``1e160`` is accepted and node 0's
  predictions are NaN.
* The online learners: one sample weight of ``1e160`` raises "array must
  not contain infs or NaNs", naming neither ``sample_weight`` nor the node.
"""

import re
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    FederatedSparseLinearRegression,
    LocalEstimator,
    PersonalizedLinearClassifier,
)


def _data(regression):
    rng = np.random.RandomState(0)
    w = np.random.RandomState(99).normal(size=5)
    X, y, g = [], [], []
    for k in range(10):
        x = rng.normal(size=(30, 5))
        t = x @ (w + 0.3 * rng.normal(size=5))
        X.append(x)
        y.append(t if regression else (t > 0).astype(int))
        g.append(np.full(30, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def _refused_by_name_or_finite(fit, names, outputs):
    """``fit()`` raises ValueError/TypeError naming one of ``names`` or a
    node, or returns an estimator whose ``outputs(est)`` are all finite."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = fit()
    except (ValueError, TypeError) as error:
        pattern = "|".join([rf"\b{re.escape(n)}\b" for n in names] + [r"\bnode\b"])
        assert re.search(pattern, str(error)), f"refused without naming {names}: {error}"
        return
    values = np.asarray(outputs(est), dtype=float)
    assert np.isfinite(values).all(), (
        f"accepted with {int((~np.isfinite(values)).sum())} non-finite outputs")


def _decisions(X, g):
    def outputs(est):
        f = est.decision_function if hasattr(est, "decision_function") else est.predict
        return f(X, groups=g)
    return outputs




@pytest.mark.parametrize("make", [
    pytest.param(lambda C: FederatedMultiTaskClassifier(C=C, max_rounds=5, random_state=0), id="mocha-classifier"),
    pytest.param(lambda C: FederatedMultiTaskRegressor(C=C, max_rounds=5, random_state=0), id="mocha-regressor"),
])
def test_huge_C(make):
    regression = "Regressor" in type(make(1.0)).__name__
    X, y, g = _data(regression)
    # C = 1e30 fits (lambda = 1 / (C n) stays a normal float32 up to C n = 8.5e37)
    est = make(1e30).fit(X, y, groups=g)
    assert np.isfinite(est.coef_).all()
    _refused_by_name_or_finite(lambda: make(1e45).fit(X, y, groups=g), ["C"], _decisions(X, g))


@pytest.mark.parametrize("make", [
    pytest.param(lambda: FederatedMultiTaskClassifier(max_rounds=5, random_state=0), id="mocha"),
    pytest.param(lambda: LocalEstimator(LogisticRegression()), id="local"),
    pytest.param(lambda: PersonalizedLinearClassifier(max_iter=40, random_state=0),
                 id="persolin"),
    pytest.param(lambda: DecentralizedBoostingClassifier(n_estimators=10, max_iter=40,
                                                         random_state=0), id="dada"),
])
def test_uniformly_scaled_sample_weights(make):
    """Every weight times 1e45: the weighted objective is the unweighted one
    at another ``C`` for MOCHA; refused by name or finite."""
    X, y, g = _data(False)
    _refused_by_name_or_finite(
        lambda: make().fit(X, y, groups=g, sample_weight=np.full(len(y), 1e45)),
        ["sample_weight", "C"], _decisions(X, g))


@pytest.mark.parametrize("make, regression", [
    pytest.param(lambda: FederatedMultiTaskClassifier(max_rounds=5, random_state=0), False, id="mocha"),
    pytest.param(lambda: FederatedSparseLinearRegression(random_state=0), True, id="sparse"),
    pytest.param(lambda: LocalEstimator(LogisticRegression()), False, id="local"),
    pytest.param(lambda: PersonalizedLinearClassifier(max_iter=40, random_state=0), False,
                 id="persolin"),
    pytest.param(lambda: DecentralizedBoostingClassifier(n_estimators=10, max_iter=40,
                                                         random_state=0), False, id="dada"),
])
def test_feature_value_whose_square_overflows(make, regression):
    X, y, g = _data(regression)
    big = X.copy()
    big[0, 0] = 1e200  # node 0; its square is inf in float64
    _refused_by_name_or_finite(lambda: make().fit(big, y, groups=g), ["X"], _decisions(X, g))


def test_mocha_fits_just_below_the_overflow():
    """The MOCHA case above is the overflow itself: 1e154 (square 1e308) fits
    to a finite model on every node."""
    X, y, g = _data(False)
    big = X.copy()
    big[0, 0] = 1e154
    est = FederatedMultiTaskClassifier(max_rounds=5, random_state=0).fit(big, y, groups=g)
    assert np.isfinite(est.decision_function(X, groups=g)).all()


@pytest.mark.parametrize("make, regression", [
    pytest.param(lambda: FederatedSparseLinearRegression(random_state=0), True, id="sparse"),
    pytest.param(lambda: DecentralizedKernelSGDClassifier(max_epochs=2, random_state=0), False, id="online-classifier"),
    pytest.param(lambda: DecentralizedKernelSGDRegressor(max_epochs=2, random_state=0), True, id="online-regressor"),
    pytest.param(lambda: PersonalizedLinearClassifier(max_iter=40, random_state=0), False,
                 id="persolin"),
    pytest.param(lambda: DecentralizedBoostingClassifier(n_estimators=10, max_iter=40,
                                                         random_state=0), False, id="dada"),
])
def test_one_huge_sample_weight(make, regression):
    X, y, g = _data(regression)
    weight = np.ones(len(y))
    weight[0] = 1e160  # node 0
    _refused_by_name_or_finite(lambda: make().fit(X, y, groups=g, sample_weight=weight),
                               ["sample_weight"], _decisions(X, g))
