"""Randomized response at a large epsilon (review28).

``RandomizedResponse.from_epsilon`` computed the flip probability as ``1 /
(1 + exp(epsilon))``: ``math.exp`` overflows above epsilon 709.78, and the
(epsilon, delta) calibration searches per-bit epsilons up to 4 x the budget,
so ``FederatedSupportRecovery(privacy=DifferentialPrivacy(epsilon=200))``
(a point of an accuracy-vs-epsilon sweep) ended in ``OverflowError: math
range error`` naming nothing.  From epsilon 709 on it is now ``exp(-epsilon)``
(equal to ``1 / (1 + exp(epsilon))`` in float64 there, checked against
SciPy's ``expit``); below, the same bits as before.
"""

import math
import warnings

import numpy as np
import pytest
from scipy.special import expit

from skfed import DifferentialPrivacy, FederatedSupportRecovery
from skfed.privacy import RandomizedResponse


@pytest.mark.parametrize("epsilon", [1e-3, 0.5, 2.0, 30.0, 200.0, 709.0, 710.0, 800.0, 5000.0])
def test_flip_probability_is_the_logistic_of_minus_epsilon(epsilon):
    p = RandomizedResponse.from_epsilon(epsilon).flip_probability
    assert p == pytest.approx(float(expit(-epsilon)), rel=1e-15, abs=1e-300)   # (subnormals)
    assert 0.0 <= p < 0.5
    if epsilon < 709.0:       # below exp's overflow: the old formula's bits
        assert p == 1.0 / (1.0 + math.exp(epsilon))


@pytest.mark.parametrize("epsilon", [200.0, 700.0])
def test_support_recovery_fits_and_accounts_a_large_epsilon(epsilon):
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(8), 40)
    X = rng.normal(size=(len(groups), 6))
    y = X[:, 0] - 2.0 * X[:, 3] + 0.1 * rng.normal(size=len(groups))
    est = FederatedSupportRecovery(random_state=0,
                                   privacy=DifferentialPrivacy(epsilon=epsilon))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    spent = np.asarray(est.privacy_spent_, dtype=float)
    assert spent.shape == (8,)
    assert np.all(spent <= epsilon * (1 + 1e-9)) and np.all(spent > 0.9 * epsilon)
    # almost no flips at this epsilon: the true support is found
    assert set(np.flatnonzero(est.support_).tolist()) == {0, 3}
