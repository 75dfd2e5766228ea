"""The federation's node masses travel in counted messages (mass33).

Every confidence ``c_k = m_k / max_l m_l`` of a Dada or Perso-lin fit needs
the largest node mass, and a newcomer of ``add_nodes`` reads it (and the
fitted nodes' mean, median and smallest mass) too.  ``skfed._node_mass``
counts the fit's exchange (up and down a spanning tree of the topology) and
the summary a newcomer receives with its first answer.  Each test compares
a run with a run whose exchange is not counted (the library function
replaced by one that sends nothing): the models are the same bits, and the
byte difference is the closed form computed here from a NumPy tree.
"""

import copy

import numpy as np
import pytest
from scipy.sparse.csgraph import breadth_first_order

import skfed._graph_join as graph_join
import skfed.boosting._base as boosting_base
from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier, SimulatedNetwork
from skfed._node_mass import mass_summary

HEADER = 16


def _data(n_nodes=9, seed=0):
    rng = np.random.RandomState(seed)
    sizes = rng.randint(6, 30, size=n_nodes)
    groups = np.repeat(np.arange(n_nodes), sizes)
    X = rng.normal(size=(len(groups), 3))
    flip = np.where(np.arange(n_nodes) % 2 == 0, 1.0, -1.0)[groups]
    y = (flip * X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return X, y, groups


def _depths(network, K):
    """Every node's depth in the setup's tree: the heap on a complete
    topology, a breadth-first tree from node 0 otherwise (NumPy / SciPy)."""
    if network is None or network.topology is None:
        return np.floor(np.log2(np.arange(K) + 1)).astype(int)
    A = network.start(K, random_state=0).adjacency
    order, pred = breadth_first_order(A, 0, directed=False, return_predecessors=True)
    depth = np.zeros(K, dtype=int)
    for k in order[1:]:
        depth[k] = depth[pred[k]] + 1
    return depth


def _mass_bytes(cls, network, K):
    # every mass up its depth's edges (the root's median needs them: rogue34);
    # (max, mean) down for Dada, (max, mean, median, min) for Perso-lin
    floats = 2 if cls is DecentralizedBoostingClassifier else 4
    return 8 * int(_depths(network, K).sum()) + (K - 1) * (2 * HEADER + floats * 8)


def _uncounted(monkeypatch):
    monkeypatch.setattr(boosting_base, "agree_on_masses", lambda *a, **k: 0)


NETWORKS = [None, SimulatedNetwork(topology="ring"), SimulatedNetwork(topology="star"),
            SimulatedNetwork(drop_rate=0.3, random_state=3),
            SimulatedNetwork(rogue_fraction=0.2, random_state=4)]


@pytest.mark.parametrize("network", NETWORKS)
@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_fit_exchange_is_the_tree_closed_form(cls, network, monkeypatch):
    X, y, g = _data()
    K = 9
    kw = dict(random_state=0, max_iter=60, network=network, join_neighbours="graph")
    counted = cls(**kw).fit(X, y, groups=g)
    with monkeypatch.context() as m:
        _uncounted(m)
        silent = cls(**kw).fit(X, y, groups=g)
    np.testing.assert_array_equal(counted._full_coef(), silent._full_coef())
    np.testing.assert_array_equal(counted.collaboration_graph_.toarray(),
                                  silent.collaboration_graph_.toarray())
    extra = _mass_bytes(cls, network, K)
    # drops delay the exchange, they do not change it (a reliable setup step)
    assert counted.n_bytes_sent_ - silent.n_bytes_sent_ == extra
    assert counted.n_messages_ - silent.n_messages_ == 2 * (K - 1)
    assert counted.bytes_per_round_[0] - silent.bytes_per_round_[0] == extra
    np.testing.assert_array_equal(counted.bytes_per_round_[1:], silent.bytes_per_round_[1:])
    # the confidences are the masses over the largest one
    sizes = np.bincount(g).astype(float)
    np.testing.assert_allclose(counted.confidence_, sizes / sizes.max(), rtol=0, atol=0)


def test_disconnected_topology_cannot_agree_on_the_largest_mass():
    X, y, g = _data(n_nodes=6)
    A = np.zeros((6, 6))
    A[:3, :3] = A[3:, 3:] = 1
    np.fill_diagonal(A, 0)
    est = PersonalizedLinearClassifier(network=SimulatedNetwork(topology=A), max_iter=20)
    with pytest.raises(ValueError, match="largest node mass.*network.topology"):
        est.fit(X, y, groups=g)


def test_summary_is_numpy_max_mean_median_min():
    rng = np.random.RandomState(1)
    m = rng.randint(1, 50, size=11).astype(float)
    np.testing.assert_array_equal(mass_summary(m, "dada"), [m.max(), np.mean(m)])
    np.testing.assert_array_equal(mass_summary(m, "persolin"),
                                  [m.max(), np.mean(m), np.median(m), m.min()])


@pytest.mark.parametrize("network", [None, SimulatedNetwork(drop_rate=0.4, random_state=5),
                                     SimulatedNetwork(rogue_fraction=0.3, random_state=6)])
@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_each_newcomer_receives_the_summary_once(cls, network, monkeypatch):
    """Under drops a newcomer may ask for several rounds: the summary still
    comes once, on its first answer; the models are the same bits."""
    X, y, g = _data(n_nodes=12, seed=2)
    fit = g < 8
    est = cls(random_state=0, max_iter=60, network=network, join_neighbours="graph").fit(
        X[fit], y[fit], groups=g[fit])
    with monkeypatch.context() as m:
        m.setattr(graph_join, "first_answer_bytes",
                  lambda n_ok, e: np.zeros(int(np.sum(n_ok)), dtype=np.int64))
        silent = copy.deepcopy(est).add_nodes(X[~fit], y[~fit], groups=g[~fit])
    counted = copy.deepcopy(est).add_nodes(X[~fit], y[~fit], groups=g[~fit])
    np.testing.assert_array_equal(counted._full_coef(), silent._full_coef())
    n_new, floats = 4, (2 if cls is DecentralizedBoostingClassifier else 4)
    assert (counted.join_communication_.total_bytes - silent.join_communication_.total_bytes
            == n_new * 8 * floats)
    assert counted.join_communication_.total_messages == silent.join_communication_.total_messages


def test_a_later_join_counts_the_mean_mass_over_every_node(monkeypatch):
    """The heavy-newcomer rule of a second join reads the mean mass over the
    fitted nodes and the earlier newcomers: each earlier newcomer sends its
    mass to fitted node 0, which sends the mean to every other node (one
    float64 each), the models the same bits; a first join sends none."""
    X, y, g = _data(n_nodes=14, seed=2)
    fit, first, second = g < 8, (g >= 8) & (g < 10), g >= 10
    for cls in (DecentralizedBoostingClassifier, PersonalizedLinearClassifier):
        est = cls(random_state=0, max_iter=60, join_neighbours="graph").fit(
            X[fit], y[fit], groups=g[fit])
        runs = []
        for counted in (True, False):
            with monkeypatch.context() as m:
                if not counted:
                    m.setattr(graph_join, "share_joined_masses", lambda *a: 0)
                one = copy.deepcopy(est).add_nodes(X[first], y[first], groups=g[first])
                bytes_first = one.join_communication_.total_bytes
                one.add_nodes(X[second], y[second], groups=g[second])
                runs.append((one, bytes_first, one.join_communication_))
        (a, first_a, log_a), (b, first_b, log_b) = runs
        np.testing.assert_array_equal(a._full_coef(), b._full_coef())
        np.testing.assert_array_equal(a.collaboration_graph_.toarray(),
                                      b.collaboration_graph_.toarray())
        assert first_a == first_b                      # nothing before a first join
        n_fit, n_old = 8, 10
        n_messages = (n_old - n_fit) + (n_old - 1)
        assert log_a.total_bytes - log_b.total_bytes == n_messages * (HEADER + 8)
        assert log_a.total_messages - log_b.total_messages == n_messages
        assert log_a.n_rounds == log_b.n_rounds + 1
