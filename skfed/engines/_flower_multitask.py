"""Kernelized MOCHA (primal modes) on Flower: the node side and the server loop.

The server runs the simulated fit's round protocol object
(:class:`skfed.multitask._protocol._RoundProtocol`: the same random draws,
rounds, Omega updates and stop, the same byte counts into the same
:class:`~skfed._core._comm.CommCounter`) and carries its messages over
Flower, with the node work done by the SuperNodes.  See :mod:`skfed.engines.flower`
for the message schedule (one exchange per round, speculative local
solves rolled back when the server stops or updates Omega early).

Messages (``train.skfed_mocha``), server to node ``t``:

* arrays ``skfed``: ``w`` (n_problems, d') -- the model to evaluate the
  gap terms at and, when training, to train from; ``sigma``
  ``[sigma_tt, rho]`` when the node's copy is stale;
* arrays ``extra``: ``w_before`` (the model before an Omega update, for the
  gap before the update), and in the first message the setup (classes,
  other nodes' landmarks, the random-feature generator state);
* config ``control``: ``train``, ``steps``, ``rollback``, ``final``,
  ``keep`` (the server kept the models the node last evaluated as the best
  W-step's: the node keeps their dual variables), and in the first message
  the node's seed, index and ``gamma``.

With the line search (``aggregation``) a training node's message also
holds ``ls_scale`` (the scaling of its subproblem) and the first message
after a searched round ``ls_step`` (n_problems,), the step the node applies
to its dual variables; its answer holds ``ls_conj`` (1 or 2, n_problems),
the coefficients of its conjugate's change along its step.

Node ``t`` to server: ``gap`` (n_eval, n_problems, 3) raw sums
``(sum s l(f, y), sum s l*(-g), sum alpha f)`` at each model it was asked
to evaluate, ``dv`` (n_problems, d') when it trained, and in the final
answer its number of support vectors, of its current dual variables and
of the kept ones (the server returns the best W-step's models when
``max_rounds`` ends a learned-Omega fit with worse ones: see
:meth:`~skfed.multitask._protocol._RoundProtocol.best_or_current`).
"""

import copy
import numbers

import numpy as np
from scipy import linalg
from sklearn.base import clone, is_classifier

from flwr.app import ArrayRecord, ConfigRecord, Message, RecordDict

from .._base import check_network_faults, check_sample_weight
from ..kernels import check_kernel_settings, pairwise_kernel, resolve_kernel
from ..multitask._compression import _FLOAT
from ..multitask._features import auto_components
from ..multitask._join import keep_for_joins
from ..multitask._omega import (
    _CONJUGATE_COEFFICIENTS,
    _COUPLING_MARGIN,
    _rho,
    conjugate_change,
    line_search_step,
)
from ..multitask._protocol import _UNSUPPORTED_FAULTS, _RoundProtocol, _objectives, _steps
from ..multitask._state import _LOSSES, _PrimalMessages
from ._flower_exact_solver import exact_nodes, exact_tolerance, hello_target_scale, node_exact_solve
from ._nodes import primal_gap_sums, primal_node_solve
from ._flower_exact import _pooled_gamma, exact_message, fit_exact
from ._flower_records import (
    LANDMARKS,
    MOCHA,
    _array,
    _arrays_of,
    _config_of,
    _hello_reply,
)

ACCEPT_SPARSE = False
_STATE = "skfed.mocha"
_STATE_ARRAYS = "skfed.mocha.arrays"


def check_supported(estimator):
    """Every mode runs on Flower (the exact kernel mode: ``_flower_exact``),
    MOCHA's formulations only: ``omega="auto"`` is the learned Omega here and
    ``omega="shared"`` is refused.

    ``aggregation`` (the server's line search: :meth:`_Run._line_search`)
    and ``local_solver`` (:mod:`skfed.engines._flower_exact_solver`) run as
    in the simulated fit, ``"auto"`` included.  The round messages travel in
    float64: ``compression="auto"`` resolves to ``"none"`` (so a default
    Flower fit equals the simulated fit with ``compression="none"``) and an
    explicit number of bits is refused.  ``approximation="auto"`` is resolved
    by the simulated fit's rule at Flower's float64 messages
    (:func:`resolve_mode`).

    The network's faults are replayed as in the simulated fit, which refuses
    rogue nodes; so does this one.  ``privacy=`` is refused: the clients do
    not clip and noise their updates on Flower yet.  More than two classes
    are learned one-vs-rest: ``multi_class="auto"`` resolves to ``"ovr"`` on
    Flower (so a Flower fit equals the simulated fit with
    ``multi_class="ovr"``) and ``"multinomial"`` is refused.
    """
    # The simulated fit's refusal of a kernel setting the kernel ignores
    # (the Flower loops resolve the kernel themselves, past that check).
    check_kernel_settings(estimator)
    if getattr(estimator, "multi_class", "ovr") == "multinomial":
        raise ValueError(
            "multi_class='multinomial' (the softmax loss, whose nodes solve the classes of "
            "a sample jointly) is only implemented by the simulated fit, not on the Flower "
            "engine; pass multi_class='ovr' or 'auto' (one-vs-rest on Flower) there."
        )
    if getattr(estimator, "privacy", None) is not None:
        raise ValueError(
            f"The Flower engine does not run {type(estimator).__name__}'s private "
            "updates (clipping and Gaussian noise) on its clients yet, so privacy= is "
            "refused there; fit the estimator itself (simulated network)."
        )
    check_network_faults(estimator, estimator.network, _UNSUPPORTED_FAULTS)
    # The shared-component model runs on the simulated network only: "auto"
    # means the learned Omega here, an explicit request is refused.
    if isinstance(getattr(estimator, "omega", None), str) and estimator.omega == "shared":
        raise ValueError(
            "omega='shared' (the shared-component model, whose server runs L-BFGS on "
            "the shared model) is only implemented by the simulated fit, not on the Flower "
            "engine; pass omega='learn' or 'auto' (the learned Omega on Flower) there."
        )
    # Settings of the simulated fit that the Flower loops do not implement.
    unsupported = [
        f"{name}={getattr(estimator, name)!r}"
        for name, default in (("landmarks", "random"), ("cache_size", None),
                              ("warm_start", False))
        if getattr(estimator, name, default) != default
    ]
    if unsupported:
        raise ValueError(
            f"{', '.join(unsupported)} is only implemented by the simulated fit, not "
            "on the Flower engine; leave it at its default there."
        )
    # Round messages travel in float64: "auto" means that here, an explicit
    # number of bits is refused.
    if getattr(estimator, "compression", "none") not in ("auto", "none"):
        raise ValueError(
            f"compression={estimator.compression!r} (quantized round messages of the "
            "primal modes) is only implemented by the simulated fit, not on the Flower "
            "engine; pass compression='none' or 'auto' (float64 on Flower) there."
        )


def resolve_mode(estimator, n, d, m, n_problems, dtype_bytes):
    """``approximation_`` and ``n_components_`` of a Flower fit: the simulated
    fit's rule (:meth:`~skfed.multitask._base._BaseMultiTask._resolve_mode`:
    ``approximation="auto"`` weighs the random features' rounds against the
    exact mode's and the raw upload) at the precision of Flower's round
    messages, float64: the simulated rule of ``compression="none"``, which
    ``compression="auto"`` means on Flower.  ``n`` training samples of ``d``
    features on ``m`` nodes (the nodes' hello answers)."""
    rule = clone(estimator).set_params(compression="none")
    rule._resolve_mode(int(n), int(d), int(m), int(n_problems), int(dtype_bytes))
    estimator.approximation_ = rule.approximation_
    estimator.n_components_ = rule.n_components_
    return rule.approximation_


def _n_components(estimator, n):
    """``n_components`` for ``n`` training samples: the resolved one."""
    D = getattr(estimator, "n_components_", None)
    if D is None:
        D = estimator.n_components
        D = auto_components(n) if D == "auto" else D
    return int(D)


def _exact_mode(estimator):
    return estimator.approximation_ is None and estimator.kernel != "linear"


def _needs_gamma_stats(estimator):
    return (
        not callable(estimator.kernel)
        and estimator.kernel != "linear"
        and isinstance(estimator.gamma, str)
        and estimator.gamma == "scale"
    )


# ------------------------------------------------------------ node side
def _node_weights(node):
    n = node.X.shape[0]
    sw = check_sample_weight(node.sample_weight, node.X, dtype=np.float64)
    total = float(np.add.reduceat(sw, [0])[0]) if n else 0.0
    if not total > 0:
        raise ValueError(f"Node {node.label!r} has no sample with a positive sample_weight; "
                         "every node needs at least 1.")
    return sw, total


def _positive_rows(node):
    """The node's data without its rows of weight 0, which the simulated fit
    removes before it reads anything (``_drop_zero_weight_rows``: they set
    no count, no kernel width, no landmark).  Data with a negative weight or
    no positive one are kept whole, for the checks to refuse."""
    sw = None if node.sample_weight is None else np.asarray(node.sample_weight)
    if sw is None or (sw < 0).any():
        return node
    keep = sw > 0
    if keep.all() or not keep.any():
        return node
    kept = copy.copy(node)
    kept.X, kept.y, kept.sample_weight = node.X[keep], node.y[keep], sw[keep]
    return kept


def hello_reply(node, estimator):
    reply = _hello_reply(_positive_rows(node), estimator)
    if is_classifier(estimator):
        # the classes of every row, as the simulated fit's classes_
        reply.array_records["skfed"]["classes"] = _array(np.unique(node.y))
    node = _positive_rows(node)
    _, total = _node_weights(node)
    reply.config_records["config"]["n_features"] = int(node.X.shape[1])
    reply.config_records["config"]["weight"] = total
    hello_target_scale(reply, node, estimator)
    if _needs_gamma_stats(estimator):
        # count, mean and sum of squared deviations of all the node's values
        # (combined at the server with Chan et al.'s pairwise update).
        values = np.asarray(node.X, dtype=np.float64)
        count = float(values.size)
        mean = float(values.mean()) if values.size else 0.0
        m2 = float(((values - mean) ** 2).sum())
        reply.array_records["skfed"]["stats"] = _array(np.array([count, mean, m2]))
    return reply


def hello_items(estimator):
    if _needs_gamma_stats(estimator):
        return lambda info: {"stats": 3 * _FLOAT}
    return None


def _targets(node, estimator, classes):
    if not is_classifier(estimator):
        return np.ascontiguousarray(np.asarray(node.y, dtype=np.float64)[None, :])
    codes = np.searchsorted(classes, node.y)
    if len(classes) == 2:
        Y = np.where(codes == 1, 1.0, -1.0)[None, :]
    else:
        Y = np.where(codes[None, :] == np.arange(len(classes))[:, None], 1.0, -1.0)
    return np.ascontiguousarray(Y)


class _NodeState:
    """What a node keeps between messages, in ``context.state``."""

    def __init__(self, context):
        self.context = context
        self.config = dict(context.state.config_records[_STATE]) if _STATE in context.state else {}
        self.arrays = (
            {k: v.numpy() for k, v in context.state.array_records[_STATE_ARRAYS].items()}
            if _STATE_ARRAYS in context.state
            else {}
        )

    def save(self):
        self.context.state[_STATE] = ConfigRecord(self.config)
        self.context.state[_STATE_ARRAYS] = ArrayRecord(
            {k: _array(v) for k, v in self.arrays.items()}
        )


def _feature_map(estimator, node, state, X):
    """A copy of the estimator carrying the node's feature map."""
    shell = clone(estimator)
    config, arrays = state.config, state.arrays
    d = X.shape[1]
    # the mode the server resolved (its first message)
    mode = config.get("approximation", "none")
    mode = None if mode == "none" else mode
    shell.approximation_ = mode
    if "n_components" in config:
        shell.n_components_ = int(config["n_components"])
    if mode is not None or (
        not callable(estimator.kernel) and estimator.kernel != "linear"
    ):
        gamma = config.get("gamma")
        spec = resolve_kernel(
            estimator.kernel, gamma=gamma, degree=estimator.degree,
            coef0=estimator.coef0, n_features=d,
        )
        shell._kernel_spec = spec
    if mode == "rff":
        generator = np.random.RandomState()
        generator.set_state(
            ("MT19937", arrays["rff_key"], int(config["rff_pos"]),
             int(config["rff_has_gauss"]), float(config["rff_gauss"]))
        )
        scratch = np.zeros(1, dtype=np.int64)
        shell._fit_feature_map(
            np.empty((0, d), dtype=X.dtype), None, spec, generator, scratch, scratch.copy(),
            X.dtype.itemsize,
        )
    elif mode == "nystroem":
        counts = np.asarray(arrays["landmark_counts"], dtype=np.intp)
        t = int(config["index"])
        own = X[np.asarray(arrays["picks"], dtype=np.intp)]
        others = arrays["landmarks"]
        start = int(counts[:t].sum())
        components = np.concatenate([others[:start], own, others[start:]], axis=0)
        shell.components_ = np.ascontiguousarray(components, dtype=X.dtype)
        K = pairwise_kernel(shell.components_, kernel=spec).astype(np.float64)
        evals, evecs = linalg.eigh(0.5 * (K + K.T))
        evals = np.maximum(evals, 1e-12 * max(evals[-1], 1e-300))
        shell.normalization_ = ((evecs / np.sqrt(evals)) @ evecs.T).astype(X.dtype)
    return shell


def _mocha_message(estimator, node, message, context):
    content = message.content
    control = _config_of(content, "control")
    arrays = _arrays_of(content, "skfed")
    extra = _arrays_of(content, "extra")
    state = _NodeState(context)
    if "seed" in control:  # the first message: setup
        state.config = {
            "index": int(control["index"]),
            "rng": int(control["seed"]),
        }
        for key in ("lam", "gamma", "rff_pos", "rff_has_gauss", "rff_gauss", "n_components",
                    "approximation", "exact", "exact_tol"):
            if key in control:
                state.config[key] = control[key]
        keep = {k: v for k, v in extra.items() if k != "w_before"}
        keep.update({k: v for k, v in state.arrays.items() if k == "picks"})
        state.arrays = keep
    if "classes" in state.arrays:
        classes = state.arrays["classes"]
    else:
        classes = None
    config = state.config
    Y = _targets(node, estimator, classes)
    sw, total = _node_weights(node)
    n_problems, n = Y.shape
    shell = _feature_map(estimator, node, state, node.X)
    Z = shell._features(node.X).astype(np.float64)
    g = state.arrays.get("g")
    if g is None:
        g = np.zeros((n_problems, n))
    g = np.array(g, dtype=np.float64, order="C")
    if control.get("keep", False):
        # The server kept the models this node last evaluated (the W-step's,
        # before any speculative solve): keep their dual variables.
        state.arrays["g_best"] = np.array(state.arrays.get("g_backup", g), dtype=np.float64)
    if "ls_step" in arrays:
        # The server's line search scaled this node's last local step: its
        # dual variables move by the same fraction (the simulated
        # _PrimalState.line_search's update of g, from the same values).
        base = state.arrays["g_backup"]
        steps = np.asarray(arrays["ls_step"], dtype=np.float64)
        g = np.ascontiguousarray(base + steps[:, None] * (g - base))
    if control.get("rollback", False) and "g_backup" in state.arrays:
        g = np.array(state.arrays["g_backup"], dtype=np.float64, order="C")
        config["rng"] = int(config["rng_backup"])
    if "sigma" in arrays:
        config["sigma_tt"], config["rho"] = (float(v) for v in arrays["sigma"])
    loss = _LOSSES[estimator.loss]()
    reply_arrays = {}
    evaluate = []
    if "w_before" in extra:
        evaluate.append(extra["w_before"])
    if int(control.get("evaluate", 0)) and "w" in arrays:
        evaluate.append(arrays["w"])
    if evaluate:
        reply_arrays["gap"] = _array(
            np.stack([primal_gap_sums(Z, Y, sw, g, w, loss) for w in evaluate])
        )
    if control.get("train", False):
        state.arrays["g_backup"] = g.copy()
        config["rng_backup"] = int(config["rng"])
        lam = float(config["lam"])
        # The subproblems' scaling: rho (adding), or the server's searched
        # scale (twice the last coupling ratio within [1, rho]).
        scale = float(arrays["ls_scale"][0]) if "ls_scale" in arrays else config["rho"]
        c = scale * config["sigma_tt"] / (lam * total)
        theta = 0.0 if estimator.local_gap_target is None else float(estimator.local_gap_target)
        if config.get("exact", False) and control.get("full", False):
            # local_solver: this node solves its subproblem exactly (a
            # straggler's partial round runs coordinate ascent).
            dvs, g = node_exact_solve(Z, Y, sw, g, arrays["w"], c, estimator.loss,
                                      float(config["exact_tol"]))
        else:
            dvs, g, config["rng"] = primal_node_solve(
                Z, Y, sw, g, total, config["rng"], arrays["w"], c, int(control["steps"]),
                theta, loss,
            )
        reply_arrays["dv"] = _array(np.asarray(dvs, dtype=np.float64))
        if "ls_scale" in arrays:
            # The line search's coefficients of this node's conjugate change
            # along its step (conjugate_change, the dual's weights s_i / W_t).
            base = state.arrays["g_backup"]
            linear, quadratic = conjugate_change(estimator.loss, Y, sw, base, g - base,
                                                 sw / total)
            coefficients = [linear] if _CONJUGATE_COEFFICIENTS[estimator.loss] == 1 else [
                linear, quadratic]
            reply_arrays["ls_conj"] = _array(np.array(coefficients, dtype=np.float64))
    else:
        state.arrays.pop("g_backup", None)
    state.arrays["g"] = g
    reply_config = {}
    if control.get("final", False):
        reply_config["n_support"] = int(np.count_nonzero(np.any(g * sw != 0, axis=0)))
        g_best = state.arrays.get("g_best", g)
        reply_config["n_support_best"] = int(np.count_nonzero(np.any(g_best * sw != 0, axis=0)))
    state.save()
    return RecordDict(
        {"skfed": ArrayRecord(reply_arrays), "control": ConfigRecord(reply_config)}
    )


def _landmark_message(estimator, node, message, context):
    picks = _arrays_of(message.content, "extra")["picks"].astype(np.intp)
    state = _NodeState(context)
    state.arrays["picks"] = picks
    state.save()
    rows = np.ascontiguousarray(node.X[picks])
    return RecordDict({"skfed": ArrayRecord({"landmarks": _array(rows)})})


def register_client(app, estimator, node_data):
    load = node_data

    def node_data(context):
        return _positive_rows(load(context))

    @app.train("skfed_mocha")
    def mocha(message, context):
        node = node_data(context)
        return Message(_mocha_message(estimator, node, message, context), reply_to=message)

    @app.train("skfed_exact")
    def exact(message, context):
        node = node_data(context)
        content = exact_message(estimator, node, message, context, (_targets, _node_weights))
        return Message(content, reply_to=message)

    @app.query("skfed_landmarks")
    def landmarks(message, context):
        node = node_data(context)
        return Message(_landmark_message(estimator, node, message, context), reply_to=message)


# ----------------------------------------------------------- server side
def _landmark_picks(estimator, counts_per_node, rng):
    """The Nystroem draws of ``_fit_feature_map``: per-node counts and local picks."""
    counts_per_node = np.asarray(counts_per_node, dtype=np.intp)
    n = int(counts_per_node.sum())
    n_landmarks = min(_n_components(estimator, n), n)
    share = counts_per_node * n_landmarks / n
    counts = np.floor(share).astype(np.intp)
    remainder = n_landmarks - counts.sum()
    if remainder:
        order = np.argsort(-(share - counts), kind="stable")
        counts[order[:remainder]] += 1
    counts = np.minimum(counts, counts_per_node)
    picks = {}
    for t in range(len(counts_per_node)):
        if counts[t]:
            picks[t] = np.sort(rng.choice(counts_per_node[t], size=counts[t], replace=False))
    return counts, picks


class _PrimalKeeper:
    """The primal server's side of the returned-model rule (issue 28).

    The server holds ``V`` and keeps a copy of the best W-step's; every node
    keeps the dual variables of the models it last evaluated when told
    (``keep`` rides on its next message, free in the byte model), so a
    return to the best W-step costs no message.
    """

    def __init__(self, V):
        self.V = V
        self.pending = np.zeros(V.shape[1], dtype=bool)  # nodes not yet told to keep
        self.restored = False

    def keep(self):
        self.pending[:] = True
        return self.V.copy()

    def gram(self):
        return np.einsum("ktd,kud->tu", self.V, self.V)

    def restore(self, V):
        self.V[...] = V
        self.restored = True


class _Run:
    """The server's side of one Flower fit (the transport around ``_RoundProtocol``)."""

    def __init__(self, fitted, driver):
        self.est = fitted
        self.driver = driver
        infos = driver.hello["by_index"]
        self.infos = infos
        self.m = m = len(infos)
        self.counts = np.array([int(infos[t]["n_samples"]) for t in range(m)], dtype=np.intp)
        self.totals = np.array([float(infos[t]["weight"]) for t in range(m)])
        self.d = int(infos[0]["n_features"])
        self.dtype = np.dtype(infos[0]["dtype"])
        self.dtype_bytes = self.dtype.itemsize
        if is_classifier(fitted):
            classes = np.unique(np.concatenate([infos[t]["classes"] for t in range(m)]))
            if len(classes) < 2:
                raise ValueError(
                    "The number of classes has to be greater than one; got 1 class "
                    f"({classes.tolist()[0]!r}) over all nodes."
                )
            fitted.classes_ = classes
            fitted.multi_class_ = "ovr"  # multi_class="auto" on Flower (check_supported)
            self.n_problems = 1 if len(classes) == 2 else len(classes)
        else:
            self.n_problems = 1

    # -- messages
    def _content(self, w=None, sigma=None, w_before=None, control=None, setup=None,
                 search=None):
        skfed, extra = {}, {}
        for key, value in (search or {}).items():  # the line search's step and scale
            skfed[key] = _array(np.asarray(value, dtype=np.float64))
        if w is not None:
            skfed["w"] = _array(np.asarray(w, dtype=np.float64))
        if sigma is not None:
            skfed["sigma"] = _array(np.asarray(sigma, dtype=np.float64))
        if w_before is not None:
            extra["w_before"] = _array(np.asarray(w_before, dtype=np.float64))
        config = dict(control or {})
        if setup is not None:
            arrays, values = setup
            extra.update({k: _array(v) for k, v in arrays.items()})
            config.update(values)
        return RecordDict(
            {"skfed": ArrayRecord(skfed), "extra": ArrayRecord(extra),
             "control": ConfigRecord(config)}
        )

    def fit(self):
        """The server loop: the protocol's steps around Flower's exchanges.

        One exchange per round carries the evaluation of the last round's
        model and, speculatively, the next round's local solves (rolled back
        when the fit stops or a gap-triggered Omega step changes ``Sigma``);
        the protocol object (:class:`~skfed.multitask._protocol._RoundProtocol`)
        draws the faults, counts the byte model's messages and decides the
        Omega steps and the stop, as in the simulated fit.
        """
        est, driver = self.est, self.driver
        m, P, d = self.m, self.n_problems, self.d
        everyone = np.arange(m, dtype=np.intp)
        lam = est._regularization(float(self.totals.sum()))  # the total sample weight
        protocol = _RoundProtocol(est, m)
        rng, seeds = protocol.rng, protocol.seeds
        learn, sigma = est._initial_task_covariance(m)

        setup_up, setup_down = protocol.setup_up, protocol.setup_down
        setup_arrays = [dict() for _ in range(m)]
        # lambda travels folded into the sigma entries in the byte model.
        setup_values = [{"seed": int(seeds[t]), "index": t, "lam": lam} for t in range(m)]
        setup_items = [dict() for _ in range(m)]
        gamma = None
        if not callable(est.kernel) and est.kernel != "linear":
            gamma = _pooled_gamma(est, self.infos, d)
            if protocol.add_gamma_setup():
                for t in range(m):
                    setup_items[t]["gamma"] = _FLOAT
            for t in range(m):
                setup_values[t]["gamma"] = float(gamma)
        spec = resolve_kernel(est.kernel, gamma=gamma, degree=est.degree, coef0=est.coef0,
                              n_features=d)
        est._kernel_spec = spec
        est.gamma_ = None if gamma is None else float(gamma)
        if is_classifier(est):
            for t in range(m):
                setup_arrays[t]["classes"] = est.classes_
        mode = est.approximation_
        for t in range(m):
            setup_values[t]["approximation"] = "none" if mode is None else mode
        if mode is not None:
            for t in range(m):
                setup_values[t]["n_components"] = int(est.n_components_)
        if mode == "rff":
            _, key, pos, has_gauss, gauss = rng.get_state()
            est._fit_feature_map(np.empty((0, d), dtype=self.dtype), None, spec, rng,
                                 setup_up, setup_down, self.dtype_bytes)
            for t in range(m):
                setup_arrays[t]["rff_key"] = np.asarray(key, dtype=np.uint32)
                setup_values[t].update(
                    {"rff_pos": int(pos), "rff_has_gauss": int(has_gauss),
                     "rff_gauss": float(gauss)}
                )
        elif mode == "nystroem":
            self._nystroem_setup(rng, spec, setup_up, setup_down, setup_arrays, setup_items)
        n_cols = {None: d, "rff": est.n_components_}.get(
            mode, getattr(est, "components_", np.empty((0, 0))).shape[0]
        ) + int(est.fit_intercept)
        self.n_cols = n_cols
        # local_solver, resolved by the simulated fit's rule (every node's
        # count is known from the hello); the tolerance's target scale too.
        exact = exact_nodes(est, self.counts, n_cols)
        if exact.any():
            tol = exact_tolerance(self.infos, is_classifier(est))
            for t in range(m):
                setup_values[t]["exact"] = bool(exact[t])
                setup_values[t]["exact_tol"] = tol
        # The byte model's primal messages (float64 on Flower: no compression).
        messages = _PrimalMessages(P, n_cols, m)
        w_bytes = messages.vector_bytes()
        sigma_info = messages.sigma_info_floats * _FLOAT
        line_search = est._line_search(None)
        protocol.begin(sigma=sigma, learn=learn, lam=lam, totals=self.totals,
                       counts=self.counts, n_problems=P,
                       sigma_info_floats=messages.sigma_info_floats, line_search=line_search)

        V = np.zeros((P, m, n_cols))
        keeper = protocol.keeper = _PrimalKeeper(V)
        # aggregation (resolved as in the simulated fit): the line search
        # scales every round's steps by the server's s (sent to a node with
        # its next message) and the nodes' subproblems by a searched scale.
        pending_step = {}  # node -> the step of its last update, not yet sent

        def weights(s):
            return np.einsum("tu,kud->ktd", s, V) / lam

        theta_steps = est.local_epochs
        node_version = np.full(m, -1)  # Sigma version each node holds
        traffic = driver.traffic

        def count_round_start(active, searching):
            # The byte model's messages of the round the nodes just solved.
            active = protocol.count_setup(active)  # (its W-step's nodes)
            if active.size:
                protocol.count_downlink(active, messages.downlink(active), searching)
                if searching:
                    protocol.step_pending[active] = True
                protocol.count_uplink(active, messages.uplink(active), searching)

        def combine(replies, e):
            loss_sum = conj_sum = cross_sum = 0.0
            for t in range(m):
                sums = _arrays_of(replies[t], "skfed")["gap"][e]
                for k in range(P):
                    ls, cs, xs = sums[k]
                    loss_sum += ls / self.totals[t]
                    conj_sum += cs / self.totals[t]
                    cross_sum += xs / self.totals[t]
            return _objectives(loss_sum, conj_sum, cross_sum)

        def send(round_, *, evaluate, w, w_before=None, train, steps, held=None,
                 rollback=False, final=False, setup=False, purpose="round", full=None):
            """One exchange with every node; returns replies, down and up log entries.

            ``held``: the ``(Sigma, rho, version)`` a node that trains (or gets
            its final model) is to hold; default: the protocol's current ones.
            """
            sigma, rho, version = held or (protocol.sigma, protocol.rho, protocol.version)
            contents, down_items = {}, {}
            searching = line_search and rho > 1.0  # protocol.searching() at this Sigma
            scale = min(max(_COUPLING_MARGIN * protocol.ratio, 1.0), rho)
            diag = np.diag(sigma)
            for t in range(m):
                give_sigma = (train[t] or final) and node_version[t] != version
                control = {
                    "train": bool(train[t]), "steps": int(steps[t]),
                    "rollback": bool(rollback), "final": bool(final),
                    "evaluate": int(evaluate),
                }
                if full is not None and train[t] and full[t]:
                    control["full"] = True  # a full round (the exact nodes solve exactly)
                if keeper.pending[t]:
                    control["keep"] = True
                    keeper.pending[t] = False
                wt = None if w is None or not (evaluate or train[t] or final) else w[:, t, :]
                search = {}
                if not rollback and t in pending_step:
                    search["ls_step"] = pending_step.pop(t)
                if train[t] and searching:
                    search["ls_scale"] = [scale]
                contents[t] = self._content(
                    search=search,
                    w=wt, sigma=(float(diag[t]), float(rho)) if give_sigma else None,
                    w_before=None if w_before is None else w_before[:, t, :],
                    control=control,
                    setup=(setup_arrays[t], setup_values[t]) if setup else None,
                )
                items = dict(setup_items[t]) if setup else {}
                if wt is not None:
                    items["w"] = w_bytes
                if give_sigma:
                    items["sigma"] = sigma_info
                    node_version[t] = version
                if w_before is not None:
                    items["w_before_omega"] = w_bytes
                if "ls_step" in search:
                    items["ls_step"] = P * _FLOAT
                if "ls_scale" in search:
                    items["ls_scale"] = _FLOAT
                down_items[t] = items

            def up_items(t, reply):
                items = {}
                arrays = reply.array_records.get("skfed")
                if arrays is not None and "dv" in arrays:
                    items["dv"] = w_bytes
                if arrays is not None and "gap" in arrays:
                    n_eval = arrays["gap"].shape[0]
                    items["gap"] = 3 * _FLOAT
                    items["gap_extra"] = (n_eval * P - 1) * 3 * _FLOAT
                if arrays is not None and "ls_conj" in arrays:
                    items["ls_conj"] = protocol.search_floats
                return items

            return driver.exchange(
                MOCHA, contents, round_, down_items=down_items, up_items=up_items,
                purpose=purpose,
            )

        def apply(replies, trained):
            active = np.flatnonzero(trained)
            dvs = {t: _arrays_of(replies[t], "skfed")["dv"] for t in active}
            searching = active.size > 0 and protocol.searching()
            if searching:
                steps = self._line_search(protocol, V, active, dvs, replies, lam)
            for t in active:
                dv = dvs[t]
                if searching:
                    dv = dv * steps[:, None]
                    pending_step[t] = steps
                V[:, t, :] += dv / self.totals[t]
            return searching

        def solve_steps(work):
            return np.array([_steps(work[t], self.counts[t], theta_steps) for t in range(m)])

        # Round 0: setup and the first local solves.
        active_mask, work, active = protocol.draw_round()
        train = active_mask.astype(bool) & (not protocol.setup_waits(active))
        replies, down, up = send(0, evaluate=False, w=weights(protocol.sigma), train=train,
                                 steps=solve_steps(work), setup=True, full=work >= 1.0)
        for t in range(m):
            if not train[t]:
                traffic.relabel(down[t], "w", "w_eval")
        count_round_start(active, apply(replies, train))
        round_active = train.copy()
        while True:
            round_ = protocol.round
            last = round_ == est._max_rounds() - 1
            # A scheduled Omega step is known before the gap: the speculative
            # solves of the next round then start from the new Sigma (the gap
            # of the W-step's models comes back with them, as w_before).
            due = protocol.omega_due_next()
            sigma = protocol.sigma
            W_now = weights(sigma)
            candidate = None
            if due:
                gram = np.einsum("ktd,kud->tu", V, V)
                candidate = protocol.omega_candidate(gram)
            W_train = W_now if candidate is None else weights(candidate)
            if not last:
                next_mask, next_work, _ = protocol.draw_round()
                next_train = next_mask.astype(bool) & (not protocol.setup_waits(
                    np.flatnonzero(next_mask)))  # no W-step before every node's setup
                next_steps = solve_steps(next_work)
                next_full = next_work >= 1.0
            else:
                next_full = None
                next_mask = np.zeros(m, dtype=bool)
                next_train = np.zeros(m, dtype=bool)
                next_steps = np.zeros(m, dtype=np.intp)
            # With a scheduled step the next solves start from the new Sigma
            # (which the protocol adopts once the gap is known).
            held = None if candidate is None else (candidate, _rho(candidate),
                                                   protocol.version + 1)
            replies, down, up = send(
                round_ + 1, evaluate=True, w=W_train,
                w_before=W_now if candidate is not None else None, train=next_train,
                steps=next_steps, held=held, final=last, full=next_full,
            )
            spec = [replies, down, up]  # the speculative round's exchange

            def omega_step():
                gram = np.einsum("ktd,kud->tu", V, V)
                return gram, candidate if due else protocol.omega_candidate(gram)

            def evaluate(new_sigma):
                if due:
                    # The gap at the new Sigma came with the speculative round.
                    return combine(replies, 1 if candidate is not None else 0)
                if new_sigma is None:
                    return gap, primal, dual
                # Gap-triggered step: the speculative round used the old Sigma;
                # its solves are rolled back and redone from the new one.
                for t in range(m):
                    traffic.relabel(spec[1][t], "w", "w_before_omega")
                    traffic.relabel(spec[1][t], "sigma", "sigma_discarded")
                    traffic.relabel(spec[2][t], "dv", "dv_discarded")
                    traffic.relabel(spec[1][t], "ls_scale", "ls_scale_discarded")
                    traffic.relabel(spec[2][t], "ls_conj", "ls_conj_discarded")
                spec[:] = send(
                    round_ + 1, evaluate=True, w=weights(new_sigma), train=next_train,
                    steps=next_steps, rollback=True, final=last, purpose="omega-rollback",
                    full=next_full,
                )
                for t in range(m):
                    traffic.relabel(spec[2][t], "gap", "gap_extra")
                return combine(spec[0], 0)

            gap, primal, dual = combine(replies, 0)
            gap, primal, dual = protocol.omega_step_or_stop(
                gap, primal, dual, step=omega_step, evaluate=evaluate,
            )
            # Gap terms the byte model counts: nodes active in the evaluated round.
            for t in range(m):
                if not round_active[t]:
                    traffic.relabel(up[t], "gap", "gap_extra")
            protocol.record(gap, primal, dual, int(round_active.sum()), engine=" [Flower]")
            if protocol.last_round():
                protocol.count_final(everyone, messages.final_delivery()[1])
                protocol.end_round()
                if not last:
                    # The speculative solves are discarded; the model each node
                    # received with them is its final model.
                    for t in range(m):
                        traffic.relabel(spec[2][t], "dv", "dv_discarded")
                        traffic.relabel(spec[1][t], "ls_scale", "ls_scale_discarded")
                        traffic.relabel(spec[2][t], "ls_conj", "ls_conj_discarded")
                    replies = self._finish(send, round_ + 1)
                else:
                    replies = spec[0]
                break
            # The speculative round becomes round round_ + 1.
            for t in range(m):
                if not next_train[t]:
                    traffic.relabel(spec[1][t], "w", "w_eval")
            searched = apply(spec[0], next_train)
            protocol.end_round()
            round_active = next_train.copy()
            count_round_start(np.flatnonzero(next_mask).astype(np.intp), searched)

        protocol.finish()
        # Returned the best W-step's models: the nodes' kept dual variables
        # (or their current ones when the keep came after their final answer).
        key = ("n_support_best" if keeper.restored and not keeper.pending.any()
               else "n_support")
        n_support = np.array(
            [int(_config_of(replies[t], "control")[key]) for t in range(m)], dtype=np.int32,
        )
        self._store_model(weights(protocol.sigma), n_support)
        keep_for_joins(est, lam, self.totals)  # hook: add_nodes (issue 32)
        return est

    def _line_search(self, protocol, V, active, dvs, replies, lam):
        """The server's step along the round's combined direction: the
        simulated :meth:`~skfed.multitask._state._PrimalState.line_search`
        (uncompressed) from the nodes' steps ``dvs`` and the conjugate
        coefficients they sent (``ls_conj``); sets ``protocol.ratio``."""
        P, m = self.n_problems, self.m
        sigma = protocol.sigma
        dV = np.zeros((P, m, V.shape[2]))
        dV[:, active] = (np.stack([dvs[t] for t in active], axis=1)
                         / self.totals[active][None, :, None])
        SdV = np.einsum("tu,kud->ktd", sigma, dV)
        cross = np.einsum("ktd,ktd->k", SdV, V)  # <dV, Sigma V>
        curvature = np.einsum("ktd,ktd->k", SdV, dV)  # <dV, Sigma dV>
        separable = float(np.einsum("t,ktd,ktd->", np.diag(sigma), dV, dV))
        linear, quadratic = np.zeros(P), np.zeros(P)
        for t in active:
            coefficients = _arrays_of(replies[t], "skfed")["ls_conj"]
            linear += coefficients[0]
            if len(coefficients) > 1:
                quadratic += coefficients[1]
        steps = line_search_step(linear, quadratic, cross, curvature, lam)
        protocol.ratio = float(curvature.sum()) / separable if separable > 0.0 else 1.0
        return steps

    def _finish(self, send, round_):
        m = self.m
        replies, _, _ = send(
            round_, evaluate=False, w=None, train=np.zeros(m, dtype=bool),
            steps=np.zeros(m, dtype=np.intp), rollback=True, final=True, purpose="final",
        )
        return replies

    def _nystroem_setup(self, rng, spec, setup_up, setup_down, setup_arrays, setup_items):
        est, m, d = self.est, self.m, self.d
        counts, picks = _landmark_picks(est, self.counts, rng)
        contents = {
            t: RecordDict({"extra": ArrayRecord({"picks": _array(picks[t].astype(np.int32))})})
            for t in picks
        }
        row_bytes = d * self.dtype_bytes
        replies, _, _ = self.driver.exchange(
            LANDMARKS, contents, 0, purpose="landmarks",
            up_items=lambda t, reply: {"landmarks": int(counts[t]) * row_bytes},
        )
        blocks = [
            _arrays_of(replies[t], "skfed")["landmarks"] for t in range(m) if counts[t]
        ]
        components = (
            np.concatenate(blocks, axis=0) if blocks else np.zeros((0, d), dtype=self.dtype)
        )
        est.components_ = np.ascontiguousarray(components, dtype=self.dtype)
        est._landmark_counts = counts
        setup_up += counts * row_bytes
        setup_down += (len(components) - counts) * row_bytes
        K = pairwise_kernel(est.components_, kernel=spec).astype(np.float64)
        evals, evecs = linalg.eigh(0.5 * (K + K.T))
        evals = np.maximum(evals, 1e-12 * max(evals[-1], 1e-300))
        est.normalization_ = ((evecs / np.sqrt(evals)) @ evecs.T).astype(self.dtype)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        for t in range(m):
            others = np.concatenate(
                [components[: offsets[t]], components[offsets[t + 1]:]], axis=0
            )
            setup_arrays[t]["landmarks"] = np.ascontiguousarray(others)
            setup_arrays[t]["landmark_counts"] = counts.astype(np.int64)
            setup_items[t]["landmarks"] = int(others.shape[0]) * row_bytes

    def _store_model(self, W, n_support):
        """The primal branch of ``_BaseMultiTask._store_model``, from the server's data."""
        est = self.est
        dtype = self.dtype
        P, m = self.n_problems, self.m
        W = np.concatenate([W, W.mean(axis=1, keepdims=True)], axis=1)
        est._W = W
        n_feat = W.shape[2] - int(est.fit_intercept)
        coef = W[:, :m, :n_feat]
        intercept = (
            W[:, :m, n_feat] * est.intercept_scaling if est.fit_intercept
            else np.zeros(W.shape[:2])[:, :m]
        )
        if P == 1:
            est.coef_ = coef[0].astype(dtype)
            est.intercept_ = intercept[0].astype(dtype)
        else:
            est.coef_ = np.transpose(coef, (1, 0, 2)).astype(dtype)
            est.intercept_ = intercept.T.astype(dtype)
        # The dual variables and the support vectors stay on the nodes.
        est.n_support_ = n_support
        est.support_ = np.zeros(0, dtype=np.intp)
        est.support_vectors_ = np.zeros((0, self.d), dtype=dtype)
        est.dual_coef_ = np.zeros((P, 0), dtype=dtype)


def fit_server(fitted, driver):
    if not (fitted.max_rounds == "auto" or isinstance(fitted.max_rounds, numbers.Integral)):
        raise ValueError("max_rounds must be 'auto' or an integer.")
    fitted._validate_params()
    run = _Run(fitted, driver)
    resolve_mode(fitted, run.counts.sum(), run.d, run.m, run.n_problems, run.dtype_bytes)
    fitted.omega_mode_ = ("fixed" if not isinstance(fitted.omega, str)
                          else "learn" if fitted.omega == "auto" else fitted.omega)
    for name in ("shared_coef_", "shared_intercept_", "shared_weight_"):
        fitted.__dict__.pop(name, None)
    # aggregation as the simulated fit resolves it: an explicit line search
    # in the exact kernel mode (which adds the steps) is refused here too.
    fitted._line_search(None)
    if _exact_mode(fitted) and fitted.local_solver == "exact":
        raise ValueError(
            "local_solver='exact' solves the subproblems of the primal modes "
            f"(kernel='linear' or an approximation); the exact kernel mode (kernel="
            f"{fitted.kernel!r}) runs coordinate ascent: use local_solver='auto'."
        )
    if _exact_mode(fitted):
        return fit_exact(run)
    return run.fit()
