"""Feature-mean neighbours for newcomers, behind a fit-time gate (issue 32).

A newcomer of :meth:`~skfed.boosting.PersonalizedLinearClassifier.add_nodes`
with few samples, mostly of one class, cannot rank its peers' models by its
labels: on Landmine its graph row put most weight on fields of the other
terrain.  The nodes' feature means locate the terrain there, but not on
data whose tasks share one input distribution (rotated moons, clustered
related tasks), where taking the nearest-mean nodes loses 7-25 points.  So
the fitted federation first checks, on its own rows, whether feature-mean
neighbours help it (the *gate*), and only then do newcomers use them.

**The gate** (end of ``fit``, no privacy; ``join_neighbours="auto"``).

1. Every node sends its sample-weighted feature mean and its mass
   (``d + 1`` float64) to a hub, fitted node 0 (``n - 1`` messages; the hub,
   and only it, learns every mean), which answers each node with the
   indices and masses of its ``m = N_NEAREST`` nearest other nodes by
   Euclidean distance between feature means (``m`` int32 and ``m`` float64,
   ``n - 1`` messages; it finds them all at once, :func:`nearest_rows`: a
   KD-tree, not a scan of all ``n`` means per node).  Every node sending its mean to every other node
   instead cost 9-18 % of the fit's bytes on rotated moons and related
   tasks (80-200 nodes); through the hub 1-2 %.
2. Every node asks (an empty request) those ``m`` nodes for their final
   models; each answers with its model (``model_message_bytes``).
3. The mass-weighted sum of all models and the total mass (``P n_base + 1``
   float64) are summed at fitted node 0 (``n - 1`` messages up) and sent back
   (``n - 1`` down); a node takes its own share out to get the mean model of
   all OTHER nodes.
4. Every node ``i`` computes on its own rows the sample-weighted accuracy of
   the mass-weighted mean model of its ``m`` nearest peers and of the mean
   model of all others; its gain ``g_i`` is their difference (one float64
   to node 0, ``n - 1`` messages), and node 0 sends back ``t`` (one float64,
   ``n - 1`` messages): ``t = mean(g) / (std(g, ddof=1) / sqrt(n))`` (``+-inf``
   when every gain is the same non-zero value, 0 when all are zero).

5. (open gate, at most ``WHITEN_MAX_FEATURES`` = 32 features) every
   node but the hub sends the hub its within-node scatter once (``d (d +
   1) / 2`` float64, ``n - 1`` messages); the hub pools them, each bounded
   against rogue nodes, and keeps the map of their inverse
   (:mod:`skfed._mean_scatter`, the round Dada uses).

The gate opens when ``t > GATE_T`` (3): then ``newcomer_rule_ = "features"``,
otherwise ``"graph"``.  landmine1 proposed 2; on federations whose feature
means say nothing (one input distribution, two opposite label rules,
``benchmarks/new_nodes_persolin_mean_neighbours.py --null 200``) the gate
opened on 7.0 % of 200 fits of 18 nodes at 2, 2.0 % at 3 (40 nodes: 2.0 %
at both), and a wrong opening costs such newcomers 7-25 points (landmine1's
moons and related-clustered), while Perso-lin's Landmine fits have t 3.6-5.9
(seeds 0-5) and the held-out data sets at most +0.1 (moons, related-*).  At most
``N_NEAREST + 1`` fitted nodes: no gate (the nearest are all the others,
so every gain is 0 and it could not open).  The exchange
waits for every node (it runs once, after the fit: dropped nodes are not
drawn); rogue nodes send their corrupted mean, model and sum share.  Under a
finite ``privacy`` budget the gate is not run (the means and gains are not
privatized and no accountant covers them): ``newcomer_rule_ = "graph"``, the
graph join's private steps as before (``epsilon=inf`` is the non-private fit
and runs it).

**The join** (``newcomer_rule_ == "features"``).  Each newcomer sends the hub
its sample-weighted feature mean (``d`` float64); the hub answers with its
``m`` nearest fitted nodes and their masses (as in step 1, but by the
Mahalanobis distance of step 5's pooled scatter when it has its map;
joined nodes are not candidates); the newcomer asks them for their models and takes their
mass-weighted mean (no training).  Its graph row holds those
``m`` nodes with the mass shares as weights (it sends each its weight, as
the graph join does); its confidence is its mass over the fit's largest.
Rounds repeat until the hub and the asked nodes answer (dropped ones do
not).  Each newcomer is rogue with probability ``rogue_fraction`` (the graph
join's public draw), which later joins keep.

Every newcomer takes the mean, not only those whose samples are one class
(landmine1's ``gatenear5`` against ``gate5``, Landmine seeds 0-5, over
pooled ``SVC()`` at k = 5 / 10 / 20: +0.17 / +0.25 / +0.31 against +0.23 /
+0.22 / +0.18, ``benchmarks/new_nodes_landmine_neighbours.py`` on branch
landmine1), and no block solve follows it (the 5 nodes as neighbours and
the newcomer's block solved scores the same to 0.01: its confidence is
small).  Measured: ``benchmarks/new_nodes_persolin_mean_neighbours.py``
(its docstring) and the Perso-lin section of the boosting user guide.

**Mahalanobis placement** (maha28).  A ``k``-sample mean is
noisy along the directions where features vary within a node; ranking by
``(a - b)^T S^+ (a - b)`` weighs them by that spread (Dada's dada27 rule).
Landmine, newcomers' accuracy Mahalanobis minus Euclidean at k = 5 / 10 /
20 (``python benchmarks/new_nodes_maha_landmine.py --families persolin
--seeds ...``): seeds 0-5 +0.05 / -0.08 / +0.01, seeds 6-11 +0.16 / +0.21 /
+0.21 (paired t 1.4 / 3.0 / 2.4); held out, the gate open on clustered
tasks whose clusters shift the features (``clustered-shifted*``, seeds
0-5): +0.04 .. +0.07 isotropic, +4.3 / +1.2 / +0.4 with mixed features;
closed (so unchanged) on rotated moons, related-*, shifted-alike.  The
scatter round costs 0.3 % of a Landmine fit's bytes; the join's bytes are
the same.  (The Euclidean placement it is measured against is the join
without the hub's map: the benchmark drops it from a fitted copy.)
"""

import math

import numpy as np
from scipy import sparse

from ._pending import DropWait, ask_until_answered
from .graph import model_message_bytes
from .network import payload_bytes

# Nodes averaged by a newcomer and in the gate's "near" model (landmine1's m).
N_NEAREST = 5
# The gate opens when the mean gain's t statistic exceeds this.
GATE_T = 3.0
JOIN_NEIGHBOURS = ("auto", "graph")
# The hub's nearest queries scan all rows up to this many nodes or above this
# many features, else go through a KD-tree (benchmarks/mean_neighbours_scale.py).
BRUTE_MAX_NODES = 64
KD_MAX_FEATURES = 12


def node_means(X, sw, offsets):
    """``(means, masses)``: every node's sample-weighted feature mean and mass
    (node ``k``'s rows are ``offsets[k]:offsets[k + 1]``)."""
    n = len(offsets) - 1
    X = np.asarray(X, dtype=np.float64)
    sw = np.asarray(sw, dtype=np.float64)
    idx = np.repeat(np.arange(n), np.diff(offsets))
    masses = np.bincount(idx, weights=sw, minlength=n)
    sums = np.zeros((n, X.shape[1]))
    np.add.at(sums, idx, X * sw[:, None])
    return sums / masses[:, None], masses


def nearest(means, target, m, exclude=None):
    """Indices of the ``m`` rows of ``means`` nearest ``target`` (Euclidean;
    ties by index), skipping ``exclude``."""
    dist = ((np.asarray(means) - np.asarray(target)) ** 2).sum(axis=1)
    if exclude is not None:
        dist[exclude] = np.inf
    count = max(0, min(m, len(means) - (exclude is not None)))
    if 0 < count < len(dist):  # only the rows at most the count-th distance are sorted
        candidates = np.flatnonzero(dist <= np.partition(dist, count - 1)[count - 1])
    else:
        candidates = np.arange(len(dist))
    return candidates[np.argsort(dist[candidates], kind="stable")][:count]


def hub_answer(sim, means, target, m, exclude=None):
    """The hub's (fitted node 0's) answer: the ``m`` nodes nearest ``target``;
    a rogue hub names the ``m`` farthest (``"complement"``) or ``m`` drawn at
    random (``"random"``)."""
    if not sim.rogue[0]:
        return nearest(means, target, m, exclude)
    count = min(m, len(means) - (exclude is not None))
    pool = np.array([j for j in range(len(means)) if j != exclude], dtype=np.intp)
    if sim.network.rogue_behavior == "complement":
        dist = ((means[pool] - target) ** 2).sum(axis=1)
        return pool[np.argsort(-dist, kind="stable")[:count]]
    return np.sort(sim.rng.choice(pool, size=count, replace=False))


def _tree_proposals(means, targets, k, excl):
    """The ``k`` rows nearest each target by a KD-tree (without ``excl``),
    their tree distances, the slack of its arithmetic and the tree."""
    from scipy.spatial import cKDTree

    tree = cKDTree(means)
    dist, cand = tree.query(targets, k=k + (excl is not None))
    if excl is not None:  # the excluded row leaves the proposals (last column if absent)
        hit = cand == excl[:, None]
        keep = np.ones(cand.shape, dtype=bool)
        keep[np.arange(len(cand)), np.where(hit.any(axis=1), hit.argmax(axis=1), k)] = False
        cand, dist = cand[keep].reshape(-1, k), dist[keep].reshape(-1, k)
    return dist, cand, 1e-9 * dist, tree


def _product_proposals(means, targets, k, excl):
    """The ``k`` rows nearest each target by squared distances from matrix
    products (blocks of targets; without ``excl``) and a bound on their
    rounding error per target (the dot products' ``gamma_d`` bound, times 4)."""
    n, d = means.shape
    centre = means.mean(axis=0)
    M, T = means - centre, targets - centre
    mm, tt = np.einsum("ij,ij->i", M, M), np.einsum("ij,ij->i", T, T)
    slack = (4 * (d + 4) + 8) * np.finfo(np.float64).eps * (tt + mm.max())
    dist, cand = np.empty((len(T), k)), np.empty((len(T), k), dtype=np.intp)
    step = max(1, (1 << 21) // n)
    for start in range(0, len(T), step):
        b = slice(start, start + step)
        D = tt[b, None] - 2.0 * (T[b] @ M.T) + mm[None, :]
        if excl is not None:
            D[np.arange(D.shape[0]), excl[b]] = np.inf
        part = np.argpartition(D, k - 1, axis=1)[:, :k]
        dk = np.take_along_axis(D, part, axis=1)
        order = np.argsort(dk, axis=1)
        cand[b] = np.take_along_axis(part, order, axis=1)
        dist[b] = np.take_along_axis(dk, order, axis=1)
    return dist, cand, np.repeat(slack[:, None], k, axis=1), None


def nearest_rows(means, targets, m, exclude=None):
    """:func:`nearest` for every row of ``targets``: the same neighbours (ties
    by index), without a scan over all rows per query at the hub.

    ``exclude`` is None or one index per target (the row skipped, as
    :func:`nearest`'s ``exclude``).  A KD-tree of ``means`` (``d <=
    KD_MAX_FEATURES``; ``O(n log n)`` instead of the scan's ``O(n^2 d)``), or
    above that many features blocks of matrix products (still ``O(n^2 d)``,
    in BLAS), proposes the ``count + 2`` nearest rows in their own
    arithmetic.  A target whose last proposal is farther than the
    ``count``-th by more than that arithmetic's error bound has every row
    within the ``count``-th distance among them, and its neighbours are
    chosen by :func:`nearest`'s distances and order over them (bit for bit,
    the same ties).  Otherwise (ties reach the last proposal) the candidates
    are the tree's rows within the ``count``-th distance, or all rows.
    Federations of at most ``BRUTE_MAX_NODES`` nodes and non-finite means
    use the scan (``benchmarks/mean_neighbours_scale.py``).

    Returns
    -------
    list of ndarray
        One array of ``min(m, n - 1)`` (``min(m, n)`` without ``exclude``)
        indices per target, nearest first.
    """
    means = np.asarray(means, dtype=np.float64)
    targets = np.asarray(targets, dtype=np.float64).reshape(-1, means.shape[1])
    n, d = means.shape
    excl = None if exclude is None else np.asarray(exclude, dtype=np.intp)
    count = max(0, min(m, n - (excl is not None)))
    k = count + 2
    if (count == 0 or n <= max(BRUTE_MAX_NODES, k + 1)
            or not (np.isfinite(means).all() and np.isfinite(targets).all())):
        return [nearest(means, t, m, None if excl is None else int(excl[r]))
                for r, t in enumerate(targets)]
    propose = _tree_proposals if d <= KD_MAX_FEATURES else _product_proposals
    dist, cand, slack, tree = propose(means, targets, k, excl)
    safe = dist[:, -1] > dist[:, count - 1] + slack[:, count - 1]
    out = [None] * len(targets)
    rows = np.flatnonzero(safe)
    if len(rows):
        c = np.sort(cand[rows], axis=1)
        exact = ((means[c] - targets[rows][:, None, :]) ** 2).sum(axis=2)
        order = np.argsort(exact, axis=1, kind="stable")[:, :count]
        for r, chosen in zip(rows.tolist(), np.take_along_axis(c, order, axis=1)):
            out[r] = chosen
    for r in np.flatnonzero(~safe).tolist():  # ties at the last proposal
        if tree is None:
            out[r] = nearest(means, targets[r], m, None if excl is None else int(excl[r]))
            continue
        c = np.asarray(sorted(tree.query_ball_point(
            targets[r], dist[r, count - 1] + slack[r, count - 1])), dtype=np.intp)
        if excl is not None:
            c = c[c != excl[r]]
        out[r] = c[nearest(means[c], targets[r], count)]
    return out


def hub_answers(sim, means, targets, m, exclude=None):
    """:func:`hub_answer` for every row of ``targets`` (``exclude``: None
    or one index per target), the honest hub's through :func:`nearest_rows`."""
    if not sim.rogue[0]:
        return nearest_rows(means, targets, m, exclude)
    return [hub_answer(sim, means, t, m, None if exclude is None else int(exclude[k]))
            for k, t in enumerate(targets)]


def hub_round(sim, means, targets, senders, m=N_NEAREST, up_floats=None, scale_floats=0):
    """Round(s) 1 of a feature-mean join: every newcomer (``senders``) sends
    its feature mean (``d`` float64) to the hub, fitted node 0, again in
    every round the hub is dropped; the active hub answers each with the
    ``m`` rows of ``means`` nearest its mean and their masses (``m`` int32
    and ``m`` float64; :func:`hub_answers`).  ``up_floats``: the mean's
    size when ``targets`` are the hub's map of it (default ``d``);
    ``scale_floats``: float64 more in the answer (the fit's largest node
    mass, :mod:`skfed._node_mass`, for a Dada / Perso-lin join).  Returns
    the chosen indices, one array per newcomer."""
    senders = np.asarray(senders, dtype=np.intp)
    hub = np.zeros(len(senders), np.intp)
    up = np.full(len(senders), payload_bytes(
        n_float64=means.shape[1] if up_floats is None else up_floats), np.int64)
    down = np.full(len(senders), payload_bytes(n_float64=m + scale_floats, n_int32=m), np.int64)
    chosen = None
    while chosen is None and len(senders):
        active = sim.draw_rounds(1)[0][0]
        sim.counter.send_pairs(senders, hub, up)
        if active[0]:
            sim.counter.send_pairs(hub, senders, down)
            chosen = hub_answers(sim, means, targets, m)
        sim.counter.next_round()
    return [] if chosen is None else chosen


def mean_model(models, masses, chosen):
    """The mass-weighted mean of ``models[chosen]`` (``(P, n_base)``)."""
    w = masses[chosen] / masses[chosen].sum()
    return np.tensordot(w, np.asarray(models, dtype=np.float64)[chosen], axes=1)


def weighted_accuracy(Z, Y, sw, model):
    """Sample-weighted accuracy of ``model`` (``(P, n_base)``) on the rows
    ``Z`` with one-vs-rest +-1 targets ``Y`` (``(P, m)``): the sign of the
    score for one problem, the largest score for several."""
    scores = np.asarray(Z, dtype=np.float64) @ model.T          # (m, P)
    if Y.shape[0] == 1:
        correct = (scores[:, 0] > 0) == (Y[0] > 0)
    else:
        correct = np.argmax(scores, axis=1) == np.argmax(Y, axis=0)
    sw = np.asarray(sw, dtype=np.float64)
    return float(np.sum(sw * correct) / np.sum(sw))


def gate_statistic(gains):
    """``t`` of the gains: mean over its standard error (see the module)."""
    gains = np.asarray(gains, dtype=np.float64)
    mean = float(np.mean(gains)) if len(gains) else 0.0
    spread = float(np.std(gains, ddof=1) / np.sqrt(len(gains))) if len(gains) > 1 else 0.0
    if spread > 0:
        return mean / spread
    return 0.0 if mean == 0 or len(gains) < 2 else float(np.copysign(np.inf, mean))


def _deliver(sim, senders, receivers, n_bytes, requests=False):
    """Each sender's message (``n_bytes``) to its receiver through the fit's
    faults: a sender dropped in a round sends in the next, until every one
    has sent (one step of :class:`skfed._pending.DropWait`, in rounds of its
    own; with ``requests``, the receiver's empty request is counted in every
    round it waits).  One round without drops (and no draw)."""
    senders, receivers = np.asarray(senders, np.intp), np.asarray(receivers, np.intp)
    n_bytes = np.asarray(n_bytes, np.int64)
    wait = DropWait([senders])
    while not wait.complete:
        active = sim.draw_rounds(1)[0][0] if sim.network.drop_rate > 0 else None
        if requests:
            todo = wait.left
            sim.counter.send_pairs(receivers[todo], senders[todo], np.zeros(len(todo), np.int64))
        for _, done in wait.take(active):
            sim.counter.send_pairs(senders[done], receivers[done], n_bytes[done])
        sim.counter.next_round()


def run_gate(Z, Y, sw, offsets, raw_X, models, sim, m=N_NEAREST):
    """Run the gate over the fitted nodes, counting its messages in ``sim``.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_base)
        The design (intercept column last when fitted).
    Y : ndarray of shape (P, n_samples)
        One-vs-rest +-1 targets.
    sw : ndarray of shape (n_samples,)
    offsets : ndarray of shape (n_nodes + 1,)
    raw_X : ndarray of shape (n_samples, n_features)
        The features the means are taken over.
    models : ndarray of shape (n_nodes, P, n_base)
        The nodes' final models.
    sim : NetworkSimulation
        The fit's simulation (its counter gets the gate's rounds).
    m : int

    Returns
    -------
    dict
        ``t``, ``mean_gain``, ``gains`` (per node), ``open``, ``m``, and
        ``means``, ``masses`` (what every node holds after step 1).
    """
    n = len(offsets) - 1
    means, masses = node_means(raw_X, sw, offsets)
    rogue = np.asarray(sim.rogue, dtype=bool)
    nodes = np.arange(n, dtype=np.intp)
    # Step 1: means and masses up to the hub (fitted node 0); it answers each
    # node with its m nearest others and their masses.
    sent = np.column_stack([means, masses])
    if rogue.any():
        sent = sim.corrupt_value_rows(sent, nodes)
    seen_means, seen_masses = sent[:, :-1], np.abs(sent[:, -1])
    rest = nodes[1:]
    hub = np.zeros(n - 1, np.intp)
    _deliver(sim, rest, hub, np.full(n - 1, payload_bytes(n_float64=means.shape[1] + 1)))
    near = hub_answers(sim, seen_means, seen_means, m, exclude=nodes)
    _deliver(sim, hub, rest, np.full(n - 1, payload_bytes(n_float64=m, n_int32=m)))
    flat = np.asarray(models, dtype=np.float64).reshape(n, -1)
    answers = sim.corrupt_value_rows(flat.copy(), nodes) if rogue.any() else flat
    answers = answers.reshape(models.shape)
    # Step 2: the m nearest peers' models.
    asker = np.repeat(nodes, [len(c) for c in near])
    peer = np.concatenate(near + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
    payloads = model_message_bytes(flat, models.dtype)
    _deliver(sim, peer, asker, payloads[peer], requests=True)
    # Step 3: the sum of mass-weighted models at node 0 and back.
    share_bytes = payload_bytes(n_float64=flat.shape[1] + 1)
    total = np.tensordot(seen_masses, answers, axes=1)
    mass_total = float(seen_masses.sum())
    _deliver(sim, rest, hub, np.full(n - 1, share_bytes))
    _deliver(sim, hub, rest, np.full(n - 1, share_bytes))
    gains, t = gate_gains(
        sim, Z, Y, sw, offsets, answers, seen_masses, near,
        lambda i: (total - masses[i] * np.asarray(models[i], dtype=np.float64))
        / (mass_total - masses[i]))
    return {"t": t, "mean_gain": float(np.mean(gains)), "gains": gains, "open": bool(t > GATE_T),
            "m": int(m), "means": seen_means, "masses": seen_masses}


def node_gains(Z, Y, sw, offsets, near, others, score=weighted_accuracy):
    """Every node's gain on its own rows (``offsets``): ``score`` of the model
    ``near(i)`` (its nearest peers' mean) minus that of ``others(i)`` (the
    mean of all other nodes).  ``score(Z, Y, sw, model)`` is higher for a
    better model (default :func:`weighted_accuracy`; MOCHA's regressor passes
    minus its squared error).  What each node computes in step 4 of the gate,
    wherever its hub is (:func:`gate_gains`; MOCHA's server,
    :mod:`skfed.multitask._join_neighbours`)."""
    gains = np.zeros(len(offsets) - 1)
    for i in range(len(gains)):
        rows = slice(offsets[i], offsets[i + 1])
        Zi, Yi, si = Z[rows], Y[:, rows], sw[rows]
        gains[i] = score(Zi, Yi, si, near(i)) - score(Zi, Yi, si, others(i))
    return gains


def gate_gains(sim, Z, Y, sw, offsets, answers, masses, near, others):
    """Step 4 of a gate: each node's gain on its own rows of its nearest
    peers' mean model (``answers`` weighted by ``masses`` over ``near[i]``)
    over ``others(i)``, the mean of all other nodes; each sends its gain to
    the hub (fitted node 0), which sends t back.  Returns ``(gains, t)``."""
    n = len(offsets) - 1
    gains = node_gains(Z, Y, sw, offsets, lambda i: mean_model(answers, masses, near[i]),
                       others)
    nodes = np.arange(n, dtype=np.intp)
    rest, hub = nodes[1:], np.zeros(n - 1, np.intp)
    one = payload_bytes(n_float64=1)
    _deliver(sim, rest, hub, np.full(n - 1, one))
    _deliver(sim, hub, rest, np.full(n - 1, one))
    return gains, gate_statistic(gains)


def fit_gate(est, state, simulation, spec):
    """Run the gate at the end of a Perso-lin fit (``join_neighbours="auto"``,
    no privacy, more than ``N_NEAREST + 1`` nodes) and set ``newcomer_rule_``
    / ``newcomer_gate_``; the gate's messages join ``communication_``.
    Otherwise no gate: ``newcomer_rule_ = "graph"``, ``newcomer_gate_ = None``."""
    est.newcomer_rule_, est.newcomer_gate_ = "graph", None
    private = spec is not None and math.isfinite(spec.epsilon)
    if private or est.join_neighbours == "graph" or len(state.offsets) - 1 <= N_NEAREST + 1:
        return
    models = est._full_coef()
    gate = run_gate(state.X, state.Y, state.sw, state.offsets, state.raw_X, models,
                    simulation)
    whiten = None
    if gate["open"]:  # (skfed._mean_scatter)
        from ._mean_scatter import whitening_round
        whiten = whitening_round(state.raw_X, state.sw, state.offsets,
                                 node_means(state.raw_X, state.sw, state.offsets)[0],
                                 np.float64, simulation, hub_means=gate["means"],
                                 hub_masses=gate["masses"])
    before = est.n_bytes_sent_
    est._set_communication(simulation)
    est.newcomer_gate_ = {key: gate[key] for key in ("t", "mean_gain", "gains", "open", "m")}
    est.newcomer_gate_["n_bytes"] = int(est.n_bytes_sent_ - before)
    if gate["open"]:
        est.newcomer_rule_ = "features"
        est._join_info["feature_means"] = gate["means"]
        est._join_info["feature_masses"] = gate["masses"]
        est._join_info["feature_map"] = whiten


def _mean_and_loss(est, node, model):
    """Perso-lin's newcomer: the neighbours' mean model, its loss with the
    l2 penalty (the graph objective's local term)."""
    pen = model[:, :node.n_penalized].astype(np.float64)
    return model, node.confidence * float(
        node.data_losses(model[None]).sum() + 0.5 * node.l2 * np.sum(pen * pen))


def mean_neighbour_join(est, X, y, groups, sample_weight=None, *, table=None, salt=104743,
                        finish=_mean_and_loss, hub_map=None):
    """Join new nodes by their feature-mean neighbours (see the module).

    Appends the newcomers to ``nodes_``, ``coef_``, ``intercept_``,
    ``confidence_`` and ``collaboration_graph_``; the join's messages go to
    ``join_communication_``.  The fitted nodes' models are not touched.
    ``table`` is the fitted nodes' ``(means, masses)`` (default: the fit's
    gate's), ``salt`` seeds the join's network draws, and ``finish(est,
    node, mean)`` returns a newcomer's model and loss from its neighbours'
    mean model (Perso-lin's: the mean itself; Dada's
    :mod:`skfed.boosting._dada_mean_join` passes its own).  A Perso-lin
    newcomer that model contradicts fits alone instead
    (:func:`skfed._graph_join_unlike.keep_alone_if_contradicted`).

    Returns
    -------
    est
    """
    from ._graph_join import _design, _is_dada, _models, _Newcomer, _random_seed, _targets
    from ._graph_join_fitted import (join_random_state, join_rogue,
                                     join_simulation)

    info = est._join_info
    X, y, sample_weight, new_labels, layout = est._validate_join_data(
        X, y, groups, sample_weight)
    sw = (np.ones(X.shape[0]) if sample_weight is None
          else np.asarray(sample_weight, dtype=np.float64))
    means, masses = ((info["feature_means"], info["feature_masses"]) if table is None
                     else table)
    if table is None and hub_map is None:  # Perso-lin's map, if its fit sent the scatter
        hub_map = info.get("feature_map")
    n_fit, n_old, n_new = len(means), len(est.nodes_), len(new_labels)
    models = _models(est)
    dtype = models.dtype
    seed = int(getattr(est, "_join_seed", 0))
    rng = join_random_state([_random_seed(est), seed, salt])
    sim = join_simulation(est, n_old + n_new, rng)
    rogue_old = np.asarray(info.get("rogue", np.zeros(n_old, bool)), dtype=bool)
    # each newcomer rogue with probability rogue_fraction (kept for later joins)
    sim.rogue[:] = join_rogue(sim.network, rogue_old, n_new, [_random_seed(est), seed, 7919])
    own = [layout.node_indices(k) for k in range(n_new)]
    own_means = np.array([np.average(np.asarray(X[i], dtype=np.float64), axis=0,
                                     weights=sw[i]) for i in own])
    flat = models[:n_fit].reshape(n_fit, -1).astype(np.float64)
    payloads = model_message_bytes(flat, dtype)
    newcomers = n_old + np.arange(n_new, dtype=np.intp)
    # Round(s) 1: the newcomer's mean to the hub (fitted node 0), which answers
    # with its m nearest fitted nodes and their masses.
    # (the answer also carries the fit's largest mass: the newcomers' confidences)
    chosen = (hub_round(sim, means, own_means, newcomers, scale_floats=1) if hub_map is None else
              hub_round(sim, means @ hub_map, own_means @ hub_map, newcomers,
                        up_floats=means.shape[1], scale_floats=1))
    # Round(s) 2: the chosen nodes' models (asked again until each answers).
    received = [{} for _ in range(n_new)]

    def answer(k, got):
        sim.counter.send_pairs(got, np.full(len(got), newcomers[k], np.intp),
                               payloads[got].astype(np.int64))
        answers = sim.corrupt_value_rows(flat[got].copy(), got) if len(got) else flat[got]
        for j, a in zip(got.tolist(), answers):
            received[k][j] = a

    ask_until_answered(sim, newcomers, chosen, answer)
    new_models = np.zeros((n_new,) + models.shape[1:], dtype=dtype)
    rows, cols, weights, losses, confidences = [], [], [], np.zeros(n_new), np.zeros(n_new)
    Z_all, Y_all = _design(est, X, dtype), _targets(est, y, dtype)
    for k in range(n_new):
        c = np.asarray(chosen[k], dtype=np.intp)
        w = masses[c] / masses[c].sum()
        avg = np.tensordot(w, np.stack([received[k][int(j)] for j in c]), axes=1)
        new_models[k] = avg.reshape(models.shape[1:])
        idx = own[k]
        node = _Newcomer(est, np.ascontiguousarray(Z_all[idx]),
                         np.ascontiguousarray(Y_all[:, idx]),
                         np.ascontiguousarray(sw[idx], dtype=dtype), float(info["max_mass"]),
                         dtype)
        new_models[k], losses[k] = finish(est, node, new_models[k])
        confidences[k] = node.confidence
        rows.append(np.full(len(c), n_old + k))
        cols.append(c)
        weights.append(w)
    if not _is_dada(est):  # a contradicted newcomer fits alone (Dada's here hold one class)
        from ._graph_join_unlike import keep_alone_if_contradicted

        keep_alone_if_contradicted(est, X, y, sw, layout, new_models, losses)
    r = np.concatenate(rows).astype(np.intp)
    c = np.concatenate(cols).astype(np.intp)
    w = np.concatenate(weights)
    # Last round: each newcomer tells its neighbours their weight.
    sim.counter.send_pairs(r, c, np.full(len(r), payload_bytes(n_float64=1), np.int64))
    sim.counter.next_round()
    return record_newcomers(est, sim, info, new_labels, models, new_models, losses,
                            confidences, (w, r, c), seed)


def record_newcomers(est, sim, info, new_labels, models, new_models, losses, confidences,
                     edges, seed):
    """Append a join's newcomers to a fitted Dada / Perso-lin estimator:
    their models (``(n_new, P, n_base)``), confidences and losses, their
    edges ``(weights, rows, cols)`` (both directions go in
    ``collaboration_graph_``), the join's rogue flags and its log."""
    from ._graph_join_fitted import csr_of_pairs

    dtype = models.dtype
    n_old, n_new = len(est.nodes_), len(new_labels)
    w, r, c = edges
    est._append_nodes(new_labels)
    n_coef = models.shape[2] - int(est.fit_intercept)
    coef = new_models[:, :, :n_coef]
    intercept = (new_models[:, :, n_coef] if est.fit_intercept
                 else np.zeros(new_models.shape[:2], dtype))
    if est.coef_.ndim == 2:
        coef, intercept = coef[:, 0, :], intercept[:, 0]
    est.coef_ = np.ascontiguousarray(np.concatenate([est.coef_, coef]))
    est.intercept_ = np.ascontiguousarray(np.concatenate([est.intercept_, intercept]))
    est.confidence_ = np.concatenate([est.confidence_, confidences])
    W_old = sparse.csr_matrix(est.collaboration_graph_)
    old_row = np.repeat(np.arange(n_old, dtype=np.intp), np.diff(W_old.indptr))
    est.collaboration_graph_ = csr_of_pairs(
        np.concatenate([W_old.data, w, w]), np.concatenate([old_row, r, c]),
        np.concatenate([W_old.indices, c, r]), n_old + n_new)
    graph_models = info.get("graph_models")
    est._join_info = dict(info, losses=np.concatenate([info["losses"], losses]),
                          rogue=sim.rogue.copy(),
                          graph_models=None if graph_models is None else np.concatenate(
                              [graph_models, new_models]))
    est._join_seed = seed + 1
    est._record_join(sim.log(node_labels=est.nodes_))
    return est
