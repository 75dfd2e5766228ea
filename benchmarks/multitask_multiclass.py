"""Multiclass multi-task learning: the multinomial loss against one-vs-rest and the baselines.

Four multiclass families, none of which the defaults were tuned on:

- ``ordinal``: 20 nodes x 60 training rows (60 test rows each), 10
  features, 3 ordered classes cut at the tertiles of one linear score
  ``x . (w + 0.3 u_t)`` plus noise (a middle class that no single
  hyperplane separates from the other two);
- ``blobs``: 30 nodes x 50 rows, 8 features, 5 unordered classes, each a
  Gaussian blob whose centre is shared plus a per-node shift;
- ``har``: HAR activity, 6 activities, the 21 people as nodes (561
  features), 70/30 per person;
- ``small``: 300 nodes x 15 rows, 10 features, 4 classes drawn from a
  softmax of ``x . (W + 0.3 U_t)`` (most nodes miss a class or two);
- ``noisy``: ``ordinal`` with 40 uninformative features added.

Per family and seed: mean per-node accuracy of the defaults
(``multi_class="auto"``, i.e. multinomial) and of ``multi_class="ovr"``,
against Global and Local (each the best of ``LinearSVC()``, ``SVC()`` and
``LogisticRegression()``, the last multinomial), whether each fit met
its stopping rule, bytes against the raw upload, and the fit's CPU
seconds as a ratio to one-vs-rest's (the two fits interleaved in one
process, one BLAS thread).  The last line printed is one JSON object.

    cd benchmarks && python multitask_multiclass.py [--seeds 0 1 2] [--families ...]

The raw upload's byte ceiling of ``omega="auto"`` (``--seeds 0 1 2 3 4 5 6 7
8 9 10 25 --families small``, against main before it): the defaults
(multinomial) bind on seeds 8 and 25 (1.074 and 1.163 -> 0.985 of the raw
upload; certified gap 1.7e-3 and 3.3e-3 of the objective at tol 1e-3;
accuracy .7382 -> .7387 and .7816 -> .7820), the other 10 seeds unchanged
(accuracy, bytes, rounds); mean .7426 against best Global .7405, 12/12 met.
One-vs-rest (``multi_class="ovr"``, the same fit over 4 binary problems)
binds on 11 of 12 seeds: 0.956-1.326 -> 0.956 of the raw upload, 8 rounds,
accuracy within -0.0011 / +0.0006 of main's (gap 1.6e-2 to 1.8e-2 of the
objective on seeds 8 and 25).
"""

import argparse
import json
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from skfed import FederatedMultiTaskClassifier
from skfed.baselines import pooled_data_bytes
from skfed.datasets import load_har, train_test_split_per_node

from bench_multitask import baselines, fit_checked, per_node_error

FAMILIES = ("ordinal", "blobs", "har", "small", "noisy")


def _ordinal(seed, n_noise=0, n_nodes=20, per_node=60, d=10):
    rng = np.random.RandomState(seed)
    n = 2 * n_nodes * per_node
    groups = np.repeat(np.arange(n_nodes), 2 * per_node)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    U = rng.normal(size=(n_nodes, d)) * np.linalg.norm(w) / np.sqrt(d)
    score = np.einsum("ij,ij->i", X, w + 0.3 * U[groups])
    score += 0.5 * np.std(score) * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    if n_noise:
        X = np.column_stack([X, rng.normal(size=(n, n_noise))])
    train = np.tile(np.r_[np.ones(per_node, bool), np.zeros(per_node, bool)], n_nodes)
    return X[train], X[~train], y[train], y[~train], groups[train], groups[~train]


def _blobs(seed, n_nodes=30, per_node=50, d=8, n_classes=5):
    rng = np.random.RandomState(seed)
    centres = 1.2 * rng.normal(size=(n_classes, d))
    shifts = 0.5 * rng.normal(size=(n_nodes, n_classes, d))
    groups = np.repeat(np.arange(n_nodes), 2 * per_node)
    y = rng.randint(n_classes, size=len(groups))
    X = centres[y] + shifts[groups, y] + rng.normal(size=(len(groups), d))
    train = rng.uniform(size=len(groups)) < 0.5
    return X[train], X[~train], y[train], y[~train], groups[train], groups[~train]


def _small(seed, n_nodes=300, per_node=15, d=10, n_classes=4):
    rng = np.random.RandomState(seed)
    W = rng.normal(size=(n_classes, d))
    U = rng.normal(size=(n_nodes, n_classes, d))
    groups = np.repeat(np.arange(n_nodes), 2 * per_node)
    X = rng.normal(size=(len(groups), d))
    Z = np.einsum("ij,ikj->ik", X, W[None] + 0.3 * U[groups])
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(len(groups), 1)) > np.cumsum(P, axis=1)).sum(axis=1)
    train = np.tile(np.r_[np.ones(per_node, bool), np.zeros(per_node, bool)], n_nodes)
    return X[train], X[~train], y[train], y[~train], groups[train], groups[~train]


def load_family(name, seed):
    """``Xtr, Xte, ytr, yte, gtr, gte`` of one family and seed."""
    if name == "ordinal":
        return _ordinal(seed)
    if name == "noisy":
        return _ordinal(seed, n_noise=40)
    if name == "blobs":
        return _blobs(seed)
    if name == "small":
        return _small(seed)
    X, y, g = load_har(task="activity", return_X_y=True)
    return train_test_split_per_node(X, y, g, test_size=0.3, random_state=seed)


def run(families, seeds):
    rows = []
    for name in families:
        for seed in seeds:
            Xtr, Xte, ytr, yte, gtr, gte = load_family(name, seed)
            raw = pooled_data_bytes(Xtr, ytr, gtr)
            fits = {}
            for label, mc in (("multinomial", "auto"), ("ovr", "ovr")):
                est = FederatedMultiTaskClassifier(multi_class=mc, random_state=0)
                cpu = []
                seconds, ok = fit_checked(est, Xtr, ytr, gtr, cpu)
                fits[label] = dict(
                    score=1.0 - per_node_error(yte, est.predict(Xte, groups=gte), gte),
                    converged=ok, bytes_ratio=est.n_bytes_sent_ / raw, rounds=est.n_iter_,
                    cpu=cpu[0], resolved=est.multi_class_, mode=est.omega_mode_)
            base = baselines(name, Xtr, Xte, ytr, yte, gtr, gte, "accuracy")
            best_global = max(v for k, v in base.items() if k.startswith("global_") and v)
            best_local = max(v for k, v in base.items() if k.startswith("local_") and v)
            best = max(best_global, best_local)
            mn, ovr = fits["multinomial"], fits["ovr"]
            rows.append(dict(
                family=name, seed=seed, n_nodes=len(np.unique(gtr)),
                n_classes=len(np.unique(ytr)), multinomial=round(mn["score"], 4),
                ovr=round(ovr["score"], 4), best_global=round(best_global, 4),
                best_local=round(best_local, 4),
                target_met=bool(mn["score"] >= best - 0.001),
                converged=[mn["converged"], ovr["converged"]],
                bytes_ratio=[round(mn["bytes_ratio"], 3), round(ovr["bytes_ratio"], 3)],
                rounds=[mn["rounds"], ovr["rounds"]],
                cpu_ratio=round(mn["cpu"] / ovr["cpu"], 2),
                cpu_s=[round(mn["cpu"], 2), round(ovr["cpu"], 2)],
                resolved=mn["resolved"], omega_mode=mn["mode"],
                baselines={k: (None if v is None else round(v, 4)) for k, v in base.items()},
            ))
            print(json.dumps(rows[-1]), flush=True)
    return rows


def markdown(rows):
    lines = ["| family | multinomial (default) | one-vs-rest | best Global | best Local | "
             "target met | converged | bytes / raw | CPU / OvR |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["family"] for r in rows):
        rs = [r for r in rows if r["family"] == name]

        def mean(key):
            return np.mean([r[key] for r in rs])

        def span(values):
            return f"{min(values):.2f}-{max(values):.2f}"

        lines.append(
            f"| {name} | {mean('multinomial'):.4f} | {mean('ovr'):.4f} | "
            f"{mean('best_global'):.4f} | {mean('best_local'):.4f} | "
            f"{sum(r['target_met'] for r in rs)}/{len(rs)} | "
            f"{all(all(r['converged']) for r in rs)} | "
            f"{span([r['bytes_ratio'][0] for r in rs])} | "
            f"{span([r['cpu_ratio'] for r in rs])} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    args = parser.parse_args()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        rows = run(args.families, args.seeds)
    print(markdown(rows))
    print(json.dumps(dict(benchmark="multitask_multiclass", rows=rows)))


if __name__ == "__main__":
    main()
