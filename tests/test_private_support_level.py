"""The private support test's level (issue 27, ``FederatedSupportRecovery``).

Under ``privacy`` each answering client reports one feature (at epsilon up
to 3) by randomized response; the server keeps feature ``j`` only when the
exact binomial p-value of its randomized votes against the reference rate
``(1 - beta) (p + (1 - 2 p) q0) + beta`` (``q0 = 2 Phi(-1)`` the honest
clients' null selection rate, ``p`` the flip probability, ``beta`` the
rogue tolerance) is at most ``fwer / n_features`` (Bonferroni).  So a
private fit never returns a feature whose vote is not significant at
``fwer / n_features``, and when every feature outside the support is
selected by honest clients at most at the null rate, a fit returns one
with probability at most ``fwer = 0.05``.  The references are
independent: scipy's binomial tail on the fitted counts, the closed-form
flip probability ``1 / (1 + exp(epsilon))`` and an empirical rate over
repeated noise draws with a Clopper-Pearson bound.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("dp_accounting")

from skfed import FederatedSupportRecovery  # noqa: E402
from skfed.datasets import make_federated_sparse_regression  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402

D = 20


def _problem(seed):
    return make_federated_sparse_regression(
        n_clients=300, n_samples=60, n_features=D, n_informative=3, random_state=seed)


def _fit(X, y, groups, seed, noise_seed, epsilon=1.0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FederatedSupportRecovery(
            privacy=DifferentialPrivacy(epsilon, delta=1e-6, insecure_noise_seed=noise_seed),
            random_state=seed,
        ).fit(X, y, groups=groups)


@pytest.mark.parametrize("epsilon", [1.0, 3.0])
def test_every_kept_feature_is_significant_against_scipy(epsilon):
    X, y, groups, true, _ = _problem(0)
    est = _fit(X, y, groups, 0, 7, epsilon)
    p = est.privacy_["flip_probability"]
    assert est.privacy_["n_reported"] == 1
    assert p == pytest.approx(1.0 / (1.0 + math.exp(epsilon)), rel=1e-9)
    # One report per answering client: the counts add up to the clients.
    assert int(est.n_reports_.sum()) == est.n_answered_ == 300
    assert np.all(est.votes_ <= est.n_reports_)
    beta = est.rogue_tolerance_
    reference = (1 - beta) * (p + (1 - 2 * p) * 2 * stats.norm.sf(1.0)) + beta
    assert est.reference_rate_ == pytest.approx(reference, rel=1e-12)
    pvalues = stats.binom.sf(est.votes_ - 1, est.n_reports_, reference)
    np.testing.assert_allclose(est.pvalues_, pvalues, rtol=1e-9, atol=1e-300)
    np.testing.assert_array_equal(est.support_, pvalues <= 0.05 / D)
    np.testing.assert_allclose(
        est.debiased_fraction_, (est.votes_ / est.n_reports_ - p) / (1 - 2 * p), rtol=1e-12)


def test_false_features_stay_within_the_family_wise_level_at_epsilon_1():
    # 10 problems x 40 noise draws at epsilon 1 (the setting where
    # benchmarks/private_support_rate.py saw one false feature in 200 fits):
    # the fits returning a feature outside the support must be a rate whose
    # one-sided 99.99 % Clopper-Pearson lower bound stays under fwer = 0.05.
    n_fits = n_false = 0
    for seed in range(10):
        X, y, groups, true, _ = _problem(seed)
        for draw in range(40):
            est = _fit(X, y, groups, seed, 1000 * seed + draw)
            n_fits += 1
            n_false += int(est.support_[~true].any())
            kept = np.flatnonzero(est.support_)
            assert np.all(est.pvalues_[kept] <= 0.05 / D)
    lower = stats.beta.ppf(1e-4, n_false, n_fits - n_false + 1) if n_false else 0.0
    assert lower < 0.05
    # Measured with these draws: 3 of 400 (the level is far from binding:
    # the rogue margin beta lifts the reference above the honest rates).
    assert n_false <= 20
