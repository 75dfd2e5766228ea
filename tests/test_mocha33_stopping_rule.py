"""The learned-Omega stopping rule's decisions on hand-built sequences (mocha33).

``_StoppingRule`` is fed the rounds' gaps and the joint objectives ``(J,
joint dual)`` an engine would report; every decision is checked against the
rule as the user guide states it (multitask.rst, "Stopping rule"): an Omega
step is due once the W-step's relative gap is at most ``10 tol`` (or every
``omega_update_every`` rounds); after a finished W-step the fit stops when
``J`` changed by at most ``tol`` relative since the previous finished
W-step (an increase as well as a decrease: the change is measured with
W-steps solved only to ``10 tol``, see benchmarks/mocha_stopping.py) or
when ``J`` minus the best joint dual is at most ``tol J``.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from skfed.multitask._omega import _StoppingRule


def _rule(tol=1e-3, every=None, learn=True):
    return _StoppingRule(SimpleNamespace(tol=tol, omega_update_every=every), learn)


def _round(rule, gap, primal, joint=None):
    """One round: ``(due, stop)``; ``joint`` = the engine's ``(J, joint dual)``."""
    due = rule.omega_step_due(gap, primal)
    if not due:
        return False, rule.without_omega_step(gap, primal, primal - gap)
    stop = rule.before_omega_step(primal, primal - gap, None, None, 1.0, joint=joint)
    if not stop:
        rule.after_omega_step(primal, primal - gap, None, None, 1.0, joint=joint)
    return True, stop


def test_omega_step_due_at_ten_tol():
    rule = _rule()
    assert _round(rule, 0.5, 10.0) == (False, False)  # 5e-2 > 1e-2
    assert _round(rule, 0.1000001, 10.0) == (False, False)
    assert _round(rule, 0.1, 10.0, joint=(9.0, -50.0)) == (True, False)  # first: no change yet
    assert rule.last_change is None and rule.last_done == 9.0
    np.testing.assert_array_equal(np.isnan(rule.curve), [True, True, False])
    assert rule.curve[-1] == 9.0


@pytest.mark.parametrize("J2, stops", [
    (8.0, False),               # decrease 1 / 8 > tol
    (8.991, False),             # decrease 0.009 / 8.991 = 1.001e-3: just above tol
    (9.0 * (1 - 5e-4), True),   # decrease 5e-4 <= tol
    (9.0 * (1 + 8e-4), True),   # increase 8e-4 <= tol: stops too
    (9.0 * (1 + 2e-3), False),  # increase 2e-3 > tol
])
def test_stop_on_a_relative_change_of_at_most_tol(J2, stops):
    rule = _rule(1e-3)
    _round(rule, 0.05, 10.0, joint=(9.0, -50.0))
    due, stop = _round(rule, 0.05, 10.0, joint=(J2, -50.0))
    assert due and rule.last_change == pytest.approx(abs(9.0 - J2) / J2, rel=1e-12)
    assert stop == stops == rule.stop_before_step
    # a stop keeps the W-step's models: no Omega step after it is recorded
    assert rule.stepped == (not stops)


def test_stop_on_the_certified_joint_gap_and_the_best_dual_is_kept():
    rule = _rule(1e-3)
    # a good dual seen at an Omega step is kept for later bounds
    assert _round(rule, 0.05, 10.0, joint=(5.1, 4.997)) == (True, False)  # (5.1-4.997)/5.1 > tol
    assert rule.best_dual == 4.997
    # the next W-step's own joint dual is worse, the best one certifies it:
    # (5.0 - 4.997) / 5.0 = 6e-4 <= tol although J changed by 2 %
    assert _round(rule, 0.05, 10.0, joint=(5.0, 3.0)) == (True, True)
    assert rule.joint_gap == pytest.approx(5.0 - 4.997)


def test_scheduled_omega_steps_do_not_stop_an_unfinished_w_step():
    rule = _rule(1e-3, every=2)
    assert _round(rule, 1.0, 10.0) == (False, False)
    # due by the schedule, gap 1e-1 > 10 tol: J unchanged does not stop
    assert _round(rule, 1.0, 10.0, joint=(9.0, -50.0)) == (True, False)
    assert _round(rule, 1.0, 10.0) == (False, False)
    assert _round(rule, 1.0, 10.0, joint=(9.0, -50.0)) == (True, False)
    assert rule.last_done is None  # no finished W-step yet
    # a finished W-step right after the scheduled step compares with none yet
    assert _round(rule, 0.05, 10.0, joint=(9.0, -50.0)) == (True, False)
    assert _round(rule, 0.05, 10.0, joint=(9.0, -50.0)) == (True, True)


def test_fixed_omega_stops_on_the_duality_gap():
    rule = _rule(1e-3, learn=False)
    assert _round(rule, 0.0101, 10.0) == (False, False)
    assert _round(rule, 0.01, 10.0) == (False, True)
    assert rule.joint == (10.0, 10.0 - 0.01)
