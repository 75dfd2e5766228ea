"""Per-node train/test splitting: the protocol of every personalized-learning paper."""

import math
import numbers

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_consistent_length

from .._base import check_groups
from .._compat import _num_samples

__all__ = ["train_test_split_per_node", "per_node_split_indices"]


def _n_test(n_node, test_size):
    """Test samples of a node with ``n_node`` samples: ceil, at most n - 1."""
    if n_node <= 1:
        return 0
    return min(int(math.ceil(test_size * n_node)), n_node - 1)


def per_node_split_indices(y, groups, *, test_size=0.25, stratify=True, random_state=None):
    """Row indices of a per-node train/test split.

    See :func:`train_test_split_per_node`, which calls this and indexes the
    arrays.

    Returns
    -------
    train : ndarray of int
        Sorted row numbers of the training samples.
    test : ndarray of int
        Sorted row numbers of the test samples.
    """
    if isinstance(test_size, bool) or not isinstance(test_size, numbers.Real) or not (
        0.0 < test_size < 1.0
    ):
        raise ValueError(f"test_size must be a float in (0, 1), got {test_size!r}.")
    if groups is None:
        raise ValueError(
            "groups is required: give the node id of every sample, the split is "
            "done within each node."
        )
    groups = check_groups(groups, _num_samples(groups))
    n_samples = groups.shape[0]
    if y is not None:
        y = np.asarray(y)
        if y.shape[0] != n_samples:
            raise ValueError(
                f"y has {y.shape[0]} samples but groups has {n_samples} entries."
            )
    can_stratify = (
        stratify
        and y is not None
        and y.ndim == 1
        and type_of_target(y) in ("binary", "multiclass")
    )
    rng = check_random_state(random_state)
    nodes, codes = np.unique(groups, return_inverse=True)
    codes = codes.ravel()
    # One seed per node, drawn in the sorted order of the node labels, so a
    # node's split depends on the seed and on its own samples only.
    seeds = rng.randint(np.iinfo(np.int32).max, size=len(nodes))
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(nodes) + 1))
    train_parts, test_parts = [], []
    for t in range(len(nodes)):
        rows = order[bounds[t] : bounds[t + 1]]
        n_node = rows.shape[0]
        n_test = _n_test(n_node, test_size)
        if n_test == 0:
            train_parts.append(rows)
            continue
        node_rng = np.random.RandomState(seeds[t])
        done = False
        if can_stratify:
            classes, counts = np.unique(y[rows], return_counts=True)
            n_classes = classes.shape[0]
            if (
                n_classes > 1
                and counts.min() >= 2
                and n_test >= n_classes
                and n_node - n_test >= n_classes
            ):
                splitter = StratifiedShuffleSplit(
                    n_splits=1, test_size=n_test, random_state=node_rng
                )
                tr, te = next(splitter.split(np.zeros((n_node, 1)), y[rows]))
                done = True
        if not done:
            perm = node_rng.permutation(n_node)
            te, tr = perm[:n_test], perm[n_test:]
        train_parts.append(rows[tr])
        test_parts.append(rows[te])
    train = np.sort(np.concatenate(train_parts)) if train_parts else np.zeros(0, dtype=np.intp)
    test = np.sort(np.concatenate(test_parts)) if test_parts else np.zeros(0, dtype=np.intp)
    return train, test


def train_test_split_per_node(
    X, y, groups, *, test_size=0.25, stratify=True, random_state=None
):
    """Split every node's samples into a training and a test part.

    This is the evaluation protocol of personalized learning: each node keeps
    a share of its own samples for testing, so every node is scored on its
    own distribution.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features (ndarray, sparse matrix or DataFrame).
    y : array-like of shape (n_samples,)
        Targets.
    groups : array-like of shape (n_samples,)
        Node id of every sample.
    test_size : float in (0, 1), default=0.25
        Share of each node's samples in its test part: ``ceil(test_size *
        n_t)`` samples of a node with ``n_t`` samples, but at most ``n_t - 1``,
        so every node keeps at least one training sample (a node with a single
        sample goes to training only).
    stratify : bool, default=True
        Keep each node's class proportions in both parts.  Applied per node
        when ``y`` is binary or multiclass, the node has at least two classes,
        every class of the node has at least two samples and both parts can
        hold one sample of each class; otherwise that node is split by a plain
        random permutation.
    random_state : int, RandomState instance or None, default=None
        One seed per node is drawn from it (in the sorted order of the node
        labels).

    Returns
    -------
    X_train, X_test, y_train, y_test, groups_train, groups_test
        The rows of the training and of the test part, each in the original
        order of the samples.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.datasets import train_test_split_per_node
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> y = np.array([0, 1] * 5)
    >>> groups = np.array([0] * 4 + [1] * 6)
    >>> X_tr, X_te, y_tr, y_te, g_tr, g_te = train_test_split_per_node(
    ...     X, y, groups, test_size=0.5, random_state=0)
    >>> np.bincount(g_tr), np.bincount(g_te)
    (array([2, 3]), array([2, 3]))
    """
    if groups is None:
        raise ValueError(
            "groups is required: give the node id of every sample, the split is "
            "done within each node."
        )
    check_consistent_length(X, y, groups)
    train, test = per_node_split_indices(
        y, groups, test_size=test_size, stratify=stratify, random_state=random_state
    )
    return (
        _safe_indexing(X, train),
        _safe_indexing(X, test),
        _safe_indexing(y, train),
        _safe_indexing(y, test),
        _safe_indexing(groups, train),
        _safe_indexing(groups, test),
    )
