"""Accuracy reproduction of decentralized online kernel learning (Koppel et al.).

Two experiments, each on a per-node 75/25 train/test split:

1. Koppel's Gaussian-mixture network (``make_gaussian_mixture_network``
   with its default fixed geometry: 5 classes x 3 Gaussians in 2-D on a
   circle, Bayes accuracy 97.5 % on every seed; 20 nodes on a random
   graph), 5 seeds, multiclass hinge with bounded dictionaries (the slides
   report about 95.7 %);
2. real data: UCI HAR sitting-vs-rest and 6 activities, 21 people as
   nodes, per-node 75/25 splits (seeds 0, 1, 2; seed 0 is ``skfed
   compare``'s): the estimator at its defaults and tuned as a user would
   (a routed ``GridSearchCV`` with ``WithinGroupKFold(3)`` on the training
   part over the kernel, its width, the step, ``alpha`` and the dictionary
   budget, refitted on the best setting; its bytes are those of all its
   fits), against Local linear (one standardized ``LinearSVC(C=0.1)`` per
   node), Global linear (the same on the pooled data) and a pooled
   ``SVC()``, with the bytes each sends (the pooled models: the raw-data
   upload).

The Gaussian-mixture experiment also runs

* the same method with ``consensus_penalty=0`` (every node alone);
* scikit-learn's online kernel baseline, ``SGDClassifier.partial_fit`` on
  ``RBFSampler`` features, one sample at a time, as many passes, at equal
  memory: ``D (d + 1 + n_classes) = M (d + n_classes)`` stored floats with
  ``M`` the mean model order of the decentralized method; one model per
  node (local) and one model on the pooled stream (global).

Writes a JSON file and prints two tables.

    python benchmarks/online_experiments.py [--quick] [--no-har | --no-gmm] [--output FILE]
        [--splits 0 1 2] [--tasks sitting activity] [--no-tune]
    python benchmarks/online_experiments.py held-out [--families ...] [--seeds 0 1 2]
        [--variant LABEL=JSON ...]

``held-out`` runs the defaults (and any variants) against the best Global
and the best Local (each the better of LinearSVC / SVC / LogisticRegression,
or Ridge / SVR / LassoCV) on synthetic families (many small alike nodes,
clustered rules, noise features, 2-D moons, 200 features, linear and
nonlinear regression, regression with heavy-tailed noise and with outlying
targets; see ``held_out_family``), with
bytes over the raw upload and CPU seconds.  A variant's
``"random_regular_degree": k`` fits over a random k-regular graph
(``random_regular_topology``) instead of the default ring.  The
classification families were never used to choose a default; the four
regression families chose the regressor's loss (Huber, 2026-11-27).

The defaults (issue 15: kernel="auto", the laplacian kernel on HAR's 561
features, gamma="median", alpha=1e-4, 30 passes, a ring, copies refreshed
once per pass) were chosen on inner per-node 75/25 splits of the HAR
training parts (sitting and activity), never on their test parts; the HAR
test parts (split seeds 0, 1, 2), HAR walking and the Gaussian mixtures
(2 features: the rbf kernel) are the data they were checked on.  The Gaussian-mixture
rows also give the defaults' bytes over the generator's graph and over
their own ring: with 2 features a sample, the ``M n_outputs`` weights sent
every pass, not the samples, make those bytes.

Moved from the user guide (2026-11-28): the measured results of 2026-11-26/27
-----------------------------------------------------------------------------

Measured results
----------------

Held-out data, never used to choose the defaults (measured 2026-11-26;
mean per-node test accuracy, and in brackets bytes over the raw-data
upload; split ``k``: ``train_test_split_per_node(..., test_size=0.25,
random_state=k)``, split 0 being ``skfed compare``'s; Gaussian mixture: 20
nodes on the generator's graph, Bayes accuracy 0.975, where with 2
features ``"auto"`` is the rbf kernel)::

    python benchmarks/online_experiments.py

========================  =============================  ==========================  ============
held-out data             defaults (``kernel_``)         rbf, ``"median"`` (before)  Local linear
========================  =============================  ==========================  ============
HAR sitting, split 0      **0.9903** (1.52x; laplacian)  0.9870 (1.53x)              0.9865
HAR sitting, split 1      **0.9932** (1.54x)             0.9876                      0.9871
HAR sitting, split 2      **0.9961** (1.54x)             0.9934                      0.9879
HAR activity, split 0     **0.9935** (1.86x)             0.9885 (1.75x)              0.9898
HAR activity, split 1     0.9918 (1.86x)                 0.9905                      **0.9922**
HAR activity, split 2     **0.9953** (1.84x)             0.9940                      0.9942
HAR walking, split 0      0.9994 (1.36x)                 0.9994 (1.31x)              0.9994
Gaussian mixture, seed 0  0.9760 (35x; rbf)              0.9760                      --
Gaussian mixture, seed 1  0.9745 (36x; rbf)              0.9745                      --
========================  =============================  ==========================  ============

"Local linear" is one standardized ``LinearSVC`` per node.  A pooled
``SVC()`` scores 0.9720 on sitting and 0.9677 on the activities of split
0, the Global linear model 0.9815 and 0.9818.  The defaults are above
Local linear on every sitting split and on activity splits 0 and 2; on
activity split 1 they are 0.04 point below it (one test window of one
person is worth about 0.05 point of the mean).  Over the three splits the
defaults average 0.9935 on the activities and 0.9932 on sitting, Local
linear 0.9921 and 0.9872.  The same script also tunes the estimator as a
user would, and shows what a peer-to-peer search costs (28 to 34 times the
raw upload): :ref:`bench-online-tuned`.  With ``kernel="auto"`` now a
validated choice (2026-11-27) every HAR split above selects the laplacian
kernel and gives the same accuracy; the selection sends about 1.2 kB
(0.006 % of a fit's bytes).

**Held-out synthetic families** (measured 2026-11-27; never used to choose
any default, until the regression rows chose the regressor's loss, see
:ref:`online-robust`; mean per-node test accuracy, or mean per-node RMSE for the
regressions, lower is better; means of seeds 0, 1, 2; best Global and best
Local are the better of ``LinearSVC`` / ``SVC`` / ``LogisticRegression``,
or ``Ridge`` / ``SVR``, at their defaults, pooled or one per node, on the
same arrays; node ids permuted so that the ring does not follow the
clusters; see ``held_out_family`` in the script for each family)::

    python benchmarks/online_experiments.py held-out
    python benchmarks/online_experiments.py held-out --variant 'laplacian={"kernel": "laplacian"}' --variant 'rbf={"kernel": "rbf"}' --variant 'linear_c1={"kernel": "linear", "consensus_penalty": 1.0}'

===========================  ======================  ==================  ===========  ==========  =====  =========  ===========
held-out family              defaults (``kernel_``)  before              best Global  best Local  x raw  CPU s      linear, c=1
===========================  ======================  ==================  ===========  ==========  =====  =========  ===========
alike                        0.8079 (linear)         0.7239 (laplacian)  0.9086       0.7783      3.73   1.0 (0.7)  0.8065
alike-small                  0.8454 (linear)         0.7452 (laplacian)  0.9170       0.8076      4.78   0.8 (0.5)  0.8390
clustered                    **0.8177** (linear)     0.7570 (laplacian)  0.6671       0.8147      3.17   0.8 (0.6)  0.7663
noise-features               0.7183 (linear)         0.6732 (laplacian)  0.9136       0.7049      3.08   2.2 (1.4)  0.7224
moons-2d                     0.9141 (rbf)            0.9141 (rbf)        0.9223       0.8712      15.91  0.5 (0.2)  0.7993
high-dim                     0.6284 (linear)         0.5810 (laplacian)  0.9005       0.6283      2.30   6.3 (4.5)  0.6119
alike-regression (RMSE)      **0.6085** (linear)     1.2418 (rbf)        1.0481       0.6392      3.18   0.6 (0.5)  0.8532
nonlinear-regression (RMSE)  **0.3236** (rbf)        0.3236 (rbf)        0.4618       0.4683      13.30  0.5 (0.3)  1.1623
===========================  ======================  ==================  ===========  ==========  =====  =========  ===========

"before" is the kernel the defaults used until 2026-11-26 (the nonlinear
candidate: laplacian from 10 features, rbf below; the regressor's rbf);
"CPU s" is the defaults' fit (in brackets: before), the selection included;
"x raw" their bytes over the raw-data upload (the selection's 3 float64 up
and one int32 down a tree edge, 60 bytes with the headers, are 0.1 to 8 %
of the raw upload on these small nodes, included); bold: at least the
better of best Global and best Local.

(The two regression rows are the squared loss, the default until
2026-11-27; the Huber default gives 0.6079 and 0.3243, and Local with
``LassoCV`` among its candidates 0.6296 on ``alike-regression``: see
:ref:`online-robust`, which also covers heavy-tailed noise and outlying
targets.)

**Where it stands.**  The defaults are at least the better of Global and
Local on the clustered rules and the Gaussian-noise regressions (and far
ahead on the nonlinear one), above Local and within 0.9 point of Global on the 2-D
moons, and equal to Local with 200 features.  Where one rule is shared by
many nodes (alike, alike-small, noise features, 200 features) they are 7
to 27 points below **Global**, though above Local: the consensus penalty
pools only nearby nodes.  On the ring a node's copies of its neighbours'
functions are refreshed once a pass, so in 30 passes what a node learns
travels a few hops; a larger ``consensus_penalty`` pulls harder but lowers
the stable step (``eta0``) as much (the ``linear, c=1`` column: no better
than the defaults' ``c=0.1`` on the alike families, worse on the others),
and denser graphs send more (every neighbour gets every sample).  For such data use a Global
model, or kernel multi-task learning (:ref:`multitask`), which pools every
node through its server (at the defaults it matches Global on 100 alike
nodes of 50 samples in 300 dimensions, :ref:`multitask`).

Moved from the user guide (2026-11-28): the robust losses' rationale
--------------------------------------------------------------------

With the squared loss a single target far from the rest moves a node's
function by ``eta |f(x) - y|``, and the move reaches the neighbours
through the consensus term; under heavy-tailed noise the fit is ruined
(an adversarial probe: 30 nodes of 40 samples, 10 features, ``y`` = a
sparse linear signal + ``0.5 t(1.5)``, R^2 against the noiseless signal
-0.48 / -0.59 / -0.01 on seeds 0 / 1 / 2, against 0.43 / 0.52 / 0.39 for
Local ``SVR`` and 0.93 / 0.92 / 0.94 for Global ``LassoCV``, at 7.7 times
the raw upload).

Bold: at least the better of Global and Local.  Huber at ``loss_epsilon =
1`` is the default because it loses nothing that matters where the noise
is Gaussian (the same RMSE as the squared loss to 0.2 %: 0.0006 better on
``alike-regression`` on the mean of the seeds, 0.0005 to 0.0007 worse on
the nonlinear one on every seed) and
cuts the RMSE 3.2 times under heavy-tailed noise and 2.2 times with
outlying targets, at fewer bytes (with the outliers in its held-out loss
the squared loss's ``kernel="auto"`` picked the laplacian kernel and its
larger dictionaries; Huber picks the linear one here).  On the probe's
own script (``d2.py heavy reg SEED KSGD-R``, R^2 against the noiseless
signal) the default scores 0.78 / 0.77 / 0.85 on seeds 0 / 1 / 2 against
Local ``SVR``'s 0.43 / 0.52 / 0.39 (Global ``LassoCV`` 0.93 / 0.92 / 0.94),
at 3.0 times the raw upload instead of 7.7.  It does not reach Global with heavy-tailed noise (0.43
against 0.29: a pooled ``SVR`` or ``LassoCV`` sees 1200 samples of one
sparse rule).  A smaller threshold is more robust but costs accuracy
where the noise is Gaussian (0.5: 3.5 % worse on the nonlinear family),
and below about ``0.25`` the bounded pull makes learning too slow in 30
passes (0.1: RMSE 0.50 and 1.07 on seed 0 of the two robust families).

Standardizing the regressor's targets, tried on 2026-11-28 and not kept.
review7 found that the regressor loses targets in small units (KOMP's
``epsilon`` is an absolute RKHS norm: relative test error 1.016 at
``y * 2^-10`` against 0.006) and targets with an offset (``y + 10``: 8.8;
the rbf model has no intercept); ``tests/test_review7_online_regressor_units.py``
holds both as strict xfails.  Tried: the solver learns ``(y - offset) /
scale``, the offset the mean of the nodes' median targets and the scale
the agreed geometric mean of ``1.4826 MAD`` (one tree round, 4 float64
up and 2 down), predictions mapped back.  Both xfails passed, but the
held-out regressions (``held-out --seeds 0 1 2 --families
alike-regression nonlinear-regression heavy-tailed-regression
outlier-regression``, RMSE) moved 0.6079 -> 0.6233 (alike), 0.3243 ->
0.3182 (nonlinear), 0.2175 -> 0.2177 (heavy-tailed) and 0.5063 -> 0.5347
(outliers); with ``epsilon=0.005`` in the new units alike 0.6116 and
outliers 0.5223 (agreed scales 1.70 / 0.98 / 0.89 / 1.72: KOMP's budget
became up to 1.7 times coarser).  School's online joins fell on seed 0
(``new_nodes.py --families online --datasets school``: k = 5 29.7 -> 27.8,
k = 10 32.4 -> 31.8), the refit unchanged (2.9).  The offset also costs a
linear rule without intercept: the mean of the node medians (-0.50 on
``tests/test_online_selection.py``'s alike linear data, scale 3.3) made
the affine kernel beat the linear one.  A scale-only encoding (offset 0,
the same day, same commands): alike 0.6186, nonlinear 0.3243,
heavy-tailed 0.2176, outliers 0.5204 at ``epsilon=0.01``, and 0.6094 /
0.3242 / 0.2175 / 0.5096 at ``epsilon=0.006`` in its units (within 0.3
and 0.7 % of today's default); School seed 0 joins 28.1 / 32.7 / 33.1 at
``k = 5 / 10 / 20`` (29.7 / 32.4 at ``k = 5 / 10`` before), refits 3.9 /
11.4 / 19.4.

The encoding kept (onlineunits, 2026-11-28): the solver learns ``(y -
target_offset_) / target_scale_`` for every loss, the scale as before and
the offset the pooled mean of every node's targets winsorized at 3 robust
deviations from its median, used only when it is more than 2 standard
errors from 0 (the larger of the between-node sandwich and ``scale /
sqrt(n)``), else 0; ``epsilon`` in units of the scale, default 0.005.
Why each piece, measured with a script that fits the defaults on the
four held-out regressions (seeds 0, 1, 2, RMSE; main: 0.6079 / 0.3243 /
0.2175 / 0.5063 for alike / nonlinear / heavy-tailed / outliers):

* the mean of the node medians, always used (the try above), costs a
  linear rule without intercept the noise of the mean: 0.6116 and 0.5223
  at ``epsilon=0.005``; a post-hoc network intercept (the mean of the
  nodes' median training residuals, added to the predictions) recovered
  only part of it (0.6099, 0.5137): the linear function had absorbed
  part of the offset through the nodes' feature means;
* used only beyond 2 standard errors, the offset is 0 on the linear
  families and kept on the nonlinear one (0.5571 to 0.6915): 0.6096 /
  0.3181 / 0.2171 / 0.5053;
* on School (``new_nodes.py``'s standardized scores) the mean of the
  medians is -0.145, 2 standard errors off 0, and a linear kernel
  without intercept cannot undo it: seed 0's ``k = 5`` join 29.7 against
  main's 31.7.  The winsorized mean is the mean for skewed targets
  (School's: offset 0 now) and still ignores a few huge values
  (outliers: 0.5053);
* ``epsilon`` in units of the scale (winsorized offset): 0.0109 / 0.008 /
  0.005 / 0.004 give alike 0.6238 / 0.6142 / 0.6096 / 0.6089, outliers
  0.5274 / 0.5104 / 0.5053 / 0.5056, nonlinear and heavy-tailed within
  0.3180-0.3181 and 0.2171-0.2181 (main's absolute 0.01 is 0.0059 and
  0.0058 in the alike and outlier families' scales, 1.70 and 1.72).
  School's seed 0 ``k = 5`` join at 0.0109 / 0.006 / 0.005 / 0.004:
  31.5 / 32.0 / 30.8 / 32.0: not monotone, the 28 newcomers' 5
  samples make it move by a point with the dictionaries.  Over seeds 0,
  1, 2 (``new_nodes.py --families online --datasets school --seeds 0,1,2
  --ks 5,10,20``) the joins at ``k = 5 / 10 / 20`` are 31.9 / 32.9 / 34.2
  at 0.0109 (main's rows), 31.3 / 32.7 / 34.5 at 0.005 and 31.2 / 32.6 /
  34.3 at 0.004 (at 0.006, ``k = 5``: 32.0 / 29.7 / 32.3 on the seeds,
  31.3; held-out outliers 0.5096, alike 0.6094).  0.005 is the default: 0.0109 costs the held-out alike
  and outlier regressions 2.6 and 4.1 % RMSE, 0.005 costs School's
  ``k = 5`` join 0.6 (under pooled Ridge's 31.8 by 0.5) and gains 0.3 at
  ``k = 20``.  The held-out table with bytes (defaults, ``c = 0.1``,
  ``epsilon=0.004``): ``held-out --seeds 0 1 2 --families
  alike-regression nonlinear-regression heavy-tailed-regression
  outlier-regression --variant 'weak={"consensus_penalty": 0.1}'
  --variant 'eps4={"epsilon": 0.004}'``: defaults 0.6096 / 0.3180 /
  0.2171 / 0.5053 at 16.4 / 71.5 / 13.3 / 16.3 times the raw upload
  (main 0.6079 / 0.3243 / 0.2225 / 0.5057 at 15.8 / 63.2 / 12.9 / 15.7),
  ``c = 0.1`` 0.6096 / 0.3180 / 0.4321 / 0.5053 at 3.8 / 16.8 / 3.5 / 3.8
  (main 3.2 / 13.4 / 3.0 / 3.2), 0.004 0.6089 / 0.3180 / 0.2173 / 0.5056.
"""

import argparse
import json
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

from skfed.baselines import LocalEstimator, pooled_data_bytes
from skfed.datasets import (
    load_har,
    make_gaussian_mixture_network,
    make_related_tasks,
    make_rotated_moons,
    train_test_split_per_node,
)
from skfed.model_selection import GroupScorer, WithinGroupKFold, make_group_scorer
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier


def rff_sgd(Xtr, ytr, gtr, Xte, yte, gte, *, gamma, n_components, alpha, epochs, seed,
            per_node):
    """SGDClassifier.partial_fit on RBFSampler features, one sample at a time."""
    classes = np.unique(ytr)
    groups = np.unique(gtr) if per_node else [None]
    correct = 0
    rng = np.random.RandomState(seed)
    for node in groups:
        tr = np.ones(len(ytr), bool) if node is None else gtr == node
        te = np.ones(len(yte), bool) if node is None else gte == node
        rff = RBFSampler(gamma=gamma, n_components=n_components, random_state=seed)
        Ftr = rff.fit(Xtr[tr]).transform(Xtr[tr])
        sgd = SGDClassifier(loss="hinge", alpha=alpha, random_state=seed)
        for _ in range(epochs):
            for t in rng.permutation(len(Ftr)):
                sgd.partial_fit(Ftr[t : t + 1], ytr[tr][t : t + 1], classes=classes)
        correct += (sgd.predict(rff.transform(Xte[te])) == yte[te]).sum()
    return correct / len(yte)


def equal_memory_components(model_order, n_features, n_classes):
    return max(1, int(round(model_order * (n_features + n_classes) / (n_features + 1 + n_classes))))


def run_experiment(name, Xtr, Xte, ytr, yte, gtr, gte, *, network, params, svc, rff_epochs,
                   seed):
    row = {"experiment": name, "seed": seed, "n_nodes": int(len(np.unique(gtr))),
           "n_train": int(len(ytr)), "n_test": int(len(yte))}
    t0 = time.perf_counter()
    clf = DecentralizedKernelSGDClassifier(network=network, random_state=seed, **params)
    clf.fit(Xtr, ytr, groups=gtr)
    row["skfed_accuracy"] = float(clf.score(Xte, yte, groups=gte))
    row["skfed_fit_s"] = time.perf_counter() - t0
    row["model_order_mean"] = float(clf.model_order_.mean())
    row["model_order_max"] = int(clf.model_order_.max())
    row["model_order_curve_max"] = int(clf.model_order_curve_.max())
    row["komp_error_max"] = float(clf.komp_error_.max())
    row["n_bytes_sent"] = int(clf.n_bytes_sent_)
    row["n_rounds"] = int(clf.n_iter_)
    row["final_consensus_error"] = float(np.nanmean(clf.consensus_error_curve_[-50:]))
    alone = DecentralizedKernelSGDClassifier(network=network, random_state=seed,
                                             **{**params, "consensus_penalty": 0.0})
    row["skfed_no_consensus_accuracy"] = float(alone.fit(Xtr, ytr, groups=gtr).score(
        Xte, yte, groups=gte))
    t0 = time.perf_counter()
    row["svc_pooled_accuracy"] = float(svc.fit(Xtr, ytr).score(Xte, yte))
    row["svc_fit_s"] = time.perf_counter() - t0
    gamma = params["gamma"]
    n_classes = len(np.unique(ytr))
    n_out = 1 if n_classes == 2 else n_classes
    D = equal_memory_components(row["model_order_mean"], Xtr.shape[1], n_out)
    row["rff_components"] = D
    for per_node, key in [(True, "sgd_rff_local_accuracy"), (False, "sgd_rff_pooled_accuracy")]:
        row[key] = float(rff_sgd(Xtr, ytr, gtr, Xte, yte, gte, gamma=gamma, n_components=D,
                                 alpha=params["alpha"], epochs=rff_epochs, seed=seed,
                                 per_node=per_node))
    return row


# The "tuned" row: what a user would do, a routed GridSearchCV with a 3-fold
# split inside every node (WithinGroupKFold) over the step, the
# regularization, the kernel and its width and the dictionary budget, scored
# by accuracy, refitted on the best setting.  Its bytes are those of every
# fit it ran (7 settings x 3 folds, then the refit).
HAR_GRID = [
    {"gamma": ["median", "scale"], "max_dictionary_size": [100, 150]},
    {"alpha": [3e-5]},
    {"eta0": [0.3]},
    {"kernel": ["rbf"]},
]


def mean_node_accuracy(pred, yte, gte):
    return float(np.mean([np.mean(pred[gte == k] == yte[gte == k]) for k in np.unique(gte)]))


class _BytesScorer(GroupScorer):
    """The bytes the fitted estimator sent (read by the search as a 'score')."""

    def __init__(self):
        super().__init__(accuracy_score)

    def __call__(self, estimator, X, y_true, groups=None, sample_weight=None, **kwargs):
        return float(estimator.n_bytes_sent_)


def tuned_search(Xtr, ytr, gtr, seed):
    """GridSearchCV over HAR_GRID inside every node's training part; returns
    the search and the bytes of all its fits."""
    from sklearn import config_context

    with config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            DecentralizedKernelSGDClassifier(random_state=seed), HAR_GRID,
            cv=WithinGroupKFold(n_splits=3, shuffle=True, random_state=seed),
            scoring={"accuracy": make_group_scorer(accuracy_score), "bytes": _BytesScorer()},
            refit="accuracy", n_jobs=1,
        )
        search.fit(Xtr, ytr, groups=gtr)
    n_splits = search.n_splits_
    cv_bytes = float(np.sum(search.cv_results_["mean_test_bytes"]) * n_splits)
    return search, cv_bytes + search.best_estimator_.n_bytes_sent_


def har_rows(task, split=0, tune=True):
    """Defaults vs tuned vs Local / Global linear / pooled SVC on one HAR task
    and one per-node 75/25 split (seed ``split``)."""
    X, y, g = load_har(task=task, return_X_y=True)
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, g, test_size=0.25,
                                                              random_state=split)
    raw = int(pooled_data_bytes(Xtr, ytr, gtr))
    rows = []

    def add(method, pred, n_bytes, seconds, **extra):
        rows.append({"task": task, "split": split, "method": method,
                     "mean_node_accuracy": mean_node_accuracy(np.asarray(pred), yte, gte),
                     "bytes": int(n_bytes), "bytes_over_raw": n_bytes / raw,
                     "fit_s": seconds, **extra})
        print(json.dumps(rows[-1]), flush=True)

    t0 = time.perf_counter()
    clf = DecentralizedKernelSGDClassifier(random_state=0).fit(Xtr, ytr, groups=gtr)
    add("skfed defaults", clf.predict(Xte, groups=gte), clf.n_bytes_sent_,
        time.perf_counter() - t0, kernel_=clf.kernel_,
        model_order_max=int(clf.model_order_.max()), eta0_=clf.eta0_,
        step_bound_=clf.step_bound_)
    if tune:
        t0 = time.perf_counter()
        search, search_bytes = tuned_search(Xtr, ytr, gtr, seed=0)
        best = search.best_estimator_
        add("skfed tuned", best.predict(Xte, groups=gte), search_bytes,
            time.perf_counter() - t0, best_params=search.best_params_,
            cv_accuracy=float(search.best_score_), refit_bytes=int(best.n_bytes_sent_),
            model_order_max=int(best.model_order_.max()))
    linear = make_pipeline(StandardScaler(), LinearSVC(C=0.1, max_iter=10000, random_state=0))
    t0 = time.perf_counter()
    local = LocalEstimator(linear).fit(Xtr, ytr, groups=gtr)
    add("local linear", local.predict(Xte, groups=gte), 0, time.perf_counter() - t0)
    t0 = time.perf_counter()
    glob = linear.fit(Xtr, ytr)
    add("global linear", glob.predict(Xte), raw, time.perf_counter() - t0)
    t0 = time.perf_counter()
    svc = SVC().fit(Xtr, ytr)
    add("pooled SVC()", svc.predict(Xte), raw, time.perf_counter() - t0)
    return rows


# ---------------------------------------------------------------- held out
# Families never used to choose the defaults (issue: the probe's finding that
# the defaults lose to Global).  Node ids are relabelled by a random
# permutation, so that the default ring does not link nodes of one cluster by
# the accident of consecutive ids.  Every family: (kind, arrays).
HELD_OUT_FAMILIES = ("alike", "alike-small", "clustered", "noise-features", "moons-2d",
                     "high-dim", "alike-regression", "nonlinear-regression",
                     "heavy-tailed-regression", "outlier-regression")


def _relabel(gtr, gte, rng):
    perm = rng.permutation(int(gtr.max()) + 1)
    return perm[gtr], perm[gte]


def _linear_regression_tasks(n_nodes, n_per, n_test, n_features, personal, noise, rng):
    w0 = rng.normal(size=n_features)
    coef = w0 + personal * rng.normal(size=(n_nodes, n_features))
    out = []
    for n in (n_per, n_test):
        X = rng.normal(size=(n_nodes * n, n_features))
        g = np.repeat(np.arange(n_nodes), n)
        y = np.einsum("ij,ij->i", X, coef[g]) + noise * rng.normal(size=len(g))
        out.append((X, y, g))
    (X, y, g), (Xt, yt, gt) = out
    return X, Xt, y, yt, g, gt


def held_out_family(name, seed):
    """``(task, Xtr, Xte, ytr, yte, gtr, gte)`` of one held-out family and seed.

    * ``alike``: 200 nodes x 30 samples, 20 features, one linear rule plus a
      0.3 personal perturbation (``make_related_tasks``, shared);
    * ``alike-small``: 300 nodes x 20 samples, 10 features, the same;
    * ``clustered``: 120 nodes x 40 samples, 20 features, 4 rules;
    * ``noise-features``: 150 nodes x 40 samples, 5 informative features of
      a shared rule (+0.3 personal) and 45 pure-noise features;
    * ``moons-2d``: 100 nodes x 20-40 samples of the two moons in 2-D, one
      rotation for all plus a personal jitter of 0.3 rad;
    * ``high-dim``: 100 nodes x 50 samples, 200 features, shared rule;
    * ``alike-regression``: 150 nodes x 30 samples, 10 features, y = x . w_k
      + noise 0.5, w_k = w + 0.3 u_k;
    * ``nonlinear-regression``: 100 nodes x 40 samples, 2 features, y =
      sin(2 x_1) + x_2^2 / 2 + a personal offset and slope (scale 0.3) +
      noise 0.2;
    * ``heavy-tailed-regression``: 30 nodes x 40 samples, 10 features, y =
      x . w_k / sqrt(3) + 0.5 t(1.5) (Student noise of infinite variance),
      w_k a shared rule on 3 features + 0.1 personal; scored against the
      noiseless x . w_k / sqrt(3);
    * ``outlier-regression``: 60 nodes x 30 samples, 10 features, y = x .
      w_k + noise 0.3, w_k = w + 0.3 u_k, and 5 % of the training targets
      (at random) shifted by N(0, 10^2); scored against the noiseless x . w_k.
    """
    rng = np.random.RandomState(1000 + seed)
    task = "classification"
    if name in ("alike", "alike-small", "clustered", "high-dim"):
        n_nodes, n_per, d, structure = {
            "alike": (200, 30, 20, "shared"), "alike-small": (300, 20, 10, "shared"),
            "clustered": (120, 40, 20, "clustered"), "high-dim": (100, 50, 200, "shared"),
        }[name]
        Xtr, Xte, ytr, yte, gtr, gte, _ = make_related_tasks(
            n_nodes, structure=structure, n_samples_per_node=n_per, n_features=d,
            personal_scale=0.3, random_state=seed)
    elif name == "noise-features":
        Xtr, Xte, ytr, yte, gtr, gte, _ = make_related_tasks(
            150, structure="shared", n_samples_per_node=40, n_features=5,
            personal_scale=0.3, random_state=seed)
        Xtr = np.hstack([Xtr, rng.normal(size=(len(Xtr), 45))])
        Xte = np.hstack([Xte, rng.normal(size=(len(Xte), 45))])
    elif name == "moons-2d":
        Xtr, Xte, ytr, yte, gtr, gte = make_rotated_moons(
            100, n_clusters=1, n_samples_range=(20, 40), n_test_per_node=50, n_features=2,
            noise=0.15, angle_jitter=0.3, random_state=seed)[:6]
    elif name == "alike-regression":
        task = "regression"
        Xtr, Xte, ytr, yte, gtr, gte = _linear_regression_tasks(150, 30, 50, 10, 0.3, 0.5, rng)
    elif name == "nonlinear-regression":
        task = "regression"
        n_nodes = 100
        offset, slope = 0.3 * rng.normal(size=n_nodes), 0.3 * rng.normal(size=n_nodes)
        parts = []
        for n in (40, 50):
            X = rng.uniform(-2, 2, size=(n_nodes * n, 2))
            g = np.repeat(np.arange(n_nodes), n)
            y = (np.sin(2 * X[:, 0]) + X[:, 1] ** 2 / 2 + offset[g] + slope[g] * X[:, 0]
                 + 0.2 * rng.normal(size=len(g)))
            parts.append((X, y, g))
        (Xtr, ytr, gtr), (Xte, yte, gte) = parts
    elif name == "heavy-tailed-regression":
        task = "regression"
        n_nodes, d, informative = 30, 10, 3
        coef = np.zeros((n_nodes, d))
        coef[:, :informative] = rng.normal(size=informative) + 0.1 * rng.normal(
            size=(n_nodes, informative))
        parts = []
        for n in (40, 20):
            X = rng.normal(size=(n_nodes * n, d))
            g = np.repeat(np.arange(n_nodes), n)
            parts.append((X, np.einsum("ij,ij->i", X, coef[g]) / np.sqrt(informative), g))
        (Xtr, ytr, gtr), (Xte, yte, gte) = parts
        ytr = ytr + 0.5 * rng.standard_t(1.5, size=len(ytr))
    elif name == "outlier-regression":
        task = "regression"
        Xtr, Xte, ytr, yte, gtr, gte = _linear_regression_tasks(60, 30, 30, 10, 0.3, 0.0, rng)
        ytr = ytr + 0.3 * rng.normal(size=len(ytr))
        outlier = rng.rand(len(ytr)) < 0.05
        ytr[outlier] += 10.0 * rng.normal(size=int(outlier.sum()))
    else:
        raise ValueError(f"unknown family {name!r}; choose from {HELD_OUT_FAMILIES}")
    gtr, gte = _relabel(np.asarray(gtr), np.asarray(gte), rng)
    return task, Xtr, Xte, ytr, yte, gtr, gte


def _node_score(task, pred, yte, gte):
    """Mean per-node accuracy (classification) or RMSE (regression)."""
    nodes = np.unique(gte)
    if task == "regression":
        return float(np.mean([np.sqrt(np.mean((pred[gte == k] - yte[gte == k]) ** 2))
                              for k in nodes]))
    return float(np.mean([np.mean(pred[gte == k] == yte[gte == k]) for k in nodes]))


def held_out_baselines(task, Xtr, Xte, ytr, yte, gtr, gte):
    """Global (pooled) and Local (one per node) scores of the standard
    estimators at their defaults: LinearSVC / SVC / LogisticRegression, or
    Ridge / SVR / LassoCV (3 folds)."""
    import warnings

    from sklearn.base import clone
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LassoCV, LogisticRegression, Ridge
    from sklearn.svm import SVR

    candidates = ({"Ridge": Ridge(), "SVR": SVR(), "LassoCV": LassoCV(cv=3)}
                  if task == "regression" else
                  {"LinearSVC": LinearSVC(), "SVC": SVC(),
                   "LogisticRegression": LogisticRegression()})
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for label, est in candidates.items():
            t0 = time.process_time()
            pred = clone(est).fit(Xtr, ytr).predict(Xte)
            out[f"global {label}"] = (_node_score(task, pred, yte, gte),
                                      time.process_time() - t0)
            t0 = time.process_time()
            local = LocalEstimator(clone(est)).fit(Xtr, ytr, groups=gtr)
            out[f"local {label}"] = (_node_score(task, local.predict(Xte, groups=gte), yte,
                                                 gte), time.process_time() - t0)
    return out


def random_regular_topology(n_nodes, degree, seed):
    """A random graph of even ``degree`` (an expander with high probability)
    at linear cost: the union of ``degree / 2`` cycles through the nodes in
    random orders (a repeated edge counts once, so a few nodes have a
    smaller degree); connected, since each cycle visits every node."""
    from scipy import sparse

    rng = np.random.RandomState(seed)
    rows, cols = [], []
    for _ in range(degree // 2):
        order = rng.permutation(n_nodes)
        rows.append(order)
        cols.append(np.roll(order, -1))
    rows, cols = np.concatenate(rows + cols), np.concatenate(cols + rows)
    keep = rows != cols
    A = sparse.csr_matrix((np.ones(int(keep.sum())), (rows[keep], cols[keep])),
                          shape=(n_nodes, n_nodes))
    A.sum_duplicates()
    A.data[:] = 1.0
    return A


def _variant_params(params, n_nodes, seed):
    """A variant's estimator parameters; ``"random_regular_degree": k``
    becomes ``network=SimulatedNetwork(topology=...)`` of that graph."""
    params = dict(params)
    degree = params.pop("random_regular_degree", None)
    if degree is not None:
        params["network"] = SimulatedNetwork(
            topology=random_regular_topology(n_nodes, int(degree), seed))
    return params


def held_out_rows(families, seeds, variants):
    """The defaults (and any ``variants``: dicts of parameters) against the
    best Global and best Local on every held-out family and seed."""
    from skfed.online import DecentralizedKernelSGDRegressor

    rows = []
    for name in families:
        for seed in seeds:
            task, Xtr, Xte, ytr, yte, gtr, gte = held_out_family(name, seed)
            raw = float(pooled_data_bytes(Xtr, ytr, gtr))
            base = held_out_baselines(task, Xtr, Xte, ytr, yte, gtr, gte)
            pick = min if task == "regression" else max
            best_global = pick(base[k][0] for k in base if k.startswith("global"))
            best_local = pick(base[k][0] for k in base if k.startswith("local"))
            row = {"family": name, "seed": seed, "task": task,
                   "n_nodes": int(len(np.unique(gtr))), "n_train": int(len(ytr)),
                   "n_features": int(Xtr.shape[1]),
                   "best_global": best_global, "best_local": best_local,
                   "baselines": {k: v[0] for k, v in base.items()},
                   "baseline_cpu_s": {k: v[1] for k, v in base.items()}}
            Est = (DecentralizedKernelSGDRegressor if task == "regression"
                   else DecentralizedKernelSGDClassifier)
            for label, params in variants:
                t0 = time.process_time()
                est = Est(random_state=seed, **_variant_params(params, row["n_nodes"], seed))
                est.fit(Xtr, ytr, groups=gtr)
                cpu = time.process_time() - t0
                score = _node_score(task, est.predict(Xte, groups=gte), yte, gte)
                row[label] = {"score": score, "bytes_over_raw": est.n_bytes_sent_ / raw,
                              "cpu_s": cpu, "kernel_": est.kernel_,
                              "model_order_mean": float(est.model_order_.mean())}
                if getattr(est, "kernel_selection_", None) is not None:
                    row[label]["mean_validation_loss"] = _jsonable(
                        est.kernel_selection_["mean_validation_loss"])
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (np.ndarray, list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def held_out_table(rows, variants):
    """Means over seeds: score, best Global, best Local, bytes / raw, CPU."""
    lines = [f"{'family':22s} {'task':5s} {'variant':14s} {'score':>7s} {'Global':>7s} "
             f"{'Local':>7s} {'vs best':>8s} {'x raw':>6s} {'CPU s':>6s} kernel_"]
    for name in dict.fromkeys(r["family"] for r in rows):
        part = [r for r in rows if r["family"] == name]
        reg = part[0]["task"] == "regression"
        glob = np.mean([r["best_global"] for r in part])
        loc = np.mean([r["best_local"] for r in part])
        best = min(glob, loc) if reg else max(glob, loc)
        for label, _ in variants:
            score = np.mean([r[label]["score"] for r in part])
            gap = (best - score) if reg else (score - best)  # > 0: better than both
            lines.append(
                f"{name:22s} {'reg' if reg else 'clf':5s} {label:14s} {score:7.4f} "
                f"{glob:7.4f} {loc:7.4f} {gap:+8.4f} "
                f"{np.mean([r[label]['bytes_over_raw'] for r in part]):6.2f} "
                f"{np.mean([r[label]['cpu_s'] for r in part]):6.1f} "
                f"{','.join(sorted({r[label]['kernel_'] for r in part}))}")
    return "\n".join(lines)


def held_out_main(argv):
    parser = argparse.ArgumentParser(
        prog="online_experiments.py held-out",
        description="The defaults against the best Global and best Local on data "
                    "families never used to choose them (mean per-node accuracy, or "
                    "RMSE for regression; 'vs best' > 0 means better than both).")
    parser.add_argument("--families", nargs="+", default=list(HELD_OUT_FAMILIES),
                        choices=HELD_OUT_FAMILIES)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--variant", action="append", default=[], metavar="LABEL=JSON",
                        help='extra parameter sets, e.g. linear=\'{"kernel": "linear"}\'; '
                             '"random_regular_degree": k fits over a random k-regular graph')
    parser.add_argument("--output", default="online_held_out.json")
    args = parser.parse_args(argv)
    variants = [("defaults", {})]
    for text in args.variant:
        label, _, params = text.partition("=")
        variants.append((label, json.loads(params)))
    with threadpool_limits(limits=1, user_api="blas"):
        rows = held_out_rows(args.families, args.seeds, variants)
    table = held_out_table(rows, variants)
    print(table)
    with open(args.output, "w") as fh:
        json.dump({"rows": rows, "table": table}, fh, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, no HAR")
    parser.add_argument("--output", default="online_experiments.json")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4],
                        help="seeds of the Gaussian-mixture networks")
    parser.add_argument("--no-har", action="store_true")
    parser.add_argument("--no-gmm", action="store_true", help="HAR only")
    parser.add_argument("--splits", type=int, nargs="+", default=[0, 1, 2],
                        help="seeds of the HAR per-node 75/25 splits")
    parser.add_argument("--tasks", nargs="+", default=["sitting", "activity"],
                        help="HAR tasks")
    parser.add_argument("--no-tune", action="store_true",
                        help="skip the tuned row (its grid search makes 22 fits)")
    args = parser.parse_args()
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        seeds = [] if args.no_gmm else [0] if args.quick else args.seeds
        for seed in seeds:
            X, y, g, A = make_gaussian_mixture_network(
                n_nodes=20, n_samples_per_node=400, random_state=seed
            )
            parts = train_test_split_per_node(X, y, g, random_state=seed)
            rows.append(run_experiment(
                "gaussian-mixture", *parts, network=SimulatedNetwork(A),
                params=dict(loss="hinge", gamma=1.0, eta0=0.3, alpha=1e-3, epsilon=0.1,
                            consensus_penalty=0.1, max_epochs=5),
                svc=SVC(gamma=1.0, C=10.0), rff_epochs=5, seed=seed,
            ))
            # Held-out check of the defaults (chosen on HAR), on the same graph.
            Xtr, Xte, ytr, yte, gtr, gte = parts
            defaults = DecentralizedKernelSGDClassifier(network=SimulatedNetwork(A),
                                                        random_state=seed)
            rows[-1]["skfed_defaults_accuracy"] = float(
                defaults.fit(Xtr, ytr, groups=gtr).score(Xte, yte, groups=gte))
            rows[-1]["skfed_defaults_bytes_over_raw"] = (
                defaults.n_bytes_sent_ / pooled_data_bytes(Xtr, ytr, gtr))
            # The same defaults over their own topology (a ring, as on HAR):
            # bytes ~ deg (own data + passes x M n_outputs weights).
            ring = DecentralizedKernelSGDClassifier(random_state=seed).fit(Xtr, ytr, groups=gtr)
            rows[-1]["skfed_defaults_ring_accuracy"] = float(ring.score(Xte, yte, groups=gte))
            rows[-1]["skfed_defaults_ring_bytes_over_raw"] = (
                ring.n_bytes_sent_ / pooled_data_bytes(Xtr, ytr, gtr))
            rows[-1]["skfed_defaults_model_order_mean"] = float(defaults.model_order_.mean())
            rows[-1]["graph_mean_degree"] = float(defaults.adjacency_.sum(axis=1).mean())
            print(json.dumps(rows[-1]), flush=True)
    har = []
    if not (args.quick or args.no_har):
        with threadpool_limits(limits=1, user_api="blas"):
            for task in args.tasks:
                for split in args.splits:
                    har.extend(har_rows(task, split, tune=not args.no_tune))

    header = (f"{'experiment':18s} {'seed':>4s} {'skfed':>7s} {'default':>7s} {'c=0':>7s} "
              f"{'SVC':>7s} "
              f"{'RFF loc':>7s} {'RFF pool':>8s} {'M mean':>7s} {'M max':>6s} {'MB sent':>8s} "
              f"{'def x raw':>9s} {'ring':>7s} {'x raw':>6s}")
    print(header)
    for r in rows:
        print(f"{r['experiment']:18s} {r['seed']:4d} {r['skfed_accuracy']:7.4f} "
              f"{r['skfed_defaults_accuracy']:7.4f} {r['skfed_no_consensus_accuracy']:7.4f} {r['svc_pooled_accuracy']:7.4f} "
              f"{r['sgd_rff_local_accuracy']:7.4f} {r['sgd_rff_pooled_accuracy']:8.4f} "
              f"{r['model_order_mean']:7.1f} {r['model_order_curve_max']:6d} "
              f"{r['n_bytes_sent'] / 1e6:8.1f} {r['skfed_defaults_bytes_over_raw']:9.1f} "
              f"{r['skfed_defaults_ring_accuracy']:7.4f} "
              f"{r['skfed_defaults_ring_bytes_over_raw']:6.1f}")
    gmm = [r for r in rows if r["experiment"] == "gaussian-mixture"]
    summary = {} if not gmm else {
        "gaussian_mixture_mean_accuracy": float(np.mean([r["skfed_accuracy"] for r in gmm])),
        "gaussian_mixture_mean_svc_accuracy": float(np.mean([r["svc_pooled_accuracy"] for r in gmm])),
        "gaussian_mixture_mean_defaults_accuracy": float(
            np.mean([r["skfed_defaults_accuracy"] for r in gmm])),
    }
    if har:
        print(f"\n{'HAR task':9s} {'split':>5s} {'method':15s} {'mean node acc':>13s} "
              f"{'MB sent':>8s} {'x raw':>6s} {'fit s':>6s}")
        for r in har:
            print(f"{r['task']:9s} {r['split']:5d} {r['method']:15s} "
                  f"{r['mean_node_accuracy']:13.4f} {r['bytes'] / 1e6:8.1f} "
                  f"{r['bytes_over_raw']:6.2f} {r['fit_s']:6.1f}")
        for r in har:
            if r["method"] == "skfed tuned":
                print(f"tuned {r['task']} split {r['split']}: {r['best_params']} "
                      f"(CV accuracy {r['cv_accuracy']:.4f}; refit alone "
                      f"{r['refit_bytes'] / 1e6:.1f} MB)")
    with open(args.output, "w") as fh:
        json.dump({"rows": rows, "har": har, "summary": summary}, fh, indent=1)
    print(json.dumps(summary))


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["held-out"]:
        held_out_main(sys.argv[2:])
    else:
        main()
