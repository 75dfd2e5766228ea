"""unlike38: the regressors' contradicting-newcomer guard.

:func:`skfed._join_unlike.worse_than_own_mean` is a one-sided sign test of
the joined centre's (MOCHA) or start's (online) squared errors on the
newcomer's samples against those of the mean of its other samples.  Tested
here: its p-value against SciPy's exact binomial test on a NumPy mean
of the samples before each (guard38; was a leave-one-out mean); its
false-alarm rate on targets drawn from the tested model itself (Gaussian, heavy-tailed, skewed, heteroscedastic noise, a
constant model) at the level; and for MOCHA and the online learner an alike
newcomer (tested, unflagged, predictions and bytes bit-identical to the join
with the test switched off) and a reversed one (flagged, R^2 > 0.5 on its own
samples and on fresh samples of its task).
"""

import copy
import warnings

import numpy as np
import pytest
from scipy.stats import binomtest

import skfed.multitask._join_unlike as mocha_guard
import skfed.online._join_unlike as online_guard
from skfed import DecentralizedKernelSGDRegressor, FederatedMultiTaskRegressor
from skfed._join_unlike import ALPHA, own_mean_sign_pvalues, worse_than_own_mean


def _reference_pvalue(pred, y):
    # (guard38: each sample against the mean of those before it, in the
    # order of |pred - mean(pred)|; was the leave-one-out mean)
    n = len(y)
    order = sorted(range(n), key=lambda i: (abs(pred[i] - np.mean(pred)), i))
    worse = 0
    for j in range(1, n):
        i = order[j]
        before = np.mean(y[order[:j]])
        worse += (pred[i] - y[i]) ** 2 > (before - y[i]) ** 2
    return binomtest(int(worse), n - 1, 0.5, alternative="greater").pvalue, int(worse)


def test_pvalues_match_an_exact_binomial_test_on_earlier_means():
    rng = np.random.RandomState(0)
    counts = np.array([1, 2, 5, 7, 10, 20, 33])
    offsets = np.r_[0, np.cumsum(counts)]
    pred = rng.normal(size=offsets[-1])
    shift = np.repeat(rng.uniform(-1.0, 1.0, len(counts)), counts)  # some nodes unlike
    y = pred * np.sign(shift) + 0.3 * rng.normal(size=offsets[-1])
    p = own_mean_sign_pvalues(pred, y, offsets)
    worse_counts = []
    for k in range(len(counts)):
        sl = slice(offsets[k], offsets[k + 1])
        if counts[k] < 2:
            assert p[k] == 1.0
            continue
        ref, worse = _reference_pvalue(pred[sl], y[sl])
        worse_counts.append(worse)
        np.testing.assert_allclose(p[k], ref, rtol=1e-12)
    assert min(worse_counts) < max(worse_counts)  # (both outcomes occur)
    np.testing.assert_array_equal(worse_than_own_mean(pred, y, offsets), p < ALPHA)


@pytest.mark.parametrize("n, fires_at", [(8, 7), (10, 9), (20, 15)])
def test_the_counts_at_which_it_fires(n, fires_at):
    # (worse: the first `worse` samples predicted at -3 y, the rest exactly;
    # guard38: n - 1 samples are compared, the first in the test's order,
    # nearest the model's mean, with nothing: here an exact one, so 7 of 7,
    # 9 of 9, 15 of 19)
    y = np.linspace(1.0, 2.0, n) * np.where(np.arange(n) % 2, 1.0, -1.0)
    for worse in range(n + 1):
        pred = y.copy()
        pred[:worse] = -3.0 * y[:worse]
        flagged = bool(worse_than_own_mean(pred, y, np.array([0, n]))[0])
        assert flagged == (worse >= fires_at), worse


def test_seven_samples_never_fire():
    y = np.arange(7.0)
    assert not worse_than_own_mean(-10.0 * y, y, np.array([0, 7]))[0]


POWER_FLOOR = {8: 0.25, 10: 0.25, 20: 0.85, 50: 0.99}


@pytest.mark.parametrize("n", [8, 10, 20, 50])
@pytest.mark.parametrize("noise", ["constant-model", "gauss", "t2", "skewed", "heteroscedastic"])
def test_false_alarms_at_most_the_level_when_the_model_is_right(n, noise):
    rng = np.random.RandomState(n)
    reps = 3000
    size = reps * n
    pred = 2.0 * rng.normal(size=size)
    if noise == "constant-model":
        pred = np.full(size, 3.0)
        e = rng.normal(size=size)
    elif noise == "gauss":
        e = rng.normal(size=size)
    elif noise == "t2":
        e = rng.standard_t(2, size=size)
    elif noise == "skewed":
        e = rng.exponential(size=size) - np.log(2.0)  # median 0
    else:
        e = 2.0 * np.abs(pred) * rng.normal(size=size)
    p = own_mean_sign_pvalues(pred, pred + e, np.arange(reps + 1) * n)
    assert np.all((p > 0) & (p <= 1))
    # at most the level plus two binomial standard errors
    assert np.mean(p < ALPHA) <= ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / reps)
    # and a reversed response fires (its power, measured: 0.30-0.34 at 7 and
    # 10 samples, which must all be worse; 0.90 at 20; 1.00 at 50; guard38's
    # sequential test needs 7 of 7 compared at 8 samples)
    reversed_p = own_mean_sign_pvalues(pred, -pred + 0.1 * e, np.arange(reps + 1) * n)
    if noise != "constant-model":
        assert np.mean(reversed_p < ALPHA) >= POWER_FLOOR[n]


def _task(seed, sign):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=120)
    Xn = rng.normal(size=(220, 3))
    yn = sign * Xn[:, 0] + 0.1 * rng.normal(size=220)
    return X, y, np.repeat([0, 1, 2], 40), Xn, yn


def _r2(pred, y):
    return 1 - np.mean((pred - y) ** 2) / np.var(y)


MAKERS = {"mocha": (FederatedMultiTaskRegressor, mocha_guard),
          "online": (DecentralizedKernelSGDRegressor, online_guard)}


def _join(name, sign, seed, monkeypatch):
    make, module = MAKERS[name]
    X, y, g, Xn, yn = _task(seed, sign)
    record = {}
    test = module.worse_than_own_mean

    def counting(pred, yy, offsets):
        out = test(pred, yy, offsets)
        record["flagged"] = out.copy()
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = make(random_state=0).fit(X, y, groups=g)
        on, off = copy.deepcopy(fitted), copy.deepcopy(fitted)
        monkeypatch.setattr(module, "worse_than_own_mean", counting)
        on.add_nodes(Xn[:20], yn[:20], groups=np.full(20, 9))
        monkeypatch.setattr(module, "worse_than_own_mean",
                            lambda pred, yy, offsets: np.zeros(len(offsets) - 1, dtype=bool))
        off.add_nodes(Xn[:20], yn[:20], groups=np.full(20, 9))
    return on, off, record, Xn, yn


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("seed", [0, 1])
def test_alike_newcomer_unflagged_and_identical_to_guard_off(name, seed, monkeypatch):
    on, off, record, Xn, yn = _join(name, 1.0, seed, monkeypatch)
    assert record["flagged"].tolist() == [False]
    groups = np.full(220, 9)
    np.testing.assert_array_equal(on.predict(Xn, groups=groups), off.predict(Xn, groups=groups))
    assert on.join_communication_.total_bytes == off.join_communication_.total_bytes
    assert _r2(on.predict(Xn[20:], groups=groups[20:]), yn[20:]) > 0.9
    if name == "online":
        assert on.join_start_[-1] != "zero"


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reversed_newcomer_flagged_and_follows_its_samples(name, seed, monkeypatch):
    on, off, record, Xn, yn = _join(name, -1.0, seed, monkeypatch)
    assert record["flagged"].tolist() == [True]
    groups = np.full(220, 9)
    own = _r2(on.predict(Xn[:20], groups=groups[:20]), yn[:20])
    fresh = _r2(on.predict(Xn[20:], groups=groups[20:]), yn[20:])
    off_fresh = _r2(off.predict(Xn[20:], groups=groups[20:]), yn[20:])
    assert own > 0.5 and fresh > 0.5, (own, fresh)
    assert fresh > off_fresh + 0.2, (fresh, off_fresh)
    # nothing more is sent for the test
    assert on.join_communication_.total_bytes <= off.join_communication_.total_bytes
    if name == "online":
        assert on.join_start_[-1] == "zero"
