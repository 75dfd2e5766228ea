"""Dada on the probe's families of related linear tasks: where and why it trails Local.

Issue 33's probe found Dada's defaults below Local (the better of
``LinearSVC``, ``SVC`` and ``LogisticRegression`` per node) on four
families nobody tuned on.  This script rebuilds families of the same kind
(labels ``sign(x . w_k / sqrt(d_inf) + 0.3 noise)``, ``w_k = w_c + spread
u_k``, features N(0, 1); 20 test samples a node) and fits Dada's defaults
and one-knob variants next to Global / Local (each the best of the three
scikit-learn classifiers at their defaults, chosen on the test set: an
oracle in the baselines' favour):

* ``alike_tiny``: 500 nodes of 6 training samples, 5 features, spread 0.1;
* ``unbalanced``: 30 nodes of 2 to 2,000 training samples (log-uniform),
  10 features, spread 0.3;
* ``imbalance``: 40 nodes of 60, 10 features, 5 % positives (scored by
  balanced accuracy);
* ``three_class``: 20 nodes of 60, 6 features, three classes cut at the
  terciles of the score;
* ``axis_rules`` (a family of Dada's own kind, for contrast): 100 nodes of
  10 samples, 12 uniform features, four clusters of axis-aligned rules on
  three of them, 10 % label flips.

The score is the mean over the nodes of the per-node accuracy (balanced
accuracy for ``imbalance``).

Usage::

    python benchmarks/dada_probe_families.py FAMILY SEED [VARIANT ...]

prints one line per method and one JSON line.
"""

import json
import sys
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.svm import SVC, LinearSVC

from skfed.baselines import LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier


def _linear_family(rng, sizes, d, d_inf, spread, n_test=20):
    """Related linear scores: node k's ``x . w_k / sqrt(d_inf)``."""
    K = len(sizes)
    w0 = np.zeros(d)
    w0[:d_inf] = rng.normal(size=d_inf)
    W = w0 + spread * rng.normal(size=(K, d)) * (np.arange(d) < d_inf)
    n = np.asarray(sizes) + n_test
    g = np.repeat(np.arange(K), n)
    X = rng.normal(size=(g.size, d))
    score = (X * W[g]).sum(axis=1) / np.sqrt(d_inf)
    train = np.concatenate([np.r_[np.ones(m, bool), np.zeros(n_test, bool)] for m in sizes])
    return X, score, g, train


def make_family(name, seed):
    """``(X, y, groups, train_mask, metric)`` of one draw of a family."""
    rng = np.random.RandomState(seed)
    metric = "accuracy"
    if name == "alike_tiny":
        X, s, g, train = _linear_family(rng, [6] * 500, 5, 5, 0.1)
        y = (s + 0.3 * rng.normal(size=s.size) > 0).astype(int)
    elif name == "unbalanced":
        sizes = np.r_[2, 3, 2000, np.exp(rng.uniform(np.log(2), np.log(2000), 27)).astype(int)]
        X, s, g, train = _linear_family(rng, rng.permutation(sizes).tolist(), 10, 10, 0.3)
        y = (s + 0.3 * rng.normal(size=s.size) > 0).astype(int)
    elif name == "imbalance":
        X, s, g, train = _linear_family(rng, [60] * 40, 10, 10, 0.3)
        y = (s + 0.3 * rng.normal(size=s.size) > np.quantile(s, 0.95)).astype(int)
        metric = "balanced_accuracy"
    elif name == "three_class":
        X, s, g, train = _linear_family(rng, [60] * 20, 6, 6, 0.3)
        y = np.digitize(s + 0.3 * rng.normal(size=s.size), np.quantile(s, [1 / 3, 2 / 3]))
    elif name == "axis_rules":
        K, m, n_test = 100, 10, 20
        g = np.repeat(np.arange(K), m + n_test)
        X = rng.uniform(-1, 1, size=(g.size, 12))
        cluster = rng.randint(4, size=K)[g]
        rules = [X[:, 0] > 0.2, X[:, 0] * X[:, 1] > 0, (X[:, 1] < -0.3) | (X[:, 2] > 0.5),
                 np.abs(X[:, 2]) < 0.5]
        y = np.select([cluster == c for c in range(4)], rules).astype(int)
        flip = rng.uniform(size=y.size) < 0.1
        y[flip] = 1 - y[flip]
        train = np.tile(np.r_[np.ones(m, bool), np.zeros(n_test, bool)], K)
    else:
        raise SystemExit(f"unknown family {name!r}")
    return X, y, g, train, metric


def per_node_score(y_true, y_pred, groups, metric):
    scores = []
    for k in np.unique(groups):
        t, p = y_true[groups == k], y_pred[groups == k]
        if metric == "balanced_accuracy" and np.unique(t).size > 1:
            scores.append(balanced_accuracy_score(t, p))
        else:
            scores.append(np.mean(t == p))
    return float(np.mean(scores))


BASES = {
    "LinearSVC": lambda: LinearSVC(max_iter=20000),
    "SVC": lambda: SVC(),
    "LogisticRegression": lambda: LogisticRegression(max_iter=5000),
}

# One-knob variants of Dada's defaults.
VARIANTS = {
    "defaults": {},
    "n_estimators=50": dict(n_estimators=50),
    "n_estimators=1000": dict(n_estimators=1000),
    "beta=10": dict(beta=10.0),
    "beta=1": dict(beta=1.0),
    "mu=30": dict(mu=30.0),
    "max_neighbors=20": dict(max_neighbors=20, kappa=20),
    "max_iter=500*n_nodes": "max_iter",
    "balanced": "balanced",
    "no_vote": dict(feature_selection=None),
    "complete_graph": "complete",
}


def run(name, seed, variants):
    warnings.simplefilter("ignore")
    X, y, g, train, metric = make_family(name, seed)
    Xtr, ytr, gtr, Xte, yte, gte = X[train], y[train], g[train], X[~train], y[~train], g[~train]
    K = np.unique(gtr).size
    result = {"family": name, "seed": seed, "metric": metric, "n_nodes": int(K),
              "n_train": int(ytr.size)}
    pooled = {k: per_node_score(yte, b().fit(Xtr, ytr).predict(Xte), gte, metric)
              for k, b in BASES.items()}
    local = {}
    for k, b in BASES.items():
        try:
            local[k] = per_node_score(
                yte, LocalEstimator(b()).fit(Xtr, ytr, groups=gtr).predict(Xte, groups=gte),
                gte, metric)
        except ValueError:
            local[k] = float("nan")
    result["global"] = max(pooled.values())
    result["local"] = np.nanmax(list(local.values()))
    for variant in variants:
        params = VARIANTS[variant]
        sample_weight = None
        if params == "max_iter":
            params = dict(max_iter=500 * K)
        elif params == "complete":
            params = dict(graph=np.ones((K, K)) - np.eye(K))
        elif params == "balanced":
            # Every node's classes weighted to equal mass (the sample_weight
            # a user can pass; not a Dada option).
            params, sample_weight = {}, np.ones(ytr.size)
            for k in np.unique(gtr):
                rows = gtr == k
                for c in np.unique(ytr[rows]):
                    cls = rows & (ytr == c)
                    sample_weight[cls] = rows.sum() / (np.unique(ytr[rows]).size * cls.sum())
        start = time.process_time()
        model = DecentralizedBoostingClassifier(**dict(dict(random_state=seed), **params))
        model.fit(Xtr, ytr, groups=gtr, sample_weight=sample_weight)
        result[variant] = per_node_score(yte, model.predict(Xte, groups=gte), gte, metric)
        result[f"{variant}_cpu"] = time.process_time() - start
    return result


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    name, seed = argv[0], int(argv[1])
    variants = argv[2:] or ["defaults"]
    result = run(name, seed, variants)
    print(f"{name} seed {seed}: {result['n_nodes']} nodes, {result['n_train']} training "
          f"samples, {result['metric']}")
    print(f"  {'Global (best of 3)':24s} {result['global']:.3f}")
    print(f"  {'Local (best of 3)':24s} {result['local']:.3f}")
    for variant in variants:
        print(f"  {'Dada ' + variant:24s} {result[variant]:.3f}   "
              f"{result[variant + '_cpu']:6.1f} s CPU")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
