"""review29: the hub's Mahalanobis map reads the node means the hub holds.

``hub_whitening`` scales a node-level feature by the robust spread of "the
node means the hub already holds" (its docstring), i.e. the means the gate
delivered, which a rogue node corrupts.  Perso-lin's ``fit_gate`` and
Dada's ``run_gate`` passed every node's honest mean instead (computed from
all nodes' raw samples, which the hub never sees), so under
``rogue_fraction`` the simulated hub used values it cannot have.  The
reference is the gate's own record of what the hub received
(``_join_info["feature_means"]`` / the gate's ``means``).
"""

import numpy as np
import pytest

from skfed import _mean_scatter as ms
from skfed.boosting import PersonalizedLinearClassifier
from skfed.network import SimulatedNetwork

from .test_dada27_whitened_join import correlated_terrains


@pytest.fixture
def spy(monkeypatch):
    seen = []
    original = ms.hub_whitening

    def record(pooled, rcond=1e-10, means=None):
        seen.append(None if means is None else np.array(means))
        return original(pooled, rcond, means)

    monkeypatch.setattr(ms, "hub_whitening", record)
    return seen


@pytest.mark.parametrize("fraction", [0.2, 0.3])
def test_persolin_map_uses_the_received_means(spy, fraction):
    X, y, g = correlated_terrains()
    net = SimulatedNetwork(rogue_fraction=fraction, rogue_behavior="random", random_state=0)
    clf = PersonalizedLinearClassifier(random_state=0, network=net).fit(X, y, groups=g)
    assert clf.newcomer_rule_ == "features" and clf._join_info["rogue"].any()
    received = clf._join_info["feature_means"]
    honest = np.array([X[g == k].mean(axis=0) for k in clf.nodes_])
    assert np.abs(received - honest).max() > 1.0          # the rogue rows differ
    assert len(spy) == 1
    np.testing.assert_array_equal(spy[0], received)


def test_honest_map_unchanged(spy):
    # without rogue nodes the received means are the honest ones: same map
    X, y, g = correlated_terrains()
    clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    honest = np.array([X[g == k].mean(axis=0) for k in clf.nodes_])
    np.testing.assert_allclose(spy[0], honest, rtol=1e-12)
    np.testing.assert_array_equal(spy[0], clf._join_info["feature_means"])


def test_dada_map_uses_the_received_means(spy, monkeypatch):
    from skfed.boosting import DecentralizedBoostingClassifier
    from skfed.boosting import _dada_gate

    monkeypatch.setattr(_dada_gate, "hub_whitening", ms.hub_whitening)
    gates = []
    run_gate = _dada_gate.run_gate

    def keep(*args, **kwargs):
        gates.append(run_gate(*args, **kwargs))
        return gates[-1]

    from skfed.boosting import _dada_mean_join
    monkeypatch.setattr(_dada_mean_join, "run_gate", keep)
    X, y, g = correlated_terrains()
    net = SimulatedNetwork(rogue_fraction=0.2, rogue_behavior="random", random_state=0)
    clf = DecentralizedBoostingClassifier(n_estimators=12, random_state=0, join_neighbours="auto",
                                          network=net).fit(X, y, groups=g)
    assert clf.newcomer_rule_ == "one-class" and len(gates) == 1 and len(spy) == 1
    honest = np.array([X[g == k].mean(axis=0) for k in clf.nodes_])
    assert np.abs(gates[0]["means"] - honest).max() > 1.0
    np.testing.assert_array_equal(spy[0], gates[0]["means"])
