"""How far from the median does the sign vote's most biased feature outside
the support sit, for a given control rule and client size?  A NumPy
simulation (the designs and clients of ``support_one_bit_rules.py``).

Each client regresses ``y`` on ``[x_j, x_C]`` and sends the sign of
``x_j``'s coefficient; ``C`` holds ``K`` features chosen by the rule:

* ``closest/K`` -- the ``K`` most correlated with ``x_j`` in the client's
  rows (the estimator's rule);
* ``prod/K`` -- the ``K`` largest ``|r(x_j, x_l)| |r(x_l, y)|`` (the
  omitted-variable bias a control would remove);
* ``ycorr/K`` -- the ``K`` most correlated with ``y``;
* ``mixA/K`` -- ``A`` closest, the rest by ``prod``.

Printed per problem (``design:d:s:seed``) and rule: the median of the
``d`` sign fractions, the feature outside the support farthest from it and
its distance, and the support feature nearest to it.  As clients are
added the sign vote's band tends to ``median +- 0.05`` (the rogue
tolerance), so a distance near 0.05 outside the support is selected with
enough clients::

    python benchmarks/support_sign_controls.py --clients 50000 --samples 10 \\
        --rules closest/6 closest/7 closest/8 prod/6 prod/7 mix5/7 \\
        --problems toeplitz:20:3:0 toeplitz:20:3:2 toeplitz:50:5:0

Measured 2026-11-28 (50,000 clients of 10 samples; farthest outside /
weakest support):

* Toeplitz 20/3 seeds 0-4: ``closest/6`` 0.029 / 0.040 / 0.047 / 0.043 /
  0.024 (support 0.29-0.33); ``closest/7`` 0.024 / 0.030 / 0.037 / 0.025
  / 0.021 (0.25-0.29); ``closest/8`` 0.010-0.020 (0.19); ``prod/6`` 0.033
  / 0.039 / 0.034 on seeds 0-2 (not better everywhere); ``mix5/7`` 0.035
  / 0.022 / 0.017 on seeds 2 / 3 / 4 (support 0.28-0.30).
* Toeplitz 50/5 seeds 0 / 2: ``closest/6`` 0.046 / 0.045 (support 0.16);
  ``closest/7`` 0.031 / 0.027 (0.13); ``closest/8`` 0.018 / 0.019 (0.08,
  too close to the band); ``mix5/7`` 0.015 / 0.023 (0.10).
* Toeplitz 20/10 seeds 0 / 1: ``closest/6`` 0.026 / 0.025, ``closest/7``
  0.021 / 0.021; heterogeneous, equicorrelated, block, independent:
  0.003-0.023 for every rule.

So the estimator uses ``closest/7`` at 10 samples (``SIGN_CONTROLS``).
Smaller clients (``--samples 9 / 8 / 6``, ``closest/K`` with ``K = n -
3``, the most they can use) on Toeplitz 20/3 seeds 0-3, 20/10 seed 1 and
50/5 seed 0: 9 samples 0.018-0.040, 8 samples 0.017-0.047, 6 samples
0.026-0.068 (Toeplitz 20/3 seed 3 and 50/5 beyond 0.05): ``vote="auto"``
sends signs only for clients of 9-10 samples (``SIGN_MIN_SAMPLES``).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support_one_bit_rules import clients, problem, t_given  # noqa: E402


def controls(rule, R, cs, yy, K):
    """The (B, d, K) control indices of ``rule`` (see the module docstring)."""
    B, d, _ = R.shape
    diag = (np.arange(d), np.arange(d))
    absR = np.abs(R)
    ry = np.abs(cs) / np.sqrt(yy)[:, None]
    if rule == "closest":
        score = absR.copy()
    elif rule == "prod":
        score = absR * ry[:, None, :]
    elif rule == "ycorr":
        score = np.broadcast_to(ry[:, None, :], (B, d, d)).copy()
    elif rule.startswith("mix"):
        a = int(rule[3:])
        first_score = absR.copy()
        first_score[:, diag[0], diag[1]] = -1.0
        first = np.argsort(-first_score, axis=2, kind="stable")[:, :, :a]
        score = absR * ry[:, None, :]
        np.put_along_axis(score, first, 10.0, axis=2)
    else:
        raise ValueError(f"unknown rule {rule!r}")
    score[:, diag[0], diag[1]] = -1.0
    return np.argsort(-score, axis=2, kind="stable")[:, :, :K]


def fractions(design, w, rule, K, n_clients, n, seed):
    """The fraction of clients sending 1 for each feature."""
    rng = np.random.default_rng([seed, 3])
    d = len(w)
    block = max(200, 4_000_000 // d ** 2)
    total = np.zeros(d)
    for lo in range(0, n_clients, block):
        X, y = clients(design, w, min(block, n_clients - lo), n, rng)
        B = X.shape[0]
        G = np.einsum("bni,bnj->bij", X, X)
        c = np.einsum("bni,bn->bi", X, y)
        yy = np.einsum("bn,bn->b", y, y)
        sd = np.sqrt(np.einsum("bii->bi", G))
        R = G / sd[:, :, None] / sd[:, None, :]
        cs = c / sd
        j = np.broadcast_to(np.arange(d)[None, :, None], (B, d, 1))
        A = np.concatenate([j, controls(rule, R, cs, yy, K)], axis=2)
        total += (t_given(R, cs, yy, A, 0) > 0).sum(axis=0)
    return total / n_clients


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--rules", nargs="+", default=["closest/6", "closest/7"])
    parser.add_argument("--problems", nargs="+",
                        default=["toeplitz:20:3:2", "toeplitz:50:5:0"],
                        help="design:d:s:seed")
    args = parser.parse_args(argv)
    for spec in args.problems:
        design, d, s, seed = spec.split(":")
        d, s, seed = int(d), int(s), int(seed)
        support, w = problem(design, d, s, seed)
        for rk in args.rules:
            rule, K = rk.split("/")
            cpu = time.process_time()
            f = fractions(design, w, rule, int(K), args.clients, args.samples, seed)
            med = float(np.median(f))
            dist = np.abs(f - med)
            jn = np.flatnonzero(~support)[np.argmax(dist[~support])]
            js = np.flatnonzero(support)[np.argmin(dist[support])]
            print(f"{spec:24s} n={args.samples} {rk:12s} median {med:.4f}  farthest outside "
                  f"{jn} {dist[jn]:.4f}  weakest support {js} {dist[js]:.4f}  "
                  f"({time.process_time() - cpu:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
