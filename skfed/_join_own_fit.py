"""Whether a Perso-lin newcomer's own fit ranks its samples better than its join.

The errors test of :mod:`skfed._join_unlike` fires when a joined model is
*worse* than chance on the newcomer's samples.  A newcomer whose boundary
is turned by 90 degrees from its neighbours' gets a model *at* chance
there, and no test against chance fires; yet its own samples, fitted
alone, rank themselves well.  :func:`own_fit_beats_join` compares the two
on the samples (the rule of ``benchmarks/guardw37_own_fit.py``, measured
there):

* the own fit is a ridge regression of the ``+-1`` labels on the node's
  features, each scaled by its own spread, with an unpenalized intercept
  and the penalty ``lambda`` the mean squared norm of the centred scaled
  rows (scale-free); each sample gets its *leave-one-out* margin, from the
  hat matrix ``H = 1/n + S``: ``(f_i - H_ii t_i) / (1 - H_ii)``;
* both models' margins become ranks, and ``T = AUC(own) - AUC(joined)``
  over the node's (positive, negative) pairs, ties 1/2;
* the null swaps each sample's two ranks with probability 1/2 (a paired
  sign-flip test: every pattern up to :data:`EXACT_SAMPLES` samples, else
  :data:`N_DRAWS` patterns from ``RandomState(0)``, ``p = (1 + #{T' >=
  T}) / (1 + N_DRAWS)``); fired at ``p <`` :data:`ALPHA`.

Under exchangeable pairs (neither model ranks better) ``p`` is a valid
p-value; at 0.01 it needs 7 samples of two classes (``2^-7``).  Two
classes only; it reads the node's raw samples and sends nothing.  Its
cost is ``N_DRAWS`` rankings of the node's ``n`` samples, memory
``O(CHUNK)``: CPU 0.04 s at 100 samples, 0.4 s at 1,000, 11 s at 20,000.

Only Perso-lin's posterior and feature-mean joins run it
(:func:`skfed._graph_join_unlike.keep_alone_if_contradicted`): a flag
there gives the newcomer the model it solves alone, which its samples
fit.  Dada's kept model (the fit's few local steps) can be worse than its
join (``tests/test_guardw37_rank_guard.py``), so Dada does not.
"""

import itertools

import numpy as np
from scipy import sparse
from scipy.stats import rankdata

ALPHA = 0.01
EXACT_SAMPLES = 12
N_DRAWS = 1999
CHUNK = 1 << 20  # swapped ranks held at once


def loo_ridge_margins(X, t):
    """Leave-one-out margins of the scaled ridge fit of ``t`` (``+-1``) on ``X``."""
    X = X.toarray() if sparse.issparse(X) else np.asarray(X, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    n = len(t)
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    lam = max(float(np.einsum("ij,ij->", Z, Z)) / n, 1e-12)
    if Z.shape[1] < n:  # S = Z (Z'Z + lam I)^-1 Z'
        A = np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T)
        S_t, S_diag = Z @ (A @ t), np.sum(Z * A.T, axis=1)
    else:  # S = G (G + lam I)^-1, G = Z Z' (symmetric, commuting)
        G = Z @ Z.T
        S = np.linalg.solve(G + lam * np.eye(n), G)
        S_t, S_diag = S.T @ t, np.diag(S).copy()
    h = S_diag + 1.0 / n
    f = t.mean() + S_t
    return (f - h * t) / np.maximum(1.0 - h, 1e-12)


def _pair_auc(ranks, positive):
    """Per row of ``ranks``, the share of (positive, negative) pairs in order."""
    n_pos = int(positive.sum())
    n_neg = ranks.shape[-1] - n_pos
    return (ranks[..., positive].sum(axis=-1) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


def sign_flip_pvalue(own, joined, positive):
    """``P(T' >= T)`` of the paired sign-flip null (see the module)."""
    positive = np.asarray(positive, dtype=bool)
    a, b = rankdata(own), rankdata(joined)
    n = len(a)
    exact = n <= EXACT_SAMPLES
    total = 2 ** n if exact else N_DRAWS
    rng = np.random.RandomState(0)
    seen = _pair_auc(a, positive) - _pair_auc(b, positive)
    at_least = 0
    step = max(1, CHUNK // n)  # (patterns at a time: memory O(CHUNK))
    for lo in range(0, total, step):
        rows = min(step, total - lo)
        if exact:
            s = ((np.arange(lo, lo + rows)[:, None] >> np.arange(n)) & 1) == 1
        else:  # (the rows of rand(N_DRAWS, n), drawn in turn)
            s = rng.rand(rows, n) < 0.5
        null = (_pair_auc(rankdata(np.where(s, b, a), axis=1), positive)
                - _pair_auc(rankdata(np.where(s, a, b), axis=1), positive))
        at_least += int(np.count_nonzero(null >= seen - 1e-12))
    return at_least / total if exact else (1.0 + at_least) / (1.0 + N_DRAWS)


def own_fit_pvalues(X, F, codes, offsets):
    """Per node the p-value of :func:`own_fit_beats_join` (1 for a node of
    one class or fewer than 3 samples, and for every node when ``F`` holds
    more than one problem's margins)."""
    margins = np.atleast_2d(np.asarray(F, dtype=np.float64))
    bounds = np.asarray(offsets, dtype=np.intp)
    p = np.ones(len(bounds) - 1)
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        pos = np.asarray(codes)[lo:hi] == 1
        if margins.shape[0] == 1 and hi - lo >= 3 and 0 < pos.sum() < hi - lo:
            own = loo_ridge_margins(X[lo:hi], 2.0 * pos - 1.0)
            p[k] = sign_flip_pvalue(own, margins[0, lo:hi], pos)
    return p


def own_fit_beats_join(X, F, codes, offsets, alpha=ALPHA):
    """Per node, whether its own leave-one-out fit ranks its samples
    significantly better than the joined margins ``F`` do (see the module).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Every node's raw samples, node after node (``offsets`` say where
        each starts), a sparse node densified.
    F : ndarray of shape (1, n_samples)
        The joined models' positive-class margins on those samples.
    codes : ndarray of shape (n_samples,)
        1 where a sample is of the positive class.
    offsets : ndarray of shape (n_nodes + 1,)
        Where each node's samples start, then their total.
    alpha : float, default=ALPHA
        The sign-flip test's level.

    Returns
    -------
    flagged : ndarray of shape (n_nodes,) of bool

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.random.RandomState(0).normal(size=(30, 2))
    >>> labels = (rows @ [1.0, 1.0] > 0).astype(int)
    >>> at_chance, right = rows @ [[1.0], [-1.0]], rows @ [[1.0], [1.0]]
    >>> own_fit_beats_join(rows, at_chance.T, labels, [0, 30]).tolist()
    [True]
    >>> own_fit_beats_join(rows, right.T, labels, [0, 30]).tolist()
    [False]
    """
    return own_fit_pvalues(X, F, codes, offsets) < alpha
