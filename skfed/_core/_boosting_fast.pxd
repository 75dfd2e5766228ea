# The margin losses of the Perso-lin models, shared with the graph learner's
# peer scores (``_graph_fast``).

cdef class LossFunction:
    cdef double loss(self, double z) noexcept nogil
    cdef double dloss(self, double z) noexcept nogil
    cdef double curvature(self) noexcept nogil
