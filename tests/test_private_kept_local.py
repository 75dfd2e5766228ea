"""A private node's kept model may be one it trains alone (skfed._kept_local).

The references are independent: scikit-learn's own estimators fitted on one
node's rows (the kept model must predict exactly like them), scikit-learn's
``cross_val_predict`` on the same folds (the held-out errors), and the
one-standard-error rule computed by hand.
"""

import warnings

import numpy as np
import pytest
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import PredefinedSplit, cross_val_predict
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.svm import LinearSVC

pytest.importorskip("dp_accounting")

from skfed import (  # noqa: E402
    DecentralizedBoostingClassifier,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    PersonalizedLinearClassifier,
)
from skfed._kept_local import (  # noqa: E402
    apply_kept_local,
    choose_classifier,
    classification_errors,
    classification_heldout,
    heldout_errors,
    kept_choice,
    platt_loss,
    prefer_local,
)
from skfed.boosting import make_stump_predictors  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402

SPEC = DifferentialPrivacy(3.0, delta=1e-6)


def _rings(seed=0, K=4, m=80):
    """Per node: class 1 inside a ring, class 0 outside (no linear model
    separates them, an rbf SVM does)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(K * m, 2))
    y = (np.linalg.norm(X, axis=1) < 1.1).astype(int)
    return X, y, np.repeat(np.arange(K), m)


def _fit(est, X, y, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, groups=groups)


def test_prefer_local_one_standard_error_rule():
    collab = np.r_[np.ones(10), np.zeros(10)]  # error 0.5
    # a Local candidate better by 0.1 with a large spread: not enough
    noisy = collab.copy()
    noisy[:4] = 0.0
    noisy[10:12] = 1.0
    diff = collab - noisy
    assert diff.mean() <= diff.std(ddof=1) / np.sqrt(20)
    assert prefer_local(collab, np.vstack([collab, noisy])) == -1
    # the second candidate much better: chosen (index among the Local ones)
    clear = np.zeros(20)
    assert prefer_local(collab, np.vstack([noisy, clear])) == 1
    assert prefer_local(collab[:1], clear[None, :1]) == -1  # one sample: no choice


def test_heldout_errors_binary_and_multiclass():
    assert heldout_errors(np.array([[0.5, -1.0, 2.0]]), np.array([1, 1, 0])).tolist() == [
        0.0, 1.0, 1.0]
    scores = np.array([[1.0, 0.0], [2.0, 3.0], [0.0, 5.0]])  # 3 problems, 2 samples
    assert heldout_errors(scores, np.array([1, 0])).tolist() == [0.0, 1.0]


def test_classification_errors_equal_cross_val_predict_on_the_same_folds():
    X, y, _ = _rings(m=60)
    X, y = X[:60], y[:60]
    fold = np.arange(60) % 5
    err = classification_errors(X, y, fold, 5, seed=0)
    split = PredefinedSplit(fold)
    rff = make_pipeline(RBFSampler(gamma=0.5, n_components=300, random_state=0),
                        LinearSVC(C=10, random_state=0))  # gamma = 1 / n_features
    for row, est in zip(err, (LinearSVC(random_state=0), rff,
                              LogisticRegression(max_iter=1000))):
        pred = cross_val_predict(est, X, y, cv=split)
        np.testing.assert_array_equal(row, pred != y)


def test_a_fold_with_one_class_predicts_it():
    X = np.arange(10.0)[:, None]
    codes = np.r_[np.zeros(8, int), 1, 1]
    fold = np.r_[np.zeros(8, int), 1, 1]  # fold 0's training part: class 1 only
    err = classification_errors(X, codes, fold, 2, seed=0)
    np.testing.assert_array_equal(err[:, :8], 1.0)  # predicted 1, truth 0
    np.testing.assert_array_equal(err[:, 8:], 1.0)  # predicted 0, truth 1


def _public_features(model, X):
    """The kept model's random features, checked against the public rule
    (gamma = 1 / n_features, directions independent of the data) and
    recomputed in NumPy: sqrt(2 / D) cos(X W + b)."""
    assert isinstance(model, Pipeline)
    rff = model.steps[0][1]
    d = X.shape[1]
    assert rff.gamma == 1.0 / d and rff.n_components == 300
    # the same directions from the seed alone, on data that is not the node's
    blank = RBFSampler(gamma=1.0 / d, n_components=300,
                       random_state=rff.random_state).fit(np.zeros((1, d)))
    np.testing.assert_array_equal(rff.random_weights_, blank.random_weights_)
    np.testing.assert_array_equal(rff.random_offset_, blank.random_offset_)
    Z = np.sqrt(2.0 / 300) * np.cos(X @ blank.random_weights_ + blank.random_offset_)
    np.testing.assert_allclose(rff.transform(X), Z, rtol=1e-10, atol=1e-12)
    return Z


@pytest.mark.parametrize("which", ["persolin", "dada", "mocha"])
def test_nonlinear_nodes_keep_the_rbf_svm_they_train_alone(which):
    X, y, groups = _rings()
    if which == "persolin":
        est = PersonalizedLinearClassifier(max_iter=80, privacy=SPEC, random_state=0)
    elif which == "dada":
        est = DecentralizedBoostingClassifier(
            base_predictors=make_stump_predictors([-3, -3], [3, 3], 10), beta=0.1,
            mu=100.0, max_iter=80, privacy=SPEC, random_state=0)
    else:
        est = FederatedMultiTaskClassifier(max_rounds=5, privacy=SPEC, random_state=0)
    _fit(est, X, y, groups)
    kept = est.kept_local_models_
    assert kept.shape == (4,)
    # a linear model cannot draw a ring; logistic regression on stumps can
    # draw a box, which some of Dada's nodes keep
    svm = [isinstance(model, Pipeline) for model in kept]
    assert all(svm) if which != "dada" else any(svm)
    if which == "mocha":
        assert (est.refit_choice_ == "local rff-LinearSVC").all()
    for k in np.flatnonzero(svm):
        rows = groups == k
        Z = _public_features(kept[k], X[rows])
        # the node alone, independently: the primal SVM on the NumPy features
        svc = kept[k].steps[-1][1]
        assert svc.C == 10
        reference = LinearSVC(C=10, random_state=svc.random_state).fit(Z, y[rows])
        np.testing.assert_array_equal(est.predict(X[rows], groups=groups[rows]),
                                      reference.predict(Z))
        np.testing.assert_allclose(
            est.decision_function(X[rows], groups=groups[rows]),
            reference.decision_function(Z), rtol=1e-6, atol=1e-6)
        # it draws the ring: far better than any linear model on the node
        linear = LogisticRegression(max_iter=1000).fit(X[rows], y[rows]).score(X[rows], y[rows])
        assert reference.score(Z, y[rows]) > linear + 0.1


def test_tied_nodes_keep_exactly_the_model_they_train_alone():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 2))
    X[:, 0] += np.sign(X[:, 0]) * 0.5  # a margin: every candidate separates it
    groups = np.repeat(np.arange(4), 60)
    y = (X[:, 0] > 0).astype(int)
    est = _fit(PersonalizedLinearClassifier(max_iter=80, privacy=SPEC, random_state=0),
               X, y, groups)
    # a tie of the 0-1 errors (no held-out error anywhere) is broken by the
    # Platt loss (tested above); whichever model a node keeps is exactly
    # scikit-learn's of its class on the node's rows
    kept = 0
    for k, model in enumerate(est.kept_local_models_):
        rows = groups == k
        if model is None:
            continue
        kept += 1
        if isinstance(model, Pipeline):
            Z = _public_features(model, X[rows])
            reference = LinearSVC(C=10, random_state=model.steps[-1][1].random_state)
            reference.fit(Z, y[rows])
            scores = reference.decision_function(Z)
        else:
            reference = (LogisticRegression(max_iter=1000) if isinstance(
                model, LogisticRegression) else LinearSVC(random_state=model.random_state))
            reference.fit(X[rows], y[rows])
            np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-6)
            scores = reference.decision_function(X[rows])
        np.testing.assert_allclose(est.decision_function(X[rows], groups=groups[rows]),
                                   scores, rtol=1e-6, atol=1e-8)
        assert est.score(X[rows], y[rows], groups=groups[rows]) == 1.0
    assert kept >= 1


def test_kept_choice_by_hand():
    err = np.array([[0, 1, 0, 0],    # 0.25
                    [1, 0, 0, 0],    # 0.25
                    [1, 1, 1, 0],    # 0.75
                    [0, 0, 0, 0.5]])  # 0.125
    assert kept_choice(err) == 3
    assert kept_choice(err, platt=[0.1, 0.1, 0.0, 0.9]) == 3  # error first
    err[3] = [1, 0, 0, 0]  # now 0, 1 and 3 tie at 0.25
    assert kept_choice(err, order=[2, 3, 1, 0]) == 3
    assert kept_choice(err, order=[1, 0, 3, 2]) == 1
    # the Platt loss breaks the tie (candidate 2 is not tied: ignored)
    assert kept_choice(err, platt=[0.5, 0.4, 0.0, 0.3], order=[0, 1, 2, 3]) == 3
    # equal Platt losses too: the order
    assert kept_choice(err, platt=[0.3, 0.4, 0.0, 0.3], order=[3, 2, 1, 0]) == 3
    assert kept_choice(err, platt=[0.3, 0.4, 0.0, 0.3], order=[0, 1, 2, 3]) == 0


def _platt_reference(f, codes):
    """Platt's fit by a derivative-free minimizer on the raw scores."""
    from scipy.optimize import minimize

    n1 = int(codes.sum())
    n0 = len(codes) - n1
    t = np.where(codes == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))
    z = f / np.abs(f).max()

    def value(th):
        u = th[0] * z + th[1]
        return float(np.mean(np.logaddexp(0.0, u) - t * u))

    best = min((minimize(value, start, method="Nelder-Mead",
                         options=dict(xatol=1e-10, fatol=1e-15, maxiter=20_000))
                for start in ([0.0, 0.0], [5.0, 0.0], [30.0, 0.0])), key=lambda r: r.fun)
    return best.fun


def test_platt_loss_against_a_direct_minimization():
    rng = np.random.default_rng(0)
    f = rng.normal(size=60)
    codes = (f + rng.normal(size=60) > 0.3).astype(int)
    loss = platt_loss(f, codes)
    np.testing.assert_allclose(loss, _platt_reference(f, codes), rtol=1e-7)
    # invariant to an increasing affine map of the scores
    np.testing.assert_allclose(platt_loss(40.0 * f - 3.0, codes), loss, rtol=1e-10)
    # separable scores: finite, and lower when the classes are further apart
    # relative to their spread within each class
    spread = rng.random(60)
    near = np.where(codes == 1, 0.1 + spread, -0.1 - spread)
    far = np.where(codes == 1, 3.0 + spread, -3.0 - spread)
    assert np.isfinite(platt_loss(near, codes))
    np.testing.assert_allclose(platt_loss(near, codes), _platt_reference(near, codes),
                               rtol=1e-6)
    assert platt_loss(far, codes) < platt_loss(near, codes) - 0.04  # 0.140 vs 0.185
    # the floor: the entropy of Platt's smoothed targets
    n1 = codes.sum()
    n0 = 60 - n1
    t1, t0 = (n1 + 1) / (n1 + 2), 1 / (n0 + 2)
    floor = -(n1 * (t1 * np.log(t1) + (1 - t1) * np.log(1 - t1))
              + n0 * (t0 * np.log(t0) + (1 - t0) * np.log(1 - t0))) / 60
    assert platt_loss(far, codes) >= floor - 1e-12
    # one constant score: no information, the loss of the base rate
    const = platt_loss(np.zeros(60), codes)
    t = np.where(codes == 1, t1, t0)
    p = t.mean()
    np.testing.assert_allclose(const, -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p)),
                               rtol=1e-9)


def test_heldout_scores_equal_cross_val_predict_decision_function():
    X, y, _ = _rings(m=60)
    X, y = X[:60], y[:60]
    fold = np.arange(60) % 5
    err, scores = classification_heldout(X, y, fold, 5, seed=0)
    split = PredefinedSplit(fold)
    rff = make_pipeline(RBFSampler(gamma=0.5, n_components=300, random_state=0),
                        LinearSVC(C=10, random_state=0))
    for e, f, est in zip(err, scores, (LinearSVC(random_state=0), rff,
                                       LogisticRegression(max_iter=1000))):
        ref = cross_val_predict(est, X, y, cv=split, method="decision_function")
        np.testing.assert_allclose(f, ref, rtol=1e-8, atol=1e-10)
        np.testing.assert_array_equal(e, (ref > 0).astype(int) != y)
    # more than two classes: no scores
    assert classification_heldout(X, np.arange(60) % 3, fold, 5, seed=0)[1] is None


def test_choose_classifier_breaks_ties_by_platt_loss():
    # every candidate separates every fold (a wide margin): the 0-1 errors
    # tie at zero, and the kept model is the one whose held-out scores
    # separate the classes best after Platt scaling, computed here from
    # scikit-learn's cross_val_predict and a direct minimization
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    X[:, 0] += np.sign(X[:, 0]) * 1.5
    y = (X[:, 0] > 0).astype(int)
    fold = np.arange(60) % 5
    split = PredefinedSplit(fold)
    rff = make_pipeline(RBFSampler(gamma=1 / 3, n_components=300, random_state=0),
                        LinearSVC(C=10, random_state=0))
    names = ("LinearSVC", "rff-LinearSVC", "LogisticRegression")
    ref = {n: cross_val_predict(e, X, y, cv=split, method="decision_function")
           for n, e in zip(names, (LinearSVC(random_state=0), rff,
                                   LogisticRegression(max_iter=1000)))}
    assert all(np.all((f > 0) == y) for f in ref.values())
    losses = {n: _platt_reference(f, y) for n, f in ref.items()}
    # a collaborative model that separates as well, but with many scores
    # near zero against its spread (the Platt loss is affine invariant)
    collab = (2 * y - 1) * (0.01 + 3.0 * rng.random(60))
    losses["collaborative"] = _platt_reference(collab, y)
    expected = min(losses, key=losses.get)
    assert expected != "collaborative"
    kept = choose_classifier(X, y, collab[None], fold, 5, seed=0)
    if expected == "rff-LinearSVC":
        assert isinstance(kept, Pipeline)
    else:
        assert type(kept).__name__ == expected
        reference = {"LinearSVC": LinearSVC(random_state=0),
                     "LogisticRegression": LogisticRegression(max_iter=1000)}[expected]
        np.testing.assert_allclose(kept.coef_, reference.fit(X, y).coef_, rtol=1e-6)
    # a collaborative model far apart on every held-out sample is kept instead
    wide = np.where(y == 1, 1.0, -1.0)
    assert _platt_reference(wide, y) < min(losses[n] for n in names)
    assert choose_classifier(X, y, wide[None], fold, 5, seed=0) is None


def test_non_private_fit_has_no_kept_local_models():
    X, y, groups = _rings()
    est = PersonalizedLinearClassifier(max_iter=80, privacy=SPEC, random_state=0)
    _fit(est, X, y, groups)
    assert hasattr(est, "kept_local_models_")
    est.set_params(privacy=None)
    _fit(est, X, y, groups)
    assert not hasattr(est, "kept_local_models_")
    mocha = FederatedMultiTaskClassifier(max_rounds=5, privacy=SPEC, random_state=0)
    _fit(mocha, X, y, groups)
    assert hasattr(mocha, "kept_local_models_")
    mocha.set_params(privacy=None)
    _fit(mocha, X, y, groups)
    assert not hasattr(mocha, "kept_local_models_")


def test_multiclass_scores_of_a_node_that_saw_some_classes():
    class _Est:
        pass

    X = np.random.default_rng(0).normal(size=(12, 2))
    codes_a = np.r_[np.zeros(6, int), np.full(6, 2)]  # classes 0 and 2 of 0, 1, 2
    two = LinearSVC(random_state=0).fit(X, codes_a)
    three = LogisticRegression(max_iter=1000).fit(X, np.arange(12) % 3)
    est = _Est()
    est.kept_local_models_ = np.array([two, None, three], dtype=object)
    nodes = np.r_[np.zeros(4, int), np.ones(4, int), np.full(4, 2)]
    base = np.arange(36.0).reshape(12, 3)
    out = apply_kept_local(est, X, nodes, base)
    f = two.decision_function(X[:4])
    np.testing.assert_array_equal(out[:4, 0], -f)
    np.testing.assert_array_equal(out[:4, 2], f)
    assert np.all(out[:4, 1] == -np.inf)  # a class the node never saw
    np.testing.assert_array_equal(out[4:8], base[4:8])  # collaborative model kept
    np.testing.assert_allclose(out[8:], three.decision_function(X[8:]))


def test_private_mocha_regressor_keeps_kernel_ridge_on_a_nonlinear_target():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(240, 1))
    groups = np.repeat(np.arange(3), 80)
    y = np.sin(2 * X[:, 0]) + 0.05 * rng.normal(size=240)
    est = _fit(FederatedMultiTaskRegressor(max_rounds=5, privacy=SPEC, random_state=0),
               X, y, groups)
    assert all(isinstance(model, Pipeline) for model in est.kept_local_models_)
    for k in range(3):
        rows = groups == k
        Z = _public_features(est.kept_local_models_[k], X[rows])
        # ridge in closed form on the NumPy features (intercept by centring)
        zm, ym = Z.mean(axis=0), y[rows].mean()
        Zc = Z - zm
        w = np.linalg.solve(Zc.T @ Zc + np.eye(Z.shape[1]), Zc.T @ (y[rows] - ym))
        np.testing.assert_allclose(est.predict(X[rows], groups=groups[rows]),
                                   Zc @ w + ym, rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(Ridge().fit(Z, y[rows]).predict(Z), Zc @ w + ym,
                                   rtol=1e-8, atol=1e-8)
