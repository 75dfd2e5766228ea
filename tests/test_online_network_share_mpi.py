"""network_share="auto" on MPI (``mpiexec -n 2``): the chosen candidate's
network function is built on the root from the ranks' functions and solve
sums, every rank scores its own nodes' held-out rows and one allreduce sums
them.  The MPI fit must equal the simulated fit: the shares' per-node
losses, the choice, the models, the counted bytes (the network round and
the shares' tree round included) and the predictions."""

import numpy as np
from sklearn.base import clone

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDRegressor

from . import test_engines_mpi as MPI
from ._helpers.mpi import launch, needs_mpi, saved_cases


def _cases(tmp):
    # 12 nodes of 8 samples sharing one linear rule (the share of the
    # network function wins), 6 nodes a rank; dropped nodes in the second.
    rng = np.random.RandomState(0)
    n_nodes, n_per, d = 12, 8, 6
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.normal(size=(n_nodes * n_per, d))
    coef = rng.normal(size=d) + 0.3 * rng.normal(size=(n_nodes, d))
    y = np.einsum("ij,ij->i", X, coef[groups]) + 0.3 * rng.normal(size=len(groups))
    sw = rng.uniform(0.5, 2.0, size=len(X))
    return saved_cases([
        ("share_defaults", DecentralizedKernelSGDRegressor(max_epochs=3, random_state=0),
         X, y, groups, None),
        ("share_weights_drops", DecentralizedKernelSGDRegressor(
            max_epochs=3, random_state=1, network=SimulatedNetwork(drop_rate=0.2)),
         X, y, groups, sw),
    ], tmp)


@needs_mpi
def test_network_share_auto_on_mpi_equals_simulation(tmp_path):
    cases = _cases(tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    for name, est, _, X, y, g, sw in cases:
        sim = clone(est).fit(X, y, groups=g, sample_weight=sw)
        run = results[name]
        a, b = sim.network_share_selection_, run.network_share_selection_
        assert a["shares"] == b["shares"]
        np.testing.assert_allclose(b["node_validation_error"], a["node_validation_error"],
                                   rtol=1e-12, atol=1e-15)
        assert run.network_share_ == sim.network_share_ > 0
        assert run.consensus_selection_["choice"] == sim.consensus_selection_["choice"]
        MPI._assert_same_online_fit(sim, run)
        np.testing.assert_array_equal(run.bytes_per_round_, sim.bytes_per_round_)
        for A, B in zip(run.network_dictionary_, sim.network_dictionary_):
            np.testing.assert_array_equal(A, B)
        np.testing.assert_allclose(run.predict(X, groups=g), sim.predict(X, groups=g),
                                   rtol=1e-10, atol=1e-12)
        # (the candidates' functions up, the network function down, the
        # losses' allreduce, the share round's counts to the root)
        assert run.mpi_traffic_["network_share"]["messages"] >= 4
