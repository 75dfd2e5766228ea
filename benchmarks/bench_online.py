"""Throughput of DecentralizedKernelSGDClassifier as the dictionary grows.

For dictionaries of M = 100 and M = 1,000 elements (``max_dictionary_size=M``
with a small KOMP budget, so every step adds a point and KOMP removes one:
the steady state of a bounded model order), on Koppel's 5-class Gaussian
mixture (16 features, the generator's ``layout="random"`` geometry) over 4 nodes on a ring, this measures samples per second per node of

* skfed (Cython: functional SGD step, neighbours' values, incremental KOMP);
* a NumPy implementation of the same recursion (same rounds, same
  incremental KOMP with the bordered / downdated inverse Gram);
* scikit-learn's online kernel baseline: ``SGDClassifier.partial_fit`` on
  ``RBFSampler`` features, one sample at a time, one model per node, at
  equal memory (``D (d + 1 + n_classes) = M (d + n_classes)`` stored floats);

and the cost of the reference operation, evaluating ``f_i(x)`` once (M
kernel evaluations and a ``W^T k``, the same code a step uses).  A step of a
node evaluates its own function and answers its ``deg`` neighbours' queries
(``1 + deg`` evaluations) and runs KOMP (O(M^2) rank-one updates), so the
ratio to ``1 + deg`` evaluations is the overhead of everything else.

Everything runs in one process, interleaved, with one BLAS thread; the last
line printed is one JSON object.

    python benchmarks/bench_online.py [--quick]

``--nodes N`` instead fits the estimator at its defaults on N nodes of 30
samples with 20 features (a linearly separable-ish task; the default
topology, a ring, and the default passes) and, on the same pooled arrays,
its scikit-learn peer ``SGDClassifier(loss="hinge")`` (one linear model, as
many passes), printing fit time, peak memory of the process, bytes, training
accuracy and the time ratio as one JSON line (issue 19's 10,000-node goal).
"""

import argparse
import json
import platform
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import SGDClassifier
from threadpoolctl import threadpool_limits

from skfed._core import _online_fast
from skfed.datasets import make_gaussian_mixture_network
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier

N_NODES = 4
N_CLASSES = 5
N_FEATURES = 16
GAMMA = 1.0 / N_FEATURES
ETA, ALPHA, C, EPSILON = 0.2, 1e-3, 0.1, 1e-4


def ring(n):
    A = np.zeros((n, n), bool)
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = True
    return A


def rbf_row(x, D):
    return np.exp(-GAMMA * ((D - x) ** 2).sum(axis=1))


class NumpyKernelSGD:
    """The same recursion and the same incremental KOMP, in NumPy."""

    def __init__(self, adjacency, n_features, max_size):
        self.adjacency = adjacency
        n = adjacency.shape[0]
        self.D = [np.zeros((0, n_features)) for _ in range(n)]
        self.W = [np.zeros((0, N_CLASSES)) for _ in range(n)]
        self.Q = [np.zeros((0, 0)) for _ in range(n)]
        self.max_size = max_size

    def f(self, j, x):
        k = rbf_row(x, self.D[j])
        return k, k @ self.W[j]

    def round(self, xs, ys):
        omegas, rows = [], []
        for i, (x, y) in enumerate(zip(xs, ys)):
            k, fi = self.f(i, x)
            s = np.zeros(N_CLASSES)
            for j in np.flatnonzero(self.adjacency[i]):
                s += fi - self.f(j, x)[1]
            wrong = np.where(np.arange(N_CLASSES) == y, -np.inf, fi)
            r = int(np.argmax(wrong))
            g = np.zeros(N_CLASSES)
            if 1 + fi[r] - fi[y] > 0:
                g[r], g[y] = 1.0, -1.0
            omegas.append(g + C * s)
            rows.append(k)
        for i, (x, omega, k) in enumerate(zip(xs, omegas, rows)):
            self.step(i, x, -ETA * omega, k)

    def step(self, i, x, a, k):
        D, W, Q = self.D[i], (1 - ETA * ALPHA) * self.W[i], self.Q[i]
        u = Q @ k
        s = 1.0 - k @ u
        m = len(D)
        Qn = np.empty((m + 1, m + 1))
        Qn[:m, :m] = Q + np.outer(u, u) / s
        Qn[:m, m] = Qn[m, :m] = -u / s
        Qn[m, m] = 1.0 / s
        D, W, Q = np.vstack([D, x]), np.vstack([W, a]), Qn
        err2 = 0.0
        while len(D):
            costs = (W**2).sum(axis=1) / np.diag(Q)
            j = int(np.argmin(costs))
            forced = len(D) > self.max_size
            if not forced and err2 + costs[j] > EPSILON**2:
                break
            q = Q[:, j].copy()
            W = W - np.outer(q, W[j]) / q[j]
            Q = Q - np.outer(q, q) / q[j]
            keep = np.arange(len(D)) != j
            D, W, Q = D[keep], W[keep], Q[np.ix_(keep, keep)]
            err2 += costs[j]
        self.D[i], self.W[i], self.Q[i] = D, W, Q


def node_streams(X, y, groups):
    return [(X[groups == i], y[groups == i]) for i in range(N_NODES)]


def run(M, n_timed, quick):
    n_per_node = M + 2 * n_timed + 500
    X, y, groups, _ = make_gaussian_mixture_network(
        n_nodes=N_NODES, n_samples_per_node=n_per_node, n_features=N_FEATURES,
        layout="random", class_sep=3.0, random_state=0,
    )
    d = X.shape[1]
    Xte, yte, gte, _ = make_gaussian_mixture_network(
        n_nodes=N_NODES, n_samples_per_node=n_per_node + 500, n_features=N_FEATURES,
        layout="random", class_sep=3.0, random_state=0,
    )[:4]
    # Same mixture, later samples of every node: a test set.
    keep = np.concatenate([np.flatnonzero(gte == i)[n_per_node:] for i in range(N_NODES)])
    Xte, yte, gte = Xte[keep], yte[keep], gte[keep]
    streams = node_streams(X, y, groups)
    warm = M + 200  # enough steps for every dictionary to reach M
    A = ring(N_NODES)
    deg = int(A.sum(axis=1).max())

    # ---- skfed: warm up to a full dictionary, then time a stream batch.
    clf = DecentralizedKernelSGDClassifier(
        gamma=GAMMA, eta0=ETA, alpha=ALPHA, consensus_penalty=C, epsilon=EPSILON,
        max_dictionary_size=M, network=SimulatedNetwork(A), random_state=0,
    )

    def batch(lo, hi):
        Xb = np.concatenate([s[0][lo:hi] for s in streams])
        yb = np.concatenate([s[1][lo:hi] for s in streams])
        gb = np.repeat(np.arange(N_NODES), hi - lo)
        return Xb, yb, gb

    clf.partial_fit(*batch(0, warm), classes=np.arange(N_CLASSES))
    assert clf.model_order_.min() == M

    # ---- NumPy: the same warm-up.
    ref = NumpyKernelSGD(A, d, M)
    n_numpy = max(20, n_timed // (20 if M >= 1000 else 5))
    for t in range(warm if not quick else min(warm, M + 20)):
        ref.round([s[0][t] for s in streams], [int(s[1][t]) for s in streams])

    # ---- SGDClassifier + RBFSampler at equal memory, one per node.
    n_components = max(1, int(round(M * (d + N_CLASSES) / (d + 1 + N_CLASSES))))
    rffs = [RBFSampler(gamma=GAMMA, n_components=n_components, random_state=i).fit(X[:1])
            for i in range(N_NODES)]
    sgds = [SGDClassifier(loss="hinge", alpha=ALPHA, random_state=i) for i in range(N_NODES)]
    for i, (Xi, yi) in enumerate(streams):  # warm-up pass, batched
        sgds[i].partial_fit(rffs[i].transform(Xi[:warm]), yi[:warm], classes=np.arange(N_CLASSES))
    n_sgd = max(50, n_timed // 4)

    # ---- evaluation of f_i(x): M kernel evaluations + W^T k, per sample.
    D0 = np.ascontiguousarray(clf.dictionaries_[0])
    W0 = np.ascontiguousarray(clf.dual_coef_[0])
    Xeval = np.ascontiguousarray(streams[0][0][:n_timed])
    out = np.empty((n_timed, N_CLASSES))

    times = {"skfed": [], "numpy": [], "sgd_rff": [], "eval": []}
    offset = warm
    for rep in range(3):  # interleaved repeats; keep the best
        lo, hi = offset, offset + n_timed // 3
        Xb, yb, gb = batch(lo, hi)
        t0 = time.perf_counter()
        clf.partial_fit(Xb, yb, groups=gb)
        times["skfed"].append((time.perf_counter() - t0) / (hi - lo))

        t0 = time.perf_counter()
        for t in range(lo, lo + n_numpy // 3):
            ref.round([s[0][t] for s in streams], [int(s[1][t]) for s in streams])
        times["numpy"].append((time.perf_counter() - t0) / (n_numpy // 3))

        t0 = time.perf_counter()
        for t in range(lo, lo + n_sgd // 3):
            for i, (Xi, yi) in enumerate(streams):
                sgds[i].partial_fit(rffs[i].transform(Xi[t : t + 1]), yi[t : t + 1])
        times["sgd_rff"].append((time.perf_counter() - t0) / (n_sgd // 3) / N_NODES)

        t0 = time.perf_counter()
        _online_fast.py_eval_function(Xeval, D0, W0, 1, GAMMA, 0.0, 3.0, out)
        times["eval"].append((time.perf_counter() - t0) / n_timed)
        offset = hi

    # skfed and numpy times are per round (every node steps once, all in this
    # process): a node's step costs a round / N_NODES, including answering
    # its neighbours' queries.
    skfed_node_step = min(times["skfed"]) / N_NODES
    per_node = {
        "skfed": 1.0 / skfed_node_step,
        "numpy": N_NODES / min(times["numpy"]),
        "sgd_rff": 1.0 / min(times["sgd_rff"]),
    }
    eval_time = min(times["eval"])
    accuracy = {
        "skfed": float(clf.score(Xte, yte, groups=gte)),
        "sgd_rff": float(np.mean([
            sgds[i].score(rffs[i].transform(Xte[gte == i]), yte[gte == i])
            for i in range(N_NODES)
        ])),
    }
    return {
        "M": M,
        "n_features": d,
        "degree": deg,
        "rff_components": n_components,
        "samples_per_s_per_node": per_node,
        "eval_f_per_s": 1.0 / eval_time,
        "speedup_vs_numpy": per_node["skfed"] / per_node["numpy"],
        "speedup_vs_sgd_rff": per_node["skfed"] / per_node["sgd_rff"],
        "step_over_one_eval": skfed_node_step / eval_time,
        "step_over_1_plus_deg_evals": skfed_node_step / ((1 + deg) * eval_time),
        "accuracy": accuracy,
        "model_order": clf.model_order_.tolist(),
    }


def scale(n_nodes):
    """Defaults at n_nodes x 30 samples x 20 features, against the pooled peer."""
    import resource

    rng = np.random.RandomState(0)
    X = rng.normal(size=(30 * n_nodes, 20))
    y = (X @ rng.normal(size=20) + 0.5 * rng.normal(size=len(X)) > 0).astype(int)
    groups = np.repeat(np.arange(n_nodes), 30)
    t0, c0 = time.perf_counter(), time.process_time()
    clf = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=groups)
    skfed_s, skfed_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    peer = SGDClassifier(loss="hinge", max_iter=clf.max_epochs, tol=None,
                         random_state=0).fit(X, y)
    peer_s = time.perf_counter() - t0
    print(json.dumps({
        "benchmark": "bench_online_scale", "nodes": n_nodes, "samples_per_node": 30,
        "n_features": 20, "max_epochs": clf.max_epochs, "skfed_fit_s": skfed_s, "peer_fit_s": peer_s,
        "time_ratio": skfed_s / peer_s, "skfed_cpu_s": skfed_cpu_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "n_bytes_sent": int(clf.n_bytes_sent_), "n_rounds": int(clf.n_iter_),
        "model_order_max": int(clf.model_order_.max()),
        "train_accuracy": {"skfed": float(clf.score(X, y, groups=groups)),
                           "peer": float(peer.score(X, y))},
    }))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--nodes", type=int, default=None)
    args = parser.parse_args()
    if args.nodes is not None:
        with threadpool_limits(limits=1, user_api="blas"):
            scale(args.nodes)
        return
    results = []
    with threadpool_limits(limits=1, user_api="blas"):
        for M, n_timed in [(100, 3000), (1000, 600)]:
            if args.quick:
                n_timed //= 5
            result = run(M, n_timed, args.quick)
            print(
                f"M={M:5d}: skfed {result['samples_per_s_per_node']['skfed']:9.0f}, numpy "
                f"{result['samples_per_s_per_node']['numpy']:8.0f}, SGD+RBFSampler "
                f"{result['samples_per_s_per_node']['sgd_rff']:8.0f} samples/s/node; "
                f"step = {result['step_over_one_eval']:.1f} evaluations of f_i(x) "
                f"({result['step_over_1_plus_deg_evals']:.2f} x the 1 + deg evaluations); "
                f"accuracy skfed {result['accuracy']['skfed']:.3f}, SGD+RBFSampler "
                f"{result['accuracy']['sgd_rff']:.3f}",
                flush=True,
            )
            results.append(result)
    print(json.dumps({
        "benchmark": "bench_online",
        "machine": platform.machine(),
        "nodes": N_NODES,
        "topology": "ring",
        "results": results,
    }))


if __name__ == "__main__":
    main()
