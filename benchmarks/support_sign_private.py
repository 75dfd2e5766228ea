"""Exact support recovery of ``vote="sign"`` under ``privacy`` (issue 29).

Toeplitz 20/10 (corr 0.5^|j-k|, 10 of 20 features at +-3, noise sd 1) with
10,000 clients of 10 samples, the problems and clients of
``support_one_bit_rules.py`` (support from ``seed``, clients from
``default_rng([seed, 11])``).  For each epsilon the sign vote and the default
(selection) vote of FederatedSupportRecovery are fitted with
``DifferentialPrivacy(epsilon)``; epsilon ``inf`` is the non-private fit.
Per row: the reported features per client ``k`` and flip probability ``p``
(shared by both votes: the same randomized response), and over the seeds the
exact-recovery count, the mean false positives and misses of each vote.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/support_sign_private.py \\
        --epsilons 1 3 10 inf --seeds 0 1 2 3 4
"""

import argparse
import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np

from skfed import DifferentialPrivacy, FederatedSupportRecovery

HERE = Path(__file__).resolve().parent


def _rules():
    spec = importlib.util.spec_from_file_location(
        "support_one_bit_rules", HERE / "support_one_bit_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problem", default="toeplitz:20:10")
    parser.add_argument("--clients", type=int, default=10000)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--epsilons", nargs="+", type=float, default=[1, 3, 10, math.inf])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    args = parser.parse_args()
    rules = _rules()
    design, d, s = args.problem.split(":")
    d, s = int(d), int(s)
    data = []
    for seed in args.seeds:
        support, w = rules.problem(design, d, s, seed)
        X, y = rules.clients(design, w, args.clients, args.n,
                             np.random.default_rng([seed, 11]))
        B, n, _ = X.shape
        data.append((support, X.reshape(-1, d), y.reshape(-1), np.repeat(np.arange(B), n)))
    print(f"{args.problem}, {args.clients} clients x {args.n} samples, "
          f"seeds {args.seeds}")
    print(f"{'epsilon':>8} {'k':>3} {'p':>6} | {'vote':>9} {'exact':>6} {'FP':>5} {'miss':>5}")
    for eps in args.epsilons:
        privacy = None if math.isinf(eps) else DifferentialPrivacy(epsilon=eps)
        for vote in ("sign", "selection"):
            exact, fp, miss, k, p = 0, [], [], d, 0.0
            for seed, (support, Xf, yf, g) in enumerate(data):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    est = FederatedSupportRecovery(
                        vote=vote, privacy=privacy, random_state=seed).fit(Xf, yf, groups=g)
                if privacy is not None:
                    k = est.privacy_["n_reported"]
                    p = est.privacy_["flip_probability"]
                exact += bool(np.array_equal(est.support_, support))
                fp.append(int((est.support_ & ~support).sum()))
                miss.append(int((support & ~est.support_).sum()))
            print(f"{eps:>8g} {k:>3d} {p:>6.3f} | {vote:>9} {exact:>3d}/{len(data):<2d} "
                  f"{np.mean(fp):>5.1f} {np.mean(miss):>5.1f}", flush=True)


if __name__ == "__main__":
    main()
