"""Kernel evaluations without the GIL, for float32 and float64.

The cdef functions declared in ``_kernels.pxd`` are what the kernel solvers
(``_multitask_fast``, ``_online_fast``) cimport; :func:`pairwise_kernel_fast`
is the Python entry point behind :func:`skfed.kernels.pairwise_kernel`, and the
``py_*`` functions exist for the tests only.

Kernel matrices are computed tile by tile: each tile of ``out`` is first
filled with dot products by one BLAS gemm call and then finished (norms,
exp, power, tanh) while it is still in cache, so the matrix is written to
memory once instead of once per elementwise pass.  When n_features is large
the gemm dominates and tiles grow tall so that BLAS runs at full speed.  The
exp of rbf and laplacian runs four entries at a time (AVX2) where the CPU
allows it.
"""

from libc.math cimport NAN, exp, fabs, pow, tanh
from libc.stdlib cimport free, malloc
from scipy.linalg.cython_blas cimport dgemm, dsyrk, sgemm, ssyrk

from ._typedefs cimport intp_t


cdef extern from *:
    """
    /* In-place exp over a row of values <= 0 (-gamma times a distance) and
       in-place tanh over a row of values.

       The portable loops call the C library.  On x86-64 with GCC or Clang,
       AVX2 + FMA loops are selected at import time when the CPU has those
       instructions:
       - exp(x) = 2^k exp(r), x = k ln2 + r, |r| <= ln2/2 (Cody-Waite split
         of ln2), exp(r) by its Taylor polynomial of degree 13 (truncation
         error below 1e-17), 2^k written into the exponent bits.  Error
         within 2 ulp; inputs below -708 (results near DBL_MIN) give 0.
       - tanh(z) = sign(z) (1 - e) / (1 + e) with e = exp(-2 |z|) for
         |z| >= 0.1 (relative error within ~1e-15), and its Taylor
         polynomial of degree 15 below (truncation error below 1e-19). */
    #include <math.h>

    static void skfed_exp_f64_base(double* v, Py_ssize_t n) {
        Py_ssize_t i;
        for (i = 0; i < n; i++) v[i] = exp(v[i]);
    }
    static void skfed_exp_f32_base(float* v, Py_ssize_t n) {
        Py_ssize_t i;
        for (i = 0; i < n; i++) v[i] = (float)exp((double)v[i]);
    }
    static void skfed_tanh_f64_base(double* v, Py_ssize_t n) {
        Py_ssize_t i;
        for (i = 0; i < n; i++) v[i] = tanh(v[i]);
    }
    static void skfed_tanh_f32_base(float* v, Py_ssize_t n) {
        Py_ssize_t i;
        for (i = 0; i < n; i++) v[i] = (float)tanh((double)v[i]);
    }

    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #define SKFED_HAVE_AVX2_DISPATCH 1
    #include <immintrin.h>

    __attribute__((target("avx2,fma")))
    static inline __m256d skfed_exp4_nonpositive(__m256d x) {
        const __m256d lower = _mm256_set1_pd(-708.0);
        const __m256d shifter = _mm256_set1_pd(6755399441055744.0); /* 1.5 * 2^52 */
        __m256d xc = _mm256_max_pd(x, lower);
        __m256d t = _mm256_fmadd_pd(xc, _mm256_set1_pd(1.4426950408889634), shifter);
        __m256d k = _mm256_sub_pd(t, shifter);
        __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(6.93147180369123816490e-01), xc);
        __m256d p = _mm256_set1_pd(1.0 / 6227020800.0);
        __m256i bits;
        r = _mm256_fnmadd_pd(k, _mm256_set1_pd(1.90821492927058770002e-10), r);
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 479001600.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 39916800.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 3628800.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 362880.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 40320.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 5040.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 720.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 120.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 24.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0 / 6.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(0.5));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
        /* The low bits of t hold k in two's complement; shifted into the
           exponent field and added to the bits of 1.0 they give 2^k
           (k + 1023 is in [1, 1023]). */
        bits = _mm256_add_epi64(_mm256_slli_epi64(_mm256_castpd_si256(t), 52),
                                _mm256_castpd_si256(_mm256_set1_pd(1.0)));
        p = _mm256_mul_pd(p, _mm256_castsi256_pd(bits));
        return _mm256_and_pd(p, _mm256_cmp_pd(x, lower, _CMP_GE_OQ));
    }

    __attribute__((target("avx2,fma")))
    static void skfed_exp_f64_avx2(double* v, Py_ssize_t n) {
        Py_ssize_t i = 0;
        for (; i + 4 <= n; i += 4)
            _mm256_storeu_pd(v + i, skfed_exp4_nonpositive(_mm256_loadu_pd(v + i)));
        skfed_exp_f64_base(v + i, n - i);
    }

    __attribute__((target("avx2,fma")))
    static void skfed_exp_f32_avx2(float* v, Py_ssize_t n) {
        Py_ssize_t i = 0;
        for (; i + 4 <= n; i += 4)
            _mm_storeu_ps(v + i, _mm256_cvtpd_ps(skfed_exp4_nonpositive(
                _mm256_cvtps_pd(_mm_loadu_ps(v + i)))));
        skfed_exp_f32_base(v + i, n - i);
    }

    __attribute__((target("avx2,fma")))
    static inline __m256d skfed_tanh4(__m256d z) {
        const __m256d sign_mask = _mm256_set1_pd(-0.0);
        const __m256d one = _mm256_set1_pd(1.0);
        __m256d a = _mm256_andnot_pd(sign_mask, z);
        __m256d e = skfed_exp4_nonpositive(_mm256_mul_pd(a, _mm256_set1_pd(-2.0)));
        __m256d large = _mm256_div_pd(_mm256_sub_pd(one, e), _mm256_add_pd(one, e));
        __m256d z2 = _mm256_mul_pd(z, z);
        __m256d p = _mm256_set1_pd(-929569.0 / 638512875.0);
        __m256d small;
        p = _mm256_fmadd_pd(p, z2, _mm256_set1_pd(21844.0 / 6081075.0));
        p = _mm256_fmadd_pd(p, z2, _mm256_set1_pd(-1382.0 / 155925.0));
        p = _mm256_fmadd_pd(p, z2, _mm256_set1_pd(62.0 / 2835.0));
        p = _mm256_fmadd_pd(p, z2, _mm256_set1_pd(-17.0 / 315.0));
        p = _mm256_fmadd_pd(p, z2, _mm256_set1_pd(2.0 / 15.0));
        p = _mm256_fmadd_pd(p, z2, _mm256_set1_pd(-1.0 / 3.0));
        small = _mm256_fmadd_pd(_mm256_mul_pd(p, z2), z, z);
        large = _mm256_or_pd(large, _mm256_and_pd(sign_mask, z));
        return _mm256_blendv_pd(large, small,
                                _mm256_cmp_pd(a, _mm256_set1_pd(0.1), _CMP_LT_OQ));
    }

    __attribute__((target("avx2,fma")))
    static void skfed_tanh_f64_avx2(double* v, Py_ssize_t n) {
        Py_ssize_t i = 0;
        for (; i + 4 <= n; i += 4)
            _mm256_storeu_pd(v + i, skfed_tanh4(_mm256_loadu_pd(v + i)));
        skfed_tanh_f64_base(v + i, n - i);
    }

    __attribute__((target("avx2,fma")))
    static void skfed_tanh_f32_avx2(float* v, Py_ssize_t n) {
        Py_ssize_t i = 0;
        for (; i + 4 <= n; i += 4)
            _mm_storeu_ps(v + i, _mm256_cvtpd_ps(skfed_tanh4(
                _mm256_cvtps_pd(_mm_loadu_ps(v + i)))));
        skfed_tanh_f32_base(v + i, n - i);
    }
    #endif

    static void (*skfed_exp_f64)(double*, Py_ssize_t) = skfed_exp_f64_base;
    static void (*skfed_exp_f32)(float*, Py_ssize_t) = skfed_exp_f32_base;
    static void (*skfed_tanh_f64)(double*, Py_ssize_t) = skfed_tanh_f64_base;
    static void (*skfed_tanh_f32)(float*, Py_ssize_t) = skfed_tanh_f32_base;

    /* Called once at import, with the GIL, before any kernel runs. */
    static int skfed_simd_select(int allow_simd) {
    #ifdef SKFED_HAVE_AVX2_DISPATCH
        __builtin_cpu_init();
        if (allow_simd && __builtin_cpu_supports("avx2")
                && __builtin_cpu_supports("fma")) {
            skfed_exp_f64 = skfed_exp_f64_avx2;
            skfed_exp_f32 = skfed_exp_f32_avx2;
            skfed_tanh_f64 = skfed_tanh_f64_avx2;
            skfed_tanh_f32 = skfed_tanh_f32_avx2;
            return 1;
        }
    #endif
        skfed_exp_f64 = skfed_exp_f64_base;
        skfed_exp_f32 = skfed_exp_f32_base;
        skfed_tanh_f64 = skfed_tanh_f64_base;
        skfed_tanh_f32 = skfed_tanh_f32_base;
        return 0;
    }
    """
    void skfed_exp_f64(double* v, intp_t n) noexcept nogil
    void skfed_exp_f32(float* v, intp_t n) noexcept nogil
    void skfed_tanh_f64(double* v, intp_t n) noexcept nogil
    void skfed_tanh_f32(float* v, intp_t n) noexcept nogil
    int skfed_simd_select(int allow_simd) noexcept


# Whether the AVX2 + FMA exp and tanh loops are in use (True) or the C
# library's.
_SIMD_MATH = bool(skfed_simd_select(1))


def _use_simd_math(bint allow):
    """Select the AVX2 exp and tanh loops (if the CPU has them) or the C
    library's; returns whether the AVX2 loops are now in use.  For the tests and
    benchmarks only: not thread-safe while kernels run."""
    global _SIMD_MATH
    _SIMD_MATH = bool(skfed_simd_select(allow))
    return _SIMD_MATH


cdef inline void _exp_inplace(floating* v, intp_t n) noexcept nogil:
    """v[j] = exp(v[j]) for v[j] <= 0 (see the C code above)."""
    if floating is double:
        skfed_exp_f64(v, n)
    else:
        skfed_exp_f32(v, n)


cdef inline void _tanh_inplace(floating* v, intp_t n) noexcept nogil:
    """v[j] = tanh(v[j]) (see the C code above)."""
    if floating is double:
        skfed_tanh_f64(v, n)
    else:
        skfed_tanh_f32(v, n)


cdef enum:
    # Tiles of ``out`` have at most TILE_MAX_COLS columns (rows of Y) and as
    # many rows (rows of X, between TILE_MIN_ROWS and TILE_MAX_ROWS) as fit
    # in ``_tile_bytes``, so that a tile is still in cache while it is
    # finished -- unless n_features is large, when gemm dominates and tall
    # tiles keep it at full speed (see _kernel_block).
    TILE_MAX_COLS = 4096
    TILE_MAX_ROWS = 4096
    TILE_MIN_ROWS = 16
    # Rows of Y per pass of the laplacian loops (kept in L1/L2 cache).
    LAPLACIAN_ROWS = 64
    # Entries per chunk of _power_inplace (its scratch lives on the stack).
    POWER_CHUNK = 256

cdef intp_t _tile_bytes = 4 << 20


# float32 rbf: the expanded ||x||^2 - 2 x.y + ||y||^2 carries the float32
# rounding error of the gemm dot product, about eps32 ||x|| ||y||.  When the
# distance is below this fraction of ||x||^2 + ||y||^2 (more than 6 of the 24
# bits lost), the entry is recomputed directly.
cdef double RBF_FLOAT32_CANCELLATION = 1.0 / 64.0


# --------------------------------------------------------------------- sums
cdef inline double _dot(const floating* x, const floating* y,
                        intp_t n) noexcept nogil:
    """x . y accumulated in double over four independent partial sums."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef intp_t k, n4 = n - n % 4
    for k in range(0, n4, 4):
        s0 += <double>x[k] * y[k]
        s1 += <double>x[k + 1] * y[k + 1]
        s2 += <double>x[k + 2] * y[k + 2]
        s3 += <double>x[k + 3] * y[k + 3]
    for k in range(n4, n):
        s0 += <double>x[k] * y[k]
    return (s0 + s1) + (s2 + s3)


cdef inline double _sq_dist(const floating* x, const floating* y,
                            intp_t n) noexcept nogil:
    """||x - y||^2 summed directly (no cancellation), in double."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef double t0, t1, t2, t3
    cdef intp_t k, n4 = n - n % 4
    for k in range(0, n4, 4):
        t0 = <double>x[k] - y[k]
        t1 = <double>x[k + 1] - y[k + 1]
        t2 = <double>x[k + 2] - y[k + 2]
        t3 = <double>x[k + 3] - y[k + 3]
        s0 += t0 * t0
        s1 += t1 * t1
        s2 += t2 * t2
        s3 += t3 * t3
    for k in range(n4, n):
        t0 = <double>x[k] - y[k]
        s0 += t0 * t0
    return (s0 + s1) + (s2 + s3)


cdef inline double _l1_dist(const floating* x, const floating* y,
                            intp_t n) noexcept nogil:
    """||x - y||_1 in double."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef intp_t k, n4 = n - n % 4
    for k in range(0, n4, 4):
        s0 += fabs(<double>x[k] - y[k])
        s1 += fabs(<double>x[k + 1] - y[k + 1])
        s2 += fabs(<double>x[k + 2] - y[k + 2])
        s3 += fabs(<double>x[k + 3] - y[k + 3])
    for k in range(n4, n):
        s0 += fabs(<double>x[k] - y[k])
    return (s0 + s1) + (s2 + s3)


cdef inline double _power(double base, double degree) noexcept nogil:
    """base ** degree; integer degrees up to 64 by repeated squaring."""
    cdef double result = 1.0
    cdef int n
    if degree <= 64.0 and degree == <double>(<int>degree):
        n = <int>degree
        while n > 0:
            if n & 1:
                result *= base
            base *= base
            n >>= 1
        return result
    return pow(base, degree)


# ---------------------------------------------------------------- one pair
cdef KernelParams make_kernel_params(int kind, double gamma, double coef0,
                                     double degree) noexcept nogil:
    """Fill a KernelParams (values are validated in Python beforehand)."""
    cdef KernelParams params
    params.kind = kind
    params.gamma = gamma
    params.coef0 = coef0
    params.degree = degree
    return params


cdef double kernel_pair_double(const KernelParams* params, const floating* x,
                               const floating* y, intp_t n_features) noexcept nogil:
    """k(x, y) for two contiguous rows of length n_features, in double."""
    cdef int kind = params.kind
    cdef double dot
    if kind == KERNEL_RBF:
        return exp(-params.gamma * _sq_dist(x, y, n_features))
    if kind == KERNEL_LAPLACIAN:
        return exp(-params.gamma * _l1_dist(x, y, n_features))
    dot = _dot(x, y, n_features)
    if kind == KERNEL_LINEAR:
        return dot
    if kind == KERNEL_POLY:
        return _power(dot * params.gamma + params.coef0, params.degree)
    if kind == KERNEL_SIGMOID:
        return tanh(dot * params.gamma + params.coef0)
    return NAN


cdef floating kernel_pair(const KernelParams* params, const floating* x,
                          const floating* y, intp_t n_features) noexcept nogil:
    """k(x, y) for two contiguous rows of length n_features."""
    return <floating>kernel_pair_double(params, x, y, n_features)


cdef void kernel_row(const KernelParams* params, const floating* x,
                     const floating* Y, intp_t n_y, intp_t n_features,
                     floating* out) noexcept nogil:
    """out[j] = k(x, Y[j]) for the n_y contiguous rows starting at Y."""
    cdef intp_t j
    for j in range(n_y):
        out[j] = kernel_pair(params, x, Y + j * n_features, n_features)


cdef void sq_row_norms(const floating[:, ::1] X, double[::1] out) noexcept nogil:
    """out[i] = ||X[i]||^2 accumulated in double."""
    cdef intp_t i, n_features = X.shape[1]
    for i in range(X.shape[0]):
        out[i] = _dot(&X[i, 0], &X[i, 0], n_features) if n_features > 0 else 0.0


# ------------------------------------------------------------------- blocks
cdef void _gemm_xyt(const floating* X, intp_t n_x, const floating* Y, intp_t n_y,
                    intp_t n_features, floating* out, intp_t ld_out) noexcept nogil:
    """out[i, j] = X[i] . Y[j] for row-major X, Y and out (row stride ld_out).

    BLAS is column-major: a row-major (n_x, n_y) ``out`` is the column-major
    (n_y, n_x) matrix ``Y @ X.T``, and a row-major (n, d) array is the
    column-major (d, n) matrix of its transpose, hence gemm("T", "N") with Y
    first.
    """
    cdef char transa = b'T'
    cdef char transb = b'N'
    cdef int m = <int>n_y
    cdef int n = <int>n_x
    cdef int k = <int>n_features
    cdef int ldc = <int>ld_out
    cdef floating alpha = 1.0
    cdef floating beta = 0.0
    if floating is double:
        dgemm(&transa, &transb, &m, &n, &k, &alpha, <double*>Y, &k,
              <double*>X, &k, &beta, out, &ldc)
    else:
        sgemm(&transa, &transb, &m, &n, &k, &alpha, <float*>Y, &k,
              <float*>X, &k, &beta, out, &ldc)


cdef void _power_inplace(floating* v, intp_t n, double degree) noexcept nogil:
    """v[j] = v[j] ** degree; the same operations as _power, a chunk of
    entries at a time so that the loops vectorize."""
    cdef floating result[POWER_CHUNK]
    cdef intp_t start, j, m
    cdef int k
    cdef floating* w
    if not (degree <= 64.0 and degree == <double>(<int>degree)):
        for j in range(n):
            v[j] = <floating>pow(v[j], degree)
        return
    start = 0
    while start < n:
        w = v + start
        m = min(<intp_t>POWER_CHUNK, n - start)
        start += m
        k = <int>degree
        for j in range(m):
            result[j] = 1.0
        while k > 0:
            if k & 1:
                for j in range(m):
                    result[j] = result[j] * w[j]
            k >>= 1
            if k > 0:
                for j in range(m):
                    w[j] = w[j] * w[j]
        for j in range(m):
            w[j] = result[j]


cdef void _syrk_xxt(const floating* X, intp_t n_x, intp_t n_features,
                    floating* out, intp_t ld_out) noexcept nogil:
    """Upper triangle (j >= i) of out[i, j] = X[i] . X[j] (row stride ld_out).

    Half the work of _gemm_xyt(X, X); the row-major upper triangle is the
    column-major lower one.
    """
    cdef char uplo = b'L'
    cdef char trans = b'T'
    cdef int n = <int>n_x
    cdef int k = <int>n_features
    cdef int ldc = <int>ld_out
    cdef floating alpha = 1.0
    cdef floating beta = 0.0
    if floating is double:
        dsyrk(&uplo, &trans, &n, &k, &alpha, <double*>X, &k, &beta, out, &ldc)
    else:
        ssyrk(&uplo, &trans, &n, &k, &alpha, <float*>X, &k, &beta, out, &ldc)


cdef void _finish_tile(const KernelParams* params, const floating* X,
                       const floating* Y, intp_t n_features,
                       const double* x_sq_norms, const double* y_sq_norms,
                       floating* out, intp_t ld_out, intp_t n_i, intp_t n_j,
                       bint diagonal) noexcept nogil:
    """Turn a tile of dot products into kernel values, in place.

    X, Y, the norms and ``out`` point to the first row / entry of the tile.
    On a ``diagonal`` tile of a symmetric block (first row and column at the
    same index) only entries on or above the diagonal are finished (the
    caller mirrors them).
    """
    cdef int kind = params.kind
    cdef double minus_gamma = -params.gamma
    cdef double gamma = params.gamma
    cdef double coef0 = params.coef0
    cdef double dist, x_sq_norm
    cdef intp_t i, j, j_start = 0
    cdef floating* row

    if kind == KERNEL_LINEAR:
        return
    for i in range(n_i):
        row = out + i * ld_out
        if diagonal:
            j_start = i
        if kind == KERNEL_RBF:
            # Same order of operations as sklearn's euclidean_distances and
            # rbf_kernel: ((-2 x.y + ||x||^2) + ||y||^2), clipped at 0, times
            # -gamma, then exp.
            x_sq_norm = x_sq_norms[i]
            for j in range(j_start, n_j):
                dist = (x_sq_norm - 2.0 * row[j]) + y_sq_norms[j]
                if floating is float:
                    if dist < RBF_FLOAT32_CANCELLATION * (x_sq_norm + y_sq_norms[j]):
                        dist = _sq_dist(X + i * n_features, Y + j * n_features,
                                        n_features)
                if dist < 0.0:
                    dist = 0.0
                row[j] = <floating>(dist * minus_gamma)
            _exp_inplace(row + j_start, n_j - j_start)
            if diagonal:
                # A point's distance to itself is exactly 0.
                row[i] = 1.0
        elif kind == KERNEL_POLY:
            for j in range(j_start, n_j):
                row[j] = <floating>(row[j] * gamma + coef0)
            _power_inplace(row + j_start, n_j - j_start, params.degree)
        elif kind == KERNEL_SIGMOID:
            for j in range(j_start, n_j):
                row[j] = <floating>(row[j] * gamma + coef0)
            _tanh_inplace(row + j_start, n_j - j_start)
        else:
            for j in range(j_start, n_j):
                row[j] = <floating>NAN


cdef void _laplacian_tile(double gamma, const floating* X, const floating* Y,
                          intp_t n_features, floating* out, intp_t ld_out,
                          intp_t n_i, intp_t n_j, bint diagonal) noexcept nogil:
    """exp(-gamma ||x - y||_1) over one tile (on and above the diagonal if
    ``diagonal``), LAPLACIAN_ROWS rows of Y at a time."""
    cdef intp_t i, j, j0, j_end
    cdef const floating* x
    cdef floating* row
    j0 = 0
    while j0 < n_j:
        j_end = min(j0 + LAPLACIAN_ROWS, n_j)
        for i in range(n_i):
            x = X + i * n_features
            row = out + i * ld_out
            for j in range(max(j0, i) if diagonal else j0, j_end):
                row[j] = <floating>(-gamma * _l1_dist(x, Y + j * n_features,
                                                      n_features))
        j0 = j_end
    for i in range(n_i):
        j0 = i if diagonal else 0
        _exp_inplace(out + i * ld_out + j0, n_j - j0)


cdef void _mirror_tile(floating* out, intp_t ld_out, intp_t i0, intp_t n_i,
                       intp_t j0, intp_t n_j, bint diagonal) noexcept nogil:
    """out[j0 + j, i0 + i] = out[i0 + i, j0 + j] over a tile (only j > i on
    a diagonal tile), 64 destination rows at a time."""
    cdef intp_t i, j, jb
    for jb in range(0, n_j, 64):
        for i in range(n_i):
            for j in range(max(jb, i + 1) if diagonal else jb, min(jb + 64, n_j)):
                out[(j0 + j) * ld_out + i0 + i] = out[(i0 + i) * ld_out + j0 + j]


cdef void _row_sq_norms(const floating* X, intp_t n_rows, intp_t n_features,
                        double* out) noexcept nogil:
    cdef intp_t i
    for i in range(n_rows):
        out[i] = _dot(X + i * n_features, X + i * n_features, n_features)


cdef void _kernel_block(const KernelParams* params, const floating* X, intp_t n_x,
                        const floating* Y, intp_t n_y, intp_t n_features,
                        const double* x_sq_norms, const double* y_sq_norms,
                        floating* out, bint symmetric) noexcept nogil:
    """Row-major out (n_x, n_y) = k(X, Y).

    The norms may be NULL (rbf then computes them per tile); ``symmetric``
    means X and Y are the same rows, and then only tiles on or above the
    diagonal are computed and mirrored.
    """
    cdef int kind = params.kind
    cdef intp_t max_cols, max_rows, i0, j0, n_i, n_j, i
    cdef bint diagonal
    cdef double* norm_buf = NULL
    cdef const double* x_norms = NULL
    cdef const double* y_norms = NULL

    if n_x == 0 or n_y == 0:
        return
    if n_features == 0 or kind < KERNEL_LINEAR or kind > KERNEL_LAPLACIAN:
        # Degenerate or unknown kernel: no BLAS call.
        _kernel_block_direct(params, X, n_x, Y, n_y, n_features, out)
        return
    if kind == KERNEL_LINEAR and not symmetric:
        # Nothing to finish: one gemm call is fastest.
        _gemm_xyt(X, n_x, Y, n_y, n_features, out, n_y)
        return

    max_cols = min(n_y, <intp_t>TILE_MAX_COLS)
    max_rows = _tile_bytes // (max_cols * <intp_t>sizeof(floating))
    if kind != KERNEL_LAPLACIAN and max_rows < 4 * n_features:
        # gemm-bound: BLAS packs the Y rows of a tile once per call, about
        # n_features / max_rows extra work per entry, which then costs more
        # than finishing the tile out of cache.  Take tall tiles.
        max_rows = TILE_MAX_ROWS
    max_rows = min(max(max_rows, <intp_t>TILE_MIN_ROWS), <intp_t>TILE_MAX_ROWS)
    max_rows = min(max_rows, n_x)
    if kind == KERNEL_RBF and (x_sq_norms == NULL or y_sq_norms == NULL):
        norm_buf = <double*>malloc((max_rows + max_cols) * sizeof(double))
        if norm_buf == NULL:
            # No memory for the norms of a tile: take the slow path.
            _kernel_block_direct(params, X, n_x, Y, n_y, n_features, out)
            return

    i0 = 0
    while i0 < n_x:
        n_i = min(max_rows, n_x - i0)
        if kind == KERNEL_RBF:
            if x_sq_norms != NULL:
                x_norms = x_sq_norms + i0
            else:
                _row_sq_norms(X + i0 * n_features, n_i, n_features, norm_buf)
                x_norms = norm_buf
        j0 = i0 if symmetric else 0
        while j0 < n_y:
            n_j = min(max_cols, n_y - j0)
            diagonal = symmetric and j0 == i0
            if kind == KERNEL_LAPLACIAN:
                _laplacian_tile(params.gamma, X + i0 * n_features,
                                Y + j0 * n_features, n_features,
                                out + i0 * n_y + j0, n_y, n_i, n_j, diagonal)
            else:
                if kind == KERNEL_RBF:
                    if y_sq_norms != NULL:
                        y_norms = y_sq_norms + j0
                    else:
                        _row_sq_norms(Y + j0 * n_features, n_j, n_features,
                                      norm_buf + max_rows)
                        y_norms = norm_buf + max_rows
                if diagonal:
                    # The square on the diagonal by syrk, the rest by gemm
                    # (n_i <= n_j here since TILE_MAX_ROWS <= TILE_MAX_COLS).
                    _syrk_xxt(X + i0 * n_features, n_i, n_features,
                              out + i0 * n_y + j0, n_y)
                    if n_j > n_i:
                        _gemm_xyt(X + i0 * n_features, n_i,
                                  Y + (j0 + n_i) * n_features, n_j - n_i,
                                  n_features, out + i0 * n_y + j0 + n_i, n_y)
                else:
                    _gemm_xyt(X + i0 * n_features, n_i, Y + j0 * n_features,
                              n_j, n_features, out + i0 * n_y + j0, n_y)
                _finish_tile(params, X + i0 * n_features, Y + j0 * n_features,
                             n_features, x_norms, y_norms, out + i0 * n_y + j0,
                             n_y, n_i, n_j, diagonal)
            if symmetric:
                _mirror_tile(out, n_y, i0, n_i, j0, n_j, diagonal)
            j0 += n_j
        i0 += n_i
    free(norm_buf)


cdef void _kernel_block_direct(const KernelParams* params, const floating* X,
                               intp_t n_x, const floating* Y, intp_t n_y,
                               intp_t n_features, floating* out) noexcept nogil:
    """One kernel_pair per entry: no BLAS, no scratch memory."""
    cdef intp_t i
    for i in range(n_x):
        kernel_row(params, X + i * n_features, Y, n_y, n_features, out + i * n_y)


cdef void kernel_block(const KernelParams* params, const floating[:, ::1] X,
                       const floating[:, ::1] Y, floating[:, ::1] out) noexcept nogil:
    """out[i, j] = k(X[i], Y[j]); see _kernels.pxd."""
    cdef intp_t n_x = X.shape[0], n_y = Y.shape[0]
    if n_x == 0 or n_y == 0:
        return
    if X.shape[1] == 0:
        # No features: every entry is k of two empty vectors (no row pointers).
        _kernel_block(params, NULL, n_x, NULL, n_y, 0, NULL, NULL, &out[0, 0],
                      False)
        return
    _kernel_block(params, &X[0, 0], n_x, &Y[0, 0], n_y, X.shape[1], NULL, NULL,
                  &out[0, 0], n_x == n_y and &X[0, 0] == &Y[0, 0])


cdef void kernel_block_sq_norms(const KernelParams* params,
                                const floating[:, ::1] X, const floating[:, ::1] Y,
                                const double[::1] x_sq_norms,
                                const double[::1] y_sq_norms,
                                floating[:, ::1] out) noexcept nogil:
    """kernel_block with the squared row norms of X and Y given."""
    cdef intp_t n_x = X.shape[0], n_y = Y.shape[0]
    if n_x == 0 or n_y == 0:
        return
    if X.shape[1] == 0:
        _kernel_block(params, NULL, n_x, NULL, n_y, 0, NULL, NULL, &out[0, 0],
                      False)
        return
    _kernel_block(params, &X[0, 0], n_x, &Y[0, 0], n_y, X.shape[1],
                  &x_sq_norms[0], &y_sq_norms[0], &out[0, 0],
                  n_x == n_y and &X[0, 0] == &Y[0, 0])


# ------------------------------------------------------------ Python entry
def _set_tile_bytes(intp_t n_bytes):
    """Set the cache budget of a tile (for tuning only; not thread-safe while
    kernels run).  Returns the previous value."""
    global _tile_bytes
    cdef intp_t previous = _tile_bytes
    if n_bytes < 1:
        raise ValueError(f"n_bytes must be >= 1, got {n_bytes}.")
    _tile_bytes = n_bytes
    return previous


def _check_kind(int kind):
    if kind < KERNEL_LINEAR or kind > KERNEL_LAPLACIAN:
        raise ValueError(f"kind must be a KernelKind in [0, 4], got {kind}.")


def pairwise_kernel_fast(
    const floating[:, ::1] X,   # IN (n_x, n_features)
    const floating[:, ::1] Y,   # IN (n_y, n_features); may be X itself
    int kind,                   # IN KernelKind
    double gamma,               # IN
    double coef0,               # IN
    double degree,              # IN
    floating[:, ::1] out,       # OUT (n_x, n_y)
):
    """Fill ``out[i, j] = k(X[i], Y[j])`` without the GIL.

    Parameters are validated by :func:`skfed.kernels.resolve_kernel`; only
    shapes and ``kind`` are checked here.  Passing the same array as X and Y
    computes half of the tiles and mirrors them.
    """
    cdef KernelParams params = make_kernel_params(kind, gamma, coef0, degree)
    _check_kind(kind)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}."
        )
    if out.shape[0] != X.shape[0] or out.shape[1] != Y.shape[0]:
        raise ValueError(
            f"out must have shape ({X.shape[0]}, {Y.shape[0]}), got "
            f"({out.shape[0]}, {out.shape[1]})."
        )
    with nogil:
        kernel_block(&params, X, Y, out)


def py_kernel_block_sq_norms(const floating[:, ::1] X, const floating[:, ::1] Y,
                             int kind, double gamma, double coef0, double degree,
                             const double[::1] x_sq_norms,
                             const double[::1] y_sq_norms, floating[:, ::1] out):
    """Test wrapper of kernel_block_sq_norms."""
    cdef KernelParams params = make_kernel_params(kind, gamma, coef0, degree)
    _check_kind(kind)
    if (X.shape[1] != Y.shape[1] or out.shape[0] != X.shape[0]
            or out.shape[1] != Y.shape[0] or x_sq_norms.shape[0] != X.shape[0]
            or y_sq_norms.shape[0] != Y.shape[0]):
        raise ValueError("inconsistent shapes.")
    with nogil:
        kernel_block_sq_norms(&params, X, Y, x_sq_norms, y_sq_norms, out)


def py_kernel_pair(const floating[::1] x, const floating[::1] y, int kind,
                   double gamma, double coef0, double degree):
    """Test wrapper of kernel_pair: k(x, y) as a Python float."""
    cdef KernelParams params = make_kernel_params(kind, gamma, coef0, degree)
    cdef floating value
    _check_kind(kind)
    if x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ValueError("x and y must be non-empty and of the same length.")
    with nogil:
        value = kernel_pair(&params, &x[0], &y[0], x.shape[0])
    return value


def py_kernel_row(const floating[::1] x, const floating[:, ::1] Y, int kind,
                  double gamma, double coef0, double degree, floating[::1] out):
    """Test wrapper of kernel_row: out[j] = k(x, Y[j])."""
    cdef KernelParams params = make_kernel_params(kind, gamma, coef0, degree)
    _check_kind(kind)
    if x.shape[0] != Y.shape[1] or out.shape[0] != Y.shape[0] or x.shape[0] == 0:
        raise ValueError("inconsistent shapes.")
    if Y.shape[0] == 0:
        return
    with nogil:
        kernel_row(&params, &x[0], &Y[0, 0], Y.shape[0], Y.shape[1], &out[0])


def py_sq_row_norms(const floating[:, ::1] X, double[::1] out):
    """Test wrapper of sq_row_norms."""
    if out.shape[0] != X.shape[0]:
        raise ValueError("out must have one entry per row of X.")
    with nogil:
        sq_row_norms(X, out)
