"""How far can the choice of a MOCHA newcomer's prior scale take its join?

Issue 32's MOCHA rows (``benchmarks/new_nodes.py --families mocha``) miss
their goal on HAR, Landmine and rotated moons at ``k = 5``.  A newcomer of
the shared model solves its problem toward the fitted ``w_0`` with the
prior variance ``c_n`` times a scale the fitted nodes' rehearsal picks
(:mod:`skfed.multitask._rehearsal`).  This script asks whether a better
pick could meet the goal: on the same splits as ``new_nodes.py`` it scores
the new nodes' test samples with

* ``rehearsal``: the join as it is (the default);
* ``s=<scale>``: every newcomer at one fixed scale (``s=0`` is ``w_0``
  alone, the fitted estimator's prediction for an unseen node);
* ``oracle``: per seed and ``k``, the best fixed scale on the test samples
  themselves (an upper bound of any rule that gives every newcomer of a
  seed the same scale; not a method).

Means over the seeds, then the Global and Local baselines of
``new_nodes.py`` (best mean of pooled / per-node ``LinearSVC``, ``SVC``,
``LogisticRegression``; ``Ridge``, ``SVR``, ``LassoCV`` on School).

    python benchmarks/new_nodes_mocha_scales.py --datasets har,moons,landmine \\
        --seeds 0,1,2 --ks 5,10,20

History: changes measured and not kept
--------------------------------------
Both were prototyped as module switches, off by default, on branch joinsm
and removed again (a package has no switch that only a benchmark reads);
the code is in the commits named.  Splits and scores as above, means over
seeds 0-2, ``k = 5 / 10 / 20``; the default then scored HAR 97.48 / 97.33 /
97.81, rotated moons 55.72 / 60.44 / 62.83, Landmine 93.54 / 93.58 /
93.53.

* *leave-out* (commit befc140, ``REHEARSAL_LEAVE_OUT``): the rehearsal
  scores newcomers drawn from fitted nodes whose data are in ``w_0``,
  which flatters ``w_0`` (rotated moons, seed 0, size 5: ``w_0`` alone errs
  0.394 on the rehearsed held-out samples, 0.477 on the real newcomers).
  Each rehearsing node took its own part off ``w_0`` before its solves:
  ``w_0 - u_t / H``, ``u_t = mu (w_t - w_0)`` and ``H = lambda m / b_w +
  (m - 1) min(1, n / (m d')) mu`` (the others' curvature, estimated as the
  personal selection's held-out shift does; no message).  It removed the
  bias (0.442 with the estimate, 0.475 with ``w_0`` refitted without the
  node; its test found the estimate 5-10 times closer than ``w_0`` to the
  refit for a regressor, 1.3-2.5 for a classifier), but the picks it
  changed scored no better: HAR 97.48 / 97.40 / 97.57, rotated moons
  55.72 / 60.24 / 62.45 (with the refitted ``w_0``: 55.42 / 60.24 /
  62.45), held-out related-small, -clustered and -alike (seeds 0-1)
  within 0.08.  More draws (2 or 4 a node, 64 or 128 in all instead of
  32) scored rotated moons ``k = 5`` 55.72 -> 54.01 / 52.28 at ``w_0`` and
  55.44 / 55.72 with the leave-out, for 1.3-2 times the join's CPU.
* *keep-w0* (commit 75e482b, ``_KEEP_W0_WITHOUT_ERRORS``): a classifier's
  newcomer keeps ``w_0`` when ``w_0`` misclassifies none of its samples
  (computed by the newcomer, no message).  On HAR ``w_0`` alone scored at
  least scale 1 on 25 of the 30 (seed, ``k``, newcomer) cases it
  misclassified nowhere (0.9 points better on average, -4.7 to +6.6) and
  below it on 5 of the 6 others (3.3 worse); the rule scored HAR 97.31 /
  97.71 / 98.36 (above Global's 97.89 at ``k = 20``), but rotated moons
  55.44 at ``k = 5`` (same at 10, 20), Landmine -0.02 to -0.03 at every
  ``k``, and the held-out related-* families -0.17 to +0.05 over every
  ``k`` (``k = 5``: related-small, -clustered, -alike -0.08 to -0.11,
  related-wide 0.00, related-narrow +0.04): five samples without an error are weak evidence for
  ``w_0``, and a rule that wins on one family only is not a default.

* *spread prior* (joinsm5, 2026-11-28, main 6c25e28; commits fb08fca
  and 7901d5e, each reverted by the next; harness
  ``benchmarks/new_nodes_mocha_spread.py`` in 7901d5e): the newcomer's
  prior ``N(w_0, c_n I)`` made diagonal, ``N(w_0, c_n diag(s^2))``, with
  ``s_j^2`` the fitted nodes' relative variance of ``v_t = w_t - w_0`` in
  coordinate j (summed over problems, floored at 1e-2, mean 1: the total
  variance unchanged; solved by scaling the features by ``s``).  On
  rotated moons it finds the two moons' coordinates (relative variance
  1.15-1.33 against 0.74-1.19 for the 19 padding ones); on Landmine the
  intercept (2.4-2.5) and the first feature (3.1-4.7).  Means over seeds 0-2
  at ``k = 5 / 10 / 20`` (default: HAR 97.51 / 97.33 / 97.78, rotated
  moons 55.72 / 60.44 / 62.83, Landmine 93.54 / 93.58 / 93.53, School
  32.88 / 33.75 / 35.03):

  - always the spread (the rehearsal with it too): rotated moons 57.49 /
    61.56 / 64.48, HAR 97.41 / 97.49 / 97.82, Landmine 93.32 / 93.40 /
    93.52 (1-positive newcomers whose intercept now moves freely: seed 0,
    ``k = 5``, 93.42 -> 92.79);
  - the rehearsal choosing among both shapes' scales (9 candidates, the
    lowest mean error if one standard error better than the isotropic
    scale 1; fb08fca): 56.73 / 60.10 / 62.79, HAR 97.41 / 97.61 / 97.97,
    Landmine 93.54 / 93.55 / 93.55, School unchanged;
  - each shape's scale picked as now, then the spread's pick taken if it
    beats the isotropic pick by one standard error of their paired
    difference (7901d5e): rotated moons 57.49 / 60.92 / 63.67 (above
    Local and the refit at ``k = 5``), HAR 97.41 / 97.51 / 98.00 (above
    Global's 97.89 at ``k = 20``), Landmine and School bit-identical (the
    isotropic shape kept everywhere); with each rehearsing node's own part
    left out of the spread it rehearses with: 56.78 / 60.92 / 63.67, HAR
    97.41 / 97.51 / 97.97; floors 0.1 and 0.3: HAR 97.37 / 97.37 / 97.87
    and 97.43 / 97.26 / 97.82.  The last-but-one rule on the held-out
    families (``new_nodes_mocha_spread.py related-X 0,1,2 ",1e-2"`` at
    7901d5e; default -> spread): related-alike 91.00 / 91.05 / 91.14 ->
    91.00 / 91.05 / 91.28, -clustered 68.33 / 71.00 / 77.08 -> 69.67 /
    71.90 / 78.42, -narrow 91.76 / 91.88 / 91.89 -> 91.76 / 92.00 /
    92.11, -small unchanged (90.82 / 91.04 / 91.61), -wide 89.64 /
    89.62 / 89.50 -> 89.60 / 89.60 / 89.47.

  Not kept: HAR at ``k = 5`` drops 0.10 under every variant (99.26 ->
  99.19, 94.13 -> 94.06, 99.13 -> 98.99 on seeds 0 / 1 / 2: one or two
  test samples a seed), where the rehearsal prefers the spread at scale
  1/4 or 1 to the isotropic 1/16.  It would also cost bytes: a newcomer
  on the spread needs ``s`` (``d'`` more floats, 21 on rotated moons: its
  byte ratio 0.092 -> about 0.15 uncompressed, so ``s`` would have to
  travel quantized) and the rehearsal reports 9 candidates instead of 5
  and solves twice as many problems.

Rotated moons at ``k = 5`` is not a matter of the rehearsal's draws
(joinsm3, 2026-11-28, main 8d05595): the rehearsal of size 5 keeps scale
1 on all three seeds, and the fixed scale 1 is exactly the join's 55.72;
on the fitted nodes' draws scale 4 errs 0.456 / 0.398 / 0.471 against
scale 1's 0.425 / 0.419 / 0.443 (seeds 0 / 1 / 2; standard errors of the
difference 0.020 / 0.031 / 0.019), i.e. worse on two seeds, while on the
newcomers it is better on all three (56.34 against 55.72 in the mean).
Fewer draws only widen the standard errors (scale 1 kept), more picked
smaller scales (above), so no number of draws reaches Local's 55.92 there.

History
-------

How far the prior's scale can go, the fixed-scale table (moved from doc/user_guide/growing.rst, 28 November 2026)::

    How far the prior's scale can go (MOCHA).  A MOCHA newcomer's only
    choice is how much to trust ``w_0`` (the rehearsed scale of ``c_n``).
    Giving every newcomer one fixed scale, on the splits of the table
    (``python benchmarks/new_nodes_mocha_scales.py --datasets
    har,moons,landmine --seeds 0,1,2 --ks 5,10,20``; means over the seeds,
    ``k = 5 / 10 / 20``; "oracle" is the best fixed scale of each seed and
    ``k`` chosen on the test samples, a bound on any rule that gives one
    seed's newcomers one scale, not a method):

    ==============================  =====================  =====================  =====================
    scale of ``c_n``                HAR sitting            rotated moons          Landmine
    ==============================  =====================  =====================  =====================
    rehearsed (the default)         97.48 / 97.33 / 97.81  55.72 / 60.44 / 62.83  93.54 / 93.58 / 93.53
    0 (``w_0`` alone)               96.94 / 96.95 / 96.91  49.50 / 49.54 / 49.31  93.50 / 93.45 / 93.47
    1/16                            97.48 / 97.66 / 97.97  51.63 / 54.20 / 56.61  93.50 / 93.46 / 93.48
    1/4                             96.99 / 97.35 / 97.94  54.29 / 57.84 / 61.21  93.50 / 93.45 / 93.54
    1                               95.90 / 97.02 / 97.57  55.72 / 60.08 / 62.61  93.52 / 93.40 / 93.57
    4                               94.22 / 96.56 / 97.26  56.34 / 60.47 / 62.58  93.02 / 93.12 / 93.12
    16                              92.65 / 95.89 / 96.97  56.21 / 60.04 / 62.71  91.94 / 92.75 / 92.57
    oracle                          97.65 / 97.81 / 98.15  56.97 / 60.58 / 63.47  93.58 / 93.60 / 93.60
    Global (best)                   97.89 / 97.88 / 97.89  50.03 / 51.19 / 53.08  93.81 / 93.77 / 93.78
    Local (best)                    78.02 / 82.82 / 88.44  55.92 / 59.06 / 62.59  93.54 / 93.54 / 93.56
    ==============================  =====================  =====================  =====================

    On HAR at ``k = 5, 10`` and on Landmine at every ``k`` even the oracle
    is under Global: no choice of the scale meets the goal there, the limit
    is the fitted ``w_0`` (HAR) and a linear model (Landmine, where pooled
    ``SVC()`` wins).  On HAR at ``k = 20`` the scale 1/16 would (97.97), and
    on rotated moons at ``k = 5`` the scale 4 would (56.34 against Local's
    55.92), but the rehearsal cannot tell: on HAR seed 1 at size 20 every
    scale but 0 errs 0.020 on the fitted nodes' held-out samples, and on
    rotated moons 4 is ahead of 1 on the newcomers by 0.1 / 1.4 / 0.4 points
    (seeds 0 / 1 / 2) and behind it on the fitted nodes at seeds 0 and 2.
    A leave-out of each rehearsing node's own part of ``w_0``, more draws,
    and letting a newcomer that ``w_0`` misclassifies nowhere keep ``w_0``
    were measured and not kept (the last meets the goal on HAR at ``k = 20``,
    98.36, but loses at ``k = 5`` on HAR, rotated moons, Landmine and most
    held-out families); the numbers are in the docstring of
    ``benchmarks/new_nodes_mocha_scales.py``.  Prior means other than ``w_0``
    built from the fitted nodes' models were measured too
    (``benchmarks/new_nodes_mocha_prior.py``): none beats ``w_0`` on both HAR
    and rotated moons; the mean of the fitted models that fit the newcomer's
    samples best gains 5-9 points on clustered tasks (related-clustered) but
    loses up to one on HAR and 0.6-1.5 (R^2) on School, and a rehearsal on
    the fitted nodes that tells clustered tasks from HAR still picks it on
    School, so ``w_0`` stays.
"""

import argparse
import copy
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

SCALES = (0.0, 1.0 / 16, 0.25, 1.0, 4.0, 16.0)


class _FixedScale:
    """A stand-in for the fitted rehearsal that gives every newcomer one
    scale (and has nothing to collect): the ``s=<scale>`` rows."""

    sizes = np.array([1])
    cpu = 0.0

    def __init__(self, scale):
        self.scale = float(scale)

    def scales(self, counts):
        return np.full(len(counts), self.scale), []

    def collect(self, counter, asked, float_bytes):
        pass


def fit(task, seed, X, y, groups, rows):
    return nn.make_estimator("mocha", task, seed).fit(X[rows], y[rows], groups=groups[rows])


def join(est, task, Xk, yk, gk, Xt, yt, gt):
    """The join's score on the new nodes' test samples."""
    est.add_nodes(Xk, yk, groups=gk)
    return nn.score(task, yt, est.predict(Xt, groups=gt))


def run(name, seeds, ks):
    scores = {}  # (variant, seed, k) -> score
    baselines = {}
    for seed in seeds:
        data = nn.load(name, seed)
        X, y, groups, task = data[:4]
        extra = data[4] if len(data) > 4 else None
        fit_rows, _, order = nn.split(X, y, groups, seed, extra)
        fitted = fit(task, seed, X, y, groups, fit_rows)
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            Xk, yk, gk = X[train], y[train], groups[train]
            Xt, yt, gt = X[test], y[test], groups[test]

            scores[("rehearsal", seed, k)] = join(copy.deepcopy(fitted), task, Xk, yk, gk,
                                                  Xt, yt, gt)
            for s in SCALES:
                est = copy.deepcopy(fitted)
                est._join_rehearsal = _FixedScale(s)
                scores[(f"s={s:g}", seed, k)] = join(est, task, Xk, yk, gk, Xt, yt, gt)
            fixed = [scores[(f"s={s:g}", seed, k)] for s in SCALES]
            scores[("oracle", seed, k)] = max(fixed)
            baselines[(seed, k)] = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
            print(name, seed, k, {v: round(sc, 2) for (v, sd, kk), sc in scores.items()
                                  if sd == seed and kk == k}, flush=True)
    variants = ["rehearsal"] + [f"s={s:g}" for s in SCALES] + ["oracle"]
    print(f"\n{name}: means over seeds {seeds}")
    print(f"{'variant':10s} " + " ".join(f"{'k=' + str(k):>7s}" for k in ks))
    for v in variants:
        print(f"{v:10s} " + " ".join(f"{np.mean([scores[(v, s, k)] for s in seeds]):7.2f}"
                                     for k in ks))
    for label, part in (("Global", 0), ("Local", 1)):
        cells = []
        for k in ks:
            names = baselines[(seeds[0], k)][part]
            means = {b: np.mean([baselines[(s, k)][part][b] for s in seeds]) for b in names}
            best = max(means, key=means.get)
            cells.append(f"{means[best]:7.2f}")
        print(f"{label:10s} " + " ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har,moons,landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            run(name, seeds, ks)


if __name__ == "__main__":
    main()
