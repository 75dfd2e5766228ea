"""``network_share="auto"`` of the online kernel regressor over MPI ranks.

The simulation's step (:mod:`skfed.online._share`) after the coupling is
chosen: the chosen candidate's network function, every share scored on the
held-out rows, the sums up the weak graph's spanning tree.  Here every rank
sends its nodes' candidate functions (and published copies, which the
network round's byte count reads) to the root (``"network_share"`` in
``mpi_traffic_``), the root runs the network round with the ranks' solve
sums (``_SolveExchange``, as a fit ends) and sends the network function
back, every rank scores its own nodes' held-out rows and one allreduce sums
the per-node losses; the counted rounds are the simulation's (the network
round's log on the root, the share round's messages counted by the rank of
every sender and summed on the root).
"""

import numpy as np

from ..online._coupling import _collapsed
from ..online._selection import tree_parents
from ..online._share import node_spread
from ._mpi_boosting import _merge_counts

TAG_SHARE = 24
_FUNCTION = ("network_dictionary_", "network_coef_", "network_gamma_", "network_component_",
             "network_excluded_")


def select_share(est, cand, weak_adjacency, peer, block, samples, held_rows):
    """Choose ``est.network_share_`` with the chosen candidate ``cand``
    (fitted on ``samples``, this rank's training rows ``X, y, codes,
    sample_weight``) scored on ``held_rows`` (the held-out ones); on the
    root, append the two rounds to ``est``'s log."""
    from ._mpi_online import _serve_solve, _SolveExchange

    shares = est._share_grid()
    K = len(est.nodes_)
    mine = block.mine
    weights = cand._avg_weights if cand.average > 0 else cand._weights
    state = (mine, [cand._points[k, :cand._sizes[k]] for k in mine],
             [weights[k, :cand._sizes[k]] for k in mine],
             [cand._pub_points[k, :cand._pub_sizes[k]] for k in mine])
    gathered = peer.collect("network_share", state)
    root = peer.root
    net_log = None
    if gathered is None:
        _serve_solve(cand, peer, samples)
        function = peer.recv(root, TAG_SHARE, what="the network function")[1]
    else:
        dictionaries, coefs = [None] * K, [None] * K
        n_features = cand._points.shape[2]
        pub = [np.zeros((0, n_features), dtype=cand._dtype)] * K
        for nodes, points, dual, published in gathered:
            for k, D, W, P in zip(nodes, points, dual, published):
                dictionaries[k], coefs[k], pub[k] = D, W, P
        cand.dictionaries_ = dictionaries
        cand.dual_coef_ = coefs
        capacity = max(1, max(len(P) for P in pub))
        cand._pub_points = np.zeros((K, capacity, n_features), dtype=cand._dtype)
        cand._pub_sizes = np.array([len(P) for P in pub], dtype=np.intp)
        for k, P in enumerate(pub):
            cand._pub_points[k, :len(P)] = P
        lost = np.flatnonzero(np.isin(block.owner, sorted(peer.dead)))
        solve = _SolveExchange(cand, peer, samples)
        net_log = cand._build_network_function(lost=lost, solve=True, node_sums=solve)
        solve.finish()
        function = tuple(getattr(cand, name) for name in _FUNCTION)
        for r in peer.live_others():
            peer.send(r, TAG_SHARE, "network_share", function)
        peer.flush()
    for name, value in zip(_FUNCTION, function):
        setattr(cand, name, value)
    # (every node's spread of its training targets: its own rank's rows)
    spread = node_spread(samples[1], samples[2], K, samples[3])
    X, y, codes, sample_weight = held_rows
    errors = est._share_errors(cand, X, y, codes, sample_weight, shares, spread)
    reporting = ~np.isnan(errors[0])
    total = peer.allreduce_sum("network_share", np.vstack([
        np.where(np.isnan(errors), 0.0, errors), reporting[None].astype(np.float64)]))
    reporting = total[-1] > 0
    est._adopt_share(shares, np.where(reporting[None], total[:-1], np.nan))
    counter = est._tree_counter()
    est._count_share_round(counter, tree_parents(weak_adjacency), len(shares), senders=mine)
    snaps = peer.collect("network_share", counter.snapshot(dense=False))
    est._consensus_curve = np.concatenate([est._consensus_curve, [np.nan, np.nan]])
    est._order_curve = np.concatenate([est._order_curve, np.zeros((2, K), dtype=np.intp)])
    if snaps is not None:
        share_log = _merge_counts(snaps, est.nodes_)
        log = est._log.combine(_collapsed(net_log)).combine(share_log)
        est._log = log
        est.communication_ = log
