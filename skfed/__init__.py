"""skfed: scikit-learn estimators for federated and decentralized learning.

Every estimator learns one personalized model per node (phone, sensor,
hospital, user) from data that never leaves the node, over a simulated
network that counts every byte, and learns who should learn from whom.
"""

__version__ = "0.1.0.dev0"

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
