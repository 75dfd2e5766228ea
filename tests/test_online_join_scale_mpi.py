"""A regressor fitted by the MPI engine keeps the scale sums of its joins (issue 32).

Every node's ``(sum w f0 y, sum w f0^2, sum w)`` over its own samples, ``f0``
the network function: the root sends the network function to the ranks,
each computes its nodes' sums, the root adds them up.  On 1 and 2 ranks the
sums equal a NumPy computation and the simulation's, and a join after the
MPI fit equals the join after the simulated fit (start, scale, weights,
bytes).  Before (main at f28c2af) the MPI fit kept no sums, its newcomers
started from the unscaled network function and these checks fail.
"""

import copy
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from skfed import DecentralizedKernelSGDRegressor
from skfed.online import _join as join_module

from ._helpers.mpi import launch, needs_mpi, saved_cases

pytest.importorskip("mpi4py")


def _data(seed=0, n_nodes=8, n=12, d=3):
    rng = np.random.RandomState(seed)
    w = rng.normal(size=d)
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = X @ w + 0.3 * rng.normal(size=len(g))
    sw = rng.uniform(0.5, 2.0, size=len(g))
    Xn = rng.normal(size=(10, d))
    yn = Xn @ w + 0.3 * rng.normal(size=10)
    return X, y, g, sw, Xn, yn, np.repeat([100, 101], 5)


def _estimator():
    return DecentralizedKernelSGDRegressor(kernel="rbf", gamma=0.3, max_epochs=2,
                                           max_dictionary_size=16, random_state=3)


@pytest.fixture(scope="module")
def mpi_runs(tmp_path_factory):
    """``{n_ranks: fitted}`` and the simulated fit, of the same data."""
    X, y, g, sw, *_ = _data()
    tmp = tmp_path_factory.mktemp("mpi_join_scale")
    cases = saved_cases([("reg", _estimator(), X, y, g, sw)], tmp / "data")
    runs = {n: launch(n, cases, tmp / f"ranks{n}")["reg"] for n in (1, 2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = clone(_estimator()).fit(X, y, groups=g, sample_weight=sw)
    return runs, sim


@needs_mpi
@pytest.mark.parametrize("n_ranks", [1, 2])
def test_mpi_fit_keeps_the_scale_sums(mpi_runs, n_ranks):
    runs, sim = mpi_runs
    run = runs[n_ranks]
    assert run.mpi_n_ranks_ == n_ranks
    X, y, g, sw, *_ = _data()
    # The ranks agree on the simulation's encoding of y, to the bit.
    assert (run.target_offset_, run.target_scale_) == (sim.target_offset_, sim.target_scale_)
    # NumPy: every node's sums over its own samples, f0 the network function
    # and z the targets the solver learns
    f0 = run._network_values(X)[:, 0]
    z = (y - run.target_offset_) / run.target_scale_
    expected = np.stack([np.bincount(g, sw * f0 * z), np.bincount(g, sw * f0 * f0),
                         np.bincount(g, sw)], axis=1)
    assert expected[:, 1].min() > 0
    np.testing.assert_allclose(run._network_fit_stats, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(run._network_fit_stats, sim._network_fit_stats,
                               rtol=1e-12, atol=1e-12)
    if n_ranks == 2:
        # one network function out to the other rank, one (8, 3) array back
        traffic = run.mpi_traffic_
        assert traffic["network"]["messages"] == 1 and traffic["scale_sums"]["messages"] == 1
        assert traffic["scale_sums"]["bytes"] > 8 * 3 * 8
    else:
        assert "network" not in run.mpi_traffic_ and "scale_sums" not in run.mpi_traffic_


@needs_mpi
@pytest.mark.parametrize("n_ranks", [1, 2])
def test_join_after_mpi_fit_is_scaled_as_in_simulation(mpi_runs, n_ranks):
    runs, sim = mpi_runs
    run = runs[n_ranks]
    X, _, g, _, Xn, yn, gn = _data()
    factors = {}
    joined = {}
    prior_of = join_module.solved_prior
    for name, est in (("mpi", run), ("sim", sim)):
        est = copy.deepcopy(est)
        seen = []
        scale = est._network_scale
        est._network_scale = lambda a, s, c, seen=seen, scale=scale: (
            seen.append(("factor", scale(a, s, c)[0])) or scale(a, s, c))
        # (split28) a solved network function is taken at scale 1: its
        # candidates send sum w alone, which sets the prior's weight
        join_module.solved_prior = lambda a, s, n, c, seen=seen: (
            seen.append(("prior", prior_of(a, s, n, c))) or prior_of(a, s, n, c))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.add_nodes(Xn, yn, groups=gn)
        finally:
            join_module.solved_prior = prior_of
        factors[name], joined[name] = seen, est
    # the solve was kept (both fits), so each newcomer's prior is the mean sum
    # w of its candidates (sample weights 0.5-2 on 12 rows: 6 to 24)
    assert run._network_solved.all() and sim._network_solved.all()
    assert [kind for kind, _ in factors["mpi"]] == ["prior", "prior"]
    assert all(6.0 < value < 24.0 for _, value in factors["mpi"])
    assert factors["mpi"] == factors["sim"]
    a, b = joined["mpi"], joined["sim"]
    np.testing.assert_array_equal(a.join_start_, b.join_start_)
    np.testing.assert_array_equal(a.join_passes_, b.join_passes_)
    assert a.join_communication_.total_bytes == b.join_communication_.total_bytes > 0
    np.testing.assert_allclose(a.predict(Xn, groups=gn), b.predict(Xn, groups=gn),
                               rtol=1e-9, atol=1e-9)
    # the fitted nodes are untouched
    np.testing.assert_array_equal(a.predict(X, groups=g), run.predict(X, groups=g))
