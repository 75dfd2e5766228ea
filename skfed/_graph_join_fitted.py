"""What a graph join reads of the fitted federation, on raw arrays (issue 32).

Helpers of :func:`skfed._graph_join.graph_join_nodes` and
:func:`skfed._graph_join_batch.lin_join_batched` that replace SciPy and
scikit-learn calls whose fixed cost was a large share of a small join (a
Perso-lin join on rotated moons takes a fifth of a 28 ms refit): the
fitted graph's connectivity threshold and row sums, the sums of a CSR
matrix's rows, and the join's network.  Each gives the same bits as the
call it replaces (``tests/test_graph_join_batch.py``).
"""

import threading

import numpy as np
from scipy import sparse

from ._core._join_fast import forest_threshold
from .network import NetworkSimulation, payload_bytes, resolve_network

__all__ = ["NEWCOMER_CONFIDENCE_CAP", "connected_threshold", "csr_of_pairs",
           "join_random_state", "join_simulation", "join_rogue", "newcomer_confidence",
           "rogue_sent",
           "row_sums"]


# A newcomer's confidence is its mass over the fit's largest node mass, at
# most this.  The paper (Zantedeschi et al. 2020, section 2) takes c_k
# proportional to m_k, so ``np.inf`` (c = m / m_max at the fit's scale) is
# its reading for a node heavier than every fitted one; 1 (a refit's value
# for the newcomer's own block) is kept: on a heavy newcomer unlike the
# federation inf wins up to 26 points, but on many small alike nodes
# (related-small, k = 20) it loses 0.4-0.5 and on moons Dada 0.23, a
# held-out loss (benchmarks/joinfix18_newcomer_confidence.py).
NEWCOMER_CONFIDENCE_CAP = 1.0


def newcomer_confidence(mass, max_mass):
    """``min(mass / max_mass, NEWCOMER_CONFIDENCE_CAP)`` (array or float):
    the newcomers' confidences at the fit's scale ``max_mass``."""
    return np.minimum(mass / max_mass, NEWCOMER_CONFIDENCE_CAP)


def first_answer_bytes(n_ok, estimator):
    """Extra payload on the answers of one query round (row-major, as
    ``cand[ok]``): the first answer of every newcomer that got one carries
    the fit's mass summary (:func:`skfed._node_mass.summary_bytes`; the
    newcomer reads its confidence ``m_n / max_mass`` and the join's light
    and heavy thresholds from it).  A newcomer gets its first answers in one
    round only: it stops asking once one came.

    >>> from skfed import PersonalizedLinearClassifier
    >>> first_answer_bytes(np.array([2, 0, 1]), PersonalizedLinearClassifier()).tolist()
    [32, 0, 32]
    """
    from ._node_mass import mass_kind, summary_bytes

    n_ok = np.asarray(n_ok, dtype=np.int64)
    extra = np.zeros(int(n_ok.sum()), dtype=np.int64)
    extra[(np.cumsum(n_ok) - n_ok)[n_ok > 0]] = summary_bytes(mass_kind(estimator))
    return extra


def share_joined_masses(sim, n_fit, n_old):
    """Before a join that follows others: the mean mass over every node.

    The heavy-newcomer rule compares a newcomer with the mean mass of the
    ``n_old`` nodes, earlier newcomers included, which the fit's summary
    (:mod:`skfed._node_mass`) does not hold.  So each earlier newcomer sends
    its mass to fitted node 0 (the root of the fit's exchange, which holds
    the fitted nodes' sum), and node 0 sends the new mean to every other
    node, whichever answers a newcomer first: one round of ``(n_old -
    n_fit) + (n_old - 1)`` messages of one float64, reliable as the fit's
    exchange (no draw).  Nothing before a first join (``n_old == n_fit``).

    >>> from skfed import SimulatedNetwork
    >>> sim = SimulatedNetwork().start(5)
    >>> share_joined_masses(sim, 3, 5), sim.log().total_messages
    (144, 6)
    """
    if n_old <= n_fit:
        return 0
    one = payload_bytes(n_float64=1)
    late = np.arange(n_fit, n_old, dtype=np.intp)
    others = np.arange(1, n_old, dtype=np.intp)
    sim.counter.send_pairs(late, np.zeros(len(late), np.intp), np.full(len(late), one, np.int64))
    sim.counter.send_pairs(np.zeros(len(others), np.intp), others,
                           np.full(len(others), one, np.int64))
    sim.counter.next_round()
    return int(len(late) + len(others)) * (one + sim.counter.header_bytes)


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


def join_rogue(network, rogue_old, n_new, seed):
    """The rogue flags of a join's nodes: the fitted ones' kept, then each
    newcomer's drawn (the fit's fault model).

    Each newcomer is rogue with probability ``network.rogue_fraction``,
    drawn from its own public stream (``RandomState(seed)``) so that no
    other draw of the join moves, and nothing is drawn without rogue nodes.
    (The fit makes ``round(rogue_fraction n_nodes)`` nodes rogue; a join of
    one or a few nodes cannot round, so each newcomer draws alone, as the
    online family's newcomers do.)

    Parameters
    ----------
    network : SimulatedNetwork
    rogue_old : ndarray of shape (n_old,), dtype=bool
    n_new : int
    seed : int or sequence of int

    Returns
    -------
    ndarray of shape (n_old + n_new,), dtype=bool
    """
    fraction = float(network.rogue_fraction)
    new = (np.random.RandomState(seed).uniform(size=n_new) < fraction if fraction > 0.0
           else np.zeros(n_new, dtype=bool))
    return np.concatenate([np.asarray(rogue_old, dtype=bool), new])


def rogue_sent(sim, first, values):
    """What nodes ``first, first + 1, ...`` send of ``values`` (one row each):
    a rogue node's row corrupted (``sim.corrupt_value_rows``); ``values``
    itself when none of them is rogue."""
    nodes = first + np.arange(len(values))
    return sim.corrupt_value_rows(values, nodes) if sim.rogue[nodes].any() else values


def csr_of_pairs(data, rows, cols, n):
    """``csr_matrix((data, (rows, cols)), shape=(n, n))`` for distinct pairs.

    The same arrays as SciPy's COO conversion (indices sorted in each row),
    by one sort of the pairs' keys instead of SciPy's conversion and
    duplicate pass (a third of the time); repeated pairs, which SciPy sums,
    go through SciPy.
    """
    keys = rows.astype(np.int64) * n + cols
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    if len(keys) > 1 and not (keys[1:] > keys[:-1]).all():
        return sparse.csr_matrix((data, (rows, cols)), shape=(n, n))
    indptr = np.zeros(n + 1, dtype=np.intp)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return sparse.csr_matrix((data[order], cols[order], indptr), shape=(n, n))


_THREAD = threading.local()


def join_random_state(seed):
    """This thread's join RandomState, seeded with ``seed``.

    The same draws as ``np.random.RandomState(seed)`` (``seed`` resets the
    whole state), without constructing a generator per join (about 0.2 ms:
    a tenth of a small join).  Joins run one at a time in a thread and keep
    no reference to it.
    """
    rng = getattr(_THREAD, "rng", None)
    if rng is None:
        rng = _THREAD.rng = np.random.RandomState()
    rng.seed(seed)
    return rng
