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
  hat matrix ``H = 1/n + S``: ``(f_i - H_ii t_i) / (1 - H_ii)``, where
  rows repeat the fit without every copy (``m`` equal rows: ``m H_ii`` and
  their mean ``t``; a copy left in made noisy labels look predictable:
  ``tests/test_review41_own_fit_duplicates.py``);
* both models' margins become ranks, and ``T = AUC(own) - AUC(joined)``
  over the node's (positive, negative) pairs, ties 1/2;
* the null swaps each sample's two ranks with probability 1/2 (a paired
  sign-flip test: every pattern up to :data:`EXACT_SAMPLES` samples, else
  :data:`N_DRAWS` patterns from ``RandomState(0)``, ``p = (1 + #{T' >=
  T}) / (1 + N_DRAWS)``); fired at ``p <`` :data:`ALPHA` when ``T > 0``
  (the own fit ranks better), the count stopping once the decision is
  known.

Under exchangeable pairs (neither model ranks better) ``p`` is a valid
p-value; at 0.01 it needs 7 samples of two classes (``2^-7``).  Two
classes only; it reads the node's raw samples and sends nothing.  The
p-value costs ``N_DRAWS`` rankings of the node's ``n`` samples, memory
``O(CHUNK)`` (CPU 0.04 s at 100 samples, 0.4 s at 1,000, 11 s at 20,000);
the guard's decision stops counting once it is known, which for a join its
own fit does not beat is after a few dozen rankings.

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
PAIRS = 1024  # a node's pairs up to which the null's AUCs are counted pair by pair


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
    _, group, copies = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    if copies.max() > 1:  # equal rows leave out together: H_GG = h 1 1'
        group = group.ravel()
        h = h * copies[group]
        t = (np.bincount(group, weights=t) / copies)[group]
    return (f - h * t) / np.maximum(1.0 - h, 1e-12)


def _pair_auc(ranks, positive):
    """Per row of ``ranks``, the share of (positive, negative) pairs in order."""
    n_pos = int(positive.sum())
    n_neg = ranks.shape[-1] - n_pos
    return (ranks[..., positive].sum(axis=-1) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


def _rows_auc(values, positive):
    """:func:`_pair_auc` of every row's ranks: on a small node by counting its
    (positive, negative) pairs directly (the same numbers without ranking
    each row), else from the rows' ranks."""
    pos, neg = values[:, positive], values[:, ~positive]
    if pos.shape[1] * neg.shape[1] > PAIRS:
        return _pair_auc(rankdata(values, axis=1), positive)
    diff = pos[:, :, None] - neg[:, None, :]
    return ((diff > 0).sum(axis=(1, 2)) + 0.5 * (diff == 0).sum(axis=(1, 2))) / (
        pos.shape[1] * neg.shape[1])


def _null_count(own, joined, positive, stop=None):
    """``(at_least, total, exact)``: how many of the sign-flip null's patterns
    (every one up to :data:`EXACT_SAMPLES` samples, else the :data:`N_DRAWS`
    rows of ``RandomState(0).rand(N_DRAWS, n)``, drawn in turn) give ``T' >=
    T``; with ``stop``, counting ends once ``at_least`` reaches it (the
    decision is then known: a join its own fit does not beat reaches it in
    a few dozen patterns, so the guard on every newcomer costs little)."""
    positive = np.asarray(positive, dtype=bool)
    a, b = rankdata(own), rankdata(joined)
    n = len(a)
    exact = n <= EXACT_SAMPLES
    total = 2 ** n if exact else N_DRAWS
    rng = np.random.RandomState(0)
    seen = _pair_auc(a, positive) - _pair_auc(b, positive)
    at_least = 0
    pairs = int(positive.sum()) * int(n - positive.sum())
    most = max(1, CHUNK // (pairs if pairs <= PAIRS else n))  # (patterns at a time: memory O(CHUNK))
    step = min(most, 32) if stop is not None else most
    lo = 0
    while lo < total and (stop is None or at_least < stop):
        rows = min(step, total - lo)
        if exact:
            s = ((np.arange(lo, lo + rows)[:, None] >> np.arange(n)) & 1) == 1
        else:
            s = rng.rand(rows, n) < 0.5
        null = (_rows_auc(np.where(s, b, a), positive)
                - _rows_auc(np.where(s, a, b), positive))
        at_least += int(np.count_nonzero(null >= seen - 1e-12))
        lo += rows
        step = min(2 * step, most)
    return at_least, total, exact


def sign_flip_pvalue(own, joined, positive):
    """``P(T' >= T)`` of the paired sign-flip null (see the module)."""
    at_least, total, exact = _null_count(own, joined, positive)
    return at_least / total if exact else (1.0 + at_least) / (1.0 + N_DRAWS)


def _fires(own, joined, positive, alpha):
    """``sign_flip_pvalue(own, joined, positive) < alpha``, counting only
    until the answer is known."""
    n = len(own)
    total = 2 ** n if n <= EXACT_SAMPLES else N_DRAWS
    # p < alpha  <=>  at_least < bound (exact: at_least / total; drawn:
    # (1 + at_least) / (1 + N_DRAWS))
    bound = alpha * total if n <= EXACT_SAMPLES else alpha * (1.0 + N_DRAWS) - 1.0
    positive = np.asarray(positive, dtype=bool)
    # Only an own fit that ranks the samples better (T > 0) is tested: with
    # every pattern (n <= EXACT_SAMPLES) each one and its complement give
    # T' and -T', so T <= 0 has p >= 1/2 anyway; with drawn patterns, whose
    # null is symmetric too, such a p under alpha <= 1/2 would be a fluke of
    # the draws.  (The AUCs by pairs: the ranks' own numbers.)
    auc = _rows_auc(np.vstack([own, joined]), positive)
    if alpha <= 0.5 and auc[0] - auc[1] <= 0:
        return False
    stop = max(0, int(np.ceil(bound)))
    at_least, _, _ = _null_count(own, joined, positive, stop=stop)
    return at_least < bound


def _node_tests(X, F, codes, offsets, test, default, min_samples=3):
    """Per node ``test(own, joined, positive)`` on its samples, ``default``
    for a node of one class or fewer than ``min_samples`` samples, and for
    every node when ``F`` holds more than one problem's margins."""
    margins = np.atleast_2d(np.asarray(F, dtype=np.float64))
    bounds = np.asarray(offsets, dtype=np.intp)
    out = np.full(len(bounds) - 1, default)
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        pos = np.asarray(codes)[lo:hi] == 1
        if margins.shape[0] == 1 and hi - lo >= min_samples and 0 < pos.sum() < hi - lo:
            own = loo_ridge_margins(X[lo:hi], 2.0 * pos - 1.0)
            out[k] = test(own, margins[0, lo:hi], pos)
    return out


def own_fit_pvalues(X, F, codes, offsets):
    """Per node the p-value of :func:`own_fit_beats_join` (1 for a node of
    one class or fewer than 3 samples, and for every node when ``F`` holds
    more than one problem's margins)."""
    return _node_tests(X, F, codes, offsets, sign_flip_pvalue, 1.0)


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
    # (the unswapped pattern always counts: p >= 2^-n, so a node of n
    # samples with 2^-n >= alpha cannot fire and is not tested)
    fewest = max(3, int(np.floor(np.log2(1.0 / alpha))) + 1) if alpha > 0 else np.inf
    return _node_tests(X, F, codes, offsets,
                       lambda own, joined, pos: _fires(own, joined, pos, alpha), False,
                       min_samples=fewest)
