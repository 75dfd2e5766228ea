"""Perso-lin's ``local_update``: what a waking node does with its block.

``"gradient"`` is the paper's step (one gradient step ``1 / L_k`` on the
node's block of the objective); ``"block"`` minimizes that block, the
neighbours' models fixed (``_boosting_fast._lin_block_solve``): the same
message, sent the same way, so the bytes of a wake-up do not change.
``"auto"`` (the default) is ``"block"`` without privacy (and at ``epsilon =
inf``, which is the non-private fit) and ``"gradient"`` under a finite
``privacy`` budget, whose per-message sensitivity is that of one clipped
gradient release (a block solve's is not analysed).

The solve stops once its largest preconditioned gradient entry is
``BLOCK_TOL`` of the smaller of its values at the start and at ``theta =
0`` (a newcomer's: ``JOIN_BLOCK_TOL`` of its value at 0, its neighbours
being fixed), or after ``BLOCK_MAX_ITER`` iterations (local computation:
no bytes).
"""

import math

import numpy as np

# Chosen by ``benchmarks/persolin_block_update.py`` (its docstring).
BLOCK_TOL = 1e-2
BLOCK_MAX_ITER = 500
# A join's newcomers solve their blocks further (their neighbours are fixed:
# each solve is the newcomer's whole problem, and only newcomers pay for it).
JOIN_BLOCK_TOL = 1e-10

LOCAL_UPDATES = ("auto", "block", "gradient")

# A node's block preconditioner and its gradient at 0 are computed once per
# call of the Cython loops and reused (the same bits; False recomputes them
# at every solve: tests/test_persolin_block_cache.py compares the two).
BLOCK_CACHE = True


def resolved_local_update(est, spec):
    """``"block"`` or ``"gradient"``: the estimator's ``local_update`` for this fit.

    ``spec`` is the checked privacy specification (None: no privacy).  An
    explicit ``"block"`` with privacy is refused (its sensitivity is not
    analysed), naming the parameter.
    """
    update = getattr(est, "local_update", "auto")
    if update not in LOCAL_UPDATES:
        raise ValueError(f"local_update must be one of {LOCAL_UPDATES}; got {update!r}.")
    if spec is not None and math.isfinite(spec.epsilon):
        if update == "block":
            raise ValueError(
                "local_update='block' is not available with privacy: a private "
                "wake-up releases one clipped gradient (the analysed sensitivity); "
                "use local_update='auto' or 'gradient'.")
        return "gradient"
    return "gradient" if update == "gradient" else "block"


def block_preconditioner(X, sw, offsets, loss, inv_mass, l2, n_penalized):
    """``(scale, lipschitz)`` of every node's local problem, on the design as
    the asynchronous steps see it (``local_preconditioner`` of
    ``_perso_lin``), as ``float64`` contiguous arrays."""
    from ._perso_lin import local_preconditioner

    offsets = np.asarray(offsets, dtype=np.intp)
    scale, lip = local_preconditioner(X, sw, offsets, loss, np.asarray(inv_mass, np.float64),
                                      l2, n_penalized)
    return np.ascontiguousarray(scale), np.ascontiguousarray(lip)


def async_block_args(state):
    """Keyword arguments of ``lin_async`` for a state's wake-ups (none when it steps)."""
    if getattr(state, "local_update", "gradient") != "block":
        return {}
    if getattr(state, "block_scale", None) is None or state.block_scale.shape[0] != state.K:
        state.block_scale, state.block_lipschitz = block_preconditioner(
            state.X, state.sw, state.offsets, state.loss, state.inv_mass, state.l2,
            state.n_penalized)
    return {"block_scale": state.block_scale, "block_lipschitz": state.block_lipschitz,
            "block_tol": BLOCK_TOL, "block_max_iter": BLOCK_MAX_ITER,
            "block_iter": state.block_iter, "block_cache": BLOCK_CACHE}


def join_block_args(est, private, Z, sw, offsets, loss, inv_mass, l2, n_penalized,
                    single=False):
    """Keyword arguments of a join's model steps (``lin_join`` with
    ``single``, else ``lin_join_steps``): the fit's ``local_update`` (its
    recorded value), steps when the join is private."""
    from .._join_params import fitted_param

    if private or fitted_param(est, "local_update") == "gradient":
        return {}
    scale, lip = block_preconditioner(Z, sw, offsets, loss, np.atleast_1d(inv_mass), l2,
                                      n_penalized)
    if single:
        return {"block_scale": scale[0], "block_lipschitz": float(lip[0]),
                "block_tol": JOIN_BLOCK_TOL, "block_max_iter": BLOCK_MAX_ITER,
                "block_cache": BLOCK_CACHE}
    return {"block_scale": scale, "block_lipschitz": lip, "block_tol": JOIN_BLOCK_TOL,
            "block_max_iter": BLOCK_MAX_ITER, "block_cache": BLOCK_CACHE}
