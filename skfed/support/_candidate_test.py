"""The test round of :class:`FederatedSparseLinearRegression`'s wider refit:
whether the candidates' residual products say the support is not enough.

With ``refit_candidates`` the server first fits least squares on the support
``S`` (round 2), broadcasts those coefficients, and each answering client
sends one float32 per candidate off the support: the candidate's product with
its residual.  Only if the test below rejects "the support is enough" does
the server ask for the candidates' statistics (their Gram and products with
``y``) and run the cross-validated choice of :mod:`._wide_refit`.  On an
exactly sparse model whose support the vote found, the clients then send
``s (s + 1) / 2 + s`` float64 and ``c - s`` float32 instead of ``c (c + 1)
/ 2 + c`` float64.
"""

import numpy as np
from sklearn.utils import check_random_state

# Family-wise level of the test (split evenly between its two parts).
TEST_LEVEL = 0.05

# Client resamples of the bootstrap-t (public randomness from random_state):
# support19 measured the level and power with 1,000
# (benchmarks/candidate_test_level.py); a p-value is then a multiple of
# 1 / 1001, and level / 2 = 0.025 needs at most 24 resamples as large.
N_RESAMPLES = 1000

# Products' standard deviation (after scaling each candidate's largest to 1)
# below which a candidate, or a resample's candidate, has no spread.
_NO_SPREAD = 1e-12
# A resample's sum of squared deviations below this fraction of its sum of
# squares around the observed mean is rounding (its clients' values equal).
_CANCEL = 1e-10

# The test runs with at least k + JOINT_MIN_DF round-2 senders (k
# candidates off the support); with fewer the server asks for the
# candidates' statistics without testing.  Chosen with the earlier Student t
# + Hotelling F test (on 20-24 clients testing lost 0.4-0.6 R^2 points to
# always asking, at 30-40 none: benchmarks/support_wide_refit.py
# --few-clients) and kept for the bootstrap, whose few-clients rows are the
# same (support20).
JOINT_MIN_DF = 10

# A candidate whose products are all at most this fraction of the largest
# candidate's is rounding, not data (see candidate_test).
_ROUNDING = 1e-9

# Values computed at a time in residual_products (rows x columns).
_BLOCK = 1 << 22


def residual_products(X, y, w, layout, nodes, support, extra, coef, per_node, shared):
    """Each client's products of the candidates with its residual.

    For client ``i`` (rows ``R_i``, weights ``w``) and candidate ``j`` in
    ``extra``::

        a_ij = sum_{t in R_i} w_t x_tj r_t

    with ``r = y - X_S coef`` (``coef`` the support's least squares;
    with a shared intercept ``coef[0]`` is it and ``r = y - coef[0] - X_S
    coef[1:]``), centred on the client's weighted mean with per-node
    intercepts (then ``x_j`` need not be: the centred residual sums to zero).
    Returns an array (len(nodes), len(extra)); computed a block of clients
    at a time.
    """
    nodes = np.asarray(nodes, dtype=np.intp)
    support = np.asarray(support, dtype=np.intp)
    extra = np.asarray(extra, dtype=np.intp)
    coef = np.asarray(coef, dtype=np.float64)
    out = np.zeros((len(nodes), len(extra)))
    if len(nodes) == 0 or len(extra) == 0:
        return out
    offsets = layout.offsets
    sizes = np.diff(offsets)[nodes]
    width = len(support) + len(extra) + 2
    first = 0
    while first < len(nodes):
        # as many clients as keep the block under _BLOCK values (at least one)
        ends = np.cumsum(sizes[first:]) * width
        last = first + max(1, int(np.searchsorted(ends, _BLOCK, side="right")))
        block, n = nodes[first:last], sizes[first:last]
        starts = np.concatenate([[0], np.cumsum(n)[:-1]])
        rows = np.repeat(offsets[block] - starts, n) + np.arange(int(n.sum()))
        sub = X[rows]
        XS = np.asarray(sub[:, support].toarray() if hasattr(sub, "toarray")
                        else sub[:, support], dtype=np.float64)
        XE = np.asarray(sub[:, extra].toarray() if hasattr(sub, "toarray")
                        else sub[:, extra], dtype=np.float64)
        wt = np.asarray(w[rows], dtype=np.float64)
        if shared:
            r = np.asarray(y[rows], dtype=np.float64) - coef[0] - XS @ coef[1:]
        else:
            r = np.asarray(y[rows], dtype=np.float64) - XS @ coef
        if per_node:
            mean = np.add.reduceat(wt * r, starts) / np.add.reduceat(wt, starts)
            r = r - np.repeat(mean, n)
        out[first:last] = np.add.reduceat(XE * (wt * r)[:, None], starts, axis=0)
        first = last
    return out


def candidate_test(products, level=TEST_LEVEL, random_state=None):
    """The server's test of "the support is enough" on the clients' products.

    ``products`` (g, k): each answering client's :func:`residual_products`
    (rows with a non-finite value are left out).  Under the hypothesis the
    residual is noise independent of the candidates, each column's values
    have mean zero over the clients.  Each candidate's Student statistic
    over the clients is ``t_j = sqrt(g) mean_j / sd_j``; two statistics,
    each tested at ``level / 2`` by a bootstrap-t over the clients:

    * ``max_j |t_j|`` (a single missed feature);
    * ``sum_j t_j^2`` (many weak ones).

    Each of :data:`N_RESAMPLES` resamples draws ``g`` clients with
    replacement and recomputes the ``t*_j`` of the resample's means around
    the observed means (``sd*_j`` the resample's own); a statistic's
    p-value is ``(1 + #{resamples at least as large}) / (N_RESAMPLES + 1)``.
    No covariance is inverted, so full one-hot groups among the candidates
    (products summing to zero on every client) need nothing special.  The
    resamples come from ``random_state`` (public randomness the server
    draws: no privacy noise, no bytes).  Unlike Student's t at the
    Bonferroni level and Hotelling's F, which rejected 9.8 % of 1,000
    skewed null draws (one-hot candidates of frequency 0.02, exponential
    noise, 30 clients) at ``level = 0.05``, the bootstrap rejected 2.4 %,
    with at least their power (benchmarks/candidate_test_level.py).

    A candidate whose products are all at most ``1e-9`` of the largest
    candidate's (a feature constant within every client: its product
    with a residual centred on the client is rounding) is left out of
    both; a candidate whose products are equal and not zero (no spread)
    is as significant as can be (its p-value and the joint one 0,
    rejected).  Returns
    ``(pvalues, p_joint, rejected)``: each candidate's max-t adjusted
    p-value ``(1 + #{max_j |t*_j| >= |t_j|}) / (N_RESAMPLES + 1)`` (its
    minimum is the ``max_j |t_j|`` test's p-value; 1 for one left out),
    the ``sum_j t_j^2`` test's p-value (1 when there is nothing to test)
    and whether either is at most ``level / 2``.
    """
    products = np.asarray(products, dtype=np.float64)
    k = products.shape[1] if products.ndim == 2 else 0
    products = products[np.isfinite(products).all(axis=1)] if k else products
    g = len(products)
    pvalues = np.ones(k)
    p_joint = 1.0
    if g < 2 or k == 0:
        return pvalues, p_joint, False
    # a column whose products are all rounding (a feature constant within
    # every client, against a residual centred on each client) is no
    # candidate: it is left out of both tests
    scale = np.abs(products).max(axis=0)
    live = np.flatnonzero(scale > _ROUNDING * scale.max())
    if len(live) == 0:
        return pvalues, p_joint, False
    P = products[:, live] / scale[live]  # (the test is scale-free)
    mean = P.mean(axis=0)
    sd = P.std(axis=0, ddof=1)
    # equal non-zero products (no spread) are as significant as can be
    spread = sd > _NO_SPREAD
    if not spread.all():
        pvalues[live[~spread]] = 0.0
        return pvalues, 0.0, True
    t = np.sqrt(g) * mean / sd
    t_max, t_sum = bootstrap_t(P, random_state)
    n = len(t_max) + 1
    pvalues[live] = (1 + np.sum(t_max[:, None] >= np.abs(t)[None, :], axis=0)) / n
    p_joint = float((1 + np.sum(t_sum >= t @ t)) / n)
    rejected = bool(pvalues[live].min() <= level / 2 or p_joint <= level / 2)
    return pvalues, p_joint, rejected


def bootstrap_t(P, random_state=None, n_resamples=N_RESAMPLES):
    """``max_j |t*_j|`` and ``sum_j t*_j^2`` of ``n_resamples`` resamples of
    the rows of ``P`` (g, k) with replacement, ``t*_j = sqrt(g) (mean*_j -
    mean_j) / sd*_j`` (0 where the resample has no spread).  The resamples'
    indices are ``RandomState(random_state).randint(g, size=(b, g))`` drawn
    a block of ``b`` resamples after another (the same stream as one draw
    of all); each resample's means and variances come from its clients'
    counts, so no (resamples, g, k) array is built."""
    rng = check_random_state(random_state)
    g, k = P.shape
    C = P - P.mean(axis=0)
    C2 = C * C
    t_max = np.empty(n_resamples)
    t_sum = np.empty(n_resamples)
    step = max(1, _BLOCK // max(g, k))
    for first in range(0, n_resamples, step):
        b = min(step, n_resamples - first)
        idx = rng.randint(g, size=(b, g))
        counts = np.bincount((idx + g * np.arange(b)[:, None]).ravel(),
                             minlength=b * g).reshape(b, g).astype(np.float64)
        m = counts @ C / g
        squares = counts @ C2
        spread = squares - g * m * m
        sd = np.sqrt(np.maximum(spread, 0.0) / (g - 1))
        # (equal values: the difference is rounding of the sum of squares)
        ok = (sd > _NO_SPREAD) & (spread > _CANCEL * squares)
        ts = np.where(ok, np.sqrt(g) * m / np.where(ok, sd, 1.0), 0.0)
        t_max[first:first + b] = np.abs(ts).max(axis=1)
        t_sum[first:first + b] = (ts * ts).sum(axis=1)
    return t_max, t_sum


def wide_positions(on_support, m):
    """Where a message on the support's ``len(on_support)`` columns sits in
    a message on all ``m`` columns (``G[triu_indices]`` then ``b``), and the
    other positions: ``(inside, outside)`` index arrays."""
    on_support = np.asarray(on_support, dtype=np.intp)
    k = len(on_support)
    a, b = np.triu_indices(k)
    i, j = on_support[a], on_support[b]
    n_tri = m * (m + 1) // 2
    tri = i * m - i * (i - 1) // 2 + (j - i)
    inside = np.concatenate([tri, n_tri + on_support]).astype(np.intp)
    outside = np.setdiff1d(np.arange(n_tri + m), inside).astype(np.intp)
    return inside, outside
