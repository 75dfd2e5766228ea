"""Perso-lin's newcomer prior on rotated moons: which neighbours, how much trust.

A Perso-lin newcomer's model solves its block of the objective,
``min_theta c F_n(theta) + (mu / 2) ||theta - u||^2``, ``u`` the weighted
mean of its neighbours' models under the row it learned from its own local
model.  On rotated moons (20 features, 18 of them noise, 5-20 samples) the
local model cannot rank its candidates: its row puts 32 / 46 / 59 % of its
weight inside its cluster at ``k = 5 / 10 / 20`` (seeds 0-2) and ``u``
scores 53-55 %, while the mean of the fitted models of its cluster (an
oracle) scores 60-61 and its block with that ``u`` 62.0 / 62.7 / 64.5.

This script solves, in NumPy (L-BFGS, to convergence), the newcomer's block
with other priors ``u`` and trust multipliers on ``c``, on
``benchmarks/new_nodes.py``'s split, and scores them on the newcomers' test
samples (accuracy %, mean over newcomers and seeds):

* ``join``: the estimator's join (``add_nodes``) as it is;
* ``svc`` / ``lr``: Local ``LinearSVC()`` / ``LogisticRegression()`` on the
  newcomer's ``k`` samples (a one-class newcomer predicts its class);
* ``bJ xM``: the block with the join's row over the fitted models, ``c``
  times ``M``;
* ``bP10 xM``: ``u`` the mean of the 10 fitted models with the smallest
  logistic loss on the newcomer's samples (peer scores);
* ``bHP5 xM``: the same over the fitted models smoothed by the fit's graph
  (a node's model averaged with its neighbours', degree weights), 5 best;
* ``bS3 xM``: ``u`` the softmax of ``-10 k L_r / 3`` over the fitted models;
* ``bC x1``: the oracle prior (moons only: the mean of its cluster's
  fitted models).

    python benchmarks/persolin_moons_prior.py --datasets moons --seeds 0,1,2

With ``--cpu`` it instead times the join the estimator runs (process CPU,
the least of 7 joins, each on a fresh copy of the fit) against a refit
(the least of 3), mean over the seeds, for each ``k``: the load of a
shared machine inflates single timings, the least of several much less.

    python benchmarks/persolin_moons_prior.py --cpu --datasets moons --seeds 0,1,2

Measured on 2026-11-29 (persolin28, main 3eb98bc; load 12-19 on 2 cores)
----------------------------------------------------------------------

The variants, NumPy (accuracy %, means; ``k = 5 / 10 / 20``; the join of
that time is the graph join, which ``bJ x1`` reproduces exactly where
newcomers do not link to each other)::

    moons seeds 0-2    join 54.1/57.9/61.6  bJ x2 54.9/58.5/61.1
                       bP10 x1 57.0/59.2/62.1  x2 57.6/59.4/62.7  x4 57.7/60.3/63.0
                       bS3 x1 56.8/59.7/61.6  x4 58.0/60.2/62.9
                       posterior (bT1) x1 55.8/59.3/62.5  x2 56.5/60.1/63.3
                       x2 on the 10 / 20 heaviest 57.7/60.3/62.9 / 57.1/60.1/63.2
                       oracle prior bC x1 62.0/62.7/64.5
    moons seeds 3-8    join 52.7/56.4/62.0  bT1 x1 54.8/57.8/61.3
                       x1.5 54.7/58.1/61.9  x2 54.7/58.1/62.6  x3 55.0/58.2/62.7
    related-small      join 88.5/89.3/90.7  bT1 x1 90.3/90.6/91.2  x2 90.0/90.1/91.1
                       10 heaviest x2 88.3/88.4/89.7  (bP10 x1 88.4/88.7/90.0)
    related-wide       join 87.4/88.4/88.5  bT1 x1 89.0/88.8/88.7  x2 88.8/88.7/88.6
                       10 heaviest x2 87.7/87.5/87.9  (bP10 x1 87.8/87.8/88.2)
    related-clustered  join 73.7/81.8/88.4  bT1 x1 81.9/86.9/89.5  x2 82.0/87.1/89.7
    related-alike      join 90.1/90.4/90.8  bT1 x1 90.9/90.8/91.1  x2 91.0/90.7/91.3
    related-narrow     join 90.7/91.2/91.5  bT1 x1 91.8/91.6/91.7  x2 91.8/91.7/91.8
    HAR seeds 0-2      join 93.6/93.9/94.6  bT1 x1 94.0/94.5/95.0  x2 93.9/94.4/94.9
    Landmine           the feature-mean gate opens on seeds 0-2: no graph join to change

Chosen on moons seeds 0-2 (the target): the likelihood itself as weights
(temperature 1; 0.5 and fixed scales 10-40 were no better on moons and
worse on the held-out families at ``k = 20``), every candidate (the 10 or
20 heaviest lose 0.4-1.6 on related-small and -wide), ``TRUST = 2``
(moons seeds 0-2 need it at ``k = 20``: 62.5 at 1, 63.3 at 2; on the
held-out families 2 is 0.0-0.5 under 1, still above the graph join
everywhere).  Built as :mod:`skfed.boosting._perso_lin_posterior`, "auto"'s
join where the feature-mean gate closes.

Rows of ``benchmarks/new_nodes.py`` with it (``python
benchmarks/new_nodes.py --families persolin --datasets moons --seeds
0,1,2 --ks 5,10,20``; ``--seeds 3,4,5,6,7,8``; ``--datasets related``);
bytes and CPU from ``new_nodes.py`` at load 3.7 after the ``max_neighbors``
cap on the recorded edges (``--cpu``, least of 7 / 3, gives 0.046 / 0.055 /
0.065 on seeds 0-2 and 0.060 / 0.065 / 0.073 on seeds 3-8; single timings
under load 12-19 read 0.07-0.14)::

    data / seeds       k   join  Global (best)    Local (best)     refit  bytes   CPU    goal
    moons 0-2          5   56.5  50.7 own         55.9 LinSVC      55.1   0.0197  0.058  yes
    moons 0-2          10  60.2  51.2 LinSVC      59.1 LinSVC      58.4   0.0192  0.063  yes
    moons 0-2          20  63.3  53.1 LinSVC      62.6 LogReg      63.9   0.0177  0.074  yes
    moons 3-8          5   54.8  50.4 SVC         55.9 LinSVC      53.4   0.0188  0.066  no
    moons 3-8          10  58.1  50.6 SVC         58.2 LinSVC      57.1   0.0202  0.066  no
    moons 3-8          20  62.6  52.4 SVC         61.4 LogReg      63.2   0.0204  0.078  yes
    related-alike      5/10/20  91.0/90.7/91.2  Global 90.6/90.6/90.9  refit 89.5/89.1/90.2
    related-clustered  5/10/20  82.0/87.0/89.7  Global 65.9/65.6/66.2  refit 67.7/78.4/87.5
    related-narrow     5/10/20  91.8/91.7/91.8  Global 91.4/91.3/91.4  refit 90.8/91.1/91.5
    related-small      5/10/20  90.0/90.1/91.2  Global 91.3/91.2/91.8  refit 87.5/89.2/91.1
    related-wide       5/10/20  88.8/88.7/88.6  Global 89.7/89.9/90.0  refit 82.8/87.5/87.2
    HAR 0-2            5/10/20  93.8/94.4/94.9  Global 97.8/97.9/97.9  refit 89.9/93.1/93.4
                       (graph join 93.6/93.9/94.6; bytes 0.0042 of the refit's, was 0.0052)
    Landmine 0-2       5/10/20  93.9/93.9/94.1  (feature-mean gate open: unchanged)

Fresh seeds on the held-out families (``python benchmarks/new_nodes.py
--families persolin --datasets related --seeds 3,4,5 --ks 5,10,20``, and
with ``--persolin-join-neighbours graph``), posterior / graph join::

    related-alike      90.0/89.9/90.2  /  89.3/89.2/89.4
    related-clustered  83.7/87.8/89.4  /  74.6/82.9/88.4
    related-narrow     89.3/89.3/89.7  /  88.2/89.3/89.6
    related-small      89.3/89.5/89.9  /  87.4/88.0/89.7
    related-wide       89.2/89.3/89.0  /  87.8/88.6/88.8

(at or above the graph join in all 15 cells, 0.0 to +9.1).  On moons seeds 3-8 the join
gains 2.1 / 1.7 / 0.6 over the graph join but stays 1.1 / 0.1 under
Local ``LinearSVC()`` at ``k = 5 / 10``.  Every related family gains over
the graph join (0.4-8.3 points) and HAR 0.2-0.5; related-small, -wide
and HAR stay under pooled Global, as the graph join did (``python
benchmarks/new_nodes.py --families persolin --datasets har,landmine
--seeds 0,1,2 --ks 5,10,20``).
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes  # noqa: E402

from skfed.datasets import make_rotated_moons  # noqa: E402

MULTS = (1, 2, 4)


def block(X, s, c, alpha, mu, u):
    """``argmin c [mean log(1 + exp(-s (Xw + b))) + alpha / 2 |w|^2] + mu / 2 |theta - u|^2``."""
    m = len(s)

    def f(t):
        w, b = t[:-1], t[-1]
        z = s * (X @ w + b)
        g = -s * 0.5 * (1 - np.tanh(z / 2))
        val = c * (np.logaddexp(0, -z).mean() + alpha / 2 * w @ w) + mu / 2 * np.sum((t - u) ** 2)
        grad = np.concatenate([c * (X.T @ g / m + alpha * w), [c * g.mean()]]) + mu * (t - u)
        return val, grad

    return minimize(f, u.copy(), jac=True, method="L-BFGS-B",
                    options={"maxiter": 1000, "gtol": 1e-9}).x


def _acc(t, X, pos):
    return 100.0 * np.mean((X @ t[:-1] + t[-1] > 0) == pos)


def _local(make, Xn, sn, Xt, pos):
    if len(np.unique(sn)) < 2:
        return 100.0 * np.mean(pos == (sn[0] > 0))
    return 100.0 * np.mean((make().fit(Xn, sn).predict(Xt) > 0) == pos)


def one_split(dataset, seed, ks):
    data = new_nodes.load(dataset, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    clusters = None
    if dataset == "moons":
        clusters = make_rotated_moons(n_nodes=100, n_test_per_node=60, random_state=seed)[7]
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, extra)
    base = new_nodes.make_estimator("persolin", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    K = len(base.nodes_)
    th = np.hstack([base.coef_.reshape(K, -1), base.intercept_.reshape(K, 1)]).astype(np.float64)
    Wf = base.collaboration_graph_.toarray()
    hop = (Wf @ th + th) / (Wf.sum(1)[:, None] + 1)
    maxm = np.bincount(np.searchsorted(base.nodes_, groups[fit_rows])).max()
    rule = getattr(base, "newcomer_rule_", None)
    out = {}
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        joined = copy.deepcopy(base)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        coef = np.hstack([joined.coef_.reshape(len(joined.nodes_), -1),
                          joined.intercept_.reshape(-1, 1)])
        W = joined.collaboration_graph_[K:, :K].toarray()
        res = {}

        def add(name, v):
            res.setdefault(name, []).append(v)

        for i, node in enumerate(joined.nodes_[K:]):
            tr, te = train[groups[train] == node], test[groups[test] == node]
            Xn = X[tr].astype(np.float64)
            sn = np.where(y[tr] == joined.classes_[1], 1.0, -1.0)
            Xt, pos = X[te], y[te] == joined.classes_[1]
            c = min(1.0, len(tr) / maxm)
            add("join", _acc(coef[K + i], Xt, pos))
            add("svc", _local(LinearSVC, Xn, sn, Xt, pos))
            add("lr", _local(LogisticRegression, Xn, sn, Xt, pos))
            v = W[i]
            uJ = v @ th / v.sum() if v.sum() > 0 else th.mean(0)
            loss = np.logaddexp(0, -sn[:, None] * (Xn @ th[:, :-1].T + th[:, -1])).mean(0)
            lossH = np.logaddexp(0, -sn[:, None] * (Xn @ hop[:, :-1].T + hop[:, -1])).mean(0)
            a = -10.0 * k * loss / 3.0
            a = np.exp(a - a.max())
            priors = {"J": uJ, "P10": th[np.argsort(loss)[:10]].mean(0),
                      "HP5": hop[np.argsort(lossH)[:5]].mean(0), "S3": a @ th / a.sum()}
            for name, u in priors.items():
                for mult in MULTS:
                    add(f"b{name} x{mult}", _acc(block(Xn, sn, c * mult, base.alpha, base.mu, u), Xt, pos))
            if clusters is not None:
                same = clusters[base.nodes_] == clusters[node]
                add("bC x1", _acc(block(Xn, sn, c, base.alpha, base.mu, th[same].mean(0)), Xt, pos))
        out[k] = {name: float(np.mean(v)) for name, v in res.items()}
    return out, rule


def cpu(dataset, seeds, ks):
    """The join's CPU over a refit's (least of 7 joins / 3 refits, mean of seeds)."""
    import time

    for k in ks:
        times = []
        for seed in seeds:
            data = new_nodes.load(dataset, seed)
            X, y, groups, task = data[:4]
            fit_rows, _, order = new_nodes.split(X, y, groups, seed,
                                                 data[4] if len(data) > 4 else None)
            base = new_nodes.make_estimator("persolin", task, seed).fit(
                X[fit_rows], y[fit_rows], groups=groups[fit_rows])
            train, _ = new_nodes.new_node_rows(order, k)
            joins, refits = [], []
            for _ in range(7):
                joined = copy.deepcopy(base)
                start = time.process_time()
                joined.add_nodes(X[train], y[train], groups=groups[train])
                joins.append(time.process_time() - start)
            rows = np.r_[fit_rows, train]
            for _ in range(3):
                start = time.process_time()
                new_nodes.make_estimator("persolin", task, seed).fit(
                    X[rows], y[rows], groups=groups[rows])
                refits.append(time.process_time() - start)
            times.append((min(joins), min(refits)))
        t = np.mean(times, axis=0)
        print(f"{dataset} k={k} rule {base.newcomer_rule_}: join {1e3 * t[0]:.2f} ms, "
              f"refit {1e3 * t[1]:.1f} ms, ratio {t[0] / t[1]:.3f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ks = [int(k) for k in args.ks.split(",")]
    if args.cpu:
        for dataset in args.datasets.split(","):
            cpu(dataset, [int(s) for s in args.seeds.split(",")], ks)
        return
    for dataset in args.datasets.split(","):
        runs = [one_split(dataset, int(s), ks) for s in args.seeds.split(",")]
        print(f"{dataset} seeds {args.seeds} rule {[g for _, g in runs]}")
        names = list(runs[0][0][ks[0]])
        print("name       " + "  ".join(f"k={k:<5d}" for k in ks))
        for name in names:
            print(f"{name:10s} " + "  ".join(
                f"{np.mean([r[k][name] for r, _ in runs]):7.2f}" for k in ks))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
