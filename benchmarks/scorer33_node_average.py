"""Selecting on the pooled score or on the mean per-node score: School.

Does ``GridSearchCV`` choose a different setting when it scores with
``make_group_scorer(average="nodes")`` (mean over the nodes of each node's
metric, what the user guide reports) instead of the pooled default, and
does that choice score better on the held-out rows?  School (139 schools of
22-251 students, the official train/test splits), ``LocalEstimator`` after a
``StandardScaler``, ``WithinGroupKFold(3, shuffle=True, random_state=0)``;
classification: ``LogisticRegression(C)``, C in 0.001..10, accuracy;
regression: ``Ridge(alpha)``, alpha in 0.1..1000, negative MSE.  Test
columns: the chosen setting's mean per-node / pooled test score::

    python benchmarks/scorer33_node_average.py --splits 1,2,3
    python benchmarks/scorer33_node_average.py --splits 4,5,6

Measured 2026-11-29 (scorer33, main at 8531983, one BLAS thread)::

    task            split  pooled-selected:          nodes-selected:
                           C/alpha  nodes   pooled  | C/alpha  nodes   pooled
    classification  1      10      0.7016   0.7090 | 1       0.6976   0.7075
    classification  2      10      0.7059   0.7072 | 10      0.7059   0.7072
    classification  3      1       0.7075   0.7095 | 1       0.7075   0.7095
    regression      1      10    -107.3715 -105.1769 | 10    -107.3715 -105.1769
    regression      2      10    -105.8212 -103.5962 | 10    -105.8212 -103.5962
    regression      3      10    -111.1083 -110.3122 | 10    -111.1083 -110.3122
    classification  4      1       0.7147   0.7059 | 1       0.7147   0.7059
    classification  5      1       0.7084   0.7062 | 1       0.7084   0.7062
    classification  6      1       0.7082   0.7044 | 1       0.7082   0.7044
    regression      4      10    -108.4893 -107.5253 | 10    -108.4893 -107.5253
    regression      5      10    -110.7711 -106.1766 | 10    -110.7711 -106.1766
    regression      6      10    -113.1213 -113.8063 | 10    -113.1213 -113.8063

Both scorers choose the same setting on 11 of 12 runs (splits 1-3, then
4-6 as a second block: 6 of 6); on the other (classification split 1) the
node-mean choice scores 0.4 points lower on the node-mean test metric.
The node mean differs from the pooled score by -0.7..+0.9 points of
accuracy and -4.6..+0.7 of negative MSE, in either direction.  So on
School the per-node scorer changes what is *reported* more than what is
*chosen*; it is the right scorer when the node mean is the goal, not a
measured gain in selection.
"""

import argparse
import warnings

import sklearn
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score, mean_squared_error
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed import LocalEstimator
from skfed.datasets import load_school
from skfed.model_selection import WithinGroupKFold, make_group_scorer

TASKS = {
    "classification": (lambda: LocalEstimator(LogisticRegression(max_iter=500)),
                       "localestimator__estimator__C", [0.001, 0.01, 0.1, 1, 10],
                       accuracy_score, True),
    "regression": (lambda: LocalEstimator(Ridge()),
                   "localestimator__estimator__alpha", [0.1, 1, 10, 100, 1000],
                   mean_squared_error, False),
}


def run(task, split):
    make, key, values, metric, greater = TASKS[task]
    X_train, X_test, y_train, y_test, g_train, g_test = load_school(
        task=task, split=split, return_X_y=True)
    row = []
    for average in ("samples", "nodes"):
        search = GridSearchCV(
            make_pipeline(StandardScaler(), make()), {key: values},
            cv=WithinGroupKFold(3, shuffle=True, random_state=0),
            scoring=make_group_scorer(metric, greater_is_better=greater, average=average),
        ).fit(X_train, y_train, groups=g_train)
        model = search.best_estimator_
        nodes = make_group_scorer(metric, greater_is_better=greater, average="nodes")(
            model, X_test, y_test, groups=g_test)
        pooled = make_group_scorer(metric, greater_is_better=greater)(
            model, X_test, y_test, groups=g_test)
        row.append(f"{search.best_params_[key]:<5g} {nodes:8.4f} {pooled:8.4f}")
    return " | ".join(row)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="1,2,3")
    args = parser.parse_args()
    sklearn.set_config(enable_metadata_routing=True)
    warnings.simplefilter("ignore")  # convergence warnings of the small-C fits
    for task in TASKS:
        for split in [int(s) for s in args.splits.split(",")]:
            print(f"{task:<15} {split:<6} {run(task, split)}", flush=True)


if __name__ == "__main__":
    main()
