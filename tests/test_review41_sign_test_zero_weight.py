"""review41: the regressors' contradicting-newcomer guard (guard38's
sequential sign test, skfed/_join_unlike.worse_than_own_mean) reads no
weights, so a newcomer's zero-weight rows must not reach it.

A newcomer of 10 rows of the federation's rule (weight 1) and 50 rows of
the reversed rule: with unit weights it is flagged (MOCHA: its prior scale
re-chosen; online: a zero start), with the 50 at weight 0 it is not, as
without them (checked on MOCHA's and the online regressor's joins).
"""

import copy
import warnings

import numpy as np

from skfed import DecentralizedKernelSGDRegressor, FederatedMultiTaskRegressor
from skfed.multitask import _join_unlike
from skfed.online import _join_unlike as online_unlike


def _federation(seed=0):
    rng = np.random.RandomState(seed)
    w = rng.normal(size=3)
    X = rng.normal(size=(12 * 30, 3))
    g = np.repeat(np.arange(12), 30)
    y = X @ w + 0.3 * rng.normal(size=len(g))
    Xn = rng.normal(size=(60, 3))
    yn = Xn @ w + 0.3 * rng.normal(size=60)
    yn[10:] = -yn[10:]  # reversed, but weightless
    sw = np.r_[np.ones(10), np.zeros(50)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    return est, Xn, yn, sw, (X, y, g)


def _flags(est, Xn, yn, sw, monkeypatch):
    seen = []
    test = _join_unlike.worse_than_own_mean

    def spy(*args):
        seen.append(test(*args))
        return seen[-1]
    monkeypatch.setattr(_join_unlike, "worse_than_own_mean", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        copy.deepcopy(est).add_nodes(Xn, yn, groups=np.full(len(yn), 99), sample_weight=sw)
    return [bool(f[0]) for f in seen]


def test_weighted_rows_alone_are_not_flagged(monkeypatch):
    est, Xn, yn, sw, _ = _federation()
    assert est.omega_mode_ == "shared"  # (the guard's mode)
    assert _flags(est, Xn[:10], yn[:10], sw[:10], monkeypatch) == [False]


def test_zero_weight_rows_do_not_flag(monkeypatch):
    est, Xn, yn, sw, _ = _federation()
    assert _flags(est, Xn, yn, np.ones(len(yn)), monkeypatch) == [True]
    assert _flags(est, Xn, yn, sw, monkeypatch) == [False]


def test_online_zero_weight_rows_do_not_flag(monkeypatch):
    _, Xn, yn, sw, (X, y, g) = _federation()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        online = DecentralizedKernelSGDRegressor(kernel="linear", random_state=0,
                                                 max_epochs=3).fit(X, y, groups=g)
    test = online_unlike.worse_than_own_mean
    for weights, flagged, start in [(np.ones(len(yn)), True, "zero"), (sw, False, "network")]:
        seen = []

        def spy(*args, seen=seen):
            seen.append(test(*args))
            return seen[-1]
        monkeypatch.setattr(online_unlike, "worse_than_own_mean", spy)
        joined = copy.deepcopy(online)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            joined.add_nodes(Xn, yn, groups=np.full(len(yn), 99), sample_weight=weights)
        assert [bool(f[0]) for f in seen] == [flagged]
        assert list(joined.join_start_) == [start]
