"""Which inputs sklearn's ``validate_data`` would return unchanged (issue 32).

``add_nodes`` of a small join spent 5-10 % of its time in
``validate_data``'s dataframe probes for plain NumPy arrays; the arrays
that pass :func:`_valid_plain_arrays` skip them (``skfed._base``).
"""

import numpy as np

from ._compat import _check_feature_names, _check_n_features


def _valid_plain_arrays(X, y):
    """Whether ``validate_data(X, y)`` of ``add_nodes`` would return them unchanged.

    True only for a finite 2-d float64/float32 ndarray ``X`` with at least one
    sample and one feature and a finite 1-d real (or string) ndarray ``y`` of
    as many samples: the arrays sklearn's checks accept and return as they
    are (its feature-name and feature-count checks are still due).  Anything
    else (sparse, lists, frames, other dtypes, NaN, mismatched lengths) goes
    through ``validate_data``, which converts it or raises.
    """
    if type(X) is not np.ndarray or type(y) is not np.ndarray:
        return False
    if X.ndim != 2 or y.ndim != 1 or X.dtype not in (np.float64, np.float32):
        return False
    if min(X.shape) < 1 or y.shape[0] != X.shape[0] or y.dtype.kind not in "biufU":
        return False
    # (sum is finite for finite values, except on overflow: then the slow path)
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.isfinite(X.sum()):
            return False
        return y.dtype.kind != "f" or bool(np.isfinite(y.sum()))


def _checked_plain_arrays(estimator, X, y):
    """Whether ``X, y`` are plain arrays (:func:`_valid_plain_arrays`), checked.

    For them, what ``validate_data(estimator, X, y, reset=False)`` checks
    besides the arrays themselves: the feature names (an ndarray has none,
    so only a fit on named columns has something to warn about) and the
    feature count, which raises as there.  False: nothing was checked.
    """
    if not _valid_plain_arrays(X, y):
        return False
    if getattr(estimator, "feature_names_in_", None) is not None:
        _check_feature_names(estimator, X, reset=False)
    _check_n_features(estimator, X, reset=False)
    return True
