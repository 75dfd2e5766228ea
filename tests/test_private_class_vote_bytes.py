"""The class vote's messages go through the fit's network (issue 27).

A private Perso-lin or MOCHA classifier fit that holds the class vote
(``skfed._class_vote``) sends the ballots and the elected option as one
more round of its simulated network: MOCHA a server round (every active
node's one-byte ballot up, the one-byte elected option down), Perso-lin
sealed ballots up the vote tree of the online nodes (a star on a complete
topology; each node's message holds one byte per node of its subtree; the
elected option down).
Checked against closed forms in the number of nodes that took part, the
header bytes and the payloads; a dropped node's ballot is not counted; the
totals equal the per-round logs; the tree against a breadth-first search
written here.
"""

import warnings
from collections import deque

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from sklearn.linear_model import LogisticRegression  # noqa: E402

from skfed import (  # noqa: E402
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
    SimulatedNetwork,
)
from skfed.boosting._private import tree_tally  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402


def _nodes(K, n_classes, m=24, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(K * m, 2)) + rng.uniform(0.1, 0.2, size=(K * m, 2))
    score = X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=K * m)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y, np.repeat(np.arange(K), m)


def _fit(method, K, n_classes, network, local_estimator=None, header=16):
    X, y, groups = _nodes(K, n_classes)
    spec = DifferentialPrivacy(3.0, delta=1e-5, local_estimator=local_estimator)
    network = SimulatedNetwork(header_bytes=header, **network)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "persolin":
            est = PersonalizedLinearClassifier(max_iter=30, privacy=spec, random_state=1,
                                               network=network)
        else:
            est = FederatedMultiTaskClassifier(max_rounds=3, privacy=spec, random_state=1,
                                               network=network)
        return est.fit(X, y, groups=groups)


@pytest.mark.parametrize("method", ["persolin", "mocha"])
@pytest.mark.parametrize("K, n_classes, header, drop", [
    (12, 2, 16, 0.0), (17, 3, 0, 0.0), (15, 2, 40, 0.3), (13, 4, 16, 0.5),
])
def test_vote_round_bytes_and_messages_in_closed_form(method, K, n_classes, header, drop):
    est = _fit(method, K, n_classes, {"drop_rate": drop}, header=header)
    vote = est.privacy_["class_vote"]
    assert vote["held"]
    log = est.communication_
    n = vote["ballots_counted"]
    if drop == 0.0:
        assert n == K
    else:  # the random_state's fault draw drops some nodes
        assert 1 <= n < K
    assert log.header_bytes == header
    if method == "mocha":
        # n ballots up (2 bits: an option or abstain, one byte, with the pooled
        # test's three float64 statistics, skfed._class_vote_pooled) and n
        # elected options down (one byte)
        closed_bytes, closed_messages = n * (1 + 24 + header) + n * (1 + header), 2 * n
    else:
        # a star on the root (complete topology): n - 1 one-byte ballots
        # up, n - 1 one-byte elected options down
        closed_bytes, closed_messages = (n - 1) * (1 + header + 1 + header), 2 * (n - 1)
    assert vote["bytes"] == closed_bytes and vote["messages"] == closed_messages
    assert log.bytes_per_round[-1] == closed_bytes
    assert log.messages_per_round[-1] == closed_messages
    # the totals are the per-round logs' sums and include the vote
    assert log.bytes_per_round.sum() == log.total_bytes == est.n_bytes_sent_
    assert log.messages_per_round.sum() == log.total_messages == est.n_messages_
    assert log.pair_bytes.sum() == log.total_bytes
    # the vote's round is one more than the fit's iterations (documented)
    assert len(est.bytes_per_round_) == est.n_iter_ + 1
    if method == "mocha":
        # the server (last endpoint) receives exactly the n ballots of the round
        # on top of the rounds of the same fit with no vote (a given Local
        # model: the same rounds, payloads and fault draws before the vote)
        ref = _fit(method, K, n_classes, {"drop_rate": drop},
                   local_estimator=LogisticRegression(), header=header)
        assert ref.privacy_["class_vote"]["held"] is False
        rlog = ref.communication_
        assert len(log.bytes_per_round) == len(rlog.bytes_per_round) + 1
        np.testing.assert_array_equal(log.bytes_per_round[:-1], rlog.bytes_per_round)
        assert log.total_bytes - rlog.total_bytes == closed_bytes
        extra = log.pair_messages - rlog.pair_messages
        assert extra[:K, K].sum() == n and extra[K, :K].sum() == n
        assert set(np.flatnonzero(extra[:K, K])) == set(np.flatnonzero(extra[K, :K]))
    else:
        # a tree: every node that took part but the root sends one message up
        # and receives one; nobody else sends in the round
        assert log.has_server is False


def _bfs_component(adjacency, nodes):
    """Nodes of ``nodes`` reachable from the first within the subgraph they induce."""
    allowed = set(nodes.tolist())
    if not allowed:
        return set()
    seen, queue = {int(nodes[0])}, deque([int(nodes[0])])
    dense = adjacency.toarray()
    while queue:
        k = queue.popleft()
        for j in np.flatnonzero(dense[k]).tolist():
            if j in allowed and j not in seen:
                seen.add(j)
                queue.append(j)
    return seen


@pytest.mark.parametrize("topology", ["ring", None])
def test_tree_tally_reaches_the_online_component(topology):
    K, header = 11, 16
    network = SimulatedNetwork(topology=topology, header_bytes=header)
    simulation = network.start(K, server=False, random_state=0)
    online = np.ones(K, dtype=bool)
    online[[2, 3, 7]] = False  # on the ring: 4..6 and 8..10, 0, 1 are cut apart
    reached, n_bytes, n_messages, counted = tree_tally(simulation, online)
    assert counted is None  # no ballots given: the messages only
    if topology == "ring":
        expected = _bfs_component(simulation.adjacency, np.flatnonzero(online))
        assert expected == {0, 1, 8, 9, 10}
        # breadth-first from node 0 over 0, 1, 8, 9, 10 on the ring: 1 and 10
        # hang on 0, 9 on 10, 8 on 9; subtree sizes 1, 3, 2, 1: one sealed
        # ballot byte per node of the sender's subtree
        ballot_bytes = 1 + 3 + 2 + 1
    else:
        expected = set(np.flatnonzero(online).tolist())
        ballot_bytes = len(expected) - 1  # a star: each its own byte
    assert set(np.flatnonzero(reached).tolist()) == expected
    n = len(expected)
    assert n_messages == 2 * (n - 1)
    assert n_bytes == ballot_bytes + (n - 1) * (1 + 2 * header)
    log = simulation.log()
    assert log.total_bytes == n_bytes and log.total_messages == n_messages
    sent = log.pair_messages
    # messages only between reached nodes, along topology links, each pair
    # both ways once
    assert not sent[~reached].any() and not sent[:, ~reached].any()
    assert np.array_equal(sent, sent.T)
    if topology == "ring":
        assert not (sent.astype(bool) & ~simulation.adjacency.toarray().astype(bool)).any()
    # a tree: n - 1 edges, connected over the reached nodes
    assert int(np.triu(sent).sum()) == n - 1
