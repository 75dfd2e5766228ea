# Peer scores of the collaboration-graph learner (``_graph_fast``): how
# well one node's model fits another node's data, for Dada's and
# Perso-lin's graphs.  Split from ``_graph_fast`` (issue 30: no module over
# 1,000 lines), which re-exports ``score_tables`` and ``pair_scores``; its
# graph steps reach the scorer through ``_graph_scores.pxd``.
#
# Peer scoring (optional, ``pair_cost``): the linear coefficient of a pair
# also holds ``e_kl + e_lk``, where ``e_kl = c_k (L_k(alpha_l) - L_k(alpha_k))``
# is how much worse node k's data is fit by l's model than by its own (node k
# computes it from the model it receives; the answer of a peer carries its
# own score, one more float64).  Dada's L_k is the weighted log-sum-exp of
# the margins; Perso-lin's (a ``LossFunction`` given) is the weighted mean
# of its margin loss, ``(1 / m_k) sum_i s_i loss(y_i theta.x_i)`` (the data
# term of F_k, without its l2 term), the factor ``1 / m_k`` folded into the
# ``confidence`` array the caller passes.  The step and the cap then minimize
# ``h(w) + sum_{k<l} w_kl (e_kl + e_lk)``; ``linear_change`` stays the
# change of eq. 1 (without the scores).

from libc.math cimport exp, isnan, log, INFINITY

import numpy as np

from ._boosting_base cimport LossFunction
from ._comm cimport CommCounter
from cython cimport floating
from ._typedefs cimport int32_t, intp_t, uint8_t


cdef inline intp_t _nonzero_coords(const floating[:, ::1] models, intp_t l, intp_t off,
                                   intp_t n_base, intp_t* nz) noexcept nogil:
    """Indices j < n_base of the non-zero ``models[l, off + j]``, into ``nz``; their count."""
    cdef intp_t j, n_nz = 0
    for j in range(n_base):
        if models[l, off + j] != 0:
            nz[n_nz] = j
            n_nz += 1
    return n_nz


cdef inline void _lse_push(double a, double s, double* amax, double* z) noexcept nogil:
    """Add ``s exp(a)`` to the running ``exp(amax) z`` (running maximum)."""
    if a > amax[0]:
        z[0] = z[0] * exp(amax[0] - a) + s
        amax[0] = a
    else:
        z[0] += s * exp(a - amax[0])


cdef double _node_loss(
    const floating[:, ::1] models, const floating[:, ::1] H, const signed char* H8,
    const floating[:, ::1] Y, const floating[::1] sw, intp_t start, intp_t end, intp_t l,
    intp_t p, intp_t* nz, const intp_t* nz_ptr=NULL, const intp_t* nz_idx=NULL,
    const double* nz_val=NULL, intp_t n_problems=1,
) noexcept nogil:
    """``log sum_i s_i exp(-y_pi h(x_i).m_l,p)`` over rows [start, end): Dada's loss of model l.

    One pass (running maximum) over the non-zero weights of the model only
    (``nz``: scratch of ``n_base`` indices); ``models[l]`` holds the ``P``
    problems' weights one after the other, ``n_base = H.shape[1]`` each.
    The base predictions are read from ``H8`` (int8 rows of +-1 values,
    the same as H's) when it is not NULL, else from H.
    """
    cdef intp_t n_base = H.shape[1], i, j, r, off = p * n_base
    cdef intp_t n_nz, first, last
    cdef double amax = -INFINITY, z = 0.0, a
    cdef const signed char* row
    if nz_ptr != NULL:
        # The listed non-zero weights, in the order of the scan below: the
        # same sums (the products by +-1 are exact in any precision).
        first = nz_ptr[l * n_problems + p]
        last = nz_ptr[l * n_problems + p + 1]
        for i in range(start, end):
            if sw[i] > 0:
                a = 0.0
                row = H8 + i * n_base
                for r in range(first, last):
                    a += row[nz_idx[r]] * nz_val[r]
                _lse_push(-Y[p, i] * a, sw[i], &amax, &z)
        if amax == -INFINITY:
            return -INFINITY
        return amax + log(z)
    n_nz = _nonzero_coords(models, l, off, n_base, nz)
    for i in range(start, end):
        if sw[i] > 0:
            a = 0.0
            if H8 != NULL:
                row = H8 + i * n_base
                for r in range(n_nz):
                    j = nz[r]
                    a += row[j] * models[l, off + j]
            else:
                for r in range(n_nz):
                    j = nz[r]
                    a += H[i, j] * models[l, off + j]
            _lse_push(-Y[p, i] * a, sw[i], &amax, &z)
    if amax == -INFINITY:
        return -INFINITY
    return amax + log(z)


cdef double _lin_node_loss(
    const floating[:, ::1] models, const floating[:, ::1] X, const floating[:, ::1] Y,
    const floating[::1] sw, intp_t start, intp_t end, intp_t l, intp_t p,
    LossFunction loss,
) noexcept nogil:
    """``sum_i s_i loss(y_pi x_i.m_l,p)`` over rows [start, end): Perso-lin's data loss of model l.

    ``models[l]`` holds the ``P`` problems' weights one after the other,
    ``X.shape[1]`` each (the intercept, if any, is a column of ``X``).
    """
    cdef intp_t n = X.shape[1], i, j, off = p * n
    cdef double f = 0.0, z
    for i in range(start, end):
        if sw[i] > 0:
            z = 0.0
            for j in range(n):
                z += X[i, j] * models[l, off + j]
            f += sw[i] * loss.loss(Y[p, i] * z)
    return f




cdef void _scorer_init(_Scorer* sc, bint lazy, bint linear) noexcept nogil:
    """A scorer with no peer costs, no caches and no non-zero lists (the
    caller points the fields it uses)."""
    sc.cost = NULL
    sc.own = NULL
    sc.nz = NULL
    sc.lazy = lazy
    sc.linear = linear
    sc.h8 = NULL
    sc.nz_ptr = NULL
    sc.nz_idx = NULL
    sc.nz_val = NULL
    sc.n_problems = 1
    sc.d_ptr = NULL
    sc.d_idx = NULL
    sc.d_val = NULL
    sc.ps = NULL
    sc.g_off = NULL
    sc.g_size = NULL
    sc.counts = NULL
    sc.act_ptr = NULL
    sc.act_idx = NULL
    sc.ps_width = 0
    sc.n_groups = 0
    sc.dense = False


cdef double _dense_node_loss(
    const floating[:, ::1] models, const floating[:, ::1] H, const floating[:, ::1] Y,
    const floating[::1] sw, intp_t start, intp_t end, intp_t l, intp_t p,
) noexcept nogil:
    """Dada's loss of a dense model l on rows [start, end), as :func:`_node_loss`
    with every weight read: four running sums over the columns (another
    summation order than the non-zero scan, so not the same last bits)."""
    cdef intp_t n_base = H.shape[1], i, j, n4 = n_base - n_base % 4
    cdef const floating* m = &models[l, p * n_base] if n_base else NULL
    cdef const floating* h
    cdef double amax = -INFINITY, z = 0.0, a0, a1, a2, a3
    for i in range(start, end):
        if sw[i] > 0:
            h = &H[i, 0]
            a0 = a1 = a2 = a3 = 0.0
            for j in range(0, n4, 4):
                a0 += h[j] * m[j]
                a1 += h[j + 1] * m[j + 1]
                a2 += h[j + 2] * m[j + 2]
                a3 += h[j + 3] * m[j + 3]
            for j in range(n4, n_base):
                a0 += h[j] * m[j]
            _lse_push(-Y[p, i] * ((a0 + a1) + (a2 + a3)), sw[i], &amax, &z)
    if amax == -INFINITY:
        return -INFINITY
    return amax + log(z)


cdef double _prefix_loss(
    _Scorer* sc, const floating[:, ::1] Y, const floating[::1] sw, intp_t start,
    intp_t end, intp_t l, intp_t p,
) noexcept nogil:
    """Dada's loss of model l on rows [start, end), as :func:`_node_loss`, from
    the groups' prefix sums: ``h(x_i).m = sum_f (2 S_f(c_if) - S_f(size_f))``
    over the groups where the model has a non-zero weight."""
    cdef intp_t i, r, f, first = sc.act_ptr[l * sc.n_problems + p]
    cdef intp_t last = sc.act_ptr[l * sc.n_problems + p + 1]
    cdef const double* row = sc.ps + (l * sc.n_problems + p) * sc.ps_width
    cdef const int32_t* c
    cdef double amax = -INFINITY, z = 0.0, a
    for i in range(start, end):
        if sw[i] > 0:
            a = 0.0
            c = sc.counts + i * sc.n_groups
            for r in range(first, last):
                f = sc.act_idx[r]
                a += 2.0 * row[sc.g_off[f] + c[f]] - row[sc.g_off[f] + sc.g_size[f]]
            _lse_push(-Y[p, i] * a, sw[i], &amax, &z)
    if amax == -INFINITY:
        return -INFINITY
    return amax + log(z)


cdef inline double _score_loss(
    _Scorer* sc, const floating[:, ::1] models, const floating[:, ::1] H,
    const floating[:, ::1] Y, const floating[::1] sw, const intp_t[::1] offsets,
    LossFunction loss, intp_t k, intp_t l,
) noexcept nogil:
    """Node k's loss of model l, summed over the problems (Dada's or Perso-lin's)."""
    cdef double total = 0.0
    cdef intp_t p
    for p in range(Y.shape[0]):
        if sc.linear:
            total += _lin_node_loss(models, H, Y, sw, offsets[k], offsets[k + 1], l, p, loss)
        elif sc.ps != NULL:
            total += _prefix_loss(sc, Y, sw, offsets[k], offsets[k + 1], l, p)
        elif sc.dense:
            total += _dense_node_loss(models, H, Y, sw, offsets[k], offsets[k + 1], l, p)
        else:
            total += _node_loss(models, H, sc.h8, Y, sw, offsets[k], offsets[k + 1], l, p,
                                sc.nz, sc.nz_ptr, sc.nz_idx, sc.nz_val, sc.n_problems)
    return total


cdef double _peer_score(
    _Scorer* sc, const floating[:, ::1] models, const floating[:, ::1] H,
    const floating[:, ::1] Y, const floating[::1] sw, const intp_t[::1] offsets,
    const double[::1] confidence, LossFunction loss, intp_t k, intp_t l,
) noexcept nogil:
    """``e_kl = c_k sum_p (L_kp(m_l) - L_kp(m_k))``: node k's score of l's model."""
    if isnan(sc.own[k]):
        sc.own[k] = _score_loss(sc, models, H, Y, sw, offsets, loss, k, k)
    return confidence[k] * (_score_loss(sc, models, H, Y, sw, offsets, loss, k, l)
                            - sc.own[k])


def _nonzero_lists(models, n_base):
    """Non-zero weights of every model and problem: ``(ptr, idx, val, n_problems)``.

    ``models`` is ``(n_nodes, P * n_base)``; entry ``l P + p`` of ``ptr``
    starts the ascending indices ``j`` (and values ``models[l, p n_base +
    j]``, as float64) of model l's problem p.
    """
    flat = np.asarray(models)
    n_base = max(int(n_base), 1)
    n_problems = max(flat.shape[1] // n_base, 1)
    blocks = flat.reshape(flat.shape[0] * n_problems, n_base)
    mask = blocks != 0
    ptr = np.zeros(blocks.shape[0] + 1, dtype=np.intp)
    np.cumsum(mask.sum(axis=1), out=ptr[1:])
    rows, cols = np.nonzero(mask)
    idx = np.ascontiguousarray(cols, dtype=np.intp)
    val = np.ascontiguousarray(blocks[rows, cols], dtype=np.float64)
    if idx.size == 0:  # pointers into empty arrays: one unused slot each
        idx = np.zeros(1, dtype=np.intp)
        val = np.zeros(1)
    return ptr, idx, val, n_problems


cdef void _use_lists(_Scorer* sc, tuple lists):
    """Point the scorer at the arrays of :func:`_nonzero_lists` (kept alive by the caller)."""
    cdef const intp_t[::1] ptr = lists[0]
    cdef const intp_t[::1] idx = lists[1]
    cdef const double[::1] val = lists[2]
    sc.nz_ptr = &ptr[0]
    sc.nz_idx = &idx[0]
    sc.nz_val = &val[0]
    sc.n_problems = lists[3]


def _stump_prefix(const floating[:, ::1] models, intp_t n_base, const intp_t[::1] perm,
                  const intp_t[::1] gptr):
    """Every model's prefix sums by stump group: ``(ps, g_off, g_size, act_ptr, act_idx)``.

    ``models`` is ``(n_nodes, P * n_base)``; group f holds base columns
    ``perm[gptr[f]:gptr[f + 1]]`` (:func:`skfed.boosting._stumps.stump_groups`).
    Row ``l P + p`` of ``ps`` (``n_base + n_groups`` values) holds, for each
    group f from ``g_off[f]``, 0 then the running sums of model l's problem
    p weights in group order (``g_size[f] + 1`` values, the last the
    group's total); ``act_idx[act_ptr[l P + p]:act_ptr[l P + p + 1]]``
    lists the groups where it has a non-zero weight (ascending).
    """
    cdef intp_t K = models.shape[0], G = gptr.shape[0] - 1
    cdef intp_t P = max(models.shape[1] // max(n_base, 1), 1)
    cdef intp_t W = n_base + G, l, p, f, q, base, out_base, n_act = 0
    cdef double s
    cdef bint active
    if perm.shape[0] != n_base or G < 0 or (G > 0 and gptr[G] != n_base):
        raise ValueError("perm and gptr must cover the n_base columns.")
    ps_arr = np.zeros(K * P * W)
    off_arr = np.asarray(gptr[:G], dtype=np.intp) + np.arange(G, dtype=np.intp)
    size_arr = np.diff(np.asarray(gptr)).astype(np.intp)
    flags_arr = np.zeros(K * P * G, dtype=np.uint8)
    cdef double[::1] ps = ps_arr
    cdef const intp_t[::1] g_off = off_arr
    cdef uint8_t[::1] flags = flags_arr
    with nogil:
        for l in range(K):
            for p in range(P):
                base = p * n_base
                out_base = (l * P + p) * W
                for f in range(G):
                    s = 0.0
                    active = False
                    for q in range(gptr[f], gptr[f + 1]):
                        if models[l, base + perm[q]] != 0:
                            active = True
                        s += models[l, base + perm[q]]
                        ps[out_base + g_off[f] + 1 + q - gptr[f]] = s
                    if active:
                        flags[(l * P + p) * G + f] = 1
    act = flags_arr.reshape(K * P, G)
    act_ptr = np.zeros(K * P + 1, dtype=np.intp)
    np.cumsum(act.sum(axis=1), out=act_ptr[1:])
    act_idx = np.ascontiguousarray(np.nonzero(act)[1], dtype=np.intp)
    if act_idx.size == 0:  # a pointer into an empty array: one unused slot
        act_idx = np.zeros(1, dtype=np.intp)
    return ps_arr, off_arr, size_arr, act_ptr, act_idx


cdef void _use_prefix(_Scorer* sc, tuple prefix, const int32_t[:, ::1] counts,
                      intp_t n_problems):
    """Point the scorer at :func:`_stump_prefix`'s arrays (kept alive by the caller)."""
    cdef const double[::1] ps = prefix[0]
    cdef const intp_t[::1] g_off = prefix[1]
    cdef const intp_t[::1] g_size = prefix[2]
    cdef const intp_t[::1] act_ptr = prefix[3]
    cdef const intp_t[::1] act_idx = prefix[4]
    if g_off.shape[0] == 0 or counts.shape[0] == 0:
        return
    sc.ps = &ps[0]
    sc.g_off = &g_off[0]
    sc.g_size = &g_size[0]
    sc.act_ptr = &act_ptr[0]
    sc.act_idx = &act_idx[0]
    sc.counts = &counts[0, 0]
    sc.n_groups = g_off.shape[0]
    sc.ps_width = ps.shape[0] // max(act_ptr.shape[0] - 1, 1)
    sc.n_problems = n_problems


def _check_stumps(stumps, H, name):
    """``(perm, gptr, counts)`` of the groups ``stumps`` (the argument ``name``)
    checked against H's shape."""
    perm, gptr, counts = stumps
    if (np.asarray(perm).shape[0] != H.shape[1] or np.asarray(counts).shape[0] != H.shape[0]
            or np.asarray(counts).shape[1] != np.asarray(gptr).shape[0] - 1):
        raise ValueError(f"{name} must hold one group count per sample and group "
                         "and a permutation of H's columns.")
    return (np.ascontiguousarray(perm, dtype=np.intp), np.ascontiguousarray(gptr, dtype=np.intp),
            np.ascontiguousarray(counts, dtype=np.int32))


def score_tables(models, n_base, stumps=None):
    """The look-up tables the stump scores and distances read, for fixed models.

    :func:`pair_scores` (with ``H8``) and :func:`graph_steps` build, at
    every call, the non-zero lists of all the models (and, with Dada's
    stump groups, their prefix sums by group): a pass over every weight.
    A caller that scores the same models in many short calls (the MPI
    engine's one-step graph steps) builds them once with this function and
    passes them in.  ``models`` is ``(n_nodes, P * n_base)``; ``stumps`` the
    ``(perm, gptr, counts)`` of ``stump_groups`` or None.

    Returns ``(lists, prefix, dist_lists)``: :func:`_nonzero_lists` by
    problem, :func:`_stump_prefix` (None without ``stumps``), and the
    non-zero lists of whole model rows (the squared distances').
    """
    models = np.ascontiguousarray(models)
    lists = _nonzero_lists(models, n_base)
    prefix = None
    if stumps is not None:
        prefix = _stump_prefix(models, max(int(n_base), 1),
                               np.ascontiguousarray(stumps[0], dtype=np.intp),
                               np.ascontiguousarray(stumps[1], dtype=np.intp))
    dist = lists if lists[3] == 1 else _nonzero_lists(models, models.shape[1])
    return lists, prefix, dist


def _check_tables(tables, models, n_base, with_prefix):
    """Raise unless ``tables`` has the layout :func:`score_tables` gives for these
    models (their values are the caller's promise: built from the same models)."""
    n_rows = np.asarray(models).shape[0]
    n_problems = max(np.asarray(models).shape[1] // max(int(n_base), 1), 1)
    if (not isinstance(tables, tuple) or len(tables) != 3
            or tables[0][0].shape[0] != n_rows * n_problems + 1
            or tables[2][0].shape[0] != n_rows + 1
            or (with_prefix and tables[1] is None)):
        raise ValueError("tables must be score_tables(models, n_base, stumps) of these models.")


cdef tuple _use_tables(_Scorer* sc, models, H, const signed char[:, ::1] H8, tuple stumps,
                       tuple tables, str name):
    """Point the scorer at the int8 H and the tables of ``models`` (built
    here when ``tables`` is None, else checked); ``stumps`` is the argument
    ``name``.  Returns ``(tables, counts)``, which the caller keeps alive
    while the scorer reads them."""
    counts = None
    if stumps is not None:
        _, _, counts = _check_stumps(stumps, H, name)
    if tables is None:
        tables = score_tables(models, H.shape[1], stumps)
    else:
        _check_tables(tables, models, H.shape[1], stumps is not None)
    sc.h8 = &H8[0, 0]
    _use_lists(sc, tables[0])
    if stumps is not None:
        _use_prefix(sc, tables[1], counts, tables[0][3])
    return tables, counts


def pair_scores(
    const floating[:, ::1] models,     # IN (n_nodes, P * n_base) the models nodes send
    const floating[:, ::1] H,          # IN (n_samples, n_base) base predictions, node-sorted
    const floating[:, ::1] Y,          # IN (P, n_samples) +-1
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    const double[::1] confidence,      # IN (n_nodes,)
    const intp_t[::1] rows,            # IN (n_pairs,) the scoring nodes k
    const intp_t[::1] cols,            # IN (n_pairs,) the scored models l
    double[::1] out,                   # OUT (n_pairs,) e_kl
    LossFunction loss=None,            # None: Dada's log-sum-exp over H's margins; a
                                       # LossFunction: Perso-lin's (H the design, intercept
                                       # column included; confidence c_k / m_k)
    const signed char[:, ::1] H8=None, # IN H as int8 when every entry is +-1 (Dada's stumps):
                                       # read instead of H (the same values)
    tuple stumps=None,                 # IN with H8: (perm, gptr, counts) of H's stump groups
                                       # (skfed.boosting._stumps.stump_groups): margins from
                                       # prefix sums, one look-up a group
    bint dense=False,                  # IN read every weight of the models (graph_steps'
                                       # dense_scores: Dada's kernel graph models)
    tuple tables=None,                 # IN with H8: score_tables(models, n_base, stumps) of
                                       # these models, or None: built by this call
):
    """Peer scores ``e_kl`` of the given pairs (as graph_steps computes them)."""
    cdef intp_t r
    own_arr = np.full(offsets.shape[0] - 1, np.nan)
    nz_arr = np.zeros(max(1, H.shape[1]), dtype=np.intp)
    cdef double[::1] own = own_arr
    cdef intp_t[::1] nz = nz_arr
    cdef _Scorer sc
    _scorer_init(&sc, True, loss is not None)
    sc.own = &own[0]
    sc.nz = &nz[0]
    if dense and (H8 is not None or loss is not None):
        raise ValueError("dense reads the float H with Dada's loss only.")
    sc.dense = dense
    if stumps is not None and (H8 is None or loss is not None):
        raise ValueError("stumps (Dada's stump groups) are read only with H8 and no loss.")
    if H8 is not None and loss is None and H8.shape[0] * H8.shape[1] > 0:
        if H8.shape[0] != H.shape[0] or H8.shape[1] != H.shape[1]:
            raise ValueError("H8 must have the shape of H.")
        kept = _use_tables(&sc, models, H, H8, stumps, tables, "stumps")
    elif tables is not None:
        raise ValueError("tables are read only with H8 and no loss (Dada's stump scores).")
    with nogil:
        for r in range(rows.shape[0]):
            out[r] = _peer_score(&sc, models, H, Y, sw, offsets, confidence, loss, rows[r],
                                 cols[r])
