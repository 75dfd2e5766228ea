"""Perso-lin's private fit hands the Cython steps the specified clip bound,
the calibrated grid and secure noise of the right scale (mutation audit).

The closed-form tests of the privacy guide check the calibration
(``privacy_``) and the Cython step on its own (``lin_local`` called by the
test with its own clip); this one checks what a real ``fit`` passes between
the two: every ``lin_local`` / ``lin_async`` call of the fit is recorded, and

* ``clip`` is ``DifferentialPrivacy.clip_norm`` (a bound doubled or skipped in
  the fit would release gradients of twice the sensitivity the accountant
  was told);
* node k's grid step is ``z * 2 C sqrt(P) / m_k / 2^20``, ``z`` the noise
  multiplier of a discrete Gaussian calibrated independently here for the
  fit's planned releases (``n_local + ceil(a + 2 sqrt(a))``,
  ``a = max_iter / K``) at the fit's share of the budget;
* the noise integers have the standard deviation ``2^20`` of the grid
  (mean 0), within 6 standard errors, and two fits with one random_state
  get different noise.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

pytest.importorskip("dp_accounting")

import skfed.boosting._perso_lin as perso_lin  # noqa: E402
from skfed import PersonalizedLinearClassifier  # noqa: E402
from skfed._class_vote import split_budget  # noqa: E402
from skfed._secure_noise import GRID_NOISE_STEPS  # noqa: E402
from skfed.privacy import DifferentialPrivacy, calibrate_discrete_gaussian  # noqa: E402


def _recorded_fit(monkeypatch, spec, X, y, groups, max_iter):
    calls = []
    for name in ("lin_local", "lin_async"):
        real = getattr(perso_lin, name)

        def recording(*args, _real=real, _name=name, **kwargs):
            noise = kwargs.get("noise")
            calls.append((_name, kwargs.get("clip"), kwargs.get("grid_step"),
                          None if noise is None else np.array(noise, copy=True)))
            return _real(*args, **kwargs)

        monkeypatch.setattr(perso_lin, name, recording)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(max_iter=max_iter, privacy=spec, random_state=3).fit(
            X, y, groups=groups)
    return est, calls


def test_persolin_fit_passes_the_specified_clip_grid_and_noise(monkeypatch):
    X, y = make_moons(240, noise=0.2, random_state=0)
    sizes = np.array([20, 30, 40, 50, 50, 50])  # unequal nodes: per-node grid steps
    groups = np.repeat(np.arange(6), sizes)
    K, max_iter, clip, epsilon, delta = 6, 60, 0.5, 2.0, 1e-5
    spec = DifferentialPrivacy(epsilon, delta=delta, clip_norm=clip)
    est, calls = _recorded_fit(monkeypatch, spec, X, y, groups, max_iter)
    names = [c[0] for c in calls]
    assert "lin_local" in names and "lin_async" in names
    # every private step ran with the specified bound
    assert all(c[1] == clip for c in calls), sorted({c[1] for c in calls})
    # the grid step of node k, from an independent calibration: P = 1 problem,
    # 3 coordinates (2 features and the intercept)
    n_local = math.ceil(max_iter / K)
    a = max_iter / K
    n_plan = n_local + math.ceil(a + 2 * math.sqrt(a))
    # the fit's share of the budget (the rest is the class vote's public share)
    fit_epsilon, _ = split_budget(epsilon, K, True)
    assert 0 < fit_epsilon <= epsilon
    mechanism = calibrate_discrete_gaussian(fit_epsilon, delta, 1.0, n_plan, 3)
    assert est.privacy_["noise"] == pytest.approx(mechanism.sigma, rel=1e-12)
    sensitivity = 2.0 * clip / sizes
    expected_step = mechanism.sigma * sensitivity / GRID_NOISE_STEPS
    for name, _, grid_step, _ in calls:
        np.testing.assert_allclose(grid_step, expected_step, rtol=1e-9, err_msg=name)
    # the recorded spend is the accountant's for these uses
    assert np.all(est.privacy_spent_ <= epsilon + 1e-9)
    # the noise: discrete Gaussian integers of standard deviation 2^20
    noise = np.concatenate([c[3].ravel() for c in calls if c[3] is not None]).astype(float)
    n = noise.size
    assert n >= 3 * K * n_local
    sd = noise.std() / GRID_NOISE_STEPS
    assert abs(noise.mean()) / GRID_NOISE_STEPS < 6.0 / math.sqrt(n)
    assert abs(sd - 1.0) < 6.0 / math.sqrt(2 * n)
    # fresh noise: the same random_state twice gives different noise
    _, calls2 = _recorded_fit(monkeypatch, spec, X, y, groups, max_iter)
    assert not np.array_equal(calls[0][3], calls2[0][3])
