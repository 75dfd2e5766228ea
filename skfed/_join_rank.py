"""Whether a joined model ranks its newcomer's samples the wrong way round.

:func:`skfed._join_unlike.worse_than_chance` counts a joined model's errors
on the newcomer's samples against its best constant guess.  Errors mix two
things: the model's *direction* (which samples it scores as more likely
positive) and its *base rate* (where it puts the threshold).  A newcomer
whose labels oppose the federation's has the direction reversed; a newcomer
whose few samples merely hold more positives than its population does
(Landmine's first 10 rows of a field hold 7-8 mines where its rate is a few
percent: ``tests/test_rogue34_mass_liar.py``) disagrees only on the base
rate, and there the federation is right and its samples are not.  Its own
samples cannot tell the two apart by error counts, nor by cross-validation
(the local model fits their rate).  A ranking can: the base rate moves a
threshold, not the order of the margins.

:func:`ranking_reversed` is that test, per node of two classes: the
one-sided Mann-Whitney test of the margins of its positive samples
against its negative ones (``U`` counts pairs ranked right, ties 1/2),
fired when ``P(U' <= U) < alpha`` (:data:`VETO_LEVEL` for the graph join)
under random labels with the node's class counts (exact null while
``n_pos n_neg <= EXACT_PAIRS``, with tied margins the permutation null of
their mid-ranks, :func:`tied_exact_pvalue`; else the normal approximation
with SciPy's tie correction; :func:`scipy.stats.mannwhitneyu`).  A node with one class never fires; at
level 0.01 two classes need at least 8 samples (``1 / C(8, 4) = 1 / 70``;
``7 / 3`` needs ``1 / 120``), at 0.25 a fully reversed order of 5 samples
fires (``1 / 5`` for ``4 / 1``).  More classes are not tested: one
one-vs-rest margin ranked alone misreads a Dada join (a three-class
newcomer with cycled labels had one class's margins nearly constant and
another's AUC 0.69), so the graph join applies no veto there.

It does not bound false alarms and need not: the graph join flags a
newcomer when :func:`skfed._join_unlike.worse_than_chance` fires (level
0.01) *and* this test does, so it can only remove flags.
"""

import numpy as np
from scipy.stats import mannwhitneyu

# Exact Mann-Whitney null up to this many (positive, negative) pairs.
EXACT_PAIRS = 2500
# The graph join's guard keeps a newcomer's joined model unless its ranking
# is reversed at this level.  A veto on the binomial test (the level that
# bounds false alarms): the lower, the more flags it removes.  0.25 because
# a fully reversed order of 4 + 1 samples has p = 1 / 5 (of 3 + 2: 1 / 10):
# at 180 degrees (benchmarks/guardw37_unlike_tests.py, seeds 0-11, k = 5,
# 10, 20) it keeps every binomial flag, where 0.01 dropped k = 5's 3 of 12
# and one of 12 at k = 10; rogue34's base-rate newcomers have p 0.44, 0.81.
VETO_LEVEL = 0.25


def ranking_pvalues(F, codes, offsets):
    """Per node the p-value of :func:`ranking_reversed` (1 for one class).

    Parameters
    ----------
    F : ndarray of shape (1, n_samples)
        The joined models' margins of the positive class on the nodes' own
        samples, sorted by node.
    codes : ndarray of shape (n_samples,) of int
        The samples' class codes (1 positive, 0 negative).
    offsets : ndarray of shape (n_nodes + 1,)
        Node ``k`` holds samples ``offsets[k]:offsets[k + 1]``.

    Returns
    -------
    ndarray of shape (n_nodes,)
    """
    F = np.atleast_2d(np.asarray(F, dtype=np.float64))
    if F.shape[0] != 1:
        raise ValueError(f"ranking_pvalues takes one problem's margins, got {F.shape[0]}")
    codes = np.asarray(codes)
    offsets = np.asarray(offsets)
    out = np.ones(len(offsets) - 1)
    for k in range(len(out)):
        sl = slice(int(offsets[k]), int(offsets[k + 1]))
        pos, neg = F[0, sl][codes[sl] == 1], F[0, sl][codes[sl] != 1]
        if len(pos) == 0 or len(neg) == 0:
            continue
        exact = len(pos) * len(neg) <= EXACT_PAIRS
        if exact and np.unique(F[0, sl]).size < sl.stop - sl.start:
            out[k] = tied_exact_pvalue(pos, neg)
        else:
            method = "exact" if exact else "asymptotic"
            out[k] = float(mannwhitneyu(pos, neg, alternative="less", method=method).pvalue)
    return out


def tied_exact_pvalue(pos, neg):
    """``P(U' <= U)`` under random labels with tied margins: the exact
    permutation null of the positives' mid-rank sum.

    SciPy's exact Mann-Whitney uses the null of ``U`` without ties, which
    is not that of tied margins (positives ``(0, 0)`` against negatives
    ``(1, 0, 1)``: 0.2 where the permutation null gives 0.3).  Doubled
    mid-ranks are integers; ``count[j, s]`` counts the ways ``j`` of the
    samples seen so far sum to ``s`` (one pass over the samples), in float64
    (a ratio of counts; ``O(n n_pos sum)`` operations, ``n_pos n_neg <=``
    :data:`EXACT_PAIRS`).
    """
    from scipy.stats import rankdata

    n_pos = len(pos)
    ranks = np.rint(2 * rankdata(np.concatenate([pos, neg]))).astype(np.int64)
    observed = int(ranks[:n_pos].sum())
    top = int(np.sort(ranks)[-n_pos:].sum())
    count = np.zeros((n_pos + 1, top + 1))
    count[0, 0] = 1.0
    for r in ranks:
        count[1:, r:] += count[:-1, :top + 1 - r].copy()
    row = count[n_pos]
    return float(row[:observed + 1].sum() / row.sum())


def ranking_reversed(F, codes, offsets, alpha=VETO_LEVEL):
    """Per node, whether its margins rank its own classes significantly the
    wrong way round (see the module; ``F``, ``codes``, ``offsets`` as in
    :func:`ranking_pvalues`).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1] * 10)
    >>> ranking_reversed((1.0 - 2 * y)[None], y, np.array([0, 20]), alpha=0.01).tolist()
    [True]
    >>> ranking_reversed((2 * y - 5.0)[None], y, np.array([0, 20]), alpha=0.01).tolist()
    [False]
    """
    return ranking_pvalues(F, codes, offsets) < alpha
