"""MOCHA's server exchanges with the fitted nodes at a join run under the
network's drops (mochagate34).

The feature-mean gate's messages (:mod:`skfed.multitask._join_neighbours`:
each fitted node's mean up; the two mean models down and its gain up; an
open gate's scatter up) and the rehearsal's request and report
(:meth:`skfed.multitask._rehearsal.Rehearsal.collect`) used to be counted
in the join's first round whatever the draws.  Reference: the rounds and
per-round bytes written again here from the join's own draws (recorded as
they are made) and the documented rule: a fitted node sends or receives a
step's messages in the first round it is not dropped once the step has
started; a step starts when the previous one is complete (the server needs
every mean before it ranks them, every gain before it decides); a newcomer
takes its first phase once every such exchange is complete, then one phase
a round in which it is not dropped.  Without drops the log is main's
(totals, per-node bytes, one round) and the models are the same under
drops as without.
"""

import copy
import unittest.mock as mock

import numpy as np
import pytest

from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.multitask import _join_coherent
from skfed.multitask import _join_neighbours as jn
from skfed.network import NetworkSimulation, SimulatedNetwork

from .test_multitask_join import HEADER
from .test_multitask_join_neighbours import _terrains


@pytest.fixture(autouse=True)
def _any_cost(monkeypatch):
    """Small fits: their gate would cost more than GATE_BYTE_SHARE of the
    fit's bytes (the share is tested in test_multitask_join_neighbours)."""
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)
    # the terrains' tasks cancel in w_0 (rho < 0.7): without the gate the
    # margin centre would act (tested in test_mochak538_coherent_centre)
    monkeypatch.setattr(_join_coherent, "COHERENCE_T", 0.0)


def _fit(drop, regression=False, signal=True, seed=0, net_seed=3, n_fit=14, k=10):
    X, y, g = _terrains(seed=seed, regression=regression, signal=signal)
    old = g < n_fit
    cls = FederatedMultiTaskRegressor if regression else FederatedMultiTaskClassifier
    est = cls(random_state=seed, network=SimulatedNetwork(drop_rate=drop, random_state=net_seed))
    est.fit(X[old], y[old], groups=g[old])
    new = np.flatnonzero(~old)
    new = np.concatenate([new[g[new] == t][:k] for t in np.unique(g[new])])
    return est, (X[new], y[new], g[new])


def _recorded_join(est, X, y, g):
    """``add_nodes`` with every round's ``active`` row of the join's draws
    recorded (the draws themselves are the library's)."""
    rows = []
    draw = NetworkSimulation.draw_rounds

    def recording(sim, n_rounds):
        active, work = draw(sim, n_rounds)
        rows.extend(active.copy())
        return active, work

    with mock.patch.object(NetworkSimulation, "draw_rounds", recording):
        est.add_nodes(X, y, groups=g)
    return np.array(rows)


def _first_up(active, nodes, start):
    """The first round >= ``start`` in which each of ``nodes`` is not dropped."""
    out = []
    for i in nodes:
        r = start
        while r < len(active) and not active[r, i]:
            r += 1
        if r == len(active):
            pytest.fail(f"the join's log ended before node {i} was up after round {start}")
        out.append(r)
    return np.array(out, dtype=np.intp)


def _expected_rounds(est, active, rehearsed, n_new, newcomer_bytes):
    """Per-round bytes of the join by the rule (module docstring).

    ``rehearsed``: ``{node: (request bytes, report bytes)}`` (headers
    included) of the rehearsal's messages; ``newcomer_bytes``: the bytes of
    each of a newcomer's phases (one phase a round)."""
    gate = est._join_rehearsal.neighbours
    m, d = gate.means.shape
    P, dp = gate.n_problems, gate.d
    n_fit = m
    per_round = np.zeros(len(active), dtype=np.int64)
    nodes = np.arange(n_fit)
    # the gate: means up; then models down and gain up; then (open) scatters
    r1 = _first_up(active, nodes, 0)
    per_round += np.bincount(r1, minlength=len(active)) * (d * 8 + HEADER)
    r2 = _first_up(active, nodes, r1.max())
    per_round += np.bincount(r2, minlength=len(active)) * (2 * P * dp * 8 + 8 + 2 * HEADER)
    done = r2.max()
    if gate.open:
        r3 = _first_up(active, nodes, done)
        per_round += np.bincount(r3, minlength=len(active)) * (
            d * (d + 1) // 2 * jn.SCATTER_BYTES + HEADER)
        done = r3.max()
    # the rehearsal: each asked node's request and report in one round
    if rehearsed:
        asked = np.array(sorted(rehearsed))
        ra = _first_up(active, asked, 0)
        for node, r in zip(asked, ra):
            per_round[r] += sum(rehearsed[node])
        done = max(done, ra.max())
    # the newcomers: one phase a round in which they are not dropped
    newcomers = n_fit + np.arange(n_new)
    start = np.full(n_new, done)
    for phase_bytes in newcomer_bytes:
        r = np.array([_first_up(active, [j], s)[0] for j, s in zip(newcomers, start)])
        per_round += np.bincount(r, minlength=len(active)) * phase_bytes
        start = r + 1
    return per_round


def _rehearsal_messages(est, X, y, g):
    """The rehearsal's messages of this join, by node, as the library counts
    them (a counter that records: the rehearsal's own byte model is tested
    in tests/test_multitask_rehearsal*.py)."""
    probe = copy.deepcopy(est)
    messages = {}

    class Recorder:
        def broadcast_from_server(self, nodes, payloads):
            for i, b in zip(nodes.tolist(), payloads.tolist()):
                messages.setdefault(i, [0, 0])[0] += b + HEADER

        def gather_to_server(self, nodes, payloads):
            for i, b in zip(nodes.tolist(), payloads.tolist()):
                messages.setdefault(i, [0, 0])[1] += b + HEADER

    collect = type(probe._join_rehearsal).collect

    def recording(self, counter, asked, float_bytes):
        return collect(self, Recorder(), asked, float_bytes)

    with mock.patch.object(type(probe._join_rehearsal), "collect", recording):
        probe.add_nodes(X, y, groups=g)
    return {k: tuple(v) for k, v in messages.items()}


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("signal", [True, False])
def test_gate_and_rehearsal_run_under_the_join_drops(regression, signal):
    est, (Xn, yn, gn) = _fit(0.3, regression=regression, signal=signal)
    clean, _ = _fit(0.0, regression=regression, signal=signal)
    gate = est._join_rehearsal.neighbours
    assert gate is not None and not gate.counted and gate.open == signal
    n_new = len(np.unique(gn))
    rehearsed = _rehearsal_messages(est, Xn, yn, gn)
    assert rehearsed  # (this join rehearses sizes)
    active = _recorded_join(est, Xn, yn, gn)
    clean.add_nodes(Xn, yn, groups=gn)
    log, clean_log = est.join_communication_, clean.join_communication_
    # the newcomer's one phase: up its size and weight (and open: its mean),
    # down w_0 / its centre and its prior weight
    d = gate.means.shape[1]
    up = (2 + (d if signal else 0)) * 8 + HEADER
    down = (gate.n_problems * gate.d + 1) * 8 + HEADER
    expected = _expected_rounds(est, active, rehearsed, n_new, [up + down])
    assert log.n_rounds == len(active) > 1
    np.testing.assert_array_equal(log.bytes_per_round, expected)
    # some fitted node was dropped in the first round: the log used to put
    # its gate messages there
    assert not active[0, :gate.means.shape[0]].all()
    # the same messages as without drops, and the same models
    assert log.total_bytes == clean_log.total_bytes
    np.testing.assert_array_equal(log.bytes_sent, clean_log.bytes_sent)
    np.testing.assert_array_equal(est.coef_, clean.coef_)
    np.testing.assert_array_equal(est.intercept_, clean.intercept_)
    assert clean_log.n_rounds == 1


def test_without_drops_the_join_log_is_mains():
    """Main's numbers for this join: one round, 4,375 bytes, each fitted
    node's gate and rehearsal messages and each newcomer's phase (7781cb8:
    3,367; mochapop37 added the draws' feature means up and their centres
    down, closed form in tests/test_mochapop37_draw_centres.py)."""
    est, (Xn, yn, gn) = _fit(0.0)
    est.add_nodes(Xn, yn, groups=gn)
    log = est.join_communication_
    assert log.n_rounds == 1 and log.total_bytes == 4375
    assert log.bytes_sent.tolist() == [167, 167, 168, 168, 167, 167, 168, 168, 167, 168, 168,
                                       167, 167, 168, 56, 56, 1918]
    # a second join sends no gate exchange again
    again = copy.deepcopy(est)
    again.add_nodes(Xn[:10] + 0.1, yn[:10], groups=np.full(10, 99))
    assert again.join_communication_.n_rounds == 2


def test_a_second_join_under_drops_sends_no_gate_again():
    est, (Xn, yn, gn) = _fit(0.3)
    est.add_nodes(Xn, yn, groups=gn)
    assert est._join_rehearsal.neighbours.counted
    first = est.join_communication_.n_rounds
    X2, y2, g2 = Xn[:10] + 0.1, yn[:10], np.full(10, 99)
    rehearsed = _rehearsal_messages(est, X2, y2, g2)
    assert not rehearsed  # (its size was rehearsed by the first join)
    active = _recorded_join(est, X2, y2, g2)
    # only the newcomer's phase (its mean with the gate open), in the first
    # round it is not dropped
    gate = est._join_rehearsal.neighbours
    d = gate.means.shape[1]
    phase = (2 + d) * 8 + HEADER + (gate.n_problems * gate.d + 1) * 8 + HEADER
    r = _first_up(active, [len(est.nodes_) - 1], 0)[0]
    assert est.join_communication_.n_rounds == first + len(active) == first + r + 1
    assert est.join_communication_.bytes_per_round[first:].tolist() == [0] * r + [phase]


def test_fitted_nodes_that_never_answer_are_named(monkeypatch):
    import skfed.multitask._join as join

    monkeypatch.setattr(join, "_MAX_JOIN_ROUNDS", 3)
    est, (Xn, yn, gn) = _fit(0.0)
    est.set_params(network=SimulatedNetwork(drop_rate=0.95, random_state=0))
    with pytest.raises(RuntimeError, match="fitted node"):
        est.add_nodes(Xn, yn, groups=gn)


def test_parallel_node_solves_log_the_same_join():
    """A fit whose node solves ran in parallel (joblib's threads, as under
    an engine's backend) joins with the same rounds, bytes and models: the
    join's exchanges run in the user's process under the join's draws."""
    import joblib

    est, (Xn, yn, gn) = _fit(0.3)
    X, y, g = _terrains(seed=0)
    old = g < 14
    par = FederatedMultiTaskClassifier(
        random_state=0, n_jobs=2, network=SimulatedNetwork(drop_rate=0.3, random_state=3))
    with joblib.parallel_config(backend="threading"):
        par.fit(X[old], y[old], groups=g[old])
    est.add_nodes(Xn, yn, groups=gn)
    par.add_nodes(Xn, yn, groups=gn)
    a, b = est.join_communication_, par.join_communication_
    assert a.n_rounds == b.n_rounds > 1
    np.testing.assert_array_equal(a.bytes_per_round, b.bytes_per_round)
    np.testing.assert_array_equal(a.bytes_sent, b.bytes_sent)
    np.testing.assert_array_equal(est.coef_, par.coef_)


def test_stragglers_do_not_delay_the_gate():
    """A straggler finishes its part of a join (no deadline): with the same
    drop draws, stragglers leave the join's rounds and bytes as they are."""
    logs = []
    for straggler_rate in (0.0, 0.6):
        X, y, g = _terrains(seed=0)
        old = g < 14
        net = SimulatedNetwork(drop_rate=0.3, straggler_rate=straggler_rate, random_state=3)
        est = FederatedMultiTaskClassifier(random_state=0, network=net)
        est.fit(X[old], y[old], groups=g[old])
        assert est._join_rehearsal.neighbours.open
        new = np.flatnonzero(~old)
        new = np.concatenate([new[g[new] == t][:10] for t in np.unique(g[new])])
        est.add_nodes(X[new], y[new], groups=g[new])
        logs.append(est.join_communication_)
    assert logs[0].n_rounds == logs[1].n_rounds > 1
    np.testing.assert_array_equal(logs[0].bytes_per_round, logs[1].bytes_per_round)
