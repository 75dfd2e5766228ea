"""Speed of the small-client rule of FederatedSupportRecovery: Cython against NumPy.

A client with fewer than d + 4 samples tests each feature given its k
closest features when its design is correlated (skfed/support/_partial.py).
This script times, on the same arrays and one BLAS thread, interleaved:

* ``cython``: ``skfed._core._support_fast.client_partial_dense`` (the pass
  the estimator runs), with the controls forced on every client (gate
  -inf) and at the default gate;
* ``numpy``: the batched NumPy pass the estimator ran before the Cython port
  (clients of equal size in batches: their Gram matrices with ``matmul``,
  the controls by repeated ``argmax``, the small systems with
  ``numpy.linalg.inv``), controls on every client.

Designs: Toeplitz (rho 0.5) clients of ``n`` samples, d features.  Printed:
CPU seconds per 1,000 clients and the ratio numpy / cython; the last line is
one JSON object.

    python benchmarks/support_partial_speed.py [--dims 20 200 1000] [--samples 10 30]
"""

import argparse
import json
import time

import numpy as np
from threadpoolctl import threadpool_limits

from skfed._core._support_fast import client_partial_dense, partial_work_size
from skfed.support._partial import PARTIAL_SPHERICITY_Z, n_controls
from skfed.support._rules import _critical_values


def numpy_batched(X, y, n, k, tcrit, df):
    """The former NumPy pass: all clients have n rows and k controls."""
    B, d = X.shape[0] // n, X.shape[1]
    Xb = X.reshape(B, n, d) - X.reshape(B, n, d).mean(axis=1, keepdims=True)
    yb = y.reshape(B, n) - y.reshape(B, n).mean(axis=1, keepdims=True)
    G = np.matmul(Xb.transpose(0, 2, 1), Xb)
    c = np.einsum("bnd,bn->bd", Xb, yb)
    yy = np.einsum("bn,bn->b", yb, yb)
    diag = np.einsum("bjj->bj", G).copy()
    inv_sd = np.where(diag > 0, 1.0 / np.sqrt(diag), 0.0)
    score = np.abs(G) * inv_sd[:, None, :]
    idx = np.arange(d)
    score[:, idx, idx] = -1.0
    controls = np.empty((B, d, k), dtype=np.intp)
    for t in range(k):
        best = score.argmax(axis=2)
        controls[:, :, t] = best
        np.put_along_axis(score, best[:, :, None], -1.0, axis=2)
    A = np.concatenate([np.broadcast_to(idx[None, :, None], (B, d, 1)), controls], axis=2)
    bi = np.arange(B)[:, None, None, None]
    GA = G[bi, A[:, :, :, None], A[:, :, None, :]]
    cA = c[np.arange(B)[:, None, None], A]
    scale = np.sqrt(np.einsum("bdii->bdi", GA))
    GA = GA / scale[..., :, None] / scale[..., None, :]
    inv = np.linalg.inv(GA)
    cA = cA / scale
    beta = np.einsum("bdij,bdj->bdi", inv, cA)
    rss = yy[:, None] - np.einsum("bdi,bdi->bd", cA, beta)
    t = beta[..., 0] / np.sqrt(rss / df * inv[..., 0, 0])
    return np.abs(t) > tcrit


def toeplitz(rng, n_rows, d, rho=0.5):
    z = rng.standard_normal((n_rows, d))
    for j in range(1, d):
        z[:, j] = rho * z[:, j - 1] + np.sqrt(1 - rho * rho) * z[:, j]
    return z


def cpu(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
    return float(np.median(times)), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[20, 200, 1000])
    parser.add_argument("--samples", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = []
    print("| d | n | clients | numpy s/1k | cython (all controls) s/1k | cython (default gate) s/1k "
          "| ratio numpy/cython | same bits |")
    print("|---|---|---|---|---|---|---|---|")
    for d in args.dims:
        for n in args.samples:
            if n >= d + 4:
                continue
            clients = max(20, min(2000, 2_000_000 // (d * d)))
            X = toeplitz(rng, clients * n, d)
            y = X[:, 0] * 3 - X[:, d // 2] * 3 + rng.standard_normal(clients * n)
            k = int(n_controls(n, d, True))
            df = n - 2 - k
            tk = float(_critical_values(1.0, [df])[0])
            t0 = float(_critical_values(1.0, [n - 2])[0])
            offsets = np.arange(0, clients * n + 1, n, dtype=np.intp)
            nodes = np.arange(clients, dtype=np.intp)
            work = np.zeros(partial_work_size(n, d))

            def run_cython(gate):
                tstat = np.zeros((clients, d))
                packed = np.zeros((clients, (d + 7) // 8), dtype=np.uint8)
                used = np.zeros(clients, dtype=np.intp)
                client_partial_dense(
                    X, y, np.ones(len(y)), offsets, nodes, np.full(clients, k, dtype=np.intp),
                    np.full(clients, n - 1.0), np.full(clients, tk), np.full(clients, t0), gate,
                    True, tstat, packed, used, np.zeros(clients), work)
                return np.unpackbits(packed, axis=1, bitorder="little")[:, :d].astype(bool)

            with threadpool_limits(1):
                t_np, t_all, t_def = [], [], []
                for _ in range(args.repeats):
                    a, bits_np = cpu(lambda: numpy_batched(X, y, n, k, tk, df), 1)
                    b, bits_cy = cpu(lambda: run_cython(-np.inf), 1)
                    c, _ = cpu(lambda: run_cython(PARTIAL_SPHERICITY_Z), 1)
                    t_np.append(a)
                    t_all.append(b)
                    t_def.append(c)
            t_np, t_all, t_def = (1000 * float(np.median(v)) / clients
                                  for v in (t_np, t_all, t_def))
            same = float(np.mean(bits_np == bits_cy))
            row = dict(d=d, n=n, clients=clients, k=k, numpy_s_per_1k=t_np,
                       cython_all_s_per_1k=t_all, cython_default_s_per_1k=t_def,
                       ratio=t_np / t_all, same_bits=same)
            rows.append(row)
            print(f"| {d} | {n} | {clients} | {t_np:.3f} | {t_all:.3f} | {t_def:.3f} | "
                  f"{t_np / t_all:.1f} | {same:.4f} |", flush=True)
    print(json.dumps({"benchmark": "support_partial_speed", "rows": rows}))


if __name__ == "__main__":
    main()
