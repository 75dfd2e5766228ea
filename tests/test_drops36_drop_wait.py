"""The one drop-wait rule (drops36, :mod:`skfed._pending`).

A message waits for one node and is sent in that node's first round up from
its step's start; a step starts in the round the step before completes;
the nodes a step still waits for are named.  Checked on hand-computed
schedules, against a first-up reference on random draws, and through its
three users (MOCHA's ``FittedExchange`` and ``count_setup``, the gates'
``_deliver``) with hand-computed per-round bytes.
"""

import types

import numpy as np
import pytest

from skfed._core._comm import CommCounter
from skfed._mean_neighbours import _deliver
from skfed._pending import DropWait
from skfed.multitask._join_neighbours import FittedExchange
from skfed.multitask._protocol import _RoundProtocol

H = 16  # header bytes

# Rounds (rows) by nodes 0..3 (columns); True: up.
DRAWS = np.array([
    [True, False, True, False],
    [False, True, True, False],
    [True, True, False, True],
    [True, True, True, True],
])


def _schedule(wait, draws):
    """Round of every message ``{(step, position): round}`` and the nodes
    named after each round."""
    rounds, named = {}, []
    for r, active in enumerate(draws):
        for step, sent in wait.take(active):
            for position in sent.tolist():
                rounds[(step, position)] = r
        named.append(wait.waiting.tolist())
    return rounds, named


def test_hand_computed_schedule():
    # step 0: nodes 0, 1, 3, 1 (node 1 owns two messages); step 1: empty
    # (skipped); step 2: nodes 2, 0
    wait = DropWait([[0, 1, 3, 1], [], [2, 0]])
    rounds, named = _schedule(wait, DRAWS)
    # round 0: node 0 sends; 1 and 3 down.  round 1: node 1 (both its
    # messages); 3 still down.  round 2: node 3, step 0 complete, step 2
    # starts: node 0 up, node 2 down.  round 3: node 2.
    assert rounds == {(0, 0): 0, (0, 1): 1, (0, 3): 1, (0, 2): 2, (2, 1): 2, (2, 0): 3}
    assert named == [[1, 3], [3], [2], []]
    assert wait.complete and wait.take(DRAWS[0]) == []


def test_step_starts_in_the_round_the_last_completes():
    wait = DropWait([[2], [0, 2], [1]])
    first = wait.take(np.array([True, True, True]))
    # every step in one round: each completes and the next starts at once
    assert [(s, sent.tolist()) for s, sent in first] == [(0, [0]), (1, [0, 1]), (2, [0])]
    assert wait.complete


def test_every_node_up_when_active_is_none():
    wait = DropWait([[5, 5, 1], [0]])
    assert [(s, sent.tolist()) for s, sent in wait.take()] == [(0, [0, 1, 2]), (1, [0])]


def test_no_messages_is_complete():
    assert DropWait([]).complete and DropWait([[], []]).complete
    assert DropWait([[], []]).waiting.tolist() == []


def _first_up_reference(steps, draws):
    """Independent reference: a step starts at the last round of the one
    before (0 for the first); a message lands in the first round from its
    step's start in which its node is up."""
    out, start = {}, 0
    for s, nodes in enumerate(steps):
        if not len(nodes):
            continue
        landed = [start + int(np.flatnonzero(draws[start:, node])[0]) for node in nodes]
        out.update({(s, p): r for p, r in enumerate(landed)})
        start = max(landed)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_matches_first_up_reference_on_random_draws(seed):
    rng = np.random.RandomState(seed)
    n, rounds = 7, 60
    draws = rng.uniform(size=(rounds, n)) >= 0.5
    draws[-1] = True  # everyone up at the end
    steps = [rng.randint(n, size=rng.randint(0, 9)) for _ in range(4)]
    got, named = _schedule(DropWait(steps), draws)
    expected = _first_up_reference(steps, draws)
    assert got == expected
    # the nodes named after a round: those of the step under way not yet landed
    for r, names in enumerate(named):
        under_way = [s for s in range(len(steps))
                     if any(expected[(s, p)] > r for p in range(len(steps[s])))]
        if not under_way:
            assert names == []
            continue
        s = under_way[0]
        left = {int(steps[s][p]) for p in range(len(steps[s])) if expected[(s, p)] > r}
        assert names == sorted(left)


def _bytes_by_round(counter, n_rounds):
    snap = counter.snapshot(dense=True)
    return np.asarray(snap["round_bytes"])[:n_rounds].tolist()


def test_fitted_exchange_per_round_bytes_and_pending():
    counter = CommCounter(4, server=True, header_bytes=H)
    ex = FittedExchange()
    # exchange A: nodes 0-2 up 8 B; then down 24 B to 0, 2 and up 4 B from them
    ex.add([[("up", np.array([0, 1, 2]), np.array([8, 8, 8]))],
            [("down", np.array([0, 2]), np.array([24, 24])),
             ("up", np.array([0, 2]), np.array([4, 4]))]])
    # exchange B (side by side): node 3 up 100 B
    ex.add([[("up", np.array([3]), np.array([100]))]])
    done, pending = [], []
    for active in DRAWS:
        done.append(ex.take_round(counter, active))
        pending.append(ex.pending.tolist())
        counter.next_round()
    # round 0: 0, 2 up (8 each); round 1: 1 up, A's step 1 starts: 2 up
    # (24 down, 4 up); round 2: 0 (24 + 4), 3 (100); round 3: nothing.
    assert _bytes_by_round(counter, 4) == [
        2 * (8 + H), (8 + H) + (24 + H) + (4 + H), (24 + H) + (4 + H) + (100 + H), 0]
    assert pending == [[1, 3], [0, 3], [], []]
    assert done == [False, False, True, True]


class _Sim:
    """A simulation whose draws are given (``_deliver`` reads ``network``,
    ``draw_rounds`` and ``counter``)."""

    def __init__(self, draws, n, drop_rate=0.5):
        self.draws = list(draws)
        self.network = types.SimpleNamespace(drop_rate=drop_rate)
        self.counter = CommCounter(n, server=False, header_bytes=H)

    def draw_rounds(self, n_rounds):
        assert n_rounds == 1
        row = self.draws.pop(0)
        return row[None], None


def test_deliver_with_requests_hand_computed():
    sim = _Sim(DRAWS, 4)
    # senders 1 and 3 answer node 0 (50 B each); node 0 asks again every
    # round it waits (an empty request, header only)
    _deliver(sim, [1, 3], [0, 0], [50, 50], requests=True)
    # round 0: both down, 2 requests; round 1: 1 answers, 2 requests;
    # round 2: 3 answers, 1 request.
    assert _bytes_by_round(sim.counter, 3) == [2 * H, 2 * H + 50 + H, H + 50 + H]
    assert len(sim.draws) == 1  # three rounds drawn


def test_deliver_without_drops_draws_nothing():
    sim = _Sim([], 4, drop_rate=0.0)
    _deliver(sim, [1, 2, 3], [0, 0, 0], [10, 20, 30])
    assert _bytes_by_round(sim.counter, 1) == [60 + 3 * H]
    rounds = len(sim.counter.snapshot(dense=True)["round_bytes"])
    _deliver(sim, [], [], [])  # no message: no round
    assert len(sim.counter.snapshot(dense=True)["round_bytes"]) == rounds


def _protocol(up, down):
    protocol = _RoundProtocol.__new__(_RoundProtocol)  # the setup's state only
    protocol.m = len(up)
    protocol.setup_up = np.array(up, dtype=np.int64)
    protocol.setup_down = np.array(down, dtype=np.int64)
    protocol.counter = CommCounter(len(up), server=True, header_bytes=H)
    protocol.rounds_waited = 0
    return protocol


def test_count_setup_hand_computed():
    # nodes 0-3 owe 24 B up; nodes 0, 1, 3 get 8 B down (node 2: nothing)
    p = _protocol([24, 24, 24, 24], [8, 8, 0, 8])
    solving, waits = [], []
    for active in DRAWS:
        nodes = np.flatnonzero(active).astype(np.intp)
        waits.append(p.setup_waits(nodes))
        solving.append(p.count_setup(nodes).tolist())
        p.counter.next_round()
    # round 0: 0, 2 send; round 1: 1 sends (3 still owes); round 2: 3 sends,
    # the W-steps start: 0, 1, 3 get their down; round 3: nothing left
    # (node 2's down is 0)
    assert waits == [True, True, False, False]
    assert solving == [[], [], [0, 1, 3], [0, 1, 2, 3]]
    assert p.rounds_waited == 2
    assert _bytes_by_round(p.counter, 4) == [2 * (24 + H), 24 + H, 24 + H + 3 * (8 + H), 0]
    assert not p.setup_up.any() and not p.setup_down.any()


def test_count_setup_names_the_node_that_never_sent():
    p = _protocol([24, 24, 0], [8, 8, 8])
    for _ in range(3):
        assert p.count_setup(np.array([0, 2], dtype=np.intp)).tolist() == []
    # node 1 never up: it still owes its setup (what setup_note names), and
    # no node received a setup down
    assert np.flatnonzero(p.setup_up).tolist() == [1]
    assert p.setup_wait().waiting.tolist() == [1]
    assert p.setup_down.tolist() == [8, 8, 8] and p.rounds_waited == 3


def test_fitted_exchange_recorded_step_with_a_node_in_several_parts():
    # the rehearsal's shape: requests down then reports up, node 1 asked twice
    counter = CommCounter(3, server=True, header_bytes=H)
    ex = FittedExchange()
    ex.broadcast_from_server([1, 2], [8, 8])
    ex.broadcast_from_server([1], [8])
    ex.gather_to_server([1, 2], [40, 40])
    ex.gather_to_server([1], [40])
    ex.add_recorded()
    draws = np.array([[True, False, True], [True, True, False]])
    pending = []
    for active in draws:
        ex.take_round(counter, active)
        pending.append(ex.pending.tolist())
        counter.next_round()
    # round 0: node 2's request and report; round 1: node 1's two of each
    assert _bytes_by_round(counter, 2) == [(8 + H) + (40 + H), 2 * ((8 + H) + (40 + H))]
    snap = counter.snapshot(dense=True)
    assert np.asarray(snap["round_messages"])[:2].tolist() == [2, 4]
    assert pending == [[1], []]
