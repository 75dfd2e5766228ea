"""review13: estimators at their defaults on data families nobody tuned on.

Related linear tasks ``w_k = w_0 + s (||w_0|| / sqrt(d_inf)) u_k`` over
N(0, 1) features (labels ``sign`` of the score plus 0.3 noise for
classification, the score plus 0.3 noise for regression; 50 test samples a
node), in five shapes: many small nodes (100 x 8), nearly alike nodes
(spread 0.02), half the features pure noise, d = 2 and d = 500 (n < d).
Each estimator is read against the strongest baseline on the same arrays:
the better of LinearSVC / SVC / LogisticRegression (Ridge / SVR / LassoCV
for regression), pooled (Global) or one per node (Local), scored by the
mean per-node accuracy (R^2 for regression).

Measured at c322697, seeds 0-2 (``make_family(name, task, seed)`` and
``best_baselines`` below): MOCHA's defaults are within 0.016 of the
better baseline on all 30 runs (above it on 20); the online kernel
regressor's defaults stay 0.25 R^2 below Global on the 100 x 8 family on
every seed (.593 / .602 / .599 against .856 / .853 / .850); since online17's
``network_share="auto"`` .863 / .853 / .848.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LassoCV, LogisticRegression, Ridge
from sklearn.svm import SVC, SVR, LinearSVC

from skfed import (
    DecentralizedKernelSGDRegressor,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
)
from skfed.baselines import LocalEstimator

# n_nodes, n_train per node, d, uninformative features, spread
FAMILIES = {
    "many_small": (100, 8, 10, 0, 0.3),
    "alike": (20, 30, 10, 0, 0.02),
    "half_noise": (20, 30, 20, 10, 0.3),
    "d2": (20, 30, 2, 0, 0.3),
    "d500": (20, 30, 500, 0, 0.3),
}


def make_family(name, task, seed=0, n_test=50):
    n_nodes, n_train, d, n_noise, spread = FAMILIES[name]
    rng = np.random.RandomState(seed)
    d_inf = d - n_noise
    w0 = rng.randn(d_inf)
    scale = spread * np.linalg.norm(w0) / np.sqrt(d_inf)
    parts = {"train": ([], [], []), "test": ([], [], [])}
    for k in range(n_nodes):
        wk = w0 + scale * rng.randn(d_inf)
        for split, m in (("train", n_train), ("test", n_test)):
            X = rng.randn(m, d)
            f = X[:, :d_inf] @ wk / np.sqrt(d_inf)
            if task == "clf":
                y = (f + 0.3 * rng.randn(m) > 0).astype(int)
                if split == "train" and np.unique(y).size < 2:
                    y[0] = 1 - y[0]
            else:
                y = f + 0.3 * rng.randn(m)
            for store, value in zip(parts[split], (X, y, np.full(m, k))):
                store.append(value)
    return tuple(np.concatenate(v) for split in ("train", "test") for v in parts[split])


def per_node_score(y_pred, y_true, groups, task):
    scores = []
    for k in np.unique(groups):
        m = groups == k
        if task == "clf":
            scores.append(np.mean(y_pred[m] == y_true[m]))
        else:
            scores.append(1 - np.mean((y_pred[m] - y_true[m]) ** 2) / np.var(y_true[m]))
    return float(np.mean(scores))


def best_baselines(task, Xtr, ytr, gtr, Xte, yte, gte):
    if task == "clf":
        bases = [LinearSVC(), SVC(), LogisticRegression()]
    else:
        bases = [Ridge(), SVR(), LassoCV()]
    glob, loc = -np.inf, -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for base in bases:
            g = clone(base).fit(Xtr, ytr)
            glob = max(glob, per_node_score(g.predict(Xte), yte, gte, task))
            loc_est = LocalEstimator(clone(base)).fit(Xtr, ytr, groups=gtr)
            loc = max(loc, per_node_score(loc_est.predict(Xte, groups=gte), yte, gte, task))
    return glob, loc


def test_family_shapes_and_spread():
    Xtr, ytr, gtr, Xte, yte, gte = make_family("many_small", "clf")
    assert Xtr.shape == (800, 10) and Xte.shape == (5000, 10)
    assert np.bincount(gtr).tolist() == [8] * 100
    assert all(np.unique(ytr[gtr == k]).size == 2 for k in range(100))
    Xtr, ytr, gtr, *_ = make_family("half_noise", "reg")
    # the last 10 features carry nothing: their pooled correlation with y is noise
    corr = [abs(np.corrcoef(Xtr[:, j], ytr)[0, 1]) for j in range(20)]
    assert max(corr[10:]) < 0.2 < max(corr[:10])


@pytest.mark.parametrize("task", ["clf", "reg"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_mocha_defaults_reach_the_best_baseline(family, task):
    Xtr, ytr, gtr, Xte, yte, gte = make_family(family, task)
    glob, loc = best_baselines(task, Xtr, ytr, gtr, Xte, yte, gte)
    cls = FederatedMultiTaskClassifier if task == "clf" else FederatedMultiTaskRegressor
    est = cls(random_state=0).fit(Xtr, ytr, groups=gtr)
    score = per_node_score(est.predict(Xte, groups=gte), yte, gte, task)
    # worst measured gap over seeds 0-2 is 0.016 (d500 clf, seed 0)
    assert score >= max(glob, loc) - 0.03, (score, glob, loc)


def test_online_regressor_defaults_reach_global_on_many_small_nodes():
    # online17: network_share="auto" blends every node's function with the
    # network function (a node's function lives in the span of its own 8
    # samples); measured .863 / .853 / .848 against .856 / .853 / .850
    glob, loc, score = _online_regressor_many_small()
    assert score >= max(glob, loc) - 0.05, (score, glob, loc)


def test_online_regressor_node_functions_alone_stay_below_global():
    # what the share repairs: the nodes' own functions (network_share=0)
    # beat Local but stay far below Global on this family
    glob, loc, score = _online_regressor_many_small(network_share=0.0)
    assert glob > 0.8 and loc < 0.5
    assert loc + 0.05 < score < glob - 0.15, (score, glob, loc)


def _online_regressor_many_small(**params):
    Xtr, ytr, gtr, Xte, yte, gte = make_family("many_small", "reg")
    glob, loc = best_baselines("reg", Xtr, ytr, gtr, Xte, yte, gte)
    est = DecentralizedKernelSGDRegressor(random_state=0, **params).fit(Xtr, ytr, groups=gtr)
    return glob, loc, per_node_score(est.predict(Xte, groups=gte), yte, gte, "reg")
