"""A private Dada node's AdaBoost-on-stumps candidate: paired accuracy and CPU.

Dada's Local baseline includes per-node AdaBoost on 50 stumps
(``privacy_utility.py``).  A private Dada node now also considers
discrete AdaBoost (SAMME) over 50 stumps on its own rows among the models
it may keep (:mod:`skfed._stump_boost`; the one-standard-error rule of
:func:`skfed._kept_local.kept_choice` toward the first of
``BOOSTING_SIMPLEST``: logistic regression, the rbf model, the
collaborative model, AdaBoost, LinearSVC).  This benchmark measures
that candidate's effect on the same private fits: each fit's kept-model
choice is made twice per node, without and with the candidate, on the
same folds and the same noisy releases: every candidate's held-out errors
are recorded per node and each order of ``ORDERS`` (the one-standard-error
rule toward the first) is scored on the same fit (paired, so differences
between orders are the rule's alone, not the noise's).  ``--cpu`` times whole private
fits with and without the candidate, alternated in one process
(``time.process_time``), and prints the ratio.

Rows: ``dada-computer`` and ``dada-moons`` of ``privacy_utility.py`` (its
data, stumps and hyper-parameters), and the held-out rotated-moons
families ``alike``, ``many-small``, ``high-dim`` of
``private_kept_local.py`` (Dada with 20 stumps per feature).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/private_kept_stumps.py \
        --rows dada-computer dada-moons alike many-small high-dim --seeds 0 1 2
    OPENBLAS_NUM_THREADS=1 python benchmarks/private_kept_stumps.py --cpu --rows dada-computer

Measured (28 November 2026, privacy8, epsilon 3, a loaded machine; each
column one order on the same private fits; ``before``: the rule without
the candidate; families seed 0, rows seeds 0 1 2)::

    order                dada-comp run 1  run 2   moons   alike   many-small high-dim
    before               0.66515  0.66162  0.94700  0.90650  0.88190  0.77550
    ada-last             0.67304  0.66937  0.94700  0.90650  0.88150  0.79150
    ada-before-col       0.67177  0.66909  0.94700  0.90650  0.87980  0.77900
    LR,rff,col,ada,SVC   0.67458  0.67275  0.94700  0.90650  0.89060  0.80850
    ada10-last           0.67318  0.66923  0.94700  0.91300  0.88340  0.79200

(Local: dada-computer 0.67063, moons 0.94333.)  AdaBoost is kept by 5-6 %
of Computer buyers' people, none on the moons; 10 stumps instead of 50
change dada-computer by less than 0.03 point (50 is the Local baseline's
and scikit-learn's default, kept).  ``ada-last`` (the candidate after the
rule's four) reached Local in one rerun of two and in neither of two runs
of ``privacy_utility.py --epsilons 3 --kept default --only dada-computer``
(0.666, 0.668); the package takes ``LR,rff,col,ada,SVC``
(``skfed._kept_local.BOOSTING_SIMPLEST``).  CPU of whole private fits,
alternated in one process (``--cpu --rows dada-computer dada-moons
--reps 3``, medians): dada-computer 7.21 s without, 8.49 s with (1.18x),
dada-moons 4.00 s / 4.26 s (1.06x).  scikit-learn's AdaBoostClassifier on
the same folds cost 15-25 times this routine (per node, 50 stumps, 5
folds and the full fit).
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import privacy_utility as pu
import private_kept_local as pkl

import skfed.boosting._private as boosting_private
from skfed._kept_local import (
    CLASSIFIERS,
    N_STUMPS,
    _fit,
    choose_classifier,
    classification_errors,
    heldout_errors,
    kept_choice,
)
from skfed._stump_boost import stump_boost_cv
from skfed.boosting import DecentralizedBoostingClassifier, make_stump_predictors
from skfed.privacy import DifferentialPrivacy

RECORD = []  # per node: (held-out errors of every candidate, the models) or None

# candidates: 0 the collaborative model, 1-3 CLASSIFIERS (LinearSVC,
# rff-LinearSVC, LogisticRegression), 4 AdaBoost on 50 stumps, 5 on 10 stumps
ORDERS = {
    "before": [3, 1, 2, 0],          # the rule without the candidate
    "ada-last": [3, 1, 2, 0, 4],
    "ada-before-col": [3, 1, 2, 4, 0],
    "LR,rff,col,ada,SVC": [3, 2, 0, 4, 1],  # the package's (BOOSTING_SIMPLEST)
    "ada10-last": [3, 1, 2, 0, 5],
}


def _recording_choice(X, codes, collab_scores, fold, n_folds, seed, **kwargs):
    kept = choose_classifier(X, codes, collab_scores, fold, n_folds, seed, **kwargs)
    if (kwargs.get("reference") is not None or collab_scores is None or n_folds < 2
            or np.unique(codes).size < 2):
        RECORD.append(None)
        return kept
    seen, local = np.unique(codes, return_inverse=True)
    err = [heldout_errors(collab_scores, codes),
           *classification_errors(X, codes, fold, n_folds, seed)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = [None] + [_fit(name, X, codes, seed) for name in CLASSIFIERS]
    for n_stumps in (N_STUMPS, 10):
        e, model = stump_boost_cv(X, local, fold, n_folds, n_stumps, seen.size)
        if model is not None:
            model.classes_ = seen
        err.append(e)
        models.append(model)
    RECORD.append((np.vstack(err), models))
    return kept


def _without(*args, **kwargs):
    return choose_classifier(*args, **dict(kwargs, boosting=False))


def row_data(name, seed):
    """``(data, estimator factory)`` of one row at one seed."""
    if name in ("dada-computer", "dada-moons"):
        data = pu._computer(seed) if name == "dada-computer" else pu._moons(seed)
        d = data[0].shape[1]
        if name == "dada-computer":
            lo, hi, n_stumps = -np.ones(d), np.ones(d), 14
        else:
            lo, hi, n_stumps = [-2.0, -2.0], [2.0, 2.0], 40
    else:
        data = pkl.family_data(name, seed)
        d = data[0].shape[1]
        lo, hi, n_stumps = [-2.0] * d, [2.0] * d, 20 * d
    n_nodes = len(np.unique(data[4]))

    def make(epsilon):
        return DecentralizedBoostingClassifier(
            base_predictors=make_stump_predictors(lo, hi, n_stumps), beta=0.1, mu=100.0,
            max_iter=100 * n_nodes, privacy=DifferentialPrivacy(epsilon, delta=pu.DELTA),
            random_state=seed)

    return data, make


def paired(name, seed, epsilon):
    """Accuracy of every order in ``ORDERS`` on one private fit (same noise),
    and the share of nodes keeping an AdaBoost model under each."""
    (X, X_test, y, y_test, g, g_test), make = row_data(name, seed)
    est = make(epsilon)
    RECORD.clear()
    boosting_private.choose_classifier = _recording_choice
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, groups=g)
    finally:
        boosting_private.choose_classifier = choose_classifier
    out = {}
    for rule, order in ORDERS.items():
        kept = np.empty(len(RECORD), dtype=object)
        boosted = 0
        for k, rec in enumerate(RECORD):
            if rec is None:
                continue
            err, models = rec
            c = order[kept_choice(err[order])]  # among this order's candidates
            kept[k] = models[c]
            boosted += c >= 4
        est.kept_local_models_ = kept
        out[rule] = (float(est.score(X_test, y_test, groups=g_test)), boosted / len(RECORD))
    return out


def cpu(name, seed, epsilon, reps):
    """CPU seconds of whole private fits without / with the candidate, alternated."""
    (X, _, y, _, g, _), make = row_data(name, seed)
    times = [[], []]
    for _ in range(reps):
        for side in (0, 1):
            boosting_private.choose_classifier = _without if side == 0 else choose_classifier
            try:
                est = make(epsilon)
                start = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(X, y, groups=g)
                times[side].append(time.process_time() - start)
            finally:
                boosting_private.choose_classifier = choose_classifier
    return float(np.median(times[0])), float(np.median(times[1]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", default=["dada-computer"],
                        choices=["dada-computer", "dada-moons", *sorted(pkl.FAMILIES)])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--epsilon", type=float, default=3.0)
    parser.add_argument("--cpu", action="store_true", help="time fits instead")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    for name in args.rows:
        if args.cpu:
            off, on = cpu(name, args.seeds[0], args.epsilon, args.reps)
            print(f"{name:14s} CPU without {off:.2f} s, with {on:.2f} s: ratio {on / off:.2f}",
                  flush=True)
            continue
        res = [paired(name, seed, args.epsilon) for seed in args.seeds]
        for rule in ORDERS:
            acc = [r[rule][0] for r in res]
            share = np.mean([r[rule][1] for r in res])
            print(f"{name:14s} eps={args.epsilon:g} {rule:20s} {np.mean(acc):.5f} (per seed "
                  + " ".join(f"{a:.4f}" for a in acc) + f"; AdaBoost kept by {share:.2f})",
                  flush=True)


if __name__ == "__main__":
    main()
