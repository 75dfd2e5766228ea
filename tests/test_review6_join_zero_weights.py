"""A join whose only newcomer has no positive weight names the node (review6).

``add_nodes`` has one weightless-newcomer check (``check_node_weights`` in
``_validate_join_data``, joins6): with two newcomers of which one is
weightless the message names it, but with one newcomer whose weights are
all zero scikit-learn's weight check answered first, with "Sample weights
must contain at least one non-zero number." (main at f28c2af), naming
neither the node nor the join.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import is_classifier

from skfed import DecentralizedBoostingClassifier, FederatedSparseLinearRegression
from skfed.multitask import FederatedMultiTaskClassifier


@pytest.mark.parametrize("make", [
    lambda: FederatedSparseLinearRegression(random_state=0),
    lambda: DecentralizedBoostingClassifier(n_estimators=10, random_state=0),
    lambda: FederatedMultiTaskClassifier(random_state=0),
])
def test_single_weightless_newcomer_is_named(make):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 4))
    g = np.repeat(np.arange(6), 20)
    y = X[:, 0] + 0.1 * rng.normal(size=120)
    est = make()
    if is_classifier(est):
        y = (y > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    n_nodes = len(est.nodes_)
    with pytest.raises(ValueError, match=r"Node 50 has no sample with a positive "
                                         r"sample_weight; .* per node that joins"):
        est.add_nodes(X[:4], y[:4], groups=np.full(4, 50), sample_weight=np.zeros(4))
    assert len(est.nodes_) == n_nodes  # nothing joined


def test_negative_and_all_zero_fit_weights_unchanged():
    # the fit's checks stay as they were: a negative weight is named by index
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 3))
    g = np.repeat(np.arange(2), 20)
    w = np.ones(40)
    w[3] = -1.0
    with pytest.raises(ValueError, match="at index 3"):
        FederatedSparseLinearRegression().fit(X, X[:, 0], groups=g, sample_weight=w)
