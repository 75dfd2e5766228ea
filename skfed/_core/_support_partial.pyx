# The partial client rule of one-shot federated support recovery: the rule
# of a client with fewer than d + 4 samples (skfed/support/_partial.py: the
# rule and its NumPy reference).  Split from ``_support_fast`` (issue 30:
# no module over 1,000 lines), which re-exports ``partial_work_size``,
# ``client_partial_dense`` and ``client_partial_csr``.  Python validates,
# allocates and simulates the network; the functions here only compute,
# without the GIL.

from libc.math cimport INFINITY, NAN, fabs, rint, sqrt
from libc.string cimport memset
from scipy.linalg.cython_blas cimport dsyrk

from cython cimport floating

from ._typedefs cimport intp_t, uint8_t

# A centred feature (or target) whose variance is below this fraction of its
# raw second moment is constant on the client, up to rounding (also the
# test of ``_support_fast``'s pass, which cimports it).
cdef double CONSTANT_RTOL = 1e-10

# ---------------------------------------------------------------------------
# The partial client rule (fewer than d + 4 samples): see
# skfed/support/_partial.py for the rule and its NumPy reference.
# ---------------------------------------------------------------------------

cdef double PARTIAL_SINGULAR_PIVOT = 1e-10  # as _partial.SINGULAR_PIVOT
cdef double RSS_FLOOR = 1e-12
cdef double TIE_SCALE = 4294967296.0  # 1 / _partial.TIE_GRID


cdef inline double _tie_key(double r) noexcept nogil:
    """|r| on the grid of ``_partial.tie_key`` (rounded half to even)."""
    return rint(fabs(r) * TIE_SCALE)
DEF MAX_CONTROLS = 32


def partial_work_size(intp_t n_rows, intp_t d):
    """Doubles of the ``work`` array of the partial passes (clients of at
    most ``n_rows`` rows)."""
    return n_rows * d + d * d + n_rows * n_rows + 6 * d + 3 * n_rows


cdef void _top_controls(
    const double* Rj, intp_t d, intp_t j, intp_t k, intp_t* best, double* val,
) noexcept nogil:
    """The k indices l != j of largest |Rj[l]| (``_tie_key``), in decreasing
    order, the lower index first among equal keys (as repeated argmax)."""
    cdef intp_t l, p, q, filled = 0
    cdef double v
    for l in range(d):
        if l == j:
            continue
        v = _tie_key(Rj[l])
        if filled == k and not v > val[k - 1]:
            continue
        # Insert after every kept value >= v (earlier indices win ties).
        p = filled if filled < k else k - 1
        while p > 0 and val[p - 1] < v:
            p -= 1
        q = (filled if filled < k else k - 1)
        while q > p:
            val[q] = val[q - 1]
            best[q] = best[q - 1]
            q -= 1
        val[p] = v
        best[p] = l
        if filled < k:
            filled += 1


cdef intp_t _next_control(
    const double* Rj, const double* inv_sd, intp_t d, intp_t j, double last_v,
    intp_t last_l,
) noexcept nogil:
    """The candidate after ``last_l`` (of value ``last_v``) in the order of
    :func:`_top_controls` (|Rj[l]| descending, lower index first), or -1;
    columns constant on the client (``inv_sd`` 0), which the pivot would
    skip, are passed over here, so that a wide sparse client whose
    non-constant columns run out stops after one more scan."""
    cdef intp_t l, best = -1
    cdef double v, best_v = -1.0
    for l in range(d):
        if l == j or inv_sd[l] == 0.0:
            continue
        v = _tie_key(Rj[l])
        if v > last_v or (v == last_v and l <= last_l):
            continue  # already walked
        if v > best_v:
            best_v = v
            best = l
    return best


cdef double _pivot_after(
    const double* R, intp_t d, intp_t j, const intp_t* cols, intp_t n, double* M,
) noexcept nogil:
    """Squared pivot of feature ``j`` after the ``n`` linearly independent
    features ``cols`` (a Cholesky factorization of their correlations with
    ``j`` last, in ``M``); 0 if they turn out singular."""
    cdef intp_t a, b, c, ia, ib, S = MAX_CONTROLS + 2
    cdef double s
    for a in range(n + 1):
        ia = cols[a] if a < n else j
        for b in range(a + 1):
            ib = cols[b] if b < n else j
            s = R[ia * d + ib]
            for c in range(b):
                s -= M[a * S + c] * M[b * S + c]
            if b < a:
                M[a * S + b] = s / M[b * S + b]
            elif a == n:
                return s
            elif not s > 0.0:
                return 0.0
            else:
                M[a * S + a] = sqrt(s)
    return 0.0


cdef intp_t _partial_core(
    double* Z, intp_t n, intp_t d, const double* wt, double* r, const double* raw,
    bint center, intp_t k_max, double m, double gate, double tcrit_k, double tcrit_0,
    double* work, double* tstat, uint8_t* packed, double* sphericity,
) noexcept nogil:
    """The partial rule on one client's rows ``Z`` (n x d, raw values in
    double), targets ``r`` and weights ``wt``; ``raw`` holds each feature's
    weighted sum of squares before centring.  Fills ``tstat`` (NaN where
    undefined), the bits and the sphericity statistic; returns the number of
    controls used."""
    cdef double* R = work
    cdef double* inv_sd = R + d * d
    cdef double* cz = inv_sd + d
    cdef double* mean = cz + d
    cdef double* ss = mean + d
    cdef double* sw = ss + d
    cdef intp_t t, j, l, a, b, kk, n_live = 0, n_bytes = (d + 7) // 8
    cdef intp_t idx[MAX_CONTROLS + 1]
    cdef intp_t cand[MAX_CONTROLS + 1]
    cdef double val[MAX_CONTROLS + 1]
    cdef double L[(MAX_CONTROLS + 1) * (MAX_CONTROLS + 1)]
    cdef double u[MAX_CONTROLS + 1]
    cdef double W = 0.0, ybar = 0.0, yy = 0.0, raw_y = 0.0, s, v, P, mu, var, S, df, tcrit
    cdef double rss, pj, last_v
    cdef intp_t acc, q, c, last_l, n_before
    cdef intp_t before[MAX_CONTROLS + 1]
    cdef double M[(MAX_CONTROLS + 2) * (MAX_CONTROLS + 2)]
    cdef bint ok
    cdef char uplo = b'U', trans = b'N'
    cdef int dn = <int>d, nn = <int>n
    cdef double one = 1.0, zero = 0.0
    memset(packed, 0, n_bytes)
    for j in range(d):
        tstat[j] = NAN
        mean[j] = 0.0
        ss[j] = 0.0
    for t in range(n):
        W += wt[t]
        sw[t] = sqrt(wt[t])
        raw_y += wt[t] * r[t] * r[t]
    if center:
        for t in range(n):
            ybar += wt[t] * r[t]
            for j in range(d):
                mean[j] += wt[t] * Z[t * d + j]
        ybar /= W
        for j in range(d):
            mean[j] /= W
    for t in range(n):
        r[t] = sw[t] * (r[t] - ybar)
        yy += r[t] * r[t]
        for j in range(d):
            v = sw[t] * (Z[t * d + j] - mean[j])
            Z[t * d + j] = v
            ss[j] += v * v
    if yy <= CONSTANT_RTOL * raw_y:
        yy = 0.0  # a constant target (up to rounding): no statistic
    for j in range(d):
        if ss[j] <= CONSTANT_RTOL * raw[j]:
            inv_sd[j] = 0.0
        else:
            inv_sd[j] = 1.0 / sqrt(ss[j])
            n_live += 1
    for j in range(d):
        cz[j] = 0.0
    for t in range(n):
        for j in range(d):
            Z[t * d + j] *= inv_sd[j]
            cz[j] += Z[t * d + j] * r[t]
    # Sphericity: sum_{j<l} r_jl^2 = (||Z Z^T||_F^2 - n_live) / 2.
    S = -INFINITY
    if n_live >= 2 and m >= 2.0:
        s = 0.0
        for a in range(n):
            for b in range(a, n):
                v = 0.0
                for j in range(d):
                    v += Z[a * d + j] * Z[b * d + j]
                s += v * v if a == b else 2.0 * v * v
        P = n_live * (n_live - 1.0) / 2.0
        mu = 1.0 / m
        var = 2.0 * (m - 1.0) / (m * m * (m + 2.0))
        S = ((s - n_live) / 2.0 - P * mu) / sqrt(P * var)
    sphericity[0] = S
    kk = k_max if S > gate else 0
    df = m - 1.0 - kk
    tcrit = tcrit_k if kk else tcrit_0
    if df < 1.0 or not yy > 0.0:
        return kk
    if kk == 0:
        for j in range(d):
            if inv_sd[j] == 0.0:
                continue
            rss = yy - cz[j] * cz[j]
            if rss < RSS_FLOOR * yy:
                rss = RSS_FLOOR * yy
            tstat[j] = cz[j] * sqrt(df / rss)
            if fabs(tstat[j]) > tcrit:
                packed[j >> 3] |= <uint8_t>(1 << (j & 7))
        return kk
    # R = Z^T Z: Z is row-major n x d, i.e. column-major d x n.
    dsyrk(&uplo, &trans, &dn, &nn, &one, Z, &dn, &zero, R, &dn)
    # Column-major upper triangle = row-major lower: mirror it.
    for j in range(d):
        for l in range(j + 1, d):
            R[j * d + l] = R[l * d + j]
    for j in range(d):
        if inv_sd[j] == 0.0:
            continue
        _top_controls(R + j * d, d, j, kk, cand, val)
        # Walk the candidates (|r_jl| descending, lower index first; the top
        # kk, then on) and pivot them: a candidate in the span of the
        # controls kept is skipped; one that completes a dependency with x_j
        # is skipped unless x_j is the dependency's latest column in column
        # order, which is then dropped (not tested), as in the OLS pivot.  L holds
        # the Cholesky rows of the controls kept, then x_j's row, which
        # grows with them; pj is x_j's squared pivot so far.
        acc = 0
        q = 0
        pj = R[j * d + j]
        ok = pj > PARTIAL_SINGULAR_PIVOT
        last_v = INFINITY
        last_l = -1
        while ok and acc < kk:
            if q < kk:
                l = cand[q]
            else:
                l = _next_control(R + j * d, inv_sd, d, j, last_v, last_l)
                if l < 0:
                    ok = False  # fewer than kk independent controls
                    break
            last_v = _tie_key(R[j * d + l])
            last_l = l
            q += 1
            for b in range(acc):
                s = R[l * d + idx[b]]
                for c in range(b):
                    s -= L[acc * (MAX_CONTROLS + 1) + c] * L[b * (MAX_CONTROLS + 1) + c]
                L[acc * (MAX_CONTROLS + 1) + b] = s / L[b * (MAX_CONTROLS + 1) + b]
            s = R[l * d + l]
            for c in range(acc):
                s -= L[acc * (MAX_CONTROLS + 1) + c] * L[acc * (MAX_CONTROLS + 1) + c]
            if not s > PARTIAL_SINGULAR_PIVOT:
                continue  # constant, or in the span of the controls kept
            L[acc * (MAX_CONTROLS + 1) + acc] = sqrt(s)
            v = R[j * d + l]
            for c in range(acc):
                v -= L[kk * (MAX_CONTROLS + 1) + c] * L[acc * (MAX_CONTROLS + 1) + c]
            v /= L[acc * (MAX_CONTROLS + 1) + acc]
            if not pj - v * v > PARTIAL_SINGULAR_PIVOT:
                # x_j, l and controls are dependent: x_j is dropped when it
                # is in the span of the earlier columns among l and the
                # controls (it is the latest column of the dependency).
                if l < j:
                    n_before = 0
                    for c in range(acc):
                        if idx[c] < j:
                            before[n_before] = idx[c]
                            n_before += 1
                    before[n_before] = l
                    if not _pivot_after(R, d, j, before, n_before + 1, M) > PARTIAL_SINGULAR_PIVOT:
                        ok = False  # not tested
                continue
            L[kk * (MAX_CONTROLS + 1) + acc] = v
            pj -= v * v
            idx[acc] = l
            acc += 1
        if not ok:
            continue
        idx[kk] = j  # the tested feature last: t = u_last sqrt(df / rss)
        L[kk * (MAX_CONTROLS + 1) + kk] = sqrt(pj)
        rss = yy
        for a in range(kk + 1):
            s = cz[idx[a]]
            for b in range(a):
                s -= L[a * (MAX_CONTROLS + 1) + b] * u[b]
            u[a] = s / L[a * (MAX_CONTROLS + 1) + a]
            rss -= u[a] * u[a]
        if rss < RSS_FLOOR * yy:
            rss = RSS_FLOOR * yy
        tstat[j] = u[kk] * sqrt(df / rss)
        if fabs(tstat[j]) > tcrit:
            packed[j >> 3] |= <uint8_t>(1 << (j & 7))
    return kk


def _check_partial(const intp_t[::1] offsets, const intp_t[::1] nodes,
                   const intp_t[::1] k_max, intp_t d, intp_t work_size):
    cdef intp_t q, n_max = 0
    for q in range(nodes.shape[0]):
        n_max = max(n_max, offsets[nodes[q] + 1] - offsets[nodes[q]])
        if k_max[nodes[q]] > MAX_CONTROLS:
            raise ValueError(f"at most {MAX_CONTROLS} controls")
    if work_size < partial_work_size(n_max, d):
        raise ValueError("work is too small")


cdef void _partial_node(
    intp_t n, intp_t d, const floating* y, const floating* sw, double* work,
    bint center, intp_t k_max, double dof, double tcrit_k, double tcrit_0, double gate,
    double* tstat, uint8_t* packed, intp_t* used, double* sphericity,
) noexcept nogil:
    """The part of the partial entry points after a client's rows are loaded
    into ``work[:n * d]`` (row-major, raw values): load its targets
    ``y[:n]`` and weights ``sw[:n]``, sum each feature's weighted squares
    and run :func:`_partial_core`."""
    cdef intp_t t, j
    cdef double* Z = work
    cdef double* r = Z + n * d
    cdef double* wt = r + n
    cdef double* raw = wt + n
    for j in range(d):
        raw[j] = 0.0
    for t in range(n):
        wt[t] = sw[t]
        r[t] = y[t]
        for j in range(d):
            raw[j] += wt[t] * Z[t * d + j] * Z[t * d + j]
    used[0] = _partial_core(Z, n, d, wt, r, raw, center, k_max, dof, gate, tcrit_k,
                            tcrit_0, raw + d, tstat, packed, sphericity)


def client_partial_dense(
    const floating[:, ::1] X,          # IN (n_samples, d), rows node by node
    const floating[::1] y,             # IN (n_samples,)
    const floating[::1] sample_weight, # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,) node row offsets
    const intp_t[::1] nodes,           # IN the nodes this call processes
    const intp_t[::1] k_max,           # IN (n_nodes,) controls of a correlated client
    const double[::1] dof,             # IN (n_nodes,) positive-weight samples - center
    const double[::1] tcrit_k,         # IN (n_nodes,) critical |t| with k_max controls
    const double[::1] tcrit_0,         # IN (n_nodes,) critical |t| without controls
    double gate,                       # IN sphericity above which controls are used
    bint center,                       # IN centre x and y on each client
    double[:, ::1] tstat,              # OUT (n_nodes, d) t statistics (NaN: undefined)
    uint8_t[:, ::1] packed,            # OUT (n_nodes, ceil(d / 8)) |t_j| > tcrit
    intp_t[::1] used,                  # OUT (n_nodes,) controls used (k_max or 0)
    double[::1] sphericity,            # OUT (n_nodes,) standardized sum of r_jl^2
    double[::1] work,                  # WORK (partial_work_size(max rows, d),)
):
    """The partial rule (skfed/support/_partial.py) on dense rows."""
    cdef intp_t d = X.shape[1]
    cdef intp_t q, i, t, j, r0, n
    _check_partial(offsets, nodes, k_max, d, work.shape[0])
    with nogil:
        for q in range(nodes.shape[0]):
            i = nodes[q]
            r0 = offsets[i]
            n = offsets[i + 1] - r0
            for t in range(n):
                for j in range(d):
                    work[t * d + j] = X[r0 + t, j]
            _partial_node(n, d, &y[r0], &sample_weight[r0], &work[0], center, k_max[i],
                          dof[i], tcrit_k[i], tcrit_0[i], gate, &tstat[i, 0],
                          &packed[i, 0], &used[i], &sphericity[i])
    return ()


def client_partial_csr(
    const floating[::1] data,          # IN CSR values, rows node by node
    const intp_t[::1] indices,         # IN CSR column indices
    const intp_t[::1] indptr,          # IN (n_samples + 1,)
    intp_t d,                          # IN number of features
    const floating[::1] y,             # then as client_partial_dense
    const floating[::1] sample_weight,
    const intp_t[::1] offsets,
    const intp_t[::1] nodes,
    const intp_t[::1] k_max,
    const double[::1] dof,
    const double[::1] tcrit_k,
    const double[::1] tcrit_0,
    double gate,
    bint center,
    double[:, ::1] tstat,
    uint8_t[:, ::1] packed,
    intp_t[::1] used,
    double[::1] sphericity,
    double[::1] work,
):
    """:func:`client_partial_dense` over CSR rows (a client's rows densified)."""
    cdef intp_t q, i, t, p, r0, n
    _check_partial(offsets, nodes, k_max, d, work.shape[0])
    with nogil:
        for q in range(nodes.shape[0]):
            i = nodes[q]
            r0 = offsets[i]
            n = offsets[i + 1] - r0
            memset(&work[0], 0, n * d * sizeof(double))
            for t in range(n):
                for p in range(indptr[r0 + t], indptr[r0 + t + 1]):
                    work[t * d + indices[p]] = data[p]
            _partial_node(n, d, &y[r0], &sample_weight[r0], &work[0], center, k_max[i],
                          dof[i], tcrit_k[i], tcrit_0[i], gate, &tstat[i, 0],
                          &packed[i, 0], &used[i], &sphericity[i])
    return ()
