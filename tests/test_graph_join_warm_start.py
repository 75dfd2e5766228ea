"""Where a Dada newcomer's model steps start (step 4 of skfed._graph_join).

With neighbours, the steps start from their weighted mean ``S / d`` and
count from ``_WARM_START`` times their number; without any (a zero row),
from the newcomer's local model, counted from 0.  The NumPy per-node
references of tests/test_graph_join.py cover the first case step by step.
"""

import copy

import numpy as np

from skfed._graph_join import _WARM_START, _schedule, graph_join_nodes, join_info_from_data
from skfed.boosting import DecentralizedBoostingClassifier

from .test_graph_join import _data, _fw_numpy


def _setup():
    X, y, groups = _data()
    fit = groups < groups.max()
    est = DecentralizedBoostingClassifier(
        random_state=0, n_estimators=8, max_iter=6 * 40, sparsify_graph=None,
        max_neighbors=None, graph_update_every=None, peer_scoring=False,
    ).fit(X[fit], y[fit], groups=groups[fit])
    info = join_info_from_data(est, X[fit], y[fit], groups[fit])
    return est, info, X[~fit], y[~fit], groups[~fit]


def _local(est, X, y, n_local):
    Z = est._base_matrix(X, np.float64)
    Y = np.where(y == est.classes_[1], 1.0, -1.0)[None, :]
    sw = np.ones(len(y))
    P, n = 1, Z.shape[1]
    model = _fw_numpy(Z, Y, sw, np.zeros((P, n)), np.zeros((P, n)), 0.0, 1.0, est.beta,
                      0.0, 0, n_local)
    return Z, Y, sw, model


def test_newcomer_with_neighbours_starts_from_their_mean():
    """The newcomer's model equals the NumPy steps from ``S / d`` counted from
    ``_WARM_START T``, stays in the l1 ball, and differs from the steps
    counted from 0 (which forget the start)."""
    est, info, X, y, groups = _setup()
    before = copy.deepcopy(est)
    graph_join_nodes(est, X, y, groups, info=info)
    K = len(before.nodes_)
    np.testing.assert_array_equal(est.coef_[:K], before.coef_)
    v = est.collaboration_graph_[K, :K].toarray()[0]
    assert v.sum() > 0
    T = _schedule(before, K)[1]  # ceil(max_iter / K) local and model steps
    Z, Y, sw, _ = _local(before, X, y, T)
    c = len(y) / max(info["max_mass"], len(y))
    S = np.einsum("r,rpj->pj", v, before._full_coef().astype(np.float64))
    warm = _fw_numpy(Z, Y, sw, S / v.sum(), S, v.sum(), c, before.beta, before.mu,
                     _WARM_START * T, T)
    got = est._full_coef()[K]
    np.testing.assert_allclose(got, warm, rtol=1e-7, atol=1e-9)
    assert np.abs(got).sum(axis=1).max() <= before.beta * (1 + 1e-12)
    # The start matters: from 0 the first step's gamma is 1.
    cold = _fw_numpy(Z, Y, sw, S / v.sum(), S, v.sum(), c, before.beta, before.mu, 0, T)
    assert np.abs(cold - got).max() > 1e-3


def test_newcomer_without_neighbours_continues_its_local_model():
    """A zero row (every fitted node's loss priced out): no mean to start
    from, so the steps continue from the local model, counted from 0 (loss
    weight 1, no pull), and the newcomer links to nobody."""
    est, info, X, y, groups = _setup()
    info = dict(info, losses=np.full_like(info["losses"], 1e6))
    K = len(est.nodes_)
    graph_join_nodes(est, X, y, groups, info=info)
    assert est.collaboration_graph_[K].nnz == 0
    T = _schedule(est, K)[1]
    Z, Y, sw, local = _local(est, X, y, T)
    c = len(y) / max(info["max_mass"], len(y))
    expected = _fw_numpy(Z, Y, sw, local, np.zeros_like(local), 0.0, c, est.beta, est.mu, 0, T)
    np.testing.assert_allclose(est._full_coef()[K], expected, rtol=1e-7, atol=1e-9)
