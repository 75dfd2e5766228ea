"""A convergence curve (or any score) against the bytes communicated."""

import numpy as np

from ._base import _check_fitted_with, _get_ax


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
        _check_fitted_with(estimator, "bytes_per_round_", "CommunicationCurveDisplay",
                           "every estimator that communicates has it (a Local model sends nothing)")
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
        ax, figure = _get_ax(ax, "CommunicationCurveDisplay")
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
        self.ax_, self.figure_ = ax, figure
        return self

