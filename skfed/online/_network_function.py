"""The network function: one compressed mean of all nodes' functions.

Every ``fit`` and ``partial_fit`` ends with the nodes computing the mean of
their functions, ``fbar = (1 / n) sum_i f_i``, as one dictionary in one
kernel width, over breadth-first spanning trees of the communication graph
(one per connected component):

1. **Width.**  With a float ``gamma`` (or ``None``) every node has the same
   width, which is the network function's (the linear kernel has none).
   Otherwise (``"median"``,
   ``"scale"``, an array or a dict) the width is the geometric mean of the
   nodes' widths, summed up the tree (every node but the root sends its
   parent two float64: the sum of its subtree's log widths and its count)
   and sent back down (one float64): one round of its own.
2. **Up.**  Every node re-expresses its function in that width (exactly
   when its own width is it; otherwise by interpolation at its own
   dictionary points, a local computation), and, once all its children have
   reported, merges its function with their subtree means into its
   subtree's mean (the union of the dictionaries, weights scaled by the
   subtree counts), compresses it by KOMP to ``epsilon`` and
   ``max_dictionary_size`` as after any step, and sends it to its parent
   (the points, the weights and an int32 count; in the tree of node 0 also
   its subtree's dictionary sizes and stream bytes, two float64 that a
   later join reads, :mod:`._join_means`).  A linear or affine
   kernel (at most ``COORDINATE_LIMIT - 1`` features, :mod:`._coordinates`)
   needs no compression: every function of it is ``w' x + b``, so a node
   re-expresses its own function (exactly, in any width) and its subtree's
   mean as ``n_out`` points (one more for the affine kernel), KOMP and the
   cap untouched, or as no point when its norm is within ``epsilon`` of
   zero, as KOMP leaves such a mean (with the linear kernel on Landmine the
   nodes' functions average to a norm of 0.0015, whose exact sign
   predicted 32 % of the rows right, zero the majority's 94 %).
3. **Down.**  The root's mean is the network function; it travels down the
   tree (one dictionary per edge), so every node holds it and can hand it
   to a node that joins.
4. **Solve (a classifier's ``fit``).**  The mean of many functions is
   shrunk and blurred; keeping its ``m`` points, the nodes re-solve its
   weights on their summed losses, ``sum_s w_s l(f(x_s), y_s) + (alpha W /
   2) ||f||^2`` (``W`` the total sample weight, ``l`` the fit's loss, a
   hinge squared so that it is smooth), by L-BFGS at the root on whitened
   weights (:func:`solve_weights`, at most ``SOLVE_ITERATIONS``): every
   evaluation is one tree round in which every node sends its parent its
   subtree's loss, weight and gradient (``m n_out + 2`` float64) and gets
   the next weights (``m n_out`` float64), under the drops as in steps 1-3
   (:func:`._selection.tree_round`: a round per tree level up and down,
   more when a node is dropped).  A gate round follows: the
   nodes' weighted errors with their own functions and with the solved one,
   and their weight (3 float64 up), and the root's choice (an int32 down):
   the solved weights replace the mean's when their error rate is within
   ``SOLVE_GATE`` of the nodes' own (a federation of unlike clusters, whose
   pooled function serves none of them, keeps the mean).  A regressor has
   no error rate: every node holds back about a fifth of its rows (drawn
   from the public seed, :func:`held_back_rows`), the solve runs on the
   rest, and the gate round sums the held-back rows' loss with the mean and
   with the solved weights (2 float64 up, an int32 down); the solved
   weights are kept when they lower it by more than ``SOLVE_MARGIN`` (1 %)
   of the mean's (``benchmarks/online_shared_function.py``).  Not in
   ``partial_fit`` (a stream's network function stays the mean), nor with
   rogue nodes (their reports are not checked).  A linear or affine kernel's
   solve (within ``COORDINATE_LIMIT``) is over every affine function: its
   points are the public coordinate points ``e_1 .. e_d`` (and 0), ``m = d
   (+ 1)``, whose weights are ``w / gamma`` (and the intercept's), and the
   solved function is kept in the compact form.  Free of the mean's points
   a regressor's solve can fit its rows too closely (20 nodes of 30
   samples in 500 features: the held-back loss of the converged weights
   72.4 against the mean's 38.2), so every node also reports, each
   evaluation, its held-back rows' loss at the evaluated weights (one more
   float64 up), and the root keeps the evaluated weights of least
   held-back loss (the gate's int32 says which; the nodes received them
   all), an early stop the gate then checks as above (held-back loss 21.6;
   ``benchmarks/online_regressor_network_share.py``).  The MPI engine asks
   its ranks for those losses in one exchange after the solve (the same
   values).

Points are the nodes' own samples, and with copies (``exchange_every`` not
None and a non-zero penalty) the two ends of a tree edge hold each other's
published dictionary: a point of a message that the sender's or the
receiver's published dictionary holds (or, going down, the subtree mean the
receiver sent up) travels as an int32 index into their concatenation, which
both ends know, instead of its ``d`` values; a bit per point says which
(:func:`dictionary_bytes`).  The values and the weights do not change.

A round passes a message only when both ends are active (dropped nodes
wait); a rogue node corrupts the weights it sends up (what it forwards down
is modelled as sent unchanged).  The bytes are counted in the fit's
``communication_`` (rounds of their own after the fit's).

**Rogue nodes.**  A rogue's message carries its honest descendants'
functions too, so one rogue near the root would corrupt most of the mean.
When the network has rogue nodes (``rogue_fraction > 0``), a parent
therefore checks every message it receives on its own samples of the call,
and drops the messages that are no better there than chance: a
classifier's message unless it ranks the parent's samples of each class
above the others by more than one standard deviation of a random ranking
(a weighted area under the ROC curve, :func:`ranking_score`; a complement
rogue's is under one half, a noise rogue's near it; a ranking, not errors
at the threshold, because a message's margins may be shifted toward the
classes its subtree saw most, which would drop honest messages at a
parent whose samples are mostly one class), a regressor's when its weighted loss is above both the zero
function's (where every node's function starts) and its own negation's;
a parent without samples in the call keeps every message
(:func:`message_passes`).  A dropped message takes its subtree out of the
mean: its count is not added, so the network function is the mean of the
nodes whose path to the root passed every check (``network_excluded_``
says which did not).  It costs no byte (the message was sent).  Without
rogue nodes nothing is checked, and the nodes of an MPI rank that stopped
answering (``lost``) take no part: the trees span the other nodes, and
each lost node is a component of its own that counts for nothing.

**Scale sums (regressors).**  Once the network function ``f0`` has reached
it, every node of a regressor computes ``sum w f0 y``, ``sum w f0^2`` and
``sum w`` over its samples of the call (nothing is sent): a node that joins
later scales ``f0`` by least squares from the sums of the nodes it queries
(:meth:`add_nodes`), since a mean of functions is shrunk.
"""

import numbers

import numpy as np
from scipy import sparse
from scipy.linalg import solve_triangular
from scipy.optimize import minimize
from scipy.sparse.csgraph import connected_components
from sklearn.base import clone

from ..network import float_bytes, payload_bytes, resolve_network
from ._coordinates import (coordinate_points, from_coordinates, linear_parts, compact,
                           mean_compact, to_coordinates, uses_coordinates)
from ._dictionary import _komp_prune
from ._holdout import loss_arrays, rows_by_node
from ._join_means import TREE_SUMS_BYTES, held_sums
from ._join_offset import offset_sums
from ._selection import tree_parents, tree_round


def common_width(gammas):
    """The network function's width: the nodes' common width, or the
    geometric mean of their widths."""
    gammas = np.asarray(gammas, dtype=np.float64)
    if np.all(gammas == gammas[0]):
        return float(gammas[0])
    return float(np.exp(np.mean(np.log(gammas))))


def _comparable(D):
    """``D`` with -0.0 written 0.0 (contiguous): equal points, equal bytes."""
    return np.ascontiguousarray(D) + 0.0


def union(parts):
    """One dictionary for the sum of the functions ``parts`` (``(points,
    weights)`` in one kernel): their points, a point held by several once
    with the sum of its weights (so the Gram matrix is not singular by
    construction), in order of first appearance (as its first holder
    writes it: -0.0 and 0.0 are one point)."""
    parts = [(D, W) for D, W in parts if len(D)]
    if not parts:
        return None, None
    Z = np.ascontiguousarray(np.concatenate([D for D, _ in parts]))
    W = np.concatenate([W for _, W in parts])
    keys = _comparable(Z)
    rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    if len(first) == len(Z):
        return Z, W
    summed = np.zeros((len(first), W.shape[1]))
    np.add.at(summed, inverse.ravel(), W)
    order = np.argsort(first)
    return np.ascontiguousarray(Z[first[order]]), summed[order]


# Relative residual below which a point of a union is in the span of the
# others (pivoted Cholesky of its Gram matrix): its weight is projected onto
# them before KOMP, whose inverse Gram matrix must exist.
_SPAN_TOL = 1e-10


def spanning_points(K, tol=_SPAN_TOL):
    """Indices (sorted) of points whose kernel functions span those of all,
    by pivoted Cholesky of ``K`` down to ``tol`` times its largest diagonal."""
    n = len(K)
    residual = np.diag(K).astype(np.float64).copy()
    scale = residual.max() if n else 0.0
    L = np.zeros((n, n))
    chosen = []
    for r in range(n):
        j = int(np.argmax(residual))
        if not residual[j] > tol * scale:
            break
        chosen.append(j)
        L[:, r] = (K[:, j] - L[:, :r] @ L[j, :r]) / np.sqrt(residual[j])
        residual -= L[:, r] ** 2
        residual[chosen] = -np.inf
    return np.sort(np.asarray(chosen, dtype=np.intp))


def compress_union(Z, W, K, epsilon, max_size, compress):
    """KOMP (:func:`_komp_prune`) of ``sum_m W[m] k(Z[m], .)`` after
    projecting it onto the span of :func:`spanning_points` (exact up to
    ``_SPAN_TOL``; a linear kernel's union has rank at most the features)."""
    if not compress:
        return _komp_prune(Z, W, K, epsilon, max_size, compress)
    try:
        # (most unions: every pivot of the plain Cholesky factor is large)
        pivots = np.diag(np.linalg.cholesky(K)) ** 2
        full = len(K) == 0 or pivots.min() > _SPAN_TOL * np.diag(K).max()
    except np.linalg.LinAlgError:
        full = False
    keep = np.arange(len(Z)) if full else spanning_points(K)
    if len(keep) < len(Z):
        W = np.linalg.solve(K[np.ix_(keep, keep)], K[keep] @ W)
        Z, K = Z[keep], K[np.ix_(keep, keep)]
    return _komp_prune(Z, W, K, epsilon, max_size, compress)


def merge_means(parts, counts, kernel, epsilon, max_size, compress):
    """The mean of functions held as subtree means, compressed by KOMP.

    ``parts`` is a list of ``(points, weights)`` in one kernel and
    ``counts`` the number of nodes each is the mean of; the result is
    ``sum_p counts[p] f_p / sum_p counts[p]`` as the :func:`union` of the
    dictionaries, pruned by :func:`_komp_prune`.  Returns ``(points,
    weights)``.
    """
    total = float(np.sum(counts))
    Z, W = union([(D, W * (c / total)) for (D, W), c in zip(parts, counts)])
    if Z is None:
        D0, W0 = parts[0]
        return D0[:0], W0[:0]
    D, W, _, _ = compress_union(Z, W, kernel(Z, Z), epsilon, max_size, compress)
    return D, W


# Ridge of the interpolation across widths, relative to the mean of k(x, x):
# keeps the weights bounded where the Gram matrix is nearly singular.
_INTERPOLATION_RIDGE = 1e-6


def in_width(D, W, gamma_from, gamma_to, kernel_of, linear=False):
    """``sum_m W[m] k_from(D[m], .)`` in the kernel of ``gamma_to``: the same
    function when the widths agree or the kernel is ``linear`` (which has
    none), else its (ridge) interpolant at ``D``: ``(K_to + r I)^-1 K_from
    W`` with ``r`` ``_INTERPOLATION_RIDGE`` times the mean of
    ``diag(K_to)``."""
    if gamma_from == gamma_to or not len(D):
        return D, W
    if linear:
        # x . x' has no width: the same function.
        return D, W
    values = kernel_of(gamma_from)(D, D) @ W
    K = kernel_of(gamma_to)(D, D)
    ridge = _INTERPOLATION_RIDGE * max(float(np.trace(K)) / len(K), 1e-300)
    return D, np.linalg.solve(K + ridge * np.eye(len(K)), values)


def _row_keys(D):
    """Every row of ``D`` as bytes (exact equality of points; -0.0 and 0.0
    are equal)."""
    return [row.tobytes() for row in _comparable(D)]


def reference_split(D, known):
    """Which rows of ``D`` the receiver already holds, as rows of ``known``.

    ``known`` is a list of arrays both ends of a message hold in the same
    order (their concatenation is what an int32 reference indexes).  Returns
    ``(is_ref, index)``: a boolean mask over the rows of ``D`` and, for the
    referenced rows, the row of the concatenation holding the same point
    (the first such row).
    """
    table = {}
    offset = 0
    for block in known:
        for a, key in enumerate(_row_keys(block)):
            table.setdefault(key, offset + a)
        offset += len(block)
    index = np.array([table.get(key, -1) for key in _row_keys(D)], dtype=np.int64)
    return index >= 0, index[index >= 0]


def dictionary_bytes(n_points, n_referenced, n_features, n_outputs, b, referencing):
    """Bytes of a dictionary of ``n_points`` points (``b`` bytes a value)
    of which ``n_referenced`` travel as int32 references: with
    ``referencing`` a bit per point says which (rounded up to whole bytes),
    a reference costs 4 bytes and any other point its ``n_features``
    values; every point's ``n_outputs`` weights travel (the communication
    layer's :func:`~skfed.network.payload_bytes`)."""
    if not referencing:
        n_referenced = 0
    values = n_points * n_outputs + (n_points - n_referenced) * n_features
    return payload_bytes(n_float64=values if b == 8 else 0, n_float32=values if b == 4 else 0,
                         n_int32=n_referenced, n_bits=n_points if referencing else 0)


def ranking_score(values, y, weights):
    """Weighted area under the ROC curve of ``values`` at the classes ``y``,
    minus one half, times the weight of the pairs it compares (summed over
    the classes, one against the rest, for several outputs; ties count one
    half).  Positive when the message ranks the parent's samples of each
    class above the others, negative for its negation.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_outputs)
        The message's function at the parent's samples.
    y : ndarray of shape (n_samples,)
        Encoded classes: ``+-1`` for one output, class indices otherwise.
    weights : ndarray of shape (n_samples,)
        The samples' weights.

    Returns
    -------
    score : float
    null_sd : float
        The score's standard deviation for a message that ranks at random
        (Mann-Whitney's, at the classes' effective sizes ``(sum w)^2 / sum
        w^2``; classes taken as independent).
    """
    values = np.asarray(values).reshape(len(y), -1)
    total = variance = 0.0
    for c in range(values.shape[1]):
        positive = (y > 0) if values.shape[1] == 1 else (y == c)
        wp, wn = weights * positive, weights * ~positive
        if not wp.any() or not wn.any():
            continue
        uniq, inv = np.unique(values[:, c], return_inverse=True)
        neg_at = np.bincount(inv.ravel(), wn, minlength=len(uniq))
        pos_at = np.bincount(inv.ravel(), wp, minlength=len(uniq))
        below = np.cumsum(neg_at) - neg_at
        Wp, Wn = wp.sum(), wn.sum()
        total += float(np.dot(pos_at, below + 0.5 * neg_at)) - 0.5 * Wp * Wn
        n_p, n_n = Wp ** 2 / np.dot(wp, wp), Wn ** 2 / np.dot(wn, wn)
        variance += (Wp * Wn) ** 2 * (n_p + n_n + 1) / (12 * n_p * n_n)
    return total, float(np.sqrt(variance))


def message_passes(criterion, values, y, weights, baseline, ranking=False):
    """Whether a parent keeps a message (see the module's *Rogue nodes*).

    Parameters
    ----------
    criterion : callable
        ``criterion(F, y)``: the per-row criterion (errors or loss) of the
        values ``F`` at targets ``y``.
    values : ndarray of shape (n_samples, n_outputs)
        The message's function at the parent's samples.
    y, weights : ndarray of shape (n_samples,)
        The parent's encoded targets and sample weights.
    baseline : float
        The weighted criterion of the prediction that ignores ``x``.
    ranking : bool, default=False
        A classifier's check: :func:`ranking_score` at least one null
        standard deviation above chance, whatever ``criterion`` and
        ``baseline``.

    Returns
    -------
    bool
        True when the parent has no sample; for a classifier
        (``ranking``), when the message ranks the parent's samples better
        than chance by one null standard deviation; for a regressor, when its weighted criterion is
        at most ``baseline`` or at most its negation's.
    """
    if len(y) == 0:
        return True
    if ranking:
        score, null_sd = ranking_score(values, y, weights)
        return score >= null_sd
    own = float(np.dot(weights, criterion(values, y)))
    return own <= baseline or own <= float(np.dot(weights, criterion(-values, y)))


# L-BFGS iterations of the network solve (each evaluation is one tree
# round); whitened, 50 reach on HAR, moons, Landmine and the related families
# the joins of 200 (benchmarks/online_shared_function.py).
SOLVE_ITERATIONS = 50
# The solved function is kept when its error rate on the nodes' samples is
# within this of their own functions' (benchmarks/online_shared_function.py).
SOLVE_GATE = 0.15
# A regressor's solve (it has no error rate to gate on): every node holds
# back this share of its rows (each row with this probability, drawn per node
# from the public seed, :func:`held_back_rows`), the solve runs on the rest,
# and the solved weights are kept only when the held-back rows' summed loss
# falls below the mean's by more than SOLVE_MARGIN of it.  Measured
# (benchmarks/online_shared_function.py --regression 50 --margin 0.01,
# seeds 0-8): School's joins gain 1.35-1.58 points of R^2 at k = 5 on
# average; no held-out regression family's seed loses more than 0.10, and
# without the margin heavy-tailed seed 1 lost 4.1 (its held-back loss fell
# 0.24 %).
SOLVE_HELD_BACK = 0.2
SOLVE_MARGIN = 0.01
# The whitening's jitter, relative to the largest diagonal entry of the
# points' Gram matrix (tried tenfold larger until it factors).
SOLVE_JITTER = 1e-10


def error_counts(F, y, w):
    """Weighted errors of the function values ``F`` on encoded targets ``y``
    (the sign for -1/+1, the largest output for class indices)."""
    F = np.asarray(F, dtype=np.float64).reshape(len(y), -1)
    if F.shape[1] == 1:
        wrong = np.where(F[:, 0] > 0, 1.0, -1.0) != y
    else:
        wrong = np.argmax(F, axis=1) != np.asarray(y, dtype=np.intp)
    return float(np.dot(w, wrong))


def smooth_loss(name, F, y, threshold=None):
    """The loss a network solve minimizes, and its derivative.

    The logistic losses are the fit's (a regressor's, with ``threshold``,
    too: ``benchmarks/online_shared_function.py`` measures them); the hinge
    losses (not differentiable at their kink, which L-BFGS needs) are
    squared: ``max(0, 1 - y f)^2`` and the squared Crammer-Singer margin
    ``max(0, 1 + f_j - f_y)^2`` (``j`` the best other class)."""
    value, grad = loss_arrays(name, F, y, threshold)
    if name in ("hinge", "multiclass_hinge", "epsilon_insensitive"):
        return value * value, 2.0 * value[:, None] * grad
    return value, grad


class NodeSums:
    """Every node's summed loss, weight and gradient of a function in the
    span of the network function's points, over the node's own samples.

    ``nodes`` (the node index of every row), ``X``, ``y`` (encoded) and
    ``sample_weight`` are the rows a process holds (all of them in the
    simulation, an MPI rank's own otherwise).  Calling it with the points
    ``D``, the width ``gamma``, the weights ``A`` (m, n_out) and the nodes
    to report returns (len(nodes), 2 + m n_out): ``sum_s w_s loss(f(x_s),
    y_s)``, ``sum_s w_s`` and ``sum_s w_s loss'(f(x_s), y_s) k(D, x_s)``,
    zero for a node without rows here.  Each node's kernel rows are kept
    between calls with the same points (one solve)."""

    def __init__(self, kernel_of, loss, X, y, codes, sample_weight, own=None, threshold=None,
                 held=None):
        self.kernel_of, self.loss, self.X, self.y, self.own = kernel_of, loss, X, y, own
        self.threshold = threshold
        self.w = (np.ones(len(codes)) if sample_weight is None
                  else np.asarray(sample_weight, dtype=np.float64))
        codes = np.asarray(codes)
        held = np.zeros(len(codes), dtype=bool) if held is None else np.asarray(held, bool)
        self.rows = self._split(codes, ~held)
        self.held_rows = self._split(codes, held)
        self._key, self._kernel_rows = None, {}

    @staticmethod
    def _split(codes, use):
        """Every node's rows among ``use``, in their order."""
        index = np.flatnonzero(use)
        order = index[np.argsort(codes[index], kind="stable")]
        nodes, first = np.unique(codes[order], return_index=True)
        bounds = np.append(first, len(order))
        return {int(node): order[bounds[i]: bounds[i + 1]] for i, node in enumerate(nodes)}

    def _node_kernel(self, node, D, gamma, held=False):
        """The node's rows (its held-back ones with ``held``) and their
        kernel rows against ``D`` (kept while the points and width stay the
        same), or ``(None, None)``."""
        if self._key is None or self._key[0] is not D or self._key[1] != gamma:
            self._key, self._kernel_rows = (D, gamma), {}
        rows = (self.held_rows if held else self.rows).get(int(node))
        if rows is None:
            return None, None
        K = self._kernel_rows.get((int(node), held))
        if K is None:
            K = self._kernel_rows[(int(node), held)] = self.kernel_of(gamma)(self.X[rows], D)
        return rows, K

    def held_losses(self, D, gamma, As, nodes):
        """Every node's weighted loss on its held-back rows with each of the
        weights ``As``: (len(nodes), len(As)) (a regressor's gate)."""
        out = np.zeros((len(nodes), len(As)))
        for r, node in enumerate(nodes):
            rows, K = self._node_kernel(node, D, gamma, held=True)
            if rows is None:
                continue
            w = self.w[rows]
            for j, A in enumerate(As):
                value, _ = smooth_loss(self.loss, K @ A, self.y[rows], self.threshold)
                out[r, j] = np.dot(w, value)
        return out

    def __call__(self, D, gamma, A, nodes):
        out = np.zeros((len(nodes), 2 + A.size))
        for r, node in enumerate(nodes):
            rows, K = self._node_kernel(node, D, gamma)
            if rows is None:
                continue
            w = self.w[rows]
            value, grad = smooth_loss(self.loss, K @ A, self.y[rows], self.threshold)
            out[r, 0] = np.dot(w, value)
            out[r, 1] = w.sum()
            out[r, 2:] = (K.T @ (w[:, None] * grad)).ravel()
        return out

    def errors(self, D, gamma, A, nodes):
        """Every node's weighted errors with its own function (``own(node,
        X)``, its values) and with ``A``, and its weight: (len(nodes), 3)."""
        out = np.zeros((len(nodes), 3))
        for r, node in enumerate(nodes):
            rows, K = self._node_kernel(node, D, gamma)
            if rows is None:
                continue
            w, y = self.w[rows], self.y[rows]
            out[r] = (error_counts(self.own(int(node), self.X[rows]), y, w),
                      error_counts(K @ A, y, w), w.sum())
        return out


def held_back_rows(codes, seed):
    """The rows a regressor's nodes hold back from the network solve: every
    node draws, for each of its rows in their order, whether it is held back
    (probability ``SOLVE_HELD_BACK``) from ``default_rng([*seed, node])``,
    so a process holding only some nodes' rows draws the same."""
    codes = np.asarray(codes)
    held = np.zeros(len(codes), dtype=bool)
    for node, rows in rows_by_node(codes):
        rng = np.random.default_rng([*(int(v) for v in seed), int(node)])
        held[rows] = rng.random(len(rows)) < SOLVE_HELD_BACK
    return held


def whitening(Kzz):
    """The lower Cholesky factor ``L`` of the points' Gram matrix, ``Kzz + t
    I = L L'`` with the jitter ``t`` ``SOLVE_JITTER`` times its largest
    diagonal entry (tenfold larger while it does not factor: a Gram matrix
    is positive semi-definite up to rounding)."""
    Kzz = np.asarray(Kzz, dtype=np.float64)
    top = float(np.max(np.diag(Kzz))) if len(Kzz) else 0.0
    jitter = SOLVE_JITTER * (top if top > 0 else 1.0)
    eye = np.eye(len(Kzz))
    while True:
        try:
            return np.linalg.cholesky(Kzz + jitter * eye)
        except np.linalg.LinAlgError:
            jitter *= 10.0


def solve_weights(Kzz, A0, alpha, evaluate, max_iter=SOLVE_ITERATIONS):
    """Weights ``A`` (m, n_out) of the function ``sum_j A_j k(z_j, .)``
    minimizing ``sum_i S_i(A) + (alpha W / 2) tr(A' Kzz A)`` from ``A0``,
    where ``evaluate(A)`` returns the nodes' reports stacked (n_reports,
    2 + m n_out; see :class:`NodeSums`) and ``W`` their total weight.

    L-BFGS (at most ``max_iter`` iterations) runs on the whitened weights
    ``B = L' A`` (:func:`whitening`), in which the penalty is ``(alpha W / 2)
    ||B||^2`` up to the jitter and the problem is far better conditioned
    than in ``A``; every point it evaluates is mapped to the ``A`` the root
    sends (``A = L'^{-1} B``) and the reports' gradient ``G`` in ``A`` to
    ``L^{-1} G``.  Returns ``(A, evaluations)``, one evaluation per distinct
    ``B`` (the first, at ``A0``'s whitened weights, also finds the reports'
    weight); ``A0`` when the reports hold no weight."""
    A0 = np.asarray(A0, dtype=np.float64)
    shape = A0.shape
    L = whitening(Kzz)
    n_eval, last = [0], {}

    def to_a(b):
        return solve_triangular(L.T, b.reshape(shape), lower=False)

    def totals(b):
        # One tree round per new point.
        key = b.tobytes()
        if key not in last:
            last.clear()
            A = to_a(b)
            last[key] = (A, evaluate(A).sum(axis=0))
            n_eval[0] += 1
        return last[key]

    b0 = np.ascontiguousarray(L.T @ A0).ravel()
    if not totals(b0)[1][1] > 0:
        return A0, n_eval[0]

    def objective(b):
        A, total = totals(b)
        KA = Kzz @ A
        scale = alpha * total[1]
        grad = total[2:].reshape(shape) + scale * KA
        return (float(total[0] + 0.5 * scale * np.sum(A * KA)),
                solve_triangular(L, grad, lower=True).ravel())

    result = minimize(objective, b0, jac=True, method="L-BFGS-B",
                      options={"maxiter": int(max_iter), "gtol": 1e-6})
    return np.ascontiguousarray(to_a(result.x)), n_eval[0]


def _width_shared(gamma):
    """Whether every node knows the width without a message (a float gamma)."""
    return gamma is None or (isinstance(gamma, numbers.Real) and not isinstance(gamma, bool))


class _NetworkFunctionMixin:
    """Builds the network function at the end of a fit (see the module)."""

    def _check_data(self, X, y, codes, sample_weight):
        """Every node's samples of the call for the parents' checks
        (``None`` when the network has no rogue node): ``(rows per node,
        X, y, weights, baseline per node)``; the baseline (the zero
        function's weighted loss) is a regressor's only."""
        network = resolve_network(self.network)
        if X is None or not network.rogue_fraction:
            return None
        n = len(self.nodes_)
        weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight,
                                                                            dtype=np.float64)
        order = np.argsort(codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n))])
        rows = [order[bounds[i]: bounds[i + 1]] for i in range(n)]
        # A regressor's baseline: the zero function's loss (a classifier's
        # check is a ranking, which reads none).
        baseline = np.zeros(n)
        if self._is_regressor():
            for i in range(n):
                yi, wi = y[rows[i]], weights[rows[i]]
                if len(yi):
                    zero = np.zeros((len(yi), self._n_outputs))
                    baseline[i] = float(np.dot(wi, self._join_criterion(zero, yi)))
        return rows, X, y, weights, baseline

    def _build_network_function(self, X=None, y=None, codes=None, sample_weight=None,
                                lost=None, references=True, solve=False, node_sums=None,
                                linear_data=None):
        """Run the protocol of the module; return its log (over ``nodes_``).

        ``X``, ``y`` (encoded), ``codes`` and ``sample_weight`` are the
        call's samples, which the parents check messages on when the
        network has rogue nodes; ``lost`` the nodes of MPI ranks that
        stopped answering.  ``references=False`` counts every point of a
        message as its values (the protocol before references; the same
        network function), for ``benchmarks/online_network_bytes.py``.
        ``node_sums`` / ``linear_data`` answer for the nodes' rows in the
        solves (by default from the call's samples; the MPI engine's root
        passes its ranks' exchanges).  Sets ``network_gamma_``,
        ``network_dictionary_`` and ``network_coef_`` (per connected
        component of the graph, in the order of their roots, the smallest
        node of each), ``network_component_`` (every node's component) and
        ``network_excluded_``.
        """
        n = len(self.nodes_)
        network = resolve_network(self.network)
        check = self._check_data(X, y, codes, sample_weight)
        excluded = np.zeros(n, dtype=bool)
        adjacency = sparse.csr_matrix(self.adjacency_)
        if lost is not None and len(lost):
            excluded[np.asarray(lost, dtype=np.intp)] = True
            # Lost nodes relay nothing: the trees span the others.
            keep = sparse.diags((~excluded).astype(np.float64))
            adjacency = sparse.csr_matrix(keep @ adjacency @ keep)
            adjacency.eliminate_zeros()
        sim = clone(network).set_params(
            topology=None, topology_params=None,
            random_state=np.random.RandomState([self._network_seed, self._n_calls, 7937]),
        ).start(n, server=False)
        sim.rogue[:] = self._rogue
        parents = tree_parents(adjacency)
        roots = np.flatnonzero(parents < 0)
        _, labels = connected_components(adjacency, directed=False)
        lookup = np.empty(len(roots), dtype=np.intp)
        lookup[labels[roots]] = np.arange(len(roots))
        component = lookup[labels]   # index into roots (each its smallest node)
        if _width_shared(self.gamma) or n == 1 or self.kernel_ == "linear":
            widths = np.array([common_width(self.gamma_[component == c])
                               for c in range(len(roots))])
        else:
            # (under the drops, as every other tree round)
            tree_round(sim, parents, np.flatnonzero(~excluded), payload_bytes(n_float64=2),
                       payload_bytes(n_float64=1))
            widths = np.array([common_width(self.gamma_[component == c])
                               for c in range(len(roots))])
        b = float_bytes(self._dtype)
        n_features, n_out = self._points.shape[2], self._n_outputs
        eps = self.epsilon_ if self._compress else 0.0
        max_size = self._max_size if self._compress else 0
        coords = uses_coordinates(self.kernel_, n_features)
        # With copies (exchange_every not None, a non-zero penalty) both
        # ends of a tree edge hold each other's published dictionary; a point
        # of a message found there travels as an int32 reference into it.
        referencing = (references and self.exchange_every is not None
                       and self.consensus_penalty_ > 0 and n > 1)
        pub = [self._pub_points[i, :self._pub_sizes[i]] for i in range(n)]
        sent_up = [None] * n
        children = [[] for _ in range(n)]
        for node in np.flatnonzero(parents >= 0):
            children[parents[node]].append(int(node))
        received = [[] for _ in range(n)]   # (points, weights, count) from children
        dropped = np.zeros(n, dtype=bool)   # messages a parent dropped (their senders)
        n_children = np.array([len(c) for c in children], dtype=np.intp)
        # Up: a node merges once all its children have reported and sends
        # its subtree mean to its parent in a later round where both are
        # active (only the nodes in flight are visited: O(n) in all).
        merging = [int(node) for node in np.flatnonzero(n_children == 0)]
        flight, final = [], {}
        # (_linear) the nodes' linear scales: every message also carries its
        # subtree's sum (one float64) once some node has a linear term
        lin, lin_sum, lin_total = self._network_linear_scales(), np.zeros(n), {}
        lin_bytes = 0 if lin is None else payload_bytes(n_float64=1)
        while True:
            for node in merging:
                gamma = widths[component[node]]
                if coords:
                    # exact in any width: w' x + b (:mod:`._coordinates`)
                    own = compact(*linear_parts(self.dictionaries_[node], self.dual_coef_[node],
                                                self.kernel_, self.gamma_[node]),
                                  self.kernel_, gamma)
                else:
                    own = in_width(self.dictionaries_[node], self.dual_coef_[node],
                                   self.gamma_[node], gamma, self._join_kernel,
                                   self.kernel_ == "linear")
                parts = [own] + [(D, W) for D, W, _ in received[node]]
                counts = [1] + [c for _, _, c in received[node]]
                received[node] = None
                if coords:
                    D, W = mean_compact(parts, counts, self.kernel_, gamma, eps)
                    if b == 4:
                        D = D.astype(np.float32).astype(np.float64)
                else:
                    D, W = merge_means(parts, counts, self._join_kernel(gamma), eps,
                                       max_size, self._compress)
                if lin is not None:
                    lin_sum[node] += lin[node]
                if parents[node] < 0:
                    final[node] = (D, W)
                    lin_total[node] = (lin_sum[node], float(np.sum(counts)))
                else:
                    flight.append((node, D, W, int(np.sum(counts))))
            if not flight:
                break
            active = sim.draw_rounds(1)[0][0]
            merging, waiting = [], []
            for node, D, W, count in flight:
                parent = parents[node]
                if not (active[node] and active[parent]):
                    waiting.append((node, D, W, count))
                    continue
                n_ref = 0
                if referencing:
                    is_ref, _ = reference_split(D, [pub[node], pub[parent]])
                    n_ref = int(is_ref.sum())
                    sent_up[node] = D
                sim.counter.send_message(int(node), int(parent), payload_bytes(n_int32=1)
                                         + dictionary_bytes(len(D), n_ref, n_features,
                                                            n_out, b, referencing) + lin_bytes
                                         # (node 0's tree: the join's sums, _join_means)
                                         + TREE_SUMS_BYTES * (component[node] == component[0]))
                if b == 4:
                    W = W.astype(np.float32).astype(np.float64)
                W = sim.corrupt_value_rows(W[None], [node])[0]
                if check is not None and not self._message_passes(check, parent, D, W,
                                                                  widths[component[node]]):
                    # Dropped: the message's subtree is out of the mean.
                    dropped[node] = True
                    count, D, W = 0, D[:0], W[:0]
                elif lin is not None:
                    lin_sum[parent] += lin_sum[node]
                received[parent].append((D, W, count))
                if len(received[parent]) == n_children[parent]:
                    merging.append(int(parent))
            flight = waiting
            sim.counter.next_round()
        if dropped.any():
            # A dropped message's sender and all its descendants are out
            # (each visited once: lost nodes, set before, have no tree edge).
            stack = [int(node) for node in np.flatnonzero(dropped)]
            while stack:
                node = stack.pop()
                if excluded[node]:
                    continue
                excluded[node] = True
                stack.extend(children[node])
        # Down: every edge carries the root's mean once (what a node
        # receives it forwards from the next round on).
        waiting = [child for root in roots for child in children[root]]
        while waiting:
            active = sim.draw_rounds(1)[0][0]
            later, received_now = [], []
            for node in waiting:
                parent = parents[node]
                if active[parent] and active[node]:
                    D = final[roots[component[node]]][0]
                    n_ref = 0
                    if referencing:
                        # The receiver also holds the subtree mean it sent up.
                        is_ref, _ = reference_split(D, [sent_up[node], pub[parent], pub[node]])
                        n_ref = int(is_ref.sum())
                    sim.counter.send_message(int(parent), int(node),
                                             dictionary_bytes(len(D), n_ref, n_features,
                                                              n_out, b, referencing)
                                             + lin_bytes)
                    received_now.extend(children[node])
                else:
                    later.append(node)
            waiting = later + received_now
            sim.counter.next_round()
        self.network_gamma_ = widths
        self.network_dictionary_ = [final[root][0].copy() for root in roots]
        self.network_coef_ = [final[root][1].copy() for root in roots]
        self.network_component_ = component
        self.network_excluded_ = excluded
        self._join_sums = held_sums(self, component)   # what node 0 now holds
        self._set_network_linear_share([lin_total.get(root) for root in roots])
        # Step 4's rounds (its evaluations and the gate's) and choice, per component.
        self._network_solve_rounds = np.zeros(len(roots), dtype=np.intp)
        self._network_solved = np.zeros(len(roots), dtype=bool)
        self._network_mean_coef = [W.copy() for W in self.network_coef_]  # step 3's
        # (its points: a solve in coordinates replaces the compact points too)
        self._network_mean_dictionary = [D.copy() for D in self.network_dictionary_]
        # a regressor's gate: the held-back loss of the mean and of the solve
        self._network_held_losses = np.full((len(roots), 2), np.nan)
        if solve and node_sums is None and X is not None:
            node_sums = self._solve_sums(X, y, codes, sample_weight)
        if solve and node_sums is not None and not network.rogue_fraction:
            self._solve_network(node_sums, parents, component, excluded, sim)
        # (join_function="auto": the linear network function and its gate, _linear)
        self._fit_linear_network(X, y, codes, sample_weight, parents, component, excluded,
                                 sim, solve, linear_data)
        return sim.log(node_labels=self.nodes_)

    def _held_back_seed(self):
        """The public seed of a regressor's held-back rows (this call's)."""
        return (self._network_seed, self._n_calls, 7949)

    def _solve_sums(self, X, y, codes, sample_weight):
        """The :class:`NodeSums` of step 4 over the rows a process holds (a
        regressor's with its held-back rows, :func:`held_back_rows`)."""
        held = (held_back_rows(codes, self._held_back_seed()) if self._is_regressor()
                else None)
        return NodeSums(self._join_kernel, self._loss_name(), X, y, codes, sample_weight,
                        self._node_function, self._loss_threshold(), held)

    def _solve_network(self, node_sums, parents, component, excluded, sim):
        """Step 4 of the module: every component's weights re-solved on its
        nodes' summed losses (``network_coef_``), one tree round per
        evaluation, under the drops."""
        n_out = self._n_outputs
        for c, D in enumerate(self.network_dictionary_):
            if not len(D):
                continue
            gamma = float(self.network_gamma_[c])
            nodes = np.flatnonzero((component == c) & ~excluded)
            if not len(nodes):
                continue   # (a lost node's component: nobody to solve for)
            A0 = self.network_coef_[c]
            coords = uses_coordinates(self.kernel_, D.shape[1])
            if coords:
                # over every affine function (:mod:`._coordinates`)
                A0 = to_coordinates(D, A0, self.kernel_, gamma)
                D = coordinate_points(self.kernel_, D.shape[1])
            seen = []

            def evaluate(A):
                seen.append(A)
                return node_sums(D, gamma, A, nodes)
            A, rounds = solve_weights(self._join_kernel(gamma)(D, D), A0,
                                      float(self.alpha), evaluate)
            # A regressor's solve in coordinates is over every affine
            # function, which a small alpha leaves free to fit the solve's
            # rows: every report also carries the node's loss on its
            # held-back rows at the evaluated weights, and the root keeps the
            # evaluated weights of least held-back loss (the gate's int32
            # down says which; every node received them all).
            early = bool(coords and self._is_regressor())
            if early:
                path = node_sums.held_losses(D, gamma, seen, nodes).sum(axis=0)
                A = seen[int(np.argmin(path))]
            # Each evaluation's tree round under the network's drops (a
            # dropped node reports or forwards in a later round).
            m = len(D)
            for _ in range(rounds):
                tree_round(sim, parents, nodes, payload_bytes(n_float64=m * n_out + 2 + early),
                           payload_bytes(n_float64=m * n_out))
            if self._is_regressor():
                # The gate: the nodes' losses on their held-back rows with
                # the mean and with the solved weights, summed up the tree;
                # the root's choice (an int32) back down.
                mean, solved = node_sums.held_losses(D, gamma, [A0, A], nodes).sum(axis=0)
                tree_round(sim, parents, nodes, payload_bytes(n_float64=2),
                           payload_bytes(n_int32=1))
                keep = mean > 0 and solved <= (1.0 - SOLVE_MARGIN) * mean
                self._network_held_losses[c] = (mean, solved)
            else:
                # The gate: the nodes' errors with their own functions and
                # with the solved one, and their weight, summed up the tree;
                # the root's choice (an int32) back down.
                own, solved, weight = node_sums.errors(D, gamma, A, nodes).sum(axis=0)
                tree_round(sim, parents, nodes, payload_bytes(n_float64=3),
                           payload_bytes(n_int32=1))
                keep = weight > 0 and solved - own <= SOLVE_GATE * weight
            self._network_solve_rounds[c] = rounds + 1
            if keep:
                if coords:
                    self.network_dictionary_[c], A = from_coordinates(A, self.kernel_, gamma)
                self.network_coef_[c] = np.ascontiguousarray(A)
                self._network_solved[c] = True

    def _network_scale_sums(self, X, y, codes, sample_weight, F=None):
        """Every node's sums ``(sum_s w_s f0(x_s) y_s, sum_s w_s f0(x_s)^2,
        sum_s w_s)`` over its samples of the call, ``f0`` the network function
        of its component: (n_nodes, 3), computed by each node on its own samples
        once the network function has reached it (nothing is sent).  None
        for a classifier, or without the call's samples (the MPI engine's
        root holds none: its ranks compute their nodes' sums once it has sent
        them the network function, see ``skfed.engines._mpi_online``).
        ``F``: the network function's values at the rows, when known."""
        if X is None or not self._is_regressor():
            return None
        n = len(self.nodes_)
        if sample_weight is None:
            sample_weight = np.ones(len(codes))
        if F is None:
            F = self._network_fit_values(X, codes)
        out = np.zeros((n, 3))
        out[:, 0] = np.bincount(codes, weights=sample_weight * F * y, minlength=n)
        out[:, 1] = np.bincount(codes, weights=sample_weight * F * F, minlength=n)
        out[:, 2] = np.bincount(codes, weights=sample_weight, minlength=n)
        return out

    def _network_fit_values(self, X, codes):
        """The network function of every row's node's component at ``X``
        (its dictionary's terms: a regressor's)."""
        F = np.zeros(len(codes))
        component = self.network_component_[codes]
        for c in np.unique(component):
            rows = np.flatnonzero(component == c)
            D = self.network_dictionary_[c]
            if len(D):
                F[rows] = self._join_eval(D, self.network_coef_[c], self.network_gamma_[c],
                                          X[rows])[:, 0]
        return F

    def _keep_fit_sums(self, X, y, codes, sample_weight):
        """At a fit's end, every node's scale sums (``_network_fit_stats``)
        and a regressor's offset sums (``_network_offset_stats``,
        :mod:`._join_offset`), each computed by the node on its own rows
        (nothing is sent); None without the rows (the MPI engine's root)."""
        self._network_fit_stats = self._network_offset_stats = None
        if X is None or not self._is_regressor():
            return
        F = self._network_fit_values(X, codes)
        self._network_fit_stats = self._network_scale_sums(X, y, codes, sample_weight, F)
        w = np.ones(len(codes)) if sample_weight is None else sample_weight
        self._network_offset_stats = offset_sums(F, y, codes, w, len(self.nodes_))

    def _network_scale(self, answered, sums, component):
        """The factor of least squares of the network function on the samples
        of a regressor's candidates that answered (those of its network
        function's component, with a positive second sum: a rogue's
        complement is not), ``sum fy / sum ff``, at least 0; 1 when there
        are none."""
        use = (sums[:, 1] > 0) & (self.network_component_[answered] == component)
        total = sums[use].sum(axis=0)
        if not total[1] > 0:
            return 1.0, None
        return max(0.0, float(total[0] / total[1])), float(total[2] / use.sum())

    def _message_passes(self, check, parent, D, W, gamma):
        """:func:`message_passes` of the message ``(D, W)`` at ``parent``."""
        rows, X, y, weights, baseline = check
        own = rows[parent]
        if not len(own):
            return True
        values = self._join_eval(D, W, gamma, X[own])
        return message_passes(self._join_criterion, values, y[own], weights[own],
                              baseline[parent], ranking=not self._is_regressor())

    def _network_values(self, X, component=None):
        """Values of the network function at ``X``: of one ``component``, or
        the mean over the components weighted by their numbers of nodes."""
        out = np.zeros((X.shape[0], self._n_outputs))
        # Components weighted by the nodes their function is the mean of.
        counted = ~getattr(self, "network_excluded_", np.zeros(len(self.network_component_),
                                                                dtype=bool))
        counts = np.bincount(self.network_component_[counted],
                             minlength=len(self.network_gamma_))
        parts = range(len(counts)) if component is None else [component]
        for c in parts:
            D = self.network_dictionary_[c]
            scale = 1.0 if component is not None else counts[c] / counts.sum()
            if len(D):
                K = self._join_kernel(self.network_gamma_[c])(X, D)
                out += scale * (K @ self.network_coef_[c])
            # (_linear) the mean of the nodes' linear terms
            out += scale * self._linear_term(self._network_linear_share(c), c, X)
        return out
