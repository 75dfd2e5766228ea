"""A regressor newcomer of a clustered federation starts from its cluster.

review4 (2026-11-28) found that a rule starting every regressor newcomer
from the network function (the mean of all nodes' functions) with its
samples weighted k / (n + k) lost 0.27 R^2 at k = 5 on clustered linear
regressions (0.975 -> 0.709, under Local Ridge's 0.716): the neighbours'
start the join keeps carries the cluster, the mean does not.
"""

import copy
import warnings

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score

from skfed import DecentralizedKernelSGDRegressor


def _clustered(seed, K=40, n=30, d=5, C=4):
    rng = np.random.RandomState(seed)
    centers = 1.5 * rng.normal(size=(C, d))
    offsets = 2.0 * rng.normal(size=C)
    W = centers[np.arange(K) % C] + 0.3 * rng.normal(size=(K, d))
    g = np.repeat(np.arange(K), n)
    X = rng.normal(size=(K * n, d))
    y = np.einsum("ij,ij->i", X, W[g]) + offsets[g % C] + 0.3 * rng.normal(size=K * n)
    new_cluster = np.arange(8) % C
    W_new = centers[new_cluster] + 0.3 * rng.normal(size=(8, d))

    def newcomers(m, noise):
        gn = np.repeat(np.arange(8), m)
        Xn = rng.normal(size=(8 * m, d))
        yn = (np.einsum("ij,ij->i", Xn, W_new[gn]) + offsets[new_cluster[gn]]
              + noise * rng.normal(size=8 * m))
        return Xn, yn, gn + 100

    return (X, y, g), newcomers(5, 0.3), newcomers(50, 0.0)


def test_clustered_regressor_newcomers_beat_local_ridge():
    (X, y, g), (Xn, yn, gn), (Xt, yt, gt) = _clustered(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedKernelSGDRegressor(random_state=0).fit(X, y, groups=g)
        joined = copy.deepcopy(est).add_nodes(Xn, yn, groups=gn)
    join = r2_score(yt, joined.predict(Xt, groups=gt))
    local = r2_score(yt, np.concatenate([
        Ridge().fit(Xn[gn == k], yn[gn == k]).predict(Xt[gt == k]) for k in np.unique(gn)
    ]))
    # measured: join 0.979, Local Ridge 0.75 (k = 5 samples per newcomer)
    assert join > 0.95
    assert join > local + 0.1
    # the old nodes are untouched
    np.testing.assert_array_equal(joined.predict(X, groups=g), est.predict(X, groups=g))
