"""``join_function="auto"`` on the MPI engine (``mpiexec -n 2``).

The root runs the linear solve and its gates (``skfed.online._linear``)
through the same ``LinearData`` questions as the simulation; every rank
answers for its own nodes (their reports at each ``w``, their sketches,
their loss differences with the network function it receives), so the
solve's evaluations, ``w``, the gate and every counted round equal the
simulation's, and the newcomers start alike after it.
"""

import copy

import numpy as np
from sklearn.base import clone

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier

from ._helpers.mpi import launch, needs_mpi, saved_cases


def _data(seed, linear_rule):
    rng = np.random.RandomState(seed)
    n_nodes, per, d = 12, 40, 10
    X = rng.normal(size=(n_nodes * per, d))
    g = np.repeat(np.arange(n_nodes), per)
    score = (X[:, 0] + 0.3 * X[:, 1] if linear_rule
             else X[:, 0] ** 2 + X[:, 1] ** 2 - 1.4)
    return X, (score > 0).astype(int), g


def _cases(tmp):
    cases = []
    # A linear rule (the gate opens), dropped nodes, sample weights.
    X, y, g = _data(0, True)
    fit = g < 10
    w = 0.5 + np.random.RandomState(1).uniform(size=len(y))
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma=0.5, max_epochs=3, random_state=0, join_function="auto",
        network=SimulatedNetwork("ring", drop_rate=0.2))
    cases.append(("linear_open_drops", est, X[fit], y[fit], g[fit], w[fit]))
    # A curved rule (the gate closes it).
    X, y, g = _data(2, False)
    fit = g < 10
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma=0.5, max_epochs=3, random_state=1, join_function="auto")
    cases.append(("curved_closed", est, X[fit], y[fit], g[fit], None))
    return saved_cases(cases, tmp)


@needs_mpi
def test_linear_function_on_mpi_equals_simulation(tmp_path):
    cases = _cases(tmp_path)
    results = launch(2, cases, tmp_path / "n2")
    opened = {}
    for name, est, _, X, y, g, sw in cases:
        sim = clone(est).fit(X, y, groups=g, sample_weight=sw)
        run = results[name]
        a, b = sim.network_linear_gate_, run.network_linear_gate_
        # Intermediate: one solve at 3 alpha, at most 10 iterations.
        assert a["alpha_factor"][0] == 3.0
        assert 3 < a["evaluations"][0] <= 20
        for key in ("evaluations", "alpha_factor", "open"):
            np.testing.assert_array_equal(b[key], a[key])
        # Bit for bit: every node's answer is computed from its own rows
        # alone, wherever they are.
        np.testing.assert_array_equal(b["t"], a["t"])
        np.testing.assert_array_equal(run.network_linear_coef_[0], sim.network_linear_coef_[0])
        cs, cm = sim.network_communication_, run.network_communication_
        np.testing.assert_array_equal(cm.bytes_per_round, cs.bytes_per_round)
        assert (cm.pair_bytes_sparse != cs.pair_bytes_sparse).nnz == 0
        assert run.n_bytes_sent_ == sim.n_bytes_sent_
        # The exchange itself (pickled, in mpi_traffic_): a question and its
        # answer for the sketches, every point of the solve and the gate, and
        # the network function once: 2 (1 + evaluations + 1) + 1 messages.
        traffic = run.mpi_traffic_["network_linear"]
        n_eval = int(a["evaluations"][0])
        assert traffic["messages"] == 2 * (1 + n_eval + 1) + 1
        assert traffic["bytes"] > 0
        # The same newcomers join both alike (w' x where the gate is open).
        Xa, ya, ga = _data(0 if name == "linear_open_drops" else 2, name == "linear_open_drops")
        new = (ga >= 10) & (np.arange(len(ga)) % 40 < 10)
        test = (ga >= 10) & ~new
        joined_sim, joined_run = copy.deepcopy(sim), copy.deepcopy(run)
        joined_sim.add_nodes(Xa[new], ya[new], groups=ga[new])
        joined_run.add_nodes(Xa[new], ya[new], groups=ga[new])
        np.testing.assert_array_equal(joined_run.join_start_, joined_sim.join_start_)
        np.testing.assert_array_equal(joined_run.linear_scale_, joined_sim.linear_scale_)
        np.testing.assert_array_equal(joined_run.predict(Xa[test], groups=ga[test]),
                                      joined_sim.predict(Xa[test], groups=ga[test]))
        # (the join's bytes differ by the feature-mean gate's newcomer round,
        # which the MPI fit does not run: newcomer_gate_ None, as with
        # join_function="network", tests/test_online_gate_mpi.py)
        opened[name] = bool(a["open"][0])
    assert opened == {"linear_open_drops": True, "curved_closed": False}
