"""Perso-lin on MPI ranks: model messages and :func:`fit_perso_lin`.

Private part of :mod:`skfed.engines.mpi`.  A waking node sends its new
model (d floats per problem) to the ranks owning its graph neighbours.  The
schedule is ``_mpi_graph_run._Run``'s, shared with Dada.
"""

import numpy as np
from sklearn.utils import check_random_state

from .._core._boosting_fast import lin_async
from ..boosting._perso_lin import solve_local_problems
from ..boosting._perso_lin_block import async_block_args, resolved_local_update
from ..boosting import _LOSSES, _LinearState
from .._node_mass import node_scale
from ..network import payload_bytes
from ._mpi_graph_fit import _alternate, _finish, _prepare, _refuse
from ._mpi_graph_run import _EMPTY_I, _EMPTY_U8, _Run


class _PersoLin:
    """How a Perso-lin node steps, and what it sends: its new model."""

    @staticmethod
    def models(state):
        return state.theta

    @staticmethod
    def payload(state):
        return payload_bytes(
            **{("n_float32" if state.dtype == np.float32 else "n_float64"):
               state.P * state.n_features}
        )

    @staticmethod
    def local(state, n_steps, lo, hi):
        # The simulation's rule (no privacy under MPI): solved local models.
        solve_local_problems(state.X, state.Y, state.sw, state.offsets, state.theta,
                             state.loss, state.inv_mass, state.l2, state.n_penalized,
                             state.losses, lo, hi, state.labels)

    @staticmethod
    def step(run, before, node_state, step_t, payload, spent, counter):
        state = run.state
        curve = np.zeros(1)
        lin_async(
            state.X, state.Y, state.sw, state.offsets, state.theta, state.public,
            state.losses, state.loss, state.inv_mass, state.lipschitz, state.l2,
            state.n_penalized, state.indptr, state.indices, state.weights, state.degree,
            state.confidence, state.mu, 1, before, node_state, _EMPTY_U8, state.rogue,
            state.rogue_mode, counter, payload, -1, int(spent), 0.0, curve, _EMPTY_I,
            **async_block_args(state),
        )
        return float(curve[0])

    @staticmethod
    def message(state, k, old, step_t, K):
        return np.array(state.public[k])

    @staticmethod
    def replay(state, k, message, step_t, K):
        state.public[k] = message


def fit_perso_lin(est, peer, block, validate, random_state):
    """Run one Perso-lin fit on this rank; return the fitted estimator on rank 0."""
    _refuse(est)
    if est.join_neighbours == "shared":  # (its hub solve needs every node's rows on one rank)
        raise ValueError("The MPI engine runs no shared model: join_neighbours must not be 'shared'.")
    Xs, Y, sws, offsets, mass, dtype = _prepare(est, peer, block, validate)
    simulation, seeds = est._start(check_random_state(random_state))
    Z = est._design(Xs, dtype)
    confidence, max_mass = node_scale(mass)
    state = _LinearState(
        Z, Y, sws, offsets, mass, confidence, _LOSSES[est.loss](), est.alpha,
        Xs.shape[1], est.mu, dtype, np.zeros(block.K, dtype=np.uint8), 0,
    )
    state.max_mass, state.node_mass = max_mass, mass
    state.labels = est.nodes_  # every node's label (the local solve's warning)
    state.local_update = resolved_local_update(est, None)  # (_refuse: no privacy)
    run = _Run(est, _PersoLin, peer, block, state, simulation)
    _alternate(est, run, simulation, seeds)
    # (no feature-mean gate on MPI ranks: the graph join, or the posterior join asked for)
    est.newcomer_rule_ = "posterior" if est.join_neighbours == "posterior" else "graph"
    est.newcomer_gate_ = None
    return _finish(est, run, state, Xs.shape[1])
