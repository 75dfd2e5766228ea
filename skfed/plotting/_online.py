"""Model order and consensus error over the stream (:mod:`skfed.online`)."""

import numpy as np

from ._base import _check_fitted_with, _get_ax


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
        _check_fitted_with(estimator, ["model_order_curve_", "consensus_error_curve_"],
                           "OnlineLearningDisplay",
                           "DecentralizedKernelSGDClassifier and Regressor record them")
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
        axes, figure = _get_ax(ax, "OnlineLearningDisplay", ncols=2, figsize=(10, 3.8))
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
        self.axes_, self.figure_ = axes, figure
        return self

