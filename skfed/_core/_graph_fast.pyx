# Decentralized collaboration-graph learning of Dada (skfed.graph), eq. 5 of
# Zantedeschi, Bellet & Tommasi (AISTATS 2020).
#
# With the models fixed, the graph weights w (one per pair k < l, w >= 0)
# minimize
#
#   h(w) = sum_k d_k(w) l_k + (mu / 2) sum_{k<l} w_kl z_kl
#          + mu_g (lam sum_{k<l} w_kl^2 - sum_k log(d_k(w) + delta)),
#
# where l_k = c_k L_k(alpha_k) is node k's (confidence-weighted) loss,
# z_kl = ||alpha_k - alpha_l||^2 and d_k(w) = sum_l w_kl.  Then
#
#   dh/dw_kl = l_k + l_l + (mu / 2) z_kl
#              + mu_g (2 lam w_kl - 1 / (d_k + delta) - 1 / (d_l + delta)).
#
# A graph step: node k wakes up, samples kappa peers through the
# peer-sampling service (uniform over its candidates, from its own xorshift
# state), and takes a projected gradient step on its kappa weights
# ``w <- max(0, w - grad / L)``.  The block Hessian is
# ``mu_g (2 lam I + 1 1^T / (d_k + delta)^2 + diag(1 / (d_l + delta)^2))``;
# L starts at its value at the current point,
# ``mu_g (2 lam + kappa / (d_k + delta)^2 + max_l 1 / (d_l + delta)^2)``,
# and doubles until the step satisfies the descent lemma
# ``h(w+) <= h(w) + g.(w+ - w) + (L / 2) ||w+ - w||^2``, never beyond the
# bound valid on the whole orthant, ``mu_g (2 lam + (kappa + 1) / delta^2)``.
# The change of h is exactly the change of the block function, so the
# objective is tracked for free.
#
# Remark 2 of the paper (optional, ``max_neighbors >= 0``): after the step,
# the waking node and each of its sampled peers keep at most
# ``max_neighbors`` non-zero weights; a node with more sets to zero its
# weights toward the neighbours whose models are the most different from
# its own (largest z; ties: the largest node index goes first), except a
# link that is the neighbour's last one: it is kept, and the node stays
# over the cap by as many such links (no node is left alone).  A node
# holds copies of its neighbours' models for its model updates, so it
# knows these distances; each dropped edge costs one 8-byte message telling
# the neighbour.  The change of h of every drop is added exactly.  The cap
# is a projection onto a non-convex set: a capped step may increase h.
#
# Peer scoring (optional, ``pair_cost``): the linear coefficient of a pair
# also holds the two nodes' scores of each other's model (``_graph_scores``,
# where they are defined and computed); the answer of a peer carries its own
# score, one more float64.

# Storage: only the non-zero weights are kept, in rows of a fixed capacity R
# (``nbr.shape[0] // n_nodes`` slots a node): slots k R .. k R + n_slots[k] - 1
# hold node k's pairs (k, l) with w_kl > 0, sorted by l (``nbr[p]`` is l,
# ``wv[p]`` the weight, ``slot_cost[p]`` the peer score e_kl when scoring).
# Both copies of a weight, in row k and row l, are kept equal.  Peers are
# drawn by the peer-sampling service from the topology: uniformly among all
# other nodes on a complete topology (which is never built), among the node's
# links otherwise.  Memory is O(n_nodes R), linear in the nodes, never the
# n (n - 1) candidate links, and a step costs O(kappa (n_model + R)).  A
# step that needs a slot in a full row is not taken: graph_steps returns that
# row's node with the random states as they were before the step, and Python
# grows R and resumes (the result does not depend on R).

from libc.math cimport exp, isnan, log, INFINITY, NAN
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free

import numpy as np

from ._boosting_base cimport LossFunction
from ._comm cimport CommCounter, payload_bytes
from ._graph_scores cimport (
    _Scorer, _pair_distance, _prefetch_peer, _score, _scorer_init, _use_tables,
)
from ._random cimport rand_int
from cython cimport floating
from ._typedefs cimport int32_t, int64_t, intp_t, uint8_t, uint32_t

# (the peer scores live in _graph_scores since issue 30's split; re-exported)
from ._graph_scores import _nonzero_lists, _stump_prefix, pair_scores, score_tables


# Byte model of skfed.network: a new weight is one float64; an answer adds the
# peer's loss and degree (two float64) to its model.
cdef int64_t _WEIGHT_BYTES = payload_bytes(1, 0, 0, 0)
cdef int64_t _LOSS_DEGREE_BYTES = payload_bytes(2, 0, 0, 0)
# With peer scoring the answer also carries the peer's score of k's model.
cdef int64_t _SCORE_BYTES = payload_bytes(1, 0, 0, 0)



cdef class SentModels:
    """The (sender, receiver) pairs whose receiver holds the sender's graph model.

    When the models the graph steps compare do not change during a fit
    (Dada's kernel graph models), a receiver keeps every model it was sent
    and a sender sends its model to a given peer only once:
    :func:`graph_steps` counts a model's bytes in a request or an answer
    only when its pair is not here yet (and adds it).  Open addressing with
    linear probing on the keys ``sender * n_nodes + receiver + 1`` (0 marks
    a free slot); the table doubles before it is more than 3/4 full, so
    memory is linear in the pairs that exchanged a model (10.7 to 21.3
    bytes each), never in the ``n_nodes (n_nodes - 1)`` possible pairs.

    Parameters
    ----------
    n_nodes : int
    """
    cdef uint64_t* keys
    cdef readonly intp_t n_nodes
    cdef readonly intp_t n_pairs
    cdef readonly intp_t capacity
    cdef bint out_of_memory

    def __cinit__(self, intp_t n_nodes):
        if n_nodes < 0:
            raise ValueError(f"n_nodes must be >= 0, got {n_nodes}.")
        self.n_nodes = n_nodes
        self.capacity = 64
        self.n_pairs = 0
        self.out_of_memory = False
        self.keys = <uint64_t*>calloc(self.capacity, sizeof(uint64_t))
        if self.keys == NULL:
            raise MemoryError("could not allocate the table of SentModels.")

    def __dealloc__(self):
        free(self.keys)

    cdef uint64_t _slot(self, uint64_t key) noexcept nogil:
        """The slot holding ``key``, else the free slot where it would go."""
        cdef uint64_t mask = <uint64_t>(self.capacity - 1)
        cdef uint64_t h = _mix64(key) & mask
        while self.keys[h] != 0 and self.keys[h] != key:
            h = (h + 1) & mask
        return h

    cdef bint add(self, intp_t src, intp_t dst) noexcept nogil:
        """Insert ``src -> dst``; True when the pair was not there (the model is sent)."""
        cdef uint64_t key = <uint64_t>src * <uint64_t>self.n_nodes + <uint64_t>dst + 1
        cdef uint64_t h = self._slot(key)
        if self.keys[h] == key:
            return False
        if 4 * (self.n_pairs + 1) > 3 * self.capacity:
            if not self._grow():
                self.out_of_memory = True
                return True
            return self.add(src, dst)
        self.keys[h] = key
        self.n_pairs += 1
        return True

    cdef bint _grow(self) noexcept nogil:
        cdef intp_t old_capacity = self.capacity, i
        cdef uint64_t* old = self.keys
        cdef uint64_t* new = <uint64_t*>calloc(2 * old_capacity, sizeof(uint64_t))
        cdef uint64_t mask, h
        if new == NULL:
            return False
        mask = <uint64_t>(2 * old_capacity - 1)
        for i in range(old_capacity):
            if old[i] != 0:
                h = _mix64(old[i]) & mask
                while new[h] != 0:
                    h = (h + 1) & mask
                new[h] = old[i]
        self.keys = new
        self.capacity = 2 * old_capacity
        free(old)
        return True

    def insert(self, intp_t src, intp_t dst):
        """Record that ``dst`` now holds ``src``'s model; True when it did not.

        What :func:`graph_steps` does for each pair of a step, for an engine
        whose ranks replay the steps other ranks took (``skfed.engines.mpi``).
        """
        if not (0 <= src < self.n_nodes and 0 <= dst < self.n_nodes):
            raise ValueError(f"src and dst must be in [0, {self.n_nodes}), got {src}, {dst}.")
        return bool(self.add(src, dst))

    def contains(self, intp_t src, intp_t dst):
        """Whether ``dst`` holds ``src``'s model."""
        cdef uint64_t key = <uint64_t>src * <uint64_t>self.n_nodes + <uint64_t>dst + 1
        return self.keys[self._slot(key)] == key

    def check(self):
        """Raise MemoryError if the table could not grow during the last steps."""
        if self.out_of_memory:
            raise MemoryError("SentModels could not grow its table.")

    @property
    def nbytes(self):
        """Bytes held by the table."""
        return int(self.capacity) * 8


cdef inline uint64_t _mix64(uint64_t key) noexcept nogil:
    """splitmix64's finalizer: spreads consecutive keys over the table."""
    key = (key ^ (key >> 30)) * <uint64_t>0xbf58476d1ce4e5b9ULL
    key = (key ^ (key >> 27)) * <uint64_t>0x94d049bb133111ebULL
    return key ^ (key >> 31)


cdef intp_t _sample_peers(
    const intp_t[::1] topo_indptr, const intp_t[::1] topo_indices, bint complete,
    intp_t K, intp_t k, intp_t kappa, uint32_t* state, intp_t* peers, intp_t* picks,
) noexcept nogil:
    """Draw min(kappa, n_candidates) distinct peers of k uniformly.

    The candidates are the other nodes (``complete``) or k's links in the
    topology CSR; the r-th draw is uniform over their positions, redrawn
    while it repeats an earlier one.  On a complete topology, position
    ``pick`` is node ``pick + (pick >= k)``: the row of k in the complete
    graph's sorted CSR, never built.
    """
    cdef intp_t start = 0, n_cand, n_take, r, q, pick
    cdef bint fresh
    if complete:
        n_cand = K - 1
    else:
        start = topo_indptr[k]
        n_cand = topo_indptr[k + 1] - start
    if kappa >= n_cand:
        for r in range(n_cand):
            peers[r] = (r + (r >= k)) if complete else topo_indices[start + r]
        return n_cand
    n_take = kappa
    r = 0
    while r < n_take:
        pick = rand_int(n_cand, state)
        fresh = True
        for q in range(r):
            if picks[q] == pick:
                fresh = False
                break
        if fresh:
            picks[r] = pick
            peers[r] = (pick + (pick >= k)) if complete else topo_indices[start + pick]
            r += 1
    return n_take


cdef inline intp_t _find(const intp_t[::1] nbr, const intp_t[::1] n_slots, intp_t R,
                         intp_t k, intp_t l) noexcept nogil:
    """Slot of l in the sorted row of k (binary search), -1 if absent."""
    cdef intp_t lo = k * R, end = k * R + n_slots[k], hi, mid
    hi = end
    while lo < hi:
        mid = (lo + hi) // 2
        if nbr[mid] < l:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and nbr[lo] == l:
        return lo
    return -1


cdef void _insert(double[::1] wv, intp_t[::1] nbr, intp_t[::1] n_slots, double* cost,
                  double* zc, intp_t R, intp_t k, intp_t l, double w, double c,
                  double z) noexcept nogil:
    """Put (l, w, c, z) into k's row at its sorted place (the caller checked room).

    ``cost`` (peer scores) may be NULL; ``zc`` caches the squared model
    distances of the stored links (NaN: not computed yet).
    """
    cdef intp_t start = k * R, end = k * R + n_slots[k], p = end
    while p > start and nbr[p - 1] > l:
        nbr[p] = nbr[p - 1]
        wv[p] = wv[p - 1]
        zc[p] = zc[p - 1]
        if cost != NULL:
            cost[p] = cost[p - 1]
        p -= 1
    nbr[p] = l
    wv[p] = w
    zc[p] = z
    if cost != NULL:
        cost[p] = c
    n_slots[k] += 1


cdef void _remove(double[::1] wv, intp_t[::1] nbr, intp_t[::1] n_slots, double* cost,
                  double* zc, intp_t R, intp_t k, intp_t p) noexcept nogil:
    """Remove slot p of k's row, keeping the row sorted."""
    cdef intp_t end = k * R + n_slots[k] - 1
    while p < end:
        nbr[p] = nbr[p + 1]
        wv[p] = wv[p + 1]
        zc[p] = zc[p + 1]
        if cost != NULL:
            cost[p] = cost[p + 1]
        p += 1
    nbr[end] = -1
    wv[end] = 0.0
    zc[end] = NAN
    if cost != NULL:
        cost[end] = NAN
    n_slots[k] -= 1


cdef double _block_value(
    const double* a, const double* v, const double* dl, double dk, intp_t n,
    double mu_g, double lam, double delta,
) noexcept nogil:
    """Block function: sum_r a_r v_r + mu_g (lam sum v_r^2 - log(d_k+delta) - sum log(d_l+delta))."""
    cdef double value = 0.0
    cdef intp_t r
    for r in range(n):
        value += a[r] * v[r] + mu_g * lam * v[r] * v[r] - mu_g * log(dl[r] + delta)
    return value - mu_g * log(dk + delta)


cdef intp_t _cap_neighbours(
    const floating[:, ::1] models, const double[::1] losses, double[::1] wv,
    intp_t[::1] nbr, intp_t[::1] n_slots, double* zc, intp_t R,
    double[::1] degree, intp_t k, intp_t cap, double mu,
    double mu_graph, double lam, double delta, CommCounter counter, double* zbuf,
    intp_t* nbuf, double* objective, double* linear_change, int64_t* spent,
    _Scorer* sc, const floating[:, ::1] H, const floating[:, ::1] Y, const floating[::1] sw,
    const intp_t[::1] offsets, const double[::1] confidence, LossFunction loss,
) noexcept nogil:
    """Keep node k's ``cap`` closest neighbours (Remark 2); return the edges dropped.

    Every stored link is a non-zero weight, so k is over the cap when
    ``n_slots[k] > cap``.  Closest: smallest ``z_km``, or with peer scores
    (``sc.cost`` not NULL) smallest ``(mu / 2) z_km + e_km + e_mk``.  A
    link that is the neighbour's last one is never dropped: k then keeps
    more than ``cap`` links.  ``nbuf`` holds neighbour ids (slots move as
    links are removed).
    """
    cdef intp_t m, r, p, q, best, count = 0, n_dropped = 0, start = k * R
    cdef double z, w_km, a, e, dk_old, dm_old, dk_new, dm_new
    if n_slots[k] <= cap:
        return 0
    for p in range(start, start + n_slots[k]):
        m = nbr[p]
        q = _find(nbr, n_slots, R, m, k)
        if isnan(zc[p]):
            zc[p] = _pair_distance(sc, models, k, m)
            zc[q] = zc[p]
        z = zc[p]
        if sc.cost != NULL:
            z = 0.5 * mu * z + _score(sc, models, H, Y, sw, offsets, confidence, loss, k, m,
                                      p, NAN) \
                + _score(sc, models, H, Y, sw, offsets, confidence, loss, m, k, q, NAN)
        zbuf[count] = z
        nbuf[count] = m
        count += 1
    while count > cap:
        # The most different neighbour for which this link is not its last
        # one; when every remaining link is some neighbour's last, k keeps
        # them and stays over the cap (no node is left alone by a cap).
        best = -1
        for r in range(count):
            if n_slots[nbuf[r]] > 1 and (
                    best < 0 or zbuf[r] > zbuf[best]
                    or (zbuf[r] == zbuf[best] and nbuf[r] > nbuf[best])):
                best = r
        if best < 0:
            break
        m = nbuf[best]
        p = _find(nbr, n_slots, R, k, m)
        q = _find(nbr, n_slots, R, m, k)
        w_km = wv[p]
        # zbuf holds z, or with scores the pair's coefficient without the
        # losses; eq. 1's part of it excludes the scores.
        e = 0.0
        if sc.cost != NULL:
            e = sc.cost[p] + sc.cost[q]
            a = losses[k] + losses[m] + zbuf[best]
        else:
            a = losses[k] + losses[m] + 0.5 * mu * zbuf[best]
        dk_old = degree[k]
        dm_old = degree[m]
        dk_new = dk_old - w_km
        dm_new = dm_old - w_km
        if dk_new < 0.0:
            dk_new = 0.0
        if dm_new < 0.0:
            dm_new = 0.0
        objective[0] += -a * w_km - mu_graph * lam * w_km * w_km - mu_graph * (
            log(dk_new + delta) - log(dk_old + delta) + log(dm_new + delta)
            - log(dm_old + delta)
        )
        linear_change[0] -= (a - e) * w_km
        _remove(wv, nbr, n_slots, sc.cost, zc, R, k, p)
        _remove(wv, nbr, n_slots, sc.cost, zc, R, m, q)
        degree[k] = dk_new
        degree[m] = dm_new
        counter.send(k, m, _WEIGHT_BYTES)
        spent[0] += counter.header_bytes + _WEIGHT_BYTES
        zbuf[best] = zbuf[count - 1]
        nbuf[best] = nbuf[count - 1]
        count -= 1
        n_dropped += 1
    return n_dropped


def graph_steps(
    const floating[:, ::1] models,     # IN (n_nodes, n_model) the models nodes send
    const double[::1] losses,          # IN (n_nodes,) l_k = c_k L_k
    double[::1] wv,                    # IN/OUT (n_nodes * R,) stored weights (see Storage)
    intp_t[::1] nbr,                   # IN/OUT (n_nodes * R,) neighbour of every slot
    intp_t[::1] n_slots,               # IN/OUT (n_nodes,) stored links of every node
    double[::1] degree,                # IN/OUT (n_nodes,)
    const intp_t[::1] topo_indptr,     # IN topology CSR (no self-loop), sorted rows;
    const intp_t[::1] topo_indices,    # IN ignored when ``complete``
    bint complete,                     # IN every node may sample every other
    double mu,
    double mu_graph,
    double lam,
    double delta,
    intp_t kappa,
    intp_t n_steps,
    uint32_t[::1] clock,               # IN/OUT (1,) xorshift state of the clocks
    uint32_t[::1] node_state,          # IN/OUT (n_nodes,) per-node xorshift states
    const uint8_t[::1] offline,        # IN (n_steps,) or (0,)
    const int64_t[::1] model_payload,  # IN (n_nodes,) bytes of each node's model message
    CommCounter counter,
    bint end_rounds,                   # one counter round per step (standalone learner)
    int64_t budget,                    # stop once this many bytes are spent (-1: none)
    int64_t spent,
    double objective,
    double[::1] objective_out,         # OUT (n_steps,) or (0,)
    intp_t[::1] trace_node,            # OUT (n_steps,) or (0,)
    intp_t[::1] trace_peers,           # OUT (n_steps * kappa,) or (0,), -1 padded
    double[::1] trace_lipschitz,       # OUT (n_steps,) or (0,) accepted L
    intp_t max_neighbors=-1,           # Remark 2 cap on non-zero weights per node (-1: none)
    double[::1] slot_cost=None,        # IN/OUT (n_nodes * R,) peer scores e_kl of the stored
                                       # links (NaN: computed when needed), or None: no scoring
    const floating[:, ::1] score_H=None,   # IN data of the lazy scores (see pair_scores)
    const floating[:, ::1] score_Y=None,
    const floating[::1] score_sw=None,
    const intp_t[::1] score_offsets=None,
    const double[::1] score_confidence=None,
    LossFunction score_loss=None,      # IN Perso-lin's loss (see pair_scores); None: Dada's
    const signed char[:, ::1] score_H8=None,  # IN score_H as int8 (+-1 entries), or None
    tuple score_stumps=None,           # IN with score_H8: H's stump groups (see pair_scores)
    const double[::1] peer_cost=None,  # IN (2 kappa,) e_{k,l_r} then e_{l_r,k} of the
                                       # sampled peers of a one-step call (MPI engine)
    SentModels sent_models=None,       # IN/OUT pairs whose receiver holds the sender's model
                                       # (fixed models: each sent once per pair), or None
    bint dense_scores=False,           # IN the scores read every weight of the models
                                       # (dense models, e.g. Dada's kernel graph models)
    tuple tables=None,                 # IN score_tables(models, ...) of these models (one-step
                                       # calls on fixed models), or None: built by this call
):
    """Asynchronous decentralized graph learning: ``n_steps`` graph steps.

    Messages of one step, for each sampled peer l: a request from k carrying
    k's model (``model_payload[k]`` bytes), an answer carrying l's model,
    its loss and its degree (``model_payload[l] + 16``), and the new weight
    ``w_kl`` (8 bytes); each with the counter's header.  With
    ``max_neighbors >= 0``, one 8-byte message per edge dropped by the cap.
    With ``slot_cost`` (peer scoring), every pair's coefficient also holds
    ``e_kl + e_lk`` and every answer carries the peer's score (8 more bytes).
    A score not yet known is computed when first needed, from the
    ``score_*`` data (Dada's margins, as :func:`pair_scores`), and kept with
    the link while it is stored; without them, the scores of the sampled
    peers come in ``peer_cost`` and those of the stored links must be
    given.  ``score_loss`` None scores with Dada's log-sum-exp, a
    ``LossFunction`` with Perso-lin's mean loss.

    Returns
    -------
    (n_done, spent, objective, linear_change, full)
        ``linear_change`` is the total change of the part of h that is
        linear in w, ``sum_k d_k l_k + (mu / 2) sum_{k<l} w_kl z_kl``: the
        change of the models' objective (eq. 1) caused by the new graph.
        ``full`` is -1, or the node whose row had no free slot for step
        ``n_done`` (not taken, random states restored): grow R and resume.
    """
    cdef intp_t K = degree.shape[0], n_model = models.shape[1]
    cdef intp_t R = nbr.shape[0] // K if K else 1
    cdef intp_t it, k, r, q, l, j, n_peers, n_done = 0, full = -1, need
    cdef double dk, dk_new, z, diff, lip, lip_max, inv, phi_old, phi_new, quad, step_sq
    cdef double gdot, max_inv, linear_change = 0.0
    cdef uint32_t clock_before, state_before
    cdef bint has_offline = offline.shape[0] > 0
    cdef bint has_trace = trace_node.shape[0] > 0
    cdef bint has_obj = objective_out.shape[0] > 0
    cdef bint has_lip = trace_lipschitz.shape[0] > 0
    cdef bint has_given = peer_cost is not None
    cdef int64_t header = counter.header_bytes
    cdef int64_t pay_k, pay_l
    kappa = max(kappa, 1)
    if has_given and (n_steps > 1 or peer_cost.shape[0] != 2 * kappa):
        raise ValueError("peer_cost is for one step: 2 * kappa scores.")
    peers_arr = np.zeros(kappa, dtype=np.intp)
    picks_arr = np.zeros(kappa, dtype=np.intp)
    pos_arr = np.zeros(kappa, dtype=np.intp)
    cdef intp_t[::1] picks = picks_arr
    cdef intp_t[::1] pos = pos_arr
    buf = np.zeros((9, kappa), dtype=np.float64)  # a, g, w, v, dl, dl_new, e_kl, e_lk, z
    cdef intp_t[::1] peers = peers_arr
    cdef double[::1] a = buf[0]
    cdef double[::1] g = buf[1]
    cdef double[::1] w = buf[2]
    cdef double[::1] v = buf[3]
    cdef double[::1] dl = buf[4]
    cdef double[::1] dl_new = buf[5]
    cdef double[::1] e_kl = buf[6]
    cdef double[::1] e_lk = buf[7]
    cdef double[::1] zs = buf[8]
    cdef bint capped = max_neighbors >= 0
    cdef _Scorer sc
    _scorer_init(&sc, False, score_loss is not None)
    if dense_scores and (score_H8 is not None or score_loss is not None):
        raise ValueError("dense_scores reads the float score_H with Dada's loss only.")
    sc.dense = dense_scores
    nz_lists = None  # keeps the arrays the scorer points into alive
    if score_stumps is not None and (score_H8 is None or score_loss is not None):
        raise ValueError("score_stumps (Dada's stump groups) are read only with score_H8 and "
                         "no score_loss.")
    if score_H8 is not None and score_loss is None and score_H8.shape[0] * score_H8.shape[1]:
        if score_H8.shape[0] != score_H.shape[0] or score_H8.shape[1] != score_H.shape[1]:
            raise ValueError("score_H8 must have the shape of score_H.")
        kept = _use_tables(&sc, models, score_H, score_H8, score_stumps, tables, "score_stumps")
        tables, nz_lists = kept[0], kept[0][0]
    own_arr = np.full(K, np.nan)
    nz_arr = np.zeros(max(1, score_H.shape[1]) if score_H is not None else 1, dtype=np.intp)
    cdef double[::1] own = own_arr
    cdef intp_t[::1] nz = nz_arr
    sc.own = &own[0] if K else NULL
    sc.nz = &nz[0]
    # Squared distances from the non-zero lists: float64 models (the same
    # values as the dense loop) that are at most half non-zero (Dada's).
    # Not looked for with dense_scores (dense models: the lists would cost
    # a pass over every model at every call, e.g. one-step calls on MPI).
    cdef const intp_t[::1] d_ptr_view
    cdef const intp_t[::1] d_idx_view
    cdef const double[::1] d_val_view
    if floating is double and K > 0 and n_model > 0 and not dense_scores:
        if tables is not None:
            dist_lists = tables[2]
            if dist_lists[0].shape[0] != K + 1:
                raise ValueError("tables must be score_tables(models, ...) of these models.")
        elif sc.nz_ptr != NULL and sc.n_problems == 1:
            dist_lists = nz_lists
        else:
            dist_lists = _nonzero_lists(models, n_model)
        if 2 * (<intp_t>dist_lists[0][K]) <= K * n_model:
            d_ptr_view = dist_lists[0]
            d_idx_view = dist_lists[1]
            d_val_view = dist_lists[2]
            sc.d_ptr = &d_ptr_view[0]
            sc.d_idx = &d_idx_view[0]
            sc.d_val = &d_val_view[0]
    cdef int64_t answer_extra = 0
    if wv.shape[0] != nbr.shape[0] or nbr.shape[0] != K * R or R < 1:
        raise ValueError("wv and nbr must hold n_nodes * R slots.")
    if slot_cost is not None:
        if slot_cost.shape[0] != wv.shape[0]:
            raise ValueError("slot_cost must have one value per slot.")
        sc.lazy = score_H is not None
        if not sc.lazy and not has_given:
            raise ValueError("Peer scoring needs the score_* data or peer_cost.")
        if not sc.lazy:
            for j in range(K):
                for q in range(j * R, j * R + n_slots[j]):
                    if isnan(slot_cost[q]):
                        raise ValueError("slot_cost has NaN entries of stored links and no "
                                         "score_* data to compute them.")
        sc.cost = &slot_cost[0]
        answer_extra = _SCORE_BYTES
    # Squared distances of the stored links' models (fixed during the call).
    zc_arr = np.full(K * R, np.nan)
    cdef double[::1] zc = zc_arr
    cap_z = np.zeros(R + kappa + 1, dtype=np.float64)
    cap_n = np.zeros(R + kappa + 1, dtype=np.intp)
    cdef double[::1] zbuf = cap_z
    cdef intp_t[::1] nbuf = cap_n
    with nogil:
        for it in range(n_steps):
            if budget >= 0 and spent >= budget:
                break
            clock_before = clock[0]
            k = rand_int(K, &clock[0])
            n_done += 1
            if has_trace:
                trace_node[it] = k
                for q in range(kappa):
                    trace_peers[it * kappa + q] = -1
            if has_offline and offline[it]:
                if has_obj:
                    objective_out[it] = objective
                if end_rounds:
                    counter.end_round()
                continue
            state_before = node_state[k]
            n_peers = _sample_peers(topo_indptr, topo_indices, complete, K, k, kappa,
                                    &node_state[k], &peers[0], &picks[0])
            if n_peers == 0:
                if has_obj:
                    objective_out[it] = objective
                if end_rounds:
                    counter.end_round()
                continue
            dk = degree[k]
            max_inv = 0.0
            for r in range(n_peers):
                _prefetch_peer(&sc, score_offsets, nbr, n_slots, R, degree, counter, k,
                               peers[r])
            for r in range(n_peers):
                l = peers[r]
                if has_trace:
                    trace_peers[it * kappa + r] = l
                pos[r] = _find(nbr, n_slots, R, k, l)
                if pos[r] >= 0 and not isnan(zc[pos[r]]):
                    z = zc[pos[r]]
                else:
                    z = _pair_distance(&sc, models, k, l)
                zs[r] = z
                w[r] = wv[pos[r]] if pos[r] >= 0 else 0.0
                dl[r] = degree[l]
                a[r] = losses[k] + losses[l] + 0.5 * mu * z
                if sc.cost != NULL:
                    e_kl[r] = _score(&sc, models, score_H, score_Y, score_sw, score_offsets,
                                     score_confidence, score_loss, k, l, pos[r],
                                     peer_cost[r] if has_given else NAN)
                    e_lk[r] = _score(&sc, models, score_H, score_Y, score_sw, score_offsets,
                                     score_confidence, score_loss, l, k,
                                     _find(nbr, n_slots, R, l, k),
                                     peer_cost[kappa + r] if has_given else NAN)
                    a[r] += e_kl[r] + e_lk[r]
                g[r] = a[r] + mu_graph * (2.0 * lam * w[r] - 1.0 / (dk + delta)
                                          - 1.0 / (dl[r] + delta))
                inv = 1.0 / ((dl[r] + delta) * (dl[r] + delta))
                if inv > max_inv:
                    max_inv = inv
            phi_old = _block_value(&a[0], &w[0], &dl[0], dk, n_peers, mu_graph, lam, delta)
            lip = mu_graph * (2.0 * lam + n_peers / ((dk + delta) * (dk + delta)) + max_inv)
            lip_max = mu_graph * (2.0 * lam + (n_peers + 1.0) / (delta * delta))
            if lip > lip_max:
                lip = lip_max
            while True:
                dk_new = dk
                gdot = 0.0
                step_sq = 0.0
                for r in range(n_peers):
                    v[r] = w[r] - g[r] / lip
                    if v[r] < 0.0:
                        v[r] = 0.0
                    dk_new += v[r] - w[r]
                    dl_new[r] = dl[r] + v[r] - w[r]
                    gdot += g[r] * (v[r] - w[r])
                    step_sq += (v[r] - w[r]) * (v[r] - w[r])
                if dk_new < 0.0:
                    dk_new = 0.0
                for r in range(n_peers):
                    if dl_new[r] < 0.0:
                        dl_new[r] = 0.0
                phi_new = _block_value(&a[0], &v[0], &dl_new[0], dk_new, n_peers, mu_graph,
                                       lam, delta)
                quad = phi_old + gdot + 0.5 * lip * step_sq
                if phi_new <= quad + 1e-12 * (phi_old if phi_old > 0 else -phi_old) \
                        or lip >= lip_max:
                    break
                lip = 2.0 * lip
                if lip > lip_max:
                    lip = lip_max
            # Room for the new links (before anything is sent or stored).
            need = 0
            for r in range(n_peers):
                if v[r] > 0.0 and pos[r] < 0:
                    need += 1
                    if n_slots[peers[r]] >= R:
                        full = peers[r]
            if n_slots[k] + need > R:
                full = k
            if full >= 0:
                clock[0] = clock_before
                node_state[k] = state_before
                n_done -= 1
                break
            for r in range(n_peers):
                l = peers[r]
                if sc.cost != NULL:
                    linear_change += (a[r] - e_kl[r] - e_lk[r]) * (v[r] - w[r])
                else:
                    linear_change += a[r] * (v[r] - w[r])
                if v[r] > 0.0:
                    if pos[r] >= 0:
                        q = _find(nbr, n_slots, R, k, l)
                        wv[q] = v[r]
                        zc[q] = zs[r]
                        q = _find(nbr, n_slots, R, l, k)
                        wv[q] = v[r]
                        zc[q] = zs[r]
                    else:
                        _insert(wv, nbr, n_slots, sc.cost, &zc[0], R, k, l, v[r], e_kl[r],
                                zs[r])
                        _insert(wv, nbr, n_slots, sc.cost, &zc[0], R, l, k, v[r], e_lk[r],
                                zs[r])
                elif pos[r] >= 0:
                    _remove(wv, nbr, n_slots, sc.cost, &zc[0], R, k,
                            _find(nbr, n_slots, R, k, l))
                    _remove(wv, nbr, n_slots, sc.cost, &zc[0], R, l,
                            _find(nbr, n_slots, R, l, k))
                degree[l] = dl_new[r]
                pay_k = model_payload[k]
                pay_l = model_payload[l]
                if sent_models is not None:
                    if not sent_models.add(k, l):
                        pay_k = 0
                    if not sent_models.add(l, k):
                        pay_l = 0
                counter.send(k, l, pay_k)
                counter.send(l, k, pay_l + _LOSS_DEGREE_BYTES + answer_extra)
                counter.send(k, l, _WEIGHT_BYTES)
                spent += (3 * header + pay_k + pay_l
                          + _LOSS_DEGREE_BYTES + answer_extra + _WEIGHT_BYTES)
            degree[k] = dk_new
            objective += phi_new - phi_old
            if capped:
                _cap_neighbours(models, losses, wv, nbr, n_slots, &zc[0], R, degree, k,
                                max_neighbors, mu, mu_graph, lam, delta, counter, &zbuf[0],
                                &nbuf[0], &objective, &linear_change, &spent, &sc, score_H,
                                score_Y, score_sw, score_offsets, score_confidence,
                                score_loss)
                for r in range(n_peers):
                    _cap_neighbours(models, losses, wv, nbr, n_slots, &zc[0], R, degree,
                                    peers[r],
                                    max_neighbors, mu, mu_graph, lam, delta, counter,
                                    &zbuf[0], &nbuf[0], &objective, &linear_change, &spent,
                                    &sc, score_H, score_Y, score_sw, score_offsets,
                                    score_confidence, score_loss)
            if has_lip:
                trace_lipschitz[it] = lip
            if has_obj:
                objective_out[it] = objective
            if end_rounds:
                counter.end_round()
    return n_done, spent, objective, linear_change, full


def cap_node(
    const floating[:, ::1] models,     # IN (n_nodes, n_model)
    const double[::1] losses,          # IN (n_nodes,)
    double[::1] wv,                    # IN/OUT (n_nodes * R,) stored weights (as graph_steps)
    intp_t[::1] nbr,                   # IN/OUT (n_nodes * R,)
    intp_t[::1] n_slots,               # IN/OUT (n_nodes,)
    double[::1] degree,                # IN/OUT (n_nodes,)
    intp_t k,
    intp_t max_neighbors,
    double mu,
    double mu_graph,
    double lam,
    double delta,
    CommCounter counter,
    int64_t spent,
    double[::1] slot_cost=None,        # IN/OUT (n_nodes * R,) peer scores, every stored one given
):
    """Remark 2's cap on node k alone, as one step of :func:`graph_steps` applies it.

    For engines that run the steps of :func:`graph_steps` one node at a time
    (``skfed.engines.mpi``): call :func:`graph_steps` with
    ``max_neighbors=-1``, then this on the waking node and on each sampled
    peer in order.

    Returns
    -------
    (n_dropped, spent, objective_change, linear_change)
    """
    cdef intp_t n_dropped, K = degree.shape[0]
    cdef intp_t R = nbr.shape[0] // K
    cdef double objective = 0.0, linear_change = 0.0
    cdef _Scorer sc
    _scorer_init(&sc, False, False)
    cdef LossFunction no_loss = None
    empty = np.zeros((1, 0), dtype=np.asarray(models).dtype)
    cdef const floating[:, ::1] no_H = empty
    cdef const floating[::1] no_sw = empty[0]
    cdef const intp_t[::1] no_offsets = np.zeros(0, dtype=np.intp)
    cdef const double[::1] no_confidence = np.zeros(0)
    scratch_z = np.zeros(R + 1)
    scratch_n = np.zeros(R + 1, dtype=np.intp)
    zc_arr = np.full(K * R, np.nan)
    cdef double[::1] zc = zc_arr
    cdef double[::1] zbuf = scratch_z
    cdef intp_t[::1] nbuf = scratch_n
    if slot_cost is not None:
        if slot_cost.shape[0]:
            sc.cost = &slot_cost[0]
    with nogil:
        n_dropped = _cap_neighbours(models, losses, wv, nbr, n_slots, &zc[0], R, degree, k,
                                    max_neighbors, mu, mu_graph, lam, delta, counter,
                                    &zbuf[0], &nbuf[0], &objective, &linear_change, &spent,
                                    &sc, no_H, no_H, no_sw, no_offsets, no_confidence, no_loss)
    return n_dropped, spent, objective, linear_change
