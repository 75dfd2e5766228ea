"""Would a linear network function kept beside the nonlinear one close the online HAR joins?

Issue 32's online HAR rows sit under pooled logistic regression (join 97.5
/ 97.2 / 97.3 at ``k = 5 / 10 / 20`` against 97.9) at the default kernel,
and meet the goal with ``kernel="linear"`` (98.02 / 98.02 / 98.01,
online18).  ``kernel="auto"`` picks the laplacian kernel there, and rightly
for the fitted nodes: this script's first probe (one fit per kernel on the
fitted nodes' rows but every 4th, scored on the 4th) gives HAR seed 0's
nodes a held-out error of 0.34 % with their own laplacian functions against
9.1 % with their own linear ones (the network functions: 2.41 % and
2.23 %), so switching the kernel (or a one-standard-error preference for
the simpler kernel in the selection: the linear candidate's alone loss is
0.140 over the laplacian's at a standard error of 0.014) would cost the
fitted nodes far more than it gives the newcomers.  The design this
script measures instead (idea (a) of the session's brief): the fit also
keeps an exact linear network function, ``w' x`` solved in coordinates on
every fitted node's loss (``skfed/online/_coordinates.py``, the solve of
``skfed/online/_network_function.py`` step 4 from zero, at most
``SOLVE_ITERATIONS`` L-BFGS evaluations, each one tree round of ``d n_out
+ 2`` float64 up and ``d n_out`` down), and newcomers take it instead of
the nonlinear network function when the fitted nodes' held-out evidence
says so.  The evidence: the default estimator fitted again on the fitted
nodes' rows but every 4th (the held-out rows of ``kernel="auto"``), the
linear network function solved on the same rows, and every node's
weighted held-out error and hinge loss with each network function; a
gate takes the linear one when its mean error (``rule``) or its mean loss
(``rule_loss``) is lower by more than ``GATE`` standard errors of the
per-node paired differences (the gate convention of ``network_share``,
``skfed/online/_share.py``).  Nothing
here changes the estimator: a newcomer that takes the linear function is
scored as that function (with ``kernel="linear"`` the joins equal the
network function on every HAR row, online18), every other newcomer as the
default join.

Also measured: the nonlinear network function re-solved on more points
(the union of the fitted nodes' dictionaries, 300 / 1,000 / all of its
points drawn at random), whether the KOMP cap of 100 points is what it
lacks (``--more-points``).

Run (``OPENBLAS_NUM_THREADS=1``)::

    python benchmarks/online_join_linear_network.py --datasets har --seeds 0,1,2
    python benchmarks/online_join_linear_network.py \\
        --datasets landmine,moons,related-alike,related-clustered,related-small,related-wide,related-narrow \\
        --seeds 0,1,2

    python benchmarks/online_join_linear_network.py --datasets landmine --seeds 0,1,2 --affine
    python benchmarks/online_join_linear_network.py \\
        --datasets shared-circles,shared-moons,shared-circles-wide,shared-circles-small \\
        --seeds 0,1,2 [--affine] [--evidence candidate]
    python benchmarks/online_join_linear_network.py --datasets har --seeds 0,1,2 \\
        --evidence candidate

Measured (2026-11-29, onlinejoin20 at main 8ba3212, load 9-20).  HAR
(sitting), accuracy on the newcomers' test rows, mean of seeds 0-2 (the
default joins reproduce the rows of ``new_nodes.py``)::

    k    join (default)  laplacian net  linear net  best Global  Local
    5        97.50           97.33         98.07        97.89     78.34
    10       97.24           97.29         98.07        97.98     83.21
    20       97.29           97.29         98.04        97.89     88.49

Per seed at ``k = 5``: linear net 99.56 / 95.97 / 98.70 against Global
99.41 / 95.63 / 98.63 and the join 99.04 / 94.40 / 99.06.  The fitted
nodes' evidence (linear minus laplacian network function on the held-out
4th rows, per-node paired t): error rate t = -0.22 / -1.69 / -0.54 (never
past ``GATE``: too few errors to tell), hinge loss t = -8.8 / -6.2 / -7.5.
So a gate on the held-out **loss** takes the linear function on every HAR
seed and scores 98.07 / 98.07 / 98.04 (the goal at every ``k``); a gate on
the error rate (the coupling selection's measure) never does.  Held-out
families where ``kernel="auto"`` picks a nonlinear kernel: Landmine (rbf;
the linear function through the origin scores 53-63, loss t = +54 / +74 /
+54; with an intercept, ``--affine``, 92.9-94.2 and t = +1.8 / +2.1 /
+1.8), shared circles (rbf; linear 46-53 against the network function's
93.2-95.6, loss t = +35 to +39, affine the same), with 40 noise features
(laplacian; linear 48-50 against 76-81, t = +11 to +14) and 150 nodes of
8 rows (rbf; linear 48-50 against 94, t = +28 to +34): the loss gate
keeps the nonlinear function on all of them.  Moons, the five ``related-*``
families and shared moons: ``"auto"`` picks the linear or affine kernel,
so the design does not apply (their network function is linear already).
Noticed there: on shared moons (one curved rule, 60 nodes of 20 rows)
``"auto"`` picks the linear or affine kernel (chosen by alone fits on 15
rows a node; why was not measured) and the joins score 86.9 / 86.9 / 87.4
against the best Global's 93.3 / 93.6 / 94.3; and where the network function
is the right start the joins sit under it at ``k = 5`` (related-small
seed 0: 87.6 against 91.1; ``online_join_start_margin.py``).

The same with the evidence the design would compute (``--evidence
candidate``: the coupling selection's chosen candidate, which the fit
already runs on the rows but every 4th, checked equal to the fit's
held-out errors, with its network function built and solved; the linear
function solved on the same rows): HAR loss t = -8.1 / -6.1 / -6.6 (error
t = +0.08 / -0.09 / +0.08), so the loss gate takes the linear function on
every seed; Landmine +68 / +73 / +53 (``--affine`` +1.6 / +2.1 / +1.3),
shared circles +37 / +38 / +34, with 40 noise features +1.1 / +15.0 /
+15.3, 150 nodes of 8 rows +32 / +27 / +34: the nonlinear function kept on
every held-out seed.

Cost: the linear solve took 57-63 evaluations, 8.2-9.1 MB of payload on a
17-node tree (16 edges x 2 x 561 float64 each), 0.12-0.13 of the fit's 69-73
MB; a newcomer would receive 561 float64 instead of the 100-point
laplacian network function (100 x 562 values), so the joins' bytes fall.
The evidence needs the nonlinear network function of a fit without the
held-out rows: the coupling selection's chosen candidate (its network
function is built today for a regressor's ``network_share`` only; for a
classifier that round and its solve would be new bytes, plus the linear
solve on the same rows and one tree sum of the per-node losses).

More points do not do it: the laplacian network function re-solved on 300
/ 1,000 / all 1,700 of the fitted nodes' dictionary points (``--more-points``,
``k = 5``) scores 97.80 / 97.94 / 97.87 (Global 97.89), at 3-17 times the
network function's bytes.

Not built (onlinejoin20 ran out of time): a newcomer whose function is
linear while the fitted nodes' are laplacian needs a per-node kernel (or a
linear term beside the node's dictionary that its later ``partial_fit``
steps read too), which the solver does not have.
"""

import argparse
import copy
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402

from skfed.online import DecentralizedKernelSGDClassifier  # noqa: E402
from skfed.online._coordinates import coordinate_points  # noqa: E402
from skfed.online._holdout import loss_values, node_mean_losses  # noqa: E402
from skfed.online._network_function import NodeSums, solve_weights  # noqa: E402
from skfed.online._selection import holdout_mask  # noqa: E402

GATE = 2.0  # standard errors of the per-node paired differences
AFFINE = False  # --affine
EVIDENCE = "refit"  # --evidence


def features(X):
    return with_intercept(X) if AFFINE else np.asarray(X, dtype=np.float64)


def linear_kernel(_gamma):
    return lambda A, B: np.asarray(A, dtype=np.float64) @ np.asarray(B, dtype=np.float64).T


def with_intercept(X):
    """``[X, 1]``: the linear function of these features is ``w' x + b``
    (the intercept penalized as a weight: the affine variant, ``--affine``)."""
    return np.hstack([np.asarray(X, dtype=np.float64), np.ones((len(X), 1))])


def linear_network(est, X, y_encoded, codes, sample_weight=None):
    """The exact linear network function solved on every node's loss over
    these rows, from zero; returns ``(w, evaluations)``, ``w`` (d, n_out)."""
    X = with_intercept(X) if AFFINE else np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    sums = NodeSums(linear_kernel, est._loss_name(), X, y_encoded, codes, sample_weight,
                    est._node_function, est._loss_threshold())
    D = coordinate_points("linear", d)
    nodes = np.unique(codes)
    A, rounds = solve_weights(D, np.zeros((d, est._n_outputs)), float(est.alpha),
                              lambda A: sums(D, 1.0, A, nodes))
    return A, rounds


def chosen_candidate(est, X, y_encoded, codes, held):
    """The coupling candidate ``consensus_penalty="auto"`` chose, run again
    as ``_select_coupling`` ran it (on the rows but every 4th, its public
    seeds), with the network function a fit ends with (solved)."""
    labels = [label for label, *_ in est._coupling_candidates(len(est.nodes_))]
    _, c, eps, topology, params = est._coupling_candidates(len(est.nodes_))[
        labels.index(est.consensus_selection_["choice"])]
    train = ~held
    Xt = np.ascontiguousarray(X[train], dtype=est._dtype)
    cand, queues = est._coupled_candidate(c, eps, topology, params, Xt, codes[train],
                                          est.max_epochs, est.shuffle)
    weights = np.ones(int(train.sum()))
    cand._run(Xt, y_encoded[train], weights, queues, est.max_epochs)
    # (the same candidate as in the fit: its held-out errors are the fit's)
    errors = est._held_out_errors(cand, np.ascontiguousarray(X[held], dtype=est._dtype),
                                  y_encoded[held], codes[held], np.ones(int(held.sum())))
    choice = labels.index(est.consensus_selection_["choice"])
    assert np.allclose(errors, est.consensus_selection_["node_validation_error"][choice],
                       equal_nan=True)
    cand._build_network_function(Xt, y_encoded[train], codes[train], weights, solve=True)
    return cand


def nonlinear_network_values(est, X):
    return est._network_values(X)


def node_errors(F, y_encoded, codes, n_nodes, name):
    """Every node's held-out error rate and mean loss (NaN: no row)."""
    wrong = (((F[:, 0] > 0) != (y_encoded > 0)) if F.shape[1] == 1
             else (np.argmax(F, axis=1) != y_encoded.astype(np.intp))).astype(np.float64)
    loss = loss_values(name, F, y_encoded)
    return (node_mean_losses(wrong, codes, n_nodes), node_mean_losses(loss, codes, n_nodes))


def paired_t(a, b):
    """Mean of ``a - b`` over the nodes reporting both and its t statistic."""
    ok = ~(np.isnan(a) | np.isnan(b))
    d = a[ok] - b[ok]
    if len(d) < 2:
        return float(d.mean()) if len(d) else 0.0, 0.0
    se = d.std(ddof=1) / np.sqrt(len(d))
    return float(d.mean()), (float(d.mean() / se) if se > 0 else 0.0)


def predict_values(values, classes):
    if values.shape[1] == 1:
        return np.where(values[:, 0] > 0, classes[1], classes[0])
    return classes[np.argmax(values, axis=1)]


# Held-out families where one curved rule is shared (the nonlinear network
# function is the right one for a newcomer): every node draws 20 training
# and 60 test rows of the same sklearn generator (noise 0.15), plus 3
# uninformative standard normal features; "-wide": 40 of them; "-small":
# 150 nodes of 8 training rows.
CURVED = {
    "shared-circles": {"kind": "circles"},
    "shared-moons": {"kind": "moons"},
    "shared-circles-wide": {"kind": "circles", "n_noise": 40},
    "shared-circles-small": {"kind": "circles", "n_nodes": 150, "n_train": 8},
}


def load_curved(name, seed):
    from sklearn.datasets import make_circles, make_moons

    params = {"n_nodes": 60, "n_train": 20, "n_test": 60, "n_noise": 3, **CURVED[name]}
    n_nodes, n_train = params["n_nodes"], params["n_train"]
    rng = np.random.RandomState(seed)
    n = n_train + params["n_test"]
    make = make_circles if params["kind"] == "circles" else make_moons
    extra = {"factor": 0.5} if params["kind"] == "circles" else {}
    X, y = make(n_samples=n_nodes * n, noise=0.15, random_state=rng, **extra)
    X = np.hstack([X, rng.normal(size=(len(X), params["n_noise"]))])
    g = np.repeat(np.arange(n_nodes), n)
    train_rows = np.flatnonzero(np.tile(np.arange(n) < n_train, n_nodes))
    return nn._standardize(X), y, g, "classification", {"train_rows": train_rows}


def run(name, seed, ks, more_points):
    data = load_curved(name, seed) if name in CURVED else nn.load(name, seed)
    X, y, groups, task = data[:4]
    if task != "classification":
        raise SystemExit(f"{name}: the design is measured on classifiers only")
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    Xf, yf, gf = X[fit_rows], y[fit_rows], groups[fit_rows]
    t0 = time.process_time()
    est = DecentralizedKernelSGDClassifier(random_state=seed).fit(Xf, yf, groups=gf)
    codes = np.searchsorted(est.nodes_, gf)
    n_nodes = len(est.nodes_)
    ye = est._encode_targets(yf)
    w_lin, rounds = linear_network(est, np.asarray(Xf, dtype=np.float64), ye, codes)
    # Evidence: everything again on the rows but every 4th (EVIDENCE
    # "refit"), or the coupling selection's chosen candidate, fitted on
    # those rows in the fit, with its network function ("candidate").
    held = holdout_mask(codes, n_nodes)
    if EVIDENCE == "candidate":
        half = chosen_candidate(est, Xf, ye, codes, held)
    else:
        half = DecentralizedKernelSGDClassifier(random_state=seed).fit(
            Xf[~held], yf[~held], groups=gf[~held])
    w_half, _ = linear_network(est, np.asarray(Xf[~held], dtype=np.float64), ye[~held],
                               codes[~held])
    Xh = np.asarray(Xf[held], dtype=np.float64)
    err_nl, loss_nl = node_errors(nonlinear_network_values(half, Xh), ye[held], codes[held],
                                  n_nodes, est._loss_name())
    err_li, loss_li = node_errors(features(Xh) @ w_half, ye[held], codes[held], n_nodes,
                                  est._loss_name())
    diff_err, t_err = paired_t(err_li, err_nl)
    diff_loss, t_loss = paired_t(loss_li, loss_nl)
    # (a linear or affine fit's network function is linear already: no choice)
    nonlinear = est.kernel_ not in ("linear", "affine")
    takes_linear = nonlinear and t_err < -GATE
    takes_linear_loss = nonlinear and t_loss < -GATE
    d, n_out = X.shape[1], est._n_outputs
    n_edges = n_nodes - 1  # (one spanning tree: the graphs here are connected)
    solve_bytes = rounds * n_edges * 8 * (2 * (d + AFFINE) * n_out + 2)
    out = dict(dataset=name, seed=seed, affine=AFFINE, evidence=EVIDENCE, kernel=est.kernel_, n_fitted=n_nodes,
               fit_bytes=int(est.n_bytes_sent_), linear_solve_rounds=int(rounds),
               linear_solve_bytes_payload=int(solve_bytes),
               held_err_fitted_net=float(np.nanmean(err_nl)),
               held_err_linear_net=float(np.nanmean(err_li)),
               diff_err=diff_err, t_err=t_err, diff_loss=diff_loss, t_loss=t_loss,
               takes_linear=bool(takes_linear), takes_linear_loss=bool(takes_linear_loss),
               rows=[])
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(est)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        join = nn.score(task, y[test], joined.predict(X[test], groups=groups[test]))
        net_nl = nn.score(task, y[test], predict_values(
            nonlinear_network_values(est, np.asarray(X[test], dtype=np.float64)), est.classes_))
        net_li = nn.score(task, y[test], predict_values(
            features(X[test]) @ w_lin, est.classes_))
        pooled, local = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
        row = dict(k=k, join=join, fitted_net=net_nl, linear_net=net_li,
                   rule=net_li if takes_linear else join,
                   rule_loss=net_li if takes_linear_loss else join,
                   global_pooled=max(pooled.values()), local=max(local.values()))
        if more_points and k == ks[0]:
            row["more_points"] = more_points_scores(est, Xf, ye, codes, X[test], y[test], seed)
        out["rows"].append(row)
    out["cpu"] = time.process_time() - t0
    return out


def more_points_scores(est, Xf, ye, codes, Xt, yt, seed):
    """The nonlinear network function re-solved on ``m`` points of the union
    of the fitted nodes' dictionaries (from zero, 1,000 evaluations at most)."""
    gamma = float(est.network_gamma_[0])
    kernel = est._join_kernel(gamma)
    sums = NodeSums(est._join_kernel, est._loss_name(), np.asarray(Xf, dtype=np.float64), ye,
                    codes, None, est._node_function, est._loss_threshold())
    nodes = np.arange(len(est.nodes_))
    union = np.concatenate(est.dictionaries_)
    rng = np.random.RandomState(seed)
    scores = {}
    for m in (300, 1000, len(union)):
        D = union if m >= len(union) else union[rng.choice(len(union), m, replace=False)]
        A, _ = solve_weights(kernel(D, D), np.zeros((len(D), est._n_outputs)),
                             float(est.alpha), lambda A: sums(D, gamma, A, nodes),
                             max_iter=1000)
        scores[int(len(D))] = nn.score("classification", yt,
                                       predict_values(kernel(Xt, D) @ A, est.classes_))
    return scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--more-points", action="store_true")
    parser.add_argument("--affine", action="store_true",
                        help="solve w' x + b (features with a column of ones)")
    parser.add_argument("--evidence", choices=("refit", "candidate"), default="refit",
                        help="the nonlinear network function of the evidence: a default "
                             "fit on the rows but every 4th, or the fit's chosen coupling "
                             "candidate (fitted on those rows)")
    args = parser.parse_args()
    global AFFINE, EVIDENCE
    AFFINE = args.affine
    EVIDENCE = args.evidence
    ks = [int(k) for k in args.ks.split(",")]
    for name in args.datasets.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            out = run(name, seed, ks, args.more_points)
            print(json.dumps(out, default=float), flush=True)


if __name__ == "__main__":
    main()
