"""Defaults of the multi-task model on small nodes: the personal selection
(omega="auto" when the share selection does not fit its byte budget) and
the exact kernel mode's byte bound behind approximation="auto"."""

import numpy as np
import pytest

import skfed.multitask._personal as personal
import skfed.multitask._shared as shared
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.multitask._base import exact_mode_bytes


def _alike(n_nodes=30, n=12, d=4, seed=0):
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.randn(n_nodes * n, d)
    W = rng.randn(1, d) + 0.2 * rng.randn(n_nodes, d)
    y = (X * W[g]).sum(1) + 0.5 * rng.randn(n_nodes * n)
    return X, y, g


def _ridge_part(Z, r, mu, n=None):
    """argmin_v (1/n) sum 0.5 (z.v - r)^2 + (mu / 2) ||v||^2 (closed form; n
    the node's samples, also on a training fold)."""
    n = len(r) if n is None else n
    return np.linalg.solve(Z.T @ Z / n + mu * np.eye(Z.shape[1]), Z.T @ r / n)


def _two_weight_ridge(Z, y, g, lam, b_w, b):
    """The shared model's fixed-share problem for the squared loss, solved in
    closed form: argmin over (w0, V) of sum_t (1 / n_t) sum_i 0.5 (z.(w0 + v_t)
    - y)^2 + (lam m / 2) (||w0||^2 / b_w + ||V||^2 / (1 - b))."""
    m, d = int(g.max()) + 1, Z.shape[1]
    n_t = np.bincount(g)
    A = np.zeros((len(y), (m + 1) * d))
    A[:, :d] = Z
    for i, t in enumerate(g):
        A[i, (t + 1) * d:(t + 2) * d] = Z[i]
    w = 1.0 / n_t[g]
    penalty = np.r_[np.full(d, lam * m / b_w), np.full(m * d, lam * m / (1.0 - b))]
    theta = np.linalg.solve(A.T @ (w[:, None] * A) + np.diag(penalty), A.T @ (w * y))
    return theta[:d], theta[d:].reshape(m, d)


def _fixed_share_objective(loss, Z, y, g, lam, b_w, b, w0, V):
    m = V.shape[0]
    f = np.einsum("id,id->i", Z, w0 + V[g])
    data = sum(loss(f[g == t], y[g == t]).mean() for t in range(m))
    return data + 0.5 * lam * m * (w0 @ w0 / b_w + np.sum(V * V) / (1.0 - b))


def _squared(f, y):
    return 0.5 * (f - y) ** 2


def _logistic(f, y):
    return np.logaddexp(0.0, -y * f)


@pytest.mark.parametrize("samples, n_folds, d", [(2000, 5, 4), (100, 2, 4), (2000, 5, 16)])
def test_personal_selection_against_closed_form(monkeypatch, samples, n_folds, d):
    """Squared loss: every candidate's validation error at the learned share's
    shared model, then the returned model against the closed-form optimum of
    the fixed-share problem it is refitted to (folds until ``samples`` were
    held out: 72 a fold here), and joint_objective_ as that problem's
    objective of the returned model.  Nodes of 12 samples, d = 4 or 16
    features (the curvature estimate's span factor ``min(1, n / d')`` is 1
    at d' = 5, 12 / 17 at d' = 17)."""
    monkeypatch.setattr(personal, "_PERSONAL_VALIDATION_SAMPLES", samples)
    # the learned share's fit to tol (its shared model is then the optimum
    # at the learned share, in closed form below)
    monkeypatch.setattr(shared, "_PERSONAL_TOL_FACTOR", 1.0)
    monkeypatch.setattr(shared, "_PERSONAL_BYTE_BUDGET", np.inf)
    # ... and without the raw upload's ceiling (tol=1e-9 costs more)
    monkeypatch.setattr(shared, "byte_ceiling", lambda *args: np.inf)
    folds = []
    real = personal.validation_folds

    def record(*args):
        out = real(*args)
        folds.append(out)
        return out

    monkeypatch.setattr(personal, "validation_folds", record)
    X, y, g = _alike(d=d)
    m, n = 30, 12
    est = FederatedMultiTaskRegressor(random_state=0, tol=1e-9).fit(X, y, groups=g)
    sel = est.share_selection_
    # The share selection's fits would exceed its budget: the personal one ran.
    assert len(sel["shares"]) == len(personal.PERSONAL_GRID)
    assert not np.isnan(sel["shares"]).any()
    lam = 1.0 / (m * n)
    b_learned = sel["shared_part_share"]
    Z = np.hstack([X, np.ones((m * n, 1))])
    # the learned share's model: the optimum at its share, and its residuals
    # (the squared loss's dual variables)
    w0, V0 = _two_weight_ridge(Z, y, g, lam, b_learned, b_learned)
    residual = y - np.einsum("id,id->i", Z, w0 + V0[g])
    # each node validates at w0 less its held-out samples' residual-weighted
    # rows over n_t (lambda m / b + (1 + (m - 1) min(1, n / d')) lambda m / (1 - b))
    curvature = lam * m / b_learned + (1 + (m - 1) * min(1.0, n / (d + 1))) * lam * m / (
        1.0 - b_learned)
    mus = lam * m / (1.0 - b_learned) * np.asarray(personal.PERSONAL_GRID)
    np.testing.assert_allclose(sel["shares"], 1.0 - lam * m / mus)
    fold = folds[-1]
    assert sel["n_folds"] == n_folds
    errors = np.zeros((len(mus), m))
    for c, mu in enumerate(mus):
        for t in range(m):
            Zt, yt, ft = Z[g == t], y[g == t], fold[g == t]
            rt = residual[g == t]
            for f in range(n_folds):
                tr, va = ft != f, ft == f
                w0_t = w0 - (rt[va] @ Zt[va]) / (n * curvature)
                v = _ridge_part(Zt[tr], yt[tr] - Zt[tr] @ w0_t, mu, n)
                errors[c, t] += ((Zt[va] @ (w0_t + v) - yt[va]) ** 2).sum()
    held = np.array([np.count_nonzero(fold[g == t] < n_folds) for t in range(m)])
    expected = errors.sum(axis=1) / held.sum()  # pooled over the held-out samples
    np.testing.assert_allclose(sel["validation_error"], expected, rtol=1e-6)
    # the lowest pooled validation error (the loss, the tie-breaker, is half of it)
    chosen = int(np.argmin(expected))
    assert est.shared_weight_ == pytest.approx(sel["shares"][chosen])
    assert chosen > 0  # these nodes are alike: more shrinkage than the learned share
    # The returned model: the optimum of the fixed-share problem with the
    # shared part's share the learned one and the personal parts' the chosen.
    b = sel["shares"][chosen]
    w0_opt, V_opt = _two_weight_ridge(Z, y, g, lam, b_learned, b)
    W = w0_opt + V_opt
    np.testing.assert_allclose(est.coef_, W[:, :d], atol=1e-6)
    np.testing.assert_allclose(est.intercept_, W[:, d], atol=1e-6)
    np.testing.assert_allclose(est.shared_coef_, w0_opt[:d], atol=1e-6)
    # joint_objective_ is the returned model's objective, and its gap certifies it
    w0_ret = np.r_[est.shared_coef_, est.shared_intercept_]
    V_ret = np.column_stack([est.coef_, est.intercept_]) - w0_ret
    returned = _fixed_share_objective(_squared, Z, y, g, lam, b_learned, b, w0_ret, V_ret)
    optimum = _fixed_share_objective(_squared, Z, y, g, lam, b_learned, b, w0_opt, V_opt)
    assert est.joint_objective_ == pytest.approx(returned, rel=1e-10)
    # (both computed in float64: the returned model may sit at the optimum
    # to its rounding)
    rounding = 1e-14 * abs(optimum)
    assert -rounding <= est.joint_objective_ - optimum <= est.joint_duality_gap_ + rounding
    assert est.joint_duality_gap_ <= 1e-9 * est.joint_objective_
    # the reported Sigma is that problem's: (b_w 1 1^T + (1 - b) I) / m
    np.testing.assert_allclose(
        est.task_covariance_, (b_learned * np.ones((m, m)) + (1 - b) * np.eye(m)) / m)
    # its messages are in the fit's rounds
    assert len(est.bytes_per_round_) == est.n_iter_ == len(est.duality_gap_curve_)


def test_personal_selection_returns_certified_model_logistic():
    """Logistic loss (no closed form): joint_objective_ is the fixed-share
    objective of the returned coef_ and intercept_ (NumPy), and the reported
    gap bounds its distance to that problem's optimum, found by SciPy's
    L-BFGS on the same objective.  At the defaults these 30 nodes of 12
    samples reach the raw upload's bytes before tol: the refit stops there
    (a ConvergenceWarning naming it) and its gap still bounds the distance."""
    from scipy.optimize import minimize
    from sklearn.exceptions import ConvergenceWarning

    X, y, g = _alike()
    y = np.where(y > np.median(y), 1, -1)
    m, n, d = 30, 12, 4
    with pytest.warns(ConvergenceWarning, match="raw upload's bytes"):
        est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
    assert est.n_bytes_sent_ <= m * n * (d * 8 + 8) + m * 16
    sel = est.share_selection_
    assert len(sel["shares"]) == len(personal.PERSONAL_GRID)
    lam = 1.0 / (m * n)
    b_w, b = sel["shared_part_share"], est.shared_weight_
    Z = np.hstack([X, np.ones((m * n, 1))])
    w0_ret = np.r_[est.shared_coef_.ravel(), est.shared_intercept_]
    V_ret = np.column_stack([est.coef_, est.intercept_]) - w0_ret
    returned = _fixed_share_objective(_logistic, Z, y, g, lam, b_w, b, w0_ret, V_ret)
    # the nodes' reports travel in float32, rounded up (compression="auto")
    assert returned * (1 - 1e-12) <= est.joint_objective_ <= returned * (1 + 2.0**-22)

    def objective(theta):
        return _fixed_share_objective(_logistic, Z, y, g, lam, b_w, b, theta[:d + 1],
                                      theta[d + 1:].reshape(m, d + 1))

    optimum = minimize(objective, np.r_[w0_ret, V_ret.ravel()], method="L-BFGS-B",
                       options=dict(ftol=1e-15, gtol=1e-12, maxiter=10000)).fun
    assert optimum <= est.joint_objective_ + 1e-12
    assert est.joint_objective_ - optimum <= est.joint_duality_gap_ + 1e-12
    assert est.tol * est.joint_objective_ < est.joint_duality_gap_  # stopped by the ceiling
    # the last entry of the joint curve is a refit round, at the returned objective
    assert est.joint_objective_curve_.min() <= est.joint_objective_ + 1e-12


@pytest.mark.parametrize("Estimator, weight, extra", [
    # the squared error (twice the loss): one float32 a candidate
    (FederatedMultiTaskRegressor, 1.0, 2 * 4),
    # the loss in float32 and the error as a count of the node's 12 held-out
    # samples, index_bits(13) = 4 bits, after one flag bit: 1 + 4 = 5 bits
    # (1 byte) for one candidate, 1 + 12 = 13 bits (2 bytes) for three
    (FederatedMultiTaskClassifier, 1.0, 2 * 4 + 1),
    # weights other than 1: the error in float32 too (the flag bit: 1 byte)
    (FederatedMultiTaskClassifier, 2.0, 2 * (4 + 4)),
])
def test_personal_selection_bytes(monkeypatch, Estimator, weight, extra):
    """Each candidate costs every node its validation sums (in one message
    either way): a duplicated candidate (same choice, same refit) adds
    exactly that."""
    X, y, g = _alike()
    if Estimator is FederatedMultiTaskClassifier:
        y = (y > np.median(y)).astype(int)
    sw = np.full(len(y), weight)
    monkeypatch.setattr(personal, "PERSONAL_GRID", (1.0,))
    one = Estimator(random_state=0).fit(X, y, groups=g, sample_weight=sw)
    monkeypatch.setattr(personal, "PERSONAL_GRID", (1.0, 1.0, 1.0))
    three = Estimator(random_state=0).fit(X, y, groups=g, sample_weight=sw)
    assert three.n_iter_ == one.n_iter_
    np.testing.assert_array_equal(three.coef_, one.coef_)
    assert three.n_bytes_sent_ - one.n_bytes_sent_ == 30 * extra
    # the learned share alone: refitted at the learned share
    assert one.shared_weight_ == pytest.approx(one.share_selection_["shares"][0])
    assert one.share_selection_["shared_part_share"] == pytest.approx(one.shared_weight_)


def test_share_selection_unchanged_on_large_nodes():
    """Nodes large enough for the share selection's fits keep it (candidate
    fits, the learned share first, NaN)."""
    rng = np.random.RandomState(1)
    g = np.repeat(np.arange(3), 600)
    X = rng.randn(1800, 3)
    y = (X[:, 0] + 0.3 * rng.randn(1800) > 0).astype(int)
    est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
    assert np.isnan(est.share_selection_["shares"][0])


@pytest.mark.parametrize("n_nodes, n, n_classes, loss", [
    (4, 6, 2, "hinge"), (4, 6, 2, "logistic"), (6, 3, 3, "hinge"), (10, 2, 2, "hinge"),
])
def test_exact_mode_bytes_bound(n_nodes, n, n_classes, loss):
    """The exact kernel mode's counted bytes are within exact_mode_bytes at the
    fit's rounds (and not far below it: the bound is what the auto rule weighs)."""
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.randn(n_nodes * n, 3)
    y = np.arange(n_nodes * n) % n_classes
    est = FederatedMultiTaskClassifier(kernel="rbf", approximation=None, loss=loss,
                                       random_state=0).fit(X, y, groups=g)
    P = 1 if n_classes == 2 else n_classes
    bound = exact_mode_bytes(n_nodes * n, 3, n_nodes, P, 8, est.n_iter_, est.n_iter_)
    assert est.n_bytes_sent_ <= bound
    assert est.n_bytes_sent_ >= 0.3 * bound
    raw = n_nodes * n * (3 * 8 + 8) + n_nodes * 16
    # the documented bound: rows to every node plus the per-round changes
    assert bound > (n_nodes - 1) * raw


def test_auto_mode_never_exact_when_features_send_less():
    """Many one- and two-sample nodes: the exact mode relays every dual
    change to every node each round; approximation='auto' takes random
    features, which send less."""
    rng = np.random.RandomState(0)
    n_nodes, n = 40, 2
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.randn(n_nodes * n, 5)
    y = (X[:, 0] > 0).astype(int)
    auto = FederatedMultiTaskClassifier(kernel="rbf", random_state=0).fit(X, y, groups=g)
    exact = FederatedMultiTaskClassifier(kernel="rbf", approximation=None,
                                         random_state=0).fit(X, y, groups=g)
    assert auto.approximation_ == "rff"
    assert auto.n_bytes_sent_ < exact.n_bytes_sent_


@pytest.mark.parametrize("case", ["noisy-advantage", "tie"])
def test_personal_selection_takes_the_lowest_pooled_error(monkeypatch, case):
    """The weight of the lowest pooled validation error is chosen however
    noisy its advantage over the nodes (the former rule kept the learned
    weight unless another beat it by one standard error), and a tie in
    error goes to the lower loss.  The nodes' validation sums are replaced
    by crafted ones: per fold and held-out weight ``w_t`` (2 or 3 samples of
    a node's 12) an error of ``0.5 w_t``, and for candidate 3 ``0.45 w_t +
    a_t`` with ``a_t = +-0.8`` summing to zero over the 30 nodes (pooled
    advantage 0.05; standard error of the paired difference over the nodes
    ``sqrt(30 (5 x 0.8)^2 30 / 29) / 360 = 0.062``, more than the
    advantage); with ``case="tie"`` candidates 2 and 3 share candidate 3's
    errors and 3 has the lower loss."""
    calls = []
    n_candidates = len(personal.PERSONAL_GRID)

    def crafted(nodes, sw_val, loss):
        c = len(calls) % n_candidates
        calls.append(c)
        w = np.add.reduceat(sw_val, nodes.layout.offsets[:-1])
        a = 0.8 * np.where(np.arange(nodes.m) % 2 == 0, 1.0, -1.0)
        err = 0.5 * w
        if c == 3 or (case == "tie" and c == 2):
            err = 0.45 * w + a
        lss = err * (0.4 if c == 3 else 0.5)
        return err, lss

    monkeypatch.setattr(personal, "validation_sums", crafted)
    X, y, g = _alike()
    est = FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    sel = est.share_selection_
    assert len(calls) == n_candidates * sel["n_folds"]
    # the pooled error the server ranks: 0.45 for candidate 3 (and 2 in a tie)
    expected = np.full(n_candidates, 0.5)
    expected[3] = 0.45
    if case == "tie":
        expected[2] = 0.45
    np.testing.assert_allclose(sel["validation_error"], expected, rtol=1e-12)
    assert sel["validation_loss"][3] < sel["validation_loss"][2]
    assert est.shared_weight_ == pytest.approx(sel["shares"][3])
    assert sel["selected"] == pytest.approx(sel["shares"][3])


def test_no_personal_selection_on_few_nodes():
    """Below _PERSONAL_MIN_NODES nodes (the shared model weighs each held-out
    sample too much) the learned share is kept, as before."""
    X, y, g = _alike(n_nodes=shared._PERSONAL_MIN_NODES - 1)
    est = FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    assert est.share_selection_ is None


def test_one_sample_nodes_keep_the_learned_personal_weight_without_warnings():
    # 600 nodes of one sample: no node can hold a sample out, so the
    # personal selection validates nothing and keeps the learned weight,
    # without numpy's "Mean of empty slice" warnings leaking to the user.
    import warnings

    from skfed.multitask import FederatedMultiTaskClassifier

    rng = np.random.RandomState(0)
    X = rng.randn(600, 5)
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=np.arange(600))
    selection = est.share_selection_
    assert selection["n_folds"] == 0
    assert np.isnan(selection["validation_error"]).all()
    assert selection["selected"] == selection["shares"][0] == selection["shared_part_share"]
