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


def nearest(means, newcomer_mean, m, exclude=None):
    """Indices of the ``m`` nodes whose feature means are nearest (Euclidean)
    ``newcomer_mean``, skipping index ``exclude``."""
    dist = ((means - newcomer_mean) ** 2).sum(axis=1)
    if exclude is not None:
        dist[exclude] = np.inf
    return np.argsort(dist, kind="stable")[:m]


def node_scores(estimator, fitted_nodes, X):
    """``(n_fitted, n_rows)``: every fitted node's decision function on ``X``
    (a newcomer that averages some of them receives their models, or for
    the online learner their dictionaries, once)."""
    return np.array([np.asarray(estimator.decision_function(X, groups=np.full(len(X), node)))
                     for node in fitted_nodes])


def averaged(scores, sizes, chosen):
    """The size-weighted mean of the chosen nodes' decision values (for a
    linear model the decision of the size-weighted mean model)."""
    weights = sizes[chosen] / sizes[chosen].sum()
    return weights @ scores[chosen]


def rehearsal_gate(scores_fit, y_fit, g_fit, fitted_nodes, means, sizes, m, classes):
    """Do feature-mean neighbours help in this federation?  Each fitted node
    scores, on its own rows, the mean model of its ``m`` nearest other nodes
    against the mean model of all other nodes; returns the mean over nodes
    of the accuracy difference and its t statistic (mean over its standard
    error; the gate is open when t > 2).  Each node sends one float."""
    gains = []
    everyone = np.arange(len(fitted_nodes))
    for i, node in enumerate(fitted_nodes):
        rows = g_fit == node
        near = nearest(means, means[i], m, exclude=i)
        others = everyone[everyone != i]
        pred_near = classes[(averaged(scores_fit[:, rows], sizes, near) > 0).astype(int)]
        pred_all = classes[(averaged(scores_fit[:, rows], sizes, others) > 0).astype(int)]
        gains.append(np.mean(pred_near == y_fit[rows]) - np.mean(pred_all == y_fit[rows]))
    gains = np.asarray(gains)
    spread = np.std(gains, ddof=1) / np.sqrt(len(gains))
    return float(np.mean(gains)), float(np.mean(gains) / spread) if spread > 0 else 0.0


def run(family, name, seed, ks, ms, rows_out):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator(family, task, seed).fit(X[fit_rows], y[fit_rows],
                                                      groups=groups[fit_rows])
    fitted_nodes = np.asarray(base.nodes_)
    classes = np.asarray(base.classes_)
    means, sizes = node_means(X[fit_rows], groups[fit_rows], fitted_nodes)
    scores_fit = node_scores(base, fitted_nodes, X[fit_rows])
    gates = {m: rehearsal_gate(scores_fit, y[fit_rows], groups[fit_rows], fitted_nodes, means,
                               sizes, m, classes) for m in ms}
    print(f"{family:8s} {name:18s} seed {seed} rehearsal gain of near-m over all: "
          + ", ".join(f"m={m} {100 * v[0]:+.2f} (t {v[1]:+.1f})" for m, v in gates.items()),
          flush=True)
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xt, yt, gt = X[test], y[test], groups[test]
        joined = copy.deepcopy(base)
        nn.add_nodes(joined, X[train], y[train], groups[train])
        join_pred = np.asarray(joined.predict(Xt, groups=gt))
        results = {"join": join_pred}
        scores_test = node_scores(base, fitted_nodes, Xt)
        for m in ms:
            near = np.empty_like(join_pred)
            one = join_pred.copy()
            for node in new:
                own = groups[train] == node
                at = gt == node
                chosen = nearest(means, X[train][own].mean(axis=0), min(m, len(fitted_nodes)))
                near[at] = classes[(averaged(scores_test[:, at], sizes, chosen) > 0).astype(int)]
                if len(np.unique(y[train][own])) == 1:
                    one[at] = near[at]
            results[f"near{m}"] = near
            results[f"one{m}"] = one
            results[f"gate{m}"] = one if gates[m][1] > 2 else join_pred
            results[f"gatenear{m}"] = near if gates[m][1] > 2 else join_pred
        for variant, pred in results.items():
            correct = (np.asarray(pred) == yt).astype(int)
            rows_out.append(dict(family=family, dataset=name, seed=seed, k=k, variant=variant,
                                 gate=gates, correct=correct.tolist()))
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
