"""Shared pieces of the displays: matplotlib imported lazily, with a clear
error when it is missing, the Axes and figure every ``plot`` draws on, and
the check of a square weight matrix."""

import numpy as np
from scipy import sparse

from .._extras import install_hint


def _check_fitted_with(estimator, attributes, caller, owners):
    """``check_is_fitted``, then the attributes ``caller`` draws.

    A fitted estimator of another kind (say Dada given to the task
    relationship display) is refused with a ``TypeError`` that names what is
    missing and which estimators have it, not with a ``NotFittedError`` that
    says a fitted estimator is not fitted.
    """
    from sklearn.utils.validation import check_is_fitted

    attributes = [attributes] if isinstance(attributes, str) else list(attributes)
    missing = [name for name in attributes if not hasattr(estimator, name)]
    if missing:
        check_is_fitted(estimator)
        raise TypeError(
            f"{caller}.from_estimator draws {' and '.join(attributes)}, which "
            f"{type(estimator).__name__} does not have ({', '.join(missing)} missing); "
            f"{owners}."
        )


def _import_pyplot(caller):
    """Import matplotlib.pyplot, or explain how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised by monkeypatching
        raise ImportError(
            f"{caller} needs matplotlib, which is not installed: "
            + install_hint("plot")
        ) from exc
    return plt


def _get_ax(ax, caller, *, ncols=1, figsize=None):
    """The Axes a display draws on, and their figure.

    Every display's ``plot`` starts here: matplotlib is imported (or the
    error names the ``plot`` extra), and ``ax=None`` makes a new figure of
    ``ncols`` panels side by side.

    Parameters
    ----------
    ax : matplotlib Axes, sequence of ``ncols`` Axes, or None
    caller : str
        The display's name, for the error without matplotlib.
    ncols : int, default=1
        Panels the display draws; with more than one, ``ax`` must hold that
        many Axes and they are returned as a 1-d object array.
    figsize : tuple of float, default=None
        Of a new figure (matplotlib's default when None).

    Returns
    -------
    ax : matplotlib Axes, or ndarray of ``ncols`` Axes
    figure : matplotlib Figure
    """
    plt = _import_pyplot(caller)
    if ax is None:
        _, ax = plt.subplots(1, ncols, figsize=figsize)
    if ncols == 1:
        return ax, ax.figure
    axes = np.ravel(np.asarray(ax, dtype=object))
    if axes.shape != (ncols,):
        count = {2: "two", 3: "three"}.get(ncols, str(ncols))
        raise ValueError(f"ax must hold {count} Axes, got {axes.shape[0]}.")
    return axes, axes[0].figure


def _check_square(graph, name):
    if sparse.issparse(graph):
        graph = graph.toarray()
    else:
        try:
            import networkx as nx
        except ImportError:
            nx = None
        if nx is not None and isinstance(graph, nx.Graph):
            graph = nx.to_numpy_array(graph, weight="weight")
    graph = np.asarray(graph, dtype=np.float64)
    if graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {graph.shape}.")
    if not np.all(np.isfinite(graph)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return graph

