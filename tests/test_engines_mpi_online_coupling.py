"""Online kernel SGD's consensus_penalty="auto" (the default) on MPI (``mpiexec -n 2``).

Both candidate couplings are fitted with the MPI engine's own rounds on
every node's training rows (same seeds, same held-out rows, the strong
candidate's random regular graph drawn from the estimator's random_state,
as simulated); every rank scores its own nodes on their held-out rows and
one allreduce sums the per-node errors.  The MPI fit with the defaults must
equal the simulated fit of the pooled data: the choice, every node's
validation errors, ``consensus_penalty_``, ``epsilon_``, the models, the
curves, the counted bytes (the candidates' rounds and the spanning-tree
rounds included) and the predictions.
"""

import numpy as np
from sklearn.base import clone

from skfed.network import SimulatedNetwork
from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)

# tests/test_engines_mpi.py's equality checks; the launcher of tests/_helpers.
from . import test_engines_mpi as MPI
from ._helpers.mpi import launch, needs_mpi, saved_cases


def _cases(tmp):
    cases = []
    # One rule shared by 10 small nodes: the strong coupling wins (its
    # random regular graph then carries the final fit); 5 nodes a rank.
    rng = np.random.RandomState(2)
    n_nodes, n_per = 10, 12
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.normal(size=(n_nodes * n_per, 3))
    w = rng.normal(size=3)
    y = (X @ w + 0.5 * rng.normal(size=len(groups)) > 0).astype(int)
    cases.append(("defaults_strong_classifier",
                  DecentralizedKernelSGDClassifier(random_state=2, max_epochs=4),
                  X, y, groups, None))
    # A curved rule, string labels, sample weights and dropped nodes, the
    # Huber loss (its scale's tree round comes first): the weak coupling.
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, size=(6 * 20, 2))
    labels = np.array([f"n{k}" for k in range(6)])[np.repeat(np.arange(6), 20)]
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=len(X))
    sw = rng.uniform(0.5, 2.0, size=len(X))
    cases.append(("defaults_weak_regressor_weights_drops",
                  DecentralizedKernelSGDRegressor(
                      max_epochs=2, max_dictionary_size=10, random_state=1,
                      network=SimulatedNetwork(drop_rate=0.2)),
                  X, y, labels, sw))
    return saved_cases(cases, tmp)


@needs_mpi
def test_consensus_penalty_auto_on_mpi_equals_simulation(tmp_path):
    cases = _cases(tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    expected = {"defaults_strong_classifier": "strong",
                "defaults_weak_regressor_weights_drops": "weak"}
    for name, est, _, X, y, g, sw in cases:
        assert est.consensus_penalty == "auto" and est.kernel == "auto"
        sim = clone(est).fit(X, y, groups=g, sample_weight=sw)
        run = results[name]
        a, b = sim.consensus_selection_, run.consensus_selection_
        assert a["choice"] == b["choice"] == expected[name]
        for key in ("candidates", "consensus_penalty", "epsilon", "topology"):
            assert a[key] == b[key]
        np.testing.assert_array_equal(a["node_validation_error"], b["node_validation_error"])
        np.testing.assert_array_equal(a["mean_validation_error"], b["mean_validation_error"])
        assert run.consensus_penalty_ == sim.consensus_penalty_
        assert run.epsilon_ == sim.epsilon_
        assert run.kernel_ == sim.kernel_
        # The final fit's graph: the strong candidate's random regular one
        # when it won, else the default ring.
        assert (run.adjacency_ != sim.adjacency_).nnz == 0
        # The models, curves and counted bytes (kernel selection / scale
        # round, both candidates' rounds, the selection's round, the fit).
        MPI._assert_same_online_fit(sim, run)
        # (both fits run kernel="auto": its round, the candidates', the selection's)
        assert np.isnan(run.consensus_error_curve_[:4]).all()
        assert len(sim.bytes_per_round_) == len(run.bytes_per_round_)
        np.testing.assert_array_equal(run.predict(X, groups=g), sim.predict(X, groups=g))
        # The MPI traffic of the coupling selection: one allgather of the
        # statistics, one allreduce of the errors (each rank sending to the
        # other once) and the counts sent to the root (one message).
        assert run.mpi_traffic_["coupling"]["messages"] == 2 + 2 + 1


@needs_mpi
def test_consensus_penalty_auto_survives_a_rank_stopped_in_the_fit(tmp_path):
    """An injected stop at round r counts the final fit's rounds: the
    candidate fits run whole on every rank, so the choice, its errors and
    the rounds before the fit equal the simulation's, and the stopped
    rank's nodes are lost from the final fit on (``mpiexec -n 3``)."""
    import json

    _, est, directory, X, y, g, _ = _cases(tmp_path)[0]
    params = json.dumps({"random_state": 2, "max_epochs": 4})
    run, lost, kept = MPI._stopped_run(3, ["--data", directory, "--estimator",
                                           type(est).__name__, "--params", params, 5],
                                       2, 10, tmp_path)
    sim = clone(est).fit(X, y, groups=g)
    assert run.consensus_selection_["choice"] == sim.consensus_selection_["choice"] == "strong"
    np.testing.assert_array_equal(run.consensus_selection_["node_validation_error"],
                                  sim.consensus_selection_["node_validation_error"])
    assert run.consensus_penalty_ == sim.consensus_penalty_
    assert run.epsilon_ == sim.epsilon_
    # kernel="auto"'s round, the two candidates' and the selection's.
    np.testing.assert_array_equal(run.bytes_per_round_[:4], sim.bytes_per_round_[:4])
    assert all(len(run.dictionaries_[k]) == 0 for k in lost)
    assert all(len(run.dictionaries_[k]) > 0 for k in kept)
