"""The ``alpha="auto"`` rule of a client with fewer than ``d + 4`` samples.

Such a client cannot regress its target on all ``d`` features.  It tests
each feature *given its closest features*::

    Z = the client's rows, centred (fit_intercept) and scaled by sqrt(w)
    r_jl = corr(z_j, z_l)                      (from X alone, never from y)
    k = n_controls(n_i, d)
    C_j = the k features l != j with the largest |r_jl| (ties: lower index;
          |r| is compared on a grid of 2^-32, tie_key, so that equal
          correlations tie whatever their rounding), pivoted (below)
    t_j = the t statistic of x_j in the regression of y on [x_j, x_{C_j}]
    select j when |t_j| > t_{df}(1 - q0 / 2),  df = m - 1 - k
        m = n_i - fit_intercept

The candidates are walked by decreasing ``|r_jl|`` and pivoted as the OLS
rule pivots its columns (exact dependencies: a copied or scaled column, a
constant, a full one-hot group): a candidate constant on the client or in
the span of the controls already kept is skipped; one that completes a
linear dependency with ``x_j`` is skipped unless ``x_j`` is the latest
column of that dependency in column order, in which case ``j`` is not
tested (the OLS rule drops the same column).  So a copy of a column costs
the later copy its test on every client and no other feature anything.
``j`` is also not tested when fewer than ``k`` candidates are left.

The controls are chosen without looking at ``y``, so when the target is
independent of the features every feature is selected at exactly ``q0 =
2 Phi(-auto_z)``, as with the other auto tests.  A feature outside the
support is selected at ``q0`` when its controls contain the support
features it is correlated with (its Markov blanket: the two neighbours on
a Toeplitz design, its block on a block design); when they miss one its
rate moves towards the marginal test's, which the server's
``rogue_tolerance`` margin absorbs when that is rare.

A sphericity gate can send a client whose design looks uncorrelated to the
marginal test instead (``k = 0``)::

    S = (sum_{j<l} r_jl^2 - P / m) / sqrt(P 2 (m - 1) / (m^2 (m + 2)))
        P = d'(d' - 1) / 2 over the d' features not constant on the client
    k = n_controls(n_i, d) if S > PARTIAL_SPHERICITY_Z else 0

``S`` is the standardized sum of the client's squared sample correlations
(about standard normal on independent Gaussian features).  The gate is off
(``PARTIAL_SPHERICITY_Z = -inf``) unless the clients are very wide (``d >
20 median(n_i)``, :func:`skfed.support._rules.small_client_rule`, where it
is 0.5 with one control per 4 samples: there the controls are chance
correlations): with 10 samples a client
cannot see a weak correlation (Toeplitz ``rho`` of 0.1-0.3 leaves ``S``
near 0), yet under the marginal test a feature between two strong support
features is then selected well above ``q0`` (0.39 against 0.317 on the
heterogeneous design), and with enough clients it became significant: the
gate at 0.5 made recovery *decrease* with more clients on heterogeneous and
Toeplitz designs (``benchmarks/support_client_rule.py``; see the user
guide).  Without it independent designs pay for the controls in power
(their support features are detected less often), not in false positives.

The fast pass is :func:`skfed._core._support_fast.client_partial_dense`
(and ``_csr``); :func:`partial_reference` here is its NumPy reference, used
by the tests.
"""

import numpy as np
from scipy import sparse

# At most this many controls per feature (a Toeplitz feature's Markov
# blanket is 2 features, a block of 5 features' 4), and one control per
# PARTIAL_SAMPLES_PER_CONTROL samples a client has, keeping at least
# PARTIAL_MIN_DF residual degrees of freedom: below that the t-test of a
# small client loses the power the controls buy (measured on Toeplitz and
# block designs, d = 20-200).  One per 3 samples (3 controls at 10
# samples, against 2 at one per 4) keeps a feature between two support
# features below the server's reference on every measured correlated
# problem (benchmarks/support_client_rule.py).
PARTIAL_MAX_CONTROLS = 4
PARTIAL_MIN_DF = 3
PARTIAL_SAMPLES_PER_CONTROL = 3
# A client uses its controls when the standardized sum of its squared
# sample correlations exceeds this; -inf: every client does (see the
# module docstring; 0.5, the former value, let features next to the
# support through on weakly correlated clients).
PARTIAL_SPHERICITY_Z = -np.inf
# A centred feature whose weighted sum of squares is at most this fraction
# of its raw one is constant on the client (as in the Cython passes).
CONSTANT_RTOL = 1e-10
# A standardized system [x_C, x_j] is singular when one of its squared
# Cholesky pivots (in that order: the controls by decreasing |r|, then x_j),
# the variance of a standardized feature left after regressing it on the
# ones before it, is at most this: the feature's t statistic is then
# undefined and it is not selected.  (A bound on the determinant, the
# pivots' product, declared well-conditioned systems of 20-32 controls
# singular: determinants 1e-11 at condition numbers 130-360.)
SINGULAR_PIVOT = 1e-10
# An exact fit's residual sum of squares is floored at this fraction of the
# target's (as in the OLS pass).
RSS_FLOOR = 1e-12
# Candidates are ordered by |r| rounded to this grid (tie_key): correlations
# that are equal (integer features, one-hot levels of equal size) but differ
# in their last bits after rounding tie, and the lower index wins, in the
# compiled pass as here (a tie at a grid edge is the only case left to
# rounding: its chance is about the rounding error over the grid, ~1e-5).
TIE_GRID = 2.0 ** -32


def tie_key(r):
    """``|r|`` in units of ``TIE_GRID``, rounded to the nearest integer (half
    to even): the key by which a feature's candidate controls are ordered,
    decreasing, the lower index first among equal keys."""
    return np.rint(np.abs(r) / TIE_GRID)


def n_controls(n_positive, d, center, per_control=None):
    """The number of controls ``k`` of a correlated client with ``n_positive`` samples.

    ``min(PARTIAL_MAX_CONTROLS, d - 1, (n - center) // per_control, n -
    center - 1 - PARTIAL_MIN_DF)``, at least 0 (0: the marginal correlation
    test); ``per_control`` defaults to ``PARTIAL_SAMPLES_PER_CONTROL``.
    """
    if per_control is None:
        per_control = PARTIAL_SAMPLES_PER_CONTROL
    n = np.asarray(n_positive, dtype=np.int64) - int(center)
    k = np.minimum(np.minimum(PARTIAL_MAX_CONTROLS, d - 1), n // int(per_control))
    k = np.minimum(k, n - 1 - PARTIAL_MIN_DF)
    return np.maximum(k, 0)


def sphericity_null_moments(m):
    """Mean and variance of ``r^2``, the squared sample correlation of two
    independent Gaussian features over ``m`` degrees of freedom."""
    m = np.asarray(m, dtype=np.float64)
    return 1.0 / m, 2.0 * (m - 1.0) / (m * m * (m + 2.0))


def _client_arrays(Xi, yi, wi, center):
    Xi = (Xi.toarray() if sparse.issparse(Xi) else np.asarray(Xi)).astype(np.float64)
    yi = np.asarray(yi, dtype=np.float64)
    wi = np.asarray(wi, dtype=np.float64)
    raw = wi @ (Xi * Xi)
    raw_y = wi @ (yi * yi)
    if center:
        W = wi.sum()
        Xi = Xi - (wi @ Xi) / W
        yi = yi - (wi @ yi) / W
    root = np.sqrt(wi)
    Z, r = Xi * root[:, None], yi * root
    ss = np.sum(Z * Z, axis=0)
    const = ss <= CONSTANT_RTOL * raw
    if r @ r <= CONSTANT_RTOL * raw_y:
        r = np.zeros_like(r)  # a constant target (up to rounding)
    return Z, r, ss, const


def _pivot(R, cols, l):
    """Squared pivot of standardized column ``l`` after ``cols``: the share
    of its variance left after regressing it on them."""
    if not len(cols):
        return R[l, l]
    G = R[np.ix_(cols, cols)]
    g = R[cols, l]
    return R[l, l] - g @ np.linalg.solve(G, g)


def _pivoted_controls(R, j, candidates, k):
    """The ``k`` controls of feature ``j`` (None: ``j`` is not tested).

    ``candidates`` are walked in order (|r_jl| descending, lower index
    first).  A candidate whose squared pivot after the controls kept is at
    most ``SINGULAR_PIVOT`` (a constant column, a copy of a control) is
    skipped.  One that leaves ``x_j`` no more than that after it and the
    controls kept completes a linear dependency with ``x_j``; as in the OLS
    rule's column-order pivot, its latest column is dropped: ``j`` when
    ``x_j`` is in the span of the columns of the dependency before it
    (then ``j`` is not tested), else the candidate is skipped.  ``j`` is
    also not tested when fewer than ``k`` candidates remain.
    """
    C = []
    if not R[j, j] > SINGULAR_PIVOT:
        return None
    for l in candidates:
        if len(C) == k:
            break
        if not _pivot(R, C, l) > SINGULAR_PIVOT:
            continue
        if not _pivot(R, C + [int(l)], j) > SINGULAR_PIVOT:
            before = [c for c in C + [int(l)] if c < j]
            if l < j and not _pivot(R, before, j) > SINGULAR_PIVOT:
                return None
            continue
        C.append(int(l))
    return np.array(C, dtype=np.intp) if len(C) == k else None


def partial_reference(Xi, yi, wi, k_max, m, center, tcrit_k, tcrit_0,
                      gate=PARTIAL_SPHERICITY_Z):
    """The partial rule of one client, in NumPy (the tests' reference).

    ``k_max`` is :func:`n_controls` of the client, ``m`` its samples of
    positive weight minus ``center``, ``tcrit_k`` / ``tcrit_0`` the critical
    ``|t|`` with ``k_max`` and with no controls.  Returns ``(bits, t, k,
    S)``: the selections, the t statistics (NaN where undefined), the
    number of controls used and the sphericity statistic.
    """
    Z, r, ss, const = _client_arrays(Xi, yi, wi, center)
    d = Z.shape[1]
    live = ~const
    inv_sd = np.where(live, 1.0 / np.sqrt(np.where(live, ss, 1.0)), 0.0)
    R = (Z.T @ Z) * inv_sd[:, None] * inv_sd[None, :]
    dl = int(live.sum())
    S = -np.inf
    if dl >= 2 and m >= 2:
        P = dl * (dl - 1) / 2.0
        mean, var = sphericity_null_moments(m)
        iu = np.triu_indices(d, 1)
        ssq = np.sum(R[iu] ** 2)
        S = (ssq - P * mean) / np.sqrt(P * var)
    k = int(k_max) if S > gate else 0
    df = m - 1 - k
    tcrit = tcrit_k if k else tcrit_0
    t = np.full(d, np.nan)
    yy = r @ r
    if not yy > 0:
        df = 0  # a constant target: no t statistic is defined
    c = (Z.T @ r) * inv_sd  # x_j standardized
    score = tie_key(R)
    np.fill_diagonal(score, -1.0)
    for j in range(d):
        if not live[j] or df < 1:
            continue
        order = np.lexsort((np.arange(d), -score[j]))  # tie_key descending, index ascending
        C = _pivoted_controls(R, j, order[order != j], k)
        if C is None:
            continue
        A = np.concatenate([[j], C])
        GA = R[np.ix_(A, A)]
        inv = np.linalg.inv(GA)
        beta = inv @ c[A]
        rss = max(yy - c[A] @ beta, RSS_FLOOR * yy)
        t[j] = beta[0] / np.sqrt(rss / df * inv[0, 0])
    with np.errstate(invalid="ignore"):
        bits = np.abs(t) > tcrit
    return bits, t, k, S
