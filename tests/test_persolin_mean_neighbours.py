"""Perso-lin's feature-mean gate and join (skfed._mean_neighbours, issue 32).

The gate's gains and t statistic against a NumPy loop written from the
module's description; open on two terrains whose feature means differ,
closed where every node draws its features from one distribution; the fit's
extra bytes and the join's bytes in closed form; the newcomer's model as the
mass-weighted mean of its nearest fitted nodes' models; fitted nodes and the
fit's models bit-identical; privacy: no gate.
"""

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skfed import _mean_neighbours as mn
from skfed.boosting import PersonalizedLinearClassifier
from skfed.privacy import DifferentialPrivacy

HEADER = 16


def _terrains(n_nodes=12, n_rows=40, shift=4.0, seed=0):
    """Two terrains: even nodes near the origin with labels from feature 2,
    odd nodes shifted along feature 0 with labels from feature 1."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(n_nodes):
        odd = k % 2
        Xk = rng.normal(size=(n_rows, 3)) + (np.array([shift, 0, 0]) if odd else 0.0)
        y.append((Xk[:, 1 if odd else 2] > 0).astype(int))
        X.append(Xk)
        g.append(np.full(n_rows, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def _reference_gate(X, y, g, coef, intercept, m=5):
    """The gate by plain loops: node means, m nearest other nodes, mean
    models weighted by row counts, accuracies on each node's rows."""
    nodes = np.unique(g)
    means = np.array([X[g == k].mean(axis=0) for k in nodes])
    sizes = np.array([np.sum(g == k) for k in nodes], dtype=float)
    gains = []
    for i, k in enumerate(nodes):
        d = [np.sum((means[j] - means[i]) ** 2) if j != i else np.inf for j in range(len(nodes))]
        near = np.argsort(d, kind="stable")[:m]
        others = [j for j in range(len(nodes)) if j != i]

        def acc(chosen):
            w = sizes[chosen] / sizes[chosen].sum()
            c, b = w @ coef[chosen], w @ intercept[chosen]
            return np.mean(((X[g == k] @ c + b) > 0).astype(int) == y[g == k])

        gains.append(acc(near) - acc(np.array(others)))
    gains = np.array(gains)
    t = gains.mean() / (gains.std(ddof=1) / np.sqrt(len(gains)))
    return gains, t


def test_gate_statistic_closed_forms():
    assert mn.gate_statistic([0.1, 0.3]) == pytest.approx(0.2 / (np.std([0.1, 0.3], ddof=1)
                                                                 / np.sqrt(2)))
    assert mn.gate_statistic([0.0, 0.0, 0.0]) == 0.0
    assert mn.gate_statistic([0.2, 0.2]) == np.inf
    assert mn.gate_statistic([-0.2, -0.2]) == -np.inf
    assert mn.gate_statistic([0.5]) == 0.0


def test_gate_matches_numpy_and_opens_on_terrains():
    X, y, g = _terrains()
    clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    gains, t = _reference_gate(X, y, g, clf.coef_, clf.intercept_)
    assert np.allclose(clf.newcomer_gate_["gains"], gains, atol=1e-12)
    assert clf.newcomer_gate_["t"] == pytest.approx(t, rel=1e-9)
    assert clf.newcomer_gate_["open"] and t > mn.GATE_T and clf.newcomer_rule_ == "features"
    assert clf.newcomer_gate_["m"] == 5 and 0 < clf.newcomer_gate_["mean_gain"] <= 1


def test_gate_closed_when_means_carry_no_task():
    # one input distribution, two label rules: means do not tell the rules apart
    X, y, g = _terrains(shift=0.0, seed=1)
    clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    gains, t = _reference_gate(X, y, g, clf.coef_, clf.intercept_)
    assert np.allclose(clf.newcomer_gate_["gains"], gains, atol=1e-12)
    assert t <= mn.GATE_T and not clf.newcomer_gate_["open"] and clf.newcomer_rule_ == "posterior"
    # a closed gate: the join is the posterior join, as with join_neighbours="posterior"
    rng = np.random.RandomState(5)
    Xn = rng.normal(size=(8, 3))
    yn = (Xn[:, 1] > 0).astype(int)
    ref = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X, y, groups=g)
    clf.add_nodes(Xn, yn, groups=np.full(8, 50))
    ref.add_nodes(Xn, yn, groups=np.full(8, 50))
    assert np.array_equal(clf.coef_, ref.coef_) and np.array_equal(clf.intercept_, ref.intercept_)
    assert clf.join_communication_.total_bytes == ref.join_communication_.total_bytes


def test_fit_models_unchanged_and_gate_bytes_closed_form():
    X, y, g = _terrains()
    auto = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    graph = PersonalizedLinearClassifier(random_state=0, join_neighbours="graph").fit(
        X, y, groups=g)
    assert graph.newcomer_rule_ == "graph" and graph.newcomer_gate_ is None
    assert np.array_equal(auto.coef_, graph.coef_)
    assert np.array_equal(auto.intercept_, graph.intercept_)
    assert (auto.collaboration_graph_ != graph.collaboration_graph_).nnz == 0
    n, d, n_base = 12, 3, 4
    means = (n - 1) * (HEADER + 8 * (d + 1)) + (n - 1) * (HEADER + 5 * 8 + 5 * 4)
    models = n * 5 * (HEADER + HEADER + 8 * n_base)      # request + answer (dense)
    sums = 2 * (n - 1) * (HEADER + 8 * (n_base + 1))
    gains = 2 * (n - 1) * (HEADER + 8)
    scatter = (n - 1) * (HEADER + 8 * d * (d + 1) // 2)   # open: the scatter round (maha28)
    assert auto.n_bytes_sent_ - graph.n_bytes_sent_ == means + models + sums + gains + scatter
    assert auto.newcomer_gate_["n_bytes"] == means + models + sums + gains + scatter
    assert auto.communication_.n_rounds == graph.communication_.n_rounds + 8
    assert auto.n_messages_ - graph.n_messages_ == 2 * (n - 1) + 10 * n + 5 * (n - 1)


def test_newcomer_takes_the_mean_of_its_nearest_fitted_nodes():
    X, y, g = _terrains()
    clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    coef, intercept = clf.coef_.copy(), clf.intercept_.copy()
    rng = np.random.RandomState(3)
    Xn = np.vstack([rng.normal(size=(6, 3)) + [4.0, 0, 0], rng.normal(size=(9, 3))])
    yn = np.r_[np.zeros(6, int), (Xn[6:, 2] > 0).astype(int)]
    gn = np.r_[np.full(6, 100), np.full(9, 101)]
    order = rng.permutation(len(gn))                      # rows not grouped by node
    bytes_before = clf.n_bytes_sent_
    clf.add_nodes(Xn[order], yn[order], groups=gn[order])
    assert np.array_equal(clf.coef_[:12], coef) and np.array_equal(clf.intercept_[:12], intercept)
    means = np.array([X[g == k].mean(axis=0) for k in range(12)])
    sizes = np.array([np.sum(g == k) for k in range(12)], dtype=float)
    for row, node in ((12, 100), (13, 101)):
        mine = Xn[gn == node].mean(axis=0)
        near = np.argsort(((means - mine) ** 2).sum(axis=1), kind="stable")[:5]
        w = sizes[near] / sizes[near].sum()
        assert np.allclose(clf.coef_[row], w @ coef[near], atol=1e-12)
        assert np.isclose(clf.intercept_[row], w @ intercept[near], atol=1e-12)
        assert set(near) == set(clf.collaboration_graph_[row].indices)
        assert np.allclose(clf.collaboration_graph_[row, near].toarray().ravel(), w)
        assert np.allclose(clf.collaboration_graph_[near, row].toarray().ravel(), w)
        # shifted newcomer -> shifted (odd) nodes; the other -> even ones
        assert np.all(near % 2 == (1 if node == 100 else 0))
        assert clf.confidence_[row] == pytest.approx(np.sum(gn == node) / sizes.max())
    # per newcomer: its mean to the hub and 5 (index, mass) and the fit's
    # largest mass back, 5 requests + 5 models, 5 weights
    per = (HEADER + 8 * 3 + HEADER + 5 * 12 + 8 + 5 * HEADER + 5 * (HEADER + 8 * 4)
           + 5 * (HEADER + 8))
    assert clf.join_communication_.total_bytes == 2 * per
    assert clf.n_bytes_sent_ - bytes_before == 2 * per
    assert clf.score(Xn[:6], yn[:6], groups=gn[:6]) >= 0.0  # predicts for the newcomers
    with pytest.raises(ValueError, match="join_neighbours"):
        clf.set_params(join_neighbours="graph").add_nodes(Xn[:3], yn[:3], groups=[7, 7, 7])


def test_privacy_runs_no_gate_and_bad_value_refused():
    X, y, g = _terrains(n_nodes=8, n_rows=30)
    clf = PersonalizedLinearClassifier(
        random_state=0, max_iter=60,
        privacy=DifferentialPrivacy(epsilon=3.0, insecure_noise_seed=0)).fit(X, y, groups=g)
    assert clf.newcomer_rule_ == "graph" and clf.newcomer_gate_ is None
    plain = PersonalizedLinearClassifier(
        random_state=0, max_iter=60, privacy=DifferentialPrivacy(epsilon=np.inf)).fit(
        X, y, groups=g)
    assert plain.newcomer_gate_ is not None                   # epsilon=inf is the plain fit
    with pytest.raises(InvalidParameterError, match="join_neighbours"):
        PersonalizedLinearClassifier(join_neighbours="means").fit(X, y, groups=g)
    # six nodes: the 5 nearest are all the others, no gate (no bytes)
    six = g < 6
    small = PersonalizedLinearClassifier(random_state=0).fit(X[six], y[six], groups=g[six])
    ref = PersonalizedLinearClassifier(random_state=0, join_neighbours="graph").fit(
        X[six], y[six], groups=g[six])
    assert small.newcomer_gate_ is None and small.newcomer_rule_ == "graph"
    assert small.n_bytes_sent_ == ref.n_bytes_sent_


def test_hub_answer_honest_and_rogue():
    from types import SimpleNamespace

    means = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    sim = SimpleNamespace(rogue=np.zeros(7, bool), rng=np.random.RandomState(0),
                          network=SimpleNamespace(rogue_behavior="complement"))
    assert mn.hub_answer(sim, means, means[1], 3, exclude=1).tolist() == [0, 2, 3]
    sim.rogue[0] = True                                   # the hub lies: the farthest
    assert sorted(mn.hub_answer(sim, means, means[1], 3, exclude=1).tolist()) == [4, 5, 6]
    sim.network.rogue_behavior = "random"
    got = mn.hub_answer(sim, means, means[1], 3, exclude=1)
    assert len(set(got.tolist())) == 3 and 1 not in got


def test_join_over_a_dropping_network_waits_and_counts_retries():
    from skfed.network import SimulatedNetwork

    X, y, g = _terrains()
    net = SimulatedNetwork(drop_rate=0.4, random_state=0)
    clf = PersonalizedLinearClassifier(random_state=0, network=net).fit(X, y, groups=g)
    assert clf.newcomer_rule_ == "features"
    coef, intercept = clf.coef_.copy(), clf.intercept_.copy()
    rng = np.random.RandomState(3)
    Xn = rng.normal(size=(6, 3)) + [4.0, 0, 0]
    yn = np.zeros(6, int)
    clf.add_nodes(Xn, yn, groups=np.full(6, 100))
    means = np.array([X[g == k].mean(axis=0) for k in range(12)])
    sizes = np.array([np.sum(g == k) for k in range(12)], dtype=float)
    near = np.argsort(((means - Xn.mean(axis=0)) ** 2).sum(axis=1), kind="stable")[:5]
    w = sizes[near] / sizes[near].sum()
    assert np.allclose(clf.coef_[12], w @ coef[near]) and np.isclose(clf.intercept_[12],
                                                                     w @ intercept[near])
    once = (HEADER + 8 * 3 + HEADER + 5 * 12 + 5 * HEADER + 5 * (HEADER + 8 * 4)
            + 5 * (HEADER + 8))
    # retries add whole messages: a hub query (mean up) or an empty model request
    extra = clf.join_communication_.total_bytes - once
    assert extra >= 0
    assert any((extra - a * (HEADER + 24)) % HEADER == 0 and extra >= a * (HEADER + 24)
               for a in range(extra // (HEADER + 24) + 1))
    assert clf.join_communication_.n_rounds >= 3


def test_multiclass_gate_and_newcomer_match_numpy():
    rng = np.random.RandomState(0)
    X, y, g = [], [], []
    for k in range(12):
        odd = k % 2
        Xk = rng.normal(size=(40, 3)) + (np.array([4.0, 0, 0]) if odd else 0.0)
        y.append(np.digitize(Xk[:, 1 if odd else 2], [-0.5, 0.5]))
        X.append(Xk)
        g.append(np.full(40, k))
    X, y, g = np.vstack(X), np.concatenate(y), np.concatenate(g)
    clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    coef, intercept = clf.coef_.copy(), clf.intercept_.copy()   # (12, 3, 3), (12, 3)
    means = np.array([X[g == k].mean(axis=0) for k in range(12)])
    gains = []
    for i in range(12):
        d = ((means - means[i]) ** 2).sum(axis=1)
        d[i] = np.inf
        near = np.argsort(d, kind="stable")[:5]
        others = np.array([j for j in range(12) if j != i])

        def acc(chosen):
            w = np.full(len(chosen), 1.0 / len(chosen))      # equal node sizes
            scores = X[g == i] @ np.einsum("j,jpf->pf", w, coef[chosen]).T + w @ intercept[chosen]
            return np.mean(np.argmax(scores, axis=1) == y[g == i])

        gains.append(acc(near) - acc(others))
    assert np.allclose(clf.newcomer_gate_["gains"], gains, atol=1e-12)
    assert clf.newcomer_rule_ == "features"
    Xn = rng.normal(size=(6, 3)) + [4.0, 0, 0]
    clf.add_nodes(Xn, np.digitize(Xn[:, 1], [-0.5, 0.5]), groups=np.full(6, 99))
    near = np.argsort(((means - Xn.mean(axis=0)) ** 2).sum(axis=1), kind="stable")[:5]
    assert np.allclose(clf.coef_[12], coef[near].mean(axis=0), atol=1e-12)
    assert np.allclose(clf.intercept_[12], intercept[near].mean(axis=0), atol=1e-12)


def test_fit_gate_over_a_dropping_network_waits_for_every_node():
    # The gate's messages go through the fit's faults: a dropped node sends
    # in a later round (was: delivered whatever the drop rate).  Its values
    # are those of the same fit's models without faults in the gate, its
    # bytes those of the closed form plus one empty request per retried
    # model fetch, and it takes more than its 7 rounds.
    from skfed import _mean_neighbours as mn
    from skfed.network import SimulatedNetwork

    X, y, g = _terrains()
    net = SimulatedNetwork(drop_rate=0.4, random_state=0)
    clf = PersonalizedLinearClassifier(random_state=0, network=net).fit(X, y, groups=g)
    gate = clf.newcomer_gate_
    ref = _reference_gate(X, y, g, clf.coef_, clf.intercept_)
    np.testing.assert_allclose(gate["gains"], ref[0], atol=1e-12)
    n, d, n_base = 12, 3, 4
    closed = ((n - 1) * (HEADER + 8 * (d + 1)) + (n - 1) * (HEADER + 5 * 8 + 5 * 4)
              + n * 5 * (HEADER + HEADER + 8 * n_base) + 2 * (n - 1) * (HEADER + 8 * (n_base + 1))
              + 2 * (n - 1) * (HEADER + 8))
    extra = gate["n_bytes"] - closed
    assert extra > 0 and extra % HEADER == 0      # only empty requests repeat
    # the same delivery helper: every sender's message arrives exactly once
    sim = SimulatedNetwork(drop_rate=0.5, random_state=1).start(6, random_state=0)
    mn._deliver(sim, np.arange(1, 6), np.zeros(5, np.intp), np.full(5, 100))
    log = sim.log(node_labels=np.arange(6))
    assert log.total_messages == 5 and log.total_bytes == 5 * (100 + HEADER) and log.n_rounds > 1
