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
    choose_regressor,
    classification_errors,
    collaboration_wins,
    heldout_errors,
    kept_choice,
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


def test_tied_nodes_keep_the_simplest_model_they_train_alone():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 2))
    X[:, 0] += np.sign(X[:, 0]) * 0.5  # a margin: every candidate separates it
    groups = np.repeat(np.arange(4), 60)
    y = (X[:, 0] > 0).astype(int)
    est = _fit(PersonalizedLinearClassifier(max_iter=80, privacy=SPEC, random_state=0),
               X, y, groups)
    # a tie (no held-out error anywhere: a zero standard error) goes to the
    # simplest candidate, the node's logistic regression alone, exactly
    # scikit-learn's on its rows
    for k, model in enumerate(est.kept_local_models_):
        assert isinstance(model, LogisticRegression)
        rows = groups == k
        reference = LogisticRegression(max_iter=1000).fit(X[rows], y[rows])
        np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-6)
        np.testing.assert_allclose(est.decision_function(X[rows], groups=groups[rows]),
                                   reference.decision_function(X[rows]), rtol=1e-6)


def test_kept_choice_one_standard_error_rule_by_hand():
    err = np.array([[0, 1, 0, 0, 1],    # 0.4
                    [1, 1, 1, 0, 1],    # 0.8
                    [0, 0, 0, 0, 1],    # 0.2, the best
                    [0, 0, 1, 1, 1.0]])  # 0.6
    # the best's standard error: std([0, 0, 0, 0, 1], ddof=1) / sqrt(5)
    se = np.sqrt(0.2) / np.sqrt(5)  # 0.2: so 0.4 is within it, 0.6 is not
    assert abs(se - 0.2) < 1e-12
    assert kept_choice(err) == 0  # 0.4 <= 0.2 + 0.2: the first in order
    assert kept_choice(err, order=[3, 1, 2, 0]) == 2  # 0.6 and 0.8 are not
    assert kept_choice(err, order=[1, 3, 0, 2]) == 0
    err[0, 0] = 1.0  # 0.6 now: only the best is within
    assert kept_choice(err) == 2
    # the best without error: a zero margin, the simplest of the errorless
    err = np.array([[0, 0, 1.0], [0, 0, 0], [0, 0, 0]])
    assert kept_choice(err) == 1
    assert kept_choice(err, order=[2, 1, 0]) == 2


def test_choose_classifier_keeps_the_simplest_within_one_standard_error():
    # the candidates' held-out errors recomputed with scikit-learn's
    # cross_val_predict on the same folds; the rule by hand
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = ((X[:, 0] + 0.7 * rng.normal(size=60)) > 0).astype(int)
    fold = np.arange(60) % 5
    split = PredefinedSplit(fold)
    rff = make_pipeline(RBFSampler(gamma=0.5, n_components=300, random_state=0),
                        LinearSVC(C=10, random_state=0))
    local = [cross_val_predict(e, X, y, cv=split) != y
             for e in (LinearSVC(random_state=0), rff, LogisticRegression(max_iter=1000))]
    for collab_err_rate, expected in ((0.5, "LogisticRegression"), (0.0, None)):
        # a collaborative model wrong on a given share of the samples
        wrong = np.arange(60) < int(collab_err_rate * 60)
        collab = np.where(y == 1, 1.0, -1.0) * np.where(wrong, -1.0, 1.0)
        err = np.vstack([wrong, *local]).astype(float)
        mean = err.mean(axis=1)
        best = int(np.argmin(mean))
        se = err[best].std(ddof=1) / np.sqrt(60)
        within = mean <= mean[best] + se + 1e-12
        order = [3, 1, 2, 0]  # logistic, LinearSVC, rff, collaborative
        first = next(c for c in order if within[c])
        assert first == (3 if expected else 0)
        kept = choose_classifier(X, y, collab[None], fold, 5, seed=0)
        if expected is None:
            assert kept is None
        else:
            assert isinstance(kept, LogisticRegression)
            np.testing.assert_allclose(
                kept.coef_, LogisticRegression(max_iter=1000).fit(X, y).coef_, rtol=1e-6)


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


# ---------------------------------------------------------------------------
# DifferentialPrivacy(local_estimator=...): the given Local model is kept
# unless the collaborative model is better by one standard error.
# ---------------------------------------------------------------------------
def test_choose_reference_keeps_the_local_model_unless_collaborating_is_better():
    # the Local model's held-out errors from scikit-learn's cross_val_predict
    # on the same folds; the exact one-sided sign test by hand (math.comb)
    from math import comb

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = ((X[:, 0] + 0.7 * rng.normal(size=60)) > 0).astype(int)
    fold = np.arange(60) % 5
    own = (cross_val_predict(LinearSVC(random_state=0), X, y, cv=PredefinedSplit(fold))
           != y).astype(float)
    assert 0.1 < own.mean() < 0.4  # the node alone makes some errors
    wrong_own, right_own = np.flatnonzero(own), np.flatnonzero(own == 0)
    assert len(wrong_own) >= 8
    cases = ((0, 0, "local"), (2, 0, "local"), (4, 0, "local"), (5, 0, "collab"),
             (7, 1, "collab"), (7, 2, "local"), (len(wrong_own), 0, "collab"))
    for n_fixed, n_broken, expected in cases:
        # a collaborative model right on n_fixed of the Local model's errors,
        # wrong on n_broken of its right answers, like it elsewhere
        collab_err = own.copy()
        collab_err[wrong_own[:n_fixed]] = 0.0
        collab_err[right_own[:n_broken]] = 1.0
        n = n_fixed + n_broken
        p = sum(comb(n, k) for k in range(n_fixed, n + 1)) / 2.0**n
        assert (n_fixed > n_broken and p < 0.05) == (expected == "collab")
        assert collaboration_wins(own, collab_err) == (expected == "collab")
        collab = np.where(y == 1, 1.0, -1.0) * np.where(collab_err > 0, -1.0, 1.0)
        kept = choose_classifier(X, y, collab[None], fold, 5, seed=0,
                                 reference=LinearSVC(random_state=0))
        if expected == "collab":
            assert kept is None
        else:
            np.testing.assert_allclose(
                kept.coef_, LinearSVC(random_state=0).fit(X, y).coef_, rtol=1e-6)
    # no held-out scores at all: the Local model, no evidence against it
    kept = choose_classifier(X, y, None, fold, 5, seed=0, reference=LogisticRegression())
    assert isinstance(kept, LogisticRegression)


def test_choose_reference_regressor_squared_errors():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=50)
    fold = np.arange(50) % 5
    own = (cross_val_predict(Ridge(), X, y, cv=PredefinedSplit(fold)) - y) ** 2
    kept = choose_regressor(X, y, own + 1.0, fold, 5, seed=0, reference=Ridge())
    np.testing.assert_allclose(kept.coef_, Ridge().fit(X, y).coef_)
    assert choose_regressor(X, y, own * 0.1, fold, 5, seed=0, reference=Ridge()) is None
    # the one-sided paired z-test by hand: 1.6449 standard errors
    noise = np.random.default_rng(5).normal(size=50)
    noise -= noise.mean()
    outcomes = []
    for shift in (-0.1, 0.1, 0.2, 0.3, 0.5):  # z = -0.81, 0.81, 1.62, 2.43, 4.05
        collab = own - shift * own.mean() + own.mean() * noise
        diff = own - collab
        z = diff.mean() / (diff.std(ddof=1) / np.sqrt(50))
        outcomes.append(bool(z > 1.6448536))
        assert collaboration_wins(own, collab, classification=False) == outcomes[-1]
    assert outcomes == [False, False, False, True, True]


@pytest.mark.parametrize("which", ["persolin", "dada", "mocha"])
def test_private_fits_keep_the_given_local_model(which):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(240, 2))
    y = ((X[:, 0] - 0.5 * X[:, 1] + 0.5 * rng.normal(size=240)) > 0).astype(int)
    groups = np.repeat(np.arange(4), 60)
    spec = DifferentialPrivacy(3.0, delta=1e-6, local_estimator=LogisticRegression(C=0.5))
    if which == "persolin":
        est = PersonalizedLinearClassifier(max_iter=80, privacy=spec, random_state=0)
    elif which == "dada":
        est = DecentralizedBoostingClassifier(
            base_predictors=make_stump_predictors([-3, -3], [3, 3], 10), beta=0.1,
            mu=100.0, max_iter=80, privacy=spec, random_state=0)
    else:
        est = FederatedMultiTaskClassifier(max_rounds=5, privacy=spec, random_state=0)
    _fit(est, X, y, groups)
    kept = est.kept_local_models_
    assert kept.shape == (4,)
    # only the given model or the collaborative one: never another candidate
    assert all(model is None or isinstance(model, LogisticRegression) for model in kept)
    assert any(model is not None for model in kept)
    for k, model in enumerate(kept):
        if model is None:
            continue
        rows = groups == k
        reference = LogisticRegression(C=0.5).fit(X[rows], y[rows])
        assert model.C == 0.5
        np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-6)
        np.testing.assert_allclose(est.decision_function(X[rows], groups=groups[rows]),
                                   reference.decision_function(X[rows]), rtol=1e-6)
    assert spec.local_estimator is not kept[0]  # a clone per node, the spec unfitted
    assert not hasattr(spec.local_estimator, "coef_")


def test_local_estimator_that_stores_rows_or_is_of_the_wrong_kind_is_refused():
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    X, y, groups = _rings()
    for model in (SVC(), KNeighborsClassifier(3)):
        spec = DifferentialPrivacy(3.0, local_estimator=model)
        est = PersonalizedLinearClassifier(max_iter=40, privacy=spec, random_state=0)
        with pytest.raises(ValueError, match=r"local_estimator=.*stores training rows of node"):
            _fit(est, X, y, groups)
    spec = DifferentialPrivacy(3.0, local_estimator=Ridge())
    with pytest.raises(ValueError, match=r"local_estimator=Ridge\(\)\) must be a classifier"):
        _fit(FederatedMultiTaskClassifier(max_rounds=3, privacy=spec, random_state=0),
             X, y, groups)
    spec = DifferentialPrivacy(3.0, local_estimator=LogisticRegression())
    with pytest.raises(ValueError, match="must be a regressor"):
        _fit(FederatedMultiTaskRegressor(max_rounds=3, privacy=spec, random_state=0),
             X, X[:, 0] * 2.0, groups)
    with pytest.raises(ValueError, match="local_estimator"):
        DifferentialPrivacy(3.0, local_estimator="LinearSVC").budget()


def _node_data(seed=0, m=60, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) * [1.0, 5.0, 0.2] + [0.0, 3.0, -1.0]
    y = (X[:, 0] + 0.3 * rng.normal(size=m) > 0).astype(int)
    return X, y


def _row_models():
    """Models that keep training rows after a preprocessing step or inside a
    fitted sub-estimator (review2's bypass of the raw-row check)."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.decomposition import PCA
    from sklearn.ensemble import BaggingClassifier
    from sklearn.model_selection import GridSearchCV
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return {
        "scaler+SVC": make_pipeline(StandardScaler(), SVC()),
        "scaler+KNN": make_pipeline(StandardScaler(), KNeighborsClassifier(3)),
        "PCA+SVC": make_pipeline(PCA(n_components=2), SVC()),
        "grid(SVC)": GridSearchCV(SVC(), {"C": [0.5, 1.0]}, cv=3),
        "calibrated(SVC)": CalibratedClassifierCV(SVC(), cv=3),
        "bagging(SVC)": BaggingClassifier(SVC(), n_estimators=3, max_features=2,
                                          random_state=0),
        "grid(scaler+SVC)": GridSearchCV(make_pipeline(StandardScaler(), SVC()),
                                         {"svc__C": [0.5, 1.0]}, cv=3),
    }


@pytest.mark.parametrize("name", sorted(_row_models()))
def test_check_no_rows_follows_pipelines_and_sub_estimators(name):
    from skfed._kept_local import check_no_rows, stored_rows

    X, y = _node_data()
    model = _row_models()[name].fit(X, y)
    # the stored rows really are training rows as given to the step that keeps them
    found = stored_rows(model, X)
    assert found >= 3, found
    with pytest.raises(ValueError, match=r"local_estimator=.*stores training rows of node 2"):
        check_no_rows(model, X, 2)


def test_check_no_rows_recovers_the_raw_rows_of_a_scaled_svc():
    # the reproducer of review2 (p2.py): sv * scale_ + mean_ are node rows
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from skfed._kept_local import stored_rows

    X, y = _node_data(1)
    model = make_pipeline(StandardScaler(), SVC()).fit(X, y)
    raw = model[-1].support_vectors_ * model[0].scale_ + model[0].mean_
    exact = sum(np.min(np.abs(X - r).max(axis=1)) < 1e-12 for r in raw)
    assert exact == raw.shape[0] == model[-1].support_vectors_.shape[0]
    assert stored_rows(model, X) == raw.shape[0]


@pytest.mark.parametrize("kind", ["LinearSVC", "LogisticRegression", "scaler+LR", "rff"])
def test_check_no_rows_accepts_models_without_samples(kind):
    from sklearn.preprocessing import StandardScaler

    from skfed._kept_local import check_no_rows, make_local, stored_rows

    X, y = _node_data(2)
    model = {"LinearSVC": LinearSVC(), "LogisticRegression": LogisticRegression(),
             "scaler+LR": make_pipeline(StandardScaler(), LogisticRegression()),
             "rff": make_local("rff-LinearSVC", 0, *X.shape)}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    assert stored_rows(model, X) == 0
    check_no_rows(model, X, 0)


@pytest.mark.parametrize("name", ["scaler+SVC", "grid(SVC)"])
def test_private_fit_refuses_a_preprocessed_model_that_stores_rows(name):
    X, y, groups = _rings()
    spec = DifferentialPrivacy(3.0, local_estimator=_row_models()[name])
    est = PersonalizedLinearClassifier(max_iter=40, privacy=spec, random_state=0)
    with pytest.raises(ValueError, match=r"local_estimator=.*stores training rows of node 0"):
        _fit(est, X, y, groups)


def test_private_fit_accepts_a_scaled_logistic_regression():
    from sklearn.preprocessing import StandardScaler

    X, y, groups = _rings()
    spec = DifferentialPrivacy(3.0, local_estimator=make_pipeline(StandardScaler(),
                                                                   LogisticRegression()))
    est = _fit(PersonalizedLinearClassifier(max_iter=40, privacy=spec, random_state=0),
               X, y, groups)
    assert any(isinstance(m, Pipeline) for m in est.kept_local_models_)


def test_rows_refused_even_where_the_collaborative_model_wins():
    # review2 p3.py: the row check ran only on the model a node kept, so a
    # node whose collaborative model won kept nothing and SVR() passed.
    from sklearn.svm import SVR

    from skfed._kept_local import choose_reference

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    fold = np.arange(40) % 5
    perfect = np.zeros(40)  # the collaborative model's held-out errors: none
    assert choose_reference(Ridge(), X, y, perfect, fold, 5, 3, classification=False) is None
    with pytest.raises(ValueError, match=r"local_estimator=SVR\(\)\) stores training rows of node 3"):
        choose_reference(SVR(), X, y, perfect, fold, 5, 3, classification=False)


def test_mocha_regressor_refuses_svr_when_collaborating_wins_everywhere():
    from sklearn.svm import SVR

    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=200)
    groups = np.repeat(np.arange(5), 40)
    # the set-up: a Local model (the mean) that every node's collaborative
    # model beats at the test's level (0.05 / 5 nodes); Ridge alone is as
    # good as collaborating here, and no node leaves it at that level
    from sklearn.dummy import DummyRegressor

    mean = _fit(FederatedMultiTaskRegressor(
        random_state=0, privacy=DifferentialPrivacy(3.0, local_estimator=DummyRegressor())),
        X, y, groups)
    assert all(m is None for m in mean.kept_local_models_)  # every node collaborates
    est = FederatedMultiTaskRegressor(random_state=0,
                                      privacy=DifferentialPrivacy(3.0, local_estimator=SVR()))
    with pytest.raises(ValueError, match=r"local_estimator=SVR\(\)\) stores training rows of node 0"):
        _fit(est, X, y, groups)


def test_estimators_without_kept_models_refuse_local_estimator():
    # review2 p1.py: support recovery fitted with local_estimator and ignored it
    from skfed import (
        DecentralizedKernelSGDClassifier,
        DecentralizedKernelSGDRegressor,
        FederatedSparseLinearRegression,
        FederatedSupportRecovery,
    )

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = X[:, 0] + 0.1 * rng.normal(size=400)
    groups = np.repeat(np.arange(20), 20)
    spec = DifferentialPrivacy(3.0, local_estimator=LinearSVC())
    with pytest.raises(ValueError, match=r"FederatedSupportRecovery does not use .*local_estimator"):
        FederatedSupportRecovery(privacy=spec, random_state=0).fit(X, y, groups=groups)
    labels = (y > 0).astype(int)
    for est, target in ((DecentralizedKernelSGDClassifier(max_epochs=1, privacy=spec), labels),
                        (DecentralizedKernelSGDRegressor(max_epochs=1, privacy=spec), y),
                        (FederatedSparseLinearRegression(privacy=spec), y)):
        with pytest.raises(ValueError, match="privacy"):  # privacy= refused as a whole
            _fit(est, X, target, groups)


@pytest.mark.parametrize("which", ["persolin", "dada", "mocha"])
def test_local_estimator_at_infinite_epsilon_is_refused(which):
    X, y, groups = _rings()
    spec = DifferentialPrivacy(np.inf, local_estimator=LogisticRegression())
    if which == "persolin":
        est = PersonalizedLinearClassifier(max_iter=20, privacy=spec, random_state=0)
    elif which == "dada":
        est = DecentralizedBoostingClassifier(
            base_predictors=make_stump_predictors([-3, -3], [3, 3], 5), max_iter=20,
            privacy=spec, random_state=0)
    else:
        est = FederatedMultiTaskClassifier(max_rounds=3, privacy=spec, random_state=0)
    with pytest.raises(ValueError, match=r"local_estimator=.*needs a finite epsilon"):
        _fit(est, X, y, groups)
    # the same estimator at a finite epsilon uses it
    est.set_params(privacy=DifferentialPrivacy(3.0, local_estimator=LogisticRegression()))
    assert _fit(est, X, y, groups).kept_local_models_.shape == (4,)
