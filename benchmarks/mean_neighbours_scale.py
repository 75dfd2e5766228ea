"""The hub's nearest-peers queries of the feature-mean gate: KD-tree vs scan.

At the end of a fit the feature-mean gate (:mod:`skfed._mean_neighbours`,
``run_gate`` step 1) has fitted node 0 answer every node with its
``N_NEAREST`` nearest other nodes by feature mean.  Until review25 each
answer was a scan over all ``n`` means (:func:`~skfed._mean_neighbours.nearest`,
``O(n d)`` per node, ``O(n^2 d)`` per fit); now
:func:`~skfed._mean_neighbours.nearest_rows` answers all of them through a
KD-tree (scan below ``BRUTE_MAX_NODES`` nodes and above ``KD_MAX_FEATURES``
features).  This script times both on the same means, checks that every
answer is the same (indices and order), and prints the ratio scan / new.

Means: Gaussian node means (``normal``), and node means drawn from 2
terrains plus noise (``terrains``, Landmine-like), ``d`` features.

Command (2 shared cores, one thread)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mean_neighbours_scale.py
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mean_neighbours_scale.py \
        --nodes 1000,10000 --features 9,16,32,64,128 --path tree --no-scan
    (and ``--path product``: where the tree stops paying)

Results (review25, 2026-11-29; seconds for the n queries at the hub, best
of 3 repeats, m = 5, the gate's exclude-self queries; scan/new = ratio):

RESULTS_PLACEHOLDER
"""

import argparse
import time

import numpy as np

from skfed import _mean_neighbours as mn


def draw_means(kind, n, d, rng):
    if kind == "normal":
        return rng.normal(size=(n, d))
    centres = rng.normal(scale=3.0, size=(2, d))
    return centres[rng.randint(0, 2, size=n)] + rng.normal(size=(n, d))


def best_time(fn, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nodes", default="100,1000,10000")
    p.add_argument("--features", default="9,20,561")
    p.add_argument("--kinds", default="normal,terrains")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--path", choices=("auto", "tree", "product"), default="auto",
                   help="force the KD-tree or the matrix products at every d")
    p.add_argument("--no-scan", action="store_true", help="time the new path only")
    args = p.parse_args()
    mn.KD_MAX_FEATURES = {"auto": mn.KD_MAX_FEATURES, "tree": 10 ** 9, "product": -1}[args.path]
    print(f"{'kind':9s} {'n':>6s} {'d':>4s} {'scan s':>9s} {'new s':>9s} {'scan/new':>9s} same")
    for kind in args.kinds.split(","):
        for n in map(int, args.nodes.split(",")):
            for d in map(int, args.features.split(",")):
                rng = np.random.RandomState(n + d)
                means = draw_means(kind, n, d, rng)
                idx = np.arange(n)
                repeats = 1 if n * n * d > 5e9 else args.repeats
                t_new, new = best_time(lambda: mn.nearest_rows(means, means, mn.N_NEAREST, idx),
                                       repeats)
                t_old, old = (np.nan, new) if args.no_scan else best_time(
                    lambda: [mn.nearest(means, means[i], mn.N_NEAREST, i) for i in idx], repeats)
                same = all(a.tolist() == b.tolist() for a, b in zip(old, new))
                print(f"{kind:9s} {n:6d} {d:4d} {t_old:9.4f} {t_new:9.4f} "
                      f"{t_old / t_new:9.1f} {same}", flush=True)


if __name__ == "__main__":
    main()
