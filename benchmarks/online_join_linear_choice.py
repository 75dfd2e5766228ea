"""Where should the online newcomer's linear network function be solved, and who chooses it?

(Docstring completed below with the measured results.)
"""

import argparse
import copy
import json
import os
import sys
import time

import numpy as np
from sklearn.base import clone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402
import online_join_linear_network as lin  # noqa: E402

from skfed.online import DecentralizedKernelSGDClassifier  # noqa: E402
from skfed.online._coordinates import coordinate_points  # noqa: E402
from skfed.online._holdout import loss_values  # noqa: E402
from skfed.online._network_function import NodeSums, solve_weights  # noqa: E402

CAPS = (10, 20, 30, 50)  # L-BFGS iterations of the linear solve
MARGINS = (0.0, 1.0, 2.0)  # standard errors of the newcomer's own choice
WARM = False  # --warm
WARM_CAPS = (10, 20, 30)


def linear_solve(est, X, y_encoded, codes, max_iter, warm=False):
    """``w`` (d, n_out) solved in coordinates on every node's loss, from 0
    or (``warm``) from the mean of the nodes' own solves of their own loss
    (no message; one tree round, counted as one evaluation, averages them)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    sums = NodeSums(lin.linear_kernel, est._loss_name(), X, y_encoded, codes, None,
                    est._node_function, est._loss_threshold())
    D = coordinate_points("linear", d)
    nodes = np.unique(codes)
    A0 = np.zeros((d, est._n_outputs))
    extra = 0
    if warm:
        counts = np.bincount(codes, minlength=nodes.max() + 1)[nodes].astype(np.float64)
        own = [solve_weights(D, A0, float(est.alpha), lambda A, j=j: sums(D, 1.0, A, [j]))[0]
               for j in nodes]
        A0 = np.tensordot(counts / counts.sum(), np.stack(own), axes=1)
        extra = 1
    A, evals = solve_weights(D, A0, float(est.alpha), lambda A: sums(D, 1.0, A, nodes),
                             max_iter=max_iter)
    return A, evals + extra


def own_choice(loss_lin, loss_net, weights, margin):
    """The newcomer takes the linear function when its weighted loss sum on
    its samples is lower than the network function's by more than
    ``margin`` standard errors of the summed per-sample difference."""
    diff = weights * (loss_lin - loss_net)
    n = len(diff)
    se = float(np.sqrt(n / (n - 1) * np.sum((diff - diff.mean()) ** 2))) if n > 1 else 0.0
    return float(diff.sum()) < -margin * se


def run(name, seed, ks, refit):
    data = lin.load_curved(name, seed) if name in lin.CURVED else nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    Xf, yf, gf = X[fit_rows], y[fit_rows], groups[fit_rows]
    t0 = time.process_time()
    est = DecentralizedKernelSGDClassifier(random_state=seed).fit(Xf, yf, groups=gf)
    codes = np.searchsorted(est.nodes_, gf)
    ye = est._encode_targets(yf)
    d, n_out, n_nodes = X.shape[1], est._n_outputs, len(est.nodes_)
    n_edges = n_nodes - 1
    solves = {}
    for cap in CAPS:
        w, evals = linear_solve(est, Xf, ye, codes, cap)
        solves[cap] = (w, evals, evals * n_edges * 8 * (2 * d * n_out + 2))
    if WARM:
        for cap in WARM_CAPS:
            w, evals = linear_solve(est, Xf, ye, codes, cap, warm=True)
            solves[f"warm{cap}"] = (w, evals, evals * n_edges * 8 * (2 * d * n_out + 2))
    out = dict(dataset=name, seed=seed, kernel=est.kernel_, n_fitted=n_nodes, d=d,
               fit_bytes=int(est.n_bytes_sent_),
               solves={cap: dict(evaluations=int(e), payload=int(b))
                       for cap, (_, e, b) in solves.items()}, rows=[])
    loss = est._loss_name()
    # A gate the fitted nodes could run at join time without held-out rows:
    # every node's mean loss on its own (training) rows with the linear and
    # with the nonlinear network function, the paired t over the nodes.
    Xd = np.asarray(Xf, dtype=np.float64)
    per_row = (loss_values(loss, Xd @ solves[50][0], ye)
               - loss_values(loss, est._network_values(Xd), ye))
    node_diff = np.bincount(codes, per_row, n_nodes) / np.bincount(codes, minlength=n_nodes)
    out["in_sample_diff"], out["in_sample_t"] = (
        float(node_diff.mean()),
        float(node_diff.mean() / (node_diff.std(ddof=1) / np.sqrt(n_nodes))))
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(est)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        join_pred = joined.predict(X[test], groups=groups[test])
        net_train = est._network_values(np.asarray(X[train], dtype=np.float64))
        yk = est._encode_targets(y[train])
        row = dict(k=k, join=nn.score(task, y[test], join_pred),
                   join_bytes=int(joined.join_communication_.total_bytes))
        for cap, (w, _, _) in solves.items():
            pred_lin = lin.predict_values(np.asarray(X[test], dtype=np.float64) @ w, est.classes_)
            row[f"linear_{cap}"] = nn.score(task, y[test], pred_lin)
        w = solves[50][0]
        pred_lin = lin.predict_values(np.asarray(X[test], dtype=np.float64) @ w, est.classes_)
        l_lin = loss_values(loss, np.asarray(X[train], dtype=np.float64) @ w, yk)
        l_net = loss_values(loss, net_train, yk)
        # The choice replaces the nonlinear network function only, which
        # then competes with the neighbours as before: "own_net" takes the
        # linear function only for a newcomer that started from the network
        # function (a lower bound of that: the linear one may also beat
        # neighbours the nonlinear one lost to); "own" for every newcomer.
        started = dict(zip(joined.nodes_[n_nodes:].tolist(), joined.join_start_))
        for margin in MARGINS:
            for variant in ("own", "own_net"):
                pred = join_pred.copy()
                taken = 0
                for node in new:
                    own = groups[train] == node
                    if variant == "own_net" and started[node] != "network":
                        continue
                    if own_choice(l_lin[own], l_net[own], np.ones(int(own.sum())), margin):
                        taken += 1
                        pred[groups[test] == node] = pred_lin[groups[test] == node]
                row[f"{variant}_{margin:g}"] = nn.score(task, y[test], pred)
                row[f"{variant}_{margin:g}_taken"] = taken
        row["n_new"] = len(new)
        pooled, local = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
        row.update(global_pooled=max(pooled.values()), local=max(local.values()))
        if refit:
            gp = np.concatenate([gf, groups[train]])
            r = clone(est).fit(np.concatenate([Xf, X[train]]), np.concatenate([yf, y[train]]),
                               groups=gp)
            row["refit_bytes"] = int(r.n_bytes_sent_)
        out["rows"].append(row)
    out["cpu"] = time.process_time() - t0
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--refit", action="store_true", help="refit to price the bytes")
    parser.add_argument("--warm", action="store_true",
                        help="also solve from the mean of the nodes' own solves")
    args = parser.parse_args()
    global WARM
    WARM = args.warm
    ks = [int(k) for k in args.ks.split(",")]
    for name in args.datasets.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            print(json.dumps(run(name, seed, ks, args.refit), default=float), flush=True)


if __name__ == "__main__":
    main()
