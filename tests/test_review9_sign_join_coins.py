"""Review9 (review8's question): a sign-vote join without an integer ``random_state``.

Under ``vote="sign"`` a client whose statistic for a feature is undefined
(a feature constant on its rows) sends a fair coin drawn from the public
seed ``_sign_seed()`` and its node index.  With an integer
``random_state`` the join draws the fit's seed, so ``add_nodes`` equals a
fit on all clients (``tests/test_support_sign_vote.py``).  With None or a
``RandomState`` instance each call draws a fresh seed, so the new clients'
coins differ from the ones a fit on all clients would have drawn.  Decided:
not a defect.  A coin only has to be fair and independent of the other
clients' coins, and a fit with None is not reproducible anyway.  These
checks pin that: the new clients' coins are fair and do not repeat the
fitted clients' coins.
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedSupportRecovery


def _data():
    rng = np.random.default_rng(0)
    n_clients, n, d = 400, 10, 10
    groups = np.repeat(np.arange(n_clients), n)
    X = rng.standard_normal((n_clients * n, d))
    X[:, 5] = 0.0  # constant on every client: its sign is a coin everywhere
    y = 2 * X[:, 0] - X[:, 2] + rng.standard_normal(len(groups))
    return X, y, groups


@pytest.mark.parametrize("random_state", [None, "instance", 4])
def test_new_clients_coins_are_fair_and_their_own(random_state):
    X, y, groups = _data()
    np.random.seed(12)  # random_state=None draws from NumPy's global state
    if random_state == "instance":
        random_state = np.random.RandomState(3)
    old = groups < 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedSupportRecovery(vote="sign", random_state=random_state)
        est.fit(X[old], y[old], groups=groups[old])
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    coins = est.client_supports_[:, 5]
    assert coins.shape == (400,)
    # Fair: within 4.5 standard deviations of 1/2 (200 coins: 0.159).
    assert abs(coins[:200].mean() - 0.5) < 0.159
    assert abs(coins[200:].mean() - 0.5) < 0.159
    # Their own: the new clients' coins do not repeat the fitted clients'
    # (the coins of node i and node 200 + i agree about half of the time).
    assert abs((coins[:200] == coins[200:]).mean() - 0.5) < 0.159
    np.testing.assert_array_equal(est.get_support(indices=True), [0, 2])
