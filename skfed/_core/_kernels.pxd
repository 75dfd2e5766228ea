# Kernel evaluations shared by the kernel solvers (multitask, online).
#
# Definitions follow ``sklearn.metrics.pairwise`` exactly:
#
#   KERNEL_LINEAR     k(x, y) = x . y
#   KERNEL_RBF        k(x, y) = exp(-gamma ||x - y||^2)
#   KERNEL_POLY       k(x, y) = (gamma x . y + coef0)^degree
#   KERNEL_SIGMOID    k(x, y) = tanh(gamma x . y + coef0)
#   KERNEL_LAPLACIAN  k(x, y) = exp(-gamma ||x - y||_1)
#
# Python validates the parameters (``skfed.kernels.resolve_kernel``) and hands
# ``(kind, gamma, coef0, degree)`` (``skfed.kernels.kernel_params``) to the
# solvers, which fill a ``KernelParams`` with ``make_kernel_params``.  Callable
# kernels never reach this module: the solvers precompute their kernel blocks
# in Python.
#
# Rows are contiguous (C order); sums are accumulated in double for both
# float32 and float64.  None of these functions checks shapes: the caller
# guarantees ``X.shape[1] == Y.shape[1]`` and ``out.shape == (n_x, n_y)``.

from cython cimport floating

from ._typedefs cimport intp_t


cdef enum KernelKind:
    KERNEL_LINEAR = 0
    KERNEL_RBF = 1
    KERNEL_POLY = 2
    KERNEL_SIGMOID = 3
    KERNEL_LAPLACIAN = 4


ctypedef struct KernelParams:
    int kind
    double gamma
    double coef0
    double degree


cdef KernelParams make_kernel_params(int kind, double gamma, double coef0,
                                     double degree) noexcept nogil

# k(x, y) for two rows of length n_features (pointers to contiguous rows).
# Direct sums (no expansion of ||x - y||^2), so there is no cancellation.
cdef floating kernel_pair(const KernelParams* params, const floating* x,
                          const floating* y, intp_t n_features) noexcept nogil

# The same value before its rounding to the input's precision (kernel_pair
# is this, cast): for solvers that keep kernel values in double.
cdef double kernel_pair_double(const KernelParams* params, const floating* x,
                               const floating* y, intp_t n_features) noexcept nogil

# out[j] = k(x, Y[j]) for the n_y contiguous rows starting at Y (e.g. the
# active part of an online dictionary); one kernel_pair per row.
cdef void kernel_row(const KernelParams* params, const floating* x,
                     const floating* Y, intp_t n_y, intp_t n_features,
                     floating* out) noexcept nogil

# out[i, j] = k(X[i], Y[j]), computed tile by tile: BLAS fills a tile with
# dot products (gemm, from scipy.linalg.cython_blas) and the tile is finished
# while it is in cache (tiles grow tall when n_features is large, so that
# gemm runs at full speed).  rbf expands ||x - y||^2 = ||x||^2 - 2 x . y +
# ||y||^2 with squared norms computed per tile and clips it at 0, as
# sklearn's euclidean_distances does; laplacian sums |x - y| directly.
# When X and Y are the same memory (same data pointer and shape) only tiles
# on or above the diagonal are computed (syrk on the diagonal) and mirrored:
# the result is exactly symmetric and the rbf diagonal exactly 1.  For
# float32, rbf entries whose expanded distance lost more than ~6 of
# float32's 24 bits to cancellation are recomputed directly (sklearn upcasts
# to float64 for the same reason).  rbf allocates room for the squared norms
# of one tile's rows and columns; should that fail it falls back to one
# kernel_pair per entry.
cdef void kernel_block(const KernelParams* params, const floating[:, ::1] X,
                       const floating[:, ::1] Y, floating[:, ::1] out) noexcept nogil

# Same as kernel_block with the squared row norms of X and Y given (double,
# lengths n_x and n_y, e.g. from sq_row_norms); only rbf uses them.
cdef void kernel_block_sq_norms(const KernelParams* params,
                                const floating[:, ::1] X, const floating[:, ::1] Y,
                                const double[::1] x_sq_norms,
                                const double[::1] y_sq_norms,
                                floating[:, ::1] out) noexcept nogil

# out[i] = ||X[i]||^2, accumulated in double.
cdef void sq_row_norms(const floating[:, ::1] X, double[::1] out) noexcept nogil
