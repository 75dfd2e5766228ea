"""The linear network function's Jacobi-scaled solve (online27)."""

import numpy as np
from scipy.optimize import minimize

from skfed.online._linear import solve_jacobi
from skfed.online._network_function import smooth_loss


def _problem(seed=0, n=400, d=12, noise=0.05):
    # correlated features of very different scales: a badly conditioned sum
    rng = np.random.RandomState(seed)
    base = rng.normal(size=(n, 3))
    X = base @ rng.normal(size=(3, d)) + noise * rng.normal(size=(n, d))
    X *= np.logspace(-1, 1, d)
    y = np.where(X[:, 0] - X[:, 5] + 0.2 * rng.normal(size=n) > 0, 1.0, -1.0)
    w = rng.uniform(0.5, 2.0, size=n)
    nodes = np.repeat(np.arange(8), n // 8)
    return X, y, w, nodes


def _reports(X, y, w, nodes):
    def evaluate(A):
        value, grad = smooth_loss("hinge", X @ A, y)
        out = np.zeros((8, 2 + A.size))
        for i in range(8):
            r = nodes == i
            out[i, 0] = w[r] @ value[r]
            out[i, 1] = w[r].sum()
            out[i, 2:] = (X[r].T @ (w[r] * grad[r, 0]))
        return out
    return evaluate


def test_jacobi_solve_equals_centralized_lbfgs():
    X, y, w, nodes = _problem(noise=0.5)
    alpha, W = 1e-3, w.sum()

    def objective(v):
        value, grad = smooth_loss("hinge", (X @ v)[:, None], y)
        return w @ value + 0.5 * alpha * W * v @ v, X.T @ (w * grad[:, 0]) + alpha * W * v
    ref = minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000}).x
    squares = w @ (X * X)
    A, n_eval = solve_jacobi(np.zeros((X.shape[1], 1)), alpha, _reports(X, y, w, nodes),
                             squares, 2.0, max_iter=500)
    gap = objective(A[:, 0])[0] - objective(ref)[0]
    assert -1e-9 * objective(ref)[0] <= gap <= 1e-6 * objective(ref)[0]
    # strong convexity (modulus alpha W): ||w - w*||^2 <= 2 gap / (alpha W)
    assert np.sum((A[:, 0] - ref) ** 2) <= 2 * max(gap, 0) / (alpha * W) + 1e-12
    np.testing.assert_allclose(A[:, 0], ref, atol=0.01 * np.abs(ref).max())
    assert 2 <= n_eval <= 600


def test_jacobi_scaling_no_worse_at_a_cap():
    # Within the same small number of iterations the scaled solve reaches an
    # objective at least as low as the unscaled one on this ill-scaled sum.
    X, y, w, nodes = _problem(seed=1)
    alpha, W = 1e-3, w.sum()
    evaluate = _reports(X, y, w, nodes)

    def value(v):
        return w @ smooth_loss("hinge", (X @ v)[:, None], y)[0] + 0.5 * alpha * W * v @ v
    A, _ = solve_jacobi(np.zeros((X.shape[1], 1)), alpha, evaluate, w @ (X * X), 2.0,
                        max_iter=15)
    ones, _ = solve_jacobi(np.zeros((X.shape[1], 1)), alpha, evaluate,
                           np.full(X.shape[1], (w @ (X * X)).mean()), 2.0, max_iter=15)
    assert value(A[:, 0]) <= value(ones[:, 0])


def test_no_weight_returns_start():
    X, y, w, nodes = _problem()
    A, n_eval = solve_jacobi(np.zeros((X.shape[1], 1)), 1e-3, _reports(X, y, 0 * w, nodes),
                             np.zeros(X.shape[1]), 2.0)
    assert n_eval == 1 and not A.any()


def test_nystrom_solve_equals_centralized_lbfgs():
    from skfed.online._linear import sketch_directions, solve_nystrom
    X, y, w, nodes = _problem(noise=0.05)
    X = X + 2.0   # a shared mean: one large direction of the Hessian
    alpha, W = 1e-3, w.sum()

    def objective(v):
        value, grad = smooth_loss("hinge", (X @ v)[:, None], y)
        return w @ value + 0.5 * alpha * W * v @ v, X.T @ (w * grad[:, 0]) + alpha * W * v
    ref = minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000}).x
    omega = sketch_directions(X.shape[1], 4)
    np.testing.assert_allclose(omega.T @ omega, np.eye(4), atol=1e-12)
    sketch = X.T @ (w[:, None] * (X @ omega))
    A, n_eval = solve_nystrom(np.zeros((X.shape[1], 1)), alpha, _reports(X, y, w, nodes),
                              sketch, omega, 2.0, max_iter=500)
    gap = objective(A[:, 0])[0] - objective(ref)[0]
    assert -1e-9 * objective(ref)[0] <= gap <= 1e-6 * objective(ref)[0]
    assert np.sum((A[:, 0] - ref) ** 2) <= 2 * max(gap, 0) / (alpha * W) + 1e-12
    # at a cap of 15 iterations it is closer to the optimum than the
    # unpreconditioned solve (the Hessian's top directions are in the sketch)
    from skfed.online._network_function import solve_weights
    capped, _ = solve_nystrom(np.zeros((X.shape[1], 1)), alpha, _reports(X, y, w, nodes),
                              sketch, omega, 2.0, max_iter=15)
    plain, _ = solve_weights(np.eye(X.shape[1]), np.zeros((X.shape[1], 1)), alpha,
                             _reports(X, y, w, nodes), max_iter=15)
    assert objective(capped[:, 0])[0] < objective(plain[:, 0])[0]
