"""One solver for Perso-lin's newcomer blocks (persolin32).

The shared join (``join_neighbours="shared"``) and the posterior join both
solve ``min_theta c F(theta) + (mu / 2) ||theta - u||^2`` per newcomer and
problem; both now call ``_perso_lin_posterior.newcomer_blocks`` (Newton with
Woodbury solves, every newcomer at once).  Checked here against an
independent reference (SciPy's L-BFGS per newcomer, written from the
objective): per-newcomer confidences of a batch of newcomers of different
sizes, both losses; a newcomer's model does not depend on the others solved
with it; the shared join's newcomers against the reference around ``S``.
"""

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed.boosting import PersonalizedLinearClassifier
from skfed.boosting import _perso_lin_posterior as post


def _loss(loss, m):
    if loss == "logistic":
        return np.logaddexp(0.0, -m), -1.0 / (1.0 + np.exp(m))
    gap = np.maximum(0.0, 1.0 - m)
    return gap * gap, -2.0 * gap


def _scipy_block(Z, y, w, u, c, alpha, mu, n_pen, loss):
    """``argmin c (sum w loss(y theta.z) + alpha/2 ||theta[:n_pen]||^2) + mu/2 ||theta - u||^2``."""
    def f(t):
        values, slopes = _loss(loss, y * (Z @ t))
        pen = t[:n_pen]
        val = c * (w @ values + 0.5 * alpha * pen @ pen) + 0.5 * mu * np.sum((t - u) ** 2)
        g = c * (Z.T @ (w * slopes * y)) + mu * (t - u)
        g[:n_pen] += c * alpha * pen
        return val, g
    return minimize(f, u, jac=True, method="L-BFGS-B",
                    options={"gtol": 1e-13, "ftol": 0.0, "maxiter": 20_000}).x


def _batch(sizes, d=6, P=2, seed=0):
    rng = np.random.RandomState(seed)
    n, width = len(sizes), max(sizes)
    Z = np.zeros((n, width, d))
    Y = np.ones((n, P, width))
    W = np.zeros((n, width))
    for i, k in enumerate(sizes):
        Z[i, :k, :-1] = rng.normal(size=(k, d - 1)) * np.array([1.0, 3.0, 0.2, 1.0, 5.0])[:d - 1]
        Z[i, :k, -1] = 1.0
        Y[i, :, :k] = np.where(rng.uniform(size=(P, k)) < 0.5, -1.0, 1.0)
        s = rng.uniform(0.2, 2.0, size=k)
        W[i, :k] = s / s.sum()
    U = rng.normal(size=(n, P, d))
    return Z, Y, W, U


@pytest.mark.parametrize("loss", ["logistic", "squared_hinge"])
def test_batch_with_per_newcomer_confidences_matches_scipy(loss):
    sizes = [3, 9, 1, 20]
    Z, Y, W, U = _batch(sizes)
    c = np.array([0.05, 7.0, 0.5, 1.3])         # e.g. TRUST times confidences
    got = post.newcomer_blocks(Z, Y, W, U, c, 0.3, 0.7, 5, loss)
    assert got.shape == U.shape
    for i, k in enumerate(sizes):
        for p in range(2):
            ref = _scipy_block(Z[i, :k], Y[i, p, :k], W[i, :k], U[i, p], c[i], 0.3, 0.7, 5, loss)
            np.testing.assert_allclose(got[i, p], ref, atol=1e-7)
    # far from the prior where the confidence is large, near it where small
    assert np.abs(got[1] - U[1]).max() > 2 * np.abs(got[0] - U[0]).max()


def test_each_newcomer_solved_as_if_alone():
    sizes = [4, 15, 2]
    Z, Y, W, U = _batch(sizes, seed=3)
    c = np.array([0.2, 3.0, 1.0])
    together = post.newcomer_blocks(Z, Y, W, U, c, 0.1, 1.0, 5)
    for i, k in enumerate(sizes):
        alone = post.newcomer_blocks(Z[i:i + 1, :k], Y[i:i + 1, :, :k], W[i:i + 1, :k],
                                     U[i:i + 1], c[i:i + 1], 0.1, 1.0, 5)
        np.testing.assert_allclose(together[i], alone[0], rtol=1e-13, atol=1e-15)


def test_shared_join_newcomers_match_scipy_around_s():
    rng = np.random.RandomState(1)
    w = rng.normal(size=4)
    X, y, g = [], [], []
    for k in range(12):
        m = 25 + 3 * k if k < 10 else 4 + 5 * (k - 10)      # newcomers of 4 and 9 rows
        Xk = rng.normal(size=(m, 4))
        X.append(Xk)
        y.append((Xk @ w + 0.5 * rng.normal(size=m) > 0).astype(int))
        g.append(np.full(m, k))
    X, y, g = np.vstack(X), np.concatenate(y), np.concatenate(g)
    new = g >= 10
    clf = PersonalizedLinearClassifier(random_state=0, alpha=1.0, join_neighbours="shared").fit(
        X[~new], y[~new], groups=g[~new])
    assert clf.newcomer_rule_ == "shared"
    S = clf._join_info["shared_model"][0].astype(np.float64)
    sw = rng.uniform(0.5, 1.5, size=new.sum())
    clf.add_nodes(X[new], y[new], groups=g[new], sample_weight=sw)
    max_mass = np.bincount(g[~new]).max()
    for k in (10, 11):
        rows = g[new] == k
        c = min(sw[rows].sum() / max_mass, 1.0)
        assert clf.confidence_[k] == pytest.approx(c)
        ref = _scipy_block(np.c_[X[new][rows], np.ones(rows.sum())],
                           np.where(y[new][rows] == 1, 1.0, -1.0), sw[rows] / sw[rows].sum(),
                           S, c, 1.0, clf.mu, 4, "logistic")
        np.testing.assert_allclose(np.r_[clf.coef_[k], clf.intercept_[k]], ref, atol=1e-7)
        assert np.abs(ref - S).max() > 1e-3
