"""One-shot federated exact support recovery for sparse linear regression.

Barik & Honorio, "Exact Support Recovery in Federated Regression with
One-shot Communication": every client computes, in one pass over its own
rows, the exact lasso solution for uncorrelated predictors, and sends the
support of that solution to the server as a packed bit vector, once.  The
server keeps the features that at least half of the answering clients
chose.

* :class:`FederatedSupportRecovery` is the method itself, as a scikit-learn
  feature selector (``transform`` keeps the recovered features).
* :class:`FederatedSparseLinearRegression` adds a second, counted round in
  which the clients send the sufficient statistics of a least-squares refit
  on the recovered support, so the result can predict.

The client pass lives in :mod:`skfed._core._support_fast`.
"""

import math
import numbers
import warnings

import numpy as np
from joblib import Parallel, delayed
from scipy import linalg, sparse
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._base import FederatedMixin, FederatedRegressorMixin, check_groups
from ._compat import HasMethods, Interval, StrOptions
from ._core._support_fast import (
    client_pass_csr,
    client_pass_dense,
    pack_bits,
    refit_statistics,
    tally_votes,
    unpack_bits,
)
from ._parallel import node_chunks
from .network import payload_bytes, resolve_network
from ._secure_noise import NoiseSource
from .privacy import (
    DifferentialPrivacy,
    calibrate_randomized_response,
    check_privacy,
    describe,
    epsilon_spent,
)

__all__ = ["FederatedSupportRecovery", "FederatedSparseLinearRegression"]


def auto_z(n_features):
    """The default multiplier of the ``alpha="auto"`` rule: ``sqrt(2 log d)``.

    ``sqrt(2 log d)`` is the size of the largest of ``d`` independent
    standard normal variables, so a client that thresholds its standardized
    statistics there rarely selects a feature unrelated to the target.
    ``d`` is taken as at least 2.
    """
    return math.sqrt(2.0 * math.log(max(int(n_features), 2)))


def _client_chunk(X, y, sample_weight, offsets, lam, z, auto, center):
    """Client pass of a run of consecutive nodes; returns their rows.

    ``X``, ``y`` and ``sample_weight`` hold only these nodes' rows and
    ``offsets`` starts at 0, so a chunk ships only its own data to a joblib
    worker (thread, process or Dask worker) and its result comes back as
    return values, never through shared memory.
    """
    n_nodes = len(offsets) - 1
    d = X.shape[1]
    sigma = np.zeros((n_nodes, d))
    alpha = np.zeros((n_nodes, d))
    threshold = np.zeros((n_nodes, d))
    coef = np.zeros((n_nodes, d))
    packed = np.zeros((n_nodes, (d + 7) // 8), dtype=np.uint8)
    nodes = np.arange(n_nodes, dtype=np.intp)
    if sparse.issparse(X):
        client_pass_csr(
            X.data, X.indices.astype(np.intp, copy=False),
            X.indptr.astype(np.intp, copy=False), d, y, sample_weight, offsets, nodes,
            lam, z, auto, center, sigma, alpha, threshold, coef, packed, np.zeros((2, d)),
        )
    else:
        client_pass_dense(
            X, y, sample_weight, offsets, nodes, lam, z, auto, center,
            sigma, alpha, threshold, coef, packed, np.zeros((2, d)),
        )
    return sigma, alpha, threshold, coef, packed


def _client_pass(X, y, sample_weight, offsets, lam, z, auto, center, n_jobs):
    """Run the client pass of every node (joblib over chunks of nodes).

    Returns ``(sigma, alpha, threshold, coef, packed)`` with one row per
    node; every node's row depends on its own data only, so the result does
    not depend on ``n_jobs`` or on the joblib backend.
    """
    n_nodes = len(offsets) - 1
    bounds = node_chunks(n_nodes, n_jobs)

    def chunk_args(first, last):
        lo, hi = offsets[first], offsets[last + 1]
        return (
            X[lo:hi], y[lo:hi], sample_weight[lo:hi],
            np.ascontiguousarray(offsets[first : last + 2] - lo),
            np.ascontiguousarray(lam[first : last + 1]), z, auto, center,
        )

    if len(bounds) <= 1:
        parts = [_client_chunk(*chunk_args(0, n_nodes - 1))]
    else:
        parts = Parallel(n_jobs=len(bounds), prefer="threads")(
            delayed(_client_chunk)(*chunk_args(first, stop - 1)) for first, stop in bounds
        )
    return tuple(np.concatenate(arrays) for arrays in zip(*parts))


# Messages of the refit round are computed this many values at a time.
_REFIT_BLOCK = 1 << 22


def _refit_round(X, y, w, layout, support, senders, sim, per_node, shared):
    """Round 2 of the refit: every node's means, the sum of what the senders sent.

    Returns ``means`` (n_nodes, s + 1), each node's weighted ``[mean y,
    mean x_S]``, and ``total``, the sum over ``senders`` of their messages
    (``G[triu_indices(m)]`` then ``b``; see
    :func:`~skfed._core._support_fast.refit_statistics`), rogue senders'
    messages corrupted on the way.  Linear in nodes, no Python loop over
    them: messages are computed in Cython a block of senders at a time.
    """
    s = len(support)
    m = s + 1 if shared else s
    if sparse.issparse(X):
        XS = X[:, support].toarray()
    else:
        XS = X[:, support]
    XS = np.ascontiguousarray(XS, dtype=X.dtype)
    starts = layout.offsets[:-1]
    node_weight = np.add.reduceat(w.astype(np.float64), starts)
    weighted = np.column_stack([y, XS]).astype(np.float64) * w[:, None]
    means = np.add.reduceat(weighted, starts, axis=0) / node_weight[:, None]
    del weighted
    n_values = m * (m + 1) // 2 + m
    total = np.zeros(n_values)
    step = max(1, _REFIT_BLOCK // max(n_values, 1))
    row = np.zeros(max(m, 1))
    for first in range(0, len(senders) if n_values else 0, step):
        block = np.ascontiguousarray(senders[first : first + step])
        messages = np.zeros((len(block), n_values))
        refit_statistics(
            XS, y, w, layout.offsets, block, means, bool(per_node), bool(shared),
            messages, row,
        )
        messages = np.asarray(sim.corrupt_value_rows(messages, block), dtype=np.float64)
        total += messages.sum(axis=0)
    return means, total


def _unpack(packed, n_features):
    bits = np.zeros((packed.shape[0], n_features), dtype=np.uint8)
    unpack_bits(np.ascontiguousarray(packed), bits)
    return bits.astype(bool)


class _OneShotSupportMixin(FederatedMixin):
    """Round 1 of the protocol, shared by the selector and the regressor."""

    _support_parameter_constraints = {
        "alpha": [Interval(numbers.Real, 0, None, closed="left"), "array-like",
                  StrOptions({"auto"})],
        "threshold": [Interval(numbers.Real, 0, 1, closed="right")],
        "fit_intercept": ["boolean"],
        "auto_z": [None, Interval(numbers.Real, 0, None, closed="left")],
        **FederatedMixin._federated_parameter_constraints,
        "network": [None, HasMethods(["start"])],
        "privacy": [None, DifferentialPrivacy],
        "random_state": ["random_state"],
        "n_jobs": [None, numbers.Integral],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = False
        return tags

    def _client_lambdas(self, n_nodes):
        """``(lam, auto)``: one lambda per client, or the auto rule."""
        if isinstance(self.alpha, str):
            return np.zeros(n_nodes), True
        if np.ndim(self.alpha) == 0:
            return np.full(n_nodes, float(self.alpha)), False
        lam = np.asarray(self.alpha, dtype=np.float64)
        if lam.ndim != 1 or lam.shape[0] != n_nodes:
            raise ValueError(
                f"alpha must be a non-negative number, 'auto' or one value per node "
                f"(in the order of nodes_, {n_nodes} nodes here); got an array of "
                f"shape {lam.shape}."
            )
        invalid = ~(np.isfinite(lam) & (lam >= 0))
        if np.any(invalid):
            first = np.flatnonzero(invalid)[0]
            raise ValueError(
                f"alpha must be finite and >= 0 for every node; node "
                f"{self.nodes_[first].item()!r} has alpha={lam[first]}."
            )
        return lam, False

    def _recover_support(self, X, y, groups, sample_weight):
        """Validate, run the client pass and the vote; set the fitted attributes.

        Returns what the refit round needs: the node-ordered data, the
        layout and the running :class:`~skfed.network.NetworkSimulation`.
        """
        X, y, sample_weight, layout = self._validate_fit_data(
            X, y, groups, sample_weight, accept_sparse=["csr", "csc"], y_numeric=True,
        )
        dtype = X.dtype
        n_nodes = layout.n_nodes
        d = X.shape[1]
        if sample_weight is None:
            weights = np.ones(X.shape[0], dtype=dtype)
        else:
            weights = np.asarray(sample_weight, dtype=dtype)
            if np.any(weights < 0):
                raise ValueError("sample_weight must be non-negative.")
        node_weight = np.bincount(layout.codes, weights=weights, minlength=n_nodes)
        if np.any(node_weight <= 0):
            bad = self.nodes_[np.flatnonzero(node_weight <= 0)[0]].item()
            raise ValueError(
                f"Node {bad!r} has no sample with a positive sample_weight; every "
                "node needs at least one to compute its statistics."
            )
        lam, auto = self._client_lambdas(n_nodes)
        z = auto_z(d) if self.auto_z is None else float(self.auto_z)
        abstain = self._abstainers(
            np.bincount(layout.codes, weights=weights > 0, minlength=n_nodes), auto
        )

        if sparse.issparse(X):
            X = sparse.csr_matrix(X)
        if np.all(layout.codes[1:] >= layout.codes[:-1]):
            # Already node by node (the usual layout of per-node data): no copy.
            X_nodes = X if sparse.issparse(X) else np.ascontiguousarray(X)
            y_nodes = np.ascontiguousarray(y, dtype=dtype)
            w_nodes = np.ascontiguousarray(weights)
        else:
            X_nodes = layout.sort(X)
            y_nodes = np.ascontiguousarray(y[layout.order], dtype=dtype)
            w_nodes = np.ascontiguousarray(weights[layout.order])
        _, _, _, _, packed = _client_pass(
            X_nodes, y_nodes, w_nodes, layout.offsets, lam, z, auto,
            bool(self.fit_intercept), self.n_jobs,
        )

        # Round 1 over the simulated network: who answers, what they send.
        network = resolve_network(self.network)
        sim = network.start(n_nodes, server=True, random_state=self.random_state,
                            node_labels=self.nodes_)
        active, work = sim.draw_round()
        # A straggler has not finished its pass when the one-shot deadline
        # expires: like a dropped client, it does not vote.
        answered = active & (work >= 1.0) & ~abstain
        flip = self._privatize_votes(packed, answered & ~sim.rogue, d)
        self._server_vote(packed, answered, sim, d, flip_probability=flip)
        return X_nodes, y_nodes, w_nodes, layout, sim

    def _privatize_votes(self, packed, honest, d):
        """Local differential privacy of the vote: randomized response.

        Every honest answering client flips each of its ``d`` bits with the
        probability that makes its whole message ``(epsilon, delta)``-DP
        with respect to its entire data set (client-level local DP: any
        change of the client's data may change every bit, so the ``d`` bits
        compose).  Returns the flip probability (0 without ``privacy``) and
        sets ``privacy_`` and ``privacy_spent_``.
        """
        spec = check_privacy(self.privacy, type(self).__name__)
        if spec is None:
            return 0.0
        epsilon, delta = spec.budget()
        mechanism = calibrate_randomized_response(epsilon, delta, d)
        uses = np.where(honest, d, 0)
        self.privacy_spent_ = epsilon_spent(mechanism, uses, delta)
        self.privacy_ = describe(
            mechanism, uses=uses, delta=delta,
            composition=f"{d} randomized-response bits per answering client, one shot",
            flip_probability=mechanism.flip_probability, level="client (local DP)",
        )
        p = mechanism.flip_probability
        senders = np.flatnonzero(honest)
        if p > 0.0 and len(senders):
            # The flips are privacy noise: the secure source, never random_state.
            source = NoiseSource.for_fit(spec, type(self).__name__)
            bits = _unpack(packed[senders], d)
            sent = mechanism.apply(bits, source)
            out = np.zeros((len(senders), packed.shape[1]), dtype=np.uint8)
            pack_bits(np.ascontiguousarray(sent), out)
            packed[senders] = out
        return p

    def _abstainers(self, n_positive, auto):
        """Clients with too few samples to compute their statistics abstain.

        Centring (``fit_intercept=True``) and the ``alpha="auto"`` rule's
        standard error both need two samples of positive weight; a client
        with fewer would send a meaningless support (one centred sample is
        zero, so it would vote against every feature).  It does not vote:
        ``answered_`` is False for it, and a warning names it.
        """
        need = 2 if (auto or self.fit_intercept) else 1
        abstain = np.asarray(n_positive) < need
        if abstain.any():
            bad = self.nodes_[abstain].tolist()
            shown = ", ".join(repr(v) for v in bad[:5]) + (", ..." if len(bad) > 5 else "")
            uses = " and ".join(
                what for what, on in (
                    ("centres its data (fit_intercept=True)", self.fit_intercept),
                    ("estimates its own lambda (alpha='auto')", auto),
                ) if on
            )
            warnings.warn(
                f"{len(bad)} client(s) of {type(self).__name__} have fewer than {need} "
                f"samples with a positive sample_weight, too few for a client that "
                f"{uses}, so they abstain from the vote (answered_ is False for "
                f"them): node(s) {shown}.",
                UserWarning,
                stacklevel=4,
            )
        return abstain

    def _server_vote(self, packed, answered, sim, d, flip_probability=0.0):
        """Round 1 at the server: receive the bit vectors, count them, vote.

        ``packed`` holds every client's honest bits (one row per node);
        rogue clients' rows are corrupted in place on the way, the messages
        of the clients in ``answered`` are counted, and the fitted vote
        attributes are set; ``d`` is the number of features voted on.  Bits
        flipped by randomized response with ``flip_probability`` p are
        debiased: ``(R_j - p) / (1 - 2 p)`` is compared with ``threshold``
        (for the median rule this is the same as ``R_j >= 1/2``).  Shared by the simulated fit and the Flower
        server, so both count and vote identically.
        """
        senders = np.flatnonzero(answered).astype(np.intp)
        rogue = senders[sim.rogue[senders]]
        if rogue.size:
            bits = sim.corrupt_bit_rows(_unpack(packed[rogue], d), rogue)
            sent = np.zeros((rogue.size, packed.shape[1]), dtype=np.uint8)
            pack_bits(np.ascontiguousarray(bits, dtype=np.uint8), sent)
            packed[rogue] = sent
        message = payload_bytes(n_bits=d)
        sim.counter.gather_to_server(senders, np.full(len(senders), message, dtype=np.int64))
        sim.counter.next_round()

        votes = np.zeros(d, dtype=np.int64)
        tally_votes(packed, senders, votes)
        g = len(senders)
        if g == 0:
            warnings.warn(
                "No client answered (all were dropped, straggling or abstained), so no "
                "feature was selected.",
                UserWarning,
                stacklevel=4,
            )
            fraction = np.zeros(d)
        else:
            fraction = votes / g
        client_supports = _unpack(packed, d)
        client_supports[~answered] = False

        if g:
            p = flip_probability
            self.support_ = (fraction - p) / (1.0 - 2.0 * p) >= self.threshold
        else:
            self.support_ = np.zeros(d, dtype=bool)
        self.votes_ = votes
        self.vote_fraction_ = fraction
        self.client_supports_ = client_supports
        self.answered_ = answered
        self.rogue_ = sim.rogue.copy()
        self.n_answered_ = g

    # --------------------------------------------------------- joining nodes
    def _join_vote(self, X, y, sample_weight, layout, new_labels):
        """The new clients' round 1: their passes, their votes added to the counts.

        The server keeps what it received from the fitted clients
        (``client_supports_``) and adds the bit vectors of the new clients
        that answer; the vote rule of the fit (:meth:`_server_vote`) is then
        applied to the counts over all answering clients.  Only the new
        clients' messages travel: the join's log counts them.
        """
        from ._core._comm import CommCounter

        n_old, n_new = len(self.nodes_), layout.n_nodes
        d = X.shape[1]
        dtype = X.dtype
        weights = (np.ones(X.shape[0], dtype=dtype) if sample_weight is None
                   else np.asarray(sample_weight, dtype=dtype))
        if np.any(weights < 0):
            raise ValueError("sample_weight must be non-negative.")
        node_weight = np.bincount(layout.codes, weights=weights, minlength=n_new)
        if np.any(node_weight <= 0):
            bad = new_labels[np.flatnonzero(node_weight <= 0)[0]]
            raise ValueError(
                f"Node {bad!r} has no sample with a positive sample_weight; every "
                "node needs at least one to compute its statistics."
            )
        if isinstance(self.alpha, str):
            lam, auto = np.zeros(n_new), True
        elif np.ndim(self.alpha) == 0:
            lam, auto = np.full(n_new, float(self.alpha)), False
        else:
            raise ValueError(
                "alpha is an array of one value per fitted client, so it has no value "
                "for the new clients; use a number or 'auto' (set_params) before "
                "add_nodes."
            )
        z = auto_z(d) if self.auto_z is None else float(self.auto_z)
        labels, self.nodes_ = self.nodes_, new_labels  # name the new clients in warnings
        try:
            abstain = self._abstainers(
                np.bincount(layout.codes, weights=weights > 0, minlength=n_new), auto
            )
        finally:
            self.nodes_ = labels
        if sparse.issparse(X):
            X = sparse.csr_matrix(X)
        X_nodes = layout.sort(X)
        y_nodes = np.ascontiguousarray(np.asarray(y)[layout.order], dtype=dtype)
        w_nodes = np.ascontiguousarray(weights[layout.order])
        packed_new = _client_pass(
            X_nodes, y_nodes, w_nodes, layout.offsets, lam, z, auto,
            bool(self.fit_intercept), self.n_jobs,
        )[4]
        # One round over the grown network: faults for every client, but
        # only the new ones send; a new client is rogue with probability
        # rogue_fraction.
        network = resolve_network(self.network)
        rng = check_random_state(self.random_state)
        seed = [int(rng.randint(np.iinfo(np.int32).max)), n_old, 7919]
        sim = network.start(n_old + n_new, server=True, random_state=np.random.RandomState(seed),
                            node_labels=np.concatenate([self.nodes_, new_labels]))
        join_rng = np.random.RandomState(seed[:2] + [7907])
        rogue_new = join_rng.uniform(size=n_new) < network.rogue_fraction
        sim.rogue[:] = np.concatenate([self.rogue_, rogue_new])
        active, work = sim.draw_round()
        answered_new = (active & (work >= 1.0))[n_old:] & ~abstain
        # Privacy: the new clients' randomized response, accounted per client.
        old_spent = getattr(self, "privacy_spent_", None)
        old_info = getattr(self, "privacy_", None)
        flip = self._privatize_votes(packed_new, answered_new & ~rogue_new, d)
        if old_spent is not None:
            self.privacy_spent_ = np.concatenate([old_spent, self.privacy_spent_])
            self.privacy_["uses"] = np.concatenate([old_info["uses"], self.privacy_["uses"]])
        # What the server holds of the fitted clients, as received.
        packed_old = np.zeros((n_old, packed_new.shape[1]), dtype=np.uint8)
        pack_bits(np.ascontiguousarray(self.client_supports_, dtype=np.uint8), packed_old)

        class _Server:
            # The fitted clients' bits are already as received (no second
            # corruption) and their messages are not sent again.
            rogue = np.concatenate([np.zeros(n_old, dtype=bool), rogue_new])
            counter = CommCounter(n_old + n_new, server=True,
                                  header_bytes=sim.counter.header_bytes)
            corrupt_bit_rows = staticmethod(sim.corrupt_bit_rows)

        senders = np.flatnonzero(answered_new).astype(np.intp) + n_old
        self._server_vote(
            np.concatenate([packed_old, packed_new]),
            np.concatenate([self.answered_, answered_new]), _Server, d, flip_probability=flip,
        )
        self.rogue_ = sim.rogue.copy()
        sim.counter.gather_to_server(
            senders, np.full(len(senders), payload_bytes(n_bits=d), dtype=np.int64)
        )
        sim.counter.next_round()
        self._append_nodes(new_labels)
        return sim


    def _group_position(self):
        if self.group_column is None:
            return None
        if isinstance(self.group_column, str):
            return list(self.feature_names_in_).index(self.group_column)
        return int(self.group_column) % self.n_features_in_


class FederatedSupportRecovery(_OneShotSupportMixin, SelectorMixin, BaseEstimator):
    """Exact support recovery of a sparse linear model with one-shot communication.

    Barik & Honorio's Algorithm 1.  Every client (node) computes, in one pass
    over its own rows, the lasso solution for uncorrelated predictors and
    sends its support to the server, once, as a packed bit vector; the
    server keeps the features chosen by at least ``threshold`` (half, the
    median rule) of the clients that answered::

        client i, feature j (means over the client's n_i samples):
            sigma_ij = mean_t (x_tj)^2,     alpha_ij = mean_t y_t x_tj
            w_ij = argmin_w  sigma_ij w^2 / 2 - alpha_ij w + lambda_ij |w|
                 = sign(alpha_ij) max(0, |alpha_ij| - lambda_ij) / sigma_ij
            S_i  = {j : w_ij != 0} = {j : |alpha_ij| > lambda_ij}
        server, over the g clients that answered:
            R_j = (1/g) sum_i [j in S_i],   S = {j : R_j >= threshold}

    Each answering client sends one message of ``ceil(d / 8)`` bytes plus
    the header; nothing else is communicated (``n_bytes_sent_ ==
    g * (ceil(d / 8) + header_bytes)``).  The recovered support is exact
    with high probability when every client has ``O(s^2 log s)`` samples
    (``s`` the support size, independent of ``d``) and there are
    ``O(log d)`` clients (paper, Theorems 1-2).

    Parameters
    ----------
    alpha : float, array-like of shape (n_nodes,) or "auto", default="auto"
        The paper's lambda.  A number is used by every client; an array
        gives one value per client, in the order of ``nodes_`` (the sorted
        node labels).  ``"auto"`` is a rule every client applies to its own
        data, feature by feature: it thresholds the standardized statistic,
        ``lambda_ij = auto_z * sqrt(var_t(y_t x_tj) / n_i)``, i.e. it keeps
        feature ``j`` when ``alpha_ij`` is more than ``auto_z`` standard
        errors away from zero.  With ``auto_z = sqrt(2 log d)`` a feature
        unrelated to the target is rarely selected by any client, and a
        support feature is selected once
        ``n_i > 2 log(d) var(y x_j) / (E[y x_j])^2``, so the auto rule needs
        about ``log d`` times more samples per client than a well-chosen
        fixed lambda; it fails when features outside the support are
        correlated with the support (``E[y x_j] != 0`` for ``j`` outside
        it) and ``n_i`` is large enough to detect that correlation.
    threshold : float in (0, 1], default=0.5
        Fraction of the answering clients that must choose a feature for the
        server to keep it (``R_j >= threshold``); 0.5 is the paper's median
        rule, robust to up to half of the clients sending the complement of
        their support.
    fit_intercept : bool, default=True
        Whether every client first centres its own features and target
        (weighted means over its samples).  The paper's model has zero-mean
        data and no centring (``fit_intercept=False`` is exactly its
        Algorithm 1); with centred data the two differ by ``O(1/n_i)``.
        Centring is done in the same single pass over the rows.
    auto_z : float, default=None
        Multiplier of the standard error in the ``alpha="auto"`` rule;
        None means ``sqrt(2 log d)`` (``d`` at least 2).
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.  The column is
        not a candidate feature; :meth:`transform` keeps it (at its place
        among the selected columns) so that a federated estimator later in
        a pipeline still finds the node ids.
    handle_unknown : {"global", "error"}, default="global"
        Kept for a uniform API: :meth:`transform` selects the same features
        for every node, seen in fit or not.
    network : SimulatedNetwork, default=None
        The network the protocol runs over (None: a perfect network).
        Dropped and straggling clients do not vote (a straggler misses the
        one-shot deadline); rogue clients send the complement of their
        support or random bits (``rogue_behavior``).
    privacy : DifferentialPrivacy, default=None
        Local differential privacy of every client's message by randomized
        response: each bit is flipped with the probability ``p`` that makes
        the client's ``d``-bit message ``(epsilon, delta)``-DP with respect
        to its whole data set (``p = 1 / (1 + exp(epsilon / d))`` at
        ``delta = 0``; the accountant allows a smaller ``p`` for
        ``delta > 0``).  The server debiases the vote,
        ``(R_j - p) / (1 - 2 p) >= threshold``, which for the median rule
        is ``R_j >= 1/2`` again: symmetric flips keep the rule consistent
        but it needs more clients (see Notes).  None: no privacy.
    random_state : int, RandomState instance or None, default=None
        Seeds the network's faults when the network has no seed of its own.
        The randomized response of ``privacy`` never depends on it: its
        flips come from the operating system's CSPRNG.
    n_jobs : int, default=None
        Number of threads that run the client passes.  Results do not
        depend on it.

    Attributes
    ----------
    support_ : ndarray of shape (n_features,), dtype=bool
        The recovered support, over the features (without the node-id
        column of ``group_column``).
    votes_ : ndarray of shape (n_features,), dtype=int64
        Number of answering clients whose message had feature ``j``.
    vote_fraction_ : ndarray of shape (n_features,)
        ``R_j = votes_ / n_answered_`` (zeros when no client answered).
    client_supports_ : ndarray of shape (n_nodes, n_features), dtype=bool
        What each client's message said, as the server received it: after
        corruption for rogue clients and randomized response under
        ``privacy``, all False for clients that did not answer.
    answered_ : ndarray of shape (n_nodes,), dtype=bool
        Clients whose message arrived (not dropped, not straggling, not
        abstaining).  A client with fewer than two samples of positive
        weight abstains when it centres its data (``fit_intercept=True``) or
        uses ``alpha="auto"``: it cannot estimate its statistics, so it does
        not vote (with a warning naming it).
    rogue_ : ndarray of shape (n_nodes,), dtype=bool
        Clients the simulated network made rogue (unknown to the server;
        for analysis).
    n_answered_ : int
        ``g``, the number of clients that voted.
    nodes_ : ndarray of shape (n_nodes,)
        Node labels seen in fit, the order of every per-node axis.
    n_features_in_ : int
        Number of columns of ``X`` seen in fit (with the node-id column).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined when ``X`` has feature names that are all strings.
    communication_ : CommunicationLog
        Everything the fit communicated (one round).
    join_communication_ : CommunicationLog
        What the clients added by :meth:`add_nodes` sent (one round per
        join); only after a join.
    n_bytes_sent_ : int
        ``n_answered_ * (ceil(n_features / 8) + header_bytes)``, over the
        clients of the fit and of every join.
    n_messages_ : int
        ``n_answered_``.
    bytes_per_round_ : ndarray of shape (1,)
    privacy_spent_ : ndarray of shape (n_nodes,)
        Only with ``privacy``: the epsilon each client spent at the
        specification's delta (0 for clients that did not vote).
    privacy_ : dict
        Only with ``privacy``: mechanism, flip probability, bits per message
        and the accountant used.

    See Also
    --------
    FederatedSparseLinearRegression : the recovered support plus a federated
        least-squares refit, to predict.
    sklearn.linear_model.Lasso : the centralized lasso on pooled data.
    sklearn.feature_selection.SelectFromModel : selection from a fitted model.

    Notes
    -----
    Sample weights turn every mean into a weighted mean, and ``n_i`` into
    the client's total weight.  The bits are packed eight to a byte, feature
    ``j`` in bit ``j % 8`` (least significant first) of byte ``j // 8``.

    Under ``privacy`` a bit that a fraction ``q > 1/2`` of the honest
    clients would send arrives as a 1 with probability
    ``p + (1 - 2 p) q``, so the server's decision on it is wrong with
    probability at most ``exp(-2 g (1 - 2 p)^2 (q - 1/2)^2)`` (Hoeffding)
    for ``g`` answering clients: randomized response multiplies the number
    of clients the median rule needs by ``1 / (1 - 2 p)^2 =
    coth(epsilon_bit / 2)^2``, about ``4 / epsilon_bit^2`` for a small
    per-bit epsilon (``epsilon_bit = epsilon / d`` at ``delta = 0``).

    References
    ----------
    A. Barik and J. Honorio, "Exact Support Recovery in Federated Regression
    with One-shot Communication", arXiv:2006.12583, 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.support import FederatedSupportRecovery
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat(np.arange(10), 200)
    >>> X = rng.normal(size=(2000, 50))
    >>> y = X[:, 3] - 2 * X[:, 17] + 0.5 * rng.normal(size=2000)
    >>> selector = FederatedSupportRecovery().fit(X, y, groups=groups)
    >>> np.flatnonzero(selector.support_)
    array([ 3, 17])
    >>> selector.transform(X).shape
    (2000, 2)
    >>> int(selector.n_bytes_sent_)  # 10 clients x (ceil(50 / 8) + 16) bytes
    230
    """

    _parameter_constraints = dict(_OneShotSupportMixin._support_parameter_constraints)

    def __init__(
        self,
        alpha="auto",
        *,
        threshold=0.5,
        fit_intercept=True,
        auto_z=None,
        group_column=None,
        handle_unknown="global",
        network=None,
        privacy=None,
        random_state=None,
        n_jobs=None,
    ):
        self.alpha = alpha
        self.threshold = threshold
        self.fit_intercept = fit_intercept
        self.auto_z = auto_z
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.privacy = privacy
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def fit(self, X, y, groups=None, sample_weight=None):
        """Run the one-shot protocol: client passes, votes, the server's rule.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.  ``None`` (and no ``group_column``)
            means one client, with a :class:`~skfed.SingleNodeWarning`.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the client means; every node needs a positive total.

        Returns
        -------
        self : FederatedSupportRecovery
        """
        self._validate_params()
        _, _, _, _, sim = self._recover_support(X, y, groups, sample_weight)
        self._set_communication(sim)
        return self

    def fit_transform(self, X, y, groups=None, sample_weight=None):
        """Fit, then keep the recovered features of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        X_new : {ndarray, sparse matrix} of shape (n_samples, n_selected)
        """
        return self.fit(X, y, groups=groups, sample_weight=sample_weight).transform(
            X, groups=groups
        )

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Add clients after the fit: their votes join the server's counts.

        Every new client runs the client pass of :meth:`fit` on its own rows
        and sends its support bits once (one-shot stays one-shot); the
        server adds them to the votes it holds (``votes_``) and applies the
        same rule over all answering clients, so ``support_`` may change.
        The fitted clients send nothing and their messages are not
        recounted.  Under the network's faults a new client may be dropped
        or straggle (it does not vote) or be rogue (with probability
        ``rogue_fraction``); under ``privacy`` its bits get the same
        randomized response and ``privacy_spent_`` grows by its spend.  The
        join's bytes are in ``join_communication_`` (``ceil(d / 8) +
        header`` per new client that answered); ``n_bytes_sent_`` and
        ``n_messages_`` are the totals of the fit and every join.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows of the new clients, with the features of ``fit``.
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Client id of every row (not needed with ``group_column``);
            every id must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : FederatedSupportRecovery

        Examples
        --------
        >>> import numpy as np
        >>> from skfed.support import FederatedSupportRecovery
        >>> rng = np.random.RandomState(0)
        >>> groups = np.repeat(np.arange(12), 200)
        >>> X = rng.normal(size=(2400, 50))
        >>> y = X[:, 3] - 2 * X[:, 17] + 0.5 * rng.normal(size=2400)
        >>> old = groups < 10
        >>> selector = FederatedSupportRecovery().fit(X[old], y[old], groups=groups[old])
        >>> selector.add_nodes(X[~old], y[~old], groups=groups[~old]).n_answered_
        12
        >>> np.flatnonzero(selector.support_)
        array([ 3, 17])
        >>> selector.join_communication_.total_bytes  # 2 clients x (ceil(50 / 8) + 16)
        46
        """
        X, y, sample_weight, new_labels, layout = self._validate_join_data(
            X, y, groups, sample_weight, accept_sparse=["csr", "csc"], y_numeric=True,
        )
        sim = self._join_vote(X, y, sample_weight, layout, new_labels)
        self._record_join(sim.log(node_labels=self.nodes_))
        return self

    def transform(self, X, groups=None):
        """Keep the recovered features (and the node-id column, if any).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None
            Accepted so that pipelines routing node ids work; the selection
            is the same for every node, so it is only checked for length.

        Returns
        -------
        X_new : {ndarray, sparse matrix} of shape (n_samples, n_selected)
        """
        check_is_fitted(self)
        if groups is not None:
            n_samples = X.shape[0] if hasattr(X, "shape") else len(X)
            check_groups(groups, n_samples)
        return super().transform(X)

    def _get_support_mask(self):
        check_is_fitted(self)
        position = self._group_position()
        if position is None:
            return self.support_
        mask = np.ones(self.n_features_in_, dtype=bool)
        mask[np.arange(self.n_features_in_) != position] = self.support_
        return mask


class FederatedSparseLinearRegression(
    _OneShotSupportMixin, FederatedRegressorMixin, BaseEstimator
):
    """Sparse linear regression: one-shot support recovery, then a federated refit.

    Round 1 is :class:`FederatedSupportRecovery` (Barik & Honorio's
    Algorithm 1).  Round 2 refits ordinary least squares on the recovered
    support ``S`` (``s = |S|`` features) from sufficient statistics: the
    server broadcasts ``S`` and every answering client sends the upper
    triangle of its Gram matrix ``X_S^T X_S`` and ``X_S^T y``; round 3
    broadcasts the coefficients::

        round 1:  S = FederatedSupportRecovery(...).support_
        round 2:  coef_S = argmin_b  sum_{i answered} || y_i - c_i - X_{i,S} b ||^2
                  (c_i: the node's intercept, the client's own means when
                  per_node_intercept, one shared intercept otherwise)
        round 3:  every node receives coef_S (and the shared intercept)

    Bytes (``header_bytes`` per message, float64 values):

    * round 1: ``g1 * (ceil(d / 8) + header)`` (the support bits);
    * round 2: ``n_nodes * (ceil(d / 8) + header)`` for the support
      broadcast, plus ``g2 * (8 m (m + 1) / 2 + 8 m + header)`` from the
      answering clients, ``m = s`` (with per-node intercepts the clients
      centre their data first; without intercept) or ``m = s + 1`` (a shared
      intercept: the statistics of ``[1, X_S]``);
    * round 3: ``n_nodes * (8 s + header)``, plus 8 bytes each for a shared
      intercept.

    With per-node intercepts each node computes its own intercept
    ``mean(y_i) - mean(X_{i,S}) coef_S`` from the broadcast coefficients;
    nothing more is sent.

    Parameters
    ----------
    alpha : float, array-like of shape (n_nodes,) or "auto", default="auto"
        The selection's lambda; see :class:`FederatedSupportRecovery`.
    threshold : float in (0, 1], default=0.5
        The server's vote threshold (median rule).
    fit_intercept : bool, default=True
        Whether to fit intercepts (and centre the data of each client in the
        selection round).
    per_node_intercept : bool, default=True
        With ``fit_intercept``: one intercept per node (heterogeneous
        nodes) rather than one shared intercept.
    auto_z : float, default=None
        Multiplier of the ``alpha="auto"`` rule; None means ``sqrt(2 log d)``.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        With per-node intercepts, a node never seen in fit is predicted with
        the mean of the nodes' intercepts; ``"error"`` raises.
    network : SimulatedNetwork, default=None
        Faults are drawn for rounds 1 and 2; dropped and straggling clients
        neither vote nor contribute to the refit.  Rogue clients corrupt
        both their bits and their statistics
        (:meth:`~skfed.network.NetworkSimulation.corrupt_values`): the
        vote is robust to fewer than half rogue clients, the refit (a sum of
        statistics) is not.
    privacy : None, default=None
        Must be None: the refit round sends sufficient statistics
        (``X_S^T X_S``, ``X_S^T y``) whose sensitivity is unbounded without a
        bound on the features and targets, so no noise scale makes them
        private; a :class:`~skfed.privacy.DifferentialPrivacy` is refused
        with an error.  Use :class:`FederatedSupportRecovery` with
        ``privacy`` (randomized response on the vote) and refit locally.
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Number of threads that run the client passes.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Shared coefficients, zero outside ``support_``.
    intercept_ : ndarray of shape (n_nodes,) or float
        Per-node intercepts (``per_node_intercept``), else one float (0.0
        without ``fit_intercept``).
    support_, votes_, vote_fraction_, client_supports_, answered_, rogue_, n_answered_
        As in :class:`FederatedSupportRecovery` (round 1).
    refit_answered_ : ndarray of shape (n_nodes,), dtype=bool
        Clients whose statistics arrived in round 2.
    nodes_ : ndarray of shape (n_nodes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    communication_ : CommunicationLog
    join_communication_ : CommunicationLog
        What :meth:`add_nodes` sent to the new nodes; only after a join.
    n_bytes_sent_ : int
        Bytes of the fit and of every join.
    n_messages_ : int
    bytes_per_round_ : ndarray of shape (3,)

    See Also
    --------
    FederatedSupportRecovery : the selection round alone.
    sklearn.linear_model.Lasso : the centralized lasso on pooled data.

    References
    ----------
    A. Barik and J. Honorio, "Exact Support Recovery in Federated Regression
    with One-shot Communication", arXiv:2006.12583, 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.support import FederatedSparseLinearRegression
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat(np.arange(10), 200)
    >>> X = rng.normal(size=(2000, 50))
    >>> y = X[:, 3] - 2 * X[:, 17] + groups + 0.1 * rng.normal(size=2000)
    >>> reg = FederatedSparseLinearRegression().fit(X, y, groups=groups)
    >>> np.flatnonzero(reg.support_), np.round(reg.coef_[[3, 17]], 2)
    (array([ 3, 17]), array([ 1., -2.]))
    >>> round(reg.score(X, y, groups=groups), 3)
    0.999
    """

    _parameter_constraints = {
        **_OneShotSupportMixin._support_parameter_constraints,
        "per_node_intercept": ["boolean"],
    }

    def __init__(
        self,
        alpha="auto",
        *,
        threshold=0.5,
        fit_intercept=True,
        per_node_intercept=True,
        auto_z=None,
        group_column=None,
        handle_unknown="global",
        network=None,
        privacy=None,
        random_state=None,
        n_jobs=None,
    ):
        self.alpha = alpha
        self.threshold = threshold
        self.fit_intercept = fit_intercept
        self.per_node_intercept = per_node_intercept
        self.auto_z = auto_z
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.privacy = privacy
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, groups=None, sample_weight=None):
        """Recover the support (round 1), then refit on it (rounds 2 and 3).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : FederatedSparseLinearRegression
        """
        self._validate_params()
        if self.privacy is not None:
            raise ValueError(
                "FederatedSparseLinearRegression does not support privacy=: its refit "
                "round sends sufficient statistics (X_S^T X_S, X_S^T y) whose "
                "sensitivity is unbounded, so no noise makes them differentially "
                "private. Use FederatedSupportRecovery(privacy=...) for a private "
                "support and refit on each node."
            )
        X, y, w, layout, sim = self._recover_support(X, y, groups, sample_weight)
        n_nodes, d = layout.n_nodes, X.shape[1]
        support = np.flatnonzero(self.support_)
        s = len(support)
        per_node = self.fit_intercept and self.per_node_intercept
        shared = self.fit_intercept and not self.per_node_intercept
        m = s + 1 if shared else s
        all_nodes = np.arange(n_nodes, dtype=np.intp)

        # Round 2: the server broadcasts S; answering clients send statistics.
        counter = sim.counter
        counter.broadcast_from_server(
            all_nodes, np.full(n_nodes, payload_bytes(n_bits=d), dtype=np.int64)
        )
        active, work = sim.draw_round()
        answered = active & (work >= 1.0)
        senders = np.flatnonzero(answered).astype(np.intp)
        iu = np.triu_indices(m)
        means, total = _refit_round(X, y, w, layout, support, senders, sim, per_node, shared)
        gram = np.zeros((m, m))
        gram[iu] = total[: len(iu[0])]
        gram = gram + np.triu(gram, 1).T
        rhs = total[len(iu[0]) :]
        n_values = len(iu[0]) + m
        counter.gather_to_server(
            senders,
            np.full(len(senders), payload_bytes(n_float64=n_values), dtype=np.int64),
        )
        counter.next_round()

        if len(senders) == 0:
            warnings.warn(
                "No client answered the refit round, so coef_ is zero.",
                UserWarning,
                stacklevel=2,
            )
            solution = np.zeros(m)
        elif m:
            solution = linalg.lstsq(gram, rhs, cond=None)[0]
        else:
            solution = np.zeros(0)

        # Round 3: the server broadcasts the coefficients.
        counter.broadcast_from_server(
            all_nodes, np.full(n_nodes, payload_bytes(n_float64=m), dtype=np.int64)
        )
        counter.next_round()

        coef_S = solution[1:] if shared else solution
        self.coef_ = np.zeros(d)
        self.coef_[support] = coef_S
        if per_node:
            self.intercept_ = means[:, 0] - means[:, 1:] @ coef_S
        elif shared:
            self.intercept_ = float(solution[0])
        else:
            self.intercept_ = 0.0
        self.refit_answered_ = answered
        self._set_communication(sim)
        return self

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Add nodes after the fit: each receives the model and sets its intercept.

        The shared model (``support_``, ``coef_``) was refitted on the
        fitted clients' statistics, so a new node does not vote (its vote
        could change the support, and the coefficients would then need a
        refit by every client): the server sends it the support bits and
        the coefficients, as in round 3 (``ceil(d / 8) + header`` and ``8 m
        + header`` bytes, ``m = s`` plus 1 for a shared intercept), and with
        per-node intercepts it computes its own, ``mean(y) - mean(X_S)
        coef_S`` (weighted), from its rows.  A node dropped by the network
        in that round receives it in the next one.  The fitted nodes are
        unchanged; their votes and statistics are not sent again.  New
        nodes are not in ``answered_`` / ``refit_answered_``
        (``client_supports_`` rows are all False).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every row; every id must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : FederatedSparseLinearRegression

        Examples
        --------
        >>> import numpy as np
        >>> from skfed.support import FederatedSparseLinearRegression
        >>> rng = np.random.RandomState(0)
        >>> groups = np.repeat(np.arange(12), 100)
        >>> X = rng.normal(size=(1200, 20))
        >>> y = X[:, 3] - 2 * X[:, 7] + groups + 0.1 * rng.normal(size=1200)
        >>> old = groups < 10
        >>> reg = FederatedSparseLinearRegression().fit(X[old], y[old], groups=groups[old])
        >>> reg = reg.add_nodes(X[~old][::10], y[~old][::10], groups=groups[~old][::10])
        >>> bool(reg.score(X[~old], y[~old], groups=groups[~old]) > 0.95)
        True
        """
        X, y, w, new_labels, layout = self._validate_join_data(
            X, y, groups, sample_weight, accept_sparse=["csr", "csc"], y_numeric=True,
        )
        w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        n_old, n_new, d = len(self.nodes_), layout.n_nodes, X.shape[1]
        node_weight = np.bincount(layout.codes, weights=w, minlength=n_new)
        per_node = self.fit_intercept and self.per_node_intercept
        if per_node and np.any(node_weight <= 0):
            bad = new_labels[np.flatnonzero(node_weight <= 0)[0]]
            raise ValueError(
                f"Node {bad!r} has no sample with a positive sample_weight; it needs "
                "one to compute its intercept."
            )
        support = np.flatnonzero(self.support_)
        m = len(support) + int(self.fit_intercept and not self.per_node_intercept)
        network = resolve_network(self.network)
        rng = check_random_state(self.random_state)
        seed = [int(rng.randint(np.iinfo(np.int32).max)), n_old, 7919]
        sim = network.start(n_old + n_new, server=True, random_state=np.random.RandomState(seed),
                            node_labels=np.concatenate([self.nodes_, new_labels]))
        rogue_new = np.random.RandomState(seed[:2] + [7907]).uniform(size=n_new) < (
            network.rogue_fraction)
        waiting = np.arange(n_old, n_old + n_new, dtype=np.intp)
        while len(waiting):
            active, _ = sim.draw_round()
            arrived = waiting[active[waiting]]
            sim.counter.broadcast_from_server(
                arrived, np.full(len(arrived), payload_bytes(n_bits=d), dtype=np.int64))
            sim.counter.broadcast_from_server(
                arrived, np.full(len(arrived), payload_bytes(n_float64=m), dtype=np.int64))
            sim.counter.next_round()
            waiting = waiting[~active[waiting]]
        if per_node:
            XS = X[:, support].toarray() if sparse.issparse(X) else X[:, support]
            sums = np.zeros((n_new, len(support) + 1))
            np.add.at(sums, layout.codes,
                      np.column_stack([y, XS]).astype(np.float64) * w[:, None])
            means = sums / node_weight[:, None]
            intercepts = means[:, 0] - means[:, 1:] @ self.coef_[support]
            self.intercept_ = np.concatenate([self.intercept_, intercepts])
        self.client_supports_ = np.vstack([self.client_supports_, np.zeros((n_new, d), bool)])
        self.answered_ = np.concatenate([self.answered_, np.zeros(n_new, bool)])
        self.refit_answered_ = np.concatenate([self.refit_answered_, np.zeros(n_new, bool)])
        self.rogue_ = np.concatenate([self.rogue_, rogue_new])
        self._append_nodes(new_labels)
        self._record_join(sim.log(node_labels=self.nodes_))
        return self

    def predict(self, X, groups=None):
        """Predict with the shared coefficients and each sample's intercept.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (needed for per-node intercepts after a
            multi-node fit, unless ``group_column`` is set).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X, codes = self._validate_predict_data(X, groups, accept_sparse=["csr", "csc"])
        pred = np.asarray(X @ self.coef_, dtype=np.float64).ravel()
        if np.ndim(self.intercept_) == 0:
            return pred + self.intercept_
        intercepts = np.append(self.intercept_, self.intercept_.mean())
        return pred + intercepts[codes]
