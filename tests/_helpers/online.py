"""NumPy references of the online regressor's agreed target encoding."""

import numpy as np

MAD_TO_STD = 1.482602218505602


def numpy_scale(y, groups):
    """Geometric mean over the nodes of ``1.4826 MAD`` (nodes of a positive MAD)."""
    logs = []
    for k in np.unique(groups):
        v = y[groups == k]
        mad = np.median(np.abs(v - np.median(v)))
        if len(v) > 1 and mad > 0:
            logs.append(np.log(MAD_TO_STD * mad))
    return float(np.exp(np.mean(logs))) if logs else 1.0


def numpy_offset(y, groups, z=2.0):
    """Mean over the nodes of their median target when it is more than ``z``
    standard errors from 0 (the spread of the medians over sqrt(#nodes);
    one node: sqrt(pi / 2) scale / sqrt(n)), else 0."""
    labels = np.unique(groups)
    medians = np.array([np.median(y[groups == k]) for k in labels])
    m = medians.mean()
    if len(labels) > 1:
        se = medians.std(ddof=1) / np.sqrt(len(labels))
    else:
        se = np.sqrt(np.pi / 2) * numpy_scale(y, groups) / np.sqrt(len(y))
    return float(m) if abs(m) > z * se else 0.0


def numpy_encode(y, groups):
    """``(z, offset, scale)``: the targets the regressor's solver sees."""
    offset, scale = numpy_offset(y, groups), numpy_scale(y, groups)
    return (y - offset) / scale, offset, scale
