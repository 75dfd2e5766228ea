"""``LocalEstimator`` names the node whose model refuses to predict (review32).

``fit`` names the node whose data its estimator refused (``_fit_one``:
"Node 7 (2 samples): ..."), but prediction called each node's model
bare: with ``KNeighborsClassifier(n_neighbors=3)`` a node of 2 samples (a
fitted node or one added by ``add_nodes``) fits, and ``predict`` over rows
of several nodes raised scikit-learn's "Expected n_neighbors <=
n_samples_fit, but n_neighbors = 3, n_samples_fit = 2" without saying
which node (``skfed/baselines.py``, ``_per_node``; failed before the fix).
"""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

from skfed import LocalEstimator


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(62, 3))
    y = (X[:, 0] > 0).astype(int)
    groups = np.r_[np.repeat([0, 1, 2], 20), [50, 50]]   # node 50: 2 samples
    y[-2:] = [0, 1]
    return X, y, groups


def test_predict_names_the_fitted_node_whose_model_refuses():
    X, y, groups = _data()
    est = LocalEstimator(KNeighborsClassifier(n_neighbors=3)).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match=r"Node 50: Expected n_neighbors <= n_samples_fit"):
        est.predict(X[:4], groups=[0, 1, 50, 2])
    # the other nodes predict as before
    np.testing.assert_array_equal(
        est.predict(X[:40], groups=groups[:40]),
        np.concatenate([est.estimators_[k].predict(X[20 * k:20 * k + 20]) for k in (0, 1)]))


def test_predict_names_a_joined_node_whose_model_refuses():
    X, y, groups = _data()
    est = LocalEstimator(KNeighborsClassifier(n_neighbors=3)).fit(X[:60], y[:60],
                                                                groups=groups[:60])
    est.add_nodes(X[60:], y[60:], groups=groups[60:])
    with pytest.raises(ValueError, match=r"Node 50: "):
        est.predict_proba(X[:3], groups=[50, 0, 50])
