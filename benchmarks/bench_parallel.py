"""Speed-up of node-parallel solves: n_jobs=2 against n_jobs=1, multi-task on HAR.

:class:`skfed.multitask.FederatedMultiTaskClassifier` on the 21 HAR users
(MOCHA's task: SITTING against the rest; each user's samples split 75/25),
a fixed number of rounds (``tol=0``) so that both settings do the same
work, once in the exact kernel mode (rbf: kernel rows of received support
vectors and the local dual coordinate ascent run per node) and once in
MOCHA's linear mode.  The node work of a round runs in joblib threads (the
Cython solvers release the GIL); the server part of a round (Omega step,
byte counting, the duality gap) stays serial.

The two settings run on the same arrays in one process, interleaved,
each BLAS call on one thread (threadpoolctl), and must give the same
model.  The last line is one JSON object: the wall-time ratio
``t(n_jobs=1) / t(n_jobs=2)`` per mode (best of the repeats), the test
accuracies, whether the models are identical, and what two threads give
on this machine at the time for ideal GIL-free work (BLAS products, one
thread each; about 2 on a quiet 2-core machine, less when other jobs
share the cores).

    python benchmarks/bench_parallel.py [--repeats 3] [--rounds 30]
"""

import argparse
import json
import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.datasets import load_har, train_test_split_per_node
from skfed.multitask import FederatedMultiTaskClassifier

MODES = {
    "rbf_exact": dict(kernel="rbf", lam=1e-4),
    "linear": dict(kernel="linear", lam=1e-4),
    "linear_20_local_epochs": dict(kernel="linear", lam=1e-4, local_epochs=20),
}


def machine_speedup(repeats=5):
    """What 2 threads give on this machine right now, for ideal GIL-free work.

    The same BLAS work (one thread each) done by one Python thread, then
    split over two: on a quiet 2-core machine close to 2; on a shared one it
    says how much of the second core the benchmark could get.
    """
    from concurrent.futures import ThreadPoolExecutor

    a = np.random.RandomState(0).rand(300, 300)

    def unit():
        for _ in range(20):
            a @ a

    ratios = []
    with ThreadPoolExecutor(2) as pool:
        for _ in range(repeats):
            start = time.perf_counter()
            unit()
            unit()
            t1 = time.perf_counter() - start
            start = time.perf_counter()
            list(pool.map(lambda _: unit(), range(2)))
            ratios.append(t1 / (time.perf_counter() - start))
    return float(np.median(ratios))


def fit(params, n_jobs, rounds, X, y, groups):
    estimator = FederatedMultiTaskClassifier(
        **params, tol=0.0, max_rounds=rounds, omega_update_every=10, random_state=0,
        n_jobs=n_jobs,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        estimator.fit(X, y, groups=groups)
        return estimator, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()

    X, y, groups = load_har(task="sitting", return_X_y=True)
    X_train, X_test, y_train, y_test, g_train, g_test = train_test_split_per_node(
        X, y, groups, test_size=0.25, random_state=0
    )
    result = {
        "benchmark": "bench_parallel",
        "dataset": "HAR sitting-vs-rest, 21 users, 75/25 per user",
        "n_train": int(len(y_train)),
        "rounds": args.rounds,
        "repeats": args.repeats,
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    with threadpool_limits(limits=1):
        calibration = [machine_speedup()]
        for name, params in MODES.items():
            times = {1: [], 2: []}
            models = {}
            fit(params, 1, 2, X_train, y_train, g_train)  # warm-up
            for _ in range(args.repeats):
                for n_jobs in (1, 2):  # interleaved
                    models[n_jobs], elapsed = fit(
                        params, n_jobs, args.rounds, X_train, y_train, g_train
                    )
                    times[n_jobs].append(elapsed)
            serial, parallel = models[1], models[2]
            if serial._primal_mode():
                same = np.array_equal(serial.coef_, parallel.coef_)
            else:
                same = np.array_equal(serial.dual_coef_, parallel.dual_coef_)
            same = bool(same and np.array_equal(serial.omega_, parallel.omega_))
            t1, t2 = min(times[1]), min(times[2])
            result[name] = {
                "seconds_n_jobs_1": round(t1, 3),
                "seconds_n_jobs_2": round(t2, 3),
                "speedup": round(t1 / t2, 3),
                "identical_models": same,
                "test_accuracy": round(float(serial.score(X_test, y_test, groups=g_test)), 4),
                "test_accuracy_n_jobs_2": round(
                    float(parallel.score(X_test, y_test, groups=g_test)), 4
                ),
            }
            calibration.append(machine_speedup())
            print(f"{name}: n_jobs=1 {t1:.2f}s, n_jobs=2 {t2:.2f}s, speed-up {t1 / t2:.2f}x, "
                  f"identical={same}", flush=True)
        result["machine_speedup_2_threads"] = round(float(np.median(calibration)), 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
