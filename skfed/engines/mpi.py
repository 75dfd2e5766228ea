"""Peer-to-peer runs of skfed's decentralized methods on MPI.

``pip install ".[mpi]"`` installs ``mpi4py`` and an MPI runtime wheel
(MPICH), so ``mpiexec`` works on a fresh virtual environment with nothing
else on the machine.

Every MPI rank owns a contiguous block of the nodes (in the order of the
fitted ``nodes_``) and reads only their data: from the per-node ``.npz``
files written by :func:`save_partitions` (the same files Flower SuperNodes
read) or from a callable.  The ranks then run the decentralized algorithm
together, each waking node computed by its own rank with the same Cython
node solver as the simulated ``fit``, each message between nodes on
different ranks a real MPI message, and rank 0 (the lowest rank still
answering) returns a fitted skfed estimator (``predict``/``score`` work as
after ``fit``).

Supported estimators

* :class:`~skfed.boosting.DecentralizedBoostingClassifier` (Dada), with a
  learned or fixed collaboration graph, stumps on the agreed feature ranges
  (``stump_placement="range"`` or ``"global_range"``), dropped nodes
  (``network.drop_rate``) and a communication budget;
* :class:`~skfed.boosting.PersonalizedLinearClassifier` (Perso-lin), with
  the same graph options, drops and budget;
* :class:`~skfed.graph.CollaborationGraphLearner` on its own: node k's data
  is its model and its loss (``save_partitions(models, losses,
  np.arange(n_nodes), directory)``, or a callable returning ``(model,
  loss)``), with drops, ``max_neighbors`` and a budget;
* :class:`~skfed.online.DecentralizedKernelSGDClassifier` and
  :class:`~skfed.online.DecentralizedKernelSGDRegressor`: synchronous
  rounds, every rank stepping its own nodes; a node's neighbours on other
  ranks hold a copy of its dictionary, refreshed after every round
  (``"round"`` in ``mpi_traffic_``), from which they evaluate the
  ``f_j(x)`` the byte model counts as query and answer; dropped nodes, KOMP
  compression, averaging and ``exchange_every`` copies as in ``fit``;
  ``kernel="auto"`` and ``consensus_penalty="auto"`` (the defaults) choose
  as ``fit`` does, the latter running both candidate couplings with these
  rounds on the training rows.

Rogue nodes (``network.rogue_fraction``) are refused with an error: the
engine runs honest nodes.  A rank that stops answering after the setup is
survived: the others notice it within the timeout, agree on it, and drop
its nodes for the rest of the fit, as the simulation drops a node (see
"Lost ranks" below and :func:`fit`).

How a run matches the simulation
--------------------------------
The asynchronous Poisson clocks of the simulation are one seeded xorshift
stream; every rank replays it, so all ranks agree on the order in which
nodes wake up, and the rank owning the waking node runs exactly that step.
Every other random draw (per-node seeds, peer sampling, dropped steps,
random topologies) comes from the same ``random_state`` in the same order.
So an MPI run equals ``fit`` on the pooled data: the same ``coef_``,
``intercept_``, ``collaboration_graph_`` (or dictionaries and dual
coefficients), ``n_iter_`` and the same ``communication_`` (skfed's byte
model, every rank counting its own nodes' messages).
``objective_curve_`` and ``consensus_error_curve_`` are summed over the
ranks, so they equal the simulation's up to rounding.

Messages on MPI (itemised in ``mpi_traffic_``, pickled bytes as sent):
``"extremes"`` (min/max flooding of the feature ranges), ``"model_update"``
(Dada: a Frank-Wolfe step's coordinate and signed step per problem;
Perso-lin: the node's new model; with the step's change of the objective
and the node's loss, to the ranks owning a graph neighbour), ``"step"`` (the step's number and
change of the objective, to the other ranks: every rank hears of every
step, so all notice a silent rank at the same step),
``"peer_request"``/``"peer_answer"`` (peer sampling asks the ranks owning
the sampled peers for their loss and degree),
``"weights"``/``"graph_update"`` (the changed weights and degrees of a graph
step, to the peers' ranks and to the others, since every rank keeps the
whole learned graph), ``"models"`` (every node's current model and loss at
the start of each graph phase, as a graph step may sample any peer),
``"round"`` (online kernel SGD: a rank's report and dictionaries),
``"selection"`` (online kernel SGD's ``kernel="auto"``: the statistics its
alone fits share and the per-node validation losses, one allgather and one
allreduce), ``"coupling"`` (online kernel SGD's ``consensus_penalty="auto"``:
one allgather of the statistics the candidate fits share, one allreduce of
the per-node held-out errors, and every rank's byte counts of the candidates
and spanning-tree rounds sent to the root), ``"setup"``, ``"control"`` (sums, and the agreement on lost ranks) and
``"result"``.

Lost ranks
----------
A rank that stops answering once the run is set up is survived.  The
other ranks wait for it at the same step or round (every step is told to
every rank); after the timeout, each tells the others whom it suspects,
and every rank suspected by one is lost for all.  Its nodes are then
dropped as the simulation drops a node for good: their wake-ups do
nothing, their neighbours keep the last models they heard, a graph step
that samples one uses the copy every rank holds without asking it (the
ranks owning a graph neighbour of a lost node heard its every update, with
its loss, and the survivors pool these copies at every graph phase and
model block), and nothing is counted to or from them.  Each rank counts
its own nodes' messages, so the lost rank's counts are lost with it.  The
fit equals the simulated one in which those nodes drop out at the same
iteration (tested on two to four ranks for every method), but for the
state of a lost node no survivor heard (no graph neighbour on a live
rank) since the last graph phase; ``mpi_lost_nodes_`` names the lost
nodes and a warning is raised.  The lowest live rank returns the fit, so
rank 0 may stop too.  The agreement is on a rank lost between two steps: one that
fails halfway through telling the others about a step (some heard it,
some did not) can leave them split, each part finishing on its own.

Running it
----------
::

    mpiexec -n 4 python -m skfed.engines.mpi --data nodes/ \\
        --estimator DecentralizedBoostingClassifier \\
        --params '{"n_estimators": 20, "random_state": 0}' --output fitted.pkl

or, inside a script started by ``mpiexec``, :func:`fit`.
"""

import argparse
import functools
import json
import os
import pickle
import sys
import threading
import time

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_consistent_length, column_or_1d

from . import require_extra

require_extra("mpi")

from mpi4py import MPI  # noqa: E402

from .._base import _numeric_target, check_groups, check_sample_weight  # noqa: E402
from ._nodes import check_seconds, node_error  # noqa: E402
from ..boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier  # noqa: E402
from ..graph import CollaborationGraphLearner  # noqa: E402
from ..network import SimulatedNetwork  # noqa: E402
from ._mpi_comm import MPITimeoutError, Peer, ranks_of_blocks  # noqa: E402
from ..online import (  # noqa: E402
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)
from ._mpi_boosting import NodeBlock, fit_dada, fit_graph, fit_perso_lin  # noqa: E402
from ._mpi_online import fit_online  # noqa: E402
from ._partitions import partition_files, read_partition, save_partitions  # noqa: E402

__all__ = ["fit", "save_partitions", "MPITimeoutError", "ESTIMATORS"]

# Estimators the engine runs, by class name (what the command line takes).
ESTIMATORS = {
    "DecentralizedBoostingClassifier": DecentralizedBoostingClassifier,
    "PersonalizedLinearClassifier": PersonalizedLinearClassifier,
    "CollaborationGraphLearner": CollaborationGraphLearner,
    "DecentralizedKernelSGDClassifier": DecentralizedKernelSGDClassifier,
    "DecentralizedKernelSGDRegressor": DecentralizedKernelSGDRegressor,
}
_FITS = {
    DecentralizedBoostingClassifier: fit_dada,
    PersonalizedLinearClassifier: fit_perso_lin,
    CollaborationGraphLearner: fit_graph,
    DecentralizedKernelSGDClassifier: fit_online,
    DecentralizedKernelSGDRegressor: fit_online,
}


def _node_data(obj, label):
    """``(X, y, sample_weight)`` of one node from a loader's answer."""
    if isinstance(obj, dict):
        return obj["X"], obj["y"], obj.get("sample_weight")
    if isinstance(obj, (tuple, list)) and len(obj) in (2, 3):
        return obj[0], obj[1], obj[2] if len(obj) == 3 else None
    raise TypeError(
        f"The data loader returned {type(obj).__name__} for node {label!r}; it must return "
        "(X, y), (X, y, sample_weight) or a dict with 'X', 'y' and optionally "
        "'sample_weight'."
    )


def _validate_node(label, X, y, sample_weight, regressor=False, estimator=None):
    """One node's data, validated as ``fit`` validates the pooled data (the
    same checks and messages, prefixed with the node's label)."""
    try:
        X = check_array(X, dtype=[np.float64, np.float32], input_name="X",
                        estimator=estimator)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        if regressor:
            y = _numeric_target(y, estimator)
            y = check_array(y, ensure_2d=False, dtype=np.float64, input_name="y",
                            estimator=estimator)
        else:
            check_classification_targets(y)
        # The check fit applies to the pooled data: shape, finiteness, sign.
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise node_error(label, exc) from exc
    return X, y, sample_weight


def fit(estimator, data, *, nodes=None, comm=None, timeout=120.0, faults=None):
    """Fit ``estimator`` with its nodes spread over the ranks of ``comm``.

    Call it on every rank (a script started by ``mpiexec``).  Rank r owns
    the r-th of ``comm.size`` contiguous blocks of the sorted node labels and
    loads only their data.

    Parameters
    ----------
    estimator : estimator of :data:`ESTIMATORS`
        Configured, unfitted (it is not modified: a fitted copy is returned).
        Its ``random_state`` seeds the run as it seeds ``fit``; with
        ``random_state=None`` rank 0 draws a seed and sends it to the others.
    data : str, path or callable
        A directory of per-node files written by :func:`save_partitions`, or
        ``data(label)`` returning ``(X, y)``, ``(X, y, sample_weight)`` or a
        dict with those keys, called only for this rank's nodes.
    nodes : array-like, default=None
        All node labels (needed with a callable ``data``; read from the
        files otherwise).
    comm : mpi4py.MPI.Comm, default=None
        ``MPI.COMM_WORLD`` by default.
    timeout : float, default=120.0
        Longest wait, in seconds, for any one message; a rank that waits
        longer raises :class:`MPITimeoutError` naming the rank it waited for.
    faults : dict, default=None
        Injected faults, for tests and drills: ``{"slow": {rank: seconds}}``
        makes a rank wait that long before each message it sends (the run
        is unchanged, only slower); ``{"stop": {rank: r}}`` makes a rank stop
        answering from round ``r`` on (online kernel SGD: synchronous round
        ``r`` of the fit itself, after ``consensus_penalty="auto"``'s
        candidate fits, which run whole; Dada and Perso-lin: global iteration ``r`` of the model
        steps, ``objective_curve_``'s index; the graph learner: its
        iteration ``r``); ``{"hang": {rank: n}}`` makes
        a rank stop answering after its ``n``-th message, wherever the run
        is.  The others notice within the timeout, agree on whom they lost,
        and go on without that rank's nodes, as the simulation goes on
        without nodes it drops from then on; ``mpi_lost_nodes_`` names them.
        A rank lost while the ranks set the run up (reading data, agreeing
        on classes and feature ranges) ends the run instead: the others
        raise :class:`MPITimeoutError`.

    Returns
    -------
    estimator or None
        The fitted estimator on the lowest live rank (rank 0 unless it
        stopped answering), with ``mpi_traffic_`` (bytes and messages sent
        over MPI by item), ``mpi_lost_nodes_``, ``mpi_n_ranks_`` and
        ``mpi_wall_time_``; None on the other ranks.

    Notes
    -----
    An error on one rank (bad data, a timeout during the setup) is raised on
    that rank; the command line then aborts every rank.  A script calling
    ``fit`` should do the same (``comm.Abort()``), or the other ranks wait
    in their next collective step.  A stopped rank never ends by itself:
    after a fit with ``mpi_lost_nodes_``, end the run with
    ``comm.Abort(0)`` once the result is saved (the command line does).
    """
    from sklearn.base import clone

    comm = MPI.COMM_WORLD if comm is None else comm
    if type(estimator) not in ESTIMATORS.values():
        raise TypeError(
            f"The MPI engine runs {sorted(ESTIMATORS)}, not {type(estimator).__name__}."
        )
    if getattr(estimator, "group_column", None) is not None:
        raise ValueError(
            "The MPI engine takes every node's label from its data file or from nodes=: "
            f"set group_column=None (got {estimator.group_column!r}) and pass groups= to "
            "predict."
        )
    timeout = check_seconds("timeout", timeout)
    start = time.perf_counter()
    faults = {} if faults is None else dict(faults)
    unknown = set(faults) - {"slow", "hang", "stop"}
    if unknown:
        raise ValueError(
            f"faults has unknown kinds {sorted(unknown)}; use 'slow', 'hang' and 'stop'."
        )
    rank = comm.Get_rank()
    stopping = set(faults.get("stop", {})) | set(faults.get("hang", {}))
    outside = sorted(r for r in stopping | set(faults.get("slow", {}))
                     if not 0 <= r < comm.Get_size())
    if outside:
        raise ValueError(f"faults name ranks {outside} outside the {comm.Get_size()} ranks.")
    if stopping >= set(range(comm.Get_size())):
        raise ValueError(
            "faults stop every rank (faults['stop'] and faults['hang']): no rank would be left "
            "to finish the fit or end the stopped ones."
        )
    peer = Peer(comm, timeout, delay=faults.get("slow", {}).get(rank, 0.0),
                hang_after=faults.get("hang", {}).get(rank),
                stop_round=faults.get("stop", {}).get(rank))
    if callable(data):
        if nodes is None:
            raise ValueError("fit with a callable data loader needs nodes= (all node labels).")
        nodes = check_groups(nodes, len(nodes), name="nodes")  # as fit checks groups
        labels = np.unique(nodes)
        if len(labels) != len(nodes):
            raise ValueError("nodes must not repeat a label.")
        load = data
    else:
        files = partition_files(data)
        labels = np.unique(np.asarray(list(files)))
        if nodes is not None and set(np.asarray(nodes).tolist()) != set(labels.tolist()):
            raise ValueError(f"nodes do not match the node files in {data!r}.")

        def load(label):
            return read_partition(files[label])

    if len(labels) == 0:
        raise ValueError("nodes is empty: give the label of every node to fit.")
    if len(labels) < peer.size:
        raise ValueError(
            f"{len(labels)} nodes cannot be spread over {peer.size} MPI ranks; start at most "
            f"{len(labels)} ranks."
        )
    owner, _ = ranks_of_blocks(len(labels), peer.size)
    mine = np.flatnonzero(owner == peer.rank)
    local = {}
    for k in mine.tolist():
        label = labels[k].item() if hasattr(labels[k], "item") else labels[k]
        local[label] = _node_data(load(label), label)
    block = NodeBlock(labels, owner, peer.rank, local)
    est = clone(estimator)
    random_state = est.random_state
    if random_state is None:
        # Every rank must draw the same seeds: rank 0 picks them.
        seed = np.random.SeedSequence().entropy % (2**31) if peer.rank == 0 else None
        random_state = np.random.RandomState(peer.bcast("setup", seed))
        est.random_state = random_state
    else:
        random_state = check_random_state(random_state)
    validate = functools.partial(_validate_node, estimator=est)
    fitted = _FITS[type(est)](est, peer, block, validate, random_state)
    if fitted is not None:
        fitted.random_state = estimator.random_state
    if fitted is not None:
        fitted.mpi_n_ranks_ = peer.size
        fitted.mpi_wall_time_ = time.perf_counter() - start
    return fitted


# ------------------------------------------------------------- command line
def _parse(argv):
    parser = argparse.ArgumentParser(
        prog="mpiexec -n N python -m skfed.engines.mpi",
        description="Fit a decentralized skfed estimator with its nodes spread over MPI ranks.",
    )
    parser.add_argument("--data", required=True,
                        help="directory of node-<i>.npz files (skfed.engines.mpi.save_partitions)")
    parser.add_argument("--estimator", default="DecentralizedBoostingClassifier",
                        choices=sorted(ESTIMATORS))
    parser.add_argument("--params", default="{}", help="estimator parameters as JSON")
    parser.add_argument("--network", default=None,
                        help="SimulatedNetwork parameters as JSON (topology, drop_rate, ...)")
    parser.add_argument("--output", default=None, help="where rank 0 pickles the fitted estimator")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="longest wait for one message, seconds")
    parser.add_argument("--max-time", type=float, default=3600.0,
                        help="abort every rank after this many seconds")
    parser.add_argument("--slow-rank", action="append", default=[], metavar="RANK:SECONDS",
                        help="inject a fault: this rank waits SECONDS before every message")
    parser.add_argument("--hang-rank", action="append", default=[], metavar="RANK:N",
                        help="inject a fault: this rank stops answering after N messages")
    parser.add_argument("--stop-rank", action="append", default=[], metavar="RANK:ROUND",
                        help="inject a fault: this rank stops answering from ROUND on "
                        "(online kernel SGD: a round; Dada, Perso-lin: a model iteration); "
                        "the others go on without its nodes")
    return parser.parse_args(argv)


def _fault_option(values, cast):
    out = {}
    for value in values:
        rank, _, amount = value.partition(":")
        out[int(rank)] = cast(amount)
    return out


#: Seconds a rank waits between writing its last words and ``MPI.Abort``.  The
#: launcher (Hydra's proxy) forwards a rank's output asynchronously and kills
#: every process on an abort; without the pause the message explaining the
#: abort can be lost (seen on a loaded CI machine: empty stderr, status 1).
ABORT_GRACE = 1.0


def _abort(comm, status):
    sys.stdout.flush()
    sys.stderr.flush()
    time.sleep(ABORT_GRACE)
    comm.Abort(status)


def main(argv=None):
    """Entry point of ``mpiexec -n N python -m skfed.engines.mpi``."""
    args = _parse(argv)
    comm = MPI.COMM_WORLD

    def abort():
        print(f"skfed.engines.mpi: rank {comm.Get_rank()} hit --max-time={args.max_time:g} s; "
              "aborting every rank", file=sys.stderr, flush=True)
        _abort(comm, 2)

    watchdog = threading.Timer(args.max_time, abort)
    watchdog.daemon = True
    watchdog.start()
    try:
        params = json.loads(args.params)
        if args.network is not None:
            params["network"] = SimulatedNetwork(**json.loads(args.network))
        estimator = ESTIMATORS[args.estimator](**params)
        faults = {"slow": _fault_option(args.slow_rank, float),
                  "hang": _fault_option(args.hang_rank, int),
                  "stop": _fault_option(args.stop_rank, int)}
        fitted = fit(estimator, args.data, comm=comm, timeout=args.timeout, faults=faults)
    except BaseException as exc:  # one failing rank must not leave the others waiting
        import traceback

        traceback.print_exc()
        print(f"skfed.engines.mpi: rank {comm.Get_rank()} failed ({type(exc).__name__}); "
              "aborting every rank", file=sys.stderr, flush=True)
        _abort(comm, 1)
        return 1
    finally:
        watchdog.cancel()
    if fitted is not None:
        if args.output:
            with open(args.output, "wb") as f:
                pickle.dump(fitted, f)
        print(json.dumps({
            "estimator": args.estimator,
            "n_ranks": fitted.mpi_n_ranks_,
            "n_nodes": len(fitted.nodes_),
            "n_iter": fitted.n_iter_,
            "wall_time_s": round(fitted.mpi_wall_time_, 3),
            "n_bytes_sent": int(fitted.n_bytes_sent_),
            "mpi_bytes": sum(v["bytes"] for v in fitted.mpi_traffic_.values()),
            "output": os.path.abspath(args.output) if args.output else None,
            "lost_nodes": [str(label) for label in getattr(fitted, "mpi_lost_nodes_", [])],
        }), flush=True)
        if len(getattr(fitted, "mpi_lost_nodes_", [])):
            # A stopped rank never ends by itself: end it (and every rank) now
            # that the result is written; the exit status stays 0.
            _abort(comm, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
