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

Moved from the user guide (doc/user_guide/support.rst, 2026-11-28; the
guide keeps the current results): the measurements and history below,
as they stood there.

**Should the sign vote be the default?**  Both votes on the same arrays,
five designs (three held out from the sign vote's design: equicorrelated,
block; plus independent, Toeplitz, heterogeneous), ``d = 20 / 200``, five
seeds each, measured 2026-11-27 (load average 8-11; ``exact / 5`` and the
mean F1)::

    python benchmarks/support_vs_pooled.py --designs independent toeplitz heterogeneous \\
        equicorrelated --sizes 10000x10 1000x30 --dims 20:3 20:10 200:5 \\
        --seeds 0 1 2 3 4 --votes selection sign --peers-up-to 0
    python benchmarks/support_vs_pooled.py --designs block --sizes 10000x10 1000x30 \\
        --dims 20:3 200:5 --seeds 0 1 2 3 4 --votes selection sign --peers-up-to 0

====================  ==================  ==================  ==================  ==================
design d/s            10,000 x 10         10,000 x 10         1,000 x 30          1,000 x 30
                      selection           sign                selection           sign
====================  ==================  ==================  ==================  ==================
independent 20/3      5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
independent 20/10     5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
independent 200/5     5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
Toeplitz 20/3         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
Toeplitz 20/10        2/5 (0.944)         **5/5 (1.000)**     5/5 (1.000)         5/5 (1.000)
Toeplitz 200/5        5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
heterogeneous 20/3    5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
heterogeneous 20/10   3/5 (0.979)         **5/5 (1.000)**     5/5 (1.000)         5/5 (1.000)
heterogeneous 200/5   5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
equicorrelated 20/3   5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
equicorrelated 20/10  5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
equicorrelated 200/5  2/5 (0.600)         **5/5 (1.000)**     2/5 (0.698)         **5/5 (1.000)**
block 20/3            5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
block 200/5           5/5 (1.000)         5/5 (1.000)         5/5 (1.000)         5/5 (1.000)
====================  ==================  ==================  ==================  ==================

The default ``vote="auto"`` sends signs at 10,000 x 10 (exact on all 70 problems
there, where the selection vote misses 8) and selection
bits at 1,000 x 30 (clients of 30 samples; exact on 67 of 70, where the
sign vote was exact on all 70).  The sign
vote never selected a feature outside the support; the selection vote
missed support features on Toeplitz and heterogeneous 20/10 and on
equicorrelated 200/5 selected 1-184 features outside it (the support's
common sign raises every feature's selection rate).  CPU: the sign vote
0.11-0.13 s against 0.08-0.10 s at ``d = 20``, 2.2-2.4 s against
1.4-1.5 s at ``d = 200`` (10,000 x 10); the same bytes.  The margins
(the ``true_margin`` and ``null_margin`` of the benchmark's JSON rows):
at 10,000 x 10 the weakest support feature's sign fraction lies at
least 0.056 beyond the band (heterogeneous 200/5; the selection vote's
weakest is 0.002 above its reference on Toeplitz 20/10, and below it on
equicorrelated 200/5), and every feature outside the support is inside
the band (the closest by 0.001, Toeplitz 20/10 seed 3; 0.003 on Toeplitz
20/3 and 200/5).  With 5 % rogue clients (the sign vote's tolerance;
``--rogue 0.05:complement`` and ``--rogue 0.05:random`` added to the
first command, on independent, Toeplitz and heterogeneous 20/3 and 20/10,
both sizes: 60 problems each) the sign vote is exact on all 120, the
selection vote on 119 (Toeplitz 20/10, random rogues, one seed).  With 7
controls (2026-11-28; ``--designs independent toeplitz heterogeneous
--sizes 10000x10 --dims 20:3 20:10 --seeds 0 1 2 3 4 --votes sign
--rogue 0.05:complement``, and ``0.05:random``) the 10,000 x 10 half is
again exact on all 60, the weakest support feature at least 0.052 beyond
the band, every other feature at least 0.014 inside it.

The 10,000 x 10 sign column re-measured with today's 7 controls at 10
samples (2026-11-28, load average about 10; the first command with
``--sizes 10000x10 --votes sign``, the second likewise): every cell
unchanged (5/5, F1 1.000, all 70 problems), the weakest support feature
0.029-0.047 beyond the band at ``d = 200`` (0.064-0.24 at ``d = 20``)
and every feature outside the support at least 0.012 inside it
(Toeplitz 20/10; 0.013 on Toeplitz 200/5, 0.018 on Toeplitz 20/3, 0.024-0.040
on the other designs); CPU 0.14-0.17 s at ``d = 20``, 2.5-2.8 s at ``d = 200``.


**Why the default changed.**  A feature next to a strong support
feature keeps a sign bias when a client's controls miss the support
feature correlated with it; the band's half-width tends to ``beta =
0.05`` as clients are added, so a bias at the band's edge would be
selected with enough clients and recovery would fall.  With 6 controls
at 10 samples the bias reached that edge (Toeplitz 20/3 seed 2: -0.004 /
+0.001 / -0.0006 at 10,000 / 100,000 / 300,000 clients; the table is in
``benchmarks/support_many_clients.py``).  With 7 (``m - 2``, the most a
10-sample client can use and keep its t statistic defined) a client
misses the support neighbour less often: in the NumPy simulation
(``support_one_bit_rules.py``'s designs, 50,000 clients, distance to the
median) the farthest feature outside the support moved from 0.024-0.047
to 0.021-0.037 on Toeplitz 20/3 seeds 0-4 and from 0.045-0.046 to
0.027-0.031 on Toeplitz 50/5, the weakest support feature from 0.29-0.33
to 0.25-0.29 and from 0.16 to 0.13 (8 controls: the bias 0.010-0.020, but
the weakest support feature 0.08 on Toeplitz 50/5, too close to the
band).  On the estimator, the farthest feature outside the support
beyond the sign band (negative: inside), clients of 10 samples, every fit
exact (2026-11-28, load average about 10)::

    python benchmarks/support_many_clients.py --design toeplitz --dims 20:3 \\
        --samples 10 --seeds 2 0 1 3 4 --clients 10000 100000 300000 --votes sign
    python benchmarks/support_many_clients.py --design toeplitz --dims 20:3 \\
        --samples 10 --seeds 2 1 --clients 1000000 --votes sign

==========  ========================================
Toeplitz    sign: 10k / 100k / 300k / 1M
20/3 seed
==========  ========================================
0           -0.028 / -0.028 / -0.028
1           -0.018 / -0.019 / -0.020 / -0.019
2           -0.021 / -0.014 / -0.013 / -0.013
3           -0.018 / -0.018 / -0.018
4           -0.024 / -0.027 / -0.030
==========  ========================================

The heterogeneous design (the same first command with ``--design
heterogeneous``) keeps every feature outside the support 0.033-0.040
inside the band at every size, seeds 0-4; Toeplitz 20/10 (``--dims 20:10
--seeds 0 1 2 --clients 100000 300000``) 0.027-0.031; Toeplitz 200/5
seed 0 at 100,000 clients (``--dims 200:5 --seeds 0 --clients 100000``)
0.025 (25 s of CPU).  The distances settle by
100,000 clients (the band's noise term is then small against the bias),
so they stay there for more clients: recovery does not fall.
The 1,000,000-client fits took 14-15 s of CPU (one process).  At 30
samples ``"auto"`` keeps the selection vote (above).  Before the change
at 30 samples the bias was beyond the band (the phase
transition below, and Toeplitz 200/5 at 10,000 x 30, seed 0: a
neighbour 0.005 outside it, the selection vote's 0.0004 above its
reference, within its noise; ``python benchmarks/support_many_clients.py
--design toeplitz --dims 200:5 --samples 30 --seeds 0 --clients 1000
10000``).  A first measurement of more controls at 30 samples
(Toeplitz 50/5, seeds
0 and 1, 20,000 simulated clients, median band): the strongest feature
outside the support lies +0.001 / +0.007 beyond the band with 6 closest
controls, +0.005 / -0.002 with 12 and -0.016 / -0.017 (inside) with 20,
the weakest support feature still 0.36-0.37 beyond it (``python
benchmarks/support_one_bit_rules.py --problems toeplitz:50:5 --seeds 0 1
--n 30 --clients 20000 --rules sign:closest:6 sign:closest:12
sign:closest:20``; the band there is the simulation's, ``+- 0.05``).


**A million clients.**  1,000,000 clients x 30 samples x 20 features in
float32 (2.4 GB of data, kept float32; 4.8 GB in float64): support
recovered exactly, 19 MB sent, a fit of 5.5 s of wall time and 8.8 s of
CPU over the two threads of ``n_jobs=2``, peak resident memory 3.59 GB
(2.81 GB before the fit, so the fit adds 0.78 GB; 3.68 GB for the whole
process by ``/usr/bin/time -v``), on the 2-core machine with nothing else
running::

    python benchmarks/bench_scale.py --only "FederatedSupportRecovery(float32, n_jobs=2)" \\
        --sizes 1000000 --table
    /usr/bin/time -v python benchmarks/bench_scale.py \\
        --point "FederatedSupportRecovery(float32, n_jobs=2)" 1000000

Each OLS client costs about 6 us of CPU (a 20 x 20 Gram matrix and its
sweep); clients are processed 4,096 at a time, so only their bits are kept.
Since then the node layout of sorted integer node ids skips its second
order check, its counting pass and the identity permutation (0.3-0.5 s of
CPU at 30 million rows down to 4 ms); re-measured at a load average of 22
(the fit got 4 % of a core, so its wall time, 190 s, says nothing): fit
11.6 s of CPU, 3.37 GB peak (0.56 GB for the fit), 3.45 GB for the whole
process, support exact.  At ``rogue_tolerance="auto"`` (these 30-sample clients run the
OLS test, so it resolves to 0.1 and nothing changes), at a load average
of about 30: fit 10.9 s of CPU, 3.37 GB peak (0.56 GB for the fit), 3.45
GB for the whole process (``/usr/bin/time -v``), support exact, 19 MB
sent.  Re-run at the current defaults (2026-11-27, load average about
12): fit 5.6 s of CPU (20 s of wall time on the shared machine), 3.36
GB peak (2.81 GB before the fit, 0.55 GB for the fit), support exact,
19 MB sent; the 100,000-client point 0.55 s of CPU, 523 MB peak
(``--sizes 100000 1000000``).  These clients have 30 samples and ``d =
20``, so they run the OLS test, which the small-client rule does not
touch.  After the sign vote's margin and ``vote="auto"`` (the default
unchanged; 2026-11-27, load average about 12, the first command): fit
5.52 s of CPU (15.4 s of wall time), 3.36 GB peak (2.81 GB of data, 0.55
GB for the fit), support exact, 19 MB sent.  With ``vote="auto"`` the
default (2026-11-28, load average about 8, the first command under
``/usr/bin/time -v``): these 30-sample clients send selection bits, fit
5.14 s of CPU (8.8 s of wall time), 3.36 GB peak (2.81 GB of data, 0.55
GB for the fit; 3.44 GB for the whole process), support exact, 19 MB
sent.
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
