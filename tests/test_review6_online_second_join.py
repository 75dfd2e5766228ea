"""A regressor's second ``add_nodes`` (review6).

The scale sums of the online regressor's newcomers (``sum w f0 y``,
``sum w f0^2``, ``sum w`` over a node's samples, ``f0`` its component's
network function) were stored for the fitted nodes only, so a later join
whose candidates included a node added by an earlier join indexed past
them: ``IndexError: index 8 is out of bounds for axis 0 with size 6`` (main
at f28c2af).  A newcomer holds its component's network function once it has
joined, so it computes its own sums (nothing sent) like a fitted node.
"""

import warnings

import numpy as np

from skfed import DecentralizedKernelSGDRegressor


def _blocks(rng, w, n_nodes, n, first):
    X = rng.normal(size=(n_nodes * n, len(w)))
    y = X @ w + 0.1 * rng.normal(size=len(X))
    return X, y, np.repeat(np.arange(first, first + n_nodes), n)


def test_second_join_queries_the_first_joins_newcomers():
    rng = np.random.RandomState(0)
    w = np.array([1.0, -2.0, 0.5])
    X, y, g = _blocks(rng, w, 6, 15, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedKernelSGDRegressor(random_state=0, max_epochs=2).fit(X, y, groups=g)
    X1, y1, g1 = _blocks(rng, w, 3, 15, 100)
    joins = [(X1, y1, g1)] + [_blocks(rng, w, 3, 15, 200 + 10 * s) for s in range(3)]
    for Xn, yn, gn in joins:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.add_nodes(Xn, yn, groups=gn)
    assert len(est.nodes_) == 6 + 3 * 4
    stats = est._network_fit_stats
    assert stats.shape == (18, 3)
    # the first newcomers' sums, by NumPy, with f0 the network function of
    # the (one) component: a node unseen by the fit predicts with it
    assert np.unique(est.network_component_).size == 1
    # (in the units the solver learns: the targets' agreed origin and scale)
    f0 = est.predict(X1, groups=np.full(len(X1), -1))
    f0 = (f0 - est.target_offset_) / est.target_scale_
    z1 = (y1 - est.target_offset_) / est.target_scale_
    codes = g1 - 100
    ref = np.stack([np.bincount(codes, f0 * z1), np.bincount(codes, f0 * f0),
                    np.bincount(codes, np.ones(len(codes)))], axis=1)
    np.testing.assert_allclose(stats[6:9], ref, rtol=1e-9, atol=1e-12)
    assert np.all(stats[6:, 2] == 15)
    # every newcomer still predicts finite values
    for Xn, yn, gn in joins:
        assert np.all(np.isfinite(est.predict(Xn, groups=gn)))
