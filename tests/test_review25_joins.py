"""Growing federations used as the docs say, by an adversary (review25).

Dada's feature-mean gate runs only where it can open (more than
``N_NEAREST + 1`` fitted nodes, as Perso-lin's and the user guide say; it
ran and paid 8-20 kB on 3-6 nodes, where every gain is 0); a newcomer of
the feature-mean join is rogue with probability ``rogue_fraction`` (the
public draw of the graph join), kept for later joins (it was always honest).
"""

import numpy as np
import pytest

from skfed._graph_join import _random_seed
from skfed._graph_join_fitted import join_rogue
from skfed._mean_neighbours import N_NEAREST
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.network import SimulatedNetwork


def _terrains(n_nodes, n_rows=20, seed=0, first=0):
    """Even nodes near the origin, labels from feature 2; odd nodes shifted
    along feature 0, labels from feature 1."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(n_nodes):
        Xk = rng.normal(size=(n_rows, 4)) + (np.array([4.0, 0, 0, 0]) if k % 2 else 0.0)
        y.append((Xk[:, 1 if k % 2 else 2] > 0).astype(int))
        X.append(Xk)
        g.append(np.full(n_rows, first + k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


@pytest.mark.parametrize("n_nodes", [3, N_NEAREST + 1])
def test_dada_runs_no_gate_on_few_nodes(n_nodes):
    X, y, g = _terrains(n_nodes)
    kw = dict(random_state=0, max_iter=100)
    auto = DecentralizedBoostingClassifier(join_neighbours="auto", **kw).fit(X, y, groups=g)
    graph = DecentralizedBoostingClassifier(join_neighbours="graph", **kw).fit(X, y, groups=g)
    assert auto.newcomer_gate_ is None and auto.newcomer_rule_ == "graph"
    assert auto.n_bytes_sent_ == graph.n_bytes_sent_
    np.testing.assert_array_equal(auto.coef_, graph.coef_)
    # nothing is sent to a hub, so a ring is no reason to refuse
    ring = DecentralizedBoostingClassifier(join_neighbours="auto", network=SimulatedNetwork(
        topology="ring"), **kw).fit(X, y, groups=g)
    assert ring.newcomer_gate_ is None


def test_dada_gate_still_runs_above_the_threshold():
    X, y, g = _terrains(N_NEAREST + 2)
    auto = DecentralizedBoostingClassifier(join_neighbours="auto", random_state=0,
                                           max_iter=100).fit(X, y, groups=g)
    assert auto.newcomer_gate_ is not None and auto.newcomer_gate_["n_bytes"] > 0


def test_mean_join_newcomers_drawn_rogue_and_kept():
    X, y, g = _terrains(20)
    net = SimulatedNetwork(rogue_fraction=0.35, rogue_behavior="random", random_state=0)
    clf = PersonalizedLinearClassifier(random_state=0, network=net).fit(X, y, groups=g)
    assert clf.newcomer_rule_ == "features"
    fitted_rogue = clf._join_info["rogue"].copy()
    expected = join_rogue(net, fitted_rogue, 10, [_random_seed(clf), 0, 7919])
    assert expected[20:].sum() >= 1                     # (this draw holds rogue newcomers)
    Xn, yn, gn = _terrains(10, n_rows=6, seed=3, first=100)
    clf.add_nodes(Xn, yn, groups=gn)
    np.testing.assert_array_equal(clf._join_info["rogue"], expected)
    # a second join keeps them and draws its own from the next seed
    X2, y2, g2 = _terrains(4, n_rows=6, seed=4, first=200)
    clf.add_nodes(X2, y2, groups=g2)
    np.testing.assert_array_equal(clf._join_info["rogue"][:30], expected)
    np.testing.assert_array_equal(
        clf._join_info["rogue"], join_rogue(net, expected, 4, [_random_seed(clf), 1, 7919]))


def test_mocha_warm_start_after_a_join_is_not_silently_dropped():
    from skfed.multitask import FederatedMultiTaskClassifier

    X, y, g = _terrains(14)
    Xn, yn, gn = _terrains(3, n_rows=8, seed=7, first=100)
    plain = FederatedMultiTaskClassifier(random_state=0, warm_start=True).fit(X, y, groups=g)
    with pytest.raises(ValueError, match="warm_start"):     # other nodes: refused
        plain.fit(np.vstack([X, Xn]), np.concatenate([y, yn]), groups=np.concatenate([g, gn]))
    joined = FederatedMultiTaskClassifier(random_state=0, warm_start=True).fit(X, y, groups=g)
    joined.add_nodes(Xn, yn, groups=gn)
    # (fix26) after a join the fitted and joined nodes are the fit's nodes:
    # the warm refit on them starts from their dual variables (the first
    # round carries every node's dual vector: more bytes than a cold fit) ...
    XA, yA, gA = np.vstack([X, Xn]), np.concatenate([y, yn]), np.concatenate([g, gn])
    cold = FederatedMultiTaskClassifier(random_state=0).fit(XA, yA, groups=gA)
    joined.fit(XA, yA, groups=gA)
    assert joined.bytes_per_round_[0] > cold.bytes_per_round_[0]
    # ... and a refit on other nodes (the fitted ones only) is refused
    joined = FederatedMultiTaskClassifier(random_state=0, warm_start=True).fit(X, y, groups=g)
    joined.add_nodes(Xn, yn, groups=gn)
    with pytest.raises(ValueError, match="warm_start"):
        joined.fit(X, y, groups=g)
