"""The two federation means a newcomer sizes its join by, and how they travel.

A node that joins the online learners (:meth:`add_nodes`, or ``partial_fit``
with a new node id) spends at most ``_JOIN_BUDGET`` times the mean bytes a
node sent in the fit's stream on its candidates and neighbours, each priced
at the mean dictionary size (:func:`join_sizes`).  Neither mean is known to
any one node; they reach a newcomer in counted messages only:

1. **Fit.**  Every network-function round (the end of ``fit``, and each
   refresh of a stream's ``partial_fit``) sums up the spanning tree rooted
   at node 0 (:mod:`._network_function`, step 2): every up message of that
   tree also carries its subtree's sum of dictionary sizes and of bytes
   sent in the stream so far (``communication_``), two float64
   (:data:`TREE_SUMS_BYTES`), under the round's drops like the rest of the
   message.  Node 0 then holds both sums and the tree's node count
   (:func:`held_sums`); the trees of other components carry nothing (their
   roots are not asked).  So a topology of several components sizes joins
   by node 0's component.
2. **Later joins.**  The nodes that joined since the last such round
   (earlier newcomers: their sizes are in no sum) each send node 0 their
   dictionary size and stream bytes (two float64, one message each) before
   a join reads the means (:func:`report_late`); reliable, as the fit's
   setup exchanges (no drop draw).  Node 0 keeps them: a later join hears
   a newcomer again only if its values changed since it reported.  A stream's fitted nodes that stepped
   since the last round are counted as of that round.
3. **Join.**  Node 0 sends every newcomer the two means
   (:data:`JOIN_MEANS_BYTES`, in step 1's first round), and every newcomer
   sizes its own candidates and neighbours from them and from the number
   of its own samples that judge the candidates (no other newcomer's).

With a connected topology, a join after ``fit`` reads the same means as
before these messages were modelled (the stream's bytes and every node's
dictionary size at the join), so its models are unchanged; a newcomer's
own sample count changes its sizes only where the newcomers of one call
hold different numbers of samples below ``_JOIN_QUERY_SAMPLES``.
"""

import numpy as np

from ..network import float_bytes, payload_bytes, resolve_network
from ._join_steps import _rows_bytes

__all__ = ["JOIN_MEANS_BYTES", "TREE_SUMS_BYTES", "held_sums", "join_sizes", "report_late"]

# Node 0 sends a newcomer the mean dictionary size and the mean bytes sent.
JOIN_MEANS_BYTES = payload_bytes(n_float64=2)
# An up message of node 0's tree carries its subtree's two sums; an earlier
# newcomer reports its own two values.
TREE_SUMS_BYTES = payload_bytes(n_float64=2)


def stream_bytes(est, n_nodes):
    """Bytes every one of the first ``n_nodes`` nodes sent in the stream
    (``communication_``) so far: zeros before any."""
    log = getattr(est, "communication_", None)
    out = np.zeros(n_nodes)
    if log is not None:
        sent = np.asarray(log.bytes_sent, dtype=np.float64)[:n_nodes]
        out[:len(sent)] = sent
    return out


def held_sums(est, component):
    """What node 0 holds after a network-function round: ``(n_nodes, the
    number of nodes in its tree, their summed dictionary sizes, their
    summed stream bytes)`` (``component``: every node's component).

    The round's sums replace what node 0 kept of earlier newcomers' reports
    (``_join_late``): after a refit those belong to another federation,
    even where its sums come out equal."""
    est.__dict__.pop("_join_late", None)
    n = len(component)
    tree = np.flatnonzero(component == component[0]) if n else np.zeros(0, dtype=np.intp)
    sizes = np.asarray(est._sizes[:n], dtype=np.float64)
    return (n, len(tree), float(sizes[tree].sum()),
            float(stream_bytes(est, n)[tree].sum()))


def report_late(est, sim, n_old):
    """Step 2: the nodes that joined since node 0's sums send it their two
    values; returns ``(n_counted, size_sum, bytes_sum)`` node 0 then holds,
    or None when it holds nothing (fitted before these sums existed).

    Node 0 keeps what each reported (``_join_late``, until the next round's
    sums replace them): a newcomer reports once, and again only when its
    values changed since (it stepped in a ``partial_fit`` without a round).
    """
    held = getattr(est, "_join_sums", None)
    if held is None:
        return None
    n_covered, n_tree, size_sum, bytes_sum = held
    late = np.arange(n_covered, n_old, dtype=np.intp)
    if len(late):
        sizes = np.asarray(est._sizes[late], dtype=np.float64)
        sent = stream_bytes(est, n_old)[late]
        reported = getattr(est, "_join_late", None)
        changed = np.ones(len(late), dtype=bool)
        if reported is not None and reported[0] == held:
            m = min(len(reported[1]), len(late))
            changed[:m] = (sizes[:m] != reported[1][:m]) | (sent[:m] != reported[2][:m])
        reporting = late[changed]
        sim.counter.send_pairs(reporting, np.zeros(len(reporting), np.intp),
                               np.full(len(reporting), TREE_SUMS_BYTES, np.int64))
        est._join_late = (held, sizes, sent)
        size_sum += float(sizes.sum())
        bytes_sum += float(sent.sum())
    return n_tree + len(late), size_sum, bytes_sum


def join_sizes(est, X_new, new_codes, degree, n_old, sim, n_most, budget_fraction,
               query_samples):
    """``(n_candidates, n_neighbours)``, one each per newcomer, within its budget.

    The budget is ``budget_fraction`` times the mean bytes a node sent in
    the stream (over what node 0 holds, module docstring).  A candidate
    costs the cheaper of a query (the newcomer's first ``query_samples``
    samples out, their values back) and a mean dictionary, a neighbour a
    mean dictionary.  Candidates come first (between ``degree`` and
    ``n_most``, keeping room for one neighbour); then as many neighbours as
    the rest allows, between 1 and ``degree``.  Without a stream that sent
    anything, or an infinite budget, the most of both (nothing is sent).
    """
    n_new = int(new_codes.max()) + 1 if len(new_codes) else 0
    most = (np.full(n_new, n_most, dtype=np.intp), np.full(n_new, degree, dtype=np.intp))
    if n_old == 0 or not np.isfinite(budget_fraction):
        return most
    held = report_late(est, sim, n_old)
    if held is None or held[2] == 0:
        return most
    n_counted, size_sum, bytes_sum = held
    sim.counter.send_pairs(np.zeros(n_new, np.intp), np.arange(n_old, n_old + n_new, dtype=np.intp),
                           np.full(n_new, JOIN_MEANS_BYTES, np.int64))
    b = float_bytes(est._dtype)
    header = resolve_network(est.network).header_bytes
    n_features, n_out = X_new.shape[1], est._n_outputs
    dictionary = header + _rows_bytes(size_sum / n_counted, n_features, n_out, b)
    # Each newcomer's own number of judging samples.
    counts = np.minimum(np.bincount(new_codes, minlength=n_new), query_samples)
    query = 2 * header + _rows_bytes(counts.astype(np.float64), n_features, n_out, b)
    budget = budget_fraction * bytes_sum / n_counted
    candidate = np.minimum(query, dictionary)
    n_candidates = np.clip((budget - dictionary) // candidate, min(degree, n_most),
                           n_most).astype(np.intp)
    n_neighbours = np.clip((budget - n_candidates * candidate) // dictionary, 1,
                           degree).astype(np.intp)
    return n_candidates, n_neighbours
