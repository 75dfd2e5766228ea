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


def weights_in(sample_weight, dtype):
    """``(cast, over, under)``: float64 ``sample_weight`` cast to ``dtype``
    (None when a weight exceeds its largest value), the largest weight if
    it does (else None), and the smallest positive weight that rounds to 0
    in it, under its smallest subnormal (else None): such a sample would be
    left out, or its node called weightless (review39).  Shared by the fit
    (:func:`weights_in_data_dtype`) and ``add_nodes``
    (``skfed._join_common.validate_join_data``), which word the refusal
    each their way.

    Examples
    --------
    >>> import numpy as np
    >>> weights_in(np.array([1.0, 1e39]), np.float32)[1:]
    (1e+39, None)
    >>> weights_in(np.array([1.0, 1e-46]), np.float32)[1:]
    (None, 1e-46)
    """
    top = float(np.max(sample_weight)) if sample_weight.size else 0.0
    if top > float(np.finfo(dtype).max):
        return None, top, None
    cast = sample_weight.astype(dtype)
    lost = (sample_weight > 0) & (cast == 0)
    return cast, None, (float(sample_weight[lost].min()) if lost.any() else None)


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
    cast, over, under = weights_in(sample_weight, dtype)
    if over is None and under is None:
        return X, cast
    if over is not None:
        what = (f"a weight of {over:.3g}, above the largest {dtype} "
                f"({float(np.finfo(dtype).max):.3g})")
    else:
        what = (f"a positive weight of {under:.3g}, which "
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
