"""The location and scale of the targets that a regressor's nodes agree on.

Every node computes the median of its own training targets and their
robust scale, ``1.4826 MAD`` (the median absolute deviation from the
median, scaled to be the standard deviation of Gaussian targets); the
network combines them into the mean of the nodes' medians and the
geometric mean of the positive scales: the sums of the medians and of
``log(scale)`` and the counts of such nodes go up spanning trees of the
topology (four float64 per message) and the two results come back down
(two float64 per message), counted in a round of its own before the first
step.  A geometric mean is exact as a sum over the trees (a median of the
nodes' scales is not) and, like the MAD, it is not moved by a node whose
targets are a different unit or carry a few huge values.

The solver then sees ``(y - target_offset_) / target_scale_``, so its
step sizes, KOMP's error budget ``epsilon`` (an RKHS norm), the robust
loss's threshold ``loss_epsilon`` and the rbf model's lack of an offset
mean the same whatever the unit and the origin of ``y``; predictions are
mapped back.  The scale is 1 when no node has two distinct targets.
"""

import numpy as np

from ..network import payload_bytes
from ._selection import count_tree_round

__all__ = [
    "MAD_TO_STD",
    "ROBUST_LOSSES",
    "agreed_offset",
    "agreed_scale",
    "count_scale_messages",
    "node_centres",
    "node_log_scales",
]

# The losses whose threshold is loss_epsilon times the agreed target scale.
ROBUST_LOSSES = ("huber", "epsilon_insensitive")
# 1 / Phi^{-1}(3/4): the MAD of Gaussian values times this is their deviation.
MAD_TO_STD = 1.482602218505602
# Every log-scale is sent rounded to a multiple of 2^-32 (a relative error
# of at most 1.2e-10 in the scale), so the sums are of integers times 2^-32
# and exact in any order: every split of the nodes over processes (MPI
# ranks) agrees with one process to the last bit.
_LOG_GRID = 2.0 ** 32


def node_log_scales(y, codes, n_nodes):
    """Every node's contribution to the agreed scale of the targets.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Training targets.
    codes : ndarray of shape (n_samples,)
        Node index of every target (only nodes present contribute, so the
        sums of several processes' contributions add up).
    n_nodes : int

    Returns
    -------
    ndarray of shape (2,)
        ``[sum of log(1.4826 MAD_i), number of nodes with MAD_i > 0]`` over
        the nodes ``i`` here, the logs rounded to multiples of 2^-32 and
        the sum kept in units of 2^-32 (exact in any order).
    """
    y = np.asarray(y, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_nodes))])
    total, count = 0.0, 0
    for node in range(n_nodes):
        values = y[order[bounds[node]: bounds[node + 1]]]
        if len(values) < 2:
            continue
        mad = float(np.median(np.abs(values - np.median(values))))
        if mad > 0:
            total += float(np.round(np.log(MAD_TO_STD * mad) * _LOG_GRID))
            count += 1
    return np.array([total, float(count)])


def node_centres(y, codes, n_nodes):
    """Every node's median target (NaN for a node without targets here).

    Each node is held by one process, so the arrays of several processes
    combine exactly by ``numpy.fmax`` and every engine averages the same
    array in node order (:func:`agreed_offset`).
    """
    y = np.asarray(y, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_nodes))])
    centres = np.full(n_nodes, np.nan)
    for node in range(n_nodes):
        values = y[order[bounds[node]: bounds[node + 1]]]
        if len(values):
            centres[node] = float(np.median(values))
    return centres


def agreed_offset(centres):
    """The mean of the nodes' median targets (0 when no node has one)."""
    present = centres[np.isfinite(centres)]
    return float(np.mean(present)) if len(present) else 0.0


def agreed_scale(sums):
    """The geometric mean from the summed ``node_log_scales`` (1 when no
    node has a positive scale)."""
    return float(np.exp(sums[0] / _LOG_GRID / sums[1])) if sums[1] > 0 else 1.0


def count_scale_messages(counter, parents, senders=None):
    """Count the four sums sent up the spanning trees and the offset and
    scale sent back down (only the messages sent by ``senders`` when given:
    an MPI rank's nodes)."""
    count_tree_round(counter, parents, payload_bytes(n_float64=4),
                     payload_bytes(n_float64=2), senders)
