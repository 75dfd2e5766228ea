"""A newcomer's requests to its chosen nodes (drops37, :func:`skfed._pending.ask_until_answered`).

The feature-mean joins (Dada / Perso-lin's ``mean_join``, the online
classifier's ``_join_features``) asked their chosen nodes with a loop of
their own; drops37 moved both onto one step of :class:`DropWait`.  Checked
against that loop (written out here in NumPy) on random draws, on a
hand-computed schedule, and through a Perso-lin feature join under drops.
"""

import types

import numpy as np
import pytest
from skfed._core._comm import CommCounter

from skfed._pending import ask_until_answered


class _Sim:
    """The parts of a NetworkSimulation the helper uses: scripted draws and
    a counter that records every message by round."""

    def __init__(self, draws):
        self.draws = list(draws)
        self.n_drawn = 0
        self.events = [[]]
        self.counter = types.SimpleNamespace(send_pairs=self._pairs, next_round=self._next)

    def draw_rounds(self, n):
        assert n == 1
        active = self.draws[self.n_drawn]
        self.n_drawn += 1
        return active[None], None

    def _pairs(self, src, dst, n_bytes):
        self.events[-1] += list(zip(np.asarray(src).tolist(), np.asarray(dst).tolist(),
                                    np.asarray(n_bytes).tolist()))

    def _next(self):
        self.events.append([])


def _reference(sim, askers, chosen, payloads):
    """The joins' loop before drops37: every round, each asker that still
    waits asks the nodes that have not answered; those up answer."""
    received = [{} for _ in chosen]
    calls = []
    while any(len(received[k]) < len(chosen[k]) for k in range(len(chosen))):
        active = sim.draw_rounds(1)[0][0]
        for k in range(len(chosen)):
            todo = np.array([j for j in chosen[k] if j not in received[k]], dtype=np.intp)
            if not len(todo):
                continue
            sim.counter.send_pairs(np.full(len(todo), askers[k]), todo, np.zeros(len(todo)))
            got = todo[active[todo]]
            sim.counter.send_pairs(got, np.full(len(got), askers[k]), payloads[got])
            calls.append((sim.n_drawn - 1, k, got.tolist()))
            for j in got.tolist():
                received[k][j] = True
        sim.counter.next_round()
    return calls


def _run(sim, askers, chosen, payloads):
    calls = []

    def answer(k, got):
        sim.counter.send_pairs(got, np.full(len(got), askers[k]), payloads[got])
        calls.append((sim.n_drawn - 1, k, got.tolist()))

    ask_until_answered(sim, askers, chosen, answer)
    return calls


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("drop", [0.0, 0.3, 0.7])
def test_matches_the_joins_loop(seed, drop):
    rng = np.random.RandomState(seed)
    n_old, n_new = 12, 4
    askers = n_old + np.arange(n_new)
    chosen = [rng.permutation(n_old)[:rng.randint(0, 5)] for _ in range(n_new)]
    payloads = rng.randint(1, 100, size=n_old + n_new)
    draws = rng.uniform(size=(200, n_old + n_new)) >= drop
    draws[-1] = True
    a, b = _Sim(draws), _Sim(draws)
    assert _run(a, askers, chosen, payloads) == _reference(b, askers, chosen, payloads)
    assert a.events == b.events and a.n_drawn == b.n_drawn
    # the rounds end when the last chosen node is first up
    last = max([np.flatnonzero(draws[:, j])[0] for c in chosen for j in c], default=-1)
    assert a.n_drawn == last + 1
    # a request to node j in every round up to its first round up
    n_requests = sum(1 for e in a.events for src, _, _ in e if src >= n_old)
    assert n_requests == sum(np.flatnonzero(draws[:, j])[0] + 1 for c in chosen for j in c)


def test_hand_computed_rounds():
    # asker 5 asks 0 and 2, asker 6 asks 1; node 2 is down in rounds 0-1,
    # node 1 in round 0
    draws = np.array([[True, False, False, True, True, True, True],
                      [True, True, False, True, True, True, True],
                      [False, False, True, True, True, True, True]])
    sim = _Sim(draws)
    calls = _run(sim, np.array([5, 6]), [np.array([0, 2]), np.array([1])], np.arange(7) + 10)
    assert calls == [(0, 0, [0]), (0, 1, []), (1, 0, []), (1, 1, [1]), (2, 0, [2])]
    # requests (0 bytes) every round a node is owed; answers carry its payload
    assert sim.events == [[(5, 0, 0), (5, 2, 0), (0, 5, 10), (6, 1, 0)],
                          [(5, 2, 0), (6, 1, 0), (1, 6, 11)],
                          [(5, 2, 0), (2, 5, 12)], []]


def test_nothing_chosen_draws_nothing():
    sim = _Sim([])
    assert _run(sim, np.zeros(0, np.intp), [], np.zeros(0)) == []
    sim = _Sim([])
    assert _run(sim, np.array([3]), [np.zeros(0, np.intp)], np.zeros(4)) == []
    assert sim.n_drawn == 0 and sim.events == [[]]


def test_counts_in_a_real_counter():
    # the bytes a CommCounter logs: two rounds, node 1 late
    counter = CommCounter(4, header_bytes=0)
    sim = _Sim(np.array([[True, False, True, True], [True, True, True, True]]))
    sim.counter = counter
    received = {}

    def answer(k, got):
        counter.send_pairs(got, np.full(len(got), 3, np.intp), np.full(len(got), 7, np.int64))
        received.update(dict.fromkeys(got.tolist(), k))

    ask_until_answered(sim, np.array([3]), [np.array([1, 0])], answer)
    log = counter.snapshot()
    assert received == {0: 0, 1: 0}
    assert list(log["round_bytes"][:2]) == [7, 7]
    assert list(log["round_messages"][:2]) == [3, 2]
