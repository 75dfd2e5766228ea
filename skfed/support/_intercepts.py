"""Random-effects intercepts of :class:`FederatedSparseLinearRegression`
(``per_node_intercept="shrunk"``): the clients' moments, the server's prior
and each node's shrunk intercept."""

import numpy as np
from scipy import linalg, sparse
from scipy.stats import f as f_dist
from scipy.stats import trim_mean

# Fewest clients whose moments the server needs to estimate the spread of the
# intercepts (below it, per_node_intercept="shrunk" keeps every node's own).
_MIN_PRIOR_NODES = 4

# Significance level of the F test that lets the node-level features into
# the intercepts' prior mean.
_PRIOR_LEVEL = 0.01


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


def constant_features(X, layout):
    """Each node's bit per feature: whether the feature is constant on its rows.

    The ``ceil(d / 8)`` bytes a client adds to its refit message with
    ``per_node_intercept="shrunk"``; the server ANDs the answering clients'
    bits into the node-level features (constant within every node, so the
    centred refit cannot see them, but the intercepts' prior can).
    """
    starts, sizes = layout.offsets[:-1], np.diff(layout.offsets)
    if sparse.issparse(X):
        X = sparse.csr_matrix(X)
        codes = np.repeat(np.arange(layout.n_nodes), sizes)
        owner = sparse.csr_matrix((np.ones(X.shape[0]), (np.arange(X.shape[0]), codes)),
                                  shape=(X.shape[0], layout.n_nodes))
        differs = (X - owner @ X[starts]) != 0
        return np.asarray((owner.T @ differs.astype(np.int64)).todense()) == 0
    X = np.asarray(X)
    first = np.repeat(X[starts], sizes, axis=0)
    return ~np.logical_or.reduceat(X != first, starts, axis=0)


def node_level_values(X, layout, columns):
    """Each node's mean of the features ``columns`` (the node-level
    features' values ``z_i``; a newcomer's mean where it varies)."""
    columns = np.asarray(columns, dtype=np.intp)
    if len(columns) == 0:
        return np.zeros((layout.n_nodes, 0))
    cols = X[:, columns]
    cols = cols.toarray() if sparse.issparse(cols) else np.asarray(cols)
    sums = np.add.reduceat(cols.astype(np.float64), layout.offsets[:-1], axis=0)
    return sums / np.diff(layout.offsets)[:, None]


def _trimmed_lstsq(design, target, trim):
    """Least squares of ``target`` on ``design``, then again without the
    ``int(trim n)`` lowest and highest deleted residuals ``r_i / (1 -
    h_ii)`` (``h_ii`` the leverage: each client's residual against the fit
    of the others); returns the coefficients and the rows kept.  With
    ``design`` a column of ones every ``h_ii`` is ``1 / n`` and this is
    ``scipy.stats.trim_mean``.  The deleted residual catches a corrupted
    ``z`` far from the others, which pulls the plain fit through itself
    (its plain residual is about 0), without cutting honest clients for
    being far in ``z`` alone (cutting the clients farthest in ``z`` first
    cost School 0.3-0.5 R^2 points: its binary node-level features have
    honest far clients)."""
    coef = linalg.lstsq(design, target, cond=None)[0]
    cut = int(trim * len(target)) if trim > 0 else 0
    keep = np.arange(len(target))
    if cut and len(target) - 2 * cut >= design.shape[1]:
        # leverages from a thin QR (pivoted: a rank-deficient design keeps
        # its column space); a client alone in its direction (h_ii = 1) has
        # an infinite deleted residual
        q_, r_, _ = linalg.qr(design, mode="economic", pivoting=True)
        diag = np.abs(np.diag(r_))
        rank = int(np.sum(diag > diag[0] * max(design.shape) * np.finfo(float).eps)) \
            if len(diag) and diag[0] > 0 else 0
        leverage = np.sum(q_[:, :rank] ** 2, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            deleted = (target - design @ coef) / (1.0 - np.minimum(leverage, 1.0))
        deleted = np.where(leverage >= 1.0 - 1e-12, np.inf, deleted)
        order = np.argsort(deleted, kind="stable")
        keep = np.sort(order[cut : len(target) - cut])
        coef = linalg.lstsq(design[keep], target[keep], cond=None)[0]
    return coef, keep


def intercept_prior(rows, coef_S, trim, levels=None):
    """The server's random-effects prior of the intercepts, ``(mu, ratio, gamma)``.

    ``rows`` holds what each answering client sent with
    ``per_node_intercept="shrunk"``: its refit message (``G[triu_indices(s)]``,
    ``b``, centred on its means) followed by :func:`_node_moments`' ``s + 3``
    values; ``levels`` (n_rows, q) the same clients' values of the ``q``
    node-level features (:func:`constant_features`), or None (``q = 0``).
    For client ``i`` of weight ``W_i`` (its samples' summed weights: integer
    weights count as repeated rows, scikit-learn's convention)::

        own_i  = mean y_i - mean x_{i,S} coef_S       (its exact intercept)
        rss_i  = yy_i - 2 coef_S . b_i + coef_S' G_i coef_S

    and the model ``own_i = mu + z_i' gamma + u_i + e_i``, ``u_i ~ (0,
    tau^2)``, ``e_i ~ (0, sigma^2 / W_i)``; by moments::

        sigma^2     = sum rss_i / sum (W_i - 1)
        (mu, gamma) = least squares of own_i on [1, z_i], refitted without
                      the int(trim n) lowest and highest deleted residuals
                      r_i / (1 - h_ii) (h_ii the leverage),
                      kept if the F test of gamma = 0 (residual sums of
                      squares against the mean's, over the clients the
                      trimmed fit kept) rejects at level _PRIOR_LEVEL; else gamma =
                      0 and mu is the trimmed mean of own_i (as with q = 0)
        tau^2       = max(0, sum r_i^2 / (n - q - 1) - sigma^2 mean(1 / W_i))
                      (r_i = own_i - mu: sum r_i^2 / (n - 1) when gamma = 0)

    over the clients whose values are finite and consistent (``W_i >= 1``,
    ``rss_i >= 0``; a complemented rogue's negative weight fails this).
    Returns ``ratio = tau^2 / sigma^2`` (``inf`` when ``sigma^2 = 0`` or
    under :data:`_MIN_PRIOR_NODES` + ``q`` clients: no shrinkage); a node
    then takes ``p_i + W_i r / (W_i r + 1) (own_i - p_i)``, ``p_i = mu +
    z_i' gamma``.  A corrupted client that passes the checks can only raise
    the residuals' spread and so weaken the shrinkage toward the exact
    intercepts; ``mu`` and ``gamma`` are trimmed.
    """
    rows = np.asarray(rows, dtype=np.float64)
    s = len(coef_S)
    n_tri = s * (s + 1) // 2
    q = 0 if levels is None else np.shape(levels)[1]
    gamma = np.zeros(q)
    if len(rows) == 0:
        return float("nan"), float("inf"), gamma
    levels = np.zeros((len(rows), 0)) if levels is None else np.asarray(levels, np.float64)
    iu = np.triu_indices(s)
    pair = np.outer(coef_S, coef_S)[iu] * np.where(iu[0] == iu[1], 1.0, 2.0)
    G, b = rows[:, :n_tri], rows[:, n_tri : n_tri + s]
    W, yy = rows[:, n_tri + s], rows[:, n_tri + s + 1]
    means = rows[:, n_tri + s + 2 :]
    rss = yy - 2.0 * (b @ coef_S) + G @ pair
    own = means[:, 0] - means[:, 1:] @ coef_S
    n_eff, dof = W, W - 1.0
    ok = (np.isfinite(rows).all(axis=1) & np.isfinite(levels).all(axis=1) & (W >= 1)
          & (rss >= 0) & np.isfinite(own))
    if ok.sum() < _MIN_PRIOR_NODES + q:
        mu = float(own[ok].mean()) if ok.any() else float("nan")
        return mu, float("inf"), gamma
    own, n_eff, dof, rss, levels = own[ok], n_eff[ok], dof[ok], rss[ok], levels[ok]
    mu = float(trim_mean(own, trim)) if trim > 0 else float(own.mean())
    spread = float(np.var(own, ddof=1))
    if q:
        design = np.column_stack([np.ones(len(own)), levels])
        solution, keep = _trimmed_lstsq(design, own, trim)
        resid = own - design @ solution
        # the test on the rows the trimmed fit kept (a rogue's intercept
        # would hide gamma in both sums)
        kept = own[keep]
        rss_q = float(resid[keep] @ resid[keep])
        rss_0 = float(np.sum((kept - kept.mean()) ** 2))
        dof_q = len(keep) - q - 1
        # z enters only where it explains the intercepts (F test at
        # _PRIOR_LEVEL): uninformative node-level features cost newcomers
        # up to 0.7 R^2 points on held-out families when always used, 1.1
        # (25 nodes, q = 8) at level 0.05, at most 0.09 at 0.01
        # (benchmarks/support_shrunk_intercepts.py node-level-noise)
        if dof_q > 0 and rss_q < rss_0 and (
                rss_q == 0 or f_dist.sf((rss_0 - rss_q) / q / (rss_q / dof_q), q, dof_q)
                < _PRIOR_LEVEL):
            mu, gamma = float(solution[0]), solution[1:]
            spread = float(resid @ resid) / max(len(own) - q - 1, 1)
    total_dof = dof.sum()
    if total_dof <= 0:
        return mu, float("inf"), gamma
    sigma2 = rss.sum() / total_dof
    tau2 = max(0.0, spread - sigma2 * np.mean(1.0 / n_eff))
    if sigma2 <= 0:
        return mu, float("inf"), gamma
    return mu, tau2 / sigma2, gamma


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
