"""Kernelized MOCHA at its defaults against scikit-learn's SVC on HAR, and its bytes.

HAR sitting-vs-rest (21 people, 561 features, float32), per-node 70/30
split, one BLAS thread, everything in one process:

1. **Fit time.** :class:`~skfed.FederatedMultiTaskClassifier` with its
   defaults (rbf kernel, ``gamma="scale"``, ``C=1``, squared hinge loss,
   learned Omega, its own stopping rule; ``approximation="auto"`` picks
   1,225 random Fourier features here, ``compression="auto"`` 8-bit
   messages) against ``SVC()`` on the pooled training data (the Global
   model), timed interleaved, ``--repeats`` times each; the ratio of the
   medians is reported (goal: <= 1.0, converged), in wall time
   (``fit_time_ratio``) and in process CPU time (``cpu_time_ratio``, less
   sensitive to other processes on a shared machine).
2. **Bytes.** The federated fit's bytes against the raw training data
   shipped once to a server (:func:`skfed.baselines.pooled_data_bytes`),
   and the floor of any exact-mode protocol with a dense ``Sigma``: every
   final support vector delivered to the ``m - 1`` other nodes
   (``sv_floor_ratio``, in the data's dtype, against the raw upload).
3. **Errors.** Mean per-node test error of the federated model, of Global
   (``SVC()`` on pooled data) and of Local (``SVC()`` per node,
   :class:`~skfed.baselines.LocalEstimator`).
4. With ``--modes``: error against bytes of the exact kernel mode (the
   hinge loss, the old default, and the squared hinge), random Fourier
   features at the default count (``n_components="auto"``) with 8-bit
   (default), 4-bit, 16-bit and float64 messages and at 500 and 2,000
   features, and Nystroem landmarks drawn at random and as k-means
   centres (100 and 400, 8-bit messages; the landmarks themselves are raw
   data and dominate the bytes).
5. With ``--defaults``: the defaults against Global (``SVC()`` / ``SVR()``
   on pooled data) and Local (one per node) on per-node 70/30 splits of
   HAR sitting and HAR activity (mean per-node accuracy), Landmine (mean
   per-field AUC) and School (official splits, mean per-school RMSE),
   seeds / splits 0, 1, 2 (0 chose the defaults, 1 and 2 are held out).
6. With ``--landmine``: mean per-node test AUC on Landmine (29 fields, 6 %
   mines, features standardized on the training part) over per-node 70/30
   splits of seeds 0, 1, 2: Global (``SVC()`` pooled), Local (``SVC()`` per
   node) and the exact rbf model at its defaults, at ``C=0.1`` and ``10``,
   and with ``loss="logistic"``.
7. With ``--alternation``: linear MOCHA (``kernel="linear"``, ``C=1``,
   learned Omega, the line search and exact local solver of its defaults)
   on the split of ``skfed compare`` (per-node 75/25, seed 0) under four
   Omega schedules: the default (an Omega step once the W-step's relative
   duality gap is at most ``10 tol``) and ``omega_update_every`` 1, 3 and
   10, beside the centralized alternation of ``multitask_reference.py``
   (libsvm W-steps on the linear multi-task kernel, closed-form Omega
   steps, stopped at a relative change of ``1e-3``).  Per schedule:
   rounds, converged, bytes against the raw upload, accuracy, and the
   joint objective (:attr:`joint_objective_curve_`, the
   last Omega step at or before the round) at rounds 100, 200, 400, 600
   and 1000, with the final joint duality gap (the joint dual is a lower
   bound on the optimum): how far the alternation of W- and Omega steps is
   from converging within ``max_rounds``.

The last line printed is one JSON object.

    python benchmarks/bench_multitask.py [--repeats 3] [--modes] [--defaults] [--landmine]
        [--alternation]
"""

import argparse
import json
import platform
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler
from sklearn.base import clone
from sklearn.svm import SVC, SVR
from threadpoolctl import threadpool_limits

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor, LocalEstimator
from skfed.baselines import pooled_data_bytes
from skfed.datasets import load_har, load_landmine, load_school, train_test_split_per_node
from multitask_reference import reference_fit


def per_node_error(y, pred, groups):
    return float(np.mean([np.mean(pred[groups == t] != y[groups == t])
                          for t in np.unique(groups)]))


def per_node_rmse(y, pred, groups):
    return float(np.mean([np.sqrt(np.mean((pred[groups == t] - y[groups == t]) ** 2))
                          for t in np.unique(groups)]))


def defaults_table(seeds=(0, 1, 2)):
    """The defaults against Global and Local on the four datasets (item 5)."""
    rows = []
    for name in ("har-sitting", "har-activity", "landmine", "school"):
        for seed in seeds:
            if name == "school":
                Xtr, Xte, ytr, yte, gtr, gte = load_school(task="regression", split=seed + 1,
                                                           return_X_y=True)
            else:
                X, y, g = (load_landmine(return_X_y=True) if name == "landmine"
                           else load_har(task=name.split("-")[1], return_X_y=True))
                Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(
                    X, y, g, test_size=0.3, random_state=seed)
            regression = name == "school"
            base = SVR() if regression else SVC()
            mtl = (FederatedMultiTaskRegressor if regression
                   else FederatedMultiTaskClassifier)(random_state=0)
            seconds, ok = fit_checked(mtl, Xtr, ytr, gtr)
            pooled = clone(base).fit(Xtr, ytr)
            local = LocalEstimator(clone(base)).fit(Xtr, ytr, groups=gtr)
            if regression:
                metric = "rmse"
                scores = [per_node_rmse(yte, est.predict(Xte, groups=gte), gte)
                          for est in (mtl, local)]
                scores.insert(1, per_node_rmse(yte, pooled.predict(Xte), gte))
            elif name == "landmine":
                metric = "auc"
                scores = [per_node_auc(yte, est.decision_function(Xte, groups=gte), gte)
                          for est in (mtl, local)]
                scores.insert(1, per_node_auc(yte, pooled.decision_function(Xte), gte))
            else:
                metric = "accuracy"
                scores = [1.0 - per_node_error(yte, est.predict(Xte, groups=gte), gte)
                          for est in (mtl, local)]
                scores.insert(1, 1.0 - per_node_error(yte, pooled.predict(Xte), gte))
            raw = pooled_data_bytes(Xtr, ytr, gtr)
            rows.append(dict(
                dataset=name, seed=seed, metric=metric, defaults=round(scores[0], 5),
                global_=round(scores[1], 5), local=round(scores[2], 5),
                wins=bool(scores[0] < min(scores[1:]) if regression
                          else scores[0] > max(scores[1:])),
                mode=mtl.approximation_, n_components=mtl.n_components_,
                rounds=mtl.n_iter_, converged=ok,
                bytes_ratio=round(mtl.n_bytes_sent_ / raw, 3), fit_s=round(seconds, 1),
            ))
            print(json.dumps(rows[-1]), flush=True)
    return rows


def per_node_auc(y, score, groups):
    return float(np.mean([roc_auc_score(y[groups == t], score[groups == t])
                          for t in np.unique(groups) if len(np.unique(y[groups == t])) == 2]))


def landmine_table(seeds=(0, 1, 2)):
    """Mean per-node AUC on Landmine: Global, Local and a few MOCHA settings."""
    X, y, g = load_landmine(return_X_y=True)
    settings = {"default": {}, "C=0.1": dict(C=0.1), "C=10": dict(C=10.0),
                "logistic": dict(loss="logistic")}
    rows = []
    for seed in seeds:
        Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, g, test_size=0.3,
                                                                 random_state=seed)
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
        row = dict(seed=seed,
                   global_auc=per_node_auc(yte, SVC().fit(Xtr, ytr).decision_function(Xte), gte),
                   local_auc=per_node_auc(yte, LocalEstimator(SVC()).fit(Xtr, ytr, groups=gtr)
                                          .decision_function(Xte, groups=gte), gte))
        for name, params in settings.items():
            est = FederatedMultiTaskClassifier(random_state=0, **params)
            _, ok = fit_checked(est, Xtr, ytr, gtr)
            row[f"mocha_{name}_auc"] = per_node_auc(yte, est.decision_function(Xte, groups=gte),
                                                    gte)
            row[f"mocha_{name}_converged"] = ok
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def fit_checked(estimator, X, y, groups, cpu=None):
    """Fit; return (seconds, converged); ``cpu``: a list the fit's process
    CPU seconds are appended to."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        c0, t0 = time.process_time(), time.perf_counter()
        estimator.fit(X, y, groups=groups)
        seconds = time.perf_counter() - t0
        if cpu is not None:
            cpu.append(time.process_time() - c0)
    return seconds, not any(issubclass(w.category, ConvergenceWarning) for w in caught)


def alternation_table(checkpoints=(100, 200, 400, 600, 1000)):
    """Linear MOCHA on HAR sitting under four Omega schedules (item 6)."""
    X, y, g = load_har(task="sitting", return_X_y=True)
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, g, test_size=0.25,
                                                             random_state=0)
    raw = pooled_data_bytes(Xtr, ytr, gtr)
    # The centralized alternation (libsvm W-steps, closed-form Omega
    # steps, free intercept: its objective is at most skfed's optimum),
    # stopped like skfed's rule (relative change at most tol = 1e-3).
    _, codes = np.unique(gtr, return_inverse=True)
    sign = np.where(ytr == np.unique(ytr)[1], 1.0, -1.0)
    ref = reference_fit(Xtr.astype(np.float64), sign, codes, kernel="linear", rtol=1e-3,
                        max_outer=40)
    rows = [dict(schedule="centralized reference (libsvm + closed form)",
                 outer_steps=int(ref["n_outer"]), joint_objective=round(ref["objective"], 5),
                 joint_objective_by_step=[round(float(v), 5) for v in ref["objectives"]],
                 fit_s=round(ref["time"], 1))]
    print(json.dumps(rows[-1]), flush=True)
    for every in (None, 1, 3, 10):
        est = FederatedMultiTaskClassifier(kernel="linear", omega_update_every=every,
                                           random_state=0)
        seconds, ok = fit_checked(est, Xtr, ytr, gtr)
        curve = est.joint_objective_curve_
        stepped = np.flatnonzero(~np.isnan(curve))
        joint_at = {}
        for r in checkpoints:
            done = stepped[stepped < r]
            if done.size and r <= curve.size:
                joint_at[str(r)] = round(float(curve[done[-1]]), 5)
        rows.append(dict(
            schedule="W-step to 10 tol" if every is None else f"omega_update_every={every}",
            rounds=est.n_iter_, converged=ok, omega_steps=int(stepped.size),
            bytes=int(est.n_bytes_sent_), raw_bytes=int(raw),
            bytes_ratio=round(est.n_bytes_sent_ / raw, 2),
            accuracy=round(float(est.score(Xte, yte, groups=gte)), 5),
            joint_objective_at_round=joint_at,
            joint_objective=round(float(est.joint_objective_), 5),
            joint_relative_gap=round(float(est.joint_duality_gap_ / est.joint_objective_), 4),
            above_reference=round(float(est.joint_objective_ / ref["objective"] - 1.0), 4),
            fit_s=round(seconds, 1),
        ))
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--modes", action="store_true",
                        help="also the approximate modes (error against bytes)")
    parser.add_argument("--defaults", action="store_true",
                        help="also the defaults against Global and Local on HAR sitting, HAR "
                        "activity, Landmine and School, seeds 0-2")
    parser.add_argument("--landmine", action="store_true",
                        help="also Landmine AUC: Global, Local, MOCHA defaults and variants")
    parser.add_argument("--alternation", action="store_true",
                        help="also linear MOCHA's Omega schedules on HAR sitting (joint "
                        "objective against rounds)")
    args = parser.parse_args(argv)
    X, y, g = load_har(task="sitting", return_X_y=True)
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, g, test_size=0.3,
                                                             random_state=0)
    raw = pooled_data_bytes(Xtr, ytr, gtr)
    out = dict(benchmark="bench_multitask", dataset="HAR sitting-vs-rest",
               n_train=len(ytr), n_nodes=len(np.unique(gtr)), n_features=X.shape[1],
               dtype=str(X.dtype), platform=platform.platform())
    with threadpool_limits(1):
        times = {"svc": [], "skfed": []}
        cpu = {"svc": [], "skfed": []}  # process CPU seconds (the machine may be shared)
        for _ in range(args.repeats):
            svc = SVC()
            c0, t0 = time.process_time(), time.perf_counter()
            svc.fit(Xtr, ytr)
            times["svc"].append(time.perf_counter() - t0)
            cpu["svc"].append(time.process_time() - c0)
            mtl = FederatedMultiTaskClassifier(random_state=0)
            seconds, converged = fit_checked(mtl, Xtr, ytr, gtr, cpu["skfed"])
            times["skfed"].append(seconds)
        local = LocalEstimator(SVC()).fit(Xtr, ytr, groups=gtr)
        svc_s, mtl_s = float(np.median(times["svc"])), float(np.median(times["skfed"]))
        svc_cpu, mtl_cpu = float(np.median(cpu["svc"])), float(np.median(cpu["skfed"]))
        out.update(
            skfed_fit_s=round(mtl_s, 3), svc_fit_s=round(svc_s, 3),
            fit_time_ratio=round(mtl_s / svc_s, 3),
            skfed_cpu_s=round(mtl_cpu, 3), svc_cpu_s=round(svc_cpu, 3),
            cpu_time_ratio=round(mtl_cpu / svc_cpu, 3), converged=converged,
            learns_omega=mtl.omega == "learn", rounds=mtl.n_iter_,
            skfed_bytes=int(mtl.n_bytes_sent_), raw_bytes=int(raw),
            bytes_ratio=round(mtl.n_bytes_sent_ / raw, 3),
            # What any exact-mode protocol must move at least once Sigma is
            # dense: every final support vector to the m - 1 other nodes.
            support_vectors=int(mtl.support_.size),
            sv_floor_ratio=round(mtl.support_.size * Xtr.shape[1] * Xtr.dtype.itemsize
                                 * (len(mtl.nodes_) - 1) / raw, 3),
            skfed_error=per_node_error(yte, mtl.predict(Xte, groups=gte), gte),
            global_error=per_node_error(yte, svc.predict(Xte), gte),
            local_error=per_node_error(yte, local.predict(Xte, groups=gte), gte),
        )
        print(json.dumps(out), flush=True)
        if args.modes:
            rows = []
            settings = [dict(approximation=None, loss="hinge"),
                        dict(approximation=None)]
            settings += [dict(approximation="rff", compression=c)
                         for c in ("auto", 4, 16, "none")]
            settings += [dict(approximation="rff", n_components=D) for D in (500, 2000)]
            settings += [dict(approximation="nystroem", landmarks=lm, n_components=D)
                         for lm in ("random", "kmeans") for D in (100, 400)]
            for params in settings:
                est = FederatedMultiTaskClassifier(random_state=0, **params)
                seconds, ok = fit_checked(est, Xtr, ytr, gtr)
                mode = est.approximation_ or "exact"
                rows.append(dict(
                    mode=mode if mode != "nystroem" else f"nystroem-{est.landmarks}",
                    loss=est.loss, n_components=est.n_components_,
                    compression=est.compression if est.approximation_ else "none",
                    error=per_node_error(yte, est.predict(Xte, groups=gte), gte),
                    bytes=int(est.n_bytes_sent_),
                    bytes_ratio=round(est.n_bytes_sent_ / raw, 3), rounds=est.n_iter_,
                    converged=ok, fit_s=round(seconds, 2),
                ))
                print(json.dumps(rows[-1]), flush=True)
            out["modes"] = rows
        if args.defaults:
            out["defaults"] = defaults_table()
        if args.landmine:
            out["landmine"] = landmine_table()
        if args.alternation:
            out["alternation"] = alternation_table()
    out["goal_fit_time"] = bool(out["fit_time_ratio"] <= 1.0 and out["converged"])
    out["goal_bytes_below_raw"] = bool(out["bytes_ratio"] < 1.0)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
