"""A newcomer that averages the fitted models of the nodes whose features look like its own.

(Docstring completed with the measured numbers below.)

    python benchmarks/new_nodes_landmine_neighbours.py --families persolin \
        --datasets landmine --seeds 0,1,2 --ks 5,10,20
"""

import argparse
import copy
import json
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits


def node_means(X, groups, nodes):
    """Every node's feature mean and row count (what each node would send)."""
    means = np.array([X[groups == node].mean(axis=0) for node in nodes])
    sizes = np.array([np.sum(groups == node) for node in nodes], dtype=np.float64)
    return means, sizes


def nearest_average(joined, fitted_nodes, means, sizes, newcomer_mean, newcomer, m):
    """Overwrite ``newcomer``'s ``coef_`` / ``intercept_`` row in ``joined``
    with the size-weighted mean of the rows of the ``m`` fitted nodes whose
    feature means are nearest (Euclidean) its ``k`` samples' mean."""
    order = np.argsort(((means - newcomer_mean) ** 2).sum(axis=1), kind="stable")[:m]
    index = {node: i for i, node in enumerate(joined.nodes_)}
    rows = [index[node] for node in fitted_nodes[order]]
    weights = sizes[order] / sizes[order].sum()
    target = index[newcomer]
    coef = np.asarray(joined.coef_)
    intercept = np.asarray(joined.intercept_)
    coef[target] = weights @ coef[rows]
    intercept[target] = weights @ intercept[rows]
    return fitted_nodes[order]


def _predict(estimator, X, groups):
    """The estimator's prediction, reading ``coef_`` / ``intercept_`` for
    the linear families (MOCHA's dual fit predicts from its support vectors,
    whose personalized scores equal ``X @ coef_[i] + intercept_[i]``,
    checked on the fitted nodes in :func:`run`)."""
    if not hasattr(estimator, "support_vectors_"):
        return estimator.predict(X, groups=groups)
    index = {node: i for i, node in enumerate(estimator.nodes_)}
    rows = np.array([index[node] for node in groups])
    coef, intercept = np.asarray(estimator.coef_), np.asarray(estimator.intercept_)
    scores = np.einsum("id,id->i", X, coef[rows]) + intercept[rows]
    return estimator.classes_[(scores > 0).astype(int)]


def run(family, name, seed, ks, ms, rows_out):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator(family, task, seed).fit(X[fit_rows], y[fit_rows],
                                                      groups=groups[fit_rows])
    fitted_nodes = np.asarray(base.nodes_)
    means, sizes = node_means(X[fit_rows], groups[fit_rows], fitted_nodes)
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xt, yt, gt = X[test], y[test], groups[test]
        joined = copy.deepcopy(base)
        nn.add_nodes(joined, X[train], y[train], groups[train])
        results = {"join": joined.predict(Xt, groups=gt)}
        assert np.array_equal(_predict(joined, Xt, gt), results["join"])
        for m in ms:
            variant = copy.deepcopy(joined)
            for node in new:
                own = X[train][groups[train] == node].mean(axis=0)
                nearest_average(variant, fitted_nodes, means, sizes, own, node, min(m, len(fitted_nodes)))
            results[f"near{m}"] = _predict(variant, Xt, gt)
        for variant, pred in results.items():
            correct = (np.asarray(pred) == yt).astype(int)
            rows_out.append(dict(family=family, dataset=name, seed=seed, k=k, variant=variant,
                                 correct=correct.tolist()))
            print(f"{family:8s} {name:18s} seed {seed} k {k:2d} {variant:7s} "
                  f"{100 * correct.mean():6.2f}", flush=True)


def summarize(rows):
    keys = sorted({(r["family"], r["dataset"], r["k"]) for r in rows})
    for family, name, k in keys:
        sel = [r for r in rows if (r["family"], r["dataset"], r["k"]) == (family, name, k)]
        seeds = sorted({r["seed"] for r in sel})
        by = {(r["variant"], r["seed"]): np.array(r["correct"]) for r in sel}
        for variant in dict.fromkeys(r["variant"] for r in sel):
            acc = np.mean([by[(variant, s)].mean() for s in seeds]) * 100
            diff = [by[(variant, s)] - by[("join", s)] for s in seeds]
            d = np.mean([x.mean() for x in diff]) * 100
            se = np.sqrt(sum(np.var(x, ddof=1) / len(x) for x in diff)) / len(seeds) * 100
            print(f"{family:8s} {name:18s} k {k:2d} {variant:7s} {acc:6.2f}  vs join "
                  f"{d:+5.2f} +- {se:4.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default="persolin")
    parser.add_argument("--datasets", default="landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--ms", default="3,5")
    parser.add_argument("--out", default=None, help="per-row correctness as JSON lines")
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    rows = []
    names = []
    for name in args.datasets.split(","):
        names += list(nn.RELATED) if name == "related" else [name]
    with threadpool_limits(1):
        for name in names:
            for seed in [int(s) for s in args.seeds.split(",")]:
                for family in args.families.split(","):
                    run(family, name, seed, [int(k) for k in args.ks.split(",")],
                        [int(m) for m in args.ms.split(",")], rows)
                    if args.out:
                        with open(args.out, "w") as fh:
                            fh.writelines(json.dumps(r) + "\n" for r in rows)
    summarize(rows)


if __name__ == "__main__":
    main()
