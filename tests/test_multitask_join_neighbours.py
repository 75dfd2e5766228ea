"""MOCHA newcomers centred on their feature-mean neighbours (issue 32):
:mod:`skfed.multitask._join_neighbours`.

References: the gate's gains and t written again as a NumPy loop over the
nodes from the fitted ``coef_`` / ``intercept_``; the newcomer's centre as
the NumPy size-weighted mean of its nearest fitted nodes' models (its
join equal to the join told that centre); the gate's and the newcomers'
extra bytes in closed form; a closed gate's join equal, model for model,
to the join without a gate; no gate under privacy."""

import copy

import numpy as np
import pytest
from .test_multitask_join import HEADER

from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.multitask import _join_coherent
from skfed.multitask import _join_neighbours as jn
from skfed.multitask._join_neighbours import FeatureNeighbours, nearest_nodes
from skfed.privacy import DifferentialPrivacy


def _terrains(n_nodes=16, shift=3.0, seed=0, regression=False, signal=True):
    """Nodes of 30-54 samples of two kinds of node: the label's slope on feature 0 flips with the
    kind; with ``signal`` the kind also shifts feature 2 (which the label
    ignores), so the nodes' feature means tell the kinds apart."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for t in range(n_nodes):
        side = 1 if t % 2 else -1
        n_per = 30 + (7 * t) % 25
        Xt = rng.normal(size=(n_per, 3))
        if signal:
            Xt[:, 2] += side * shift
        w = np.array([side, 0.5]) + 0.2 * rng.normal(size=2)
        f = Xt[:, :2] @ w + 0.1 * rng.normal(size=n_per)
        X.append(Xt)
        y.append(f if regression else (f > 0).astype(int))
        g.append(np.full(n_per, t))
    return np.concatenate(X), np.concatenate(y), np.concatenate(g)


@pytest.fixture(autouse=True)
def _any_cost(monkeypatch):
    """The tests' fits are small: their gate would cost more than
    GATE_BYTE_SHARE of the fit's bytes (tested apart, without this)."""
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)
    # the terrains' tasks cancel in w_0 (rho < 0.7): without the gate the
    # margin centre would act (tested in test_mochak538_coherent_centre)
    monkeypatch.setattr(_join_coherent, "COHERENCE_T", 0.0)


def _fit(regression=False, signal=True, seed=0, n_fit=14, k=10):
    X, y, g = _terrains(seed=seed, regression=regression, signal=signal)
    old = g < n_fit
    cls = FederatedMultiTaskRegressor if regression else FederatedMultiTaskClassifier
    est = cls(random_state=seed).fit(X[old], y[old], groups=g[old])
    new = np.flatnonzero(~old)
    new = np.concatenate([new[g[new] == t][:k] for t in np.unique(g[new])])
    return est, (X[old], y[old], g[old]), (X[new], y[new], g[new])


def _near5(means, target, Xo, go):
    """The 5 fitted nodes nearest ``target`` by the Mahalanobis distance of
    the fitted nodes' pooled within-node scatter (NumPy inverse; maha28)."""
    S = sum((Xo[go == t] - means[t]).T @ (Xo[go == t] - means[t]) for t in range(len(means)))
    diff = means - target
    return np.argsort(np.einsum("ij,jk,ik->i", diff, np.linalg.inv(S), diff), kind="stable")[:5]


def _scatter_bytes(m, d):
    """An open gate's scatters (float32 upper triangles), one message per node."""
    return m * (d * (d + 1) // 2 * jn.SCATTER_BYTES + HEADER)


def _reference_gate(est, Xo, yo, go, regression):
    """Every node's gain and t by a loop over the nodes, from the fitted
    coef_ / intercept_ (a model's margin is x . coef + intercept)."""
    nodes = np.asarray(est.nodes_)
    coef, icpt = np.atleast_2d(est.coef_), np.ravel(est.intercept_)
    means = np.array([Xo[go == t].mean(axis=0) for t in nodes])
    sizes = np.array([np.sum(go == t) for t in nodes], dtype=float)
    gains = []
    for i, t in enumerate(nodes):
        dist = ((means - means[i]) ** 2).sum(axis=1)
        dist[i] = np.inf
        near = np.argsort(dist, kind="stable")[:5]
        rest = np.array([j for j in range(len(nodes)) if j != i])

        def error(chosen):
            w = sizes[chosen] / sizes[chosen].sum()
            f = Xo[go == t] @ (w @ coef[chosen]) + w @ icpt[chosen]
            if regression:
                return np.mean((f - yo[go == t]) ** 2)
            return np.mean((f > 0) != (yo[go == t] == est.classes_[1]))

        gains.append(error(rest) - error(near))
    gains = np.array(gains)
    return gains, gains.mean() / (gains.std(ddof=1) / np.sqrt(len(gains)))


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("signal", [True, False])
def test_gate_equals_a_numpy_loop(regression, signal):
    est, (Xo, yo, go), _ = _fit(regression, signal)
    gate = est._join_rehearsal.neighbours
    gains, t = _reference_gate(est, Xo, yo, go, regression)
    np.testing.assert_allclose(gate.gains, gains, rtol=1e-6, atol=1e-9)
    assert gate.t == pytest.approx(t, rel=1e-6)
    # the means tell the kinds apart: the gate opens; else it stays closed
    assert gate.open == signal
    assert (t > 4) if signal else (abs(t) < 2)
    np.testing.assert_allclose(gate.means, [Xo[go == n].mean(axis=0) for n in est.nodes_])
    np.testing.assert_array_equal(gate.weights, np.bincount(go))


def test_nearest_nodes_and_small_federations():
    means = np.array([[0.0, 0], [1, 0], [0, 2], [1, 1]])
    assert nearest_nodes(means, np.array([0.9, 0.1]), 2).tolist() == [1, 0]
    assert nearest_nodes(means, np.array([0.0, 0]), 2, exclude=0).tolist() == [1, 3]
    # ties by index
    assert nearest_nodes(np.zeros((3, 1)), np.zeros(1), 2).tolist() == [0, 1]
    # fewer than NEIGHBOURS + 2 nodes: no gate, nothing to send
    Z = np.ones((6, 2))
    gate = FeatureNeighbours(Z, np.ones((1, 6)), np.ones(6), np.arange(7), np.zeros((1, 6, 2)),
                             "hinge", 1)
    assert not gate.open and gate.counted and np.isnan(gate.gains).all()


@pytest.mark.parametrize("regression", [False, True])
def test_open_gate_centres_newcomers_on_their_nearest_means(regression):
    est, (Xo, yo, go), (Xn, yn, gn) = _fit(regression)
    assert est._join_rehearsal.neighbours.open
    m, d = len(est.nodes_), Xn.shape[1]
    coef = np.atleast_2d(est.coef_).copy()
    icpt = np.ravel(est.intercept_).copy()
    sizes = np.bincount(go).astype(float)
    means = np.array([Xo[go == t].mean(axis=0) for t in range(m)])
    # the centre in NumPy: the size-weighted mean of the 5 nearest models
    # (W's intercept column holds intercept / intercept_scaling)
    centre = []
    for node in np.unique(gn):
        near = _near5(means, Xn[gn == node].mean(axis=0), Xo, go)
        assert np.all(near % 2 == node % 2)  # its own kind
        w = sizes[near] / sizes[near].sum()
        centre.append(np.append(w @ coef[near], w @ icpt[near] / est.intercept_scaling))
    centre = np.array(centre)[None]  # (P, n_new, d')

    told = copy.deepcopy(est)  # the gate closed, the centre given
    told._join_rehearsal.neighbours.open = False
    told._join_rehearsal.neighbours.whiten = None  # (its closed gate sends no scatter)
    told._join_rehearsal.centres_for = lambda counts, M: centre
    before = est.n_bytes_sent_
    est.add_nodes(Xn, yn, groups=gn)
    told.add_nodes(Xn, yn, groups=gn)
    np.testing.assert_allclose(est.coef_, told.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(est.intercept_, told.intercept_, rtol=1e-10, atol=1e-12)
    # the fitted nodes are bit-identical
    assert np.array_equal(np.atleast_2d(est.coef_)[:m], coef)
    # bytes: the gate once (each fitted node up its mean, down two models,
    # up its gain) and each newcomer's mean (d floats) more than the join
    # told the centre (whose closed gate sent the same exchange)
    n_new = len(np.unique(gn))
    assert (est.join_communication_.total_bytes - told.join_communication_.total_bytes
            == n_new * d * 8 + _scatter_bytes(m, d))
    assert est.n_bytes_sent_ - before == est.join_communication_.total_bytes
    # a second join sends no gate exchange again: one newcomer's mean more
    # than the same join without a gate
    rows = gn == gn[0]
    X2, y2, g2 = Xn[rows] + 0.1, yn[rows], np.full(rows.sum(), 99)
    again, plain = copy.deepcopy(est), copy.deepcopy(est)
    plain._join_rehearsal.neighbours = None
    again.add_nodes(X2, y2, groups=g2)
    plain.add_nodes(X2, y2, groups=g2)
    assert (again.join_communication_.total_bytes - plain.join_communication_.total_bytes
            == d * 8)

@pytest.mark.parametrize("seed", [0, 1])
def test_closed_gate_is_the_join_without_it(seed):
    est, _, (Xn, yn, gn) = _fit(signal=False, seed=seed)
    gate = est._join_rehearsal.neighbours
    assert not gate.open
    without = copy.deepcopy(est)
    without._join_rehearsal.neighbours = None
    est.add_nodes(Xn, yn, groups=gn)
    without.add_nodes(Xn, yn, groups=gn)
    np.testing.assert_array_equal(est.coef_, without.coef_)
    np.testing.assert_array_equal(est.intercept_, without.intercept_)
    # the gate's exchange is sent anyway (the server learns from it that
    # the gate is closed): per fitted node its mean, two models, its gain
    m, d = gate.means.shape
    assert (est.join_communication_.total_bytes - without.join_communication_.total_bytes
            == m * ((d + 2 * (d + 1) + 1) * 8 + 3 * HEADER))


def test_open_gate_bytes_in_closed_form():
    est, _, (Xn, yn, gn) = _fit()
    m, d = len(est.nodes_), Xn.shape[1]
    without = copy.deepcopy(est)
    without._join_rehearsal.neighbours = None
    est.add_nodes(Xn, yn, groups=gn)
    without.add_nodes(Xn, yn, groups=gn)
    n_new = len(np.unique(gn))
    assert (est.join_communication_.total_bytes - without.join_communication_.total_bytes
            == m * ((d + 2 * (d + 1) + 1) * 8 + 3 * HEADER) + n_new * d * 8
            + _scatter_bytes(m, d))


def test_no_gate_under_privacy():
    X, y, g = _terrains()
    old = g < 14
    est = FederatedMultiTaskClassifier(
        random_state=0, privacy=DifferentialPrivacy(epsilon=5.0, delta=1e-5, clip_norm=1.0)).fit(
        X[old], y[old], groups=g[old])
    assert getattr(est, "_join_rehearsal", None) is None
    n_old = len(est.nodes_)
    new = np.flatnonzero(~old)[:10]
    coef = est.coef_.copy()
    est.add_nodes(X[new], y[new], groups=g[new])
    assert np.array_equal(est.coef_[:n_old], coef)


@pytest.mark.parametrize("share", [0.05, "just"])
def test_a_gate_costlier_than_its_share_of_the_fit_is_not_run(share, monkeypatch):
    """The gate's exchange in closed form against GATE_BYTE_SHARE of the
    fit's bytes: over it, the join is the one without a gate (models and
    bytes); at exactly the share it runs."""
    est, _, (Xn, yn, gn) = _fit()
    gate = est._join_rehearsal.neighbours
    m, d = gate.means.shape
    cost = m * ((d + 2 * (d + 1) + 1) * 8 + 3 * HEADER)
    assert gate.n_bytes(8, HEADER, scatter=False) == cost   # (decided before it opens)
    assert gate.n_bytes(8, HEADER) == cost + _scatter_bytes(m, d)
    fit_bytes = est.communication_.total_bytes
    without = copy.deepcopy(est)
    without._join_rehearsal.neighbours = None
    without.add_nodes(Xn, yn, groups=gn)
    if share == "just":
        monkeypatch.setattr(jn, "GATE_BYTE_SHARE", cost / fit_bytes)
        est.add_nodes(Xn, yn, groups=gn)
        assert est.join_communication_.total_bytes > without.join_communication_.total_bytes
        assert not np.array_equal(est.coef_, without.coef_)  # (the gate is open)
        return
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", share)
    assert cost > share * fit_bytes  # (this small fit)
    est.add_nodes(Xn, yn, groups=gn)
    np.testing.assert_array_equal(est.coef_, without.coef_)
    assert est.join_communication_.total_bytes == without.join_communication_.total_bytes


def test_a_fit_whose_gate_is_too_costly_computes_none(monkeypatch):
    """At the fit the same budget decides whether the gate is computed at
    all: just under its cost, no gate (and the join is the plain one)."""
    est, _, _ = _fit()
    gate = est._join_rehearsal.neighbours
    share = gate.n_bytes(8, HEADER, scatter=False) / est.communication_.total_bytes
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", share * (1 - 1e-9))
    again, _, (Xn, yn, gn) = _fit()
    assert again._join_rehearsal.neighbours is None
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", share)
    fit_at_share, _, _ = _fit()
    assert fit_at_share._join_rehearsal.neighbours.open
