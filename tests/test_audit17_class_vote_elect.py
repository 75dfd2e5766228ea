"""The class vote as a fit runs it: ``elect`` draws from the exponential
mechanism of the privacy guide (mutation audit).

The existing tests check the mechanism's sampler (``NoiseSource.choice`` on
``vote_qualities`` at ``vote_scale``) against the closed form, and only the
support of ``elect``'s outcomes.  Here ``elect`` itself (the function the fits
call, secure source) is drawn many times on fixed ballots: every option's
frequency must lie in the Clopper-Pearson interval (99.9 %, Bonferroni over
the options and ballot sets) of its closed-form probability
``vote_probabilities``; a scale smaller or larger than ``vote_scale`` (less
or more noise than accounted) moves them out.
"""

import numpy as np
import pytest
from scipy import stats

from skfed._class_vote import ballot_counts, elect, vote_probabilities
from skfed._secure_noise import NoiseSource

CASES = [([0] * 5 + [1] * 14 + [2] * 15, 1.0), ([1] * 10 + [2] * 8, 1.0), ([1] * 6 + [2] * 4, 2.0)]


@pytest.mark.parametrize("ballots,epsilon", CASES)
def test_elect_frequencies_are_the_closed_form(ballots, epsilon):
    source = NoiseSource()
    n = 6000
    draws = np.array([elect(ballots, epsilon, source) for _ in range(n)])
    p = vote_probabilities(ballot_counts(ballots), epsilon)
    assert np.all(p > 0.05)  # every option likely: the frequencies see the scale
    alpha = 1e-3 / (3 * len(CASES))
    for j in range(3):
        hits = int(np.sum(draws == j))
        lo = stats.beta.ppf(alpha / 2, hits, n - hits + 1) if hits else 0.0
        hi = stats.beta.ppf(1 - alpha / 2, hits + 1, n - hits) if hits < n else 1.0
        assert lo <= p[j] <= hi, (j, hits / n, p[j])
