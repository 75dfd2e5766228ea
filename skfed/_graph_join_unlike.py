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
0.86-0.91.  The newcomer sees it on its own samples
(:func:`skfed._join_unlike.worse_than_chance`) and then keeps the local
model of its step 1 (the fit's purely local steps on its samples, as every
node had before the graph was learned) instead.  Local, nothing more is
sent (its row and weights are sent as before: they are what its
neighbours hold); a newcomer the test does not flag keeps its model
bit-identical.
"""

import numpy as np

from ._join_unlike import class_codes, worse_than_chance


def contradicted(Z, Y, layout, models):
    """Per newcomer, whether ``models[k]`` (``(n_problems, n_columns)``)
    misclassifies its samples (rows ``layout.node_indices(k)`` of the design
    ``Z`` and the ``+-1`` targets ``Y``) significantly more than chance."""
    preds, trues = [], []
    for k in range(layout.n_nodes):
        idx = layout.node_indices(k)
        F = np.asarray(models[k], dtype=np.float64) @ np.asarray(Z[idx], dtype=np.float64).T
        pred, true = class_codes(F, np.asarray(Y[:, idx]))
        preds.append(pred)
        trues.append(true)
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in trues])])
    return worse_than_chance(np.concatenate(preds), np.concatenate(trues), offsets)


def keep_local_if_contradicted(est, X, y, dtype, layout, new_models, local_models):
    """Replace (in place) the flagged newcomers' models by their local ones
    (``X``, ``y``: the join's samples in their order); returns the flags.

    Not under a finite ``privacy`` budget: the test reads the newcomer's raw
    samples, and a choice between two released models made on them is not
    covered by the join's accounting (nothing is flagged there)."""
    from ._graph_join import _design, _private, _targets

    if _private(est):
        return np.zeros(len(new_models), dtype=bool)

    flagged = contradicted(_design(est, X, dtype), _targets(est, y, dtype), layout, new_models)
    new_models[flagged] = local_models[flagged]
    return flagged
