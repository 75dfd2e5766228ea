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


def _data(scale):
    rng = np.random.RandomState(0)
    X = rng.randn(200, 3)
    X[:, 0] *= scale  # one feature on a much larger scale: an ill-conditioned node
    y = (X[:, 1] + X[:, 2] > 0).astype(int)
    groups = np.repeat(np.array(["a", "b", "c", "d", "e"]), 40)
    return X, y, groups


def _steps_and_caps(X, y, groups):
    """Steps per node and how many problems stopped at the cap, from the kernel."""
    rec = []
    orig = pl.lin_local_solve

    def spy(*args):
        orig(*args)
        rec.append((np.asarray(args[15]).copy(), args[12]))  # n_iter, max_iter

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
    X, y, groups = _data(1e4)
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
    X, y, groups = _data(1.0)
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

    X, y, groups = _data(1e4)
    est = PersonalizedLinearClassifier(random_state=0, max_iter=2)

    def load(label):
        rows = groups == label
        return X[rows], y[rows]

    with pytest.warns(ConvergenceWarning, match=r"10000 steps.*: Node 'd' \("):
        mpi.fit(est, load, nodes=np.unique(groups))
