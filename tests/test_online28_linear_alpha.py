"""The linear network function's solve (skfed/online/_linear_solve.py)
against centralized SciPy solves: the preconditioned L-BFGS, and the
held-back choice of the penalty that the fit ran until autocut37 (kept
for the benchmarks that measured it; the fit's fixed-penalty solve:
tests/test_autocut37_fixed_solve.py)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed.online import _linear_solve as ls

# The held-back choice the fit ran until autocut37 lives with the benchmarks
# that compare it (benchmarks/online_held_back_choice.py).
_BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "online_held_back_choice.py"


def _chosen_module():
    if not _BENCH.exists():
        pytest.skip("benchmarks/ is not in this checkout")
    spec = importlib.util.spec_from_file_location("online_held_back_choice", _BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def ch():
    return _chosen_module()
from skfed.online._network_function import smooth_loss


def _problem(seed=0, n_nodes=10, per=40, d=12, shift=1.5, noise=0.3):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_nodes * per, d)) + shift   # a shared mean: one large direction
    X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=len(X))  # two correlated features
    nodes = np.repeat(np.arange(n_nodes), per)
    score = X[:, 0] - X[:, 2] + noise * rng.normal(size=len(X))
    y = np.where(score > 0, 1.0, -1.0)
    return X, y, nodes


def _evaluate(X, y, nodes):
    """The nodes' stacked reports (loss, weight, gradient) of ``w' x``."""
    def evaluate(A, part):
        out = np.zeros((len(part), 2 + A.size))
        for r, node in enumerate(part):
            rows = nodes == node
            value, grad = smooth_loss("hinge", X[rows] @ A, y[rows])
            out[r, 0], out[r, 1] = value.sum(), rows.sum()
            out[r, 2:] = (X[rows].T @ grad).ravel()
        return out
    return evaluate


def _optimum(X, y, alpha):
    W = len(y)

    def objective(v):
        value, grad = smooth_loss("hinge", (X @ v)[:, None], y)
        return value.sum() + 0.5 * alpha * W * v @ v, X.T @ grad[:, 0] + alpha * W * v
    ref = minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000}).x
    return ref, objective


@pytest.mark.parametrize("rank", [4, 12])
def test_preconditioned_lbfgs_from_a_warm_start_equals_scipy(rank):
    X, y, nodes = _problem()
    alpha = 3e-3
    ref, objective = _optimum(X, y, alpha)
    omega = ls.sketch_directions(X.shape[1], rank)
    np.testing.assert_allclose(omega.T @ omega, np.eye(rank), atol=1e-12)
    model = ls.nystrom_model(X.T @ (X @ omega), omega)
    if rank == X.shape[1]:   # the whole X'X: the model is exact
        U, lam = model
        np.testing.assert_allclose(U @ np.diag(lam) @ U.T, X.T @ X, rtol=1e-6, atol=1e-6)
    reports = ls.Reports(_evaluate(X, y, nodes), np.arange(10))
    start = np.random.RandomState(1).normal(size=(X.shape[1], 1))
    A = ls.lbfgs(start, alpha, reports, model, 2.0, 500)
    gap = objective(A[:, 0])[0] - objective(ref)[0]
    assert -1e-9 * objective(ref)[0] <= gap <= 1e-7 * objective(ref)[0]
    # strong convexity: ||w - w*||^2 <= 2 gap / (alpha W)
    assert np.sum((A[:, 0] - ref) ** 2) <= 2 * max(gap, 0) / (alpha * len(y)) + 1e-10
    # at a cap of 10 iterations the preconditioned solve is nearer the
    # optimum than the plain one (the Hessian's large directions are in the
    # sketch)
    plain = ls.lbfgs(np.zeros((X.shape[1], 1)), alpha, reports, None, 2.0, 10)
    capped = ls.lbfgs(np.zeros((X.shape[1], 1)), alpha, reports, model, 2.0, 10)
    assert objective(capped[:, 0])[0] < objective(plain[:, 0])[0]


def test_held_back_nodes_public_draw(ch):
    nodes = np.arange(3, 23)
    held = ch.held_back_nodes(nodes, [5, 0, 8161])
    assert len(held) == 4 and np.all(np.isin(held, nodes)) and np.all(np.diff(held) > 0)
    np.testing.assert_array_equal(held, ch.held_back_nodes(nodes, [5, 0, 8161]))
    assert len(ch.held_back_nodes(np.arange(5), 0)) == 1
    assert len(ch.held_back_nodes(np.arange(4), 0)) == 0


def test_chosen_penalty_equals_centralized_path(ch, monkeypatch):
    # Caps high enough that every solve reaches its optimum: the path's
    # held-back losses, the choice and the final w are those of centralized
    # solves on the same rows.
    monkeypatch.setattr(ch, "PATH_ITERATIONS", 400)
    monkeypatch.setattr(ch, "FINAL_ITERATIONS", 400)
    X, y, nodes = _problem(noise=1.0, per=30)
    alpha = 1e-3
    all_nodes = np.arange(10)
    held = ch.held_back_nodes(all_nodes, 3)
    train = ~np.isin(nodes, held)
    omega = ls.sketch_directions(X.shape[1], 5)
    A, factor, path, n_eval = ch.solve_chosen(
        (X.shape[1], 1), alpha, _evaluate(X, y, nodes), all_nodes, held,
        X.T @ (X @ omega), omega, 2.0)
    expected = []
    for f in ch.PATH_FACTORS:
        w, _ = _optimum(X[train], y[train], f * alpha)
        value, _ = smooth_loss("hinge", (X[~train] @ w)[:, None], y[~train])
        expected.append((f, value.mean()))
    assert [p[0] for p in path] == [p[0] for p in expected]
    np.testing.assert_allclose([p[1] for p in path], [p[1] for p in expected], rtol=1e-5)
    best = min(expected, key=lambda p: (p[1], -p[0]))[0]
    assert factor == best
    ref, objective = _optimum(X, y, best * alpha)
    gap = objective(A[:, 0])[0] - objective(ref)[0]
    assert -1e-9 * objective(ref)[0] <= gap <= 1e-7 * objective(ref)[0]
    assert n_eval >= len(path) + 2


def test_few_nodes_fall_back_without_holding_back(ch):
    X, y, nodes = _problem(n_nodes=4)
    omega = ls.sketch_directions(X.shape[1], 4)
    held = ch.held_back_nodes(np.arange(4), 0)
    A, factor, path, n_eval = ch.solve_chosen(
        (X.shape[1], 1), 1e-3, _evaluate(X, y, nodes), np.arange(4), held,
        X.T @ (X @ omega), omega, 2.0)
    assert factor == ch.FALLBACK_FACTOR and path == []
    assert 1 <= n_eval <= ch.FINAL_ITERATIONS + ch.PATH_ITERATIONS + 5
    ref, objective = _optimum(X, y, ch.FALLBACK_FACTOR * 1e-3)
    assert objective(A[:, 0])[0] - objective(ref)[0] <= 1e-4 * objective(ref)[0]


def test_reports_one_round_per_point(ch):
    X, y, nodes = _problem()
    calls = []
    evaluate = _evaluate(X, y, nodes)

    def counted(A, part):
        calls.append(len(part))
        return evaluate(A, part)
    reports = ch.HeldReports(counted, np.arange(8), np.array([8, 9]))
    A = np.ones((X.shape[1], 1)) * 0.1
    train, held = reports(A)
    reports(A.copy())
    assert reports.evaluations == 1 and calls == [8, 2]
    # the training nodes' whole report, the held-back nodes' loss and weight
    np.testing.assert_allclose(train, evaluate(A, np.arange(8)).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(held, evaluate(A, np.array([8, 9])).sum(axis=0)[:2],
                               rtol=1e-12)
    np.testing.assert_allclose(train[:2] + held, evaluate(A, np.arange(10)).sum(axis=0)[:2],
                               rtol=1e-12)


def test_multiclass_fit_evaluations_bounded_and_recorded():
    # The classifier's own fit: three classes (w of shape (d, 3)), 10 nodes;
    # the line searches on the multiclass hinge's kinks are bounded by 2
    # evaluations an iteration.  Every component is solved at 3 alpha and
    # gated (this rule's t is positive: closed).
    from skfed.online import DecentralizedKernelSGDClassifier
    rng = np.random.RandomState(0)
    X = rng.normal(size=(500, 6))
    g = np.repeat(np.arange(10), 50)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    clf = DecentralizedKernelSGDClassifier(kernel="rbf", gamma=0.5, max_epochs=3,
                                           random_state=0, join_function="auto").fit(
        X, y, groups=g)
    gate = clf.network_linear_gate_
    assert 2 <= gate["evaluations"][0] <= 2 * ls.ITERATIONS
    assert clf.network_linear_coef_[0].shape == (6, 3)
    assert gate["alpha_factor"][0] == 3.0
    assert gate["t"][0] > 0 and not gate["open"][0]
