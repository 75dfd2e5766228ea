"""Speed of one-shot support recovery, side by side with its peers.

1. The client step (``skfed._core._support_fast.client_pass_dense``: sigma,
   alpha, threshold, w and the packed bits in one pass over the rows)
   against NumPy's ``X.T @ y`` on the same C-ordered array, one BLAS
   thread.  Goal: within 1.5x (one pass at memory bandwidth).  Two
   configurations: the paper's step (fixed lambda, no centring) and the
   estimator's default (``alpha="auto"`` with per-client centring, which
   accumulates five sums instead of two).
2. The whole federated fit (:class:`skfed.FederatedSupportRecovery`, every
   client's pass, the simulated network and the vote) against scikit-learn
   ``Lasso``, ``LassoLars`` (both at the same lambda: the paper's client
   problem is the lasso objective ``(1/2n)||y - Xw||^2 + lambda ||w||_1``
   with a diagonal design) and ``LassoCV`` (5-fold, lambda chosen by CV) on
   the pooled data of all clients, in the paper's regime (d = 1000, s = 3,
   g = ceil(2 log d) clients, ``n_i = 10^C s^2 log s`` with C = 1.5, and
   C = 1 near the transition).  Reported: time ratio peer / skfed and the
   exact-recovery rate over seeds.

Runs are interleaved, the median of the repeats is reported, and the last
line is one JSON object.

    python benchmarks/bench_support.py [--seeds 10] [--repeats 7]
"""

import argparse
import json
import math
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from skfed import FederatedSupportRecovery
from skfed._core._support_fast import client_pass_dense
from skfed.baselines import pooled_data_bytes
from skfed.datasets import make_federated_sparse_regression

DATA = dict(
    coef_range=(1.0, 1.5),
    variance_range=(0.8, 1.25),
    correlation=(0.0, 0.1),
    noise_range=(0.1, 0.5),
    sample_size_spread=0.0,
)
LAMBDA = 0.4  # half the smallest population statistic on the support


def client_step_ratio(n, d, repeats, rng):
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    w = np.ones(n)
    offsets = np.array([0, n], dtype=np.intp)
    nodes = np.array([0], dtype=np.intp)
    lam = np.array([0.1])
    outs = [np.zeros((1, d)) for _ in range(4)]
    packed = np.zeros((1, (d + 7) // 8), dtype=np.uint8)
    scratch = np.zeros((2, d))
    configs = {"paper": (False, False), "auto_centred": (True, True)}
    times = {"numpy_XTy": []} | {k: [] for k in configs}
    for _ in range(repeats):
        t = time.perf_counter()
        X.T @ y
        times["numpy_XTy"].append(time.perf_counter() - t)
        for name, (auto, center) in configs.items():
            t = time.perf_counter()
            client_pass_dense(X, y, w, offsets, nodes, lam, 2.0, auto, center,
                              *outs, packed, scratch)
            times[name].append(time.perf_counter() - t)
    base = float(np.median(times["numpy_XTy"]))
    return {
        "numpy_ms": round(1e3 * base, 2),
        "GBps_numpy": round(X.nbytes / base / 1e9, 1),
        **{f"ratio_{k}": round(float(np.median(times[k])) / base, 2) for k in configs},
    }


def fit_comparison(C, seeds, repeats):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Lasso, LassoCV, LassoLars

    d, s = 1000, 3
    g = math.ceil(2 * math.log(d))
    n_i = round(10**C * s * s * math.log(s))
    methods = {
        "skfed": lambda: FederatedSupportRecovery(LAMBDA, fit_intercept=False),
        "skfed_auto": lambda: FederatedSupportRecovery("auto", fit_intercept=False),
        "Lasso": lambda: Lasso(alpha=LAMBDA, fit_intercept=False),
        "LassoLars": lambda: LassoLars(alpha=LAMBDA, fit_intercept=False),
        "LassoCV": lambda: LassoCV(fit_intercept=False, cv=5),
    }
    times = {m: [] for m in methods}
    exact = {m: [] for m in methods}
    comm = None
    for seed in range(seeds):
        X, y, groups, support, _ = make_federated_sparse_regression(
            n_clients=g, n_samples=n_i, n_features=d, n_informative=s, random_state=seed,
            **DATA,
        )
        for rep in range(repeats if seed == 0 else 1):
            for name, make in methods.items():
                est = make()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    t = time.perf_counter()
                    if name.startswith("skfed"):
                        est.fit(X, y, groups=groups)
                    else:
                        est.fit(X, y)
                    times[name].append(time.perf_counter() - t)
                if rep == 0:
                    found = est.support_ if name.startswith("skfed") else est.coef_ != 0
                    exact[name].append(bool(np.array_equal(found, support)))
                    if name == "skfed" and comm is None:
                        comm = {"skfed_bytes": int(est.n_bytes_sent_),
                                "raw_upload_bytes": pooled_data_bytes(X, y, groups)}
    base = float(np.median(times["skfed"]))
    return {
        "C": C, "d": d, "s": s, "g": g, "n_i": n_i, "seeds": seeds,
        "skfed_ms": round(1e3 * base, 2),
        "time_ratio_vs_skfed": {
            m: round(float(np.median(times[m])) / base, 1) for m in methods if m != "skfed"
        },
        "exact_recovery_rate": {m: float(np.mean(v)) for m, v in exact.items()},
        **comm,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    result = {"client_step": {}, "fit": {}}
    with threadpool_limits(1):
        for n, d in [(20000, 1000), (100000, 100), (5000, 5000)]:
            key = f"n{n}_d{d}"
            result["client_step"][key] = client_step_ratio(n, d, args.repeats, rng)
            print(key, result["client_step"][key], flush=True)
        for C in (1.5, 1.0):
            result["fit"][f"C={C}"] = fit_comparison(C, args.seeds, args.repeats)
            print(f"C={C}", result["fit"][f"C={C}"], flush=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
