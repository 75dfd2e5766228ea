"""Dada's bounded peer view (``peer_view``, ``skfed/boosting/_dada_view.py``).

The kernel graph signal sends each node's fixed graph model once per
(sender, receiver) pair, so a node's bytes follow the distinct peers it
talks to; the view bounds them.  Checked here: the view's shape (symmetric,
degree at most the size, inside the topology, connected on a complete
one), the graph steps' bytes against the closed form computed from their
trace (a model counted once per ordered pair, every pair inside the view),
and at the estimator's level that the learned graph and the model messages
stay inside the view, that a node's kernel models are sent to at most
``peer_view`` peers, and that ``"auto"`` leaves the boosting signal's fit
unchanged.
"""

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone

import skfed.boosting._dada_view as view_module
from skfed._core._graph_fast import SentModels
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._dada_view import PEER_VIEW, peer_view, resolve_peer_view
from skfed.datasets import make_rotated_moons
from skfed.graph import _GraphRunner
from skfed.network import SimulatedNetwork

from ._helpers.mpi import launch, needs_mpi, saved_cases

HEADER = 16  # the default header of a simulated message


def _pattern(view, K):
    indptr, indices = view
    return sparse.csr_matrix((np.ones(indices.size), indices, indptr), shape=(K, K))


@pytest.mark.parametrize("K, size", [(50, 6), (101, 7), (300, 40), (7, 2)])
def test_complete_view_is_symmetric_with_exactly_size_peers(K, size):
    view = peer_view(K, size, [3, 4])
    V = _pattern(view, K)
    assert (V != V.T).nnz == 0 and V.diagonal().sum() == 0
    degree = np.diff(V.indptr)
    # a random circulant: exactly size peers, size - 1 when size and K are odd
    expected = size - 1 if size % 2 and K % 2 else size
    assert np.all(degree == expected)
    # public and reproducible: the same seeds give the same view, others another
    again = peer_view(K, size, [3, 4])
    assert np.array_equal(view[0], again[0]) and np.array_equal(view[1], again[1])
    other = _pattern(peer_view(K, size, [3, 5]), K)
    assert (other != V).nnz > 0


def test_no_view_when_nothing_to_bound():
    assert peer_view(41, 40, [0, 1]) is None
    ring = sparse.diags([1.0, 1.0], [1, -1], shape=(30, 30)).tocsr()
    assert peer_view(30, 2, [0, 1], adjacency=ring) is None
    with pytest.raises(ValueError, match="peer_view"):
        peer_view(30, 0, [0, 1])
    assert resolve_peer_view("auto", "kernel") == PEER_VIEW
    assert resolve_peer_view("auto", "boosting") is None
    assert resolve_peer_view(7, "boosting") == 7 and resolve_peer_view(None, "kernel") is None


def test_topology_view_is_a_maximal_bounded_subgraph_of_the_topology():
    rng = np.random.RandomState(0)
    K, size = 80, 5
    A = sparse.random(K, K, density=0.3, random_state=rng, format="csr")
    A = ((A + A.T) > 0).astype(float)
    A.setdiag(0)
    A.eliminate_zeros()
    V = _pattern(peer_view(K, size, [1, 2], adjacency=A), K)
    assert (V != V.T).nnz == 0
    assert (V - V.multiply(A)).nnz == 0  # inside the topology
    degree = np.diff(V.indptr)
    assert degree.max() <= size
    # The greedy rule: a topology link left out has an end already full.
    left = sparse.triu(A - A.multiply(V), 1).tocoo()
    assert np.all((degree[left.row] == size) | (degree[left.col] == size))


def _related(n_nodes, seed=0):
    X, _, y, _, groups, *_ = make_rotated_moons(n_nodes=n_nodes, n_features=3,
                                                n_samples_range=(3, 8), random_state=seed)
    return X, y, groups


def test_graph_steps_inside_the_view_cost_the_closed_form():
    """Every sampled peer lies in the view; the bytes are the closed form of
    ``test_boosting_kernel_graph``: per exchange three headers, loss +
    degree, score and weight, plus ``8 D`` the first time an ordered pair
    exchanges a model (pairs counted from the trace in Python)."""
    rng = np.random.RandomState(1)
    K, D, size, kappa, n_steps = 60, 12, 6, 3, 150
    models = rng.normal(size=(K, D))
    losses = rng.uniform(0, 0.5, size=K)
    view = peer_view(K, size, [7, 8])
    V = _pattern(view, K).toarray() > 0
    sim = SimulatedNetwork().start(K, random_state=0)
    runner = view_module.restrict_to_view(
        _GraphRunner(sim, mu=0.8, mu_graph=1.5, lambda_graph=0.5, delta=1e-2, kappa=kappa,
                     clock=np.array([5], np.uint32),
                     node_state=np.arange(1, K + 1, dtype=np.uint32)), view)
    sent = SentModels(K)
    seen, n_exchanges, spent = set(), 0, 0
    for _ in range(3):  # three phases, the models kept by their receivers
        n, spent, _, (nodes, peers, _) = runner.run(
            models, losses, n_steps, model_dtype=np.float64, spent=spent, trace=True,
            sent_models=sent)
        assert n == n_steps
        for k, p in zip(nodes.tolist(), peers):
            p = p[p >= 0].tolist()
            assert len(p) == min(kappa, V[k].sum()) and all(V[k, l] for l in p)
            n_exchanges += len(p)
            seen.update((k, l) for l in p)
            seen.update((l, k) for l in p)
    assert spent == n_exchanges * (3 * HEADER + 16 + 8) + len(seen) * 8 * D
    assert sent.n_pairs == len(seen)
    # A node's model goes to at most its view peers, whatever the steps.
    senders = np.bincount([k for k, _ in seen], minlength=K)
    assert np.all(senders <= V.sum(axis=1)) and senders.max() <= size
    assert np.all(runner.graph_csr().toarray()[~V] == 0)
    assert sim.counter.snapshot()["pair_bytes"].sum() == spent


class _Spy:
    """Record every view and graph runner a fit builds, and its SentModels."""

    def __init__(self, monkeypatch):
        self.views, self.sent, self.topologies = [], [], []
        restrict, run = view_module.restrict_to_view, _GraphRunner.run

        def spy_restrict(runner, view):
            self.views.append(view)
            self.topologies.append(runner.simulation.adjacency)
            return restrict(runner, view)

        def spy_run(runner, *args, **kw):
            self.sent.append(kw.get("sent_models"))
            return run(runner, *args, **kw)

        monkeypatch.setattr(view_module, "restrict_to_view", spy_restrict)
        monkeypatch.setattr(_GraphRunner, "run", spy_run)


def test_dada_kernel_models_reach_at_most_peer_view_peers(monkeypatch):
    spy = _Spy(monkeypatch)
    K, size = 60, 6
    X, y, g = _related(K)
    est = DecentralizedBoostingClassifier(n_estimators=20, max_iter=20 * K, random_state=0,
                                          peer_view=size).fit(X, y, groups=g)
    assert est.graph_signal_ == "kernel" and est.peer_view_ == size
    (view,) = spy.views
    V = _pattern(view, K).toarray() > 0
    assert np.diff(view[0]).max() <= size
    # the learned graph lies inside the view
    assert np.all(est.collaboration_graph_.toarray()[~V] == 0)
    sent = {s for s in spy.sent if s is not None}
    assert len(sent) == 1
    (sent,) = sent
    receivers = np.array([[sent.contains(k, l) for l in range(K)] for k in range(K)])
    assert receivers.sum() == sent.n_pairs > 0
    assert not receivers[~V].any()
    assert receivers.sum(axis=1).max() <= size
    # Every node-to-node byte of a pair outside the view is a setup message
    # (aggregation tree: at most one parent and two children a node).
    pairs = est.communication_.pair_bytes_sparse[:K, :K].toarray() > 0
    assert (pairs & ~V).sum(axis=1).max() <= 3


def test_auto_view_bounds_the_kernel_signal_only():
    K = PEER_VIEW + 40
    X, y, g = _related(K)
    # kappa=20: about 600 contacts a node, so that without a view a node
    # meets more than PEER_VIEW peers
    common = dict(n_estimators=10, max_iter=5 * K, kappa=20, random_state=1)
    boost_auto = DecentralizedBoostingClassifier(graph_signal="boosting", **common)
    boost_none = DecentralizedBoostingClassifier(graph_signal="boosting", peer_view=None,
                                                 **common)
    a, b = (m.fit(X, y, groups=g) for m in (boost_auto, boost_none))
    assert a.peer_view_ is None
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.n_bytes_sent_ == b.n_bytes_sent_
    kernel = DecentralizedBoostingClassifier(**common).fit(X, y, groups=g)
    unbounded = DecentralizedBoostingClassifier(peer_view=None, **common).fit(X, y, groups=g)
    assert kernel.peer_view_ == PEER_VIEW and unbounded.peer_view_ is None
    partners = np.diff(sparse.csr_matrix(kernel.communication_.pair_bytes_sparse[:K, :K]).indptr)
    free = np.diff(sparse.csr_matrix(unbounded.communication_.pair_bytes_sparse[:K, :K]).indptr)
    assert partners.max() <= PEER_VIEW + 3 < free.max()
    # A view as large as the federation bounds nothing: the same fit.
    whole = DecentralizedBoostingClassifier(peer_view=K - 1, **common).fit(X, y, groups=g)
    np.testing.assert_array_equal(whole.coef_, unbounded.coef_)
    assert whole.n_bytes_sent_ == unbounded.n_bytes_sent_


def test_peer_view_with_a_fixed_graph_is_refused_by_name():
    X, y, g = _related(6)
    ring = sparse.diags([1.0, 1.0, 1.0, 1.0], [1, -1, 5, -5], shape=(6, 6)).tocsr()
    with pytest.raises(ValueError, match=r"peer_view=3 .*fixed graph"):
        DecentralizedBoostingClassifier(graph=ring, peer_view=3, max_iter=20).fit(
            X, y, groups=g)
    with pytest.raises(ValueError, match="peer_view"):
        DecentralizedBoostingClassifier(peer_view=0).fit(X, y, groups=g)


@needs_mpi
def test_view_on_two_mpi_ranks_equals_the_simulation(tmp_path):
    """Every rank draws the same public view: the fit on two MPI ranks equals
    the simulated one, graph, models and bytes."""
    K = 16
    X, y, g = _related(K, seed=2)
    est = DecentralizedBoostingClassifier(n_estimators=12, max_iter=10 * K, random_state=0,
                                          peer_view=4)
    sim = clone(est).fit(X, y, groups=g)
    cases = saved_cases([("dada_view", est, X, y, g, None)], tmp_path / "data")
    run = launch(2, cases, tmp_path / "run")["dada_view"]
    assert run.peer_view_ == sim.peer_view_ == 4
    np.testing.assert_array_equal(run.collaboration_graph_.toarray(),
                                  sim.collaboration_graph_.toarray())
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    assert run.n_bytes_sent_ == sim.n_bytes_sent_
    partners = np.diff(sparse.csr_matrix(sim.communication_.pair_bytes_sparse[:K, :K]).indptr)
    assert partners.max() <= 4 + 3


def test_view_on_an_explicit_topology_stays_inside_it(monkeypatch):
    spy = _Spy(monkeypatch)
    K, size = 40, 5
    X, y, g = _related(K, seed=1)
    network = SimulatedNetwork("erdos_renyi", topology_params={"p": 0.5})
    est = DecentralizedBoostingClassifier(n_estimators=12, max_iter=20 * K, random_state=2,
                                          peer_view=size, network=network)
    est.fit(X, y, groups=g)
    (view,) = spy.views
    V = _pattern(view, K).toarray() > 0
    topology = sparse.csr_matrix(spy.topologies[0]).toarray() != 0
    assert np.diff(view[0]).max() <= size < topology.sum(axis=1).max()
    assert np.all(topology[V])  # the view lies inside the topology
    assert np.all(est.collaboration_graph_.toarray()[~V] == 0)
    (sent,) = {s for s in spy.sent if s is not None}
    receivers = np.array([[sent.contains(k, l) for l in range(K)] for k in range(K)])
    assert not receivers[~V].any() and receivers.sum(axis=1).max() <= size
