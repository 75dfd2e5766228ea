"""The class vote's federation-level pooled test (skfed._class_vote_pooled).

Closed forms of the sensitivity, the Laplace scales and the budget; the
release and the decision against a NumPy recomputation with the noise
fixed by the testing switch; the level on nodes where the two classes are
equally good; an empirical privacy audit on neighbouring node sets; the
private MOCHA fit's bytes, budget and recorded decision.
"""

import math
import sys
import warnings
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from scipy.stats import beta

from skfed import DifferentialPrivacy, FederatedMultiTaskClassifier
from skfed._class_vote import BALLOT, split_budget
from skfed._class_vote_pooled import (
    POOLED_ALPHA,
    POOLED_SENSITIVITY,
    POOLED_SHARE,
    POOLED_WEIGHTS,
    clipped_t,
    node_statistics,
    pooled_decision,
    pooled_release,
    rbf_decision,
    pooled_scales,
    pooled_sums,
    pooled_test,
    split_budget_pooled,
)
from skfed._kept_local import CLASSIFIERS
from skfed._secure_noise import GRID_NOISE_STEPS, NoiseSource

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_review11_private_mocha_continuity import _nodes  # noqa: E402


def test_budget_split_and_scales_closed_form():
    # the ballots keep split_budget's share; the test takes POOLED_SHARE
    # epsilon from the fit; no vote, no test
    for epsilon, n in ((3.0, 21), (3.0, 60), (10.0, 200), (1.0, 60)):
        fit, vote = split_budget(epsilon, n)
        got = split_budget_pooled(epsilon, n)
        assert got == pytest.approx((fit - POOLED_SHARE * epsilon, vote, POOLED_SHARE * epsilon))
        assert sum(got) == pytest.approx(epsilon)
    assert split_budget_pooled(3.0, 7) == (3.0, 0.0, 0.0)
    assert split_budget_pooled(math.inf, 100) == (math.inf, 0.0, 0.0)
    assert split_budget_pooled(3.0, 100, vote=False) == (3.0, 0.0, 0.0)
    for eps_p in (0.1, 0.75, 2.5):
        scales, spent = pooled_scales(eps_p)
        rounding = 2.0 / 2**20
        for i in range(5):
            assert scales[i] == pytest.approx(
                POOLED_SENSITIVITY[i] / (POOLED_WEIGHTS[i] * eps_p - rounding), rel=1e-12)
            # on the grid step lambda / 2^20 the rounded sum moves by at most
            # Delta / step + 2 steps; the discrete Laplace scale is 2^20 steps
            step = scales[i] / GRID_NOISE_STEPS
            assert (POOLED_SENSITIVITY[i] / step + 2) / GRID_NOISE_STEPS == pytest.approx(
                POOLED_WEIGHTS[i] * eps_p, rel=1e-12)
        assert spent.sum() == pytest.approx(eps_p, rel=1e-12)
    for bad in (0.0, -1.0, math.inf, 1e-7):
        with pytest.raises(ValueError, match="pooled_epsilon"):
            pooled_scales(bad)


def test_sensitivity_of_the_sums_on_neighbouring_node_sets():
    rng = np.random.RandomState(0)
    stats = rng.uniform(-1, 1, size=(30, 3))
    base = pooled_sums(stats)
    assert base == pytest.approx([stats[:, 0].sum(), (stats[:, 0] ** 2).sum(), stats[:, 1].sum(),
                                  stats[:, 2].sum(), (stats[:, 2] ** 2).sum()])
    worst = np.zeros(5)
    for k in range(30):
        for new in ([-5.0, 7.0, -3.0], [1.0, -1.0, 1.0], [-1.0, 1.0, -1.0], [0.0, 0.0, 0.0]):
            other = stats.copy()
            other[k] = new  # the server clips a node's statistics to [-1, 1]
            worst = np.maximum(worst, np.abs(pooled_sums(other) - base))
    assert np.all(worst <= np.array(POOLED_SENSITIVITY) + 1e-12)
    # the bound is attained: (1, 1, 1) replaced by (-1, -1, -1) moves A_1, A_2
    # and A_3 by 2, and (1, ., 1) by (0, ., 0) moves B_1 and B_3 by 1
    a = np.array([[1.0, 1.0, 1.0]] * 3)
    assert pooled_sums(np.vstack([a[:2], [[-1.0, -1.0, -1.0]]])) - pooled_sums(a) == pytest.approx(
        [-2.0, 0.0, -2.0, -2.0, 0.0])
    assert pooled_sums(np.vstack([a[:2], [[0.0, 1.0, 0.0]]]))[[1, 4]] == pytest.approx([2.0, 2.0])


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_node_statistics_against_numpy(seed):
    rng = np.random.RandomState(seed)
    m = 9
    err = (rng.uniform(size=(1 + len(CLASSIFIERS), m)) < 0.4).astype(float)
    row = {n: 1 + CLASSIFIERS.index(n) for n in CLASSIFIERS}
    got = node_statistics(err)
    assert got.shape == (3,)
    # u_3 against the better linear class by mean error (the logistic
    # regression on a tie)
    lr, svc = err[row["LogisticRegression"]], err[row["LinearSVC"]]
    linear = "LinearSVC" if svc.mean() < lr.mean() else "LogisticRegression"
    for j, (a, b) in enumerate((("LogisticRegression", "LinearSVC"),
                                ("rff-LinearSVC", "LinearSVC"), ("rff-LinearSVC", linear))):
        d = err[row[a]] - err[row[b]]
        t = d.mean() / (d.std(ddof=1) / np.sqrt(m)) if d.std() > 0 else np.sign(d.mean())
        assert got[j] == pytest.approx(np.clip(t, -1, 1))
    assert clipped_t([0, 0, 0]) == 0.0
    assert clipped_t([1, 1, 1]) == 1.0 and clipped_t([-1, -1]) == -1.0
    assert clipped_t([1, 0, 0, 0, 0, 0]) == pytest.approx(1.0)  # t = 1 exactly
    assert clipped_t([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == pytest.approx(
        (1 / 12) / (np.std([1] + [0] * 11, ddof=1) / np.sqrt(12)))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_release_and_decision_against_numpy(seed):
    rng = np.random.RandomState(seed)
    stats = np.clip(rng.normal(0.3, 0.6, size=(40, 3)), -1, 1)
    if seed >= 2:  # the rbf model better on most nodes: the rbf test's side
        stats[:, 2] = np.clip(rng.normal(-0.5, 0.5, size=40), -1, 1)
    eps_p = 0.75
    noisy = pooled_release(stats, eps_p, NoiseSource(insecure_seed=seed))
    # the same words drawn by hand: per coordinate, the sum rounded to the
    # grid lambda / 2^20 plus 2^20-step discrete Laplace noise
    replay = NoiseSource(insecure_seed=seed)
    sums = np.array([stats[:, 0].sum(), (stats[:, 0] ** 2).sum(), stats[:, 1].sum(),
                     stats[:, 2].sum(), (stats[:, 2] ** 2).sum()])
    lam = np.array(POOLED_SENSITIVITY) / (np.array(POOLED_WEIGHTS) * eps_p - 2.0 / 2**20)
    expected = []
    for s, scale in zip(sums, lam):
        step = scale / 2**20
        z = replay.discrete_laplace(2**20, 1)[0]
        expected.append(step * (np.rint(s / step) + z))
    assert noisy == pytest.approx(expected, rel=1e-12, abs=1e-12)
    z = expected[0] / np.sqrt(max(expected[1], 0.0) + 2 * lam[0] ** 2)
    decision = z > NormalDist().inv_cdf(1 - POOLED_ALPHA) and expected[2] >= 0
    assert pooled_decision(noisy, eps_p) == decision
    z3 = expected[3] / np.sqrt(max(expected[4], 0.0) + 2 * lam[3] ** 2)
    decision_rbf = z3 < -NormalDist().inv_cdf(1 - POOLED_ALPHA)
    assert rbf_decision(noisy, eps_p) == decision_rbf
    option, info = pooled_test(stats, eps_p, NoiseSource(insecure_seed=seed))
    assert option == (2 if decision_rbf else 1 if decision else 0)
    assert info["fixed_LinearSVC"] == decision and info["z"] == pytest.approx(z)
    assert info["fixed_rbf"] == decision_rbf and info["z_rbf"] == pytest.approx(z3)
    assert info["epsilon"] == pytest.approx(eps_p)
    # nothing data-dependent but the noisy release (no count of abstainers)
    assert set(info) == {"mechanism", "epsilon", "sensitivity", "scales", "alpha", "share",
                         "z", "fixed_LinearSVC", "z_rbf", "fixed_rbf", "common", "margin"}
    # no n_nodes: no common class (pooled_test alone, unit tests)
    assert info["common"] is False


def test_noise_scale_of_the_release():
    # the released A_1's spread is the Laplace scale's: variance 2 lambda^2
    source = NoiseSource(insecure_seed=11)
    stats = np.zeros((5, 3))
    draws = np.array([pooled_release(stats, 1.0, source) for _ in range(4000)])
    lam = pooled_scales(1.0)[0]
    var = draws.var(axis=0)
    # 4,000 Laplace draws: the variance's relative standard error is
    # sqrt((kurtosis 6 + 2) / n) = 4.5 %
    assert np.all(np.abs(var / (2 * lam**2) - 1) < 0.2)
    assert np.all(np.abs(draws.mean(axis=0)) < 5 * np.sqrt(2 / 4000) * lam)


def test_level_when_the_classes_are_equally_good():
    # null: every node's u_1 symmetric about 0; u_2 >= 0 and u_3 >= 0 so
    # only the first test decides.  The fraction of runs fixing LinearSVC
    # stays under alpha (Clopper-Pearson upper bound at 99 %).
    rng = np.random.RandomState(5)
    runs, fixed = 600, 0
    for r in range(runs):
        u1 = rng.choice([-1.0, 0.0, 1.0], p=[0.35, 0.3, 0.35], size=60)
        stats = np.column_stack([u1, np.ones(60), np.ones(60)])
        fixed += pooled_test(stats, 2.0, NoiseSource(insecure_seed=1000 + r))[0] == 1
    upper = beta.ppf(0.99, fixed + 1, runs - fixed)
    lower = beta.ppf(0.01, fixed, runs - fixed + 1) if fixed else 0.0
    assert lower <= POOLED_ALPHA and fixed / runs < POOLED_ALPHA + 0.03, (fixed, upper)
    # the same for the rbf test: u_3 symmetric about 0 (the rbf model as good
    # as the node's better linear class), u_1 = 0
    runs, fixed = 600, 0
    for r in range(runs):
        u3 = rng.choice([-1.0, 0.0, 1.0], p=[0.35, 0.3, 0.35], size=60)
        stats = np.column_stack([np.zeros(60), np.zeros(60), u3])
        fixed += pooled_test(stats, 2.0, NoiseSource(insecure_seed=5000 + r))[0] == 2
    lower = beta.ppf(0.01, fixed, runs - fixed + 1) if fixed else 0.0
    assert lower <= POOLED_ALPHA and fixed / runs < POOLED_ALPHA + 0.03, fixed


def test_privacy_audit_on_neighbouring_node_sets():
    # D and D' differ in one node's statistics, (1, 1) against (-1, -1);
    # the others put the test near its threshold.  Over many noise draws
    # the decision's probabilities satisfy P(D) <= e^eps_p P(D'): the
    # Clopper-Pearson lower bound of the log-ratio stays below eps_p.
    eps_p, runs = 2.0, 3000
    base = np.column_stack([np.r_[np.ones(9), -np.ones(3), np.zeros(8)], np.ones(20),
                            np.ones(20)])
    d1, d2 = base.copy(), base.copy()
    d1[0], d2[0] = [1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]
    counts = []
    for k, stats in enumerate((d1, d2)):
        counts.append(sum(pooled_test(stats, eps_p, NoiseSource(insecure_seed=10**6 * (k + 1) + r))[0]
                          == 1 for r in range(runs)))
    p_lo = beta.ppf(0.025, counts[0], runs - counts[0] + 1)
    p_hi = beta.ppf(0.975, counts[1] + 1, runs - counts[1])
    q_lo = beta.ppf(0.025, runs - counts[1], counts[1] + 1)
    q_hi = beta.ppf(0.975, runs - counts[0] + 1, counts[0])
    assert counts[0] > counts[1]  # the replaced node moves the decision
    assert math.log(p_lo / p_hi) < eps_p and math.log(q_lo / q_hi) < eps_p


@pytest.mark.parametrize("noise_seed, by_test", [(4, True), (7, False)])
def test_private_mocha_fit_records_the_test_bytes_and_budget(noise_seed, by_test):
    # 60 nodes of 6 samples (ballots: no fixed class); with these fixed
    # noises the test fixes LinearSVC (4) or does not (7, z = 0.73)
    rng = np.random.RandomState(0)
    X, y, g = _nodes(6, rng)
    spec = DifferentialPrivacy(3.0, insecure_noise_seed=noise_seed)
    seen = {}
    import skfed._class_vote_pooled as pooled_module

    original = pooled_module.pooled_release

    def spy(statistics, pooled_epsilon, source):
        seen["stats"], seen["eps"] = np.array(statistics), pooled_epsilon
        seen["noisy"] = original(statistics, pooled_epsilon, source)
        return seen["noisy"]

    pooled_module.pooled_release = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = FederatedMultiTaskClassifier(random_state=0, privacy=spec).fit(X, y, groups=g)
    finally:
        pooled_module.pooled_release = original
    vote = est.privacy_["class_vote"]
    test = vote["pooled_test"]
    assert seen["eps"] == pytest.approx(1.2)
    n = vote["ballots_counted"]
    assert seen["stats"].shape[0] <= n and np.all(np.abs(seen["stats"]) <= 1)
    # the decision is the recorded one, from the released sums
    assert test["fixed_LinearSVC"] == pooled_decision(seen["noisy"], 1.2)
    assert test["fixed_rbf"] == rbf_decision(seen["noisy"], 1.2)
    # the rbf model is better on none of these nodes' pooled evidence
    assert not test["fixed_rbf"] and test["z_rbf"] > 0
    # the test only turns the ballots' "no fixed class" into LinearSVC
    if test["elected_by_test"]:
        assert test["fixed_LinearSVC"] and est.elected_local_class_ == "LinearSVC"
    if test["fixed_LinearSVC"]:
        assert est.elected_local_class_ in ("LinearSVC", "rff-LinearSVC")
    else:
        assert not test["elected_by_test"]
    assert test["elected_by_test"] == by_test
    if by_test:  # every node keeps LinearSVC unless collaborating wins
        from sklearn.svm import LinearSVC

        assert est.elected_local_class_ == "LinearSVC"
        assert all(isinstance(m, LinearSVC) for m in est.kept_local_models_ if m is not None)
    # budget: fit 0.3 + ballots 1.5 + test 1.2, at most 3 (one node spends it all)
    assert est.privacy_spent_.max() <= 3.0 + 1e-9
    assert vote["epsilon"] == pytest.approx(1.5 + 1.2, rel=1e-3)
    # bytes: each counted node sends a 1-byte ballot and three float64 up and
    # gets a 1-byte option back, each message with its header
    header = est.communication_.header_bytes
    assert header == 16  # the default network's
    assert vote["bytes"] == n * (1 + 24 + header) + n * (1 + header)
    assert vote["messages"] == 2 * n
    assert BALLOT[1] == "LinearSVC"
