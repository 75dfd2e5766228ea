"""A private Dada node's AdaBoost-on-stumps candidate (skfed._stump_boost).

The reference is scikit-learn's ``AdaBoostClassifier(DecisionTreeClassifier(
max_depth=1))`` (SAMME, learning rate 1) on the same rows: the same stumps
(feature, threshold, sides), the same SAMME weights, the same predictions;
and ``cross_val_predict`` of it on the same folds for the batched held-out
errors.  Data are continuous and drawn so that no two candidate splits tie
(scikit-learn visits features in a random order and rounds to float32).
"""

import warnings

import numpy as np
import pytest
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import PredefinedSplit, cross_val_predict
from sklearn.tree import DecisionTreeClassifier

pytest.importorskip("dp_accounting")

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier  # noqa: E402
from skfed._kept_local import choose_classifier, stored_rows  # noqa: E402
from skfed._stump_boost import StumpBoostClassifier, stump_boost_cv  # noqa: E402
from skfed.boosting import make_stump_predictors  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402


def _ada(n_estimators):
    return AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n_estimators,
                              random_state=0)


def _data(seed, n, d, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(n_classes, size=n)
    X[:, 0] += y  # a signal on the first feature, noise elsewhere
    return X, y


@pytest.mark.parametrize("seed,n,d,n_classes,n_estimators", [
    (0, 60, 3, 2, 50), (1, 120, 2, 2, 10), (2, 80, 4, 3, 50), (3, 40, 5, 2, 5)])
def test_same_stumps_weights_and_predictions_as_scikit_learn(seed, n, d, n_classes,
                                                             n_estimators):
    X, y = _data(seed, n, d, n_classes)
    ref = _ada(n_estimators).fit(X, y)
    own = StumpBoostClassifier(n_estimators).fit(X, y)
    used = own.weight_ > 0
    assert used.sum() == len(ref.estimators_)
    np.testing.assert_array_equal(own.feature_[used],
                                  [e.tree_.feature[0] for e in ref.estimators_])
    # scikit-learn's trees split float32 values: thresholds agree to float32
    np.testing.assert_allclose(own.threshold_[used],
                               [e.tree_.threshold[0] for e in ref.estimators_], rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(own.weight_[used], ref.estimator_weights_[: used.sum()],
                               rtol=1e-9)
    X_test = np.random.default_rng(seed + 10).normal(size=(400, d)) * 1.5
    np.testing.assert_array_equal(own.predict(X_test), ref.predict(X_test))
    np.testing.assert_allclose(own.decision_function(X_test), ref.decision_function(X_test),
                               atol=1e-9)
    # a threshold is the midpoint of two training values of its feature, no raw value
    for f, t in zip(own.feature_[used], own.threshold_[used]):
        assert not np.any(X[:, f] == t)
        assert X[:, f].min() < t < X[:, f].max()
    assert stored_rows(own, X) == 0


def test_separable_rows_stop_at_one_stump_of_weight_one():
    X = np.r_[np.linspace(-2, -0.5, 10), np.linspace(0.5, 2, 10)][:, None]
    y = np.r_[np.zeros(10), np.ones(10)].astype(int)
    own = StumpBoostClassifier(50).fit(X, y)
    ref = _ada(50).fit(X, y)
    assert len(ref.estimators_) == 1 and int((own.weight_ > 0).sum()) == 1
    assert own.weight_[0] == 1.0 and own.threshold_[0] == 0.0  # midpoint of -0.5 and 0.5
    np.testing.assert_array_equal(own.predict(X), y)


def test_batched_folds_equal_scikit_learn_on_each_fold():
    X, y = _data(4, 50, 3, 2)
    fold = np.arange(50) % 5
    err, model = stump_boost_cv(X, y, fold, 5, 50, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = cross_val_predict(_ada(50), X, y, cv=PredefinedSplit(fold))
    np.testing.assert_array_equal(err, (pred != y).astype(float))
    assert 0 < err.sum() < 50
    full = _ada(50).fit(X, y)
    X_test = np.random.default_rng(5).normal(size=(300, 3))
    np.testing.assert_array_equal(model.predict(X_test), full.predict(X_test))


def test_a_fold_whose_training_part_has_one_class_predicts_it():
    X, y = _data(6, 12, 2, 2)
    y[:] = 0
    y[:2] = 1
    fold = np.r_[0, 0, np.ones(10, dtype=int)]  # fold 1 trains on rows 0, 1: class 1 only
    err, model = stump_boost_cv(X, y, fold, 2, 10, 2)
    np.testing.assert_array_equal(err[2:], 1.0)  # predicts class 1 for the class-0 rows
    assert model is not None


def test_bad_n_estimators_and_one_class_are_refused():
    X, y = _data(7, 20, 2, 2)
    with pytest.raises(ValueError, match="n_estimators"):
        StumpBoostClassifier(0).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        StumpBoostClassifier().fit(X, np.zeros(20, dtype=int))


def _staircase(seed, K=4, m=60):
    """Per node: class 1 on two axis-aligned quadrants (stumps fit it, no
    linear model does)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(K * m, 2))
    y = ((X[:, 0] > 0.5) | (X[:, 1] > 1.0)).astype(int)
    return X, y, np.repeat(np.arange(K), m)


def test_choose_classifier_keeps_the_stumps_only_for_a_boosting_node():
    X, y, g = _staircase(0)
    rows = g == 0
    Xk, yk = X[rows], y[rows]
    fold = np.arange(Xk.shape[0]) % 5
    wrong = np.ones(Xk.shape[0])  # a collaborative model wrong on every row
    collab = (np.where(yk == 1, -1.0, 1.0))[None] * wrong
    kept = choose_classifier(Xk, yk, collab, fold, 5, seed=0, boosting=True)
    assert isinstance(kept, StumpBoostClassifier)
    ref = _ada(50).fit(Xk, yk)
    np.testing.assert_array_equal(kept.predict(X), ref.predict(X))
    plain = choose_classifier(Xk, yk, collab, fold, 5, seed=0)
    assert not isinstance(plain, StumpBoostClassifier)


def test_private_dada_keeps_row_free_stumps_and_perso_lin_never_does():
    X, y, g = _staircase(1)
    spec = DifferentialPrivacy(3.0, delta=1e-6)
    dada = DecentralizedBoostingClassifier(
        base_predictors=make_stump_predictors([-2.0, -2.0], [2.0, 2.0], 10), beta=0.1,
        mu=100.0, max_iter=200, privacy=spec, random_state=0)
    lin = PersonalizedLinearClassifier(max_iter=200, privacy=spec, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dada.fit(X, y, groups=g)
        lin.fit(X, y, groups=g)
    kept = [m for m in dada.kept_local_models_ if isinstance(m, StumpBoostClassifier)]
    assert len(kept) >= 2  # the stumps beat every linear and rbf candidate here
    for k, model in enumerate(dada.kept_local_models_):
        if model is not None:
            assert stored_rows(model, X[g == k]) == 0
    assert not any(isinstance(m, StumpBoostClassifier) for m in lin.kept_local_models_)
    # a node keeping the stumps predicts with them
    k = next(i for i, m in enumerate(dada.kept_local_models_)
             if isinstance(m, StumpBoostClassifier))
    rows = g == k
    np.testing.assert_array_equal(dada.predict(X[rows], groups=g[rows]),
                                  dada.kept_local_models_[k].predict(X[rows]))
