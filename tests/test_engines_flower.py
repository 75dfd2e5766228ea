"""skfed on Flower: the same fits as the simulation, over Flower messages.

Two levels:

* ``LoopbackGrid`` runs the ClientApp in this process, one Flower
  ``Context`` per node, every message content crossing Flower's own wire
  format (deflate / inflate of the records): fast, so it covers every mode
  and protocol path;
* ``test_real_deployment`` starts a ``flower-superlink`` and three
  ``flower-supernode`` processes on 127.0.0.1 (insecure, no Ray), runs the
  apps with ``flwr run`` and compares the fitted estimators with the
  simulated fits.

Both check equality with the simulated fit (rounds, Omega, coefficients,
support, skfed's byte counts) and that the bytes Flower moved (its own
record sizes) carry exactly what skfed's byte model counts, plus the
itemised extras of the Flower protocol.
"""

import importlib
import itertools
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from skfed import FederatedSupportRecovery, SimulatedNetwork
from skfed.multitask import FederatedMultiTaskClassifier as _FederatedMultiTaskClassifier
from skfed.multitask import FederatedMultiTaskRegressor as _FederatedMultiTaskRegressor

# Flower runs MOCHA's formulations (the learned Omega, what omega="auto" means
# there); these cases were written for MOCHA's former defaults (rbf kernel,
# squared hinge), which issue 28 changed to linear / shared / logistic, so
# they are pinned here.
_MOCHA = dict(kernel="rbf", omega="learn")


def FederatedMultiTaskClassifier(**params):  # noqa: N802
    return _FederatedMultiTaskClassifier(**{**_MOCHA, "loss": "squared_hinge", **params})


def FederatedMultiTaskRegressor(**params):  # noqa: N802
    return _FederatedMultiTaskRegressor(**{**_MOCHA, **params})


try:
    import flwr  # noqa: F401

    HAVE_FLWR = True
except ImportError:
    HAVE_FLWR = False

needs_flwr = pytest.mark.skipif(
    not HAVE_FLWR, reason='Flower is not installed (pip install ".[flower]")'
)


# ------------------------------------------------------------ the extra
def test_missing_flower_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "flwr", None)
    monkeypatch.delitem(sys.modules, "skfed.engines.flower", raising=False)
    with pytest.raises(ImportError, match=r'pip install "flwr==[^"]+" .*pip install "\.\[flower\]"'):
        importlib.import_module("skfed.engines.flower")


def test_require_extra_names_the_pip_command(monkeypatch):
    from skfed.engines import require_extra

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r'pip install "dask\[distributed\]>=[^"]+"'):
        require_extra("dask")


# ------------------------------------------------------- module imports
_FLOWER_MODULES = ("flower", "_flower_records", "_flower_multitask", "_flower_exact",
                   "_flower_support")


def test_flower_modules_import_one_way():
    # flower -> method modules -> _flower_records, never back (issue 20: the
    # three _flower_* modules imported flower, which imported them).
    import ast
    from pathlib import Path

    import skfed.engines

    folder = Path(skfed.engines.__file__).parent
    imports = {}
    for name in _FLOWER_MODULES:
        tree = ast.parse((folder / f"{name}.py").read_text())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module)
                else:
                    found.update(alias.name for alias in node.names)
        imports[name] = found & set(_FLOWER_MODULES)
    assert imports == {
        "flower": {"_flower_multitask", "_flower_support", "_flower_records"},
        "_flower_multitask": {"_flower_exact", "_flower_records"},
        "_flower_exact": {"_flower_records"},
        "_flower_support": {"_flower_records"},
        "_flower_records": set(),
    }


@needs_flwr
@pytest.mark.parametrize("name", _FLOWER_MODULES)
def test_each_flower_module_imports_alone(name, tmp_path):
    # A fresh interpreter, in an empty directory (from the repository root the
    # unbuilt source tree would shadow the tested package), with the tested
    # skfed first on its path.
    from pathlib import Path

    import skfed

    env = dict(os.environ)
    root = str(Path(skfed.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
    code = f"import skfed.engines.{name}"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                   cwd=tmp_path, env=env)


@needs_flwr
def test_flower_refuses_rogue_nodes_for_mocha():
    from skfed.engines.flower import make_server_app

    est = FederatedMultiTaskClassifier(network=SimulatedNetwork(rogue_fraction=0.2))
    with pytest.raises(ValueError, match="FederatedMultiTaskClassifier does not model rogue"):
        make_server_app(est)


@needs_flwr
@pytest.mark.parametrize(
    "params", [dict(approximation="nystroem", landmarks="kmeans"), dict(cache_size=100.0),
               dict(warm_start=True)], ids=["kmeans", "cache_size", "warm_start"],
)
def test_flower_refuses_simulation_only_multitask_settings(params):
    from skfed.engines.flower import make_server_app

    name = next(iter(params)) if "landmarks" not in params else "landmarks"
    with pytest.raises(ValueError, match=f"{name}=.*only implemented by the simulated fit"):
        make_server_app(FederatedMultiTaskClassifier(**params))

if HAVE_FLWR:
    from flwr.app import Context, Error, Message, RecordDict
    from flwr.serverapp import Grid
    from flwr.supercore.inflatable.inflatable_object import get_all_nested_objects
    from flwr.supercore.inflatable.inflatable_utils import inflate_object_from_contents
    from flwr.supercore.task_identity import TaskIdentity

    from skfed.engines.flower import (
        MODEL_ITEMS,
        FlowerRunError,
        fit_on_grid,
        load_partition,
        make_client_app,
        make_server_app,
        save_partitions,
    )

    def _over_the_wire(content):
        """``content`` after Flower's serialization and back."""
        objects = get_all_nested_objects(content)
        blobs = {oid: obj.deflate() for oid, obj in objects.items()}
        return inflate_object_from_contents(content.object_id, blobs)

    class LoopbackGrid(Grid):
        """A Grid whose SuperNodes are ClientApp calls in this process.

        Each node has its own ``Context`` (its ``state`` persists between
        messages, as on a SuperNode); errors of the ClientApp become error
        replies, as a SuperNode sends them.
        """

        def __init__(self, client_app, node_configs):
            self.client_app = client_app
            self.contexts = {
                5000 + 11 * k: Context(
                    run_id=1, node_id=5000 + 11 * k, node_config=dict(config),
                    state=RecordDict(), run_config={},
                )
                for k, config in enumerate(node_configs)
            }
            self.outbox = {}
            self.counter = itertools.count()
            self.n_exchanges = 0

        def set_run(self, run_id):
            pass

        @property
        def run(self):
            return None

        def create_message(self, content, message_type, dst_node_id, group_id, ttl=None):
            return Message(content, dst_node_id, message_type, group_id=group_id)

        def get_node_ids(self):
            return list(self.contexts)

        def push_messages(self, messages):
            ids = []
            self.n_exchanges += 1
            for message in messages:
                message_id = f"m{next(self.counter)}"
                inbound = Message(
                    _over_the_wire(message.content), message.metadata.dst_node_id,
                    message.metadata.message_type, group_id=message.metadata.group_id,
                )
                inbound.metadata.__dict__["_message_id"] = message_id
                try:
                    reply = self.client_app(inbound, self.contexts[message.metadata.dst_node_id])
                    reply = Message(_over_the_wire(reply.content), reply_to=inbound)
                except Exception as exc:  # noqa: BLE001 - as a SuperNode does
                    reply = Message(
                        Error(code=0, reason=f"{type(exc).__name__}: {exc}"), reply_to=inbound
                    )
                self.outbox[message_id] = reply
                ids.append(message_id)
            return ids

        def pull_messages(self, message_ids):
            return [self.outbox.pop(i) for i in list(message_ids) if i in self.outbox]

        def send_and_receive(self, messages, *, timeout=None):
            return self.pull_messages(self.push_messages(messages))


@needs_flwr
@pytest.mark.parametrize("params", [dict(kernel="linear"), dict(approximation="rff"),
                                    dict(kernel="rbf", approximation=None)])
def test_flower_refuses_explicit_compression(params):
    from skfed.engines.flower import make_server_app

    with pytest.raises(ValueError, match="compression=8 .*only implemented by the "
                                         "simulated fit"):
        make_server_app(FederatedMultiTaskClassifier(compression=8, **params))


@needs_flwr
@pytest.mark.parametrize("params", [dict(kernel="linear"), dict(approximation="rff")])
def test_flower_refuses_the_multinomial_loss(params):
    from skfed.engines.flower import make_server_app

    with pytest.raises(ValueError, match="multi_class='multinomial'.*only implemented by the "
                                         "simulated fit"):
        make_server_app(FederatedMultiTaskClassifier(multi_class="multinomial", **params))


@pytest.fixture
def task_identity():
    """The server-side identity Flower's Message constructor reads."""
    saved = (TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id)
    TaskIdentity.run_id, TaskIdentity.node_id, TaskIdentity.task_id = 1, 0, 1
    yield
    TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id = saved


def _loader(X, y, groups, sample_weight=None):
    def load(context):
        rows = groups == context.node_config["node"]
        data = {"X": X[rows], "y": y[rows]}
        if sample_weight is not None:
            data["sample_weight"] = sample_weight[rows]
        return data

    return load


def flower_fit(estimator, X, y, groups, sample_weight=None):
    """Fit over a LoopbackGrid whose nodes hold the rows of each group."""
    labels = np.unique(groups)
    # SuperNodes connect in any order: give the grid the labels reversed.
    configs = [{"node": label.item(), "partition-id": k} for k, label in enumerate(labels[::-1])]
    grid = LoopbackGrid(make_client_app(estimator, _loader(X, y, groups, sample_weight),
                                        label_key="node"), configs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = fit_on_grid(estimator, grid)
    return fitted, grid


def simulated_fit(estimator, X, y, groups, sample_weight=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clone(estimator).fit(X, y, groups=groups, sample_weight=sample_weight)


def check_traffic(fitted, reference):
    """Flower's bytes against skfed's byte model, message by message."""
    traffic = fitted.flower_traffic_
    for entry in traffic.messages:
        # The itemisation covers exactly the numbers Flower moved ...
        assert sum(entry["items"].values()) == entry["payload_bytes"]
        # ... and Flower's record sizes add .npy headers and key names only.
        assert entry["record_bytes"] >= entry["payload_bytes"]
    log = reference.communication_
    model_payload = reference.n_bytes_sent_ - log.header_bytes * reference.n_messages_
    assert traffic.model_payload_bytes == model_payload
    assert fitted.flower_communication_.total_bytes == traffic.record_bytes


def make_data(n_nodes=4, n_per_node=60, d=6, seed=0):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes) * 10 + 3, n_per_node)
    X = rng.normal(size=(n_nodes * n_per_node, d))
    task = np.repeat(np.arange(n_nodes), n_per_node)
    margin = X[:, 0] + 0.6 * task * X[:, 1] - 0.3 * X[:, 2]
    y = (margin > 0).astype(int)
    y3 = np.digitize(margin, [-0.6, 0.6])
    yr = X @ np.linspace(-1, 1, d) + task * X[:, 2] + 0.1 * rng.normal(size=len(X))
    return X, y, y3, yr, groups


CASES = {
    "linear": (FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                            compression="none",
                                            kernel="linear", max_rounds=25,
                                            omega_update_every=4, random_state=0), "y"),
    "linear-multiclass": (FederatedMultiTaskClassifier(aggregation="add",
                                                       local_solver="coordinate",
                                                       compression="none", multi_class="ovr",
                                                       kernel="linear", max_rounds=12,
                                                       random_state=1), "y3"),
    "linear-regressor": (FederatedMultiTaskRegressor(aggregation="add", local_solver="coordinate",
                                                     compression="none",
                                                     kernel="linear", max_rounds=30,
                                                     omega_update_every=3, tol=1e-3,
                                                     random_state=0), "yr"),
    "nystroem": (FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                              compression="none",
                                              approximation="nystroem", n_components=25,
                                              max_rounds=15, random_state=2), "y"),
    "rff-logistic": (FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                                  compression="none",
                                                  approximation="rff", n_components=30,
                                                  loss="logistic", gamma=0.2, tol=1e-2,
                                                  max_rounds=40, random_state=3), "y"),
    "rff-regressor": (FederatedMultiTaskRegressor(aggregation="add", local_solver="coordinate",
                                                  compression="none",
                                                  approximation="rff", n_components=20,
                                                  max_rounds=15, random_state=4), "yr"),
    "faults": (FederatedMultiTaskClassifier(
        aggregation="add", local_solver="coordinate",
        compression="none", kernel="linear", max_rounds=20,
        omega_update_every=3, random_state=5,
        network=SimulatedNetwork(drop_rate=0.3, straggler_rate=0.3, random_state=0)), "y"),
    "fixed-omega": (FederatedMultiTaskClassifier(
        aggregation="add", local_solver="coordinate",
        compression="none", kernel="linear", omega=np.eye(4) + 0.5,
        max_rounds=10,
        random_state=0), "y"),
}


@needs_flwr
@pytest.mark.parametrize("case", sorted(CASES))
def test_multitask_on_flower_equals_simulation(case, task_identity):
    estimator, target = CASES[case]
    X, y, y3, yr, groups = make_data()
    y = {"y": y, "y3": y3, "yr": yr}[target]
    reference = simulated_fit(estimator, X, y, groups)
    fitted, grid = flower_fit(estimator, X, y, groups)

    exact = estimator.approximation != "nystroem"  # nystroem: gamma from pooled moments
    tight = dict(rtol=0, atol=0) if exact else dict(rtol=1e-9, atol=1e-12)
    assert fitted.n_iter_ == reference.n_iter_
    np.testing.assert_array_equal(fitted.nodes_, reference.nodes_)
    np.testing.assert_allclose(fitted.coef_, reference.coef_, **tight)
    np.testing.assert_allclose(fitted.intercept_, reference.intercept_, **tight)
    np.testing.assert_allclose(fitted.task_covariance_, reference.task_covariance_, **tight)
    np.testing.assert_allclose(fitted.omega_, reference.omega_, rtol=1e-9)
    np.testing.assert_allclose(fitted.duality_gap_curve_, reference.duality_gap_curve_,
                               rtol=1e-9, atol=1e-15)
    np.testing.assert_array_equal(fitted.n_support_, reference.n_support_)
    # skfed's byte model of the protocol: the same as in the simulation.
    assert fitted.n_bytes_sent_ == reference.n_bytes_sent_
    np.testing.assert_array_equal(fitted.bytes_per_round_, reference.bytes_per_round_)
    np.testing.assert_array_equal(fitted.communication_.pair_bytes,
                                  reference.communication_.pair_bytes)
    check_traffic(fitted, reference)
    np.testing.assert_array_equal(fitted.predict(X, groups=groups),
                                  reference.predict(X, groups=groups))
    if estimator.approximation == "nystroem":
        np.testing.assert_array_equal(fitted.components_, reference.components_)
    # One exchange per round, a hello (and the landmarks), a final one when
    # the fit stopped early, and one per gap-triggered Omega update.
    purposes = [purpose for _, _, purpose, _ in fitted.flower_traffic_.exchanges]
    assert grid.n_exchanges == len(purposes)
    assert purposes.count("round") == reference.n_iter_ + 1
    assert purposes.count("hello") == 1
    assert purposes.count("landmarks") == int(estimator.approximation == "nystroem")
    assert purposes.count("final") == int(reference.n_iter_ < estimator._max_rounds())


@needs_flwr
def test_flower_defaults_search_and_solve_exactly(task_identity):
    # At its defaults (aggregation="auto", local_solver="auto",
    # compression="auto") the linear mode runs on Flower and equals the
    # simulated fit that searches the step and solves the small nodes
    # exactly (as the simulated default does) with float64 messages: only
    # the simulated default's 8-bit messages are not run on Flower.
    X, y, _, _, groups = make_data()
    estimator = FederatedMultiTaskClassifier(kernel="linear", max_rounds=25,
                                             omega_update_every=5, random_state=0)
    fitted, _ = flower_fit(estimator, X, y, groups)
    float64 = simulated_fit(clone(estimator).set_params(compression="none"), X, y, groups)
    adding = simulated_fit(clone(estimator).set_params(
        aggregation="add", local_solver="coordinate", compression="none"), X, y, groups)
    default = simulated_fit(estimator, X, y, groups)
    np.testing.assert_allclose(fitted.coef_, float64.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fitted.duality_gap_curve_, float64.duality_gap_curve_,
                               rtol=1e-8, atol=1e-13)
    assert fitted.n_bytes_sent_ == float64.n_bytes_sent_
    assert not np.allclose(fitted.coef_, adding.coef_, rtol=1e-6, atol=0)
    assert fitted.n_bytes_sent_ > default.n_bytes_sent_  # 8-bit messages


@needs_flwr
@pytest.mark.parametrize("n_per_node, mode", [(40, None), (60, "rff")])
def test_flower_resolves_auto_mode_as_the_simulation(task_identity, n_per_node, mode):
    # approximation="auto" is resolved on Flower by the simulated fit's rule
    # at the precision of Flower's messages (float64, what compression="auto"
    # means there): the mode and feature count the simulated fit resolves
    # with compression="none" (4 nodes x 40 rows: the exact mode; x 60: 170
    # random features), and the same fit.
    X, y, _, _, groups = make_data(n_per_node=n_per_node)
    estimator = FederatedMultiTaskClassifier(max_rounds=6, omega_update_every=3,
                                             random_state=0)
    fitted, _ = flower_fit(estimator, X, y, groups)
    reference = simulated_fit(clone(estimator).set_params(compression="none"), X, y, groups)
    assert reference.approximation_ == mode
    assert fitted.approximation_ == reference.approximation_
    assert fitted.n_components_ == reference.n_components_
    assert fitted.gamma_ == pytest.approx(reference.gamma_, rel=1e-12)
    if mode is not None:
        assert fitted.n_components_ == 170
    np.testing.assert_allclose(fitted.duality_gap_curve_, reference.duality_gap_curve_,
                               rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(fitted.coef_ if mode else fitted.dual_coef_,
                               reference.coef_ if mode else reference.dual_coef_,
                               rtol=1e-9, atol=1e-12)
    assert fitted.n_bytes_sent_ == reference.n_bytes_sent_


EXACT_CASES = {
    "rbf": (FederatedMultiTaskClassifier(kernel="rbf", approximation=None, gamma=0.2, max_rounds=8,
                                         omega_update_every=3, random_state=0), "y"),
    "poly-multiclass": (FederatedMultiTaskClassifier(kernel="poly", gamma=0.3, degree=2,
                                                     loss="squared_hinge", max_rounds=6,
                                                     omega_update_every=2, random_state=1),
                        "y3"),
    "laplacian-regressor": (FederatedMultiTaskRegressor(kernel="laplacian", gamma=0.1,
                                                        max_rounds=10, omega_update_every=4,
                                                        random_state=2), "yr"),
    "rbf-early-stop": (FederatedMultiTaskRegressor(kernel="rbf", approximation=None,
                                                   gamma=0.2, tol=5e-2,
                                                   max_rounds=60, random_state=3), "yr"),
    "rbf-faults": (FederatedMultiTaskClassifier(
        kernel="rbf", approximation=None,
        gamma=0.2, max_rounds=12, omega_update_every=3, random_state=5,
        network=SimulatedNetwork(drop_rate=0.3, straggler_rate=0.3, random_state=0)), "y"),
    # Two blocks of tasks: a node needs (and gets) only its block's vectors.
    "rbf-fixed-omega": (FederatedMultiTaskClassifier(
        kernel="rbf", approximation=None,
        gamma=0.2, omega=np.kron(np.eye(2), np.ones((2, 2))) + np.eye(4),
        max_rounds=6, random_state=0), "y"),
}


@needs_flwr
@pytest.mark.parametrize("case", sorted(EXACT_CASES))
def test_exact_kernel_mode_on_flower_equals_simulation(case, task_identity):
    estimator, target = EXACT_CASES[case]
    X, y, y3, yr, groups = make_data(n_per_node=40)
    y = {"y": y, "y3": y3, "yr": yr}[target]
    reference = simulated_fit(estimator, X, y, groups)
    fitted, grid = flower_fit(estimator, X, y, groups)

    # The same model, bit for bit: the nodes' solver, margin states and
    # caches are those of the simulation, fed the same relayed changes.
    assert fitted.n_iter_ == reference.n_iter_
    np.testing.assert_array_equal(fitted.omega_, reference.omega_)
    np.testing.assert_array_equal(fitted.task_covariance_, reference.task_covariance_)
    np.testing.assert_array_equal(fitted.duality_gap_curve_, reference.duality_gap_curve_)
    np.testing.assert_array_equal(fitted.dual_coef_, reference.dual_coef_)
    np.testing.assert_array_equal(fitted.support_vectors_, reference.support_vectors_)
    np.testing.assert_array_equal(fitted.support_, reference.support_)
    np.testing.assert_array_equal(fitted.n_support_, reference.n_support_)
    np.testing.assert_array_equal(fitted.intercept_, reference.intercept_)
    X_test = np.random.RandomState(9).normal(size=(50, X.shape[1]))
    g_test = np.repeat(np.unique(groups), 50 // 4 + 1)[:50]
    method = "decision_function" if hasattr(reference, "decision_function") else "predict"
    np.testing.assert_array_equal(getattr(fitted, method)(X_test, groups=g_test),
                                  getattr(reference, method)(X_test, groups=g_test))
    # skfed's byte model: the same counts; Flower moved those bytes and more.
    assert fitted.n_bytes_sent_ == reference.n_bytes_sent_
    np.testing.assert_array_equal(fitted.bytes_per_round_, reference.bytes_per_round_)
    np.testing.assert_array_equal(fitted.communication_.pair_bytes,
                                  reference.communication_.pair_bytes)
    check_traffic(fitted, reference)
    items = fitted.flower_traffic_.item_totals()
    assert items["sv"] > 0
    purposes = [purpose for _, _, purpose, _ in fitted.flower_traffic_.exchanges]
    assert grid.n_exchanges == len(purposes)
    assert purposes.count("eval") == reference.n_iter_
    assert purposes.count("setup") == purposes.count("final") == purposes.count("hello") == 1
    if case == "rbf-early-stop":
        assert reference.n_iter_ < estimator._max_rounds()
    # The node-side state lives in each client's Context: its cache holds
    # the other nodes' support vectors it needs, each received once.
    labels = np.unique(groups)
    for context in grid.contexts.values():
        t = int(np.searchsorted(labels, context.node_config["node"]))
        arrays = context.state.array_records["skfed.exact.arrays"]
        ids = arrays["cache_ids"].numpy()
        assert len(np.unique(ids)) == len(ids)
        source = ids // 40
        assert np.all(source != t)
        if case == "rbf-fixed-omega":  # only the vectors of its own block of tasks
            assert np.all(source // 2 == t // 2)
        S = arrays["S"].numpy()
        assert S.shape == (reference.dual_coef_.shape[0] * 4, 40)


@needs_flwr
def test_exact_kernel_mode_float32_sample_weight_string_labels(task_identity):
    X, y, _, _, groups = make_data(n_per_node=30)
    X = X.astype(np.float32)
    sw = np.random.RandomState(0).uniform(0, 2, size=len(y))
    labels = np.array(["no", "yes"])[y]
    estimator = FederatedMultiTaskClassifier(kernel="rbf", approximation=None,
                                             gamma=0.2, loss="logistic",
                                             max_rounds=5, omega_update_every=2,
                                             random_state=0)
    reference = simulated_fit(estimator, X, labels, groups, sample_weight=sw)
    fitted, _ = flower_fit(estimator, X, labels, groups, sample_weight=sw)
    assert fitted.support_vectors_.dtype == np.float32
    np.testing.assert_array_equal(fitted.dual_coef_, reference.dual_coef_)
    np.testing.assert_array_equal(fitted.omega_, reference.omega_)
    np.testing.assert_array_equal(fitted.predict_proba(X, groups=groups),
                                  reference.predict_proba(X, groups=groups))
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.predict(X, groups=groups),
                                  reference.predict(X, groups=groups))
    assert fitted.n_bytes_sent_ == reference.n_bytes_sent_
    check_traffic(fitted, reference)


@needs_flwr
def test_exact_kernel_mode_gamma_scale_on_flower(task_identity):
    # gamma="scale" comes from the nodes' pooled moments (Chan's update), so
    # it may differ from the pooled variance in the last bits.
    X, y, _, _, groups = make_data(n_per_node=40)
    estimator = FederatedMultiTaskClassifier(kernel="rbf", approximation=None,
                                             max_rounds=6, random_state=0)
    reference = simulated_fit(estimator, X, y, groups)
    fitted, _ = flower_fit(estimator, X, y, groups)
    assert fitted.n_iter_ == reference.n_iter_
    np.testing.assert_allclose(fitted.omega_, reference.omega_, rtol=1e-9)
    np.testing.assert_allclose(fitted.decision_function(X, groups=groups),
                               reference.decision_function(X, groups=groups),
                               rtol=1e-9, atol=1e-12)
    assert abs(fitted.n_bytes_sent_ - reference.n_bytes_sent_) <= 0.01 * reference.n_bytes_sent_


@needs_flwr
def test_early_stop_rolls_back_the_speculative_round(task_identity):
    # Squared loss converges within max_rounds: the last speculative local
    # solves are discarded, and the model equals the simulated one.
    X, _, _, yr, groups = make_data(seed=3)
    estimator = FederatedMultiTaskRegressor(aggregation="add", local_solver="coordinate",
                                            compression="none",
                                            kernel="linear", tol=1e-1,
                                            omega_update_every=50, random_state=0)
    reference = simulated_fit(estimator, X, yr, groups)
    assert reference.n_iter_ < estimator._max_rounds()
    fitted, grid = flower_fit(estimator, X, yr, groups)
    assert fitted.n_iter_ == reference.n_iter_
    np.testing.assert_array_equal(fitted.coef_, reference.coef_)
    np.testing.assert_array_equal(fitted.task_covariance_, reference.task_covariance_)
    items = fitted.flower_traffic_.item_totals()
    n_cols = X.shape[1] + 1
    # The discarded solves: one model change per node (and per gap-triggered
    # Omega update).
    assert items["dv_discarded"] % (len(np.unique(groups)) * n_cols * 8) == 0
    assert items["dv_discarded"] > 0
    check_traffic(fitted, reference)


@needs_flwr
def test_sample_weight_float32_and_string_labels(task_identity):
    X, y, _, _, groups = make_data(seed=1)
    labels = np.array([f"user-{g}" for g in groups])
    weights = np.random.RandomState(0).uniform(0.2, 3.0, size=len(y))
    estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                             compression="none",
                                             kernel="linear", loss="squared_hinge",
                                             max_rounds=10, random_state=0)
    X32 = X.astype(np.float32)
    reference = simulated_fit(estimator, X32, y, labels, weights)
    fitted, _ = flower_fit(estimator, X32, y, labels, weights)
    np.testing.assert_array_equal(fitted.nodes_, reference.nodes_)
    assert fitted.coef_.dtype == np.float32
    np.testing.assert_array_equal(fitted.coef_, reference.coef_)
    np.testing.assert_array_equal(fitted.task_covariance_, reference.task_covariance_)
    # omega_ = inv(task_covariance_): LAPACK may round differently by alignment.
    np.testing.assert_allclose(fitted.omega_, reference.omega_, rtol=1e-12)
    check_traffic(fitted, reference)


@needs_flwr
def test_flower_fitted_estimator_predicts_scores_and_pickles(task_identity):
    X, y, _, _, groups = make_data(seed=2)
    estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                             compression="none",
                                            kernel="linear", loss="logistic",
                                             max_rounds=8, random_state=0)
    reference = simulated_fit(estimator, X, y, groups)
    fitted, _ = flower_fit(estimator, X, y, groups)
    assert fitted.score(X, y, groups=groups) == reference.score(X, y, groups=groups)
    np.testing.assert_allclose(fitted.predict_proba(X, groups=groups),
                               reference.predict_proba(X, groups=groups), rtol=1e-12)
    # An unseen node gets the average model, as after fit.
    unseen = np.full(len(y), -1)
    np.testing.assert_array_equal(fitted.predict(X, groups=unseen),
                                  reference.predict(X, groups=unseen))
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.decision_function(X, groups=groups),
                                  fitted.decision_function(X, groups=groups))
    assert "dv" in again.flower_traffic_.item_totals()
    # The dual variables stay on the nodes; their number per node is reported.
    assert fitted.dual_coef_.shape == (1, 0)
    assert fitted.n_support_.sum() == reference.n_support_.sum() > 0
    assert reference.n_support_.sum() == reference._node_duals[1].shape[1]  # (store34)


@needs_flwr
def test_group_column_gives_the_node_label(task_identity):
    X, y, _, _, groups = make_data(seed=4)
    Xg = np.column_stack([groups, X])
    estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                             compression="none",
                                            kernel="linear", group_column=0,
                                             max_rounds=6, random_state=0)
    reference = simulated_fit(estimator, Xg, y, None)
    # Nodes know nothing but their rows (with the node-id column).
    configs = [{"partition-id": k} for k in range(4)]
    labels = np.unique(groups)

    def load(context):
        rows = groups == labels[context.node_config["partition-id"]]
        return Xg[rows], y[rows]

    grid = LoopbackGrid(make_client_app(estimator, load), configs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = fit_on_grid(estimator, grid)
    np.testing.assert_array_equal(fitted.nodes_, labels)
    assert fitted.n_features_in_ == Xg.shape[1]
    np.testing.assert_array_equal(fitted.coef_, reference.coef_)
    np.testing.assert_array_equal(fitted.predict(Xg), reference.predict(Xg))


@needs_flwr
def test_dataframes_on_the_nodes_give_feature_names(task_identity):
    pd = pytest.importorskip("pandas")
    X, y, _, _, groups = make_data(seed=5)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                             compression="none",
                                             kernel="linear", max_rounds=4, random_state=0)
    reference = simulated_fit(estimator, frame, y, groups)

    def load(context):
        rows = groups == context.node_config["node"]
        return frame[rows], y[rows]

    grid = LoopbackGrid(make_client_app(estimator, load, label_key="node"),
                        [{"node": int(label)} for label in np.unique(groups)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = fit_on_grid(estimator, grid)
    np.testing.assert_array_equal(fitted.feature_names_in_, reference.feature_names_in_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no feature-name warning at predict time
        np.testing.assert_array_equal(fitted.predict(frame, groups=groups),
                                      reference.predict(frame, groups=groups))


# ------------------------------------------------------- support recovery
def sparse_clients(n_clients=9, seed=0):
    from skfed.datasets import make_federated_sparse_regression

    return make_federated_sparse_regression(
        n_clients=n_clients, n_samples=120, n_features=40, n_informative=4,
        random_state=seed,
    )


def _regression_arrays(data):
    X, y, groups = data[0], data[1], data[2]
    return np.asarray(X), np.asarray(y), np.asarray(groups)


@needs_flwr
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"alpha": 0.25, "fit_intercept": False},
        {"alpha": "per-node"},
        {"network": "faults"},
        {"sparse": True},
    ],
    ids=["auto", "fixed", "per-node", "faults", "sparse"],
)
def test_support_recovery_on_flower_equals_simulation(params, task_identity):
    from scipy import sparse

    X, y, groups = _regression_arrays(sparse_clients())
    params = dict(params)
    n_nodes = len(np.unique(groups))
    if params.get("alpha") == "per-node":
        params["alpha"] = np.linspace(0.15, 0.35, n_nodes)
    if params.pop("network", None) == "faults":
        params["network"] = SimulatedNetwork(drop_rate=0.2, straggler_rate=0.1,
                                             rogue_fraction=0.25, random_state=3)
    if params.pop("sparse", False):
        X = sparse.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
    estimator = FederatedSupportRecovery(**params)
    reference = clone(estimator).fit(X, y, groups=groups)
    fitted, grid = flower_fit(estimator, X, y, groups)
    for name in ("support_", "votes_", "vote_fraction_", "client_supports_", "answered_",
                 "rogue_", "bytes_per_round_"):
        np.testing.assert_array_equal(getattr(fitted, name), getattr(reference, name))
    assert fitted.n_answered_ == reference.n_answered_
    assert grid.n_exchanges == 2  # hello, then the one-shot query
    check_traffic(fitted, reference)
    # Exactly ceil(d / 8) bytes of bits per answering client, as in the model.
    assert fitted.flower_traffic_.item_totals().get("bits", 0) == (
        reference.n_answered_ * ((X.shape[1] + 7) // 8)
    )
    assert fitted.transform(X).shape == (X.shape[0], int(reference.support_.sum()))



@needs_flwr
def test_support_neighbour_sketch_on_flower_equals_simulation(task_identity):
    # Clients of 10 samples (< d + 4, d > 20 x 10) send the neighbour stage's sketch; each
    # computes its coefficients alone and gets the simulated fit's bits.
    rng = np.random.default_rng(0)
    d, n, g = 250, 10, 300  # very wide clients (d > 20 x 10): they send sketches
    X = rng.standard_normal((g * n, d))
    for j in range(1, d):
        X[:, j] = 0.5 * X[:, j - 1] + np.sqrt(0.75) * X[:, j]
    y = 3 * X[:, 10] + 3 * X[:, 11] + rng.standard_normal(g * n)
    groups = np.repeat(np.arange(g), n)
    estimator = FederatedSupportRecovery(random_state=0)
    reference = clone(estimator).fit(X, y, groups=groups)
    fitted, _ = flower_fit(estimator, X, y, groups)
    assert (reference.explained_by_ >= 0).sum() >= 2  # the stage re-tested
    for name in ("support_", "votes_", "pvalues_", "explained_by_",
                 "neighbour_reference_rate_", "bytes_per_round_"):
        np.testing.assert_array_equal(getattr(fitted, name), getattr(reference, name))
    np.testing.assert_array_equal(fitted._sketch_rows, reference._sketch_rows)
    check_traffic(fitted, reference)
    assert fitted.flower_traffic_.item_totals().get("sketch", 0) == g * ((d + 7) // 8)


@needs_flwr
@pytest.mark.parametrize("network", [None, "faults"])
def test_support_tested_bits_on_flower_equal_simulation(network, task_identity):
    # A feature constant on half the clients: they drop it (the OLS pivot)
    # or find its t undefined (the partial rule), and send their tested bits.
    X, y, groups = _regression_arrays(sparse_clients())
    X = X.copy()
    nodes = np.unique(groups)
    X[np.isin(groups, nodes[::2]), 3] = 1.0
    params = dict(random_state=5)
    if network == "faults":
        params["network"] = SimulatedNetwork(drop_rate=0.2, straggler_rate=0.1,
                                             rogue_fraction=0.25, random_state=3)
    estimator = FederatedSupportRecovery(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reference = clone(estimator).fit(X, y, groups=groups)
        fitted, grid = flower_fit(estimator, X, y, groups)
    assert reference.n_reports_[3] < reference.n_answered_
    for name in ("support_", "votes_", "n_reports_", "vote_fraction_", "client_supports_",
                 "answered_", "rogue_", "bytes_per_round_", "pvalues_",
                 "feature_reference_rate_"):
        np.testing.assert_array_equal(getattr(fitted, name), getattr(reference, name))
    check_traffic(fitted, reference)
    senders = np.isin(np.arange(len(nodes)), np.flatnonzero(reference.answered_))
    dropping = senders & np.isin(nodes, nodes[::2])
    assert fitted.flower_traffic_.item_totals().get("tested", 0) == (
        int(dropping.sum()) * ((X.shape[1] + 7) // 8))


@needs_flwr
@pytest.mark.parametrize("network", [None, "faults"])
def test_support_sign_vote_on_flower_equals_simulation(network, task_identity):
    # vote="sign": every client's sign bits, the coins of a feature constant
    # on some clients (drawn from the fit's seed and the node index), the
    # counts, band and support equal the simulated fit's
    X, y, groups = _regression_arrays(sparse_clients())
    X = X.copy()
    nodes = np.unique(groups)
    X[np.isin(groups, nodes[::2]), 3] = 1.0  # constant on half the clients
    params = dict(vote="sign", random_state=5)
    if network == "faults":
        params["network"] = SimulatedNetwork(drop_rate=0.2, straggler_rate=0.1,
                                             rogue_fraction=0.25, random_state=3)
    estimator = FederatedSupportRecovery(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reference = clone(estimator).fit(X, y, groups=groups)
        fitted, grid = flower_fit(estimator, X, y, groups)
    for name in ("support_", "votes_", "vote_fraction_", "client_supports_", "answered_",
                 "rogue_", "bytes_per_round_", "pvalues_"):
        np.testing.assert_array_equal(getattr(fitted, name), getattr(reference, name))
    assert fitted.sign_band_ == reference.sign_band_
    # the constant feature's bits are coins: not all equal
    coins = reference.client_supports_[np.isin(nodes, nodes[::2]) & reference.answered_, 3]
    assert 0 < coins.sum() < len(coins)
    assert grid.n_exchanges == 2
    check_traffic(fitted, reference)
    assert fitted.flower_traffic_.item_totals().get("bits", 0) == (
        reference.n_answered_ * ((X.shape[1] + 7) // 8)
    )


# ---------------------------------------------------------------- errors
@needs_flwr
def test_node_errors_reach_the_server(task_identity):
    X, y, _, _, groups = make_data()
    weights = np.ones(len(y))
    weights[groups == groups[-1]] = -1.0
    estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                             compression="none",
                                             kernel="linear", max_rounds=3, random_state=0)
    with pytest.raises(FlowerRunError, match="sample_weight must be non-negative"):
        flower_fit(estimator, X, y, groups, weights)


@needs_flwr
def test_duplicate_node_labels_are_refused(task_identity):
    X, y, _, _, groups = make_data()
    estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                             compression="none",
                                            kernel="linear", random_state=0)
    rows = groups == groups[0]
    grid = LoopbackGrid(make_client_app(estimator, lambda context: (X[rows], y[rows]),
                                        label_key="node"), [{"node": 1}, {"node": 1}])
    with pytest.raises(FlowerRunError, match="same node label"):
        fit_on_grid(estimator, grid)


@needs_flwr
def test_unsupported_estimators_and_modes():
    from skfed.baselines import LocalEstimator
    from sklearn.linear_model import LogisticRegression

    # The exact kernel mode has a Flower protocol now.
    make_server_app(FederatedMultiTaskClassifier(kernel="rbf", approximation=None))
    make_client_app(FederatedMultiTaskClassifier(kernel="rbf", approximation=None))
    with pytest.raises(TypeError, match="no Flower protocol"):
        make_server_app(LocalEstimator(LogisticRegression()))


@needs_flwr
def test_save_and_load_partitions(tmp_path):
    X, y, _, _, groups = make_data()
    paths = save_partitions(X, y, groups, tmp_path)
    assert len(paths) == 4

    class FakeContext:
        node_config = {"data-path": paths[2]}

    data = load_partition(FakeContext())
    rows = groups == np.unique(groups)[2]
    np.testing.assert_array_equal(data["X"], X[rows])
    assert data["node"] == np.unique(groups)[2]
    FakeContext.node_config = {}
    with pytest.raises(KeyError, match="data-path"):
        load_partition(FakeContext())


# ------------------------------------------------------ real deployment
APP_PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "{project}"
version = "1.0.0"
description = "skfed on Flower (test app)"
license = "BSD-3-Clause"
dependencies = []

[tool.hatch.build.targets.wheel]
packages = ["."]

[tool.flwr.app]
publisher = "skfed"

[tool.flwr.app.components]
serverapp = "{name}.app:server"
clientapp = "{name}.app:client"

[tool.flwr.app.config]
skfed-output = ""
skfed-min-nodes = 1
"""

APP_MODULE = """\
from functools import partial

from skfed.engines.flower import load_partition, make_client_app, make_server_app
from skfed.multitask import FederatedMultiTaskClassifier
from skfed.support import FederatedSupportRecovery

estimator = {estimator}
server = make_server_app(estimator)
client = make_client_app(estimator, partial(load_partition, key={key!r}))
"""


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port, deadline, process, log):
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process exited early:\n{_tail(log)}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"port {port} not open in time:\n{_tail(log)}")


def _tail(path, n=40):
    try:
        with open(path) as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


class LoopbackDeployment:
    """A SuperLink and SuperNodes on 127.0.0.1, started and stopped by the test."""

    def __init__(self, root, node_configs):
        self.root = root
        self.node_configs = node_configs
        self.processes = []
        self.logs = []
        home = root / "flwr-home"
        home.mkdir()
        self.port = _free_port()
        (home / "config.toml").write_text(
            '[superlink]\ndefault = "skfed-test"\n\n[superlink.skfed-test]\n'
            f'address = "127.0.0.1:{self.port}"\ninsecure = true\n'
        )
        self.env = dict(
            os.environ,
            # The Flower commands of this interpreter's environment first:
            # another environment's flwr would run the apps without skfed.
            PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]),
            FLWR_HOME=str(home),
            FLWR_TELEMETRY_ENABLED="0",
            FLWR_DISABLE_UPDATE_CHECK="1",
            FLWR_SUPEREXEC_TASK_POLL_INTERVAL="0.05",
            OMP_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
        )

    def _start(self, name, command):
        log = self.root / f"{name}.log"
        handle = open(log, "w")
        process = subprocess.Popen(
            command, stdout=handle, stderr=subprocess.STDOUT, env=self.env,
            start_new_session=True, cwd=self.root,
        )
        handle.close()
        self.processes.append(process)
        self.logs.append(log)
        return process, log

    def start(self, timeout=60):
        deadline = time.monotonic() + timeout
        superlink, log = self._start("superlink", [
            "flower-superlink", "--insecure", "--host", "127.0.0.1", "--port", str(self.port),
            "--disable-runtime-dependency-installation",
        ])
        _wait_for_port(self.port, deadline, superlink, log)
        for k, config in enumerate(self.node_configs):
            node_port = _free_port()
            self._start(f"supernode-{k}", [
                "flower-supernode", "--insecure", "--superlink", f"127.0.0.1:{self.port}",
                "--host", "127.0.0.1", "--port", str(node_port), "--node-config", config,
                "--max-wait-time", str(timeout),
            ])

    def run(self, app_dir, output, timeout):
        result = subprocess.run(
            ["flwr", "run", str(app_dir), "skfed-test", "--stream", "--run-config",
             f"skfed-output='{output}' skfed-min-nodes={len(self.node_configs)}"],
            env=self.env, cwd=self.root, capture_output=True, text=True, timeout=timeout,
        )
        if not os.path.exists(output):
            raise AssertionError(
                f"flwr run produced no model (exit {result.returncode}):\n{result.stdout[-3000:]}"
                f"\n{result.stderr[-3000:]}\n" + "\n".join(_tail(log) for log in self.logs)
            )
        import joblib

        return joblib.load(output)

    def stop(self):
        for process in self.processes:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        for process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout=5)


def _write_app(root, name, estimator_source, key):
    app = root / name
    package = app / name
    package.mkdir(parents=True)
    (app / "pyproject.toml").write_text(
        APP_PYPROJECT.format(name=name, project=name.replace("_", "-"))
    )
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text(APP_MODULE.format(estimator=estimator_source, key=key))
    return app


def _estimator_source(estimator):
    """The app's constructor call, written from the reference's own parameters.

    Written by hand the two drifted apart: the module's wrappers pin
    ``loss="squared_hinge", omega="learn"`` while an app built on the public
    class got its defaults (logistic loss), and the deployment's Omega
    (diagonal 3.84) differed from the reference's (3.53) for that reason alone.
    """
    params = ", ".join(f"{name}={value!r}" for name, value in
                       sorted(estimator.get_params(deep=False).items()))
    return f"{type(estimator).__name__}({params})"


@needs_flwr
def test_real_deployment_equals_simulation(tmp_path):
    """SuperLink + 3 SuperNodes on loopback; MOCHA on 3 HAR users, then support recovery."""
    import shutil

    from skfed.datasets import load_har

    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    for tool in ("flower-superlink", "flower-supernode", "flwr"):
        if shutil.which(tool, path=path) is None:
            pytest.skip(f"{tool} is not on PATH")
    X, y, groups = load_har(task="sitting", return_X_y=True)
    users = np.unique(groups)[:3]
    keep = np.isin(groups, users)
    X, y, groups = X[keep], y[keep], groups[keep]
    har_paths = save_partitions(X, y, groups, tmp_path / "har")
    Xs, ys, gs = _regression_arrays(sparse_clients(n_clients=3, seed=7))
    sparse_paths = save_partitions(Xs, ys, gs, tmp_path / "sparse")
    configs = [f'har-path="{a}" sparse-path="{b}"' for a, b in zip(har_paths, sparse_paths)]

    # Two rounds, an Omega update after each: 4 exchanges (hello, 3 rounds of
    # messages); every exchange costs a few seconds (SuperNodes poll every
    # 3 s and start a fresh ClientApp process per message).
    mocha_estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                                   compression="none",
                                                   kernel="linear", C=1.0, max_rounds=2,
                                                   omega_update_every=1, random_state=0)
    mocha_source = _estimator_source(mocha_estimator)
    # The exact kernel mode: one round and an Omega update (6 exchanges:
    # hello, setup, round, eval, omega, final).
    exact_estimator = FederatedMultiTaskClassifier(kernel="rbf", approximation=None,
                                                   gamma=0.01, C=1.0,
                                                   max_rounds=1, omega_update_every=1,
                                                   random_state=0)
    exact_source = _estimator_source(exact_estimator)
    support_source = "FederatedSupportRecovery(alpha='auto')"
    exact_app = _write_app(tmp_path, "skfed_exact_app", exact_source, "har-path")
    mocha_app = _write_app(tmp_path, "skfed_mocha_app", mocha_source, "har-path")
    support_app = _write_app(tmp_path, "skfed_support_app", support_source, "sparse-path")

    # The timeouts only stop a hung deployment: alone each run takes under a
    # minute, on a machine shared by many jobs several minutes.
    deployment = LoopbackDeployment(tmp_path, configs)
    try:
        deployment.start()
        mocha = deployment.run(mocha_app, tmp_path / "mocha.joblib", timeout=600)
        support = deployment.run(support_app, tmp_path / "support.joblib", timeout=400)
        exact = deployment.run(exact_app, tmp_path / "exact.joblib", timeout=600)
    finally:
        deployment.stop()

    # The SuperNodes run with one BLAS thread, and the float32 kernel blocks
    # (one sgemm each) round according to BLAS's threading: so does the
    # reference.
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        exact_reference = simulated_fit(exact_estimator, X, y, groups)
    assert exact.n_iter_ == exact_reference.n_iter_ == 1
    purposes = [purpose for _, _, purpose, _ in exact.flower_traffic_.exchanges]
    assert purposes == ["hello", "setup", "round", "eval", "omega", "final"]
    np.testing.assert_array_equal(exact.omega_, exact_reference.omega_)
    np.testing.assert_array_equal(exact.dual_coef_, exact_reference.dual_coef_)
    np.testing.assert_array_equal(exact.support_vectors_, exact_reference.support_vectors_)
    np.testing.assert_array_equal(exact.decision_function(X, groups=groups),
                                  exact_reference.decision_function(X, groups=groups))
    assert exact.n_bytes_sent_ == exact_reference.n_bytes_sent_
    check_traffic(exact, exact_reference)

    reference = simulated_fit(mocha_estimator, X, y, groups)
    assert mocha.n_iter_ == reference.n_iter_ == 2
    assert len(mocha.flower_traffic_.exchanges) == 4
    assert mocha.flower_traffic_.item_totals()["w_before_omega"] > 0
    np.testing.assert_array_equal(mocha.nodes_, users)
    np.testing.assert_array_equal(mocha.coef_, reference.coef_)
    np.testing.assert_array_equal(mocha.intercept_, reference.intercept_)
    np.testing.assert_array_equal(mocha.task_covariance_, reference.task_covariance_)
    np.testing.assert_allclose(mocha.omega_, reference.omega_, rtol=1e-12)
    np.testing.assert_array_equal(mocha.n_support_, reference.n_support_)
    assert mocha.score(X, y, groups=groups) == reference.score(X, y, groups=groups)
    assert mocha.n_bytes_sent_ == reference.n_bytes_sent_
    check_traffic(mocha, reference)

    support_reference = FederatedSupportRecovery(alpha="auto").fit(Xs, ys, groups=gs)
    np.testing.assert_array_equal(support.support_, support_reference.support_)
    np.testing.assert_array_equal(support.votes_, support_reference.votes_)
    check_traffic(support, support_reference)
