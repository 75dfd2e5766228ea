"""Decentralized online kernel learning with bounded model order.

Koppel, Paternain, Richard & Ribeiro, "Decentralized Online Learning with
Kernels" (Asilomar 2018; IEEE Transactions on Signal Processing): every node
learns its own function in a reproducing kernel Hilbert space from its own
stream of samples, by functional stochastic gradient descent on a
consensus-penalized objective, talking only to its neighbours in the
network, and keeps its function small by kernel orthogonal matching pursuit
(KOMP) after every step.

The solver is :mod:`skfed._core._online_fast`; this module validates,
lays the streams out in synchronous rounds, runs the network simulation and
exposes the result as scikit-learn estimators.

Communication
-------------
To step on a sample ``x``, node ``i`` needs ``f_j(x)`` from every neighbour
``j``.  Two exchanges give it, and every (i, j) pair in every round is
counted at the cheaper one under the byte model of :mod:`skfed.network`
(header ``H`` bytes per message, ``b`` bytes a value: 4 for float32 data,
8 for float64):

* **query**: ``i`` sends ``x`` (``d`` values) and ``j`` answers ``f_j(x)``
  (``n_outputs`` values): two messages, ``2 H + (d + n_outputs) b`` bytes;
* **dictionary**: ``j`` sends its whole dictionary (``M_j`` points and
  their weights) and ``i`` evaluates ``f_j(x)`` itself: one message,
  ``H + M_j (d + n_outputs) b`` bytes.

So the dictionary is sent when ``(M_j - 1) (d + n_outputs) b < H``.  What
``i`` uses is what it receives: with float32 data (``b = 4``) the answer,
or the weights of a received dictionary, is rounded to float32.

With copies (``exchange_every="auto"``, the default, or an int ``T``)
every node instead keeps copies of its neighbours' functions and evaluates
them itself; a node updates its neighbours' copies once per pass over its
samples (``"auto"``) or after every ``T``-th of its steps, by one message
each holding the delta since its last update: the slots whose point
changed (an int32 index and ``d`` values each, or an int32 index and an
int32 reference when the neighbours already received that sample: they
keep every point a neighbour ever sent them), all ``M n_outputs`` weights
(KOMP re-projects them all; rounded to float32 when ``b = 4``, as the
neighbours receive them) and the new size (an int32), ``H + n_new (d b +
4) + 8 n_ref + M n_outputs b + 4`` bytes.  With ``T = 1`` the fit equals
the query exchange's (float64 data); the bytes then follow the dictionary
churn, not the samples, and a node never sends one of its samples twice, so
over a whole fit it sends every neighbour at most its own data plus the
weights.

Cost
----
A step of node ``i`` evaluates its own function and its neighbours' (``1 +
deg`` evaluations of ``M`` kernels each) and runs KOMP, whose bordered /
downdated inverse Gram costs O(M^2) per step (no refactorization);
``max_dictionary_size`` (100 by default) bounds ``M``.  A round costs
O(n_nodes deg M (d + M)): linear in the nodes.
There is no ``n_jobs``: the nodes synchronize after every sample, which is
too little work per round to share between threads.

The package: the estimators (``_classes``, docstring sections in
``_docs``), the rounds of consensus-penalized SGD on the communication
graph (``_consensus``), the dictionaries and KOMP (``_dictionary``), nodes
that join after the fit (``_join``) and the input rules and solver tables
(``_validation``).
"""

# Besides the public estimators, the private names the engines, the
# benchmarks and the tests import from skfed.online.
from ._classes import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    _BaseDecentralizedKernelSGD,
)
from ._consensus import (
    _DEFAULT_DEGREE,
    _MIN_FILL_STEPS,
    _ROUND_BLOCK,
    _EpochOrders,
    _one_blas_thread,
)
from ._dictionary import _INITIAL_CAPACITY, _PREDICT_CHUNK, _komp_prune
from ._join import _JOIN_CANDIDATES, _join_rounds
from ._validation import (
    _AUTO_LAPLACIAN_FEATURES,
    _LOSSES,
    _MEDIAN_ROWS,
    _ROGUE,
    _SCHEDULES,
    _SMOOTHNESS,
    _check_gamma,
    _median_argument,
)

__all__ = ["DecentralizedKernelSGDClassifier", "DecentralizedKernelSGDRegressor"]
