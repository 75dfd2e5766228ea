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
``allcand``
    every newcomer asks every fitted node instead of its budget's draw
    (its query bytes counted as the default counts them: many times the
    budget), to see whether judging the functions on its own samples can
    find its cluster at all.
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

Fit references (not methods; they change the fit and the refit):
``--kernel rbf``, ``--consensus-penalty C``, ``--max-epochs E`` and
``--oracle-graph`` (the fit over the clusters' graph: every fitted node
linked to every other of its cluster).  Columns ``fitted`` (the fitted
nodes' accuracy on their own test draws) and ``clust`` (per newcomer, the
better of LinearSVC / LogisticRegression on its own cluster's fitted rows
and its ``k`` samples: what a linear function that pools the right nodes
reaches) bound what a join can transfer.

One BLAS thread; run it under ``nice`` (about a minute a seed block at
load 8).

Results (2026-11-29, main 18633e0, online35)
--------------------------------------------

``python benchmarks/online_join_moons_seeds.py --seeds S`` for the blocks
0,1,2 / 3,4,5 / 6,7,8 / 9,10,11 (JSON with ``--out``; ``--from-json``
re-prints).  Means over each block's three seeds; ``k = 5 / 10 / 20``;
differences in accuracy points::

    seeds  Local best          join - Local         oracle - join      fresh - join       passes3 - join     eta2 - join
    0-2    56.0 / 59.1 / 63.0  +1.1 / +0.7 / +0.0   +1.1 / +0.1 / +1.2 -0.1 / +0.5 / +0.4 -0.6 / +0.5 / +0.3 -0.3 / +0.5 / +0.3
    3-5    56.2 / 58.0 / 62.3  -1.8 / -2.0 / +0.2   +2.2 / +1.0 / +0.0 +0.9 / +0.2 / +0.7 -0.1 / +0.7 / -0.2 -0.2 / +0.5 / +0.2
    6-8    55.7 / 58.3 / 61.2  -2.0 / -0.8 / +0.6   +3.2 / +1.4 / +2.5 +0.4 / +0.4 / +0.6 -0.1 / -0.5 / +0.7 +0.2 / -0.4 / +0.9
    9-11   53.1 / 56.6 / 59.2  -0.6 / -1.1 / +1.2   +1.0 / +0.2 / +1.0 -0.6 / -0.8 / -0.6 -0.2 / +0.2 / +0.6 +0.0 / +0.3 / +0.2

    seeds  refit               fitted  clust  neighbours of its cluster (join; chance 0.25)
    0-2    56.0 / 58.8 / 62.9  56.0    77.5   0.52
    3-5    55.1 / 56.7 / 62.6  55.1    76.2   0.37
    6-8    54.3 / 57.9 / 63.3  55.5    77.6   0.33
    9-11   53.3 / 54.9 / 59.3  54.2    77.4   0.33

Kernels ``kernel="auto"`` picked: linear on seeds 0, 1, 7, 11, affine on
2, 3, 4, 6, laplacian on 5, 8, 9, 10 (seeds 3-11, join - Local over ``k``:
linear +0.2, affine -0.6, laplacian -1.2; the refit - Local +1.1 / +0.1 /
-1.4: the laplacian fits are worse themselves, their joins follow them).
The newcomers start from their neighbours or the network function about
half and half, and all but 0-9 of 20 make ``max_epochs = 30`` passes
(the rest keep a start that errs on at most a tenth of their samples).

Reading, hypothesis by hypothesis:

(a) placement: the newcomers' neighbours are of their own cluster in 0.33-
0.37 of the links on seeds 3-11 (0.52 on 0-2; chance 0.25).  Giving every
newcomer its own cluster's candidates (``oracle``) gains +1.0 to +3.2 at
``k = 5`` on every block, but the oracle join is still only +0.4 / -1.0 /
+0.3 against Local on seeds 3-5 and -0.9 at ``k = 10`` on 9-11: placement
is about half of the gap at ``k = 5``, not all of it, and no realistic rule
reaches the oracle: asking every fitted node (``allcand``, ``--variants
allcand,oracle``; 3.6-5.0 times the join's bytes, about 0.13-0.2 of a
refit's, over the goal's tenth) links 0.38 / 0.55 / 0.57 of a newcomer's
neighbours to its cluster (seeds 3-5 / 6-8 / 9-11) and moves the join by
+0.9 / +0.8 / -0.6, +2.0 / +1.2 / +1.3 and -0.7 / -1.5 / +0.0 at ``k = 5 /
10 / 20``: the functions' losses on 5 samples find the cluster only
sometimes, and the gain does not hold across blocks.

(b) steps: three times the passes or twice the step changes the join by
-0.6 to +0.9 with no sign that holds across blocks.  Starting from zero
(``fresh``: the neighbours' start thrown away) is +0.2 to +0.9 on seeds
3-8 and -0.6 to -0.8 on 9-11: the neighbours' functions are worth about
nothing here, which is the real finding:

the fitted functions are the ceiling.  The fitted nodes score 54-56 on
their own test draws, about Local, while a linear function pooled over the
right cluster scores 75-78.  Fit references on seeds 3-5 (``k = 5 / 10 /
20``, join; fitted): ``--max-epochs 150`` 53.6 / 55.8 / 62.3; 54.5 (more
steps do not help); ``--consensus-penalty 0.1`` 55.4 / 55.9 / 61.8; 55.5
and ``--consensus-penalty 0`` 54.1 / 55.6 / 61.4; 55.5 (the coupling makes
no difference: nodes of 3-15 samples in 20 features, 18 of them noise, each
learn about what Local learns); ``--oracle-graph`` (coupling chosen by
``"auto"``: 0.1 on seeds 3, 4, 1 on 5) 53.7 / 54.7 / 56.8, fitted 56.3,
refit 55.2 / 57.7 / 64.5, oracle placement 57.4 / 56.6 / 57.9 -- even the
clusters' graph does not make the fitted functions pool their cluster, and
on seed 5 the newcomers' feature-mean gate opened (``join_start_ =
"features"``) and scored 46.8-49.1, under Global; ``--oracle-graph
--consensus-penalty 1`` 49.1 / 49.4 / 48.3 (refit 50.1 / 49.7 / 52.2: the
step the dense cluster graph leaves is so small that on seed 4 every
dictionary ended empty, which is how the pickling bug of
``tests/test_online35_pickle_empty_rows.py`` was found).

(c) the laplacian kernel: its fits are 1.4 under Local themselves (above);
``--kernel rbf`` is worse still (seeds 3-5: join 53.0 / 54.7 / 60.3, refit
53.3 / 55.1 / 61.3; seeds 6-8: 53.0 / 56.4 / 61.1, refit 52.2 / 54.8 /
60.8).

No newcomer-local rule was adopted: nothing measured here beats Local on
seeds 3-5 and holds on 6-11 (``fresh`` and ``passes3`` / ``eta2`` change
sign between blocks; ``oracle`` is not available to a newcomer and still
misses).  What would move the row is a fit whose nodes pool their own
cluster (a learned graph, as Dada and Perso-lin learn theirs), not the
join.
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
    elif variant == "allcand":
        original = cls._join_select

        def select(self, sim, X_new, y_new, w_new, new_codes, candidates, degree, n_old):
            every = [np.arange(n_old) for _ in candidates]
            return original(self, sim, X_new, y_new, w_new, new_codes, every, degree, n_old)

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
