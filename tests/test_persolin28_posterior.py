"""Perso-lin's posterior join (skfed.boosting._perso_lin_posterior, issue 32).

Against an independent NumPy / SciPy reference written from the module's
description: each newcomer weighs every candidate's model by the likelihood
of its labels, ``exp(-m_n L_n(theta_r))``, takes the weighted mean as its
prior and solves ``TRUST c_n F_n + (mu / 2) ||theta - u||^2`` (here by
SciPy's L-BFGS, not the module's Newton); its graph row is the weights.  The
join's bytes in closed form, with and without drops; the rule each
``join_neighbours`` gives; fitted models bit-identical; refusals.
"""

import copy

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed.boosting import PersonalizedLinearClassifier
from skfed.boosting import _perso_lin_posterior as post
from skfed.network import SimulatedNetwork
from skfed.privacy import DifferentialPrivacy

HEADER = 16


def _clusters(n_nodes=12, n_rows=12, n_features=4, n_classes=2, seed=0):
    """Two clusters of tasks on centred inputs (feature means alike, so the
    feature-mean gate cannot open): even nodes label by feature 0, odd nodes
    by feature 1 (three classes: by the sign of feature 0 and of feature 1)."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k in range(n_nodes):
        Xk = rng.normal(size=(n_rows, n_features))
        a, b = (0, 1) if k % 2 == 0 else (1, 0)
        if n_classes == 2:
            yk = (Xk[:, a] > 0).astype(int)
        else:
            yk = np.where(Xk[:, a] > 0, 2, (Xk[:, b] > 0).astype(int))
        X.append(Xk)
        y.append(yk)
        g.append(np.full(n_rows, k))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def _reference(clf_before, Xn, yn, sw, max_mass):
    """The newcomer's weights and model by the module's description."""
    coef = clf_before.coef_.reshape(len(clf_before.nodes_), -1, Xn.shape[1])
    inter = clf_before.intercept_.reshape(len(clf_before.nodes_), -1)
    models = np.concatenate([coef, inter[:, :, None]], axis=2)      # (q, P, d + 1)
    classes = clf_before.classes_
    if len(classes) == 2:
        Y = np.where(yn == classes[1], 1.0, -1.0)[None, :]
    else:
        Y = np.where(yn[None, :] == classes[:, None], 1.0, -1.0)
    Z = np.c_[Xn, np.ones(len(Xn))]
    mass = sw.sum()
    w = sw / mass
    L = np.array([sum(np.sum(w * np.log1p(np.exp(-Y[p] * (Z @ m[p])))) for p in range(len(Y)))
                  for m in models])
    a = np.exp(-mass * (L - L.min()))
    a /= a.sum()
    u = np.tensordot(a, models, axes=1)
    rho = np.sum(u * u) / np.sum(a * np.sum(models * models, axis=(1, 2)))   # (persolin34)
    trust = post.TRUST / max(rho, post.MIN_COHERENCE) ** post.COHERENCE_POWER
    c = trust * min(mass / max_mass, 1.0)
    alpha, mu = clf_before.alpha, clf_before.mu
    out = np.zeros_like(u)
    for p in range(len(Y)):
        def f(t):
            z = Y[p] * (Z @ t)
            s = -1.0 / (1.0 + np.exp(z))
            val = c * (np.sum(w * np.log1p(np.exp(-z))) + 0.5 * alpha * t[:-1] @ t[:-1]) \
                + 0.5 * mu * np.sum((t - u[p]) ** 2)
            g = c * (Z.T @ (w * s * Y[p])) + mu * (t - u[p])
            g[:-1] += c * alpha * t[:-1]
            return val, g
        out[p] = minimize(f, u[p], jac=True, method="L-BFGS-B",
                          options={"gtol": 1e-12, "ftol": 0.0, "maxiter": 5000}).x
    return a, out


@pytest.mark.parametrize("n_classes", [2, 3])
def test_join_matches_reference(n_classes):
    X, y, g = _clusters(n_nodes=14, n_classes=n_classes)
    new = g >= 12
    clf = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X[~new], y[~new], groups=g[~new])
    assert clf.newcomer_rule_ == "posterior" and clf.newcomer_gate_ is None
    before_coef, before_int = clf.coef_.copy(), clf.intercept_.copy()
    ref_clf = copy.deepcopy(clf)
    rng = np.random.RandomState(3)
    sw = rng.uniform(0.2, 1.5, size=new.sum())
    clf.add_nodes(X[new], y[new], groups=g[new], sample_weight=sw)
    # fitted models bit-identical
    assert np.array_equal(clf.coef_[:12], before_coef)
    assert np.array_equal(clf.intercept_[:12], before_int)
    max_mass = 12.0
    W = clf.collaboration_graph_.toarray()
    for i, node in enumerate([12, 13]):
        rows = g[new] == node
        a, model = _reference(ref_clf, X[new][rows], y[new][rows], sw[rows], max_mass)
        got = np.concatenate([clf.coef_[12 + i].reshape(-1, X.shape[1]),
                              clf.intercept_[12 + i].reshape(-1, 1)], axis=1)
        np.testing.assert_allclose(got, model, atol=1e-6)
        kept = (a >= post.MIN_WEIGHT) & (np.argsort(np.argsort(-a, kind="stable"),
                                                    kind="stable") < 10)   # max_neighbors
        np.testing.assert_allclose(W[12 + i, :12][kept], a[kept], rtol=1e-9)
        assert np.all(W[12 + i, :12][~kept] == 0) and W[12 + i, 12 + (1 - i)] == 0
        np.testing.assert_allclose(W[:12, 12 + i], W[12 + i, :12])   # both directions
        assert clf.confidence_[12 + i] == pytest.approx(min(sw[rows].sum() / max_mass, 1.0))


def test_weights_find_the_newcomers_cluster():
    # intermediate result: with 12 samples the likelihood puts nearly all the
    # weight on the newcomer's own cluster (even ids: feature 0's rule)
    X, y, g = _clusters(n_nodes=22, n_rows=12, seed=1)
    new = g >= 20
    clf = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X[~new], y[~new], groups=g[~new])
    clf.add_nodes(X[new], y[new], groups=g[new])
    W = clf.collaboration_graph_.toarray()[20:, :20]
    same = np.array([[j % 2 == i % 2 for j in range(20)] for i in (20, 21)])
    share = (W * same).sum(axis=1) / W.sum(axis=1)
    assert np.all(share > 0.95)
    assert np.all((W > 0).sum(axis=1) <= 10)                            # max_neighbors
    # a cap of 3 (max_neighbors) keeps each row's 3 heaviest weights
    capped = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior",
                                          max_neighbors=3).fit(X[~new], y[~new], groups=g[~new])
    before = copy.deepcopy(capped)
    capped.add_nodes(X[new], y[new], groups=g[new])
    Wc = capped.collaboration_graph_.toarray()[20:, :20]
    for i, node in enumerate([20, 21]):
        rows = g[new] == node
        a, _ = _reference(before, X[new][rows], y[new][rows], np.ones(rows.sum()), 12.0)
        top = np.argsort(-a, kind="stable")[:3]
        top = top[a[top] >= post.MIN_WEIGHT]
        assert set(np.flatnonzero(Wc[i])) == set(top)
        np.testing.assert_allclose(Wc[i][top], a[top], rtol=1e-9)


def test_bytes_closed_form_and_drops():
    X, y, g = _clusters(n_nodes=14)
    new = g >= 12
    kw = dict(random_state=0, join_neighbours="posterior")
    clf = PersonalizedLinearClassifier(**kw).fit(X[~new], y[~new], groups=g[~new])
    dropped = PersonalizedLinearClassifier(
        network=SimulatedNetwork(drop_rate=0.3, random_state=0), **kw).fit(
        X[~new], y[~new], groups=g[~new])
    same_fit = copy.deepcopy(clf)
    clf.add_nodes(X[new], y[new], groups=g[new])
    n_new, q, d = 2, 12, X.shape[1] + 1
    edges = clf.collaboration_graph_[12:, :12].nnz
    # (+ 8: each newcomer's first answer carries the fit's largest mass)
    closed = n_new * q * (HEADER + HEADER + 8 * d) + edges * (HEADER + 8) + n_new * 8
    log = clf.join_communication_
    assert log.total_bytes == closed
    assert log.total_messages == 2 * n_new * q + edges
    # drops: the same candidates, asked again until each answers (only empty
    # requests and re-asked answers repeat); what a newcomer receives is the same
    dropped.coef_, dropped.intercept_ = same_fit.coef_.copy(), same_fit.intercept_.copy()
    dropped.add_nodes(X[new], y[new], groups=g[new])
    np.testing.assert_allclose(dropped.coef_[12:], clf.coef_[12:], rtol=1e-12)
    extra = dropped.join_communication_.total_bytes - closed
    assert extra >= 0 and extra % HEADER == 0 and dropped.join_communication_.n_rounds > 2


def test_rules_of_join_neighbours():
    X, y, g = _clusters(n_nodes=14)
    auto = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    # the feature-mean gate runs and closes (the inputs are alike): posterior
    assert auto.newcomer_gate_ is not None and not auto.newcomer_gate_["open"]
    assert auto.newcomer_rule_ == "posterior"
    graph = PersonalizedLinearClassifier(random_state=0, join_neighbours="graph").fit(
        X, y, groups=g)
    assert graph.newcomer_rule_ == "graph"
    few = g < 6                                       # 6 fitted nodes: no gate, graph join
    small = PersonalizedLinearClassifier(random_state=0).fit(X[few], y[few], groups=g[few])
    assert small.newcomer_gate_ is None and small.newcomer_rule_ == "graph"
    # the join "posterior" asks for is "auto"'s after a closed gate
    explicit = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X, y, groups=g)
    Xn, yn = X[:10] * 1.1, y[:10]
    auto.add_nodes(Xn, yn, groups=np.full(10, 99))
    explicit.add_nodes(Xn, yn, groups=np.full(10, 99))
    assert np.array_equal(auto.coef_, explicit.coef_)
    assert auto.n_bytes_sent_ - explicit.n_bytes_sent_ == auto.newcomer_gate_["n_bytes"]


def test_privacy():
    X, y, g = _clusters(n_nodes=14)
    spec = DifferentialPrivacy(epsilon=5.0, delta=1e-5)
    with pytest.raises(ValueError, match="join_neighbours='posterior'"):
        PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior",
                                     privacy=spec).fit(X, y, groups=g)
    private = PersonalizedLinearClassifier(random_state=0, privacy=spec).fit(X, y, groups=g)
    assert private.newcomer_rule_ == "graph"          # no gate, no posterior under a budget


def test_newton_blocks_match_lbfgs_squared_hinge():
    # the module's Newton solver against SciPy on the squared hinge loss
    rng = np.random.RandomState(0)
    n, k, d = 3, 7, 4
    Z = rng.normal(size=(n, k, d))
    Z[..., -1] = 1.0
    Z[2, 5:] = 0.0                                    # padding rows of a smaller newcomer
    Y = np.where(rng.normal(size=(n, 2, k)) > 0, 1.0, -1.0)
    W = rng.uniform(0.2, 1.0, size=(n, k))
    W[2, 5:] = 0.0
    W /= W.sum(axis=1, keepdims=True)
    U = rng.normal(size=(n, 2, d))
    c = np.array([0.3, 1.0, 2.0])
    got = post.newcomer_blocks(Z, Y, W, U, c, 0.1, 1.0, d - 1, loss="squared_hinge")
    for i in range(n):
        for p in range(2):
            def f(t):
                gap = np.maximum(0.0, 1.0 - Y[i, p] * (Z[i] @ t))
                val = c[i] * (W[i] @ (gap * gap) + 0.05 * t[:-1] @ t[:-1]) \
                    + 0.5 * np.sum((t - U[i, p]) ** 2)
                gr = c[i] * (Z[i].T @ (W[i] * -2.0 * gap * Y[i, p])) + (t - U[i, p])
                gr[:-1] += c[i] * 0.1 * t[:-1]
                return val, gr
            ref = minimize(f, U[i, p], jac=True, method="L-BFGS-B",
                           options={"gtol": 1e-12, "ftol": 0.0}).x
            np.testing.assert_allclose(got[i, p], ref, atol=1e-6)


def test_posterior_weights_closed_form():
    a = post.posterior_weights(4.0, [0.5, 0.25, 1.0])
    e = np.exp(-4.0 * np.array([0.5, 0.25, 1.0]))
    np.testing.assert_allclose(a, e / e.sum(), rtol=1e-14)
    assert post.posterior_weights(1e6, [0.1, 0.2])[0] == 1.0      # no overflow


def test_rogue_candidates_get_little_weight():
    # a rogue fitted node answers its negated model ("complement"): its
    # likelihood on the newcomer's samples is low, and so is its weight
    X, y, g = _clusters(n_nodes=14, n_rows=20)
    new = g >= 12
    clf = PersonalizedLinearClassifier(
        random_state=0, join_neighbours="posterior",
        network=SimulatedNetwork(rogue_fraction=0.3, random_state=0)).fit(
        X[~new], y[~new], groups=g[~new])
    rogue = clf._join_info["rogue"].copy()
    assert rogue.sum() == 4
    clf.add_nodes(X[new], y[new], groups=g[new])
    W = clf.collaboration_graph_.toarray()[12:, :12]
    assert np.all(W[:, rogue].sum(axis=1) < 0.05 * W.sum(axis=1))   # (uniform: 4 / 12)
