"""Dada's joins on a kernel-signal fit (``graph_signal_ == "kernel"``), against NumPy.

The newcomer's kernel graph model (the fit's pooled moments and public
directions, its own samples), its row of the graph learned from the kernel
models as the fit's graph steps learn every row, its Frank-Wolfe steps with
the final models of its neighbours fixed, the bytes of the join in closed
form, and where it places the newcomers of a cluster.
"""

import copy

import numpy as np
import pytest

import skfed.boosting._kernel_graph as kernel_module
from skfed._graph_join import _RESOLVE_EVERY
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._kernel_graph import KERNEL_NORM, KERNEL_RIDGE, kernel_directions
from skfed.datasets import make_rotated_moons
from skfed.network import SimulatedNetwork

from .test_graph_join import _data, _fw_numpy, _row_numpy

HEADER = SimulatedNetwork().header_bytes


def _fit_capturing_directions(monkeypatch, X, y, groups, **params):
    """Fit Dada (kernel signal) and return it with the directions the fit drew."""
    drawn = []

    def directions(n_inputs, seeds, **kw):
        out = kernel_directions(n_inputs, seeds, **kw)
        drawn.append(out)
        return out

    monkeypatch.setattr(kernel_module, "kernel_directions", directions)
    est = DecentralizedBoostingClassifier(random_state=0, **params).fit(X, y, groups=groups)
    monkeypatch.undo()
    assert est.graph_signal_ == "kernel" and len(drawn) == 1
    return est, drawn[0]


def _numpy_kernel(X_fit, X_new, y_new, features, W, b, classes, targets_fit):
    """Pooled moments of the fitted nodes' samples (unit weights), the random
    Fourier map and kernel ridge in its primal (D unknowns), rescaled to norm
    KERNEL_NORM: the fitted nodes' models and the newcomer's."""
    Z = X_fit[:, features]
    mean, spread = Z.mean(axis=0), Z.std(axis=0)

    def phi(X):
        return np.sqrt(2.0 / W.shape[1]) * np.cos(((X[:, features] - mean) / spread) @ W + b)

    def ridge(A, t):
        w = np.linalg.solve(A.T @ A + KERNEL_RIDGE * np.eye(A.shape[1]), A.T @ t)
        return w / np.linalg.norm(w) * KERNEL_NORM

    fitted = np.array([ridge(phi(X_fit)[rows], t) for rows, t in targets_fit])
    phi_new = phi(X_new)
    t_new = np.where(y_new == classes[1], 1.0, -1.0)
    return fitted, phi_new, ridge(phi_new, t_new)


def _kernel_newcomer_reference(est, info, fitted_kernel, phi_n, kernel_n, X, y, n_local,
                               n_steps, resolve):
    """The newcomer's join in NumPy: local Frank-Wolfe steps; its row from the
    kernel models (pair cost (mu / 2) ||k_n - k_r||^2 plus twice its peer score
    3 (L_n(k_r) - L_n(k_n)) on its kernel features, plus both nodes' losses);
    Frank-Wolfe steps on the final models of its neighbours, the row solved
    again every _RESOLVE_EVERY steps when the fit re-learns its graph.
    Returns its model, its last row and every fitted node it ever weighed."""
    models = est._full_coef().astype(np.float64)
    K, P, n = models.shape
    Z = est._base_matrix(X, np.float64)
    Y = np.where(y == est.classes_[1], 1.0, -1.0)[None, :]
    sw = np.ones(len(y))
    c = sw.sum() / max(info["max_mass"], sw.sum())
    d_old = est.collaboration_graph_.toarray().sum(axis=1)
    mu = est.mu
    mu_graph = est.mu if est.mu_graph is None else est.mu_graph

    def lse(M, mdl):
        return np.log(sw @ np.exp(-Y[0] * (M @ mdl)))

    scores = 2 * 3.0 * (np.array([lse(phi_n, k) for k in fitted_kernel]) - lse(phi_n, kernel_n))
    pair = 0.5 * mu * ((fitted_kernel - kernel_n) ** 2).sum(axis=1) + scores

    def row(mdl):
        a = c * lse(Z, mdl[0]) + info["losses"] + pair
        return _row_numpy(a, d_old, 0.0, mu_graph, est.lambda_graph, est.delta)

    model = _fw_numpy(Z, Y, sw, np.zeros((P, n)), np.zeros((P, n)), 0.0, 1.0, est.beta, 0.0,
                      0, n_local)
    v = row(model)
    ever = v > 0
    for tau in range(n_steps):
        S = np.einsum("r,rpj->pj", v, models)
        model = _fw_numpy(Z, Y, sw, model, S, v.sum(), c, est.beta, mu, tau, 1)
        if resolve and (tau + 1) % _RESOLVE_EVERY == 0 and tau < n_steps - 1:
            v = row(model)
            ever |= v > 0
    return model, v, ever


@pytest.mark.parametrize("update", [None, "n_nodes"])
def test_kernel_join_equals_numpy_and_bytes_are_the_closed_form(monkeypatch, update):
    X, y, groups = _data()
    fit = groups < groups.max() - 1
    new = groups == groups.max()
    params = dict(n_estimators=8, peer_scoring=True, max_iter=6 * 3 * _RESOLVE_EVERY,
                  sparsify_graph=None, max_neighbors=None, graph_update_every=update)
    est, (W, b) = _fit_capturing_directions(monkeypatch, X[fit], y[fit], groups[fit],
                                            **params)
    K = len(est.nodes_)
    targets = [(groups[fit] == g, np.where(y[fit][groups[fit] == g] == est.classes_[1],
                                           1.0, -1.0)) for g in est.nodes_]
    fitted_kernel, phi_n, kernel_n = _numpy_kernel(X[fit], X[new], y[new],
                                                   est.kernel_features_, W, b, est.classes_,
                                                   targets)
    # The fit keeps every node's kernel model (what it answers a newcomer with).
    kept = est._kernel_join["models"]
    assert kept.shape == (K, 1, W.shape[1])
    np.testing.assert_allclose(kept[:, 0], fitted_kernel, rtol=1e-7, atol=1e-9)
    info = copy.deepcopy(est._join_info)
    before = copy.deepcopy(est)
    bytes_before = est.n_bytes_sent_
    est.add_nodes(X[new], y[new], groups=groups[new])
    # Old nodes bit-identical.
    np.testing.assert_array_equal(est.coef_[:K], before.coef_)
    np.testing.assert_array_equal(est.intercept_[:K], before.intercept_)
    np.testing.assert_array_equal(est.collaboration_graph_[:K, :K].toarray(),
                                  before.collaboration_graph_.toarray())
    np.testing.assert_array_equal(est._kernel_join["models"][:K], kept)
    # The newcomer's kernel model: kept for later joins.
    np.testing.assert_allclose(est._kernel_join["models"][K, 0], kernel_n, rtol=1e-7,
                               atol=1e-9)
    n_local = n_steps = 3 * _RESOLVE_EVERY  # max_iter / n_fitted
    model, v, ever = _kernel_newcomer_reference(before, info, fitted_kernel, phi_n, kernel_n,
                                                X[new], y[new], n_local, n_steps,
                                                resolve=update is not None)
    assert np.count_nonzero(v) >= 2
    np.testing.assert_allclose(est.collaboration_graph_[K, :K].toarray()[0], v, rtol=1e-7,
                               atol=1e-10)
    np.testing.assert_allclose(est._full_coef()[K], model, rtol=1e-7, atol=1e-9)

    # Bytes: a request to every fitted node, which answers with its kernel
    # model (300 float64, dense), loss and degree; a request to every fitted
    # node the newcomer ever weighed, which sends its final model (its
    # non-zero stump weights or all of them, whichever is smaller); the
    # final weight to each final neighbour.
    D = W.shape[1]
    finals = before._full_coef()[:, 0, :]
    nnz = np.count_nonzero(finals, axis=1)
    index_bytes = (nnz * int(np.ceil(np.log2(finals.shape[1]))) + 7) // 8
    final_bytes = np.minimum(8 * finals.shape[1], 8 * nnz + index_bytes)
    expected = (K * header_plus(0)                         # requests
                + K * header_plus(8 * D + 16)              # kernel model, loss, degree
                + int(ever.sum()) * header_plus(0)         # requests for final models
                + int(final_bytes[ever].sum()) + int(ever.sum()) * HEADER
                + int(np.count_nonzero(v)) * header_plus(8))  # final weights
    assert est.join_communication_.total_bytes == expected
    assert est.n_bytes_sent_ == bytes_before + expected


def header_plus(payload):
    return HEADER + payload


def test_a_second_kernel_join_answers_with_the_first_newcomers_models():
    X, y, groups = _data(n_nodes=9)
    fit = groups < 6
    est = DecentralizedBoostingClassifier(8, random_state=0, max_iter=300).fit(
        X[fit], y[fit], groups=groups[fit])
    est.add_nodes(X[groups == 6], y[groups == 6], groups=groups[groups == 6])
    first = est._kernel_join["models"].copy()
    assert first.shape[0] == 7
    est.add_nodes(X[groups >= 7], y[groups >= 7], groups=groups[groups >= 7])
    np.testing.assert_array_equal(est._kernel_join["models"][:7], first)
    assert est._kernel_join["models"].shape[0] == 9
    # A refit starts afresh: no kernel state, join log or join seed of the
    # earlier fit (its joins equal a fresh estimator's).
    est.set_params(graph_signal="boosting").fit(X[fit], y[fit], groups=groups[fit])
    assert est.graph_signal_ == "boosting" and not hasattr(est, "_kernel_join")
    assert not hasattr(est, "join_communication_")
    est.add_nodes(X[groups == 6], y[groups == 6], groups=groups[groups == 6])
    fresh = DecentralizedBoostingClassifier(8, random_state=0, max_iter=300,
                                            graph_signal="boosting").fit(
        X[fit], y[fit], groups=groups[fit])
    fresh.add_nodes(X[groups == 6], y[groups == 6], groups=groups[groups == 6])
    np.testing.assert_array_equal(est.coef_, fresh.coef_)
    assert est.n_bytes_sent_ == fresh.n_bytes_sent_


# Two held-out moons families of issue 33 (benchmarks/dada_experiments.py's
# "noisy" and "jitter"), four clusters of 10, 20, 30, 40 nodes, 20 newcomers.
_FAMILIES = {
    "noisy": dict(layout="random", padding_std=1.0, noise=0.15, angle_jitter=0.15,
                  label_noise=0.05, angles=[0.3, 1.4, 3.0, 4.6]),
    "jitter": dict(layout="paper", padding_std=0.0, noise=0.15, angle_jitter=0.15,
                   label_noise=0.05),
}


def _inside_share(family, seed):
    """Share of the newcomers' weight toward fitted nodes of their own
    cluster: the kernel join and the join of the same fit learning rows from
    the boosting models (its graph_signal_ set to "boosting")."""
    X, _, y, _, g, _, _, clusters = make_rotated_moons(
        100, cluster_sizes=[10, 20, 30, 40], n_samples_range=(3, 14), n_features=20,
        random_state=seed, **_FAMILIES[family])
    new_nodes = np.random.RandomState(seed).choice(100, 20, replace=False)
    fit = ~np.isin(g, new_nodes)
    est = DecentralizedBoostingClassifier(random_state=seed).fit(X[fit], y[fit], groups=g[fit])
    K = len(est.nodes_)
    out = {}
    for signal in ("kernel", "boosting"):
        joined = copy.deepcopy(est)
        joined.graph_signal_ = signal
        joined.add_nodes(X[~fit], y[~fit], groups=g[~fit])
        W = joined.collaboration_graph_[K:, :K].toarray()
        inside = clusters[joined.nodes_[K:]][:, None] == clusters[joined.nodes_[:K]][None, :]
        out[signal] = W[inside].sum() / W.sum()
    return out


@pytest.mark.parametrize("family", ["noisy", "jitter"])
def test_kernel_join_places_newcomers_inside_their_cluster(family):
    shares = [_inside_share(family, seed) for seed in (0, 1)]
    kernel = np.mean([s["kernel"] for s in shares])
    boosting = np.mean([s["boosting"] for s in shares])
    assert kernel >= boosting
    assert kernel > 0.6
