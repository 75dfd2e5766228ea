"""Why 10-sample clients miss some correlated supports: vote fractions per feature kind.

For clients with fewer than ``d + 4`` samples the default rule tests each
feature given its ``k`` closest features when the client's design looks
correlated (``skfed/support/_partial.py``), else marginally.  This script
measures, on the designs of ``support_vs_pooled.py``, the vote fraction
(the rate at which clients select a feature) of

* the weakest support feature (``true min``),
* the features outside the support next to a support feature on the
  Toeplitz order (``neighbour max``; they are correlated 0.5 with it),
* the other features outside the support (``other max``),

against the server's reference rate ``(1 - beta) q0 + beta`` (0.386 at the
defaults).  Exact recovery with many clients needs ``true min`` above the
reference and both null columns below it.  Two client rules are compared on
the same arrays: the default (``rule=default``) and the marginal test for
every small client (``rule=marginal``: the gate of the partial rule raised
to infinity, for this diagnosis only).

With ``--sign`` it also reports, for ``d <= 50``, how far from 1/2 the rate
``P(t_j > 0)`` of the same client statistics is (the information a sign bit
would carry), from the NumPy reference of the partial rule; a sign vote with
rogue tolerance ``beta`` needs ``|P - 1/2| > beta / (2 (1 - beta))`` (0.056)
on the support and below it elsewhere.

    python benchmarks/support_small_clients.py --clients 2000 \\
        --cases toeplitz:20:10 toeplitz:50:5 toeplitz:200:5 toeplitz:200:10 \\
        toeplitz:1000:3 toeplitz:1000:10 heterogeneous:20:10 --sign

The last line is one JSON object with every row.
"""

import argparse
import json
import sys
import time
import warnings

import numpy as np

import skfed.support._rules as rules
from skfed import FederatedSupportRecovery
from skfed.support._partial import n_controls, partial_reference
from skfed.support._rules import _critical_values

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from support_vs_pooled import make_design  # noqa: E402


def neighbours(support):
    """Features outside the support next to a support feature."""
    d = len(support)
    out = np.zeros(d, dtype=bool)
    for j in np.flatnonzero(support):
        for l in (j - 1, j + 1):
            if 0 <= l < d and not support[l]:
                out[l] = True
    return out


def sign_rates(X, y, groups, n, max_clients=2000):
    """``P(t_j > 0)`` over clients of the default rule's statistics (NumPy reference)."""
    d = X.shape[1]
    g = min(len(np.unique(groups)), max_clients)
    m = n - 1
    k = int(n_controls(n, d, True))
    tk = _critical_values(rules.DEFAULT_AUTO_Z, [m - 1 - k])[0]
    t0 = _critical_values(rules.DEFAULT_AUTO_Z, [m - 1])[0]
    pos = np.zeros(d)
    for i in range(g):
        rows = slice(i * n, (i + 1) * n)
        _, t, _, _ = partial_reference(X[rows], y[rows], np.ones(n), k, m, True, tk, t0)
        pos += np.nan_to_num(t) > 0
    return pos / g


def run_case(design, d, s, clients, n, seed, sign):
    X, y, groups, *_, support = make_design(design, clients, n, d, s, seed)
    nb = neighbours(support)
    other = ~support & ~nb
    rows = []
    gate = rules.PARTIAL_SPHERICITY_Z
    try:
        for rule, value in (("default", gate), ("marginal", np.inf)):
            rules.PARTIAL_SPHERICITY_Z = value
            cpu = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = FederatedSupportRecovery().fit(X, y, groups=groups)
            cpu = time.process_time() - cpu
            f = est.vote_fraction_
            rows.append(dict(
                design=design, d=d, s=s, clients=clients, samples=n, seed=seed, rule=rule,
                true_min=float(f[support].min()),
                neighbour_max=float(f[nb].max()) if nb.any() else None,
                other_max=float(f[other].max()), reference=float(est.reference_rate_),
                exact=bool(np.array_equal(est.support_, support)),
                f1=float(2 * np.sum(est.support_ & support)
                         / (est.support_.sum() + support.sum())),
                cpu_s=cpu))
    finally:
        rules.PARTIAL_SPHERICITY_Z = gate
    if sign and d <= 50:
        dev = np.abs(sign_rates(X, y, groups, n) - 0.5)
        rows.append(dict(design=design, d=d, s=s, clients=min(clients, 2000), samples=n,
                         seed=seed, rule="sign of the default statistic",
                         true_min=float(dev[support].min()),
                         neighbour_max=float(dev[nb].max()) if nb.any() else None,
                         other_max=float(dev[other].max()), reference=0.1 / 1.8))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=[
        "toeplitz:20:10", "toeplitz:50:5", "toeplitz:200:5", "toeplitz:200:10",
        "toeplitz:1000:3", "toeplitz:1000:10", "heterogeneous:20:10"])
    parser.add_argument("--clients", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sign", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    print("| design | d / s | rule | true min | neighbour max | other max | reference |"
          " exact | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in args.cases:
        design, d, s = case.split(":")
        for r in run_case(design, int(d), int(s), args.clients, args.samples, args.seed,
                          args.sign):
            rows.append(r)
            nbm = "-" if r["neighbour_max"] is None else f"{r['neighbour_max']:.3f}"
            print(f"| {r['design']} | {r['d']}/{r['s']} | {r['rule']} | {r['true_min']:.3f} | "
                  f"{nbm} | {r['other_max']:.3f} | {r['reference']:.3f} | "
                  f"{r.get('exact', '')} | {r.get('cpu_s', float('nan')):.1f} |", flush=True)
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
