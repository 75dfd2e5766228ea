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

Results: below the script's first run (see the end of this docstring).
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ks = [int(k) for k in args.ks.split(",")]
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
