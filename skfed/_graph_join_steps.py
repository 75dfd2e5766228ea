"""The newcomers' model steps in synchronous blocks (step 4 of a graph join).

Shared by :func:`skfed._graph_join.graph_join_nodes` and
:func:`skfed._graph_join_batch.lin_join_batched`.
"""

import math

__all__ = []

# Newcomers linked to each other step in this many synchronous blocks (they
# exchange their current models between blocks).  4 instead of 10: Dada on
# rotated moons 74.0 either way (Perso-lin 58.5 both), fewer messages and
# less per-block Python work.
_SYNC_BLOCKS = 4


def _step_blocks(n_steps, every, linked):
    """The newcomers' model steps in synchronous blocks (step 4 of a join).

    Yields ``(start, size, last, resolve)`` per block: linked newcomers step
    in at most ``_SYNC_BLOCKS`` blocks and exchange their models after each
    but the last; with ``every`` the rows are re-solved every ``every``
    steps (``resolve``: after this block).  Shared by the one-by-one join
    and the batched one (``_graph_join_batch``).
    """
    block = n_steps if every is None else every
    if linked:
        block = min(block, max(1, math.ceil(n_steps / _SYNC_BLOCKS)))
    tau, next_resolve = 0, every
    while tau < n_steps:
        size = min(block, n_steps - tau)
        if every is not None:
            size = min(size, next_resolve - tau)
        start, tau = tau, tau + size
        resolve = every is not None and tau < n_steps and tau >= next_resolve
        if resolve:
            next_resolve += every
        yield start, size, tau >= n_steps, resolve
