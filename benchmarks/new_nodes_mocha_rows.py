"""Why MOCHA's joins miss their goal on three rows of the table, node by node.

Issue 32's MOCHA rows (``benchmarks/new_nodes.py --families mocha``, the
table of ``doc/user_guide/growing.rst``) miss on HAR sitting (every ``k``:
under pooled ``LogisticRegression()``), Landmine (every ``k``: under pooled
``SVC()``) and rotated moons at ``k = 5`` (under Local ``LinearSVC()``).
On the same splits as ``new_nodes.py`` this script prints, per seed,
``k`` and new node: its test samples and the share of the majority class,
the accuracy of the join, of ``w_0`` alone (the fitted estimator's
prediction for an unseen node), of the table's Global and Local winners
(pooled ``LogisticRegression()`` / ``SVC()``, per-node ``LinearSVC()``;
``--global`` / ``--local`` to change them) and of the refit; the counts of
true and false positives of the join and of Global (binary labels
``{0, 1}`` or ``{-1, 1}``, positive the larger); and the fitted nodes'
rehearsal at the size the newcomers use (mean held-out error per scale of
``c_n``, the standard error of each scale's paired difference to scale 1)
with the scale it picks.

    python benchmarks/new_nodes_mocha_rows.py --datasets landmine --seeds 0,1,2
    python benchmarks/new_nodes_mocha_rows.py --datasets moons --ks 5 --local LinearSVC
    python benchmarks/new_nodes_mocha_rows.py --datasets har --global LogisticRegression

Measured (joinsm5, 2026-11-28, main 6c25e28), means over seeds
0-2 unless a seed is named:

* Landmine: 93.8 is *not* the majority rate.  Predicting every test
  sample negative scores 93.58 / 93.54 / 93.56 (``k = 5 / 10 / 20``), the
  join 93.54 / 93.58 / 93.53, ``w_0`` alone 93.50 / 93.45 / 93.47 and
  pooled ``SVC()`` 93.81 / 93.77 / 93.78.  The linear join sits at the
  majority rate: over all 18 (seed, ``k``) runs it predicts 3-22 positives
  in about 3,000 test samples, as many of them false as true (seed 0, ``k
  = 20``: 11 true, 11 false; seed 1: 2 true, 3 false at every ``k``, the
  3 false ones on node 15, where ``w_0`` makes the same 3).  Pooled
  ``SVC()`` finds 6-11 true positives with 0-3 false ones: its RBF kernel
  isolates pockets of positives a linear model cannot (pooled
  ``LinearSVC()`` and ``LogisticRegression()`` score 93.32-93.35 on seed
  0, under the majority rate).  So even a join that predicted every
  sample negative (a perfectly placed intercept) would miss Global by
  0.23 points; the intercept is not the lever, the linear model is.
  Most newcomers hold 0 or 1 positive among their 5-20 samples.
* Rotated moons, ``k = 5``: the rehearsal keeps scale 1 on all three
  seeds (so the join is the fixed scale 1 of
  ``new_nodes_mocha_scales.py``); join 55.09 / 56.05 / 56.03 against
  Local ``LinearSVC()`` 53.20 / 57.29 / 57.26 (seeds 0 / 1 / 2), i.e. the
  miss is seeds 1 and 2.  The prior the newcomer gets is ``w_0``, which
  alone scores 47.7-52.3 (the four rotated clusters cancel in it): the
  join is a ridge-logistic fit of 5 samples in 21 dimensions shrunk toward
  nearly nothing, with the same variance in the 2 informative and the 19
  padding coordinates.  The fitted nodes' models differ more along the 2
  moons' coordinates (their relative variance across the fitted nodes
  1.15-1.33 against 0.74-1.19 for the padding): a prior shaped by that
  spread scores 57.22 / 56.82 / 58.42 (see the spread prior in
  ``new_nodes_mocha_scales.py``'s docstring: not kept, it drops HAR at
  ``k = 5``).
* HAR sitting (``--datasets har``, Global ``LogisticRegression()``,
  Local ``LinearSVC()``): the miss is seed 1 (join 94.13 / 93.77 / 94.87
  against pooled 95.63 / 95.57 / 95.58; seeds 0 and 2 are within 0.7 of
  it or above) and there two subjects of four.  Node 6: ``w_0`` alone
  92.2, pooled 95.3, the join 90.6 / 88.3 / 85.3 at ``k = 5 / 10 / 20``,
  worse with more samples: its first 20 samples hold no "sitting" (55 of
  its 305-320 test samples do), so its personal part learns "never
  sitting" (true positives 25 -> 18 -> 10 of 55).  Node 28: 89.1 / 90.1 /
  95.3 against pooled 92.3 / 92.2 / 92.5 (0 / 1 / 3 positives among its
  samples), i.e. at ``k = 5`` it keeps ``w_0``'s 89.1.  Elsewhere the join
  is at or above pooled (seed 1 node 17: 97.8-99.1 against 96.4-96.6;
  seed 2 nodes 1 and 17), and a few samples under ``w_0`` on seed 0 (node
  30: 98.2 / 97.1 / 98.1 against 98.7).  The rehearsal picks the scale
  1/16 at size 5 on every seed (the fitted nodes' held-out errors 0.028 /
  0.021 / 0.029 against 0.039 / 0.027 / 0.050 at scale 1), 1/4 or 1/16 at
  10, 1/16 or 1 at 20.  So HAR's rows have two causes: the fitted ``w_0``
  of seed 1 (``benchmarks/new_nodes_mocha_share.py``) and a newcomer whose
  ``k`` samples miss a class moving away from that class; the second is
  where a join-side change could act (the newcomer's intercept and
  one-class samples), not measured yet.
"""

import argparse
import copy
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.baselines import LocalEstimator
from skfed.multitask._rehearsal import REHEARSAL_SCALES


def _positives(y, p, positive):
    return int(((p == positive) & (y == positive)).sum()), int(((p == positive) & (y != positive)).sum())


def run(name, seed, ks, global_name, local_name):
    data = nn.load(name, seed)
    X, y, g, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, g, seed, extra)
    est = nn.make_estimator("mocha", task, seed).fit(X[fit_rows], y[fit_rows], groups=g[fit_rows])
    print(f"{name} seed {seed}: fitted share {est.shared_weight_:.3f}, "
          f"{len(np.unique(g[fit_rows]))} fitted nodes, {len(new)} new", flush=True)
    positive = np.max(y)
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk, Xt, yt, gt = X[train], y[train], g[train], X[test], y[test], g[test]
        joined = copy.deepcopy(est).add_nodes(Xk, yk, groups=gk)
        p_join = joined.predict(Xt, groups=gt)
        p_w0 = est.predict(Xt, groups=gt)
        makers = nn.baseline_makers(task, len(fit_rows) + len(train))
        Xp = np.concatenate([X[fit_rows], Xk])
        yp = np.concatenate([y[fit_rows], yk])
        p_glob = makers[global_name]().fit(Xp, yp).predict(Xt)
        p_loc = LocalEstimator(nn.baseline_makers(task, k)[local_name]()).fit(
            Xk, yk, groups=gk).predict(Xt, groups=gt)
        refit = nn.make_estimator("mocha", task, seed).fit(
            Xp, yp, groups=np.concatenate([g[fit_rows], gk]))
        p_refit = refit.predict(Xt, groups=gt)
        values, counts = np.unique(yt, return_counts=True)
        majority = values[np.argmax(counts)]

        def acc(p, mask=slice(None), yt=yt):
            return 100.0 * np.mean(p[mask] == yt[mask])

        tp, fp = _positives(yt, p_join, positive)
        gtp, gfp = _positives(yt, p_glob, positive)
        print(f"  k={k}: test {len(yt)}, majority {acc(np.full(len(yt), majority)):.2f} | "
              f"join {acc(p_join):.2f} (TP {tp} FP {fp}) | w0 {acc(p_w0):.2f} | "
              f"{global_name} {acc(p_glob):.2f} (TP {gtp} FP {gfp}) | {local_name} "
              f"{acc(p_loc):.2f} | refit {acc(p_refit):.2f}")
        for node in new:
            m = gt == node
            tp, fp = _positives(yt[m], p_join[m], positive)
            gtp, gfp = _positives(yt[m], p_glob[m], positive)
            print(f"    node {node}: test {int(m.sum())}, positives {int((yt[m] == positive).sum())}, "
                  f"of its k {int((yk[gk == node] == positive).sum())} | join {acc(p_join, m):.2f} "
                  f"(TP {tp} FP {fp}) | w0 {acc(p_w0, m):.2f} | {global_name} "
                  f"{acc(p_glob, m):.2f} (TP {gtp} FP {gfp}) | {local_name} {acc(p_loc, m):.2f} | "
                  f"refit {acc(p_refit, m):.2f}")
        rehearsal = joined._join_rehearsal
        if rehearsal is not None and len(rehearsal.sizes):
            table = rehearsal.table()
            i = int(np.argmin(np.abs(np.log(table["sizes"]) - np.log(k))))
            picked = rehearsal.scales(np.array([k]))[0][0]
            print(f"    rehearsal size {table['sizes'][i]} ({table['nodes'][i]} nodes): scales "
                  f"{list(REHEARSAL_SCALES)} errors {np.round(table['errors'][i], 4).tolist()} "
                  f"se {np.round(table['standard_errors'][i], 4).tolist()} -> {picked}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--global", dest="global_name", default=None,
                        help="pooled baseline (default: SVC on landmine, else LogisticRegression)")
    parser.add_argument("--local", dest="local_name", default="LinearSVC")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    ks = [int(k) for k in args.ks.split(",")]
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            glob = args.global_name or ("SVC" if name == "landmine" else "LogisticRegression")
            for seed in (int(s) for s in args.seeds.split(",")):
                run(name, seed, ks, glob, args.local_name)


if __name__ == "__main__":
    main()
