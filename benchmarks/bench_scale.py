"""Fit time, peak memory, bytes and score of every skfed estimator, 10 -> 100,000 nodes.

Every node holds 30 training samples of 20 features (and 10 held-out
samples, on which the score is computed).  Classification nodes share a
linear rule plus a personal perturbation (``y = sign(x . (w + 0.3 u_k))``);
regression nodes share a sparse coefficient vector (features 3 and 7) plus
a per-node offset and noise.  Each (estimator, size) point runs in its own
subprocess, so its peak memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``,
or the largest joblib worker's when that is larger) is its own; ``data_mb`` is the resident size after the data were made and
before the fit (the data alone: 40 x 20 float64 a node, 640 MB at 100,000
nodes).  The pooled scikit-learn peer (``LogisticRegression`` or
``LinearRegression`` on every node's rows, the "Global" baseline) runs on
the same arrays at the same size, in its own subprocess.

Sizes grow by 10x from 10 nodes.  A size is run only if it is at most the
estimator's ``max_nodes`` and the fit time extrapolated from the last two
points (with the slope measured so far, at least 1) fits the
``budget_s`` of one point; a point that exceeds ``2 budget_s`` is stopped
and reported as a timeout.  Raise the budgets in ``ESTIMATORS`` or from the
command line (``--max-nodes NAME=100000 --budget NAME=600``).

The fitted log-log slopes (``time_slope``, ``memory_slope`` of the fit's own
memory, ``bytes_slope``) use the points with at least 1,000 nodes (all the
points when fewer than two have that many): 1 is linear in nodes.

One JSON line per estimator; ``--table`` also prints a Markdown table.
``fit_cpu_s`` (``time.process_time`` of the fit, all threads) sits beside the
wall time ``fit_s``: on a shared machine the wall time is noisy.

The million-client point (issue 29): ``FederatedSupportRecovery(float32,
n_jobs=2)`` draws its data in float32, chunk by chunk (the data alone are
2.4 GB; 4.8 GB in float64), keeps it float32 through the fit, and has no
pooled peer beyond 100,000 nodes (``peer_max_nodes``: the pooled
``LinearRegression`` would copy 30 million rows to float64)::

    python benchmarks/bench_scale.py --only "FederatedSupportRecovery(float32, n_jobs=2)" \
        --sizes 100000 1000000 --table

    python benchmarks/bench_scale.py                       # every estimator, default budgets
    python benchmarks/bench_scale.py --only FederatedSupportRecovery --max-nodes all=100000
    python benchmarks/bench_scale.py --point LocalEstimator 1000    # one point (what each subprocess runs)
"""

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

N_TRAIN, N_TEST, N_FEATURES = 30, 10, 20
SIZES = [10, 100, 1_000, 10_000, 100_000]
TRUE_SUPPORT = (3, 7)


def _sparse_graph(n_nodes):
    from skfed import SimulatedNetwork

    # A sparse communication graph (10 neighbours a node, fewer on tiny
    # networks) for the peer-to-peer methods: messages and graphs then scale
    # with edges.
    degree = min(10, 2 * ((n_nodes - 1) // 2))
    return SimulatedNetwork(topology="k_regular", topology_params={"degree": degree})


def _make(name, n_nodes):
    """A fresh estimator of each benchmarked configuration (defaults unless stated)."""
    import skfed
    from sklearn.linear_model import LogisticRegression

    factories = {
        "FederatedSupportRecovery": lambda: skfed.FederatedSupportRecovery(),
        "FederatedSupportRecovery(float32, n_jobs=2)": lambda: (
            skfed.FederatedSupportRecovery(n_jobs=2)
        ),
        "FederatedSparseLinearRegression": lambda: skfed.FederatedSparseLinearRegression(),
        "LocalEstimator(LogisticRegression)": lambda: skfed.LocalEstimator(
            LogisticRegression(), n_jobs=2
        ),
        # The defaults: linear, the shared model (omega="auto"), logistic loss.
        "FederatedMultiTaskClassifier": lambda: skfed.FederatedMultiTaskClassifier(
            random_state=0
        ),
        "FederatedMultiTaskRegressor": lambda: skfed.FederatedMultiTaskRegressor(
            random_state=0
        ),
        # MOCHA's learned Omega (the defaults before issue 28, linear): its
        # alternation needs more rounds as nodes are added (1,016 at 1,000
        # nodes, 1,546 at 10,000), so a larger round limit.
        "FederatedMultiTaskClassifier(omega=learn, max_rounds=2500)": lambda: (
            skfed.FederatedMultiTaskClassifier(omega="learn", loss="squared_hinge",
                                               max_rounds=2500, random_state=0)
        ),
        "FederatedMultiTaskClassifier(omega=independent)": lambda: (
            skfed.FederatedMultiTaskClassifier(omega="independent", loss="squared_hinge",
                                               random_state=0)
        ),
        "DecentralizedBoostingClassifier": lambda: skfed.DecentralizedBoostingClassifier(
            network=_sparse_graph(n_nodes), random_state=0
        ),
        "PersonalizedLinearClassifier": lambda: skfed.PersonalizedLinearClassifier(
            network=_sparse_graph(n_nodes), random_state=0
        ),
        "DecentralizedKernelSGDClassifier": lambda: skfed.DecentralizedKernelSGDClassifier(
            network=_sparse_graph(n_nodes), random_state=0
        ),
        "DecentralizedKernelSGDRegressor": lambda: skfed.DecentralizedKernelSGDRegressor(
            network=_sparse_graph(n_nodes), random_state=0
        ),
    }
    return factories[name]()


# name -> task, largest size, time budget of one point (seconds).  The
# method-specific estimators are being made scalable in their own issues
# (14, 15, 18); raise their budgets here once they are.
ESTIMATORS = {
    "FederatedSupportRecovery": dict(task="support", max_nodes=100_000, budget_s=120),
    "FederatedSupportRecovery(float32, n_jobs=2)": dict(
        task="support", max_nodes=1_000_000, budget_s=300, dtype="float32",
        peer_max_nodes=100_000,
    ),
    "FederatedSparseLinearRegression": dict(task="regression", max_nodes=100_000, budget_s=120),
    "LocalEstimator(LogisticRegression)": dict(
        task="classification", max_nodes=100_000, budget_s=900
    ),
    # The defaults (the shared model, issue 28): server L-BFGS, the rounds do
    # not grow with the nodes.  Learned Omega (MOCHA, squared hinge, 8-bit
    # messages): a round costs O(n d' + m r d') (issue 19) and the
    # alternation meets its rule in 200 rounds at 100 nodes, 1,016 at 1,000
    # and 1,546 at 10,000 (176 s measured), hence max_rounds=2500 there.
    "FederatedMultiTaskClassifier": dict(
        task="classification", max_nodes=10_000, budget_s=300
    ),
    "FederatedMultiTaskClassifier(omega=learn, max_rounds=2500)": dict(
        task="classification", max_nodes=10_000, budget_s=400
    ),
    "FederatedMultiTaskRegressor": dict(task="regression", max_nodes=10_000, budget_s=120),
    "FederatedMultiTaskClassifier(omega=independent)": dict(
        task="classification", max_nodes=10_000, budget_s=300
    ),
    # Issue 19's goal for the graph methods: 10,000 nodes (sparse graph) in 5 min.
    # Dada with its defaults (peer scoring on, first graph in 10 * n_nodes
    # steps) at 10,000 nodes: 182 s, 1,226 MB peak, 7.81 GB sent, score 0.754
    # (issue 18, 2 shared cores with a test run beside it; 131 s and 8.50 GB
    # with the former 50 * n_nodes first-graph steps at load 3-7).
    "DecentralizedBoostingClassifier": dict(task="classification", max_nodes=10_000, budget_s=300),
    "PersonalizedLinearClassifier": dict(task="classification", max_nodes=10_000, budget_s=300),
    "DecentralizedKernelSGDClassifier": dict(
        task="classification", max_nodes=1_000, budget_s=120
    ),
    "DecentralizedKernelSGDRegressor": dict(task="regression", max_nodes=1_000, budget_s=120),
}
PEERS = {
    "classification": "LogisticRegression",
    "regression": "LinearRegression",
    "support": "LinearRegression",
}


# ------------------------------------------------------------------------ data
def make_data(n_nodes, task, seed=0, dtype="float64"):
    """Train and test arrays of ``n_nodes`` nodes, node by node.

    Each array is drawn in place (no masked copies), so making the data
    never takes more memory than holding it; float32 data are drawn in
    float32, a million rows at a time.  The support task has no test set
    (its score is the recovered support).
    """
    rng = np.random.default_rng(seed)
    coef = np.zeros(N_FEATURES)
    coef[list(TRUE_SUPPORT)] = [1.5, -2.0]
    shared = rng.standard_normal(N_FEATURES)
    personal = 0.3 * rng.standard_normal((n_nodes, N_FEATURES))
    offset = rng.standard_normal(n_nodes)
    out = []
    for n in (N_TRAIN, N_TEST):
        groups = np.repeat(np.arange(n_nodes), n)
        if task == "support" and n == N_TEST:
            out.append((None, None, None))
            continue
        if dtype == "float32":
            X = np.empty((n_nodes * n, N_FEATURES), dtype=np.float32)
            y = np.empty(n_nodes * n, dtype=np.float32)
            step = 1_000_000
            for lo in range(0, len(y), step):
                hi = min(lo + step, len(y))
                X[lo:hi] = rng.standard_normal((hi - lo, N_FEATURES), dtype=np.float32)
                y[lo:hi] = X[lo:hi] @ coef.astype(np.float32) + 0.5 * rng.standard_normal(
                    hi - lo, dtype=np.float32)
            y += np.repeat(offset.astype(np.float32), n)
            out.append((X, y, groups))
            continue
        X = rng.standard_normal((n_nodes * n, N_FEATURES))
        if task == "classification":
            margin = (X @ shared).reshape(n_nodes, n)
            margin += np.einsum("kij,kj->ki", X.reshape(n_nodes, n, N_FEATURES), personal)
            y = (margin.ravel() > 0).astype(np.int64)
        else:
            y = X @ coef + np.repeat(offset, n) + 0.5 * rng.standard_normal(len(groups))
        out.append((X, y, groups))
    return tuple(out)


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb():
    """Peak resident size of this process, or of its largest finished child
    (joblib's process workers), whichever is larger."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def run_point(name, n_nodes):
    """Fit one estimator (or peer) at one size in this process; return a dict."""
    import sklearn.linear_model  # noqa: F401  (imports before the data: not counted in fit_mb)

    import skfed  # noqa: F401

    task = ESTIMATORS[name]["task"] if name in ESTIMATORS else name.split(":")[1]
    dtype = ESTIMATORS.get(name, {}).get("dtype", "float64")
    (X, y, groups), (X_test, y_test, g_test) = make_data(n_nodes, task, dtype=dtype)
    data_mb = _rss_mb()
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if name.startswith("peer:"):
            from sklearn.linear_model import LinearRegression, LogisticRegression

            est = LogisticRegression() if task == "classification" else LinearRegression()
            start, cpu = time.perf_counter(), time.process_time()
            est.fit(X, y)
            fit_s, fit_cpu = time.perf_counter() - start, time.process_time() - cpu
            if task == "support":
                found = set(np.flatnonzero(np.abs(est.coef_) > 0.1).tolist())
                score = len(found & set(TRUE_SUPPORT)) / len(found | set(TRUE_SUPPORT))
            else:
                score = est.score(X_test, y_test)
            n_bytes = None
        else:
            est = _make(name, n_nodes)
            start, cpu = time.perf_counter(), time.process_time()
            est.fit(X, y, groups=groups)
            fit_s, fit_cpu = time.perf_counter() - start, time.process_time() - cpu
            if task == "support":
                found = set(np.flatnonzero(est.support_).tolist())
                score = len(found & set(TRUE_SUPPORT)) / len(found | set(TRUE_SUPPORT))
            else:
                score = est.score(X_test, y_test, groups=g_test)
            n_bytes = int(getattr(est, "n_bytes_sent_", 0))
    # Reap joblib's process workers so that their peak memory is counted.
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    peak = _peak_mb()
    point = {
        "n_nodes": n_nodes,
        "fit_s": round(fit_s, 4),
        "fit_cpu_s": round(fit_cpu, 4),
        "dtype": str(X.dtype),
        "peak_mb": round(peak, 1),
        "data_mb": round(data_mb, 1),
        "fit_mb": round(max(peak - data_mb, 0.0), 1),
        "bytes": n_bytes,
        "score": round(float(score), 4),
        # an iterative fit that stopped at its round limit warns
        "converged": not any(issubclass(w.category, ConvergenceWarning) for w in caught),
    }
    if getattr(est, "n_iter_", None) is not None and np.ndim(est.n_iter_) == 0:
        point["rounds"] = int(est.n_iter_)
    return point


def _subprocess_point(name, n_nodes, timeout):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, os.path.abspath(__file__), "--point", name, str(n_nodes)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"n_nodes": n_nodes, "error": f"timeout after {timeout:.0f} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"n_nodes": n_nodes, "error": f"exit {out.returncode}: {last[:200]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def loglog_slope(points, key):
    """Least-squares slope of log(value) against log(n_nodes)."""
    rows = [p for p in points if p.get(key) not in (None, 0) and "error" not in p]
    big = [p for p in rows if p["n_nodes"] >= 1_000]
    rows = big if len(big) >= 2 else rows
    if len(rows) < 2:
        return None
    x = np.log([p["n_nodes"] for p in rows])
    v = np.log([max(p[key], 1e-9) for p in rows])
    return round(float(np.polyfit(x, v, 1)[0]), 2)


def benchmark(name, config, sizes, peers):
    task, max_nodes, budget = config["task"], config["max_nodes"], config["budget_s"]
    points, stopped = [], "largest size reached"
    for n_nodes in sizes:
        if n_nodes > max_nodes:
            stopped = f"max_nodes={max_nodes}"
            break
        done = [p for p in points if "error" not in p]
        if len(done) >= 2:
            slope = max(1.0, math.log(done[-1]["fit_s"] / max(done[-2]["fit_s"], 1e-6))
                        / math.log(done[-1]["n_nodes"] / done[-2]["n_nodes"]))
            expected = done[-1]["fit_s"] * (n_nodes / done[-1]["n_nodes"]) ** slope
            if expected > budget:
                stopped = f"expected {expected:.0f} s > budget_s={budget} at {n_nodes} nodes"
                break
        point = _subprocess_point(name, n_nodes, timeout=2 * budget + 60)
        key = (PEERS[task], n_nodes)
        if n_nodes > config.get("peer_max_nodes", n_nodes):
            peer = {"error": "no peer at this size"}
        else:
            if key not in peers:
                peers[key] = _subprocess_point(f"peer:{task}", n_nodes,
                                               timeout=2 * budget + 60)
            peer = peers[key]
        if "error" not in peer:
            point.update(peer_fit_s=peer["fit_s"], peer_peak_mb=peer["peak_mb"],
                         peer_score=peer["score"])
            if "error" not in point:
                point["time_ratio"] = round(point["fit_s"] / max(peer["fit_s"], 1e-6), 2)
        points.append(point)
        print(f"# {name} {json.dumps(point)}", file=sys.stderr, flush=True)
        if "error" in point:
            stopped = point["error"]
            break
    return {
        "estimator": name,
        "peer": PEERS[task],
        "samples_per_node": N_TRAIN,
        "n_features": N_FEATURES,
        "points": points,
        "time_slope": loglog_slope(points, "fit_s"),
        "memory_slope": loglog_slope(points, "fit_mb"),
        "bytes_slope": loglog_slope(points, "bytes"),
        "stopped": stopped,
    }


def markdown(results):
    lines = ["| estimator | nodes | fit s (CPU s) | peak MB (data) | bytes | score | peer fit s | peer peak MB | peer score |",
             "|---|---|---|---|---|---|---|---|---|"]
    for res in results:
        for p in res["points"]:
            if "error" in p:
                lines.append(f"| {res['estimator']} | {p['n_nodes']:,} | {p['error']} | | | | | | |")
                continue
            lines.append(
                f"| {res['estimator']} | {p['n_nodes']:,} | {p['fit_s']:.2f} "
                f"({p.get('fit_cpu_s', float('nan')):.2f}) | "
                f"{p['peak_mb']:.0f} ({p['data_mb']:.0f}) | "
                f"{'-' if p['bytes'] is None else format(p['bytes'], ',')} | {p['score']:.3f} | "
                f"{p.get('peer_fit_s', float('nan')):.2f} | {p.get('peer_peak_mb', float('nan')):.0f} | "
                f"{p.get('peer_score', float('nan')):.3f} |"
            )
        lines.append(
            f"| {res['estimator']} slopes | time {res['time_slope']}, memory "
            f"{res['memory_slope']}, bytes {res['bytes_slope']} | stopped: {res['stopped']} | | | | | | |"
        )
    return "\n".join(lines)


def _assignments(items, cast):
    out = {}
    for item in items or []:
        key, _, value = item.partition("=")
        out[key] = cast(value)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--point", nargs=2, metavar=("NAME", "N_NODES"),
                        help="run one point in this process and print its JSON")
    parser.add_argument("--only", nargs="*", help="estimator names (default: all)")
    parser.add_argument("--sizes", nargs="*", type=int, default=SIZES)
    parser.add_argument("--max-nodes", nargs="*", metavar="NAME=N",
                        help="raise/lower max_nodes (NAME may be 'all')")
    parser.add_argument("--budget", nargs="*", metavar="NAME=SECONDS",
                        help="time budget of one point (NAME may be 'all')")
    parser.add_argument("--table", action="store_true", help="also print a Markdown table")
    args = parser.parse_args()
    if args.point:
        print(json.dumps(run_point(args.point[0], int(args.point[1]))))
        return
    max_nodes = _assignments(args.max_nodes, int)
    budgets = _assignments(args.budget, float)
    names = args.only or list(ESTIMATORS)
    unknown = set(names) - set(ESTIMATORS)
    if unknown:
        parser.error(f"unknown estimators {sorted(unknown)}; choose from {list(ESTIMATORS)}")
    peers, results = {}, []
    for name in names:
        config = dict(ESTIMATORS[name])
        config["max_nodes"] = max_nodes.get(name, max_nodes.get("all", config["max_nodes"]))
        config["budget_s"] = budgets.get(name, budgets.get("all", config["budget_s"]))
        result = benchmark(name, config, sorted(args.sizes), peers)
        results.append(result)
        print(json.dumps(result), flush=True)
    if args.table:
        print(markdown(results))


if __name__ == "__main__":
    main()
