"""review36's opposite-task newcomer: join with and without the guard, refit, Local.

Three fitted nodes of 40 rows share ``y = [x_0 > 0]`` (3 features); one
newcomer of ``n`` rows (20 or 100) has ``y = [x_0 <= 0]``; accuracy on 200
fresh rows of its task (the setting of tests/test_unlike36_*_join_opposite_task.py).
Per family at its defaults (``random_state=0``): the join with the guard
of :mod:`skfed._join_unlike`, the join with its test switched off (main's
join), a refit of the same estimator with the newcomer, and Local (the
better of ``LogisticRegression()`` and ``SVC()`` on its rows, by the mean).
For the online learner also the guard's variant that starts from zero but
keeps its links (``--online-keep-links``).

Usage: ``python benchmarks/unlike36_opposite.py --seeds 0,1,2,3,4,5,6,7,8 --rows 20,100``.

Results (2026-11-30, branch unlike36 from main 7e469ed, unlike36; the command above,
about 1 min; mean [min-max] over seeds 0-8)::

    rows 20: Local (LogisticRegression) mean 0.860
      mocha    on 0.944 [0.910-0.985]  off 0.033 [0.015-0.055]  refit 0.883 [0.780-0.955]
      dada     on 0.958 [0.910-1.000]  off 0.009 [0.000-0.035]  refit 0.011 [0.000-0.045]
      persolin on 0.895 [0.775-0.955]  off 0.041 [0.010-0.070]  refit 0.040 [0.010-0.070]
      online   on 0.929 [0.800-0.975]  off 0.661 [0.150-0.980]  links 0.722 [0.130-0.985]
               refit 0.845 [0.690-0.980]
    rows 100: Local (LogisticRegression) mean 0.977
      mocha    on 0.983 [0.970-1.000]  off 0.085 [0.020-0.360]  refit 0.976 [0.940-1.000]
      dada     on 0.996 [0.985-1.000]  off 0.008 [0.000-0.030]  refit 0.866 [0.735-0.915]
      persolin on 0.977 [0.945-1.000]  off 0.039 [0.020-0.060]  refit 0.046 [0.015-0.065]
      online   on 0.979 [0.955-0.995]  off 0.806 [0.065-0.950]  links 0.806 [0.070-0.960]
               refit 0.905 [0.820-0.970]

Conclusion: with the guard every family's join of this newcomer is above
its refit and Local (MOCHA, Dada, Perso-lin: the test flags it on every
seed; the online learner's start is flagged on every seed).  Without it
the joins keep the federation's task (0.01-0.09; online 0.66 / 0.81).
For the online learner, starting from zero but keeping its links is not
enough (0.722 at 20 rows): its neighbours' consensus term pulls it back.
"""

import argparse
import importlib
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

import skfed._join_unlike as guard
import skfed.online._join_unlike as online_guard
from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
)

FAMILIES = {
    "mocha": (FederatedMultiTaskClassifier, "skfed.multitask._join_unlike"),
    "dada": (DecentralizedBoostingClassifier, "skfed._graph_join_unlike"),
    "persolin": (PersonalizedLinearClassifier, "skfed._graph_join_unlike"),
    "online": (DecentralizedKernelSGDClassifier, "skfed.online._join_unlike"),
}
_test = guard.worse_than_chance
_zero = online_guard.zero_unlike_starts


def _off(pred, y, offsets, alpha=guard.ALPHA):
    return np.zeros_like(_test(pred, y, offsets, alpha))


def _keep_links(start, values, y, n_features, dtype, neighbours, kinds, *args):
    kept = [nb.copy() for nb in neighbours]
    flagged = _zero(start, values, y, n_features, dtype, neighbours, kinds, *args)
    neighbours[:] = kept
    return flagged


def _data(seed, n_new):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    Xn = rng.normal(size=(n_new + 200, 3))
    yn = 1 - (Xn[:, 0] > 0).astype(int)
    return X, y, np.repeat([0, 1, 2], 40), Xn[:n_new], yn[:n_new], Xn[n_new:], yn[n_new:]


def _join(make, module, X, y, g, Xn, yn, Xt, yt, variant):
    mod = importlib.import_module(module)
    mod.worse_than_chance = _off if variant == "off" else _test
    if module == "skfed.online._join_unlike":
        import skfed.online._join as online_join
        online_join.zero_unlike_starts = _keep_links if variant == "links" else _zero
    est = make(random_state=0).fit(X, y, groups=g)
    est.add_nodes(Xn, yn, groups=np.full(len(yn), 9))
    mod.worse_than_chance = _test
    return np.mean(est.predict(Xt, groups=np.full(len(yt), 9)) == yt)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8")
    parser.add_argument("--rows", default="20,100")
    parser.add_argument("--families", default="mocha,dada,persolin,online")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    seeds = [int(s) for s in args.seeds.split(",")]
    with threadpool_limits(1):
        for n in (int(s) for s in args.rows.split(",")):
            local = {"LogisticRegression": [], "SVC": []}
            data = [_data(seed, n) for seed in seeds]
            for X, y, g, Xn, yn, Xt, yt in data:
                local["LogisticRegression"].append(LogisticRegression().fit(Xn, yn).score(Xt, yt))
                local["SVC"].append(SVC().fit(Xn, yn).score(Xt, yt))
            best = max(local, key=lambda name: np.mean(local[name]))
            print(f"rows {n}: Local ({best}) mean {np.mean(local[best]):.3f}")
            for family in args.families.split(","):
                make, module = FAMILIES[family]
                variants = ["on", "off"] + (["links"] if family == "online" else [])
                scores = {v: [] for v in variants + ["refit"]}
                for X, y, g, Xn, yn, Xt, yt in data:
                    for v in variants:
                        scores[v].append(_join(make, module, X, y, g, Xn, yn, Xt, yt, v))
                    refit = make(random_state=0).fit(np.r_[X, Xn], np.r_[y, yn],
                                                     groups=np.r_[g, np.full(n, 9)])
                    scores["refit"].append(np.mean(
                        refit.predict(Xt, groups=np.full(len(yt), 9)) == yt))
                line = "  ".join(f"{v} {np.mean(s):.3f} [{min(s):.3f}-{max(s):.3f}]"
                                 for v, s in scores.items())
                print(f"  {family:8s} {line}", flush=True)


if __name__ == "__main__":
    main()
