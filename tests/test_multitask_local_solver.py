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
        FederatedMultiTaskClassifier(kernel="rbf", approximation=None, loss="squared_hinge",
                                     local_solver="exact", max_rounds=2).fit(X, y, groups=groups)


def _projected_newton(K, f, sw, y, g, c, loss, tol=1e-12, max_iter=500):
    """Projected Newton from ``d = 0`` in NumPy (the solver without its
    active-set start): the free set, a damped Newton step on it, projected
    backtracking.  Returns the optimal change of alpha and the iterations."""
    A = CURVATURE[loss]
    pos = sw > 0
    lo, hi = _bounds(sw, y, g, loss)
    lo, hi = np.where(pos, np.minimum(lo, 0.0), 0.0), np.where(pos, np.maximum(hi, 0.0), 0.0)
    s = np.where(pos, sw, 1.0)
    dd = np.zeros_like(g)
    mu = 0.0
    for it in range(max_iter + 1):
        grad = A * (g + dd / s) - y + f + c * K @ dd
        out = ((dd <= lo) & (grad > 0)) | ((dd >= hi) & (grad < 0)) | ~pos
        F = np.flatnonzero(~out)
        if F.size == 0 or np.max(np.abs(grad[F])) <= tol:
            return dd, it
        H = c * K[np.ix_(F, F)] + np.diag(A / s[F])
        mu = max(mu, 1e-12 * H.diagonal().max())
        step = np.linalg.solve(H + mu * np.eye(F.size), -grad[F])
        t = 1.0
        for _ in range(30):
            change = np.zeros_like(dd)
            change[F] = np.clip(dd[F] + t * step, lo[F], hi[F]) - dd[F]
            slope = grad @ change
            curv = change @ (c * K @ change) + change[pos] @ (A / s[pos] * change[pos])
            if slope < 0 and slope + 0.5 * curv <= 1e-4 * slope:
                break
            t *= 0.5
        else:
            mu *= 100.0
            continue
        dd = dd + change
    raise AssertionError("the NumPy reference did not converge")


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "squared"])
@pytest.mark.parametrize("shape", [(40, 6), (12, 30), (60, 61), (150, 400)])
def test_exact_active_set_start_equals_cold_projected_newton(loss, shape):
    # The solver starts projected Newton from primal-dual active-set
    # iterations; the optimum is that of projected Newton from d = 0, run in
    # NumPy, to 1e-10 (hinge: 1e-8, where K of rank d < n leaves the
    # optimum flat along its null space and only the margins are unique).
    n, d = shape
    Z, w, sw, y, g = _problem(loss, n, d, 11)
    c = 1.7
    G, delta, dv, n_iter, viol = _exact(Z, w, sw, y, g, c, loss)
    ref, ref_iter = _projected_newton(Z @ Z.T, Z @ w, sw, y, g, c, loss)
    assert viol <= 1e-12
    if loss == "hinge" and n > d:
        # a singular free block: the active-set start gives way at once
        # (no factorization spent on it), projected Newton does the work
        assert n_iter <= ref_iter + 1, (n_iter, ref_iter)
        np.testing.assert_allclose(Z @ (Z.T @ delta), Z @ (Z.T @ ref), atol=1e-8)
        ours = _objective(delta, Z, w, sw, y, g, c, loss)
        theirs = _objective(ref, Z, w, sw, y, g, c, loss)
        assert abs(ours - theirs) <= 1e-10 * max(1.0, abs(theirs))
    else:
        np.testing.assert_allclose(delta, ref, rtol=0, atol=1e-10)
    np.testing.assert_allclose(dv, Z.T @ delta, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_active_set_start_saves_factorizations(seed):
    # A second round on a random-feature node (the first round's step
    # halved by the line search, the model moved): the hinge subproblem,
    # from d = 0, takes projected Newton 14-15 factorizations; with the
    # active-set start the solver needs at most 10, and lands on the same point.
    rng = np.random.default_rng(seed)
    n, d = 150, 400
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    Z = np.sqrt(2.0 / d) * np.cos(X @ rng.normal(size=(5, d)) + rng.uniform(0, 2 * np.pi, d))
    sw, c = np.ones(n), 3.0
    G, _, dv, _, _ = _exact(Z, np.zeros(d), sw, y, np.zeros(n), c, "hinge")
    g, w = 0.5 * G, 0.5 * c * dv + 0.05 * rng.normal(size=d)
    G, delta, dv, n_iter, viol = _exact(Z, w, sw, y, g, c, "hinge")
    ref, ref_iter = _projected_newton(Z @ Z.T, Z @ w, sw, y, g, c, "hinge")
    assert viol <= 1e-12
    np.testing.assert_allclose(delta, ref, rtol=0, atol=1e-10)
    assert ref_iter >= 14 and n_iter <= 10, (n_iter, ref_iter)


def test_zero_step_nodes_are_left_untouched():
    # A node with no coordinate steps (the exact solver's nodes) costs
    # nothing in local_solve_linear_nodes and changes nothing; the other
    # node's results are those of a call on it alone.
    Z1, w1, sw1, y1, g1 = _problem("squared_hinge", 20, 5, 4)
    Z2, w2, sw2, y2, g2 = _problem("squared_hinge", 15, 5, 5)
    Z, sw, y, g = np.vstack([Z1, Z2]), np.r_[sw1, sw2], np.r_[y1, y2], np.r_[g1, g2]
    W = np.stack([w1, w2])[None]
    args = (np.einsum("ij,ij->i", Z, Z), y[None].copy(), sw)
    G = g[None].copy()
    dV = np.zeros((1, 2, 5))
    delta = np.zeros((1, 35))
    states = np.array([3, 9], dtype=np.uint32)
    local_solve_linear_nodes(Z, *args, G, W, dV, delta, np.array([0, 1], dtype=np.intp),
                             np.array([0, 20, 35], dtype=np.intp), np.array([0.7, 0.7]),
                             np.array([0, 40], dtype=np.intp), 0.0, SquaredHinge(), states)
    np.testing.assert_array_equal(G[0, :20], g1)
    assert not dV[0, 0].any() and not delta[0, :20].any() and states[0] == 3
    G2, dV2, delta2 = g2[None].copy(), np.zeros((1, 1, 5)), np.zeros((1, 15))
    states2 = np.array([9], dtype=np.uint32)
    local_solve_linear_nodes(Z2, args[0][20:], y2[None].copy(), sw2, G2, w2[None, None].copy(),
                             dV2, delta2, np.array([0], dtype=np.intp),
                             np.array([0, 15], dtype=np.intp), np.array([0.7]),
                             np.array([40], dtype=np.intp), 0.0, SquaredHinge(), states2)
    assert delta2.any()
    np.testing.assert_array_equal(G[0, 20:], G2[0])
    np.testing.assert_array_equal(dV[0, 1], dV2[0, 0])
    np.testing.assert_array_equal(delta[0, 20:], delta2[0])
    assert states[1] == states2[0] != 9


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_exact_and_margins_on_float32_features_equal_float64(loss):
    # Float32 features (float32 data) go to the exact solver and the margins
    # as they are: the products are exact in double, so only the order of
    # the sums differs from the float64 copy.
    from skfed._core._multitask_fast import node_margins
    n, d = 50, 37
    Z, w, sw, y, g = _problem(loss, n, d, 21)
    Z = Z.astype(np.float32).astype(np.float64)
    out = []
    for X in (Z, Z.astype(np.float32)):
        G = g[None].copy()
        dV = np.zeros((1, 1, d))
        delta = np.zeros((1, n))
        local_solve_exact_nodes(
            X, (Z @ Z.T).ravel(), np.array([0, n * n], dtype=np.intp), y[None].copy(), sw, G,
            w[None, None].copy(), dV, delta, np.array([0], dtype=np.intp),
            np.array([0, n], dtype=np.intp), np.array([1.1]), np.ones(1, dtype=np.uint8),
            KIND[loss], 1e-12, 200,
        )
        margins = np.empty((1, n))
        node_margins(X, w[None, None].copy(), np.array([0, n], dtype=np.intp), margins)
        out.append((G, dV, delta, margins))
    for a, b in zip(*out):
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-11)
    np.testing.assert_allclose(out[1][3][0], Z @ w, rtol=1e-13, atol=1e-13)
    assert out[0][2].any()
