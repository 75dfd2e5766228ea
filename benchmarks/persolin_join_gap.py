"""Where Perso-lin's join loses to the refit on rotated moons (issue 32).

For every seed and ``k`` of ``benchmarks/new_nodes.py --families persolin
--datasets moons`` it fits, joins and refits as that benchmark does, then
takes every newcomer apart:

* its row of the graph in the join (``_j``) and in the refit (``_r``):
  the share of its weight inside its true cluster (``in``,
  ``make_rotated_moons``' clusters), the share toward the other
  newcomers (``new``), its degree (``deg``) and its number of neighbours
  (``nbr``);
* its model: the join's and the refit's, scored on its test samples;
* models solved to convergence on its block of Perso-lin's objective,
  ``min_theta c_n F_n(theta) + (mu / 2) ||theta - u||^2`` with ``u =
  sum_r w_nr theta_r / d_n`` (the degree cancels), by L-BFGS in NumPy,
  from a row and neighbour models: ``JJ`` the join's row and models (what
  the join's steps should reach), ``RR`` the refit's, ``JR`` the join's
  row with the refit's models, ``RJ`` the refit's row with the join's
  models, ``JRf`` the join's row with the refit's models for the fitted
  neighbours only (the other newcomers' from the join), ``JRn`` the
  other way round; ``uJ`` and ``uR`` are the neighbour averages ``u``
  alone.

    python benchmarks/persolin_join_gap.py [--seeds 0,1,2] [--ks 5,10,20]
        [--refine ROUNDS,HOPS]

``--refine`` asks what updating the fitted nodes would give (a join keeps
them bit-identical; issue 32 allows it "when asked"): after the join, the
fitted nodes within ``HOPS`` of a newcomer, then the newcomers, solve
their blocks with every neighbour fixed, ``ROUNDS`` times; ``new_control``
is the same with the fitted nodes' rows cut from the newcomers (their
blocks converged alone).

Checked on 2026-11-28 (joinsg10, main at 8aeda58): the newcomer's balance
between its own samples and its neighbours is the refit's.  Its block is
``c F + (mu / 2) ||theta - u||^2``; ``c`` is 0.333 / 0.667 / 1.000 at ``k
= 5 / 10 / 20`` in the join and in the refit (the fitted nodes hold 3-15
samples; at ``k = 20`` the refit's new heaviest node rescales the fitted
nodes' ``c``, mean 0.57-0.61 -> 0.43-0.46, not the newcomer's) and ``mu``
is the estimator's in both (``tests/test_graph_join_persolin_balance.py``
pins it for a newcomer lighter and heavier than every fitted node).  At
``k = 20`` the refit's newcomer is within 0.1-1.4 of its refit neighbours'
average (60.3 / 61.5 / 67.1 on seeds 0 / 1 / 2) while the same row over
the fitted neighbours' models from the fit scores 52.0 / 55.6 / 54.2: the
points are the neighbours', as ``JRf`` below says.

Re-measured on 2026-11-28 at 73692d1, after Perso-lin's local models (the
fit's and the newcomers') became each node's optimum of ``F_k`` instead
of 100 plain gradient steps (same command; means over seeds 0-2, ``k = 5
/ 10 / 20``):

=====  ====  =====  ====  ====  ====  ====  ====  ====  =============  =============
k      join  refit  JJ    RR    JR    RJ    JRf   JRn   in_j / in_r    nbr_j / nbr_r
=====  ====  =====  ====  ====  ====  ====  ====  ====  =============  =============
5      54.3  55.7   54.3  55.7  55.3  54.1  55.3  54.3  0.39 / 0.33    5.0 / 5.7
10     58.1  57.8   58.1  57.8  58.2  57.0  58.4  58.0  0.51 / 0.51    3.9 / 3.4
20     62.0  63.7   61.8  63.7  64.7  61.4  64.2  62.3  0.71 / 0.71    2.7 / 2.5
=====  ====  =====  ====  ====  ====  ====  ====  ====  =============  =============

The row no longer costs anything (``in_j`` equals ``in_r``; ``RJ`` is
at or under ``JJ``); the fitted neighbours' refit models (``JRf - JJ``)
still gain 1.0 / 0.3 / 2.4.  The ``--refine`` numbers and the analysis
below are the earlier measurement's (not re-run).

Measured on 2026-11-28 (main at 6c25e28, before that change; means over
seeds 0-2, ``k = 5 / 10 / 20``):

=====  ====  =====  ====  ====  ====  ====  ====  ====  =============  =============
k      join  refit  JJ    RR    JR    RJ    JRf   JRn   in_j / in_r    nbr_j / nbr_r
=====  ====  =====  ====  ====  ====  ====  ====  ====  =============  =============
5      56.0  57.2   56.0  57.2  56.9  55.9  56.9  56.0  0.42 / 0.41    5.4 / 5.1
10     57.1  59.9   57.2  59.9  59.8  59.3  59.6  57.4  0.54 / 0.62    4.1 / 3.2
20     59.7  66.0   59.3  65.9  64.2  62.5  63.8  60.6  0.62 / 0.77    3.1 / 2.1
=====  ====  =====  ====  ====  ====  ====  ====  ====  =============  =============

* The join's steps are not short: its models score within 0.4 of the
  converged block (``JJ``), and the refit's within 0.1 of its own
  (``RR``).
* The confidence is not it: a newcomer's ``c_n`` is the same in both
  (``m_n / 15`` at ``k = 5, 10``, the fitted nodes' largest mass being
  15; 1 at ``k = 20``, where the refit's largest mass is the newcomers'
  20).
* The row costs up to 3.2 points (``RJ - JJ`` at ``k = 20``): the join
  puts 62 % of a newcomer's weight inside its cluster, the refit 77 %.
* The fitted nodes' models cost more: the join's own row with the
  fitted neighbours' refit models (``JRf``) gains 0.9 / 2.4 / 4.5, the
  other newcomers' refit models (``JRn``) 0.0 / 0.1 / 1.3.  In the refit
  the newcomers' samples train their cluster-mates; a join that leaves
  the fitted nodes bit-identical cannot.

What updating the fitted nodes would give (``--refine``, means over
seeds 0-2, ``k = 5 / 10 / 20``): with 3 rounds over the fitted nodes one
hop from a newcomer (40 / 28 / 15 of the 80), the newcomers score 57.2 /
59.0 / 62.8 (the join 56.0 / 57.1 / 59.7, the refit 57.2 / 59.9 / 66.0,
Local 55.9 / 59.1 / 62.6) and the fitted nodes 55.7 / 55.8 / 55.7 on
their own test samples (55.1 unchanged); 1 round 56.9 / 58.7 / 61.5; 3
rounds over two hops 57.4 / 59.2 / 62.9.  The control scores 56.0 /
57.2 / 59.2 (``JJ`` above) and leaves the fitted nodes at 55.1: all of
the gain is the newcomers' samples reaching their fitted neighbours.
Elsewhere (``--refine 3,1 --dataset D``; the fitted nodes' own accuracy
only where they hold test rows): Landmine 93.9 / 93.7 / 93.8 -> 93.9 /
93.7 / 93.8 (+0.02 at most); the held-out family of 8-sample nodes
(``related-small``) newcomers 89.1 / 89.1 / 90.3 -> 89.6 / 89.8 / 90.7,
fitted 88.4 -> 89.2 / 89.0 / 88.8; the clustered one (``related-
clustered``) newcomers 78.1 / 83.6 / 88.7 -> 77.4 / 83.3 / 88.9 and
fitted 89.6 -> 89.0 / 89.4 / 89.7: not a gain everywhere.  On HAR the
newcomers go from 85.5 / 85.3 / 86.5 to 87.4 / 87.8 / 88.6, but the
control goes further (87.5 / 87.9 / 89.1): there the fit's models are
not at their blocks' minimizers (100 wake-ups a node on 561 features
and hundreds of samples), and converging the newcomers' fitted
neighbours alone lifts the join by 2-2.6 points (an issue of the fit's
schedule, not of the join).

Tried and not kept (branch joinsg5, commits c4c5fbd and 445250a): the
newcomers of one call solving their rows of eq. 5 together, by block
coordinate descent with the fitted weights fixed (a candidate's degree
then counts the other newcomers' weights; the weight between two
newcomers one variable of both rows), from the rows each solved alone,
3 sweeps (a sweep: a degree request and answer per candidate, the
weights sent back; bytes of a rotated-moons join 0.027 -> 0.041 of the
refit's, CPU 5 -> 8.7 ms).  With every newcomer taking part, rotated
moons went to 56.5 / 57.9 / 61.6 (``in_j`` 0.76 at ``k = 20``, the
refit's), but HAR lost 0.3 at ``k = 10`` and Landmine 0.1 at ``k = 5``;
with only the newcomers that sample each other taking part (HAR and
Landmine then unchanged), rotated moons 56.0 / 57.9 / 61.6, but the
held-out ``--datasets related`` family of 8-sample nodes lost 0.9 / 1.5
at ``k = 10 / 20`` (the other four families have no such newcomers),
Dada's rotated moons 1.2 / 0.3 at ``k = 10 / 20``, Dada with its graph
learned once 0.4 / 0.4, and Perso-lin re-learning its graph
(``graph_update_every="n_nodes"``) gained 0.6 at ``k = 10`` but lost 2.2
at ``k = 20`` (68.4 -> 66.3).  Coupling the rows through the fitted nodes'
degrees only (the weight between two newcomers the mean of their rows,
as now) scored 56.0 / 57.9 / 63.7 on rotated moons but lost the related
family 1.6 / 0.5, Dada 0.8 at ``k = 10`` and Perso-lin re-learning 1.1 /
2.6.  The objective's joint minimizer over the newcomers' weights
matches the refit's share inside the clusters, yet what it gains on
rotated moons it loses elsewhere: the newcomers of Dada and of the
8-sample family gain from leaning on each other more than the joint
solve lets them.
"""

import argparse
import copy

import numpy as np
from scipy.optimize import minimize
from sklearn.base import clone
from threadpoolctl import threadpool_limits

import new_nodes as nn
from skfed.boosting import PersonalizedLinearClassifier
from skfed.datasets import make_rotated_moons


def clusters_of(seed):
    out = make_rotated_moons(n_nodes=100, n_test_per_node=60, random_state=seed)
    return out[7]


def block_solve(Z, y, c, alpha, mu, u, n_pen):
    """argmin c (mean logistic loss + alpha/2 ||w||^2) + mu/2 ||theta - u||^2."""
    m = len(y)

    def f(theta):
        marg = y * (Z @ theta)
        loss = np.logaddexp(0.0, -marg).mean() + 0.5 * alpha * theta[:n_pen] @ theta[:n_pen]
        g_loss = -(Z.T @ (y * 0.5 * (1.0 - np.tanh(0.5 * marg)))) / m
        g_loss[:n_pen] += alpha * theta[:n_pen]
        d = theta - u
        return c * loss + 0.5 * mu * d @ d, c * g_loss + mu * d

    res = minimize(f, u.copy(), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-10, "maxiter": 5000})
    return res.x


def rows_by_label(est):
    W = est.collaboration_graph_.tocsr()
    labels = est.nodes_
    out = {}
    for i, lab in enumerate(labels):
        lo, hi = W.indptr[i], W.indptr[i + 1]
        out[lab] = dict(zip(labels[W.indices[lo:hi]].tolist(), W.data[lo:hi].tolist()))
    return out


def models_by_label(est):
    full = est._full_coef()[:, 0, :].astype(np.float64)
    return {lab: full[i] for i, lab in enumerate(est.nodes_.tolist())}


def mean_model(row, models):
    labs = list(row)
    w = np.array([row[lab] for lab in labs])
    return (w[:, None] * np.array([models[lab] for lab in labs])).sum(0) / w.sum()


def run(seed, ks, verbose):
    X, y, groups, _, extra = nn.load("moons", seed)
    clusters = clusters_of(seed)
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = PersonalizedLinearClassifier(random_state=seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    mu, alpha = float(base.mu), float(base.alpha)
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(base).add_nodes(X[train], y[train], groups=groups[train])
        Xp = np.concatenate([X[fit_rows], X[train]])
        yp = np.concatenate([y[fit_rows], y[train]])
        gp = np.concatenate([groups[fit_rows], groups[train]])
        refit = clone(base).fit(Xp, yp, groups=gp)
        rj, rr = rows_by_label(joined), rows_by_label(refit)
        mj, mr = models_by_label(joined), models_by_label(refit)
        conf_j = dict(zip(joined.nodes_.tolist(), joined.confidence_))
        conf_r = dict(zip(refit.nodes_.tolist(), refit.confidence_))
        newset = set(new.tolist())
        stats = {key: [] for key in ("in_j", "in_r", "new_j", "new_r", "deg_j", "deg_r",
                                     "nbr_j", "nbr_r")}
        correct = {key: 0 for key in ("join", "refit", "JJ", "RR", "JR", "RJ", "uJ", "uR",
                                      "JRf", "JRn")}
        n_test = 0
        for lab in new.tolist():
            cl = clusters[lab]
            tr = train[groups[train] == lab]
            te = test[groups[test] == lab]
            Zt = np.column_stack([X[te], np.ones(len(te))])
            Ztr = np.column_stack([X[tr], np.ones(len(tr))])
            ytr = np.where(y[tr] == joined.classes_[1], 1.0, -1.0)
            yte = np.where(y[te] == joined.classes_[1], 1.0, -1.0)
            for tag, row in (("j", rj[lab]), ("r", rr[lab])):
                tot = sum(row.values())
                stats["in_" + tag].append(sum(w for l2, w in row.items() if clusters[l2] == cl)
                                          / tot if tot else np.nan)
                stats["new_" + tag].append(sum(w for l2, w in row.items() if l2 in newset)
                                           / tot if tot else np.nan)
                stats["deg_" + tag].append(tot)
                stats["nbr_" + tag].append(len(row))
            uJ_j = mean_model(rj[lab], mj)   # join's row, join's models
            uR_r = mean_model(rr[lab], mr)   # refit's row, refit's models
            uJ_r = mean_model(rj[lab], mr)   # join's row, refit's models
            uR_j = mean_model(rr[lab], mj)   # refit's row, join's models
            # join's row; the refit's models for its fitted neighbours only
            # (the newcomers' from the join), and the other way round
            mixed_f = {lab2: (mr[lab2] if lab2 not in newset else mj[lab2]) for lab2 in mj}
            mixed_n = {lab2: (mj[lab2] if lab2 not in newset else mr[lab2]) for lab2 in mj}
            uJ_f = mean_model(rj[lab], mixed_f)
            uJ_n = mean_model(rj[lab], mixed_n)
            c = conf_j[lab]
            n_pen = X.shape[1]
            models = {
                "join": mj[lab], "refit": mr[lab],
                "JJ": block_solve(Ztr, ytr, c, alpha, mu, uJ_j, n_pen),
                "RR": block_solve(Ztr, ytr, conf_r[lab], alpha, mu, uR_r, n_pen),
                "JR": block_solve(Ztr, ytr, c, alpha, mu, uJ_r, n_pen),
                "RJ": block_solve(Ztr, ytr, c, alpha, mu, uR_j, n_pen),
                "uJ": uJ_j, "uR": uR_r,
                "JRf": block_solve(Ztr, ytr, c, alpha, mu, uJ_f, n_pen),
                "JRn": block_solve(Ztr, ytr, c, alpha, mu, uJ_n, n_pen),
            }
            for key, th in models.items():
                correct[key] += int(((Zt @ th) * yte > 0).sum())
            n_test += len(te)
        row = {"seed": seed, "k": k}
        for key in ("join", "refit", "JJ", "RR", "JR", "RJ", "JRf", "JRn", "uJ", "uR"):
            row[key] = 100.0 * correct[key] / n_test
        for key, vals in stats.items():
            row[key] = float(np.nanmean(vals))
        out.append(row)
        if verbose:
            print(" ".join(f"{key}={v:.3f}" if isinstance(v, float) else f"{key}={v}"
                           for key, v in row.items()), flush=True)
    return out


def refine(seed, ks, rounds, hops, dataset="moons"):
    """Newcomers' and fitted nodes' test accuracy after the join, then after
    ``rounds`` rounds in which the fitted nodes within ``hops`` of a
    newcomer and then the newcomers solve their blocks (``block_solve``)
    with every neighbour fixed: an update of the fitted nodes a join could
    offer when asked (not in the package)."""
    loaded = nn.load(dataset, seed)
    X, y, groups = loaded[:3]
    fit_rows, new, order = nn.split(X, y, groups, seed, loaded[4] if len(loaded) > 4 else None)
    base = PersonalizedLinearClassifier(random_state=seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    if len(base.classes_) != 2:
        raise ValueError("--refine handles two classes (the logistic block_solve)")
    n_old = len(base.nodes_)
    # (the fitted nodes' held-out rows: rotated moons and the related
    # families only, the others train on all of a fitted node's rows)
    test_old = np.setdiff1d(np.flatnonzero(~np.isin(groups, new)), fit_rows)
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(base).add_nodes(X[train], y[train], groups=groups[train])
        W = joined.collaboration_graph_.toarray()
        before = joined._full_coef()[:, 0, :].astype(np.float64)
        M = before.copy()
        labels = joined.nodes_
        data = []
        for i, lab in enumerate(labels):
            r = fit_rows[groups[fit_rows] == lab] if i < n_old else train[groups[train] == lab]
            data.append((np.column_stack([X[r], np.ones(len(r))]),
                         np.where(y[r] == joined.classes_[1], 1.0, -1.0)))
        active = set(range(n_old, len(labels)))
        frontier = set(active)
        for _ in range(hops):
            reached = set()
            for i in frontier:
                reached |= set(np.flatnonzero(W[i]).tolist())
            frontier = reached - active
            active |= reached
        order_ = sorted(i for i in active if i < n_old) + list(range(n_old, len(labels)))
        def solve_blocks(M, W):
            for _ in range(rounds):
                for i in order_:
                    if W[i].sum() > 0:
                        u = W[i] @ M / W[i].sum()
                        M[i] = block_solve(data[i][0], data[i][1], joined.confidence_[i],
                                           float(base.alpha), float(base.mu), u, X.shape[1])
            return M

        M = solve_blocks(M, W)
        # The control: the same blocks, the fitted nodes' rows without the
        # newcomers (what converging the fitted blocks alone gives).
        W_control = W.copy()
        W_control[:n_old, n_old:] = 0.0
        control = solve_blocks(before.copy(), W_control)

        def accuracy(models, rows):
            index = {lab: i for i, lab in enumerate(labels.tolist())}
            codes = np.array([index[g] for g in groups[rows].tolist()])
            Z = np.column_stack([X[rows], np.ones(len(rows))])
            sign = np.where(y[rows] == joined.classes_[1], 1.0, -1.0)
            if not len(rows):
                return float("nan")
            return 100.0 * np.mean(np.einsum("ij,ij->i", Z, models[codes]) * sign > 0)

        out.append({"seed": seed, "k": k, "new_join": accuracy(before, test),
                    "new_refined": accuracy(M, test), "new_control": accuracy(control, test),
                    "fitted_join": accuracy(before, test_old),
                    "fitted_control": accuracy(control, test_old),
                    "fitted_refined": accuracy(M, test_old),
                    "n_fitted_stepping": float(len(order_) - len(new))})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--refine", default=None, metavar="ROUNDS,HOPS",
                        help="instead: the join followed by ROUNDS rounds of block solves "
                        "of the fitted nodes within HOPS of a newcomer, then the newcomers")
    parser.add_argument("--dataset", default="moons",
                        help="with --refine: a data set of benchmarks/new_nodes.py (two classes)")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    with threadpool_limits(1):
        for seed in seeds:
            if args.refine is None:
                rows += run(seed, ks, True)
            else:
                rounds, hops = (int(v) for v in args.refine.split(","))
                rows += refine(seed, ks, rounds, hops, args.dataset)
    print("means over seeds")
    for k in ks:
        sel = [r for r in rows if r["k"] == k]
        keys = [key for key in sel[0] if key not in ("seed", "k")]
        print(f"k={k} " + " ".join(f"{key}={np.mean([r[key] for r in sel]):.3f}"
                                   for key in keys), flush=True)


if __name__ == "__main__":
    main()
