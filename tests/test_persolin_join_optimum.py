"""A Perso-lin newcomer's model steps solve its problem (issue 32).

Its joined model is the minimizer, found here by SciPy from a different
start, of

    Q(theta_p) = c' F_p(theta_p) + (mu / 2) sum_r v_r ||theta_p - theta_r,p||^2,
    F_p = (1 / m) sum_i s_i log(1 + exp(-y_ip theta_p . z_i))
          + (alpha / 2) ||theta_p without its intercept||^2,

``v`` its joined row over the fitted nodes, ``theta_r`` their models (fixed),
``c' = c d`` (``c`` its confidence, ``d = sum_r v_r``).  So no start (its
local model, a consensus of the fitted models) can change a join:
``benchmarks/persolin_consensus_start.py`` measured 27 of 27 rows alike.
"""
import copy

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed._graph_join import _models, _targets
from skfed.boosting import PersonalizedLinearClassifier


def _data(seed, n_classes):
    rng = np.random.RandomState(seed)
    n_nodes = 16
    counts = np.concatenate([rng.randint(8, 20, size=n_nodes - 1), [10]])
    groups = np.repeat(np.arange(n_nodes), counts)
    X = rng.normal(size=(len(groups), 3))
    flip = np.where(np.arange(n_nodes) % 2 == 0, 1.0, -1.0)[groups]
    score = flip * X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=len(groups))
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y, groups, groups == n_nodes - 1


def _objective(theta, Z, y, c_eff, alpha, n_pen, mu, v, fixed):
    z = y * (Z @ theta)
    F = np.mean(np.logaddexp(0.0, -z)) + 0.5 * alpha * theta[:n_pen] @ theta[:n_pen]
    sig = -1.0 / (1.0 + np.exp(z))
    grad_F = Z.T @ (sig * y) / len(y)
    grad_F[:n_pen] += alpha * theta[:n_pen]
    diff = theta[None, :] - fixed
    Q = c_eff * F + 0.5 * mu * v @ np.sum(diff ** 2, axis=1)
    return Q, c_eff * grad_F + mu * (v @ diff)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_newcomer_model_is_its_problems_minimizer(seed, n_classes):
    X, y, groups, new = _data(seed, n_classes)
    est = PersonalizedLinearClassifier(random_state=seed, join_neighbours="graph").fit(
        X[~new], y[~new], groups=groups[~new])
    before = copy.deepcopy(est)
    joined = est.add_nodes(X[new], y[new], groups=groups[new])
    K = len(before.nodes_)
    # the fitted nodes unchanged, bit for bit
    np.testing.assert_array_equal(joined.coef_[:K], before.coef_)
    np.testing.assert_array_equal(joined.intercept_[:K], before.intercept_)

    models = _models(joined)                                 # (K + 1, P, n), intercept last
    v = joined.collaboration_graph_.toarray()[K, :K]
    assert (v > 0).any() and v.sum() > 0
    d, c = v.sum(), float(joined.confidence_[K])
    assert 0.0 < c <= 1.0
    Z = joined._design(X[new], np.float64)
    Y = _targets(joined, y[new], np.float64)
    n_pen = Z.shape[1] - 1
    for p in range(Y.shape[0]):
        args = (Z, Y[p], c * d, joined.alpha, n_pen, joined.mu, v, models[:K, p])
        start = models[:K, p].mean(axis=0)                   # the fitted models' consensus
        res = minimize(_objective, start, args=args, jac=True, method="L-BFGS-B",
                       options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000})
        assert res.success
        grad = _objective(models[K, p], *args)[1]
        assert np.max(np.abs(grad)) < 1e-9                # stationary
        np.testing.assert_allclose(models[K, p], res.x, rtol=1e-5, atol=1e-6)
        # and far from that start: the start did not decide it
        assert np.linalg.norm(start - res.x) > 10 * np.linalg.norm(models[K, p] - res.x)
