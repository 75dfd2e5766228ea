"""A refit describes itself only.

A user fits with ``privacy=``, then turns privacy off with ``set_params``
and refits: MOCHA and Perso-lin kept ``privacy_spent_`` (about 5 per node),
``privacy_`` (a discrete Gaussian mechanism) and ``privacy_public_`` of the
private fit on a model fitted with no noise at all; support recovery kept
``privacy_public_``.  After ``fit``, ``add_nodes`` and ``fit`` again, the
online learners and the support estimators kept the first join's
``join_communication_`` (online: ``join_passes_``, ``join_start_``) though
the refit model has no joined node.
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    FederatedMultiTaskClassifier,
    FederatedSparseLinearRegression,
    FederatedSupportRecovery,
    LocalEstimator,
    PersonalizedLinearClassifier,
)
from skfed.privacy import DifferentialPrivacy


def _data(seed=0):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(6), 25)
    X = rng.randn(150, 4)
    margin = X[:, 0] + 0.3 * groups * X[:, 1]
    return X, (margin > 0).astype(int), margin + 0.1 * rng.randn(150), groups


def _public(est, prefix):
    return sorted(k for k in vars(est) if k.startswith(prefix) and k.endswith("_"))


PRIVATE = [
    (lambda: FederatedMultiTaskClassifier(random_state=0), "y"),
    (lambda: PersonalizedLinearClassifier(random_state=0), "y"),
    (lambda: FederatedSupportRecovery(random_state=0), "yr"),
]


@pytest.mark.parametrize("make, target", PRIVATE)
def test_non_private_refit_keeps_no_privacy_accounting(make, target):
    X, y, yr, groups = _data()
    Y = {"y": y, "yr": yr}[target]
    fresh = make().fit(X, Y, groups=groups)
    assert _public(fresh, "privacy_") == []

    est = make().set_params(privacy=DifferentialPrivacy(epsilon=5.0, delta=1e-5))
    est.fit(X, Y, groups=groups)
    assert "privacy_spent_" in _public(est, "privacy_")
    spent = np.asarray(est.privacy_spent_)
    assert spent.shape == (6,) and np.all((spent > 0) & (spent <= 5.0 + 1e-9))

    est.set_params(privacy=None).fit(X, Y, groups=groups)
    assert _public(est, "privacy_") == _public(fresh, "privacy_") == []
    # ... and the refit is the non-private fit itself.
    if hasattr(fresh, "coef_"):
        np.testing.assert_array_equal(est.coef_, fresh.coef_)
    else:
        np.testing.assert_array_equal(est.support_, fresh.support_)

    # A private refit after it accounts again, as the first one did.
    est.set_params(privacy=DifferentialPrivacy(epsilon=5.0, delta=1e-5)).fit(X, Y, groups=groups)
    np.testing.assert_allclose(est.privacy_spent_, spent)


JOINS = [
    (lambda: LocalEstimator(LogisticRegression()), "y"),
    (lambda: FederatedMultiTaskClassifier(random_state=0), "y"),
    (lambda: PersonalizedLinearClassifier(random_state=0), "y"),
    (lambda: DecentralizedBoostingClassifier(random_state=0), "y"),
    (lambda: DecentralizedKernelSGDClassifier(random_state=0), "y"),
    (lambda: DecentralizedKernelSGDRegressor(random_state=0), "yr"),
    (lambda: FederatedSparseLinearRegression(random_state=0), "yr"),
    (lambda: FederatedSupportRecovery(random_state=0), "yr"),
]


@pytest.mark.parametrize("make, target", JOINS)
def test_refit_after_a_join_keeps_no_join_log(make, target):
    import warnings

    X, y, yr, groups = _data()
    Y = {"y": y, "yr": yr}[target]
    old = groups < 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X[old], Y[old], groups=groups[old])
        before = set(_public(est, "join_"))
        est.add_nodes(X[~old], Y[~old], groups=groups[~old])
        if not isinstance(est, LocalEstimator):
            assert "join_communication_" in _public(est, "join_")
            assert est.join_communication_.total_bytes > 0
        assert list(est.nodes_) == [0, 1, 2, 3, 4, 5]
        est.fit(X[old], Y[old], groups=groups[old])
        fresh = make().fit(X[old], Y[old], groups=groups[old])
    assert list(est.nodes_) == [0, 1, 2, 3]
    assert set(_public(est, "join_")) == before == set()
    # The online learners add their joins' log to n_bytes_sent_: a refit's
    # total is that of a fresh fit, not inflated by the old join.
    assert est.n_bytes_sent_ == fresh.n_bytes_sent_
    assert getattr(est, "n_messages_", None) == getattr(fresh, "n_messages_", None)
