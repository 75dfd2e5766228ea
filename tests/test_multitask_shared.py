"""The shared-component model (``omega="shared"``) against independent references.

* at the learned share ``b``, the fitted models equal libsvm's solution of
  the same kernel machine (the precomputed multi-task kernel ``(b + (1 - b)
  [t = u]) k(x, x') / m`` with per-sample weights ``1 / (lambda n_t)``), and
  the joint objective is the minimum over ``b`` of libsvm's optimum;
* the reported ``joint_objective_`` is the objective of the returned models
  (from ``coef_`` and ``shared_coef_``, recomputed here);
* its two ends: pooled data give the pooled SVM, unrelated nodes the
  per-node SVMs, each at the same ``C``;
* bytes equal a closed form; dropped nodes reach the same model.
"""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.baselines import pooled_data_bytes
from skfed.multitask import _shared
from skfed.network import SimulatedNetwork

HEADER = 16


def _symmetric_data(m=5, n_t=12, d=4, seed=0):
    """Related linear tasks, every sample also negated (``(x, y)`` and
    ``(-x, -y)``): libsvm's free intercept is then 0 at the optimum, so its
    SVM is the intercept-free model (``fit_intercept=False``) exactly."""
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(m), n_t)
    X = rng.normal(size=(m * n_t, d))
    w = rng.normal(size=d)
    U = 0.5 * rng.normal(size=(m, d))
    y = np.sign(np.einsum("ij,ij->i", X, w + U[g]) + 0.3 * rng.normal(size=m * n_t))
    X, y, g = np.vstack([X, -X]), np.concatenate([y, -y]), np.concatenate([g, g])
    order = np.argsort(g, kind="stable")
    return X[order], y[order].astype(int), g[order]


def _libsvm(X, y, g, b, lam):
    """libsvm on the multi-task kernel at share ``b``: (decision values, objective)."""
    m = g.max() + 1
    sigma = (b * np.ones((m, m)) + (1.0 - b) * np.eye(m)) / m
    K = sigma[np.ix_(g, g)] * (X @ X.T)
    counts = np.bincount(g)
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-10)
    svc.fit(K, y, sample_weight=1.0 / (lam * counts[g]))
    a = np.zeros(len(y))
    a[svc.support_] = svc.dual_coef_[0]
    f = K @ a + svc.intercept_[0]
    losses = np.maximum(0.0, 1.0 - y * f)
    objective = np.bincount(g, weights=losses / counts[g]).sum() + 0.5 * lam * a @ K @ a
    return f, objective, float(svc.intercept_[0])


def _fit_hinge(X, y, g, **params):
    return FederatedMultiTaskClassifier(
        kernel="linear", omega="shared", loss="hinge", fit_intercept=False, tol=1e-9,
        max_rounds=500, compression="none", random_state=0, **params,
    ).fit(X, y, groups=g)


def test_shared_model_equals_libsvm_on_the_multitask_kernel():
    X, y, g = _symmetric_data()
    est = _fit_hinge(X, y, g)
    b, lam = est.shared_weight_, 1.0 / len(y)
    assert 0.0 < b < 1.0
    f, objective, intercept = _libsvm(X, y, g, b, lam)
    assert abs(intercept) < 1e-8  # the symmetric data: no free intercept
    np.testing.assert_allclose(est.decision_function(X, groups=g), f, atol=1e-5)
    # the fixed-b objective of the returned model, from its attributes
    m = g.max() + 1
    w0, V = est.shared_coef_, est.coef_ - est.shared_coef_
    losses = np.maximum(0.0, 1.0 - y * est.decision_function(X, groups=g))
    ours = (np.bincount(g, weights=losses / np.bincount(g)[g]).sum()
            + 0.5 * lam * m * (w0 @ w0 / b + np.sum(V * V) / (1.0 - b)))
    assert ours == pytest.approx(objective, rel=1e-6)


def test_joint_objective_is_the_minimum_over_the_share_of_libsvm():
    X, y, g = _symmetric_data(seed=1)
    est = _fit_hinge(X, y, g)
    lam = 1.0 / len(y)
    # An independent 1-D search of the share with libsvm solving each point.
    best = minimize_scalar(lambda b: _libsvm(X, y, g, b, lam)[1], bounds=(1e-4, 1 - 1e-4),
                           method="bounded", options=dict(xatol=1e-7))
    assert est.joint_objective_ == pytest.approx(best.fun, rel=1e-6)
    assert est.shared_weight_ == pytest.approx(best.x, abs=1e-3)
    # the certificate holds: the gap is at most tol relative, and nonnegative
    assert 0.0 <= est.joint_duality_gap_ <= 1e-9 * est.joint_objective_


def _joint_objective(est, X, y, g, loss):
    """``loss(W) + (lam m / 2)(||w_0|| + ||V||_F)^2`` of the returned model,
    from ``coef_``, ``intercept_``, ``shared_coef_`` and ``shared_intercept_``."""
    m = len(est.nodes_)
    lam = 1.0 / (est.C * len(y))
    z = est.decision_function(X, groups=g)
    s = np.where(y == est.classes_[1], 1.0, -1.0)
    value = {"squared_hinge": np.maximum(0.0, 1.0 - s * z) ** 2,
             "logistic": np.logaddexp(0.0, -s * z)}[loss]
    counts = np.bincount(g)
    scale = est.intercept_scaling
    w0 = np.append(est.shared_coef_, est.shared_intercept_ / scale)
    W = np.column_stack([est.coef_, est.intercept_ / scale])
    V = W - w0
    return (np.bincount(g, weights=value / counts[g]).sum()
            + 0.5 * lam * m * (np.linalg.norm(w0) + np.linalg.norm(V)) ** 2)


def _assert_reported(reported, exact, compression):
    """The reported objective is the exact one; with compression the nodes'
    reports travel in float32 rounded up: an upper bound within 2^-23 of
    each (positive) term."""
    if compression == "none":
        assert reported == pytest.approx(exact, rel=1e-10)
    else:
        assert exact * (1 - 1e-12) <= reported <= exact * (1 + 2.0**-22)


@pytest.mark.parametrize("loss", ["squared_hinge", "logistic"])
@pytest.mark.parametrize("compression", ["auto", "none"])
def test_reported_joint_objective_is_the_returned_models(loss, compression):
    rng = np.random.RandomState(3)
    g = np.repeat(np.arange(6), [10, 14, 8, 12, 9, 11])
    X = rng.normal(size=(len(g), 3))
    y = (X[:, 0] + 0.4 * (g % 3) * X[:, 1] + 0.3 * rng.normal(size=len(g)) > 0).astype(int)
    est = FederatedMultiTaskClassifier(kernel="linear", omega="shared", loss=loss,
                                       compression=compression, random_state=0)
    est.fit(X, y, groups=g)
    _assert_reported(est.joint_objective_, _joint_objective(est, X, y, g, loss), compression)
    # ... the best of the evaluated points, certified within tol
    curve = est.joint_objective_curve_
    assert est.joint_objective_ == pytest.approx(np.nanmin(curve), rel=1e-12)
    assert est.joint_duality_gap_ <= est.tol * est.joint_objective_
    # Stopped by max_rounds: still the best evaluated model and its objective.
    short = FederatedMultiTaskClassifier(kernel="linear", omega="shared", loss=loss,
                                         compression=compression, max_rounds=3,
                                         random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        short.fit(X, y, groups=g)
    _assert_reported(short.joint_objective_, _joint_objective(short, X, y, g, loss),
                     compression)
    assert short.joint_objective_ == pytest.approx(np.nanmin(short.joint_objective_curve_),
                                                   rel=1e-12)


def test_identical_nodes_pool_and_unrelated_nodes_stay_apart():
    rng = np.random.RandomState(4)
    m, n_t, d = 8, 40, 3
    g = np.repeat(np.arange(m), n_t)
    X = rng.normal(size=(m * n_t, d))
    same = (X @ np.array([1.0, -1.0, 0.5]) + 0.2 * rng.normal(size=len(g)) > 0).astype(int)
    est = FederatedMultiTaskClassifier(kernel="linear", omega="shared", random_state=0)
    est.fit(X, same, groups=g)
    # one rule: most of the budget goes to the shared part, and the node
    # models are close to it
    assert est.shared_weight_ > 0.5
    personal = np.linalg.norm(est.coef_ - est.shared_coef_, axis=1)
    assert personal.max() < 0.3 * np.linalg.norm(est.shared_coef_)
    # opposite rules on half the nodes: little is shared
    flip = np.where(g % 2 == 0, same, 1 - same)
    est.fit(X, flip, groups=g)
    assert est.shared_weight_ < 0.1
    assert np.linalg.norm(est.shared_coef_) < 0.3 * np.linalg.norm(est.coef_, axis=1).min()


def test_unseen_node_gets_the_shared_model():
    X, y, g = _symmetric_data(seed=2)
    est = _fit_hinge(X, y, g)
    new = np.full(len(y), 99)
    np.testing.assert_allclose(est.decision_function(X, groups=new), X @ est.shared_coef_,
                               rtol=1e-6, atol=1e-8)


def test_regressor_equals_its_closed_form_at_the_learned_share():
    # Squared loss: at the share b the models solve a linear system (kernel
    # ridge with the multi-task kernel and weights 1 / n_t).
    rng = np.random.RandomState(5)
    m, n_t = 4, 15
    g = np.repeat(np.arange(m), n_t)
    X = rng.normal(size=(m * n_t, 3))
    y = X @ np.array([1.0, 2.0, -1.0]) + 0.5 * g * X[:, 0] + 0.1 * rng.normal(size=len(g))
    est = FederatedMultiTaskRegressor(kernel="linear", omega="shared", fit_intercept=False,
                                      tol=1e-10, max_rounds=500, compression="none",
                                      random_state=0).fit(X, y, groups=g)
    b, lam, n = est.shared_weight_, 1.0 / len(y), len(y)
    sigma = (b * np.ones((m, m)) + (1 - b) * np.eye(m)) / m
    K = sigma[np.ix_(g, g)] * (X @ X.T)
    weights = 1.0 / np.bincount(g)[g]
    # minimize sum_i w_i (f_i - y_i)^2 / 2 + lam / 2 a^T K a, f = K a:
    # (diag(w) K + lam I) a = diag(w) y
    a = np.linalg.solve(weights[:, None] * K + lam * np.eye(n), weights * y)
    np.testing.assert_allclose(est.predict(X, groups=g), K @ a, rtol=1e-6, atol=1e-6)


def test_multiclass_problems_share_one_budget():
    rng = np.random.RandomState(6)
    g = np.repeat(np.arange(5), 30)
    X = rng.normal(size=(150, 3))
    y = np.digitize(X[:, 0] + 0.2 * g * X[:, 1], [-0.5, 0.5])
    est = FederatedMultiTaskClassifier(kernel="linear", omega="shared", random_state=0)
    est.fit(X, y, groups=g)
    assert est.coef_.shape == (5, 3, 3) and est.shared_coef_.shape == (3, 3)
    assert np.ndim(est.shared_weight_) == 0
    assert est.joint_duality_gap_ <= est.tol * est.joint_objective_


@pytest.mark.parametrize("multi_class, quantized", [
    (None, 4 + 3),  # binary: a float32 scale and 3 values of 8 bits
    ("ovr", 3 * (4 + 3)),  # 3 classes, one vector (and scale) per class
    ("multinomial", 4 + 6),  # K - 1 = 2 class rows under one float32 scale
])
def test_shared_bytes_equal_closed_form(multi_class, quantized):
    # 3 nodes, d' = 3 (2 features and the bias), 8-bit messages; every round
    # evaluates one point: w_0's change and mu down (in the first round mu
    # only: every node holds w_0 = 0; the share, so mu, moves every round),
    # u_t's change, three floats and the residual's norm (1 byte) up; the end
    # of fit sends the round whose w_0 and own part to keep, an int32 index
    # (every node holds the evaluated points' w_0 exactly).  Under the
    # multinomial loss the class rows sum to zero: K - 1 rows travel as one
    # vector (skfed.multitask._multiclass.quantize_rows).
    rng = np.random.RandomState(7)
    g = np.repeat(np.arange(3), 10)
    X = rng.normal(size=(30, 2))
    if multi_class is None:
        y = (X[:, 0] > 0).astype(int)
        params = {}
    else:
        y = np.digitize(X[:, 0], [-0.4, 0.4])
        params = dict(multi_class=multi_class)
    est = FederatedMultiTaskClassifier(kernel="linear", omega="shared", tol=0, max_rounds=4,
                                       random_state=0, **params)
    with pytest.warns(ConvergenceWarning):
        est.fit(X, y, groups=g)
    if multi_class is not None:
        assert est.multi_class_ == multi_class
    down = HEADER + quantized + 8
    # float64 reports (tol = 0) and the residual's norm in 8 bits
    up = HEADER + quantized + 3 * 8 + 1
    final = HEADER + 4
    per_round = 3 * (down + up)
    first = 3 * (HEADER + 8 + up)
    np.testing.assert_array_equal(est.bytes_per_round_,
                                  [first] + [per_round] * 2 + [per_round + 3 * final])
    assert est.n_iter_ == 4


def test_dropped_nodes_reach_the_same_model():
    X, y, g = _symmetric_data(seed=8)
    perfect = _fit_hinge(X, y, g)
    dropped = _fit_hinge(X, y, g, network=SimulatedNetwork(drop_rate=0.3, random_state=0))
    assert dropped.n_iter_ > perfect.n_iter_
    np.testing.assert_allclose(dropped.decision_function(X, groups=g),
                               perfect.decision_function(X, groups=g), atol=1e-4)


@pytest.mark.parametrize("params, match", [
    (dict(kernel="rbf", approximation=None), "explicit features"),
    (dict(kernel="linear", omega_update_every=5), "omega_update_every"),
    (dict(kernel="linear", aggregation="add"), "aggregation"),
])
def test_shared_refuses_what_it_cannot_run(params, match):
    X, y, g = _symmetric_data()
    with pytest.raises(ValueError, match=match):
        FederatedMultiTaskClassifier(omega="shared", **params).fit(X, y, groups=g)


# ------------------------------------------- omega="auto": the share by validation
def _rule_data(related, seed=4, m=8, n_t=40, d=3):
    """Nodes with one rule (``related``) or each its own independent rule."""
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(m), n_t)
    X = rng.normal(size=(m * n_t, d))
    W = np.tile([1.0, -1.0, 0.5], (m, 1)) if related else rng.normal(size=(m, d))
    y = (np.einsum("ij,ij->i", X, W[g]) + 0.2 * rng.normal(size=len(g)) > 0).astype(int)
    return X, y, g


@pytest.fixture
def unlimited_selection(monkeypatch):
    """These tiny data cost more to fit than to upload raw, so at the default
    byte budget the defaults skip the selection; the rule is tested without it
    (and without the raw upload's ceiling on the refit)."""
    from skfed.multitask import _shared

    monkeypatch.setattr(_shared, "SELECTION_BYTE_BUDGET", np.inf)
    monkeypatch.setattr(_shared, "byte_ceiling", lambda *args: np.inf)


def test_share_selection_pools_identical_tasks_and_separates_unrelated_ones(
        unlimited_selection):
    # identical tasks: the validation picks (close to) full sharing
    X, y, g = _rule_data(related=True)
    est = FederatedMultiTaskClassifier(kernel="linear", random_state=0).fit(X, y, groups=g)
    sel = est.share_selection_
    assert sel["n_folds"] == 5  # 320 samples: every sample held out once
    np.testing.assert_array_equal(sel["shares"][1:], [0.9, 0.99, 0.5])
    assert np.isnan(sel["shares"][0])  # the share the training objective learns
    assert sel["selected"] == est.shared_weight_ == 0.99
    assert sel["validation_error"][2] == sel["validation_error"].min() < 0.04
    personal = np.linalg.norm(est.coef_ - est.shared_coef_, axis=1)
    assert personal.max() < 0.1 * np.linalg.norm(est.shared_coef_)
    # unrelated tasks: a small share (every node mostly its own); full
    # sharing is far worse on the held-out samples
    X, y, g = _rule_data(related=False)
    est = FederatedMultiTaskClassifier(kernel="linear", random_state=0).fit(X, y, groups=g)
    sel = est.share_selection_
    assert np.isnan(sel["selected"])  # the learned share, 0.015
    assert est.shared_weight_ < 0.05
    assert sel["validation_error"][0] == sel["validation_error"].min() < 0.1
    assert sel["validation_error"][2] > 0.3
    # the curves and the per-round bytes run over every fit of the selection
    assert len(est.bytes_per_round_) == est.n_iter_ == len(est.duality_gap_curve_)
    shared = FederatedMultiTaskClassifier(kernel="linear", omega="shared",
                                          random_state=0).fit(X, y, groups=g)
    assert est.n_bytes_sent_ > 5 * shared.n_bytes_sent_


def test_share_selection_stays_within_its_byte_budget(monkeypatch):
    # At the default budget (a quarter of the raw upload) these tiny data
    # skip the selection: omega="auto" is then omega="shared", at the same
    # bytes (without the personal selection that then runs from 5 nodes:
    # tests/test_multitask_small_nodes.py).
    monkeypatch.setattr(_shared, "_PERSONAL_MIN_NODES", 10**9)
    X, y, g = _rule_data(related=True)
    est = FederatedMultiTaskClassifier(kernel="linear", random_state=0).fit(X, y, groups=g)
    assert est.share_selection_ is None
    shared = FederatedMultiTaskClassifier(kernel="linear", omega="shared",
                                          random_state=0).fit(X, y, groups=g)
    assert est.n_bytes_sent_ == shared.n_bytes_sent_
    np.testing.assert_array_equal(est.coef_, shared.coef_)
    # 40 times the samples: the selection runs, and spends at most its
    # budget of the raw upload (plus the one fit it projects from)
    X, y, g = _rule_data(related=True, n_t=400, d=3)
    est = FederatedMultiTaskClassifier(kernel="linear", random_state=0).fit(X, y, groups=g)
    shared = FederatedMultiTaskClassifier(kernel="linear", omega="shared",
                                          random_state=0).fit(X, y, groups=g)
    assert est.share_selection_ is not None
    assert len(est.share_selection_["shares"]) >= 2
    raw = pooled_data_bytes(X, y, g)
    assert 0 < est.n_bytes_sent_ - shared.n_bytes_sent_ <= 2 * _shared.SELECTION_BYTE_BUDGET * raw


def test_share_selection_is_skipped_when_only_the_learned_share_fits(monkeypatch):
    # A budget of 1.5 typical fits admits the learned share's fit but not a
    # second candidate: no selection (it could only return the learned
    # share), the same model and bytes as omega="shared" (without the
    # personal selection that then runs from 5 nodes).
    monkeypatch.setattr(_shared, "_PERSONAL_MIN_NODES", 10**9)
    X, y, g = _rule_data(related=True, n_t=400, d=3)
    m = len(np.unique(g))
    # a round: w_0 down and v_t up (d + 1 float64 each), the report, headers
    per_round = m * (2 * (3 + 1) * 8 + (1 + _shared._REPORT_FLOATS) * 8 + 2 * _shared._HEADER)
    raw = pooled_data_bytes(X, y, g)
    monkeypatch.setattr(_shared, "SELECTION_BYTE_BUDGET",
                        1.5 * _shared._TYPICAL_ROUNDS * per_round / raw)
    est = FederatedMultiTaskClassifier(kernel="linear", compression="none",
                                       random_state=0).fit(X, y, groups=g)
    shared = FederatedMultiTaskClassifier(kernel="linear", omega="shared", compression="none",
                                          random_state=0).fit(X, y, groups=g)
    assert est.share_selection_ is None
    assert est.n_bytes_sent_ == shared.n_bytes_sent_
    np.testing.assert_array_equal(est.coef_, shared.coef_)


def test_selected_share_refit_equals_libsvm_at_that_share(unlimited_selection):
    # omega="auto" at its selected share is the fixed-share kernel machine:
    # libsvm on the multi-task kernel at that share (hinge, no intercept)
    X, y, g = _symmetric_data(seed=3)
    est = FederatedMultiTaskClassifier(
        kernel="linear", loss="hinge", fit_intercept=False, tol=1e-9, max_rounds=500,
        compression="none", random_state=0,
    ).fit(X, y, groups=g)
    b = est.shared_weight_
    assert b in (0.5, 0.9, 0.99)
    assert est.share_selection_["selected"] == b
    lam = 1.0 / len(y)
    f, objective, intercept = _libsvm(X, y, g, b, lam)
    assert abs(intercept) < 1e-8
    np.testing.assert_allclose(est.decision_function(X, groups=g), f, atol=1e-5)
    # joint_objective_ is the objective at the selected share (the one minimized)
    assert est.joint_objective_ == pytest.approx(objective, rel=1e-6)
    assert 0.0 <= est.joint_duality_gap_ <= 1e-9 * est.joint_objective_


@pytest.mark.parametrize("compression", ["none", "auto"])
def test_combined_dual_bound_stays_below_the_libsvm_optimum(monkeypatch, compression):
    """The certificate's dual bound from convex combinations of the
    evaluated points' dual variables never exceeds the optimum (libsvm's,
    minimized over the share), also under quantized copies, and it is at
    least the single-point bound (strictly above it at some round)."""
    X, y, g = _symmetric_data(seed=1)
    lam = 1.0 / len(y)
    best = minimize_scalar(lambda b: _libsvm(X, y, g, b, lam)[1], bounds=(1e-4, 1 - 1e-4),
                           method="bounded", options=dict(xatol=1e-7)).fun
    seen = []
    combined = _shared._SharedFit._combined_dual

    def record(self):
        bound = combined(self)
        single = self._dual_value(self.report[:, 1].sum(),
                                  np.sqrt(np.vdot(self.U.sum(axis=1), self.U.sum(axis=1)))
                                  + self.report[:, 3].sum(), self.report[:, 2].sum())
        seen.append((bound, float(single)))
        return bound

    monkeypatch.setattr(_shared._SharedFit, "_combined_dual", record)
    est = FederatedMultiTaskClassifier(
        kernel="linear", omega="shared", loss="hinge", fit_intercept=False, tol=1e-7,
        max_rounds=500, compression=compression, random_state=0).fit(X, y, groups=g)
    bounds, singles = np.array(seen).T
    assert len(bounds) == est.n_iter_ >= 5
    assert np.all(bounds <= best * (1 + 1e-9))
    assert np.all(bounds >= singles - 1e-12 * abs(best))
    assert np.any(bounds > singles + 1e-6 * abs(best))
    assert 0.0 <= est.joint_duality_gap_ <= 1e-7 * est.joint_objective_ * (1 + 1e-9)
    # the returned objective is within the certified gap of libsvm's optimum
    # (itself found to about 1e-7 by the search over the share)
    assert est.joint_objective_ == pytest.approx(best, rel=2e-7)


@pytest.mark.parametrize("compression", ["none", "auto"])
def test_combined_dual_bound_of_the_fixed_share_refit_stays_below_libsvm(
        monkeypatch, unlimited_selection, compression):
    """In the refit at the selected share (the fixed-share dual) every
    combined bound stays below libsvm's optimum at that share; the loose
    candidate fits do not combine."""
    X, y, g = _symmetric_data(seed=3)
    seen = []
    combined = _shared._SharedFit._combined_dual

    def record(self):
        seen.append((self.fixed, self.tol, combined(self)))
        return seen[-1][2]

    monkeypatch.setattr(_shared._SharedFit, "_combined_dual", record)
    est = FederatedMultiTaskClassifier(
        kernel="linear", loss="hinge", fit_intercept=False, tol=1e-8, max_rounds=500,
        compression=compression, random_state=0).fit(X, y, groups=g)
    b = est.shared_weight_
    assert est.share_selection_["selected"] == b
    objective = _libsvm(X, y, g, b, 1.0 / len(y))[1]
    fixed, tols, bounds = zip(*seen)
    assert set(fixed) == {b} and set(tols) == {1e-8}  # only the refit combines
    assert len(bounds) >= 3
    assert max(bounds) <= objective * (1 + 1e-9)
    assert max(bounds) >= objective * (1 - 1e-6)  # libsvm's primal: within ~1e-7


def test_combined_dual_bound_of_a_multinomial_quantized_refit_stays_below_its_objective(
        monkeypatch):
    """Small nodes, 4 classes, the defaults (``K - 1`` quantized rows, the
    personal selection's refit at a fixed share): every combined bound
    stays below the refit's objective at every evaluated point (each an
    upper bound on its optimum), and the last one certifies ``tol``."""
    rng = np.random.RandomState(0)
    m, n, d, K = 60, 15, 6, 4
    W, U = rng.normal(size=(K, d)), rng.normal(size=(m, K, d))
    g = np.repeat(np.arange(m), n)
    X = rng.normal(size=(m * n, d))
    y = np.einsum("ij,ikj->ik", X, W[None] + 0.3 * U[g]).argmax(axis=1)
    seen = []
    combined = _shared._SharedFit._combined_dual

    def record(self):
        seen.append((self, combined(self)))
        return seen[-1][1]

    monkeypatch.setattr(_shared._SharedFit, "_combined_dual", record)
    # (these nodes reach the raw upload's bytes before tol: certified without the ceiling)
    monkeypatch.setattr(_shared, "byte_ceiling", lambda *args: np.inf)
    est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
    assert "shared_part_share" in est.share_selection_  # the personal path's refit
    fits = {id(fit) for fit, _ in seen}
    assert len(fits) == 1 and len(seen) >= 3
    fit = seen[0][0]
    assert fit.fixed is not None
    # the refit's last len(seen) points (the curves also hold the learned fit's)
    joint = np.asarray(fit.joint_curve)[-len(seen):]
    assert np.nanmin(joint) == est.joint_objective_ == fit.best["joint"]
    bounds = np.array([bound for _, bound in seen])
    assert np.all(bounds <= est.joint_objective_ * (1 + 1e-12))
    assert est.joint_objective_ - bounds[-1] <= est.tol * est.joint_objective_
    assert est.joint_duality_gap_ == pytest.approx(est.joint_objective_ - fit.best_dual)
