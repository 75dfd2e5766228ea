"""The robust losses on MPI (``mpiexec -n 2``): the agreed target scale is
summed over the ranks, so the MPI fit equals the simulated fit of the
pooled data (threshold, kernel choice, models and counted bytes, the
scale's spanning-tree round included)."""

import numpy as np
from sklearn.base import clone

from skfed.online import DecentralizedKernelSGDRegressor

# tests/test_engines_mpi.py's equality checks; the launcher of tests/_helpers.
from . import test_engines_mpi as MPI
from ._helpers.mpi import launch, needs_mpi, saved_cases


@needs_mpi
def test_robust_losses_on_mpi_equal_simulation(tmp_path):
    rng = np.random.RandomState(0)
    n_nodes, n = 7, 20
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, 3))
    y = X[:, 0] - X[:, 1] + 0.5 * rng.standard_t(1.5, size=len(groups))
    cases = []
    for loss in ("huber", "epsilon_insensitive"):
        est = DecentralizedKernelSGDRegressor(loss=loss, loss_epsilon=0.3, max_epochs=2,
                                              consensus_penalty=0.1,
                                              random_state=3)
        cases.append((loss, est, X, y, groups, None))
    cases = saved_cases(cases, tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    for name, est, _, X, y, g, _ in cases:
        sim = clone(est).fit(X, y, groups=g)
        run = results[name]
        assert run.loss_threshold_ == sim.loss_threshold_
        assert run.target_scale_ == sim.target_scale_
        assert run.kernel_ == sim.kernel_
        MPI._assert_same_online_fit(sim, run)
        assert np.isnan(run.consensus_error_curve_[0])
