"""The regressors' sign test: leave-one-out means against earlier means, and in which order.

:func:`skfed._join_unlike.worse_than_own_mean` counts a newcomer's samples
whose squared error under the tested model exceeds that of a mean of its
other samples.  Three ways, on the same simulated nodes:

- ``loo``: each sample against the mean of all the others (main's test
  until guard38, written out here): the counts share each sample's noise,
  so its level is nominal (two-point noise: 0.012-0.017 at 0.01);
- ``given``: each sample against the mean of the samples before it, in the
  node's order (a count is at most 1/2 likely given the earlier ones: the
  level is exact, ``n - 1`` comparisons);
- ``centre``: the same in the order of ``|pred - mean(pred)|`` (the
  library's since guard38: the first comparisons, against means of few
  samples, are those a reversed model errs least on).

Nodes of ``n`` samples, ``pred = 2 N(0, 1) + shift``; rates of p < 0.01 over
``--reps`` nodes: ``null`` (``y = pred + N(0, 1)``), ``two`` (``y = pred
+- 1``), ``het`` (``y = pred + 2 |pred| N(0, 1)``), ``rev.1`` / ``rev1``
(``y = -pred + 0.1 N`` / ``+ N``, the power).

Usage: ``python benchmarks/guard38_sign_order.py --ns 8,10,12,15,20,30
--shifts 0,1 --reps 3000``.

Results (2026-11-30, branch guard38 from main 732136fa, guard38; the command
above, 2.5 min; rates of p < 0.01, 3,000 nodes a cell, RandomState(n)):

- Level: every test stays at or under 0.0013 on these nulls (a spread
  ``pred``; the leave-one-out test's excess needs a constant model:
  ``tests/test_review38_guard_levels.py``).  The sequential tests' level
  is exact by construction (``tests/test_guard38_sign_level.py``
  enumerates every two-point noise sequence).
- Power, ``rev.1`` / ``rev1``, shift 0::

      n    loo            given          centre
      8    0.329 / 0.190  0.182 / 0.117  0.367 / 0.187
      10   0.318 / 0.150  0.125 / 0.077  0.336 / 0.117
      12   0.575 / 0.385  0.385 / 0.238  0.630 / 0.394
      15   0.739 / 0.595  0.558 / 0.393  0.799 / 0.596
      20   0.903 / 0.823  0.806 / 0.667  0.946 / 0.858
      30   0.989 / 0.979  0.932 / 0.854  0.990 / 0.964

  shift 1 (the model's mean away from 0): centre at or above loo at 8-20
  samples except ``rev1`` at 10 (0.056 against 0.077), under it at 30
  (0.758 / 0.725 against 0.822 / 0.797); ``given`` under both almost
  everywhere.
- On the joins (``python benchmarks/unlike38_regressor_guard.py --synthetic
  --seeds 0,1,2``, main 732136fa against this branch): the seven alike
  families, 2,520 newcomers, 0 flagged both ways, 126 of 126 rows
  identical with the test off; smallest p-value 0.011 -> 0.0625.  The
  reversed control, flagged of 20 at seeds 0 / 1 / 2: k = 5 none either
  way; k = 10 MOCHA 2 / 5 / 8 -> 2 / 4 / 7, online 3 / 5 / 8 -> 2 / 4 / 7;
  k = 20 both 19 / 16 / 20 -> 19 / 18 / 20.  R^2 x 100 of the row, mean
  of the seeds, main -> guard38: k = 20 MOCHA 77.5 -> 84.5, online 84.0 ->
  87.2; k = 10 MOCHA -119.9 -> -126.9, online -74.7 -> -83.7.  School
  (``--families mocha,online --datasets school --seeds 0,1,2 --ks
  5,10,20``): 504 newcomers, 0 flagged, 18 of 18 rows identical with the
  test off, as on main (0 flagged there), so the table's School rows are
  unchanged; smallest p-value 0.0625 (main 0.055).
- Conclusion: ordering by the model's distance to its mean buys back the
  power the valid (sequential) test loses: at 20 samples it beats the
  leave-one-out test, at 10 it loses 3 of 60 reversed newcomers.
"""

import argparse

import numpy as np
from scipy.stats import binom

from skfed._join_unlike import ALPHA, own_mean_sign_pvalues


def loo_pvalues(pred, y, offsets):
    out = np.ones(len(offsets) - 1)
    for k in range(len(out)):
        p, t = pred[offsets[k]:offsets[k + 1]], y[offsets[k]:offsets[k + 1]]
        loo = (t.sum() - t) / (len(t) - 1)
        out[k] = binom.sf(np.sum((p - t) ** 2 > (loo - t) ** 2) - 1, len(t), 0.5)
    return out


def given_order_pvalues(pred, y, offsets):
    out = np.ones(len(offsets) - 1)
    for k in range(len(out)):
        p, t = pred[offsets[k]:offsets[k + 1]], y[offsets[k]:offsets[k + 1]]
        before = np.cumsum(t)[:-1] / np.arange(1, len(t))
        worse = np.sum((p[1:] - t[1:]) ** 2 > (before - t[1:]) ** 2)
        out[k] = binom.sf(worse - 1, len(t) - 1, 0.5)
    return out


TESTS = {"loo": loo_pvalues, "given": given_order_pvalues, "centre": own_mean_sign_pvalues}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ns", default="8,10,12,15,20,30")
    parser.add_argument("--shifts", default="0,1")
    parser.add_argument("--reps", type=int, default=3000)
    args = parser.parse_args()
    for shift in (float(s) for s in args.shifts.split(",")):
        for n in (int(s) for s in args.ns.split(",")):
            rng = np.random.RandomState(n)
            size = args.reps * n
            offsets = np.arange(args.reps + 1) * n
            pred = 2.0 * rng.normal(size=size) + shift
            e = rng.normal(size=size)
            ys = {"null": pred + e, "two": pred + rng.choice([-1.0, 1.0], size),
                  "het": pred + 2.0 * np.abs(pred) * e,
                  "rev.1": -pred + 0.1 * e, "rev1": -pred + e}
            cells = []
            for name, test in TESTS.items():
                rates = " ".join(f"{np.mean(test(pred, y, offsets) < ALPHA):.4f}"
                                 for y in ys.values())
                cells.append(f"{name} {rates}")
            print(f"shift {shift:g} n {n:2d} (null two het rev.1 rev1): " + " | ".join(cells),
                  flush=True)


if __name__ == "__main__":
    main()
