"""Dada: decentralized personalized boosting over a learned collaboration graph.

* :class:`DecentralizedBoostingClassifier` — Zantedeschi, Bellet & Tommasi,
  "Fully Decentralized Joint Learning of Personalized Models and
  Collaboration Graphs" (AISTATS 2020): per-node l1-constrained boosting of
  shared base predictors (decision stumps) by asynchronous decentralized
  Frank-Wolfe, alternated with decentralized learning of the graph
  (:mod:`skfed.graph`).
* :class:`PersonalizedLinearClassifier` — Perso-lin, the personalized linear
  models of Vanhaesebrouck, Bellet & Tommasi (AISTATS 2017) on the same
  graph (fixed or learned the same way): asynchronous block coordinate
  descent on a smooth loss.

There is no server: every step is one node talking to its neighbours in the
collaboration graph (model updates) or to a few peers drawn by a
peer-sampling service (graph updates), and every message is counted by the
simulated network.
"""

from ._dada import DecentralizedBoostingClassifier
from ._perso_lin import PersonalizedLinearClassifier
from ._agreement import fw_message_bytes
from ._private import fw_score_sensitivity
from ._stumps import (
    Stump,
    binomial_threshold,
    feature_relevance,
    make_stump_predictors,
    make_stumps,
    node_ballots,
    node_votes,
    significance_threshold,
    significant_features,
    stump_predictions,
    vote_threshold,
)

# Private names that other skfed modules (the MPI engine, graph joins) and
# the tests import from ``skfed.boosting``.
from ._agreement import (  # noqa: F401
    _check_connected,
    _count_votes,
    _flood_extremes,
    _tree_round_trip,
    _vote_messages,
)
from ._base import _LOSSES, _graph_objective_value  # noqa: F401
from ._dada import _BoostingState  # noqa: F401
from ._perso_lin import _LinearState  # noqa: F401
from ._private import _WakeupBudget, _check_private_inputs  # noqa: F401
from ._stumps import _vote_size  # noqa: F401

__all__ = [
    "DecentralizedBoostingClassifier",
    "PersonalizedLinearClassifier",
    "make_stumps",
    "make_stump_predictors",
    "feature_relevance",
    "node_votes",
    "node_ballots",
    "significant_features",
    "significance_threshold",
    "binomial_threshold",
    "vote_threshold",
    "Stump",
    "fw_score_sensitivity",
    "stump_predictions",
    "fw_message_bytes",
]
