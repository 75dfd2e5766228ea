"""Dada's feature vote: the first round and the conditional second round.

The first round (:func:`vote_on_features`, moved here from ``_dada.py``)
ranks and tests every feature by its correlation ratio with the labels at
the node (:func:`skfed.boosting._stumps.node_ballots`), a marginal
statistic: a feature that separates the classes only together with a
selected one (rotated moons seed 0: feature 1 given feature 0) can look no
more relevant than noise.  The second round
(``feature_selection="conditional_vote"``) asks every node how much each
unselected feature explains of its labels once the selected ones are
accounted for: the squared partial correlation of the labels (class codes;
nodes with exactly two classes take part) and the feature given an
intercept and the selected features, at the node.  Each node casts the
first round's ranking ballot on these statistics (its
``ceil(sqrt(n_candidates))`` best candidates), and a candidate is added
when its ranking count reaches :func:`vote_threshold` at level
``SECOND_LEVEL`` (half the first round's, so that the two rounds share the
Bonferroni budget).  No significance ballot is cast in this round:
admitting a candidate whose significance count reaches
:func:`significance_threshold`, as the first round does, was measured to
lose on Computer buyers (``benchmarks/dada_vote_conditional.py`` carries
that variant, ``B05``/``B025``, with its own ballots), and a ballot that
admits nothing is not worth its bytes (dada33: it was sent and tallied
only for ``conditional_votes_``).  A join (``add_nodes``) recounts the first
round with the newcomers' ballots (:mod:`skfed._graph_join_vote`) and
keeps the fit's selection, second-round features included.

Opt-in, not the default (``benchmarks/dada_vote_conditional.py``, 137
cases over 15 families): it recovers a feature the first round missed on
rotated moons seeds 0, 15 and 17 of 24 (+13.96, +19.89, +11.17 points;
with it Dada's rotated-moons join rows meet the goal at every k on seeds
0-2), adds nothing on HAR (no node has more samples than ``|S| + 2``
there), Landmine or the noisy moons, but loses 0.22 on average over
Computer buyers runs 0-12 (runs 11 / 12: -1.74 / -2.88) and 0.10 over
fresh seeds 3-12 of the nearly-alike ``related-alike`` family.
"""

import warnings

import numpy as np

from ._agreement import _count_votes, _size_median_messages, _vote_messages
from ._dada_state import _node_sizes
from ._stumps import (
    _VOTE_LEVEL,
    _vote_size,
    feature_relevance,
    node_ballots,
    vote_eligible,
    vote_threshold,
)

# The second round's family-wise level: half the first round's, so that the
# two rounds together admit a noise feature no more often than ~1.5 x one.
SECOND_LEVEL = _VOTE_LEVEL / 2


def second_round_key(seeds, shape):
    """The second round's tie keys: public randomness of its own, derived from
    the nodes' seeds (the same on every MPI rank as in the simulation)."""
    return np.random.default_rng([int(s) for s in seeds] + [1]).random(shape)


def partial_relevance(X, y, offsets, selected, candidates, sample_weight=None):
    """Every node's squared partial correlation of its labels and every candidate.

    The labels' and the candidate's residuals after weighted least squares
    on an intercept and the ``selected`` features at the node (a sample of
    weight 2 counts as two, as in :func:`feature_relevance`; weight 0 as
    none).  Returns ``(r2, dof, takes_part)``: ``r2`` of shape (n_nodes,
    n_features), zero outside ``candidates``; ``dof`` the t test's degrees
    of freedom per node (total weight minus the fitted columns minus 1);
    ``takes_part`` the nodes with exactly two classes of positive weight
    and ``dof >= 1``.
    """
    X = np.asarray(X, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.intp)
    sw = np.ones(X.shape[0]) if sample_weight is None else np.asarray(
        sample_weight, dtype=np.float64)
    S = np.flatnonzero(selected)
    K, d = offsets.shape[0] - 1, X.shape[1]
    r2 = np.zeros((K, d))
    dof = np.zeros(K)
    takes_part = np.zeros(K, dtype=bool)
    cand = np.flatnonzero(candidates)
    for k in range(K):
        a, b = offsets[k], offsets[k + 1]
        keep = sw[a:b] > 0
        root = np.sqrt(sw[a:b][keep])
        yk = np.asarray(y[a:b], dtype=np.float64)[keep]
        n = float(sw[a:b][keep].sum())
        if np.unique(yk).size != 2 or n - S.size - 2 < 1:
            continue
        A = root[:, None] * np.column_stack([np.ones(keep.sum()), X[a:b][keep][:, S]])
        Q, R = np.linalg.qr(A)
        norms = np.maximum(np.linalg.norm(A, axis=0), 1e-300)
        if not (np.abs(np.diag(R)) > 1e-10 * norms).all():
            # a column dependent on the others (relative to its own norm: units
            # free), e.g. a duplicated selected feature: the span from the SVD
            # of the unit columns (Q's first columns need not span it; review29)
            U, sv, _ = np.linalg.svd(A / norms, full_matrices=False)
            Q = U[:, sv > 1e-10 * sv[0]]
        rank = Q.shape[1]
        yk = root * yk
        ry = yk - Q @ (Q.T @ yk)
        Xc = root[:, None] * X[a:b][keep][:, cand]
        RX = Xc - Q @ (Q.T @ Xc)
        den = (RX ** 2).sum(0) * (ry ** 2).sum()
        scale = (Xc ** 2).sum(0) * (yk ** 2).sum()
        ok = den > 1e-12 * np.maximum(scale, 1e-300)
        num = (RX * ry[:, None]).sum(0) ** 2
        r2[k, cand] = np.where(ok, np.minimum(num / np.where(ok, den, 1.0), 1.0), 0.0)
        dof[k] = n - rank - 1
        takes_part[k] = dof[k] >= 1
    return r2, dof, takes_part


def conditional_ballots(X, y, offsets, selected, candidates, tie_key, voters,
                        sample_weight=None):
    """Every node's ranking ballot of the second round, one boolean row each
    (``n_features`` columns: its ``q = ceil(sqrt(n_candidates))`` candidates
    of largest squared partial correlation, ties broken by ``tie_key``; none
    from a node that does not vote or take part, :func:`partial_relevance`),
    and ``q``."""
    r2, _, takes_part = partial_relevance(X, y, offsets, selected, candidates, sample_weight)
    q = _vote_size(int(candidates.sum()))
    rel = np.where(candidates[None, :] & takes_part[:, None], r2, 0.0)
    order = np.lexsort((tie_key, -rel), axis=1)[:, :q]
    rows = np.repeat(np.arange(rel.shape[0]), q)
    chosen = order.ravel()
    keep = (rel[rows, chosen] > 0) & np.asarray(voters, dtype=bool)[rows]
    ranked = np.zeros(rel.shape, dtype=bool)
    ranked[rows[keep], chosen[keep]] = True
    return ranked, q


def count_second_round(ranked, candidates):
    """``(added, votes, threshold)`` from every node's ranking ballot (rows
    of :func:`conditional_ballots`): a candidate is added when its count
    ``votes`` (int64, one per feature) reaches ``threshold``
    (:func:`vote_threshold` of the nodes that voted, at ``SECOND_LEVEL``)."""
    n_voters = int(ranked.any(axis=1).sum())
    votes = ranked.sum(axis=0).astype(np.int64)
    n_candidates = int(candidates.sum())
    threshold = vote_threshold(n_voters, _vote_size(n_candidates), n_candidates,
                               level=SECOND_LEVEL)
    added = candidates & (votes >= threshold) & (n_voters > 0)
    return added, votes, int(threshold)


def second_round(X, y, offsets, varying, selected, tie_key, voters, simulation=None,
                 sample_weight=None):
    """``(added, votes, threshold, bytes)`` of the second round.

    Held when the first round selected a feature and left some varying
    ones out (else ``(no feature, None, None, 0)``).  ``added``: the
    features it selects (boolean, never one of ``selected``;
    :func:`count_second_round`).  Its ranking ballots go up and the
    selection comes down the same aggregation tree as the first round's
    (:func:`_vote_messages`, ``n_features`` counts wide).
    """
    candidates = varying & ~selected
    if not selected.any() or not candidates.any():
        return np.zeros(varying.shape[0], dtype=bool), None, None, 0
    ranked, _ = conditional_ballots(X, y, offsets, selected, candidates, tie_key, voters,
                                    sample_weight=sample_weight)
    added, votes, threshold = count_second_round(ranked, candidates)
    if not ranked.any():
        warnings.warn(
            "feature_selection='conditional_vote': no node took part in the second "
            "vote round (only nodes with exactly two classes of positive weight and "
            "more samples than selected features rank candidates in it), so it adds "
            "no feature: the selection is the first round's.", UserWarning, stacklevel=2)
    spent = 0 if simulation is None else _vote_messages(simulation, ranked, added)
    return added, votes, threshold, spent


def vote_on_features(est, Xs, y_codes, sws, layout, simulation, varying, seeds):
    """The federated vote on the stumps' features (``feature_selection="vote"``).

    The nodes first agree on the median of their sizes (distinct
    positive-weight samples; :func:`_size_median_messages`); the nodes
    at or above it vote (:func:`vote_eligible`), the others abstain.
    Every voter ranks the features that vary (on the agreed ranges) by
    their correlation ratio with its labels (:func:`feature_relevance`)
    and votes for its ``q = ceil(sqrt(n_varying))`` most relevant ones
    (ties broken at random; a node where nothing is relevant abstains);
    every node with more samples than classes and two classes or more
    also casts a significance ballot (:func:`significant_features`: the
    features whose correlation ratio is significant at the node at level
    0.05), sent with the first.
    The counts are summed up the aggregation tree
    (:func:`_aggregation_tree`): each node sends its parent its subtree's
    number of voters and its non-zero counts (int32 each, with a
    ``ceil(log2 n_features)``-bit index; or all ``n_features`` counts
    when that is smaller); the root sends the selected features back
    down (a bit per feature or their indices, whichever is smaller).
    A feature is selected when its ranking count reaches
    :func:`vote_threshold` or its significance count reaches
    :func:`significance_threshold` (of the nodes that held the test, at
    their level 0.05); if none does, or ``q >= n_varying``, every
    varying feature is kept.  With ``feature_selection="conditional_vote"``
    the :func:`second_round` follows when the first selected some varying
    features and left some out (its ballots and selection travel the same
    tree, with tie keys of their own); it sets ``conditional_features_``
    and ``conditional_votes_`` of ``est``.

    Returns ``(selected, votes, threshold, bytes)`` (the first round's
    counts and thresholds; ``selected`` includes the second round's).
    """
    d = Xs.shape[1]
    conditional = est.feature_selection == "conditional_vote"
    est.conditional_features_ = np.zeros(d, dtype=bool) if conditional else None
    est.conditional_votes_ = None
    n_varying = int(varying.sum())
    q = _vote_size(n_varying)
    if n_varying <= 1 or q >= n_varying:
        return varying.copy(), np.zeros(d, dtype=np.int64), 0, 0
    relevance = feature_relevance(Xs, y_codes, layout.offsets, sws)
    tie_key = np.random.default_rng(seeds).random(relevance.shape)
    sizes = _node_sizes(Xs, sws, layout.offsets)
    voters = vote_eligible(sizes)
    est.vote_min_samples_ = float(np.median(sizes))
    ballots = node_ballots(relevance, y_codes, layout.offsets, varying, q, tie_key,
                           voters, sws)
    selected, votes, threshold = _count_votes(ballots, varying, q)
    est._vote_tally = (ballots[:, :d].any(1).sum(), ballots[:, 2 * d].sum(), sizes.sum())
    spent = _size_median_messages(simulation, sizes)
    spent += _vote_messages(simulation, ballots, selected)
    if conditional and np.any(np.asarray(threshold) > 0) \
            and selected.sum() < n_varying:
        second_key = second_round_key(seeds, relevance.shape)
        added, second_votes, second_threshold, extra = second_round(
            Xs, y_codes, layout.offsets, varying, selected, second_key, voters, simulation,
            sample_weight=sws)
        est.conditional_features_ = added
        if second_votes is not None:
            est.conditional_votes_ = (second_votes, second_threshold)
        selected = selected | added
        spent += extra
    return selected, votes, threshold, spent
