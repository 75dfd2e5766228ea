"""Held-out losses of a MOCHA join's newcomers at several scales of ``c_n``.

Shared by the regressors' choice of scale
(:func:`skfed.multitask._join._held_out_scales`) and the rescue of a
newcomer its samples contradict
(:func:`skfed.multitask._join_unlike.escape_scales`): each caller says
which samples every fold leaves out, how a left-out sample is scored and
how the scale is picked; this module solves and scores.  Local to the
newcomers: nothing is sent.
"""

import numpy as np


def held_out_losses(make_nodes, sw, n_nodes, M, c, lam, loss, steps, scales, folds, score,
                    passes, gap_tol):
    """``(len(scales), n_nodes)`` weighted held-out losses.

    For every fold ``(rows, node_of)`` (the left-out samples and their
    newcomers) the newcomers solve with those samples' weights set to 0
    (``make_nodes(weights)``), at each scale ``s`` of ``c`` (prior variance
    ``lam / (c s)``), and add ``sw[rows] * score(F, Y)`` per left-out sample
    (``F`` its margins, ``Y`` its targets, both ``(P, n_rows)``) to its
    newcomer's entry.
    """
    losses = np.zeros((len(scales), n_nodes))
    for rows, node_of in folds:
        weights = sw.copy()
        weights[rows] = 0.0
        nodes = make_nodes(weights)
        for s, scale in enumerate(scales):
            nodes.set_prior(M, lam / (c * scale))
            nodes.solve_all(loss, steps, passes, gap_tol)
            W = nodes.node_models(None, None, None)  # (P, n_new, d)
            F = np.einsum("id,pid->pi", nodes.Z[rows], W[:, node_of])
            np.add.at(losses[s], node_of, sw[rows] * score(F, nodes.Y[:, rows]))
    return losses
