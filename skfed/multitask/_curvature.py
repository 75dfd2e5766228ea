"""Upper bounds on the curvature of every node's loss term, for the refit's first step.

Node ``t``'s term of the shared-component objective is the Moreau envelope
``M_t(w_0) = min_v L_t(w_0 + v) + (mu / 2) ||v||^2`` of its loss term
``L_t(w) = sum_i (s_ti / n_t) loss(w . z_ti, y_ti)``; its Hessian is
``(H_t^-1 + I / mu)^-1``, at most ``min(mu, ||H_t||)``, and ``||H_t||`` is
at most ``c lambda_max(sum_i (s_ti / n_t) z_ti z_ti^T)``, ``c`` the largest
second derivative of the loss in the margin (:data:`LOSS_CURVATURE`; under
the multinomial loss the largest eigenvalue of ``diag(p) - p p^T``, at most
1/2).  A node computes its bound from its own rows, and it travels once (one
float32 per node) with its first report of the personal path's refit.
"""

import numpy as np

from .._core._multitask_fast import Multinomial
from ._validation import round_up_float32

# The largest second derivative of each smooth loss in the margin (labels
# +-1): log(1 + exp(-y z)) 1/4, max(0, 1 - y z)^2 2, (z - y)^2 / 2 1; the
# hinge has none (no bound: the fit keeps its other first step).
LOSS_CURVATURE = {"logistic": 0.25, "squared_hinge": 2.0, "squared": 1.0}
_MULTINOMIAL_CURVATURE = 0.5


def loss_curvature(loss_name, loss):
    """The largest second derivative of the loss in the margin, or None."""
    if isinstance(loss, Multinomial):
        return _MULTINOMIAL_CURVATURE
    return LOSS_CURVATURE.get(loss_name)


def node_curvatures(Z, sw, layout, totals, loss_name, loss):
    """Every node's bound on the curvature of its loss term, or None (the
    loss has no bounded second derivative).

    Parameters
    ----------
    Z : ndarray of shape (n_samples, d)
        The features every node holds (its rows).
    sw : ndarray of shape (n_samples,)
        The sample weights (weight 0: the sample does not count).
    layout : object
        The nodes' row ranges (``node_slice(t)``, ``n_nodes``).
    totals : ndarray of shape (n_nodes,)
        Every node's weight total ``n_t``.
    loss_name : str
        The estimator's ``loss``.
    loss : MultiTaskLoss
        The loss object of the fit.

    Returns
    -------
    curvatures : ndarray of shape (n_nodes,) or None
        ``c lambda_max(sum_i (s_ti / n_t) z_ti z_ti^T)`` for every node,
        rounded up to float32 (as it travels).
    """
    c = loss_curvature(loss_name, loss)
    if c is None:
        return None
    out = np.zeros(layout.n_nodes)
    for t in range(layout.n_nodes):
        sl = layout.node_slice(t)
        if totals[t] <= 0:
            continue
        A = np.asarray(Z[sl], dtype=np.float64) * np.sqrt(sw[sl].astype(np.float64))[:, None]
        # the largest eigenvalue from the smaller of the two Gram matrices
        G = A @ A.T if A.shape[0] <= A.shape[1] else A.T @ A
        out[t] = c * max(float(np.linalg.eigvalsh(G)[-1]), 0.0) / totals[t]
    # float32, rounded up (with a little slack for the eigensolver's rounding)
    return round_up_float32(out * (1.0 + 1e-9))
