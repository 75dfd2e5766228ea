"""Numbers the user guide quotes in prose, re-derived by a first-time user (user34).

Each test reads the sentence of the page it checks (so a changed page or a
changed result fails here) and recomputes the number against an
independent reference:

* nodes.rst, the six-node example: a one-class node linked to one neighbour
  by a weight of 0.037 (the other links weigh 0.24-0.31) predicts its only
  label on 52 % / 88 % / 100 % of its training rows at ``mu`` = 1 / 0.1 /
  0.01, the shares of a SciPy solve of its block of the paper's objective;
* privacy.rst, the class vote at HAR's counts (21 people, 19 LinearSVC
  ballots, epsilon 3): LinearSVC lost in 0.06 % of fits with the vote at
  half of the budget, 3.9 % at a third, against the exponential
  mechanism's closed form written here;
* privacy.rst, the bytes of Perso-lin's vote tree: 1.7 / 6.8 / 27 / 109 kB
  at 50 / 200 / 800 / 3,200 nodes on the complete topology, 2.2 / 16.6 /
  186 / 2,666 kB on a ring, 782 / 903 B at 24 nodes, against the subtree
  sizes of a breadth-first tree built here.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from skfed import SimulatedNetwork
from skfed.boosting import PersonalizedLinearClassifier

from .test_persolin_constant_labels import _block_optimum, _model, _six_nodes

_GUIDE = Path(__file__).resolve().parents[1] / "doc" / "user_guide"


def _page(name):
    path = _GUIDE / name
    if not path.exists():
        pytest.skip(f"doc/user_guide/{name} is not in this checkout")
    return " ".join(path.read_text().split())  # one line: sentences wrap


def test_nodes_page_one_class_node_shares_and_weights():
    text = _page("nodes.rst")
    assert ("0.037 (the other links weigh 0.24-0.31), predicts its only label on 52 % "
            "of its training rows with the default ``mu=1``, 88 % with ``mu=0.1`` and "
            "100 % with ``mu=0.01``") in text
    X, y, groups = _six_nodes()
    rows = groups == 5
    Z5 = np.column_stack([X[rows], np.ones(rows.sum())])
    shares = []
    for mu, quoted in [(1.0, 31), (0.1, 53), (0.01, 60)]:
        clf = PersonalizedLinearClassifier(mu=mu, random_state=0).fit(X, y, groups=groups)
        W = clf.collaboration_graph_.toarray()
        assert np.flatnonzero(W[5]).tolist() == [0]
        if mu == 1.0:
            # the weights the page quotes (the default mu)
            assert round(W[5, 0], 3) == 0.037
            others = W[:5, :5][W[:5, :5] > 0]
            assert (round(others.min(), 2), round(others.max(), 2)) == (0.24, 0.31)
        # node 5 at its block optimum given its only neighbour (SciPy)
        ref = _block_optimum(X[rows], y[rows], _model(clf, 0), clf.confidence_[5],
                             clf.mu, clf.alpha)
        own = clf.predict(X[rows], groups=groups[rows])
        assert (own == 1).sum() == (Z5 @ ref > 0).sum() == quoted, mu
        shares.append(round(100 * quoted / rows.sum()))
    assert shares == [52, 88, 100]


def _election_closed_form(counts, vote_epsilon, alpha=0.01):
    # the exponential mechanism on the counts, "no fixed class" (option 0)
    # given the guard T = (2 / eps) ln(2 / alpha): P(j) ~ exp(eps q_j / 2)
    q = np.asarray(counts, dtype=float)
    q[0] += 2.0 / vote_epsilon * math.log(2.0 / alpha)
    w = np.exp(vote_epsilon * (q - q.max()) / 2.0)
    return w / w.sum()


def test_privacy_page_har_vote_loses_linearsvc_rarely():
    from skfed._class_vote import split_budget, vote_probabilities

    text = _page("privacy.rst")
    assert ("At ``epsilon = 3`` HAR's 19 of 21 LinearSVC ballots elect LinearSVC in all "
            "but 0.06 % of fits (3.9 % when the vote had a third of the budget).") in text
    # options: "no fixed class", LinearSVC, the rbf model; 2 people vote
    # for their own rule (no fixed class)
    counts = [2, 19, 0]
    half = split_budget(3.0, 21)[1]
    assert half == pytest.approx(1.5)
    lost = []
    for vote_epsilon in (half, 3.0 / 3):
        p = vote_probabilities(counts, vote_epsilon)
        # the library's grid (qualities floored to 1/1024 of a ballot, an
        # integer scale spending at most vote_epsilon) moves them by < 1 %
        np.testing.assert_allclose(p, _election_closed_form(counts, vote_epsilon), rtol=1e-2)
        lost.append(1.0 - p[1])
    assert f"{100 * lost[0]:.2f}" == "0.06"
    assert f"{100 * lost[1]:.1f}" == "3.9"


def _bfs_subtree_bytes(adjacency, root=0):
    """Sum of the subtree sizes of the breadth-first tree from ``root``."""
    dense = adjacency.toarray().astype(bool)
    n = dense.shape[0]
    parent = np.full(n, -1)
    order, seen = [root], np.zeros(n, bool)
    seen[root] = True
    for k in order:
        for j in np.flatnonzero(dense[k] & ~seen):
            seen[j] = True
            parent[j] = k
            order.append(int(j))
    size = np.ones(n, int)
    for k in reversed(order[1:]):
        size[parent[k]] += size[k]
    return int(size[np.asarray(order[1:], int)].sum())


@pytest.mark.parametrize("topology, quoted", [
    (None, {50: "1.7", 200: "6.8", 800: "27", 3200: "109"}),
    ("ring", {50: "2.2", 200: "16.6", 800: "186", 3200: "2,666"}),
])
def test_privacy_page_vote_tree_bytes(topology, quoted):
    from skfed.boosting._private import tree_tally

    text = _page("privacy.rst")
    assert ("(1.7 / 6.8 / 27 / 109 kB at 50 / 200 / 800 / 3,200 nodes), quadratic on a "
            "ring, whose tree is deep (2.2 / 16.6 / 186 / 2,666 kB; review15)") in text
    assert "(24 nodes: 1,035 -> 782 on the star, 903 on a ring)" in text
    header = 16
    for K in (24, 50, 200, 800, 3200):
        if K == 3200 and topology is None:
            # the complete graph's dense adjacency is 10 M entries: the star's
            # subtrees are one node each
            ballot_bytes = K - 1
        else:
            sim_ref = SimulatedNetwork(topology=topology).start(K, server=False,
                                                                random_state=0)
            ballot_bytes = _bfs_subtree_bytes(sim_ref.adjacency)
        sim = SimulatedNetwork(topology=topology, header_bytes=header).start(
            K, server=False, random_state=0)
        reached, n_bytes, n_messages, _ = tree_tally(sim, np.ones(K, bool))
        assert reached.all() and n_messages == 2 * (K - 1)
        # one sealed ballot byte per node of each sender's subtree up, the
        # one-byte elected option down, a header each way
        assert n_bytes == ballot_bytes + (K - 1) * (1 + 2 * header)
        if K == 24:
            assert n_bytes == (903 if topology == "ring" else 782)
            continue
        kb = n_bytes / 1000
        digits = 1 if kb < 20 and quoted[K] != "109" else 0
        assert f"{kb:,.{digits}f}" == quoted[K], (topology, K, n_bytes)
