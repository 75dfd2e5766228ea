"""What MOCHA's ``sample_weight`` means: a weight multiplies the sample's loss term.

* one node, no intercept, ``omega="independent"``: the objective is
  scikit-learn's ``C sum_i s_i loss_i + ||w||^2 / 2`` (``lam = 1 / (C S)``,
  ``S`` the total weight), so the fit equals ``LogisticRegression`` and
  ``LinearSVC`` given the same weights (a weight is a per-sample ``C``);
* an integer weight equals repeating the row, weight 0 equals dropping it,
  wherever the fit depends on the rows only through that objective: the
  linear kernel (every Omega mode, both estimators), the exact kernel mode
  and random features with a fixed ``gamma``;
* where the fit reads the rows themselves (``gamma="scale"``: their
  variance), repeating a row is not the same as weighting it, as the
  docstring says.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.datasets import make_related_tasks
from skfed.multitask import _shared


def _data(seed=0):
    Xtr, Xte, ytr, yte, gtr, gte = make_related_tasks(
        4, n_samples_per_node=20, n_features=5, random_state=seed)[:6]
    rng = np.random.RandomState(seed)
    weights = rng.randint(0, 4, size=len(ytr))  # 0 (dropped) to 3 (three copies)
    for t in np.unique(gtr):  # every node keeps a positive total
        weights[np.flatnonzero(gtr == t)[0]] = 1
    y_reg = Xtr @ np.arange(1.0, 6.0) + 0.5 * rng.normal(size=len(ytr))
    return Xtr, Xte, ytr, y_reg, gtr, gte, weights


def _fit(estimator, X, y, groups, sample_weight=None):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # both fits converge
        return estimator.fit(X, y, groups=groups, sample_weight=sample_weight)


CASES = [
    (FederatedMultiTaskClassifier, dict(omega="shared", loss="logistic")),
    (FederatedMultiTaskClassifier, dict(omega="shared", loss="hinge")),
    (FederatedMultiTaskClassifier, dict(omega="learn", loss="squared_hinge")),
    (FederatedMultiTaskClassifier, dict(omega="independent", loss="logistic")),
    (FederatedMultiTaskRegressor, dict(omega="shared")),
    (FederatedMultiTaskRegressor, dict(omega="independent")),
    (FederatedMultiTaskClassifier, dict(kernel="rbf", approximation=None, gamma=0.2,
                                        omega=np.eye(4) + 0.5, loss="squared_hinge")),
    (FederatedMultiTaskClassifier, dict(kernel="rbf", approximation="rff", n_components=50,
                                        gamma=0.2, omega="shared")),
]


@pytest.mark.parametrize("Estimator, params", CASES,
                         ids=[f"{E.__name__[-10:]}-{i}" for i, (E, _) in enumerate(CASES)])
def test_integer_weight_equals_repeated_rows(Estimator, params):
    Xtr, Xte, ytr, y_reg, gtr, gte, weights = _data()
    y = y_reg if Estimator is FederatedMultiTaskRegressor else ytr
    est = Estimator(tol=1e-10, max_rounds=5000, random_state=0, **params)
    weighted = _fit(est, Xtr, y, gtr, sample_weight=weights.astype(float))
    # the repeated rows in another order than the weighted ones
    Xr, yr, gr = (np.repeat(a, weights, axis=0) for a in (Xtr, y, gtr))
    order = np.random.RandomState(1).permutation(len(yr))
    repeated = _fit(Estimator(tol=1e-10, max_rounds=5000, random_state=0, **params),
                    Xr[order], yr[order], gr[order])
    f = ((lambda m: m.predict(Xte, groups=gte)) if Estimator is FederatedMultiTaskRegressor
         else (lambda m: m.decision_function(Xte, groups=gte)))
    scale = np.abs(f(repeated)).max()
    np.testing.assert_allclose(f(weighted), f(repeated), rtol=0, atol=1e-5 * scale)
    if weighted.omega_mode_ == "shared":
        assert weighted.shared_weight_ == pytest.approx(repeated.shared_weight_, abs=1e-6)
    # the objective each reports is the same objective
    assert weighted.joint_objective_ == pytest.approx(repeated.joint_objective_, rel=1e-6)


@pytest.mark.parametrize("loss, reference", [
    ("logistic", lambda C: LogisticRegression(C=C, fit_intercept=False, tol=1e-12,
                                              max_iter=10_000)),
    ("squared_hinge", lambda C: LinearSVC(C=C, fit_intercept=False, tol=1e-12,
                                          max_iter=100_000)),
])
@pytest.mark.parametrize("C", [0.05, 2.0])
def test_weight_is_a_per_sample_C_as_in_scikit_learn(loss, reference, C):
    """One node: ``C sum_i s_i loss_i + ||w||^2 / 2``, scikit-learn's objective."""
    rng = np.random.RandomState(3)
    X = rng.normal(size=(60, 4))
    y = np.where(X @ [1.0, -2.0, 0.5, 0.0] + rng.normal(size=60) > 0, 1, -1)
    s = rng.uniform(0.0, 3.0, size=60)
    ours = _fit(FederatedMultiTaskClassifier(C=C, loss=loss, omega="independent",
                                             fit_intercept=False, tol=1e-12,
                                             max_rounds=5000, random_state=0),
                X, y, np.zeros(60, dtype=int), sample_weight=s)
    theirs = reference(C).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.coef_[0], theirs.coef_.ravel(), rtol=1e-5, atol=1e-7)
    # scaling every weight by a is C * a (as for scikit-learn's estimators)
    scaled = _fit(FederatedMultiTaskClassifier(C=C / 4, loss=loss, omega="independent",
                                               fit_intercept=False, tol=1e-12,
                                               max_rounds=5000, random_state=0),
                  X, y, np.zeros(60, dtype=int), sample_weight=4 * s)
    np.testing.assert_allclose(scaled.coef_, ours.coef_, rtol=1e-6, atol=1e-9)


def test_unweighted_fit_is_weight_one(monkeypatch):
    # (tol=1e-6 costs more than the raw upload here: without omega="auto"'s ceiling)
    monkeypatch.setattr(_shared, "byte_ceiling", lambda *args: np.inf)
    Xtr, _, ytr, _, gtr, _, _ = _data()
    est = FederatedMultiTaskClassifier(random_state=0, tol=1e-6)
    a = _fit(est, Xtr, ytr, gtr)
    b = _fit(FederatedMultiTaskClassifier(random_state=0, tol=1e-6), Xtr, ytr, gtr,
             sample_weight=np.ones(len(ytr)))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.joint_objective_ == b.joint_objective_


def test_rows_read_directly_break_the_equivalence():
    """``gamma="scale"`` reads the (unweighted) variance of the rows of
    positive weight, as scikit-learn's SVC does: repeating rows changes it,
    weighting them does not (the docstring's caveat)."""
    Xtr, Xte, ytr, _, gtr, gte, weights = _data()
    params = dict(kernel="rbf", approximation="rff", n_components=50, omega="shared",
                  tol=1e-8, random_state=0)
    weighted = _fit(FederatedMultiTaskClassifier(**params), Xtr, ytr, gtr,
                    sample_weight=weights.astype(float))
    explicit = _fit(FederatedMultiTaskClassifier(**{**params, "gamma": 1.0 / (5 * Xtr[weights > 0].var())}),
                    Xtr, ytr, gtr, sample_weight=weights.astype(float))
    np.testing.assert_allclose(weighted.decision_function(Xte, groups=gte),
                               explicit.decision_function(Xte, groups=gte), rtol=1e-9)
    Xr, yr, gr = (np.repeat(a, weights, axis=0) for a in (Xtr, ytr, gtr))
    repeated = _fit(FederatedMultiTaskClassifier(**params), Xr, yr, gr)
    assert np.abs(weighted.decision_function(Xte, groups=gte)
                  - repeated.decision_function(Xte, groups=gte)).max() > 1e-3


def test_weighted_shared_model_equals_libsvm_with_per_sample_C():
    """The shared model with sample weights against libsvm on the precomputed
    multi-task kernel with ``C_ti = s_ti / (lam S_t)``, ``lam = 1 / S``."""
    from sklearn.svm import SVC

    rng = np.random.RandomState(5)
    m, n_t, d = 4, 15, 3
    g = np.repeat(np.arange(m), n_t)
    X = rng.normal(size=(m * n_t, d))
    U = 0.5 * rng.normal(size=(m, d))
    y = np.sign(np.einsum("ij,ij->i", X, 1.0 + U[g]) + 0.3 * rng.normal(size=m * n_t))
    s = rng.uniform(0.2, 3.0, size=m * n_t)
    # every sample also negated with the same weight: libsvm's free intercept
    # is then 0, its SVM the intercept-free model
    X, y, g, s = np.vstack([X, -X]), np.concatenate([y, -y]), np.tile(g, 2), np.tile(s, 2)
    est = FederatedMultiTaskClassifier(
        kernel="linear", omega="shared", loss="hinge", fit_intercept=False, tol=1e-9,
        max_rounds=500, compression="none", random_state=0,
    ).fit(X, y.astype(int), groups=g, sample_weight=s)
    b = est.shared_weight_
    assert 0.0 < b < 1.0
    S_t = np.bincount(g, weights=s)
    lam = 1.0 / s.sum()
    sigma = (b * np.ones((m, m)) + (1.0 - b) * np.eye(m)) / m
    K = sigma[np.ix_(g, g)] * (X @ X.T)
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-10)
    svc.fit(K, y, sample_weight=s / (lam * S_t[g]))
    assert abs(svc.intercept_[0]) < 1e-8
    a = np.zeros(len(y))
    a[svc.support_] = svc.dual_coef_[0]
    np.testing.assert_allclose(est.decision_function(X, groups=g), K @ a, atol=1e-5)
