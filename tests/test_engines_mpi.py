"""skfed on MPI: the decentralized fits with their nodes spread over ranks.

``mpiexec -n 2`` and ``-n 4`` runs on this machine (MPICH from the ``mpi``
extra) of every case below are compared with the simulated ``fit`` on the
pooled data: the same models, learned graph, iteration counts and byte
counts (skfed's model of the protocol), and MPI traffic that carries at
least what the model counts.  The schedule replay (xorshift clocks, peer
sampling, Frank-Wolfe messages) is checked against the Cython solvers
without MPI.
"""

import importlib
import pickle
import sys

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone

from skfed.boosting import (
    DecentralizedBoostingClassifier,
    PersonalizedLinearClassifier,
    fw_message_bytes,
)
from skfed.engines._mpi_comm import Traffic, rand_int, ranks_of_blocks, sample_peers
from skfed.engines._mpi_boosting import _fw_message, _replay_fw
from skfed.engines._partitions import partition_files, save_partitions
from skfed.graph import CollaborationGraphLearner
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

from ._helpers.mpi import (
    LAUNCH_TIMEOUT,
    assert_same_graph,
    launch,
    needs_mpi,
    run_ranks,
    saved_cases,
)


# ------------------------------------------------------------------ data
def _clustered_moons(n_nodes, n_per_node, seed, n_classes=2):
    """Two clusters of nodes with opposite labels on the same moons (or blobs)."""
    from sklearn.datasets import make_blobs, make_moons

    rng = np.random.RandomState(seed)
    if n_classes == 2:
        X, y = make_moons(n_nodes * n_per_node, noise=0.25, random_state=seed)
    else:
        X, y = make_blobs(n_nodes * n_per_node, centers=n_classes, random_state=seed)
    groups = np.repeat(np.arange(n_nodes), n_per_node)
    flip = groups % 2 == 1
    y = np.where(flip, (y + 1) % n_classes, y)
    X = X + 0.05 * rng.standard_normal(X.shape)
    return X, y, groups


def _cases(tmp):
    """(name, estimator, data directory, X, y, groups, sample_weight) of every MPI case."""
    cases = []
    X, y, g = _clustered_moons(8, 30, 0)
    est = DecentralizedBoostingClassifier(n_estimators=12, max_iter=160, random_state=0,
                                          join_neighbours="graph")  # (MPI: no gate)
    cases.append(("dada_learned", est, X, y, g, None))
    X, y, g = _clustered_moons(8, 25, 1, n_classes=3)
    X = X.astype(np.float32)
    sw = np.random.RandomState(1).uniform(0.5, 2.0, size=len(y))
    labels = np.array([f"n{k}" for k in range(8)])[g]
    # The kernel graph models, re-learned graph: every phase counts a model
    # once per pair over the whole fit.
    est = DecentralizedBoostingClassifier(
        n_estimators=9, max_iter=120, max_neighbors=2, kappa=2, random_state=3,
        network=SimulatedNetwork("ring", drop_rate=0.2), graph_update_every=30,
    )
    cases.append(("dada_ring_drops_multiclass_float32", est, X, y, labels, sw))
    # The boosting models as the graph signal (graph_signal="boosting").
    X, y, g = _clustered_moons(8, 30, 7)
    est = DecentralizedBoostingClassifier(n_estimators=12, max_iter=160, random_state=1,
                                          graph_signal="boosting", graph_update_every=40,
                                          join_neighbours="graph")
    cases.append(("dada_boosting_signal", est, X, y, g, None))
    X, y, g = _clustered_moons(8, 20, 2)
    oracle = (g[:, None] % 2 == g[None, :] % 2)[::20, ::20].astype(float)
    np.fill_diagonal(oracle, 0)
    est = DecentralizedBoostingClassifier(
        n_estimators=10, graph=oracle, max_iter=200, communication_budget=15_000,
        random_state=5, stump_placement="global_range", join_neighbours="graph",
    )
    cases.append(("dada_fixed_graph_budget", est, X, y, g, None))
    X, y, g = _clustered_moons(8, 20, 3, n_classes=3)
    sw = np.random.RandomState(3).uniform(0.5, 2.0, size=len(y))
    est = PersonalizedLinearClassifier(
        mu=0.5, max_iter=150, graph_update_every=30, max_neighbors=3, random_state=4,
        join_neighbours="graph", network=SimulatedNetwork("erdos_renyi", topology_params={"p": 0.6}, drop_rate=0.1),
    )
    cases.append(("perso_lin_learned_drops", est, X, y, g, sw))
    # Perso-lin's own peer scores (its mean logistic loss), re-learned graph.
    X, y, g = _clustered_moons(8, 20, 6)
    est = PersonalizedLinearClassifier(
        mu=0.5, max_iter=120, graph_update_every=30, max_neighbors=3, peer_scoring=True,
        random_state=9, join_neighbours="graph",
    )
    cases.append(("perso_lin_peer_scoring", est, X, y, g, None))
    X, y, g = _clustered_moons(8, 15, 4, n_classes=3)
    est = DecentralizedKernelSGDClassifier(kernel="rbf", max_epochs=2, max_dictionary_size=12,
                                           random_state=6, consensus_penalty=0.1)
    cases.append(("online_sgd_multiclass", est, X, y, g, None))
    X, _, g = _clustered_moons(9, 12, 5)
    y = X[:, 0] * (1 + g % 2) + np.sin(X[:, 1])
    est = DecentralizedKernelSGDRegressor(
        kernel="rbf", max_epochs=2, max_dictionary_size=8, exchange_every=3, average=0.5,
        random_state=7, consensus_penalty=0.1,
        network=SimulatedNetwork("ring", drop_rate=0.2),
    )
    cases.append(("online_sgd_regressor_copies_drops", est, X, y, g, None))
    # The graph learner on its own: node k's data is its model and its loss.
    rng = np.random.RandomState(8)
    models = np.vstack([rng.normal(k % 3, 0.4, size=5) for k in range(10)])
    losses = rng.uniform(0, 1, size=10)
    est = CollaborationGraphLearner(
        mu=4.0, kappa=3, max_neighbors=3, max_iter=400, random_state=8,
        network=SimulatedNetwork("erdos_renyi", topology_params={"p": 0.7}, drop_rate=0.1),
    )
    cases.append(("graph_learner", est, models, losses, np.arange(10), None))
    return saved_cases(cases, tmp)


@pytest.fixture(scope="module")
def mpi_cases(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mpi")
    cases = _cases(tmp)
    simulated = {}
    for name, est, _, X, y, g, sw in cases:
        if isinstance(est, CollaborationGraphLearner):
            simulated[name] = clone(est).fit(X, losses=y)
            continue
        simulated[name] = clone(est).fit(X, y, groups=g, sample_weight=sw)
    return tmp, cases, simulated


def _assert_same_online_fit(sim, run):
    assert run.n_iter_ == sim.n_iter_
    np.testing.assert_array_equal(run.n_steps_, sim.n_steps_)
    np.testing.assert_array_equal(run.model_order_curve_, sim.model_order_curve_)
    np.testing.assert_array_equal(run.komp_error_, sim.komp_error_)
    assert run.eta0_ == sim.eta0_ and run.step_bound_ == sim.step_bound_
    np.testing.assert_array_equal(run.gamma_, sim.gamma_)
    for a, b in zip(run.dictionaries_, sim.dictionaries_):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(run.dual_coef_, sim.dual_coef_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(run.consensus_error_curve_, sim.consensus_error_curve_,
                               rtol=1e-10, equal_nan=True)
    _assert_same_counts(sim, run)


def _assert_same_counts(sim, run):
    cs, cm = sim.communication_, run.communication_
    assert cm.total_bytes == cs.total_bytes and cm.total_messages == cs.total_messages
    assert (cm.pair_bytes_sparse != cs.pair_bytes_sparse).nnz == 0
    assert (cm.pair_messages_sparse != cs.pair_messages_sparse).nnz == 0
    np.testing.assert_array_equal(cm.bytes_per_round, cs.bytes_per_round)
    assert run.n_bytes_sent_ == sim.n_bytes_sent_


def _assert_same_fit(sim, run):
    if isinstance(sim, (DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor)):
        return _assert_same_online_fit(sim, run)
    if isinstance(sim, CollaborationGraphLearner):
        assert run.n_iter_ == sim.n_iter_
        assert (run.collaboration_graph_ != sim.collaboration_graph_).nnz == 0
        assert sim.collaboration_graph_.nnz > 0
        np.testing.assert_array_equal(run.degree_, sim.degree_)
        np.testing.assert_array_equal(run.nodes_, sim.nodes_)
        assert run.n_features_in_ == sim.n_features_in_
        np.testing.assert_allclose(run.objective_curve_, sim.objective_curve_, rtol=1e-10)
        return _assert_same_counts(sim, run)
    assert run.n_iter_ == sim.n_iter_
    assert run.n_updates_ == sim.n_updates_
    assert run.n_graph_updates_ == sim.n_graph_updates_
    np.testing.assert_array_equal(run.nodes_, sim.nodes_)
    np.testing.assert_array_equal(run.classes_, sim.classes_)
    if hasattr(sim, "feature_range_"):
        np.testing.assert_array_equal(run.feature_range_, sim.feature_range_)
        np.testing.assert_array_equal(run.stump_thresholds_, sim.stump_thresholds_)
    assert run.coef_.dtype == sim.coef_.dtype
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    np.testing.assert_array_equal(run.intercept_, sim.intercept_)
    np.testing.assert_array_equal(run.confidence_, sim.confidence_)
    assert getattr(run, "graph_signal_", None) == getattr(sim, "graph_signal_", None)
    if getattr(sim, "graph_signal_", None) == "kernel":
        np.testing.assert_array_equal(run.kernel_features_, sim.kernel_features_)
    assert_same_graph(run, sim)
    assert run.objective_ == sim.objective_
    np.testing.assert_allclose(run.objective_curve_, sim.objective_curve_, rtol=1e-10)
    _assert_same_counts(sim, run)


@needs_mpi
@pytest.mark.parametrize("n_ranks", [2, 4])
def test_fits_on_mpi_equal_simulation(mpi_cases, n_ranks):
    tmp, cases, simulated = mpi_cases
    # On two ranks, rank 1 is slow (it waits before every message): the
    # schedule is agreed, so only the time changes.
    faults = {"slow": {1: 2e-4}} if n_ranks == 2 else None
    results = launch(n_ranks, cases, tmp / f"n{n_ranks}", faults)
    for name, *_ in cases:
        sim, run = simulated[name], results[name]
        _assert_same_fit(sim, run)
        assert run.mpi_n_ranks_ == n_ranks
        traffic = run.mpi_traffic_
        if name == "graph_learner":
            # Each graph step's peer requests and answers, and its new
            # weights to every other rank.
            assert traffic["peer_request"]["messages"] == traffic["peer_answer"]["messages"] > 0
            assert (traffic["weights"]["messages"] + traffic["graph_update"]["messages"]
                    <= run.n_iter_ * (n_ranks - 1))
            continue
        if name.startswith("online"):
            # Every round, each rank sends its stepped nodes' dictionaries to
            # each rank owning a neighbour: one message per neighbouring rank.
            assert traffic["round"]["messages"] >= run.n_iter_
            continue
        # Every model update that crossed ranks went as one MPI message
        # carrying at least what the byte model counts: a Frank-Wolfe
        # coordinate and step per problem (Dada), the whole model (Perso-lin).
        n_problems = max(1, run.coef_.ndim - 1)
        if isinstance(run, DecentralizedBoostingClassifier):
            least = fw_message_bytes(run.n_base_predictors_, n_problems)
        else:
            least = 8 * n_problems * (run.n_features_in_ + 1)
        assert traffic["model_update"]["messages"] > 0
        assert traffic["model_update"]["bytes"] >= traffic["model_update"]["messages"] * least
        # Every update is told to every other rank, once: the model update
        # to the ranks holding a graph neighbour, a "step" message to the
        # others (so that all notice a rank that stops answering).
        told = traffic["model_update"]["messages"] + traffic.get("step", {}).get("messages", 0)
        assert told == run.n_updates_ * (n_ranks - 1)
        if run.n_graph_updates_ or sim.graph is None:
            assert traffic["peer_request"]["messages"] == traffic["peer_answer"]["messages"]
            assert traffic["peer_request"]["messages"] > 0
        assert ("extremes" in traffic) == hasattr(sim, "feature_range_")
    # The fitted estimators predict like the simulated ones.
    name, _, _, X, y, g, _ = cases[0]
    np.testing.assert_array_equal(results[name].predict(X, groups=g),
                                  simulated[name].predict(X, groups=g))


# ----------------------------------------------- in one process (1 rank)
@needs_mpi
def test_single_rank_in_process_equals_simulation(mpi_cases):
    from skfed.engines import mpi

    _, cases, simulated = mpi_cases
    name, est, directory, *_ = cases[1]
    _assert_same_fit(simulated[name], mpi.fit(est, directory))


@needs_mpi
def test_callable_loader_equals_files(mpi_cases):
    from skfed.engines import mpi

    _, cases, simulated = mpi_cases
    name, est, _, X, y, g, _ = cases[0]

    def load(label):
        rows = g == label
        return X[rows], y[rows]

    _assert_same_fit(simulated[name], mpi.fit(est, load, nodes=np.unique(g)))
    with pytest.raises(ValueError, match="needs nodes="):
        mpi.fit(est, load)
    with pytest.raises(TypeError, match="must return"):
        mpi.fit(est, lambda label: X, nodes=np.unique(g))
    # The graph learner: node k's model and loss from the callable.
    name, est, _, models, losses, *_ = next(c for c in cases if c[0] == "graph_learner")
    _assert_same_fit(simulated[name],
                     mpi.fit(est, lambda k: (models[k], losses[k]), nodes=np.arange(10)))
    with pytest.raises(ValueError, match="Node 3 must hold one model"):
        mpi.fit(est, lambda k: (models[k: k + 1 + (k == 3)], losses[k]), nodes=np.arange(10))


@needs_mpi
def test_unsupported_settings_raise_naming_them(mpi_cases):
    from skfed.engines import mpi

    _, cases, _ = mpi_cases
    directory = cases[0][2]
    with pytest.raises(TypeError, match="MPI engine runs"):
        mpi.fit(DecentralizedBoostingClassifier, directory)
    with pytest.raises(ValueError, match="stump_placement"):
        mpi.fit(DecentralizedBoostingClassifier(stump_placement="quantile"), directory)
    with pytest.raises(ValueError, match="group_column=None"):
        mpi.fit(DecentralizedBoostingClassifier(group_column=0), directory)
    with pytest.raises(ValueError, match="unknown kinds"):
        mpi.fit(DecentralizedBoostingClassifier(), directory, faults={"crash": {0: 1}})
    with pytest.raises(ValueError, match="stop every rank"):
        mpi.fit(DecentralizedBoostingClassifier(), directory, faults={"stop": {0: 5}})
    with pytest.raises(ValueError, match=r"ranks \[3\] outside the 1 ranks"):
        mpi.fit(DecentralizedBoostingClassifier(), directory, faults={"slow": {3: 0.1}})
    with pytest.raises(ValueError, match="rogue_fraction"):
        mpi.fit(DecentralizedBoostingClassifier(
            network=SimulatedNetwork(rogue_fraction=0.2)), directory)
    from skfed.privacy import DifferentialPrivacy

    with pytest.raises(ValueError, match=r"does not run DecentralizedBoostingClassifier\(privacy"):
        mpi.fit(DecentralizedBoostingClassifier(privacy=DifferentialPrivacy(1.0)), directory)
    online_directory = next(c[2] for c in cases if c[0] == "online_sgd_multiclass")
    with pytest.raises(ValueError, match=r"does not run DecentralizedKernelSGDClassifier"):
        mpi.fit(DecentralizedKernelSGDClassifier(privacy=DifferentialPrivacy(1.0)),
                online_directory)
    # (consensus_penalty="auto", the default, runs: test_engines_mpi_online_coupling.py)


def test_missing_mpi4py_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.delitem(sys.modules, "skfed.engines.mpi", raising=False)
    with pytest.raises(ImportError, match=r'pip install "mpi4py>=[^"]+" "mpich>=[^"]+"'):
        importlib.import_module("skfed.engines.mpi")


# ------------------------------------------- the replayed schedule, no MPI
def test_xorshift_replay_is_the_solvers_wake_up_order():
    from skfed._core._graph_fast import graph_steps

    K, n_steps = 7, 200
    rng = np.random.RandomState(0)
    models = rng.standard_normal((K, 3))
    ring = np.zeros((K, K), dtype=bool)
    for k in range(K):
        ring[k, (k + 1) % K] = ring[(k + 1) % K, k] = ring[k, (k + 3) % K] = True
        ring[(k + 3) % K, k] = True
    csr = sparse.csr_matrix(ring)
    topologies = [(np.zeros(K + 1, np.intp), np.zeros(0, np.intp), True),
                  (csr.indptr.astype(np.intp), csr.indices.astype(np.intp), False)]
    for indptr, indices, complete in topologies:
        clock = np.array([12345], dtype=np.uint32)
        states = np.arange(1, K + 1, dtype=np.uint32) * 7919
        from skfed.network import SimulatedNetwork as Net

        counter = Net().start(K).counter
        trace_node = np.zeros(n_steps, dtype=np.intp)
        trace_peers = np.zeros(n_steps * 3, dtype=np.intp)
        graph_steps(models, np.zeros(K), np.zeros(K * K), np.full(K * K, -1, np.intp),
                    np.zeros(K, np.intp), np.zeros(K), indptr, indices, complete,
                    1.0, 1.0, 1.0, 1e-3, 3, n_steps, clock.copy(), states.copy(),
                    np.zeros(0, dtype=np.uint8), np.full(K, 8, dtype=np.int64), counter, False,
                    -1, 0, 0.0, np.zeros(0), trace_node, trace_peers, np.zeros(0))
        replay_clock = clock.copy()
        replay_states = states.copy()
        for it in range(n_steps):
            k = rand_int(K, replay_clock)
            assert k == trace_node[it]
            peers = sample_peers(indptr, indices, complete, K, k, 3, replay_states, k)
            n = len(peers)
            assert peers == trace_peers[it * 3: it * 3 + n].tolist()
            if not complete:
                assert set(peers) <= set(np.flatnonzero(ring[k]).tolist())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_frank_wolfe_message_replays_the_solvers_update(dtype):
    rng = np.random.RandomState(0)
    beta = 3.0
    dtype = np.dtype(dtype)
    for gamma in [1.0, 0.5, 2 * 8 / (37 + 2 * 8), 1e-3]:
        old = (rng.uniform(-1, 1, size=6) * beta / 6).astype(dtype)
        j, s = 4, -beta
        # What _boosting_fast._fw_node / _fw_public compute, by hand.
        new = (old.astype(np.float64) * (1 - gamma)).astype(dtype)
        new[j] = dtype.type(float(new[j]) + gamma * s)
        message = _fw_message(old.astype(np.float64), new, gamma, beta, dtype)
        assert message == (j, s)
        public = old[None, None, :].copy()
        _replay_fw(public, 0, 0, message, gamma, dtype)
        np.testing.assert_array_equal(public[0, 0], new)


def test_blocks_and_traffic_bookkeeping(tmp_path):
    owner, bounds = ranks_of_blocks(10, 4)
    np.testing.assert_array_equal(np.bincount(owner), [2, 3, 3, 2])
    assert bounds.tolist() == [0, 2, 5, 8, 10]
    merged = Traffic.merge([{"a": {"bytes": 3, "messages": 1}},
                            {"a": {"bytes": 4, "messages": 2}, "b": {"bytes": 1, "messages": 1}}])
    assert merged == {"a": {"bytes": 7, "messages": 3}, "b": {"bytes": 1, "messages": 1}}
    X = np.arange(12.0).reshape(6, 2)
    save_partitions(X, np.arange(6) % 2, np.array(["b", "a", "b", "c", "a", "c"]), tmp_path)
    files = partition_files(tmp_path)
    assert sorted(files) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="No other-<i>.npz"):
        partition_files(tmp_path, prefix="other")


# ------------------------------------------------------------------ faults
def _cli(n_ranks, args, tmp, timeout=LAUNCH_TIMEOUT):
    return run_ranks(n_ranks, ["-m", "skfed.engines.mpi", *args], tmp, timeout)


def _stopped_run(n_ranks, args, stopped, n_nodes, tmp, timeout="3"):
    """Run the command line with rank ``stopped`` stopping (``args`` ends with its round).

    Checks that every process ended with status 0 and the lost rank was
    reported; returns the fitted estimator and the lost and kept nodes.
    """
    out = tmp / "stopped.pkl"
    proc = _cli(n_ranks, [*args[:-1], "--output", str(out), "--timeout", timeout,
                          "--stop-rank", f"{stopped}:{args[-1]}"], tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "stopped answering" in proc.stderr
    with open(out, "rb") as f:
        run = pickle.load(f)
    owner, _ = ranks_of_blocks(n_nodes, n_ranks)
    lost = np.flatnonzero(owner == stopped).tolist()
    assert run.mpi_lost_nodes_.tolist() == lost
    return run, lost, [k for k in range(n_nodes) if k not in lost]


@needs_mpi
def test_command_line_and_a_hung_rank(mpi_cases):
    import json
    import time

    tmp, cases, simulated = mpi_cases
    name, est, directory, *_ = next(c for c in cases if c[0] == "online_sgd_multiclass")
    params = json.dumps({k: v for k, v in est.get_params().items()
                         if k in ("kernel", "max_epochs", "max_dictionary_size", "random_state",
                                  "consensus_penalty")})
    out = tmp / "cli.pkl"
    proc = _cli(2, ["--data", directory, "--estimator", type(est).__name__,
                    "--params", params, "--output", str(out), "--timeout", "60"], tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["n_ranks"] == 2 and summary["n_nodes"] == 8
    with open(out, "rb") as f:
        _assert_same_fit(simulated[name], pickle.load(f))
    # A rank of Dada that stops answering while the ranks set the run up
    # (its 3rd message: its nodes' feature extremes): the other gives up
    # after --timeout and the command line aborts every rank, so every
    # process ends.  (Once the run is set up, a lost rank is survived: see
    # test_dada_and_perso_lin_survive_a_stopped_rank.)
    _, dada, dada_directory, *_ = cases[0]
    dada_params = json.dumps({k: v for k, v in dada.get_params().items()
                              if k in ("n_estimators", "max_iter", "random_state",
                                       "graph_signal")})
    start = time.monotonic()
    proc = _cli(2, ["--data", dada_directory, "--params", dada_params, "--hang-rank", "1:2",
                    "--timeout", "3", "--max-time", "120"], tmp)
    assert proc.returncode != 0
    assert "MPITimeoutError" in proc.stderr and "aborting every rank" in proc.stderr, (
        proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "rank 0 waited more than 3 s" in proc.stderr
    assert "feature extremes from rank 1" in proc.stderr
    assert time.monotonic() - start < 100
    # The same rank hanging after its 20th message, once the run is set up
    # (in the graph learning): rank 0 notices, goes on without rank 1's
    # nodes and returns the fit; the command line then ends both processes.
    out = tmp / "hung.pkl"
    start = time.monotonic()
    proc = _cli(2, ["--data", dada_directory, "--params", dada_params, "--hang-rank", "1:20",
                    "--timeout", "3", "--max-time", "120", "--output", str(out)], tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "stopped answering" in proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["lost_nodes"] == ["4", "5", "6", "7"]
    with open(out, "rb") as f:
        run = pickle.load(f)
    assert run.mpi_lost_nodes_.tolist() == [4, 5, 6, 7] and run.n_iter_ == dada.max_iter
    assert time.monotonic() - start < 100


@needs_mpi
@pytest.mark.parametrize("stopped", [2, 0])
def test_online_sgd_survives_a_stopped_rank(mpi_cases, monkeypatch, stopped):
    """A rank that stops answering at round 10: the others go on without its nodes.

    Rank 0 may be the one (rank 1 then returns the fit).  The reference is the simulated fit in which those nodes stop after their
    10th step (they still answer in round 10 with the state of round 9, as
    the other ranks' copies do) and are dropped from round 11 on.
    """
    import json

    tmp, cases, _ = mpi_cases
    name, est, directory, X, y, g, _ = next(c for c in cases if c[0] == "online_sgd_multiclass")
    params = json.dumps({k: v for k, v in est.get_params().items()
                         if k in ("kernel", "max_epochs", "max_dictionary_size", "random_state",
                                  "consensus_penalty")})
    run, lost, kept = _stopped_run(
        3, ["--data", directory, "--estimator", type(est).__name__, "--params", params, 10],
        stopped, 8, tmp)
    stop = 10
    reference = _stopped_online_reference(est, X, y, g, lost, stop, monkeypatch)
    assert run.n_iter_ == reference.n_iter_
    for k in kept:
        np.testing.assert_array_equal(run.dictionaries_[k], reference.dictionaries_[k])
        np.testing.assert_array_equal(run.dual_coef_[k], reference.dual_coef_[k])
        assert run.n_steps_[k] == reference.n_steps_[k]
    np.testing.assert_allclose(run.consensus_error_curve_, reference.consensus_error_curve_,
                               rtol=1e-10, equal_nan=True)
    # The live nodes' messages are all counted; the stopped rank's counts are lost.
    ps, pm = reference.communication_.pair_bytes, run.communication_.pair_bytes
    np.testing.assert_array_equal(pm[np.ix_(kept, kept)], ps[np.ix_(kept, kept)])
    # (With copies refreshed once per pass, a node stopped at step 10 may not
    # have published anything yet, so the totals can also be equal.)
    assert (pm <= ps).all() and pm.sum() <= ps.sum()
    assert all(len(run.dictionaries_[k]) == 0 for k in lost)


def _stopped_online_reference(est, X, y, g, lost, stop, monkeypatch):
    """The simulated online fit whose ``lost`` nodes stop after ``stop`` steps.

    Every pass is made up front (tiny data), then the lost nodes' orders
    are cut after their first ``stop`` steps and they are dropped from the
    rounds after it; the stopped nodes publish their copies on their full
    pass length, as on MPI (the truncation must not change when they
    publish).
    """
    from skfed.network import ActiveRounds

    reference = clone(est)
    make_queues = reference._make_queues

    def truncated(codes, epochs, shuffle):
        orders = make_queues(codes, epochs, shuffle)
        orders.fill(int(orders.lengths.max()))
        orders.queue_end[lost] = orders.position[lost] + stop
        orders.lengths = (orders.queue_end - orders.position).astype(np.int64)
        return orders

    read = ActiveRounds.read
    drawn = [0]

    def dropped_after(self, n_rounds):
        active = read(self, n_rounds)
        rounds = drawn[0] + np.arange(active.shape[0])
        active[np.ix_(rounds > stop, lost)] = 0
        drawn[0] += active.shape[0]
        return active

    exchange_period = reference._exchange_period
    samples = np.unique(g, return_counts=True)[1]
    monkeypatch.setattr(reference, "_make_queues", truncated)
    monkeypatch.setattr(reference, "_exchange_period",
                        lambda n_features, pass_lengths: exchange_period(n_features, samples))
    monkeypatch.setattr(ActiveRounds, "read", dropped_after)
    return reference.fit(X, y, groups=g)


def _simulated_with_lost_nodes(est, X, y, g, sw, lost, stop, monkeypatch):
    """The simulated fit in which nodes ``lost`` drop out for good at model iteration ``stop``.

    The simulation's own fault model: a dropped node's wake-ups do nothing
    (the ``offline`` masks of the model and graph steps), from model
    iteration ``stop`` on and in every graph phase after it (the graph
    learner on its own: from its iteration ``stop`` on); its neighbours
    keep its last model, and Dada's peer scores of its links that only it
    could compute (on its own data) are 0.  Which node wakes at a step is read from the
    solvers' clock, replayed (``rand_int`` equals the Cython stream, tested
    above).
    """
    from skfed.boosting import _BoostingState, _LinearState
    from skfed.graph import _GraphRunner

    K = len(np.unique(g))
    done = [0]

    def dead_steps(clock, n_steps, first):
        replay = clock.copy()
        woke = np.array([rand_int(K, replay) for _ in range(n_steps)], dtype=np.intp)
        return np.isin(woke, lost) & (first + np.arange(n_steps) >= stop)

    def with_dead(offline, dead):
        if not dead.any():
            return offline
        return np.maximum(offline, dead).astype(np.uint8) if offline.size else dead.astype(
            np.uint8)

    for cls in (_BoostingState, _LinearState):
        original = cls.async_steps

        def async_steps(self, t, n_steps, clock, node_state, offline, *args, _original=original):
            offline = with_dead(offline, dead_steps(clock, n_steps, done[0]))
            out = _original(self, t, n_steps, clock, node_state, offline, *args)
            done[0] += out[0]
            return out

        monkeypatch.setattr(cls, "async_steps", async_steps)
    # Dada's peer scores: a node scores its links on its own data, so once it
    # is lost nobody computes its rows; the survivors use 0 (the MPI driver's
    # rows of a lost rank), which is what the simulation is told here.
    original_scores = _BoostingState.peer_scores

    def peer_scores(self, runner):
        data = original_scores(self, runner)
        if done[0] > stop:
            # e_kl = c_k (...): a zero confidence in the scorer's data is a 0 score.
            confidence = np.array(data[4])
            confidence[lost] = 0.0
            data = data[:4] + (confidence,) + data[5:]
        return data

    monkeypatch.setattr(_BoostingState, "peer_scores", peer_scores)
    graph_offline = _GraphRunner._offline

    standalone = isinstance(est, CollaborationGraphLearner)

    def offline_graph(self, n_steps):
        offline = graph_offline(self, n_steps)
        if standalone:
            return with_dead(offline, dead_steps(self.clock, n_steps, 0))
        if done[0] <= stop:
            return offline
        return with_dead(offline, dead_steps(self.clock, n_steps, stop))

    monkeypatch.setattr(_GraphRunner, "_offline", offline_graph)
    if standalone:
        return clone(est).fit(X, losses=y)
    return clone(est).fit(X, y, groups=g, sample_weight=sw)


@needs_mpi
@pytest.mark.parametrize("n_ranks", [2, 4])
def test_dada_and_perso_lin_survive_a_stopped_rank(mpi_cases, tmp_path, monkeypatch, n_ranks):
    """A rank stops answering mid-fit: the others drop its nodes, as the simulation drops them.

    Dada learns and re-learns its graph every 8 iterations; its rank stops
    in the middle of a model block (iteration 52), so the graph phases after
    it sample lost peers; Perso-lin learns its graph once, its rank stops at
    iteration 57.  The ranks holding a graph neighbour of a lost node heard
    its every update and loss, and pool these copies: the whole fit (every
    node's model, the graphs, the curve) equals the simulated one in which
    those nodes drop out at that iteration, but the model of a lost node
    none of the survivors heard.  On four ranks, rank 0 is the
    one that stops: rank 1 returns the fit.  Counts: the live nodes'
    messages to each other are all counted, nothing is counted to or from
    a lost node after it is lost.
    """
    import json
    import time

    X, y, g = _clustered_moons(8, 30, 0)
    dada = DecentralizedBoostingClassifier(n_estimators=12, max_iter=160, random_state=0,
                                          join_neighbours="graph")  # (MPI: no gate)
    X2, y2, g2 = _clustered_moons(8, 20, 3, n_classes=3)
    perso = PersonalizedLinearClassifier(mu=0.5, max_iter=150, max_neighbors=3, random_state=4,
                                         join_neighbours="graph")  # (MPI: no gate)
    stopped = n_ranks - 1 if n_ranks == 2 else 0
    for est, X_, y_, g_, stop in [(dada, X, y, g, 52), (perso, X2, y2, g2, 57)]:
        name = type(est).__name__
        directory = tmp_path / name
        save_partitions(X_, y_, g_, directory)
        params = {k: v for k, v in est.get_params().items()
                  if k in ("n_estimators", "max_iter", "random_state", "mu", "max_neighbors",
                           "graph_signal")}
        start = time.monotonic()
        run, lost, kept = _stopped_run(
            n_ranks, ["--data", str(directory), "--estimator", name, "--params",
                      json.dumps(params), stop], stopped, 8, tmp_path, timeout="4")
        assert time.monotonic() - start < LAUNCH_TIMEOUT / 2
        with monkeypatch.context() as patch:
            reference = _simulated_with_lost_nodes(est, X_, y_, g_, None, lost, stop, patch)
        assert run.n_iter_ == reference.n_iter_ == est.max_iter
        assert run.n_updates_ == reference.n_updates_
        assert run.n_graph_updates_ == reference.n_graph_updates_
        # The lost nodes really dropped out: fewer updates than without the fault.
        assert reference.n_updates_ < clone(est).fit(X_, y_, groups=g_).n_updates_
        assert_same_graph(run, reference)
        # Perso-lin's graph does not change after the loss: a lost node
        # without a graph neighbour on a live rank was heard by no one, and
        # keeps the root's copy of the last graph phase (none on four ranks).
        graph = reference.collaboration_graph_
        unheard = [k for k in lost if isinstance(est, PersonalizedLinearClassifier)
                   and not np.isin(graph.indices[graph.indptr[k]: graph.indptr[k + 1]],
                                   kept).any()]
        assert len(unheard) <= (1 if n_ranks == 2 else 0)
        rows = [k for k in range(8) if k not in unheard]
        np.testing.assert_array_equal(run.coef_[rows], reference.coef_[rows])
        np.testing.assert_array_equal(run.intercept_[rows], reference.intercept_[rows])
        np.testing.assert_allclose(run.objective_curve_, reference.objective_curve_,
                                   rtol=1e-10)
        if not unheard:
            assert run.objective_ == pytest.approx(reference.objective_, rel=1e-10)
        ps = reference.communication_.pair_bytes
        pm = run.communication_.pair_bytes
        np.testing.assert_array_equal(pm[np.ix_(kept, kept)], ps[np.ix_(kept, kept)])
        assert (pm <= ps).all() and pm.sum() < ps.sum()


@needs_mpi
def test_graph_learner_survives_a_stopped_rank_0(mpi_cases, tmp_path, monkeypatch):
    """Rank 0 of four stops at iteration 150 of the graph learner: rank 1 returns the graph.

    The models and losses are fixed inputs every rank holds once shared, so
    a step that samples a lost peer computes what the simulation computes
    (without asking it): the whole graph equals the simulated one in which
    rank 0's nodes drop out at iteration 150.
    """
    import json

    _, cases, _ = mpi_cases
    name, est, directory, models, losses, g, _ = next(c for c in cases if c[0] == "graph_learner")
    params = {k: v for k, v in est.get_params().items()
              if k in ("mu", "kappa", "max_neighbors", "max_iter", "random_state")}
    network = json.dumps({"topology": "erdos_renyi", "topology_params": {"p": 0.7},
                          "drop_rate": 0.1})
    run, lost, kept = _stopped_run(
        4, ["--data", directory, "--estimator", type(est).__name__, "--params",
            json.dumps(params), "--network", network, 150], 0, 10, tmp_path, timeout="4")
    with monkeypatch.context() as patch:
        reference = _simulated_with_lost_nodes(est, models, losses, g, None, lost, 150, patch)
    assert run.mpi_lost_nodes_.tolist() == lost
    assert run.n_iter_ == reference.n_iter_
    assert (run.collaboration_graph_ != reference.collaboration_graph_).nnz == 0
    assert (reference.collaboration_graph_ != clone(est).fit(models, losses=losses)
            .collaboration_graph_).nnz > 0
    np.testing.assert_allclose(run.objective_curve_, reference.objective_curve_, rtol=1e-10)
    ps = reference.communication_.pair_bytes
    pm = run.communication_.pair_bytes
    np.testing.assert_array_equal(pm[np.ix_(kept, kept)], ps[np.ix_(kept, kept)])
    assert (pm <= ps).all() and pm.sum() < ps.sum()
