"""One logistic model solved through a hub: the newcomers' shared model (issue 32).

Perso-lin's opt-in ``join_neighbours="shared"``
(:mod:`skfed.boosting._perso_lin_shared`, whose docstring describes and
measures the solve) and MOCHA's ``join_shared``
(:mod:`skfed.multitask._join_shared`) both learn, for newcomers, one
logistic model ``S`` per one-vs-rest problem ``p`` on the fitted nodes'
kept rows, minimizing scikit-learn's ``C = 1`` objective scaled by the kept
mass ``M``::

    (1 / M) sum_i s_i log(1 + exp(-y_pi S_p . z_i)) + ||S_p,w||^2 / (2 M)

(``S_p,w`` without the intercept) by L-BFGS at a hub, every value sent as
float32: the nodes' kept masses and column sums of squares (the Jacobi
scaling), their rank-:data:`SKETCH_RANK` sketches of the scaled Hessian at
0 (a Nystrom preconditioner), then one exchange per evaluation (the hub
sends ``S``, each node answers its loss and gradient sums), at most
``rounds`` evaluations; ``S`` is the evaluated point of lowest objective.

The families differ only in the hub and how messages travel, which a
*link* gives (:class:`HubLink`: Perso-lin's fitted node 0 over the graph
simulation, rogue answers corrupted; MOCHA's server, every fitted node
answering).  The code is Perso-lin's (persolin25, persolin32), moved here
unchanged: its models are bit for bit what they were.
"""

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ._magnitude import as_message
from .network import payload_bytes

__all__ = ["HubLink", "node_sums", "sent", "sketch_preconditioner", "solve_logistic"]

SKETCH_RANK = 10  # columns of every node's sketch (the solve's preconditioner)
SHARED_GTOL = 1e-5


class HubLink:
    """How the shared solve's messages travel (the base: nothing counted).

    Parameters
    ----------
    n_nodes : int
        The fitted nodes.
    rogue : ndarray of bool, default=None
        Whose answers are corrupted (``corrupt`` then required).
    """

    def __init__(self, n_nodes, rogue=None):
        self.n_nodes = int(n_nodes)
        self.rogue = (np.zeros(self.n_nodes, dtype=bool) if rogue is None
                      else np.asarray(rogue, dtype=bool))

    def up(self, n_bytes):
        """Every answering node sends the hub ``n_bytes``."""

    def down(self, n_bytes):
        """The hub sends every answering node ``n_bytes``."""

    def corrupt(self, values, nodes):
        """``values`` (one row a node of ``nodes``) as rogue nodes send them."""
        return values

    def sent(self, values, what="the shared model's messages"):
        """``values`` as a message delivers them (:func:`sent`: float32)."""
        return sent(values, what)


def node_sums(Z, Y, w, offsets, S, n_pen):
    """Every node's loss sums ``(n, P)`` and gradient sums ``(n, P, n_base)`` of
    the weighted logistic loss at ``S`` (``w`` 0 on samples not used)."""
    n = len(offsets) - 1
    margins = Y * (Z @ S.T).T                                   # (P, m)
    loss = w * np.logaddexp(0.0, -margins)
    coef = -w * Y * expit(-margins)                            # (P, m)
    losses = np.zeros((n, Y.shape[0]))
    grads = np.zeros((n, Y.shape[0], Z.shape[1]))
    for k in range(n):
        a, b = int(offsets[k]), int(offsets[k + 1])
        losses[k] = loss[:, a:b].sum(axis=1)
        grads[k] = coef[:, a:b] @ Z[a:b]
    return losses, grads


def sent(values, what="the shared model's messages"):
    """``values`` as a float32 message delivers them (half float64's bytes;
    the same newcomers on HAR seeds 0-2, ``benchmarks/persolin_shared_cost.py``);
    a finite value float32 cannot hold is refused
    (:func:`skfed._magnitude.as_message`)."""
    return as_message(values, np.float32, what)


class _OutOfRounds(Exception):
    pass


def solve_logistic(Z, Y, sw, offsets, keep, link, n_pen, rounds, preconditioner=None):
    """``S`` of shape ``(P, n_base)`` and the number of evaluations; every
    message through ``link`` (see the module).  ``preconditioner(Z, w,
    offsets, scale, mass, link)`` returns the map of L-BFGS coordinates
    (default :func:`sketch_preconditioner`)."""
    n = len(offsets) - 1
    Z = np.asarray(Z, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    P, nb = Y.shape[0], Z.shape[1]
    w = np.where(keep, np.asarray(sw, dtype=np.float64), 0.0)
    nodes = np.arange(n, dtype=np.intp)
    rogue = link.rogue
    starts, filled = np.asarray(offsets[:-1], np.intp), np.diff(offsets) > 0
    # Round 1: kept masses and column sums of squares to the hub (the scaling).
    stats = np.zeros((n, nb + 1))
    if filled.any():
        stats[filled, :nb] = np.add.reduceat(w[:, None] * Z * Z, starts[filled], axis=0)
        stats[filled, nb] = np.add.reduceat(w, starts[filled])
    stats = link.sent(stats, "The shared model's column sums of w z^2 (join_neighbours='shared')")
    if rogue.any():
        stats = link.corrupt(stats, nodes)
    link.up(payload_bytes(n_float32=nb + 1))
    # (no mass is negative: a rogue's negated one counts 0, not minus an honest one)
    mass = float(np.maximum(stats[:, nb], 0.0).sum())
    lam = 1.0 / mass
    D = 0.25 * np.abs(stats[:, :nb].sum(axis=0)) / mass
    D[:n_pen] += lam
    scale = np.zeros(nb)
    np.divide(1.0, np.sqrt(np.where(D > 0, D, 1.0)), out=scale, where=D > 0)
    scale = link.sent(scale)
    # Round 2: the hub sends the scale; every node its sketch (the Nystrom
    # preconditioner of the scaled Hessian at 0).
    apply = (sketch_preconditioner if preconditioner is None else preconditioner)(
        Z, w, offsets, scale, mass, link)
    down = payload_bytes(n_float32=P * nb)
    up = payload_bytes(n_float32=P * (nb + 1))
    count, best = [0], [np.inf, np.zeros((P, nb))]

    def point(v):
        return apply(v.reshape(P, nb).T).T * scale

    def objective(v):
        if count[0] >= rounds:  # (L-BFGS-B may ask past maxfun)
            raise _OutOfRounds
        S = point(v)
        count[0] += 1
        link.down(down)
        losses, grads = node_sums(Z, Y, w, offsets, link.sent(S), n_pen)
        losses, grads = link.sent(losses), link.sent(grads)
        if rogue.any():
            answers = link.corrupt(
                np.concatenate([losses, grads.reshape(n, -1)], axis=1), nodes)
            losses, grads = answers[:, :P], answers[:, P:].reshape(n, P, nb)
        link.up(up)
        pen = S[:, :n_pen]
        value = losses.sum() / mass + 0.5 * lam * float(np.sum(pen * pen))
        grad = grads.sum(axis=0) / mass
        grad[:, :n_pen] += lam * pen
        if value < best[0]:
            best[0], best[1] = value, S
        return value, apply((grad * scale).T).T.ravel()

    try:
        minimize(objective, np.zeros(P * nb), jac=True, method="L-BFGS-B",
                 options={"maxfun": int(rounds), "maxiter": int(rounds), "gtol": SHARED_GTOL})
    except _OutOfRounds:
        pass
    return best[1], count[0]


def sketch_preconditioner(Z, w, offsets, scale, mass, link, rank=None):
    """The solve's second exchange (see the module): the hub sends ``scale``;
    every node ``k`` answers ``diag(scale) Z_k' W_k Z_k diag(scale) Omega``
    (``n_base x r`` float32, ``r = min(rank, n_base)``, ``rank``
    :data:`SKETCH_RANK` by default, ``Omega`` public,
    :func:`skfed.online._linear_solve.sketch_directions`); the hub's Nystrom
    model ``U diag(l) U'`` of their sum times ``1 / (4 M)`` (the scaled
    logistic Hessian at 0 without the penalty).  Returns ``apply``, the map
    of L-BFGS coordinates ``b`` (columns) to scaled ones: ``b`` divided by
    ``sqrt(max(l, 1))`` along ``U`` (along the directions where the scaled
    Hessian is over 1; the identity if the model fails)."""
    from .online._linear_solve import nystrom_model, sketch_directions

    n, nb = len(offsets) - 1, Z.shape[1]
    r = min(SKETCH_RANK if rank is None else rank, nb)
    link.down(payload_bytes(n_float32=nb))
    omega = sketch_directions(nb, r)
    Zs = Z * scale
    right = w[:, None] * (Zs @ omega)
    sketches = np.zeros((n, nb * r))
    for k in range(n):
        a, b = int(offsets[k]), int(offsets[k + 1])
        sketches[k] = (Zs[a:b].T @ right[a:b]).ravel()
    sketches = link.sent(sketches, "The shared model's Z'WZ sketches (join_neighbours='shared')")
    if link.rogue.any():
        sketches = link.corrupt(sketches, np.arange(n, dtype=np.intp))
    link.up(payload_bytes(n_float32=nb * r))
    total = 0.25 * sketches.sum(axis=0).reshape(nb, r) / mass
    model = nystrom_model(total, omega) if np.all(np.isfinite(total)) else None
    if model is None:
        return lambda B: B
    U, level = model
    inside = 1.0 / np.sqrt(np.maximum(level, 1.0))

    def apply(B):
        UB = U.T @ B
        return B - U @ UB + U @ (inside[:, None] * UB)

    return apply
