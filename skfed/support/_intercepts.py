"""Random-effects intercepts of :class:`FederatedSparseLinearRegression`
(``per_node_intercept="shrunk"``): the clients' moments, the server's prior
and each node's shrunk intercept."""

import numpy as np
from scipy.stats import trim_mean

# Fewest clients whose moments the server needs to estimate the spread of the
# intercepts (below it, per_node_intercept="shrunk" keeps every node's own).
_MIN_PRIOR_NODES = 4


def _node_moments(y, w, layout, means, node_weight):
    """Each node's ``[W, sum w (y - mean y)^2, mean y, mean x_S]``: the
    ``s + 3`` values a client adds to its refit message with
    ``per_node_intercept="shrunk"`` (its weight ``node_weight``, its centred
    target's weighted sum of squares and its means)."""
    w = w.astype(np.float64)
    codes = np.repeat(np.arange(layout.n_nodes), np.diff(layout.offsets))
    centred = np.asarray(y, dtype=np.float64) - means[codes, 0]
    return np.column_stack([
        node_weight, np.add.reduceat(w * centred * centred, layout.offsets[:-1]), means,
    ])


def intercept_prior(rows, coef_S, trim):
    """The server's random-effects prior of the intercepts, ``(mu, ratio)``.

    ``rows`` holds what each answering client sent with
    ``per_node_intercept="shrunk"``: its refit message (``G[triu_indices(s)]``,
    ``b``, centred on its means) followed by :func:`_node_moments`' ``s + 3``
    values.  For client ``i`` of weight ``W_i`` (its samples' summed
    weights: integer weights count as repeated rows, scikit-learn's
    convention)::

        own_i  = mean y_i - mean x_{i,S} coef_S       (its exact intercept)
        rss_i  = yy_i - 2 coef_S . b_i + coef_S' G_i coef_S

    and the model ``own_i = mu + u_i + e_i``, ``u_i ~ (0, tau^2)``, ``e_i ~
    (0, sigma^2 / n_i)``; by moments::

        sigma^2 = sum rss_i / sum (W_i - 1)
        mu      = trimmed mean of own_i (a fraction ``trim`` cut at each end)
        tau^2   = max(0, var(own_i) - sigma^2 mean(1 / W_i))

    over the clients whose values are finite and consistent (``W_i >= 1``,
    ``rss_i >= 0``; a complemented rogue's negative weight fails this).  Returns ``ratio = tau^2 / sigma^2``
    (``inf`` when ``sigma^2 = 0`` or under :data:`_MIN_PRIOR_NODES` clients:
    no shrinkage); a node then takes ``mu + n r / (n r + 1) (own - mu)``.
    A corrupted client that passes the checks can only raise ``var(own)``
    and so weaken the shrinkage toward the exact intercepts; ``mu`` is
    trimmed.
    """
    rows = np.asarray(rows, dtype=np.float64)
    s = len(coef_S)
    n_tri = s * (s + 1) // 2
    if len(rows) == 0:
        return float("nan"), float("inf")
    iu = np.triu_indices(s)
    pair = np.outer(coef_S, coef_S)[iu] * np.where(iu[0] == iu[1], 1.0, 2.0)
    G, b = rows[:, :n_tri], rows[:, n_tri : n_tri + s]
    W, yy = rows[:, n_tri + s], rows[:, n_tri + s + 1]
    means = rows[:, n_tri + s + 2 :]
    rss = yy - 2.0 * (b @ coef_S) + G @ pair
    own = means[:, 0] - means[:, 1:] @ coef_S
    n_eff, dof = W, W - 1.0
    ok = np.isfinite(rows).all(axis=1) & (W >= 1) & (rss >= 0) & np.isfinite(own)
    if ok.sum() < _MIN_PRIOR_NODES:
        mu = float(own[ok].mean()) if ok.any() else float("nan")
        return mu, float("inf")
    own, n_eff, dof, rss = own[ok], n_eff[ok], dof[ok], rss[ok]
    mu = float(trim_mean(own, trim)) if trim > 0 else float(own.mean())
    total_dof = dof.sum()
    if total_dof <= 0:
        return mu, float("inf")
    sigma2 = rss.sum() / total_dof
    tau2 = max(0.0, float(np.var(own, ddof=1) - sigma2 * np.mean(1.0 / n_eff)))
    if sigma2 <= 0:
        return mu, float("inf")
    return mu, tau2 / sigma2


def shrunk_intercepts(own, n_eff, mu, ratio):
    """``mu + n r / (n r + 1) (own - mu)`` (``own`` when ``ratio`` is inf)."""
    own = np.asarray(own, dtype=np.float64)
    if not np.isfinite(ratio):
        return own.copy()
    n_eff = np.asarray(n_eff, dtype=np.float64)
    weight = n_eff * ratio / (n_eff * ratio + 1.0)
    return mu + weight * (own - mu)


def _node_weights(w, layout):
    """Each node's weight ``W_i`` (its number of samples when unweighted)."""
    return np.add.reduceat(w.astype(np.float64), layout.offsets[:-1])
