"""One check of a weightless newcomer for every estimator's ``add_nodes``.

The check (a new node whose samples all have a zero ``sample_weight``) was
written in four places with four wordings (the graph joins, the MOCHA join,
the sparse linear regression's join and ``check_node_weights`` for the
online and support joins); it is now made once, in
``FederatedMixin._validate_join_data``, through ``check_node_weights``.
Every estimator that has ``add_nodes`` is found from ``skfed.__all__`` (a
new one joins the test by itself) and must raise the same message, naming
the node as the user wrote it, before anything joins.
"""

import inspect

import numpy as np
import pytest
from sklearn.base import is_classifier
from sklearn.linear_model import LogisticRegression

import skfed
from skfed import LocalEstimator

JOINING = sorted(
    name for name in skfed.__all__
    if inspect.isclass(getattr(skfed, name)) and hasattr(getattr(skfed, name), "add_nodes")
)


def _estimator(name):
    Estimator = getattr(skfed, name)
    if Estimator is LocalEstimator:
        return Estimator(LogisticRegression())
    params = Estimator().get_params()
    return Estimator(**({"random_state": 0} if "random_state" in params else {}))


def _regression(est):
    return not is_classifier(est)


def _data(regression, seed, n):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    target = X @ np.array([1.0, -1.0, 0.5])
    return X, (target if regression else (target > 0).astype(int))


def test_every_joining_estimator_is_tested():
    # the families of skfed that grow: a list shorter than this one means
    # the discovery above broke, not that an estimator lost add_nodes
    assert len(JOINING) >= 11
    assert {"LocalEstimator", "FederatedMultiTaskClassifier", "FederatedSupportRecovery",
            "FederatedSparseLinearRegression", "DecentralizedKernelSGDRegressor",
            "DecentralizedBoostingClassifier", "PersonalizedLinearClassifier"} <= set(JOINING)


@pytest.mark.filterwarnings("ignore::UserWarning")  # (small nodes: votes, certificates)
@pytest.mark.parametrize("name", JOINING)
@pytest.mark.parametrize("labels", [[10, 11], ["ten", "eleven"]], ids=["int", "str"])
def test_add_nodes_refuses_a_weightless_newcomer_with_one_message(name, labels):
    est = _estimator(name)
    regression = _regression(est)
    X, y = _data(regression, 0, 90)
    old = [0, 1, 2] if isinstance(labels[0], int) else ["a", "b", "c"]
    est.fit(X, y, groups=np.repeat(old, 30))
    nodes = est.nodes_.tolist()
    X_new, y_new = _data(regression, 1, 20)
    groups = np.repeat(labels, 10)  # sorted: "eleven" < "ten"
    weightless = sorted(labels)[1]
    weights = np.where(groups == weightless, 0.0, 1.0)
    message = (f"Node {weightless!r} has no sample with a positive sample_weight; "
               f"{type(est).__name__} needs at least 1 per node that joins.")
    with pytest.raises(ValueError) as info:
        est.add_nodes(X_new, y_new, groups=groups, sample_weight=weights)
    assert str(info.value) == message
    assert est.nodes_.tolist() == nodes  # nothing joined
    # one zero weight more or less: the node that keeps one sample joins
    weights[np.flatnonzero(groups == weightless)[-1]] = 1.0
    est.add_nodes(X_new, y_new, groups=groups, sample_weight=weights)
    assert est.nodes_.tolist() == nodes + sorted(labels)


def test_several_weightless_newcomers_are_counted():
    est = LocalEstimator(LogisticRegression())
    X, y = _data(False, 0, 90)
    est.fit(X, y, groups=np.repeat([0, 1, 2], 30))
    X_new, y_new = _data(False, 1, 30)
    groups = np.repeat([7, 8, 9], 10)
    with pytest.raises(ValueError, match=r"^Node 8 has no sample .* \(2 such nodes\.\)$"):
        est.add_nodes(X_new, y_new, groups=groups,
                      sample_weight=np.where(groups == 7, 1.0, 0.0))
