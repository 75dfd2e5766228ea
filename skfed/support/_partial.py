"""The ``alpha="auto"`` rule of a client with fewer than ``d + 4`` samples.

Such a client cannot regress its target on all ``d`` features, and the
marginal correlation test it used before cannot tell a feature outside the
support from a support feature it is correlated with: on a correlated
design the neighbours of the support are selected more often than the null
rate, and the server's test turns them into false positives as clients are
added.  The rule here tests each feature *given its closest features*::

    C_j = the k features most correlated with x_j in the client's own rows
          (|corr(x_j, x_l)|, l != j; chosen from X alone, never from y)
    regress y on [x_j, x_{C_j}] (weighted, centred with fit_intercept)
    select j when |t_j| > t_{df}(1 - q0 / 2),  df = n_i - fit_intercept - 1 - k

The controls are chosen without looking at ``y``, so when the target is
independent of the features (the global null) every feature is selected at
exactly ``q0 = 2 Phi(-auto_z)``, as with the other auto tests.  A feature
outside the support is selected at ``q0`` when its controls contain the
support features it is correlated with (its Markov blanket: the two
neighbours on a Toeplitz / AR(1) design, its block on a block design);
when they miss one, its rate moves towards the marginal test's, which the
server's ``rogue_tolerance`` margin absorbs when the miss is rare.
``k = 0`` is the marginal test itself.

Cost per client: its ``d x d`` Gram matrix (``n_i d^2``) and ``d`` solves of
size ``k + 1``; clients of the same size are processed in batches, the Gram
matrices of a batch held at once (a few megabytes).
"""

import numpy as np
from scipy import sparse

# At most this many controls per feature (a Toeplitz feature's Markov
# blanket is 2 features, a block of 5 features' 4), and one control per 4
# samples a client has, keeping at least PARTIAL_MIN_DF residual degrees of
# freedom: below that the t-test of a small client loses the power the
# controls buy (measured on Toeplitz and block designs, d = 20-200).
PARTIAL_MAX_CONTROLS = 4
PARTIAL_MIN_DF = 3
# Doubles held per batch of clients (Gram matrices and rows): 32 MB.
_BATCH_VALUES = 1 << 22


def n_controls(n_positive, d, center):
    """The number of controls ``k`` of a client with ``n_positive`` samples.

    ``min(PARTIAL_MAX_CONTROLS, d - 1, (n - center) // 4, n - center - 1 -
    PARTIAL_MIN_DF)``, at least 0 (0: the marginal correlation test).
    """
    n = np.asarray(n_positive, dtype=np.int64) - int(center)
    k = np.minimum(np.minimum(PARTIAL_MAX_CONTROLS, d - 1), n // 4)
    k = np.minimum(k, n - 1 - PARTIAL_MIN_DF)
    return np.maximum(k, 0)


def _centred_rows(X, y, w, rows, center):
    """``(B, n, d)`` rows of a batch of clients, centred and scaled by sqrt(w)."""
    flat = rows.ravel()
    if sparse.issparse(X):
        Xb = X[flat].toarray()
    else:
        Xb = np.asarray(X[flat])
    B, n = rows.shape
    Xb = Xb.astype(np.float64).reshape(B, n, -1)
    yb = np.asarray(y[flat], dtype=np.float64).reshape(B, n)
    wb = np.asarray(w[flat], dtype=np.float64).reshape(B, n)
    if center:
        total = wb.sum(axis=1)
        Xb -= np.einsum("bn,bnd->bd", wb, Xb)[:, None, :] / total[:, None, None]
        yb -= (np.einsum("bn,bn->b", wb, yb) / total)[:, None]
    root = np.sqrt(wb)
    return Xb * root[:, :, None], yb * root


def partial_bits(X, y, w, rows, k, center):
    """The regressions of a batch of clients of equal size and equal ``k >= 1``.

    ``rows`` (B, n) holds every client's row indices into ``X``, ``y`` and
    ``w`` (sample weights, used as weighted least squares).  Returns, per
    client and feature ``j``, the coefficient of ``x_j`` given its controls
    (columns standardized), the ``(0, 0)`` entry of the inverse Gram matrix,
    the residual sum of squares and whether the system was regular, each of
    shape ``(B, d)``.
    """
    Xb, yb = _centred_rows(X, y, w, rows, center)
    B, n, d = Xb.shape
    G = np.matmul(Xb.transpose(0, 2, 1), Xb)             # (B, d, d)
    c = np.einsum("bnd,bn->bd", Xb, yb)                    # (B, d)
    yy = np.einsum("bn,bn->b", yb, yb)                     # (B,)
    diag = np.einsum("bjj->bj", G).copy()
    with np.errstate(divide="ignore"):
        inv_sd = np.where(diag > 0, 1.0 / np.sqrt(diag), 0.0)
    # |corr(x_j, x_l)| up to the factor 1 / sd_j, constant along a row.
    score = np.abs(G)
    score *= inv_sd[:, None, :]
    idx = np.arange(d)
    score[:, idx, idx] = -1.0
    # k passes of argmax (k <= 4) beat a partial sort of every row.
    controls = np.empty((B, d, k), dtype=np.intp)
    for t in range(k):
        best = score.argmax(axis=2)
        controls[:, :, t] = best
        np.put_along_axis(score, best[:, :, None], -1.0, axis=2)
    del score
    A = np.concatenate([np.broadcast_to(idx[None, :, None], (B, d, 1)), controls], axis=2)
    bi = np.arange(B)[:, None, None, None]
    GA = G[bi, A[:, :, :, None], A[:, :, None, :]]         # (B, d, k+1, k+1)
    cA = c[np.arange(B)[:, None, None], A]                 # (B, d, k+1)
    del G
    # A singular system (a constant feature, duplicated columns) selects
    # nothing: its t statistic is undefined.
    scale = np.sqrt(np.maximum(np.einsum("bdii->bdi", GA), 0.0))
    ok = np.all(scale > 0, axis=2)
    scale = np.where(scale > 0, scale, 1.0)
    GA = GA / scale[..., :, None] / scale[..., None, :]
    GA[~ok] = np.eye(k + 1)
    ok &= np.linalg.det(GA) > 1e-10
    GA[~ok] = np.eye(k + 1)
    inv = np.linalg.inv(GA)
    cA = cA / scale
    beta = np.einsum("bdij,bdj->bdi", inv, cA)
    rss = yy[:, None] - np.einsum("bdi,bdi->bd", cA, beta)
    return beta[..., 0], inv[..., 0, 0], rss, ok


def partial_select(X, y, w, rows, k, tcrit, df, center):
    """Bits ``(B, d)`` of a batch: ``|t_j| > tcrit`` with ``df`` residual dof."""
    beta0, inv00, rss, ok = partial_bits(X, y, w, rows, k, center)
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma2 = np.maximum(rss, 0.0) / df[:, None]
        t = beta0 / np.sqrt(sigma2 * inv00)
    return ok & (np.abs(t) > tcrit[:, None])


def partial_pass(X, y, w, offsets, nodes, k, df, tcrit, center):
    """The partial-test selections of ``nodes`` (bits, shape (len(nodes), d)).

    ``offsets`` are the clients' row offsets in ``X``; ``k``, ``df`` and
    ``tcrit`` are per node (indexed like ``offsets[:-1]``).  Clients of the
    same size and ``k`` run in batches of about ``_BATCH_VALUES`` doubles.
    """
    d = X.shape[1]
    nodes = np.asarray(nodes, dtype=np.intp)
    out = np.zeros((len(nodes), d), dtype=bool)
    sizes = offsets[nodes + 1] - offsets[nodes]
    keys = np.stack([sizes, k[nodes]], axis=1)
    for n, kk in np.unique(keys, axis=0):
        members = np.flatnonzero((sizes == n) & (k[nodes] == kk))
        per_client = d * d * 3 + n * d
        step = max(1, _BATCH_VALUES // per_client)
        for lo in range(0, len(members), step):
            sel = members[lo : lo + step]
            node = nodes[sel]
            rows = offsets[node][:, None] + np.arange(n)[None, :]
            out[sel] = partial_select(X, y, w, rows, int(kk), tcrit[node], df[node], center)
    return out
