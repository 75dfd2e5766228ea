"""guard38: no valid level-0.01 errors test keeps the library's small-sample flags.

``benchmarks/guard38_errors_tests.py`` measured valid tests (Fisher,
Boschloo, the coin test) against :func:`skfed._join_unlike.worse_than_chance`
on ``benchmarks/new_nodes_unlike.py``'s newcomers: they drop its flags of 5
samples all wrong (4 + 1) and of 10 samples 9 wrong.  Checked here, by
exact computation: the null "no worse than the best constant" is, with two
classes, "each predicted class is right at least half the time"; the coin
test is valid for it; at its point where both are right exactly half the
time every pattern of errors has probability ``2^-n``, so a test that
fires on those outcomes has a level of at least 1/32 (5 samples) or
11/1024 (10 samples, with the two predicted classes treated alike), and
the library's test does fire there.
"""

import itertools
import sys
from pathlib import Path

import numpy as np
from scipy.stats import binom

from skfed._join_unlike import ALPHA, worse_than_chance

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import guard38_errors_tests as bench


def test_null_is_each_predicted_class_right_half_the_time():
    # joint (y, pred) cells p11, p10, p01, p00 (y first)
    cells = np.random.RandomState(38).dirichlet(np.ones(4) * 0.7, size=20000)
    p11, p10, p01, p00 = cells.T
    err = p10 + p01
    no_worse = err <= np.minimum(p11 + p10, p01 + p00) + 1e-15
    columns = (p01 <= p11 + 1e-15) & (p10 <= p00 + 1e-15)
    np.testing.assert_array_equal(no_worse, columns)
    assert 0.1 < no_worse.mean() < 0.9


def _coin_size(m1, m0, t1, t0):
    """P(coin test fires) with errors Binomial(m1, t1) + Binomial(m0, t0)."""
    pmf = np.convolve(binom.pmf(np.arange(m1 + 1), m1, t1), binom.pmf(np.arange(m0 + 1), m0, t0))
    n = m1 + m0
    fires = binom.sf(np.arange(n + 1) - 1, n, 0.5) < ALPHA
    return pmf[fires].sum()


def test_coin_test_valid_on_the_null():
    grid = np.linspace(0.0, 0.5, 11)
    for m1, m0 in [(5, 5), (8, 2), (10, 0), (13, 7), (3, 17)]:
        sizes = [_coin_size(m1, m0, a, b) for a in grid for b in grid]
        assert max(sizes) <= ALPHA
        assert max(sizes) == _coin_size(m1, m0, 0.5, 0.5) > 0.0


def _library_rate(pred):
    """worse_than_chance's firing rate given ``pred``, every error pattern
    equally likely (both predicted classes right exactly half the time)."""
    n = len(pred)
    fired = 0
    for errors in itertools.product([0, 1], repeat=n):
        y = np.where(np.array(errors) == 1, 1 - pred, pred)
        fired += bool(worse_than_chance(pred, y, np.array([0, n]))[0])
    return fired / 2 ** n


def test_five_samples_all_wrong_cannot_be_flagged_at_level_001():
    pred = np.array([1, 1, 1, 1, 0])
    y = 1 - pred  # the 180-degree newcomers' table [[0, 1], [4, 0]]
    assert worse_than_chance(pred, y, np.array([0, 5]))[0]
    assert 2.0 ** -5 > ALPHA  # that pattern's probability at the null point
    assert _library_rate(pred) >= 2.0 ** -5


def test_nine_of_ten_wrong_needs_level_above_001():
    pred = np.array([1] * 5 + [0] * 5)
    # the MOCHA / online newcomer: one sample of the second predicted class right
    y = 1 - pred
    y[9] = pred[9]
    mirror = 1 - pred
    mirror[0] = pred[0]
    assert worse_than_chance(pred, y, np.array([0, 10]))[0]
    assert worse_than_chance(pred, mirror, np.array([0, 10]))[0]
    # firing on every 9-wrong pattern and the 10-wrong one: 11 / 1024
    assert (10 + 1) / 2 ** 10 > ALPHA
    assert _library_rate(pred) >= 11 / 2 ** 10
    # the valid tests' p-values there (the benchmark's quoted values)
    assert round(bench.fisher_p(pred, y), 4) == 0.0238
    assert round(bench.boschloo_p(pred, y), 4) == 0.0107
    assert round(binom.sf(8, 10, 0.5), 4) == 0.0107
