"""Rows of sample_weight 0 are absent rows (scikit-learn's convention): they
must not set kernel widths, sample counts or dictionary centres, nor be sent
(probe item 2).  Twenty far outliers at weight 0 leave the fit unchanged."""

import numpy as np
import pytest

from skfed import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    FederatedMultiTaskClassifier,
)

from ._helpers.data import related_linear_tasks


def _with_outliers(regression):
    rng = np.random.RandomState(0)
    X, y, groups = related_linear_tasks(rng, 4, 40, regression=regression)
    X_out = 50 * rng.normal(size=(20, 5))
    y_out = 100 * rng.normal(size=20) if regression else rng.randint(2, size=20)
    # The outliers sit inside node 0's rows and at the end (node 0 and 2).
    X_all = np.r_[X[:10], X_out[:10], X[10:], X_out[10:]]
    y_all = np.r_[y[:10], y_out[:10], y[10:], y_out[10:]]
    g_all = np.r_[groups[:10], np.zeros(10, int), groups[10:], np.full(10, 2)]
    w_all = np.r_[np.ones(10), np.zeros(10), np.ones(150), np.zeros(10)]
    return (X, y, groups), (X_all, y_all, g_all, w_all)


@pytest.mark.parametrize(
    "make, regression",
    [
        (lambda: DecentralizedKernelSGDClassifier(random_state=0), False),
        (lambda: DecentralizedKernelSGDRegressor(random_state=0), True),
    ],
)
def test_kernel_sgd_ignores_zero_weight_rows(make, regression):
    (X, y, groups), (X_all, y_all, g_all, w_all) = _with_outliers(regression)
    clean = make().fit(X, y, groups=groups)
    padded = make().fit(X_all, y_all, groups=g_all, sample_weight=w_all)
    # The median-distance widths are the clean data's (the outliers used to
    # shrink node 0's from about 0.1 to 2e-4).
    np.testing.assert_allclose(padded.gamma_, clean.gamma_, rtol=1e-12)
    assert clean.gamma_[0] > 0.05
    np.testing.assert_allclose(
        padded.decision_function(X, groups=groups) if not regression
        else padded.predict(X, groups=groups),
        clean.decision_function(X, groups=groups) if not regression
        else clean.predict(X, groups=groups),
        rtol=0, atol=1e-10,
    )
    assert padded.n_bytes_sent_ == clean.n_bytes_sent_
    # No outlier became a dictionary centre.
    X_out = X_all[w_all == 0]
    for centres in padded.dictionaries_:
        centres = np.asarray(centres[0] if isinstance(centres, tuple) else centres)
        if centres.ndim == 2 and len(centres):
            distance = np.abs(centres[:, None, :] - X_out[None]).max(-1)
            assert distance.min() > 1e-6


def test_mocha_rbf_ignores_zero_weight_rows():
    (X, y, groups), (X_all, y_all, g_all, w_all) = _with_outliers(False)
    clean = FederatedMultiTaskClassifier(kernel="rbf", random_state=0).fit(X, y, groups=groups)
    padded = FederatedMultiTaskClassifier(kernel="rbf", random_state=0).fit(
        X_all, y_all, groups=g_all, sample_weight=w_all
    )
    # gamma="scale" is 1 / (n_features var) of the positive-weight rows.
    assert padded._kernel_spec.gamma == pytest.approx(1.0 / (5 * X.var()), rel=1e-12)
    assert clean._kernel_spec.gamma == pytest.approx(1.0 / (5 * X.var()), rel=1e-12)
    assert padded.approximation_ == clean.approximation_
    assert padded.n_iter_ == clean.n_iter_
    assert padded.n_bytes_sent_ == clean.n_bytes_sent_
    np.testing.assert_allclose(
        padded.decision_function(X, groups=groups),
        clean.decision_function(X, groups=groups), rtol=0, atol=1e-10,
    )
    if padded.approximation_ is None:
        # support_ indexes the training X: no zero-weight row among them.
        assert np.all(w_all[padded.support_] > 0)
        np.testing.assert_array_equal(padded.support_vectors_, X_all[padded.support_])
