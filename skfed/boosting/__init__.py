"""Dada and Perso-lin: personalized models over a learned collaboration graph."""

from ._dada import *  # noqa: F401,F403
from ._dada import __all__  # noqa: F401
from ._dada import (  # noqa: F401
    _LOSSES,
    _BoostingState,
    _LinearState,
    _WakeupBudget,
    _check_connected,
    _check_private_inputs,
    _count_votes,
    _flood_extremes,
    _graph_objective_value,
    _tree_round_trip,
    _vote_messages,
    _vote_size,
)
