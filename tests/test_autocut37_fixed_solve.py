"""``join_function="auto"``'s linear solve at the fixed penalty ``3 alpha``
(``skfed.online._linear_solve.solve_fixed``, autocut37) against
independent references: SciPy's L-BFGS-B run by the test on the pooled
squared-hinge objective in the preconditioned coordinates it builds itself
from the sketch (the same iterates), and SciPy's optimum of that objective
(the 10-iteration solve closes all but 1 % of the gap from ``w = 0``)."""

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed.network import SimulatedNetwork, payload_bytes
from skfed.online import _linear_solve as ls
from skfed.online._network_function import smooth_loss

from .test_online28_linear_alpha import _evaluate, _problem
from .test_online_linear_join import _fit


def _pooled(X, y, alpha):
    W = len(y)

    def objective(v):
        value, grad = smooth_loss("hinge", (X @ v)[:, None], y)
        return value.sum() + 0.5 * alpha * W * v @ v, X.T @ grad[:, 0] + alpha * W * v
    return objective


def _reference_iterates(X, y, alpha, rank, curvature=2.0, maxiter=10):
    """SciPy's L-BFGS-B on the pooled objective in ``w = P b``, ``P`` the
    inverse square root of ``alpha W I + curvature C_hat`` (scaled to 1 off
    the sketch's range), ``C_hat`` the Nystrom model of ``X'X`` from the
    public directions (built here in NumPy by its textbook formula)."""
    d, W = X.shape[1], len(y)
    omega = ls.sketch_directions(d, rank)
    Y = X.T @ (X @ omega)
    C_hat = Y @ np.linalg.solve(omega.T @ Y, Y.T)
    lam, V = np.linalg.eigh(0.5 * (C_hat + C_hat.T))
    top = np.argsort(lam)[::-1][:rank]
    U, lam = V[:, top], np.maximum(lam[top], 0.0)
    level = alpha * W + curvature * lam
    inside = np.sqrt((alpha * W + curvature * lam.min()) / level)
    P = np.eye(d) - U @ U.T + U @ np.diag(inside) @ U.T
    objective = _pooled(X, y, alpha)

    def in_b(b):
        value, grad = objective(P @ b)
        return value, P @ grad
    result = minimize(in_b, np.zeros(d), jac=True, method="L-BFGS-B",
                      options={"maxiter": maxiter, "maxfun": 2 * maxiter, "gtol": 1e-6})
    return P @ result.x, int(result.nfev)


@pytest.mark.parametrize("rank", [4, 12])
def test_fixed_solve_is_scipys_preconditioned_run(rank):
    X, y, nodes = _problem(noise=1.0)
    alpha = 1e-3
    omega = ls.sketch_directions(X.shape[1], rank)
    w, evaluations = ls.solve_fixed((X.shape[1], 1), alpha, _evaluate(X, y, nodes),
                                    np.arange(10), X.T @ (X @ omega), omega, 2.0)
    ref, nfev = _reference_iterates(X, y, ls.FIXED_FACTOR * alpha, rank)
    np.testing.assert_allclose(w[:, 0], ref, rtol=1e-6, atol=1e-9)
    # one tree round per point: SciPy's evaluations (its first, at 0, is
    # the one that also gave the weight W)
    assert evaluations == nfev and 2 <= evaluations <= 2 * ls.ITERATIONS


def test_fixed_solve_near_scipys_optimum():
    X, y, nodes = _problem(noise=1.0)
    alpha = 1e-3
    objective = _pooled(X, y, ls.FIXED_FACTOR * alpha)
    best = minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                    options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000}).x
    omega = ls.sketch_directions(X.shape[1], 10)
    w, _ = ls.solve_fixed((X.shape[1], 1), alpha, _evaluate(X, y, nodes), np.arange(10),
                          X.T @ (X @ omega), omega, 2.0)
    f0, fw, fb = objective(np.zeros(X.shape[1]))[0], objective(w[:, 0])[0], objective(best)[0]
    assert fb - 1e-9 * fb <= fw <= fb + 0.01 * (f0 - fb)
    # the penalty is 3 alpha: at 30 alpha the optimum is another point
    other = minimize(_pooled(X, y, 10 * ls.FIXED_FACTOR * alpha), np.zeros(X.shape[1]),
                     jac=True, method="L-BFGS-B", options={"gtol": 1e-12}).x
    assert np.linalg.norm(w[:, 0] - best) < 0.5 * np.linalg.norm(other - best)


def test_fit_solves_pooled_losses_at_three_alpha_with_its_bytes():
    # The classifier's fit: w is the same preconditioned run on the fitted
    # rows' pooled squared hinges at 3 alpha (10 nodes, d = 10, rank 10),
    # the gate follows the solve, and the bytes are the closed form.
    network = SimulatedNetwork(random_state=0)
    clf, X, y, g = _fit(network=network)
    base, _, _, _ = _fit(join_function="network", network=network)
    fit = g < 10
    Xf, yf = X[fit], clf._encode_targets(y[fit])
    gate = clf.network_linear_gate_
    assert gate["alpha_factor"][0] == ls.FIXED_FACTOR == 3.0
    assert set(gate) == {"t", "open", "evaluations", "alpha_factor"}
    ref, nfev = _reference_iterates(Xf, yf, 3.0 * float(clf.alpha), 10)
    np.testing.assert_allclose(clf.network_linear_coef_[0][:, 0], ref, rtol=1e-6, atol=1e-9)
    assert int(gate["evaluations"][0]) == nfev
    d, edges, header = X.shape[1], 9, SimulatedNetwork().header_bytes
    extra = edges * (nfev * (2 * header + payload_bytes(n_float64=d + 2)
                             + payload_bytes(n_float64=d))
                     + payload_bytes(n_float64=d * 10)
                     + 2 * header + payload_bytes(n_float64=3)
                     + payload_bytes(n_int32=1, n_float64=d))
    assert clf.n_bytes_sent_ - base.n_bytes_sent_ == extra
