"""CPU of a sparse-linear join against a refit (issue 32's 1/10 line).

:class:`~skfed.support.FederatedSparseLinearRegression`'s join sends the
new nodes the support and the coefficients, and each computes its
intercept from its rows: its work is a handful of array operations, so its
CPU is the fixed cost of any ``add_nodes`` (data validation, the
network's start and log, seeding) and the question is how that compares
with a refit, and whether it grows with the fitted federation.  This
script times ``repeats`` joins (each on a fresh copy of the fitted model)
and ``repeats`` refits, interleaved, and prints the medians and their
ratio:

- ``school``: ``benchmarks/new_nodes.py``'s School splits (80 % of the
  schools fitted, k samples of each new school), seeds and ``k`` given;
- ``synthetic N``: N fitted clients of 20 samples and 20 features (two
  informative) and 10 new clients of 10 samples.

CPU is ``time.process_time``; run it with one BLAS thread, and compare
two versions of the package by running it twice with each on
``PYTHONPATH`` (the script itself uses only public API)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/new_nodes_support_cpu.py \\
        --seeds 0,1,2 --ks 5,10,20 --synthetic 1000,10000 --repeats 15

History (2026-11-28, load 7-13 on 2 cores)
------------------------------------------
Main at f28c2af against branch joinsm7 (the join moved to
``skfed/support/_join.py``; bit-identical: coefficients, intercepts,
support, per-node attributes, bytes per round and per pair, messages and
fault draws equal on 72 fits of 6 network settings x 3 ``random_state``
kinds x 4 data formats, each followed by two joins), run alternately;
School's mean (max) ratio over seeds 0-2 and ``k = 5, 10, 20``, medians of
15 (``--synthetic 1000,10000``), then of 9 (``--synthetic
1000,10000,100000``)::

    run                       main f28c2af      joinsm7
    School, 15 repeats (1)    19.3 % (20.7)     15.2 % (17.9)
    School, 15 repeats (2)    17.7 % (20.3)     14.2 % (19.4)
    School, 9 repeats         20.8 % (22.4)     14.3 % (15.8)
    1,000 + 10 clients        5.5 / 4.9 / 5.6 % 4.2 / 3.5 / 4.3 %
    10,000 + 10 clients       1.8 / 1.6 / 1.9 % 1.4 / 1.5 / 1.4 %
    100,000 + 10: join        5.90 ms           3.73 ms (refit 1.35 s)

(The first two joinsm7 runs predate the rounds' draws at the new nodes
only; 1,000 -> 100,000 fitted clients adds 4.0 ms to a join on main and
2.2 ms on joinsm7.)  Where a join of 28 new schools spent its CPU
(about 1.8 ms when the refit took 9.5 ms; profiled with checkpoints, load
13): the data validation (``_validate_join_data``: scikit-learn's
``validate_data``, the label look-up) 45 %, the network's start and log
about 40 %, the join's own arithmetic about 10 %.  Cut: three new
``RandomState`` objects a join (0.1-0.2 ms each: a new Mersenne Twister
draws its state from a SeedSequence before the legacy seeding replaces
it; now one per thread, re-seeded), ``get_params`` in the join-parameter
check (an ``inspect.signature`` of ``__init__``), the rogue draw when no
node can be rogue, ``np.add.at`` for the intercepts' sums, and each
round's fault draws of every fitted node (now
``NetworkSimulation.draw_round_active`` of the waiting new nodes, the
others skipped by advancing the stream).  What still grows with the
fitted clients: appending their per-node rows (``client_supports_``,
``nodes_``), the counter's and the log's per-node arrays.  What keeps
School above a tenth: the shared cost of every ``add_nodes`` (validation,
the network's start and log), about 1 ms of the 1.3-1.5 ms.

2026-11-28 afternoon (joinsp8), main at ff339c8 against branch joinsp8,
run alternately (main, branch, main, branch), ``--synthetic 1000,10000
--repeats 15``, load 17-21 on 2 cores; School's mean (max) ratio over
seeds 0-2 and ``k = 5, 10, 20``::

    run                  main ff339c8      joinsp8
    School (1)           16.3 % (18.5)     9.1 % (10.2)
    School (2)           16.2 % (17.9)     9.4 % (10.6)
    1,000 + 10 clients   5.1 / 4.5 %       2.3 / 3.0 %
    10,000 + 10 clients  1.4 / 1.4 %       1.0 / 0.8 %

(``--repeats 9`` earlier, load 9-14: 16.8 / 14.8 % against 8.3-10.7 %.)
Cut, with every family's fit-and-join results bit-identical (digests of
54 fits and two joins each: Local, the sparse linear model and the support
selector, MOCHA, Dada, Perso-lin and the online learner, perfect and
faulty networks, integer and string node ids): the join's data checks
(``skfed/_join_common.py``) take a plain NumPy route for a finite float
ndarray and a 1-d ndarray target (scikit-learn's ``validate_data`` and its
data-frame detection were 40 % of a join); the fitted check reads
``nodes_`` before scikit-learn's scan of every attribute and the tags;
``SimulatedNetwork`` checks its parameters without ``get_params`` (an
``inspect.signature`` each time) and not again for values that passed.
A join on School now takes about 0.4 ms on an idle core; what is left is
the log (about a fifth: SciPy's sparse constructors), the network's
start, the round's fault draws and the join's own arithmetic, in
comparable parts.

2026-11-29 (support17): main e24468c against branch support17, whose fit
refits on up to 32 candidates (``refit_candidates="auto"``: on School all
28 features, and the server's 5-fold cross-validation), run one after the
other, ``--synthetic 1000 --repeats 15``, load 12-15 on 2 cores::

    run                  main e24468c      support17
    School               10.2 % (12.6)     5.5 % (6.3)
    join, School         0.67-0.93 ms      0.85-1.08 ms
    refit, School        7.3-8.2 ms        16.2-20.5 ms
    1,000 + 10 clients   2.0 %             1.6 %

The join's own CPU did not fall (its parts are those above); the ratio is
under a tenth because the refit now does more (statistics on 28 columns
instead of 2-3, and the cross-validation's 25 small solves).

2026-11-29 (support18): the refit's test round (the candidates'
statistics only when the test rejects; School's rejects) makes the
refit 22-25 ms; ``--seeds 0,1,2 --ks 5,10,20 --repeats 15``: School's
mean (max) ratio 3.8 % (4.4 %), 1,000 + 10 clients 1.9 %.
"""

import argparse
import copy
import time

import new_nodes as nn
import numpy as np
from sklearn.base import clone

from skfed.support import FederatedSparseLinearRegression


def school(seed, k):
    X, y, groups, _ = nn.load("school", seed)
    fit_rows, _, order = nn.split(X, y, groups, seed)
    train, _ = nn.new_node_rows(order, k)
    return (X[fit_rows], y[fit_rows], groups[fit_rows]), (X[train], y[train], groups[train])


def synthetic(n_clients, n_new=10, n_samples=20, n_features=20, k=10, seed=0):
    rng = np.random.RandomState(seed)
    n = n_clients + n_new
    groups = np.repeat(np.arange(n), n_samples)
    X = rng.normal(size=(n * n_samples, n_features))
    y = X[:, 3] - 2 * X[:, 7] + groups / n + rng.normal(size=len(groups))
    old = groups < n_clients
    new = np.flatnonzero(~old)
    new = new[np.arange(len(new)) % n_samples < k]
    return (X[old], y[old], groups[old]), (X[new], y[new], groups[new])


def measure(fitted, new, repeats, seed=0):
    base = FederatedSparseLinearRegression(random_state=seed).fit(
        fitted[0], fitted[1], groups=fitted[2])
    pooled = [np.concatenate([a, b]) for a, b in zip(fitted, new)]
    joins, refits = [], []
    for _ in range(repeats):
        joined = copy.deepcopy(base)
        start = time.process_time()
        joined.add_nodes(new[0], new[1], groups=new[2])
        joins.append(time.process_time() - start)
        refit = clone(base)
        start = time.process_time()
        refit.fit(pooled[0], pooled[1], groups=pooled[2])
        refits.append(time.process_time() - start)
    return float(np.median(joins)), float(np.median(refits))


def report(label, join, refit):
    print(f"{label:24s} join {1e3 * join:7.3f} ms  refit {1e3 * refit:8.2f} ms  "
          f"ratio {100 * join / refit:5.1f} %", flush=True)
    return join / refit


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--synthetic", default="1000",
                        help="numbers of fitted clients ('' for none)")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    ratios = []
    for seed in [int(s) for s in args.seeds.split(",") if s]:
        for k in [int(s) for s in args.ks.split(",") if s]:
            fitted, new = school(seed, k)
            ratios.append(report(f"school seed {seed} k {k}",
                                 *measure(fitted, new, args.repeats, seed)))
    if ratios:
        print(f"school: mean ratio {100 * np.mean(ratios):.1f} %, max {100 * max(ratios):.1f} %")
    for n_clients in [int(s) for s in args.synthetic.split(",") if s]:
        report(f"synthetic {n_clients} + 10", *measure(*synthetic(n_clients), args.repeats))


if __name__ == "__main__":
    main()
