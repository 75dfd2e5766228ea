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
    assert clone(spec).get_params() == {
        "epsilon": 0.5, "delta": 1e-5, "clip_norm": 1.0, "insecure_noise_seed": None,
        "local_estimator": None,
    }
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
    d = X.shape[1]
    plain = FederatedSupportRecovery(network=network, random_state=3).fit(X, y, groups=groups)
    spec = DifferentialPrivacy(epsilon=10.0, delta=0.0)
    private = FederatedSupportRecovery(
        network=network, privacy=spec, n_reported=d, random_state=3
    ).fit(X, y, groups=groups)
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
    # the server's test on the randomized votes still recovers the support
    np.testing.assert_array_equal(private.support_, support)
    fraction = private.votes_ / private.n_answered_
    reference = 0.9 * (p + (1 - 2 * p) * 2 * stats.norm.sf(1.0)) + 0.1
    pvalues = stats.binom.sf(private.votes_ - 1, private.n_answered_, reference)
    np.testing.assert_allclose(private.pvalues_, pvalues, rtol=1e-12)
    np.testing.assert_array_equal(private.support_, pvalues <= 0.05 / d)
    np.testing.assert_allclose(private.debiased_fraction_, (fraction - p) / (1 - 2 * p))
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
    # a fixed threshold under privacy: the debiased vote must be significantly
    # above it (one-sided binomial test against p + (1 - 2 p) 0.8, Bonferroni)
    n = est.n_reports_
    pvalues = stats.binom.sf(est.votes_ - 1, n, p + (1 - 2 * p) * 0.8)
    np.testing.assert_array_equal(est.support_, pvalues <= 0.05 / X.shape[1])
    with pytest.raises(ValueError, match="FederatedSparseLinearRegression does not support privacy="):
        FederatedSparseLinearRegression(privacy=spec).fit(X, y, groups=groups)
    with pytest.raises(TypeError, match="'privacy' parameter of FederatedSupportRecovery"):
        FederatedSupportRecovery(privacy={"epsilon": 1}).fit(X, y, groups=groups)


# ---------------------------------------------------------------------------
# Dada: report-noisy-max on the Frank-Wolfe scores, per-node composition
# ---------------------------------------------------------------------------

import warnings  # noqa: E402

from sklearn.datasets import make_moons  # noqa: E402

from skfed import DecentralizedBoostingClassifier  # noqa: E402
from skfed._core._boosting_fast import (  # noqa: E402
    Logistic,
    fw_async,
    private_vertex_draws,
)
from skfed._secure_noise import (  # noqa: E402
    CHOICE_RESOLUTION,
    GRID_NOISE_STEPS,
    InsecureNoiseWarning,
    NoiseSource,
)
from skfed.privacy import (  # noqa: E402
    DiscreteGaussianMechanism,
    ExponentialMechanism,
    calibrate_discrete_gaussian,
    calibrate_exponential,
    zcdp_epsilon,
)
from skfed.boosting import fw_score_sensitivity, make_stump_predictors  # noqa: E402
from skfed.privacy import PrivacyBudgetWarning  # noqa: E402


def _weighted_column_mean(a, margins):
    w = np.exp(-margins)
    return float(w @ a / w.sum())


def test_fw_score_sensitivity_bounds_and_is_attained():
    beta, m = 1.5, 30
    bound = fw_score_sensitivity(m, beta)
    assert bound == pytest.approx(2.0 / (1.0 + (m - 1) * math.exp(-2 * beta)), rel=1e-15)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(3000):
        a = rng.choice([-1.0, 1.0], size=m) * rng.uniform(0.5, 1, size=m)
        margins = rng.uniform(-beta, beta, size=m) * rng.choice([0.2, 1.0])
        before = _weighted_column_mean(a, margins)
        a2, margins2 = a.copy(), margins.copy()
        a2[0], margins2[0] = rng.uniform(-1, 1), rng.uniform(-beta, beta)
        worst = max(worst, abs(_weighted_column_mean(a2, margins2) - before))
    assert worst <= bound
    # the extreme case: all others at margin beta, the sample at -beta, a -1 -> +1
    a = np.ones(m)
    a[0] = -1.0
    margins = np.full(m, beta)
    margins[0] = -beta
    a2 = a.copy()
    a2[0] = 1.0
    change = _weighted_column_mean(a2, margins) - _weighted_column_mean(a, margins)
    assert change == pytest.approx(bound, rel=1e-12)
    assert fw_score_sensitivity(1, 0.1) == pytest.approx(2.0)  # one sample: all of [-1, 1]


def test_cython_private_vertex_frequencies_are_the_exponential_mechanism():
    grad = np.array([0.3, -0.8, 0.0, 1.1])
    unit, scale = 0.01, 50
    n = 60_000
    js, signs = private_vertex_draws(grad, unit, scale, n, NoiseSource(insecure_seed=1).stream())
    # vertex (j, s) with probability proportional to exp(floor(-s g_j / unit) / scale)
    quality = np.floor(np.concatenate([-grad, grad]) / unit)  # s = +1, then s = -1
    expected = np.exp(quality / scale)
    expected /= expected.sum()
    index = np.where(signs > 0, js, js + grad.size)
    freq = np.bincount(index, minlength=2 * grad.size) / n
    np.testing.assert_array_less(
        np.abs(freq - expected), 5 * np.sqrt(expected * (1 - expected) / n) + 1e-12
    )


def _cks_zcdp_epsilon(rho, delta):
    """Independent conversion of rho-zCDP to (epsilon, delta): Canonne,
    Kamath & Steinke 2020, Proposition 12, minimized over the order."""
    from scipy.optimize import minimize_scalar

    def eps(log_a):
        a = 1.0 + math.exp(log_a)
        return rho * a + math.log1p(-1.0 / a) - math.log(delta * a) / (a - 1.0)

    return minimize_scalar(eps, bounds=(-6.0, 14.0), method="bounded",
                           options={"xatol": 1e-10}).fun


def test_discrete_gaussian_and_exponential_accounting():
    for rho, delta in [(0.01, 1e-6), (0.3, 1e-5), (2.0, 1e-6)]:
        assert zcdp_epsilon(rho, delta) == pytest.approx(_cks_zcdp_epsilon(rho, delta), rel=2e-3)
        assert zcdp_epsilon(rho, delta) >= _cks_zcdp_epsilon(rho, delta) * (1 - 1e-9)
    # grid sensitivity: Delta / step + 2 sqrt(dim), step = sigma / 2^20
    mech = DiscreteGaussianMechanism(3.0, 1.5, 4)
    assert mech.step == 3.0 / GRID_NOISE_STEPS
    assert mech.rho == pytest.approx((1.5 / 3.0 + 4.0 / GRID_NOISE_STEPS) ** 2 / 2, rel=1e-12)
    mech = calibrate_discrete_gaussian(1.0, 1e-6, 2.0, 40, 3)
    assert mech.epsilon_after(40, 1e-6) <= 1.0
    assert mech.epsilon_after(40, 1e-6) > 1.0 - 1e-6
    # within 10 % of the continuous Gaussian's exact (PLD) noise
    assert 1.0 < mech.sigma / calibrate_gaussian(1.0, 1e-6, 2.0, 40).sigma < 1.1
    # exponential mechanism: integer scale, epsilon at most the one asked
    em = ExponentialMechanism(0.2)
    assert em.scale == math.ceil(2 * (CHOICE_RESOLUTION + 1) / 0.2)
    assert 0.2 * (1 - 1e-3) < em.epsilon <= 0.2
    # bounded range: n choices are n eps^2 / 8 zCDP, below pure composition
    assert em.epsilon_after(200, 1e-6) == pytest.approx(
        _cks_zcdp_epsilon(200 * em.epsilon**2 / 8, 1e-6), rel=2e-3)
    assert em.epsilon_after(3, 0.0) == 3 * em.epsilon
    cal = calibrate_exponential(3.0, 1e-6, 200)
    assert cal.epsilon_after(200, 1e-6) <= 3.0
    # about twice the per-choice epsilon of the PLD composition of pure DP
    assert cal.epsilon > 1.7 * calibrate_report_noisy_max(3.0, 1e-6, 1.0, 200).epsilon


@pytest.fixture(scope="module")
def moons_nodes():
    X, y = make_moons(240, noise=0.2, random_state=0)
    groups = np.repeat(np.arange(6), 40)
    stumps = make_stump_predictors([-1.5, -1.0], [2.5, 1.5], 20)
    return X, y, groups, stumps


def test_dada_epsilon_infinity_is_the_non_private_fit(moons_nodes):
    X, y, groups, stumps = moons_nodes
    kw = dict(base_predictors=stumps, max_iter=120, random_state=0)
    plain = DecentralizedBoostingClassifier(**kw).fit(X, y, groups=groups)
    free = DecentralizedBoostingClassifier(
        privacy=DifferentialPrivacy(epsilon=np.inf), **kw
    ).fit(X, y, groups=groups)
    np.testing.assert_array_equal(free.coef_, plain.coef_)
    np.testing.assert_array_equal(free.intercept_, plain.intercept_)
    np.testing.assert_array_equal(free.objective_curve_, plain.objective_curve_)
    assert (free.collaboration_graph_ != plain.collaboration_graph_).nnz == 0
    assert free.n_bytes_sent_ == plain.n_bytes_sent_
    assert np.all(np.isinf(free.privacy_spent_))
    assert free.privacy_["noise"] == 0.0


def test_dada_spend_noise_and_accountant(moons_nodes):
    X, y, groups, stumps = moons_nodes
    K, max_iter = 6, 120
    spec = DifferentialPrivacy(epsilon=3.0, delta=0.0)
    est = DecentralizedBoostingClassifier(
        base_predictors=stumps, max_iter=max_iter, beta=1.0, mu=10.0, privacy=spec, random_state=1,
    ).fit(X, y, groups=groups)
    info = est.privacy_
    n_local = math.ceil(max_iter / K)
    planned = math.ceil(max_iter / K + 2 * math.sqrt(max_iter / K))
    assert info["planned_wakeups"] == planned
    # pure DP: basic composition, epsilon / (n_local + planned) per choice, on
    # the integer scale ceil(2 (R + 1) / epsilon_0) of the exact sampler
    asked = 3.0 / (n_local + planned)
    scale = math.ceil(2 * (CHOICE_RESOLUTION + 1) / asked)
    assert info["choice_scale"] == scale
    eps0 = 2 * (CHOICE_RESOLUTION + 1) / scale
    assert info["epsilon_per_use"] == pytest.approx(eps0, rel=1e-12)
    assert asked * (1 - 1e-3) < eps0 <= asked
    assert info["affordable_wakeups"] == planned
    # score sensitivity Delta_A per unit loss weight, the closed form
    delta_a = 2.0 / (1.0 + 39.0 * math.exp(-2.0))
    np.testing.assert_allclose(info["score_sensitivity_per_unit_weight"], delta_a, rtol=1e-12)
    # every node: n_local local choices plus one per wake-up that updated
    uses = info["uses"]
    assert np.all(uses >= n_local) and np.all(uses <= n_local + planned)
    assert uses.sum() == K * n_local + est.n_updates_
    np.testing.assert_allclose(est.privacy_spent_, eps0 * uses, rtol=1e-12)
    assert np.all(est.privacy_spent_ <= 3.0 + 1e-12)
    # with delta > 0 the accountant's figure, monotone in the number of steps
    spec = DifferentialPrivacy(epsilon=3.0, delta=1e-6)
    spent = []
    for n_iter in (60, 120):
        est = DecentralizedBoostingClassifier(
            base_predictors=stumps, max_iter=n_iter, graph_update_every=None, beta=1.0,
            mu=10.0, privacy=spec, random_state=1,
        ).fit(X, y, groups=groups)
        n_plan = math.ceil(n_iter / K) + math.ceil(n_iter / K + 2 * math.sqrt(n_iter / K))
        mech = calibrate_exponential(3.0, 1e-6, n_plan)
        assert est.privacy_["epsilon_per_use"] == mech.epsilon
        for k in range(K):
            assert est.privacy_spent_[k] == epsilon_after(mech, est.privacy_["uses"][k], 1e-6)
        assert np.all(est.privacy_spent_ <= 3.0)
        spent.append(epsilon_spent(mech, np.arange(0, 200, 20), 1e-6))
        assert np.all(np.diff(spent[-1]) > 0)


def _fw_arrays(K=3, m=8, n=4, seed=0):
    rng = np.random.default_rng(seed)
    H = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(K * m, n)))
    Y = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(1, K * m)))
    sw = np.ones(K * m)
    offsets = np.arange(0, K * m + 1, m).astype(np.intp)
    W = np.ones((K, K)) - np.eye(K)
    indptr = np.arange(0, K * (K - 1) + 1, K - 1).astype(np.intp)
    indices = np.array([l for k in range(K) for l in range(K) if l != k], dtype=np.intp)
    return H, Y, sw, offsets, indptr, indices, W


def test_dada_budget_stop_at_the_right_wakeup():
    from skfed.network import SimulatedNetwork

    K, n_steps = 3, 40
    H, Y, sw, offsets, indptr, indices, W = _fw_arrays(K)
    n = H.shape[1]
    alpha = np.zeros((K, 1, n))
    public = np.zeros_like(alpha)
    margins = np.zeros((1, H.shape[0]))
    losses = np.zeros((K, 1))
    sim = SimulatedNetwork().start(K, server=False, random_state=0)
    trace_node = np.zeros(n_steps, dtype=np.intp)
    trace_coord = np.zeros(n_steps, dtype=np.intp)
    left = np.array([2, 5, 0], dtype=np.int64)
    stopped = np.full(K, -1, dtype=np.int64)
    fw_async(
        H, Y, sw, offsets, alpha, public, margins, losses, indptr, indices,
        np.ones(K * (K - 1)), np.full(K, K - 1.0), np.ones(K), 1.0, 1.0, 0, n_steps,
        np.array([7], dtype=np.uint32), np.arange(1, K + 1, dtype=np.uint32),
        np.zeros(0, dtype=np.uint8), np.zeros(K, dtype=np.uint8), 0, sim.counter, 10, -1, 0,
        0.0, np.zeros(n_steps), trace_node, trace_coord, np.zeros(n_steps),
        unit=np.full(K, 0.01), scale=30, stream=NoiseSource(insecure_seed=0).stream(),
        wakeups_left=left, stopped_at=stopped, it_offset=100,
    )
    for k, budget in enumerate([2, 5, 0]):
        wakes = np.flatnonzero(trace_node == k)
        assert wakes.size > budget  # the node woke up past its budget
        # its first `budget` wake-ups update, every later one does nothing
        assert np.all(trace_coord[wakes[:budget]] >= 0)
        assert np.all(trace_coord[wakes[budget:]] == -1)
        assert stopped[k] == 100 + wakes[budget]
    np.testing.assert_array_equal(left, 0)


def test_dada_privacy_refusals(moons_nodes):
    X, y, groups, stumps = moons_nodes
    spec = DifferentialPrivacy(epsilon=1.0)
    with pytest.raises(ValueError, match="needs base_predictors on a public feature range"):
        DecentralizedBoostingClassifier(privacy=spec).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="does not accept warm_start=True"):
        FederatedMultiTaskClassifier(kernel="linear", omega="independent", warm_start=True,
                                     privacy=spec).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="does not accept sample_weight"):
        DecentralizedBoostingClassifier(base_predictors=stumps, privacy=spec).fit(
            X, y, groups=groups, sample_weight=np.ones(len(y))
        )


# ---------------------------------------------------------------------------
# Perso-lin: Gaussian noise on clipped local gradients (Bellet et al. 2018)
# ---------------------------------------------------------------------------

from skfed import PersonalizedLinearClassifier  # noqa: E402
from skfed._core._boosting_fast import lin_local  # noqa: E402


def test_persolin_epsilon_infinity_is_the_non_private_fit(moons_nodes):
    X, y, groups, _ = moons_nodes
    kw = dict(max_iter=120, mu=0.5, random_state=0)
    plain = PersonalizedLinearClassifier(**kw).fit(X, y, groups=groups)
    free = PersonalizedLinearClassifier(privacy=DifferentialPrivacy(np.inf), **kw).fit(
        X, y, groups=groups
    )
    np.testing.assert_array_equal(free.coef_, plain.coef_)
    np.testing.assert_array_equal(free.intercept_, plain.intercept_)
    np.testing.assert_array_equal(free.objective_curve_, plain.objective_curve_)
    assert free.n_bytes_sent_ == plain.n_bytes_sent_
    assert np.all(np.isinf(free.privacy_spent_))


def test_persolin_noise_scale_and_spend_are_the_closed_forms(moons_nodes):
    X, y, groups, _ = moons_nodes
    K, max_iter, m = 6, 120, 40
    spec = DifferentialPrivacy(epsilon=2.0, delta=1e-5, clip_norm=0.5)
    est = PersonalizedLinearClassifier(max_iter=max_iter, privacy=spec, random_state=2).fit(
        X, y, groups=groups
    )
    info = est.privacy_
    n_local = math.ceil(max_iter / K)
    planned = math.ceil(max_iter / K + 2 * math.sqrt(max_iter / K))
    n_plan = n_local + planned
    # sigma_k = z * 2 C sqrt(P) / m_k, z the discrete Gaussian's noise
    # multiplier: n_plan releases of grid sensitivity 2^20 / z + 2 sqrt(3)
    # (3 coordinates) at 2^20 steps are rho = n_plan D^2 / (2 2^40)-zCDP,
    # which converts to epsilon = 2 at delta = 1e-5
    sigma_k = info["sigma"]
    np.testing.assert_allclose(info["gradient_sensitivity"], 2 * 0.5 / m, rtol=1e-12)
    np.testing.assert_allclose(sigma_k, sigma_k[0], rtol=1e-15)
    z = sigma_k[0] / (2 * 0.5 / m)
    np.testing.assert_allclose(info["grid_step"], sigma_k / GRID_NOISE_STEPS, rtol=1e-15)
    D = GRID_NOISE_STEPS / z + 2 * math.sqrt(3)
    rho = D**2 / (2.0 * GRID_NOISE_STEPS**2)
    assert _cks_zcdp_epsilon(n_plan * rho, 1e-5) == pytest.approx(2.0, rel=3e-3)
    uses = info["uses"]
    assert uses.sum() == K * n_local + est.n_updates_
    for k in range(K):
        expected = 0.0 if uses[k] == 0 else _cks_zcdp_epsilon(uses[k] * rho, 1e-5)
        assert est.privacy_spent_[k] == pytest.approx(expected, rel=3e-3)
    assert np.all(est.privacy_spent_ <= 2.0 + 1e-9)
    # the step size is public: logistic curvature 1/4 times 3 columns, plus alpha
    np.testing.assert_allclose(info["lipschitz"], 0.25 * 3 + 1e-2, rtol=1e-15)
    with pytest.raises(ValueError, match="pure differential privacy"):
        PersonalizedLinearClassifier(privacy=DifferentialPrivacy(1.0, delta=0.0)).fit(
            X, y, groups=groups
        )
    with pytest.raises(ValueError, match="does not accept warm_start=True"):
        FederatedMultiTaskClassifier(kernel="linear", omega="independent", warm_start=True,
                                     privacy=spec).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="does not accept sample_weight"):
        PersonalizedLinearClassifier(privacy=spec).fit(
            X, y, groups=groups, sample_weight=np.ones(len(y))
        )


def _one_local_step(Z, Yrow, *, n_nodes, sigma, clip, l2=0.1, seed=1):
    """lin_local: one logistic step from theta = 0 on n_nodes copies of (Z, Yrow)."""
    m, n = Z.shape
    Xall = np.ascontiguousarray(np.tile(Z, (n_nodes, 1)))
    Yall = np.ascontiguousarray(np.tile(Yrow, n_nodes)[None, :])
    offsets = np.arange(0, n_nodes * m + 1, m).astype(np.intp)
    theta = np.zeros((n_nodes, 1, n))
    lip = np.full(n_nodes, 2.0)
    private = {}
    if sigma > 0:
        private = dict(
            grid_step=np.full(n_nodes, sigma / GRID_NOISE_STEPS),
            noise=NoiseSource(insecure_seed=seed).discrete_gaussian(GRID_NOISE_STEPS, (n_nodes, n)),
        )
    lin_local(
        Xall, Yall, np.ones(n_nodes * m), offsets, theta, Logistic(), np.full(n_nodes, 1.0 / m),
        lip, l2, n - 1, np.zeros((n_nodes, 1)), 1, 0, n_nodes,
        row_norm=np.linalg.norm(Xall, axis=1), clip=clip, **private,
    )
    return theta[:, 0, :]


def test_persolin_clipped_step_matches_numpy_and_noise_has_sigma():
    rng = np.random.default_rng(5)
    m = 25
    Z = np.column_stack([rng.normal(scale=0.5, size=(m, 2)), np.ones(m)])
    Yrow = rng.choice([-1.0, 1.0], size=m)
    clip = 0.6
    # NumPy reference: at theta = 0 the logistic derivative is -1/2 for every
    # sample; each term -1/2 y_i x_i is clipped to norm `clip`
    terms = -0.5 * Yrow[:, None] * Z
    norms = np.linalg.norm(terms, axis=1)
    terms *= np.minimum(1.0, clip / norms)[:, None]
    assert np.any(norms > clip) and np.any(norms < clip)  # both cases occur
    expected = -terms.mean(axis=0) / 2.0
    got = _one_local_step(Z, Yrow, n_nodes=1, sigma=0.0, clip=clip)
    np.testing.assert_allclose(got[0], expected, rtol=1e-12, atol=1e-15)
    # Gaussian noise: theta = expected - noise / L, noise ~ N(0, sigma^2) per
    # coordinate (discrete Gaussian on the grid sigma / 2^20: the gradient is
    # rounded to it, which moves it by at most half a step)
    n_nodes, sigma = 4000, 0.3
    noisy = _one_local_step(Z, Yrow, n_nodes=n_nodes, sigma=sigma, clip=clip)
    noise = (expected - noisy) * 2.0
    step = sigma / GRID_NOISE_STEPS
    released = -2.0 * noisy  # the released gradient is on the grid
    np.testing.assert_allclose(released / step, np.rint(released / step), rtol=0, atol=1e-3)
    assert np.all(np.abs(noise.mean(axis=0)) < 5 * sigma / math.sqrt(n_nodes))
    np.testing.assert_array_less(
        np.abs(noise.std(axis=0) - sigma), 5 * sigma / math.sqrt(2 * n_nodes)
    )
    # coordinates independent, and normal (Kolmogorov-Smirnov)
    assert abs(np.corrcoef(noise[:, 0], noise[:, 1])[0, 1]) < 5 / math.sqrt(n_nodes)
    assert stats.kstest(noise[:, 0] / sigma, "norm").pvalue > 1e-4


@pytest.mark.parametrize("Estimator", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_budget_stop_spends_exactly_the_budget(moons_nodes, Estimator):
    X, y, groups, stumps = moons_nodes
    X = np.tile(X[:40], (5, 1))
    y = np.tile(y[:40], 5)
    groups = np.repeat(np.arange(20), 10)
    extra = {"base_predictors": stumps} if Estimator is DecentralizedBoostingClassifier else {}
    spec = DifferentialPrivacy(epsilon=1.0, delta=1e-6 if extra == {} else 0.0)
    for seed in range(30):
        est = Estimator(graph=np.ones((20, 20)) - np.eye(20), max_iter=20, privacy=spec,
                        random_state=seed, **extra)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(X, y, groups=groups)
        stopped = np.flatnonzero(est.privacy_["stopped_at"] >= 0)
        if stopped.size:
            break
    assert stopped.size
    messages = [str(w.message) for w in caught if w.category is PrivacyBudgetWarning]
    assert len(messages) == 1 and Estimator.__name__ in messages[0]
    # the budget it names is the model's share, said to be one (user32: the
    # message named half the user's epsilon as if it were all of it)
    from skfed._class_vote import split_budget
    for vote in (True, False):
        fit_eps, vote_eps = split_budget(1.0, 20, vote)
        said = (f"epsilon={fit_eps:g} of the 1 given; the class vote took {vote_eps:g}"
                if vote_eps > 0 else "epsilon=1, delta")
        if said in messages[0]:
            break
    else:
        raise AssertionError(messages[0])
    afford = est.privacy_["affordable_wakeups"]
    assert afford >= math.ceil(1 + 2)  # mean 1 wake-up per node, plus 2 sd
    # fixed graph, so no local phase: one release per update, and every
    # refused wake-up is an iteration without an update (no drops here)
    assert est.privacy_["uses"].sum() == est.n_updates_
    assert est.n_iter_ - est.n_updates_ >= stopped.size
    for k in stopped:
        assert f"{est.nodes_.tolist()[k]!r} at iteration {est.privacy_['stopped_at'][k]}" in messages[0]
        assert est.privacy_["uses"][k] == afford
        assert est.privacy_spent_[k] <= 1.0
        # one more use would have exceeded the budget
        mech = (ExponentialMechanism(est.privacy_["epsilon_per_use"] * (1 + 1e-12)) if extra
                else DiscreteGaussianMechanism(est.privacy_["noise"], 1.0, 3))
        assert epsilon_after(mech, est.privacy_["uses"][k] + 1, spec.delta) > 1.0


def test_online_kernel_sgd_refuses_privacy(moons_nodes):
    from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

    X, y, groups, _ = moons_nodes
    spec = DifferentialPrivacy(epsilon=1.0)
    for est, target in [(DecentralizedKernelSGDClassifier(privacy=spec), y),
                        (DecentralizedKernelSGDRegressor(privacy=spec), y.astype(float))]:
        with pytest.raises(ValueError, match=f"{type(est).__name__} does not support privacy=: "
                           "its exchanges send raw samples"):
            est.fit(X, target, groups=groups)
    assert not hasattr(est, "nodes_")


# ---------------------------------------------------------------------------
# Kernel MTL (MOCHA): Gaussian noise on the clipped per-round updates
# ---------------------------------------------------------------------------

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor  # noqa: E402
from skfed.multitask import _PrivateUpdates  # noqa: E402


def test_mocha_epsilon_infinity_is_the_non_private_fit(moons_nodes):
    X, y, groups, _ = moons_nodes
    # MOCHA's updates (the learned Omega; the default shared model has no
    # private updates), on random features
    kw = dict(kernel="rbf", omega="learn", loss="squared_hinge", approximation="rff",
              gamma=1.0, n_components=30, max_rounds=30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = FederatedMultiTaskClassifier(**kw).fit(X, y, groups=groups)
        free = FederatedMultiTaskClassifier(privacy=DifferentialPrivacy(np.inf), **kw).fit(
            X, y, groups=groups
        )
    np.testing.assert_array_equal(free.coef_, plain.coef_)
    np.testing.assert_array_equal(free.omega_, plain.omega_)
    np.testing.assert_array_equal(free.objective_curve_, plain.objective_curve_)
    assert free.n_bytes_sent_ == plain.n_bytes_sent_
    assert np.all(np.isinf(free.privacy_spent_))


def test_mocha_private_updates_clip_noise_and_spend(moons_nodes):
    from skfed._secure_noise import NoiseSource
    from skfed.network import SimulatedNetwork
    from skfed.privacy import calibrate_discrete_gaussian, zcdp_epsilon

    X, y, groups, _ = moons_nodes
    # the mechanism: clip to 0.3 in Frobenius norm, then the discrete Gaussian
    # of sensitivity 2 * 0.3 whose 25 uses spend (4, 1e-5), from the source of
    # the testing switch (which reproduces it)
    spec = DifferentialPrivacy(epsilon=4.0, delta=1e-5, clip_norm=0.3, insecure_noise_seed=5)
    with pytest.warns(InsecureNoiseWarning):
        private = _PrivateUpdates(spec, 2, 25, 3)
    reference = calibrate_discrete_gaussian(4.0, 1e-5, 0.6, 25, 3)
    assert private.sigma == reference.sigma
    assert zcdp_epsilon(25 * private.mechanism.rho, 1e-5) <= 4.0
    totals = np.array([10.0, 4.0])
    big = np.full((1, 3), 2.0)  # one problem; update norm 2 sqrt(3) / 10 > 0.3: clipped
    small = np.array([[0.1, -0.2, 0.0]])  # update norm 0.056 / ... < 0.3: kept
    out = private.privatize(np.array([0, 1]), [(big, None), (small, None)], totals)
    source = NoiseSource(5)
    u0 = big / 10.0
    u0 = u0 * (0.3 / np.linalg.norm(u0))
    expected0 = source.add_gaussian(u0, private.sigma)
    expected1 = source.add_gaussian(small / 4.0, private.sigma)
    # the release is the change of v_t itself, not scaled back by n_t (which
    # would reveal the node's size in the noise's scale)
    np.testing.assert_allclose(out.released[:, 0], expected0, rtol=1e-12)
    np.testing.assert_allclose(out.released[:, 1], expected1, rtol=1e-12)
    np.testing.assert_array_equal(out.dV[:, 0], big)  # the exact step stays on the node
    # a fit: each node spends what its rounds cost (dropped rounds cost nothing)
    spec = DifferentialPrivacy(epsilon=4.0, delta=1e-5, clip_norm=0.3)
    est = FederatedMultiTaskClassifier(
        kernel="rbf", loss="squared_hinge", approximation="rff", gamma=1.0, n_components=30,
        omega_update_every=5, max_rounds=20,
        network=SimulatedNetwork(drop_rate=0.3), privacy=spec, random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    assert est.n_iter_ == 20  # no gap is sent: every round runs
    assert est.privacy_guarantee_void_ is False
    assert "os.urandom" in est.privacy_["noise_source"]
    uses = est.privacy_["uses"]
    assert np.all(uses <= 20) and uses.min() < 20
    # the class vote's and its pooled test's public shares of the budget
    # (skfed._class_vote_pooled.split_budget_pooled)
    from skfed._class_vote_pooled import split_budget_pooled

    fit_epsilon, vote_epsilon, _ = split_budget_pooled(4.0, len(est.nodes_))
    vote = est.privacy_["class_vote"]
    assert vote["held"] == (vote_epsilon > 0)
    mech = calibrate_discrete_gaussian(fit_epsilon, 1e-5, 0.6, 20, 31)
    assert est.privacy_["noise"] == mech.sigma
    for k in range(len(uses)):
        assert est.privacy_spent_[k] == pytest.approx(
            zcdp_epsilon(uses[k] * mech.rho, 1e-5) + vote["epsilon"], rel=1e-12)
    assert np.all(est.privacy_spent_ <= 4.0 + 1e-9)
    assert zcdp_epsilon(20 * mech.rho, 1e-5) == pytest.approx(fit_epsilon, rel=1e-6)


def test_mocha_privacy_refusals(moons_nodes):
    X, y, groups, _ = moons_nodes
    spec = DifferentialPrivacy(epsilon=1.0)
    cases = [
        (FederatedMultiTaskClassifier(kernel="rbf", approximation=None, privacy=spec),
         "refused in the exact kernel mode"),
        (FederatedMultiTaskClassifier(kernel="rbf", approximation="nystroem", privacy=spec),
         "refused with approximation='nystroem'"),
    ]
    for est, message in cases:
        with pytest.raises(ValueError, match=message):
            est.fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="does not accept warm_start=True"):
        FederatedMultiTaskClassifier(kernel="linear", omega="independent", warm_start=True,
                                     privacy=spec).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="does not accept sample_weight"):
        FederatedMultiTaskRegressor(kernel="linear", omega="independent", privacy=spec).fit(
            X, y.astype(float), groups=groups, sample_weight=np.ones(len(y))
        )


def test_mocha_private_fit_keeps_no_rows_duals_or_exact_curves(moons_nodes):
    X, y, groups, _ = moons_nodes
    kw = dict(kernel="linear", omega="independent", max_rounds=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskClassifier(
            privacy=DifferentialPrivacy(1.0, delta=1e-5), **kw).fit(X, y, groups=groups)
        plain = FederatedMultiTaskClassifier(**kw).fit(X, y, groups=groups)
    assert est.support_vectors_.shape == (0, X.shape[1])
    assert est.dual_coef_.shape == (1, 0) and est.support_.shape == (0,)
    assert est.n_support_.sum() == 0
    for name in ("duality_gap_curve_", "objective_curve_", "dual_objective_curve_",
                 "joint_objective_curve_", "joint_objective_", "joint_duality_gap_"):
        assert getattr(est, name) is None, name
        assert getattr(plain, name) is not None, name
    assert est._dual_state is None and est._node_duals is None
    # (the plain fit's duals stay on its nodes, the simulation's _node_duals: store34)
    assert plain.support_.shape[0] == 0 and plain._node_duals[0].shape[0] > 0
    # the fitted models still predict: from coef_ and intercept_ alone, or
    # (a node that keeps a model it trained alone) from that model
    decision = est.decision_function(X, groups=groups)
    codes = np.searchsorted(est.nodes_, groups)
    expected = np.einsum("id,id->i", X, est.coef_[codes]) + est.intercept_[codes]
    for k, model in enumerate(est.kept_local_models_):
        if model is not None:
            expected[codes == k] = model.decision_function(X[codes == k])
    np.testing.assert_allclose(decision, expected, rtol=1e-6, atol=1e-8)


def test_mocha_privacy_works_at_the_defaults(moons_nodes):
    # kernel="rbf" with gamma="scale", omega="auto" (a learned Omega under
    # privacy), omega_update_every=None, max_rounds="auto": random features,
    # gamma = 1 / n_features (no pooled variance is released), an Omega step
    # every 5 rounds, 20 rounds
    X, y, groups, _ = moons_nodes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskClassifier(
            kernel="rbf", privacy=DifferentialPrivacy(1.0, delta=1e-5),
            random_state=0).fit(X, y, groups=groups)
        fixed = FederatedMultiTaskClassifier(
            kernel="rbf", gamma="auto", omega="learn", omega_update_every=5, max_rounds=20,
            random_state=0, privacy=DifferentialPrivacy(1.0, delta=1e-5)).fit(X, y, groups=groups)
        # every default (the linear kernel): a learned Omega, 20 rounds
        linear = FederatedMultiTaskClassifier(
            privacy=DifferentialPrivacy(1.0, delta=1e-5), random_state=0).fit(X, y, groups=groups)
    assert linear.approximation_ is None and linear.omega_mode_ == "learn"
    assert linear.n_iter_ == 20 and linear.privacy_["uses"].max() == 20
    assert linear.score(X, y, groups=groups) > 0.5
    assert est.approximation_ == "rff" and est.n_iter_ == 20
    np.testing.assert_array_equal(est.random_weights_, fixed.random_weights_)
    assert est.privacy_["uses"].max() == 20
    assert np.all(est.privacy_spent_ <= 1.0 + 1e-9)
    assert est.privacy_spent_.max() == pytest.approx(1.0, rel=1e-3)
    # no gamma setup exchange under a finite budget: the bytes of the two fits agree
    assert est.n_bytes_sent_ == fixed.n_bytes_sent_
    assert est.score(X, y, groups=groups) > 0.5


def test_mocha_noise_aware_omega_step():
    # The server's V is the nodes' exact v_u plus the sum of their noise draws
    # (uses_u of standard deviation sigma per entry); the step debiases the
    # diagonal of V^T V and keeps only the pairs that noise does not explain.
    spec = DifferentialPrivacy(epsilon=1.0, delta=1e-6)
    m, d = 6, 50
    private = _PrivateUpdates(spec, m, 10, d)
    private.uses[:] = 10
    rng = np.random.default_rng(0)
    s = math.sqrt(10) * private.sigma
    # no relation, or a relation far below the noise: the step keeps Sigma
    V = rng.normal(0.0, 0.01, size=(1, m, d)) + rng.normal(0.0, s, size=(1, m, d))
    assert private.denoised_gram(V) is None and private.last_kept == 0
    # nodes 0-2 share a model 20 times the noise's norm, nodes 3-5 share another
    a, b = rng.normal(size=(2, d))
    a *= 20 * s * math.sqrt(d) / np.linalg.norm(a)
    b *= 20 * s * math.sqrt(d) / np.linalg.norm(b)
    exact = np.stack([a, a, a, b, b, b])[None]
    V = exact + rng.normal(0.0, s, size=(1, m, d))
    gram = private.denoised_gram(V)
    truth = np.einsum("ktd,kud->tu", exact, exact)
    assert private.last_kept >= 6  # the 6 pairs inside the two groups
    # the diagonal is debiased: within a few noise standard deviations of G_uu
    # (without the correction it would be d s^2 = G_uu / 400 too high on average)
    np.testing.assert_allclose(np.diag(gram), np.diag(truth), rtol=0.05)
    for t, u in [(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5)]:
        assert gram[t, u] == pytest.approx(truth[t, u], rel=0.05)
