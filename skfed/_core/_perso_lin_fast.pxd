from cython cimport floating

from ._boosting_base cimport LossFunction
from ._typedefs cimport intp_t

# A Perso-lin node's local objective and gradient (the newcomers' batched
# join in ``_join_fast`` takes the same steps).
cdef double _lin_node_loss(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    const floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double* grad, const double* row_norm=*, double clip=*,
) noexcept nogil


# Its gradient alone, the same bits (the local solve's and the batched join's
# steps need no loss value).
cdef void _lin_grad(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    const floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized, double* grad,
) noexcept nogil


# The block solve of a waking node (``lin_async``), also a newcomer's
# (``lin_join``, ``_join_fast.lin_join_steps``).
cdef intp_t _lin_block_solve(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double loss_weight, double mu, double dk, const double* S,
    const double* local_scale, double local_lipschitz, double tol, intp_t max_iter,
    double* grad, double* x, double* yv, double* prev, double* step, double* sc,
    bint from_start=*, double* g0=*, bint g0_ready=*, bint prepared=*,
) noexcept nogil
