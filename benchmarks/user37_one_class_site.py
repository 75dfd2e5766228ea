"""A site that saw one class: what its model predicts on its own rows and on others'.

nodes.rst says a class absent from a node's training samples is rarely
predicted at that node.  A first-time user (user37) with one site holding
a single class checked what that site's model predicts on the *other*
sites' rows (a shift between the site's training and later data): the 8
sites of ``user37_small_federation_join.classification_sites`` (3 classes,
a feature shift per site), the 8th keeping only its class-2 rows; every
estimator at its defaults fitted on all sites; then the 8th site's model
predicts its own training rows and the 7 other sites' rows.

    python benchmarks/user37_one_class_site.py --seeds 0 1 2 3 4

Results (2026-11-30, main 92a0d0d4, user37)
-------------------------------------------
Per seed 0-4: share of the site's own rows given its class, share of the
other sites' rows given an absent class, accuracy on the other sites'
rows::

    MOCHA      own 1.00 1.00 1.00 1.00 1.00  absent 0.50 0.48 0.48 0.56 0.64  accuracy 0.78 0.76 0.73 0.77 0.88
    Perso-lin  own 0.88 0.71 0.62 0.93 0.96  absent 0.60 0.62 0.60 0.62 0.67  accuracy 0.83 0.84 0.81 0.81 0.89
    Dada       own 1.00 1.00 1.00 1.00 1.00  absent 0.16 0.00 0.01 0.00 0.14  accuracy 0.49 0.33 0.35 0.34 0.45
    Local      own 1.00 1.00 1.00 1.00 1.00  absent 0.00 0.00 0.00 0.00 0.00  accuracy 0.34 0.33 0.34 0.34 0.34

Conclusion: "rarely predicted at that node" holds on the node's own rows
(MOCHA, Dada and Local give every one of them its class; Perso-lin is the
documented exception), not on rows unlike them: MOCHA's default model,
whose shared part saw every class, predicts an absent class on 48-64 % of
the other sites' rows, Perso-lin on 60-67 %, Dada on 0-16 % and Local
never.
"""

import argparse
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from user37_small_federation_join import classification_sites

from skfed import LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier

ESTIMATORS = {
    "MOCHA": lambda: FederatedMultiTaskClassifier(random_state=0),
    "Perso-lin": lambda: PersonalizedLinearClassifier(random_state=0),
    "Dada": lambda: DecentralizedBoostingClassifier(random_state=0),
    "Local": lambda: LocalEstimator(LogisticRegression()),
}


def run(name, seed, kept_class=2):
    """(own rows given its class, others' rows given an absent class, accuracy on others')."""
    X, y, g = classification_sites(seed)
    site = g == g.max()
    keep = ~site | (y == kept_class)
    est = ESTIMATORS[name]().fit(X[keep], y[keep], groups=g[keep])
    own = est.predict(X[keep & site], groups=g[keep & site])
    other = est.predict(X[~site], groups=np.full(int((~site).sum()), g.max()))
    return (float(np.mean(own == kept_class)), float(np.mean(other != kept_class)),
            float(np.mean(other == y[~site])))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    for name in ESTIMATORS:
        out = np.array([run(name, seed) for seed in args.seeds])
        print(f"{name:<10} own {' '.join(f'{v:.2f}' for v in out[:, 0])}  "
              f"absent {' '.join(f'{v:.2f}' for v in out[:, 1])}  "
              f"accuracy {' '.join(f'{v:.2f}' for v in out[:, 2])}")


if __name__ == "__main__":
    main()
