"""Pictures of fitted skfed estimators, in scikit-learn's ``Display`` style.

Every display is built by a ``from_*`` class method (``from_estimator``
reads a fitted estimator's attributes; the others take plain arrays), which
draws it and returns it; :meth:`plot` draws it again, on a given ``ax``.
The drawn matplotlib objects and the data behind them stay on the display
(``ax_``, ``figure_`` and one attribute per artist), as in
:class:`sklearn.metrics.RocCurveDisplay`.

=====================================  =============================================
display                                what it shows
=====================================  =============================================
:class:`TaskRelationshipDisplay`       the learned ``omega_`` (or
                                       ``task_covariance_``) of
                                       :mod:`skfed.multitask` as a heat map, nodes
                                       ordered by hierarchical clustering
:class:`CollaborationGraphDisplay`     a collaboration graph
                                       (:mod:`skfed.boosting`, :mod:`skfed.graph`,
                                       or any weighted graph): node size =
                                       confidence, colour = local loss
:class:`CommunicationCurveDisplay`     objective, duality gap or consensus error
                                       (or any score) against the bytes sent
:class:`OnlineLearningDisplay`         model order and consensus error over the
                                       stream (:mod:`skfed.online`)
:class:`PhaseTransitionDisplay`        probability of exact support recovery
                                       against samples or clients
                                       (:mod:`skfed.support`)
=====================================  =============================================

matplotlib is imported only when something is drawn; without it, drawing
raises an :class:`ImportError` that says ``pip install "skfed[plot]"``.  The
collaboration-graph layout uses networkx when it is installed and a spectral
or circular layout computed with scipy otherwise.

The package: one module per display family (``_task_relationship``,
``_graph``, ``_communication``, ``_online``, ``_phase_transition``) and the
shared matplotlib and input checks in ``_base``.
"""

from ._communication import CommunicationCurveDisplay
from ._graph import CollaborationGraphDisplay, graph_layout
from ._online import OnlineLearningDisplay
from ._phase_transition import PhaseTransitionDisplay
from ._task_relationship import TaskRelationshipDisplay, cluster_order

__all__ = [
    "TaskRelationshipDisplay",
    "CollaborationGraphDisplay",
    "CommunicationCurveDisplay",
    "OnlineLearningDisplay",
    "PhaseTransitionDisplay",
    "cluster_order",
    "graph_layout",
]
