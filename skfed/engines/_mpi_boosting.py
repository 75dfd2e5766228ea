"""Where :mod:`skfed.engines.mpi` (and the online driver) find the graph drivers.

The MPI drivers of :mod:`skfed.boosting` live in ``_mpi_graph_run.py`` (the
schedule every rank runs), ``_mpi_graph_fit.py`` (what Dada, Perso-lin and
the graph learner share), ``_mpi_dada.py`` and ``_mpi_persolin.py``; this
module re-exports what other modules import from here.
"""

from ._mpi_dada import _fw_message, _replay_fw, fit_dada
from ._mpi_graph_fit import _merge_counts, fit_graph, refuse_privacy, warn_lost
from ._mpi_graph_run import NodeBlock
from ._mpi_persolin import fit_perso_lin

__all__ = [
    "NodeBlock",
    "_fw_message",
    "_merge_counts",
    "_replay_fw",
    "fit_dada",
    "fit_graph",
    "fit_perso_lin",
    "refuse_privacy",
    "warn_lost",
]
