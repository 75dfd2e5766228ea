"""omega="auto"'s byte ceiling on nodes of two rows (mtl5, merged).

The guide and ``skfed.multitask._byte_ceiling`` said a fit "never sends more
than the raw upload"; a fit's first evaluation of every node always runs,
and on nodes of a couple of rows it alone costs more than their rows
(``skfed.baselines.pooled_data_bytes``).  The fit then says so in its
ConvergenceWarning.  Pinned here: 400 binary nodes of 2 rows and 5 features
send 48,400 bytes against the raw upload's 44,800 (1.080), with that
warning.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skfed import FederatedMultiTaskClassifier
from skfed.baselines import pooled_data_bytes


def test_two_row_nodes_exceed_the_raw_upload_and_say_so():
    rng = np.random.RandomState(0)
    n_nodes, n_per, d = 400, 2, 5
    X = rng.normal(size=(n_nodes * n_per, d))
    g = np.repeat(np.arange(n_nodes), n_per)
    W = rng.normal(size=d) + 0.5 * rng.normal(size=(n_nodes, d))
    y = (np.einsum("ij,ij->i", X, W[g]) + 0.3 * rng.normal(size=len(g)) > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
    raw = pooled_data_bytes(X, y, g)
    assert raw == 800 * (5 * 8 + 8) + 400 * 16 == 44800
    sent = est.communication_.total_bytes
    assert sent > raw
    words = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert any(f"alone sent {sent} bytes, more than the raw upload's {raw}" in m for m in words)


def _small_nodes(seed, n_nodes=200, n_train=4, n_test=6, d=5):
    rng = np.random.RandomState(seed)
    n_per = n_train + n_test
    X = rng.normal(size=(n_nodes * n_per, d))
    g = np.repeat(np.arange(n_nodes), n_per)
    W = rng.normal(size=d) + 0.5 * rng.normal(size=(n_nodes, d))
    y = (np.einsum("ij,ij->i", X, W[g]) + 0.3 * rng.normal(size=len(g)) > 0).astype(int)
    train = (np.arange(len(g)) % n_per) < n_train
    return X, y, g, train


@pytest.mark.xfail(strict=True, reason="review3: where the raw-upload ceiling stops "
                   "omega='auto', its model scores far below pooling at the same bytes")
def test_a_fit_stopped_by_the_ceiling_is_not_worse_than_pooling():
    # 200 binary nodes of 4 training rows: the ceiling stops the fit at
    # 0.856 of the raw upload; held-out accuracy 0.718 against pooled
    # LogisticRegression's 0.854 (which costs the raw upload; main before
    # the ceiling, e7a9551: 0.858 for 2.73 times its bytes).
    X, y, g, train = _small_nodes(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskClassifier(random_state=0).fit(X[train], y[train],
                                                               groups=g[train])
    acc = est.score(X[~train], y[~train], groups=g[~train])
    pooled = LogisticRegression().fit(X[train], y[train]).score(X[~train], y[~train])
    assert acc >= pooled - 0.02
