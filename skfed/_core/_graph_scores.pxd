"""Declarations of :mod:`skfed._core._graph_scores` (cimported by the graph steps)."""

from libc.math cimport isnan
from cython cimport floating

from ._boosting_base cimport LossFunction
from ._comm cimport CommCounter, prefetch, prefetch_pair
from ._typedefs cimport int32_t, intp_t


cdef struct _Scorer:
    # Peer scores: ``cost[p]`` (NaN: not known yet) is e_kl of the stored
    # link at slot p (NULL: no peer scoring), computed from the data when
    # ``lazy``; ``own[k]`` (NaN: not yet) caches node k's loss of its own
    # model; ``nz`` is scratch; ``linear``: Perso-lin's mean margin loss (a
    # LossFunction passed beside), else Dada's log-sum-exp.
    double* cost
    double* own
    intp_t* nz
    bint lazy
    bint linear
    # Dada's base predictions as int8 (+-1), when given: an eighth of the
    # memory traffic of reading H's float rows (the cost of a score).
    const signed char* h8
    # With h8: every model's non-zero weights, listed once per call (the
    # models are fixed during it): model l's problem p holds
    # ``nz_idx[nz_ptr[l P + p] : nz_ptr[l P + p + 1]]`` (ascending) with
    # values ``nz_val[...]``; NULL: scanned at every score.
    const intp_t* nz_ptr
    const intp_t* nz_idx
    const double* nz_val
    intp_t n_problems
    # float64 models with few non-zeros: every model's non-zero weights over
    # its whole row (as above with one problem), for the squared distances;
    # NULL: dense distances.
    const intp_t* d_ptr
    const intp_t* d_idx
    const double* d_val
    # Dada's stumps by groups (``score_stumps``, see :func:`_stump_prefix`):
    # model l's problem p has the prefix sums ``ps[(l P + p) ps_width + g_off[f]
    # + c]`` (c = 0 .. g_size[f]) of its weights in group f's order and the
    # groups where it has a non-zero weight, ``act_idx[act_ptr[l P + p] :
    # act_ptr[l P + p + 1]]``; sample i is +1 on the first ``counts[i
    # n_groups + f]`` columns of group f.  NULL: the margins are summed
    # stump by stump.
    const double* ps
    intp_t ps_width
    # Dense models (Dada's kernel graph models): every weight read in
    # order, four running sums, no scan of the non-zero weights.
    bint dense
    const intp_t* g_off
    const intp_t* g_size
    const int32_t* counts
    intp_t n_groups
    const intp_t* act_ptr
    const intp_t* act_idx


cdef void _scorer_init(_Scorer* sc, bint lazy, bint linear) noexcept nogil

cdef tuple _use_tables(_Scorer* sc, models, H, const signed char[:, ::1] H8, tuple stumps,
                       tuple tables, str name)


cdef double _peer_score(
    _Scorer* sc, const floating[:, ::1] models, const floating[:, ::1] H,
    const floating[:, ::1] Y, const floating[::1] sw, const intp_t[::1] offsets,
    const double[::1] confidence, LossFunction loss, intp_t k, intp_t l,
) noexcept nogil


# Inline here: the graph steps call them for every sampled peer (a call
# through the module's C API would copy their memoryview arguments).

cdef inline double _distance(const floating[:, ::1] models, intp_t k, intp_t l) noexcept nogil:
    """``||models[k] - models[l]||^2``."""
    cdef intp_t j
    cdef double z = 0.0, diff
    for j in range(models.shape[1]):
        diff = models[k, j] - models[l, j]
        z += diff * diff
    return z


cdef inline double _sparse_distance(const intp_t* ptr, const intp_t* idx, const double* val,
                                   intp_t k, intp_t l) noexcept nogil:
    """``||m_k - m_l||^2`` from the non-zero lists, merged in ascending index.

    The same terms in the same order as :func:`_distance` on float64
    models, without its ``(0 - 0)^2 = +0`` terms (which leave the sum
    unchanged): the same value.
    """
    cdef intp_t i = ptr[k], i_end = ptr[k + 1], j = ptr[l], j_end = ptr[l + 1]
    cdef double z = 0.0, diff
    while i < i_end or j < j_end:
        if j >= j_end or (i < i_end and idx[i] < idx[j]):
            diff = val[i]
            i += 1
        elif i >= i_end or idx[j] < idx[i]:
            diff = -val[j]
            j += 1
        else:
            diff = val[i] - val[j]
            i += 1
            j += 1
        z += diff * diff
    return z


cdef inline double _pair_distance(_Scorer* sc, const floating[:, ::1] models, intp_t k,
                                         intp_t l) noexcept nogil:
    """``||models[k] - models[l]||^2``, from the scorer's non-zero lists when it has them."""
    if sc.d_ptr != NULL:
        return _sparse_distance(sc.d_ptr, sc.d_idx, sc.d_val, k, l)
    return _distance(models, k, l)


cdef inline double _score(
    _Scorer* sc, const floating[:, ::1] models, const floating[:, ::1] H,
    const floating[:, ::1] Y, const floating[::1] sw, const intp_t[::1] offsets,
    const double[::1] confidence, LossFunction loss, intp_t k, intp_t l, intp_t slot,
    double given,
) noexcept nogil:
    """e_kl: the value cached at ``slot`` (>= 0), else ``given`` (not NaN), else computed.

    A computed value is cached at ``slot`` when the link is stored.
    """
    cdef double e
    if slot >= 0 and not isnan(sc.cost[slot]):
        return sc.cost[slot]
    if not isnan(given):
        e = given
    else:
        e = _peer_score(sc, models, H, Y, sw, offsets, confidence, loss, k, l)
    if slot >= 0:
        sc.cost[slot] = e
    return e


cdef inline void _prefetch_peer(
    _Scorer* sc, const intp_t[::1] offsets, const intp_t[::1] nbr,
    const intp_t[::1] n_slots, intp_t R, const double[::1] degree, CommCounter counter,
    intp_t k, intp_t l,
) noexcept nogil:
    """Hint the cache lines a step will read for peer l of node k (its row, degree,
    non-zero list, the prefix sums node k's samples look up, its samples' group
    counts and the pair table's slots of k -> l and l -> k), so that the misses
    of the kappa peers overlap instead of following one another.  Nothing is
    written: a step's values do not depend on it."""
    cdef intp_t i, r, f, first, last, p
    cdef const double* row
    cdef const int32_t* c
    prefetch(&degree[l])
    prefetch(&n_slots[l])
    prefetch(&nbr[l * R])
    prefetch_pair(counter, k, l)
    prefetch_pair(counter, l, k)
    if sc.d_ptr != NULL:
        prefetch(sc.d_idx + sc.d_ptr[l])
        prefetch(sc.d_val + sc.d_ptr[l])
    if sc.cost == NULL or sc.ps == NULL or offsets is None:
        return
    prefetch(sc.counts + offsets[l] * sc.n_groups)
    for p in range(sc.n_problems):
        first = sc.act_ptr[l * sc.n_problems + p]
        last = sc.act_ptr[l * sc.n_problems + p + 1]
        row = sc.ps + (l * sc.n_problems + p) * sc.ps_width
        for i in range(offsets[k], offsets[k + 1]):
            c = sc.counts + i * sc.n_groups
            for r in range(first, last):
                f = sc.act_idx[r]
                prefetch(row + sc.g_off[f] + c[f])
                prefetch(row + sc.g_off[f] + sc.g_size[f])
