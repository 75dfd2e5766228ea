"""How far from the median does the sign vote's most biased feature outside
the support sit, for a given control rule and client size?  A NumPy
simulation (the designs and clients of ``support_one_bit_rules.py``).

Each client regresses ``y`` on ``[x_j, x_C]`` and sends the sign of
``x_j``'s coefficient; ``C`` holds ``K`` features chosen by the rule:

* ``closest/K`` -- the ``K`` most correlated with ``x_j`` in the client's
  rows (the estimator's rule);
* ``prod/K`` -- the ``K`` largest ``|r(x_j, x_l)| |r(x_l, y)|`` (the
  omitted-variable bias a control would remove);
* ``ycorr/K`` -- the ``K`` most correlated with ``y``;
* ``mixA/K`` -- ``A`` closest, the rest by ``prod``.

Printed per problem (``design:d:s:seed``) and rule: the median of the
``d`` sign fractions, the feature outside the support farthest from it and
its distance, and the support feature nearest to it.  As clients are
added the sign vote's band tends to ``median +- 0.05`` (the rogue
tolerance), so a distance near 0.05 outside the support is selected with
enough clients::

    python benchmarks/support_sign_controls.py --clients 50000 --samples 10 \\
        --rules closest/6 closest/7 closest/8 prod/6 prod/7 mix5/7 \\
        --problems toeplitz:20:3:0 toeplitz:20:3:2 toeplitz:50:5:0

Measured 2026-11-28 (50,000 clients of 10 samples; farthest outside /
weakest support):

* Toeplitz 20/3 seeds 0-4: ``closest/6`` 0.029 / 0.040 / 0.047 / 0.043 /
  0.024 (support 0.29-0.33); ``closest/7`` 0.024 / 0.030 / 0.037 / 0.025
  / 0.021 (0.25-0.29); ``closest/8`` 0.010-0.020 (0.19); ``prod/6`` 0.033
  / 0.039 / 0.034 on seeds 0-2 (not better everywhere); ``mix5/7`` 0.035
  / 0.022 / 0.017 on seeds 2 / 3 / 4 (support 0.28-0.30).
* Toeplitz 50/5 seeds 0 / 2: ``closest/6`` 0.046 / 0.045 (support 0.16);
  ``closest/7`` 0.031 / 0.027 (0.13); ``closest/8`` 0.018 / 0.019 (0.08,
  too close to the band); ``mix5/7`` 0.015 / 0.023 (0.10).
* Toeplitz 20/10 seeds 0 / 1: ``closest/6`` 0.026 / 0.025, ``closest/7``
  0.021 / 0.021; heterogeneous, equicorrelated, block, independent:
  0.003-0.023 for every rule.

So the estimator uses ``closest/7`` at 10 samples (``SIGN_CONTROLS``).
Smaller clients (``--samples 9 / 8 / 6``, ``closest/K`` with ``K = n -
3``, the most they can use) on Toeplitz 20/3 seeds 0-3, 20/10 seed 1 and
50/5 seed 0: 9 samples 0.018-0.040, 8 samples 0.017-0.047, 6 samples
0.026-0.068 (Toeplitz 20/3 seed 3 and 50/5 beyond 0.05): ``vote="auto"``
sends signs only for clients of 9-10 samples (``SIGN_MIN_SAMPLES``).

Wide clients (d = 1,000, 10 samples; issue 29's remaining miss).
``--coverage K`` fits only the features next to the support (so d = 1000
is cheap) and prints, per rule, ``covered / neighbour / support``: how
often the support feature is among its neighbour's ``K`` controls, the
neighbour's largest sign-fraction distance from 1/2 and the support's
smallest::

    python benchmarks/support_sign_controls.py --coverage 7 --clients 10000 --samples 10 \
        --problems toeplitz:1000:10:1 toeplitz:1000:10:0 toeplitz:1000:3:1 toeplitz:1000:5:2 \
        heterogeneous:1000:10:1 independent:1000:10:0 toeplitz:200:5:0 toeplitz:20:3:2

Measured 2026-11-28 (10,000 clients, K = 7; covered / neighbour /
support):

=======================  ===================  ===================  ===================  =============
problem                  closest              prod                 ycorr                marginal
=======================  ===================  ===================  ===================  =============
toeplitz 1000/10 seed 1  0.093 / .029 / .038  0.091 / .140 / .180  0.028 / .029 / .034  .189 / .262
toeplitz 1000/10 seed 0  0.094 / .028 / .035  0.091 / .133 / .219  0.027 / .028 / .046  .189 / .323
toeplitz 1000/3 seed 1   0.093 / .041 / .097  0.229 / .219 / .261  0.140 / .049 / .116  .303 / .467
toeplitz 1000/5 seed 2   0.095 / .030 / .062  0.151 / .180 / .261  0.062 / .037 / .075  .250 / .410
heterog. 1000/10 seed 1  0.029 / .020 / .042  0.039 / .075 / .209  0.028 / .025 / .040  .098 / .304
independ. 1000/10 s. 0   0.007 / .010 / .035  0.017 / .010 / .221  0.028 / .009 / .047  .010 / .322
toeplitz 200/5 seed 0    0.257 / .040 / .091  0.333 / .125 / .139  0.183 / .046 / .117  .252 / .408
toeplitz 20/3 seed 2     0.731 / .032 / .277  0.780 / .021 / .285  0.706 / .060 / .347  .325 / .422
=======================  ===================  ===================  ===================  =============

At d = 1000 no rule built from a client's 10 rows finds the neighbour's
support feature: 10 rows give sample correlations of sd ~1/3, so about
140 of 999 chance correlations beat the true 0.5 and the support feature
is among the 7 controls for 3-23 % of the clients (71-78 % at d = 20).
The controls then do not remove the neighbour's bias, they shrink every
coefficient alike: ``closest/7`` (the estimator's rule, chance features
nearly collinear with ``x_j``) leaves the support only 0.035-0.038 from
1/2 at s = 10 (inside the band of +-0.05, hence F1 0), ``prod`` and
``ycorr`` keep the neighbour/support ratio of the marginal test
(0.6-0.85) but at the marginal test's scale, which puts the neighbours
far outside the band.  With s = 3-5 the support stands farther out (0.06-
0.10 under ``closest/7``) and the sign vote is exact: Toeplitz 1000/3
seeds 0 / 1 / 2 through the estimator, weakest support 0.404 / 0.400 /
0.407 against the band 0.450-0.550, where the selection vote (the default
there) adds a neighbour on seeds 0 and 2 (637 of 636 at 0.351, 262 of 261
at 0.350, against the reference 0.331): the default misses Toeplitz
1000/3 too (seed 0 of the heterogeneous and independent designs: both
votes exact, the selection vote's strongest outside 0.346 (637, next to
636) / 0.334 above its reference, the sign vote's 0.024 / 0.018 inside
its band).  Fewer controls do not help (``--coverage 3`` / ``5``,
Toeplitz 1000/10 seed 1 and 1000/3 seed 1): ``closest/3`` 0.057 / 0.083
and 0.100 / 0.216, ``closest/5`` 0.043 / 0.057 and 0.065 / 0.152
(neighbour / support), so the neighbours of a 3-sparse support leave the
band before a 10-sparse support enters it; ``ycorr`` is the same within
0.02.

The selection vote's own miss (``support_wide_fractions.py``): Toeplitz
1000/10 seed 1 loses 944 and 946, two apart with opposite signs (their
correlation 0.25 cancels a quarter of each marginal signal), voted 0.338
/ 0.334 against the reference 0.331 (p 0.061 / 0.24 > fwer / d), while the
neighbour 750 of 749 sits at 0.335, above the reference: the weakest
support is below the strongest feature outside, so no threshold on these
fractions is exact, and more clients would add 750.  Seeds 0 / 2 are
exact with the strongest outside 0.3327 / 0.3326 (812, next to 813 / 569,
far from the support).
The wide clients' two chance controls cost the power, not the
neighbours: the marginal test for every wide client (``--wide-marginal``)
lifts the support to 0.43-0.52 and its neighbours to 0.35-0.38 (17 / 20
false positives on seeds 1 / 0), and on the heterogeneous design keeps
seeds 0 / 1 exact at 10,000 clients with neighbours at 0.342 / 0.343
already above the reference (0.4-0.42 / 0.333 under the gate).

So neither vote nor any client rule measured here is exact on both
Toeplitz 1000/3 and 1000/10: the separation at d = 1000 comes only from
strength (neighbours at 0.6-0.85 of the support's distance), which a fixed
margin (band or reference) places right for one sparsity and wrong for the
other.  Nothing adopted; the next lever would be a server rule that uses
the ratio (a feature is kept only when it beats its correlated features'
votes), which needs the neighbours known to the server.

Moved from the user guide (doc/user_guide/support.rst, 2026-11-28; the
guide keeps the current results): the measurements and history below,
as they stood there.

Where ``vote="auto"`` keeps the selection vote:

* **wide clients**, ``d > 20 median(n_i)``: at ``d = 1000`` and 10
  samples a client's closest features are chance correlations among
  999; independent 1000/10 at 10,000 x 10 (seed 0, 6 controls): sign F1 0.33 (30 s
  of CPU), selection exact (6.7 s) (``python benchmarks/support_vs_pooled.py
  --designs independent --sizes 10000x10 --dims 1000:10 --seeds 0 --votes
  selection sign --peers-up-to 0``); Toeplitz 1000/10 (seed 0, 7
  controls, 2026-11-28; ``--designs toeplitz --sizes 10000x10 --dims
  1000:10 --seeds 0 --votes sign --peers-up-to 0``): sign F1 0 (every
  support feature inside the band, the weakest 0.007 short of it; 30 s
  of CPU), the selection vote 0.96 (table above).  Equicorrelated 1000/10, where the
  sign vote was exact and the selection vote not (above), is given up
  with it;
* **few clients** (under 1,000): a sign carries no magnitude, so even
  unanimous clients need ``log(2 d / fwer) / log(1 / (0.5 + beta))``
  of them (15 at ``d = 200``), against a handful for clients whose tests
  select a strong feature almost always (15 clients of 200 samples,
  ``d = 200``, are exact with the selection vote, ``tests/test_support.py``);
* **clients of more than 10 samples**: a feature next to a support
  feature whose controls miss a support feature correlated with it has a
  biased coefficient, and its sign fraction moves away from the median
  as a client's samples grow (about as ``sqrt(n_i)``).  At 10 samples,
  with 7 controls, it stays at least 0.012 inside the band on every
  problem measured from 10,000 to 1,000,000 clients ("Why the default
  changed" below); at 30 samples
  (``d = 50``, below ``d + 4``) the sign vote's phase transition, with
  6 controls, *fell* with more clients (with today's ``m - 4`` controls
  Toeplitz and heterogeneous 50/5, seeds 0-2, are exact up to 30,000
  clients, "Why the default changed" below): Toeplitz exact 5/5 at 3,000 clients, 1/5 at 10,000,
  heterogeneous 5/5 then 4/5 and 4/5, where the selection vote stays 5/5
  (``support_phase_transition.py --only C`` below, the run with signs for
  every small client), and the simulated population fractions put a
  Toeplitz 50/5 neighbour 0.001-0.007 outside the band (``python
  benchmarks/support_one_bit_rules.py --problems toeplitz:50:5 --seeds 0 1
  --n 30 --clients 20000 --rules sign:closest:6``, seeds 0 and 1).  At 1,000
  x 30 and ``d = 200`` the sign vote is still exact (table above), but its
  strongest feature outside the support is 0.008-0.033 beyond the band on
  Toeplitz, the same bias;
* **clients of fewer than 9 samples** (their median): they can afford
  fewer controls (``m - 2``), miss the support feature beside the tested
  one more often, and the bias reaches the band: in the simulation
  (``python benchmarks/support_sign_controls.py --samples S --rules
  closest/K`` with ``K = S - 3``; Toeplitz 20/3 seeds 0-3, 20/10 seed 1,
  50/5 seed 0; 50,000 clients) the farthest feature outside the support
  lies 0.018-0.040 from the median at 9 samples, 0.017-0.047 at 8 and
  0.026-0.068 at 6 (beyond the band's limit 0.05 on Toeplitz 20/3 seeds 0
  and 3 and on 50/5), against 0.021-0.037 at 10 samples with 7 controls;
* **clients of d + 4 samples or more**: both votes exact on every problem
  above, and the selection vote tolerates 0.1 rogue clients;
* **under privacy**: the clients do not send their sizes, so the server
  cannot tell small clients (``vote="sign"`` with privacy: below).


The sign vote now grows its controls with the client, up to the OLS
test's 3 residual degrees of freedom: ``max(6, m - 4)`` (25 at 30
samples, 6 still at 10; above).  In the simulation 19 controls
(``floor(2 m / 3)``, a first version) were not enough: on Toeplitz 50/5
seed 2 (support 5, 12, 14, 20, 38) the strongest feature outside the
support, between support features 14 and 20, is +0.028 beyond the median
band with 6 controls, +0.019 with 19 and -0.013 (inside) with 25, the
weakest support feature 0.40 / 0.36 / 0.28 beyond it (``python
benchmarks/support_one_bit_rules.py --problems toeplitz:50:5 --seeds 2
--n 30 --clients 20000 --rules sign:closest:6 sign:closest:19
sign:closest:25``).  With 19 controls the estimator added features 16
and 17 on that seed at 30,000 clients.  With 25, Toeplitz 50/5 at 30
samples, seeds 0-2: the farthest feature outside the support beyond the
sign band and above the selection vote's reference (2026-11-27, load
average about 11)::

    python benchmarks/support_many_clients.py --design toeplitz --dims 50:5 \\
        --samples 30 --seeds 2 0 1 --clients 3000 10000 30000

==========  =============================  =============================
seed        sign: 3k / 10k / 30k           selection: 3k / 10k / 30k
==========  =============================  =============================
0           -0.010 / -0.024 / -0.024       -0.020 / -0.026 / -0.021
1           -0.007 / -0.028 / -0.031       -0.023 / -0.023 / -0.026
2           +0.009 / -0.008 / -0.008       -0.018 / -0.013 / -0.024
==========  =============================  =============================

Every fit is exact under both votes (with 6 controls the phase transition
fell to 1 of 5 at 10,000 such clients, above).  Heterogeneous 50/5 (the
same command with ``--design heterogeneous --seeds 0 1 2``): every fit
exact, the farthest feature outside the support -0.023 to -0.040 inside
the sign band, -0.019 to -0.041 under the selection vote's reference.
Toeplitz 200/5 at 10,000 x 30, seed 0 (the command above, with ``--dims
200:5 --seeds 0 --clients 1000 10000``): the sign vote's farthest
feature outside the support is now 0.029 inside the band (0.005 outside
with 6 controls), the selection vote's 0.0004 above its reference; both
exact, 11.6 s against 2.5 s CPU.  Seed 2's neighbour stays
only 0.008 inside the band, against the selection vote's 0.024 under its
reference, and the sign vote's CPU at 30,000 x 30 is 6.7 s against 1.2 s
(25 controls per feature).  At 10 samples the clients now use 7
controls (above); ``"auto"`` keeps its 10-sample bound, since at 30
samples the sign vote's neighbour stays closer to its band than the
selection vote's to its reference.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support_one_bit_rules import clients, problem, t_given  # noqa: E402


def controls(rule, R, cs, yy, K):
    """The (B, d, K) control indices of ``rule`` (see the module docstring)."""
    B, d, _ = R.shape
    diag = (np.arange(d), np.arange(d))
    absR = np.abs(R)
    ry = np.abs(cs) / np.sqrt(yy)[:, None]
    if rule == "closest":
        score = absR.copy()
    elif rule == "prod":
        score = absR * ry[:, None, :]
    elif rule == "ycorr":
        score = np.broadcast_to(ry[:, None, :], (B, d, d)).copy()
    elif rule.startswith("mix"):
        a = int(rule[3:])
        first_score = absR.copy()
        first_score[:, diag[0], diag[1]] = -1.0
        first = np.argsort(-first_score, axis=2, kind="stable")[:, :, :a]
        score = absR * ry[:, None, :]
        np.put_along_axis(score, first, 10.0, axis=2)
    else:
        raise ValueError(f"unknown rule {rule!r}")
    score[:, diag[0], diag[1]] = -1.0
    return np.argsort(-score, axis=2, kind="stable")[:, :, :K]


def fractions(design, w, rule, K, n_clients, n, seed):
    """The fraction of clients sending 1 for each feature."""
    rng = np.random.default_rng([seed, 3])
    d = len(w)
    block = max(200, 4_000_000 // d ** 2)
    total = np.zeros(d)
    for lo in range(0, n_clients, block):
        X, y = clients(design, w, min(block, n_clients - lo), n, rng)
        B = X.shape[0]
        G = np.einsum("bni,bnj->bij", X, X)
        c = np.einsum("bni,bn->bi", X, y)
        yy = np.einsum("bn,bn->b", y, y)
        sd = np.sqrt(np.einsum("bii->bi", G))
        R = G / sd[:, :, None] / sd[:, None, :]
        cs = c / sd
        j = np.broadcast_to(np.arange(d)[None, :, None], (B, d, 1))
        A = np.concatenate([j, controls(rule, R, cs, yy, K)], axis=2)
        total += (t_given(R, cs, yy, A, 0) > 0).sum(axis=0)
    return total / n_clients


def _sign_given(X, y, j, C):
    """Per client, 1 when ``x_j``'s coefficient in ``y ~ x_j + x_C`` is
    positive (``X``, ``y`` centred; ``C`` of shape (B, K))."""
    xj, yy = X[:, :, j], y
    if C.shape[1]:
        Q, _ = np.linalg.qr(np.take_along_axis(X, C[:, None, :], axis=2))
        xj = xj - np.einsum("bnk,bk->bn", Q, np.einsum("bnk,bn->bk", Q, xj))
        yy = yy - np.einsum("bnk,bk->bn", Q, np.einsum("bnk,bn->bk", Q, yy))
    return np.einsum("bn,bn->b", xj, yy) > 0


def coverage(design, d, s, seed, n_clients, n, K):
    """Each rule's controls for the features next to the support.

    For every neighbour ``j = k +- 1`` outside the support of a support
    feature ``k`` (the Toeplitz designs' bias comes from them): how often
    ``k`` is among ``j``'s ``K`` controls, and the largest distance from
    1/2 of a neighbour's sign fraction (features far from the support sit
    at 1/2); for the support features the smallest such distance.  Only
    these ``O(s)`` features are fitted, so ``d = 1000`` is cheap.  Returns
    ``{rule: (covered, neighbour distance, support distance)}`` and the
    number of neighbours.
    """
    support, w = problem(design, d, s, seed)
    sup = np.flatnonzero(support)
    pairs = [(k + o, k) for k in sup for o in (-1, 1)
             if 0 <= k + o < d and not support[k + o]]
    rules = ("closest", "prod", "ycorr", "marginal")
    rng = np.random.default_rng([seed, 5])
    hits = dict.fromkeys(rules, 0)
    ones = {r: np.zeros(len(pairs) + len(sup)) for r in rules}
    total = 0
    for lo in range(0, n_clients, 200):
        X, y = clients(design, w, min(200, n_clients - lo), n, rng)
        Xs = X / np.linalg.norm(X, axis=1, keepdims=True)
        ys = y / np.linalg.norm(y, axis=1, keepdims=True)
        ry = np.abs(np.einsum("bnl,bn->bl", Xs, ys))
        for i, (j, k) in enumerate(pairs + [(k, None) for k in sup]):
            rj = np.abs(np.einsum("bnl,bn->bl", Xs, Xs[:, :, j]))
            rj[:, j] = -1.0
            scores = {"closest": rj, "prod": rj * ry,
                      "ycorr": np.where(rj < 0, -1.0, ry)}
            for rule in rules:
                if rule == "marginal":
                    C = np.zeros((X.shape[0], 0), dtype=np.intp)
                else:
                    C = np.argpartition(-scores[rule], K, axis=1)[:, :K]
                if k is not None:
                    hits[rule] += int((C == k).any(axis=1).sum())
                ones[rule][i] += _sign_given(X, y, j, C).sum()
        total += X.shape[0]
    out = {}
    for rule in rules:
        dist = np.abs(ones[rule] / total - 0.5)
        out[rule] = (hits[rule] / max(total * len(pairs), 1),
                     float(dist[: len(pairs)].max()), float(dist[len(pairs):].min()))
    return out, len(pairs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--rules", nargs="+", default=["closest/6", "closest/7"])
    parser.add_argument("--problems", nargs="+",
                        default=["toeplitz:20:3:2", "toeplitz:50:5:0"],
                        help="design:d:s:seed")
    parser.add_argument("--coverage", type=int, metavar="K",
                        help="for closest/prod/ycorr with K controls and the marginal "
                             "test print covered/neighbour distance/support distance "
                             "(see coverage), then stop")
    args = parser.parse_args(argv)
    if args.coverage is not None:
        for spec in args.problems:
            design, d, s, seed = spec.split(":")
            cov, n_pairs = coverage(design, int(d), int(s), int(seed), args.clients,
                                    args.samples, args.coverage)
            print(f"{spec:24s} n={args.samples} K={args.coverage} {n_pairs} neighbours: "
                  + "  ".join(f"{r} {c:.3f}/{a:.3f}/{b:.3f}" for r, (c, a, b) in cov.items()),
                  flush=True)
        return
    for spec in args.problems:
        design, d, s, seed = spec.split(":")
        d, s, seed = int(d), int(s), int(seed)
        support, w = problem(design, d, s, seed)
        for rk in args.rules:
            rule, K = rk.split("/")
            cpu = time.process_time()
            f = fractions(design, w, rule, int(K), args.clients, args.samples, seed)
            med = float(np.median(f))
            dist = np.abs(f - med)
            jn = np.flatnonzero(~support)[np.argmax(dist[~support])]
            js = np.flatnonzero(support)[np.argmin(dist[support])]
            print(f"{spec:24s} n={args.samples} {rk:12s} median {med:.4f}  farthest outside "
                  f"{jn} {dist[jn]:.4f}  weakest support {js} {dist[js]:.4f}  "
                  f"({time.process_time() - cpu:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
