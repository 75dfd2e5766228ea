"""review29: MOCHA's ``omega`` given as a matrix is join-fixed too.

006cb47 made ``lam`` and ``omega`` join-fixed (a join solves with the
fitted lambda and Omega), but ``record_join_params`` kept scalar values
only, so a fit with an ``omega`` matrix recorded nothing: ``set_params``
to another matrix, or to ``"independent"``, after fit was accepted by
``add_nodes`` and silently ignored (the newcomer's model was bit-equal to
the one joined without the change).  Reference: the same join on an
unchanged deep copy.
"""

import copy
import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier


def _fit(omega):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat(np.arange(10), 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskClassifier(random_state=0, omega=omega).fit(X, y, groups=g)
    return est, X, y


OMEGA = np.eye(10) * 0.5 + 0.05


@pytest.mark.parametrize("changed", [np.eye(10), "independent"], ids=["matrix", "string"])
def test_changed_matrix_omega_is_refused(changed):
    est, X, y = _fit(OMEGA.copy())
    before = est.coef_.copy()
    est.set_params(omega=changed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="omega was changed after fit"):
            est.add_nodes(X[:10], y[:10], groups=np.full(10, 99))
    assert len(est.nodes_) == 10
    np.testing.assert_array_equal(est.coef_, before)


def test_unchanged_matrix_omega_joins():
    # the same values (an equal copy, a list) are not a change
    est, X, y = _fit(OMEGA.copy())
    ref = copy.deepcopy(est)
    est.set_params(omega=OMEGA.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X[:10], y[:10], groups=np.full(10, 99))
        ref.add_nodes(X[:10], y[:10], groups=np.full(10, 99))
    np.testing.assert_array_equal(est.coef_, ref.coef_)


def test_matrix_changed_in_place_after_fit_is_refused():
    # the fit's value is a copy: mutating the caller's array is a change too
    omega = OMEGA.copy()
    est, X, y = _fit(omega)
    omega[0, 1] = omega[1, 0] = 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="omega was changed after fit"):
            est.add_nodes(X[:10], y[:10], groups=np.full(10, 99))
