"""One-shot federated exact support recovery for sparse linear regression.

Barik & Honorio, "Exact Support Recovery in Federated Regression with
One-shot Communication": every client selects features from its own rows
and sends its selection to the server as a packed bit vector, once; the
server votes.  With a fixed lambda this is the paper's Algorithm 1 (the
client's lasso for uncorrelated predictors, the median vote); the default
``alpha="auto"`` rule makes every client's selection a test with a known
null selection rate (an OLS t-test, or a marginal correlation test for
clients with fewer samples than features) and the server a binomial test
against that rate, so that recovery improves with every client.

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
from scipy import linalg, sparse, stats
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._base import (
    N_JOBS_CONSTRAINT,
    FederatedMixin,
    FederatedRegressorMixin,
    check_groups,
    check_node_weights,
    check_sample_weight,
)
from ._compat import HasMethods, Interval, StrOptions
from ._core._support_fast import (
    client_ols_csr,
    client_ols_dense,
    client_pass_csr,
    client_pass_dense,
    ols_work_shape,
    pack_bits,
    refit_statistics,
    tally_votes,
    unpack_bits,
)
from ._parallel import node_chunks
from .network import payload_bytes, resolve_network
from ._secure_noise import NoiseSource, record_noise_source
from .privacy import (
    DifferentialPrivacy,
    calibrate_randomized_response,
    check_privacy,
    describe,
    epsilon_spent,
)

__all__ = ["FederatedSupportRecovery", "FederatedSparseLinearRegression"]


# The defaults of the auto rule, chosen from the phase-transition evidence of
# benchmarks/support_phase_transition.py (see the user guide).
DEFAULT_AUTO_Z = 1.0
DEFAULT_ROGUE_TOLERANCE = 0.1
DEFAULT_FWER = 0.05
# A client uses the OLS t-test when its regression keeps at least this many
# residual degrees of freedom (n_i - d - fit_intercept), else the marginal
# correlation test: below it the t statistics are too noisy to beat the
# marginal test on independent designs (measured at d = 20, 2,000 clients).
OLS_MIN_DF = 3


def null_selection_rate(z):
    """The probability ``2 Phi(-z)`` that an auto-rule client selects a null feature.

    Both client tests of ``alpha="auto"`` (the OLS t-test and the marginal
    correlation test) compare their statistic with the critical value of
    the t distribution whose two-sided tail is the normal tail beyond
    ``z``, so a feature outside the support is selected with exactly this
    probability by every client, whatever its number of samples (Gaussian
    noise for the OLS test; a Gaussian feature independent of the target
    and of the other features for the marginal test).
    """
    return float(2.0 * stats.norm.sf(z))


def _critical_values(z, df):
    """Critical |t| of a two-sided test of level ``2 Phi(-z)`` with ``df`` dof.

    ``df`` may repeat (one entry per client): each distinct value is
    computed once.  Entries with ``df < 1`` get ``inf`` (nothing selected).
    """
    df = np.asarray(df, dtype=np.float64)
    out = np.full(df.shape, np.inf)
    ok = df >= 1
    if ok.any():
        values, inverse = np.unique(df[ok], return_inverse=True)
        tail = stats.norm.sf(z)
        out[ok] = stats.t.isf(tail, values)[inverse] if tail > 0 else np.inf
    return out


# Clients are processed this many at a time, so that the per-client
# statistics the Cython pass fills (four float64 arrays of shape
# (clients, d)) never take more than a few megabytes.
_CLIENT_BLOCK = 4096


def _client_chunk(X, y, sample_weight, offsets, lam, df, tcrit, ols, auto, center):
    """Client pass of a run of consecutive nodes; returns their bits.

    ``X``, ``y`` and ``sample_weight`` hold only these nodes' rows and
    ``offsets`` starts at 0, so a chunk ships only its own data to a joblib
    worker (thread, process or Dask worker) and its result comes back as
    return values, never through shared memory.  ``ols`` marks the nodes
    that run the OLS t-test (residual degrees of freedom ``df``, critical
    values ``tcrit``); a node whose Gram matrix is singular falls back to
    the marginal rule (``lam``) and is unmarked in the returned ``ols``.

    Returns ``(packed, ols)``.
    """
    n_nodes = len(offsets) - 1
    d = X.shape[1]
    packed = np.zeros((n_nodes, (d + 7) // 8), dtype=np.uint8)
    ols = np.array(ols, dtype=bool)
    block = min(n_nodes, _CLIENT_BLOCK)
    stats_ = [np.zeros((block, d)) for _ in range(4)]
    work = np.zeros(ols_work_shape(d)) if ols.any() else None
    is_sparse = sparse.issparse(X)
    for first in range(0, n_nodes, block):
        last = min(first + block, n_nodes)
        lo, hi = offsets[first], offsets[last]
        Xb, yb, wb = X[lo:hi], y[lo:hi], sample_weight[lo:hi]
        off = np.ascontiguousarray(offsets[first : last + 1] - lo)
        out = [a[: last - first] for a in stats_] + [packed[first:last]]
        if is_sparse:
            csr = (Xb.data, Xb.indices.astype(np.intp, copy=False),
                   Xb.indptr.astype(np.intp, copy=False), d)
        todo = ols[first:last]
        if todo.any():
            solved = np.zeros(last - first, dtype=np.uint8)
            nodes = np.flatnonzero(todo).astype(np.intp)
            args = (off, nodes, df[first:last], tcrit[first:last], center, *out, solved, work)
            if is_sparse:
                client_ols_csr(*csr, yb, wb, *args)
            else:
                client_ols_dense(Xb, yb, wb, *args)
            todo &= solved.astype(bool)
        nodes = np.flatnonzero(~todo).astype(np.intp)
        if len(nodes):
            args = (off, nodes, lam[first:last], auto, center, *out, np.zeros((1, d)))
            if is_sparse:
                client_pass_csr(*csr, yb, wb, *args)
            else:
                client_pass_dense(Xb, yb, wb, *args)
    return packed, ols


def _client_pass(X, y, sample_weight, offsets, lam, z, auto, center, n_jobs):
    """Run the client pass of every node (joblib over chunks of nodes).

    ``lam`` holds each client's lambda (a fixed-lambda rule); with ``auto``
    it is ignored and every client runs the auto rule at multiplier ``z``:
    the OLS t-test when it has at least ``OLS_MIN_DF`` residual degrees of
    freedom, else the marginal correlation test, both at the null selection
    rate :func:`null_selection_rate` ``(z)``.  The degrees of freedom count
    the client's samples of positive weight.

    Returns ``(packed, ols)`` with one row per node (``packed``: its bits;
    ``ols``: the nodes that used the OLS t-test); every node's row depends
    on its own data only, so the result does not depend on ``n_jobs`` or on
    the joblib backend.
    """
    n_nodes = len(offsets) - 1
    d = X.shape[1]
    tcrit = np.zeros(n_nodes)
    df_ols = np.zeros(n_nodes)
    ols = np.zeros(n_nodes, dtype=bool)
    if auto:
        n_positive = np.add.reduceat((sample_weight > 0).astype(np.int64), offsets[:-1])
        df_ols = n_positive - d - int(center)
        ols = df_ols >= OLS_MIN_DF
        tcrit = _critical_values(z, np.where(ols, df_ols, 0))
        df = n_positive - 1 - int(center)
        t = _critical_values(z, df)
        # The marginal test's critical correlation: |r| > t / sqrt(df + t^2).
        with np.errstate(invalid="ignore"):
            lam = np.where(np.isfinite(t), t / np.sqrt(np.maximum(df, 1) + t * t), 1.0)
    bounds = node_chunks(n_nodes, n_jobs)

    def chunk_args(first, last):
        lo, hi = offsets[first], offsets[last + 1]
        return (
            X[lo:hi], y[lo:hi], sample_weight[lo:hi],
            np.ascontiguousarray(offsets[first : last + 2] - lo),
            np.ascontiguousarray(lam[first : last + 1], dtype=np.float64),
            np.ascontiguousarray(df_ols[first : last + 1], dtype=np.float64),
            np.ascontiguousarray(tcrit[first : last + 1]),
            ols[first : last + 1], auto, center,
        )

    if len(bounds) <= 1:
        return _client_chunk(*chunk_args(0, n_nodes - 1))
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


def _balanced_reports(n_nodes, d, k, random_state):
    """The ``k`` features each of ``n_nodes`` clients reports: every feature
    reported by ``floor`` or ``ceil(n_nodes k / d)`` clients.

    Clients in a random order take the features of a random permutation
    cyclically, ``k`` consecutive ones each (distinct, as ``k <= d``); public
    randomness from ``random_state``.  Rows are sorted.
    """
    rng = np.random.default_rng(
        check_random_state(random_state).randint(np.iinfo(np.int32).max)
    )
    features = rng.permutation(d)
    position = rng.permutation(n_nodes)[:, None] * k + np.arange(k)
    return np.sort(features[position % d], axis=1).astype(np.intp)


def _unpack(packed, n_features):
    bits = np.zeros((packed.shape[0], n_features), dtype=np.uint8)
    unpack_bits(np.ascontiguousarray(packed), bits)
    return bits.astype(bool)


class _OneShotSupportMixin(FederatedMixin):
    """Round 1 of the protocol, shared by the selector and the regressor."""

    _support_parameter_constraints = {
        "alpha": [Interval(numbers.Real, 0, None, closed="left"), "array-like",
                  StrOptions({"auto"})],
        "threshold": [Interval(numbers.Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "fit_intercept": ["boolean"],
        "auto_z": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "rogue_tolerance": [None, Interval(numbers.Real, 0, 0.5, closed="left")],
        "fwer": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "n_reported": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        **FederatedMixin._federated_parameter_constraints,
        "network": [None, HasMethods(["start"])],
        "privacy": [None, DifferentialPrivacy],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
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
        if self.auto_z is not None:
            raise ValueError(
                f"auto_z={self.auto_z!r} is the multiplier of the alpha='auto' rule; with "
                f"alpha={self.alpha!r} the clients use that lambda and auto_z would be "
                "ignored. Leave auto_z=None or set alpha='auto'."
            )
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

    def _client_z(self):
        """The auto rule's multiplier (``auto_z``, or its default)."""
        return DEFAULT_AUTO_Z if self.auto_z is None else float(self.auto_z)

    def _vote_rule(self, auto, private):
        """The server's rule: ``(test, base, beta, fwer)``.

        ``test``: whether the server runs the binomial test (else it keeps
        the features whose vote fraction reaches ``base``); ``base``: the
        vote fraction a feature outside the support reaches from honest
        clients (the auto rule's null selection rate) or the fixed
        threshold; ``beta``: the rogue fraction the test tolerates.
        Parameters that the rule would not use are refused.
        """
        auto_threshold = isinstance(self.threshold, str)
        test = private or (auto_threshold and auto)
        if auto_threshold:
            base = null_selection_rate(self._client_z()) if auto else 0.5
        else:
            base = float(self.threshold)
        with_beta = auto_threshold and auto
        if self.rogue_tolerance is not None and not with_beta:
            raise ValueError(
                f"rogue_tolerance={self.rogue_tolerance!r} is used by the test of "
                "threshold='auto' with alpha='auto' only (a fixed threshold is its own "
                "margin against rogue clients); leave it None here."
            )
        if self.fwer is not None and not test:
            raise ValueError(
                f"fwer={self.fwer!r} is the level of the server's test, which runs with "
                "threshold='auto' and alpha='auto', or under privacy; with "
                f"threshold={self.threshold!r}, alpha={self.alpha!r} and no privacy the "
                "server compares vote fractions with the threshold. Leave fwer=None here."
            )
        beta = 0.0
        if with_beta:
            beta = DEFAULT_ROGUE_TOLERANCE if self.rogue_tolerance is None else float(
                self.rogue_tolerance)
        fwer = DEFAULT_FWER if self.fwer is None else float(self.fwer)
        return test, base, beta, fwer

    def _n_reported(self, d, spec):
        """How many features every client reports (``n_reported``)."""
        if self.n_reported != "auto":
            k = int(self.n_reported)
            if k > d:
                raise ValueError(
                    f"n_reported={k} exceeds the number of features ({d})."
                )
            return k
        if spec is None or math.isinf(spec.budget()[0]):
            return d
        # Each report of a bit flipped with probability p carries (1 - 2 p)^2
        # of the information of a clean bit, and k reports share the budget
        # (p = 1 / (1 + exp(epsilon / k)) at delta = 0): maximize
        # k tanh(epsilon / (2 k))^2.
        epsilon = spec.budget()[0]
        ks = np.arange(1, d + 1)
        return int(ks[np.argmax(ks * np.tanh(epsilon / (2.0 * ks)) ** 2)])

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
        # sample_weight is non-negative (checked by _validate_fit_data).
        weights = (np.ones(X.shape[0], dtype=dtype) if sample_weight is None
                   else np.asarray(sample_weight, dtype=dtype))
        check_node_weights(self, layout.codes, sample_weight,
                           why=" to compute its statistics")
        lam, auto = self._client_lambdas(n_nodes)
        spec = check_privacy(self.privacy, type(self).__name__)
        self._vote_rule(auto, spec is not None)  # refuses unused parameters early
        k = self._n_reported(d, spec)
        short = self._short_clients(
            np.bincount(layout.codes, weights=weights > 0, minlength=n_nodes), auto,
            spec is not None,
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
        packed, ols = _client_pass(
            X_nodes, y_nodes, w_nodes, layout.offsets, lam, self._client_z(), auto,
            bool(self.fit_intercept), self.n_jobs,
        )
        # A client too small for its statistics selects nothing (under
        # privacy it still sends, see _short_clients).
        packed[short] = 0
        self.ols_clients_ = ols & ~short

        # Round 1 over the simulated network: who answers, what they send.
        network = resolve_network(self.network)
        sim = network.start(n_nodes, server=True, random_state=self.random_state,
                            node_labels=self.nodes_)
        active, work = sim.draw_round()
        # A straggler has not finished its pass when the one-shot deadline
        # expires: like a dropped client, it does not vote.
        answered = active & (work >= 1.0)
        if spec is None:
            answered &= ~short
        reported = None
        if k < d:
            # Public randomness (random_state): which k features each client
            # reports; the server draws the same assignment.
            reported = _balanced_reports(n_nodes, d, k, self.random_state)
        self._server_vote(packed, answered, sim, d, auto=auto, spec=spec, reported=reported)
        return X_nodes, y_nodes, w_nodes, layout, sim

    def _short_clients(self, n_positive, auto, private):
        """Clients with too few samples to compute their statistics.

        Centring (``fit_intercept=True``) needs two samples of positive
        weight, and the ``alpha="auto"`` tests need one more (one residual
        degree of freedom).  Without privacy such a client abstains from the
        vote (``answered_`` is False for it) with a warning naming it.
        Under privacy it does not abstain: whether a client answers must not
        depend on its data, so it sends an all-zero vector through the same
        randomized response as every other client.
        """
        need = (2 + int(bool(self.fit_intercept))) if auto else (
            2 if self.fit_intercept else 1)
        short = np.asarray(n_positive) < need
        if short.any():
            bad = self.nodes_[short].tolist()
            shown = ", ".join(repr(v) for v in bad[:5]) + (", ..." if len(bad) > 5 else "")
            what = "alpha='auto' (a residual degree of freedom)" if auto else (
                "fit_intercept=True (centring)")
            then = (
                "under privacy they still send an all-zero vector through randomized "
                "response, so that answering does not depend on a client's data"
                if private else "they abstain from the vote (answered_ is False for them)"
            )
            warnings.warn(
                f"{len(bad)} client(s) of {type(self).__name__} have fewer than {need} "
                f"samples with a positive sample_weight, too few for {what}; {then}: "
                f"node(s) {shown}.",
                UserWarning,
                stacklevel=4,
            )
        return short

    def _abstainers(self, n_positive, auto):
        """The clients that abstain without privacy (see :meth:`_short_clients`)."""
        return self._short_clients(n_positive, auto, False)

    def _server_vote(self, packed, answered, sim, d, *, auto=True, spec=None,
                     reported=None, held=None):
        """Round 1 at the server: receive the messages, count them, vote.

        ``packed`` holds every client's honest bits (one row per node).
        Each client in ``answered`` sends the bits of its ``reported``
        features (all ``d`` when None): under ``spec`` (privacy) they go
        through randomized response first, then a rogue client corrupts its
        (randomized) message; the messages are counted in the byte log and
        tallied, and the server applies its rule (:meth:`_vote_rule`).
        Shared by the simulated fit, the Flower server and
        :meth:`add_nodes`: with ``held`` (what the server holds of the
        fitted clients: their received bits, counts, answers, reported
        features and privacy uses) the rows of ``packed``, ``answered`` and
        ``reported`` are the new clients, nodes ``n_old:`` of ``sim``, and
        their counts are added to the held ones before the test.
        """
        n_old = 0 if held is None else len(held["answered"])
        local = np.flatnonzero(answered).astype(np.intp)
        senders = local + n_old
        g = len(senders)
        k = d if reported is None else reported.shape[1]
        test, base, beta, fwer = self._vote_rule(auto, spec is not None)
        p = 0.0
        for stale in ("privacy_spent_", "privacy_", "privacy_guarantee_void_"):
            if hasattr(self, stale):
                delattr(self, stale)
        if spec is not None:
            source = NoiseSource.for_fit(spec, type(self).__name__)
            record_noise_source(self, source)
            epsilon, delta = spec.budget()
            mechanism = calibrate_randomized_response(epsilon, delta, k)
            p = mechanism.flip_probability
            uses = np.where(answered, k, 0)
            if held is not None:
                uses = np.concatenate([held["uses"], uses])
            self.privacy_spent_ = epsilon_spent(mechanism, uses, delta)
            self.privacy_ = describe(
                mechanism, uses=uses, delta=delta,
                composition=(
                    f"{k} randomized-response bits per answering client, one shot"
                    + ("" if k == d else f" ({k} of the {d} features, chosen by public "
                       "randomness)")
                ),
                flip_probability=p, level="client (local DP)", n_reported=k,
                noise_source=source.describe(),
                public=(
                    "which features each client reports (random_state) and which "
                    "clients answer (the network); every answering client randomizes, "
                    "a rogue corrupts its randomized bits (post-processing), and a "
                    "client with too few samples sends randomized zeros instead of "
                    "abstaining"
                ),
            )
        rogue = sim.rogue[senders] if g else np.zeros(0, dtype=bool)
        simple = reported is None and p == 0.0 and not rogue.any()
        if simple:
            votes = np.zeros(d, dtype=np.int64)
            tally_votes(packed, local, votes)
            n_reports = np.full(d, g, dtype=np.int64)
            client_supports = _unpack(packed, d)
            client_supports[~answered] = False
        else:
            full = _unpack(packed[local], d)
            rows = np.arange(g)[:, None]
            messages = full if reported is None else full[rows, reported[local]]
            if p > 0.0 and g:
                # Randomized response: flips from the secure noise source
                # (OS CSPRNG, exact Bernoulli), never from random_state.
                messages = messages ^ source.bernoulli(p, messages.shape)
            if rogue.any():
                messages[rogue] = sim.corrupt_bit_rows(messages[rogue], senders[rogue])
            client_supports = np.zeros((len(answered), d), dtype=bool)
            if reported is None:
                client_supports[local] = messages
                votes = messages.sum(axis=0, dtype=np.int64)
                n_reports = np.full(d, g, dtype=np.int64)
            else:
                idx = reported[local]
                client_supports[local[:, None], idx] = messages
                votes = np.bincount(idx[messages], minlength=d).astype(np.int64)
                n_reports = np.bincount(idx.ravel(), minlength=d).astype(np.int64)
        sim.counter.gather_to_server(
            senders, np.full(g, payload_bytes(n_bits=k), dtype=np.int64)
        )
        sim.counter.next_round()
        if held is not None:
            votes = votes + held["votes"]
            n_reports = n_reports + held["n_reports"]
            client_supports = np.vstack([held["client_supports"], client_supports])
            answered = np.concatenate([held["answered"], answered])
            if reported is not None:
                reported = np.vstack([held["reported"], reported])
            g = int(answered.sum())

        if g == 0:
            warnings.warn(
                "No client answered (all were dropped, straggling or abstained), so no "
                "feature was selected.",
                UserWarning,
                stacklevel=4,
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            fraction = np.where(n_reports > 0, votes / np.maximum(n_reports, 1), 0.0)
        debiased = (fraction - p) / (1.0 - 2.0 * p)
        if test:
            # The highest rate at which a feature outside the support is
            # reported as 1: honest clients select it at rate ``base``,
            # randomized response turns that into p + (1 - 2 p) base, and up
            # to a fraction beta of rogue clients may send anything.
            reference = (1.0 - beta) * (p + (1.0 - 2.0 * p) * base) + beta
            pvalues = np.where(
                n_reports > 0, stats.binom.sf(votes - 1, n_reports, reference), 1.0
            )
            support = pvalues <= fwer / d
            self.pvalues_ = pvalues
            self.reference_rate_ = reference
            best = reference ** max(int(n_reports.max()) if g else 0, 0)
            if g and best > fwer / d:
                warnings.warn(
                    f"Too few reports for any feature to be significant: even a feature "
                    f"that all of its {int(n_reports.max())} reports select has p-value "
                    f"{best:.2g} > fwer / n_features = {fwer / d:.2g}, so no feature was "
                    f"selected. At least "
                    f"{math.ceil(math.log(fwer / d) / math.log(reference))} reports per "
                    "feature are needed (more clients, or more features reported per "
                    "client), or a larger fwer.",
                    UserWarning,
                    stacklevel=4,
                )
            if auto and d >= 4 and support.sum() > d / 2:
                # The median feature is significantly above the highest rate
                # of a feature outside the support: the test's premise (most
                # features are selected at the null rate) does not hold.
                warnings.warn(
                    f"{int(support.sum())} of the {d} features are significant: the "
                    "server's test assumes a sparse model whose features outside the "
                    "support each client selects at the null rate. Either the model is "
                    "not sparse, or features outside the support are correlated with "
                    "it and clients with fewer than n_features + 4 samples (which test "
                    "each feature's marginal correlation, shared by such features) "
                    "select them more often; clients with more samples test each "
                    "feature given the others. See 'When not to use it' in the user "
                    "guide.",
                    UserWarning,
                    stacklevel=4,
                )
        else:
            support = (fraction >= base) & (n_reports > 0)
            self.pvalues_ = None
            self.reference_rate_ = base
        self.support_ = support
        self.votes_ = votes
        self.n_reports_ = n_reports
        self.vote_fraction_ = fraction
        self.debiased_fraction_ = debiased
        self.client_supports_ = client_supports
        self.answered_ = answered
        self.rogue_ = sim.rogue.copy()
        self.n_answered_ = g
        if reported is not None:
            self.reported_features_ = reported
        elif hasattr(self, "reported_features_"):
            del self.reported_features_

    # --------------------------------------------------------- joining nodes
    def _join_vote(self, X, y, sample_weight, layout, new_labels):
        """The new clients' round 1: their passes, their votes added to the counts.

        The server keeps what it received from the fitted clients
        (``client_supports_``) and adds the bit vectors of the new clients
        that answer; the vote rule of the fit (:meth:`_server_vote`) is then
        applied to the counts over all answering clients.  Only the new
        clients' messages travel: the join's log counts them.
        """
        n_old, n_new = len(self.nodes_), layout.n_nodes
        d = X.shape[1]
        dtype = X.dtype
        weights = check_sample_weight(sample_weight, X, dtype=dtype)
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
        spec = check_privacy(self.privacy, type(self).__name__)
        labels, self.nodes_ = self.nodes_, new_labels  # name the new clients in warnings
        try:
            short = self._short_clients(
                np.bincount(layout.codes, weights=weights > 0, minlength=n_new), auto,
                spec is not None,
            )
        finally:
            self.nodes_ = labels
        if sparse.issparse(X):
            X = sparse.csr_matrix(X)
        X_nodes = layout.sort(X)
        y_nodes = np.ascontiguousarray(np.asarray(y)[layout.order], dtype=dtype)
        w_nodes = np.ascontiguousarray(weights[layout.order])
        packed_new, ols = _client_pass(
            X_nodes, y_nodes, w_nodes, layout.offsets, lam, self._client_z(), auto,
            bool(self.fit_intercept), self.n_jobs,
        )
        packed_new[short] = 0
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
        answered_new = (active & (work >= 1.0))[n_old:]
        if spec is None:
            answered_new &= ~short
        # The new clients report as many features as the fitted ones, chosen
        # by public randomness (random_state and the number of fitted nodes).
        held_reported = getattr(self, "reported_features_", None)
        reported = None
        if held_reported is not None:
            reported = _balanced_reports(n_new, d, held_reported.shape[1],
                                         np.random.RandomState(seed[:2] + [7901]))
        held = {
            "votes": self.votes_, "n_reports": self.n_reports_,
            "client_supports": self.client_supports_, "answered": self.answered_,
            "reported": held_reported,
            "uses": (self.privacy_["uses"] if getattr(self, "privacy_", None) is not None
                     else np.zeros(n_old, dtype=np.int64)),
        }
        ols_old = self.ols_clients_
        self._server_vote(packed_new, answered_new, sim, d, auto=auto, spec=spec,
                          reported=reported, held=held)
        self.ols_clients_ = np.concatenate([ols_old, ols & ~short])
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

    Barik & Honorio's one-shot protocol.  Every client (node) selects
    features from its own rows and sends its selection to the server, once,
    as a packed bit vector; the server keeps the features that enough of
    the answering clients selected.

    With a fixed ``alpha`` (the paper's lambda) this is the paper's
    Algorithm 1: the client's lasso for uncorrelated predictors and, by
    default, the median vote::

        client i, feature j (means over the client's n_i samples):
            sigma_ij = mean_t (x_tj)^2,     alpha_ij = mean_t y_t x_tj
            w_ij = sign(alpha_ij) max(0, |alpha_ij| - lambda_i) / sigma_ij
            S_i  = {j : w_ij != 0} = {j : |alpha_ij| > lambda_i}
        server, over the g clients that answered:
            R_j = (1/g) sum_i [j in S_i],   S = {j : R_j >= threshold}

    The default ``alpha="auto"`` rule is chosen for the vote.  Each client
    tests every feature at the same, known null selection rate
    ``q0 = 2 Phi(-auto_z)`` (0.317 at the default ``auto_z=1``):

    * a client with at least ``d + 1 + 3`` samples (3 residual degrees of
      freedom; ``d + 3`` without intercept) fits ordinary least squares on
      all features and selects ``j`` when ``|t_ij| > t_{df}(1 - q0 / 2)``,
      the t-test of its coefficient (conditional on the other features, so
      a feature correlated with the support but outside it is selected at
      rate ``q0`` too);
    * a smaller client selects ``j`` when its sample correlation passes the
      t-test of ``corr(x_j, y) = 0`` at level ``q0`` (``df = n_i - 2``):
      the lasso for uncorrelated predictors with the per-feature lambda
      ``r_i sqrt(sigma_ij var_i(y))``.

    The server then runs, for every feature, a one-sided binomial test of
    its votes against the highest rate a feature outside the support can
    reach, ``reference = (1 - beta) q0 + beta`` with ``beta =
    rogue_tolerance`` (a fraction ``beta`` of rogue clients may send
    anything), at family-wise level ``fwer`` over the ``d`` features
    (Bonferroni)::

        S = {j : P(Binomial(g, reference) >= votes_j) <= fwer / d}

    so a feature that clients detect at any rate above ``reference`` is
    recovered once there are enough clients, and more clients never hurt:
    the number of clients needed is ``O(log(d / fwer) / KL(q1 || reference))``
    for a feature detected at rate ``q1``, the paper's ``O(log d)``.

    Each answering client sends one message of ``ceil(k / 8)`` bytes plus
    the header, ``k = n_reported`` (all ``d`` features by default); nothing
    else is communicated.

    Parameters
    ----------
    alpha : float, array-like of shape (n_nodes,) or "auto", default="auto"
        The paper's lambda.  A number is used by every client; an array
        gives one value per client, in the order of ``nodes_`` (the sorted
        node labels).  ``"auto"``: the per-client tests described above.
    threshold : float in (0, 1] or "auto", default="auto"
        The server's rule.  ``"auto"``: with ``alpha="auto"`` the binomial
        test against the null selection rate; with a fixed ``alpha``, whose
        null selection rate is unknown, the paper's median rule (0.5).  A
        number: keep the features that at least this fraction of the
        reporting clients selected (0.5 is the median rule, robust to
        fewer than half of the clients sending the complement of their
        support when honest clients are never wrong).  Under ``privacy`` a
        fixed threshold is tested too: a feature is kept only when its
        randomized votes are significantly above the threshold.
    fit_intercept : bool, default=True
        Whether every client first centres its own features and target
        (weighted means over its samples).  The paper's model has zero-mean
        data and no centring (``fit_intercept=False`` with a fixed ``alpha``
        is exactly its Algorithm 1).
    auto_z : float, default=None
        The client tests' level, in standard deviations of the normal
        distribution: null selection rate ``2 Phi(-auto_z)``.  None means
        1.0 (chosen on the phase transitions of
        ``benchmarks/support_phase_transition.py``: a low client threshold
        lets every client contribute, the server's test removes the noise).
        Only with ``alpha="auto"`` (refused otherwise).  Must be positive:
        at 0 every client would select every feature.
    rogue_tolerance : float in [0, 0.5), default=None
        The fraction ``beta`` of answering clients that may be rogue
        (sending anything) without a false positive beyond ``fwer``.  None
        means 0.1.  A larger value protects against more rogue clients but
        needs clients to detect a support feature at a higher rate,
        ``(1 - beta) q1 > q0 + beta (1 - q0)``; with ``auto_z=1``,
        ``rogue_tolerance=0.3`` keeps the features detected at rate 0.75 or
        more.  Only with ``alpha="auto"`` and ``threshold="auto"``.
    fwer : float in (0, 1), default=None
        Family-wise error rate of the server's test over the ``d``
        features.  None means 0.05.  Used by the binomial test only
        (``alpha="auto"`` with ``threshold="auto"``, or under privacy).
    n_reported : int or "auto", default="auto"
        Number of features each client reports, chosen at random for each
        client by public randomness (``random_state``; the server knows the
        assignment, so only the bits are sent).  ``"auto"``: all of them
        without privacy; under privacy the ``k`` that maximizes
        ``k tanh(epsilon / (2 k))^2``, the information the server receives
        when a budget ``epsilon`` is split over ``k`` randomized bits
        (``k = 1`` up to epsilon 3).
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
        message or random bits (``rogue_behavior``).
    privacy : DifferentialPrivacy, default=None
        Local differential privacy of every client's message (client
        level: with respect to its whole data set) by randomized response:
        each of its ``k`` reported bits is flipped with the probability
        ``p`` that makes the message ``(epsilon, delta)``-DP (``p = 1 / (1 +
        exp(epsilon / k))`` at ``delta = 0``; the accountant allows a smaller
        ``p`` for ``delta > 0``).  Every answering client randomizes, a
        rogue client corrupts its randomized bits (post-processing: it
        spends the same budget), and a client with too few samples sends
        randomized zeros rather than abstaining, so whether a client
        answers does not depend on its data.  The server tests the votes
        against ``p + (1 - 2 p) reference``: at any epsilon a feature is
        kept only if its debiased vote is significant.  The flips are exact
        Bernoulli draws from the operating system's CSPRNG
        (:mod:`skfed._secure_noise`), never from ``random_state``; only
        ``DifferentialPrivacy(insecure_noise_seed=...)``, for tests, fixes
        them (and voids the guarantee).  None: no privacy.
    random_state : int, RandomState instance or None, default=None
        Public randomness only: the network's faults when the network has
        no seed of its own, and the features each client reports.  The
        randomized response of ``privacy`` never depends on it: its flips
        come from the operating system's CSPRNG.
    n_jobs : int, default=None
        Number of threads that run the client passes.  Results do not
        depend on it.

    Attributes
    ----------
    support_ : ndarray of shape (n_features,), dtype=bool
        The recovered support, over the features (without the node-id
        column of ``group_column``).
    votes_ : ndarray of shape (n_features,), dtype=int64
        Number of answering clients whose message had feature ``j`` (after
        randomized response and corruption).
    n_reports_ : ndarray of shape (n_features,), dtype=int64
        Number of answering clients that reported feature ``j``
        (``n_answered_`` for every feature unless ``n_reported < d``).
    vote_fraction_ : ndarray of shape (n_features,)
        ``votes_ / n_reports_`` (zeros where nobody reported).
    debiased_fraction_ : ndarray of shape (n_features,)
        ``(vote_fraction_ - p) / (1 - 2 p)``, the estimated fraction of
        clients that selected ``j`` (``vote_fraction_`` without privacy).
    pvalues_ : ndarray of shape (n_features,) or None
        One-sided binomial p-values of the server's test (before the
        Bonferroni correction: a feature is kept when ``pvalues_ <= fwer /
        n_features``); None when the server compares vote fractions with a
        fixed threshold.
    reference_rate_ : float
        The rate the votes were tested against, or the fixed threshold.
    client_supports_ : ndarray of shape (n_nodes, n_features), dtype=bool
        What each client's message said, as the server received it: after
        randomized response under ``privacy`` and corruption for rogue
        clients; False for features a client did not report and for
        clients that did not answer.
    ols_clients_ : ndarray of shape (n_nodes,), dtype=bool
        Clients that ran the OLS t-test (``alpha="auto"`` with enough
        samples and a non-singular Gram matrix); the others ran the
        marginal test or a fixed lambda.
    reported_features_ : ndarray of shape (n_nodes, n_reported), dtype=intp
        Only when ``n_reported < n_features``: the features each client
        reported (sorted).
    answered_ : ndarray of shape (n_nodes,), dtype=bool
        Clients whose message arrived (not dropped, not straggling, not
        abstaining).  Without privacy a client with too few samples of
        positive weight for its statistics (2 with ``fit_intercept``, one
        more for ``alpha="auto"``) abstains, with a warning naming it.
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
        ``n_answered_ * (ceil(n_reported / 8) + header_bytes)``, over the
        clients of the fit and of every join.
    n_messages_ : int
        ``n_answered_``.
    bytes_per_round_ : ndarray of shape (1,)
    privacy_spent_ : ndarray of shape (n_nodes,)
        Only with ``privacy``: the epsilon each client spent at the
        specification's delta (0 for clients that did not send).
    privacy_ : dict
        Only with ``privacy``: mechanism, flip probability, reported
        features per client, the accountant, the noise source, and what is
        public.
    privacy_guarantee_void_ : bool
        Only with ``privacy``: True when the noise came from
        ``insecure_noise_seed`` (tests).

    See Also
    --------
    FederatedSparseLinearRegression : the recovered support plus a federated
        least-squares refit, to predict.
    sklearn.linear_model.LassoCV : the centralized lasso on pooled data.
    sklearn.feature_selection.SelectFromModel : selection from a fitted model.

    Notes
    -----
    Both auto tests have the exact null rate ``q0`` under Gaussian noise
    (OLS) or a Gaussian feature independent of the target and of the other
    features (marginal test), whatever the client's size.  The marginal
    test of a small client cannot tell a feature outside the support from
    a support feature it is correlated with: on correlated designs only
    clients with more samples than features (the OLS test) keep the vote
    exact as clients are added; ``rogue_tolerance`` leaves a margin that
    absorbs weak correlations.

    The degrees of freedom count a client's samples of positive weight;
    sample weights turn every mean into a weighted mean (weighted least
    squares for the OLS test).  The bits are packed eight to a byte,
    feature ``j`` in bit ``j % 8`` (least significant first) of byte
    ``j // 8``.

    Under ``privacy`` a feature that a fraction ``q`` of the clients
    select is reported as 1 with probability ``p + (1 - 2 p) q``: the test
    needs about ``1 / (1 - 2 p)^2 = coth(epsilon_bit / 2)^2`` times more
    reports, ``epsilon_bit = epsilon / k``; reporting ``k < d`` features
    per client spends the budget on fewer, less noisy bits.

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
        threshold="auto",
        fit_intercept=True,
        auto_z=None,
        rogue_tolerance=None,
        fwer=None,
        n_reported="auto",
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
        self.rogue_tolerance = rogue_tolerance
        self.fwer = fwer
        self.n_reported = n_reported
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
        The selection's lambda or client tests; see
        :class:`FederatedSupportRecovery`.
    threshold : float in (0, 1] or "auto", default="auto"
        The server's rule in round 1; see :class:`FederatedSupportRecovery`.
    fit_intercept : bool, default=True
        Whether to fit intercepts (and centre the data of each client in the
        selection round).
    per_node_intercept : bool, default=True
        With ``fit_intercept``: one intercept per node (heterogeneous
        nodes) rather than one shared intercept.
    auto_z, rogue_tolerance, fwer : float, default=None
        The ``alpha="auto"`` rule's level and the server's test; see
        :class:`FederatedSupportRecovery` (defaults 1.0, 0.1 and 0.05).
    n_reported : int or "auto", default="auto"
        Features each client reports in round 1; see
        :class:`FederatedSupportRecovery`.
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
    support_, votes_, n_reports_, vote_fraction_, debiased_fraction_, pvalues_, \
    reference_rate_, client_supports_, ols_clients_, answered_, rogue_, n_answered_
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
        threshold="auto",
        fit_intercept=True,
        per_node_intercept=True,
        auto_z=None,
        rogue_tolerance=None,
        fwer=None,
        n_reported="auto",
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
        self.rogue_tolerance = rogue_tolerance
        self.fwer = fwer
        self.n_reported = n_reported
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
