"""Binary ``predict_proba`` / ``predict_log_proba`` on confident rows (review33).

user32 (c77b433) computes the positive class's probability as
``p = exp(-logaddexp(0, -s))``, exact at every margin ``s``, but the
negative class's as ``1 - p``, which is 0 once ``s > 37`` (``p`` rounds to
1): for a row classified positive with margin 46.7 ``predict_proba``
gives 0 where ``expit(-46.7) = 5.2e-21`` and ``predict_log_proba`` gives
``-inf`` (MOCHA also warns "divide by zero encountered in log") where the
value is -46.7, while the mirror row (margin -46.7) gets both right.
Reference: SciPy's ``expit`` and ``log_expit`` of the estimator's own
decision values, relative tolerance only.

Fixed in the online learner (one line in skfed/online/_classes.py:
the negative class is ``exp(-logaddexp(0, s))``).  MOCHA
(skfed/multitask/_multiclass.py ``_proba``, the same ``1.0 - p``) was a
strict xfail, fixed by the lead the same way.
"""

import warnings

import numpy as np
import pytest
from scipy.special import expit, log_expit

from skfed import DecentralizedKernelSGDClassifier, FederatedMultiTaskClassifier


def _fitted(kind):
    rng = np.random.RandomState(0)
    w = rng.normal(size=5)
    X = rng.normal(size=(300, 5))
    y = (X @ w + rng.normal(size=300) > 0).astype(int)
    g = np.repeat(np.arange(10), 30)
    if kind == "online":
        est = DecentralizedKernelSGDClassifier(loss="log_loss", kernel="linear", random_state=0)
    else:
        est = FederatedMultiTaskClassifier(random_state=0)
    est.fit(X, y, groups=g)
    # rows along node 0's first row, on both sides, out to |margin| ~ 100-600
    return est, np.vstack([X[:1] * c for c in (-400, -100, -20, 20, 100, 400)])


@pytest.mark.parametrize("kind", [
    "online",
    "mocha",
])
def test_both_classes_exact_on_confident_rows(kind):
    est, Xp = _fitted(kind)
    groups = np.zeros(len(Xp), dtype=int)
    s = est.decision_function(Xp, groups=groups)
    assert s.min() < -40 and s.max() > 40 and np.abs(s).max() < 700  # (exp(-s) is finite)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = est.predict_proba(Xp, groups=groups)
        log_proba = est.predict_log_proba(Xp, groups=groups)
    np.testing.assert_allclose(proba, np.column_stack([expit(-s), expit(s)]), rtol=1e-12, atol=0)
    np.testing.assert_allclose(log_proba, np.column_stack([log_expit(-s), log_expit(s)]),
                               rtol=1e-12, atol=1e-15)  # (log(1 - 1e-25) is 0)
