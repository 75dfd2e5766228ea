"""The online regressor's ``join_function`` is not silently ignored (review28).

``DecentralizedKernelSGDRegressor.__init__`` takes ``join_function`` (since
9761d9d) and validates ``{"network", "auto"}``, but ``_linear_applies``
(skfed/online/_linear.py) returns False for every regressor, so with
``join_function="auto"`` and a nonlinear kernel the fit solves nothing
(``network_linear_gate_`` None), its bytes, its joins and their bytes are
the default's to the bit, and the regressor's docstring does not document
the parameter.  The standard is "no setting silently ignored": "auto" on
the regressor should be refused by name (or the parameter documented with
what it does there).  Pending (online28 owns skfed/online/_linear.py): a
strict xfail, so the fix turns it into a failure to un-mark.
"""

import warnings

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDRegressor


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    return X, np.sin(X[:, 0]) + X[:, 1], np.repeat(np.arange(10), 30)


@pytest.mark.xfail(strict=True, reason="regressor's join_function='auto' is accepted and "
                                       "runs nothing (review28; skfed/online/_linear.py)")
def test_regressor_join_function_auto_is_refused_by_name_or_acts():
    X, y, g = _data()
    est = DecentralizedKernelSGDRegressor(max_epochs=3, random_state=0, kernel="rbf",
                                          join_function="auto")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            est.fit(X, y, groups=g)
        except ValueError as exc:
            assert "join_function" in str(exc)
            return
    # accepted: then it must do something the default does not
    ref = DecentralizedKernelSGDRegressor(max_epochs=3, random_state=0, kernel="rbf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.fit(X, y, groups=g)
    assert est.network_linear_gate_ is not None or est.n_bytes_sent_ != ref.n_bytes_sent_

