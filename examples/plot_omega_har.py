"""
===========================================================
Learned task relationships on HAR, against Global and Local
===========================================================

Twenty-one people carried a smartphone; the task of every person (a node)
is to tell, from 561 features of a 2.56 s window of accelerometer and
gyroscope signals, whether that person is sitting (MOCHA's HAR task).  We
compare

* **Global**: one linear SVM on the pooled data of everybody (the data
  would have to leave the phones),
* **Local**: one linear SVM per person, trained on that person's data
  only (nothing is communicated),
* **MOCHA** (:class:`~skfed.multitask.FederatedMultiTaskClassifier` with
  ``kernel="linear"``): one linear model per person, coupled through a
  learned task-relationship matrix ``Omega``, trained through a server
  that sees only model updates.

Every person keeps a quarter of their windows for testing, so every node is
scored on its own data.
"""

# %%
# Data and per-node split
# -----------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from skfed.baselines import LocalEstimator, pooled_data_bytes
from skfed.datasets import load_har, train_test_split_per_node
from skfed.multitask import FederatedMultiTaskClassifier
from skfed.plotting import CommunicationCurveDisplay, TaskRelationshipDisplay

X, y, groups = load_har(task="sitting", return_X_y=True)
X_train, X_test, y_train, y_test, g_train, g_test = train_test_split_per_node(
    X, y, groups, test_size=0.25, random_state=0
)
print(f"{len(np.unique(groups))} people, {X_train.shape[0]} training windows, "
      f"{X.shape[1]} features, {np.mean(y == 1):.1%} sitting")

# %%
# Fit the three models
# --------------------
# The MOCHA run is capped at 100 communication rounds and the linear SVMs at
# liblinear's default iterations; they may stop before their tolerances
# (a ``ConvergenceWarning``, silenced here), which only means the models
# could be polished further.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    glob = make_pipeline(StandardScaler(), LinearSVC(C=0.1)).fit(X_train, y_train)
    local = LocalEstimator(LinearSVC(C=0.1), n_jobs=2).fit(X_train, y_train, groups=g_train)
    mocha = FederatedMultiTaskClassifier(
        kernel="linear", omega="learn", C=0.18, max_rounds=100, random_state=0
    ).fit(X_train, y_train, groups=g_train)


def per_node_error(predict):
    """Test error of every person, in the order of mocha.nodes_."""
    return np.array([
        np.mean(predict(X_test[g_test == node], node) != y_test[g_test == node])
        for node in mocha.nodes_
    ])


errors = {
    "Global": per_node_error(lambda X, node: glob.predict(X)),
    "Local": per_node_error(lambda X, node: local.predict(X, groups=np.full(len(X), node))),
    "MOCHA": per_node_error(lambda X, node: mocha.predict(X, groups=np.full(len(X), node))),
}
bytes_sent = {
    "Global": pooled_data_bytes(X_train, y_train, groups=g_train),
    "Local": local.n_bytes_sent_,
    "MOCHA": mocha.n_bytes_sent_,
}
for name, err in errors.items():
    print(f"{name:6s}  mean error {err.mean():6.2%}   worst node {err.max():6.2%}   "
          f"bytes {bytes_sent[name]:>11,d}")

# %%
# Per-person test error
# ---------------------
# Each bar group is one person.  Local models know each person's habits but
# learn from ~260 windows only; the global model learns from everybody but
# ignores who is who.  MOCHA's models are personal, and learn from the others
# through ``Omega``.
fig, ax = plt.subplots(figsize=(9, 3.5))
width = 0.27
positions = np.arange(len(mocha.nodes_))
for k, (name, err) in enumerate(errors.items()):
    ax.bar(positions + (k - 1) * width, 100 * err, width,
           label=f"{name} (mean {100 * err.mean():.2f} %)")
ax.set_xticks(positions, [str(node) for node in mocha.nodes_])
ax.set(xlabel="person (UCI subject id)", ylabel="test error (%)",
       title="HAR, sitting vs rest: error of every person")
ax.legend()
fig.tight_layout()
best = errors["MOCHA"] <= np.minimum(errors["Global"], errors["Local"])
print(f"MOCHA is at least as good as both baselines for {best.sum()} of "
      f"{len(best)} people")

# %%
# The learned task relationships
# ------------------------------
# ``omega_`` is the precision matrix of the tasks: a negative entry
# ``omega_tu`` pulls the models of people t and u together.  The heat map
# orders the people by hierarchical clustering of the task correlations
# ``sigma_tu / sqrt(sigma_tt sigma_uu)`` (``Sigma = Omega^-1``, right), so
# people whose models are alike form blocks along the diagonal.  The colour
# scale spans the off-diagonal entries, so the (larger) diagonal saturates.
fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
TaskRelationshipDisplay.from_estimator(mocha, ax=axes[0])
TaskRelationshipDisplay.from_estimator(mocha, kind="correlation", ax=axes[1], vmax=1.0)
fig.tight_layout()

# %%
# What the fit communicated
# -------------------------
# Every round, each person's phone receives its model (561 + 1 floats) and
# sends back the change of its dual summary (as many floats) plus three
# floats of duality-gap terms.  The primal objective and the duality gap
# against the cumulative bytes show what each additional megabyte buys; the
# dashed line is what shipping the raw training data to a server once would
# cost.  With this small ``lam`` the gap closes slowly (the run stops at
# ``max_rounds``); the test error above is already that of a useful model.
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for ax, curve in zip(axes, ["objective", "duality_gap"]):
    disp = CommunicationCurveDisplay.from_estimator(mocha, curve=curve, ax=ax,
                                                    name="MOCHA (linear)")
    ax.axvline(bytes_sent["Global"], color="k", ls="--", lw=1,
               label="pooled raw data (Global)")
    ax.legend()
fig.tight_layout()
print(f"relative duality gap after {mocha.n_iter_} rounds: "
      f"{mocha.duality_gap_curve_[-1] / mocha.objective_curve_[-1]:.2f}")
print(mocha.communication_.summary())
plt.show()
