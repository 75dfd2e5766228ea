"""A Perso-lin newcomer weighs its own loss against its neighbours as a refit does.

Its block of the objective is ``c F(theta) + (mu / 2) ||theta - u||^2``
(degree cancelled), so its balance between its own samples and its
neighbours is set by its confidence ``c = m / m_max`` and ``mu`` alone.  A
join must give a newcomer of ``k`` samples the ``mu`` a refit with that node
gives it and ``c = k / m_max`` at the fit's ``m_max``: a refit's while it is
lighter than the heaviest fitted node; once it is heavier the refit rescales
every node by its mass and the join (which keeps the fitted nodes') has the
refit's ratios, ``c`` proportional to ``m`` as in the paper (joinfix18: the
former cap at 1 cost Perso-lin 10-26 points on a heavy unlike newcomer).
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
    assert joined.confidence_[6] == pytest.approx(k / 20.0, abs=1e-15)
    assert refit.confidence_[6] == pytest.approx(min(k / 20.0, 1.0), abs=1e-15)
    np.testing.assert_allclose(joined.confidence_[6] / joined.confidence_[:6],
                               refit.confidence_[6] / refit.confidence_[:6], rtol=1e-14)
    # the fitted nodes keep theirs (a refit rescales them once k > 20)
    np.testing.assert_array_equal(joined.confidence_[:6], fit.confidence_)
    np.testing.assert_allclose(refit.confidence_[:6], np.array(sizes[:6]) / max(20.0, k))
    assert joined.mu == refit.mu == 0.7
