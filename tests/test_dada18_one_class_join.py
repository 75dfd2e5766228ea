"""Dada's feature-mean gate and its one-class join (skfed.boosting._dada_mean_join).

References: the gate's gains recomputed by a NumPy loop over the fitted
nodes, the one-class newcomer's model as the NumPy mass-weighted mean of the
rows of its nearest-mean nodes, bytes in closed form, and the graph join
(``join_neighbours="graph"``) for everything the rule must leave alone.
"""

import copy

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier, make_stump_predictors
from skfed.graph import model_message_bytes
from skfed.network import DEFAULT_HEADER_BYTES, payload_bytes
from skfed.privacy import DifferentialPrivacy

from ._helpers.mpi import needs_mpi, saved_cases


def terrains(n_nodes=12, n=30, seed=0, offset=3.0, shared=False):
    """Two terrains told apart by feature 0's mean; opposite rules on feature 1
    (``shared``: one rule for all)."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(n_nodes):
        side = 1 if k % 2 else -1
        x = rng.normal(size=(n, 3))
        x[:, 0] += offset * side
        X.append(x)
        y.append(((1 if shared else side) * x[:, 1] > 0).astype(int))
        g.append(np.full(n, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def fit(join_neighbours="auto", **kw):
    X, y, g = terrains(**kw)
    clf = DecentralizedBoostingClassifier(n_estimators=12, random_state=0,
                                          join_neighbours=join_neighbours)
    return clf.fit(X, y, groups=g), X, y, g


def newcomers(seed=5):
    """Node 100: one class, terrain +1; node 101: both classes, terrain -1."""
    rng = np.random.RandomState(seed)
    a = rng.normal(size=(6, 3))
    a[:, 0] += 3
    a[:, 1] = np.abs(a[:, 1])
    b = rng.normal(size=(8, 3))
    b[:, 0] -= 3
    yb = (-b[:, 1] > 0).astype(int)
    assert 0 < yb.sum() < len(yb)
    return (np.vstack([a, b]), np.concatenate([np.ones(6, int), yb]),
            np.concatenate([np.full(6, 100), np.full(8, 101)]))


def numpy_means(X, g, nodes):
    return np.array([X[g == k].mean(axis=0) for k in nodes]), np.array(
        [float(np.sum(g == k)) for k in nodes])


def nearest5(means, target, exclude=None):
    d = ((means - target) ** 2).sum(axis=1)
    if exclude is not None:
        d[exclude] = np.inf
    return np.argsort(d, kind="stable")[:5]


def test_gate_gains_and_t_match_a_numpy_loop():
    clf, X, y, g = fit()
    means, masses = numpy_means(X, g, clf.nodes_)
    W = clf._full_coef()[:, 0, :]                        # (n, n_base), intercept last
    H = clf._base_matrix(X, np.float64)
    gains = []
    for i, k in enumerate(clf.nodes_):
        rows = g == k
        near = nearest5(means, means[i], exclude=i)
        near_model = (masses[near] / masses[near].sum()) @ W[near]
        others = np.delete(np.arange(len(W)), i)
        other_model = (masses[others] / masses[others].sum()) @ W[others]
        acc = [np.mean((H[rows] @ m > 0) == (y[rows] == 1)) for m in (near_model, other_model)]
        gains.append(acc[0] - acc[1])
    gains = np.array(gains)
    gate = clf.newcomer_gate_
    np.testing.assert_allclose(gate["gains"], gains, atol=1e-12)
    t = gains.mean() / (gains.std(ddof=1) / np.sqrt(len(gains)))
    assert gate["t"] == pytest.approx(t)
    assert gate["t"] > 3 and gate["open"] and clf.newcomer_rule_ == "one-class"
    # the terrain's peers win on every node's rows
    assert np.all(gains > 0.3)


def test_gate_bytes_closed_form_and_fit_unchanged():
    auto, X, y, g = fit()
    graph, *_ = fit(join_neighbours="graph")
    # the fitted models and graph do not depend on the gate
    np.testing.assert_array_equal(auto.coef_, graph.coef_)
    np.testing.assert_array_equal(auto.intercept_, graph.intercept_)
    assert (auto.collaboration_graph_ != graph.collaboration_graph_).nnz == 0
    assert graph.newcomer_gate_ is None and graph.newcomer_rule_ == "graph"
    n, d = len(auto.nodes_), X.shape[1]
    flat = auto._full_coef().reshape(n, -1)
    means, _ = numpy_means(X, g, auto.nodes_)
    per_model = model_message_bytes(flat, flat.dtype)
    near_bytes = sum(int(per_model[nearest5(means, means[i], exclude=i)].sum())
                     for i in range(n))
    # (dada25: the mass-weighted models up and their total down as model
    # messages, tests/test_dada25_gate_bytes.py; this fit is float64)
    masses = np.bincount(g)[auto.nodes_].astype(float)
    shares = masses[:, None] * flat
    expected = ((n - 1) * payload_bytes(n_float64=d + 1)                 # means to the hub
                + (n - 1) * payload_bytes(n_float64=5, n_int32=5)         # its answers
                + near_bytes                                              # nearest models
                + int(model_message_bytes(shares[1:]).sum()) + (n - 1) * 8
                + (n - 1) * (int(model_message_bytes(shares.sum(0)[None])[0]) + 8)
                + 2 * (n - 1) * payload_bytes(n_float64=1)
                + (n - 1) * payload_bytes(n_float64=d * (d + 1) // 2))   # scatters (dada27)
    messages = 2 * (n - 1) + 5 * n + 5 * n + 4 * (n - 1) + (n - 1)  # (every message: a header)
    expected += DEFAULT_HEADER_BYTES * messages
    assert auto.newcomer_gate_["n_bytes"] == expected
    assert auto.n_messages_ - graph.n_messages_ == messages
    assert auto.n_bytes_sent_ - graph.n_bytes_sent_ == expected
    assert auto.communication_.total_bytes == auto.n_bytes_sent_


def test_one_class_newcomer_takes_the_mean_of_its_nearest_nodes():
    clf, X, y, g = fit()
    Xn, yn, gn = newcomers()
    n_fit = len(clf.nodes_)
    before = clf._full_coef().copy()
    means, masses = numpy_means(X, g, clf.nodes_)
    joined = copy.deepcopy(clf).add_nodes(Xn, yn, groups=gn)
    # mixed newcomers first (the graph join), then the one-class ones
    assert joined.nodes_.tolist() == list(range(12)) + [101, 100]
    full = joined._full_coef()
    np.testing.assert_array_equal(full[:n_fit], before)        # fitted nodes untouched
    near = nearest5(means, Xn[gn == 100].mean(axis=0))
    assert set(clf.nodes_[near] % 2) == {1}                     # its own terrain
    w = masses[near] / masses[near].sum()
    np.testing.assert_allclose(full[n_fit + 1], np.tensordot(w, before[near], axes=1),
                               rtol=1e-12, atol=1e-15)
    W = joined.collaboration_graph_.toarray()
    np.testing.assert_allclose(W[n_fit + 1, near], w)
    assert np.count_nonzero(W[n_fit + 1]) == 5
    assert joined.confidence_[n_fit + 1] == pytest.approx(6 / 30)
    # the two-class newcomer: exactly a graph join of it alone
    ref = copy.deepcopy(clf)
    ref.newcomer_rule_ = "graph"
    ref.add_nodes(Xn[gn == 101], yn[gn == 101], groups=gn[gn == 101])
    np.testing.assert_array_equal(full[n_fit], ref._full_coef()[n_fit])
    # it predicts its terrain's rule: positives where x1 > 0
    Xt = np.array([[3.0, 1.0, 0.0], [3.0, -1.0, 0.0]])
    assert joined.predict(Xt, groups=[100, 100]).tolist() == [1, 0]


def test_one_class_join_bytes_closed_form():
    clf, X, y, g = fit()
    Xn, yn, gn = newcomers()
    one = gn == 100
    joined = copy.deepcopy(clf).add_nodes(Xn[one], yn[one], groups=gn[one])
    n_fit, d = len(clf.nodes_), X.shape[1]
    flat = clf._full_coef().reshape(n_fit, -1)
    assert d == 3
    means, _ = numpy_means(X, g, clf.nodes_)
    near = nearest5(means, Xn[one].mean(axis=0))
    per_model = model_message_bytes(flat, flat.dtype)
    expected = (payload_bytes(n_float64=d)                                   # mean to the hub
                + payload_bytes(n_float64=5 + 1, n_int32=5)   # its answer (+ the fit's max mass)
                + 5 * payload_bytes() + int(per_model[near].sum())             # models
                + 5 * payload_bytes(n_float64=1)                              # weights
                + DEFAULT_HEADER_BYTES * 17)                                  # headers
    log = joined.join_communication_
    assert log.total_bytes == expected
    assert joined.n_bytes_sent_ == clf.n_bytes_sent_ + expected
    assert log.total_messages == 1 + 1 + 5 + 5 + 5


def test_closed_gate_join_is_the_graph_join():
    # one task: the feature means carry no task signal, the gate stays closed
    clf, X, y, g = fit(shared=True)
    assert clf.newcomer_rule_ == "graph" and not clf.newcomer_gate_["open"]
    Xn, yn, gn = newcomers()
    a = copy.deepcopy(clf).add_nodes(Xn, yn, groups=gn)
    b, *_ = fit(join_neighbours="graph", shared=True)
    b.add_nodes(Xn, yn, groups=gn)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    assert (a.collaboration_graph_ != b.collaboration_graph_).nnz == 0
    assert a.join_communication_.total_bytes == b.join_communication_.total_bytes


def test_open_gate_without_one_class_newcomers_is_the_graph_join():
    clf, X, y, g = fit()
    Xn, yn, gn = newcomers()
    two = gn == 101
    a = copy.deepcopy(clf).add_nodes(Xn[two], yn[two], groups=gn[two])
    b = copy.deepcopy(clf)
    b.newcomer_rule_ = "graph"
    b.add_nodes(Xn[two], yn[two], groups=gn[two])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.join_communication_.total_bytes == b.join_communication_.total_bytes


def test_no_gate_under_privacy():
    X, y, g = terrains()
    preds = make_stump_predictors(X.min(axis=0), X.max(axis=0), 12)
    clf = DecentralizedBoostingClassifier(
        base_predictors=preds, random_state=0,
        privacy=DifferentialPrivacy(epsilon=5.0, delta=1e-5)).fit(X, y, groups=g)
    assert clf.newcomer_rule_ == "graph" and clf.newcomer_gate_ is None


def test_join_neighbours_checked_and_fixed_after_fit():
    X, y, g = terrains()
    with pytest.raises(ValueError, match="join_neighbours"):
        DecentralizedBoostingClassifier(join_neighbours="features").fit(X, y, groups=g)
    clf, *_ = fit()
    Xn, yn, gn = newcomers()
    clf.set_params(join_neighbours="graph")
    with pytest.raises(ValueError, match="join_neighbours"):
        clf.add_nodes(Xn, yn, groups=gn)


def test_auto_runs_no_gate_where_the_hub_cannot_hear_every_node():
    # (dada25: was refused by name while "auto" was opt-in; now the default
    # runs no gate there and newcomers join by the graph)
    from skfed.network import SimulatedNetwork

    X, y, g = terrains()
    ring = DecentralizedBoostingClassifier(
        n_estimators=12, random_state=0, network=SimulatedNetwork(topology="ring")).fit(X, y, groups=g)
    graph = DecentralizedBoostingClassifier(
        n_estimators=12, random_state=0, join_neighbours="graph",
        network=SimulatedNetwork(topology="ring")).fit(X, y, groups=g)
    assert ring.newcomer_rule_ == "graph" and ring.newcomer_gate_ is None
    assert ring.n_bytes_sent_ == graph.n_bytes_sent_
    # nor under a bounding peer view (node 0 would hear from every node)
    view = DecentralizedBoostingClassifier(n_estimators=12, random_state=0,
                                           peer_view=4).fit(X, y, groups=g)
    assert view.newcomer_gate_ is None and view.newcomer_rule_ == "graph"
    whole = DecentralizedBoostingClassifier(n_estimators=12, random_state=0,
                                            peer_view=11).fit(X, y, groups=g)
    assert whole.newcomer_rule_ == "one-class"
    # the gate's rounds count in the fit's last round
    assert len(whole.bytes_per_round_) == len(whole.objective_curve_) == whole.n_iter_
    assert whole.bytes_per_round_.sum() == whole.n_bytes_sent_
    # at most 6 nodes: the 5 nearest are all the others, no gate
    small = DecentralizedBoostingClassifier(n_estimators=12, random_state=0).fit(
        X[g < 6], y[g < 6], groups=g[g < 6])
    assert small.newcomer_gate_ is None


def test_default_is_auto():
    assert DecentralizedBoostingClassifier().join_neighbours == "auto"


@needs_mpi
def test_mpi_engine_runs_no_gate(tmp_path):
    # (dada25: was refused by name while "auto" was opt-in)
    from skfed.engines import mpi

    X, y, g = terrains()
    est = DecentralizedBoostingClassifier(n_estimators=12, max_iter=120, random_state=0)
    (_, _, directory, *_), = saved_cases([("auto", est, X, y, g, None)], tmp_path)
    run = mpi.fit(est, directory)
    assert run.newcomer_rule_ == "graph" and run.newcomer_gate_ is None
    sim = DecentralizedBoostingClassifier(n_estimators=12, max_iter=120, random_state=0,
                                          join_neighbours="graph").fit(X, y, groups=g)
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    assert run.n_bytes_sent_ == sim.n_bytes_sent_


def test_one_class_counts_positive_weights_only():
    clf, X, y, g = fit()
    Xn, yn, gn = newcomers()
    two = gn == 101
    sw = np.where(yn[two] == 1, 0.0, 1.0)   # its positives weigh nothing: one class
    joined = copy.deepcopy(clf).add_nodes(Xn[two], yn[two], groups=gn[two], sample_weight=sw)
    means, masses = numpy_means(X, g, clf.nodes_)
    target = np.average(Xn[two], axis=0, weights=sw)
    near = nearest5(means, target)
    w = masses[near] / masses[near].sum()
    np.testing.assert_allclose(joined._full_coef()[12],
                               np.tensordot(w, clf._full_coef()[near], axes=1), rtol=1e-12)
    assert joined.confidence_[12] == pytest.approx(sw.sum() / 30)


def test_dropped_nodes_delay_the_one_class_join_only():
    from skfed.network import SimulatedNetwork

    X, y, g = terrains()
    Xn, yn, gn = newcomers()
    one = gn == 100
    out = []
    for rate in (0.0, 0.5):
        clf = DecentralizedBoostingClassifier(
            n_estimators=12, random_state=0, join_neighbours="auto",
            network=SimulatedNetwork(drop_rate=rate, random_state=0)).fit(X, y, groups=g)
        assert clf.newcomer_rule_ == "one-class"
        before = clf._full_coef().copy()
        clf.add_nodes(Xn[one], yn[one], groups=gn[one])
        # the newcomer's model is the mean of its 5 nearest nodes' final models
        means, masses = numpy_means(X, g, clf.nodes_[:12])
        near = nearest5(means, Xn[one].mean(axis=0))
        w = masses[near] / masses[near].sum()
        np.testing.assert_allclose(clf._full_coef()[12], np.tensordot(w, before[near], axes=1),
                                   rtol=1e-12, atol=1e-15)
        out.append(clf.join_communication_)
    # requests are repeated to dropped nodes: more messages, the same answers
    assert out[1].total_messages > out[0].total_messages == 17


def test_auto_radius_runs_the_gate_on_its_final_fit_only():
    X, y, g = terrains()
    clf = DecentralizedBoostingClassifier(n_estimators=12, random_state=0, beta="auto",
                                          join_neighbours="auto").fit(X, y, groups=g)
    final = DecentralizedBoostingClassifier(
        n_estimators=12, random_state=0, beta=clf.beta_, mu=clf.mu_,
        join_neighbours="auto").fit(X, y, groups=g)
    assert clf.newcomer_rule_ == "one-class"
    assert clf.newcomer_gate_["n_bytes"] == final.newcomer_gate_["n_bytes"] > 0
    np.testing.assert_array_equal(clf.newcomer_gate_["gains"], final.newcomer_gate_["gains"])
    # the candidates' fits ran no gate: without it the totals differ by the gate only
    plain = DecentralizedBoostingClassifier(n_estimators=12, random_state=0, beta="auto",
                                            join_neighbours="graph").fit(X, y, groups=g)
    assert clf.n_bytes_sent_ - plain.n_bytes_sent_ == clf.newcomer_gate_["n_bytes"]
    Xn, yn, gn = newcomers()
    clf.add_nodes(Xn, yn, groups=gn)
    assert clf.nodes_.tolist()[-2:] == [101, 100]
