"""A weighted collaboration graph (:mod:`skfed.boosting`, :mod:`skfed.graph`)
and the 2-D layouts it is drawn with."""

import numpy as np
from scipy import linalg, sparse
from sklearn.base import is_classifier

from .._extras import install_hint
from ._base import _check_fitted_with, _check_square, _get_ax


def _spectral_layout(weights):
    """Eigenvectors 2 and 3 of the normalized Laplacian of a connected graph."""
    n = weights.shape[0]
    if n <= 2:
        return np.column_stack([np.linspace(-1.0, 1.0, n), np.zeros(n)])
    degree = weights.sum(axis=1)
    inv_sqrt = 1.0 / np.sqrt(degree)
    laplacian = np.eye(n) - inv_sqrt[:, None] * weights * inv_sqrt[None, :]
    _, vectors = linalg.eigh(laplacian)
    return vectors[:, 1:3] * inv_sqrt[:, None]


def _spring_layout(weights, random_state):
    import networkx as nx

    n = weights.shape[0]
    if n <= 2:
        return _spectral_layout(weights)
    pos = nx.spring_layout(nx.from_numpy_array(weights), weight="weight", seed=random_state)
    return np.array([pos[i] for i in range(n)], dtype=np.float64)


def _circular_layout(weights):
    """Nodes on a circle, each connected component on one arc."""
    n = weights.shape[0]
    _, labels = sparse.csgraph.connected_components(sparse.csr_matrix(weights > 0),
                                                    directed=False)
    order = np.argsort(labels, kind="stable")
    angles = np.empty(n)
    angles[order] = 2 * np.pi * np.arange(n) / n
    return np.column_stack([np.cos(angles), np.sin(angles)])


def _by_components(weights, layout_one):
    """Lay out every connected component on its own, side by side on a grid.

    Each component is centred, scaled to a disc whose radius grows like the
    square root of its size, and put in its own cell (largest first);
    isolated nodes share one cell, on a small circle.
    """
    n = weights.shape[0]
    n_components, labels = sparse.csgraph.connected_components(
        sparse.csr_matrix(weights > 0), directed=False
    )
    if n_components == 1:
        return layout_one(weights)
    sizes = np.bincount(labels)
    groups = [np.flatnonzero(labels == c) for c in np.argsort(-sizes, kind="stable")
              if sizes[c] > 1]
    isolated = np.flatnonzero(sizes[labels] == 1)
    biggest = max([len(idx) for idx in groups] + [1])
    cells = groups + ([isolated] if len(isolated) else [])
    n_cols = int(np.ceil(np.sqrt(len(cells))))
    pos = np.zeros((n, 2))
    for rank, idx in enumerate(cells):
        if idx is isolated or len(idx) == 1:
            angles = 2 * np.pi * np.arange(len(idx)) / max(len(idx), 1)
            local = np.column_stack([np.cos(angles), np.sin(angles)])
            if len(idx) == 1:
                local[:] = 0.0
        else:
            local = layout_one(weights[np.ix_(idx, idx)])
        local = local - local.mean(axis=0)
        radius = np.abs(local).max()
        if radius > 0:
            local = local / radius
        local *= 0.42 * np.sqrt(len(idx) / biggest)
        row, col = divmod(rank, n_cols)
        pos[idx] = local + np.array([col, -row], dtype=np.float64)
    return pos


def graph_layout(graph, *, layout="auto", random_state=0):
    """2-D positions of the nodes of a weighted graph.

    Parameters
    ----------
    graph : array-like, sparse matrix or networkx graph of shape (n_nodes, n_nodes)
        Symmetric non-negative weights.
    layout : {"auto", "spring", "spectral", "circular"}, default="auto"
        ``"spring"``: networkx's force-directed
        :func:`~networkx.drawing.layout.spring_layout` (weights pull nodes
        together; needs networkx).  ``"spectral"``: eigenvectors 2 and 3 of
        the normalized Laplacian, computed with scipy.  Both lay out every
        connected component on its own and put the components side by
        side on a grid (largest first; isolated nodes share one cell), so
        that clusters stay readable.  ``"circular"``: the nodes on one
        circle, every connected component on its own arc.  ``"auto"``:
        ``"spring"`` when networkx is installed, ``"spectral"`` otherwise.
    random_state : int, default=0
        Seed of the spring layout.

    Returns
    -------
    pos : ndarray of shape (n_nodes, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.plotting import graph_layout
    >>> ring = np.roll(np.eye(6), 1, axis=1) + np.roll(np.eye(6), -1, axis=1)
    >>> graph_layout(ring, layout="circular").shape
    (6, 2)
    """
    weights = _check_square(graph, "graph")
    weights = np.abs(0.5 * (weights + weights.T))
    np.fill_diagonal(weights, 0.0)
    n = weights.shape[0]
    if layout not in ("auto", "spring", "spectral", "circular"):
        raise ValueError(
            f"layout must be 'auto', 'spring', 'spectral', 'circular' or an array "
            f"of positions, got {layout!r}."
        )
    if n == 1:
        return np.zeros((1, 2))
    if layout == "circular":
        return _circular_layout(weights)
    if layout in ("auto", "spring"):
        try:
            import networkx  # noqa: F401
        except ImportError as exc:
            if layout == "spring":
                raise ImportError(
                    'layout="spring" needs networkx, which is not installed: '
                    + install_hint("graph")
                ) from exc
            layout = "spectral"
        else:
            return _by_components(weights, lambda w: _spring_layout(w, random_state))
    return _by_components(weights, _spectral_layout)


def _per_node_loss(estimator, X, y, groups):
    """0-1 loss (classifiers) or mean squared error of every node on (X, y)."""
    nodes = np.asarray(estimator.nodes_)
    groups = np.asarray(groups)
    y = np.asarray(y)
    y_pred = np.asarray(estimator.predict(X, groups=groups))
    losses = np.full(len(nodes), np.nan)
    for k, node in enumerate(nodes):
        mask = groups == node
        if not mask.any():
            continue
        if is_classifier(estimator):
            losses[k] = float(np.mean(y_pred[mask] != y[mask]))
        else:
            losses[k] = float(np.mean((y_pred[mask] - y[mask]) ** 2))
    return losses


class CollaborationGraphDisplay:
    """A weighted collaboration graph: node size = confidence, colour = local loss.

    The picture of Dada's Figure 2 (Zantedeschi, Bellet & Tommasi, AISTATS
    2020): every node is a disc whose area grows with its confidence
    ``c_k`` (its share of the data), coloured by its local loss; every
    edge is a segment whose width grows with its weight ``w_kl``.

    Use :meth:`from_estimator` on a fitted
    :class:`~skfed.boosting.DecentralizedBoostingClassifier`,
    :class:`~skfed.boosting.PersonalizedLinearClassifier` or
    :class:`~skfed.graph.CollaborationGraphLearner`, or :meth:`from_graph`
    on any weighted graph (for instance the oracle graph of
    :func:`~skfed.datasets.make_rotated_moons`).  Pass the ``pos_`` of one
    display as ``layout`` of another to draw two graphs over the same
    nodes at the same places.

    Parameters
    ----------
    graph : ndarray of shape (n_nodes, n_nodes)
        Symmetric non-negative weights.
    confidence : ndarray of shape (n_nodes,), default=None
        Node sizes (None: all equal).
    node_loss : ndarray of shape (n_nodes,), default=None
        Node colours (None: one colour).
    node_labels : array-like of shape (n_nodes,), default=None
    pos : ndarray of shape (n_nodes, 2), default=None
        Node positions; None: computed by :func:`graph_layout` at plot time.

    Attributes
    ----------
    pos_ : ndarray of shape (n_nodes, 2)
        The positions used.
    edge_list_ : ndarray of shape (n_edges, 2)
        The drawn edges ``(k, l)``, ``k < l``, with ``graph[k, l] > 0``.
    edge_weights_ : ndarray of shape (n_edges,)
    nodes_ : matplotlib.collections.PathCollection
        The node discs (``get_offsets()`` are ``pos_``, ``get_sizes()`` the
        areas, ``get_array()`` the losses).
    edges_ : matplotlib.collections.LineCollection
    colorbar_ : matplotlib.colorbar.Colorbar or None
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skfed.plotting import CollaborationGraphDisplay
    >>> graph = np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]], dtype=float)
    >>> disp = CollaborationGraphDisplay.from_graph(
    ...     graph, confidence=[1.0, 0.5, 0.25], node_loss=[0.1, 0.2, 0.3], layout="circular")
    >>> disp.edge_list_.tolist(), disp.edge_weights_.tolist()
    ([[0, 1], [1, 2]], [1.0, 2.0])
    """

    def __init__(self, graph, *, confidence=None, node_loss=None, node_labels=None, pos=None):
        self.graph = graph
        self.confidence = confidence
        self.node_loss = node_loss
        self.node_labels = node_labels
        self.pos = pos

    @classmethod
    def from_estimator(cls, estimator, X=None, y=None, groups=None, *, node_loss=None,
                       layout="auto", ax=None, node_size=300.0, edge_width=4.0,
                       cmap="viridis", colorbar=True, title=None):
        """Draw the ``collaboration_graph_`` of a fitted estimator.

        Parameters
        ----------
        estimator : fitted estimator with ``collaboration_graph_``
            Node sizes come from its ``confidence_`` (all equal without it).
        X, y, groups : array-like, default=None
            Data to compute the local loss of every node on: the 0-1 loss
            (error rate) of ``estimator.predict(X, groups=groups)`` for a
            classifier, the mean squared error for a regressor, per node of
            ``nodes_`` (NaN, drawn grey, for nodes absent from ``groups``).
            Pass the training data for the training loss, held-out data
            for the test loss.
        node_loss : array-like of shape (n_nodes,), default=None
            The losses themselves, in the order of ``nodes_`` (instead of
            ``X, y, groups``).
        layout : {"auto", "spring", "spectral", "circular"} or ndarray of shape (n_nodes, 2), default="auto"
            See :func:`graph_layout`; an array gives the positions.
        ax, node_size, edge_width, cmap, colorbar, title
            See :meth:`plot`.

        Returns
        -------
        CollaborationGraphDisplay
        """
        _check_fitted_with(estimator, "collaboration_graph_", "CollaborationGraphDisplay",
                           "Dada, Perso-lin, the online kernel learners and "
                           "CollaborationGraphLearner learn one")
        graph = _check_square(estimator.collaboration_graph_, "collaboration_graph_")
        n = graph.shape[0]
        confidence = getattr(estimator, "confidence_", None)
        if node_loss is None and X is not None:
            if y is None or groups is None:
                raise ValueError("To compute the local losses pass X, y and groups together.")
            node_loss = _per_node_loss(estimator, X, y, groups)
        labels = getattr(estimator, "nodes_", np.arange(n))
        disp = cls(graph, confidence=confidence, node_loss=node_loss, node_labels=labels,
                   pos=cls._positions(graph, layout))
        return disp.plot(ax=ax, node_size=node_size, edge_width=edge_width, cmap=cmap,
                         colorbar=colorbar, title=title)

    @classmethod
    def from_graph(cls, graph, *, confidence=None, node_loss=None, node_labels=None,
                   layout="auto", ax=None, node_size=300.0, edge_width=4.0,
                   cmap="viridis", colorbar=True, title=None):
        """Draw a weighted graph given as an array, sparse matrix or networkx graph.

        Parameters
        ----------
        graph : array-like, sparse matrix or networkx graph of shape (n_nodes, n_nodes)
        confidence, node_loss : array-like of shape (n_nodes,), default=None
        node_labels : array-like of shape (n_nodes,), default=None
        layout : {"auto", "spring", "spectral", "circular"} or ndarray of shape (n_nodes, 2), default="auto"
        ax, node_size, edge_width, cmap, colorbar, title
            See :meth:`plot`.

        Returns
        -------
        CollaborationGraphDisplay
        """
        graph = _check_square(graph, "graph")
        disp = cls(graph, confidence=confidence, node_loss=node_loss,
                   node_labels=node_labels, pos=cls._positions(graph, layout))
        return disp.plot(ax=ax, node_size=node_size, edge_width=edge_width, cmap=cmap,
                         colorbar=colorbar, title=title)

    @staticmethod
    def _positions(graph, layout):
        if isinstance(layout, str):
            return graph_layout(graph, layout=layout)
        pos = np.asarray(layout, dtype=np.float64)
        if pos.shape != (graph.shape[0], 2):
            raise ValueError(
                f"layout positions must have shape ({graph.shape[0]}, 2), got {pos.shape}."
            )
        return pos

    def plot(self, *, ax=None, node_size=300.0, edge_width=4.0, cmap="viridis",
             colorbar=True, title=None):
        """Draw the graph.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        node_size : float, default=300
            Area (points^2) of the node of largest confidence; the others
            are proportional to their confidence.
        edge_width : float, default=4
            Width of the heaviest edge; the others are proportional to their
            weight.
        cmap : str or Colormap, default="viridis"
            Colour map of the local losses.
        colorbar : bool, default=True
            Add a colour bar (when losses are given).
        title : str, default=None

        Returns
        -------
        self
        """
        ax, figure = _get_ax(ax, "CollaborationGraphDisplay")
        from matplotlib.collections import LineCollection

        graph = _check_square(self.graph, "graph")
        n = graph.shape[0]
        pos = self.pos if self.pos is not None else graph_layout(graph)
        pos = np.asarray(pos, dtype=np.float64)
        confidence = (np.ones(n) if self.confidence is None
                      else np.asarray(self.confidence, dtype=np.float64))
        if confidence.shape != (n,):
            raise ValueError(f"confidence must have shape ({n},), got {confidence.shape}.")
        top = confidence.max() if n and confidence.max() > 0 else 1.0
        sizes = node_size * confidence / top

        weights = np.triu(0.5 * (graph + graph.T), k=1)
        rows, cols = np.nonzero(weights > 0)
        self.edge_list_ = np.column_stack([rows, cols]).astype(np.intp)
        self.edge_weights_ = weights[rows, cols]
        heaviest = self.edge_weights_.max() if len(rows) else 1.0
        segments = np.stack([pos[rows], pos[cols]], axis=1) if len(rows) else np.zeros((0, 2, 2))
        self.edges_ = LineCollection(
            segments, linewidths=edge_width * self.edge_weights_ / heaviest,
            colors="0.45", alpha=0.6, zorder=1,
        )
        ax.add_collection(self.edges_)

        self.colorbar_ = None
        if self.node_loss is None:
            self.nodes_ = ax.scatter(pos[:, 0], pos[:, 1], s=sizes, c="C0",
                                     edgecolors="k", linewidths=0.5, zorder=2)
        else:
            loss = np.asarray(self.node_loss, dtype=np.float64)
            if loss.shape != (n,):
                raise ValueError(f"node_loss must have shape ({n},), got {loss.shape}.")
            self.nodes_ = ax.scatter(pos[:, 0], pos[:, 1], s=sizes, c=loss, cmap=cmap,
                                     plotnonfinite=True, edgecolors="k", linewidths=0.5,
                                     zorder=2)
            if colorbar:
                self.colorbar_ = figure.colorbar(self.nodes_, ax=ax, label="local loss")
        self.pos_ = pos
        ax.set_aspect("equal", adjustable="datalim")
        ax.autoscale_view()
        ax.set_xticks([])
        ax.set_yticks([])
        if title is not None:
            ax.set_title(title)
        self.ax_, self.figure_ = ax, figure
        return self

