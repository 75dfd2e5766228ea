"""add_nodes after an MPI fit (issue 32): the join's checks of the in-process
tests on estimators that ``mpiexec -n 2`` fitted.

Dada and Perso-lin: the newcomer's model and row equal the per-node
computation written in NumPy (``tests/test_graph_join.py``'s reference),
the fitted nodes are bit-identical after the join and its bytes are the
closed form.  Every family the MPI engine fits (Dada, Perso-lin, the online
kernel SGD): the join after the MPI fit equals the join after the simulated
fit of the same data, model for model and byte for byte.
"""

import copy

import numpy as np
import pytest
from sklearn.base import clone

from skfed._graph_join import _RESOLVE_EVERY
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.engines._partitions import save_partitions
from skfed.graph import model_message_bytes
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier

from ._helpers.mpi import assert_same_graph, launch, needs_mpi
from .test_graph_join import _data, _newcomer_reference


# The graph methods as tests/test_graph_join.py's reference computes them
# (every fitted node a candidate, no cap, no sparsification; the graph
# re-learned, so the join's answers are the final models on MPI as in the
# simulation).
_GRAPH = dict(max_iter=6 * 3 * _RESOLVE_EVERY, sparsify_graph=None, max_neighbors=None,
              graph_update_every="n_nodes", random_state=0)


def _cases():
    X, y, g = _data()
    fit = g < g.max() - 1  # nodes 0-5 fitted; 7 joins
    new = g == g.max()
    return [
        ("dada", DecentralizedBoostingClassifier(n_estimators=8, peer_scoring=True, **_GRAPH),
         X, y, g, fit, new),
        ("perso_lin", PersonalizedLinearClassifier(**_GRAPH, local_update="gradient"),  # NumPy ref.: steps
         X, y, g, fit, new),
        ("online", DecentralizedKernelSGDClassifier(kernel="rbf", max_epochs=2, max_dictionary_size=12,
                                                    random_state=6, consensus_penalty=0.1),
         X, y, g, fit, new),
    ]


@pytest.fixture(scope="module")
def mpi_fits(tmp_path_factory):
    """``{name: (mpi_fit, simulated_fit, X, y, groups, new)}`` (2 ranks)."""
    tmp = tmp_path_factory.mktemp("mpi_join")
    cases = _cases()
    for name, _, X, y, g, fit, _ in cases:
        save_partitions(X[fit], y[fit], g[fit], tmp / name)
    results = launch(2, [(name, est, tmp / name) for name, est, *_ in cases], tmp)
    return {name: (results[name], clone(est).fit(X[fit], y[fit], groups=g[fit]), X, y, g, new)
            for name, est, X, y, g, fit, new in cases}


def _join(est, X, y, g, new):
    before = copy.deepcopy(est)
    est = copy.deepcopy(est)
    est.add_nodes(X[new], y[new], groups=g[new])
    return before, est


@needs_mpi
@pytest.mark.parametrize("name", ["dada", "perso_lin"])
def test_graph_join_after_mpi_fit_is_the_numpy_computation(mpi_fits, name):
    run, _, X, y, g, new = mpi_fits[name]
    assert run.mpi_n_ranks_ == 2
    before, est = _join(run, X, y, g, new)
    K = len(before.nodes_)
    # The fitted nodes are bit-identical.
    np.testing.assert_array_equal(est.coef_[:K], before.coef_)
    np.testing.assert_array_equal(est.intercept_[:K], before.intercept_)
    np.testing.assert_array_equal(est.collaboration_graph_[:K, :K].toarray(),
                                  before.collaboration_graph_.toarray())
    # The newcomer's model and row: NumPy, from what the MPI fit kept.
    n_steps = 3 * _RESOLVE_EVERY  # max_iter / n_fitted
    model, v = _newcomer_reference(before, before._join_info, X[new], y[new],
                                   np.ones(new.sum()), n_steps, n_steps, resolve=True)
    np.testing.assert_allclose(est._full_coef()[K], model, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(est.collaboration_graph_[K, :K].toarray()[0], v,
                               rtol=1e-7, atol=1e-10)
    # Bytes: requests, answers (model, loss, degree) of every fitted node,
    # the newcomer's weight to each neighbour (the closed form of the
    # in-process test with the final models answering).
    models = before._full_coef()
    header = SimulatedNetwork().header_bytes
    answers = int(model_message_bytes(models.reshape(K, -1), models.dtype).sum())
    n_neighbours = est.collaboration_graph_[K:, :K].nnz
    assert n_neighbours > 0
    expected = K * header + answers + K * (16 + header) + n_neighbours * (8 + header)
    # ... and the fit's mass summary on the first answer (skfed._node_mass):
    # (max, mean) for Dada, (max, mean, median, min) for Perso-lin.
    expected += 8 * (2 if hasattr(est, "n_estimators") else 4)
    assert est.join_communication_.total_bytes == expected
    assert est.n_bytes_sent_ == before.n_bytes_sent_ + expected


@needs_mpi
@pytest.mark.parametrize("name", ["dada", "perso_lin", "online"])
def test_join_after_mpi_fit_equals_join_after_simulation(mpi_fits, name):
    run, sim, X, y, g, new = mpi_fits[name]
    (_, joined_run), (_, joined_sim) = _join(run, X, y, g, new), _join(sim, X, y, g, new)
    K = len(run.nodes_)
    np.testing.assert_array_equal(joined_run.nodes_, joined_sim.nodes_)
    log_run, log_sim = joined_run.join_communication_, joined_sim.join_communication_
    assert log_run.total_bytes == log_sim.total_bytes > 0
    assert log_run.total_messages == log_sim.total_messages
    assert (log_run.pair_bytes_sparse != log_sim.pair_bytes_sparse).nnz == 0
    assert (joined_run.n_bytes_sent_ - run.n_bytes_sent_
            == joined_sim.n_bytes_sent_ - sim.n_bytes_sent_ == log_run.total_bytes)
    if name == "online":
        for attr in ("dictionaries_", "dual_coef_"):
            for a, b in zip(getattr(joined_run, attr), getattr(joined_sim, attr)):
                np.testing.assert_array_equal(a, b)
            # the fitted nodes are untouched
            for a, b in zip(getattr(joined_run, attr)[:K], getattr(run, attr)):
                np.testing.assert_array_equal(a, b)
        assert (joined_run.adjacency_ != joined_sim.adjacency_).nnz == 0
        np.testing.assert_array_equal(joined_run.join_passes_, joined_sim.join_passes_)
    else:
        np.testing.assert_array_equal(joined_run.coef_, joined_sim.coef_)
        np.testing.assert_array_equal(joined_run.intercept_, joined_sim.intercept_)
        assert_same_graph(joined_run, joined_sim)
    np.testing.assert_array_equal(joined_run.predict(X[new], groups=g[new]),
                                  joined_sim.predict(X[new], groups=g[new]))
