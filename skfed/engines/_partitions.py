"""Per-node data files shared by the engines (Flower SuperNodes, MPI ranks).

One ``.npz`` file per node, so a process only ever reads its own nodes'
data; written by :func:`save_partitions`, read by :func:`read_partition`.
"""

import os

import numpy as np

__all__ = ["save_partitions", "read_partition", "partition_files"]


def save_partitions(X, y, groups, directory, *, sample_weight=None, prefix="node"):
    """Write one ``.npz`` file per node, for SuperNodes to load.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    groups : array-like of shape (n_samples,)
        Node id of every sample; node ``groups == label`` gets the file
        ``<prefix>-<i>.npz`` (``i`` its rank among the sorted labels) with
        arrays ``X``, ``y``, ``node`` (its label) and ``sample_weight``.
    directory : str or path
    sample_weight : array-like of shape (n_samples,), default=None
    prefix : str, default="node"

    Returns
    -------
    paths : list of str
        One path per node, in the order of the sorted labels; start each
        SuperNode with ``--node-config 'data-path="<path>"'``, or give the
        directory to :func:`skfed.engines.mpi.fit`.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    groups = np.asarray(groups)
    os.makedirs(directory, exist_ok=True)
    paths = []
    for i, label in enumerate(np.unique(groups)):
        rows = np.flatnonzero(groups == label)
        arrays = {"X": X[rows], "y": y[rows], "node": np.asarray(label)}
        if sample_weight is not None:
            arrays["sample_weight"] = np.asarray(sample_weight)[rows]
        path = os.path.join(os.fspath(directory), f"{prefix}-{i}.npz")
        np.savez(path, **arrays)
        paths.append(os.path.abspath(path))
    return paths


def read_partition(path):
    """The arrays of one file written by :func:`save_partitions`.

    Returns
    -------
    data : dict
        ``X``, ``y``, and ``sample_weight`` and ``node`` when present.
    """
    with np.load(path, allow_pickle=False) as data:
        out = {name: data[name] for name in data.files}
    if "node" in out:
        out["node"] = out["node"].item()
    return out


def partition_files(directory, prefix="node"):
    """Node label -> path of every ``<prefix>-<i>.npz`` file in ``directory``.

    Reads only the ``node`` entry of each file.

    Raises
    ------
    ValueError
        When the directory holds no such file, a file has no ``node``
        entry, or two files name the same node.
    """
    directory = os.fspath(directory)
    names = [n for n in os.listdir(directory)
             if n.startswith(prefix + "-") and n.endswith(".npz")]
    if not names:
        raise ValueError(f"No {prefix}-<i>.npz node file in {directory!r}.")
    files = {}
    for name in sorted(names, key=lambda n: (len(n), n)):
        path = os.path.join(directory, name)
        with np.load(path, allow_pickle=False) as data:
            if "node" not in data.files:
                raise ValueError(f"Node file {path!r} has no 'node' entry (its label).")
            label = data["node"].item()
        if label in files:
            raise ValueError(f"Node {label!r} has two files: {files[label]!r} and {path!r}.")
        files[label] = os.path.abspath(path)
    return files
