"""The main job: federated methods against the Global and Local baselines.

``skfed compare`` answers the question a user asks of a federated method: on
real per-node data, is it better than one global model and better than one
model per node, and at what communication cost?  For one dataset it splits
every node's samples into train and test (or uses the dataset's official
splits), fits every method that applies to the task, and reports per method

* the mean and the worst per-node test score (accuracy, or R^2 for
  regression) and the pooled score over all test samples,
* the total bytes communicated during ``fit`` under skfed's byte model
  (:mod:`skfed.network`),
* the fit time.

Registering a method
--------------------
Methods live in one table, :data:`METHODS`, built from the ``_METHOD_TABLE``
tuple below: one :class:`MethodSpec` line per method, with a factory that
builds the estimator from a :class:`MethodContext`.  A method issue adds its
line there (or calls :func:`register_method`); nothing else changes.
Datasets are registered the same way in :data:`DATASETS`.
"""

import csv
import json
import math
import platform
import sys
import textwrap
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ._extras import install_hint

__all__ = [
    "MethodSpec",
    "MethodContext",
    "DatasetSpec",
    "SplitData",
    "METHODS",
    "DATASETS",
    "DEFAULT_DATASET",
    "register_method",
    "register_dataset",
    "applicable_methods",
    "compare",
    "CompareResult",
    "loss_reasons",
]

TASKS = ("binary", "multiclass", "regression")
CLASSIFICATION = ("binary", "multiclass")
ALL_TASKS = TASKS


# ------------------------------------------------------------------ specs
@dataclass(frozen=True)
class MethodContext:
    """What a method factory may use to build its estimator.

    Attributes
    ----------
    task : {"binary", "multiclass", "regression"}
    dataset : str
        Name of the dataset in :data:`DATASETS`.
    n_nodes, n_features, n_train : int
        Of the training data the estimator will see.
    random_state : int
        The seed of this repeat.
    quick : bool
        ``--quick``: use cheap settings (few iterations / estimators).
    n_jobs : int or None
        Node-parallel jobs the user allows.
    graph : ndarray of shape (n_nodes, n_nodes) or None
        A graph the dataset comes with (the communication network of a
        synthetic network, or an oracle similarity graph), nodes in the
        sorted order of the node labels; None for real data.
    verbose : int
        0 silent; 1 lets a method report its own progress (rounds).
    """

    task: str
    dataset: str
    n_nodes: int
    n_features: int
    n_train: int
    random_state: int = 0
    quick: bool = False
    n_jobs: Optional[int] = None
    graph: Optional[np.ndarray] = None
    verbose: int = 0

    @property
    def is_classification(self):
        return self.task in CLASSIFICATION


@dataclass(frozen=True)
class MethodSpec:
    """One row of the method table.

    Parameters
    ----------
    name : str
        Name on the command line and in the result table.
    factory : callable
        ``factory(ctx: MethodContext) -> estimator`` (unfitted).  Import the
        method's module inside the factory so a broken optional method never
        breaks the others.
    tasks : tuple of str, default=("binary", "multiclass")
        Tasks the method applies to (``"binary"``, ``"multiclass"``,
        ``"regression"``).
    pooled : bool, default=False
        True for the Global baseline: fitted on the pooled data with no node
        ids, predicting with one model for everybody.  False: ``fit(X, y,
        groups=...)`` and ``predict(X, groups=...)``.
    communication : callable or None, default=None
        ``communication(estimator, X_train, y_train, groups_train) -> int``,
        the bytes the fit communicated.  None reads the fitted estimator's
        ``n_bytes_sent_``.
    bytes_note : str, default=""
        How the bytes were counted, printed under the table.
    description : str, default=""
    param_grid : dict or None, default=None
        Hyper-parameters worth tuning (for a future cross-validated mode;
        not used yet).
    default_datasets : tuple of str or None, default=None
        Datasets on which the method runs when ``--methods`` is not given;
        None means every dataset of a matching task.  Named explicitly, a
        method runs on any dataset of a matching task.
    behind_note : str, default=""
        A documented property of the method that makes it score below a
        baseline (its model class, its budget); printed, with the measured
        numbers, when it loses to a baseline by more than the noise.
    baseline : {"", "global", "local"}, default=""
        Whether the row is a Global or a Local baseline.
    bytes_why : str, default=""
        What the method's messages carry, so that its bytes can exceed the
        raw upload of the Global baselines; printed, with the measured
        rounds and messages, when they do.
    """

    name: str
    factory: Callable
    tasks: tuple = CLASSIFICATION
    pooled: bool = False
    communication: Optional[Callable] = None
    bytes_note: str = ""
    description: str = ""
    param_grid: Optional[dict] = None
    default_datasets: Optional[tuple] = None
    behind_note: str = ""
    baseline: str = ""
    bytes_why: str = ""


@dataclass
class SplitData:
    """Train/test data of one repeat of one dataset."""

    X_train: object
    X_test: object
    y_train: np.ndarray
    y_test: np.ndarray
    groups_train: np.ndarray
    groups_test: np.ndarray
    graph: Optional[np.ndarray] = None
    split: str = ""


@dataclass(frozen=True)
class DatasetSpec:
    """One row of the dataset table.

    ``load(seed) -> SplitData`` returns the split of repeat ``seed``.
    """

    name: str
    task: str
    load: Callable
    description: str
    reference: str = ""


# --------------------------------------------------------- baseline models
def _linear(ctx):
    """Standardized linear model: LinearSVC (hinge, as MOCHA; C=0.1) or Ridge (alpha=1).

    On HAR sitting-vs-rest this gives about 1.8 % error pooled and 1.4 % per
    node, the published reference of shared/data/README.md.
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if ctx.is_classification:
        from sklearn.svm import LinearSVC

        model = LinearSVC(C=0.1, max_iter=10000, random_state=ctx.random_state)
    else:
        from sklearn.linear_model import Ridge

        model = Ridge(alpha=1.0)
    return make_pipeline(StandardScaler(), model)


def _adaboost(ctx):
    """AdaBoost over decision stumps, the weak learners of Dada."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    return AdaBoostClassifier(
        DecisionTreeClassifier(max_depth=1),
        n_estimators=10 if ctx.quick else 100,
        random_state=ctx.random_state,
    )


def _local(make):
    def factory(ctx):
        from .baselines import LocalEstimator

        return LocalEstimator(make(ctx), n_jobs=ctx.n_jobs)

    factory.__doc__ = f"LocalEstimator of {make.__name__}"
    return factory


def raw_data_bytes(estimator, X, y, groups):
    """Bytes to upload every node's raw training data once to a server.

    The honest price of the Global baseline under skfed's byte model
    (:func:`skfed.baselines.pooled_data_bytes`): every value of ``X`` at its
    dtype's size (4 bytes float32, 8 float64), 8 bytes a target, one 16-byte
    header per node.  The model itself is not sent back.
    """
    from .baselines import pooled_data_bytes

    return pooled_data_bytes(X, y, groups)


def _online_kernel(ctx):
    """Decentralized online kernel SGD + KOMP (Koppel et al.), issues 6 and 15.

    The estimator's defaults (the classifier's kernel="auto": laplacian from
    10 features on, rbf below; gamma="median", the median heuristic per
    node; the "auto" step under the stability bound, alpha=1e-4, 30 passes,
    dictionaries of at most 100 centres, a ring, neighbours' copies
    refreshed once per pass), over the dataset's own graph when it has one.
    """
    from .network import SimulatedNetwork
    from .online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

    network = SimulatedNetwork(ctx.graph) if ctx.graph is not None else None
    params = dict(network=network, random_state=ctx.random_state)
    if ctx.is_classification:
        return DecentralizedKernelSGDClassifier(**params)
    return DecentralizedKernelSGDRegressor(**params)


ONLINE_DATASETS = ("gaussian-mixture", "har-activity", "har-sitting", "har-walking")


def _sparse_linear(ctx):
    """One-shot support recovery + federated least-squares refit (Barik & Honorio), issue 7.

    ``alpha="auto"`` (each client thresholds its standardized statistics),
    per-node intercepts; rounds: support bits, sufficient statistics on the
    support, coefficients back.
    """
    from .support import FederatedSparseLinearRegression

    return FederatedSparseLinearRegression(random_state=ctx.random_state, n_jobs=ctx.n_jobs)


SPARSE_DATASETS = ("school-regression", "sparse-regression")


def _mocha(kernel):
    """Kernelized MOCHA (Caldas, Smith & Talwalkar; Smith et al. 2017), issue 4.

    The estimators' defaults (``C=1``, squared hinge loss, squared loss for
    regression, learned Omega, exact local solves in the primal modes,
    stopping on the joint objective, at most 1000 rounds, 8-bit round
    messages with error feedback); ``kernel="linear"`` is MOCHA itself,
    ``"rbf"`` lets ``approximation="auto"`` choose between random Fourier
    features and the exact kernel mode by their bytes (random features on
    HAR, Landmine and School).
    """

    def factory(ctx):
        from .multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor

        params = dict(kernel=kernel, random_state=ctx.random_state, n_jobs=ctx.n_jobs)
        if not ctx.is_classification:
            return FederatedMultiTaskRegressor(**params)
        return FederatedMultiTaskClassifier(**params)

    return factory


MOCHA_DATASETS = ("har-sitting", "landmine", "school-regression")


# Dada's benchmarks, where boosted decision stumps are the reference baselines.
DADA_DATASETS = ("har-walking", "school-classification", "computer-classification", "moons")

_RAW_NOTE = (
    "raw-data upload: every node sends its training rows (4 B a float32, 8 B a "
    "float64 value) and targets (8 B) to a server once, plus a 16 B header per node"
)

# Dada and Perso-lin run with their defaults (chosen from evidence across
# these four datasets, issue 18; benchmarks/dada_experiments.py defaults):
# beta=3, mu=3, the learned graph re-learned every n_nodes iterations, capped
# at 5 neighbours, with peer scoring, and sparsified to connected; Perso-lin
# alpha=1e-2, its graph learned once.


def _dada(graph):
    """Dada (Zantedeschi, Bellet & Tommasi 2020), issue 5: decentralized FW boosting.

    ``graph="learned"``: the collaboration graph is learned jointly (the
    estimator's defaults); ``"oracle"``: the dataset's own graph (moons).
    Two stumps per feature (10 on moons, as the paper), the default 100
    wake-ups per node (20 with --quick); every other setting is the
    estimator's default.
    """

    def factory(ctx):
        from .boosting import DecentralizedBoostingClassifier

        per_feature = 10 if ctx.dataset == "moons" else 2
        params = {}
        if graph == "oracle":
            params["graph"] = ctx.graph
        if ctx.quick:
            params["max_iter"] = 20 * ctx.n_nodes
        return DecentralizedBoostingClassifier(
            n_estimators=per_feature * ctx.n_features,
            random_state=ctx.random_state, n_jobs=ctx.n_jobs, **params,
        )

    return factory


def _perso_linear(ctx):
    """Perso-lin (Vanhaesebrouck et al. 2017) on a graph learned as in Dada, issue 5."""
    from .boosting import PersonalizedLinearClassifier

    params = {"max_iter": 20 * ctx.n_nodes} if ctx.quick else {}
    return PersonalizedLinearClassifier(
        random_state=ctx.random_state, n_jobs=ctx.n_jobs, **params,
    )


# ------------------------------------------------------------ THE method table
# One line per method.  Method issues register their estimators here, e.g.
#   MethodSpec("mocha", _mocha_factory, tasks=("binary", "regression")),
_METHOD_TABLE = (
    MethodSpec(
        "global-linear", _linear, tasks=ALL_TASKS, pooled=True,
        communication=raw_data_bytes, bytes_note=_RAW_NOTE,
        description="Global baseline: standardized LinearSVC (Ridge for "
        "regression) on the pooled data of all nodes",
        param_grid={"linearsvc__C": [0.01, 0.1, 1.0, 10.0]},
        baseline="global",
        behind_note="one linear model shared by every node cannot follow node-specific "
        "decision boundaries",
    ),
    MethodSpec(
        "local-linear", _local(_linear), tasks=ALL_TASKS,
        description="Local baseline: one standardized LinearSVC (Ridge) per node, "
        "nothing communicated",
        param_grid={"estimator__linearsvc__C": [0.01, 0.1, 1.0, 10.0]},
        baseline="local",
        behind_note="every node fits its model on its own training samples only",
    ),
    MethodSpec(
        "global-adaboost", _adaboost, pooled=True,
        communication=raw_data_bytes, bytes_note=_RAW_NOTE,
        description="Global baseline: AdaBoost over decision stumps on the pooled data",
        default_datasets=DADA_DATASETS,
        baseline="global",
        behind_note="one ensemble of decision stumps (axis-aligned thresholds) shared by "
        "every node",
    ),
    MethodSpec(
        "local-adaboost", _local(_adaboost),
        description="Local baseline: AdaBoost over decision stumps per node",
        default_datasets=DADA_DATASETS,
        baseline="local",
        behind_note="every node boosts 100 stumps on its own training samples only",
    ),
    MethodSpec(
        "online-kernel", _online_kernel, tasks=ALL_TASKS,
        description="Decentralized online kernel SGD with consensus penalty and KOMP "
        "(Koppel et al.) at its defaults, peer-to-peer bytes counted",
        param_grid={"kernel": ["auto", "rbf"], "gamma": ["median", "scale"],
                    "alpha": [3e-5, 1e-4, 3e-4], "eta0": ["auto", 0.3],
                    "max_dictionary_size": [100, 150], "consensus_penalty": [0.0, 0.1, 0.3],
                    "max_epochs": [10, 30]},
        default_datasets=ONLINE_DATASETS,
        behind_note="streaming SGD, not a converged batch solver: every node learns "
        "from one sample at a time (30 passes) with at most 100 kernel centres",
        bytes_why="its messages carry kernel centres, i.e. the node's own training rows: "
        "a node sends each row at most once to each of its ring neighbours (the raw "
        "upload sends it once, to the server), plus its centres' weights once per pass",
    ),
    MethodSpec(
        "fed-sparse-linear", _sparse_linear, tasks=("regression",),
        description="One-shot federated support recovery (Barik & Honorio, alpha='auto': "
        "per-client t-tests, a binomial vote test) + least-squares refit on the "
        "support, per-node intercepts",
        param_grid={"alpha": ["auto"], "auto_z": [None, 0.5, 2.0],
                    "rogue_tolerance": [None, 0.0, 0.2]},
        default_datasets=SPARSE_DATASETS,
        behind_note="a least-squares refit on the features of one support shared by all "
        "nodes (per-node intercepts only)",
        bytes_why="support votes (a bit per feature), then every node's sufficient "
        "statistics on the support, then the coefficients back",
    ),
    MethodSpec(
        "mocha-linear", _mocha("linear"), tasks=ALL_TASKS,
        description="Federated multi-task learning with learned Omega (MOCHA, linear), "
        "server-coordinated; model vectors each round",
        param_grid={"C": [0.1, 1.0, 10.0, 100.0]},
        default_datasets=MOCHA_DATASETS,
        behind_note="a linear model per node (C=1), coupled to the others through the "
        "learned task relationships",
        bytes_why="every round each node receives and returns a model vector "
        "(n_features + 1 values, 8-bit quantized), for as many rounds as its stopping "
        "rule takes",
    ),
    MethodSpec(
        "mocha-rbf", _mocha("rbf"),
        description="Kernelized MOCHA, rbf kernel (gamma='scale') at its defaults: "
        "approximation='auto' (here random Fourier features from a shared seed, "
        "ceil(2 sqrt(n) ln n) of them), 8-bit messages with error feedback, learned Omega; "
        "one model vector each way per node and round, no data leaves a node",
        param_grid={"C": [0.1, 1.0, 10.0, 100.0]},
        default_datasets=("har-sitting",),
        behind_note="a linear model per node on random Fourier features of the rbf kernel, "
        "coupled through the learned task relationships",
        bytes_why="every round each node receives and returns a model vector over the "
        "random features (8-bit quantized), for as many rounds as its stopping rule takes",
    ),
    MethodSpec(
        "dada-learned", _dada("learned"),
        description="Dada: per-node l1 boosting of decision stumps by asynchronous "
        "decentralized Frank-Wolfe, collaboration graph learned jointly; peer-to-peer "
        "bytes counted",
        param_grid={"beta": [3.0, 10.0, 30.0], "mu": [0.3, 1.0, 3.0]},
        default_datasets=DADA_DATASETS,
        behind_note="each node's model is an l1-bounded (beta=3) combination of stumps "
        "built by 100 Frank-Wolfe wake-ups per node and pulled toward its learned "
        "neighbours' models (mu=3)",
        bytes_why="every wake-up sends a stump index and a step to each graph neighbour, "
        "and every graph update exchanges whole models with up to kappa=5 sampled peers",
    ),
    MethodSpec(
        "dada-oracle", _dada("oracle"),
        description="Dada on the dataset's oracle similarity graph (moons)",
        param_grid={"beta": [3.0, 10.0, 30.0], "mu": [0.3, 1.0, 3.0]},
        default_datasets=("moons",),
        behind_note="each node's model is an l1-bounded (beta=3) combination of stumps "
        "built by 100 Frank-Wolfe wake-ups per node and pulled toward its neighbours' "
        "models on the given graph (mu=3)",
        bytes_why="every wake-up sends a stump index and a step to each neighbour of the "
        "given graph",
    ),
    MethodSpec(
        "perso-linear", _perso_linear,
        description="Perso-lin: personalized logistic models smoothed over a graph learned "
        "as in Dada (asynchronous block coordinate descent)",
        param_grid={"mu": [0.1, 1.0, 10.0], "alpha": [1e-3, 1e-2]},
        default_datasets=DADA_DATASETS,
        behind_note="a logistic model per node (l2 alpha=1e-2, unstandardized features) "
        "pulled toward its learned neighbours' models (mu=1)",
        bytes_why="every wake-up sends the node's model (n_features + 1 values) to its "
        "graph neighbours, and the graph learning exchanges models with up to kappa=5 "
        "sampled peers",
    ),
)

METHODS = {}


def register_method(spec, *, replace=False):
    """Add a :class:`MethodSpec` to :data:`METHODS`."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_method expects a MethodSpec, got {type(spec).__name__}.")
    unknown = set(spec.tasks) - set(TASKS)
    if unknown:
        raise ValueError(f"MethodSpec {spec.name!r} has unknown tasks {sorted(unknown)}.")
    if spec.name in METHODS and not replace:
        raise ValueError(f"A method named {spec.name!r} is already registered.")
    METHODS[spec.name] = spec
    return spec


for _spec in _METHOD_TABLE:
    register_method(_spec)


# -------------------------------------------------------------- datasets
def _per_node_split(X, y, groups, seed, graph=None, test_size=0.25):
    from sklearn.utils.multiclass import type_of_target

    from .datasets import train_test_split_per_node

    parts = train_test_split_per_node(X, y, groups, test_size=test_size, random_state=seed)
    # train_test_split_per_node stratifies class labels only.
    how = " (stratified)" if type_of_target(y) in ("binary", "multiclass") else ""
    return SplitData(
        *parts, graph=graph, split=f"per-node {1 - test_size:.0%}/{test_size:.0%} split{how}"
    )


def _har(task):
    def load(seed):
        from .datasets import load_har

        return _per_node_split(*load_har(task=task, return_X_y=True), seed)

    return load


def _landmine(seed):
    from .datasets import load_landmine

    return _per_node_split(*load_landmine(return_X_y=True), seed)


def _school(task):
    def load(seed):
        from .datasets import load_school

        split = seed % 10 + 1
        parts = load_school(task=task, split=split, return_X_y=True)
        return SplitData(*parts, split=f"official split {split} of 10 (seed {seed})")

    return load


def _computer(task):
    def load(seed):
        from .datasets import load_computer_buyers

        parts = load_computer_buyers(task=task, split="dada", random_state=seed, return_X_y=True)
        return SplitData(
            *parts, split="Dada's split: shared computer order, 5-10 training computers each"
        )

    return load


def _moons(seed):
    from .datasets import make_rotated_moons

    # Zero padding of the 18 extra coordinates, as in the Dada authors' code
    # (noise padding makes every method near chance on 3-14 samples a node).
    X, X_te, y, y_te, g, g_te, graph, _ = make_rotated_moons(padding_std=0.0, random_state=seed)
    return SplitData(X, X_te, y, y_te, g, g_te, graph=graph, split="generated test set, 100 per node")


def _mixture(seed):
    from .datasets import make_gaussian_mixture_network

    X, y, g, adjacency = make_gaussian_mixture_network(random_state=seed)
    return _per_node_split(X, y, g, seed, graph=adjacency.astype(np.float64))


def _sparse_regression(seed):
    from .datasets import make_federated_sparse_regression

    X, y, g, _, _ = make_federated_sparse_regression(
        n_clients=20, n_samples=200, n_features=200, n_informative=5,
        correlation=(0.0, 0.3), random_state=seed,
    )
    return _per_node_split(X, y, g, seed)


_DATASET_TABLE = (
    DatasetSpec(
        "har-sitting", "binary", _har("sitting"),
        "UCI HAR, 21 people, SITTING vs rest (MOCHA's task)",
        "plain linear SVMs on this per-node 75/25 split: about 2.0 % error global, 1.4 % "
        "local (the skfed developers' run on the full data)",
    ),
    DatasetSpec(
        "har-walking", "binary", _har("walking"),
        "UCI HAR, 21 people, walking vs static activities (Dada's HARWS task)",
    ),
    DatasetSpec("har-activity", "multiclass", _har("activity"), "UCI HAR, 21 people, 6 activities"),
    DatasetSpec(
        "landmine", "binary", _landmine,
        "Landmine, 29 mine fields, 9 raw features, 6.1 % mines",
    ),
    DatasetSpec(
        "school-classification", "binary", _school("classification"),
        "ILEA School, 139 schools, score > 20 (Dada's protocol, D = 17)",
        "Dada Table 1: global linear 57.06, local linear 70.43 (% accuracy)",
    ),
    DatasetSpec(
        "school-regression", "regression", _school("regression"),
        "ILEA School, 139 schools, exam score from 28 features",
    ),
    DatasetSpec(
        "computer-classification", "binary", _computer("classification"),
        "Computer buyers, 190 people x 20 computers, rating > 5 (Dada)",
        "Dada Table 1: global linear 62.18, local linear 60.68 (% accuracy)",
    ),
    DatasetSpec(
        "computer-regression", "regression", _computer("regression"),
        "Computer buyers, 190 people x 20 computers, rating 0-10",
    ),
    DatasetSpec(
        "moons", "binary", _moons,
        "synthetic: Dada's clustered rotated two moons, 100 nodes in 4 clusters, D = 20",
    ),
    DatasetSpec(
        "gaussian-mixture", "multiclass", _mixture,
        "synthetic: Koppel's 5-class Gaussian mixtures over a 20-node random network",
    ),
    DatasetSpec(
        "sparse-regression", "regression", _sparse_regression,
        "synthetic: Barik & Honorio's sparse regression, 20 heterogeneous clients, "
        "d = 200, s = 5, Toeplitz correlation up to 0.3",
    ),
)

DATASETS = {}


def register_dataset(spec, *, replace=False):
    """Add a :class:`DatasetSpec` to :data:`DATASETS`."""
    if spec.task not in TASKS:
        raise ValueError(f"DatasetSpec {spec.name!r}: task must be one of {TASKS}.")
    if spec.name in DATASETS and not replace:
        raise ValueError(f"A dataset named {spec.name!r} is already registered.")
    DATASETS[spec.name] = spec
    return spec


for _spec in _DATASET_TABLE:
    register_dataset(_spec)

# HAR sitting-vs-rest: real, the task of MOCHA, 21 nodes of 281-409 samples
# (every node has enough data for a local model and for a test score), a
# published reference for the two baselines, and the linear baselines fit in
# seconds on 2 cores.
DEFAULT_DATASET = "har-sitting"


def applicable_methods(task, dataset=None):
    """Names of the registered methods that apply to ``task``.

    With ``dataset``, only those that run on it by default
    (``MethodSpec.default_datasets``).
    """
    return [
        name
        for name, spec in METHODS.items()
        if task in spec.tasks
        and (dataset is None or spec.default_datasets is None or dataset in spec.default_datasets)
    ]


# ------------------------------------------------------------------ running
def _quick_subset(data, seed, max_nodes=6, max_train=80, max_test=40):
    """A small slice of a split for ``--quick``: few nodes, few samples."""
    rng = np.random.RandomState(seed)
    nodes = np.unique(data.groups_train)
    keep = nodes[:max_nodes]

    def pick(groups, cap):
        rows = []
        for node in keep:
            node_rows = np.flatnonzero(groups == node)
            if node_rows.size > cap:
                node_rows = np.sort(rng.choice(node_rows, size=cap, replace=False))
            rows.append(node_rows)
        return np.concatenate(rows)

    tr = pick(data.groups_train, max_train)
    te = pick(data.groups_test, max_test)
    graph = None
    if data.graph is not None:
        index = np.searchsorted(nodes, keep)
        graph = np.asarray(data.graph)[np.ix_(index, index)]
    return SplitData(
        data.X_train[tr], data.X_test[te], data.y_train[tr], data.y_test[te],
        data.groups_train[tr], data.groups_test[te], graph=graph,
        split=data.split + f"; --quick: first {len(keep)} nodes, <= {max_train} train / "
        f"{max_test} test samples each",
    )


def _node_scores(task, y_true, y_pred, groups):
    """Score of every node with test samples: accuracy, or R^2 for regression."""
    from sklearn.metrics import accuracy_score, r2_score

    scores = {}
    for node in np.unique(groups):
        rows = groups == node
        if task == "regression":
            if rows.sum() < 2:
                continue
            scores[node.item() if hasattr(node, "item") else node] = float(
                r2_score(y_true[rows], y_pred[rows])
            )
        else:
            scores[node.item() if hasattr(node, "item") else node] = float(
                accuracy_score(y_true[rows], y_pred[rows])
            )
    return scores


def _set_verbose(estimator, verbose):
    params = estimator.get_params(deep=True)
    updates = {key: verbose for key in params if key == "verbose" or key.endswith("__verbose")}
    if updates:
        try:
            estimator.set_params(**updates)
        except (ValueError, TypeError):
            pass
    return estimator


def _run_one(spec, ctx, data):
    estimator = spec.factory(ctx)
    if ctx.verbose > 1:
        _set_verbose(estimator, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        if spec.pooled:
            estimator.fit(data.X_train, data.y_train)
        else:
            estimator.fit(data.X_train, data.y_train, groups=data.groups_train)
        fit_time = time.perf_counter() - start
        if spec.pooled:
            y_pred = estimator.predict(data.X_test)
        else:
            y_pred = estimator.predict(data.X_test, groups=data.groups_test)
        # The training score, to tell a model that cannot fit (underfits)
        # from one that fits and does not generalize (overfits).
        if spec.pooled:
            y_fit = estimator.predict(data.X_train)
        else:
            y_fit = estimator.predict(data.X_train, groups=data.groups_train)
    if spec.communication is not None:
        n_bytes = spec.communication(estimator, data.X_train, data.y_train, data.groups_train)
    else:
        n_bytes = getattr(estimator, "n_bytes_sent_", None)
        if n_bytes is None:
            raise AttributeError(
                f"Method {spec.name!r}: the fitted estimator has no n_bytes_sent_; give "
                "its MethodSpec a communication= function."
            )
    y_pred = np.asarray(y_pred)
    y_test = np.asarray(data.y_test)
    groups_test = np.asarray(data.groups_test)
    groups_train = np.asarray(data.groups_train)
    node_scores = _node_scores(ctx.task, y_test, y_pred, groups_test)
    values = np.array(list(node_scores.values()), dtype=float)
    pooled = _pooled_score(ctx.task, y_test, y_pred)
    train_score = _pooled_score(ctx.task, np.asarray(data.y_train), np.asarray(y_fit))
    node_train_scores = _node_scores(ctx.task, np.asarray(data.y_train), np.asarray(y_fit),
                                     groups_train)
    rounds = getattr(estimator, "bytes_per_round_", None)
    # The whole first line of each warning (a cut one can drop the advice at
    # its end); the CLI wraps long lines at word boundaries.
    messages = sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught})
    return {
        "method": spec.name,
        "seed": ctx.random_state,
        "mean_node_score": float(np.mean(values)) if values.size else math.nan,
        "worst_node_score": float(np.min(values)) if values.size else math.nan,
        "pooled_score": pooled,
        "bytes_sent": int(n_bytes),
        "fit_time_s": float(fit_time),
        "n_nodes_scored": int(values.size),
        "node_scores": node_scores,
        "warnings": messages,
        # What the reasons under the table are computed from.
        "train_score": train_score,
        "node_train_scores": node_train_scores,
        "node_train_sizes": _node_sizes(groups_train),
        "node_test_sizes": _node_sizes(groups_test),
        "n_rounds": 0 if rounds is None else int(len(rounds)),
        "n_messages": int(getattr(estimator, "n_messages_", 0) or 0),
        "raw_bytes": int(raw_data_bytes(None, data.X_train, data.y_train, groups_train)),
        "n_features": int(data.X_train.shape[1]),
        # Per test sample: 1 / 0 correct (classification) or minus the squared
        # error (regression), for paired comparisons; not written to files.
        "_sample_scores": (
            -((y_pred.astype(float) - y_test.astype(float)) ** 2) if ctx.task == "regression"
            else (y_pred == y_test).astype(float)
        ),
    }


def _pooled_score(task, y_true, y_pred):
    """Accuracy, or R^2 for regression, over all samples at once."""
    if task == "regression":
        from sklearn.metrics import r2_score

        return float(r2_score(y_true, y_pred))
    return float(np.mean(y_pred == y_true))


def _node_sizes(groups):
    labels, counts = np.unique(groups, return_counts=True)
    return {(k.item() if hasattr(k, "item") else k): int(c) for k, c in zip(labels, counts)}


SUMMARY_FIELDS = (
    "method",
    "mean_node_score",
    "mean_node_score_std",
    "worst_node_score",
    "worst_node_score_std",
    "pooled_score",
    "pooled_score_std",
    "bytes_sent",
    "fit_time_s",
    "n_runs",
)
RUN_FIELDS = (
    "method",
    "seed",
    "mean_node_score",
    "worst_node_score",
    "pooled_score",
    "bytes_sent",
    "fit_time_s",
    "n_nodes_scored",
)


def _summarize(runs, methods):
    table = []
    for name in methods:
        rows = [r for r in runs if r["method"] == name]
        if not rows:
            continue
        row = {"method": name, "n_runs": len(rows)}
        for key in ("mean_node_score", "worst_node_score", "pooled_score"):
            values = np.array([r[key] for r in rows], dtype=float)
            row[key] = float(np.mean(values))
            row[key + "_std"] = float(np.std(values)) if len(values) > 1 else 0.0
        row["bytes_sent"] = int(round(np.mean([r["bytes_sent"] for r in rows])))
        row["fit_time_s"] = float(np.mean([r["fit_time_s"] for r in rows]))
        table.append(row)
    return table


@dataclass
class CompareResult:
    """Result of :func:`compare`.

    Attributes
    ----------
    table : list of dict
        One summary row per method (fields :data:`SUMMARY_FIELDS`), averaged
        over the seeds.
    runs : list of dict
        One row per method and seed, with the per-node scores.
    info : dict
        Dataset, task, metric, split, sizes, seeds, versions.
    """

    table: list
    runs: list
    info: dict
    notes: list = field(default_factory=list)

    def to_frame(self):
        """The summary table as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.table, columns=list(SUMMARY_FIELDS))

    def format(self):
        """The summary table as printed by ``skfed compare``."""
        return format_table(self)

    def to_dict(self):
        runs = [{k: v for k, v in run.items() if not k.startswith("_")} for run in self.runs]
        return {"info": self.info, "table": self.table, "runs": runs, "notes": self.notes,
                "reasons": loss_reasons(self)}

    def save(self, output_dir, plots=True):
        """Write ``results.csv``, ``runs.csv``, ``node_scores.csv``,
        ``results.json`` and (matplotlib installed) two plots; return the paths."""
        return save_results(self, output_dir, plots=plots)


def compare(
    dataset=DEFAULT_DATASET,
    methods=None,
    *,
    seeds=(0,),
    quick=False,
    n_jobs=None,
    verbose=1,
    log=None,
):
    """Fit the baselines and every applicable method on a dataset.

    Parameters
    ----------
    dataset : str, default="har-sitting"
        A name in :data:`DATASETS`.
    methods : list of str or None, default=None
        Names in :data:`METHODS`; None runs every method whose ``tasks``
        include the dataset's task and whose ``default_datasets`` (if set)
        include the dataset.
    seeds : sequence of int, default=(0,)
        One repeat per seed: the seed of the per-node split (School: official
        split ``seed % 10 + 1``; synthetic data: the generator) and of the
        methods.
    quick : bool, default=False
        A small slice of the data (6 nodes, <= 80 training samples each) and
        cheap method settings: a smoke run in seconds.
    n_jobs : int or None, default=None
        Passed to methods that fit nodes in parallel.
    verbose : int, default=1
        0 silent; 1 one progress line per fit (method, seed); 2 also turns on
        the methods' own ``verbose`` (rounds).
    log : file-like, default=sys.stderr
        Where progress goes.

    Returns
    -------
    CompareResult
    """
    if dataset not in DATASETS:
        raise ValueError(
            f"Unknown dataset {dataset!r}; choose one of {sorted(DATASETS)}."
        )
    spec = DATASETS[dataset]
    not_default = []
    if methods is None:
        methods = applicable_methods(spec.task, dataset)
        not_default = [m for m in applicable_methods(spec.task) if m not in methods]
    else:
        methods = list(dict.fromkeys(methods))
        unknown = [m for m in methods if m not in METHODS]
        if unknown:
            raise ValueError(
                f"Unknown method(s) {unknown}; registered methods: {sorted(METHODS)}."
            )
        wrong = [m for m in methods if spec.task not in METHODS[m].tasks]
        if wrong:
            raise ValueError(
                f"Method(s) {wrong} do not apply to the {spec.task} task of {dataset!r}; "
                f"applicable: {applicable_methods(spec.task)}."
            )
    if not methods:
        raise ValueError(f"No registered method applies to the {spec.task} task of {dataset!r}.")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must hold at least one seed.")
    log = sys.stderr if log is None else log

    def say(message):
        if verbose:
            print(message, file=log, flush=True)

    runs, info, majority = [], None, []
    total = len(seeds) * len(methods)
    step = 0
    for seed in seeds:
        say(f"[skfed compare] loading {dataset} (seed {seed}) ...")
        data = spec.load(seed)
        if quick:
            data = _quick_subset(data, seed)
        n_nodes = len(np.unique(np.asarray(data.groups_train)))
        ctx = MethodContext(
            task=spec.task, dataset=dataset, n_nodes=n_nodes,
            n_features=data.X_train.shape[1], n_train=data.X_train.shape[0],
            random_state=seed, quick=quick, n_jobs=n_jobs, graph=data.graph, verbose=verbose,
        )
        if info is None:
            info = {
                "dataset": dataset,
                "description": spec.description,
                "reference": spec.reference,
                "task": spec.task,
                "metric": "r2" if spec.task == "regression" else "accuracy",
                "split": data.split,
                "n_nodes": n_nodes,
                "n_train": int(data.X_train.shape[0]),
                "n_test": int(data.X_test.shape[0]),
                "n_features": int(data.X_train.shape[1]),
                "seeds": seeds,
                "quick": bool(quick),
                "methods": methods,
                "not_run_by_default": not_default,
                "bytes_notes": {m: METHODS[m].bytes_note for m in methods if METHODS[m].bytes_note},
                "versions": _versions(),
            }
        if spec.task != "regression":
            majority.append(_majority_scores(data))
        for name in methods:
            step += 1
            say(f"[skfed compare] [{step}/{total}] seed {seed}: fitting {name} on {n_nodes} nodes ...")
            run = _run_one(METHODS[name], ctx, data)
            say(
                f"[skfed compare] [{step}/{total}] seed {seed}: {name} done in "
                f"{run['fit_time_s']:.2f} s, mean node score {run['mean_node_score']:.4f}"
            )
            runs.append(run)
    if majority:
        info["majority_class"] = np.mean(majority, axis=0).tolist()
    notes = sorted({f"{r['method']}: {w}" for r in runs for w in r["warnings"]})
    return CompareResult(table=_summarize(runs, methods), runs=runs, info=info, notes=notes)


def _below_floor(row, mean, pooled, n_test):
    """``"name (by ...)"``: how far a row is below the majority-label floor.

    The pooled gap is also given in test samples (``n_test`` per seed), so a
    reader sees whether it is a handful of predictions or a real loss.
    """
    gaps = []
    if row["mean_node_score"] < mean:
        gaps.append(f"{mean - row['mean_node_score']:.4f} mean node")
    if row["pooled_score"] < pooled:
        samples = int(round((pooled - row["pooled_score"]) * n_test))
        gaps.append(f"{pooled - row['pooled_score']:.4f} pooled, {samples:,} of {n_test:,} "
                    "test samples")
    return f"{row['method']} (by {', '.join(gaps)})"


def _majority_scores(data):
    """``(mean node, pooled)`` accuracy of predicting each node's majority training label.

    The floor a classifier must clear on unbalanced data (Landmine: 6 %
    mines, so predicting "no mine" everywhere is already about 0.94).
    """
    y_train, y_test = np.asarray(data.y_train), np.asarray(data.y_test)
    g_train, g_test = np.asarray(data.groups_train), np.asarray(data.groups_test)
    labels, counts = np.unique(y_train, return_counts=True)
    overall = labels[np.argmax(counts)]
    pred = np.empty(len(y_test), dtype=y_train.dtype)
    for node in np.unique(g_test):
        own = y_train[g_train == node]
        if own.size:
            values, n = np.unique(own, return_counts=True)
            pred[g_test == node] = values[np.argmax(n)]
        else:
            pred[g_test == node] = overall
    nodes = _node_scores("binary", y_test, pred, g_test)
    return float(np.mean(list(nodes.values()))), float(np.mean(pred == y_test))


def _versions():
    import sklearn

    from . import __version__

    return {
        "skfed": __version__,
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


# ----------------------------------------------------------------- output
def _fmt_score(mean, std, n_runs):
    if math.isnan(mean):
        return "nan"
    if n_runs > 1:
        return f"{mean:.4f} ± {std:.4f}"
    return f"{mean:.4f}"


def format_table(result):
    """Text table of a :class:`CompareResult` (what ``skfed compare`` prints)."""
    info = result.info
    metric = info["metric"]
    header = (
        "method",
        f"mean node {metric}",
        f"worst node {metric}",
        f"pooled {metric}",
        "bytes sent",
        "fit time (s)",
    )
    rows = []
    for row in result.table:
        n = row["n_runs"]
        mark = " *" if METHODS.get(row["method"]) and METHODS[row["method"]].bytes_note else ""
        rows.append(
            (
                row["method"],
                _fmt_score(row["mean_node_score"], row["mean_node_score_std"], n),
                _fmt_score(row["worst_node_score"], row["worst_node_score_std"], n),
                _fmt_score(row["pooled_score"], row["pooled_score_std"], n),
                f"{row['bytes_sent']:,}{mark}",
                f"{row['fit_time_s']:.3f}",
            )
        )
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

    def line(cells):
        first = f"{cells[0]:<{widths[0]}}"
        rest = [f"{c:>{w}}" for c, w in zip(cells[1:], widths[1:])]
        return "  ".join([first] + rest)

    seeds = info["seeds"]
    out = [
        f"skfed compare: {info['dataset']} - {info['description']}",
        f"{info['n_nodes']} nodes, {info['n_train']:,} training / {info['n_test']:,} test samples, "
        f"{info['n_features']} features; {info['split']}",
        f"seeds: {', '.join(map(str, seeds))}"
        + (" (mean ± std over seeds)" if len(seeds) > 1 else ""),
        "",
        line(header),
        line(["-" * w for w in widths]),
    ]
    out.extend(line(r) for r in rows)
    out.append("")
    if info.get("majority_class"):
        mean, pooled = info["majority_class"]
        below = [_below_floor(row, mean, pooled, info["n_test"]) for row in result.table
                 if row["mean_node_score"] < mean or row["pooled_score"] < pooled]
        out.append(textwrap.fill(
            f"Floor: predicting each node's most frequent training label scores {mean:.4f} "
            f"mean node / {pooled:.4f} pooled accuracy"
            + (f"; below it: {'; '.join(below)}." if below else "."), width=100))
    out.extend(_column_definitions(result))
    reasons = loss_reasons(result)
    if reasons:
        out.append(textwrap.fill(
            "Why a row scores below a baseline or sends more than the raw upload, measured "
            "on these runs (a/b: this row / the baseline; ± one standard error of the "
            "paired difference; noise: under two of them, or under two binomial standard "
            "errors of the worst node's accuracy; under/overfits: its training score is "
            "lower / higher than the baseline's):", width=100))
        for reason in reasons:
            out.append(textwrap.fill(reason, width=100, initial_indent="- ",
                                     subsequent_indent="  "))
    if info.get("not_run_by_default"):
        out.append(textwrap.fill(
            f"Not run by default, since {info['dataset']} is not among the datasets they "
            f"are benchmarked on (add them with --methods): "
            f"{', '.join(info['not_run_by_default'])}.", width=100))
    if info.get("quick"):
        quick = (
            "--quick: a smoke run on a small slice with short fits (fewer iterations, "
            "rounds and estimators than the full run, so ConvergenceWarnings are "
            "expected); the scores are not the methods' accuracy."
        )
        if "dada-oracle" in info["methods"]:
            quick += (
                " dada-oracle needs the most iterations: on the moons slice it scores "
                "less at --quick's 20 wake-ups per node than at the full run's 100."
            )
        out.append(quick)
    if info.get("reference"):
        if info.get("quick"):
            out.append(
                f"Reference (full data, not comparable with this --quick run): "
                f"{info['reference']}"
            )
        else:
            out.append(f"Reference: {info['reference']}")
    return "\n".join(out)


# A loss smaller than this many standard errors is called noise.
_NOISE_SE = 2.0


def _column_definitions(result):
    """What every column of the table means (printed under it)."""
    info = result.info
    metric = info["metric"]
    name = "R^2" if metric == "r2" else "accuracy"
    lines = [
        "Columns:",
        f"  mean node {metric}: each node's {name} on its own test samples, scored with the "
        "model that node uses",
        "    (its own for Local, the shared one for Global), averaged over the nodes: every "
        "node counts once.",
        f"  worst node {metric}: the lowest of these per-node scores.",
        f"  pooled {metric}: {name} over the test samples of all nodes together: a node "
        "counts by its number",
        "    of test samples.",
        "  bytes sent: bytes communicated during fit under skfed's byte model (a 16-byte "
        "header per message,",
        "    8 bytes a float64 value); Local baselines send nothing.",
    ]
    notes = sorted(set(info.get("bytes_notes", {}).values()))
    lines.extend(textwrap.fill(f"* {note}.", width=100, initial_indent="    ",
                               subsequent_indent="    ") for note in notes)
    lines.append("  fit time (s): wall-clock seconds of fit on this machine.")
    if len(info.get("seeds", [])) > 1:
        lines.append("  mean ± std: over the seeds (one split and fit each).")
    return lines


def _baseline_kind(name):
    spec = METHODS.get(name)
    return spec.baseline if spec is not None else ""


def _paired(result, method, baseline, key):
    """Paired differences ``method - baseline``: per node, or per test sample.

    ``key`` is ``"node"`` (every node of every seed with a score for both)
    or ``"sample"`` (every test sample of every seed).
    """
    by_seed = {}
    for run in result.runs:
        if run["method"] in (method, baseline):
            by_seed.setdefault(run["seed"], {})[run["method"]] = run
    diffs = []
    for pair in by_seed.values():
        if len(pair) < 2:
            continue
        a, b = pair[method], pair[baseline]
        if key == "sample":
            if "_sample_scores" in a and "_sample_scores" in b:
                diffs.append(np.asarray(a["_sample_scores"]) - np.asarray(b["_sample_scores"]))
            continue
        nodes = [n for n in a["node_scores"] if n in b["node_scores"]]
        diffs.append(np.array([a["node_scores"][n] - b["node_scores"][n] for n in nodes]))
    return np.concatenate(diffs) if diffs else np.zeros(0)


def _noise(diffs):
    """``(mean, standard error)`` of paired differences."""
    if diffs.size < 2:
        return (float(diffs.mean()) if diffs.size else 0.0), math.inf
    return float(diffs.mean()), float(diffs.std(ddof=1) / np.sqrt(diffs.size))


def _first_run(result, method):
    """The run of ``method`` on the first seed."""
    return next(run for run in result.runs if run["method"] == method)


def _fit_diagnosis(result, method, baseline):
    """Training scores ``a/b`` and whether ``method`` underfits or overfits next to ``baseline``."""
    runs = [r for r in result.runs if r["method"] in (method, baseline) and "train_score" in r]
    train = {m: float(np.mean([r["train_score"] for r in runs if r["method"] == m] or [np.nan]))
             for m in (method, baseline)}
    if any(math.isnan(v) for v in train.values()):
        return ""
    gap = train[method] - train[baseline]
    how = "underfits" if gap < -5e-4 else ("overfits" if gap > 5e-4 else "fits as well")
    return f"training {train[method]:.3f}/{train[baseline]:.3f}: {how}"


def _why_behind(method, baseline):
    """The documented property that makes ``method`` score below ``baseline``."""
    mine, theirs = _baseline_kind(method), _baseline_kind(baseline)
    if mine and mine == theirs:
        # Two baselines on the same data: only the model class differs.
        return (f"vs {baseline}: the same {mine} data, another model class "
                f"({method.split('-', 1)[-1]} vs {baseline.split('-', 1)[-1]})")
    return METHODS[method].behind_note if method in METHODS else ""


_COLUMN_WORDS = {"mean_node_score": "mean", "worst_node_score": "worst",
                 "pooled_score": "pooled"}


def _against(result, method, baseline, columns):
    """``(text, significant)``: the losses of ``method`` to ``baseline`` in ``columns``."""
    table = {row["method"]: row for row in result.table}
    noise, real = [], []
    for column in columns:
        mine, theirs = table[method][column], table[baseline][column]
        words = f"{_COLUMN_WORDS[column]} {mine:.3f}/{theirs:.3f}"
        if column == "worst_node_score":
            within, detail = _worst_node(result, method, baseline)
        else:
            unit = "node" if column == "mean_node_score" else "sample"
            mean, se = _noise(_paired(result, method, baseline, unit))
            within = abs(mean) < _NOISE_SE * se
            detail = f"{mean:+.3f} ± {se:.3f} over {unit}s"
        (noise if within else real).append(f"{words} ({detail})")
    parts = []
    if noise:
        parts.append("noise: " + ", ".join(noise))
    if real:
        diagnosis = _fit_diagnosis(result, method, baseline)
        parts.append("below: " + ", ".join(real) + (f", {diagnosis}" if diagnosis else ""))
    return f"vs {baseline} [" + "; ".join(parts) + "]", bool(real)
def _worst_node(result, method, baseline):
    """``(within noise, detail)`` of a worst-node loss (first seed's runs)."""
    a, b = _first_run(result, method), _first_run(result, baseline)
    node = min(a["node_scores"], key=a["node_scores"].get)
    score = a["node_scores"][node]
    n_test = a.get("node_test_sizes", {}).get(node)
    n_train = a.get("node_train_sizes", {}).get(node)
    gap = b["worst_node_score"] - score
    if result.info["metric"] == "accuracy" and n_test and len(result.info["seeds"]) == 1:
        # One node's accuracy is a proportion over its test samples.
        se = math.sqrt(max(score * (1 - score), 1.0 / n_test) / n_test)
        if gap < _NOISE_SE * se:
            return True, (f"{round(gap * n_test)} of node {node!r}'s {n_test} test samples, "
                          f"binomial s.e. {se:.3f}")
    return False, (f"node {node!r}: {n_train} training samples, "
                   f"{b['node_scores'].get(node, math.nan):.3f} under {baseline}")


def _bytes_reason(result, method, baseline):
    table = {row["method"]: row for row in result.table}
    run = _first_run(result, method)
    n_bytes, raw = table[method]["bytes_sent"], table[baseline]["bytes_sent"]
    text = f"bytes {n_bytes / max(raw, 1):.1f} x the raw upload"
    if run.get("n_messages"):
        text += (f" ({run['n_messages']:,} messages in {run['n_rounds']:,} rounds, "
                 f"{n_bytes / run['n_messages']:,.0f} B each)")
    why = METHODS[method].bytes_why if method in METHODS else ""
    return text + (f": {why}" if why else "")


def loss_reasons(result):
    """One line for every row whose score or bytes lose to a baseline, saying why.

    Scores: the mean node score, the worst node score and the pooled score
    of each row are compared with every baseline row (Global and Local);
    a loss is either within noise (the paired difference over nodes, or
    over test samples for the pooled score, is below two standard errors;
    for the worst node, below the binomial standard error of one node's
    accuracy) or explained by the measured training scores and the
    method's documented ``behind_note``.  Bytes: a row sending more than a
    Global baseline's raw-data upload is explained by its measured
    messages and rounds and its documented ``bytes_why``.  A Local baseline
    sends nothing; that every collaborating method sends more is the point
    of the comparison, not a loss to explain.

    Returns
    -------
    list of str
    """
    metric = result.info["metric"]
    table = {row["method"]: row for row in result.table}
    baselines = [m for m in table if _baseline_kind(m)]
    lines = []
    for name, row in table.items():
        lost = {}  # every baseline ahead -> the columns where it is ahead
        for column in _COLUMN_WORDS:
            for b in baselines:
                if b != name and table[b][column] > row[column]:
                    lost.setdefault(b, []).append(column)
        parts, why = [], []
        for b, columns in lost.items():
            text, significant = _against(result, name, b, columns)
            parts.append(text)
            note = _why_behind(name, b) if significant else ""
            if note and note not in why:
                why.append(note)
        if why:
            parts.append("why: " + "; ".join(why))
        uploads = [b for b in baselines if _baseline_kind(b) == "global" and b != name
                   and not getattr(METHODS.get(name), "pooled", False)
                   and 0 < table[b]["bytes_sent"] < row["bytes_sent"]]
        if uploads:
            parts.append(_bytes_reason(
                result, name, min(uploads, key=lambda b: table[b]["bytes_sent"])))
        if parts:
            lines.append(f"{name}: " + "; ".join(parts) + ".")
    return lines


def save_results(result, output_dir, plots=True):
    """Write the tables (CSV, JSON) and, when matplotlib is installed, plots."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    path = output_dir / "results.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(SUMMARY_FIELDS))
        writer.writeheader()
        for row in result.table:
            writer.writerow({k: _csv_value(row[k]) for k in SUMMARY_FIELDS})
    paths.append(path)
    path = output_dir / "runs.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(RUN_FIELDS))
        writer.writeheader()
        for run in result.runs:
            writer.writerow({k: _csv_value(run[k]) for k in RUN_FIELDS})
    paths.append(path)
    path = output_dir / "node_scores.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["method", "seed", "node", "score"])
        for run in result.runs:
            for node, score in run["node_scores"].items():
                writer.writerow([run["method"], run["seed"], node, _csv_value(score)])
    paths.append(path)
    path = output_dir / "results.json"
    payload = result.to_dict()
    payload["runs"] = [
        {**run, "node_scores": {str(k): v for k, v in run["node_scores"].items()}}
        for run in payload["runs"]
    ]
    path.write_text(json.dumps(_jsonable(payload), indent=2))
    paths.append(path)
    path = output_dir / "table.txt"
    path.write_text(format_table(result) + "\n")
    paths.append(path)
    if plots:
        paths.extend(_plots(result, output_dir))
    return paths


def _rounded(value):
    """A float at 6 significant digits: 0.4982, not 0.49819999999999987."""
    return float(f"{value:.6g}")


def _csv_value(value):
    if isinstance(value, float):
        return repr(_rounded(value))
    return value


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) else _rounded(value)
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    return value


def _plots(result, output_dir):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warnings.warn(
            "matplotlib is not installed, so node_scores.png and score_vs_bytes.png "
            f"were not written; {install_hint('plot')} for them, or pass --no-plots.",
            UserWarning,
            stacklevel=3,
        )
        return []
    metric = result.info["metric"]
    methods = [row["method"] for row in result.table]
    paths = [_node_scores_plot(plt, result, methods, metric, output_dir),
             _score_vs_bytes_plot(plt, result, metric, output_dir)]
    return paths


def _node_scores_plot(plt, result, methods, metric, output_dir):
    """Box plot of the per-node scores of every method, with a legend of its marks."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    # The legend (about 4.5 in) sits right of the boxes, which get 0.8 in each.
    fig, ax = plt.subplots(figsize=(max(3.0, 0.8 * len(methods) + 1.2) + 4.5, 4.5))
    data = [
        [s for run in result.runs if run["method"] == m for s in run["node_scores"].values()]
        for m in methods
    ]
    ax.boxplot(
        data, showmeans=True,
        medianprops={"color": "tab:orange", "linewidth": 2},
        meanprops={"marker": "^", "markerfacecolor": "tab:green",
                   "markeredgecolor": "tab:green"},
        flierprops={"marker": "o", "markerfacecolor": "none", "markeredgecolor": "0.4"},
    )
    ax.set_xticks(range(1, len(methods) + 1), methods, rotation=30, ha="right")
    floor = _floor_line(ax, result, [s for scores in data for s in scores])
    ax.set_ylabel(f"per-node test {metric}")
    ax.set_title(f"{result.info['dataset']}: per-node scores ({result.info['n_nodes']} nodes)")
    handles = [
        Line2D([], [], color="tab:orange", linewidth=2, label="median node"),
        Line2D([], [], color="tab:green", marker="^", linestyle="none",
               label="mean node (table's mean)"),
        Patch(facecolor="none", edgecolor="black", label="middle half of the nodes"),
        Line2D([], [], color="black", label="whiskers: farthest nodes within 1.5 box heights"),
        Line2D([], [], color="0.4", marker="o", markerfacecolor="none", linestyle="none",
               label="nodes beyond the whiskers"),
    ] + floor
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False)
    fig.tight_layout()
    path = Path(output_dir) / "node_scores.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _floor_line(ax, result, scores):
    """Draw the majority-label floor of a classification task; its legend handle(s).

    A floor far below the plotted ``scores`` (more than half their range
    under the lowest) is only named in the legend: drawn, it would squeeze
    the scores into a strip at the top (HAR: 0.826 under scores of 0.98).
    """
    from matplotlib.lines import Line2D

    floor = result.info.get("majority_class")
    if not floor:
        return []
    label = f"floor: every node predicts its majority label (mean {floor[0]:.3f})"
    scores = np.asarray(scores, dtype=float)
    scores = scores[np.isfinite(scores)]
    if scores.size and floor[0] < scores.min() - 0.5 * max(np.ptp(scores), 0.01):
        # A legend entry only (not added to the axes).
        return [Line2D([], [], color="0.5", linestyle="--", linewidth=1,
                       label=label + ", below the axis")]
    return [ax.axhline(floor[0], color="0.5", linestyle="--", linewidth=1, label=label)]


def _score_vs_bytes_plot(plt, result, metric, output_dir):
    """Mean node score against bytes, one marker per method named in a legend.

    A legend instead of labels next to the points: methods with the same
    bytes (the Global baselines' raw upload) and close scores would write
    their labels over each other.
    """
    fig, ax = plt.subplots(figsize=(9.5, 4.5))
    markers = "osD^vP*Xph<>"
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, row in enumerate(result.table):
        ax.scatter(row["bytes_sent"], row["mean_node_score"], s=60, alpha=0.8,
                   marker=markers[i % len(markers)], color=colors[i % len(colors)],
                   label=f"{row['method']} ({row['bytes_sent']:,} B, "
                   f"{row['mean_node_score']:.3f})")
    floor = _floor_line(ax, result, [row["mean_node_score"] for row in result.table])
    uploads = [row["bytes_sent"] for row in result.table
               if _baseline_kind(row["method"]) == "global"]
    if uploads:
        ax.axvline(min(uploads), color="0.5", linestyle=":", linewidth=1,
                   label="raw-data upload (the Global rows)")
    positive = [row["bytes_sent"] for row in result.table if row["bytes_sent"] > 0]
    if positive:
        # Linear from 0 to the decade below the smallest count, logarithmic
        # above, with a tick at 0 and at every decade (none crowding 0).
        low = int(np.floor(np.log10(min(positive))))
        high = int(np.ceil(np.log10(max(positive))))
        ax.set_xscale("symlog", linthresh=10.0**low, linscale=0.5)
        ax.set_xticks([0] + [10.0**k for k in range(low, high + 1)])
        ax.set_xlim(-0.1 * 10.0**low, 10.0 ** (high + 0.1))
    ax.set_xlabel("bytes communicated during fit (symlog; Local rows at 0)")
    ax.set_ylabel(f"mean per-node test {metric}")
    ax.set_title(f"{result.info['dataset']}: score against communication")
    handles = ax.get_legend_handles_labels()[0]
    if floor and floor[0] not in handles:  # named only: after the methods' points
        handles.insert(len(result.table), floor[0])
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False)
    fig.tight_layout()
    path = Path(output_dir) / "score_vs_bytes.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# -------------------------------------------------------------------- CLI
def add_arguments(parser):
    """Options of ``skfed compare`` (used by :mod:`skfed.__main__`)."""
    parser.add_argument(
        "--dataset", default=DEFAULT_DATASET, metavar="NAME",
        help=f"dataset to compare on (default: {DEFAULT_DATASET}); --list shows all",
    )
    parser.add_argument(
        "--methods", nargs="+", metavar="NAME",
        help="methods to run (space- or comma-separated); default: every method "
        "that applies to the dataset's task",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--seeds", nargs="+", type=int, metavar="SEED",
                       help="seeds of the repeats (default: 0)")
    group.add_argument("--repeats", type=int, metavar="N",
                       help="run seeds 0 .. N-1")
    parser.add_argument("--output-dir", metavar="DIR",
                        help="write results.csv, runs.csv, node_scores.csv, results.json, "
                        "table.txt and, with matplotlib, node_scores.png and score_vs_bytes.png")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 6 nodes, <= 80 training samples each, cheap settings")
    parser.add_argument("--n-jobs", type=int, default=None, help="node-parallel jobs")
    parser.add_argument("--no-plots", action="store_true", help="do not draw plots")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("--quiet", "-q", action="store_true",
                           help="no progress, only the table")
    verbosity.add_argument("--verbose", "-v", action="store_true",
                           help="also the methods' own progress (rounds)")
    parser.add_argument("--list", action="store_true",
                        help="list the datasets and methods, then exit")
    return parser


def list_registry():
    lines = ["datasets:"]
    for name, spec in DATASETS.items():
        default = " (default)" if name == DEFAULT_DATASET else ""
        lines.append(f"  {name:<24} {spec.task:<11} {spec.description}{default}")
    lines.append("methods:")
    for name, spec in METHODS.items():
        lines.append(f"  {name:<24} {','.join(spec.tasks):<28} {spec.description}")
    return "\n".join(lines)


def run_cli(args, stdout=None):
    """Run ``skfed compare`` from parsed arguments; return the exit code."""
    stdout = sys.stdout if stdout is None else stdout
    if args.list:
        print(list_registry(), file=stdout)
        return 0
    methods = None
    if args.methods:
        methods = [m.strip() for item in args.methods for m in item.split(",") if m.strip()]
    if args.repeats is not None:
        if args.repeats < 1:
            raise ValueError("--repeats must be >= 1.")
        seeds = list(range(args.repeats))
    else:
        seeds = args.seeds or [0]
    verbose = 0 if args.quiet else (2 if args.verbose else 1)
    result = compare(
        args.dataset, methods, seeds=seeds, quick=args.quick, n_jobs=args.n_jobs,
        verbose=verbose,
    )
    print(result.format(), file=stdout)
    if result.notes and not args.quiet:
        print("\nWarnings raised during the fits:", file=stdout)
        if any("ConvergenceWarning" in note for note in result.notes):
            print(textwrap.fill(
                "(A ConvergenceWarning: the fit stopped at the iteration budget compare "
                "gives the method, before its tolerance; its row scores the model it "
                "returned.)", width=100, initial_indent="  ", subsequent_indent="  "),
                file=stdout)
        for note in result.notes:
            print(textwrap.fill(note, width=100, initial_indent="  ",
                                subsequent_indent="      "), file=stdout)
    if args.output_dir:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            paths = result.save(args.output_dir, plots=not args.no_plots)
        for warning in caught:
            print(f"\n{warning.message}", file=stdout)
        if not args.quiet:
            print(f"\nWrote {', '.join(p.name for p in paths)} to {args.output_dir}", file=stdout)
    return 0
