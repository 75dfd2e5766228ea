"""The tolerance sweep of ``support_rogue_auto.py`` on the phase-transition problems.

The problems of ``support_phase_transition.py --only C`` (d = 50, s = 5,
10-sample clients, the same seeds) at 3,000 and 10,000 clients, heterogeneous
and Toeplitz: one fit per problem, its votes tested at every tolerance.
Prints one line per problem: the weakest support feature's vote fraction,
the largest outside the support, and exact recovery (1/0) at each tolerance.

    python benchmarks/support_rogue_auto_pt.py --runs 5
"""

import argparse
import sys
import warnings
import zlib

import numpy as np
from scipy import stats

from skfed import FederatedSupportRecovery

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from support_vs_pooled import make_design  # noqa: E402

BETAS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    q0 = 2 * stats.norm.sf(1.0)
    totals = np.zeros(len(BETAS), dtype=int)
    print("design clients run | true min | null max | exact at", BETAS)
    for design, n in (("heterogeneous", 10), ("toeplitz", 10)):
        # The seeds of support_phase_transition.experiment_clients (points 5, 6).
        seed0 = zlib.crc32(f"{design} {n}".encode()) % 100_000 * 1000
        for point, g in ((6, 10_000), (5, 3_000)):
            for r in range(args.runs):
                X, y, groups, _, _, _, true = make_design(design, g, n, 50, 5,
                                                          seed0 + 1000 * point + r)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sel = FederatedSupportRecovery(rogue_tolerance=0.0).fit(X, y, groups=groups)
                exact = [int(np.array_equal(
                    stats.binom.sf(sel.votes_ - 1, sel.n_reports_, (1 - b) * q0 + b)
                    <= 0.05 / 50, true)) for b in BETAS]
                totals += exact
                f = sel.vote_fraction_
                print(f"{design} {g} {r} | {f[true].min():.3f} | {f[~true].max():.3f} | {exact}",
                      flush=True)
    print("exact problems at each tolerance:", dict(zip(BETAS, totals.tolist())))


if __name__ == "__main__":
    main()
