"""Perso-lin's join with every newcomer of a call in one pass (issue 32).

:func:`skfed._graph_join.graph_join_nodes` runs a join newcomer by
newcomer: a Python object per newcomer, one kernel call per newcomer and
step block.  For :class:`~skfed.boosting.PersonalizedLinearClassifier`
without a privacy budget, peer scoring or rogue nodes (the defaults) it
runs :func:`lin_join_batched` instead: the same steps (the module
docstring of :mod:`skfed._graph_join`), the same draws of the peer-sampling
service and the same messages, but each of them for all the newcomers at
once:

1. their local models, solved as the fitted nodes' (a newcomer far lighter
   than them certified near its optimum: ``solve_newcomer_problems``);
2. their rows of the graph objective: one ``join_rows`` call
   (:mod:`skfed._core._join_fast`) over their candidates stored back to
   back (and again over the candidates and peers when newcomers sample
   each other, or when they re-solve);
3. their model steps, one block at a time: one ``lin_join_steps`` call,
   the sums ``sum_r w_nr theta_r`` over the fixed fitted neighbours formed
   once by a sparse product.

The result equals the newcomer-by-newcomer join up to the rounding of
sums taken in another order (``tests/test_graph_join_batch.py``).  On
rotated moons (80 fitted nodes, 20 newcomers of 10 samples, seed 0) a
join took 16.5 ms of CPU instead of 30-34 ms (a refit: 37-40 ms).
"""

import numpy as np
from scipy import sparse

from ._core._join_fast import csr_times_dense, join_rows, lin_join_steps
from ._graph_join_fitted import newcomer_confidence, row_sums
from ._graph_join_steps import _step_blocks
from .graph import model_message_bytes

__all__ = ["lin_join_batched"]


def _segments(lengths):
    indptr = np.zeros(len(lengths) + 1, dtype=np.intp)
    np.cumsum(lengths, out=indptr[1:])
    return indptr


def top_squared_singular_values(R, offsets):
    """``||R_k||_2^2`` of every segment ``R_k = R[offsets[k]:offsets[k + 1]]``.

    The largest eigenvalue of the smaller Gram matrix of each segment
    (``R_k R_k^T`` or ``R_k^T R_k``), segments of one length stacked into one
    batched ``eigvalsh`` call: the same number as ``np.linalg.norm(R_k, 2)
    ** 2`` up to rounding, without one SVD (and its Python call) per
    segment.  An empty segment gives 0.

    Parameters
    ----------
    R : ndarray of shape (n_rows, n_columns)
    offsets : ndarray of shape (n_segments + 1,)

    Returns
    -------
    ndarray of shape (n_segments,)
    """
    lengths = np.diff(offsets)
    n = R.shape[1]
    if (len(lengths) and n and offsets[0] == 0 and lengths[0] > 0
            and (lengths == lengths[0]).all()):
        # Every segment of one length, back to back from row 0 (a join's
        # newcomers of k samples each): the blocks are a view of R.
        m = int(lengths[0])
        blocks = R[:int(offsets[-1])].reshape(len(lengths), m, n)
        gram = (blocks @ blocks.transpose(0, 2, 1) if m <= n
                else blocks.transpose(0, 2, 1) @ blocks)
        return np.maximum(np.linalg.eigvalsh(gram)[:, -1], 0.0)
    top = np.zeros(len(lengths))
    for m in np.unique(lengths).tolist():
        if m == 0 or n == 0:
            continue
        segs = np.flatnonzero(lengths == m)
        rows = offsets[segs][:, None] + np.arange(m)
        blocks = R[rows]                                   # (g, m, n)
        gram = (blocks @ blocks.transpose(0, 2, 1) if m <= n
                else blocks.transpose(0, 2, 1) @ blocks)
        top[segs] = np.linalg.eigvalsh(gram)[:, -1]
    return np.maximum(top, 0.0)


def cut_rows(out, indptr, threshold, which):
    """The fit's sparsification of the rows ``which`` selects, in place.

    In every selected segment ``out[indptr[k]:indptr[k + 1]]`` with a
    positive weight, the weights below ``min(threshold, max)`` are set to 0
    (what ``join_rows`` does with its ``threshold``).

    Parameters
    ----------
    out : ndarray of shape (T,)
        The newcomers' weights, back to back.
    indptr : ndarray of shape (n_new + 1,)
    threshold : float
        The fitted graph's connectivity threshold.
    which : ndarray of shape (n_new,), dtype=bool
        The newcomers whose rows are sparsified.
    """
    lengths = np.diff(indptr)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    top = np.zeros(len(lengths))
    np.maximum.at(top, owner, out)
    # a selected row with a positive weight drops what is under its cut
    cut = np.where(which & (top > 0), np.minimum(threshold, top), -np.inf)
    out[out < cut[owner]] = 0.0


class _SymmetricPattern:
    """The weights between newcomers, ``W = (V + V^T) / 2``, as CSR.

    ``V`` holds each newcomer's weights toward the peers it asked (one entry
    per (newcomer, peer), fixed for the whole join); only the values change
    from one solve of the rows to the next.  The pattern of ``V + V^T`` is
    built once, and each solve only sums every weight into its slot: the
    same numbers as ``0.5 * (V + V^T)`` built by SciPy (at most two terms a
    slot), without building two sparse matrices per solve.
    """

    def __init__(self, rows, cols, n):
        both_r = np.concatenate([rows, cols])
        both_c = np.concatenate([cols, rows])
        keys, self.slot = np.unique(both_r.astype(np.int64) * n + both_c, return_inverse=True)
        self.rows = keys // n
        self.cols = np.ascontiguousarray(keys % n, dtype=np.intp)
        self.indptr = _segments(np.bincount(self.rows, minlength=n))
        self.n = n

    def values(self, values):
        """``(data, links)``: ``W``'s values in the pattern's CSR order
        (``indptr``, ``cols``; explicit zeros kept: callers only multiply
        and sum by them), and ``(k, j)`` of its positive weights."""
        data = 0.5 * np.bincount(self.slot, weights=np.concatenate([values, values]),
                                 minlength=len(self.rows))
        positive = data > 0
        return data, (self.rows[positive], self.cols[positive])

    def matrix(self, values):
        """``(W, links)`` with ``W`` as a CSR matrix (see :meth:`values`)."""
        data, links = self.values(values)
        return sparse.csr_matrix((data, self.cols, self.indptr), shape=(self.n, self.n)), links


def lin_join_batched(est, X, y, sw_all, layout, *, answered, models, graph_models,
                     losses_old, degrees_old, max_mass, mean_confidence, whole_below,
                     light_below, n_local,
                     n_steps,
                     every, threshold, sim, rng, n_candidates):
    """Steps 1, 3 and 4 of a Perso-lin join for every newcomer at once.

    Parameters
    ----------
    est : PersonalizedLinearClassifier
        Fitted; no privacy budget, no peer scoring.
    X, y, sw_all : ndarray
        The newcomers' samples, targets and weights (in the fit's dtype).
    layout : NodeLayout
        The newcomers' samples, node by node.
    answered : list of ndarray
        The fitted candidates that answered each newcomer (step 2).
    models, graph_models : ndarray of shape (n_fitted, P, n)
        The fitted nodes' final models and those the graph was learned
        from (the same object when the fit re-learned its graph).
    losses_old, degrees_old : ndarray of shape (n_fitted,)
        Their answers' losses and degrees.
    max_mass, mean_confidence : float
        The fit's largest node mass and its nodes' mean confidence.
    whole_below : float or None
        Newcomers of a smaller mass keep their whole rows (no ``threshold``;
        the smallest mass of the fit's nodes).  None: every row is cut.
    light_below : float or None
        Newcomers of a smaller mass have their local solve certified
        (``solve_newcomer_problems``).  None: none.
    n_local, n_steps : int
        The newcomers' local steps and model steps.
    every : int or None
        Model steps between two re-solves of the rows (None: never).
    threshold : float or None
        The fitted graph's connectivity threshold (``sparsify_graph``).
    sim : simulation
        The join's network (counts the messages, draws the drops).
    rng : RandomState
        The join's peer-sampling draws.
    n_candidates : int
        Candidates a newcomer asks.

    Returns
    -------
    dict
        ``models`` (n_new, P, n), ``local_models``, ``confidence``,
        ``graph_losses``, ``uses``, ``rows`` (each newcomer's weights toward
        ``answered[k]``) and ``W_new`` (the weights between newcomers).
    """
    from ._graph_join import _LOSS_DEGREE_BYTES, _design, _loss, _targets

    dtype = models.dtype
    n_old, n_new = models.shape[0], layout.n_nodes
    P, n = models.shape[1], models.shape[2]
    D = P * n
    offsets = np.ascontiguousarray(layout.offsets, dtype=np.intp)
    Z = np.ascontiguousarray(layout.sort(_design(est, X, dtype)), dtype=dtype)
    Y = np.ascontiguousarray(_targets(est, y, dtype)[:, layout.order])
    sw = np.ascontiguousarray(np.asarray(sw_all)[layout.order], dtype=dtype)
    loss = _loss(est)
    l2, n_pen = float(est.alpha), n - int(est.fit_intercept)
    mu = float(est.mu)
    mu_graph = float(est.mu if est.mu_graph is None else est.mu_graph)
    lam, delta = float(est.lambda_graph), float(est.delta)
    cap = -1 if est.max_neighbors is None else int(est.max_neighbors)
    thr = -1.0 if threshold is None else float(threshold)

    # Step 1: local models.
    sw64 = sw.astype(np.float64)
    mass = np.add.reduceat(sw64, offsets[:-1])
    confidence = newcomer_confidence(mass, max_mass)
    inv_mass = 1.0 / mass
    from .boosting._perso_lin_block import join_block_args  # (the fit's local_update)

    block = join_block_args(est, False, Z, sw, offsets, loss, inv_mass, l2, n_pen)
    if block:  # block solves (the default) read their own bound, not L_F
        lipschitz = np.ones(n_new)
    else:
        # ||diag(sqrt(s)) Z_n||_2^2 of each newcomer (the Gram matrix of its
        # few samples when it has fewer samples than features)
        rows64 = np.sqrt(sw64)[:, None] * Z.astype(np.float64)
        top = top_squared_singular_values(rows64, offsets)
        lipschitz = np.maximum(loss.py_curvature() * top / mass + l2, 1e-12)
    theta = np.zeros((n_new, P, n), dtype=dtype)
    losses = np.zeros((n_new, P))
    # Solved as the fitted nodes' local models, a light newcomer's certified
    # (n_local only counts toward ``uses``).
    from .boosting._perso_lin import solve_newcomer_problems

    solve_newcomer_problems(Z, Y, sw, offsets, theta, loss, est.loss, inv_mass, l2, n_pen,
                            losses, light_below)
    local_models = theta.copy()
    local_losses = confidence * losses.sum(axis=1)

    # Their rows toward the fitted candidates that answered.
    cand = np.concatenate(answered).astype(np.intp)
    indptr = _segments([len(a) for a in answered])
    T = len(cand)
    cand_models = np.ascontiguousarray(graph_models[cand].reshape(T, D), dtype=np.float64)
    cand_losses = np.ascontiguousarray(losses_old[cand], dtype=np.float64)
    cand_degrees = np.ascontiguousarray(degrees_old[cand], dtype=np.float64)
    v_old = np.zeros(T)

    def flat(th):
        return np.ascontiguousarray(th.reshape(n_new, D), dtype=np.float64)

    def rows_of(node_models, node_losses, models_, losses_, degrees_, indptr_, out):
        """``join_rows`` of every newcomer, the fit's sparsification applied
        to the rows ``cut`` selects only (``cut_rows``)."""
        if thr < 0.0 or cut.all():
            join_rows(node_models, node_losses, models_, losses_, degrees_, indptr_,
                      mu, mu_graph, lam, delta, cap, thr, out)
        else:
            join_rows(node_models, node_losses, models_, losses_, degrees_, indptr_,
                      mu, mu_graph, lam, delta, cap, -1.0, out)
            cut_rows(out, indptr_, thr, cut)

    # Newcomers at least as heavy as the fitted nodes' mean sample each other
    # (step 2b).  Without such an exchange these rows are final; with one,
    # every row is solved again over candidates and peers, so only the
    # eligible newcomers' rows are solved here (their degrees are what they
    # answer their peers).  A newcomer's row depends on its candidates only.
    eligible = np.flatnonzero(mass >= mean_confidence * max_mass)
    # the rows the fit's threshold cuts (step 3 of skfed._graph_join)
    cut = np.ones(n_new, dtype=bool) if whole_below is None else mass >= whole_below
    exchange = len(eligible) > 1
    if exchange and len(eligible) < n_new:
        sub = np.concatenate([np.arange(indptr[k], indptr[k + 1]) for k in eligible.tolist()]
                             + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
        out = np.zeros(len(sub))
        join_rows(np.ascontiguousarray(flat(theta)[eligible]),
                  np.ascontiguousarray(local_losses[eligible]),
                  np.ascontiguousarray(cand_models[sub]), np.ascontiguousarray(cand_losses[sub]),
                  np.ascontiguousarray(cand_degrees[sub]), _segments(np.diff(indptr)[eligible]),
                  mu, mu_graph, lam, delta, cap, thr, out)
        v_old[sub] = out
    else:
        rows_of(flat(theta), local_losses, cand_models, cand_losses, cand_degrees, indptr,
                v_old)

    # Step 2b: the eligible newcomers sample each other (the draws of the
    # newcomer-by-newcomer join, in its order).
    peers = [np.zeros(0, dtype=np.intp) for _ in range(n_new)]
    degrees_new = np.add.reduceat(v_old, indptr[:-1]) if T else np.zeros(n_new)
    degrees_new[indptr[:-1] == indptr[1:]] = 0.0
    if exchange:
        new_payloads = model_message_bytes(local_models.reshape(n_new, -1), dtype)
        n_peers = min(len(eligible) - 1, n_candidates)
        active = sim.draw_rounds(1)[0][0]
        # Every eligible newcomer draws its peers (the draws of
        # RandomState.choice without replacement: a permutation's head),
        # then the active ones' requests and answers are counted at once.
        drawn = np.empty((len(eligible), n_peers), dtype=np.intp)
        for i, k in enumerate(eligible.tolist()):
            others = eligible[eligible != k]
            drawn[i] = others[rng.permutation(len(others))[:n_peers]]
        drawn.sort(axis=1)
        asking = active[n_old + eligible]
        drawn, askers = drawn[asking], eligible[asking]
        sender = np.repeat(n_old + askers, n_peers).astype(np.intp)
        sim.counter.send_pairs(sender, np.ascontiguousarray(n_old + drawn.ravel(), dtype=np.intp),
                               np.zeros(drawn.size, dtype=np.int64))
        ok = active[n_old + drawn]
        got = drawn[ok]
        sim.counter.send_pairs(np.ascontiguousarray(n_old + got, dtype=np.intp),
                               sender[ok.ravel()],
                               (new_payloads[got] + _LOSS_DEGREE_BYTES).astype(np.int64))
        for i, k in enumerate(askers.tolist()):
            peers[k] = drawn[i][ok[i]]
        sim.counter.next_round()
    n_peer = np.array([len(p) for p in peers], dtype=np.intp)
    # Every newcomer's fitted candidates, then its peers, back to back (a
    # peer j is row T + j of the stacked sources).
    both_idx = np.concatenate(
        [np.concatenate([np.arange(indptr[k], indptr[k + 1]), T + peers[k]])
         for k in range(n_new)] + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
    both_indptr = _segments(np.diff(indptr) + n_peer)
    is_fitted = both_idx < T
    both_losses = np.ascontiguousarray(np.concatenate([cand_losses, local_losses])[both_idx])
    both_degrees = np.ascontiguousarray(np.concatenate([cand_degrees, degrees_new])[both_idx])
    peer_row = np.repeat(np.arange(n_new), n_peer)
    peer_col = np.concatenate(peers + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
    pattern = _SymmetricPattern(peer_row, peer_col, n_new)

    def solve_rows(current, node_losses, fitted_models):
        """Every newcomer's row over its fitted candidates and peers (with
        ``current``: the peers' current models, else their answers); the
        weight between two newcomers is the mean of what each chose.
        Returns ``(data, links)`` (:meth:`_SymmetricPattern.values`)."""
        peer_models = flat(local_models if current is None else current)
        source = np.concatenate([fitted_models, peer_models])
        out = np.zeros(len(both_idx))
        rows_of(flat(theta), node_losses, np.ascontiguousarray(source[both_idx]),
                both_losses, both_degrees, both_indptr, out)
        v_old[:] = out[is_fitted]
        return pattern.values(out[~is_fitted])

    if exchange:
        w_new, links = solve_rows(None, local_losses, cand_models)
    else:  # no peers: the rows above are the rows over all candidates
        w_new = np.zeros(0)
        links = (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))
    # The fitted neighbours' models of the model steps: rows ``step_cols`` of
    # ``step_source`` (no gather of every candidate's final model).
    step_source, step_cols = cand_models, np.arange(T, dtype=np.intp)
    if graph_models is not models:
        # Step 3b: the chosen fitted neighbours send their final models.
        payloads = model_message_bytes(models.reshape(n_old, -1), dtype)
        owner = np.repeat(np.arange(n_new), np.diff(indptr))
        chosen = v_old > 0
        asker = np.ascontiguousarray(n_old + owner[chosen], dtype=np.intp)
        nbrs = np.ascontiguousarray(cand[chosen], dtype=np.intp)
        sim.counter.send_pairs(asker, nbrs, np.zeros(len(nbrs), dtype=np.int64))  # requests
        sim.counter.send_pairs(nbrs, asker, payloads[nbrs].astype(np.int64))
        step_source = np.ascontiguousarray(models.reshape(n_old, D), dtype=np.float64)
        step_cols = cand

    # Step 4: model steps, the fitted neighbours' models fixed; linked
    # newcomers step in synchronous blocks and exchange their models.
    # (the sums W @ models of SciPy's CSR products, on the raw arrays)
    S_fixed, mixed = np.empty((n_new, D)), np.empty((n_new, D))

    def fixed_part():
        csr_times_dense(indptr, step_cols, v_old, step_source, S_fixed)
        return row_sums(v_old, indptr)

    has_links = np.diff(pattern.indptr) > 0

    def degrees(w):
        """S_fixed, and every newcomer's degree: its fitted neighbours' part,
        then the newcomers'."""
        return np.ascontiguousarray(
            fixed_part() + np.add.reduceat(np.append(w, 0.0), pattern.indptr[:-1]) * has_links)

    def senders(links):
        """Who sends whom its model after a block: ``(j, k)`` of each link as endpoints."""
        k_, j_ = links
        return (j_, np.ascontiguousarray(n_old + j_, dtype=np.intp),
                np.ascontiguousarray(n_old + k_, dtype=np.intp))

    # (the degrees and the links change only when the rows are re-solved)
    degree, exchange_pairs = degrees(w_new), senders(links)
    linked = len(links[0]) > 0
    for _, size, last, resolve in _step_blocks(n_steps, every, linked):
        csr_times_dense(pattern.indptr, pattern.cols, w_new, flat(theta), mixed)
        S = np.ascontiguousarray((S_fixed + mixed).reshape(n_new, P, n))
        lin_join_steps(Z, Y, sw, offsets, theta, losses, loss, inv_mass, lipschitz, l2, n_pen,
                       S, degree, confidence, mu, int(size), **block)
        if last:
            break
        if linked:
            pay = model_message_bytes(theta.reshape(n_new, -1), dtype)
            j_, src, dst = exchange_pairs
            sim.counter.send_pairs(src, dst, pay[j_].astype(np.int64))
            sim.counter.next_round()
        if resolve:
            w_new, links = solve_rows(theta.astype(np.float64),
                                      confidence * losses.sum(axis=1),
                                      np.ascontiguousarray(step_source[step_cols]))
            degree, exchange_pairs = degrees(w_new), senders(links)
            linked = len(links[0]) > 0
    separate = graph_models is not models
    W_new = sparse.csr_matrix((w_new, pattern.cols, pattern.indptr), shape=(n_new, n_new))
    W_new.eliminate_zeros()
    return {
        "models": theta,
        "local_models": local_models,
        "confidence": confidence,
        "graph_losses": local_losses if separate else confidence * losses.sum(axis=1),
        "uses": np.full(n_new, n_local + n_steps, dtype=np.int64),
        "rows": [v_old[indptr[k]:indptr[k + 1]].copy() for k in range(n_new)],
        "W_new": W_new,
    }
