"""make_group_scorer with a list of response methods, and its repr (review34).

* ``response_method=["decision_function", "predict_proba"]`` (the
  documented "first available one is used") on an estimator without
  ``decision_function`` called ``predict_proba`` but then tested the FIRST
  listed name for the binary positive-column rule, so ROC AUC received the
  two-column probabilities: "y should be a 1d array, got (120, 2)", pooled
  and per node (every GridSearchCV split NaN).  Fixed in
  ``skfed/model_selection.py`` (one line: the rule reads the method used).
* The scorer's repr drops ``greater_is_better`` and the metric's keyword
  arguments: ``make_group_scorer(mean_squared_error,
  greater_is_better=False)`` prints as the positive scorer, and two scorers
  with different ``**kwargs`` print alike (scikit-learn's ``make_scorer``
  repr shows both).  Fixed by the lead: the repr shows both.
"""

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, mean_squared_error, roc_auc_score
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB

from skfed import LocalEstimator
from skfed.model_selection import WithinGroupKFold, make_group_scorer


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=120) > 0).astype(int)
    return X, y, np.repeat(np.arange(4), 30)


def _reference(model, X, y, g, average):
    """roc_auc_score on the positive class's probability (NumPy loop over nodes)."""
    p = np.empty(len(y))
    for node in np.unique(g):
        rows = g == node
        p[rows] = model.estimators_[node].predict_proba(X[rows])[:, 1]
    if average == "samples":
        return roc_auc_score(y, p)
    return float(np.mean([roc_auc_score(y[g == k], p[g == k]) for k in np.unique(g)]))


@pytest.mark.parametrize("average", ["samples", "nodes"])
def test_listed_methods_fall_back_to_positive_probability(average):
    X, y, g = _data()
    model = LocalEstimator(GaussianNB()).fit(X, y, groups=g)
    assert not hasattr(model, "decision_function")
    scorer = make_group_scorer(roc_auc_score, average=average,
                               response_method=["decision_function", "predict_proba"])
    expected = _reference(model, X, y, g, average)
    assert 0.5 < expected < 1.0  # not a degenerate reference
    assert scorer(model, X, y, groups=g) == pytest.approx(expected, abs=1e-12)
    # listing predict_proba first gives the same number
    first = make_group_scorer(roc_auc_score, average=average, response_method="predict_proba")
    assert first(model, X, y, groups=g) == pytest.approx(expected, abs=1e-12)


def test_listed_methods_in_a_search():
    X, y, g = _data()
    scorer = make_group_scorer(roc_auc_score, average="nodes",
                               response_method=["decision_function", "predict_proba"])
    search = GridSearchCV(LocalEstimator(GaussianNB()), {"estimator__var_smoothing": [1e-9, 1e-3]},
                          scoring=scorer, cv=WithinGroupKFold(n_splits=3, stratify=True),
                          error_score="raise")
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=g)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_decision_function_still_used_first():
    # an estimator with decision_function: the first listed method, 1-D scores
    X, y, g = _data()
    model = LocalEstimator(LogisticRegression()).fit(X, y, groups=g)
    scorer = make_group_scorer(roc_auc_score,
                               response_method=["decision_function", "predict_proba"])
    expected = roc_auc_score(y, model.decision_function(X, groups=g))
    assert scorer(model, X, y, groups=g) == pytest.approx(expected, abs=1e-12)


def test_repr_distinguishes_sign_and_kwargs():
    loss = make_group_scorer(mean_squared_error, greater_is_better=False)
    gain = make_group_scorer(mean_squared_error)
    assert repr(loss) != repr(gain)
    assert repr(make_group_scorer(accuracy_score, normalize=False)) != repr(
        make_group_scorer(accuracy_score))
