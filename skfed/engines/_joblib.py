"""Node-parallel maps through joblib (the engines' name for :mod:`skfed._parallel`).

The helpers live in :mod:`skfed._parallel`, below the engines layer, so the
algorithm modules (:mod:`skfed.support`, :mod:`skfed.baselines`) use them
without importing :mod:`skfed.engines`; the engines re-export them here.
"""

from .._parallel import node_chunks, node_parallel_backend, parallel_nodes

__all__ = ["parallel_nodes", "node_parallel_backend", "node_chunks"]
