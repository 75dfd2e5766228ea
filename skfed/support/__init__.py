"""One-shot federated exact support recovery for sparse linear regression.

Barik & Honorio, "Exact Support Recovery in Federated Regression with
One-shot Communication": every client selects features from its own rows
and sends its selection to the server as a packed bit vector, once; the
server votes.  With a fixed lambda this is the paper's Algorithm 1 (the
client's lasso for uncorrelated predictors, the median vote); the default
``alpha="auto"`` rule makes every client's selection a test with a known
null selection rate (an OLS t-test, or for clients with fewer than d + 4
samples a t-test of each feature given its few closest features) and the
server a binomial test
against that rate, so that recovery improves with every client.

* :class:`FederatedSupportRecovery` is the method itself, as a scikit-learn
  feature selector (``transform`` keeps the recovered features).
* :class:`FederatedSparseLinearRegression` adds a second, counted round in
  which the clients send the sufficient statistics of a least-squares refit
  on the recovered support, so the result can predict.

The client pass lives in :mod:`skfed._core._support_fast`.
"""

from ._recovery import FederatedSupportRecovery

# The defaults and the null rate are public (tests, benchmarks, the user
# guide); _client_pass is the client pass the Flower engine runs.
from ._rules import (  # noqa: F401
    DEFAULT_AUTO_Z,
    DEFAULT_FWER,
    DEFAULT_ROGUE_TOLERANCE,
    OLS_MIN_DF,
    SMALL_CLIENT_ROGUE_TOLERANCE,
    _client_pass,
    null_selection_rate,
)
from ._sparse_linear import FederatedSparseLinearRegression

__all__ = ["FederatedSparseLinearRegression", "FederatedSupportRecovery"]
