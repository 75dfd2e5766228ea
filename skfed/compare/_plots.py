"""The two plots of ``skfed compare``: per-node scores, and score against bytes.

Drawn only when matplotlib is installed (a warning says how to get them
otherwise), with the Agg backend, into the output directory.
"""

import warnings
from pathlib import Path

import numpy as np

from .._extras import install_hint
from ._specs import _baseline_kind

def _plots(result, output_dir):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warnings.warn(
            "matplotlib is not installed, so node_scores.png and score_vs_bytes.png "
            f"were not written; {install_hint('plot')} for them, or pass --no-plots.",
            UserWarning,
            stacklevel=3,
        )
        return []
    metric = result.info["metric"]
    methods = [row["method"] for row in result.table]
    paths = [_node_scores_plot(plt, result, methods, metric, output_dir),
             _score_vs_bytes_plot(plt, result, metric, output_dir)]
    return paths


def _node_scores_plot(plt, result, methods, metric, output_dir):
    """Box plot of the per-node scores of every method, with a legend of its marks."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    # The legend (about 4.5 in) sits right of the boxes, which get 0.8 in each.
    fig, ax = plt.subplots(figsize=(max(3.0, 0.8 * len(methods) + 1.2) + 4.5, 4.5))
    data = [
        [s for run in result.runs if run["method"] == m for s in run["node_scores"].values()]
        for m in methods
    ]
    ax.boxplot(
        data, showmeans=True,
        medianprops={"color": "tab:orange", "linewidth": 2},
        meanprops={"marker": "^", "markerfacecolor": "tab:green",
                   "markeredgecolor": "tab:green"},
        flierprops={"marker": "o", "markerfacecolor": "none", "markeredgecolor": "0.4"},
    )
    ax.set_xticks(range(1, len(methods) + 1), methods, rotation=30, ha="right")
    floor = _floor_line(ax, result, [s for scores in data for s in scores])
    ax.set_ylabel(f"per-node test {metric}")
    ax.set_title(f"{result.info['dataset']}: per-node scores ({result.info['n_nodes']} nodes)")
    handles = [
        Line2D([], [], color="tab:orange", linewidth=2, label="median node"),
        Line2D([], [], color="tab:green", marker="^", linestyle="none",
               label="mean node (table's mean)"),
        Patch(facecolor="none", edgecolor="black", label="middle half of the nodes"),
        Line2D([], [], color="black", label="whiskers: farthest nodes within 1.5 box heights"),
        Line2D([], [], color="0.4", marker="o", markerfacecolor="none", linestyle="none",
               label="nodes beyond the whiskers"),
    ] + floor
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False)
    fig.tight_layout()
    path = Path(output_dir) / "node_scores.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _floor_line(ax, result, scores):
    """Draw the majority-label floor of a classification task; its legend handle(s).

    A floor far below the plotted ``scores`` (more than half their range
    under the lowest) is only named in the legend: drawn, it would squeeze
    the scores into a strip at the top (HAR: 0.826 under scores of 0.98).
    """
    from matplotlib.lines import Line2D

    floor = result.info.get("majority_class")
    if not floor:
        return []
    label = f"floor: every node predicts its majority label (mean {floor[0]:.3f})"
    scores = np.asarray(scores, dtype=float)
    scores = scores[np.isfinite(scores)]
    if scores.size and floor[0] < scores.min() - 0.5 * max(np.ptp(scores), 0.01):
        # A legend entry only (not added to the axes).
        return [Line2D([], [], color="0.5", linestyle="--", linewidth=1,
                       label=label + ", below the axis")]
    return [ax.axhline(floor[0], color="0.5", linestyle="--", linewidth=1, label=label)]


def _score_vs_bytes_plot(plt, result, metric, output_dir):
    """Mean node score against bytes, one marker per method named in a legend.

    A legend instead of labels next to the points: methods with the same
    bytes (the Global baselines' raw upload) and close scores would write
    their labels over each other.
    """
    fig, ax = plt.subplots(figsize=(9.5, 4.5))
    markers = "osD^vP*Xph<>"
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, row in enumerate(result.table):
        ax.scatter(row["bytes_sent"], row["mean_node_score"], s=60, alpha=0.8,
                   marker=markers[i % len(markers)], color=colors[i % len(colors)],
                   label=f"{row['method']} ({row['bytes_sent']:,} B, "
                   f"{row['mean_node_score']:.3f})")
    floor = _floor_line(ax, result, [row["mean_node_score"] for row in result.table])
    uploads = [row["bytes_sent"] for row in result.table
               if _baseline_kind(row["method"]) == "global"]
    if uploads:
        ax.axvline(min(uploads), color="0.5", linestyle=":", linewidth=1,
                   label="raw-data upload (the Global rows)")
    positive = [row["bytes_sent"] for row in result.table if row["bytes_sent"] > 0]
    if positive:
        # Linear from 0 to the decade below the smallest count, logarithmic
        # above, with a tick at 0 and at every decade (none crowding 0).
        low = int(np.floor(np.log10(min(positive))))
        high = int(np.ceil(np.log10(max(positive))))
        ax.set_xscale("symlog", linthresh=10.0**low, linscale=0.5)
        ax.set_xticks([0] + [10.0**k for k in range(low, high + 1)])
        ax.set_xlim(-0.1 * 10.0**low, 10.0 ** (high + 0.1))
    ax.set_xlabel("bytes communicated during fit (symlog; Local rows at 0)")
    ax.set_ylabel(f"mean per-node test {metric}")
    ax.set_title(f"{result.info['dataset']}: score against communication")
    handles = ax.get_legend_handles_labels()[0]
    if floor and floor[0] not in handles:  # named only: after the methods' points
        handles.insert(len(result.table), floor[0])
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False)
    fig.tight_layout()
    path = Path(output_dir) / "score_vs_bytes.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
