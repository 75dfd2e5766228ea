"""Where a Perso-lin join's CPU goes: its steps or the rest (issue 32).

The goal of issue 32 asks a join for at most a tenth of a refit's CPU.  On
rotated moons Perso-lin's join takes about a third.  This script tells
whether fewer gradient steps could close the gap: on the arrays of
``new_nodes.py`` (same loaders, split and ``k`` samples per newcomer) it
times, in one process and one BLAS thread,

* the refit (``fit`` on the fitted nodes' data plus the newcomers' ``k``
  samples; the mean of ``--refits`` fits);
* the join at its default schedule (``n_local`` local steps and ``n_steps``
  model steps per newcomer, from the fit's schedule) and with the schedule
  forced to 1 local step and 1 model step (the CPU no stopping rule can go
  under); the mean of ``--joins`` joins, each on a fresh copy of the fit;
* inside the default join: the batched kernels (``solve_local_problems``,
  ``lin_join_steps``, ``join_rows``, the Lipschitz constants), the rest of
  the batched pass, input validation, ``connected_threshold``, the
  network's start and log, and what is left (Python of
  ``graph_join_nodes``: draws, messages, the grown graph),

and prints each as a share of the refit's CPU, with both joins' accuracy
on the newcomers' test samples.

    python benchmarks/persolin_join_cpu.py --datasets moons,landmine \
        --seeds 0,1,2 --ks 5,10,20

With ``--step-fraction F`` it instead runs ``new_nodes.py``'s table (the
arguments after ``--``) with every newcomer's local and model steps scaled
by ``F`` (rounded up, at least 1), to see what fewer steps do to the
scores on every family:

    python benchmarks/persolin_join_cpu.py --step-fraction 0.25 -- \
        --families persolin --datasets related,har --seeds 0,1,2 --ks 5,10,20

Measured (means over seeds 0-2 and k = 5, 10, 20; one BLAS thread, load
of about 8 processes on 2 cores): rotated moons, refit 27.5 ms, join at
100 + 100 steps 28.8 % of it, at 1 + 1 steps 19.7 % (the batched pass 15.2
%, of which its kernels 9.3 %); Landmine, refit 81.5 ms, join 5.0 % and
4.1 %.  So on moons no stopping rule of the steps reaches 10 %: the join's
fixed cost alone is about twice that.

After the cuts of 2026-11-28 (every result bit-identical: gradient-only
kernels for the local and model steps, Kruskal's forest for the fitted
graph's threshold, the join's network built without clone and re-checks,
one RandomState re-seeded for the join's streams, products and degrees on
raw CSR arrays reading the fitted models in place, the grown graph
without tocoo/triu, the rows toward the fitted candidates solved once,
the messages counted in one call each), same command, load 12 on 2
cores: rotated moons, refit 24.4 ms, join at 100 + 100 steps **18.9 %**
(k = 5 / 10 / 20: 14.2-16.1 / 18.9-20.8 / 20.2-22.7 %), at 1 + 1 steps
14.4 %; its kernels 5.8 % (local 2.0, model steps 2.3, rows 1.5), the
Lipschitz constants 1.1 %, the batched pass 11.0 % in all, the threshold
0.2 %, the network's start 0.3 % and log 1.1 %; Landmine, refit 79.8
ms, join **2.8 %** (1 + 1 steps 2.3 %).  What is left on moons is mostly
input validation (``_validate_join_data``, in ``skfed/_base.py``), the
network log, NumPy's per-call overheads in the peer draws and eigenvalue
batches, and kernels that do the refit's own
per-node work for 20 of its 100 nodes: 10 % is not reached.

Second pass of 2026-11-28 (bit-identical joins; checked against main on
moons and Landmine, Perso-lin with and without re-solves and drops, and
Dada; the data checks' plain-array shortcut, 0.16 ms a join, was
measured here but not kept: a second copy of sklearn's checks): one RandomState per thread is re-seeded instead of
constructed (0.2 ms a join), the grown graph is built by one sort of its
pairs instead of SciPy's COO conversion, the Lipschitz constants of
newcomers of k samples each from a view, the degrees and exchange
endpoints once per row solve, the logs' totals from their stored values.
Same command, the code before and after in one session (load 6-9 on 2
cores): rotated moons 18.7 % -> **16.5 %** (k = 5 / 10 / 20: 11.7-13.2 /
17.0-17.9 / 19.6-19.9 %), 1 + 1 steps 13.3 -> 11.7 %; kernels 6.0 %
(local 2.1, model steps 2.3, rows 1.6), Lipschitz constants 0.9 %, the
batched pass 10.8 % in all, threshold 0.2 %, network start 0.3 %, log
1.0 %; refit 23.9 ms.  Landmine 2.6 -> **2.1 %** (1 + 1 steps 1.7 %),
refit 76.7 ms.  The rest of a moons join is some 30 NumPy / SciPy calls
of 50-200 us each (step 2's rounds, the candidates' permutations, the
gathers of the batched pass, the network's seed and log): no single cut
is left that reaches 10 %, and the kernels do the refit's own per-node
work for 20 of its 100 nodes.

Fewer steps and the scores (``--step-fraction``, means over seeds 0-2 at
k = 5 / 10 / 20, against the default schedule's):

* a quarter (25 local + 25 model steps): rotated moons 56.2 / 57.0 / 60.0
  (56.0 / 57.1 / 59.7), Landmine 93.8 / 93.8 / 93.8 (93.9 / 93.7 / 93.8),
  HAR 85.6 / 85.3 / 86.9 (85.5 / 85.3 / 86.5), the related-* families
  within -0.2 / +0.5 of theirs; CPU on moons 25-30 % instead of 30-36 %;
* 1 + 1 steps: rotated moons 55.8 / 60.7 / 64.5 (above Local's 59.1 /
  62.6 at k = 10 / 20), but Landmine 93.5 (the 93.8 of Global lost), HAR
  84.5 / 84.3 / 83.1, related-small 86.0 / 70.9 / 76.1 (89.1 / 89.1 /
  90.3), related-clustered 72.5 / 75.2 / 81.3 (78.1 / 83.6 / 88.7),
  related-wide 86.1 / 85.0 / 83.1 (88.3 / 87.8 / 87.8).

So moons' gain from stopping early is moons' own (its newcomers' few
rotated samples overfit); the held-out families need the steps.

After the local models became each node's optimum of ``F_k`` (persolin6,
2026-11-28; the newcomers' too: ``n_local`` no longer sets their local
steps, so "1 + 1 steps" is now the solved local model and 1 model step),
same command, main at 73692d1, one process (load about 6-8 on 2 cores):
rotated moons, refit 21.7 ms (was 23.9), join **18.5 %** (was 16.5; k = 5
/ 10 / 20: 14.2-15.1 / 18.5-19.6 / 21.3-21.8 %), 1 + 1 steps 15.0 % (was
11.7); kernels 6.1 % (local solve 1.8, model steps 2.5, rows 1.8),
Lipschitz constants 1.0 %, the batched pass 11.5 %, threshold 0.2 %,
network start 0.3 %, log 1.0 %; accuracy 58.13 (1 + 1: 58.98).  Landmine,
refit 59.8 ms (was 76.7), join **2.9 %** (was 2.1; 1 + 1 steps 2.5 %).
The section ``lin_join_local`` is now ``solve_local_problems``.  The
``--step-fraction`` numbers above were not re-run.

After the block wake-ups (persolin14) and persolin15's cuts (2026-11-29,
load 10-15 on 2 cores, same command, ``--datasets moons,landmine``): a
block-solving join no longer computes its newcomers' ``L_F`` (the block
solves read ``local_preconditioner``'s bound; only ``local_update=
"gradient"`` joins step with ``L_F``), and the block solves reuse a
newcomer's preconditioner and gradient at 0 from its first solve (every
join and fit bit-identical).  Rotated moons, refit 37.7 / 36.7 ms before /
after: join **12.1 % -> 11.1 %** (k = 5 / 10 / 20: 8.3-10.3 / 10.7-13.2 /
13.2-16.3 % before), 1 + 1 steps 11.4 -> 10.2 %, Lipschitz constants 1.6 ->
1.0 %, the batched pass 8.8 -> 7.4 %; kernels 3.7 % (local solve 1.5, model
steps 1.1, rows 1.1).  Landmine, refit 126.6 ms: join 2.0 %.  The 1 + 1
floor is still at 10 %: what is left on moons is the batched pass's NumPy
calls and two preconditioner batches (the local solve's on the centred
design, the block solves' on the raw one), not the steps.

History
-------

The join's CPU on rotated moons and Landmine, as the guide gave it (moved from doc/user_guide/growing.rst, 29 November 2026; each excerpt verbatim)::

       Perso-lin without a privacy budget, peer scoring or rogue nodes (its
       defaults) runs these steps for all the newcomers of a call at once:
       one call for their local models, one for their rows (candidates stored
       back to back), one per synchronous block for their model steps
       (``skfed._core._join_fast``), with the same draws and messages as
       newcomer by newcomer (the tests check the two agree to 1e-9 and send
       the same bytes).  Its CPU is about 18.5 % of a refit's on rotated moons
       (14-15 / 18.5-19.6 / 21-22 % at ``k = 5 / 10 / 20``) and 5.0 % on Landmine
       (``python benchmarks/persolin_join_cpu.py --datasets moons,landmine
       --seeds 0,1,2 --ks 5,10,20``, one process; refits of 21.7 and 61.6
       ms; Landmine's newcomers are light, and their certificates take it
       from 3.2 %).  A tenth is out of reach on moons: the 20 newcomers of a 100-node
       refit each do the work every node does in it (local solve, rows, model
       steps), and those kernels alone take 6.1 % of the refit; the rest is the fixed cost of a join
       (checking the data, setting up and logging its network, growing the
       graph).  How it got there is in the benchmark's docstring.

"""

import argparse
import collections
import copy
import math
import sys
import time

import numpy as np
from sklearn.base import clone
from threadpoolctl import threadpool_limits

import new_nodes as nn
import skfed
import skfed._graph_join as gj
import skfed._graph_join_batch as gb
import skfed.boosting._perso_lin as pl
import skfed.network as net

SECTIONS = (
    (pl, "solve_local_problems", "kernel: local solve"),  # imported at call time
    (gb, "lin_join_steps", "kernel: model steps"),
    (gb, "join_rows", "kernel: graph rows"),
    (gb, "top_squared_singular_values", "Lipschitz constants"),
    (gb, "lin_join_batched", "batched pass (all)"),
    (gj, "connected_threshold", "connected_threshold"),
    (gj, "join_simulation", "network start"),
    (net.NetworkSimulation, "log", "network log"),
    (gj, "graph_join_nodes", "join (all)"),
)


def _wrap(times):
    """Time every section of SECTIONS into ``times`` (undone by the result)."""
    undo = []
    for owner, attr, label in SECTIONS:
        f = getattr(owner, attr)

        def timed(*a, _f=f, _label=label, **kw):
            t = time.process_time()
            try:
                return _f(*a, **kw)
            finally:
                times[_label] += time.process_time() - t
        setattr(owner, attr, timed)
        undo.append((owner, attr, f))
    return undo


def _joins(base, X, y, g, n_joins, schedule=None):
    original = gj._schedule
    if schedule is not None:
        gj._schedule = lambda est, n_fit: schedule
    try:
        copies = [copy.deepcopy(base) for _ in range(n_joins)]
        t = time.process_time()
        for c in copies:
            c.add_nodes(X, y, groups=g)
        return (time.process_time() - t) / n_joins, copies[0]
    finally:
        gj._schedule = original


def run(name, seed, ks, n_joins, n_refits):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra, False)
    base = nn.make_estimator("persolin", task, seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    n_fit = len(np.unique(groups[fit_rows]))
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xp = np.concatenate([X[fit_rows], Xk])
        yp = np.concatenate([y[fit_rows], yk])
        gp = np.concatenate([groups[fit_rows], gk])
        t = time.process_time()
        for _ in range(n_refits):
            clone(base).fit(Xp, yp, groups=gp)
        refit = (time.process_time() - t) / n_refits
        full, joined = _joins(base, Xk, yk, gk, n_joins)
        acc_full = 100 * np.mean(joined.predict(X[test], groups=groups[test]) == y[test])
        floor, joined1 = _joins(base, Xk, yk, gk, n_joins, schedule=(1, 1))
        acc_floor = 100 * np.mean(joined1.predict(X[test], groups=groups[test]) == y[test])
        times = collections.Counter()
        undo = _wrap(times)
        try:
            _joins(base, Xk, yk, gk, n_joins)
        finally:
            for owner, attr, f in undo:
                setattr(owner, attr, f)
        shares = {label: times[label] / n_joins / refit for label in times}
        rows.append(dict(k=k, refit=refit, full=full / refit, floor=floor / refit,
                         acc_full=acc_full, acc_floor=acc_floor, shares=shares,
                         schedule=gj._schedule(base, n_fit)))
        print(f"{name:9s} seed {seed} k {k:2d}  refit {1e3 * refit:6.1f} ms  "
              f"join {100 * full / refit:5.1f} %  (1+1 steps {100 * floor / refit:5.1f} %)  "
              f"acc {acc_full:.1f} / {acc_floor:.1f}", flush=True)
    return rows


def scaled_table(fraction, argv):
    """``new_nodes.py``'s table with the newcomers' steps scaled by ``fraction``."""
    original = gj._schedule

    def schedule(est, n_fit):
        n_local, n_steps = original(est, n_fit)
        return (max(1, math.ceil(n_local * fraction)), max(1, math.ceil(n_steps * fraction)))
    gj._schedule = schedule
    sys.argv = ["new_nodes.py"] + argv
    try:
        nn.main()
    finally:
        gj._schedule = original


def main():
    if "--step-fraction" in sys.argv:
        i = sys.argv.index("--step-fraction")
        rest = sys.argv[i + 3:] if sys.argv[i + 2:i + 3] == ["--"] else sys.argv[i + 2:]
        scaled_table(float(sys.argv[i + 1]), rest)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="moons,landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--joins", type=int, default=20)
    parser.add_argument("--refits", type=int, default=5)
    args = parser.parse_args()
    nn._import_joins()
    ks = [int(v) for v in args.ks.split(",")]
    print(f"skfed {skfed.__file__}")
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            rows = []
            for seed in (int(v) for v in args.seeds.split(",")):
                rows += run(name, seed, ks, args.joins, args.refits)
            print(f"\n{name}: means over {len(rows)} (seed, k); schedule "
                  f"(local, model steps) {rows[0]['schedule']}; refit "
                  f"{1e3 * np.mean([r['refit'] for r in rows]):.1f} ms")
            print(f"  join, default steps     {100 * np.mean([r['full'] for r in rows]):5.1f} % "
                  f"of the refit's CPU (accuracy {np.mean([r['acc_full'] for r in rows]):.2f})")
            print(f"  join, 1 + 1 steps       {100 * np.mean([r['floor'] for r in rows]):5.1f} % "
                  f"(accuracy {np.mean([r['acc_floor'] for r in rows]):.2f})")
            labels = [label for _, _, label in SECTIONS]
            for label in labels:
                print(f"    {label:24s} {100 * np.mean([r['shares'].get(label, 0.0) for r in rows]):5.1f} %")
            print()


if __name__ == "__main__":
    main()
