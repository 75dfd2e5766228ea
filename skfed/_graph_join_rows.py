"""The newcomers' rows of the graph, solved together (step 3 of a graph join).

Newcomers that join in one call all add weights to the same graph.  Solved
one by one, each newcomer's row (eq. 5 of Zantedeschi et al., 2020, every
other weight fixed) sees its candidates' degrees as the fit left them, as
if no other newcomer linked to them, and sees the other newcomers as nodes
of their fitted degree only.  Every newcomer then over-rates the same
weakly linked nodes: on rotated moons at ``k = 20`` a newcomer put 62 % of
its weight inside its own cluster, against 77 % in a refit, whose graph
steps see every weight.

:func:`joint_rows` minimizes the same objective over all the newcomers'
weights at once, the fitted nodes' weights held fixed: block coordinate
descent, newcomer by newcomer, each block (a newcomer's row) solved
exactly by ``graph_row`` with every other weight at its current value, so
a candidate's degree includes the weights the other newcomers gave it, and
the weight between two newcomers is one variable of both rows.  It starts
from the rows each newcomer solved alone and takes :data:`ROW_SWEEPS`
sweeps.  ``max_neighbors`` is applied in each block (as the fit's graph
steps do, Remark 2 of the paper); the connectivity threshold after the
last sweep (as the fit sparsifies after learning).

A sweep's messages: the newcomer asks each of its candidates for its
current degree (a request and an answer of one float64), and sends its
new weight (one float64) to each candidate whose weight is or was
positive.
"""

import numpy as np

from ._core._boosting_fast import graph_row

__all__ = ["ROW_SWEEPS", "joint_rows", "pair_terms"]

# Sweeps of block coordinate descent over the newcomers' rows, from the
# rows they solved alone.  Rotated moons (Perso-lin, 80 fitted nodes, 20
# newcomers, seeds 0-2, the newcomers' models solved to convergence on the
# rows; benchmarks/persolin_join_gap.py --rows): 1 / 2 / 3 / 5 sweeps
# scored 57.0 / 56.4 / 56.5 / 56.6 at k = 5, 58.4 / 57.9 / 57.9 / 57.8 at
# k = 10 and 61.9 / 62.3 / 61.9 / 61.5 at k = 20 (the rows alone: 56.0 /
# 56.9 / 58.3); the largest change of a weight in the third sweep was
# 2-5 % of the largest weight.
ROW_SWEEPS = 3


def pair_terms(node_models, node_losses, src_models, src_sq, src_losses, indptr, mu):
    """``(a, pair)`` of every (newcomer, candidate) entry of eq. 5.

    ``pair = (mu / 2) ||alpha_n - alpha_r||^2`` and ``a = l_n + l_r + pair``
    for the candidates of newcomer n, rows ``indptr[n]:indptr[n + 1]`` of
    ``src_models`` (flattened, float64; ``src_sq`` their squared norms).
    """
    owner = np.repeat(np.arange(len(node_losses)), np.diff(indptr))
    own = node_models[owner]
    z = src_sq - 2.0 * np.einsum("ij,ij->i", src_models, own) + np.einsum(
        "ij,ij->i", own, own)
    pair = 0.5 * mu * np.maximum(z, 0.0)
    return node_losses[owner] + src_losses + pair, pair


def _block(a, pair, d, d0, mu_graph, lam, delta, cap):
    """One newcomer's row given the others' weights: exact, then capped."""
    v = np.zeros(len(a))
    if not len(a):
        return v
    graph_row(a, d, d0, mu_graph, lam, delta, v)
    if cap is not None and np.count_nonzero(v) > cap:
        kept = np.flatnonzero(v > 0)
        kept = np.sort(kept[np.argsort(pair[kept], kind="stable")[:cap]])
        sub = np.zeros(len(kept))
        graph_row(np.ascontiguousarray(a[kept]), np.ascontiguousarray(d[kept]), d0,
                  mu_graph, lam, delta, sub)
        v[:] = 0.0
        v[kept] = sub
    return v


def joint_rows(a, pair, target, indptr, v0, d_fitted, *, mu_graph, lam, delta, cap,
               threshold, sweeps=None, members=None):
    """The newcomers' weights minimizing eq. 5 together (see the module).

    Parameters
    ----------
    a, pair : ndarray of shape (E,)
        Every entry's linear coefficient and its pair distance term
        (:func:`pair_terms`, plus peer scores if any); the entries of
        newcomer n are ``indptr[n]:indptr[n + 1]``.
    target : ndarray of shape (E,)
        The entry's candidate: a fitted node ``r < n_old`` or newcomer ``j``
        as ``n_old + j``.  A newcomer's candidates are distinct.
    indptr : ndarray of shape (n_new + 1,)
    v0 : ndarray of shape (E,)
        The rows each newcomer solved alone (the start; the weight between
        two newcomers starts at the mean of their two entries).
    d_fitted : ndarray of shape (n_old,)
        The fitted nodes' degrees in the fitted graph.
    mu_graph, lam, delta : float
    cap : int or None
        ``max_neighbors``.
    threshold : float or None
        The fitted graph's connectivity threshold: after the last sweep a
        row's weights below ``min(threshold, its largest)`` are dropped (a
        weight between two newcomers is kept if either row keeps it).
    sweeps : int, default=None
        None: :data:`ROW_SWEEPS`.
    members : ndarray of shape (n_new,), dtype=bool, default=None
        The newcomers that take part (None: all); another newcomer's row
        stays ``v0`` (its weights count in the degrees).

    Returns
    -------
    v : ndarray of shape (E,)
        Every entry's final weight (the weight between two newcomers in each
        of its entries).
    n_owners : ndarray of shape (E,)
        How many entries hold the entry's weight (2 for two newcomers that
        drew each other, else 1).
    changed : ndarray of shape (sweeps, E), dtype=bool
        The entries whose weight a sweep set or zeroed (positive before or
        after its block: the newcomer sends the new weight).
    """
    sweeps = ROW_SWEEPS if sweeps is None else int(sweeps)
    n_new = len(indptr) - 1
    n_old = len(d_fitted)
    E = len(a)
    owner = np.repeat(np.arange(n_new), np.diff(indptr))
    # One variable per fitted entry and per unordered pair of newcomers.
    is_new = target >= n_old
    key = np.where(is_new, np.minimum(owner + n_old, target) * (n_old + n_new)
                   + np.maximum(owner + n_old, target), -1 - np.arange(E))
    keys, var = np.unique(key, return_inverse=True)
    var = var.ravel()
    n_owners = np.bincount(var, minlength=len(keys))[var]
    w = np.bincount(var, weights=v0, minlength=len(keys)) / np.bincount(var,
                                                                        minlength=len(keys))
    # Each variable's two endpoints (global node indices).
    first = np.zeros(len(keys), dtype=np.intp)
    first[var] = np.arange(E)
    end_a, end_b = n_old + owner[first], target[first]
    N = n_old + n_new
    deg = np.concatenate([np.asarray(d_fitted, dtype=np.float64), np.zeros(n_new)])
    deg += np.bincount(end_a, weights=w, minlength=N) + np.bincount(end_b, weights=w,
                                                                     minlength=N)
    changed = np.zeros((sweeps, E), dtype=bool)
    for s in range(sweeps):
        for n in range(n_new):
            lo, hi = indptr[n], indptr[n + 1]
            if lo == hi or (members is not None and not members[n]):
                continue
            vv, t = var[lo:hi], target[lo:hi]
            cur = w[vv]
            d = np.ascontiguousarray(np.maximum(deg[t] - cur, 0.0))
            d0 = max(float(deg[n_old + n] - cur.sum()), 0.0)
            new = _block(np.ascontiguousarray(a[lo:hi]), pair[lo:hi], d, d0, mu_graph, lam,
                         delta, cap)
            step = new - cur
            changed[s, lo:hi] = (new > 0) | (cur > 0)
            w[vv] = new
            deg[t] += step
            deg[n_old + n] += step.sum()
    v = w[var]
    if threshold is not None:
        keep = np.ones(E, dtype=bool)
        for n in range(n_new):
            lo, hi = indptr[n], indptr[n + 1]
            if lo < hi and v[lo:hi].max() > 0:
                keep[lo:hi] = v[lo:hi] >= min(threshold, v[lo:hi].max())
        kept = np.bincount(var, weights=keep, minlength=len(keys)) > 0
        v = np.where(kept[var], v, 0.0)
    return v, n_owners, changed


def sweep_messages(counter, n_old, indptr, target, changed, members=None):
    """Count the sweeps' messages (see the module) on ``counter``, a round
    per sweep: per entry of a member (default: every newcomer) a request and
    its degree (one float64) back, and the new weight (one float64) of every
    entry ``changed`` marks."""
    from .network import payload_bytes

    one = payload_bytes(n_float64=1)
    owner = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    mine = np.ones(len(owner), dtype=bool) if members is None else np.asarray(members)[owner]
    asker = np.ascontiguousarray(n_old + owner[mine], dtype=np.intp)
    asked = np.ascontiguousarray(np.asarray(target)[mine], dtype=np.intp)
    for s in range(changed.shape[0]):
        counter.send_pairs(asker, asked, np.zeros(len(asked), dtype=np.int64))
        counter.send_pairs(asked, asker, np.full(len(asked), one, dtype=np.int64))
        c = changed[s][mine]
        counter.send_pairs(asker[c], asked[c], np.full(int(c.sum()), one, dtype=np.int64))
        counter.next_round()
