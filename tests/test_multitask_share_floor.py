"""The personal weight sent in float32 never implies a share under its floor.

Found in review: with the share at its floor (1e-9) and lambda m = 548.8, the
float32 rounding of ``mu = lambda m / (1 - b)`` fell under ``lambda m``, so the
implied share was -5.07e-8 and its logit NaN.
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from skfed.multitask._shared import _SHARE_FLOOR, _SharedFit, _logit


@pytest.mark.parametrize("lam_m", [548.8, 1.0, 3.3e-3, 0.1, 7.77e4])
@pytest.mark.parametrize("b", [_SHARE_FLOOR, 2e-9, 1e-7, 0.5, 1 - 1e-6])
def test_float32_mu_keeps_the_share_above_its_floor(lam_m, b):
    fit = SimpleNamespace(personal_mu=None, lam=lam_m, m=1, _float32_mu=lambda: True)
    mu, share = _SharedFit._personal_weight(fit, b)
    assert mu == float(np.float32(mu))  # what travels is a float32
    assert share >= _SHARE_FLOOR and math.isfinite(_logit(share))
    assert share == 1.0 - lam_m / mu  # the share the nodes' mu implies
    # the rounding moved mu by at most a few float32 steps from the exact one
    assert abs(mu - lam_m / (1 - b)) <= 4 * np.spacing(np.float32(mu))


def test_the_reviewed_case_rounded_under_the_floor_before():
    lam_m, b = 548.8, _SHARE_FLOOR
    naive = float(np.float32(lam_m / (1 - b)))
    assert 1.0 - lam_m / naive < 0  # the defect's input: plain rounding fails
