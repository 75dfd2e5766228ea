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


def numpy_offset(y, groups):
    """Mean over the nodes of their median target."""
    return float(np.mean([np.median(y[groups == k]) for k in np.unique(groups)]))


def numpy_encode(y, groups):
    """``(z, offset, scale)``: the targets the regressor's solver sees."""
    offset, scale = numpy_offset(y, groups), numpy_scale(y, groups)
    return (y - offset) / scale, offset, scale
