"""Review: vote="sign"'s warnings say what happened.

The server centres its band on the median vote fraction over the features.
When more than half of the features share a sign (a dense support, or too
few features for the median to be a null feature's), the band reaches 1 (or
0) and only the other side can be significant: the fit then keeps the
features outside the support.  The "too few reports" warning used to fire
there (it took the worse side's smallest p-value) and claimed that no
feature was selected, while the null features were; the fits below were
silent about the cause.
"""

import warnings

import numpy as np
import pytest

from skfed.support import FederatedSupportRecovery


def _fit(coef, seed=0, n_nodes=300, n=10):
    rng = np.random.RandomState(seed)
    d = len(coef)
    X = rng.normal(size=(n_nodes * n, d))
    y = X @ np.asarray(coef, dtype=float) + 0.5 * rng.normal(size=len(X))
    groups = np.repeat(np.arange(n_nodes), n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = FederatedSupportRecovery(vote="sign", random_state=0).fit(X, y, groups=groups)
    return est, [str(w.message) for w in caught]


@pytest.mark.parametrize("coef", [[1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0]])
def test_band_at_one_end_is_named_not_too_few_reports(coef):
    est, messages = _fit(coef)
    # 300 reports per feature, the support's all of one sign: the median is
    # a support feature's fraction and the band reaches 1.
    assert est.sign_band_[1] == 1.0 and est.reference_rate_ > 0.95
    selected = np.flatnonzero(est.get_support())
    assert len(selected) and not np.any(np.asarray(coef)[selected])   # the null ones
    assert not any("Too few reports" in m for m in messages)
    assert any("median" in m and "sparse" in m for m in messages), messages


def test_one_feature_warns_that_it_cannot_be_selected():
    est, messages = _fit([1.0])
    assert not est.get_support().any()
    assert not any("Too few reports" in m for m in messages)
    assert any("median" in m for m in messages), messages


def test_two_features_one_null_warns():
    # The median of two fractions is their mean: the null feature is kept.
    est, messages = _fit([1.0, 0.0])
    assert est.get_support()[0]
    assert any("median" in m for m in messages), messages


def test_sparse_fit_stays_silent_and_too_few_reports_still_warns():
    est, messages = _fit([1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(np.flatnonzero(est.get_support()), [0, 3])
    assert messages == []
    # 5 clients: the best two-sided p-value 2 * 0.55 ** 5 > 0.05 / 8.
    est, messages = _fit([1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0], n_nodes=5)
    assert not est.get_support().any()
    assert any("Too few reports" in m for m in messages), messages
