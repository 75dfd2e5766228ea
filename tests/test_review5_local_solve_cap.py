"""Perso-lin's local solve stopping at LOCAL_MAX_ITER is reported, not silent.

The local models are documented as each node's optimum (accelerated gradient
to LOCAL_TOL); a node whose problem stops at the iteration cap instead must
raise a ConvergenceWarning naming the node as the user wrote it.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import skfed.boosting._perso_lin as pl
from skfed.boosting import PersonalizedLinearClassifier


def _data(ill):
    rng = np.random.RandomState(0)
    X = rng.randn(200, 3)
    y = (X[:, 1] + X[:, 2] > 0).astype(int)
    if ill:
        # Node 'd': two nearly collinear features u +- 1e-3 v (large units)
        # whose difference alone predicts its noisy balanced labels, the
        # rest of its gradient at zero made 0: the curvature along the
        # difference is 1e-6 of the diagonal, which no feature scaling
        # removes (the Jacobi-preconditioned problem's condition number is
        # about 1e6).
        u, v = rng.randn(40), rng.randn(40)
        yd = (v > np.median(v)).astype(int)
        yd[np.flatnonzero(yd == 1)[:3]] = 0
        yd[np.flatnonzero(yd == 0)[:3]] = 1
        d = slice(120, 160)
        w = X[d, 2].copy()
        for c in (0, 1):
            u[yd == c] -= u[yd == c].mean()
            w[yd == c] -= w[yd == c].mean()
        X[d, 0], X[d, 1], X[d, 2] = 1e4 * (u + 1e-3 * v), 1e4 * (u - 1e-3 * v), w
        y[d] = yd
    groups = np.repeat(np.array(["a", "b", "c", "d", "e"]), 40)
    return X, y, groups


def _steps_and_caps(X, y, groups):
    """Steps per node and how many problems stopped at the cap, from the kernel."""
    rec = []
    orig = pl.lin_local_solve

    def spy(*args):
        orig(*args)
        rec.append((np.asarray(args[16]).copy(), args[13]))  # n_iter, max_iter

    pl.lin_local_solve = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            PersonalizedLinearClassifier(random_state=0, max_iter=2).fit(X, y, groups)
    finally:
        pl.lin_local_solve = orig
    (steps, max_iter), = rec
    return steps, max_iter


def test_local_solve_at_the_cap_warns_naming_the_node():
    X, y, groups = _data(True)
    steps, max_iter = _steps_and_caps(X, y, groups)
    assert max_iter == pl.LOCAL_MAX_ITER == 10_000
    capped = np.flatnonzero(steps >= max_iter)  # one problem per node (binary)
    assert capped.tolist() == [3]  # node 'd' stops at the cap, the others converge
    assert steps[[0, 1, 2, 4]].max() < max_iter
    with pytest.warns(ConvergenceWarning, match=r"10000 steps.*Node 'd'") as rec:
        PersonalizedLinearClassifier(random_state=0, max_iter=2).fit(X, y, groups)
    msgs = [str(w.message) for w in rec if issubclass(w.category, ConvergenceWarning)]
    assert len(msgs) == 1 and "'a'" not in msgs[0] and "'e'" not in msgs[0]


def test_converged_local_solve_is_quiet():
    X, y, groups = _data(False)
    steps, max_iter = _steps_and_caps(X, y, groups)
    assert (steps > 0).all() and steps.max() < max_iter
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        PersonalizedLinearClassifier(random_state=0, max_iter=2).fit(X, y, groups)


def test_mpi_engine_warns_naming_the_same_node():
    # The MPI engine's local solve (one rank, in process) warns as the
    # simulation does, naming the node by its label.
    pytest.importorskip("mpi4py")
    from skfed.engines import mpi

    X, y, groups = _data(True)
    est = PersonalizedLinearClassifier(random_state=0, max_iter=2)

    def load(label):
        rows = groups == label
        return X[rows], y[rows]

    with pytest.warns(ConvergenceWarning, match=r"10000 steps.*: Node 'd' \("):
        mpi.fit(est, load, nodes=np.unique(groups))
