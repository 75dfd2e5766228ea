"""``join_function="auto"``'s linear solve asks the nodes about each point
once (``skfed.online._linear_solve``): the solve's first evaluation, at
``w = 0``, is the one whose weight ``W`` sets the penalty, and its start
mapped through the preconditioner and back is not asked again.

The reference is SciPy's own count: the L-BFGS call's ``nfev`` (its first
evaluation is at its start).  With one fixed-penalty solve on every node
the nodes are asked about ``nfev`` points.
"""

import numpy as np
import scipy.optimize

import skfed.online._linear_solve as ls
import skfed.online._network_function as nf

from .test_online_linear_join import _fit


def test_each_point_is_asked_once_and_evaluations_are_scipys_count(monkeypatch):
    nfev = []

    def counting(*args, **kwargs):
        result = scipy.optimize.minimize(*args, **kwargs)
        nfev.append(int(result.nfev))
        return result

    monkeypatch.setattr(ls, "minimize", counting)
    asked = []
    real_call = nf.NodeSums.__call__

    def recording(self, D, gamma, A, nodes):
        if D.shape[0] == D.shape[1] and np.array_equal(D, np.eye(len(D))):
            asked.append((A.copy(), len(nodes)))
        return real_call(self, D, gamma, A, nodes)

    monkeypatch.setattr(nf.NodeSums, "__call__", recording)
    clf, _, _, _ = _fit()
    gate = clf.network_linear_gate_
    evals = int(gate["evaluations"][0])
    # Intermediate: one call, every node asked at each point.
    assert len(nfev) == 1 and nfev[0] >= 2
    assert evals == nfev[0]
    # No point is asked twice (a start mapped through the preconditioner
    # and back misses the one it came from by rounding only: that would be
    # a wasted tree round).
    assert sorted({n for _, n in asked}) == [10]
    points = [A for A, _ in asked]
    for k in range(1, len(points)):
        gaps = [np.abs(points[k] - B).max() for B in points[:k]]
        assert min(gaps) > 1e-12 * max(1.0, np.abs(points[k]).max())
    assert len(points) == evals
