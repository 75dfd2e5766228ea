"""The multi-task estimators: :class:`FederatedMultiTaskClassifier`,
:class:`FederatedMultiTaskRegressor` and their shared :class:`_BaseMultiTask`."""

import math
import numbers
import warnings

import numpy as np
from joblib import Parallel, effective_n_jobs
from scipy import linalg
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._base import FederatedClassifierMixin, FederatedMixin, FederatedRegressorMixin
from .._compat import HasMethods, Interval, StrOptions
from ..kernels import pairwise_kernel, resolve_kernel
from ..privacy import DifferentialPrivacy, check_privacy
from ._compression import _AUTO_BITS, quantized_bytes
from ._features import _AUTO_ROUNDS, _kmeans_landmarks, _proportional_shares, auto_components
from ._omega import _TINY, _W_STEP_TOL_FACTOR, _LowRankSigma, _blas_controller, _check_omega
from ._protocol import _RoundProtocol, _fault_note, _steps
from ._shared import _SharedFit, _SharedNodes, shared_sigma
from ._state import (
    _EXACT_COST_RATIO,
    _EXACT_KIND,
    _EXACT_MAX_SAMPLES,
    _LOSSES,
    _KernelState,
    _PrimalState,
)


class _BaseMultiTask(FederatedMixin, BaseEstimator):
    """Fitting machinery shared by the classifier and the regressor."""

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
        "max_rounds": [Interval(numbers.Integral, 1, None, closed="left")],
        "cache_size": [None, Interval(numbers.Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        **FederatedMixin._federated_parameter_constraints,
        "network": [None, HasMethods(["start"])],
        "random_state": ["random_state"],
        "n_jobs": [None, numbers.Integral],
        "verbose": ["verbose"],
        "privacy": [None, DifferentialPrivacy],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
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
        max_rounds=1000,
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
        compression's precision) cost less than the exact mode ships once
        every sample is a support vector, ``(m - 1)`` times the raw upload
        (the logistic and squared losses always get there, the hinge loss
        with a dense ``Sigma`` a fraction ``n_SV / n`` of it); the exact
        kernel mode otherwise (other kernels, one node, small data, or a
        ``cache_size``, which only the exact mode uses).  Under ``privacy``
        it is ``"rff"`` for the rbf kernel (nothing about the data leaves a
        node).  A number ``n_components`` asks for an approximation:
        ``"rff"`` for the rbf kernel, ``"nystroem"`` for the others; where
        the fit has none (``approximation=None``, ``kernel="linear"``, a
        ``cache_size``) it raises rather than ignore it.
        """
        D = auto_components(n) if self.n_components == "auto" else self.n_components
        mode = self.approximation
        named = None if callable(self.kernel) else self.kernel
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
                    bits = {"auto": _AUTO_BITS, "none": 64}.get(self.compression,
                                                               self.compression)
                    message = n_problems * quantized_bytes(D + int(bool(self.fit_intercept)),
                                                           bits)
                    rff_bytes = 2 * _AUTO_ROUNDS * m * message
                    if rff_bytes < (m - 1) * n * d * dtype_bytes:
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
        self.approximation_ = mode
        self.n_components_ = int(D) if mode is not None else None

    def _gamma_value(self, X):
        if isinstance(self.gamma, str):
            if self.gamma == "auto":
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
        dtype = X.dtype
        dtype_bytes = 4 if dtype == np.float32 else 8
        n, d = X.shape
        self._resolve_mode(n, d, m, Y.shape[0], dtype_bytes)
        loss = _LOSSES[self.loss]()
        lam = self._regularization(n)
        dp_spec = check_privacy(self.privacy, type(self).__name__)
        if dp_spec is not None:
            self._check_private_mode(sample_weight)
        self.omega_mode_ = self._resolve_omega(dp_spec)
        for name in ("shared_coef_", "shared_intercept_", "shared_weight_"):
            self.__dict__.pop(name, None)  # from an earlier fit of the shared model
        protocol = _RoundProtocol(self, m)
        rng = protocol.rng

        if sample_weight is None:
            sw = np.ones(n)
        else:
            sw = np.asarray(sample_weight, dtype=np.float64)
            if np.any(sw < 0):
                raise ValueError("sample_weight must be non-negative.")
        totals = np.add.reduceat(sw, layout.offsets[:-1]) if n else np.zeros(m)
        for t in range(m):
            if not totals[t] > 0:
                raise ValueError(
                    f"Node {self.nodes_.tolist()[t]!r} has no samples with positive weight."
                )

        # Omega.  Linear mode keeps Sigma factored when W^T W has rank below
        # m (n_problems * (d + intercept) < m): see _LowRankSigma.
        factored = (
            self.kernel == "linear" and self.approximation_ is None
            and Y.shape[0] * (d + int(bool(self.fit_intercept))) < m
        )
        learn, sigma = self._initial_task_covariance(m, factored=factored)
        warm = self._warm_start_duals(Y, layout)
        if warm is not None and learn:
            sigma = self._dual_state["sigma"].copy()

        # Kernel and features.
        gamma = None
        if not callable(self.kernel) and self.kernel != "linear":
            gamma = self._gamma_value(X)
            protocol.add_gamma_setup()
        spec = resolve_kernel(
            self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0, n_features=d
        )
        self._kernel_spec = spec
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
            return self._fit_shared(X, Y, sw, layout, totals, protocol, lam, loss, dtype,
                                    dtype_bytes)
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
        protocol.run(
            theta=0.0 if self.local_gap_target is None else float(self.local_gap_target),
            n_chunks=effective_n_jobs(self.n_jobs) if self._use_parallel() else 1,
            warm=warm,
        )
        reported = protocol.finish()
        self._store_model(state, X, Y, sw, layout, totals, protocol.sigma, lam, bias, dtype)
        # The Sigma the returned models were computed at (W = V Sigma / lambda);
        # with a learned Omega, omega_ is the best one for them (the next step's).
        self._model_sigma = protocol.sigma
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
        intercept's included): small nodes in many dimensions (HAR, the
        synthetic regimes, School) solve exactly, large nodes in few
        dimensions (Landmine: 357 samples, 10 features) run coordinate
        ascent, which costs ``O(n_t d')`` a pass.
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
        return (counts <= _EXACT_MAX_SAMPLES) & (
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
        if math.isinf(self.privacy.budget()[0]):
            # No noise: the gap terms and the setup statistics may be sent.
            pass
        elif self.kernel != "linear" and isinstance(self.gamma, str) and self.gamma == "scale":
            raise ValueError(
                f"{name}(privacy=...) needs a numeric gamma or gamma='auto': "
                "gamma='scale' sends every node's feature sums and sums of squares."
            )
        elif (isinstance(self.omega, str) and self.omega == "learn"
              and self.omega_update_every is None):
            raise ValueError(
                f"{name}(privacy=...) with omega='learn' needs omega_update_every: the "
                "learned-Omega stopping rule reads the nodes' duality-gap terms, which a "
                "private fit does not send."
            )
        if sample_weight is not None:
            raise ValueError(f"{name}(privacy=...) does not accept sample_weight.")

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
        exchange has no shared model to optimize, and private fits, whose
        updates are clipped and noised MOCHA updates).  ``"shared"`` where it
        does not run raises, naming what to change.
        """
        omega = self.omega
        if not isinstance(omega, str):
            return "fixed"
        if omega == "auto":
            return "shared" if self._primal_mode() and dp_spec is None else "learn"
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
        if dp_spec is not None:
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
        """The shared-component model (:mod:`skfed.multitask._shared`)."""
        m = layout.n_nodes
        g = np.zeros(Y.shape)
        Z = self._features(X)
        nodes = _SharedNodes(Z, Y, sw, g, layout, totals, protocol.seeds, dtype_bytes,
                             exact=self._exact_nodes(layout, Z.shape[1]), loss_name=self.loss)
        warm = self._warm_start_duals(Y, layout)
        start = None
        if warm is not None:
            # The nodes start from their previous dual variables (feasible at
            # any C) and the server from its previous shared model and share;
            # every node's dual vector reaches the server once (float64),
            # counted with the first round.
            g[...] = warm
            alpha = warm * sw
            for t in range(m):
                sl = layout.node_slice(t)
                nodes.V[:, t] = alpha[:, sl] @ nodes.Z[sl] / totals[t]
            start = self._dual_state.get("shared")
            protocol.setup_up += Y.shape[0] * nodes.d * 8
        fit = _SharedFit(
            self, protocol, nodes, lam, loss, self._compression_bits(None),
            steps=lambda work: _steps(work, layout.counts, self.local_epochs),
            theta=0.0 if self.local_gap_target is None else float(self.local_gap_target),
            n_chunks=effective_n_jobs(self.n_jobs) if self._use_parallel() else 1,
            warm=start,
        )
        if warm is not None:
            fit.U[...] = nodes.V
        with self._parallel_context() as parallel:
            fit.run(parallel if self._use_parallel() else None)
        best = fit.finish()
        if not fit.converged:
            warnings.warn(
                f"{type(self).__name__} (omega='shared') did not certify its joint "
                f"objective within tol={self.tol} (relative) in max_rounds={self.max_rounds} "
                f"rounds (best joint objective {best['joint']:.3e}, certified gap "
                f"{fit.joint_gap:.3e}){_fault_note(self.network, protocol.simulation)}; "
                "increase max_rounds or tol.",
                ConvergenceWarning,
            )
        b = float(best["b"])
        self.shared_weight_ = b
        self.n_iter_ = len(fit.gaps)
        self.joint_objective_ = float(best["joint"])
        self.joint_duality_gap_ = float(fit.joint_gap)
        self.joint_objective_curve_ = np.asarray(fit.joint_curve, dtype=np.float64)
        self.duality_gap_curve_ = np.asarray(fit.gaps, dtype=np.float64)
        self.objective_curve_ = np.asarray(fit.objectives, dtype=np.float64)
        self.dual_objective_curve_ = np.asarray(fit.duals, dtype=np.float64)
        sigma = shared_sigma(m, b)
        self.task_covariance_ = sigma
        self.omega_ = sigma  # formed (m x m) on access only
        self.rho_ = 1.0 - b + m * b  # lambda_max(D^-1/2 Sigma D^-1/2), D = I / m
        self._set_communication(protocol.simulation)
        self._store_model(nodes, X, Y, sw, layout, totals, None, lam, 0.0, dtype)
        self._dual_state = dict(nodes=self.nodes_.copy(), counts=layout.counts.copy(),
                                loss=self.loss, Y=Y.copy(), g=g.copy(), sigma=None,
                                shared=dict(w0=best["w0"].copy(), share=b))
        return self

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
                         *, zero_objective=None, rule=None):
        """Curves, Omega and communication attributes, shared by every engine's loop.

        A fit that did not converge warns; when it also ends worse than the
        all-zero model (objective ``zero_objective``), the warning says so,
        with the network's faults and how few updates the least active node
        sent, so a wrong answer never comes without a word.
        """
        joint = (np.nan, np.nan) if rule is None or rule.joint is None else rule.joint
        joint_gap = np.nan if rule is None else rule.joint_gap
        if not converged:
            faults = _fault_note(self.network, simulation)
            worse = ""
            if zero_objective is not None and objectives[-1] > zero_objective:
                worse = (
                    f"; the returned model is WORSE than the all-zero model (objective "
                    f"{objectives[-1]:.3e} > {zero_objective:.3e}): do not use it"
                )
            if rule is not None and rule.learn:
                # Learned Omega: the rule of _StoppingRule, not a duality gap.
                change = "none yet" if rule.last_change is None else f"{rule.last_change:.3e}"
                what = (
                    f"did not meet its learned-Omega stopping rule in "
                    f"max_rounds={self.max_rounds} rounds (the joint objective of the "
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
                    f"max_rounds={self.max_rounds} rounds (gap {gaps[-1]:.3e}, objective "
                    f"{objectives[-1]:.3e})"
                )
            warnings.warn(
                f"{type(self).__name__} {what}"
                f"{faults}{worse}; "
                "increase max_rounds or tol"
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

        Every node needs it; in the byte model it travels folded into the
        ``Sigma`` entries the server sends (``sigma_tu / lambda``), at no cost.
        """
        if self.lam is None:
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
            return Parallel(n_jobs=self.n_jobs, prefer="threads", require=require)
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

    def _features(self, X):
        """Features the primal modes work on (with the intercept column)."""
        if self.approximation_ == "rff":
            D = self.n_components_
            Z = np.cos(X @ self.random_weights_ + self.random_offset_)
            Z *= np.sqrt(2.0 / D)
        elif self.approximation_ == "nystroem":
            Z = pairwise_kernel(X, self.components_, kernel=self._kernel_spec) @ self.normalization_
        else:
            Z = X
        Z = np.asarray(Z, dtype=X.dtype)
        if self.fit_intercept:
            column = np.full((Z.shape[0], 1), self.intercept_scaling, dtype=X.dtype)
            Z = np.hstack([Z, column])
        return np.ascontiguousarray(Z)

    # ------------------------------------------------------------ model
    def _store_model(self, state, X, Y, sw, layout, totals, sigma, lam, bias, dtype):
        m = layout.n_nodes
        alpha = state.g * sw  # (n_problems, n), node order
        support_sorted = np.flatnonzero(np.any(alpha != 0, axis=0))
        node_of = np.repeat(np.arange(m), layout.counts)
        self.support_ = layout.order[support_sorted]
        self.n_support_ = np.bincount(node_of[support_sorted], minlength=m).astype(np.int32)
        self.support_vectors_ = np.ascontiguousarray(X[support_sorted])
        self.dual_coef_ = alpha[:, support_sorted].astype(dtype)
        sv_node = node_of[support_sorted]
        if self._primal_mode():
            W = state.weights(sigma, lam)  # (n_problems, m, d')
            # Column m: the model of a node unseen in fit, the shared model
            # w_0 of omega="shared", else the average of the node models.
            unseen = (state.w0[:, None, :] if isinstance(state, _SharedNodes)
                      else W.mean(axis=1, keepdims=True))
            W = np.concatenate([W, unseen], axis=1)
            self._W = W
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
        if self._primal_mode():
            Z = self._features(X).astype(np.float64)
            W = self._W  # (n_problems, m + 1, d')
            for k in range(n_problems):
                out[:, k] = np.einsum("id,id->i", Z, W[k, columns])
            return out
        bias = float(self.intercept_scaling) if self.fit_intercept else 0.0
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


class FederatedMultiTaskClassifier(FederatedClassifierMixin, _BaseMultiTask):
    """Federated kernel multi-task classifier with a learned task relationship (kernelized MOCHA).

    Every node t (phone, user, hospital: the ``groups`` of its samples)
    learns its own classifier ``f_t(x) = w_t . phi(x)``; the node models are
    coupled by a task-relationship matrix ``Omega`` learned from the data
    (or fixed), and trained over a simulated network in which only dual
    updates, support vectors and small summaries travel.  The objective
    (Caldas, Smith & Talwalkar; Smith et al. 2017)::

        min_{W, Omega}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                        + (lam / 2) tr(W Omega W^T)
        s.t.  Sigma = Omega^{-1} positive definite,  tr(Sigma) = 1

    with dual (paper eq. 3), for fixed Omega, minimised over ``alpha``::

        (1 / (2 lam)) alpha^T K alpha + sum_t (1 / n_t) sum_i loss*(-alpha_ti)
        K[(t, i), (u, j)] = sigma_tu k(x_ti, x_uj) / (n_t n_u)

    Each round every participating node runs dual coordinate ascent on its
    local subproblem (MOCHA's eq. 4, with the safe scaling ``rho =
    lambda_max(D^-1/2 Sigma D^-1/2)``, ``D = diag(Sigma)``, at most MOCHA's
    ``max_t sum_u |sigma_tu| / sigma_tt``; in the primal modes, by default,
    with the coupling ratio measured on the last round's steps instead, the
    server then taking the exact best step along the nodes' combined step:
    ``aggregation``) and ships what changed; once that
    W-step is finished (relative duality gap ``10 tol``) the server sets
    ``Sigma = (W^T W)^{1/2} / tr((W^T W)^{1/2})`` (eqs. 5-6), keeping the
    dual variables (warm start).  ``lam = 1 / (C n_samples)``.  With sample weights ``s_ti`` the loss
    average of node t is weighted, ``(1 / sum_i s_ti) sum_i s_ti loss(...)``.
    The protocol and what it costs in bytes are described in
    :mod:`skfed.multitask`.

    Parameters
    ----------
    C : float > 0, default=1.0
        Inverse regularization per sample, as in :class:`~sklearn.svm.SVC`:
        ``lam = 1 / (C n_samples)``.  It means the same at any number of
        nodes and samples: with ``omega="independent"`` node t solves an
        SVM with ``C_t = C n_samples / (n_nodes n_t)`` (``C`` for equal
        node sizes), and when the learned Omega ties every node into one
        model the problem is the pooled SVM with this ``C``.
    lam : float > 0 or None, default=None
        The objective's ``lambda`` directly.

        .. deprecated:: 0.1
           ``lam`` is deprecated and will be removed in 0.3; use
           ``C = 1 / (lam n_samples)``, which gives exactly the same fit.
    loss : {"hinge", "squared_hinge", "logistic"}, default="squared_hinge"
        ``hinge``: ``max(0, 1 - y z)`` (SVM); ``squared_hinge``:
        ``max(0, 1 - y z)^2`` (the default, as for
        :class:`~sklearn.svm.LinearSVC`: on HAR sitting, HAR activity and
        Landmine it scores above the hinge loss, on Landmine's 6 % positives
        by 0.04 AUC; see the user guide); ``logistic``: ``log(1 +
        exp(-y z))`` (enables :meth:`predict_proba`).
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplacian"} or callable, default="rbf"
        The kernel, as in :func:`skfed.kernels.pairwise_kernel`.
        ``"linear"`` without approximation is MOCHA itself: the primal
        ``W`` is kept and a round costs ``d`` floats per node each way.
    gamma : {"scale", "auto"} or float > 0, default="scale"
        Kernel coefficient (rbf, poly, sigmoid, laplacian). ``"scale"`` is
        ``1 / (n_features * X.var())`` over the pooled training data (the
        nodes share three numbers each to compute it), ``"auto"`` is
        ``1 / n_features``.
    degree : float >= 1, default=3
        Degree of the poly kernel.
    coef0 : float, default=1.0
        Independent term of the poly and sigmoid kernels.
    omega : {"learn", "independent"} or array-like of shape (n_nodes, n_nodes), default="learn"
        ``"learn"``: start from ``Sigma = I / n_nodes`` and learn ``Omega``;
        ``"independent"``: keep ``Omega = n_nodes I`` (purely local models,
        nothing but gap terms is communicated); an array: a fixed ``Omega``
        (symmetric positive definite, rows in the order of ``nodes_``),
        used as given (not rescaled to ``tr(Omega^{-1}) = 1``).
    omega_update_every : int >= 1 or None, default=None
        ``omega="learn"``: the Omega step is taken once the W-step's
        relative duality gap is at most ``10 tol``; with an int ``H``, also
        after ``H`` rounds without an Omega step (the paper's fixed
        schedule).
    approximation : {"auto", None, "nystroem", "rff"}, default="auto"
        ``"auto"``: ``"rff"`` for the rbf kernel when the data are large
        relative to the model (100 rounds of quantized model vectors cost
        less than ``m - 1`` times the raw upload, what the exact mode ships
        once every sample is a support vector; under ``privacy`` always),
        ``None`` otherwise (and with a ``cache_size``); a number
        ``n_components`` asks for an approximation (``"rff"`` for the rbf
        kernel, ``"nystroem"`` for the others); the choice is
        ``approximation_`` and the user guide gives the evidence.  ``None``: the exact kernel, with
        support-vector exchange.
        ``"nystroem"``: linear MOCHA on the features
        ``z(x) = K(x, L) K(L, L)^{-1/2}`` of ``n_components`` landmarks ``L``
        drawn once, each node contributing a share proportional to its
        number of samples drawn uniformly from its own samples (the
        landmarks are sent to every node; their bytes are counted).
        ``"rff"``: linear MOCHA on random Fourier features
        ``sqrt(2 / D) cos(x V + b)``, ``V ~ N(0, 2 gamma)``, ``b ~ U(0, 2 pi)``
        from a seed all nodes share (rbf only; no data leaves a node).
    n_components : int or "auto", default="auto"
        Number of landmarks or random features; ``"auto"``: ``ceil(2
        sqrt(n) ln n)`` for ``n`` training samples (all nodes), the order
        with which random features and Nystroem landmarks keep the exact
        kernel method's learning rate (Rudi & Rosasco 2017; Rudi,
        Camoriano & Rosasco 2015), the factor 2 chosen on HAR (see the user
        guide): 5,137 samples give 1,225.  At most 4,096: the primal modes
        hold the ``n x D`` feature matrix (``8 n D`` bytes in float64), which
        would otherwise grow faster than the data.  The number used is
        ``n_components_``.
    landmarks : {"random", "kmeans"}, default="random"
        Nystroem landmarks (``approximation="nystroem"`` only; any other
        mode raises): ``"random"`` samples drawn by every node from its own
        samples; ``"kmeans"`` k-means centres computed once over the
        network (local k-means on every node, weighted k-means of the local
        centres at the server; see :mod:`skfed.multitask` for the bytes).
        On HAR sitting k-means landmarks cut the error of 100 landmarks
        from 4.6 % to 4.1 % at the same bytes.
    fit_intercept : bool, default=True
        Add a bias: a constant feature ``intercept_scaling`` (the kernel
        becomes ``k(x, x') + intercept_scaling^2``).  The bias is part of
        ``w_t``, so it is regularized and coupled through Omega like the
        other weights (as in :class:`~sklearn.svm.LinearSVC`).
    intercept_scaling : float > 0, default=1.0
        Value of the constant bias feature.
    local_epochs : float > 0, default=10.0
        Passes over its samples a node makes per round (MOCHA's local
        iterations; stragglers of ``network`` do a random fraction of them).
    local_gap_target : float in (0, 1) or None, default=None
        MOCHA's theta: a node also stops its round as soon as (after a pass)
        its local duality gap is at most this fraction of its value at the
        start of the round.
    local_solver : {"auto", "exact", "coordinate"}, default="auto"
        How a node solves its subproblem in the primal modes.
        ``"coordinate"``: MOCHA's dual coordinate ascent, ``local_epochs``
        passes per round.  ``"exact"`` (hinge, squared hinge and squared
        loss): to optimality (projected gradient at most 1e-10 in margin
        units) by projected damped Newton on the node's Gram matrix
        ``Z_t Z_t^T``, which it keeps: ``n_t^2`` floats per node and
        ``O(n_t^3)`` per Newton iteration (a few to a few tens per round);
        ``local_epochs`` and ``local_gap_target`` then apply only to
        stragglers, which do their fraction of coordinate-ascent epochs.
        ``"auto"``: ``"exact"`` on the nodes with at most 1,000 samples
        when the loss allows it (at most 8 MB of Gram matrix per node, and
        at most 1,000 floats per sample in all), ``"coordinate"``
        otherwise.  The exact kernel mode always runs coordinate ascent, and
        so does the Flower engine (``"auto"`` means ``"coordinate"`` there;
        ``"exact"`` is refused).
    aggregation : {"auto", "line_search", "add"}, default="auto"
        How the server combines the nodes' local steps.  ``"add"``:
        CoCoA+ adding, each node's subproblem scaled by the safe ``rho``
        (``rho_``), every step taken in full.  ``"line_search"`` (primal
        modes: ``kernel="linear"`` and the approximate modes): the nodes
        scale their subproblems by twice the coupling ratio the server
        measured on the previous round's steps (within [1, ``rho``]), and the
        server takes the step in [0, 1] along the sum of their steps that
        maximizes the dual exactly; each node sends one or two more floats
        (its conjugate's change) and gets the step back with its next
        message.  With a diagonal ``Sigma`` (``rho = 1``) both are the same
        and nothing is searched.  ``"auto"``: ``"line_search"`` in the
        primal modes without ``privacy`` (or with ``epsilon=inf``), ``"add"``
        otherwise (and on the Flower engine, whose server adds the steps).
        See the user guide.
    compression : {"auto", "none"} or int in [2, 32], default="auto"
        Precision of the primal modes' round messages (``w_t`` down,
        ``Delta v_t`` up).  An integer ``b``: each vector travels as one
        float64 scale and ``b``-bit integers (:func:`quantize`, ``8 +
        ceil(d' b / 8)`` bytes), with error feedback: node t keeps what
        rounding left out of its updates and sends it with the next one,
        and gets the difference between the server's ``w_t`` and the model
        it holds, so both errors stay within one rounding of the latest
        change.  The fitted model is the server's (its duality gap, the
        stopping rule's, is that of the returned model against the dual
        variables' dual objective, an honest certificate), delivered
        unquantized at the end.  ``"none"``: float64, as before.
        ``"auto"``: 8 bits in the primal modes, ``"none"`` under ``privacy``
        with a finite epsilon, in the exact kernel mode and on the Flower
        engine; an explicit number of bits there raises.  See the user guide.
    tol : float >= 0, default=1e-3
        Fixed Omega: stop when the duality gap is at most ``tol`` times the
        primal objective.  ``omega="learn"``: at every Omega step due after
        a W-step finished to a relative gap of ``10 tol``, the joint
        objective ``loss(W) + (lam / 2) ||W||_*^2`` of the models that
        W-step reached is evaluated; the fit stops there, without taking the
        step, when that value changed by at most ``tol`` (relative) since
        the previous such step, or is within ``tol`` (relative) of the best
        joint dual seen (a certified bound).  The models returned are those,
        with their best Omega; see the user guide for how close to the
        optimum that lands.
    max_rounds : int, default=1000
        Maximum number of communication rounds; a
        :class:`~sklearn.exceptions.ConvergenceWarning` is raised when they
        run out.
    cache_size : float >= 0 or None, default=None
        Exact kernel mode: a bound, in MB summed over all nodes, on the
        kernel rows of received support vectors the nodes cache (node u
        keeps at most ``cache_size / n_nodes`` MB, rows of ``n_u``
        values); None: every row is cached.  Rows beyond the bound are
        recomputed whenever their dual variable changes: each costs
        ``n_u d`` kernel operations per change instead of memory.  The fit
        (and its bytes) does not depend on it.  Not bounded by it: each
        node's own kernel block (``n_t^2`` values) and margin states
        (``n_problems n_nodes n_t`` floats).  Unbounded, the cache grows to
        ``n_SV n_t`` values per node (20 nodes of 1,000 samples: up to
        3 GB); any other mode raises.
    warm_start : bool, default=False
        Start from the previous fit's dual variables (and, with
        ``omega="learn"``, its ``Sigma``) instead of zero and ``I /
        n_nodes``: for a path over ``C`` on the same data (the dual
        variables stay feasible at any ``C``).  They reach the server and
        the other nodes in the first round as ordinary changes from zero,
        and their bytes are counted (as if nothing had been kept from the
        previous fit).  Other nodes, samples per node, targets or loss raise.
        On 8 HAR people (exact rbf, learned Omega) the path ``C = 0.1, 1,
        10, 100`` took about the same rounds as cold fits and 25-40 % fewer
        bytes at every ``C`` above the first.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        Nodes never seen in fit: ``"global"`` predicts with the average of
        the node models, ``"error"`` raises.
    network : SimulatedNetwork or None, default=None
        The simulated network (drops, stragglers); None is a perfect one.
        Rogue nodes are refused with an error (the paper defines none).
    random_state : int, RandomState instance or None, default=None
        Seeds the coordinate order of every node, the faults, landmarks and
        random features.
    n_jobs : int or None, default=None
        Nodes solved in parallel through joblib (threads by default: the
        node solvers release the GIL).  ``None`` means 1 unless inside a
        :func:`joblib.parallel_config` context.  In the primal modes
        (``kernel="linear"``, ``approximation="nystroem"`` or ``"rff"``)
        the node solves are pure, so any joblib backend works, Dask workers
        included (``parallel_config(backend="dask")``: one chunk of nodes
        per worker and round).  The exact kernel mode updates its kernel
        caches and margin states in place every round, so it requires
        shared memory and always runs on threads, even under the Dask
        backend.  Results do not depend on ``n_jobs`` or the backend.
    verbose : int, default=0
        Print the gap after every round, and at an Omega step the joint
        objective after it and that of the models the W-step reached
        before it.
    privacy : DifferentialPrivacy, default=None
        Make every node's messages ``(epsilon, delta)``-differentially
        private with respect to its whole data set (client level) by
        clipping each round's update ``Delta v_t`` (all problems) to
        Frobenius norm ``B = privacy.clip_norm`` and adding Gaussian noise
        of standard deviation ``sigma_1 * 2 B`` to every entry (sensitivity
        ``2 B`` whatever the data; ``sigma_1`` calibrated by the analytic
        Gaussian mechanism so that ``max_rounds`` releases spend the budget;
        the server's ``V`` and everything sent from it are post-processing).
        The nodes' duality-gap terms are not sent, so a private fit runs
        ``max_rounds`` rounds, with an Omega step every
        ``omega_update_every`` rounds (required with ``omega="learn"``).
        Only the modes that send no raw data: ``approximation="rff"`` (with
        a numeric ``gamma`` or ``"auto"``: ``"scale"`` sends feature sums)
        and ``kernel="linear"``; the exact kernel and Nystroem modes send
        samples and are refused with an error, as is ``sample_weight``.
        Sets ``privacy_spent_`` (epsilon per node, from the accountant, for
        the rounds it took part in) and ``privacy_``.  None: no privacy.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
        Node labels seen in fit.
    classes_ : ndarray of shape (n_classes,)
        All classes seen in fit (over every node).
    omega_ : ndarray of shape (n_nodes, n_nodes)
        The task-relationship matrix ``Omega`` (m x m by definition).  In
        linear mode with ``n_problems * (n_features + fit_intercept) <
        n_nodes`` the fit keeps it as identity plus low rank and forms this
        matrix only when it is read (``O(n_nodes^2)`` memory then).
    task_covariance_ : ndarray of shape (n_nodes, n_nodes)
        ``Sigma = Omega^{-1}`` (formed on access likewise).
    rho_ : float
        The safe scaling ``rho`` for the final ``Sigma``.
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        Dual variables ``alpha`` of the support vectors (one row per binary
        problem: one for two classes, one per class otherwise).
    support_ : ndarray of shape (n_SV,)
        Indices (into the training ``X``) of the support vectors, node by
        node in the order of ``nodes_``.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    n_support_ : ndarray of shape (n_nodes,)
        Support vectors of each node.
    coef_ : ndarray of shape (n_nodes, n_features') or (n_nodes, n_classes, n_features')
        Per-node weights, in the primal modes (``kernel="linear"``: input
        features; approximate modes: the ``n_components`` features).
    intercept_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Per-node bias (``intercept_scaling`` times the bias weight).
    components_ : ndarray of shape (n_components, n_features)
        Nystroem landmarks.
    normalization_ : ndarray of shape (n_components, n_components)
        ``K(L, L)^{-1/2}`` (Nystroem).
    random_weights_, random_offset_ : ndarray
        ``V`` and ``b`` of the random Fourier features.
    approximation_ : {None, "nystroem", "rff"}
        The mode the fit used (``approximation="auto"`` resolved).
    n_components_ : int or None
        Landmarks or random features used (None in the exact kernel and
        linear modes).
    n_iter_ : int
        Communication rounds run.
    duality_gap_curve_ : ndarray of shape (n_iter_,)
        Duality gap after every round (after the Omega update of that round,
        if any).
    objective_curve_ : ndarray of shape (n_iter_,)
        Primal objective after every round.
    dual_objective_curve_ : ndarray of shape (n_iter_,)
        Dual objective after every round.
    joint_objective_curve_ : ndarray of shape (n_iter_,)
        ``omega="learn"``: the joint objective ``loss(W) + (lam / 2)
        ||W||_*^2`` of the models the W-step reached, at every round where
        an Omega step was due (evaluated before the step), NaN in between
        (fixed Omega: the primal objective).
    joint_objective_ : float
        Its last value: for a fit that met the rule, the joint objective of
        the returned models with the returned Omega.
    joint_duality_gap_ : float
        A certified upper bound on ``joint_objective_`` minus the optimum:
        the gap to the best joint dual ``-sum conjugates - lambda_max(G) /
        (2 lam)`` seen during the fit (loose until Omega has settled: 12-17 %
        of the objective on HAR in linear mode); the duality gap for a
        fixed Omega.
    communication_ : CommunicationLog
        Bytes and messages per node and per round.
    n_bytes_sent_, n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    FederatedMultiTaskRegressor : The same method with the squared loss.
    skfed.baselines.LocalEstimator : One model per node, no communication.
    sklearn.svm.SVC : The global kernel SVM on pooled data.

    Notes
    -----
    Multiclass problems are solved one-vs-rest, one binary problem per
    class, with one Omega shared by all of them: the Omega step uses
    ``sum_k W_k^T W_k``.

    ``omega_`` is never used by the solver (only ``Sigma`` is); the Omega
    step raises eigenvalues of ``W^T W`` below ``1e-7`` times the largest
    (MOCHA raises negative ones to ``1e-7``), so ``omega_`` stays finite.

    Node t's model is always ``W(alpha, Sigma) = V Sigma / lam`` for the
    current dual variables (with ``compression``, for the ``V`` the server
    received, within one rounding of the dual variables' own), so an Omega
    step changes the models at once and the reported duality gap is exact;
    a fit that meets the learned-Omega rule stops before that step and
    returns the models the W-step reached, which have the lower joint
    objective, with the step's Omega.  (MOCHA's reference code instead
    keeps ``W`` and adds later updates with the new ``Sigma``.)  The
    alternation of W and Omega steps approaches its fixed point slowly when
    the learned ``Sigma`` is nearly singular; a tight ``tol`` then needs many
    rounds, while the accuracy usually settles much earlier.

    Cost of the exact kernel mode: every node keeps its own kernel block
    (``n_t^2`` values) and the kernel rows of the support vectors it has
    received (``n_SV x n_t``), and each round costs one kernel row per new
    support vector and ``n_t`` operations per changed dual variable on every
    node; ``cache_size`` bounds the received rows, trading memory for
    recomputed kernel rows.  Every support vector eventually reaches every node that needs it,
    which for many support vectors is more bytes than the raw data; the
    approximate modes trade accuracy for bytes and memory.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.
    .. [3] A. Rudi, L. Rosasco. "Generalization Properties of Learning with
       Random Features". NeurIPS 2017.
    .. [4] A. Rudi, R. Camoriano, L. Rosasco. "Less is More: Nystrom
       Computational Regularization". NeurIPS 2015.
    .. [5] F. Seide, H. Fu, J. Droppo, G. Li, D. Yu. "1-Bit Stochastic
       Gradient Descent and its Application to Data-Parallel Distributed
       Training of Speech DNNs". Interspeech 2014 (error feedback).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(120, 2)); groups = np.repeat([0, 1, 2], 40)
    >>> y = (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int)
    >>> clf = FederatedMultiTaskClassifier(random_state=0)
    >>> clf.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.9
    True
    >>> clf.omega_.shape
    (3, 3)
    """

    _parameter_constraints = {
        **_BaseMultiTask._parameter_constraints,
        "loss": [StrOptions({"hinge", "squared_hinge", "logistic"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss="squared_hinge",
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
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
        max_rounds=1000,
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
        super().__init__(
            C=C, lam=lam, loss=loss, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
            omega=omega, omega_update_every=omega_update_every,
            approximation=approximation, n_components=n_components, landmarks=landmarks,
            fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
            local_epochs=local_epochs, local_gap_target=local_gap_target,
            local_solver=local_solver, aggregation=aggregation, compression=compression,
            tol=tol,
            max_rounds=max_rounds, cache_size=cache_size, warm_start=warm_start,
            group_column=group_column,
            handle_unknown=handle_unknown, network=network, random_state=random_state,
            n_jobs=n_jobs, verbose=verbose, privacy=privacy,
        )

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit the per-node classifiers and Omega over the simulated network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.  ``None`` (and no ``group_column``)
            means one node, with a :class:`~skfed.SingleNodeWarning`.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; every node needs a positive total.

        Returns
        -------
        self : FederatedMultiTaskClassifier
        """
        self._validate_params()
        X, y, sample_weight, layout = self._validate_fit_data(X, y, groups, sample_weight)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                "The number of classes has to be greater than one; got 1 class "
                f"({self.classes_[0]!r}) over all nodes."
            )
        Xs = layout.sort(X)
        codes = layout.sort(y_codes.ravel())
        if len(self.classes_) == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[None, :]
        else:
            Y = np.where(codes[None, :] == np.arange(len(self.classes_))[:, None], 1.0, -1.0)
        sw = layout.sort(sample_weight) if sample_weight is not None else None
        return self._fit(Xs, np.ascontiguousarray(Y), sw, layout)

    def decision_function(self, X, groups=None):
        """Score of each sample under its node's personalized model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column`` or
            after a one-node fit).

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, positive means ``classes_[1]``.
        """
        scores = self._raw_decision(X, groups)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X, groups=None):
        """Class of each sample under its node's personalized model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self._raw_decision(X, groups)
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _has_proba(self):
        return self.loss == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X, groups=None):
        """Class probabilities (``loss="logistic"`` only).

        Binary: the logistic function of the score; multiclass: the
        one-vs-rest logistic probabilities, normalized to sum to one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self._raw_decision(X, groups)
        if scores.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
            return np.column_stack([1.0 - p, p])
        p = 1.0 / (1.0 + np.exp(-scores))
        return p / p.sum(axis=1, keepdims=True)

    @available_if(_has_proba)
    def predict_log_proba(self, X, groups=None):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X, groups=groups))


class FederatedMultiTaskRegressor(FederatedRegressorMixin, _BaseMultiTask):
    """Federated kernel multi-task regression with a learned task relationship (kernelized MOCHA).

    The regression counterpart of :class:`FederatedMultiTaskClassifier`,
    with the squared loss::

        min_{W, Omega}  sum_t (1 / n_t) sum_i (w_t . phi(x_ti) - y_ti)^2 / 2
                        + (lam / 2) tr(W Omega W^T)
        s.t.  Sigma = Omega^{-1} positive definite,  tr(Sigma) = 1

    (for fixed Omega a multi-task kernel ridge regression).  The dual
    coordinate step is closed form: ``delta = (y - p - alpha) / (1 + q)``.
    Protocol, modes and byte counts as in :mod:`skfed.multitask`.

    Parameters
    ----------
    C : float > 0, default=1.0
        ``lam = 1 / (C n_samples)`` (see the classifier).
    lam : float > 0 or None, default=None
        The objective's ``lambda`` directly.

        .. deprecated:: 0.1
           Use ``C = 1 / (lam n_samples)``; removed in 0.3.
    loss : {"squared"}, default="squared"
        ``(z - y)^2 / 2``.
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplacian"} or callable, default="rbf"
        See :class:`FederatedMultiTaskClassifier`.
    gamma : {"scale", "auto"} or float > 0, default="scale"
    degree : float >= 1, default=3
    coef0 : float, default=1.0
    omega : {"learn", "independent"} or array-like of shape (n_nodes, n_nodes), default="learn"
    omega_update_every : int >= 1 or None, default=None
    approximation : {"auto", None, "nystroem", "rff"}, default="auto"
        Exact kernel or an approximation (see the classifier).
    n_components : int or "auto", default="auto"
        Number of landmarks or random features (see the classifier).
    landmarks : {"random", "kmeans"}, default="random"
        Nystroem landmarks (see the classifier).
    fit_intercept : bool, default=True
        Regularized bias through a constant feature (see the classifier).
        Targets are not centred: for targets far from zero use a larger
        ``intercept_scaling`` or centre ``y``.
    intercept_scaling : float > 0, default=1.0
    local_epochs : float > 0, default=10.0
    local_gap_target : float in (0, 1) or None, default=None
    local_solver : {"auto", "exact", "coordinate"}, default="auto"
        How a node solves its subproblem (see the classifier); with the
        squared loss the exact solve is one linear system per node.
    aggregation : {"auto", "line_search", "add"}, default="auto"
        How the server combines the nodes' steps (see the classifier).
    compression : {"auto", "none"} or int in [2, 32], default="auto"
        Precision of the primal modes' round messages (see the classifier).
    tol : float >= 0, default=1e-3
        Stopping rule, as for the classifier.
    max_rounds : int, default=1000
    cache_size : float >= 0 or None, default=None
        Memory bound (MB, all nodes) on the cached kernel rows of the exact
        kernel mode (see the classifier).
    warm_start : bool, default=False
        Start from the previous fit's dual variables and ``Sigma`` (see the
        classifier).
    group_column : int, str or None, default=None
    handle_unknown : {"global", "error"}, default="global"
    network : SimulatedNetwork or None, default=None
    random_state : int, RandomState instance or None, default=None
    n_jobs : int or None, default=None
    verbose : int, default=0
    privacy : DifferentialPrivacy, default=None
        See :class:`FederatedMultiTaskClassifier`.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
    omega_ : ndarray of shape (n_nodes, n_nodes)
    task_covariance_ : ndarray of shape (n_nodes, n_nodes)
    rho_ : float
    dual_coef_ : ndarray of shape (1, n_SV)
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray of shape (n_SV, n_features)
    n_support_ : ndarray of shape (n_nodes,)
    coef_ : ndarray of shape (n_nodes, n_features')
        Primal modes only.
    intercept_ : ndarray of shape (n_nodes,)
    n_iter_ : int
    duality_gap_curve_, objective_curve_, dual_objective_curve_ : ndarray of shape (n_iter_,)
    joint_objective_curve_ : ndarray of shape (n_iter_,)
    joint_objective_, joint_duality_gap_ : float
    communication_ : CommunicationLog
    n_bytes_sent_, n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    FederatedMultiTaskClassifier : The classifier, with the full description.
    sklearn.kernel_ridge.KernelRidge : The global kernel ridge on pooled data.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(90, 3)); groups = np.repeat(["a", "b", "c"], 30)
    >>> y = X @ [1.0, -1.0, 0.5] + 0.1 * rng.normal(size=90)
    >>> reg = FederatedMultiTaskRegressor(kernel="linear", random_state=0)
    >>> reg.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.95
    True
    """

    _parameter_constraints = {
        **_BaseMultiTask._parameter_constraints,
        "loss": [StrOptions({"squared"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss="squared",
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="learn",
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
        max_rounds=1000,
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
        super().__init__(
            C=C, lam=lam, loss=loss, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
            omega=omega, omega_update_every=omega_update_every,
            approximation=approximation, n_components=n_components, landmarks=landmarks,
            fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
            local_epochs=local_epochs, local_gap_target=local_gap_target,
            local_solver=local_solver, aggregation=aggregation, compression=compression,
            tol=tol,
            max_rounds=max_rounds, cache_size=cache_size, warm_start=warm_start,
            group_column=group_column,
            handle_unknown=handle_unknown, network=network, random_state=random_state,
            n_jobs=n_jobs, verbose=verbose, privacy=privacy,
        )

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit the per-node regressors and Omega over the simulated network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : FederatedMultiTaskRegressor
        """
        self._validate_params()
        X, y, sample_weight, layout = self._validate_fit_data(
            X, y, groups, sample_weight, y_numeric=True
        )
        Y = layout.sort(np.asarray(y, dtype=np.float64).ravel())[None, :]
        sw = layout.sort(sample_weight) if sample_weight is not None else None
        return self._fit(X=layout.sort(X), Y=np.ascontiguousarray(Y), sample_weight=sw,
                         layout=layout)

    def predict(self, X, groups=None):
        """Prediction of each sample's node model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        return self._raw_decision(X, groups)[:, 0]
