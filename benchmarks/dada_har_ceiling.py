"""What caps Dada's HAR sitting rows of ``new_nodes.py``: the graph or the boosting models.

Usage::

    python benchmarks/dada_har_ceiling.py pooled 0
    python benchmarks/dada_har_ceiling.py federated 0,1,2 200,1000 5,10,20

On ``new_nodes.py``'s HAR sitting split of each seed (80 % of the people
fitted; each new person's test samples as in ``new_nodes.py`` at ``k`` =
5), accuracy % on the newcomers' test samples:

``pooled``: models trained on the fitted people's pooled data, with no
personalization and no graph: ``LogisticRegression`` (the Global column of
``new_nodes.py``), scikit-learn's ``AdaBoostClassifier`` on 200 depth-one
trees (stumps whose thresholds it fits), and
``DecentralizedBoostingClassifier`` on one node holding every pooled
sample for a few ``(n_estimators, max_iter)``; then, of the default
federated fit (one node a person), the best and the median single fitted
model on the newcomers' test samples, and the number of voted features.

``federated``: the default ``DecentralizedBoostingClassifier`` with each
``n_estimators`` fitted on the fitted people, then ``add_nodes`` with
each ``k``: the join's accuracy, the fit's CPU seconds.

Measured (dada9, 2026-11-28, main at 068eee0, load 10-15).  ``pooled 0``::

    LogisticRegression                             99.41
    AdaBoost, 200 stumps                           99.11
    Dada one node, 200 stumps, 100 steps           91.80
    Dada one node, 200 stumps, 1000 steps          91.80
    Dada one node, 1000 stumps, 100 steps          96.45
    Dada one node, 1000 stumps, 1000 steps         96.45
    Dada one node, 2000 stumps, 2000 steps         95.57
    Dada federated, best fitted model              91.57
    Dada federated, median fitted model            89.21
    voted features 526 of 561

Dada trained on every pooled sample scores what its best personal model
does (91.8 against 91.6): the cap of the HAR rows is Dada's dictionary,
not its graph.  The vote keeps 522-528 of HAR sitting's 561 features, and
``make_stumps`` spreads ``n_estimators // n_voted`` = 0 stumps on each,
one more on the first 200: two thirds of the voted features get no
stump, the others one threshold at mid-range.  With 1,000 stumps (one or
two on every voted feature) the pooled model gains 4.7 points; more
iterations change nothing (Frank-Wolfe keeps 12-39 stumps).
``federated 0,1,2 200,1000 5,10,20`` (the joins of ``new_nodes.py``; fit
CPU 1.4-1.9 s with 200 stumps, 1.9-2.3 s with 1,000)::

    n_estimators   seed 0               seed 1               seed 2               mean
    200            89.95 91.60 90.49    88.59 87.60 86.82    89.88 90.39 88.28    89.47 89.86 88.53
    1000           90.61 93.10 92.42    90.23 88.50 89.67    91.61 94.79 95.39    90.82 92.13 92.49

``new_nodes.py --families dada --datasets har --seeds 0,1,2 --ks
5,10,20`` with the default ``n_estimators`` patched to 1,000 (a ``/tmp``
wrapper setting ``DecentralizedBoostingClassifier.__init__.__defaults__``):
join 90.8 / 92.1 / 92.5 (default 89.5 / 89.9 / 88.5), refit 88.3 / 87.0 /
91.2 (86.6 / 84.8 / 88.1), bytes join / refit 0.0084-0.0091 (0.007-0.008),
CPU 0.005-0.008; Global 97.9 still out of reach.  The same wrapper on
the other two data sets (``--datasets landmine``, then ``moons``), join /
refit at ``k`` = 5 / 10 / 20 against the default's::

    Landmine   93.4 93.4 93.6 / 93.8 93.7 93.8   (default join 93.5 93.6 93.8)
    moons      70.7 73.0 78.6 / 70.4 76.8 82.1   (default join 71.8 76.6 81.9)

So 1,000 stumps for every data set is not a default: on the rotated
moons (a few voted features: five times the stumps on each) the joins lose
1.1-3.6 points.  What the rows ask for is stumps on every voted feature:
a floor of stumps per voted feature, e.g. ``max(n_estimators, 2
n_voted)``, leaves every data set with fewer than 100 voted features
(moons, Landmine, the ``related`` families) bit-identical and gives HAR
sitting the 1,000-stump rows above.  Not adopted in this shift: the MPI
engine (``skfed/engines/_mpi_dada.py``) and the join's vote
(``skfed/_graph_join_vote.py``) build the stumps from ``n_estimators``
too and must resolve the floor alike, and HAR walking / School /
Computer buyers' fit rows of the boosting guide need measuring under it.
Re-measured (dada12, 2026-11-28, main at ac7f2db: ``n_estimators="auto"``
is the default since, 1,044-1,056 stumps on HAR's 522-528 voted
features), ``pooled 0``, ``pooled 1``, ``pooled 2``, seeds 0 / 1 / 2::

    LogisticRegression                      99.41  95.42  98.63
    AdaBoost, 200 stumps                    99.11  94.67  99.28
    Dada one node, 200 stumps, 100 steps    91.80  86.68  90.31
    Dada one node, 1000 stumps, 100 steps   96.45  91.26  95.73
    Dada one node, 1000 stumps, 1000 steps  96.45  90.85  95.81
    Dada one node, 2000 stumps, 2000 steps  95.57  91.05  94.87
    Dada federated, best fitted model       96.08  90.85  93.85
    Dada federated, median fitted model     91.65  86.68  89.95

So Dada's fit itself is below Global LogReg on HAR sitting: trained on
every fitted sample at one node it stays 3-4 points under
``LogisticRegression`` (2.8-4.2), and the median fitted person's model
is 7.8-8.7 under.  AdaBoost's 200 stumps, whose thresholds it fits, reach
LogReg, so the gap is Dada's fixed stump dictionary (one or two
range-placed thresholds per feature, weights on an l1 ball), not the
graph or the join: a newcomer built from these stumps cannot reach Global
LogReg.  More stumps do not close it (2,000 stumps lose 0.2-0.9 against
1,000).  ``new_nodes.py --families dada --datasets har --seeds 0 --ks
5,10,20`` gives the same rows with main and with dada12's join fix of
``n_estimators="auto"`` (join 90.8 / 92.0 / 93.0, refit 92.1 / 88.7 /
92.5, Global 99.4: the fix adds no stumps here).
"""
import copy
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import new_nodes

from skfed.boosting import DecentralizedBoostingClassifier

ONE_NODE = ((200, 100), (200, 1000), (1000, 100), (1000, 1000), (2000, 2000))


def split(seed, k):
    X, y, g = new_nodes.load("har", seed)[:3]
    fit_rows, _, order = new_nodes.split(X, y, g, seed, None)
    train, test = new_nodes.new_node_rows(order, k)
    return X, y, g, fit_rows, train, test


def pooled(seed):
    X, y, g, fit_rows, _, test = split(seed, 5)
    Xf, yf, Xt, yt = X[fit_rows], y[fit_rows], X[test], y[test]
    out = {"LogisticRegression": LogisticRegression(max_iter=1000).fit(Xf, yf).score(Xt, yt),
           "AdaBoost, 200 stumps": AdaBoostClassifier(
               DecisionTreeClassifier(max_depth=1), n_estimators=200).fit(Xf, yf).score(Xt, yt)}
    one_f, one_t = np.zeros(len(yf), dtype=int), np.zeros(len(yt), dtype=int)
    for n_estimators, max_iter in ONE_NODE:
        est = DecentralizedBoostingClassifier(n_estimators, max_iter=max_iter,
                                              random_state=seed).fit(Xf, yf, groups=one_f)
        out[f"Dada one node, {n_estimators} stumps, {max_iter} steps"] = np.mean(
            est.predict(Xt, groups=one_t) == yt)
    est = DecentralizedBoostingClassifier(random_state=seed).fit(Xf, yf, groups=g[fit_rows])
    signs = np.where(yt == est.classes_[1], 1, -1)
    each = [np.mean(np.sign(est.decision_function(Xt, groups=np.full(len(yt), node))) == signs)
            for node in est.nodes_]
    out["Dada federated, best fitted model"] = max(each)
    out["Dada federated, median fitted model"] = float(np.median(each))
    for name, value in out.items():
        print(f"seed {seed}  {name:45s} {100 * value:6.2f}", flush=True)
    print(f"seed {seed}  voted features {int(est.selected_features_.sum())} of {X.shape[1]}",
          flush=True)


def federated(seeds, counts, ks):
    for seed in seeds:
        X, y, g, fit_rows, _, _ = split(seed, ks[0])
        for n_estimators in counts:
            cpu = time.process_time()
            est = DecentralizedBoostingClassifier(n_estimators, random_state=seed).fit(
                X[fit_rows], y[fit_rows], groups=g[fit_rows])
            cpu = time.process_time() - cpu
            for k in ks:
                _, _, _, _, train, test = split(seed, k)
                joined = copy.deepcopy(est).add_nodes(X[train], y[train], groups=g[train])
                acc = np.mean(joined.predict(X[test], groups=g[test]) == y[test])
                print(f"seed {seed}  n_estimators {n_estimators:5d}  k {k:2d}  join "
                      f"{100 * acc:6.2f}  fit CPU {cpu:5.1f} s", flush=True)


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    mode, args = sys.argv[1], sys.argv[2:]
    with threadpool_limits(1):
        if mode == "pooled":
            for s in args[0].split(","):
                pooled(int(s))
        else:
            federated([int(s) for s in args[0].split(",")], [int(c) for c in args[1].split(",")],
                      [int(k) for k in args[2].split(",")])
