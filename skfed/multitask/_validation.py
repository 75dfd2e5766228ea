"""Within-node validation of the shared-component model (``omega="auto"``).

The pieces of :mod:`skfed.multitask._shared`'s share and personal
selections that every node computes on its own: the folds, the held-out
sums a node reports, the correction of the shared model for a node's
held-out samples, the float32 rounding of the round reports, and the
convergence warning's note on badly scaled features.
"""

import numpy as np

from .._core._multitask_fast import node_margins, problem_gap_terms

# Folds of the within-node validation (the share and personal selections).
VALIDATION_FOLDS = 5


def round_up_float32(x):
    """``x`` rounded to float32 toward ``+inf`` (as float64).

    A node's report (loss and conjugate sums, ``||u_t||^2``, the norm the
    server's copy misses) enters the primal value with a plus sign and the
    dual bound with a minus sign, so rounded up the primal stays an upper
    bound and the dual a lower bound: the certificate stays valid in
    float32 (relative rounding at most ``2^-23`` a value).
    """
    x = np.asarray(x, dtype=np.float64)
    y = x.astype(np.float32)
    low = y.astype(np.float64) < x
    y[low] = np.nextafter(y[low], np.float32(np.inf))
    return y.astype(np.float64)



def validation_folds(layout, seed, n_folds):
    """Every sample's fold (node order), -1 for a sample never held out.

    Each node deals its own samples, in an order drawn from one seed, to the
    folds in turn (a node of fewer than 2 samples holds none out), so the
    split costs no message.
    """
    rng = np.random.RandomState(seed)
    fold = np.full(int(layout.offsets[-1]), -1, dtype=np.intp)
    for t in range(layout.n_nodes):
        lo, hi = int(layout.offsets[t]), int(layout.offsets[t + 1])
        n_t = hi - lo
        if n_t >= 2:
            fold[lo + rng.permutation(n_t)] = np.arange(n_t) % max(n_folds, 2)
    return fold


def validation_sums(nodes, sw_val, loss):
    """Every node's weighted error and loss sums on its held-out samples at its
    model ``w0 + u_t / mu`` (what each node reports: two floats).

    The error is the misclassification (the largest margin's class; with
    one problem, the margin's sign) or, for the squared loss, the squared
    error."""
    W = np.ascontiguousarray(nodes.node_models(None, None, None))
    f = np.empty((nodes.n_problems, nodes.n))
    offsets = nodes.layout.offsets
    node_margins(nodes.Z_pass, W, offsets, f)
    sums = np.zeros((nodes.m, 3))
    zero = np.zeros((nodes.n_problems, nodes.n))
    problem_gap_terms(f, nodes.Y, sw_val, zero, offsets, loss, sums)
    Y = nodes.Y
    if type(loss).__name__ == "Squared":
        err = ((f - Y) ** 2).sum(axis=0)
    elif Y.shape[0] == 1:
        err = (Y[0] * f[0] <= 0).astype(np.float64)
    else:
        err = (np.argmax(f, axis=0) != np.argmax(Y, axis=0)).astype(np.float64)
    errors = np.add.reduceat(sw_val * err, offsets[:-1]) if nodes.n else np.zeros(nodes.m)
    return errors, sums[:, 0]


def held_out_shift(nodes, g, sw_held, totals, share, lam):
    """Every node's estimate of the part of ``w0`` its held-out samples put there.

    The learned-share fit's ``w0`` minimizes ``F(w0) = lambda m ||w0||^2 /
    (2 b) + sum_t M_t(w0)`` (``M_t`` node t's Moreau envelope, gradient
    ``-u_t``, ``u_t = sum_i alpha_ti z_ti / n_t``, ``alpha = g *
    sample_weight``).  Taking node t's held-out samples out of ``M_t`` removes
    ``r_t = sum_{i held} alpha_ti z_ti / n_t`` from the gradient, and ``w0``
    moves by about ``H^-1 r_t``, ``H`` the Hessian of ``F``: ``lambda m / b +
    sum_t nabla^2 M_t``, estimated by ``lambda m / b + (1 + (m - 1) min(1,
    n / (m d'))) mu``: each envelope's curvature is at most ``mu = lambda m /
    (1 - b)``, and only in the span of its node's rows (about ``n_s / d'`` of
    a direction; the node's own envelope covers its held-out rows).  The
    shift is ``r_t`` over that estimate: a node validating at ``w0`` minus it
    scores its held-out samples with a shared model that has (nearly) not
    seen them (tested against refits without the rows: within a factor 4
    of the true move; closer than no correction with at least as many
    features as rows a node, an overshoot with fewer).  At ``w0``
    itself the validation favours sharing.  Node-local: every node knows its
    dual variables and rows, and ``b``, ``lambda`` and ``m`` (no message).

    Returns
    -------
    shift : ndarray of shape (n_problems, n_nodes, d')
    """
    layout = nodes.layout
    m = layout.n_nodes
    alpha = g * sw_held
    shift = np.zeros((nodes.n_problems, m, nodes.d))
    # Each envelope's curvature is mu at most, and only in the span of its
    # node's rows: about min(1, n_s / d') of a direction (n_s the node's
    # rows, taken as the mean n / m, which every node knows through lambda).
    # The node's own envelope covers its held-out rows fully.
    n_mean = float(layout.offsets[-1]) / m
    others = (m - 1) * min(1.0, n_mean / nodes.d)
    curvature = lam * m / share + (1.0 + others) * lam * m / (1.0 - share)
    for t in range(m):
        sl = layout.node_slice(t)
        if totals[t] > 0 and np.any(sw_held[sl]):
            shift[:, t] = (alpha[:, sl] @ nodes.Z[sl]) / (totals[t] * curvature)
    return shift



# A feature whose scale is this many times the median feature's is named in
# the convergence warning (measured, 20 nodes x 30 rows, 5 features, one
# scaled: at 100 times the classifier did not converge in 300 rounds, at 1
# in 8; at 1e150 it ran all 2,000).
_SCALE_RATIO = 100.0


def feature_scale_note(X, layout, est=None):
    """``"feature 2's scale is 1e+150 times the median feature's ...; "`` or ``""``.

    The scale of a feature is its largest root mean square over the nodes
    (each node computes its own; the note is a diagnostic of the simulated
    fit, no message).  The dual solvers' steps are set by the largest
    scale, so a feature far above the others stalls them; so do features
    all far above the intercept column (``intercept_scaling``, linear
    kernel: pass the estimator ``est``), e.g. every feature in bytes.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        return ""
    with np.errstate(over="ignore", invalid="ignore"):
        sq = np.square(X.astype(np.float64))
        per_node = np.add.reduceat(sq, layout.offsets[:-1], axis=0) / \
            np.maximum(np.diff(layout.offsets), 1)[:, None]
        rms = np.sqrt(per_node.max(axis=0))
    positive = rms[np.isfinite(rms) & (rms > 0)]
    if positive.size == 0:
        return ""
    fix = "standardize the features (e.g. StandardScaler) to converge, or "
    median = float(np.median(positive))
    with np.errstate(over="ignore", invalid="ignore"):
        ratio = rms / median
    flagged = np.flatnonzero(~(ratio <= _SCALE_RATIO) & (rms > 0))
    if flagged.size and positive.size >= 2:
        worst = int(flagged[np.argmax(np.where(np.isfinite(ratio[flagged]), ratio[flagged],
                                               np.inf))])
        others = f" (and {flagged.size - 1} more)" if flagged.size > 1 else ""
        return (f"feature {worst}'s scale is {ratio[worst]:.3g} times the median feature's"
                f"{others}: {fix}")
    linear = est is not None and est.kernel == "linear" and est.approximation_ is None
    bias = float(est.intercept_scaling) if linear and est.fit_intercept else 0.0
    # measured (5 nodes x 50 rows x 4 features, seeds 0-2, omega "shared" and "learn"):
    # every feature x10 converged in 13-39 rounds, x100 to x1e12 in none of 1,000
    if bias > 0 and median > _SCALE_RATIO * bias:
        return (f"the features' median scale {median:.3g} is {median / bias:.3g} times the "
                f"intercept column's (intercept_scaling={est.intercept_scaling}): {fix}")
    return ""
