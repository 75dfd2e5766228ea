"""The personal selection of the shared-component model: on many small nodes,
the personal parts' weight by within-node validation at the fitted shared model.

Run by :func:`skfed.multitask._shared.fit_shared` (``omega="auto"``) when the
share selection's candidate fits do not fit their byte budget; see
:func:`select_personal`.
"""

import numpy as np

from ._protocol import _steps
from ._shared_messages import error_report_bytes
from ._validation import (
    VALIDATION_FOLDS,
    held_out_shift,
    validation_folds,
    validation_sums,
)

# The personal selection (when the share selection's fits do not fit its
# budget): the personal parts' weight mu as multiples of the learned one,
# 1 / (1 - b) times lambda m (the last: the shared model alone), and the
# local solver's calls per candidate on nodes without an exact solver.
PERSONAL_GRID = (1.0, 4.0, 16.0, 64.0, 256.0, 1e6)
_PERSONAL_PASSES = 1
# Folds are run until this many samples were held out (or all folds): the
# validation of 1,000 nodes x 30 samples needs one fold (6,000 samples),
# that of 300 x 20 two; each fold costs every candidate's local solves.
_PERSONAL_VALIDATION_SAMPLES = 2000


# Each node takes its held-out samples' part off w0 in the personal selection
# (held_out_shift, always): measured on Dada's moons (benchmarks/new_nodes.py
# --families mocha --datasets moons), without it the selection kept nearly
# only the shared model (refit 52.7 / 55.8 / 58.4 at k = 5 / 10 / 20 against
# Local 55.9 / 59.1 / 62.6), with it 56.4 / 60.4 / 62.6.  Dropping it where
# the nodes hold more samples than features d' (where it overshoots,
# tests/test_multitask_small_node_fixes.py) was measured with
# benchmarks/multitask_personal_rule.py and is within noise: seeds 0-12,
# ordinal +0.14 +- 0.20 points, 10-node classifier -0.31 +- 0.49; seeds
# 13-20, 5-node regressor +2.5 but 20-node classifier -0.8, small 4-class
# -0.2 (means of 8 seeds).


def _choose(mean_error, mean_loss):
    """The candidate of the lowest pooled validation error, ties to the lower
    loss (then to the first, the learned weight).

    The former rule kept the learned weight (the least shrinkage of the
    grid) unless another beat it by one standard error over the nodes.
    Replayed with every candidate refitted and scored
    (``benchmarks/multitask_personal_rule.py``, 14 small-node families), the
    plain minimum is at or above it on every family's mean, and above it
    where the validation is noisy: seeds 0-12, ordinal 3-class -0.79 ->
    -0.23 points to the better baseline, 5-, 10- and 20-node regressors
    +1.0, +0.6 and +2.2 R^2 points; held-out seeds 13-20, 5-, 10- and
    20-node regressors +2.6, +2.4 and +1.2, 10-node classifier +1.6.
    Rotated moons (clusters of opposite tasks; ``benchmarks/new_nodes.py
    --families mocha --datasets moons``) lost 0.4-2.2 points on 5 of its 18
    (seed, k) join and refit scores (means: join 56.1 -> 55.7 at k = 5 and
    61.4 -> 60.7 at k = 20, refit 60.4 -> 59.6 at k = 10).
    """
    return int(np.lexsort((mean_loss, mean_error))[0])


def _solve_personal(nodes, w0, mu, layout, est, loss, parallel, passes):
    """Every node's own part at the shared model ``w0`` and personal weight
    ``mu``: its local problem, from its current dual variables (node-local
    work, no message)."""
    nodes.w0 = w0
    nodes.mu = mu
    nodes.loss_obj = loss
    # u_t of the node's current dual variables at its current weights
    alpha = nodes.g * nodes.sw
    for t in range(layout.n_nodes):
        sl = layout.node_slice(t)
        nodes.V[:, t] = alpha[:, sl] @ nodes.Z[sl] / max(nodes.totals[t], 1e-300)
    active = np.flatnonzero(nodes.totals > 0).astype(np.intp)
    work = np.ones(layout.n_nodes)
    steps = _steps(work, layout.counts, est.local_epochs)
    n_passes = 1 if nodes.exact[active].all() else passes
    for _ in range(n_passes):
        with np.errstate(divide="ignore"):
            scaling = nodes.local_scaling()
        results = nodes.solve(active, steps, scaling, None, None, 0.0, loss, parallel, 1,
                              full=work >= 1.0)
        nodes.apply(active, results, parallel)


def select_personal(protocol, layout, sw, make_nodes, loss, est, parallel, seed, point, lam):
    """The personal parts' weight by within-node validation at the fitted
    shared model: the selection of many small nodes.

    Run when the share selection is skipped (its candidate fits, rounds of
    model vectors each, would cost more than its byte budget: small nodes,
    whose raw upload is a few rows).  The shared model ``w0`` of the
    learned-share fit stays; every node, on its own, fits its personal part
    ``v`` (``min_v L_t(w0 + v) + (mu / 2) ||v||^2``) on all but one of
    :data:`VALIDATION_FOLDS` folds of its samples (the folds in turn until
    :data:`_PERSONAL_VALIDATION_SAMPLES` samples were held out) for every
    candidate ``mu`` of :data:`PERSONAL_GRID` (multiples of the learned
    weight ``mu`` as every node holds it; the last, the shared model alone)
    and sums its validation error and loss over the held-out folds, and
    sends them for every candidate in float32 (they only rank the
    candidates; with the squared loss one value, the error being twice the
    loss).  The chosen weight has the
    lowest validation error pooled over the held-out samples (ties: loss;
    :func:`_choose`).  Each node validates at ``w0`` less its held-out
    samples' part (:func:`~skfed.multitask._validation.held_out_shift`).
    The caller then refits the model at the chosen
    weight to ``tol`` (the shared part's penalty stays the learned
    share's); the refit's first message brings every node the chosen
    candidate's index, from which it forms ``mu``.  ``w0`` was fitted with
    the held-out samples: with many nodes each sample weighs ``1 / n`` in
    it (run from :data:`_PERSONAL_MIN_NODES` nodes).

    Returns
    -------
    share : float
        The share ``b`` of the chosen ``mu = lambda m / (1 - b)``.
    mu : float
        The chosen weight.
    selection : dict
        ``shares``, ``validation_error``, ``validation_loss``, ``n_folds``.
    """
    m = layout.n_nodes
    b = float(point["b"])
    # multiples of the learned weight as every node holds it (point["mu"]):
    # a node forms the selected one from its index
    mus = [float(point["mu"]) * r for r in PERSONAL_GRID]
    shares = np.array([1.0 - lam * m / mu for mu in mus])
    fold = validation_folds(layout, seed, VALIDATION_FOLDS)
    starts = layout.offsets[:-1]
    node_of = np.repeat(np.arange(m), np.diff(layout.offsets))
    errors = np.zeros((len(mus), m))
    losses = np.zeros((len(mus), m))
    weights = np.zeros(m)
    # Per node: the samples its folds run deal out (from its size) and
    # whether every held-out sample weighs 1 (the error is then a count).
    dealt = np.zeros(m, dtype=np.int64)
    unit = np.ones(m, dtype=bool)
    n_folds, held_out = 0, 0
    for f in range(VALIDATION_FOLDS):
        held = fold == f
        if not held.any():
            continue
        if held_out >= _PERSONAL_VALIDATION_SAMPLES:
            break
        dealt += np.bincount(node_of[held], minlength=m)
        lacking = np.add.reduceat(np.where(held, 0.0, sw), starts) <= 0
        held &= ~lacking[node_of]
        sw_train = np.where(held, 0.0, sw)
        sw_val = np.where(held, sw, 0.0)
        unit &= np.bincount(node_of[held & (sw != 1.0)], minlength=m) == 0
        # The node's full weight as the totals: the training folds' problems
        # keep the full problem's penalty against the sum of the losses
        # (the ridge penalty whose best value does not change with the
        # number of rows), not against their mean, which would favour more
        # shrinkage the fewer rows a node has.
        nodes = make_nodes(sw_train, np.add.reduceat(sw, starts))
        nodes.g[...] = point["g"]
        nodes.w0_shift = held_out_shift(nodes, point["g"], np.where(held, sw, 0.0),
                                        np.add.reduceat(sw, starts), b, lam)
        for c, mu in enumerate(mus):
            _solve_personal(nodes, point["w0"], mu, layout, est, loss, parallel,
                            _PERSONAL_PASSES)
            err, lss = validation_sums(nodes, sw_val, loss)
            errors[c] += err
            losses[c] += lss
        weights += np.add.reduceat(sw_val, starts)
        held_out += int(np.count_nonzero(held))
        n_folds += 1
    counter = protocol.counter
    reporters = np.flatnonzero(weights > 0).astype(np.intp)
    # Each node's sums for every candidate (they only rank the candidates):
    # float32, or counts of misclassified samples packed in bits
    # (error_report_bytes).  The chosen weight reaches the nodes as the
    # refit's personal weight.
    counter.gather_to_server(reporters, error_report_bytes(
        len(mus), dealt[reporters], unit[reporters],
        classification=type(loss).__name__ != "Squared"))
    scored = weights > 0
    if scored.any():
        # Pooled over the held-out samples (each counts once: nodes of more
        # samples, which want less shrinkage, count more).
        total = weights[scored].sum()
        mean_error = errors[:, scored].sum(axis=1) / total
        mean_loss = losses[:, scored].sum(axis=1) / total
        i = _choose(mean_error, mean_loss)
    else:
        # No node could hold a sample out (nodes of one sample): nothing
        # was validated, the learned weight (PERSONAL_GRID[0] = 1) stays.
        mean_error = np.full(len(mus), np.nan)
        mean_loss = np.full(len(mus), np.nan)
        i = 0
    selection = dict(shares=shares, validation_error=mean_error,
                     validation_loss=mean_loss, n_folds=n_folds,
                     selected=float(shares[i]), kind="personal")
    return float(shares[i]), mus[i], selection
