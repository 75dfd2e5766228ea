"""NumPy references of the online regressor's agreed target encoding."""

import numpy as np

MAD_TO_STD = 1.482602218505602


def numpy_scale(y, groups):
    """Geometric mean over the nodes of ``1.4826 MAD`` (``sqrt(pi / 2)`` times
    the mean absolute deviation from the median when the MAD is 0; nodes of a
    positive scale); without any, the spread of the nodes' winsorized means
    between them (weights ``n_i^2``), else ``|m|``, else 1."""
    logs = []
    for k in np.unique(groups):
        v = y[groups == k]
        dev = np.abs(v - np.median(v))
        s = MAD_TO_STD * np.median(dev) if np.median(dev) > 0 else np.sqrt(np.pi / 2) * dev.mean()
        if len(v) > 1 and s > 0:
            logs.append(np.log(s))
    if logs:
        return float(np.exp(np.mean(logs)))
    means, counts = _winsorized_means(y, groups, 3.0)
    m = np.sum(counts * means) / counts.sum()
    spread = np.sqrt(np.sum(counts ** 2 * (means - m) ** 2) / np.sum(counts ** 2))
    return float(spread) if spread > 0 else (float(abs(m)) or 1.0)


def _winsorized_means(y, groups, clip):
    means, counts = [], []
    for k in np.unique(groups):
        v = y[groups == k]
        med = np.median(v)
        reach = clip * MAD_TO_STD * np.median(np.abs(v - med))
        means.append(np.mean(np.clip(v, med - reach, med + reach) if reach > 0 else v))
        counts.append(len(v))
    return np.array(means), np.array(counts, dtype=float)


def numpy_offset(y, groups, z=2.0, clip=3.0):
    """The pooled mean of every node's targets clipped to its median +- clip
    robust deviations, when it is more than ``z`` standard errors from 0 (the
    larger of the between-node sandwich and scale / sqrt(n)), else 0."""
    means, counts = _winsorized_means(y, groups, clip)
    m = np.sum(counts * means) / counts.sum()
    se = max(np.sqrt(np.sum((counts * (means - m)) ** 2)) / counts.sum(),
             numpy_scale(y, groups) / np.sqrt(counts.sum()))
    return float(m) if abs(m) > z * se else 0.0


def numpy_encode(y, groups):
    """``(z, offset, scale)``: the targets the regressor's solver sees."""
    offset, scale = numpy_offset(y, groups), numpy_scale(y, groups)
    return (y - offset) / scale, offset, scale
