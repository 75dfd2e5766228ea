"""One feature in other units: what it costs each estimator, and what scaling gives back.

The numbers of the "Standardize the features" section of
doc/user_guide/nodes.rst.  Ten related linear tasks (node ``t``'s labels
``sign(x . (w + 0.3 u_t))``, ``w``, ``u_t`` and the features N(0, 1)), 10
features, 100 samples a node split 50/50 (the data of that page's doctest);
then feature 0 multiplied by 1,000; then the same data with a
``StandardScaler`` in a pipeline (metadata routing on).  Per estimator at its
defaults (``random_state=0``): mean per-node test accuracy, rounds
(``n_iter_``), bytes sent and whether the fit raised a
``ConvergenceWarning``::

    python benchmarks/nodes_feature_scale.py

Measured 2026-11-29 (guide16, main at 510fb8a, one BLAS thread)::

    estimator       data             accuracy  rounds      bytes converged
    mocha           unit scale          0.934       6      5,020 yes
    mocha           feature x 1000      0.894     290    218,860 no
    mocha           x 1000, scaled      0.932       6      5,020 yes
    perso-lin       unit scale          0.904    1000    828,416 yes
    perso-lin       feature x 1000      0.920    1000    805,016 yes
    perso-lin       x 1000, scaled      0.914    1000    847,552 yes
    kernel-sgd      unit scale          0.898    1504    429,640 yes
    kernel-sgd      feature x 1000      0.538    1504     44,676 yes
    kernel-sgd      x 1000, scaled      0.900    1504    447,352 yes

Re-measured 2026-11-29 (user32, main at 8354eb6, same command, fresh venv
and the project venv alike): MOCHA and kernel-SGD accuracies unchanged;
Perso-lin ``feature x 1000`` 0.912 (805,016 -> 815,084 bytes), its other
rows' accuracies unchanged, bytes 838,484 / 857,620; kernel-SGD bytes
426,526 / 44,676 / 439,766 (which commit since 510fb8a moved them was
not traced).

Unscaled, MOCHA stops unconverged after 290 rounds instead of 6, at 44 times
the bytes and 4 points lower; kernel SGD loses 36 points; Perso-lin's local
solve is preconditioned feature by feature and keeps its accuracy.

History
-------

Moved from doc/user_guide/nodes.rst on 29 November 2026 (guide16): the page's
earlier numbers for MOCHA, measured before the shared model's present
messages and stopping rule (no command was given)::

    MOCHA takes 1,000 rounds instead of 8 and 140 times the bytes;
    standardized in a pipeline [...] MOCHA 0.946.  Perso-lin's local solve is
    preconditioned feature by feature, so it keeps 0.92 there (0.91 at unit
    scale).
"""

import warnings

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed import (
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
)


def make_data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(10), 100)
    X = rng.randn(1000, 10)
    W = rng.randn(10) + 0.3 * rng.randn(10, 10)
    y = ((X * W[groups]).sum(axis=1) > 0).astype(int)
    return X, y, groups, np.tile([True, False], 500)


def run(make_est, X, y, groups, train, scaled):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        if scaled:
            with sklearn.config_context(enable_metadata_routing=True):
                model = make_pipeline(StandardScaler(), make_est())
                model.fit(X[train], y[train], groups=groups[train])
                score = model.score(X[~train], y[~train], groups=groups[~train])
            est = model[-1]
        else:
            est = make_est().fit(X[train], y[train], groups=groups[train])
            score = est.score(X[~train], y[~train], groups=groups[~train])
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return score, getattr(est, "n_iter_", None), est.n_bytes_sent_, converged


def main():
    X, y, groups, train = make_data()
    X_big = X.copy()
    X_big[:, 0] *= 1000
    estimators = {
        "mocha": lambda: FederatedMultiTaskClassifier(random_state=0),
        "perso-lin": lambda: PersonalizedLinearClassifier(random_state=0),
        "kernel-sgd": lambda: DecentralizedKernelSGDClassifier(random_state=0),
    }
    cases = [("unit scale", X, False), ("feature x 1000", X_big, False),
             ("x 1000, scaled", X_big, True)]
    print(f"{'estimator':15} {'data':16} {'accuracy':>8} {'rounds':>7} {'bytes':>10} converged")
    for name, make_est in estimators.items():
        for label, data, scaled in cases:
            score, rounds, n_bytes, converged = run(make_est, data, y, groups, train, scaled)
            rounds = "-" if rounds is None else str(rounds)
            print(f"{name:15} {label:16} {score:8.3f} {rounds:>7} {n_bytes:>10,} "
                  f"{'yes' if converged else 'no'}")


if __name__ == "__main__":
    main()
