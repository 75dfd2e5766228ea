"""review41: the online regressor's join offset after a fit on 2 MPI ranks.

onlinesch38's test checks the offset sums of a 1-rank fit; here the nodes
are split over 2 ranks (the root gathers the other rank's sums), and the
join after that fit takes the simulation's offsets (nonzero: the fixture's
nodes hold levels) and predictions.
"""

import copy
import warnings

import numpy as np
import pytest

from ._helpers.mpi import needs_mpi
from .test_onlinesch38_join_offset import _data, _fixed


@needs_mpi
def test_two_rank_fit_joins_with_the_simulations_offsets(tmp_path):
    pytest.importorskip("mpi4py")
    from ._helpers.mpi import launch, saved_cases

    X, y, g, Xn, yn, gn = _data()
    est, sim = _fixed(X, y, g)
    cases = saved_cases([("reg", est, X, y, g, None)], tmp_path / "data")
    run = launch(2, cases, tmp_path / "ranks2")["reg"]
    assert run.mpi_n_ranks_ == 2 and run._network_solved.all()
    np.testing.assert_allclose(run._network_offset_stats, sim._network_offset_stats,
                               rtol=1e-10, atol=1e-12)
    joined = {}
    for name, fitted in (("mpi", run), ("sim", sim)):
        fitted = copy.deepcopy(fitted)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted.add_nodes(Xn, yn, groups=gn)
        joined[name] = fitted
    a, b = joined["mpi"], joined["sim"]
    assert np.all(np.abs(b.join_offset_) > 0.25)   # (the fixture's levels, sd 1)
    np.testing.assert_allclose(a.join_offset_, b.join_offset_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.predict(Xn, groups=gn), b.predict(Xn, groups=gn),
                               rtol=1e-9, atol=1e-9)
