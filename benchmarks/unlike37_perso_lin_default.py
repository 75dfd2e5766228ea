"""An opposite-task newcomer through Perso-lin's default joins, guard on / off.

Eight fitted nodes of 40 rows (3 features).  ``posterior``: every node has
``y = [x_0 > 0]``; the feature-mean gate closes and newcomers take the
posterior join (:mod:`skfed.boosting._perso_lin_posterior`).
``features``: nodes 0-3 have ``x_1`` shifted by +3 and that rule, nodes
4-7 ``x_1`` shifted by -3 and the rule reversed; the gate opens and
newcomers take the feature-mean join (:mod:`skfed._mean_neighbours`).  One
newcomer of ``n`` rows (20 or 100; in the first cluster for ``features``)
with ``y = [x_0 <= 0]``; accuracy on 200 fresh rows of its task.  Per
setting (``PersonalizedLinearClassifier(random_state=0)``): the join with
the guard of :mod:`skfed._graph_join_unlike` (a flagged newcomer fits
alone), with its test switched off (main's join), a refit with the
newcomer, and Local (the better of ``LogisticRegression()`` and ``SVC()``
on its rows, by the mean).  (review36's three-node case,
``benchmarks/unlike36_opposite.py``, takes Perso-lin's graph join: 6
fitted nodes or fewer run no gate.)

Usage: ``python benchmarks/unlike37_perso_lin_default.py --seeds 0,1,2,3,4,5,6,7,8 --rows 20,100``.

Results (2026-11-30, branch unlike37 from main b007bba7 (table identity re-run after merging main c49b3b87), unlike37; the
command above, 3 s; mean [min-max] over seeds 0-8)::

    posterior rows  20: Local 0.887  on 0.893 [0.800-0.975]  off 0.038 [0.025-0.055]  refit 0.019 [0.005-0.035]
    posterior rows 100: Local 0.977  on 0.977 [0.970-0.985]  off 0.041 [0.020-0.070]  refit 0.019 [0.010-0.025]
    features  rows  20: Local 0.887  on 0.893 [0.800-0.975]  off 0.051 [0.015-0.135]  refit 0.972 [0.935-1.000]
    features  rows 100: Local 0.977  on 0.977 [0.970-0.985]  off 0.049 [0.010-0.115]  refit 0.984 [0.965-0.995]

Conclusion: the guard flags the newcomer on every seed of both paths (the
same alone model on both: ``on`` equal), lifting the join from 0.04-0.05
to Local.  Where some fitted nodes share its task (``features``: nodes
4-7 have its rule) the refit links it to them and is 0.08 above the
guarded join at 20 rows: fitting alone ignores them (not closed here; the
posterior over those nodes' models would find them, but a newcomer
placed by its feature mean is asked only its cluster's nodes).
The table rows' identity was checked with
``python benchmarks/unlike36_guard_firing.py --families persolin
--datasets moons,landmine,har --seeds 0,1,2 --ks 5,10,20`` (about 4 min):
27 rows, 270 newcomers tested by the guard (their joins are the posterior
and feature-mean joins), 0 flagged, 27 of 27 rows identical (decision
values of every newcomer's test samples and join bytes).
``python benchmarks/new_nodes_unlike.py --seeds 0,1,2 --ks 5,10,20
--angles 180,90`` (15 fitted nodes, posterior join): Perso-lin's join at
180 degrees 0.267 / 0.827 / 0.925 at ``k = 5 / 10 / 20`` (main 0.036 /
0.033 / 0.042; Local 0.739 / 0.840 / 0.933, refit 0.012-0.042); at 90
degrees 0.539 / 0.507 / 0.617 (main 0.503 / 0.513 / 0.492).
"""

import argparse
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

import skfed._graph_join_unlike as unlike
from skfed import PersonalizedLinearClassifier

NEW = 99
_original = unlike.contradicted


def _setting(seed, clustered, n_new):
    """The fitted nodes' ``X, y, groups`` and ``n_new`` newcomer rows with
    their opposite labels (``clustered``: the ``features`` setting)."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(320, 3))
    g = np.repeat(np.arange(8), 40)
    sign = np.where(g < 4, 1.0, -1.0) if clustered else np.ones(len(g))
    X[:, 1] += 3.0 * sign * clustered
    y = (X[:, 0] * sign > 0).astype(int)
    Xn = rng.normal(size=(n_new, 3))
    Xn[:, 1] += 3.0 * clustered
    return X, y, g, Xn, 1 - (Xn[:, 0] > 0).astype(int)


def _join(X, y, g, Xn, yn, rows, guard):
    unlike.contradicted = _original if guard else (
        lambda *a: np.zeros(a[2].n_nodes, dtype=bool))
    try:
        est = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
        est.add_nodes(Xn[:rows], yn[:rows], groups=np.full(rows, NEW))
    finally:
        unlike.contradicted = _original
    return est.newcomer_rule_, np.mean(
        est.predict(Xn[rows:], groups=np.full(200, NEW)) == yn[rows:])


def run(seed, clustered, rows):
    X, y, g, Xn, yn = _setting(seed, clustered, rows + 200)
    rule, on = _join(X, y, g, Xn, yn, rows, True)
    _, off = _join(X, y, g, Xn, yn, rows, False)
    refit = PersonalizedLinearClassifier(random_state=0).fit(
        np.r_[X, Xn[:rows]], np.r_[y, yn[:rows]], groups=np.r_[g, np.full(rows, NEW)])
    refit_score = np.mean(refit.predict(Xn[rows:], groups=np.full(200, NEW)) == yn[rows:])
    local = [np.mean(m.fit(Xn[:rows], yn[:rows]).predict(Xn[rows:]) == yn[rows:])
             for m in (LogisticRegression(), SVC())]
    return rule, on, off, refit_score, local


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8")
    parser.add_argument("--rows", default="20,100")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        for clustered in (False, True):
            for rows in [int(r) for r in args.rows.split(",")]:
                out = [run(seed, clustered, rows) for seed in seeds]
                rules = sorted({o[0] for o in out})
                on, off, refit = (np.array([o[i] for o in out]) for i in (1, 2, 3))
                local = np.array([o[4] for o in out]).mean(axis=0).max()
                print(f"{'/'.join(rules):9s} rows {rows:3d}: Local {local:.3f}  "
                      + "  ".join(f"{name} {v.mean():.3f} [{v.min():.3f}-{v.max():.3f}]"
                                  for name, v in (("on", on), ("off", off),
                                                  ("refit", refit))))


if __name__ == "__main__":
    main()
