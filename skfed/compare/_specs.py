"""What ``skfed compare`` compares: the method and dataset specs and their registries.

:data:`METHODS` and :data:`DATASETS` are read through the package namespace,
``skfed.compare.METHODS`` and ``skfed.compare.DATASETS``, at call time: a user
or a test that puts a copy there (``monkeypatch.setattr(skfed.compare,
"METHODS", dict(...))``) changes what every function of the package sees, as
it did when ``skfed.compare`` was one module.
"""

import sys
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

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
    The skfed methods get ``X_train`` as returned; the Global and Local
    baselines standardize it first.  So return features of roughly unit
    scale (every shipped dataset's are), or the methods are compared on
    other features than the baselines.
    """

    name: str
    task: str
    load: Callable
    description: str
    reference: str = ""


# The columns of the summary table and of one run, in the order of the CSV files.
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


METHODS = {}
DATASETS = {}


def _registry(name):
    """The package's current ``METHODS`` or ``DATASETS`` dict.

    The one in ``skfed.compare``'s namespace, so that replacing it there is
    seen everywhere; the dict above while the package is being imported.
    """
    current = getattr(sys.modules.get(__package__), name, None)
    return globals()[name] if current is None else current


def register_method(spec, *, replace=False):
    """Add a :class:`MethodSpec` to :data:`METHODS`."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_method expects a MethodSpec, got {type(spec).__name__}.")
    unknown = set(spec.tasks) - set(TASKS)
    if unknown:
        raise ValueError(f"MethodSpec {spec.name!r} has unknown tasks {sorted(unknown)}.")
    methods = _registry("METHODS")
    if spec.name in methods and not replace:
        raise ValueError(f"A method named {spec.name!r} is already registered.")
    methods[spec.name] = spec
    return spec


def register_dataset(spec, *, replace=False):
    """Add a :class:`DatasetSpec` to :data:`DATASETS`."""
    if spec.task not in TASKS:
        raise ValueError(f"DatasetSpec {spec.name!r}: task must be one of {TASKS}.")
    datasets = _registry("DATASETS")
    if spec.name in datasets and not replace:
        raise ValueError(f"A dataset named {spec.name!r} is already registered.")
    datasets[spec.name] = spec
    return spec


def applicable_methods(task, dataset=None):
    """Names of the registered methods that apply to ``task``.

    With ``dataset``, only those that run on it by default
    (``MethodSpec.default_datasets``).
    """
    return [
        name
        for name, spec in _registry("METHODS").items()
        if task in spec.tasks
        and (dataset is None or spec.default_datasets is None or dataset in spec.default_datasets)
    ]


def _baseline_kind(name):
    """``"global"`` or ``"local"`` for a baseline row, ``""`` for a method."""
    spec = _registry("METHODS").get(name)
    return spec.baseline if spec is not None else ""

