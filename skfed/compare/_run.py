"""Running ``skfed compare``: split, fit, predict, score and count bytes.

:func:`compare` loads every repeat of a dataset, fits every method on it
(:func:`_run_one`: fit time, the bytes the fit communicated, the per-node
test and training scores, the warnings raised) and averages the runs over
the seeds into a :class:`CompareResult`.
"""

import math
import platform
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._datasets import DEFAULT_DATASET
from ._methods import raw_data_bytes
from ._report import format_table, loss_reasons, save_results
from ._specs import SUMMARY_FIELDS, MethodContext, SplitData, _registry, applicable_methods

# ------------------------------------------------------------------ running
def _quick_subset(data, seed, max_nodes=6, max_train=80, max_test=40):
    """A small slice of a split for ``--quick``: few nodes, few samples."""
    rng = np.random.RandomState(seed)
    nodes = np.unique(data.groups_train)
    keep = nodes[:max_nodes]

    def pick(groups, cap):
        rows = []
        for node in keep:
            node_rows = np.flatnonzero(groups == node)
            if node_rows.size > cap:
                node_rows = np.sort(rng.choice(node_rows, size=cap, replace=False))
            rows.append(node_rows)
        return np.concatenate(rows)

    tr = pick(data.groups_train, max_train)
    te = pick(data.groups_test, max_test)
    graph = None
    if data.graph is not None:
        index = np.searchsorted(nodes, keep)
        graph = np.asarray(data.graph)[np.ix_(index, index)]
    return SplitData(
        data.X_train[tr], data.X_test[te], data.y_train[tr], data.y_test[te],
        data.groups_train[tr], data.groups_test[te], graph=graph,
        split=data.split + f"; --quick: first {len(keep)} nodes, <= {max_train} train / "
        f"{max_test} test samples each",
    )


def _node_scores(task, y_true, y_pred, groups):
    """Score of every node with test samples: accuracy, or R^2 for regression."""
    from sklearn.metrics import accuracy_score, r2_score

    scores = {}
    for node in np.unique(groups):
        rows = groups == node
        if task == "regression":
            if rows.sum() < 2:
                continue
            scores[node.item() if hasattr(node, "item") else node] = float(
                r2_score(y_true[rows], y_pred[rows])
            )
        else:
            scores[node.item() if hasattr(node, "item") else node] = float(
                accuracy_score(y_true[rows], y_pred[rows])
            )
    return scores


def _set_verbose(estimator, verbose):
    params = estimator.get_params(deep=True)
    updates = {key: verbose for key in params if key == "verbose" or key.endswith("__verbose")}
    if updates:
        try:
            estimator.set_params(**updates)
        except (ValueError, TypeError):
            pass
    return estimator


def _run_one(spec, ctx, data):
    estimator = spec.factory(ctx)
    if ctx.verbose > 1:
        _set_verbose(estimator, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        if spec.pooled:
            estimator.fit(data.X_train, data.y_train)
        else:
            estimator.fit(data.X_train, data.y_train, groups=data.groups_train)
        fit_time = time.perf_counter() - start
        if spec.pooled:
            y_pred = estimator.predict(data.X_test)
        else:
            y_pred = estimator.predict(data.X_test, groups=data.groups_test)
        # The training score, to tell a model that cannot fit (underfits)
        # from one that fits and does not generalize (overfits).
        if spec.pooled:
            y_fit = estimator.predict(data.X_train)
        else:
            y_fit = estimator.predict(data.X_train, groups=data.groups_train)
    if spec.communication is not None:
        n_bytes = spec.communication(estimator, data.X_train, data.y_train, data.groups_train)
    else:
        n_bytes = getattr(estimator, "n_bytes_sent_", None)
        if n_bytes is None:
            raise AttributeError(
                f"Method {spec.name!r}: the fitted estimator has no n_bytes_sent_; give "
                "its MethodSpec a communication= function."
            )
    y_pred = np.asarray(y_pred)
    y_test = np.asarray(data.y_test)
    groups_test = np.asarray(data.groups_test)
    groups_train = np.asarray(data.groups_train)
    node_scores = _node_scores(ctx.task, y_test, y_pred, groups_test)
    values = np.array(list(node_scores.values()), dtype=float)
    pooled = _pooled_score(ctx.task, y_test, y_pred)
    train_score = _pooled_score(ctx.task, np.asarray(data.y_train), np.asarray(y_fit))
    node_train_scores = _node_scores(ctx.task, np.asarray(data.y_train), np.asarray(y_fit),
                                     groups_train)
    rounds = getattr(estimator, "bytes_per_round_", None)
    # The whole first line of each warning (a cut one can drop the advice at
    # its end); the CLI wraps long lines at word boundaries.
    messages = sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught})
    return {
        "method": spec.name,
        "seed": ctx.random_state,
        "mean_node_score": float(np.mean(values)) if values.size else math.nan,
        "worst_node_score": float(np.min(values)) if values.size else math.nan,
        "pooled_score": pooled,
        "bytes_sent": int(n_bytes),
        "fit_time_s": float(fit_time),
        "n_nodes_scored": int(values.size),
        "node_scores": node_scores,
        "warnings": messages,
        # What the reasons under the table are computed from.
        "train_score": train_score,
        "node_train_scores": node_train_scores,
        "node_train_sizes": _node_sizes(groups_train),
        "node_test_sizes": _node_sizes(groups_test),
        "n_rounds": 0 if rounds is None else int(len(rounds)),
        "n_messages": int(getattr(estimator, "n_messages_", 0) or 0),
        "raw_bytes": int(raw_data_bytes(None, data.X_train, data.y_train, groups_train)),
        "n_features": int(data.X_train.shape[1]),
        # Per test sample: 1 / 0 correct (classification) or minus the squared
        # error (regression), for paired comparisons; not written to files.
        "_sample_scores": (
            -((y_pred.astype(float) - y_test.astype(float)) ** 2) if ctx.task == "regression"
            else (y_pred == y_test).astype(float)
        ),
    }


def _pooled_score(task, y_true, y_pred):
    """Accuracy, or R^2 for regression, over all samples at once."""
    if task == "regression":
        from sklearn.metrics import r2_score

        return float(r2_score(y_true, y_pred))
    return float(np.mean(y_pred == y_true))


def _node_sizes(groups):
    labels, counts = np.unique(groups, return_counts=True)
    return {(k.item() if hasattr(k, "item") else k): int(c) for k, c in zip(labels, counts)}


def _summarize(runs, methods):
    table = []
    for name in methods:
        rows = [r for r in runs if r["method"] == name]
        if not rows:
            continue
        row = {"method": name, "n_runs": len(rows)}
        for key in ("mean_node_score", "worst_node_score", "pooled_score"):
            values = np.array([r[key] for r in rows], dtype=float)
            row[key] = float(np.mean(values))
            row[key + "_std"] = float(np.std(values)) if len(values) > 1 else 0.0
        row["bytes_sent"] = int(round(np.mean([r["bytes_sent"] for r in rows])))
        row["fit_time_s"] = float(np.mean([r["fit_time_s"] for r in rows]))
        table.append(row)
    return table


@dataclass
class CompareResult:
    """Result of :func:`compare`.

    Attributes
    ----------
    table : list of dict
        One summary row per method (fields :data:`SUMMARY_FIELDS`), averaged
        over the seeds.
    runs : list of dict
        One row per method and seed, with the per-node scores.
    info : dict
        Dataset, task, metric, split, sizes, seeds, versions.
    notes : list of str
        ``"method: Category: message"`` for every warning a fit raised.
    """

    table: list
    runs: list
    info: dict
    notes: list = field(default_factory=list)

    def to_frame(self):
        """The summary table as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.table, columns=list(SUMMARY_FIELDS))

    def format(self):
        """The summary table as printed by ``skfed compare``."""
        return format_table(self)

    def to_dict(self):
        runs = [{k: v for k, v in run.items() if not k.startswith("_")} for run in self.runs]
        return {"info": self.info, "table": self.table, "runs": runs, "notes": self.notes,
                "reasons": loss_reasons(self)}

    def save(self, output_dir, plots=True):
        """Write ``results.csv``, ``runs.csv``, ``node_scores.csv``,
        ``results.json`` and (matplotlib installed) two plots; return the paths."""
        return save_results(self, output_dir, plots=plots)


def compare(
    dataset=DEFAULT_DATASET,
    methods=None,
    *,
    seeds=(0,),
    quick=False,
    n_jobs=None,
    verbose=1,
    log=None,
):
    """Fit the baselines and every applicable method on a dataset.

    Parameters
    ----------
    dataset : str, default="har-sitting"
        A name in :data:`DATASETS`.
    methods : list of str or None, default=None
        Names in :data:`METHODS`; None runs every method whose ``tasks``
        include the dataset's task and whose ``default_datasets`` (if set)
        include the dataset.
    seeds : sequence of int, default=(0,)
        One repeat per seed: the seed of the per-node split (School: official
        split ``seed % 10 + 1``; synthetic data: the generator) and of the
        methods.
    quick : bool, default=False
        A small slice of the data (6 nodes, <= 80 training samples each) and
        cheap method settings: a smoke run in seconds.
    n_jobs : int or None, default=None
        Passed to methods that fit nodes in parallel.
    verbose : int, default=1
        0 silent; 1 one progress line per fit (method, seed); 2 also turns on
        the methods' own ``verbose`` (rounds).
    log : file-like, default=sys.stderr
        Where progress goes.

    Returns
    -------
    CompareResult
    """
    registered, datasets = _registry("METHODS"), _registry("DATASETS")
    if dataset not in datasets:
        raise ValueError(
            f"Unknown dataset {dataset!r}; choose one of {sorted(datasets)}."
        )
    spec = datasets[dataset]
    not_default = []
    if methods is None:
        methods = applicable_methods(spec.task, dataset)
        not_default = [m for m in applicable_methods(spec.task) if m not in methods]
    else:
        methods = list(dict.fromkeys(methods))
        unknown = [m for m in methods if m not in registered]
        if unknown:
            raise ValueError(
                f"Unknown method(s) {unknown}; registered methods: {sorted(registered)}."
            )
        wrong = [m for m in methods if spec.task not in registered[m].tasks]
        if wrong:
            raise ValueError(
                f"Method(s) {wrong} do not apply to the {spec.task} task of {dataset!r}; "
                f"applicable: {applicable_methods(spec.task)}."
            )
    if not methods:
        raise ValueError(f"No registered method applies to the {spec.task} task of {dataset!r}.")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must hold at least one seed.")
    log = sys.stderr if log is None else log

    def say(message):
        if verbose:
            print(message, file=log, flush=True)

    runs, info, majority = [], None, []
    total = len(seeds) * len(methods)
    step = 0
    for seed in seeds:
        say(f"[skfed compare] loading {dataset} (seed {seed}) ...")
        data = spec.load(seed)
        if quick:
            data = _quick_subset(data, seed)
        n_nodes = len(np.unique(np.asarray(data.groups_train)))
        ctx = MethodContext(
            task=spec.task, dataset=dataset, n_nodes=n_nodes,
            n_features=data.X_train.shape[1], n_train=data.X_train.shape[0],
            random_state=seed, quick=quick, n_jobs=n_jobs, graph=data.graph, verbose=verbose,
        )
        if info is None:
            info = {
                "dataset": dataset,
                "description": spec.description,
                "reference": spec.reference,
                "task": spec.task,
                "metric": "r2" if spec.task == "regression" else "accuracy",
                "split": data.split,
                "n_nodes": n_nodes,
                "n_train": int(data.X_train.shape[0]),
                "n_test": int(data.X_test.shape[0]),
                "n_features": int(data.X_train.shape[1]),
                "seeds": seeds,
                "quick": bool(quick),
                "methods": methods,
                "not_run_by_default": not_default,
                "bytes_notes": {m: registered[m].bytes_note for m in methods
                               if registered[m].bytes_note},
                "versions": _versions(),
            }
        if spec.task != "regression":
            majority.append(_majority_scores(data))
        for name in methods:
            step += 1
            say(f"[skfed compare] [{step}/{total}] seed {seed}: fitting {name} on {n_nodes} nodes ...")
            run = _run_one(registered[name], ctx, data)
            say(
                f"[skfed compare] [{step}/{total}] seed {seed}: {name} done in "
                f"{run['fit_time_s']:.2f} s, mean node score {run['mean_node_score']:.4f}"
            )
            runs.append(run)
    if majority:
        info["majority_class"] = np.mean(majority, axis=0).tolist()
    notes = sorted({f"{r['method']}: {w}" for r in runs for w in r["warnings"]})
    return CompareResult(table=_summarize(runs, methods), runs=runs, info=info, notes=notes)

def _majority_scores(data):
    """``(mean node, pooled)`` accuracy of predicting each node's majority training label.

    The floor a classifier must clear on unbalanced data (Landmine: 6 %
    mines, so predicting "no mine" everywhere is already about 0.94).
    """
    y_train, y_test = np.asarray(data.y_train), np.asarray(data.y_test)
    g_train, g_test = np.asarray(data.groups_train), np.asarray(data.groups_test)
    labels, counts = np.unique(y_train, return_counts=True)
    overall = labels[np.argmax(counts)]
    pred = np.empty(len(y_test), dtype=y_train.dtype)
    for node in np.unique(g_test):
        own = y_train[g_train == node]
        if own.size:
            values, n = np.unique(own, return_counts=True)
            pred[g_test == node] = values[np.argmax(n)]
        else:
            pred[g_test == node] = overall
    nodes = _node_scores("binary", y_test, pred, g_test)
    return float(np.mean(list(nodes.values()))), float(np.mean(pred == y_test))


def _versions():
    import sklearn

    from .. import __version__

    return {
        "skfed": __version__,
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
