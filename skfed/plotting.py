"""Pictures of fitted skfed estimators, in scikit-learn's ``Display`` style.

Every display is built by a ``from_*`` class method (``from_estimator``
reads a fitted estimator's attributes; the others take plain arrays), which
draws it and returns it; :meth:`plot` draws it again, on a given ``ax``.
The drawn matplotlib objects and the data behind them stay on the display
(``ax_``, ``figure_`` and one attribute per artist), as in
:class:`sklearn.metrics.RocCurveDisplay`.

=====================================  =============================================
display                                what it shows
=====================================  =============================================
:class:`TaskRelationshipDisplay`       the learned ``omega_`` (or
                                       ``task_covariance_``) of
                                       :mod:`skfed.multitask` as a heat map, nodes
                                       ordered by hierarchical clustering
:class:`CollaborationGraphDisplay`     a collaboration graph
                                       (:mod:`skfed.boosting`, :mod:`skfed.graph`,
                                       or any weighted graph): node size =
                                       confidence, colour = local loss
:class:`CommunicationCurveDisplay`     objective, duality gap or consensus error
                                       (or any score) against the bytes sent
:class:`OnlineLearningDisplay`         model order and consensus error over the
                                       stream (:mod:`skfed.online`)
:class:`PhaseTransitionDisplay`        probability of exact support recovery
                                       against samples or clients
                                       (:mod:`skfed.support`)
=====================================  =============================================

matplotlib is imported only when something is drawn; without it, drawing
raises an :class:`ImportError` that says ``pip install "skfed[plot]"``.  The
collaboration-graph layout uses networkx when it is installed and a spectral
or circular layout computed with scipy otherwise.
"""

import json
import numbers
from os import PathLike

import numpy as np
from scipy import linalg, sparse
from scipy.cluster import hierarchy
from scipy.spatial.distance import squareform
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "TaskRelationshipDisplay",
    "CollaborationGraphDisplay",
    "CommunicationCurveDisplay",
    "OnlineLearningDisplay",
    "PhaseTransitionDisplay",
    "cluster_order",
    "graph_layout",
]


# ------------------------------------------------------------------ helpers
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


def _correlation(matrix):
    """``m_ij / sqrt(m_ii m_jj)`` of a symmetric matrix with a positive diagonal."""
    diag = np.sqrt(np.clip(np.diag(matrix), np.finfo(float).tiny, None))
    return matrix / diag[:, None] / diag[None, :]


def cluster_order(matrix, *, kind="covariance", method="average"):
    """Order of the nodes that puts related nodes next to each other.

    The nodes are clustered hierarchically (:func:`scipy.cluster.hierarchy.linkage`
    with ``optimal_ordering=True``) on the distance ``1 - r_tu``, where
    ``r_tu`` is the correlation between tasks t and u read off ``matrix``:
    ``sigma_tu / sqrt(sigma_tt sigma_uu)`` for a task covariance ``Sigma``,
    and the partial correlation ``-omega_tu / sqrt(omega_tt omega_uu)`` for
    a precision matrix ``Omega``.

    Parameters
    ----------
    matrix : array-like of shape (n_nodes, n_nodes)
        Symmetric, with a positive diagonal.
    kind : {"covariance", "omega"}, default="covariance"
        What ``matrix`` is.
    method : str, default="average"
        Linkage method (see :func:`scipy.cluster.hierarchy.linkage`).

    Returns
    -------
    order : ndarray of shape (n_nodes,)
        A permutation of ``range(n_nodes)``: the leaves of the dendrogram
        from left to right.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.plotting import cluster_order
    >>> sigma = np.array([[1.0, 0.0, 0.9], [0.0, 1.0, 0.0], [0.9, 0.0, 1.0]])
    >>> order = cluster_order(sigma)
    >>> bool(abs(int(np.flatnonzero(order == 0)[0]) - int(np.flatnonzero(order == 2)[0])) == 1)
    True
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"matrix must be square, got shape {matrix.shape}.")
    if kind not in ("covariance", "omega"):
        raise ValueError(f"kind must be 'covariance' or 'omega', got {kind!r}.")
    n = matrix.shape[0]
    if n <= 2:
        return np.arange(n)
    corr = _correlation(0.5 * (matrix + matrix.T))
    if kind == "omega":
        corr = -corr
    dist = np.clip(1.0 - corr, 0.0, 2.0)
    np.fill_diagonal(dist, 0.0)
    link = hierarchy.linkage(squareform(dist, checks=False), method=method,
                             optimal_ordering=True)
    return hierarchy.leaves_list(link).astype(np.intp)


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
                    'pip install "skfed[graph]"'
                ) from exc
            layout = "spectral"
        else:
            return _by_components(weights, lambda w: _spring_layout(w, random_state))
    return _by_components(weights, _spectral_layout)


def _node_tick_labels(ax, labels, order, axis_len, max_ticks=30):
    """Node labels as ticks, thinned to at most ``max_ticks``."""
    step = max(1, int(np.ceil(axis_len / max_ticks)))
    ticks = np.arange(0, axis_len, step)
    names = [str(labels[order[t]]) for t in ticks]
    ax.set_xticks(ticks)
    ax.set_xticklabels(names, rotation=90, fontsize="small")
    ax.set_yticks(ticks)
    ax.set_yticklabels(names, fontsize="small")


# -------------------------------------------------------- task relationship
class TaskRelationshipDisplay:
    """Heat map of a task-relationship matrix, nodes ordered by clusters.

    Use :meth:`from_estimator` on a fitted
    :class:`~skfed.multitask.FederatedMultiTaskClassifier` or
    :class:`~skfed.multitask.FederatedMultiTaskRegressor`, or
    :meth:`from_matrix` on any symmetric matrix.  The rows and columns are
    permuted by ``order`` (by default :func:`cluster_order`, so that nodes
    whose tasks are related sit in blocks along the diagonal); the image is
    exactly ``matrix[order][:, order]``.

    Parameters
    ----------
    matrix : ndarray of shape (n_nodes, n_nodes)
        The matrix, rows in the order of ``node_labels``.
    order : ndarray of shape (n_nodes,), default=None
        Display order of the nodes; None keeps the given order.
    node_labels : array-like of shape (n_nodes,), default=None
        Tick labels (``nodes_`` of the estimator); None means ``0..n-1``.
    kind : {"omega", "covariance", "correlation"}, default="omega"
        What the matrix is, for the title and colour-bar label.

    Attributes
    ----------
    image_ : ndarray of shape (n_nodes, n_nodes)
        ``matrix[order][:, order]``, the drawn array.
    im_ : matplotlib.image.AxesImage
    colorbar_ : matplotlib.colorbar.Colorbar or None
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure

    See Also
    --------
    cluster_order : the default order.
    skfed.multitask.FederatedMultiTaskClassifier : learns ``omega_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskClassifier
    >>> from skfed.plotting import TaskRelationshipDisplay
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(120, 2)); groups = np.repeat([0, 1, 2], 40)
    >>> y = (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int)
    >>> clf = FederatedMultiTaskClassifier(kernel="linear", C=0.1, random_state=0)
    >>> clf = clf.fit(X, y, groups=groups)
    >>> disp = TaskRelationshipDisplay.from_estimator(clf)
    >>> np.array_equal(disp.image_, clf.omega_[disp.order][:, disp.order])
    True
    """

    _KINDS = {
        "omega": ("Task relationship Omega", "Omega"),
        "covariance": ("Task covariance Sigma = Omega^-1", "Sigma"),
        "correlation": ("Task correlation", "correlation"),
    }

    def __init__(self, matrix, *, order=None, node_labels=None, kind="omega"):
        self.matrix = matrix
        self.order = order
        self.node_labels = node_labels
        self.kind = kind

    @classmethod
    def from_estimator(cls, estimator, *, kind="omega", order="cluster", ax=None,
                       cmap="RdBu_r", vmax=None, colorbar=True, title=None):
        """Draw the ``omega_`` (or task covariance) of a fitted multi-task estimator.

        Parameters
        ----------
        estimator : fitted estimator with ``omega_`` and ``task_covariance_``
        kind : {"omega", "covariance", "correlation"}, default="omega"
            ``"omega"``: ``omega_``; ``"covariance"``: ``task_covariance_``
            (``Sigma = Omega^{-1}``); ``"correlation"``: ``Sigma`` scaled to a
            unit diagonal, ``sigma_tu / sqrt(sigma_tt sigma_uu)``.
        order : {"cluster", None} or array-like of shape (n_nodes,), default="cluster"
            ``"cluster"``: :func:`cluster_order` of ``task_covariance_``
            (the same order whatever ``kind``); None: the order of
            ``nodes_``; or an explicit permutation.
        ax, cmap, vmax, colorbar, title
            See :meth:`plot`.

        Returns
        -------
        TaskRelationshipDisplay
        """
        check_is_fitted(estimator, ["omega_", "task_covariance_"])
        sigma = np.asarray(estimator.task_covariance_, dtype=np.float64)
        matrix = cls._matrix_of(estimator, kind)
        if isinstance(order, str) and order == "cluster":
            order = cluster_order(sigma, kind="covariance")
        labels = getattr(estimator, "nodes_", None)
        disp = cls(matrix, order=order, node_labels=labels, kind=kind)
        return disp.plot(ax=ax, cmap=cmap, vmax=vmax, colorbar=colorbar, title=title)

    @classmethod
    def from_matrix(cls, matrix, *, kind="omega", order="cluster", node_labels=None,
                    ax=None, cmap="RdBu_r", vmax=None, colorbar=True, title=None):
        """Draw a task-relationship matrix given as an array.

        Parameters
        ----------
        matrix : array-like of shape (n_nodes, n_nodes)
        kind : {"omega", "covariance", "correlation"}, default="omega"
            What ``matrix`` is (decides how :func:`cluster_order` reads it:
            a precision matrix for ``"omega"``, a covariance otherwise).
        order : {"cluster", None} or array-like of shape (n_nodes,), default="cluster"
        node_labels : array-like of shape (n_nodes,), default=None
        ax, cmap, vmax, colorbar, title
            See :meth:`plot`.

        Returns
        -------
        TaskRelationshipDisplay
        """
        matrix = _check_square(matrix, "matrix")
        if kind not in cls._KINDS:
            raise ValueError(f"kind must be one of {sorted(cls._KINDS)}, got {kind!r}.")
        if isinstance(order, str) and order == "cluster":
            order = cluster_order(matrix, kind="omega" if kind == "omega" else "covariance")
        disp = cls(matrix, order=order, node_labels=node_labels, kind=kind)
        return disp.plot(ax=ax, cmap=cmap, vmax=vmax, colorbar=colorbar, title=title)

    @classmethod
    def _matrix_of(cls, estimator, kind):
        if kind == "omega":
            return np.asarray(estimator.omega_, dtype=np.float64)
        sigma = np.asarray(estimator.task_covariance_, dtype=np.float64)
        if kind == "covariance":
            return sigma
        if kind == "correlation":
            return _correlation(sigma)
        raise ValueError(f"kind must be one of {sorted(cls._KINDS)}, got {kind!r}.")

    def plot(self, *, ax=None, cmap="RdBu_r", vmax=None, colorbar=True, title=None):
        """Draw the heat map.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        cmap : str or Colormap, default="RdBu_r"
            A diverging colour map, centred at zero.
        vmax : float, default=None
            The colour scale is ``[-vmax, vmax]``.  None: the largest
            absolute off-diagonal entry, so the off-diagonal structure uses
            the whole scale (a dominant diagonal saturates).
        colorbar : bool, default=True
        title : str, default=None
            None: a title naming the matrix.

        Returns
        -------
        self
        """
        ax = _get_ax(ax, "TaskRelationshipDisplay")
        matrix = np.asarray(self.matrix, dtype=np.float64)
        n = matrix.shape[0]
        order = np.arange(n) if self.order is None else np.asarray(self.order, dtype=np.intp)
        if sorted(order.tolist()) != list(range(n)):
            raise ValueError(f"order must be a permutation of range({n}).")
        labels = np.arange(n) if self.node_labels is None else np.asarray(self.node_labels)
        if len(labels) != n:
            raise ValueError(f"node_labels has {len(labels)} entries for {n} nodes.")
        image = matrix[order][:, order]
        if vmax is None:
            off = np.abs(image[~np.eye(n, dtype=bool)]) if n > 1 else np.abs(image).ravel()
            vmax = float(off.max()) if off.size and off.max() > 0 else 1.0
        self.image_ = image
        self.im_ = ax.imshow(image, cmap=cmap, vmin=-vmax, vmax=vmax,
                             interpolation="nearest")
        _node_tick_labels(ax, labels, order, n)
        ax.set_xlabel("node")
        ax.set_ylabel("node")
        name, short = self._KINDS.get(self.kind, (str(self.kind), str(self.kind)))
        ax.set_title(name if title is None else title)
        self.colorbar_ = ax.figure.colorbar(self.im_, ax=ax, label=short) if colorbar else None
        self.ax_ = ax
        self.figure_ = ax.figure
        return self


# ------------------------------------------------------- collaboration graph
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
        check_is_fitted(estimator, "collaboration_graph_")
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
        ax = _get_ax(ax, "CollaborationGraphDisplay")
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
                self.colorbar_ = ax.figure.colorbar(self.nodes_, ax=ax, label="local loss")
        self.pos_ = pos
        ax.set_aspect("equal", adjustable="datalim")
        ax.autoscale_view()
        ax.set_xticks([])
        ax.set_yticks([])
        if title is not None:
            ax.set_title(title)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self


# ------------------------------------------------------ communication curve
_CURVES = {
    "objective": ("objective_curve_", "objective"),
    "duality_gap": ("duality_gap_curve_", "duality gap"),
    "dual_objective": ("dual_objective_curve_", "dual objective"),
    "consensus_error": ("consensus_error_curve_", "consensus error"),
}


class CommunicationCurveDisplay:
    """A convergence curve (or any score) against the bytes communicated.

    :meth:`from_estimator` plots one of the estimator's curves
    (``objective_curve_``, ``duality_gap_curve_``, ``dual_objective_curve_``
    or ``consensus_error_curve_``, one value per round) against the
    cumulative bytes sent, ``np.cumsum(bytes_per_round_)``.  The constructor
    takes any pair of arrays, for instance the test accuracy of several fits
    against their ``n_bytes_sent_``.

    Parameters
    ----------
    bytes_sent : array-like of shape (n_points,)
    values : array-like of shape (n_points,)
    ylabel : str, default="score"
    name : str, default=None
        Legend label.

    Attributes
    ----------
    line_ : matplotlib.lines.Line2D
        ``get_xdata()`` is ``bytes_sent``, ``get_ydata()`` is ``values``
        (points with a NaN value are left out).
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskClassifier
    >>> from skfed.plotting import CommunicationCurveDisplay
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(90, 2)); groups = np.repeat([0, 1, 2], 30)
    >>> y = (X[:, 0] > 0).astype(int)
    >>> clf = FederatedMultiTaskClassifier(kernel="linear", C=0.1,
    ...                                    random_state=0).fit(X, y, groups=groups)
    >>> disp = CommunicationCurveDisplay.from_estimator(clf, curve="duality_gap")
    >>> np.array_equal(disp.line_.get_xdata(), np.cumsum(clf.bytes_per_round_))
    True
    """

    def __init__(self, bytes_sent, values, *, ylabel="score", name=None):
        self.bytes_sent = bytes_sent
        self.values = values
        self.ylabel = ylabel
        self.name = name

    @classmethod
    def from_estimator(cls, estimator, *, curve="auto", ax=None, name=None, yscale=None,
                       xscale="linear", **kwargs):
        """Plot a convergence curve of a fitted estimator against the bytes sent.

        Parameters
        ----------
        estimator : fitted skfed estimator
        curve : {"auto", "objective", "duality_gap", "dual_objective", "consensus_error"}, default="auto"
            Which ``<curve>_curve_`` attribute; ``"auto"`` takes the first
            one the estimator has, in the order duality gap, consensus
            error, objective.
        ax : matplotlib Axes, default=None
        name : str, default=None
            Legend label (None: the estimator's class name).
        yscale : str, default=None
            None: ``"log"`` for the duality gap and the consensus error,
            ``"linear"`` otherwise.
        xscale : str, default="linear"
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        CommunicationCurveDisplay
        """
        check_is_fitted(estimator, "bytes_per_round_")
        if curve == "auto":
            for candidate in ("duality_gap", "consensus_error", "objective"):
                if hasattr(estimator, _CURVES[candidate][0]):
                    curve = candidate
                    break
            else:
                raise ValueError(
                    f"{type(estimator).__name__} has none of the curves "
                    f"{[c[0] for c in _CURVES.values()]}."
                )
        if curve not in _CURVES:
            raise ValueError(f"curve must be 'auto' or one of {sorted(_CURVES)}, got {curve!r}.")
        attr, label = _CURVES[curve]
        if not hasattr(estimator, attr):
            raise ValueError(f"{type(estimator).__name__} has no attribute {attr}.")
        values = np.asarray(getattr(estimator, attr), dtype=np.float64)
        per_round = np.asarray(estimator.bytes_per_round_, dtype=np.int64)
        if values.shape != per_round.shape:
            raise ValueError(
                f"{attr} has shape {values.shape} but bytes_per_round_ has shape "
                f"{per_round.shape}; they must be aligned round by round."
            )
        if yscale is None:
            yscale = "log" if curve in ("duality_gap", "consensus_error") else "linear"
        disp = cls(np.cumsum(per_round), values, ylabel=label,
                   name=type(estimator).__name__ if name is None else name)
        return disp.plot(ax=ax, yscale=yscale, xscale=xscale, **kwargs)

    def plot(self, *, ax=None, name=None, yscale="linear", xscale="linear", **kwargs):
        """Draw the curve.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        name : str, default=None
            Legend label (None: ``self.name``).
        yscale, xscale : str, default="linear"
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        self
        """
        ax = _get_ax(ax, "CommunicationCurveDisplay")
        x = np.asarray(self.bytes_sent, dtype=np.float64)
        y = np.asarray(self.values, dtype=np.float64)
        if x.shape != y.shape or x.ndim != 1:
            raise ValueError(
                f"bytes_sent and values must be 1-d arrays of the same length, got "
                f"shapes {x.shape} and {y.shape}."
            )
        keep = np.isfinite(y)
        if yscale == "log":
            keep &= y > 0
        label = self.name if name is None else name
        (self.line_,) = ax.plot(x[keep], y[keep], label=label, **kwargs)
        ax.set_xscale(xscale)
        ax.set_yscale(yscale)
        ax.set_xlabel("bytes sent")
        ax.set_ylabel(self.ylabel)
        if label is not None:
            ax.legend()
        self.ax_ = ax
        self.figure_ = ax.figure
        return self


# ---------------------------------------------------------------- online
class OnlineLearningDisplay:
    """Model order and consensus error over the stream (decentralized online learning).

    Two panels against the synchronous rounds (one sample per node per
    round): the dictionary size of every node (thin lines) and their mean
    (bold), bounded by KOMP; and the consensus error (mean squared
    disagreement ``(f_i(x_i) - f_j(x_i))^2`` over the exchanges of the
    round, log scale).

    Parameters
    ----------
    model_order : ndarray of shape (n_rounds, n_nodes)
    consensus_error : ndarray of shape (n_rounds,)
    node_labels : array-like of shape (n_nodes,), default=None

    Attributes
    ----------
    order_lines_ : list of matplotlib.lines.Line2D
        One per node (``get_ydata()`` is its column of ``model_order``).
    mean_line_ : matplotlib.lines.Line2D
        Mean model order over the nodes.
    consensus_line_ : matplotlib.lines.Line2D
        The consensus error (rounds without exchanges, NaN, left out).
    axes_ : ndarray of two matplotlib Axes
    figure_ : matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skfed.online import DecentralizedKernelSGDRegressor
    >>> from skfed.plotting import OnlineLearningDisplay
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, size=(90, 1)); groups = np.repeat([0, 1, 2], 30)
    >>> y = np.sin(X[:, 0])
    >>> reg = DecentralizedKernelSGDRegressor(gamma=1.0, max_epochs=2,
    ...                                       random_state=0).fit(X, y, groups=groups)
    >>> disp = OnlineLearningDisplay.from_estimator(reg)
    >>> np.array_equal(disp.order_lines_[0].get_ydata(), reg.model_order_curve_[:, 0])
    True
    """

    def __init__(self, model_order, consensus_error, *, node_labels=None):
        self.model_order = model_order
        self.consensus_error = consensus_error
        self.node_labels = node_labels

    @classmethod
    def from_estimator(cls, estimator, *, ax=None):
        """Draw the curves of a fitted :mod:`skfed.online` estimator.

        Parameters
        ----------
        estimator : fitted estimator with ``model_order_curve_`` and ``consensus_error_curve_``
        ax : array-like of two matplotlib Axes, default=None
            None makes a new figure with two panels side by side.

        Returns
        -------
        OnlineLearningDisplay
        """
        check_is_fitted(estimator, ["model_order_curve_", "consensus_error_curve_"])
        disp = cls(estimator.model_order_curve_, estimator.consensus_error_curve_,
                   node_labels=getattr(estimator, "nodes_", None))
        return disp.plot(ax=ax)

    def plot(self, *, ax=None):
        """Draw both panels.

        Parameters
        ----------
        ax : array-like of two matplotlib Axes, default=None

        Returns
        -------
        self
        """
        plt = _import_pyplot("OnlineLearningDisplay")
        if ax is None:
            _, ax = plt.subplots(1, 2, figsize=(10, 3.8))
        axes = np.ravel(np.asarray(ax, dtype=object))
        if axes.shape != (2,):
            raise ValueError(f"ax must hold two Axes, got {axes.shape[0]}.")
        order = np.asarray(self.model_order, dtype=np.float64)
        error = np.asarray(self.consensus_error, dtype=np.float64)
        if order.ndim != 2 or error.shape != (order.shape[0],):
            raise ValueError(
                f"model_order must be (n_rounds, n_nodes) and consensus_error "
                f"(n_rounds,); got {order.shape} and {error.shape}."
            )
        rounds = np.arange(1, order.shape[0] + 1)
        self.order_lines_ = [
            axes[0].plot(rounds, order[:, k], color="0.6", lw=0.6, alpha=0.7)[0]
            for k in range(order.shape[1])
        ]
        (self.mean_line_,) = axes[0].plot(rounds, order.mean(axis=1), color="C0", lw=2,
                                          label="mean over nodes")
        axes[0].set(xlabel="round (one sample per node)", ylabel="model order (dictionary size)",
                    title="Model order")
        axes[0].legend()
        keep = np.isfinite(error) & (error > 0)
        (self.consensus_line_,) = axes[1].plot(rounds[keep], error[keep], color="C1")
        axes[1].set_yscale("log")
        axes[1].set(xlabel="round (one sample per node)",
                    ylabel=r"mean $(f_i(x) - f_j(x))^2$", title="Consensus error")
        self.axes_ = axes
        self.figure_ = axes[0].figure
        return self


# ------------------------------------------------------- phase transition
class PhaseTransitionDisplay:
    """Probability of exact support recovery against a sample-size or client axis.

    Barik & Honorio's phase transitions: one curve per setting (e.g. per
    dimension d), the probability over independent problems that
    :class:`~skfed.support.FederatedSupportRecovery` recovers the support
    exactly, against ``C`` (``n_i = 10^C s^2 log s`` samples per client, or
    ``g = 10^C log d`` clients), a rogue fraction or a drop rate.

    Build it from the JSON that ``benchmarks/support_phase_transition.py``
    writes (:meth:`from_json`) or from arrays (:meth:`from_arrays`).

    Parameters
    ----------
    x : list of ndarray
        The abscissae of every curve.
    probabilities : list of ndarray
        The recovery probabilities of every curve (same lengths as ``x``).
    labels : list of str
        Curves whose labels share the text before the first comma (e.g.
        ``"d=100, fixed lambda"`` and ``"d=100, alpha='auto'"``) share a
        colour.
    xlabel : str, default="C"
    title : str, default=None
    linestyles : list of str, default=None
        Line style of every curve (None: all solid).  Dashed curves get
        ``"x"`` markers, the others ``"o"``.

    Attributes
    ----------
    lines_ : list of matplotlib.lines.Line2D
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skfed.plotting import PhaseTransitionDisplay
    >>> disp = PhaseTransitionDisplay.from_arrays(
    ...     [0.0, 0.5, 1.0], [[0.0, 0.4, 1.0], [0.0, 0.1, 0.9]], labels=["d=100", "d=1000"])
    >>> [line.get_ydata().tolist() for line in disp.lines_]
    [[0.0, 0.4, 1.0], [0.0, 0.1, 0.9]]
    """

    def __init__(self, x, probabilities, *, labels, xlabel="C", title=None, linestyles=None):
        self.x = x
        self.probabilities = probabilities
        self.labels = labels
        self.xlabel = xlabel
        self.title = title
        self.linestyles = linestyles

    @classmethod
    def from_arrays(cls, x, probabilities, *, labels=None, xlabel="C", title=None,
                    linestyles=None, ax=None, **kwargs):
        """Draw recovery probabilities given as arrays.

        Parameters
        ----------
        x : array-like of shape (n_points,) or list of such arrays
            One shared abscissa, or one per curve.
        probabilities : array-like of shape (n_curves, n_points) or list of arrays
        labels : list of str, default=None
        xlabel, title : str
        linestyles : list of str, default=None
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        PhaseTransitionDisplay
        """
        probs = _curves(probabilities)
        xs = _curves(x)
        if len(xs) == 1 and len(probs) > 1:
            xs = xs * len(probs)
        if len(xs) != len(probs):
            raise ValueError(f"{len(xs)} abscissae for {len(probs)} curves.")
        for k, (a, b) in enumerate(zip(xs, probs)):
            if a.shape != b.shape:
                raise ValueError(f"curve {k}: x has {a.size} points, probabilities {b.size}.")
            if np.any((b < 0) | (b > 1)):
                raise ValueError(f"curve {k}: probabilities must be in [0, 1].")
        labels = [f"curve {k}" for k in range(len(probs))] if labels is None else list(labels)
        if len(labels) != len(probs):
            raise ValueError(f"{len(labels)} labels for {len(probs)} curves.")
        if linestyles is not None and len(linestyles) != len(probs):
            raise ValueError(f"{len(linestyles)} linestyles for {len(probs)} curves.")
        disp = cls(xs, probs, labels=labels, xlabel=xlabel, title=title,
                   linestyles=linestyles)
        return disp.plot(ax=ax, **kwargs)

    @classmethod
    def from_json(cls, results, *, experiment="a", ax=None, **kwargs):
        """Draw one experiment of ``benchmarks/support_phase_transition.py``.

        Parameters
        ----------
        results : str, path-like or dict
            The JSON file the benchmark writes
            (``support_phase_transition.json``), or its content.
        experiment : {"a", "b", "rogue", "drop", "clients", "samples"}, default="a"
            ``"a"``: recovery against samples per client, one curve per
            dimension d with the fixed lambda (solid) and ``alpha="auto"``
            (dashed); ``"b"``: against the number of clients, one curve per
            support size s; ``"rogue"`` / ``"drop"``: against the fraction of
            rogue clients / the drop rate (experiment (c)); ``"clients"`` /
            ``"samples"``: the defaults (solid) and the former default's
            thresholds (dashed) against the number of clients (log scale) /
            the samples per client, one colour per design.
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        PhaseTransitionDisplay
        """
        if isinstance(results, (str, PathLike)):
            with open(results) as f:
                results = json.load(f)
        key = {"a": "a", "b": "b", "rogue": "c", "drop": "c", "clients": "clients",
               "samples": "samples"}.get(experiment)
        if key is None:
            raise ValueError(
                "experiment must be 'a', 'b', 'rogue', 'drop', 'clients' or 'samples', "
                f"got {experiment!r}."
            )
        if key not in results:
            raise ValueError(f"The results hold no experiment {key!r} (keys: {sorted(results)}).")
        part = results[key]
        xs, probs, labels, styles = [], [], [], []
        if experiment == "a":
            for d, c in part["curves"].items():
                for name, style in (("fixed_lambda", "-"), ("auto", "--")):
                    if name in c:
                        xs.append(c["C"])
                        probs.append(c[name])
                        tag = "fixed lambda" if name == "fixed_lambda" else "alpha='auto'"
                        labels.append(f"d={d}, g={c['g']}, {tag}")
                        styles.append(style)
            xlabel = r"C  ($n_i = 10^C s^2 \log s$, s = %s)" % part.get("s", "s")
            title = "Samples per client"
        elif experiment in ("clients", "samples"):
            for name, c in part["curves"].items():
                for which, style, tag in (("defaults", "-", "defaults"),
                                          ("former", "--", "former thresholds")):
                    if which in c:
                        xs.append(part["x"][: len(c[which])])
                        probs.append(c[which])
                        labels.append(f"{name}, {tag}")
                        styles.append(style)
            xlabel = part.get("xlabel", experiment)
            title = f"At the defaults (d={part.get('d')}, s={part.get('s')})"
        elif experiment == "b":
            for s, c in part["curves"].items():
                xs.append(c["C"])
                probs.append(c["fixed_lambda"])
                labels.append(f"s={s}, n_i={c['n_i']}")
                styles.append("-")
            xlabel = r"C  ($g = 10^C \log d$, d = %s)" % part.get("d", "d")
            title = "Number of clients"
        else:
            grid_key, curves_key, xlabel = (
                ("rogue_fraction", "rogue", "fraction of rogue clients")
                if experiment == "rogue" else ("drop_rate", "drop", "drop rate")
            )
            for name, prob in part[curves_key].items():
                xs.append(part[grid_key][: len(prob)])
                probs.append(prob)
                labels.append(name)
                styles.append("-")
            title = f"{'Rogue' if experiment == 'rogue' else 'Dropped'} clients " \
                    f"(g={part.get('g')}, d={part.get('d')})"
        disp = cls([np.asarray(v, dtype=np.float64) for v in xs],
                   [np.asarray(v, dtype=np.float64) for v in probs],
                   labels=labels, xlabel=xlabel, title=title, linestyles=styles)
        disp.plot(ax=ax, **kwargs)
        if experiment == "clients":
            disp.ax_.set_xscale("log")
        return disp

    def plot(self, *, ax=None, **kwargs):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        self
        """
        ax = _get_ax(ax, "PhaseTransitionDisplay")
        styles = self.linestyles or ["-"] * len(self.probabilities)
        self.lines_ = []
        colors = {}
        for x, p, label, style in zip(self.x, self.probabilities, self.labels, styles):
            group = label.split(",")[0]
            kw = {"marker": "o" if style == "-" else "x", "ls": style, "label": label}
            if group in colors:
                kw["color"] = colors[group]
            kw.update(kwargs)
            (line,) = ax.plot(x, p, **kw)
            colors.setdefault(group, line.get_color())
            self.lines_.append(line)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel("P(exact support recovery)")
        if self.title:
            ax.set_title(self.title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self


def _curves(values):
    """A list of 1-d float arrays: one curve, or one per row / list item."""
    if isinstance(values, np.ndarray):
        if values.ndim == 1:
            return [values.astype(np.float64)]
        return [np.asarray(row, dtype=np.float64).ravel() for row in values]
    values = list(values)
    if not values or isinstance(values[0], numbers.Number):
        return [np.asarray(values, dtype=np.float64)]
    return [np.asarray(v, dtype=np.float64).ravel() for v in values]
