"""
=============================================================
Support recovery that improves with every client
=============================================================

:class:`~skfed.support.FederatedSupportRecovery` runs Barik & Honorio's
one-shot protocol: every client sends one bit per feature, once, and the
server votes.  Its default rule is chosen for the vote: each client tests
every feature at a known null selection rate (0.317): the OLS t-test when it
has more samples than features; else, when its own rows show correlated
features, the t-test of the feature given its few closest features, and
otherwise the test of the feature's correlation with the target.  The
server keeps a feature when its votes are significantly above that rate,
with a correction over the ``d`` features.
A feature that clients detect a little more often than a null one is then
recovered once there are enough clients, and more clients never hurt.

We measure the probability of exact recovery against the number of clients
on three designs from
:func:`~skfed.datasets.make_federated_sparse_regression` (independent
features, Toeplitz-correlated features with ``rho = 0.5``, and heterogeneous
clients with their own variances, correlations and noise levels), with 10
samples per client and coefficients of 3 noise standard deviations, beside
the thresholds of the former default (``z = sqrt(2 log d)`` per client and
the median vote), which wastes the clients: a client that must detect a
feature on its own, more often than not, rarely does with 10 samples.

The full grids (more runs, samples per client, up to 10,000 clients) are in
``benchmarks/support_phase_transition.py``; draw its JSON output with
:meth:`PhaseTransitionDisplay.from_json
<skfed.plotting.PhaseTransitionDisplay.from_json>`.
"""

# %%
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np

from skfed.datasets import make_federated_sparse_regression
from skfed.plotting import PhaseTransitionDisplay
from skfed.support import FederatedSupportRecovery

d, s, n_i, n_runs = 50, 5, 10, 6
clients = [10, 30, 100, 300, 1000, 3000]
designs = {
    "independent": dict(correlation=0.0, variance_range=1.0, noise_range=1.0),
    "Toeplitz 0.5": dict(correlation=0.5, variance_range=1.0, noise_range=1.0),
    "heterogeneous": dict(correlation=(0.0, 0.5), variance_range=(0.5, 2.0),
                          noise_range=(0.5, 1.5)),
}
rules = {"defaults": {}, "former thresholds": dict(auto_z=math.sqrt(2 * math.log(d)),
                                                    threshold=0.5)}


def recovery(design, g):
    """Share of the runs in which each rule recovers the support exactly."""
    hits = np.zeros(len(rules))
    for run in range(n_runs):
        X, y, groups, support, _ = make_federated_sparse_regression(
            n_clients=g, n_samples=n_i, n_features=d, n_informative=s,
            coef_range=(3.0, 3.0), sample_size_spread=0.0, random_state=run,
            **designs[design])
        for k, params in enumerate(rules.values()):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # too few clients
                selector = FederatedSupportRecovery(**params).fit(X, y, groups=groups)
            hits[k] += np.array_equal(selector.support_, support)
    return hits / n_runs


curves, labels = [], []
for design in designs:
    probs = np.array([recovery(design, g) for g in clients])
    for k, rule in enumerate(rules):
        curves.append(probs[:, k])
        labels.append(f"{design}, {rule}")
        print(f"{labels[-1]:36s}", np.round(probs[:, k], 2))

# %%
# Exact recovery against the number of clients
# ---------------------------------------------
# Solid lines: the defaults; dashed: the former thresholds.  The defaults
# reach exact recovery on every design once there are enough clients and
# stay there.  On the Toeplitz design a feature next to a support feature
# shares its marginal correlation with the target; a 10-sample client whose
# rows show the correlation (most of them here) tests each feature given
# its two closest features, which removes it, and the server's margin
# (``rogue_tolerance``) absorbs the rest.  ``n_controls_`` says which
# clients used controls.
fig, ax = plt.subplots(figsize=(7, 4))
PhaseTransitionDisplay.from_arrays(
    [clients] * len(curves), curves, labels=labels, ax=ax, xlabel="clients",
    title=f"Exact support recovery, {n_i} samples per client (d={d}, s={s})",
    linestyles=["--" if "former" in label else "-" for label in labels],
)
ax.set_xscale("log")
fig.tight_layout()

# %%
# Correlated features: clients with more samples than features
# ------------------------------------------------------------
# With ``n_i >= d + 4`` samples a client fits least squares on all the
# features and tests each coefficient: a feature correlated with the
# support but outside it is selected at the null rate, so the vote is
# exact on the Toeplitz design too.  ``ols_clients_`` says which clients
# ran that test.
for n in (20, 60):
    X, y, groups, support, _ = make_federated_sparse_regression(
        n_clients=300, n_samples=n, n_features=d, n_informative=s, coef_range=(3.0, 3.0),
        sample_size_spread=0.0, random_state=0, **designs["Toeplitz 0.5"])
    selector = FederatedSupportRecovery().fit(X, y, groups=groups)
    print(f"n_i={n}: OLS clients {selector.ols_clients_.mean():.0%}, "
          f"features selected outside the support: {int(selector.support_[~support].sum())}, "
          f"support features missed: {int((~selector.support_[support]).sum())}")

# %%
# What it costs
# -------------
# One message of ``ceil(d / 8)`` bytes plus a 16-byte header per client, once.
print(f"{clients[-1]} clients: {clients[-1] * (math.ceil(d / 8) + 16):,} bytes for the fit")
plt.show()
