"""The synchronous rounds of consensus-penalized functional SGD.

In every round each active node steps on its next sample with the
consensus penalty towards its neighbours' functions (Koppel et al., the
solver :func:`skfed._core._online_fast.run_rounds`).  This module lays the
streams out in rounds (:class:`_EpochOrders`, a block of rounds at a time),
starts the simulated network over the communication graph, derives the
step and its stability bound from the graph Laplacian, and runs the rounds.

The tuning constants ``_ROUND_BLOCK`` and ``_MIN_FILL_STEPS`` are read
through the package namespace (``skfed.online``) at run time, so setting
them there takes effect.
"""

import sys

import numpy as np
from scipy import sparse
from sklearn.base import clone
from sklearn.utils import check_random_state
from threadpoolctl import ThreadpoolController

from .._base import pad_log
from .._core import _online_fast
from ..network import float_bytes, resolve_network
from ._empty import warn_empty_dictionaries
from ._laplacian import laplacian_lambda_max
from ._robust import count_scale_messages
from ._selection import count_selection_messages, tree_parents
from ._validation import _ROGUE, _SCHEDULES, _SMOOTHNESS, AFFINE_COEF0

# Degree of the default topology (a ring lattice, "k_regular"): 2, a ring.
# With copies a node sends every neighbour each of its samples at most once,
# so the degree bounds the bytes of a fit by about degree x its own data (HAR
# sitting-vs-rest: 1.5-1.8x the raw upload at degree 2, 2.4-3.2x at degree 4,
# at the same accuracy within 0.1 point).
_DEFAULT_DEGREE = 2
_THREADPOOLS = []


# Node steps (rounds x nodes) of the epoch orders and fault draws held at a
# time: the orders of max_epochs passes are made as the rounds need them.
_ROUND_BLOCK = 1 << 20
# A node short of steps gets at least this many made at once (all its passes
# when they are fewer): a node whose whole order is short never keeps its
# RandomState (about 2.5 KiB of Mersenne-Twister state, more than its order),
# and a fill over many nodes is not repeated every few rounds.
_MIN_FILL_STEPS = 512


def _tunable(name):
    """The constant ``name`` as set in the package namespace (``skfed.online``)."""
    return getattr(sys.modules[__package__], name)


class _EpochOrders:
    """Every node's processing order over ``epochs`` passes, made pass by pass.

    Holds the flat ``queue`` / ``queue_end`` / ``position`` arrays the
    Cython solver reads (each node's next samples, node by node) and appends
    a node's next passes only when its rounds need them (:meth:`fill`, at
    least ``_MIN_FILL_STEPS`` steps at a time), so memory is ``O(n_samples +
    rounds held x n_nodes)`` whatever ``epochs``.
    The orders are those of one up-front draw: arrival order repeated, or,
    with ``shuffle``, one permutation per pass from the node's own
    ``RandomState([seed, call])``, kept while the node has passes to make.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Node index of every sample.
    n_nodes, epochs : int
    shuffle : bool
    seeds : ndarray of shape (n_nodes,)
        Every node's seed.
    call : int
        Index of the fit / partial_fit call (part of the shuffle seed).

    Attributes
    ----------
    lengths : ndarray of shape (n_nodes,), dtype=int64
        Every node's steps over all passes.
    queue, queue_end, position : ndarray, dtype=intp
        The orders made and not yet consumed (``position`` advances as the
        solver steps).
    """

    def __init__(self, codes, n_nodes, epochs, shuffle, seeds, call):
        order = np.argsort(codes, kind="stable").astype(np.intp)
        counts = np.bincount(codes, minlength=n_nodes).astype(np.int64)
        self._offsets = np.concatenate([[0], np.cumsum(counts)])
        self._order = order
        self._counts = counts
        self._epochs = int(epochs)
        self._shuffle = bool(shuffle)
        self._seeds = seeds
        self._call = int(call)
        self._rngs = {}
        self.codes = codes
        self.lengths = counts * self._epochs
        self._made = np.zeros(n_nodes, dtype=np.int64)  # passes made per node
        self.queue = np.zeros(0, dtype=np.intp)
        self.queue_end = np.zeros(n_nodes, dtype=np.intp)
        self.position = np.zeros(n_nodes, dtype=np.intp)

    def remaining(self):
        """Steps left to every node: made and not consumed, plus unmade passes."""
        unmade = (self._epochs - self._made) * self._counts
        return (self.queue_end - self.position) + unmade

    def fill(self, n_rounds):
        """Make passes so that every node holds its next ``n_rounds`` steps (or all)."""
        held = (self.queue_end - self.position).astype(np.int64)
        unmade = self._epochs - self._made
        short = (held < n_rounds) & (unmade > 0) & (self._counts > 0)
        if not short.any():
            return
        # Passes each short node needs: enough to hold n_rounds steps.
        passes = np.zeros(len(self._counts), dtype=np.int64)
        counts = np.maximum(self._counts[short], 1)
        wanted = np.maximum(n_rounds - held[short], _tunable("_MIN_FILL_STEPS"))
        passes[short] = np.minimum(unmade[short], -(-wanted // counts))
        parts = []
        for node in range(len(self._counts)):
            parts.append(self.queue[self.position[node]:self.queue_end[node]])
            if passes[node]:
                parts.append(self._next_passes(node, int(passes[node])))
        sizes = held + passes * self._counts
        self.queue = np.ascontiguousarray(np.concatenate(parts), dtype=np.intp)
        self.queue_end = np.cumsum(sizes).astype(np.intp)
        self.position = (self.queue_end - sizes).astype(np.intp)

    def _next_passes(self, node, n_passes):
        """Node ``node``'s next ``n_passes`` passes over its samples, in order."""
        rows = self._order[self._offsets[node]:self._offsets[node + 1]]
        self._made[node] += n_passes
        if not self._shuffle:
            return np.tile(rows, n_passes)
        rng = self._rngs.pop(node, None)
        if rng is None:
            rng = np.random.RandomState([int(self._seeds[node]), self._call])
        out = np.concatenate([rows[rng.permutation(len(rows))] for _ in range(n_passes)])
        if self._made[node] < self._epochs:
            self._rngs[node] = rng  # kept while the node has passes to make
        return out


def _one_blas_thread():
    """Limit BLAS to one thread around the solver (its calls are small level-2
    updates, which threading only slows down); the controller is built once,
    so a partial_fit per sample does not rescan the loaded libraries."""
    if not _THREADPOOLS:
        _THREADPOOLS.append(ThreadpoolController())
    return _THREADPOOLS[0].limit(limits=1, user_api="blas")


class _ConsensusMixin:
    """The rounds of a fit, its network and its step."""

    def _make_queues(self, codes, epochs, shuffle):
        """Per-node processing order: arrival order, or shuffled passes (streamed)."""
        return _EpochOrders(codes, len(self.nodes_), epochs, shuffle, self._node_seeds,
                            self._n_calls)

    def _start_network(self):
        n_nodes = len(self.nodes_)
        network = resolve_network(self.network)
        if network.topology is None and getattr(self, "_coupling_adjacency", None) is not None:
            # consensus_penalty="auto" chose the strong coupling: the graph its
            # candidate was validated on.
            network = clone(network).set_params(topology=self._coupling_adjacency,
                                                topology_params=None)
        elif network.topology is None and n_nodes > 2:
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

    def _run(self, X, y, sample_weight, queues, epochs, *, join=False):
        n_nodes = len(self.nodes_)
        sim, network = self._start_network()
        n_candidates = self.__dict__.pop("_pending_selection", 0)
        scale_pending = self.__dict__.pop("_pending_scale", False)
        if n_candidates or scale_pending:
            # A robust loss's target scale and kernel="auto"'s validation
            # losses summed over spanning trees of the topology, the scale
            # and the choice sent back (one round of their own).
            parents = tree_parents(self.adjacency_)
            if scale_pending:
                count_scale_messages(sim.counter, parents)
            if n_candidates:
                count_selection_messages(sim.counter, parents, n_candidates)
            sim.counter.next_round()
            self._consensus_curve = np.concatenate([self._consensus_curve, [np.nan]])
            self._order_curve = np.concatenate([self._order_curve, self._sizes[None]])
        self._resolve_step(X, sample_weight, queues.codes)
        self._n_calls += 1
        lengths = queues.lengths
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
        # The fault draws of the rounds ahead (`stream`) and the block of them
        # in use (`pending`), read a block at a time like the epoch orders.
        stream, pending = None, None
        block = max(1, _tunable("_ROUND_BLOCK") // max(n_nodes, 1))
        with _one_blas_thread():
            while True:
                remaining = queues.remaining()
                if not np.any(remaining > 0):
                    break
                if pending is None or len(pending) == 0:
                    if stream is None or stream.remaining == 0:
                        stream = sim.stream_active(int(remaining.max()))
                    pending = stream.read(block)
                # Every node holds the steps of these rounds: one step a round.
                queues.fill(len(pending))
                capacity = self._points.shape[1]
                n_rounds = pending.shape[0]
                consensus_out = np.empty(n_rounds)
                order_out = np.empty((n_rounds, n_nodes), dtype=np.intp)
                done, status, bad_node = self._run_rounds(
                    X, y, sample_weight, queues.queue, queues.queue_end, queues.position,
                    pending, indptr, indices, loss, rogue, rogue_mode, sim.counter,
                    value_bytes, avg_start, averaging, sent, period, consensus_out,
                    order_out,
                )
                consensus_parts.append(consensus_out[:done])
                order_parts.append(order_out[:done])
                pending = pending[done:]
                if status == _online_fast.STATUS_DIVERGED:
                    n_done = sum(len(part) for part in consensus_parts)
                    label = self.nodes_[bad_node]
                    label = label.item() if hasattr(label, "item") else label  # 2, not np.int64(2)
                    self._diverged(f"node {label!r} after {n_done} rounds")
                if status == _online_fast.STATUS_NEED_CAPACITY:
                    self._grow(min(2 * capacity, limit))
                elif status == _online_fast.STATUS_ALL_DONE and not np.any(
                    queues.remaining() > 0
                ):
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
        linear, linear_on = self._linear_terms()  # (newcomers' linear terms, _linear)
        return _online_fast.run_rounds(
            X, y, sample_weight, queue, queue_end, position, active, indptr, indices,
            self.gamma_, self._kernel_kind, self._coef0, self._degree, loss,
            _SCHEDULES[self.learning_rate], float(self.eta0_), float(self.power_t),
            float(self.alpha), float(self.consensus_penalty_), float(self.epsilon_),
            self._max_size, self._compress, 0, float(self._value_limit),
            int(period.max()) if len(period) else 0, self._points, self._weights,
            self._gram_inv, self._sizes, self._n_steps, rogue, rogue_mode, self._rng_state,
            counter, value_bytes, consensus_out, order_out, self._komp_error,
            np.empty((n_nodes, capacity)), np.empty((n_nodes, max(self._n_outputs, 1))),
            np.empty((8, width)), self._pub_points, self._pub_weights, self._pub_sizes,
            self._since_publish, self._avg_weights, avg_start, averaging, self._slot_ids,
            sent, period, linear, linear_on,
        )

    def _warn_if_empty(self, codes, y):
        """A call that left a constant predictor warns (:mod:`._empty`); returns self."""
        return warn_empty_dictionaries(self, codes, y)

    def _exchange_graph(self):
        """``(indptr, indices)`` of the neighbours a node queries (none without consensus)."""
        if self.consensus_penalty_ == 0:
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
        """Largest eigenvalue of the graph Laplacian (exact up to 200 nodes;
        past them :func:`._laplacian.laplacian_lambda_max`, near-linear time)."""
        if len(self.nodes_) < 2 or self.adjacency_.nnz == 0:
            return 0.0
        A = sparse.csr_matrix(self.adjacency_, dtype=np.float64)
        if A.shape[0] <= 200:
            L = sparse.diags(np.asarray(A.sum(axis=1)).ravel()) - A
            return float(np.linalg.eigvalsh(L.toarray())[-1])
        return laplacian_lambda_max(A)

    def _kernel_sup(self, X, codes=None):
        """``max k(x, x)`` over the samples (and every node's kernel; with
        ``codes``, the node of every sample, each row's own node's)."""
        if self.kernel_ in ("rbf", "laplacian"):
            return 1.0
        sq = np.einsum("ij,ij->i", X, X, dtype=np.float64) if len(X) else np.zeros(1)
        if self.kernel_ == "linear":
            return float(sq.max())
        if self.kernel_ == "affine":
            if codes is None or not len(X):
                return float(self.gamma_.max() * sq.max() + AFFINE_COEF0)
            return float((self.gamma_[codes] * sq).max() + AFFINE_COEF0)
        if self.kernel_ == "sigmoid":
            return 1.0  # |tanh| <= 1
        return float(np.max(np.abs(self.gamma_.max() * sq + self.coef0) ** self.degree))

    def _resolve_step(self, X, sample_weight, codes=None):
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
        kernel_sup = max(self._kernel_sup(X, codes), getattr(self, "_kernel_sup_seen", 0.0))
        self._kernel_sup_seen = kernel_sup
        s_max = float(sample_weight.max()) if len(sample_weight) else 1.0
        # (kernel="auto"'s alone fits: the largest weight of all nodes' rows)
        s_max = max(s_max, getattr(self, "_s_max_seen", 0.0))
        if not hasattr(self, "_lambda_max"):
            self._lambda_max = self._laplacian_lambda_max()
        c = float(self.consensus_penalty_)
        beta = _SMOOTHNESS[self._loss_name()]
        curvature = kernel_sup * (beta * s_max + c * self._lambda_max)
        bound = 2.0 / (self.alpha + curvature) if self.alpha + curvature > 0 else np.inf
        if self.eta0 == "auto":
            eta = 1.0 / (self.alpha + kernel_sup * (s_max + c * self._lambda_max))
            if self.alpha > 0:
                # a curvature that vanishes against alpha (features of scale
                # 1e-12 under a linear kernel) would round eta to 1 / alpha
                eta = min(eta, 0.5 / self.alpha)
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
