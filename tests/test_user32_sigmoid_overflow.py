"""A first user's finding (user32): the logistic function overflowed.

``predict_proba`` of MOCHA (binary and one-vs-rest) and of the online
learner (``loss="log_loss"``) computed ``1 / (1 + exp(-s))``, which warns
``RuntimeWarning: overflow encountered in exp`` for a margin below about
-709 (a row far from the training data, or features left unscaled, as the
user guide's "Standardize the features" example does).  So did the shared
model's share ``b = sigmoid(theta)`` of a MOCHA fit on the user's own
unscaled data (30 nodes, one feature x 1000).  The values were right; the
warnings were noise that hides real ones.  Reference: scipy's ``expit``.
"""

import warnings

import numpy as np
import pytest
from scipy.special import expit

from skfed.multitask import FederatedMultiTaskClassifier
from skfed.multitask._shared import _SHARE_FLOOR, _share
from skfed.online import DecentralizedKernelSGDClassifier


def _data(n_classes):
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(4), 30)
    X = rng.randn(120, 3)
    score = X[:, 0] + 0.3 * X[:, 1]
    y = (score > 0).astype(int) if n_classes == 2 else np.digitize(score, [-0.5, 0.5])
    return X, y, groups


def _far_rows(X):
    # the training rows blown up, and their mirror images: margins of many
    # thousands of both signs at every node
    return np.vstack([X[:8], -X[:8]]) * 1e4, np.arange(16) % 4


@pytest.mark.parametrize(
    "est, n_classes",
    [
        (FederatedMultiTaskClassifier(random_state=0), 2),
        (FederatedMultiTaskClassifier(random_state=0, multi_class="ovr"), 3),
        (DecentralizedKernelSGDClassifier(loss="log_loss", kernel="linear", random_state=0), 2),
    ],
    ids=["mocha-binary", "mocha-ovr", "online-log-loss"],
)
def test_predict_proba_far_rows_no_overflow_and_equals_expit(est, n_classes):
    X, y, groups = _data(n_classes)
    est.fit(X, y, groups=groups)
    Xf, gf = _far_rows(X)
    scores = est.decision_function(Xf, groups=gf)
    assert scores.min() < -1000  # the case: exp(-s) overflows float64
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        proba = est.predict_proba(Xf, groups=gf)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if scores.ndim == 1:
        ref = np.column_stack([expit(-scores), expit(scores)])
    else:  # one-vs-rest: logistic of each score, normalized
        p = expit(scores)
        ref = p / p.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(proba, ref, rtol=1e-12, atol=1e-15)
    # and on ordinary rows, the same values as before the change
    proba_in = est.predict_proba(X, groups=groups)
    s_in = est.decision_function(X, groups=groups)
    if s_in.ndim == 1:
        np.testing.assert_allclose(proba_in[:, 1], 1.0 / (1.0 + np.exp(-s_in)), rtol=1e-12)


@pytest.mark.parametrize("theta", [-1000.0, -50.0, 0.0, 3.0, 1000.0])
def test_share_is_clipped_expit_without_overflow(theta):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        b = _share(theta)
    ref = min(max(expit(theta), _SHARE_FLOOR), 1.0 - _SHARE_FLOOR)
    assert b == pytest.approx(ref, rel=1e-12, abs=0.0)
