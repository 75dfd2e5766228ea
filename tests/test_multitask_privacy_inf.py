"""MOCHA at ``privacy=DifferentialPrivacy(epsilon=np.inf)`` is the non-private
fit at the defaults (privacy.rst; probe item 7)."""

import numpy as np
import pytest

from skfed import (
    DifferentialPrivacy,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
)


def _nodes(regression):
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(6), 40)
    X = rng.normal(size=(240, 5))
    W = rng.normal(size=5) + 0.3 * rng.normal(size=(6, 5))
    score = (X * W[groups]).sum(1)
    y = score + 0.3 * rng.normal(size=240) if regression else (score > 0).astype(int)
    return X, y, groups


@pytest.mark.parametrize("cls", [FederatedMultiTaskClassifier, FederatedMultiTaskRegressor])
def test_infinite_epsilon_is_the_non_private_fit_at_defaults(cls):
    X, y, groups = _nodes(cls is FederatedMultiTaskRegressor)
    plain = cls(random_state=0).fit(X, y, groups=groups)
    free = cls(random_state=0, privacy=DifferentialPrivacy(epsilon=np.inf)).fit(
        X, y, groups=groups
    )
    assert plain.omega_mode_ == free.omega_mode_ == "shared"
    assert free.n_iter_ == plain.n_iter_
    assert free.n_bytes_sent_ == plain.n_bytes_sent_
    np.testing.assert_array_equal(free.coef_, plain.coef_)
    np.testing.assert_array_equal(free.intercept_, plain.intercept_)
    np.testing.assert_array_equal(free.privacy_spent_, np.full(6, np.inf))
    assert free.privacy_["noise"] == "none (epsilon=inf)"
    assert free.privacy_guarantee_void_ is False
    # omega="shared" is refused under a finite budget only.
    cls(random_state=0, omega="shared", privacy=DifferentialPrivacy(epsilon=np.inf)).fit(
        X, y, groups=groups
    )
    with pytest.raises(ValueError, match="omega='shared' has no private updates"):
        cls(random_state=0, omega="shared", privacy=DifferentialPrivacy(epsilon=1.0)).fit(
            X, y, groups=groups
        )
