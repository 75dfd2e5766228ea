"""Bad node data and bad node lists at the MPI and Flower entry points (review14).

The engines check a node's data with the simulated fit's checks and put
the node's label in front of the message (``skfed.engines._nodes.node_error``,
one helper for both engines).  Before review14:

* string targets of a regressor said "could not convert string to float"
  (no ``y``, no estimator; now the simulation's new message, with the node);
* a sparse ``X`` where dense is needed raised the simulation's ``TypeError``
  without the node (only ``ValueError`` got the prefix);
* ``mpi.fit(nodes=[0.0, nan, 2.0])`` raised ``KeyError: nan`` and
  ``nodes=[]`` said "0 nodes cannot be spread over 1 MPI ranks; start at
  most 0 ranks".

The MPI fits run on one rank (no ``mpirun`` needed), as in
``tests/test_defects14_engine_input_checks.py``.
"""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from skfed import (
    DecentralizedKernelSGDRegressor,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    PersonalizedLinearClassifier,
)

rng = np.random.RandomState(0)
IDS = np.repeat(np.arange(4), 30)
X = rng.normal(size=(120, 3))
Y = (X[:, 0] > 0).astype(int)
T = X[:, 0] + 0.1 * rng.normal(size=120)
WORDS = np.full(120, "n/a")  # a target read as text


def _message(call, kind=ValueError):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(kind) as info:
            call()
    return str(info.value)


def _mpi_fit(est, loader, nodes=(0, 1, 2, 3)):
    from mpi4py import MPI

    from skfed.engines import mpi

    return mpi.fit(est, loader, nodes=nodes, comm=MPI.COMM_WORLD)


def test_node_error_keeps_the_kind_and_unwraps_numpy_labels():
    from skfed.engines._nodes import node_error

    error = node_error(np.int64(2), ValueError("Input X contains NaN."))
    assert type(error) is ValueError and str(error) == "Node 2: Input X contains NaN."
    error = node_error(np.str_("b"), TypeError("Sparse data was passed for X"))
    assert type(error) is TypeError and str(error) == "Node 'b': Sparse data was passed for X"
    assert str(node_error(np.array(7), ValueError("m"))) == "Node 7: m"


def test_mpi_string_targets_name_the_node_and_y_as_the_simulation_does():
    pytest.importorskip("mpi4py")
    simulated = _message(lambda: DecentralizedKernelSGDRegressor(random_state=0).fit(
        X, WORDS, groups=IDS))
    assert simulated.startswith("y must hold numbers: DecentralizedKernelSGDRegressor")
    on_mpi = _message(lambda: _mpi_fit(DecentralizedKernelSGDRegressor(random_state=0),
                                       lambda label: (X[IDS == label], WORDS[IDS == label])))
    assert on_mpi == f"Node 0: {simulated}"


def test_mpi_sparse_X_names_the_node_as_the_simulation_does():
    pytest.importorskip("mpi4py")
    simulated = _message(lambda: PersonalizedLinearClassifier(random_state=0).fit(
        sp.csr_matrix(X), Y, groups=IDS), TypeError)
    on_mpi = _message(lambda: _mpi_fit(PersonalizedLinearClassifier(random_state=0),
                                       lambda label: (sp.csr_matrix(X[IDS == label]),
                                                      Y[IDS == label])), TypeError)
    assert on_mpi == f"Node 0: {simulated}"
    assert "Sparse data was passed for X" in simulated


@pytest.mark.parametrize("nodes, message", [
    ([0.0, np.nan, 2.0, 3.0], r"^nodes contains NaN or infinite node ids, the first at sample 1: every sample "
     r"needs the id of its node; drop the rows whose node is unknown or give them one\.$"),
    ([0, None, 2, 3], r"^nodes contains missing node ids \(None or NaN\), the first at sample 1: "),
    (np.array([0, "one", 2, 3], dtype=object), r"^nodes mixes strings and other types"),
    ([], r"^nodes is empty: give the label of every node to fit\.$"),
    ([0, 1, 1, 2], r"^nodes must not repeat a label\.$"),
])
def test_mpi_bad_node_lists_are_refused_naming_nodes(nodes, message):
    pytest.importorskip("mpi4py")
    loaded = []

    def loader(label):
        loaded.append(label)
        return X[:30], Y[:30]

    with pytest.raises((ValueError, TypeError), match=message):
        _mpi_fit(PersonalizedLinearClassifier(random_state=0), loader, nodes)
    assert loaded == []   # refused before any node's data is loaded


@pytest.mark.parametrize("Est, Xc, yc, kind", [
    (FederatedMultiTaskRegressor, X, WORDS, ValueError),
    (FederatedMultiTaskClassifier, sp.csr_matrix(X), Y, TypeError),
])
def test_flower_client_names_the_node_as_the_simulation_does(Est, Xc, yc, kind):
    pytest.importorskip("flwr")
    from skfed.engines.flower import _NodeData

    simulated = _message(lambda: Est().fit(Xc, yc, groups=IDS), kind)
    node = IDS == 2
    context = SimpleNamespace(node_config={"partition-id": 2})
    on_flower = _message(lambda: _NodeData(Est(), lambda c: (Xc[node], yc[node]), context,
                                           "partition-id"), kind)
    assert on_flower == f"Node 2: {simulated}"


# ------------------------------------------------ the engines' own settings
# Before review14 the Flower apps took any value here: load_data=5 failed in
# every SuperNode at every message ("'int' object is not callable"),
# on_fit=5 after the whole fit (losing it), min_nodes=0 started a fit with
# no node, a timeout <= 0 failed every wait at once and blamed the nodes;
# mpi.fit's timeout likewise blamed a rank.
@pytest.mark.parametrize("settings, kind, message", [
    (dict(min_nodes=0), ValueError, r"^min_nodes must be an integer >= 1 .*got 0\.$"),
    (dict(min_nodes=2.5), ValueError, r"^min_nodes must be an integer >= 1 .*got 2\.5\.$"),
    (dict(timeout=-5), ValueError, r"^timeout must be a finite number of seconds > 0, got -5\.$"),
    (dict(timeout=float("inf")), ValueError, r"^timeout must be a finite number"),
    (dict(poll_interval=0), ValueError, r"^poll_interval must be a finite number of seconds"),
    (dict(on_fit=5), TypeError, r"^on_fit must be None or a callable on_fit\(fitted, context\); "
                                r"got int\.$"),
])
def test_flower_server_app_refuses_bad_settings_by_name(settings, kind, message):
    pytest.importorskip("flwr")
    from skfed.engines.flower import fit_on_grid, make_server_app

    with pytest.raises(kind, match=message):
        make_server_app(FederatedMultiTaskClassifier(), **settings)
    if "on_fit" not in settings:
        with pytest.raises(kind, match=message):   # before any message is sent
            fit_on_grid(FederatedMultiTaskClassifier(), grid=None, **settings)


def test_flower_server_app_reads_min_nodes_from_the_run_config():
    pytest.importorskip("flwr")
    from skfed.engines.flower import _check_min_nodes

    assert _check_min_nodes(3) == 3 and _check_min_nodes(np.int64(2)) == 2
    with pytest.raises(ValueError, match=r"^The run config's skfed-min-nodes must be an "
                                         r"integer >= 1 .*got 'three'\.$"):
        _check_min_nodes("three", "The run config's skfed-min-nodes")
    with pytest.raises(ValueError, match=r"got True"):
        _check_min_nodes(True)


@pytest.mark.parametrize("settings, message", [
    (dict(load_data=5), r"^load_data must be None or a callable load_data\(context\) "
                        r"returning this node's data; got int\.$"),
    (dict(label_key=3), r"^label_key must be a node-config key \(a str\); got int\.$"),
])
def test_flower_client_app_refuses_bad_settings_by_name(settings, message):
    pytest.importorskip("flwr")
    from skfed.engines.flower import make_client_app

    with pytest.raises(TypeError, match=message):
        make_client_app(FederatedMultiTaskClassifier(), **settings)


@pytest.mark.parametrize("timeout", [-1.0, 0, float("nan"), "60"])
def test_mpi_fit_refuses_a_timeout_that_is_not_a_positive_number(timeout):
    pytest.importorskip("mpi4py")
    with pytest.raises(ValueError, match=r"^timeout must be a finite number of seconds > 0"):
        from mpi4py import MPI

        from skfed.engines import mpi

        mpi.fit(PersonalizedLinearClassifier(random_state=0),
                lambda label: (X[IDS == label], Y[IDS == label]), nodes=[0, 1, 2, 3],
                comm=MPI.COMM_WORLD, timeout=timeout)
