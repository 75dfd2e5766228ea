"""The displays given a fitted estimator of another kind.

``TaskRelationshipDisplay.from_estimator(dada)`` on a fitted Dada model
used to raise "NotFittedError: This DecentralizedBoostingClassifier
instance is not fitted yet": the model was fitted, it just has no
``omega_``.  The error now names what the display draws and who has it;
an estimator that really is not fitted still gets ``NotFittedError``.
"""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    LocalEstimator,
)

pytest.importorskip("matplotlib")

from skfed.plotting import (  # noqa: E402
    CollaborationGraphDisplay,
    CommunicationCurveDisplay,
    OnlineLearningDisplay,
    TaskRelationshipDisplay,
)


@pytest.fixture(scope="module")
def fitted():
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(4), 25)
    X = rng.randn(100, 3)
    y = (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int)
    models = {
        "mocha": FederatedMultiTaskClassifier(random_state=0),
        "dada": DecentralizedBoostingClassifier(random_state=0),
        "online": DecentralizedKernelSGDClassifier(random_state=0),
        "local": LocalEstimator(LogisticRegression()),
    }
    for model in models.values():
        model.fit(X, y, groups=groups)
    return models


CASES = [
    # display, estimator without the attributes, its missing attributes, who has them
    (TaskRelationshipDisplay, "dada", "omega_, task_covariance_", "FederatedMultiTaskClassifier"),
    (CollaborationGraphDisplay, "mocha", "collaboration_graph_", "Dada, Perso-lin"),
    (OnlineLearningDisplay, "mocha", "model_order_curve_, consensus_error_curve_",
     "DecentralizedKernelSGDClassifier"),
    (CommunicationCurveDisplay, "local", "bytes_per_round_", "a Local model sends nothing"),
]


@pytest.mark.parametrize("display, name, missing, owners", CASES)
def test_a_fitted_estimator_of_another_kind_is_named(fitted, display, name, missing, owners):
    estimator = fitted[name]
    with pytest.raises(TypeError) as info:
        display.from_estimator(estimator)
    message = str(info.value)
    assert not isinstance(info.value, NotFittedError)
    assert message.startswith(f"{display.__name__}.from_estimator draws ")
    assert f"which {type(estimator).__name__} does not have ({missing} missing)" in message
    assert owners in message


@pytest.mark.parametrize("display, name", [(TaskRelationshipDisplay, "mocha"),
                                           (CollaborationGraphDisplay, "dada"),
                                           (OnlineLearningDisplay, "online"),
                                           (CommunicationCurveDisplay, "mocha")])
def test_the_right_estimator_still_draws_and_an_unfitted_one_is_not_fitted(
        fitted, display, name):
    import matplotlib.pyplot as plt
    from sklearn.base import clone

    estimator = fitted[name]
    disp = display.from_estimator(estimator)
    assert disp.figure_ is not None
    plt.close("all")
    with pytest.raises(NotFittedError):
        display.from_estimator(clone(estimator))
