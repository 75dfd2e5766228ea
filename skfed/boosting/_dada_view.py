"""Dada's bounded peer view: the peers a node may sample in the graph steps.

The paper's graph steps draw ``kappa`` peers uniformly among all other
nodes through a peer-sampling service (Jelasity et al., 2007).  With the
kernel graph signal a node sends its fixed graph model once to every peer
it ever talks to, and over the fit's ``10 + max_iter / n_nodes`` graph
steps per node (about 110 at the defaults, ``kappa`` = 5 peers each, as
many again sampled by others) the distinct peers grow with the nodes up to
about 1,090: its bytes grew about linearly with the nodes below that
(review13, ``tests/test_review13_dada_bytes_vs_nodes.py``).

A *view* bounds them: before the first graph step every node gets a fixed
set of at most ``size`` peers, symmetric (``l`` is in ``k``'s view exactly
when ``k`` is in ``l``'s), drawn from public randomness derived from
``random_state`` (a generator of its own: drawing the view changes no
other stream of the fit), and each graph step samples its ``kappa``
peers uniformly among the waking node's view (eq. 5's step itself is
unchanged).  A node then sends its graph model to at most ``size`` peers, and
every learned edge lies inside the view.

* On a complete topology the view is a random circulant graph: the nodes
  in a random order, each linked to the nodes ``s`` places before and
  after it for ``size // 2`` distinct random shifts ``s`` (and to the node
  half-way round when ``size`` is odd and the nodes even), so every node
  has exactly ``size`` view peers (``size - 1`` when ``size`` and the
  nodes are both odd); it costs ``O(size n_nodes)`` to draw.
* On an explicit topology it is a random subgraph of the topology's links
  of degree at most ``size``: the links in a random order, each kept when
  both its ends still have fewer than ``size`` kept links (``O(links)``);
  then a node left with no view peer though it has links (a spoke of a
  hub of more than ``size`` links) keeps its first link in that order, over
  the other end's bound, so that no node loses every collaborator to the
  view (a star of ``K`` nodes: the hub keeps all ``K - 1`` links).
* With ``size >= n_nodes - 1`` (or a topology of degree at most ``size``)
  there is nothing to bound: the steps sample the whole topology, as
  without a view.
"""

import numpy as np
from scipy import sparse

from .._topology import _edges_to_csr
from ..graph import _GraphRunner

# Default view size of the kernel graph signal (peer_view="auto"): 200,
# chosen in benchmarks/dada_peer_view.py (its docstring has the table).
PEER_VIEW = 200

_VIEW_TAG = 0x76696577  # "view": the view's generator, apart from the fit's streams


def resolve_peer_view(peer_view, graph_signal):
    """The view size a fit uses: ``peer_view``, with ``"auto"`` resolved.

    ``"auto"`` is :data:`PEER_VIEW` with the kernel graph signal (its fixed
    models are cached per pair, so its bytes grow with the distinct peers)
    and no view with the boosting signal (re-sent models: a node's bytes do
    not depend on how many distinct peers it meets).  None: no view.
    """
    if peer_view == "auto":
        return PEER_VIEW if graph_signal == "kernel" else None
    return None if peer_view is None else int(peer_view)


def _symmetric_csr(rows, cols, n_nodes):
    """The view's ``(indptr, indices)``: the topology layer's symmetric
    pattern of the undirected edges ``(rows, cols)``."""
    both = _edges_to_csr(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
                         n_nodes)
    return (np.ascontiguousarray(both.indptr, dtype=np.intp),
            np.ascontiguousarray(both.indices, dtype=np.intp))


def peer_view(n_nodes, size, seeds, adjacency=None):
    """Every node's view, as a symmetric CSR pattern ``(indptr, indices)``.

    Parameters
    ----------
    n_nodes : int
    size : int
        Most view peers of any node (at least 1).
    seeds : sequence of int
        Public seeds of the view's generator (the fit's global seeds).
    adjacency : sparse matrix or None
        The topology's links; None for the complete topology.

    Returns
    -------
    (indptr, indices) or None
        None when no node has more than ``size`` candidates (nothing to
        bound).
    """
    K, size = int(n_nodes), int(size)
    if size < 1:
        raise ValueError(f"peer_view must be at least 1, got {size}.")
    rng = np.random.default_rng(np.r_[np.asarray(seeds, dtype=np.uint64), _VIEW_TAG])
    if adjacency is None:
        if size >= K - 1:
            return None
        # A random circulant: the nodes in a random order, position i linked
        # to positions i +- s for size // 2 distinct random shifts s in
        # [1, (K - 1) / 2], and to i + K / 2 (a perfect matching) when size
        # is odd and K even: every node gets exactly size peers (size - 1
        # when both are odd).
        order = rng.permutation(K)
        shifts = rng.choice(np.arange(1, (K - 1) // 2 + 1), size=size // 2, replace=False)
        if size % 2 and K % 2 == 0:
            shifts = np.r_[shifts, K // 2]
        position = np.arange(K)
        rows = np.tile(order, shifts.size)
        cols = order[(position[None, :] + shifts[:, None]) % K].ravel()
        return _symmetric_csr(rows, cols, K)
    upper = sparse.triu(sparse.csr_matrix(adjacency), k=1).tocoo()
    degree = np.zeros(K, dtype=np.intp)
    np.add.at(degree, upper.row, 1)
    np.add.at(degree, upper.col, 1)
    if degree.size == 0 or degree.max() <= size:
        return None
    kept = np.zeros(K, dtype=np.intp)
    rows, cols = [], []
    edges = rng.permutation(upper.nnz).tolist()
    for e in edges:
        a, b = int(upper.row[e]), int(upper.col[e])
        if kept[a] < size and kept[b] < size:
            kept[a] += 1
            kept[b] += 1
            rows.append(a)
            cols.append(b)
    # A node every one of whose links ends at a full node (the spokes of a
    # hub of more than ``size`` links) would have no view peer and no
    # collaborator: it keeps its first link in the same order, over the
    # other end's bound (the topology gives it no one else to talk to).
    for e in edges:
        a, b = int(upper.row[e]), int(upper.col[e])
        if kept[a] == 0 or kept[b] == 0:
            kept[a] += 1
            kept[b] += 1
            rows.append(a)
            cols.append(b)
    return _symmetric_csr(rows, cols, K)


def restrict_to_view(runner, view):
    """Make the graph runner sample its peers among ``view`` (a :func:`peer_view`)."""
    if view is None:
        return runner
    runner.topo_indptr, runner.topo_indices = view
    runner.complete = False
    return runner


class PeerViewMixin:
    """Dada's ``_fit_alternating`` with its graph steps inside the peer view."""

    def _fit_alternating(self, state, simulation, seeds, n_jobs_nodes, graph_runner=None):
        graph_runner = _GraphRunner if graph_runner is None else graph_runner
        K = simulation.n_nodes
        size = None
        if self.graph is None and K > 1:
            size = resolve_peer_view(self.peer_view, self.graph_signal_)
        view = None
        if size is not None:
            view = peer_view(K, size, [int(seeds[K]), int(seeds[K + 1])],
                             None if simulation.is_complete else simulation.adjacency)
        self.peer_view_ = size

        def runner(*args, **kwargs):
            return restrict_to_view(graph_runner(*args, **kwargs), view)

        return super()._fit_alternating(state, simulation, seeds, n_jobs_nodes,
                                        graph_runner=runner)
