"""Both votes far beyond 10,000 clients: does a feature outside the support
drift out of the null band as clients are added?

On the arrays of ``benchmarks/support_vs_pooled.py`` (``make_design``),
for each seed and number of clients, one fit with ``vote="selection"``
and one with ``vote="sign"``; printed: exact recovery, the features added
or missed, and the feature outside the support farthest beyond the
server's threshold (the selection vote's reference rate, the sign vote's
band; negative: inside) with the support feature nearest to it.  A
distance that stays negative as the clients grow keeps recovery
non-decreasing; one that reaches 0 is selected once there are enough
clients::

    python benchmarks/support_many_clients.py --design toeplitz --dims 20:3 \\
        --samples 10 --seeds 0 1 2 3 4 --clients 100000 300000

``--votes sign`` runs the sign vote alone.

History (Toeplitz 20/3, clients of 10 samples, seeds 0-4, every fit
exact; farthest feature outside the support beyond the sign band and
above the selection vote's reference, negative: inside).  With 6 sign
controls at 10 samples (2026-11-27)::

    seed  sign: 10k / 100k / 300k          selection: 10k / 100k / 300k
    0     -0.017 / -0.024 / -0.024         -0.024 / -0.025 / -0.025
    1     -0.003 / -0.008 / -0.009         -0.026 / -0.027 / -0.026
    2     -0.004 / +0.001 / -0.0006        -0.032 / -0.031 / -0.031
    3     -0.009 / -0.005 / -0.004         -0.025 / -0.019 / -0.020
    4     -0.018 / -0.023 / -0.027         -0.026 / -0.030 / -0.032

(heterogeneous 20/3: 0.024-0.036 inside the sign band, 0.037-0.044 under
the selection reference).  Seed 2's neighbour (feature 5, next to
support feature 4) sat within one standard error of the band's end, so
the sign vote was not the default.  With 7 controls (2026-11-28, ``--votes
sign``): seeds 0-4 at 10k / 100k / 300k -0.028 / -0.028 / -0.028, -0.018
/ -0.019 / -0.020, -0.021 / -0.014 / -0.013, -0.018 / -0.018 / -0.018,
-0.024 / -0.027 / -0.030; at 1,000,000 clients seed 2 -0.013, seed 1
-0.019 (14-15 s CPU each); heterogeneous 20/3 -0.033 to -0.040 at every
size; the default became ``vote="auto"``.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support_vs_pooled import DESIGNS, make_design  # noqa: E402

from skfed import FederatedSupportRecovery  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", default="toeplitz", choices=DESIGNS)
    parser.add_argument("--dims", default="20:3", help="d:s")
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--clients", nargs="+", type=int, default=[100000, 300000])
    parser.add_argument("--votes", nargs="+", default=["selection", "sign"],
                        choices=["selection", "sign"])
    args = parser.parse_args(argv)
    d, s = (int(v) for v in args.dims.split(":"))
    for seed in args.seeds:
        for g in args.clients:
            X, y, groups, *_, true = make_design(args.design, g, args.samples, d, s, seed)
            for vote in args.votes:
                cpu = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    est = FederatedSupportRecovery(vote=vote).fit(X, y, groups=groups)
                cpu = time.process_time() - cpu
                f = est.vote_fraction_
                if vote == "sign":
                    lo, hi = est.sign_band_
                    dist = np.maximum(f - hi, lo - f)
                else:
                    dist = f - est.reference_rate_
                j = np.flatnonzero(~true)[np.argmax(dist[~true])]
                sup = np.flatnonzero(true)
                print(f"{args.design} {d}/{s} seed {seed} {g} x {args.samples} {vote:>9}: "
                      f"exact {np.array_equal(est.support_, true)}, "
                      f"added {np.flatnonzero(est.support_ & ~true).tolist()}, "
                      f"missed {np.flatnonzero(true & ~est.support_).tolist()}, "
                      f"farthest outside the support: feature {j} at {dist[j]:+.4f} "
                      f"(nearest support feature {sup[np.argmin(np.abs(sup - j))]}), "
                      f"{cpu:.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
