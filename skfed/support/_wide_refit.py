"""The refit of :class:`FederatedSparseLinearRegression` on a wider candidate
set (``refit_candidates``): which features the clients' statistics cover,
and the server's choice, by cross-validation over folds of clients, between
least squares on the support and ridge on the candidates."""

import numpy as np
from scipy import linalg

# Candidates of refit_candidates="auto" (measured 16 / 32 / 64 on held-out
# families: benchmarks/support_wide_refit.py).
AUTO_CANDIDATES = 32

# Folds of answering clients the server's cross-validation uses.
N_FOLDS = 5

# Ridge penalties tried on the candidates, relative to each feature's summed
# squares (the penalty on feature j is alpha * G_jj: a standardized ridge).
RIDGE_ALPHAS = (1e-3, 1e-2, 1e-1, 1.0)

# A column whose summed squares are at most this fraction of the largest
# column's carries no data (the centred values of a feature constant within
# every node).
_ZERO_COLUMN = 1e-20


def auto_candidates(sizes):
    """``refit_candidates="auto"``'s ``c``: :data:`AUTO_CANDIDATES`, or
    fewer when the median answering client has so few rows that its
    statistics on ``c`` columns, ``c (c + 1) / 2 + c`` values, would
    outnumber its rows on them, ``n (c + 1)`` (the largest ``c`` for which
    they do not; 10 rows: 18)."""
    sizes = np.asarray(sizes, dtype=np.float64)
    if sizes.size == 0:
        return 0
    n = float(np.median(sizes))
    c = AUTO_CANDIDATES
    while c > 0 and c * (c + 1) / 2 + c > n * (c + 1):
        c -= 1
    return c


def candidate_features(support, pvalues, votes, n_candidates):
    """Sorted indices of the refit's features: ``support`` and, up to
    ``n_candidates`` in all, the features of smallest vote p-value
    (``pvalues``; the most votes when it is None), ties by index."""
    support = np.asarray(support, dtype=bool)
    d = len(support)
    chosen = support.copy()
    extra = min(d, int(n_candidates)) - int(support.sum())
    if extra > 0:
        key = np.asarray(pvalues if pvalues is not None else -np.asarray(votes, float),
                         dtype=np.float64)
        order = np.lexsort((np.arange(d), key))
        order = order[~support[order]]
        chosen[order[:extra]] = True
    return np.flatnonzero(chosen).astype(np.intp)


def unpack(total, m):
    """``(G, b)`` from a message ``G[triu_indices(m)]`` then ``b``."""
    iu = np.triu_indices(m)
    gram = np.zeros((m, m))
    gram[iu] = total[: len(iu[0])]
    gram = gram + np.triu(gram, 1).T
    return gram, np.asarray(total[len(iu[0]) : len(iu[0]) + m], dtype=np.float64)


def solve_on(gram, rhs, keep, penalty):
    """Coefficients on the columns ``keep`` (zero elsewhere) of ``(G +
    diag(penalty)) beta = b``; least squares (``lstsq``) without a penalty."""
    beta = np.zeros(len(rhs))
    if len(keep) == 0:
        return beta
    sub = gram[np.ix_(keep, keep)]
    if penalty is None:
        beta[keep] = linalg.lstsq(sub, rhs[keep], cond=None)[0]
    else:
        try:
            beta[keep] = linalg.solve(sub + np.diag(penalty[keep]), rhs[keep], assume_a="pos")
        except linalg.LinAlgError:  # (an unpenalized column without data)
            beta[keep] = linalg.lstsq(sub + np.diag(penalty[keep]), rhs[keep], cond=None)[0]
    return beta


def choose_refit(total, fold_totals, m, on_support, penalized):
    """The server's refit on the candidates' statistics.

    ``total`` is the sum of the answering clients' messages (``G`` over the
    ``m`` columns, upper triangle, then ``b``), ``fold_totals`` (n_folds,
    len(total)) the sums over each fold of clients; ``on_support`` the
    columns of the support (and a shared intercept's), ``penalized`` which
    columns a ridge penalizes (not a shared intercept's).  The models: least
    squares on ``on_support`` (the refit without candidates), and ridge on
    every column with penalty ``alpha * G_jj`` for each alpha in
    :data:`RIDGE_ALPHAS`.  Each model's cross-validated loss is, summed
    over folds ``f`` and with ``beta_f`` fitted on the other folds::

        beta_f' G_f beta_f - 2 b_f' beta_f

    (the fold's residual sum of squares less its ``y' y``, the same for
    every model).  Returns ``(coef, alpha, losses)``: the chosen model's
    coefficients on all clients (``alpha`` None: least squares on the
    support) and every model's loss, least squares first.  Ties go to the
    earlier model, so equal losses keep the support.
    """
    gram, rhs = unpack(total, m)
    on_support = np.asarray(on_support, dtype=np.intp)
    diag = np.maximum(np.diag(gram), 0.0)
    # a column that is zero on every client's centred rows (a feature
    # constant within every node: rounding leaves about 1e-30 of the other
    # columns' squares) gets no coefficient
    data = diag > _ZERO_COLUMN * (diag.max() if m else 0.0)
    every = np.flatnonzero(data | ~np.asarray(penalized, dtype=bool)).astype(np.intp)
    scale = np.where(penalized, diag, 0.0)
    models = [(on_support, None)] + [(every, a * scale) for a in RIDGE_ALPHAS]
    losses = np.zeros(len(models))
    for fold in fold_totals:
        g_f, b_f = unpack(fold, m)
        g_train, b_train = gram - g_f, rhs - b_f
        for k, (keep, penalty) in enumerate(models):
            beta = solve_on(g_train, b_train, keep, penalty)
            losses[k] += beta @ g_f @ beta - 2.0 * b_f @ beta
    best = int(np.argmin(losses)) if np.all(np.isfinite(losses)) else 0
    keep, penalty = models[best]
    alpha = None if best == 0 else RIDGE_ALPHAS[best - 1]
    return solve_on(gram, rhs, keep, penalty), alpha, losses
