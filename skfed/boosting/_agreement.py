"""The network steps of a Dada fit before its first boosting step.

Min/max flooding of the feature ranges over the topology, the feature vote's
ballots and the histograms counted up and down a breadth-first aggregation
tree, and the size of one Frank-Wolfe message.  Every message is counted on
the simulation's ``CommCounter``.
"""

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import breadth_first_order, connected_components

from ..network import index_bits, payload_bytes
from ._stumps import _N_BINS, _VOTE_LEVEL, significance_threshold, vote_threshold

def fw_message_bytes(n_base, n_problems=1):
    """Payload of one Frank-Wolfe update message: per problem, the coordinate
    index (``ceil(log2 n_base)`` bits) and the signed step (one float64)."""
    return payload_bytes(n_float64=n_problems, n_bits=n_problems * index_bits(n_base))


def _check_connected(adjacency):
    n_components, _ = connected_components(adjacency, directed=False)
    if n_components > 1:
        raise ValueError(
            "The network topology is disconnected: the nodes cannot agree on the "
            "feature ranges of the stumps. Use a connected topology."
        )


def _flood_extremes(lo, hi, adjacency, counter, payload):
    """Decentralized min/max flooding of per-node extremes over ``adjacency``.

    Round 1: every node sends its ``(lo, hi)`` to its topology neighbours.
    Later rounds: a node sends again only if a message improved one of its
    extremes in the previous round (flooding on change), so the flood stops
    by itself after at most ``diameter`` rounds, with no global knowledge.
    On a complete topology every node hears every other node directly in
    round 1, so no node forwards anything.  Time and memory per round are
    linear in the number of links used.

    Returns
    -------
    lo, hi : ndarray of shape (n_nodes, n_features)
        What every node holds at the end (the global extremes when the
        topology is connected).
    spent : int
        Bytes sent (headers included).
    n_rounds : int
    """
    adjacency = sparse.csr_matrix(adjacency)
    K = lo.shape[0]
    indptr, indices = adjacency.indptr, adjacency.indices.astype(np.intp)
    out_degree = np.diff(indptr)
    complete = adjacency.nnz == K * (K - 1)
    senders = np.arange(K)
    spent, n_rounds = 0, 0
    while senders.size and adjacency.nnz:
        n_rounds += 1
        for k in senders.tolist():
            if out_degree[k]:
                counter.multicast_message(k, indices[indptr[k]: indptr[k + 1]], payload)
        spent += int(out_degree[senders].sum()) * (payload + counter.header_bytes)
        if complete:
            # Each node received every other node's extremes.
            lo = np.broadcast_to(lo.min(axis=0), lo.shape).copy()
            hi = np.broadcast_to(hi.max(axis=0), hi.shape).copy()
            break
        # Column l of ``heard`` lists the senders whose message l received.
        heard = adjacency[senders].tocsc()
        cols = np.flatnonzero(np.diff(heard.indptr))
        starts = heard.indptr[cols]
        from_rows = senders[heard.indices]
        new_lo = lo.copy()
        new_hi = hi.copy()
        for f in range(lo.shape[1]):
            new_lo[cols, f] = np.minimum(
                lo[cols, f], np.minimum.reduceat(lo[from_rows, f], starts)
            )
            new_hi[cols, f] = np.maximum(
                hi[cols, f], np.maximum.reduceat(hi[from_rows, f], starts)
            )
        senders = np.flatnonzero(((new_lo < lo) | (new_hi > hi)).any(axis=1))
        lo, hi = new_lo, new_hi
    return lo, hi, spent, n_rounds


def _aggregation_tree(simulation, nodes=None):
    """A spanning tree of the topology for the setup's sums: ``(parent, order)``.

    Over every node (the topology must be connected), or over ``nodes`` only
    (those online for a round): on a complete topology, the binary heap over
    them (the i-th one's parent is the ``(i - 1) // 2``-th: depth
    ``log2 n``, no adjacency built); otherwise a breadth-first tree of the
    topology between them rooted at the first one, which leaves out those
    it cannot reach.  ``parent`` has one entry per node of the network, -1
    for the root and for nodes not in the tree; ``order`` lists the tree's
    nodes parents first.
    """
    K = simulation.n_nodes
    everyone = nodes is None
    nodes = np.arange(K, dtype=np.intp) if everyone else np.asarray(nodes, dtype=np.intp)
    parent = np.full(K, -1, dtype=np.intp)
    if nodes.size == 0:
        return parent, nodes
    if simulation.is_complete:
        parent[nodes[1:]] = nodes[(np.arange(1, nodes.size) - 1) // 2]
        return parent, nodes
    adjacency = simulation.adjacency
    if everyone:
        _check_connected(adjacency)
    else:
        adjacency = adjacency[nodes][:, nodes]
    local, pred = breadth_first_order(adjacency, 0, directed=False, return_predecessors=True)
    order = nodes[np.asarray(local, dtype=np.intp)]
    parent[order[1:]] = nodes[np.asarray(pred, dtype=np.intp)[local[1:]]]
    return parent, order


def _subtree_union(flags, parent, order):
    """``flags`` OR-ed over every node's subtree (children before parents)."""
    out = np.array(flags, dtype=bool, copy=True)
    for k in order[::-1].tolist():
        if parent[k] >= 0:
            out[parent[k]] |= out[k]
    return out


def _count_votes(ballots, varying, n_votes):
    """``(selected, votes, threshold)`` of the vote; every varying feature if none is.

    ``ballots``: every node's ranking ballot (``n_features`` columns,
    :func:`node_votes`), or both its ballots (``2 n_features + 1`` columns,
    :func:`node_ballots`).  A feature is selected when its ranking count
    reaches :func:`vote_threshold` or, with both ballots, when its
    significance count reaches :func:`significance_threshold` for the
    nodes that took part (binomial test at the nodes' level 0.05, and at
    least 1.5 times that rate of them); ``votes`` then
    holds both counts (shape ``(2, n_features)``) and ``threshold`` both
    thresholds.
    """
    d = varying.shape[0]
    ranked = ballots[:, :d]
    voters = int(ranked.any(axis=1).sum())
    votes = ranked.sum(axis=0).astype(np.int64)
    significant = n_tested = None
    if ballots.shape[1] == 2 * d + 1:
        significant = ballots[:, d:2 * d].sum(axis=0).astype(np.int64)
        n_tested = int(ballots[:, 2 * d].sum())
    selected, threshold = _selection_rule(votes, significant, voters, n_tested,
                                          varying, n_votes)
    if significant is not None:
        votes = np.vstack([votes, significant])
    if not selected.any():
        selected = varying.copy()
    return selected, votes, threshold


def _selection_rule(votes, significant, voters, n_tested, varying, n_votes):
    """``(selected, threshold)`` of the counts (no fallback when empty).

    ``votes``: the ranking counts of ``voters`` nodes; ``significant`` (or
    None, ranking ballots only): the significance counts of the
    ``n_tested`` nodes that held the test (see :func:`_count_votes`).
    Shared by the fit's vote and a join's recount of it.
    """
    n_varying = int(varying.sum())
    threshold = vote_threshold(voters, n_votes, n_varying, level=_VOTE_LEVEL)
    selected = (votes >= threshold) & varying
    if significant is None:
        return selected, threshold
    second = significance_threshold(n_tested, n_varying)
    selected |= (significant >= second) & varying & (n_tested > 0)
    return selected, np.array([threshold, second], dtype=np.int64)


def _ballot_bytes(n_nonzero, width):
    """Bytes of a ballot message of ``width`` counts, ``n_nonzero`` of them
    non-zero: with the numbers of voters and samples, the non-zero counts
    with a ``ceil(log2 width)``-bit index each, or all the counts when that
    is smaller."""
    dense = payload_bytes(n_int32=2 + width)
    return min(dense, payload_bytes(n_int32=2 + n_nonzero, n_bits=n_nonzero * index_bits(width)))


def _selection_bytes(n_selected, n_features):
    """Bytes of the selection sent back: a bit per feature, or the selected
    indices when that is smaller."""
    return payload_bytes(n_bits=min(n_features, n_selected * index_bits(n_features)))


def _vote_messages(simulation, ballots, selected, nodes=None):
    """Count the feature vote's messages up and down the aggregation tree.

    A node sends its parent the numbers of voters and of training samples
    of its subtree and the subtree's non-zero counts (an int32 and a ``ceil(log2 n_features)``-bit
    index each, or all the counts when that is smaller: ``n_features`` of the
    ranking ballots, ``2 n_features + 1`` with the significance ballots and
    the number of nodes that held the test, :func:`node_ballots`); the
    parent sends the selection back (a bit per feature, or the selected
    indices when that is smaller).  Only the messages sent by ``nodes`` are
    counted (all by default); returns the bytes of all the messages.
    """
    K, d = ballots.shape
    if K < 2:
        return 0
    parent, order = _aggregation_tree(simulation)
    n_counted = _subtree_union(ballots, parent, order).sum(axis=1)
    down = _selection_bytes(int(selected.sum()), selected.shape[0])
    up = [_ballot_bytes(m, d) for m in n_counted.tolist()]
    return _tree_round_trip(simulation, up, down, nodes=nodes, tree=(parent, order))


def _size_median_messages(simulation, sizes, nodes=None):
    """Count the agreement on the median node size (who votes, :func:`vote_eligible`).

    Up the aggregation tree each node sends its subtree's size histogram,
    a pair of int32 (size, number of nodes) per distinct size; the root
    sends the median back down (one float64).  Only the messages sent by
    ``nodes`` are counted (all by default); returns the bytes of all the
    messages.
    """
    K = simulation.n_nodes
    if K < 2:
        return 0
    parent, order = _aggregation_tree(simulation)
    subtree = [{int(s)} for s in np.asarray(sizes).tolist()]
    for k in order[::-1].tolist():
        if parent[k] >= 0:
            subtree[parent[k]] |= subtree[k]
    down = payload_bytes(n_float64=1)
    up = [payload_bytes(n_int32=2 * len(sub)) for sub in subtree]
    return _tree_round_trip(simulation, up, down, nodes=nodes, tree=(parent, order))


def _tree_round_trip(simulation, up, down, nodes=None, tree=None):
    """Count one convergecast (``up`` bytes per child) and broadcast (``down``).

    Every non-root node ``k`` of the aggregation tree sends ``up`` payload
    bytes (a number, or ``up[k]`` per node) to its parent, and its parent
    sends it ``down``; only the messages sent by ``nodes`` are counted (all
    by default).  ``tree`` is the ``(parent, order)`` of
    :func:`_aggregation_tree` when the caller has it.  Returns the bytes of
    all the messages (headers included).
    """
    K = simulation.n_nodes
    if K < 2:
        return 0
    parent, order = _aggregation_tree(simulation) if tree is None else tree
    up = np.broadcast_to(np.asarray(up, dtype=np.int64), (K,))
    mine = None if nodes is None else set(np.asarray(nodes).tolist())
    counter = simulation.counter
    for k in order.tolist():
        p = int(parent[k])
        if p >= 0:
            if mine is None or k in mine:
                counter.send_message(k, p, int(up[k]))
            if mine is None or p in mine:
                counter.send_message(p, k, down)
    return int(up[parent >= 0].sum()) + (K - 1) * (down + 2 * counter.header_bytes)


def agree_on_histogram(Xs, sws, n_nodes, simulation, lo, hi, features, n_estimators):
    """Pooled per-feature histograms by a convergecast and broadcast.

    Every node bins its positively weighted samples into ``_N_BINS``
    equal bins per feature over the agreed range, for the stumps'
    ``features`` (a mask), counting each with its sample weight; the
    counts are summed up the aggregation tree
    (:func:`_aggregation_tree`: each node sends its subtree's
    ``n_stump_features * _N_BINS`` counts to its parent, int32 when every
    weight is a whole number, else float64), and the
    root sends the resulting thresholds back down the tree
    (``n_estimators`` values per node, the number of stumps).  Returns
    the histogram (rows of the other features are zero) and the bytes
    spent.
    """
    keep = sws > 0
    # Counts weighted by the sample weights (a weight of 2 is a
    # duplicated sample; the unweighted counts when all are 1).
    weights = np.asarray(sws[keep], dtype=np.float64)
    integral = bool(np.all(weights == np.round(weights)))
    width = np.where(hi > lo, hi - lo, 1.0)
    bins = np.clip(((Xs[keep] - lo) / width * _N_BINS).astype(np.intp), 0, _N_BINS - 1)
    n_features = Xs.shape[1]
    histogram = np.zeros((n_features, _N_BINS))
    for f in np.flatnonzero(features).tolist():
        histogram[f] = np.bincount(bins[:, f], weights=weights, minlength=_N_BINS)
    spent = 0
    if n_nodes > 1:
        n_counts = int(np.count_nonzero(features)) * _N_BINS
        # Weighted counts: int32 while every weight is a whole number.
        up = payload_bytes(**{("n_int32" if integral else "n_float64"): n_counts})
        down = payload_bytes(
            **{("n_float32" if Xs.dtype == np.float32 else "n_float64"): n_estimators}
        )
        spent = _tree_round_trip(simulation, up, down)
    return histogram, spent
