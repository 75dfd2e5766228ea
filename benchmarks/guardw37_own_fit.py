"""A rule measured, not adopted: is a joined model worse than its newcomer's own fit?

The errors test (:func:`skfed._join_unlike.worse_than_chance`) fires when a
joined model is *worse* than chance on the newcomer's samples.  A newcomer
whose boundary is turned by 90 degrees from the federation's gets a model
*at* chance there: no test against chance can fire, yet a fit of its own
samples alone would rank them well.  :func:`worse_than_own_fit` compares
the two on the samples themselves:

* the own fit is ridge regression of the ``+-1`` labels on the newcomer's
  features (each standardized by its own spread, an unpenalized intercept,
  penalty the mean squared norm of the centred rows: scale-free), and each
  sample gets its *leave-one-out* margin, in closed form from the hat
  matrix ``H = J / n + K (K + lambda I)^-1`` (``K`` the centred Gram
  matrix): ``(f_i - H_ii t_i) / (1 - H_ii)``;
* both models' margins become their ranks among the node's samples (their
  scales are not comparable) and ``T = AUC(own) - AUC(joined)`` over the
  (positive, negative) pairs, ties 1/2;
* the null swaps each sample's two ranks with probability 1/2 (paired
  sign-flip permutation: every pattern up to :data:`EXACT_SAMPLES`
  samples, else :data:`N_DRAWS` from ``RandomState(0)``), ``p = P(T' >=
  T)`` (exactly ``(1 + #) / (1 + N_DRAWS)`` when drawn).

Under exchangeable pairs (neither model better) ``p`` is a valid p-value;
at level 0.01 the test needs at least 7 samples of two classes (``2^-7``).
It reads the newcomer's raw samples only and sends nothing.

Not in the library: :func:`adopted` runs the graph join's guard with it
added (a flagged newcomer keeps its local model, as the guard's flags do),
for ``benchmarks/guardw37_unlike_tests.py --scores``; why it is not adopted
is in that benchmark's results.
"""

import contextlib

import numpy as np
from scipy import sparse
from scipy.stats import rankdata

EXACT_SAMPLES = 12
N_DRAWS = 1999


def own_loo_margins(X, t):
    """Leave-one-out margins of the standardized ridge fit of ``t`` (``+-1``) on ``X``."""
    X = np.asarray(X, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    n = len(t)
    spread = X.std(axis=0)
    Xc = (X - X.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    lam = max(float(np.sum(Xc * Xc)) / n, 1e-12)  # trace of the Gram matrix / n
    d = Xc.shape[1]
    if d < n:  # B = (Xc' Xc + lam I)^-1 Xc', d x n
        B = np.linalg.solve(Xc.T @ Xc + lam * np.eye(d), Xc.T)
        smooth, h = Xc @ (B @ t), np.einsum("ij,ji->i", Xc, B)
    else:  # K (K + lam I)^-1, n x n (K and its resolvent commute)
        K = Xc @ Xc.T
        S = np.linalg.solve(K + lam * np.eye(n), K)
        smooth, h = S.T @ t, np.diag(S).copy()
    fitted, h = t.mean() + smooth, h + 1.0 / n
    return (fitted - h * t) / np.maximum(1.0 - h, 1e-12)


def _auc_rows(U, positive):
    """Per row of ``U`` the fraction of (positive, negative) pairs ranked right, ties 1/2."""
    n_pos = int(positive.sum())
    n_neg = U.shape[1] - n_pos
    ranks = rankdata(U, axis=1)
    return (ranks[:, positive].sum(axis=1) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


def flip_pvalue(own, joined, positive):
    """The paired sign-flip p-value of ``AUC(own ranks) - AUC(joined ranks)``
    (see the module); ``positive`` the samples' boolean labels."""
    positive = np.asarray(positive, dtype=bool)
    u, v = rankdata(own), rankdata(joined)
    n = len(u)
    if n <= EXACT_SAMPLES:
        masks = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(bool)
    else:
        masks = np.random.RandomState(0).rand(N_DRAWS, n) < 0.5
    null = _auc_rows(np.where(masks, v, u), positive) - _auc_rows(np.where(masks, u, v), positive)
    observed = _auc_rows(u[None], positive)[0] - _auc_rows(v[None], positive)[0]
    above = int(np.sum(null >= observed - 1e-12))
    if n <= EXACT_SAMPLES:
        return above / len(masks)
    return (1.0 + above) / (1.0 + N_DRAWS)


def own_fit_pvalues(X, F, codes, offsets):
    """Per node the p-value of :func:`worse_than_own_fit` (1 for a node of
    one class, of more than two classes, or of fewer than 3 samples)."""
    F = np.atleast_2d(np.asarray(F, dtype=np.float64))
    codes = np.asarray(codes)
    out = np.ones(len(offsets) - 1)
    if F.shape[0] != 1:
        return out
    for k in range(len(out)):
        sl = slice(int(offsets[k]), int(offsets[k + 1]))
        positive = codes[sl] == 1
        if sl.stop - sl.start < 3 or positive.all() or not positive.any():
            continue
        Xk = X[sl]
        Xk = Xk.toarray() if sparse.issparse(Xk) else Xk
        own = own_loo_margins(Xk, np.where(positive, 1.0, -1.0))
        out[k] = flip_pvalue(own, F[0, sl], positive)
    return out


def worse_than_own_fit(X, F, codes, offsets, alpha=0.01):
    """Per node, whether its own leave-one-out fit ranks its samples
    significantly better than the joined model's margins ``F`` do (two
    classes; see the module).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The nodes' samples, sorted by node (a node's rows are made dense).
    F, codes, offsets
        As in :func:`skfed._join_rank.ranking_pvalues`.
    alpha : float, default=0.01

    Returns
    -------
    ndarray of shape (n_nodes,) of bool

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> worse_than_own_fit(X, X[None, :, 1], y, np.array([0, 40])).tolist()
    [True]
    >>> worse_than_own_fit(X, X[None, :, 0], y, np.array([0, 40])).tolist()
    [False]
    """
    return own_fit_pvalues(X, F, codes, offsets) < alpha


def newcomer_pvalues(est, X, y, layout, models):
    """Per newcomer of a graph-join guard call, the own-fit p-value of its
    joined model ``models[k]`` (what the guard is about to test)."""
    import skfed._graph_join as graph_join
    from skfed._join_unlike import class_codes

    dtype = models.dtype
    Z, Y = graph_join._design(est, X, dtype), graph_join._targets(est, y, dtype)
    out = np.ones(layout.n_nodes)
    for k in range(layout.n_nodes):
        idx = layout.node_indices(k)
        F = np.asarray(models[k], dtype=np.float64) @ np.asarray(Z[idx], dtype=np.float64).T
        _, true = class_codes(F, np.asarray(Y[:, idx]))
        out[k] = own_fit_pvalues(X[idx], F, true, np.array([0, len(idx)]))[0]
    return out


def _with_own_fit(keep, alpha):
    import skfed._graph_join_unlike as graph_guard

    def wrapped(est, X, y, sw, layout, new_models, *args, **kwargs):
        own = newcomer_pvalues(est, X, y, layout, new_models) < alpha
        base = graph_guard.contradicted
        graph_guard.contradicted = lambda Z, Y, lay, models, sw=None: base(Z, Y, lay, models, sw) | own
        try:
            return keep(est, X, y, sw, layout, new_models, *args, **kwargs)
        finally:
            graph_guard.contradicted = base
    return wrapped


@contextlib.contextmanager
def adopted(alpha=0.01):
    """Within the block, the graph join's guard (Dada's graph join,
    Perso-lin's posterior and feature-mean joins) also flags a newcomer
    :func:`worse_than_own_fit` flags."""
    import skfed._graph_join as graph_join
    import skfed._graph_join_unlike as graph_guard

    kept = graph_join.keep_local_if_contradicted, graph_guard.keep_alone_if_contradicted
    graph_join.keep_local_if_contradicted = _with_own_fit(kept[0], alpha)
    graph_guard.keep_alone_if_contradicted = _with_own_fit(kept[1], alpha)
    try:
        yield
    finally:
        graph_join.keep_local_if_contradicted, graph_guard.keep_alone_if_contradicted = kept
