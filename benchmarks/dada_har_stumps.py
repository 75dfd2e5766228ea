"""Dada's HAR sitting ceiling: stumps per voted feature at a large radius.

Usage::

    python benchmarks/dada_har_stumps.py SEED [PER_FEATURE,...] [BETA,...]

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

Results: see the end of this docstring (filled in by the run).
"""
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from dada_har_ceiling import split
from skfed.boosting import DecentralizedBoostingClassifier


def main(seed, per_feature, betas):
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
                per * voted, beta=beta, mu=9.0 / beta, max_iter=1000,
                random_state=seed).fit(Xf, yf, groups=one_f)
            acc = np.mean(est.predict(Xt, groups=one_t) == yt)
            nonzero = int(np.count_nonzero(est.coef_))
            print(f"seed {seed}  beta {beta:5.1f}  stumps {est.n_estimators_:5d} "
                  f"({per}/feature, {voted} voted)  acc {100 * acc:6.2f}  non-zero {nonzero:4d}"
                  f"  CPU {time.process_time() - start:6.1f} s", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    seed = int(sys.argv[1])
    per = [int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "2,4,8").split(",")]
    betas = [float(v) for v in (sys.argv[3] if len(sys.argv) > 3 else "10,30").split(",")]
    with threadpool_limits(1):
        main(seed, per, betas)
