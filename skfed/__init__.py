"""skfed: scikit-learn estimators for federated and decentralized learning.

Every estimator learns one personalized model per node (phone, sensor,
hospital, user) from data that never leaves the node, over a simulated
network that counts every byte, and learns who should learn from whom.
"""

__version__ = "0.1.0.dev0"

try:
    from ._core import _comm  # noqa: F401  (a compiled module: is this tree built?)
except ImportError as exc:
    if not (exc.name or "").startswith("skfed._core"):
        raise
    raise ModuleNotFoundError(
        f"skfed was imported from {__path__[0]}, a source tree without its compiled "
        "modules (skfed._core): Python started in the clone's root finds it before the "
        "installed package. Run Python from another directory, or build the tree in "
        "place with `python setup.py build_ext --inplace`.",
        name=exc.name or "skfed._core") from exc

from ._base import SingleNodeWarning
from .baselines import LocalEstimator
from .boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from .graph import CollaborationGraphLearner
from .multitask import (
    FederatedMultiTaskClassifier,
    FederatedMultiTaskClassifierCV,
    FederatedMultiTaskRegressor,
    FederatedMultiTaskRegressorCV,
)
from .network import CommunicationLog, SimulatedNetwork
from .online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor
from .privacy import DifferentialPrivacy
from .support import FederatedSparseLinearRegression, FederatedSupportRecovery

__all__ = [
    "__version__",
    "SingleNodeWarning",
    "SimulatedNetwork",
    "CommunicationLog",
    "LocalEstimator",
    "FederatedMultiTaskClassifier",
    "FederatedMultiTaskRegressor",
    "FederatedMultiTaskClassifierCV",
    "FederatedMultiTaskRegressorCV",
    "FederatedSupportRecovery",
    "FederatedSparseLinearRegression",
    "DecentralizedKernelSGDClassifier",
    "DecentralizedKernelSGDRegressor",
    "DecentralizedBoostingClassifier",
    "PersonalizedLinearClassifier",
    "CollaborationGraphLearner",
    "DifferentialPrivacy",
]
