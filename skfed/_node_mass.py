"""The federation's node masses, agreed in counted messages (mass33, rogue34).

Every node's confidence in a Dada or Perso-lin fit is ``c_k = min(m_k / M,
1)``: its mass over the federation's largest node mass ``M``, which no node
knows alone, bounded against liars (below).  The join's rules also read
the fitted nodes' mean mass (which newcomers sample each other) and, for
Perso-lin, their median and smallest mass (the light newcomer's certified
solve, the whole row of one lighter than every fitted node).
:func:`agree_on_masses` is the fit's exchange of them, before its first
step, over the aggregation tree of the setup
(:func:`skfed.boosting._agreement._aggregation_tree`: a binary heap on a
complete topology, a breadth-first tree of the topology otherwise):

- up: every non-root node sends its parent its subtree's masses (the
  root's median needs them all: ``size(subtree)`` float64);
- down: the root sends the summary back (:data:`SUMMARY_FLOATS` float64:
  the agreed largest mass ``M`` and the mean mass, then Perso-lin's median
  and smallest).

So the fit spends ``(K - 1) (2 header + 8 s) + 8 sum_j depth_j`` bytes
(Dada ``s = 2``, Perso-lin ``s = 4``: node j's mass travels up its
``depth_j`` tree edges; on the heap ``depth_j = floor(log2(j + 1))``).
As the setup's other exchanges (feature ranges, vote), it is reliable: a
dropped node sends its part when it is next online and its parent waits,
so drops delay the exchange but change neither its bytes nor its result.
A disconnected topology cannot agree on the largest mass: it is refused.
The MPI engines agree on the masses with an allgather of every rank's
nodes' masses (``_mpi_graph_fit._prepare``), take the same ``M``
(:func:`node_scale`) and count this same tree, each rank its own nodes'
messages.

A newcomer of ``add_nodes`` receives the summary with its first answer
(:func:`summary_bytes`: ``8 s`` bytes more on one answer; the posterior,
shared and feature-mean joins send ``M`` alone, 8 bytes) and takes
``min(m / M, NEWCOMER_CONFIDENCE_CAP)``.  The graph join's heavy-newcomer
rule reads the mean over the fitted nodes and the earlier newcomers:
before a join that follows others, each earlier newcomer sends its mass to
fitted node 0, which sends the new mean to every other node
(:func:`skfed._graph_join_fitted.share_joined_masses`).

**Liars** (rogue34).  A rogue node may report any mass.  With ``M`` the
plain largest reported mass, one node claiming ``1e6`` times the true
largest divided every honest confidence by ``1e6``: each node's data term
vanished against the graph's smoothing.  Measured with 10 % liars
(``benchmarks/rogue34_mass_liar.py``, its docstring has every row): Dada's
fit on Landmine fell from 94.6-94.7 % to 5.5-54 % (seeds 0-2), on rotated
moons from 62-83 % to 43-50 %; Perso-lin's newcomers on moons from 58-61 %
to 51-52 %.  The root therefore takes ``M = min(max, MASS_CLIP x median)``
of the reported masses (:func:`agreed_max_mass`): with fewer than half the
nodes lying the median lies within the honest masses' range, so a liar
can shrink every honest confidence by at most ``MASS_CLIP x median / max``
(a factor ``MASS_CLIP`` at worst), whatever it reports; a node heavier
than ``M`` (an honest one, or a liar) has confidence 1, and the joins'
readings ``confidence_ x M`` are then ``min(m_k, M)`` (their median and
smallest mass unchanged, their mean that of the capped masses).  ``MASS_CLIP = 4``
was chosen on seeds 0-2: the smallest value that leaves every measured
honest federation's largest mass under it (Landmine 1.4, HAR 1.1, rotated
moons 1.5-1.9, School 2.4, related-* 1.0 times the median), so those fit
and join as before to the bit; at 4 the liars' worst case cost at most
2.3 points on seeds 0-2 (Perso-lin's moons newcomers; at 8, 5.1).  On
federations of unequal nodes (held out: Landmine and related-clustered
nodes subsampled to 5-10 times the median) the bound also applies to
honest heavy nodes (their confidence is 1): the fit and join moved by
-0.9 to +1.7 points there, no loss on average (see the benchmark).  The
bound costs the root's median its inputs: Dada's nodes now send their
subtree's masses up, as Perso-lin's did (``8 sum_j depth_j`` bytes
instead of ``16 (K - 1)``; Landmine's 23 nodes: 1,584 B instead of 1,408,
about 0.06 % of the fit).  The simulation itself keeps the honest values
(its corruption model covers models and losses only); the benchmark's and
the tests' liars wrap :func:`agreed_max_mass`.  A rogue first answerer
could still lie about the summary to one newcomer (its confidence only).
"""

import numpy as np
from scipy.sparse.csgraph import connected_components

from .network import payload_bytes

# The agreed largest mass is at most MASS_CLIP times the median reported
# mass (a liar's bound; see the module).
MASS_CLIP = 4.0
# Floats of the summary the root sends back and a newcomer receives.
SUMMARY_FLOATS = {"dada": 2, "persolin": 4}
# The largest mass alone, what the posterior, shared and feature-mean joins
# send a newcomer with its first answer.
MAX_MASS_BYTES = payload_bytes(n_float64=1)


def agreed_max_mass(mass):
    """The confidences' scale ``M`` the root computes from the reported masses:
    the largest, at most ``MASS_CLIP`` times their median (see the module).

    >>> agreed_max_mass(np.array([2.0, 4.0, 9.0]))
    9.0
    >>> agreed_max_mass(np.array([2.0, 4.0, 9.0, 1e9, 5.0]))   # a liar: 4 x 5
    20.0
    """
    mass = np.asarray(mass, dtype=np.float64)
    return float(min(np.nanmax(mass), MASS_CLIP * np.nanmedian(mass)))  # a NaN report: none


def node_scale(mass):
    """``(confidences, max_mass)``: ``c_k = min(m_k / M, 1)`` with ``M`` the
    :func:`agreed_max_mass` of ``mass``; ``m_k / max_l m_l`` to the bit when
    no mass is above the bound.

    >>> c, M = node_scale(np.array([1.0, 2.0, 4.0, 100.0]))
    >>> c.tolist(), M
    ([0.0833..., 0.1666..., 0.3333..., 1.0], 12.0)
    """
    mass = np.asarray(mass, dtype=np.float64)
    M = agreed_max_mass(mass)
    return np.minimum(mass / M, 1.0), M


def mass_summary(mass, kind):
    """The summary the root sends back: ``(max, mean)`` masses (the max is
    :func:`agreed_max_mass`), and for Perso-lin also ``(median, min)``.

    >>> mass_summary(np.array([2.0, 4.0, 9.0]), "persolin").tolist()
    [9.0, 5.0, 4.0, 2.0]
    """
    mass = np.asarray(mass, dtype=np.float64)
    values = [agreed_max_mass(mass), mass.mean()]
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
    # every subtree's masses (the root's median needs them all)
    size = np.ones(K, dtype=np.int64)
    for k in order[::-1].tolist():
        if parent[k] >= 0:
            size[parent[k]] += size[k]
    up = size * payload_bytes(n_float64=1)
    return _tree_round_trip(simulation, up, down, nodes=nodes, tree=(parent, order))
