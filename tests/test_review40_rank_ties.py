"""review40: the graph join's rank veto (``skfed._join_rank.ranking_pvalues``)
against a brute-force enumeration of its stated null: ``P(U' <= U)`` over
every assignment of the node's class counts to its samples, ``U`` counting
pairs ranked right with ties 1/2.

Without ties SciPy's exact Mann-Whitney is that null to rounding (checked
exhaustively on small nodes).  With tied margins it was not:
SciPy's ``method="exact"`` uses the distribution of ``U`` without ties,
which is not the permutation null of the tied margins (0.2 instead of 0.3,
0.267 instead of 0.2 at level 0.25).  Ties are common: 65 of the 266
two-class newcomers of Dada's and Perso-lin's table joins (moons,
Landmine, seeds 0-1, k = 5, 10, 20) have tied margins, though none of
them (n <= 16) changed side of 0.25.  Tied nodes now take the exact
permutation null of their mid-ranks (``tied_exact_pvalue``).
"""

import itertools

import numpy as np
import pytest

from skfed._join_rank import ranking_pvalues, ranking_reversed


def _u(pos, neg):
    d = pos[:, None] - neg[None, :]
    return float((d > 0).sum() + 0.5 * (d == 0).sum())


def _enumerated(F, y):
    """``P(U' <= U)`` over every placement of the positives (the null)."""
    n, n_pos = len(y), int(y.sum())
    u0 = _u(F[y == 1], F[y != 1])
    hits = total = 0
    for chosen in itertools.combinations(range(n), n_pos):
        mask = np.zeros(n, dtype=bool)
        mask[list(chosen)] = True
        total += 1
        hits += _u(F[mask], F[~mask]) <= u0 + 1e-9
    return hits / total


def _p(F, y):
    return float(ranking_pvalues(F[None], y, np.array([0, len(y)]))[0])


def test_without_ties_the_p_value_is_the_enumerated_null():
    rng = np.random.default_rng(40)
    checked = 0
    for n in range(2, 10):
        for _ in range(12):
            y = rng.integers(0, 2, n)
            if y.min() == y.max():
                continue
            F = rng.permutation(n).astype(np.float64) - 3.5
            assert _p(F, y) == pytest.approx(_enumerated(F, y), abs=1e-12)
            checked += 1
    assert checked > 60


def test_one_class_single_sample_and_all_equal_margins_never_fire():
    # one class (any size, n = 1 included) has no ranking: p = 1
    for y in (np.array([1]), np.array([0]), np.array([1, 1, 1]), np.array([0, 0])):
        assert _p(np.arange(len(y), dtype=float), y) == 1.0
    # all margins equal (a zero model): never reversed at any level
    for n_pos, n_neg in ((1, 1), (2, 2), (5, 3), (30, 40)):
        y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
        assert _p(np.zeros(n_pos + n_neg), y) >= 0.5
    # per node: node 0 one class, node 1 fully reversed (4 + 1: p = 1/5)
    F = np.array([[0.3, -0.2, 0.0, 1.0, 2.0, 3.0, 4.0]])
    y = np.array([1, 1, 1, 0, 0, 0, 0])
    got = ranking_pvalues(F, np.r_[y[:2], 1, 0, 0, 0, 0], np.array([0, 2, 7]))
    assert got[0] == 1.0 and got[1] == pytest.approx(1 / 5)
    assert ranking_reversed(F, np.r_[y[:2], 1, 0, 0, 0, 0], np.array([0, 2, 7])).tolist() \
        == [False, True]


def test_two_classes_of_one_sample_each():
    # n = 2: reversed p = 1/2, right order p = 1: never fires at 0.25
    assert _p(np.array([1.0, 0.0]), np.array([0, 1])) == 0.5
    assert _p(np.array([0.0, 1.0]), np.array([0, 1])) == 1.0


def test_tied_margins_p_value_is_the_enumerated_null():
    F = np.array([1.0, 0.0, 1.0, 0.0, 0.0])
    y = np.array([0, 0, 0, 1, 1])
    assert _enumerated(F, y) == pytest.approx(0.3)
    assert _p(F, y) == pytest.approx(0.3)


def test_tied_margins_p_values_are_the_enumerated_null():
    # small tied nodes (margins of 2-3 values): the p-value is the
    # enumeration's, so the veto's decision at VETO_LEVEL is the stated test's
    rng = np.random.default_rng(0)
    checked = tied = 0
    for _ in range(600):
        n = int(rng.integers(2, 10))
        y = rng.integers(0, 2, n)
        if y.min() == y.max():
            continue
        F = rng.integers(0, 3, n).astype(np.float64)
        assert _p(F, y) == pytest.approx(_enumerated(F, y), abs=1e-12), (F, y)
        checked += 1
        tied += np.unique(F).size < n
    assert checked > 400 and tied > 400


def test_tied_margins_of_a_large_node_against_a_permutation_sample():
    # 30 + 40 samples of 5 margin values (the exact path, 1,200 pairs):
    # the p-value against 20,000 random relabellings (binomial error 0.0035)
    rng = np.random.default_rng(1)
    F = rng.integers(0, 5, 70).astype(np.float64)
    y = np.r_[np.ones(30, int), np.zeros(40, int)]
    p = _p(F, y)
    u0 = _u(F[y == 1], F[y != 1])
    hits = sum(_u(F[m == 1], F[m != 1]) <= u0 + 1e-9
               for m in (rng.permutation(y) for _ in range(20000)))
    assert abs(p - hits / 20000) < 4 * 0.0035
    assert 0.0 < p <= 1.0
