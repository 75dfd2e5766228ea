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
"""

import numbers

import numpy as np
from scipy import sparse
from scipy.spatial.distance import pdist
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from ._base import (
    FederatedClassifierMixin,
    FederatedMixin,
    FederatedRegressorMixin,
    _check_label_kinds,
    _check_y,
    node_seeds,
    pad_log,
)
from ._base import check_network_faults, check_node_weights
from ._compat import HasMethods, Interval, StrOptions
from ._core import _online_fast
from .kernels import kernel_params, resolve_kernel
from .network import float_bytes, resolve_network
from .privacy import DifferentialPrivacy

__all__ = ["DecentralizedKernelSGDClassifier", "DecentralizedKernelSGDRegressor"]

_LOSSES = {
    "squared_error": _online_fast.SquaredLoss,
    "hinge": _online_fast.HingeLoss,
    "log_loss": _online_fast.LogisticLoss,
    "multiclass_hinge": _online_fast.MulticlassHingeLoss,
    "multinomial_log_loss": _online_fast.MultinomialLogLoss,
}
_SCHEDULES = {
    "constant": _online_fast.SCHEDULE_CONSTANT,
    "diminishing": _online_fast.SCHEDULE_DIMINISHING,
}
# Smoothness of every loss in its function values (the largest eigenvalue
# of its Hessian; 0 for the piecewise-linear hinges, whose derivative is
# bounded instead).
_SMOOTHNESS = {
    "squared_error": 1.0,
    "hinge": 0.0,
    "log_loss": 0.25,
    "multiclass_hinge": 0.0,
    "multinomial_log_loss": 0.5,
}
_ROGUE = {
    "complement": _online_fast.ROGUE_COMPLEMENT,
    "random": _online_fast.ROGUE_RANDOM,
}
# Degree of the default topology (a ring lattice, "k_regular"): 2, a ring.
# With copies a node sends every neighbour each of its samples at most once,
# so the degree bounds the bytes of a fit by about degree x its own data (HAR
# sitting-vs-rest: 1.5-1.8x the raw upload at degree 2, 2.4-3.2x at degree 4,
# at the same accuracy within 0.1 point).
_DEFAULT_DEGREE = 2
# A node that joins after the fit (add_nodes, or partial_fit with a new node
# id) asks this many fitted nodes, drawn at random, for their values on its
# samples and links to the ones whose functions fit them best (as many as the
# median degree of the fitted graph).
_JOIN_CANDIDATES = 10
# Dictionaries start with room for this many elements and double as needed.
_INITIAL_CAPACITY = 64
# kernel="auto" is the laplacian kernel from this many features on, the rbf
# kernel below (issue 15): per-node SVC() at gamma="median" scores higher with
# the laplacian kernel on every real data set measured (HAR, 561 features;
# digits, 64; breast cancer, 30; wine, 13) and lower on the 2-feature Gaussian
# mixtures, whose classes are isotropic Gaussians (see the user guide).
_AUTO_LAPLACIAN_FEATURES = 10
# gamma="median" reads at most this many (evenly spaced) samples of a node.
_MEDIAN_ROWS = 1000
# Rows of the kernel matrix computed at once at predict time.
_PREDICT_CHUNK = 1024
_THREADPOOLS = []


def _one_blas_thread():
    """Limit BLAS to one thread around the solver (its calls are small level-2
    updates, which threading only slows down); the controller is built once,
    so a partial_fit per sample does not rescan the loaded libraries."""
    if not _THREADPOOLS:
        _THREADPOOLS.append(ThreadpoolController())
    return _THREADPOOLS[0].limit(limits=1, user_api="blas")


def _median_argument(X, kernel):
    """Median over the pairs of distinct rows of X of the kernel's argument at
    gamma = 1: ``||x - x'||^2`` (rbf), ``||x - x'||_1`` (laplacian), ``|x . x'|``
    (poly, sigmoid, linear); 0 when there is no pair.  At most
    ``_MEDIAN_ROWS`` evenly spaced rows are used, so the cost per node is
    bounded."""
    if X.shape[0] > _MEDIAN_ROWS:
        X = X[np.linspace(0, X.shape[0] - 1, _MEDIAN_ROWS).astype(np.intp)]
    if X.shape[0] < 2:
        return 0.0
    X = np.asarray(X, dtype=np.float64)
    if kernel == "rbf":
        values = pdist(X, "sqeuclidean")
    elif kernel == "laplacian":
        values = pdist(X, "cityblock")
    else:
        values = np.abs((X @ X.T)[np.triu_indices(X.shape[0], 1)])
    return float(np.median(values))


def _check_gamma(gamma, nodes, X, codes, kernel="rbf"):
    """Per-node kernel coefficients from "median", "scale", a scalar, an array
    or a dict.

    ``"median"`` is the median heuristic applied by every node to its own
    training data: one over the median, over pairs of its samples, of the
    kernel's argument (``||x - x'||^2`` for rbf; see ``_median_argument``),
    falling back to ``"scale"`` where that median is 0.  ``"scale"`` is
    ``SVC``'s rule: ``1 / (n_features X_i.var())`` (1 where that variance is
    0).  Either way no node needs the others' statistics.
    """
    n_nodes = len(nodes)
    n_features = X.shape[1]
    if isinstance(gamma, str) and gamma == "median":
        values = _check_gamma("scale", nodes, X, codes)
        order = np.argsort(codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_nodes))])
        for node in range(n_nodes):
            median = _median_argument(X[order[bounds[node] : bounds[node + 1]]], kernel)
            if median > 0:
                values[node] = 1.0 / median
    elif isinstance(gamma, str) and gamma == "scale":
        size = np.maximum(np.bincount(codes, minlength=n_nodes) * n_features, 1.0)
        sums = np.bincount(codes, weights=X.sum(axis=1, dtype=np.float64), minlength=n_nodes)
        deviation = X - (sums / size)[codes, None]
        var = np.bincount(
            codes, weights=np.einsum("ij,ij->i", deviation, deviation, dtype=np.float64),
            minlength=n_nodes,
        ) / size
        values = 1.0 / (n_features * np.where(var > 0, var, 1.0 / n_features))
    elif gamma is None or isinstance(gamma, numbers.Real) and not isinstance(gamma, bool):
        value = 1.0 / n_features if gamma is None else float(gamma)
        values = np.full(n_nodes, value)
    elif isinstance(gamma, dict):
        labels = nodes.tolist()
        missing = [label for label in labels if label not in gamma]
        if missing:
            raise ValueError(
                f"gamma is a dict but has no value for node(s) {missing[:5]}; give "
                "one value per node label."
            )
        extra = [key for key in gamma if key not in set(labels)]
        if extra:
            raise ValueError(f"gamma names node(s) {extra[:5]} that were not seen in fit.")
        values = np.array([gamma[label] for label in labels], dtype=np.float64)
    else:
        values = np.asarray(gamma, dtype=np.float64)
        if values.ndim != 1 or values.shape[0] != n_nodes:
            raise ValueError(
                f"gamma must be a float, a dict keyed by node label or an array of "
                f"one value per node ({n_nodes} nodes, in the order of nodes_), got "
                f"shape {values.shape}."
            )
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"gamma must be finite and > 0 for every node, got {values}.")
    return values


def _join_rounds(sim, n_old, n_new, visit):
    """Rounds of a join until ``visit(k, active)`` is True for every new node.

    In every round the faults are drawn for all nodes; a new node ``k``
    (index ``n_old + k``) that is dropped waits for the next round, and so
    does one whose ``visit`` (what it sends and receives this round, given
    who is ``active``) returns False.
    """
    waiting = list(range(n_new))
    while waiting:
        active = sim.draw_rounds(1)[0][0]
        waiting = [k for k in waiting if not (active[n_old + k] and visit(k, active))]
        sim.counter.next_round()


def _komp_prune(Z, W, K, epsilon, max_size, compress):
    """Destructive KOMP of ``f = sum_m W[m] k(Z[m], .)`` (``K`` its Gram matrix).

    The rule of the solver after a step: remove the element of smallest
    cost ``||W_j||^2 / Q_jj`` (``Q = K^-1``) while the accumulated cost stays
    within ``epsilon^2`` or the dictionary is larger than ``max_size`` (0: no
    cap), re-projecting the weights onto the rest; the last element moves
    into the freed slot.  Without ``compress`` nothing is removed.

    Returns
    -------
    points, weights, gram_inv, error
        The kept dictionary, its weights, its inverse Gram matrix (empty
        without ``compress``) and the RKHS distance to ``f``.
    """
    if not compress:
        return Z, W, np.zeros((0, 0)), 0.0
    Z, W = Z.copy(), np.array(W, dtype=np.float64)
    try:
        Q = np.linalg.inv(K)
    except np.linalg.LinAlgError:
        Q = np.linalg.pinv(K)
    Q = (Q + Q.T) / 2
    eps2, err2, m = float(epsilon) ** 2, 0.0, len(Z)
    while m > 0:
        diag = np.diag(Q)[:m]
        cost = np.where(diag > 0, (W[:m] ** 2).sum(axis=1) / np.where(diag > 0, diag, 1), 0.0)
        j = int(np.argmin(cost))
        if not (max_size > 0 and m > max_size) and err2 + cost[j] > eps2:
            break
        q = Q[:m, j].copy()
        if Q[j, j] > 0:
            W[:m] -= np.outer(q, W[j]) / Q[j, j]
            Q[:m, :m] -= np.outer(q, q) / Q[j, j]
        last = m - 1
        Z[j], W[j] = Z[last], W[last]
        row = Q[last, :m].copy()
        Q[j, :m], Q[:m, j] = row, row
        Q[j, j] = Q[last, last]
        err2 += cost[j]
        m -= 1
    return Z[:m], W[:m], Q[:m, :m].copy(), float(np.sqrt(err2))


class _BaseDecentralizedKernelSGD(FederatedMixin, BaseEstimator):
    """Shared machinery of the classifier and the regressor."""

    _parameter_constraints = {
        "kernel": [StrOptions({"auto", "rbf", "laplacian", "poly", "linear", "sigmoid"})],
        "gamma": [
            StrOptions({"median", "scale"}), None,
            Interval(numbers.Real, 0, None, closed="neither"),
            "array-like", dict,
        ],
        "degree": [Interval(numbers.Real, 1, None, closed="left")],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "consensus_penalty": [Interval(numbers.Real, 0, None, closed="left")],
        "eta0": [StrOptions({"auto"}), Interval(numbers.Real, 0, None, closed="neither")],
        "learning_rate": [StrOptions(set(_SCHEDULES))],
        "power_t": [Interval(numbers.Real, 0, None, closed="neither")],
        "epsilon": [Interval(numbers.Real, 0, None, closed="left")],
        "max_dictionary_size": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "max_epochs": [Interval(numbers.Integral, 1, None, closed="left")],
        "average": [Interval(numbers.Real, 0, 1, closed="left")],
        "exchange_every": [
            StrOptions({"auto"}), None, Interval(numbers.Integral, 1, None, closed="left")
        ],
        "shuffle": ["boolean"],
        "network": [None, HasMethods(["start"])],
        "random_state": ["random_state"],
        "privacy": [None, DifferentialPrivacy],
        **FederatedMixin._federated_parameter_constraints,
    }

    # ------------------------------------------------------------ validation
    def _check_hyperparameters(self):
        if self.learning_rate == "diminishing" and not 0.5 < self.power_t <= 1:
            raise ValueError(
                f"power_t must be in (0.5, 1] with learning_rate='diminishing' (the "
                f"paper's conditions sum eta_t = inf and sum eta_t^2 < inf for eta_t = "
                f"eta0 / (1 + t)^power_t), got power_t={self.power_t}."
            )
        compress = self.epsilon > 0 or self.max_dictionary_size is not None
        if compress and self.kernel == "sigmoid":
            raise ValueError(
                "kernel='sigmoid' is not positive semi-definite, so KOMP (epsilon > 0 "
                "or max_dictionary_size) cannot prune with it; use epsilon=0 and "
                "max_dictionary_size=None, or another kernel."
            )
        return compress

    def _resolve_kernel_name(self, n_features):
        """The kernel ``kernel="auto"`` stands for at ``n_features`` features."""
        if self.kernel != "auto":
            return self.kernel
        return "laplacian" if n_features >= _AUTO_LAPLACIAN_FEATURES else "rbf"

    def _make_loss(self):
        return _LOSSES[self._loss_name()]()

    # ----------------------------------------------------------- public API
    def _fit(self, X, y, groups, sample_weight, *, classes=None, partial):
        first = partial is False or not hasattr(self, "_sizes")
        if first:
            self._validate_params()
            if self.privacy is not None:
                raise ValueError(
                    f"{type(self).__name__} does not support privacy=: its exchanges send "
                    "raw samples (new dictionary centres) and whole dictionaries to the "
                    "neighbours, whose sensitivity to one sample is unbounded, and no "
                    "sound mechanism for them is implemented. Use privacy=None."
                )
            X, y, sample_weight, layout = self._validate_fit_data(
                X, y, groups, sample_weight, y_numeric=self._is_regressor()
            )
            codes = layout.codes
            self._dtype = X.dtype
            self._init_targets(y, classes, partial)
            compress = self._check_hyperparameters()
            self._setup(X, codes, compress)
        else:
            X, y, sample_weight, codes, new_labels = self._validate_more_data(
                X, y, groups, sample_weight, classes
            )
            self._check_hyperparameters()
            if len(new_labels):
                # Samples of nodes unseen so far: they join first (graph and
                # starting function from their neighbours, as in add_nodes),
                # then stream with everyone in the pass below.
                codes = self._join_new(X, y, sample_weight, codes, new_labels)
        check_network_faults(self, self.network, {
            "straggler_rate": "a step is one sample and cannot be cut",
        })
        check_node_weights(self, codes, sample_weight)
        y_encoded = self._encode_targets(y)
        scale = float(np.abs(y_encoded).max()) if self._is_regressor() and len(y) else 1.0
        self._target_scale = max(getattr(self, "_target_scale", 0.0), scale)
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        X = np.ascontiguousarray(X, dtype=self._dtype)
        epochs = 1 if partial else self.max_epochs
        shuffle = self.shuffle and not partial
        queues = self._make_queues(codes, epochs, shuffle)
        self._run(X, y_encoded, sample_weight, queues, epochs)
        return self

    def _setup(self, X, codes, compress):
        n_nodes = len(self.nodes_)
        n_features = X.shape[1]
        self.kernel_ = self._resolve_kernel_name(n_features)
        spec = resolve_kernel(
            self.kernel_, gamma=1.0, degree=self.degree, coef0=self.coef0,
            n_features=n_features,
        )
        self._kernel_kind, _, self._coef0, self._degree = kernel_params(spec)
        self.gamma_ = _check_gamma(self.gamma, self.nodes_, X, codes, self.kernel_)
        self._compress = compress
        self._max_size = 0 if self.max_dictionary_size is None else int(self.max_dictionary_size)
        n_out = self._n_outputs
        self._points = np.zeros((n_nodes, 0, n_features), dtype=self._dtype)
        self._weights = np.zeros((n_nodes, 0, n_out))
        self._gram_inv = np.zeros((n_nodes, 0, 0))
        self._sizes = np.zeros(n_nodes, dtype=np.intp)
        self._slot_ids = np.full((n_nodes, 0), -1, dtype=np.intp)
        self._avg_weights = np.zeros((n_nodes, 0, n_out))
        self._pub_points = np.zeros((n_nodes, 0, n_features), dtype=self._dtype)
        self._pub_weights = np.zeros((n_nodes, 0, n_out))
        self._pub_sizes = np.zeros(n_nodes, dtype=np.intp)
        self._since_publish = np.zeros(n_nodes, dtype=np.int64)
        self._n_steps = np.zeros(n_nodes, dtype=np.int64)
        self._komp_error = np.zeros(n_nodes)
        rng = check_random_state(self.random_state)
        self._node_seeds = node_seeds(rng, n_nodes)
        self._rng_state = self._node_seeds.copy()
        self._network_seed = int(rng.randint(np.iinfo(np.int32).max))
        self._n_calls = 0
        self._consensus_curve = np.zeros(0)
        self._order_curve = np.zeros((0, n_nodes), dtype=np.intp)
        self._log = None
        self.adjacency_ = None
        self._rogue = None

    def _validate_more_data(self, X, y, groups, sample_weight, classes):
        """Validation of a later partial_fit call (no reset)."""
        X_features, column_groups = self._split_X(X, reset=False)
        if self.group_column is None:
            X_features, y = validate_data(
                self, X_features, y, reset=False, dtype=[np.float64, np.float32],
                y_numeric=self._is_regressor(),
            )
        else:
            X_features = check_array(X_features, dtype=[np.float64, np.float32])
            y = _check_y(y, multi_output=False, y_numeric=self._is_regressor())
            if len(y) != X_features.shape[0]:
                raise ValueError(
                    f"X has {X_features.shape[0]} samples but y has {len(y)}."
                )
        n_samples = X_features.shape[0]
        groups = self._resolve_groups(groups, column_groups, n_samples)
        if groups is None:
            if len(self.nodes_) > 1:
                self._node_codes(None, n_samples)  # raises, explaining how
            codes = np.zeros(n_samples, dtype=np.intp)
        else:
            lookup = {label: index for index, label in enumerate(self.nodes_.tolist())}
            unique, inverse = np.unique(groups, return_inverse=True)
            mapped = np.array([lookup.get(label, -1) for label in unique.tolist()])
            # Nodes not seen so far join the network (codes -1 - k for the
            # k-th of new_labels).
            new_labels = unique[mapped < 0]
            mapped[mapped < 0] = -1 - np.arange(len(new_labels))
            codes = mapped[inverse.ravel()].astype(np.intp)
        if sample_weight is not None:
            from ._compat import _check_sample_weight

            sample_weight = _check_sample_weight(sample_weight, X_features)
        if classes is not None and hasattr(self, "classes_"):
            if not np.array_equal(np.unique(classes), self.classes_):
                raise ValueError(
                    f"classes={classes!r} is not the same as in the first call to "
                    f"partial_fit ({self.classes_!r})."
                )
        if groups is None:
            new_labels = np.zeros(0)
        return X_features.astype(self._dtype, copy=False), y, sample_weight, codes, new_labels

    def _make_queues(self, codes, epochs, shuffle):
        """Per-node processing order: arrival order, or shuffled passes."""
        n_nodes = len(self.nodes_)
        order = np.argsort(codes, kind="stable")
        counts = np.bincount(codes, minlength=n_nodes)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        parts = []
        for node in range(n_nodes):
            rows = order[offsets[node] : offsets[node + 1]]
            if shuffle:
                node_rng = np.random.RandomState(
                    [int(self._node_seeds[node]), self._n_calls]
                )
                parts.append(
                    np.concatenate([rows[node_rng.permutation(len(rows))] for _ in range(epochs)])
                    if len(rows) else rows
                )
            else:
                parts.append(np.tile(rows, epochs))
        return parts

    def _start_network(self):
        n_nodes = len(self.nodes_)
        network = resolve_network(self.network)
        if network.topology is None and n_nodes > 2:
            # The default topology: a ring, so a round costs the same per node
            # at any number of nodes (a complete graph would
            # make it grow like n_nodes and shrink the stable step like 1 / n_nodes).
            network = clone(network).set_params(
                topology="k_regular",
                topology_params={"degree": min(_DEFAULT_DEGREE, n_nodes - 1)},
            )
        rng = np.random.RandomState([self._network_seed, self._n_calls])
        if self.adjacency_ is None:
            sim = network.start(n_nodes, server=False, random_state=rng, node_labels=self.nodes_)
            self.adjacency_ = sim.adjacency.copy()
            self._rogue = sim.rogue.copy()
        else:
            # Later partial_fit calls: same graph and rogue nodes, fresh faults.
            net_seed = (
                self._network_seed
                if network.random_state is None
                else check_random_state(network.random_state).randint(np.iinfo(np.int32).max)
            )
            network = clone(network).set_params(
                topology=self.adjacency_, topology_params=None,
                random_state=np.random.RandomState([net_seed, self._n_calls]),
            )
            sim = network.start(n_nodes, server=False, node_labels=self.nodes_)
            sim.rogue[:] = self._rogue
        return sim, network

    def _grow(self, capacity):
        n_nodes, old, n_features = self._points.shape
        points = np.zeros((n_nodes, capacity, n_features), dtype=self._dtype)
        weights = np.zeros((n_nodes, capacity, self._n_outputs))
        points[:, :old] = self._points
        weights[:, :old] = self._weights
        self._points, self._weights = points, weights
        slot_ids = np.full((n_nodes, capacity), -1, dtype=np.intp)
        slot_ids[:, :old] = self._slot_ids
        self._slot_ids = slot_ids
        avg_weights = np.zeros((n_nodes, capacity, self._n_outputs))
        avg_weights[:, :old] = self._avg_weights
        self._avg_weights = avg_weights
        pub_points = np.zeros((n_nodes, capacity, n_features), dtype=self._dtype)
        pub_weights = np.zeros((n_nodes, capacity, self._n_outputs))
        kept = self._pub_points.shape[1]
        pub_points[:, :kept] = self._pub_points
        pub_weights[:, :kept] = self._pub_weights
        self._pub_points, self._pub_weights = pub_points, pub_weights
        if self._compress:
            gram_inv = np.zeros((n_nodes, capacity, capacity))
            gram_inv[:, :old, :old] = self._gram_inv
            self._gram_inv = gram_inv

    def _run(self, X, y, sample_weight, queues, epochs, *, join=False):
        n_nodes = len(self.nodes_)
        sim, network = self._start_network()
        self._resolve_step(X, sample_weight)
        self._n_calls += 1
        queue = np.ascontiguousarray(np.concatenate(queues), dtype=np.intp)
        lengths = np.array([len(q) for q in queues], dtype=np.intp)
        queue_end = np.cumsum(lengths).astype(np.intp)
        position = (queue_end - lengths).astype(np.intp)
        limit = self._reserve(lengths, epochs)
        indptr, indices = self._exchange_graph()
        rogue = np.ascontiguousarray(self._rogue, dtype=np.uint8)
        rogue_mode = _ROGUE[network.rogue_behavior]
        value_bytes = float_bytes(self._dtype)
        loss = self._make_loss()
        # Averaging window: the last `average` fraction of every node's steps
        # of this call (at least its last step).
        averaging = self.average > 0
        avg_start = (self._n_steps + np.floor((1 - self.average) * lengths)).astype(np.int64)
        # Sample rows of this call held in the dictionaries, and which of them
        # the neighbours already received (a re-entering point is then sent as
        # a reference); the points of an earlier call are unknown rows (-1).
        self._slot_ids[:] = -1
        sent = np.zeros(X.shape[0], dtype=np.uint8)
        period = self._exchange_period(X.shape[1], lengths // epochs)
        if join:
            # A join: the joining nodes evaluate the neighbours' functions they
            # received (held fixed, so nothing more is asked) and publish
            # nothing (their neighbours do not step; the first publication
            # of a later partial_fit sends them the whole function).
            period = np.full(n_nodes, np.iinfo(np.int64).max, dtype=np.int64)
        consensus_parts, order_parts = [], []
        pending = None
        with _one_blas_thread():
            while True:
                remaining = queue_end - position
                if not np.any(remaining > 0):
                    break
                if pending is None or len(pending) == 0:
                    active, _ = sim.draw_rounds(int(remaining.max()))
                    pending = np.ascontiguousarray(active, dtype=np.uint8)
                capacity = self._points.shape[1]
                n_rounds = pending.shape[0]
                consensus_out = np.empty(n_rounds)
                order_out = np.empty((n_rounds, n_nodes), dtype=np.intp)
                done, status, bad_node = self._run_rounds(
                    X, y, sample_weight, queue, queue_end, position, pending, indptr,
                    indices, loss, rogue, rogue_mode, sim.counter, value_bytes, avg_start,
                    averaging, sent, period, consensus_out, order_out,
                )
                consensus_parts.append(consensus_out[:done])
                order_parts.append(order_out[:done])
                pending = pending[done:]
                if status == _online_fast.STATUS_DIVERGED:
                    self._diverged(f"node {self.nodes_[bad_node]!r} after {done} rounds")
                if status == _online_fast.STATUS_NEED_CAPACITY:
                    self._grow(min(2 * capacity, limit))
                elif status == _online_fast.STATUS_ALL_DONE:
                    break
        finite = np.isfinite(self._weights).all(axis=(1, 2))
        finite &= np.isfinite(self._avg_weights).all(axis=(1, 2))
        if not finite.all():
            bad = np.flatnonzero(~finite)
            self._diverged(f"node {self.nodes_[bad[0]]!r} (non-finite weights at the end)")
        log = sim.log(node_labels=self.nodes_)
        if join:
            # The joining nodes' own rounds: counted in the join's log, kept
            # out of the fit's curves (aligned with bytes_per_round_).
            self._set_fitted()
            return log
        self._consensus_curve = np.concatenate([self._consensus_curve, *consensus_parts])
        self._order_curve = np.concatenate([self._order_curve, *order_parts])
        self._merge_log(log)
        self._set_fitted()
        return log

    def _run_rounds(self, X, y, sample_weight, queue, queue_end, position, active, indptr,
                    indices, loss, rogue, rogue_mode, counter, value_bytes, avg_start,
                    averaging, sent, period, consensus_out, order_out):
        """One call of the Cython solver over the rounds of ``active``.

        Passes this fit's parameters and state (dictionaries, copies,
        averages, slot ids); shared by ``fit``/``partial_fit`` and the MPI
        engine, so both run the same update.  Returns ``(done, status,
        bad_node)`` as :func:`skfed._core._online_fast.run_rounds`.
        """
        n_nodes = len(self._sizes)
        capacity = self._points.shape[1]
        width = max(capacity, self._n_outputs, 1)
        return _online_fast.run_rounds(
            X, y, sample_weight, queue, queue_end, position, active, indptr, indices,
            self.gamma_, self._kernel_kind, self._coef0, self._degree, loss,
            _SCHEDULES[self.learning_rate], float(self.eta0_), float(self.power_t),
            float(self.alpha), float(self.consensus_penalty), float(self.epsilon),
            self._max_size, self._compress, 0, float(self._value_limit),
            int(period.max()) if len(period) else 0, self._points, self._weights,
            self._gram_inv, self._sizes, self._n_steps, rogue, rogue_mode, self._rng_state,
            counter, value_bytes, consensus_out, order_out, self._komp_error,
            np.empty((n_nodes, capacity)), np.empty((n_nodes, max(self._n_outputs, 1))),
            np.empty((8, width)), self._pub_points, self._pub_weights, self._pub_sizes,
            self._since_publish, self._avg_weights, avg_start, averaging, self._slot_ids,
            sent, period,
        )

    def _reserve(self, lengths, epochs):
        """Grow the dictionaries for queues of ``lengths``; return the largest size."""
        n_nodes = len(self.nodes_)
        limit = int(np.max(self._sizes + lengths)) if n_nodes else 0
        if self._max_size:
            limit = min(limit, self._max_size + 1)
        limit = max(limit, 1)
        if self._points.shape[1] < limit:
            # KOMP folds a repeated sample, so later passes rarely grow the
            # dictionaries past the distinct samples: start from those.
            distinct = int(np.max(self._sizes + lengths // epochs)) + 1 if n_nodes else 1
            capacity = limit if not self._compress else max(
                self._points.shape[1], min(limit, _INITIAL_CAPACITY, distinct)
            )
            if capacity > self._points.shape[1]:
                self._grow(capacity)
        return limit

    def _exchange_graph(self):
        """``(indptr, indices)`` of the neighbours a node queries (none without consensus)."""
        if self.consensus_penalty == 0:
            # Nobody needs its neighbours' values: nothing is exchanged.
            n_nodes = len(self.nodes_)
            return np.zeros(n_nodes + 1, dtype=np.intp), np.zeros(0, dtype=np.intp)
        return (np.ascontiguousarray(self.adjacency_.indptr, dtype=np.intp),
                np.ascontiguousarray(self.adjacency_.indices, dtype=np.intp))

    def _exchange_period(self, n_features, pass_lengths):
        """Every node's publication period for the solver (0: query exchange)."""
        if self.exchange_every == "auto":
            # Copies refreshed once per pass over the node's samples.
            period = np.maximum(pass_lengths, 1)
        else:
            period = np.full(len(pass_lengths), 0 if self.exchange_every is None
                             else int(self.exchange_every))
        return np.ascontiguousarray(period, dtype=np.int64)

    def _diverged(self, where):
        """Refuse to keep a diverged model: forget the fit and raise."""
        for name in ("dictionaries_", "dual_coef_", "_sizes", "_points", "_weights", "_avg_weights",
                     "_gram_inv", "_lambda_max", "_kernel_sup_seen", "_target_scale"):
            self.__dict__.pop(name, None)
        raise FloatingPointError(
            f"{type(self).__name__} diverged at {where}: a node's value f(x) became "
            f"non-finite or exceeded {self._value_limit:.3g} (eta0_={self.eta0_:.6g}, "
            f"step bound {self.step_bound_:.6g}); the model was discarded. Lower eta0 "
            "or consensus_penalty, or standardize the features."
        )

    def _laplacian_lambda_max(self):
        """Largest eigenvalue of the graph Laplacian (exact; Lanczos past 200 nodes)."""
        if len(self.nodes_) < 2 or self.adjacency_.nnz == 0:
            return 0.0
        A = sparse.csr_matrix(self.adjacency_, dtype=np.float64)
        L = sparse.diags(np.asarray(A.sum(axis=1)).ravel()) - A
        if L.shape[0] <= 200:
            return float(np.linalg.eigvalsh(L.toarray())[-1])
        from scipy.sparse.linalg import eigsh

        # Lanczos converges from below; Gershgorin (2 max degree) caps it.
        value = float(eigsh(L, k=1, which="LA", tol=1e-6, return_eigenvectors=False)[0])
        return min(value * (1 + 1e-6), 2.0 * float(A.sum(axis=1).max()))

    def _kernel_sup(self, X):
        """``max k(x, x)`` over the samples (and every node's kernel)."""
        if self.kernel_ in ("rbf", "laplacian"):
            return 1.0
        sq = np.einsum("ij,ij->i", X, X, dtype=np.float64) if len(X) else np.zeros(1)
        if self.kernel_ == "linear":
            return float(sq.max())
        if self.kernel_ == "sigmoid":
            return 1.0  # |tanh| <= 1
        return float(np.max(np.abs(self.gamma_.max() * sq + self.coef0) ** self.degree))

    def _resolve_step(self, X, sample_weight):
        """The step bound of this fit and the step ``eta0_`` that respects it.

        At a point ``x`` seen by every node, one synchronous round maps the
        nodes' values ``v`` to ``v - eta (alpha v + k(x, x) (beta s (v - y)
        + c L v))`` (``L`` the graph Laplacian, ``beta`` the loss's
        smoothness, ``s`` the sample weight), so every mode is damped iff
        ``eta < 2 / (alpha + K (beta s_max + c lambda_max(L)))`` with ``K =
        max k(x, x)``; this is the bound, and ``eta0="auto"`` takes half of
        it with ``beta`` replaced by 1 for the Lipschitz losses (the classic
        ``1 / L`` step), i.e. ``1 / (alpha + K (s_max + c lambda_max(L)))``.
        """
        kernel_sup = max(self._kernel_sup(X), getattr(self, "_kernel_sup_seen", 0.0))
        self._kernel_sup_seen = kernel_sup
        s_max = float(sample_weight.max()) if len(sample_weight) else 1.0
        if not hasattr(self, "_lambda_max"):
            self._lambda_max = self._laplacian_lambda_max()
        c = float(self.consensus_penalty)
        beta = _SMOOTHNESS[self._loss_name()]
        curvature = kernel_sup * (beta * s_max + c * self._lambda_max)
        bound = 2.0 / (self.alpha + curvature) if self.alpha + curvature > 0 else np.inf
        if self.eta0 == "auto":
            eta = 1.0 / (self.alpha + kernel_sup * (s_max + c * self._lambda_max))
        else:
            eta = float(self.eta0)
            # A diminishing step falls below the bound after finitely many
            # steps, so only a constant one is refused (the run-time guard
            # still catches a transient that explodes).
            if eta >= bound and self.learning_rate == "constant":
                raise ValueError(
                    f"eta0={eta:.6g} is not below the stability bound {bound:.6g} of this "
                    f"fit: 2 / (alpha + K (beta s_max + c lambda_max)) with alpha="
                    f"{self.alpha:g}, K = max k(x, x) = {kernel_sup:.6g}, loss smoothness "
                    f"beta={beta:g}, largest sample weight s_max={s_max:.6g}, "
                    f"consensus_penalty c={c:g} and lambda_max(graph Laplacian)="
                    f"{self._lambda_max:.6g}; with it the iterates diverge. Use eta0 < "
                    f"{bound:.6g} or eta0='auto' (half of it), or lower "
                    "consensus_penalty, or a sparser topology."
                )
        if self.alpha * eta >= 1:
            raise ValueError(
                f"eta0 * alpha must be < 1 (the step scales f by 1 - eta0 * alpha; the "
                f"paper's condition eta_0 < 1 / lambda), got eta0={eta:.6g} and "
                f"alpha={self.alpha}."
            )
        self.step_bound_ = bound
        self.eta0_ = eta
        # A value this large cannot come from a stable fit: every loss here
        # has |loss'| <= max(1, |f - y|), so a stable step keeps |f(x)| within
        # a few times max(|y|, K s_max / alpha); the guard is 10^6 times that.
        scale = max(1.0, self._target_scale)
        if self.alpha > 0:
            scale = max(scale, kernel_sup * s_max / self.alpha)
        self._value_limit = 1e6 * scale

    def _merge_log(self, log):
        if self._log is not None:
            # Pairs add up and rounds append, without a dense node x node array
            # (nodes that joined since sent nothing in the earlier rounds).
            log = pad_log(self._log, log.node_labels).combine(log)
        self._log = log
        self.communication_ = log
        self.bytes_per_round_ = log.bytes_per_round
        self._set_totals()

    def _set_fitted(self):
        sizes = self._sizes
        self.dictionaries_ = [self._points[i, : sizes[i]].copy() for i in range(len(sizes))]
        weights = self._avg_weights if self.average > 0 else self._weights
        self.dual_coef_ = [weights[i, : sizes[i]].copy() for i in range(len(sizes))]
        self.model_order_ = sizes.copy()
        self.model_order_curve_ = self._order_curve
        self.consensus_error_curve_ = self._consensus_curve
        self.n_iter_ = len(self._consensus_curve)
        self.n_steps_ = self._n_steps.copy()
        self.komp_error_ = self._komp_error.copy()

    def __getstate__(self):
        state = super().__getstate__()
        # Trim the dictionary buffers to what is used (capacity regrows on demand).
        if "_sizes" in state and state.get("_points") is not None:
            sizes = np.concatenate([state["_sizes"], state.get("_pub_sizes", [])])
            used = int(sizes.max()) if len(sizes) else 0
            for name in ("_points", "_weights", "_avg_weights", "_pub_points", "_pub_weights",
                         "_slot_ids"):
                state[name] = state[name][:, :used].copy()
            if state.get("_compress"):
                state["_gram_inv"] = state["_gram_inv"][:, :used, :used].copy()
        return state

    # --------------------------------------------------------- joining nodes
    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Add nodes after the fit: each joins the graph and learns its function.

        Every new node (a node id absent from ``nodes_``) joins as follows,
        while the fitted nodes' functions stay exactly as they are:

        1. **Neighbours.**  It asks ``min(10, n_fitted)`` fitted nodes,
           drawn at random, for their values ``f_j(x)`` on its own samples
           (its samples out and the values back, or ``j``'s whole
           dictionary when that is cheaper, as in the query exchange) and
           chooses the ``deg`` of them whose functions have the smallest
           mean loss on its samples, ``deg`` the median degree of the
           fitted graph; it links to those of its kernel width (all of them
           with a float ``gamma``; the closest one with ``"median"`` or
           ``"scale"``, see below) and ``adjacency_`` grows by these edges.
        2. **Start.**  It receives its neighbours' functions (the copies
           their other neighbours hold with ``exchange_every`` set, their
           dictionaries otherwise) and starts from their mean: the union of
           their dictionaries with averaged weights, compressed by KOMP to
           ``epsilon`` and ``max_dictionary_size`` as after any step.
        3. **Stream.**  It makes ``max_epochs`` passes over its samples
           (shuffled as in ``fit``) by the same synchronous rounds as
           ``fit``, its neighbours' functions held fixed: it evaluates the
           functions it received in step 2 in its consensus term (nothing
           more is sent) and they do not step.  It publishes nothing yet:
           its neighbours receive its function with its first publication
           of a later ``partial_fit`` (or, with the query exchange, by
           their queries), counted there.

        Its kernel coefficient is ``gamma`` when that is a float (or its
        label's value in a dict); with ``"median"`` or ``"scale"`` it is its
        closest neighbour's (the one of smallest loss): a width estimated from
        a newcomer's few samples is poor, and only functions of its width
        can start it exactly.  (With a dict ``gamma`` whose value no chosen
        node shares, it links to all of them and starts from the interpolant
        of their mean at their points.)  What
        steps 1-2 send is in ``join_communication_`` together with step 3's
        rounds; ``n_bytes_sent_`` and ``n_messages_`` are the totals of the
        fit and of every join.  Dropped nodes answer nothing in a round
        (the joining node asks again in the next one), rogue nodes answer
        corrupted values (and so are rarely chosen); a new node is rogue
        with probability ``network.rogue_fraction``.  Later ``partial_fit``
        calls treat the new nodes as any other node.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples of the new nodes, with the features of ``fit``.
        y : array-like of shape (n_samples,)
            Their targets (classes of ``classes_`` for the classifier).
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``);
            every id must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies the loss derivative of every sample.

        Returns
        -------
        self
            With the new nodes appended to ``nodes_`` and to every per-node
            attribute.

        Examples
        --------
        >>> import numpy as np
        >>> from skfed.online import DecentralizedKernelSGDClassifier
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(250, 2)); groups = np.repeat([0, 1, 2, 3, 4], 50)
        >>> y = (X[:, 0] * X[:, 1] > 0).astype(int)
        >>> clf = DecentralizedKernelSGDClassifier(
        ...     gamma=1.0, max_epochs=10, random_state=0).fit(X[:200], y[:200], groups[:200])
        >>> before = clf.dual_coef_[0].copy()
        >>> clf = clf.add_nodes(X[200:210], y[200:210], groups=groups[200:210])
        >>> clf.nodes_.tolist()
        [0, 1, 2, 3, 4]
        >>> bool(np.array_equal(clf.dual_coef_[0], before))
        True
        >>> bool(clf.score(X[210:], y[210:], groups=groups[210:]) > 0.8)
        True
        """
        check_is_fitted(self, "dictionaries_")
        X, y, sample_weight, new_labels, layout = self._validate_join_data(
            X, y, groups, sample_weight, y_numeric=self._is_regressor()
        )
        check_network_faults(self, self.network, {
            "straggler_rate": "a step is one sample and cannot be cut",
        })
        if sample_weight is not None:
            positive = np.bincount(layout.codes, weights=sample_weight > 0,
                                   minlength=len(new_labels))
            if np.any(positive == 0):
                node = new_labels[np.flatnonzero(positive == 0)[0]]
                raise ValueError(
                    f"Node {node!r} has no sample with a positive sample_weight; "
                    f"{type(self).__name__} needs at least 1 per node."
                )
        X = np.ascontiguousarray(X, dtype=self._dtype)
        codes = self._join_new(X, y, sample_weight, -1 - layout.codes, new_labels)
        y_encoded = self._encode_targets(y)
        if self._is_regressor() and len(y):
            self._target_scale = max(self._target_scale, float(np.abs(y_encoded).max()))
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        queues = self._make_queues(codes, self.max_epochs, self.shuffle)
        held = None
        if self.exchange_every is None:
            # The query exchange's neighbours sent their whole dictionaries in
            # step 2: the joining nodes read those (the solver's copies).
            joined = self.adjacency_[len(self.nodes_) - len(new_labels):]
            held = self._hold_received(np.unique(joined.indices))
        try:
            log = self._run(X, y_encoded, sample_weight, queues, self.max_epochs, join=True)
        finally:
            if held is not None:
                self._release_received(*held)
        self._record_join(log)
        return self

    def _hold_received(self, nodes):
        """Load the iterates of ``nodes`` into the copies the solver reads
        (rounded as received); returns what to restore afterwards."""
        saved = (nodes, self._pub_points[nodes].copy(), self._pub_weights[nodes].copy(),
                 self._pub_sizes[nodes].copy())
        if self._pub_points.shape[1] < self._points.shape[1]:
            self._grow(self._points.shape[1])
        for j in nodes:
            size = self._sizes[j]
            weights = self._weights[j, :size]
            if float_bytes(self._dtype) == 4:
                weights = weights.astype(np.float32).astype(np.float64)
            self._pub_points[j, :size] = self._points[j, :size]
            self._pub_weights[j, :size] = weights
            self._pub_sizes[j] = size
        return saved

    def _release_received(self, nodes, points, weights, sizes):
        # The solver may have grown the buffers meanwhile.
        capacity = points.shape[1]
        self._pub_points[nodes, :capacity] = points
        self._pub_points[nodes, capacity:] = 0
        self._pub_weights[nodes, :capacity] = weights
        self._pub_weights[nodes, capacity:] = 0
        self._pub_sizes[nodes] = sizes

    def _join_new(self, X, y, sample_weight, codes, new_labels):
        """Steps 1-2 of :meth:`add_nodes` for the samples with codes < 0.

        ``codes`` holds ``-1 - k`` for a sample of ``new_labels[k]`` (and
        the index into ``nodes_`` of a fitted node's sample).  Appends the
        new nodes to ``nodes_`` and every per-node array, links them into
        ``adjacency_``, sets their starting functions, records what was sent
        as a join and returns ``codes`` with indices into the grown
        ``nodes_``.
        """
        _check_label_kinds(self.nodes_, new_labels)
        n_old = len(self.nodes_)
        n_new = len(new_labels)
        new_rows = np.flatnonzero(codes < 0)
        new_codes = -1 - codes[new_rows]
        X_new = X[new_rows]
        y_new = self._encode_targets(np.asarray(y)[new_rows])
        w_new = (np.ones(len(new_rows)) if sample_weight is None
                 else np.asarray(sample_weight, dtype=np.float64)[new_rows])
        gamma = self._join_gamma(new_labels, X_new, new_codes)
        rng = np.random.RandomState([self._network_seed, self._n_calls, 7919])
        network = resolve_network(self.network)
        rogue_new = rng.uniform(size=n_new) < network.rogue_fraction
        sim = clone(network).set_params(
            topology=None, topology_params=None,
            random_state=np.random.RandomState([self._network_seed, self._n_calls, 7907]),
        ).start(n_old + n_new, server=False)
        sim.rogue[:] = np.concatenate([self._rogue, rogue_new])
        degrees = np.diff(self.adjacency_.indptr)
        degree = max(1, int(round(np.median(degrees)))) if n_old else 0
        n_candidates = min(_JOIN_CANDIDATES, n_old)
        candidates = [np.sort(rng.choice(n_old, size=n_candidates, replace=False))
                      for _ in range(n_new)]
        neighbours, closest = self._join_select(
            sim, X_new, y_new, w_new, new_codes, candidates, degree, n_old
        )
        if isinstance(self.gamma, str):
            # A data-driven width ("median", "scale") from a newcomer's few
            # samples is a poor estimate, and a start from functions of
            # other widths can only be interpolated: the new node takes the
            # width of its closest neighbour, so that its start is exact.
            gamma = self.gamma_[closest].astype(np.float64)
        for k in range(n_new):
            # It links to the chosen nodes of its own width, whose exact mean
            # it starts from (a neighbour it does not start from would cost
            # its whole function for its values at a few samples); to all
            # of them only when none has its width (an interpolated start).
            same = neighbours[k][self.gamma_[neighbours[k]] == gamma[k]]
            if len(same):
                neighbours[k] = same
        start = self._join_receive(sim, neighbours, gamma, n_old)
        self._extend_state(new_labels, gamma, rogue_new, neighbours, start)
        self._record_join(sim.log(node_labels=self.nodes_))
        codes = codes.copy()
        codes[new_rows] = n_old + new_codes
        return codes

    def _join_gamma(self, new_labels, X_new, new_codes):
        """Kernel coefficient of every new node by the ``gamma`` rule."""
        gamma = self.gamma
        if isinstance(gamma, dict):
            missing = [label for label in new_labels.tolist() if label not in gamma]
            if missing:
                raise ValueError(
                    f"gamma is a dict but has no value for the new node(s) {missing[:5]}; "
                    "add their labels to it (set_params) before add_nodes."
                )
            return np.array([gamma[label] for label in new_labels.tolist()], dtype=np.float64)
        if not (gamma is None or isinstance(gamma, (str, numbers.Real))):
            raise ValueError(
                "gamma is an array of one value per fitted node, so it has no value "
                "for the new nodes; pass gamma as a dict keyed by node label that "
                "includes them (set_params) before add_nodes."
            )
        return _check_gamma(gamma, new_labels, X_new, new_codes, self.kernel_)

    def _join_functions(self, nodes, X, published):
        """Values on ``X`` of the functions of ``nodes`` (iterates, or the
        copies their neighbours hold when ``published``): (len(nodes), n, n_out)."""
        out = np.zeros((len(nodes), X.shape[0], self._n_outputs))
        for k, node in enumerate(nodes):
            D, W = self._join_model(node, published)
            if len(D):
                K = np.empty((X.shape[0], len(D)), dtype=self._dtype)
                _online_fast.kernel_matrix(
                    np.ascontiguousarray(X), np.ascontiguousarray(D), K,
                    self._kernel_kind, float(self.gamma_[node]), self._coef0, self._degree,
                )
                out[k] = K.astype(np.float64) @ W
        return out

    def _join_model(self, node, published):
        if published:
            size = self._pub_sizes[node]
            return self._pub_points[node, :size], self._pub_weights[node, :size]
        size = self._sizes[node]
        return self._points[node, :size], self._weights[node, :size]

    def _join_select(self, sim, X_new, y_new, w_new, new_codes, candidates, degree, n_old):
        """Step 1: every new node's neighbours, from its candidates' losses.

        A round at a time: a new node that is dropped, or all of whose
        candidates are, asks again in the next round.  Every candidate that
        answers costs the cheaper of the query (the node's ``k`` samples
        out, ``k n_outputs`` values back: two messages) and the candidate's
        dictionary (one message), under the byte model.
        """
        n_new = len(candidates)
        value_bytes = float_bytes(self._dtype)
        header = sim.counter.header_bytes
        n_features, n_out = X_new.shape[1], self._n_outputs
        loss = self._make_loss()
        neighbours = [None] * n_new
        closest = np.zeros(n_new, dtype=np.intp)

        def visit(k, active):
            i = n_old + k
            rows = np.flatnonzero(new_codes == k)
            answer = [j for j in candidates[k] if active[j]]
            if not answer:
                return False
            values = self._join_functions(answer, X_new[rows], published=False)
            query = 2 * header + len(rows) * (n_features + n_out) * value_bytes
            for j in answer:
                dictionary = self._sizes[j] * (n_features + n_out) * value_bytes
                if header + dictionary < query:
                    sim.counter.send_message(j, i, dictionary)
                else:
                    sim.counter.send_message(i, j, len(rows) * n_features * value_bytes)
                    sim.counter.send_message(j, i, len(rows) * n_out * value_bytes)
            if value_bytes == 4:
                values = values.astype(np.float32).astype(np.float64)
            values = sim.corrupt_value_rows(values, answer)
            weights = w_new[rows]
            losses = np.array([
                np.dot(weights, [loss.py_value(values[c, s], y_new[rows][s])
                                 for s in range(len(rows))]) / weights.sum()
                for c in range(len(answer))
            ])
            best = np.argsort(losses, kind="stable")[:degree]
            neighbours[k] = np.sort(np.asarray(answer, dtype=np.intp)[best])
            closest[k] = answer[best[0]]
            return True

        _join_rounds(sim, n_old, n_new, visit)
        return neighbours, closest

    def _join_receive(self, sim, neighbours, gamma, n_old):
        """Step 2: every new node receives its neighbours' functions and
        starts from their mean; returns ``(points, weights, gram_inv, err)``
        per new node."""
        published = self.exchange_every is not None
        value_bytes = float_bytes(self._dtype)
        n_features, n_out = self._points.shape[2], self._n_outputs
        received = [dict() for _ in neighbours]

        def visit(k, active):
            i = n_old + k
            for j in neighbours[k]:
                if j in received[k] or not active[j]:
                    continue
                D, W = self._join_model(j, published)
                M = len(D)
                if published:
                    # A whole copy, as _publish sends it to a neighbour that
                    # holds nothing yet.
                    payload = M * (n_features * value_bytes + 4) + M * n_out * value_bytes + 4
                else:
                    payload = M * (n_features + n_out) * value_bytes
                sim.counter.send_message(j, i, payload)
                if value_bytes == 4:
                    W = W.astype(np.float32).astype(np.float64)
                W = sim.corrupt_value_rows(W[None], [j])[0]
                received[k][j] = (D, W)
            return len(received[k]) == len(neighbours[k])

        _join_rounds(sim, n_old, len(neighbours), visit)
        return [
            self._join_start([received[k][j] for j in neighbours[k]],
                             [self.gamma_[j] for j in neighbours[k]], gamma[k])
            for k in range(len(neighbours))
        ]

    def _join_start(self, models, gammas, gamma):
        """The mean of the neighbours' ``models`` as a function of the new
        node's kernel, compressed by KOMP: ``(points, weights, gram_inv, err)``."""
        n_features = self._points.shape[2]
        n_out = self._n_outputs
        points = [np.asarray(D) for D, _ in models if len(D)]
        if not points:
            return (np.zeros((0, n_features), dtype=self._dtype), np.zeros((0, n_out)),
                    np.zeros((0, 0)), 0.0)
        Z = np.ascontiguousarray(np.concatenate(points), dtype=self._dtype)
        kernel = self._join_kernel(gamma)
        same = [(D, W) for (D, W), g in zip(models, gammas) if g == gamma]
        if same:
            # The neighbours of the new node's kernel: the mean of their
            # functions is exactly the union with averaged weights.
            Z = np.ascontiguousarray(np.concatenate([D for D, _ in same]), dtype=self._dtype)
            W = np.concatenate([W for _, W in same]) / len(same)
            K = kernel(Z, Z)
        else:
            # No neighbour shares its kernel (gamma given per node): the
            # interpolant of their mean at their points, in its kernel.
            V = np.zeros((len(Z), n_out))
            for (D, W), g in zip(models, gammas):
                if len(D):
                    V += self._join_kernel(g)(Z, np.ascontiguousarray(D)) @ W
            V /= len(models)
            K = kernel(Z, Z)
            W = np.linalg.lstsq(K, V, rcond=None)[0]
        return _komp_prune(Z, W, K, self.epsilon if self._compress else 0.0,
                           self._max_size if self._compress else 0, self._compress)

    def _join_kernel(self, gamma):
        def kernel(A, B):
            K = np.empty((A.shape[0], B.shape[0]), dtype=self._dtype)
            _online_fast.kernel_matrix(
                np.ascontiguousarray(A, dtype=self._dtype),
                np.ascontiguousarray(B, dtype=self._dtype), K,
                self._kernel_kind, float(gamma), self._coef0, self._degree,
            )
            return K.astype(np.float64)

        return kernel

    def _extend_state(self, new_labels, gamma, rogue_new, neighbours, start):
        """Append the new nodes to every per-node array and to the graph."""
        n_old = len(self.nodes_)
        n_new = len(new_labels)
        n_total = n_old + n_new
        self._append_nodes(new_labels)
        largest = max([len(s[0]) for s in start] + [0])
        if largest > self._points.shape[1]:
            self._grow(largest)

        def append(array, fill=0):
            extra = np.full((n_new,) + array.shape[1:], fill, dtype=array.dtype)
            return np.concatenate([array, extra])

        for name in ("_points", "_weights", "_avg_weights", "_pub_points", "_pub_weights",
                     "_gram_inv", "_pub_sizes", "_since_publish", "_n_steps",
                     "_komp_error", "_sizes"):
            setattr(self, name, append(getattr(self, name)))
        self._slot_ids = append(self._slot_ids, -1)
        for k, (D, W, Q, err) in enumerate(start):
            i = n_old + k
            M = len(D)
            self._points[i, :M] = D
            self._weights[i, :M] = W
            self._avg_weights[i, :M] = W
            if self._compress:
                self._gram_inv[i, :M, :M] = Q
            self._sizes[i] = M
            self._komp_error[i] = err
        self.gamma_ = np.concatenate([self.gamma_, gamma])
        rng = np.random.RandomState([self._network_seed, self._n_calls, 7901])
        seeds = node_seeds(rng, n_new)
        self._node_seeds = np.concatenate([self._node_seeds, seeds])
        self._rng_state = np.concatenate([self._rng_state, seeds])
        self._rogue = np.concatenate([self._rogue, rogue_new])
        rows = np.concatenate([np.full(len(nb), n_old + k) for k, nb in enumerate(neighbours)]
                              + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
        cols = np.concatenate(list(neighbours) + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
        A = sparse.coo_matrix(self.adjacency_)
        data = np.concatenate([A.data, np.ones(2 * len(rows), dtype=A.dtype)])
        self.adjacency_ = sparse.csr_matrix(
            (data, (np.concatenate([A.row, rows, cols]), np.concatenate([A.col, cols, rows]))),
            shape=(n_total, n_total),
        )
        self.adjacency_.sort_indices()
        # The stability bound of the step depends on the graph.
        self.__dict__.pop("_lambda_max", None)
        self._order_curve = np.concatenate(
            [self._order_curve, np.zeros((len(self._order_curve), n_new), dtype=np.intp)],
            axis=1,
        )
        self._set_fitted()

    # --------------------------------------------------------------- predict
    def _raw_decision(self, X, groups):
        check_is_fitted(self, "dictionaries_")
        X, codes = self._validate_predict_data(X, groups)
        X = np.ascontiguousarray(X, dtype=self._dtype)
        n_out = self._n_outputs
        out = np.zeros((X.shape[0], n_out))
        for node in np.unique(codes[codes >= 0]):
            rows = np.flatnonzero(codes == node)
            out[rows] = self._node_function(node, X[rows])
        unknown = np.flatnonzero(codes < 0)
        if len(unknown):
            # A node never seen in fit: the average of all nodes' functions.
            for node in range(len(self.nodes_)):
                out[unknown] += self._node_function(node, X[unknown]) / len(self.nodes_)
        return out

    def _node_function(self, node, X):
        """f_node(X) (n_samples, n_outputs)."""
        D = self.dictionaries_[node]
        W = self.dual_coef_[node]
        out = np.zeros((X.shape[0], self._n_outputs))
        if len(D) == 0:
            return out
        D = np.ascontiguousarray(D, dtype=self._dtype)
        for start in range(0, X.shape[0], _PREDICT_CHUNK):
            chunk = np.ascontiguousarray(X[start : start + _PREDICT_CHUNK])
            K = np.empty((chunk.shape[0], D.shape[0]), dtype=self._dtype)
            _online_fast.kernel_matrix(
                chunk, D, K, self._kernel_kind, float(self.gamma_[node]),
                self._coef0, self._degree,
            )
            out[start : start + chunk.shape[0]] = K.astype(np.float64, copy=False) @ W
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


_COMMON_PARAMS_DOC = """
    kernel : {"auto", "rbf", "laplacian", "poly", "linear", "sigmoid"}, \
            default=%(kernel_default)s
        Kernel of the nodes' RKHS (as in :mod:`sklearn.metrics.pairwise`).
        ``"auto"`` is ``"laplacian"`` (``exp(-gamma ||x - x'||_1)``) with 10
        features or more and ``"rbf"`` below (``kernel_`` says which): one
        ``SVC(C=33)`` per node at ``gamma="median"`` scores higher with the
        laplacian kernel on the real data sets measured (HAR sitting-vs-rest
        and activities, 561 features, inner splits of the training parts:
        0.993 / 0.994 mean per-node accuracy against 0.990 / 0.991; digits,
        breast cancer and wine, 64 / 30 / 13 standardized features, 4
        random nodes: at least as high on 8 of 9 splits) and lower on the
        2-feature Gaussian mixtures (0.960 against 0.967), whose classes
        are isotropic Gaussians; L1 distances keep more contrast than
        Euclidean ones between many features (Aggarwal, Hinneburg & Keim,
        2001).  ``"sigmoid"`` is not positive semi-definite and only
        works without compression (``epsilon=0``).
    gamma : "median", "scale", float, array-like of shape (n_nodes,), dict \
            or None, default="median"
        Kernel coefficient.  ``"median"`` is the median heuristic applied by
        every node to its own training data: one over the median, over the
        pairs of its samples (at most 1,000 evenly spaced ones), of the
        kernel's argument at ``gamma=1`` (``||x - x'||^2`` for rbf,
        ``||x - x'||_1`` for laplacian, ``|x . x'|`` for poly and sigmoid),
        so the kernel width follows the data without any node sharing
        statistics (where that median is 0, ``"scale"``).  ``"scale"`` is
        ``SVC``'s rule, ``1 / (n_features X_i.var())``, per node; on HAR, with
        the rbf kernel, the median heuristic is about twice as narrow and
        scores higher (see the user guide).  Both assume features on comparable scales: put a
        ``StandardScaler`` in front otherwise.  ``None`` is
        ``1 / n_features``.  One value per node (an array in the order of
        ``nodes_``, or a dict keyed by node label) gives every node its own
        kernel: the consensus penalty only compares function values, so it
        works across kernels.
    degree : float, default=3
        Degree of the poly kernel.
    coef0 : float, default=1.0
        Independent term of the poly and sigmoid kernels.
    alpha : float, default=1e-4
        RKHS regularization ``lambda`` (about ``SVC(C=33)`` on a node of 300
        samples, ``lambda = 1 / (C n_i)``; on HAR one rbf ``SVC`` per node
        scores 0.936 / 0.987 / 0.986 mean per-node accuracy at ``C`` = 1 /
        10 / 100 on sitting-vs-rest, 0.963 / 0.989 / 0.991 on the six
        activities).  The constant step forgets its start like ``(1 - eta0
        alpha)^t``, so a smaller ``alpha`` needs more passes.
    consensus_penalty : float, default=0.1
        Consensus penalty ``c``.  At the penalized optimum the disagreement
        between neighbours is at most ``2 p* / c`` (``p*`` the optimal value
        of the consensus-constrained problem), so it shrinks like ``1 / c``;
        a larger ``c`` lowers the stable step (see ``eta0``).
    eta0 : "auto" or float, default="auto"
        Step size (``eta``).  Every fit derives the stability bound
        ``2 / (alpha + K (beta s_max + c lambda_max(L)))`` from what it
        knows (``K = max k(x, x)`` over the samples, ``beta`` the loss's
        smoothness: 1 squared, 1/4 logistic, 1/2 multinomial, 0 hinge;
        ``s_max`` the largest sample weight, ``lambda_max(L)`` the largest
        eigenvalue of the graph Laplacian) and exposes it as
        ``step_bound_``: at or above it the synchronous recursion diverges
        (every node's value at a shared point is multiplied by ``1 - eta
        (alpha + K (beta s + c mu))`` per round, ``mu`` an eigenvalue of
        ``L``).  ``"auto"`` takes ``1 / (alpha + K (s_max + c
        lambda_max(L)))``, at most half the bound.  A constant step at or
        above the bound, or any ``eta0`` with ``eta0 alpha >= 1`` (the
        paper's ``eta_0 < 1 / lambda``), raises a ``ValueError`` naming the
        values (a diminishing step may start above the bound: it falls
        below it after finitely many steps).  As a guard, a fit
        during which a node's value becomes non-finite or larger than
        ``10^6 max(1, max |y|, K s_max / alpha)`` raises
        ``FloatingPointError`` and keeps no model.
    learning_rate : {"constant", "diminishing"}, default="constant"
        ``"constant"``: ``eta_t = eta0`` and a constant KOMP budget
        ``epsilon`` (the regime where the model order provably stays
        finite: ``epsilon = K eta0^(3/2)``).  ``"diminishing"``:
        ``eta_t = eta0 / (1 + t)^power_t`` with ``t`` the node's step count
        and budget ``epsilon_t = epsilon (eta_t / eta0)^2`` (the exact
        convergence regime, where the model order may grow).
    power_t : float, default=0.75
        Exponent of the diminishing schedule; must be in ``(0.5, 1]`` with
        ``learning_rate="diminishing"`` (``sum eta_t = inf``, ``sum eta_t^2
        < inf``, the paper's conditions).
    epsilon : float, default=0.01
        KOMP error budget: after every step the compressed function is
        within ``epsilon`` (RKHS norm) of the uncompressed one.  0 disables
        compression (the dictionary grows by one point per step).
    max_dictionary_size : int or None, default=100
        Hard cap ``M`` on every node's dictionary; when KOMP alone would
        leave more elements, the cheapest are removed anyway (the cap wins
        over the budget, so the error can then exceed ``epsilon``).  It
        bounds the cost of a step: ``(1 + deg) M`` kernel evaluations (own
        value and the neighbours' answers) and ``O(M^2)`` for KOMP, and the
        memory, ``M (n_features + M + n_outputs)`` floats a node.  ``None``
        lets the budget alone decide (the model order is then finite but
        data-dependent).
    max_epochs : int, default=30
        Passes over every node's samples in ``fit`` (``partial_fit`` makes
        one pass in arrival order).  With ``"auto"`` exchanges a pass costs
        every neighbour the node's ``M n_outputs`` weights plus the samples
        that newly entered its dictionary.
    average : float in [0, 1), default=0.5
        Averaged SGD: the returned functions (``dual_coef_``, ``predict``)
        are the running mean of every node's iterates over the last
        ``average`` fraction of its steps in ``fit`` (of each
        ``partial_fit`` call), on the node's dictionary (KOMP projects the
        mean with the same formulas as the iterate; a new point enters it
        with weight 0).  The neighbours keep exchanging the iterates, so the
        algorithm and its bytes do not change; the mean removes most of the
        constant step's noise (HAR sitting-vs-rest at the issue-6
        defaults: 0.977 mean per-node accuracy against 0.973 for the last
        iterate).  0 returns the last iterate.
    exchange_every : "auto", int or None, default="auto"
        How a node learns its neighbours' values ``f_j(x)`` (with
        ``consensus_penalty=0`` nobody needs them and nothing is sent).
        ``None``: at every step it asks them (query exchange: ``x`` out,
        ``f_j(x)`` back, or ``j``'s whole dictionary when that is cheaper),
        ``deg (d + n_outputs)`` values a step.  Otherwise every node keeps a
        copy of its neighbours' functions and evaluates them itself; a node
        brings its neighbours' copies up to date by a delta (the dictionary
        slots that changed since its last update, an int32 index and ``d``
        values each, or an int32 index and an int32 reference for a sample
        it sent them before; plus all ``M n_outputs`` weights) once per
        pass over its own samples (``"auto"``: ``n_i`` steps, a whole
        ``partial_fit`` call) or after every ``T``-th of its steps (an int
        ``T``).  With ``T = 1`` and float64 data the fit is exactly the
        query exchange's (only the bytes differ; with float32 data the two
        round different values to float32); otherwise the copies are up to
        a pass (or ``T`` steps) old.  A node never sends one of its samples twice, so
        a fit sends every neighbour at most the node's own data plus the
        weights (``"auto"``: ``M n_outputs`` values a pass), however many
        passes it makes.
    shuffle : bool, default=True
        Shuffle each node's samples at every pass of ``fit`` (one seed per
        node).
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        A node never seen in fit is predicted with the average of all
        nodes' functions (``"global"``) or raises (``"error"``).
    network : SimulatedNetwork or None, default=None
        The peer-to-peer network (topology, dropped nodes, rogue nodes);
        ``None`` is a perfect network.  Without a topology (``None`` or a
        ``SimulatedNetwork`` whose ``topology`` is None) the nodes talk over
        a ring (``"k_regular"`` of degree 2; the complete graph below 4
        nodes), so a round costs the same per node at any number of nodes,
        and a fit sends every neighbour at most about the node's own data
        (see ``exchange_every``).  A dropped node neither steps
        nor answers in that round: its sample waits for its next round, and
        its neighbours leave it out of their consensus sums (with copies, its
        once-a-pass update of their copies waits for its next step).  Stragglers are
        refused with an error (a step is one sample and cannot be cut).  A
        rogue node answers ``-f_j(x)`` (``"complement"``) or noise of the
        same magnitude (``"random"``).
    random_state : int, RandomState instance or None, default=None
        Seeds the per-node shuffles, the network and the rogue noise.
    privacy : None, default=None
        Differential privacy is not supported: the exchanges send raw
        samples (new dictionary centres) and whole dictionaries, whose
        sensitivity to one sample is unbounded, so a
        :class:`~skfed.privacy.DifferentialPrivacy` is refused with an error.
"""

_COMMON_ATTRIBUTES_DOC = """
    nodes_ : ndarray of shape (n_nodes,)
        Node labels seen in fit; every per-node attribute follows this order.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined when ``X`` has feature names that are all strings.
    kernel_ : str
        The kernel used (``kernel``, or what ``"auto"`` stands for).
    gamma_ : ndarray of shape (n_nodes,)
        Kernel coefficient of every node.
    eta0_ : float
        The step size used (``eta0``, or its ``"auto"`` value).
    step_bound_ : float
        The stability bound of the step derived at fit (see ``eta0``).
    dictionaries_ : list of ndarray of shape (model_order_[i], n_features)
        Dictionary (kernel centres) of every node (KOMP fills a freed slot
        with the last element, so the order is not arrival order).
    dual_coef_ : list of ndarray of shape (model_order_[i], n_outputs)
        Weights of every node's dictionary: ``f_i(x) = sum_m
        dual_coef_[i][m] k_i(dictionaries_[i][m], x)`` (the averaged
        iterates when ``average > 0``, the last iterate otherwise).
    model_order_ : ndarray of shape (n_nodes,)
        Dictionary size of every node.
    model_order_curve_ : ndarray of shape (n_iter_, n_nodes)
        Dictionary sizes after every round.
    consensus_error_curve_ : ndarray of shape (n_iter_,)
        Mean over the (node, neighbour) exchanges of a round of
        ``||f_i(x_i) - f_j(x_i)||^2`` (honest values), NaN for a round
        without exchanges (every round with ``consensus_penalty=0``);
        aligned with ``bytes_per_round_``.
    komp_error_ : ndarray of shape (n_nodes,)
        Largest RKHS distance between a compressed and an uncompressed
        iterate over all steps of every node.
    n_steps_ : ndarray of shape (n_nodes,)
        Samples processed by every node.
    n_iter_ : int
        Synchronous rounds run (cumulative over ``partial_fit`` calls).
    adjacency_ : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        The communication graph used.
    communication_ : CommunicationLog
        Bytes and messages per node pair and per round.
    n_bytes_sent_ : int
        Bytes of the fit and of every join (``communication_`` plus
        ``join_communication_``).
    n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    join_communication_ : CommunicationLog
        What the joins of nodes after the fit sent (:meth:`add_nodes`, or
        ``partial_fit`` with new node ids), rounds appended join after
        join; only after a join.
"""


def _doc(template, kernel_default):
    params = _COMMON_PARAMS_DOC.strip("\n").replace("%(kernel_default)s", kernel_default)
    return template.replace("%(params)s", params).replace(
        "%(attributes)s", _COMMON_ATTRIBUTES_DOC.strip("\n")
    )


class DecentralizedKernelSGDClassifier(FederatedClassifierMixin, _BaseDecentralizedKernelSGD):
    """Decentralized online kernel classifier (functional SGD + consensus + KOMP).

    Every node ``i`` learns its own function ``f_i`` in an RKHS from its own
    stream of samples, talking only to its neighbours, on the objective::

        sum_i E[loss(f_i(x_i), y_i)] + (alpha / 2) sum_i ||f_i||^2
            + (c / 2) sum_i sum_{j in N_i} E[(f_i(x_i) - f_j(x_i))^2]

    In every synchronous round each node steps on its next sample ``x``::

        omega = loss'(f_i(x), y) + c sum_{j in N_i} (f_i(x) - f_j(x))
        f_i  <- (1 - eta alpha) f_i - eta omega k_i(x, .)

    and compresses ``f_i`` by destructive kernel orthogonal matching pursuit
    with error budget ``epsilon``, which keeps the model order (dictionary
    size) bounded.  Binary problems use one function (``hinge`` or
    ``log_loss`` with labels -1/+1); with more classes every node keeps one
    function per class on a shared dictionary, with the multiclass hinge
    ``max(0, 1 + f_r(x) - f_y(x))`` (``r`` the best wrong class,
    Crammer-Singer) or the multinomial logistic loss.

    Read more in :mod:`skfed.online`, which also documents how the
    exchanges with the neighbours are counted.

    Parameters
    ----------
    loss : {"hinge", "log_loss"}, default="hinge"
        Loss; multiclass problems use its multiclass form.
%(params)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Classes seen in fit (or given to the first ``partial_fit``), global
        across nodes.
%(attributes)s

    See Also
    --------
    DecentralizedKernelSGDRegressor : The same method with the squared loss.
    sklearn.linear_model.SGDClassifier : Centralized linear SGD; with
        :class:`~sklearn.kernel_approximation.RBFSampler` features, the
        online kernel baseline.

    References
    ----------
    .. [1] A. Koppel, S. Paternain, C. Richard and A. Ribeiro, "Decentralized
       Online Learning With Kernels", IEEE Transactions on Signal
       Processing 66(12), 2018 (Asilomar 2017/2018 for the short version).
    .. [2] A. Koppel, G. Warnell, E. Stump and A. Ribeiro, "Parsimonious
       Online Learning with Kernels via Sparse Projections in Function
       Space", JMLR 20, 2019 (KOMP and the model-order bound).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.online import DecentralizedKernelSGDClassifier
    >>> from skfed.network import SimulatedNetwork
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(200, 2)); groups = np.repeat([0, 1, 2, 3], 50)
    >>> y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> clf = DecentralizedKernelSGDClassifier(
    ...     gamma=1.0, eta0=0.5, epsilon=0.05, network=SimulatedNetwork("ring"),
    ...     max_epochs=10, random_state=0).fit(X, y, groups=groups)
    >>> bool(clf.score(X, y, groups=groups) > 0.9)
    True
    >>> bool(clf.model_order_.max() < 200)
    True
    """

    _parameter_constraints = {
        **_BaseDecentralizedKernelSGD._parameter_constraints,
        "loss": [StrOptions({"hinge", "log_loss"})],
    }

    def __init__(
        self,
        loss="hinge",
        *,
        kernel="auto",
        gamma="median",
        degree=3,
        coef0=1.0,
        alpha=1e-4,
        consensus_penalty=0.1,
        eta0="auto",
        learning_rate="constant",
        power_t=0.75,
        epsilon=0.01,
        max_dictionary_size=100,
        max_epochs=30,
        average=0.5,
        exchange_every="auto",
        shuffle=True,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        privacy=None,
    ):
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.alpha = alpha
        self.consensus_penalty = consensus_penalty
        self.eta0 = eta0
        self.learning_rate = learning_rate
        self.power_t = power_t
        self.epsilon = epsilon
        self.max_dictionary_size = max_dictionary_size
        self.max_epochs = max_epochs
        self.average = average
        self.exchange_every = exchange_every
        self.shuffle = shuffle
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.privacy = privacy

    def _is_regressor(self):
        return False

    def _loss_name(self):
        if len(self.classes_) > 2:
            return "multiclass_hinge" if self.loss == "hinge" else "multinomial_log_loss"
        return self.loss

    def _init_targets(self, y, classes, partial):
        check_classification_targets(y)
        if partial:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit (all "
                    "classes of the stream, across nodes)."
                )
            classes = np.unique(np.asarray(classes))
            unseen = np.setdiff1d(np.unique(y), classes)
            if len(unseen):
                raise ValueError(f"y contains labels {unseen[:5]!r} not in classes={classes!r}.")
        else:
            classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes; got one "
                f"class ({classes[0]!r})."
                if len(classes)
                else "classes is empty."
            )
        self.classes_ = classes
        self._n_outputs = 1 if len(classes) == 2 else len(classes)

    def _encode_targets(self, y):
        index = np.searchsorted(self.classes_, y)
        index = np.clip(index, 0, len(self.classes_) - 1)
        if np.any(self.classes_[index] != y):
            bad = np.asarray(y)[self.classes_[index] != y]
            raise ValueError(
                f"y contains labels {np.unique(bad)[:5]!r} that are not in classes_ "
                f"{self.classes_!r}."
            )
        if len(self.classes_) == 2:
            return np.where(index == 1, 1.0, -1.0)
        return index.astype(np.float64)

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit by ``max_epochs`` passes over every node's samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``).
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies the loss derivative of every sample.

        Returns
        -------
        self
        """
        return self._fit(X, y, groups, sample_weight, partial=False)

    def partial_fit(self, X, y, groups=None, classes=None, sample_weight=None):
        """Process a batch of the stream: one pass, in arrival order.

        Each node processes its own samples one per synchronous round; the
        first call fixes the classes and the network.  Samples of a node
        id not seen so far make that node join first, as in
        :meth:`add_nodes` (neighbours chosen by their losses on its samples
        of this batch, start from their functions, counted in
        ``join_communication_``); it then streams with everyone.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        classes : array-like of shape (n_classes,), default=None
            All classes of the stream; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, groups, sample_weight, classes=classes, partial=True)

    def decision_function(self, X, groups=None):
        """Values of the nodes' functions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``f_i(x)`` of every sample's node (positive for ``classes_[1]``
            in the binary case).
        """
        out = self._raw_decision(X, groups)
        return out[:, 0] if self._n_outputs == 1 else out

    def predict(self, X, groups=None):
        """Class of every sample by its node's function.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X, groups)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _has_log_loss(self):
        return self.loss == "log_loss"

    @available_if(_has_log_loss)
    def predict_proba(self, X, groups=None):
        """Class probabilities (``loss="log_loss"`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X, groups)
        if scores.ndim == 1:
            p = 1.0 / (1.0 + np.exp(-scores))
            return np.column_stack([1.0 - p, p])
        scores = scores - scores.max(axis=1, keepdims=True)
        e = np.exp(scores)
        return e / e.sum(axis=1, keepdims=True)

    @available_if(_has_log_loss)
    def predict_log_proba(self, X, groups=None):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X, groups))


class DecentralizedKernelSGDRegressor(FederatedRegressorMixin, _BaseDecentralizedKernelSGD):
    """Decentralized online kernel regression (functional SGD + consensus + KOMP).

    Every node ``i`` learns its own function ``f_i`` in an RKHS from its own
    stream of samples, talking only to its neighbours, on the objective::

        sum_i E[(f_i(x_i) - y_i)^2 / 2] + (alpha / 2) sum_i ||f_i||^2
            + (c / 2) sum_i sum_{j in N_i} E[(f_i(x_i) - f_j(x_i))^2]

    In every synchronous round each node steps on its next sample ``x``::

        omega = (f_i(x) - y) + c sum_{j in N_i} (f_i(x) - f_j(x))
        f_i  <- (1 - eta alpha) f_i - eta omega k_i(x, .)

    and compresses ``f_i`` by destructive kernel orthogonal matching pursuit
    with error budget ``epsilon``, which keeps the model order bounded.

    Read more in :mod:`skfed.online`, which also documents how the
    exchanges with the neighbours are counted.

    Parameters
    ----------
    loss : {"squared_error"}, default="squared_error"
%(params)s

    Attributes
    ----------
%(attributes)s

    See Also
    --------
    DecentralizedKernelSGDClassifier : The same method for classification.
    sklearn.linear_model.SGDRegressor : Centralized linear SGD.

    References
    ----------
    .. [1] A. Koppel, S. Paternain, C. Richard and A. Ribeiro, "Decentralized
       Online Learning With Kernels", IEEE Transactions on Signal
       Processing 66(12), 2018.
    .. [2] A. Koppel, G. Warnell, E. Stump and A. Ribeiro, "Parsimonious
       Online Learning with Kernels via Sparse Projections in Function
       Space", JMLR 20, 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.online import DecentralizedKernelSGDRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, size=(300, 1)); groups = np.repeat([0, 1, 2], 100)
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=300)
    >>> reg = DecentralizedKernelSGDRegressor(
    ...     gamma=1.0, eta0=0.5, epsilon=0.01, max_epochs=10,
    ...     random_state=0).fit(X, y, groups=groups)
    >>> bool(reg.score(X, y, groups=groups) > 0.9)
    True
    """

    _parameter_constraints = {
        **_BaseDecentralizedKernelSGD._parameter_constraints,
        "loss": [StrOptions({"squared_error"})],
    }

    def __init__(
        self,
        loss="squared_error",
        *,
        kernel="rbf",
        gamma="median",
        degree=3,
        coef0=1.0,
        alpha=1e-4,
        consensus_penalty=0.1,
        eta0="auto",
        learning_rate="constant",
        power_t=0.75,
        epsilon=0.01,
        max_dictionary_size=100,
        max_epochs=30,
        average=0.5,
        exchange_every="auto",
        shuffle=True,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        privacy=None,
    ):
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.alpha = alpha
        self.consensus_penalty = consensus_penalty
        self.eta0 = eta0
        self.learning_rate = learning_rate
        self.power_t = power_t
        self.epsilon = epsilon
        self.max_dictionary_size = max_dictionary_size
        self.max_epochs = max_epochs
        self.average = average
        self.exchange_every = exchange_every
        self.shuffle = shuffle
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.privacy = privacy

    def _is_regressor(self):
        return True

    def _loss_name(self):
        return self.loss

    def _init_targets(self, y, classes, partial):
        self._n_outputs = 1

    def _encode_targets(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity.")
        return np.ascontiguousarray(y)

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit by ``max_epochs`` passes over every node's samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``).
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies the loss derivative of every sample.

        Returns
        -------
        self
        """
        return self._fit(X, y, groups, sample_weight, partial=False)

    def partial_fit(self, X, y, groups=None, sample_weight=None):
        """Process a batch of the stream: one pass, in arrival order.

        Samples of a node id not seen so far make that node join first, as
        in :meth:`add_nodes`; it then streams with everyone.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, groups, sample_weight, partial=True)

    def predict(self, X, groups=None):
        """Value of every sample's node function.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._raw_decision(X, groups)[:, 0]


DecentralizedKernelSGDClassifier.__doc__ = _doc(DecentralizedKernelSGDClassifier.__doc__, '"auto"')
# The regressor keeps the rbf kernel: "auto" was chosen on classification data.
DecentralizedKernelSGDRegressor.__doc__ = _doc(DecentralizedKernelSGDRegressor.__doc__, '"rbf"')
