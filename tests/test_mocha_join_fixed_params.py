"""MOCHA's ``lam`` and ``omega`` changed between ``fit`` and ``add_nodes`` are
refused by name (review28: the join solves with the fitted lambda and Omega,
so a new value was silently ignored); ``C``, unused by the join, stays free,
and a refit takes the new values."""

import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    return X, X[:, 0] + 0.1 * rng.normal(size=300), np.repeat(np.arange(10), 30)


@pytest.mark.parametrize("cls", [FederatedMultiTaskClassifier, FederatedMultiTaskRegressor])
@pytest.mark.parametrize("param, value", [("lam", 0.5), ("omega", "independent")])
def test_changed_after_fit_is_refused_by_name(cls, param, value):
    X, t, g = _data()
    y = (t > 0).astype(int) if cls is FederatedMultiTaskClassifier else t
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(random_state=0).fit(X, y, groups=g)
        before = est.coef_.copy() if hasattr(est, "coef_") else None
        est.set_params(**{param: value})
        with pytest.raises(ValueError, match=f"{param} was changed after fit"):
            est.add_nodes(X[:10], y[:10], groups=np.full(10, 99))
        assert list(est.nodes_) == list(range(10))          # nothing joined
        if before is not None:
            np.testing.assert_array_equal(est.coef_, before)
        est.fit(X, y, groups=g)                              # a refit takes it
        est.add_nodes(X[:10], y[:10], groups=np.full(10, 99))
    assert list(est.nodes_)[-1] == 99


def test_C_stays_free():
    X, t, g = _data()
    y = (t > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
        est.set_params(C=3.0).add_nodes(X[:10], y[:10], groups=np.full(10, 99))
    assert list(est.nodes_)[-1] == 99
