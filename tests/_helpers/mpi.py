"""Starting ``mpiexec`` runs from the MPI tests."""

import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import skfed

try:
    import mpi4py  # noqa: F401  (only whether it is there)

    HAVE_MPI4PY = True
except ImportError:
    HAVE_MPI4PY = False

# Longest a whole mpiexec launch may take here (2 shared cores, -n 4
# oversubscribes them); the engine's own message timeout is shorter.
LAUNCH_TIMEOUT = 240


def mpiexec():
    """The mpiexec beside this Python (the mpich wheel's), else the one on PATH.

    Returns
    -------
    str or None
        Its path, or None when there is none.
    """
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


needs_mpi = pytest.mark.skipif(
    not (HAVE_MPI4PY and mpiexec()),
    reason='mpi4py or mpiexec is missing (pip install ".[mpi]" installs both)',
)


def run_ranks(n_ranks, argv, cwd, timeout=LAUNCH_TIMEOUT):
    """``mpiexec -n n_ranks python *argv``, every rank importing this skfed.

    Parameters
    ----------
    n_ranks : int
        Number of MPI processes.
    argv : list of str
        Arguments of the Python interpreter (a script and its arguments, or
        ``-m module ...``).
    cwd : path-like
        Working directory of the run.
    timeout : float, default=LAUNCH_TIMEOUT
        Seconds the whole launch may take.

    Returns
    -------
    subprocess.CompletedProcess
        With the captured text of stdout and stderr.
    """
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    # The ranks import the same skfed as this process.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(skfed.__file__).parent.parent)] + env.get("PYTHONPATH", "").split(os.pathsep)
    )
    return subprocess.run(
        [mpiexec(), "-n", str(n_ranks), sys.executable, *argv],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )


_DRIVER = textwrap.dedent("""
    import pickle, sys
    from mpi4py import MPI
    from skfed.engines import mpi

    cases = pickle.load(open(sys.argv[1], "rb"))
    faults = pickle.loads(bytes.fromhex(sys.argv[3]))
    results = {}
    for name, est, directory in cases:
        results[name] = mpi.fit(est, directory, timeout=60, faults=faults)
    if MPI.COMM_WORLD.Get_rank() == 0:
        pickle.dump(results, open(sys.argv[2], "wb"))
""")


def saved_cases(cases, tmp):
    """Save each ``(name, est, X, y, groups, sample_weight)`` case's data as
    per-node partitions under ``tmp / name``; returns the cases as
    :func:`launch` takes them, ``(name, est, directory, X, y, groups,
    sample_weight)``."""
    from skfed.engines._partitions import save_partitions

    out = []
    for name, est, X, y, g, sw in cases:
        directory = Path(tmp) / name
        save_partitions(X, y, g, directory, sample_weight=sw)
        out.append((name, est, str(directory), X, y, g, sw))
    return out


def launch(n_ranks, cases, tmp, faults=None):
    """Fit every case with :func:`skfed.engines.mpi.fit` in one mpiexec run.

    Parameters
    ----------
    n_ranks : int
        As in :func:`run_ranks`.
    cases : list of tuple
        Each starts with ``(name, estimator, data directory)`` (a directory
        of :func:`skfed.engines._partitions.save_partitions`); anything
        after those three is ignored.
    tmp : pathlib.Path
        Directory for the driver script, the pickled cases and results
        (made if missing).
    faults : dict or None, default=None
        The engine's injected faults, passed to every fit.

    Returns
    -------
    dict
        ``{name: fitted estimator}`` as rank 0 returned them.
    """
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "driver.py").write_text(_DRIVER)
    with open(tmp / "cases.pkl", "wb") as f:
        pickle.dump([(name, est, str(d)) for name, est, d, *_ in cases], f)
    proc = run_ranks(n_ranks, [str(tmp / "driver.py"), str(tmp / "cases.pkl"),
                               str(tmp / "out.pkl"), pickle.dumps(faults).hex()], tmp)
    assert proc.returncode == 0, proc.stderr[-4000:]
    with open(tmp / "out.pkl", "rb") as f:
        return pickle.load(f)


def assert_same_graph(run, reference):
    """The MPI fit's learned collaboration graph is the reference's, element
    for element: the same links in the same CSR layout and the same weights
    (both signals of Dada, Perso-lin: the ranks replay the simulation's steps
    and merge the kernel moments in node order as it does)."""
    import numpy as np

    G = run.collaboration_graph_.tocsr()
    S = reference.collaboration_graph_.tocsr()
    assert (G != S).nnz == 0
    np.testing.assert_array_equal(G.indptr, S.indptr)
    np.testing.assert_array_equal(G.indices, S.indices)
    np.testing.assert_array_equal(G.data, S.data)
