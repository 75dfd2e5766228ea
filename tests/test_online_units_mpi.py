"""The MPI engine agrees on the regressor's origin and scale of ``y`` as the
simulation does: every rank computes its own nodes' winsorized means and
robust scales, the per-node pieces combine exactly, and the fit (targets
far from 0, a few nodes of another level) equals the simulated one."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from skfed import DecentralizedKernelSGDRegressor

from ._helpers.mpi import launch, needs_mpi, saved_cases
from ._helpers.online import numpy_offset, numpy_scale

pytest.importorskip("mpi4py")


def _data(seed=0, n_nodes=6, n=10):
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, 2))
    y = 500.0 + 3 * X[:, 0] + np.where(g < 2, 4.0, 0.0) + rng.normal(size=len(g))
    y[5] = 1e5  # one huge target: clipped by its node
    return X, y, g, np.ones(len(g))


def _estimator():
    return DecentralizedKernelSGDRegressor(kernel="rbf", gamma=0.5, max_epochs=2,
                                           max_dictionary_size=12, random_state=1)


@needs_mpi
def test_mpi_regressor_agrees_on_the_simulated_encoding(tmp_path):
    X, y, g, sw = _data()
    cases = saved_cases([("reg", _estimator(), X, y, g, sw)], tmp_path / "data")
    run = launch(2, cases, tmp_path / "ranks2")["reg"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = clone(_estimator()).fit(X, y, groups=g, sample_weight=sw)
    assert sim.target_offset_ == pytest.approx(numpy_offset(y, g), rel=1e-12)
    assert sim.target_offset_ > 400  # (used: far from 0)
    assert sim.target_scale_ == pytest.approx(numpy_scale(y, g), rel=1e-9)
    assert (run.target_offset_, run.target_scale_) == (sim.target_offset_, sim.target_scale_)
    np.testing.assert_array_equal(run.predict(X, groups=g), sim.predict(X, groups=g))
    assert run.n_bytes_sent_ == sim.n_bytes_sent_
