"""Online kernel learner: fit cost against the number of nodes, before/after
the closed-form ``lambda_max`` of the graph Laplacian (eig36).

Before: ``eigsh(L, k=1, which="LA", tol=1e-6)`` from ARPACK's own random
start, ``min(ritz (1 + 1e-6), 2 max degree)`` (main's
``_laplacian_lambda_max``, reproduced here as ``_before_lambda_max`` and
patched onto the class for the "before" fits).  After:
:func:`skfed.online._laplacian.laplacian_lambda_max` (FFT of the circulant
ring, closed forms of cycles/paths, Lanczos from a fixed start elsewhere).
Seconds are CPU seconds of the process (``time.process_time``, the
machine is shared).  Both run in the same process, on the same arrays: ``n`` nodes with 5-20
rows each (``RandomState(seed)``), 5 Gaussian features, a noisy linear
label; the default ``DecentralizedKernelSGDClassifier(random_state=0)``.

Part 1 times ``lambda_max`` alone on the default topology (the ring
``k_regular`` degree 2) and on ``k_regular`` degree 4 / random regular.
Part 2 times whole fits and splits them (cProfile cumulative seconds) into
``lambda_max``, the Cython rounds (``_run_rounds``), the epoch orders
(``_EpochOrders.fill``) and the rest; it checks ``eta0_``, ``step_bound_``,
the decision values and the bytes of the after-fit against the before-fit.

Usage::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 nice -n 5 \\
        python benchmarks/eig36_online_scaling.py [--nodes 1000 2000 4000] [--seed 0]
        [--lambda-nodes 1000 2000 4000 8000] [--skip-fits] [--before-up-to 4000]

Results (2026-11-30, main 1d5dc7d4 + branch eig36, eig36)
----------------------------------------------------------
RESULTS_PLACEHOLDER
"""

import argparse
import cProfile
import itertools
import pstats
import time

import numpy as np
from scipy import sparse

from skfed._topology import _topology_csr
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.online._consensus import _ConsensusMixin
from skfed.online._laplacian import laplacian_lambda_max

_AFTER = _ConsensusMixin._laplacian_lambda_max


def _before_top(A):
    """main's Lanczos route for a graph past 200 nodes."""
    from scipy.sparse.linalg import eigsh

    A = sparse.csr_matrix(A, dtype=np.float64)
    L = sparse.diags(np.asarray(A.sum(axis=1)).ravel()) - A
    value = float(eigsh(L, k=1, which="LA", tol=1e-6, return_eigenvectors=False)[0])
    return min(value * (1 + 1e-6), 2.0 * float(A.sum(axis=1).max()))


def _before_lambda_max(self):
    """main's ``_ConsensusMixin._laplacian_lambda_max`` (its dense route up
    to 200 nodes is unchanged: the current method's)."""
    if len(self.nodes_) <= 200 or self.adjacency_.nnz == 0:
        return _AFTER(self)
    return _before_top(self.adjacency_)


def _ratios(seconds):
    return " ".join(f"{b / a:.2f}" for a, b in itertools.pairwise(seconds))


def lambda_part(sizes):
    graphs = [("k_regular d=2 (default)", "k_regular", {"degree": 2}),
              ("k_regular d=4", "k_regular", {"degree": 4}),
              ("random_regular", "random_regular", None)]
    for label, name, params in graphs:
        before_t, after_t = [], []
        for n in sizes:
            A = _topology_csr(name, n, params, random_state=0)
            t = time.process_time()
            before = _before_top(A)
            before_t.append(time.process_time() - t)
            # the closed forms take milliseconds: the best of 5 runs
            runs = []
            for _ in range(5):
                t = time.process_time()
                after = laplacian_lambda_max(A)
                runs.append(time.process_time() - t)
            after_t.append(min(runs))
            print(f"  {label:24s} n={n:6d} before {before_t[-1]:8.3f} s {before!r:20s} "
                  f"after {after_t[-1]:8.4f} s {after!r:20s} rel {(after - before) / before:+.1e}",
                  flush=True)
        print(f"  {label:24s} ratio per doubling: before {_ratios(before_t)}; "
              f"after {_ratios(after_t)}", flush=True)


def _data(n, seed):
    rng = np.random.RandomState(seed)
    sizes = rng.randint(5, 21, size=n)
    groups = np.repeat(np.arange(n), sizes)
    X = rng.normal(size=(len(groups), 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=len(groups)) > 0).astype(int)
    return X, y, groups


_PARTS = {"lambda_max": ("_laplacian_lambda_max", "_before_lambda_max"),
          "rounds": ("_run_rounds",), "orders": ("fill",)}


def _timed_fit(X, y, groups):
    est = DecentralizedKernelSGDClassifier(random_state=0)
    profile = cProfile.Profile(time.process_time)
    t = time.process_time()
    profile.enable()
    est.fit(X, y, groups=groups)
    profile.disable()
    total = time.process_time() - t
    stats = pstats.Stats(profile).stats
    parts = {}
    for key, names in _PARTS.items():
        parts[key] = sum(v[3] for (path, _, name), v in stats.items()
                         if name in names and path.endswith(("_consensus.py", __file__)))
    return est, total, parts


def fit_part(sizes, seed, before_up_to):
    rows = {"before": [], "after": []}
    original = _ConsensusMixin._laplacian_lambda_max
    for n in sizes:
        X, y, groups = _data(n, seed)
        fitted = {}
        for label in ("before", "after") if n <= before_up_to else ("after",):
            _ConsensusMixin._laplacian_lambda_max = (_before_lambda_max if label == "before"
                                                     else original)
            try:
                est, total, parts = _timed_fit(X, y, groups)
            finally:
                _ConsensusMixin._laplacian_lambda_max = original
            fitted[label] = est
            rows[label].append(total)
            rest = total - sum(parts.values())
            print(f"  n={n:5d} {label:6s} fit {total:7.2f} s = lambda_max "
                  f"{parts['lambda_max']:6.2f} + rounds {parts['rounds']:6.2f} + orders "
                  f"{parts['orders']:5.2f} + rest {rest:6.2f}; eta0_ {est.eta0_!r} "
                  f"lambda_max {est._lambda_max!r} bytes {est.n_bytes_sent_:,}", flush=True)
        if "before" not in fitted:
            continue
        b, a = fitted["before"], fitted["after"]
        db = b.decision_function(X, groups=groups)
        da = a.decision_function(X, groups=groups)
        scale = max(np.abs(db).max(), 1e-300)
        print(f"  n={n:5d} after vs before: eta0_ rel {(a.eta0_ - b.eta0_) / b.eta0_:+.1e}, "
              f"step_bound_ rel {(a.step_bound_ - b.step_bound_) / b.step_bound_:+.1e}, "
              f"decision max |diff| / max |value| {np.abs(da - db).max() / scale:.1e}, "
              f"bytes {'same' if a.n_bytes_sent_ == b.n_bytes_sent_ else 'DIFFER'}",
              flush=True)
    for label in ("before", "after"):
        print(f"  fit seconds {label}: {' '.join(f'{s:.2f}' for s in rows[label])}; "
              f"ratio per doubling {_ratios(rows[label])}", flush=True)


def small_part():
    """Up to 200 nodes both take the dense route: the fits are hash-identical."""
    import hashlib

    from sklearn.datasets import make_moons

    original = _ConsensusMixin._laplacian_lambda_max
    X, y = make_moons(600, noise=0.2, random_state=0)
    cases = [("moons, 10 nodes", X, y, np.arange(600) % 10),
             ("blobs, 150 nodes", *_data(150, 0))]
    for label, X, y, groups in cases:
        digests = []
        for patched in (_before_lambda_max, original):
            _ConsensusMixin._laplacian_lambda_max = patched
            try:
                est = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=groups)
            finally:
                _ConsensusMixin._laplacian_lambda_max = original
            h = hashlib.sha256(np.ascontiguousarray(est.decision_function(X, groups=groups)))
            h.update(np.float64([est.eta0_, est.step_bound_, est.n_bytes_sent_]).tobytes())
            digests.append(h.hexdigest()[:16])
        print(f"  {label}: before {digests[0]} after {digests[1]} "
              f"{'identical' if digests[0] == digests[1] else 'DIFFER'}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--lambda-nodes", type=int, nargs="+",
                        default=[1000, 2000, 4000, 8000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-fits", action="store_true")
    parser.add_argument("--before-up-to", type=int, default=4000,
                        help="fit 'before' only up to this many nodes")
    args = parser.parse_args()
    print("small federations (decision values, eta0_, step_bound_, bytes hashed):")
    small_part()
    print("lambda_max alone (seconds, value):")
    lambda_part(args.lambda_nodes)
    if not args.skip_fits:
        print("whole fits (default DecentralizedKernelSGDClassifier):")
        fit_part(args.nodes, args.seed, args.before_up_to)


if __name__ == "__main__":
    main()
