"""Pure per-node entry points, for engines that run node work elsewhere.

A Dask worker process or a Flower SuperNode gets its inputs by value and
must hand back everything it changes: these functions wrap skfed's Cython
node solvers that way (inputs are never modified; the new dual variables
and RNG state are returned).  :func:`node_error` is the one place the
engines word a node's input error, :func:`check_seconds` the one check of
their waiting times.
"""

import math
import numbers

import numpy as np

from .._core._multitask_fast import gap_terms
from ..multitask import _primal_node_solve

__all__ = ["primal_node_solve", "primal_gap_sums", "node_error", "check_seconds"]


def node_error(label, exc):
    """The error an engine raises for a node whose data fail a check.

    The simulated fit's own message, prefixed with the node's label, so a
    run over Flower SuperNodes or MPI ranks says which node's data are bad
    in the words the one-process fit uses.

    Parameters
    ----------
    label : int, str or NumPy scalar
        The node's label (a NumPy scalar is shown as the Python value).
    exc : ValueError or TypeError
        The check's error.

    Returns
    -------
    error : ValueError or TypeError
        ``ValueError("Node <label!r>: <exc>")`` (a ``TypeError`` for a
        ``TypeError``, e.g. sparse ``X`` where dense is needed); raise it
        ``from exc``.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.engines._nodes import node_error
    >>> str(node_error(np.int64(3), ValueError("Input X contains NaN.")))
    'Node 3: Input X contains NaN.'
    >>> node_error("ward-b", TypeError("Sparse data was passed for X"))
    TypeError("Node 'ward-b': Sparse data was passed for X")
    """
    if isinstance(label, np.generic) or (isinstance(label, np.ndarray) and label.ndim == 0):
        label = label.item()
    kind = TypeError if isinstance(exc, TypeError) else ValueError
    return kind(f"Node {label!r}: {exc}")


def check_seconds(name, value):
    """``value`` as float seconds, or an error naming ``name``.

    An engine waits up to ``timeout`` for a message and polls every
    ``poll_interval``: a value that is not a finite number > 0 would make
    every wait fail at once (and name a rank or node that did nothing
    wrong) or never end, so it is refused before the run starts.

    Examples
    --------
    >>> from skfed.engines._nodes import check_seconds
    >>> check_seconds("timeout", 30)
    30.0
    >>> check_seconds("timeout", -1)
    Traceback (most recent call last):
    ...
    ValueError: timeout must be a finite number of seconds > 0, got -1.
    """
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value <= 0):
        raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}.")
    return float(value)


def primal_node_solve(Z, Y, sw, g, total, rng_state, w, c, steps, theta, loss):
    """One round of MOCHA's local solver on one node (primal modes), by value.

    Parameters
    ----------
    Z : ndarray of shape (n_t, d'), float64
        The node's features (with the intercept column).
    Y : ndarray of shape (n_problems, n_t)
        Targets (+-1 per binary problem, or the regression target).
    sw : ndarray of shape (n_t,)
        Sample weights.
    g : ndarray of shape (n_problems, n_t)
        Dual variables per unit weight at the start of the round.
    total : float
        The node's total sample weight ``W_t``.
    rng_state : int
        The node's xorshift state.
    w : ndarray of shape (n_problems, d')
        The node's model ``w_t``.
    c : float
        ``rho sigma_tt / (lambda W_t)``.
    steps : int
        Coordinate steps of this round.
    theta : float
        MOCHA's local gap target (0: none).
    loss : MultiTaskLoss

    Returns
    -------
    dvs : ndarray of shape (n_problems, d')
        ``sum_i dalpha_i z_i`` per problem.
    g : ndarray of shape (n_problems, n_t)
        The new dual variables.
    rng_state : int
        The node's new xorshift state.
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    sq_norms = np.einsum("ij,ij->i", Z, Z, dtype=np.float64)
    dvs, _, g, state = _primal_node_solve(
        Z, sq_norms, np.ascontiguousarray(Y, dtype=np.float64),
        np.ascontiguousarray(sw, dtype=np.float64), g,
        np.ascontiguousarray(w, dtype=np.float64), c, int(steps), float(theta), loss,
        np.array([rng_state], dtype=np.uint32),
    )
    return np.asarray(dvs, dtype=np.float64), g, int(state[0])


def primal_gap_sums(Z, Y, sw, g, w, loss):
    """A node's raw duality-gap sums at the model ``w``.

    Returns
    -------
    sums : ndarray of shape (n_problems, 3)
        ``(sum s l(f, y), sum s l*(-g), sum s g f)`` per problem, with
        ``f = w . z`` (divide by the node's total weight to get its terms
        of the gap, as ``_BaseMultiTask._gap`` does).
    """
    f = w @ Z.T
    out = np.empty((Y.shape[0], 3))
    for k in range(Y.shape[0]):
        out[k] = gap_terms(np.ascontiguousarray(f[k]), Y[k], sw, g[k], loss)
    return out
