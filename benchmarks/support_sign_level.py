"""The sign vote's level on a global null, with and without the median's margin.

A NumPy simulation of what the server receives when no feature matters:
every feature's count is binomial at one rate (the clean bits' ``c``,
taken by randomized response to ``p + (1 - 2 p) c``) over ``n`` reports,
independently over the ``d`` features, ``--draws`` draws.  The server's
test (``FederatedSupportRecovery(vote="sign")._sign_test``, vectorized
here the same way as in ``tests/test_support_sign_vote.py``) runs at
``rogue_tolerance=0`` and ``fwer`` 0.05 with the band ``median +- t``
(``t`` = ``sign_centre_margin``, the current rule) and ``median +- 0``
(the former rule, which took the median for the known null rate); the
table has the fraction of draws in which any feature was selected (the
family-wise error, nominal 0.05) and ``t`` in standard deviations of a
fraction::

    python benchmarks/support_sign_level.py
    python benchmarks/support_sign_level.py --draws 100000
"""

import argparse

import numpy as np
from scipy import stats

from skfed.support._rules import sign_centre_margin

CASES = [  # d, reports per feature, flip probability, clean null rate
    (3, 3000, 0.0, 0.5), (5, 3000, 0.0, 0.5), (10, 3000, 0.0, 0.5),
    (20, 3000, 0.0, 0.5), (20, 3000, 0.0, 0.4), (20, 200, 0.269, 0.4),
    (200, 3000, 0.0, 0.5), (1000, 500, 0.0, 0.5),
]


def selects(votes, n_reports, fwer, margin):
    """Whether the sign test selects any feature, per draw (rows)."""
    d = votes.shape[1]
    f = votes / n_reports
    m = np.median(f, axis=1, keepdims=True)
    t = 0.0
    if margin:
        z = stats.norm.isf(fwer / (2 * d))
        t = np.array([sign_centre_margin(d, row.min(), z) for row in n_reports])[:, None]
    lo, hi = np.clip(m - t, 0, 1), np.clip(m + t, 0, 1)
    pv = np.minimum(1, 2 * np.minimum(stats.binom.sf(votes - 1, n_reports, hi),
                                      stats.binom.cdf(votes, n_reports, lo)))
    return (pv <= fwer / d).any(axis=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=40000)
    parser.add_argument("--fwer", type=float, default=0.05)
    args = parser.parse_args(argv)
    print(f"global null, fwer {args.fwer}, {args.draws} draws (standard error of a level "
          f"{np.sqrt(args.fwer * (1 - args.fwer) / args.draws):.4f})")
    print(f"{'d':>5} {'reports':>8} {'p_flip':>7} {'c':>4} {'t / sd':>7} "
          f"{'with margin':>12} {'median as known':>16}")
    for d, n, p, c in CASES:
        rng = np.random.default_rng([d, n, 7])
        draws = args.draws if d <= 20 else max(args.draws // 10, 1000)
        r = p + (1 - 2 * p) * c
        m = (rng.integers(n - 5, n + 6, size=(draws, d)) if p
             else np.full((draws, d), n))
        votes = rng.binomial(m, r)
        z = stats.norm.isf(args.fwer / (2 * d))
        t_sd = sign_centre_margin(d, n, z) / (0.5 / np.sqrt(n))
        new = selects(votes, m, args.fwer, True).mean()
        old = selects(votes, m, args.fwer, False).mean()
        print(f"{d:>5} {n:>8} {p:>7.3f} {c:>4.1f} {t_sd:>7.3f} {new:>12.4f} {old:>16.4f}"
              + ("" if draws == args.draws else f"   ({draws} draws)"), flush=True)


if __name__ == "__main__":
    main()
