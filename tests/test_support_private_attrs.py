"""A private FederatedSupportRecovery keeps nothing a client computed but
never sent (probe item 5) and lists what it treats as public."""

import warnings

import numpy as np

from skfed import DifferentialPrivacy, FederatedSupportRecovery


def _clients(seed=0):
    rng = np.random.RandomState(seed)
    sizes = np.array([60, 60, 30, 24, 16, 12, 8, 6, 5, 3])
    groups = np.repeat(np.arange(10), sizes)
    X = rng.normal(size=(len(groups), 20))
    y = 1.5 * X[:, :3].sum(1) + 0.3 * rng.normal(size=len(groups))
    return X, y, groups


def test_private_fit_keeps_no_unsent_per_client_quantities():
    X, y, groups = _clients()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
        private = FederatedSupportRecovery(
            privacy=DifferentialPrivacy(epsilon=1.0), random_state=0
        ).fit(X, y, groups=groups)
        free = FederatedSupportRecovery(
            privacy=DifferentialPrivacy(epsilon=np.inf), random_state=0
        ).fit(X, y, groups=groups)
    # Without privacy they show the test each client ran: the OLS test
    # needs n_t >= d + 4 = 24 samples.
    np.testing.assert_array_equal(plain.ols_clients_, [1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    assert private.ols_clients_ is None and private.n_controls_ is None
    # epsilon=inf is the non-private fit, attributes included.
    np.testing.assert_array_equal(free.ols_clients_, plain.ols_clients_)
    np.testing.assert_array_equal(free.n_controls_, plain.n_controls_)
    np.testing.assert_array_equal(free.support_, plain.support_)
    assert sorted(private.privacy_public_) == [
        "answering_clients", "n_features", "parameters", "reported_features",
        "rogue_clients"
    ]
    assert "randomized zeros" in private.privacy_public_["answering_clients"]
    assert not hasattr(plain, "privacy_public_")
