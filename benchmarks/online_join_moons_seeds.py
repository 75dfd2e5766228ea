"""Why the online learner's rotated-moons joins sit at Local on fresh seeds.

Issue 32, growing.rst "Limits" -> "Fresh seeds" -> "Rotated moons,
online".  On ``benchmarks/new_nodes.py``'s moons split (100 nodes, 4
rotated clusters, 20 newcomers), per seed and ``k``, this script measures
the default join, its refit, the best Global and Local baselines (the same
arrays and baselines as ``new_nodes.py``), the kernel ``kernel="auto"``
picked, what every newcomer started from (``join_start_``), the passes it
made over its ``k`` samples (``join_passes_``), the fraction of its
neighbours that are of its own cluster, and three alternatives, each carried
by this script (a monkeypatch of a private method of the estimator copy for
its join; the library has no switch for them):

``oracle``
    placement: every newcomer's candidates (as many as the default draws)
    are drawn among the fitted nodes of its own cluster, so its neighbours
    and its start come from its own task (hypothesis (a): the placement is
    the problem).
``passes3``
    every newcomer makes three times the passes the default makes (a kept
    start, 0 passes, stays at 0), hypothesis (b): too few steps.
``eta2``
    the join's stream runs at twice ``eta0_`` (still under the stability
    bound, which is twice ``eta0_`` only for Lipschitz losses at the
    worst-case sample, so some runs may be at the edge), hypothesis (b):
    too small a step.
``fresh``
    the newcomer's start is zero (its own ``k`` samples only, the same
    stream), to show what its neighbours' start is worth.

Hypothesis (c), the laplacian kernel, is read off the per-seed kernel
column.

    python benchmarks/online_join_moons_seeds.py --seeds 3,4,5 [--ks 5,10,20]
        [--variants oracle,passes3,eta2,fresh] [--out FILE]

One BLAS thread; run it under ``nice``.  Results: at the end of this
docstring.
"""

import argparse
import contextlib
import copy
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn.base import clone  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes  # noqa: E402
from skfed.datasets import make_rotated_moons  # noqa: E402
from skfed.online import DecentralizedKernelSGDClassifier  # noqa: E402


def clusters_of(seed):
    """Every node's cluster, as ``new_nodes.load("moons")`` draws them."""
    return make_rotated_moons(n_nodes=100, n_test_per_node=60, random_state=seed)[-1]


@contextlib.contextmanager
def patched(variant, est, cluster, new_labels):
    """The alternative ``variant`` on the estimator copy ``est`` (restored after)."""
    cls = type(est)
    saved = {}

    def patch(name, fn):
        saved[name] = cls.__dict__.get(name)
        setattr(cls, name, fn)

    if variant == "oracle":
        original = cls._join_select
        old_cluster = cluster[np.asarray(est.nodes_, dtype=np.intp)]

        def select(self, sim, X_new, y_new, w_new, new_codes, candidates, degree, n_old):
            rng = np.random.RandomState(0)
            own = []
            for k, c in enumerate(candidates):
                pool = np.flatnonzero(old_cluster[:n_old] == cluster[new_labels[k]])
                own.append(np.sort(rng.choice(pool, size=min(len(c), len(pool)), replace=False)))
            return original(self, sim, X_new, y_new, w_new, new_codes, own, degree, n_old)

        patch("_join_select", select)
    elif variant == "passes3":
        original = cls._join_passes

        def passes(self, *args):
            return 3 * original(self, *args)

        patch("_join_passes", passes)
    elif variant == "eta2":
        original = cls._resolve_step

        def resolve(self, *args, **kwargs):
            original(self, *args, **kwargs)
            self.eta0_ = 2.0 * self.eta0_

        patch("_resolve_step", resolve)
    elif variant == "fresh":
        original = cls._join_start

        def start(self, models, gammas, gamma, coef):
            return original(self, models, gammas, gamma, np.zeros_like(np.asarray(coef, dtype=float)))

        patch("_join_start", start)
    try:
        yield
    finally:
        for name, fn in saved.items():
            if fn is None:
                delattr(cls, name)
            else:
                setattr(cls, name, fn)


def cluster_pooled(X, y, groups, fit_rows, cluster, Xk, yk, gk, Xt, yt, gt):
    """A linear reference that knows the clusters: per newcomer, the best of
    LinearSVC / LogisticRegression on its own cluster's fitted rows and its
    ``k`` samples, scored on its test rows (accuracy over all newcomers)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    best = 0.0
    for make in (LinearSVC, lambda: LogisticRegression(max_iter=1000)):
        right = 0
        for node in np.unique(gk):
            own = fit_rows[cluster[groups[fit_rows]] == cluster[node]]
            model = make().fit(np.concatenate([X[own], Xk[gk == node]]),
                               np.concatenate([y[own], yk[gk == node]]))
            right += int(np.sum(model.predict(Xt[gt == node]) == yt[gt == node]))
        best = max(best, 100 * right / len(yt))
    return best


def run(seed, ks, variants, kernel="auto", consensus_penalty="auto", oracle_graph=False,
        max_epochs=None):
    data = new_nodes.load("moons", seed)
    X, y, groups = data[:3]
    cluster = clusters_of(seed)
    fit_rows, new, order = new_nodes.split(X, y, groups, seed, data[4])
    extra = {} if max_epochs is None else {"max_epochs": max_epochs}
    if oracle_graph:
        from skfed.network import SimulatedNetwork

        def cluster_network(nodes):
            labels = cluster[nodes]
            graph = (labels[:, None] == labels[None]).astype(float)
            np.fill_diagonal(graph, 0.0)
            return SimulatedNetwork(topology=graph)

        extra["network"] = cluster_network(np.unique(groups[fit_rows]))
    base = DecentralizedKernelSGDClassifier(kernel=kernel, consensus_penalty=consensus_penalty,
                                            random_state=seed, **extra)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    # the fitted nodes on their own test draws (rows of neither the fit nor
    # the newcomers)
    rest = np.setdiff1d(np.flatnonzero(~np.isin(groups, new)), fit_rows)
    fitted_own = 100 * float(np.mean(base.predict(X[rest], groups=groups[rest]) == y[rest]))
    # the fitted graph's links within a cluster (a fraction of all links)
    A = base.adjacency_.tocoo()
    labels = cluster[np.asarray(base.nodes_, dtype=np.intp)]
    fit_same = float(np.mean(labels[A.row] == labels[A.col])) if A.nnz else float("nan")
    rows = []
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xt, yt, gt = X[test], y[test], groups[test]
        pooled, local = new_nodes.baselines("classification", X, y, groups, fit_rows, train, test, k)
        Xp, yp = np.concatenate([X[fit_rows], Xk]), np.concatenate([y[fit_rows], yk])
        gp = np.concatenate([groups[fit_rows], gk])
        refit = clone(base)
        if oracle_graph:
            refit.set_params(network=cluster_network(np.unique(gp)))
        refit.fit(Xp, yp, groups=gp)
        row = dict(seed=seed, k=k, kernel=str(base.kernel_), eta0=float(base.eta0_),
                   consensus_penalty=float(base.consensus_penalty_), fit_same=fit_same,
                   fitted_own=fitted_own, cluster_pooled=cluster_pooled(
                       X, y, groups, fit_rows, cluster, Xk, yk, gk, Xt, yt, gt),
                   max_epochs=int(base.max_epochs),
                   global_best=max(pooled.values()), local_best=max(local.values()),
                   local=local, refit=100 * float(np.mean(refit.predict(Xt, groups=gt) == yt)))
        new_labels = np.unique(gk)
        for variant in ("join",) + tuple(variants):
            joined = copy.deepcopy(base)
            with patched(variant, joined, cluster, new_labels):
                joined.add_nodes(Xk, yk, groups=gk)
            pred = joined.predict(Xt, groups=gt)
            n_new = len(new_labels)
            adjacency = joined.adjacency_[len(joined.nodes_) - n_new:]
            nodes = np.asarray(joined.nodes_)
            same = [float(np.mean(cluster[nodes[adjacency[i].indices]] == cluster[label]))
                    if len(adjacency[i].indices) else np.nan
                    for i, label in enumerate(joined.nodes_[-n_new:])]
            starts = list(getattr(joined, "join_start_", []))
            row[variant] = dict(
                score=100 * float(np.mean(pred == yt)),
                same_cluster=float(np.nanmean(same)),
                starts={s: starts.count(s) for s in sorted(set(map(str, starts)))},
                passes={int(p): int(c) for p, c in zip(*np.unique(joined.join_passes_,
                                                                  return_counts=True))},
                bytes=int(joined.join_communication_.total_bytes),
            )
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def summarize(rows, variants):
    head = f"{'seed':>4s} {'k':>3s} {'kernel':10s} {'glob':>5s} {'local':>5s} {'refit':>5s} {'join':>5s}"
    head += "".join(f" {v:>7s}" for v in variants)
    head += " fitted clust  same(join/oracle)  starts  passes"
    print(head)
    for r in rows:
        line = (f"{r['seed']:4d} {r['k']:3d} {r['kernel'][:10]:10s} {r['global_best']:5.1f} "
                f"{r['local_best']:5.1f} {r['refit']:5.1f} {r['join']['score']:5.1f}")
        line += "".join(f" {r[v]['score']:7.1f}" for v in variants)
        line += f" {r.get('fitted_own', np.nan):6.1f} {r.get('cluster_pooled', np.nan):5.1f}"
        oracle = r.get("oracle", {}).get("same_cluster", np.nan)
        line += f"  {r['join']['same_cluster']:.2f}/{oracle:.2f}  {r['join']['starts']}  {r['join']['passes']}"
        print(line)
    for k in sorted({r["k"] for r in rows}):
        sel = [r for r in rows if r["k"] == k]
        means = {key: np.mean([r[key] for r in sel]) for key in ("global_best", "local_best", "refit")}
        line = (f"mean k={k:2d}: global {means['global_best']:.1f} local {means['local_best']:.1f} "
                f"refit {means['refit']:.1f} join {np.mean([r['join']['score'] for r in sel]):.1f}")
        line += "".join(f" {v} {np.mean([r[v]['score'] for r in sel]):.1f}" for v in variants)
        print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="oracle,passes3,eta2,fresh")
    parser.add_argument("--kernel", default="auto",
                        help="the fit's kernel (default auto; hypothesis (c): e.g. rbf)")
    parser.add_argument("--consensus-penalty", default="auto",
                        help="the fit's consensus_penalty (default auto; a float: that coupling)")
    parser.add_argument("--oracle-graph", action="store_true",
                        help="fit over the clusters' graph (every fitted node linked to "
                        "every other of its cluster; an upper reference, not a method)")
    parser.add_argument("--max-epochs", type=int, default=None,
                        help="the fit's max_epochs (default: the estimator's)")
    parser.add_argument("--out", default=None)
    parser.add_argument("--from-json", nargs="*", default=None)
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    if args.from_json:
        rows = [json.loads(line) for f in args.from_json for line in open(f) if line.startswith("{")]
        summarize(rows, variants)
        return
    rows = []
    for seed in map(int, args.seeds.split(",")):
        rows += run(seed, [int(k) for k in args.ks.split(",")], variants, args.kernel,
                    args.consensus_penalty if args.consensus_penalty == "auto"
                    else float(args.consensus_penalty), args.oracle_graph,
                    args.max_epochs)
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    summarize(rows, variants)


if __name__ == "__main__":
    main()
