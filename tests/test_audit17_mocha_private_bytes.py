"""Every noisy release of a private MOCHA fit is one counted message of its
closed-form size (mutation audit).

Under a finite budget a node's only uplink is its released update: ``d``
float64 coordinates (``n_features`` weights and the intercept), no gap terms
(a private fit sends none), plus the log's header.  So with a perfect
network, node k sends ``uses_k`` messages (its releases, as accounted in
``privacy_["uses"]``) of ``header + 8 d`` bytes each.
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed import FederatedMultiTaskRegressor  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402


@pytest.mark.parametrize("n_features,max_rounds", [(4, 3), (9, 5)])
def test_private_mocha_uplinks_are_the_releases_in_closed_form(n_features, max_rounds):
    rng = np.random.default_rng(n_features)
    K, m = 4, 30
    X = rng.normal(size=(K * m, n_features))
    y = X[:, 0] - 2 * X[:, 1] + rng.normal(size=K * m)
    groups = np.repeat(np.arange(K), m)
    d = n_features + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskRegressor(
            kernel="linear", max_rounds=max_rounds, privacy=DifferentialPrivacy(1.0, delta=1e-5),
            random_state=0).fit(X, y, groups=groups)
    log = est.communication_
    header = log.header_bytes
    assert header > 0
    uses = np.asarray(est.privacy_["uses"])
    np.testing.assert_array_equal(uses, np.full(K, max_rounds))
    sent = np.asarray(log.bytes_sent)[:K]
    messages = np.asarray(log.messages_sent)[:K]
    np.testing.assert_array_equal(messages, uses)
    np.testing.assert_array_equal(sent, uses * (header + 8 * d))
    assert est.n_bytes_sent_ == log.total_bytes
