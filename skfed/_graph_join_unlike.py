"""A Dada or Perso-lin newcomer whose labels contradict its neighbours'.

A joining node's model comes from its step 4 (:mod:`skfed._graph_join`):
the fit's mean number of a node's model steps on its block of the graph
objective, its neighbours' models fixed; Dada's start at its neighbours'
mean with the short steps ``gamma = 2 / (tau + 2 + 8 T)``, Perso-lin's
with the graph term ``mu`` pulling it toward them.  When the newcomer's
labels oppose its neighbours' (every candidate is then equally unlike it,
and the row still links it to some), those steps cannot leave the
neighbours' model: a Dada newcomer of 100 samples, more than any fitted
node's 40, misclassified 98-100 % of its fresh samples where a refit scored
0.86-0.91.  The newcomer sees it on its own samples and then keeps the local
model of its step 1 (the fit's purely local steps on its samples, as every
node had before the graph was learned) instead.  Local, nothing more is
sent (its row and weights are sent as before: they are what its
neighbours hold); a newcomer the test does not flag keeps its model
bit-identical.  The test (:func:`contradicted`) flags a newcomer when
its joined model misclassifies its samples more than their majority class
would (:func:`skfed._join_unlike.worse_than_chance`, level 0.01) *and*,
with two classes, ranks them the wrong way round
(:func:`skfed._join_rank.ranking_reversed`, veto level 0.25): errors that
come from the base rate alone (10 rows of a Landmine field holding 7-8
mines where the field has a few percent, rogue34) keep the neighbours'
model, which knows the rate better than 10 rows do.  A boundary turned by 90 degrees leaves the joined model at
chance on the newcomer's samples, where neither test fires; a comparison
with the newcomer's own leave-one-out fit does
(:mod:`skfed._join_own_fit`: Perso-lin's join at ``k = 20`` from 0.575 to
0.663 on seeds 0-11, no table newcomer flagged,
``benchmarks/guard38_persolin_own_fit.py``), and Perso-lin's posterior and
feature-mean joins run it too (:func:`keep_alone_if_contradicted`).  The
graph join does not: it flags Dada newcomers whose kept local model is
worse than the joined one (``tests/test_graph_join_light_rows.py``'s
25-row newcomer: 0.805 against 0.889 on fresh rows).

Why not re-weigh (a larger own confidence chosen by cross-validation on
the newcomer's samples) instead of keeping the local model: on rogue34's
newcomers the samples themselves mislead, and a choice made by their
cross-validation would follow them (not measured: the local model fits
all 10 rows in sample, the joined one misses 8-9); an opposite newcomer's
neighbours are all wrong, so no weight on them helps.
The loss a flagged newcomer records for later joins (its
candidates' ``losses`` in ``_join_info``) is its kept model's.

Perso-lin's default joins do not take the graph path: its posterior join
(:mod:`skfed.boosting._perso_lin_posterior`) and its feature-mean join
(:func:`skfed._mean_neighbours.mean_neighbour_join`) never fit a local
model.  There a flagged newcomer (:func:`keep_alone_if_contradicted`)
solves the model it would fit alone, the graph join's step 1 for
Perso-lin: ``argmin_theta F_n(theta)`` (its sample-weighted mean loss and
the fit's l2 term, solved as the fitted nodes' local models, a light
newcomer's certified), on its own samples, nothing sent; its recorded
loss is that model's ``c_n F_n``.  (Dada's feature-mean join takes only
one-class newcomers, which the test never flags.)
"""

import numpy as np

from ._join_own_fit import own_fit_beats_join
from ._join_rank import ranking_reversed
from ._join_unlike import class_codes, worse_than_chance


def contradicted(Z, Y, layout, models, sw=None):
    """Per newcomer, whether ``models[k]`` (``(n_problems, n_columns)``)
    misclassifies its samples (rows ``layout.node_indices(k)`` of the design
    ``Z`` and the ``+-1`` targets ``Y``, those of positive weight ``sw``:
    a row of weight 0 is absent from the join) significantly more than
    chance *and* ranks them the wrong way round
    (:func:`skfed._join_rank.ranking_reversed`: a model whose errors come
    from its base rate alone is the newcomer's neighbours' and stays)."""
    preds, trues, margins = [], [], []
    for k in range(layout.n_nodes):
        idx = layout.node_indices(k)
        if sw is not None:
            idx = idx[np.asarray(sw)[idx] > 0]
        F = np.asarray(models[k], dtype=np.float64) @ np.asarray(Z[idx], dtype=np.float64).T
        pred, true = class_codes(F, np.asarray(Y[:, idx]))
        preds.append(pred)
        trues.append(true)
        margins.append(F)
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in trues])])
    trues = np.concatenate(trues)
    flagged = worse_than_chance(np.concatenate(preds), trues, offsets)
    margins = np.concatenate(margins, axis=1)
    if margins.shape[0] > 1:
        return flagged  # (no veto with more classes: skfed/_join_rank.py)
    for k in np.flatnonzero(flagged):  # (the ranking test only vetoes)
        sl = slice(int(offsets[k]), int(offsets[k + 1]))
        flagged[k] = ranking_reversed(margins[:, sl], trues[sl], np.array([0, sl.stop - sl.start]))[0]
    return flagged


def kept_loss(est, Z, Y, sw, model):
    """A newcomer's ``c_n F_n`` at ``model`` (``(P, n_columns)``), its samples'
    design ``Z``, ``+-1`` targets ``Y`` and weights ``sw``: Dada's
    log-sum-exp losses, Perso-lin's mean losses plus the l2 term (the fit's
    local term of the graph objective, as ``_join_info`` keeps it)."""
    from ._graph_join import _Newcomer

    node = _Newcomer(est, np.ascontiguousarray(Z), np.ascontiguousarray(Y),
                     np.ascontiguousarray(sw, dtype=model.dtype),
                     float(est._join_info["max_mass"]), model.dtype)
    total = float(node.data_losses(model[None]).sum())
    if not node.dada:
        pen = model[:, :node.n_penalized].astype(np.float64)
        total += 0.5 * node.l2 * float(np.sum(pen * pen))
    return node.confidence * total


def _flags(est, X, y, sw, layout, new_models):
    """``(flagged, Z, Y)``: :func:`contradicted` on the join's samples in the
    models' dtype (none flagged, and ``Z``, ``Y`` None, under a finite
    ``privacy`` budget)."""
    from ._graph_join import _design, _private, _targets

    if _private(est):
        return np.zeros(len(new_models), dtype=bool), None, None
    dtype = new_models.dtype
    Z, Y = _design(est, X, dtype), _targets(est, y, dtype)
    return contradicted(Z, Y, layout, new_models, sw), Z, Y


def _own_fit_flags(X, Z, Y, sw, layout, models):
    """Per newcomer of two classes, :func:`skfed._join_own_fit.own_fit_beats_join`
    on its rows of positive weight."""
    out = np.zeros(layout.n_nodes, dtype=bool)
    for k in range(layout.n_nodes):
        idx = layout.node_indices(k)
        idx = idx[np.asarray(sw)[idx] > 0]
        F = np.asarray(models[k], dtype=np.float64) @ np.asarray(Z[idx], dtype=np.float64).T
        if F.shape[0] == 1:
            _, true = class_codes(F, np.asarray(Y[:, idx]))
            out[k] = own_fit_beats_join(X[idx], F, true, np.array([0, len(idx)]))[0]
    return out


def keep_local_if_contradicted(est, X, y, sw, layout, new_models, local_models, losses=None,
                               keep_losses=False):
    """Replace (in place) the flagged newcomers' models by their local ones
    (``X``, ``y``, ``sw``: the join's samples and weights in their order)
    and, unless ``keep_losses`` (they are the local models' already), their
    ``losses`` (in place) by the local models'; returns the flags.

    Not under a finite ``privacy`` budget: the test reads the newcomer's raw
    samples, and a choice between two released models made on them is not
    covered by the join's accounting (nothing is flagged there)."""
    flagged, Z, Y = _flags(est, X, y, sw, layout, new_models)
    new_models[flagged] = local_models[flagged]
    if losses is not None and not keep_losses:
        sw = np.asarray(sw, dtype=np.float64)
        for k in np.flatnonzero(flagged):
            idx = layout.node_indices(k)
            losses[k] = kept_loss(est, Z[idx], Y[:, idx], sw[idx], new_models[k])
    return flagged


def keep_alone_if_contradicted(est, X, y, sw, layout, new_models, losses):
    """Perso-lin's posterior and feature-mean joins: each newcomer flagged
    by :func:`contradicted` or, with two classes, by
    :func:`skfed._join_own_fit.own_fit_beats_join` (its own leave-one-out
    fit ranks its samples better than the join) gets as its model (in
    ``new_models``, in place) the one it fits alone and
    its loss (in ``losses``) that model's ``c_n F_n`` (see the module);
    returns the flags.  Not under a finite ``privacy`` budget (see
    :func:`keep_local_if_contradicted`)."""
    from ._graph_join import _Newcomer
    from .boosting._perso_lin import light_mass

    flagged, Z, Y = _flags(est, X, y, sw, layout, new_models)
    if Z is not None:  # (and a join at chance its own fit beats: skfed/_join_own_fit.py)
        flagged |= _own_fit_flags(X, Z, Y, sw, layout, new_models)
    dtype = new_models.dtype
    if not flagged.any():
        return flagged
    info = est._join_info
    n_fit = int(info.get("n_fit", len(est.nodes_)))
    light_below = light_mass(est.confidence_[:n_fit], info["max_mass"])
    sw = np.asarray(sw, dtype=np.float64)
    for k in np.flatnonzero(flagged):
        idx = layout.node_indices(k)
        node = _Newcomer(est, np.ascontiguousarray(Z[idx]), np.ascontiguousarray(Y[:, idx]),
                         np.ascontiguousarray(sw[idx], dtype=dtype), float(info["max_mass"]),
                         dtype, light_below)
        node.local(0)  # (its step count is the private fit's only)
        new_models[k] = node.model[0]
        losses[k] = node.graph_loss(False)
    return flagged
