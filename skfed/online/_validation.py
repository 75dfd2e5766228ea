"""Validation of the online learner's inputs and the tables the solver reads.

The losses, step schedules and rogue behaviours by name (for
:mod:`skfed._core._online_fast`), the smoothness of every loss (for the
step bound) and the kernel coefficient rules (``gamma``).
"""

import numbers

import numpy as np
from scipy.spatial.distance import pdist

from .._base import _kinds_text, _label_kinds, check_node_weights
from .._core import _online_fast

_LOSSES = {
    "squared_error": _online_fast.SquaredLoss,
    "huber": _online_fast.HuberLoss,
    "epsilon_insensitive": _online_fast.EpsilonInsensitiveLoss,
    "hinge": _online_fast.HingeLoss,
    "log_loss": _online_fast.LogisticLoss,
    "multiclass_hinge": _online_fast.MulticlassHingeLoss,
    "multinomial_log_loss": _online_fast.MultinomialLogLoss,
}
_SCHEDULES = {
    "constant": _online_fast.SCHEDULE_CONSTANT,
    "diminishing": _online_fast.SCHEDULE_DIMINISHING,
}
# Smoothness of every loss in its function values (the largest eigenvalue
# of its Hessian; 0 for the piecewise-linear hinges, whose derivative is
# bounded instead).
_SMOOTHNESS = {
    "squared_error": 1.0,
    "huber": 1.0,
    "epsilon_insensitive": 0.0,
    "hinge": 0.0,
    "log_loss": 0.25,
    "multiclass_hinge": 0.0,
    "multinomial_log_loss": 0.5,
}
_ROGUE = {
    "complement": _online_fast.ROGUE_COMPLEMENT,
    "random": _online_fast.ROGUE_RANDOM,
}
# kernel="auto" is the laplacian kernel from this many features on, the rbf
# kernel below (issue 15): per-node SVC() at gamma="median" scores higher with
# the laplacian kernel on every real data set measured (HAR, 561 features;
# digits, 64; breast cancer, 30; wine, 13) and lower on the 2-feature Gaussian
# mixtures, whose classes are isotropic Gaussians (see the user guide).
_AUTO_LAPLACIAN_FEATURES = 10
# The affine kernel gamma x . x' + AFFINE_COEF0: the linear kernel with an
# intercept, whose weight in the kernel is that of a median |gamma x . x'|.
AFFINE_COEF0 = 1.0
# gamma="median" reads at most this many (evenly spaced) samples of a node.
_MEDIAN_ROWS = 1000


def _median_argument(X, kernel):
    """Median over the pairs of distinct rows of X of the kernel's argument at
    gamma = 1: ``||x - x'||^2`` (rbf), ``||x - x'||_1`` (laplacian), ``|x . x'|``
    (poly, sigmoid, linear); 0 when there is no pair.  At most
    ``_MEDIAN_ROWS`` evenly spaced rows are used, so the cost per node is
    bounded."""
    if X.shape[0] > _MEDIAN_ROWS:
        X = X[np.linspace(0, X.shape[0] - 1, _MEDIAN_ROWS).astype(np.intp)]
    if X.shape[0] < 2:
        return 0.0
    X = np.asarray(X, dtype=np.float64)
    if kernel == "rbf":
        values = pdist(X, "sqeuclidean")
    elif kernel == "laplacian":
        values = pdist(X, "cityblock")
    else:
        values = np.abs((X @ X.T)[np.triu_indices(X.shape[0], 1)])
    return float(np.median(values))


def _check_gamma(gamma, nodes, X, codes, kernel="rbf"):
    """Per-node kernel coefficients from "median", "scale", a scalar, an array
    or a dict.

    ``"median"`` is the median heuristic applied by every node to its own
    training data: one over the median, over pairs of its samples, of the
    kernel's argument (``||x - x'||^2`` for rbf; see ``_median_argument``),
    falling back to ``"scale"`` where that median is 0.  ``"scale"`` is
    ``SVC``'s rule: ``1 / (n_features X_i.var())`` (1 where that variance is
    0).  Either way no node needs the others' statistics.
    """
    n_nodes = len(nodes)
    n_features = X.shape[1]
    if isinstance(gamma, str) and gamma == "median":
        values = _check_gamma("scale", nodes, X, codes)
        order = np.argsort(codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_nodes))])
        for node in range(n_nodes):
            median = _median_argument(X[order[bounds[node] : bounds[node + 1]]], kernel)
            if median > 0:
                values[node] = 1.0 / median
    elif isinstance(gamma, str) and gamma == "scale":
        size = np.maximum(np.bincount(codes, minlength=n_nodes) * n_features, 1.0)
        sums = np.bincount(codes, weights=X.sum(axis=1, dtype=np.float64), minlength=n_nodes)
        deviation = X - (sums / size)[codes, None]
        var = np.bincount(
            codes, weights=np.einsum("ij,ij->i", deviation, deviation, dtype=np.float64),
            minlength=n_nodes,
        ) / size
        values = 1.0 / (n_features * np.where(var > 0, var, 1.0 / n_features))
    elif gamma is None or isinstance(gamma, numbers.Real) and not isinstance(gamma, bool):
        value = 1.0 / n_features if gamma is None else float(gamma)
        values = np.full(n_nodes, value)
    elif isinstance(gamma, dict):
        labels = nodes.tolist()
        missing = [label for label in labels if label not in gamma]
        if missing:
            raise ValueError(
                f"gamma is a dict but has no value for node(s) {missing[:5]}; give "
                "one value per node label."
            )
        extra = [key for key in gamma if key not in set(labels)]
        if extra:
            raise ValueError(f"gamma names node(s) {extra[:5]} that were not seen in fit.")
        values = np.array([gamma[label] for label in labels], dtype=np.float64)
    else:
        values = np.asarray(gamma, dtype=np.float64)
        if values.ndim != 1 or values.shape[0] != n_nodes:
            raise ValueError(
                f"gamma must be a float, a dict keyed by node label or an array of "
                f"one value per node ({n_nodes} nodes, in the order of nodes_), got "
                f"shape {values.shape}."
            )
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"gamma must be finite and > 0 for every node, got {values}.")
    return values


class NodeIdKindError(ValueError, TypeError):
    """Node ids of another kind than at fit (a ``ValueError`` naming
    ``groups``; also a ``TypeError``, what a mix of kinds raised before)."""


def _check_groups_kind(estimator, groups):
    """Refuse ``groups`` holding node ids of another kind than ``nodes_``
    (numbers of any dtype are one kind, strings another): such an id can
    never match a fitted node, so it would silently make a new node."""
    fitted, given = _label_kinds(estimator.nodes_), _label_kinds(np.asarray(groups))
    if not given <= fitted:
        raise NodeIdKindError(
            f"groups holds node ids of kind {_kinds_text(given)} but this "
            f"{type(estimator).__name__} was fitted with node ids of kind "
            f"{_kinds_text(fitted)} (nodes_ has dtype {estimator.nodes_.dtype}); "
            "use node ids of one type, as in fit (e.g. convert ids read back as "
            "strings to integers)."
        )


def drop_absent_rows(est, X, y, sample_weight, codes, new_labels):
    """The rows of positive weight, after checking that every new node keeps one.

    Zero-weight rows are absent rows, as in ``fit``: they set no width,
    take no step and are never sent.  ``codes`` holds ``-1 - k`` for a row
    of ``new_labels[k]`` (and a fitted node's index otherwise); a new node
    left without a row is refused here, before anything joins (the
    messages of ``add_nodes`` and of ``partial_fit`` with new node ids).
    """
    new = codes < 0
    check_node_weights(est, -1 - codes[new], sample_weight[new], labels=new_labels)
    keep = sample_weight > 0
    if keep.all():
        return X, y, sample_weight, codes
    return X[keep], np.asarray(y)[keep], sample_weight[keep], codes[keep]
