"""Round 1 of the one-shot protocol, shared by the selector and the regressor.

Validation, the client pass (:mod:`._rules`), the network round and the
server's vote (``_OneShotSupportMixin._server_vote``, also run by the Flower
server and, through :mod:`._join`, by ``add_nodes``).
"""

import math
import numbers
import warnings

import numpy as np
from scipy import sparse, stats
from sklearn.utils import check_random_state

from .._base import N_JOBS_CONSTRAINT, FederatedMixin, check_node_weights
from .._compat import HasMethods, Interval, StrOptions
from .._node_ids import plain_label
from .._core._support_fast import tally_votes, unpack_bits
from ..network import payload_bytes, resolve_network
from ..privacy import DifferentialPrivacy, check_privacy
from ._join import _JoinVoteMixin
from ._neighbours import neighbour_stage, sketch_signs
from ._private import _balanced_reports, choose_n_reported, randomized_response
from ._rules import (
    DEFAULT_AUTO_Z,
    DEFAULT_FWER,
    DEFAULT_ROGUE_TOLERANCE,
    GATE_OFF_FEATURES_PER_SAMPLE,
    SIGN_MIN_CLIENTS,
    SIGN_MAX_SAMPLES,
    SIGN_MIN_SAMPLES,
    SIGN_MIN_FEATURES,
    SIGN_ROGUE_TOLERANCE,
    _client_pass,
    auto_rogue_tolerance,
    ols_client,
    null_selection_rate,
    sign_centre_margin,
    small_client_warning,
    sketches_link,
    wide_clients,
)


def _unpack(packed, n_features):
    bits = np.zeros((packed.shape[0], n_features), dtype=np.uint8)
    unpack_bits(np.ascontiguousarray(packed), bits)
    return bits.astype(bool)


class _OneShotSupportMixin(_JoinVoteMixin, FederatedMixin):
    """Round 1 of the protocol, shared by the selector and the regressor."""

    _support_parameter_constraints = {
        "alpha": [Interval(numbers.Real, 0, None, closed="left"), "array-like",
                  StrOptions({"auto"})],
        "threshold": [Interval(numbers.Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "fit_intercept": ["boolean"],
        "auto_z": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "rogue_tolerance": [None, StrOptions({"auto"}),
                            Interval(numbers.Real, 0, 0.5, closed="left")],
        "fwer": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "n_reported": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        "vote": [StrOptions({"auto", "selection", "sign"})],
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
                f"{plain_label(self.nodes_[first])!r} has alpha={lam[first]}."
            )
        return lam, False

    def _client_z(self):
        """The auto rule's multiplier (``auto_z``, or its default)."""
        return DEFAULT_AUTO_Z if self.auto_z is None else float(self.auto_z)

    def _auto_tolerance(self):
        """Whether ``rogue_tolerance`` is ``"auto"`` (or None, its alias)."""
        return self.rogue_tolerance is None or isinstance(self.rogue_tolerance, str)

    def _resolve_vote(self, d, n_positive=None, private=False):
        """Set and return ``vote_``: ``vote``, or what ``vote="auto"``
        resolves to (:meth:`_auto_vote`)."""
        vote = getattr(self, "vote", "selection")
        self.vote_ = self._auto_vote(d, n_positive, private) if vote == "auto" else vote
        return self.vote_

    def _auto_vote(self, d, n_positive=None, private=False):
        """The vote ``vote="auto"`` resolves to (sets nothing).

        ``"sign"`` when all of these hold, ``"selection"`` otherwise:

        * ``alpha="auto"``, ``threshold="auto"`` and ``auto_z=None`` (so a
          number for any of them is used, never refused);
        * at least ``SIGN_MIN_FEATURES`` candidate features ``d`` (the
          median of the features' fractions is a null feature's only for a
          sparse model of many features);
        * the clients' sizes are public (``n_positive``, their numbers of
          samples of positive weight; not under a finite privacy budget,
          ``private``) and, over the clients with a sample: at least
          ``SIGN_MIN_CLIENTS`` of them (a sign carries no magnitude: with
          few clients their selection bits are the stronger vote); a
          median size from ``SIGN_MIN_SAMPLES`` to ``SIGN_MAX_SAMPLES``
          (9-10: with more samples, or with fewer and so fewer controls, a
          feature next to the support keeps a sign bias that reaches the
          band, so recovery would fall with more clients); fewer than half
          of them with the ``d + 4`` samples of the OLS test (``d + 3``
          without intercept; their selection bits detect a feature of a
          few noise sd almost always and tolerate 0.1 rogue clients); and
          ``d <= GATE_OFF_FEATURES_PER_SAMPLE * median`` (wider clients'
          closest features are chance correlations: independent 1000/10 at
          10,000 clients of 10 samples, sign F1 0.33, selection exact).

        Public quantities only, never the votes.
        """
        small = False
        if not private and n_positive is not None:
            sizes = np.asarray(n_positive, dtype=np.int64)
            sizes = sizes[sizes > 0]
            median = float(np.median(sizes)) if sizes.size else 0.0
            small = (sizes.size >= SIGN_MIN_CLIENTS and float(np.mean(
                ols_client(sizes, d, bool(self.fit_intercept)))) < 0.5
                and SIGN_MIN_SAMPLES <= median <= SIGN_MAX_SAMPLES
                and int(d) <= GATE_OFF_FEATURES_PER_SAMPLE * median)
        return ("sign" if not self._sign_conflicts() and int(d) >= SIGN_MIN_FEATURES and small
                else "selection")

    def _sign_vote(self):
        """Whether the clients send signs (``vote="sign"``, or ``"auto"``
        resolved to it by :meth:`_resolve_vote`)."""
        vote = getattr(self, "vote", "selection")
        if vote == "auto":
            return getattr(self, "vote_", "selection") == "sign"
        return vote == "sign"

    def _sign_seed(self):
        """The seed of the ``vote="sign"`` clients' coins for undefined
        statistics (and of the sketches' coefficients): public randomness
        from ``random_state``, the same for the fit, ``add_nodes`` and the
        Flower server with an integer ``random_state``; with None each call
        draws a fresh seed (every client's coins and coefficients are
        independent of the others', so nothing needs them to match)."""
        return int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))

    def _sign_conflicts(self):
        """The settings ``vote="sign"`` does not support (``alpha``,
        ``threshold`` or ``auto_z`` off their defaults), one string each."""
        bad = []
        if not (isinstance(self.alpha, str) and self.alpha == "auto"):
            bad.append(f"alpha={self.alpha!r} (needs 'auto')")
        if not (isinstance(self.threshold, str) and self.threshold == "auto"):
            bad.append(f"threshold={self.threshold!r} (needs 'auto')")
        if self.auto_z is not None:
            bad.append(f"auto_z={self.auto_z!r} (the sign bit has no threshold; needs None)")
        return bad

    def _check_sign_vote(self):
        """Refuse the settings ``vote="sign"`` does not support, naming them."""
        bad = self._sign_conflicts() if self._sign_vote() else []
        if bad:
            raise ValueError(
                "vote='sign' sends the sign of each feature's coefficient given its "
                f"closest features and tests it around the median fraction; it does not "
                f"support {'; '.join(bad)}."
            )

    def _vote_rule(self, auto, private, n_positive=None, d=None):
        """The server's rule: ``(test, base, beta, fwer)``.

        ``test``: whether the server runs the binomial test (else it keeps
        the features whose vote fraction reaches ``base``); ``base``: the
        vote fraction a feature outside the support reaches from honest
        clients (the auto rule's null selection rate) or the fixed
        threshold; ``beta``: the rogue fraction the test tolerates, resolved
        by :func:`~skfed.support._rules.auto_rogue_tolerance` from the
        answering clients' sizes ``n_positive`` and the number of features
        ``d`` for ``rogue_tolerance="auto"``
        (``DEFAULT_ROGUE_TOLERANCE`` when they are not public: under a
        finite privacy budget, or unknown).  Parameters that the rule would
        not use are refused.  With ``vote="sign"``: ``(True, 0.5, beta,
        fwer)``, ``beta`` the rogue fraction (``rogue_tolerance``,
        ``SIGN_ROGUE_TOLERANCE`` = 0.05 for "auto"), the band being
        ``median +- beta`` widened by the median's own margin
        (:meth:`_sign_test`).
        """
        if self._sign_vote():
            self._check_sign_vote()
            beta = (SIGN_ROGUE_TOLERANCE if self._auto_tolerance()
                    else float(self.rogue_tolerance))
            return True, 0.5, beta, DEFAULT_FWER if self.fwer is None else float(self.fwer)
        auto_threshold = isinstance(self.threshold, str)
        test = private or (auto_threshold and auto)
        if auto_threshold:
            base = null_selection_rate(self._client_z()) if auto else 0.5
        else:
            base = float(self.threshold)
        with_beta = auto_threshold and auto
        if not self._auto_tolerance() and not with_beta:
            raise ValueError(
                f"rogue_tolerance={self.rogue_tolerance!r} is used by the test of "
                "threshold='auto' with alpha='auto' only (a fixed threshold is its own "
                "margin against rogue clients); leave it 'auto' here."
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
            if not self._auto_tolerance():
                beta = float(self.rogue_tolerance)
            elif private or n_positive is None or d is None:
                # Under privacy the clients' sizes are not sent.
                beta = DEFAULT_ROGUE_TOLERANCE
            else:
                beta = auto_rogue_tolerance(n_positive, d, bool(self.fit_intercept))
        fwer = DEFAULT_FWER if self.fwer is None else float(self.fwer)
        return test, base, beta, fwer

    def _n_reported(self, d, spec):
        """How many features every client reports (``n_reported``)."""
        return choose_n_reported(self.n_reported, d, spec)

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
        if sample_weight is not None:
            # (Without weights every node present has a sample.)
            check_node_weights(self, layout.codes, sample_weight,
                               why=" to compute its statistics")
        spec = check_privacy(self.privacy, type(self).__name__)
        n_positive = (layout.counts.astype(np.int64) if sample_weight is None else
                      np.bincount(layout.codes, weights=weights > 0,
                                  minlength=n_nodes).astype(np.int64))
        self._resolve_vote(d, n_positive,
                           spec is not None and math.isfinite(spec.budget()[0]))
        self._check_sign_vote()
        lam, auto = self._client_lambdas(n_nodes)
        self._vote_rule(auto, spec is not None)  # refuses unused parameters early
        k = self._n_reported(d, spec)
        short = self._short_clients(n_positive, auto, spec is not None)

        if sparse.issparse(X):
            X = sparse.csr_matrix(X)
        if layout.in_order:
            # Already node by node (the usual layout of per-node data): no copy.
            X_nodes = X if sparse.issparse(X) else np.ascontiguousarray(X)
            y_nodes = np.ascontiguousarray(y, dtype=dtype)
            w_nodes = np.ascontiguousarray(weights)
        else:
            X_nodes = layout.sort(X)
            y_nodes = np.ascontiguousarray(y[layout.order], dtype=dtype)
            w_nodes = np.ascontiguousarray(weights[layout.order])
        # Round 1 over the simulated network: who answers (drawn before the
        # pass: the switch below reads the answering clients), what they send.
        network = resolve_network(self.network)
        sim = network.start(n_nodes, server=True, random_state=self.random_state,
                            node_labels=self.nodes_)
        active, work = sim.draw_round()
        # A straggler has not finished its pass when the one-shot deadline
        # expires: like a dropped client, it does not vote.
        answered = active & (work >= 1.0)
        # Whether the clients are very wide is read from the answering
        # clients' counts (public), whose tests are the ones voted on.
        wide_counts = n_positive[answered] if answered.any() else n_positive
        # Very wide clients run the marginal test when the neighbour stage
        # runs and its sketches link correlated features (public quantities;
        # joins reuse the choice).
        self._wide_marginal = self._marginal_when_wide(auto, spec, k < d, wide_counts, d)
        if spec is not None and math.isfinite(spec.budget()[0]):
            # Under privacy the sizes are not sent, and a switch read from
            # them let one client's size change the others' tests (review32):
            # every client runs the very-wide rule (a public constant).  Under
            # the server's private test it beat the median rule and each
            # client's own d > 20 n_i on every family measured, and equals
            # the median rule where that one was wide
            # (benchmarks/support_private_width.py).
            self._wide = True
        else:
            self._wide = wide_clients(wide_counts, d)
        packed, ols, controls, tested = _client_pass(
            X_nodes, y_nodes, w_nodes, layout.offsets, lam, self._client_z(), auto,
            bool(self.fit_intercept), self.n_jobs, n_positive=n_positive,
            sign_seed=self._sign_seed() if self._sign_vote() else None,
            wide_marginal=self._wide_marginal, wide=self._wide,
        )
        # A client too small for its statistics selects nothing (under
        # privacy it still sends, see _short_clients).
        packed[short] = 0
        if spec is not None and math.isfinite(spec.budget()[0]):
            # Computed on the clients and never sent (they reveal n_t >= d + 4
            # and a singular Gram matrix): not the server's to keep.
            self.ols_clients_ = self.n_controls_ = None
        else:
            self.ols_clients_ = ols & ~short
            self.n_controls_ = np.where(short, 0, controls)

        if spec is None:
            answered &= ~short
        reported = None
        if k < d:
            # Public randomness (random_state): which k features each client
            # reports; the server draws the same assignment.
            reported = _balanced_reports(n_nodes, d, k, self.random_state)
        sketch = None
        if self._sends_sketch(auto, spec, reported, wide_counts, d):
            # The small clients' one-bit sketches of X (skfed.support._neighbours),
            # sent in the same message as their selection bits.
            senders = np.flatnonzero(
                answered & ~ols_client(n_positive, d, bool(self.fit_intercept)))
            if len(senders):
                sketch = (senders, sketch_signs(X_nodes, w_nodes, layout.offsets, senders,
                                                bool(self.fit_intercept), self._sign_seed()))
        self._server_vote(packed, answered, sim, d, auto=auto, spec=spec, reported=reported,
                          n_positive=n_positive, tested=tested, sketch=sketch)
        if (auto and spec is None and self.pvalues_ is not None and self.n_answered_
                and not self._sign_vote()):
            message = small_client_warning(
                n_positive, self.ols_clients_, self.answered_, self.n_reports_,
                self.reference_rate_, DEFAULT_FWER if self.fwer is None else self.fwer,
                self._client_z(), bool(self.fit_intercept), type(self).__name__)
            if message:
                warnings.warn(message, UserWarning, stacklevel=3)
        return X_nodes, y_nodes, w_nodes, layout, sim

    def _sends_sketch(self, auto, spec, reported, n_positive, d):
        """Whether the small clients send the sketch of the neighbour stage.

        With the selection vote at ``alpha="auto"`` and ``threshold="auto"``,
        every feature reported, no finite privacy budget (the sketch is not
        randomized) and very wide clients (:func:`~skfed.support._rules.
        wide_clients`: ``d > 20 median(n_i)``, public); see
        :mod:`skfed.support._neighbours`.
        """
        return (auto and isinstance(self.threshold, str) and not self._sign_vote()
                and reported is None
                and (spec is None or not math.isfinite(spec.budget()[0]))
                and wide_clients(n_positive, d))

    def _marginal_when_wide(self, auto, spec, subset, n_positive, d):
        """Whether very wide clients run the marginal test.

        Only when the neighbour stage runs (:meth:`_sends_sketch`; the
        stage removes the support's neighbours the marginal test selects)
        and its sketches would link two features correlated
        ``LINKED_CORRELATION`` (:func:`~skfed.support._rules.sketches_link`).
        """
        reported = np.zeros(1) if subset else None  # any subset: no stage
        if not self._sends_sketch(auto, spec, reported, n_positive, d):
            return False
        _, _, beta, fwer = self._vote_rule(auto, spec is not None, n_positive, d)
        return sketches_link(n_positive, d, bool(self.fit_intercept), fwer, beta)

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
                     reported=None, held=None, n_positive=None, tested=None, sketch=None):
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
        ``n_positive``: the clients' numbers of samples of positive weight
        (one per row of ``packed``; ``held["n_positive"]`` for the fitted
        ones), which ``rogue_tolerance="auto"`` resolves from; None when the
        server does not know them (the tolerance is then 0.1).

        ``tested`` (packed like ``packed``, or None: every feature): the
        features each client could test (its OLS regression kept the
        column; its partial rule's t statistic is defined).  Without privacy
        a client that did not test some of its reported features also sends
        its ``tested`` bits (a second bit vector of the same length: the
        message's length tells the server which kind it is), and the server
        counts a feature's votes over the clients that tested it
        (``n_reports_``).  A rogue client claims to have tested every
        feature, so the rogue share among a feature's reports is at most
        ``beta`` times its assigned reports over its reports (the margin
        ``feature_reference_rate_`` uses).  Under a finite privacy budget
        ``tested`` is not sent (it depends on the client's data): an
        untested feature is sent as a 0 bit through the randomized response
        and counts as reported, which only lowers its null rate.

        ``sketch``: ``(clients, packed)``, the rows of ``packed`` that sent
        a sketch of ``X`` (:func:`~skfed.support._neighbours.sketch_signs`)
        and those sketches; each adds ``ceil(d / 8)`` bytes to its message,
        and the selection vote's test is followed by the neighbour stage
        (:func:`~skfed.support._neighbours.neighbour_stage`).  In a join
        (``held``) the fit's sketches are used (the new clients send none).
        """
        if spec is not None and math.isfinite(spec.budget()[0]):
            n_positive = None  # the clients' sizes are not sent under privacy
            tested = None  # nor which features they tested (sent as 0 bits)
        n_old = 0 if held is None else len(held["answered"])
        local = np.flatnonzero(answered).astype(np.intp)
        senders = local + n_old
        g = len(senders)
        k = d if reported is None else reported.shape[1]
        p = 0.0
        for stale in ("privacy_spent_", "privacy_", "privacy_guarantee_void_"):
            if hasattr(self, stale):
                delattr(self, stale)
        if spec is not None:
            p, source = randomized_response(self, spec, k, d, answered, held)
        rogue = sim.rogue[senders] if g else np.zeros(0, dtype=bool)
        simple = reported is None and p == 0.0 and not rogue.any()
        # What each answering client sends: its bits, and its tested bits
        # when it did not test every feature it reports.
        n_bytes = np.full(g, payload_bytes(n_bits=k), dtype=np.int64)
        if tested is not None:
            tested_rows = _unpack(tested[local], d)
            if reported is not None:
                tested_rows = tested_rows[np.arange(g)[:, None], reported[local]]
            n_bytes[~tested_rows.all(axis=1)] *= 2
        sketch_rows = None
        if sketch is not None:
            sent = np.isin(local, sketch[0])
            n_bytes[sent] += payload_bytes(n_bits=d)
            sketch_rows = sketch[1]
            if rogue[sent].any():
                # A rogue client corrupts its sketch as it corrupts its bits.
                bad = np.isin(sketch[0], senders[rogue])
                rows = _unpack(sketch_rows[bad], d)
                rows = sim.corrupt_bit_rows(rows, sketch[0][bad])
                sketch_rows = sketch_rows.copy()
                sketch_rows[bad] = np.packbits(rows, axis=1, bitorder="little")
            self._sketch_rows = sketch_rows
        elif held is not None:
            # A join: the server holds the fit's sketches (new clients send none).
            sketch_rows = getattr(self, "_sketch_rows", None)
        elif hasattr(self, "_sketch_rows"):
            del self._sketch_rows
        self.neighbour_reference_rate_ = self.explained_by_ = None
        if simple:
            votes = np.zeros(d, dtype=np.int64)
            tally_votes(packed, local, votes)
            n_reports = np.full(d, g, dtype=np.int64)
            if tested is not None:
                tally_votes(tested, local, n_reports)
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
            counted = np.ones(messages.shape, dtype=bool)
            if tested is not None:
                # (a rogue claims to have tested every feature)
                counted = tested_rows | rogue[:, None]
                messages &= counted
            client_supports = np.zeros((len(answered), d), dtype=bool)
            if reported is None:
                client_supports[local] = messages
                votes = messages.sum(axis=0, dtype=np.int64)
                n_reports = counted.sum(axis=0, dtype=np.int64)
            else:
                idx = reported[local]
                client_supports[local[:, None], idx] = messages
                votes = np.bincount(idx[messages], minlength=d).astype(np.int64)
                n_reports = np.bincount(idx[counted], minlength=d).astype(np.int64)
        sim.counter.gather_to_server(senders, n_bytes)
        sim.counter.next_round()
        if held is not None:
            votes = votes + held["votes"]
            n_reports = n_reports + held["n_reports"]
            client_supports = np.vstack([held["client_supports"], client_supports])
            answered = np.concatenate([held["answered"], answered])
            if reported is not None:
                reported = np.vstack([held["reported"], reported])
            g = int(answered.sum())
            if n_positive is not None:
                n_positive = (None if held.get("n_positive") is None else
                              np.concatenate([held["n_positive"], n_positive]))
        if n_positive is not None:
            n_positive = np.asarray(n_positive, dtype=np.int64)
            self._client_sizes = n_positive
        elif hasattr(self, "_client_sizes"):
            del self._client_sizes
        test, base, beta, fwer = self._vote_rule(
            auto, spec is not None,
            None if n_positive is None else n_positive[answered], d)
        self.rogue_tolerance_ = beta
        if (test and self._auto_tolerance() and g
                and getattr(sim.network, "rogue_fraction", 0.0) > beta + 1e-12):
            warnings.warn(
                f"The simulated network makes a fraction {sim.network.rogue_fraction:g} of "
                f"the clients rogue, above the {beta:g} that rogue_tolerance='auto' "
                f"resolved to for these clients (rogue_tolerance_): features outside the "
                "support may be selected. Set rogue_tolerance to the fraction to tolerate "
                "(the support features then need a higher vote fraction).",
                UserWarning,
                stacklevel=4,
            )

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
        if not self._sign_vote():  # (the sign vote always tests: _sign_test sets them)
            for stale in ("sign_band_", "sign_centre_margin_"):
                if hasattr(self, stale):
                    delattr(self, stale)
        if test and self._sign_vote():
            support = self._sign_test(votes, n_reports, fraction, beta, fwer, d, g, p)
            self.feature_reference_rate_ = None
        elif test:
            # The highest rate at which a feature outside the support is
            # reported as 1: honest clients select it at rate ``base``,
            # randomized response turns that into p + (1 - 2 p) base, and up
            # to a fraction beta of rogue clients may send anything.
            reference = (1.0 - beta) * (p + (1.0 - 2.0 * p) * base) + beta
            # Per feature: rogue clients (at most beta of the clients assigned
            # to report it) claim to have tested it, so their share of its
            # n_reports reports is at most beta * assigned / n_reports.
            if reported is None:
                assigned = np.full(d, g, dtype=np.int64)
            else:
                assigned = np.bincount(reported[answered].ravel(), minlength=d)
            beta_j = np.minimum(1.0, beta * assigned / np.maximum(n_reports, 1))
            feature_reference = ((1.0 - beta_j) * (p + (1.0 - 2.0 * p) * base) + beta_j
                                 if np.any(n_reports != assigned) else
                                 np.full(d, reference))
            pvalues = np.where(
                n_reports > 0,
                stats.binom.sf(votes - 1, np.maximum(n_reports, 1), feature_reference), 1.0
            )
            self.feature_reference_rate_ = feature_reference
            support = pvalues <= fwer / d
            self.pvalues_ = pvalues
            stage_one = support
            if sketch_rows is not None and n_positive is not None:
                # The neighbour stage (only removes features): rates among
                # the answering clients that run the small-client rule.
                small = ~ols_client(n_positive[answered], d, bool(self.fit_intercept))
                support, self.neighbour_reference_rate_, self.explained_by_ = neighbour_stage(
                    support, client_supports[answered], sketch_rows, small, votes,
                    n_reports, self._client_z(), beta, fwer)
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
                    "client: raise n_reported), or a larger fwer.",
                    UserWarning,
                    stacklevel=4,
                )
            if beta > 0.0 and g and not support.any():
                # An empty support while features are selected significantly
                # above the null rate that the rogue margin leaves out: name
                # them (a partial support is not flagged: with correlated
                # designs the features next to the support are often there).
                honest = p + (1.0 - 2.0 * p) * base
                above = (stats.binom.sf(votes - 1, np.maximum(n_reports, 1), honest)
                         <= fwer / d) & (n_reports > 0) & ~support
                if above.any():
                    shown = np.flatnonzero(above)
                    warnings.warn(
                        f"{len(shown)} feature(s) ({', '.join(map(str, shown[:10]))}"
                        f"{', ...' if len(shown) > 10 else ''}) are selected significantly "
                        f"above the null rate {honest:.3f} (vote fractions "
                        f"{', '.join(f'{v:.3f}' for v in fraction[shown[:10]])}) but not "
                        f"significantly above the reference rate {reference:.3f} that rogue_tolerance={beta:g} "
                        "sets, so no feature was selected. They are either support features that "
                        "clients detect weakly (correlated designs, clients of few samples) "
                        "or features correlated with the support. If no client can be "
                        "rogue, a smaller rogue_tolerance keeps the first kind; "
                        "FederatedSupportRecovery.pvalues_ has every feature's p-value.",
                        UserWarning,
                        stacklevel=4,
                    )
            if auto and d >= 4 and stage_one.sum() > d / 2:
                # The median feature is significantly above the highest rate
                # of a feature outside the support: the test's premise (most
                # features are selected at the null rate) does not hold.
                warnings.warn(
                    f"{int(stage_one.sum())} of the {d} features are significant: the "
                    "server's test assumes a sparse model whose features outside the "
                    "support each client selects at the null rate. Either the model is "
                    "not sparse, or features outside the support are correlated with "
                    "it and clients with fewer than n_features + 4 samples (which test "
                    "each feature given only its few closest features, or its marginal "
                    "correlation below 6 samples) select them more often; clients with "
                    "more samples test each feature given all the others. See 'When not "
                    "to use it' in the user guide.",
                    UserWarning,
                    stacklevel=4,
                )
        else:
            support = (fraction >= base) & (n_reports > 0)
            self.pvalues_ = None
            self.reference_rate_ = base
            self.feature_reference_rate_ = np.full(d, float(base))
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

    def _sign_test(self, votes, n_reports, fraction, beta, fwer, d, g, p=0.0):
        """The server's test of ``vote="sign"``; sets ``pvalues_``,
        ``reference_rate_`` and ``sign_band_``, returns the support.

        Honest clients send a feature outside the support as 1 with a
        probability ``c`` the server does not know but that is shared by
        the features of an exchangeable design (1/2 for a symmetric one);
        its estimate is the median ``m`` of the received fractions of the
        answered features (the support is sparse).  Everything is tested
        on the received scale, where a bit is flipped with probability
        ``p`` under privacy (randomized response: a feature whose clients
        send 1 at rate ``f`` is received at rate ``p + (1 - 2 p) f``).

        The band is ``m +- (beta + t)``:

        * ``beta``: rogue clients (a fraction ``beta``, sending anything
          after the flips) move a feature's fraction by at most ``beta``
          towards one side and the median by at most ``beta`` towards the
          other, and the band's half-width ``beta`` absorbs both (the
          distance moves by ``beta (1 - c) + beta c``);
        * ``t`` (:func:`~skfed.support._rules.sign_centre_margin`): the
          median's own sampling noise, so that the binomial test of a
          feature's count at the band's end has the level of a test of its
          distance to the median of the other features, whose variance is
          the feature's plus the median's.

        A feature is kept when its count is significantly outside the band:
        one-sided binomial tests at the band's ends, each side at ``fwer /
        (2 d)``; ``pvalues_`` is twice the smaller one-sided p-value (at
        most 1), compared with ``fwer / d``.  On a global null with
        independent features the family-wise error is then at most
        ``fwer`` up to the normal approximation (a NumPy simulation,
        ``benchmarks/support_sign_level.py``: 0.008-0.040 at fwer 0.05 for
        d = 3-1000, against 0.053-0.061 for d = 3-20 with the median taken
        as known).  ``reference_rate_``
        (the median) and ``sign_band_`` are on the debiased scale,
        ``(fraction - p) / (1 - 2 p)``.
        """
        answered = n_reports > 0
        scale = 1.0 - 2.0 * p
        n_ans = int(answered.sum())
        centre_r = float(np.median(fraction[answered])) if n_ans else p + 0.5 * scale
        centre = (centre_r - p) / scale
        level = fwer / d
        margin = (sign_centre_margin(n_ans, int(n_reports[answered].min()),
                                     stats.norm.isf(level / 2.0))
                  if n_ans else 0.0)
        self.sign_centre_margin_ = margin / scale
        # the band on the received scale, within [0, 1]
        lo = min(max(centre_r - beta - margin, 0.0), 1.0)
        hi = min(max(centre_r + beta + margin, 0.0), 1.0)
        upper = stats.binom.sf(votes - 1, np.maximum(n_reports, 1), hi)
        lower = stats.binom.cdf(votes, np.maximum(n_reports, 1), lo)
        pvalues = np.where(answered, np.minimum(1.0, 2.0 * np.minimum(upper, lower)), 1.0)
        self.pvalues_ = pvalues
        self.reference_rate_ = centre
        self.sign_band_ = ((lo - p) / scale, (hi - p) / scale)
        n_max = int(n_reports.max()) if g else 0
        # The smallest p-value any feature could reach: all its reports on
        # the side of the band farther from its end.
        best = 2.0 * min(hi, 1.0 - lo) ** n_max
        support = pvalues <= level
        dense = ""
        if g and (hi >= 1.0 or lo <= 0.0):
            dense = (f"the median vote fraction is {centre:.3g}, so the band [{lo:.3g}, "
                     f"{hi:.3g}] reaches {1 if hi >= 1.0 else 0} and no feature can be "
                     "significant on that side")
        elif d < 3 and support.any():
            dense = (f"with {d} features the median vote fraction ({centre:.3g}) is not a "
                     "feature outside the support's")
        elif d >= 2 and support.sum() > d / 2:
            dense = f"{int(support.sum())} of the {d} features are significant"
        elif d >= 3 and support.any():
            # A feature whose clients' signs are a fair coin (count not
            # significantly away from 1/2 at the same level) is what a feature
            # outside the support sends on a design where it is independent of
            # the others; selecting it means the median is not the null
            # fraction (a support feature's: a dense model).  Randomized
            # response leaves the rate 1/2 unchanged.
            n_safe = np.maximum(n_reports, 1)
            coin = 2.0 * np.minimum(stats.binom.sf(votes - 1, n_safe, 0.5),
                                    stats.binom.cdf(votes, n_safe, 0.5))
            coins = np.flatnonzero(support & (coin > level))
            if coins.size:
                dense = (f"{coins.size} selected feature(s) (indices {coins[:5].tolist()}"
                         f"{', ...' if coins.size > 5 else ''}) send positive signs at a rate "
                         "not significantly different from 1/2 (at fwer / n_features), "
                         f"outside the band [{self.sign_band_[0]:.3g}, "
                         f"{self.sign_band_[1]:.3g}] around the median {centre:.3g}: the "
                         "median is likely a support feature's (a dense model)")
        if d == 1 and g:
            dense = ("with 1 feature the median vote fraction is its own, so it is never "
                     "selected")
        if dense:
            warnings.warn(
                f"vote='sign': {dense}. The server estimates the null sign fraction by the "
                "median over the features, which assumes a sparse model (at least 3 "
                "features, fewer than half of them in the support); use "
                "vote='selection' otherwise.",
                UserWarning,
                stacklevel=5,
            )
        elif g and best > level:
            warnings.warn(
                f"Too few reports for any feature to be significant: even a feature "
                f"whose {n_max} reports all send the same sign has p-value {min(best, 1.0):.2g} "
                f"> fwer / n_features = {level:.2g}, so no feature was selected. More "
                "clients or a larger fwer are needed.",
                UserWarning,
                stacklevel=5,
            )
        return support

    def _group_position(self):
        if self.group_column is None:
            return None
        if isinstance(self.group_column, str):
            return list(self.feature_names_in_).index(self.group_column)
        return int(self.group_column) % self.n_features_in_
