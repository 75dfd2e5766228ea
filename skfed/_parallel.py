"""Node-parallel maps through joblib, safe on every joblib backend.

A node solve that writes its results into arrays shared with the caller
(an RNG state advanced in place, dual variables updated in place) is only
correct on a shared-memory backend: on a process-based one (loky, or Dask
workers in other processes) the writes happen in a copy and are lost.  The
two ways to be correct everywhere are

* a **pure** node function, which returns everything it changes, mapped by
  :func:`parallel_nodes` (any backend, Dask included: the node solves then
  spread over the workers), or
* ``shared_memory=True``, which asks joblib for a shared-memory backend:
  threads, even under ``parallel_config(backend="dask")`` (correct, but not
  distributed).
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

__all__ = ["parallel_nodes", "node_parallel_backend", "node_chunks"]


def node_chunks(n_nodes, n_jobs=None, *, chunks_per_worker=1):
    """Split nodes ``0 .. n_nodes - 1`` into runs of consecutive nodes.

    One run is one joblib task, so a fit over many nodes dispatches a few
    tasks per worker instead of one per node (each task then ships only its
    own rows, see :func:`parallel_nodes`).

    Parameters
    ----------
    n_nodes : int
    n_jobs : int or None, default=None
        As in scikit-learn; the number of runs is ``chunks_per_worker``
        times the effective number of workers, at most ``n_nodes``.
    chunks_per_worker : int, default=1
        More than one evens out workers whose nodes take unequal time.

    Returns
    -------
    bounds : list of (int, int)
        ``(first, stop)`` of every run, in node order, covering every node
        once.

    Examples
    --------
    >>> from skfed._parallel import node_chunks
    >>> node_chunks(10, n_jobs=2, chunks_per_worker=2)
    [(0, 3), (3, 6), (6, 8), (8, 10)]
    """
    if n_nodes <= 0:
        return []
    n_chunks = min(n_nodes, max(1, effective_n_jobs(n_jobs) * int(chunks_per_worker)))
    sizes = np.full(n_chunks, n_nodes // n_chunks)
    sizes[: n_nodes % n_chunks] += 1
    stops = np.cumsum(sizes)
    return [(int(stop - size), int(stop)) for size, stop in zip(sizes, stops)]


def parallel_nodes(function, items, *, n_jobs=None, shared_memory=False):
    """``[function(*item) for item in items]``, node by node, through joblib.

    Parameters
    ----------
    function : callable
        The per-node work.  Unless ``shared_memory=True`` it must return
        everything it changes: it may run in another process or on another
        machine.
    items : iterable of tuple
        The arguments of every call.
    n_jobs : int or None, default=None
        As in scikit-learn: ``None`` means 1 unless inside a
        :func:`joblib.parallel_config` context (which then decides).
    shared_memory : bool, default=False
        Require a shared-memory backend (threads) because ``function``
        writes into its arguments.

    Returns
    -------
    results : list
        One result per item, in the order of ``items``; never depends on
        ``n_jobs`` or the backend when ``function`` is deterministic.

    Examples
    --------
    >>> from skfed.engines import parallel_nodes
    >>> parallel_nodes(pow, [(2, 3), (3, 2)], n_jobs=2)
    [8, 9]
    """
    items = list(items)
    if len(items) <= 1 or effective_n_jobs(n_jobs) == 1:
        return [function(*item) for item in items]
    require = "sharedmem" if shared_memory else None
    return Parallel(n_jobs=n_jobs, prefer="threads", require=require)(
        delayed(function)(*item) for item in items
    )


def node_parallel_backend(n_jobs=None, *, shared_memory=False):
    """Where :func:`parallel_nodes` would run the node work, and on how many workers.

    Parameters
    ----------
    n_jobs : int or None, default=None
    shared_memory : bool, default=False

    Returns
    -------
    backend : str
        The joblib backend class name (``"ThreadingBackend"``,
        ``"DaskDistributedBackend"``, ...), or ``"sequential"``.
    n_workers : int
    """
    if effective_n_jobs(n_jobs) == 1:
        return "sequential", 1
    parallel = Parallel(
        n_jobs=n_jobs, prefer="threads", require="sharedmem" if shared_memory else None
    )
    return type(parallel._backend).__name__, int(parallel._effective_n_jobs())
