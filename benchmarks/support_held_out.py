"""Support recovery at the defaults on families the defaults were not chosen on.

The defaults of :class:`skfed.FederatedSupportRecovery` (``auto_z=1``,
``rogue_tolerance=0.1``, ``fwer=0.05``) were chosen on the independent,
Toeplitz (rho = 0.5) and heterogeneous designs of
``benchmarks/support_phase_transition.py`` (d = 50, s = 5, coefficients of
3 noise sd, Gaussian noise).  This script measures, on held-out families,
whether exact recovery improves with the number of clients:

* ``equicorrelated``: every pair of features correlated 0.3, s = 5,
  coefficients of 3 noise sd;
* ``block``: blocks of 5 features correlated 0.6 within a block, one
  support feature in each of 5 blocks, coefficients of 3 noise sd;
* ``heavy-noise``: independent features, Student-t noise with 3 degrees
  of freedom (unit variance), s = 5 coefficients of 1 noise sd only;
* ``sparsity-15``: independent features, s = 15 coefficients whose sizes
  are uniform in [1, 3] noise sd.

d = 50 everywhere, random signs and positions, a random intercept per
client (N(0, 3^2)).  Every problem is drawn once at the largest number of
clients and the fits use its first ``g`` clients, so each problem's curve is
nested (a problem that loses exact recovery when clients are added counts in
the ``lost`` column).  Samples per client: 30 (below d + 4 = 54: the
clients run the marginal correlation test) and 80 (the OLS t-test).

    python benchmarks/support_held_out.py --runs 10

Prints one line per point as it goes, then a table (exact-recovery rate over
the problems; mean F1 in parentheses when not 1) and one JSON line.
"""

import argparse
import json
import sys
import time
import warnings

import numpy as np

from skfed import FederatedSupportRecovery

FAMILIES = ("equicorrelated", "block", "heavy-noise", "sparsity-15")
D = 50


def make_family(family, n_clients, n_samples, seed):
    """``X, y, groups, support`` of one held-out problem (clients in order)."""
    rng = np.random.default_rng([seed, FAMILIES.index(family), n_samples])
    d = D
    n = n_clients * n_samples
    groups = np.repeat(np.arange(n_clients), n_samples)
    support = np.zeros(d, dtype=bool)
    if family == "block":
        blocks = rng.choice(d // 5, 5, replace=False)
        support[blocks * 5 + rng.integers(0, 5, 5)] = True
    else:
        s = 15 if family == "sparsity-15" else 5
        support[rng.choice(d, s, replace=False)] = True
    s = int(support.sum())
    signs = rng.choice([-1.0, 1.0], s)
    if family == "heavy-noise":
        w_s = 1.0 * signs
    elif family == "sparsity-15":
        w_s = rng.uniform(1.0, 3.0, s) * signs
    else:
        w_s = 3.0 * signs
    w = np.zeros(d)
    w[support] = w_s
    X = rng.standard_normal((n, d))
    if family == "equicorrelated":
        X *= np.sqrt(0.7)
        X += np.sqrt(0.3) * rng.standard_normal((n, 1))
    elif family == "block":
        shared = rng.standard_normal((n, d // 5))
        X *= np.sqrt(0.4)
        X += np.sqrt(0.6) * np.repeat(shared, 5, axis=1)
    if family == "heavy-noise":
        noise = rng.standard_t(3, n) / np.sqrt(3.0)
    else:
        noise = rng.standard_normal(n)
    y = X @ w + noise + 3.0 * rng.standard_normal(n_clients)[groups]
    return X, y, groups, support


def f1(found, true):
    tp = np.sum(found & true)
    return 2 * tp / (found.sum() + true.sum()) if found.any() or true.any() else 1.0


def run(families, samples, clients, runs):
    table = {}
    for family in families:
        for n_samples in samples:
            exact = np.zeros((runs, len(clients)), dtype=bool)
            scores = np.zeros((runs, len(clients)))
            seconds = 0.0
            for r in range(runs):
                X, y, groups, true = make_family(family, max(clients), n_samples, r)
                for c, g in enumerate(clients):
                    m = g * n_samples
                    start = time.process_time()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        sel = FederatedSupportRecovery().fit(X[:m], y[:m], groups=groups[:m])
                    seconds += time.process_time() - start
                    exact[r, c] = np.array_equal(sel.support_, true)
                    scores[r, c] = f1(sel.support_, true)
                del X, y, groups
            lost = int(np.sum(np.any(exact[:, :-1] & ~exact[:, 1:], axis=1)))
            row = {
                "exact": exact.mean(axis=0).round(3).tolist(),
                "f1": scores.mean(axis=0).round(3).tolist(),
                "lost": lost,
                "fit_cpu_s": round(seconds, 1),
            }
            table[f"{family} n_i={n_samples}"] = row
            print(f"{family:15s} n_i={n_samples:3d} exact={row['exact']} f1={row['f1']} "
                  f"lost={lost}/{runs} cpu={seconds:.1f}s", file=sys.stderr, flush=True)
    return table


def print_table(table, clients):
    print(f"{'family':26s}" + "".join(f"{g:>13,d}" for g in clients) + f"{'lost':>6s}")
    for name, row in table.items():
        cells = [f"{e:.2f}" + ("" if f == 1 else f" ({f:.2f})")
                 for e, f in zip(row["exact"], row["f1"])]
        print(f"{name:26s}" + "".join(f"{c:>13s}" for c in cells) + f"{row['lost']:6d}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument("--samples", nargs="+", type=int, default=[30, 80])
    parser.add_argument("--clients", nargs="+", type=int,
                        default=[30, 100, 300, 1000, 3000, 10000])
    parser.add_argument("--runs", type=int, default=10, help="problems per point")
    args = parser.parse_args(argv)
    clients = sorted(args.clients)
    table = run(args.families, args.samples, clients, args.runs)
    print_table(table, clients)
    print(json.dumps({"clients": clients, "runs": args.runs, "d": D, "table": table}))


if __name__ == "__main__":
    main()
