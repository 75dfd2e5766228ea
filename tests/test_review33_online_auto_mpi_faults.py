"""``join_function="auto"`` on the MPI engine: three classes, and heavy
drops (review33).

online32's test (tests/test_online32_linear_mpi.py) checks MPI against the
simulation with drops on a binary rule and without faults on a curved one.
Here the same parity (the linear solve's evaluations, ``t``, ``w``
bit for bit, the counted bytes per round) is checked on a three-class
problem (one linear function per class, drop rate 0.2) and a binary one at
drop rate 0.5.  (Rogue nodes and stragglers are refused by the online
learners' MPI engine by name; the regressor has no "auto".)
"""

import numpy as np
from sklearn.base import clone

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier

from ._helpers.mpi import launch, needs_mpi, saved_cases


def _data(seed, kind):
    rng = np.random.RandomState(seed)
    n_nodes, per, d = 10, 40, 8
    X = rng.normal(size=(n_nodes * per, d))
    g = np.repeat(np.arange(n_nodes), per)
    s = X[:, 0] + 0.3 * X[:, 1]
    if kind == "binary":
        y = (s > 0).astype(int)
    else:
        y = np.digitize(s, [-0.5, 0.5])
    return X, y, g


def _cases(tmp):
    cases = []
    for name, kind, cls, net in [
        ("three_classes_drops", "three", DecentralizedKernelSGDClassifier,
         SimulatedNetwork("ring", drop_rate=0.2)),
        ("binary_heavy_drops", "binary", DecentralizedKernelSGDClassifier,
         SimulatedNetwork("ring", drop_rate=0.5)),
    ]:
        X, y, g = _data(3, kind)
        est = cls(kernel="rbf", gamma=0.5, max_epochs=2, random_state=0,
                  join_function="auto", network=net)
        cases.append((name, est, X, y, g, None))
    return saved_cases(cases, tmp)


@needs_mpi
def test_auto_join_function_on_mpi_equals_simulation_under_faults(tmp_path):
    cases = _cases(tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    for name, est, _, X, y, g, sw in cases:
        sim = clone(est).fit(X, y, groups=g, sample_weight=sw)
        run = results[name]
        a, b = sim.network_linear_gate_, run.network_linear_gate_
        # Intermediate: three classes close at the gate (t 10.7 > 0), the
        # binary rule opens at drop rate 0.5.
        assert a["open"][0] == (name == "binary_heavy_drops"), name
        assert a["evaluations"][0] > 3
        for key in ("evaluations", "alpha_factor", "open", "t"):
            np.testing.assert_array_equal(np.asarray(b[key]), np.asarray(a[key]), err_msg=name)
        for k in range(len(sim.network_linear_coef_)):
            np.testing.assert_array_equal(run.network_linear_coef_[k],
                                          sim.network_linear_coef_[k], err_msg=name)
        cs, cm = sim.network_communication_, run.network_communication_
        np.testing.assert_array_equal(cm.bytes_per_round, cs.bytes_per_round, err_msg=name)
        assert run.n_bytes_sent_ == sim.n_bytes_sent_, name
