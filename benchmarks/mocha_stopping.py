"""MOCHA's learned-Omega stopping rule (mocha33): the joint objective at the
stop against a tight reference fit, before / after.

Before: the rule of main 8354eb6 (carried here as :func:`_before_rule`,
patched over :class:`skfed.multitask._omega._StoppingRule` for the run): a
W-step counts as finished at relative duality gap ``10 tol`` and the fit
stops when the joint objective ``J`` of finished W-steps' models changed by
at most ``tol`` in absolute value, an increase included.  After: the
package's rule (the W-step's tolerance follows the alternation's measured
decrease, clipped to ``[tol, 10 tol]``; a stop needs a W-step solved to
``tol`` and a change within ``[-gap, tol]``; see ``_StoppingRule``).
Reference: the same fit at ``tol=1e-7`` (``max_rounds=3000``), whose ``J``
stands in for the optimum.  Every fit: ``omega="learn"``, ``kernel="linear"``,
otherwise the defaults (``tol=1e-3``).

Printed per family and seed: rounds, bytes, CPU seconds, test accuracy and
the excess of ``J`` over the reference's in %, before | after, and the
reference's rounds, ``J`` and accuracy.

Command (from the repository root)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mocha_stopping.py [SEEDS...]

Families: make_related_tasks with 40 nodes (alike, clusters, 100 noisy
features, 5 features clustered) and 120 nodes of 8 samples (clustered),
30 rotated-moons nodes, Landmine (half of each node's rows held out),
School classification (split seed + 1) and HAR sitting (half of each
node's rows held out).

Result: see the end of this docstring (filled from the run).
"""

import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skfed.datasets import (load_har, load_landmine, load_school, make_related_tasks,
                            make_rotated_moons)
from skfed.multitask import FederatedMultiTaskClassifier, _omega


def _halves(X, y, g, seed):
    rng = np.random.RandomState(seed)
    test = np.zeros(len(y), dtype=bool)
    for t in np.unique(g):
        rows = np.flatnonzero(g == t)
        test[rng.choice(rows, len(rows) // 2, replace=False)] = True
    return X[~test], y[~test], g[~test], X[test], y[test], g[test]


def families(seed, names=None):
    """``name -> (X, y, groups, X_test, y_test, groups_test)``."""
    out = {}
    for name, kw in [("alike", dict(structure="shared")),
                     ("clusters", dict(structure="clustered")),
                     ("noisy-100f", dict(structure="shared", n_features=100)),
                     ("low-dim-5f", dict(structure="clustered", n_features=5)),
                     ("many-small", dict(n_nodes=120, n_samples_per_node=8,
                                         structure="clustered"))]:
        if names and name not in names:
            continue
        kw = dict(dict(n_nodes=40), **kw)
        Xtr, Xte, ytr, yte, gtr, gte, _ = make_related_tasks(random_state=seed, **kw)
        out[name] = (Xtr, ytr, gtr, Xte, yte, gte)
    if not names or "moons" in names:
        Xtr, Xte, ytr, yte, gtr, gte = make_rotated_moons(n_nodes=30, random_state=seed)[:6]
        out["moons"] = (Xtr, ytr, gtr, Xte, yte, gte)
    if not names or "landmine" in names:
        out["landmine"] = _halves(*load_landmine(return_X_y=True)[:3], seed)
    if not names or "school" in names:
        X, Xt, y, yt, g, gt = load_school(task="classification", split=seed + 1,
                                          return_X_y=True)
        out["school"] = (X, y, g, Xt, yt, gt)
    if not names or "har" in names:
        out["har"] = _halves(*load_har(task="sitting", return_X_y=True)[:3], seed)
    return out


def _before_omega_step_due(self, gap, primal):
    """main 8354eb6: the W-step finished at relative gap ``10 tol``."""
    self.since_update += 1
    self.stepped = False
    self.curve.append(np.nan)
    self.w_step_done = gap <= _omega._W_STEP_TOL_FACTOR * self.tol * abs(primal)
    return self.learn and (
        self.w_step_done or (self.every is not None and self.since_update >= self.every)
    )


def _before_before_omega_step(self, primal, dual, gram, sigma, lam, joint=None):
    """main 8354eb6: stop when ``|change of J| <= tol`` (an increase too)."""
    self.before = (_omega.joint_objectives(primal, dual, gram, sigma, lam)
                   if joint is None else joint)
    self.joint = self.before
    self.best_dual = max(self.best_dual, self.before[1])
    self.curve[-1] = self.before[0]
    stop = False
    if self.w_step_done:
        value = self.before[0]
        if self.last_done is not None:
            self.last_change = abs(self.last_done - value) / max(abs(value), _omega._TINY)
            stop = self.last_change <= self.tol
        stop = stop or value - self.best_dual <= self.tol * abs(value)
        self.last_done = value
    self.stop_before_step = stop
    return stop


class _before_rule:
    """Context manager: the stopping rule of main 8354eb6 for the fits inside."""

    def __enter__(self):
        cls = _omega._StoppingRule
        self.saved = cls.omega_step_due, cls.before_omega_step
        cls.omega_step_due = _before_omega_step_due
        cls.before_omega_step = _before_before_omega_step

    def __exit__(self, *exc):
        cls = _omega._StoppingRule
        cls.omega_step_due, cls.before_omega_step = self.saved


def _fit(data, seed, **kw):
    X, y, g, Xt, yt, gt = data
    t0 = time.process_time()
    est = FederatedMultiTaskClassifier(omega="learn", kernel="linear", random_state=seed,
                                       **kw).fit(X, y, groups=g)
    cpu = time.process_time() - t0
    return dict(rounds=est.n_iter_, bytes=int(est.communication_.total_bytes), cpu=cpu, acc=est.score(Xt, yt, groups=gt), J=est.joint_objective_)


def main(seeds=(0, 1, 2), names=None):
    warnings.simplefilter("ignore", ConvergenceWarning)
    print("family seed | rounds b|a | bytes b|a | cpu b|a | acc b|a | excess% b|a "
          "| ref rounds J acc")
    for seed in seeds:
        for name, data in families(seed, names).items():
            with _before_rule():
                before = _fit(data, seed)
            after = _fit(data, seed)
            ref = _fit(data, seed, tol=1e-7, max_rounds=3000)
            ex = [100 * (r["J"] - ref["J"]) / ref["J"] for r in (before, after)]
            print(f"{name} {seed} | {before['rounds']} {after['rounds']} | "
                  f"{before['bytes']} {after['bytes']} | {before['cpu']:.2f} "
                  f"{after['cpu']:.2f} | {before['acc']:.4f} {after['acc']:.4f} | "
                  f"{ex[0]:.2f} {ex[1]:.2f} | {ref['rounds']} {ref['J']:.4f} "
                  f"{ref['acc']:.4f}", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    seeds = tuple(int(a) for a in args if a.isdigit()) or (0, 1, 2)
    names = [a for a in args if not a.isdigit()] or None
    main(seeds, names)
