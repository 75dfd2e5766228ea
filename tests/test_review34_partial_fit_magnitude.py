"""partial_fit skips check_magnitude (review34).

review32's fix refuses finite features whose squares overflow, naming
``X``, in ``fit`` and ``add_nodes`` (``skfed._base.check_magnitude``).
The online learners' later ``partial_fit`` calls validate through
``_validate_more_data`` (``skfed/online/_classes.py``), which does not call
it: measured at 7781cb8, ``partial_fit`` with 20 rows of ``|x| ~ 1e200``
on a fitted learner is accepted by the classifier (its rbf kernel rounds
the new rows to nothing, silently) and makes the regressor raise
``FloatingPointError: ... diverged at node np.int64(0)``, naming neither
``X`` nor a plain node id.  ``sample_weight`` is checked there (its
control passes).  Fix: ``check_magnitude(X_features, "X")`` in
``_validate_more_data`` (the module is at 999 lines: online34's).

Fixed by the lead: ``_validate_more_data`` calls ``check_magnitude``.
"""

import copy
import warnings

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor


def _fitted(cls):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int) if cls is DecentralizedKernelSGDClassifier else X[:, 0]
    g = np.repeat(np.arange(4), 50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(random_state=0, max_epochs=2).fit(X, y, groups=g)
    return est, X, y, g


CLASSES = [DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor]


@pytest.mark.parametrize("cls", CLASSES, ids=["classifier", "regressor"])
def test_partial_fit_refuses_overflowing_x(cls):
    est, X, y, g = _fitted(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"X holds a value of magnitude"):
            copy.deepcopy(est).partial_fit(X[:20] * 1e200, y[:20], groups=g[:20])


@pytest.mark.parametrize("cls", CLASSES, ids=["classifier", "regressor"])
def test_partial_fit_refuses_overflowing_weight(cls):
    est, X, y, g = _fitted(cls)
    with pytest.raises(ValueError, match=r"sample_weight holds a value of magnitude"):
        copy.deepcopy(est).partial_fit(X[:20], y[:20], groups=g[:20],
                                       sample_weight=np.full(20, 1e200))


@pytest.mark.parametrize("cls", CLASSES, ids=["classifier", "regressor"])
def test_fit_refuses_overflowing_x(cls):
    est, X, y, g = _fitted(cls)
    with pytest.raises(ValueError, match=r"X holds a value of magnitude"):
        copy.deepcopy(est).fit(X * 1e200, y, groups=g)
