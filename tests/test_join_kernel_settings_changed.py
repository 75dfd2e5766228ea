"""add_nodes refuses kernel settings changed with set_params after the fit.

The nodes join the fitted model, whose kernel and features are fixed: a
join would ignore a changed gamma (defects14 found ``set_params(gamma=0.5)``
on a fitted linear model accepted), so it refuses, naming the setting.  The
online learner's ``gamma`` may change: its join reads a new node's width
from it (``tests/test_online.py``); its kernel, degree and coef0 may not.
"""

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier, FederatedMultiTaskClassifier


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    return X, y, np.repeat(np.arange(5), 40)


@pytest.mark.parametrize("make, changes", [
    (lambda: FederatedMultiTaskClassifier(random_state=0), {"gamma": 0.5}),
    (lambda: FederatedMultiTaskClassifier(kernel="rbf", random_state=0), {"gamma": 0.5}),
    (lambda: FederatedMultiTaskClassifier(kernel="rbf", random_state=0), {"kernel": "linear"}),
    (lambda: DecentralizedKernelSGDClassifier(kernel="linear", random_state=0), {"gamma": 3.0}),
    (lambda: DecentralizedKernelSGDClassifier(kernel="poly", random_state=0), {"degree": 2}),
    (lambda: DecentralizedKernelSGDClassifier(random_state=0), {"kernel": "laplacian"}),
])
def test_changed_kernel_setting_is_refused_by_the_join(make, changes):
    X, y, groups = _data()
    fitted = make().fit(X[:160], y[:160], groups=groups[:160])
    before = fitted.decision_function(X[:160], groups=groups[:160])
    fitted.set_params(**changes)
    name = next(iter(changes))
    with pytest.raises(ValueError, match=rf"{name}=.*(changed since the fit|is not read by)"):
        fitted.add_nodes(X[160:], y[160:], groups=groups[160:])
    # nothing changed on the fitted nodes; set back, the join runs
    np.testing.assert_array_equal(fitted.decision_function(X[:160], groups=groups[:160]), before)
    fitted.set_params(**{k: make().get_params()[k] for k in changes})
    fitted.add_nodes(X[160:], y[160:], groups=groups[160:])
    assert list(fitted.nodes_) == [0, 1, 2, 3, 4]


def test_unchanged_settings_join_as_before():
    X, y, groups = _data()
    a = FederatedMultiTaskClassifier(kernel="rbf", gamma=0.7, random_state=0).fit(
        X[:160], y[:160], groups=groups[:160])
    a.set_params(gamma=0.7)  # the same value again: not a change
    a.add_nodes(X[160:], y[160:], groups=groups[160:])
    assert len(a.nodes_) == 5
