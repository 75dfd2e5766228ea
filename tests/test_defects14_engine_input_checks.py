"""The MPI and Flower engines check a node's data as the simulated fit does.

defects14, item 5: an engine validates each node's data where it is loaded;
its refusal must be the simulated fit's (same check, same message) and name
the node.  Before, the MPI engine said "Input contains NaN." (no ``X``, no
estimator, no node) and the Flower client gave the simulation's message
without the node.  A single class on one node is accepted by both, as by
the simulation (the classes are those of all nodes), and a fitted engine
estimator refuses unknown nodes at predict with the simulation's message.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor

rng = np.random.RandomState(0)
IDS = np.repeat(np.arange(4), 30)
X = rng.normal(size=(120, 3))
Y = (X[:, 0] > 0).astype(int)
T = X[:, 0] + 0.1 * rng.normal(size=120)
BAD_ROW = 65                 # a row of node 2

X_NAN = X.copy()
X_NAN[BAD_ROW, 1] = np.nan
X_INF = X.copy()
X_INF[BAD_ROW, 0] = np.inf
T_NAN = T.copy()
T_NAN[BAD_ROW] = np.nan


def _message(fit):
    with pytest.raises(ValueError) as info:
        fit()
    return str(info.value)


def _mpi_estimators():
    mpi = pytest.importorskip("skfed.engines.mpi")
    return [(name, Est) for name, Est in mpi.ESTIMATORS.items()
            if name != "CollaborationGraphLearner"]   # (fits no (X, y) data)


def _mpi_fit(est, Xc, yc):
    from mpi4py import MPI

    from skfed.engines import mpi

    return mpi.fit(est, lambda label: (Xc[IDS == label], yc[IDS == label]),
                   nodes=np.unique(IDS), comm=MPI.COMM_WORLD)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", ["nan_X", "inf_X", "nan_y"])
def test_mpi_refuses_bad_node_data_with_the_simulations_message_naming_the_node(case):
    pytest.importorskip("mpi4py")
    for name, Est in _mpi_estimators():
        regressor = "Regressor" in name
        if case == "nan_y" and not regressor:
            continue
        y = T if regressor else Y
        Xc, yc = {"nan_X": (X_NAN, y), "inf_X": (X_INF, y), "nan_y": (X, T_NAN)}[case]
        simulated = _message(lambda: Est(random_state=0).fit(Xc, yc, groups=IDS))
        on_mpi = _message(lambda: _mpi_fit(Est(random_state=0), Xc, yc))
        assert on_mpi == f"Node 2: {simulated}", name
        if case == "nan_X":
            assert name in simulated   # (the estimator's own message)


@pytest.mark.filterwarnings("ignore")
def test_mpi_accepts_a_single_class_node_and_refuses_unknown_nodes_like_the_simulation():
    pytest.importorskip("mpi4py")
    y1 = Y.copy()
    y1[IDS == 2] = 1
    for name, Est in _mpi_estimators():
        if "Regressor" in name:
            continue
        simulated = Est(random_state=0).fit(X, y1, groups=IDS)
        on_mpi = _mpi_fit(Est(random_state=0), X, y1)
        np.testing.assert_array_equal(on_mpi.classes_, simulated.classes_)
        if "handle_unknown" in Est().get_params():
            for est in (simulated, on_mpi):
                est.set_params(handle_unknown="error")
            unknown = np.full(3, 9)
            assert (_message(lambda: on_mpi.predict(X[:3], groups=unknown))
                    == _message(lambda: simulated.predict(X[:3], groups=unknown)))


@pytest.mark.parametrize("Est, Xc, yc", [
    (FederatedMultiTaskClassifier, X_NAN, Y),
    (FederatedMultiTaskClassifier, X_INF, Y),
    (FederatedMultiTaskRegressor, X, T_NAN),
])
def test_flower_client_refuses_bad_node_data_with_the_simulations_message(Est, Xc, yc):
    pytest.importorskip("flwr")
    from skfed.engines.flower import _NodeData

    node = IDS == 2
    simulated = _message(lambda: Est().fit(Xc, yc, groups=IDS))
    context = SimpleNamespace(node_config={"partition-id": 2})
    on_flower = _message(lambda: _NodeData(Est(), lambda c: (Xc[node], yc[node]), context,
                                           "partition-id"))
    assert on_flower == f"Node 2: {simulated}"


def test_flower_client_accepts_a_single_class_node():
    pytest.importorskip("flwr")
    from skfed.engines.flower import _NodeData

    node = _NodeData(FederatedMultiTaskClassifier(), lambda c: (X[:30], np.ones(30, int)),
                     SimpleNamespace(node_config={"partition-id": 0}), "partition-id")
    assert node.label == 0 and set(node.y.tolist()) == {1}
