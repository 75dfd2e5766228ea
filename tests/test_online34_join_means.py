"""How fitted node 0 learns the two join means, and whose sample counts a
newcomer's sizes read (online34; skfed/online/_join_means.py).

online33 made fitted node 0 send every newcomer the fitted nodes' mean
dictionary size and mean stream bytes, but nothing carried the other nodes'
values to node 0, a second join's means included earlier newcomers without
any message, and a newcomer's candidate count read the mean sample count of
every newcomer of the call.  Now:

- the network-function round's up messages in node 0's spanning tree carry
  two float64 more (its subtree's sums): ``16 (K_0 - 1)`` bytes per round,
  ``K_0`` the nodes of node 0's component, nothing else changed;
- before a later join, every earlier newcomer sends node 0 its two values
  (one message of ``header + 16`` bytes each, in step 1's first round);
- every newcomer sizes its candidates from its own judging samples.

Each is checked in closed form against the logs (the candidates rebuilt
from the join's public draws); all fail before.
"""

import warnings

import numpy as np
import pytest
from scipy import sparse

import skfed.online._network_function as network_function
from skfed import (DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor,
                   SimulatedNetwork)


def _data(seed, n_nodes, n_per, shift=0.3):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.normal(size=(len(groups), 2))
    y = (X[:, 0] + shift * groups / n_nodes * X[:, 1] > 0).astype(int)
    return X, y, groups


def _fitted(header=16, n_old=14, topology="ring", cls=DecentralizedKernelSGDClassifier):
    X, y, groups = _data(5, n_old, 12)
    est = cls(kernel="rbf", gamma=0.7, epsilon=0.0, max_dictionary_size=None, max_epochs=6,
              shuffle=False, alpha=1e-3, consensus_penalty=0.3, random_state=0,
              network=SimulatedNetwork(topology, header_bytes=header))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y.astype(float) if cls is DecentralizedKernelSGDRegressor else y,
                groups=groups)
    return est


def _newcomers(counts, first=100, seed=11):
    rng = np.random.RandomState(seed)
    Xn = rng.normal(size=(sum(counts), 2))
    yn = (Xn[:, 0] > 0).astype(int)
    yn[:2] = [0, 1]
    gn = np.repeat(first + np.arange(len(counts)), counts)
    return Xn, yn, gn


def _sizes_and_first_round(est, counts, header, n_late):
    """Every newcomer's candidate count and the first round's bytes and
    messages: late reports, node 0's means, the candidates' answers."""
    n_old, n_new = len(est.nodes_), len(counts)
    unit = 3 * 8                      # a point (2 features) and its value, float64
    sizes = np.array([len(D) for D in est.dictionaries_], dtype=np.float64)
    degree = int(round(np.median(np.diff(est.adjacency_.indptr))))
    n_most = min(10, n_old)
    budget = 0.4 * est.communication_.total_bytes / n_old
    dictionary = header + sizes.mean() * unit
    q = np.minimum(counts, 5)         # each newcomer's own judging samples
    n_candidates = []
    for m in range(n_new):
        candidate = min(2 * header + q[m] * unit, dictionary)
        n_candidates.append(int(np.clip((budget - dictionary) // candidate,
                                        min(degree, n_most), n_most)))
    draws = np.random.RandomState([est._network_seed, est._n_calls, 7919])
    draws.uniform(size=n_new)         # whether each is rogue
    total = n_late * (header + 16) + n_new * (header + 16)
    messages = n_late + n_new
    for m in range(n_new):
        for j in np.sort(draws.choice(n_old, size=n_candidates[m], replace=False)):
            query, answer = 2 * header + q[m] * unit, header + sizes[j] * unit
            total += min(query, answer)
            messages += 1 if answer < query else 2
    return np.array(n_candidates), total, messages


def _first_join_round(est):
    """Index of the first join's own first round: after the classifier's
    gate messages, sent with the first join (skfed/online/_join_gate.py)."""
    gate = getattr(est, "newcomer_gate_", None)
    if not gate or not gate["sent"]:
        return 0
    spent = np.cumsum(est.join_communication_.bytes_per_round)
    r0 = int(np.searchsorted(spent, gate["n_bytes"])) + 1
    assert spent[r0 - 1] == gate["n_bytes"]
    return r0


def _without_sums(monkeypatch, **kwargs):
    monkeypatch.setattr(network_function, "TREE_SUMS_BYTES", 0)
    est = _fitted(**kwargs)
    monkeypatch.undo()
    return est


@pytest.mark.parametrize("cls", [DecentralizedKernelSGDClassifier,
                                 DecentralizedKernelSGDRegressor])
@pytest.mark.parametrize("topology", ["ring", "complete"])
def test_fit_tree_carries_the_sums(topology, cls, monkeypatch):
    est = _fitted(topology=topology, cls=cls)
    bare = _without_sums(monkeypatch, topology=topology, cls=cls)
    K = len(est.nodes_)
    # node 0 holds every node's dictionary size and stream bytes
    n_covered, n_tree, size_sum, bytes_sum = est._join_sums
    assert (n_covered, n_tree) == (K, K)
    assert size_sum == sum(len(D) for D in est.dictionaries_)
    assert bytes_sum == est.communication_.total_bytes
    # 16 bytes more on each of the K - 1 up messages of the network round
    extra = est.n_bytes_sent_ - bare.n_bytes_sent_
    assert extra == 16 * (K - 1) > 0
    assert est.n_messages_ == bare.n_messages_
    for a, b in zip(est.dual_coef_, bare.dual_coef_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(est.network_coef_[0], bare.network_coef_[0])


def test_disconnected_topology_sums_node_0s_component(monkeypatch):
    K = 10
    A = sparse.lil_matrix((K, K))
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9),
                 (9, 4)]:
        A[a, b] = A[b, a] = 1
    est = _fitted(n_old=K, topology=A.tocsr())
    bare = _without_sums(monkeypatch, n_old=K, topology=A.tocsr())
    _, n_tree, size_sum, bytes_sum = est._join_sums
    assert n_tree == 4
    assert size_sum == sum(len(D) for D in est.dictionaries_[:4])
    assert bytes_sum == est.communication_.bytes_sent[:4].sum()
    assert 0 < bytes_sum < est.communication_.total_bytes
    # only node 0's tree (3 up messages) carries them
    assert est.n_bytes_sent_ - bare.n_bytes_sent_ == 16 * 3


@pytest.mark.parametrize("header", [16, 200])
def test_second_join_hears_earlier_newcomers(header):
    est = _fitted(header=header)
    n_fit = len(est.nodes_)
    first = np.array([6, 7, 9])
    est.add_nodes(*_newcomers(first)[:2], groups=_newcomers(first)[2])
    assert est._join_sums[0] == n_fit          # node 0's sums: the fitted nodes'
    assert est.join_start_.tolist() != ["features"] * 3   # (the graph join)
    counts = np.array([5, 8])
    n_candidates, expected, messages = _sizes_and_first_round(est, counts, header,
                                                              n_late=len(first))
    assert (n_candidates < min(10, len(est.nodes_))).all()   # the budget binds
    before = est.join_communication_
    Xn, yn, gn = _newcomers(counts, first=200, seed=12)
    est.add_nodes(Xn, yn, groups=gn)
    log = est.join_communication_
    r0 = len(before.bytes_per_round)          # this join's first round
    assert int(log.bytes_per_round[r0]) == expected
    assert int(log.messages_per_round[r0]) == messages
    # each earlier newcomer sent node 0 one message in this join (none before)
    n_before = len(before.node_labels)
    late = np.arange(n_fit, n_fit + len(first))
    sent = (log.pair_messages_sparse.toarray()[:n_before, :n_before]
            - before.pair_messages_sparse.toarray())
    assert (before.pair_messages_sparse.toarray()[late, 0] == 0).all()
    np.testing.assert_array_equal(sent[late, 0], 1)


@pytest.mark.parametrize("header", [16, 120])
def test_each_newcomer_sizes_by_its_own_samples(header):
    est = _fitted(header=header)
    counts = np.array([1, 2, 9])
    n_candidates, expected, messages = _sizes_and_first_round(est, counts, header, n_late=0)
    # the newcomers' own counts give different sizes (the call's mean would not)
    assert len(set(n_candidates.tolist())) > 1
    Xn, yn, gn = _newcomers(counts)
    est.add_nodes(Xn, yn, groups=gn)
    log, r0 = est.join_communication_, _first_join_round(est)
    assert int(log.bytes_per_round[r0]) == expected
    assert int(log.messages_per_round[r0]) == messages


def test_old_state_without_sums_asks_the_most():
    """A learner fitted before node 0 held the sums (its pickle lacks them)
    sends no means and asks the most candidates, as without a fit log."""
    est = _fitted()
    del est._join_sums
    counts = np.array([6, 6])
    n_old = len(est.nodes_)
    draws = np.random.RandomState([est._network_seed, est._n_calls, 7919])
    draws.uniform(size=2)
    sizes = np.array([len(D) for D in est.dictionaries_], dtype=np.float64)
    total = 0
    for _ in range(2):
        for j in draws.choice(n_old, size=min(10, n_old), replace=False):
            total += min(2 * 16 + 5 * 24, 16 + sizes[j] * 24)
    Xn, yn, gn = _newcomers(counts)
    est.add_nodes(Xn, yn, groups=gn)
    assert int(est.join_communication_.bytes_per_round[_first_join_round(est)]) == total
