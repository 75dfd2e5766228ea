"""L-BFGS curvature pairs of the shared-model fit, carried to a refit at another personal weight.

The server's objective ``F(w0) = lambda m ||w0||^2 / (2 b_w) + sum_t
M_t(w0)`` has two curvatures: the penalty's, ``lambda m / b_w``, known to
the server, and the nodes' Moreau envelopes ``M_t(w0) = min_v L_t(w0 + v)
+ (mu / 2) ||v||^2``, whose Hessian ``(H_t^-1 + I / mu)^-1`` depends on the
personal weight ``mu``.  A curvature pair ``(s, y)`` of a fit at ``mu_old``
therefore misleads a refit at ``mu_new``: in an eigendirection of ``H_t``
of curvature ``h`` the envelope's curvature changes by the factor::

    rho(h) = (mu_new / mu_old) (h + mu_old) / (h + mu_new)

(between 1 and ``mu_new / mu_old``; near ``1 + h / mu_old`` when ``mu_new``
is far larger than ``h``).  The nodes' dual vectors change by the same
factor: at a fixed ``w0`` each ``u_t = mu (H_t + mu I)^-1 r_t`` (``r_t`` the
node's negative loss gradient, a quadratic loss), i.e. ``u_t`` is the
envelope's Hessian times ``H_t^-1 r_t``.  So the refit's first evaluation,
at the learned fit's best ``w0`` (unmoved), gives the server the factor at
no cost in bytes: the ratio of the ``u_t`` it holds at ``mu_new`` to those
it held at ``mu_old``, projected (:func:`curvature_ratio`).  The pairs'
envelope parts are scaled by it and their penalty parts recomputed at the
refit's ``b_w`` (:func:`transfer_pairs`).
"""

import numpy as np

# Curvature pairs kept by the server's L-BFGS.
MEMORY = 10


def add_pair(pairs, s, y, e=None):
    """Add the curvature pair ``(s, y)`` (and ``e``, the nodes' envelope part
    of ``y``) to ``pairs`` (lists ``S``, ``Y``, ``E``) if its curvature is
    positive; the oldest pair leaves past :data:`MEMORY`.  Returns whether
    the pair was added."""
    if not s @ y > 1e-12 * (y @ y):
        return False
    for store, value in zip(pairs, (s, y, e)):
        store.append(value)
        if len(store) > MEMORY:
            store.pop(0)
    return True


def curvature_ratio(u_old, u_new, mu_old, mu_new):
    """The factor by which the nodes' envelope curvature changed from
    ``mu_old`` to ``mu_new``, estimated from their dual vectors at one
    ``w0``: ``sum_t <u_old_t, u_new_t> / sum_t ||u_old_t||^2``, clipped to
    the range every direction's factor lies in (between 1 and ``mu_new /
    mu_old``).

    Parameters
    ----------
    u_old, u_new : ndarray
        The nodes' dual vectors at the same ``w0`` (any shape, the same).
    mu_old, mu_new : float
        The personal weights they were solved at.

    Returns
    -------
    ratio : float
        Exact when every node's loss is quadratic with one curvature ``h``
        (then ``rho(h)`` of the module docstring).
    """
    low, high = sorted((1.0, float(mu_new) / float(mu_old)))
    energy = float(np.vdot(u_old, u_old))
    if not energy > 0.0:
        return high if mu_new > mu_old else low  # no evidence: the envelope's bound
    return float(np.clip(np.vdot(u_old, u_new) / energy, low, high))


def transfer_pairs(S, E, penalty, ratio):
    """Curvature pairs for a refit: ``y = penalty s + ratio e``, the
    penalty's curvature ``penalty`` (``lambda m / b_w`` at the refit, 0 on the
    share's coordinate when it is last and fixed) plus the envelope parts
    ``E`` scaled by ``ratio`` (:func:`curvature_ratio`); pairs without
    positive curvature are dropped.

    Parameters
    ----------
    S, E : list of ndarray
        Steps and the envelope parts of their gradient changes.
    penalty : ndarray
        The penalty's curvature per coordinate (same shape as every ``s``).
    ratio : float

    Returns
    -------
    pairs : tuple of list
        ``S``, ``Y`` and ``E`` (here None: a refit's pairs go no further).
    """
    pairs = ([], [], [])
    for s, e in zip(S, E):
        add_pair(pairs, s, penalty * s + ratio * e)
    return pairs
