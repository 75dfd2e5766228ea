"""``network_share``: a regressor's nodes predict with a share of the network function.

A node's function is a combination of kernels at its own samples (every
step adds ``k(x, .)`` at the node's sample ``x``, and the consensus term is
measured there too), so a node of few samples cannot represent what lies
outside them: with the linear kernel, a node of 8 samples in 10 features
predicts only the part of an input in the span of its 8 samples (about a
fifth of a test input's squared norm is outside it), and at 30 samples in
500 features 94 %.  The network function (``network_dictionary_``, the
compressed and re-solved mean of every node's function) carries every
node's samples.  A node predicts with::

    (1 - s) f_i(x) + s fbar(x)

``s`` is ``network_share_``: the ``network_share`` given, or with
``network_share="auto"`` chosen by validation within the nodes, as part of
``consensus_penalty="auto"`` (:mod:`._coupling`): once the coupling is
chosen, the chosen candidate (fitted on every node's rows but every 4th)
computes its network function as a fit ends (:mod:`._network_function`,
its rounds counted), every node scores ``s`` in ``SHARES`` on its held-out
rows with the fit's loss, divided by the variance of its training targets
(so every node weighs as in a mean of per-node R^2; a node whose training
targets are all equal does not report), the reports are summed up a
spanning tree of the weak candidate's graph (every share's loss, the
squares of the differences to share 0, the count: ``2 len(SHARES)``
float64 up, an int32 back down, counted) and every node keeps the share of
least mean loss among those whose mean gain over share 0 exceeds
``SHARE_GATE`` standard errors of the nodes' differences, else 0 (the
smallest share on a tie).  The gate keeps the nodes' own functions where
the held-out rows, one or two a node, cannot tell (Computer buyers, 190
nodes of 5-10 samples, seed 2: a share of 0.25 gains 6.9 % of the held-out
loss at 1.5 standard errors and loses 0.31 of mean node R^2 on the test
rows).  Without the coupling selection (a fixed ``consensus_penalty``
or ``eta0``, one node, no node of 4 samples) ``"auto"`` is 0, the nodes'
own functions.  Nodes that join after the fit (``add_nodes``, a new node's
samples in ``partial_fit``) predict with their own function: it starts from
their neighbours' or the network function (``join_start_``), chosen by
their own rule, so it holds the others' part already (on School, blending
the newcomers too lowered the join's R^2 by 0.25-0.6 x 100).

Measured on review13's held-out families and the regression families of
``online_experiments.py`` (``benchmarks/online_regressor_network_share.py``).
"""

import numpy as np

from ._holdout import loss_values, node_mean_losses, rows_by_node
from ._join_offset import offset_of
from ._selection import count_selection_messages

__all__ = ["SHARES"]

# The shares "auto" chooses from.
SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)
# A share is kept only if it beats share 0 by this many standard errors of
# the nodes' paired differences.
SHARE_GATE = 2.0


def node_spread(y, codes, n_nodes, weights=None):
    """Every node's weighted variance of ``y`` over its rows (0 without rows)."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    total = np.bincount(codes, weights=w, minlength=n_nodes)
    safe = np.where(total > 0, total, 1.0)
    mean = np.bincount(codes, weights=w * y, minlength=n_nodes) / safe
    return np.bincount(codes, weights=w * (y - mean[codes]) ** 2, minlength=n_nodes) / safe


class _NetworkShareMixin:
    """``network_share``: validation of the share and the blended prediction."""

    def _share_grid(self):
        """The shares to validate (None: nothing to choose, nothing to send)."""
        share = getattr(self, "network_share", 0.0)
        if share == "auto":
            return SHARES
        return None

    def _fixed_share(self):
        """``network_share_`` when no share is validated."""
        share = getattr(self, "network_share", 0.0)
        return 0.0 if share == "auto" else float(share)

    def _reset_share(self):
        """Before a fit's selections: a regressor's ``network_share_`` is the
        given share (``"auto"``: 0 until validated) and nothing is chosen."""
        if self._is_regressor():
            self.network_share_ = self._fixed_share()
            self.network_share_selection_ = None
            self._join_offsets = None   # (_join_offset: the joins' offsets end)
            # the nodes of the fit (nodes that join later start from their
            # neighbours' or the network function and keep their own)
            self._share_nodes = len(self.nodes_)

    def _refresh_share(self):
        """A later ``partial_fit`` call: a fixed ``network_share`` set since
        the first call is used from now on (``"auto"`` keeps the share chosen
        or fixed before: its validation runs in the first call only)."""
        share = getattr(self, "network_share", "auto")
        if self._is_regressor():
            self._join_offsets = None   # (_join_offset: the joins' offsets end)
        if self._is_regressor() and share != "auto" and float(share) != self.network_share_:
            self.network_share_ = float(share)
            self.network_share_selection_ = None  # (it no longer describes the share)

    def _network_at(self, X, codes):
        """The network function of every row's node's component at ``X``."""
        out = np.zeros((X.shape[0], self._n_outputs))
        component = self.network_component_[codes]
        for c in np.unique(component):
            rows = np.flatnonzero(component == c)
            out[rows] = self._network_values(X[rows], component=int(c))
        return out

    def _blended(self, node, X):
        """``(1 - s) f_node(X) + s fbar(X)`` (``s = network_share_``) for a
        node of the fit; a node that joined after it, its own function."""
        own = self._node_function(node, X)
        offset = offset_of(self, node)   # (_join_offset: a newcomer's level)
        if offset != 0.0:
            own = own + offset
        share = getattr(self, "network_share_", 0.0)
        if (share == 0.0 or getattr(self, "network_dictionary_", None) is None
                or node >= self._share_nodes):
            return own
        net = self._network_values(X, component=int(self.network_component_[node]))
        if share == 1.0:
            return net
        return (1.0 - share) * own + share * net

    def _share_errors(self, cand, X, y_encoded, codes, sample_weight, shares, spread=None):
        """Every node's mean held-out loss of every share: (n_shares, n_nodes),
        over ``spread`` (every node's variance of its training targets; NaN
        for a node whose spread is 0) when given."""
        n_nodes = len(self.nodes_)
        own = np.zeros((len(y_encoded), self._n_outputs))
        for node, rows in rows_by_node(codes):
            own[rows] = cand._node_function(node, X[rows])
        net = cand._network_at(X, codes) if len(codes) else own
        out = np.full((len(shares), n_nodes), np.nan)
        for k, s in enumerate(shares):
            F = (1.0 - s) * own + s * net
            values = loss_values(self._loss_name(), F, y_encoded, self._loss_threshold())
            out[k] = node_mean_losses(values, codes, n_nodes, sample_weight)
        if spread is not None:
            out = np.where(spread > 0, out / np.where(spread > 0, spread, 1.0), np.nan)
        return out

    def _adopt_share(self, shares, errors):
        """Keep the share of least mean held-out loss among those that beat
        the nodes' own functions (share 0) by more than ``SHARE_GATE``
        standard errors of the per-node differences (``errors``: the
        federation's, (n_shares, n_nodes), NaN for a node that does not
        report); 0 when none does.  Sets ``network_share_`` and
        ``network_share_selection_``."""
        reporting = ~np.isnan(errors[0])
        n = int(reporting.sum())
        mean = np.full(len(shares), np.nan)
        t = np.full(len(shares), np.nan)
        choice = 0
        if n:
            E = errors[:, reporting]
            mean = E.mean(axis=1)
            if n > 1:
                # (from the sums the tree carries: sum d and sum d^2 per share)
                d = E[0] - E
                sums, squares = d.sum(axis=1), (d * d).sum(axis=1)
                var = np.maximum(squares - sums * sums / n, 0.0) / (n - 1)
                se = np.sqrt(var / n)
                with np.errstate(divide="ignore", invalid="ignore"):
                    t = np.where(se > 0, (sums / n) / se, np.where(sums > 0, np.inf, 0.0))
                t[0] = 0.0
                passing = np.flatnonzero(t > SHARE_GATE)
                if len(passing):
                    # ties: the smallest share
                    choice = int(passing[np.argmin(mean[passing])])
        self.network_share_ = float(shares[choice])
        self.network_share_selection_ = {
            "shares": list(shares),
            "mean_validation_error": mean,
            "node_validation_error": errors,
            "t_statistic": t,
            "choice": self.network_share_,
        }

    def _count_share_round(self, counter, parents, n_shares, senders=None):
        """The shares' reports summed up the tree (every share's loss, the
        differences' squares to share 0 of the others, the count: ``2
        n_shares`` float64), the choice sent back (an int32)."""
        count_selection_messages(counter, parents, 2 * n_shares - 1, senders=senders)
        counter.next_round()
