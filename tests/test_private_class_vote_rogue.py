"""Rogue ballots in the private class vote (issue 27, ``skfed._class_vote``).

A rogue node may send any ballot (any option, or abstain) in MOCHA's vote
round, where each node sends one ballot byte to the server.  The election
depends on the ballots only through their counts, so ``k`` rogues reach
exactly the counts that ``k`` recast ballots reach.  The tests check, on
every ballot vector ``k`` rogues can produce from honest ballots (brute
force), that no outcome's probability moves by more than the group-privacy
factor ``exp(k epsilon_v)`` of the exponential mechanism, and compare what
the rogues can do at HAR's counts (21 nodes, 19 LinearSVC ballots) with an
independent NumPy softmax of the closed-form qualities.
"""

import itertools
import math

import numpy as np
import pytest

from skfed._class_vote import (
    BALLOT,
    VOTE_ALPHA,
    VOTE_RESOLUTION,
    split_budget,
    vote_guard,
    vote_probabilities,
    vote_scale,
)


def _closed_form(counts, vote_epsilon):
    # P(j) ~ exp(eps (n_j + T [j = 0]) / 2), T = (2 / eps) ln(2 / alpha),
    # up to the grid's floor of T (below 1 / 1024 of a ballot).
    _, eps = vote_scale(vote_epsilon)
    q = np.asarray(counts, dtype=float).copy()
    q[0] += vote_guard(vote_epsilon)
    w = np.exp(eps * (q - q.max()) / 2.0)
    return w / w.sum()


def _counts(ballots):
    b = np.asarray(ballots)
    return np.array([(b == j).sum() for j in range(len(BALLOT))])


def _rogue_ballots(honest, k):
    """Every ballot vector with k of the nodes recast (abstain included)."""
    options = range(-1, len(BALLOT))
    for nodes in itertools.combinations(range(len(honest)), k):
        for cast in itertools.product(options, repeat=k):
            b = list(honest)
            for node, c in zip(nodes, cast):
                b[node] = c
            yield b


@pytest.mark.parametrize("vote_epsilon", [1.0, 10.0 / 3.0])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_k_rogues_move_no_outcome_beyond_group_privacy(vote_epsilon, k):
    honest = [1] * 5 + [0] * 2 + [2]
    _, eps = vote_scale(vote_epsilon)
    p0 = vote_probabilities(_counts(honest), vote_epsilon)
    np.testing.assert_allclose(p0, _closed_form(_counts(honest), vote_epsilon), rtol=1e-3)
    worst = 0.0
    seen = set()
    for b in _rogue_ballots(honest, k):
        c = _counts(b)
        seen.add(tuple(c))
        p = vote_probabilities(c, vote_epsilon)
        worst = max(worst, float(np.max(np.abs(np.log(p / p0)))))
    bound = k * eps
    assert worst <= bound + 1e-9
    # The bound is nearly reached (all k rogues moving from the likeliest
    # option to the least likely one): between half and all of it.
    assert worst >= 0.5 * bound
    # Rogues act only through counts: every count moves by at most k and
    # the number of counted ballots drops by at most k.
    base = _counts(honest)
    for c in seen:
        c = np.array(c)
        assert np.abs(c - base).max() <= k
        assert base.sum() - k <= c.sum() <= base.sum()


def test_what_rogues_do_at_har_counts():
    # HAR at epsilon 3 (the vote at half of it, 1.5): 21 nodes, 19
    # LinearSVC ballots, 2 for the own rule.  The rogues' best attack
    # recasts LinearSVC ballots as "no fixed class" (the guard's option).
    vote_epsilon = split_budget(3.0, 21)[1]
    assert vote_epsilon == pytest.approx(1.5)
    p = []
    for k in range(8):
        counts = np.array([2 + k, 19 - k, 0])
        got = vote_probabilities(counts, vote_epsilon)
        np.testing.assert_allclose(got, _closed_form(counts, vote_epsilon), rtol=1e-3)
        p.append(got[1])
    p = np.array(p)
    assert np.all(np.diff(p) < 0)
    # One rogue: 0.9994 -> 0.9974; three: 0.950; six: 0.176.
    np.testing.assert_allclose(p[[0, 1, 3, 6]], [0.9994, 0.9974, 0.950, 0.176], atol=2e-3)
    # Each rogue divides the odds of LinearSVC against the rest by at most
    # exp(epsilon_v) (its ballot leaves one count and joins another).
    odds = p / (1 - p)
    assert np.all(odds[1:] / odds[:-1] >= math.exp(-vote_epsilon) - 1e-9)


def test_rogues_cannot_elect_a_class_without_honest_support():
    # No honest ballot for the class: k rogues voting for it against n
    # honest "no fixed class" ballots elect it with probability at most
    # exp(-eps (n - 2 k + T) / 2): the guard keeps it below alpha / 2 while
    # the rogues are at most half of the counted ballots.
    vote_epsilon = 1.0
    _, eps = vote_scale(vote_epsilon)
    n = 20
    guard = math.floor(VOTE_RESOLUTION * vote_guard(vote_epsilon)) / VOTE_RESOLUTION  # on the grid
    for k in range(0, 11):
        counts = np.array([n - k, 0, k])
        got = vote_probabilities(counts, vote_epsilon)[2]
        assert got <= math.exp(-eps * (n - 2 * k + guard) / 2.0) * (1 + 1e-9)
        if k <= n // 2:
            assert got < VOTE_ALPHA / 2
