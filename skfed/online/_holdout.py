"""Samples a node holds out of its own stream, and the losses that score them.

Two parts of the online learner judge candidates on samples within a
node: ``kernel="auto"`` (:mod:`._selection`: every node holds out every
4th of its samples and scores the candidate kernels fitted on the rest) and
a node that joins after the fit (:mod:`._join`: it judges the fitted nodes'
functions on its first samples and cross-validates its number of passes
over folds of its samples).  Both take their samples by arrival order
within the node (so the choice depends on neither the node labels nor a
seed) and score by the loss the estimator minimizes, weighted by
``sample_weight``, through this module.
"""

import numpy as np

__all__ = ["arrival_rank", "arrival_folds", "loss_arrays", "loss_values",
           "node_mean_losses", "rows_by_node"]


def rows_by_node(codes):
    """``(node, rows)`` for every node among ``codes``, in increasing node
    order, each node's rows in their order: one stable sort, linear in the
    rows, where a scan of every row per node (``codes == node`` in a loop)
    costs nodes x rows."""
    codes = np.asarray(codes)
    if not codes.size:
        return
    order = np.argsort(codes, kind="stable")
    nodes, first = np.unique(codes[order], return_index=True)
    yield from zip(nodes.tolist(), np.split(order, first[1:]))


def arrival_rank(codes, n_nodes):
    """Rank of every sample among its node's samples, in arrival order.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Node index (0 to ``n_nodes - 1``) of every sample.
    n_nodes : int

    Returns
    -------
    ndarray of shape (n_samples,), dtype=intp
        0 for a node's first sample, 1 for its second, ...
    """
    codes = np.asarray(codes, dtype=np.intp)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=n_nodes)
    starts = np.concatenate([[0], np.cumsum(counts)])[:-1]
    rank = np.empty(len(codes), dtype=np.intp)
    rank[order] = np.arange(len(codes)) - np.repeat(starts, counts)
    return rank


def arrival_folds(codes, n_nodes, n_folds):
    """Fold of every sample: its arrival rank within its node modulo ``n_folds``.

    Fold ``n_folds - 1`` of a node holds its ``n_folds``-th, ``2
    n_folds``-th, ... samples; a node of fewer than ``n_folds`` samples has
    no sample in its last folds.
    """
    return arrival_rank(codes, n_nodes) % int(n_folds)


def loss_arrays(name, F, y, threshold=None):
    """Values and derivatives of the loss ``name`` at every row.

    Parameters
    ----------
    name : str
        A loss of ``_validation._LOSSES`` (the solver's losses).
    F : array-like of shape (n_samples, n_outputs) or (n_samples,)
        Function values.
    y : ndarray of shape (n_samples,)
        Encoded targets: -1/+1 (binary), the class index (multiclass) or
        the value (regression).
    threshold : float, default=None
        The threshold of ``"huber"`` (> 0) and ``"epsilon_insensitive"``
        (>= 0) in the units of ``y`` (the fitted ``loss_threshold_``);
        required by those two, ignored by the others.

    Returns
    -------
    value : ndarray of shape (n_samples,)
    derivative : ndarray of shape (n_samples, n_outputs)
        The derivative in the function values (a subgradient at the
        hinges' kinks, as the solver's).
    """
    y = np.asarray(y, dtype=np.float64)
    F = np.asarray(F, dtype=np.float64).reshape(len(y), -1)
    if name == "squared_error":
        r = F[:, 0] - y
        return 0.5 * r * r, r[:, None]
    if name in ("huber", "epsilon_insensitive"):
        if threshold is None:
            raise ValueError(f"loss {name!r} needs its threshold")
        r = F[:, 0] - y
        a = np.abs(r)
        if name == "huber":
            value = np.where(a <= threshold, 0.5 * r * r, threshold * (a - 0.5 * threshold))
            return value, np.clip(r, -threshold, threshold)[:, None]
        grad = np.where(r > threshold, 1.0, np.where(r < -threshold, -1.0, 0.0))
        return np.maximum(a - threshold, 0.0), grad[:, None]
    if name == "hinge":
        z = y * F[:, 0]
        return np.maximum(0.0, 1.0 - z), np.where(z < 1.0, -y, 0.0)[:, None]
    if name == "log_loss":
        z = y * F[:, 0]
        return np.logaddexp(0.0, -z), (-y * np.exp(-np.logaddexp(0.0, z)))[:, None]
    index = y.astype(np.intp)
    rows = np.arange(len(y))
    if name == "multiclass_hinge":
        others = F.copy()
        others[rows, index] = -np.inf
        best = np.argmax(others, axis=1)
        margin = 1.0 + F[rows, best] - F[rows, index]
        grad = np.zeros_like(F)
        hit = margin > 0
        grad[rows[hit], best[hit]] = 1.0
        grad[rows[hit], index[hit]] = -1.0
        return np.maximum(margin, 0.0), grad
    if name == "multinomial_log_loss":
        top = F.max(axis=1, keepdims=True)
        e = np.exp(F - top)
        total = e.sum(axis=1)
        grad = e / total[:, None]
        grad[rows, index] -= 1.0
        return np.log(total) + top[:, 0] - F[rows, index], grad
    raise ValueError(f"unknown loss {name!r}")


def loss_values(name, F, y, threshold=None):
    """Value of the loss ``name`` at every row (see :func:`loss_arrays`)."""
    return loss_arrays(name, F, y, threshold)[0]


def node_mean_losses(values, codes, n_nodes, weights=None):
    """Every node's mean of ``values`` over its rows, weighted by ``weights``.

    Returns an array of shape (n_nodes,), NaN for a node with no row (or
    rows of total weight 0).
    """
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=np.float64)
    totals = np.bincount(codes, weights=w, minlength=n_nodes)
    sums = np.bincount(codes, weights=w * values, minlength=n_nodes)
    out = np.full(n_nodes, np.nan)
    np.divide(sums, totals, out=out, where=totals > 0)
    return out
