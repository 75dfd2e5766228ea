"""Shared pieces of the displays: matplotlib imported lazily, with a clear
error when it is missing, and the check of a square weight matrix."""

import numpy as np
from scipy import sparse


def _import_pyplot(caller):
    """Import matplotlib.pyplot, or explain how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised by monkeypatching
        raise ImportError(
            f"{caller} needs matplotlib, which is not installed: "
            'pip install "skfed[plot]"'
        ) from exc
    return plt


def _get_ax(ax, caller):
    plt = _import_pyplot(caller)
    if ax is None:
        _, ax = plt.subplots()
    return ax


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

