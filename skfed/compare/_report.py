"""What ``skfed compare`` prints and writes.

:func:`format_table` is the printed table with the definitions of its
columns; :func:`loss_reasons` says, from the measured runs, why a row scores
below a baseline (noise, under- or overfitting, the method's documented
property) or sends more than the raw-data upload; :func:`save_results`
writes the CSV and JSON files (and the plots of :mod:`._plots`).
"""

import csv
import json
import math
import textwrap
from pathlib import Path

import numpy as np

from ._plots import _plots
from ._specs import RUN_FIELDS, SUMMARY_FIELDS, _baseline_kind, _registry

# ----------------------------------------------------------------- table
def _below_floor(row, mean, pooled, n_test):
    """``"name (by ...)"``: how far a row is below the majority-label floor.

    The pooled gap is also given in test samples (``n_test`` per seed), so a
    reader sees whether it is a handful of predictions or a real loss.
    """
    gaps = []
    if row["mean_node_score"] < mean:
        gaps.append(f"{mean - row['mean_node_score']:.4f} mean node")
    if row["pooled_score"] < pooled:
        samples = int(round((pooled - row["pooled_score"]) * n_test))
        gaps.append(f"{pooled - row['pooled_score']:.4f} pooled, {samples:,} of {n_test:,} "
                    "test samples")
    return f"{row['method']} (by {', '.join(gaps)})"


def _fmt_score(mean, std, n_runs):
    if math.isnan(mean):
        return "nan"
    # printed from the value the files store, so the screen and the files
    # never round one number two ways (1.93050 -> "1.9305" -> 1.930, not 1.931)
    mean, std = _rounded(mean), _rounded(std)
    if n_runs > 1:
        return f"{mean:.4f} ± {std:.4f}"
    return f"{mean:.4f}"


def format_table(result):
    """Text table of a :class:`CompareResult` (what ``skfed compare`` prints; the
    fits' warnings, which the command prints under it, are ``result.notes``)."""
    info = result.info
    metric = info["metric"]
    header = (
        "method",
        f"mean node {metric}",
        f"worst node {metric}",
        f"pooled {metric}",
        "bytes sent",
        "fit time (s)",
    )
    registered = _registry("METHODS")
    rows = []
    for row in result.table:
        n = row["n_runs"]
        mark = (" *" if registered.get(row["method"]) and registered[row["method"]].bytes_note
                else "")
        rows.append(
            (
                row["method"],
                _fmt_score(row["mean_node_score"], row["mean_node_score_std"], n),
                _fmt_score(row["worst_node_score"], row["worst_node_score_std"], n),
                _fmt_score(row["pooled_score"], row["pooled_score_std"], n),
                f"{row['bytes_sent']:,}{mark}",
                f"{_rounded(row['fit_time_s']):.3f}",
            )
        )
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

    def line(cells):
        first = f"{cells[0]:<{widths[0]}}"
        rest = [f"{c:>{w}}" for c, w in zip(cells[1:], widths[1:])]
        return "  ".join([first] + rest)

    seeds = info["seeds"]
    out = [
        f"skfed compare: {info['dataset']} - {info['description']}",
        f"{info['n_nodes']} nodes, {info['n_train']:,} training / {info['n_test']:,} test samples, "
        f"{info['n_features']} features" + (f"; {info['split']}" if info["split"] else "."),
        f"seeds: {', '.join(map(str, seeds))}"
        + (" (mean ± std over seeds)" if len(seeds) > 1 else ""),
        "",
        line(header),
        line(["-" * w for w in widths]),
    ]
    out.extend(line(r) for r in rows)
    out.append("")
    if info.get("majority_class"):
        mean, pooled = info["majority_class"]
        below = [_below_floor(row, mean, pooled, info["n_test"]) for row in result.table
                 if row["mean_node_score"] < mean or row["pooled_score"] < pooled]
        out.append(textwrap.fill(
            f"Floor: predicting each node's most frequent training label scores {mean:.4f} "
            f"mean node / {pooled:.4f} pooled accuracy"
            + (f"; below it: {'; '.join(below)}." if below else "."), width=100))
    out.extend(_column_definitions(result))
    reasons = loss_reasons(result)
    if reasons:
        out.append(textwrap.fill(
            "Why a row scores below a baseline or sends more than the raw upload, measured "
            "on these runs (a/b: this row / the baseline; ± one standard error of the "
            "paired difference; noise: under two of them, or under two binomial standard "
            "errors of the worst node's accuracy; under/overfits: its training score is "
            "lower / higher than the baseline's):", width=100))
        for reason in reasons:
            out.append(textwrap.fill(reason, width=100, initial_indent="- ",
                                     subsequent_indent="  "))
    if info.get("not_run_by_default"):
        out.append(textwrap.fill(
            f"Not run by default, since {info['dataset']} is not among the datasets they "
            f"are benchmarked on (add them with --methods): "
            f"{', '.join(info['not_run_by_default'])}.", width=100))
    if info.get("quick"):
        quick = (
            "--quick: a smoke run on a small slice with short fits (fewer iterations, "
            "rounds and estimators than the full run, so ConvergenceWarnings are "
            "expected); the scores are not the methods' accuracy."
        )
        if "dada-oracle" in info["methods"]:
            quick += (
                " dada-oracle needs the most iterations: on the moons slice it scores "
                "less at --quick's 20 wake-ups per node than at the full run's 100."
            )
        out.append(quick)
    if info.get("reference"):
        if info.get("quick"):
            out.append(
                f"Reference (full data, not comparable with this --quick run): "
                f"{info['reference']}"
            )
        else:
            out.append(f"Reference: {info['reference']}")
    return "\n".join(out)


# A loss smaller than this many standard errors is called noise.
_NOISE_SE = 2.0


def _column_definitions(result):
    """What every column of the table means (printed under it)."""
    info = result.info
    metric = info["metric"]
    name = "R^2" if metric == "r2" else "accuracy"
    lines = [
        "Columns:",
        f"  mean node {metric}: each node's {name} on its own test samples, scored with the "
        "model that node uses",
        "    (its own for Local, the shared one for Global), averaged over the nodes: every "
        "node counts once.",
        f"  worst node {metric}: the lowest of these per-node scores.",
        f"  pooled {metric}: {name} over the test samples of all nodes together: a node "
        "counts by its number",
        "    of test samples.",
        "  bytes sent: bytes communicated during fit under skfed's byte model (a 16-byte "
        "header per message,",
        "    8 bytes a float64 value); Local baselines send nothing.",
    ]
    notes = sorted(set(info.get("bytes_notes", {}).values()))
    lines.extend(textwrap.fill(f"* {note}.", width=100, initial_indent="    ",
                               subsequent_indent="    ") for note in notes)
    lines.append("  fit time (s): wall-clock seconds of fit on this machine.")
    if len(info.get("seeds", [])) > 1:
        lines.append("  mean ± std: over the seeds (one split and fit each).")
    return lines


def _paired(result, method, baseline, key):
    """Paired differences ``method - baseline``: per node, or per test sample.

    ``key`` is ``"node"`` (every node of every seed with a score for both)
    or ``"sample"`` (every test sample of every seed).
    """
    by_seed = {}
    for run in result.runs:
        if run["method"] in (method, baseline):
            by_seed.setdefault(run["seed"], {})[run["method"]] = run
    diffs = []
    for pair in by_seed.values():
        if len(pair) < 2:
            continue
        a, b = pair[method], pair[baseline]
        if key == "sample":
            if "_sample_scores" in a and "_sample_scores" in b:
                diffs.append(np.asarray(a["_sample_scores"]) - np.asarray(b["_sample_scores"]))
            continue
        nodes = [n for n in a["node_scores"] if n in b["node_scores"]]
        diffs.append(np.array([a["node_scores"][n] - b["node_scores"][n] for n in nodes]))
    return np.concatenate(diffs) if diffs else np.zeros(0)


def _noise(diffs):
    """``(mean, standard error)`` of paired differences."""
    if diffs.size < 2:
        return (float(diffs.mean()) if diffs.size else 0.0), math.inf
    return float(diffs.mean()), float(diffs.std(ddof=1) / np.sqrt(diffs.size))


def _first_run(result, method):
    """The run of ``method`` on the first seed."""
    return next(run for run in result.runs if run["method"] == method)


def _fit_diagnosis(result, method, baseline):
    """Training scores ``a/b`` and whether ``method`` underfits or overfits next to ``baseline``."""
    runs = [r for r in result.runs if r["method"] in (method, baseline) and "train_score" in r]
    train = {m: float(np.mean([r["train_score"] for r in runs if r["method"] == m] or [np.nan]))
             for m in (method, baseline)}
    if any(math.isnan(v) for v in train.values()):
        return ""
    gap = train[method] - train[baseline]
    how = "underfits" if gap < -5e-4 else ("overfits" if gap > 5e-4 else "fits as well")
    return f"training {train[method]:.3f}/{train[baseline]:.3f}: {how}"


def _why_behind(method, baseline):
    """The documented property that makes ``method`` score below ``baseline``."""
    mine, theirs = _baseline_kind(method), _baseline_kind(baseline)
    if mine and mine == theirs:
        # Two baselines on the same data: only the model class differs.
        return (f"vs {baseline}: the same {mine} data, another model class "
                f"({method.split('-', 1)[-1]} vs {baseline.split('-', 1)[-1]})")
    registered = _registry("METHODS")
    return registered[method].behind_note if method in registered else ""


_COLUMN_WORDS = {"mean_node_score": "mean", "worst_node_score": "worst",
                 "pooled_score": "pooled"}


def _against(result, method, baseline, columns):
    """``(text, significant)``: the losses of ``method`` to ``baseline`` in ``columns``."""
    table = {row["method"]: row for row in result.table}
    noise, real = [], []
    for column in columns:
        mine, theirs = table[method][column], table[baseline][column]
        words = f"{_COLUMN_WORDS[column]} {mine:.3f}/{theirs:.3f}"
        if column == "worst_node_score":
            within, detail = _worst_node(result, method, baseline)
        else:
            unit = "node" if column == "mean_node_score" else "sample"
            mean, se = _noise(_paired(result, method, baseline, unit))
            within = abs(mean) < _NOISE_SE * se
            if unit == "sample" and result.info["metric"] == "r2":
                # A pooled R^2 is not a mean over samples: the paired differences
                # are of squared errors, in the target's squared units.
                detail = f"squared error {-mean:+.4g} ± {se:.4g} a sample"
            else:
                detail = f"{mean:+.3f} ± {se:.3f} over {unit}s"
        (noise if within else real).append(f"{words} ({detail})")
    parts = []
    if noise:
        parts.append("noise: " + ", ".join(noise))
    if real:
        diagnosis = _fit_diagnosis(result, method, baseline)
        parts.append("below: " + ", ".join(real) + (f", {diagnosis}" if diagnosis else ""))
    return f"vs {baseline} [" + "; ".join(parts) + "]", bool(real)


def _worst_node(result, method, baseline):
    """``(within noise, detail)`` of a worst-node loss (first seed's runs)."""
    a, b = _first_run(result, method), _first_run(result, baseline)
    node = min(a["node_scores"], key=a["node_scores"].get)
    score = a["node_scores"][node]
    n_test = a.get("node_test_sizes", {}).get(node)
    n_train = a.get("node_train_sizes", {}).get(node)
    gap = b["worst_node_score"] - score
    if result.info["metric"] == "accuracy" and n_test and len(result.info["seeds"]) == 1:
        # One node's accuracy is a proportion over its test samples.
        se = math.sqrt(max(score * (1 - score), 1.0 / n_test) / n_test)
        if gap < _NOISE_SE * se:
            return True, (f"{round(gap * n_test)} of node {node!r}'s {n_test} test samples, "
                          f"binomial s.e. {se:.3f}")
    return False, (f"node {node!r}: {n_train} training samples, "
                   f"{b['node_scores'].get(node, math.nan):.3f} under {baseline}")


def _bytes_reason(result, method, baseline):
    table = {row["method"]: row for row in result.table}
    run = _first_run(result, method)
    n_bytes, raw = table[method]["bytes_sent"], table[baseline]["bytes_sent"]
    text = f"bytes {n_bytes / max(raw, 1):.1f} x the raw upload"
    if run.get("n_messages"):
        text += (f" ({run['n_messages']:,} messages in {run['n_rounds']:,} rounds, "
                 f"{n_bytes / run['n_messages']:,.0f} B each)")
    registered = _registry("METHODS")
    why = registered[method].bytes_why if method in registered else ""
    return text + (f": {why}" if why else "")


def loss_reasons(result):
    """One line for every row whose score or bytes lose to a baseline, saying why.

    Scores: the mean node score, the worst node score and the pooled score
    of each row are compared with every baseline row (Global and Local);
    a loss is either within noise (the paired difference over nodes, or
    over test samples for the pooled score, is below two standard errors;
    for the worst node, below the binomial standard error of one node's
    accuracy) or explained by the measured training scores and the
    method's documented ``behind_note``.  Bytes: a row sending more than a
    Global baseline's raw-data upload is explained by its measured
    messages and rounds and its documented ``bytes_why``.  A Local baseline
    sends nothing; that every collaborating method sends more is the point
    of the comparison, not a loss to explain.

    Returns
    -------
    list of str
    """
    table = {row["method"]: row for row in result.table}
    baselines = [m for m in table if _baseline_kind(m)]
    lines = []
    for name, row in table.items():
        lost = {}  # every baseline ahead -> the columns where it is ahead
        for column in _COLUMN_WORDS:
            for b in baselines:
                if b != name and table[b][column] > row[column]:
                    lost.setdefault(b, []).append(column)
        parts, why = [], []
        for b, columns in lost.items():
            text, significant = _against(result, name, b, columns)
            parts.append(text)
            note = _why_behind(name, b) if significant else ""
            if note and note not in why:
                why.append(note)
        if why:
            parts.append("why: " + "; ".join(why))
        uploads = [b for b in baselines if _baseline_kind(b) == "global" and b != name
                   and not getattr(_registry("METHODS").get(name), "pooled", False)
                   and 0 < table[b]["bytes_sent"] < row["bytes_sent"]]
        if uploads:
            parts.append(_bytes_reason(
                result, name, min(uploads, key=lambda b: table[b]["bytes_sent"])))
        if parts:
            lines.append(f"{name}: " + "; ".join(parts) + ".")
    return lines


# ----------------------------------------------------------------- files
def save_results(result, output_dir, plots=True):
    """Write the tables (CSV, JSON) and, when matplotlib is installed, plots."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    path = output_dir / "results.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(SUMMARY_FIELDS))
        writer.writeheader()
        for row in result.table:
            writer.writerow({k: _csv_value(row[k]) for k in SUMMARY_FIELDS})
    paths.append(path)
    path = output_dir / "runs.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(RUN_FIELDS))
        writer.writeheader()
        for run in result.runs:
            writer.writerow({k: _csv_value(run[k]) for k in RUN_FIELDS})
    paths.append(path)
    path = output_dir / "node_scores.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["method", "seed", "node", "score"])
        for run in result.runs:
            for node, score in run["node_scores"].items():
                writer.writerow([run["method"], run["seed"], node, _csv_value(score)])
    paths.append(path)
    path = output_dir / "results.json"
    payload = result.to_dict()
    payload["runs"] = [
        {**run, "node_scores": {str(k): v for k, v in run["node_scores"].items()}}
        for run in payload["runs"]
    ]
    path.write_text(json.dumps(_jsonable(payload), indent=2))
    paths.append(path)
    path = output_dir / "table.txt"
    path.write_text(format_table(result) + "\n")
    paths.append(path)
    if plots:
        paths.extend(_plots(result, output_dir))
    return paths


def _rounded(value):
    """A float at 6 significant digits: 0.4982, not 0.49819999999999987."""
    return float(f"{value:.6g}")


def _csv_value(value):
    if isinstance(value, float):
        return repr(_rounded(value))
    return value


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) else _rounded(value)
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    return value
