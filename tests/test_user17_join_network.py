"""A join runs on the estimator's ``network`` when ``add_nodes`` is called.

growing.rst said "the join runs on the fit's simulated network"; the code
uses the ``network`` parameter at the time of the join, so a network set
with ``set_params`` after the fit applies its faults to the join (and a
fault the family does not model is refused then).  The page now says so;
this test keeps it true on the two kinds of join (a one-shot vote, a
graph join).
"""

import warnings

import numpy as np
import pytest

from skfed.boosting import PersonalizedLinearClassifier
from skfed.network import SimulatedNetwork
from skfed.support import FederatedSupportRecovery


def test_support_join_uses_the_network_set_after_the_fit():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(50), 40)
    X = rng.normal(size=(2000, 10))
    y = X[:, 1] - X[:, 4] + 0.5 * rng.normal(size=2000)
    old = groups < 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedSupportRecovery(random_state=0).fit(X[old], y[old], groups=groups[old])
        assert est.answered_.all()
        est.set_params(network=SimulatedNetwork(drop_rate=0.5, random_state=0))
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    answered_new = est.answered_[10:]
    # 40 new clients, each dropped with probability 0.5 (binomial: 8-32
    # answer with probability 1 - 3e-5); without faults all 40 would
    assert 8 <= answered_new.sum() <= 32
    # one message of ceil(10 / 8) + 16 bytes per answering new client
    assert est.join_communication_.total_bytes == answered_new.sum() * (2 + 16)


def test_graph_join_refuses_a_fault_set_after_the_fit():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat([0, 1, 2, 3, 4], 20)
    clf = PersonalizedLinearClassifier(random_state=0).fit(X[:80], y[:80], groups=groups[:80])
    clf.set_params(network=SimulatedNetwork(straggler_rate=0.3))
    with pytest.raises(ValueError, match="straggler"):
        clf.add_nodes(X[80:], y[80:], groups=groups[80:])
