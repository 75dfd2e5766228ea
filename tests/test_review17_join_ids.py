"""Node ids of another kind in ``add_nodes``, and unknown nodes (review17, issue 32).

``fit`` accepts boolean node ids (two nodes, ``False`` and ``True``), and
``predict`` / ``partial_fit`` take booleans as the numbers 0 and 1 (numpy's
and Python's ``True == 1``; ``skfed._node_ids._label_kinds`` counts them as
numbers).  ``add_nodes`` given boolean ids against an integer or string
``nodes_`` (or the reverse) ended in a bare ``StopIteration`` raised from
``_check_label_kinds`` (booleans belonged to none of its kind families),
for every estimator with ``add_nodes`` (online's own path included).  Now
booleans are numbers there too: ``False`` / ``True`` against fitted nodes 0
and 1 are refused as nodes already fitted, integers join boolean nodes, and
booleans against strings get the kinds ``TypeError`` naming both dtypes.

With ``handle_unknown="error"`` a node neither fitted nor joined is refused
by id, and the error says ``add_nodes`` would give it its own model.
"""

import warnings

import numpy as np
import pytest

from skfed._node_ids import _check_label_kinds

from .test_bad_input import DATA, build, kind_of, public_estimators

X, GROUPS = DATA["X"], DATA["groups"]
JOINABLE = [n for n in public_estimators()
            if kind_of(build(n)) != "models" and hasattr(build(n), "add_nodes")]


def _fit(name, groups, rows):
    est = build(name)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    y = DATA[kind_of(est)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X[rows], y[rows], groups=groups[rows])


@pytest.mark.parametrize("name", JOINABLE)
def test_boolean_ids_are_the_numbers_0_and_1(name):
    old = GROUPS < 6
    est = _fit(name, GROUPS, old)
    y = DATA[kind_of(est)]
    with pytest.raises(ValueError, match=r"add_nodes got samples of 2 node\(s\) already in "
                                         r"nodes_ \(False, True\)"):
        est.add_nodes(X[~old], y[~old], groups=GROUPS[~old] == 6)
    assert est.nodes_.tolist() == list(range(6))
    strings = _fit(name, np.array([f"n{g}" for g in GROUPS]), old)
    with pytest.raises(TypeError, match=r"The new node ids have dtype bool but nodes_ has "
                                        r"dtype <U2; use node ids of one type"):
        strings.add_nodes(X[~old], y[~old], groups=GROUPS[~old] == 6)


@pytest.mark.parametrize("name", ["LocalEstimator", "PersonalizedLinearClassifier",
                                  "DecentralizedKernelSGDRegressor"])
def test_boolean_nodes_take_integer_newcomers(name):
    # a fit on two boolean nodes; integers 2-7 join (False / True keep
    # their models and are still found by their ids), False again is refused
    two = GROUPS < 2
    est = _fit(name, GROUPS == 1, two)
    y = DATA[kind_of(est)]
    before = est.predict(X[two], groups=GROUPS[two] == 1)
    rest = GROUPS >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X[rest], y[rest], groups=GROUPS[rest])
    assert est.nodes_.tolist() == list(range(8))
    np.testing.assert_array_equal(est.predict(X[two], groups=GROUPS[two] == 1), before)
    with pytest.raises(ValueError, match=r"already in nodes_ \(False\)"):
        est.add_nodes(X[rest], y[rest], groups=np.zeros(rest.sum(), dtype=bool))


@pytest.mark.parametrize("old, new, refused", [
    ("int64", "bool", False), ("bool", "int64", False), ("bool", "float64", False),
    ("<U3", "bool", True), ("bool", "S2", True), ("bool", "bool", False),
    ("int64", "float32", False), ("uint8", "int64", False), ("<U3", "S2", True),
    ("object", "bool", False), ("<U3", "int64", True),
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
