from cython cimport floating

from ._typedefs cimport int64_t, intp_t

# The margin losses of the Perso-lin models, shared with the graph learner's
# peer scores (``_graph_fast``).

cdef class LossFunction:
    cdef double loss(self, double z) noexcept nogil
    cdef double dloss(self, double z) noexcept nogil
    cdef double curvature(self) noexcept nogil


# The parts of a wake-up both Dada's and Perso-lin's solvers take.
cdef void _neighbour_sum(
    const floating[:, :, ::1] models, intp_t p,
    const intp_t[::1] indptr, const intp_t[::1] indices, const double[::1] weights,
    intp_t k, double* out, intp_t n,
) noexcept nogil

cdef double _reg_terms(
    const floating[:, :, ::1] models, intp_t k, intp_t p, const double* S,
    intp_t n, double* dot_out,
) noexcept nogil

cdef bint _budget_spent(
    int64_t[::1] wakeups_left, int64_t[::1] stopped_at, intp_t k, int64_t it,
) noexcept nogil
