"""Kernel functions shared by the kernel methods.

The kernel methods of skfed (:mod:`skfed.multitask`, :mod:`skfed.online`)
take the same ``kernel``, ``gamma``, ``degree`` and ``coef0`` parameters as
scikit-learn's kernel estimators.  This module turns them into a validated
:class:`KernelSpec` (:func:`resolve_kernel`), evaluates kernel matrices
(:func:`pairwise_kernel`) and hands the numbers the Cython solvers need to
them (:func:`kernel_params`).

The named kernels are defined exactly as in :mod:`sklearn.metrics.pairwise`
(and agree with it to about 1e-12 in float64)::

    linear      k(x, y) = x . y
    rbf         k(x, y) = exp(-gamma ||x - y||^2)
    poly        k(x, y) = (gamma x . y + coef0)^degree
    sigmoid     k(x, y) = tanh(gamma x . y + coef0)
    laplacian   k(x, y) = exp(-gamma ||x - y||_1)

They are computed in compiled code without the GIL, in float32 or float64.
A callable ``kernel(X, Y)`` returning the ``(n_x, n_y)`` kernel matrix is
accepted too; it runs in Python, so the kernel solvers (which run without
the GIL) precompute the kernel blocks a callable kernel needs in Python
before entering compiled code.
"""

import copy
import inspect
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Callable, Optional

import numpy as np
from sklearn.utils import check_array

from ._core._kernels import pairwise_kernel_fast

__all__ = ["KERNELS", "KernelSpec", "resolve_kernel", "pairwise_kernel", "kernel_params",
           "check_kernel_settings"]

#: Names of the kernels computed in compiled code.
KERNELS = ("linear", "rbf", "poly", "sigmoid", "laplacian")

# Must match ``KernelKind`` in ``skfed/_core/_kernels.pxd``.
_KIND = {"linear": 0, "rbf": 1, "poly": 2, "sigmoid": 3, "laplacian": 4}
# Other spellings scikit-learn accepts (``pairwise_kernels``, ``KernelRidge``).
_ALIASES = {"polynomial": "poly"}
_CALLABLE_KIND = -1


@dataclass(frozen=True)
class KernelSpec:
    """A validated kernel: its name, parameters and compiled-code identifier.

    Build it with :func:`resolve_kernel` rather than directly; every function
    of this module that takes a ``kernel`` also accepts a ``KernelSpec``.

    Parameters
    ----------
    name : str
        One of :data:`KERNELS`, or ``"callable"``.
    gamma : float
        Kernel coefficient of rbf, poly, sigmoid and laplacian (unused by
        linear and by callables).
    degree : float
        Degree of the poly kernel (unused by the others).
    coef0 : float
        Independent term of poly and sigmoid (unused by the others).
    callable_ : callable or None, default=None
        The user's ``kernel(X, Y)`` when ``name == "callable"``.
    kind : int, default=-1
        ``KernelKind`` of the compiled code (``-1`` for a callable).

    See Also
    --------
    resolve_kernel : Validate kernel parameters into a ``KernelSpec``.
    kernel_params : The numbers passed to the Cython solvers.

    Examples
    --------
    >>> from skfed.kernels import resolve_kernel
    >>> spec = resolve_kernel("rbf", n_features=4)
    >>> spec.name, spec.gamma
    ('rbf', 0.25)
    """

    name: str
    gamma: float
    degree: float
    coef0: float
    callable_: Optional[Callable] = None
    kind: int = _CALLABLE_KIND

    @property
    def is_callable(self):
        """Whether the kernel is a user callable (evaluated in Python)."""
        return self.callable_ is not None

    def __call__(self, X, Y=None):
        """Kernel matrix between the rows of X and Y (Y defaults to X).

        Same as ``pairwise_kernel(X, Y, kernel=self)``.
        """
        return pairwise_kernel(X, Y, kernel=self)


def _check_real(value, name, *, low=None, low_inclusive=True):
    """A finite real number (not a bool), optionally bounded below."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(
            f"{name} must be a real number, got {value!r} of type "
            f"{type(value).__name__}."
        )
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    if low is not None:
        if low_inclusive and value < low:
            raise ValueError(f"{name} must be >= {low}, got {value!r}.")
        if not low_inclusive and value <= low:
            raise ValueError(f"{name} must be > {low}, got {value!r}.")
    return value


def resolve_kernel(kernel, *, gamma=None, degree=3, coef0=1.0, n_features):
    """Validate kernel parameters into a :class:`KernelSpec`.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly", "sigmoid", "laplacian"}, callable or \
            KernelSpec
        The kernel.  ``"polynomial"`` is accepted as a synonym of ``"poly"``.
        A callable ``kernel(X, Y)`` must return the ``(n_x, n_y)`` array of
        kernel values between the rows of ``X`` and ``Y``.  A ``KernelSpec``
        is checked again and returned with its own parameters (the other
        arguments are ignored).
    gamma : float > 0 or None, default=None
        Coefficient of rbf, poly, sigmoid and laplacian.  ``None`` means
        ``1 / n_features``, as in :mod:`sklearn.metrics.pairwise`.
    degree : float >= 1, default=3
        Degree of the poly kernel.
    coef0 : float, default=1.0
        Independent term of the poly and sigmoid kernels.
    n_features : int >= 1
        Number of features of the data, used when ``gamma`` is None.

    Returns
    -------
    spec : KernelSpec
        The validated kernel.

    Raises
    ------
    ValueError
        If a parameter is invalid; the message names it.

    See Also
    --------
    pairwise_kernel : Evaluate the kernel matrix of a ``KernelSpec``.
    kernel_params : The numbers passed to the Cython solvers.

    Examples
    --------
    >>> from skfed.kernels import resolve_kernel
    >>> resolve_kernel("poly", degree=2, coef0=0.0, n_features=10)
    KernelSpec(name='poly', gamma=0.1, degree=2.0, coef0=0.0, callable_=None, kind=2)
    >>> resolve_kernel("rbf", gamma=-1.0, n_features=10)
    Traceback (most recent call last):
        ...
    ValueError: gamma must be > 0.0, got -1.0.
    """
    if isinstance(n_features, (bool, np.bool_)) or not isinstance(n_features, Integral):
        raise ValueError(f"n_features must be an integer, got {n_features!r}.")
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}.")
    if isinstance(kernel, KernelSpec):
        source = kernel.callable_ if kernel.is_callable else kernel.name
        return resolve_kernel(
            source,
            gamma=kernel.gamma,
            degree=kernel.degree,
            coef0=kernel.coef0,
            n_features=n_features,
        )

    if gamma is None:
        gamma = 1.0 / n_features
    else:
        gamma = _check_real(gamma, "gamma", low=0.0, low_inclusive=False)
    degree = _check_real(degree, "degree", low=1.0)
    coef0 = _check_real(coef0, "coef0")

    if callable(kernel):
        return KernelSpec("callable", gamma, degree, coef0, kernel, _CALLABLE_KIND)
    if isinstance(kernel, str):
        name = _ALIASES.get(kernel, kernel)
        if name in _KIND:
            return KernelSpec(name, gamma, degree, coef0, None, _KIND[name])
    raise ValueError(
        f"kernel must be one of {KERNELS} or a callable, got {kernel!r}."
    )


def kernel_params(spec):
    """The ``(kind, gamma, coef0, degree)`` a Cython solver needs.

    Parameters
    ----------
    spec : KernelSpec
        A named kernel (from :func:`resolve_kernel`).

    Returns
    -------
    kind : int
        ``KernelKind`` of ``skfed/_core/_kernels.pxd``.
    gamma, coef0, degree : float
        The kernel parameters, in the order of ``make_kernel_params``.

    Raises
    ------
    ValueError
        If ``spec`` is a callable kernel: a Python callable cannot run in
        compiled code without the GIL.  Solvers precompute the kernel
        blocks of a callable with :func:`pairwise_kernel` instead.

    Examples
    --------
    >>> from skfed.kernels import kernel_params, resolve_kernel
    >>> kernel_params(resolve_kernel("sigmoid", gamma=0.5, coef0=0.0, n_features=3))
    (3, 0.5, 0.0, 3.0)
    """
    if not isinstance(spec, KernelSpec):
        raise ValueError(
            f"spec must be a KernelSpec (see resolve_kernel), got {type(spec).__name__}."
        )
    if spec.is_callable:
        raise ValueError(
            "kernel is a callable, which cannot run in compiled code; compute "
            "its kernel blocks with pairwise_kernel(X, Y, kernel=spec) instead."
        )
    return int(spec.kind), float(spec.gamma), float(spec.coef0), float(spec.degree)


def _check_callable_output(K, n_x, n_y, dtype, func):
    name = getattr(func, "__name__", repr(func))
    try:
        K = np.asarray(K, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"kernel callable {name} must return a numeric array, got "
            f"{type(K).__name__}."
        ) from exc
    if K.shape != (n_x, n_y):
        raise ValueError(
            f"kernel callable {name} must return an array of shape "
            f"(n_samples_X, n_samples_Y) = ({n_x}, {n_y}), got shape {K.shape}."
        )
    if not np.all(np.isfinite(K)):
        raise ValueError(f"kernel callable {name} returned non-finite values (NaN or inf).")
    return np.ascontiguousarray(K)


def pairwise_kernel(X, Y=None, *, kernel="rbf", gamma=None, degree=3, coef0=1.0):
    """Kernel matrix between the rows of X and the rows of Y.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
        Dense input.  Its dtype decides the computation: float32 stays
        float32, anything else is converted to float64.
    Y : array-like of shape (n_samples_Y, n_features), default=None
        Second input, converted to the dtype of ``X``.  ``None`` (or ``X``
        itself) computes the symmetric Gram matrix of ``X``: only half of
        it is computed, the result is exactly symmetric and, for rbf, its
        diagonal is exactly 1.
    kernel : {"linear", "rbf", "poly", "sigmoid", "laplacian"}, callable or \
            KernelSpec, default="rbf"
        See :func:`resolve_kernel`.  A ``KernelSpec`` brings its own
        parameters (``gamma``, ``degree`` and ``coef0`` are then ignored).
    gamma : float > 0 or None, default=None
        ``None`` means ``1 / n_features``.
    degree : float >= 1, default=3
        Degree of the poly kernel.
    coef0 : float, default=1.0
        Independent term of the poly and sigmoid kernels.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        C-contiguous, with the dtype of the computation.

    See Also
    --------
    sklearn.metrics.pairwise.pairwise_kernels : The scikit-learn equivalent.

    Notes
    -----
    Named kernels are computed tile by tile without the GIL, with the dot
    products from BLAS.  The rbf kernel expands ``||x - y||^2`` as
    ``||x||^2 - 2 x.y + ||y||^2`` like scikit-learn; in float32, entries
    where that expansion loses too much precision to cancellation are
    recomputed directly (scikit-learn upcasts to float64 for the same
    reason).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.kernels import pairwise_kernel
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    >>> K = pairwise_kernel(X, kernel="rbf", gamma=0.5)
    >>> K.round(4)
    array([[1.    , 0.6065, 0.0821],
           [0.6065, 1.    , 0.3679],
           [0.0821, 0.3679, 1.    ]])
    >>> pairwise_kernel(X, X[:1], kernel="linear")
    array([[1.],
           [1.],
           [0.]])
    """
    X_in = X
    X = check_array(X, dtype=(np.float64, np.float32), order="C", input_name="X")
    if Y is None or Y is X_in:
        Y = X
    else:
        Y = check_array(Y, dtype=X.dtype, order="C", input_name="Y")
        if Y.shape[1] != X.shape[1]:
            raise ValueError(
                f"Y has {Y.shape[1]} features, but X has {X.shape[1]}; they must "
                "have the same number of features."
            )
    spec = resolve_kernel(
        kernel, gamma=gamma, degree=degree, coef0=coef0, n_features=X.shape[1]
    )
    if spec.is_callable:
        K = spec.callable_(X, Y)
        return _check_callable_output(K, X.shape[0], Y.shape[0], X.dtype, spec.callable_)

    out = np.empty((X.shape[0], Y.shape[0]), dtype=X.dtype)
    kind, gamma, coef0, degree = kernel_params(spec)
    pairwise_kernel_fast(X, Y, kind, gamma, coef0, degree, out)
    return out


# The kernel parameters each named kernel reads ("affine": the online
# learner's gamma x . x' + 1; "auto": its selection, whose candidates read
# gamma only).
_READS = {"linear": (), "rbf": ("gamma",), "laplacian": ("gamma",),
          "poly": ("gamma", "degree", "coef0"), "polynomial": ("gamma", "degree", "coef0"),
          "sigmoid": ("gamma", "coef0"), "affine": ("gamma",), "auto": ("gamma",)}


def check_kernel_settings(estimator):
    """Refuse ``gamma``, ``degree`` or ``coef0`` set for a kernel that does not read them.

    scikit-learn's kernel estimators ignore them silently (``SVC(kernel=
    "linear", gamma=5)`` fits the linear kernel); a setting moved from its
    default that changes nothing is refused here, naming it.  A callable
    kernel is left alone (it may read anything).

    Parameters
    ----------
    estimator : estimator with ``kernel``, ``gamma``, ``degree`` and ``coef0``

    Raises
    ------
    ValueError
        If a parameter the kernel does not read is not at its default.

    Examples
    --------
    >>> from skfed import FederatedMultiTaskClassifier
    >>> from skfed.kernels import check_kernel_settings
    >>> check_kernel_settings(FederatedMultiTaskClassifier(kernel="poly", degree=2))
    >>> check_kernel_settings(FederatedMultiTaskClassifier(kernel="rbf", degree=2))
    Traceback (most recent call last):
        ...
    ValueError: degree=2 is not read by kernel='rbf' (only by poly); leave it at its default 3 (in a parameter search, give each kernel its own grid: [{'kernel': ['rbf']}, {'kernel': ['poly'], 'degree': [...]}]).
    """
    kernel = estimator.kernel
    if not isinstance(kernel, str) or kernel not in _READS:
        return
    defaults = inspect.signature(type(estimator).__init__).parameters
    for name in ("gamma", "degree", "coef0"):
        if name in _READS[kernel] or name not in defaults:
            continue
        value, default = getattr(estimator, name), defaults[name].default
        # (a number, a string, None, or the online learner's per-node array or dict)
        if not _same_setting(value, default):
            readers = [k for k in ("rbf", "laplacian", "poly", "sigmoid") if name in _READS[k]]
            raise ValueError(
                f"{name}={value!r} is not read by kernel={kernel!r} (only by "
                f"{', '.join(readers)}); "
                f"leave it at its default {default!r} (in a parameter search, give "
                f"each kernel its own grid: [{{'kernel': [{kernel!r}]}}, {{'kernel': "
                f"[{readers[0]!r}], {name!r}: [...]}}]).")


# The settings that define a fitted model's kernel and features.
_KERNEL_SETTINGS = ("kernel", "gamma", "degree", "coef0", "approximation", "n_components")


def _checked_kernel_settings(estimator, fixed=_KERNEL_SETTINGS):
    """:func:`check_kernel_settings`, then a copy of the ``fixed`` settings
    the fit uses (stored by a fit, compared by
    :func:`_check_join_kernel_settings`).  The online learner leaves
    ``gamma`` out: its ``add_nodes`` reads a new node's width from it."""
    check_kernel_settings(estimator)
    return {name: copy.deepcopy(getattr(estimator, name))
            for name in fixed if hasattr(estimator, name)}


def _same_setting(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
                and all(_same_setting(a[k], b[k]) for k in a))
    if callable(a) or callable(b):
        return a is b
    if type(a) is not type(b) and not (isinstance(a, Real) and isinstance(b, Real)):
        return False
    return bool(a == b)


def _check_join_kernel_settings(estimator):
    """Refuse ``add_nodes`` when a kernel setting changed since the fit.

    The nodes join the fitted model, whose kernel and features are fixed:
    a setting changed with ``set_params`` after ``fit`` would be ignored by
    the join, so it is refused, naming it (set it back, or refit).
    """
    fitted = getattr(estimator, "_kernel_settings", None)
    if fitted is None:
        return
    check_kernel_settings(estimator)  # (a setting the kernel does not read)
    changed = [
        f"{name}={getattr(estimator, name)!r} (the fit's {fitted[name]!r})"
        for name in fitted if not _same_setting(fitted[name], getattr(estimator, name))
    ]
    if changed:
        raise ValueError(
            f"{type(estimator).__name__}.add_nodes joins nodes to the fitted model, "
            f"whose kernel and features are fixed, but {', '.join(changed)} changed "
            f"since the fit; set it back or refit.")
