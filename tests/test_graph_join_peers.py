"""Dada / Perso-lin newcomers of one add_nodes call see each other (issue 32):
two newcomers' rows and synchronous model steps against NumPy, the old
nodes bit-identical, the extra bytes in closed form."""

import copy
import math

import numpy as np
import pytest

from skfed._graph_join import _SYNC_BLOCKS, graph_join_nodes, join_info_from_data
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.graph import model_message_bytes
from skfed.network import SimulatedNetwork

from test_graph_join import _data, _fw_numpy, _lin_numpy, _row_numpy


def _params(cls):
    params = dict(max_iter=6 * 40, sparsify_graph=None, max_neighbors=None,
                  graph_update_every=None)
    if cls is DecentralizedBoostingClassifier:
        params.update(n_estimators=8, peer_scoring=False)
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
            model = _lin_numpy(Z, Y, sw, np.zeros((P, n)), np.zeros((P, n)), 0.0, 1.0, 0.0,
                               l2, n_pen, lip, n_local)

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
                node["model"] = _fw_numpy(node["Z"], node["Y"], node["sw"], node["model"], S,
                                          dk, node["c"], est.beta, mu, tau, size)
            else:
                node["model"] = _lin_numpy(node["Z"], node["Y"], node["sw"], node["model"], S,
                                           dk, node["c"], mu, l2, n_pen, node["lip"], size)
        tau += size
    return nodes, w_nn, block, n_steps


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_two_newcomers_see_each_other_as_in_numpy(cls):
    X, y, groups = _data(n_nodes=8)
    # two clusters: the newcomers 6 and 7 are alike
    fit = groups < 6
    est = cls(random_state=0, **_params(cls)).fit(X[fit], y[fit], groups=groups[fit])
    info = join_info_from_data(est, X[fit], y[fit], groups[fit])
    before = copy.deepcopy(est)
    new = ~fit
    graph_join_nodes(est, X[new], y[new], groups[new], info=info)
    K = len(before.nodes_)
    np.testing.assert_array_equal(est.coef_[:K], before.coef_)
    np.testing.assert_array_equal(est.collaboration_graph_[:K, :K].toarray(),
                                  before.collaboration_graph_.toarray())
    parts = [(X[groups == g], y[groups == g]) for g in (6, 7)]
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
    fit = groups < 6
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
        (X[groups == g], y[groups == g]) for g in (6, 7)])
    assert w_nn > 0
    graph = est.collaboration_graph_.toarray()
    n_fitted_nbrs = int(np.count_nonzero(graph[K:, :K]))
    fitted_part = (2 * K * header                       # requests to the fitted nodes
                   + 2 * K * (dense + 16 + header)      # their model, loss, degree
                   + n_fitted_nbrs * (8 + header))      # final weights
    n_blocks = math.ceil(n_steps / block)
    peer_part = (2 * header                             # a request each way
                 + 2 * (dense + 16 + header)            # local model, loss, degree
                 + 2 * (n_blocks - 1) * (dense + header))  # current models between blocks
    assert est.join_communication_.total_bytes == fitted_part + peer_part
