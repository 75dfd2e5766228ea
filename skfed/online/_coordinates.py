"""The network function of a linear or affine kernel, held exactly.

With ``k(z, x) = x . z`` (``kernel="linear"``) or ``gamma x . z + c``
(``"affine"``, ``c = AFFINE_COEF0``) every function of the kernel is
``f(x) = w' x + b`` whatever its points: ``w = D' W`` (``gamma D' W``) and
``b = c sum_m W_m`` (0 for the linear kernel).  So the mean of the nodes'
functions needs no compression, and a network solve need not keep the
mean's points: :mod:`._network_function` holds the mean, for an affine or
linear kernel with at most ``COORDINATE_LIMIT - 1`` features, in one of
two exact forms.

* **Compact** (what travels up and down the tree and what
  ``network_dictionary_`` holds): ``n_out`` points ``w_k / gamma`` with the
  identity as their weights, and for the affine kernel the point 0 with
  weights ``(b - c) / c``: ``n_out (+ 1)`` points instead of up to
  ``max_dictionary_size`` of the nodes' samples (a KOMP-compressed mean in
  ``d`` features is confined to the span of those samples: at 20 nodes of
  30 samples in 500 features, 100 points of 600); no point when its norm
  is at most ``epsilon``, KOMP's budget, as KOMP leaves such a mean.
* **Coordinates** (the network solve's): the points ``e_1 .. e_d`` (and 0
  for the affine kernel), public, so that a solve's weights are ``w /
  gamma`` and ``b / c - sum_j w_j / gamma`` and its penalty ``tr(A' K
  A)`` is the function's norm ``||w||^2 / gamma + b^2 / c``: the solve is
  over every affine function, not over the span of the mean's points.

The limit bounds the coordinate points' Gram matrix (``(d + 1)^2``
float64, 8 MB at the limit) and the solve's messages (``d + 1`` weights an
output).
"""

import numpy as np

from ._validation import AFFINE_COEF0

__all__ = ["COORDINATE_LIMIT"]

# A linear or affine kernel's network function is held exactly (compact, its
# solve in coordinates) when n_features + 1 is at most this.
COORDINATE_LIMIT = 1024


def uses_coordinates(kernel, n_features):
    """Whether the network function of ``kernel`` is held exactly."""
    return kernel in ("linear", "affine") and n_features + 1 <= COORDINATE_LIMIT


def _scale(kernel, gamma):
    return float(gamma) if kernel == "affine" else 1.0


def linear_parts(D, W, kernel, gamma):
    """``(w, b)`` of ``sum_m W[m] k(D[m], .)``: (d, n_out) and (n_out,)."""
    D, W = np.asarray(D, dtype=np.float64), np.asarray(W, dtype=np.float64)
    w = _scale(kernel, gamma) * (D.T @ W)
    b = AFFINE_COEF0 * W.sum(axis=0) if kernel == "affine" else np.zeros(W.shape[1])
    return w, b


def compact(w, b, kernel, gamma):
    """The compact form ``(points, weights)`` of ``w' x + b``."""
    n_out = w.shape[1]
    D = (w / _scale(kernel, gamma)).T
    W = np.eye(n_out)
    if kernel == "affine":
        D = np.vstack([D, np.zeros((1, w.shape[0]))])
        W = np.vstack([W, ((b - AFFINE_COEF0) / AFFINE_COEF0)[None, :]])
    return np.ascontiguousarray(D), W


def norm(w, b, kernel, gamma):
    """The RKHS norm of ``w' x + b`` (over all outputs):
    ``sqrt(||w||^2 / gamma + b^2 / c)`` (``||w||`` for the linear kernel)."""
    if kernel == "affine":
        return float(np.sqrt(np.sum(w * w) / gamma + np.sum(b * b) / AFFINE_COEF0))
    return float(np.sqrt(np.sum(w * w)))


def mean_compact(parts, counts, kernel, gamma, epsilon=0.0):
    """The compact form of ``sum_p counts[p] f_p / sum_p counts[p]``,
    ``parts`` the ``(points, weights)`` of the functions in width ``gamma``;
    no point when its norm is at most ``epsilon`` (KOMP's budget, within
    which any compressed mean may differ from the exact one: a mean of
    near-zero functions is then zero, as KOMP leaves it, instead of a sign
    of noise)."""
    total = float(np.sum(counts))
    w, b = 0.0, 0.0
    for (D, W), c in zip(parts, counts):
        wp, bp = linear_parts(D, W, kernel, gamma)
        w, b = w + (c / total) * wp, b + (c / total) * bp
    D, W = compact(w, b, kernel, gamma)
    if norm(w, b, kernel, gamma) <= epsilon:
        return D[:0], W[:0]
    return D, W


def coordinate_points(kernel, n_features):
    """The solve's public points: ``e_1 .. e_d`` (and 0 if affine)."""
    D = np.eye(n_features)
    if kernel == "affine":
        D = np.vstack([D, np.zeros((1, n_features))])
    return D


def to_coordinates(D, W, kernel, gamma):
    """The weights on :func:`coordinate_points` of the same function."""
    w, b = linear_parts(D, W, kernel, gamma)
    A = w / _scale(kernel, gamma)
    if kernel == "affine":
        A = np.vstack([A, (b / AFFINE_COEF0 - A.sum(axis=0))[None, :]])
    return A


def from_coordinates(A, kernel, gamma):
    """The compact form of the function of weights ``A`` on the points."""
    affine = kernel == "affine"
    A = np.asarray(A, dtype=np.float64)
    w = _scale(kernel, gamma) * A[:A.shape[0] - affine]
    b = AFFINE_COEF0 * A.sum(axis=0) if affine else np.zeros(A.shape[1])
    return compact(w, b, kernel, gamma)
