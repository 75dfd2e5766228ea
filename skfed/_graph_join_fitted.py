"""What a graph join reads of the fitted federation, on raw arrays (issue 32).

Helpers of :func:`skfed._graph_join.graph_join_nodes` and
:func:`skfed._graph_join_batch.lin_join_batched` that replace SciPy and
scikit-learn calls whose fixed cost was a large share of a small join (a
Perso-lin join on rotated moons takes a fifth of a 28 ms refit): the
fitted graph's connectivity threshold and row sums, the sums of a CSR
matrix's rows, and the join's network.  Each gives the same bits as the
call it replaces (``tests/test_graph_join_batch.py``).
"""

import numpy as np

from ._core._join_fast import forest_threshold
from .network import NetworkSimulation, resolve_network

__all__ = ["connected_threshold", "join_simulation", "row_sums"]


def row_sums(data, indptr):
    """Row sums of a CSR matrix, as SciPy's ``sum(axis=1)`` of one takes them.

    ``np.add.reduceat`` over the non-empty rows: the same bits, without a
    sparse matrix object.

    Parameters
    ----------
    data : ndarray of shape (nnz,)
    indptr : ndarray of shape (n_rows + 1,)

    Returns
    -------
    ndarray of shape (n_rows,)
    """
    out = np.zeros(len(indptr) - 1)
    nonempty = np.flatnonzero(np.diff(indptr))
    if len(nonempty):
        out[nonempty] = np.add.reduceat(data, indptr[nonempty])
    return out


def connected_threshold(W):
    """:func:`skfed.graph.connected_threshold` of a CSR graph, by Kruskal.

    Its non-zero weights are sorted once and Kruskal's forest runs in
    ``forest_threshold``: the same number (the smallest weight of a
    maximum spanning forest) for about a tenth of the CPU of SciPy's
    minimum spanning tree and the sparse conversions around it.  ``W`` is
    not modified.

    Parameters
    ----------
    W : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        Symmetric non-negative weights.

    Returns
    -------
    float
        0.0 for a graph without edges.
    """
    data = np.asarray(W.data, dtype=np.float64)
    rows = np.repeat(np.arange(W.shape[0], dtype=np.intp), np.diff(W.indptr))
    keep = np.flatnonzero(data)
    order = keep[np.argsort(-data[keep], kind="stable")]
    return forest_threshold(rows[order], np.ascontiguousarray(W.indices[order], dtype=np.intp),
                            data[order], W.shape[0])


def join_simulation(est, n_nodes, rng):
    """The join's :class:`~skfed.network.NetworkSimulation` over ``n_nodes``.

    What ``clone(network).set_params(topology=None, topology_params=None,
    random_state=rng).start(n_nodes)`` gives (a newcomer talks to whom the
    peer-sampling service draws, not over the fit's topology; the fault
    stream's seed is ``rng``'s first draw), without cloning the network
    when it has no topology to drop, nor checking a network the estimator
    created (``network=None``): the clone, its checks and its seeding were
    a tenth of a Perso-lin join's CPU on rotated moons.

    Parameters
    ----------
    est : DecentralizedBoostingClassifier or PersonalizedLinearClassifier
        The fitted estimator (its ``network``).
    n_nodes : int
        Fitted nodes and newcomers.
    rng : numpy.random.RandomState
        Seeded for the network's stream (one draw is taken).

    Returns
    -------
    NetworkSimulation
    """
    from sklearn.base import clone

    network = resolve_network(est.network)
    if network.topology is not None or network.topology_params is not None:
        network = clone(network).set_params(topology=None, topology_params=None)
    if est.network is not None:
        network._validate_params()
    seed = rng.randint(np.iinfo(np.int32).max)
    return NetworkSimulation(network, n_nodes, server=False, seed=seed)
