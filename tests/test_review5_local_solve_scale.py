"""Perso-lin's local stopping rule and one feature in other units (open defect).

``lin_local_solve`` stops once ``max_j |g_j| <= LOCAL_TOL * max_j |g0_j|``.
When one feature's scale is 1,000x the others', ``g0`` is dominated by that
feature: the rule stops after 2 steps with the informative coefficients
still near zero (objective 0.650 against the optimum's 0.159, training
accuracy 0.625 against 1.0), without a warning.  At the estimator level
(10 nodes x 60 samples, y = sign(x1 + x2 - x3), x0 noise scaled 1,000x)
Perso-lin's test accuracy drops 98.2 -> 77.7 % while local logistic
regressions stay at 93.2 % (review5's report).  The docstring calls the
local models each node's optimum.  Marked xfail (strict) until the rule is
made invariant to a feature's scale (e.g. each g_j divided by the square
root of its diagonal curvature bound), which changes every fit's bits and
needs the lead's measurement over the data families.  Prototype (not kept):
dividing each g_j by its column's weighted RMS in the stopping rule lifts
that family 77.7 -> 94.2 % (unit-scale family unchanged at 98.2 %), but 9 of
10 nodes then stop at LOCAL_MAX_ITER (1 / L_F steps are too short for the
ill-conditioned problem): a per-coordinate step would also be needed.
"""

import numpy as np
import pytest
from scipy.optimize import minimize

import skfed.boosting._perso_lin as pl
from skfed._core._boosting_fast import lin_local_solve
from skfed.boosting._base import _LOSSES

from tests.core.test_boosting_fast import ref_lin_loss


def _node(scale):
    rng = np.random.RandomState(0)
    X = rng.randn(40, 3)
    X[:, 0] *= scale  # an uninformative feature in other units
    y = np.where(X[:, 1] + X[:, 2] > 0, 1.0, -1.0)
    Z = np.column_stack([X, np.ones(40)])
    return Z, y


def _solve(Z, y):
    loss, l2, n_pen, n = _LOSSES["logistic"](), 1e-2, 3, len(y)
    sw, offsets = np.ones(n), np.array([0, n], dtype=np.intp)
    lip = np.array([loss.py_curvature() * np.linalg.norm(Z, 2) ** 2 / n + l2])
    theta, losses, steps = np.zeros((1, 1, 4)), np.zeros((1, 1)), np.zeros(1, dtype=np.intp)
    lin_local_solve(Z, y[None, :], sw, offsets, theta, loss, np.array([1.0 / n]), lip, l2,
                    n_pen, losses, pl.LOCAL_TOL, pl.LOCAL_MAX_ITER, 0, 1, steps)
    best = minimize(lambda t: ref_lin_loss(t, Z, y, sw, l2, n_pen, loss), np.zeros(4),
                    jac=True, method="L-BFGS-B",
                    options=dict(gtol=1e-12, ftol=1e-15, maxiter=100_000))
    return theta[0, 0], losses[0, 0], int(steps[0]), best


def test_unit_scale_node_reaches_its_optimum():
    theta, value, steps, best = _solve(*_node(1.0))
    assert 0 < steps < pl.LOCAL_MAX_ITER
    assert value == pytest.approx(best.fun, rel=1e-4)


@pytest.mark.xfail(strict=True, reason="stopping rule not invariant to one feature's scale")
def test_one_feature_in_other_units_still_reaches_its_optimum():
    Z, y = _node(1e3)
    theta, value, steps, best = _solve(Z, y)
    # on main: 2 steps, objective 0.650 against 0.159, accuracy 0.625 against 1.0
    assert np.mean(np.sign(Z @ best.x) == y) == 1.0
    assert steps > 2
    assert value == pytest.approx(best.fun, rel=1e-2)
