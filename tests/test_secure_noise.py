"""The secure noise source: exact samplers against their closed-form
distributions, crafted random words against the exact decisions, the OS
source against fixed seeds."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from skfed._core._secure_noise import (
    BitStream,
    bernoulli_exp_square,
    choose,
    fill_bernoulli,
    fill_bernoulli_exp,
    mul_divmod_128,
)
from skfed._secure_noise import (
    CHOICE_RESOLUTION,
    GRID_NOISE_STEPS,
    InsecureNoiseWarning,
    NoiseSource,
    choice_epsilon,
    choice_qualities,
    choice_scale,
    gaussian_grid,
    grid_l2_sensitivity,
)


def _chi_square_pvalue(samples, support, pmf):
    """Chi-square test of integer samples against pmf on ``support`` (the
    rest pooled into one cell)."""
    counts = np.array([np.sum(samples == x) for x in support] + [0.0])
    counts[-1] = samples.size - counts[:-1].sum()
    expected = np.append(pmf, max(1.0 - pmf.sum(), 0.0)) * samples.size
    keep = expected > 5
    counts, expected = counts[keep], expected[keep]
    expected *= counts.sum() / expected.sum()
    return stats.chisquare(counts, expected).pvalue


@pytest.mark.parametrize("sigma", [1, 2, 5])
def test_discrete_gaussian_is_its_pmf(sigma):
    source = NoiseSource(insecure_seed=10 + sigma)
    samples = source.discrete_gaussian(sigma, 60_000)
    support = np.arange(-8 * sigma, 8 * sigma + 1)
    weights = np.exp(-(support**2) / (2.0 * sigma**2))
    total = sum(math.exp(-(x * x) / (2.0 * sigma**2)) for x in range(-60 * sigma, 60 * sigma + 1))
    assert _chi_square_pvalue(samples, support, weights / total) > 1e-4


def test_discrete_gaussian_large_sigma_moments():
    source = NoiseSource(insecure_seed=3)
    sigma = GRID_NOISE_STEPS + 12345
    samples = source.discrete_gaussian(sigma, 40_000).astype(float) / sigma
    n = samples.size
    assert abs(samples.mean()) < 5 / math.sqrt(n)
    assert abs(samples.std() - 1.0) < 5 / math.sqrt(2 * n)
    assert stats.kstest(samples, "norm").pvalue > 1e-4


@pytest.mark.parametrize("scale", [1, 3])
def test_discrete_laplace_is_its_pmf(scale):
    source = NoiseSource(insecure_seed=20 + scale)
    samples = source.discrete_laplace(scale, 60_000)
    support = np.arange(-15 * scale, 15 * scale + 1)
    r = math.exp(-1.0 / scale)
    pmf = (1 - r) / (1 + r) * r ** np.abs(support)
    assert _chi_square_pvalue(samples, support, pmf) > 1e-4


def test_bernoulli_exp_and_128_bit_arithmetic():
    stream = NoiseSource(insecure_seed=4).stream()
    for num, den in [(0, 1), (1, 3), (5, 2), (7, 7), (40, 3)]:
        out = np.empty(40_000, dtype=np.uint8)
        fill_bernoulli_exp(stream, num, den, out)
        p = math.exp(-num / den)
        assert abs(out.mean() - p) <= 5 * math.sqrt(p * (1 - p) / out.size) + 1e-12
    for n, m in [(3, 4), (2**40 + 3, 2**61 - 1), (2**63 + 12345, 2**62 + 7), (2**64 - 1, 3)]:
        assert mul_divmod_128(n, m) == divmod(n * n, m)
    draws = bernoulli_exp_square(stream, 3, 4, 40_000)
    p = math.exp(-9 / 4)
    assert abs(draws.mean() - p) <= 5 * math.sqrt(p * (1 - p) / draws.size)
    assert bernoulli_exp_square(stream, 2**40, 7, 100).sum() == 0


def _crafted(words):
    """A stream that returns the given words, then raises."""
    words = np.asarray(words, dtype=np.uint64)
    state = {"used": False}

    def fill(n):
        if state["used"]:
            raise RuntimeError("no more words")
        state["used"] = True
        out = np.zeros(n, dtype=np.uint64)
        out[: words.size] = words
        return out

    return BitStream(fill, max(words.size, 1))


def test_bernoulli_float_decides_on_the_exact_binary_expansion():
    def draw(p, words):
        out = np.empty(1, dtype=np.uint8)
        fill_bernoulli(_crafted(words), p, out)
        return bool(out[0])

    # p = 1/4: u < 1/4 iff the first word is below 2^62
    assert draw(0.25, [2**62 - 1])
    assert not draw(0.25, [2**62])
    # p = 2^-20 + 2^-70: the first word decides unless it is 2^44, then the
    # second (p's bits there: 2^58)
    p = 2.0**-20 + 2.0**-70
    assert draw(p, [2**44 - 1])
    assert not draw(p, [2**44 + 1])
    assert draw(p, [2**44, 2**58 - 1])
    assert not draw(p, [2**44, 2**58])
    # p = 2^-70: two words of zeros, then the third decides
    assert draw(2.0**-70, [0, 2**57])
    assert not draw(2.0**-70, [0, 2**58])
    # bit 1070 = 64 * 16 + 46 is 2^18 in word 16
    assert draw(2.0**-1070, [0] * 16 + [2**18 - 1])
    assert not draw(2.0**-1070, [0] * 16 + [2**18])
    # the smallest subnormal: 2^-1074, 2^14 in word 16
    assert draw(5e-324, [0] * 16 + [2**14 - 1])
    assert not draw(5e-324, [0] * 16 + [2**14])
    # 1/3 as a double, statistically
    out = np.empty(60_000, dtype=np.uint8)
    fill_bernoulli(NoiseSource(insecure_seed=5).stream(), 1 / 3, out)
    assert abs(out.mean() - 1 / 3) < 5 * math.sqrt(2 / 9 / out.size)


def test_a_failed_refill_voids_the_draws():
    stream = _crafted([1, 2, 3])
    with pytest.raises(RuntimeError, match="secure random source failed"):
        fill_bernoulli(stream, 0.5, np.empty(10, dtype=np.uint8))


def test_exponential_choice_is_the_softmax_and_reaches_far_candidates():
    source = NoiseSource(insecure_seed=6)
    quality = np.array([0, -300, 500, 480, 100], dtype=np.int64)
    scale = 100
    n = 60_000
    picks = source.choice(quality, scale, n_draws=n)
    expected = np.exp(quality / scale)
    expected /= expected.sum()
    freq = np.bincount(picks, minlength=quality.size) / n
    np.testing.assert_array_less(
        np.abs(freq - expected), 5 * np.sqrt(expected * (1 - expected) / n) + 1e-12
    )
    # A candidate 60 scales behind is chosen with probability e^-60 in exact
    # arithmetic, never exactly 0: words that accept it are accepted.  With a
    # float Gumbel draw from a 53-bit uniform it could never win (the noise
    # is at most about 37 scales).  Words: candidate 1 proposed (word 1,
    # mask 1), then 60 Bernoulli(e^-1) coins that succeed (each counts K up
    # while Bernoulli(1/K) succeeds and succeeds when K ends odd: 1/1 is
    # certain, 1/2 succeeds on word 0, 1/3 fails on word 1, so K = 3), then
    # the fractional coin exp(-0), certain.
    words = [1] + [0, 1] * 60
    got = choose(_crafted(words), np.array([0, -60], dtype=np.int64), 1)
    assert got[0] == 1


def test_choice_qualities_sensitivity_and_scale():
    rng = np.random.default_rng(0)
    sensitivity = 0.37
    for _ in range(200):
        a = rng.normal(size=50) * 10
        b = a + rng.uniform(-sensitivity, sensitivity, size=50)
        qa, qb = choice_qualities(a, sensitivity), choice_qualities(b, sensitivity)
        assert np.max(np.abs(qa - qb)) <= CHOICE_RESOLUTION + 1
    scale = choice_scale(0.3)
    assert choice_epsilon(scale) <= 0.3
    assert choice_epsilon(scale) > 0.3 * (1 - 1e-3)


def test_grid_gaussian_is_on_the_grid_and_at_least_sigma():
    source = NoiseSource(insecure_seed=7)
    for sigma in [1e-9, 0.37, 1.0, 2.0**20, 3e7]:
        step, steps = gaussian_grid(sigma)
        assert steps == GRID_NOISE_STEPS
        assert steps * step == pytest.approx(sigma, rel=1e-15)
    values = np.array([0.123456789, -4.5, 1e3])
    noisy = source.add_gaussian(np.tile(values, (20_000, 1)), 0.01)
    step, _ = gaussian_grid(0.01)
    np.testing.assert_allclose(noisy / step, np.rint(noisy / step), rtol=0, atol=1e-6)
    np.testing.assert_array_less(np.abs(noisy.mean(axis=0) - values), 5 * 0.01 / math.sqrt(20_000))
    assert grid_l2_sensitivity(1.0, 0.5, 4) == pytest.approx(2.0 + 4.0)


def test_os_source_is_fresh_and_seeded_source_reproducible():
    a, b = NoiseSource(), NoiseSource()
    assert a.secure and b.secure
    assert not np.array_equal(a.integers(2**62, 8), b.integers(2**62, 8))
    assert not np.array_equal(a.stream().words(4), a.stream().words(4))
    c, d = NoiseSource(insecure_seed=9), NoiseSource(insecure_seed=9)
    assert not c.secure
    np.testing.assert_array_equal(c.discrete_gaussian(3, 50), d.discrete_gaussian(3, 50))
    assert "INSECURE" in c.describe()
    with pytest.raises(ValueError, match="insecure_seed"):
        NoiseSource(insecure_seed=-1)
    with pytest.raises(TypeError, match="sigma must be an integer"):
        a.discrete_gaussian(1.5, 3)
    with pytest.raises(ValueError, match="p must be in"):
        a.bernoulli(1.5, 3)


def test_for_fit_warns_when_the_noise_is_fixed():
    from skfed.privacy import DifferentialPrivacy

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert NoiseSource.for_fit(DifferentialPrivacy(1.0), "Est").secure
    with pytest.warns(InsecureNoiseWarning, match="Est: .*guarantee of this fit is void"):
        source = NoiseSource.for_fit(DifferentialPrivacy(1.0, insecure_noise_seed=3), "Est")
    assert not source.secure
