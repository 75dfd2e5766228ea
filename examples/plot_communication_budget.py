"""
===========================================
Accuracy against a communication budget
===========================================

How accurate can personalized models get for a given number of bytes?  We
give the decentralized methods of :mod:`skfed.boosting` a
``communication_budget`` — the fit stops as soon as the network has carried
that many bytes — and plot test accuracy against the bytes actually sent
(the idea of Dada's Table 2), on the rotated-moons setup of
:ref:`sphx_glr_auto_examples_plot_moons_graph.py`:

* **Dada** (:class:`~skfed.boosting.DecentralizedBoostingClassifier`) on the
  oracle graph and on a learned graph: a model update is one stump index
  (8 bits) and one float, to each neighbour;
* **Perso-lin** (:class:`~skfed.boosting.PersonalizedLinearClassifier`) on
  the oracle graph: an update is the whole linear model (21 floats), to each
  neighbour;
* the **Local** baseline (boosting on every node alone: nothing but the
  setup is sent) and the **Global** one (boosting on the pooled data: every
  node ships its raw data once, :func:`~skfed.baselines.pooled_data_bytes`).
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from skfed.baselines import pooled_data_bytes
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.datasets import make_rotated_moons
from skfed.plotting import CommunicationCurveDisplay

X, X_test, y, y_test, g, g_test, oracle, clusters = make_rotated_moons(
    n_nodes=100, cluster_sizes=[10, 20, 30, 40], n_samples_range=(3, 14),
    padding_std=0.0, random_state=0,
)
n_nodes = len(clusters)
max_iter = 300 * n_nodes

methods = {
    "Dada, oracle graph": lambda budget: DecentralizedBoostingClassifier(
        n_estimators=200, beta=10.0, mu=3.0, graph=oracle, max_iter=max_iter,
        communication_budget=budget, random_state=0),
    "Dada, learned graph": lambda budget: DecentralizedBoostingClassifier(
        n_estimators=200, beta=10.0, mu=3.0, lambda_graph=10.0,
        graph_update_every=max_iter, max_iter=max_iter,
        communication_budget=budget, random_state=0),
    "Perso-lin, oracle graph": lambda budget: PersonalizedLinearClassifier(
        mu=1.0, graph=oracle, max_iter=max_iter, communication_budget=budget,
        random_state=0),
}

# %%
# Fit every method under budgets from 300 kB to 100 MB
# ------------------------------------------------------
budgets = np.geomspace(3e5, 1e8, 9).astype(int)
results = {}
for name, make in methods.items():
    points = []
    for budget in budgets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make(int(budget)).fit(X, y, groups=g)
        points.append((model.n_bytes_sent_, model.score(X_test, y_test, groups=g_test),
                       model.n_iter_))
    results[name] = np.array(points)
    print(name)
    for (sent, acc, n_iter), budget in zip(results[name], budgets):
        print(f"   budget {budget:>11,d}  sent {int(sent):>11,d}  "
              f"iterations {int(n_iter):6d}  accuracy {acc:.3f}")

# %%
# The baselines
# -------------
stump = DecisionTreeClassifier(max_depth=1)
glob = AdaBoostClassifier(stump, n_estimators=200, random_state=0).fit(X, y)
glob_bytes = pooled_data_bytes(X, y, groups=g)
local = DecentralizedBoostingClassifier(
    n_estimators=200, beta=10.0, mu=0.0, graph=np.zeros((n_nodes, n_nodes)),
    max_iter=max_iter, random_state=0).fit(X, y, groups=g)
print(f"Global AdaBoost: accuracy {glob.score(X_test, y_test):.3f}, "
      f"{glob_bytes:,d} bytes of raw data")
print(f"Local boosting:  accuracy {local.score(X_test, y_test, groups=g_test):.3f}, "
      f"{local.n_bytes_sent_:,d} bytes (the setup only)")

# %%
# Accuracy against bytes
# ----------------------
# Each marker is one fit.  Every boosting run first pays a fixed setup: the
# nodes agree on the feature ranges of the stumps by min/max flooding over
# the (complete) network, 3.3 MB here, which the budget does not stop — so
# below that cost no boosting step is taken and the accuracy is that of the
# empty model.  The learned graph adds the cost of learning it.  After that,
# Dada's updates are so small that ~28,000 of them cost about as much as
# ~4,400 of Perso-lin's (compare the iteration counts printed above).  On
# this data the raw training set is small, so pooling it (Global) is the
# cheapest option of all — but one model for four rotated tasks is not
# accurate.
fig, ax = plt.subplots(figsize=(8, 4.5))
for name, points in results.items():
    CommunicationCurveDisplay(points[:, 0], points[:, 1], ylabel="test accuracy",
                              name=name).plot(ax=ax, xscale="log", marker="o")
ax.axhline(local.score(X_test, y_test, groups=g_test), color="0.3", ls=":",
           label="Local boosting")
ax.scatter([glob_bytes], [glob.score(X_test, y_test)], marker="*", s=200, color="k",
           zorder=3, label="Global AdaBoost (raw data pooled)")
ax.set_title("Rotated moons, 100 nodes: accuracy for a byte budget")
ax.legend(fontsize="small")
fig.tight_layout()

# %%
# The objective of the oracle-graph run against its bytes, round by round
# ---------------------------------------------------------------------------
# ``objective_curve_`` is aligned with ``bytes_per_round_``: one value per
# global iteration.  The first round carries the 3.3 MB of setup.  With the
# step ``2 K / (t + 2 K)`` the first Frank-Wolfe steps move every model almost
# all the way to a vertex of its l1 ball (radius ``beta = 10``), so the
# objective first rises before it decreases.
full = methods["Dada, oracle graph"](None).fit(X, y, groups=g)
disp = CommunicationCurveDisplay.from_estimator(
    full, curve="objective", name="Dada, oracle graph", xscale="log", yscale="log")
disp.figure_.tight_layout()
plt.show()
