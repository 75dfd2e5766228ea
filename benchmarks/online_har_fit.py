"""Is the online fit on HAR below pooled LogisticRegression, or only its mean?

Issue 32's online HAR rows (``benchmarks/new_nodes.py --families online
--datasets har``) sit at 95.5 / 96.0 / 96.1 against pooled
LogisticRegression's 97.9, and their newcomers mostly keep the network
function they start from (``online_join_evidence.py har``).  This script
separates what the fit learns for its own nodes from what its mean gives a
new person, on the split of ``new_nodes.py`` (80 % of the people fitted,
the new people's samples after their first 20 scored), per seed:

``own``
    every fitted person holds out every 4th of its samples (in the split's
    row order); the online classifier at its defaults is fitted on the
    rest, and scored on the held-out samples with each person's own
    function, against LogisticRegression pooled over the same rows;
``network``
    the same fit's network function (what ``predict`` gives an unseen
    person) on the new people's test samples, against that pooled
    LogisticRegression;
``linear means``
    a reference outside the package: one ``LinearSVC(C=C)`` per fitted
    person on all its samples, their coefficients and intercepts averaged,
    scored on the new people's test samples (``C`` = 0.1, 1), against
    pooled LogisticRegression on the same people's samples.

``pooled kernel SGD`` (``--pooled-kernel``)
    the same classifier at its defaults fitted as one node on every fitted
    person's rows (a reference: what a shared function of the same kernel
    and dictionary budget, trained on the pooled objective, gives a new
    person), on the new people's test samples.

``pooled start`` (``--pooled-start``)
    the federation fitted at its defaults on every fitted person's rows
    (``new_nodes.py``'s fit), its network function replaced by that
    one-node function (its points, averaged weights and width), then
    joined as the package does at ``k = 5, 10, 20``: what the join would
    score if the network function were a shared function trained on the
    pooled objective (an experiment outside the package; bytes not
    counted).

    python benchmarks/online_har_fit.py [--seeds 0,1,2] [--skip-online] [--pooled-kernel]
    python benchmarks/online_har_fit.py --skip-online --pooled-start

Measured (2026-11-28, online9, main at ff339c8, seeds 0 / 1 / 2; CPU of
one online fit 34-55 s, one BLAS thread, shared machine):

=============================================  =====  =====  =====  =====
accuracy (%)                                   0      1      2      mean
=============================================  =====  =====  =====  =====
own: online fit, its people's held-out rows    99.66  99.66  99.60  99.64
own: pooled LR on the same rows                98.05  98.50  98.25  98.27
network function on the new people             96.29  90.17  95.31  93.92
pooled LR (same rows) on the new people        99.38  95.09  98.79  97.75
mean of per-person LinearSVC(C=1), new people  97.45  90.81  95.99  94.75
mean of per-person LinearSVC(C=0.1)            97.06  90.03  95.77  94.29
pooled LR (all fitted rows), new people        99.38  95.44  98.64  97.82
=============================================  =====  =====  =====  =====

So the fit is not below pooled LogisticRegression where it is used: every
fitted person's own function beats it by 1.4 points on that person's
held-out rows (the fit selects the laplacian kernel and the weak coupling,
per-person validation error 0.3 % against the strong coupling's 17 % on
seed 0, ``consensus_selection_``).  What a new person gets is a mean of
personal functions, and such a mean is 3-4 points under a model trained on
the pooled rows whatever the personal models are: exactly solved
per-person linear SVMs, averaged, lose as much (94.75 against 97.82) as the
online network function (93.92 against 97.75 here, 94.77 against 97.89 on
the benchmark's full fitted rows, ``online_join_evidence.py har``).  The
fit's knobs do not change that (seed 0, the same split, network function
on the new people against the default's 96.29; joins at ``k = 5 / 10 /
20``, default 91.28 / 94.52 / 95.82 on these 75 % rows): ``gamma=0.0025``
(half the median width) 96.13, joins 89.06 / 96.40 / 96.21;
``kernel="linear"`` 90.33 (its own rows 90.88: the linear SGD fit is far
from LinearSVC's optimum at 30 epochs), joins 88.84 / 90.47 / 90.33; the
strong coupling (``consensus_penalty=1``, ring, ``epsilon`` 0.01 or 0.001)
86.3-86.4, its own rows 95.3-95.4.  ``max_dictionary_size`` at the network
function: ``online_network_budget.py`` (600 points, 95.89, 5.5 times the
bytes); ``gamma=0.01`` (twice the median) 96.06, joins 97.27 / 95.42 /
95.20; ``kernel="rbf"`` 96.98 (own rows 99.53), joins 95.86 / 97.07 /
96.98; ``max_dictionary_size=300`` 97.45 (own rows 99.73), joins 96.97 /
96.92 / 96.83, for 1.36 times the fit's bytes and 2 times its CPU.  The
last two gain on seed 0 but are one seed of one data set (a fit default
needs the three families of the online guide), and none reaches pooled LR
(99.38 on this split).

A shared function trained on the pooled objective closes most of the gap
(``--pooled-kernel`` and ``--pooled-start``, the benchmark's full fitted
rows): the classifier fitted as one node on them scores 98.84 / 93.02 /
98.11 (mean 96.66) on the new people against the network function's
96.83 / 91.10 / 96.37 (94.77) and pooled LR's 99.38 / 95.44 / 98.64
(97.82); joins from it as the network function (the package's join
otherwise unchanged) score, ``k = 5 / 10 / 20``:

=================================  ===================  ===================
seed                               fitted mean (today)  pooled one-node
=================================  ===================  ===================
0                                  96.60 / 96.55 / 96.83  98.89 / 98.87 / 98.84
1                                  93.03 / 92.94 / 92.95  94.33 / 94.25 / 94.30
2                                  96.89 / 98.46 / 98.41  98.12 / 98.17 / 98.11
mean                               95.51 / 95.98 / 96.06  97.11 / 97.10 / 97.08
=================================  ===================  ===================

(3-4 of the 4 newcomers a seed start from it and keep it.)  So closing
HAR's join to pooled LogisticRegression needs a shared function trained on
the pooled objective (a consensus that converges, not a mean of personal
functions), a change to the fit, not to the join; even then it stays 0.7
under pooled LR (97.1 against 97.8), the one-node kernel SGD's own gap.
"""

import argparse
import sys
import os
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402


def held_out_rows(groups, rows, every=4):
    """``(train, held)``: every ``every``-th row of each person held out."""
    held = np.zeros(len(rows), dtype=bool)
    g = groups[rows]
    for node in np.unique(g):
        held[np.flatnonzero(g == node)[every - 1::every]] = True
    return rows[~held], rows[held]


def accuracy(y, pred):
    return 100.0 * float(np.mean(np.asarray(pred) == np.asarray(y)))


def linear_mean_scores(X, y, groups, fit_rows, test, Cs=(0.1, 1.0)):
    """Accuracy on ``test`` of the mean of per-person LinearSVC models."""
    out = {}
    classes = np.unique(y)
    for C in Cs:
        coefs, intercepts = [], []
        for node in np.unique(groups[fit_rows]):
            rows = fit_rows[groups[fit_rows] == node]
            if len(np.unique(y[rows])) < 2:
                continue
            model = LinearSVC(C=C, max_iter=5000).fit(X[rows], y[rows])
            coefs.append(model.coef_[0])
            intercepts.append(model.intercept_[0])
        margin = X[test] @ np.mean(coefs, axis=0) + np.mean(intercepts)
        out[C] = (accuracy(y[test], np.where(margin > 0, classes[1], classes[0])), len(coefs))
    return out


def run(seed, skip_online=False, pooled_kernel=False, pooled_start=False):
    from skfed.online import DecentralizedKernelSGDClassifier

    X, y, groups, _ = nn.load("har", seed)
    fit_rows, _, order = nn.split(X, y, groups, seed)
    _, test = nn.new_node_rows(order, 20)
    pooled_all = LogisticRegression(max_iter=1000).fit(X[fit_rows], y[fit_rows])
    lines = [f"seed {seed}: pooled LR (all fitted rows) on new people "
             f"{accuracy(y[test], pooled_all.predict(X[test])):.2f}"]
    for C, (score, n) in linear_mean_scores(X, y, groups, fit_rows, test).items():
        lines.append(f"  mean of {n} per-person LinearSVC(C={C:g}) on new people {score:.2f}")
    if not skip_online:
        train, held = held_out_rows(groups, fit_rows)
        est = DecentralizedKernelSGDClassifier(random_state=seed).fit(
            X[train], y[train], groups=groups[train])
        pooled = LogisticRegression(max_iter=1000).fit(X[train], y[train])
        lines.append(
            f"  online fit (kernel {est.kernel_}, coupling {est.consensus_penalty_:g}) on its "
            f"people's held-out rows {accuracy(y[held], est.predict(X[held], groups=groups[held])):.2f}"
            f" vs pooled LR {accuracy(y[held], pooled.predict(X[held])):.2f}; network function on "
            f"new people {accuracy(y[test], est.predict(X[test], groups=groups[test])):.2f} vs "
            f"pooled LR {accuracy(y[test], pooled.predict(X[test])):.2f}")
    if pooled_kernel:
        one = DecentralizedKernelSGDClassifier(random_state=seed).fit(
            X[fit_rows], y[fit_rows], groups=np.zeros(len(fit_rows), dtype=int))
        lines.append(f"  pooled kernel SGD (one node, kernel {one.kernel_}) on new people "
                     f"{accuracy(y[test], one.predict(X[test], groups=np.zeros(len(test), dtype=int))):.2f}")
    if pooled_start:
        lines.extend(_pooled_start(X, y, groups, fit_rows, order, seed))
    print("\n".join(lines), flush=True)


def _pooled_start(X, y, groups, fit_rows, order, seed):
    """The join from a network function replaced by the one-node fit's."""
    import copy

    from skfed.online import DecentralizedKernelSGDClassifier

    fed = DecentralizedKernelSGDClassifier(random_state=seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    one = DecentralizedKernelSGDClassifier(random_state=seed).fit(
        X[fit_rows], y[fit_rows], groups=np.zeros(len(fit_rows), dtype=int))
    if len(fed.network_dictionary_) != 1 or one.kernel_ != fed.kernel_:
        return [f"  (skipped: {len(fed.network_dictionary_)} components, kernels "
                f"{fed.kernel_} / {one.kernel_})"]
    swapped = copy.deepcopy(fed)
    swapped.network_dictionary_ = [one.dictionaries_[0].copy()]
    swapped.network_coef_ = [one.dual_coef_[0].copy()]
    swapped.network_gamma_ = np.array([float(one.gamma_[0])])
    lines = []
    for k in (5, 10, 20):
        train, test = nn.new_node_rows(order, k)
        cells = []
        for model in (fed, swapped):
            joined = copy.deepcopy(model).add_nodes(X[train], y[train], groups=groups[train])
            cells.append(f"network {accuracy(y[test], model.predict(X[test], groups=groups[test])):.2f}"
                         f" join {accuracy(y[test], joined.predict(X[test], groups=groups[test])):.2f}"
                         f" ({int(np.sum(joined.join_start_ == 'network'))} network starts)")
        lines.append(f"  k {k:2d}: fitted mean: {cells[0]}; pooled one-node function: {cells[1]}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--skip-online", action="store_true")
    parser.add_argument("--pooled-kernel", action="store_true")
    parser.add_argument("--pooled-start", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    with threadpool_limits(1):
        for seed in (int(s) for s in args.seeds.split(",")):
            run(seed, args.skip_online, args.pooled_kernel, args.pooled_start)


if __name__ == "__main__":
    main()
