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
from scipy import stats

# Family-wise level of the test (split evenly between its two parts).
TEST_LEVEL = 0.05

# The test runs with at least k + JOINT_MIN_DF round-2 senders (k
# candidates off the support); with fewer the server asks for the
# candidates' statistics without it.  Hotelling's F(k, g - k) needs
# g - k degrees of freedom to see weak effects: its 0.975 quantile is 1.9
# at g - k = 60 and k = 18, 3.4 at 10, 39 at 2; on 20 and 24 clients of
# 100-200 rows (k = 18, eighteen effects of 0.04) the test at g > k + 1
# lost 0.4-0.6 R^2 points to always asking, at 30 and 40 none
# (benchmarks/support_wide_refit.py --few-clients).
JOINT_MIN_DF = 10

# A candidate whose products are all at most this fraction of the largest
# candidate's is rounding, not data (see candidate_test).
_ROUNDING = 1e-9

# The joint test's rank: the products' covariance eigen-directions above
# this fraction of its largest eigenvalue (full one-hot groups among the
# candidates make it singular: their products sum to zero on every client,
# up to the float32 the clients send, whose rounding is about 1e-14 of it).
_RANK_TOL = 1e-10

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


def candidate_test(products, level=TEST_LEVEL):
    """The server's test of "the support is enough" on the clients' products.

    ``products`` (g, k): each answering client's :func:`residual_products`
    (rows with a non-finite value are left out).  Under the hypothesis the
    residual is noise independent of the candidates, each column's values
    have mean zero over the clients.  Two tests, each at ``level / 2``:

    * per candidate, Student's t over the clients, ``t_j = sqrt(g)
      mean_j / sd_j`` (``g - 1`` degrees of freedom), Bonferroni over the
      ``k`` candidates: rejects if ``min_j p_j <= level / (2 k)``
      (a single missed feature);
    * Hotelling's T^2 of the ``k`` means, ``T^2 = g mean' S^+ mean`` (``S``
      the columns' covariance over the clients, of rank ``r``: its
      eigen-directions above ``1e-10`` of the largest; ``r < k`` when the
      candidates hold a full one-hot group, whose products sum to zero on
      every client), with ``(g - r) T^2 / (r (g - 1))`` an F(r, g - r)
      (many weak ones); only with ``g > r + 1``.  T^2 does not change under
      an invertible map of the coordinates, so this is the test on any
      ``r`` independent columns.

    A candidate whose products are all at most ``1e-9`` of the largest
    candidate's (a feature constant within every client: its product
    with a residual centred on the client is rounding) is left out of
    both, and ``k`` counts the others.  Returns ``(pvalues, p_joint,
    rejected)``: each candidate's t-test p-value (1 for one left out), the
    joint test's p-value (1 when it cannot be run) and whether either part
    rejects.  With near-symmetric products both tests are conservative
    under the hypothesis: the residual is orthogonal to the support's
    columns, so the variance of a candidate's summed products is below the
    sum of the clients' variances when it is correlated with them.  With
    skewed products (rare binary candidates, skewed noise) they are not:
    30 clients' products drawn from the hypothesis with one-hot candidates
    of frequency 0.02 and exponential noise were rejected 9.9 % of the time
    (t part 7.4 %; tests/test_review16_candidate_test_level.py).
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
    P = products[:, live] / scale[live]  # (both tests are scale-free)
    k_live = len(live)
    mean = P.mean(axis=0)
    sd = P.std(axis=0, ddof=1)
    # equal non-zero products (no spread) are as significant as can be
    spread = sd > 1e-12
    t = np.zeros(k_live)
    t[spread] = np.sqrt(g) * mean[spread] / sd[spread]
    p_live = np.where(spread, 2.0 * stats.t.sf(np.abs(t), g - 1), 0.0)
    pvalues[live] = p_live
    if g > 2:
        centred = P - mean
        values, vectors = np.linalg.eigh(centred.T @ centred / (g - 1))
        kept = values > _RANK_TOL * max(values.max(), 0.0)
        r = int(kept.sum())
        if r and g > r + 1:
            z = vectors[:, kept].T @ mean
            t2 = g * float(np.sum(z * z / values[kept]))
            p_joint = float(stats.f.sf((g - r) * t2 / (r * (g - 1)), r, g - r))
    rejected = bool(p_live.min() <= level / (2 * k_live) or p_joint <= level / 2)
    return pvalues, p_joint, rejected


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
