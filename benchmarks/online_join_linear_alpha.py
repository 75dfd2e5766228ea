"""The linear network function's penalty chosen on held-back nodes (online28).

``join_function="auto"`` solves ``w' x`` on the fitted nodes' summed
squared hinges plus ``(alpha_w W / 2) ||w||^2``; a newcomer of an open gate
starts from ``w' x``.  Until online28 ``alpha_w`` was the classifier's
``alpha`` (1e-4) and the solve stopped at 50 L-BFGS iterations far from its
optimum: the cap was the regularization (online27,
``online_join_linear_solve.py``), good on HAR seeds 0-2 and short on 3-5.
``skfed/online/_linear_solve.py`` now holds back 20 % of the nodes, solves
on the others at ``alpha_w = 30, 10, 3 x alpha`` (Nystrom-preconditioned,
warm starts, 10 iterations each), keeps the factor of the least held-back
loss and solves on every node at it (20 iterations).

This script scores, on HAR sitting with ``new_nodes.py``'s split (80 % of
the subjects fitted), every newcomer's test rows (``k = 5``) as ``w' x``
for: ``capped`` (the online25 solve), ``chosen`` (this module; the held
nodes drawn from the seed), the exact optimum at fixed factors (what an
oracle choosing per seed could reach) and pooled LinearSVC /
LogisticRegression on the fitted rows.  No network is simulated (the
solve's evaluations are counted: one tree round each).

Run (``OPENBLAS_NUM_THREADS=1``)::

    python benchmarks/online_join_linear_alpha.py --seeds 0,1,2,3,4,5,6,7,8

Measured (2026-11-29, online28 at main 3eb98bc)::

    RESULTS
"""

import argparse
import os
import sys

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402

from skfed.online import _linear_solve as ls  # noqa: E402
from skfed.online._coordinates import coordinate_points  # noqa: E402
from skfed.online._network_function import NodeSums, smooth_loss, solve_weights  # noqa: E402

ALPHA = 1e-4   # the classifier's default
FIXED = (1.0, 3.0, 10.0, 30.0, 100.0)


def _optimum(X, y, alpha):
    W = float(len(y))

    def objective(v):
        value, grad = smooth_loss("hinge", (X @ v)[:, None], y)
        return value.sum() + 0.5 * alpha * W * v @ v, X.T @ grad[:, 0] + alpha * W * v
    return minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                    options={"maxiter": 3000, "gtol": 1e-9}).x[:, None]


def run(seed, k=5):
    X, y, g, _ = nn.load("har", seed)[:4]
    X = np.asarray(X, dtype=np.float64)
    y = np.where(y == np.unique(y)[1], 1.0, -1.0)
    fit_rows, _, order = nn.split(X, y, g, seed)
    Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
    codes = np.searchsorted(np.unique(gf), gf)
    _, test = nn.new_node_rows(order, k)
    d = X.shape[1]
    sums = NodeSums(lambda _g: (lambda A, B: A @ B.T), "hinge", Xf, yf, codes, None)
    D = coordinate_points("linear", d)
    nodes = np.unique(codes)

    def score(w):
        return 100 * np.mean(np.where(X[test] @ w[:, 0] > 0, 1.0, -1.0) == y[test])
    out = {}
    w, evals = solve_weights(np.eye(d), np.zeros((d, 1)), ALPHA,
                             lambda A: sums(D, 1.0, A, nodes))
    out["capped"] = (score(w), evals)
    omega = ls.sketch_directions(d, ls.NYSTROM_RANK)
    w, factor, path, evals = ls.solve_chosen(
        (d, 1), ALPHA, lambda A, part: sums(D, 1.0, A, part), nodes,
        ls.held_back_nodes(nodes, seed), Xf.T @ (Xf @ omega), omega, 2.0)
    out["chosen"] = (score(w), evals, factor)
    for f in FIXED:
        out[f"opt x{f:g}"] = score(_optimum(Xf, yf, f * ALPHA))
    out["LinSVC"] = 100 * np.mean(LinearSVC().fit(Xf, yf).predict(X[test]) == y[test])
    out["LogReg"] = 100 * np.mean(LogisticRegression(max_iter=1000).fit(Xf, yf).predict(
        X[test]) == y[test])
    return out


def joins(seed, ks, solve):
    """The join rows without the refit: ``new_nodes.py``'s online estimator
    with ``join_function="auto"`` (the linear solve ``solve``: "chosen" or
    "capped"), its newcomers' accuracy per ``k`` against the pooled
    baselines (Global, the best of ``new_nodes.baseline_makers``), the
    fit's linear-solve record and bytes."""
    import copy

    from skfed.online import _linear
    _linear.LINEAR_SOLVE = solve
    nn.ONLINE_JOIN_FUNCTION = "auto"
    X, y, g, task = nn.load("har", seed)[:4]
    fit_rows, _, order = nn.split(X, y, g, seed)
    est = nn.make_estimator("online", task, seed).fit(X[fit_rows], y[fit_rows],
                                                      groups=g[fit_rows])
    gate = est.network_linear_gate_
    out = dict(seed=seed, solve=solve, t=float(gate["t"][0]), open=bool(gate["open"][0]),
               evaluations=int(gate["evaluations"][0]),
               factor=float(gate.get("alpha_factor", [1.0])[0]),
               fit_bytes=int(est.n_bytes_sent_), rows=[])
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(est)
        nn.add_nodes(joined, X[train], y[train], g[train])
        pooled, _ = nn.baselines(task, X, y, g, fit_rows, train, test, k)
        out["rows"].append(dict(k=k, join=nn.score(task, y[test], joined.predict(
            X[test], groups=g[test])), join_bytes=int(joined.join_communication_.total_bytes),
            pooled=pooled))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4,5")
    parser.add_argument("--joins", default=None,
                        help="chosen or capped: the join rows (fit, add_nodes, pooled "
                        "baselines) instead of w' x")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    if args.joins:
        import json
        for seed in (int(s) for s in args.seeds.split(",")):
            print(json.dumps(joins(seed, [int(k) for k in args.ks.split(",")], args.joins)),
                  flush=True)
        return
    print("seed  capped (evals)  chosen (evals, factor)  "
          + "  ".join(f"opt x{f:g}" for f in FIXED) + "  LinSVC  LogReg")
    for seed in (int(s) for s in args.seeds.split(",")):
        r = run(seed)
        print(f"{seed:4d}  {r['capped'][0]:.2f} ({r['capped'][1]})    "
              f"{r['chosen'][0]:.2f} ({r['chosen'][1]}, x{r['chosen'][2]:g})        "
              + "  ".join(f"{r[f'opt x{f:g}']:7.2f}" for f in FIXED)
              + f"  {r['LinSVC']:.2f}   {r['LogReg']:.2f}", flush=True)


if __name__ == "__main__":
    main()
