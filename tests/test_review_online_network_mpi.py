"""Review: the MPI online engine ends with the same network function as the
simulation (``network_dictionary_``, ``network_coef_``, ``network_gamma_``,
the network function's counted rounds) and so predicts the same for a node
never seen in fit.
"""

import numpy as np
from sklearn.base import clone

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

from ._helpers.mpi import launch, needs_mpi, saved_cases


def _cases(tmp):
    rng = np.random.RandomState(3)
    cases = []
    n_nodes, n, d = 6, 20, 3
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = (X[:, 0] + 0.2 * groups * X[:, 1] > 0).astype(int)
    # Per-node widths (a width round of its own) and dropped nodes.
    est = DecentralizedKernelSGDClassifier(
        gamma="median", max_epochs=2, max_dictionary_size=12, random_state=0,
        consensus_penalty=0.1, network=SimulatedNetwork("ring", drop_rate=0.3),
    )
    cases.append(("median_drops", est, X, y, groups, None))
    yr = np.sin(X[:, 0]) + 0.1 * rng.normal(size=len(X))
    est = DecentralizedKernelSGDRegressor(
        gamma=0.5, max_epochs=2, max_dictionary_size=10, random_state=1,
        consensus_penalty=0.1, network=SimulatedNetwork("ring"),
    )
    cases.append(("fixed_gamma_regressor", est, X, yr, groups, None))
    return saved_cases(cases, tmp)


@needs_mpi
def test_mpi_network_function_equals_simulation(tmp_path):
    cases = _cases(tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    X_new = np.random.RandomState(9).normal(size=(15, 3))
    for name, est, _, X, y, g, sw in cases:
        sim = clone(est).fit(X, y, groups=g, sample_weight=sw)
        run = results[name]
        np.testing.assert_array_equal(run.network_gamma_, sim.network_gamma_)
        np.testing.assert_array_equal(run.network_component_, sim.network_component_)
        assert len(run.network_dictionary_) == len(sim.network_dictionary_) == 1
        assert len(sim.network_dictionary_[0]) > 0
        np.testing.assert_array_equal(run.network_dictionary_[0], sim.network_dictionary_[0])
        np.testing.assert_allclose(run.network_coef_[0], sim.network_coef_[0], rtol=1e-12)
        cs, cm = sim.network_communication_, run.network_communication_
        assert cm.total_bytes == cs.total_bytes > 0
        assert cm.total_messages == cs.total_messages
        np.testing.assert_array_equal(cm.bytes_per_round, cs.bytes_per_round)
        assert run.n_bytes_sent_ == sim.n_bytes_sent_
        unseen = np.full(len(X_new), 999)
        decide = "decision_function" if hasattr(sim, "decision_function") else "predict"
        np.testing.assert_allclose(getattr(run, decide)(X_new, groups=unseen),
                                   getattr(sim, decide)(X_new, groups=unseen), rtol=1e-10)
