"""A budget too small to calibrate is refused naming ``epsilon`` (review28:
epsilon 1e-12 crashed with "sigma must be a positive finite number, got
inf" deep in the noise grid; 1e-30 on support recovery with dp-accounting's
"Noise parameter ... Found 1.0")."""

import numpy as np
import pytest

from skfed import FederatedSupportRecovery
from skfed.boosting import PersonalizedLinearClassifier
from skfed.privacy import (DifferentialPrivacy, calibrate_discrete_gaussian,
                           calibrate_randomized_response)


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 3))
    return X, (X[:, 0] > 0).astype(int), np.repeat(np.arange(10), 20)


def test_tiny_epsilon_gaussian_refused_by_name():
    X, y, g = _data()
    with pytest.raises(ValueError, match=r"epsilon=1e-12.*too small"):
        PersonalizedLinearClassifier(privacy=DifferentialPrivacy(epsilon=1e-12)).fit(
            X, y, groups=g)
    with pytest.raises(ValueError, match="too small"):
        calibrate_discrete_gaussian(1e-12, 1e-6, 1.0, 10, 3)
    # a small but workable budget still calibrates: noise grows as epsilon falls
    a = calibrate_discrete_gaussian(1e-2, 1e-6, 1.0, 10, 3).sigma
    b = calibrate_discrete_gaussian(1e-3, 1e-6, 1.0, 10, 3).sigma
    assert np.isfinite(b) and b > 5 * a


def test_tiny_epsilon_randomized_response_refused_by_name():
    X, _, g = _data()
    with pytest.raises(ValueError, match=r"epsilon=1e-30.*fair coin"):
        FederatedSupportRecovery(privacy=DifferentialPrivacy(epsilon=1e-30)).fit(
            X, X[:, 0], groups=g)
    p = calibrate_randomized_response(1e-3, 0.0, 3).flip_probability
    np.testing.assert_allclose(p, 1 / (1 + np.exp(1e-3 / 3)), rtol=1e-12)
    assert p < 0.5
