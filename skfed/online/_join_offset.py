"""A regressor newcomer's own offset from a solved network function (issue 32).

A regressor's newcomer of :meth:`add_nodes` that starts from a solved
network function (``_network_solved``: the least-squares function of every
node's rows, taken at scale 1, :mod:`._join_regress`) starts from what the
federation shares; what its node adds that a linear (or any shared)
function cannot hold is most often a level of its own (a school's level on
School).  Its ``k`` samples estimate that level, ``m``, the weighted mean of
its residuals ``y - f0``, but noisily; the newcomer shrinks it as a random
effect does,

    offset = tau2 / (tau2 + s2 / W) * m,

``W`` the newcomer's weight (``k`` at unit weights), ``s2`` the residuals'
variance within a node and ``tau2`` the variance of the nodes' levels,
both from its candidates' answers: every candidate of that component adds to
its answer in step 1 two sums over its own rows of the fit, ``sum w r`` and
``sum w r^2`` of its residuals ``r = y - f0`` (computed when the network
function reached it, like the scale sums; with the ``sum w = W_j`` it
already sends they give its residuals' weighted mean ``m_j`` and sum of
squares about it ``S_j``).  Then ``s2 = sum_j S_j / sum_j (W_j - 1)`` and
``tau2 = max(0, mean_j (m_j^2 - s2 / W_j))`` (moments: ``E m_j^2 = tau2 +
s2 / W_j`` about a network function that is right on average).  Ten candidates
estimate ``tau2`` loosely, and where the nodes hold no level of their own
its estimate is above 0 about half the time: the newcomer takes an offset
only where its candidates show levels, ``T = mean_j W_j m_j^2 / s2`` (about
1 without levels, of variance ``2 / n`` over ``n`` candidates of normal
residuals) above ``1 + LEVEL_Z sqrt(2 / n)``.  The newcomer's
passes then fit ``y - offset`` (its encoded targets) and its predictions add
the offset (``join_offset_``, in the units of ``y``).  Where no level is
shared (``tau2 = 0``, alike nodes) the offset is 0.

Only ``add_nodes`` (a ``partial_fit`` that meets new ids streams them with
everyone, which would refit the level), only a start from a solved network
function (a shrunk mean's residuals hold its shrinkage; a start from the
neighbours holds their levels), and only with the sums (the MPI engine's
root gathers them with the scale sums, :mod:`skfed.engines._mpi_online`).
A later ``partial_fit`` streams a newcomer's rows less its offset
(``_share._stream_targets``); a ``fit`` ends the offsets.  Measured in
``benchmarks/onlinesch38_school_offset.py``.
"""

import numpy as np

from ..network import payload_bytes

# What a candidate of a solved component adds to its answer for the offset.
OFFSET_SUMS_BYTES = payload_bytes(n_float64=2)
# Standard errors of T above its no-level mean 1 at which the levels count.
LEVEL_Z = 2.0


def offset_sums(F, y, codes, sample_weight, n_nodes):
    """Every node's ``(sum w r, sum w r^2)`` over its rows, ``r = y - F``
    (``F`` the network function's values at them): (n_nodes, 2)."""
    r = y - F
    out = np.zeros((n_nodes, 2))
    out[:, 0] = np.bincount(codes, weights=sample_weight * r, minlength=n_nodes)
    out[:, 1] = np.bincount(codes, weights=sample_weight * r * r, minlength=n_nodes)
    return out


def level_moments(weight, offset):
    """``(s2, tau2)`` from the candidates' weights ``sum w`` and offset sums
    (rows ``(sum w r, sum w r^2)``) of those that sent them with a weight
    above 1; None when there are none; ``tau2 = 0`` unless their levels
    pass the ``LEVEL_Z`` check (and when ``s2 = 0``: no spread to test by)."""
    W, offset = np.asarray(weight, float), np.asarray(offset, float)
    use = np.isfinite(offset).all(axis=1) & (W > 1.0)
    if not use.any():
        return None
    W, R, RR = W[use], offset[use, 0], offset[use, 1]
    m = R / W
    squares = np.maximum(RR - W * m * m, 0.0)
    s2 = float(squares.sum() / (W - 1.0).sum())
    if not s2 > 0 or np.mean(W * m * m) / s2 <= 1.0 + LEVEL_Z * np.sqrt(2.0 / len(W)):
        return s2, 0.0
    return s2, max(0.0, float(np.mean(m * m - s2 / W)))


def shrunk_offset(moments, residuals, weights):
    """The newcomer's offset from its residuals ``y - f0`` at its samples and
    their weights (0 without moments, weight or a level's variance)."""
    total = float(np.sum(weights))
    if moments is None or not total > 0:
        return 0.0
    s2, tau2 = moments
    if not tau2 > 0:
        return 0.0
    m = float(np.dot(weights, residuals)) / total
    return tau2 / (tau2 + s2 / total) * m


def newcomer_offsets(est, scale_sums, offset_rows, components, y_new, w_new):
    """Every newcomer's offset in the encoded targets' units (0 where the rule
    does not act), from its candidates' answers (per newcomer, ``scale_sums``
    ``(answered, rows)`` of :func:`._join_regress.sent_scale_sums` and
    ``offset_rows`` of :func:`._join_regress.sent_offset_sums`), the
    component of its network function, and its start's values at its
    samples (``est._join_values``, the network function at scale 1 where it
    starts from a solved one)."""
    solved = getattr(est, "_network_solved", None)
    out = np.zeros(len(components))
    for k, c in enumerate(components):
        if (offset_rows[k] is None or est.join_start_[k] != "network" or solved is None
                or not solved[c]):
            continue
        answered, rows = scale_sums[k]
        same = est.network_component_[answered] == c
        moments = level_moments(rows[same, 2], offset_rows[k][same])
        own, _, start = est._join_values[k]
        out[k] = shrunk_offset(moments, y_new[own] - start[:, 0], w_new[own])
    return out


def take_join_offsets(est, codes, y_encoded, n_new):
    """After ``add_nodes``' step 2: keep the newcomers' offsets
    (``_join_offsets`` over every node, encoded units, None when all are 0;
    ``join_offset_`` of the newcomers in the units of ``y``) and return the
    encoded targets their passes fit (their rows less their offset)."""
    new = est.__dict__.pop("_join_offsets_new", None)
    if not est._is_regressor():
        return y_encoded
    new = np.zeros(n_new) if new is None else new
    est.join_offset_ = est.target_scale_ * new
    n_old = len(est.nodes_) - n_new
    old = getattr(est, "_join_offsets", None)
    if old is None and not np.any(new != 0):
        return y_encoded
    old = np.zeros(n_old) if old is None else np.concatenate([old, np.zeros(n_old - len(old))])
    est._join_offsets = np.concatenate([old, new])
    rows = np.flatnonzero(codes >= n_old)
    y_encoded = y_encoded.copy()
    y_encoded[rows] -= new[codes[rows] - n_old]
    return y_encoded


def offset_of(est, node):
    """The offset node ``node``'s predictions add (encoded units)."""
    offsets = getattr(est, "_join_offsets", None)
    if offsets is None or node >= len(offsets):
        return 0.0
    return float(offsets[node])
