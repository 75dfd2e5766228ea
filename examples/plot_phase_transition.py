"""
=============================================================
Phase transition of one-shot federated support recovery
=============================================================

Barik & Honorio prove that
:class:`~skfed.support.FederatedSupportRecovery` — every client sends the
support of its own per-feature lasso solution as a packed bit vector, once,
and the server keeps the features that half of the clients chose — recovers
the support of an ``s``-sparse linear model *exactly* with high probability
once every client has ``n_i = O(s^2 log s)`` samples, with ``O(log d)``
clients, **whatever the dimension d**.

We reproduce the shape of their phase transition: the probability of exact
recovery over independent problems from
:func:`~skfed.datasets.make_federated_sparse_regression` (heterogeneous
clients: their own predictor variance, correlation and noise level) against
``C``, where ``n_i = 10^C s^2 log s``, for two dimensions.  If the theory
holds, the curves jump from 0 to 1 at the same ``C`` for both.

The full experiment of the paper (more dimensions, more runs, the number of
clients, rogue and dropped clients) is
``benchmarks/support_phase_transition.py``; draw its JSON output with
:meth:`PhaseTransitionDisplay.from_json
<skfed.plotting.PhaseTransitionDisplay.from_json>`.
"""

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

from skfed.datasets import make_federated_sparse_regression
from skfed.plotting import PhaseTransitionDisplay
from skfed.support import FederatedSupportRecovery

s = 3
C_grid = np.array([0.25, 0.5, 0.625, 0.75, 0.875, 1.0, 1.25])
dims = (100, 1000)
n_runs = 12
# the generator's settings: heterogeneous clients, weakly correlated predictors
data = dict(coef_range=(1.0, 1.5), variance_range=(0.8, 1.25), correlation=(0.0, 0.1),
            covariance="toeplitz", noise_range=(0.1, 0.5), sample_size_spread=0.0)
# one fixed lambda for every run: half the smallest population signal
lam = 0.5 * data["variance_range"][0] * data["coef_range"][0]
alphas = (lam, "auto")


def recovery_probability(d, n_i, g):
    """Share of the runs in which each alpha recovers the support exactly."""
    hits = np.zeros(len(alphas))
    for run in range(n_runs):
        X, y, groups, support, _ = make_federated_sparse_regression(
            n_clients=g, n_samples=n_i, n_features=d, n_informative=s,
            random_state=1000 * d + run, **data)
        for k, alpha in enumerate(alphas):
            selector = FederatedSupportRecovery(alpha, fit_intercept=False).fit(
                X, y, groups=groups)
            hits[k] += np.array_equal(selector.support_, support)
    return hits / n_runs


curves, labels, bytes_per_fit = [], [], {}
for d in dims:
    g = math.ceil(2 * math.log(d))
    probs = np.array([
        recovery_probability(d, max(2, round(10**C * s * s * math.log(s))), g)
        for C in C_grid
    ])
    for k, alpha in enumerate(alphas):
        curves.append(probs[:, k])
        labels.append(f"d={d}, g={g}, " + ("fixed lambda" if alpha == lam else "alpha='auto'"))
        print(f"{labels[-1]:32s}", np.round(probs[:, k], 2))
    bytes_per_fit[d] = g * (math.ceil(d / 8) + 16)

# %%
# The transition
# --------------
# Solid lines: the fixed lambda; dashed: ``alpha="auto"``, the rule every
# client applies to its own data (a per-feature threshold at ``sqrt(2 log
# d)`` standard errors), whose threshold grows with ``d``, so its transition
# may move right as ``d`` grows.
fig, ax = plt.subplots(figsize=(7, 4))
disp = PhaseTransitionDisplay.from_arrays(
    C_grid, curves, labels=labels, ax=ax,
    xlabel=r"C  ($n_i = 10^C s^2 \log s$ samples per client, s = 3)",
    title="Exact support recovery, one bit vector per client",
    linestyles=["--" if "auto" in label else "-" for label in labels],
)
fig.tight_layout()

# %%
# What it costs
# -------------
# One message of ``ceil(d / 8)`` bytes plus a 16-byte header per client, once.
for d, n_bytes in bytes_per_fit.items():
    print(f"d={d}: {n_bytes} bytes in total for the whole fit")
plt.show()
