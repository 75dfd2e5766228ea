"""Clients joining a fitted selector: their one-shot votes added to the held counts."""

import math
import numbers
import warnings

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from .._base import check_sample_weight
from .._pending import DropWait
from .._seeding import reseeded as _seeded
from ..network import payload_bytes, resolve_network
from ..privacy import check_privacy
from ._intercepts import shrunk_intercepts
from ._private import _balanced_reports
from ._rules import _client_pass, wide_clients


class _JoinVoteMixin:
    """``add_nodes``' round 1 (:meth:`_join_vote`), for ``_OneShotSupportMixin``."""

    def _warn_if_auto_vote_would_change(self, d, n_positive, spec):
        """``vote="auto"`` is resolved once, by the fit: the fitted clients
        sent their bits once and do not send again, so a join keeps
        ``vote_``.  Warn when the grown federation's sizes would resolve to
        the other vote (a join then differs from a fit on all clients)."""
        held = getattr(self, "_client_sizes", None)
        if getattr(self, "vote", "selection") != "auto" or held is None:
            return
        fitted = self.vote_
        grown = self._auto_vote(d, np.concatenate([held, n_positive]),
                                spec is not None and math.isfinite(spec.budget()[0]))
        if grown != fitted:
            warnings.warn(
                f"vote='auto' would choose {grown!r} for the {len(held) + len(n_positive)} "
                f"clients after this join, but the join keeps the fit's vote_={fitted!r}: "
                "the fitted clients sent their bits once and do not send again (one-shot), "
                "so the new clients send the same kind of bit. Fit on all clients to "
                "switch the vote.",
                UserWarning,
            )

    def _join_wide(self, new_counts, d, private=False):
        """The very-wide switch the new clients' pass runs under.

        Decided as in the fit (:func:`~skfed.support._rules.wide_clients`
        of the answering clients' sizes), over every answering client after
        the join: the fitted clients that answered (their held sizes) and
        the new clients that answer (``new_counts``, drawn before the pass,
        as in the fit).  Under a finite privacy budget (``private``) every
        client runs the very-wide rule, as in the fit: no client's size is
        read.
        """
        if private:
            return True
        held = getattr(self, "_client_sizes", None)
        if held is None:
            fitted = getattr(self, "_wide", None)
            return wide_clients(new_counts, d) if fitted is None else fitted
        counts = np.concatenate([held[np.asarray(self.answered_, bool)], new_counts])
        return wide_clients(counts if len(counts) else held, d)

    def _join_vote(self, X, y, sample_weight, layout, new_labels):
        """The new clients' round 1: their passes, their votes added to the counts.

        The server keeps what it received from the fitted clients
        (``client_supports_``) and adds the bit vectors of the new clients
        that answer; the vote rule of the fit (:meth:`_server_vote`) is then
        applied to the counts over all answering clients.  Only the new
        clients' messages travel: the join's log counts them.
        """
        n_old, n_new = len(self.nodes_), layout.n_nodes
        vote = getattr(self, "vote", "selection")
        if vote != "auto" and vote != getattr(self, "vote_", vote):
            # the new clients' bits are added to the fitted clients' counts
            raise ValueError(
                f"vote={vote!r} but this model was fitted with vote_={self.vote_!r}: the "
                "fitted clients sent their bits once, so the new clients must send the "
                f"same kind; set vote={self.vote_!r} (or 'auto') before add_nodes, or fit "
                "on all clients.")
        d = X.shape[1]
        dtype = X.dtype
        weights = check_sample_weight(sample_weight, X, dtype=dtype)
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
        n_positive = np.bincount(layout.codes, weights=weights > 0,
                                 minlength=n_new).astype(np.int64)
        try:
            short = self._short_clients(n_positive, auto, spec is not None)
        finally:
            self.nodes_ = labels
        self._warn_if_auto_vote_would_change(d, n_positive, spec)
        if sparse.issparse(X):
            X = sparse.csr_matrix(X)
        X_nodes = layout.sort(X)
        y_nodes = np.ascontiguousarray(np.asarray(y)[layout.order], dtype=dtype)
        w_nodes = np.ascontiguousarray(weights[layout.order])
        # One round over the grown network: faults for every client, but
        # only the new ones send; a new client is rogue with probability
        # rogue_fraction.
        network = resolve_network(self.network)
        seed = [_first_draw(self.random_state), n_old, 7919]
        sim = network.start(n_old + n_new, server=True, random_state=_seeded(seed),
                            node_labels=np.concatenate([self.nodes_, new_labels]))
        join_rng = _seeded(seed[:2] + [7907])
        rogue_new = join_rng.uniform(size=n_new) < network.rogue_fraction
        sim.rogue[:] = np.concatenate([self.rogue_, rogue_new])
        active, work = sim.draw_round()
        answered_new = (active & (work >= 1.0))[n_old:]
        packed_new, ols, controls, tested = _client_pass(
            X_nodes, y_nodes, w_nodes, layout.offsets, lam, self._client_z(), auto,
            bool(self.fit_intercept), self.n_jobs, n_positive=n_positive,
            # the fit's coins at the new clients' node indices: with a fixed
            # random_state they are a full fit's coins
            sign_seed=self._sign_seed() if self._sign_vote() else None, first_node=n_old,
            # the fit's client rule: newcomers run the test the fitted clients ran
            wide_marginal=getattr(self, "_wide_marginal", False),
            wide=self._join_wide(
                n_positive[answered_new], d,
                spec is not None and math.isfinite(spec.budget()[0])),
        )
        packed_new[short] = 0
        if spec is None:
            answered_new &= ~short
        # The new clients report as many features as the fitted ones, chosen
        # by public randomness (random_state and the number of fitted nodes).
        held_reported = getattr(self, "reported_features_", None)
        reported = None
        if held_reported is not None:
            reported = _balanced_reports(n_new, d, held_reported.shape[1],
                                         _seeded(seed[:2] + [7901]))
        held = {
            "votes": self.votes_, "n_reports": self.n_reports_,
            "client_supports": self.client_supports_, "answered": self.answered_,
            "reported": held_reported,
            "n_positive": getattr(self, "_client_sizes", None),
            "uses": (self.privacy_["uses"] if getattr(self, "privacy_", None) is not None
                     else np.zeros(n_old, dtype=np.int64)),
        }
        ols_old = self.ols_clients_
        controls_old = self.n_controls_
        self._server_vote(packed_new, answered_new, sim, d, auto=auto, spec=spec,
                          reported=reported, held=held, n_positive=n_positive,
                          tested=tested)
        if ols_old is not None:  # (None under a finite privacy budget: never sent)
            self.ols_clients_ = np.concatenate([ols_old, ols & ~short])
            self.n_controls_ = np.concatenate([controls_old, np.where(short, 0, controls)])
        self._append_nodes(new_labels)
        return sim


# np.iinfo(np.int32).max, without building an iinfo each join
_INT32_MAX = 2**31 - 1


def _first_draw(random_state):
    """``check_random_state(random_state).randint(2**31 - 1)``; an integer
    ``random_state`` seeds this thread's ``RandomState`` instead of a new one."""
    if isinstance(random_state, numbers.Integral):
        return int(_seeded(random_state).randint(_INT32_MAX))
    return int(check_random_state(random_state).randint(_INT32_MAX))


def join_sparse_linear(est, X, y, groups, sample_weight):
    """:meth:`FederatedSparseLinearRegression.add_nodes
    <skfed.support.FederatedSparseLinearRegression.add_nodes>`: the new nodes
    receive the support and the coefficients; with per-node intercepts each
    computes its own from its rows.

    Its work is the new nodes' rows plus appending their entries to the
    per-node attributes and the log (copies of one value per node); the
    rounds draw the faults of the waiting new nodes only, and nothing is
    recomputed for the fitted nodes.
    """
    X, y, w, new_labels, layout = est._validate_join_data(
        X, y, groups, sample_weight, accept_sparse=["csr", "csc"], y_numeric=True,
    )
    n_old, n_new, d = len(est.nodes_), layout.n_nodes, X.shape[1]
    per_node = est.fit_intercept and est.per_node_intercept
    shrunk = bool(per_node) and est.per_node_intercept == "shrunk"
    # the refit's columns (the support, or its candidates)
    support = getattr(est, "refit_features_", None)
    if support is None:
        support = np.flatnonzero(est.support_)
    m = len(support) + int(est.fit_intercept and not est.per_node_intercept)
    if shrunk and not hasattr(est, "intercept_ratio_"):
        raise ValueError(
            "per_node_intercept='shrunk' but this model was fitted with exact per-node "
            "intercepts, so the server holds no prior of the intercepts for the new nodes; "
            "set per_node_intercept=True before add_nodes, or fit again.")
    # with shrunk intercepts the coefficients' message also carries the prior
    # (mu and tau^2 / sigma^2)
    # (and, with node-level features, gamma: q values, and the features: d bits)
    levels = getattr(est, "node_level_", np.zeros(0, dtype=np.intp)) if shrunk else []
    m_sent = m + (2 + len(levels) if shrunk else 0)
    network = resolve_network(est.network)
    seed = [_first_draw(est.random_state), n_old, 7919]
    sim = network.start(n_old + n_new, server=True, random_state=_seeded(seed),
                        node_labels=np.concatenate([est.nodes_, new_labels]))
    if network.rogue_fraction > 0:
        rogue_new = _seeded(seed[:2] + [7907]).uniform(size=n_new) < network.rogue_fraction
    else:  # (a uniform draw is never below 0)
        rogue_new = np.zeros(n_new, dtype=bool)
    support_bytes = payload_bytes(n_bits=d)
    coef_bytes = payload_bytes(n_float64=m_sent, n_bits=d if len(levels) else 0)
    # the server's message to each new node (by its position k): one DropWait step
    wait = DropWait([np.arange(n_new, dtype=np.intp)])
    up = np.zeros(n_new, dtype=bool)
    while not wait.complete:
        # the round's faults at the waiting nodes only (the same draws)
        waiting = wait.waiting
        up[waiting] = sim.draw_round_active(n_old + waiting)
        ((_, sent),) = wait.take(up)
        arrived = (n_old + sent).astype(np.intp)
        sim.counter.broadcast_from_server(
            arrived, np.full(len(arrived), support_bytes, dtype=np.int64))
        sim.counter.broadcast_from_server(
            arrived, np.full(len(arrived), coef_bytes, dtype=np.int64))
        sim.counter.next_round()
    if per_node:
        w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        XS = X[:, support].toarray() if sparse.issparse(X) else X[:, support]
        # each node's weighted sums, added row by row in the rows' order
        # (np.bincount, as np.add.at: the same sums)
        codes = layout.codes
        node_weight = np.bincount(codes, weights=w, minlength=n_new)
        sums = np.empty((n_new, len(support) + 1))
        sums[:, 0] = np.bincount(codes, weights=np.asarray(y, dtype=np.float64) * w,
                                 minlength=n_new)
        for j in range(len(support)):
            sums[:, j + 1] = np.bincount(
                codes, weights=np.asarray(XS[:, j], dtype=np.float64) * w, minlength=n_new)
        means = sums / node_weight[:, None]
        intercepts = means[:, 0] - means[:, 1:] @ est.coef_[support]
        if shrunk:
            # the newcomer's values of the node-level features (its means,
            # rows unweighted as in the fit)
            z = np.zeros((n_new, len(levels)))
            counts = np.bincount(codes, minlength=n_new)
            for j, col in enumerate(levels):
                column = X[:, [col]].toarray().ravel() if sparse.issparse(X) else X[:, col]
                z[:, j] = np.bincount(codes, weights=np.asarray(column, dtype=np.float64),
                                      minlength=n_new) / counts
            prior = est.intercept_mean_ + z @ np.asarray(est.intercept_coef_)
            intercepts = shrunk_intercepts(intercepts, node_weight, prior, est.intercept_ratio_)
        est.intercept_ = np.concatenate([est.intercept_, intercepts])
    est.client_supports_ = np.vstack([est.client_supports_, np.zeros((n_new, d), bool)])
    est.answered_ = np.concatenate([est.answered_, np.zeros(n_new, bool)])
    est.refit_answered_ = np.concatenate([est.refit_answered_, np.zeros(n_new, bool)])
    for name in ("refit_test_answered_", "refit_candidates_answered_"):
        setattr(est, name, np.concatenate([getattr(est, name), np.zeros(n_new, bool)]))
    est.rogue_ = np.concatenate([est.rogue_, rogue_new])
    if est.ols_clients_ is not None:  # (None under a finite privacy budget)
        # a newcomer does not vote: it ran no OLS test and used no controls
        est.ols_clients_ = np.concatenate([est.ols_clients_, np.zeros(n_new, bool)])
        est.n_controls_ = np.concatenate([est.n_controls_, np.zeros(n_new, np.int64)])
    est._append_nodes(new_labels)
    est._record_join(sim.log(node_labels=est.nodes_))
    return est
