"""
=================================================================
Private support recovery: a few randomized bits per client
=================================================================

With ``privacy=DifferentialPrivacy(epsilon)``,
:class:`~skfed.support.FederatedSupportRecovery` makes every client's one
message *locally* differentially private by randomized response.  Flipping
all ``d`` bits of a client with the budget split over them leaves almost
nothing (at ``epsilon = 3`` and ``d = 20`` a bit is flipped with probability
0.46).  Instead each client reports only ``k`` features, chosen by public
randomness (``n_reported="auto"``: the ``k`` maximizing ``k tanh(epsilon /
2k)^2``, one feature up to ``epsilon = 3``), each with a much smaller flip
probability, and the server tests the randomized votes: a feature is kept
only if its votes are significantly above what a feature outside the
support reaches after randomization.  Noise never becomes a confident
support, at any epsilon.

We measure exact recovery against the number of clients for several
budgets on :func:`~skfed.datasets.make_federated_sparse_regression`
(``d = 20``, ``s = 3``, 60 samples per client), beside Local: each client
alone, its own t-tests with a Bonferroni correction, epsilon 0 because it
sends nothing.  The table for 300 and 3,000 clients is
``benchmarks/privacy_utility.py --support-table``.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np

from skfed.datasets import make_federated_sparse_regression
from skfed.privacy import DifferentialPrivacy
from skfed.support import FederatedSupportRecovery

d, s, n_i, n_runs = 20, 3, 60, 5
clients = [30, 100, 300, 1000, 3000]
budgets = [None, 10.0, 3.0, 1.0]


def recovery(epsilon, g):
    privacy = None if epsilon is None else DifferentialPrivacy(epsilon=epsilon, delta=1e-6)
    hits = 0
    for run in range(n_runs):
        X, y, groups, support, _ = make_federated_sparse_regression(
            n_clients=g, n_samples=n_i, n_features=d, n_informative=s, random_state=run)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # too few reports
            selector = FederatedSupportRecovery(privacy=privacy, random_state=run).fit(
                X, y, groups=groups)
        hits += np.array_equal(selector.support_, support)
    return hits / n_runs


fig, ax = plt.subplots(figsize=(6, 4))
for epsilon in budgets:
    probs = [recovery(epsilon, g) for g in clients]
    label = "no privacy" if epsilon is None else rf"$\epsilon$ = {epsilon:g}"
    ax.plot(clients, probs, marker="o", label=label)
    print(f"{label:16s}", probs)
ax.set(xscale="log", xlabel="clients", ylabel="P(exact support recovery)",
       title=f"Randomized response, k reported features (d = {d})")
ax.set_ylim(-0.03, 1.03)
ax.grid(alpha=0.3)
ax.legend()

# %%
# What a client spent, and what it sent
# -------------------------------------
# The accountant's epsilon per client, the flip probability and the number
# of features each client reported are on the fitted estimator; so are the
# p-values of the server's test.
X, y, groups, support, _ = make_federated_sparse_regression(
    n_clients=300, n_samples=n_i, n_features=d, n_informative=s, random_state=0)
selector = FederatedSupportRecovery(
    privacy=DifferentialPrivacy(epsilon=3.0, delta=1e-6), random_state=0
).fit(X, y, groups=groups)
print("features reported per client:", selector.privacy_["n_reported"])
print("flip probability per bit:", round(selector.privacy_["flip_probability"], 4))
print("epsilon spent by the first clients:", np.round(selector.privacy_spent_[:5], 3))
print("bytes sent:", selector.n_bytes_sent_)
print("support recovered exactly:", np.array_equal(selector.support_, support))

# %%
# Noise stays noise
# -----------------
# On a target independent of the features no budget returns a feature.
rng = np.random.default_rng(0)
noise = rng.normal(size=len(y))
for epsilon in (0.3, 1.0, 3.0, 10.0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        found = FederatedSupportRecovery(
            privacy=DifferentialPrivacy(epsilon=epsilon, delta=1e-6)).fit(
            X, noise, groups=groups).support_
    print(f"epsilon={epsilon:g}: {int(found.sum())} feature(s) returned")
plt.show()
