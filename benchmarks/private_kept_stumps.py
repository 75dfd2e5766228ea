"""A private Dada node's AdaBoost-on-stumps candidate: paired accuracy and CPU.

Dada's Local baseline includes per-node AdaBoost on 50 stumps
(``privacy_utility.py``).  A private Dada node now also considers
discrete AdaBoost (SAMME) over 50 stumps on its own rows among the models
it may keep (:mod:`skfed._stump_boost`, last in the one-standard-error
order of :func:`skfed._kept_local.kept_choice`).  This benchmark measures
that candidate's effect on the same private fits: each fit's kept-model
choice is made twice per node, without and with the candidate, on the
same folds and the same noisy releases, and the fit is scored with each
list of kept models (``without`` / ``with``; paired, so the difference is
the candidate's alone, not the noise's).  ``--cpu`` times whole private
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
from skfed._kept_local import choose_classifier
from skfed.boosting import DecentralizedBoostingClassifier, make_stump_predictors
from skfed.privacy import DifferentialPrivacy

PAIRS = []  # per node: (kept without the candidate, kept with it)


def _paired_choice(*args, **kwargs):
    with_boost = choose_classifier(*args, **kwargs)
    kwargs = dict(kwargs, boosting=False)
    PAIRS.append((choose_classifier(*args, **kwargs), with_boost))
    return with_boost


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
    """Accuracy without / with the candidate on one private fit, and the
    share of nodes keeping the AdaBoost model."""
    (X, X_test, y, y_test, g, g_test), make = row_data(name, seed)
    est = make(epsilon)
    PAIRS.clear()
    boosting_private.choose_classifier = _paired_choice
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, groups=g)
    finally:
        boosting_private.choose_classifier = choose_classifier
    out = []
    for side in (0, 1):
        kept = np.empty(len(PAIRS), dtype=object)
        kept[:] = [pair[side] for pair in PAIRS]
        est.kept_local_models_ = kept
        out.append(float(est.score(X_test, y_test, groups=g_test)))
    boosted = np.mean([type(p[1]).__name__ == "StumpBoostClassifier" for p in PAIRS])
    return out[0], out[1], float(boosted)


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
        res = np.array([paired(name, seed, args.epsilon) for seed in args.seeds])
        per_seed = " ".join(f"{a:.4f}/{b:.4f}" for a, b, _ in res)
        print(f"{name:14s} eps={args.epsilon:g} without {res[:, 0].mean():.5f} with "
              f"{res[:, 1].mean():.5f} (AdaBoost kept by {res[:, 2].mean():.2f} of the nodes; "
              f"per seed {per_seed})", flush=True)


if __name__ == "__main__":
    main()
