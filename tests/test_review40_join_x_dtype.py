"""review40: a graph-family join computes in its fitted models' dtype
(``skfed._graph_join``: a float32 fit joins in float32 whatever the
newcomers' X), and ``add_nodes`` judged the newcomers' weights by it
(``skfed._join_common.validate_join_data``) but not their X: a float64
newcomer's value past float32's largest became inf in the join's cast.
Perso-lin then failed with "Eigenvalues did not converge" (LinAlgError),
Dada joined the inf silently.  Now refused naming X, as the weights are.

References: the join of the same newcomers' X cast to float32 by the test
(values float32 holds join as before, bit for bit), and the float64 fit,
which holds the value and joins it.
"""

import copy
import warnings

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier


def _data(n_nodes, rows, seed):
    rng = np.random.RandomState(seed)
    X = rng.randn(n_nodes * rows, 3).astype(np.float32)
    y = (X[:, 0] + 0.3 * rng.randn(len(X)) > 0).astype(int)
    return X, y, np.repeat(np.arange(n_nodes), rows)


ESTIMATORS = [lambda: DecentralizedBoostingClassifier(random_state=0, max_iter=30),
              lambda: PersonalizedLinearClassifier(random_state=0)]


@pytest.mark.parametrize("make", ESTIMATORS)
def test_float32_fit_refuses_newcomer_values_past_float32_by_name(make):
    X, y, g = _data(6, 30, 0)
    est = make().fit(X, y, groups=g)
    assert est.coef_.dtype == np.float32
    Xn, yn, gn = _data(1, 20, 1)
    Xn = Xn.astype(np.float64)
    Xn[0, 1] = -1e39
    name = type(est).__name__
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # (no cast to inf on the way)
        with pytest.raises(ValueError, match=rf"X of the new nodes holds a value of magnitude "
                                             rf"1e\+39, above the largest float32 \(3.4e\+38\), "
                                             rf"the dtype this {name} was fitted in"):
            copy.deepcopy(est).add_nodes(Xn, yn, groups=gn + 100)
    # nothing of the estimator changed
    assert len(est.nodes_) == 6


@pytest.mark.parametrize("make", ESTIMATORS)
def test_values_float32_holds_join_as_their_cast(make):
    X, y, g = _data(6, 30, 0)
    est = make().fit(X, y, groups=g)
    Xn, yn, gn = _data(1, 20, 1)
    Xn = Xn.astype(np.float64)
    Xn[0, 1] = 3e38                                   # (under float32's 3.4e38)
    a = copy.deepcopy(est).add_nodes(Xn, yn, groups=gn + 100)
    b = copy.deepcopy(est).add_nodes(Xn.astype(np.float32), yn, groups=gn + 100)
    np.testing.assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_float64_fit_joins_the_value(make):
    X, y, g = _data(6, 30, 0)
    est = make().fit(X.astype(np.float64), y, groups=g)
    Xn, yn, gn = _data(1, 20, 1)
    Xn = Xn.astype(np.float64)
    Xn[0, 1] = 1e39
    joined = copy.deepcopy(est).add_nodes(Xn, yn, groups=gn + 100)
    assert joined.coef_.dtype == np.float64 and np.isfinite(joined.coef_).all()
