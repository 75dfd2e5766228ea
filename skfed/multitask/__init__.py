"""Federated kernel multi-task learning with a learned task-relationship matrix.

Kernelized MOCHA (Caldas, Smith & Talwalkar, "Federated Kernelized
Multi-Task Learning"; MOCHA: Smith, Chiang, Sanjabi & Talwalkar, NeurIPS
2017).  Every node t learns its own model ``w_t``; the models are tied by a
task-relationship matrix ``Omega`` that is learned too::

    min_{W, Omega}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                    + (lambda / 2) tr(W Omega W^T)
    s.t.  Omega^{-1} positive semi-definite,  tr(Omega^{-1}) = 1

solved by alternating between ``W`` (distributed dual coordinate ascent:
each round every participating node solves its local subproblem and ships
only what changed) and ``Omega`` (closed form, at the server).


The package: the estimators (``_classes``, their shared machinery in
``_base``), their cross-validated variants
(``_cv``), the round protocol and its byte counts (``_protocol``), the mode
states (``_state``), the Omega step and its math (``_omega``), compression
(``_compression``), explicit features (``_features``) and the privacy hooks
(``_private``).
"""

# Besides the public estimators, the private names the engines and the tests
# import from skfed.multitask.
from ._base import _BaseMultiTask
from ._classes import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from ._compression import _FLOAT, _INDEX, quantize, quantized_bytes
from ._cv import FederatedMultiTaskClassifierCV, FederatedMultiTaskRegressorCV
from ._features import auto_components
from ._omega import (
    _LowRankSigma,
    _StoppingRule,
    _rho,
    _task_gram,
    conjugate_change,
    joint_objectives,
    line_search_step,
    omega_update,
)
from ._private import _PrivateUpdates
from ._protocol import _UNSUPPORTED_FAULTS, _Faults, _steps
from ._state import _LOSSES, _KernelState, _PrimalResults, _PrimalState, _primal_node_solve

__all__ = [
    "FederatedMultiTaskClassifier",
    "FederatedMultiTaskRegressor",
    "FederatedMultiTaskClassifierCV",
    "FederatedMultiTaskRegressorCV",
]
