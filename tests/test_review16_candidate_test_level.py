"""review16: the level of the sparse linear refit's test round (2c) under
the null "the support is enough" when the candidates' residual products
are skewed.

Under the null each client's product of a candidate with its residual has
mean zero (the null is exactly that, with independent clients), so the
server's test should reject at most ``TEST_LEVEL`` of the time up to
simulation error.  The products are drawn here directly from the null (no
fit): each client has 60 rows, 13 candidates off the support, residuals
centred on the client; a candidate is a rare binary feature (a one-hot
column, School's kind) and the residuals are exponential (skewed)
noise.  Then each product is a sum of one or two skewed values, and the
per-candidate t-test at the Bonferroni level ``0.025 / 13`` sits in a tail
where Student's t is far from the skewed mean's distribution: on 2,000
draws it rejected 9.9 % (t part 7.4 % for a nominal 2.5 %, Hotelling 4.5 %),
on Gaussian residuals 3.1 %.  ``candidate_test``'s docstring says both tests are
conservative under the hypothesis; that holds for near-symmetric products
only.  The cost of a false rejection is bytes (round 2d asks for the
candidates' statistics and the cross-validation chooses), not accuracy; the
fix (a level that holds for skewed products, e.g. a calibrated or
skew-corrected t) is not small, so the skewed case is a strict xfail and
the Gaussian case a check that the same measurement passes when the
level holds.

support19 measured replacements on these draws and on the power cases
of tests/test_sparse_linear_candidate_test.py (benchmarks/
candidate_test_level.py): a bootstrap-t over the clients of max |t_j| and
of sum t_j^2 holds the level here (2.4 %) with more power on eight weak
effects (0.89 vs 0.85).  support20 made it the server's test, so the
skewed case, a strict xfail until then, is a plain check; the old test's
9.9 % is in the docstring above.
"""

import numpy as np

from skfed.support._candidate_test import TEST_LEVEL, candidate_test

N_DRAWS = 1000
# the rejection rate allowed: the level plus three binomial standard errors
BOUND = TEST_LEVEL + 3 * np.sqrt(TEST_LEVEL * (1 - TEST_LEVEL) / N_DRAWS)


def _null_products(rng, skewed, g=30, n=60, k=13, p=0.02):
    """Each client's X_E' r with r its residual centred on the client and
    independent of the candidates (the null), as float32 like the clients
    send."""
    products = np.empty((g, k))
    for i in range(g):
        XE = (rng.uniform(size=(n, k)) < p).astype(float)
        r = rng.exponential(size=n) - 1.0 if skewed else rng.normal(size=n)
        products[i] = XE.T @ (r - r.mean())
    return products.astype(np.float32)


def _rejection_rate(skewed):
    rng = np.random.RandomState(0)
    rejected = [candidate_test(_null_products(rng, skewed), random_state=rng)[2]
                for _ in range(N_DRAWS)]
    return float(np.mean(rejected))


def test_level_holds_with_symmetric_residuals():
    rate = _rejection_rate(skewed=False)
    assert 0.0 < rate <= BOUND, rate


def test_level_holds_with_skewed_residuals():
    rate = _rejection_rate(skewed=True)
    assert rate <= BOUND, rate
