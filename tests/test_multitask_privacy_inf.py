"""MOCHA at ``privacy=DifferentialPrivacy(epsilon=np.inf)`` is the non-private
fit at the defaults (privacy.rst; probe item 7)."""

import numpy as np
import pytest

from skfed import (
    DifferentialPrivacy,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
)

from ._helpers.data import related_linear_tasks


def _nodes(regression):
    return related_linear_tasks(np.random.RandomState(0), 6, 40, regression=regression)


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
