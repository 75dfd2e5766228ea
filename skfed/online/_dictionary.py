"""Every node's kernel dictionary: storage, growth, KOMP and evaluation.

A node's function is ``f_i(x) = sum_m W[m] k_i(D[m], x)`` over its
dictionary ``D``; the solver (:mod:`skfed._core._online_fast`) appends a
point per step and prunes by destructive kernel orthogonal matching pursuit
(KOMP) within the budget ``epsilon`` in place, in buffers that Python
allocates here and grows on demand.  :func:`_komp_prune` is the same rule
in NumPy, for starting functions built outside the solver (joins).
"""

import numpy as np

from .._core import _online_fast

# Dictionaries start with room for this many elements and double as needed.
_INITIAL_CAPACITY = 64
# Rows of the kernel matrix computed at once at predict time.
_PREDICT_CHUNK = 1024


def _komp_prune(Z, W, K, epsilon, max_size, compress):
    """Destructive KOMP of ``f = sum_m W[m] k(Z[m], .)`` (``K`` its Gram matrix).

    The rule of the solver after a step: remove the element of smallest
    cost ``||W_j||^2 / Q_jj`` (``Q = K^-1``) while the accumulated cost stays
    within ``epsilon^2`` or the dictionary is larger than ``max_size`` (0: no
    cap), re-projecting the weights onto the rest; the last element moves
    into the freed slot.  Without ``compress`` nothing is removed.

    Returns
    -------
    points, weights, gram_inv, error
        The kept dictionary, its weights, its inverse Gram matrix (empty
        without ``compress``) and the RKHS distance to ``f``.
    """
    if not compress:
        return Z, W, np.zeros((0, 0)), 0.0
    Z, W = Z.copy(), np.array(W, dtype=np.float64)
    try:
        Q = np.linalg.inv(K)
    except np.linalg.LinAlgError:
        Q = np.linalg.pinv(K)
    Q = (Q + Q.T) / 2
    eps2, err2, m = float(epsilon) ** 2, 0.0, len(Z)
    while m > 0:
        diag = np.diag(Q)[:m]
        cost = np.where(diag > 0, (W[:m] ** 2).sum(axis=1) / np.where(diag > 0, diag, 1), 0.0)
        j = int(np.argmin(cost))
        if not (max_size > 0 and m > max_size) and err2 + cost[j] > eps2:
            break
        q = Q[:m, j].copy()
        if Q[j, j] > 0:
            W[:m] -= np.outer(q, W[j]) / Q[j, j]
            Q[:m, :m] -= np.outer(q, q) / Q[j, j]
        last = m - 1
        Z[j], W[j] = Z[last], W[last]
        row = Q[last, :m].copy()
        Q[j, :m], Q[:m, j] = row, row
        Q[j, j] = Q[last, last]
        err2 += cost[j]
        m -= 1
    return Z[:m], W[:m], Q[:m, :m].copy(), float(np.sqrt(err2))


class _DictionaryMixin:
    """Buffers of the per-node dictionaries and their evaluation."""

    def _grow(self, capacity):
        n_nodes, old, n_features = self._points.shape
        points = np.zeros((n_nodes, capacity, n_features), dtype=self._dtype)
        weights = np.zeros((n_nodes, capacity, self._n_outputs))
        points[:, :old] = self._points
        weights[:, :old] = self._weights
        self._points, self._weights = points, weights
        slot_ids = np.full((n_nodes, capacity), -1, dtype=np.intp)
        slot_ids[:, :old] = self._slot_ids
        self._slot_ids = slot_ids
        avg_weights = np.zeros((n_nodes, capacity, self._n_outputs))
        avg_weights[:, :old] = self._avg_weights
        self._avg_weights = avg_weights
        pub_points = np.zeros((n_nodes, capacity, n_features), dtype=self._dtype)
        pub_weights = np.zeros((n_nodes, capacity, self._n_outputs))
        kept = self._pub_points.shape[1]
        pub_points[:, :kept] = self._pub_points
        pub_weights[:, :kept] = self._pub_weights
        self._pub_points, self._pub_weights = pub_points, pub_weights
        if self._compress:
            gram_inv = np.zeros((n_nodes, capacity, capacity))
            gram_inv[:, :old, :old] = self._gram_inv
            self._gram_inv = gram_inv

    def _reserve(self, lengths, epochs):
        """Grow the dictionaries for queues of ``lengths``; return the largest size."""
        n_nodes = len(self.nodes_)
        limit = int(np.max(self._sizes + lengths)) if n_nodes else 0
        if self._max_size:
            limit = min(limit, self._max_size + 1)
        limit = max(limit, 1)
        if self._points.shape[1] < limit:
            # KOMP folds a repeated sample, so later passes rarely grow the
            # dictionaries past the distinct samples: start from those.
            distinct = int(np.max(self._sizes + lengths // epochs)) + 1 if n_nodes else 1
            capacity = limit if not self._compress else max(
                self._points.shape[1], min(limit, _INITIAL_CAPACITY, distinct)
            )
            if capacity > self._points.shape[1]:
                self._grow(capacity)
        return limit

    def _node_function(self, node, X):
        """f_node(X) (n_samples, n_outputs)."""
        D = self.dictionaries_[node]
        W = self.dual_coef_[node]
        out = np.zeros((X.shape[0], self._n_outputs))
        if len(D) == 0:
            return out
        D = np.ascontiguousarray(D, dtype=self._dtype)
        for start in range(0, X.shape[0], _PREDICT_CHUNK):
            chunk = np.ascontiguousarray(X[start : start + _PREDICT_CHUNK])
            K = np.empty((chunk.shape[0], D.shape[0]), dtype=self._dtype)
            _online_fast.kernel_matrix(
                chunk, D, K, self._kernel_kind, float(self.gamma_[node]),
                self._coef0, self._degree,
            )
            out[start : start + chunk.shape[0]] = K.astype(np.float64, copy=False) @ W
        return out
