"""``skfed compare``'s reasons give a regression's pooled loss in squared error (user38).

On baselines.rst's "On your own data" example (4 sites, a shift per site)
the reason under global-linear read ``pooled 0.972/0.997 (-585.088 ±
76.908 over samples)``: a difference of R^2 values cannot be -585; the
paired differences over test samples are of squared errors.  The reason
now names the unit; the number is checked against the squared errors of
an independent pooled and per-site ``StandardScaler`` + ``Ridge()`` fit.
"""

import re

import numpy as np
from sklearn.datasets import make_regression
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed.compare import (
    DATASETS,
    DatasetSpec,
    SplitData,
    compare,
    loss_reasons,
    register_dataset,
)
from skfed.datasets import train_test_split_per_node

NAME = "user38-four-sites"


def _load(seed):
    X, y = make_regression(n_samples=320, n_features=12, noise=5.0, random_state=seed)
    sites = np.repeat(["amsterdam", "berlin", "cairo", "dakar"], 80)
    y = y + np.repeat([-30.0, 0.0, 10.0, 40.0], 80)
    return SplitData(*train_test_split_per_node(X, y, sites, random_state=seed))


def _result():
    register_dataset(DatasetSpec(name=NAME, task="regression", load=_load,
                                 description="baselines.rst's 4 sites"), replace=True)
    try:
        return compare(NAME, methods=["global-linear", "local-linear"], verbose=0)
    finally:
        DATASETS.pop(NAME, None)


def test_pooled_regression_loss_is_in_squared_error():
    result = _result()
    line = next(x for x in loss_reasons(result) if x.startswith("global-linear:"))
    # the independent reference: the same two models, fitted here
    d = _load(0)
    pooled = make_pipeline(StandardScaler(), Ridge()).fit(d.X_train, d.y_train)
    e_global = (pooled.predict(d.X_test) - d.y_test) ** 2
    e_local = np.empty_like(e_global)
    for site in np.unique(d.groups_train):
        tr, te = d.groups_train == site, d.groups_test == site
        model = make_pipeline(StandardScaler(), Ridge()).fit(d.X_train[tr], d.y_train[tr])
        e_local[te] = (model.predict(d.X_test[te]) - d.y_test[te]) ** 2
    diff = e_global - e_local
    assert diff.mean() > 100  # Global is far worse: the shift per site
    match = re.search(r"pooled [0-9.]+/[0-9.]+ \(squared error ([+-][0-9.e+]+) ± ([0-9.e+]+) a sample\)",
                      line)
    assert match, line
    assert float(match.group(1)) == float(f"{diff.mean():+.4g}")
    se = diff.std(ddof=1) / np.sqrt(diff.size)
    assert float(match.group(2)) == float(f"{se:.4g}")
    assert "over samples" not in line


def test_mean_node_regression_loss_stays_in_r2():
    line = next(x for x in loss_reasons(_result()) if x.startswith("global-linear:"))
    match = re.search(r"mean ([0-9.]+)/([0-9.]+) \(([+-][0-9.]+) ± [0-9.]+ over nodes\)", line)
    assert match, line
    gap = float(match.group(3))
    assert -1 < gap < 0  # a difference of R^2 values
    assert abs(gap - (float(match.group(1)) - float(match.group(2)))) <= 0.0015


def test_header_of_a_loader_without_split_text():
    # SplitData's split defaults to "": the header line ended in "; " with nothing after
    text = _result().format()
    header = text.splitlines()[1]
    assert header == "4 nodes, 240 training / 80 test samples, 12 features.", header


def test_regression_reason_does_not_speak_of_decision_boundaries_only():
    line = next(x for x in loss_reasons(_result()) if x.startswith("global-linear:"))
    assert line.endswith("why: one linear model shared by every node cannot follow node-specific "
                         "decision boundaries (in a regression: node-specific functions).")
