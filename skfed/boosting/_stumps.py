"""Dada's base predictors: decision stumps, where they go, and the feature vote.

The stumps are shared by every node (same features, same thresholds), so that
the nodes' models are comparable coordinate by coordinate.  Where they go is
agreed without pooling data: from the feature ranges, from merged per-feature
histograms (``stump_placement="quantile"``), and on the features a federated
vote of per-node relevance selects (``feature_selection="vote"``).
"""

import math

import numpy as np

# Bins per feature of the histograms behind ``stump_placement="quantile"``.
_N_BINS = 256
# Expected number of features the feature vote selects by chance.
_VOTE_LEVEL = 0.05
# Level of a node's own test of a feature's relevance (the significance
# ballot of :func:`node_ballots`).
_NODE_LEVEL = 0.05
# The significance ballot keeps a feature only if at least this multiple of
# ``_NODE_LEVEL`` of the nodes tested vote for it (an effect size on top of
# the binomial test, :func:`significance_threshold`).
_SIGNIFICANCE_MARGIN = 1.5


# ------------------------------------------------------------------ stumps
# n_estimators="auto": two stumps per feature that gets stumps, at least 200.
_AUTO_MIN_STUMPS = 200
_AUTO_STUMPS_PER_FEATURE = 2


def resolve_n_estimators(n_estimators, n_stump_features):
    """The number of stumps a fit builds.

    Parameters
    ----------
    n_estimators : int or "auto"
        The estimator's parameter.  An integer is kept as it is.  ``"auto"``
        gives ``max(200, 2 * n_stump_features)``: 200 stumps while fewer than
        100 features get stumps, then two per feature, so that a data set
        with hundreds of signal-carrying features does not leave most of
        them without a stump.
    n_stump_features : int
        Number of features the stumps are spread over (the voted features,
        or the varying ones without a vote).

    Returns
    -------
    n : int
        The resolved number of stumps.
    """
    if n_estimators == "auto":  # any other value passed the estimator's constraints
        return max(_AUTO_MIN_STUMPS, _AUTO_STUMPS_PER_FEATURE * int(n_stump_features))
    return int(n_estimators)


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


def vote_eligible(sizes):
    """The nodes whose ballots count: those with at least the median sample count.

    A node with a handful of samples ranks the features mostly at random
    (its correlation ratios are noise), so its ballot adds chance votes to
    every feature and buries a feature that only part of the nodes find
    relevant.  The nodes at or above the median of ``sizes`` (each node's
    distinct positive-weight samples) vote; the others abstain.  The
    threshold test stays valid (under the null each voter still votes for a
    feature with probability ``q / n_varying``, whoever votes).  On the
    held-out noisy moons (3-14 samples a node) the vote then keeps both
    informative features in 5 of 6 seeds instead of 2, and Dada's accuracy
    goes from 66.1 % to 75.5 % (``benchmarks/dada_experiments.py``).

    Parameters
    ----------
    sizes : array-like of shape (n_nodes,)

    Returns
    -------
    eligible : ndarray of shape (n_nodes,), dtype=bool
        Never empty (the largest node is at or above the median).
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    return sizes >= np.median(sizes)


def node_votes(relevance, candidates, n_votes, tie_key, voters=None):
    """Each node's vote: its ``n_votes`` most relevant candidate features.

    A node votes for the features of ``candidates`` with the largest
    ``relevance`` in its row, among those with positive relevance (at most
    ``n_votes``; a node with none abstains); ties are broken by ``tie_key``
    (a random permutation key per node and feature), so that features of
    equal relevance are equally likely to be chosen.  Nodes outside
    ``voters`` (a boolean mask, :func:`vote_eligible`; None: all) abstain.

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
    if voters is not None:
        keep &= np.asarray(voters, dtype=bool)[rows]
    votes[rows[keep], chosen[keep]] = True
    return votes


def significant_features(relevance, y, offsets, candidates, sample_weight=None,
                         level=_NODE_LEVEL):
    """Each node's significance ballot: the features whose relevance is significant there.

    Node k (``n_k`` its total sample weight, so that a weight of 2 counts
    as a duplicated sample; ``C_k`` classes among its samples of positive
    weight) tests every candidate feature j with the one-way analysis of
    variance's F statistic of its correlation ratio ``eta2 =
    relevance[k, j]`` (:func:`feature_relevance`)::

        F = (eta2 / (C_k - 1)) / ((1 - eta2) / (n_k - C_k)),

    and votes for it when ``P(F(C_k - 1, n_k - C_k) >= F) < level`` (exact
    for normal features, approximate otherwise).  A node with one class, or
    with no more samples than classes, takes no part.

    Returns
    -------
    votes : ndarray of shape (n_nodes, n_features), dtype=bool
    takes_part : ndarray of shape (n_nodes,), dtype=bool
        The nodes that held the test (under the null, each votes for a
        given feature with probability ``level``, whether or not it votes
        for any).
    """
    from scipy.stats import f as f_distribution

    relevance = np.asarray(relevance, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.intp)
    y = np.asarray(y)
    weight = (np.ones(y.shape[0]) if sample_weight is None
              else np.asarray(sample_weight, dtype=np.float64))
    positive = weight > 0
    K = offsets.shape[0] - 1
    n = np.add.reduceat(np.where(positive, weight, 0.0), offsets[:-1]) if K else np.zeros(0)
    n_classes = np.array([np.unique(y[a:b][positive[a:b]]).size
                          for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())],
                         dtype=np.int64)
    takes_part = (n_classes > 1) & (n > n_classes)
    df1 = np.maximum(n_classes - 1, 1).astype(np.float64)[:, None]
    df2 = np.maximum(n - n_classes, 1).astype(np.float64)[:, None]
    F = (relevance / df1) / np.maximum(1.0 - relevance, 1e-300) * df2
    votes = f_distribution.sf(F, df1, df2) < level
    votes &= takes_part[:, None] & np.asarray(candidates, dtype=bool)[None, :] & (relevance > 0)
    return votes, takes_part


def node_ballots(relevance, y, offsets, candidates, n_votes, tie_key, voters=None,
                 sample_weight=None):
    """Every node's two ballots of the feature vote, as one boolean row.

    Columns ``0 .. d - 1``: its ranking ballot (:func:`node_votes`, the
    ``n_votes`` most relevant candidates, ``voters`` only); columns ``d ..
    2 d - 1``: its significance ballot (:func:`significant_features`);
    column ``2 d``: whether it took part in the significance test.  The
    counts of the columns, summed up the aggregation tree, are all the root
    needs (:func:`count_ballots`).

    Returns
    -------
    ballots : ndarray of shape (n_nodes, 2 n_features + 1), dtype=bool
    """
    ranked = node_votes(relevance, candidates, n_votes, tie_key, voters)
    significant, takes_part = significant_features(relevance, y, offsets, candidates,
                                                   sample_weight)
    return np.hstack([ranked, significant, takes_part[:, None]])


def binomial_threshold(n_voters, p, n_candidates, level=_VOTE_LEVEL):
    """Least count ``v`` with ``P(Binomial(n_voters, p) >= v) <= level / n_candidates``."""
    from scipy.stats import binom

    n_voters, n_candidates = int(n_voters), int(n_candidates)
    v = np.arange(n_voters + 2)
    # P(count >= v); 0 at v = n_voters + 1, so some v always qualifies.
    tail = binom.sf(v - 1, n_voters, min(1.0, float(p)))
    return int(v[np.argmax(tail <= level / max(n_candidates, 1))])


def significance_threshold(n_tested, n_candidates, level=_NODE_LEVEL,
                           margin=_SIGNIFICANCE_MARGIN, vote_level=_VOTE_LEVEL):
    """Least significance count that keeps a feature in the vote.

    The larger of :func:`binomial_threshold` ``(n_tested, level,
    n_candidates, vote_level)`` (the count is significantly above what
    ``n_tested`` nodes testing at ``level`` give a useless feature) and
    ``ceil(margin * level * n_tested)`` (and it is also at least ``margin``
    times that rate).  The floor keeps the rule's meaning at any number of
    nodes: the nodes' F test is exact for normal features only, so a useless
    feature's rate can differ a little from ``level``, and at thousands of
    nodes the binomial test alone detects that (the "noisy" moons at 10,000
    nodes: a noise feature voted by 5.7 % of the nodes passed the binomial
    threshold of 5.6 %; informative features there reach 7.8 % and 14.8 %,
    see ``benchmarks/dada_ballot_margin.py``).  Below 721 nodes tested
    with 20 candidates (507 with 5, 1,254 with 561) the binomial threshold
    is the larger.

    Examples
    --------
    >>> from skfed.boosting import significance_threshold
    >>> significance_threshold(100, 20), significance_threshold(10000, 20)
    (13, 750)
    """
    if margin < 1:
        raise ValueError(f"margin must be at least 1, got {margin!r}.")
    n_tested = int(n_tested)
    floor = math.ceil(margin * level * n_tested - 1e-9)
    return max(binomial_threshold(n_tested, level, n_candidates, vote_level), int(floor))


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
    return binomial_threshold(n_voters, n_votes / max(int(n_candidates), 1), n_candidates,
                              level)


class Stump:
    """The decision stump ``h(x) = +1 if x[feature] > threshold else -1``.

    A picklable base predictor for ``base_predictors``.
    """

    def __init__(self, feature, threshold):
        self.feature = int(feature)
        self.threshold = float(threshold)

    def __call__(self, X):
        X = np.asarray(X)
        if not -X.shape[1] <= self.feature < X.shape[1]:
            raise ValueError(
                f"{self!r} of base_predictors reads feature {self.feature}, but X has "
                f"{X.shape[1]} features: build the stumps on X's feature range "
                f"(make_stump_predictors with {X.shape[1]} minima and maxima)."
            )
        return np.where(X[:, self.feature] > self.threshold, 1.0, -1.0)

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


def stump_groups(H8, features, thresholds):
    """Columns of ``H8`` as groups whose +1 entries form a prefix: ``(perm, gptr, counts)``.

    ``H8`` (int8, +-1) holds the stumps ``features`` / ``thresholds`` (its
    first columns, :func:`stump_predictions`) followed by any other columns
    (the intercept).  The stumps of one feature, sorted by threshold, form a
    group: sample i is +1 on the first ``counts[i, f]`` of group f's columns
    (those whose threshold is below ``x_if``) and -1 on the rest; every other
    column is a group of its own (count 1 where it is +1, else 0).  Group f
    holds columns ``perm[gptr[f]:gptr[f + 1]]``.  A model's margin on sample
    i is then ``sum_f (2 S_f(counts[i, f]) - S_f(size_f))`` with ``S_f`` the
    prefix sums of its weights in group order (``_graph_fast`` scores peers
    so: one look-up a feature instead of one a stump).

    Returns None when a column does not follow its group's prefix pattern
    (``H8`` is not the stumps' predictions).
    """
    H8 = np.asarray(H8)
    features = np.asarray(features, dtype=np.intp)
    thresholds = np.asarray(thresholds, dtype=np.float64)
    n_stumps, n_base = features.shape[0], H8.shape[1]
    if n_stumps > n_base:
        return None
    order = np.lexsort((thresholds, features))
    perm = np.concatenate([order, np.arange(n_stumps, n_base)]).astype(np.intp)
    sorted_features = features[order]
    starts = np.flatnonzero(np.r_[True, sorted_features[1:] != sorted_features[:-1]]) \
        if n_stumps else np.zeros(0, dtype=np.intp)
    gptr = np.concatenate([starts, np.arange(n_stumps, n_base + 1)]).astype(np.intp)
    n_groups = gptr.shape[0] - 1
    group_of = np.repeat(np.arange(n_groups), np.diff(gptr))
    rank = np.arange(n_base) - gptr[group_of]
    positive = H8[:, perm] > 0
    counts = np.add.reduceat(positive, gptr[:-1], axis=1) if n_groups else \
        np.zeros((H8.shape[0], 0), dtype=np.intp)
    counts = np.ascontiguousarray(counts, dtype=np.int32)
    if not np.array_equal(positive, rank[None, :] < counts[:, group_of]):
        return None
    return perm, gptr, counts
