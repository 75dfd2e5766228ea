"""make_group_scorer(average="nodes"): the mean per-node metric, against a NumPy loop."""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    mean_squared_error,
    r2_score,
    roc_auc_score,
)
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed import LocalEstimator
from skfed.model_selection import (
    WithinGroupKFold,
    WithinGroupShuffleSplit,
    make_group_scorer,
)

NODES = np.array(["north", "south", "east", "west"])


# ----------------------------------------------------------- NumPy references
def _accuracy(y, p, w):
    return np.sum(w * (y == p)) / np.sum(w)


def _balanced_accuracy(y, p, w):
    return np.mean([np.sum(w[y == c] * (p[y == c] == c)) / np.sum(w[y == c])
                    for c in np.unique(y)])


def _neg_mse(y, p, w):
    return -np.sum(w * (y - p) ** 2) / np.sum(w)


def _r2(y, p, w):
    mean = np.sum(w * y) / np.sum(w)
    return 1.0 - np.sum(w * (y - p) ** 2) / np.sum(w * (y - mean) ** 2)


def _auc(y, s, w):
    """Weighted Mann-Whitney statistic: P(score of a positive > a negative)."""
    pos, neg = y == 1, y == 0
    diff = s[pos][:, None] - s[neg][None, :]
    pair_w = w[pos][:, None] * w[neg][None, :]
    wins = (diff > 0) + 0.5 * (diff == 0)
    return np.sum(pair_w * wins) / np.sum(pair_w)


def _node_mean(reference, y, p, groups, w=None):
    w = np.ones(len(y)) if w is None else w
    return np.mean([reference(y[groups == g], p[groups == g], w[groups == g])
                    for g in np.unique(groups)])


@pytest.fixture
def classification():
    rng = np.random.RandomState(0)
    # One big node and three small ones: the pooled and per-node scores differ.
    sizes = [120, 30, 24, 18]
    groups = np.repeat(NODES, sizes)
    X = rng.normal(size=(len(groups), 3))
    flip = np.isin(groups, ["south", "west"])
    y = (np.where(flip, -X[:, 0], X[:, 0]) + 0.8 * rng.normal(size=len(groups)) > 0).astype(int)
    return X, y, groups


@pytest.fixture
def regression():
    rng = np.random.RandomState(1)
    groups = np.repeat(NODES, [90, 14, 11, 8])
    X = rng.normal(size=(len(groups), 3))
    slope = np.select([groups == "north", groups == "south"], [2.0, -1.0], 0.5)
    y = slope * X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=len(groups))
    return X, y, groups


def _split(X, y, groups):
    """Every third row of every node is a test row."""
    rank = np.zeros(len(y), dtype=int)
    for g in np.unique(groups):
        rank[groups == g] = np.arange((groups == g).sum())
    test = rank % 3 == 0
    return (X[~test], y[~test], groups[~test]), (X[test], y[test], groups[test])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "metric, reference, kwargs",
    [
        (accuracy_score, _accuracy, {}),
        (balanced_accuracy_score, _balanced_accuracy, {}),
        (roc_auc_score, _auc, {"response_method": "decision_function"}),
        (roc_auc_score, _auc, {"response_method": "predict_proba"}),
        (roc_auc_score, _auc, {"response_method": ["decision_function", "predict_proba"]}),
    ],
)
def test_node_average_equals_a_numpy_loop_over_nodes_classification(
    classification, metric, reference, kwargs, weighted
):
    (X, y, groups), (Xt, yt, gt) = _split(*classification)
    model = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    w = np.random.RandomState(2).uniform(0.2, 3.0, len(yt)) if weighted else None
    method = kwargs.get("response_method", "predict")
    method = method if isinstance(method, str) else method[0]
    out = getattr(model, method)(Xt, groups=gt)
    out = out[:, 1] if out.ndim == 2 else out
    expected = _node_mean(reference, yt, out, gt, w)
    pooled = reference(yt, out, np.ones(len(yt)) if w is None else w)

    scorer = make_group_scorer(metric, average="nodes", **kwargs)
    got = scorer(model, Xt, yt, groups=gt, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # The default stays the pooled metric.
    pooled_scorer = make_group_scorer(metric, **kwargs)
    assert pooled_scorer(model, Xt, yt, groups=gt, sample_weight=w) == pytest.approx(pooled)
    # Four nodes are scored, each with both classes (ROC AUC is defined).
    assert [len(np.unique(yt[gt == g])) for g in NODES] == [2, 2, 2, 2]
    assert 0.0 <= got <= 1.0


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "metric, reference, greater",
    [(r2_score, _r2, True), (mean_squared_error, _neg_mse, False)],
)
def test_node_average_equals_a_numpy_loop_over_nodes_regression(
    regression, metric, reference, greater, weighted
):
    (X, y, groups), (Xt, yt, gt) = _split(*regression)
    model = LocalEstimator(Ridge()).fit(X, y, groups=groups)
    w = np.random.RandomState(3).uniform(0.2, 3.0, len(yt)) if weighted else None
    pred = model.predict(Xt, groups=gt)
    expected = _node_mean(reference, yt, pred, gt, w)
    scorer = make_group_scorer(metric, greater_is_better=greater, average="nodes")
    assert scorer(model, Xt, yt, groups=gt, sample_weight=w) == pytest.approx(expected, rel=1e-12)


def test_node_average_differs_from_pooled_when_one_node_is_big():
    # A node of 90 rows all right and three of 3 rows all wrong: pooled 90/99,
    # mean over nodes 1/4.
    groups = np.repeat(["big", "a", "b", "c"], [90, 3, 3, 3])
    X = np.zeros((99, 1))
    y = np.zeros(99, dtype=int)
    y[90:] = 1

    class Constant:
        def predict(self, X, groups=None):
            return np.zeros(len(X), dtype=int)

    pooled = make_group_scorer()(Constant(), X, y, groups=groups)
    nodes = make_group_scorer(average="nodes")(Constant(), X, y, groups=groups)
    assert pooled == pytest.approx(90 / 99)
    assert nodes == pytest.approx(0.25)


def test_one_row_node_is_scored_and_undefined_metrics_name_the_node(classification):
    (X, y, groups), _ = _split(*classification)
    model = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    Xt = np.vstack([X[:6], X[-1:]])
    gt = np.r_[groups[:6], ["solo"]]
    yt = np.r_[y[:6], y[-1]]
    pred = model.predict(Xt, groups=gt)  # "solo" is unknown: the global model
    # A one-row node counts as one node: its accuracy is 0 or 1.
    expected = np.mean([np.mean(pred[:6] == yt[:6]), float(pred[6] == yt[6])])
    assert make_group_scorer(average="nodes")(model, Xt, yt, groups=gt) == pytest.approx(expected)
    # R^2 is undefined on one row: the error names the node.
    reg = LocalEstimator(Ridge()).fit(X, y.astype(float), groups=groups)
    with pytest.raises(ValueError, match=r"r2_score is undefined \(NaN\) on node 'solo' "
                                         r"\(1 scored row"):
        make_group_scorer(r2_score, average="nodes")(reg, Xt, yt.astype(float), groups=gt)
    # ROC AUC on a node whose scored rows hold one class.
    one_class = np.r_[np.zeros(3, int), 1, 0, 1, 1]
    gt2 = np.r_[["p"] * 3, ["q"] * 4]
    with pytest.raises(ValueError, match=r"on node 'p' \(3 scored row\(s\), 1 distinct"):
        make_group_scorer(roc_auc_score, response_method="decision_function",
                          average="nodes")(model, Xt, one_class, groups=gt2)
    # The pooled score of the same rows is defined.
    make_group_scorer(roc_auc_score, response_method="decision_function")(
        model, Xt, one_class, groups=gt2)


def test_multiclass_proba_rows_are_split_by_node():
    rng = np.random.RandomState(4)
    groups = np.repeat(["a", "b"], [60, 45])
    X = rng.normal(size=(105, 2))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=105), [-0.5, 0.5])
    model = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    proba = model.predict_proba(X, groups=groups)
    expected = np.mean([
        np.mean([_auc((y[groups == g] == c).astype(int), proba[groups == g, c],
                      np.ones((groups == g).sum())) for c in range(3)])
        for g in ["a", "b"]
    ])
    scorer = make_group_scorer(roc_auc_score, response_method="predict_proba",
                               average="nodes", multi_class="ovr")
    assert scorer(model, X, y, groups=groups) == pytest.approx(expected, rel=1e-12)


def _manual_search_scores(make_model, grid_key, values, X, y, groups, cv, reference):
    """Mean over folds of the mean over nodes, by hand, for every grid value."""
    means = []
    for value in values:
        fold_scores = []
        for train, test in cv.split(X, y, groups):
            model = make_model().set_params(**{grid_key: value})
            with sklearn.config_context(enable_metadata_routing=True):
                model.fit(X[train], y[train], groups=groups[train])
                pred = model.predict(X[test], groups=groups[test])
            fold_scores.append(_node_mean(reference, y[test], pred, groups[test]))
        means.append(np.mean(fold_scores))
    return np.array(means)


@pytest.mark.parametrize(
    "cv",
    [WithinGroupKFold(n_splits=3, shuffle=True, random_state=0),
     WithinGroupShuffleSplit(n_splits=3, test_size=2, random_state=0),
     GroupKFold(n_splits=4)],
    ids=["within-kfold", "within-shuffle", "group-kfold"],
)
def test_grid_search_with_routing_selects_on_the_node_mean(classification, cv):
    X, y, groups = classification

    def make_model():
        return make_pipeline(StandardScaler(), LocalEstimator(LogisticRegression()))

    key, values = "localestimator__estimator__C", [0.001, 1.0]
    search = GridSearchCV(make_model(), {key: values}, cv=cv,
                          scoring=make_group_scorer(average="nodes"), error_score="raise")
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=groups)
    expected = _manual_search_scores(make_model, key, values, X, y, groups, cv, _accuracy)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, rtol=1e-12)
    if isinstance(cv, GroupKFold):
        # Every test fold holds whole nodes: the one node of a 4-fold split.
        assert all(len(np.unique(groups[t])) == 1 for _, t in cv.split(X, y, groups))


def test_routed_sample_weight_reaches_each_node(classification):
    X, y, groups = classification
    w = np.random.RandomState(5).uniform(0.2, 3.0, len(y))
    cv = WithinGroupKFold(n_splits=3)
    scorer = make_group_scorer(average="nodes").set_score_request(sample_weight=True)
    with sklearn.config_context(enable_metadata_routing=True):
        model = LocalEstimator(LogisticRegression()).set_fit_request(sample_weight=False)
        scores = cross_val_score(model, X, y, cv=cv, scoring=scorer,
                                 params={"groups": groups, "sample_weight": w},
                                 error_score="raise")
        expected, unweighted = [], []
        for train, test in cv.split(X, y, groups):
            fitted = LocalEstimator(LogisticRegression()).fit(X[train], y[train],
                                                              groups=groups[train])
            pred = fitted.predict(X[test], groups=groups[test])
            expected.append(_node_mean(_accuracy, y[test], pred, groups[test], w[test]))
            unweighted.append(_node_mean(_accuracy, y[test], pred, groups[test]))
    np.testing.assert_allclose(scores, expected, rtol=1e-12)
    # The weights changed the scores: they were routed, not dropped.
    assert np.abs(np.array(expected) - unweighted).max() > 1e-3


def test_group_column_without_routing(classification):
    X, y, groups = classification
    codes = np.unique(groups, return_inverse=True)[1].astype(float)
    X_col = np.column_stack([X[:, :1], codes, X[:, 1:]])
    cv = WithinGroupKFold(n_splits=3)
    expected, expected_scaled = [], []
    for train, test in cv.split(X, y, groups):
        fitted = LocalEstimator(LogisticRegression()).fit(X[train], y[train],
                                                          groups=groups[train])
        pred = fitted.predict(X[test], groups=groups[test])
        expected.append(_node_mean(_accuracy, y[test], pred, groups[test]))
        mean, std = X[train].mean(axis=0), X[train].std(axis=0)
        fitted = LocalEstimator(LogisticRegression()).fit((X[train] - mean) / std, y[train],
                                                          groups=groups[train])
        pred = fitted.predict((X[test] - mean) / std, groups=groups[test])
        expected_scaled.append(_node_mean(_accuracy, y[test], pred, groups[test]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SingleNodeWarning: the ids come from X
        # The estimator's own group_column is used by the scorer ...
        own = cross_val_score(LocalEstimator(LogisticRegression(), group_column=1), X_col, y,
                              groups=groups, cv=cv, scoring=make_group_scorer(average="nodes"))
        # ... and a Pipeline names the column on the scorer.
        pipe = make_pipeline(StandardScaler(), LocalEstimator(LogisticRegression(),
                                                              group_column=1))
        named = cross_val_score(pipe, X_col, y, groups=groups, cv=cv,
                                scoring=make_group_scorer(average="nodes", group_column=1))
    np.testing.assert_allclose(own, expected, rtol=1e-12)
    np.testing.assert_allclose(named, expected_scaled, rtol=1e-12)
    # Without ids the error names both routes.
    with pytest.raises(ValueError, match="group_column"):
        cross_val_score(pipe, X_col, y, groups=groups, cv=cv,
                        scoring=make_group_scorer(average="nodes"), error_score="raise")


def test_group_column_by_name_and_bad_input(classification):
    pd = pytest.importorskip("pandas")
    (X, y, groups), (Xt, yt, gt) = _split(*classification)
    frame = pd.DataFrame(X, columns=["f0", "f1", "f2"]).assign(node=groups)
    test = pd.DataFrame(Xt, columns=["f0", "f1", "f2"]).assign(node=gt)
    model = LocalEstimator(LogisticRegression(), group_column="node").fit(frame, y)
    pred = model.predict(test)
    expected = _node_mean(_accuracy, yt, pred, gt)
    assert make_group_scorer(average="nodes")(model, test, yt) == pytest.approx(expected)
    assert make_group_scorer(average="nodes", group_column="node")(
        model, test, yt) == pytest.approx(expected)
    with pytest.raises(ValueError, match="average must be"):
        make_group_scorer(average="macro")
    with pytest.raises(ValueError, match='only with average="nodes"'):
        make_group_scorer(group_column=0)
    with pytest.raises(TypeError, match="group_column must be"):
        make_group_scorer(average="nodes", group_column=True)
    with pytest.raises(ValueError, match="groups has 3 entries"):
        make_group_scorer(average="nodes")(model, test, yt, groups=gt[:3])
    assert "average='nodes'" in repr(make_group_scorer(average="nodes"))


def test_user_guide_example_runs_and_gives_its_numbers():
    """The node-average block of doc/user_guide/model_selection.rst, with its comments."""
    page = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "model_selection.rst"
    if not page.exists():
        pytest.skip("doc/user_guide/model_selection.rst is not in this checkout")
    lines = page.read_text().splitlines()
    start = lines.index("**Pooled or per-node score.**  A scorer from")
    start = lines.index(".. code-block:: python", start) + 1
    body = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("   "):
            break
        body.append(line[3:])
    source = "\n".join(body)
    namespace = {}
    exec(compile(source, str(page), "exec"), namespace)
    checked = 0
    for line in body:
        match = re.match(r"(.+?)\s*#\s*\[([-\d. ]+)\]\s*$", line)
        if match:
            value = eval(match.group(1), namespace)
            expected = np.array(match.group(2).split(), dtype=float)
            np.testing.assert_allclose(value, expected, atol=1e-12)
            checked += 1
    assert checked == 2
    assert namespace["search"].best_params_ == {"estimator__C": 1.0}
