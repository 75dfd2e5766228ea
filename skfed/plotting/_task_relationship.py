"""Heat map of a learned task-relationship matrix (:mod:`skfed.multitask`),
nodes ordered by hierarchical clustering."""

import numpy as np
from scipy.cluster import hierarchy
from scipy.spatial.distance import squareform

from ._base import _check_fitted_with, _check_square, _get_ax


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


def _node_tick_labels(ax, labels, order, axis_len, max_ticks=30):
    """Node labels as ticks, thinned to at most ``max_ticks``."""
    step = max(1, int(np.ceil(axis_len / max_ticks)))
    ticks = np.arange(0, axis_len, step)
    names = [str(labels[order[t]]) for t in ticks]
    ax.set_xticks(ticks)
    ax.set_xticklabels(names, rotation=90, fontsize="small")
    ax.set_yticks(ticks)
    ax.set_yticklabels(names, fontsize="small")


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
        _check_fitted_with(estimator, ["omega_", "task_covariance_"], "TaskRelationshipDisplay",
                           "FederatedMultiTaskClassifier and Regressor learn them")
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
        ax, figure = _get_ax(ax, "TaskRelationshipDisplay")
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
        self.colorbar_ = figure.colorbar(self.im_, ax=ax, label=short) if colorbar else None
        self.ax_, self.figure_ = ax, figure
        return self

