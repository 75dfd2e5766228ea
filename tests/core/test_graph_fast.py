"""The decentralized graph step (eq. 5 of Dada) against a NumPy implementation."""

import numpy as np
import pytest

from skfed._core._comm import CommCounter
from skfed._core._graph_fast import graph_steps, pair_scores
from skfed.graph import block_lipschitz_bound, graph_gradient, graph_objective

HEADER = 16


def _complete(K):
    indptr = np.arange(0, K * (K - 1) + 1, K - 1, dtype=np.intp)
    indices = np.array([l for k in range(K) for l in range(K) if l != k], dtype=np.intp)
    return indptr, indices


def _slots(W, R):
    """The non-zero weights of dense W in rows of R sorted slots (graph_steps' storage)."""
    K = W.shape[0]
    nbr = np.full(K * R, -1, dtype=np.intp)
    wv = np.zeros(K * R)
    n_slots = np.zeros(K, dtype=np.intp)
    for k in range(K):
        cols = np.flatnonzero(W[k] > 0)
        n_slots[k] = cols.size
        nbr[k * R: k * R + cols.size] = cols
        wv[k * R: k * R + cols.size] = W[k, cols]
    return wv, nbr, n_slots


def _dense(wv, nbr, n_slots, K):
    R = nbr.size // K
    W = np.zeros((K, K))
    for k in range(K):
        cols = nbr[k * R: k * R + n_slots[k]]
        assert np.all(np.diff(cols) > 0) and np.all(wv[k * R: k * R + n_slots[k]] > 0)
        W[k, cols] = wv[k * R: k * R + n_slots[k]]
    return W


def _run(models, losses, W, *, mu, mu_graph, lam, delta, kappa, n_steps, seed=3,
         cand=None, payload=None, budget=-1, offline=None, end_rounds=True,
         max_neighbors=-1, pair_cost=None, score=None, capacity=None):
    """Run graph_steps from the dense W; return the weights as a dense matrix.

    ``cand``: the topology's CSR (complete when None); ``pair_cost``: the
    slots' peer scores (``n_nodes * capacity`` values, NaN: computed from
    ``score``), filled in place.  The rows hold ``capacity`` slots (all the
    other nodes by default).
    """
    K = W.shape[0]
    complete = cand is None
    indptr, indices = (np.zeros(K + 1, np.intp), np.zeros(0, np.intp)) if complete else cand
    R = K if capacity is None else capacity
    wv, nbr, n_slots = _slots(W, R)
    degree = W.sum(axis=1)
    counter = CommCounter(K, header_bytes=HEADER)
    payload = np.full(K, 8 * models.shape[1], np.int64) if payload is None else payload
    trace_node = np.zeros(n_steps, np.intp)
    trace_peers = np.zeros(n_steps * kappa, np.intp)
    trace_lip = np.zeros(n_steps)
    curve = np.zeros(n_steps)
    objective = graph_objective(W, models, losses, mu=mu, mu_graph=mu_graph,
                                lambda_graph=lam, delta=delta)
    slot_cost = pair_cost
    out = graph_steps(
        models, losses, wv, nbr, n_slots, degree, indptr, indices, complete, mu, mu_graph,
        lam, delta, kappa, n_steps, np.array([seed], np.uint32),
        np.arange(1, K + 1, dtype=np.uint32),
        np.zeros(0, np.uint8) if offline is None else offline.astype(np.uint8), payload,
        counter, end_rounds, budget, 0, objective, curve, trace_node, trace_peers, trace_lip,
        max_neighbors, slot_cost, *(score or ()),
    )
    W = _dense(wv, nbr, n_slots, K)
    n_done = out[0]
    return (out, W, degree, counter, curve[:n_done], trace_node[:n_done],
            trace_peers[: n_done * kappa].reshape(n_done, kappa), trace_lip[:n_done])


def ref_graph_step(W, models, losses, k, peers, *, mu, mu_graph, lam, delta, S=None):
    """Projected block gradient step with backtracking, written from eq. 5.

    With peer scores ``S`` (symmetric, ``E + E^T``), on ``h(w) + sum_{k<l}
    w_kl S_kl``: the scores are linear in w.
    """
    kw = dict(mu=mu, mu_graph=mu_graph, lambda_graph=lam, delta=delta)
    S = np.zeros_like(W) if S is None else S

    def h(V):
        return graph_objective(V, models, losses, **kw) + np.sum(np.triu(V * S, 1))

    h0 = h(W)
    grad = graph_gradient(W, models, losses, **kw)[k, peers] + S[k, peers]
    d = W.sum(axis=1)
    L = mu_graph * (2 * lam + len(peers) / (d[k] + delta) ** 2 + np.max(1 / (d[peers] + delta) ** 2))
    L_max = block_lipschitz_bound(len(peers), mu_graph=mu_graph, lambda_graph=lam, delta=delta)
    L = min(L, L_max)
    while True:
        v = np.maximum(0.0, W[k, peers] - grad / L)
        new = W.copy()
        new[k, peers] = new[peers, k] = v
        step = v - W[k, peers]
        h1 = h(new)
        if h1 <= h0 + grad @ step + 0.5 * L * step @ step + 1e-12 * abs(h0) or L >= L_max:
            return new, L, h1
        L = min(2 * L, L_max)


@pytest.mark.parametrize("start", ["empty", "dense"])
def test_one_graph_step_matches_numpy_eq_5(start):
    rng = np.random.RandomState(0)
    K, kappa = 9, 4
    models = rng.normal(size=(K, 6))
    losses = rng.uniform(0, 2, size=K)
    W = np.zeros((K, K))
    if start == "dense":
        W = np.triu(rng.uniform(0, 0.5, size=(K, K)), 1)
        W = W + W.T
    kw = dict(mu=0.7, mu_graph=1.3, lam=0.4, delta=1e-2)
    out, W1, degree, counter, curve, node, peers, lip = _run(
        models, losses, W, kappa=kappa, n_steps=1, **kw
    )
    k, p = node[0], peers[0]
    assert len(set(p.tolist())) == kappa and k not in p
    ref, L, h1 = ref_graph_step(W, models, losses, k, p, mu=0.7, mu_graph=1.3, lam=0.4,
                                delta=1e-2)
    np.testing.assert_allclose(W1, ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(W1, W1.T)
    np.testing.assert_allclose(degree, ref.sum(axis=1), rtol=1e-12, atol=1e-15)
    assert lip[0] == pytest.approx(L)
    assert out[2] == pytest.approx(h1, rel=1e-10) and curve[0] == pytest.approx(h1, rel=1e-10)


def test_many_graph_steps_replay_in_numpy_and_never_increase_h():
    rng = np.random.RandomState(1)
    K, kappa = 7, 3
    models = rng.normal(size=(K, 4))
    losses = rng.uniform(0, 1, size=K)
    kw = dict(mu=1.0, mu_graph=0.5, lam=1.0, delta=1e-3)
    out, W, *_, curve, nodes, peers, lip = _run(models, losses, np.zeros((K, K)), kappa=kappa,
                                                n_steps=200, **kw)
    ref = np.zeros((K, K))
    for k, p in zip(nodes, peers):
        ref, _, _ = ref_graph_step(ref, models, losses, k, p, mu=1.0, mu_graph=0.5, lam=1.0,
                                   delta=1e-3)
    np.testing.assert_allclose(W, ref, rtol=1e-9, atol=1e-12)
    assert np.all(np.diff(curve) <= 1e-9 * np.abs(curve[:-1]))
    assert np.all(lip <= block_lipschitz_bound(kappa, mu_graph=0.5, lambda_graph=1.0,
                                               delta=1e-3) * (1 + 1e-12))
    assert curve[-1] == pytest.approx(
        graph_objective(W, models, losses, mu=1.0, mu_graph=0.5, lambda_graph=1.0, delta=1e-3),
        rel=1e-9,
    )


def ref_cap(W, models, node, cap):
    """Remark 2: node keeps its ``cap`` closest neighbours (ties: larger index
    dropped), except that a link that is the neighbour's last one is never
    dropped (the node then stays over the cap by such links)."""
    nbrs = [m for m in np.flatnonzero(W[node] > 0) if m != node]
    dist = {m: float(np.sum((models[node] - models[m]) ** 2)) for m in nbrs}
    return _drop_over_cap(W, node, nbrs, dist, cap)


def _drop_over_cap(W, node, nbrs, cost, cap):
    """Drop ``node``'s links of largest ``(cost, index)`` until it keeps ``cap``,
    skipping a link that is the neighbour's last one.  A neighbour's degree
    only changes when its own link to ``node`` is dropped, so one pass in
    that order is the rule."""
    W = W.copy()
    count, dropped = len(nbrs), 0
    for m in sorted(nbrs, key=lambda m: (cost[m], m), reverse=True):
        if count <= cap:
            break
        if np.count_nonzero(W[m] > 0) > 1:
            W[node, m] = W[m, node] = 0.0
            count -= 1
            dropped += 1
    return W, dropped


def test_max_neighbors_replays_in_numpy_with_exact_objective_and_bytes():
    rng = np.random.RandomState(5)
    K, kappa, cap, n_steps = 10, 4, 2, 150
    models = rng.normal(size=(K, 3))
    losses = rng.uniform(0, 0.2, size=K)
    kw = dict(mu=0.5, mu_graph=2.0, lam=0.3, delta=1e-2)
    out, W, degree, counter, curve, nodes, peers, _ = _run(
        models, losses, np.zeros((K, K)), kappa=kappa, n_steps=n_steps, max_neighbors=cap, **kw
    )
    ref, n_dropped = np.zeros((K, K)), 0
    for k, p in zip(nodes, peers):
        ref, _, _ = ref_graph_step(ref, models, losses, k, p, mu=0.5, mu_graph=2.0, lam=0.3,
                                   delta=1e-2)
        for node in [k, *p]:
            ref, dropped = ref_cap(ref, models, node, cap)
            n_dropped += dropped
    np.testing.assert_allclose(W, ref, rtol=1e-9, atol=1e-12)
    assert n_dropped > 0
    # Counts only grow at the waking node and its peers, which are capped right
    # after: a node over ``cap`` keeps only links that are a neighbour's last.
    deg = (W > 0).sum(axis=1)
    for k in np.flatnonzero(deg > cap):
        over = [m for m in np.flatnonzero(W[k] > 0) if deg[m] > 1]
        assert len(over) <= cap
    np.testing.assert_allclose(degree, W.sum(axis=1), rtol=1e-9, atol=1e-12)
    hkw = dict(mu=0.5, mu_graph=2.0, lambda_graph=0.3, delta=1e-2)
    assert curve[-1] == pytest.approx(graph_objective(W, models, losses, **hkw), rel=1e-9)
    # Bytes: the three messages per sampled peer plus one 8-byte message per drop.
    step_bytes = n_steps * kappa * (3 * HEADER + 2 * 8 * 3 + 24)
    assert out[1] == step_bytes + n_dropped * (HEADER + 8)
    assert counter.snapshot()["pair_bytes"].sum() == out[1]


def test_max_neighbors_zero_change_when_cap_is_not_reached():
    rng = np.random.RandomState(2)
    K = 6
    models = rng.normal(size=(K, 2))
    kw = dict(mu=1.0, mu_graph=1.0, lam=1.0, delta=1e-3, kappa=2, n_steps=80)
    free = _run(models, np.zeros(K), np.zeros((K, K)), **kw)
    capped = _run(models, np.zeros(K), np.zeros((K, K)), max_neighbors=K - 1, **kw)
    np.testing.assert_array_equal(free[1], capped[1])
    assert free[0][1] == capped[0][1]


def test_peer_sampling_is_uniform_over_the_candidates():
    K, kappa, n_steps = 6, 2, 6000
    models = np.zeros((K, 1))
    # Candidates: node k may only sample among the nodes of the same parity.
    cand = [[l for l in range(K) if l != k and l % 2 == k % 2] for k in range(K)]
    indptr = np.r_[0, np.cumsum([len(c) for c in cand])].astype(np.intp)
    indices = np.concatenate(cand).astype(np.intp)
    *_, nodes, peers, _ = _run(models, np.zeros(K), np.zeros((K, K)), mu=1, mu_graph=1,
                               lam=1, delta=1e-3, kappa=kappa, n_steps=n_steps,
                               cand=(indptr, indices))
    counts = np.bincount(nodes, minlength=K)
    assert np.all(np.abs(counts - n_steps / K) < 5 * np.sqrt(n_steps / K))
    for k in range(K):
        chosen = peers[nodes == k]
        assert set(chosen.ravel().tolist()) == set(cand[k])  # kappa = all candidates here
        assert np.all(chosen[:, 0] != chosen[:, 1])


def test_peer_sampling_draws_distinct_peers_uniformly():
    K, kappa, n_steps = 8, 3, 8000
    *_, nodes, peers, _ = _run(np.zeros((K, 1)), np.zeros(K), np.zeros((K, K)), mu=1,
                               mu_graph=1, lam=1, delta=1e-3, kappa=kappa, n_steps=n_steps)
    for row, k in zip(peers[:200], nodes[:200]):
        assert len(set(row.tolist())) == kappa and k not in row
    freq = np.zeros((K, K))
    for row, k in zip(peers, nodes):
        freq[k, row] += 1
    for k in range(K):
        others = np.delete(freq[k], k)
        expected = others.sum() / (K - 1)
        assert np.all(np.abs(others - expected) < 5 * np.sqrt(expected))


def test_graph_messages_closed_form():
    rng = np.random.RandomState(2)
    K, kappa, n_steps = 6, 2, 40
    models = rng.normal(size=(K, 5))
    payload = np.array([40, 13, 22, 40, 7, 31], dtype=np.int64)
    out, *_, counter, curve, nodes, peers, _ = _run(
        models, np.zeros(K), np.zeros((K, K)), mu=1, mu_graph=1, lam=1, delta=1e-3,
        kappa=kappa, n_steps=n_steps, payload=payload,
    )
    # Per peer: request (k's model), answer (l's model + loss + degree), new weight.
    expected = sum(
        3 * HEADER + payload[k] + payload[l] + 16 + 8 for k, row in zip(nodes, peers) for l in row
    )
    snap = counter.snapshot()
    assert snap["pair_bytes"].sum() == expected == out[1]
    assert snap["pair_messages"].sum() == 3 * kappa * n_steps
    assert len(snap["round_bytes"]) == n_steps


def test_graph_budget_and_offline_steps():
    rng = np.random.RandomState(3)
    K = 5
    models = rng.normal(size=(K, 3))
    out, W, *_ = _run(models, np.zeros(K), np.zeros((K, K)), mu=1, mu_graph=1, lam=1,
                      delta=1e-3, kappa=2, n_steps=100, budget=500)
    assert out[0] < 100 and out[1] >= 500
    out, W, *_ = _run(models, np.zeros(K), np.zeros((K, K)), mu=1, mu_graph=1, lam=1,
                      delta=1e-3, kappa=2, n_steps=30, offline=np.ones(30, bool))
    assert out[0] == 30 and out[1] == 0 and not W.any()


def test_float32_models_agree_with_float64():
    rng = np.random.RandomState(4)
    K = 6
    models = rng.normal(size=(K, 4))
    losses = rng.uniform(size=K)
    args = dict(mu=1, mu_graph=1, lam=0.5, delta=1e-2, kappa=2, n_steps=300)
    W64 = _run(models, losses, np.zeros((K, K)), **args)[1]
    W32 = _run(models.astype(np.float32), losses, np.zeros((K, K)), **args)[1]
    np.testing.assert_allclose(W32, W64, rtol=1e-4, atol=1e-6)


# ------------------------------------------------------------ peer scoring
def _score_problem(seed=0, K=8, P=2, n_base=5):
    """Dada-like data: +-1 base predictions, +-1 labels, node-sorted samples."""
    rng = np.random.RandomState(seed)
    sizes = rng.randint(2, 7, size=K)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    n = offsets[-1]
    H = np.where(rng.uniform(size=(n, n_base)) > 0.5, 1.0, -1.0)
    Y = np.where(rng.uniform(size=(P, n)) > 0.5, 1.0, -1.0)
    sw = rng.uniform(0.5, 2.0, size=n)
    sw[rng.uniform(size=n) < 0.15] = 0.0  # zero-weight samples do not count
    sw[offsets[:-1]] = 1.0  # every node keeps one weighted sample
    models = rng.normal(size=(K, P * n_base))
    models[rng.uniform(size=models.shape) < 0.3] = 0.0  # sparse, as Frank-Wolfe models
    confidence = rng.uniform(0.2, 1.0, size=K)
    return models, H, Y, sw, offsets, confidence


def ref_scores(models, H, Y, sw, offsets, confidence):
    """``E[k, l] = c_k sum_p (L_kp(m_l) - L_kp(m_k))``, L the weighted log-sum-exp."""
    K, n_base = models.shape[0], H.shape[1]
    P = Y.shape[0]
    L = np.zeros((K, K))  # L[k, l]: node k's loss of model l
    for k in range(K):
        rows = slice(offsets[k], offsets[k + 1])
        keep = sw[rows] > 0
        for l in range(K):
            for p in range(P):
                margin = Y[p, rows] * (H[rows] @ models[l, p * n_base:(p + 1) * n_base])
                L[k, l] += np.log(np.sum(sw[rows][keep] * np.exp(-margin[keep])))
    return confidence[:, None] * (L - np.diag(L)[:, None])


def _all_pairs(K):
    rows, cols = np.nonzero(~np.eye(K, dtype=bool))
    return rows.astype(np.intp), cols.astype(np.intp)


def test_pair_scores_match_numpy():
    models, H, Y, sw, offsets, confidence = _score_problem()
    K = models.shape[0]
    rows, cols = _all_pairs(K)
    out = np.full(rows.size, -7.0)
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out)
    E = ref_scores(models, H, Y, sw, offsets, confidence)
    np.testing.assert_allclose(out, E[rows, cols], rtol=1e-12, atol=1e-12)



def test_int8_base_predictions_score_and_step_as_the_floats():
    # Dada passes its +-1 stump predictions as int8 as well: the same values,
    # so the same scores and graphs bit for bit.
    models, H, Y, sw, offsets, confidence = _score_problem(seed=2, K=9)
    K = models.shape[0]
    H8 = H.astype(np.int8)
    rows, cols = _all_pairs(K)
    out, out8 = np.zeros(rows.size), np.zeros(rows.size)
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out)
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out8, None, H8)
    np.testing.assert_array_equal(out8, out)
    kw = dict(mu=0.8, mu_graph=1.5, lam=0.5, delta=1e-2, kappa=3, n_steps=80,
              max_neighbors=2)
    rng = np.random.RandomState(1)
    losses = rng.uniform(0, 0.5, size=K)
    cost, cost8 = np.full(K * K, np.nan), np.full(K * K, np.nan)
    W = _run(models, losses, np.zeros((K, K)), pair_cost=cost,
             score=(H, Y, sw, offsets, confidence), **kw)[1]
    W8 = _run(models, losses, np.zeros((K, K)), pair_cost=cost8,
              score=(H, Y, sw, offsets, confidence, None, H8), **kw)[1]
    assert W.any()
    np.testing.assert_array_equal(W8, W)
    np.testing.assert_array_equal(cost8, cost)
    with pytest.raises(ValueError, match="score_H8"):
        _run(models, losses, np.zeros((K, K)), pair_cost=np.full(K * K, np.nan),
             score=(H, Y, sw, offsets, confidence, None,
                    np.ascontiguousarray(H8[:, :-1])), **kw)
    with pytest.raises(ValueError, match="H8"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out8, None,
                    H8[:-1])


def _stored(W, R):
    """``(rows, cols, slots)`` of the non-zero weights of W in graph_steps' storage."""
    rows, cols = np.nonzero(W > 0)
    first = np.searchsorted(rows, rows)  # each row's first entry
    return rows, cols, rows * R + (np.arange(rows.size) - first)


def _replay_peers(K, k, kappa, state):
    """The peers graph_steps draws for k on a complete topology (advances ``state``)."""
    from skfed.engines._mpi_comm import rand_int

    if kappa >= K - 1:
        return [l for l in range(K) if l != k]
    picks = []
    while len(picks) < kappa:
        pick = rand_int(K - 1, state)
        if pick not in picks:
            picks.append(pick)
    return [p + (p >= k) for p in picks]


def ref_scored_cap(W, models, S, node, cap, mu):
    """Remark 2 with peer scores: keep the smallest (mu / 2) z + S (ties: larger
    index dropped), never dropping a link that is the neighbour's last one."""
    nbrs = [m for m in np.flatnonzero(W[node] > 0) if m != node]
    cost = {m: 0.5 * mu * float(np.sum((models[node] - models[m]) ** 2)) + S[node, m]
            for m in nbrs}
    return _drop_over_cap(W, node, nbrs, cost, cap)


def test_peer_scored_steps_replay_in_numpy_lazily_or_given():
    models, H, Y, sw, offsets, confidence = _score_problem(seed=4, K=9)
    K = models.shape[0]
    rng = np.random.RandomState(7)
    losses = rng.uniform(0, 0.5, size=K)
    kappa, cap, n_steps = 3, 2, 120
    kw = dict(mu=0.8, mu_graph=1.5, lam=0.5, delta=1e-2)
    E = ref_scores(models, H, Y, sw, offsets, confidence)
    S = E + E.T
    lazy = np.full(K * K, np.nan)
    out, W, degree, counter, curve, nodes, peers, _ = _run(
        models, losses, np.zeros((K, K)), kappa=kappa, n_steps=n_steps, max_neighbors=cap,
        pair_cost=lazy, score=(H, Y, sw, offsets, confidence), **kw
    )
    ref, n_dropped = np.zeros((K, K)), 0
    for k, p in zip(nodes, peers):
        ref, _, _ = ref_graph_step(ref, models, losses, k, p, S=S, **kw)
        for node in [k, *p]:
            ref, dropped = ref_scored_cap(ref, models, S, node, cap, kw["mu"])
            n_dropped += dropped
    np.testing.assert_allclose(W, ref, rtol=1e-9, atol=1e-12)
    assert n_dropped > 0
    # Without the scores the same steps learn another graph: they matter here.
    plain = _run(models, losses, np.zeros((K, K)), kappa=kappa, n_steps=n_steps,
                 max_neighbors=cap, **kw)[1]
    assert np.abs(plain - W).max() > 1e-3
    # The scores kept with the stored links are E itself.
    rows, cols, slots = _stored(W, K)
    assert rows.size > 0 and not np.isnan(lazy[slots]).any()
    np.testing.assert_allclose(lazy[slots], E[rows, cols], rtol=1e-12, atol=1e-12)
    # Bytes: an answer carries the peer's score, 8 more bytes per sampled peer.
    step_bytes = n_steps * kappa * (3 * HEADER + 2 * 8 * models.shape[1] + 24 + 8)
    assert out[1] == step_bytes + n_dropped * (HEADER + 8)
    assert counter.snapshot()["pair_bytes"].sum() == out[1]
    # linear_change is eq. 1's part of the change, without the scores.
    hkw = dict(mu=0.8, mu_graph=1.5, lambda_graph=0.5, delta=1e-2)
    linear = graph_objective(W, models, losses, **hkw) - graph_objective(
        W, models, np.zeros(K), mu=0.0, mu_graph=1.5, lambda_graph=0.5, delta=1e-2)
    assert out[3] == pytest.approx(linear, rel=1e-9)
    # The scores given instead (as the MPI engine does: the stored links'
    # scores, and the sampled peers' ones step by step): the same graph.
    pr, pc = _all_pairs(K)
    flat = np.zeros(pr.size)
    pair_scores(models, H, Y, sw, offsets, confidence, pr, pc, flat)
    E = np.zeros((K, K))
    E[pr, pc] = flat  # the solver's own arithmetic, so the graphs are equal bit for bit
    wv, nbr, n_slots = _slots(np.zeros((K, K)), K)
    given, degree = np.full(K * K, np.nan), np.zeros(K)
    clock, states = np.array([3], np.uint32), np.arange(1, K + 1, dtype=np.uint32)
    counter = CommCounter(K, header_bytes=HEADER)
    spent = 0
    for it in range(n_steps):
        probe = clock.copy()
        from skfed.engines._mpi_comm import rand_int
        k = rand_int(K, probe)
        p = _replay_peers(K, k, kappa, states[k:k + 1].copy())
        assert p == peers[it].tolist()
        peer_cost = np.r_[E[k, p], E[p, k]]
        _, spent, _, _, full = graph_steps(
            models, losses, wv, nbr, n_slots, degree, np.zeros(K + 1, np.intp),
            np.zeros(0, np.intp), True, kw["mu"], kw["mu_graph"], kw["lam"], kw["delta"],
            kappa, 1, clock, states, np.zeros(0, np.uint8), np.full(K, 8 * models.shape[1]),
            counter, True, -1, spent, 0.0, np.zeros(0), np.zeros(0, np.intp),
            np.zeros(0, np.intp), np.zeros(0), cap, given, peer_cost=peer_cost)
        assert full == -1
    np.testing.assert_array_equal(_dense(wv, nbr, n_slots, K), W)
    assert spent == out[1]
    with pytest.raises(ValueError, match="score"):
        _run(models, losses, np.zeros((K, K)), kappa=kappa, n_steps=2,
             pair_cost=np.full(K * K, np.nan), **kw)


# ------------------------------------------------- Perso-lin's peer scoring
def _linear_score_problem(seed=0, K=8, P=2, n_features=4):
    """Perso-lin-like data: a real design (last column the intercept), +-1 labels."""
    rng = np.random.RandomState(seed)
    sizes = rng.randint(2, 7, size=K)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    n = offsets[-1]
    X = np.column_stack([rng.normal(size=(n, n_features - 1)), np.ones(n)])
    Y = np.where(rng.uniform(size=(P, n)) > 0.5, 1.0, -1.0)
    sw = rng.uniform(0.5, 2.0, size=n)
    sw[rng.uniform(size=n) < 0.15] = 0.0
    sw[offsets[:-1]] = 1.0
    models = rng.normal(size=(K, P * n_features))
    mass = np.add.reduceat(sw, offsets[:-1])
    factor = (mass / mass.max()) / mass  # c_k / m_k, as _LinearState.score_data
    return models, X, Y, sw, offsets, factor


def ref_linear_scores(models, X, Y, sw, offsets, factor, loss):
    """``E[k, l] = (c_k / m_k) sum_p sum_i s_i (loss(y z_i(m_l)) - loss(y z_i(m_k)))``."""
    K, n = models.shape[0], X.shape[1]
    P = Y.shape[0]
    L = np.zeros((K, K))
    for k in range(K):
        rows = slice(offsets[k], offsets[k + 1])
        for l in range(K):
            for p in range(P):
                margin = Y[p, rows] * (X[rows] @ models[l, p * n:(p + 1) * n])
                L[k, l] += np.sum(sw[rows] * loss(margin))
    return factor[:, None] * (L - np.diag(L)[:, None])


_NUMPY_LOSSES = {
    "logistic": lambda z: np.logaddexp(0.0, -z),
    "squared_hinge": lambda z: np.maximum(0.0, 1.0 - z) ** 2,
}


@pytest.mark.parametrize("name", ["logistic", "squared_hinge"])
def test_linear_pair_scores_match_numpy(name):
    from skfed._core._boosting_fast import Logistic, SquaredHinge

    loss = {"logistic": Logistic, "squared_hinge": SquaredHinge}[name]()
    models, X, Y, sw, offsets, factor = _linear_score_problem(seed=2)
    K = models.shape[0]
    rows, cols = _all_pairs(K)
    out = np.full(rows.size, -7.0)
    pair_scores(models, X, Y, sw, offsets, factor, rows, cols, out, loss)
    E = ref_linear_scores(models, X, Y, sw, offsets, factor, _NUMPY_LOSSES[name])
    np.testing.assert_allclose(out, E[rows, cols], rtol=1e-12, atol=1e-13)
    # Not Dada's log-sum-exp of the same margins: the loss matters.
    dada = np.full(rows.size, -7.0)
    pair_scores(models, X, Y, sw, offsets, factor, rows, cols, dada)
    assert np.abs(dada - out).max() > 1e-2
    # float32 data and models agree to float32 precision.
    out32 = np.full(rows.size, -7.0)
    pair_scores(models.astype(np.float32), X.astype(np.float32), Y.astype(np.float32),
                sw.astype(np.float32), offsets, factor, rows, cols, out32, loss)
    np.testing.assert_allclose(out32, out, rtol=1e-4, atol=1e-5)


def test_linear_peer_scored_steps_replay_in_numpy():
    """Graph steps with Perso-lin's lazy scores: the NumPy replay with E + E^T."""
    from skfed._core._boosting_fast import Logistic

    models, X, Y, sw, offsets, factor = _linear_score_problem(seed=5, K=9)
    K = models.shape[0]
    rng = np.random.RandomState(8)
    losses = rng.uniform(0, 0.5, size=K)
    kappa, cap, n_steps = 3, 2, 120
    kw = dict(mu=0.8, mu_graph=1.5, lam=0.5, delta=1e-2)
    E = ref_linear_scores(models, X, Y, sw, offsets, factor, _NUMPY_LOSSES["logistic"])
    S = E + E.T
    lazy = np.full(K * K, np.nan)
    out, W, *_, nodes, peers, _ = _run(
        models, losses, np.zeros((K, K)), kappa=kappa, n_steps=n_steps, max_neighbors=cap,
        pair_cost=lazy, score=(X, Y, sw, offsets, factor, Logistic()), **kw
    )
    ref, n_dropped = np.zeros((K, K)), 0
    for k, p in zip(nodes, peers):
        ref, _, _ = ref_graph_step(ref, models, losses, k, p, S=S, **kw)
        for node in [k, *p]:
            ref, dropped = ref_scored_cap(ref, models, S, node, cap, kw["mu"])
            n_dropped += dropped
    np.testing.assert_allclose(W, ref, rtol=1e-9, atol=1e-12)
    assert n_dropped > 0
    rows, cols, slots = _stored(W, K)
    assert rows.size > 0
    np.testing.assert_allclose(lazy[slots], E[rows, cols], rtol=1e-12, atol=1e-13)
    # Dada's scorer on the same arrays learns another graph.
    other = _run(models, losses, np.zeros((K, K)), kappa=kappa, n_steps=n_steps,
                 max_neighbors=cap, pair_cost=np.full(K * K, np.nan),
                 score=(X, Y, sw, offsets, factor), **kw)[1]
    assert np.abs(other - W).max() > 1e-3
