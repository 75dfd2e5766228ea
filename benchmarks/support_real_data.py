"""Support recovery on real data: School, and a client rule for singular Gram matrices.

RESULTS: see the "Measured" section at the end of this docstring.

The question.  On School (``benchmarks/new_nodes.py``'s ``load("school",
seed)``: 139 schools, 28 standardized features, exam score standardized;
fit on 80 % of the schools, the other 20 % are new nodes that get ``k``
samples to set their intercept and are scored on the rest)
:class:`skfed.support.FederatedSparseLinearRegression` returns an empty
support.  Every school's Gram matrix is singular (school-level features are
constant within a school; one-hot groups sum to the intercept), so every
client falls back to the partial rule (``skfed/support/_partial.py``),
which tests each feature given its closest features.  In a one-hot group
the closest features of a level are the group's other levels, and
``[x_j, x_C]`` with the whole group plus the intercept is exactly
collinear: the t statistic is undefined and the feature is not selected.
That is why the VR-band levels (pooled marginal correlations +0.46 and
-0.37, the strongest predictors) get vote fractions 0.00-0.03.

The prototype ("pivot" rule, NumPy only, here; no package change).  Each
client, from its own rows:

1. centres its rows (per-node intercept);
2. drops the columns constant on it (centred sum of squares at most
   ``1e-10`` of the raw one, the partial rule's ``CONSTANT_RTOL``);
3. walks the remaining columns in column order (the same order on every
   client) and keeps a column when the share of its centred sum of squares
   left after regressing it on the columns kept before it exceeds
   ``PIVOT_TOL`` = 1e-10 (a Cholesky pivot in column order, the partial
   rule's ``SINGULAR_PIVOT``); so in a one-hot group the last level present
   on the client is the reference and is dropped;
4. runs the OLS t-test of main's OLS clients (level ``2 Phi(-auto_z)``,
   ``auto_z = 1``, ``df = n_i - 1 - k_i``) on the ``k_i`` kept columns when
   ``df >= OLS_MIN_DF`` (3), else see 5;
5. sends two bits per feature: tested (kept) and selected.  The dropped
   features are abstentions, not zeros.  A client left with fewer than 3
   residual degrees of freedom runs main's partial rule instead and reports
   only the features whose t statistic is defined there.

On a client whose Gram matrix is not singular nothing is dropped and the
rule is main's OLS t-test: the same bits, client by client, as the compiled
pass (asserted in ``tests/test_support_real_data.py``), so the change would
leave full-rank fits as they are.

The server counts per feature the clients that tested it (``n_j``) and runs
main's binomial test of the votes against the reference rate ``(1 - beta)
q0 + beta`` over ``n_j`` reports (``fwer / d`` per feature), ``beta`` from
``auto_rogue_tolerance``'s formula with the clients that ran the OLS test
(all of them on School: ``beta = 0.1``, reference 0.385).  The abstention
bit is not public (it reveals which columns are constant or collinear on
a client; a schema could make the school-level columns public, but which
one-hot level a client drops depends on the levels present on it, so the
server cannot count the reports from public information): one extra bit
per feature, ``2 ceil(d / 8)`` bytes per client instead of ``ceil(d /
8)``.  A variant that needs no extra bit: the client
votes 0 on dropped columns (``n_j`` = all clients); it is also measured
("pivot0").

Measured per split seed: the vote fractions of main's rule
(``FederatedSupportRecovery(random_state=seed).vote_fraction_``) and of the
prototype, the number of clients testing each feature, the selected
supports, pooled ``LassoCV`` / ``LassoLarsIC`` supports on the same
(school-centred) rows, and the refit's R^2 (x 100) on the held-out schools
at ``k`` = 5 / 10 / 20 joining samples: ordinary least squares on the
support with per-node intercepts (what the package's refit computes; the
new school's intercept is ``mean(y_k) - mean(X_k,S) coef``), against the
pooled baselines ``Ridge()`` / ``LassoCV()`` fitted on the fitted schools'
rows plus the new schools' ``k`` rows (as ``new_nodes.py`` does) and the
dense per-node-intercept OLS on every identified column.  The NumPy refit
is checked against the package's ``FederatedSparseLinearRegression`` on the
support it found (asserted equal predictions).

Synthetic check (``--synthetic``): 300 clients of 40 samples (``--clients``,
``--samples``), 6 Gaussian features (Toeplitz 0.5), a 4-level categorical
(level probabilities 0.4 / 0.3 / 0.2 / 0.1, one-hot, so small clients miss
level 4 sometimes), a 3-level one (0.5 / 0.3 / 0.2) and 2 client-level
features; y = node intercept + x_0 - x_3 + 1.0 [cat A = level 1] - 0.8
[cat B = level 2] + 1.0 client feature + N(0, 1).  The support in the
column-order coding (the last level the reference) is {x_0, x_3, A_1,
B_2}; the client-level feature is not identifiable under per-node
intercepts.  Also used: ``--seeds``.

    python benchmarks/support_real_data.py --seeds 0 1 2
    python benchmarks/support_real_data.py --synthetic --seeds 0 1 2
    python benchmarks/support_real_data.py --synthetic --seeds 0 1 2 --clients 2000 --samples 12
    python benchmarks/support_real_data.py --reverse --seeds 0 1 2

Measured
--------
Session of 2026-11-28 04:00-05:00 UTC (main at 28335f3), the commands above.

Which School features are identifiable under per-node intercepts (pooled
column-order pivot of the school-centred fitted rows, the same on seeds
0-2): 18 of 28.  Not identifiable: the school-level ``sgender_*`` (3),
``denom_*`` (3) and ``bias``, constant within every school; and one level of
each one-hot group (``year87``, ``gender_b``, ``eth10``, the column-order
references).  ``pct_fsm`` and ``pct_vr1`` are identifiable only pooled:
they change with the exam year inside 68 / 77 schools, but inside one
school they are a function of the year dummies, so no client can test them
(every client drops them after ``year85``, ``year86``).

Why main selects nothing (seed 0; shares of the 111 clients whose partial
rule t statistic is undefined, ``main_undefined_share``): 1.00 for the
year, gender and school columns, 0.95 / 0.98 / 0.99 for ``vr1`` / ``vr2``
/ ``vr3`` (their 4 controls are the group's other levels), 0.19-0.88 for
the ethnic levels.  No client runs main's OLS test (all 111 Gram matrices
singular).  Since the partial rule pivots its controls (2026-11-28,
support11: a dependent candidate is passed over, the latest column of a
dependency is dropped) the same shares are 0.39 / 0.39 / 0.65 for
``year85`` / ``year86`` / ``year87``, 0.53 / 1.00 for ``gender_a`` /
``gender_b``, 0.02 / 0.02 / 0.98 for ``vr1`` / ``vr2`` / ``vr3`` and
0.02-0.75 for the ethnic levels; the estimator's output is unchanged
(its schools run the pivoted OLS rule; supports, fractions and R^2 of
every row identical on seeds 0-2).

Vote fractions, seed 0 (main's rule / the pivot rule with the number of
clients that tested the feature / pivot without the abstention bit);
reference rates 0.383 (main) and 0.386 (pivot: all 111 clients run OLS):

    vr1   0.027 / 0.910 (111) / 0.910     year85   0.000 / 0.588 (68) / 0.360
    vr2   0.018 / 0.964 (111) / 0.964     year86   0.000 / 0.441 (68) / 0.270
    vr3   0.000 / 0.500   (2) / 0.009     gender_a 0.000 / 0.596 (52) / 0.279
    eth0  0.459 / 0.369 (111) / 0.369     eth4     0.450 / 0.459 (109) / 0.450
    eth3  0.045 / 0.475  (40) / 0.171     eth8     0.162 / 0.473 (74) / 0.315
    eth6  0.126 / 0.455  (77) / 0.315     eth9     0.135 / 0.431 (58) / 0.225
    (other ethnic levels 0.29-0.42 with the pivot; every untestable column 0)

Supports (the same on seeds 0, 1, 2): main {}; pivot {year85, gender_a,
vr1, vr2}; pivot without the abstention bit {vr1, vr2}; pivot at the
reference q0 (no rogue margin) adds eth4; pooled LassoCV on the
school-centred rows 18-19 features, LassoLarsIC (BIC) 12.  Null check (y
permuted within every school): pivot's mean fraction over the tested
features 0.312 / 0.295 / 0.316 (q0 = 0.317; the extremes 0.0-0.5 are
features with 2-28 reports) and an empty support on every seed.

R^2 x 100 on the held-out schools, seeds 0 / 1 / 2 (mean):

    k                          5                     10                    20
    main                -4.0/-4.2/-11.4 (-6.5)  6.7/5.8/1.1 (4.6)    11.2/10.8/3.4 (8.4)
    pivot               27.4/21.9/19.5 (23.0)   30.8/28.4/29.6 (29.6) 34.8/33.6/31.4 (33.2)
    pivot, no abst. bit 26.7/21.8/19.1 (22.5)   30.3/27.7/29.0 (29.0) 33.9/33.5/30.8 (32.8)
    pivot at q0         27.4/22.6/20.0 (23.3)   30.9/28.6/29.9 (29.8) 34.8/33.7/31.6 (33.4)
    LassoCV support     30.6/23.7/24.6 (26.3)   33.3/30.1/32.8 (32.1) 37.2/34.6/34.8 (35.6)
    all 18 identified   30.6/23.7/24.6 (26.3)   33.3/30.1/32.8 (32.1) 37.2/34.6/34.8 (35.6)
    pooled Ridge        34.0/31.1/30.4 (31.8)   33.9/31.0/30.3 (31.8) 33.8/30.7/31.4 (31.9)
    pooled LassoCV      33.5/31.1/30.3 (31.6)   33.3/31.0/30.2 (31.5) 33.2/30.7/31.4 (31.8)
    pooled SVR (--svr)  31.6/28.2/28.0 (29.2)   32.3/28.4/28.5 (29.8) 32.5/29.0/29.3 (30.3)

(Pooled Ridge is the strongest standard baseline here.  The
per-node-intercept refits set a new school's intercept from its k
rows, so at k = 5 they pay for a noisy intercept that the pooled models do
not estimate; from k = 10 on the dense per-node OLS beats pooled Ridge.)
The pivot rule's remaining gap to the dense refit (3.3 / 2.5 / 2.4 points
at k = 5 / 10 / 20 on average) is power, not validity: the strongest
ethnic levels reach 0.43-0.51 over 40-110 reports against the reference
0.386 at fwer / d = 0.0018; 111 clients are too few for them.  (vr1 and
vr2 selected means: band 1 and band 2 differ from band 3, the reference.)

Column order (``--reverse``: the pivot walks the columns from the last,
so the references become ``eth0``, ``vr1``, ``gender_a``, ``year85``; the
school-year columns ``pct_vr1``, ``pct_fsm`` are now kept before the year
dummies): the pivot rule selects {eth8, eth6, vr3, vr2, gender_b} on seeds
0-2 (eth8 0.64 over 75 reports, eth6 0.58 over 80: against the common
level eth0 the ethnic contrasts are stronger than against the rare eth10),
R^2 28.1/22.8/22.1 (24.3), 31.7/29.3/30.9 (30.7), 35.6/34.6/33.2 (34.4) at
k = 5 / 10 / 20, 1.1-1.3 above the default order and 1.2-2.0 below the
dense refit (whose R^2 does not depend on the order).  So the reference
level matters for power: a one-hot group's most common level should be its
reference; with a pivot in column order that is a documented convention
(put it last), or a public count of each level per column that the server
could gather first (one more round; not measured).

Synthetic (``--synthetic``, 300 clients of 40 samples; main runs no OLS
client here either): main selects {x0, x3} on seeds 0-2 (A1 at 0.18, B2 at
0.04; their partial t undefined on 67 % / 93 % of the clients); the pivot
rule (with or without the abstention bit) is exact on 3 / 3 seeds, pivot
at q0 2 / 3 (x5 added on seed 2), LassoLarsIC 2 / 3, LassoCV 0 / 3 (8-11
features).  R^2 at k = 5 / 10 / 20 (means): main 78.9 / 80.6 / 81.6, pivot
84.6 / 86.0 / 86.5, equal to the dense per-node OLS (84.5 / 86.0 / 86.6);
pooled Ridge 38.4 / 38.1 / 38.8 (no per-node intercepts).  Null check:
fractions 0.27-0.37, empty supports.

Small clients (``--synthetic --clients 2000 --samples 12``): after the
pivot 1-4 of 2,000 clients keep 3 residual degrees of freedom, so the rule
is mostly main's partial rule; abstaining where its t is undefined lifts A1
from 0.294 (main, 2,000 reports) to 0.382 (1,541 reports) and selects it on
seeds 0-2 (B2: 0.341 over 1,362 reports against 0.331, not selected):
supports {x0, x3, A1} against main's {x0, x3}; R^2 at k = 5 83.0 against
79.5 (dense per-node OLS 84.9).  Without the abstention bit the partial
clients equal main (79.5).

Skipping collinear controls in the partial rule (``pivot_vote(...,
small="skip")``, :func:`partial_skip_client`: a one-hot level is then
tested against the level left out of its controls instead of being
undefined) raises the reports (A1 1,541 -> 1,992, B2 1,362 -> 1,974 of
2,000 on seed 0) at the same fractions (0.377, 0.341), so the supports and
R^2 are those of the pivot rule on seeds 0-2 (and on School and the
40-sample design, where no client falls back).  It also mixes contrasts
(B1, null against the column-order reference B3, is tested against B2 on
clients that leave B2 out; its fraction 0.319 stayed at q0 here), so it is
not recommended on this evidence.

Recommendation (the package change for the next session, support's files):
in the OLS client (``client_ols_dense`` / ``_csr`` in
``skfed/_core/_support_fast.pyx`` and the Python side ``_client_chunk`` in
``skfed/support/_rules.py``) replace "singular Gram matrix -> partial
rule" by the column-order pivot above (drop constant columns, then every
column whose Cholesky pivot in column order is at most 1e-10 of its
centred sum of squares; OLS t-test on the rest with ``df = n_i - 1 -
k_i``; the partial rule only when ``df < OLS_MIN_DF``), and let every
client send a second bit per feature, "tested", so that the server's
``n_reports_`` counts per feature (``_server_vote`` already tallies per
feature report counts for ``n_reported``); the partial rule's clients set
it to "t defined".  ``ols_client`` / ``auto_rogue_tolerance`` then need
the count of clients that ran OLS, which becomes a client report (one
more bit) rather than public.  Tests: the client's t statistics against
``lstsq`` with an explicit intercept column on a one-hot client (as
``tests/test_support_real_data.py`` does for the prototype), a client
missing a level, the null rate q0 on a one-hot design, and School's
support containing vr1 and vr2 (``FederatedSupportRecovery(random_state=0)``
on ``load("school", 0)``'s fitted rows).  Without the abstention bit
(votes 0 on dropped columns, no protocol change) School keeps {vr1, vr2}
and loses 0.1-0.8 R^2 points; on small clients the bit is what moves A1.
The guide should then say that a one-hot group's reference is its last
column present on a client, so its most common level belongs last
(``--reverse`` above: +1.1-1.3 R^2 on School).  Open: under privacy the
"tested" bit would need its own randomized response (it depends on the
client's data); not measured here.

Built into the package (session of 2026-11-28 05:50-08:45 UTC, support10):
the OLS clients' column-order pivot (``client_ols_*`` in
``skfed/_core/_support_fast.pyx``, finished by ``_pivoted_bits`` in
``skfed/support/_rules.py``; NumPy reference ``ols_reference``), the
partial rule's clients abstaining where their t is undefined, the
"tested" bits (sent only by a client that did not test every reported
feature: ``ceil(d / 8)`` more bytes for it; not sent under a finite
privacy budget, where an untested feature goes out as a randomized 0),
and a per-feature rogue margin ``min(1, beta a_j / n_j)`` (a rogue can
claim to have tested a feature few honest clients could).  Differences
from the prototype: clients with ``n_i < d + 4`` (6 of School's 111
fitted schools: 22-31 rows for 28 columns) keep the partial rule instead
of pivoting (whether a client runs OLS stays public), and the pivot
tolerance is the kernel's ``1e-9`` (the prototype's ``1e-10``).  Row
"main" of this script is now the package; the same commands gave, seeds
0 / 1 / 2: supports {vr1, vr2}, {year85, vr1, vr2}, {vr1, vr2} (year85
at 0.60-0.63 over 63-67 reports and gender_a at 0.60-0.62 over 50-52 miss
their own margins, reference 0.43 / 0.46, pass the fit-wide 0.383);
vr1 / vr2 fractions 0.93 / 0.97; null supports empty; R^2 on the new
schools 26.7/22.0/19.1 (22.6), 30.3/27.9/29.0 (29.1), 33.9/33.3/30.8
(32.7) at k = 5 / 10 / 20 (pooled Ridge 31.8 / 31.8 / 31.9).  Bytes of
the selection round on School: 2,220 -> 2,664 (111 x 16-byte headers,
4 bytes of bits, now 4 more of tested bits each).
"""

import argparse
import copy
import json
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import stats
from sklearn.linear_model import LassoCV, LassoLarsIC, Ridge

sys.path.insert(0, str(Path(__file__).resolve().parent))

from skfed.support import (
    DEFAULT_AUTO_Z,
    DEFAULT_FWER,
    DEFAULT_ROGUE_TOLERANCE,
    OLS_MIN_DF,
    SMALL_CLIENT_ROGUE_TOLERANCE,
    FederatedSparseLinearRegression,
    FederatedSupportRecovery,
    null_selection_rate,
)

CONSTANT_RTOL = 1e-10
PIVOT_TOL = 1e-10
SCHOOL_NAMES = (
    ["year85", "year86", "year87", "pct_fsm", "pct_vr1", "gender_a", "gender_b",
     "vr1", "vr2", "vr3"] + [f"eth{i}" for i in range(11)]
    + ["sgender_a", "sgender_b", "sgender_c", "denom_a", "denom_b", "denom_c", "bias"]
)


# ----------------------------------------------------------------- client rule
def pivot_columns(Z, raw_ss):
    """Columns of the centred ``Z`` kept by the column-order pivot.

    A column is kept when it is not constant (centred sum of squares above
    ``CONSTANT_RTOL`` times ``raw_ss``) and the part of it orthogonal to
    the columns kept before it keeps more than ``PIVOT_TOL`` of its sum of
    squares.  Returns ``(kept, constant)`` boolean masks.
    """
    d = Z.shape[1]
    ss = np.einsum("ij,ij->j", Z, Z)
    constant = ss <= CONSTANT_RTOL * raw_ss
    kept = np.zeros(d, dtype=bool)
    Q = np.zeros((Z.shape[0], 0))
    for j in range(d):
        if constant[j]:
            continue
        r = Z[:, j] - Q @ (Q.T @ Z[:, j])
        r = r - Q @ (Q.T @ r)  # re-orthogonalize (Gram-Schmidt twice)
        left = r @ r
        if left > PIVOT_TOL * ss[j]:
            kept[j] = True
            Q = np.column_stack([Q, r / np.sqrt(left)])
    return kept, constant


def pivot_client(X, y, z=DEFAULT_AUTO_Z, abstain=True):
    """One client's ``(tested, selected, df, t)`` under the pivot rule.

    ``tested``: the kept columns (all columns with ``abstain=False``, the
    dropped ones voting 0); ``selected``: ``|t_j| > t_df(1 - q0 / 2)`` on
    the OLS of the centred ``y`` on the kept columns; nothing tested when
    ``df < OLS_MIN_DF``; ``t``: the t statistics of the kept columns (NaN
    elsewhere).
    """
    d = X.shape[1]
    Z = X - X.mean(axis=0)
    yc = y - y.mean()
    kept, _ = pivot_columns(Z, np.einsum("ij,ij->j", X, X))
    k = int(kept.sum())
    df = len(y) - 1 - k
    tested = np.zeros(d, dtype=bool)
    selected = np.zeros(d, dtype=bool)
    t_all = np.full(d, np.nan)
    if df < OLS_MIN_DF:
        return tested, selected, df, t_all
    A = Z[:, kept]
    gram_inv = np.linalg.inv(A.T @ A)
    coef = gram_inv @ (A.T @ yc)
    resid = yc - A @ coef
    sigma2 = resid @ resid / df
    t = coef / np.sqrt(sigma2 * np.diag(gram_inv))
    crit = stats.t.isf(stats.norm.sf(z), df)
    tested[:] = not abstain
    tested[kept] = True
    selected[np.flatnonzero(kept)] = np.abs(t) > crit
    t_all[kept] = t
    return tested, selected, df, t_all


def server_test(votes, reports, n_ols_share, d, fwer=DEFAULT_FWER, z=DEFAULT_AUTO_Z, beta=None):
    """Main's binomial test over per-feature report counts; ``(support, pvalues, reference)``.

    ``beta`` (the rogue margin) defaults to ``rogue_tolerance="auto"``'s
    formula with ``n_ols_share`` the share of clients that ran the OLS test.
    """
    if beta is None:
        beta = SMALL_CLIENT_ROGUE_TOLERANCE + (
            DEFAULT_ROGUE_TOLERANCE - SMALL_CLIENT_ROGUE_TOLERANCE) * n_ols_share
    reference = (1.0 - beta) * null_selection_rate(z) + beta
    pvalues = np.where(reports > 0, stats.binom.sf(votes - 1, np.maximum(reports, 1), reference), 1.0)
    return pvalues <= fwer / d, pvalues, reference


def partial_client(X, y, z=DEFAULT_AUTO_Z, abstain=True):
    """Main's partial rule on one client (``partial_reference``, its number of
    controls), as ``(tested, selected)``: with ``abstain`` the features whose
    t statistic is undefined are not reported (decided from ``X`` alone,
    since the controls are chosen without ``y``)."""
    from skfed.support._partial import n_controls, partial_reference
    from skfed.support._rules import _critical_values

    n, d = X.shape
    m = n - 1
    k = int(n_controls(n, d, True))
    tk, t0 = _critical_values(z, np.array([m - 1 - k, m - 1]))
    bits, t = partial_reference(X, y, np.ones(n), k, m, True, tk, t0)[:2]
    tested = ~np.isnan(t) if abstain else np.ones(d, dtype=bool)
    return tested, np.asarray(bits, dtype=bool) & tested


def partial_skip_client(X, y, z=DEFAULT_AUTO_Z, abstain=True):
    """Main's partial rule with collinear controls skipped, as ``(tested, selected)``.

    Feature ``j`` (not constant on the client) takes as controls the other
    non-constant features in decreasing ``|r_jl|`` (ties: lower index), as
    main's rule does, but a candidate is skipped when it is collinear with
    the controls taken so far or would leave ``x_j`` collinear with them
    (both at ``PIVOT_TOL`` of the column's centred sum of squares), until
    ``n_controls`` are taken or the candidates run out.  The t statistic of
    ``x_j`` given its controls (Frisch-Waugh: ``x_j`` and ``y`` residualized
    on the controls) is tested at the level of the other auto tests.  In a
    one-hot group a level is then tested against the level left out of its
    controls, instead of being undefined.  The controls depend on ``X``
    only, so the null selection rate stays ``q0``.
    """
    from skfed.support._partial import n_controls

    n, d = X.shape
    Z = X - X.mean(axis=0)
    r = y - y.mean()
    ss = np.einsum("ij,ij->j", Z, Z)
    live = ss > CONSTANT_RTOL * np.einsum("ij,ij->j", X, X)
    inv_sd = np.where(live, 1.0 / np.sqrt(np.where(live, ss, 1.0)), 0.0)
    score = np.abs((Z.T @ Z) * inv_sd[:, None] * inv_sd[None, :])
    np.fill_diagonal(score, -1.0)
    k_max = int(n_controls(n, d, True))
    m = n - 1
    tested = np.zeros(d, dtype=bool)
    selected = np.zeros(d, dtype=bool)
    for j in np.flatnonzero(live):
        Q = np.zeros((n, 0))
        for l in np.lexsort((np.arange(d), -score[j])):
            if Q.shape[1] == k_max:
                break
            if l == j or not live[l]:
                continue
            rl = Z[:, l] - Q @ (Q.T @ Z[:, l])
            rl = rl - Q @ (Q.T @ rl)
            if not rl @ rl > PIVOT_TOL * ss[l]:
                continue
            trial = np.column_stack([Q, rl / np.sqrt(rl @ rl)])
            rj = Z[:, j] - trial @ (trial.T @ Z[:, j])
            if not rj @ rj > PIVOT_TOL * ss[j]:
                continue
            Q = trial
        df = m - 1 - Q.shape[1]
        rj = Z[:, j] - Q @ (Q.T @ Z[:, j])
        rj = rj - Q @ (Q.T @ rj)
        if df < 1 or not rj @ rj > PIVOT_TOL * ss[j]:
            continue
        ry = r - Q @ (Q.T @ r)
        coef = (rj @ ry) / (rj @ rj)
        rss = max(ry @ ry - coef * (rj @ ry), 0.0)
        if not rss > 0:
            continue
        t = coef / np.sqrt(rss / df / (rj @ rj))
        tested[j] = True
        selected[j] = abs(t) > stats.t.isf(stats.norm.sf(z), df)
    if not abstain:
        tested[:] = True
    return tested, selected


def pivot_vote(X, y, groups, abstain=True, small="partial"):
    """The prototype over every client: ``dict`` of counts, fractions and the support.

    A client left with fewer than ``OLS_MIN_DF`` residual degrees of freedom
    after the pivot runs main's partial rule (``small="partial"``; with
    ``abstain`` it does not report the features whose t is undefined) or
    abstains on every feature (``small="abstain"``).
    """
    d = X.shape[1]
    nodes = np.unique(groups)
    votes = np.zeros(d, dtype=np.int64)
    reports = np.zeros(d, dtype=np.int64)
    n_ols = 0
    for node in nodes:
        rows = groups == node
        tested, selected, df, _ = pivot_client(X[rows], y[rows], abstain=abstain)
        if df < OLS_MIN_DF and small == "partial":
            tested, selected = partial_client(X[rows], y[rows], abstain=abstain)
        elif df < OLS_MIN_DF and small == "skip":
            tested, selected = partial_skip_client(X[rows], y[rows], abstain=abstain)
        votes += selected
        reports += tested
        n_ols += df >= OLS_MIN_DF
    support, pvalues, reference = server_test(votes, reports, n_ols / len(nodes), d)
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = np.where(reports > 0, votes / np.maximum(reports, 1), 0.0)
    return {"votes": votes, "reports": reports, "fraction": fraction, "support": support,
                "pvalues": pvalues, "reference": reference, "n_ols": n_ols, "n_clients": len(nodes)}


def main_undefined_share(X, y, groups, z=DEFAULT_AUTO_Z):
    """Per feature, the share of clients whose partial-rule t statistic is
    undefined (``skfed.support._partial.partial_reference``, the reference of
    the pass main's clients fall back to when their Gram matrix is singular,
    with their number of controls)."""
    from skfed.support._partial import n_controls, partial_reference
    from skfed.support._rules import _critical_values

    nodes = np.unique(groups)
    undefined = np.zeros(X.shape[1])
    for node in nodes:
        rows = groups == node
        m = int(rows.sum()) - 1
        k = int(n_controls(int(rows.sum()), X.shape[1], True))
        tk, t0 = _critical_values(z, np.array([m - 1 - k, m - 1]))
        t = partial_reference(X[rows], y[rows], np.ones(int(rows.sum())), k, m, True, tk, t0)[1]
        undefined += np.isnan(t)
    return undefined / len(nodes)


# ----------------------------------------------------------------- pooled side
def centre_by_group(X, y, groups):
    Xc = np.array(X, dtype=np.float64)
    yc = np.array(y, dtype=np.float64)
    for node in np.unique(groups):
        rows = groups == node
        Xc[rows] -= Xc[rows].mean(axis=0)
        yc[rows] -= yc[rows].mean()
    return Xc, yc


def identifiable(X, groups):
    """Pooled column-order pivot of the school-centred rows: ``(kept, constant)``."""
    Xc, _ = centre_by_group(X, np.zeros(len(X)), groups)
    return pivot_columns(Xc, np.einsum("ij,ij->j", X, X))


def refit_predict(X, y, groups, support, Xk, yk, gk, Xt, gt):
    """OLS with per-node intercepts on ``support``; new nodes set their intercept from ``k`` rows."""
    S = np.flatnonzero(support)
    Xc, yc = centre_by_group(X[:, S], y, groups)
    coef = np.linalg.lstsq(Xc, yc, rcond=None)[0] if len(S) else np.zeros(0)
    pred = np.zeros(len(Xt))
    for node in np.unique(gt):
        k_rows = gk == node
        intercept = yk[k_rows].mean() - Xk[k_rows][:, S].mean(axis=0) @ coef
        t_rows = gt == node
        pred[t_rows] = intercept + Xt[t_rows][:, S] @ coef
    return pred, coef


def r2(y, pred):
    return 100.0 * (1.0 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2))


def pooled_lasso_supports(X, y, groups, seed):
    Xc, yc = centre_by_group(X, y, groups)
    cv = LassoCV(cv=5, fit_intercept=False, random_state=seed).fit(Xc, yc)
    ic = LassoLarsIC(criterion="bic", fit_intercept=False).fit(Xc, yc)
    return np.abs(cv.coef_) > 0, np.abs(ic.coef_) > 0


# ------------------------------------------------------------------- data sets
def school(seed):
    from new_nodes import load, new_node_rows, split

    X, y, g, _ = load("school", seed)
    fit_rows, _, order = split(X, y, g, seed)
    held = {k: new_node_rows(order, k) for k in (5, 10, 20)}
    return X, y, g, fit_rows, held, None, SCHOOL_NAMES


def synthetic(seed, n_clients=300, n_samples=40):
    """One-hot groups and client-level features; see the module docstring."""
    rng = np.random.default_rng([seed, 20261128])
    n_all = int(n_clients * 1.25)
    groups = np.repeat(np.arange(n_all), n_samples)
    n = len(groups)
    cov = 0.5 ** np.abs(np.subtract.outer(np.arange(6), np.arange(6)))
    G = rng.multivariate_normal(np.zeros(6), cov, size=n)
    A = rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1])
    B = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    client = rng.normal(size=(n_all, 2))[groups]
    X = np.column_stack([G, np.eye(4)[A], np.eye(3)[B], client])
    y = (rng.normal(0, 2, n_all)[groups] + G[:, 0] - G[:, 3] + 1.0 * (A == 0)
         - 0.8 * (B == 1) + 1.0 * client[:, 0] + rng.normal(size=n))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    names = [f"x{i}" for i in range(6)] + [f"A{i + 1}" for i in range(4)] + [
        f"B{i + 1}" for i in range(3)] + ["client0", "client1"]
    truth = np.zeros(X.shape[1], dtype=bool)
    truth[[0, 3, 6, 11]] = True
    fit_rows = np.flatnonzero(groups < n_clients)
    order = {node: rng.permutation(np.flatnonzero(groups == node))
             for node in range(n_clients, n_all)}
    held = {}
    for k in (5, 10, 20):
        if k > n_samples - 3:  # keep test rows on every new node
            continue
        held[k] = (np.concatenate([r[:k] for r in order.values()]),
                   np.concatenate([r[k:] for r in order.values()]))
    return X, y, groups, fit_rows, held, truth, names


# ------------------------------------------------------------------------ main
def run(name, seed, args):
    X, y, g, fit_rows, held, truth, names = (
        synthetic(seed, args.clients, args.samples) if name == "synthetic" else school(seed))
    if getattr(args, "reverse", False):
        # The pivot's column order reversed: other reference levels.
        X = np.ascontiguousarray(X[:, ::-1])
        names = list(names)[::-1]
        truth = None
    Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
    d = X.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main = FederatedSupportRecovery(random_state=seed).fit(Xf, yf, groups=gf)
        # exact per-node intercepts: refit_predict's NumPy refit is checked against it
        package = FederatedSparseLinearRegression(per_node_intercept=True,
                                                  random_state=seed).fit(Xf, yf, groups=gf)
    assert np.array_equal(package.support_, main.support_)
    proto = pivot_vote(Xf, yf, gf, abstain=True)
    proto0 = pivot_vote(Xf, yf, gf, abstain=False)
    skip = pivot_vote(Xf, yf, gf, abstain=True, small="skip")
    kept, constant = identifiable(Xf, gf)
    # Without the rogue margin (reference = q0): what the margin costs.
    no_margin = server_test(proto["votes"], proto["reports"], 0.0, d, beta=0.0)[0]
    # Null check: y permuted within every fitted node (no feature related to
    # it); every tested feature should be voted for at about q0 = 0.317.
    rng = np.random.default_rng([seed, 7])
    y_null = yf.copy()
    for node in np.unique(gf):
        rows = np.flatnonzero(gf == node)
        y_null[rows] = yf[rng.permutation(rows)]
    null = pivot_vote(Xf, y_null, gf, abstain=True)
    tested = null["reports"] > 0
    cv_s, ic_s = pooled_lasso_supports(Xf, yf, gf, seed)
    supports = {"main": main.support_, "pivot": proto["support"], "pivot0": proto0["support"],
                "pivot-q0": no_margin, "pivot-skip": skip["support"],
                "LassoCV": cv_s, "LassoLarsIC": ic_s, "all-identified": kept}
    out = {"dataset": name, "seed": seed, "n_clients": len(np.unique(gf)),
               "main_ols_clients": int(main.ols_clients_.sum()),
               "main_reference": round(float(main.reference_rate_), 4),
               "pivot_reference": round(float(proto["reference"]), 4),
               "pivot_ols_clients": int(proto["n_ols"]),
               "identifiable": [names[j] for j in np.flatnonzero(kept)],
               "constant_within": [names[j] for j in np.flatnonzero(constant)],
               "collinear_within": [names[j] for j in np.flatnonzero(~kept & ~constant)],
               "null_fraction_range": [round(float(null["fraction"][tested].min()), 3),
                                    round(float(null["fraction"][tested].mean()), 3),
                                    round(float(null["fraction"][tested].max()), 3)],
               "null_support": [names[j] for j in np.flatnonzero(null["support"])]}
    undefined = main_undefined_share(Xf, yf, gf)
    out["fractions"] = {names[j]: [round(float(undefined[j]), 2),
                                   round(float(main.vote_fraction_[j]), 3),
                                   round(float(proto["fraction"][j]), 3),
                                   int(proto["reports"][j]),
                                   round(float(proto0["fraction"][j]), 3),
                                   round(float(skip["fraction"][j]), 3),
                                   int(skip["reports"][j])]
                        for j in range(d)}
    out["supports"] = {key: [names[j] for j in np.flatnonzero(s)] for key, s in supports.items()}
    if truth is not None:
        out["exact"] = {key: bool(np.array_equal(s, truth)) for key, s in supports.items()}
    scores = {}
    for k, (train, test) in held.items():
        Xk, yk, gk, Xt, yt, gt = X[train], y[train], g[train], X[test], y[test], g[test]
        row = {}
        for key, s in supports.items():
            pred, _ = refit_predict(Xf, yf, gf, s, Xk, yk, gk, Xt, gt)
            row[key] = round(r2(yt, pred), 2)
            if key == "main":
                joined = copy.deepcopy(package)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    joined.add_nodes(Xk, yk, groups=gk)
                    ref = joined.predict(Xt, groups=gt)
                np.testing.assert_allclose(pred, ref, rtol=1e-7, atol=1e-7)
        Xp = np.concatenate([Xf, Xk])
        yp = np.concatenate([yf, yk])
        row["pooled Ridge"] = round(r2(yt, Ridge().fit(Xp, yp).predict(Xt)), 2)
        row["pooled LassoCV"] = round(r2(yt, LassoCV(cv=5).fit(Xp, yp).predict(Xt)), 2)
        if getattr(args, "svr", False):
            from sklearn.svm import SVR

            row["pooled SVR"] = round(r2(yt, SVR().fit(Xp, yp).predict(Xt)), 2)
        scores[k] = row
    out["r2"] = scores
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--synthetic", action="store_true")
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--svr", action="store_true",
                        help="also the pooled SVR() baseline (slow)")
    parser.add_argument("--reverse", action="store_true",
                        help="reverse the column order (the pivot's references)")
    args = parser.parse_args(argv)
    name = "synthetic" if args.synthetic else "school"
    for seed in args.seeds:
        out = run(name, seed, args)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
