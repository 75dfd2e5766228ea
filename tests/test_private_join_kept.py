"""Nodes added to a private fit keep their joined models, and say so.

review2 / privacy3: after a private fit the kept-model choice
(``kept_local_models_``, ``DifferentialPrivacy(local_estimator=)``) covered
the fitted nodes only, and ``add_nodes`` left the attribute one entry per
fitted node, silently.
"""

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from skfed.boosting import PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier
from skfed.privacy import DifferentialPrivacy


@pytest.mark.parametrize("cls", [PersonalizedLinearClassifier, FederatedMultiTaskClassifier])
@pytest.mark.parametrize("local", [None, LinearSVC()])
def test_join_after_a_private_fit_extends_kept_models_and_warns(cls, local):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(240, 3))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(np.arange(6), 40)
    old = groups < 4
    est = cls(random_state=0, privacy=DifferentialPrivacy(epsilon=3.0, local_estimator=local))
    est.fit(X[old], y[old], groups=groups[old])
    kept = list(est.kept_local_models_)
    assert len(kept) == 4
    with pytest.warns(UserWarning, match=r"The 2 node\(s\) added to this private fit keep"):
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert est.kept_local_models_.shape == (6,)
    assert all(a is b for a, b in zip(est.kept_local_models_[:4], kept))
    assert est.kept_local_models_[4] is None and est.kept_local_models_[5] is None
    assert est.predict(X[~old], groups=groups[~old]).shape == (80,)
