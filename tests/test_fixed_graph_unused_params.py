"""Perso-lin and Dada refuse graph-learning settings a fixed graph leaves unused.

With a user-given ``graph`` the fit never learns a graph, so the schedule
of the graph learning (``graph_update_every``, ``graph_init_iter``,
``graph_iter``) and Dada's ``graph_signal`` had no effect: a non-default
value was dropped without a word (review10's find).  Such a value is now
refused by name; the defaults (given or left out) still fit.  The graph
objective's and the candidates' parameters (``mu_graph``,
``lambda_graph``, ``delta``, ``kappa``, ``max_neighbors``,
``sparsify_graph``, ``peer_scoring``) stay free: a fixed-graph model's
``add_nodes`` learns a newcomer's row with them, which the last test
checks (``lambda_graph`` changes a newcomer's row under a fixed graph).
"""

import numpy as np
import pytest
from scipy import sparse

from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.datasets import make_rotated_moons

K = 6


def _data(n_nodes=K, seed=0):
    X, _, y, _, groups, *_ = make_rotated_moons(n_nodes=n_nodes, n_features=3,
                                                random_state=seed)
    return X, y, groups


def _ring(n):
    rows = np.arange(n)
    W = sparse.coo_matrix((np.ones(n), (rows, (rows + 1) % n)), shape=(n, n))
    return (W + W.T).tocsr()


UNUSED = [
    (PersonalizedLinearClassifier, "graph_update_every", 12),
    (PersonalizedLinearClassifier, "graph_update_every", "n_nodes"),
    (PersonalizedLinearClassifier, "graph_init_iter", 30),
    (PersonalizedLinearClassifier, "graph_iter", 0),
    (DecentralizedBoostingClassifier, "graph_update_every", None),
    (DecentralizedBoostingClassifier, "graph_update_every", "geometric"),
    (DecentralizedBoostingClassifier, "graph_init_iter", 30),
    (DecentralizedBoostingClassifier, "graph_iter", 4),
    (DecentralizedBoostingClassifier, "graph_signal", "boosting"),
]


@pytest.mark.parametrize("cls, name, value", UNUSED)
def test_unused_graph_learning_setting_is_refused_by_name(cls, name, value):
    X, y, groups = _data()
    est = cls(graph=_ring(K), max_iter=30, random_state=0, **{name: value})
    with pytest.raises(ValueError, match=rf"{name}={value!r} .*fixed graph"):
        est.fit(X, y, groups=groups)


@pytest.mark.parametrize("cls, name, value", UNUSED)
def test_the_same_setting_fits_when_the_graph_is_learned(cls, name, value):
    X, y, groups = _data()
    est = cls(max_iter=30, random_state=0, **{name: value}).fit(X, y, groups=groups)
    assert est.collaboration_graph_.shape == (K, K)


@pytest.mark.parametrize("cls", [PersonalizedLinearClassifier, DecentralizedBoostingClassifier])
def test_defaults_given_or_left_out_fit_with_a_fixed_graph(cls):
    X, y, groups = _data()
    W = _ring(K)
    a = cls(graph=W, max_iter=30, random_state=0).fit(X, y, groups=groups)
    defaults = {name: cls().get_params()[name]
                for name in ("graph_update_every", "graph_init_iter", "graph_iter")}
    b = cls(graph=W, max_iter=30, random_state=0, **defaults).fit(X, y, groups=groups)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    # the fixed graph is the model's graph: nothing was learned
    np.testing.assert_array_equal(a.collaboration_graph_.toarray(), W.toarray())
    assert a.n_graph_updates_ == 0


@pytest.mark.parametrize("cls", [PersonalizedLinearClassifier, DecentralizedBoostingClassifier])
def test_graph_objective_parameters_still_shape_a_fixed_graph_join(cls):
    X, y, groups = _data(n_nodes=K + 1, seed=1)
    old = groups != K
    rows = {}
    for lam in (0.1, 10.0):
        est = cls(graph=_ring(K), lambda_graph=lam, max_iter=30, random_state=0)
        est.fit(X[old], y[old], groups=groups[old])
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
        G = sparse.csr_matrix(est.collaboration_graph_)
        rows[lam] = G[K].toarray().ravel()[:K]
        # the fitted part of the graph stays the given one
        np.testing.assert_array_equal(G[:K, :K].toarray(), _ring(K).toarray())
    assert rows[0.1].sum() > 0 and rows[10.0].sum() > 0
    # a larger lambda_graph spreads a smaller total weight (closed-form trend
    # of the row objective's lambda ||v||^2 term)
    assert rows[10.0].sum() < rows[0.1].sum()
