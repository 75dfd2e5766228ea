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

in one of two ways (massring36), chosen from the tree alone:

- **gather**, while the tree's depths average at most
  :data:`GATHER_DEPTH` (9 for Dada, 48 for Perso-lin; the complete
  topology's heap: Dada up to 2,000 nodes, Perso-lin always): up, every non-root
  node sends its parent its subtree's masses (``size(subtree)`` float64);
  down, the root sends the summary back (:data:`SUMMARY_FLOATS` float64:
  the agreed largest mass ``M`` and the mean mass, then Perso-lin's median
  and smallest confidence).  ``(K - 1) (2 h + 8 s) + 8 sum_j depth_j``
  bytes (``h`` the header, 16; Dada ``s = 2``, Perso-lin ``s = 4``; on the
  heap ``depth_j = floor(log2(j + 1))``, on a ring ``min(j, K - j)``, whose
  ``K^2 / 4`` made the gather quadratic, review36).
- **count** otherwise (:func:`count_protocol`), every message of a fixed
  size, so ``(K - 1) sum_t (2 h + u_t + d_t)`` bytes over its round trips
  ``t``: first up each subtree's number of masses (int32) and their sum,
  largest and smallest (float64), ``u_1 = 28``; for Dada the largest comes
  down (``d_1 = 8``) and the number of masses at least a quarter of it goes
  up (``u_2 = 4``): when both middle order statistics are among them
  ``4 x median >= max`` in floating point too, so ``M = max`` with no median
  (every honest federation rogue34 measured: two round trips, 120 B per
  tree edge).  Otherwise (the cap may bind; and always for Perso-lin,
  whose light-newcomer rule reads the median confidence) the root finds the
  two middle masses by rounds of :data:`N_PIVOTS` pivots (``d = 25``: three
  float64 and the kept bucket's 2 bits) answered per bucket by a count,
  smallest and largest (``u = 80``); a middle rank first or last in its
  bucket is that bucket's smallest or largest (:func:`_pivots`: at most
  64 rounds; 2-4 in ``benchmarks/massring36_ring_bytes.py``, integer
  masses 50-400 on 100-3,200 nodes, honest or 10 % liars).  The last trip's down is the summary (``8 s``).  From
  the two middle masses the root takes ``np.median``'s value (the middle
  one, or the mean of the two), so ``M`` is :func:`agreed_max_mass`'s and
  the median and smallest confidence those of :func:`node_scale`'s
  confidences, to the bit (``tests/test_massring36_mass_count.py``, liars
  and NaN reports included; the confidences' while ``M > 0``).  The mean
  is the tree's sum over the count: the fit's own arrays keep NumPy's
  mean, which may differ from a tree's sum in the last bit.

As the setup's other exchanges (feature ranges, vote), it is reliable: a
dropped node sends its part when it is next online and its parent waits,
so drops delay the exchange but change neither its bytes nor its result.
A disconnected topology cannot agree on the largest mass: it is refused.
The MPI engines agree on the masses with an allgather of every rank's
nodes' masses (``_mpi_graph_fit._prepare``), take the same ``M``
(:func:`node_scale`) and count this same exchange on the same masses, each
rank its own nodes' messages.

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
bound costs the root's median its inputs: Dada's nodes sent their
subtree's masses up, as Perso-lin's did (``8 sum_j depth_j`` bytes
instead of ``16 (K - 1)``; Landmine's 23 nodes: 1,584 B instead of 1,408,
about 0.06 % of the fit), until the count protocol above bounded it on deep
trees.  The simulation itself keeps the honest values
(its corruption model covers models and losses only); the benchmark's and
the tests' liars wrap :func:`agreed_max_mass`.  A rogue first answerer
could still lie about the summary to one newcomer (its confidence only).
"""

import itertools

import numpy as np
from scipy.sparse.csgraph import connected_components

from .network import index_bits, payload_bytes

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


# The fit gathers every mass at the root while the tree's depths average at
# most GATHER_DEPTH[kind] (the gather's 8 sum_j depth_j bytes against the
# count protocol's: Dada's honest run adds 72 B per tree edge to the
# gather's fixed 48, 9 float64; Perso-lin's median search takes 2-4 rounds
# of 137 B, 36-52 float64); deeper trees count.
GATHER_DEPTH = {"dada": 9, "persolin": 48}
# Pivots per round of the count protocol's median search (4 buckets).
N_PIVOTS = 3


def _keys(values):
    """Unsigned keys in the order of ``values`` (float64, no NaN; -0 read as 0)."""
    bits = (np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64)
    sign = np.uint64(1 << 63)
    return np.where(bits & sign, ~bits, bits | sign)


def _value(key):
    """The float64 of a key of :func:`_keys`."""
    key = np.uint64(key)
    sign = np.uint64(1 << 63)
    bits = key ^ sign if key & sign else ~key
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


def _pivots(lo, hi, count, rank, n_pivots=N_PIVOTS):
    """The root's pivots (keys in ``(lo, hi]``) for the search's next round.

    The middle of the key range (the search keeps at most half of it, so
    64-bit keys end it within 64 rounds), and around where the ``rank``-th
    of the ``count`` values would lie were they evenly spread between
    ``lo`` and ``hi`` (``sqrt(count) / 2`` spacings either side, about the
    rank's spread under such a guess).  Quarter points fill the rest.
    """
    picks = [lo + (hi - lo + 1) // 2]
    a, b = _value(lo), _value(hi)
    step = (b - a) / (count - 1) if count > 2 and np.isfinite(a) and np.isfinite(b) else np.inf
    if np.isfinite(step):  # (b - a past float64's largest: only the middle and quarters)
        guess, half = a + step * rank, step * max(0.5, float(np.sqrt(count)) / 2)
        with np.errstate(over="ignore"):  # (+-inf has a key; NaN cannot arise)
            picks += [int(k) for k in _keys([guess - half, guess + half])]
    picks += [lo + (hi - lo) * (i + 1) // (n_pivots + 1) for i in range(n_pivots)]
    out = []
    for p in picks:
        if lo < p <= hi and p not in out:
            out.append(p)
    return sorted(out[:n_pivots])


def _middle_pair(keys, n_pivots=N_PIVOTS):
    """The two middle order statistics of ``keys`` by rounds of bucket counts.

    Each round the root sends ``n_pivots`` keys splitting the range it still
    searches into ``n_pivots + 1`` buckets; every subtree answers each
    bucket's count, smallest and largest value; the root keeps the bucket
    holding the middle ranks, whose range is then that of actual values.
    A middle rank that is a bucket's first or last is its smallest or
    largest value.  Returns ``(low, high, n_rounds)`` (keys; equal when the
    number of keys is odd).
    """
    n = keys.size
    targets = [(n - 1) // 2, n // 2]
    found = {}
    lo, hi, below = int(keys.min()), int(keys.max()), 0
    rounds = 0
    while len(found) < len(set(targets)):
        if lo == hi:
            for r in targets:
                found.setdefault(r, lo)
            break
        rounds += 1
        inside = keys[(keys >= np.uint64(lo)) & (keys <= np.uint64(hi))]
        rank = min(r for r in targets if r not in found) - below
        pivots = _pivots(lo, hi, inside.size, rank, n_pivots)
        start = below
        for a, b in itertools.pairwise([lo, *pivots, None]):
            part = inside[inside >= np.uint64(a)]
            if b is not None:
                part = part[part < np.uint64(b)]
            if part.size == 0:
                continue
            first, last = start, start + part.size - 1
            for r in targets:
                if r not in found and r == first:
                    found[r] = int(part.min())
                elif r not in found and r == last:
                    found[r] = int(part.max())
            open_ = [r for r in targets if r not in found and first <= r <= last]
            if open_:
                lo, hi, below = int(part.min()), int(part.max()), first
            start = last + 1
    return found[targets[0]], found[targets[1]], rounds


def count_protocol(mass, kind):
    """The count protocol's results and round trips on the reported ``mass``.

    Round trip 1: up every subtree's number of reported masses (int32) and
    their sum, largest and smallest (float64); down the largest.  Dada's
    round trip 2: up the number of masses at least a quarter of the largest
    (``4 m >= max``, int32); if both middle order statistics are among them
    (``n - (n - 1) // 2`` of the ``n`` reports), ``4 x median >= max`` and
    ``M = max`` with no median.  Otherwise (and always for Perso-lin, whose summary
    holds the median confidence) the median search of
    :func:`_middle_pair`: ``N_PIVOTS`` float64 and the chosen bucket
    (2 bits) down, ``(N_PIVOTS + 1)`` x (int32 count, float64 smallest,
    float64 largest) up, per round.  The last trip's down is the summary.

    Returns
    -------
    summary : dict
        ``max_mass`` (:func:`agreed_max_mass` to the bit), ``mean_mass``
        (the tree's sum over the count), and for Perso-lin
        ``median_confidence`` and ``min_confidence`` (those of
        :func:`node_scale`'s confidences, to the bit).
    trips : list of (int, int)
        Payload bytes ``(up, down)`` of each round trip, per tree edge.
    """
    mass = np.asarray(mass, dtype=np.float64)
    valid = mass[~np.isnan(mass)]
    n = valid.size
    top = float(valid.max())
    ups = [payload_bytes(n_float64=3, n_int32=1)]
    downs = [payload_bytes(n_float64=1)] if kind == "dada" else []
    search = kind == "persolin"
    if kind == "dada":
        ups.append(payload_bytes(n_int32=1))
        # (4 m >= max, not m >= max / 4: a quarter of a subnormal max rounds,
        # e.g. to 0 for 5e-324, and the cap then seemed not to bind)
        with np.errstate(over="ignore"):  # (4 m = inf >= any max: right)
            search = np.count_nonzero(4.0 * valid >= top) < n - (n - 1) // 2
    M = top
    if search:
        low, high, n_rounds = _middle_pair(_keys(valid))
        low, high = _value(low), _value(high)
        ups += [payload_bytes(n_float64=2 * (N_PIVOTS + 1), n_int32=N_PIVOTS + 1)] * n_rounds
        # np.median's: the middle value, or the mean of the middle two
        median = np.mean(np.array([low, high])) if n % 2 == 0 else np.float64(low)
        M = float(min(np.nanmax(mass), MASS_CLIP * median))
    select = payload_bytes(n_float64=N_PIVOTS, n_bits=index_bits(N_PIVOTS + 1))
    downs += [select] * (len(ups) - 1 - len(downs)) + [summary_bytes(kind)]
    summary = {"max_mass": M, "mean_mass": float(np.sum(valid) / n)}
    if kind == "persolin":
        pair = np.minimum(np.array([low, high]) / M, 1.0)
        summary["median_confidence"] = float(np.mean(pair) if n % 2 == 0 else pair[0])
        summary["min_confidence"] = float(min(valid.min() / M, 1.0))
    return summary, list(zip(ups, downs))


def protocol_of(simulation, kind):
    """``"gather"`` or ``"count"``: the fit's mass exchange on this network."""
    from .boosting._agreement import _aggregation_tree

    return "gather" if _gathers(_subtree_sizes(*_aggregation_tree(simulation)), kind) else "count"


def _subtree_sizes(parent, order):
    """Every node's subtree size in the aggregation tree (children before parents)."""
    size = np.ones(parent.shape[0], dtype=np.int64)
    for k in order[::-1].tolist():
        if parent[k] >= 0:
            size[parent[k]] += size[k]
    return size


def _gathers(size, kind):
    """Whether the tree is shallow enough for the gather: its depths (``sum_j
    depth_j = sum_j size_j - K``) average at most ``GATHER_DEPTH[kind]``."""
    return int(size.sum()) - len(size) <= GATHER_DEPTH[kind] * (len(size) - 1)


def agree_on_masses(simulation, kind, mass, nodes=None):
    """Count the fit's mass exchange on ``simulation.counter``; return its bytes.

    Parameters
    ----------
    simulation : skfed.network._Simulation
        The fit's simulated network (its topology and counter).
    kind : {"dada", "persolin"}
    mass : ndarray of shape (n_nodes,)
        The masses the nodes report (the count protocol's rounds depend on
        them).
    nodes : ndarray of int, default=None
        Count only the messages these nodes send (an MPI rank's own nodes:
        the ranks' counters add up to the simulation's); all by default.

    Returns
    -------
    int
        Bytes sent, headers included.
    """
    from .boosting._agreement import _aggregation_tree, _tree_round_trip

    K = simulation.n_nodes
    mass = np.asarray(mass, dtype=np.float64)
    if mass.shape != (K,):
        raise ValueError(f"mass has shape {mass.shape}; expected ({K},), one per node.")
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
    tree = _aggregation_tree(simulation)
    size = _subtree_sizes(*tree)
    if _gathers(size, kind):
        # every subtree's masses (the root has them all)
        up = size * payload_bytes(n_float64=1)
        return _tree_round_trip(simulation, up, summary_bytes(kind), nodes=nodes, tree=tree)
    _, trips = count_protocol(mass, kind)
    return sum(_tree_round_trip(simulation, up, down, nodes=nodes, tree=tree)
               for up, down in trips)
