"""The online learner's dictionary settings changed after the fit are not
silently ignored by a join (review28).

``add_nodes`` of the kernel-SGD learners says a newcomer's start is
"compressed by KOMP to ``epsilon`` and ``max_dictionary_size`` as after any
step", but the join reads the fit's values (``epsilon_`` and ``_max_size``
in ``_join_start``, skfed/online/_join.py), and neither parameter is among
the join's recorded ones (skfed/_join_params.py refuses a changed
``loss``, ``fit_intercept``, ``mu`` ... by name; the online classes add no
``_join_fixed_params``).  So ``set_params(max_dictionary_size=3)`` between
``fit`` and ``add_nodes`` is accepted and the newcomer keeps a 53-point
dictionary.  Either refusing the change by name (``_join_fixed_params =
("epsilon", "max_dictionary_size")``) or honouring it would pass.
Fixed: both are the online learners' ``_join_fixed_params`` (failed before
it).
"""

import copy
import warnings

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor


def _data():
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(8), 40)
    X = rng.normal(size=(320, 2))
    a = rng.normal(size=(10, 2))
    return X, g, a


@pytest.mark.parametrize("cls", [DecentralizedKernelSGDClassifier,
                                 DecentralizedKernelSGDRegressor])
def test_max_dictionary_size_changed_after_fit_is_refused_or_honoured(cls):
    X, g, a = _data()
    classify = cls is DecentralizedKernelSGDClassifier
    y = (X[:, 0] + 0.5 * np.sin(3 * X[:, 1]) > 0).astype(int) if classify else \
        X[:, 0] + np.sin(3 * X[:, 1])
    ya = (a[:, 0] > 0).astype(int) if classify else a[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(max_epochs=3, random_state=0, kernel="rbf").fit(X, y, groups=g)
    unchanged = copy.deepcopy(est).add_nodes(a, ya, groups=np.full(10, 100))
    assert len(unchanged.dictionaries_[-1]) > 3        # the fit's budget (100) allows more
    est.set_params(max_dictionary_size=3)
    try:
        est.add_nodes(a, ya, groups=np.full(10, 100))
    except ValueError as exc:
        assert "max_dictionary_size" in str(exc)
        return
    assert len(est.dictionaries_[-1]) <= 3
