"""Perso-lin's block solves reuse each node's preconditioner and its gradient at 0.

A waking node's block solve needs its Jacobi scaling (from its rows, its
confidence, ``mu`` and its degree) and the gradient of its loss at
``theta = 0`` (from its rows only); both are constant over a call of
``lin_async`` / the join loops and are computed once per node and problem
(``block_cache``).  References: the uncached solves (``block_cache=False``,
the code persolin14 checked) to the bit, and SciPy's L-BFGS on every
wake-up's block objective replayed in NumPy over many wake-ups (each node
waking several times, so a cached value is reused); bytes in closed form.
"""

import copy

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed._core._boosting_fast import Logistic, SquaredHinge, lin_async, lin_join, lin_losses
from skfed._core._comm import CommCounter
from skfed._core._join_fast import lin_join_steps
from skfed.boosting import PersonalizedLinearClassifier
from skfed.boosting import _perso_lin_block
from skfed.boosting._perso_lin import local_preconditioner
from tests.core.test_boosting_fast import HEADER, _csr, _problem, ref_lin_loss


def _block_min(theta0, X, y, sw, l2, n_pen, loss, lw, mu, dk, S):
    def fun(t):
        f, g = ref_lin_loss(t, X, y, sw, l2, n_pen, loss)
        return lw * f + 0.5 * mu * (dk * t @ t - 2 * t @ S), lw * g + mu * (dk * t - S)
    return minimize(fun, theta0, jac=True, method="L-BFGS-B",
                    options=dict(gtol=1e-13, ftol=1e-16, maxiter=10_000)).x


def _setup(seed, P):
    rng = np.random.RandomState(seed)
    H, Y, sw, offsets, W, c = _problem(rng, K=4, P=P, real_h=True)
    X = np.ascontiguousarray(np.column_stack([H[:, :-1] * [1, 4, 0.3, 1, 1, 2], np.ones(len(sw))]))
    K, n = len(offsets) - 1, X.shape[1]
    W[0, 1] = W[1, 0] = max(W[0, 1], 0.4)  # (no node of degree 0 either way)
    W[2, 3] = W[3, 2] = max(W[2, 3], 0.3)
    W[1, 2] = W[2, 1] = max(W[1, 2], 0.2)
    theta0 = 10 * rng.normal(size=(K, P, n))  # far from every block's minimizer
    return X, Y, sw, offsets, W, c, theta0


def _run(X, Y, sw, offsets, W, c, theta0, loss, n_steps, tol, cache, mu=0.8, l2=0.05):
    K, P, n = theta0.shape
    inv_mass = 1.0 / np.add.reduceat(sw, offsets[:-1])
    scale, blip = local_preconditioner(X, sw, offsets, loss, inv_mass, l2, n - 1)
    theta, public = theta0.copy(), theta0.copy()
    losses = np.zeros((K, P))
    lin_losses(X, Y, sw, offsets, theta, loss, inv_mass, l2, n - 1, losses)
    indptr, indices, weights = _csr(W)
    counter = CommCounter(K, header_bytes=HEADER)
    trace, curve, used = np.zeros(n_steps, np.intp), np.zeros(n_steps), np.zeros(1, np.int64)
    lin_async(X, Y, sw, offsets, theta, public, losses, loss, inv_mass, np.ones(K), l2, n - 1,
              indptr, indices, weights, W.sum(axis=1), c, mu, n_steps, np.array([5], np.uint32),
              np.arange(1, K + 1, dtype=np.uint32), np.zeros(0, np.uint8), np.zeros(K, np.uint8),
              0, counter, 8 * P * n, -1, 0, 0.0, curve, trace, block_scale=scale,
              block_lipschitz=blip, block_tol=tol, block_max_iter=100_000, block_iter=used,
              block_cache=cache)
    return dict(theta=theta, public=public, losses=losses, curve=curve, trace=trace,
                used=used[0], bytes=counter.snapshot()["pair_bytes"].copy())


@pytest.mark.parametrize("loss", [Logistic(), SquaredHinge()])
@pytest.mark.parametrize("tol", [1e-2, 1e-10])
def test_cached_wake_ups_are_the_uncached_ones_to_the_bit(loss, tol):
    X, Y, sw, offsets, W, c, theta0 = _setup(4, P=3)
    # a strong ridge: the minimizers sit near 0, so once the neighbours have
    # left their far starts a solve's stop is set by its gradient at 0
    a = _run(X, Y, sw, offsets, W, c, theta0, loss, 30, tol, True, l2=1.0)
    b = _run(X, Y, sw, offsets, W, c, theta0, loss, 30, tol, False, l2=1.0)
    assert np.bincount(a["trace"], minlength=4).min() >= 3  # every node wakes up again
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_many_wake_ups_replay_the_scipy_block_minimizers():
    loss = Logistic()
    X, Y, sw, offsets, W, c, theta0 = _setup(7, P=2)
    K, P, n = theta0.shape
    mu, l2, T = 0.8, 0.05, 16
    out = _run(X, Y, sw, offsets, W, c, theta0, loss, T, 1e-10, True, mu=mu, l2=l2)
    d = W.sum(axis=1)
    ref = theta0.copy()
    for k in out["trace"]:
        rows = slice(offsets[k], offsets[k + 1])
        for p in range(P):
            S = W[k] @ ref[:, p]
            ref[k, p] = _block_min(ref[k, p], X[rows], Y[p, rows], sw[rows], l2, n - 1, loss,
                                   d[k] * c[k], mu, d[k], S)
    np.testing.assert_allclose(out["theta"], ref, atol=1e-6)
    # every wake-up sends its P models to each neighbour (closed form)
    deg = (W > 0).sum(axis=1)
    assert out["bytes"].sum() == sum(deg[k] * (8 * P * n + HEADER) for k in out["trace"])


@pytest.mark.parametrize("P", [1, 3])
def test_join_loops_cache_to_the_bit(P):
    loss = Logistic()
    X, Y, sw, offsets, W, c, theta0 = _setup(9, P=P)
    K, _, n = theta0.shape
    inv_mass = 1.0 / np.add.reduceat(sw, offsets[:-1])
    scale, blip = local_preconditioner(X, sw, offsets, loss, inv_mass, 0.05, n - 1)
    rng = np.random.RandomState(0)
    S = rng.normal(size=(K, P, n))
    d, conf, lipF = np.array([0.7, 1.3, 0.0, 2.0]), c, np.ones(K)
    got = {}
    for cache in (True, False):
        theta, losses = np.zeros((K, P, n)), np.zeros((K, P))
        lin_join_steps(X, Y, sw, offsets, theta, losses, loss, inv_mass, lipF, 0.05, n - 1, S, d,
                       conf, 0.8, 6, block_scale=scale, block_lipschitz=blip, block_tol=1e-3,
                       block_max_iter=3, block_cache=cache)
        rows = slice(offsets[1], offsets[2])
        one, lone = np.zeros((1, P, n)), np.zeros(P)
        lin_join(np.ascontiguousarray(X[rows]), np.ascontiguousarray(Y[:, rows]), sw[rows], one,
                 lone, loss, inv_mass[1], 1.0, 0.05, n - 1, S[1], d[1], conf[1], 0.8, 6,
                 block_scale=scale[1], block_lipschitz=float(blip[1]), block_tol=1e-3,
                 block_max_iter=3, block_cache=cache)
        # (3 iterations a solve: several solves per newcomer, the cache reused)
        got[cache] = (theta, losses, one, lone)
        np.testing.assert_array_equal(one[0], theta[1])
    for u, v in zip(got[True], got[False]):
        np.testing.assert_array_equal(u, v)


def _fit_and_join(monkeypatch, cache, **params):
    monkeypatch.setattr(_perso_lin_block, "BLOCK_CACHE", cache)
    rng = np.random.RandomState(1)
    K, m, d = 12, 15, 4
    g = np.repeat(np.arange(K), m)
    X = rng.normal(size=(K * m, d)) * [1, 3, 0.5, 1]
    w = rng.normal(size=(3, d))
    y = np.argmax(X @ w.T + 0.5 * rng.normal(size=(K * m, 3)), axis=1)
    fit = g < 9
    est = PersonalizedLinearClassifier(random_state=0, **params).fit(X[fit], y[fit],
                                                                    groups=g[fit])
    joined = copy.deepcopy(est).add_nodes(X[~fit], y[~fit], groups=g[~fit])
    one = copy.deepcopy(est).add_nodes(X[g == 9], y[g == 9], groups=g[g == 9])
    return est, joined, one


@pytest.mark.parametrize("params", [{}, {"graph_update_every": "n_nodes"}])
def test_fit_and_joins_with_the_cache_equal_those_without(monkeypatch, params):
    a = _fit_and_join(monkeypatch, True, **params)
    b = _fit_and_join(monkeypatch, False, **params)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.coef_, v.coef_)
        np.testing.assert_array_equal(u.intercept_, v.intercept_)
        assert u.n_bytes_sent_ == v.n_bytes_sent_
    np.testing.assert_array_equal(a[0].objective_curve_, b[0].objective_curve_)
    assert a[0].coef_.ndim == 3  # three classes: P = 3 problems per node
