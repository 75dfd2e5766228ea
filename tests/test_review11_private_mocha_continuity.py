"""Private MOCHA as epsilon grows: does it approach the non-private fit?

review11's probe: 60 nearly-alike nodes of 6 training samples each (one
shared linear rule, little noise), the family where federation pays most
(non-private MOCHA and pooled logistic regression score about .95 on fresh
samples of the same nodes, each node alone about .68).  At
``epsilon=inf`` the private path is the non-private fit exactly and scores
the same.  At ``epsilon=1e6`` the noise is negligible, so its fit should be
close to it; instead every private fit scores like Local (about .69): the
collaborative refit that ``coef_`` holds scores .69 too, so it is not the
kept-local choice but the private training itself that loses the shared
rule (also with ``max_rounds=200``).  The privacy guide's table has no
row where ``off`` is far above Local at a loose budget, so this does not
show there.
"""
import warnings

import numpy as np
import pytest

from skfed import DifferentialPrivacy, FederatedMultiTaskClassifier

N_NODES = 60


def _nodes(n_per_node, rng):
    groups = np.repeat(np.arange(N_NODES), n_per_node)
    X = rng.normal(size=(len(groups), 5))
    y = (X[:, 0] + X[:, 1] + 0.2 * rng.normal(size=len(groups)) > 0).astype(int)
    return X, y, groups


def _refit_accuracy(est, X, y, groups):
    """Accuracy of the collaborative refit held in ``coef_`` / ``intercept_``."""
    rows = np.searchsorted(est.nodes_, groups)
    decision = np.einsum("ij,ij->i", X, est.coef_[rows]) + est.intercept_[rows]
    return np.mean(est.classes_[(decision > 0).astype(int)] == y)


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    return _nodes(6, rng), _nodes(50, rng)


def _fit(epsilon, train):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FederatedMultiTaskClassifier(
            random_state=0, privacy=DifferentialPrivacy(epsilon=epsilon)).fit(
                train[0], train[1], groups=train[2])


def test_epsilon_inf_is_the_federated_fit(data):
    train, test = data
    est = _fit(np.inf, train)
    # the shared rule is learned: far above what 6 samples per node give alone
    assert _refit_accuracy(est, *test) > 0.9
    assert est.score(test[0], test[1], groups=test[2]) > 0.9


@pytest.mark.xfail(strict=True, reason=(
    "review11: private MOCHA at epsilon=1e6 scores like Local (.69) where "
    "epsilon=inf scores .95: the private training, not the noise, loses the shared rule"))
def test_negligible_noise_approaches_the_federated_fit(data):
    train, test = data
    inf_score = _refit_accuracy(_fit(np.inf, train), *test)
    est = _fit(1e6, train)
    assert _refit_accuracy(est, *test) > inf_score - 0.05
    assert est.score(test[0], test[1], groups=test[2]) > inf_score - 0.05
