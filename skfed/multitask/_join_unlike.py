"""A MOCHA newcomer whose labels contradict the shared model (shared mode).

In the shared mode a newcomer solves ``w_0 + v_n`` with the personal weight
``mu = lambda m / (1 - b)`` of the fit, ``b`` the share the fit learned
from its nodes alone.  Nodes that are alike learn ``b`` near 1 (0.98-0.99
for three nodes of one task), so ``mu`` is 50-150 times ``lambda m`` and
``v_n`` can hardly move: a newcomer of 100 samples whose labels oppose the
fitted nodes' keeps their model and misclassifies 90-100 % of its own
samples, where a refit, which learns ``b`` with it, follows it (0.78-0.91
on its fresh samples at 20 samples).  The newcomer cannot relearn ``b``
(that is the fitted nodes' data), but it sees the contradiction: its joined
model does worse than chance on its own samples
(:func:`skfed._join_unlike.worse_than_chance`).  Such a newcomer then
chooses how much more to trust its own samples, ``c_n`` times
:data:`ESCAPE_SCALES`, by cross-validation on its samples (the folds of
the regressors' choice of scale, :func:`skfed.multitask._join._held_out_scales`,
scored by misclassifications; the largest scale of the fewest errors:
the centre is already contradicted),
and solves at that scale.  It is local and sends nothing; a newcomer the
test does not flag is solved exactly as before (bit-identical).

A regressor's newcomer (unlike38) is tested before its own solve: whether
the prior's centre ``M`` predicts its samples significantly worse than
their own mean (:func:`skfed._join_unlike.worse_than_own_mean`).  The solved
model is no test there: with a reversed response (unlike36's three nodes of
``y = x_0``, a newcomer of 20 samples of ``y = -x_0``) it is pulled partway
to the newcomer's samples, beats their mean (R^2 0.24-0.74 on them) and
scores 0.06-0.65 on its task, where the centre is worse than the mean on
nearly every sample.  A flagged one chooses its scale as a classifier's
does, scored by held-out squared error (R^2 0.99 on its task at seeds
0-2; refits 0.99).
"""

import numpy as np

from .._join_unlike import class_codes, worse_than_chance, worse_than_own_mean
from ._join_cv import held_out_losses

# The scales of c_n a contradicted newcomer chooses from: 4 to 4^8 (b = 0.99
# asks for about 100 to undo).
ESCAPE_SCALES = tuple(4.0 ** np.arange(1, 9))
# Folds of the choice (leave-one-out up to this many samples) and each
# fold's solve: passes and relative gap.
_FOLDS = 5
_PASSES = 50
_GAP_TOL = 1e-6


def contradicted(nodes, keeps_centre, M, regression=False):
    """Per newcomer of the solved ``nodes`` (``_JoinNodes``), whether its
    model (``M``'s for those that keep the centre) misclassifies its own
    samples significantly more than chance.  A regressor's: whether its
    prior's centre ``M`` predicts them significantly worse than their own
    mean (:func:`skfed._join_unlike.worse_than_own_mean`; the centre, not
    the solved model: a solved model pulled halfway to the newcomer's
    reversed response beats its mean and still scores R^2 0.06-0.65 on its
    task, see the module)."""
    node_of = np.repeat(np.arange(nodes.m), nodes.layout.counts)
    if regression:
        F = np.einsum("id,pid->pi", nodes.Z, M[:, node_of])
        return worse_than_own_mean(F[0], nodes.Y[0], nodes.layout.offsets)
    W = nodes.node_models(None, None, None)  # (P, n_new, d)
    W[:, keeps_centre] = M[:, keeps_centre]
    F = np.einsum("id,pid->pi", nodes.Z, W[:, node_of])
    pred, true = class_codes(F, nodes.Y)
    return worse_than_chance(pred, true, nodes.layout.offsets)


def _held_out_losses(F, Y, regression):
    """Per held-out sample its misclassification (a regressor's: squared error)."""
    if regression:
        return np.sum((F - Y) ** 2, axis=0)
    pred, true = class_codes(F, Y)
    return pred != true


def escape_scales(make_nodes, sw, layout, M, c, lam, loss, steps, flagged, regression=False):
    """The scale of ``c_n`` each flagged newcomer solves at (1 for the others).

    Fold f leaves out every flagged newcomer's samples ``f, f + F, ...``
    (``F = min(n_k, _FOLDS)``); for each scale of :data:`ESCAPE_SCALES` the
    newcomers solve on the rest and count their left-out misclassifications
    (weighted; a regressor's newcomers their squared errors); the largest
    scale of the fewest wins.
    """
    scales = np.asarray(ESCAPE_SCALES)
    counts, offsets = layout.counts, layout.offsets
    out = np.ones(layout.n_nodes)
    held = np.flatnonzero(flagged & (counts >= 2))
    if not held.size:
        return out
    n_folds = min(int(counts[held].max()), _FOLDS)
    folds = []
    for fold in range(n_folds):
        rows, node_of = [], []
        for k in held:
            r = offsets[k] + np.arange(fold, counts[k], min(int(counts[k]), _FOLDS))
            rows.append(r)
            node_of.append(np.full(len(r), k))
        rows = np.concatenate(rows).astype(np.intp)
        if rows.size:
            folds.append((rows, np.concatenate(node_of).astype(np.intp)))
    errors = held_out_losses(
        make_nodes, sw, layout.n_nodes, M, c, lam, loss, steps, scales, folds,
        lambda F, Y: _held_out_losses(F, Y, regression), _PASSES, _GAP_TOL)
    # (ties: the largest scale; the prior's centre is already contradicted)
    last = len(scales) - 1 - np.argmin(errors[::-1, held], axis=0)
    out[held] = scales[last]
    return out


def rescued(nodes, make_nodes, sw, layout, M, c, lam, mu, loss, steps, regression=False):
    """Re-solve the newcomers whose joined models contradict their samples.

    ``nodes`` are solved at ``M`` and ``c`` (``c = 0``: the newcomer keeps
    ``M``; its unscaled variance is ``lam / mu``).  Returns ``(c, converged)``:
    ``c`` with the flagged newcomers' variance times their chosen scale, whose
    duals (and models) in ``nodes`` are replaced by a solve at it from zero
    duals; the others' are untouched.  ``regression``: a regressor's test
    and held-out squared errors.
    """
    flagged = contradicted(nodes, c == 0, M, regression)
    if not flagged.any():
        return c, True
    base = np.where(c > 0, c, lam / mu)
    scales = escape_scales(make_nodes, sw, layout, M, base, lam, loss, steps, flagged,
                           regression)
    c = np.where(flagged, base * scales, c)
    fresh = make_nodes(sw)
    fresh.set_prior(M, lam / np.where(c > 0, c, lam / mu))
    converged = fresh.solve_all(loss, steps)
    nodes.V[:, flagged] = fresh.V[:, flagged]
    nodes.mu = np.where(flagged, fresh.mu, nodes.mu)
    for k in np.flatnonzero(flagged):
        sl = layout.node_slice(k)
        nodes.g[:, sl] = fresh.g[:, sl]
    return c, converged
