"""The fitting machinery the multi-task estimators share: :class:`_BaseMultiTask`.

Parameters and their validation, the ``"auto"`` rules (mode, features,
local solver, line search, compression), the simulated fit's setup (it runs
:class:`~skfed.multitask._protocol._RoundProtocol`), the fitted attributes
every engine sets, and prediction.
"""

import math
import numbers
import os
import warnings

import numpy as np
from joblib import Parallel, effective_n_jobs
from scipy import linalg
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._base import N_JOBS_CONSTRAINT, FederatedMixin, check_C_weight, check_node_weights
from .._compat import HasMethods, Interval, StrOptions
from .._join_params import fitted_param
from .._parallel import capped_n_jobs
from ..kernels import _checked_kernel_settings, pairwise_kernel, resolve_kernel
from ..privacy import DifferentialPrivacy, check_privacy
from ._compression import _AUTO_BITS, quantized_bytes
from ._features import (
    _AUTO_ROUNDS,
    _MAX_UNFIT_COMPONENTS,
    _kmeans_landmarks,
    _proportional_shares,
    auto_components,
)
from ._join import _AddNodesMixin, rehearse_newcomers
from ._node_data import _NodeDataMixin
from ._omega import _TINY, _W_STEP_TOL_FACTOR, _blas_controller, _check_omega, _LowRankSigma
from .._kept_local import apply_kept_local
from ._private import kept_node_models
from ._validation import feature_scale_note
from ._protocol import _fault_note, _RoundProtocol
from ._shared import _SharedNodes, fit_shared
from ._state import (
    _EXACT_COST_RATIO,
    _EXACT_KIND,
    _EXACT_MAX_SAMPLES,
    _EXACT_SMALL,
    _KernelState,
    _PrimalState,
    _drop_zero_weight_rows,
    exact_mode_bytes,
)

# A private fit (finite budget) at the defaults: its rounds
# (max_rounds="auto") and the rounds between its Omega steps
# (omega="learn", omega_update_every=None).  Without privacy
# max_rounds="auto" is 1000.
_PRIVATE_MAX_ROUNDS = 20
_PRIVATE_OMEGA_EVERY = 5
_MAX_ROUNDS = 1000


def _physical_memory():
    """Bytes of physical memory of this machine, or None where unknown."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _check_feature_memory(n_components, mode, n, d):
    """Refuse, naming ``n_components``, features larger than the machine's memory.

    The primal modes hold an ``n x (D + 1)`` float64 feature matrix (``D``
    random features, or ``min(D, n)`` Nystroem landmarks) and, for random
    features, a ``d x D`` weight matrix: a number ``n_components`` whose
    matrices cannot fit in physical memory is refused before anything is
    allocated (it was a ``MemoryError`` deep in the feature map, or the
    machine swapping).
    """
    D = int(n_components) if mode == "rff" else min(int(n_components), n)
    needed = 8 * ((n + (d if mode == "rff" else D)) * (D + 1))
    memory = _physical_memory()
    if memory is not None and needed > memory:
        raise ValueError(
            f"n_components={n_components!r} {'random features' if mode == 'rff' else 'landmarks'}"
            f" on {n} samples and {d} features need {needed / 2**30:,.1f} GiB of features, "
            f"more than this machine's {memory / 2**30:,.1f} GiB of memory: lower n_components "
            "(n_components='auto' chooses ceil(2 sqrt(n) ln n), at most 4,096)."
        )


class _BaseMultiTask(_NodeDataMixin, _AddNodesMixin, FederatedMixin, BaseEstimator):
    """Fitting machinery shared by the classifier and the regressor."""

    # a join solves with the fitted lambda and Omega (C stays free: unused there)
    _join_fixed_params = ("lam", "omega")
    _parameter_constraints = {
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "lam": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"linear", "rbf", "poly", "sigmoid", "laplacian"}), callable],
        "gamma": [StrOptions({"scale", "auto"}), Interval(numbers.Real, 0, None, closed="neither")],
        "degree": [Interval(numbers.Real, 1, None, closed="left")],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "omega": [StrOptions({"auto", "shared", "learn", "independent"}), "array-like"],
        "omega_update_every": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "approximation": [None, StrOptions({"auto", "nystroem", "rff"})],
        "n_components": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        "landmarks": [StrOptions({"random", "kmeans"})],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        "local_epochs": [Interval(numbers.Real, 0, None, closed="neither")],
        "local_gap_target": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "local_solver": [StrOptions({"auto", "exact", "coordinate"})],
        "aggregation": [StrOptions({"auto", "line_search", "add"})],
        "compression": [StrOptions({"auto", "none"}),
                        Interval(numbers.Integral, 2, 32, closed="both")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_rounds": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        "cache_size": [None, Interval(numbers.Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        **FederatedMixin._federated_parameter_constraints,
        "network": [None, HasMethods(["start"])],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
        "privacy": [None, DifferentialPrivacy],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss,
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="auto",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds="auto",
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        self.C = C
        self.lam = lam
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.omega = omega
        self.omega_update_every = omega_update_every
        self.approximation = approximation
        self.n_components = n_components
        self.landmarks = landmarks
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.local_epochs = local_epochs
        self.local_gap_target = local_gap_target
        self.local_solver = local_solver
        self.aggregation = aggregation
        self.compression = compression
        self.tol = tol
        self.max_rounds = max_rounds
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.privacy = privacy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True
        return tags

    # Sigma and Omega are m x m by definition; linear mode with many nodes
    # keeps them factored (_LowRankSigma) and forms them on access only.
    @property
    def task_covariance_(self):
        sigma = self._task_covariance
        return sigma.dense() if isinstance(sigma, _LowRankSigma) else sigma

    @task_covariance_.setter
    def task_covariance_(self, value):
        self._task_covariance = value

    @property
    def omega_(self):
        omega = self._omega
        return omega.inverse_dense() if isinstance(omega, _LowRankSigma) else omega

    @omega_.setter
    def omega_(self, value):
        self._omega = value

    # ------------------------------------------------------------ fitting
    def _noised(self):
        """Whether ``privacy`` asks for noise (a finite epsilon)."""
        return self.privacy is not None and math.isfinite(self.privacy.budget()[0])

    def _max_rounds(self):
        """``max_rounds`` resolved: ``"auto"`` is 1000, or 20 under a finite
        privacy budget (the noise grows with the number of releases)."""
        if self.max_rounds != "auto":
            return int(self.max_rounds)
        return _PRIVATE_MAX_ROUNDS if self._noised() else _MAX_ROUNDS

    def _omega_update_every(self):
        """``omega_update_every`` resolved: None (the gap decides), or every 5
        rounds under a finite privacy budget (no gap is sent)."""
        if self.omega_update_every is None and self._noised():
            return _PRIVATE_OMEGA_EVERY
        return self.omega_update_every

    def _primal_mode(self):
        return self.approximation_ is not None or self.kernel == "linear"

    def _resolve_mode(self, n, d, m, n_problems, dtype_bytes):
        """Set ``approximation_`` and ``n_components_`` (the ``"auto"`` rules).

        ``n_components="auto"``: ``ceil(2 sqrt(n) ln n)`` (at least 1, at
        most 4,096 so that the ``n x D`` feature matrix grows like ``n``), ``n`` the
        training samples of all nodes: the order of random features
        (Rudi & Rosasco 2017) and Nystroem landmarks (Rudi, Camoriano &
        Rosasco 2015) with which the approximate kernel method keeps the
        exact one's learning rate.  ``approximation="auto"``: ``"rff"`` for
        the rbf kernel when :data:`_AUTO_ROUNDS` rounds of its messages (one
        model vector per binary problem each way per node, at the
        compression's precision) cost less than the exact mode's
        :data:`_AUTO_ROUNDS` rounds (:func:`exact_mode_bytes`: every row to
        every node, every dual variable's change to every node each round),
        with ``n_components`` capped so that those rounds cost at most the
        raw upload, ``n d`` values, when any number of features does (if
        none does, neither mode fits the raw upload and the cheaper one is
        taken); the exact kernel mode
        otherwise (other kernels, one node, or a ``cache_size``, which only
        the exact mode uses).  Under ``privacy``
        it is ``"rff"`` for the rbf kernel (nothing about the data leaves a
        node).  A number ``n_components`` asks for an approximation:
        ``"rff"`` for the rbf kernel, ``"nystroem"`` for the others; where
        the fit has none (``approximation=None``, ``kernel="linear"``, a
        ``cache_size``) it raises rather than ignore it.

        One cap on every path with ``n_components="auto"`` and several nodes
        (``approximation="auto"``, an explicit ``"rff"`` or ``"nystroem"``,
        ``privacy``): when no number of features keeps those rounds within
        the raw upload (nodes of a few rows), ``n_components`` is at most
        :data:`~skfed.multitask._features._MAX_UNFIT_COMPONENTS` (512): the
        rate rule counts the rows of all nodes, so uncapped every node's
        messages would grow with the number of nodes.
        """
        D = auto_components(n) if self.n_components == "auto" else self.n_components
        mode = self.approximation
        named = None if callable(self.kernel) else self.kernel
        # The bytes of _AUTO_ROUNDS rounds of D features: one quantized model
        # vector each way per node and binary problem.
        bits = {"auto": _AUTO_BITS, "none": 64}.get(self.compression, self.compression)
        intercept = int(bool(self.fit_intercept))
        raw = n * d * dtype_bytes

        def rff_bytes(D):
            return 2 * _AUTO_ROUNDS * m * n_problems * quantized_bytes(D + intercept, bits)

        # The most features whose rounds cost at most the raw upload (0: none
        # does), for n_components="auto" on several nodes.
        fit_count = None
        if self.n_components == "auto" and m > 1 and rff_bytes(D) > raw:
            lo, hi = 0, D  # rff_bytes(lo) <= raw < rff_bytes(hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if rff_bytes(mid) <= raw else (lo, mid)
            fit_count = lo
        if fit_count == 0:
            # No number of features fits the raw upload (nodes of a few rows):
            # n_components="auto" is at most _MAX_UNFIT_COMPONENTS on every
            # path (approximation="auto", an explicit "rff" / "nystroem",
            # privacy), so that no node's messages grow with the number of nodes.
            D = min(D, _MAX_UNFIT_COMPONENTS)
        if mode == "auto" and self.n_components != "auto" and named != "linear" \
                and self.cache_size is None:
            # A number of components asks for an approximation.
            mode = "rff" if named == "rbf" else "nystroem"
        elif mode == "auto":
            mode = None
            if named == "rbf" and self.cache_size is None:
                if self.privacy is not None:
                    mode = "rff"
                elif m > 1:
                    if fit_count:
                        D = fit_count  # random features within the raw upload
                    # The exact mode over the same rounds: every row to
                    # every node and every dual variable's change relayed
                    # to every node each round (exact_mode_bytes).
                    exact = exact_mode_bytes(n, d, m, n_problems, dtype_bytes,
                                             _AUTO_ROUNDS, 0)
                    # Random features when they cost less than the exact mode
                    # (within the raw upload when any number of them does;
                    # else, neither mode fitting it, the cheaper one).
                    if rff_bytes(D) < exact:
                        mode = "rff"
        if mode is None and self.n_components != "auto":
            ran = ("kernel='linear'" if not callable(self.kernel) and self.kernel == "linear"
                   else "the exact kernel mode" + (
                       " (cache_size is set)" if self.cache_size is not None else ""))
            raise ValueError(
                f"n_components={self.n_components!r} sets the landmarks or random features "
                f"of approximation='nystroem' / 'rff', but this fit runs {ran}, which has "
                "none: set approximation='rff' or 'nystroem', or leave n_components='auto'."
            )
        if mode is not None and self.n_components != "auto":
            _check_feature_memory(self.n_components, mode, n, d)
        self.approximation_ = mode
        self.n_components_ = int(D) if mode is not None else None

    def _gamma_value(self, X):
        if isinstance(self.gamma, str):
            if self.gamma == "auto" or self._noised():
                # Under a finite privacy budget "scale" does not release the
                # pooled variance: it takes the variance of standardized
                # features, 1, i.e. gamma = 1 / n_features.
                return 1.0 / X.shape[1]
            var = float(X.var(dtype=np.float64))
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        return float(self.gamma)

    def _fit(self, X, Y, sample_weight, layout):
        """Run kernelized MOCHA on node-ordered data; ``Y`` is (n_problems, n).

        Sets up the mode's state (``Sigma``, kernel, features, the nodes'
        data) and runs the round protocol over the simulated network
        (:class:`~skfed.multitask._protocol._RoundProtocol`).
        """
        m = layout.n_nodes
        X, Y, sample_weight, layout = _drop_zero_weight_rows(X, Y, sample_weight, layout)
        dtype = X.dtype
        dtype_bytes = 4 if dtype == np.float32 else 8
        n, d = X.shape
        self._resolve_mode(n, d, m, Y.shape[0], dtype_bytes)
        loss = self._loss_object(Y.shape[0])  # the estimator's (multinomial: mtl)
        dp_spec = check_privacy(self.privacy, type(self).__name__, local_estimator=True)
        if dp_spec is not None:
            self._check_private_mode(sample_weight)
        self.omega_mode_ = self._resolve_omega(dp_spec)
        for name in ("shared_coef_", "shared_intercept_", "shared_weight_",
                     "share_selection_"):
            self.__dict__.pop(name, None)  # from an earlier fit of the shared model
        protocol = _RoundProtocol(self, m)
        rng = protocol.rng

        if sample_weight is None:
            sw = np.ones(n)
        else:
            sw = np.asarray(sample_weight, dtype=np.float64)
            if np.any(sw < 0):
                raise ValueError("sample_weight must be non-negative.")
        check_node_weights(self, np.repeat(np.arange(m), np.diff(layout.offsets)), sw)
        totals = np.add.reduceat(sw, layout.offsets[:-1]) if n else np.zeros(m)
        # C scales with the total sample weight (an integer weight is a
        # repeated row; sample_weight=None: the number of samples).
        lam = self._regularization(float(np.sum(totals)))

        # Omega.  Linear mode keeps Sigma factored when W^T W has rank below
        # m (n_problems * (d + intercept) < m): see _LowRankSigma.
        factored = (
            self.kernel == "linear" and self.approximation_ is None and not self._noised()
            and Y.shape[0] * (d + int(bool(self.fit_intercept))) < m
        )
        learn, sigma = self._initial_task_covariance(m, factored=factored)
        warm = self._warm_start_duals(Y, layout)
        if warm is not None and learn and self._dual_state.get("sigma") is not None:
            # (a previous fit of the shared model keeps no Sigma)
            sigma = self._dual_state["sigma"].copy()

        self._kernel_settings = _checked_kernel_settings(self)  # none set that it ignores
        gamma = None
        if not callable(self.kernel) and self.kernel != "linear":
            gamma = self._gamma_value(X)
            protocol.add_gamma_setup()
        spec = resolve_kernel(
            self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0, n_features=d
        )
        self._kernel_spec = spec
        self.gamma_ = None if gamma is None else float(gamma)
        bias = float(self.intercept_scaling) if self.fit_intercept else 0.0
        g = np.zeros(Y.shape)
        if self.cache_size is not None and self._primal_mode():
            raise ValueError(
                f"cache_size={self.cache_size!r} bounds the kernel rows of the exact "
                "kernel mode; the primal modes (kernel='linear', approximation="
                f"{self.approximation_!r}) keep none: leave cache_size=None."
            )
        if self.landmarks != "random" and self.approximation_ != "nystroem":
            raise ValueError(
                f"landmarks={self.landmarks!r} chooses Nystroem landmarks; it needs "
                f"approximation='nystroem' (got approximation={self.approximation!r})."
            )
        if self.approximation_ is not None:
            self._fit_feature_map(X, layout, spec, rng, protocol.setup_up, protocol.setup_down,
                                  dtype_bytes)
        seeds = protocol.seeds
        if self.omega_mode_ == "shared":
            self._fit_shared(X, Y, sw, layout, totals, protocol, lam, loss, dtype,
                             dtype_bytes)
            if dp_spec is not None:  # epsilon=inf: the non-private fit, reported
                self.privacy_spent_ = np.full(m, np.inf)
                self.privacy_ = dict(
                    mechanism="none", noise="none (epsilon=inf)", uses=np.zeros(m, int),
                    delta=dp_spec.budget()[1], composition="epsilon=inf adds no noise: "
                    "the fit is the non-private one (omega_mode_='shared')",
                )
                self.privacy_public_ = dict(everything="epsilon=inf: every message is "
                                            "sent as in the non-private fit")
                self.privacy_guarantee_void_ = False
            return self
        if self._primal_mode():
            # The node solver runs on float64 features (BLAS dot / axpy); the
            # state makes them (and keeps float32 ones, see _PrimalState).
            Z = self._features(X)
            state = _PrimalState(Z, Y, sw, g, layout, totals, seeds, dtype_bytes,
                                 exact=self._exact_nodes(layout, Z.shape[1]), loss_name=self.loss,
                                 bits=self._compression_bits(dp_spec))
        else:
            if self.local_solver == "exact":
                raise ValueError(
                    "local_solver='exact' solves the subproblems of the primal modes "
                    f"(kernel='linear' or an approximation); the exact kernel mode (kernel="
                    f"{self.kernel!r}) runs coordinate ascent: use local_solver='auto'."
                )
            self._compression_bits(dp_spec)  # refuses an explicit setting
            needed = np.ones((m, m), dtype=bool) if learn else (sigma != 0) | np.eye(m, dtype=bool)
            parallel = self._parallel_context()
            with parallel as p:
                state = _KernelState(
                    X, Y, sw, g, layout, totals, seeds, spec, bias, needed, dtype_bytes,
                    p if self._use_parallel() else None, self._cache_rows(layout, dtype),
                )

        protocol.begin(
            sigma=sigma, learn=learn, lam=lam, totals=totals, counts=layout.counts,
            n_problems=Y.shape[0], sigma_info_floats=state.sigma_info_floats, state=state,
            loss=loss, dp_spec=dp_spec, line_search=self._line_search(dp_spec),
            compressed=getattr(state, "bits", None) is not None,
        )
        self._scale_note = feature_scale_note(X, layout, self)  # for a convergence warning
        protocol.run(
            theta=0.0 if self.local_gap_target is None else float(self.local_gap_target),
            n_chunks=effective_n_jobs(self.n_jobs) if self._use_parallel() else 1,
            warm=warm,
        )
        reported = protocol.finish()
        self._store_model(state, X, Y, sw, layout, totals, protocol.sigma, lam, bias, dtype,
                          private=protocol.noised())
        # The Sigma the returned models were computed at (W = V Sigma / lambda);
        # with a learned Omega, omega_ is the best one for them (the next step's).
        self._model_sigma = protocol.sigma
        if protocol.noised():
            # the dual variables stay on the nodes: nothing to warm-start from
            self._dual_state = None
            return self
        # What warm_start=True starts the next fit from (the alternation's next Sigma).
        self._dual_state = dict(nodes=self.nodes_.copy(), counts=layout.counts.copy(),
                                loss=self.loss, Y=Y.copy(), g=g.copy(), sigma=reported.copy())
        return self

    def _compression_bits(self, dp_spec):
        """Bits per value of the primal modes' round messages, or None (float64).

        ``"auto"``: :data:`_AUTO_BITS` in the primal modes, None under
        ``privacy`` with a finite epsilon (the noise, not the rounding,
        bounds what the server learns) and in the exact kernel mode (which sends support vectors
        and dual changes, not model vectors).  An explicit number of bits
        there raises, naming the parameter.
        """
        if self.compression == "none":
            return None
        explicit = self.compression != "auto"
        if not self._primal_mode():
            if explicit:
                raise ValueError(
                    f"compression={self.compression!r} quantizes the model vectors of the "
                    "primal modes (kernel='linear' or an approximation); the exact kernel "
                    f"mode (kernel={self.kernel!r}, approximation=None) sends support vectors "
                    "and dual changes: use compression='auto' or 'none'."
                )
            return None
        if dp_spec is not None and math.isfinite(dp_spec.budget()[0]):
            if explicit:
                raise ValueError(
                    f"compression={self.compression!r} cannot be combined with privacy=: the "
                    "private updates go out with their noise, unquantized; use "
                    "compression='auto' or 'none'."
                )
            return None
        # (privacy with epsilon=inf releases the updates unnoised: the
        # non-private fit)
        return int(self.compression) if explicit else _AUTO_BITS

    def _exact_nodes(self, layout, n_features):
        """The nodes that solve their local subproblem exactly (``local_solver``).

        ``"auto"``: the loss must have an exact solver (a quadratic
        conjugate) and the node at most :data:`_EXACT_MAX_SAMPLES` samples
        (its Gram matrix is kept), and a factorization of its Gram matrix
        must not cost much more than a round of coordinate ascent, ``n_t^2
        <= _EXACT_COST_RATIO local_epochs d'`` (``d'`` the features, the
        intercept's included), or the node is small, at most
        :data:`_EXACT_SMALL` samples (its factorization costs milliseconds,
        an inexact solve costs rounds): small nodes (HAR, the synthetic
        regimes, School) solve exactly, large nodes in few dimensions
        (Landmine: 357 samples, 10 features) run coordinate ascent, which
        costs ``O(n_t d')`` a pass.
        """
        if self.local_solver == "coordinate":
            return np.zeros(layout.n_nodes, dtype=bool)
        if self.loss not in _EXACT_KIND:
            if self.local_solver == "exact":
                raise ValueError(
                    f"local_solver='exact' needs a loss with a quadratic conjugate (hinge, "
                    f"squared_hinge, squared); loss={self.loss!r} runs coordinate ascent: use "
                    "local_solver='auto' or 'coordinate'."
                )
            return np.zeros(layout.n_nodes, dtype=bool)
        if self.local_solver == "exact":
            return np.ones(layout.n_nodes, dtype=bool)
        counts = layout.counts.astype(np.float64)
        return (counts <= _EXACT_SMALL) | (counts <= _EXACT_MAX_SAMPLES) & (
            counts**2 <= _EXACT_COST_RATIO * self.local_epochs * n_features)

    def _line_search(self, dp_spec):
        """Whether the server searches the step (``aggregation``, resolved).

        A private fit with ``epsilon=inf`` releases its updates unnoised, so
        it is the non-private fit and searches too."""
        noised = dp_spec is not None and math.isfinite(dp_spec.budget()[0])
        if self.aggregation == "add":
            return False
        if self.aggregation == "auto":
            return self._primal_mode() and not noised
        if not self._primal_mode():
            raise ValueError(
                "aggregation='line_search' is implemented for the primal modes "
                "(kernel='linear', approximation='nystroem' or 'rff'); the exact kernel "
                f"mode (kernel={self.kernel!r}) adds the steps: use aggregation='add' or 'auto'."
            )
        if noised:
            raise ValueError(
                "aggregation='line_search' needs the nodes' exact conjugate changes, which "
                "privacy= does not release; use aggregation='add' or 'auto' with privacy."
            )
        return True

    def _check_private_mode(self, sample_weight):
        """Refuse the modes and settings whose messages ``privacy=`` cannot cover."""
        name = type(self).__name__
        if not self._primal_mode():
            raise ValueError(
                f"{name}(privacy=...) is refused in the exact kernel mode "
                "(approximation=None): its messages carry support vectors, raw samples "
                "of the nodes. Use approximation='rff' or kernel='linear'."
            )
        if self.approximation_ == "nystroem":
            raise ValueError(
                f"{name}(privacy=...) is refused with approximation='nystroem': its "
                "landmarks are raw samples sent to every node. Use approximation='rff' "
                "(data-independent features) or kernel='linear'."
            )
        if sample_weight is not None:
            raise ValueError(f"{name}(privacy=...) does not accept sample_weight.")
        if self.warm_start and math.isfinite(self.privacy.budget()[0]):
            raise ValueError(
                f"{name}(privacy=...) does not accept warm_start=True: the previous "
                "fit's dual variables would reach the server unnoised."
            )

    def _warm_start_duals(self, Y, layout):
        """``warm_start=True``: the previous fit's dual variables (node order), or None.

        They are feasible at any ``C`` (the dual variables' box does not
        depend on it), so they start a fit at another ``C`` on the same
        samples; other samples, targets or loss raise.
        """
        state = getattr(self, "_dual_state", None)
        if not self.warm_start or state is None:
            return None
        same = (
            state["loss"] == self.loss
            and np.array_equal(state["nodes"], self.nodes_)
            and np.array_equal(state["counts"], layout.counts)
            and state["Y"].shape == Y.shape
            and np.array_equal(state["Y"], Y)
        )
        if not same:
            raise ValueError(
                "warm_start=True starts from the previous fit's dual variables, so it "
                "needs the same nodes, samples per node, targets and loss as that fit; "
                "set warm_start=False to fit other data."
            )
        return state["g"]

    def _cache_rows(self, layout, dtype):
        """Received kernel rows each node may cache under ``cache_size`` (None: all).

        The bound is split evenly over the nodes: node u keeps at most
        ``cache_size MB / (n_nodes n_u itemsize)`` rows of ``n_u`` values.
        """
        if self.cache_size is None:
            return None
        per_node = float(self.cache_size) * 2**20 / layout.n_nodes
        return np.floor(per_node / (layout.counts * np.dtype(dtype).itemsize)).astype(np.intp)

    def _resolve_omega(self, dp_spec):
        """The model ``omega`` asks for: ``"shared"``, ``"learn"``,
        ``"independent"`` or ``"fixed"`` (an array).

        ``"auto"``: the shared-component model in the primal modes
        (``kernel="linear"`` or an approximation) without ``privacy``; the
        learned Omega otherwise (the exact kernel mode, whose support-vector
        exchange has no shared model to optimize, private fits, whose
        updates are clipped and noised MOCHA updates, and fits that set
        MOCHA's W-step schedule or aggregation, ``omega_update_every`` or
        ``aggregation``).  ``"shared"`` where it does not run raises, naming
        what to change.
        """
        omega = self.omega
        if not isinstance(omega, str):
            return "fixed"
        # An infinite epsilon adds no noise: the fit is the non-private one.
        noised = dp_spec is not None and math.isfinite(dp_spec.budget()[0])
        if omega == "auto":
            mocha = self.omega_update_every is not None or self.aggregation != "auto"
            return ("shared" if self._primal_mode() and not noised and not mocha
                    else "learn")
        if omega != "shared":
            return omega
        if not self._primal_mode():
            raise ValueError(
                "omega='shared' optimizes a shared model w_0 at the server, which needs "
                f"explicit features: kernel='linear' or an approximation; this fit runs the "
                f"exact kernel mode (kernel={self.kernel!r}, approximation="
                f"{self.approximation!r}): set approximation='rff' or 'auto', or "
                "omega='learn'."
            )
        if noised:
            raise ValueError(
                "omega='shared' has no private updates (privacy= clips and noises the "
                "updates of omega='learn' or 'independent'): use omega='learn' or "
                "'independent' with privacy=."
            )
        for name, value, default in (("omega_update_every", self.omega_update_every, None),
                                     ("aggregation", self.aggregation, "auto")):
            if value != default:
                raise ValueError(
                    f"{name}={value!r} sets MOCHA's W-steps (omega='learn', 'independent' "
                    "or a fixed Omega); omega='shared' has no W-step to schedule or "
                    f"aggregate (its server runs L-BFGS on the shared model): leave {name}="
                    f"{default!r} or set omega='learn'."
                )
        return "shared"

    def _fit_shared(self, X, Y, sw, layout, totals, protocol, lam, loss, dtype, dtype_bytes):
        """The shared-component model (:func:`skfed.multitask._shared.fit_shared`)."""
        return fit_shared(self, X, Y, sw, layout, totals, protocol, lam, loss, dtype,
                          dtype_bytes)

    def _initial_task_covariance(self, n_nodes, factored=False):
        """``(learn, Sigma_0)``: identity / m when Omega is learned or independent
        (a :class:`_LowRankSigma` if ``factored``), else the inverse of the
        given Omega (validated).  ``omega="auto"`` here (the modes and engines
        without the shared model) is the learned Omega."""
        learn = isinstance(self.omega, str) and self.omega in ("learn", "auto")
        if isinstance(self.omega, str):
            if factored:
                return learn, _LowRankSigma.scaled_identity(n_nodes)
            return learn, np.eye(n_nodes) / n_nodes
        return learn, _check_omega(self.omega, n_nodes)[1]

    def _set_fit_results(self, gaps, objectives, duals, sigma, rho, simulation, converged,
                         *, zero_objective=None, rule=None, setup=""):
        """Curves, Omega and communication attributes, shared by every engine's loop.

        A fit that did not converge warns; when it also ends worse than the
        all-zero model (objective ``zero_objective``), the warning says so,
        with the network's faults and how few updates the least active node
        sent, so a wrong answer never comes without a word.
        """
        joint = (np.nan, np.nan) if rule is None or rule.joint is None else rule.joint
        joint_gap = np.nan if rule is None else rule.joint_gap
        note = self.__dict__.pop("_scale_note", "")  # (set by the simulated fit)
        if not converged:
            faults = _fault_note(self.network, simulation) + setup  # (_setup_note)
            worse = ""
            # The objective of the model returned: with a learned Omega the
            # best W-step's (joint_objective_), else the last round's.
            returned = (joint[0] if rule is not None and rule.learn and np.isfinite(joint[0])
                        else objectives[-1])
            if zero_objective is not None and returned > zero_objective:
                worse = (
                    f"; the returned model is WORSE than the all-zero model (objective "
                    f"{returned:.3e} > {zero_objective:.3e}): do not use it"
                )
            if rule is not None and rule.learn:
                # Learned Omega: the rule of _StoppingRule, not a duality gap.
                change = "none yet" if rule.last_change is None else f"{rule.last_change:.3e}"
                what = (
                    f"did not meet its learned-Omega stopping rule in "
                    f"max_rounds={self._max_rounds()} rounds (the joint objective of the "
                    f"models a W-step solved to relative duality gap "
                    f"{_W_STEP_TOL_FACTOR * self.tol:g} reaches, changing by at most "
                    f"tol={self.tol} relative since the previous such W-step, or within "
                    f"tol of the best joint dual; last W-step relative gap "
                    f"{gaps[-1] / max(abs(objectives[-1]), _TINY):.3e}, last relative "
                    f"change {change}, joint objective {joint[0]:.3e}, certified joint "
                    f"gap {joint_gap:.3e})"
                )
            else:
                what = (
                    f"did not reach the duality gap tol={self.tol} (relative) in "
                    f"max_rounds={self._max_rounds()} rounds (gap {gaps[-1]:.3e}, objective "
                    f"{objectives[-1]:.3e})"
                )
            warnings.warn(
                f"{type(self).__name__} {what}"
                f"{faults}{worse}; "
                + note + "increase max_rounds or tol"
                + (", or lower the network's fault rates" if faults else "") + ".",
                ConvergenceWarning,
            )
        self.n_iter_ = len(gaps)
        # The joint problem's objective and gap (for a fixed Omega, the
        # W-problem's); NaN when Omega is learned but no Omega step ran.
        self.joint_objective_ = float(joint[0])
        self.joint_duality_gap_ = float(joint_gap)
        self.joint_objective_curve_ = np.asarray(
            rule.curve if rule is not None else np.full(len(gaps), np.nan), dtype=np.float64
        )
        self.duality_gap_curve_ = np.asarray(gaps)
        self.objective_curve_ = np.asarray(objectives)
        self.dual_objective_curve_ = np.asarray(duals)
        self.task_covariance_ = sigma
        if isinstance(sigma, _LowRankSigma):
            self.omega_ = sigma  # formed (m x m) on access only
        else:
            with _blas_controller().limit(limits=1, user_api="blas"):
                evals, evecs = linalg.eigh(sigma)
                omega = (evecs / evals) @ evecs.T
            self.omega_ = 0.5 * (omega + omega.T)
        self.rho_ = rho
        self._set_communication(simulation)

    def _regularization(self, n_samples, warn=True):
        """``lambda`` of the objective: ``1 / (C n_samples)``, or the deprecated ``lam``.

        ``n_samples`` is the total sample weight (the number of samples
        without ``sample_weight``): a sample of weight 2 counts as two.
        Every node needs it; in the byte model it travels folded into the
        ``Sigma`` entries the server sends (``sigma_tu / lambda``), at no cost.
        """
        if self.lam is None:
            check_C_weight(float(self.C) * n_samples, type(self).__name__)
            return 1.0 / (float(self.C) * n_samples)
        if not warn:
            return float(self.lam)
        if self.C != 1.0:
            raise ValueError(
                f"Set C or the deprecated lam, not both (got C={self.C!r}, "
                f"lam={self.lam!r}); C = 1 / (lam * n_samples)."
            )
        warnings.warn(
            "lam was deprecated in skfed 0.1 and will be removed in 0.3; use "
            f"C = 1 / (lam * n_samples) instead (here C={1.0 / (self.lam * n_samples):.6g}), "
            "which means the same at any number of nodes and samples.",
            FutureWarning,
        )
        return float(self.lam)

    def _use_parallel(self):
        # n_jobs=None is parallel inside a joblib.parallel_config context.
        return effective_n_jobs(self.n_jobs) > 1

    def _parallel_context(self):
        if self._use_parallel():
            # The exact kernel mode updates its kernel caches, margin states,
            # dual variables and RNG states in place every round (too large to
            # ship to other processes): it requires shared memory, i.e. threads
            # even under parallel_config(backend="dask").  The primal modes'
            # node solves are pure and go to any backend.
            require = None if self._primal_mode() else "sharedmem"
            # No more workers than nodes (n_jobs=10**9 is joblib's error).
            n_jobs = capped_n_jobs(self.n_jobs, len(self.nodes_))
            return Parallel(n_jobs=n_jobs, prefer="threads", require=require)
        return _NullContext()

    # ----------------------------------------------------- feature maps
    def _fit_feature_map(self, X, layout, spec, rng, setup_up, setup_down, dtype_bytes):
        d = X.shape[1]
        if self.approximation_ == "rff":
            if spec.name != "rbf":
                raise ValueError(
                    "approximation='rff' needs kernel='rbf' (random Fourier features "
                    f"of the Gaussian kernel); got kernel={self.kernel!r}."
                )
            D = self.n_components_
            self.random_weights_ = rng.normal(
                scale=np.sqrt(2.0 * spec.gamma), size=(d, D)
            ).astype(X.dtype)
            self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, size=D).astype(X.dtype)
            return
        # Nystroem: every node contributes a share of the landmarks (or of the
        # local centres) proportional to its number of samples.
        n = X.shape[0]
        n_landmarks = min(self.n_components_, n)
        counts = _proportional_shares(layout.counts, n_landmarks)
        if self.landmarks == "kmeans":
            self.components_ = _kmeans_landmarks(
                X, layout, n_landmarks, rng, setup_up, setup_down, dtype_bytes
            )
        else:
            picks = []
            for t in range(layout.n_nodes):
                if counts[t]:
                    local = rng.choice(layout.counts[t], size=counts[t], replace=False)
                    picks.append(np.sort(local) + layout.offsets[t])
            picks = np.concatenate(picks) if picks else np.zeros(0, dtype=np.intp)
            self.components_ = np.ascontiguousarray(X[picks])
            setup_up += counts * d * dtype_bytes
            setup_down += (len(picks) - counts) * d * dtype_bytes
        self._landmark_counts = counts
        K = pairwise_kernel(self.components_, kernel=spec).astype(np.float64)
        evals, evecs = linalg.eigh(0.5 * (K + K.T))
        evals = np.maximum(evals, 1e-12 * max(evals[-1], 1e-300))
        self.normalization_ = ((evecs / np.sqrt(evals)) @ evecs.T).astype(X.dtype)

    def _fitted_bias(self):
        """The fit's intercept column value (0: none; set_params waits for a fit)."""
        on = fitted_param(self, "fit_intercept")
        return float(fitted_param(self, "intercept_scaling")) if on else 0.0

    def _fitted_primal(self):
        """:meth:`_primal_mode` of the fit (its kernel, not the current parameter)."""
        spec = getattr(self, "_kernel_spec", None)
        linear = spec.name == "linear" if spec is not None else self.kernel == "linear"
        return self.approximation_ is not None or linear

    def _features(self, X):
        """Features the primal modes work on (with the fit's intercept column)."""
        if self.approximation_ == "rff":
            D = self.n_components_
            Z = np.cos(X @ self.random_weights_ + self.random_offset_)
            Z *= np.sqrt(2.0 / D)
        elif self.approximation_ == "nystroem":
            Z = pairwise_kernel(X, self.components_, kernel=self._kernel_spec) @ self.normalization_
        else:
            Z = X
        Z = np.asarray(Z, dtype=X.dtype)
        bias = self._fitted_bias()
        if bias:
            column = np.full((Z.shape[0], 1), bias, dtype=X.dtype)
            Z = np.hstack([Z, column])
        return np.ascontiguousarray(Z)

    # ------------------------------------------------------------ model
    def _store_model(self, state, X, Y, sw, layout, totals, sigma, lam, bias, dtype,
                     private=False):
        m = layout.n_nodes
        alpha = state.g * sw  # (n_problems, n), node order
        support_sorted = np.flatnonzero(np.any(alpha != 0, axis=0))
        if private:  # private (primal) fits keep no duals, not even in _node_duals
            support_sorted = support_sorted[:0]
        node_of = np.repeat(np.arange(m), layout.counts)
        self.n_support_ = np.bincount(node_of[support_sorted], minlength=m).astype(np.int32)
        kept = support_sorted[:0] if self._primal_mode() else support_sorted  # _node_data.py
        self._node_duals = (layout.order[support_sorted], alpha[:, support_sorted].astype(
            dtype)) if self._primal_mode() and not private else None  # support_, dual_coef_
        self.support_, self.dual_coef_ = layout.order[kept], alpha[:, kept].astype(dtype)
        self.support_vectors_ = np.ascontiguousarray(X[kept])
        sv_node = node_of[support_sorted]
        # What add_nodes needs (skfed.multitask._join): lambda and, under
        # privacy, the models the server holds (the newcomers download them).
        self._join_lam = float(lam)
        self._join_mass = float(np.mean(totals))  # a fitted node's mean weight
        for name in ("_released_W", "join_communication_", "_join_n_fit", "_join_seed",
                     "refit_choice_", "_join_rehearsal", "kept_local_models_",
                     "elected_local_class_", "_node_data_dropped"):
            self.__dict__.pop(name, None)  # from an earlier fit and its joins
        if self._primal_mode():
            W = state.weights(sigma, lam)  # (n_problems, m, d')
            if private:
                self._released_W = W.copy()
            # Column m: the model of a node unseen in fit, the shared model
            # w_0 of omega="shared", else the average of the server's node
            # models.  Under privacy each node's own model uses its exact
            # share of V (which it never sent) in place of its noisy one.
            unseen = (state.w0[:, None, :] if isinstance(state, _SharedNodes)
                      else W.mean(axis=1, keepdims=True))
            W = np.concatenate([W + state.own_correction(sigma, lam), unseen], axis=1)
            if private:  # each node's kept model, chosen on its own data (issue 27)
                W[:, :m], self.refit_choice_ = kept_node_models(self, state, sigma, lam, X)
            self._W = W
            if isinstance(state, _SharedNodes) and not private:  # hook: _join (issue 32)
                self._join_rehearsal = rehearse_newcomers(self, state, lam)
            n_feat = W.shape[2] - int(self.fit_intercept)
            coef = W[:, :m, :n_feat]
            intercept = (
                W[:, :m, n_feat] * self.intercept_scaling if self.fit_intercept
                else np.zeros(W.shape[:2])[:, :m]
            )
            if W.shape[0] == 1:
                self.coef_ = coef[0].astype(dtype)
                self.intercept_ = intercept[0].astype(dtype)
            else:
                self.coef_ = np.transpose(coef, (1, 0, 2)).astype(dtype)
                self.intercept_ = intercept.T.astype(dtype)
            if isinstance(state, _SharedNodes):
                shared = W[:, m, :n_feat]
                shared_intercept = (W[:, m, n_feat] * self.intercept_scaling
                                    if self.fit_intercept else np.zeros(W.shape[0]))
                self.shared_coef_ = (shared[0] if W.shape[0] == 1 else shared).astype(dtype)
                self.shared_intercept_ = (
                    shared_intercept[0] if W.shape[0] == 1 else shared_intercept
                ).astype(dtype)
        else:
            # Coefficients of the personalized models over the support vectors:
            # f_t(x) = sum_j B[k, j, t] k(x_j, x); column m is the average model.
            scaled = alpha[:, support_sorted] / totals[sv_node]
            B = scaled[:, :, None] * sigma[sv_node][None, :, :] / lam
            B = np.concatenate([B, B.mean(axis=2, keepdims=True)], axis=2)
            self._sv_coef = B
            # The intercept is the bias feature's weight times intercept_scaling.
            intercept = bias * bias * B[:, :, :m].sum(axis=1)  # (n_problems, m)
            self.intercept_ = (intercept[0] if B.shape[0] == 1 else intercept.T).astype(dtype)

    def _raw_decision(self, X, groups):
        """Scores (n_samples, n_problems) of each sample's personalized model."""
        check_is_fitted(self)
        X, codes = self._validate_predict_data(X, groups)
        m = len(self.nodes_)
        columns = np.where(codes < 0, m, codes)
        dtype = self.support_vectors_.dtype if hasattr(self, "support_vectors_") else X.dtype
        X = np.ascontiguousarray(X, dtype=dtype)
        n_problems = self.dual_coef_.shape[0]
        out = np.empty((X.shape[0], n_problems))
        if X.shape[0] == 0:
            return out
        if self._fitted_primal():
            Z = self._features(X).astype(np.float64)
            W = self._W  # (n_problems, m + 1, d')
            for k in range(n_problems):
                out[:, k] = np.einsum("id,id->i", Z, W[k, columns])
            return apply_kept_local(self, X, codes, out)  # hook: kept Local model (issue 27)
        bias = self._fitted_bias()
        batch = 2048
        for start in range(0, X.shape[0], batch):
            stop = min(start + batch, X.shape[0])
            Xb = X[start:stop]
            if self.support_vectors_.shape[0]:
                Kb = pairwise_kernel(Xb, self.support_vectors_, kernel=self._kernel_spec)
                Kb = Kb.astype(np.float64)
                if bias:
                    Kb += bias * bias
            else:
                Kb = np.zeros((stop - start, 0))
            for k in range(n_problems):
                scores = Kb @ self._sv_coef[k]  # (batch, m + 1)
                out[start:stop, k] = scores[np.arange(stop - start), columns[start:stop]]
        return out


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
