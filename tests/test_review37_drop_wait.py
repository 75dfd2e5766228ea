"""review37: DropWait (skfed/_pending.py) against a round-by-round brute
force of its rule, on schedules drops36's tests do not draw: many steps,
a node owning several messages of a step, runs of empty steps, and nodes
that are never up (the schedule never completes and names them).

The brute force keeps every message's state and the round each step
started in; in each round it sends every unsent message of the step under
way whose node is up, and when that completes the step it starts the next
step that has messages in the same round and repeats.  Compared after each
round: the messages sent (per step), the step under way, the nodes named
as waiting, and completion.
"""

import numpy as np
import pytest

from skfed._pending import DropWait


def _brute_force(steps, draws):
    """Per round: ``(sent {(step, position)}, step under way, waiting)``."""
    steps = [list(map(int, s)) for s in steps]
    sent = [[False] * len(s) for s in steps]
    step = 0
    while step < len(steps) and not steps[step]:
        step += 1
    out = []
    for up in draws:
        now = set()
        while step < len(steps):
            for p, node in enumerate(steps[step]):
                if not sent[step][p] and up[node]:
                    sent[step][p] = True
                    now.add((step, p))
            if not all(sent[step]):
                break
            step += 1
            while step < len(steps) and not steps[step]:
                step += 1
        waiting = (sorted({node for p, node in enumerate(steps[step]) if not sent[step][p]})
                   if step < len(steps) else [])
        out.append((now, step, waiting))
    return out


def _draw(rng):
    n = rng.randint(1, 9)
    n_steps = rng.randint(0, 25)
    steps = []
    for _ in range(n_steps):
        size = rng.choice([0, 0, 1, 2, 5, 12])
        steps.append(rng.randint(n, size=size))   # repeats a node often
    p_up = rng.choice([0.1, 0.5, 0.9])
    draws = rng.uniform(size=(rng.randint(1, 40), n)) < p_up
    never = rng.uniform(size=n) < 0.2            # nodes never up
    draws[:, never] = False
    return steps, draws


@pytest.mark.parametrize("seed", range(300))
def test_matches_brute_force(seed):
    rng = np.random.RandomState(1000 + seed)
    steps, draws = _draw(rng)
    wait = DropWait(steps)
    for r, (expected, step, waiting) in enumerate(_brute_force(steps, draws)):
        taken = wait.take(draws[r])
        got = {(s, int(p)) for s, positions in taken for p in positions}
        assert got == expected, r
        # one entry per step the round took part in, ascending: each but the
        # last completed its step (so sent something); the last is the step
        # under way after the round (it may have sent nothing) or completed
        order = [s for s, _ in taken]
        assert order == sorted(set(order))
        assert all(len(positions) for _, positions in taken[:-1])
        if taken and not wait.complete:
            assert taken[-1][0] == step
        assert all(np.all(np.diff(positions) > 0) for _, positions in taken)
        assert wait.step == step
        assert wait.waiting.tolist() == waiting
        assert wait.complete == (step >= len(steps))
        assert sorted(np.unique(np.asarray(steps[step])[wait.left]).tolist()
                      if step < len(steps) else []) == waiting


def test_a_node_never_up_stops_the_schedule_at_its_step():
    # node 3 is never up: the schedule stops at step 1, naming node 3 only
    # (step 2's nodes are not waited for yet), for any number of rounds
    wait = DropWait([[0, 1], [3, 1, 3], [], [2]])
    draws = np.ones((50, 4), dtype=bool)
    draws[:, 3] = False
    for up in draws:
        wait.take(up)
    assert wait.step == 1 and not wait.complete
    assert wait.waiting.tolist() == [3]
    assert wait.left.tolist() == [0, 2]
