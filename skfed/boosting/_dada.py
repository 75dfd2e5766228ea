"""Dada: decentralized personalized boosting over a learned collaboration graph.

* :class:`DecentralizedBoostingClassifier` — Zantedeschi, Bellet & Tommasi,
  "Fully Decentralized Joint Learning of Personalized Models and
  Collaboration Graphs" (AISTATS 2020): per-node l1-constrained boosting of
  shared base predictors (decision stumps) by asynchronous decentralized
  Frank-Wolfe, alternated with decentralized learning of the graph
  (:mod:`skfed.graph`).
* :class:`PersonalizedLinearClassifier` — Perso-lin, the personalized linear
  models of Vanhaesebrouck, Bellet & Tommasi (AISTATS 2017) on the same
  graph (fixed or learned the same way): asynchronous block coordinate
  descent on a smooth loss.

There is no server: every step is one node talking to its neighbours in the
collaboration graph (model updates) or to a few peers drawn by a
peer-sampling service (graph updates), and every message is counted by the
simulated network.
"""

import math
import numbers
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import breadth_first_order, connected_components
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._base import FederatedClassifierMixin, FederatedMixin, node_seeds
from .._base import N_JOBS_CONSTRAINT, check_network_faults
from .._compat import Interval, StrOptions
from .._core._boosting_fast import (
    Logistic,
    SquaredHinge,
    fw_async,
    fw_local,
    lin_async,
    lin_local,
    lin_losses,
    lse_losses,
)
from ..graph import _GraphRunner, _csr_arrays
from ..network import check_adjacency, index_bits, payload_bytes, resolve_network
from .._secure_noise import CHOICE_RESOLUTION, NoiseSource, gaussian_grid, record_noise_source
from .._private_refit import neighbour_prior, refit_boosting, refit_linear
from ..privacy import (
    DifferentialPrivacy,
    PrivacyBudgetWarning,
    calibrate_discrete_gaussian,
    calibrate_exponential,
    check_privacy,
    describe,
    epsilon_spent,
    max_uses,
)

__all__ = [
    "DecentralizedBoostingClassifier",
    "PersonalizedLinearClassifier",
    "make_stumps",
    "make_stump_predictors",
    "feature_relevance",
    "node_votes",
    "vote_threshold",
    "Stump",
    "fw_score_sensitivity",
    "stump_predictions",
    "fw_message_bytes",
]

_LOSSES = {"logistic": Logistic, "squared_hinge": SquaredHinge}
# Bins per feature of the histograms behind ``stump_placement="quantile"``.
_N_BINS = 256
# Expected number of features the feature vote selects by chance.
_VOTE_LEVEL = 0.05


# ------------------------------------------------------------------ stumps
def _stumps_per_feature(varying, n_estimators):
    """Spread ``n_estimators`` stumps over the features that vary.

    The ``n_varying`` features with ``max > min`` get ``n_estimators //
    n_varying`` stumps each, the first ``n_estimators % n_varying`` of them
    one more; a constant feature gets none (each of its stumps would be the
    same constant).  When no feature varies, all features share them.
    """
    varying = np.asarray(varying, dtype=bool)
    if not varying.any():
        varying = np.ones_like(varying)
    base, extra = divmod(int(n_estimators), int(varying.sum()))
    counts = np.zeros(varying.shape[0], dtype=np.intp)
    counts[varying] = base
    counts[np.flatnonzero(varying)[:extra]] += 1
    return counts.tolist()


def _stump_counts(feature_min, feature_max, n_estimators, features=None,
                  max_per_feature=None):
    """Stumps per feature: ``n_estimators`` spread over the allowed features that vary.

    With ``max_per_feature``, an allowed feature takes at most that many and
    the stumps they leave are spread evenly over the other varying
    features (none left out: the cap is then not applied).
    """
    n_features = feature_min.shape[0]
    allowed = np.ones(n_features, dtype=bool) if features is None else np.asarray(
        features, dtype=bool)
    if allowed.shape != (n_features,) or not allowed.any():
        raise ValueError("features must be a boolean mask of the features with at least one "
                         "True entry.")
    varying = (feature_max > feature_min) & allowed
    counts = np.asarray(_stumps_per_feature(varying if varying.any() else allowed,
                                            n_estimators), dtype=np.intp)
    if max_per_feature is not None:
        others = (feature_max > feature_min) & ~allowed
        if others.any() and counts.max() > max_per_feature:
            counts = np.minimum(counts, int(max_per_feature))
            counts += np.asarray(_stumps_per_feature(others, n_estimators - counts.sum()),
                                 dtype=np.intp) * others
    return counts


def make_stumps(feature_min, feature_max, n_estimators, placement="range", histogram=None,
                features=None, max_per_feature=None):
    """Decision stumps spread evenly over the features that vary.

    Each of the ``n_varying`` features with ``feature_max > feature_min``
    (among ``features`` when given) gets ``n_estimators // n_varying``
    stumps (the first ``n_estimators % n_varying`` of them one more) and a
    constant feature none (all of them share the stumps when none varies);
    feature f gets q of them, with thresholds placed by ``placement``:

    * ``"range"``: evenly spaced strictly inside the feature's own range,
      ``min_f + (r + 1) (max_f - min_f) / (q + 1)``, ``r = 0 .. q - 1``;
    * ``"global_range"``: the same over the range of all features together,
      ``[min_f' min_f', max_f' max_f']``, for every feature (suits features
      on one common scale).  The authors' code also puts the same
      thresholds on every feature over the range of all of them, but not
      these stumps: it gives every column of its data (the features and a
      constant column it appends), constant ones included, ``q =
      ceil(n_estimators / (n_features + 1))`` thresholds at ``min + (r + 1)
      (max - min) / q``, the last at the maximum (a stump constant on the
      data), where skfed spreads ``n_estimators`` over the varying features
      strictly inside the range;
    * ``"quantile"``: at the levels ``(r + 1) / (q + 1)`` of the feature's
      distribution, read from ``histogram`` (counts of the pooled samples
      in ``n_bins`` equal bins over ``[min_f, max_f]``) by linear
      interpolation inside the bin (suits skewed or heavy-tailed features).

    Parameters
    ----------
    feature_min, feature_max : array-like of shape (n_features,)
    n_estimators : int
    placement : {"range", "global_range", "quantile"}, default="range"
    histogram : array-like of shape (n_features, n_bins), default=None
        Needed by ``"quantile"``.
    features : array-like of shape (n_features,), dtype=bool, default=None
        The features that may get stumps (e.g. those a feature vote
        selected); None: all.
    max_per_feature : int, default=None
        At most this many stumps on each of ``features``; the stumps they
        cannot take are spread evenly over the other varying features (when
        there is none, the cap is not applied).  A feature's ``n`` training
        samples split it at most ``n - 1`` different ways, so a feature vote
        passes the pooled number of training samples: a vote that singles
        out a few features of many does not pile redundant stumps on them.

    Returns
    -------
    features : ndarray of shape (n_estimators,), dtype=intp
    thresholds : ndarray of shape (n_estimators,), dtype=float64
    """
    feature_min = np.asarray(feature_min, dtype=np.float64)
    feature_max = np.asarray(feature_max, dtype=np.float64)
    n_features = feature_min.shape[0]
    counts = _stump_counts(feature_min, feature_max, n_estimators, features,
                           max_per_feature).tolist()
    if placement == "global_range":
        feature_min = np.full(n_features, feature_min.min())
        feature_max = np.full(n_features, feature_max.max())
    elif placement == "quantile":
        if histogram is None:
            raise ValueError('placement="quantile" needs the histogram of every feature.')
        histogram = np.asarray(histogram, dtype=np.float64)
    elif placement != "range":
        raise ValueError(
            f'placement must be "range", "global_range" or "quantile", got {placement!r}.'
        )
    features, thresholds = [], []
    for f, q in enumerate(counts):
        if q == 0:
            continue
        r = np.arange(1, q + 1)
        features.append(np.full(q, f, dtype=np.intp))
        if placement == "quantile":
            cdf = np.concatenate([[0.0], np.cumsum(histogram[f])])
            cdf /= cdf[-1]
            edges = np.linspace(feature_min[f], feature_max[f], histogram.shape[1] + 1)
            # cdf is non-decreasing: interpolate the inverse, first crossing.
            levels = r / (q + 1)
            right = np.searchsorted(cdf, levels, side="left")
            left = right - 1
            span = cdf[right] - cdf[left]
            frac = np.where(span > 0, (levels - cdf[left]) / np.where(span > 0, span, 1), 0)
            thresholds.append(edges[left] + frac * (edges[right] - edges[left]))
        else:
            thresholds.append(
                feature_min[f] + r * (feature_max[f] - feature_min[f]) / (q + 1)
            )
    return np.concatenate(features), np.concatenate(thresholds)


def _vote_size(n_candidates):
    """Features a node votes for: ``ceil(sqrt(n_candidates))``."""
    return int(math.ceil(math.sqrt(max(int(n_candidates), 1))))


def feature_relevance(X, y, offsets, sample_weight=None):
    """Every node's correlation ratio of every feature with its labels.

    For node k (rows ``offsets[k]:offsets[k + 1]`` of ``X``) and feature j,
    with ``s_i`` the sample weights, ``m`` the node's weighted mean of
    ``x_j`` and ``m_c`` its mean over the node's samples of class c (weight
    ``S_c``)::

        eta2[k, j] = sum_c S_c (m_c - m)^2 / sum_i s_i (x_ij - m)^2,

    the share of the feature's variance at the node that its classes
    explain (the squared point-biserial correlation for two classes); 0
    where the feature is constant at the node (or the node holds one
    class).  Scale-free and invariant to any affine change of a feature.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Samples sorted by node.
    y : ndarray of shape (n_samples,)
        Class codes ``0 .. n_classes - 1``.
    offsets : ndarray of shape (n_nodes + 1,)
    sample_weight : ndarray of shape (n_samples,), default=None

    Returns
    -------
    eta2 : ndarray of shape (n_nodes, n_features)
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    offsets = np.asarray(offsets, dtype=np.intp)
    sw = np.ones(X.shape[0]) if sample_weight is None else np.asarray(
        sample_weight, dtype=np.float64)
    K = offsets.shape[0] - 1
    if np.any(np.diff(offsets) <= 0):
        raise ValueError("feature_relevance needs at least one sample per node.")
    starts = offsets[:-1]
    node = np.repeat(np.arange(K), np.diff(offsets))
    mass = np.add.reduceat(sw, starts)
    mean = np.add.reduceat(sw[:, None] * X, starts, axis=0) / np.where(
        mass > 0, mass, 1.0)[:, None]
    centred = X - mean[node]
    weighted = sw[:, None] * centred
    total = np.add.reduceat(weighted * centred, starts, axis=0)
    between = np.zeros_like(total)
    for c in np.unique(y):
        inside = (y == c).astype(np.float64)
        weight = np.add.reduceat(sw * inside, starts)
        part = np.add.reduceat(weighted * inside[:, None], starts, axis=0)
        # S_c (m_c - m)^2 = (sum over class c of s_i (x_ij - m))^2 / S_c
        between += part**2 / np.where(weight > 0, weight, np.inf)[:, None]
    # A feature constant at the node (up to rounding) explains nothing, and
    # a node with one class has no between-class variance (only rounding).
    scale = np.add.reduceat(sw[:, None] * X**2, starts, axis=0)
    varies = total > 1e-12 * scale
    eta2 = np.where(varies, np.minimum(between / np.where(varies, total, 1.0), 1.0), 0.0)
    return np.where(eta2 > 1e-12, eta2, 0.0)


def node_votes(relevance, candidates, n_votes, tie_key):
    """Each node's vote: its ``n_votes`` most relevant candidate features.

    A node votes for the features of ``candidates`` with the largest
    ``relevance`` in its row, among those with positive relevance (at most
    ``n_votes``; a node with none abstains); ties are broken by ``tie_key``
    (a random permutation key per node and feature), so that features of
    equal relevance are equally likely to be chosen.

    Returns
    -------
    votes : ndarray of shape (n_nodes, n_features), dtype=bool
    """
    relevance = np.where(candidates[None, :], relevance, 0.0)
    # Sort by relevance (descending), ties by the random key.
    order = np.lexsort((tie_key, -relevance), axis=1)
    top = order[:, :n_votes]
    votes = np.zeros(relevance.shape, dtype=bool)
    rows = np.repeat(np.arange(relevance.shape[0]), top.shape[1])
    chosen = top.ravel()
    keep = relevance[rows, chosen] > 0
    votes[rows[keep], chosen[keep]] = True
    return votes


def vote_threshold(n_voters, n_votes, n_candidates, level=0.05):
    """Least number of votes that singles a feature out of ``n_candidates``.

    Under the null hypothesis that no candidate is more relevant than
    another, each of the ``n_voters`` nodes votes for a given feature with
    probability ``p = n_votes / n_candidates`` (its ranks are exchangeable),
    so the feature's count is Binomial(n_voters, p); the threshold is the
    smallest ``v`` with ``P(count >= v) <= level / n_candidates``, so that
    on average at most ``level`` features are selected by chance
    (Bonferroni).  Relevant features only take votes from the others, which
    keeps the test conservative.
    """
    from scipy.stats import binom

    n_voters, n_candidates = int(n_voters), int(n_candidates)
    p = min(1.0, n_votes / max(n_candidates, 1))
    v = np.arange(n_voters + 2)
    # P(count >= v); 0 at v = n_voters + 1, so some v always qualifies.
    tail = binom.sf(v - 1, n_voters, p)
    return int(v[np.argmax(tail <= level / max(n_candidates, 1))])


class Stump:
    """The decision stump ``h(x) = +1 if x[feature] > threshold else -1``.

    A picklable base predictor for ``base_predictors``.
    """

    def __init__(self, feature, threshold):
        self.feature = int(feature)
        self.threshold = float(threshold)

    def __call__(self, X):
        return np.where(np.asarray(X)[:, self.feature] > self.threshold, 1.0, -1.0)

    def __repr__(self):
        return f"Stump(feature={self.feature}, threshold={self.threshold:g})"


def make_stump_predictors(feature_min, feature_max, n_estimators, placement="range"):
    """Stumps on a *public* feature range, as ``base_predictors``.

    The stumps of :func:`make_stumps` for the given range, one
    :class:`Stump` each.  Under ``privacy=`` Dada needs them: its own stumps
    are placed on the extremes of the nodes' samples, which it would have to
    send in the clear; give instead a range known without looking at the
    data (the domain of the features, e.g. ``[0, 1]`` for rates).

    Examples
    --------
    >>> from skfed.boosting import make_stump_predictors
    >>> make_stump_predictors([0, 0], [1, 1], 2)
    [Stump(feature=0, threshold=0.5), Stump(feature=1, threshold=0.5)]
    """
    features, thresholds = make_stumps(feature_min, feature_max, n_estimators, placement)
    return [Stump(f, t) for f, t in zip(features.tolist(), thresholds.tolist())]


def stump_predictions(X, features, thresholds, dtype=None):
    """``H[i, j] = +1 if X[i, features[j]] > thresholds[j] else -1``."""
    X = np.asarray(X)
    dtype = X.dtype if dtype is None else dtype
    H = np.where(X[:, features] > thresholds[None, :], 1.0, -1.0)
    return np.ascontiguousarray(H, dtype=dtype)


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


def _aggregation_tree(simulation):
    """A spanning tree of the topology for the setup's sums: ``(parent, order)``.

    On a complete topology, the binary heap over the node indices (node k's
    parent is ``(k - 1) // 2``: depth ``log2 n_nodes``, no adjacency built);
    otherwise a breadth-first tree of the topology rooted at node 0.
    ``parent[root] = -1``; ``order`` lists the nodes parents first.
    """
    K = simulation.n_nodes
    if simulation.is_complete:
        order = np.arange(K)
        parent = (order - 1) // 2
        parent[0] = -1
        return parent, order
    adjacency = simulation.adjacency
    _check_connected(adjacency)
    order, parent = breadth_first_order(adjacency, 0, directed=False,
                                        return_predecessors=True)
    parent = np.asarray(parent, dtype=np.intp)
    parent[parent < 0] = -1
    return parent, np.asarray(order, dtype=np.intp)


def _subtree_union(flags, parent, order):
    """``flags`` OR-ed over every node's subtree (children before parents)."""
    out = np.array(flags, dtype=bool, copy=True)
    for k in order[::-1].tolist():
        if parent[k] >= 0:
            out[parent[k]] |= out[k]
    return out


def _count_votes(ballots, varying, n_votes):
    """``(selected, votes, threshold)`` of the vote; every varying feature if none is."""
    voters = int(ballots.any(axis=1).sum())
    votes = ballots.sum(axis=0).astype(np.int64)
    threshold = vote_threshold(voters, n_votes, int(varying.sum()), level=_VOTE_LEVEL)
    selected = (votes >= threshold) & varying
    if not selected.any():
        selected = varying.copy()
    return selected, votes, threshold


def _vote_messages(simulation, ballots, selected, nodes=None):
    """Count the feature vote's messages up and down the aggregation tree.

    A node sends its parent the numbers of voters and of training samples
    of its subtree and the subtree's non-zero counts (an int32 and a ``ceil(log2 n_features)``-bit
    index each, or all ``n_features`` counts when that is smaller); the
    parent sends the selection back (a bit per feature, or the selected
    indices when that is smaller).  Only the messages sent by ``nodes`` are
    counted (all by default); returns the bytes of all the messages.
    """
    K, d = ballots.shape
    if K < 2:
        return 0
    parent, order = _aggregation_tree(simulation)
    n_counted = _subtree_union(ballots, parent, order).sum(axis=1)
    bits = index_bits(d)
    dense = payload_bytes(n_int32=2 + d)
    down = payload_bytes(n_bits=min(d, int(selected.sum()) * bits))
    mine = None if nodes is None else set(np.asarray(nodes).tolist())
    counter = simulation.counter
    spent = 0
    for k in order.tolist():
        p = int(parent[k])
        if p < 0:
            continue
        m = int(n_counted[k])
        up = min(dense, payload_bytes(n_int32=2 + m, n_bits=m * bits))
        if mine is None or k in mine:
            counter.send_message(k, p, up)
        if mine is None or p in mine:
            counter.send_message(p, k, down)
        spent += up + down + 2 * counter.header_bytes
    return spent


def _tree_round_trip(simulation, up, down, nodes=None):
    """Count one convergecast (``up`` bytes per child) and broadcast (``down``).

    Every non-root node of the aggregation tree sends ``up`` payload bytes
    to its parent, and its parent sends it ``down``; only the messages sent
    by ``nodes`` are counted (all by default).  Returns the bytes of all the
    messages (headers included).
    """
    if simulation.n_nodes < 2:
        return 0
    parent, order = _aggregation_tree(simulation)
    mine = None if nodes is None else set(np.asarray(nodes).tolist())
    counter = simulation.counter
    for k in order.tolist():
        p = int(parent[k])
        if p >= 0:
            if mine is None or k in mine:
                counter.send_message(k, p, up)
            if mine is None or p in mine:
                counter.send_message(p, k, down)
    return (simulation.n_nodes - 1) * (up + down + 2 * counter.header_bytes)


# ------------------------------------------------------------------ privacy
# ------------------------------------------------------------------ privacy
# What a private fit treats as public (``privacy_public_``): not protected by
# the noise, known to every node and to an observer.
_SHARED_PUBLIC = {
    "node_sizes": "every node's number of samples m_k (its confidence c_k = m_k / max_l "
                  "m_l and its noise scale depend on it)",
    "class_set": "classes_, the set of labels present in the pooled data (one problem "
                 "per class, one-vs-rest)",
    "n_features": "the number of features",
    "schedule": "wake-up times, peer sampling, the step sizes and the budget stop "
                "(public randomness fixed by random_state, and counts)",
    "graph": "the collaboration graph, learned from the nodes' released models only "
             "(post-processing; no loss value or peer score is sent)",
}
_DADA_PUBLIC = dict(
    _SHARED_PUBLIC,
    base_predictors="the base predictors (stumps on a feature range given without "
                    "looking at the data)",
)
_PERSOLIN_PUBLIC = dict(
    _SHARED_PUBLIC,
    feature_scale="the bound on the feature scale behind the step size (features "
                  "standardized: mean square 1 per column)",
)


class _WakeupBudget:
    """Per-node privacy budget of an asynchronous fit: plan, stop, account.

    Every private step of a node (a local step or a wake-up) uses the
    calibrated mechanism ``uses_per_step`` times.  The mechanism is
    calibrated so that ``n_local`` local steps plus ``ceil(a + 2 sqrt(a))``
    wake-ups spend exactly the budget, ``a = max_iter / n_nodes`` the
    expected wake-ups of a node (its count is Binomial(max_iter, 1 /
    n_nodes): mean plus two standard deviations, so that few nodes run out);
    a node that has used all the wake-ups the accountant allows stops
    sending (the budget stop).
    """

    def __init__(self, spec, calibrate, *, n_nodes, max_iter, n_local, uses_per_step):
        self.epsilon, self.delta = spec.budget()
        mean = max_iter / n_nodes
        self.planned = math.ceil(mean + 2.0 * math.sqrt(mean))
        self.n_local, self.per = int(n_local), int(uses_per_step)
        n_plan = self.per * (self.n_local + self.planned)
        self.mechanism = calibrate(self.epsilon, self.delta, n_plan)
        limit = self.per * (self.n_local + int(max_iter))
        affordable = max_uses(self.mechanism, self.epsilon, self.delta, limit, n_plan)
        self.affordable = max(affordable // self.per - self.n_local, 0)
        self.wakeups_left = np.full(n_nodes, self.affordable, dtype=np.int64)
        self.stopped_at = np.full(n_nodes, -1, dtype=np.int64)
        self.local_done = np.zeros(n_nodes, dtype=np.int64)

    def uses(self):
        return self.per * (self.local_done + self.affordable - self.wakeups_left)

    def finish(self, estimator, state, composition, public, **extra):
        """Set ``privacy_spent_``, ``privacy_``, ``privacy_public_`` and
        ``privacy_guarantee_void_``; drop the exact objective curve of a
        finite budget; warn about stopped nodes."""
        uses = self.uses()
        estimator.privacy_spent_ = epsilon_spent(self.mechanism, uses, self.delta)
        estimator.privacy_ = describe(
            self.mechanism, uses=uses, delta=self.delta, composition=composition,
            planned_wakeups=self.planned, affordable_wakeups=self.affordable,
            stopped_at=self.stopped_at.copy(), level="sample (replace one)",
            noise_source=state.source.describe(), **extra,
        )
        estimator.privacy_public_ = dict(public)
        record_noise_source(estimator, state.source)
        if math.isfinite(self.epsilon):
            # The objective values are exact functions of the training data:
            # a private fit does not keep them.
            estimator.objective_curve_ = None
            estimator.objective_ = None
        stopped = np.flatnonzero(self.stopped_at >= 0)
        if stopped.size:
            labels = estimator.nodes_.tolist()
            names = ", ".join(
                f"{labels[k]!r} at iteration {self.stopped_at[k]}" for k in stopped
            )
            warnings.warn(
                f"{type(estimator).__name__}: {stopped.size} node(s) spent their privacy "
                f"budget (epsilon={self.epsilon:g}, delta={self.delta:g}) after "
                f"{self.affordable} wake-ups and stopped sending, like dropped nodes: "
                f"{names}.",
                PrivacyBudgetWarning,
                stacklevel=3,
            )


def fw_score_sensitivity(n_samples, beta):
    """Sensitivity of Dada's Frank-Wolfe scores to one replaced sample.

    The data part of node k's gradient is ``-d_k c_k A_k^T eta_k``, with
    ``eta_k`` the softmax weights ``w_i / sum_l w_l``, ``w_i =
    exp(-margin_i)``, and ``|A_k[i, j]| <= 1``.  A model in the l1 ball of
    radius ``beta`` over base predictors with values in [-1, 1] has margins
    in ``[-beta, beta]``, so every ``w_i`` lies in ``[e^-beta, e^beta]``.
    Write ``(A_k^T eta)_j = nu + w (a - nu) / (R + w)`` for the sample
    ``(a, w)`` that changes, with ``R >= (m - 1) e^-beta`` the weight of the
    ``m - 1`` others and ``nu`` in [-1, 1] their weighted mean.  Replacing
    it by ``(a', w')`` moves the score by ``(a' - nu) f(w') - (a - nu) f(w)``,
    ``f(x) = x / (R + x)`` increasing, which is at most ``(1 - nu) f(e^beta)
    + (1 + nu) f(e^beta) = 2 f(e^beta)``::

        Delta_A = 2 e^beta / ((m - 1) e^-beta + e^beta) = 2 / (1 + (m - 1) e^(-2 beta)),

    attained when the others all have margin ``beta`` and the replaced
    sample margin ``-beta`` with ``a = -1, a' = +1``.  The score of node k
    moves by at most ``d_k c_k Delta_A`` (the smoothing term depends only on
    models, which are post-processing of earlier private choices).
    """
    n_samples = np.asarray(n_samples, dtype=np.float64)
    return 2.0 / (1.0 + (n_samples - 1.0) * math.exp(-2.0 * float(beta)))


def _check_private_inputs(estimator, sample_weight):
    if sample_weight is not None:
        raise ValueError(
            f"{type(estimator).__name__}(privacy=...) does not accept sample_weight: "
            "the sensitivities are derived for unit-weight samples (one replaced "
            "sample); a weighted sample would need a public bound on its weight."
        )


# -------------------------------------------------------------- base class
class _BaseGraphPersonalized(FederatedClassifierMixin, FederatedMixin, BaseEstimator):
    """Shared driver: validation, one-vs-rest labels, graph, alternation."""

    _common_constraints = {
        "mu": [Interval(numbers.Real, 0, None, closed="left")],
        "graph": "no_validation",
        "mu_graph": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "lambda_graph": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, None, closed="neither")],
        "kappa": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_neighbors": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "sparsify_graph": [None, StrOptions({"connected"})],
        "graph_update_every": [None, StrOptions({"n_nodes"}),
                               Interval(numbers.Integral, 1, None, closed="left")],
        "graph_init_iter": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "graph_iter": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "max_iter": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "communication_budget": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "network": "no_validation",
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        **FederatedMixin._federated_parameter_constraints,
    }

    # Graph steps per node of the initial graph learning (graph_init_iter=None).
    _graph_init_per_node = 50
    # Iterations per node of max_iter=None under a finite privacy budget
    # (None: the non-private default, 100).
    _private_iter_per_node = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        return tags

    # ---------------------------------------------------------------- helpers
    def _mu_graph(self):
        mu_graph = self.mu if self.mu_graph is None else self.mu_graph
        if self.graph is None and mu_graph <= 0:
            raise ValueError(
                "Learning the graph (graph=None) needs mu_graph > 0; with "
                "mu_graph=None it equals mu, so set mu > 0 or give mu_graph."
            )
        return mu_graph

    def _fixed_graph(self, simulation):
        K = simulation.n_nodes
        graph = self.graph
        if hasattr(graph, "nodes") and hasattr(graph, "edges"):
            labels = self.nodes_.tolist()
            if set(graph.nodes()) == set(labels) and set(labels) != set(range(K)):
                import networkx as nx

                graph = nx.to_scipy_sparse_array(graph, nodelist=labels, weight="weight")
        W = check_adjacency(graph, K, name="graph", allow_weights=True)
        if simulation.is_complete:
            return W
        outside = sparse.csr_matrix(W - W.multiply(simulation.adjacency))
        outside.eliminate_zeros()
        if outside.nnz:
            raise ValueError(
                "graph has edges between nodes that the network topology does not "
                "connect; every edge of the collaboration graph must be a link of "
                "network.topology."
            )
        return W

    def _node_rows(self, layout, sw):
        mass = np.add.reduceat(sw, layout.offsets[:-1])
        empty = np.flatnonzero(mass <= 0)
        if empty.size:
            raise ValueError(
                f"Node {self.nodes_.tolist()[empty[0]]!r} has no sample with positive weight; "
                "every node needs data (sample_weight sums to 0 there)."
            )
        return mass

    def _prepare(self, X, y, groups, sample_weight):
        X, y, sw, layout = self._validate_fit_data(X, y, groups, sample_weight)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in the "
                f"data, but the data contains only one class: {self.classes_[0]!r}."
            )
        dtype = X.dtype
        if sw is None:
            sw = np.ones(X.shape[0], dtype=dtype)
        Xs = layout.sort(X)
        ys = y_enc.ravel()[layout.order]
        sws = np.ascontiguousarray(sw[layout.order], dtype=dtype)
        mass = self._node_rows(layout, sws.astype(np.float64))
        if n_classes == 2:
            Y = np.where(ys == 1, 1.0, -1.0)[None, :]
        else:
            Y = np.where(ys[None, :] == np.arange(n_classes)[:, None], 1.0, -1.0)
        Y = np.ascontiguousarray(Y, dtype=dtype)
        return Xs, Y, sws, layout, mass

    def _start(self, rng):
        check_network_faults(self, self.network, {
            "straggler_rate": "a node's step is atomic and asynchronous (a slow "
            "node wakes up less often, which its random clock already models), "
            "so there is no partial work to cut",
        })
        network = resolve_network(self.network)
        K = len(self.nodes_)
        simulation = network.start(K, server=False, random_state=rng, node_labels=self.nodes_)
        seeds = node_seeds(rng, K + 2)
        return simulation, seeds

    def _schedule(self, n_nodes):
        """``(max_iter, n_local)``: global iterations and purely local steps."""
        per_node = 100
        privacy = getattr(self, "privacy", None)
        if self._private_iter_per_node and privacy is not None and math.isfinite(privacy.epsilon):
            per_node = self._private_iter_per_node
        max_iter = per_node * n_nodes if self.max_iter is None else self.max_iter
        learned = self.graph is None and n_nodes > 1
        return max_iter, (max(1, math.ceil(max_iter / n_nodes)) if learned else 0)

    def _offline(self, simulation, n_steps):
        drop = simulation.network.drop_rate
        if drop == 0 or n_steps == 0:
            return np.zeros(0, dtype=np.uint8)
        return (simulation.rng.uniform(size=n_steps) < drop).astype(np.uint8)

    def _peer_scores(self, state, runner, simulation, initial):
        """``(score_data, bytes)`` of a graph phase; ``(None, 0)`` without peer scoring.

        With ``peer_scoring`` (not under a finite ``privacy`` budget: the
        scores depend on the data, like the losses), every node scores the
        models it receives on its own samples (computed when a graph step
        needs them).  Before a re-learning (``initial=False``) the nodes
        first refresh the scores of their current graph neighbours, whose
        models they hold: one float64 message per neighbour, whose bytes
        are returned.  A graph step's answer carries the peer's score
        (counted by the graph steps).
        """
        private = state.dp is not None and math.isfinite(state.dp.epsilon)
        if not getattr(self, "peer_scoring", False) or private:
            return None, 0
        spent = 0 if initial else state.score_exchange(runner, simulation.counter)
        return state.peer_scores(runner), spent

    def _refit_private_final(self, state, rng):
        """Each node's final (kept, never sent) models under a finite budget.

        Returns ``(models, trust, radius)``: the node refits its own block
        on its exact samples with its graph neighbours held at their
        released models (:mod:`skfed._private_refit`); the released models
        stay in ``state.public``.  Returns None without a finite budget.
        """
        if state.dp is None or not math.isfinite(state.dp.epsilon):
            return None
        released = np.asarray(state.public, dtype=np.float64)
        models = np.empty_like(released)
        trust = np.zeros(released.shape[:2])
        radius = np.zeros(released.shape[:2])
        W = state.graph.tocsr()
        for k in range(state.K):
            rows = slice(state.offsets[k], state.offsets[k + 1])
            prior = neighbour_prior(W, released, k)
            S = np.asarray(state.Y[:, rows], dtype=np.float64)
            if isinstance(state, _BoostingState):
                H = np.asarray(state.H[rows], dtype=np.float64)
                models[k], trust[k], radius[k] = refit_boosting(H, S, prior, rng)
            else:
                Z = np.asarray(state.X[rows], dtype=np.float64)
                models[k], trust[k] = refit_linear(Z, S, prior, state.n_penalized,
                                                   self.loss, rng)
        return models.astype(state.dtype), trust, radius

    def _shared_coef(self):
        """Models a node unseen in fit averages: the released ones of a private fit."""
        return self._full_coef(released=True) if hasattr(self, "released_coef_") else None

    # ------------------------------------------------------------------- fit
    def _fit_alternating(self, state, simulation, seeds, n_jobs_nodes, graph_runner=_GraphRunner):
        """Alternate asynchronous model steps and graph steps; set attributes.

        ``graph_runner`` builds the graph learner (``skfed.engines.mpi``
        passes one whose steps run on MPI ranks).
        """
        K = len(self.nodes_)
        max_iter, n_local = self._schedule(K)
        budget = -1 if self.communication_budget is None else self.communication_budget
        clock = seeds[K : K + 1].copy()
        graph_clock = seeds[K + 1 : K + 2].copy()
        node_state = seeds[:K].copy()
        state.node_state = node_state
        spent = state.setup_bytes
        learned = self.graph is None and K > 1
        curves = []
        runner = None
        if learned:
            mu_graph = self._mu_graph()
            runner = graph_runner(
                simulation, mu=self.mu, mu_graph=mu_graph, lambda_graph=self.lambda_graph,
                delta=self.delta, kappa=self.kappa, clock=graph_clock,
                node_state=node_state, max_neighbors=self.max_neighbors,
            )
            # The graph is first learned from purely local models.
            state.local_models(n_local, n_jobs_nodes)
            init_iter = (self._graph_init_per_node * K if self.graph_init_iter is None
                         else self.graph_init_iter)
            data, _ = self._peer_scores(state, runner, simulation, initial=True)
            _, spent, _, _ = runner.run(
                state.graph_models(), state.graph_losses(), init_iter,
                model_dtype=state.dtype, budget=budget, spent=spent, score_data=data,
            )
            if self.sparsify_graph == "connected":
                runner.sparsify_to_connected()
            # The models and losses the graph was learned from (kept for
            # add_nodes when the graph is not re-learned later).
            graph_models = state.graph_models().copy()
            graph_losses = np.array(state.graph_losses(), dtype=np.float64)
            # The joint phase continues from the local models (alternating
            # minimization of the joint objective); the step counter starts at 0.
            W = runner.graph_csr()
        elif self.graph is None:
            W = sparse.csr_matrix((K, K))
        else:
            W = self._fixed_graph(simulation)
        self.n_graph_updates_ = 0
        state.set_graph(W)
        n_iter = 0
        t = 0
        graph_iter = K if self.graph_iter is None else self.graph_iter
        stopped = budget >= 0 and spent >= budget
        while n_iter < max_iter and not stopped:
            block = max_iter - n_iter
            updating = learned and self.graph_update_every is not None
            if updating:
                every = K if self.graph_update_every == "n_nodes" else self.graph_update_every
                block = min(block, every)
            offline = self._offline(simulation, block)
            n_done, n_updates, spent, curve = state.async_steps(
                t, block, clock, node_state, offline, simulation, budget, spent
            )
            curves.append(curve)
            n_iter += n_done
            t += n_updates
            stopped = n_done < block or (budget >= 0 and spent >= budget)
            if updating and n_iter < max_iter and not stopped and graph_iter > 0:
                data, exchanged = self._peer_scores(state, runner, simulation,
                                                    initial=False)
                spent += exchanged
                _, spent, _, _ = runner.run(
                    state.graph_models(), state.graph_losses(), graph_iter,
                    model_dtype=state.dtype, budget=budget, spent=spent, score_data=data,
                )
                self.n_graph_updates_ += 1
                if self.sparsify_graph == "connected":
                    # The objective is recomputed: the dropped weights are
                    # not in the graph steps' running change.
                    runner.sparsify_to_connected()
                    state.set_graph(runner.graph_csr())
                else:
                    state.set_graph(runner.graph_csr(), runner.linear_change)
                stopped = budget >= 0 and spent >= budget
        self.n_iter_ = int(n_iter)
        self.n_updates_ = int(t)
        self.objective_curve_ = (
            np.concatenate(curves) if curves else np.zeros(0, dtype=np.float64)
        )
        self.objective_ = state.objective()
        graph = state.graph.copy()
        self.collaboration_graph_ = graph
        self.confidence_ = state.confidence.copy()
        self._set_communication(simulation)
        # What add_nodes needs later (skfed._graph_join): every node's
        # confidence-weighted loss as its graph-step answers carry it (zeros
        # under a finite privacy budget), the models the graph was learned
        # from, the largest node mass (the newcomers' confidences), the rogue
        # draw and the fit's node count (the schedule).  Public or already
        # sent; no raw row is kept.
        # With a graph learned once (graph_update_every=None) a newcomer
        # learns its row as the fit did, from the models and losses the
        # graph was learned from (the local ones); otherwise from the final
        # ones.
        once = learned and self.graph_update_every is None
        self._join_info = {
            "losses": (graph_losses if once
                       else np.array(state.graph_losses(), dtype=np.float64)),
            "graph_models": graph_models.reshape(state.public.shape) if once else None,
            "max_mass": float(state.max_mass),
            "rogue": np.asarray(simulation.rogue, dtype=bool).copy(),
            "n_fit": int(K),
        }
        return state


    # ------------------------------------------------------------- joining
    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Give nodes that join after the fit their place in the graph and a model.

        The fitted nodes' models and weights are held fixed; each new node
        (every id of ``groups``, none of them in ``nodes_``) runs, on its
        own samples only:

        1. the fit's purely local steps (``ceil(max_iter / n_fitted)``);
        2. a query to ``min(n_nodes, 10 kappa)`` nodes drawn by the
           peer-sampling service for their model, loss and degree (what a
           graph step receives: the models the graph was learned from, the
           local ones when it was learned once; dropped nodes do not
           answer, rogue ones answer corrupted values);
        3. its row of the graph objective with every other weight fixed,
           solved exactly, then the fit's ``max_neighbors`` cap and
           ``sparsify_graph`` threshold (its neighbours then send their
           final models if they answered with local ones);
        4. the fit's mean number of wake-ups of a node
           (``ceil(max_iter / n_fitted)``) of model steps (Frank-Wolfe for
           Dada, gradient steps for Perso-lin) with its neighbours' models
           fixed, re-solving its row as often as the fit re-learns its graph
           (``graph_update_every``); it then sends each neighbour its weight.

        Nodes joined earlier answer like fitted ones.  With a fixed
        ``graph`` a new node still learns its row by the graph objective
        (``mu_graph``, ``lambda_graph``, ``delta``): the given graph does not
        say where newcomers belong.  Under a finite
        ``privacy`` budget no loss is sent, every step of a new node is
        private with the fit's mechanism (as many as a fitted node could
        afford) and its spend is appended to ``privacy_spent_``.  Stragglers
        are refused as in ``fit``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples of the new nodes, with the features of ``fit``.
        y : array-like of shape (n_samples,)
            Their classes (classes of ``classes_`` only).
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``); each
            must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights inside each new node's loss; every new node
            needs a positive total (its mass sets its confidence, relative
            to the largest node mass of the fit).

        Returns
        -------
        self
            With the new nodes appended to ``nodes_``, ``coef_``,
            ``intercept_``, ``confidence_`` and ``collaboration_graph_``
            (rows of the fitted nodes unchanged but for their edges to the
            new nodes), and what the join sent in ``join_communication_``
            (``n_bytes_sent_`` and ``n_messages_`` include it).

        Examples
        --------
        >>> import numpy as np
        >>> from skfed.boosting import PersonalizedLinearClassifier
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
        >>> groups = np.repeat([0, 1, 2, 3, 4], 20)
        >>> clf = PersonalizedLinearClassifier(random_state=0)
        >>> clf = clf.fit(X[:80], y[:80], groups=groups[:80])
        >>> before = clf.coef_.copy()
        >>> clf = clf.add_nodes(X[80:90], y[80:90], groups=groups[80:90])
        >>> clf.nodes_.tolist(), bool(np.array_equal(clf.coef_[:4], before))
        ([0, 1, 2, 3, 4], True)
        >>> bool(clf.score(X[90:], y[90:], groups=groups[90:]) > 0.8)
        True
        """
        from .._graph_join import graph_join_nodes

        check_is_fitted(self)
        return graph_join_nodes(self, X, y, groups, sample_weight)


# ------------------------------------------------------------- Dada state
class _StateMixin:
    """Graph bookkeeping shared by the Dada and Perso-lin states."""

    current = None  # running value of eq. 1, kept exact by the kernels
    dp = None  # _WakeupBudget of a private fit
    source = None  # NoiseSource of a private fit: all of its noise
    stream = None  # its stream of the asynchronous phase
    node_state = None  # per-node public random states (set by the driver)
    n_iter_done = 0
    max_mass = None  # the largest node mass (the confidences' scale), set by the fit

    def graph_models(self):
        return self.public.reshape(self.K, -1)

    def graph_losses(self):
        if self.dp is not None and math.isfinite(self.dp.epsilon):
            # Private fits do not send loss values: the graph is learned
            # from the models alone (post-processing of private messages).
            return np.zeros(self.K)
        return self.confidence * self.losses.sum(axis=1)

    def set_graph(self, W, linear_change=None):
        """Use graph W; ``linear_change`` (from the graph steps) updates eq. 1 exactly."""
        W = sparse.csr_matrix(W, dtype=np.float64)
        W.eliminate_zeros()
        W.sort_indices()
        old_degree = getattr(self, "degree", None)
        self.graph = W
        self.indptr, self.indices, self.weights = _csr_arrays(W)
        self.degree = np.asarray(W.sum(axis=1)).ravel()
        if linear_change is None or self.current is None or self.rogue.any():
            self.current = None
        else:
            # A node of degree 0 weighs its loss by 1 instead of 0.
            isolated = (self.degree == 0).astype(float) - (old_degree == 0).astype(float)
            self.current += linear_change + float(
                (isolated * self.confidence) @ self.losses.sum(axis=1)
            )

    def running_objective(self):
        if self.current is None:
            self.current = self.objective()
        return self.current

    def peer_scores(self, runner):
        """What the graph steps of a phase need to score the models they receive."""
        return self.score_data()

    def score_exchange(self, runner, counter, nodes=None):
        """Count every node's score of each graph neighbour (one float64 each).

        Only ``nodes``' messages are counted (all by default); returns the
        bytes of all nodes' messages.
        """
        payload = payload_bytes(n_float64=1)
        rows, cols, _, _ = runner.links()
        if nodes is not None:
            mine = np.isin(rows, np.asarray(nodes))
            counted_rows, counted_cols = rows[mine], cols[mine]
        else:
            counted_rows, counted_cols = rows, cols
        counter.send_pairs(np.ascontiguousarray(counted_rows, dtype=np.intp),
                           np.ascontiguousarray(counted_cols, dtype=np.intp),
                           np.full(counted_rows.size, payload, dtype=np.int64))
        return int(rows.size) * (payload + counter.header_bytes)


class _BoostingState(_StateMixin):
    """Arrays of one Dada fit, node-ordered (see ``_boosting_fast``)."""

    unit = None  # per node: quality grid step of its private choices
    choice_scale = 0

    def __init__(self, H, Y, sw, offsets, confidence, beta, mu, dtype, rogue, rogue_mode):
        self.H, self.Y, self.sw, self.offsets = H, Y, sw, offsets
        self.confidence = confidence
        self.beta, self.mu, self.dtype = float(beta), float(mu), dtype
        self.K = offsets.shape[0] - 1
        self.P = Y.shape[0]
        self.n_base = H.shape[1]
        self.rogue = rogue
        self.rogue_mode = rogue_mode
        self.setup_bytes = 0
        self.reset_models()

    def reset_models(self):
        self.alpha = np.zeros((self.K, self.P, self.n_base), dtype=self.dtype)
        self.public = np.zeros_like(self.alpha)
        self.margins = np.zeros((self.P, self.H.shape[0]))
        self.losses = np.zeros((self.K, self.P))
        lse_losses(self.margins, self.sw, self.offsets, self.losses)

    def local_models(self, n_steps, n_jobs):
        chunks = _node_chunks(self.K, n_jobs)

        private = {}
        if self.dp is not None:
            private = {"unit": self.unit, "scale": self.choice_scale}
            self.dp.local_done[:] = n_steps
        # One stream of secure words per thread.
        streams = {chunk: self.source.stream() for chunk in chunks} if private else {}

        def run(chunk):
            extra = dict(private, stream=streams[chunk]) if private else {}
            fw_local(self.H, self.Y, self.sw, self.offsets, self.alpha, self.margins,
                     self.losses, self.beta, n_steps, chunk[0], chunk[1], **extra)

        _run_chunks(run, chunks)
        self.public[...] = self.alpha


    def objective(self):
        """Eq. 1 recomputed from scratch (nodes of degree 0 weigh their loss by 1)."""
        return _graph_objective_value(self.alpha, self.losses, self.graph, self.degree,
                                      self.confidence, self.mu)

    def score_data(self):
        """What the graph steps need to score a received model on a node's data.

        ``(H, Y, sw, offsets, factor, loss, H8)``: the log-sum-exp of the
        margins (``loss`` None), weighted by the confidence ``c_k``; ``H8``
        is H as int8 when every entry is +-1 (decision stumps and the
        intercept), read by the scores instead of H (the same values, an
        eighth of the memory traffic), else None.
        """
        if not hasattr(self, "_H8"):
            exact = self.H.size and np.all(np.abs(self.H) == 1)
            self._H8 = np.ascontiguousarray(self.H, dtype=np.int8) if exact else None
        return (self.H, self.Y, self.sw, self.offsets,
                np.ascontiguousarray(self.confidence, dtype=np.float64), None, self._H8)

    def async_steps(self, t, n_steps, clock, node_state, offline, simulation, budget, spent):
        curve = np.zeros(n_steps)
        empty_i = np.zeros(0, dtype=np.intp)
        n_done, n_updates, spent, self.current = fw_async(
            self.H, self.Y, self.sw, self.offsets, self.alpha, self.public, self.margins,
            self.losses, self.indptr, self.indices, self.weights, self.degree,
            self.confidence, self.beta, self.mu, int(t), int(n_steps), clock, node_state,
            offline, self.rogue, self.rogue_mode, simulation.counter,
            fw_message_bytes(self.n_base, self.P), int(budget), int(spent),
            self.running_objective(), curve, empty_i, empty_i, np.zeros(0),
            **self._private_args(),
        )
        self.n_iter_done += n_done
        return n_done, n_updates, spent, curve[:n_done]

    def _private_args(self):
        if self.dp is None:
            return {}
        if self.stream is None:
            self.stream = self.source.stream()
        return {"unit": self.unit, "scale": self.choice_scale, "stream": self.stream,
                "wakeups_left": self.dp.wakeups_left, "stopped_at": self.dp.stopped_at,
                "it_offset": int(self.n_iter_done)}


def _graph_objective_value(models, losses, graph, degree, confidence, mu):
    """``sum_k d'_k c_k L_k + (mu / 2) sum_{k<l} w_kl ||m_k - m_l||^2`` (d' = d or 1 if d = 0).

    The smoothness term is ``sum_k d_k ||m_k||^2 - sum_{k,l} w_kl m_k.m_l``.
    """
    K = models.shape[0]
    weight = np.where(degree > 0, degree, 1.0) * confidence
    value = float(weight @ losses.sum(axis=1))
    if graph.nnz and mu:
        A = models.reshape(K, -1).astype(np.float64)
        value += 0.5 * mu * float(
            degree @ np.einsum("ij,ij->i", A, A) - np.sum(A * (graph @ A))
        )
    return value


def _node_chunks(n_nodes, n_jobs):
    if n_jobs is None or n_jobs == 1 or n_nodes == 1:
        return [(0, n_nodes)]
    import os

    n = (os.cpu_count() or 1) if n_jobs < 0 else n_jobs
    n = max(1, min(int(n), n_nodes))
    bounds = np.linspace(0, n_nodes, n + 1).astype(int)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _run_chunks(function, chunks):
    if len(chunks) == 1:
        function(chunks[0])
        return
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        list(pool.map(function, chunks))


# ------------------------------------------------------------------- Dada
class DecentralizedBoostingClassifier(_BaseGraphPersonalized):
    """Dada: personalized l1-boosting per node, over a learned collaboration graph.

    Every node k boosts the same ``n_base`` base predictors ``h_j`` (decision
    stumps by default) into its own model ``alpha_k``; nodes whose tasks are
    similar pull their models together along the weighted edges of a
    collaboration graph, which is learned at the same time (Zantedeschi,
    Bellet & Tommasi, AISTATS 2020).  With ``A_k[i, j] = y_i h_j(x_i)`` the
    margin matrix of node k (it never leaves the node), the models solve
    (eq. 1)::

        min  sum_k d_k c_k L_k(alpha_k) + (mu / 2) sum_{k<l} w_kl ||alpha_k - alpha_l||^2
        s.t. ||alpha_k||_1 <= beta  for every node k,

        L_k(alpha_k) = log sum_i s_i exp(-[A_k alpha_k]_i),

    with ``w_kl`` the graph weights, ``d_k = sum_l w_kl`` the degrees,
    ``c_k = m_k / max_l m_l`` the confidence of node k (``m_k`` its total
    sample weight) and ``s_i`` the sample weights.  When the graph is
    learned (``graph=None``) it minimizes, given the models, the same
    objective plus ``mu_graph * (lambda_graph * ||w||^2 - sum_k log(d_k + delta))``
    (eq. 5, :mod:`skfed.graph`).

    **Models given the graph: asynchronous Frank-Wolfe.** Every node has an
    independent Poisson clock of rate 1; at each global iteration the node
    whose clock ticks, which is drawn uniformly at random (the superposition
    of n_nodes rate-1 Poisson processes ticks at rate n_nodes and each tick
    belongs to any given node with probability 1 / n_nodes, independently),
    computes the gradient ``g = -d_k c_k A_k^T softmax(-A_k alpha_k) + mu
    (d_k alpha_k - sum_l w_kl alpha_l)`` (eqs. 3-4) from its latest copies
    of its neighbours' models, moves toward the l1-ball vertex
    ``-beta sign(g_j) e_j``, ``j = argmax |g_j|``, with step
    ``gamma = 2 K / (t + 2 K)`` — K the number of nodes and t the number of
    updates done so far by all nodes together, the global iteration counter
    of Theorem 1 (block-coordinate Frank-Wolfe, ``E[f(alpha_t)] - f* <=
    2 K (C + f(alpha_0) - f*) / (t + 2 K)``) — and sends ``(j, gamma *
    sign)`` to its neighbours, who replay the step on their copy.  The
    margins ``A_k alpha_k`` are updated incrementally (one column of
    ``A_k``), so a step costs O(m_k n_base) for the gradient plus
    O(deg_k n_base) for the neighbour sum.  A node of degree 0 weighs its
    loss by 1 instead of 0 (it then boosts alone).

    **Graph given the models.** First learned from purely local models
    (each node boosts alone for ``ceil(max_iter / n_nodes)`` Frank-Wolfe
    steps, nothing sent), each node scoring its peers' models on its own
    data (``peer_scoring``); the decentralized Frank-Wolfe then starts from
    these local models (alternating minimization of the joint objective;
    its first steps, with gamma close to 1, mostly replace them) and the
    graph is re-learned every ``graph_update_every`` model iterations; see
    :class:`~skfed.graph.CollaborationGraphLearner` for the graph steps.
    The step counter t is not reset when the graph changes.  Smoothing makes
    connected models alike, so re-learning tends to add edges between
    neighbours of neighbours; ``max_neighbors`` (Remark 2 of the paper)
    bounds every node's number of neighbours by dropping the edges toward
    the most different models, which keeps the re-learned graph sparse and,
    on clustered tasks, inside the clusters.  ``graph_update_every=None``
    keeps the graph learned from the local models.

    **Multiclass** problems are solved one-vs-rest: one binary problem per
    class, all sharing one collaboration graph (the graph objective sums the
    problems' losses and model distances); a waking node does one step on
    every problem and sends all of them in one message.

    **Messages** (byte model of :mod:`skfed.network`): min/max flooding
    over the topology for the stump thresholds (every node sends its
    ``2 n_features`` extremes to each topology neighbour in the first
    round, and again in a later round only if a neighbour's message
    improved them, so the flood ends by itself within the topology's
    diameter; on a complete topology one round suffices — no raw data
    moves); a model update
    is ``ceil(log2 n_base)`` bits of coordinate index plus one float64
    signed step per problem, to each neighbour; graph steps as in
    :class:`~skfed.graph.CollaborationGraphLearner` (models sent dense or as
    sparse index/value pairs, whichever is cheaper).  A round of
    ``bytes_per_round_`` is one global iteration; the bytes of the setup
    (feature ranges, initial graph) count in the first round and those of
    each graph update in the round after it.

    Parameters
    ----------
    n_estimators : int, default=200
        Number of decision stumps.  Ignored when ``base_predictors`` is given.
    base_predictors : list of callables or estimators, default=None
        User-supplied base predictors, shared by all nodes: ``h(X)`` or
        ``h.predict(X)`` must return values in [-1, 1].
    stump_placement : {"range", "global_range", "quantile"}, default="range"
        Where the ``q`` stumps of every feature put their thresholds
        (:func:`make_stumps`): ``"range"`` evenly inside the feature's own
        agreed range (suits features on different scales with no strong
        outliers); ``"global_range"`` evenly inside the range of all features
        together, the same for every feature (suits features on one common
        scale, e.g. standardized or pixel data; a feature with a narrow range
        gets few useful stumps; the authors' code also shares one range
        between the features, but counts and spaces its thresholds
        differently, see :func:`make_stumps`);
        ``"quantile"`` at
        the quantiles of the pooled data of each feature, read from per-node
        histograms (256 bins over the agreed range) summed up a spanning tree
        of the topology (suits skewed or heavy-tailed features, and binary or
        ordinal ones, where evenly spaced thresholds repeat the same split).
        Ignored when ``base_predictors`` is given.
    feature_selection : {"vote", None}, default="vote"
        Which features get stumps.  ``"vote"``: the nodes vote, without
        pooling any data, for the features that carry their labels' signal,
        and the ``n_estimators`` stumps are spread over the features the
        vote singles out, so that features without signal do not dilute
        them and ``n_estimators`` means the same with 2 or 2,000 features.
        Each node ranks the varying features by their correlation ratio with
        its labels (:func:`feature_relevance`: the share of the feature's
        variance at the node that the classes explain, scale-free) and votes
        for its ``q = ceil(sqrt(n_varying))`` best; the counts are summed up a
        spanning tree of the topology and a feature is kept when its count
        exceeds what chance gives with probability ``0.05 / n_varying``
        (:func:`vote_threshold`; under the null, every node votes for a
        given feature with probability ``q / n_varying``).  When no feature
        stands out (all are alike, or ``q >= n_varying``: with 3 or fewer
        varying features), every varying feature keeps its stumps.  A
        selected feature takes at most as many stumps as there are training
        samples (no more distinct splits exist); the stumps it cannot take
        go evenly to the other varying features (``max_per_feature`` of
        :func:`make_stumps`: on HAR walking, 21 nodes single out 4 to 6 of
        561 features for 1,122 stumps).  A node's message up the tree is
        its subtree's numbers of voters and samples and its non-zero counts
        (an int32 and a feature index each); the selection comes back down
        as a bit per feature.  ``None``: every varying feature.  Ignored when
        ``base_predictors`` is given (the private mode, which needs them on
        a public range, makes no data-dependent choice of stumps).
    fit_intercept : bool, default=True
        Add the constant base predictor ``h(x) = 1`` (last coordinate,
        exposed as ``intercept_``), inside the same l1 ball.
    beta : float, default=3.0
        Radius of the l1 ball of every model (the largest margin a model
        can reach, whatever the number of stumps).
    mu : float, default=3.0
        Weight of the graph smoothness term.  Models lie in an l1 ball of
        radius ``beta`` and the smoothing pulls with ``mu beta``, so keep
        ``mu beta`` about 10 when changing ``beta`` (the best settings of
        the moons, Computer buyers, School and HAR runs lie near
        ``mu beta = 10``; ``mu beta >= 90`` over-smooths).
    graph : None, array-like, sparse matrix or networkx graph, default=None
        ``None`` learns the graph; otherwise the fixed (oracle) graph:
        symmetric non-negative weights over the nodes in the order of
        ``nodes_`` (or a networkx graph whose nodes are the node labels).
    mu_graph : float, default=None
        Weight of the graph regularizer (``None``: ``mu``).
    lambda_graph : float, default=1.0
        l2 weight of the graph regularizer; smaller values give sparser graphs.
    delta : float, default=1e-3
        Offset of the degree log-barrier.
    kappa : int, default=5
        Peers sampled by a node at each graph step (all its neighbours when
        it has fewer); a value above ``n_nodes - 1`` warns, except the
        default (on 5 nodes or fewer it is every other node).
    max_neighbors : int, default=5
        Most non-zero graph weights a node keeps (Remark 2 of the paper):
        after each graph step the waking node and its peers set to zero their
        weights toward the neighbours with the most different models.  Bounds
        each node's memory and per-update messages, and keeps the re-learned
        graph sparse as smoothing makes models alike (on the moons without
        peer scoring, 89 % of the weight inside the true clusters with 5,
        74 % with 10, 48 % with no cap).  A count, not a fraction: it means the same at any number
        of nodes.  ``None``: no cap.
    peer_scoring : bool, default=True
        Nodes score each other's models on their own data when learning the
        graph: the pair ``(k, l)`` also pays ``e_kl + e_lk``, with ``e_kl =
        c_k (L_k(alpha_l) - L_k(alpha_k))`` how much worse node k's samples
        are fit by l's model than by its own (the graph objective's loss
        term, with each node's loss of its neighbour's model in place of its
        own), and the cap drops the neighbours of the largest ``(mu / 2)
        ||alpha_k - alpha_l||^2 + e_kl + e_lk``.  A node computes ``e_kl``
        from the model it receives, O(m_k n_base); a graph step's answer
        carries the peer's score (one more float64), and before every
        re-learning each node sends each graph neighbour its score of it
        (one float64).  The scores tell apart tasks whose models look alike
        coordinate by coordinate but predict differently: on the held-out
        moons seeds the weight inside the true clusters goes from 89 % to
        94 % (paper layout) and from 74 % to 84 % (random layout), at the
        same accuracy (95.09 -> 95.24, 73.49 -> 73.60; measured with
        ``graph_init_iter=50 * n_nodes``, the former default: 94.4 % and
        85.9 % with the defaults).  Not
        used under a finite ``privacy`` budget (the scores depend on the
        data, like the losses: the graph is then learned from the models
        alone).
    sparsify_graph : {"connected", None}, default="connected"
        Post-processing of every learned graph (the initial one and each
        update) before the models use it: ``"connected"`` keeps only the
        weights at or above the largest threshold at which the graph keeps
        its connected components (:func:`~skfed.graph.sparsify_to_connected`,
        exact: the smallest weight of a maximum spanning forest); ``None``
        keeps every learned weight.  The authors' code also thresholds every
        learned graph, differently: it tries the largest weight divided by
        ``sqrt(10)``, 10, ``10 sqrt(10)``, ... and keeps the first threshold
        at which the Laplacian's second eigenvalue exceeds 1e-3, which keeps
        more edges than the exact threshold and, on a graph that cannot be
        connected, almost all of them.  The threshold is computed on the
        whole graph (O(nnz log nnz)), a global step outside the
        decentralized protocol whose messages are not counted.  A fixed
        ``graph`` is used as given.
    graph_update_every : int, "n_nodes" or None, default="n_nodes"
        Model iterations between two graph updates (learned graph only);
        ``"n_nodes"``: as many as there are nodes (every node wakes up once
        on average between two updates; the paper's 100 iterations for its
        100 users), so the number of graph updates, ``max_iter /
        n_nodes``, does not grow with the number of nodes; ``None`` learns
        the graph once, from the local models, and keeps it.
    graph_init_iter : int, default=None
        Graph steps of the initial graph learning; ``None``: ``10 * n_nodes``
        (each node wakes up about 10 times and samples ``kappa`` peers each
        time).  The first graph comes from purely local models, which are
        poor on a node with a few samples; learned to convergence
        (``50 * n_nodes``, the default before) it keeps more of their
        noise, and the re-learnings that follow start further from the
        clusters.  On the moons seeds used to choose it, ``10 * n_nodes``
        puts 81.5 % of the weight inside the true clusters on the random
        layout against 78.6 % with ``50 * n_nodes`` (20: 81.9 %, 30:
        81.3 %), 94.2 % on the paper layout (94.2 %), with a mean accuracy
        over the moons, Computer buyers, School and HAR walking runs of
        80.80 % against 80.66 % and 10-20 % fewer bytes; on the held-out
        seeds 85.9 % against 83.9 % (random) and 94.4 % against 93.9 %
        (paper), mean accuracy 81.65 % against 81.70 %.
    graph_iter : int, default=None
        Graph steps of each later graph update; ``None``: ``n_nodes``.
    max_iter : int, default=None
        Global model iterations (node wake-ups); ``None``: ``100 * n_nodes``.
    communication_budget : int, default=None
        Stop as soon as this many bytes have been sent (checked before every
        iteration and graph step).
    network : SimulatedNetwork, default=None
        Topology (peers a node may sample; a fixed graph must lie inside it)
        and faults: a node that is dropped when its clock ticks does nothing;
        a rogue node sends the opposite vertex (``"complement"``) or a random
        vertex (``"random"``) to its neighbours.  Stragglers are refused
        with an error (a Frank-Wolfe step is atomic).  ``None`` is a perfect
        complete network.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        A node unseen in fit predicts with the average of the node models
        (of the released models under a finite ``privacy`` budget).
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads for the purely local phase (results do not depend on it).
    privacy : DifferentialPrivacy, default=None
        Make every node's messages ``(epsilon, delta)``-differentially
        private with respect to one of its samples (see Notes); needs
        ``base_predictors`` on a public range
        (:func:`make_stump_predictors`) and no ``sample_weight``
        (``clip_norm`` is not used: the scores are bounded by construction).
        None: no privacy.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_nodes, n_base_stumps) or (n_nodes, n_classes, n_base_stumps)
        Weight of every base predictor in every node's model (sparse by
        nature: at most one new non-zero per step).
    intercept_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Weight of the constant predictor (zeros when ``fit_intercept=False``).
    stump_features_, stump_thresholds_ : ndarray of shape (n_estimators,)
        The stumps ``h_j(x) = +1 if x[stump_features_[j]] > stump_thresholds_[j]
        else -1`` (None with ``base_predictors``).
    feature_range_ : ndarray of shape (2, n_features)
        The agreed minimum and maximum of every feature.
    selected_features_ : ndarray of shape (n_features,), dtype=bool
        The features that got stumps (None with ``base_predictors``).
    feature_votes_ : ndarray of shape (n_features,), dtype=int64
        Nodes that voted for every feature (``feature_selection="vote"``;
        zeros when no vote was needed, None otherwise).
    vote_threshold_ : int
        Votes a feature needed to be selected (None without a vote).
    collaboration_graph_ : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        The graph used by the final models: symmetric, non-negative, zero diagonal.
    confidence_ : ndarray of shape (n_nodes,)
    n_iter_ : int
        Global model iterations (wake-ups, including those of dropped nodes).
    n_updates_ : int
        Frank-Wolfe updates done (the step-size counter t).
    n_graph_updates_ : int
        Graph updates after the initial graph (0 with a fixed graph).
    objective_curve_ : ndarray of shape (n_iter_,)
        Objective (eq. 1, current graph) after every iteration.
    objective_ : float
        Final objective, recomputed from scratch.
    communication_ : CommunicationLog
    n_bytes_sent_, n_messages_ : int
        Bytes and messages of the fit and of every join (``communication_``
        plus ``join_communication_``).
    bytes_per_round_ : ndarray of shape (n_iter_,)
    join_communication_ : CommunicationLog
        What the joins of :meth:`add_nodes` sent, rounds appended join after
        join; only after a join.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    privacy_spent_ : ndarray of shape (n_nodes,)
        Only with ``privacy``: the epsilon each node spent at the
        specification's delta (the accountant's figure for its choices).
    privacy_ : dict
        Only with ``privacy``: mechanism, per-choice epsilon, integer choice
        scale, score sensitivities, uses per node, planned and affordable wake-ups,
        ``stopped_at`` (iteration at which a node ran out, -1 if never).
    privacy_public_ : dict
        Only with ``privacy``: what the fit treats as public (not protected
        by the noise), each with why.
    privacy_guarantee_void_ : bool
        Only with ``privacy``: True when the noise came from
        ``insecure_noise_seed`` (testing only: no guarantee).
    released_coef_, released_intercept_ : ndarray
        Only with a finite ``privacy`` budget: the models the nodes released
        (shapes of ``coef_`` and ``intercept_``), which the guarantee
        covers; ``coef_`` and ``intercept_`` are then each node's own
        refit, never sent (see Notes).
    refit_trust_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Only with a finite ``privacy`` budget: the weight ``mu_f`` each
        node's refit put on its neighbours' released models (0: the node
        alone).
    refit_radius_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Only with a finite ``privacy`` budget: the l1 radius ``beta_f`` of
        each node's refit model.

    Notes
    -----
    **Privacy** (``privacy=``).  What a node sends depends on its data only
    through the vertex ``(j, sign)`` it picks at each Frank-Wolfe step (the
    step value ``gamma`` is public, set by the schedule, and its models are
    replays of its choices, so the models sent to neighbours and to the
    graph peers are post-processing).  Each choice is the exponential
    mechanism over the 2 ``n_base`` vertices, sampled exactly from the
    secure noise source (:mod:`skfed._secure_noise`): the scores ``-sign
    g_j`` are floored onto the grid ``Delta_k / 1024`` and vertex ``v``
    drawn with probability proportional to ``exp(q_v / t)``, ``t`` an
    integer scale, ``epsilon_0``-DP and ``epsilon_0``-bounded range per
    choice, with ``Delta_k = d_k c_k Delta_A`` and
    ``Delta_A = 2 / (1 + (m_k - 1) e^(-2 beta))`` the sensitivity of the
    data term to one replaced sample (:func:`fw_score_sensitivity` derives
    it from the bounded softmax weights; the smoothing term depends only on
    models).  A node makes one choice per problem at each of its local
    steps and wake-ups; ``epsilon_0`` is calibrated so that the local steps
    plus ``ceil(a + 2 sqrt(a))`` wake-ups, ``a = max_iter / n_nodes``,
    spend the budget (per-node composition by the accountant of
    :mod:`skfed.privacy`), and a node that has used every wake-up the budget
    affords stops sending, like a dropped node, with a
    :class:`~skfed.privacy.PrivacyBudgetWarning` naming it and the
    iteration.  The graph steps then use the models alone (the loss values
    they otherwise exchange are not sent); what is treated as public (node
    sizes, class set, schedule...) is listed in ``privacy_public_``, and a
    private fit keeps no objective value (``objective_curve_`` and
    ``objective_`` are None).  The noise grows like ``e^(2 beta)
    / m_k``: privacy needs many samples per node or a small ``beta``.

    **What a node keeps** (finite budget).  The guarantee covers what a
    node sends: the models its neighbours hold, ``released_coef_`` and
    ``released_intercept_``.  Its final model ``coef_`` / ``intercept_`` is
    never sent, so each node refits it on its own samples, exactly (a node
    needs no protection from itself), with its graph neighbours held at
    their released models (post-processing: no budget spent).  It runs
    Frank-Wolfe on its own block of eq. 1, ``min_a log sum_i exp(-[A_k
    a]_i) + (mu_f / 2) ||a - beta_f u_k||^2`` over the l1 ball of radius
    ``beta_f``, where ``u_k`` is the graph-weighted mean of its neighbours'
    released models, l1-normalized.  The radius ``beta_f`` in {1, 3, 10}
    and the trust ``mu_f`` in {0, 1, 10} are chosen by 5-fold
    cross-validation on the node's own samples (0-1 error; folds from
    ``random_state``); a candidate that trusts the neighbours replaces the
    node alone (``mu_f = 0``) only when it validates better by more than
    one standard error.  ``coef_`` is therefore, like a Local model, not
    private with respect to the node's own samples, and depends on the
    other nodes' data only through their released models; the choices are
    in ``refit_trust_`` and ``refit_radius_``.  Measured at ``epsilon`` 1
    and 3 in the privacy user guide.

    See Also
    --------
    PersonalizedLinearClassifier : personalized linear models on the same graph.
    skfed.graph.CollaborationGraphLearner : the graph learner alone.
    sklearn.ensemble.AdaBoostClassifier : centralized boosting.

    References
    ----------
    V. Zantedeschi, A. Bellet and M. Tommasi. "Fully Decentralized Joint
    Learning of Personalized Models and Collaboration Graphs", AISTATS 2020.

    S. Lacoste-Julien, M. Jaggi, M. Schmidt and P. Pletscher. "Block-Coordinate
    Frank-Wolfe Optimization for Structural SVMs", ICML 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.boosting import DecentralizedBoostingClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2)); groups = np.repeat([0, 1, 2, 3], 50)
    >>> y = np.where(groups < 2, X[:, 0] > 0, X[:, 1] > 0).astype(int)
    >>> clf = DecentralizedBoostingClassifier(n_estimators=20, beta=5.0, mu=0.1,
    ...                                       random_state=0)
    >>> clf.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.9
    True
    """

    _graph_init_per_node = 10

    _parameter_constraints = {
        "n_estimators": [Interval(numbers.Integral, 1, None, closed="left")],
        "base_predictors": [None, list, tuple],
        "stump_placement": [StrOptions({"range", "global_range", "quantile"})],
        "feature_selection": [None, StrOptions({"vote"})],
        "beta": [Interval(numbers.Real, 0, None, closed="neither")],
        "peer_scoring": ["boolean"],
        "privacy": [None, DifferentialPrivacy],
        **_BaseGraphPersonalized._common_constraints,
    }

    def __init__(
        self,
        n_estimators=200,
        *,
        base_predictors=None,
        stump_placement="range",
        feature_selection="vote",
        fit_intercept=True,
        beta=3.0,
        mu=3.0,
        graph=None,
        mu_graph=None,
        lambda_graph=1.0,
        delta=1e-3,
        kappa=5,
        max_neighbors=5,
        peer_scoring=True,
        sparsify_graph="connected",
        graph_update_every="n_nodes",
        graph_init_iter=None,
        graph_iter=None,
        max_iter=None,
        communication_budget=None,
        network=None,
        group_column=None,
        handle_unknown="global",
        random_state=None,
        n_jobs=None,
        privacy=None,
    ):
        self.n_estimators = n_estimators
        self.base_predictors = base_predictors
        self.stump_placement = stump_placement
        self.feature_selection = feature_selection
        self.fit_intercept = fit_intercept
        self.beta = beta
        self.mu = mu
        self.graph = graph
        self.mu_graph = mu_graph
        self.lambda_graph = lambda_graph
        self.delta = delta
        self.kappa = kappa
        self.max_neighbors = max_neighbors
        self.peer_scoring = peer_scoring
        self.sparsify_graph = sparsify_graph
        self.graph_update_every = graph_update_every
        self.graph_init_iter = graph_init_iter
        self.graph_iter = graph_iter
        self.max_iter = max_iter
        self.communication_budget = communication_budget
        self.network = network
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.privacy = privacy

    # -------------------------------------------------------- base predictors
    def _agree_on_ranges(self, Xs, sws, layout, simulation):
        """Agree on the global extremes of every feature; count the messages.

        Every node starts from the extremes of its own (positively weighted)
        samples.  On a complete topology they are combined up the
        aggregation tree (:func:`_aggregation_tree`: each node sends its
        subtree's ``2 n_features`` extremes to its parent, the root sends the
        global ones back down), ``2 (n_nodes - 1)`` messages; on any other
        topology by min/max flooding (:func:`_flood_extremes`).  Returns the
        extremes every node ends with (they agree) and the bytes spent.
        """
        starts = layout.offsets[:-1]
        keep = (sws > 0)[:, None]
        lo = np.minimum.reduceat(np.where(keep, Xs, np.inf), starts, axis=0)
        hi = np.maximum.reduceat(np.where(keep, Xs, -np.inf), starts, axis=0)
        lo, hi = lo.astype(np.float64), hi.astype(np.float64)
        payload = payload_bytes(
            **{("n_float32" if Xs.dtype == np.float32 else "n_float64"): 2 * Xs.shape[1]}
        )
        if simulation.is_complete:
            spent = _tree_round_trip(simulation, payload, payload)
            return lo.min(axis=0), hi.max(axis=0), spent
        adjacency = simulation.adjacency
        _check_connected(adjacency)
        lo, hi, spent, _ = _flood_extremes(lo, hi, adjacency, simulation.counter, payload)
        # The topology is connected, so every node holds the global extremes.
        return lo[0], hi[0], spent

    def _vote_on_features(self, Xs, y_codes, sws, layout, simulation, varying, seeds):
        """The federated vote on the stumps' features (``feature_selection="vote"``).

        Every node ranks the features that vary (on the agreed ranges) by
        their correlation ratio with its labels (:func:`feature_relevance`)
        and votes for its ``q = ceil(sqrt(n_varying))`` most relevant ones
        (ties broken at random; a node where nothing is relevant abstains).
        The counts are summed up the aggregation tree
        (:func:`_aggregation_tree`): each node sends its parent its subtree's
        number of voters and its non-zero counts (int32 each, with a
        ``ceil(log2 n_features)``-bit index; or all ``n_features`` counts
        when that is smaller); the root sends the selected features back
        down (a bit per feature or their indices, whichever is smaller).
        A feature is selected when its count reaches
        :func:`vote_threshold`; if none does, or ``q >= n_varying``, every
        varying feature is kept.

        Returns ``(selected, votes, threshold, bytes)``.
        """
        d = Xs.shape[1]
        n_varying = int(varying.sum())
        q = _vote_size(n_varying)
        if n_varying <= 1 or q >= n_varying:
            return varying.copy(), np.zeros(d, dtype=np.int64), 0, 0
        relevance = feature_relevance(Xs, y_codes, layout.offsets, sws)
        tie_key = np.random.default_rng(seeds).random(relevance.shape)
        ballots = node_votes(relevance, varying, q, tie_key)
        selected, votes, threshold = _count_votes(ballots, varying, q)
        spent = _vote_messages(simulation, ballots, selected)
        return selected, votes, threshold, spent

    def _agree_on_histogram(self, Xs, sws, layout, simulation, lo, hi, features):
        """Pooled per-feature histograms by a convergecast and broadcast.

        Every node bins its positively weighted samples into ``_N_BINS``
        equal bins per feature over the agreed range, for the stumps'
        ``features`` (a mask); the counts are summed up the aggregation tree
        (:func:`_aggregation_tree`: each node sends its subtree's
        ``n_stump_features * _N_BINS`` int32 counts to its parent), and the
        root sends the resulting thresholds back down the tree
        (``n_estimators`` values per node).  Returns the histogram (rows of
        the other features are zero) and the bytes spent.
        """
        keep = sws > 0
        width = np.where(hi > lo, hi - lo, 1.0)
        bins = np.clip(((Xs[keep] - lo) / width * _N_BINS).astype(np.intp), 0, _N_BINS - 1)
        n_features = Xs.shape[1]
        histogram = np.zeros((n_features, _N_BINS))
        for f in np.flatnonzero(features).tolist():
            histogram[f] = np.bincount(bins[:, f], minlength=_N_BINS)
        spent = 0
        if layout.n_nodes > 1:
            up = payload_bytes(n_int32=int(np.count_nonzero(features)) * _N_BINS)
            down = payload_bytes(
                **{("n_float32" if Xs.dtype == np.float32 else "n_float64"): self.n_estimators}
            )
            spent = _tree_round_trip(simulation, up, down)
        return histogram, spent

    def _base_matrix(self, X, dtype):
        if self.base_predictors is not None:
            columns = []
            for index, h in enumerate(self.base_predictors_):
                values = h.predict(X) if hasattr(h, "predict") else h(X)
                values = np.asarray(values, dtype=np.float64).ravel()
                if values.shape[0] != X.shape[0]:
                    raise ValueError(
                        f"base_predictors[{index}] returned {values.shape[0]} values for "
                        f"{X.shape[0]} samples."
                    )
                if not np.all(np.isfinite(values)) or np.any(np.abs(values) > 1):
                    raise ValueError(
                        f"base_predictors[{index}] must return finite values in [-1, 1]."
                    )
                columns.append(values)
            H = np.column_stack(columns)
        else:
            H = stump_predictions(X, self.stump_features_, self.stump_thresholds_, np.float64)
        if self.fit_intercept:
            H = np.column_stack([H, np.ones(X.shape[0])])
        return np.ascontiguousarray(H, dtype=dtype)

    # -------------------------------------------------------------------- fit
    def fit(self, X, y, groups=None, sample_weight=None):
        """Jointly learn the per-node boosted models and the collaboration graph.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights ``s_i`` inside each node's loss; node masses set the
            confidences.

        Returns
        -------
        self : DecentralizedBoostingClassifier
        """
        self._validate_params()
        if self.base_predictors is not None and len(self.base_predictors) == 0:
            raise ValueError("base_predictors must hold at least one predictor.")
        spec = check_privacy(self.privacy, type(self).__name__)
        if spec is not None:
            _check_private_inputs(self, sample_weight)
            if self.base_predictors is None:
                raise ValueError(
                    "DecentralizedBoostingClassifier(privacy=...) needs base_predictors on "
                    "a public feature range: its own stumps are placed on the extremes of "
                    "the nodes' samples, which the nodes would send in the clear. Pass "
                    "base_predictors=make_stump_predictors(feature_min, feature_max, "
                    "n_estimators) with a range known without the data."
                )
        Xs, Y, sws, layout, mass = self._prepare(X, y, groups, sample_weight)
        dtype = Xs.dtype
        rng = check_random_state(self.random_state)
        simulation, seeds = self._start(rng)
        setup_bytes = 0
        if self.base_predictors is None:
            lo, hi, setup_bytes = self._agree_on_ranges(Xs, sws, layout, simulation)
            self.feature_range_ = np.vstack([lo, hi])
            varying = hi > lo
            if self.feature_selection == "vote":
                codes = (Y[0] > 0).astype(np.intp) if Y.shape[0] == 1 else np.argmax(Y, axis=0)
                selected, votes, threshold, spent = self._vote_on_features(
                    Xs, codes, sws, layout, simulation, varying, seeds[: len(self.nodes_)]
                )
                setup_bytes += spent
            else:
                selected, votes, threshold = varying.copy(), None, None
            if not selected.any():
                selected = np.ones_like(varying)
            self.selected_features_ = selected
            self.feature_votes_ = votes
            self.vote_threshold_ = threshold
            # The vote also sums the training samples (the cap of a feature's stumps).
            cap = int(layout.offsets[-1]) if votes is not None else None
            histogram = None
            if self.stump_placement == "quantile":
                stumped = _stump_counts(lo, hi, self.n_estimators, selected, cap) > 0
                histogram, spent = self._agree_on_histogram(
                    Xs, sws, layout, simulation, lo, hi, stumped)
                setup_bytes += spent
            self.stump_features_, self.stump_thresholds_ = make_stumps(
                lo, hi, self.n_estimators, self.stump_placement, histogram, features=selected,
                max_per_feature=cap,
            )
            self.base_predictors_ = None
        else:
            self.base_predictors_ = list(self.base_predictors)
            self.stump_features_ = self.stump_thresholds_ = None
            self.feature_range_ = None
            self.selected_features_ = self.feature_votes_ = self.vote_threshold_ = None
        H = self._base_matrix(Xs, dtype)
        rogue = simulation.rogue.astype(np.uint8)
        rogue_mode = 0 if simulation.network.rogue_behavior == "complement" else 1
        state = _BoostingState(
            H, Y, sws, layout.offsets, mass / mass.max(), self.beta, self.mu, dtype,
            rogue, rogue_mode,
        )
        state.setup_bytes = setup_bytes
        state.max_mass = float(mass.max())
        if spec is not None:
            self._plan_private_choices(state, spec, mass)
        state = self._fit_alternating(state, simulation, seeds, self.n_jobs)
        if spec is not None:
            state.dp.finish(
                self, state, composition=(
                    f"{state.P} exponential-mechanism choice(s) per local step and per "
                    "wake-up of the node, composed over its steps"
                ),
                public=_DADA_PUBLIC,
                score_sensitivity_per_unit_weight=state.sensitivity,
                choice_scale=state.choice_scale,
                quality_resolution=CHOICE_RESOLUTION,
            )
        n_stumps = H.shape[1] - int(self.fit_intercept)
        refit = self._refit_private_final(state, rng)
        for name in _REFIT_ATTRIBUTES:  # a previous private fit's
            self.__dict__.pop(name, None)
        if refit is not None:
            self.released_coef_, self.released_intercept_ = _split_models(
                state.public, n_stumps, self.fit_intercept)
            self.refit_trust_ = _squeeze_problems(refit[1])
            self.refit_radius_ = _squeeze_problems(refit[2])
        self.coef_, self.intercept_ = _split_models(
            state.alpha if refit is None else refit[0], n_stumps, self.fit_intercept)
        self.n_base_predictors_ = H.shape[1]
        return self

    def _plan_private_choices(self, state, spec, mass):
        """Calibrate the exponential mechanism on the Frank-Wolfe scores; set the budget."""
        K = len(self.nodes_)
        max_iter, n_local = self._schedule(K)
        state.dp = _WakeupBudget(
            spec, lambda eps, delta, n: calibrate_exponential(eps, delta, n),
            n_nodes=K, max_iter=max_iter, n_local=n_local, uses_per_step=state.P,
        )
        state.source = NoiseSource.for_fit(spec, type(self).__name__)
        state.sensitivity = fw_score_sensitivity(mass, self.beta)
        if math.isfinite(state.dp.mechanism.epsilon):
            # Quality grid step Delta / resolution per unit loss weight (times
            # d_k c_k in Cython), at the mechanism's integer scale.
            state.unit = np.ascontiguousarray(state.sensitivity / CHOICE_RESOLUTION)
            state.choice_scale = int(state.dp.mechanism.scale)
        else:
            state.unit, state.choice_scale = None, 0

    # ------------------------------------------------------------- predict
    def _full_coef(self, released=False):
        coef_, intercept_ = ((self.released_coef_, self.released_intercept_) if released
                             else (self.coef_, self.intercept_))
        coef = coef_ if coef_.ndim == 3 else coef_[:, None, :]
        intercept = intercept_ if intercept_.ndim == 2 else intercept_[:, None]
        if self.fit_intercept:
            return np.concatenate([coef, intercept[:, :, None]], axis=2)
        return coef

    def decision_function(self, X, groups=None):
        """Score of every sample under its node's model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``sum_j alpha_kj h_j(x)`` (for ``classes_[1]`` when binary).
        """
        check_is_fitted(self)
        X, codes = self._validate_predict_data(X, groups)
        H = self._base_matrix(X, np.float64)
        return _personalized_scores(H, codes, self._full_coef(), self._shared_coef())

    def predict(self, X, groups=None):
        """Class of every sample under its node's model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X, groups)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


_REFIT_ATTRIBUTES = ("released_coef_", "released_intercept_", "refit_trust_", "refit_radius_")


def _squeeze_problems(values):
    """(n_nodes, n_problems) -> (n_nodes,) for a binary problem."""
    return np.ascontiguousarray(values[:, 0] if values.shape[1] == 1 else values)


def _split_models(models, n_cols, fit_intercept):
    """(n_nodes, n_problems, n_cols [+ 1]) models -> ``coef_``, ``intercept_`` shapes."""
    coef = models[:, :, :n_cols]
    intercept = (models[:, :, n_cols] if fit_intercept
                 else np.zeros(models.shape[:2], models.dtype))
    if models.shape[1] == 1:
        return np.ascontiguousarray(coef[:, 0, :]), np.ascontiguousarray(intercept[:, 0])
    return np.ascontiguousarray(coef), np.ascontiguousarray(intercept)


def _personalized_scores(Z, codes, coef, shared=None):
    """``scores[i] = Z[i] @ coef[codes[i]].T``; for code -1 the mean of ``shared``
    (default ``coef``): a private fit passes the released models, since a new
    node only ever receives those."""
    n_problems = coef.shape[1]
    scores = np.zeros((Z.shape[0], n_problems))
    mean = (coef if shared is None else shared).mean(axis=0)
    for code in np.unique(codes):
        rows = np.flatnonzero(codes == code)
        model = coef[code] if code >= 0 else mean
        scores[rows] = Z[rows] @ np.asarray(model, dtype=np.float64).T
    return scores[:, 0] if n_problems == 1 else scores


# ------------------------------------------------------------- Perso-lin
class _LinearState(_StateMixin):
    """Arrays of one Perso-lin fit, node-ordered (see ``_boosting_fast``)."""

    grid_step = None  # per node: the grid of its private gradient releases

    def __init__(self, X, Y, sw, offsets, mass, confidence, loss, l2, n_penalized, mu,
                 dtype, rogue, rogue_mode):
        self.X, self.Y, self.sw, self.offsets = X, Y, sw, offsets
        self.confidence = confidence
        self.inv_mass = 1.0 / mass
        self.loss = loss
        self.l2, self.n_penalized = float(l2), int(n_penalized)
        self.mu, self.dtype = float(mu), dtype
        self.K = offsets.shape[0] - 1
        self.P = Y.shape[0]
        self.n_features = X.shape[1]
        self.rogue, self.rogue_mode = rogue, rogue_mode
        self.setup_bytes = 0
        curv = loss.py_curvature()
        lip = np.empty(self.K)
        for k in range(self.K):
            rows = slice(offsets[k], offsets[k + 1])
            Z = np.sqrt(sw[rows].astype(np.float64))[:, None] * X[rows].astype(np.float64)
            top = np.linalg.norm(Z, 2) ** 2 if Z.size else 0.0
            lip[k] = curv * top * self.inv_mass[k] + self.l2
        self.lipschitz = np.maximum(lip, 1e-12)
        self.reset_models()

    def reset_models(self):
        self.theta = np.zeros((self.K, self.P, self.n_features), dtype=self.dtype)
        self.public = np.zeros_like(self.theta)
        self.losses = np.zeros((self.K, self.P))
        self._recompute_losses()

    def _recompute_losses(self):
        lin_losses(self.X, self.Y, self.sw, self.offsets, self.theta, self.loss,
                   self.inv_mass, self.l2, self.n_penalized, self.losses)

    def local_models(self, n_steps, n_jobs):
        chunks = _node_chunks(self.K, n_jobs)

        private = {}
        if self.dp is not None:
            private = {"row_norm": self.row_norm, "clip": self.clip}
            if self.grid_step is not None:
                private["grid_step"] = self.grid_step
                private["noise"] = self.draw_noise(self.K * n_steps)
            self.dp.local_done[:] = n_steps

        def run(chunk):
            lin_local(self.X, self.Y, self.sw, self.offsets, self.theta, self.loss,
                      self.inv_mass, self.lipschitz, self.l2, self.n_penalized, self.losses,
                      n_steps, chunk[0], chunk[1], **private)

        _run_chunks(run, chunks)
        self.public[...] = self.theta

    def objective(self):
        return _graph_objective_value(self.theta, self.losses, self.graph, self.degree,
                                      self.confidence, self.mu)

    def score_data(self):
        """What the graph steps need to score a received model on a node's data.

        ``(X, Y, sw, offsets, factor, loss)``: the mean margin loss
        ``(1 / m_k) sum_i s_i loss(y_i theta.x_i)`` (the data term of
        ``F_k``), weighted by the confidence ``c_k``: ``factor = c_k / m_k``.
        """
        factor = np.ascontiguousarray(self.confidence * self.inv_mass, dtype=np.float64)
        return self.X, self.Y, self.sw, self.offsets, factor, self.loss

    def async_steps(self, t, n_steps, clock, node_state, offline, simulation, budget, spent):
        curve = np.zeros(n_steps)
        payload = payload_bytes(
            **{("n_float32" if self.dtype == np.float32 else "n_float64"): self.P * self.n_features}
        )
        n_done, n_updates, spent, self.current = lin_async(
            self.X, self.Y, self.sw, self.offsets, self.theta, self.public, self.losses,
            self.loss, self.inv_mass, self.lipschitz, self.l2, self.n_penalized,
            self.indptr, self.indices, self.weights, self.degree, self.confidence, self.mu,
            int(n_steps), clock, node_state, offline, self.rogue, self.rogue_mode,
            simulation.counter, payload, int(budget), int(spent), self.running_objective(), curve,
            np.zeros(0, dtype=np.intp), **self._private_args(n_steps),
        )
        self.n_iter_done += n_done
        return n_done, n_updates, spent, curve[:n_done]

    def draw_noise(self, n_rows):
        """``n_rows`` releases' worth of discrete Gaussian integers (secure source)."""
        return self.source.discrete_gaussian(self.grid_steps, (int(n_rows), self.P * self.n_features))

    def _private_args(self, n_steps):
        if self.dp is None:
            return {}
        args = {"row_norm": self.row_norm, "clip": self.clip,
                "wakeups_left": self.dp.wakeups_left, "stopped_at": self.dp.stopped_at,
                "it_offset": int(self.n_iter_done)}
        if self.grid_step is not None:
            rows = min(int(n_steps), int(self.dp.wakeups_left.sum()))
            args.update(grid_step=self.grid_step, noise=self.draw_noise(rows),
                        noise_used=np.zeros(1, dtype=np.int64))
        return args


class PersonalizedLinearClassifier(_BaseGraphPersonalized):
    """Perso-lin: personalized linear models smoothed over a collaboration graph.

    Every node k learns its own linear model ``theta_k`` (Vanhaesebrouck,
    Bellet & Tommasi, AISTATS 2017), pulled toward its neighbours' along the
    weighted edges of a collaboration graph, fixed or learned as in Dada
    (:mod:`skfed.graph`)::

        min  sum_k d_k c_k F_k(theta_k) + (mu / 2) sum_{k<l} w_kl ||theta_k - theta_l||^2

        F_k(theta) = (1 / m_k) sum_i s_i loss(y_i theta . x_i) + (alpha / 2) ||theta_w||^2

    with ``d_k = sum_l w_kl``, ``c_k = m_k / max_l m_l`` (``m_k`` the node's
    total sample weight), ``loss`` logistic or squared hinge and
    ``theta_w`` the weights without the intercept.

    **Algorithm.** Asynchronous decentralized block coordinate descent: the
    node whose Poisson clock ticks (drawn uniformly at random) takes a
    gradient step on its own block with step ``1 / L_k``, ``L_k = d_k c_k
    L_F,k + mu d_k`` where ``L_F,k = curvature * ||X_k||_2^2 / m_k + alpha``
    is the Lipschitz constant of ``grad F_k`` (curvature 1/4 for the
    logistic loss, 2 for the squared hinge), i.e.
    ``theta_k <- theta_k - (d_k c_k grad F_k(theta_k) + mu (d_k theta_k -
    sum_l w_kl theta_l)) / L_k``, and sends its new model (``n_features
    (+1)`` values) to its neighbours.  With ``graph=None`` the graph is
    learned exactly as in :class:`DecentralizedBoostingClassifier`: first
    from purely local models (``ceil(max_iter / n_nodes)`` local gradient
    steps per node, nothing sent), from which the block coordinate descent
    then starts (by default it is kept: ``graph_update_every=None``; an
    integer or ``"n_nodes"`` re-learns it that often), sparsified to
    connected.  Multiclass problems are solved one-vs-rest with one shared
    graph.

    Parameters
    ----------
    loss : {"logistic", "squared_hinge"}, default="logistic"
    alpha : float, default=1e-2
        l2 regularization of every node's weights (not the intercept).
    fit_intercept : bool, default=True
    mu : float, default=1.0
    graph : None, array-like, sparse matrix or networkx graph, default=None
        ``None`` learns the graph; otherwise the fixed graph.
    mu_graph, lambda_graph, delta, kappa, max_neighbors, sparsify_graph : see
        :class:`DecentralizedBoostingClassifier`.
    peer_scoring : bool, default=False
        As in :class:`DecentralizedBoostingClassifier`, with Perso-lin's own
        loss: node k scores a received model ``theta_l`` on its samples by
        ``e_kl = c_k (G_k(theta_l) - G_k(theta_k))``, ``G_k(theta) = (1 / m_k)
        sum_i s_i loss(y_i theta . x_i)`` (the data term of ``F_k``, without
        its l2 term), O(m_k n_features) per received model; the pair (k, l)
        then also pays ``e_kl + e_lk`` in the graph objective, and
        ``max_neighbors`` drops the neighbours of the largest ``(mu / 2)
        ||theta_k - theta_l||^2 + e_kl + e_lk``.  Each graph-step answer
        carries one more float64, and before a re-learning each node sends
        each graph neighbour its score of it.  Off by default: unlike
        Dada's stump weights, linear models that predict alike are close
        in distance, so the scores add little.  On the moons seeds used to
        choose the defaults, a node's five nearest peers by score are as
        often in its own cluster as by distance (65-67 % random layout, 93-94 %
        against 91 % paper layout), the weight inside the true clusters
        goes from 68.2 to 68.9 % (random) and 90.4 to 91.0 % (paper) and the
        accuracy changes by +0.2 point, while Computer buyers loses 0.3 point
        (School and HAR walking: no change).  Not used under a finite
        ``privacy`` budget.
    graph_update_every : int, "n_nodes" or None, default=None
        As in :class:`DecentralizedBoostingClassifier`; by default the graph
        is learned once, from the local models (on the data sets of the
        user guide this scores 0.5 point higher than re-learning, with
        fewer bytes and more of the weight inside the true clusters).
    graph_init_iter : int, default=None
        Graph steps of the initial graph learning; ``None``: ``50 * n_nodes``
        (not Dada's ``10 * n_nodes``: Perso-lin keeps the graph it learns
        from the local models, and 10 steps per node lose 2-3 points of
        accuracy and 7-11 points of the weight inside the true clusters on
        the moons seeds used to choose the defaults).
    graph_iter : see :class:`DecentralizedBoostingClassifier`.
    max_iter : int, default=None
        Global iterations; ``None``: ``100 * n_nodes``, and ``30 * n_nodes``
        under a finite ``privacy`` budget (fewer, larger private steps: at
        ``epsilon = 3`` the released models score 0.799 instead of 0.769 on
        the moons, 0.529 instead of 0.516 on Computer buyers).
    communication_budget : int, default=None
    network : SimulatedNetwork, default=None
        A rogue node sends the negated model (``"complement"``) or uniform
        noise of the same scale (``"random"``).  Stragglers are refused with
        an error (a step is atomic).
    group_column : int, str or None, default=None
    handle_unknown : {"global", "error"}, default="global"
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads for the purely local phase.
    privacy : DifferentialPrivacy, default=None
        Make every node's messages ``(epsilon, delta)``-differentially
        private with respect to one of its samples by Gaussian noise on its
        gradients (see Notes; needs ``delta > 0`` and no ``sample_weight``).
        None: no privacy.

    Attributes
    ----------
    nodes_, classes_ : ndarray
    coef_ : ndarray of shape (n_nodes, n_features) or (n_nodes, n_classes, n_features)
    intercept_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
    collaboration_graph_ : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
    confidence_ : ndarray of shape (n_nodes,)
    n_iter_, n_updates_, n_graph_updates_ : int
    objective_curve_ : ndarray of shape (n_iter_,)
    objective_ : float
    communication_, n_bytes_sent_, n_messages_, bytes_per_round_
        As for :class:`DecentralizedBoostingClassifier` (the totals include
        the joins).
    join_communication_ : CommunicationLog
        What the joins of :meth:`add_nodes` sent; only after a join.
    n_features_in_ : int
    privacy_spent_ : ndarray of shape (n_nodes,)
        Only with ``privacy``: the epsilon each node spent at the
        specification's delta (the accountant's figure for its releases).
    privacy_ : dict
        Only with ``privacy``: mechanism, noise standard deviation per node
        (``sigma``), clip norm, sensitivities, uses per node, planned and
        affordable wake-ups, ``stopped_at`` (-1: never ran out).
    privacy_public_ : dict
        Only with ``privacy``: what the fit treats as public (not protected
        by the noise), each with why.
    privacy_guarantee_void_ : bool
        Only with ``privacy``: True when the noise came from
        ``insecure_noise_seed`` (testing only: no guarantee).
    released_coef_, released_intercept_ : ndarray
        Only with a finite ``privacy`` budget: the models the nodes released
        (shapes of ``coef_`` and ``intercept_``), which the guarantee
        covers; ``coef_`` and ``intercept_`` are then each node's own
        refit, never sent (see Notes).
    refit_trust_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Only with a finite ``privacy`` budget: the weight ``lam`` each
        node's refit put on its neighbours' released models (0: the node
        alone, ``LogisticRegression()`` on its samples).

    Notes
    -----
    **Privacy** (``privacy=``), the private peer-to-peer scheme of Bellet et
    al. (2018) with Gaussian instead of Laplace noise.  The data enter what
    a node sends only through the gradient of its local loss ``F_k``; under
    ``privacy`` every sample's term ``loss'(y_i theta.x_i) y_i x_i`` of it
    is clipped to l2 norm ``C`` (``privacy.clip_norm``), so one replaced
    sample moves the mean gradient of each problem by at most ``2 C / m_k``
    and the ``P`` one-vs-rest problems together by ``Delta_k = 2 C sqrt(P)
    / m_k``; the node adds ``N(0, sigma_k^2)`` noise to every coordinate
    before its step, ``sigma_k = sigma_1 Delta_k``.  The model it sends is
    post-processing of these noisy gradients (and of its neighbours'
    models).  A node releases one noisy gradient per local step and per
    wake-up; ``sigma_1`` is calibrated (analytic Gaussian mechanism,
    composed per node) so that the local steps plus ``ceil(a + 2 sqrt(a))``
    wake-ups, ``a = max_iter / n_nodes``, spend the budget, and a node that
    has used every wake-up the budget affords stops sending, like a dropped
    node, with a :class:`~skfed.privacy.PrivacyBudgetWarning` naming it and
    the iteration.  The graph steps use the models alone (loss values are
    not sent); what is treated as public is listed in ``privacy_public_``
    and the objective values are not kept.  The step size
    ``1 / L_k`` reads ``||X_k||_2`` off the data, so a private node uses the
    public bound ``L_F = curvature * n_columns + alpha`` instead, valid for
    standardized features (``||X_k||_2^2 / m_k`` is at most the mean squared
    row norm, ``n_columns`` then): standardize the features under
    ``privacy``.  With ``epsilon=np.inf`` nothing is clipped, noised or
    changed.

    **What a node keeps** (finite budget).  The guarantee covers what a
    node sends: the models its neighbours hold, ``released_coef_`` and
    ``released_intercept_``.  Its final model ``coef_`` / ``intercept_`` is
    never sent, so each node refits it on its own samples, exactly (a node
    needs no protection from itself), with its graph neighbours held at
    their released models (post-processing: no budget spent): Newton's
    method on ``min_theta (1 / m_k) sum_i loss(y_i theta . x_i) + (lam /
    2) ||theta_w - u_w||^2``, ``u`` the graph-weighted mean of its
    neighbours' released models (``theta_w``, ``u_w`` without the
    intercept).  The candidates are the node alone (``u = 0``, ``lam = 1 /
    m_k``: scikit-learn's ``LogisticRegression()`` on its samples, with the
    logistic loss) and ``lam`` in {0.03, 0.3, 3} toward ``u``; 5-fold
    cross-validation of the loss on the node's own samples (folds from
    ``random_state``) chooses, and a candidate that trusts the neighbours
    replaces the node alone only when it validates better by more than one
    standard error.  ``coef_`` is therefore, like a Local model, not
    private with respect to the node's own samples, and depends on the
    other nodes' data only through their released models; the choice is in
    ``refit_trust_``.  Measured at ``epsilon`` 1 and 3 in the privacy user
    guide.

    See Also
    --------
    DecentralizedBoostingClassifier : nonlinear personalized models (Dada).
    skfed.baselines.LocalEstimator : one model per node, no collaboration.

    References
    ----------
    P. Vanhaesebrouck, A. Bellet and M. Tommasi. "Decentralized Collaborative
    Learning of Personalized Models over Networks", AISTATS 2017.

    V. Zantedeschi, A. Bellet and M. Tommasi. "Fully Decentralized Joint
    Learning of Personalized Models and Collaboration Graphs", AISTATS 2020.

    A. Bellet, R. Guerraoui, M. Taziki and M. Tommasi. "Personalized and
    Private Peer-to-Peer Machine Learning", AISTATS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.boosting import PersonalizedLinearClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(200, 2)); groups = np.repeat([0, 1, 2, 3], 50)
    >>> y = np.where(groups < 2, X[:, 0] > 0, X[:, 1] > 0).astype(int)
    >>> clf = PersonalizedLinearClassifier(mu=0.1, random_state=0)
    >>> clf.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.9
    True
    """

    # Fewer, larger private steps: at epsilon 3, 30 iterations per node score
    # 0.799 instead of 0.769 on the moons (20 nodes) and 0.529 instead of
    # 0.516 on Computer buyers (190 nodes), seeds 0-2.
    _private_iter_per_node = 30

    _parameter_constraints = {
        "loss": [StrOptions(set(_LOSSES))],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "peer_scoring": ["boolean"],
        "privacy": [None, DifferentialPrivacy],
        **_BaseGraphPersonalized._common_constraints,
    }

    def __init__(
        self,
        *,
        loss="logistic",
        alpha=1e-2,
        fit_intercept=True,
        mu=1.0,
        graph=None,
        mu_graph=None,
        lambda_graph=1.0,
        delta=1e-3,
        kappa=5,
        max_neighbors=None,
        peer_scoring=False,
        sparsify_graph="connected",
        graph_update_every=None,
        graph_init_iter=None,
        graph_iter=None,
        max_iter=None,
        communication_budget=None,
        network=None,
        group_column=None,
        handle_unknown="global",
        random_state=None,
        n_jobs=None,
        privacy=None,
    ):
        self.loss = loss
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.mu = mu
        self.graph = graph
        self.mu_graph = mu_graph
        self.lambda_graph = lambda_graph
        self.delta = delta
        self.kappa = kappa
        self.max_neighbors = max_neighbors
        self.peer_scoring = peer_scoring
        self.sparsify_graph = sparsify_graph
        self.graph_update_every = graph_update_every
        self.graph_init_iter = graph_init_iter
        self.graph_iter = graph_iter
        self.max_iter = max_iter
        self.communication_budget = communication_budget
        self.network = network
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.privacy = privacy

    def _design(self, X, dtype):
        if self.fit_intercept:
            X = np.column_stack([X, np.ones(X.shape[0])])
        return np.ascontiguousarray(X, dtype=dtype)

    def fit(self, X, y, groups=None, sample_weight=None):
        """Jointly learn the per-node linear models and the collaboration graph.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : PersonalizedLinearClassifier
        """
        self._validate_params()
        spec = check_privacy(self.privacy, type(self).__name__)
        if spec is not None:
            _check_private_inputs(self, sample_weight)
        Xs, Y, sws, layout, mass = self._prepare(X, y, groups, sample_weight)
        dtype = Xs.dtype
        rng = check_random_state(self.random_state)
        simulation, seeds = self._start(rng)
        Z = self._design(Xs, dtype)
        rogue = simulation.rogue.astype(np.uint8)
        rogue_mode = 0 if simulation.network.rogue_behavior == "complement" else 1
        state = _LinearState(
            Z, Y, sws, layout.offsets, mass, mass / mass.max(), _LOSSES[self.loss](),
            self.alpha, Xs.shape[1], self.mu, dtype, rogue, rogue_mode,
        )
        state.max_mass = float(mass.max())
        if spec is not None:
            self._plan_private_gradients(state, spec, mass)
        state = self._fit_alternating(state, simulation, seeds, self.n_jobs)
        if spec is not None:
            state.dp.finish(
                self, state, composition=(
                    "one discrete Gaussian release of the clipped gradient (all problems) "
                    "per local step and per wake-up of the node, composed over its steps "
                    "(zCDP)"
                ),
                public=_PERSOLIN_PUBLIC,
                clip_norm=state.clip, gradient_sensitivity=state.sensitivity,
                sigma=state.sigma, grid_step=state.grid_step,
                lipschitz=state.lipschitz.copy(),
            )
        n_features = Xs.shape[1]
        refit = self._refit_private_final(state, rng)
        for name in _REFIT_ATTRIBUTES:  # a previous private fit's
            self.__dict__.pop(name, None)
        if refit is not None:
            self.released_coef_, self.released_intercept_ = _split_models(
                state.public, n_features, self.fit_intercept)
            self.refit_trust_ = _squeeze_problems(refit[1])
        self.coef_, self.intercept_ = _split_models(
            state.theta if refit is None else refit[0], n_features, self.fit_intercept)
        return self

    def _plan_private_gradients(self, state, spec, mass):
        """Calibrate the discrete Gaussian noise on the local gradients; set the budget."""
        K = len(self.nodes_)
        max_iter, n_local = self._schedule(K)
        dim = state.P * state.X.shape[1]
        state.dp = _WakeupBudget(
            spec, lambda eps, delta, n: calibrate_discrete_gaussian(eps, delta, 1.0, n, dim),
            n_nodes=K, max_iter=max_iter, n_local=n_local, uses_per_step=1,
        )
        state.source = NoiseSource.for_fit(spec, type(self).__name__)
        finite = math.isfinite(state.dp.epsilon)
        # No noise, nothing to bound: epsilon=inf leaves the gradients unclipped.
        state.clip = float(spec.clip_norm) if finite else 0.0
        if finite:
            # The step 1 / L_F,k read ||X_k||_2 off the data; a private node uses
            # the public bound for features on a unit scale instead:
            # ||X_k||_2^2 / m_k <= mean ||x_i||^2 = n_columns when every column
            # has mean square 1 (standardized features, intercept column 1).
            state.lipschitz = np.full(
                state.K, state.loss.py_curvature() * state.X.shape[1] + state.l2
            )
        state.row_norm = np.ascontiguousarray(
            np.linalg.norm(state.X.astype(np.float64), axis=1)
        )
        # One replaced sample moves each problem's clipped mean gradient by at
        # most 2 C / m_k in l2, so the P blocks together by 2 C sqrt(P) / m_k.
        state.sensitivity = 2.0 * float(spec.clip_norm) * math.sqrt(state.P) / mass
        # The mechanism is calibrated for sensitivity 1: its sigma is the noise
        # multiplier; node k's grid step sigma_k / 2^20 makes its grid
        # sensitivity, hence its rho, the calibrated one.
        state.sigma = np.ascontiguousarray(
            state.dp.mechanism.sigma * state.sensitivity, dtype=np.float64
        )
        if finite:
            step, state.grid_steps = gaussian_grid(1.0)
            state.grid_step = np.ascontiguousarray(state.sigma * step)
        else:
            state.grid_step, state.grid_steps = None, 0

    def _full_coef(self, released=False):
        return DecentralizedBoostingClassifier._full_coef(self, released)

    def decision_function(self, X, groups=None):
        """Score of every sample under its node's linear model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        check_is_fitted(self)
        X, codes = self._validate_predict_data(X, groups)
        return _personalized_scores(self._design(X, np.float64), codes, self._full_coef(),
                                    self._shared_coef())

    predict = DecentralizedBoostingClassifier.predict
