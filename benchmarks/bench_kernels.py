"""Kernel matrices: skfed against ``sklearn.metrics.pairwise.rbf_kernel``.

Both libraries compute the rbf kernel of the same arrays in one process,
pinned to one BLAS thread, in interleaved repeats (skfed, sklearn, skfed,
...) so that a busy machine slows both alike.  Reports the median time of
each and the ratio skfed / sklearn (below 1 means skfed is faster), checks
that the two results agree, and prints one JSON line at the end.

Run::

    python benchmarks/bench_kernels.py [--repeats 7] [--quick] [--no-simd]
"""

import argparse
import json
import platform
import time

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from threadpoolctl import threadpool_limits

from skfed.kernels import pairwise_kernel

# (name, n_x, n_y, n_features, dtype); n_y=None is the Gram matrix K(X, X)
# (Y=None in both libraries).  561 features is the HAR dataset's width.
CASES = [
    ("har_like_2000x561_f64", 2000, 2000, 561, np.float64),
    ("har_like_2000x561_f32", 2000, 2000, 561, np.float32),
    ("small_d_5000x10_f64", 5000, 5000, 10, np.float64),
    ("gram_2000x561_f64", 2000, None, 561, np.float64),
]
QUICK_CASES = [
    ("har_like_500x561_f64", 500, 500, 561, np.float64),
    ("har_like_500x561_f32", 500, 500, 561, np.float32),
    ("small_d_1000x10_f64", 1000, 1000, 10, np.float64),
    ("gram_500x561_f64", 500, None, 561, np.float64),
]


def _time(func):
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def run_case(name, n_x, n_y, n_features, dtype, repeats, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_x, n_features)).astype(dtype)
    Y = None if n_y is None else rng.standard_normal((n_y, n_features)).astype(dtype)
    gamma = 1.0 / n_features

    def run_skfed():
        return pairwise_kernel(X, Y, kernel="rbf", gamma=gamma)

    def run_sklearn():
        return rbf_kernel(X, Y, gamma=gamma)

    # One untimed call each: page in the libraries and the output memory.
    K_skfed, K_sklearn = run_skfed(), run_sklearn()
    max_abs_diff = float(np.max(np.abs(K_skfed.astype(np.float64) - K_sklearn)))
    del K_skfed, K_sklearn

    times = {"skfed": [], "sklearn": []}
    for _ in range(repeats):
        for label, func in (("skfed", run_skfed), ("sklearn", run_sklearn)):
            elapsed, K = _time(func)
            times[label].append(elapsed)
            del K
    skfed_s = float(np.median(times["skfed"]))
    sklearn_s = float(np.median(times["sklearn"]))
    return {
        "case": name,
        "shape": [n_x, n_x if n_y is None else n_y, n_features],
        "dtype": np.dtype(dtype).name,
        "skfed_s": skfed_s,
        "sklearn_s": sklearn_s,
        "ratio": skfed_s / sklearn_s,
        "max_abs_diff": max_abs_diff,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="small arrays (smoke test)")
    parser.add_argument(
        "--no-simd",
        action="store_true",
        help="use the C library's exp instead of the AVX2 loops (the portable path)",
    )
    args = parser.parse_args()

    from skfed._core import _kernels

    if args.no_simd:
        _kernels._use_simd_math(False)

    cases = QUICK_CASES if args.quick else CASES
    results = []
    with threadpool_limits(limits=1):
        print(f"{'case':<24} {'skfed [s]':>10} {'sklearn [s]':>12} {'ratio':>7} {'max|diff|':>10}")
        for case in cases:
            res = run_case(*case, repeats=args.repeats)
            results.append(res)
            print(
                f"{res['case']:<24} {res['skfed_s']:>10.4f} {res['sklearn_s']:>12.4f} "
                f"{res['ratio']:>7.3f} {res['max_abs_diff']:>10.2e}"
            )
    summary = {
        "benchmark": "kernels_rbf",
        "peer": "sklearn.metrics.pairwise.rbf_kernel",
        "blas_threads": 1,
        "repeats": args.repeats,
        "simd_math": bool(_kernels._SIMD_MATH),
        "machine": platform.machine(),
        "ratios": {res["case"]: round(res["ratio"], 3) for res in results},
        "max_ratio": round(max(res["ratio"] for res in results), 3),
        "max_abs_diff": max(res["max_abs_diff"] for res in results),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
