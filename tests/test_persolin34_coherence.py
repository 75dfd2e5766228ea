"""Perso-lin's posterior join: the newcomer's trust grows as its prior's
coherence falls (skfed.boosting._perso_lin_posterior, persolin34, issue 32).

Against a NumPy / SciPy reference written from the module's description:
the newcomer's posterior weights ``a``, its prior ``u = sum_r a_r
theta_r``, the coherence ``rho = ||u||^2 / sum_r a_r ||theta_r||^2`` and
its model ``argmin (TRUST / rho^1.5) c F + (mu / 2) ||theta - u||^2``
(L-BFGS, not the module's Newton).  On tasks of opposite signs the prior
of a newcomer with few samples cancels (``rho`` well under 1) and its
trust rises; the fitted models are bit-identical, and the join's bytes
are those of the fixed-trust join (nothing more is sent).
"""

import copy

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed.boosting import PersonalizedLinearClassifier
from skfed.boosting import _perso_lin_posterior as post

HEADER = 16


def _opposite(n_nodes=16, n_rows=12, n_features=4, seed=0):
    """Even nodes label by ``x0 > 0``, odd nodes by ``x0 < 0`` (opposite
    tasks, inputs alike so the feature-mean gate stays closed)."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_nodes * n_rows, n_features))
    g = np.repeat(np.arange(n_nodes), n_rows)
    y = ((X[:, 0] > 0) ^ (g % 2 == 1)).astype(int)
    return X, y, g


def _reference(fitted, Xn, yn, max_mass):
    K = len(fitted.nodes_)
    models = np.c_[fitted.coef_.reshape(K, -1), fitted.intercept_.reshape(K, 1)]
    models = models.astype(np.float64)
    s = np.where(yn == fitted.classes_[1], 1.0, -1.0)
    Z = np.c_[Xn, np.ones(len(Xn))]
    m = float(len(yn))
    L = np.array([np.mean(np.logaddexp(0.0, -s * (Z @ t))) for t in models])
    a = np.exp(-m * (L - L.min()))
    a /= a.sum()
    u = a @ models
    rho = (u @ u) / np.sum(a * np.sum(models ** 2, axis=1))
    c = post.TRUST / rho ** 1.5 * min(m / max_mass, 1.0)
    alpha, mu = fitted.alpha, fitted.mu

    def f(t):
        z = s * (Z @ t)
        val = c * (np.mean(np.logaddexp(0.0, -z)) + 0.5 * alpha * t[:-1] @ t[:-1]) \
            + 0.5 * mu * np.sum((t - u) ** 2)
        gr = c * (Z.T @ (-s / (1.0 + np.exp(z))) / len(z)) + mu * (t - u)
        gr[:-1] += c * alpha * t[:-1]
        return val, gr

    theta = minimize(f, u, jac=True, method="L-BFGS-B",
                     options={"gtol": 1e-12, "ftol": 0.0, "maxiter": 5000}).x
    return a, rho, theta


def test_join_matches_reference_and_trust_rises():
    X, y, g = _opposite()
    new = g >= 14
    clf = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X[~new], y[~new], groups=g[~new])
    before = copy.deepcopy(clf)
    # newcomers with 3 samples each near the boundary x0 = 0: their
    # likelihood cannot tell the two tasks apart
    rows = np.flatnonzero(new)
    keep = np.concatenate([rows[g[rows] == node][:3] for node in (14, 15)])
    Xk = X[keep].copy()
    Xk[:, 0] *= 0.02
    clf.add_nodes(Xk, y[keep], groups=g[keep])
    assert np.array_equal(clf.coef_[:14], before.coef_)
    assert np.array_equal(clf.intercept_[:14], before.intercept_)
    rhos = []
    for i, node in enumerate((14, 15)):
        r = g[keep] == node
        a, rho, theta = _reference(before, Xk[r], y[keep][r], 12.0)
        rhos.append(rho)
        got = np.r_[clf.coef_[14 + i].ravel(), clf.intercept_[14 + i]]
        np.testing.assert_allclose(got, theta, atol=1e-6)
        # the module's coherence of the same weights and candidates
        K = len(before.nodes_)
        G = np.c_[before.coef_.reshape(K, -1), before.intercept_.reshape(K, 1)]
        assert post.prior_coherence(a[None], G[None, :, None, :])[0] == pytest.approx(rho)
    # intermediate result: the opposite tasks cancel in the prior
    assert all(0.0 < rho < 0.6 for rho in rhos)
    # the same newcomers with 12 samples: the prior agrees with one task
    full = copy.deepcopy(before)
    full.add_nodes(X[new], y[new], groups=g[new])
    for i, node in enumerate((14, 15)):
        r = np.flatnonzero(g == node)
        _, rho, theta = _reference(before, X[r], y[r], 12.0)
        assert rho > 0.9
        np.testing.assert_allclose(np.r_[full.coef_[14 + i].ravel(), full.intercept_[14 + i]],
                                   theta, atol=1e-6)


def test_prior_coherence_closed_form():
    a = np.array([[0.5, 0.5], [1.0, 0.0], [0.25, 0.75]])
    t = np.array([[3.0, 4.0], [-3.0, -4.0]])
    G = np.broadcast_to(t[None, :, None, :], (3, 2, 1, 2))
    # u = 0 (exact cancellation), a single candidate, a 1:3 mixture (u = 0.5 t1)
    np.testing.assert_allclose(post.prior_coherence(a, G), [0.0, 1.0, 0.25], atol=1e-15)
    # all-zero candidates agree
    assert post.prior_coherence(a[:1], np.zeros((1, 2, 1, 2)))[0] == 1.0


def test_bytes_unchanged_by_the_trust():
    # the trust is the newcomer's own arithmetic: the join's bytes are the
    # closed form of the posterior join (requests, models, mass, edges)
    X, y, g = _opposite()
    new = g >= 14
    clf = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X[~new], y[~new], groups=g[~new])
    fixed = copy.deepcopy(clf)
    clf.add_nodes(X[new], y[new], groups=g[new])
    n_new, q, d = 2, 14, X.shape[1] + 1
    edges = clf.collaboration_graph_[14:, :14].nnz
    closed = n_new * q * (HEADER + HEADER + 8 * d) + edges * (HEADER + 8) + n_new * 8
    assert clf.join_communication_.total_bytes == closed
    old_power = post.COHERENCE_POWER
    post.COHERENCE_POWER = 0.0                          # the fixed trust of persolin28
    try:
        fixed.add_nodes(X[new], y[new], groups=g[new])
    finally:
        post.COHERENCE_POWER = old_power
    assert fixed.join_communication_.total_bytes == closed
    assert np.array_equal(fixed.collaboration_graph_.toarray(),
                          clf.collaboration_graph_.toarray())   # same weights, same edges
