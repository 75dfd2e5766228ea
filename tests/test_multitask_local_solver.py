"""The exact local solver of linear MOCHA against independent references.

The node's CoCoA subproblem (hinge, squared hinge, squared loss) is a
box-constrained quadratic program in the change ``d`` of its dual
variables; :func:`local_solve_exact_nodes` solves it by projected Newton.
The references here are a closed form (squared loss), a bounded
least-squares solve (squared hinge: ``scipy.optimize.lsq_linear``), the
KKT conditions computed in NumPy, L-BFGS-B, and the coordinate-ascent
solver run to convergence.
"""

import numpy as np
import pytest
from scipy import optimize

from skfed._core._multitask_fast import (
    Hinge,
    Squared,
    SquaredHinge,
    local_solve_exact_nodes,
    local_solve_linear_nodes,
)

KIND = {"hinge": 0, "squared_hinge": 1, "squared": 2}
CURVATURE = {"hinge": 0.0, "squared_hinge": 0.5, "squared": 1.0}
LOSS = {"hinge": Hinge, "squared_hinge": SquaredHinge, "squared": Squared}


def _problem(loss, n, d, seed):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, d))
    w = 0.3 * rng.normal(size=d)
    sw = rng.uniform(0.5, 2.0, size=n)
    sw[1] = 0.0
    if loss == "squared":
        y = rng.normal(size=n) * 2.0
        g = rng.normal(size=n) * 0.5
    else:
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        a = rng.uniform(0.0, 1.0, size=n)
        a[:3] = [0.0, 1.0, 0.0]
        g = y * a
    return Z, w, sw, y, g


def _exact(Z, w, sw, y, g, c, loss, tol=1e-12):
    n, d = Z.shape
    G = g[None].copy()
    dV = np.zeros((1, 1, d))
    delta = np.zeros((1, n))
    n_iter, viol = local_solve_exact_nodes(
        Z, (Z @ Z.T).ravel(), np.array([0, n * n], dtype=np.intp), y[None].copy(), sw, G,
        w[None, None].copy(), dV, delta, np.array([0], dtype=np.intp),
        np.array([0, n], dtype=np.intp), np.array([c]), np.ones(1, dtype=np.uint8),
        KIND[loss], tol, 200,
    )
    return G[0], delta[0], dV[0, 0], n_iter, viol


def _objective(dd, Z, w, sw, y, g, c, loss):
    """The subproblem's objective (to minimize) in NumPy, from the losses' conjugates."""
    pos = sw > 0
    g_new = g.copy()
    g_new[pos] = g[pos] + dd[pos] / sw[pos]
    conj = CURVATURE[loss] * g_new**2 / 2 - y * g_new
    v = Z.T @ dd
    return float(sw @ conj + dd @ (Z @ w) + 0.5 * c * v @ v)


def _bounds(sw, y, g, loss):
    if loss == "squared":
        return np.full_like(g, -np.inf), np.full_like(g, np.inf)
    if loss == "hinge":
        lo, hi = np.minimum(0.0, y) - g, np.maximum(0.0, y) - g
    else:
        lo = np.where(y > 0, -g, -np.inf)
        hi = np.where(y < 0, -g, np.inf)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(lo), sw * lo, lo), np.where(np.isfinite(hi), sw * hi, hi)


@pytest.mark.parametrize("shape", [(40, 6), (12, 30)])
def test_exact_squared_loss_is_the_closed_form(shape):
    n, d = shape
    Z, w, sw, y, g = _problem("squared", n, d, 0)
    c = 0.7
    G, delta, dv, n_iter, viol = _exact(Z, w, sw, y, g, c, "squared")
    # Stationarity: g' - y + Z w + c K d = 0 on the weighted rows, d = 0 elsewhere:
    # (diag(1 / s) + c K) d = y - Z w - g, a linear solve.
    pos = sw > 0
    K = Z[pos] @ Z[pos].T
    ref = np.zeros(n)
    ref[pos] = np.linalg.solve(np.diag(1.0 / sw[pos]) + c * K, (y - Z @ w - g)[pos])
    np.testing.assert_allclose(delta, ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(G[pos], g[pos] + ref[pos] / sw[pos], rtol=1e-10, atol=1e-12)
    assert G[1] == g[1] and delta[1] == 0.0  # zero-weight row untouched
    np.testing.assert_allclose(dv, Z.T @ delta, rtol=1e-10, atol=1e-12)
    assert n_iter <= 2 and viol <= 1e-10  # (damped) Newton steps solve a quadratic


@pytest.mark.parametrize("shape", [(40, 6), (12, 30)])
def test_exact_squared_hinge_matches_bounded_least_squares(shape):
    n, d = shape
    Z, w, sw, y, g = _problem("squared_hinge", n, d, 1)
    c = 1.3
    G, delta, dv, n_iter, viol = _exact(Z, w, sw, y, g, c, "squared_hinge")
    # 0.5 d^T (c K + D) d + b^T d = 0.5 ||M d + e||^2 + const with
    # M = [sqrt(c) Z^T; sqrt(D)], e = M^{-T}-solution of M^T e = b.
    pos = sw > 0
    D = 0.5 / sw[pos]
    b = (Z @ w)[pos] + 0.5 * g[pos] - y[pos]
    M = np.vstack([np.sqrt(c) * Z[pos].T, np.diag(np.sqrt(D))])
    e = np.linalg.lstsq(M.T, b, rcond=None)[0]
    np.testing.assert_allclose(M.T @ e, b, atol=1e-10)
    lo, hi = _bounds(sw, y, g, "squared_hinge")
    ref = optimize.lsq_linear(M, -e, bounds=(lo[pos], hi[pos]), method="bvls", tol=1e-14).x
    np.testing.assert_allclose(delta[pos], ref, rtol=1e-8, atol=1e-9)
    assert viol <= 1e-12 and n_iter >= 1
    a = y * G
    assert a.min() >= 0.0  # the loss's domain


def _kkt_violation(delta, Z, w, sw, y, g, c, loss):
    pos = sw > 0
    g_new = g.copy()
    g_new[pos] += delta[pos] / sw[pos]
    grad = CURVATURE[loss] * g_new - y + Z @ w + c * Z @ (Z.T @ delta)
    lo, hi = _bounds(sw, y, g, loss)
    at_lo = delta <= lo + 1e-12 * sw
    at_hi = delta >= hi - 1e-12 * sw
    ok = (at_lo & (grad >= 0)) | (at_hi & (grad <= 0))
    return float(np.max(np.where(ok | ~pos, 0.0, np.abs(grad))))


@pytest.mark.parametrize("shape", [(40, 6), (12, 30), (60, 61)])
def test_exact_hinge_is_optimal(shape):
    n, d = shape
    Z, w, sw, y, g = _problem("hinge", n, d, 2)
    c = 0.9
    G, delta, dv, n_iter, viol = _exact(Z, w, sw, y, g, c, "hinge")
    a = y * G
    assert a.min() >= 0.0 and a.max() <= 1.0
    # The KKT conditions, computed in NumPy.
    assert _kkt_violation(delta, Z, w, sw, y, g, c, "hinge") <= 1e-9
    assert viol <= 1e-12
    # L-BFGS-B on the same box QP reaches no lower objective.
    pos = sw > 0
    lo, hi = _bounds(sw, y, g, "hinge")
    K = Z[pos] @ Z[pos].T
    b = (Z @ w)[pos] - y[pos]
    res = optimize.minimize(
        lambda x: (0.5 * c * x @ K @ x + b @ x, c * K @ x + b), np.zeros(pos.sum()), jac=True,
        method="L-BFGS-B", bounds=list(zip(lo[pos], hi[pos])),
        options=dict(ftol=1e-15, gtol=1e-12, maxiter=100000),
    )
    ours = _objective(delta, Z, w, sw, y, g, c, "hinge")
    ref = np.zeros(n)
    ref[pos] = res.x
    theirs = _objective(ref, Z, w, sw, y, g, c, "hinge")
    assert ours <= theirs + 1e-10 * max(1.0, abs(theirs))
    assert theirs - ours <= 1e-6 * max(1.0, abs(theirs))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "squared"])
def test_exact_matches_coordinate_ascent_to_convergence(loss):
    # The coordinate-ascent solver on the same subproblem, run for 20,000
    # epochs on a well-conditioned node, lands on the same optimum.
    n, d = 25, 40
    Z, w, sw, y, g = _problem(loss, n, d, 3)
    sw[1] = 1.0  # the coordinate solver skips no row here
    c = 0.5
    G, delta, dv, _, _ = _exact(Z, w, sw, y, g, c, loss)
    G2 = g[None].copy()
    dV2 = np.zeros((1, 1, d))
    delta2 = np.zeros((1, n))
    local_solve_linear_nodes(
        Z, np.einsum("ij,ij->i", Z, Z), y[None].copy(), sw, G2, w[None, None].copy(), dV2,
        delta2, np.array([0], dtype=np.intp), np.array([0, n], dtype=np.intp), np.array([c]),
        np.array([20000 * n], dtype=np.intp), 0.0, LOSS[loss](), np.array([7], dtype=np.uint32),
    )
    ours = _objective(delta, Z, w, sw, y, g, c, loss)
    theirs = _objective(delta2[0], Z, w, sw, y, g, c, loss)
    assert abs(ours - theirs) <= 1e-8 * max(1.0, abs(ours))
    assert ours <= theirs + 1e-12 * max(1.0, abs(ours))
    np.testing.assert_allclose(dv, dV2[0, 0], rtol=1e-5, atol=1e-6)


def test_exact_skips_other_nodes_and_checks_its_gram():
    Z, w, sw, y, g = _problem("hinge", 10, 3, 4)
    with pytest.raises(ValueError, match="gram"):
        local_solve_exact_nodes(
            Z, np.zeros(5), np.array([0, 5], dtype=np.intp), y[None].copy(), sw, g[None].copy(),
            w[None, None].copy(), np.zeros((1, 1, 3)), np.zeros((1, 10)),
            np.array([0], dtype=np.intp), np.array([0, 10], dtype=np.intp), np.array([1.0]),
            np.ones(1, dtype=np.uint8), 0, 1e-10, 50,
        )
    G = g[None].copy()
    out = local_solve_exact_nodes(
        Z, np.zeros(0), np.array([0, 0], dtype=np.intp), y[None].copy(), sw, G,
        w[None, None].copy(), np.zeros((1, 1, 3)), np.zeros((1, 10)),
        np.array([0], dtype=np.intp), np.array([0, 10], dtype=np.intp), np.array([1.0]),
        np.zeros(1, dtype=np.uint8), 0, 1e-10, 50,
    )
    assert out == (0, 0.0) and np.array_equal(G[0], g)


# ------------------------------------------------------------ in the estimators
def _nodes(sizes=(30, 40, 25), d=3, seed=9, regression=False):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(len(groups), d))
    score = X[:, 0] + 0.4 * (groups - 1) * X[:, 1] + 0.3 * rng.normal(size=len(groups))
    if regression:
        return X, score + 0.5 * groups, groups
    return X, np.where(score > 0, 1, -1), groups


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_exact_solver_independent_omega_one_round(loss):
    # A diagonal Sigma makes the nodes' subproblems the dual's own blocks:
    # solved exactly, the first round is the optimum; coordinate ascent
    # reaches the same objective in many rounds.
    from skfed.multitask import FederatedMultiTaskClassifier

    X, y, groups = _nodes()
    common = dict(kernel="linear", loss=loss, omega="independent", tol=1e-7, C=10.0,
                  max_rounds=20000, random_state=0, compression="none")
    exact = FederatedMultiTaskClassifier(**common).fit(X, y, groups=groups)
    slow = FederatedMultiTaskClassifier(local_solver="coordinate", **common)
    slow.fit(X, y, groups=groups)
    assert exact.n_iter_ == 1 and slow.n_iter_ > 20
    assert exact.duality_gap_curve_[-1] <= 1e-9 * exact.objective_curve_[-1]
    rel = abs(exact.objective_curve_[-1] - slow.objective_curve_[-1]) / slow.objective_curve_[-1]
    assert rel < 2e-7


def test_exact_solver_fixed_coupled_omega_reaches_the_same_optimum():
    from skfed.multitask import FederatedMultiTaskRegressor

    X, y, groups = _nodes(regression=True)
    A = np.random.RandomState(0).normal(size=(3, 3))
    omega = A @ A.T + 0.5 * np.eye(3)
    common = dict(kernel="linear", omega=omega, tol=1e-8, max_rounds=20000, random_state=0)
    exact = FederatedMultiTaskRegressor(**common).fit(X, y, groups=groups)
    slow = FederatedMultiTaskRegressor(local_solver="coordinate", **common)
    slow.fit(X, y, groups=groups)
    rel = abs(exact.objective_curve_[-1] - slow.objective_curve_[-1]) / slow.objective_curve_[-1]
    assert rel < 1e-7
    # Here (squared loss, 10 epochs) coordinate ascent is already nearly exact:
    # the rounds are bound by the coupling, not the local solver.
    assert exact.n_iter_ <= slow.n_iter_
    np.testing.assert_allclose(exact.predict(X, groups=groups), slow.predict(X, groups=groups),
                               atol=1e-3)


def test_local_solver_errors_name_the_parameter():
    from skfed.multitask import FederatedMultiTaskClassifier

    X, y, groups = _nodes()
    with pytest.raises(ValueError, match="local_solver='exact'.*loss='logistic'"):
        FederatedMultiTaskClassifier(kernel="linear", loss="logistic", local_solver="exact",
                                     max_rounds=2).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="local_solver='exact'.*kernel='rbf'"):
        FederatedMultiTaskClassifier(kernel="rbf", local_solver="exact",
                                     max_rounds=2).fit(X, y, groups=groups)
