"""LocalEstimator against per-node fits of the same scikit-learn estimator."""

import numpy as np
from joblib import parallel_config
import pytest
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.svm import LinearSVC

from skfed.baselines import LocalEstimator, pooled_data_bytes


@pytest.fixture
def data():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(120, 4))
    groups = rng.randint(0, 4, size=120)
    w = rng.normal(size=(4, 4))
    y_reg = np.einsum("ij,ij->i", X, w[groups]) + 0.1 * rng.normal(size=120)
    y_cls = np.array(["neg", "pos"])[(y_reg > 0).astype(int)]
    return X, y_reg, y_cls, groups


def test_each_node_equals_its_own_fit(data):
    X, y_reg, y_cls, groups = data
    local = LocalEstimator(Ridge(alpha=0.5)).fit(X, y_reg, groups=groups)
    pred = local.predict(X, groups=groups)
    for node in range(4):
        rows = groups == node
        ref = Ridge(alpha=0.5).fit(X[rows], y_reg[rows])
        np.testing.assert_allclose(local.estimators_[node].coef_, ref.coef_, rtol=1e-12)
        np.testing.assert_allclose(pred[rows], ref.predict(X[rows]), rtol=1e-12)
    clf = LocalEstimator(LogisticRegression(C=2.0)).fit(X, y_cls, groups=groups)
    for node in range(4):
        rows = groups == node
        ref = LogisticRegression(C=2.0).fit(X[rows], y_cls[rows])
        np.testing.assert_allclose(clf.predict_proba(X[rows], groups=groups[rows]), ref.predict_proba(X[rows]), rtol=1e-10)
        np.testing.assert_allclose(clf.decision_function(X[rows], groups=groups[rows]), ref.decision_function(X[rows]), rtol=1e-10)


def test_unseen_node_uses_the_average_of_node_models(data):
    X, y_reg, y_cls, groups = data
    local = LocalEstimator(Ridge()).fit(X, y_reg, groups=groups)
    expected = np.mean([est.predict(X[:5]) for est in local.estimators_.values()], axis=0)
    np.testing.assert_allclose(local.predict(X[:5], groups=[99] * 5), expected)
    clf = LocalEstimator(LogisticRegression()).fit(X, y_cls, groups=groups)
    proba = np.mean([est.predict_proba(X[:5]) for est in clf.estimators_.values()], axis=0)
    np.testing.assert_allclose(clf.predict_proba(X[:5], groups=[99] * 5), proba)
    np.testing.assert_array_equal(clf.predict(X[:5], groups=[99] * 5), clf.classes_[proba.argmax(1)])
    # Without predict_proba the average is a majority vote.
    svc = LocalEstimator(LinearSVC()).fit(X, y_cls, groups=groups)
    votes = np.mean([est.predict(X[:5]) == "pos" for est in svc.estimators_.values()], axis=0)
    np.testing.assert_array_equal(svc.predict(X[:5], groups=[99] * 5) == "pos", votes > 0.5)


def test_single_class_node_predicts_over_global_classes(data):
    X, _, y_cls, groups = data
    y = np.where(groups == 2, "neg", y_cls)
    y = np.where(groups == 3, "mid", y)
    clf = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    np.testing.assert_array_equal(clf.classes_, ["mid", "neg", "pos"])
    proba = clf.predict_proba(X, groups=groups)
    assert proba.shape == (120, 3)
    np.testing.assert_allclose(proba[groups == 2], [[0, 1, 0]] * int((groups == 2).sum()))
    assert np.all(clf.predict(X[groups == 3], groups=groups[groups == 3]) == "mid")
    scores = clf.decision_function(X, groups=groups)
    assert scores.shape == (120, 3)
    assert np.all(scores[groups == 3].argmax(1) == 0)
    # Binary problem, one node with a single class: +-1 toward that class.
    y_bin = np.where(groups == 2, "neg", y_cls)
    clf = LocalEstimator(LogisticRegression()).fit(X, y_bin, groups=groups)
    np.testing.assert_array_equal(clf.decision_function(X[groups == 2], groups=groups[groups == 2]), -1.0)


def test_sample_weight_and_n_jobs(data):
    X, y_reg, _, groups = data
    w = np.random.RandomState(0).uniform(0.1, 2, size=120)
    local = LocalEstimator(Ridge()).fit(X, y_reg, groups=groups, sample_weight=w)
    rows = groups == 1
    ref = Ridge().fit(X[rows], y_reg[rows], sample_weight=w[rows])
    np.testing.assert_allclose(local.estimators_[1].coef_, ref.coef_, rtol=1e-12)
    parallel = clone(local).set_params(n_jobs=2).fit(X, y_reg, groups=groups, sample_weight=w)
    np.testing.assert_array_equal(parallel.predict(X, groups=groups), local.predict(X, groups=groups))
    assert local.n_bytes_sent_ == 0


def test_pooled_data_bytes_closed_form():
    X = np.zeros((10, 3))
    assert pooled_data_bytes(X, np.zeros(10), groups=[0] * 5 + [1] * 5) == 10 * 3 * 8 + 10 * 8 + 2 * 16
    assert pooled_data_bytes(X.astype(np.float32)) == 10 * 3 * 4 + 16


def test_bad_parameter_is_caught_even_after_one_class_nodes(data):
    # The first nodes see one class (constant models): the first node that
    # fits the estimator itself still validates its parameters.
    X, _, y_cls, groups = data
    y = np.where(groups <= 1, "neg", y_cls)
    order = np.argsort(groups, kind="stable")
    with pytest.raises(ValueError, match="'C' parameter"):
        LocalEstimator(LogisticRegression(C=-1.0)).fit(X[order], y[order], groups=groups[order])


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_chunked_fit_equals_one_fit_per_node(data, n_jobs):
    X, y_reg, y_cls, groups = data
    rng = np.random.RandomState(5)
    many = rng.randint(0, 11, size=len(groups))  # 11 nodes: several chunks of unequal size
    w = rng.uniform(0.5, 2.0, size=len(groups))
    local = LocalEstimator(Ridge(alpha=0.3), n_jobs=n_jobs).fit(X, y_reg, groups=many, sample_weight=w)
    assert list(local.estimators_) == list(range(11))
    for node in range(11):
        rows = many == node
        ref = Ridge(alpha=0.3).fit(X[rows], y_reg[rows], sample_weight=w[rows])
        np.testing.assert_allclose(local.estimators_[node].coef_, ref.coef_, rtol=1e-12)
        assert local.estimators_[node] is not local.estimators_[(node + 1) % 11]


class _NodeMean(RegressorMixin, BaseEstimator):
    """The smallest per-node model: the node's weighted mean (no validation).

    At 20,000 nodes a scikit-learn estimator's own per-fit checks (about a
    millisecond) would dominate; this one measures LocalEstimator's own
    per-node cost.
    """

    def fit(self, X, y, sample_weight=None):
        self.mean_ = float(np.average(y, weights=sample_weight))
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.mean_)


@pytest.mark.scale
def test_twenty_thousand_nodes_predict_their_own_means():
    # Each node's model is its weighted mean: a closed form for every one of
    # 20,000 per-node models, rows shuffled across nodes.
    rng = np.random.default_rng(0)
    n_nodes = 20_000
    groups = rng.permutation(np.repeat(np.arange(n_nodes), 3))
    X = rng.normal(size=(len(groups), 4))
    y = rng.normal(size=len(groups)) + groups
    w = rng.uniform(0.5, 2.0, size=len(groups))
    # Threads: worker processes could not unpickle a class defined in a test
    # module that is not importable from the installed package (pytest
    # --import-mode=importlib), and the chunking is the same either way.
    with parallel_config(backend="threading"):
        local = LocalEstimator(_NodeMean(), n_jobs=2).fit(X, y, groups=groups, sample_weight=w)
    means = np.bincount(groups, weights=w * y) / np.bincount(groups, weights=w)
    assert len(local.estimators_) == n_nodes
    np.testing.assert_allclose(local.predict(X, groups=groups), means[groups], rtol=1e-12)
    unseen = local.predict(X[:2], groups=[-1, -2])  # the average node model
    np.testing.assert_allclose(unseen, means.mean(), rtol=1e-12)


def test_add_nodes_fits_the_new_nodes_only(data):
    X, y_reg, y_cls, groups = data
    old = groups < 3
    local = LocalEstimator(LogisticRegression()).fit(X[old], y_cls[old], groups=groups[old])
    fitted = dict(local.estimators_)
    local.add_nodes(X[~old], y_cls[~old], groups=groups[~old] + 10)
    assert local.nodes_.tolist() == [0, 1, 2, 13]
    for node, est in fitted.items():  # the same objects, untouched
        assert local.estimators_[node] is est
    ref = LogisticRegression().fit(X[~old], y_cls[~old])
    assert_array_equal = np.testing.assert_array_equal
    assert_array_equal(local.predict(X[~old], groups=groups[~old] + 10), ref.predict(X[~old]))
    assert_array_equal(local.predict(X[old], groups=groups[old]),
                       LocalEstimator(LogisticRegression()).fit(
                           X[old], y_cls[old], groups=groups[old]).predict(X[old], groups=groups[old]))
    with pytest.raises(ValueError, match="already in nodes_"):
        local.add_nodes(X[:3], y_cls[:3], groups=[0, 0, 0])
    with pytest.raises(ValueError, match="not in classes_"):
        local.add_nodes(X[:3], ["a", "b", "a"], groups=[20, 20, 20])
    with pytest.raises(TypeError, match="node ids of one type"):
        local.add_nodes(X[:3], y_cls[:3], groups=["x", "x", "x"])
