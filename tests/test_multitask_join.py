"""add_nodes of the kernelized-MOCHA estimators (issue 32): a newcomer's
model against a SciPy solve of its own problem with the others fixed, the
fitted nodes bit-identical, the join's bytes in closed form."""

import numpy as np
import pytest
from scipy import optimize

from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.network import SimulatedNetwork
from skfed.privacy import DifferentialPrivacy

HEADER = 16


def _tasks(n_nodes=8, n_per=30, d=3, seed=0, regression=False):
    rng = np.random.RandomState(seed)
    centers = rng.normal(size=(2, d))
    X, y, g = [], [], []
    for t in range(n_nodes):
        w = centers[t % 2] + 0.3 * rng.normal(size=d)
        Xt = rng.normal(size=(n_per, d))
        f = Xt @ w + 0.1 * rng.normal(size=n_per)
        X.append(Xt)
        y.append(f if regression else (f > 0).astype(int))
        g.append(np.full(n_per, t))
    return np.concatenate(X), np.concatenate(y), np.concatenate(g)


def _split(X, y, g, n_new=2, k=12):
    nodes = np.unique(g)
    new = nodes[-n_new:]
    old = ~np.isin(g, new)
    keep = np.zeros(len(g), dtype=bool)
    for node in new:
        keep[np.flatnonzero(g == node)[:k]] = True
    return (X[old], y[old], g[old]), (X[keep], y[keep], g[keep])


def _design(X, scaling=1.0):
    return np.hstack([X, np.full((len(X), 1), scaling)])


def _logistic_solve(Z, y, mean, c, lam):
    """min_w (1/n) sum log(1 + exp(-y z.w)) + (lam / 2c) ||w - mean||^2 (SciPy)."""
    s = np.where(y == 1, 1.0, -1.0)

    def f(w):
        m = s * (Z @ w)
        r = w - mean
        value = np.mean(np.logaddexp(0.0, -m)) + lam / (2.0 * c) * r @ r
        grad = -(Z.T @ (s * 0.5 * (1.0 - np.tanh(0.5 * m)))) / len(s) + lam / c * r
        return value, grad

    res = optimize.minimize(f, mean.copy(), jac=True, method="L-BFGS-B",
                            options=dict(gtol=1e-12, ftol=1e-15, maxiter=10000))
    w = res.x
    for _ in range(5):  # Newton polish: L-BFGS stops at a gradient of ~1e-8
        p = 0.5 * (1.0 - np.tanh(0.5 * s * (Z @ w)))
        H = (Z.T * (p * (1.0 - p))) @ Z / len(s) + lam / c * np.eye(len(w))
        w = w - np.linalg.solve(H, f(w)[1])
    return w


def _fit_join(est, n_new=2, k=12, seed=0, regression=False):
    X, y, g = _tasks(seed=seed, regression=regression)
    (Xo, yo, go), (Xn, yn, gn) = _split(X, y, g, n_new, k)
    est.fit(Xo, yo, groups=go)
    before = {name: np.array(getattr(est, name), copy=True)
              for name in ("coef_", "intercept_", "task_covariance_", "omega_")}
    W_before = est._W.copy()
    n_bytes = est.n_bytes_sent_
    est.add_nodes(Xn, yn, groups=gn)
    return est, before, W_before, n_bytes, (Xo, yo, go), (Xn, yn, gn)


def test_shared_join_is_the_newcomers_own_problem_at_w0():
    est = FederatedMultiTaskClassifier(random_state=0)
    est, before, W_before, _, (Xo, _, _), (Xn, yn, gn) = _fit_join(est)
    assert est.omega_mode_ == "shared"
    m = len(before["coef_"])
    # the fitted nodes are bit-identical
    assert np.array_equal(est.coef_[:m], before["coef_"])
    assert np.array_equal(est.intercept_[:m], before["intercept_"])
    assert np.array_equal(est._W[:, :m], W_before[:, :m])
    assert np.array_equal(est._W[:, -1], W_before[:, -1])  # unseen nodes: w_0
    lam = 1.0 / (est.C * len(Xo))
    b = est.shared_weight_
    w0 = np.append(est.shared_coef_, est.shared_intercept_)
    for j, node in enumerate(np.unique(gn)):
        rows = gn == node
        # the newcomer's confidence: its samples against a fitted node's mean
        confidence = min(1.0, rows.sum() / (len(Xo) / m))
        assert confidence < 1.0
        mu = lam * m / (1.0 - b) / confidence
        w = _logistic_solve(_design(Xn[rows]), yn[rows], w0, lam / mu, lam)
        assert est.nodes_[m + j] == node
        np.testing.assert_allclose(est.coef_[m + j], w[:-1], atol=1e-6)
        np.testing.assert_allclose(est.intercept_[m + j], w[-1], atol=1e-6)


def test_learned_omega_join_is_the_block_inverse_prior():
    est = FederatedMultiTaskClassifier(omega="learn", random_state=0)
    est, before, W_before, _, (Xo, _, _), (Xn, yn, gn) = _fit_join(est)
    m = len(before["coef_"])
    assert np.array_equal(est.coef_[:m], before["coef_"])
    assert np.array_equal(est._W[:, :m], W_before[:, :m])
    sigma = est.task_covariance_
    np.testing.assert_array_equal(sigma[:m, :m], before["task_covariance_"])
    np.testing.assert_allclose(est.omega_, np.linalg.inv(sigma), rtol=1e-6, atol=1e-6)
    S_oo_inv = np.linalg.inv(sigma[:m, :m])
    lam = 1.0 / (est.C * len(Xo))
    W_old = W_before[0, :m]
    for j, node in enumerate(np.unique(gn)):
        s = sigma[:m, m + j]
        a = S_oo_inv @ s
        c = sigma[m + j, m + j] - s @ S_oo_inv @ s
        assert c > 0
        rows = gn == node
        w = _logistic_solve(_design(Xn[rows]), yn[rows], a @ W_old, c, lam)
        np.testing.assert_allclose(est.coef_[m + j], w[:-1], atol=1e-6)
        np.testing.assert_allclose(est.intercept_[m + j], w[-1], atol=1e-6)
        # the row is the fit's Omega step restricted to the newcomer, from
        # its independent model (NumPy: the square root of the Gram matrix,
        # eigenvalues floored at 1e-7 of the largest, trace-normalized)
        local = _logistic_solve(_design(Xn[rows]), yn[rows], np.zeros(W_old.shape[1]),
                                np.mean(np.diag(sigma[:m, :m])), lam)
        W = np.vstack([W_old, local])
        evals, evecs = np.linalg.eigh(W @ W.T)
        evals = np.maximum(evals, 1e-7 * evals[-1])
        S = (evecs * np.sqrt(evals)) @ evecs.T
        S /= np.trace(S)
        a_ref = np.linalg.solve(S[:m, :m], S[:m, m])
        c_ref = (S[m, m] - S[:m, m] @ a_ref) * np.trace(sigma[:m, :m]) / np.trace(S[:m, :m])
        # W_o has rank <= d' < m, so a is ill-conditioned: compare the mean
        np.testing.assert_allclose(a @ W_old, a_ref @ W_old, rtol=1e-5, atol=1e-6)
        confidence = min(1.0, rows.sum() / (len(Xo) / m))
        np.testing.assert_allclose(c, c_ref * confidence, rtol=1e-5)


def test_independent_regressor_join_is_ridge():
    est = FederatedMultiTaskRegressor(omega="independent", random_state=0)
    est, before, _, _, (Xo, _, _), (Xn, yn, gn) = _fit_join(est, regression=True)
    m = len(before["coef_"])
    assert np.array_equal(est.coef_[:m], before["coef_"])
    lam = 1.0 / (est.C * len(Xo))
    for j, node in enumerate(np.unique(gn)):
        rows = gn == node
        Z = _design(Xn[rows])
        n = len(Z)
        # min (1/n) sum (z.w - y)^2 / 2 + (lam m / 2) ||w||^2
        w = np.linalg.solve(Z.T @ Z / n + lam * m * np.eye(Z.shape[1]), Z.T @ yn[rows] / n)
        np.testing.assert_allclose(est.coef_[m + j], w[:-1], atol=1e-7)
        np.testing.assert_allclose(est.intercept_[m + j], w[-1], atol=1e-7)
    np.testing.assert_allclose(np.diag(est.task_covariance_)[m:], 1.0 / m)


@pytest.mark.parametrize("omega", ["auto", "learn", "independent"])
def test_join_bytes_closed_form(omega):
    est = FederatedMultiTaskClassifier(omega=omega, random_state=0)
    est, before, _, n_bytes, _, (Xn, _, gn) = _fit_join(est, n_new=3)
    m, n_new, P, d = len(before["coef_"]), 3, 1, Xn.shape[1] + 1
    down, up = {"auto": (P * d + 2, P * d), "independent": (1, P * d),
                "learn": (P * m * d + 2, P * d + m + 1)}[omega]
    expected = n_new * (down * 8 + HEADER + up * 8 + HEADER)
    assert est.join_communication_.total_bytes == expected
    assert est.n_bytes_sent_ == n_bytes + expected
    assert est.communication_.total_bytes == n_bytes


def test_dropped_newcomers_retry_with_the_same_models():
    clean = FederatedMultiTaskClassifier(random_state=0)
    clean = _fit_join(clean, n_new=3)[0]
    faulty = FederatedMultiTaskClassifier(
        random_state=0, network=SimulatedNetwork(drop_rate=0.5, random_state=1))
    X, y, g = _tasks()
    (Xo, yo, go), (Xn, yn, gn) = _split(X, y, g, 3, 12)
    faulty.fit(Xo, yo, groups=go)
    faulty.add_nodes(Xn, yn, groups=gn)
    assert faulty.join_communication_.n_rounds >= 1
    # the same messages, whatever the rounds they took
    assert faulty.join_communication_.total_bytes == clean.join_communication_.total_bytes
    np.testing.assert_allclose(faulty.coef_[-3:], clean.coef_[-3:], atol=0.05)


def test_multiclass_join_and_second_join():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(240, 3))
    y = np.argmax(X, axis=1)
    g = np.repeat(np.arange(8), 30)
    est = FederatedMultiTaskClassifier(random_state=0).fit(X[:180], y[:180], groups=g[:180])
    est.add_nodes(X[180:210], y[180:210], groups=g[180:210])
    coef = est.coef_.copy()
    est.add_nodes(X[210:], y[210:], groups=g[210:])
    assert est.coef_.shape == (8, 3, 3)
    assert np.array_equal(est.coef_[:7], coef)
    assert est.score(X[180:], y[180:], groups=g[180:]) > 0.8


def test_join_refusals():
    X, y, g = _tasks()
    est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
    with pytest.raises(ValueError, match="already in nodes_"):
        est.add_nodes(X[:5], y[:5], groups=g[:5])
    kernel = FederatedMultiTaskClassifier(kernel="rbf", approximation=None, max_rounds=5,
                                          random_state=0)
    with pytest.warns(Warning):
        kernel.fit(X[:120], y[:120], groups=g[:120])
    with pytest.raises(ValueError, match="exact kernel mode"):
        kernel.add_nodes(X[200:], y[200:], groups=g[200:])


def test_private_join_spends_nothing_and_uploads_nothing():
    X, y, g = _tasks()
    (Xo, yo, go), (Xn, yn, gn) = _split(X, y, g, 2, 12)
    est = FederatedMultiTaskClassifier(
        random_state=0, privacy=DifferentialPrivacy(epsilon=5.0, delta=1e-5, clip_norm=1.0))
    est.fit(Xo, yo, groups=go)
    spent = est.privacy_spent_.copy()
    coef = est.coef_.copy()
    est.add_nodes(Xn, yn, groups=gn)
    m, d = len(coef), Xn.shape[1] + 1
    assert np.array_equal(est.coef_[:m], coef)
    np.testing.assert_array_equal(est.privacy_spent_, np.append(spent, [0.0, 0.0]))
    assert est.join_communication_.total_bytes == 2 * ((m * d + 2) * 8 + HEADER)
    assert np.all(est.join_communication_.bytes_sent[m:m + 2] == 0)


def test_shared_regressor_newcomer_chooses_its_prior_by_leave_one_out():
    """NumPy: closed-form ridge toward w_0 for every fold and scale of c_n."""
    from skfed.multitask._join import _LOO_FOLDS, _LOO_SCALES

    est = FederatedMultiTaskRegressor(random_state=0)
    est, before, _, _, (Xo, _, _), (Xn, yn, gn) = _fit_join(est, k=8, regression=True)
    assert est.omega_mode_ == "shared"
    m = len(before["coef_"])
    assert np.array_equal(est.coef_[:m], before["coef_"])
    lam = 1.0 / (est.C * len(Xo))
    w0 = np.append(est.shared_coef_, est.shared_intercept_)

    def ridge(Z, y, c):
        n = len(Z)
        A = Z.T @ Z / n + lam / c * np.eye(Z.shape[1])
        return np.linalg.solve(A, Z.T @ y / n + lam / c * w0)

    chosen = []
    for j, node in enumerate(np.unique(gn)):
        rows = gn == node
        Z, y = _design(Xn[rows]), yn[rows]
        confidence = min(1.0, len(Z) / (len(Xo) / m))
        c = lam / (lam * m / (1.0 - est.shared_weight_) / confidence)
        losses = []
        folds = min(len(Z), _LOO_FOLDS)
        for scale in _LOO_SCALES:
            total = 0.0
            for f in range(folds):
                out = np.arange(f, len(Z), folds)
                w = ridge(np.delete(Z, out, 0), np.delete(y, out), c * scale)
                total += np.sum(0.5 * (Z[out] @ w - y[out]) ** 2)
            losses.append(total)
        scale = _LOO_SCALES[int(np.argmin(losses))]
        chosen.append(scale)
        w = ridge(Z, y, c * scale)
        np.testing.assert_allclose(est.coef_[m + j], w[:-1], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(est.intercept_[m + j], w[-1], rtol=1e-6, atol=1e-8)
    assert chosen  # (which scales won is data-dependent)
