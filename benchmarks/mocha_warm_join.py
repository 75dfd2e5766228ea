"""MOCHA ``warm_start=True`` refit after ``add_nodes`` (fix26): rounds, bytes and
the joint objective against a cold refit on the same fitted + joined nodes.

Each family: fit on all but ``k`` nodes with ``warm_start=True``, join the
``k`` others with ``add_nodes``, refit on every node (warm: from the fitted
and joined dual variables and the grown Sigma, skfed.multitask._join_warm),
and compare with a cold fit on the same arrays and with a tight cold fit
(``tol=1e-7``) whose joint objective stands in for the optimum.  Printed:
rounds, total bytes, test accuracy and the joint objective's relative excess
over the tight fit (in %), warm / cold.

Command (from the repository root)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mocha_warm_join.py

Result (2026-11-29, seeds 0 and 1, k = 5 joined nodes; families: 40 nodes of
make_related_tasks alike / clustered / 100 noisy features / 5 features
(clustered), 120 nodes of 8 samples (clustered), 30 rotated-moons nodes,
Landmine with half of each node's rows held out; warm / cold)::

    omega="shared"       rounds  5/7  3/6  7/9  3/6  6/7  2/11  3/6   (seed 0)
                                 5/8  5/7  7/9  5/7  5/7  5/10  3/6   (seed 1)
                         accuracy within 0.3 points, joint objective within
                         0.07 % of the tight fit (both); bytes fewer except
                         noisy-100f (102080/89840) and many-small seed 0.
    omega="learn"        rounds 13/16 10/14 13/19 6/11 7/12 9/10 7/13 (seed 0)
                                19/17  7/11 13/19 10/11 9/10 10/12 13/13 (seed 1)
                         accuracy -0.85 (low-dim-5f seed 1: 0.8860/0.8945)
                         to +0.6 (moons seed 0); the plateau rule of the
                         learned Omega stops both 0.7-11 % above the tight
                         joint objective, the warm refit further on 11 of 14
                         rows (low-dim-5f seed 1: 10.9 % / 6.6 %); more bytes
                         on 5 of 14 rows (alike seed 1: 133360/109200).
    omega="independent"  1 round either way (Landmine 1/2): the warm start
                         only adds the dual vectors' upload (19920/12560 bytes).

Why the learned Omega stops further (``python benchmarks/mocha_warm_join.py
variants``, rounds / joint objective / accuracy): started from ``I / m``
with the dual variables warm, the refit after the join is the cold fit
(low-dim-5f seed 1: 11 / 6.2073 / 0.8940 against cold 11 / 6.2084 /
0.8945; grown Sigma 10 / 6.4603 / 0.8860), so the rounds it saves come
from the grown Sigma, and its plateau stop (the joint objective changed by
at most ``tol`` between finished W-steps) ends it early.  A warm C path on
the same data without any join stops as early (C 0.3 -> 1: 11 / 6.5979 /
0.8835): the plateau rule after any warm start, not the join.

Is the warm refit's early stop a defect (mocha32, 2026-11-29, main 8354eb6;
``python benchmarks/mocha_warm_join.py tolerances``: rounds / joint objective
/ accuracy, warm | cold, same arrays)::

    low-dim-5f seed 1  tol 1e-3   10 6.4603 0.8860 |  11 6.2084 0.8945
                       tol 1e-4  208 5.9570 0.8965 |  56 6.0606 0.8945
                       tol 1e-5  747 5.8450 0.8995 | 577 5.8381 0.8990
    low-dim-5f seed 0  tol 1e-3    6 7.8794 0.8850 |  11 7.6251 0.8880
                       tol 1e-4  181 7.4108 0.8945 |  67 7.4422 0.8915
                       tol 1e-5  694 7.2801 0.8940 | 459 7.2733 0.8955
    moons seed 0       tol 1e-3    9 5.0406 0.5560 |  10 5.0307 0.5497
                       tol 1e-4   27 5.0253 0.5553 |  26 5.0125 0.5500
                       tol 1e-5  565 4.9485 0.5487 | 605 4.9514 0.5483

(tight fit, ``tol=1e-7``, low-dim-5f seed 1: 2,770 rounds, 5.8236.)  No:
the warm refit stops where the documented rule says (the joint objective
of the W-step's models changed by at most ``tol`` between finished
W-steps), and so does the cold fit, 6.6 % above the optimum itself; with
a tighter ``tol`` both approach the same optimum, the warm refit first at
``1e-4`` on both low-dim rows and within 0.12 % at ``1e-5``.  The warm
state is not what is short: the alternation's decrease near its plateau
(0.1-0.2 % a step on low-dim-5f for thousands of rounds) is of the order
of ``tol = 1e-3``, and which start stops lower at ``1e-3`` depends on
where it starts (cold: one Omega step from ``I / m`` falls from 9.14 to
6.208, then the next W-step is +3e-5 higher and it stops; warm from the
grown Sigma: 6.498, 6.487, 6.478, 6.469, 6.455, then +0.08 % and it
stops).  Both stops are on an *increase*, which by the majorize-minimize
argument comes only from the W-steps' inexactness (a W-step counts as
finished at a relative gap of ``10 tol``); counting only a decrease as a
plateau (``python benchmarks/mocha_warm_join.py rule``: the rule patched
for the run) changes 9 of 28 fits by -0.87 .. +0.13 % of the joint
objective (0-4 more rounds) and leaves the warm refit as far above the
cold fit (low-dim-5f seed 1: warm 13 rounds 6.4173, cold 15 6.1970;
accuracy within 0.5 either way), so it is not that either.  Left as is: a learned-Omega
fit at ``tol = 1e-3``, warm or cold, is within a few percent of the joint
optimum, not within ``tol`` (0.8-9.5 % above the optimum of a central solve
over 9 families: ``benchmarks/mocha_stopping.py``, mocha33); the ``tol``
parameter's documentation says what the rule measures.
"""

import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skfed.datasets import load_landmine, make_related_tasks, make_rotated_moons
from skfed.multitask import FederatedMultiTaskClassifier


def _families(seed):
    out = {}
    for name, kw in [("alike", dict(structure="shared")),
                     ("clusters", dict(structure="clustered")),
                     ("noisy-100f", dict(structure="shared", n_features=100)),
                     ("low-dim-5f", dict(structure="clustered", n_features=5)),
                     ("many-small", dict(n_nodes=120, n_samples_per_node=8,
                                         structure="clustered"))]:
        kw = dict(dict(n_nodes=40), **kw)
        Xtr, Xte, ytr, yte, gtr, gte, _ = make_related_tasks(random_state=seed, **kw)
        out[name] = (Xtr, ytr, gtr, Xte, yte, gte)
    Xtr, Xte, ytr, yte, gtr, gte = make_rotated_moons(n_nodes=30, random_state=seed)[:6]
    out["moons"] = (Xtr, ytr, gtr, Xte, yte, gte)
    X, y, g = load_landmine(return_X_y=True)[:3]
    rng = np.random.RandomState(seed)
    test = np.zeros(len(y), dtype=bool)
    for t in np.unique(g):
        rows = np.flatnonzero(g == t)
        test[rng.choice(rows, len(rows) // 2, replace=False)] = True
    out["landmine"] = (X[~test], y[~test], g[~test], X[test], y[test], g[test])
    return out


def _joint(est):
    curve = np.asarray(est.joint_objective_curve_)
    curve = curve[~np.isnan(curve)]
    return curve[-1] if curve.size else est.objective_curve_[-1]


def main(seeds=(0, 1), k=5, omegas=("learn", "shared", "independent")):
    warnings.simplefilter("ignore", ConvergenceWarning)
    print("family seed omega | rounds w/c | bytes w/c | acc w/c | excess% w/c")
    for seed in seeds:
        for name, (X, y, g, Xt, yt, gt) in _families(seed).items():
            labels = np.unique(g)
            rng = np.random.RandomState(100 + seed)
            new = np.isin(g, rng.choice(labels, k, replace=False))
            for omega in omegas:
                kw = dict(omega=omega, kernel="linear", random_state=seed)
                warm = FederatedMultiTaskClassifier(warm_start=True, **kw)
                warm.fit(X[~new], y[~new], groups=g[~new])
                warm.add_nodes(X[new], y[new], groups=g[new])
                warm.fit(X, y, groups=g)
                cold = FederatedMultiTaskClassifier(**kw).fit(X, y, groups=g)
                tight = FederatedMultiTaskClassifier(tol=1e-7, max_rounds=5000, **kw)
                best = _joint(tight.fit(X, y, groups=g))
                ex = [100 * (_joint(e) - best) / abs(best) for e in (warm, cold)]
                acc = [e.score(Xt, yt, groups=gt) for e in (warm, cold)]
                byt = [int(np.sum(e.bytes_per_round_)) for e in (warm, cold)]
                print(f"{name} {seed} {omega} | {warm.n_iter_}/{cold.n_iter_} | "
                      f"{byt[0]}/{byt[1]} | {acc[0]:.4f}/{acc[1]:.4f} | "
                      f"{ex[0]:.3f}/{ex[1]:.3f}", flush=True)


def variants(seeds=(0, 1), k=5, names=("low-dim-5f", "clusters", "noisy-100f")):
    """The learned Omega only: the warm refit after a join from the grown
    Sigma (what fit does) or from ``I / m`` (the dual variables still warm),
    and, on the same arrays without a join, a warm C path 0.3 -> 1 and 3 -> 1
    against the cold fit at C = 1.  Printed: rounds, joint objective, accuracy."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    for seed in seeds:
        fams = _families(seed)
        for name in names:
            X, y, g, Xt, yt, gt = fams[name]
            rng = np.random.RandomState(100 + seed)
            new = np.isin(g, rng.choice(np.unique(g), k, replace=False))
            kw = dict(omega="learn", kernel="linear", random_state=seed)
            row = []
            for variant in ("grown", "reset", "cold", "C 0.3->1", "C 3->1"):
                est = FederatedMultiTaskClassifier(warm_start=variant != "cold", **kw)
                if variant in ("grown", "reset"):
                    est.fit(X[~new], y[~new], groups=g[~new])
                    est.add_nodes(X[new], y[new], groups=g[new])
                    if variant == "reset":
                        est._dual_state["sigma"] = None  # fit starts from I / m
                elif variant != "cold":
                    est.set_params(C=float(variant.split()[1].split("-")[0]))
                    est.fit(X, y, groups=g)
                    est.set_params(C=1.0)
                est.fit(X, y, groups=g)
                row.append(f"{variant}: {est.n_iter_} {_joint(est):.4f} "
                           f"{est.score(Xt, yt, groups=gt):.4f}")
            print(name, seed, " | ".join(row), flush=True)


def tolerances(cases=((1, "low-dim-5f"), (0, "low-dim-5f"), (0, "moons")), k=5,
               tols=(1e-3, 1e-4, 1e-5)):
    """The learned Omega only: warm refit after a join against the cold fit
    on the same arrays at a tighter ``tol`` (``max_rounds=3000``).  Printed:
    rounds, joint objective, accuracy, warm | cold."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    for seed, name in cases:
        X, y, g, Xt, yt, gt = _families(seed)[name]
        rng = np.random.RandomState(100 + seed)
        new = np.isin(g, rng.choice(np.unique(g), k, replace=False))
        for tol in tols:
            kw = dict(omega="learn", kernel="linear", random_state=seed, tol=tol,
                      max_rounds=3000)
            warm = FederatedMultiTaskClassifier(warm_start=True, **kw)
            warm.fit(X[~new], y[~new], groups=g[~new])
            warm.add_nodes(X[new], y[new], groups=g[new])
            warm.fit(X, y, groups=g)
            cold = FederatedMultiTaskClassifier(**kw).fit(X, y, groups=g)
            print(name, seed, tol, " | ".join(
                f"{e.n_iter_} {e.joint_objective_:.4f} {e.score(Xt, yt, groups=gt):.4f}"
                for e in (warm, cold)), flush=True)


def _decrease_only(self, primal, dual, gram, sigma, lam, joint=None):
    """The learned-Omega rule with only a decrease of at most ``tol`` as a
    plateau (an increase between finished W-steps does not stop the fit)."""
    from skfed.multitask import _omega

    self.before = (_omega.joint_objectives(primal, dual, gram, sigma, lam)
                   if joint is None else joint)
    self.joint = self.before
    self.best_dual = max(self.best_dual, self.before[1])
    self.curve[-1] = self.before[0]
    stop = False
    if self.w_step_done:
        value = self.before[0]
        if self.last_done is not None:
            self.last_change = (self.last_done - value) / max(abs(value), _omega._TINY)
            stop = 0 <= self.last_change <= self.tol
        stop = stop or value - self.best_dual <= self.tol * abs(value)
        self.last_done = value if self.last_done is None else min(value, self.last_done)
    self.stop_before_step = stop
    return stop


def rule(seeds=(0, 1), k=5):
    """The learned Omega, warm refit after a join and cold fit, with the
    package's rule and with :func:`_decrease_only` (patched for the run).
    Printed: rounds, joint objective, accuracy; warm | cold per rule."""
    from skfed.multitask import _omega

    warnings.simplefilter("ignore", ConvergenceWarning)
    package = _omega._StoppingRule.before_omega_step
    try:
        for seed in seeds:
            for name, (X, y, g, Xt, yt, gt) in _families(seed).items():
                rng = np.random.RandomState(100 + seed)
                new = np.isin(g, rng.choice(np.unique(g), k, replace=False))
                kw = dict(omega="learn", kernel="linear", random_state=seed)
                out = []
                for method in (package, _decrease_only):
                    _omega._StoppingRule.before_omega_step = method
                    warm = FederatedMultiTaskClassifier(warm_start=True, **kw)
                    warm.fit(X[~new], y[~new], groups=g[~new])
                    warm.add_nodes(X[new], y[new], groups=g[new])
                    warm.fit(X, y, groups=g)
                    cold = FederatedMultiTaskClassifier(**kw).fit(X, y, groups=g)
                    out += [f"{e.n_iter_} {e.joint_objective_:.4f} "
                            f"{e.score(Xt, yt, groups=gt):.4f}" for e in (warm, cold)]
                print(name, seed, " | ".join(out), flush=True)
    finally:
        _omega._StoppingRule.before_omega_step = package


if __name__ == "__main__":
    if sys.argv[1:2] == ["variants"]:
        variants()
    elif sys.argv[1:2] == ["tolerances"]:
        tolerances()
    elif sys.argv[1:2] == ["rule"]:
        rule()
    else:
        main(seeds=tuple(int(s) for s in sys.argv[1:]) or (0, 1))
