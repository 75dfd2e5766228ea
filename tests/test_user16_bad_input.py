"""Bad input a first-time user gave, and the error it must get.

Each case was found by running the estimators as a scikit-learn user
would (session after stop 52).
"""

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier
from skfed.boosting import make_stump_predictors
from skfed.boosting._stumps import Stump


def _moons_like(n_nodes=4, n=30, d=3, seed=0):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.uniform(-1, 1, size=(n_nodes * n, d))
    y = (X[:, 0] + 0.2 * groups * X[:, 1] > 0).astype(int)
    return X, y, groups


def test_stumps_on_more_features_than_X_name_base_predictors():
    """privacy.rst's recipe builds stumps for a known domain; built for more
    features than X has, the fit used to fail deep inside with numpy's
    "IndexError: index 3 is out of bounds for axis 1 with size 3"."""
    X, y, groups = _moons_like(d=3)
    stumps = make_stump_predictors([-1] * 5, [1] * 5, 20)
    assert max(s.feature for s in stumps) >= 3  # the case: some read a missing feature
    clf = DecentralizedBoostingClassifier(base_predictors=stumps, random_state=0)
    with pytest.raises(ValueError, match=r"of base_predictors reads feature [34], but X has "
                                         r"3 features"):
        clf.fit(X, y, groups=groups)


def test_stumps_on_fewer_features_than_X_still_fit():
    """Stumps on a subset of the features are a legitimate choice: they fit,
    and the base matrix holds the stumps' +-1 values for those features."""
    X, y, groups = _moons_like(d=3)
    stumps = make_stump_predictors([-1, -1], [1, 1], 10)
    clf = DecentralizedBoostingClassifier(base_predictors=stumps, random_state=0)
    clf.fit(X, y, groups=groups)
    assert clf.n_base_predictors_ == len(stumps) + (1 if clf.fit_intercept else 0)
    # One stump against its definition, column by column.
    s = stumps[3]
    expected = np.where(X[:, s.feature] > s.threshold, 1.0, -1.0)
    np.testing.assert_array_equal(s(X), expected)
    assert set(np.unique(s(X))) <= {-1.0, 1.0}


def test_stump_refuses_a_feature_out_of_range_directly():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"Stump\(feature=2, threshold=0\.5\) of base_predictors "
                                         r"reads feature 2, but X has 2 features"):
        Stump(2, 0.5)(X)
    # numpy's negative indices keep working (the last feature)
    np.testing.assert_array_equal(Stump(-1, -0.5)(X), np.ones(4))


@pytest.mark.parametrize("cv", [1, 0, "three", 2.5])
def test_multitask_cv_bad_cv_message_lists_each_choice_once(cv):
    """The message used to read "must be None, an int in the range [2, inf)
    or an int in the range [2, inf), ..., an iterable or None"."""
    from sklearn.utils._param_validation import InvalidParameterError

    from skfed import FederatedMultiTaskClassifierCV, FederatedMultiTaskRegressorCV

    X = np.zeros((4, 2))
    for cls, y in [(FederatedMultiTaskClassifierCV, [0, 1, 0, 1]),
                   (FederatedMultiTaskRegressorCV, [0.0, 1.0, 0.5, 1.5])]:
        with pytest.raises(InvalidParameterError) as info:
            cls(cv=cv).fit(X, y, groups=[0, 0, 1, 1])
        message = str(info.value)
        assert f"The 'cv' parameter of {cls.__name__} must be" in message
        assert message.count("an int in the range [2, inf)") == 1
        assert message.count("None") == 1


def test_multitask_cv_accepts_every_cv_it_documents():
    """None, an int >= 2, a splitter and an iterable of splits still pass, and
    an explicit iterable of WithinGroupKFold's splits chooses the C the
    default (three WithinGroupKFold folds) chooses."""
    from skfed import FederatedMultiTaskClassifierCV
    from skfed.model_selection import WithinGroupKFold

    X, y, groups = _moons_like(n_nodes=3, n=12, d=2)
    default = FederatedMultiTaskClassifierCV(Cs=[0.1, 10.0], random_state=0)
    default.fit(X, y, groups=groups)
    assert default.scores_.shape == (3, 2)
    splits = list(WithinGroupKFold(n_splits=3).split(X, y, groups))
    for cv in [None, 3, WithinGroupKFold(n_splits=3), splits]:
        clf = FederatedMultiTaskClassifierCV(Cs=[0.1, 10.0], cv=cv, random_state=0)
        clf.fit(X, y, groups=groups)
        assert clf.scores_.shape == (3, 2)
        assert clf.C_ in (0.1, 10.0)
    assert clf.C_ == default.C_
    np.testing.assert_array_equal(clf.scores_, default.scores_)


@pytest.mark.parametrize("weights", [False, True])
def test_multitask_cv_refuses_folds_without_a_node_with_or_without_weights(weights):
    """cv=GroupKFold(3) holds out whole nodes: every validation sample of a
    fold belongs to a node its fit never saw, scored by the shared model.
    With sample_weight=np.ones(n) that split was refused ("leaves node 2 no
    training sample with positive weight"); without sample_weight the same
    split was accepted and C chosen from the shared model's scores.  Weights
    of one must not change what is accepted."""
    from sklearn.model_selection import GroupKFold

    from skfed import FederatedMultiTaskClassifierCV, FederatedMultiTaskRegressorCV

    X, y, groups = _moons_like(n_nodes=6, n=10, d=2)
    kwargs = {"sample_weight": np.ones(len(y))} if weights else {}
    held_out_first = sorted(set(groups[next(GroupKFold(3).split(X, y, groups))[1]]))
    for cls, target in [(FederatedMultiTaskClassifierCV, y),
                        (FederatedMultiTaskRegressorCV, X[:, 0] + 0.1 * groups)]:
        with pytest.raises(ValueError, match=rf"Fold 0 of cv=GroupKFold.* leaves node "
                                             rf"{held_out_first[0]} "):
            cls(Cs=[1.0], cv=GroupKFold(3), random_state=0).fit(X, target, groups=groups,
                                                                **kwargs)


def test_multitask_cv_still_accepts_row_splits_that_keep_every_node():
    """A shuffled KFold over rows keeps samples of every node in every
    training fold here (checked), and is accepted as before."""
    from sklearn.model_selection import KFold

    from skfed import FederatedMultiTaskClassifierCV

    X, y, groups = _moons_like(n_nodes=3, n=20, d=2)
    cv = KFold(3, shuffle=True, random_state=0)
    for train, _ in cv.split(X):
        assert set(groups[train]) == set(groups)
    clf = FederatedMultiTaskClassifierCV(Cs=[0.1, 10.0], cv=cv, random_state=0)
    clf.fit(X, y, groups=groups)
    assert clf.scores_.shape == (3, 2)


def test_refit_prefer_defaults_names_a_non_estimator():
    """refit_prefer_defaults("abc") used to fail with "AttributeError: 'str'
    object has no attribute 'get_params'"."""
    from skfed.model_selection import refit_prefer_defaults

    with pytest.raises(TypeError, match=r"estimator must be the estimator given to the search"
                                        r".*got 'abc'"):
        refit_prefer_defaults("abc")


def test_refit_prefer_defaults_explains_an_all_nan_search():
    """With metadata routing on, scoring="accuracy" calls predict without
    node ids, so every fold's score is NaN; the refit rule then failed with
    numpy's bare "All-NaN slice encountered"."""
    import warnings

    import sklearn
    from sklearn.model_selection import GridSearchCV

    from skfed import PersonalizedLinearClassifier
    from skfed.model_selection import WithinGroupKFold, refit_prefer_defaults

    X, y, groups = _moons_like(n_nodes=3, n=12, d=2)
    est = PersonalizedLinearClassifier(random_state=0)
    search = GridSearchCV(est, {"mu": [0.1, 1.0]}, cv=WithinGroupKFold(3), scoring="accuracy",
                          refit=refit_prefer_defaults(est))
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the search's own "scoring failed"
        with pytest.raises(ValueError, match=r"every setting's mean_test_score is NaN.*"
                                             r"use make_group_scorer"):
            search.fit(X, y, groups=groups)


def test_refit_prefer_defaults_still_chooses_with_some_nan():
    """A setting whose folds all failed is skipped, as before: against a
    hand computation of the rule."""
    from skfed.model_selection import refit_prefer_defaults

    from sklearn.linear_model import LogisticRegression

    choose = refit_prefer_defaults(LogisticRegression(C=1.0), n_se=1.0)
    results = {"params": [{"C": 0.1}, {"C": 1.0}, {"C": 10.0}],
               "mean_test_score": np.array([np.nan, 0.80, 0.90]),
               "std_test_score": np.array([np.nan, 0.01, 0.02]),
               "split0_test_score": 0, "split1_test_score": 0, "split2_test_score": 0,
               "split3_test_score": 0}
    # best 0.90 beats the defaults' 0.80 by 0.10 > 1 * 0.02 / sqrt(4) = 0.01
    assert choose(results) == 2
    results["mean_test_score"] = np.array([np.nan, 0.895, 0.90])
    # 0.005 <= 0.01: keep the defaults
    assert choose(results) == 1
