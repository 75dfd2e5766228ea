"""Utility against the privacy budget: test accuracy at epsilon 0.3 .. 10, Local and off.

One table, one command.  Every row keeps the method's hyper-parameters fixed
and changes only ``privacy=DifferentialPrivacy(epsilon, delta=1e-6)``
("off": ``privacy=None``); beside them ``local`` is each node alone (epsilon
0: nothing is sent), the baseline a private fit must beat for collaborating
under privacy to be worth anything.  Accuracies are pooled over the test
samples of all nodes, averaged over ``--seeds`` (default 0 1 2).  All privacy
noise comes from the secure source (fresh OS randomness): reruns differ.

* ``dada-moons``: Dada on clustered rotated moons (20 nodes in 4 clusters,
  100..200 training samples per node, 2 features), 40 stumps on the public
  range [-2, 2]^2 (:func:`skfed.boosting.make_stump_predictors`), beta=0.1,
  mu=100 (the noise of a choice grows like ``e^(2 beta) / m_k``: the budget
  asks for a small beta), 100 iterations per node.  Local: AdaBoost (50
  stumps) per node.
* ``dada-computer``: Dada on Computer buyers (Dada's split: 190 people, 5..10
  training computers each); the attributes are +-1, so the public range is
  [-1, 1] and one stump per attribute sits at 0.  Same beta and mu.  Local:
  AdaBoost per node.
* ``persolin-moons``, ``persolin-computer``: Perso-lin (defaults,
  ``clip_norm=1``) on the same data.  Local: logistic regression per node.
* ``support-300``, ``support-3000``: one-shot support recovery, rate of exact
  recovery of the support (d=20, s=3, 60 samples per client) over the seeds.
  Rows of the support-recovery owner (Local: left empty here).
* ``mocha-har``: MOCHA with 100 random Fourier features (``gamma="auto"``)
  on HAR sitting vs rest (21 people, 75/25 split per person), 20 rounds,
  Omega step every 5 rounds; privacy client level.  Row of the MOCHA owner
  (Local: left empty here); ``mocha-school`` is to be added by its owner.

Usage::

    python benchmarks/privacy_utility.py
    python benchmarks/privacy_utility.py --only dada-moons persolin-moons --seeds 0

It prints one line per (row, column) as it goes, then the table, and a JSON
line of the table at the end.
"""

import argparse
import json
import sys
import time
import warnings

import numpy as np

from skfed import (
    DecentralizedBoostingClassifier,
    FederatedMultiTaskClassifier,
    FederatedSupportRecovery,
    PersonalizedLinearClassifier,
)
from sklearn.ensemble import AdaBoostClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from skfed.baselines import LocalEstimator
from skfed.boosting import make_stump_predictors
from skfed.datasets import (
    load_computer_buyers,
    load_har,
    make_federated_sparse_regression,
    make_rotated_moons,
    train_test_split_per_node,
)
from skfed.privacy import DifferentialPrivacy

EPSILONS = [0.3, 1.0, 3.0, 10.0, None]
LOCAL = "local"
DELTA = 1e-6


def _moons(seed):
    X, X_test, y, y_test, g, g_test, _, _ = make_rotated_moons(
        20, n_clusters=4, n_samples_range=(100, 200), n_features=2, random_state=seed
    )
    return X, X_test, y, y_test, g, g_test


def _computer(seed):
    return load_computer_buyers(
        task="classification", split="dada", random_state=seed, return_X_y=True
    )


def _har(seed):
    X, y, g = load_har(task="sitting", return_X_y=True)
    return train_test_split_per_node(X, y, groups=g, test_size=0.25, random_state=seed)


def _local_adaboost(privacy, seed):
    return LocalEstimator(AdaBoostClassifier(DecisionTreeClassifier(max_depth=1),
                                             n_estimators=50, random_state=seed))


def _local_logistic(privacy, seed):
    return LocalEstimator(LogisticRegression())


def _score(make, data, epsilon, seed, local=None):
    X, X_test, y, y_test, g, g_test = data
    if epsilon == LOCAL:
        if local is None:
            return float("nan")
        make, epsilon = local, None
    privacy = None if epsilon is None else DifferentialPrivacy(epsilon, delta=DELTA)
    est = make(privacy, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    return float(est.score(X_test, y_test, groups=g_test))


def dada(data_of, public_range, n_estimators):
    def run(epsilon, seed):
        data = data_of(seed)
        lo, hi = public_range(data[0])
        stumps = make_stump_predictors(lo, hi, n_estimators)

        def make(privacy, seed):
            n_nodes = len(np.unique(data[4]))
            return DecentralizedBoostingClassifier(
                base_predictors=stumps, beta=0.1, mu=100.0, max_iter=100 * n_nodes,
                privacy=privacy, random_state=seed,
            )

        return _score(make, data, epsilon, seed, _local_adaboost)

    return run


def persolin(data_of):
    def run(epsilon, seed):
        data = data_of(seed)

        def make(privacy, seed):
            n_nodes = len(np.unique(data[4]))
            return PersonalizedLinearClassifier(
                max_iter=100 * n_nodes, privacy=privacy, random_state=seed
            )

        return _score(make, data, epsilon, seed, _local_logistic)

    return run


def support(n_clients):
    def run(epsilon, seed):
        if epsilon == LOCAL:
            return float("nan")  # TODO(support owner): each client alone
        X, y, groups, true_support, _ = make_federated_sparse_regression(
            n_clients=n_clients, n_samples=60, n_features=20, n_informative=3,
            random_state=seed,
        )
        privacy = None if epsilon is None else DifferentialPrivacy(epsilon, delta=DELTA)
        est = FederatedSupportRecovery(privacy=privacy, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, groups=groups)
        return float(np.array_equal(est.support_, true_support))

    return run


def mocha_har(epsilon, seed):
    data = _har(seed)

    def make(privacy, seed):
        return FederatedMultiTaskClassifier(
            approximation="rff", n_components=100, gamma="auto", max_rounds=20,
            omega_update_every=5, privacy=privacy, random_state=seed,
        )

    return _score(make, data, epsilon, seed)


ROWS = {
    "dada-moons": dada(_moons, lambda X: ([-2.0, -2.0], [2.0, 2.0]), 40),
    "dada-computer": dada(_computer, lambda X: (-np.ones(X.shape[1]), np.ones(X.shape[1])),
                          13),
    "persolin-moons": persolin(_moons),
    "persolin-computer": persolin(_computer),
    "support-300": support(300),
    "support-3000": support(3000),
    "mocha-har": mocha_har,
    # TODO(MOCHA owner): "mocha-school", and Local columns of the MOCHA and support rows.
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--only", nargs="+", choices=sorted(ROWS), default=list(ROWS))
    parser.add_argument("--out", default=None, help="also write the table as JSON")
    args = parser.parse_args(argv)
    table = {}
    for name in args.only:
        table[name] = {}
        for epsilon in [LOCAL, *EPSILONS]:
            start = time.perf_counter()
            scores = [ROWS[name](epsilon, seed) for seed in args.seeds]
            key = "off" if epsilon is None else (LOCAL if epsilon == LOCAL else f"{epsilon:g}")
            table[name][key] = float(np.mean(scores))
            print(f"{name:18s} eps={key:>4s} {table[name][key]:.3f} "
                  f"({time.perf_counter() - start:.1f} s)", file=sys.stderr, flush=True)
    keys = [LOCAL] + ["off" if e is None else f"{e:g}" for e in EPSILONS]
    print(f"{'accuracy':18s}" + "".join(
        f"{k if k in ('off', LOCAL) else 'eps=' + k:>10s}" for k in keys))
    for name, row in table.items():
        print(f"{name:18s}" + "".join(f"{row[k]:10.3f}" for k in keys))
    print(json.dumps({"seeds": args.seeds, "delta": DELTA, "table": table}))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump({"seeds": args.seeds, "delta": DELTA, "table": table}, handle, indent=1)


if __name__ == "__main__":
    main()
