"""MOCHA with every feature multiplied by one factor (store34, review34's finding).

The intercept column stays at ``intercept_scaling`` (1) while the features
grow; the dual solvers' steps follow the largest scale.  5 nodes x 50 rows
x 4 features, ``y = [x_0 + 0.3 noise > 0]``, seeds 0-2, defaults
(``max_rounds="auto"``: 1,000), omega "shared" (the default) and "learn";
training accuracy, whether the fit converged (no ConvergenceWarning) and
its rounds.  Command::

    python benchmarks/store34_feature_scale.py

Measured 2026-11-29 (branch store34, one BLAS thread)::

    omega   scale  accuracy (seeds 0-2)   converged  rounds
    shared  1      0.924 0.908 0.932      3/3        7 10 10
    shared  10     0.920 0.908 0.952      3/3        22 17 13
    shared  100    0.920 0.912 0.952      0/3        1000 x3
    shared  1e3    0.916 0.928 0.932      0/3        1000 x3
    shared  1e6    0.896 0.912 0.928      0/3        1000 x3
    shared  1e12   0.520 0.612 0.608      0/3        1000 x3
    learn   1      0.924 0.912 0.936      3/3        6 11 9
    learn   10     0.936 0.908 0.944      3/3        34 39 28
    learn   100    0.928 0.908 0.944      0/3        1000 x3
    learn   1e3    0.904 0.896 0.884      0/3        1000 x3
    learn   1e6    0.880 0.900 0.848      0/3        1000 x3
    learn   1e12   0.396 0.676 0.864      0/3        1000 x3

So the convergence warning names a median feature scale above 100 times
``intercept_scaling`` (skfed/multitask/_validation.py
``feature_scale_note``) and says to standardize.  A scale-invariant solver
would solve another problem (the intercept weight is regularized like the
others, as in LinearSVC), so the fit itself is unchanged.
"""
import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skfed import FederatedMultiTaskClassifier


def data(seed, d=4, m=5, n=50):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(m * n, d))
    y = (X[:, 0] + 0.3 * rng.normal(size=m * n) > 0).astype(int)
    return X, y, np.repeat(np.arange(m), n)


def main(omegas):
    for omega in omegas:
        for scale in [1, 10, 100, 1e3, 1e6, 1e12]:
            accs, conv, rounds = [], 0, []
            for seed in range(3):
                X, y, g = data(seed)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    est = FederatedMultiTaskClassifier(random_state=0, omega=omega).fit(
                        X * scale, y, groups=g)
                accs.append(float(np.mean(est.predict(X * scale, groups=g) == y)))
                rounds.append(est.n_iter_)
                conv += not any(issubclass(w.category, ConvergenceWarning) for w in caught)
            print(f"{omega:7s} {scale:<6g} {' '.join(f'{a:.3f}' for a in accs)}  "
                  f"converged {conv}/3  rounds {rounds}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["shared", "learn"])
