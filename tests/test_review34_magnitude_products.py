"""Finite inputs under check_magnitude's bound whose products overflow (review34).

``skfed._base.check_magnitude`` (stop 57) refuses a single value whose
square overflows (``|x| > 1.34e154`` in float64), for ``X`` and for
``sample_weight`` separately.  The estimators square and sum a row
(``||x||^2`` over ``d`` features, ``||x - x'||^2`` of two rows) and
multiply squares by weights (``w x^2``): inputs each under the bound still
overflow.  Each case must end as review32 required of every bad input: a
``ValueError`` naming ``X`` or ``sample_weight`` (or the node), or a fit
whose outputs are finite.

Measured at 7781cb8 (every case below a strict xfail):

* MOCHA (linear, default): two features at ``+-1.3e154`` (under the bound)
  fit silently to NaN ``coef_`` / ``intercept_`` and NaN decision values
  (``||x||^2 = 3.4e308`` overflows); accuracy 0.525.
* Dada: ``|x| = 1e100`` with every ``sample_weight = 1e120`` raises
  numpy's ``LinAlgError: Singular matrix`` (names nothing); each factor
  alone fits (accuracy 1.0).
* The online classifier: the same inputs raise "array must not contain
  infs or NaNs" (names nothing); each factor alone fits.

A bound on the largest row norm (``sqrt(max / (4 d))``) and on ``max(w) *
max(x)^2`` would refuse all three by name; the controls (each factor alone
at the same magnitude) pass today and must keep passing.
"""

import re
import warnings

import numpy as np
import pytest

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
)


def _data(d=3):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, d))
    y = (X[:, 0] > 0).astype(int)
    return X, y, np.repeat(np.arange(4), 30)


def _named_or_finite(make, X, y, groups, sample_weight=None):
    """Refused naming X / sample_weight, or every output finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            est = make().fit(X, y, groups=groups, sample_weight=sample_weight)
        except ValueError as error:
            assert re.search(r"\bX\b|sample_weight|node", str(error)), str(error)
            return
        decision = est.decision_function(X, groups=groups)
    assert np.all(np.isfinite(decision))
    for name in ("coef_", "intercept_"):
        if hasattr(est, name):
            assert np.all(np.isfinite(getattr(est, name))), name


def test_check_magnitude_bound_holds_per_value():
    # the bound review32 fixed is unchanged: one value above it is refused
    from skfed._base import check_magnitude

    with pytest.raises(ValueError, match="X holds a value"):
        check_magnitude(np.array([1.4e154]), "X")
    check_magnitude(np.array([1.3e154, -1.3e154]), "X")  # each square is finite


def test_mocha_row_norm_overflow_named_or_finite():
    X, y, g = _data(d=2)
    Xb = np.where(X > 0, 1.3e154, -1.3e154)
    Xb[:, 0] = np.where(y == 1, 1.3e154, -1.3e154)
    _named_or_finite(lambda: FederatedMultiTaskClassifier(random_state=0), Xb, y, g)


def test_mocha_row_norm_control():
    # one feature at the same magnitude: its square and norm are finite
    X, y, g = _data(d=1)
    Xb = np.where(y == 1, 1.3e154, -1.3e154)[:, None]
    _named_or_finite(lambda: FederatedMultiTaskClassifier(random_state=0), Xb, y, g)


def test_dada_weight_times_square_named_or_finite():
    X, y, g = _data()
    _named_or_finite(lambda: DecentralizedBoostingClassifier(random_state=0),
                     X * 1e100, y, g, np.full(len(y), 1e120))


def test_online_weight_times_square_named_or_finite():
    X, y, g = _data()
    _named_or_finite(lambda: DecentralizedKernelSGDClassifier(random_state=0, max_epochs=2),
                     X * 1e100, y, g, np.full(len(y), 1e120))


@pytest.mark.parametrize("scale_x, scale_w", [(1e100, 1.0), (1.0, 1e120)])
@pytest.mark.parametrize("make", [
    lambda: DecentralizedBoostingClassifier(random_state=0),
    lambda: DecentralizedKernelSGDClassifier(random_state=0, max_epochs=2),
])
def test_each_factor_alone_fits(make, scale_x, scale_w):
    X, y, g = _data()
    _named_or_finite(make, X * scale_x, y, g, np.full(len(y), scale_w))
