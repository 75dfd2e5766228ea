"""Joins of Dada and Perso-lin (add_nodes, skfed._graph_join), against NumPy."""

import copy
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed._core._boosting_fast import Logistic, fw_join, graph_row, lin_join
from skfed._graph_join import (
    _RESOLVE_EVERY,
    _WARM_START,
    graph_join_nodes,
    join_info_from_data,
)
from skfed._graph_join_steps import _SYNC_BLOCKS
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.boosting._perso_lin import LOCAL_MAX_ITER, LOCAL_TOL
from skfed.graph import model_message_bytes
from skfed.network import SimulatedNetwork

from ._helpers.persolin import centred_numpy, jacobi_numpy, local_solve_numpy


# ------------------------------------------------------------ NumPy references
def _row_objective(v, a, d, d0, mu_graph, lam, delta):
    D = d0 + v.sum()
    return float(a @ v + mu_graph * (lam * v @ v - np.log(D + delta)
                                     - np.sum(np.log(d + v + delta))))


def _row_numpy(a, d, d0, mu_graph, lam, delta):
    """The row's minimizer: v_r(D) from the scalar stationarity condition
    (numpy.roots of the quadratic), D by bisection on D = d0 + sum v_r(D)."""

    def weights(D):
        out = np.zeros(len(a))
        u = 1.0 / (D + delta)
        for r in range(len(a)):
            c, e = a[r] / mu_graph - u, d[r] + delta
            if c * e < 1.0:  # derivative at 0 negative
                roots = np.roots([2 * lam, c + 2 * lam * e, c * e - 1.0])
                out[r] = max(roots.real)
        return out

    lo, hi = d0, d0 + weights(d0).sum()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if d0 + weights(mid).sum() > mid:
            lo = mid
        else:
            hi = mid
    return weights(hi)


def _fw_numpy(H, Y, sw, alpha, S, dk, confidence, beta, mu, tau0, n_steps):
    """Frank-Wolfe steps on d c L(alpha) + (mu / 2) sum_l w_l ||alpha - alpha_l||^2."""
    alpha = alpha.astype(np.float64).copy()
    lw = (dk if dk > 0 else 1.0) * confidence
    for tau in range(tau0, tau0 + n_steps):
        gamma = 2.0 / (tau + 2.0)
        for p in range(Y.shape[0]):
            A = Y[p][:, None] * H
            e = sw * np.exp(-(A @ alpha[p]) - np.max(-(A @ alpha[p])))
            g = -lw * A.T @ (e / e.sum()) + mu * (dk * alpha[p] - S[p])
            j = int(np.flatnonzero(np.abs(g) >= np.abs(g).max() * (1 - 1e-12))[0])
            s = -beta if g[j] > 0 else beta
            alpha[p] *= 1 - gamma
            alpha[p, j] += gamma * s
    return alpha


def _lin_numpy(X, Y, sw, theta, S, dk, confidence, mu, l2, n_pen, lip_F, n_steps):
    theta = theta.astype(np.float64).copy()
    m = sw.sum()
    lw = (dk if dk > 0 else 1.0) * confidence
    L = lw * lip_F + mu * dk
    for _ in range(n_steps):
        for p in range(Y.shape[0]):
            z = Y[p] * (X @ theta[p])
            dloss = -1.0 / (1.0 + np.exp(z))
            g = X.T @ (sw * dloss * Y[p]) / m
            g[:n_pen] += l2 * theta[p, :n_pen]
            g = lw * g + mu * (dk * theta[p] - S[p])
            theta[p] -= g / L
    return theta


def _lin_solve_numpy(X, Y, sw, l2, n_pen, tol, max_iter):
    """The purely local model of Perso-lin (``lin_local_solve``), logistic loss,
    solved on the node's centred design from zero (``centred_numpy``) and
    mapped back."""
    X, shift = centred_numpy(X, sw, n_pen)
    theta = _lin_solve_plain(X, Y, sw, l2, n_pen, tol, max_iter)
    if shift is not None:
        theta[:, n_pen] -= shift(theta)
    return theta


def _lin_solve_plain(X, Y, sw, l2, n_pen, tol, max_iter):
    m = sw.sum()
    scale, lip = jacobi_numpy(X, sw, 0.25, l2, n_pen)

    def grad(theta, p):
        g = X.T @ (sw * (-1.0 / (1.0 + np.exp(Y[p] * (X @ theta)))) * Y[p]) / m
        g[:n_pen] += l2 * theta[:n_pen]
        return g

    return np.array([local_solve_numpy(lambda t, p=p: grad(t, p), X.shape[1], scale, lip, tol,
                                       max_iter)[0] for p in range(Y.shape[0])])


# ------------------------------------------------------------------ kernels
@pytest.mark.parametrize("seed", range(5))
def test_graph_row_is_the_exact_row_minimizer(seed):
    rng = np.random.RandomState(seed)
    q = 12
    a = rng.uniform(0.0, 3.0, q) * (1 + 10 * (seed % 2))
    d = rng.uniform(0.0, 2.0, q)
    mu_graph, lam, delta = [(1.0, 1.0, 1e-3), (3.0, 0.1, 1e-2)][seed % 2]
    d0 = [0.0, 0.5][seed % 2]
    v = np.zeros(q)
    graph_row(a, d, d0, mu_graph, lam, delta, v)
    np.testing.assert_allclose(v, _row_numpy(a, d, d0, mu_graph, lam, delta),
                               rtol=1e-9, atol=1e-12)
    # An independent solver reaches no lower value.
    res = minimize(_row_objective, np.full(q, 0.1), args=(a, d, d0, mu_graph, lam, delta),
                   bounds=[(0, None)] * q, method="L-BFGS-B", options={"ftol": 1e-14})
    assert _row_objective(v, a, d, d0, mu_graph, lam, delta) <= res.fun + 1e-9
    # KKT: zero gradient on the support, non-negative off it.
    D = d0 + v.sum()
    grad = a + mu_graph * (2 * lam * v - 1 / (D + delta) - 1 / (d + v + delta))
    np.testing.assert_allclose(grad[v > 0], 0.0, atol=1e-7 * mu_graph)
    assert np.all(grad[v == 0] >= -1e-9)


def test_graph_row_zero_when_every_pair_costs_too_much():
    v = np.ones(3)
    graph_row(np.full(3, 1e9), np.ones(3), 0.0, 1.0, 1.0, 1e-3, v)
    np.testing.assert_array_equal(v, 0.0)


@pytest.mark.parametrize("dk", [0.0, 1.7])
def test_fw_join_equals_numpy_frank_wolfe_with_neighbours_fixed(dk):
    rng = np.random.RandomState(0)
    m, n, P = 15, 9, 2
    H = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(m, n)))
    Y = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(P, m)))
    sw = rng.uniform(0.5, 2.0, m)
    alpha0 = np.zeros((1, P, n))
    alpha0[0, :, 2] = 0.5
    S = np.ascontiguousarray(rng.normal(size=(P, n)))
    alpha = alpha0.copy()
    margins = np.ascontiguousarray(np.stack([Y[p] * (H @ alpha0[0, p]) for p in range(P)]))
    losses = np.zeros(P)
    fw_join(H, Y, sw, alpha, margins, losses, S, dk, 0.6, 2.0, 3.0, 4, 25)
    expected = _fw_numpy(H, Y, sw, alpha0[0], S, dk, 0.6, 2.0, 3.0, 4, 25)
    np.testing.assert_allclose(alpha[0], expected, rtol=1e-12, atol=1e-12)
    for p in range(P):
        A = Y[p][:, None] * H
        np.testing.assert_allclose(losses[p], np.log(sw @ np.exp(-A @ expected[p])),
                                   rtol=1e-10)


@pytest.mark.parametrize("dk", [0.0, 2.5])
def test_lin_join_equals_numpy_gradient_steps_with_neighbours_fixed(dk):
    rng = np.random.RandomState(1)
    m, n, P = 20, 4, 1
    X = np.ascontiguousarray(np.column_stack([rng.normal(size=(m, n - 1)), np.ones(m)]))
    Y = np.ascontiguousarray(rng.choice([-1.0, 1.0], size=(P, m)))
    sw = rng.uniform(0.5, 2.0, m)
    theta0 = rng.normal(size=(1, P, n))
    S = np.ascontiguousarray(rng.normal(size=(P, n)))
    theta = theta0.copy()
    losses = np.zeros(P)
    lip_F = 0.25 * np.linalg.norm(np.sqrt(sw)[:, None] * X, 2) ** 2 / sw.sum() + 0.01
    lin_join(X, Y, sw, theta, losses, Logistic(), 1.0 / sw.sum(), lip_F, 0.01, n - 1, S,
             dk, 0.8, 1.5, 30)
    expected = _lin_numpy(X, Y, sw, theta0[0], S, dk, 0.8, 1.5, 0.01, n - 1, lip_F, 30)
    np.testing.assert_allclose(theta[0], expected, rtol=1e-11, atol=1e-12)


# --------------------------------------------------------------- the joins
def _data(seed=0, n_nodes=8, n_per=25):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.normal(size=(n_nodes * n_per, 2))
    flip = np.where(np.arange(n_nodes) % 2 == 0, 1.0, -1.0)[groups]
    y = (flip * X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return X, y, groups


def _fit(cls, X, y, groups, **params):
    fit = groups < groups.max() - 1
    est = cls(random_state=0, **params).fit(X[fit], y[fit], groups=groups[fit])
    info = join_info_from_data(est, X[fit], y[fit], groups[fit])
    return est, info, ~fit


def _newcomer_reference(est, info, X, y, sw, n_local, n_steps, resolve, threshold=None):
    """The whole per-node computation of a join in NumPy (every fitted node a
    candidate that answers; no cap; with ``threshold`` every row solve drops
    the weights below ``min(threshold, max_r v_r)``, else none)."""
    dada = isinstance(est, DecentralizedBoostingClassifier)
    models = est._full_coef().astype(np.float64)
    K, P, n = models.shape
    Z = est._base_matrix(X, np.float64) if dada else est._design(X, np.float64)
    Y = np.where(y == est.classes_[1], 1.0, -1.0)[None, :]
    mass = sw.sum()
    c = mass / max(info["max_mass"], mass)
    W = est.collaboration_graph_.toarray()
    d_old = W.sum(axis=1)
    mu = est.mu
    mu_graph = est.mu if est.mu_graph is None else est.mu_graph
    l2 = getattr(est, "alpha", 0.0)
    n_pen = n - int(est.fit_intercept)
    if dada:
        model = _fw_numpy(Z, Y, sw, np.zeros((P, n)), np.zeros((P, n)), 0.0, 1.0,
                          est.beta, 0.0, 0, n_local)
    else:
        lip = 0.25 * np.linalg.norm(np.sqrt(sw)[:, None] * Z, 2) ** 2 / mass + l2
        model = _lin_solve_numpy(Z, Y, sw, l2, n_pen, LOCAL_TOL, LOCAL_MAX_ITER)

    def data_loss(mdl):
        if dada:
            return sum(np.log(sw @ np.exp(-Y[p] * (Z @ mdl[p]))) for p in range(P))
        return sum(sw @ np.log1p(np.exp(-Y[p] * (Z @ mdl[p]))) / mass for p in range(P))

    def own_loss(mdl):
        extra = 0.0 if dada else 0.5 * l2 * np.sum(mdl[:, :n_pen] ** 2)
        return data_loss(mdl) + extra

    # The row is learned from the models the graph was learned from, when
    # the fit kept them; the model steps use the final ones.
    graph_models = info.get("graph_models")
    graph_models = models if graph_models is None else graph_models.astype(np.float64)

    def row(mdl):
        z = ((graph_models - mdl) ** 2).reshape(K, -1).sum(axis=1)
        pair = 0.5 * mu * z
        if getattr(est, "peer_scoring", False):
            # Dada weighs every node's score by 3 (peer_scoring=True),
            # Perso-lin by the node's confidence.
            s = 3.0 if dada else c
            pair = pair + 2 * s * (np.array([data_loss(graph_models[r]) for r in range(K)])
                                   - data_loss(mdl))
        a = c * own_loss(mdl) + info["losses"] + pair
        v = _row_numpy(a, d_old, 0.0, mu_graph, est.lambda_graph, est.delta)
        if threshold is not None and v.max() > 0:
            v[v < min(threshold, v.max())] = 0.0
        return v

    v = row(model)
    shift = 0
    for tau in range(n_steps):
        S = np.einsum("r,rpj->pj", v, models)
        if dada:
            if tau == 0 and v.sum() > 0:
                # Dada's model steps start from the neighbours' mean, their
                # steps counted from _WARM_START times their number.
                model, shift = S / v.sum(), _WARM_START * n_steps
            model = _fw_numpy(Z, Y, sw, model, S, v.sum(), c, est.beta, mu, tau + shift, 1)
        else:
            model = _lin_numpy(Z, Y, sw, model, S, v.sum(), c, mu, l2, n_pen, lip, 1)
        if resolve and (tau + 1) % _RESOLVE_EVERY == 0 and tau < n_steps - 1:
            v = row(model)
    return model, v


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
@pytest.mark.parametrize("update", [None, "n_nodes"])
@pytest.mark.parametrize("kept", [False, True])
def test_join_equals_numpy_per_node_computation(cls, update, kept):
    """kept=False: the final models and their losses recomputed from the
    data; kept=True: add_nodes with what the fit kept (the local models the
    graph was learned from, with update=None)."""
    X, y, groups = _data()
    params = dict(max_iter=6 * 3 * _RESOLVE_EVERY, sparsify_graph=None,
                  max_neighbors=None, graph_update_every=update)
    if cls is DecentralizedBoostingClassifier:
        params.update(n_estimators=8, peer_scoring=True)
    else:  # the reference takes gradient steps (block solves: test_persolin_block_update)
        params.update(local_update="gradient")
    est, info, new = _fit(cls, X, y, groups, **params)
    # One newcomer: newcomers of one call also see each other
    # (tests/test_graph_join_peers.py).
    new &= groups == groups.max()
    if kept:
        info = copy.deepcopy(est._join_info)
        assert (info["graph_models"] is None) == (update is not None)
    before = copy.deepcopy(est)
    if kept:
        est.add_nodes(X[new], y[new], groups=groups[new])
    else:
        graph_join_nodes(est, X[new], y[new], groups[new], info=info)
    K = len(before.nodes_)
    # Old nodes bit-identical.
    np.testing.assert_array_equal(est.coef_[:K], before.coef_)
    np.testing.assert_array_equal(est.intercept_[:K], before.intercept_)
    np.testing.assert_array_equal(est.collaboration_graph_[:K, :K].toarray(),
                                  before.collaboration_graph_.toarray())
    n_local = n_steps = 3 * _RESOLVE_EVERY  # max_iter / n_fitted
    for k, label in enumerate(np.unique(groups[new])):
        rows = groups == label
        model, v = _newcomer_reference(before, info, X[rows], y[rows],
                                       np.ones(rows.sum()), n_local, n_steps,
                                       resolve=update is not None)
        np.testing.assert_allclose(est._full_coef()[K + k], model, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(est.collaboration_graph_[K + k, :K].toarray()[0], v,
                                   rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
@pytest.mark.parametrize("update", [None, "n_nodes"])
def test_join_bytes_closed_form(cls, update):
    X, y, groups = _data()
    est, _, new = _fit(cls, X, y, groups, max_iter=60, graph_update_every=update)
    new &= groups == groups.max()  # one newcomer (peers: test_graph_join_peers.py)
    before = est.n_bytes_sent_
    models = est._full_coef()
    K = len(models)
    graph_models = est._join_info["graph_models"]
    assert (graph_models is None) == (update is not None)
    est.add_nodes(X[new], y[new], groups=groups[new])
    header = SimulatedNetwork().header_bytes
    answered = models if graph_models is None else graph_models
    answers = int(model_message_bytes(answered.reshape(K, -1), models.dtype).sum())
    finals = model_message_bytes(models.reshape(K, -1), models.dtype)
    W = est.collaboration_graph_[K:, :K].tocoo()
    n_neighbours = W.nnz
    n_new = 1
    expected = (n_new * K * header                      # requests
                + n_new * (answers + K * (16 + header))  # model, loss, degree
                + n_neighbours * (8 + header))           # final weights
    if graph_models is not None:
        # A request to each neighbour, which sends its final model.
        expected += n_neighbours * header + int(finals[W.col].sum()) + n_neighbours * header
    # The first answer carries the fit's mass summary (skfed._node_mass):
    # (max, mean) for Dada, (max, mean, median, min) for Perso-lin.
    expected += n_new * 8 * (2 if cls is DecentralizedBoostingClassifier else 4)
    assert est.join_communication_.total_bytes == expected
    assert est.n_bytes_sent_ == before + expected
    np.testing.assert_array_equal(est.communication_.total_bytes, before)


def test_join_under_drops_and_rogue_nodes_keeps_old_nodes():
    X, y, groups = _data(n_nodes=10)
    net = SimulatedNetwork(drop_rate=0.3, rogue_fraction=0.2, random_state=0)
    est, info, new = _fit(PersonalizedLinearClassifier, X, y, groups, network=net)
    info["rogue"][:2] = True
    before = est.coef_.copy()
    graph_join_nodes(est, X[new], y[new], groups[new], info=info)
    np.testing.assert_array_equal(est.coef_[: len(before)], before)
    assert est.coef_.shape[0] == len(before) + 2
    assert np.all(np.isfinite(est.coef_))
    # A dropped candidate does not answer: fewer answers than candidates.
    K = len(before)
    received = est.join_communication_.to_dict()
    assert est.join_communication_.total_messages < 2 * (2 * K) + 2 * K


def test_join_refuses_fitted_ids_and_unknown_classes():
    X, y, groups = _data()
    est, info, new = _fit(PersonalizedLinearClassifier, X, y, groups)
    with pytest.raises(ValueError, match="already in nodes_"):
        graph_join_nodes(est, X[:5], y[:5], groups[:5], info=info)
    with pytest.raises(ValueError, match="not in classes_"):
        graph_join_nodes(est, X[new], np.full(new.sum(), 7), groups[new], info=info)


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_private_join_accounts_the_newcomers_spend(cls):
    from skfed.boosting import make_stump_predictors
    from skfed.privacy import DifferentialPrivacy

    X, y, groups = _data(n_nodes=8, n_per=30)
    params = dict(max_iter=120, privacy=DifferentialPrivacy(epsilon=3.0, insecure_noise_seed=0))
    if cls is DecentralizedBoostingClassifier:
        params["base_predictors"] = make_stump_predictors(np.full(2, -3.0), np.full(2, 3.0), 10)
    with pytest.warns(UserWarning):
        est, info, new = _fit(cls, X, y, groups, **params)
    assert np.all(info["losses"] == 0)  # private fits send no loss
    before = est.coef_.copy()
    spent = est.privacy_spent_.copy()
    # What the fitted nodes send a newcomer are their released models, never
    # the refits they keep: spoiling the kept models changes nothing.
    import copy

    spoiled = copy.deepcopy(est)
    spoiled.coef_ = np.full_like(est.coef_, 1e6)
    with pytest.warns(UserWarning, match="insecure_noise_seed"):
        graph_join_nodes(est, X[new], y[new], groups[new], info=info)
    with pytest.warns(UserWarning, match="insecure_noise_seed"):
        graph_join_nodes(spoiled, X[new], y[new], groups[new], info=info)
    K = len(before)
    np.testing.assert_array_equal(spoiled.coef_[K:], est.coef_[K:])
    # A newcomer's model is its released one, with no refit choice.
    np.testing.assert_array_equal(est.released_coef_[K:], est.coef_[K:])
    assert est.released_coef_.shape == est.coef_.shape
    assert np.all(np.isnan(est.refit_trust_[K:])) and np.all(est.refit_trust_[:K] >= 0)
    np.testing.assert_array_equal(est.coef_[:K], before)
    np.testing.assert_array_equal(est.privacy_spent_[:K], spent)
    assert est.privacy_spent_.shape == (K + 2,)
    assert np.all(est.privacy_spent_[K:] > 0)
    assert np.all(est.privacy_spent_[K:] <= 3.0 + 1e-9)
    assert np.all(np.isfinite(est.coef_))


# ------------------------------------------------------- add_nodes (public)
@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fit_keeps_what_the_join_needs(cls, n_classes):
    X, y, groups = _data()
    if n_classes == 3:
        y = np.where(X[:, 1] > 0.8, 2, y)
    net = SimulatedNetwork(rogue_fraction=0.25, random_state=0)
    fit = groups < groups.max() - 1
    w = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    est = cls(random_state=0, max_iter=120, network=net).fit(
        X[fit], y[fit], groups=groups[fit], sample_weight=w[fit])
    kept = est._join_info
    # Perso-lin learns its graph once by default: the losses are those of the
    # models the graph was learned from (its local models); Dada re-learns it.
    assert (kept["graph_models"] is None) == (cls is DecentralizedBoostingClassifier)
    info = join_info_from_data(est, X[fit], y[fit], groups[fit], w[fit],
                               models=kept["graph_models"])
    np.testing.assert_allclose(kept["losses"], info["losses"], rtol=1e-9, atol=1e-12)
    assert est._join_info["max_mass"] == pytest.approx(info["max_mass"], rel=1e-12)
    assert est._join_info["n_fit"] == len(est.nodes_)
    assert est._join_info["rogue"].sum() == round(0.25 * len(est.nodes_))


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_add_nodes_equals_the_join_from_the_fits_data(cls):
    X, y, groups = _data()
    est, _, new = _fit(cls, X, y, groups, max_iter=120)
    fit = ~new
    graph_models = est._join_info["graph_models"]
    info = join_info_from_data(est, X[fit], y[fit], groups[fit], models=graph_models)
    info["graph_models"] = graph_models
    other = copy.deepcopy(est)
    est.add_nodes(X[new], y[new], groups=groups[new])
    graph_join_nodes(other, X[new], y[new], groups[new], info=info)
    np.testing.assert_allclose(est.coef_, other.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.collaboration_graph_.toarray(),
                               other.collaboration_graph_.toarray(), rtol=1e-9, atol=1e-12)
    assert est.join_communication_.total_bytes == other.join_communication_.total_bytes


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_second_join_sees_the_first_newcomers(cls):
    X, y, groups = _data(n_nodes=10)
    fit = groups < 7
    est = cls(random_state=0, max_iter=140).fit(X[fit], y[fit], groups=groups[fit])
    first, second = groups == 7, groups >= 8
    est.add_nodes(X[first], y[first], groups=groups[first])
    after_first = copy.deepcopy(est)
    bytes_first = est.join_communication_.total_bytes
    est.add_nodes(X[second], y[second], groups=groups[second])
    # Nothing of the first join moves; the log adds up; joined nodes answer.
    np.testing.assert_array_equal(est.coef_[:8], after_first.coef_)
    assert est.nodes_.tolist() == list(range(10))
    assert est._join_info["losses"].shape == (10,)
    assert est._join_info["n_fit"] == 7
    assert est.join_communication_.total_bytes > bytes_first
    assert est.n_bytes_sent_ == (est.communication_.total_bytes
                                 + est.join_communication_.total_bytes)
    # Every node is a candidate (20 kappa >= 8): node 7 answered node 8 and 9.
    assert est.join_communication_.pair_bytes_sparse[7, 8] > 0
    assert est.join_communication_.pair_bytes_sparse[7, 9] > 0
    assert est.collaboration_graph_.shape == (10, 10)
    assert np.all(np.isfinite(est.coef_))


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_add_nodes_refuses_bad_input_by_name(cls):
    from sklearn.exceptions import NotFittedError

    X, y, groups = _data()
    est, _, new = _fit(cls, X, y, groups, max_iter=60)
    Xn, yn, gn = X[new], y[new], groups[new]
    with pytest.raises(NotFittedError):
        cls().add_nodes(Xn, yn, groups=gn)
    with pytest.raises(ValueError, match="already in nodes_"):
        est.add_nodes(X[:5], y[:5], groups=groups[:5])
    with pytest.raises(ValueError, match="not in classes_"):
        est.add_nodes(Xn, np.full(len(yn), 7), groups=gn)
    with pytest.raises(ValueError, match="node id"):
        est.add_nodes(Xn, yn)
    bad = Xn.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.add_nodes(bad, yn, groups=gn)
    with pytest.raises(ValueError, match="features"):
        est.add_nodes(Xn[:, :1], yn, groups=gn)
    with pytest.raises(ValueError, match="inconsistent|length"):
        est.add_nodes(Xn, yn[:-1], groups=gn)
    w = np.ones(len(yn))
    w[0] = -1.0
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        est.add_nodes(Xn, yn, groups=gn, sample_weight=w)
    w = np.where(gn == gn.max(), 0.0, 1.0)
    with pytest.raises(ValueError,
                       match=rf"Node {int(gn.max())} has no sample with a positive sample_weight"):
        est.add_nodes(Xn, yn, groups=gn, sample_weight=w)
    est.set_params(network=SimulatedNetwork(straggler_rate=0.2))
    with pytest.raises(ValueError, match="straggler_rate"):
        est.add_nodes(Xn, yn, groups=gn)
    est.set_params(network=None)
    del est._join_info
    with pytest.raises(ValueError, match="refit it with fit"):
        est.add_nodes(Xn, yn, groups=gn)
    # Nothing was appended by the refused calls.
    assert len(est.nodes_) == len(np.unique(groups)) - 2


def test_private_join_refuses_sample_weight_and_accounts_infinite_epsilon():
    from skfed.privacy import DifferentialPrivacy

    X, y, groups = _data()
    with pytest.warns(UserWarning):
        est, _, new = _fit(PersonalizedLinearClassifier, X, y, groups, max_iter=60,
                           privacy=DifferentialPrivacy(epsilon=3.0, insecure_noise_seed=0))
    with pytest.raises(ValueError, match="sample_weight"):
        est.add_nodes(X[new], y[new], groups=groups[new], sample_weight=np.ones(new.sum()))
    est, _, _ = _fit(PersonalizedLinearClassifier, X, y, groups, max_iter=60,
                     privacy=DifferentialPrivacy(epsilon=np.inf))
    K = len(est.nodes_)
    est.add_nodes(X[new], y[new], groups=groups[new])
    assert est.privacy_spent_.shape == (K + 2,)
    assert np.all(np.isinf(est.privacy_spent_))
    assert est.privacy_["uses"].shape == (K + 2,)
    assert est.privacy_["stopped_at"].tolist()[K:] == [-1, -1]


def test_private_join_extends_the_per_node_privacy_record():
    from skfed.privacy import DifferentialPrivacy

    X, y, groups = _data(n_nodes=8, n_per=30)
    with pytest.warns(UserWarning):
        est, _, new = _fit(PersonalizedLinearClassifier, X, y, groups, max_iter=120,
                           privacy=DifferentialPrivacy(epsilon=3.0, insecure_noise_seed=0))
    K = len(est.nodes_)
    record = copy.deepcopy(est.privacy_)
    with pytest.warns(UserWarning, match="insecure_noise_seed"):
        est.add_nodes(X[new], y[new], groups=groups[new])
    for key in ("uses", "stopped_at", "gradient_sensitivity", "sigma", "grid_step",
                "lipschitz"):
        assert est.privacy_[key].shape == (K + 2,), key
        np.testing.assert_array_equal(est.privacy_[key][:K], record[key])
    # Same mass as the fitted nodes (30 samples): same sensitivity, sigma, grid.
    for key in ("gradient_sensitivity", "sigma", "grid_step", "lipschitz"):
        np.testing.assert_allclose(est.privacy_[key][K:], record[key][0], rtol=1e-12)
    # A newcomer spends what a fitted node's local steps and wake-ups could.
    assert np.all(est.privacy_spent_[K:] <= 3.0 + 1e-9)


# ------------------------------------------- joining and refitting agree
def test_join_block_is_the_fits_block_at_a_converged_refit():
    """With the others at their refit values and the refit's row, the join's
    model steps (lin_join) leave the refit's model of the node where it is
    and lead there from zero: the newcomer solves the same block of eq. 1 as
    the fit (a fixed graph, so the refit converges to the joint optimum)."""
    X, y, groups = _data(n_nodes=6, n_per=30)
    rng = np.random.RandomState(0)
    W = rng.uniform(0.2, 1.0, (6, 6))
    W = np.triu(W, 1) + np.triu(W, 1).T
    refit = PersonalizedLinearClassifier(graph=W, mu=0.5, alpha=0.05, max_iter=30000,
                                         random_state=0, local_update="gradient",
                                         ).fit(X, y, groups=groups)
    models = refit._full_coef().astype(np.float64)
    k = 5
    rows = groups == k
    Z = refit._design(X[rows], np.float64)
    Y = np.where(y[rows] == 1, 1.0, -1.0)[None, :]
    sw = np.ones(rows.sum())
    S = np.ascontiguousarray(np.einsum("r,rpj->pj", W[k], models))
    lip = 0.25 * np.linalg.norm(Z, 2) ** 2 / sw.sum() + 0.05
    args = (Logistic(), 1.0 / sw.sum(), lip, 0.05, 2, S, float(W[k].sum()),
            float(refit.confidence_[k]), 0.5)
    theta = models[k][None].copy()
    lin_join(Z, Y, sw, theta, np.zeros(1), *args, 50)
    np.testing.assert_allclose(theta[0], models[k], atol=1e-6)
    theta = np.zeros_like(theta)
    lin_join(Z, Y, sw, theta, np.zeros(1), *args, 3000)
    np.testing.assert_allclose(theta[0], models[k], atol=1e-6)


def _clusters(seed, n_nodes=20, n_per=60):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.normal(size=(n_nodes * n_per, 2))
    flip = np.where(np.arange(n_nodes) % 2 == 0, 1.0, -1.0)[groups]
    noise = 0.3 * rng.normal(size=len(groups))
    y = (flip * X[:, 0] + 0.3 * X[:, 1] + noise > 0).astype(int)
    return X, y, groups


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_join_approaches_the_refit(cls):
    """Two clusters of tasks, 18 fitted nodes, 2 newcomers with 8 samples:
    the join predicts like a refit that includes them (stated: mean accuracy
    over 3 seeds within 1 point of the refit, and at least 3 points above
    the newcomers' Local logistic regressions)."""
    from sklearn.linear_model import LogisticRegression

    from skfed.baselines import LocalEstimator

    join, refit, local = [], [], []
    for seed in range(3):
        X, y, groups = _clusters(seed)
        new = groups >= 18
        train = new & (np.arange(len(groups)) % 60 < 8)
        test, fit = new & ~train, ~new
        est = cls(random_state=seed).fit(X[fit], y[fit], groups=groups[fit])
        est.add_nodes(X[train], y[train], groups=groups[train])
        ref = cls(random_state=seed).fit(X[fit | train], y[fit | train],
                                         groups=groups[fit | train])
        loc = LocalEstimator(LogisticRegression()).fit(X[train], y[train], groups=groups[train])
        join.append(est.score(X[test], y[test], groups=groups[test]))
        refit.append(ref.score(X[test], y[test], groups=groups[test]))
        local.append(loc.score(X[test], y[test], groups=groups[test]))
    assert np.mean(join) >= np.mean(refit) - 0.01
    assert np.mean(join) >= np.mean(local) + 0.03


# ------------------------------------------- newcomers of one call see each other
def _params(cls):
    params = dict(max_iter=6 * 40, sparsify_graph=None, max_neighbors=None,
                  graph_update_every=None)
    if cls is DecentralizedBoostingClassifier:
        params.update(n_estimators=8, peer_scoring=False)
    else:  # the NumPy references take gradient steps
        params.update(local_update="gradient")
    return params


def _two_newcomers_reference(est, info, parts):
    """Both newcomers' computation in NumPy: local models, rows toward the
    fitted nodes, rows over the fitted nodes and the other newcomer (mean
    weight between them), synchronous model steps."""
    dada = isinstance(est, DecentralizedBoostingClassifier)
    models = est._full_coef().astype(np.float64)
    K, P, n = models.shape
    W = est.collaboration_graph_.toarray()
    d_old = W.sum(axis=1)
    mu = est.mu
    mu_graph = est.mu if est.mu_graph is None else est.mu_graph
    l2 = getattr(est, "alpha", 0.0)
    n_pen = n - int(est.fit_intercept)
    n_local = n_steps = est._schedule(K)[0] // K
    nodes = []
    for X, y in parts:
        Z = est._base_matrix(X, np.float64) if dada else est._design(X, np.float64)
        Y = np.where(y == est.classes_[1], 1.0, -1.0)[None, :]
        sw = np.ones(len(y))
        c = sw.sum() / max(info["max_mass"], sw.sum())
        lip = None
        if dada:
            model = _fw_numpy(Z, Y, sw, np.zeros((P, n)), np.zeros((P, n)), 0.0, 1.0,
                              est.beta, 0.0, 0, n_local)
        else:
            lip = 0.25 * np.linalg.norm(Z, 2) ** 2 / sw.sum() + l2
            model = _lin_solve_numpy(Z, Y, sw, l2, n_pen, LOCAL_TOL, LOCAL_MAX_ITER)

        def own_loss(mdl, Z=Z, Y=Y, sw=sw):
            if dada:
                return sum(np.log(sw @ np.exp(-Y[p] * (Z @ mdl[p]))) for p in range(P))
            return (sum(sw @ np.log1p(np.exp(-Y[p] * (Z @ mdl[p]))) / sw.sum()
                        for p in range(P)) + 0.5 * l2 * np.sum(mdl[:, :n_pen] ** 2))

        nodes.append(dict(Z=Z, Y=Y, sw=sw, c=c, lip=lip, model=model,
                          graph_loss=c * own_loss(model), own_loss=own_loss))
    for node in nodes:
        z = ((models - node["model"]) ** 2).reshape(K, -1).sum(axis=1)
        a = node["graph_loss"] + info["losses"] + 0.5 * mu * z
        node["degree"] = _row_numpy(a, d_old, 0.0, mu_graph, est.lambda_graph,
                                    est.delta).sum()
    toward = np.zeros(2)
    for k, node in enumerate(nodes):
        other = nodes[1 - k]
        cand = np.concatenate([models, other["model"][None]])
        z = ((cand - node["model"]) ** 2).reshape(K + 1, -1).sum(axis=1)
        a = (node["graph_loss"] + np.append(info["losses"], other["graph_loss"])
             + 0.5 * mu * z)
        v = _row_numpy(a, np.append(d_old, other["degree"]), 0.0, mu_graph,
                       est.lambda_graph, est.delta)
        node["row"], toward[k] = v[:K], v[K]
    w_nn = toward.mean()
    block = max(1, math.ceil(n_steps / _SYNC_BLOCKS)) if w_nn > 0 else n_steps
    tau = 0
    while tau < n_steps:
        size = min(block, n_steps - tau)
        current = [node["model"].copy() for node in nodes]
        for k, node in enumerate(nodes):
            S = np.einsum("r,rpj->pj", node["row"], models) + w_nn * current[1 - k]
            dk = node["row"].sum() + w_nn
            if dada:
                if tau == 0 and dk > 0:  # from the neighbours' mean (see above)
                    node["model"], node["shift"] = S / dk, _WARM_START * n_steps
                node["model"] = _fw_numpy(node["Z"], node["Y"], node["sw"], node["model"], S,
                                          dk, node["c"], est.beta, mu,
                                          tau + node.get("shift", 0), size)
            else:
                node["model"] = _lin_numpy(node["Z"], node["Y"], node["sw"], node["model"], S,
                                           dk, node["c"], mu, l2, n_pen, node["lip"], size)
        tau += size
    return nodes, w_nn, block, n_steps


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_two_newcomers_see_each_other_as_in_numpy(cls):
    X, y, groups = _data(n_nodes=8)
    # two clusters (even and odd nodes): the newcomers 5 and 7 are alike
    fit = ~np.isin(groups, [5, 7])
    est = cls(random_state=0, **_params(cls)).fit(X[fit], y[fit], groups=groups[fit])
    info = join_info_from_data(est, X[fit], y[fit], groups[fit])
    before = copy.deepcopy(est)
    new = ~fit
    graph_join_nodes(est, X[new], y[new], groups[new], info=info)
    K = len(before.nodes_)
    np.testing.assert_array_equal(est.coef_[:K], before.coef_)
    np.testing.assert_array_equal(est.collaboration_graph_[:K, :K].toarray(),
                                  before.collaboration_graph_.toarray())
    parts = [(X[groups == g], y[groups == g]) for g in (5, 7)]
    nodes, w_nn, block, n_steps = _two_newcomers_reference(before, info, parts)
    assert w_nn > 0  # the test exercises the newcomers' link
    graph = est.collaboration_graph_.toarray()
    np.testing.assert_allclose(graph[K, K + 1], w_nn, rtol=1e-7)
    assert graph[K + 1, K] == graph[K, K + 1]
    for k, node in enumerate(nodes):
        np.testing.assert_allclose(graph[K + k, :K], node["row"], rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(est._full_coef()[K + k], node["model"], rtol=1e-6,
                                   atol=1e-8)


def test_peer_exchange_bytes_closed_form():
    """Perso-lin models are dense: every model message is 8 n bytes."""
    cls = PersonalizedLinearClassifier
    X, y, groups = _data(n_nodes=8)
    fit = ~np.isin(groups, [5, 7])
    est = cls(random_state=0, **_params(cls)).fit(X[fit], y[fit], groups=groups[fit])
    info = join_info_from_data(est, X[fit], y[fit], groups[fit])
    before = copy.deepcopy(est)
    new = ~fit
    graph_join_nodes(est, X[new], y[new], groups[new], info=info)
    K = len(before.nodes_)
    models = est._full_coef()
    header = SimulatedNetwork().header_bytes
    dense = 8 * models.shape[1] * models.shape[2]
    _, w_nn, block, n_steps = _two_newcomers_reference(before, info, [
        (X[groups == g], y[groups == g]) for g in (5, 7)])
    assert w_nn > 0
    graph = est.collaboration_graph_.toarray()
    n_fitted_nbrs = int(np.count_nonzero(graph[K:, :K]))
    fitted_part = (2 * K * header                       # requests to the fitted nodes
                   + 2 * K * (dense + 16 + header)      # their model, loss, degree
                   + n_fitted_nbrs * (8 + header)       # final weights
                   + 2 * 4 * 8)                         # the mass summary, first answers
    n_blocks = math.ceil(n_steps / block)
    peer_part = (2 * header                             # a request each way
                 + 2 * (dense + 16 + header)            # local model, loss, degree
                 + 2 * (n_blocks - 1) * (dense + header))  # current models between blocks
    assert est.join_communication_.total_bytes == fitted_part + peer_part


def test_joins_draw_the_same_whatever_ran_before_in_the_thread():
    # The join's RandomState is kept by the thread and re-seeded: a join after
    # other joins and draws (a Dada join with its vote, a Perso-lin one with
    # network drops) gives what the first join of the process gave.
    from skfed._graph_join_fitted import join_random_state as _join_random_state

    rng = np.random.RandomState(3)
    X = rng.normal(size=(140, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    g = np.repeat(np.arange(7), 20)
    net = SimulatedNetwork(drop_rate=0.2)
    lin = PersonalizedLinearClassifier(max_iter=60, network=net, random_state=0)
    lin.fit(X[:100], y[:100], groups=g[:100])
    dada = DecentralizedBoostingClassifier(max_iter=20, random_state=1)
    dada.fit(X[:100], y[:100], groups=g[:100])

    def join(est):
        return copy.deepcopy(est).add_nodes(X[100:], y[100:], groups=g[100:])

    first = join(lin)
    join(dada)
    _join_random_state([7]).normal(size=11)  # leaves a cached Gaussian behind
    again = join(lin)
    np.testing.assert_array_equal(again.coef_, first.coef_)
    np.testing.assert_array_equal(again.collaboration_graph_.toarray(),
                                  first.collaboration_graph_.toarray())
    assert again.join_communication_.total_bytes == first.join_communication_.total_bytes
    assert first.coef_.shape[0] == 7 and np.any(first.coef_[5:] != 0)


@pytest.mark.parametrize("seed", range(4))
def test_csr_of_pairs_equals_scipy_coo_conversion(seed):
    from scipy import sparse

    from skfed._graph_join_fitted import csr_of_pairs as _csr_of_pairs

    rng = np.random.RandomState(seed)
    n = 30
    keys = rng.choice(n * n, size=120, replace=seed == 3)  # seed 3: repeated pairs
    rows, cols = keys // n, (keys % n).astype(np.int32)
    data = rng.uniform(size=120)
    data[::9] = 0.0  # explicit zeros stay
    ours = _csr_of_pairs(data, rows, cols, n)
    ref = sparse.csr_matrix((data, (rows, cols)), shape=(n, n))
    for a in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(ours, a), getattr(ref, a))
        assert getattr(ours, a).dtype == getattr(ref, a).dtype
    assert ours.nnz == ref.nnz and ours.shape == (n, n)
    assert (ref.nnz < 120) == (seed == 3 and len(np.unique(keys)) < 120)


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_a_refit_forgets_the_joins_of_the_earlier_fit(cls):
    """fit, add_nodes, fit again, add_nodes: the second join equals a fresh
    estimator's (the earlier join's log and join seed are dropped; the stale
    log over more nodes made the second join raise)."""
    X, y, groups = _data(n_nodes=8)
    fit, new = groups < 6, groups >= 6
    params = dict(max_iter=300, random_state=0)
    if cls is DecentralizedBoostingClassifier:
        params.update(n_estimators=8)
    est = cls(**params).fit(X[fit], y[fit], groups=groups[fit])
    est.add_nodes(X[new], y[new], groups=groups[new])
    est.fit(X[fit], y[fit], groups=groups[fit])
    assert not hasattr(est, "join_communication_")
    assert est.n_bytes_sent_ == est.communication_.total_bytes
    est.add_nodes(X[new], y[new], groups=groups[new])
    fresh = cls(**params).fit(X[fit], y[fit], groups=groups[fit])
    fresh.add_nodes(X[new], y[new], groups=groups[new])
    np.testing.assert_array_equal(est.coef_, fresh.coef_)
    np.testing.assert_array_equal(est.collaboration_graph_.toarray(),
                                  fresh.collaboration_graph_.toarray())
    assert est.n_bytes_sent_ == fresh.n_bytes_sent_
