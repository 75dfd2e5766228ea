# The client pass of one-shot federated support recovery (Barik & Honorio).
#
# Client i, in one pass over its rows, computes for every feature j
#
#     sigma_ij = mean_t (x_tj)^2            alpha_ij = mean_t y_t x_tj
#
# (weighted means when sample weights are given; over the client's own
# centred data when ``center`` is true), the threshold lambda_ij it uses, the
# local lasso solution for uncorrelated predictors
#
#     w_ij = sign(alpha_ij) max(0, |alpha_ij| - lambda_ij) / sigma_ij
#
# and its support bit ``|alpha_ij| > lambda_ij`` (the same as w_ij != 0),
# packed eight to a byte: feature j is bit ``j % 8`` (least significant
# first) of byte ``j // 8``, as ``numpy.packbits(bits, bitorder="little")``.
# In the ``auto`` mode the threshold is ``lambda_ij = r_i sqrt(sigma_ij
# var_i(y))``: the bit is ``|corr_i(x_j, y)| > r_i``, the client's sample
# correlation against a critical value the caller derives from the t
# distribution.
#
# ``client_ols_dense`` / ``client_ols_csr`` are the other client rule of the
# ``auto`` mode: a client with more samples than features fits ordinary least
# squares on all of them and sends the bits ``|t_ij| > c_i`` of its
# coefficients' t statistics; ``client_partial_dense`` / ``_csr``, the rule
# of smaller clients (skfed/support/_partial.py: the rule, NumPy reference;
# computed in ``_support_partial``, re-exported here).
#
# The server side (``tally_votes``) adds up the bits of the clients that
# answered.  Python validates, allocates and simulates the network; the
# functions here only compute, without the GIL.

from libc.math cimport INFINITY, NAN, fabs, rint, sqrt
from libc.string cimport memset
from scipy.linalg.cython_blas cimport dsyrk

from cython cimport floating

from ._support_partial cimport CONSTANT_RTOL
from ._typedefs cimport intp_t, int64_t, uint8_t

# (the partial client rule lives in _support_partial since issue 30's split)
from ._support_partial import client_partial_csr, client_partial_dense, partial_work_size

# CONSTANT_RTOL: a centred feature whose variance is below this fraction of
# its raw second moment is constant on the client (up to rounding): it gets
# alpha = sigma = 0 (defined in _support_partial, whose rule tests the target
# the same way).


cdef inline void _zero(double* a, intp_t n) noexcept nogil:
    memset(a, 0, n * sizeof(double))


cdef void _node_target_moments(
    const floating* y, const floating* w, intp_t r0, intp_t r1, bint center,
    double* out,
) noexcept nogil:
    """out = [W, y_mean, sum w (y - y_mean), sum w (y - y_mean)^2]."""
    cdef intp_t t
    cdef double W = 0.0, sy = 0.0, ybar = 0.0, s1 = 0.0, s2 = 0.0, r
    for t in range(r0, r1):
        W += w[t]
        sy += w[t] * y[t]
    if center and W > 0:
        ybar = sy / W
    for t in range(r0, r1):
        r = y[t] - ybar
        s1 += w[t] * r
        s2 += w[t] * r * r
    out[0] = W
    out[1] = ybar
    out[2] = s1
    out[3] = s2


cdef void _finish_node(
    intp_t d, double W, double sum_r, double sum_r2, bint center, bint auto,
    double lam,
    double* sxx, double* sxy, double* sx,
    double* sigma, double* alpha, double* threshold, double* coef,
    uint8_t* packed,
) noexcept nogil:
    """Turn the sums of one client into its statistics, threshold, w and bits.

    On entry (r = y - y_mean, x possibly shifted by a constant):
    sxx = sum w x^2, sxy = sum w r x and sx = sum w x (centre only).
    ``lam`` is the client's lambda, or (``auto``) its critical correlation.
    """
    cdef intp_t j, n_bytes = (d + 7) // 8
    cdef double mx, s, a, thr, mag
    cdef double vy = sum_r2 / W
    if vy < 0.0:
        vy = 0.0
    memset(packed, 0, n_bytes)
    for j in range(d):
        mx = sx[j] / W if center else 0.0
        s = sxx[j] / W - mx * mx
        a = (sxy[j] - mx * sum_r) / W
        if center and s <= CONSTANT_RTOL * (sxx[j] / W):
            s = 0.0
            a = 0.0
        if s < 0.0:
            s = 0.0
        if auto:
            thr = lam * sqrt(s * vy)
        else:
            thr = lam
        sigma[j] = s
        alpha[j] = a
        threshold[j] = thr
        mag = fabs(a)
        if mag > thr:
            packed[j >> 3] |= <uint8_t>(1 << (j & 7))
            coef[j] = (mag - thr) / s if s > 0.0 else 0.0
            if a < 0.0:
                coef[j] = -coef[j]
        else:
            coef[j] = 0.0


cdef extern from *:
    # The running sums of one client never alias each other or X; telling
    # the compiler so lets it vectorize the row loops.
    ctypedef double* double_r "double * __restrict__"


# Rows are read ROWS at a time: their contributions to a feature are summed
# in registers and added to the running sums once, so the sums are loaded
# and stored once per ROWS rows and the pass runs near memory bandwidth.
DEF ROWS = 8


cdef void _dense_rows(
    const floating* X, intp_t d, intp_t r0, intp_t r1,
    const floating* y, const floating* w, double ybar, bint center,
    double_r sxx, double_r sxy, double_r sx,
) noexcept nogil:
    """The sums of one client over its rows r0..r1 (one pass over X).

    With ``center`` every feature is shifted by the client's first row, so a
    feature constant on the client accumulates exact zeros.
    """
    cdef intp_t t, j, k, m
    cdef double ww[ROWS]
    cdef double aa[ROWS]
    cdef double x, wx, c, s1, s2, s3
    cdef const floating* rp[ROWS]
    cdef const floating* shift = X + r0 * d
    for j in range(d):
        sxx[j] = 0.0
        sxy[j] = 0.0
        sx[j] = 0.0
    t = r0
    while t < r1:
        # A last, partial block is padded with the first row at weight 0
        # (X is finite, so it adds exact zeros).
        m = min(ROWS, r1 - t)
        for k in range(ROWS):
            if k < m:
                rp[k] = X + (t + k) * d
                ww[k] = w[t + k]
                aa[k] = ww[k] * (y[t + k] - ybar)
            else:
                rp[k] = shift
                ww[k] = aa[k] = 0.0
        if center:
            for j in range(d):
                c = shift[j]
                s1 = s2 = s3 = 0.0
                for k in range(ROWS):
                    x = rp[k][j] - c
                    wx = ww[k] * x
                    s1 = s1 + wx
                    s2 = s2 + wx * x
                    s3 = s3 + aa[k] * x
                sx[j] += s1
                sxx[j] += s2
                sxy[j] += s3
        else:
            # The paper's client step (no centring).
            for j in range(d):
                s2 = s3 = 0.0
                for k in range(ROWS):
                    x = rp[k][j]
                    s2 = s2 + ww[k] * x * x
                    s3 = s3 + aa[k] * x
                sxx[j] += s2
                sxy[j] += s3
        t += m


def client_pass_dense(
    const floating[:, ::1] X,          # IN (n_samples, d), rows node by node
    const floating[::1] y,             # IN (n_samples,)
    const floating[::1] sample_weight, # IN (n_samples,), ones when unweighted
    const intp_t[::1] offsets,         # IN (n_nodes + 1,) node row offsets
    const intp_t[::1] nodes,           # IN the nodes this call processes
    const double[::1] lam,             # IN (n_nodes,) lambda, or critical correlation (auto)
    bint auto,                         # IN lambda_ij = lam_i sqrt(sigma_ij var_i(y))
    bint center,                       # IN centre x and y on each client first
    double[:, ::1] sigma,              # OUT (n_nodes, d)
    double[:, ::1] alpha,              # OUT (n_nodes, d)
    double[:, ::1] threshold,          # OUT (n_nodes, d) lambda_ij used
    double[:, ::1] coef,               # OUT (n_nodes, d) w_ij
    uint8_t[:, ::1] packed,            # OUT (n_nodes, ceil(d / 8)) support bits
    double[:, ::1] scratch,            # WORK (1, d)
):
    """One pass over each client's dense rows; see the module comment."""
    cdef intp_t d = X.shape[1]
    cdef intp_t k, i, j, r0, r1
    cdef double moments[4]
    cdef double W
    with nogil:
        for k in range(nodes.shape[0]):
            i = nodes[k]
            r0 = offsets[i]
            r1 = offsets[i + 1]
            _node_target_moments(&y[0], &sample_weight[0], r0, r1, center, moments)
            W = moments[0]
            if W <= 0.0:
                for j in range(d):
                    sigma[i, j] = 0.0
                    alpha[i, j] = 0.0
                    threshold[i, j] = 0.0
                    coef[i, j] = 0.0
                for j in range(packed.shape[1]):
                    packed[i, j] = 0
                continue
            _dense_rows(&X[0, 0], d, r0, r1, &y[0], &sample_weight[0], moments[1],
                        center, &sigma[i, 0], &alpha[i, 0], &scratch[0, 0])
            _finish_node(d, W, moments[2], moments[3], center, auto, lam[i],
                         &sigma[i, 0], &alpha[i, 0], &scratch[0, 0],
                         &sigma[i, 0], &alpha[i, 0], &threshold[i, 0],
                         &coef[i, 0], &packed[i, 0])
    return ()


def client_pass_csr(
    const floating[::1] data,          # IN CSR values, rows node by node
    const intp_t[::1] indices,         # IN CSR column indices
    const intp_t[::1] indptr,          # IN (n_samples + 1,)
    intp_t d,                          # IN number of features
    const floating[::1] y,             # IN (n_samples,)
    const floating[::1] sample_weight, # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    const intp_t[::1] nodes,           # IN
    const double[::1] lam,             # IN (n_nodes,)
    bint auto,                         # IN
    bint center,                       # IN
    double[:, ::1] sigma,              # OUT (n_nodes, d)
    double[:, ::1] alpha,              # OUT (n_nodes, d)
    double[:, ::1] threshold,          # OUT (n_nodes, d)
    double[:, ::1] coef,               # OUT (n_nodes, d)
    uint8_t[:, ::1] packed,            # OUT (n_nodes, ceil(d / 8))
    double[:, ::1] scratch,            # WORK (1, d)
):
    """The client pass over CSR rows: only the stored entries are visited.

    Centring is implicit (no shift, so the sparsity is kept): the sums of
    the raw values are accumulated and the means subtracted at the end.
    """
    cdef intp_t k, i, t, p, j, r0, r1
    cdef double moments[4]
    cdef double W, ybar, wt, a, x
    cdef double* sxx
    cdef double* sxy
    cdef double* sx = &scratch[0, 0]
    with nogil:
        for k in range(nodes.shape[0]):
            i = nodes[k]
            r0 = offsets[i]
            r1 = offsets[i + 1]
            sxx = &sigma[i, 0]
            sxy = &alpha[i, 0]
            _zero(sxx, d)
            _zero(sxy, d)
            _zero(sx, d)
            _node_target_moments(&y[0], &sample_weight[0], r0, r1, center, moments)
            W = moments[0]
            ybar = moments[1]
            if W <= 0.0:
                for j in range(d):
                    threshold[i, j] = 0.0
                    coef[i, j] = 0.0
                for j in range(packed.shape[1]):
                    packed[i, j] = 0
                continue
            for t in range(r0, r1):
                wt = sample_weight[t]
                a = wt * (y[t] - ybar)
                for p in range(indptr[t], indptr[t + 1]):
                    j = indices[p]
                    x = data[p]
                    sxx[j] += wt * x * x
                    sxy[j] += a * x
                    if center:
                        sx[j] += wt * x
            _finish_node(d, W, moments[2], moments[3], center, auto, lam[i],
                         sxx, sxy, sx,
                         sxx, sxy, &threshold[i, 0], &coef[i, 0], &packed[i, 0])
    return ()


# ---------------------------------------------------------------------------
# The OLS client rule: Gram matrix, Cholesky, t statistics.
# ---------------------------------------------------------------------------

# Rows of a client are centred into a double buffer this many at a time.
DEF OLS_BLOCK = 64

# A pivot of the Cholesky factorization below this fraction of the
# feature's own centred sum of squares means the feature is (numerically) a
# linear combination of the features before it: the Gram matrix is singular
# and the feature is dropped (the column-order pivot of ``_ols_solve``).
cdef double SINGULAR_RTOL = 1e-9


cdef void _gram_block(
    double* B, const double* wb, const double* rb, intp_t m, intp_t d,
    double* G, double* b,
) noexcept nogil:
    """G += sum_k wb_k B_k B_k^T (upper triangle) and b += sum_k wb_k rb_k B_k
    over the m rows of the block B, stored feature-major (B[j * OLS_BLOCK + k]
    is feature j of row k); B is scaled in place by sqrt(wb_k).

    Each entry of G is a dot product over the block's rows, summed with
    four independent accumulators (the loop is latency-bound otherwise).
    """
    cdef intp_t k, a, c, m4 = m - m % 4
    cdef double s0, s1, s2, s3
    cdef double* u
    cdef double* v
    cdef double sw[OLS_BLOCK]
    cdef double wr[OLS_BLOCK]
    for k in range(m):
        sw[k] = sqrt(wb[k])
        wr[k] = sw[k] * rb[k]
    for a in range(d):
        u = B + a * OLS_BLOCK
        for k in range(m):
            u[k] *= sw[k]
    for a in range(d):
        u = B + a * OLS_BLOCK
        s0 = s1 = s2 = s3 = 0.0
        for k in range(0, m4, 4):
            s0 += wr[k] * u[k]
            s1 += wr[k + 1] * u[k + 1]
            s2 += wr[k + 2] * u[k + 2]
            s3 += wr[k + 3] * u[k + 3]
        for k in range(m4, m):
            s0 += wr[k] * u[k]
        b[a] += (s0 + s1) + (s2 + s3)
        for c in range(a, d):
            v = B + c * OLS_BLOCK
            s0 = s1 = s2 = s3 = 0.0
            for k in range(0, m4, 4):
                s0 += u[k] * v[k]
                s1 += u[k + 1] * v[k + 1]
                s2 += u[k + 2] * v[k + 2]
                s3 += u[k + 3] * v[k + 3]
            for k in range(m4, m):
                s0 += u[k] * v[k]
            G[a * d + c] += (s0 + s1) + (s2 + s3)


cdef int _ols_solve(
    intp_t d, double W, double syy, double df, double tcrit,
    double* G, double* A, double* b, double* diag, const double* mean, double* keep,
    double* sigma, double* alpha, double* threshold, double* coef,
    uint8_t* packed,
) noexcept nogil:
    """From the centred Gram G (upper triangle) and b = X^T r: the OLS
    coefficients, their t statistics and the bits ``|t_j| > tcrit``.

    Symmetric sweeps (Goodnight's operator) of the bordered matrix
    ``A = [[G, b], [b^T, syy]]``, upper triangle only, on the pivots taken
    in column order, leave ``[[-G_KK^-1, beta_K], [., RSS]]`` in A for the
    kept columns ``K``.  A column is dropped (not swept) when it is
    constant on the client (centred sum of squares at most
    ``CONSTANT_RTOL`` of its weighted raw one, ``diag + W mean^2``) or when
    its pivot, the share of its centred sum of squares left after the kept
    columns before it, is at most ``SINGULAR_RTOL``: in a one-hot group
    whose levels all occur, the last level is dropped.  Returns 1 when
    every column is kept (the bits are set), else 2: the dropped columns
    get ``coef = threshold = NaN``, the kept ones their coefficient and
    ``threshold = se_j`` with ``df`` increased by the dropped columns, no
    bit is set, and the caller tests them at the critical value of those
    degrees of freedom.  ``keep`` is (d,) scratch.
    """
    cdef intp_t i, j, k, D = d + 1, n_bytes = (d + 7) // 8, n_drop = 0
    cdef double piv, f, rss, s2, se, ginv
    cdef double* Ai
    cdef double* c = diag + d   # (D,) the pivot's column, gathered
    for i in range(d):
        diag[i] = G[i * d + i]
        keep[i] = 1.0
        if not diag[i] > CONSTANT_RTOL * (diag[i] + W * mean[i] * mean[i]):
            keep[i] = 0.0
        for j in range(i, d):
            A[i * D + j] = G[i * d + j]
        A[i * D + d] = b[i]
    A[d * D + d] = syy
    for k in range(d):
        piv = A[k * D + k]
        if keep[k] == 0.0 or not piv > SINGULAR_RTOL * diag[k]:
            keep[k] = 0.0
            n_drop += 1
            continue
        for i in range(k):
            c[i] = A[i * D + k]
        c[k] = 0.0
        for i in range(k + 1, D):
            c[i] = A[k * D + i]
        for i in range(D):
            if i == k:
                continue
            f = c[i] / piv
            Ai = A + i * D
            for j in range(i, D):
                Ai[j] -= f * c[j]
        for i in range(k):
            A[i * D + k] = c[i] / piv
        for i in range(k + 1, D):
            A[k * D + i] = c[i] / piv
        A[k * D + k] = -1.0 / piv
    rss = A[d * D + d]
    # An exact fit (rss = 0 up to rounding) would make every rounding-size
    # coefficient significant: the residual variance is floored relative
    # to the target's.
    if rss < 1e-12 * syy:
        rss = 1e-12 * syy
    s2 = rss / (df + n_drop)
    memset(packed, 0, n_bytes)
    for j in range(d):
        sigma[j] = diag[j] / W
        alpha[j] = b[j] / W
        if keep[j] == 0.0:
            coef[j] = NAN
            threshold[j] = NAN
            continue
        coef[j] = A[j * D + d]
        ginv = -A[j * D + j]
        se = sqrt(s2 * ginv) if ginv > 0.0 else 0.0
        if n_drop:
            threshold[j] = se
        else:
            threshold[j] = tcrit * se
            if fabs(coef[j]) > tcrit * se:
                packed[j >> 3] |= <uint8_t>(1 << (j & 7))
    return 2 if n_drop else 1


cdef int _ols_node(
    const floating* X, intp_t d, intp_t r0, intp_t r1,
    const floating* y, const floating* w, bint center, double df, double tcrit,
    double* work,
    double* sigma, double* alpha, double* threshold, double* coef,
    uint8_t* packed,
) noexcept nogil:
    """OLS client rule on one client's dense rows (see ``client_ols_dense``)."""
    cdef double* G = work
    cdef double* A = G + d * d
    cdef double* mean = A + (d + 1) * (d + 1)
    cdef double* b = mean + d
    cdef double* diag = b + d
    cdef double* keep = diag + 2 * d + 1
    cdef double* wb = keep + d
    cdef double* rb = wb + OLS_BLOCK
    cdef double* B = rb + OLS_BLOCK
    cdef intp_t t, j, k, m
    cdef double W = 0.0, ybar = 0.0, syy = 0.0, r
    cdef const floating* row
    for j in range(d):
        mean[j] = 0.0
        b[j] = 0.0
    for j in range(d * d):
        G[j] = 0.0
    for t in range(r0, r1):
        W += w[t]
        ybar += w[t] * y[t]
        if center:
            row = X + t * d
            for j in range(d):
                mean[j] += w[t] * row[j]
    if center:
        ybar /= W
        for j in range(d):
            mean[j] /= W
    else:
        ybar = 0.0
    t = r0
    while t < r1:
        m = min(<intp_t>OLS_BLOCK, r1 - t)
        for k in range(m):
            row = X + (t + k) * d
            for j in range(d):
                B[j * OLS_BLOCK + k] = row[j] - mean[j]
            wb[k] = w[t + k]
            r = y[t + k] - ybar
            rb[k] = r
            syy += wb[k] * r * r
        _gram_block(B, wb, rb, m, d, G, b)
        t += m
    return _ols_solve(d, W, syy, df, tcrit, G, A, b, diag, mean, keep,
                      sigma, alpha, threshold, coef, packed)


def ols_work_shape(intp_t d):
    """Shape of the ``work`` array of the OLS client passes."""
    return (1, d * d + (d + 1) * (d + 1) + 5 * d + 1 + 2 * OLS_BLOCK + OLS_BLOCK * d)


def client_ols_dense(
    const floating[:, ::1] X,          # IN (n_samples, d), rows node by node
    const floating[::1] y,             # IN (n_samples,)
    const floating[::1] sample_weight, # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,) node row offsets
    const intp_t[::1] nodes,           # IN the nodes this call processes
    const double[::1] df,              # IN (n_nodes,) residual degrees of freedom
    const double[::1] tcrit,           # IN (n_nodes,) critical |t| of each client
    bint center,                       # IN intercept (centre x and y) or not
    double[:, ::1] sigma,              # OUT (n_nodes, d) centred variance of x_j
    double[:, ::1] alpha,              # OUT (n_nodes, d) mean of x_j r
    double[:, ::1] threshold,          # OUT (n_nodes, d) tcrit * se_j
    double[:, ::1] coef,               # OUT (n_nodes, d) OLS coefficients
    uint8_t[:, ::1] packed,            # OUT (n_nodes, ceil(d / 8)) |t_j| > tcrit
    uint8_t[::1] solved,               # OUT (n_nodes,) 1, or 2 where columns were dropped
    double[:, ::1] work,               # WORK ols_work_shape(d)
):
    """OLS client rule: every listed client regresses y on all d features.

    With ``center`` each client centres its features and target on its own
    weighted means (an intercept); ``t_j = beta_j / se_j`` with
    ``se_j^2 = RSS / df (G^-1)_jj``, ``RSS`` the weighted residual sum of
    squares, ``G`` the client's
    centred weighted Gram matrix and ``df`` its residual degrees of freedom
    (given: the caller counts them from the client's samples, so that the
    test does not depend on the scale of the sample weights).  A client whose
    Gram matrix is numerically singular (a constant feature, or one collinear
    with the features before it) drops those features and regresses on the
    others (the column-order pivot of ``_ols_solve``): ``solved = 2``, the
    dropped features' ``coef`` and ``threshold`` NaN, the kept ones'
    ``threshold`` their standard error (at ``df`` plus the dropped
    features), no bits: the caller tests them at those degrees of freedom.
    Otherwise ``solved = 1`` and the bits are set.
    """
    cdef intp_t d = X.shape[1]
    cdef intp_t k, i
    with nogil:
        for k in range(nodes.shape[0]):
            i = nodes[k]
            solved[i] = _ols_node(
                &X[0, 0], d, offsets[i], offsets[i + 1], &y[0], &sample_weight[0],
                center, df[i], tcrit[i], &work[0, 0],
                &sigma[i, 0], &alpha[i, 0], &threshold[i, 0], &coef[i, 0], &packed[i, 0],
            )
    return ()


def client_ols_csr(
    const floating[::1] data,          # IN CSR values, rows node by node
    const intp_t[::1] indices,         # IN CSR column indices
    const intp_t[::1] indptr,          # IN (n_samples + 1,)
    intp_t d,                          # IN number of features
    const floating[::1] y,             # IN (n_samples,)
    const floating[::1] sample_weight, # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    const intp_t[::1] nodes,           # IN
    const double[::1] df,              # IN (n_nodes,)
    const double[::1] tcrit,           # IN (n_nodes,)
    bint center,                       # IN
    double[:, ::1] sigma,              # OUT (n_nodes, d)
    double[:, ::1] alpha,              # OUT (n_nodes, d)
    double[:, ::1] threshold,          # OUT (n_nodes, d)
    double[:, ::1] coef,               # OUT (n_nodes, d)
    uint8_t[:, ::1] packed,            # OUT (n_nodes, ceil(d / 8))
    uint8_t[::1] solved,               # OUT (n_nodes,)
    double[:, ::1] work,               # WORK ols_work_shape(d)
):
    """:func:`client_ols_dense` over CSR rows (densified a block at a time)."""
    cdef intp_t k, i, t, p, j, r0, r1, m, q
    cdef double W, ybar, syy, r
    cdef double* G = &work[0, 0]
    cdef double* A = G + d * d
    cdef double* mean = A + (d + 1) * (d + 1)
    cdef double* b = mean + d
    cdef double* diag = b + d
    cdef double* keep = diag + 2 * d + 1
    cdef double* wb = keep + d
    cdef double* rb = wb + OLS_BLOCK
    cdef double* B = rb + OLS_BLOCK
    with nogil:
        for k in range(nodes.shape[0]):
            i = nodes[k]
            r0 = offsets[i]
            r1 = offsets[i + 1]
            W = ybar = syy = 0.0
            for j in range(d):
                mean[j] = 0.0
                b[j] = 0.0
            for j in range(d * d):
                G[j] = 0.0
            for t in range(r0, r1):
                W += sample_weight[t]
                ybar += sample_weight[t] * y[t]
                if center:
                    for p in range(indptr[t], indptr[t + 1]):
                        mean[indices[p]] += sample_weight[t] * data[p]
            if center:
                ybar /= W
                for j in range(d):
                    mean[j] /= W
            else:
                ybar = 0.0
            t = r0
            while t < r1:
                m = min(<intp_t>OLS_BLOCK, r1 - t)
                for q in range(m):
                    for j in range(d):
                        B[j * OLS_BLOCK + q] = -mean[j]
                    for p in range(indptr[t + q], indptr[t + q + 1]):
                        B[indices[p] * OLS_BLOCK + q] += data[p]
                    wb[q] = sample_weight[t + q]
                    r = y[t + q] - ybar
                    rb[q] = r
                    syy += wb[q] * r * r
                _gram_block(B, wb, rb, m, d, G, b)
                t += m
            solved[i] = _ols_solve(d, W, syy, df[i], tcrit[i], G, A, b, diag, mean, keep,
                                   &sigma[i, 0], &alpha[i, 0], &threshold[i, 0],
                                   &coef[i, 0], &packed[i, 0])
    return ()


def pack_bits(
    const uint8_t[:, ::1] bits,        # IN (n_rows, d), 0 or 1
    uint8_t[:, ::1] packed,            # OUT (n_rows, ceil(d / 8))
):
    """Pack 0/1 rows eight to a byte, least significant bit first."""
    cdef intp_t n = bits.shape[0], d = bits.shape[1], i, j
    with nogil:
        for i in range(n):
            for j in range(packed.shape[1]):
                packed[i, j] = 0
            for j in range(d):
                if bits[i, j]:
                    packed[i, j >> 3] |= <uint8_t>(1 << (j & 7))
    return ()


def unpack_bits(
    const uint8_t[:, ::1] packed,      # IN (n_rows, ceil(d / 8))
    uint8_t[:, ::1] bits,              # OUT (n_rows, d)
):
    """Inverse of :func:`pack_bits`."""
    cdef intp_t n = bits.shape[0], d = bits.shape[1], i, j
    with nogil:
        for i in range(n):
            for j in range(d):
                bits[i, j] = (packed[i, j >> 3] >> (j & 7)) & 1
    return ()


def tally_votes(
    const uint8_t[:, ::1] packed,      # IN (n_nodes, ceil(d / 8)) what was received
    const intp_t[::1] senders,         # IN the clients whose message arrived
    int64_t[::1] votes,                # OUT (d,) number of clients that chose j
):
    """The server's count: votes[j] = sum over senders of bit j."""
    cdef intp_t d = votes.shape[0], k, i, j
    with nogil:
        for j in range(d):
            votes[j] = 0
        for k in range(senders.shape[0]):
            i = senders[k]
            for j in range(d):
                votes[j] += (packed[i, j >> 3] >> (j & 7)) & 1
    return ()


def refit_statistics(
    const floating[:, ::1] XS,         # IN (n_samples, s) support columns, node by node
    const floating[::1] y,             # IN (n_samples,)
    const floating[::1] sample_weight, # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,) node row offsets
    const intp_t[::1] nodes,           # IN the nodes whose statistics are computed
    const double[:, ::1] means,        # IN (n_nodes, s + 1) [mean y, mean x_S] per node
    bint center,                       # IN subtract the node's means first
    bint add_intercept,                # IN statistics of [1, x_S] (shared intercept)
    double[:, ::1] messages,           # OUT (len(nodes), m (m + 1) / 2 + m)
    double[::1] row,                   # WORK (m,)
):
    """Refit round of FederatedSparseLinearRegression: each client's message.

    With ``m = s + add_intercept`` and ``z_t`` the row ``x_{t,S}`` (centred
    on the node's means when ``center``, prefixed with 1 when
    ``add_intercept``) and ``r_t = y_t`` (centred likewise), node
    ``nodes[k]`` sends ``G = sum_t w_t z_t z_t^T`` as its upper triangle,
    row by row (``G[numpy.triu_indices(m)]``), followed by
    ``b = sum_t w_t r_t z_t``.
    """
    cdef intp_t s = XS.shape[1], m = s + (1 if add_intercept else 0)
    cdef intp_t n_tri = m * (m + 1) // 2
    cdef intp_t k, i, t, a, b, p, j
    cdef double r, wt, wa
    cdef double* msg
    if n_tri + m == 0:
        # (an empty support without intercept: empty messages; &messages[k, 0]
        # would be out of bounds, which the bounds-checked build refuses)
        return ()
    with nogil:
        for k in range(nodes.shape[0]):
            i = nodes[k]
            msg = &messages[k, 0]
            for p in range(n_tri + m):
                msg[p] = 0.0
            for t in range(offsets[i], offsets[i + 1]):
                if add_intercept:
                    row[0] = 1.0
                for j in range(s):
                    row[j + m - s] = XS[t, j] - (means[i, j + 1] if center else 0.0)
                r = y[t] - (means[i, 0] if center else 0.0)
                wt = sample_weight[t]
                p = 0
                for a in range(m):
                    wa = wt * row[a]
                    for b in range(a, m):
                        msg[p] += wa * row[b]
                        p += 1
                    msg[n_tri + a] += wa * r
    return ()
