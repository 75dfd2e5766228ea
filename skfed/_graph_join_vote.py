"""Dada's feature vote when nodes join (step 0 of :mod:`skfed._graph_join`).

A Dada fit with ``feature_selection="vote"`` boosts stumps on the features
its nodes' vote selected and keeps the vote's tally (``_vote_tally``: its
numbers of ranking voters and of significance testers and its pooled
distinct samples; the counts are ``feature_votes_``).  Newcomers cast the
fit's two ballots on their own samples (:func:`join_vote`), the counts grow
by theirs and the fit's thresholds are applied to all voters
(``_count_votes``' rule).  A feature the fit selected stays; a feature
the newcomers carry over a threshold gets the stumps ``make_stumps`` gives
it under the new selection, with weight zero in every fitted model
(:func:`apply_vote`; their predictions do not change).  Each voting
newcomer sends its ballot's non-zero counts to the vote's root, which sends
the selection back to every newcomer (:func:`vote_message_bytes`).

On rotated moons (seed 0 of ``benchmarks/new_nodes.py``) the 80 fitted
nodes' vote kept one of the two informative features; with the newcomers'
ballots the join went from 64.6 / 66.6 to 73.7 / 81.6 at ``k = 10 / 20``
(refit 77.5 / 83.2).  On the held-out ``--datasets related`` families it
never lowered a mean (250 nodes of 8 samples: 59.6 / 59.5 / 63.8 -> 60.2 /
63.9 / 68.4 at ``k = 5 / 10 / 20``).
"""

import numpy as np

from ._graph_join import _is_dada, _private

__all__ = ["apply_vote", "join_vote", "vote_message_bytes"]


def _distinct_sizes(Xs, sw, offsets):
    """Distinct positive-weight rows of every node (rows compared exactly),
    the count of ``skfed.boosting._dada._node_sizes`` by one lexicographic
    sort of all the nodes' rows instead of a ``numpy.unique`` per node."""
    n = len(offsets) - 1
    codes = np.repeat(np.arange(n), np.diff(offsets))
    keep = np.asarray(sw) > 0
    rows, codes = Xs[keep], codes[keep]
    if not len(codes):
        return np.zeros(n, dtype=np.int64)
    order = np.lexsort(tuple(rows.T[::-1]) + (codes,))
    rows, codes = rows[order], codes[order]
    first = np.ones(len(codes), dtype=bool)
    first[1:] = (codes[1:] != codes[:-1]) | np.any(rows[1:] != rows[:-1], axis=1)
    return np.bincount(codes[first], minlength=n).astype(np.int64)


def join_vote(estimator, X, y, sw, layout, rng):
    """The newcomers' ballots added to the fit's feature vote (Dada, step 0).

    Parameters
    ----------
    estimator : DecentralizedBoostingClassifier or PersonalizedLinearClassifier
        Fitted (Perso-lin and Dada fits without a vote: returns None).
    X, y : ndarray
        The newcomers' samples and classes (validated by the join).
    sw : ndarray of shape (n_samples,)
        Their sample weights.
    layout : object
        The join's layout: ``codes``, each sample's newcomer index.
    rng : numpy.random.RandomState
        Draws the ballots' tie keys.

    Returns
    -------
    dict or None
        None when there is no vote to join: Perso-lin, user base
        predictors, ``feature_selection=None``, ``stump_placement=
        "quantile"`` (its thresholds need every node's histogram), a finite
        ``privacy`` budget, or a fit that kept no tally.  Else the
        newcomers' ``ballots`` (rows of
        :func:`~skfed.boosting._stumps.node_ballots`, newcomer order), the
        recounted ``selected`` features (the fit's included), ``votes`` (2,
        n_features), ``threshold`` (2,), ``tally`` ``(voters, testers,
        distinct samples)``, the ``new`` features (selected now, not by the
        fit) and their stumps ``stump_features`` and ``stump_thresholds``.
    """
    est = estimator
    tally = getattr(est, "_vote_tally", None)
    if (not _is_dada(est) or tally is None or est.base_predictors is not None
            or est.feature_selection not in ("vote", "conditional_vote")
            or est.stump_placement == "quantile"
            or _private(est) or est.feature_votes_ is None or np.ndim(est.feature_votes_) != 2):
        return None
    from .boosting._agreement import _selection_rule
    from .boosting._stumps import (_vote_size, feature_relevance, make_stumps, node_ballots,
                                   resolve_n_estimators)

    lo, hi = est.feature_range_
    varying = hi > lo
    d, n_varying = varying.shape[0], int(varying.sum())
    q = _vote_size(n_varying)
    n_new = int(layout.codes.max()) + 1 if len(layout.codes) else 0
    order = np.argsort(layout.codes, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(layout.codes, minlength=n_new))]
                             ).astype(np.intp)
    Xs = np.ascontiguousarray(np.asarray(X, dtype=np.float64)[order])
    codes = np.searchsorted(est.classes_, np.asarray(y)[order]).astype(np.intp)
    sws = np.ascontiguousarray(np.asarray(sw, dtype=np.float64)[order])
    sizes = _distinct_sizes(Xs, sws, offsets)
    voters = sizes >= float(est.vote_min_samples_)
    relevance = feature_relevance(Xs, codes, offsets, sws)
    tie_key = rng.random_sample(relevance.shape)
    ballots = node_ballots(relevance, codes, offsets, varying, q, tie_key, voters, sws)
    # The fit's counts plus the newcomers' (the rule of _count_votes).
    votes = np.asarray(est.feature_votes_, dtype=np.int64) + np.vstack(
        [ballots[:, :d].sum(axis=0), ballots[:, d:2 * d].sum(axis=0)])
    fit_voters, fit_tested, fit_samples = (int(t) for t in tally)
    n_voters = fit_voters + int(ballots[:, :d].any(axis=1).sum())
    n_tested = fit_tested + int(ballots[:, 2 * d].sum())
    selected, threshold = _selection_rule(votes[0], votes[1], n_voters, n_tested, varying, q)
    # A feature the fit selected keeps its stumps (the fitted models use them).
    selected |= np.asarray(est.selected_features_, dtype=bool)
    new = selected & ~np.asarray(est.selected_features_, dtype=bool)
    samples = fit_samples + int(sizes.sum())
    features = thresholds = np.zeros(0)
    if new.any():
        # The stumps the fit would give the new features with this selection
        # (the agreed ranges are public: nothing more to agree on).
        # The fit's count rule applied to the new selection: an integer
        # n_estimators as it is, "auto" resolved on the recounted features
        # (the fit's resolved count, 200 with 60 voted features, would spread
        # 200 stumps over a selection grown past 200 and leave the features
        # after the 200th without a stump; it also gives a new feature fewer
        # than the two stumps "auto" promises once 100 are selected).
        n_stumps = resolve_n_estimators(est.n_estimators, int(selected.sum()))
        f_all, t_all = make_stumps(lo, hi, n_stumps, est.stump_placement,
                                   features=selected, max_per_feature=samples)
        keep = new[f_all]
        features, thresholds = f_all[keep], t_all[keep]
    return {"ballots": ballots, "selected": selected, "votes": votes,
            "threshold": threshold, "new": new,
            "tally": (n_voters, n_tested, samples),
            "stump_features": features.astype(np.intp), "stump_thresholds": thresholds}


def vote_message_bytes(ballots, n_features, n_selected):
    """Bytes of the join's vote messages.

    Parameters
    ----------
    ballots : ndarray of shape (n_new, 2 n_features + 1), dtype=bool
        The newcomers' ballots.
    n_features : int
    n_selected : int
        Features selected after the join's vote.

    Returns
    -------
    up : ndarray of shape (n_new,), dtype=int64
        Each newcomer's ballot message to the vote's root: its non-zero
        counts with their indices, or all counts when that is smaller (as a
        subtree's message in the fit's vote); 0 for an empty ballot (nothing
        sent).
    down : int
        The selection sent back to each newcomer (a bit per feature or the
        selected indices, whichever is smaller).
    """
    from .boosting._agreement import _ballot_bytes, _selection_bytes

    width = ballots.shape[1]
    m = ballots.sum(axis=1).astype(np.int64)
    up = np.array([_ballot_bytes(int(c), width) for c in m.tolist()], dtype=np.int64)
    up[m == 0] = 0  # nothing to send: no ballot
    return up, int(_selection_bytes(int(n_selected), n_features))


def apply_vote(est, vote, info):
    """Give the estimator the join's vote and the new features' stumps.

    Parameters
    ----------
    est : DecentralizedBoostingClassifier
        Fitted; its ``stump_features_``, ``stump_thresholds_``, ``coef_``
        (and ``released_coef_``), ``n_base_predictors_`` grow by the new
        stumps, with weight zero in every fitted model (their predictions do
        not change); its vote attributes become the recount's.
    vote : dict
        :func:`join_vote`'s result.
    info : dict
        What the fit kept for joins.

    Returns
    -------
    dict
        ``info`` with its graph models (if any) grown alike, the intercept
        column kept last.
    """
    n_add = len(vote["stump_features"])
    est.selected_features_ = vote["selected"]
    est.feature_votes_ = vote["votes"]
    est.vote_threshold_ = vote["threshold"]
    est._vote_tally = vote["tally"]
    if not n_add:
        return info
    est.stump_features_ = np.concatenate([est.stump_features_, vote["stump_features"]])
    est.stump_thresholds_ = np.concatenate([est.stump_thresholds_, vote["stump_thresholds"]])

    def grow(coef):
        pad = np.zeros(coef.shape[:-1] + (n_add,), dtype=coef.dtype)
        return np.ascontiguousarray(np.concatenate([coef, pad], axis=-1))

    est.coef_ = grow(est.coef_)
    if hasattr(est, "released_coef_"):
        est.released_coef_ = grow(est.released_coef_)
    est.n_base_predictors_ = int(est.n_base_predictors_) + n_add
    if info.get("graph_models") is not None:
        gm = np.asarray(info["graph_models"])
        n_stumps = gm.shape[-1] - int(est.fit_intercept)
        pad = np.zeros(gm.shape[:-1] + (n_add,), dtype=gm.dtype)
        info = dict(info, graph_models=np.ascontiguousarray(
            np.concatenate([gm[..., :n_stumps], pad, gm[..., n_stumps:]], axis=-1)))
    return info
