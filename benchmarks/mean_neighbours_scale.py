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
of 3 repeats, one when n^2 d > 5e9; m = 5, the gate's exclude-self
queries; scan/new = ratio)::

    kind           n    d    scan s     new s  scan/new same
    normal       100    9    0.0009    0.0002       4.0 True
    normal       100   20    0.0009    0.0002       5.3 True
    normal       100  561    0.0039    0.0036       1.1 True
    normal      1000    9    0.0526    0.0109       4.8 True
    normal      1000   20    0.0676    0.0176       3.8 True
    normal      1000  561    0.7572    0.0761      10.0 True
    normal     10000    9    4.8924    0.6730       7.3 True
    normal     10000   20   16.0152    2.4207       6.6 True
    normal     10000  561  479.1998   11.6954      41.0 True
    terrains     100    9    0.0008    0.0002       4.5 True
    terrains     100   20    0.0009    0.0002       5.2 True
    terrains     100  561    0.0203    0.0009      23.5 True
    terrains    1000    9    0.1845    0.0187       9.8 True
    terrains    1000   20    0.2060    0.0139      14.8 True
    terrains    1000  561    2.4803    0.2363      10.5 True
    terrains   10000    9    6.3611    1.2942       4.9 True
    terrains   10000   20   10.8416    1.0319      10.5 True
    terrains   10000  561  539.4007   14.4139      37.4 True

Every answer was the scan's (``same``).  The machine was shared by up to 9
processes on 2 cores, so single timings move by up to 5x (the scan, whose
cost does not depend on the means, took 0.004 and 0.020 s at n = 100,
d = 561 on the two kinds); the ratios at n >= 1,000 are
4-41.  The scan grows as ``n^2`` (d = 561: 0.8-2.5 s at 1,000 nodes,
480-540 s at 10,000); the KD-tree at d = 9 grows as ``n^1.8`` on Gaussian means
(9 dimensions are many for a KD-tree), the products as ``n^2`` but in BLAS.

Where the tree stops paying (``--path tree`` / ``--path product``,
``--no-scan``, best of 2, seconds)::

    kind          n     d:   9      16     32     64     128
    normal     1000  tree  0.008  0.014  0.021  0.031  0.050
                    prod  0.013  0.016  0.012  0.026  0.027
    normal    10000  tree  0.460  2.168  3.026  7.415  21.19
                    prod  0.949  0.940  1.334  1.871  3.097
    terrains  10000  tree  0.581  1.684  2.609  4.494  17.21
                    prod  1.184  0.960  1.232  1.396  2.320

The tree is twice as fast at d = 9 and 2-4 times slower from d = 16 on:
``KD_MAX_FEATURES = 12``.  Below ``BRUTE_MAX_NODES = 64`` nodes the scan
(the old code) answers: at 16-128 nodes both take under 2.5 ms (the new
path 2-6 times faster at d <= 20, 0.5-1.3 at d = 561).
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
