"""Explicit features of the approximate modes: how many (``n_components="auto"``)
and the Nystroem landmarks (shares per node, k-means landmarks)."""

import math

import numpy as np

from ._compression import _FLOAT


# n_components="auto": this factor times sqrt(n) ln n (chosen on HAR sitting,
# split 0, hinge loss, 8-bit messages: factors 1, 1.5, 2 give 2.52, 2.37,
# 2.03 % error against the exact mode's 1.78 %).
_COMPONENTS_FACTOR = 2.0


# ... and at most this many: the primal modes hold the n x D feature matrix
# (8 n D bytes in float64), so an uncapped sqrt(n) ln n would grow faster
# than the data (13,816 features, 33 GB, at 10,000 nodes of 30 samples).
# Every shipped data set stays below it (HAR 1,225-1,278, Landmine and
# School about 2,000).
_MAX_AUTO_COMPONENTS = 4096


# ... and at most this many when no number of features keeps the rounds'
# bytes within the raw upload (nodes of a few rows): the rate rule counts
# the rows of all nodes, so uncapped every node's messages would grow with
# the number of nodes (437 features at 100 nodes of 10 rows, 2,449 at
# 1,600; per node 19.5 kB -> 120 kB) for no accuracy (probe data, 400 and
# 1,600 nodes: 0.9299 / 0.8955 with the rate rule, 0.9297 / 0.8946 with
# 437 features).
_MAX_UNFIT_COMPONENTS = 512


# approximation="auto": the rounds a random-feature fit is assumed to take
# when its bytes are held to the raw upload (measured with random features:
# the learned Omega 14 to 95 rounds on HAR sitting and activity, Landmine and
# School, the shared model 7 to 26).
_AUTO_ROUNDS = 100


def auto_components(n):
    """``n_components="auto"``: ``ceil(2 sqrt(n) ln n)``, at least 1 and at
    most 4,096 (the feature matrix is ``n x D``)."""
    D = math.ceil(_COMPONENTS_FACTOR * math.sqrt(n) * math.log(max(n, 2)))
    return int(min(max(1, D), _MAX_AUTO_COMPONENTS))


def _proportional_shares(sizes, total):
    """Integer shares of ``total`` proportional to ``sizes`` (largest remainders),
    each at most its size."""
    share = sizes * total / sizes.sum()
    counts = np.floor(share).astype(np.intp)
    remainder = int(total - counts.sum())
    if remainder:
        order = np.argsort(-(share - counts), kind="stable")
        counts[order[:remainder]] += 1
    return np.minimum(counts, sizes)


def _kmeans_landmarks(X, layout, n_landmarks, rng, setup_up, setup_down, dtype_bytes):
    """Nystroem landmarks as k-means centres, computed once over the network.

    Every node clusters its own samples into ``k_t`` local centres
    (k-means++ and Lloyd, ``k_t`` twice its landmark share, at most
    ``n_t``) and sends them with their cluster sizes (``k_t (d + 1)``
    values); the server runs weighted k-means (k-means++ and Lloyd) over
    all local centres and sends the ``n_landmarks`` centres to every node.
    The bytes are added to ``setup_up`` / ``setup_down``.
    """
    from sklearn.cluster import KMeans  # only this mode needs it

    d = X.shape[1]
    local_k = np.minimum(layout.counts, 2 * _proportional_shares(layout.counts, n_landmarks))
    local_k = np.maximum(local_k, np.minimum(layout.counts, 1))
    centres, sizes = [], []
    for t in range(layout.n_nodes):
        Xt = X[layout.node_slice(t)]
        km = KMeans(local_k[t], n_init=1, random_state=rng.randint(2**31 - 1)).fit(Xt)
        centres.append(km.cluster_centers_)
        sizes.append(np.bincount(km.labels_, minlength=local_k[t]).astype(np.float64))
    centres = np.concatenate(centres)
    sizes = np.concatenate(sizes)
    keep = sizes > 0
    centres, sizes = centres[keep], sizes[keep]
    setup_up += local_k * (d * dtype_bytes + _FLOAT)
    setup_down += n_landmarks * d * dtype_bytes
    k = min(n_landmarks, centres.shape[0])
    server = KMeans(k, n_init=1, random_state=rng.randint(2**31 - 1))
    server.fit(centres, sample_weight=sizes)
    return np.ascontiguousarray(server.cluster_centers_, dtype=X.dtype)
