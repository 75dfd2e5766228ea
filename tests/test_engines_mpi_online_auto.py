"""Online kernel SGD's kernel="auto" on MPI (``mpiexec -n 2``).

Every rank fits both candidate kernels alone on its own nodes' training
rows and the per-node held-out losses are summed by one allreduce: the MPI
fit must equal the simulated fit of the pooled data (the choice, every
node's validation losses, the models and the counted bytes, including the
selection's spanning-tree round), whatever the split of the nodes.
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
    rng = np.random.RandomState(0)
    cases = []
    # Alike linear nodes (the linear kernel wins), 7 nodes: 4 + 3 per rank.
    n_nodes, n, d = 7, 24, 4
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    coef = rng.normal(size=d) + 0.3 * rng.normal(size=(n_nodes, d))
    y = (np.einsum("ij,ij->i", X, coef[groups]) > 0).astype(int)
    est = DecentralizedKernelSGDClassifier(max_epochs=2, random_state=1, consensus_penalty=0.1)
    cases.append(("auto_linear_classifier", est, X, y, groups, None))
    # A curved rule with sample weights and dropped nodes (rbf wins); string
    # labels, 6 nodes.
    X = rng.uniform(-2, 2, size=(6 * 20, 2))
    labels = np.array([f"n{k}" for k in range(6)])[np.repeat(np.arange(6), 20)]
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=len(X))
    sw = rng.uniform(0.5, 2.0, size=len(X))
    est = DecentralizedKernelSGDRegressor(
        max_epochs=2, max_dictionary_size=10, random_state=2, consensus_penalty=0.1,
        network=SimulatedNetwork("ring", drop_rate=0.2),
    )
    cases.append(("auto_rbf_regressor_weights_drops", est, X, y, labels, sw))
    return saved_cases(cases, tmp)


@needs_mpi
def test_kernel_auto_on_mpi_equals_simulation(tmp_path):
    cases = _cases(tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    # (a linear rule through the origin: at 2 passes the affine candidate's
    # held-out loss is the lowest, both here and on MPI)
    expected_kernels = {"auto_linear_classifier": "affine",
                        "auto_rbf_regressor_weights_drops": "rbf"}
    for name, est, _, X, y, g, sw in cases:
        sim = clone(est).fit(X, y, groups=g, sample_weight=sw)
        run = results[name]
        assert sim.kernel_ == run.kernel_ == expected_kernels[name]
        a, b = sim.kernel_selection_, run.kernel_selection_
        assert a["candidates"] == b["candidates"] and a["kernel"] == b["kernel"]
        np.testing.assert_array_equal(a["node_validation_loss"], b["node_validation_loss"])
        np.testing.assert_array_equal(a["mean_validation_loss"], b["mean_validation_loss"])
        # The models, curves and counted bytes (the selection's round first).
        MPI._assert_same_online_fit(sim, run)
        assert np.isnan(run.consensus_error_curve_[0])
        np.testing.assert_array_equal(run.predict(X, groups=g), sim.predict(X, groups=g))
        # The actual MPI traffic of the selection: allgathers of the
        # statistics, of every node's affine gamma and of the affine kernel's
        # largest k(x, x), and one allreduce of the per-node losses, each rank
        # sending to the other rank once per collective.
        assert run.mpi_traffic_["selection"]["messages"] == 4 * 2
