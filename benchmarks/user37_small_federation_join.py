"""Join bytes against a refit's on a small federation (8 sites, one joins).

growing.rst's "When to join" quoted the join's bytes as 0.1-9.3 % of a
refit's, from ``benchmarks/new_nodes.py``'s federations (HAR's 21 people,
Landmine's 29 fields, School's 139 schools, 100 moons nodes: 80 % fitted,
the rest joining).  A first-time user (user37) with 8 sites of their own
found MOCHA's regressor join costing a quarter to nearly half of a refit's
bytes.  This script measures it: 8 sites from scikit-learn's generators,
each with its own feature shift (and for the regression its own
coefficients and offset), 7 fitted, the 8th joining with ``k`` labelled
samples and scored on its other samples; the refit is the same estimator
fitted on the 7 sites plus the newcomer's ``k`` samples.  Features are
standardized on the pooled data first.

    python benchmarks/user37_small_federation_join.py --seeds 0 1 2 3 4 --ks 10

Results (2026-11-30, main 92a0d0d4, user37; one BLAS thread)
------------------------------------------------------------
Means over seeds 0-4, ``k = 10``, the newcomer the 8th site; score R^2
(regressors) or accuracy on the newcomer's held-out samples (70 regression,
80 classification rows); bytes: the join's over the refit's (min-max over
the seeds)::

    estimator                       k  unseen  join   refit  join bytes / refit bytes
    MOCHA regressor                10  0.879   0.960  0.956  0.34 (0.29-0.39)
    MOCHA classifier               10  0.832   0.835  0.790  0.089 (0.07-0.13)
    Perso-lin                      10  0.830   0.835  0.835  0.0014 (0.0013-0.0015)
    online kernel SGD regressor    10  0.851   0.920  0.588  0.016 (0.015-0.016)

Conclusion: each join scores on average at least its refit on the newcomer
(not on every seed: MOCHA's regressor, seed 0, .990 against .995), but on 8
sites MOCHA's join costs 29-39 % of a refit's bytes for the regressor and
7-13 % for the classifier (its rehearsal's cost against a refit of seven
small nodes that converges in a few rounds): growing.rst's 0.1-9.3 % holds
on the table's federations of 21 to 139 nodes, not on every size.
Perso-lin's join (0.13-0.15 %) and the online regressor's (1.5-1.6 %) stay
cheap here.
"""

import argparse
import warnings

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics import accuracy_score, r2_score
from sklearn.preprocessing import StandardScaler

from skfed import DecentralizedKernelSGDRegressor, PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor

N_SITES = 8


def regression_sites(seed, n_per_site=80):
    """8 sites: shared coefficients plus 0.3 x their mean size per site, an offset, a shift."""
    rng = np.random.RandomState(seed)
    X, y, coef = make_regression(n_samples=n_per_site * N_SITES, n_features=12,
                                 n_informative=8, noise=5.0, coef=True, random_state=seed)
    site = np.repeat(np.arange(N_SITES), n_per_site)
    for k in range(N_SITES):
        rows = site == k
        y[rows] += X[rows] @ (rng.randn(12) * 0.3 * np.abs(coef).mean()) + 20 * rng.randn()
        X[rows] += 0.5 * rng.randn(12)
    return StandardScaler().fit_transform(X), y, site


def classification_sites(seed, n_per_site=90):
    """8 sites of a 3-class problem, each with its own feature shift."""
    rng = np.random.RandomState(seed)
    X, y = make_classification(n_samples=n_per_site * N_SITES, n_features=10,
                               n_informative=6, n_redundant=2, n_classes=3,
                               n_clusters_per_class=1, random_state=seed)
    site = np.repeat(np.arange(N_SITES), n_per_site)
    for k in range(N_SITES):
        X[site == k] += 0.6 * rng.randn(10)
    return StandardScaler().fit_transform(X), y, site


ROWS = {
    "MOCHA regressor": (regression_sites, lambda: FederatedMultiTaskRegressor(random_state=0),
                        r2_score),
    "MOCHA classifier": (classification_sites,
                         lambda: FederatedMultiTaskClassifier(random_state=0), accuracy_score),
    "Perso-lin": (classification_sites, lambda: PersonalizedLinearClassifier(random_state=0),
                  accuracy_score),
    "online kernel SGD regressor": (regression_sites,
                                    lambda: DecentralizedKernelSGDRegressor(random_state=0),
                                    r2_score),
}


def run(name, seed, k):
    sites, make, metric = ROWS[name]
    X, y, g = sites(seed)
    new = g == N_SITES - 1
    rows = np.flatnonzero(new)
    np.random.RandomState(seed).shuffle(rows)
    join, test = rows[:k], rows[k:]
    est = make().fit(X[~new], y[~new], groups=g[~new])
    unseen = metric(y[test], est.predict(X[test], groups=g[test]))
    est.add_nodes(X[join], y[join], groups=g[join])
    joined = metric(y[test], est.predict(X[test], groups=g[test]))
    keep = ~new
    keep[join] = True
    refit = make().fit(X[keep], y[keep], groups=g[keep])
    refit_score = metric(y[test], refit.predict(X[test], groups=g[test]))
    return unseen, joined, refit_score, est.join_communication_.total_bytes / refit.n_bytes_sent_


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--ks", type=int, nargs="+", default=[10])
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"{'estimator':<30}{'k':>3}  unseen  join   refit  join bytes / refit bytes")
    for name in args.rows:
        for k in args.ks:
            out = np.array([run(name, seed, k) for seed in args.seeds])
            mean = out.mean(axis=0)
            print(f"{name:<30}{k:>3}  {mean[0]:.3f}   {mean[1]:.3f}  {mean[2]:.3f}  "
                  f"{mean[3]:.2g} ({out[:, 3].min():.2g}-{out[:, 3].max():.2g})")


if __name__ == "__main__":
    main()
