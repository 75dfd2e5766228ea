"""Which private nodes switch from their given Local model, and what the switch does at test.

With ``DifferentialPrivacy(local_estimator=...)`` every private node keeps
its own fit of the given Local model unless its collaborative model wins a
one-sided test on its held-out samples (:mod:`skfed._kept_local`).  This
script fits each row of ``privacy_utility.py`` with a fixed noise seed
(``insecure_noise_seed``: the same released models whichever package is
imported, so two versions of the kept-model rule are compared on the same
fit) and prints, per fit:

* ``switched``: nodes that keep the collaborative model although they saw
  both classes;
* ``gain`` / ``lose`` / ``tie``: among them, how many score more / fewer /
  as many of their *test* samples right with the collaborative model than
  with their fit of the Local model;
* ``net``: the change in correctly classified test samples that the
  switches made (summed over nodes), and the row's pooled accuracy with
  the rule's choices beside the Local model kept everywhere (``given``).

The held-out comparison behind each switch is recorded from
:func:`skfed._kept_local.collaboration_wins` (``b``: held-out samples the
Local model gets wrong and the collaborative model right, ``c`` the
reverse).

Usage (``--noise-seeds``: fits per data seed; run it with ``PYTHONPATH``
pointing at the package version to measure)::

    python benchmarks/private_kept_switch.py --rows mocha-school --seeds 0 1 2 --noise-seeds 0
    python benchmarks/private_kept_switch.py --rows persolin-computer --seeds 0 --noise-seeds 0 1

Measured on 28 November 2026 (one BLAS thread, epsilon 3, noise seed 0;
"main" = the rule at 8d05595: the chosen trust candidate's own held-out
scores and each node at level 0.05; run with ``PYTHONPATH`` at a copy of
that commit):

* mocha-school, seeds 0-2 (417 node fits): main switched 13 schools (5
  gained test samples, 5 lost, 3 tied; net -2 test samples), 0.71183
  against the given logistic regression's 0.71200.  Over all 417 compared
  nodes the collaborative model's held-out error was 0.0119 *below* the
  Local model's, its test error 0.0015 *above*: the optimism of scoring a
  candidate on the folds it was chosen on.  Cross-fitted scores alone
  (each fold scored by the candidate chosen on the other folds): held-out
  gap -0.0022 (optimism 0.0134 -> 0.0037), 10 switches, net +1, 0.71208.
  Both changes (cross-fitted, level 0.05 / 139): no switch, 0.71200.
* persolin-computer, seed 0, noise seeds 0 and 1: main switched 2 and 1
  people, each on 5 discordant held-out samples all for the collaborative
  model (p = 1/32, the least evidence a sign test at 0.05 accepts), and
  each switched person lost test samples (net -4 per fit); cross-fitting
  alone kept the same two switches on noise seed 0.  At level 0.05 / 190
  no person of 5-10 samples can switch (2^-10 > 2.6e-4).  The 19 people of
  seed 0 who saw one class keep the collaborative model (no classifier
  fits them), which scored their test samples exactly as Local's constant
  (net 0).
"""

import argparse
import sys
import warnings

import numpy as np
from sklearn.base import clone

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import privacy_utility as pu  # noqa: E402

import skfed._kept_local as kl  # noqa: E402
from skfed import (  # noqa: E402
    DecentralizedBoostingClassifier,
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
)
from skfed.boosting import make_stump_predictors  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402

TESTS = []  # (b, c, won) of every collaboration_wins call of the last fit
HELD = {}  # node -> (Local's, the collaborative model's held-out error rate), last fit
_WINS = kl.collaboration_wins
_CHOOSE = kl.choose_reference


def _recording_wins(own, collab, classification=True, *args, **kwargs):
    won = _WINS(own, collab, classification, *args, **kwargs)
    own, collab = np.asarray(own, float), np.asarray(collab, float)
    TESTS.append((int(np.sum((own > 0) & (collab == 0))),
                  int(np.sum((own == 0) & (collab > 0))), bool(won)))
    return won


def _recording_choose(reference, X, y, collab_err, fold, n_folds, node, *args, **kwargs):
    n_tests = len(TESTS)
    out = _CHOOSE(reference, X, y, collab_err, fold, n_folds, node, *args, **kwargs)
    if len(TESTS) > n_tests:
        b, c, _ = TESTS[-1]
        collab = float(np.mean(collab_err))
        HELD[node] = (collab + (b - c) / len(collab_err), collab)
    return out


kl.collaboration_wins = _recording_wins
kl.choose_reference = _recording_choose


def _estimator(row, data, privacy, seed):
    X, g = data[0], data[4]
    n_nodes = len(np.unique(g))
    if row.startswith("dada"):
        if row == "dada-moons":
            stumps = make_stump_predictors([-2.0, -2.0], [2.0, 2.0], 40)
        else:
            stumps = make_stump_predictors(-np.ones(X.shape[1]), np.ones(X.shape[1]), 14)
        return DecentralizedBoostingClassifier(
            base_predictors=stumps, beta=0.1, mu=100.0, max_iter=100 * n_nodes,
            privacy=privacy, random_state=seed)
    if row.startswith("persolin"):
        return PersonalizedLinearClassifier(max_iter=100 * n_nodes, privacy=privacy,
                                            random_state=seed)
    return FederatedMultiTaskClassifier(privacy=privacy, random_state=seed, kernel="linear")


DATA = {"dada-moons": pu._moons, "persolin-moons": pu._moons,
        "dada-computer": pu._computer, "persolin-computer": pu._computer,
        "mocha-har": pu._har, "mocha-school": pu._school}
LOCAL = {"dada-moons": "moons", "persolin-moons": "moons",
         "dada-computer": "dada-computer", "persolin-computer": "persolin-computer",
         "mocha-har": "har", "mocha-school": "school"}


def one_fit(row, seed, noise_seed, epsilon):
    """Per-node switch decisions and test outcomes of one private fit."""
    data = DATA[row](seed)
    X, X_test, y, y_test, g, g_test = data
    reference = pu.LOCAL_MODELS[LOCAL[row]](seed, X.shape[1])
    privacy = DifferentialPrivacy(epsilon, delta=pu.DELTA, insecure_noise_seed=noise_seed,
                                  local_estimator=reference)
    est = _estimator(row, data, privacy, seed)
    TESTS.clear()
    HELD.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    kept = est.kept_local_models_
    pred = est.predict(X_test, groups=g_test)
    est.kept_local_models_ = np.full(len(kept), None, dtype=object)
    collab_pred = est.predict(X_test, groups=g_test)
    est.kept_local_models_ = kept
    nodes = list(est.nodes_)
    out = {"switched": 0, "gain": 0, "lose": 0, "tie": 0, "net": 0, "n_test": len(y_test),
           "correct": int(np.sum(pred == y_test)), "given": 0, "one_class": 0,
           "one_class_net": 0,
           # held-out and test error rates of every compared node: the Local
           # model's, the collaborative model's, test samples
           "rates": []}
    for k, node in enumerate(nodes):
        test = g_test == node
        train = g == node
        if k in HELD and test.any():
            codes = np.searchsorted(est.classes_, y[train])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                local = clone(reference).fit(X[train], codes)
            local_err = float(np.mean(est.classes_[local.predict(X_test[test])] != y_test[test]))
            collab_err = float(np.mean(collab_pred[test] != y_test[test]))
            out["rates"].append((*HELD[k], local_err, collab_err, int(test.sum())))
        if kept[k] is not None:
            local_pred = est.classes_[kept[k].predict(X_test[test])] if test.any() else []
            out["given"] += int(np.sum(np.asarray(local_pred) == y_test[test]))
            continue
        if not test.any():
            continue
        if np.unique(y[train]).size < 2:
            # one class: Local predicts it (LocalEstimator's constant)
            const_right = int(np.sum(y_test[test] == y[train][0]))
            collab_right = int(np.sum(collab_pred[test] == y_test[test]))
            out["given"] += const_right
            out["one_class"] += 1
            out["one_class_net"] += collab_right - const_right
            continue
        codes = np.searchsorted(est.classes_, y[train])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            local = clone(reference).fit(X[train], codes)
        local_right = int(np.sum(est.classes_[local.predict(X_test[test])] == y_test[test]))
        collab_right = int(np.sum(collab_pred[test] == y_test[test]))
        out["given"] += local_right
        out["switched"] += 1
        diff = collab_right - local_right
        out["gain" if diff > 0 else "lose" if diff < 0 else "tie"] += 1
        out["net"] += diff
    out["tests"] = [(b, c) for b, c, won in TESTS if won]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", default=["persolin-computer", "mocha-school"],
                        choices=sorted(DATA))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--noise-seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--epsilon", type=float, default=3.0)
    args = parser.parse_args(argv)
    print(f"package: {kl.__file__}")
    for row in args.rows:
        total = {"switched": 0, "gain": 0, "lose": 0, "tie": 0, "net": 0, "one_class": 0,
                 "one_class_net": 0}
        acc, given, rates = [], [], []
        for seed in args.seeds:
            for noise in args.noise_seeds:
                r = one_fit(row, seed, noise, args.epsilon)
                for key in total:
                    total[key] += r[key]
                rates += r["rates"]
                acc.append(r["correct"] / r["n_test"])
                given.append(r["given"] / r["n_test"])
                print(f"{row:18s} seed {seed} noise {noise}: switched {r['switched']:3d} "
                      f"gain {r['gain']:3d} lose {r['lose']:3d} tie {r['tie']:3d} "
                      f"net {r['net']:+4d} one-class {r['one_class']} "
                      f"net {r['one_class_net']:+d}  acc {acc[-1]:.5f} given {given[-1]:.5f}  "
                      f"held-out (b, c) of switches {r['tests'][:8]}", flush=True)
        print(f"{row:18s} total: switched {total['switched']} gain {total['gain']} "
              f"lose {total['lose']} tie {total['tie']} net {total['net']:+d}; one-class "
              f"nodes {total['one_class']} net {total['one_class_net']:+d}; "
              f"mean acc {np.mean(acc):.5f} given {np.mean(given):.5f}", flush=True)
        if rates:
            r = np.array(rates)
            w = r[:, 4] / r[:, 4].sum()  # test-sample weights
            print(f"{row:18s} {len(r)} compared nodes, error rates (held-out / test, "
                  f"test-sample weighted): Local {w @ r[:, 0]:.4f} / {w @ r[:, 2]:.4f}, "
                  f"collaborative {w @ r[:, 1]:.4f} / {w @ r[:, 3]:.4f}; held-out "
                  f"collaborative minus Local {w @ (r[:, 1] - r[:, 0]):+.4f}, test "
                  f"{w @ (r[:, 3] - r[:, 2]):+.4f}", flush=True)


if __name__ == "__main__":
    main()
