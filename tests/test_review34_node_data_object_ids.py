"""``node_data_`` with object-dtype node ids (review34).

``node_data_`` (store33) labelled each part ``nodes_[t].item()``; with
node ids of object dtype (a pandas column of strings, ``df["site"].values``,
or ``np.array([...], dtype=object)``) ``nodes_`` holds Python objects and
the property raised ``AttributeError: 'str' object has no attribute
'item'`` (so ``hasattr(est, "node_data_")`` was False).  Fixed in
``skfed/multitask/_node_data.py`` (one line: ``.item()`` only on NumPy
scalars).  Checked: the keys are the node ids, each part's rows are that
node's training rows (a NumPy selection; the design's last column the
intercept), its coded targets ``+-1`` and its weights; ``drop_node_data``
still empties it.
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(160, 3))
    y = (X[:, 0] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("labels", [
    np.array(["a", "b", "c", "d"], dtype=object),
    np.array([11, 12, 13, 14], dtype=object),
    np.array(["a", "b", "c", "d"]),
    np.array([11, 12, 13, 14]),
], ids=["object-str", "object-int", "str", "int"])
def test_node_data_keys_and_rows(labels):
    X, y = _data()
    groups = np.repeat(labels, 40)
    sw = np.linspace(0.5, 2.0, len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=groups,
                                                                sample_weight=sw)
    data = est.node_data_
    assert sorted(data, key=str) == sorted(labels.tolist(), key=str)
    for label, (Z, Y, w) in data.items():
        rows = np.flatnonzero(groups == label)
        # same rows (the order within a node is the fit's), intercept column last
        order = np.lexsort(Z[:, :3].T[::-1])
        ref = np.lexsort(X[rows].T[::-1])
        np.testing.assert_allclose(Z[order, :3], X[rows][ref], rtol=0, atol=1e-6)
        np.testing.assert_allclose(Z[:, 3], est.intercept_scaling)
        np.testing.assert_array_equal(np.sort(Y[0]), np.sort(2.0 * y[rows] - 1.0))
        np.testing.assert_allclose(np.sort(w), np.sort(sw[rows]), rtol=1e-6)
    assert est.drop_node_data().node_data_ == {}


@pytest.mark.parametrize("dtype", [object, None], ids=["object", "str"])
def test_support_alpha_error_names_object_node(dtype):
    # skfed/support/_protocol.py named the node by nodes_[k].item(): with
    # object-dtype ids the refusal of a negative per-node alpha was an
    # AttributeError ('str' object has no attribute 'item')
    from skfed import FederatedSupportRecovery

    rng = np.random.RandomState(0)
    X = rng.normal(size=(160, 5))
    y = X[:, 0] + 0.1 * rng.normal(size=160)
    groups = np.repeat(np.array(["a", "b", "c", "d"], dtype=dtype), 40)
    with pytest.raises(ValueError, match="node 'b' has alpha=-1.0"):
        FederatedSupportRecovery(alpha=np.array([0.1, -1.0, 0.1, 0.1])).fit(X, y, groups=groups)


def test_mpi_graph_learner_object_node_ids():
    # skfed/engines/_mpi_graph_fit.py named a node by block.labels[k].item():
    # a callable loader with object-dtype node ids raised AttributeError; the
    # fit equals the one with the same ids as a str array
    pytest.importorskip("mpi4py")
    from skfed.engines import mpi
    from skfed.graph import CollaborationGraphLearner

    rng = np.random.RandomState(8)
    models = np.vstack([rng.normal(k % 3, 0.4, size=5) for k in range(6)])
    losses = rng.uniform(0, 1, size=6)
    fits = []
    for labels in (np.array(list("abcdef"), dtype=object), np.array(list("abcdef"))):
        index = {label: i for i, label in enumerate(labels.tolist())}

        def load(label):
            return models[index[label]][None, :], np.array([losses[index[label]]])

        est = CollaborationGraphLearner(mu=4.0, kappa=3, max_iter=100, random_state=8)
        fits.append(mpi.fit(est, load, nodes=labels))
    assert fits[0].nodes_.tolist() == list("abcdef")
    np.testing.assert_array_equal(fits[0].collaboration_graph_.toarray(),
                                  fits[1].collaboration_graph_.toarray())
