"""How far from its optimum does Perso-lin's fit stop, and would a tolerance stop it alike?

Perso-lin's default ``max_iter = 100 n_nodes`` (``persolin_shared_part.py``)
leaves the fit at a relative objective gap ``(Q_fit - Q*) / Q*`` that
depends on the data, not on the node count.  This script fits each data
set's fitted nodes (``new_nodes.py``'s split, or review13's families, all
nodes) once with ``max_iter = F_max 100 n_nodes``, reads the fit's
``objective_curve_``, and solves ``Q*`` with L-BFGS
(``persolin_shared_part.Problem``, the estimator's objective, checked
against ``objective_``).  Printed per data set and seed: the gap after
``F x 100 n_nodes`` iterations (F = 1, 4, 16, 64), and for a stopping rule
"stop once one round of ``n_nodes`` iterations lowers the objective by less
than ``tol`` of its value" the factor F at which it stops and the gap there.

    python benchmarks/persolin_stop_rule.py --datasets har,moons,related-small,\\
        related-wide,review13-d500,review13-many_small --seeds 0,1,2 [--fmax 64]
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

TOLS = (1e-3, 1e-4, 1e-5, 1e-6)
BLOCK_ROUNDS = ()  # --block-exact: rounds of K exact block solves to report


def _data(name, seed):
    if name.startswith("review13-"):
        from test_review13_heldout_defaults import make_family

        Xtr, ytr, gtr, *_ = make_family(name[len("review13-"):], "clf", seed)
        return Xtr, ytr, gtr
    from new_nodes import load, split

    data = load(name, seed)
    X, y, groups = data[:3]
    fit_rows, _, _ = split(X, y, groups, seed, data[4] if len(data) > 4 else None)
    return X[fit_rows], y[fit_rows], groups[fit_rows]


def run(name, seed, fmax):
    from persolin_shared_part import Problem, _binary

    from skfed.boosting import PersonalizedLinearClassifier

    X, y, g = _data(name, seed)
    K = len(np.unique(g))
    est = PersonalizedLinearClassifier(random_state=seed, max_iter=int(fmax * 100 * K))
    est.fit(X, y, groups=g)
    nodes, classes = est.nodes_, est.classes_
    prob = Problem([X[g == n] for n in nodes], [_binary(y[g == n], classes) for n in nodes],
                   est.collaboration_graph_.toarray(), est.confidence_, est.alpha, est.mu)
    th = np.column_stack([est.coef_, est.intercept_])
    assert abs(prob.value_grad(th, np.zeros(prob.n), 0, 0.0)[0] - est.objective_) < 1e-6 * abs(
        est.objective_)
    q_opt = min(prob.solve(0, 0.0, start=th)[2].fun, est.objective_)
    curve = np.asarray(est.objective_curve_)
    gap = {f"x{f}": float((curve[min(f * 100 * K, len(curve)) - 1] - q_opt) / q_opt)
           for f in (1, 4, 16, 64) if f <= fmax}
    stops = {}
    ends = np.arange(K, len(curve) + 1, K) - 1       # after each round of K iterations
    for tol in TOLS:
        drop = (curve[ends[:-1]] - curve[ends[1:]]) / np.abs(curve[ends[1:]])
        hit = np.flatnonzero(drop < tol)
        t = ends[hit[0] + 1] if hit.size else len(curve) - 1
        stops[f"{tol:g}"] = {"factor": round((t + 1) / (100 * K), 2),
                             "gap": float((curve[t] - q_opt) / q_opt)}
    row = {"dataset": name, "seed": seed, "K": K, "gap": gap, "stop": stops}
    if BLOCK_ROUNDS:
        # Exact block minimization instead of one gradient step per wake-up:
        # uniform random wake-ups from the local models (the fit's start),
        # each solving its block with its neighbours' current models fixed.
        rng = np.random.RandomState(seed)
        theta = np.array(est._join_info["graph_models"][:, 0, :], dtype=np.float64)
        W = prob.W
        exact = {}
        for r in range(1, max(BLOCK_ROUNDS) + 1):
            for k in rng.randint(K, size=K):
                theta[k] = prob.newcomers([prob.Xs[k][:, :-1]], [prob.ys[k]], np.append(W[k], 0.0)[None, :],
                                          est.confidence_[k:k + 1], theta, np.zeros(prob.n),
                                          0, 0.0)[0]
            if r in BLOCK_ROUNDS:
                q = prob.value_grad(theta, np.zeros(prob.n), 0, 0.0)[0]
                exact[f"r{r}"] = float((q - q_opt) / q_opt)
        row["block_exact_gap"] = exact
    print(json.dumps(row), flush=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har,moons")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--fmax", type=int, default=64)
    parser.add_argument("--block-exact", default="")
    args = parser.parse_args()
    global BLOCK_ROUNDS
    BLOCK_ROUNDS = tuple(int(v) for v in args.block_exact.split(",")) if args.block_exact else ()
    rows = [run(name, int(s), args.fmax) for name in args.datasets.split(",")
            for s in args.seeds.split(",")]
    for name in args.datasets.split(","):
        sel = [r for r in rows if r["dataset"] == name]
        gaps = "  ".join(f"{f} {np.mean([r['gap'][f] for r in sel]):.2e}" for f in sel[0]["gap"])
        stops = "  ".join(
            f"tol {t}: x{np.mean([r['stop'][t]['factor'] for r in sel]):.1f} "
            f"gap {np.mean([r['stop'][t]['gap'] for r in sel]):.1e}" for t in sel[0]["stop"])
        print(f"{name}: gap {gaps} | {stops}")


if __name__ == "__main__":
    main()
