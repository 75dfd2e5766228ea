"""A private node's kept model: which rule picks between collaborating and training alone.

A private Dada, Perso-lin or MOCHA node keeps, among its collaborative kept
model and the models it trains alone (LinearSVC, SVC and
LogisticRegression at their defaults on its raw features,
:mod:`skfed._kept_local`), the one chosen by 5-fold cross-validation on
its own samples.  One private fit per (row, seed) records, for every node,
the held-out errors of the four candidates and the three models trained
alone; the rules are then applied to the same fit (same noise):

* ``collab``: the collaborative kept model, no model trained alone (the
  estimators before this choice);
* ``1se-collab`` (the rule until 27 November 2026): the best candidate
  replaces the collaborative model only when it is better by one standard
  error of the per-sample difference; ``1se-logistic``, ``1se-rff``: the
  same with the node's LogisticRegression or rbf model as the reference;
* ``1se-simplest``: the simplest candidate (logistic regression alone,
  LinearSVC alone, the collaborative model, the rbf model alone) whose mean
  error is within one standard error of the lowest; ``1se-alone`` (the
  rule built, :func:`skfed._kept_local.kept_choice`): the same with the
  rbf model alone before the collaborative model;
* ``argmin``: the lowest mean held-out error, ties to the collaborative
  model; ``argmin-logistic`` (built from 27 November 2026, earlier session,
  until ``1se-simplest``): ties to the simplest; ``argmin-collab``,
  ``argmin-svc``: ties to the collaborative model or LinearSVC first;
* ``vote-platt``, ``vote-err``: the built rule (``1se-alone``) with the
  model class trained alone that most nodes prefer put first in its order
  (:func:`network_vote`; each node votes for its class of lowest Platt
  loss, or of lowest 0-1 error abstaining on ties; exact counts, an upper
  bound on a privately counted vote);
* ``argmin-platt``: ties broken by the Platt-scaled held-out log-loss
  (:func:`privacy_utility.platt_loss`), ``argmin-platt0``: only the ties
  of errorless folds, ``platt``: the lowest Platt loss alone,
  ``1se-platt``: the lowest Platt loss within one standard error.

Rows: ``privacy_utility.py``'s (``--only``), and held-out rotated-moons
families that chose nothing (``--families``): ``many-small`` (100 nodes of
20-40 samples), ``noisy-features`` (20 nodes, 4 of 6 features
uninformative), ``alike`` (20 nodes of 30-60 samples, one cluster),
``label-noise`` (15 % flipped labels), ``high-dim`` (20 nodes of 40-80
samples, 20 features, 18 uninformative); Dada and Perso-lin each.  Local:
the strongest per-node baseline (the best of LinearSVC, SVC,
LogisticRegression, and AdaBoost for Dada, by pooled test accuracy).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/private_kept_local.py \
        --only dada-computer mocha-school --families many-small --seeds 0
    OPENBLAS_NUM_THREADS=1 python benchmarks/private_kept_local.py \
        --only mocha-har mocha-school persolin-computer --seeds 0 1 2 --save fits.pkl

Each record also holds the held-out errors, Platt losses and fits of
candidates the built rule does not use (``EXTRA``: AdaBoost on 50 stumps,
``SVC()``'s row-free stand-in), for rules measured on the saved records.

Measured (27 November 2026, one private fit per row and seed at epsilon 3,
every rule applied to the same records; ``--only mocha-har mocha-school
persolin-computer --seeds 0 1 2 --save fits.pkl``; the Perso-lin row ran
two seeds)::

    row (seeds)              Local  1se-collab argmin-logistic 1se-simplest 1se-alone argmin-svc argmin-platt platt  1se-platt
    mocha-har (0 1 2)        0.990  0.9868     0.9879          0.9879       0.9879    0.9886     0.9881       0.9890 0.9884
    mocha-school (0 1 2)     0.712  0.7096     0.7083          0.7111       0.7111    0.7082     0.7079       0.7090 0.7093
    persolin-computer (0 1)  0.654  0.6514     0.6493          0.6490       0.6490    0.6406     0.6505       0.6520 0.6518

No rule lifted every row: the differences, 0.1-0.3 point, are a few test
samples per seed (HAR: about 1,800 test samples a seed).  HAR's people
have almost no held-out error, so any tie-break decides it; LinearSVC
first or the Platt loss alone gains there and loses 1.2 and 0.1 point on
Computer buyers, where logistic regression is the better class; School's
small schools gain from the simplest model.  ``1se-simplest`` was built;
its order (collaborative before rbf) kept Dada's collaborative model on
the moons, where the rbf model is the better class (dada-moons 0.939 at
epsilon 3, seeds 0-2, against Local's 0.943), so the built rule
(``1se-alone``) puts every model trained alone before the collaborative
one, which on the records above makes the same choices.  On the held-out
families (earlier rules) ``1se-collab`` was within 0.2 point of the refit
alone and the plain minimum lost 1.2 points on 18 uninformative features.
AdaBoost on 50 stumps as a candidate (28 November 2026, night): one
private fit per row and seed at epsilon 3 (rows: seeds 0 1 2; families:
seeds 0 1), candidates recorded with AdaBoost beside them, each rule
scored on the same records (``--only mocha-har mocha-school
dada-computer``, ``--only persolin-computer dada-moons persolin-moons``,
``--families many-small noisy-features alike label-noise high-dim``, each
``--save``; orders from the simplest, one standard error)::

    order                     HAR     School  dada-cmp  pl-cmp  moons(d/p)
    LR,SVC,rff,col (before)   0.9877  0.7113  0.6632    0.6528  0.9470/0.9470
    LR,SVC,rff,ada,col        0.9933  0.7117  0.6739    0.6744  0.9470/0.9470
    LR,SVC,rff,col,ada        0.9933  0.7114  0.6736    0.6747  0.9470/0.9470
    LR,SVC,ada,rff,col        0.9933  0.7117  0.6743    0.6753  0.9405/0.9400
    LR,rff,col,ada,SVC        0.9926  0.7108  0.6754    0.6765  0.9470/0.9470
    LR,SVC,rff,ada,col 1.5 se 0.9919  0.7120  0.6736    0.6744  0.9470/0.9470
    argmin, Platt ties        0.9948  0.7085  0.6749    0.6798  0.9460/0.9467
    AdaBoost alone            0.9949  0.7092  0.6473    0.6501  0.9212/0.9212

    families (dada / persolin)  many-small     noisy-feat     alike          label-noise    high-dim
    LR,SVC,rff,col (before)     0.8862/0.8832  0.8858/0.8237  0.9118/0.9093  0.8063/0.8040  0.7740/0.7150
    LR,SVC,rff,ada,col          0.8859/0.8839  0.8907/0.8892  0.9093/0.9075  0.8065/0.8043  0.7675/0.7483
    LR,SVC,rff,col,ada          0.8867/0.8839  0.8925/0.8892  0.9118/0.9075  0.8065/0.8043  0.7808/0.7435
    LR,rff,col,ada,SVC          0.8952/0.8929  0.8925/0.8892  0.9145/0.9103  0.8085/0.8063  0.7880/0.7492
    LR,SVC,rff,ada,col 1.5 se   0.8673/0.8654  0.8882/0.8862  0.9070/0.9052  0.7943/0.7943  0.7535/0.7388

AdaBoost per node is the strongest single
class on HAR (0.9949, LinearSVC 0.9893) and helps wherever few of many
features matter (noisy-features, high-dim); it is last in the order
because before the collaborative model it took Dada's nodes off better
collaborative models (dada-high-dim 0.7740 -> 0.7675, 16 switches, net -26
test samples) and before the rbf model it lost the moons.  That order
moves one node of the 40 persolin-alike fits to AdaBoost, which lost 7 of
its test samples (0.9093 -> 0.9075), and every other family and row is at
or above the rule before.  Putting LinearSVC after the collaborative
model lifts every family but loses School (0.7108); a wider margin (1.5
standard errors) reaches School's Local and loses the many-small family
(0.867 against 0.886).  School stays a few test samples under its Local
(logistic regression everywhere, 0.7120) under every rule that lets any
school switch: its switches are near-ties that net -3 to +3 test samples.

A network vote on the class trained alone (28 November 2026, privacy6;
one private fit per row and seed at epsilon 3, ``--only mocha-har
mocha-school --seeds 0`` and ``--seeds 1 2``): the vote picks LinearSVC
on HAR (every seed, both votes) and logistic regression on School.  HAR
seeds 1-2: Local 0.99051, built rule 0.98834, ``vote-platt`` /
``vote-err`` 0.99024, ``platt`` 0.99078; seed 0 every rule and Local
0.98644 (3-seed means: vote 0.98897 against Local 0.98915).  School
seeds 1-2: Local 0.71362, built rule and both votes 0.71247 (the vote's
class is the order's first already).  Not built: HAR stays 0.02 point
under Local, School does not move, and a private vote would spend budget
(one choice among three per node) for that.

The kernel candidate: 300 random features with ``C = 10`` per node alone
score 0.947 / 0.948 on the moons (``SVC()`` 0.942 / 0.944; 100 features
and ``C = 1``: 0.922), 0.587 / 0.626 on Computer buyers (0.579 / 0.606;
seeds 1 2) and on the families (seed 0) 0.922 many-small (0.892), 0.923
alike (0.912), 0.830 label-noise (0.828), 0.792 noisy-features (0.801),
0.634 high-dim (0.661), where logistic regression (0.827, 0.712) is the
better candidate anyway.

Not adopted (2026-11-28, lead): privacy5 measured the order "logistic
regression, LinearSVC, rbf, collaborative, AdaBoost" on these records (HAR
0.9877 -> 0.9933, Computer buyers +0.6 to +2 points, School 0.7113 ->
0.7114, still under its Local 0.7120; persolin-alike 0.9093 -> 0.9075)
and put it into the package; the lead kept the default without AdaBoost:
review4 measured the private fits' CPU at 8-10 times the default's (100
nodes of 20 samples at epsilon 3: Perso-lin 8.9 -> 92.5 s, MOCHA 11.6 ->
89.8 s) for a lift that comes from a model class outside Local's standard
set, with School still under Local.  A user who wants it passes
``DifferentialPrivacy(local_estimator=AdaBoostClassifier(...))``.  The
records and rule tables below stay as measured.
"""

import argparse
import json
import os
import pickle
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import privacy_utility as pu  # noqa: E402

import skfed.boosting._private as boosting_private  # noqa: E402
import skfed.multitask._private as mocha_private  # noqa: E402
from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier  # noqa: E402
from skfed._kept_local import SIMPLEST as BUILT_ORDER  # noqa: E402
from skfed._kept_local import (  # noqa: E402
    CLASSIFIERS,
    _fit,
    heldout_errors,
    kept_choice,
    one_se_choice,
)
from skfed.boosting import make_stump_predictors  # noqa: E402
from skfed.datasets import make_rotated_moons  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402

RULES = ("collab", "1se-collab", "1se-logistic", "1se-rff", "argmin", "1se-simplest",
         "argmin-logistic", "argmin-collab", "argmin-svc", "argmin-platt", "argmin-platt0", "platt", "1se-platt", "1se-alone",
         "vote-platt", "vote-err")
# candidates from the simplest (Breiman's one-standard-error rule keeps the
# simplest within one standard error of the best): the node's linear models
# alone, then the collaborative model, then the rbf model alone
SIMPLEST = (1 + CLASSIFIERS.index("LogisticRegression"), 1 + CLASSIFIERS.index("LinearSVC"),
            0, 1 + CLASSIFIERS.index("rff-LinearSVC"))
RECORD = []
SAVED = []  # per private fit: the records and test data (``--save``: rules re-scored later)


def classification_heldout(X, codes, fold, n_folds, seed, names=CLASSIFIERS):
    """Held-out 0-1 errors and, for two classes, decision scores of every Local classifier.

    A fold whose training part has one class predicts that class (the
    estimators refuse a single class; a node alone could only predict it),
    with score ``+1`` (class 1) or ``-1`` (class 0).

    Returns
    -------
    err : ndarray of shape (len(names), m)
    scores : ndarray of shape (len(names), m) or None
        ``decision_function`` on the held-out samples (positive: class 1),
        None when the node has more than two classes.
    """
    m = X.shape[0]
    err = np.zeros((len(names), m))
    binary = np.unique(codes).size <= 2 and codes.max(initial=0) <= 1
    scores = np.zeros((len(names), m)) if binary else None
    for f in range(n_folds):
        test = fold == f
        train = ~test
        seen = np.unique(codes[train])
        for c, name in enumerate(names):
            if seen.size < 2:
                pred = np.full(test.sum(), seen[0])
                if binary:
                    scores[c, test] = 2.0 * seen[0] - 1.0
            else:
                model = _fit_any(name, X[train], codes[train], seed)
                pred = model.predict(X[test])
                if binary:
                    scores[c, test] = model.decision_function(X[test])
            err[c, test] = pred != codes[test]
    return err, scores


# Candidates a node could also train alone, recorded beside the built ones
# (indices 1 + len(CLASSIFIERS) ...): AdaBoost on 50 stumps (Local's class
# for the Dada rows) and SVC()'s row-free stand-in (gamma="scale", C = 1;
# privacy_utility.rbf_stand_in).  The built rules see only the first
# 1 + len(CLASSIFIERS) rows of a record.
EXTRA = ("AdaBoost", "rbf-scale")
NAMES = CLASSIFIERS + EXTRA


def _make_extra(name, seed):
    if name == "AdaBoost":
        return pu._local_adaboost(seed)
    return pu.rbf_stand_in(seed)


def _fit_any(name, X, codes, seed):
    if name in CLASSIFIERS:
        return _fit(name, X, codes, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _make_extra(name, seed).fit(X, codes)


def _recording_choice(X, codes, collab_scores, fold, n_folds, seed, **kwargs):
    """Record the candidates' held-out errors and the models trained alone;
    keep the collaborative model in the estimator (the rules apply later)."""
    if collab_scores is None or n_folds < 2 or np.unique(codes).size < 2:
        RECORD.append(None)
        return None
    local_err, local_scores = classification_heldout(X, codes, fold, n_folds, seed,
                                                     names=NAMES)
    err = np.vstack([heldout_errors(collab_scores, codes), local_err])
    platt = None
    if local_scores is not None and collab_scores.shape[0] == 1:
        platt = np.array([pu.platt_loss(f, codes)
                          for f in np.vstack([collab_scores[:1], local_scores])])
    RECORD.append((err, [_fit_any(name, X, codes, seed) for name in NAMES], platt))
    return None


def _tied(err):
    mean = err.mean(axis=1)
    return mean <= mean.min() + 1e-12


ALONE = tuple(1 + CLASSIFIERS.index(n) for n in CLASSIFIERS)


def network_vote(record, rule):
    """The model class trained alone that most nodes prefer (None: no vote).

    ``vote-platt``: each node votes for the class alone of lowest Platt-scaled
    held-out log-loss (its 0-1 ties broken by margin); ``vote-err``: for the
    class alone of lowest mean held-out 0-1 error, abstaining on ties.  A
    deployed vote is one (noisy) choice among three per node; here the
    counts are exact, an upper bound on what a private count gives.
    """
    votes = np.zeros(1 + len(CLASSIFIERS))
    for rec in record:
        if rec is None:
            continue
        n_built = 1 + len(CLASSIFIERS)
        if rule == "vote-platt":
            if rec[2] is None:
                continue
            loss = rec[2][:n_built][list(ALONE)]
        else:
            loss = rec[0][:n_built][list(ALONE)].mean(axis=1)
        low = loss <= loss.min() + 1e-12
        if rule == "vote-err" and low.sum() > 1:
            continue
        votes[ALONE[int(np.argmax(low))]] += 1
    return None if votes.sum() == 0 else int(np.argmax(votes))


def _rule_index(rule, err, platt=None, voted=None):
    if rule in ("vote-platt", "vote-err"):
        built = [0 if n == "collaborative" else 1 + CLASSIFIERS.index(n) for n in BUILT_ORDER]
        if voted is not None:
            built = [voted] + [c for c in built if c != voted]
        return kept_choice(err, built)
    if rule == "argmin-collab":
        order = (0,) + tuple(c for c in SIMPLEST if c != 0)
        return next(c for c in order if _tied(err)[c])
    if rule == "argmin-svc":
        svc = 1 + CLASSIFIERS.index("LinearSVC")
        order = (svc,) + tuple(c for c in SIMPLEST if c != svc)
        return next(c for c in order if _tied(err)[c])
    if rule == "1se-alone":
        order = [0 if n == "collaborative" else 1 + CLASSIFIERS.index(n)
                 for n in BUILT_ORDER]
        return kept_choice(err, order)
    if rule == "1se-platt":
        # within one standard error of the best: the lowest Platt loss
        if platt is None:
            return _rule_index("1se-simplest", err)
        mean = err.mean(axis=1)
        best = int(np.argmin(mean))
        m = err.shape[1]
        se = err[best].std(ddof=1) / np.sqrt(m) if m > 1 else 0.0
        ok = mean <= mean[best] + se + 1e-12
        low = np.min(platt[ok])
        return next(c for c in SIMPLEST if ok[c] and platt[c] <= low + 1e-9)
    if rule == "argmin-platt0":
        # the Platt loss breaks only the ties of folds without any error
        if platt is None or err.mean(axis=1).min() > 0:
            return _rule_index("argmin-logistic", err)
        return _rule_index("argmin-platt", err, platt)
    if rule in ("argmin-platt", "platt"):
        if platt is None:
            return _rule_index("argmin-logistic", err)
        ok = _tied(err) if rule == "argmin-platt" else np.ones(len(platt), bool)
        low = np.min(platt[ok])
        return next(c for c in SIMPLEST if ok[c] and platt[c] <= low + 1e-9)
    if rule == "collab":
        return 0
    if rule == "1se-collab":
        return one_se_choice(err, 0)
    if rule == "1se-logistic":
        return one_se_choice(err, 1 + CLASSIFIERS.index("LogisticRegression"))
    if rule == "1se-rff":
        return one_se_choice(err, 1 + CLASSIFIERS.index("rff-LinearSVC"))
    if rule == "1se-simplest":
        mean = err.mean(axis=1)
        best = int(np.argmin(mean))
        m = err.shape[1]
        se = err[best].std(ddof=1) / np.sqrt(m) if m > 1 else 0.0
        return next(c for c in SIMPLEST if mean[c] <= mean[best] + se)
    if rule == "argmin-logistic":
        # the lowest mean error; ties to the simplest (SIMPLEST's order)
        mean = err.mean(axis=1)
        return next(c for c in SIMPLEST if mean[c] <= mean.min() + 1e-12)
    return int(np.argmin(mean_err(err)))


def mean_err(err):
    return err.mean(axis=1)


def score_rules(est, X_test, y_test, g_test):
    """Pooled test accuracy of every rule, and the fraction of nodes each
    rule moves to a model trained alone."""
    record = list(RECORD)
    assert len(record) == len(est.nodes_)
    collab = est.predict(X_test, groups=g_test)
    index = {label: k for k, label in enumerate(est.nodes_.tolist())}
    node = np.array([index[g] for g in np.asarray(g_test).tolist()])
    SAVED.append({"record": record, "collab": collab, "node": node, "X_test": X_test,
                  "y_test": np.asarray(y_test), "classes": est.classes_})
    out = {}
    for rule in RULES:
        voted = network_vote(record, rule) if rule.startswith("vote") else None
        if voted is not None:
            out[rule + " class"] = CLASSIFIERS[voted - 1]
        pred = collab.copy()
        alone = 0
        for k, rec in enumerate(record):
            if rec is None:
                continue
            n_built = 1 + len(CLASSIFIERS)
            c = _rule_index(rule, rec[0][:n_built],
                            None if rec[2] is None else rec[2][:n_built], voted)
            if c == 0:
                continue
            alone += 1
            rows = node == k
            if rows.any():
                pred[rows] = est.classes_[rec[1][c - 1].predict(X_test[rows]).astype(int)]
        out[rule] = float(np.mean(pred == y_test))
        out[rule + " alone"] = alone / len(record)
    return out


def _patched(fit_and_score):
    boosting_private.choose_classifier = _recording_choice
    mocha_private.choose_classifier = _recording_choice
    RECORD.clear()
    try:
        return fit_and_score()
    finally:
        from skfed._kept_local import choose_classifier
        boosting_private.choose_classifier = choose_classifier
        mocha_private.choose_classifier = choose_classifier


FAMILIES = {
    "many-small": dict(n_nodes=100, n_samples_range=(20, 40), n_features=2),
    "noisy-features": dict(n_nodes=20, n_samples_range=(100, 200), n_features=6),
    "alike": dict(n_nodes=20, n_clusters=1, n_samples_range=(30, 60), n_features=2),
    "label-noise": dict(n_nodes=20, n_samples_range=(50, 100), n_features=2,
                        label_noise=0.15),
    "high-dim": dict(n_nodes=20, n_samples_range=(40, 80), n_features=20),
}


def family_data(family, seed):
    params = dict(FAMILIES[family])
    n_nodes = params.pop("n_nodes")
    params.setdefault("n_clusters", 4)
    X, X_test, y, y_test, g, g_test, _, _ = make_rotated_moons(
        n_nodes, random_state=100 + seed, **params)
    return X, X_test, y, y_test, g, g_test


def run_family(family, method, seed, epsilon):
    data = family_data(family, seed)
    X, X_test, y, y_test, g, g_test = data
    n_nodes = len(np.unique(g))
    spec = DifferentialPrivacy(epsilon, delta=pu.DELTA)
    if method == "dada":
        d = X.shape[1]
        est = DecentralizedBoostingClassifier(
            base_predictors=make_stump_predictors([-2.0] * d, [2.0] * d, 20 * d),
            beta=0.1, mu=100.0, max_iter=100 * n_nodes, privacy=spec, random_state=seed)
    else:
        est = PersonalizedLinearClassifier(max_iter=100 * n_nodes, privacy=spec,
                                           random_state=seed)

    def fit_and_score():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, groups=g)
        return score_rules(est, X_test, y_test, g_test)

    scores = _patched(fit_and_score)
    local = pu._local_scores(data, extra=("AdaBoost",) if method == "dada" else (),
                             seed=seed)
    scores["Local"], scores["Local CV"] = local["oracle"], local["CV"]
    return scores


def run_row(name, seed, epsilon):
    """One row of privacy_utility.py through its own estimator factory."""
    holder = {}
    original = pu._score

    def capture(make, data, eps, seed_, local=(), local_model=None):
        X, X_test, y, y_test, g, g_test = data
        est = make(DifferentialPrivacy(eps, delta=pu.DELTA), seed_)

        def fit_and_score():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(X, y, groups=g)
            return score_rules(est, X_test, y_test, g_test)

        holder.update(_patched(fit_and_score))
        return 0.0

    pu._score = capture
    try:
        pu.ROWS[name](epsilon, seed)
    finally:
        pu._score = original
    local = pu.ROWS[name](pu.LOCAL, seed)
    holder["Local"], holder["Local CV"] = local["oracle"], local["CV"]
    return holder


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--only", nargs="*", default=[],
                        choices=["dada-moons", "dada-computer", "persolin-moons",
                                 "persolin-computer", "mocha-school", "mocha-har"])
    parser.add_argument("--families", nargs="*", default=[], choices=sorted(FAMILIES))
    parser.add_argument("--methods", nargs="+", default=["dada", "persolin"])
    parser.add_argument("--epsilon", type=float, default=3.0)
    parser.add_argument("--save", default=None,
                        help="pickle every fit's records and test data to this file")
    args = parser.parse_args(argv)
    jobs = [(row, lambda seed, row=row: run_row(row, seed, args.epsilon))
            for row in args.only]
    jobs += [(f"{method}-{family}",
              lambda seed, f=family, m=method: run_family(f, m, seed, args.epsilon))
             for family in args.families for method in args.methods]
    table = {}
    keys = ["Local", "Local CV", *RULES]
    print(f"{'row':26s}" + "".join(f"{k:>14s}" for k in keys) + "   nodes alone (1se-collab)")
    for name, job in jobs:
        runs = []
        for seed in args.seeds:
            runs.append(job(seed))
            voted = {k: v for k, v in runs[-1].items() if isinstance(v, str)}
            if voted:
                print(f"  {name} seed {seed} network vote: {voted}", flush=True)
            if args.save:
                SAVED[-1].update(row=name, seed=seed, Local=runs[-1].get("Local"),
                                 local_cv=runs[-1].get("Local CV"))
                with open(args.save, "wb") as handle:
                    pickle.dump(SAVED, handle)
        table[name] = {k: float(np.mean([r.get(k, np.nan) for r in runs])) for k in runs[0]
                       if not isinstance(runs[0][k], str)}
        row = table[name]
        print(f"{name:26s}" + "".join(f"{row[k]:14.3f}" for k in keys)
              + f"   {row['1se-collab alone']:.2f}", flush=True)
    print(json.dumps({"seeds": args.seeds, "epsilon": args.epsilon, "table": table}))


if __name__ == "__main__":
    main()
