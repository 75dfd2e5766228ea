"""
==============================================================================
Grid search per node: ``WithinGroupKFold``, metadata routing, ``group_column``
==============================================================================

Tuning a personalized model needs two things scikit-learn does not do by
default:

* folds that split **inside** every node — every node must be in every
  training set and every test set (:class:`~skfed.model_selection.WithinGroupKFold`;
  :class:`~sklearn.model_selection.GroupKFold` holds out whole nodes instead);
* node ids for ``fit`` **and** for ``predict`` inside the scorer.

There are two ways to get them through :class:`~sklearn.model_selection.GridSearchCV`:
metadata routing with :func:`~skfed.model_selection.make_group_scorer`, or
the node id as a column of ``X`` (``group_column``), which works without
routing and with any scorer.  Both are shown here on the Landmine data
(29 mine fields, 9 radar features, 6 % mines), tuning linear MOCHA's
regularization and whether to learn the task relationships, by ROC AUC
(the logistic loss: the hinge loss ranks poorly on such rare positives).
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed import SingleNodeWarning
from skfed.datasets import load_landmine, train_test_split_per_node
from skfed.model_selection import WithinGroupKFold, make_group_scorer
from skfed.multitask import FederatedMultiTaskClassifier

X, y, groups = load_landmine(return_X_y=True)
X_train, X_test, y_train, y_test, g_train, g_test = train_test_split_per_node(
    X, y, groups, random_state=0
)
cv = WithinGroupKFold(n_splits=3, shuffle=True, stratify=True, random_state=0)
param_grid = {
    "federatedmultitaskclassifier__C": [0.01, 0.1, 1.0],
    "federatedmultitaskclassifier__omega": ["learn", "independent"],
}
warnings.simplefilter("ignore", ConvergenceWarning)  # short runs: max_rounds=50

# %%
# Route 1: metadata routing
# -------------------------
# Inside ``config_context`` (never switch routing on for a whole program
# without meaning to), ``groups=`` reaches the splitter, the estimator's
# ``fit`` (skfed estimators request it by default) and the group scorer,
# which calls ``decision_function(X, groups=...)``.
with sklearn.config_context(enable_metadata_routing=True):
    pipe = make_pipeline(
        StandardScaler(),
        FederatedMultiTaskClassifier(kernel="linear", loss="logistic", max_rounds=50,
                                     random_state=0),
    )
    search = GridSearchCV(
        pipe, param_grid, cv=cv,
        scoring=make_group_scorer(roc_auc_score, response_method="decision_function"),
    )
    search.fit(X_train, y_train, groups=g_train)
    test_auc = search.score(X_test, y_test, groups=g_test)
print("best:", search.best_params_, f"CV AUC {search.best_score_:.3f}, test AUC {test_auc:.3f}")

# %%
# Route 2: the node id as a column of X
# -------------------------------------
# No routing: the node id is column 0 of ``X`` and ``group_column=0`` tells
# the estimator.  The scaler must leave that column alone, hence the
# :class:`~sklearn.compose.ColumnTransformer` (its output keeps the id
# first).  ``GridSearchCV.fit(..., groups=...)`` without routing hands the
# groups to the splitter only, which is all ``WithinGroupKFold`` needs; a
# plain string scorer works because the ids travel inside ``X``.
Xg_train = np.column_stack([g_train, X_train])
Xg_test = np.column_stack([g_test, X_test])
pipe_column = make_pipeline(
    ColumnTransformer([("node_id", "passthrough", [0])], remainder=StandardScaler()),
    FederatedMultiTaskClassifier(kernel="linear", loss="logistic", group_column=0,
                                 max_rounds=50, random_state=0),
)
search_column = GridSearchCV(pipe_column, param_grid, cv=cv, scoring="roc_auc")
search_column.fit(Xg_train, y_train, groups=g_train)
print("best:", search_column.best_params_,
      f"CV AUC {search_column.best_score_:.3f}, "
      f"test AUC {search_column.score(Xg_test, y_test):.3f}")
same = np.allclose(search.cv_results_["mean_test_score"],
                   search_column.cv_results_["mean_test_score"])
print("both routes give the same cross-validation scores:", same)

# %%
# What goes wrong without either
# ------------------------------
# Without routing and without ``group_column``, ``fit`` never sees the node
# ids: every fit is a single-node fit, which skfed reports instead of
# silently training one global model.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", SingleNodeWarning)
    GridSearchCV(pipe, {"federatedmultitaskclassifier__C": [0.01]}, cv=cv,
                 scoring="roc_auc").fit(X_train, y_train, groups=g_train)
messages = {str(w.message) for w in caught if issubclass(w.category, SingleNodeWarning)}
print(f"{len(messages)} distinct SingleNodeWarning(s):", *messages, sep="\n  ")

# %%
# The grid
# --------
# Mean cross-validated AUC of every candidate (error bars: standard
# deviation over the folds).
results = search.cv_results_
labels = [f"C={p['federatedmultitaskclassifier__C']:g}\n"
          f"{p['federatedmultitaskclassifier__omega']}" for p in results["params"]]
fig, ax = plt.subplots(figsize=(8, 3.6))
ax.bar(np.arange(len(labels)), results["mean_test_score"],
       yerr=results["std_test_score"], color=[
           "C0" if "learn" in label else "C1" for label in labels])
ax.set_xticks(np.arange(len(labels)), labels, fontsize="small")
low = (results["mean_test_score"] - results["std_test_score"]).min()
ax.set(ylabel="CV ROC AUC (per-node folds)", ylim=(max(0.5, low - 0.05), None),
       title="Linear MOCHA on Landmine: learned vs independent Omega")
fig.tight_layout()
plt.show()
