"""Barik & Honorio's phase transitions, and robustness to faulty clients.

Exact-recovery probability of :class:`skfed.FederatedSupportRecovery` over
``--runs`` independent problems per point (30 by default, as in the paper),
data from :func:`skfed.datasets.make_federated_sparse_regression`
(heterogeneous clients: their own predictor variance, Toeplitz correlation
and noise level; one shared s-sparse ``w*``).

(a) against the samples per client, ``n_i = 10^C s^2 log s``, for
    d = 500, 1000, 2000, s = 3 and g = ceil(2 log d) clients: the paper
    predicts a jump from 0 to 1 at a C that does not depend on d (the
    number of samples a client needs is independent of d; the log d
    clients absorb the union over the d features).  Run with the paper's
    fixed lambda and with ``alpha="auto"`` (whose threshold grows like
    sqrt(log d), so its curves move right with d).
(b) against the number of clients, ``g = 10^C log d``, for s = 10, 20
    (40, 50 with ``--full``), d = 1000 and ``n_i = max(30, s^2 log s)``.
(c) robustness beyond the transition of (a) (d = 1000, s = 3, 20 clients,
    n_i at C = 1.5, and 1.25 with --full): against the fraction of rogue clients (0 to
    0.45, sending the complement of their support or random bits) and
    against the drop rate (0 to 0.9).
(d) local differential privacy (``privacy=DifferentialPrivacy(epsilon,
    delta=0)``: randomized response on each vote bit): exact recovery against
    the number of clients g for epsilon = 2, 5, 10, 20 and no privacy (d = 50,
    s = 3, n_i at C = 1.5).  Flipping each bit with probability p multiplies
    the clients the median rule needs by ``coth(epsilon / (2 d))^2``; the
    JSON holds that predicted factor beside each curve.

At the defaults (issue 29; ``FederatedSupportRecovery()``: ``vote="auto"``,
the sign vote for 1,000 or more clients of 9-10 samples (median), else
per-client OLS or partial t-tests at null rate 0.317 and the server's
binomial test; the latter alone, ``vote="selection"``, is also run), on
the three designs of ``benchmarks/support_vs_pooled.py`` (independent,
Toeplitz rho = 0.5, heterogeneous clients; d = 50, s = 5, coefficients of
3 noise sd, a random intercept per client), beside the former default's
thresholds (per-client z = sqrt(2 log d), the median vote):

(clients) exact recovery against the number of clients, 10 to 10,000, with
    10 and 30 samples per client (both below d + 4: the marginal test);
(samples) against the samples per client, 6 to 200, with 100 and 1,000
    clients (the OLS t-test from n_i = d + 4 = 54 on).

Curves of (a) and (b) stop after two consecutive points at probability 1
(the grids increase samples or clients); only measured points are written.

lambda: every run uses the same fixed lambda, half the smallest population
statistic on the support, ``min_i sigma_i^2 min_j |w*_j| / 2`` (the
generator's variance and coefficient ranges give 0.8 / 2 = 0.4); the
paper's theory puts lambda between the noise level and the signal, and a
client cannot compute it (see ``alpha="auto"`` for a local rule).

Writes ``<out>/support_phase_transition.json`` (every curve, with the
settings) and ``<out>/support_phase_transition.png``.

    python benchmarks/support_phase_transition.py            # ~ 30 minutes, 2 cores
    python benchmarks/support_phase_transition.py --only CS  # the defaults only
    python benchmarks/support_phase_transition.py --full     # the paper's grids (hours)

Moved from the user guide (doc/user_guide/support.rst, 2026-11-28; the
guide keeps the current results): the measurements and history below,
as they stood there.

Phase transitions at the defaults (``vote="auto"``, 7 sign controls at
10 samples; exact recovery, ``d = 50``, ``s = 5``, 5 problems per point,
the problems differing from point to point; 2026-11-28, load average
about 13), beside the selection vote on the same arrays::

    python benchmarks/support_phase_transition.py --only C --runs 5 --n-jobs 1

==========================  ==============================  ==============================
against clients             10 / 30 / 100 / 300 / 1k /      selection vote
                            3k / 10k (defaults)
==========================  ==============================  ==============================
independent, n_i = 10       0 / 0 / 0 / 0 / .8 / 1 / 1      0 / 0 / 0 / 0 / 1 / 1 / 1
independent, n_i = 30       0 / 1 / 1 / 1 / 1 / 1 / 1       (the same)
Toeplitz, n_i = 10          0 / 0 / 0 / 0 / .8 / 1 / 1      0 / 0 / 0 / 0 / 1 / 1 / 1
Toeplitz, n_i = 30          0 / .8 / 1 / 1 / 1 / 1 / 1      (the same)
heterogeneous, n_i = 10     0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / .8 / 1 / 1
heterogeneous, n_i = 30     0 / 1 / 1 / 1 / 1 / 1 / 1       (the same)
equicorrelated, n_i = 10    0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / .2 / 1 / 1
equicorrelated, n_i = 30    0 / 1 / 1 / .8 / 1 / 1 / 1      (the same)
block, n_i = 10             0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / .6 / 1 / 1
block, n_i = 30             0 / .8 / 1 / 1 / 1 / 1 / 1      (the same)
==========================  ==============================  ==============================

At 10 samples the defaults send signs from 1,000 clients on: exact from
3,000 on every design; at 1,000 clients 4 of 5 on independent and
Toeplitz (the selection vote 5 of 5: a seventh control costs the sign
vote some power there, the weakest support feature's sign fraction
moving 10-20 % closer to the median in the simulation), 5 of 5 on the
other three, where the selection vote reaches 0.2-0.8.  Every curve is
non-decreasing except equicorrelated ``n_i = 30`` at 300 clients (the
selection vote's; different problems at each point).

The same with 6 controls (``vote="auto"``, 2026-11-27, load average
10-11; ``--vote auto`` then, the default being the selection vote)::

    python benchmarks/support_phase_transition.py --only C --runs 5 --n-jobs 1 --vote auto

The run was made before the 10-sample bound of ``"auto"``, when it sent
signs for every client below ``d + 4`` samples: the ``n_i = 10`` rows are
``"auto"``'s, and at ``n_i = 30`` ``"auto"`` is the selection vote's
column (the default), the signs' column showing why the bound (today
``--vote sign`` gives that column from 1,000 clients on; below, the run
sent selection bits).

==========================  ==============================  ==============================  ==============================
against clients             10 / 30 / 100 / 300 / 1k /      selection vote                  signs for every small client
                            3k / 10k (``"auto"``)
==========================  ==============================  ==============================  ==============================
independent, n_i = 10       0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / 1 / 1 / 1       (the same)
independent, n_i = 30       0 / 1 / 1 / 1 / 1 / 1 / 1       (the same)                      0 / 1 / 1 / 1 / 1 / 1 / 1
Toeplitz, n_i = 10          0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / 1 / 1 / 1       (the same)
Toeplitz, n_i = 30          0 / .8 / 1 / 1 / 1 / 1 / 1      (the same)                      0 / .8 / 1 / 1 / 1 / 1 / **.2**
heterogeneous, n_i = 10     0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / .8 / 1 / 1      (the same)
heterogeneous, n_i = 30     0 / 1 / 1 / 1 / 1 / 1 / 1       (the same)                      0 / 1 / 1 / 1 / 1 / **.8 / .8**
equicorrelated, n_i = 10    0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / .2 / 1 / 1      (the same)
equicorrelated, n_i = 30    0 / 1 / 1 / .8 / 1 / 1 / 1      (the same)                      0 / 1 / 1 / .8 / 1 / 1 / 1
block, n_i = 10             0 / 0 / 0 / 0 / 1 / 1 / 1       0 / 0 / 0 / 0 / .6 / 1 / 1      (the same)
block, n_i = 30             0 / .8 / 1 / 1 / 1 / 1 / 1      (the same)                      0 / .8 / 1 / 1 / 1 / 1 / 1
==========================  ==============================  ==============================  ==============================

At 10 samples ``"auto"``'s signs are exact from 1,000 clients on every
design, where the selection vote reaches 0.2-0.8 there on three; below
1,000 clients ``"auto"`` is the selection vote.  The former
thresholds (``sqrt(2 log d)`` per client, the median vote) recover
nothing on any row.  Every curve of ``"auto"`` is non-decreasing
except equicorrelated ``n_i = 30`` at 300 clients (4 of 5, where 100
and 1,000 clients are 5 of 5: different problems at each point, the same
in both columns).

Against the samples per client (6 / 10 / 20 / 30 / 54 / 80 / 120 / 200,
100 and 1,000 clients; ``python benchmarks/support_phase_transition.py
--only S --runs 5 --n-jobs 1 --vote auto``, 2026-11-27, with the 10-sample
bound, before the 9-sample lower bound and with 6 controls; today it
sends signs at 10 samples only) ``"auto"`` sent signs only at 1,000 clients of 6 and 10 samples:
0 / 1 on independent, Toeplitz, heterogeneous and block, 0.4 / 1 on
equicorrelated, against the selection vote's 0 / 1, 0 / 0.6, 0 / 1, 0 /
0.8 and 0 / 0.8; every other point is the selection vote's (1 from 20
samples on, both client counts, every design).

Phase transitions of the selection vote (the default until 2026-11-28;
exact recovery, ``d = 50``, ``s = 5``;
the problems differ from point to point; 5 problems per point, measured
2026-11-27 at a load average of about 15), beside the former small-client
rule (the gate at 0.5, one control per 4 samples) at the same
``rogue_tolerance="auto"``, and before it at 0.1 (10 problems)::

    python benchmarks/support_phase_transition.py --only C --runs 5 --n-jobs 1 --vote selection

=======================  ============================  ============================  ============================
against clients          10 / 30 / 100 / 300 / 1k /    former rule                   at 0.1 (before "auto")
                         3k / 10k (selection)
=======================  ============================  ============================  ============================
independent, n_i = 10    0 / 0 / 0 / 0 / 1 / 1 / 1     0 / 0 / .8 / 1 / 1 / 1 / 1    0 / 0 / .4 / 1 / 1 / 1 / 1
independent, n_i = 30    0 / 1 / 1 / 1 / 1 / 1 / 1     0 / 1 / 1 / 1 / 1 / 1 / 1     .1 / 1 / 1 / 1 / 1 / 1 / 1
heterogeneous, n_i = 10  0 / 0 / 0 / 0 / .8 / 1 / 1    0 / 0 / .6 / 1 / 1 / 1 / .6   0 / 0 / 0 / 1 / 1 / 1 / 1
heterogeneous, n_i = 30  0 / 1 / 1 / 1 / 1 / 1 / 1     0 / 1 / 1 / 1 / 1 / 1 / 1     0 / 1 / 1 / 1 / 1 / 1 / 1
Toeplitz, n_i = 10       0 / 0 / 0 / 0 / 1 / 1 / 1     0 / 0 / 0 / .2 / .8 / .8 / 1  0 / 0 / 0 / 0 / .1 / 1 / .8
Toeplitz, n_i = 30       0 / .8 / 1 / 1 / 1 / 1 / 1    0 / .8 / 1 / 1 / 1 / 1 / 1    0 / .6 / 1 / 1 / 1 / 1 / 1
=======================  ============================  ============================  ============================

The former default's thresholds (``sqrt(2 log d)`` per client, the median
vote) recover nothing on any of these rows.  Every curve of the selection vote
is non-decreasing in the number of clients and exact at 10,000.  The
former rule was not: at 10,000 heterogeneous clients of 10 samples 2 of
the 5 problems added one feature outside the support, selected at 0.356
against the reference 0.331 (a feature between two support features,
selected at 0.39 by the clients that the gate sent to the marginal test);
without the gate it is selected at 0.32, under the reference.  The price
shows at 100-300 independent clients of 10 samples, where the marginal
test (which the gate gave to 69 % of them) was exact and the controls need
1,000 clients.
On the 20 problems at 3,000 and 10,000 clients of 10 samples (heterogeneous
and Toeplitz), with the former rule, the tolerance 0 / 0.01 / 0.02 / 0.03 / 0.05 / 0.075 / 0.1
recovered 13 / 14 / 17 / 17 / 20 / 20 / 19 exactly::

    python benchmarks/support_rogue_auto_pt.py --runs 5

So the choice of 0.02 for clients below ``d + 4`` samples (made with the
former rule, and kept: the rule without the gate puts no feature outside
the support above 0.331 on the problems measured above) is a trade:
over these 20 problems and the 24 correlated ones of the table above
(plus Toeplitz 1000/10, 3 problems, and heterogeneous 1000/10, 2), 0.02
recovers 41 of 49 exactly, against 41 for 0.05, 42 for 0.075 and 39 for
0.1, but its misses are single features
(F1 0.86-0.95 on a problem), while 0.075 and 0.1 lose much of a dense
correlated support (Toeplitz 20/10 F1 0.46-0.67, Toeplitz 1000/10 F1 0)
and the two probes of "When not to use it" (AR(1) ``rho = 0.8`` and tiny
clients), which 0.02 recovers.  No tolerance recovered every problem with
the former client rule: the features outside the support that a small
client selected above ``q0`` (0.336-0.370 here) and the weakest support
features of a dense correlated model (0.330-0.35) overlapped; without the
gate the first stay under 0.331 and only the second remain.
Against the samples per client (6 / 10 / 20 / 30 / 54 / 80 / 120 / 200;
``d = 50``, 5 problems per point, at the defaults ``vote="auto"``,
2026-11-28, load average about 12)::

    python benchmarks/support_phase_transition.py --only S --runs 5 --n-jobs 1

with 100 clients (the selection vote), every design 0 / 0 / 1 from 20
samples on; with 1,000 clients every design 0 / x / 1 from 20 samples
on, where x, at 10 samples (the sign vote), is .6 / 1 / .8 / 1 / 1 on
independent / Toeplitz / heterogeneous / equicorrelated / block against
the selection vote's 1 / .6 / 1 / .8 / .8 on the same arrays (the
run with 6 controls and the selection vote as the default, 2026-11-27:
independent and heterogeneous 0 / 1 from 10 samples on, Toeplitz 0 /
.6 / 1).  At 1,000 clients of 10 samples the sign vote thus trades some
power on independent designs for the correlated ones; from 3,000 clients
both are exact on every design (clients table above).  The former thresholds reach 1 only from 80
samples.  Every measured curve is non-decreasing in the samples per
client.  Against the former small-client rule (at ``rogue_tolerance=0.1``,
10 problems: 100 clients independent 0 / .6 / 1 from 20, Toeplitz 0 / 0 /
.8 / 1 from 30, heterogeneous 0 / .1 / 1 from 20; 1,000 clients
independent 1 from 6 samples, Toeplitz 0 / .2 / 1 from 20,
heterogeneous .6 / 1 from 10) the controls gain on Toeplitz (1 from 20
samples with 100 clients, .6 at 10 with 1,000) and cost the independent
design its smallest clients: at 6 samples (one control, 3 residual
degrees of freedom) 1,000 clients recover nothing, and at 10 samples 100
clients no longer do (.6 before).

Held-out families at ``n_i = 30`` (``d = 50``; 3 problems per point;
exact recovery, F1 in parentheses when not 1; equicorrelated: every pair
of features correlated 0.3, 5 support features; block: 10 blocks of 5
features correlated 0.6, one support feature in 5 of them; 3 noise sd)::

    python benchmarks/support_held_out.py --families equicorrelated block \\
        --samples 30 --clients 30 100 300 1000 3000 --runs 3

=========================  ===========  ======  ======  ======  ======  ====
family, samples a client   30           100     300     1,000   3,000   lost
=========================  ===========  ======  ======  ======  ======  ====
equicorrelated, n_i = 30   1            1       1       1       1       0
block, n_i = 30            .67 (0.92)   1       1       1       1       0
=========================  ===========  ======  ======  ======  ======  ====

The same as before the gate (these designs are correlated enough for
nearly every client to use its controls: 1,499 of 1,500 equicorrelated
20-sample clients in the tests); with the marginal test they were never
exact (F1 falling from 0.58 to 0.17, and from 0.50 to 0.33).
"""

import argparse
import json
import math
import platform
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from skfed import DifferentialPrivacy, FederatedSupportRecovery, SimulatedNetwork
from skfed.datasets import make_federated_sparse_regression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support_vs_pooled import DESIGNS, make_design  # noqa: E402

# The generator's settings for every experiment: heterogeneous clients.
DATA = dict(
    coef_range=(1.0, 1.5),
    variance_range=(0.8, 1.25),
    correlation=(0.0, 0.1),
    covariance="toeplitz",
    noise_range=(0.1, 0.5),
    sample_size_spread=0.0,
)
LAMBDA = 0.5 * DATA["variance_range"][0] * DATA["coef_range"][0]


def one_run(d, s, n_clients, n_samples, seed, alphas, network=None, privacy=None):
    """Exact recovery (bool) of each alpha on one generated problem."""
    X, y, groups, support, _ = make_federated_sparse_regression(
        n_clients=n_clients, n_samples=n_samples, n_features=d, n_informative=s,
        random_state=seed, **DATA,
    )
    out = []
    for alpha in alphas:
        sel = FederatedSupportRecovery(
            alpha, fit_intercept=False, network=network, privacy=privacy, random_state=seed
        )
        with warnings.catch_warnings():
            # At high drop rates nobody may answer: a failed run, not news.
            warnings.filterwarnings("ignore", message="No client answered")
            sel.fit(X, y, groups=groups)
        out.append(bool(np.array_equal(sel.support_, support)))
    return out


def curve(points, runs, alphas, n_jobs, seed0, network_of=None, stop_after=None,
          privacy=None):
    """Recovery probability at every point (dicts with d, s, g, n_i).

    Points are run in order; with ``stop_after=k`` the curve stops once
    every alpha recovered the support in all runs of k consecutive points
    (the grids increase the samples or clients, so the rest of the curve
    is at 1; only measured points are returned).
    """
    probs = []
    streak = 0
    for p, point in enumerate(points):
        network = network_of(point) if network_of else None
        jobs = [
            delayed(one_run)(point["d"], point["s"], point["g"], point["n_i"],
                             seed0 + 1000 * p + r, alphas, network, privacy)
            for r in range(runs)
        ]
        prob = np.array(Parallel(n_jobs=n_jobs)(jobs), dtype=float).mean(axis=0)
        probs.append(prob)
        streak = streak + 1 if np.all(prob == 1.0) else 0
        if stop_after and streak >= stop_after:
            break
    return np.array(probs)  # (n_measured_points, n_alphas)


def experiment_a(C_grid, dims, runs, n_jobs):
    s = 3
    out = {"s": s, "curves": {}}
    for d in dims:
        g = math.ceil(2 * math.log(d))
        points = [
            {"d": d, "s": s, "g": g, "n_i": max(2, round(10**C * s * s * math.log(s)))}
            for C in C_grid
        ]
        t0 = time.perf_counter()
        prob = curve(points, runs, [LAMBDA, "auto"], n_jobs, seed0=d * 100_000, stop_after=2)
        k = len(prob)
        out["curves"][str(d)] = {
            "g": g,
            "C": list(C_grid[:k]),
            "n_i": [p["n_i"] for p in points[:k]],
            "fixed_lambda": prob[:, 0].tolist(),
            "auto": prob[:, 1].tolist(),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        print(f"(a) d={d} g={g}: fixed {np.round(prob[:, 0], 2).tolist()} "
              f"auto {np.round(prob[:, 1], 2).tolist()}", flush=True)
    return out


def experiment_b(C_grid, sizes, runs, n_jobs, d=1000):
    out = {"d": d, "curves": {}}
    for s in sizes:
        n_i = max(30, round(s * s * math.log(s)))
        points = [
            {"d": d, "s": s, "g": max(1, round(10**C * math.log(d))), "n_i": n_i}
            for C in C_grid
        ]
        t0 = time.perf_counter()
        prob = curve(points, runs, [LAMBDA], n_jobs, seed0=s * 1_000_000, stop_after=2)
        k = len(prob)
        out["curves"][str(s)] = {
            "n_i": n_i,
            "C": list(C_grid[:k]),
            "g": [p["g"] for p in points[:k]],
            "fixed_lambda": prob[:, 0].tolist(),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        print(f"(b) s={s} n_i={n_i}: {np.round(prob[:, 0], 2).tolist()}", flush=True)
    return out


def experiment_c(fractions, drops, runs, n_jobs, C_values, d=1000, s=3, g=20):
    out = {"d": d, "s": s, "g": g, "rogue_fraction": list(fractions),
           "drop_rate": list(drops), "rogue": {}, "drop": {}}
    for C in C_values:
        n_i = round(10**C * s * s * math.log(s))
        for behavior in ("complement", "random"):
            points = [{"d": d, "s": s, "g": g, "n_i": n_i, "beta": b} for b in fractions]
            prob = curve(
                points, runs, [LAMBDA], n_jobs, seed0=7_000_000,
                network_of=lambda p, behavior=behavior: SimulatedNetwork(
                    rogue_fraction=p["beta"], rogue_behavior=behavior),
            )
            out["rogue"][f"{behavior}, n_i={n_i}"] = prob[:, 0].tolist()
            print(f"(c) rogue {behavior} n_i={n_i}: {np.round(prob[:, 0], 2).tolist()}",
                  flush=True)
        points = [{"d": d, "s": s, "g": g, "n_i": n_i, "drop": p} for p in drops]
        prob = curve(points, runs, [LAMBDA], n_jobs, seed0=8_000_000,
                     network_of=lambda p: SimulatedNetwork(drop_rate=p["drop"]))
        out["drop"][f"n_i={n_i}"] = prob[:, 0].tolist()
        print(f"(c) drops n_i={n_i}: {np.round(prob[:, 0], 2).tolist()}", flush=True)
    return out


def experiment_d(epsilons, client_grid, runs, n_jobs, d=50, s=3, C=1.5):
    n_i = round(10**C * s * s * math.log(s))
    out = {"d": d, "s": s, "n_i": n_i, "delta": 0.0, "g": list(client_grid), "curves": {}}
    for eps in epsilons:
        privacy = None if eps is None else DifferentialPrivacy(epsilon=eps, delta=0.0)
        points = [{"d": d, "s": s, "g": g, "n_i": n_i} for g in client_grid]
        prob = curve(points, runs, [LAMBDA], n_jobs, seed0=9_000_000, stop_after=2,
                     privacy=privacy)
        name = "no privacy" if eps is None else f"epsilon={eps:g}"
        factor = 1.0 if eps is None else 1.0 / math.tanh(eps / (2 * d)) ** 2
        out["curves"][name] = {
            "g": list(client_grid[: len(prob)]),
            "fixed_lambda": prob[:, 0].tolist(),
            "predicted_client_factor": factor,
        }
        print(f"(d) {name} (clients x{factor:.0f} by the Hoeffding bound): "
              f"{np.round(prob[:, 0], 2).tolist()} at g={client_grid[: len(prob)]}",
              flush=True)
    return out


def default_run(design, g, n, d, s, seed, vote=None):
    """Exact recovery (bool) of the defaults (with ``vote`` when given), of
    ``vote="selection"`` and of the former thresholds."""
    X, y, groups, _, _, _, support = make_design(design, g, n, d, s, seed)
    out = []
    for params in ({} if vote is None else {"vote": vote}, {"vote": "selection"},
                   {"auto_z": math.sqrt(2 * math.log(d)), "threshold": 0.5}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            sel = FederatedSupportRecovery(**params).fit(X, y, groups=groups)
        out.append(bool(np.array_equal(sel.support_, support)))
    return out


# --vote: the "defaults" column with this vote= (e.g. "auto"; None: the default)
DEFAULTS_VOTE = None


def _default_curve(design, points, runs, n_jobs, d, s, seed0):
    jobs = [delayed(default_run)(design, g, n, d, s, seed0 + 1000 * p + r, DEFAULTS_VOTE)
            for p, (g, n) in enumerate(points) for r in range(runs)]
    hits = np.array(Parallel(n_jobs=n_jobs)(jobs), dtype=float).reshape(len(points), runs, 3)
    return hits.mean(axis=1)


def experiment_clients(client_grid, samples, runs, n_jobs, d=50, s=5, designs=DESIGNS):
    out = {"d": d, "s": s, "x": list(client_grid), "xlabel": "clients", "curves": {}}
    for design in designs:
        for n in samples:
            t0 = time.perf_counter()
            prob = _default_curve(design, [(g, n) for g in client_grid], runs, n_jobs, d, s,
                                  seed0=zlib.crc32(f"{design} {n}".encode()) % 100_000 * 1000)
            out["curves"][f"{design} n_i={n}"] = {
                "defaults": prob[:, 0].tolist(), "selection": prob[:, 1].tolist(),
                "former": prob[:, 2].tolist(), "seconds": round(time.perf_counter() - t0, 1)}
            print(f"(clients) {design} n_i={n}: defaults {np.round(prob[:, 0], 2).tolist()} "
                  f"selection {np.round(prob[:, 1], 2).tolist()} "
                  f"former {np.round(prob[:, 2], 2).tolist()}", flush=True)
    return out


def experiment_samples(sample_grid, clients, runs, n_jobs, d=50, s=5, designs=DESIGNS):
    out = {"d": d, "s": s, "x": list(sample_grid), "xlabel": "samples per client",
           "curves": {}}
    for design in designs:
        for g in clients:
            t0 = time.perf_counter()
            prob = _default_curve(design, [(g, n) for n in sample_grid], runs, n_jobs, d, s,
                                  seed0=zlib.crc32(f"{design} g{g}".encode()) % 100_000 * 1000)
            out["curves"][f"{design} g={g}"] = {
                "defaults": prob[:, 0].tolist(), "selection": prob[:, 1].tolist(),
                "former": prob[:, 2].tolist(), "seconds": round(time.perf_counter() - t0, 1)}
            print(f"(samples) {design} g={g}: defaults {np.round(prob[:, 0], 2).tolist()} "
                  f"selection {np.round(prob[:, 1], 2).tolist()} "
                  f"former {np.round(prob[:, 2], 2).tolist()}", flush=True)
    return out


def plot_defaults(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skfed.plotting import PhaseTransitionDisplay

    keys = [k for k in ("clients", "samples") if k in results]
    fig, axes = plt.subplots(1, len(keys), figsize=(7 * len(keys), 4.5), squeeze=False)
    for ax, key in zip(axes[0], keys):
        PhaseTransitionDisplay.from_json(results, experiment=key, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 5, figsize=(25, 4.2))
    a = results["a"]
    for d, c in a["curves"].items():
        line = axes[0].plot(c["C"], c["fixed_lambda"], marker="o", label=f"d={d}, g={c['g']}")
        axes[0].plot(c["C"], c["auto"], marker="x", ls="--", color=line[0].get_color(),
                     label=f"d={d}, alpha='auto'")
    axes[0].set(xlabel=r"C  ($n_i = 10^C s^2 \log s$, s = 3)",
                ylabel="P(exact support recovery)", title="(a) samples per client")
    b = results["b"]
    for s, c in b["curves"].items():
        axes[1].plot(c["C"], c["fixed_lambda"], marker="o", label=f"s={s}, n_i={c['n_i']}")
    axes[1].set(xlabel=r"C  ($g = 10^C \log d$, d = 1000)", title="(b) number of clients")
    c = results["c"]
    for name, prob in c["rogue"].items():
        axes[2].plot(c["rogue_fraction"], prob, marker="o", label=name)
    axes[2].set(xlabel="rogue fraction", title=f"(c) rogue clients (g={c['g']}, d={c['d']})")
    for name, prob in c["drop"].items():
        axes[3].plot(c["drop_rate"], prob, marker="o", label=name)
    axes[3].set(xlabel="drop rate", title=f"(c) dropped clients (g={c['g']}, d={c['d']})")
    p = results["d"]
    for name, c in p["curves"].items():
        axes[4].plot(c["g"], c["fixed_lambda"], marker="o", label=name)
    axes[4].set(xscale="log", xlabel="clients g",
                title=f"(d) randomized response (d={p['d']}, n_i={p['n_i']})")
    for ax in axes:
        ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", action="store_true",
                        help="the paper's grids: s = 10, 20, 40, 50 in (b), finer C grids")
    parser.add_argument("--runs", type=int, default=30, help="problems per point")
    parser.add_argument("--n-jobs", type=int, default=2, help="processes over runs")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    parser.add_argument("--only", default="abcdCS",
                        help="which experiments, e.g. 'a' or 'bd'; C: the defaults against "
                             "clients, S: against samples per client")
    parser.add_argument("--vote", default=None, choices=["auto", "selection", "sign"],
                        help="C and S: run the 'defaults' column with this vote=")
    args = parser.parse_args(argv)
    global DEFAULTS_VOTE
    DEFAULTS_VOTE = args.vote

    if args.full:
        C_a = np.round(np.arange(0.0, 2.01, 0.0625), 4).tolist()
        C_b = np.round(np.arange(-1.0, 1.01, 0.125), 3).tolist()
        sizes = (10, 20, 40, 50)
        fractions = np.round(np.arange(0, 0.451, 0.05), 2).tolist()
        drops = np.round(np.arange(0, 0.91, 0.1), 2).tolist()
        C_c = (1.25, 1.5)
        clients = [3, 10, 30, 100, 300, 1000, 3000, 10000, 30000]
    else:
        C_a = [0.25, 0.5, 0.625, 0.75, 0.8125, 0.875, 0.9375, 1.0, 1.125, 1.25, 1.5]
        C_b = [-0.5, -0.25, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 1.0]
        sizes = (10, 20)
        fractions = [0.0, 0.1, 0.2, 0.3, 0.4, 0.45]
        drops = [0.0, 0.3, 0.5, 0.7, 0.9]
        C_c = (1.5,)
        clients = [3, 10, 30, 100, 300, 1000, 3000, 10000]

    t0 = time.perf_counter()
    results = {
        "settings": {
            "runs": args.runs, "lambda": LAMBDA, "generator": DATA,
            "fit_intercept": False, "threshold": 0.5, "full": args.full,
            "python": platform.python_version(), "defaults_vote": args.vote,
        }
    }
    if "a" in args.only:
        results["a"] = experiment_a(C_a, (500, 1000, 2000), args.runs, args.n_jobs)
    if "b" in args.only:
        results["b"] = experiment_b(C_b, sizes, args.runs, args.n_jobs)
    if "c" in args.only:
        results["c"] = experiment_c(fractions, drops, args.runs, args.n_jobs, C_c)
    if "d" in args.only:
        results["d"] = experiment_d([None, 20.0, 10.0, 5.0, 2.0], clients, args.runs,
                                    args.n_jobs)
    if "C" in args.only:
        results["clients"] = experiment_clients(
            [10, 30, 100, 300, 1000, 3000, 10000], (10, 30), args.runs, args.n_jobs)
    if "S" in args.only:
        results["samples"] = experiment_samples(
            [6, 10, 20, 30, 54, 80, 120, 200], (100, 1000), args.runs, args.n_jobs)
    results["settings"]["seconds"] = round(time.perf_counter() - t0, 1)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.only == "abcdCS" else f"_{args.only}"
    json_path = out / f"support_phase_transition{suffix}.json"
    json_path.write_text(json.dumps(results, indent=1))
    try:
        if all(k in results for k in "abcd"):
            plot(results, out / "support_phase_transition.png")
        if "clients" in results or "samples" in results:
            plot_defaults(results, out / f"support_phase_transition_defaults{suffix}.png")
    except ImportError:
        print("matplotlib is not installed: no figure")
    print(json.dumps({"json": str(json_path), "seconds": results["settings"]["seconds"]}))


if __name__ == "__main__":
    main()
