"""The estimator contract of skfed._base, exercised through LocalEstimator."""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression

from skfed import LocalEstimator, SingleNodeWarning
from skfed._base import NodeLayout, check_groups, node_seeds


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(90, 3))
    groups = np.repeat(["n1", "n2", "n3"], 30)
    rng.shuffle(groups)
    # Each node has its own rule: a local model is needed.
    y = np.select(
        [groups == "n1", groups == "n2"], [X[:, 0] > 0, X[:, 1] > 0], X[:, 2] > 0
    ).astype(int)
    return X, y, groups


def test_nodes_and_layout(data):
    X, y, groups = data
    est = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    np.testing.assert_array_equal(est.nodes_, ["n1", "n2", "n3"])
    layout = NodeLayout(np.searchsorted(est.nodes_, groups), 3)
    np.testing.assert_array_equal(layout.counts, [30, 30, 30])
    np.testing.assert_array_equal(layout.offsets, [0, 30, 60, 90])
    for node in range(3):
        rows = layout.node_indices(node)
        assert np.all(groups[rows] == est.nodes_[node])
        assert np.all(np.diff(rows) > 0)  # stable: original order inside a node
    np.testing.assert_array_equal(layout.unsort(layout.sort(X)), X)


def test_group_column_index_and_name_agree_with_groups(data):
    X, y, groups = data
    codes = np.searchsorted(np.unique(groups), groups).astype(float)
    X_col = np.column_stack([X[:, :1], codes, X[:, 1:]])
    ref = LocalEstimator(LogisticRegression()).fit(X, y, groups=codes)
    by_index = LocalEstimator(LogisticRegression(), group_column=1).fit(X_col, y)
    assert by_index.n_features_in_ == 4
    np.testing.assert_array_equal(by_index.predict(X_col), ref.predict(X, groups=codes))
    # Both routes at once must agree.
    by_index.fit(X_col, y, groups=codes)
    with pytest.raises(ValueError, match="disagree"):
        by_index.fit(X_col, y, groups=codes[::-1])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(node=groups)
    by_name = LocalEstimator(LogisticRegression(), group_column="node").fit(frame, y)
    np.testing.assert_array_equal(by_name.feature_names_in_, ["a", "b", "c", "node"])
    np.testing.assert_array_equal(by_name.nodes_, ["n1", "n2", "n3"])
    ref = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    np.testing.assert_array_equal(by_name.predict(frame), ref.predict(X, groups=groups))
    with pytest.raises(ValueError, match="group_column='missing'"):
        LocalEstimator(LogisticRegression(), group_column="missing").fit(frame, y)
    with pytest.raises(ValueError, match="column name"):
        LocalEstimator(LogisticRegression(), group_column="node").fit(X, y)
    with pytest.raises(ValueError, match="out of range"):
        LocalEstimator(LogisticRegression(), group_column=7).fit(X, y)


def test_one_node_fit_warns_and_multi_node_predict_needs_ids(data):
    X, y, groups = data
    with pytest.warns(SingleNodeWarning, match="group_column"):
        one = LocalEstimator(LogisticRegression()).fit(X, y)
    assert one.predict(X).shape == (90,)
    est = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="groups=.*group_column"):
        est.predict(X)
    with pytest.raises(ValueError, match="groups=.*group_column"):
        est.score(X, y)


def test_unseen_nodes(data):
    X, y, groups = data
    est = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    new = np.array(["n1", "new", "n3"])
    pred = est.predict(X[:3], groups=new)
    assert pred.shape == (3,)
    strict = clone(est).set_params(handle_unknown="error").fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="'new'"):
        strict.predict(X[:3], groups=new)


@pytest.mark.parametrize(
    "bad, error, match",
    [
        (np.array([1.0, np.nan] * 45), ValueError, "NaN"),
        (np.arange(89), ValueError, "89 entries"),
        (np.zeros((90, 2)), ValueError, "1-d"),
        (np.array([{}] * 90, dtype=object), TypeError, "hashable"),
        (np.array(["a", 1] * 45, dtype=object), TypeError, "mixes"),
        (np.array([None, "a"] * 45, dtype=object), ValueError, "missing"),
    ],
)
def test_bad_groups_get_clear_errors(data, bad, error, match):
    X, y, _ = data
    with pytest.raises(error, match=match):
        LocalEstimator(LogisticRegression()).fit(X, y, groups=bad)


def test_bad_X_and_y_get_clear_errors(data):
    X, y, groups = data
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LocalEstimator(LogisticRegression()).fit(X_nan, y, groups=groups)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        LocalEstimator(LogisticRegression()).fit(X, y[:-1], groups=groups)
    with pytest.raises(ValueError, match="requires y"):
        LocalEstimator(LogisticRegression()).fit(X, None, groups=groups)


def test_float32_and_read_only_inputs(data):
    X, y, groups = data
    X32 = X.astype(np.float32)
    X32.setflags(write=False)
    est = LocalEstimator(LinearRegression()).fit(X32, y.astype(float), groups=groups)
    coef = est.estimators_["n1"].coef_
    assert coef.dtype == np.float32


def test_node_seeds_and_check_groups():
    a, b = node_seeds(0, 5), node_seeds(0, 5)
    assert a.dtype == np.uint32 and np.all(a > 0)
    np.testing.assert_array_equal(a, b)
    assert len(set(node_seeds(1, 100).tolist())) == 100
    assert check_groups(None, 3) is None
    np.testing.assert_array_equal(check_groups([[1], [2], [3]], 3), [1, 2, 3])


def test_relabelling_nodes_gives_the_same_models(data):
    X, y, groups = data
    relabel = {"n1": 30, "n2": 10, "n3": 20}
    other = np.array([relabel[g] for g in groups])
    a = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    b = LocalEstimator(LogisticRegression()).fit(X, y, groups=other)
    for label, new in relabel.items():
        np.testing.assert_allclose(a.estimators_[label].coef_, b.estimators_[new].coef_)
    np.testing.assert_array_equal(a.predict(X, groups=groups), b.predict(X, groups=other))


def test_pickle_round_trip(data):
    X, y, groups = data
    est = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X, groups=groups), est.predict(X, groups=groups))


def test_groups_are_requested_by_default_under_routing():
    with sklearn.config_context(enable_metadata_routing=True):
        routing = LocalEstimator(LogisticRegression()).get_metadata_routing()
        for method in ("fit", "predict", "score"):
            assert getattr(routing, method).requests["groups"] is True


# ---------------------------------------------------- vectorised node-id handling
@pytest.mark.parametrize(
    "nodes, labels",
    [
        (np.array([3, 7, 10, 42]), np.array([0, 3, 10, 11, 42, 99])),
        (np.array([3, 7, 10, 42]), np.array([3.0, 7.5, 42.0])),
        (np.array(["a", "bb", "c"]), np.array(["0", "a", "bb", "bc", "zz"])),
        (np.array(["a", "bb", "c"]), np.array([1, 2])),  # other kinds: the dict path
        (np.array([(1, 2), (3, 4)], dtype=object)[:0], np.array([5])),
        (np.array([1, 2]), np.array([True])),
    ],
)
def test_label_lookup_equals_a_dict(nodes, labels):
    from skfed._base import _lookup_labels

    table = {label: index for index, label in enumerate(nodes.tolist())}
    expected = [table.get(label, -1) for label in labels.tolist()]
    got = _lookup_labels(nodes, labels)
    assert got.dtype == np.intp
    np.testing.assert_array_equal(got, expected)


def test_groups_and_group_column_compared_elementwise():
    from skfed._base import _same_labels

    ints = np.arange(6) % 3
    assert _same_labels(ints, ints.astype(float))
    assert _same_labels(ints.astype(object), ints)
    assert not _same_labels(ints, (ints + 1) % 3)
    assert not _same_labels(ints.astype(str), ints.astype(float))
    assert not _same_labels(ints, ints[:5])


def test_object_node_ids_are_checked_per_distinct_label():
    labels = np.array([f"s{i % 5}" for i in range(50)], dtype=object)
    np.testing.assert_array_equal(check_groups(labels, 50), labels)
    with pytest.raises(ValueError, match="missing"):
        check_groups(np.array(["a", np.float32("nan")], dtype=object), 2)
    with pytest.raises(ValueError, match="missing"):
        check_groups(np.array([1.0, float("inf")], dtype=object), 2)
    with pytest.raises(TypeError, match="hashable node ids, got list"):
        check_groups(np.array(["a", [1]] + ["b"], dtype=object), 3)


def test_predict_codes_for_many_nodes_with_unseen_ones():
    # 20,000 seen nodes, samples in a shuffled order, a few unseen labels.
    rng = np.random.default_rng(0)
    seen = np.arange(0, 40_000, 2)
    groups = rng.permutation(np.repeat(seen, 3))
    X = rng.normal(size=(len(groups), 2))
    est = LocalEstimator(LinearRegression()).fit(X[:300], X[:300, 0], groups=groups[:300])
    est.nodes_ = seen  # the lookup only needs the fitted labels
    query = np.concatenate([groups, [1, 39_999, -5]])
    codes = est._node_codes(query, len(query))
    np.testing.assert_array_equal(codes[:-3], groups // 2)
    np.testing.assert_array_equal(codes[-3:], -1)


def test_lookup_after_nodes_joined_in_any_order():
    from skfed._base import _lookup_labels

    nodes = np.array([1, 4, 9, 2, 0])  # fitted 1, 4, 9; then 2 and 0 joined
    labels = np.array([0, 9, 3, 2, 4, 1])
    assert _lookup_labels(nodes, labels).tolist() == [4, 2, -1, 3, 1, 0]
    names = np.array(["b", "d", "a"])
    assert _lookup_labels(names, np.array(["a", "c", "d"])).tolist() == [2, -1, 1]


def test_pad_log_adds_silent_nodes_and_keeps_the_server_last():
    from skfed._base import pad_log
    from skfed.network import CommunicationLog

    pair = np.array([[0, 5, 7], [1, 0, 2], [3, 4, 0]])  # 2 nodes + server
    log = CommunicationLog(pair, (pair > 0).astype(int), [18], [6],
                           node_labels=["a", "b"], has_server=True)
    padded = pad_log(log, ["a", "b", "c"])
    assert padded.n_endpoints == 4 and padded.node_labels.tolist() == ["a", "b", "c"]
    expected = np.zeros((4, 4), dtype=int)
    expected[np.ix_([0, 1, 3], [0, 1, 3])] = pair
    np.testing.assert_array_equal(padded.pair_bytes, expected)
    assert padded.total_bytes == log.total_bytes
    np.testing.assert_array_equal(padded.bytes_per_round, [18])
    with pytest.raises(ValueError, match="Cannot pad"):
        pad_log(padded, ["a"])
