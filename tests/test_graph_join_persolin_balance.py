"""A Perso-lin newcomer weighs its own loss against its neighbours as a refit does.

Its block of the objective is ``c F(theta) + (mu / 2) ||theta - u||^2``
(degree cancelled), so its balance between its own samples and its
neighbours is set by its confidence ``c = m / m_max`` and ``mu`` alone.  A
join must give a newcomer of ``k`` samples the ``c`` and ``mu`` a refit with
that node gives it: ``k / m_max`` while it is lighter than the heaviest
fitted node, 1 once it is heavier (the refit's new maximum is its own mass).
"""

import copy

import numpy as np
import pytest

from skfed.boosting import PersonalizedLinearClassifier


def _nodes(sizes, seed=0):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(len(groups), 3))
    flip = np.where(np.arange(len(sizes)) % 2 == 0, 1.0, -1.0)[groups]
    y = (flip * X[:, 0] + 0.3 * X[:, 1] + 0.3 * rng.normal(size=len(groups)) > 0).astype(int)
    return X, y, groups


@pytest.mark.parametrize("k", [4, 12, 30])
def test_newcomer_confidence_and_mu_are_a_refits(k):
    sizes = [8, 20, 14, 20, 10, 16, k]          # the fit's heaviest node: 20
    X, y, groups = _nodes(sizes)
    old = groups < 6
    params = dict(mu=0.7, random_state=0)
    fit = PersonalizedLinearClassifier(**params).fit(X[old], y[old], groups=groups[old])
    np.testing.assert_allclose(fit.confidence_, np.array(sizes[:6]) / 20.0, rtol=0, atol=0)
    joined = copy.deepcopy(fit).add_nodes(X[~old], y[~old], groups=groups[~old])
    refit = PersonalizedLinearClassifier(**params).fit(X, y, groups=groups)
    expected = min(k / 20.0, 1.0)
    assert joined.confidence_[6] == pytest.approx(expected, abs=1e-15)
    assert refit.confidence_[6] == pytest.approx(expected, abs=1e-15)
    # the fitted nodes keep theirs (a refit rescales them once k > 20)
    np.testing.assert_array_equal(joined.confidence_[:6], fit.confidence_)
    np.testing.assert_allclose(refit.confidence_[:6], np.array(sizes[:6]) / max(20.0, k))
    assert joined.mu == refit.mu == 0.7
