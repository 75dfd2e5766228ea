"""
=========================================================
The learned collaboration graph on rotated moons (Dada)
=========================================================

Dada's synthetic setup (Zantedeschi, Bellet & Tommasi, AISTATS 2020): 100
nodes in four clusters of 10, 20, 30 and 40 nodes; all nodes of a cluster
solve the same task — the two-moons problem rotated by the cluster's angle —
and every node has only 3 to 14 training samples, too few to learn alone.
The *oracle* graph links the nodes of each cluster.

:class:`~skfed.boosting.DecentralizedBoostingClassifier` learns personalized
boosted models of 200 decision stumps and, without any server, a sparse
collaboration graph.  We compare it with the same method on the oracle
graph, and with purely local models (no graph).  The pictures follow the
paper's Figure 2: node size = confidence (the node's share of the data),
colour = the node's local test error, edge width = weight.
"""

# %%
# Data
# ----
import matplotlib.pyplot as plt
import numpy as np

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.datasets import make_rotated_moons
from skfed.plotting import CollaborationGraphDisplay

X, X_test, y, y_test, g, g_test, oracle, clusters = make_rotated_moons(
    n_nodes=100, cluster_sizes=[10, 20, 30, 40], n_samples_range=(3, 14),
    padding_std=0.0, random_state=0,
)
n_nodes = len(clusters)
print(f"{n_nodes} nodes, {X.shape[0]} training samples "
      f"({np.bincount(g).min()}-{np.bincount(g).max()} per node), {X.shape[1]} features")

# %%
# Three fits
# ----------
# With their defaults: 100 model iterations (node wake-ups) per node on
# average, ``beta=3``, ``mu=3``.  With ``graph=None`` the graph is learned
# from purely local models first, then re-learned every ``n_nodes`` model
# iterations (the paper's alternation: 100 iterations for 100 nodes); every
# node keeps at most 5 neighbours (the paper's Remark 2, dropping those
# with the most different models) and every learned graph is sparsified to
# connected (only the weights above the largest threshold at which the
# graph stays connected are kept; the authors' code thresholds its graphs
# on a coarser grid).
common = dict(n_estimators=200, random_state=0)
models = {
    "Local (no graph)": DecentralizedBoostingClassifier(
        mu=0.0, graph=np.zeros((n_nodes, n_nodes)), **common),
    "Dada, oracle graph": DecentralizedBoostingClassifier(graph=oracle, **common),
    "Dada, learned graph": DecentralizedBoostingClassifier(**common),
}
same_cluster = clusters[:, None] == clusters[None, :]
for name, model in models.items():
    model.fit(X, y, groups=g)
    W = model.collaboration_graph_.toarray()
    inside = W[same_cluster].sum() / W.sum() if W.sum() > 0 else float("nan")
    print(f"{name:20s} test accuracy {model.score(X_test, y_test, groups=g_test):.3f}  "
          f"edges {np.count_nonzero(np.triu(W)):5d}  weight inside clusters {inside:.2f}  "
          f"bytes {model.n_bytes_sent_:>11,d}")

# %%
# For scale: a graph that ignored the tasks would put the share of
# same-cluster pairs among all pairs inside the clusters.  Note that even
# the local models pay for one setup exchange: the nodes agree on every
# feature's range (for the stump thresholds) by min/max flooding over the
# network, which is complete here.
print(f"same-cluster share of all pairs: "
      f"{(same_cluster.sum() - n_nodes) / (n_nodes * (n_nodes - 1)):.2f}")

# %%
# The graphs
# ----------
# Both graphs are drawn at the same node positions (a spring layout of the
# oracle graph, so the four clusters appear as four groups), with the same
# colour scale.  Colour is each node's test error with the model learned on
# that graph.
fig, axes = plt.subplots(1, 2, figsize=(12, 5.5))
oracle_disp = CollaborationGraphDisplay.from_estimator(
    models["Dada, oracle graph"], X_test, y_test, g_test, ax=axes[0], edge_width=0.5,
    title="Oracle graph (same cluster = linked)",
)
learned_disp = CollaborationGraphDisplay.from_estimator(
    models["Dada, learned graph"], X_test, y_test, g_test, layout=oracle_disp.pos_,
    ax=axes[1], title="Graph learned by Dada",
)
for disp in (oracle_disp, learned_disp):
    disp.nodes_.set_clim(0, 0.6)
fig.tight_layout()

# %%
# Where the learned weight goes
# -----------------------------
# The learned graph as a matrix, nodes ordered by cluster (black lines):
# weight inside the diagonal blocks links nodes that solve the same task.
W = models["Dada, learned graph"].collaboration_graph_.toarray()
fig, ax = plt.subplots(figsize=(5.5, 4.8))
im = ax.imshow(W, cmap="Greys", interpolation="nearest")
for edge in np.cumsum([10, 20, 30])[:, None] - 0.5:
    ax.axhline(edge, color="C3", lw=0.8)
    ax.axvline(edge, color="C3", lw=0.8)
fig.colorbar(im, ax=ax, label="weight")
ax.set(title="Learned weights (nodes by cluster)", xlabel="node", ylabel="node")
fig.tight_layout()

# %%
# Accuracy per cluster
# --------------------
# The oracle graph is an upper reference: it knows which nodes share a task.
fig, ax = plt.subplots(figsize=(7, 3.5))
width = 0.27
for k, (name, model) in enumerate(models.items()):
    acc = [model.score(X_test[clusters[g_test] == c], y_test[clusters[g_test] == c],
                       groups=g_test[clusters[g_test] == c]) for c in range(4)]
    ax.bar(np.arange(4) + (k - 1) * width, acc, width, label=name)
ax.set_xticks(np.arange(4), [f"cluster {c}\n({n} nodes)" for c, n in
                             enumerate(np.bincount(clusters))])
ax.set(ylabel="test accuracy", ylim=(0.4, 1.08))
ax.legend(loc="upper center", ncol=3, fontsize="small")
fig.tight_layout()
plt.show()
