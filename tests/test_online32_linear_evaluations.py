"""``join_function="auto"``'s linear solve asks the nodes about each point
once (``skfed.online._linear_solve``): a warm-started L-BFGS call starts
at the point the previous one ended on, whose reports the root holds.

The reference is SciPy's own count: every L-BFGS call's ``nfev`` (its
first evaluation is at its start).  With a path of three factors and a
final solve, the nodes are asked about ``1 + sum_path (nfev - 1) +
nfev_final`` points: the zero start once (before the path), every path
call's start already known (zero, then the previous call's end), and the
final solve's start once more (its reports come from every node, the
path's from the training nodes only), so its first evaluation is a new
tree round.
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
    clf, X, y, g = _fit()
    gate = clf.network_linear_gate_
    assert len(gate["path"][0]) == 3   # (the path ran to its end)
    evals = int(gate["evaluations"][0])
    # Intermediate: three path calls and the final one.
    assert len(nfev) == 4 and min(nfev) >= 2
    assert evals == 1 + sum(n - 1 for n in nfev[:3]) + nfev[3]
    # No point is asked twice of the same nodes (a start mapped through the
    # preconditioner and back misses the one it came from by rounding only:
    # that would be a wasted tree round).  The path asks the 8 training
    # nodes (and the 2 held back), the final solve all 10.
    sizes = sorted({n for _, n in asked})
    assert sizes == [2, 8, 10]
    for size in (8, 10):
        points = [A for A, n in asked if n == size]
        for k in range(1, len(points)):
            gaps = [np.abs(points[k] - B).max() for B in points[:k]]
            assert min(gaps) > 1e-12 * max(1.0, np.abs(points[k]).max())
    assert len([A for A, n in asked if n == 8]) + len([A for A, n in asked if n == 10]) == evals
