"""The estimators: :class:`DecentralizedKernelSGDClassifier` and
:class:`DecentralizedKernelSGDRegressor`, and their shared base (validation,
set-up, fitted attributes, prediction).  The rounds are in ``_consensus``,
the dictionaries in ``_dictionary``, joins in ``_join``.
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._base import (FederatedClassifierMixin, FederatedMixin, FederatedRegressorMixin, _check_y,
                     _numeric_target, node_seeds, pad_log)
from .._base import check_magnitude, check_network_faults, check_node_weights, check_sample_weight
from .._compat import HasMethods, Interval, StrOptions
from ..kernels import _checked_kernel_settings, kernel_params, resolve_kernel
from ..privacy import DifferentialPrivacy
from ._consensus import _ConsensusMixin
from ._coupling import _CouplingSelectionMixin
from ._dictionary import _DictionaryMixin
from ._holdout import rows_by_node
from ._docs import _EPSILON_UNITS, _doc
from ._join import _JoinMixin
from ._join_gate import _NeighbourGateMixin
from ._linear import _LinearJoinMixin, with_join_function_doc
from ._network_function import _NetworkFunctionMixin
from ._robust import (ROBUST_LOSSES, agreed_offset, agreed_scale, between_node_scale,
                      node_centres, node_log_scales)
from ._selection import _KernelSelectionMixin, _nonlinear_kernel
from ._share import _NetworkShareMixin
from ._state import _PackedStateMixin, pack
from ._validation import (AFFINE_COEF0, _LOSSES, _SCHEDULES, _check_gamma, _check_groups_kind,
                          drop_absent_rows)

__all__ = ["DecentralizedKernelSGDClassifier", "DecentralizedKernelSGDRegressor"]

# partial_fit recomputes the network function once the network's steps have
# grown by this factor since the last one (benchmarks: a 200-sample batch on
# 20 nodes took 0.003 s without it and 0.18 s with it at every call).
NETWORK_REFRESH_FACTOR = 2


class _BaseDecentralizedKernelSGD(_LinearJoinMixin, _JoinMixin, _NetworkFunctionMixin,
                                  _KernelSelectionMixin, _PackedStateMixin,
                                  _NetworkShareMixin, _CouplingSelectionMixin, _ConsensusMixin,
                                  _DictionaryMixin, FederatedMixin, BaseEstimator):
    """Shared machinery of the classifier and the regressor."""

    # a join compresses the newcomers' starts with the fit's dictionary budget
    _join_fixed_params = ("epsilon", "max_dictionary_size")

    _parameter_constraints = {
        "kernel": [StrOptions({"auto", "rbf", "laplacian", "poly", "linear", "affine",
                               "sigmoid"})],
        "gamma": [
            StrOptions({"median", "scale"}), None,
            Interval(numbers.Real, 0, None, closed="neither"),
            "array-like", dict,
        ],
        "degree": [Interval(numbers.Real, 1, None, closed="left")],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "consensus_penalty": [StrOptions({"auto"}), Interval(numbers.Real, 0, None, closed="left")],
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
        # (add_nodes compares them; it reads a new node's width from gamma)
        self._kernel_settings = _checked_kernel_settings(
            self, fixed=("kernel", "degree", "coef0"))
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
        """The kernel before any selection (``"auto"``: its nonlinear candidate)."""
        if self.kernel != "auto":
            return self.kernel
        return _nonlinear_kernel(n_features)

    def _set_kernel(self, X, codes, kernel):
        """``kernel_``, its parameters for the solver and every node's ``gamma_``."""
        self.kernel_ = kernel
        if kernel == "affine":
            # gamma x . x' + 1: the linear kernel with an intercept (the
            # degree-1 polynomial kernel with coef0 1, whatever degree and
            # coef0 say: those are the poly kernel's).
            spec = resolve_kernel("poly", gamma=1.0, degree=1, coef0=AFFINE_COEF0,
                                  n_features=X.shape[1])
        else:
            spec = resolve_kernel(
                kernel, gamma=1.0, degree=self.degree, coef0=self.coef0,
                n_features=X.shape[1],
            )
        self._kernel_kind, _, self._coef0, self._degree = kernel_params(spec)
        self.gamma_ = _check_gamma(self.gamma, self.nodes_, X, codes, kernel)

    def _make_loss(self):
        name = self._loss_name()
        if name in ROBUST_LOSSES:
            return _LOSSES[name](self._loss_threshold())
        return _LOSSES[name]()

    def _loss_threshold(self):
        """The robust loss's threshold in the units of the encoded targets
        (``loss_epsilon``: a regressor's targets are standardized by the
        agreed scale), None for the other losses."""
        if self._loss_name() in ROBUST_LOSSES:
            return float(self.loss_epsilon)
        return None

    def _set_target_encoding(self, y, codes, combine=None, sample_weight=None):
        """A regressor's ``target_offset_`` and ``target_scale_`` (and a robust
        loss's ``loss_threshold_``), agreed by the nodes (see ``_robust``).

        ``y`` are the raw training targets.  ``combine.sum`` adds the
        contributions of the processes that hold the nodes and
        ``combine.fmax`` fills in their per-node values (by default every
        node is here).  A weight of ``sample_weight`` counts as that many
        copies of its target.  A classifier has nothing to agree on.
        """
        if not self._is_regressor():
            return
        y = self._finite_targets(y)
        sums = node_log_scales(y, codes, len(self.nodes_), sample_weight)
        centres = node_centres(y, codes, len(self.nodes_), sample_weight)
        if combine is not None:
            sums = combine.sum(sums)
            centres = combine.fmax(centres)
        self.target_scale_ = agreed_scale(sums)
        if sums[1] == 0:  # no node of a positive scale: the spread between them
            self.target_scale_ = between_node_scale(centres) or 1.0
        self.target_offset_ = agreed_offset(centres, self.target_scale_)
        if self._loss_name() in ROBUST_LOSSES:
            self.loss_threshold_ = float(self.loss_epsilon) * self.target_scale_
        else:
            self.__dict__.pop("loss_threshold_", None)
        self._pending_scale = True

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
            # Zero-weight rows are absent rows: they set no kernel width and
            # never become (or are sent as) dictionary centres.
            check_node_weights(self, codes, sample_weight)
            if sample_weight is not None and not np.all(sample_weight > 0):
                keep = sample_weight > 0
                X, y, sample_weight, codes = X[keep], y[keep], sample_weight[keep], codes[keep]
            self._dtype = X.dtype
            self._init_targets(y, classes, partial)
            compress = self._check_hyperparameters()
            self._setup(X, codes, compress)
        else:
            X, y, sample_weight, codes, new_labels = self._validate_more_data(
                X, y, groups, sample_weight, classes
            )
            self._check_hyperparameters()
            self._refresh_share()
            if sample_weight is not None and not np.all(sample_weight > 0):
                known = codes >= 0  # (a new node's rows: drop_absent_rows)
                check_node_weights(self, codes[known], sample_weight[known])
                X, y, sample_weight, codes = drop_absent_rows(self, X, y, sample_weight, codes,
                                                              new_labels)
            if len(new_labels):
                # Samples of nodes unseen so far: they join first (graph and
                # starting function from their neighbours, as in add_nodes),
                # then stream with everyone in the pass below.
                codes = self._join_new(X, y, sample_weight, codes, new_labels)
                del self._join_values, self._join_keep, self._join_share  # add_nodes' passes'
        check_network_faults(self, self.network, {
            "straggler_rate": "a step is one sample and cannot be cut",
        })
        self._check_join_function()
        check_node_weights(self, codes, sample_weight)
        if first:
            # (before the targets are encoded: a regressor's are standardized)
            self._set_target_encoding(y, codes, sample_weight=sample_weight)
        y_encoded = self._encode_targets(y)
        scale = float(np.abs(y_encoded).max()) if self._is_regressor() and len(y) else 1.0
        self._target_scale = max(getattr(self, "_target_scale", 0.0), scale)
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        X = np.ascontiguousarray(X, dtype=self._dtype)
        epochs = 1 if partial else self.max_epochs
        shuffle = self.shuffle and not partial
        if first:
            self.kernel_selection_ = None
            if self.kernel == "auto" and self.eta0 == "auto":
                # Validation within the nodes (counted in a round of its own).
                # A fixed eta0 is a step for one kernel's scale (k(x, x) = 1
                # for rbf and laplacian, ||x||^2 for linear): no selection.
                kernel = self._select_kernel(X, codes, sample_weight, y_encoded, epochs,
                                             shuffle)
                self._set_kernel(X, codes, kernel)
            self.consensus_selection_ = None
            self._reset_share()
            if (self.consensus_penalty == "auto" and len(self.nodes_) > 1
                    and self.eta0 == "auto"):
                # The coupling chosen by validation within the nodes, with the
                # kernel chosen above (its candidates' messages counted).  A
                # fixed eta0 is a step for one coupling (the strong one's
                # stable step is smaller): the weak one, without selection.
                self._select_coupling(X, codes, sample_weight, y_encoded, epochs, shuffle,
                                      solve=not partial)
        queues = self._make_queues(codes, epochs, shuffle)
        self._run(X, y_encoded, sample_weight, queues, epochs)
        # The network function: after every fit; in a stream, whenever the
        # steps taken have doubled since it was last computed (its cost, a
        # tree pass with whole dictionaries, about that of one small batch's
        # pass, is then paid O(log n_steps) times, not once per call).
        steps = int(self._n_steps.sum())
        if first or steps >= NETWORK_REFRESH_FACTOR * self._network_steps:
            # (the call's samples: where the parents check messages when
            # the network has rogue nodes)
            self._network_round(X, y_encoded, codes, sample_weight, solve=not partial)
            self._network_steps = steps
        return self._warn_if_empty(codes, y_encoded)  # (a constant predictor warns)

    def _setup(self, X, codes, compress):
        """Fit-time state (the kernel before any ``kernel="auto"`` selection)."""
        n_nodes = len(self.nodes_)
        n_features = X.shape[1]
        self._set_kernel(X, codes, self._resolve_kernel_name(n_features))
        self._compress = compress
        self.consensus_penalty_, self.epsilon_ = self._initial_coupling()
        # Nothing of an earlier fit steers this one (a refit may have another
        # graph, other samples, another coupling).
        for name in ("_lambda_max", "_kernel_sup_seen", "_s_max_seen", "_target_scale",
                     "_coupling_adjacency", "network_communication_", "_linear_scale",
                     "_linear_cache"):
            self.__dict__.pop(name, None)
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
        if self._is_regressor():
            y = _numeric_target(y, self)
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
        check_magnitude(X_features, "X", self._dtype)  # (cast to the fit's dtype below)
        n_samples = X_features.shape[0]
        groups = self._resolve_groups(groups, column_groups, n_samples)
        if groups is None:
            if len(self.nodes_) > 1:
                # raises, explaining how
                self._node_codes(None, n_samples, purpose="learn from it in partial_fit")
            codes = np.zeros(n_samples, dtype=np.intp)
        else:
            _check_groups_kind(self, groups)
            lookup = {label: index for index, label in enumerate(self.nodes_.tolist())}
            unique, inverse = np.unique(groups, return_inverse=True)
            mapped = np.array([lookup.get(label, -1) for label in unique.tolist()])
            # Nodes not seen so far join the network (codes -1 - k for the
            # k-th of new_labels).
            new_labels = unique[mapped < 0]
            mapped[mapped < 0] = -1 - np.arange(len(new_labels))
            codes = mapped[inverse.ravel()].astype(np.intp)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X_features, working=self._dtype)
        if classes is not None and hasattr(self, "classes_"):
            if not np.array_equal(np.unique(classes), self.classes_):
                raise ValueError(
                    f"classes={classes!r} is not the same as in the first call to "
                    f"partial_fit ({self.classes_!r})."
                )
        if groups is None:
            new_labels = np.zeros(0)
        return X_features.astype(self._dtype, copy=False), y, sample_weight, codes, new_labels

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
        state = dict(super().__getstate__())   # (Python >= 3.11: not self.__dict__ itself)
        # Trim the dictionary buffers to what is used (capacity regrows on demand).
        if "_sizes" in state and state.get("_points") is not None:
            sizes = np.concatenate([state["_sizes"], state.get("_pub_sizes", [])])
            used = int(sizes.max()) if len(sizes) else 0
            for name in ("_points", "_weights", "_avg_weights", "_pub_points", "_pub_weights",
                         "_slot_ids"):
                state[name] = state[name][:, :used].copy()
            if state.get("_compress"):
                state["_gram_inv"] = state["_gram_inv"][:, :used, :used].copy()
        return pack(state)   # each repeated array once (_PackedStateMixin)

    # --------------------------------------------------------------- predict
    def _raw_decision(self, X, groups):
        check_is_fitted(self, "dictionaries_")
        X, codes = self._validate_predict_data(X, groups)
        X = np.ascontiguousarray(X, dtype=self._dtype)
        n_out = self._n_outputs
        out = np.zeros((X.shape[0], n_out))
        known = np.flatnonzero(codes >= 0)
        for node, rows in rows_by_node(codes[known]):
            rows = known[rows]
            out[rows] = self._blended(node, X[rows])
        unknown = np.flatnonzero(codes < 0)
        if len(unknown):
            # A node never seen in fit: the network function (the compressed
            # mean of all nodes' functions that the fit ended with).
            out[unknown] = self._network_values(X[unknown])
        return out

    def _network_round(self, X=None, y=None, codes=None, sample_weight=None, lost=None,
                       solve=False, node_sums=None, linear_data=None):
        """End a fit with the network function (the arguments: see
        ``_build_network_function``); its rounds are kept in
        ``network_communication_`` (appended call after call) and counted in
        ``n_bytes_sent_`` and ``n_messages_``."""
        log = self._build_network_function(X, y, codes, sample_weight, lost, solve=solve,
                                           node_sums=node_sums, linear_data=linear_data)
        self._keep_fit_sums(X, y, codes, sample_weight)   # (_join_offset too)
        previous = getattr(self, "network_communication_", None)
        if previous is not None:
            log = pad_log(previous, log.node_labels).combine(log)
        self.network_communication_ = log
        self._set_totals()

    def _set_totals(self):
        """``n_bytes_sent_`` / ``n_messages_``: the fit's log, the network
        function's and the joins'."""
        logs = [getattr(self, name, None) for name in
                ("communication_", "network_communication_", "join_communication_")]
        logs = [log for log in logs if log is not None]
        self.n_bytes_sent_ = sum(log.total_bytes for log in logs)
        self.n_messages_ = sum(log.total_messages for log in logs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class DecentralizedKernelSGDClassifier(FederatedClassifierMixin, _NeighbourGateMixin,
                                       _BaseDecentralizedKernelSGD):
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
    DecentralizedKernelSGDRegressor : The same method for regression.
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
        "join_function": [StrOptions({"network", "auto"})],
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
        consensus_penalty="auto",
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
        join_function="network",
    ):
        self.loss = loss
        self.join_function = join_function
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
                f"class ({classes[:1].tolist()[0]!r})."
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
        first call fixes the classes and the network. The call ends with the network
        function (``network_dictionary_``) recomputed when the network's
        steps have doubled since it was last computed.  Samples of a node
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
            p = np.exp(-np.logaddexp(0.0, -scores))  # sigmoid, no overflow
            return np.column_stack([np.exp(-np.logaddexp(0.0, scores)), p])  # (not 1 - p)
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

        sum_i E[loss(f_i(x_i) - y_i)] + (alpha / 2) sum_i ||f_i||^2
            + (c / 2) sum_i sum_{j in N_i} E[(f_i(x_i) - f_j(x_i))^2]

    In every synchronous round each node steps on its next sample ``x``::

        omega = loss'(f_i(x) - y) + c sum_{j in N_i} (f_i(x) - f_j(x))
        f_i  <- (1 - eta alpha) f_i - eta omega k_i(x, .)

    (``loss'(r)`` is ``clip(r, -delta, delta)`` for the default Huber loss,
    ``r`` for the squared loss.)

    and compresses ``f_i`` by destructive kernel orthogonal matching pursuit
    with error budget ``epsilon``, which keeps the model order bounded.

    Read more in :mod:`skfed.online`, which also documents how the
    exchanges with the neighbours are counted.

    Parameters
    ----------
    loss : {"huber", "squared_error", "epsilon_insensitive"}, default="huber"
        Loss of the residual ``r = f(x) - y``: Huber's (``r^2 / 2`` for
        ``|r| <= delta``, ``delta (|r| - delta / 2)`` beyond, so a sample's
        pull is at most ``delta``: robust to heavy-tailed noise and
        outlying targets); ``r^2 / 2``; or ``max(0, |r| - delta)`` (the
        SVR's). ``delta`` is ``loss_threshold_``. The default was chosen on
        six regression families: at ``loss_epsilon=1`` it is within 0.2 %
        of the squared loss's RMSE where the noise is Gaussian and 2.2 to
        3.2 times lower with heavy-tailed noise or outlying targets (see
        the user guide).
    loss_epsilon : float, default=1.0
        Threshold ``delta`` of ``"huber"`` (> 0) and ``"epsilon_insensitive"``
        (>= 0) in units of the nodes' agreed scale of ``y``,
        ``target_scale_``, so the threshold means the same at any unit of
        ``y``. Not used by ``"squared_error"`` (any value but the default
        is then refused).
    network_share : "auto" or float in [0, 1], default="auto"
        Share ``s`` of the network function in every node's prediction,
        ``(1 - s) f_i(x) + s fbar(x)`` (``fbar``: ``network_dictionary_``,
        the compressed mean of the nodes' functions, re-solved on their
        losses).  A node's function is a combination of kernels at its own
        samples, so a node of few samples, or of fewer samples than
        features, cannot represent what lies outside them; ``fbar`` carries
        every node's samples.  ``"auto"`` chooses ``s`` in ``{0, 0.25,
        0.5, 0.75, 1}`` by validation within the nodes, after the coupling
        of ``consensus_penalty="auto"`` (the chosen candidate's network
        function and the shares' held-out losses over each node's target
        variance, counted): the share of least mean loss among those that
        beat 0 by more than 2 standard errors of the nodes' differences,
        else 0; without that selection (a fixed ``consensus_penalty`` or
        ``eta0``, one node) it is 0.  Nodes that join later keep their own
        function.  A later ``partial_fit`` call uses a fixed share set
        since (``set_params``); ``"auto"`` keeps the share chosen before
        (validation runs in the first call only).  On 100 nodes of 8 samples (10 features, one rule with
        personal deviations) it takes R^2 from 0.59-0.60 to 0.85-0.86
        (pooled Ridge 0.85-0.86); see the user guide.
%(params)s

    Attributes
    ----------
    target_offset_ : float
        The nodes' agreed origin of ``y``: the mean of their targets, each
        node's winsorized at 3 robust deviations from its median, when it
        is more than 2 standard errors from 0 (between the nodes, or
        ``target_scale_ / sqrt(n_samples)``), else 0.
    target_scale_ : float
        The nodes' agreed robust scale of ``y``: the geometric mean over
        the nodes of ``1.4826 MAD`` of their own targets (a node whose
        MAD is 0, over half its targets tied, gives ``sqrt(pi / 2)`` times
        their mean absolute deviation; with no node of a positive scale,
        the spread of the nodes' means between them, their common value
        when every target is the same, and 1 when every target is 0). Both are combined over spanning trees of
        the topology (a counted round of its own before the first step:
        7 float64 up an edge, 2 down); the solver learns ``(y -
        target_offset_) / target_scale_`` and predictions are mapped back,
        so the step sizes, KOMP's ``epsilon`` and the robust loss's
        threshold mean the same at any unit of ``y``, and a clear origin
        (``y + 10``, exam scores) is learned around by a model without
        intercept. Predictions scale with ``y``, and shift with it
        whenever the offset is used before and after the shift. A
        ``sample_weight`` counts as that many copies of its target in both
        (medians, MADs, means and counts). A later ``partial_fit`` and
        ``add_nodes`` keep both.
    loss_threshold_ : float
        ``loss_epsilon * target_scale_``, the robust loss's ``delta`` in
        the units of ``y`` (robust losses only).
    network_share_ : float
        The share of the network function in every node's prediction.
    network_share_selection_ : dict or None
        How ``network_share="auto"`` chose (None when it did not):
        ``"shares"``, ``"node_validation_error"`` (n_shares, n_nodes: the
        mean held-out loss over the variance of the node's training
        targets; NaN for a node without held-out rows or of equal
        targets), ``"mean_validation_error"``, ``"t_statistic"`` (of every
        share's paired gain over share 0) and ``"choice"``.
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
        "loss": [StrOptions({"squared_error", "huber", "epsilon_insensitive"})],
        "loss_epsilon": [Interval(numbers.Real, 0, None, closed="left")],
        "network_share": [StrOptions({"auto"}), Interval(numbers.Real, 0, 1, closed="both")],
        "join_function": [StrOptions({"network"})],  # ("auto": the classifier's alone)
    }

    def __init__(
        self,
        loss="huber",
        *,
        loss_epsilon=1.0,
        network_share="auto",
        kernel="auto",
        gamma="median",
        degree=3,
        coef0=1.0,
        alpha=1e-4,
        consensus_penalty="auto",
        eta0="auto",
        learning_rate="constant",
        power_t=0.75,
        epsilon=0.005,
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
        join_function="network",
    ):
        self.loss = loss
        self.join_function = join_function
        self.loss_epsilon = loss_epsilon
        self.network_share = network_share
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

    def _check_hyperparameters(self):
        if self.loss == "huber" and not self.loss_epsilon > 0:
            raise ValueError(
                f"loss_epsilon must be > 0 with loss='huber' (the threshold between "
                f"its quadratic and linear parts, in units of the targets' agreed "
                f"scale), got loss_epsilon={self.loss_epsilon}."
            )
        if self.loss == "squared_error" and self.loss_epsilon != 1.0:
            raise ValueError(
                f"loss_epsilon={self.loss_epsilon} is not used by loss='squared_error' "
                "(it is the threshold of loss='huber' and loss='epsilon_insensitive'); "
                "leave it at its default or choose one of those losses."
            )
        return super()._check_hyperparameters()

    def _init_targets(self, y, classes, partial):
        self._n_outputs = 1

    def _finite_targets(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity.")
        return y

    def _encode_targets(self, y):
        """The targets the solver sees: ``(y - target_offset_) / target_scale_``."""
        y = self._finite_targets(y)
        return np.ascontiguousarray((y - self.target_offset_) / self.target_scale_)

    def _decode(self, values):
        """Function values back in the units of ``y``."""
        return self.target_offset_ + self.target_scale_ * values

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
        in :meth:`add_nodes`; it then streams with everyone.  The call ends
        with the network function (``network_dictionary_``) recomputed when
        the network's steps have doubled since it was last computed.

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
        return self._decode(self._raw_decision(X, groups)[:, 0])


DecentralizedKernelSGDClassifier.__doc__ = with_join_function_doc(
    _doc(DecentralizedKernelSGDClassifier.__doc__, '"auto"', gate=True))
DecentralizedKernelSGDRegressor.__doc__ = with_join_function_doc(_doc(
    DecentralizedKernelSGDRegressor.__doc__, '"auto"', "0.005", _EPSILON_UNITS), regressor=True)
