"""Per-node attributes after ``add_nodes`` have one row per node of ``nodes_``.

growing.rst says "every per-node attribute grows by rows at the end: the
fitted nodes keep their indices".  FederatedSparseLinearRegression's join
left ``ols_clients_`` and ``n_controls_`` (documented of shape
``(n_nodes,)``) at the fitted clients' length.  A newcomer there does not
vote, so it ran no OLS test and used no controls: False and 0, as the
attributes' definitions give a client that did not run them.
"""

import warnings

import numpy as np
import pytest

from skfed.support import FederatedSparseLinearRegression, FederatedSupportRecovery


def _data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(12), 100)
    X = rng.normal(size=(1200, 20))
    y = X[:, 3] - 2 * X[:, 7] + 0.3 * rng.normal(size=1200)
    return X, y, groups, groups < 10


@pytest.mark.parametrize("cls", [FederatedSupportRecovery, FederatedSparseLinearRegression])
@pytest.mark.parametrize("params", [{}, {"alpha": 0.05}])
def test_vote_attributes_grow_with_the_join(cls, params):
    X, y, groups, old = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(**params).fit(X[old], y[old], groups=groups[old])
    ols, controls = est.ols_clients_.copy(), est.n_controls_.copy()
    assert ols.shape == controls.shape == (10,)
    est.add_nodes(X[~old], y[~old], groups=groups[~old])
    n = len(est.nodes_)
    assert n == 12
    for name in ("ols_clients_", "n_controls_", "answered_", "rogue_"):
        assert getattr(est, name).shape == (n,), name
    # the fitted clients' rows are unchanged
    np.testing.assert_array_equal(est.ols_clients_[:10], ols)
    np.testing.assert_array_equal(est.n_controls_[:10], controls)
    if cls is FederatedSparseLinearRegression:
        # newcomers do not vote: no OLS test, no controls, no message
        assert not est.ols_clients_[10:].any()
        assert (est.n_controls_[10:] == 0).all()
        assert not est.answered_[10:].any()
    else:
        # new clients vote as in fit: 100 samples of 20 features, alpha
        # "auto" runs the OLS t-test (a fixed alpha runs no test)
        assert est.ols_clients_[10:].all() == ("alpha" not in params)
