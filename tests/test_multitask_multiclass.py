"""Multiclass multi-task learning: the multinomial (softmax) loss in the dual solver.

Every number is checked against an independent reference: the joint step
against SciPy's SLSQP on the simplex, the gap terms against NumPy, one node
without sharing against scikit-learn's multinomial ``LogisticRegression``,
and the shared model against SciPy L-BFGS on the same primal objective.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax, xlogy
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from skfed._core._multitask_fast import (
    Logistic,
    Multinomial,
    local_solve_linear,
    node_gap_terms,
    problem_gap_terms,
)
from skfed.multitask import FederatedMultiTaskClassifier


def _ordinal(n_nodes=6, per_node=40, d=4, seed=0):
    """Three ordered classes cut from one linear score, tilted per node."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_nodes * per_node, d))
    groups = np.repeat(np.arange(n_nodes), per_node)
    w = rng.normal(size=d)
    tilt = 0.3 * rng.normal(size=(n_nodes, d))
    score = np.einsum("ij,ij->i", X, w + tilt[groups]) + 0.3 * rng.normal(size=len(X))
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    return X, y, groups


# ------------------------------------------------------------- the joint step
def _step_reference(p, g, y, q):
    """max over pi in the simplex of -sum pi log pi + pi.p - q/2 ||pi - pi_old||^2 (SLSQP)."""
    K = len(p)
    pi_old = -np.asarray(g, float)
    pi_old[y] += 1.0

    def objective(pi):
        return -(-xlogy(pi, pi).sum() + pi @ p - 0.5 * q * np.sum((pi - pi_old) ** 2))

    res = minimize(objective, np.full(K, 1.0 / K), method="SLSQP",
                   bounds=[(1e-12, 1.0)] * K,
                   constraints=[{"type": "eq", "fun": lambda pi: pi.sum() - 1.0}],
                   options={"ftol": 1e-14, "maxiter": 500})
    g_new = -res.x
    g_new[y] += 1.0
    return g_new, -res.fun


@pytest.mark.parametrize("q", [0.0, 1e-3, 0.7, 5.0, 300.0])
@pytest.mark.parametrize("K", [3, 5])
def test_joint_step_matches_slsqp(q, K):
    rng = np.random.RandomState(K)
    loss = Multinomial()
    for trial in range(4):
        p = 2.0 * rng.normal(size=K)
        pi = rng.dirichlet(np.ones(K))
        y = trial % K
        g = -pi
        g[y] += 1.0
        g_new = loss.py_step_joint(p, g, y, q)
        assert g_new.sum() == pytest.approx(0.0, abs=1e-12)
        assert g_new[y] >= 0 and np.all(np.delete(g_new, y) <= 0)
        ref, ref_value = _step_reference(p, g, y, q)
        pi_new = -g_new
        pi_new[y] += 1.0
        value = -xlogy(pi_new, pi_new).sum() + pi_new @ p - 0.5 * q * np.sum((g_new - g) ** 2)
        assert value >= ref_value - 1e-9  # at least as good as SLSQP's optimum
        np.testing.assert_allclose(g_new, ref, atol=2e-5)


def test_joint_step_without_curvature_is_the_softmax():
    p = np.array([0.3, -1.2, 2.0, 0.0])
    g_new = Multinomial().py_step_joint(p, np.zeros(4), 1, 0.0)
    expected = -softmax(p)
    expected[1] += 1.0
    np.testing.assert_allclose(g_new, expected, rtol=1e-14, atol=1e-15)


def test_joint_step_extreme_margins_stay_finite():
    loss = Multinomial()
    for q in (1e-8, 1.0, 1e6):
        g = loss.py_step_joint(np.array([800.0, -800.0, 0.0]), np.zeros(3), 2, q)
        assert np.all(np.isfinite(g)) and g.sum() == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------ gap terms
def test_problem_gap_terms_against_numpy():
    rng = np.random.RandomState(1)
    K, n = 4, 30
    F = rng.normal(size=(K, n))
    labels = rng.randint(K, size=n)
    Y = np.where(np.arange(K)[:, None] == labels[None, :], 1.0, -1.0)
    pi = rng.dirichlet(np.ones(K), size=n).T
    G = (Y > 0) - pi
    sw = rng.uniform(0.5, 2.0, size=n)
    offsets = np.array([0, 12, 30], dtype=np.intp)
    out = np.zeros((2, 3))
    problem_gap_terms(F, Y, sw, G, offsets, Multinomial(), out)
    value = logsumexp(F, axis=0) - F[labels, np.arange(n)]
    conj = xlogy(pi, pi).sum(axis=0)
    cross = (G * F).sum(axis=0)
    for t, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
        np.testing.assert_allclose(
            out[t], [sw[lo:hi] @ value[lo:hi], sw[lo:hi] @ conj[lo:hi],
                     sw[lo:hi] @ cross[lo:hi]], rtol=1e-12)
    # outside the simplex: an infinite conjugate
    bad = G.copy()
    bad[labels[0], 0] = 1.5
    out = np.zeros((2, 3))
    problem_gap_terms(F, Y, sw, bad, offsets, Multinomial(), out)
    assert out[0, 1] == np.inf


def test_problem_gap_terms_binary_losses_bit_identical_to_rows():
    rng = np.random.RandomState(2)
    F, G = rng.normal(size=(3, 20)), 0.5 * rng.uniform(size=(3, 20))
    Y = np.where(rng.uniform(size=(3, 20)) > 0.5, 1.0, -1.0)
    G = Y * G
    sw = np.ones(20)
    offsets = np.array([0, 7, 20], dtype=np.intp)
    a, b = np.zeros((2, 3)), np.zeros((2, 3))
    problem_gap_terms(F, Y, sw, G, offsets, Logistic(), a)
    for k in range(3):
        node_gap_terms(F[k], Y[k], sw, G[k], offsets, Logistic(), b)
    assert np.array_equal(a, b)


def test_single_problem_solvers_refuse_the_joint_loss():
    X = np.ones((3, 2))
    args = (X, np.ones(3), np.ones(3), np.ones(3), np.zeros(3), np.zeros(2), np.zeros(2),
            np.zeros(3), np.zeros(2), np.zeros(3), 1.0, Multinomial(), 3, 0.0,
            np.ones(1, dtype=np.uint32), np.zeros(3, dtype=np.intp))
    with pytest.raises(ValueError, match="multinomial loss couples"):
        local_solve_linear(*args)
    with pytest.raises(ValueError, match="multinomial loss couples"):
        node_gap_terms(np.zeros(3), np.ones(3), np.ones(3), np.zeros(3),
                       np.array([0, 3], dtype=np.intp), Multinomial(), np.zeros((1, 3)))


# ----------------------------------------------------- estimator vs references
def test_one_node_equals_sklearn_multinomial_logistic_regression():
    X, y, _ = _ordinal(n_nodes=1, per_node=150, d=5, seed=3)
    C = 0.7
    clf = FederatedMultiTaskClassifier(
        C=C, omega="independent", fit_intercept=False, multi_class="multinomial", tol=1e-8,
        max_rounds=2000, random_state=0)
    with pytest.warns(Warning):  # one node: the SingleNodeWarning
        clf.fit(X, y)
    ref = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(X, y)
    assert clf.multi_class_ == "multinomial"
    np.testing.assert_allclose(clf.coef_[0], ref.coef_, atol=2e-4)
    # the reported objective is the returned model's: (1/n) sum loss + (lam/2)||W||^2
    Z = X @ clf.coef_[0].T
    lam = 1.0 / (C * len(X))
    objective = np.mean(logsumexp(Z, axis=1) - Z[np.arange(len(X)), y]) \
        + 0.5 * lam * np.sum(clf.coef_[0] ** 2)
    assert clf.objective_curve_[-1] == pytest.approx(objective, rel=1e-10)
    assert clf.duality_gap_curve_[-1] <= 1e-8 * objective + 1e-12
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba, ref.predict_proba(X), atol=1e-4)


def _shared_objective(X, y, groups, coef, intercept, w0, b0, lam, scaling, b_w, b):
    """The fixed-share objective of the returned model (independent NumPy)."""
    m = len(np.unique(groups))
    total = 0.0
    for t in range(m):
        rows = groups == t
        Z = X[rows] @ coef[t].T + intercept[t]
        total += np.mean(logsumexp(Z, axis=1) - Z[np.arange(rows.sum()), y[rows]])
    W0 = np.column_stack([w0, b0 / scaling])
    V = np.concatenate([coef - w0[None], (intercept - b0[None])[..., None] / scaling], axis=2)
    return total + 0.5 * lam * m * (np.sum(W0 ** 2) / b_w + np.sum(V ** 2) / (1.0 - b))


def test_shared_model_against_lbfgs_on_the_same_objective():
    X, y, groups = _ordinal(n_nodes=5, per_node=36, d=3, seed=4)
    C = 1.0
    clf = FederatedMultiTaskClassifier(
        C=C, omega="shared", multi_class="multinomial", tol=1e-7, max_rounds=3000,
        random_state=0)
    clf.fit(X, y, groups=groups)
    assert clf.omega_mode_ == "shared" and clf.multi_class_ == "multinomial"
    K, d, m = 3, X.shape[1], 5
    lam = 1.0 / (C * len(X))
    b = clf.shared_weight_
    # the returned model's joint objective (learned share: the joint one)
    Wn = np.concatenate([clf.coef_, clf.intercept_[..., None]], axis=2)
    W0 = np.column_stack([clf.shared_coef_, clf.shared_intercept_])
    V = Wn - W0[None]
    loss = 0.0
    for t in range(m):
        rows = groups == t
        Z = X[rows] @ clf.coef_[t].T + clf.intercept_[t]
        loss += np.mean(logsumexp(Z, axis=1) - Z[np.arange(rows.sum()), y[rows]])
    joint = loss + 0.5 * lam * m * (np.linalg.norm(W0) + np.linalg.norm(V)) ** 2
    assert clf.joint_objective_ == pytest.approx(joint, rel=1e-9)

    # SciPy on the same primal objective at the learned share (smooth there)
    Xa = np.column_stack([X, np.ones(len(X))])

    def f(theta):
        w0 = theta[:K * (d + 1)].reshape(K, d + 1)
        v = theta[K * (d + 1):].reshape(m, K, d + 1)
        value, gw0, gv = 0.0, np.zeros_like(w0), np.zeros_like(v)
        for t in range(m):
            rows = groups == t
            Z = Xa[rows] @ (w0 + v[t]).T
            P = softmax(Z, axis=1)
            P[np.arange(rows.sum()), y[rows]] -= 1.0
            value += np.mean(logsumexp(Z, axis=1) - Z[np.arange(rows.sum()), y[rows]])
            grad = P.T @ Xa[rows] / rows.sum()
            gw0 += grad
            gv[t] += grad
        value += 0.5 * lam * m * (np.sum(w0 ** 2) / b + np.sum(v ** 2) / (1.0 - b))
        gw0 += lam * m * w0 / b
        gv += lam * m * v / (1.0 - b)
        return value, np.concatenate([gw0.ravel(), gv.ravel()])

    res = minimize(f, np.zeros(K * (d + 1) * (m + 1)), jac=True, method="L-BFGS-B",
                   options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 20_000})
    w0_ref = res.x[:K * (d + 1)].reshape(K, d + 1)
    v_ref = res.x[K * (d + 1):].reshape(m, K, d + 1)
    # the joint optimum is the fixed-share optimum at the optimal share
    assert clf.joint_objective_ <= res.fun * (1 + 1e-6)
    assert clf.joint_objective_ - clf.joint_duality_gap_ <= res.fun + 1e-12
    np.testing.assert_allclose(W0, w0_ref, atol=2e-3)
    np.testing.assert_allclose(Wn, w0_ref[None] + v_ref, atol=2e-3)


def test_learned_omega_multinomial_converges_and_beats_ovr_on_ordinal():
    X, y, groups = _ordinal(n_nodes=6, per_node=60, d=4, seed=5)
    rng = np.random.RandomState(0)
    test = rng.uniform(size=len(X)) < 0.3
    scores = {}
    for mc in ("multinomial", "ovr"):
        clf = FederatedMultiTaskClassifier(omega="learn", multi_class=mc, random_state=0)
        clf.fit(X[~test], y[~test], groups=groups[~test])
        assert clf.multi_class_ == mc and clf.n_iter_ < 1000
        gaps = clf.duality_gap_curve_
        assert gaps[-1] <= 1e-2 * abs(clf.objective_curve_[-1])
        scores[mc] = clf.score(X[test], y[test], groups=groups[test])
    assert scores["multinomial"] >= scores["ovr"] - 0.02


def test_predict_proba_is_the_softmax_of_the_decision_function():
    X, y, groups = _ordinal(seed=6)
    clf = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=groups)
    assert clf.multi_class_ == "multinomial"
    D = clf.decision_function(X, groups=groups)
    assert D.shape == (len(X), 3)
    P = clf.predict_proba(X, groups=groups)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(P, softmax(D, axis=1), rtol=1e-12)
    assert np.array_equal(clf.predict(X, groups=groups), clf.classes_[P.argmax(axis=1)])


# -------------------------------------------------------------- the settings
def test_bad_multi_class_is_refused_naming_the_parameter():
    X, y, groups = _ordinal(seed=7)
    with pytest.raises(InvalidParameterError, match="multi_class"):
        FederatedMultiTaskClassifier(multi_class="crammer").fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="multi_class='multinomial' needs loss='logistic'"):
        FederatedMultiTaskClassifier(multi_class="multinomial", loss="hinge").fit(
            X, y, groups=groups)
    with pytest.raises(ValueError, match="multi_class='multinomial' needs a primal mode"):
        FederatedMultiTaskClassifier(multi_class="multinomial", kernel="rbf",
                                     approximation=None).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="aggregation='line_search'"):
        FederatedMultiTaskClassifier(multi_class="multinomial", omega="learn",
                                     aggregation="line_search").fit(X, y, groups=groups)


def test_auto_falls_back_to_ovr_where_multinomial_does_not_run():
    X, y, groups = _ordinal(seed=8)
    clf = FederatedMultiTaskClassifier(loss="squared_hinge", random_state=0)
    assert clf.fit(X, y, groups=groups).multi_class_ == "ovr"
    clf = FederatedMultiTaskClassifier(kernel="rbf", approximation=None, random_state=0,
                                       max_rounds=50)
    clf.fit(X[:90], y[:90], groups=groups[:90])
    assert clf.multi_class_ == "ovr"


def test_warm_start_across_strategies_is_refused():
    X, y, groups = _ordinal(seed=9)
    clf = FederatedMultiTaskClassifier(omega="learn", multi_class="ovr", warm_start=True,
                                       random_state=0).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="warm_start=True continues a fit"):
        clf.set_params(multi_class="multinomial").fit(X, y, groups=groups)


@pytest.mark.parametrize("omega", ["auto", "learn"])
def test_two_classes_do_not_depend_on_multi_class(omega):
    X, y, groups = _ordinal(seed=10)
    y = (y == 2).astype(int)
    coefs = []
    for mc in ("auto", "multinomial", "ovr"):
        clf = FederatedMultiTaskClassifier(omega=omega, multi_class=mc, random_state=0)
        clf.fit(X, y, groups=groups)
        assert clf.multi_class_ == "ovr"
        coefs.append(clf.coef_)
    assert np.array_equal(coefs[0], coefs[1]) and np.array_equal(coefs[0], coefs[2])


def test_nodes_joining_a_multinomial_fit_learn_the_multinomial_model():
    X, y, groups = _ordinal(n_nodes=8, per_node=60, seed=11)
    old = groups < 6
    clf = FederatedMultiTaskClassifier(random_state=0).fit(X[old], y[old], groups=groups[old])
    assert clf.multi_class_ == "multinomial"
    new = ~old
    train = new & (np.arange(len(X)) % 2 == 0)
    test = new & ~train
    clf.add_nodes(X[train], y[train], groups=groups[train])
    P = clf.predict_proba(X[test], groups=groups[test])
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    # the newcomers' models are personal multinomial models near the shared one
    joined = clf.score(X[test], y[test], groups=groups[test])
    shared = np.mean(np.argmax(X[test] @ clf.shared_coef_.T + clf.shared_intercept_, axis=1)
                     == y[test])
    assert joined >= shared - 0.05 and joined > 0.6


# ------------------------------------------------- K - 1 class rows travel
HEADER = 16


def test_quantize_rows_sends_k_minus_one_rows_under_one_scale():
    from types import SimpleNamespace

    from skfed.multitask._compression import quantize, quantized_bytes
    from skfed.multitask._multiclass import quantize_rows, quantized_rows_bytes, rows_sent

    rng = np.random.RandomState(0)
    x = rng.normal(size=(4, 5, 7))
    x -= x.mean(axis=0)  # class rows summing to zero, as the dual vectors do
    multinomial = SimpleNamespace(n_problems=4, multinomial=True)
    ovr = SimpleNamespace(n_problems=4, multinomial=False)
    assert rows_sent(multinomial) == 3 and rows_sent(ovr) == 4
    q = quantize_rows(x, 8, multinomial)
    # the receiver's rows sum to zero exactly; the K - 1 sent rows are the
    # rounding of one message per node: one scale over its 3 x 7 values
    np.testing.assert_array_equal(q.sum(axis=0), 0.0)
    scale = np.abs(x[:-1]).max(axis=(0, 2))  # (5,): one per message
    assert np.all(np.abs(q[:-1] - x[:-1]) <= scale[None, :, None] / (2 * 127) * (1 + 1e-12))
    np.testing.assert_allclose(np.abs(q[:-1]).max(axis=(0, 2)), scale, rtol=1e-12)
    # the last row's error is the sum of the others' (at most 3 half-levels)
    assert np.all(np.abs(q[-1] - x[-1]) <= 3 * scale[:, None] / (2 * 127) * (1 + 1e-12))
    # one-vs-rest: the binary rows as before, each with its scale
    np.testing.assert_array_equal(quantize_rows(x, 8, ovr), quantize(x, 8))
    assert quantized_rows_bytes(multinomial, 7, 8) == quantized_bytes(21, 8) == 8 + 21
    assert quantized_rows_bytes(ovr, 7, 8) == 4 * quantized_bytes(7, 8)
    # the shared model's quantizer (a float32 scale): the same K - 1 rows of
    # one scale, 4 + ceil(3 x 7 x 5 / 8) bytes; one-vs-rest as mtl2's rows
    from skfed.multitask._shared_messages import (quantize_float32_scale,
                                                  quantized_vector_bytes)
    q32 = quantize_rows(x, 5, multinomial, quantize_float32_scale)
    np.testing.assert_array_equal(q32.sum(axis=0), 0.0)
    flat = np.moveaxis(x[:-1], 0, -2).reshape(5, 21)
    np.testing.assert_array_equal(np.moveaxis(q32[:-1], 0, -2).reshape(5, 21),
                                  quantize_float32_scale(flat, 5))
    np.testing.assert_array_equal(quantize_rows(x, 5, ovr, quantize_float32_scale),
                                  quantize_float32_scale(x, 5))
    assert quantized_rows_bytes(multinomial, 7, 5, quantized_vector_bytes) == 4 + 14
    assert quantized_rows_bytes(ovr, 7, 5, quantized_vector_bytes) == 4 * (4 + 5)


@pytest.mark.parametrize("compression, vector", [(5, 8 + 5), ("none", 2 * 4 * 8)])
def test_multinomial_linear_mode_bytes_equal_closed_form(compression, vector):
    # omega="independent" (rho = 1): every round each node gets w_t and sends
    # Delta v_t: K - 1 = 2 class rows of d + 1 = 4 values (compressed: one
    # float64 scale and 8 values of 5 bits, 5 bytes) and its three gap terms;
    # Sigma's two floats go out once; the final w_t in float64 (2 rows).
    X, y, groups = _ordinal(n_nodes=3, per_node=30, d=3, seed=13)
    clf = FederatedMultiTaskClassifier(
        kernel="linear", omega="independent", tol=0, max_rounds=3, random_state=0,
        compression=compression,
    )
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y, groups=groups)
    assert clf.multi_class_ == "multinomial"
    down, up, sigma_info = HEADER + vector, HEADER + vector + 24, 16
    final = HEADER + 2 * 4 * 8
    per_round = 3 * (down + up)
    np.testing.assert_array_equal(
        clf.bytes_per_round_, [per_round + 3 * sigma_info, per_round, per_round + 3 * final])
    # the model the nodes hold: class rows summing to zero
    np.testing.assert_allclose(clf.coef_.sum(axis=1), 0.0, atol=1e-12)


def test_multinomial_shared_bytes_equal_closed_form():
    # As test_multitask_shared's closed form with 3 classes: w_0's change
    # and u_t's change are 2 class rows of d' = 3 values under one float32
    # scale (4 + 6 bytes), the reports three float64 (tol=0) and the
    # residual's norm in one byte, mu one float, the kept round an int32.
    X, y, groups = _ordinal(n_nodes=3, per_node=10, d=2, seed=7)
    est = FederatedMultiTaskClassifier(kernel="linear", omega="shared", tol=0, max_rounds=4,
                                       random_state=0)
    with pytest.warns(ConvergenceWarning):
        est.fit(X, y, groups=groups)
    assert est.multi_class_ == "multinomial"
    quantized = 4 + 6
    down = HEADER + quantized + 8
    up = HEADER + quantized + 3 * 8 + 1
    final = HEADER + 4
    per_round = 3 * (down + up)
    first = 3 * (HEADER + 8 + up)
    np.testing.assert_array_equal(est.bytes_per_round_,
                                  [first] + [per_round] * 2 + [per_round + 3 * final])


@pytest.mark.parametrize("omega", ["shared", "independent"])
def test_multinomial_compressed_fit_reaches_the_float64_optimum(omega):
    # The K - 1 quantized rows change only the rounding of the messages: the
    # fits certify the same optimum as the float64 messages (whose values
    # are those of the K-row protocol) to the solver's tolerance.
    X, y, groups = _ordinal(n_nodes=6, per_node=40, seed=5)
    fits = [FederatedMultiTaskClassifier(kernel="linear", omega=omega, compression=c,
                                         tol=1e-6, random_state=0).fit(X, y, groups=groups)
            for c in (8, "none")]
    assert all(f.multi_class_ == "multinomial" for f in fits)
    compressed, exact = fits
    assert compressed.n_bytes_sent_ < exact.n_bytes_sent_
    np.testing.assert_allclose(compressed.decision_function(X, groups=groups),
                               exact.decision_function(X, groups=groups), atol=5e-3)
    np.testing.assert_allclose(compressed.coef_.sum(axis=1), 0.0, atol=1e-10)
