"""Node ids of another kind in ``add_nodes`` (review17, issue 32).

``fit`` accepts boolean node ids (two nodes, ``False`` and ``True``).  A join
whose ids are booleans against an integer or string ``nodes_`` (or the
reverse) ended in a bare ``StopIteration`` raised from
``skfed._node_ids._check_label_kinds`` (booleans belonged to none of its
kind families), for every estimator with ``add_nodes`` (online's own path
included).  Now it is the same ``TypeError`` as strings against integers,
naming both dtypes; booleans against booleans still join.
"""

import warnings

import numpy as np
import pytest

from skfed._node_ids import _check_label_kinds

from .test_bad_input import DATA, build, kind_of, public_estimators

X, GROUPS = DATA["X"], DATA["groups"]
JOINABLE = [n for n in public_estimators()
            if kind_of(build(n)) != "models" and hasattr(build(n), "add_nodes")]
KIND_ERROR = r"The new node ids have dtype {} but nodes_ has dtype {}; use node ids of one type"


def _fit(name, groups, rows):
    est = build(name)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    y = DATA[kind_of(est)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X[rows], y[rows], groups=groups[rows])


@pytest.mark.parametrize("name", JOINABLE)
def test_boolean_ids_against_integer_nodes_raise_a_type_error(name):
    old = GROUPS < 6
    est = _fit(name, GROUPS, old)
    y = DATA[kind_of(est)]
    with pytest.raises(TypeError, match=KIND_ERROR.format("bool", "int64")):
        est.add_nodes(X[~old], y[~old], groups=GROUPS[~old] == 6)
    assert est.nodes_.tolist() == list(range(6))


@pytest.mark.parametrize("name", ["LocalEstimator", "PersonalizedLinearClassifier",
                                  "DecentralizedKernelSGDRegressor"])
def test_boolean_nodes_refuse_integer_ids_and_join_booleans(name):
    # a fit on two boolean nodes; the join of integers is refused by kind,
    # a join of False (already fitted) by the collision check
    two = GROUPS < 2
    bool_groups = GROUPS == 1
    est = _fit(name, bool_groups, two)
    y = DATA[kind_of(est)]
    rest = GROUPS >= 2
    with pytest.raises(TypeError, match=KIND_ERROR.format("int64", "bool")):
        est.add_nodes(X[rest], y[rest], groups=GROUPS[rest])
    with pytest.raises(ValueError, match=r"already in nodes_ \(False\)"):
        est.add_nodes(X[rest], y[rest], groups=np.zeros(rest.sum(), dtype=bool))


@pytest.mark.parametrize("old, new, refused", [
    ("int64", "bool", True), ("bool", "int64", True), ("<U3", "bool", True),
    ("bool", "float64", True), ("bool", "bool", False), ("int64", "float32", False),
    ("uint8", "int64", False), ("<U3", "S2", False), ("object", "bool", False),
])
def test_kind_families_closed_form(old, new, refused):
    nodes, labels = np.zeros(2, dtype=old), np.zeros(1, dtype=new)
    if refused:
        with pytest.raises(TypeError, match="use node ids of one type"):
            _check_label_kinds(nodes, labels)
    else:
        assert _check_label_kinds(nodes, labels) is None


@pytest.mark.parametrize("name", [n for n in JOINABLE if n != "FederatedSupportRecovery"])
def test_unknown_node_error_points_to_add_nodes(name):
    # handle_unknown="error": a joined node predicts, a node neither fitted
    # nor joined is refused by id, and the message names the way to add it
    old, six, seven = GROUPS < 6, GROUPS == 6, GROUPS == 7
    est = _fit(name, GROUPS, old)
    est.set_params(handle_unknown="error")
    y = DATA[kind_of(est)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X[six], y[six], groups=GROUPS[six])
    assert len(est.predict(X[six], groups=GROUPS[six])) == six.sum()
    with pytest.raises(ValueError, match=r"^1 node\(s\) were not seen in fit \(7\); set "
                                         r"handle_unknown='global' .*, or give them their "
                                         r"own models with add_nodes\.$"):
        est.predict(X[seven], groups=GROUPS[seven])
