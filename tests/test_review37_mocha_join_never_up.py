"""review37: a fitted node the network never brings up during a MOCHA join
(FittedExchange over DropWait, drops36).  The server waits for every
fitted node's gate and rehearsal messages; after ``_MAX_JOIN_ROUNDS`` the
join fails naming the fitted nodes still owed (``FittedExchange.pending``,
the waiting nodes of each exchange's step under way), by their labels.
Checked with one and with two fitted nodes down in every round of the
join's own draws (the others up as drawn), on string labels (set on nodes_ after the fit, so a label differs from its index): the error
names exactly those, and nothing of the join is kept.
"""

import copy
from unittest import mock

import numpy as np
import pytest

from skfed.multitask import _join
from skfed.network import NetworkSimulation

from .test_mochagate34_gate_drops import _any_cost, _fit

__all__ = ["_any_cost"]   # (the fixture: any gate cost)


@pytest.mark.parametrize("never", [[3], [1, 12]])
def test_join_names_the_fitted_nodes_never_up(monkeypatch, never):
    monkeypatch.setattr(_join, "_MAX_JOIN_ROUNDS", 40)
    est, (Xn, yn, gn) = _fit(0.3)
    labels = np.array([f"node-{k}" for k in est.nodes_.tolist()], dtype=object)
    est.nodes_ = labels
    before = copy.deepcopy(est.coef_)
    draw = NetworkSimulation.draw_rounds

    def down(sim, n_rounds):
        active, work = draw(sim, n_rounds)
        active = active.copy()
        active[:, never] = False
        return active, work

    with mock.patch.object(NetworkSimulation, "draw_rounds", down), \
            pytest.raises(RuntimeError, match="had not answered") as raised:
        est.add_nodes(Xn, yn, groups=np.array([f"new-{k}" for k in gn], dtype=object))
    named = str(raised.value).split("fitted node(s) ")[1].split(" had not")[0]
    assert named == str(labels[never].tolist())
    np.testing.assert_array_equal(est.coef_, before)
    assert len(est.nodes_) == len(labels)
