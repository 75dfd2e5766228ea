"""A first-time user's families: does the estimator choosing.rst recommends beat the baselines?

user38 followed the user guide only, on data of their own: for each family
below it fitted the estimator ``choosing.rst`` recommends (and the
no-server alternative), at its defaults, and compared it with the best
Global and the best Local baseline as ``baselines.rst`` says (each after a
``StandardScaler``: ``LinearSVC(C=0.1)``, ``SVC()``,
``LogisticRegression(max_iter=1000)``; ``Ridge()``, ``SVR()``,
``LassoCV(cv=3)`` for regression), on the same arrays, by the mean over the
sites of each site's test score (accuracy or R^2).

Families (train rows a site; 100 test rows a site):

* ``alike``: 60 sites x 15 rows, 10 N(0, 1) features, ``w_k = w_0 + 0.1
  u_k``, 0.3 label noise on the margin;
* ``noise``: ``make_classification`` with 5 informative and 50 noise
  features, 20 sites x 30 rows, a 0.3 N(0, 1) offset of every feature a
  site;
* ``moons2`` / ``moons3``: ``make_rotated_moons(40, n_features=2 or 3,
  n_samples_range=(8, 20))`` (4 clusters of rotated moons, low dimension);
* ``unrelated``: regression, 20 sites x 40 rows, 5 features, every site
  its own ``w_k ~ N(0, 4 I)`` and intercept ``~ N(0, 9)``, noise 0.5.

Also ``--stream``: the online classifier fed by ``partial_fit`` in
mini-batches (12 sites x 150 rows of a 4-feature circle task whose
radius differs by site, 5 % label flips; call ``j`` holds rows ``10 j`` to
``10 j + 9`` of every site) against one ``partial_fit`` call on the same
rows and against ``fit``.

    python benchmarks/user38_first_user.py --seeds 0 1 2
    python benchmarks/user38_first_user.py --families moons2 moons3 --seeds 0 1 2 3 4 --learn
    python benchmarks/user38_first_user.py --stream --seeds 0 1

Results (2026-11-30, main 732136fa, user38)
-------------------------------------------
One heavy process, ``OPENBLAS_NUM_THREADS=1``.  Mean site score per seed
0 / 1 / 2 (best Global, best Local, then each estimator; ``+`` marks a
row above both baselines)::

    alike      Global .9588 .9610 .9627  Local .7703 .7712 .7580
               MOCHA  .9592+ .9620+ .9577   Perso-lin .9335 .9267 .9060
    noise      Global .8445 .7570 .8390  Local .6495 .6020 .6670
               MOCHA  .8430 .7300 .8320   Dada .7635 .7965+ .8015
               (the best Global is SVC on seeds 1, 2; MOCHA equals the
               best *linear* Global: .7295 .8300 on seeds 1, 2)
    moons2     Global .5072 .5025 .5003  Local .7605 .7873 .7915
               MOCHA  .7348 .7585 .7405   MOCHA rbf .6865 .6887 .6943
               Dada   .8430+ .8850+ .8640+  online .8047+ .8095+ .8090+
    moons3     Global .5098 .4997 .5047  Local .7385 .7600 .7752
               MOCHA  .7135 .7270 .7402   MOCHA rbf .6218 .5965 .6053
               Dada   .8592+ .8890+ .8637+  online .7682+ .7870+ .8020+
    unrelated  Global R2 -.75 -.44 -.52  Local .9793 .9661 .9777
               MOCHA  .9774 .9652 .9759   online .9133 .8995 .9289

MOCHA with ``omega="learn"`` (``--learn``, seeds 0-4; in brackets the
bytes over the raw upload)::

    moons2  best Local   .7605 .7873 .7915 .8095 .7852
            MOCHA        .7348 .7585 .7405 .7082 .7465   (0.48-0.88)
            MOCHA rbf    .6865 .6887 .6943 .7485 .7182   (4.2-6.3)
            learn        .7705 .7875 .7905 .7887 .7845   (3.0-3.4)
            rbf learn    .9135 .9293 .9270 .9310 .9200   (29-35)
            Dada         .8430 .8850 .8640 .8845 .8555   (419-470)
    moons3  best Local   .7385 .7600 .7752 .7582 .7710
            rbf learn    .7945 .8030 .8010 .8017 .7915   (22-25)
            Dada         .8592 .8890 .8637 .8465 .8715   (321-359)
    alike   MOCHA        .9592 .9620 .9577 .9435 .9515
            learn        .9147 .9045 .9072 .8938 .8992
    noise   MOCHA        .8430 .7300 .8320 .7090 .8785
            learn        .7905 .6710 .8045 .6265 .8655

Stream (``--stream``), seeds 0 / 1: ``fit`` (30 passes) .8683 / .8533;
``fit(max_epochs=1)`` .7967 / .7817; one ``partial_fit`` call on the whole
stream .7983 / .7942; 15 mini-batch calls .6992 / .7692 (two more passes
of the same calls: .7192 / .7758, .7675 / .7933).  With
``kernel="rbf", gamma=0.5, consensus_penalty=0`` (no messages) the 15
calls score .8208 / .8358, one call .8158 / .8167, ``fit`` .8183 /
.8258: the split costs nothing without consensus.

Conclusions: on nearly alike small sites MOCHA's default is Global's equal
(within 0.5 point), Perso-lin (the no-server pick) 2.5-5.7 points under
Global at 68-73 times the raw upload.  With 50 noise features MOCHA is
the best linear model but 0.2-2.7 points under a pooled SVC.  On
low-dimensional clustered moons the default MOCHA (linear or rbf) is
under Local; Dada and the online learner win, as choosing.rst says for
Dada; with a server, MOCHA with ``kernel="rbf", omega="learn"`` wins most
on 2 features (.91-.93), Dada on 3; ``omega="learn"`` loses 1-8 points to
the default on the alike and noise families.
On unrelated regressions MOCHA equals Local within 0.2 R^2 point; the
online regressor is 5-7 points under: ``consensus_penalty="auto"`` picks
the weak coupling (0.1; its candidates never include 0), and
``consensus_penalty=0`` scores .9782 / .9655 / .9778, Local's equal.  A stream split into ``partial_fit``
calls scores under one call on the same rows (10 and 2.5 points on seeds
0, 1) with the default consensus, and under the same learner without any
consensus; not traced further (the exchange schedule is once per call).
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LassoCV, LogisticRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR, LinearSVC

from skfed.baselines import LocalEstimator, pooled_data_bytes
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.datasets import make_rotated_moons
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)

CLASSIFIERS = (lambda: LinearSVC(C=0.1), SVC, lambda: LogisticRegression(max_iter=1000))
REGRESSORS = (Ridge, SVR, lambda: LassoCV(cv=3))


def _split(X, y, g, n_tr, n_sites):
    """The first ``n_tr`` rows of every site train, the rest test."""
    pos = np.zeros(len(g), int)
    for k in range(n_sites):
        pos[g == k] = np.arange(int((g == k).sum()))
    tr = pos < n_tr
    return X[tr], X[~tr], y[tr], y[~tr], g[tr], g[~tr]


def alike(seed, n_sites=60, n_tr=15, d=10):
    rng = np.random.RandomState(seed)
    w = rng.randn(d) + 0.1 * rng.randn(n_sites, d)
    g = np.repeat(np.arange(n_sites), n_tr + 100)
    X = rng.randn(len(g), d)
    y = ((X * w[g]).sum(1) + 0.3 * rng.randn(len(g)) > 0).astype(int)
    return _split(X, y, g, n_tr, n_sites)


def noise(seed, n_sites=20, n_tr=30):
    n = n_sites * (n_tr + 100)
    X, y = make_classification(n_samples=n, n_features=55, n_informative=5, n_redundant=0,
                               n_repeated=0, shuffle=False, random_state=seed)
    rng = np.random.RandomState(seed)
    p = rng.permutation(n)
    X, y = X[p], y[p]
    g = rng.permutation(np.repeat(np.arange(n_sites), n_tr + 100))
    X = X + 0.3 * rng.randn(n_sites, 55)[g]
    return _split(X, y, g, n_tr, n_sites)


def moons(d):
    def load(seed):
        Xtr, Xte, ytr, yte, gtr, gte, *_ = make_rotated_moons(
            40, n_features=d, n_samples_range=(8, 20), random_state=seed)
        return Xtr, Xte, ytr, yte, gtr, gte
    return load


def unrelated(seed, n_sites=20, n_tr=40, d=5):
    rng = np.random.RandomState(seed)
    w, b = 2 * rng.randn(n_sites, d), 3 * rng.randn(n_sites)
    g = np.repeat(np.arange(n_sites), n_tr + 100)
    X = rng.randn(len(g), d)
    y = (X * w[g]).sum(1) + b[g] + 0.5 * rng.randn(len(g))
    return _split(X, y, g, n_tr, n_sites)


FAMILIES = {
    "alike": (alike, False, {
        "MOCHA": lambda s: FederatedMultiTaskClassifier(random_state=s),
        "Perso-lin": lambda s: PersonalizedLinearClassifier(random_state=s)}),
    "noise": (noise, False, {
        "MOCHA": lambda s: FederatedMultiTaskClassifier(random_state=s),
        "Dada": lambda s: DecentralizedBoostingClassifier(random_state=s)}),
    "moons2": (moons(2), False, {
        "MOCHA": lambda s: FederatedMultiTaskClassifier(random_state=s),
        "MOCHA rbf": lambda s: FederatedMultiTaskClassifier(kernel="rbf", random_state=s),
        "Dada": lambda s: DecentralizedBoostingClassifier(random_state=s),
        "online": lambda s: DecentralizedKernelSGDClassifier(random_state=s)}),
    "moons3": (moons(3), False, {
        "MOCHA": lambda s: FederatedMultiTaskClassifier(random_state=s),
        "MOCHA rbf": lambda s: FederatedMultiTaskClassifier(kernel="rbf", random_state=s),
        "Dada": lambda s: DecentralizedBoostingClassifier(random_state=s),
        "online": lambda s: DecentralizedKernelSGDClassifier(random_state=s)}),
    "unrelated": (unrelated, True, {
        "MOCHA": lambda s: FederatedMultiTaskRegressor(random_state=s),
        "online": lambda s: DecentralizedKernelSGDRegressor(random_state=s)}),
}
LEARN = {
    "MOCHA learn": lambda s: FederatedMultiTaskClassifier(omega="learn", random_state=s),
    "MOCHA rbf learn": lambda s: FederatedMultiTaskClassifier(
        kernel="rbf", omega="learn", random_state=s),
}


def site_mean(pred, y, g, reg):
    """Mean over the sites of each site's accuracy (R^2 for regression)."""
    return float(np.mean([r2_score(y[g == k], pred[g == k]) if reg else np.mean(pred[g == k] == y[g == k])
                          for k in np.unique(g)]))


def best_baselines(data, reg):
    """(best Global, best Local) mean site score."""
    Xtr, Xte, ytr, yte, gtr, gte = data
    glob, loc = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make in (REGRESSORS if reg else CLASSIFIERS):
            pooled = make_pipeline(StandardScaler(), make()).fit(Xtr, ytr)
            glob.append(site_mean(pooled.predict(Xte), yte, gte, reg))
            local = LocalEstimator(make_pipeline(StandardScaler(), make())).fit(Xtr, ytr, groups=gtr)
            loc.append(site_mean(local.predict(Xte, groups=gte), yte, gte, reg))
    return max(glob), max(loc)


def run_family(name, seed, learn=False):
    load, reg, estimators = FAMILIES[name]
    data = load(seed)
    Xtr, Xte, ytr, yte, gtr, gte = data
    glob, loc = best_baselines(data, reg)
    raw = pooled_data_bytes(Xtr, ytr, groups=gtr)
    print(f"{name} seed {seed}: best Global {glob:.4f}  best Local {loc:.4f}  raw {raw:,} B")
    for label, make in {**estimators, **(LEARN if learn else {})}.items():
        t = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = make(seed).fit(Xtr, ytr, groups=gtr)
        score = site_mean(est.predict(Xte, groups=gte), yte, gte, reg)
        mark = "+" if score > max(glob, loc) else " "
        print(f"  {label:16s} {score:.4f}{mark} {est.n_bytes_sent_ / raw:7.2f} x raw  "
              f"{time.process_time() - t:.1f} CPU s")


def circles(seed, n_sites=12, n_tr=150, d=4):
    rng = np.random.RandomState(seed)
    r = 1.0 + 0.2 * rng.randn(n_sites)
    g = np.repeat(np.arange(n_sites), n_tr + 100)
    X = rng.randn(len(g), d)
    y = ((X[:, :2] ** 2).sum(1) > r[g] ** 2).astype(int)
    flip = rng.rand(len(g)) < 0.05
    y[flip] = 1 - y[flip]
    return _split(X, y, g, n_tr, n_sites)


def run_stream(seed, **params):
    Xtr, Xte, ytr, yte, gtr, gte = circles(seed)
    pos = np.concatenate([np.arange(int((gtr == k).sum())) for k in np.unique(gtr)])

    def score(est):
        return site_mean(est.predict(Xte, groups=gte), yte, gte, False)

    def make(**extra):
        return DecentralizedKernelSGDClassifier(random_state=seed, **params, **extra)

    out = {"fit": score(make().fit(Xtr, ytr, groups=gtr)),
           "fit max_epochs=1": score(make(max_epochs=1).fit(Xtr, ytr, groups=gtr)),
           "one partial_fit": score(make().partial_fit(Xtr, ytr, groups=gtr, classes=[0, 1]))}
    est = make()
    for rep in range(3):
        for j in range(15):
            m = (pos >= 10 * j) & (pos < 10 * (j + 1))
            est.partial_fit(Xtr[m], ytr[m], groups=gtr[m], classes=[0, 1])
        out[f"15 calls, pass {rep + 1}"] = score(est)
    print(f"stream seed {seed} {params}: " + "  ".join(f"{k} {v:.4f}" for k, v in out.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--learn", action="store_true", help="also MOCHA with omega='learn'")
    parser.add_argument("--stream", action="store_true", help="only the partial_fit stream")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.stream:
        for seed in args.seeds:
            run_stream(seed)
            run_stream(seed, kernel="rbf", gamma=0.5, consensus_penalty=0.0)
        return
    for name in args.families:
        for seed in args.seeds:
            run_family(name, seed, learn=args.learn)


if __name__ == "__main__":
    main()
