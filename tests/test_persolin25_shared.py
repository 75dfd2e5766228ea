"""Perso-lin's shared newcomer model (join_neighbours="shared", issue 32).

Checked against independent references: the hub's solve against
scikit-learn's LogisticRegression(C=1) on the kept rows and the objective's
gradient in NumPy, every node's sums and the gate's gains by plain loops,
the fit's and the join's bytes in closed form; the fitted models are
bit-identical to join_neighbours="graph".
"""

import copy

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfed.boosting import PersonalizedLinearClassifier
from skfed.boosting import _perso_lin_shared as sh
from skfed.network import SimulatedNetwork
from skfed.privacy import DifferentialPrivacy

HEADER = 16


def _federation(n_nodes=10, n_rows=30, d=4, opposite=False, seed=0, n_classes=2):
    """Nodes of one linear task (or, with ``opposite``, odd nodes with the
    labels flipped); sizes vary so that the held-back counts differ."""
    rng = np.random.RandomState(seed)
    w = rng.normal(size=(n_classes if n_classes > 2 else 1, d))
    X, y, g = [], [], []
    for k in range(n_nodes):
        m = n_rows + 3 * k
        Xk = rng.normal(size=(m, d))
        scores = Xk @ w.T + 0.5 * rng.normal(size=(m, w.shape[0]))
        yk = np.argmax(scores, axis=1) if n_classes > 2 else (scores[:, 0] > 0).astype(int)
        if opposite and k % 2:
            yk = 1 - yk
        X.append(Xk)
        y.append(yk)
        g.append(np.full(m, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def _offsets(g):
    return np.r_[0, np.cumsum(np.bincount(g))]


def test_held_back_counts_and_reproducible():
    offsets = np.array([0, 4, 9, 30, 30, 37])
    a = sh.held_back(offsets, np.random.RandomState(3))
    b = sh.held_back(offsets, np.random.RandomState(3))
    assert np.array_equal(a, b)
    counts = [a[offsets[k]:offsets[k + 1]].sum() for k in range(5)]
    assert counts == [0, 1, 4, 0, 1]             # m // 5


def test_node_sums_match_loops():
    rng = np.random.RandomState(0)
    Z = np.c_[rng.normal(size=(25, 3)), np.ones(25)]
    Y = np.sign(rng.normal(size=(2, 25)))
    w = rng.uniform(0, 2, size=25)
    offsets = np.array([0, 7, 7, 18, 25])
    S = rng.normal(size=(2, 4))
    losses, grads = sh.node_sums(Z, Y, w, offsets, S, 3)
    for k in range(4):
        for p in range(2):
            L = G = 0.0
            for i in range(offsets[k], offsets[k + 1]):
                z = Y[p, i] * (S[p] @ Z[i])
                L += w[i] * np.log1p(np.exp(-z))
                G = G + w[i] * (-Y[p, i] / (1 + np.exp(z))) * Z[i]
            assert losses[k, p] == pytest.approx(L, rel=1e-12, abs=1e-14)
            np.testing.assert_allclose(grads[k, p], G, rtol=1e-10, atol=1e-14)


def test_shared_model_is_sklearn_logistic_regression_on_kept_rows():
    X, y, g = _federation()
    Z = np.c_[X, np.ones(len(X))]
    Y = np.where(y == 1, 1.0, -1.0)[None]
    offsets = _offsets(g)
    keep = ~sh.held_back(offsets, np.random.RandomState(0))
    sim = SimulatedNetwork().start(10, random_state=0)
    S, n_rounds = sh.solve_shared(Z, Y, np.ones(len(y)), offsets, keep, sim, 4, rounds=200)
    assert n_rounds < 200                        # stopped by the gradient tolerance
    ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(X[keep], y[keep])
    np.testing.assert_allclose(S[0, :4], ref.coef_[0], atol=2e-4)
    assert S[0, 4] == pytest.approx(ref.intercept_[0], abs=2e-4)
    # the objective's gradient (NumPy, pooled) vanishes at S
    M = keep.sum()
    z = Y[0, keep] * (Z[keep] @ S[0])
    grad = Z[keep].T @ (-Y[0, keep] / (1 + np.exp(z))) / M
    grad[:4] += S[0, :4] / M
    assert np.abs(grad).max() < 1e-5
    # bytes: the scaling round, the scale down and the sketches up (rank
    # min(SKETCH_RANK, 5) = 5; persolin32), then one exchange per evaluation
    log = sim.log(node_labels=np.arange(10))
    closed = (9 * (HEADER + 4 * 6) + 9 * (HEADER + 4 * 5) + 9 * (HEADER + 4 * 5 * 5)
              + n_rounds * 9 * ((HEADER + 4 * 5) + (HEADER + 4 * 6)))  # f32
    assert log.total_bytes == closed
    assert log.total_messages == 27 + 18 * n_rounds


def test_rounds_cap_and_drops_leave_the_model_unchanged():
    X, y, g = _federation(seed=1)
    Z = np.c_[X, np.ones(len(X))]
    Y = np.where(y == 1, 1.0, -1.0)[None]
    offsets = _offsets(g)
    keep = ~sh.held_back(offsets, np.random.RandomState(0))
    plain = SimulatedNetwork().start(10, random_state=0)
    S5, n5 = sh.solve_shared(Z, Y, np.ones(len(y)), offsets, keep, plain, 4, rounds=5)
    assert n5 == 5
    lossy = SimulatedNetwork(drop_rate=0.4, random_state=0).start(10, random_state=0)
    S5d, n5d = sh.solve_shared(Z, Y, np.ones(len(y)), offsets, keep, lossy, 4, rounds=5)
    assert n5d == 5 and np.array_equal(S5, S5d)  # the hub waits for every node
    a, b = plain.log(node_labels=np.arange(10)), lossy.log(node_labels=np.arange(10))
    assert a.total_bytes == b.total_bytes and a.total_messages == b.total_messages
    assert b.n_rounds > a.n_rounds


def _newton_block(Zk, yk, S, c, alpha, mu, loss="logistic"):
    """The newcomer's block ``c F + (mu / 2) ||theta - S||^2`` by Newton's
    method (an independent solve of the same objective), one problem."""
    theta = S.copy()
    n_pen = len(S) - 1
    reg = np.r_[np.full(n_pen, alpha), 0.0]
    for _ in range(100):
        m = yk * (Zk @ theta)
        if loss == "logistic":
            slope, curv = -1.0 / (1.0 + np.exp(m)), np.exp(m) / (1.0 + np.exp(m)) ** 2
        else:
            gap = np.maximum(0.0, 1.0 - m)
            slope, curv = -2.0 * gap, 2.0 * (gap > 0)
        g = c * (Zk.T @ (slope * yk) / len(yk) + reg * theta) + mu * (theta - S)
        H = c * ((Zk * curv[:, None]).T @ Zk / len(yk) + np.diag(reg)) + mu * np.eye(len(S))
        theta = theta - np.linalg.solve(H, g)
    return theta


def _reference_gains(X, y, g, S, W, models, back):
    gains = []
    for k in np.unique(g):
        row = W[k].copy()
        row[k] = 0
        rows = np.flatnonzero((g == k) & back)
        if not len(rows) or row.sum() == 0:
            continue
        u = row @ models / row.sum()
        s = np.where(y[rows] == 1, 1.0, -1.0)
        Zr = np.c_[X[rows], np.ones(len(rows))]
        gains.append(np.mean(np.log1p(np.exp(-s * (Zr @ u))))
                     - np.mean(np.log1p(np.exp(-s * (Zr @ S)))))
    return np.array(gains)


def test_gate_gains_match_numpy_and_bytes_closed_form():
    X, y, g = _federation()
    Z = np.c_[X, np.ones(len(X))]
    Y = np.where(y == 1, 1.0, -1.0)[None]
    offsets = _offsets(g)
    back = sh.held_back(offsets, np.random.RandomState(2))
    rng = np.random.RandomState(0)
    W = rng.uniform(size=(10, 10)) * (rng.uniform(size=(10, 10)) < 0.5)
    W = W + W.T
    np.fill_diagonal(W, 0)
    models = rng.normal(size=(10, 1, 5))
    S = rng.normal(size=(1, 5))
    sim = SimulatedNetwork().start(10, random_state=0)
    gains, t = sh.shared_gate(Z, Y, np.ones(len(y)), offsets, back, S, W, models, sim)
    ref = _reference_gains(X, y, g, S[0], W, models[:, 0], back)
    np.testing.assert_allclose(gains, ref, rtol=1e-10)
    assert t == pytest.approx(ref.mean() / (ref.std(ddof=1) / np.sqrt(len(ref))))
    assert sim.log(node_labels=np.arange(10)).total_bytes == 2 * 9 * (HEADER + 8)


def test_fit_opens_on_one_task_newcomers_take_s_old_nodes_unchanged():
    X, y, g = _federation(n_nodes=12)
    new = g >= 10
    # a strong alpha shrinks the personalized models: S (C = 1) fits better
    kw = dict(random_state=0, alpha=1.0)
    shared = PersonalizedLinearClassifier(join_neighbours="shared", **kw).fit(
        X[~new], y[~new], groups=g[~new])
    graph = PersonalizedLinearClassifier(join_neighbours="graph", **kw).fit(
        X[~new], y[~new], groups=g[~new])
    assert np.array_equal(shared.coef_, graph.coef_)          # the paper's models kept
    assert np.array_equal(shared.intercept_, graph.intercept_)
    gate = shared.newcomer_gate_
    assert gate["open"] and gate["t"] > 3 and shared.newcomer_rule_ == "shared"
    n, nb = 10, 5
    n1 = gate["n_rounds"]
    closed = (9 * (HEADER + 4 * (nb + 1)) + 9 * (HEADER + 4 * nb)   # (float32) scaling, scale
              + 9 * (HEADER + 4 * nb * nb)                           # sketches (rank nb < 10)
              + n1 * 9 * ((HEADER + 4 * nb) + (HEADER + 4 * (nb + 1)))
              + 2 * 9 * (HEADER + 8))
    assert gate["n_bytes"] == closed == shared.n_bytes_sent_ - graph.n_bytes_sent_
    assert 1 <= n1 <= sh.SHARED_ROUNDS
    # the newcomers' S: sklearn's LogisticRegression(C=1) on the kept rows
    # (no second solve on every row since persolin32)
    fit_rows = np.flatnonzero(~new)
    keep = ~sh.held_back(_offsets(g[~new]), np.random.RandomState(sh._seed(shared)))
    ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(X[fit_rows[keep]],
                                                                     y[fit_rows[keep]])
    S = shared._join_info["shared_model"]
    np.testing.assert_allclose(S[0], np.r_[ref.coef_[0], ref.intercept_], atol=1e-3)
    S = shared._join_info["shared_model"]
    before = shared.coef_.copy(), shared.intercept_.copy()
    first = np.r_[0, np.cumsum(np.bincount(g))][g]
    new = new & (np.arange(len(g)) - first < 10)      # newcomers of 10 samples: c < 1
    shared.add_nodes(X[new], y[new], groups=g[new])
    assert np.array_equal(shared.coef_[:n], before[0])
    assert np.array_equal(shared.intercept_[:n], before[1])
    for k in (10, 11):
        rows = g[new] == k
        c = shared.confidence_[k]
        assert c == pytest.approx(10 / np.bincount(g[g < 10]).max()) and c < 1
        ref = _newton_block(np.c_[X[new][rows], np.ones(rows.sum())],
                            np.where(y[new][rows] == 1, 1.0, -1.0), S[0], c, 1.0, 1.0)
        np.testing.assert_allclose(np.r_[shared.coef_[k], shared.intercept_[k]], ref, atol=1e-7)
        assert np.abs(ref - S[0]).max() > 1e-3       # its samples moved it off S
        assert shared.collaboration_graph_[k, 0] == 1.0 == shared.collaboration_graph_[0, k]
    # request + answer (S and the fit's largest mass) per newcomer, then its
    # edge weight to the hub
    log = shared.join_communication_
    assert log.total_bytes == 2 * (HEADER + (HEADER + 8 * nb + 8) + (HEADER + 8))
    assert log.total_messages == 6
    pred = shared.predict(X[new], groups=g[new])
    idx = g[new] - 10
    z = np.sum(X[new] * shared.coef_[10:][idx], axis=1) + shared.intercept_[10:][idx]
    np.testing.assert_array_equal(pred, (z > 0).astype(int))


def test_fit_closes_on_opposite_tasks_and_joins_by_the_graph():
    # (both gates closed: "auto"'s posterior join, persolin28)
    X, y, g = _federation(n_nodes=12, opposite=True)
    new = g >= 10
    shared = PersonalizedLinearClassifier(random_state=0, join_neighbours="shared").fit(
        X[~new], y[~new], groups=g[~new])
    graph = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X[~new], y[~new], groups=g[~new])
    assert not shared.newcomer_gate_["open"] and shared.newcomer_rule_ == "posterior"
    assert shared.newcomer_gate_["t"] < 0
    auto = PersonalizedLinearClassifier(random_state=0).fit(X[~new], y[~new], groups=g[~new])
    features = shared.newcomer_gate_["features"]          # then "auto"'s gate, same result
    assert features["t"] == auto.newcomer_gate_["t"] and not features["open"]
    assert shared.n_bytes_sent_ == auto.n_bytes_sent_ + shared.newcomer_gate_["n_bytes"] \
        - features["n_bytes"]
    shared.add_nodes(X[new], y[new], groups=g[new])
    graph.add_nodes(X[new], y[new], groups=g[new])
    np.testing.assert_array_equal(shared.coef_, graph.coef_)
    assert shared.join_communication_.total_bytes == graph.join_communication_.total_bytes


def test_multiclass_newcomer_takes_every_problem_of_s():
    X, y, g = _federation(n_nodes=11, n_classes=3, n_rows=45)
    new = g == 10
    clf = PersonalizedLinearClassifier(random_state=0, alpha=1.0, join_neighbours="shared")
    clf.fit(X[~new], y[~new], groups=g[~new])
    assert clf.newcomer_rule_ == "shared"
    S = clf._join_info["shared_model"]
    assert S.shape == (3, 5)
    clf.add_nodes(X[new], y[new], groups=g[new])
    Zk = np.c_[X[new], np.ones(new.sum())]
    for p in range(3):                            # one-vs-rest, each around its S_p
        ref = _newton_block(Zk, np.where(y[new] == p, 1.0, -1.0), S[p], clf.confidence_[10],
                            1.0, 1.0)
        np.testing.assert_allclose(np.r_[clf.coef_[10, p], clf.intercept_[10, p]], ref,
                                   atol=1e-7)


def test_squared_hinge_newcomer_block_matches_newton():
    X, y, g = _federation(n_nodes=12)
    new = g == 11
    clf = PersonalizedLinearClassifier(random_state=0, alpha=1.0, loss="squared_hinge",
                                       join_neighbours="shared").fit(X[~new], y[~new],
                                                                     groups=g[~new])
    assert clf.newcomer_rule_ == "shared"
    S = clf._join_info["shared_model"]
    clf.add_nodes(X[new], y[new], groups=g[new])
    ref = _newton_block(np.c_[X[new], np.ones(new.sum())], np.where(y[new] == 1, 1.0, -1.0),
                        S[0], clf.confidence_[11], 1.0, 1.0, loss="squared_hinge")
    np.testing.assert_allclose(np.r_[clf.coef_[11], clf.intercept_[11]], ref, atol=1e-6)


def test_join_over_a_dropping_network_waits_for_the_hub():
    X, y, g = _federation(n_nodes=12)
    new = g >= 10
    net = SimulatedNetwork(drop_rate=0.5, random_state=0)
    clf = PersonalizedLinearClassifier(random_state=0, alpha=1.0, join_neighbours="shared",
                                       network=net).fit(X[~new], y[~new], groups=g[~new])
    assert clf.newcomer_rule_ == "shared"
    S = clf._join_info["shared_model"]
    ref = copy.deepcopy(clf)
    ref.set_params(network=None)
    clf.add_nodes(X[new], y[new], groups=g[new])
    ref.add_nodes(X[new], y[new], groups=g[new])               # the same models without drops
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    assert not np.array_equal(clf.coef_[10], S[0, :4])
    log = clf.join_communication_
    retries = log.n_rounds - 2                    # rounds the hub was down
    assert log.total_bytes == 2 * ((retries + 1) * HEADER + (HEADER + 40 + 8) + (HEADER + 8))


def test_privacy_refused_by_name_and_bad_value():
    X, y, g = _federation(n_nodes=8)
    clf = PersonalizedLinearClassifier(
        random_state=0, join_neighbours="shared",
        privacy=DifferentialPrivacy(epsilon=3.0, insecure_noise_seed=0))
    with pytest.raises(ValueError, match="join_neighbours='shared'"):
        clf.fit(X, y, groups=g)
    plain = PersonalizedLinearClassifier(
        random_state=0, join_neighbours="shared", alpha=1.0,
        privacy=DifferentialPrivacy(epsilon=np.inf)).fit(X, y, groups=g)
    assert plain.newcomer_gate_ is not None       # epsilon=inf is the plain fit


def test_closed_shared_gate_falls_back_to_the_feature_mean_gate():
    # Two terrains (odd nodes shifted, with another label rule): one shared
    # model fits neither, the feature means place a newcomer (Landmine's case).
    rng = np.random.RandomState(0)
    X, y, g = [], [], []
    for k in range(12):
        Xk = rng.normal(size=(40, 3)) + (np.array([4.0, 0, 0]) if k % 2 else 0.0)
        X.append(Xk)
        y.append((Xk[:, 1 if k % 2 else 2] > 0).astype(int))
        g.append(np.full(40, k))
    X, y, g = np.vstack(X), np.concatenate(y), np.concatenate(g)
    shared = PersonalizedLinearClassifier(random_state=0, join_neighbours="shared").fit(
        X, y, groups=g)
    auto = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    assert not shared.newcomer_gate_["open"]
    assert auto.newcomer_rule_ == "features" == shared.newcomer_rule_
    assert shared.newcomer_gate_["features"]["t"] == auto.newcomer_gate_["t"]


def test_mpi_engine_refuses_shared_by_name():
    # Refused before any rank reads data (the hub's solve needs every node's
    # rows on one rank); the MPI fit otherwise runs the graph join's rule.
    from skfed.engines._mpi_persolin import fit_perso_lin

    est = PersonalizedLinearClassifier(join_neighbours="shared")
    with pytest.raises(ValueError, match="join_neighbours must not be 'shared'"):
        fit_perso_lin(est, None, None, None, 0)


def test_two_joins_add_up_to_one_and_survive_pickling():
    import pickle

    X, y, g = _federation(n_nodes=13)
    new = g >= 10
    clf = PersonalizedLinearClassifier(random_state=0, alpha=1.0, join_neighbours="shared").fit(
        X[~new], y[~new], groups=g[~new])
    assert clf.newcomer_rule_ == "shared"
    once = pickle.loads(pickle.dumps(clf)).add_nodes(X[new], y[new], groups=g[new])
    twice = copy.deepcopy(clf)
    for part in (g == 10, g >= 11):
        twice.add_nodes(X[part], y[part], groups=g[part])
    # Each newcomer's Newton iterates do not depend on the others' (persolin32:
    # one solver for the shared and posterior joins); the newcomers of one call
    # are padded to the widest, so sums over padded rows may round an ulp apart.
    np.testing.assert_allclose(once.coef_, twice.coef_, rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(once.intercept_, twice.intercept_, rtol=1e-13, atol=1e-16)
    np.testing.assert_array_equal(once.coef_[:10], clf.coef_)
    per = HEADER + (HEADER + 40 + 8) + (HEADER + 8)   # (+ 8: the fit's largest mass)
    assert once.join_communication_.total_bytes == 3 * per
    assert twice.join_communication_.total_bytes == 3 * per
    assert twice.n_bytes_sent_ == clf.n_bytes_sent_ + 3 * per


def test_shared_join_newcomers_drawn_rogue_and_kept():
    # a newcomer of the shared join is rogue with probability rogue_fraction,
    # the public draw every other join makes (it was always honest)
    from skfed._graph_join import _random_seed
    from skfed._graph_join_fitted import join_rogue

    X, y, g = _federation(n_nodes=30)
    new = g >= 20
    net = SimulatedNetwork(rogue_fraction=0.35, rogue_behavior="random", random_state=0)
    clf = PersonalizedLinearClassifier(random_state=0, alpha=1.0, join_neighbours="shared",
                                       network=net).fit(X[~new], y[~new], groups=g[~new])
    assert clf.newcomer_rule_ == "shared"
    fitted_rogue = clf._join_info["rogue"].copy()
    expected = join_rogue(net, fitted_rogue, 10, [_random_seed(clf), 0, 7919])
    assert expected[20:].sum() >= 1                     # (this draw holds rogue newcomers)
    clf.add_nodes(X[new], y[new], groups=g[new])
    np.testing.assert_array_equal(clf._join_info["rogue"], expected)
