"""Dada's node solver: skfed against scikit-learn's AdaBoost with decision stumps.

Two measurements, pinned to one BLAS thread, skfed and the peer interleaved
in every repeat so a busy machine slows both alike:

1. **Per-node fit.**  On each of several nodes (people of HAR walking vs
   static, schools of School), fit skfed's boosting on that node alone
   (:class:`~skfed.boosting.DecentralizedBoostingClassifier` with one node:
   Frank-Wolfe over ``2 n_features`` stumps, as in the paper) and
   ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))`` with the
   same number of boosting steps, on the same 75 % of the node's samples;
   report the time ratio skfed / sklearn (below 1: skfed faster) and both
   test accuracies on the other 25 %.
2. **Time per Frank-Wolfe step** as the number of stumps ``n`` grows, for a
   node of ``m`` samples: the step is dominated by the gradient
   ``A_k^T eta`` (``m n`` multiply-adds; the margins are updated with one
   column, O(m)), so the time per step divided by ``m n`` stays flat; the
   same product done by BLAS (``H.T @ v``, one thread) is printed beside it.
   (A node with ``deg`` neighbours adds the O(deg n) neighbour sum, small
   when ``deg << m``.)

3. **Scale** (``--scale 1000 3000``): Dada and Perso-lin with their
   defaults on n nodes of 30 samples x 20 features (two groups of opposite
   linear tasks), over a sparse ``k_regular`` topology of degree 10: fit
   time, bytes and messages per node, and peak memory (``tracemalloc``).
   Memory and time of skfed's own code are linear in the topology's links;
   the simulated network's per-pair byte counters (``skfed._core._comm``)
   still hold a dense n x n array, which bounds the size that fits in memory.
   Measured (2 shared cores; ``--scale 1000``, ``3000``, ``10000``)::

       nodes   Dada: s   MB sent   graph nnz    Perso-lin: s   MB sent   graph nnz
        1000      22.7       400       3,250            23.1       351       2,336
        3000      32.1     1,797       8,884             7.4       424       6,412
       10000     140.2     7,554      35,154            15.3     1,416      21,540

   (the 1,000-node row ran while the machine was fully loaded).  Peak
   Python memory at 10,000 nodes: 3.4 GB, of which 1.6 GB are the network
   counter's two dense 10,000 x 10,000 int64 arrays.  On the default
   complete topology, Perso-lin at 1,000 nodes x 30 samples now takes
   22 s and sends 0.29 GB (10,018 graph non-zeros); with the former
   defaults (no sparsification, graph re-learned every 100 iterations,
   alpha=1e-3) the same fit took 365 s and sent 9.9 GB (480,942 non-zeros).

Run::

    python benchmarks/bench_boosting.py [--repeats 5] [--quick] [--scale 1000 3000]
"""

import argparse
import json
import platform
import time
import warnings

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from skfed import SingleNodeWarning
from skfed._core._boosting_fast import fw_local
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.datasets import load_har, load_school, train_test_split_per_node


def _timed(func):
    start = time.perf_counter()
    out = func()
    return time.perf_counter() - start, out


def per_node_fits(repeats, quick):
    """Fit both on several nodes; return totals and accuracies."""
    cases = []
    X, y, g = load_har(task="walking", return_X_y=True)
    people = np.unique(g)[: 3 if quick else 6]
    for person in people:
        rows = g == person
        cases.append(("har", X[rows].astype(np.float64), y[rows]))
    X, y, g = load_school(task="classification", return_X_y=True)
    sizes = np.bincount(g)
    schools = np.argsort(sizes)[::-1][: 3 if quick else 6]
    for school in schools:
        rows = g == school
        cases.append(("school", X[rows], y[rows]))
    results = []
    for n_steps in ([50] if quick else [50, 200]):
        for name, Xn, yn in cases:
            Xtr, Xte, ytr, yte, _, _ = train_test_split_per_node(
                Xn, yn, groups=np.zeros(len(yn)), test_size=0.25, random_state=0
            )
            n_estimators = 2 * Xn.shape[1]

            def skfed_fit():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SingleNodeWarning)
                    return DecentralizedBoostingClassifier(
                        n_estimators, beta=10.0, max_iter=n_steps
                    ).fit(Xtr, ytr)

            def sklearn_fit():
                return AdaBoostClassifier(
                    DecisionTreeClassifier(max_depth=1), n_estimators=n_steps, random_state=0
                ).fit(Xtr, ytr)

            skfed_fit(), sklearn_fit()  # warm-up
            t_skfed, t_sklearn = [], []
            for _ in range(repeats):
                t, model_skfed = _timed(skfed_fit)
                t_skfed.append(t)
                t, model_sklearn = _timed(sklearn_fit)
                t_sklearn.append(t)
            results.append({
                "dataset": name,
                "n_samples": int(len(ytr)),
                "n_features": int(Xn.shape[1]),
                "n_stumps_skfed": int(n_estimators),
                "n_steps": n_steps,
                "skfed_s": float(np.median(t_skfed)),
                "sklearn_s": float(np.median(t_sklearn)),
                "skfed_accuracy": float(model_skfed.score(Xte, yte)),
                "sklearn_accuracy": float(model_sklearn.score(Xte, yte)),
            })
            r = results[-1]
            print(f"{name:6s} m={r['n_samples']:4d} D={r['n_features']:3d} steps={n_steps:3d}  "
                  f"skfed {1e3 * r['skfed_s']:8.2f} ms  sklearn {1e3 * r['sklearn_s']:8.2f} ms  "
                  f"ratio {r['skfed_s'] / r['sklearn_s']:.3f}  acc {r['skfed_accuracy']:.3f} "
                  f"vs {r['sklearn_accuracy']:.3f}")
    return results


def step_scaling(repeats, quick):
    """Time per Frank-Wolfe step against the number of stumps n (and m)."""
    rng = np.random.default_rng(0)
    out = []
    sizes_m = [400] if quick else [200, 800]
    sizes_n = [64, 256, 1024] if quick else [64, 128, 256, 512, 1024, 2048, 4096]
    n_steps = 200
    for m in sizes_m:
        for n in sizes_n:
            H = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(m, n)))
            Y = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(1, m)))
            sw = np.ones(m)
            offsets = np.array([0, m], dtype=np.intp)
            v = rng.standard_normal(m)

            def fw():
                alpha = np.zeros((1, 1, n))
                margins = np.zeros((1, m))
                losses = np.zeros((1, 1))
                fw_local(H, Y, sw, offsets, alpha, margins, losses, 1.0, n_steps, 0, 1)

            def gemv():
                for _ in range(n_steps):
                    H.T @ v

            fw(), gemv()
            t_fw, t_gemv = [], []
            for _ in range(repeats):
                t_fw.append(_timed(fw)[0])
                t_gemv.append(_timed(gemv)[0])
            per_step = float(np.median(t_fw)) / n_steps
            per_gemv = float(np.median(t_gemv)) / n_steps
            out.append({
                "m": m, "n": n,
                "us_per_step": 1e6 * per_step,
                "ns_per_mn": 1e9 * per_step / (m * n),
                "blas_gemv_us": 1e6 * per_gemv,
                "gemv_share": per_gemv / per_step,
            })
            r = out[-1]
            print(f"m={m:4d} n={n:5d}  {r['us_per_step']:9.1f} us/step  "
                  f"{r['ns_per_mn']:.3f} ns per m*n  BLAS H.T@v {r['blas_gemv_us']:8.1f} us "
                  f"({100 * r['gemv_share']:.0f} % of a step)")
    return out


def scale(sizes):
    """Dada and Perso-lin with their defaults on a sparse topology of growing size."""
    from skfed.boosting import PersonalizedLinearClassifier
    from skfed.network import SimulatedNetwork

    out = []
    for n_nodes in sizes:
        rng = np.random.default_rng(n_nodes)
        m, D = 30, 20
        X = rng.standard_normal((n_nodes * m, D))
        groups = np.repeat(np.arange(n_nodes), m)
        sign = np.where(groups % 2 == 0, 1.0, -1.0)
        y = (sign * (X[:, 0] + 0.5 * X[:, 1]) + 0.3 * rng.standard_normal(len(X)) > 0)
        for name, estimator in [
            ("dada", DecentralizedBoostingClassifier(2 * D, random_state=0)),
            ("perso_lin", PersonalizedLinearClassifier(random_state=0)),
        ]:
            estimator.set_params(network=SimulatedNetwork(
                topology="k_regular", topology_params={"degree": 10}, random_state=0))
            import tracemalloc

            tracemalloc.start()
            seconds, fitted = _timed(lambda: estimator.fit(X, y.astype(int), groups=groups))
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            out.append({
                "method": name, "n_nodes": n_nodes, "seconds": seconds,
                "bytes_sent": int(fitted.n_bytes_sent_), "messages": int(fitted.n_messages_),
                "bytes_per_node": fitted.n_bytes_sent_ / n_nodes,
                "graph_nnz": int(fitted.collaboration_graph_.nnz),
                "peak_python_mb": peak / 1e6,
                "train_accuracy": float(fitted.score(X, y.astype(int), groups=groups)),
            })
            r = out[-1]
            print(f"{name:9s} n={n_nodes:6d} {seconds:7.1f} s  {r['bytes_sent'] / 1e6:9.1f} MB "
                  f"sent ({r['bytes_per_node'] / 1e3:.0f} kB a node), {r['messages']} messages, "
                  f"graph nnz {r['graph_nnz']}, peak {r['peak_python_mb']:.0f} MB, "
                  f"train acc {r['train_accuracy']:.3f}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scale", type=int, nargs="+", default=None,
                        help="only the scale part, at these numbers of nodes")
    args = parser.parse_args()
    if args.scale:
        with threadpool_limits(limits=1):
            rows = scale(args.scale)
        print(json.dumps({"benchmark": "bench_boosting_scale", "rows": rows}))
        return
    with threadpool_limits(limits=1):
        fits = per_node_fits(args.repeats, args.quick)
        steps = step_scaling(args.repeats, args.quick)
    total_skfed = sum(r["skfed_s"] for r in fits)
    total_sklearn = sum(r["sklearn_s"] for r in fits)
    large = [r for r in steps if r["n"] >= 256]
    summary = {
        "benchmark": "bench_boosting",
        "per_node_time_ratio_skfed_over_sklearn": total_skfed / total_sklearn,
        "per_node_time_ratio_median": float(np.median([r["skfed_s"] / r["sklearn_s"]
                                                       for r in fits])),
        "skfed_mean_accuracy": float(np.mean([r["skfed_accuracy"] for r in fits])),
        "sklearn_adaboost_mean_accuracy": float(np.mean([r["sklearn_accuracy"] for r in fits])),
        "n_node_fits": len(fits),
        "ns_per_mn_min_max": [float(min(r["ns_per_mn"] for r in large)),
                              float(max(r["ns_per_mn"] for r in large))],
        "fw_step_us_by_n": {f"m{r['m']}_n{r['n']}": round(r["us_per_step"], 1) for r in steps},
        "blas_gemv_share_of_step_median": float(np.median([r["gemv_share"] for r in large])),
        "python": platform.python_version(),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
