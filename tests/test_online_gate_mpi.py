"""The online classifier's newcomer gate on the MPI engine (``mpiexec -n 2``).

The MPI engine's fit runs no gate: its ranks hold the rows the gate would
score and the driver does not, so it records ``newcomer_rule_ = "graph"``
and ``newcomer_gate_ = None``, and its newcomers take the graph join.  The
simulated fit of the same data decides the gate (open here) without sending
anything in the fit, so both fits' models and counted bytes stay equal.
"""

from sklearn.base import clone

from . import test_engines_mpi as MPI
from ._helpers.mpi import launch, needs_mpi, saved_cases
from .test_online_gate_features import _clf, _terrains


@needs_mpi
def test_mpi_fit_runs_no_gate_and_equals_the_simulated_fit(tmp_path):
    X, y, g = _terrains()
    cases = saved_cases([("terrains", _clf(), X, y, g, None)], tmp_path)
    run = launch(2, cases, tmp_path / "n2")["terrains"]
    sim = clone(_clf()).fit(X, y, groups=g)
    assert sim.newcomer_rule_ == "features" and sim.newcomer_gate_["open"]
    assert run.newcomer_rule_ == "graph" and run.newcomer_gate_ is None
    MPI._assert_same_online_fit(sim, run)
    Xn, yn, gn = _terrains(n_nodes=16, seed=5)
    new = gn >= 14
    joined = run.add_nodes(Xn[new], yn[new], groups=gn[new] + 100)
    assert set(joined.join_start_) <= {"network", "neighbours"}
