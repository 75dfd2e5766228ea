"""The online join's step 2 (drops37, ``_join_steps._join_answers``): every
new node receives each neighbour's function in the first round both are up,
one DropWait step of two-end messages.  Checked against the loop it
replaces (``_join_rounds`` with the visit ``_join_receive`` had) on random
draws, including a new node without neighbours."""

import types

import numpy as np
import pytest

from skfed.online._join_steps import _join_answers, _join_rounds


class _Sim:
    def __init__(self, draws):
        self.draws, self.n_drawn, self.rounds = draws, 0, 0
        self.counter = types.SimpleNamespace(next_round=self._next)

    def draw_rounds(self, n):
        self.n_drawn += 1
        return self.draws[self.n_drawn - 1][None], None

    def _next(self):
        self.rounds += 1


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("drop", [0.0, 0.3, 0.7])
def test_matches_join_rounds_visit(seed, drop):
    rng = np.random.RandomState(seed)
    n_old, n_new = 10, 5
    neighbours = [np.sort(rng.permutation(n_old)[:rng.randint(0, 4)]) for _ in range(n_new)]
    neighbours[seed % n_new] = np.zeros(0, dtype=np.intp)  # one without neighbours
    draws = rng.uniform(size=(300, n_old + n_new)) >= drop
    draws[-1] = True

    old_sim, old_calls = _Sim(draws), []
    received = [set() for _ in neighbours]

    def visit(k, active):
        for j in neighbours[k]:
            if j in received[k] or not active[j]:
                continue
            old_calls.append((old_sim.n_drawn - 1, k, int(j)))
            received[k].add(j)
        return len(received[k]) == len(neighbours[k])

    _join_rounds(old_sim, n_old, n_new, visit)
    new_sim, new_calls = _Sim(draws), []
    _join_answers(new_sim, n_old, neighbours,
                  lambda k, j: new_calls.append((new_sim.n_drawn - 1, k, j)))
    assert new_calls == old_calls
    assert new_sim.n_drawn == new_sim.rounds == old_sim.n_drawn == old_sim.rounds
    # independent: each answer in the first round both ends are up
    for r, k, j in new_calls:
        assert r == np.flatnonzero(draws[:, j] & draws[:, n_old + k])[0]
    assert len(new_calls) == sum(len(nb) for nb in neighbours)
    # the rounds end with the last answer or the last new node's first round up
    ends = [np.flatnonzero(draws[:, n_old + k])[0] for k in range(n_new)]
    assert new_sim.rounds == 1 + max([r for r, _, _ in new_calls] + ends)
