"""A multiclass private Dada fit accounts one exponential-mechanism choice per
problem per step (mutation audit).

With ``P`` classes (one-vs-rest problems) every local step and every wake-up
of a node makes ``P`` private choices, one per problem.  The binary tests
(``P = 1``) cannot tell a fit that counts one use per step from one that
counts ``P``; here, on 3 classes:

* each node's uses are ``P`` times its steps: ``sum(uses) = P (K n_local +
  n_updates_)``, every count a multiple of ``P``;
* the mechanism is calibrated for ``P (n_local + ceil(a + 2 sqrt(a)))``
  planned uses, ``a = max_iter / K`` (an independent calibration with
  :func:`skfed.privacy.calibrate_exponential` gives its epsilon per use and
  its integer scale ``ceil(2 (1024 + 1) / epsilon_use)``);
* ``privacy_spent_`` is the accountant's for those uses and at most the budget.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

pytest.importorskip("dp_accounting")

from skfed import DecentralizedBoostingClassifier  # noqa: E402
from skfed.boosting import make_stump_predictors  # noqa: E402
from skfed.privacy import DifferentialPrivacy, calibrate_exponential, epsilon_spent  # noqa: E402


def test_dada_multiclass_counts_one_use_per_problem_and_step():
    X, y = make_blobs(240, centers=3, cluster_std=2.0, random_state=0)
    K, P, max_iter, epsilon, delta = 6, 3, 60, 2.0, 1e-5
    groups = np.repeat(np.arange(K), 40)
    stumps = make_stump_predictors(X.min(axis=0), X.max(axis=0), 10)
    est = DecentralizedBoostingClassifier(
        base_predictors=stumps, beta=0.5, max_iter=max_iter,
        privacy=DifferentialPrivacy(epsilon, delta=delta), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    assert len(est.classes_) == P
    info = est.privacy_
    n_local = est._schedule(K)[1]
    uses = np.asarray(info["uses"])
    assert np.all(uses % P == 0)
    assert uses.sum() == P * (K * n_local + est.n_updates_)
    a = max_iter / K
    planned = math.ceil(a + 2 * math.sqrt(a))
    assert info["planned_wakeups"] == planned
    mechanism = calibrate_exponential(epsilon, delta, P * (n_local + planned))
    assert info["epsilon_per_use"] == pytest.approx(mechanism.epsilon, rel=1e-12)
    assert info["choice_scale"] == math.ceil(2 * (1024 + 1) / mechanism.epsilon) == mechanism.scale
    np.testing.assert_allclose(est.privacy_spent_, epsilon_spent(mechanism, uses, delta),
                               rtol=1e-9)
    assert np.all(est.privacy_spent_ <= epsilon + 1e-9)
    assert np.all(est.privacy_spent_ > 0)
