"""
================================================
Online kernel learning on a stream, peer to peer
================================================

Koppel et al.'s setup: 20 nodes of a random communication network each see
a stream of samples from a 5-class mixture of Gaussians.
:class:`~skfed.online.DecentralizedKernelSGDClassifier` makes one
functional stochastic-gradient step per sample and node, pulling every node's
function toward its neighbours' (the consensus penalty), and compresses each
node's kernel expansion by kernel orthogonal matching pursuit (KOMP) after
every step, so the number of kernel centres it keeps — the *model order* —
stays bounded however long the stream runs.

We feed the stream in chunks with ``partial_fit`` and compare KOMP's error
budget ``epsilon=0.05`` with no compression (``epsilon=0``), without a
cap on the dictionaries (``max_dictionary_size=None``), so the budget alone
decides the model order.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

from skfed.baselines import LocalEstimator
from skfed.datasets import make_gaussian_mixture_network, train_test_split_per_node
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.plotting import OnlineLearningDisplay

X, y, groups, adjacency = make_gaussian_mixture_network(
    n_nodes=20, n_samples_per_node=400, n_classes=5, random_state=0
)
X_train, X_test, y_train, y_test, g_train, g_test = train_test_split_per_node(
    X, y, groups, test_size=0.25, random_state=0
)
network = SimulatedNetwork(topology=adjacency)
print(f"20 nodes, mean degree {adjacency.sum(1).mean():.1f}, "
      f"{np.bincount(g_train).min()} training samples per node")

# %%
# The stream
# ----------
# Ten chunks of 30 samples per node; after each chunk every node's model is
# scored on its own test samples.
chunk = 30
by_node = [np.flatnonzero(g_train == node) for node in range(20)]
models = {
    eps: DecentralizedKernelSGDClassifier(
        gamma=1.0, eta0=0.5, alpha=1e-3, consensus_penalty=0.1, epsilon=eps,
        max_dictionary_size=None, network=network, random_state=0)
    for eps in (0.05, 0.0)
}
seen, accuracy = [], {eps: [] for eps in models}
for start in range(0, len(by_node[0]), chunk):
    rows = np.concatenate([idx[start:start + chunk] for idx in by_node])
    for eps, model in models.items():
        model.partial_fit(X_train[rows], y_train[rows], groups=g_train[rows],
                          classes=np.arange(5))
        accuracy[eps].append(model.score(X_test, y_test, groups=g_test))
    seen.append(start + chunk)

glob = SVC(gamma=1.0).fit(X_train, y_train).score(X_test, y_test)
local = LocalEstimator(SVC(gamma=1.0)).fit(X_train, y_train, groups=g_train).score(
    X_test, y_test, groups=g_test)
for eps, model in models.items():
    print(f"epsilon={eps}: accuracy {accuracy[eps][-1]:.3f}, model order mean "
          f"{model.model_order_.mean():.0f} / max {model.model_order_.max()}, "
          f"{model.n_bytes_sent_:,d} bytes, largest KOMP error {model.komp_error_.max():.3f}")
print(f"batch SVC on pooled data {glob:.3f}, batch SVC per node {local:.3f}")

# %%
# Accuracy over the stream
# ------------------------
fig, ax = plt.subplots(figsize=(7, 3.8))
for eps, acc in accuracy.items():
    ax.plot(seen, acc, marker="o", label=f"online, epsilon={eps}")
ax.axhline(glob, color="k", ls="--", lw=1, label="batch SVC, pooled data")
ax.axhline(local, color="0.4", ls=":", lw=1, label="batch SVC, per node")
ax.set(xlabel="samples seen per node", ylabel="test accuracy",
       title="Decentralized online kernel SGD")
ax.legend(fontsize="small")
fig.tight_layout()

# %%
# Model order and consensus error
# -------------------------------
# Left: the dictionary size of every node (grey) and their mean (blue) with
# KOMP; without compression (dashed) every sample stays a kernel centre.
# Right: the mean squared disagreement ``(f_i(x) - f_j(x))^2`` between
# neighbours on the samples they exchanged, round by round.
disp = OnlineLearningDisplay.from_estimator(models[0.05])
rounds = np.arange(1, models[0.0].n_iter_ + 1)
disp.axes_[0].plot(rounds, models[0.0].model_order_curve_.mean(axis=1), "k--",
                   label="mean, epsilon=0 (no KOMP)")
disp.axes_[0].legend()
disp.figure_.tight_layout()
plt.show()
