"""skfed.privacy: mechanisms against their closed forms, the accountant's
composition, the budget stop."""

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

pytest.importorskip("dp_accounting")

from skfed.privacy import (  # noqa: E402
    DifferentialPrivacy,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    calibrate_gaussian,
    calibrate_laplace,
    calibrate_randomized_response,
    calibrate_report_noisy_max,
    check_privacy,
    epsilon_after,
    epsilon_spent,
    max_uses,
)


def analytic_gaussian_delta(sigma, epsilon, sensitivity=1.0):
    """delta(epsilon) of one Gaussian release (Balle & Wang 2018, Thm 8)."""
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b)


def test_specification_validates_and_clones():
    spec = DifferentialPrivacy(epsilon=0.5, delta=1e-5)
    assert spec.budget() == (0.5, 1e-5)
    assert clone(spec).get_params() == {"epsilon": 0.5, "delta": 1e-5}
    assert DifferentialPrivacy(epsilon=np.inf).budget()[0] == math.inf
    with pytest.raises(ValueError, match="epsilon"):
        DifferentialPrivacy(epsilon=0.0).budget()
    with pytest.raises(ValueError, match="delta"):
        DifferentialPrivacy(delta=1.0).budget()
    with pytest.raises(TypeError, match="MyEstimator: privacy must be None or a"):
        check_privacy({"epsilon": 1.0}, "MyEstimator")
    assert check_privacy(None, "MyEstimator") is None


def test_randomized_response_flip_rate_within_5_sigma():
    rng = np.random.default_rng(0)
    mech = RandomizedResponse.from_epsilon(0.8)
    p = 1.0 / (1.0 + math.exp(0.8))
    assert mech.flip_probability == pytest.approx(p, rel=1e-15)
    assert mech.epsilon == pytest.approx(0.8, rel=1e-12)
    n = 200_000
    bits = rng.integers(0, 2, size=n).astype(np.uint8)
    sent = mech.apply(bits, rng)
    flipped = np.mean(sent != bits)
    assert abs(flipped - p) < 5 * math.sqrt(p * (1 - p) / n)
    # symmetric: ones and zeros are flipped at the same rate
    for value in (0, 1):
        sel = bits == value
        rate = np.mean(sent[sel] != value)
        assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / sel.sum())


def test_randomized_response_calibration():
    # Pure DP: basic composition is exact, eps / d per bit.
    mech = calibrate_randomized_response(2.0, 0.0, 8)
    assert mech.flip_probability == pytest.approx(1.0 / (1.0 + math.exp(0.25)), rel=1e-14)
    assert epsilon_after(mech, 8, 0.0) == pytest.approx(2.0, rel=1e-12)
    # With delta > 0 the accountant allows more per bit, and the whole vector
    # spends the budget (within the bisection's tolerance) but not more.
    loose = calibrate_randomized_response(2.0, 1e-6, 40)
    assert loose.epsilon > 2.0 / 40
    spent = epsilon_after(loose, 40, 1e-6)
    assert 0.97 * 2.0 <= spent <= 2.0
    assert calibrate_randomized_response(np.inf, 1e-6, 40).flip_probability == 0.0


def test_gaussian_calibration_matches_the_analytic_gaussian_mechanism():
    for epsilon, delta, sens, n in [(1.0, 1e-6, 1.0, 1), (0.3, 1e-5, 2.5, 10), (4.0, 1e-8, 0.1, 100)]:
        mech = calibrate_gaussian(epsilon, delta, sens, n)
        # n releases at sigma compose to one release at sigma / sqrt(n)
        single = mech.sigma / math.sqrt(n)
        assert analytic_gaussian_delta(single, epsilon, sens) == pytest.approx(delta, rel=1e-6)
        assert epsilon_after(mech, n, delta) == pytest.approx(epsilon, rel=1e-6)
        # fewer releases spend less
        if n > 1:
            assert epsilon_after(mech, n // 2, delta) < epsilon
    with pytest.raises(ValueError, match="pure differential privacy"):
        calibrate_gaussian(1.0, 0.0, 1.0, 1)
    assert calibrate_gaussian(np.inf, 1e-6, 1.0, 5).sigma == 0.0


def test_laplace_closed_forms():
    mech = calibrate_laplace(0.5, 0.0, 2.0, 10)
    assert mech.scale == pytest.approx(10 * 2.0 / 0.5)
    assert mech.epsilon == pytest.approx(0.05)
    assert epsilon_after(mech, 10, 0.0) == pytest.approx(0.5)
    # one Laplace release at scale b is sensitivity / b - DP; the PLD
    # accountant agrees (up to its discretization) at any delta
    one = LaplaceMechanism(4.0, 1.0)
    assert epsilon_after(one, 1, 1e-6) == pytest.approx(0.25, abs=2e-3)
    # with delta > 0, composition allows less noise than basic composition
    approx = calibrate_laplace(1.0, 1e-6, 1.0, 50)
    assert approx.scale < 50.0
    assert epsilon_after(approx, 50, 1e-6) <= 1.0
    rng = np.random.default_rng(1)
    noise = one.apply(np.zeros(100_000), rng)
    # Laplace(b): variance 2 b^2
    assert np.var(noise) == pytest.approx(2 * 16.0, rel=0.03)


def test_report_noisy_max_is_the_exponential_mechanism():
    rng = np.random.default_rng(2)
    scores = np.array([0.0, 0.5, 1.0, 1.2])
    mech = ReportNoisyMax(epsilon=2.0, sensitivity=0.5)
    assert mech.noise == pytest.approx(2 * 0.5 / 2.0)
    n = 40_000
    picks = np.bincount([mech.apply(scores, rng) for _ in range(n)], minlength=4) / n
    expected = np.exp(2.0 * scores / (2 * 0.5))
    expected /= expected.sum()
    np.testing.assert_array_less(np.abs(picks - expected), 5 * np.sqrt(expected * (1 - expected) / n))
    assert ReportNoisyMax(np.inf, 1.0).apply(scores, rng) == 3
    per_use = calibrate_report_noisy_max(1.0, 0.0, 1.0, 20)
    assert per_use.epsilon == pytest.approx(0.05)


def test_composition_per_node_is_monotone_and_matches_the_accountant():
    mech = RandomizedResponse.from_epsilon(0.1)
    uses = np.array([0, 3, 1, 3, 12, 7])
    spent = epsilon_spent(mech, uses, 1e-6)
    assert spent[0] == 0.0
    for k, count in enumerate(uses):
        assert spent[k] == epsilon_after(mech, count, 1e-6)
    order = np.argsort(uses)
    assert np.all(np.diff(spent[order]) >= 0)
    assert np.all(spent[uses > 0] <= 0.1 * uses[uses > 0] + 1e-12)  # never above basic
    # one pure use: the accountant gives (up to discretization) its epsilon
    assert spent[2] == pytest.approx(0.1, abs=1e-3)


def test_budget_stop_is_the_last_affordable_use():
    mech = ReportNoisyMax(epsilon=0.05, sensitivity=1.0)
    limit = max_uses(mech, 1.0, 0.0, 1000)
    assert limit == 20  # pure DP: 20 x 0.05 = 1.0
    stop = max_uses(mech, 1.0, 1e-6, 1000)
    assert stop > 20
    assert epsilon_after(mech, stop, 1e-6) <= 1.0 < epsilon_after(mech, stop + 1, 1e-6)
    assert max_uses(mech, np.inf, 1e-6, 77) == 77
    gauss = GaussianMechanism(10.0, 1.0)
    stop = max_uses(gauss, 1.0, 1e-6, 10_000)
    assert epsilon_after(gauss, stop, 1e-6) <= 1.0 < epsilon_after(gauss, stop + 1, 1e-6)


# ---------------------------------------------------------------------------
# One-shot support recovery: randomized response on the vote bits
# ---------------------------------------------------------------------------

from skfed import FederatedSparseLinearRegression, FederatedSupportRecovery  # noqa: E402
from skfed.datasets import make_federated_sparse_regression  # noqa: E402
from skfed.network import SimulatedNetwork  # noqa: E402


@pytest.fixture(scope="module")
def sparse_clients():
    X, y, groups, support, _ = make_federated_sparse_regression(
        n_clients=300, n_samples=60, n_features=10, n_informative=3, random_state=0
    )
    return X, y, groups, support


def test_support_epsilon_infinity_equals_the_non_private_fit(sparse_clients):
    X, y, groups, _ = sparse_clients
    plain = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    private = FederatedSupportRecovery(
        privacy=DifferentialPrivacy(epsilon=np.inf), random_state=0
    ).fit(X, y, groups=groups)
    np.testing.assert_array_equal(private.client_supports_, plain.client_supports_)
    np.testing.assert_array_equal(private.votes_, plain.votes_)
    np.testing.assert_array_equal(private.support_, plain.support_)
    assert private.n_bytes_sent_ == plain.n_bytes_sent_
    assert np.all(np.isinf(private.privacy_spent_))


def test_support_randomized_response_flips_rates_spend_and_recovery(sparse_clients):
    X, y, groups, support = sparse_clients
    network = SimulatedNetwork(drop_rate=0.2)
    plain = FederatedSupportRecovery(network=network, random_state=3).fit(X, y, groups=groups)
    spec = DifferentialPrivacy(epsilon=10.0, delta=0.0)
    private = FederatedSupportRecovery(network=network, privacy=spec, random_state=3).fit(
        X, y, groups=groups
    )
    d = X.shape[1]
    p = 1.0 / (1.0 + math.exp(10.0 / d))
    assert private.privacy_["flip_probability"] == pytest.approx(p, rel=1e-14)
    # the same clients answered (same network seed); their honest bits flipped at rate p
    np.testing.assert_array_equal(private.answered_, plain.answered_)
    rows = private.answered_
    flipped = private.client_supports_[rows] != plain.client_supports_[rows]
    n = flipped.size
    assert abs(flipped.mean() - p) < 5 * math.sqrt(p * (1 - p) / n)
    # each answering client spent exactly its budget (pure DP, d bits), others nothing
    np.testing.assert_allclose(private.privacy_spent_[rows], 10.0, rtol=1e-12)
    assert np.all(private.privacy_spent_[~rows] == 0.0)
    # debiased median vote still recovers the true support with 300 clients
    np.testing.assert_array_equal(private.support_, support)
    fraction = private.votes_ / private.n_answered_
    np.testing.assert_array_equal(private.support_, (fraction - p) / (1 - 2 * p) >= 0.5)
    # bytes do not change: the same bit vectors, noisier
    assert private.n_bytes_sent_ == plain.n_bytes_sent_


def test_support_debiased_threshold_and_refusals(sparse_clients):
    X, y, groups, _ = sparse_clients
    spec = DifferentialPrivacy(epsilon=4.0, delta=1e-6)
    est = FederatedSupportRecovery(threshold=0.8, privacy=spec, random_state=1).fit(
        X, y, groups=groups
    )
    p = est.privacy_["flip_probability"]
    assert p <= 1.0 / (1.0 + math.exp(4.0 / X.shape[1]))  # delta > 0 never needs more noise
    assert np.all(est.privacy_spent_ <= 4.0)
    fraction = est.vote_fraction_
    np.testing.assert_array_equal(est.support_, (fraction - p) / (1 - 2 * p) >= 0.8)
    with pytest.raises(ValueError, match="FederatedSparseLinearRegression does not support privacy="):
        FederatedSparseLinearRegression(privacy=spec).fit(X, y, groups=groups)
    with pytest.raises(TypeError, match="'privacy' parameter of FederatedSupportRecovery"):
        FederatedSupportRecovery(privacy={"epsilon": 1}).fit(X, y, groups=groups)
