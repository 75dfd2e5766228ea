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

Moved from the user guide (doc/user_guide/support.rst, 2026-11-28; the
guide keeps the current results): the measurements and history below,
as they stood there.

**Held-out designs.** On the designs the sign vote was not built on
(equicorrelated: every pair of features 0.3; block: blocks of 5 features
correlated 0.6, one support feature per block), at 10,000 clients of 10
samples, seeds 0 and 1::

    python benchmarks/support_vs_pooled.py --designs equicorrelated block --sizes 10000x10 \\
        --dims 20:3 20:10 200:5 --seeds 0 1 --votes selection sign --peers-up-to 0

======================  ===============================  ===============================
10,000 x 10             default: F1 / exact / CPU s      ``vote="sign"``
======================  ===============================  ===============================
equicorrelated 20/3     1.000 / 1.00 / 0.09              1.000 / 1.00 / 0.11
equicorrelated 20/10    1.000 / 1.00 / 0.08              1.000 / 1.00 / 0.12
equicorrelated 200/5    0.500 / 0.50 / 1.40              **1.000 / 1.00** / 2.24
block 20/3              1.000 / 1.00 / 0.09              1.000 / 1.00 / 0.12
block 200/5             1.000 / 1.00 / 1.41              1.000 / 1.00 / 2.19
======================  ===============================  ===============================

(Block 20/10 does not exist: one support feature per block needs ``d >=
5 s``.)  On equicorrelated 200/5 seed 0, whose five coefficients share
a sign, the default misses all five and selects 184 other features (the
support's common sign leaks into every feature's vote); the sign vote's
median-centred band removes that shared bias.  At ``d = 1000`` (``s =
10``, seeds 0 and 1, the same command with ``--dims 1000:10 --seeds 0``
and ``--seeds 1``; 1.41 MB sent by either rule):

======================  ===============================  ===============================
10,000 x 10, d = 1000   default: F1 / exact / CPU s      ``vote="sign"``
======================  ===============================  ===============================
equicorrelated 1000/10  0.571 / 0.00 / 19.1-19.7         **1.000 / 1.00** / 26.3-26.8
block 1000/10           0.000 / 0.00 / 19.3-19.9         0.182 / 0.00 / 26.9-27.2
======================  ===============================  ===============================

The default misses 6 of 10 support features on equicorrelated (seeds 0
and 1) and selects nothing on block (it warns that 11 features are above
the null rate but not above the rogue margin); the sign vote finds 1 of
10 on block and never selects a feature outside the support.  On block
1000/10 a 10-sample client's 6 closest features, among 999, are chance
correlations rather than its block's 4 other features, so neither rule
conditions on the block: neither recovers it from 10,000 clients.
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
