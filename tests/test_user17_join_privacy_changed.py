"""``add_nodes`` after ``set_params(privacy=...)`` changed the fit's privacy.

Before: Perso-lin fitted without privacy and joined with it crashed with
``AttributeError: ... no attribute 'privacy_spent_'``; fitted with privacy
and joined without, it gave the newcomers noise-free models and left
``privacy_spent_`` one entry per fitted node only; MOCHA fitted without
privacy ignored the join's; support recovery fitted without privacy and
joined with it reported a spend of 0 for the fitted clients, which had
sent their bits in the clear, and fitted with privacy and joined without
it dropped ``privacy_spent_``.  A join extends the fitted model and its
accounting, so a changed ``privacy`` is now refused, naming it, like the
other parameters a join reads (``skfed/_join_params.py``).
"""

import warnings

import numpy as np
import pytest

from skfed.boosting import PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier
from skfed.privacy import DifferentialPrivacy
from skfed.support import FederatedSupportRecovery


def _data(regression):
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(8), 40)
    X = rng.normal(size=(320, 6))
    y = X[:, 0] - X[:, 2] + 0.3 * rng.normal(size=320) if regression else (X[:, 0] > 0).astype(int)
    return X, y, groups, groups < 6


CASES = [
    (PersonalizedLinearClassifier, DifferentialPrivacy(epsilon=3.0, delta=1e-5), False),
    (FederatedMultiTaskClassifier, DifferentialPrivacy(epsilon=3.0, delta=1e-5), False),
    (FederatedSupportRecovery, DifferentialPrivacy(epsilon=3.0), True),
]


@pytest.mark.parametrize("cls, spec, regression", CASES)
@pytest.mark.parametrize("private_fit", [False, True])
def test_join_refuses_a_changed_privacy(cls, spec, regression, private_fit):
    X, y, groups, old = _data(regression)
    est = cls(random_state=0, privacy=spec if private_fit else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X[old], y[old], groups=groups[old])
    nodes = est.nodes_.copy()
    est.set_params(privacy=None if private_fit else spec)
    with pytest.raises(ValueError, match=r"add_nodes: privacy was changed after fit"):
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    np.testing.assert_array_equal(est.nodes_, nodes)  # nothing joined
    # set back, the join runs and accounts every node
    est.set_params(privacy=spec if private_fit else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert len(est.nodes_) == 8
    if private_fit:
        assert est.privacy_spent_.shape == (8,)
    else:
        assert getattr(est, "privacy_spent_", None) is None


def test_an_equal_specification_is_not_a_change():
    """A new but equal DifferentialPrivacy object (e.g. after clone) joins."""
    X, y, groups, old = _data(False)
    est = PersonalizedLinearClassifier(
        random_state=0, privacy=DifferentialPrivacy(epsilon=3.0, delta=1e-5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X[old], y[old], groups=groups[old])
        est.set_params(privacy=DifferentialPrivacy(epsilon=3.0, delta=1e-5))
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert est.privacy_spent_.shape == (8,)
    est.set_params(privacy=DifferentialPrivacy(epsilon=1.0, delta=1e-5))
    with pytest.raises(ValueError, match="privacy"):
        est.add_nodes(X[:5] + 1, y[:5], groups=np.full(5, 20))
