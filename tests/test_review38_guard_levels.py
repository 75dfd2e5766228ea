"""review38: the contradicting-newcomer tests' false-alarm rates at their nulls.

Both tests of ``skfed/_join_unlike.py`` claim the level ``ALPHA = 0.01``.
Their rates are computed here exactly, by summing over every outcome the
test can see (it depends only on counts), and checked against a Monte
Carlo run of the same null.

- ``worse_than_chance`` tests ``P(Binomial(n, q) >= e) < alpha`` with
  ``q = 1 - p_max`` read from the newcomer's own labels.  At its null's
  boundary, a model that errs exactly as often as the best constant of
  the population (labels of two equally likely classes, predictions a
  coin flip; or classes 70 / 30 and errors at rate 0.3, independent of
  the labels), it fires 0.063 / 0.081 / 0.091 / 0.078 of the time at 10 /
  20 / 40 / 100 samples (70 / 30: 0.030 / 0.052 / 0.049 / 0.047), not
  0.01: the sample's ``1 - p_max`` is below the population's (the larger
  class is larger in the sample), by about a binomial standard error at
  every ``n``.
- ``worse_than_own_mean`` (the sign test) counts samples whose model error
  exceeds the leave-one-out mean's; with a right constant model and noise
  of +-1 (median 0, as its docstring allows: "no distribution of the
  noise") a sample counts iff it is on the side of the majority of the
  others, so the count is the majority's size, about twice the binomial
  tail: 0.0156 at 7 samples, 0.0118 at 20, 0.0166 at 40, 0.0120 at 100
  (Gaussian, t and skewed noises stay under 0.01, tests/test_unlike38_*).

Not review38's file.  The errors test's rates are kept and stated in
growing.rst (the lead: see test_binomial_guard_rates_the_guide_states);
the sign test's mark is a strict xfail.
"""

import numpy as np
import pytest
from scipy.stats import binom

from skfed._join_unlike import ALPHA, worse_than_chance, worse_than_own_mean


def _chance_rate(n, p):
    """Exact firing rate of worse_than_chance: labels iid (class 1 w.p. ``p``),
    each sample misclassified independently w.p. ``min(p, 1 - p)``."""
    q = min(p, 1.0 - p)
    rate = 0.0
    for k in range(n + 1):
        y = np.r_[np.ones(k, dtype=int), np.zeros(n - k, dtype=int)]
        for e in range(n + 1):
            pred = y.copy()
            pred[:e] = 1 - pred[:e]  # which samples err does not matter: only e
            if worse_than_chance(pred, y, np.array([0, n]))[0]:
                rate += binom.pmf(k, n, p) * binom.pmf(e, n, q)
    return rate


def _sign_rate(n):
    """Exact firing rate of worse_than_own_mean: a right constant model, noise +-1."""
    rate = 0.0
    for b in range(n + 1):  # the test sees only how many are +1
        eps = np.r_[np.ones(b), -np.ones(n - b)]
        if worse_than_own_mean(np.full(n, 3.0), 3.0 + eps, np.array([0, n]))[0]:
            rate += binom.pmf(b, n, 0.5)
    return rate


def test_exact_rates_match_a_simulation():
    rng = np.random.default_rng(38)
    reps, n = 6000, 20
    offsets = np.arange(reps + 1) * n
    y = (rng.random(reps * n) < 0.5).astype(int)
    pred = (rng.random(reps * n) < 0.5).astype(int)  # a coin flip
    simulated = worse_than_chance(pred, y, offsets).mean()
    se = np.sqrt(0.08 * 0.92 / reps)
    assert abs(simulated - _chance_rate(n, 0.5)) < 4 * se
    eps = rng.choice([-1.0, 1.0], reps * n)
    simulated = worse_than_own_mean(np.full(reps * n, 3.0), 3.0 + eps, offsets).mean()
    assert abs(simulated - _sign_rate(n)) < 4 * np.sqrt(0.012 / reps)
    # the values the module docstring quotes
    assert round(_chance_rate(20, 0.5), 3) == 0.081
    assert round(_sign_rate(7), 4) == 0.0156 and round(_sign_rate(40), 4) == 0.0166


def _rate_at(n, p, err):
    """As _chance_rate, each sample misclassified w.p. ``err``."""
    rate = 0.0
    for k in range(n + 1):
        y = np.r_[np.ones(k, dtype=int), np.zeros(n - k, dtype=int)]
        for e in range(n + 1):
            pred = y.copy()
            pred[:e] = 1 - pred[:e]
            if worse_than_chance(pred, y, np.array([0, n]))[0]:
                rate += binom.pmf(k, n, p) * binom.pmf(e, n, err)
    return rate


@pytest.mark.parametrize("n, p", [(10, 0.5), (20, 0.5), (40, 0.5), (100, 0.5),
                                  (10, 0.7), (20, 0.7), (40, 0.7), (100, 0.7)])
def test_binomial_guard_rates_the_guide_states(n, p):
    # The lead kept the test (review38's strict xfail asked for the nominal
    # level at the null's boundary): a model no better than a constant is
    # what the guard is for, and a level-0.01 test there (an upper bound on
    # the constant's rate) halved MOCHA's and the online join's opposite
    # newcomers at k = 10 (benchmarks/new_nodes_unlike.py, 180 degrees:
    # 0.77 / 0.78 -> 0.56 / 0.49).  growing.rst states the rates instead: 3-9 %
    # at the boundary, at most 2.5 % for a model 10 points better.
    q = min(p, 1.0 - p)
    assert 0.029 <= _chance_rate(n, p) <= 0.091
    assert _rate_at(n, p, q - 0.1) <= 0.026


@pytest.mark.xfail(strict=True, reason=(
    "skfed/_join_unlike.py worse_than_own_mean: the counts share the leave-one-out "
    "means; under +-1 noise the count is the majority's size and the rate about "
    "twice the binomial tail (0.0118-0.0166 at 20-40 samples)"))
@pytest.mark.parametrize("n", [7, 20, 40])
def test_sign_test_holds_its_level_under_two_point_noise(n):
    assert _sign_rate(n) <= ALPHA
