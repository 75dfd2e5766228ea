"""Two messages a first-time user (user36) could not act on, and the routes they name.

* ``search.predict(X)`` on a ``GridSearchCV`` of a multi-node estimator,
  with metadata routing on, said "meta-estimators such as GridSearchCV
  route groups= to this method": scikit-learn's search routes ``groups``
  to ``fit`` and ``score`` but its ``predict`` takes no metadata.  The
  message now says which methods route and what to call instead; every
  route it names is exercised here.
* ``make_group_scorer("accuracy")`` said only "score_func must be
  callable"; it now says a metric function is expected and names one.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed import LocalEstimator
from skfed.boosting import PersonalizedLinearClassifier
from skfed.model_selection import WithinGroupKFold, make_group_scorer


def _data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(6), 40)
    X = rng.normal(size=(240, 3))
    sign = np.where(groups % 2 == 0, 1.0, -1.0)   # half the nodes flip the boundary
    y = (sign * X[:, 0] > 0).astype(int)
    return X, y, groups


def test_search_predict_message_names_the_routes_that_work():
    X, y, groups = _data()
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            make_pipeline(StandardScaler(), LocalEstimator(LogisticRegression())),
            {"localestimator__estimator__C": [0.1, 1.0]}, cv=GroupKFold(3),
            scoring=make_group_scorer(),
        ).fit(X, y, groups=groups)
        with pytest.raises(ValueError) as info:
            search.predict(X)
        message = " ".join(str(info.value).split())
        assert "fitted on 6 nodes" in message
        assert "GridSearchCV to fit and score" in message
        assert "search.best_estimator_ with groups=" in message
        assert "route groups= to this method" not in message
        # the routes it names: the best estimator (a Pipeline) takes groups= ...
        pred = search.best_estimator_.predict(X, groups=groups)
        # ... which are the per-node models' own predictions (reference)
        local = search.best_estimator_[-1]
        Z = search.best_estimator_[0].transform(X)
        for k, node in enumerate(local.nodes_):
            rows = groups == node
            assert np.array_equal(pred[rows], local.estimators_[k].predict(Z[rows]))
        # the search's score routes groups (the per-node models score 1.0 here,
        # a single pooled model scores about 0.5 on these flipped nodes)
        assert search.score(X, y, groups=groups) == pytest.approx(accuracy_score(y, pred))
        assert accuracy_score(y, pred) > 0.9


def test_search_predict_with_group_column_needs_no_routing():
    X, y, groups = _data()
    Xg = np.column_stack([groups, X])
    search = GridSearchCV(
        PersonalizedLinearClassifier(group_column=0, random_state=0), {"mu": [0.1, 1.0]},
        cv=3,
    ).fit(Xg, y)
    pred = search.predict(Xg)
    assert np.array_equal(pred, search.best_estimator_.predict(Xg))
    assert accuracy_score(y, pred) > 0.9
    # cross_val_predict, named in the message too: without routing, groups= reach
    # only the splitter, which must split inside every node (nodes.rst)
    est = PersonalizedLinearClassifier(group_column=0, random_state=0)
    within = cross_val_predict(est, Xg, y, cv=WithinGroupKFold(3), groups=groups)
    assert accuracy_score(y, within) > 0.9
    # cv=3 on rows sorted by node holds out whole nodes: each is predicted as an
    # unseen node by the average model, near chance on these flipped nodes
    whole = cross_val_predict(est, Xg, y, cv=3)
    assert accuracy_score(y, whole) < 0.65


def test_fit_warning_carries_the_same_help():
    X, y, _ = _data()
    with pytest.warns(UserWarning, match="search.best_estimator_ with groups="):
        PersonalizedLinearClassifier(random_state=0).fit(X, y)


def test_group_scorer_refuses_a_scorer_name_and_names_a_metric():
    with pytest.raises(TypeError, match=r"not a scorer name \('accuracy'\).*accuracy_score"):
        make_group_scorer("accuracy")
    with pytest.raises(TypeError, match="score_func must be callable, got 3"):
        make_group_scorer(3)
    X, y, groups = _data()
    model = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    scorer = make_group_scorer(accuracy_score)  # what the message says to pass
    assert scorer(model, X, y, groups=groups) == accuracy_score(
        y, model.predict(X, groups=groups))


def test_unknown_node_message_says_which_model_global_uses():
    # Perso-lin has no shared model: handle_unknown="global" averages the fitted
    # nodes' models, which the message now says instead of "the shared model"
    X, y, groups = _data()
    clf = PersonalizedLinearClassifier(random_state=0, handle_unknown="error")
    clf.fit(X, y, groups=groups)
    with pytest.raises(ValueError) as info:
        clf.predict(X[:3], groups=[9, 9, 9])
    message = str(info.value)
    assert "(9)" in message and "handle_unknown='global'" in message
    assert "the average of the fitted nodes' models" in message
    assert "add_nodes" in message
    clf.set_params(handle_unknown="global")   # the advice, checked against the average
    expected = X[:5] @ clf.coef_.mean(axis=0) + clf.intercept_.mean()
    np.testing.assert_allclose(clf.decision_function(X[:5], groups=[9] * 5), expected,
                               rtol=1e-12, atol=1e-12)


def _scaling_example():
    # nodes.rst's "Standardize the features" doctest, its data lines run as printed
    import doctest

    page = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "nodes.rst"
    if not page.exists():
        pytest.skip("doc/user_guide/nodes.rst is not in this checkout")
    examples = doctest.DocTestParser().get_examples(page.read_text())
    start = next(i for i, e in enumerate(examples) if "groups = np.repeat(np.arange(10)" in e.source)
    stop = next(i for i, e in enumerate(examples) if e.source.startswith("raw = "))
    namespace = {"np": np}
    for example in examples[start - 1:stop]:   # from rng = ... to train = ...
        exec(compile(example.source, "nodes.rst", "exec"), namespace)  # noqa: S102
    assert namespace["X"][:, 0].std() > 100    # the feature in other units
    train = namespace["train"]
    return namespace["X"][train], namespace["y"][train], namespace["groups"][train]


def test_empty_dictionary_warning_names_the_feature_scale():
    # The raw fit of nodes.rst's scaling example ends with every dictionary empty;
    # the warning said "small sample weights ... rescale sample_weight" to a user
    # who passed none.  It now gives K = max k(x, x) and says to scale the features.
    from sklearn.exceptions import ConvergenceWarning

    from skfed import DecentralizedKernelSGDClassifier

    X, y, groups = _scaling_example()
    with pytest.warns(ConvergenceWarning) as caught:
        raw = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=groups)
    assert raw.kernel_ == "linear" and not np.any(raw._sizes)
    message = " ".join(str(w.message) for w in caught)
    k_max = (X ** 2).sum(axis=1).max()   # the linear kernel's k(x, x), largest row
    assert f"K = max k(x, x) = {k_max:.3g}" in message and k_max > 1e6
    assert "the largest sample weight s_max = 1," in message
    assert "put the features on a unit scale (StandardScaler)" in message
    assert "rescale sample_weight" not in message
    assert raw.eta0_ == pytest.approx(1 / (raw.alpha + k_max * (1 + raw.consensus_penalty_
                                                                  * raw._lambda_max)))
    # the advice: standardized, the fit keeps its terms and warns nothing
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        pipe = make_pipeline(StandardScaler(), DecentralizedKernelSGDClassifier(random_state=0))
        pipe.fit(X, y, groups=groups)
    assert np.all(pipe[-1]._sizes[:10] > 0)
    # nodes.rst says what the raw fit is: class 0 everywhere, and the warning
    assert np.all(raw.predict(X, groups=groups) == 0)
    page = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "nodes.rst"
    if page.exists():
        text = " ".join(page.read_text().split())
        assert ("costs kernel SGD 0.90 -> 0.54 accuracy (the step shrinks with the largest "
                "``k(x, x)``, so every new term falls under the KOMP budget: every node's "
                "function stays 0 and predicts class 0 everywhere; the fit warns with a "
                "``ConvergenceWarning`` that names ``K`` and says to scale)") in text


def test_support_too_few_reports_names_n_reported():
    # "more features reported per client" named no parameter; it is n_reported,
    # and following it (the default: every feature) recovers the true support
    import math

    from skfed import FederatedSupportRecovery
    from skfed.datasets import make_federated_sparse_regression

    X, y, groups, coef, *_ = make_federated_sparse_regression(random_state=0)
    one = FederatedSupportRecovery(n_reported=1, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        one.fit(X, y, groups=groups)
    message = next(str(w.message) for w in caught if "Too few reports" in str(w.message))
    assert "more features reported per client: raise n_reported" in message
    assert not one.support_.any()
    # the count it quotes: reports r with reference_rate_ ** r <= fwer / d
    fwer = 0.05   # the default family-wise error rate, as the message prints it
    d = X.shape[1]
    assert f"fwer / n_features = {fwer / d:.2g}" in message
    needed = math.ceil(math.log(fwer / d) / math.log(one.reference_rate_))
    assert f"At least {needed} reports per feature are needed" in message
    full = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    assert np.array_equal(np.flatnonzero(full.support_), np.flatnonzero(coef))
