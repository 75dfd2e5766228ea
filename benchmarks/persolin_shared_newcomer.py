"""Could a Perso-lin newcomer on HAR be given a better shared model, learned
by the federation, at an acceptable cost?  (issue 32; measured, not built)

A Perso-lin newcomer with 5-20 samples is, on HAR, almost its neighbours'
mean model (its confidence ``c = k / max m`` is 0.01-0.06), and the
fitted people's models are pulled to Perso-lin's default ``alpha``
(pooled in one node: ``LogisticRegression(C=0.0165)``), so its join scores
93.6 / 93.9 / 94.6 against pooled ``LogisticRegression()``'s 97.8 / 97.9 /
97.9 (growing.rst).  This script measures the alternative the brief names:
the federation also learns one shared logistic model ``S`` (the pooled
objective at scikit-learn's ``C = 1``: mean log-loss over all fitted
samples plus ``||w||^2 / (2 M)``, ``M`` the fitted samples), solved by a
hub's L-BFGS whose every function evaluation is one round (the hub sends
the current model, ``d + 1`` floats, to every fitted node; each returns
its loss and gradient, ``d + 2`` floats), and newcomers start from it.

For every seed of ``benchmarks/new_nodes.py``'s split (fit on 80 % of the
nodes) it prints, on the newcomers' test samples (``k = 20``'s split; the
other ``k`` shift them by at most 15 rows of ~300 per person):

* ``join k=K``: the default join (Perso-lin's graph join);
* ``S@R``: the shared model after ``R`` rounds (``R`` in ``--rounds``) and
  its byte cost as a share of the Perso-lin fit's bytes (the same
  federation: ``n_fit (2 d + 3) 8 R`` bytes against ``n_bytes_sent_``);
* ``S@R+own k=K``: the newcomer's block around it, ``argmin mean
  log-loss on its k samples + (1/2) ||theta - S||^2`` (all coordinates);
* ``pooled``: pooled ``LogisticRegression()`` (Global), i.e. ``S`` solved
  exactly.

and ``gate``: every fitted node holds back a fifth of its rows (public
randomness) from ``S``'s solve, then compares on them the log-loss of
``S`` with that of its own graph row's mean of the fitted Perso-lin
models (what a newcomer of few samples gets); ``t`` over nodes of the gain
(positive: ``S`` better).

    python benchmarks/persolin_shared_newcomer.py --datasets har,moons,related \\
        --seeds 0,1,2 --rounds 10,20,40

Results: at the end of this docstring.
"""

import argparse
import copy
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import new_nodes as nn  # noqa: E402

from skfed.boosting import PersonalizedLinearClassifier  # noqa: E402


def pooled_objective(Xa, s, lam):
    def f(w):
        z = s * (Xa @ w)
        g = Xa.T @ (-s * expit(-z)) / len(s)
        g[:-1] += lam * w[:-1]
        return np.mean(np.logaddexp(0, -z)) + 0.5 * lam * w[:-1] @ w[:-1], g
    return f


def hub_lbfgs(Xa, s, lam, rounds):
    """The models after each of ``rounds`` function evaluations."""
    seen = []
    f = pooled_objective(Xa, s, lam)

    def counted(w):
        seen.append(w.copy())
        return f(w)
    minimize(counted, np.zeros(Xa.shape[1]), jac=True, method="L-BFGS-B",
             options={"maxfun": max(rounds), "maxiter": max(rounds)})
    # the hub keeps the best model evaluated so far: the last accepted iterate
    return {r: seen[min(r, len(seen)) - 1] for r in rounds}


def around(Xa, s, prior, lam=1.0):
    def f(w):
        z = s * (Xa @ w)
        d = w - prior
        return (np.mean(np.logaddexp(0, -z)) + 0.5 * lam * d @ d,
                Xa.T @ (-s * expit(-z)) / len(s) + lam * d)
    return minimize(f, prior.copy(), jac=True, method="L-BFGS-B").x


def with_one(X):
    return np.hstack([X, np.ones((len(X), 1))])


def run(name, seed, rounds, ks):
    data = nn.load(name, seed)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    est = PersonalizedLinearClassifier(random_state=seed)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    cls = est.classes_
    sgn = np.where(y == cls[1], 1.0, -1.0)
    Xf, sf = with_one(X[fit_rows]), sgn[fit_rows]
    M, d = len(fit_rows), X.shape[1]
    n_fit = len(est.nodes_)
    out = {}
    models = hub_lbfgs(Xf, sf, 1.0 / M, rounds)
    for r in rounds:
        out[f"bytes S@{r}"] = n_fit * (2 * d + 3) * 8 * r / est.n_bytes_sent_
    # gate: a fifth of each fitted node's rows held back from S
    rng = np.random.RandomState(seed)
    gf = groups[fit_rows]
    back = np.zeros(len(fit_rows), dtype=bool)
    for node in est.nodes_:
        idx = np.flatnonzero(gf == node)
        back[rng.choice(idx, size=len(idx) // 5, replace=False)] = True
    S_gate = hub_lbfgs(Xf[~back], sf[~back], 1.0 / (~back).sum(), [max(rounds)])[max(rounds)]
    W = est.collaboration_graph_.tocsr()
    coef = np.c_[np.asarray(est.coef_).reshape(n_fit, -1), np.ravel(est.intercept_)]
    gains = []
    for i, node in enumerate(est.nodes_):
        rows = np.flatnonzero((gf == node) & back)
        row = W[i].toarray()[0]
        row[i] = 0
        if len(rows) == 0 or row.sum() <= 0:
            continue
        u = row @ coef / row.sum()
        ls = np.logaddexp(0, -sf[rows] * (Xf[rows] @ S_gate)).mean()
        lu = np.logaddexp(0, -sf[rows] * (Xf[rows] @ u)).mean()
        gains.append(lu - ls)
    gains = np.asarray(gains)
    out["gate t"] = gains.mean() / (gains.std(ddof=1) / np.sqrt(len(gains)))
    pooled = LogisticRegression(max_iter=5000).fit(X[fit_rows], y[fit_rows])
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        j = copy.deepcopy(est)
        j.add_nodes(X[train], y[train], groups=groups[train])
        out[f"join k={k}"] = 100 * np.mean(j.predict(X[test], groups=groups[test]) == y[test])
        out[f"pooled k={k}"] = 100 * np.mean(pooled.predict(X[test]) == y[test])
        for r in rounds:
            S = models[r]
            hit_s = hit_o = 0
            for node, rows in order.items():
                tr, te = rows[:k], rows[k:]
                pred = lambda w: np.where(with_one(X[te]) @ w > 0, cls[1], cls[0])  # noqa: E731
                hit_s += np.sum(pred(S) == y[te])
                hit_o += np.sum(pred(around(with_one(X[tr]), sgn[tr], S)) == y[te])
            out[f"S@{r} k={k}"] = 100 * hit_s / len(test)
            out[f"S@{r}+own k={k}"] = 100 * hit_o / len(test)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default="har,moons,related")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--ks", default="5,10,20")
    p.add_argument("--rounds", default="10,20,40")
    a = p.parse_args()
    rounds = [int(r) for r in a.rounds.split(",")]
    ks = [int(k) for k in a.ks.split(",")]
    warnings.filterwarnings("ignore")
    names = []
    for d in a.datasets.split(","):
        names += list(nn.RELATED) if d == "related" else [d]
    for name in names:
        table = {}
        for seed in [int(s) for s in a.seeds.split(",")]:
            out = run(name, seed, rounds, ks)
            print(f"{name} seed {seed}: " + " ".join(f"{key} {v:.3f}" for key, v in out.items()), flush=True)
            for key, v in out.items():
                table.setdefault(key, []).append(v)
        print(f"{name} MEAN: " + " ".join(f"{key} {np.mean(v):.3f}" for key, v in table.items()), flush=True)


if __name__ == "__main__":
    with threadpool_limits(1):
        main()
