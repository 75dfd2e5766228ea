"""Small data sets that several test modules draw."""

import numpy as np


def related_linear_tasks(rng, n_nodes, n_per_node, n_features=5, regression=False):
    """Nodes whose linear rules are one shared rule plus a small personal part.

    Node ``k`` owns ``n_per_node`` consecutive rows. Its rule is
    ``w + 0.3 u_k`` with ``w`` and ``u_k`` standard normal; its targets
    are the score ``x . (w + 0.3 u_k)`` plus noise of scale 0.3
    (regression) or the score's sign as 0/1 labels.

    Parameters
    ----------
    rng : numpy.random.RandomState
        Drawn from in this order: the features, ``w``, the ``u_k``, then
        the regression noise (none for labels).  A caller that draws more
        afterwards continues the same stream.
    n_nodes, n_per_node : int
        Number of nodes and rows per node.
    n_features : int, default=5
        Number of features.
    regression : bool, default=False
        Real-valued targets instead of 0/1 labels.

    Returns
    -------
    X : ndarray of shape (n_nodes * n_per_node, n_features)
    y : ndarray of shape (n_nodes * n_per_node,)
    groups : ndarray of shape (n_nodes * n_per_node,)
        The node of each row, 0 to ``n_nodes - 1``.
    """
    n = n_nodes * n_per_node
    groups = np.repeat(np.arange(n_nodes), n_per_node)
    X = rng.normal(size=(n, n_features))
    W = rng.normal(size=n_features) + 0.3 * rng.normal(size=(n_nodes, n_features))
    score = (X * W[groups]).sum(1)
    y = score + 0.3 * rng.normal(size=n) if regression else (score > 0).astype(int)
    return X, y, groups
