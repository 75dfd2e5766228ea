"""Real client/server federated runs of skfed estimators on Flower.

``pip install ".[flower]"`` (Flower 1.41.0: ``flwr==1.42.0`` pins a
``certifi`` newer than some package indexes serve, so the extra pins the
release that installs everywhere).

A configured skfed estimator becomes a Flower ``ClientApp`` and a
``ServerApp``; each SuperNode holds its own data, runs skfed's Cython node
solver on it and keeps its state between rounds in the Flower ``Context``;
the ServerApp runs the same rounds as the estimator's simulated ``fit``
and returns a fitted estimator (``predict``/``score`` work as after
``fit``), with the same ``communication_`` (skfed's byte model of the
protocol) plus ``flower_communication_`` and ``flower_traffic_``: the
bytes Flower itself counted in the records it moved.

Supported estimators

* :class:`~skfed.multitask.FederatedMultiTaskClassifier` and
  :class:`~skfed.multitask.FederatedMultiTaskRegressor` in their primal
  modes: ``kernel="linear"`` (MOCHA), ``approximation="nystroem"`` and
  ``approximation="rff"``.  Every round the server sends each node its
  model ``w_t`` (and ``sigma_tt``, ``rho`` when they changed), the node
  answers with the change of ``v_t`` and its duality-gap terms; ``Omega``
  is updated at the server.  In the exact kernel mode (support-vector
  exchange, ``skfed.engines._flower_exact``) each node keeps its dual
  variables, margin states and received support vectors in its
  ``Context``, and the server relays new support vectors and dual changes.
* :class:`~skfed.support.FederatedSupportRecovery`: one query round, each
  client answers with its packed support bits, the server takes the vote.

How a run matches the simulation
--------------------------------
The server draws everything the simulated fit draws, from the same
``random_state`` and in the same order (per-node seeds, the network's
faults, Nystroem landmarks, random Fourier features), so a Flower run and
``fit`` on the pooled data give the same model.  Faults of a
``network=SimulatedNetwork(...)`` are *replayed*: a node the simulation
drops in a round does not train in that round.

The stopping rule of the simulation uses the duality gap after every
round, which in a deployment is the sum of the nodes' reports.  To keep
one message exchange per round, the node reports the gap terms of the
model it receives and then runs the next round's local solve
*speculatively*; when the server learns from those terms that the fit has
converged (or that ``Omega`` must be updated before the next round), the
nodes roll the speculative round back.  So a fit of ``n_iter_`` rounds
costs ``n_iter_ + 1`` exchanges (plus one to say hello, one more for the
Nystroem landmarks, and one per gap-triggered Omega update), and moves
exactly the model vectors, updates, ``Sigma`` entries, gap terms and
landmarks that skfed's byte model counts, plus: the discarded speculative
update, the pre-update model on rounds with an Omega update, the per-node
seeds and landmark picks, and small control values (all itemised in
``flower_traffic_``).

Running it
----------
Write a Flower App whose components are built here, e.g. ``app.py``::

    from skfed.engines.flower import make_client_app, make_server_app
    from skfed.multitask import FederatedMultiTaskClassifier

    estimator = FederatedMultiTaskClassifier(kernel="linear", random_state=0)
    server = make_server_app(estimator)
    client = make_client_app(estimator)   # reads node_config["data-path"]

then start a SuperLink, one SuperNode per data partition (written by
:func:`save_partitions`) and ``flwr run``; see ``doc/engines.rst``.
"""

import numbers
import time
import warnings

import numpy as np
from sklearn.base import clone, is_classifier

from . import require_extra

require_extra("flower")

from flwr.app import (  # noqa: E402
    ArrayRecord,
    ConfigRecord,
    Context,
    Message,
    RecordDict,
)
from flwr.clientapp import ClientApp  # noqa: E402
from flwr.serverapp import Grid, ServerApp  # noqa: E402

from . import _flower_multitask, _flower_support  # noqa: E402
from .._join_params import record_join_params  # noqa: E402
from ._flower_records import HELLO, _arrays_of, _config_of  # noqa: E402
from ._nodes import check_seconds, node_error  # noqa: E402
from ._partitions import read_partition, save_partitions  # noqa: E402

__all__ = [
    "make_client_app",
    "make_server_app",
    "fit_on_grid",
    "save_partitions",
    "load_partition",
    "FLOWER_REQUIREMENT",
]

FLOWER_REQUIREMENT = "flwr==1.41.0"

# Items of skfed's byte model, by the names the traffic log uses.
MODEL_ITEMS = frozenset(
    {"w", "sigma", "dv", "gap", "ls_step", "ls_scale", "ls_conj", "stats", "gamma",
     "landmarks", "bits", "tested", "sketch", "sv", "gram"}
)


# ----------------------------------------------------------------- data
def load_partition(context, key="data-path"):
    """The default data loader of :func:`make_client_app`.

    Reads the ``.npz`` file named by ``context.node_config[key]`` (as
    written by :func:`save_partitions`).

    Returns
    -------
    data : dict
        ``X``, ``y``, and ``sample_weight`` and ``node`` when present.
    """
    try:
        path = context.node_config[key]
    except KeyError:
        raise KeyError(
            f"This SuperNode has no {key!r} in its node config; start it with "
            f"--node-config '{key}=\"/path/to/node.npz\"' or give make_client_app "
            "a load_data function."
        ) from None
    return read_partition(path)


def _python_scalar(value):
    value = value.item() if hasattr(value, "item") else value
    if not isinstance(value, (bool, int, float, str)):
        raise TypeError(
            f"Node labels must be integers or strings to travel in Flower records; "
            f"got {type(value).__name__}."
        )
    return value


class _NodeData:
    """This node's validated data, as the estimator's own ``fit`` sees it."""

    def __init__(self, estimator, load_data, context, label_key, *, sparse=False):
        loaded = load_data(context)
        if isinstance(loaded, dict):
            X, y = loaded["X"], loaded["y"]
            sample_weight = loaded.get("sample_weight")
            label = loaded.get("node")
        else:
            X, y, *rest = loaded
            sample_weight = rest[0] if rest else None
            label = None
        est = clone(estimator)
        n = X.shape[0]
        groups = None if est.group_column is not None else np.zeros(n, dtype=np.intp)
        regressor = not is_classifier(est)
        # The simulated fit's checks and messages, prefixed with the node's
        # label when it is known before them (as the MPI engine does).
        # (with group_column, the node's label is read from its data, after them)
        known = label
        if known is None and est.group_column is None:
            known = dict(getattr(context, "node_config", None) or {}).get(label_key)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                X, y, sample_weight, _ = est._validate_fit_data(
                    X, y, groups, sample_weight,
                    accept_sparse=["csr", "csc"] if sparse else False,
                    y_numeric=regressor,
                )
        except (ValueError, TypeError) as exc:
            if known is None:
                raise
            raise node_error(known, exc) from exc
        if est.group_column is not None:
            if len(est.nodes_) != 1:
                raise ValueError(
                    f"The data of this SuperNode hold {len(est.nodes_)} node ids in "
                    f"group_column={est.group_column!r}; a SuperNode is one node."
                )
            label = est.nodes_[0]
        elif label is None:
            try:
                label = context.node_config[label_key]
            except KeyError:
                raise KeyError(
                    f"No node label: the data have no 'node' entry and the node "
                    f"config has no {label_key!r}."
                ) from None
        self.label = _python_scalar(label)
        self.X = X
        self.y = y
        self.sample_weight = sample_weight
        self.n_features_in = int(est.n_features_in_)
        names = getattr(est, "feature_names_in_", None)
        self.feature_names = None if names is None else [str(v) for v in names]


# ------------------------------------------------------------ records
def _raw_bytes(record_dict):
    """Bytes of the numbers in a RecordDict: array data and config values."""
    total = 0
    for record in record_dict.values():
        if isinstance(record, ArrayRecord):
            total += sum(int(np.prod(a.shape, dtype=np.int64)) * np.dtype(a.dtype).itemsize
                         for a in record.values())
        else:
            total += record.count_bytes() - sum(len(k) for k in record.keys())
    return total


def _record_bytes(record_dict):
    """Flower's own count of a RecordDict (``count_bytes`` of every record)."""
    return sum(record.count_bytes() for record in record_dict.values())


# ------------------------------------------------------------ traffic
class FlowerTraffic:
    """What a Flower run moved, message by message, as Flower counted it.

    Attributes
    ----------
    messages : list of dict
        One entry per message: ``kind`` (the message type), ``round``
        (skfed round the message belongs to, -1 for hello/setup),
        ``node`` (index into ``nodes_``), ``direction`` (``"down"``:
        server to node, ``"up"``), ``record_bytes`` (Flower's
        ``count_bytes`` of the message's records: array data with its
        ``.npy`` header plus key names, config values), ``payload_bytes``
        (the numbers alone) and ``items`` (``payload_bytes`` split by what
        they carry; the names in :data:`MODEL_ITEMS` are what skfed's byte
        model counts).
    exchanges : list of tuple
        ``(kind, round, purpose, seconds)`` of every message exchange (the
        server sends to some nodes and waits for all their answers;
        ``seconds`` is its wall time).
    """

    def __init__(self):
        self.messages = []
        self.exchanges = []

    def add(self, kind, round_, node, direction, content, items=None):
        """Log one message; ``items`` names part of its payload, the rest is control."""
        payload = _raw_bytes(content)
        items = {k: int(v) for k, v in (items or {}).items() if v}
        rest = payload - sum(items.values())
        if rest < 0:
            raise AssertionError(
                f"{kind}: items {items} exceed the message's {payload} payload bytes."
            )
        if rest:
            items["control"] = items.get("control", 0) + rest
        entry = {
            "kind": kind,
            "round": int(round_),
            "node": int(node),
            "direction": direction,
            "record_bytes": _record_bytes(content),
            "payload_bytes": payload,
            "items": items,
        }
        self.messages.append(entry)
        return entry

    @staticmethod
    def relabel(entry, old, new, nbytes=None):
        """Move ``nbytes`` (default: all) of item ``old`` of a logged message to ``new``."""
        items = entry["items"]
        value = items.get(old, 0) if nbytes is None else int(nbytes)
        if value <= 0:
            return
        if items.get(old, 0) < value:
            raise AssertionError(f"cannot move {value} bytes of {old!r} in {items}")
        items[old] -= value
        if not items[old]:
            del items[old]
        items[new] = items.get(new, 0) + value

    def item_totals(self):
        """Total bytes of every item over the run."""
        totals = {}
        for entry in self.messages:
            for name, value in entry["items"].items():
                totals[name] = totals.get(name, 0) + value
        return totals

    @property
    def model_payload_bytes(self):
        """Bytes of the items skfed's byte model counts."""
        return sum(v for k, v in self.item_totals().items() if k in MODEL_ITEMS)

    @property
    def payload_bytes(self):
        return sum(entry["payload_bytes"] for entry in self.messages)

    @property
    def record_bytes(self):
        return sum(entry["record_bytes"] for entry in self.messages)

    def log(self, node_labels):
        """A :class:`~skfed.network.CommunicationLog` of Flower's record bytes."""
        from ..network import CommunicationLog

        m = len(node_labels)
        rounds = [e["round"] for e in self.messages]
        n_rounds = max(rounds) + 1 if rounds else 0
        pair_bytes = np.zeros((m + 1, m + 1), dtype=np.int64)
        pair_messages = np.zeros((m + 1, m + 1), dtype=np.int64)
        round_bytes = np.zeros(max(n_rounds, 1), dtype=np.int64)
        round_messages = np.zeros(max(n_rounds, 1), dtype=np.int64)
        for e in self.messages:
            src, dst = (m, e["node"]) if e["direction"] == "down" else (e["node"], m)
            pair_bytes[src, dst] += e["record_bytes"]
            pair_messages[src, dst] += 1
            r = max(e["round"], 0)
            round_bytes[r] += e["record_bytes"]
            round_messages[r] += 1
        return CommunicationLog(
            pair_bytes, pair_messages, round_bytes[:n_rounds] if n_rounds else round_bytes[:0],
            round_messages[:n_rounds] if n_rounds else round_messages[:0],
            node_labels=node_labels, has_server=True, header_bytes=0,
        )

    def summary(self):
        totals = self.item_totals()
        lines = [
            f"{len(self.messages)} Flower messages, {self.record_bytes} record bytes "
            f"({self.payload_bytes} payload)"
        ]
        for name in sorted(totals):
            tag = "" if name in MODEL_ITEMS else " (not in skfed's byte model)"
            lines.append(f"  {name}: {totals[name]}{tag}")
        return "\n".join(lines)


# ------------------------------------------------------------- server
class FlowerRunError(RuntimeError):
    """A node answered with an error, or did not answer in time."""


class _Driver:
    """Message exchanges with the SuperNodes of one run, by node index."""

    def __init__(self, grid, *, min_nodes=1, timeout=600.0, poll_interval=0.05):
        self.grid = grid
        self.min_nodes = int(min_nodes)
        self.timeout = float(timeout)
        self.poll_interval = float(poll_interval)
        self.traffic = FlowerTraffic()
        self.node_ids = None  # Flower node id of node index t
        self.hello = None

    def wait_for_nodes(self):
        deadline = time.monotonic() + self.timeout
        while True:
            ids = sorted(int(i) for i in self.grid.get_node_ids())
            if len(ids) >= self.min_nodes:
                return ids
            if time.monotonic() > deadline:
                raise FlowerRunError(
                    f"Only {len(ids)} SuperNode(s) connected within {self.timeout:.0f} s; "
                    f"waiting for {self.min_nodes}."
                )
            time.sleep(max(self.poll_interval, 0.1))

    def exchange(self, kind, contents, round_, *, down_items=None, up_items=None, dst=None,
                 purpose=None):
        """Send ``contents[i]`` to node i; return the replies' RecordDicts by i.

        Every message is logged in :attr:`traffic`: ``down_items[i]`` names
        parts of message i's payload, ``up_items(i, reply)`` those of the
        reply.  Returns ``(replies, down_entries, up_entries)``.  ``dst``
        maps the keys of ``contents`` to Flower node ids (default: the node
        order of this run).
        """
        dst = self.node_ids if dst is None else dst
        down_items = down_items or {}
        if not contents:
            return {}, {}, {}
        started = time.monotonic()
        messages, keys = [], list(contents)
        down = {}
        for i in keys:
            messages.append(
                Message(
                    content=contents[i], dst_node_id=int(dst[i]), message_type=kind,
                    group_id=str(round_),
                )
            )
            down[i] = self.traffic.add(kind, round_, i, "down", contents[i], down_items.get(i))
        index = dict(zip(self.grid.push_messages(messages), keys))
        pending = set(index)
        replies = {}
        deadline = time.monotonic() + self.timeout
        while pending:
            for reply in self.grid.pull_messages(list(pending)):
                message_id = reply.metadata.reply_to_message_id
                if message_id not in pending:
                    continue
                pending.discard(message_id)
                i = index[message_id]
                if reply.has_error():
                    raise FlowerRunError(
                        f"Node {self._name(i)} answered {kind} with an error: "
                        f"{reply.error.reason}"
                    )
                replies[i] = reply.content
            if pending:
                if time.monotonic() > deadline:
                    missing = sorted(self._name(index[m]) for m in pending)
                    raise FlowerRunError(
                        f"No answer to {kind} from node(s) {missing} within "
                        f"{self.timeout:.0f} s."
                    )
                time.sleep(self.poll_interval)
        up = {}
        for i in keys:
            items = up_items(i, replies[i]) if up_items is not None else None
            up[i] = self.traffic.add(kind, round_, i, "up", replies[i], items)
        self.traffic.exchanges.append(
            (kind, int(round_), purpose or kind.split(".")[-1], time.monotonic() - started)
        )
        return replies, down, up

    def _name(self, i):
        if self.hello is not None and i in self.hello.get("by_index", {}):
            return repr(self.hello["by_index"][i]["label"])
        return f"#{i}"

    def say_hello(self, estimator, up_items=None):
        """Ask every connected node who it is; set the node order of the run.

        Returns the per-node answers (config values and arrays), by node
        index in the order of the sorted labels.
        """
        flower_ids = self.wait_for_nodes()
        content = {
            k: RecordDict({"config": ConfigRecord({"estimator": type(estimator).__name__})})
            for k in range(len(flower_ids))
        }
        replies, _, _ = self.exchange(HELLO, content, -1, dst=flower_ids, purpose="hello")
        infos = []
        for k in range(len(flower_ids)):
            info = _config_of(replies[k], "config")
            info.update(_arrays_of(replies[k], "skfed"))
            info["flower_id"] = flower_ids[k]
            info["_reply"] = replies[k]
            infos.append(info)
        labels = [info["label"] for info in infos]
        nodes = np.unique(np.asarray(labels))
        if len(nodes) != len(labels):
            values, counts = np.unique(np.asarray(labels), return_counts=True)
            raise FlowerRunError(
                "Several SuperNodes report the same node label: "
                f"{values[counts > 1].tolist()}."
            )
        order = {label: t for t, label in enumerate(nodes.tolist())}
        by_index = {order[info["label"]]: info for info in infos}
        self.node_ids = [by_index[t]["flower_id"] for t in range(len(nodes))]
        # Key the hello messages by node index, and name their items.
        for entry in self.traffic.messages:
            if entry["kind"] == HELLO:
                k = entry["node"]
                entry["node"] = order[infos[k]["label"]]
                if entry["direction"] == "up" and up_items is not None:
                    for name, value in up_items(infos[k]).items():
                        self.traffic.relabel(entry, "control", name, value)
        self.hello = {"nodes": nodes, "by_index": by_index}
        widths = {info["n_features_in"] for info in infos}
        if len(widths) != 1:
            raise FlowerRunError(
                f"The nodes' data have different numbers of columns: {sorted(widths)}."
            )
        dtypes = {info["dtype"] for info in infos}
        if len(dtypes) != 1:
            raise FlowerRunError(f"The nodes' data have different dtypes: {sorted(dtypes)}.")
        return by_index


def _set_common_attributes(fitted, driver):
    hello = driver.hello
    info = hello["by_index"][0]
    fitted.nodes_ = hello["nodes"]
    record_join_params(fitted)
    fitted.n_features_in_ = int(info["n_features_in"])
    if "feature_names" in info:
        fitted.feature_names_in_ = np.asarray(info["feature_names"], dtype=object)
    fitted._fitted_with_groups = True


def _engine_for(estimator):
    from ..multitask import _BaseMultiTask
    from ..support import FederatedSupportRecovery

    if isinstance(estimator, _BaseMultiTask):
        return _flower_multitask
    if isinstance(estimator, FederatedSupportRecovery):
        return _flower_support
    raise TypeError(
        f"{type(estimator).__name__} has no Flower protocol; supported: "
        "FederatedMultiTaskClassifier, FederatedMultiTaskRegressor (every mode) "
        "and FederatedSupportRecovery."
    )


def _check_min_nodes(min_nodes, where="min_nodes"):
    if (isinstance(min_nodes, bool) or not isinstance(min_nodes, numbers.Integral)
            or min_nodes < 1):
        raise ValueError(f"{where} must be an integer >= 1 (SuperNodes to wait for), "
                         f"got {min_nodes!r}.")
    return int(min_nodes)


def _check_callable(value, name, what):
    if value is not None and not callable(value):
        raise TypeError(f"{name} must be None or a callable {what}; got "
                        f"{type(value).__name__}.")


def fit_on_grid(estimator, grid, *, min_nodes=1, timeout=600.0, poll_interval=0.05):
    """Fit ``estimator`` over the SuperNodes of a Flower run; return the fitted copy.

    Call it from a ServerApp's main function (``make_server_app`` does);
    the SuperNodes must run the ClientApp of :func:`make_client_app` for
    an estimator with the same parameters.

    Parameters
    ----------
    estimator : estimator
        A configured, unfitted skfed estimator (it is cloned).
    grid : flwr.serverapp.Grid
    min_nodes : int, default=1
        Wait until this many SuperNodes are connected; every connected node
        takes part.
    timeout : float, default=600
        Seconds to wait for the nodes, and for every answer.
    poll_interval : float, default=0.05
        Seconds between two polls for replies.

    Returns
    -------
    fitted : estimator
        A fitted clone of ``estimator``.
    """
    engine = _engine_for(estimator)
    engine.check_supported(estimator)
    min_nodes = _check_min_nodes(min_nodes)
    timeout = check_seconds("timeout", timeout)
    poll_interval = check_seconds("poll_interval", poll_interval)
    driver = _Driver(grid, min_nodes=min_nodes, timeout=timeout, poll_interval=poll_interval)
    driver.say_hello(estimator, up_items=engine.hello_items(estimator))
    fitted = clone(estimator)
    _set_common_attributes(fitted, driver)
    engine.fit_server(fitted, driver)
    fitted.flower_traffic_ = driver.traffic
    fitted.flower_communication_ = driver.traffic.log(fitted.nodes_)
    return fitted


def make_server_app(estimator, *, on_fit=None, min_nodes=None, timeout=600.0,
                    poll_interval=0.05):
    """A Flower ``ServerApp`` that fits ``estimator`` with the connected SuperNodes.

    Parameters
    ----------
    estimator : estimator
        A configured skfed estimator (see the module docstring for the
        supported ones).
    on_fit : callable, default=None
        ``on_fit(fitted, context)`` is called with the fitted estimator.
        By default, when the run config has ``skfed-output`` (a path), the
        fitted estimator is saved there with :func:`joblib.dump`.
    min_nodes : int, default=None
        SuperNodes to wait for; default: the run config's
        ``skfed-min-nodes``, else 1.
    timeout, poll_interval : float
        See :func:`fit_on_grid`.

    Returns
    -------
    app : flwr.serverapp.ServerApp
    """
    _engine_for(estimator).check_supported(estimator)
    if min_nodes is not None:
        _check_min_nodes(min_nodes)
    check_seconds("timeout", timeout)
    check_seconds("poll_interval", poll_interval)
    _check_callable(on_fit, "on_fit", "on_fit(fitted, context)")
    app = ServerApp()

    @app.main()
    def main(grid: Grid, context: Context) -> None:
        wanted = min_nodes
        if wanted is None:
            wanted = context.run_config.get("skfed-min-nodes", 1)
            if isinstance(wanted, str) and wanted.strip().isdigit():
                wanted = int(wanted)          # (as given on a command line)
            elif isinstance(wanted, float) and wanted.is_integer():
                wanted = int(wanted)
            wanted = _check_min_nodes(wanted, "The run config's skfed-min-nodes")
        fitted = fit_on_grid(
            estimator, grid, min_nodes=wanted, timeout=timeout, poll_interval=poll_interval
        )
        if on_fit is not None:
            on_fit(fitted, context)
        elif "skfed-output" in context.run_config:
            import joblib

            joblib.dump(fitted, str(context.run_config["skfed-output"]))

    return app


def make_client_app(estimator, load_data=None, *, label_key="partition-id"):
    """A Flower ``ClientApp`` running ``estimator``'s node solver on this node's data.

    Parameters
    ----------
    estimator : estimator
        The same configured estimator as the ServerApp's.
    load_data : callable, default=None
        ``load_data(context)`` returns this node's data: ``(X, y)``,
        ``(X, y, sample_weight)`` or a dict with ``X``, ``y`` and optionally
        ``sample_weight`` and ``node`` (its label).  Default:
        :func:`load_partition` (the ``.npz`` file named by the node config's
        ``data-path``).  It is called for every message (Flower starts a
        fresh ClientApp process per message), so it should be cheap.
    label_key : str, default="partition-id"
        Node-config key of the node's label, when the data do not carry it
        (and ``group_column`` is not set).

    Returns
    -------
    app : flwr.clientapp.ClientApp
    """
    engine = _engine_for(estimator)
    engine.check_supported(estimator)
    _check_callable(load_data, "load_data", "load_data(context) returning this node's data")
    if not isinstance(label_key, str):
        raise TypeError(f"label_key must be a node-config key (a str); got "
                        f"{type(label_key).__name__}.")
    load = load_partition if load_data is None else load_data
    app = ClientApp()
    sparse = engine.ACCEPT_SPARSE

    def node_data(context):
        return _NodeData(estimator, load, context, label_key, sparse=sparse)

    @app.query("skfed_hello")
    def hello(message: Message, context: Context) -> Message:
        node = node_data(context)
        return Message(engine.hello_reply(node, estimator), reply_to=message)

    engine.register_client(app, estimator, node_data)
    return app
