"""The location and scale of the targets that a regressor's nodes agree on.

Every node computes the robust scale of its own training targets,
``1.4826 MAD`` (the median absolute deviation from the median, scaled to
be the standard deviation of Gaussian targets), and the mean of its
targets winsorized at ``CLIP_SCALES`` such deviations from its median.
The network combines them over spanning trees of the topology, in a
counted round of its own before the first step: up every tree edge go
seven float64 (the sum of ``log(scale)`` over the nodes of a positive
scale and their count; the sums of ``n_i``, ``n_i m_i``, ``n_i^2``,
``n_i^2 m_i`` and ``n_i^2 m_i^2`` over the nodes, ``m_i`` a node's
winsorized mean of ``n_i`` targets), down come two (the offset and the
scale).

* ``target_scale_`` is the geometric mean of the positive scales (a
  node's MAD is replaced by its mean absolute deviation when over half its
  targets are tied); when no node has a positive scale (one target each:
  a stream of one sample per node per ``partial_fit`` call), the spread
  of the nodes' means between them (:func:`between_node_scale`; their
  common value when all targets are equal, 1 only when they are all 0).  A geometric mean is exact as a sum
  over the trees (a median of the nodes' scales is not) and, like the
  MAD, it is not moved by a node whose targets are a different unit or
  carry a few huge values.
* ``target_offset_`` is the mean of the winsorized targets when it is
  more than ``OFFSET_Z`` standard errors from 0, else 0
  (:func:`agreed_offset`): the model (the rbf kernel has no constant
  term, the linear one no intercept) is then learned around the targets'
  origin when they have a clear one (``y + 10``, exam scores of mean
  20.6), and a rule without intercept is not offset by a noisy mean.

The solver sees ``(y - target_offset_) / target_scale_``, so its step
sizes, KOMP's error budget ``epsilon`` (an RKHS norm) and the robust
loss's threshold ``loss_epsilon`` mean the same at any unit of ``y``;
predictions are mapped back.  Scaling ``y`` by ``a != 0`` scales the
predictions by ``a``; shifting it by ``b`` shifts them by ``b`` whenever
the offset is used before and after the shift (a shift larger than a few
standard errors of the location always is).
"""

import numpy as np

from ..network import payload_bytes
from ._selection import count_tree_round

__all__ = [
    "MAD_TO_STD",
    "ROBUST_LOSSES",
    "agreed_offset",
    "agreed_scale",
    "between_node_scale",
    "count_scale_messages",
    "node_centres",
    "node_log_scales",
]

# A mean of the targets beyond this many standard errors from 0 is their
# origin (agreed_offset).
OFFSET_Z = 2.0
# A node's targets are clipped this many robust deviations from its median
# before they are averaged (node_centres).
CLIP_SCALES = 3.0
# The losses whose threshold is loss_epsilon times the agreed target scale.
ROBUST_LOSSES = ("huber", "epsilon_insensitive")
# 1 / Phi^{-1}(3/4): the MAD of Gaussian values times this is their deviation.
MAD_TO_STD = 1.482602218505602
# sqrt(pi / 2): the mean absolute deviation of Gaussian values times this is
# their deviation (a node's scale when its MAD is 0, node_log_scales).
MEAN_ABS_TO_STD = float(np.sqrt(np.pi / 2.0))
# Every log-scale is sent rounded to a multiple of 2^-32 (a relative error
# of at most 1.2e-10 in the scale), so the sums are of integers times 2^-32
# and exact in any order: every split of the nodes over processes (MPI
# ranks) agrees with one process to the last bit.
_LOG_GRID = 2.0 ** 32


def _weighted_median(values, weights):
    """The median of ``values`` repeated ``weights`` times (``numpy.median``
    of the copies for integer weights: the mean of the two middle values
    when the total weight is even)."""
    order = np.argsort(values, kind="stable")
    values, cum = values[order], np.cumsum(weights[order])
    half = cum[-1] / 2.0
    lo = values[np.searchsorted(cum, half, side="left")]
    hi = values[min(np.searchsorted(cum, half, side="right"), len(values) - 1)]
    return float((lo + hi) / 2)


def _node_targets(y, codes, n_nodes, weights=None):
    """``(node, targets, weights, median, MAD)`` of every node with targets
    here; ``weights`` None for unit weights, else a weight counts as that
    many copies of its target (median and MAD of the copies; the node's
    weights are None when they are all 1)."""
    y = np.asarray(y, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_nodes))])
    for node in range(n_nodes):
        rows = order[bounds[node]: bounds[node + 1]]
        w = None
        if weights is not None:
            # (zero-weight rows are absent rows; unit weights the unweighted
            # statistics, to the bit: every engine agrees with the simulation)
            rows = rows[weights[rows] > 0]
            w = None if np.all(weights[rows] == 1) else weights[rows]
        values = y[rows]
        if not len(values):
            continue
        if w is None:
            median = float(np.median(values))
            yield node, values, None, median, float(np.median(np.abs(values - median)))
        else:
            median = _weighted_median(values, w)
            yield node, values, w, median, _weighted_median(np.abs(values - median), w)


def node_log_scales(y, codes, n_nodes, sample_weight=None):
    """Every node's contribution to the agreed scale of the targets.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Training targets.
    codes : ndarray of shape (n_samples,)
        Node index of every target (only nodes present contribute, so the
        sums of several processes' contributions add up).
    n_nodes : int
    sample_weight : ndarray of shape (n_samples,), default=None
        Positive weights: a weight counts as that many copies of its
        target (``None``: unit weights).

    Returns
    -------
    ndarray of shape (2,)
        ``[sum of log(s_i), number of nodes with s_i > 0]`` over the nodes
        ``i`` here, ``s_i = 1.4826 MAD_i``, or, when ``MAD_i = 0`` (over
        half of the node's targets tied: zero-inflated amounts or counts),
        ``sqrt(pi / 2)`` times their mean absolute deviation from the
        median (0 only for equal targets), so that tied targets too are
        scaled in their own unit; the logs rounded to multiples of 2^-32
        and the sum kept in units of 2^-32 (exact in any order).
    """
    total, count = 0.0, 0
    for _, values, w, median, mad in _node_targets(y, codes, n_nodes, sample_weight):
        spread = MAD_TO_STD * mad if mad > 0 else MEAN_ABS_TO_STD * float(
            np.average(np.abs(values - median), weights=w))
        if len(values) >= 2 and spread > 0:
            total += float(np.round(np.log(spread) * _LOG_GRID))
            count += 1
    return np.array([total, float(count)])


def node_centres(y, codes, n_nodes, sample_weight=None):
    """Every node's winsorized mean target and its number of targets.

    A node clips its targets to ``median +- CLIP_SCALES * 1.4826 MAD`` of
    its own targets (not at all when its MAD is 0) and averages them: the
    mean for targets without outliers, skewed ones included (what a model
    without intercept needs as its origin; a median is not), and not moved
    by a few huge values.  With ``sample_weight`` a weight counts as that
    many copies of its target (in the median, the MAD, the mean and the
    count, which is then the node's total weight).

    Returns
    -------
    ndarray of shape (n_nodes, 2)
        ``[winsorized mean, count]`` of every node's targets here, NaN for
        a node without targets here.  Each node is held by one process, so
        the arrays of several processes combine exactly by ``numpy.fmax``
        and every engine reads the same array in node order
        (:func:`agreed_offset`).
    """
    centres = np.full((n_nodes, 2), np.nan)
    for node, values, w, median, mad in _node_targets(y, codes, n_nodes, sample_weight):
        reach = CLIP_SCALES * MAD_TO_STD * mad
        if reach > 0:
            values = np.clip(values, median - reach, median + reach)
        if w is None:
            centres[node] = float(np.mean(values)), float(len(values))
        else:
            centres[node] = float(np.average(values, weights=w)), float(np.sum(w))
    return centres


def _pooled_mean(centres):
    """The nodes' winsorized means and counts (nodes with targets) and their
    mean weighted by the counts; None when no node has targets."""
    present = centres[np.isfinite(centres[:, 0])]
    if not len(present):
        return None
    means, counts = present[:, 0], present[:, 1]
    return means, counts, float(np.dot(counts, means)) / float(counts.sum())


def agreed_offset(centres, scale):
    """The origin the nodes agree to move the targets to.

    The mean ``m`` of the nodes' winsorized targets (their winsorized means
    weighted by their numbers of targets) when it is told apart from 0:
    ``|m| > OFFSET_Z * se``, ``se`` its standard error, the larger of the
    one between the nodes (``sqrt(sum_i n_i^2 (m_i - m)^2) / sum_i n_i``:
    nodes whose targets differ in level) and of ``scale / sqrt(sum_i
    n_i)`` (independent targets of deviation ``scale``); else 0 (also when
    no node has a target).  A location that the targets cannot tell from 0
    stays at 0, so a rule without intercept (the linear kernel) is not
    offset by a noisy mean; a clear one (School's scores before
    standardization, ``y + 10``) is learned around, at any unit and origin
    of ``y``.

    Parameters
    ----------
    centres : ndarray of shape (n_nodes, 2)
        :func:`node_centres` of every node (NaN rows: nodes without targets).
    scale : float
        The agreed scale of the targets (:func:`agreed_scale`).

    Returns
    -------
    float
    """
    pooled = _pooled_mean(centres)
    if pooled is None:
        return 0.0
    means, counts, m = pooled
    total = float(counts.sum())
    between = float(np.sqrt(np.sum((counts * (means - m)) ** 2))) / total
    se = max(between, scale / np.sqrt(total))
    return m if abs(m) > OFFSET_Z * se else 0.0


def agreed_scale(sums):
    """The geometric mean from the summed ``node_log_scales`` (1 when no
    node has a positive scale)."""
    return float(np.exp(sums[0] / _LOG_GRID / sums[1])) if sums[1] > 0 else 1.0


def between_node_scale(centres):
    """The spread of the nodes' winsorized means between the nodes.

    ``sqrt(sum_i n_i^2 (m_i - m)^2 / sum_i n_i^2)``, ``m`` their mean
    weighted by ``n_i`` (:func:`agreed_offset`'s), from the sums the nodes
    already send up the trees: the scale when no node has a positive one
    of its own (a stream of one sample per node per ``partial_fit`` call,
    nodes of equal targets), so that it still follows the unit of ``y``.
    When every node's mean is the same (all targets equal), ``|m|``; 0 only
    when they are all 0.

    Parameters
    ----------
    centres : ndarray of shape (n_nodes, 2)
        :func:`node_centres` of every node (NaN rows: nodes without targets).

    Returns
    -------
    float
    """
    pooled = _pooled_mean(centres)
    if pooled is None:
        return 0.0
    means, counts, m = pooled
    spread = float(np.sqrt(np.sum((counts * (means - m)) ** 2) / np.sum(counts ** 2)))
    return spread if spread > 0 else abs(m)


def count_scale_messages(counter, parents, senders=None):
    """Count the seven sums sent up the spanning trees and the offset and
    scale sent back down (only the messages sent by ``senders`` when given:
    an MPI rank's nodes)."""
    count_tree_round(counter, parents, payload_bytes(n_float64=7),
                     payload_bytes(n_float64=2), senders)
