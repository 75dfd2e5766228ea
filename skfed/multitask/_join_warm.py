"""``warm_start=True`` after ``add_nodes`` of the kernelized-MOCHA estimators.

A fit keeps what ``warm_start=True`` starts the next fit from: its nodes,
their sample counts and targets, the dual variables and the next ``Sigma``
(or, for the shared model, the shared model and its share).  A join does
not touch the fitted nodes' dual variables, and each newcomer solved its
own problem for its dual variables (feasible at any ``C`` and ``Sigma``,
as the fitted ones are), so :func:`extend_dual_state` extends that state
by the newcomers: their dual variables (zeros for a newcomer that keeps
the shared model, whose solve its model ignores), their counts and
targets, and ``Sigma`` grown by the join (``task_covariance_``).  A
``warm_start=True`` refit on the fitted and joined nodes' samples then
starts from it; a refit on other nodes or samples is refused as after a
fit (``_BaseMultiTask._warm_start_duals``).

The state is kept in the node order a fit on those nodes gives (sorted
labels), which differs from ``nodes_`` after a join when a newcomer's label
sorts before a fitted node's.

Measured (``benchmarks/mocha_warm_join.py``, 7 families, seeds 0-1, 5
joined nodes; warm / cold refit on the same arrays): with the shared model
2-7 rounds against 6-11, accuracy within 0.3 points; with the learned
Omega fewer rounds on 12 of 14 rows, but its plateau stop leaves the warm
refit further above the joint optimum on 11 of 14 (accuracy -0.85 to
+0.6 points); with ``omega="independent"`` one round either way, the
warm start only adds its upload.
"""

import numpy as np

from ._omega import _LowRankSigma


def _blocks(counts):
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    return [slice(offsets[t], offsets[t + 1]) for t in range(len(counts))]


def _reordered(state, order):
    """``state`` with its nodes taken in ``order`` (positions into its nodes)."""
    blocks = _blocks(state["counts"])
    rows = np.concatenate([np.arange(blocks[t].start, blocks[t].stop, dtype=np.intp)
                           for t in order] + [np.zeros(0, dtype=np.intp)])
    out = dict(state, nodes=state["nodes"][order], counts=state["counts"][order],
               Y=state["Y"][:, rows], g=state["g"][:, rows])
    sigma = state.get("sigma")
    if sigma is not None and not np.array_equal(order, np.arange(len(order))):
        if isinstance(sigma, _LowRankSigma):
            sigma = sigma.dense()
        out["sigma"] = np.ascontiguousarray(np.asarray(sigma)[np.ix_(order, order)])
    return out


def extend_dual_state(est, n_old, counts, Y, g, keeps_centre=None):
    """Extend ``est._dual_state`` by the nodes a join appended to ``nodes_``.

    Call after the join appended them and grew ``task_covariance_``.

    Parameters
    ----------
    est : FederatedMultiTaskClassifier or FederatedMultiTaskRegressor
        Joined (``nodes_`` holds the ``n_old`` nodes before the join, then
        the newcomers).
    n_old : int
        Nodes before the join.
    counts : ndarray of shape (n_new,)
        The newcomers' numbers of samples.
    Y, g : ndarray of shape (n_problems, n_new_samples)
        Their targets and dual variables, node by node in ``nodes_`` order.
    keeps_centre : ndarray of shape (n_new,) of bool, default=None
        Newcomers whose model is the prior's centre (their solve unused):
        their dual variables are kept as zeros.
    """
    state = getattr(est, "_dual_state", None)
    if state is None:
        return  # (a private fit keeps none: nothing to continue)
    old = np.asarray(est.nodes_[:n_old])
    where = {label: k for k, label in enumerate(state["nodes"].tolist())}
    if len(where) != n_old or any(label not in where for label in old.tolist()):
        est._dual_state = None  # (not this estimator's nodes: cannot happen)
        return
    state = _reordered(state, np.array([where[label] for label in old.tolist()], np.intp))
    g = np.array(g, dtype=np.float64)
    if keeps_centre is not None and np.any(keeps_centre):
        for t, block in enumerate(_blocks(counts)):
            if keeps_centre[t]:
                g[:, block] = 0.0
    sigma = None
    if state.get("sigma") is not None:
        grown = est.task_covariance_
        sigma = grown.dense() if isinstance(grown, _LowRankSigma) else np.asarray(grown)
    grown_state = dict(state, nodes=np.asarray(est.nodes_).copy(),
                       counts=np.concatenate([state["counts"], counts]),
                       Y=np.concatenate([state["Y"], Y], axis=1),
                       g=np.concatenate([state["g"], g], axis=1), sigma=sigma)
    est._dual_state = _reordered(grown_state, np.argsort(grown_state["nodes"], kind="stable"))
