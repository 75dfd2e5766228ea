"""Why the defaults miss at d = 1,000 with 10 samples per client: every
feature's vote fraction, the support's weakest and the strongest feature
outside it, one fit per vote on the arrays of ``support_vs_pooled.py``.

``--wide-marginal`` sends every wide client (``d > 20 median(n_i)``) to the
marginal test instead of its sphericity gate and ``(n_i - 1) // 4`` chance
controls (an experiment on ``skfed.support._rules.WIDE_SPHERICITY_Z``, set
to infinity in this process only)::

    python benchmarks/support_wide_fractions.py --design toeplitz --dims 1000:10 1000:3 \\
        --seeds 0 1 2 --votes selection sign
    python benchmarks/support_wide_fractions.py --design toeplitz --dims 1000:10 \\
        --seeds 0 1 --votes selection --wide-marginal

Measured 2026-11-28 (10,000 clients of 10 samples; the findings are in
``support_sign_controls.py``'s docstring).
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
from skfed.support import _rules  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", default="toeplitz", choices=DESIGNS)
    parser.add_argument("--dims", nargs="+", default=["1000:10"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--clients", type=int, default=10000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--votes", nargs="+", default=["auto"])
    parser.add_argument("--wide-marginal", action="store_true")
    args = parser.parse_args(argv)
    if args.wide_marginal:
        _rules.WIDE_SPHERICITY_Z = np.inf
    for dims in args.dims:
        d, s = (int(v) for v in dims.split(":"))
        for seed in args.seeds:
            X, y, groups, *_, support = make_design(args.design, args.clients, args.samples,
                                                    d, s, seed)
            for vote in args.votes:
                cpu = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = FederatedSupportRecovery(vote=vote).fit(X, y, groups=groups)
                f = est.debiased_fraction_
                found = est.support_
                if getattr(est, "sign_band_", None) is not None:
                    lo, hi = est.sign_band_
                    dist = np.maximum(f - hi, lo - f)
                    rule = f"band {lo:.4f}-{hi:.4f}"
                else:
                    dist = f - est.reference_rate_
                    rule = f"reference {est.reference_rate_:.4f}"
                js = np.flatnonzero(support)[np.argmin(dist[support])]
                jn = np.flatnonzero(~support)[np.argmax(dist[~support])]
                print(f"{args.design} {d}/{s} seed {seed} {vote:9s} ({est.vote_}) "
                      f"tp {int((found & support).sum())} fp {int((found & ~support).sum())} "
                      f"fn {int((~found & support).sum())}  {rule}  weakest support {js} "
                      f"{f[js]:.4f}  strongest outside {jn} {f[jn]:.4f}  "
                      f"({time.process_time() - cpu:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
