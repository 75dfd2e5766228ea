"""DropWait messages that wait for two nodes (drops37, :mod:`skfed._pending`):
a newcomer's request answered in the first round both it and the asked node
are up (Perso-lin's posterior join).  Checked on a hand-computed schedule,
against a first-round-both-up reference on random draws, mixed with
one-node steps, and on bad shapes."""

import numpy as np
import pytest

from skfed._pending import DropWait


def test_hand_computed_two_end_schedule():
    # messages (asker, asked): (3, 0), (3, 1), (4, 1)
    wait = DropWait([[[3, 0], [3, 1], [4, 1]]])
    assert wait.waiting.tolist() == [0, 1, 3, 4]
    # round 0: 3 down: nothing from it; 4 and 1 up: (4, 1) sent
    out = wait.take(np.array([True, True, True, False, True]))
    assert [(s, p.tolist()) for s, p in out] == [(0, [2])]
    assert wait.waiting.tolist() == [0, 1, 3]
    # round 1: 3 up, 1 down: (3, 0) only
    out = wait.take(np.array([True, False, True, True, False]))
    assert [(s, p.tolist()) for s, p in out] == [(0, [0])]
    out = wait.take(np.array([False, True, False, True, False]))
    assert [(s, p.tolist()) for s, p in out] == [(0, [1])]
    assert wait.complete and wait.waiting.tolist() == []


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("drop", [0.0, 0.4, 0.8])
def test_first_round_both_up_on_random_draws(seed, drop):
    rng = np.random.RandomState(seed)
    n = 9
    pairs = np.stack([rng.randint(n, size=15), rng.randint(n, size=15)], axis=1)
    single = rng.randint(n, size=6)
    draws = rng.uniform(size=(400, n)) >= drop
    draws[-1] = True
    wait = DropWait([pairs, single])
    sent = {}
    for r, active in enumerate(draws):
        for step, positions in wait.take(active):
            for position in positions.tolist():
                sent[(step, position)] = r
        if wait.complete:
            break
    # reference: step 0's messages in the first round both ends are up;
    # step 1 starts in the round step 0 completes
    both = draws[:, pairs[:, 0]] & draws[:, pairs[:, 1]]
    first = both.argmax(axis=0)
    start = first.max()
    assert {p: r for (s, p), r in sent.items() if s == 0} == dict(enumerate(first.tolist()))
    later = start + draws[start:, single].argmax(axis=0)
    assert {p: r for (s, p), r in sent.items() if s == 1} == dict(enumerate(later.tolist()))


def test_bad_shape_is_named():
    with pytest.raises(ValueError, match=r"shape \(n_messages,\) or \(n_messages, 2\)"):
        DropWait([np.zeros((4, 3), dtype=int)])
