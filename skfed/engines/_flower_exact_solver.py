"""MOCHA's exact local solver (``local_solver``) on Flower's nodes.

A node marked exact by the simulated fit's rule
(:meth:`~skfed.multitask._base._BaseMultiTask._exact_nodes`, which the server
applies to the node counts of the hello answers) solves its subproblem of a
full round to optimality with the simulated fit's projected-Newton solver
(:func:`~skfed._core._multitask_fast.local_solve_exact_nodes`, run on the
node's own rows); a straggler's partial round runs coordinate ascent, as in
the simulated fit.  The solver's tolerance scales with ``max |y|`` over all
nodes (1 for the +-1 targets of a classifier): a regressor's nodes report
their ``max |y|`` with their hello, as the other hello metadata outside the
byte model (the classes, the sample counts).
"""

from types import SimpleNamespace

import numpy as np
from sklearn.base import is_classifier

from .._core._multitask_fast import local_solve_exact_nodes
from ..multitask._state import _EXACT_KIND, _EXACT_MAX_ITER, _EXACT_TOL


def _wants_exact(estimator):
    return (estimator.loss in _EXACT_KIND
            and getattr(estimator, "local_solver", "coordinate") != "coordinate")


def hello_target_scale(reply, node, estimator):
    """Add the node's ``max |y|`` to its hello answer (regressors that may
    solve exactly only)."""
    if is_classifier(estimator) or not _wants_exact(estimator):
        return
    y = np.asarray(node.y, dtype=np.float64)
    reply.config_records["config"]["target_scale"] = float(np.max(np.abs(y))) if y.size else 0.0


def exact_nodes(estimator, counts, n_cols):
    """The nodes that solve exactly: the simulated rule on the hello's counts
    (``n_cols``: the features with the intercept column)."""
    layout = SimpleNamespace(counts=np.asarray(counts), n_nodes=len(counts))
    return np.asarray(estimator._exact_nodes(layout, int(n_cols)), dtype=bool)


def exact_tolerance(infos, classifier):
    """The simulated fit's tolerance, ``_EXACT_TOL max(1, max |Y|)``."""
    if classifier:
        scale = 1.0  # +-1 targets
    else:
        scale = max([1.0] + [float(info["target_scale"]) for info in infos.values()])
    return _EXACT_TOL * scale


def node_exact_solve(Z, Y, sw, g, w, c, loss_name, tol):
    """One exact local solve of one node; returns ``(dvs, g)``.

    Parameters
    ----------
    Z : ndarray of shape (n_t, d'), float64
    Y, g : ndarray of shape (n_problems, n_t)
    sw : ndarray of shape (n_t,)
    w : ndarray of shape (n_problems, d')
        The node's model.
    c : float
        The subproblem's scaling.
    loss_name : str
    tol : float
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n, d = Z.shape
    P = Y.shape[0]
    G = np.array(g, dtype=np.float64, order="C")
    dV = np.zeros((P, 1, d))
    local_solve_exact_nodes(
        Z, np.ascontiguousarray((Z @ Z.T).ravel()), np.array([0, n * n], dtype=np.intp),
        np.ascontiguousarray(Y, dtype=np.float64), np.ascontiguousarray(sw, dtype=np.float64),
        G, np.ascontiguousarray(np.asarray(w, dtype=np.float64)[:, None, :]), dV,
        np.zeros((P, n)), np.zeros(1, dtype=np.intp), np.array([0, n], dtype=np.intp),
        np.array([float(c)]), np.ones(1, dtype=np.uint8), _EXACT_KIND[loss_name], float(tol),
        _EXACT_MAX_ITER,
    )
    return dV[:, 0, :], G
