"""small36: a MOCHA node the network never brings up during the fit.

``_RoundProtocol.count_setup`` counts a node's setup message up in its
first round up.  Is the setup of a node that is never up logged anyway?
Checked on a recorded schedule in which node ``"c"`` is dropped in every
round (the fit's own draws, node c's column set to down), against the
closed form: node c sends nothing (no setup, no message at all), every
other node sends its setup once in round 0, no node solves (the server
never holds c's setup), and the final delivery brings every node, c too,
its setup down and its Sigma information; the warning names c.  It holds
(no fix needed): these tests guard it.
"""

import warnings
from unittest import mock

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skfed.multitask import FederatedMultiTaskClassifier
from skfed.network import NetworkSimulation

HEADER, F = 16, 8
LABELS = np.array(list("abcde"))
NEVER = 2   # node "c"


def _data(d=4, n=20, seed=0):
    rng = np.random.RandomState(seed)
    g = np.repeat(LABELS, n)
    X = rng.normal(size=(len(g), d))
    return X, (X[:, 0] + 0.3 * rng.normal(size=len(g)) > 0).astype(int), g


def _fit_never_up(est, X, y, g):
    """Fit with node c down in every round; returns the warnings' texts."""
    draw = NetworkSimulation.draw_rounds

    def down(sim, n_rounds):
        active, work = draw(sim, n_rounds)
        active = active.copy()
        active[:, NEVER] = 0
        return active, work

    with warnings.catch_warnings(record=True) as caught, \
            mock.patch.object(NetworkSimulation, "draw_rounds", down):
        warnings.simplefilter("always", ConvergenceWarning)
        est.fit(X, y, groups=g)
    return [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


@pytest.mark.parametrize("max_rounds", [3, 7])
def test_gamma_setup_of_a_node_never_up_is_not_logged(max_rounds):
    X, y, g = _data()
    m = len(LABELS)
    est = FederatedMultiTaskClassifier(kernel="rbf", gamma="scale", approximation=None,
                                       max_rounds=max_rounds, random_state=0)
    messages = _fit_never_up(est, X, y, g)
    log = est.communication_
    up = HEADER + 3 * F                 # count, sum and sum of squares
    # the final delivery: gamma down, the node's Sigma row and rho (exact mode)
    final = HEADER + F + (m + 1) * F
    expected_sent = np.array([up, up, 0, up, up, m * final])
    np.testing.assert_array_equal(log.bytes_sent, expected_sent)
    np.testing.assert_array_equal(log.messages_sent, [1, 1, 0, 1, 1, m])
    np.testing.assert_array_equal(log.bytes_received, [final] * m + [(m - 1) * up])
    per_round = np.zeros(max_rounds, dtype=np.int64)
    per_round[0], per_round[-1] = (m - 1) * up, m * final
    np.testing.assert_array_equal(est.bytes_per_round_, per_round)
    assert np.all(est.decision_function(X, groups=g) == 0.0)   # no node solved
    note = [t for t in messages if "NO NODE EVER SOLVED" in t]
    assert len(note) == 1 and "node 'c' never sent its setup" in note[0]


def test_warm_start_setup_of_a_node_never_up_is_not_logged():
    X, y, g = _data()
    m, d = len(LABELS), X.shape[1]
    est = FederatedMultiTaskClassifier(warm_start=True, max_rounds=6, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y, groups=g)
    before = est.decision_function(X, groups=g)
    messages = _fit_never_up(est, X, y, g)
    log = est.communication_
    up = HEADER + (d + 1) * F           # the previous dual variables' sums
    assert log.bytes_sent[NEVER] == 0 and log.messages_sent[NEVER] == 0
    np.testing.assert_array_equal(np.delete(log.bytes_sent[:m], NEVER), up)
    # round 0: the four setups up; no round before the last sends anything
    assert est.bytes_per_round_[0] == (m - 1) * up
    assert not np.any(est.bytes_per_round_[1:-1])
    # the previous fit's model (its dual variables, rebuilt: rounding apart)
    np.testing.assert_allclose(est.decision_function(X, groups=g), before, rtol=1e-10)
    note = [t for t in messages if "NO NODE EVER SOLVED" in t]
    assert len(note) == 1 and "node 'c' never sent its setup" in note[0]
