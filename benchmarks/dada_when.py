"""When Dada is the right choice: defaults against Perso-lin, MOCHA and the baselines.

The user guide's "Choosing a method" page rests on this table (issue 33,
probe finding): Dada's, Perso-lin's and MOCHA's defaults
(``FederatedMultiTaskClassifier``) against Global and Local (each the better
of ``LinearSVC``, ``SVC`` and ``LogisticRegression`` at C = 1 on
standardized features, chosen on the test set: an upper bound on the
baselines), with every method's bytes divided by the raw upload
(:func:`skfed.baselines.pooled_data_bytes`), on:

* ``linear-K-n-d``: related linear tasks, node k's labels
  ``sign(x.(w0 + 0.3 u_k) + noise)``, ``u_k`` and the features N(0, 1),
  K nodes of n training samples (200 test samples each), d features;
* ``moons-noisy``: the held-out noisy moons of ``dada_experiments.py``
  (four clusters of nonlinear tasks, 3-14 samples a node, 18 noise features).

Usage::

    python benchmarks/dada_when.py 0 1 2
    python benchmarks/dada_when.py 0 1 2 --methods perso_lin   # one method only

prints one row per case (means over the seeds) and one JSON line.
``--methods`` (comma-separated, from ``dada,perso_lin,mocha``; default all)
re-measures only some methods; the baselines are always run.

Perso-lin re-measured on 2026-11-28 (``0 1 2 --methods perso_lin``), after
its local models became each node's optimum of ``F_k`` instead of 100
plain gradient steps.  Seed 0 (the user guide's ``choosing`` page quotes
seed 0), accuracy % and bytes / raw, old -> new::

    case                 Perso-lin %       bytes / raw
    linear-100-10-10     87.9 -> 88.85     99 -> 101.9
    linear-100-50-10     93.3 -> 93.37     21 -> 23.4
    linear-20-200-20     92.9 -> 93.28     4.4 -> 4.25
    linear-1000-10-20       - -> 89.90       - -> 160.1
    moons-noisy             - -> 56.20       - -> 112.6

Means over seeds 0-2: 89.43 / 93.21 / 92.73 / 90.36 / 57.98 %, bytes
106.0 / 25.4 / 4.43 / 157.4 / 121.8 times the raw upload, beside Global
91.97 / 92.17 / 91.16 / 91.44 / 58.59 and Local 71.25 / 90.46 / 94.79 /
64.21 / 55.45 (the baselines of the same run).

MOCHA re-measured on 2026-11-29 (guide16, main at 510fb8a, ``0 --methods
mocha``), with the shared model's present messages: seed 0, accuracy % and
bytes / raw (Global, Local of the same run)::

    case                 MOCHA %   bytes / raw   Global %   Local %
    linear-100-10-10     92.46     0.81          91.92      71.09
    linear-100-50-10     94.17     0.17          92.14      90.73
    linear-20-200-20     96.05     0.24          91.17      95.30
    linear-1000-10-20    91.35     0.70          90.99      63.98
    moons-noisy          57.01     0.41          51.63      55.95

The accuracies are those quoted before (92.5 / 94.2 / 96.1, 57); the bytes
fell from 1.1 / 0.56 / 0.45 of the raw upload.

History
-------

Moved from doc/user_guide/choosing.rst on 29 November 2026 (guide16), where
they were superseded by the kernel graph signal and the current defaults (the
guide now quotes doc/user_guide/boosting.rst: about 190 times the raw upload
on the noisy moons)::

    Each message is tiny, but there are many: at the defaults a fit sends
    about 210 times the raw upload on these nodes, most of it in the 100
    re-learnings of the graph (``graph_update_every=None``, the graph learned
    once: 22 times the raw upload on related linear tasks of 100 nodes x 10
    samples, where accuracy goes from 68.5 to 70.1 %, but on the noisy moons
    73.4 % instead of 75.5 % and 57 % of the graph's weight inside the
    clusters instead of 73 %).

    Perso-lin's numbers re-measured with ``--methods perso_lin``.
"""

import json
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from skfed import FederatedMultiTaskClassifier, PersonalizedLinearClassifier
from skfed.baselines import LocalEstimator, pooled_data_bytes
from skfed.boosting import DecentralizedBoostingClassifier

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from dada_experiments import moons_family  # noqa: E402


def related_linear(K, n, d, seed, noise=0.3, n_test=200):
    rng = np.random.RandomState(seed)
    w0 = rng.normal(size=d)
    W = w0 + 0.3 * rng.normal(size=(K, d))

    def draw(m):
        g = np.repeat(np.arange(K), m)
        X = rng.normal(size=(g.size, d))
        y = ((X * W[g]).sum(axis=1) + noise * rng.normal(size=g.size) > 0).astype(int)
        return X, y, g

    X, y, g = draw(n)
    Xt, yt, gt = draw(n_test)
    return X, Xt, y, yt, g, gt


def baselines(X, y, g, Xt, yt, gt, seed):
    kinds = {"linearsvc": lambda: LinearSVC(max_iter=20000, random_state=seed),
             "svc": lambda: SVC(random_state=seed), "logistic": lambda: LogisticRegression(max_iter=5000)}
    best_global, best_local = 0.0, 0.0
    for make in kinds.values():
        glob = make_pipeline(StandardScaler(), make()).fit(X, y)
        best_global = max(best_global, glob.score(Xt, yt))
        loc = LocalEstimator(make_pipeline(StandardScaler(), make())).fit(X, y, groups=g)
        best_local = max(best_local, loc.score(Xt, yt, groups=gt))
    return 100 * best_global, 100 * best_local


METHODS = ("dada", "perso_lin", "mocha")


def one_case(name, seed, methods=METHODS):
    if name.startswith("linear"):
        _, K, n, d = name.split("-")
        X, Xt, y, yt, g, gt = related_linear(int(K), int(n), int(d), seed)
        n_estimators = 2 * X.shape[1]
    else:
        X, Xt, y, yt, g, gt, _, _ = moons_family("noisy", seed)
        n_estimators = 200
    raw = pooled_data_bytes(X, y, groups=g)
    row = {"case": name, "seed": seed}
    row["global"], row["local"] = baselines(X, y, g, Xt, yt, gt, seed)
    makers = {
        "dada": lambda: DecentralizedBoostingClassifier(n_estimators, random_state=seed),
        "perso_lin": lambda: PersonalizedLinearClassifier(random_state=seed),
        "mocha": lambda: FederatedMultiTaskClassifier(random_state=seed),
    }
    for key in methods:
        model = makers[key]()
        start = time.process_time()
        model.fit(X, y, groups=g)
        row[key] = 100 * model.score(Xt, yt, groups=gt)
        row[f"{key}_bytes_per_raw"] = model.n_bytes_sent_ / raw
        row[f"{key}_cpu"] = time.process_time() - start
    return row


CASES = ("linear-100-10-10", "linear-100-50-10", "linear-20-200-20", "linear-1000-10-20",
         "moons-noisy")


def main(argv):
    warnings.simplefilter("ignore")
    argv = list(argv)
    methods = METHODS
    if "--methods" in argv:
        at = argv.index("--methods")
        if at + 1 >= len(argv):
            raise SystemExit("--methods needs a value, e.g. --methods perso_lin")
        methods = tuple(argv[at + 1].split(","))
        unknown = sorted(set(methods) - set(METHODS))
        if unknown:
            raise SystemExit(f"--methods: unknown {unknown}; choose from {list(METHODS)}")
        del argv[at:at + 2]
    seeds = [int(s) for s in argv] or [0]
    rows = []
    keys = ("global", "local", *methods, *(f"{m}_bytes_per_raw" for m in methods))
    print("case".ljust(20) + "".join(f"{k[:14]:>15s}" for k in keys))
    for name in CASES:
        mine = [one_case(name, s, methods) for s in seeds]
        rows.extend(mine)
        print(name.ljust(20) + "".join(
            f"{np.mean([r[k] for r in mine]):15.2f}" for k in keys), flush=True)
    print(json.dumps(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
