"""The join means' sums after an MPI fit equal the simulation's (online34).

The MPI engine's root runs the network-function round on the gathered
state (skfed/engines/_mpi_online.py), so the up messages of node 0's tree
carry the join's two sums there too: on 1 and 2 ranks node 0 holds the
simulation's sums (every node's dictionary size and stream bytes), the
network round's bytes equal the simulation's, and a second join after the
MPI fit (earlier newcomers reporting to node 0) equals the one after the
simulated fit (start, bytes round by round, predictions; the simulated
fit's gate messages aside).
"""

import copy
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from skfed import DecentralizedKernelSGDClassifier, SimulatedNetwork

from ._helpers.mpi import launch, needs_mpi, saved_cases

pytest.importorskip("mpi4py")


def _data(n_nodes=14, n=12):
    rng = np.random.RandomState(5)
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(len(g), 2))
    y = (X[:, 0] + 0.3 * g / n_nodes * X[:, 1] > 0).astype(int)
    return X, y, g


def _newcomers(counts, first, seed):
    rng = np.random.RandomState(seed)
    Xn = rng.normal(size=(sum(counts), 2))
    yn = (Xn[:, 0] > 0).astype(int)
    yn[:2] = [0, 1]
    return Xn, yn, np.repeat(first + np.arange(len(counts)), counts)


def _estimator():
    return DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma=0.7, epsilon=0.0, max_dictionary_size=None, max_epochs=6,
        shuffle=False, alpha=1e-3, consensus_penalty=0.3, random_state=0,
        network=SimulatedNetwork("ring"))


@pytest.fixture(scope="module")
def mpi_runs(tmp_path_factory):
    X, y, g = _data()
    tmp = tmp_path_factory.mktemp("mpi_join_means")
    cases = saved_cases([("clf", _estimator(), X, y, g, None)], tmp / "data")
    runs = {n: launch(n, cases, tmp / f"ranks{n}")["clf"] for n in (1, 2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = clone(_estimator()).fit(X, y, groups=g)
    return runs, sim


@needs_mpi
@pytest.mark.parametrize("n_ranks", [1, 2])
def test_mpi_fit_holds_the_simulations_sums_and_joins_alike(mpi_runs, n_ranks):
    runs, sim = mpi_runs
    run = runs[n_ranks]
    assert run.mpi_n_ranks_ == n_ranks
    K = len(run.nodes_)
    assert run._join_sums == sim._join_sums
    assert run._join_sums[:2] == (K, K)
    assert run._join_sums[2] == sum(len(D) for D in run.dictionaries_)
    assert run._join_sums[3] == run.communication_.total_bytes
    assert run.network_communication_.total_bytes == sim.network_communication_.total_bytes
    joined = {}
    for name, est in (("mpi", run), ("sim", sim)):
        est = copy.deepcopy(est)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for first, seed, counts in ((100, 11, [6, 7, 9]), (200, 12, [2, 8])):
                est.add_nodes(*_newcomers(counts, first, seed)[:2],
                              groups=_newcomers(counts, first, seed)[2])
        joined[name] = est
    a, b = joined["mpi"], joined["sim"]
    # The simulated fit's feature-mean gate (which the MPI fit does not run,
    # skfed/online/_join_gate.py) sends its messages with the first join,
    # in rounds of their own, and stays closed: both join by the graph.
    assert run.newcomer_rule_ == sim.newcomer_rule_ == "graph"
    gate = b.newcomer_gate_["n_bytes"]
    spent = np.cumsum(b.join_communication_.bytes_per_round)
    n_gate = int(np.searchsorted(spent, gate)) + 1
    assert spent[n_gate - 1] == gate
    assert a.join_communication_.total_bytes == b.join_communication_.total_bytes - gate > 0
    np.testing.assert_array_equal(a.join_communication_.bytes_per_round,
                                  b.join_communication_.bytes_per_round[n_gate:])
    np.testing.assert_array_equal(a.join_start_, b.join_start_)
    Xt, _, gt = _newcomers([20, 20], 200, 13)
    np.testing.assert_allclose(a.decision_function(Xt, groups=gt),
                               b.decision_function(Xt, groups=gt), rtol=1e-9, atol=1e-9)
