"""guard38: the regressors' sign test holds its level exactly.

:func:`skfed._join_unlike.worse_than_own_mean` compares each sample, in the
order of ``|pred - mean(pred)|``, with the mean of the samples before it.
Checked here against references written here: its p-values against a
plain-Python loop and SciPy's exact binomial test; its false-alarm rate
computed exactly, by enumerating every noise sequence of two-point noises
of median 0 (symmetric and skewed, a constant and a spread model), and the
whole distribution of its count against ``Binomial(n - 1, 1/2)`` (at
every threshold, not only the level's); a Monte Carlo run of the same
null; and its power on reversed responses, against the leave-one-out
test it replaces (main's until guard38, ``benchmarks/guard38_sign_order.py``).
"""

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from skfed._join_unlike import ALPHA, own_mean_sign_pvalues, worse_than_own_mean

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from guard38_sign_order import loo_pvalues  # main's test until guard38


def _reference(pred, y):
    """p-value and count: order by |pred - mean|, stable; compare with earlier mean."""
    centre = sum(pred) / len(pred)
    order = sorted(range(len(pred)), key=lambda i: (abs(pred[i] - centre), i))
    worse, seen = 0, []
    for i in order:
        if seen:
            before = sum(seen) / len(seen)
            worse += (pred[i] - y[i]) ** 2 > (before - y[i]) ** 2
        seen.append(y[i])
    return binomtest(worse, len(pred) - 1, 0.5, alternative="greater").pvalue, worse


def test_pvalues_match_a_loop_and_an_exact_binomial_test():
    rng = np.random.RandomState(3)
    counts = np.array([1, 2, 3, 8, 10, 20, 33])
    offsets = np.r_[0, np.cumsum(counts)]
    pred = rng.normal(size=offsets[-1])
    sign = np.repeat(np.where(np.arange(len(counts)) % 2, 1.0, -1.0), counts)
    y = sign * pred + 0.3 * rng.normal(size=offsets[-1])
    p = own_mean_sign_pvalues(pred, y, offsets)
    worse = []
    for k, n in enumerate(counts):
        sl = slice(offsets[k], offsets[k + 1])
        if n < 2:
            assert p[k] == 1.0
            continue
        ref, w = _reference(pred[sl].tolist(), y[sl].tolist())
        worse.append(w / (n - 1))
        np.testing.assert_allclose(p[k], ref, rtol=1e-12)
    assert min(worse) < 0.5 < max(worse)  # reversed and right nodes both occur
    np.testing.assert_array_equal(worse_than_own_mean(pred, y, offsets), p < ALPHA)


def _count_distribution(pred, values, probs):
    """Exact distribution of the test's count over every noise sequence
    (each sample's noise iid from ``values`` with ``probs``)."""
    n = len(pred)
    dist = np.zeros(n)
    for seq in itertools.product(range(len(values)), repeat=n):
        eps = np.asarray(values)[list(seq)]
        weight = np.prod(np.asarray(probs)[list(seq)])
        _, worse = _reference(pred.tolist(), (pred + eps).tolist())
        dist[worse] += weight
    return dist


NOISES = {
    "two-point": ([-1.0, 1.0], [0.5, 0.5]),
    "skewed two-point": ([-3.0, 0.2], [0.5, 0.5]),  # median 0, mean -1.4
    "atom at 0": ([-1.0, 0.0, 2.0], [0.3, 0.4, 0.3]),
}


@pytest.mark.parametrize("noise", sorted(NOISES))
@pytest.mark.parametrize("spread", [0.0, 1.0])
def test_count_is_at_most_a_fair_binomial_at_every_threshold(noise, spread):
    n = 9 if noise == "atom at 0" else 11
    pred = 2.0 + spread * np.random.RandomState(n).normal(size=n)
    dist = _count_distribution(pred, *NOISES[noise])
    assert abs(dist.sum() - 1.0) < 1e-12
    tail = np.cumsum(dist[::-1])[::-1]  # P(count >= w)
    fair = binom.sf(np.arange(n) - 1, n - 1, 0.5)
    assert np.all(tail <= fair + 1e-12), (tail, fair)
    # the level: the exact false-alarm rate is at most ALPHA
    rate = sum(dist[w] for w in range(n) if binom.sf(w - 1, n - 1, 0.5) < ALPHA)
    assert rate <= ALPHA


def _two_point_rate(n):
    """Exact false-alarm rate under +-1 noise, a constant model: every one of
    the 2^n sequences (vectorized; order = sample order, pred constant)."""
    eps = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
    before = np.cumsum(eps, axis=1)[:, :-1] / np.arange(1, n)
    worse = np.sum(eps[:, 1:] ** 2 > (before - eps[:, 1:]) ** 2, axis=1)
    return np.mean(binom.sf(worse - 1, n - 1, 0.5) < ALPHA)


@pytest.mark.parametrize("n", [8, 12, 16, 20])
def test_two_point_noise_exact_rate_and_a_simulation(n):
    rate = _two_point_rate(n)
    # a compared sample counts w.p. 1/2 where the earlier mean is not 0,
    # never where it is: the rate is under the tail, by at most a few times
    threshold = min(w for w in range(n) if binom.sf(w - 1, n - 1, 0.5) < ALPHA)
    assert rate <= ALPHA
    assert rate >= 0.3 * binom.sf(threshold - 1, n - 1, 0.5)  # not vacuous
    if n == 12:  # spot check against the function itself
        eps = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
        offsets = np.arange(2 ** n + 1) * n
        got = worse_than_own_mean(np.full(eps.size, 3.0), 3.0 + eps.ravel(), offsets)
        assert got.mean() == rate
    rng = np.random.default_rng(n)
    reps = 20000
    eps = rng.choice([-1.0, 1.0], reps * n)
    sim = worse_than_own_mean(np.full(reps * n, 3.0), 3.0 + eps, np.arange(reps + 1) * n).mean()
    assert abs(sim - rate) < 4 * np.sqrt(max(rate, 1e-3) / reps)


@pytest.mark.parametrize("n", [8, 10, 20, 40])
@pytest.mark.parametrize("noise", ["gauss", "t1", "skewed", "heteroscedastic", "two-point"])
def test_false_alarms_at_most_the_level_by_simulation(n, noise):
    rng = np.random.RandomState(100 + n)
    reps = 4000
    pred = 1.0 + 2.0 * rng.normal(size=reps * n)
    e = {"gauss": lambda: rng.normal(size=pred.size),
         "t1": lambda: rng.standard_cauchy(size=pred.size),
         "skewed": lambda: rng.exponential(size=pred.size) - np.log(2.0),
         "heteroscedastic": lambda: 2.0 * np.abs(pred) * rng.normal(size=pred.size),
         "two-point": lambda: rng.choice([-1.0, 1.0], pred.size)}[noise]()
    p = own_mean_sign_pvalues(pred, pred + e, np.arange(reps + 1) * n)
    assert np.all((p > 0) & (p <= 1))
    assert np.mean(p < ALPHA) <= ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / reps)


# measured (RandomState(7), 4,000 newcomers a cell): sequential / LOO power
# 10 samples 0.326 / 0.318 (noise 0.1), 0.121 / 0.153 (noise 1); 20 samples
# 0.944 / 0.906, 0.860 / 0.833; 40 samples 1.000 / 1.000, 0.997 / 0.999
POWER = {(10, 0.1): (0.30, 0.0), (10, 1.0): (0.11, 0.035), (20, 0.1): (0.92, 0.0),
         (20, 1.0): (0.84, 0.0), (40, 0.1): (0.99, 0.005), (40, 1.0): (0.99, 0.005)}


@pytest.mark.parametrize("n, scale", sorted(POWER))
def test_power_on_reversed_responses_against_the_leave_one_out_test(n, scale):
    rng = np.random.RandomState(7)
    reps = 4000
    pred = 2.0 * rng.normal(size=reps * n)
    y = -pred + scale * rng.normal(size=reps * n)
    offsets = np.arange(reps + 1) * n
    power = np.mean(own_mean_sign_pvalues(pred, y, offsets) < ALPHA)
    loo = np.mean(loo_pvalues(pred, y, offsets) < ALPHA)
    floor, slack = POWER[n, scale]
    assert power >= floor, power
    assert power >= loo - slack, (power, loo)


@pytest.mark.parametrize("n, fires_at", [(8, 7), (10, 9), (20, 15)])
def test_the_counts_at_which_it_fires(n, fires_at):
    # a constant-spread model; the samples after the first in the test's
    # order are made worse (predicted at -3 y) one by one
    y = np.linspace(1.0, 2.0, n) * np.where(np.arange(n) % 2, 1.0, -1.0)
    for worse in range(n):
        pred = y.copy()
        order = np.argsort(np.abs(pred - pred.mean()), kind="stable")
        bad = order[1:worse + 1]
        pred[bad] = -3.0 * y[bad]
        p, counted = _reference(pred.tolist(), y.tolist())
        flagged = bool(worse_than_own_mean(pred, y, np.array([0, n]))[0])
        assert flagged == (p < ALPHA) == (counted >= fires_at), (worse, counted)
        assert flagged == (worse >= fires_at), (worse, counted)  # each made-worse one counts
    assert not worse_than_own_mean(-10.0 * np.arange(7.0), np.arange(7.0), np.array([0, 7]))[0]
