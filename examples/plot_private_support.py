"""
=================================================================
Private support recovery: randomized response on the vote bits
=================================================================

With ``privacy=DifferentialPrivacy(epsilon)``,
:class:`~skfed.support.FederatedSupportRecovery` makes every client's one
message *locally* differentially private: each of its ``d`` vote bits is
flipped with probability ``p``, chosen so that the whole ``d``-bit message
spends ``epsilon`` (``p = 1 / (1 + exp(epsilon / d))`` at ``delta = 0``).
The server debiases the vote, and the median rule stays consistent, but it
needs more clients: about ``coth(epsilon / (2 d))^2`` times more.

We measure the probability of exact recovery against the number of clients
for several budgets, on the heterogeneous sparse regression problems of
:func:`~skfed.datasets.make_federated_sparse_regression` (``d = 20``
features, ``s = 3`` of them in the support, 60 samples per client).  The
whole grid, larger ``d`` and more runs are in
``benchmarks/support_phase_transition.py --only d``.
"""

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

from skfed.datasets import make_federated_sparse_regression
from skfed.privacy import DifferentialPrivacy
from skfed.support import FederatedSupportRecovery

d, s, n_i, n_runs = 20, 3, 60, 8
clients = [3, 10, 30, 100, 300, 1000]
budgets = [None, 20.0, 10.0, 5.0]
data = dict(coef_range=(1.0, 1.5), variance_range=(0.8, 1.25), correlation=(0.0, 0.1),
            covariance="toeplitz", noise_range=(0.1, 0.5), sample_size_spread=0.0)
lam = 0.5 * data["variance_range"][0] * data["coef_range"][0]


def recovery(epsilon, g):
    privacy = None if epsilon is None else DifferentialPrivacy(epsilon=epsilon, delta=0.0)
    hits = 0
    for run in range(n_runs):
        X, y, groups, support, _ = make_federated_sparse_regression(
            n_clients=g, n_samples=n_i, n_features=d, n_informative=s,
            random_state=run, **data)
        selector = FederatedSupportRecovery(
            lam, fit_intercept=False, privacy=privacy, random_state=run
        ).fit(X, y, groups=groups)
        hits += np.array_equal(selector.support_, support)
    return hits / n_runs


fig, ax = plt.subplots(figsize=(6, 4))
for epsilon in budgets:
    probs = [recovery(epsilon, g) for g in clients]
    if epsilon is None:
        label = "no privacy"
    else:
        label = rf"$\epsilon$ = {epsilon:g} (x{1 / math.tanh(epsilon / (2 * d)) ** 2:.0f} clients)"
    ax.plot(clients, probs, marker="o", label=label)
    print(label, probs)
ax.set(xscale="log", xlabel="clients", ylabel="P(exact support recovery)",
       title=f"Randomized response on d = {d} vote bits per client")
ax.set_ylim(-0.03, 1.03)
ax.grid(alpha=0.3)
ax.legend()
plt.show()

# %%
# What a client spent is read from the fitted estimator: the accountant's
# epsilon per client (zero for a client that did not answer) and the
# mechanism.
X, y, groups, support, _ = make_federated_sparse_regression(
    n_clients=300, n_samples=n_i, n_features=d, n_informative=s, random_state=0, **data)
selector = FederatedSupportRecovery(
    lam, fit_intercept=False, privacy=DifferentialPrivacy(epsilon=10.0, delta=1e-6),
    random_state=0,
).fit(X, y, groups=groups)
print("flip probability per bit:", round(selector.privacy_["flip_probability"], 4))
print("epsilon spent by the first clients:", np.round(selector.privacy_spent_[:5], 3))
print("support recovered exactly:", np.array_equal(selector.support_, support))
