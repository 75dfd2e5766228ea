"""A network function trained on the nodes' losses, for the online join (issue 32).

The online learner's network function (``network_dictionary_``,
``network_coef_``) is the plain mean of the fitted nodes' functions, and a
newcomer of ``benchmarks/new_nodes.py`` mostly keeps it: on HAR it bounds
the join (95.5 / 96.0 / 96.1 against pooled LogisticRegression's 97.9),
while a one-node function fitted on the pooled rows would give 97.1
(``online_har_fit.py --pooled-start``).  This script measures shared
functions the nodes could compute without moving a sample, each swapped in
as the network function of the same fit before the package's join:

``mean``
    the fit's network function (today's);
``span-<loss>-<weighting>``
    the network function's weights re-solved on its own points (which every
    node holds once the network function has reached it), minimizing the
    nodes' summed regularized loss ``sum_i c_i sum_{s in i} loss(f(x_s),
    y_s) + (alpha / 2) ||f||^2`` with ``f = sum_j a_j k(z_j, .)`` over the
    network function's points ``z_j``, by L-BFGS run at the spanning tree's
    root: every evaluation is one tree round in which each node sends its
    parent the sum of its subtree's loss and gradient (``m + 1`` float64,
    ``m`` the points) and the root sends the next ``a`` down (``m``
    float64).  ``c_i`` is 1 (``samples``: the pooled objective) or ``1 /
    n_i`` (``nodes``: every node's mean loss counts alike, the fit's
    objective); ``loss`` is ``log`` (logistic) or ``sqhinge`` (squared
    hinge; the fit's hinge is not smooth).  ``alpha`` is the fit's, scaled
    to the summed loss (``alpha`` times the total weight).

Bytes are the closed form above (``iterations`` evaluations of the tree's
``n_nodes - 1`` edges; a variant ``loss-weighting-N`` caps L-BFGS at ``N``
iterations, 200 otherwise) as a fraction of the fit's ``n_bytes_sent_``.
The join is the package's, unchanged.  Every candidate's error on the
fitted nodes' own samples is printed against their own functions' (a
number the nodes could sum up the tree), and the 3-seed summary adds each
candidate ``gated``: kept where that excess is at most ``--gate`` points
(15), the mean elsewhere (its solve's bytes still counted).

    python benchmarks/online_shared_function.py --datasets har --seeds 0,1,2
    python benchmarks/online_shared_function.py --datasets har --seeds 0,1,2 \
        --variants sqhinge-samples-50,sqhinge-samples-20
    python benchmarks/online_shared_function.py --datasets moons,landmine,related \
        --seeds 0,1,2 --variants sqhinge-samples,sqhinge-samples-50

(run with ``PYTHONPATH=/work/main``, main at 068eee0, whose network
function is the mean).

Measured (2026-11-28, online10; join accuracy at ``k = 5 / 10 / 20``, means
of seeds 0-2; the fit selects the laplacian kernel on HAR, 100 points):

=====================  ===================  ===================  ==============
data set               mean (today)         span-sqhinge-samples  solve's bytes
=====================  ===================  ===================  ==============
HAR                    95.51 / 95.98 / 96.06  97.48 / 97.20 / 97.24  0.086-0.089
HAR, log loss          (same)               96.64 / 96.67 / 96.64  0.085-0.092
rotated moons          57.28 / 59.74 / 63.03  56.81 / 58.90 / 62.90  0.156
Landmine               93.61 / 93.56 / 93.61  93.64 / 93.59 / 93.60  0.93
related-alike          87.76 / 87.26 / 87.67  90.02 / 89.26 / 89.86  0.073
related-clustered      70.76 / 74.62 / 78.50  69.76 / 74.24 / 78.64  0.091
related-small          83.13 / 84.51 / 84.56  88.89 / 89.12 / 89.61  0.199
related-wide           75.93 / 78.26 / 77.31  84.78 / 87.86 / 88.28  0.415
related-narrow         91.13 / 91.38 / 91.00  90.98 / 91.36 / 91.03  0.053
=====================  ===================  ===================  ==============

(pooled LogisticRegression on HAR: 97.9 at every ``k``, growing.rst.)  Per
seed on HAR the solve gives 99.11 / 99.10 / 99.23, 94.26 / 94.18 / 94.23
and 99.06 / 98.31 / 98.26 against 96.60 / 96.55 / 96.83, 93.03 / 92.94 /
92.95 and 96.89 / 98.46 / 98.41: the 100 points of the network function
are not what bounds HAR (the solved function on them beats the one-node
kernel SGD fitted on the pooled rows, 97.1, ``online_har_fit.py
--pooled-start``); the SGD fit's mean is.  The squared hinge beats the
logistic loss on HAR; weighting every node alike (``log-nodes``) instead
of every sample changes under 0.1.  The solve's CPU is 0.1-0.3 s.

Whitened (``loss-weighting-N-white``: L-BFGS on ``b = L' a``, ``Kzz = L
L'``, the penalty then ``||b||^2``; the same messages, the root maps each
``b`` to the ``a`` it sends), 50 iterations reach the same joins for far
fewer rounds (``--variants sqhinge-samples-50-white,sqhinge-samples-200-white``,
seeds 0-2, the fit's bytes fraction in brackets):

=====================  =============================  ==============================
data set               sqhinge-samples (200)          sqhinge-samples-50-white
=====================  =============================  ==============================
HAR                    97.48 / 97.20 / 97.24 (0.087)  97.50 / 97.24 / 97.29 (0.021)
rotated moons          56.81 / 58.90 / 62.90 (0.156)  56.81 / 58.90 / 62.90 (0.050)
Landmine               93.64 / 93.59 / 93.60 (0.93)   93.63 / 93.60 / 93.61 (0.24)
related-alike          90.02 / 89.26 / 89.86 (0.073)  90.02 / 89.26 / 89.86 (0.031)
related-clustered      69.76 / 74.24 / 78.64 (0.091)  69.76 / 74.24 / 78.64 (0.025)
related-small          88.89 / 89.12 / 89.61 (0.199)  88.89 / 89.12 / 89.61 (0.089)
related-wide           84.78 / 87.86 / 88.28 (0.415)  84.78 / 87.86 / 88.28 (0.050)
related-narrow         90.98 / 91.36 / 91.03 (0.053)  90.98 / 91.36 / 91.03 (0.052)
=====================  =============================  ==============================

(HAR per seed 99.04 / 99.02 / 99.15, 94.40 / 94.32 / 94.37, 99.06 / 98.39 /
98.34; 200 whitened iterations give the same for 0.031-0.040.)  Gated at 15
points (HAR's excess 1.7-2.6 whitened), moons and related-clustered keep
today's joins, paying 0.050 and 0.025 of their fits' bytes.

Unwhitened, L-BFGS needs its iterations on HAR: capped at 50 (about 56 evaluations,
0.020 of the fit's bytes) seeds 0 / 1 / 2 give 98.15 / 98.12 / 98.30,
92.83 / 92.73 / 92.74 (under today's 93.03 / 92.94 / 92.95) and 97.11 /
96.33 / 96.30 (under 96.89 / 98.46 / 98.41 at ``k = 10, 20``); at 20,
93.94 / 93.92 / 93.97, 90.78 / 90.72 / 91.31 and 92.12 / 95.96 / 95.92.  On the smaller dictionaries of
moons and the related families 50 iterations give the same as 200.

Where it drops: rotated moons (-0.1 to -0.8 on the mean; seeds -0.3 to
-1.3) and related-clustered at ``k = 5`` (-1.0): federations of unlike
clusters, whose pooled function serves no cluster.  The nodes can tell:
the solved function's error on their own samples exceeds their own
functions' by 41-44 points on moons, 18-32 on related-clustered, but 0.4-1.2
on Landmine, 4.5-5.8 on related-alike, 7.7-9.9 on related-small, 8.2-10.4
on related-wide, 2.8-4.4 on related-narrow and 2.9-5.5 on HAR (at 50
iterations; the mean's own excess there is 4.4-5.7).  Gated at 15 points,
moons and related-clustered keep today's joins exactly and every other row
keeps the solve's.  Its cost: the fit's bytes grow by the column above
(Landmine's cheap fit nearly doubles for a change of at most 0.03).

In the package since online12 (2026-11-28 evening): step 4 of
``skfed.online._network_function`` is ``sqhinge-samples-50-white`` with
the gate, for a classifier's ``fit`` (the fit's loss: the hinge squared,
the logistic losses as they are, the Crammer-Singer margin squared for
multiclass hinge), every evaluation one counted tree round (``m n_out + 2``
float64 up, ``m n_out`` down), the gate one more (3 float64 up, an int32
down); MPI = simulation (``tests/test_online_network_solve_mpi.py``);
against SciPy on the pooled objective (``tests/test_online_network_solve.py``).
An earlier unwhitened 200-iteration version (branch online10, commits
e281671 and 3759b19, reverted) had left four join tests failing and no
reference of the solve.

What the solve costs where the gate rejects it (rotated moons' refits
send 64 % more on average, ``new_nodes.py``): the mean's own excess error
on the fitted nodes' samples might skip the solve before it runs (a
pre-gate, one round).  Seed 0, ``--datasets moons,related-wide,related-small,related-clustered,related-alike,related-narrow
--seeds 0 --variants sqhinge-samples-50-white``, the mean's excess -> the
solved one's: moons 44.41 -> 43.82, related-clustered 32.38 -> 32.17,
related-wide 13.58 -> 9.08, related-small 9.88 -> 9.19, related-alike
5.58 -> 4.83, related-narrow 3.92 -> 4.12 (HAR 4.4-5.7 -> 2.9-5.5 above).
A pre-gate at the same 15 points would skip exactly the solves the gate
rejects here, but related-wide's mean sits 1.4 points under it (its
solve gains 9-14 points): not built, to be measured on more seeds.

Regressors keep the mean.  ``--regression 50`` re-solves a regressor's
network function by the package's solve on the fit's loss (huber) and
swaps it in with its scale sums recomputed (no gate):

    python benchmarks/online_shared_function.py --datasets school --seeds 0,1,2 \
        --regression 50

School (R^2 x 100, ``k = 5 / 10 / 20``; 14-17 rounds, 0.059-0.078 of the
fit's bytes): seed 0 30.78 / 32.97 / 34.66 -> 33.28 / 34.47 / 35.28, seed 1
30.89 / 31.57 / 33.33 -> 32.01 / 32.07 / 33.11, seed 2 32.25 / 33.60 /
35.44 -> 32.08 / 33.66 / 35.64; means 31.31 / 32.71 / 34.48 -> 32.46 /
33.40 / 34.68 (pooled Ridge 31.8: the ``k = 5`` row would meet it).  On
``online_experiments.py``'s held-out regressions (seed 0, R^2 x 100 of the
join; ``--datasets alike-regression,nonlinear-regression,heavy-tailed-regression,outlier-regression
--seeds 0 --regression 50``): alike 70.91 / 77.47 / 85.23 -> 71.00 / 77.56
/ 85.23 (0.024 of the fit's bytes), nonlinear 85.90 / 89.50 / 91.50 ->
87.45 / 91.02 / 92.62 (55 rounds, 0.55 of the fit's bytes), heavy-tailed
-0.14 / -0.39 / -0.82 -> 0.02 / -0.29 / -0.78, outliers 44.19 / 54.14 /
59.52 -> 43.81 / 53.86 / 59.42 (lower at every ``k``).  Not adopted: the
outlier family drops, the nonlinear one's solve costs half a fit's bytes,
and these are one seed; a regressor's gate (it has no error rate) and its
join tests (which read the mean) are still to do.

Open (online13, 2026-11-28 19:18-19:35, a 17-minute shift: nothing built).
The plan for a regressor's solve in the package: lift the ``not
self._is_regressor()`` guard of ``_build_network_function`` and give
``NodeSums`` the fit's threshold in the encoded units (the fit's loss on
``(y - target_offset_) / target_scale_``); the gate cannot be an error
count.  A gate on the solved function's training loss against the mean's
is free (``solve_weights``' first evaluation is the mean's loss, its last
the solved one's) but L-BFGS nearly always lowers it, so it would not
catch the outlier family's held-out drop (-0.1 to -0.4): the candidate
worth measuring is a held-back share of every node's rows (each node
sums the mean's and the solved function's loss on its held-back rows up
the tree, 2 float64 up, one int32 down, as the classifier's gate).  Its
cost: 3 seeds of this script's ``--regression 50`` on school and the four
held-out regressions (``online_experiments.py held-out`` runs a family's
fit in about 0.2 s of CPU, outlier-regression seed 0, so the sweep is
minutes).  Task 2 (the solve's bytes when the gate rejects) is untouched.

Seeds 1 and 2 of the same probe (ungated, ``--datasets
alike-regression,nonlinear-regression,heavy-tailed-regression,outlier-regression
--seeds 1,2 --regression 50``, 45 s of CPU; join R^2 x 100 at ``k = 5 /
10 / 20``, mean -> solved): alike 93.18 / 94.31 / 95.70 -> 93.22 / 94.37 /
95.78 and 91.55 / 93.33 / 95.83 -> 91.66 / 93.32 / 95.79; nonlinear 87.92
/ 90.66 / 92.09 -> 89.14 / 92.04 / 93.58 and 85.95 / 90.25 / 92.50 ->
87.81 / 92.10 / 93.46 (55-56 rounds, 0.52-0.53 of the fit's bytes);
heavy-tailed -17.73 / -10.50 / -3.87 -> -21.12 / -12.00 / -4.12 and 10.35 /
9.09 / 7.54 -> 10.68 / 9.20 / 7.62; outliers 74.44 / 77.93 / 83.09 ->
74.31 / 77.84 / 83.13 and 83.48 / 84.57 / 85.57 -> 83.44 / 84.55 / 85.62.
The fitted samples' mean loss falls in every one of these runs (heavy-tailed
seed 1: 1.0091 -> 0.9981 while its join loses 3.4 points at ``k = 5``), so
a gate on the training loss would keep every solve: the held-back gate
above (or none) is what to measure next.

The held-back gate, measured (online13; ``held-gated`` of the same
command with ``--seeds 0,1,2`` and school added; every node holds back a
random fifth of its rows, the solve runs on the rest, the solved function
kept when the held-back rows' summed loss is not above the mean's; its
bytes count its solve and the gate round whether or not it keeps it).
Means of seeds 0-2, ``k = 5 / 10 / 20``, mean -> ungated solve ->
held-gated: alike 85.21 / 88.37 / 92.25 -> 85.29 / 88.42 / 92.27 -> 85.21
/ 88.37 / 92.25 (rejected on 3 seeds); nonlinear 86.59 / 90.14 / 92.03 ->
88.14 / 91.72 / 93.22 -> 88.09 / 91.72 / 93.19 (kept on 3, 0.53-0.56 of
the fit's bytes); heavy-tailed -2.51 / -0.60 / 0.95 -> -3.47 / -1.03 /
0.91 -> -3.67 / -1.07 / 0.97 (kept on seeds 1 and 2; seed 1 -17.73 ->
-21.81 at ``k = 5``); outliers 67.37 / 72.21 / 76.06 -> 67.19 / 72.09 /
76.06 -> 67.37 / 72.21 / 76.06 (rejected on 3); School 31.31 / 32.72 /
34.48 -> 32.46 / 33.40 / 34.68 -> 32.41 / 33.36 / 34.65 (kept on 3,
0.067-0.088 of the fit's bytes; ``k = 5`` above pooled Ridge's 31.8).  It
removes the outlier drop but not heavy-tailed seed 1's (its held-back
loss falls 77.31 -> 77.12 while the newcomers' R^2 falls 4 points), so
the brief's bar (no held-out regression drops on 3 seeds) is not met:
not put in the package.  Next: a margin (keep only when the held-back loss
falls by more than its seed-to-seed noise, e.g. 1 %: heavy-tailed seed 1
falls 0.24 %, School 1.4-7 %, nonlinear 5-8 %), measured on fresh seeds
3-5 before adoption, since choosing it here would tune it on these runs.

Fresh seeds 3-5 (the same command, ``--seeds 3,4,5``; the gate as above,
no margin), mean -> ungated -> held-gated, means of 3 seeds: alike 89.16 /
91.74 / 94.74 -> 89.14 / 91.73 / 94.74 -> 89.17 / 91.76 / 94.71 (kept on
seed 4 only); nonlinear 85.71 / 89.06 / 90.89 -> 86.53 / 90.35 / 92.00 ->
86.47 / 90.29 / 91.93 (kept on 3, 0.51-0.56 of the fit's bytes);
heavy-tailed 17.28 / 17.98 / 21.80 -> 17.29 / 17.90 / 21.90 -> 17.30 /
17.94 / 21.80 (kept on seeds 3 and 5; seed 5 15.77 / 15.30 / 14.08 ->
15.64 / 15.19 / 14.05); outliers 71.54 / 71.80 / 72.13 unchanged (rejected
on 3); School 31.63 / 33.50 / 35.85 -> 33.54 / 34.63 / 36.43 -> 33.63 /
34.69 / 36.45 (kept on 3, 0.044-0.090 of the fit's bytes).  Over seeds
0-5 the held-back gate's worst losses against the mean are heavy-tailed
seed 1 (-4.1 at ``k = 5``), heavy-tailed seed 5 (-0.13) and alike seed 4
(-0.07 at ``k = 20``); a 1 % margin would drop alike seed 4's keep (0.16
% fall) and heavy-tailed seed 1's (0.24 %) but keep seed 5's (1.02 %):
the margin is the candidate, to be checked on seeds 6-8 before it goes in
the package.

The 1 % margin on fresh seeds 6-8 (online14; ``--datasets
heavy-tailed-regression,alike-regression,nonlinear-regression,outlier-regression
--seeds 6,7,8 --regression 50 --margin 0.01`` and ``--datasets school``
alike, about 1 min of CPU each; main at ac7f2db), mean -> held-gated with the
margin, means of 3 seeds, ``k = 5 / 10 / 20``: heavy-tailed 10.42 / 13.88 /
13.79 unchanged (rejected on 3: falls -1.92, 0.71, -0.12 %; seed 7's
rejected solve would have gained 0.26 at ``k = 5``); alike 89.40 / 91.92 /
94.77 and outliers 70.25 / 71.59 / 74.04 unchanged (rejected on 3, falls
-0.67 to 0.00 %); nonlinear 85.94 / 89.49 / 91.12 -> 87.46 / 91.20 / 92.53
(kept on 3, falls 7.0-11.3 %, 0.51-0.58 of the fit's bytes); School 32.33 /
32.89 / 33.24 -> 33.68 / 33.84 / 33.67 (kept on 3, falls 2.4-4.3 %,
0.049-0.073 of the fit's bytes).  The same command on seeds 0-5 with the
margin (``--seeds 0,1,2,3,4,5 --margin 0.01``, school added): heavy-tailed
seed 1's solve is now rejected (fall 0.24 %) and so is alike seed 4's
(0.14 %); kept are heavy-tailed seeds 2, 3, 5 (+0.62 / +0.30 / +0.18,
+0.21 / +0.01 / +0.02, -0.10 / -0.08 / -0.06), nonlinear on 6 (+0.39 to
+1.94 every cell) and School on 6 (+2.66 to -0.31 at ``k = 5``: seed 2
-0.31 at ``k = 5``, seed 1 -0.30 at ``k = 20``).  Means of seeds 0-5, mean
-> gated: heavy-tailed 7.37 / 8.67 / 11.24 -> 7.49 / 8.70 / 11.27, alike
87.25 / 90.18 / 93.55 and outliers 69.56 / 72.19 / 74.25 unchanged,
nonlinear 86.15 / 89.60 / 91.46 -> 87.28 / 91.00 / 92.60, School 31.50 /
33.12 / 35.23 -> 33.08 / 34.07 / 35.62.  Over seeds 0-8 no held-out
family's per-seed cell falls more than 0.10 (heavy-tailed seed 5) and
every family's mean row is unchanged or higher; School's ``k = 5`` mean
gains 1.35-1.58.  Against ``new_nodes.py --families online --datasets
school --seeds 6,7,8`` (same main; its join 32.3 / 32.9 / 33.2 is this
probe's mean, and its Global, pooled Ridge / LassoCV, 33.1 / 33.0 / 33.3),
the gated join 33.68 / 33.84 / 33.67 is above Global at every ``k`` on the
fresh seeds, where the mean is below it at every ``k``.  The margin passes
the fresh seeds; it is not yet in
the package (the solve kept is the one on four fifths of the rows, as
here; the package's version needs the held-back split from the public
``random_state``, the gate round counted, and the SciPy pooled-solve
tests).
"""

import argparse
import copy
import os
import sys
import time
import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402


def _loss(name, margin):
    """Loss and derivative of a +-1 margin ``y f``."""
    if name == "log":
        value = np.logaddexp(0.0, -margin)
        grad = -0.5 * (1.0 - np.tanh(0.5 * margin))  # -sigmoid(-margin)
        return value, grad
    if name == "sqhinge":
        slack = np.maximum(0.0, 1.0 - margin)
        return slack ** 2, -2.0 * slack
    raise ValueError(name)


def span_solve(K, ypm, sample_c, alpha, Kzz, a0, loss, maxiter=200, white=False):
    """Weights ``a`` minimizing ``sum c loss(y K a) + alpha/2 a' Kzz a``;
    ``white``: L-BFGS runs on ``b = L' a`` (``Kzz = L L'``, a jitter of
    1e-10 times its largest diagonal), where the penalty is ``||b||^2``
    (the root maps every ``b`` to the ``a`` it sends)."""
    def objective(a):
        margin = ypm * (K @ a)
        value, grad = _loss(loss, margin)
        g = K.T @ (sample_c * grad * ypm) + alpha * (Kzz @ a)
        return float(sample_c @ value + 0.5 * alpha * a @ Kzz @ a), g

    if not white:
        result = minimize(objective, a0, jac=True, method="L-BFGS-B",
                          options={"maxiter": maxiter, "gtol": 1e-6})
        return result.x, int(result.nfev)
    L = np.linalg.cholesky(Kzz + 1e-10 * np.max(np.diag(Kzz)) * np.eye(len(Kzz)))

    def to_a(b):
        return np.linalg.solve(L.T, b)

    def whitened(b):
        value, g = objective(to_a(b))
        return value, np.linalg.solve(L, g)

    result = minimize(whitened, L.T @ a0, jac=True, method="L-BFGS-B",
                      options={"maxiter": maxiter, "gtol": 1e-6})
    return to_a(result.x), int(result.nfev)


def swapped_join(base, coef, X, y, groups, order, ks):
    model = copy.deepcopy(base)
    model.network_coef_ = [coef.reshape(-1, 1)]
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(model).add_nodes(X[train], y[train], groups=groups[train])
        out.append((100.0 * np.mean(joined.predict(X[test], groups=groups[test]) == y[test]),
                    int(np.sum(joined.join_start_ == "network"))))
    unseen = 100.0 * np.mean(model.predict(X[test], groups=groups[test]) == y[test])
    return unseen, out


def run(name, seed, ks, variants):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("online", task, seed)
    cpu = time.process_time()
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    fit_cpu = time.process_time() - cpu
    if len(base.network_dictionary_) != 1 or base.network_coef_[0].shape[1] != 1:
        print(f"{name} seed {seed}: skipped ({len(base.network_dictionary_)} components)")
        return []
    D = base.network_dictionary_[0]
    gamma = float(base.network_gamma_[0])
    kernel = base._join_kernel(gamma)
    Xf, yf, gf = X[fit_rows], y[fit_rows], groups[fit_rows]
    ypm = np.where(yf == base.classes_[1], 1.0, -1.0)
    K = kernel(Xf, D)
    Kzz = kernel(D, D)
    counts = {g: c for g, c in zip(*np.unique(gf, return_counts=True))}
    n_nodes, m = len(counts), len(D)
    own_error = 100.0 * np.mean(base.predict(Xf, groups=gf) != yf)

    def fitted_error(coef):
        return 100.0 * np.mean(np.where(K @ coef > 0, 1.0, -1.0) != ypm)

    rows = []
    # (step 3's mean: the package's fit now ends with the solve, step 4)
    mean = getattr(base, "_network_mean_coef", base.network_coef_)[0]
    unseen, joins = swapped_join(base, mean[:, 0], X, y, groups, order, ks)
    rows.append(("mean", unseen, joins, 0, 0.0, fitted_error(mean[:, 0])))
    for variant in variants:
        loss, weighting = variant[:2]
        maxiter = int(variant[2]) if len(variant) > 2 else 200
        white = len(variant) > 3 and variant[3] == "white"
        c = np.ones(len(yf)) if weighting == "samples" else np.array([1.0 / counts[g] for g in gf])
        alpha = float(base.alpha) * float(c.sum())
        cpu = time.process_time()
        a, nfev = span_solve(K, ypm, c, alpha, Kzz, mean[:, 0].copy(), loss,
                             maxiter, white)
        solve_cpu = time.process_time() - cpu
        bytes_ = nfev * (n_nodes - 1) * ((m + 1) * 8 + m * 8)
        unseen, joins = swapped_join(base, a, X, y, groups, order, ks)
        rows.append(("-".join(["span"] + list(variant)), unseen, joins, bytes_, solve_cpu,
                     fitted_error(a)))
    fit_bytes = int(base.n_bytes_sent_)
    print(f"{name} seed {seed}: fit CPU {fit_cpu:.1f} s, {n_nodes} nodes, {m} points; the "
          f"nodes' own functions' error on their samples {own_error:.2f} %")
    for label, unseen, joins, bytes_, scpu, err in rows:
        cells = " / ".join(f"{s:.2f}" for s, _ in joins)
        starts = ",".join(str(n) for _, n in joins)
        print(f"{name} seed {seed} {label:22s} unseen {unseen:.2f} join {cells} "
              f"(network starts {starts}) bytes {bytes_} ({bytes_ / fit_bytes:.4f} of the fit's)"
              f" solve CPU {scpu:.1f} s; error on the fitted nodes' samples {err:.2f} %"
              f" ({err - own_error:+.2f} over their own functions')", flush=True)
    return [(label, unseen, [score for score, _ in joins], bytes_ / fit_bytes, err - own_error)
            for label, unseen, joins, bytes_, _, err in rows]


def run_regression(name, seed, ks, max_iter, margin=0.0):
    """A regressor's network function re-solved by the package's solve
    (:func:`skfed.online._network_function.solve_weights`, whitened, on the
    fit's loss: huber by default, squared for epsilon-insensitive) and
    swapped in with its scale sums recomputed (what a newcomer scales it
    by); the join's R^2 x 100 against the mean's."""
    from skfed.online._network_function import NodeSums, solve_weights

    if name.endswith("-regression"):
        # online_experiments.py's held-out regressions, as new_nodes.py
        # treats its related families: training and test rows pooled, the
        # fitted nodes keep their training rows, a newcomer's k samples and
        # test samples drawn from all its rows.
        import online_experiments as oe

        _, Xtr, Xte, ytr, yte, gtr, gte = oe.held_out_family(name, seed)
        data = (np.concatenate([Xtr, Xte]), np.concatenate([ytr, yte]),
                np.concatenate([gtr, gte]), "regression", {"train_rows": np.arange(len(Xtr))})
    else:
        data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("online", task, seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    if len(base.network_dictionary_) != 1:
        print(f"{name} seed {seed}: skipped ({len(base.network_dictionary_)} components)")
        return []
    Xf, gf = X[fit_rows], groups[fit_rows]
    codes = np.searchsorted(base.nodes_, gf)
    y_enc = base._encode_targets(y[fit_rows])
    D, gamma = base.network_dictionary_[0], float(base.network_gamma_[0])
    threshold = (float(base.loss_epsilon) if base._loss_name() != "squared_error" else None)
    sums = NodeSums(base._join_kernel, base._loss_name(), Xf, y_enc, codes, None,
                    base._node_function, threshold)
    nodes = np.arange(len(base.nodes_))
    cpu = time.process_time()
    A, rounds = solve_weights(base._join_kernel(gamma)(D, D), base.network_coef_[0],
                              float(base.alpha), lambda A: sums(D, gamma, A, nodes), max_iter)
    solve_cpu = time.process_time() - cpu
    m = len(D)
    bytes_ = rounds * (len(nodes) - 1) * ((2 * m + 2) * 8)
    # The held-back gate (online13's probe): every node holds back a fifth
    # of its rows, the solve runs on the rest, and the solved function is
    # kept only if the held-back rows' summed loss is not above the mean's.
    held = np.random.default_rng(seed).random(len(y_enc)) < 0.2
    inner = NodeSums(base._join_kernel, base._loss_name(), Xf[~held], y_enc[~held],
                     codes[~held], None, base._node_function, threshold)
    outer = NodeSums(base._join_kernel, base._loss_name(), Xf[held], y_enc[held],
                     codes[held], None, base._node_function, threshold)
    A_h, rounds_h = solve_weights(base._join_kernel(gamma)(D, D), base.network_coef_[0],
                                  float(base.alpha), lambda A: inner(D, gamma, A, nodes),
                                  max_iter)
    mean_out = float(outer(D, gamma, base.network_coef_[0], nodes).sum(axis=0)[0])
    solved_out = float(outer(D, gamma, A_h, nodes).sum(axis=0)[0])
    # ``--margin``: kept only when the held-back loss falls by more than
    # this fraction of the mean's (0: not above it, online13's gate).
    fall = 1.0 - solved_out / mean_out
    kept = solved_out <= mean_out * (1.0 - margin)
    print(f"{name} seed {seed} held-back gate: loss {mean_out:.3f} (mean) vs "
          f"{solved_out:.3f} (solved), fall {100 * fall:.2f} % against margin "
          f"{100 * margin:g} %: {'kept' if kept else 'rejected'}")
    gated = A_h if kept else base.network_coef_[0]
    rows = []
    for label, coef in (("mean", base.network_coef_[0]), (f"solved-{max_iter}", A),
                        ("held-gated", gated)):
        model = copy.deepcopy(base)
        model.network_coef_ = [np.ascontiguousarray(coef)]
        model._network_fit_stats = model._network_scale_sums(Xf, y_enc, codes, None)
        loss = float(sums(D, gamma, coef, nodes).sum(axis=0)[0]) / len(y_enc)
        cells = []
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            joined = copy.deepcopy(model).add_nodes(X[train], y[train], groups=groups[train])
            cells.append(nn.score(task, y[test], joined.predict(X[test], groups=groups[test])))
        # the held-back gate's bytes: its solve's rounds and one gate round
        # (2 float64 up, an int32 down every edge)
        sent = {"mean": 0, "held-gated": rounds_h * (len(nodes) - 1) * ((2 * m + 2) * 8)
                + (len(nodes) - 1) * (2 * 8 + 4)}.get(label, bytes_)
        rows.append((label, cells, sent / base.n_bytes_sent_))
        print(f"{name} seed {seed} {label:12s} join " + " / ".join(f"{c:.2f}" for c in cells)
              + f" mean loss on the fitted samples {loss:.4f}"
              + ("" if label == "mean" else
                 f" ({rounds_h if label == 'held-gated' else rounds} rounds,"
                 f" {sent / base.n_bytes_sent_:.4f} of the fit's bytes,"
                 f" solve CPU {solve_cpu:.1f} s)"), flush=True)
    return rows


def summarize(name, per_seed, delta):
    """Means over the seeds of every candidate, and of the gated choice: a
    candidate where its error on the fitted nodes' samples exceeds their
    own functions' by at most ``delta`` points, the mean elsewhere."""
    labels = [row[0] for row in per_seed[0]]
    for label in labels + [f"{label} gated {delta:g}" for label in labels[1:]]:
        cells, fractions = [], []
        for rows in per_seed:
            by = {row[0]: row for row in rows}
            row = by[label.split(" gated")[0]]
            fractions.append(row[3])  # (a gated-out solve was paid too)
            if " gated" in label and not row[4] <= delta:
                row = by["mean"]
            cells.append(row[2])
        means = np.mean(cells, axis=0)
        print(f"{name} mean of {len(per_seed)} seeds {label:30s} join "
              + " / ".join(f"{v:.2f}" for v in means)
              + f" bytes {np.mean(fractions):.4f} of the fit's", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--gate", type=float, default=15.0)
    parser.add_argument("--variants", default="log-samples,log-nodes,sqhinge-samples")
    parser.add_argument("--regression", type=int, default=0, metavar="ITERATIONS",
                        help="the regressor's probe (run_regression) at this many iterations")
    parser.add_argument("--margin", type=float, default=0.0,
                        help="the regressor's held-back gate keeps the solve only when the "
                        "held-back loss falls by more than this fraction (0.01: 1 %%)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    ks = [int(k) for k in args.ks.split(",")]
    variants = [tuple(v.split("-")) for v in args.variants.split(",")]
    with threadpool_limits(1):
        names = []
        for name in args.datasets.split(","):
            names.extend(nn.RELATED if name == "related" else [name])
        if args.regression:
            for name in names:
                per_seed = [run_regression(name, int(seed), ks, args.regression, args.margin)
                            for seed in args.seeds.split(",")]
                for i, label in enumerate(row[0] for row in per_seed[0]):
                    means = np.mean([rows[i][1] for rows in per_seed if rows], axis=0)
                    print(f"{name} mean of {len(per_seed)} seeds {label:12s} join "
                          + " / ".join(f"{v:.2f}" for v in means), flush=True)
            return
        for name in names:
            per_seed = []
            for seed in (int(s) for s in args.seeds.split(",")):
                found = run(name, seed, ks, variants)
                if found:
                    per_seed.append(found)
            if per_seed:
                summarize(name, per_seed, args.gate)


if __name__ == "__main__":
    main()
