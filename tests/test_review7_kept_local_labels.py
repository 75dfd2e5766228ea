"""Review7: what a private node's kept Local model predicts, as documented.

``kept_local_models_[k]`` is fitted on the indices of the classes, not on
the labels: with labels ``"down"`` / ``"up"`` its ``predict`` answers 0 /
1.  The docstrings now say so (``classes_[model.predict(X)]`` are its
labels; Dada's also listed ``SVC()``, a model storing training rows,
among the candidates, and described a rule the code does not use).  The
test checks the documented relation on every node that keeps one.
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier
from skfed.boosting import (
    DecentralizedBoostingClassifier,
    PersonalizedLinearClassifier,
    make_stump_predictors,
)
from skfed.datasets import make_rotated_moons
from skfed.privacy import DifferentialPrivacy


def _fit(kind):
    X, X_test, y, _, g, g_test, _, _ = make_rotated_moons(n_nodes=8, n_features=2,
                                                          random_state=0)
    labels = np.array(["down", "up"])
    y = labels[(y > 0).astype(int)]
    spec = DifferentialPrivacy(epsilon=3.0, delta=1e-6)
    if kind == "dada":
        est = DecentralizedBoostingClassifier(
            random_state=0, privacy=spec,
            base_predictors=make_stump_predictors([-2, -2], [3, 2], 20))
    elif kind == "perso":
        est = PersonalizedLinearClassifier(random_state=0, privacy=spec)
    else:
        est = FederatedMultiTaskClassifier(random_state=0, privacy=spec, kernel="linear")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    return est, X_test, g_test


@pytest.mark.parametrize("kind", ["dada", "perso", "mocha"])
def test_kept_model_predicts_class_indices(kind):
    est, X_test, g_test = _fit(kind)
    kept = [k for k, model in enumerate(est.kept_local_models_) if model is not None]
    assert len(kept) >= 3  # (4 / 7 / 7 of the 8 nodes on these fits)
    for k in kept:
        rows = g_test == est.nodes_[k]
        model = est.kept_local_models_[k]
        own = model.predict(X_test[rows])
        assert set(np.unique(own).tolist()) <= {0, 1}
        np.testing.assert_array_equal(est.classes_[own],
                                      est.predict(X_test[rows], groups=g_test[rows]))
