"""Small pieces of the online learner's join (skfed/online/_join.py):
message sizes, a newcomer's combination weights and the join's rounds."""

import numpy as np

__all__ = ["_rows_bytes", "_combination", "_join_rounds"]


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
