"""The NumPy simulation of ``benchmarks/support_one_bit_rules.py`` runs the
estimator's small-client rule.

The guide's argument about which one-bit client rules could recover dense
correlated supports rests on that simulation; here its batched tail and
sign rules are checked client by client against
:func:`skfed.support._partial.partial_reference` (the reference of the
Cython pass the estimator runs), and its rates against the fitted
estimator's vote fractions.
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedSupportRecovery
from skfed.support._partial import n_controls, partial_reference
from skfed.support._rules import _critical_values


@pytest.mark.parametrize("design", ["toeplitz", "heterogeneous", "equicorrelated"])
def test_batched_rules_equal_partial_reference(one_bit_sim, design):
    d, s, n = 20, 10, 10
    support, w = one_bit_sim.problem(design, d, s, 0)
    assert support.sum() == s and np.all(np.abs(w[support]) == 3.0)
    rng = np.random.default_rng(1)
    X, y = one_bit_sim.clients(design, w, 40, n, rng)
    assert np.allclose(X.mean(axis=1), 0.0) and np.allclose(y.mean(axis=1), 0.0)
    k = int(n_controls(n, d, True))
    assert k == 3  # the default at 10 samples, d = 20
    m = n - 1
    tk, t0 = _critical_values(1.0, [m - 1 - k, m - 1])
    tail = one_bit_sim.bits_of(f"tail:closest:{k}", X, y, rng)
    sign = one_bit_sim.bits_of(f"sign:closest:{k}", X, y, rng)
    marginal = one_bit_sim.bits_of("tail:closest:0", X, y, rng)
    for i in range(len(X)):
        bits, t, used, _ = partial_reference(X[i], y[i], np.ones(n), k, m, True, tk, t0,
                                             gate=-np.inf)
        assert used == k
        np.testing.assert_array_equal(tail[i], bits)
        np.testing.assert_array_equal(sign[i], t > 0)
        bits0, _, used0, _ = partial_reference(X[i], y[i], np.ones(n), 0, m, True, t0, t0,
                                               gate=-np.inf)
        assert used0 == 0
        np.testing.assert_array_equal(marginal[i], bits0)


def test_simulated_rates_match_the_estimator(one_bit_sim):
    """The simulated default rule's rates against the fitted vote fractions of
    clients drawn the same way (binomial noise of 3,000 + 3,000 clients, 4 sd)."""
    d, s, n, g = 20, 10, 10, 3000
    support, w = one_bit_sim.problem("toeplitz", d, s, 0)
    p = one_bit_sim.rates("toeplitz", w, "tail:closest:3", g, n, seed=0)
    rng = np.random.default_rng(5)
    X, y = one_bit_sim.clients("toeplitz", w, g, n, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedSupportRecovery(vote="selection", n_jobs=1).fit(
            X.reshape(-1, d), y.reshape(-1), groups=np.repeat(np.arange(g), n))
    np.testing.assert_array_equal(est.n_reports_, g)
    sd = np.sqrt(2 * p * (1 - p) / g)
    assert np.all(np.abs(est.vote_fraction_ - p) < 4.0 * sd)
    # the weakest support features are barely above the null rate q0 = 0.317
    assert p[support].min() < 0.36 and p[~support].max() < 0.331
