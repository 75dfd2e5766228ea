"""CPU of a MOCHA join against a refit, repeated (issue 32's 1/10 line).

``benchmarks/new_nodes.py`` times one join and one refit per seed and
``k``; on a shared machine one measurement moves by 20-30 % from run to
run (rotated moons, seed 2, ``k = 20``: a join of 9.7 ms and then 12.5 ms
in two runs of the same code).  This script takes the same splits and
estimators, and times ``repeats`` joins (each on a fresh copy of the
fitted estimator, so every one rehearses its size) and ``repeats`` refits,
interleaved, and reports the medians, their ratio, and the part of the
join's CPU the rehearsal took.  CPU is ``time.process_time``; run it with
one BLAS thread::

    OPENBLAS_NUM_THREADS=1 python benchmarks/new_nodes_mocha_cpu.py \\
        --datasets moons --seeds 0,1,2 --ks 5,10,20 --repeats 7

History (rotated moons, seeds 0-2, ``k = 5 / 10 / 20``, join / refit
medians of 7, in per cent; 2026-11-28, load 9-10 on 2 cores)
---------------------------------------------------------------------
Main at c7bf5b3 (its modules, run from a copy of that commit) and then
branch joinsm3 after the join's Python was cut (bit-identical joins),
two runs each, alternating::

    c7bf5b3   means 7.6 / 9.3 / 9.5   seed 2: 7.7 /  9.8 / 11.0
    joinsm3   means 6.9 / 8.7 / 8.6   seed 2: 6.6 /  9.0 / 10.1
    c7bf5b3   means 7.9 / 9.8 / 9.8   seed 2: 7.8 / 10.1 / 11.4
    joinsm3   means 6.8 / 8.7 / 8.7   seed 2: 6.5 /  9.1 / 10.2

Branch joinsm10 (a one-class newcomer's size also rehearses one-class
draws, only the kept ones solved) against main at a13d34a (MOCHA's join as
at 8aeda58), two runs each, alternating, load 3-4 (means, and the largest
seed)::

    joinsm10  means 8.1 / 8.5 / 7.8   max 9.6 / 9.3 / 9.5
    main      means 5.6 / 7.7 / 7.8   max 5.9 / 8.3 / 9.6
    joinsm10  means 8.3 / 8.5 / 8.0   max 9.7 / 9.1 / 9.5
    main      means 5.5 / 7.7 / 7.9   max 6.0 / 8.1 / 9.7

(``k = 5``: one or two one-class newcomers on seeds 0 and 1, whose size
rehearses 13-25 one-class draws, about 2.5 ms; ``k = 10``: seed 1's one,
3 draws, 1.5 ms; solving every draw, kept or not, had cost seed 1 ``k =
10`` 13.0 %.)

The rehearsal took 2.6-3.2 ms (k = 5) and 4.1-5.2 ms (k = 10, 20, size
10) of joins of 5.5-12.6 ms; what was cut (profiled with the local
solver timed apart, which is about two thirds of a join at ``k = 20``):
two new ``RandomState`` objects a join (0.2 ms each on this machine: a
new MT19937 first fills its state from a SeedSequence), the newcomers'
passes' general round code (privacy, compression, parallel blocks), the
rehearsal's per-draw gathers, reshapes and second model products, and a
classification-target check that the class check before it makes
unreachable.  Left: the solver's passes (bit-identical results fix
them), the join's data validation (0.3-0.6 ms, scikit-learn's
``validate_data``), the network's start (0.3-0.4 ms, half of it
``SimulatedNetwork._validate_params``) and its log (0.2-0.3 ms); the
refit pays the same three.
"""

import argparse
import copy
import time

import new_nodes as nn
import numpy as np
from sklearn.base import clone


def measure(name, seed, ks, repeats):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = nn.split(X, y, groups, seed, extra, False)
    base = nn.make_estimator("mocha", task, seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    rows = []
    for k in ks:
        train, _ = nn.new_node_rows(order, k)
        Xp = np.concatenate([X[fit_rows], X[train]])
        yp = np.concatenate([y[fit_rows], y[train]])
        gp = np.concatenate([groups[fit_rows], groups[train]])
        joins, refits, rehearsals = [], [], []
        for _ in range(repeats):
            joined = copy.deepcopy(base)
            start = time.process_time()
            nn.add_nodes(joined, X[train], y[train], groups[train])
            joins.append(time.process_time() - start)
            rehearsal = getattr(joined, "_join_rehearsal", None)
            rehearsals.append(0.0 if rehearsal is None else rehearsal.cpu)
            refit = clone(base)
            start = time.process_time()
            refit.fit(Xp, yp, groups=gp)
            refits.append(time.process_time() - start)
        join, refit_cpu = float(np.median(joins)), float(np.median(refits))
        rows.append((name, seed, k, join, refit_cpu, float(np.median(rehearsals))))
        print(f"{name:9s} seed {seed} k {k:3d}  join {1e3 * join:6.2f} ms  refit "
              f"{1e3 * refit_cpu:7.2f} ms  ratio {100 * join / refit_cpu:5.1f} %  "
              f"rehearsal {1e3 * rows[-1][5]:5.2f} ms", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    rows = []
    for name in args.datasets.split(","):
        for seed in [int(s) for s in args.seeds.split(",")]:
            rows += measure(name, seed, ks, args.repeats)
    print("max ratio per (data, k) over the seeds:")
    for name in args.datasets.split(","):
        for k in ks:
            sel = [r for r in rows if r[0] == name and r[2] == k]
            print(f"  {name:9s} k {k:3d}  mean {100 * np.mean([r[3] / r[4] for r in sel]):5.1f} %"
                  f"  max {100 * max(r[3] / r[4] for r in sel):5.1f} %")


if __name__ == "__main__":
    main()
