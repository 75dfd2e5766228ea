"""Run skfed's node solvers beyond one simulated process.

skfed never ships a cluster runtime of its own; the same Cython node
solvers run on existing engines:

* **joblib** (every estimator's ``n_jobs``): the per-node local work of
  one round is a joblib map, threads by default (the Cython solvers release
  the GIL).  Under ``joblib.parallel_config(backend="dask")`` with a
  ``dask.distributed`` client, the node solves go to the Dask workers
  instead (``pip install ".[dask]"``); :func:`parallel_nodes` is the
  map the estimators use, and :func:`node_parallel_backend` says where the
  node work of a fit would run.
* **Flower** (:mod:`skfed.engines.flower`, ``pip install ".[flower]"``):
  a real client/server deployment of the server-coordinated methods, each
  SuperNode holding its own data.
* **MPI** (:mod:`skfed.engines.mpi`, ``pip install ".[mpi]"``):
  peer-to-peer runs of the decentralized methods, each rank holding a
  block of the nodes and their data.

Each optional engine raises an :class:`ImportError` naming the ``pip``
command that installs it.
"""

import importlib

from .._extras import install_hint
from ._joblib import node_parallel_backend, parallel_nodes

__all__ = ["parallel_nodes", "node_parallel_backend", "require_extra"]

# extra -> (module to import, what it is for); the requirements themselves
# are read from the installed metadata (skfed._extras).
_EXTRAS = {
    "flower": ("flwr", "real client/server runs on Flower"),
    "dask": ("distributed", "node solves on a Dask cluster"),
    "mpi": ("mpi4py", "peer-to-peer runs on MPI"),
}


def require_extra(extra):
    """Import the package behind an optional extra, or explain how to install it.

    Parameters
    ----------
    extra : {"flower", "dask", "mpi"}

    Returns
    -------
    module
        The imported top-level module (``flwr`` or ``distributed``).

    Raises
    ------
    ImportError
        When the package is missing, naming the extra's requirements and a
        ``pip install`` command for them.
    """
    module, purpose = _EXTRAS[extra]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{purpose[0].upper()}{purpose[1:]} need the optional dependency {module!r}, "
            f"which is not installed: {install_hint(extra)}"
        ) from exc


def __getattr__(name):
    # ``skfed.engines.flower`` is imported on first access, so that
    # ``import skfed.engines`` works without Flower.
    if name in ("flower", "mpi"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
