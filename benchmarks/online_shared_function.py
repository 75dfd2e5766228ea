"""A network function trained on the nodes' losses, for the online join (issue 32).

The online learner's network function (``network_dictionary_``,
``network_coef_``) is the plain mean of the fitted nodes' functions, and a
newcomer of ``benchmarks/new_nodes.py`` mostly keeps it: on HAR it bounds
the join (95.5 / 96.0 / 96.1 against pooled LogisticRegression's 97.9),
while a one-node function fitted on the pooled rows would give 97.1
(``online_har_fit.py --pooled-start``).  This script measures shared
functions the nodes could compute without moving a sample, each swapped in
as the network function of the same fit before the package's join:

``mean``
    the fit's network function (today's);
``span-<loss>-<weighting>``
    the network function's weights re-solved on its own points (which every
    node holds once the network function has reached it), minimizing the
    nodes' summed regularized loss ``sum_i c_i sum_{s in i} loss(f(x_s),
    y_s) + (alpha / 2) ||f||^2`` with ``f = sum_j a_j k(z_j, .)`` over the
    network function's points ``z_j``, by L-BFGS run at the spanning tree's
    root: every evaluation is one tree round in which each node sends its
    parent the sum of its subtree's loss and gradient (``m + 1`` float64,
    ``m`` the points) and the root sends the next ``a`` down (``m``
    float64).  ``c_i`` is 1 (``samples``: the pooled objective) or ``1 /
    n_i`` (``nodes``: every node's mean loss counts alike, the fit's
    objective); ``loss`` is ``log`` (logistic) or ``sqhinge`` (squared
    hinge; the fit's hinge is not smooth).  ``alpha`` is the fit's, scaled
    to the summed loss (``alpha`` times the total weight).

Bytes are the closed form above (``iterations`` evaluations of the tree's
``n_nodes - 1`` edges).  The join is the package's, unchanged.

    python benchmarks/online_shared_function.py --datasets har --seeds 0,1,2
"""

import argparse
import copy
import os
import sys
import time
import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402


def _loss(name, margin):
    """Loss and derivative of a +-1 margin ``y f``."""
    if name == "log":
        value = np.logaddexp(0.0, -margin)
        grad = -0.5 * (1.0 - np.tanh(0.5 * margin))  # -sigmoid(-margin)
        return value, grad
    if name == "sqhinge":
        slack = np.maximum(0.0, 1.0 - margin)
        return slack ** 2, -2.0 * slack
    raise ValueError(name)


def span_solve(K, ypm, sample_c, alpha, Kzz, a0, loss, maxiter=200):
    """Weights ``a`` minimizing ``sum c loss(y K a) + alpha/2 a' Kzz a``."""
    def objective(a):
        margin = ypm * (K @ a)
        value, grad = _loss(loss, margin)
        g = K.T @ (sample_c * grad * ypm) + alpha * (Kzz @ a)
        return float(sample_c @ value + 0.5 * alpha * a @ Kzz @ a), g

    result = minimize(objective, a0, jac=True, method="L-BFGS-B",
                      options={"maxiter": maxiter, "gtol": 1e-6})
    return result.x, int(result.nfev)


def swapped_join(base, coef, X, y, groups, order, ks):
    model = copy.deepcopy(base)
    model.network_coef_ = [coef.reshape(-1, 1)]
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(model).add_nodes(X[train], y[train], groups=groups[train])
        out.append((100.0 * np.mean(joined.predict(X[test], groups=groups[test]) == y[test]),
                    int(np.sum(joined.join_start_ == "network"))))
    unseen = 100.0 * np.mean(model.predict(X[test], groups=groups[test]) == y[test])
    return unseen, out


def run(name, seed, ks, variants):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("online", task, seed)
    cpu = time.process_time()
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    fit_cpu = time.process_time() - cpu
    if len(base.network_dictionary_) != 1 or base.network_coef_[0].shape[1] != 1:
        print(f"{name} seed {seed}: skipped ({len(base.network_dictionary_)} components)")
        return []
    D = base.network_dictionary_[0]
    gamma = float(base.network_gamma_[0])
    kernel = base._join_kernel(gamma)
    Xf, yf, gf = X[fit_rows], y[fit_rows], groups[fit_rows]
    ypm = np.where(yf == base.classes_[1], 1.0, -1.0)
    K = kernel(Xf, D)
    Kzz = kernel(D, D)
    counts = {g: c for g, c in zip(*np.unique(gf, return_counts=True))}
    n_nodes, m = len(counts), len(D)
    own_error = 100.0 * np.mean(base.predict(Xf, groups=gf) != yf)

    def fitted_error(coef):
        return 100.0 * np.mean(np.where(K @ coef > 0, 1.0, -1.0) != ypm)

    rows = []
    unseen, joins = swapped_join(base, base.network_coef_[0][:, 0], X, y, groups, order, ks)
    rows.append(("mean", unseen, joins, 0, 0.0, fitted_error(base.network_coef_[0][:, 0])))
    for variant in variants:
        loss, weighting = variant[:2]
        maxiter = int(variant[2]) if len(variant) > 2 else 200
        c = np.ones(len(yf)) if weighting == "samples" else np.array([1.0 / counts[g] for g in gf])
        alpha = float(base.alpha) * float(c.sum())
        cpu = time.process_time()
        a, nfev = span_solve(K, ypm, c, alpha, Kzz, base.network_coef_[0][:, 0].copy(), loss,
                             maxiter)
        solve_cpu = time.process_time() - cpu
        bytes_ = nfev * (n_nodes - 1) * ((m + 1) * 8 + m * 8)
        unseen, joins = swapped_join(base, a, X, y, groups, order, ks)
        rows.append(("-".join(["span"] + list(variant)), unseen, joins, bytes_, solve_cpu,
                     fitted_error(a)))
    fit_bytes = int(base.n_bytes_sent_)
    print(f"{name} seed {seed}: fit CPU {fit_cpu:.1f} s, {n_nodes} nodes, {m} points; the "
          f"nodes' own functions' error on their samples {own_error:.2f} %")
    for label, unseen, joins, bytes_, scpu, err in rows:
        cells = " / ".join(f"{s:.2f}" for s, _ in joins)
        starts = ",".join(str(n) for _, n in joins)
        print(f"{name} seed {seed} {label:22s} unseen {unseen:.2f} join {cells} "
              f"(network starts {starts}) bytes {bytes_} ({bytes_ / fit_bytes:.4f} of the fit's)"
              f" solve CPU {scpu:.1f} s; error on the fitted nodes' samples {err:.2f} %"
              f" ({err - own_error:+.2f} over their own functions')", flush=True)
    return [(label, unseen, [score for score, _ in joins], bytes_ / fit_bytes, err - own_error)
            for label, unseen, joins, bytes_, _, err in rows]


def summarize(name, per_seed, delta):
    """Means over the seeds of every candidate, and of the gated choice: a
    candidate where its error on the fitted nodes' samples exceeds their
    own functions' by at most ``delta`` points, the mean elsewhere."""
    labels = [row[0] for row in per_seed[0]]
    for label in labels + [f"{label} gated {delta:g}" for label in labels[1:]]:
        cells, fractions = [], []
        for rows in per_seed:
            by = {row[0]: row for row in rows}
            row = by[label.split(" gated")[0]]
            fractions.append(row[3])  # (a gated-out solve was paid too)
            if " gated" in label and not row[4] <= delta:
                row = by["mean"]
            cells.append(row[2])
        means = np.mean(cells, axis=0)
        print(f"{name} mean of {len(per_seed)} seeds {label:30s} join "
              + " / ".join(f"{v:.2f}" for v in means)
              + f" bytes {np.mean(fractions):.4f} of the fit's", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--gate", type=float, default=15.0)
    parser.add_argument("--variants", default="log-samples,log-nodes,sqhinge-samples")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    ks = [int(k) for k in args.ks.split(",")]
    variants = [tuple(v.split("-")) for v in args.variants.split(",")]
    with threadpool_limits(1):
        names = []
        for name in args.datasets.split(","):
            names.extend(nn.RELATED if name == "related" else [name])
        for name in names:
            per_seed = []
            for seed in (int(s) for s in args.seeds.split(",")):
                found = run(name, seed, ks, variants)
                if found:
                    per_seed.append(found)
            if per_seed:
                summarize(name, per_seed, args.gate)


if __name__ == "__main__":
    main()
