"""Probability of exact support recovery against samples or clients
(:mod:`skfed.support`)."""

import json
import numbers
from os import PathLike

import numpy as np

from ._base import _get_ax


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
        ax, figure = _get_ax(ax, "PhaseTransitionDisplay")
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
        self.ax_, self.figure_ = ax, figure
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
