"""review41: the tied exact Mann-Whitney null (skfed/_join_rank.tied_exact_pvalue)
when positives outnumber negatives.

Its count table had a row per number of positives and a column per
doubled rank sum up to the positives' largest: ``O(n_pos^2 n)`` floats.
Within ``n_pos n_neg <=`` ``EXACT_PAIRS`` that is 437 MB and 10.6 CPU s at
250 positives against 10 negatives, and some 125 GB at 2,500 against 1
(a node of tied margins with one negative).  Under random labels the
negatives are a random subset too, and ``P(R_pos <= r) = P(R_neg >=
total - r)``: the table of the smaller class gives the same p-value.
Checked against enumeration and, for one negative, the closed form
(its rank uniform over the samples').
"""

import itertools

import numpy as np
import pytest
from scipy.stats import rankdata

from skfed._join_rank import EXACT_PAIRS, ranking_pvalues, tied_exact_pvalue


def _enumerated(pos, neg):
    values = np.concatenate([pos, neg])
    r = rankdata(values)
    observed = r[:len(pos)].sum()
    hits = [r[list(c)].sum() <= observed + 1e-9
            for c in itertools.combinations(range(len(values)), len(pos))]
    return np.mean(hits)


def test_more_positives_than_negatives_is_the_enumerated_null():
    rng = np.random.RandomState(41)
    for _ in range(60):
        n_neg = rng.randint(1, 5)
        n_pos = rng.randint(n_neg + 1, 11)
        values = rng.randint(0, rng.randint(1, 5), size=n_pos + n_neg).astype(float)
        pos, neg = values[:n_pos], values[n_pos:]
        assert tied_exact_pvalue(pos, neg) == pytest.approx(_enumerated(pos, neg), abs=1e-12)


@pytest.mark.parametrize("n_pos", [EXACT_PAIRS, 250])
def test_one_negative_closed_form(n_pos):
    rng = np.random.RandomState(n_pos)
    values = rng.randint(0, 20, size=n_pos + 1).astype(float)
    pos, neg = values[:n_pos], values[n_pos:]
    r = rankdata(values)
    # R_pos <= observed  <=>  the negative's rank >= its observed rank
    expected = np.mean(r >= r[-1])
    assert tied_exact_pvalue(pos, neg) == pytest.approx(expected, rel=1e-10)
    codes = np.r_[np.ones(n_pos, int), 0]
    assert ranking_pvalues(values[None], codes, np.array([0, n_pos + 1]))[0] == pytest.approx(
        expected, rel=1e-10)


def test_ten_negatives_is_the_negatives_upper_tail():
    rng = np.random.RandomState(3)
    values = rng.randint(0, 20, size=260).astype(float)
    pos, neg = values[:250], values[250:]
    # P(R_pos <= r) = P(R_neg >= total - r) = P(R'_neg <= r') of the negated
    # margins, the negatives then the positives (10 against 250: the table
    # of the first class, enumerated above)
    assert tied_exact_pvalue(pos, neg) == pytest.approx(tied_exact_pvalue(-neg, -pos),
                                                        rel=1e-10)
