"""The network solve on the MPI engine (``mpiexec -n 2``): the root runs the
solve, every rank answers each weights it sends with its own nodes' sums,
so the solved network function, its gate and its counted rounds equal the
simulation's; the exchange's messages are in ``mpi_traffic_``.
"""

import numpy as np
from sklearn.base import clone

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier

from ._helpers.mpi import launch, needs_mpi, saved_cases


def _cases(tmp):
    rng = np.random.RandomState(5)
    n_nodes, n, d = 6, 30, 3
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    score = X[:, 0] + 0.2 * groups * X[:, 1]
    cases = []
    # Three classes, the logistic loss (n_out = 3), sample weights.
    est = DecentralizedKernelSGDClassifier(
        loss="log_loss", gamma=0.5, max_epochs=2, max_dictionary_size=10, random_state=0,
        consensus_penalty=0.1, network=SimulatedNetwork("ring"))
    w = 0.5 + rng.uniform(size=len(X))
    cases.append(("multiclass_log", est, X, np.digitize(score, [-0.4, 0.4]), groups, w))
    # Two unlike clusters: the gate keeps the mean (the solve still paid).
    est = DecentralizedKernelSGDClassifier(
        gamma=0.5, max_epochs=2, max_dictionary_size=10, random_state=1,
        consensus_penalty=0.1, network=SimulatedNetwork("ring"))
    flipped = np.where(groups >= 3, -score, score)
    cases.append(("clusters_hinge", est, X, (flipped > 0).astype(int), groups, None))
    return saved_cases(cases, tmp)


@needs_mpi
def test_mpi_network_solve_equals_simulation(tmp_path):
    cases = _cases(tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    solved = {}
    for name, est, _, X, y, g, sw in cases:
        sim = clone(est).fit(X, y, groups=g, sample_weight=sw)
        run = results[name]
        rounds = int(sim._network_solve_rounds[0])
        assert rounds >= 2
        np.testing.assert_array_equal(run._network_solve_rounds, sim._network_solve_rounds)
        np.testing.assert_array_equal(run._network_solved, sim._network_solved)
        np.testing.assert_array_equal(run.network_dictionary_[0], sim.network_dictionary_[0])
        np.testing.assert_allclose(run._network_mean_coef[0], sim._network_mean_coef[0],
                                   rtol=1e-12)
        np.testing.assert_allclose(run.network_coef_[0], sim.network_coef_[0], rtol=1e-10,
                                   atol=1e-12)
        cs, cm = sim.network_communication_, run.network_communication_
        assert cm.total_bytes == cs.total_bytes
        assert cm.total_messages == cs.total_messages
        assert run.n_bytes_sent_ == sim.n_bytes_sent_
        # The exchange over the ranks: the root sends the points once, the
        # weights of every evaluation, the gate's and "done"; the other rank
        # answers every evaluation and the gate.
        traffic = run.mpi_traffic_["network_solve"]
        assert traffic["messages"] == (rounds + 2) + rounds
        assert traffic["bytes"] > 0
        solved[name] = bool(sim._network_solved[0])
    assert solved == {"multiclass_log": True, "clusters_hinge": False}


@needs_mpi
def test_mpi_regressor_solve_and_held_back_gate_equal_simulation(tmp_path):
    # A regressor's solve on the rows not held back (drawn per node from the
    # public seed, so each rank draws its own nodes' alike) and its gate on
    # the held-back rows: the same rounds, choice, weights and bytes as the
    # simulation on 2 ranks.
    from skfed.online import DecentralizedKernelSGDRegressor

    rng = np.random.RandomState(2)
    n_nodes, n = 6, 40
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, 2))
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=len(X))
    w = 0.5 + rng.uniform(size=len(X))
    est = DecentralizedKernelSGDRegressor(
        gamma=0.5, max_epochs=2, max_dictionary_size=12, random_state=0,
        consensus_penalty=0.1, network=SimulatedNetwork("ring"))
    cases = saved_cases([("regressor", est, X, y, groups, w)], tmp_path)
    run = launch(2, cases, tmp_path / "n2")["regressor"]
    sim = clone(est).fit(X, y, groups=groups, sample_weight=w)
    rounds = int(sim._network_solve_rounds[0])
    assert rounds >= 3 and sim._network_solved.tolist() == [True]
    np.testing.assert_array_equal(run._network_solve_rounds, sim._network_solve_rounds)
    np.testing.assert_array_equal(run._network_solved, sim._network_solved)
    np.testing.assert_allclose(run._network_held_losses, sim._network_held_losses, rtol=1e-10)
    np.testing.assert_allclose(run.network_coef_[0], sim.network_coef_[0], rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(run.predict(X[:20], groups=[99] * 20),
                               sim.predict(X[:20], groups=[99] * 20), rtol=1e-9)
    assert run.n_bytes_sent_ == sim.n_bytes_sent_
    assert run.network_communication_.total_messages == sim.network_communication_.total_messages
    # the root sends the points, every evaluation's weights, the gate's and
    # "done"; the other rank answers every evaluation and the gate
    traffic = run.mpi_traffic_["network_solve"]
    assert traffic["messages"] == (rounds + 2) + rounds
