"""Magnitude checks of the inputs every estimator squares and weighs.

Finite values can still overflow once squared, summed over a row or
multiplied by a sample weight; these checks refuse such data naming the
parameter (``X``, ``sample_weight``) or the quantity (``C`` times the
weights), instead of a NaN model or a solver error that names nothing.
Re-exported by :mod:`skfed._base`.
"""

import numpy as np
from scipy import sparse


def working_dtype(estimator, dtype):
    """The dtype in which ``estimator`` squares data held in ``dtype``.

    An estimator class that computes every square, norm and weighted sum of
    its inputs in float64 whatever their dtype sets ``_squares_dtype =
    np.float64``: the boosting family (Dada, Perso-lin; its float32 fits
    give its float64 fits' models on data whose squares overflow float32,
    tests/test_review35_mass_and_magnitude.py).  The others keep the data's
    own dtype: the kernel learners and MOCHA's kernel modes square float32
    data in float32 (kernel and Gram matrices; measured: other decision
    values past float32's bound, tests/test_small36_float32_bounds.py);
    the support family and LocalEstimator's wrapped estimator keep float32
    data in float32 and are not audited.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed._magnitude import working_dtype
    >>> class Float64Squares:
    ...     _squares_dtype = np.float64
    >>> working_dtype(Float64Squares(), np.float32), working_dtype(object(), np.float32)
    (dtype('float64'), dtype('float32'))
    """
    own = getattr(estimator, "_squares_dtype", None)
    return np.dtype(dtype) if own is None else np.promote_types(own, dtype)


def check_magnitude(values, name, working=None):
    """Refuse finite values whose squares overflow the dtype they are squared in.

    Every estimator squares its features (norms, kernels, Gram matrices) and
    multiplies them by weights: a value above ``sqrt(finfo(dtype).max)``
    (``1.3e154`` in float64, ``1.8e19`` in float32) turns a node's model into
    NaN or a solver's error that names nothing.  Such data are refused
    naming ``name``; rescaling (e.g. ``StandardScaler``) fixes them.

    Parameters
    ----------
    values : ndarray or sparse matrix
        Finite values (checked by ``check_array`` before).
    name : str
        The parameter named in the error (``"X"``, ``"sample_weight"``).
    working : dtype, default=None
        The dtype the estimator squares them in (:func:`working_dtype`);
        None: their own.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed._magnitude import check_magnitude
    >>> check_magnitude(np.array([1.0, 1e150]), "X")
    >>> check_magnitude(np.array([1.0, 1e200]), "X")
    Traceback (most recent call last):
    ...
    ValueError: X holds a value of magnitude 1e+200, whose square overflows float64 (above 1.34e+154); rescale it (e.g. StandardScaler for features).
    """
    data = values.data if sparse.issparse(values) else np.asarray(values)
    if data.size == 0 or not np.issubdtype(data.dtype, np.floating):
        return
    largest = _largest_magnitude(data)
    working = data.dtype if working is None else np.dtype(working)
    limit = float(np.sqrt(np.finfo(working).max))
    if largest > limit:
        raise ValueError(
            f"{name} holds a value of magnitude {largest:.3g}, whose square overflows "
            f"{working} (above {limit:.3g}); rescale it (e.g. StandardScaler for "
            "features).")
    if getattr(values, "ndim", 1) == 2 and largest * np.sqrt(values.shape[1]) > limit:
        # rows are squared and summed (norms, kernels, Gram matrices); a row's
        # norm is at most largest * sqrt(n_features): only then is it computed
        norm = largest_row_norm(values)
        if norm > limit:
            raise ValueError(
                f"{name} holds a row of norm {norm:.3g}, whose square overflows "
                f"{working} (above {limit:.3g}); rescale it (e.g. StandardScaler "
                "for features).")


def _largest_magnitude(data):
    """``max |data|`` without an absolute-value copy (0 for no data)."""
    if not data.size:
        return 0.0
    return float(max(np.max(data), -np.min(data)))


def largest_row_norm(X):
    """The largest Euclidean norm of a row of ``X`` (dense or sparse), computed
    without overflow (rows scaled by the largest magnitude first, in chunks).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed._magnitude import largest_row_norm
    >>> float(largest_row_norm(np.array([[3.0, 4.0], [1e200, 1e200]]))) / 1e200
    1.4142135623730951
    """
    if sparse.issparse(X):
        X = sparse.csr_matrix(X)
        data = X.data
    else:
        X = np.asarray(X)
        data = X
    if data.size == 0:
        return 0.0
    top = _largest_magnitude(data)
    if top == 0.0 or not np.isfinite(top):
        return top
    if sparse.issparse(X):
        squares = X.multiply(1.0 / top).power(2).sum(axis=1)
        return top * float(np.sqrt(np.max(squares)))
    best = 0.0
    for start in range(0, X.shape[0], 4096):
        part = np.asarray(X[start:start + 4096], dtype=np.float64) / top
        best = max(best, float(np.max(np.einsum("ij,ij->i", part, part))))
    return top * float(np.sqrt(best))


def check_weighted_squares(sample_weight, X):
    """Refuse weights whose products with the squared norms of ``X``'s rows
    overflow float64 (``w ||x||^2``, a weighted Gram or Hessian): each
    factor may be under :func:`check_magnitude`'s bound while the product is
    not.  Names ``sample_weight``; rescaling either fixes it.
    """
    weights = np.asarray(sample_weight)
    if weights.size == 0 or not hasattr(X, "shape") or len(X.shape) != 2:
        return
    top = _largest_magnitude(weights)
    limit = float(np.finfo(np.float64).max)
    data = X.data if sparse.issparse(X) else np.asarray(X)
    bound = _largest_magnitude(data) * np.sqrt(X.shape[1]) if data.size else 0.0
    if top == 0 or bound == 0 or np.log(top) + 2 * np.log(bound) <= np.log(limit):
        return  # (no row's norm can reach it: nothing more to compute)
    norm = largest_row_norm(X)
    if norm > 0 and np.log(top) + 2 * np.log(norm) > np.log(limit):
        raise ValueError(
            f"sample_weight holds a weight of {top:.3g} and X a row of norm "
            f"{norm:.3g}: their product with the squared norm overflows float64 "
            f"(weight x norm^2 above {limit:.3g}); rescale sample_weight or X "
            "(e.g. StandardScaler for features).")


#: Largest ``C`` times total sample weight MOCHA takes: its ``lambda = 1 / (C
#: n_samples)`` (and a newcomer's prior weight) travel in float32.
MAX_C_WEIGHT = 1.0 / float(np.finfo(np.float32).tiny)


def check_C_weight(scale, where):
    """Refuse ``scale`` (``C`` times a total sample weight) above
    :data:`MAX_C_WEIGHT` (8.5e37), where ``lambda`` underflows in float32;
    ``where`` starts the message (what holds that weight)."""
    if scale > MAX_C_WEIGHT:
        raise ValueError(
            f"{where}: C times the total sample_weight is {scale:.3g}, above 8.5e37, "
            "where lambda = 1 / (C n_samples) underflows in float32; lower C or "
            "rescale sample_weight.")


def as_message(values, dtype, what):
    """``values`` as a message of ``dtype`` delivers them (read back in float64).

    A message of float32 values cannot carry a finite value above
    ``3.4e38``; rather than sending ``inf`` (a silent wrong model at the
    receiver), refuse naming ``what`` overflowed and how to avoid it.

    >>> as_message(np.array([1.5, 2.0]), np.float32, "the sums").tolist()
    [1.5, 2.0]
    >>> as_message(np.array([1e39]), np.float32, "the sums")
    Traceback (most recent call last):
    ...
    ValueError: the sums overflow the float32 messages that carry them ...
    """
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):
        sent = values.astype(dtype)
    if np.dtype(dtype).itemsize < 8 and not np.isfinite(sent).all():
        lost = np.isfinite(values) & ~np.isfinite(sent)
        if lost.any():
            raise ValueError(
                f"{what} overflow the {np.dtype(dtype).name} messages that carry them "
                f"(largest |value| {float(np.abs(values[lost]).max()):.3g} above "
                f"{float(np.finfo(dtype).max):.3g}): the features are too large for this "
                "exchange; rescale them (e.g. StandardScaler).")
    return sent.astype(np.float64)
