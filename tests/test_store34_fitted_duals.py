"""Primal MOCHA publishes no per-sample dual value; the scale note (store34).

* review34: the sign of ``dual_coef_`` (``y_i alpha_i``) of a linear or
  random-feature MOCHA gave every training label, even after
  ``drop_node_data()`` and a pickle.  The primal modes' models are
  ``coef_`` / ``intercept_``; their duals now stay with the nodes (the
  simulation's ``_node_duals``, removed by ``drop_node_data()``), while
  ``n_support_`` still counts them per node.  The exact kernel mode keeps
  its duals and support vectors (its model, as SVC).
* Features all far above the intercept column (``intercept_scaling``)
  stall the dual solvers; the convergence warning now names that scale on
  the learned-Omega path too (the shared path: test_review34_mocha_scale).
"""
import pickle
import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skfed import (FederatedMultiTaskClassifier, FederatedMultiTaskClassifierCV,
                   FederatedMultiTaskRegressor)


def _data(seed=0, m=5, n=40):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(m * n, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=m * n) > 0).astype(int)
    return X, y, np.repeat(np.arange(m), n)


def _quiet(est, X, y, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, groups=groups)


@pytest.mark.parametrize("params", [
    dict(), dict(omega="learn"), dict(kernel="rbf", approximation="rff", n_components=20)],
    ids=["shared", "learn", "rff"])
def test_primal_fit_keeps_duals_off_the_model(params):
    X, y, g = _data()
    est = _quiet(FederatedMultiTaskClassifier(random_state=0, **params), X, y, g)
    assert est.dual_coef_.shape == (1, 0) and est.support_.shape == (0,)
    support, dual = est._node_duals
    # the kept duals: y_i alpha_i in [-1, 0] x label sign (hinge box, sample_weight 1),
    # indices into X node by node, n_support_ their count per node
    assert dual.shape == (1, len(support)) and np.all(dual[0] != 0)
    np.testing.assert_array_equal(np.sign(dual[0]), np.where(y[support] == 1, 1, -1))
    assert np.all(np.abs(dual[0]) <= 1 + 1e-12)
    np.testing.assert_array_equal(np.bincount(g[support], minlength=5), est.n_support_)
    assert est.n_support_.sum() > 0
    before = est.decision_function(X, groups=g)
    shipped = pickle.loads(pickle.dumps(est.drop_node_data()))
    assert shipped._node_duals is None and shipped._dual_state is None
    assert b"_node_duals" not in pickle.dumps(shipped) or shipped._node_duals is None
    np.testing.assert_array_equal(shipped.decision_function(X, groups=g), before)


def test_regressor_and_cv_keep_no_per_sample_duals():
    X, y, g = _data()
    target = X[:, 0] + 0.3 * np.random.RandomState(1).normal(size=len(y))
    reg = _quiet(FederatedMultiTaskRegressor(random_state=0), X, target, g)
    assert reg.dual_coef_.shape == (1, 0) and reg._node_duals[1].shape[1] == len(y)
    cv = _quiet(FederatedMultiTaskClassifierCV(Cs=[0.1, 1.0], cv=2, random_state=0), X, y, g)
    assert cv.dual_coef_.shape == (1, 0) and cv.support_.shape == (0,)
    cv.drop_node_data()
    assert cv._node_duals is None


def test_exact_kernel_mode_keeps_its_duals():
    # its model is sum_j dual_coef_[j] (k(sv_j, x) + 1) weighted per node: it keeps them
    X, y, g = _data()
    est = _quiet(FederatedMultiTaskClassifier(kernel="rbf", approximation=None,
                                              random_state=0), X, y, g)
    assert est._node_duals is None
    assert est.dual_coef_.shape == (1, len(est.support_)) == (1, est.n_support_.sum())
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    est.drop_node_data()
    assert est.dual_coef_.shape[1] == est.n_support_.sum() > 0


def test_warm_start_still_continues_until_the_drop():
    # (shared model, measured: a cold fit 10 rounds, the warm refit on the same data 1)
    X, y, g = _data()
    make = lambda: FederatedMultiTaskClassifier(omega="shared", warm_start=True, tol=1e-6,
                                                random_state=0)
    cold = _quiet(make(), X, y, g)
    warm = _quiet(make(), X, y, g)
    _quiet(warm, X, y, g)
    assert warm.n_iter_ < cold.n_iter_ and warm.n_iter_ <= 2  # it started at the optimum
    restarted = _quiet(make(), X, y, g)
    _quiet(restarted.drop_node_data(), X, y, g)
    assert restarted.n_iter_ == cold.n_iter_  # nothing left to warm-start from
    np.testing.assert_array_equal(restarted.coef_, cold.coef_)


def _warnings(scale, max_rounds=30, **params):
    X, y, g = _data(n=50)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FederatedMultiTaskClassifier(random_state=0, max_rounds=max_rounds, **params).fit(
            X * scale, y, groups=g)
    return [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


@pytest.mark.parametrize("omega", ["learn", "shared"])
def test_scale_note_names_the_intercept_column(omega):
    texts = _warnings(1e12, omega=omega)
    assert texts and all(re.search(r"\d\.?\d*e\+12 times the intercept column's "
                                   r"\(intercept_scaling=1", t)
                         and "StandardScaler" in t for t in texts), texts
    # control: features near the intercept's scale and no intercept column are not named
    tight = _warnings(1.0, omega=omega, tol=1e-12, max_rounds=2)
    assert tight and not any("intercept column" in t for t in tight), tight
    free = _warnings(1e12, omega=omega, fit_intercept=False)
    assert not any("intercept column" in t for t in free), free
