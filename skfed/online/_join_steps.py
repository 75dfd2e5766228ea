"""Small pieces of the online learner's join (skfed/online/_join.py):
message sizes, a newcomer's combination weights and the join's rounds."""

import numpy as np

from .._pending import DropWait

__all__ = ["_combination", "_join_answers", "_join_rounds", "_rows_bytes"]


def _rows_bytes(n_rows, n_features, n_out, value_bytes):
    """Payload bytes of ``n_rows`` points with their values: a dictionary
    (points and weights), or query rows out plus their answers back."""
    return n_rows * (n_features + n_out) * value_bytes


def _combination(values, targets, weights):
    """Weights of the neighbours' functions in a newcomer's start.

    ``values`` (m, n, n_out): the m functions at the newcomer's n samples;
    ``targets`` (n, n_out).  Least squares on the (weighted) samples,
    shrunk towards the mean of the functions::

        a = argmin sum_s w_s ||sum_j a_j v_js - t_s||^2 + rho ||a - 1/m||^2

    with ``rho`` the mean over the functions of ``sum_s w_s ||v_js||^2``, so
    that a few samples cannot move the start far from the mean.
    """
    m = values.shape[0]
    if m == 0:
        return np.zeros(0)
    root = np.sqrt(weights / max(weights.sum(), 1e-300) * len(weights))[:, None]
    A = (values * root[None]).reshape(m, -1).T
    t = (targets * root).ravel()
    u = np.full(m, 1.0 / m)
    G = A.T @ A
    rho = np.trace(G) / m
    if not rho > 0:
        return u
    return u + np.linalg.solve(G + rho * np.eye(m), A.T @ (t - A @ u))


def _join_rounds(sim, n_old, n_new, visit):
    """Rounds of a join until ``visit(k, active)`` is True for every new node.

    In every round the faults are drawn for all nodes; a new node ``k``
    (index ``n_old + k``) that is dropped waits for the next round, and so
    does one whose ``visit`` (what it sends and receives this round, given
    who is ``active``) returns False.
    """
    waiting = list(range(n_new))
    while waiting:
        active = sim.draw_rounds(1)[0][0]
        waiting = [k for k in waiting if not (active[n_old + k] and visit(k, active))]
        sim.counter.next_round()


def _join_answers(sim, n_old, neighbours, answer):
    """Rounds of a join until every new node ``k`` (index ``n_old + k``)
    received the answer of each of its ``neighbours[k]``.

    One step of :class:`skfed._pending.DropWait` whose messages wait for
    both ends: neighbour ``j`` answers in the first round both it and the
    new node are up (the faults drawn for all nodes in every round), where
    ``answer(k, j)`` counts and keeps it, new nodes in order, each one's
    neighbours in its order.  A new node without neighbours waits for its
    first round up, as in :func:`_join_rounds`.
    """
    sizes = [max(len(nb), 1) for nb in neighbours]
    owner = np.repeat(np.arange(len(neighbours), dtype=np.intp), sizes)
    asked = np.array([j for k, nb in enumerate(neighbours) for j in
                      (nb if len(nb) else [n_old + k])], dtype=np.intp)
    wait = DropWait([np.stack([n_old + owner, asked], axis=1)])
    while not wait.complete:
        active = sim.draw_rounds(1)[0][0]
        for _, sent in wait.take(active):
            for k, j in zip(owner[sent].tolist(), asked[sent].tolist()):
                if j < n_old:
                    answer(k, j)
        sim.counter.next_round()
