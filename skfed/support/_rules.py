"""The client rules of the one-shot protocol and their null selection rate.

A client's selection is either the paper's fixed-lambda rule (the lasso for
uncorrelated predictors, ``|alpha_ij| > lambda_i``) or the ``alpha="auto"``
tests, whose null selection rate :func:`null_selection_rate` the server's
binomial test uses (``_OneShotSupportMixin._vote_rule`` in :mod:`._protocol`).
The Cython side is :mod:`skfed._core._support_fast`.
"""

import numpy as np
from joblib import Parallel, delayed
from scipy import sparse, stats

from .._core._support_fast import (
    client_ols_csr,
    client_ols_dense,
    client_partial_csr,
    client_partial_dense,
    client_pass_csr,
    client_pass_dense,
    ols_work_shape,
    partial_work_size,
)
from .._parallel import node_chunks
from . import _partial
from ._neighbours import link_threshold
from ._partial import PARTIAL_SPHERICITY_Z, n_controls


# The defaults of the auto rule, chosen from the phase-transition evidence of
# benchmarks/support_phase_transition.py (see the user guide).
DEFAULT_AUTO_Z = 1.0
DEFAULT_ROGUE_TOLERANCE = 0.1
DEFAULT_FWER = 0.05
# rogue_tolerance="auto" (see auto_rogue_tolerance): the promised 0.1 for
# clients with the conditional (OLS) statistic, this for the others, whose
# support features reach only 0.33-0.46 against q0 = 0.317 on dense
# correlated designs (benchmarks/support_rogue_auto.py; see the user guide).
SMALL_CLIENT_ROGUE_TOLERANCE = 0.02
# A client uses the OLS t-test when its regression keeps at least this many
# residual degrees of freedom (n_i - d - fit_intercept), else the marginal
# correlation test: below it the t statistics are too noisy to beat the
# marginal test on independent designs (measured at d = 20, 2,000 clients).
OLS_MIN_DF = 3


def null_selection_rate(z):
    """The probability ``2 Phi(-z)`` that an auto-rule client selects a null feature.

    Both client tests of ``alpha="auto"`` (the OLS t-test and the marginal
    correlation test) compare their statistic with the critical value of
    the t distribution whose two-sided tail is the normal tail beyond
    ``z``, so a feature outside the support is selected with exactly this
    probability by every client, whatever its number of samples (Gaussian
    noise for the OLS test; a Gaussian feature independent of the target
    and of the other features for the marginal test).
    """
    return float(2.0 * stats.norm.sf(z))


def ols_client(n_positive, d, center):
    """Whether a client of ``n_positive`` samples runs the OLS t-test.

    It needs ``n_positive - d - center >= OLS_MIN_DF`` residual degrees of
    freedom (a client whose Gram matrix turns out singular drops columns and
    keeps at least as many; with ``vote="sign"`` it falls back to the
    partial rule, which the server cannot know and this ignores).
    """
    return np.asarray(n_positive, dtype=np.int64) - int(d) - int(center) >= OLS_MIN_DF


def auto_rogue_tolerance(n_positive, d, center):
    """The rogue fraction ``rogue_tolerance="auto"`` tolerates.

    Resolved from public quantities only (the answering clients' numbers of
    samples, ``d`` and whether they centre), never from the votes, so rogue
    clients cannot steer it::

        f    = the fraction of the clients with n_i >= d + center + 3
               (those that test each feature given all the others)
        beta = SMALL_CLIENT_ROGUE_TOLERANCE
               + (DEFAULT_ROGUE_TOLERANCE - SMALL_CLIENT_ROGUE_TOLERANCE) f

    A client with the conditional statistic selects a support feature of a
    few noise sd with probability near 1 and any other at ``q0``, so the
    promised margin ``beta / (1 - beta)`` is cheap; a smaller client tests
    each feature on its few rows (given its closest features, or
    marginally), where a support feature among many correlated strong ones
    is selected barely above ``q0`` and the margin would hide it.  The
    weighting by ``f`` keeps the margin that the OLS clients' votes can
    pay for in a mix.  Returns 0.0 when no client answered.

    This is the margin of a feature that every answering client tested.
    Clients that cannot test a feature (it is constant on them, or
    collinear with the columns before it) do not report it, and a rogue
    client can claim it tested any feature, so the server widens feature
    ``j``'s margin to ``min(1, beta a_j / n_j)`` (``n_j`` its reports,
    ``a_j`` the clients assigned to report it;
    ``_OneShotSupportMixin._server_vote``).
    """
    n_positive = np.asarray(n_positive, dtype=np.int64)
    if n_positive.size == 0:
        return 0.0
    f = float(np.mean(ols_client(n_positive, d, center)))
    return SMALL_CLIENT_ROGUE_TOLERANCE + (
        DEFAULT_ROGUE_TOLERANCE - SMALL_CLIENT_ROGUE_TOLERANCE) * f


# The sphericity gate is off (every small client uses its controls) while
# the clients have at least one sample per GATE_OFF_FEATURES_PER_SAMPLE
# features (their median size); wider clients keep the gate at
# WIDE_SPHERICITY_Z and one control per WIDE_SAMPLES_PER_CONTROL samples,
# or run the marginal test (below).  Measured
# (benchmarks/support_client_rule.py, 10,000 clients of 10 samples): without
# the gate no feature outside the support stays above the reference at
# d = 20-200, where the gate left 6 of 22 problems with one; at d = 1000 on
# independent features the controls are the largest of 999 chance
# correlations and the support (10 features of 3 noise sd) is selected at
# 0.34 against the reference 0.331: F1 0 without the gate, exact with it
# (3 problems, the former measurement).  The bound 20 lies between the
# measured d = 200 (20 x 10) and d = 1000 (100 x 10).
GATE_OFF_FEATURES_PER_SAMPLE = 20
WIDE_SPHERICITY_Z = 0.5
WIDE_SAMPLES_PER_CONTROL = 4
# Very wide clients run the marginal test instead when the neighbour stage
# runs and its sketches link two features correlated LINKED_CORRELATION
# (sketches_link).  Two chance controls among 999 features (|r| about 0.85
# in 10 rows) leave a feature a fraction of its variance: on Toeplitz
# 1000/10 seed 1 at 10,000 x 10, where 93 % of the clients passed the gate,
# the support's rates fell from 0.41-0.54 (marginal test) to 0.336-0.387
# and two support features, whose marginal signal a support feature of the
# other sign two places away cuts by a quarter, stayed under the reference
# 0.331 (F1 0.89).  The marginal test also selects the support's
# neighbours, which only the stage removes, so it needs the links: on the
# heterogeneous design (per-client rho in [0, 0.5], adjacent features
# correlated 0.25 on average) 1,000 sketches did not link them (F1 0.55-0.87
# at 1,000 x 30, 4 of 6 problems); at 2,000 x 10 the marginal test missed
# one problem of 18 (heterogeneous 1000/3 seed 1: F1 0.75-0.86) where the
# gated rule missed Toeplitz 1000/10 on all three seeds (F1 0.18-0.33), and
# at 4,000 and 10,000 x 10 it was exact on every d = 1000 problem measured
# (benchmarks/support_neighbour_sketch.py).
# 0.25 puts the switch between them: about 1,440 small clients at d = 1000
# (1,270 at d = 400).
LINKED_CORRELATION = 0.25


def sketches_link(n_positive, d, center, fwer, beta):
    """Whether the neighbour stage's sketches would link two features
    correlated ``LINKED_CORRELATION`` (public quantities only).

    With ``g_s`` small clients (``n_i < d + 3 + center``) among ``g``, the
    stage links a pair whose sign agreement, net of a rogue share ``b =
    min(1, beta g / g_s)``, exceeds ``Phi^{-1}(1 - fwer / (2 d^2)) /
    sqrt(g_s)``; a correlation ``rho`` agrees on ``2 arcsin(rho) / pi``.
    """
    n_positive = np.asarray(n_positive, dtype=np.int64)
    g = n_positive.size
    g_s = int(np.sum(~ols_client(n_positive, d, center)))
    if g_s == 0 or d < 2:
        return False
    b = min(1.0, beta * g / g_s)
    if b >= 1.0:
        return False
    m = 2.0 * np.arcsin(LINKED_CORRELATION) / np.pi
    return bool((m - b) / (1.0 - b) > link_threshold(fwer, d, g_s))


def wide_clients(n_positive, d):
    """Whether the clients are very wide: ``d > GATE_OFF_FEATURES_PER_SAMPLE
    * median(n_i)`` (public quantities only).

    Their closest features are then chance correlations: the small-client
    rule keeps the sphericity gate or runs the marginal test
    (:func:`small_client_rule`), and under
    the selection vote their clients send the sketch of the neighbour stage
    (:mod:`skfed.support._neighbours`), whose model (a nearly marginal test
    of a feature next to a selected one) holds there.
    """
    n_positive = np.asarray(n_positive)
    return bool(n_positive.size
                and d > GATE_OFF_FEATURES_PER_SAMPLE * float(np.median(n_positive)))


def small_client_rule(n_positive, d, marginal=False, wide=None):
    """``(gate, samples_per_control)`` of the small-client rule for this fit.

    Public quantities only (the clients' numbers of samples of positive
    weight and ``d``): the gate is off (``PARTIAL_SPHERICITY_Z``, one
    control per ``PARTIAL_SAMPLES_PER_CONTROL`` samples) when ``d <=
    GATE_OFF_FEATURES_PER_SAMPLE * median(n_i)``, else ``(WIDE_SPHERICITY_Z,
    WIDE_SAMPLES_PER_CONTROL)``, or shut (``inf``: every small client runs
    the marginal test) when ``marginal`` (the fit's choice, see
    ``LINKED_CORRELATION``).  ``wide``: the fit's :func:`wide_clients`
    switch, read from its answering clients' counts (None: from
    ``n_positive``).
    """
    if not (wide_clients(n_positive, d) if wide is None else wide):
        return PARTIAL_SPHERICITY_Z, _partial.PARTIAL_SAMPLES_PER_CONTROL
    return (np.inf if marginal else WIDE_SPHERICITY_Z), WIDE_SAMPLES_PER_CONTROL


def _critical_values(z, df):
    """Critical |t| of a two-sided test of level ``2 Phi(-z)`` with ``df`` dof.

    ``df`` may repeat (one entry per client): each distinct value is
    computed once (integer degrees of freedom through a lookup table, in
    linear time).  Entries with ``df < 1`` get ``inf`` (nothing selected).
    """
    df = np.asarray(df, dtype=np.float64)
    out = np.full(df.shape, np.inf)
    ok = df >= 1
    if not ok.any():
        return out
    tail = stats.norm.sf(z)
    if not tail > 0:
        return out
    dfs = df[ok]
    whole = dfs.astype(np.int64)
    if np.array_equal(whole, dfs) and whole.max() < 10 * len(dfs) + 1000:
        values = np.flatnonzero(np.bincount(whole))
        table = np.full(int(whole.max()) + 1, np.inf)
        table[values] = stats.t.isf(tail, values)
        out[ok] = table[whole]
    else:
        values, inverse = np.unique(dfs, return_inverse=True)
        out[ok] = stats.t.isf(tail, values)[inverse]
    return out


# Clients are processed this many at a time, so that the per-client
# statistics the Cython pass fills (four float64 arrays of shape
# (clients, d)) never take more than a few megabytes.
_CLIENT_BLOCK = 4096


def _client_chunk(X, y, sample_weight, offsets, lam, df, tcrit, ols, auto, center,
                  controls=None, dof=None, tcrit_partial=None, tcrit_marginal=None,
                  gate=-np.inf, sign_seeds=None, z=DEFAULT_AUTO_Z):
    """Client pass of a run of consecutive nodes; returns their bits.

    ``X``, ``y`` and ``sample_weight`` hold only these nodes' rows and
    ``offsets`` starts at 0, so a chunk ships only its own data to a joblib
    worker (thread, process or Dask worker) and its result comes back as
    return values, never through shared memory.  ``ols`` marks the nodes
    that run the OLS t-test (residual degrees of freedom ``df``, critical
    values ``tcrit``).  A node whose Gram matrix is singular drops its
    constant columns and the columns collinear with the ones before them
    (:func:`ols_reference`: the column-order pivot) and tests the others at
    ``df`` plus the dropped columns (multiplier ``z``); it does not test
    the dropped ones.  With ``auto`` every other node runs the partial rule
    of :mod:`._partial` (``controls``: its number of controls when its
    design is correlated; ``dof``: its positive-weight samples minus
    ``center``; the critical values with those controls and with none) and
    does not test the features whose t statistic is undefined there; else
    the fixed lambda (every feature tested).

    With ``sign_seeds`` (one row ``(seed, node index)`` per node) every node
    runs the sign rule of :func:`sign_reference` instead: the bit is the
    sign of the OLS coefficient for the ``ols`` nodes of a non-singular
    Gram matrix, else of ``t_j`` of the partial pass with ``controls`` and
    no gate (an ``ols`` node of a singular Gram matrix falls back to it and
    is unmarked in the returned ``ols``); where it is undefined the node
    sends a fair coin drawn from its seed, and every feature counts as
    tested.

    Returns ``(packed, ols, controls, tested)`` (``controls``: the controls
    each node used, 0 for the OLS nodes and the marginal tests;
    ``tested``: the features each node tested, packed as ``packed``, or
    None when every node tested every feature).
    """
    n_nodes = len(offsets) - 1
    d = X.shape[1]
    packed = np.zeros((n_nodes, (d + 7) // 8), dtype=np.uint8)
    ols = np.array(ols, dtype=bool)
    used = np.zeros(n_nodes, dtype=np.intp)
    block = min(n_nodes, _CLIENT_BLOCK)
    stats_ = [np.zeros((block, d)) for _ in range(4)]
    work = np.zeros(ols_work_shape(d)) if ols.any() else None
    is_sparse = sparse.issparse(X)
    partial_work = np.zeros(0)
    sphericity = np.zeros(block)
    sizes = np.diff(offsets)
    tested = None  # (packed like the bits, allocated at the first abstention)
    for first in range(0, n_nodes, block):
        last = min(first + block, n_nodes)
        lo, hi = offsets[first], offsets[last]
        Xb, yb, wb = X[lo:hi], y[lo:hi], sample_weight[lo:hi]
        off = np.ascontiguousarray(offsets[first : last + 1] - lo)
        out = [a[: last - first] for a in stats_] + [packed[first:last]]
        if is_sparse:
            csr = (Xb.data, Xb.indices.astype(np.intp, copy=False),
                   Xb.indptr.astype(np.intp, copy=False), d)
        todo = ols[first:last]
        if todo.any():
            solved = np.zeros(last - first, dtype=np.uint8)
            nodes = np.flatnonzero(todo).astype(np.intp)
            args = (off, nodes, df[first:last], tcrit[first:last], center, *out, solved, work)
            if is_sparse:
                client_ols_csr(*csr, yb, wb, *args)
            else:
                client_ols_dense(Xb, yb, wb, *args)
            pivoted = np.flatnonzero(solved == 2)
            if sign_seeds is not None:
                todo &= solved == 1
            elif len(pivoted):
                tested = _pivoted_bits(out[3], out[2], pivoted, df[first:last], z,
                                       packed[first:last], tested, first, n_nodes)
        if sign_seeds is not None:
            signs = np.zeros((last - first, d), dtype=bool)
            _sign_bits(out[3], np.flatnonzero(todo), sign_seeds[first:last], signs)
        nodes = np.flatnonzero(~todo).astype(np.intp)
        if not len(nodes):
            if sign_seeds is not None:
                packed[first:last] = np.packbits(signs, axis=1, bitorder="little")
            continue
        if auto:
            need = partial_work_size(int(sizes[first:last][nodes].max()), d)
            if len(partial_work) < need:
                partial_work = np.zeros(need)
            args = (off, nodes, controls[first:last], dof[first:last],
                    tcrit_partial[first:last], tcrit_marginal[first:last],
                    gate, center, out[0], packed[first:last],
                    used[first:last], sphericity[: last - first], partial_work)
            if is_sparse:
                client_partial_csr(*csr, yb, wb, *args)
            else:
                client_partial_dense(Xb, yb, wb, *args)
            undefined = nodes[np.isnan(out[0][nodes]).any(axis=1)]
            if sign_seeds is None and len(undefined):
                tested = _abstain(~np.isnan(out[0][undefined]), undefined + first,
                                  tested, n_nodes)
            if sign_seeds is not None:
                _sign_bits(out[0], nodes, sign_seeds[first:last], signs)
                packed[first:last] = np.packbits(signs, axis=1, bitorder="little")
        else:
            args = (off, nodes, lam[first:last], auto, center, *out, np.zeros((1, d)))
            if is_sparse:
                client_pass_csr(*csr, yb, wb, *args)
            else:
                client_pass_dense(Xb, yb, wb, *args)
    return packed, ols, used.astype(np.int64), tested


def _abstain(kept, rows, tested, n_nodes):
    """Record that nodes ``rows`` tested only the features ``kept`` (one
    boolean row each) in ``tested`` (packed; allocated all ones)."""
    d = kept.shape[1]
    if tested is None:
        tested = np.zeros((n_nodes, (d + 7) // 8), dtype=np.uint8)
        tested[:] = np.packbits(np.ones(d, dtype=bool), bitorder="little")
    tested[rows] = np.packbits(kept, axis=1, bitorder="little")
    return tested


def _pivoted_bits(coef, se, rows, df, z, packed, tested, first, n_nodes):
    """Finish the OLS nodes ``rows`` whose pivot dropped columns (the
    compiled pass left ``coef`` and ``se`` NaN for the dropped columns and
    set no bit): test the kept columns at ``df`` plus the dropped ones, set
    the bits in ``packed`` and the kept columns in ``tested`` (returned)."""
    kept = ~np.isnan(coef[rows])
    d = kept.shape[1]
    tcrit = _critical_values(z, df[rows] + (d - kept.sum(axis=1)))
    with np.errstate(invalid="ignore"):
        bits = kept & (np.abs(coef[rows]) > tcrit[:, None] * se[rows])
    se[rows] *= tcrit[:, None]  # (the threshold the bit compares with)
    packed[rows] = np.packbits(bits, axis=1, bitorder="little")
    return _abstain(kept, rows + first, tested, n_nodes)


def ols_reference(Xi, yi, wi, center, z=DEFAULT_AUTO_Z):
    """The OLS client rule on one client, in NumPy (the tests' reference).

    The client centres its rows on its weighted means (``center``), drops
    the columns constant on it (weighted centred sum of squares at most
    ``1e-10`` of the raw one) and walks the others in column order, keeping
    a column when the share of its centred sum of squares left after
    regressing it on the columns kept before it exceeds ``1e-9`` (a
    Gram-Schmidt pivot; in a one-hot group the last level present on the
    client is dropped).  It regresses ``y`` on the ``k`` kept columns and
    selects ``|t_j| > c``, ``c`` the critical value of the two-sided level
    ``2 Phi(-z)`` at ``df = n_i - center - k`` degrees of freedom (``n_i``
    its samples of positive weight).

    Returns ``(tested, selected, t)``: the kept columns, the bits and the t
    statistics (NaN for the dropped columns).
    """
    wi = np.asarray(wi, dtype=np.float64)
    pos = wi > 0
    X = np.asarray(Xi, dtype=np.float64)[pos]
    y = np.asarray(yi, dtype=np.float64)[pos]
    w = wi[pos]
    raw = np.einsum("ij,ij,i->j", X, X, w)
    if center:
        X = X - np.average(X, axis=0, weights=w)
        y = y - np.average(y, weights=w)
    sw = np.sqrt(w)
    Z = X * sw[:, None]
    r = y * sw
    d = Z.shape[1]
    ss = np.einsum("ij,ij->j", Z, Z)
    kept = np.zeros(d, dtype=bool)
    Q = np.zeros((Z.shape[0], 0))
    for j in range(d):
        if not ss[j] > 1e-10 * raw[j]:
            continue
        left = Z[:, j] - Q @ (Q.T @ Z[:, j])
        left = left - Q @ (Q.T @ left)
        if left @ left > 1e-9 * ss[j]:
            kept[j] = True
            Q = np.column_stack([Q, left / np.sqrt(left @ left)])
    df = len(y) - int(center) - int(kept.sum())
    t = np.full(d, np.nan)
    A = Z[:, kept]
    coef = np.linalg.lstsq(A, r, rcond=None)[0]
    resid = r - A @ coef
    rss = max(float(resid @ resid), 1e-12 * float(r @ r))
    t[kept] = coef / np.sqrt(rss / df * np.diag(np.linalg.inv(A.T @ A)))
    crit = _critical_values(z, [df])[0]
    with np.errstate(invalid="ignore"):
        return kept, kept & (np.abs(t) > crit), t


def _sign_bits(t, nodes, seeds, bits):
    """Set the rows ``nodes`` of ``bits`` to ``t > 0`` (a t statistic or a
    coefficient); an undefined (NaN) value becomes a fair coin from the
    node's seed, so that a feature constant on a client stays at 1/2."""
    with np.errstate(invalid="ignore"):
        bits[nodes] = t[nodes] > 0
    for i in nodes[np.isnan(t[nodes]).any(axis=1)]:
        undefined = np.isnan(t[i])
        coin = np.random.default_rng([int(seeds[i, 0]), int(seeds[i, 1]), SIGN_COIN_STREAM])
        bits[i, undefined] = coin.random(int(undefined.sum())) < 0.5


# vote="sign" (see sign_reference): every client tests each feature given
# its SIGN_CONTROLS closest features.  Measured in the NumPy simulation
# (benchmarks/support_one_bit_rules.py, 16 problems, d = 20-200,
# 10-sample clients): with 6 controls the weakest support feature's sign
# fraction is far enough from the median for exact recovery from 71-1,419
# clients, where the tail vote needs 10^5-10^6 clients on Toeplitz and
# heterogeneous 20/10 (see the user guide).  7 (m - 2 at 10 centred
# samples, the most that keep the t statistic defined) rather than 6: a
# feature next to a support feature is biased when its controls miss that
# support feature, and one more control misses it less often.  In the
# simulation (50,000 clients of 10 samples, distance to the median of the
# fractions; the band is the median +- 0.05 as clients grow) the farthest
# feature outside the support went 0.029 / 0.040 / 0.047 / 0.043 / 0.024
# -> 0.024 / 0.030 / 0.037 / 0.025 / 0.021 on Toeplitz 20/3 seeds 0-4 and
# 0.046 / 0.045 -> 0.031 / 0.027 on Toeplitz 50/5 seeds 0 / 2, the weakest
# support feature 0.29-0.33 -> 0.25-0.29 and 0.16 -> 0.13 (8 controls:
# nulls 0.010-0.020 but support 0.08 on Toeplitz 50/5); the estimator's
# Toeplitz 20/3 seed 2 neighbour, +0.001 beyond the sign band at 100,000
# clients with 6, is 0.013 inside it with 7 (benchmarks/support_many_clients.py).
SIGN_CONTROLS = 7
# ... and a larger client uses as many as the OLS test's degrees of
# freedom allow (m - 1 - OLS_MIN_DF controls, m = its centred samples;
# continuous with the OLS clients, which use all d - 1 others).  A feature
# next to a support feature whose controls miss a support feature
# correlated with it has a biased coefficient whose sign fraction moves
# away from the median about as sqrt(n_i); more controls remove the bias.
# In the simulation at 30 samples (Toeplitz 50/5, median band) the
# strongest feature outside the support lay beyond the band with 6
# controls (+0.001 / +0.007 / +0.028 on seeds 0 / 1 / 2) and with 19 on
# seed 2 (+0.019), inside it with 25 = m - 4 (-0.013; the weakest support
# feature 0.28 beyond it against 0.36-0.40 with 6-19 controls)
# (benchmarks/support_one_bit_rules.py --n 30 --rules sign:closest:K).
# At most SIGN_MAX_CONTROLS (the compiled pass's limit; each feature's
# system costs about K^3 / 3 operations).
SIGN_MAX_CONTROLS = 32
SIGN_COIN_STREAM = 5003
# rogue_tolerance="auto" for vote="sign": rogue clients move a feature's
# fraction and the median in opposite directions, so a fraction beta of
# them can shift a feature's distance to the centre by up to beta; the band
# is centre +- beta, and 0.05 keeps the band of the measurements made with
# the former half-width beta / 2 at beta = 0.1 (see the user guide).
SIGN_ROGUE_TOLERANCE = 0.05
# vote="auto" sends signs from this many candidate features on (the
# smallest d measured, benchmarks/support_vs_pooled.py --votes selection
# sign; see the user guide), the selection bits below it: the median of a
# few features' fractions is a null feature's only for a very sparse model.
SIGN_MIN_FEATURES = 20
# ... and from this many clients on: a feature whose clients' signs agree
# at 0.7 against the band's 0.55 needs about log(d / fwer) / KL(0.7 ||
# 0.55) = 130-210 clients (d = 20-1000), and the comparisons of the two
# votes were measured from 1,000 clients on (1,000 x 30, 10,000 x 10).
SIGN_MIN_CLIENTS = 1000
# ... and only for clients of at most this many samples (their median): a
# feature next to a support feature whose controls miss a support feature
# correlated with it has a biased coefficient, and the sign fraction's
# distance from the median grows with the client's samples (about as
# sqrt(n_i)).  At 10 samples it stayed inside the band on every problem
# measured (0.001-0.044 inside); at 30 samples a Toeplitz d = 50
# neighbour lay 0.001-0.007 outside it (benchmarks/support_one_bit_rules.py
# --problems toeplitz:50:5 --n 30) and the phase transition fell from 1 at
# 3,000 clients to 0.2 at 10,000 (support_phase_transition.py --only C),
# both with 6 controls; with m - 4 controls (25) Toeplitz 50/5 at 30
# samples is exact on seeds 0-2 up to 30,000 clients, its closest
# neighbour 0.008 inside the band (support_many_clients.py; the guide).
SIGN_MAX_SAMPLES = 10
# ... and at least this many (their median): smaller clients can afford
# fewer controls (m - 2), miss a support feature next to the tested one
# more often, and the bias reaches the band.  In the simulation (Toeplitz
# 20/3 seeds 0-3, 20/10 seed 1, 50/5 seed 0; 50,000 clients; distance of
# the farthest feature outside the support to the median, the band
# tending to 0.05): 9 samples (6 controls) 0.018-0.040, 8 samples (5)
# 0.017-0.047, 6 samples (3) 0.026-0.068 (benchmarks/support_sign_controls.py).
SIGN_MIN_SAMPLES = 9


def sign_centre_margin(n_features, n_min, z):
    """The band's widening for the median's own noise (``vote="sign"``).

    The server's centre is the median of the ``n_features`` answered
    features' fractions (received scale), each a binomial fraction over at
    least ``n_min`` reports, of standard deviation at most ``sigma = 1 / (2
    sqrt(n_min))``, at a common rate ``c`` for the features outside the
    support.  Feature ``j``'s distance to the median of all fractions is
    never larger than its distance to the median ``m_-j`` of the others
    (adding ``f_j`` moves the median towards it), and ``m_-j`` is
    independent of ``f_j`` with a variance of at most ``pi sigma^2 / (2
    (n_features - 1))`` (the large-sample variance of the median of
    normal fractions, which bounds the exact one for every number of
    them: 1 / 0.5 / 0.449 / 0.298 sigma^2 for 1 / 2 / 3 / 4 of them, against
    1.57 / 0.79 / 0.52 / 0.39).  A test whose critical distance is ``z
    sd(f_j - m_-j)`` is therefore at its level, and the binomial test at
    ``z`` of the fraction against the band's end reaches it with the end
    moved out by ``t = z (sqrt(sigma^2 + pi sigma^2 / (2 (n - 1))) -
    sigma)``.

    Parameters
    ----------
    n_features : int
        Features with at least one report.
    n_min : int
        The smallest number of reports of such a feature (at least 1).
    z : float
        The normal quantile of each side's level (``fwer / (2 d)``).

    Returns
    -------
    margin : float
        ``t`` on the received (not debiased) scale; 0.0 with fewer than 2
        answered features (the median is then the feature's own fraction).
    """
    n = int(n_features)
    if n < 2:
        return 0.0
    sigma = 0.5 / np.sqrt(float(n_min))
    return float(z) * sigma * (np.sqrt(1.0 + np.pi / (2.0 * (n - 1))) - 1.0)


def sign_controls(n_positive, d, center):
    """Controls ``K`` of a ``vote="sign"`` client with ``n_positive`` samples.

    ``min(max(SIGN_CONTROLS, m - 1 - OLS_MIN_DF), SIGN_MAX_CONTROLS, d - 1,
    m - 2)`` with ``m = n_positive - center``, at least 0: ``m - 2`` up
    to 10 samples (7 at 10), 7 up to 12, then the OLS test's 3 residual
    degrees of freedom (25 controls at 30 samples), at most 32, never more than the other
    features, and the regression of ``y`` on ``[x_j, x_C]`` keeps one
    residual degree of freedom, so its t statistic (whose sign is the bit)
    is defined.

    Parameters
    ----------
    n_positive : array-like of int
        Each client's samples of positive weight.
    d : int
        The number of features.
    center : bool
        Whether the clients' data are centred (one degree of freedom).

    Returns
    -------
    k : ndarray of int64
        The controls of each client.
    """
    m = np.asarray(n_positive, dtype=np.int64) - int(center)
    k = np.minimum(np.maximum(SIGN_CONTROLS, m - 1 - OLS_MIN_DF),
                   min(SIGN_MAX_CONTROLS, int(d) - 1))
    return np.maximum(np.minimum(k, m - 2), 0)


def sign_reference(Xi, yi, wi, center):
    """The ``vote="sign"`` bits of one client, in NumPy (the tests' reference).

    A client with the OLS test's degrees of freedom (:func:`ols_client`)
    sends the signs of its least-squares coefficients on all ``d``
    features (given all the others, a null feature's coefficient is
    symmetric about 0).  A smaller one uses ``K = sign_controls(n_i, d)``
    controls ``C_j`` (the features most correlated with ``x_j`` in the
    client's rows, from ``X`` alone; ties: lower index) and the bit ``b_j =
    [t_j > 0]``, the sign of ``x_j``'s coefficient in the least-squares
    regression of ``y`` on ``[x_j, x_{C_j}]``.  Returns ``(bits, t)`` with ``t`` NaN where undefined (a
    constant feature or a singular system; the estimator then sends a fair
    coin, which this leaves False).
    """
    wi = np.asarray(wi, dtype=np.float64)
    n_pos = int(np.sum(wi > 0))
    d = np.shape(Xi)[1]
    if ols_client(n_pos, d, center):
        Z, r, _, _ = _partial._client_arrays(Xi, yi, wi, center)
        coef = np.linalg.solve(Z.T @ Z, Z.T @ r)
        return coef > 0, coef
    k = int(sign_controls(n_pos, d, center))
    m = n_pos - int(center)
    _, t, _, _ = _partial.partial_reference(Xi, yi, wi, k, m, center, np.inf, np.inf)
    with np.errstate(invalid="ignore"):
        return t > 0, t


def _client_pass(X, y, sample_weight, offsets, lam, z, auto, center, n_jobs,
                 n_positive=None, sign_seed=None, first_node=0, wide_marginal=False,
                 wide=None):
    """Run the client pass of every node (joblib over chunks of nodes).

    ``lam`` holds each client's lambda (a fixed-lambda rule); with ``auto``
    it is ignored and every client runs the auto rule at multiplier ``z``:
    the OLS t-test when it has at least ``OLS_MIN_DF`` residual degrees of
    freedom, else the partial rule of :mod:`._partial` (each feature given
    its ``k`` closest features when the client's design is correlated, the
    marginal t-test otherwise and for the smallest clients), all at the null
    selection rate :func:`null_selection_rate` ``(z)``.  The degrees of
    freedom count the client's samples of positive weight.

    With ``sign_seed`` (an integer; ``vote="sign"``) every client runs the
    sign rule instead (:func:`sign_reference`; its undefined statistics
    become coins drawn from ``sign_seed`` and the node's index, counted
    from ``first_node``: clients joining ``n_old`` fitted ones pass
    ``first_node=n_old`` and draw the coins a fit on all clients draws).

    ``wide_marginal``: very wide clients run the marginal test (the fit's
    choice, :func:`small_client_rule`); ``wide``: the fit's very-wide
    switch (None: :func:`wide_clients` of ``n_positive``).

    Returns ``(packed, ols, controls, tested)`` with one row per node
    (``packed``: its bits; ``ols``: the nodes that used the OLS t-test;
    ``controls``: the controls used by the nodes that ran the partial rule,
    else 0; ``tested``: the features it tested, packed, or None when every
    node tested every feature: see :func:`_client_chunk`);
    every node's row depends on its own data only, so the result does not
    depend on ``n_jobs`` or on the joblib backend.
    """
    n_nodes = len(offsets) - 1
    d = X.shape[1]
    tcrit = np.zeros(n_nodes)
    df_ols = np.zeros(n_nodes)
    ols = np.zeros(n_nodes, dtype=bool)
    controls = np.zeros(n_nodes, dtype=np.intp)
    dof = np.zeros(n_nodes)
    tcrit_partial = np.zeros(n_nodes)
    tcrit_marginal = np.zeros(n_nodes)
    gate = -np.inf
    seeds = None
    if sign_seed is not None:
        if n_positive is None:
            n_positive = np.add.reduceat((sample_weight > 0).astype(np.int64), offsets[:-1])
        n_positive = np.asarray(n_positive, dtype=np.int64)
        controls = sign_controls(n_positive, d, center).astype(np.intp)
        dof = (n_positive - int(center)).astype(np.float64)
        # A client with the OLS test's degrees of freedom sends the sign of
        # its coefficient given all the other features.
        df_ols = (n_positive - d - int(center)).astype(np.float64)
        ols = df_ols >= OLS_MIN_DF
        tcrit = np.full(n_nodes, np.inf)
        tcrit_partial = np.full(n_nodes, np.inf)
        tcrit_marginal = np.full(n_nodes, np.inf)
        seeds = np.column_stack([np.full(n_nodes, int(sign_seed), dtype=np.int64),
                                 np.arange(first_node, first_node + n_nodes,
                                           dtype=np.int64)])
        auto = True
    elif auto:
        if n_positive is None:
            n_positive = np.add.reduceat((sample_weight > 0).astype(np.int64), offsets[:-1])
        n_positive = np.asarray(n_positive, dtype=np.int64)
        df_ols = n_positive - d - int(center)
        ols = df_ols >= OLS_MIN_DF
        tcrit = _critical_values(z, np.where(ols, df_ols, 0))
        # Every client may run the partial rule (an OLS client whose Gram
        # matrix turns out singular falls back to it).
        gate, per_control = small_client_rule(n_positive, d, wide_marginal, wide)
        controls = n_controls(n_positive, d, center, per_control).astype(np.intp)
        dof = (n_positive - int(center)).astype(np.float64)
        tcrit_partial = _critical_values(z, dof - 1 - controls)
        tcrit_marginal = _critical_values(z, dof - 1)
    bounds = node_chunks(n_nodes, n_jobs)

    def chunk_args(first, last):
        lo, hi = offsets[first], offsets[last + 1]
        return (
            X[lo:hi], y[lo:hi], sample_weight[lo:hi],
            np.ascontiguousarray(offsets[first : last + 2] - lo),
            np.ascontiguousarray(lam[first : last + 1], dtype=np.float64),
            np.ascontiguousarray(df_ols[first : last + 1], dtype=np.float64),
            np.ascontiguousarray(tcrit[first : last + 1]),
            ols[first : last + 1], auto, center,
            np.ascontiguousarray(controls[first : last + 1]),
            np.ascontiguousarray(dof[first : last + 1]),
            np.ascontiguousarray(tcrit_partial[first : last + 1]),
            np.ascontiguousarray(tcrit_marginal[first : last + 1]),
            gate,
            None if seeds is None else seeds[first : last + 1],
            z,
        )

    if len(bounds) <= 1:
        return _client_chunk(*chunk_args(0, n_nodes - 1))
    parts = Parallel(n_jobs=len(bounds), prefer="threads")(
        delayed(_client_chunk)(*chunk_args(first, stop - 1)) for first, stop in bounds
    )
    packed, ols, controls, tested = zip(*parts)
    if all(t is None for t in tested):
        tested = None
    else:
        full = np.packbits(np.ones(d, dtype=bool), bitorder="little")
        tested = np.concatenate([np.broadcast_to(full, p.shape) if t is None else t
                                 for p, t in zip(packed, tested)])
    return np.concatenate(packed), np.concatenate(ols), np.concatenate(controls), tested


# The small-client warning fires when a feature must be correlated with the
# target at least this much for the typical small client to detect it often
# enough to be kept (a feature of 3 noise sd among 3 such has correlation
# 0.55; among 10, 0.31).
WEAK_CLIENT_CORRELATION = 0.4


def detectable_correlation(m, z, min_fraction, k=0):
    """The smallest |corr(x_j, y)| that a client of ``m`` centred Gaussian
    samples detects with probability ``min_fraction``, given ``k`` controls.

    ``k = 0`` is the marginal test.  With ``k`` controls independent of
    ``x_j`` (``rho`` is then also the partial correlation), the feature's
    sum of squares given them is ``s`` (``chi^2_{m - k}`` times its
    variance) and the test's statistic is noncentral t with ``m - 1 - k``
    degrees of freedom and noncentrality ``sqrt(s) rho / sqrt(1 - rho^2)``
    (in units of the feature's and the residual's sd); the detection rate
    averages that over 256 quantiles of ``chi^2_{m - k}``.  Returns 1.0
    when even a correlation of 0.999 would not do.
    """
    df = m - 1 - k
    if df < 1 or min_fraction >= 1.0:
        return 1.0
    t = _critical_values(z, [df])[0]
    root = np.sqrt(stats.chi2.ppf((np.arange(256) + 0.5) / 256, m - k))

    def rate(rho):
        nc = root * rho / np.sqrt(1.0 - rho * rho)
        return float(np.mean(stats.nct.sf(t, df, nc) + stats.nct.cdf(-t, df, nc)))

    lo, hi = 0.0, 0.999
    if rate(hi) < min_fraction:
        return 1.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rate(mid) < min_fraction else (lo, mid)
    return hi


def small_client_warning(n_positive, ols, answered, n_reports, reference, fwer, z, center,
                         name):
    """The message that small clients leave the vote without power, or None.

    When most answering clients have fewer than ``d + 4`` samples, a feature
    must reach the vote fraction the server's test needs (given the number
    of reports) in clients of the median such size; if only a feature
    correlated at least :data:`WEAK_CLIENT_CORRELATION` with the target
    reaches it, the fit returns few or no features and the user should hear
    why.
    """
    small = answered & ~ols
    if not small.any() or small.sum() < 0.5 * answered.sum():
        return None
    n_max = int(n_reports.max())
    d = len(n_reports)
    votes = np.arange(n_max + 1)
    passing = stats.binom.sf(votes - 1, n_max, reference) <= fwer / d
    min_fraction = votes[passing][0] / n_max if passing.any() else 1.0
    n_median = int(np.median(n_positive[small]))
    gate, per_control = small_client_rule(n_positive[answered], d)
    k = int(n_controls(n_median, d, center, per_control))
    if gate > -np.inf:
        k = 0  # (with the gate on, the typical independent client runs the marginal test)
    rho = detectable_correlation(n_median - int(center), z, min_fraction, k)
    if rho < WEAK_CLIENT_CORRELATION:
        return None
    need = ("no correlation is enough" if rho >= 1.0 else
            f"only a feature whose correlation with the target is at least {rho:.2f} "
            f"(one that explains {rho * rho:.0%} of its variance) reaches that")
    return (
        f"{int(small.sum())} of the {int(answered.sum())} answering clients of {name} have "
        f"fewer than n_features + 4 = {d + 4} samples (median {n_median}), so each tests "
        f"every feature on its own few samples. With {n_max} reports a "
        f"feature must be selected by {min_fraction:.1%} of the clients to pass the server's "
        f"test, and in a client of {n_median} samples {need}: weaker features are missed "
        "and the support may be nearly empty. More samples per client, more clients, or "
        "fewer features help; see 'When not to use it' in the user guide."
    )
