"""Dada's HAR sitting ceiling: stumps per voted feature at a large radius.

Usage::

    python benchmarks/dada_har_stumps.py SEED [PER_FEATURE,...] [BETA,...] [STEPS]
    python benchmarks/dada_har_stumps.py SEED linear|linear+stumps BETA,...
    python benchmarks/dada_har_stumps.py joins N_ESTIMATORS BETA --datasets har \
        --seeds 0,1,2 --ks 5,10,20

On ``new_nodes.py``'s HAR sitting split of the seed (80 % of the people
fitted; the newcomers' test samples at ``k`` = 5, as
``dada_har_ceiling.py``), ``DecentralizedBoostingClassifier`` on ONE node
holding every fitted person's samples (no graph, no personalization: the
best any Dada model built from this dictionary can do on these people),
``n_estimators = PER_FEATURE x n_voted`` (the vote's features of the
default fit at that node; ``"auto"`` is 2 per feature), ``beta`` as given,
``mu = 9 / beta``, 1,000 Frank-Wolfe steps; accuracy % on the newcomers'
test samples and the number of stumps of non-zero weight, against pooled
``LogisticRegression()`` (the Global column of the HAR rows).

``dada_har_ceiling.py`` and ``dada_beta_radius.py`` measured 2 stumps a
feature at ``beta`` 3 / 10 / 30 and 4 a feature (2,000 stumps) at ``beta``
3 only; this asks whether a denser dictionary at the radius HAR wants
(``beta="auto"`` picks 10) lifts the ceiling to Global.

Results (dada28, 2026-11-29, 1,000 steps, one BLAS thread, load 8-13),
accuracy % on seeds 0 / 1 / 2 and their mean (one node keeps all 561
features: the vote needs several voters)::

    pooled LogisticRegression()         99.41  95.42  98.63   97.82
    beta 10, 2 stumps / feature         98.08  94.13  98.26   96.82
    beta 10, 4 stumps / feature         98.82  93.58  98.55   96.98
    beta 10, 8 stumps / feature         98.97  94.40  98.77   97.38
    beta 30, 2 stumps / feature         98.23  94.88  97.90   97.00
    beta 30, 4 stumps / feature         98.74  94.13  98.77   97.21
    beta 30, 8 stumps / feature         99.19  94.19  99.13   97.50
    the same, 3,000 steps               99.19  93.78  99.13   97.37
    seed 0, linear base predictors h(x) = x_j: beta 10 / 30 / 100: 97.12 /
    98.89 / 98.74; with 2 stumps per feature added (1,683 base
    predictors), beta 30: 98.23 (Frank-Wolfe picks only stumps)

(``python benchmarks/dada_har_stumps.py S 2,4,8 10``, then ``... 30``,
``S`` = 0, 1, 2; ``python benchmarks/dada_har_stumps.py S 8 30 3000``;
``python benchmarks/dada_har_stumps.py 0 linear 10,30,100``.)
No dictionary and radius tried lifts Dada's best model of the pooled
fitted people to pooled ``LogisticRegression``: 0.3-0.5 under on
average at 8 stumps a feature (seed 1: 0.5-1.8 under at every setting).
A newcomer's join, a personal model from its ``k`` samples and its
neighbours' models, sits under that pooled model, so HAR sitting's three
Dada rows (goal: join >= Global) are bounded by the model class, not by
the join.  Denser stumps at a larger radius in the federated fit make
the joins worse (``python benchmarks/dada_har_stumps.py joins 2100 30
--datasets har --seeds 0,1,2 --ks 5,10,20``: 2,100 stumps, about 4 per
voted feature, beta 30, mu 0.3; ``joins 2100 10``: beta 10, mu 0.9),
join / refit at k = 5 / 10 / 20 (bytes and CPU of a join 0.6-1.1 % of a
refit's)::

    beta="auto" (10), 2 / feature  95.8 96.4 96.3  (growing.rst, Limits)
    beta 10, 4 / feature           93.1 93.6 96.5 / 92.1 93.7 95.2
    beta 30, 4 / feature           93.0 92.4 95.4 / 90.8 93.7 94.4
    Global LogisticRegression      97.8 97.9 97.9
"""
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from dada_har_ceiling import split
from skfed.boosting import DecentralizedBoostingClassifier, make_stump_predictors


class Feature:
    """The base predictor ``h(x) = x_j`` (HAR's features lie in [-1, 1], a
    public range: the data set is distributed normalized to it)."""

    def __init__(self, j):
        self.j = j

    def __call__(self, X):
        return np.asarray(X)[:, self.j]


def linear(seed, betas, with_stumps):
    """One node, the 561 features themselves as base predictors (a linear
    model in the l1 ball of radius beta), with 2 public-range stumps per
    feature too when ``with_stumps``."""
    X, y, g, fit_rows, _, test = split(seed, 5)
    assert X.min() >= -1 and X.max() <= 1
    Xf, yf, Xt, yt = X[fit_rows], y[fit_rows], X[test], y[test]
    one_f, one_t = np.zeros(len(yf), dtype=int), np.zeros(len(yt), dtype=int)
    base = [Feature(j) for j in range(X.shape[1])]
    if with_stumps:
        base += make_stump_predictors(-np.ones(X.shape[1]), np.ones(X.shape[1]),
                                      2 * X.shape[1])
    for beta in betas:
        start = time.process_time()
        est = DecentralizedBoostingClassifier(base_predictors=base, beta=beta, mu=9.0 / beta,
                                              max_iter=1000, random_state=seed).fit(
            Xf, yf, groups=one_f)
        acc = np.mean(est.predict(Xt, groups=one_t) == yt)
        print(f"seed {seed}  beta {beta:5.1f}  linear{' + stumps' if with_stumps else ''} "
              f"({len(base)} base)  acc {100 * acc:6.2f}  non-zero "
              f"{int(np.count_nonzero(est.coef_)):4d}  CPU {time.process_time() - start:6.1f} s",
              flush=True)


def main(seed, per_feature, betas, steps=1000):
    X, y, g, fit_rows, _, test = split(seed, 5)
    Xf, yf, Xt, yt = X[fit_rows], y[fit_rows], X[test], y[test]
    one_f, one_t = np.zeros(len(yf), dtype=int), np.zeros(len(yt), dtype=int)
    logreg = LogisticRegression(max_iter=1000).fit(Xf, yf).score(Xt, yt)
    print(f"seed {seed}  LogisticRegression {100 * logreg:6.2f}", flush=True)
    # The features that get stumps (the vote does not depend on n_estimators).
    voted = int(DecentralizedBoostingClassifier(max_iter=1, random_state=seed).fit(
        Xf, yf, groups=one_f).selected_features_.sum())
    for beta in betas:
        for per in per_feature:
            start = time.process_time()
            est = DecentralizedBoostingClassifier(
                per * voted, beta=beta, mu=9.0 / beta, max_iter=steps,
                random_state=seed).fit(Xf, yf, groups=one_f)
            acc = np.mean(est.predict(Xt, groups=one_t) == yt)
            nonzero = int(np.count_nonzero(est.coef_))
            print(f"seed {seed}  steps {steps}  beta {beta:5.1f}  stumps {est.n_estimators_:5d} "
                  f"({per}/feature, {voted} voted)  acc {100 * acc:6.2f}  non-zero {nonzero:4d}"
                  f"  CPU {time.process_time() - start:6.1f} s", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    if sys.argv[1] == "joins":
        # new_nodes.py's Dada rows with n_estimators, beta (mu = 9 / beta)
        # replaced in this process: joins PER_FEATURE_COUNT BETA NEW_NODES_ARGS
        import new_nodes

        count, beta = int(sys.argv[2]), float(sys.argv[3])
        DecentralizedBoostingClassifier.__init__.__defaults__ = (count,)
        DecentralizedBoostingClassifier.__init__.__kwdefaults__.update(beta=beta, mu=9 / beta)
        sys.argv = ["new_nodes.py", "--families", "dada", *sys.argv[4:]]
        sys.exit(new_nodes.main())
    seed = int(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2].startswith("linear"):
        with threadpool_limits(1):
            linear(seed, [float(v) for v in sys.argv[3].split(",")],
                   sys.argv[2] == "linear+stumps")
        sys.exit(0)
    per = [int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "2,4,8").split(",")]
    betas = [float(v) for v in (sys.argv[3] if len(sys.argv) > 3 else "10,30").split(",")]
    with threadpool_limits(1):
        main(seed, per, betas, int(sys.argv[4]) if len(sys.argv) > 4 else 1000)
