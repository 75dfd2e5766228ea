"""A newcomer whose task is unlike every fitted node's: join, Local, refit.

``benchmarks/new_nodes.py``'s newcomers resemble some fitted nodes (people
of HAR, clusters of rotated moons, schools, fields of Landmine).  Here
``n_nodes - 1`` fitted nodes share one linear task (``y = [x_0 > 0]``, 4
features, ``n`` samples each) and one newcomer's boundary is that task
turned by ``angle`` degrees (180: its labels are flipped; 90: ``y =
[x_1 > 0]``).  It gets ``k`` training samples and is scored on the rest
of its ``n``.  Compared with Local (the better of ``LogisticRegression()``,
``LinearSVC()`` and ``SVC()`` on its ``k`` samples; a constant when they
hold one class), Global (the better of the same fitted on the fitted
nodes' and the newcomer's samples pooled) and each family's refit with the
newcomer's ``k`` samples (default parameters, ``random_state=seed``).

    python benchmarks/new_nodes_unlike.py --seeds 0,1,2 --ks 5,10,20 --angles 180,90

Measured (user17, 2026-11-29, main 480c821 plus user17's branch, 44 s; 16
nodes x 60 samples; accuracy on the newcomer's other samples, mean of
seeds 0-2; the command above)::

    angle  k   Local  Global  Perso-lin join/refit  Dada join/refit  MOCHA join/refit  online join/refit
    180    5   0.739  0.042   0.036 / 0.012         0.012 / 0.012    0.024 / 0.133     0.048 / 0.661
    180    10  0.840  0.047   0.033 / 0.020         0.013 / 0.013    0.007 / 0.147     0.273 / 0.720
    180    20  0.933  0.042   0.042 / 0.042         0.017 / 0.017    0.025 / 0.117     0.358 / 0.900
    90     5   0.648  0.491   0.503 / 0.485         0.467 / 0.467    0.485 / 0.552     0.521 / 0.667
    90     10  0.847  0.500   0.513 / 0.487         0.460 / 0.460    0.460 / 0.620     0.653 / 0.873
    90     20  0.925  0.475   0.492 / 0.483         0.442 / 0.433    0.458 / 0.692     0.642 / 0.775

Reading: every family's
join leaves such a newcomer near Global, 0.13-0.92 under Local.  For
Perso-lin and Dada the refit does the same (the graph objective's
smoothing pulls a lone node to its neighbours whatever it holds); MOCHA's
refit is a little better (0.12-0.69); the online learner's refit serves
the newcomer (0.66-0.90) and its join does not (0.05-0.65): a
join-specific gap.  Why, for the online learner (seeds 0 and 1, 180
degrees, ``k = 20``): the fit's ``consensus_penalty="auto"`` found the
fitted nodes alike (``consensus_selection_["choice"] == "strong"``), so
the newcomer starts from the network function (``join_start_``) and makes
its 30 passes under the strong consensus term; it then still misclassifies
90-95 % of its own 20 training samples.  A federation that may receive such nodes should compare
the join with Local on the newcomer's own held-out samples
(doc/user_guide/growing.rst, "Limits").

Results (2026-11-30, main 732136fa, docs38; with the contradicting-newcomer
guards of unlike36-guardw37; 51 s wall, one BLAS thread, ``nice``; the
command above, mean of seeds 0-2)::

    angle  k   Local  Global  Perso-lin join/refit  Dada join/refit  MOCHA join/refit  online join/refit
    180    5   0.739  0.042   0.267 / 0.012         0.218 / 0.012    0.248 / 0.133     0.279 / 0.661
    180    10  0.840  0.047   0.827 / 0.020         0.960 / 0.013    0.767 / 0.147     0.780 / 0.720
    180    20  0.933  0.042   0.925 / 0.042         0.967 / 0.017    0.908 / 0.117     0.908 / 0.892
    90     5   0.648  0.491   0.539 / 0.485         0.491 / 0.467    0.564 / 0.552     0.558 / 0.667
    90     10  0.847  0.500   0.507 / 0.487         0.460 / 0.460    0.460 / 0.620     0.653 / 0.873
    90     20  0.925  0.475   0.617 / 0.483         0.442 / 0.433    0.592 / 0.692     0.650 / 0.775

The refits are those of the first table (the guard runs in joins only).
At 180 degrees the guard lifts every family's join at ``k = 10, 20`` to
0.77-0.97 (Local 0.84 / 0.93); at ``k = 5`` the test cannot fire on most
newcomers (too few samples) and the joins stay at 0.22-0.28.  At 90
degrees the joined model is near chance on the newcomer's samples, the
test rarely fires (Dada and Perso-lin: 1 of 12 newcomers at ``k = 5,
20``, none at 10, seeds 0-11, ``guardw37_unlike_tests.py``'s docstring)
and every join stays near Global (0.44-0.65 against Local's
0.65-0.93).  These are the numbers doc/user_guide/growing.rst quotes
("Newcomers unlike the federation").
"""

import argparse
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC, LinearSVC

from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier
from skfed.online import DecentralizedKernelSGDClassifier

FAMILIES = {
    "Perso-lin": PersonalizedLinearClassifier,
    "Dada": DecentralizedBoostingClassifier,
    "MOCHA": FederatedMultiTaskClassifier,
    "online": DecentralizedKernelSGDClassifier,
}


def data(seed, n_nodes, n, angle):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, 4))
    theta = np.where(groups == n_nodes - 1, np.deg2rad(angle), 0.0)
    y = (np.cos(theta) * X[:, 0] + np.sin(theta) * X[:, 1] > 0).astype(int)
    return X, y, groups


def best_sklearn(X, y, X_test, y_test):
    """The better of the three baselines (a constant on one class)."""
    if np.unique(y).size < 2:
        return float(np.mean(y_test == y[0]))
    return max(est.fit(X, y).score(X_test, y_test)
               for est in (LogisticRegression(), LinearSVC(), SVC()))


def run(seed, k, angle, n_nodes, n):
    X, y, groups = data(seed, n_nodes, n, angle)
    new = n_nodes - 1
    fitted = groups < new
    position = np.arange(len(y)) % n
    train = (groups == new) & (position < k)
    test = (groups == new) & (position >= k)
    row = {"Local": best_sklearn(X[train], y[train], X[test], y[test]),
           "Global": best_sklearn(X[fitted | train], y[fitted | train], X[test], y[test])}
    for name, cls in FAMILIES.items():
        est = cls(random_state=seed).fit(X[fitted], y[fitted], groups=groups[fitted])
        est.add_nodes(X[train], y[train], groups=groups[train])
        row[name + " join"] = est.score(X[test], y[test], groups=groups[test])
        refit = cls(random_state=seed).fit(X[fitted | train], y[fitted | train],
                                           groups=groups[fitted | train])
        row[name + " refit"] = refit.score(X[test], y[test], groups=groups[test])
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--angles", default="180,90")
    parser.add_argument("--nodes", type=int, default=16)
    parser.add_argument("--samples", type=int, default=60)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    warnings.simplefilter("ignore")
    for angle in (float(a) for a in args.angles.split(",")):
        for k in (int(s) for s in args.ks.split(",")):
            rows = [run(seed, k, angle, args.nodes, args.samples) for seed in seeds]
            means = {key: np.mean([r[key] for r in rows]) for key in rows[0]}
            print(f"angle {angle:g} k {k}: " + "  ".join(
                f"{key} {value:.3f}" for key, value in means.items()), flush=True)


if __name__ == "__main__":
    main()
