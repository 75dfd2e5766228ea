"""Real-data reproduction of federated kernel multi-task learning (kernelized MOCHA).

Three datasets, each with a per-node 75/25 train/test split (stratified for
the classification tasks) for several seeds; every method's
hyper-parameters are chosen by 3-fold :class:`~skfed.model_selection.WithinGroupKFold`
cross-validation on the training part only (folds inside every node), by
the dataset's metric:

* **HAR, sitting vs rest** (21 people, 561 features; MOCHA's task, hinge
  loss, raw features in [-1, 1]): mean per-node test error.  MOCHA reports
  2.23 / 1.34 / 0.46 % for global / local / MTL on 30 people.
* **Landmine** (29 mine fields, 9 standardized features, 6 % mines; logistic
  loss, as in Xue et al. 2007): mean per-node AUC (and error).
* **School** (139 schools, 28 standardized features, exam score regression;
  targets standardized with the pooled training mean and deviation, scores
  reported back in exam points): mean per-node RMSE and pooled explained
  variance.

Baselines: Global (one scikit-learn model on the pooled training data) and
Local (one per node, :class:`~skfed.baselines.LocalEstimator`), each as a
linear model and an RBF kernel model.  The federated models
(:class:`~skfed.FederatedMultiTaskClassifier` / ``Regressor``) learn Omega
(``omega="learn"``) with the estimators' defaults (``C`` by the same CV,
at most ``max_rounds`` rounds); their number of rounds, final relative
duality gap and bytes are reported too.

    python benchmarks/multitask_experiments.py [--seeds 0 1 2 3 4] [--datasets har landmine school]
        [--quick] [--output benchmarks/results/multitask_experiments.json]
"""

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor, LocalEstimator
from skfed.baselines import pooled_data_bytes
from skfed.datasets import load_har, load_landmine, load_school, train_test_split_per_node
from skfed.model_selection import WithinGroupKFold


# ------------------------------------------------------------------ metrics
def per_node_error(y, pred, groups, score=None):
    return float(np.mean([np.mean(pred[groups == t] != y[groups == t]) for t in np.unique(groups)]))


def per_node_auc(y, score, groups):
    aucs = [
        roc_auc_score(y[groups == t], score[groups == t])
        for t in np.unique(groups)
        if len(np.unique(y[groups == t])) == 2
    ]
    return float(np.mean(aucs))


def per_node_rmse(y, pred, groups):
    return float(
        np.mean([np.sqrt(np.mean((pred[groups == t] - y[groups == t]) ** 2))
                 for t in np.unique(groups)])
    )


# ------------------------------------------------------------------ methods
class Method:
    """A model family: how to build, fit and score it."""

    def __init__(self, name, make, grid, *, pooled=False, federated=False):
        self.name = name
        self.make = make
        self.grid = grid
        self.pooled = pooled
        self.federated = federated

    def fit(self, params, X, y, groups):
        model = self.make(**params)
        if self.pooled:
            return model.fit(X, y)
        return model.fit(X, y, groups=groups)

    def outputs(self, model, X, groups, kind):
        """(prediction, score) on X."""
        if self.pooled:
            pred = model.predict(X)
            score = model.decision_function(X) if kind == "auc" else None
        else:
            pred = model.predict(X, groups=groups)
            score = model.decision_function(X, groups=groups) if kind == "auc" else None
        return pred, score


def evaluate(kind, y, pred, score, groups):
    """The CV criterion (lower is better)."""
    if kind == "error":
        return per_node_error(y, pred, groups)
    if kind == "auc":
        return -per_node_auc(y, score, groups)
    return float(np.mean([np.mean((pred[groups == t] - y[groups == t]) ** 2)
                          for t in np.unique(groups)]))


def select(method, kind, X, y, groups, seed, n_splits=3):
    """The grid point with the best mean CV criterion (WithinGroupKFold)."""
    cv = WithinGroupKFold(n_splits, shuffle=True, stratify=kind != "mse", random_state=seed)
    folds = list(cv.split(X, y, groups))
    best, best_value = None, np.inf
    scores = {}
    for params in method.grid:
        values = []
        for train, valid in folds:
            model = method.fit(params, X[train], y[train], groups[train])
            pred, score = method.outputs(model, X[valid], groups[valid], kind)
            values.append(evaluate(kind, y[valid], pred, score, groups[valid]))
        value = float(np.mean(values))
        scores[json.dumps(params)] = value
        if value < best_value:
            best, best_value = params, value
    return best, scores


def _grid(name, values):
    return [{name: v} for v in values]


def har_methods(quick):
    rounds = 40 if quick else 100
    mtl = dict(max_rounds=rounds, random_state=0)
    mtl_Cs = [0.1, 1.0, 10.0, 100.0]
    return [
        Method("global-linearsvc", lambda C: LinearSVC(C=C, max_iter=20000),
               _grid("C", [0.01, 0.1, 1.0]), pooled=True),
        Method("local-linearsvc", lambda C: LocalEstimator(LinearSVC(C=C, max_iter=20000)),
               _grid("C", [0.01, 0.1, 1.0])),
        Method("global-svc-rbf", lambda C: SVC(C=C), _grid("C", [1.0, 10.0, 100.0]),
               pooled=True),
        Method("local-svc-rbf", lambda C: LocalEstimator(SVC(C=C)),
               _grid("C", [1.0, 10.0, 100.0])),
        Method("mtl-linear", lambda C: FederatedMultiTaskClassifier(
            C=C, kernel="linear", **mtl), _grid("C", mtl_Cs), federated=True),
        Method("mtl-rbf", lambda C: FederatedMultiTaskClassifier(C=C, **mtl),
               _grid("C", mtl_Cs), federated=True),
    ]


def landmine_methods(quick):
    rounds = 100 if quick else 300
    mtl = dict(loss="logistic", max_rounds=rounds, random_state=0)
    mtl_Cs = [0.1, 1.0, 10.0]
    Cs = [0.01, 0.1, 1.0, 10.0]
    return [
        Method("global-logreg", lambda C: LogisticRegression(C=C), _grid("C", Cs), pooled=True),
        Method("local-logreg", lambda C: LocalEstimator(LogisticRegression(C=C)),
               _grid("C", Cs)),
        Method("global-svc-rbf", lambda C: SVC(C=C), _grid("C", [0.1, 1.0, 10.0]),
               pooled=True),
        Method("local-svc-rbf", lambda C: LocalEstimator(SVC(C=C)),
               _grid("C", [0.1, 1.0, 10.0])),
        Method("mtl-linear", lambda C: FederatedMultiTaskClassifier(
            C=C, kernel="linear", **mtl), _grid("C", mtl_Cs), federated=True),
        Method("mtl-nystroem", lambda C: FederatedMultiTaskClassifier(
            C=C, approximation="nystroem", n_components=100, **mtl),
            _grid("C", mtl_Cs), federated=True),
    ]


def school_methods(quick):
    rounds = 100 if quick else 300
    mtl = dict(max_rounds=rounds, random_state=0)
    mtl_Cs = [0.01, 0.1, 1.0, 10.0]
    alphas = [0.1, 1.0, 10.0, 100.0]
    return [
        Method("global-ridge", lambda alpha: Ridge(alpha=alpha), _grid("alpha", alphas),
               pooled=True),
        Method("local-ridge", lambda alpha: LocalEstimator(Ridge(alpha=alpha)),
               _grid("alpha", alphas)),
        Method("mtl-linear", lambda C: FederatedMultiTaskRegressor(
            C=C, kernel="linear", **mtl), _grid("C", mtl_Cs), federated=True),
        Method("mtl-nystroem", lambda C: FederatedMultiTaskRegressor(
            C=C, approximation="nystroem", n_components=100, **mtl),
            _grid("C", mtl_Cs), federated=True),
    ]


# ------------------------------------------------------------------ datasets
def har_data(seed):
    X, y, g = load_har(task="sitting", return_X_y=True)
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, g, test_size=0.25,
                                                             random_state=seed)
    return Xtr, Xte, ytr, yte, gtr, gte, None


def landmine_data(seed):
    X, y, g = load_landmine(return_X_y=True)
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, g, test_size=0.25,
                                                             random_state=seed)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte, gtr, gte, None


def school_data(seed):
    X, y, g = load_school(return_X_y=True)
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, g, test_size=0.25,
                                                             random_state=seed)
    scaler = StandardScaler().fit(Xtr)
    # the constant bias column has zero variance: StandardScaler leaves it at 0
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    mean, std = float(ytr.mean()), float(ytr.std())
    return Xtr, Xte, (ytr - mean) / std, yte, gtr, gte, (mean, std)


DATASETS = {
    "har": dict(load=har_data, methods=har_methods, kind="error"),
    "landmine": dict(load=landmine_data, methods=landmine_methods, kind="auc"),
    "school": dict(load=school_data, methods=school_methods, kind="mse"),
}


def run_dataset(name, seeds, quick):
    spec = DATASETS[name]
    rows = []
    for seed in seeds:
        Xtr, Xte, ytr, yte, gtr, gte, target_scale = spec["load"](seed)
        for method in spec["methods"](quick):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                params, cv_scores = select(method, spec["kind"], Xtr, ytr, gtr, seed)
                t1 = time.perf_counter()
                model = method.fit(params, Xtr, ytr, gtr)
                fit_time = time.perf_counter() - t1
            pred, score = method.outputs(model, Xte, gte, "auc" if spec["kind"] == "auc" else "x")
            row = dict(dataset=name, seed=seed, method=method.name, params=params,
                       cv=cv_scores, fit_time=fit_time, select_time=t1 - t0)
            if spec["kind"] == "mse":
                mean, std = target_scale
                pred = pred * std + mean
                row["rmse_per_node"] = per_node_rmse(yte, pred, gte)
                row["explained_variance"] = float(1 - np.mean((pred - yte) ** 2) / np.var(yte))
            else:
                row["error_per_node"] = per_node_error(yte, pred, gte)
                row["error_pooled"] = float(np.mean(pred != yte))
                if spec["kind"] == "auc":
                    row["auc_per_node"] = per_node_auc(yte, score, gte)
            if method.federated:
                row["n_rounds"] = int(model.n_iter_)
                row["relative_gap"] = float(model.duality_gap_curve_[-1]
                                            / model.objective_curve_[-1])
                row["bytes"] = int(model.n_bytes_sent_)
            elif method.pooled:
                row["bytes"] = pooled_data_bytes(Xtr, ytr, gtr)
            else:
                row["bytes"] = 0
            rows.append(row)
            shown = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()
                     if k not in ("cv", "dataset")}
            print(name, shown, flush=True)
    return rows


def summarize(rows):
    table = {}
    for row in rows:
        key = (row["dataset"], row["method"])
        table.setdefault(key, []).append(row)
    summary = []
    for (dataset, method), group in table.items():
        entry = dict(dataset=dataset, method=method, n_seeds=len(group))
        for metric in ("error_per_node", "auc_per_node", "rmse_per_node", "explained_variance",
                       "error_pooled", "fit_time", "bytes", "n_rounds", "relative_gap"):
            values = [r[metric] for r in group if metric in r]
            if values:
                entry[metric] = float(np.mean(values))
                entry[metric + "_std"] = float(np.std(values))
        summary.append(entry)
    return summary


def print_table(summary):
    print()
    print("| dataset | method | metric (mean +- std over seeds) | 2nd metric | bytes | rounds | fit s |")
    print("|---|---|---|---|---|---|---|")
    for e in summary:
        if "auc_per_node" in e:
            m1 = f"AUC {100 * e['auc_per_node']:.2f} +- {100 * e['auc_per_node_std']:.2f} %"
            m2 = f"error {100 * e['error_per_node']:.2f} %"
        elif "rmse_per_node" in e:
            m1 = f"RMSE {e['rmse_per_node']:.3f} +- {e['rmse_per_node_std']:.3f}"
            m2 = f"expl. var. {100 * e['explained_variance']:.2f} %"
        else:
            m1 = f"error {100 * e['error_per_node']:.2f} +- {100 * e['error_per_node_std']:.2f} %"
            m2 = f"pooled error {100 * e['error_pooled']:.2f} %"
        rounds = f"{e['n_rounds']:.0f}" if "n_rounds" in e else "-"
        print(f"| {e['dataset']} | {e['method']} | {m1} | {m2} | {e['bytes']:.3g} | {rounds} "
              f"| {e['fit_time']:.2f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    parser.add_argument("--output", default="benchmarks/results/multitask_experiments.json")
    args = parser.parse_args(argv)
    rows = []
    with threadpool_limits(1):
        for name in args.datasets:
            rows += run_dataset(name, args.seeds, args.quick)
    summary = summarize(rows)
    print_table(summary)
    with open(args.output, "w") as f:
        json.dump(dict(seeds=args.seeds, quick=args.quick, summary=summary, runs=rows), f,
                  indent=1)
    print(f"\nwrote {args.output}")


if __name__ == "__main__":
    main()
