"""An online newcomer whose labels contradict the functions it starts from.

A classifier's newcomer starts from the network function or its
neighbours' combination (:meth:`skfed.online._join._JoinMixin.add_nodes`,
step 2) and then makes ``max_epochs`` passes over its samples, its
neighbours' functions held fixed in its consensus term.  When its labels
oppose the federation's, that start misclassifies 80-100 % of its own
samples, and the passes begin at the wrong sign: the consensus term (its
neighbours are of the opposite task too) and the start together held its
fresh accuracy to 0.661 over seeds 0-8 of review36's case (0.15 on seed 4,
whose fit coupled its nodes strongly), where a refit, whose nodes all start
from zero, scored 0.845.  A newcomer whose start misclassifies its own
samples significantly more than chance
(:func:`skfed._join_unlike.worse_than_chance`) therefore starts from zero
as a fit's node does and makes its passes alone: it does not link to the
neighbours whose functions its samples contradict (``join_start_`` says
``"zero"``).  Zero start with the links kept lifted the mean only to 0.722
(seeds 1, 4, 7: 0.46 / 0.13 / 0.64, the consensus term pulling it back);
without them 0.929 (``benchmarks/unlike36_opposite.py``).  It is local
(it evaluated the start itself), sends nothing, and a newcomer the test
does not flag starts exactly as before.

A regressor's newcomer (unlike38) is tested the same way, its start
against the mean of its own other samples
(:func:`skfed._join_unlike.worse_than_own_mean`): with unlike36's
reversed-response case the join's R^2 goes from -0.25 to 0.99 (seeds 0-2;
refits 0.89).
"""

import numpy as np

from .._join_unlike import class_codes, worse_than_chance, worse_than_own_mean


def zero_unlike_starts(start, values, y, n_features, dtype, neighbours, kinds,
                       regression=False):
    """Replace (in place) the contradicted newcomers' starts by zero.

    Parameters
    ----------
    start : list of tuple
        Per newcomer ``(points, weights, gram_inv, err)`` of its start.
    values : list of tuple
        Per newcomer ``(rows, neighbour_sum, start_values)``, its start's
        values ``(n_k, n_out)`` at its samples ``rows``; the flagged ones'
        start values are replaced by zeros.
    y : ndarray of shape (n_samples,)
        The newcomers' encoded targets: ``+-1`` with two classes, the class
        index with more (``_encode_targets``), the scaled target of a
        regressor.
    n_features : int
    dtype : numpy dtype
        The points' dtype.
    neighbours : list of ndarray
        Per newcomer the fitted nodes it links to; a flagged one's become
        empty (it streams alone).
    kinds : ndarray of object
        ``join_start_``: a flagged newcomer's becomes ``"zero"``.
    regression : bool, default=False
        A regressor's newcomers (``y`` its encoded targets): the start is
        tested against their own mean
        (:func:`skfed._join_unlike.worse_than_own_mean`).

    Returns
    -------
    ndarray of shape (n_new,) of bool
        The newcomers flagged.
    """
    preds, trues = [], []
    for rows, _, start_values in values:
        F = np.asarray(start_values, dtype=np.float64).reshape(len(rows), -1).T
        Y = np.asarray(y[rows], dtype=np.float64).reshape(len(rows), -1).T
        if regression:
            pred, true = F[0], Y[0]
        elif F.shape[0] > 1:  # (more classes: y holds class indices, F one row each)
            pred, true = np.argmax(F, axis=0), Y[0].astype(np.intp)
        else:
            pred, true = class_codes(F, Y)
        preds.append(pred)
        trues.append(true)
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in trues])])
    test = worse_than_own_mean if regression else worse_than_chance
    empty = np.zeros(0, np.float64 if regression else np.intp)
    flagged = test(np.concatenate(preds + [empty]), np.concatenate(trues + [empty]), offsets)
    for k in np.flatnonzero(flagged):
        n_out = start[k][1].shape[1]
        start[k] = (np.zeros((0, n_features), dtype=dtype), np.zeros((0, n_out)),
                    np.zeros((0, 0)), 0.0)
        rows, neighbour_sum, start_values = values[k]
        values[k] = (rows, np.zeros_like(neighbour_sum), np.zeros_like(start_values))
        neighbours[k] = neighbours[k][:0]
        kinds[k] = "zero"
    return flagged
