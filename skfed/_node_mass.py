"""The federation's node masses, agreed in counted messages (mass33).

Every node's confidence in a Dada or Perso-lin fit is ``c_k = m_k / max_l
m_l``: its mass over the largest node mass of the federation, which no node
knows alone.  The join's rules also read the fitted nodes' mean mass (which
newcomers sample each other) and, for Perso-lin, their median and smallest
mass (the light newcomer's certified solve, the whole row of one lighter
than every fitted node).  :func:`agree_on_masses` is the fit's exchange of
them, before its first step, over the aggregation tree of the setup
(:func:`skfed.boosting._agreement._aggregation_tree`: a binary heap on a
complete topology, a breadth-first tree of the topology otherwise):

- up: every non-root node sends its parent what its subtree needs.  Dada
  keeps the largest mass and the sum (two float64; the subtree's node count
  is the public tree's); Perso-lin the subtree's masses themselves (a
  median needs them all: ``size(subtree)`` float64);
- down: the root sends the summary back (:data:`SUMMARY_FLOATS` float64:
  largest and mean mass, then Perso-lin's median and smallest).

So the fit spends ``(K - 1) (2 header + 16 + 8 s)`` bytes (Dada, ``s = 2``)
or ``(K - 1) (2 header + 8 s) + 8 sum_j depth_j`` (Perso-lin, ``s = 4``:
node j's mass travels up its ``depth_j`` tree edges; on the heap ``depth_j =
floor(log2(j + 1))``).
As the setup's other exchanges (feature ranges, vote), it is reliable: a
dropped node sends its part when it is next online and its parent waits,
so drops delay the exchange but change neither its bytes nor its result.
A disconnected topology cannot agree on the largest mass: it is refused.
The MPI engines agree on the masses with an allgather of every rank's
nodes' masses (``_mpi_graph_fit._prepare``) and count this same tree, each
rank its own nodes' messages.

A newcomer of ``add_nodes`` receives the summary with its first answer
(:func:`summary_bytes`: ``8 s`` bytes more on one answer; the posterior,
shared and feature-mean joins send the largest mass alone, 8 bytes).  The
graph join's heavy-newcomer rule reads the mean over the fitted nodes and
the earlier newcomers: before a join that follows others, each earlier
newcomer sends its mass to fitted node 0, which sends the new mean to every
other node (:func:`skfed._graph_join_fitted.share_joined_masses`).  A
rogue node may lie about its mass or, as a newcomer's first answerer, about
the summary; the simulation keeps the honest values (its corruption model
covers models and losses only), so rogue networks fit as before.  What a
lie would do: a claimed largest mass ``M`` above the true one divides every
confidence by ``M / max m`` (each node's data term weighs less against the
graph's smoothing, as if every node held fewer samples); a smaller one is
capped (``c_k <= 1``, a newcomer's at ``NEWCOMER_CONFIDENCE_CAP``).  No cheap
bound is enforced: a node can only check that the largest mass is at least
its own.
"""

import numpy as np
from scipy.sparse.csgraph import connected_components

from .network import payload_bytes

# Floats of the summary the root sends back and a newcomer receives.
SUMMARY_FLOATS = {"dada": 2, "persolin": 4}


def mass_summary(mass, kind):
    """The summary the root sends back: ``(max, mean)`` masses, and for
    Perso-lin also ``(median, min)``.

    >>> mass_summary(np.array([2.0, 4.0, 9.0]), "persolin").tolist()
    [9.0, 5.0, 4.0, 2.0]
    """
    mass = np.asarray(mass, dtype=np.float64)
    values = [mass.max(), mass.mean()]
    if kind == "persolin":
        values += [np.median(mass), mass.min()]
    return np.array(values)


def mass_kind(estimator):
    """``"dada"`` (a boosting estimator) or ``"persolin"``."""
    return "dada" if hasattr(estimator, "n_estimators") else "persolin"


def summary_bytes(kind):
    """Payload bytes of the summary a newcomer receives with its first answer."""
    return payload_bytes(n_float64=SUMMARY_FLOATS[kind])


def agree_on_masses(simulation, kind, nodes=None):
    """Count the fit's mass exchange on ``simulation.counter``; return its bytes.

    Parameters
    ----------
    simulation : skfed.network._Simulation
        The fit's simulated network (its topology and counter).
    kind : {"dada", "persolin"}
    nodes : ndarray of int, default=None
        Count only the messages these nodes send (an MPI rank's own nodes:
        the ranks' counters add up to the simulation's); all by default.

    Returns
    -------
    int
        Bytes sent, headers included (the values do not change them: the
        fit's state keeps ``max_mass``, its confidences the rest).
    """
    from .boosting._agreement import _aggregation_tree, _tree_round_trip

    K = simulation.n_nodes
    if K < 2:
        return 0
    if not simulation.is_complete:
        n_components, _ = connected_components(simulation.adjacency, directed=False)
        if n_components > 1:
            raise ValueError(
                "The network topology is disconnected: the nodes cannot agree on the "
                "largest node mass (every confidence c_k = m_k / max_l m_l needs it). "
                "Use a connected network.topology."
            )
    parent, order = _aggregation_tree(simulation)
    down = summary_bytes(kind)
    if kind == "dada":
        up = payload_bytes(n_float64=2)
    else:
        size = np.ones(K, dtype=np.int64)
        for k in order[::-1].tolist():
            if parent[k] >= 0:
                size[parent[k]] += size[k]
        up = size * payload_bytes(n_float64=1)
    return _tree_round_trip(simulation, up, down, nodes=nodes, tree=(parent, order))
