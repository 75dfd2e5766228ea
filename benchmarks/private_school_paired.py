"""School at epsilon 3: the private MOCHA fit against Local, paired per school.

``privacy_utility.py``'s mocha-school row at ``epsilon = 3`` (``--kept
default``) scores a little under Local (logistic regression on every
school, the best Local strategy on School).  This script pairs the two on
the same test samples: per seed (School's official split ``seed + 1``) and
school, the number of test samples each gets right; the difference of the
pooled accuracies and its standard error with the seed x school pairs as
clusters (``sqrt(n / (n - 1) sum_c (d_c - m_c D / N)^2) / N``: ``d_c`` the
cluster's difference in correct predictions, ``m_c`` its test samples, ``D``
and ``N`` their totals).  Also by the Local model each school keeps
(``kept_local_models_``; the class vote elects "no fixed class" on School,
so each school follows its own one-standard-error rule).  The privacy
noise is fresh at every run.

Command::

    OPENBLAS_NUM_THREADS=1 python benchmarks/private_school_paired.py --seeds 0 1 2 3 4 5

Measured 28 November 2026 (privacy12; one run, 3,890 test samples a seed,
about 28 a school):

=========  =======  ========  =====================  ========
seeds      private  Local LR  difference (samples)   paired SE
=========  =======  ========  =====================  ========
0 1 2      0.71131  0.71200   -0.00069 (-8)           0.00076
3 4 5      0.70728  0.70694   +0.00034 (+4)           0.00042
0 .. 5     0.70930  0.70947   -0.00017 (-4)           0.00043
=========  =======  ========  =====================  ========

By kept model (seed x school pairs, 6 seeds): logistic regression 762
(difference 0: the same model as Local), LinearSVC 55 (+1 sample),
the collaborative model 8 (+1), the rbf model on random features 9 (-6).
The gap is 0.4 of its standard error over the six seeds (0.9 over seeds
0-2): within the test noise; the schools that lose are the few whose own
rule keeps the rbf model.

Re-run with the class vote's pooled test (privacy15, 29 November 2026,
``--seeds 0 1 2 3 4 5``): the same numbers, 0.70930 against 0.70947 (-4
samples, paired SE 0.00043), the same kept models: the test fixed
LinearSVC on none of the six seeds (on School LinearSVC is not better than
the logistic regression: seed 0's pooled z = 0.56 before noise), so the
gap stays; fixing the logistic regression would close it, and the pooled
evidence for it is not there either (seed 0, the nodes' clipped
t-statistics of held-out error differences: rbf - logistic regression
z = 1.37, LinearSVC - logistic regression z = -0.56: LinearSVC a little
better).

Two changes of the kept model under "no fixed class" tried and NOT adopted
(seeds 0-5 here; the held-out rotated-moons families of
``private_kept_local.py`` at epsilon 3, seeds 0-2, each family's fit with
the estimator's default vote, by a script not kept):

* each node keeps its own ballot's class (``class_ballot``) instead of its
  one-standard-error rule: School -16 samples (0.70878; 45 schools keep
  the rbf model and lose 31); persolin-computer 0.6546 / 0.6547 at
  epsilon 3 / 10 (the unchanged rule's run of the same hour 0.6540 /
  0.6568).
* the rbf model kept only when it beats the node's logistic regression by
  the sign test at 0.05 / n_nodes (``collaboration_wins``): School +2
  samples (0.70955 against Local's 0.70947: the 9 rbf schools keep the
  logistic regression), persolin-computer 0.6547 / 0.6533; but the
  label-noise family loses 5 points (MOCHA 0.807 -> 0.758, Perso-lin
  0.813 -> 0.754: its nodes need the rbf model and elect "no fixed
  class"); high-dim 0.720 -> 0.725 (MOCHA), 0.721 -> 0.723 (Perso-lin),
  noisy-features and many-small unchanged.
"""

import argparse
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from skfed import FederatedMultiTaskClassifier
from skfed.baselines import LocalEstimator
from skfed.datasets import load_school
from skfed.privacy import DifferentialPrivacy


def paired(seeds, epsilon=3.0):
    """Per (seed, school): test samples, correct (private), correct (Local), kept model."""
    rows = []
    for seed in seeds:
        X, Xt, y, yt, g, gt = load_school(task="classification", split=seed + 1,
                                          return_X_y=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = FederatedMultiTaskClassifier(
                privacy=DifferentialPrivacy(epsilon, delta=1e-6), random_state=seed,
                kernel="linear").fit(X, y, groups=g)
            local = LocalEstimator(LogisticRegression(max_iter=1000)).fit(X, y, groups=g)
        right = est.predict(Xt, groups=gt) == yt
        right_local = local.predict(Xt, groups=gt) == yt
        kept = {}
        for node, model in zip(est.nodes_.tolist(), est.kept_local_models_):
            kept[node] = ("collaborative" if model is None else
                          "rff-LinearSVC" if hasattr(model, "steps") else type(model).__name__)
        for node in np.unique(gt).tolist():
            s = gt == node
            rows.append((seed, int(s.sum()), int(right[s].sum()), int(right_local[s].sum()),
                         kept.get(node, "collaborative")))
    return rows


def summary(rows):
    m = np.array([r[1] for r in rows], dtype=float)
    d = np.array([r[2] - r[3] for r in rows], dtype=float)
    N, D, n = m.sum(), d.sum(), len(rows)
    se = np.sqrt(n / (n - 1) * np.sum((d - m * D / N) ** 2)) / N
    return sum(r[2] for r in rows) / N, sum(r[3] for r in rows) / N, D, se


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--epsilon", type=float, default=3.0)
    args = parser.parse_args(argv)
    rows = paired(args.seeds, args.epsilon)
    private, local, D, se = summary(rows)
    print(f"private {private:.5f}  Local LR {local:.5f}  difference {private - local:+.5f} "
          f"({int(D):+d} samples)  paired SE {se:.5f}")
    for name in sorted({r[4] for r in rows}):
        sub = [r for r in rows if r[4] == name]
        print(f"  kept {name:15s} {len(sub):4d} pairs, difference "
              f"{sum(r[2] - r[3] for r in sub):+d} samples")


if __name__ == "__main__":
    main()
