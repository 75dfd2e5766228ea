"""Perso-lin's ``alpha`` after the block wake-ups: HAR joins and held-out families.

issue 32, persolin15.  Before the block wake-ups (persolin14) a smaller
``alpha`` barely moved the HAR joins (``persolin_har_fit_gap.py``: +0.3 /
+0.6 at ``alpha=1e-4``) because the fit stopped far from its optimum.  This
script re-asks the question on the estimator as it is now: each candidate
is the default ``PersonalizedLinearClassifier`` with only ``alpha`` (and
``random_state``) set, ``alpha`` a number or ``1/N`` (one over the fitted
nodes' total number of samples: the ridge a pooled scikit-learn
``LogisticRegression(C=1)`` puts on the network's mean model).

* joins (``har``, ``moons``, ``landmine``, ``related-*``): ``new_nodes.py``'s
  loaders and split, the fit on 80 % of the nodes, ``add_nodes`` with ``k``
  samples per newcomer, accuracy % on the newcomers' other samples (no
  refit, no baselines: those are ``new_nodes.py``'s);
* ``review13-<family>``: all nodes fitted, per-node mean test accuracy %
  (``tests/test_review13_heldout_defaults.py``'s families and protocol).

    python benchmarks/persolin_alpha_block.py --datasets har --seeds 0,1,2 \
        --ks 5,20 --alphas 0.01,0.001,0.0001,1/N

The one-node check (the estimator with every sample in one group equals
pooled ``LogisticRegression(C=1 / (alpha N))``: the loss and its scaling
are scikit-learn's) is ``--one-node`` on HAR.

``g:A`` fits the models at ``alpha = A`` on the graph the default fit
learned (a measurement of where a loss comes from, not a method).

Measured 2026-11-29 (persolin15, branch at 1e00981, one BLAS thread, load
10-15 on 2 cores).

Why HAR sits 4 points under pooled ``LogisticRegression``.  One node
holding every sample (HAR, seed 0, ``k = 20``: 6,059 rows, 561 features)
is exactly pooled ``LogisticRegression(C = 1 / (alpha N))``: 97.68 % both at
``alpha = 1e-2`` (``C = 0.0165``), 99.38 % both at ``alpha = 1 / N`` (``C =
1``, the Global row's model): the loss, its ``1 / m_k`` scaling and the
feature scale are scikit-learn's, and the default ``alpha`` costs the
pooled model 1.7 points by itself.  On the default graph the fit is now
near its optimum (block wake-ups, persolin14), so the rest of the gap is
the objective: a newcomer of 5-20 windows takes ``c_n F_n + (mu / 2)
||theta - u||^2`` with ``c_n = k / max m`` (0.02-0.07 on HAR), i.e. the
weighted average ``u`` of its neighbours' personalized models, each shrunk
toward 0 by ``alpha`` (``persolin_shared_part.py``: shrinking toward the
network mean instead is what reaches Global, and loses on clustered
families).

HAR joins, ``k = 5 / 20``, seeds 0 / 1 / 2 and mean (``--datasets har``;
the default row is ``new_nodes.py``'s; Global 97.9)::

    alpha    s0            s1            s2            mean
    1e-2     96.23 95.90   90.16 91.24   94.43 96.60   93.61 94.58
    5e-3     97.34 95.51   90.30 92.52   95.44 96.30   94.36 94.78
    3e-3     96.90 96.52   90.57 92.52   96.24 96.90   94.57 95.31
    1e-3     97.49 96.67   91.67 91.88   97.54 96.90   95.57 95.15
    1e-4     97.56 97.76   90.57 90.67   95.88 97.51   94.67 95.31
    1/N      -             90.44 91.10   96.60 97.81   (seeds 1-2)

Held-out families and the other rows, mean of seeds 0-5, change against
``alpha = 1e-2`` (joins ``k = 5 / 20``; ``review13-*`` the fitted nodes)::

    data                1e-2          5e-3          3e-3          1e-3          1e-4          1/N
    moons          k5   53.07         +0.27         +0.45         +1.21         +2.44         +1.25
    moons          k20  61.09         +0.53         -0.39         +2.27         +5.32         +1.64
    landmine       k5   93.53         +0.00         +0.02         +0.05         -0.02         -0.01
    landmine       k20  93.62         -0.01         +0.00         +0.00         -0.06         -0.05
    rel-alike      k5   89.69         -0.09         +0.16         +0.36         +0.28         +0.40
    rel-alike      k20  90.08         +0.28         +0.24         +0.22         +0.12         +0.19
    rel-clustered  k5   74.14         +0.60         +0.00         +0.00         -0.43         +0.20
    rel-clustered  k20  88.39         -0.26         -0.54         -0.76         -0.81         -0.53
    rel-narrow     k5   89.42         -0.30         -0.37         -0.30         +0.39         +0.07
    rel-narrow     k20  90.54         +0.11         -0.01         -0.01         -0.24         -0.03
    rel-small      k5   87.94         +0.91         +1.25         +1.70         +2.30         +1.87
    rel-small      k20  90.20         +0.06         +0.18         -0.22         -0.25         +0.07
    rel-wide       k5   87.60         +0.73         +0.82         +1.34         +1.84         +1.58
    rel-wide       k20  88.65         +0.28         +0.28         +0.56         +0.85         +0.75
    r13-many_small      83.76         +1.32         +1.48         +2.25         +2.84         +2.17
    r13-alike           89.15         -0.17         -0.32         -0.22         -0.43         -0.33
    r13-half_noise      85.02         -0.08         -0.30         -0.05         +0.25         -0.52
    r13-d2              83.47         +0.05         -0.08         +0.08         +0.22         +0.15
    r13-d500            68.63         +0.58         +0.27         +0.87         +0.82         +1.05

(``python benchmarks/persolin_alpha_block.py --datasets review13-many_small,
review13-alike,review13-half_noise,review13-d2,review13-d500,moons,landmine,
related-small,related-alike,related-clustered,related-wide,related-narrow
--seeds 0,1,2,3,4,5 --ks 5,20 --alphas 0.01,0.005,0.003,0.001,0.0001,1/N``;
``0.0003`` on seeds 3-5 only: moons +3.0 / +6.3, clustered -1.7 / -1.3,
r13-alike -1.4.)  With the graph of the default fit kept (``g:1e-3`` /
``g:1e-4``, seeds 0-5): clustered no longer loses (+3.0 / +0.3, +1.3 /
+0.4) and r13-alike gains (+0.3 / +0.4), but rel-small at ``k = 20`` loses
1.2 / 4.3 and rel-narrow 0.4-0.6: the small ``alpha``'s loss on clustered
nodes comes through the graph learned from less-regularized local models,
and the graph's own ``alpha`` is not a free fix.

Reading.  Since the block wake-ups a smaller ``alpha`` is the lever on both
short rows: HAR +1.0-2.0 at 1e-3 / 1e-4 (still 2.6-3.3 under Global; 5e-3
+0.8 / +0.2, 3e-3 +1.0 / +0.7) and rotated moons
+2.3-5.3 at ``k = 20`` (1e-3 / 1e-4: 63.4 / 66.4 against Local 62.6-63.1 and
the refit 63.9), with large held-out gains (many small nodes +2.3-2.8,
8-sample newcomers +1.7-2.3, wide +1.3-1.8).  But every ``alpha`` from 5e-3
down loses more than 0.2 somewhere held out: clustered newcomers at ``k =
20`` (-0.26 to -0.81), nearly-alike fitted nodes (-0.17 to -0.43),
narrow newcomers at ``k = 5`` (-0.30).  By the held-out rule the default
stays ``1e-2``; this table is the evidence for a future default chosen per
fit (for instance ``alpha`` by held-out rows on each node, whose bytes and
privacy cost are not designed).
"""

import argparse
import copy
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))


def resolve(alpha, n_samples):
    alpha = alpha.split(":")[-1]
    return 1.0 / n_samples if alpha == "1/N" else float(alpha)


def make(alpha, seed, X, y, groups):
    """The fitted candidate: ``A`` the default estimator at ``alpha = A``;
    ``g:A`` the graph of the default fit (``alpha=1e-2``) kept fixed and the
    models fitted at ``alpha = A`` on it."""
    from skfed.boosting import PersonalizedLinearClassifier

    a = resolve(alpha, len(y))
    if alpha.startswith("g:"):
        graph = PersonalizedLinearClassifier(random_state=seed).fit(
            X, y, groups=groups).collaboration_graph_
        return PersonalizedLinearClassifier(random_state=seed, alpha=a, graph=graph).fit(
            X, y, groups=groups)
    return PersonalizedLinearClassifier(random_state=seed, alpha=a).fit(X, y, groups=groups)


def run_join(name, seed, ks, alphas):
    import new_nodes as nn

    data = nn.load(name, seed)
    X, y, g = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, g, seed, extra)
    rows = []
    for alpha in alphas:
        cpu = time.process_time()
        est = make(alpha, seed, X[fit_rows], y[fit_rows], g[fit_rows])
        cpu = time.process_time() - cpu
        scores = {}
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            joined = copy.deepcopy(est)
            joined.add_nodes(X[train], y[train], groups=g[train])
            scores[k] = 100.0 * np.mean(joined.predict(X[test], groups=g[test]) == y[test])
        row = {"dataset": name, "seed": seed, "alpha": alpha, "join": scores,
               "fit_cpu": round(cpu, 2)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def run_review13(family, seed, alphas):
    from test_review13_heldout_defaults import make_family, per_node_score

    Xtr, ytr, gtr, Xte, yte, gte = make_family(family, "clf", seed)
    rows = []
    for alpha in alphas:
        est = make(alpha, seed, Xtr, ytr, gtr)
        score = 100.0 * per_node_score(est.predict(Xte, groups=gte), yte, gte, "clf")
        row = {"dataset": f"review13-{family}", "seed": seed, "alpha": alpha, "fitted": score}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def one_node(seed, k=20):
    import new_nodes as nn
    from sklearn.linear_model import LogisticRegression

    from skfed.boosting import PersonalizedLinearClassifier

    X, y, g = nn.load("har", seed)[:3]
    fit_rows, new, order = nn.split(X, y, g, seed)
    train, test = nn.new_node_rows(order, k)
    Xp, yp = np.concatenate([X[fit_rows], X[train]]), np.concatenate([y[fit_rows], y[train]])
    one = np.zeros(len(yp), dtype=int)
    out = {}
    for alpha in ("0.01", "1/N"):
        a = resolve(alpha, len(yp))
        est = PersonalizedLinearClassifier(random_state=seed, alpha=a).fit(Xp, yp, groups=one)
        pl = 100.0 * np.mean(est.predict(X[test], groups=np.zeros(len(test), int)) == y[test])
        lr = 100.0 * LogisticRegression(C=1.0 / (a * len(yp)), max_iter=5000).fit(Xp, yp).score(
            X[test], y[test])
        out[alpha] = (round(pl, 2), round(lr, 2))
    print(json.dumps({"seed": seed, "k": k, "one_node (perso-lin, LogReg)": out}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,20")
    parser.add_argument("--alphas", default="0.01,0.001,0.0001,1/N")
    parser.add_argument("--one-node", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.one_node:
        for seed in seeds:
            one_node(seed)
        return
    ks = [int(k) for k in args.ks.split(",")]
    alphas = args.alphas.split(",")
    for name in args.datasets.split(","):
        for seed in seeds:
            if name.startswith("review13-"):
                run_review13(name[len("review13-"):], seed, alphas)
            else:
                run_join(name, seed, ks, alphas)


if __name__ == "__main__":
    main()
