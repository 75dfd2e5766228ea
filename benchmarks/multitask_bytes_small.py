"""Bytes of the multi-task defaults on many nodes of 10 rows, and where they go.

Issue 28: at the defaults a fit must send at most the raw upload (every
node's rows and targets once, :func:`skfed.baselines.pooled_data_bytes`).
Nodes of 10 training rows are where that is tightest: a round of the shared
model moves one model vector each way per node, about a seventh of a node's
raw upload.  The family: ``n_nodes`` nodes of 10 training and 10 test rows,
``d`` features, one linear rule plus a 0.3 perturbation per node (as
``few-*`` of ``multitask_small_nodes.py``), at 100, 400 and 1,600 nodes.

Per row: the defaults' mean per-node test score (accuracy or R^2), Global
and Local (each the better of ``LinearSVC()`` / ``SVC()`` /
``LogisticRegression()``, or ``Ridge()`` / ``SVR()`` / ``LassoCV()``, on the
same arrays), bytes against the raw upload, rounds, the selection's path,
and the bytes split into the fits' rounds and the rest (setup, selection
reports, final delivery)::

    python benchmarks/multitask_bytes_small.py [--nodes 100 400 1600] [--seeds 0]
        [--tasks classification regression] [--features 8] [--no-baselines]

One JSON line per row, one BLAS thread.
"""

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoCV, LogisticRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.svm import SVC, SVR, LinearSVC
from threadpoolctl import threadpool_limits

from skfed import (
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    LocalEstimator,
)
from skfed.baselines import pooled_data_bytes


def make_family(n_nodes, d, task, seed, n=10, spread=0.3):
    """``Xtr, ytr, gtr, Xte, yte, gte``: ``n`` training and ``n`` test rows a node."""
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(n_nodes), 2 * n)
    X = rng.randn(len(g), d)
    W = rng.randn(1, d) + spread * rng.randn(n_nodes, d)
    s = (X * W[g]).sum(axis=1) / np.sqrt(d)
    noisy = s + 0.3 * rng.randn(len(g))
    y = (noisy > 0).astype(int) if task == "classification" else noisy
    train = np.tile(np.r_[np.ones(n, bool), np.zeros(n, bool)], n_nodes)
    return X[train], y[train], g[train], X[~train], y[~train], g[~train]


def per_node_score(task, y, pred, groups):
    score = (lambda a, b: np.mean(a == b)) if task == "classification" else r2_score
    return float(np.mean([score(y[groups == t], pred[groups == t]) for t in np.unique(groups)]))


def baselines(task, Xtr, ytr, gtr, Xte, yte, gte):
    estimators = ({"LinearSVC": LinearSVC(), "SVC": SVC(), "LogisticRegression": LogisticRegression()}
                  if task == "classification" else
                  {"Ridge": Ridge(), "SVR": SVR(), "LassoCV": LassoCV()})
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, est in estimators.items():
            out[f"global_{label}"] = per_node_score(
                task, yte, clone(est).fit(Xtr, ytr).predict(Xte), gte)
            if label == "LassoCV":
                continue  # a LassoCV per node of 10 rows: not a contender, and slow
            local = LocalEstimator(clone(est)).fit(Xtr, ytr, groups=gtr)
            out[f"local_{label}"] = per_node_score(task, yte, local.predict(Xte, groups=gte), gte)
    return out


def run(nodes, tasks, seeds, d, with_baselines):
    rows = []
    for task in tasks:
        for m in nodes:
            for seed in seeds:
                Xtr, ytr, gtr, Xte, yte, gte = make_family(m, d, task, seed)
                Est = (FederatedMultiTaskClassifier if task == "classification"
                       else FederatedMultiTaskRegressor)
                est = Est(random_state=0)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ConvergenceWarning)
                    cpu = time.process_time()
                    est.fit(Xtr, ytr, groups=gtr)
                    cpu = time.process_time() - cpu
                converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
                score = per_node_score(task, yte, est.predict(Xte, groups=gte), gte)
                raw = pooled_data_bytes(Xtr, ytr, gtr)
                selection = est.share_selection_
                row = dict(task=task, nodes=m, d=d, seed=seed, defaults=round(score, 5),
                           converged=converged,
                           bytes_ratio=round(est.n_bytes_sent_ / raw, 3),
                           rounds=int(est.n_iter_),
                           selection=None if selection is None else (
                               "personal" if "shared_part_share" in selection else "share"),
                           shared_weight=round(float(est.shared_weight_), 5),
                           fit_cpu_s=round(cpu, 2))
                if with_baselines:
                    base = baselines(task, Xtr, ytr, gtr, Xte, yte, gte)
                    best_global = max(v for k, v in base.items() if k.startswith("global_"))
                    best_local = max(v for k, v in base.items() if k.startswith("local_"))
                    row.update(best_global=round(best_global, 5), best_local=round(best_local, 5),
                               margin=round(score - max(best_global, best_local), 5))
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", nargs="+", type=int, default=[100, 400, 1600])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--tasks", nargs="+", default=["classification", "regression"],
                        choices=["classification", "regression"])
    parser.add_argument("--features", type=int, default=8)
    parser.add_argument("--no-baselines", action="store_true")
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        rows = run(args.nodes, args.tasks, args.seeds, args.features, not args.no_baselines)
    print(json.dumps(dict(rows=len(rows), converged=sum(r["converged"] for r in rows),
                          max_bytes_ratio=max(r["bytes_ratio"] for r in rows))))


if __name__ == "__main__":
    main()
