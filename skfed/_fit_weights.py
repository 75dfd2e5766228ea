"""The dtype of a fit's sample weights next to float32 data.

An estimator keeps its sample weights in the dtype of its data (its
compiled kernels take both in one dtype).  ``FederatedMixin._validate_fit_data``
validates the user's weights in float64 first (a weight float32 cannot
hold is the user's finite value, not "infinity"), bounds them by the
dtype the estimator squares them in, then casts them with
:func:`weights_in_data_dtype`.
"""

import warnings

import numpy as np
from sklearn.base import MetaEstimatorMixin
from sklearn.exceptions import DataConversionWarning


def weights_working_dtype(estimator, working):
    """The dtype bounding ``estimator``'s weights' squares.

    A meta-estimator (``LocalEstimator``) passes its weights to the model it
    wraps and never squares them itself: their bound is float64's, as for
    float64 data (the wrapped model checks its own inputs); every other
    estimator squares them in ``working`` (``_magnitude.working_dtype``).
    """
    return np.dtype(np.float64) if isinstance(estimator, MetaEstimatorMixin) else working


def weights_in_data_dtype(estimator, X, sample_weight, working):
    """``(X, sample_weight)`` with the weights in the data's dtype.

    Parameters
    ----------
    estimator : estimator instance (named in the error)
    X : ndarray or sparse matrix
        The validated data.
    sample_weight : ndarray of shape (n_samples,), float64
        Validated (finite, non-negative, magnitude-checked) weights.
    working : dtype
        The dtype ``estimator`` squares the data in.

    Returns
    -------
    X, sample_weight
        The weights cast to ``X.dtype``.  When a weight exceeds that dtype's
        largest value, or a positive one rounds to 0 in it (under its
        smallest subnormal), and the estimator squares in a wider dtype (the
        boosting family: float64), ``X`` is cast to that dtype and the
        weights stay float64, with a ``DataConversionWarning``: the fit is
        then the float64 fit of the same values, which is what every square
        of the estimator already used.

    Raises
    ------
    ValueError
        Naming ``sample_weight`` when a weight exceeds the data's dtype, or a
        positive one rounds to 0 in it, and the estimator works in that dtype.
    """
    dtype = X.dtype
    if dtype == sample_weight.dtype:
        return X, sample_weight
    top = float(np.max(sample_weight)) if sample_weight.size else 0.0
    largest = float(np.finfo(dtype).max)
    cast = sample_weight.astype(dtype) if top <= largest else None
    # a positive weight under the dtype's smallest subnormal rounds to 0: its
    # sample would be left out, or its node called weightless (review39)
    lost = None if cast is None else (sample_weight > 0) & (cast == 0)
    if cast is not None and not lost.any():
        return X, cast
    if cast is None:
        what = f"a weight of {top:.3g}, above the largest {dtype} ({largest:.3g})"
    else:
        what = (f"a positive weight of {float(sample_weight[lost].min()):.3g}, which "
                f"{dtype} rounds to 0 (its smallest positive value is "
                f"{float(np.finfo(dtype).smallest_subnormal):.3g})")
    if np.dtype(working).itemsize > dtype.itemsize:
        warnings.warn(
            f"sample_weight holds {what}: {type(estimator).__name__} fits X as "
            f"{np.dtype(working)} (its models and messages are then those of a float64 fit).",
            DataConversionWarning, stacklevel=5)
        return X.astype(working), sample_weight
    raise ValueError(
        f"sample_weight holds {what}: {type(estimator).__name__} keeps the weights in the "
        f"dtype of X ({dtype}); pass X as float64 or rescale the weights.")
