"""WithinGroupKFold, make_group_scorer and GridSearchCV with and without routing."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, mean_squared_error
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed import LocalEstimator, SingleNodeWarning
from skfed.model_selection import (
    WithinGroupKFold,
    WithinGroupShuffleSplit,
    make_group_scorer,
    refit_prefer_defaults,
)


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    groups = np.repeat([0, 1, 2], [20, 31, 25])
    X = rng.normal(size=(len(groups), 3))
    y = np.where(groups == 1, X[:, 1] > 0, X[:, 0] > 0).astype(int)
    return X, y, groups


def test_every_fold_holds_out_part_of_every_node(data):
    X, y, groups = data
    cv = WithinGroupKFold(n_splits=4)
    seen = np.zeros(len(y), dtype=int)
    for train, test in cv.split(X, y, groups):
        assert set(groups[train]) == set(groups[test]) == {0, 1, 2}
        assert len(np.intersect1d(train, test)) == 0
        assert len(train) + len(test) == len(y)
        for node, n in zip([0, 1, 2], [20, 31, 25]):
            # Node folds differ in size by at most one sample.
            assert (groups[test] == node).sum() in (n // 4, n // 4 + 1)
        seen[test] += 1
    np.testing.assert_array_equal(seen, 1)
    assert cv.get_n_splits() == 4


def test_stratified_folds_keep_node_class_balance():
    groups = np.repeat([0, 1], 40)
    y = np.concatenate([np.repeat([0, 1], [30, 10]), np.repeat([0, 1], [8, 32])])
    X = np.zeros((80, 1))
    for train, test in WithinGroupKFold(4, stratify=True).split(X, y, groups):
        for node, n_pos in [(0, 10), (1, 32)]:
            in_test = test[groups[test] == node]
            assert y[in_test].sum() in (n_pos // 4, n_pos // 4 + 1)


def test_shuffle_is_seeded_and_errors_are_clear(data):
    X, y, groups = data
    a = [t for _, t in WithinGroupKFold(3, shuffle=True, random_state=0).split(X, y, groups)]
    b = [t for _, t in WithinGroupKFold(3, shuffle=True, random_state=0).split(X, y, groups)]
    c = [t for _, t in WithinGroupKFold(3).split(X, y, groups)]
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    assert not all(np.array_equal(u, v) for u, v in zip(a, c))
    with pytest.raises(ValueError, match="groups="):
        list(WithinGroupKFold(3).split(X, y))
    with pytest.raises(ValueError, match="Node 7 has 2 samples"):
        list(WithinGroupKFold(3).split(X[:22], y[:22], np.r_[groups[:20], 7, 7]))
    with pytest.raises(ValueError, match="n_splits"):
        WithinGroupKFold(1)
    with pytest.raises(ValueError, match="shuffle"):
        WithinGroupKFold(3, random_state=0)
    rare = np.r_[np.zeros(19, int), 1]
    with pytest.warns(UserWarning, match="Node 0 has a class with 1 samples"):
        list(WithinGroupKFold(3, stratify=True).split(X[:20], rare, groups[:20]))


def test_group_scorer_passes_node_ids(data):
    X, y, groups = data
    est = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    scorer = make_group_scorer(accuracy_score)
    assert scorer(est, X, y, groups=groups) == accuracy_score(y, est.predict(X, groups=groups))
    loss = make_group_scorer(mean_squared_error, greater_is_better=False)
    assert loss(est, X, y, groups=groups) == -mean_squared_error(y, est.predict(X, groups=groups))
    proba = make_group_scorer(lambda t, p: p.mean(), response_method="predict_proba")
    assert proba(est, X, y, groups=groups) == est.predict_proba(X, groups=groups)[:, 1].mean()
    with pytest.raises(TypeError, match="callable"):
        make_group_scorer("accuracy")


def test_grid_search_with_routing_tunes_personalized_models(data):
    X, y, groups = data
    search = GridSearchCV(
        make_pipeline(StandardScaler(), LocalEstimator(LogisticRegression())),
        {"localestimator__estimator__C": [0.01, 10.0]},
        cv=WithinGroupKFold(n_splits=3),
        scoring=make_group_scorer(accuracy_score),
    )
    with sklearn.config_context(enable_metadata_routing=True):
        with warnings.catch_warnings():
            warnings.simplefilter("error", SingleNodeWarning)  # groups must reach fit
            search.fit(X, y, groups=groups)
        assert search.best_estimator_[-1].nodes_.tolist() == [0, 1, 2]
        # The refitted model predicts per node with routed ids.
        assert search.score(X, y, groups=groups) > 0.9
    # The search's scores equal a manual per-fold computation.
    for i, C in enumerate([0.01, 10.0]):
        manual = []
        for train, test in WithinGroupKFold(n_splits=3).split(X, y, groups):
            model = make_pipeline(StandardScaler(), LocalEstimator(LogisticRegression(C=C)))
            with sklearn.config_context(enable_metadata_routing=True):
                model.fit(X[train], y[train], groups=groups[train])
                manual.append(accuracy_score(y[test], model.predict(X[test], groups=groups[test])))
        assert search.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(manual))


def test_grid_search_without_routing_warns_and_fails_clearly(data):
    X, y, groups = data
    search = GridSearchCV(
        LocalEstimator(LogisticRegression()),
        {"estimator__C": [1.0]},
        cv=WithinGroupKFold(n_splits=3),
        scoring=make_group_scorer(accuracy_score),
        error_score="raise",
    )
    # fit never sees the node ids (only the splitter does) ...
    with pytest.warns(SingleNodeWarning):
        search.fit(X, y, groups=groups)
    # ... so the per-node scorer falls back to a one-node model: a silent
    # loss of personalization that the warning above is there to reveal.
    assert search.best_estimator_.nodes_.tolist() == [0]


def test_group_column_works_without_routing(data):
    X, y, groups = data
    X_col = np.column_stack([groups, X])
    scores = cross_val_score(
        LocalEstimator(LogisticRegression(), group_column=0),
        X_col,
        y,
        groups=groups,
        cv=WithinGroupKFold(n_splits=3),
        scoring="accuracy",
    )
    assert scores.mean() > 0.9


def _k_se_choice(mean, std, params, anchor, n_splits, n_se):
    """Independent reference: the anchored k-standard-error rule, by hand."""
    best = max(range(len(mean)), key=lambda i: (mean[i], -i))
    for i, p in enumerate(params):
        if all(anchor[k] == v for k, v in p.items()):
            return i if mean[best] - mean[i] <= n_se * std[best] / n_splits**0.5 else best
    return best


@pytest.mark.parametrize("anchor_C, n_splits, n_se",
                         [(1.0, 3, 2.0), (1.0, 3, 1.0), (0.001, 4, 2.0), (100.0, 3, 2.0),
                          (5.0, 3, 2.0)])
def test_refit_prefer_defaults_keeps_the_defaults_within_k_standard_errors(
    data, anchor_C, n_splits, n_se
):
    X, y, groups = data
    estimator = LocalEstimator(LogisticRegression(C=anchor_C))
    grid = {"estimator__C": [0.001, 0.01, 1.0, 100.0]}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            estimator, grid, cv=WithinGroupKFold(n_splits=n_splits, shuffle=True,
                                                random_state=1),
            scoring={"acc": make_group_scorer()},
            refit=refit_prefer_defaults(estimator, "acc", n_se=n_se),
        ).fit(X, y, groups=groups)
    res = search.cv_results_
    expected = _k_se_choice(res["mean_test_acc"], res["std_test_acc"], res["params"],
                            estimator.get_params(), n_splits, n_se)
    assert search.best_index_ == expected
    mean = res["mean_test_acc"]
    if anchor_C == 0.001:
        # C=0.001 predicts one class per node: clearly beaten, so not kept.
        assert mean.max() - mean[0] > res["std_test_acc"][mean.argmax()] / n_splits**0.5
        assert search.best_params_ != {"estimator__C": 0.001}
    elif anchor_C == 1.0:
        assert search.best_params_ == {"estimator__C": 1.0}
    else:
        # C=100 loses by more than 2 standard errors; C=5 is not in the grid:
        # the best setting either way.
        assert search.best_index_ == int(np.argmax(mean))
    with pytest.raises(KeyError, match="mean_test_accuracy"):
        refit_prefer_defaults(estimator, "accuracy")(res)
    with pytest.raises(ValueError, match="n_se"):
        refit_prefer_defaults(estimator, "acc", n_se=-1)


def test_within_group_shuffle_split_holds_out_test_size_of_every_node(data):
    """Each split holds out exactly test_size samples of every node; a node's
    held-out samples follow one permutation (distinct while it has enough)."""
    X, y, groups = data
    groups = np.array([f"n{g}" for g in groups])  # any hashable labels
    for test_size in (1, 3):
        cv = WithinGroupShuffleSplit(n_splits=6, test_size=test_size, random_state=0)
        splits = list(cv.split(X, y, groups))
        assert len(splits) == cv.get_n_splits() == 6
        held = {node: [] for node in np.unique(groups)}
        for train, test in splits:
            assert len(np.intersect1d(train, test)) == 0
            assert len(train) + len(test) == len(y)
            for node in held:
                mine = test[groups[test] == node]
                assert len(mine) == test_size
                held[node].extend(mine.tolist())
        # 6 * test_size <= 20: no node repeats a held-out sample.
        for node, rows in held.items():
            assert len(set(rows)) == len(rows) == 6 * test_size
    # Seeded; a different seed draws other samples.
    a = [t.tolist() for _, t in WithinGroupShuffleSplit(4, random_state=1).split(X, y, groups)]
    b = [t.tolist() for _, t in WithinGroupShuffleSplit(4, random_state=1).split(X, y, groups)]
    c = [t.tolist() for _, t in WithinGroupShuffleSplit(4, random_state=2).split(X, y, groups)]
    assert a == b and a != c
    # A small node cycles through its permutation: with 3 samples, split 3 = split 0.
    small = np.repeat([0, 1], [3, 8])
    tests = [t for _, t in WithinGroupShuffleSplit(5, random_state=0).split(
        np.zeros((11, 1)), groups=small)]
    node0 = [int(t[t < 3][0]) for t in tests]
    assert sorted(node0[:3]) == [0, 1, 2] and node0[3:] == node0[:2]
    node1 = [int(t[t >= 3][0]) for t in tests]
    assert len(set(node1)) == 5
    with pytest.raises(ValueError, match="Node 0 has 3 samples, not more than test_size=3"):
        list(WithinGroupShuffleSplit(2, test_size=3).split(np.zeros((11, 1)), groups=small))
    with pytest.raises(ValueError, match="test_size"):
        WithinGroupShuffleSplit(test_size=0)
    with pytest.raises(ValueError, match="n_splits"):
        WithinGroupShuffleSplit(n_splits=1)
    with pytest.raises(ValueError, match="node id"):
        list(WithinGroupShuffleSplit().split(X, y))
    # Routed through GridSearchCV like WithinGroupKFold.
    search = GridSearchCV(LocalEstimator(LogisticRegression()), {"estimator__C": [0.01, 10.0]},
                          cv=WithinGroupShuffleSplit(5, random_state=0),
                          scoring=make_group_scorer(accuracy_score))
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=groups)
    assert search.n_splits_ == 5
    assert search.best_estimator_.nodes_.tolist() == ["n0", "n1", "n2"]


def test_small_nodes_keep_trains_on_every_small_node_and_holds_out_one_sample_per_fold(data):
    X, y, groups = data
    # Nodes 7 (2 samples) and 8 (1 sample) are smaller than n_splits=3.
    Xs = np.vstack([X, X[:3]])
    ys = np.r_[y, y[:3]]
    gs = np.r_[groups, 7, 7, 8]
    with pytest.warns(UserWarning, match=r"2 node\(s\) have fewer than n_splits=3 samples \(7, 8\)"):
        splits = list(WithinGroupKFold(3, small_nodes="keep").split(Xs, ys, gs))
    held = np.zeros(len(ys), dtype=int)
    for train, test in splits:
        # Every node, small ones included, keeps training samples in every fold.
        assert set(gs[train]) == {0, 1, 2, 7, 8}
        assert (gs[test] == 7).sum() <= 1
        held[test] += 1
    # Node 7's two samples are each held out once; node 8's one sample never.
    np.testing.assert_array_equal(held[-3:], [1, 1, 0])
    np.testing.assert_array_equal(held[:-3], 1)
    # The large nodes' folds are those of the default splitter.
    plain = list(WithinGroupKFold(3).split(X, y, groups))
    for (_, t_small), (_, t_plain) in zip(splits, plain):
        np.testing.assert_array_equal(t_small[t_small < len(y)], t_plain)
    # Shuffled: m distinct folds, reproducible.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = [t for _, t in WithinGroupKFold(3, shuffle=True, small_nodes="keep",
                                            random_state=1).split(Xs, ys, gs)]
        b = [t for _, t in WithinGroupKFold(3, shuffle=True, small_nodes="keep",
                                            random_state=1).split(Xs, ys, gs)]
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    assert sum(int(np.isin(len(ys) - 3, t)) + int(np.isin(len(ys) - 2, t)) for t in a) == 2
    with pytest.raises(ValueError, match='small_nodes must be "raise" or "keep"'):
        WithinGroupKFold(3, small_nodes="drop")
    # More folds than the largest node has samples: refused, not empty folds.
    with pytest.raises(ValueError, match="n_splits=40 is more than the largest node's 31"):
        list(WithinGroupKFold(40, small_nodes="keep").split(Xs, ys, gs))


def test_multitask_cv_fits_a_federation_with_nodes_smaller_than_the_folds(data):
    from skfed import FederatedMultiTaskClassifierCV

    X, y, groups = data
    Xs = np.vstack([X, X[:3]])
    ys = np.r_[y, [0, 1, 1]]
    gs = np.r_[groups, 7, 7, 8]
    with pytest.warns(UserWarning, match="fewer than n_splits=3"):
        model = FederatedMultiTaskClassifierCV(Cs=[0.1, 1.0], kernel="linear",
                                               random_state=0).fit(Xs, ys, groups=gs)
    assert model.scores_.shape == (3, 2)
    assert np.all(np.isfinite(model.scores_))
    assert set(model.nodes_.tolist()) == {0, 1, 2, 7, 8}
    assert model.predict(X[:2], groups=[7, 8]).shape == (2,)
