"""The network function on MPI when a rank stops answering: its nodes take
no part (``mpiexec -n 3``, the middle rank stopped at round 10).

The reference is the simulated fit in which those nodes stop after their
10th step and are dropped from then on (as in
``tests/test_engines_mpi.py::test_online_sgd_survives_a_stopped_rank``):
the kept nodes' functions are the MPI run's, bit for bit, and the network
function is their mean merged up the breadth-first tree of the ring
without the lost nodes (NumPy, KOMP from fresh projections), counted in
the lost nodes' place as nothing; its bytes are the kept tree's messages.
"""

import json

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

from skfed.online import DecentralizedKernelSGDClassifier

from . import test_engines_mpi as MPI
from ._helpers.mpi import needs_mpi, saved_cases
from .test_online_network_function import komp, rbf

PARAMS = dict(kernel="rbf", gamma=0.5, epsilon=0.05, max_epochs=2, max_dictionary_size=10,
              random_state=0, consensus_penalty=0.1, exchange_every=None)


@needs_mpi
def test_stopped_rank_nodes_are_out_of_the_network_function(tmp_path, monkeypatch):
    rng = np.random.RandomState(4)
    n_nodes, n, d, header = 9, 14, 2, 16   # header: SimulatedNetwork's default
    X = rng.normal(size=(n_nodes * n, d))
    g = np.repeat(np.arange(n_nodes), n)
    y = (X[:, 0] + 0.2 * (g % 3) * X[:, 1] > 0).astype(int)
    est = DecentralizedKernelSGDClassifier(**PARAMS)
    (_, _, directory, *_), = saved_cases([("lost", est, X, y, g, None)], tmp_path)
    stop = 10
    run, lost, kept = MPI._stopped_run(
        3, ["--data", directory, "--estimator", type(est).__name__, "--params",
            json.dumps(PARAMS), stop], 1, n_nodes, tmp_path)
    assert lost == [3, 4, 5]
    reference = MPI._stopped_online_reference(est, X, y, g, lost, stop, monkeypatch)
    for k in kept:
        assert_array_equal(run.dictionaries_[k], reference.dictionaries_[k])
        assert_array_equal(run.dual_coef_[k], reference.dual_coef_[k])
    # The lost nodes are out of the mean; each is a component of its own.
    assert_array_equal(np.flatnonzero(run.network_excluded_), lost)
    assert run.network_component_.tolist() == [0, 0, 0, 1, 2, 3, 0, 0, 0]
    assert all(len(run.network_dictionary_[c]) == 0 for c in (1, 2, 3))
    # NumPy: the breadth-first tree of the ring without 3, 4, 5 (the path
    # 6-7-8-0-1-2 rooted at 0), deepest first.
    parents = {1: 0, 2: 1, 8: 0, 7: 8, 6: 7}
    sub, count, up_bytes = {}, {}, 0
    for node in [2, 6, 1, 7, 8, 0]:
        children = [c for c, p in parents.items() if p == node]
        total = 1 + sum(count[c] for c in children)
        Z = np.vstack([run.dictionaries_[node]] + [sub[c][0] for c in children])
        W = np.vstack([run.dual_coef_[node] / total]
                      + [sub[c][1] * count[c] / total for c in children])
        sub[node], count[node] = komp(Z, W, 0.5, PARAMS["epsilon"],
                                      PARAMS["max_dictionary_size"]), total
        if node in parents:
            # (+ 16: the join's two sums, skfed/online/_join_means.py)
            up_bytes += header + 4 + 16 + len(sub[node][0]) * (d + 1) * 8
    assert count[0] == len(kept)
    D_ref, W_ref = sub[0]
    grid = rng.normal(size=(30, d))
    expected = rbf(grid, D_ref, 0.5) @ W_ref[:, 0]
    # Step 3's mean (the weights step 4's solve starts from) ...
    D_net = run.network_dictionary_[0]
    assert_allclose(rbf(grid, D_net, 0.5) @ run._network_mean_coef[0][:, 0], expected,
                    rtol=1e-7, atol=1e-9)
    # ... then re-solved on the kept nodes' losses only (the stopped rank's
    # nodes are out of its tree), and a node never seen is predicted with it.
    solved = rbf(grid, D_net, 0.5) @ run.network_coef_[0][:, 0]
    assert_allclose(run._network_values(grid, component=0)[:, 0], solved, rtol=1e-12)
    assert_allclose(run.decision_function(grid, groups=[99] * len(grid)), solved,
                    rtol=1e-12)
    # Bytes: the kept tree's 5 edges, a subtree mean up and the root's down,
    # then the solve's rounds (m + 2 float64 up, m down per edge) and the
    # gate's (3 float64 up, an int32 down).
    log = run.network_communication_
    m, rounds = len(D_ref), int(run._network_solve_rounds[0])
    assert rounds >= 2
    solve_bytes = 5 * ((rounds - 1) * (2 * header + (2 * m + 2) * 8) + 2 * header + 3 * 8 + 4)
    assert log.total_bytes == up_bytes + 5 * (header + len(D_ref) * (d + 1) * 8) + solve_bytes
    assert log.total_messages == 2 * 5 * (1 + rounds)
    # The simulation with the same faults, told which nodes were lost,
    # builds the same function and counts the same messages.
    # (the kept nodes' samples: the lost nodes' are never asked for)
    before = reference.network_communication_.total_bytes
    reference._network_round(X, reference._encode_targets(y), g, None, lost=lost, solve=True)
    assert_array_equal(reference._network_solve_rounds, run._network_solve_rounds)
    assert_array_equal(reference._network_solved, run._network_solved)
    assert_array_equal(reference.network_excluded_, run.network_excluded_)
    assert_array_equal(reference.network_dictionary_[0], run.network_dictionary_[0])
    assert_allclose(reference.network_coef_[0], run.network_coef_[0], rtol=1e-12)
    assert reference.network_communication_.total_bytes - before == log.total_bytes
