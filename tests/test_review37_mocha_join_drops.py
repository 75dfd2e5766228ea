"""review37: MOCHA's join exchanges under drops (DropWait via
FittedExchange, drops36) against mochagate34's closed form of the per-round
bytes, on draws its tests do not make: other network seeds and a drop rate
of 0.6 (steps that wait many rounds, the rehearsal finishing after the
gate or before it).  The reference is tests/test_mochagate34_gate_drops.py's
(rounds rebuilt from the join's recorded draws by the documented rule);
the totals, per-node bytes and models equal those of the join without
drops.
"""

import numpy as np
import pytest

from .test_mochagate34_gate_drops import (
    HEADER,
    _any_cost,
    _expected_rounds,
    _fit,
    _recorded_join,
    _rehearsal_messages,
)

__all__ = ["_any_cost"]   # (the fixture: any gate cost)


@pytest.mark.parametrize("drop,net_seed", [(0.3, 0), (0.3, 7), (0.6, 1), (0.6, 4)])
@pytest.mark.parametrize("signal", [True, False])
def test_join_rounds_by_the_rule(drop, net_seed, signal):
    est, (Xn, yn, gn) = _fit(drop, signal=signal, net_seed=net_seed)
    clean, _ = _fit(0.0, signal=signal, net_seed=net_seed)
    gate = est._join_rehearsal.neighbours
    n_new = len(np.unique(gn))
    rehearsed = _rehearsal_messages(est, Xn, yn, gn)
    active = _recorded_join(est, Xn, yn, gn)
    clean.add_nodes(Xn, yn, groups=gn)
    d = gate.means.shape[1]
    up = (2 + (d if signal else 0)) * 8 + HEADER
    down = (gate.n_problems * gate.d + 1) * 8 + HEADER
    expected = _expected_rounds(est, active, rehearsed, n_new, [up + down])
    log = est.join_communication_
    assert log.n_rounds == len(active)
    np.testing.assert_array_equal(log.bytes_per_round, expected)
    np.testing.assert_array_equal(log.bytes_sent, clean.join_communication_.bytes_sent)
    np.testing.assert_array_equal(est.coef_, clean.coef_)
