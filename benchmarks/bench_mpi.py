"""Dada on MPI against the simulated fit: wall time on 1, 2 and 4 ranks.

Rotated moons (:func:`skfed.datasets.make_rotated_moons`, 1,000 nodes by
default, each with its few training samples), one
:class:`~skfed.boosting.DecentralizedBoostingClassifier` with a learned
graph fitted twice on the same arrays:

* **simulated**: ``fit`` in this process (one BLAS thread);
* **MPI**: ``mpiexec -n R python -m skfed.engines.mpi`` on the per-node
  files, for every R of ``--ranks``; the time is the fit inside the ranks
  (``mpi_wall_time_``, from loading the nodes' files to the fitted
  estimator on rank 0), and the launch time (Python start-up and imports
  of every rank) is printed beside it.

Each MPI fit is checked equal to the simulated one (coefficients, learned
graph and its weights, ``graph_signal_``, skfed's byte counts) before
its time is reported.  Iterations are given per node
(``--max-iter-per-node``, ``--graph-init-per-node``) so a run stays within
minutes on a shared 2-core machine; the estimator's defaults are 100 and
50.  Prints a table, then one JSON line with the wall and CPU times and
the ratios MPI / simulated (above 1: MPI slower).  The MPI CPU time is that
of every rank (and ``mpiexec``) from the reaped child processes, minus that
of a launch that only imports skfed (the ranks' start-up); MPICH's waiting
ranks poll, so their waits count as CPU.

Measured on the night of 2026-11-28 (10:20-10:27 UTC; shared 2-core
machine at load 8-9; 1,000 nodes, ``max_iter=10,000``,
``graph_init_iter=10,000``; Dada's default ``graph_signal="kernel"``; every
MPI fit equal to the simulated one), ``python benchmarks/bench_mpi.py``::

    simulated fit 2.59 s (0.86 s CPU), 427.3 MB in skfed's byte model
    ranks  MPI fit s  launch s  MPI / sim    CPU s  CPU / sim    MPI MB
        1      26.63     31.46      10.30    10.23      11.95       0.0
        2      55.46     59.39      21.44    31.09      36.31      45.9
        4     122.70    130.84      47.44    70.62      82.49     127.4

Right after, at load 9-11, 300 nodes and 1 / 2 ranks for both signals
(``python benchmarks/bench_mpi.py --n-nodes 300 --ranks 1 2
[--graph-signal boosting]``): the kernel signal 3.37 / 14.96 s of CPU
(14.1 / 62.5 times its simulated fit's 0.24 s), the boosting signal
17.67 / 28.84 s (114 / 187 times 0.15 s).  The boosting signal's MPI graph
steps are dominated by ``_Run._scores``: every ``pair_scores`` call builds
the non-zero lists and stump prefix sums of all the nodes' models again
(the simulation builds them once per graph phase); the kernel signal's
dense scores need neither.  The 1,000-node boosting run was stopped after
100 s of CPU on one rank.

Since then the MPI engine builds those tables once per graph phase
(``score_tables``; the models stay fixed through it) and hands them to
every one-step call.  Before (ff339c8) and after, run alternately twice
at load 15-21 (``PYTHONPATH`` set to each tree, same command with
``--graph-signal boosting``), MPI CPU on 1 / 2 ranks: before 15.37 / 23.97
and 13.70 / 18.83 s (CPU / simulation 118 / 183 and 87 / 120), after
**2.92 / 13.55 and 2.54 / 13.07 s** (21 / 99 and 19 / 100); every run
equal to the simulated fit.  The 2-rank run's rest is the point-to-point
exchange of every step.  The gain depends on the load: the rebuilt tables
are passes over memory, and one run of the old code at load 11 (before
the machine filled up) took 3.00 / 13.32 s, as the new code does under
load; measure both trees side by side before quoting a ratio.

The first run of the kernel signal on MPI, before ``graph_steps`` skipped
its non-zero lists for dense models (each one-step call made a pass over
all 1,000 x 300 kernel model weights), took 58.6 / 113.9 / 506.8 s of CPU
on 1 / 2 / 4 ranks (91 / 178 / 791 times the simulated fit's 0.64 s).

Before the kernel signal (``graph_signal="boosting"``, the MPI engine's
only signal then), measured the same way but in wall time only (load 7-9;
9 graph updates)::

    simulated fit 3.09 s, 352.6 MB in skfed's byte model
    ranks  MPI fit s  launch s  MPI / sim    MPI MB
        1      19.57     25.54       6.33       0.0
        2      78.75     88.98      25.47     128.8
        4      80.36     90.35      25.98     241.0

Right after, the engine before lost ranks were survived (every step told to
the ranks holding a neighbour only) gave 70.40 s on 2 ranks and 68.97 s on
4 (23.2 and 22.8 times its simulated fit of 3.03 s): telling every rank of
every step, so that all notice a silent rank at the same step, costs about
12-17% here (one run each; the load varies by about that much too).  Two
small changes came after this measurement (each model update also carries
the node's loss; every exchange runs the agreement on lost ranks); a rerun
with them, at load 15-20, gave equal fits in 29.8, 54.1 and 130.4 s on 1, 2
and 4 ranks, too noisy to compare.

One rank pays the per-step Python dispatch (a Cython solver call per wake-up
instead of one loop over all of them); two and four ranks add a message
exchange at every step (the schedule is agreed, so a step waits for the
updates of the steps before it), on two cores shared by the ranks.  The
engine is for nodes that are separate machines, not a speed-up on one.

Usage::

    python benchmarks/bench_mpi.py                      # 1,000 nodes, 1 2 4 ranks
    python benchmarks/bench_mpi.py --n-nodes 200 --ranks 2
    python benchmarks/bench_mpi.py --graph-signal boosting
"""

import argparse
import json
import os
import pickle
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import skfed
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.datasets import make_rotated_moons
from skfed.engines._partitions import save_partitions


def _children_cpu():
    """CPU seconds (user + system) of the reaped child processes: mpiexec and its ranks."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _mpiexec():
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-nodes", type=int, default=1000)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--max-iter-per-node", type=int, default=10)
    parser.add_argument("--graph-init-per-node", type=int, default=10)
    parser.add_argument("--graph-signal", choices=["kernel", "boosting"], default=None,
                        help="Dada's graph_signal (default: the estimator's, 'kernel')")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="longest one mpiexec launch may take, seconds")
    args = parser.parse_args(argv)
    if _mpiexec() is None:
        sys.exit('mpiexec not found: pip install "skfed[mpi]"')
    K = args.n_nodes
    X, _, y, _, groups, *_ = make_rotated_moons(K, random_state=0)
    params = {
        "random_state": 0,
        "max_iter": args.max_iter_per_node * K,
        "graph_init_iter": args.graph_init_per_node * K,
        "join_neighbours": "graph",   # (MPI runs no feature-mean gate: the fits' bytes differ)
    }
    if args.graph_signal is not None:
        params["graph_signal"] = args.graph_signal
    estimator = DecentralizedBoostingClassifier(**params)
    with threadpool_limits(1):
        start, cpu = time.perf_counter(), time.process_time()
        simulated = estimator.fit(X, y, groups=groups)
        sim_time = time.perf_counter() - start
        sim_cpu = time.process_time() - cpu
    rows = []
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(skfed.__file__).parent.parent)] + env.get("PYTHONPATH", "").split(os.pathsep)
    )
    with tempfile.TemporaryDirectory() as tmp:
        save_partitions(X, y, groups, Path(tmp) / "nodes")
        for n_ranks in args.ranks:
            out = Path(tmp) / f"fitted-{n_ranks}.pkl"
            # The ranks' start-up CPU (Python, the imports): a launch that
            # only imports, subtracted from the fit's launch below.
            before = _children_cpu()
            subprocess.run([_mpiexec(), "-n", str(n_ranks), sys.executable, "-c",
                            "import skfed.engines.mpi, skfed.boosting"],
                           env=env, check=True, timeout=args.timeout)
            startup_cpu = _children_cpu() - before
            before = _children_cpu()
            start = time.perf_counter()
            proc = subprocess.run(
                [_mpiexec(), "-n", str(n_ranks), sys.executable, "-m", "skfed.engines.mpi",
                 "--data", str(Path(tmp) / "nodes"), "--params", json.dumps(params),
                 "--output", str(out), "--timeout", "600",
                 "--max-time", str(args.timeout)],
                env=env, capture_output=True, text=True, timeout=args.timeout + 60,
            )
            launch = time.perf_counter() - start
            mpi_cpu = _children_cpu() - before - startup_cpu
            if proc.returncode:
                sys.exit(f"mpiexec -n {n_ranks} failed:\n{proc.stderr[-3000:]}")
            with open(out, "rb") as f:
                fitted = pickle.load(f)
            G, S = fitted.collaboration_graph_.tocsr(), simulated.collaboration_graph_.tocsr()
            equal = (
                np.array_equal(fitted.coef_, simulated.coef_)
                and fitted.graph_signal_ == simulated.graph_signal_
                and np.array_equal(G.indptr, S.indptr)
                and np.array_equal(G.indices, S.indices)
                and np.array_equal(G.data, S.data)
                and fitted.n_bytes_sent_ == simulated.n_bytes_sent_
            )
            if not equal:
                sys.exit(f"mpiexec -n {n_ranks}: the MPI fit differs from the simulated fit")
            mpi_bytes = sum(v["bytes"] for v in fitted.mpi_traffic_.values())
            rows.append((n_ranks, fitted.mpi_wall_time_, launch, mpi_bytes, mpi_cpu))
    print(f"Dada (graph_signal={simulated.graph_signal_!r}), rotated moons, {K} nodes, "
          f"max_iter={params['max_iter']}, graph_init_iter={params['graph_init_iter']}: "
          f"simulated fit {sim_time:.2f} s ({sim_cpu:.2f} s CPU), "
          f"{simulated.n_bytes_sent_ / 1e6:.1f} MB in skfed's byte model")
    print(f"{'ranks':>5}  {'MPI fit s':>9}  {'launch s':>8}  {'MPI / sim':>9}  "
          f"{'CPU s':>7}  {'CPU / sim':>9}  {'MPI MB':>8}")
    for n_ranks, fit_time, launch, mpi_bytes, mpi_cpu in rows:
        print(f"{n_ranks:>5}  {fit_time:9.2f}  {launch:8.2f}  {fit_time / sim_time:9.2f}  "
              f"{mpi_cpu:7.2f}  {mpi_cpu / sim_cpu:9.2f}  {mpi_bytes / 1e6:8.1f}")
    print(json.dumps({
        "benchmark": "bench_mpi",
        "n_nodes": K,
        "graph_signal": simulated.graph_signal_,
        "simulated_s": round(sim_time, 3),
        "simulated_cpu_s": round(sim_cpu, 3),
        "mpi_fit_s": {str(r): round(t, 3) for r, t, *_ in rows},
        "mpi_launch_s": {str(r): round(t, 3) for r, _, t, *_ in rows},
        "ratio_mpi_over_simulated": {str(r): round(t / sim_time, 3) for r, t, *_ in rows},
        "mpi_cpu_s": {str(r): round(c, 3) for r, *_, c in rows},
        "cpu_ratio_mpi_over_simulated": {str(r): round(c / sim_cpu, 3) for r, *_, c in rows},
        "equal_to_simulated": True,
    }))


if __name__ == "__main__":
    main()
