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
tuple of ``skfed/compare/_methods.py``: one :class:`MethodSpec` line per
method, with a factory that builds the estimator from a
:class:`MethodContext`.  A method issue adds its line there (or calls
:func:`register_method`); nothing else changes.  Datasets are registered the
same way in :data:`DATASETS` (``skfed/compare/_datasets.py``).

Layout
------
``_specs.py`` (the specs and the registries), ``_methods.py`` and
``_datasets.py`` (the two tables), ``_run.py`` (fitting, scoring, timing and
byte counting: :func:`compare`), ``_report.py`` (the printed table, the
reasons under it, the CSV and JSON files), ``_plots.py`` and ``_cli.py``
(the options of ``skfed compare``).
"""

from ._specs import (
    ALL_TASKS,
    CLASSIFICATION,
    DATASETS,
    METHODS,
    RUN_FIELDS,
    SUMMARY_FIELDS,
    TASKS,
    DatasetSpec,
    MethodContext,
    MethodSpec,
    SplitData,
    applicable_methods,
    register_dataset,
    register_method,
)
from ._methods import (
    DADA_DATASETS,
    MOCHA_DATASETS,
    ONLINE_DATASETS,
    SPARSE_DATASETS,
    raw_data_bytes,
)
from ._datasets import DEFAULT_DATASET
from ._report import format_table, loss_reasons, save_results
from ._plots import _floor_line
from ._run import CompareResult, _quick_subset, _summarize, compare
from ._cli import add_arguments, list_registry, run_cli

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
