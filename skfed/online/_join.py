"""Nodes that join after the fit (:meth:`add_nodes`, or ``partial_fit`` with new ids).

A newcomer chooses its neighbours among fitted nodes by the loss of their
functions on its own samples, receives their functions and the network
function, starts from the network function or from its neighbours'
combination (whichever its samples prefer), and streams its samples with
its neighbours' functions held fixed; the fitted nodes do not change.  Every exchange is counted on a simulated
network with the estimator's faults.
"""

import numbers

import numpy as np
from scipy import sparse
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .._base import NodeLayout, _check_label_kinds, check_network_faults, node_seeds
from .._core import _online_fast
from ..kernels import _check_join_kernel_settings
from ..network import float_bytes, payload_bytes, resolve_network
from ._holdout import arrival_rank, loss_values
from ._join_passes import _cross_validated_passes
from ._join_unlike import zero_unlike_starts
from ._join_regress import (_solved, answer_extra_bytes, sent_offset_sums, sent_scale_sums,
                            solved_prior)
from ._join_offset import newcomer_offsets, offset_sums, take_join_offsets
from ._network_function import compress_union, in_width, union
from ._join_means import join_sizes
from ._join_steps import _combination, _join_answers, _join_rounds, _rows_bytes
from ._validation import drop_absent_rows
from ._validation import _check_gamma

# A node that joins after the fit (add_nodes, or partial_fit with a new node
# id) asks this many fitted nodes, drawn at random, for their values on its
# samples and links to the ones whose functions fit them best (as many as the
# median degree of the fitted graph).
_JOIN_CANDIDATES = 10
# A newcomer's join costs at most this fraction of what a fitted node sent,
# on average, during the fit (its candidates are as many as this leaves,
# beyond the functions of its neighbours, between its degree and
# _JOIN_CANDIDATES): with a fifth of the nodes joining, the joins then
# cost about a tenth of a refit.
_JOIN_BUDGET = 0.4
# Passes over its samples a regressor's newcomer may make with its
# neighbours fixed (these up to max_epochs, and max_epochs); cross-validation
# on its samples chooses.
_JOIN_PASSES = (0, 1, 3, 10)
# A classifier's newcomer does not choose its passes so: it makes
# max_epochs passes, as the fit's nodes do (or none, _JOIN_KEEP_ERRORS).
# Measured (benchmarks/new_nodes.py, accuracy, k = 5 / 10 / 20): the choice
# by held-out loss (or by held-out errors, the loss breaking ties) kept the
# neighbours' start for many newcomers where streaming was better: rotated
# moons 50.9 / 54.1 / 59.2 (errors first: 51.8 / 54.1 / 59.8) against 54.1 /
# 57.8 / 63.4 with max_epochs passes (seeds 0-2), HAR 94.8 / 93.9 / 95.2
# against 94.5 / 96.0 / 95.9 (seed 0); on Landmine, whose fitted functions
# transfer, the choice scored 93.1 / 92.9 / 93.2 against 91.8 / 91.9 / 91.6
# (seed 0).
# A newcomer judges its candidates on at most this many of its samples (so
# that a query costs little and more candidates fit in its budget).
_JOIN_QUERY_SAMPLES = 5
# Folds of that cross-validation (leave-one-out below this many samples).
_JOIN_FOLDS = 5
# Cross-validation runs (newcomer x fold) computed together.
_JOIN_BATCH = 64
# A regressor's newcomer starts from its neighbours rather than the network
# function only when they do better on its samples by more than this many
# standard errors of the summed per-sample difference of the losses (the
# one-standard-error rule: the choice is made on 5-20 samples, and the
# network function is the mean of every fitted node, the neighbours a few
# of them).  Measured (benchmarks/new_nodes.py split, seeds 0-2, k = 5 / 10
# / 20, the join's mean score with 0 / 1 / 2 standard errors): School R^2
# 22.9 / 27.7 / 29.6, 24.4 / 28.7 / 30.8, 25.2 / 29.5 / 30.9.  A
# classifier's newcomer compares the error counts without a margin: with one
# standard error rotated moons gained (57.4 / 59.9 / 63.0 -> 58.1 / 60.5 /
# 63.2) but HAR lost (94.8 / 95.7 / 96.0 -> 91.7 / 95.2 / 96.0: more
# newcomers started from the network function with an error among their
# few samples, and so made the passes that cost HAR's starts points, see
# _JOIN_KEEP_ERRORS); Landmine's newcomers all start from the
# network function either way.
_JOIN_START_MARGIN = 1.0
# A regressor's newcomer starts from its neighbours only if, besides that
# margin, their loss on its samples is at most this fraction of the network
# function's (the network function, at its scale, is the mean of every
# fitted node: a few nodes chosen on 5-20 samples must do clearly better,
# not only more than the noise of those samples).  Measured (main at
# f28c2af, benchmarks/new_nodes.py split, School seeds 0-2): the newcomers
# that chose their neighbours had 0.14-0.91 of the network function's loss
# on their samples (k = 5: 0.27-0.90) and lost 0.4-1.3 R^2 points each
# against the network start on the test rows (seed 0, k = 5; four of five);
# the clustered regressions' newcomers (tests/test_online_join_clusters.py,
# seeds 0-1) had 0.04-0.31.  With the ratio (online8, seeds 0-2, k = 5 /
# 10 / 20, R^2 x 100): School 29.7 / 32.9 / 34.0 -> 30.7 / 32.9 / 34.2
# (per seed at k = 5: 28.8 / 29.3 / 30.9 -> 29.7 / 31.6 / 30.9; pooled
# Ridge 31.8 / 31.8 / 31.9), same bytes; the clustered regressions keep
# their neighbours; classifiers do not use it (bit-identical).
_JOIN_START_RATIO = 0.5
# A regressor's newcomer always starts from the network function when the
# fit's consensus_penalty="auto" found the federation alike: the strong
# coupling's mean validation loss at most this many times the weak one's
# (consensus_selection_, summed in the fit and known to every node; no
# message).  Where pooling is nearly as good as personal functions, a few
# nodes chosen on 5-20 samples rarely beat the mean of all.  Measured
# (online9, benchmarks/online_school_start.py, seeds 0-2 / 0-3): the ratio is
# 1.12-1.21 on School and 8.2-12.5 on the clustered regressions
# (tests/test_online_join_clusters.py); School's k = 5 row 30.71 -> 31.89
# (k = 10, 20 unchanged: no newcomer started from its neighbours there;
# pooled Ridge 31.8), clusters unchanged (0.956 over seeds 0-3).
_JOIN_ALIKE = 2.0
# _JOIN_PRIOR (no constant: the rule below).  A regressor's network function
# is a mean of functions, shrunk (School: its linear part about 0.4 of
# Ridge's length), so the newcomer takes it at its scale: every candidate
# that answers in step 1 adds three float64 to its answer, sums over its own
# samples of the fit's last network round (sum w f0 y, sum w f0^2, sum w),
# and the newcomer scales f0 by sum f0 y / sum f0^2 over them (least squares,
# at least 0).  If it starts from that, the network function is a prior
# worth n samples (n the candidates' mean weight), and it makes max_epochs
# passes with its k samples weighted k / (n + k); its neighbours' start is
# kept as before (clustered federations, tests/test_online_join_clusters.py).
# Measured (online7, seeds 0-2, k = 5 / 10 / 20, R^2 x 100 on School):
# 24.4 / 28.7 / 30.8 before, 27.6 / 31.1 / 32.4 with the scale and the
# chosen passes, 29.7 / 32.9 / 34.0 with the weighted passes (pooled Ridge
# 31.8 / 31.8 / 31.9); clustered regressions unchanged (0.971 / 0.989 /
# 0.997).  A margin of 2 or 3 standard errors lifts School's k = 5 to 32.1
# / 31.9 but sends cluster newcomers to the mean (0.85 / 0.72 at k = 5).
# A network function the fit's solve kept (_network_solved) is not a mean
# but the least-squares function of every node's rows: it is taken at
# scale 1 (the factor, 0.87-1.21 on School's candidates, only refits it on
# a few nodes' rows), and its candidates add sum w alone (8 bytes, not 24:
# _join_regress).  Measured (online26, new_nodes.py, R^2 x 100, k = 5 /
# 10 / 20): School seeds 0-2 31.78 / 32.43 / 33.83 -> 32.14 / 32.84 / 34.05,
# seeds 3-5 33.06 / 33.58 / 34.86 -> 33.37 / 33.88 / 35.08 (best pooled
# 31.8 / 31.8 / 31.9 and 33.3 / 33.3 / 33.8); held-out regressions and the
# clustered ones within 0.12; benchmarks/online_join_regress_scale.py.


# A classifier's newcomer keeps its start (no passes over its samples) when
# that misclassifies at most this fraction of them, and otherwise makes
# max_epochs passes like any newcomer: whether it starts from the network
# function or from its neighbours' combination, its start is a mean of
# functions, with small margins, so hinge steps on a few samples override it
# even where it classifies them right.  Measured (benchmarks/new_nodes.py
# split, seed 0, accuracy at k = 5 / 10 / 20): the network start on HAR
# scores 95.7 / 96.1 / 96.8 without passes and 85.7 / 91.5 / 91.4 with
# max_epochs; on rotated moons, where the network function is near chance,
# 55.3 / 55.4 / 56.0 without passes and 56.0 / 57.3 / 60.8 with them.  For
# the neighbours' start too (the join before -> after, mean of seeds 0-2):
# HAR 94.78 / 95.65 / 95.98 -> 95.51 / 95.98 / 96.06 (at most one newcomer
# a seed starts from its neighbours; on seed 1 it scores 97.5 without
# passes, 92.3 / 95.3 / 98.6 with them; per seed in
# benchmarks/online_join_evidence.py), rotated moons 57.4 / 59.8 / 63.0 ->
# 57.3 / 59.7 / 63.0 (still above Local and the refit); Landmine unchanged
# (seeds 0-2: its newcomers start from the network function).
_JOIN_KEEP_ERRORS = 0.1


class _JoinMixin:
    """Adding nodes to a fitted online learner."""

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Add nodes after the fit: each joins the graph and learns its function.

        Every new node (a node id absent from ``nodes_``) joins as follows,
        while the fitted nodes' functions stay exactly as they are:

        1. **Neighbours.**  It asks ``C`` fitted nodes, drawn at random,
           for their values ``f_j(x)`` on its first ``min(k, 5)`` samples
           (those samples out and the values back, or ``j``'s whole
           dictionary when that is cheaper, as in the query exchange) and
           chooses the ``m`` of them whose functions have the smallest
           mean loss on those samples; it links to those of its kernel
           width (all of them with a float ``gamma``; the closest one with
           ``"median"`` or ``"scale"``, see below) and ``adjacency_`` grows
           by these edges.  ``C`` and ``m`` keep its join within a budget:
           0.4 times the bytes a fitted node sent in the fit, on average
           (with a fifth of the nodes joining, the joins then cost about a
           tenth of a refit).  A candidate is priced at the cheaper of its
           query and a dictionary, a neighbour at a dictionary; ``C`` is
           what the budget leaves after one neighbour, between the median
           degree ``deg`` of the fitted graph and ``min(10, n_fitted)``,
           and ``m`` what is left after the candidates, between 1 and
           ``deg``, each newcomer from its own sample count.  Without a
           fit log (nothing sent in the fit) ``C = min(10, n_fitted)`` and
           ``m = deg``.  Fitted node 0 sends it the two means this reads
           (size, bytes: 16 bytes), which node 0 learns in counted messages
           (:mod:`._join_means`).
        2. **Start.**  It receives its neighbours' functions (the copies
           their other neighbours hold with ``exchange_every`` set, their
           dictionaries otherwise: their iterates, which its stream couples
           to, not the averaged ones they predict with) and, from its first neighbour that
           answers, the network function (one dictionary, see
           ``network_dictionary_``).  A regressor's newcomer takes the
           network function at its scale: every candidate that answered in
           step 1 added three float64 to its answer, sums over its own
           samples of the last network round (``sum w f0 y``, ``sum w
           f0^2``, ``sum w``), and it multiplies the network function by
           ``sum f0 y / sum f0^2`` over them (at least 0; 1 without sums;
           the MPI engine's fit keeps the same sums); a network function
           the fit's solve kept is taken at scale 1, and its candidates add
           ``sum w`` alone.  It starts from the network function
           if that does at least as well on its samples as its neighbours
           (a classifier: the errors, since a mean has small margins) or, a
           regressor, unless its neighbours do better by more than one
           standard error of the summed per-sample difference of the
           losses and have at most half its loss, and always when the
           fit's ``consensus_penalty="auto"`` found the nodes alike (the
           strong coupling's validation loss at most twice the weak
           one's, ``consensus_selection_``); the neighbours are judged by leave-one-out over the
           samples that chose them in step 1 (the choice made without each
           in turn) plus their mean on its other samples; it then takes the
           network function's width.  Otherwise it starts
           from its neighbours' combination ``sum_j a_j f_j``, the weights
           fitted on its own samples by least squares (its targets: ``y``,
           or -1 / +1 per class) shrunk towards the mean: ``a = argmin
           sum_s w_s ||sum_j a_j f_j(x_s) - t_s||^2 + rho ||a - 1/m||^2``
           with ``rho`` the mean of ``sum_s w_s ||f_j(x_s)||^2`` over the
           neighbours, so that a few samples cannot move it far from the
           mean.  Of one kernel, that is the union of their dictionaries
           with scaled weights (a repeated point once), compressed by KOMP
           to ``epsilon`` and ``max_dictionary_size`` as after any step.
        3. **Stream.**  It makes ``E`` passes over its samples (shuffled as
           in ``fit``) by the same synchronous rounds as ``fit``, its
           neighbours' functions held fixed: it evaluates the functions it
           received in step 2 in its consensus term (nothing more is sent)
           and they do not step.  A classifier's newcomer makes ``E =
           max_epochs`` passes, as the fit's nodes do (on rotated moons and
           HAR, a choice by its held-out samples kept the start too often),
           or none when its start (the network function or its
           neighbours' combination) misclassifies at most a tenth of its
           samples (a mean's small margins give way to a few samples'
           hinge steps: on HAR the passes cost the network start 5 to 10
           points).  A classifier's newcomer whose start misclassifies its
           samples significantly more than chance (labels opposed to the
           federation's) starts from zero instead and streams unlinked
           (``join_start_ == "zero"``; :mod:`skfed.online._join_unlike`).
           A regressor's newcomer that starts from the network function
           makes ``max_epochs`` passes with its samples' weights
           multiplied by ``k / (n + k)``, ``k`` its total weight and ``n``
           the candidates' mean (the network function a prior worth one
           node's samples).  One that starts from its neighbours chooses
           ``E`` (``join_passes_``) among
           0, 1, 3, 10 (those up to ``max_epochs``) and ``max_epochs`` by
           cross-validation on its own samples (5 folds, leave-one-out
           below 5 samples): the solver's step with its neighbours fixed,
           run exactly in function values at its samples (its own points
           are all a step adds; KOMP is left out), averaged as ``average``
           says, and the held-out loss; the most passes on a tie.  It
           publishes nothing yet: its neighbours receive its function with
           its first publication of a later ``partial_fit`` (or, with the
           query exchange, by their queries), counted there.

        A classifier whose fit opened its newcomer gate
        (``newcomer_rule_ == "features"``) joins instead by feature means:
        each new node starts from the mass-weighted mean of the 5 fitted
        nodes nearest its feature mean, links to them and makes no passes;
        the gate's own messages go with the first join
        (``skfed/online/_join_gate.py``, the user guide's online page).

        Its kernel coefficient is ``gamma`` when that is a float (or its
        label's value in a dict); with ``"median"`` or ``"scale"`` it is its
        closest neighbour's (the one of smallest loss), or the network
        function's when it starts from that: a width estimated from a
        newcomer's few samples is poor, and only functions of its width can
        start it exactly.  (A function of another width enters its start by
        its ridge interpolant at its own points; with a dict ``gamma`` whose
        value no chosen node shares, it links to all of them.)  What
        steps 1-2 send is in ``join_communication_`` together with step 3's
        rounds; ``n_bytes_sent_`` and ``n_messages_`` are the totals of the
        fit and of every join.  Dropped nodes answer nothing in a round
        (the joining node asks again in the next one), rogue nodes answer
        corrupted values (and so are rarely chosen); a new node is rogue
        with probability ``network.rogue_fraction``.  Later ``partial_fit``
        calls treat the new nodes as any other node.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples of the new nodes, with the features of ``fit``.
        y : array-like of shape (n_samples,)
            Their targets (classes of ``classes_`` for the classifier).
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``);
            every id must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies the loss derivative of every sample.

        Returns
        -------
        self
            With the new nodes appended to ``nodes_`` and to every per-node
            attribute.

        Examples
        --------
        >>> import numpy as np
        >>> from skfed.online import DecentralizedKernelSGDClassifier
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(250, 2)); groups = np.repeat([0, 1, 2, 3, 4], 50)
        >>> y = (X[:, 0] * X[:, 1] > 0).astype(int)
        >>> clf = DecentralizedKernelSGDClassifier(
        ...     gamma=1.0, max_epochs=10, random_state=0).fit(X[:200], y[:200], groups[:200])
        >>> before = clf.dual_coef_[0].copy()
        >>> clf = clf.add_nodes(X[200:210], y[200:210], groups=groups[200:210])
        >>> clf.nodes_.tolist()
        [0, 1, 2, 3, 4]
        >>> bool(np.array_equal(clf.dual_coef_[0], before))
        True
        >>> bool(clf.score(X[210:], y[210:], groups=groups[210:]) > 0.8)
        True
        """
        check_is_fitted(self, "dictionaries_")
        _check_join_kernel_settings(self)
        X, y, sample_weight, new_labels, layout = self._validate_join_data(
            X, y, groups, sample_weight, y_numeric=self._is_regressor()
        )
        check_network_faults(self, self.network, {
            "straggler_rate": "a step is one sample and cannot be cut",
        })
        if sample_weight is not None:
            X, y, sample_weight, codes = drop_absent_rows(self, X, y, sample_weight,
                                                          -1 - layout.codes, new_labels)
            layout = NodeLayout(-1 - codes, len(new_labels))
        X = np.ascontiguousarray(X, dtype=self._dtype)
        codes = self._join_new(X, y, sample_weight, -1 - layout.codes, new_labels, offsets=True)
        # (_join_offset) a newcomer's passes fit its targets less its offset
        y_encoded = take_join_offsets(self, codes, self._encode_targets(y), len(new_labels))
        if self._is_regressor() and len(y):
            self._target_scale = max(self._target_scale, float(np.abs(y_encoded).max()))
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        # The step of the grown graph, as the stream below derives it.
        self._resolve_step(X, sample_weight, codes)
        try:
            passes = self._join_passes(X, y_encoded, sample_weight, self.gamma_[-len(new_labels):])
        finally:
            del self._join_values
            self.__dict__.pop("_join_keep", None)
        # A regressor's newcomer that starts from the network function (at
        # its scale) makes max_epochs passes with its samples weighted by its
        # share of the evidence, k / (n + k) (see _JOIN_PRIOR).
        share = self.__dict__.pop("_join_share")
        weighted = np.isfinite(share)
        passes[weighted] = int(self.max_epochs)
        row_share = share[codes - (len(self.nodes_) - len(new_labels))]
        sample_weight = np.where(np.isfinite(row_share), row_share * sample_weight,
                                 sample_weight)
        self.join_passes_ = passes
        held = None
        if self.exchange_every is None:
            # The query exchange's neighbours sent their whole dictionaries in
            # step 2: the joining nodes read those (the solver's copies).
            joined = self.adjacency_[len(self.nodes_) - len(new_labels):]
            held = self._hold_received(np.unique(joined.indices))
        try:
            row_passes = passes[codes - (len(self.nodes_) - len(new_labels))]
            for n_passes in np.unique(passes[passes > 0]):
                # The newcomers of this many passes stream together.
                rows = np.flatnonzero(row_passes == n_passes)
                queues = self._make_queues(codes[rows], int(n_passes), self.shuffle)
                log = self._run(X[rows], y_encoded[rows], sample_weight[rows], queues,
                                int(n_passes), join=True)
                self._record_join(log)
        finally:
            if held is not None:
                self._release_received(*held)
        self._set_fitted()
        return self

    def _hold_received(self, nodes):
        """Load the iterates of ``nodes`` into the copies the solver reads
        (rounded as received); returns what to restore afterwards."""
        saved = (nodes, self._pub_points[nodes].copy(), self._pub_weights[nodes].copy(),
                 self._pub_sizes[nodes].copy())
        if self._pub_points.shape[1] < self._points.shape[1]:
            self._grow(self._points.shape[1])
        for j in nodes:
            size = self._sizes[j]
            weights = self._weights[j, :size]
            if float_bytes(self._dtype) == 4:
                weights = weights.astype(np.float32).astype(np.float64)
            self._pub_points[j, :size] = self._points[j, :size]
            self._pub_weights[j, :size] = weights
            self._pub_sizes[j] = size
        return saved

    def _release_received(self, nodes, points, weights, sizes):
        # The solver may have grown the buffers meanwhile.
        capacity = points.shape[1]
        self._pub_points[nodes, :capacity] = points
        self._pub_points[nodes, capacity:] = 0
        self._pub_weights[nodes, :capacity] = weights
        self._pub_weights[nodes, capacity:] = 0
        self._pub_sizes[nodes] = sizes

    def _join_new(self, X, y, sample_weight, codes, new_labels, offsets=False):
        """Steps 1-2 of :meth:`add_nodes` for the samples with codes < 0.

        ``codes`` holds ``-1 - k`` for a sample of ``new_labels[k]`` (and
        the index into ``nodes_`` of a fitted node's sample).  Appends the
        new nodes to ``nodes_`` and every per-node array, links them into
        ``adjacency_``, sets their starting functions, records what was sent
        as a join and returns ``codes`` with indices into the grown
        ``nodes_``.  With ``offsets`` (``add_nodes``) a regressor's
        newcomers also take their offsets (``_join_offsets_new``,
        :mod:`._join_offset`).
        """
        self._check_join_function_fitted()   # (_linear; before an open gate's join too)
        gated = getattr(self, "_gate_join", None)   # the classifier's gate (_join_gate.py)
        if gated is not None and (joined := gated(X, y, sample_weight, codes, new_labels)) is not None:
            return joined
        _check_label_kinds(self.nodes_, new_labels)
        n_old = len(self.nodes_)
        n_new = len(new_labels)
        new_rows = np.flatnonzero(codes < 0)
        new_codes = -1 - codes[new_rows]
        X_new = X[new_rows]
        y_new = self._encode_targets(np.asarray(y)[new_rows])
        w_new = (np.ones(len(new_rows)) if sample_weight is None
                 else np.asarray(sample_weight, dtype=np.float64)[new_rows])
        gamma = self._join_gamma(new_labels, X_new, new_codes)
        rng, rogue_new, sim = self._join_draws(n_new, 7907)
        degrees = np.diff(self.adjacency_.indptr)
        degree = max(1, int(round(np.median(degrees)))) if n_old else 0
        n_candidates, degree = self._join_sizes(X_new, new_codes, degree, n_old, sim)
        candidates = [np.sort(rng.choice(n_old, size=n_candidates[k], replace=False))
                      for k in range(n_new)]
        offset_stats = getattr(self, "_network_offset_stats", None) if offsets else None
        neighbours, closest, held_out, scale_sums, offset_rows = self._join_select(
            sim, X_new, y_new, w_new, new_codes, candidates, degree, n_old, offset_stats
        )
        if isinstance(self.gamma, str):
            # A data-driven width ("median", "scale") from a newcomer's few
            # samples is a poor estimate, and a start from functions of
            # other widths can only be interpolated: the new node takes the
            # width of its closest neighbour, so that its start is exact
            # (or the network function's, if it starts from that, below).
            gamma = self.gamma_[closest].astype(np.float64)
        for k in range(n_new):
            # It links to the chosen nodes of its own width, whose exact mean
            # it starts from (a neighbour it does not start from would cost
            # its whole function for its values at a few samples); to all
            # of them only when none has its width (an interpolated start).
            same = neighbours[k][self.gamma_[neighbours[k]] == gamma[k]]
            if len(same):
                neighbours[k] = same
        received = self._join_receive(sim, neighbours, n_old)
        network = self._join_receive_network(sim, neighbours, n_old)
        start, self._join_values = [], []
        self.join_start_ = np.empty(n_new, dtype=object)
        self._join_keep = keep = np.zeros(n_new, dtype=bool)
        self._join_share = share = np.full(n_new, np.nan)
        rank = arrival_rank(new_codes, n_new)
        solved = getattr(self, "_network_solved", None)   # (_join_regress)
        linear_scale = np.zeros(n_new)
        for k in range(n_new):
            rows = np.flatnonzero(new_codes == k)
            # The received functions' values at its samples (it evaluates
            # them itself).
            models = received[k]
            gammas = [self.gamma_[j] for j in neighbours[k]]
            values = np.stack([self._join_eval(D, W, g, X_new[rows])
                               for (D, W), g in zip(models, gammas)])
            values = values + self._linear_values(neighbours[k], X_new[rows])  # (_linear)
            D_net, W_net, g_net, c_net = network[k]
            prior = None
            if scale_sums[k] is not None and _solved(solved, c_net):
                # a solved one: at scale 1, its candidates sent sum w only
                prior = solved_prior(*scale_sums[k], self.network_component_, c_net)
            elif scale_sums[k] is not None:
                # (see _network_scale): the network function at its scale
                factor, prior = self._network_scale(*scale_sums[k], c_net)
                W_net = factor * W_net
            net_share = self._network_linear_share(c_net)   # (_linear)
            linear_open = self._linear_gate_open(c_net)
            prefers_network = False
            if not linear_open and len(D_net):
                # Network function or neighbours: by their losses on its
                # samples, the neighbours' by leave-one-out on those that
                # chose them.
                net_rows = w_new[rows] * self._join_criterion(
                    self._join_eval(D_net, W_net, g_net, X_new[rows])
                    + self._linear_term(net_share, c_net, X_new[rows]), y_new[rows])
                later = rank[rows] >= _JOIN_QUERY_SAMPLES
                neighbour_rows = np.empty(len(rows))
                neighbour_rows[~later] = held_out[k]
                if later.any():
                    neighbour_rows[later] = w_new[rows][later] * self._join_criterion(
                        values[:, later].mean(axis=0), y_new[rows][later])
                prefers_network = self._join_prefers_network(net_rows, neighbour_rows)
            if linear_open:
                # (_linear) the fit's gate is open: it starts from w' x
                start.append(self._linear_start())
                self.join_start_[k] = "linear"
                linear_scale[k] = 1.0
            elif prefers_network:
                if isinstance(self.gamma, str):
                    gamma[k] = g_net  # (a given gamma is kept: interpolated)
                start.append(self._join_start([(D_net, W_net)], [g_net], gamma[k], [1.0]))
                self.join_start_[k] = "network"
                linear_scale[k] = net_share
                if prior is not None:
                    own = float(w_new[rows].sum())
                    share[k] = own / (own + prior)
            else:
                coef = _combination(values, self._join_targets(y_new[rows]), w_new[rows])
                start.append(self._join_start(models, gammas, gamma[k], coef))
                self.join_start_[k] = "neighbours"
                # (_linear) the combination's linear terms
                linear_scale[k] = float(np.dot(coef, self._linear_scales(neighbours[k])))
            D0, W0 = start[-1][:2]
            self._join_values.append((rows, values.sum(axis=0),
                                      self._join_eval(D0, W0, gamma[k], X_new[rows])
                                      + self._linear_term(linear_scale[k], c_net,
                                                          X_new[rows])))
            if not self._is_regressor():
                # (see _JOIN_KEEP_ERRORS): its start's weighted errors
                errors = float(np.sum(w_new[rows] * self._join_criterion(
                    self._join_values[-1][2], y_new[rows])))
                keep[k] = errors <= _JOIN_KEEP_ERRORS * w_new[rows].sum()
        zero_unlike_starts(start, self._join_values, y_new, X.shape[1], self._dtype,  # (._join_unlike:
                           neighbours, self.join_start_, self._is_regressor())  # a contradicted start)
        if offset_stats is not None:
            self._join_offsets_new = newcomer_offsets(
                self, scale_sums, offset_rows, [network[k][3] for k in range(n_new)], y_new,
                w_new)
        self._extend_state(new_labels, gamma, rogue_new, neighbours, start)
        self._extend_linear(linear_scale)   # (_linear)
        # It holds the network function of its neighbours' component (the
        # function itself is rebuilt by the next fit or partial_fit).
        self.network_component_ = np.concatenate([self.network_component_,
                                                  self.network_component_[closest]])
        # (not in the mean until the network function is computed again)
        excluded = getattr(self, "network_excluded_",   # (fitted before it existed)
                           np.zeros(len(self.network_component_) - len(closest), dtype=bool))
        self.network_excluded_ = np.concatenate([excluded, np.ones(len(closest), dtype=bool)])
        stats = getattr(self, "_network_fit_stats", None)
        if stats is not None:
            # A regressor's newcomer now holds its component's network
            # function: it computes its own scale sums (nothing is sent), so
            # a later join can query it like a fitted node.
            F = self._network_fit_values(X_new, n_old + new_codes)
            own = self._network_scale_sums(X_new, y_new, n_old + new_codes, w_new, F)
            self._network_fit_stats = np.vstack([stats, own[n_old:]])
            if getattr(self, "_network_offset_stats", None) is not None:   # (_join_offset)
                self._network_offset_stats = np.vstack([self._network_offset_stats, offset_sums(
                    F, y_new, n_old + new_codes, w_new, len(self.nodes_))[n_old:]])
        self._record_join(sim.log(node_labels=self.nodes_))

        codes = codes.copy()
        codes[new_rows] = n_old + new_codes
        return codes

    def _join_draws(self, n_new, salt):
        """A join's public draws: ``(rng, rogue_new, sim)``, each new node
        rogue with probability ``rogue_fraction`` (``rng``, which then draws
        the candidates) and the simulation of the grown federation (its
        stream seeded by ``salt``)."""
        rng = np.random.RandomState([self._network_seed, self._n_calls, 7919])
        network = resolve_network(self.network)
        rogue_new = rng.uniform(size=n_new) < network.rogue_fraction
        sim = clone(network).set_params(
            topology=None, topology_params=None,
            random_state=np.random.RandomState([self._network_seed, self._n_calls, salt]),
        ).start(len(self.nodes_) + n_new, server=False)
        sim.rogue[:] = np.concatenate([self._rogue, rogue_new])
        return rng, rogue_new, sim

    def _join_prefers_network(self, net_rows, neighbour_rows):
        """Whether a newcomer starts from the network function, from the
        per-sample losses (a classifier: errors) of the network function and
        of its neighbours on its samples (the neighbours' by leave-one-out).

        A classifier: unless its neighbours' sum is smaller.  A regressor:
        always when the fit found the federation alike
        (:meth:`_federation_alike`), otherwise unless its neighbours' sum is
        smaller by more than
        ``_JOIN_START_MARGIN`` standard errors of the summed per-sample
        difference (a choice on a few samples between a mean of all nodes
        and a few nodes) and at most ``_JOIN_START_RATIO`` times the network
        function's.
        """
        net_loss, neighbour_loss = float(np.sum(net_rows)), float(np.sum(neighbour_rows))
        if not self._is_regressor():
            return net_loss <= neighbour_loss
        if self._federation_alike():
            return True
        n = len(net_rows)
        margin = 0.0
        if n > 1:
            diff = np.asarray(neighbour_rows) - np.asarray(net_rows)
            margin = _JOIN_START_MARGIN * float(np.sqrt(
                n / (n - 1) * np.sum((diff - diff.mean()) ** 2)))
        return net_loss <= neighbour_loss + margin or neighbour_loss > _JOIN_START_RATIO * net_loss

    def _federation_alike(self):
        """Whether the fit's coupling selection found the nodes alike: the
        strong coupling's mean validation loss at most ``_JOIN_ALIKE`` times
        the weak one's (False without a selection)."""
        selection = getattr(self, "consensus_selection_", None)
        if not selection:
            return False
        weak, strong = np.asarray(selection["mean_validation_error"], dtype=np.float64)[:2]
        return bool(np.isfinite(weak) and np.isfinite(strong) and weak > 0
                    and strong <= _JOIN_ALIKE * weak)

    def _join_targets(self, y):
        """Targets of the start's least squares: ``y`` (regression, binary
        classes as -1 / +1), one-vs-rest -1 / +1 columns for more classes."""
        y = np.asarray(y, dtype=np.float64)
        if self._n_outputs == 1:
            return y[:, None]
        return np.where(np.arange(self._n_outputs)[None] == y[:, None], 1.0, -1.0)

    def _join_eval(self, D, W, gamma, X):
        """``sum_m W[m] k_gamma(D[m], x)`` at the rows of ``X``: (n, n_out)."""
        if len(D) == 0:
            return np.zeros((X.shape[0], self._n_outputs))
        return self._join_kernel(gamma)(X, np.ascontiguousarray(D)) @ W

    def _join_sizes(self, X_new, new_codes, degree, n_old, sim):
        """Every newcomer's ``(n_candidates, n_neighbours)`` within its byte
        budget, from the two means fitted node 0 sends it
        (:func:`._join_means.join_sizes`, where they travel)."""
        return join_sizes(self, X_new, new_codes, degree, n_old, sim,
                          min(_JOIN_CANDIDATES, n_old), _JOIN_BUDGET, _JOIN_QUERY_SAMPLES)

    def _join_passes(self, X_new, y_new, w_new, gamma):
        """Every newcomer's passes over its samples, chosen by cross-validation.

        A classifier's newcomer makes ``max_epochs`` passes, or none where
        it keeps its start (``_JOIN_KEEP_ERRORS``); a regressor's
        chooses.  For every choice ``E`` of ``_JOIN_PASSES`` (up to ``max_epochs``)
        and every fold of its samples (``_JOIN_FOLDS``, leave-one-out below),
        it runs ``E`` passes of the solver's step with its neighbours fixed
        on the other samples, in arrival order, exactly in function values
        at its samples (no compression: its own points are all it adds) and
        averaged as ``average`` says, and scores the held-out samples by the
        loss; it keeps the ``E`` of smallest mean held-out loss (the most
        passes on a tie).  Its own data only: nothing is sent.  All
        newcomers and folds run together, ``_JOIN_BATCH`` runs at a time.
        """
        if not self._is_regressor():
            # max_epochs passes, or none where it keeps its start (see
            # _JOIN_PASSES and _JOIN_KEEP_ERRORS)
            passes = np.full(len(self._join_values), int(self.max_epochs), dtype=np.intp)
            passes[self._join_keep] = 0
            return passes
        choices = sorted({E for E in _JOIN_PASSES if E <= self.max_epochs}
                         | {int(self.max_epochs)})
        if len(choices) == 1:
            return np.full(len(self._join_values), choices[0], dtype=np.intp)
        c, alpha = float(self.consensus_penalty_), float(self.alpha)
        n_joined = len(self._join_values)
        runs, owner, totals = [], [], []
        new_codes = np.zeros(len(y_new), dtype=np.intp)
        for k, (rows, _, _) in enumerate(self._join_values):
            new_codes[rows] = k
        rank = arrival_rank(new_codes, n_joined)
        for k, (rows, neighbour_sum, start) in enumerate(self._join_values):
            i = len(self.nodes_) - n_joined + k
            degree = len(self.adjacency_[i].indices)
            X, y, w = X_new[rows], y_new[rows], w_new[rows]
            n = len(rows)
            K = self._join_kernel(gamma[k])(X, X)
            n_folds = min(n, _JOIN_FOLDS)
            fold = rank[rows] % n_folds  # arrival order within the node
            for f in range(n_folds):
                runs.append((K, start, neighbour_sum, degree, y, w,
                             np.flatnonzero(fold != f), np.flatnonzero(fold == f)))
                owner.append(k)
            totals.append(max(w.sum(), 1e-300))
        scores = np.zeros((n_joined, len(choices)))
        owner = np.asarray(owner, dtype=np.intp)
        for first in range(0, len(runs), _JOIN_BATCH):
            part = _cross_validated_passes(
                runs[first:first + _JOIN_BATCH], choices, self._loss_name(),
                self._join_eta, alpha, c, float(self.average), self._loss_threshold(),
            )
            np.add.at(scores, owner[first:first + _JOIN_BATCH], part)
        scores /= np.asarray(totals)[:, None]
        # The most passes on a tie (the stream of a fit, unless its own
        # samples say otherwise).
        best = len(choices) - 1 - np.argmin(scores[:, ::-1], axis=1)
        passes = np.asarray(choices)[best] if n_joined else np.zeros(0)
        return np.asarray(passes, dtype=np.intp)

    def _join_eta(self, t):
        """The step of a node's step ``t`` (counting from 0) under the schedule."""
        if self.learning_rate == "diminishing":
            return float(self.eta0_) / (1.0 + t) ** float(self.power_t)
        return float(self.eta0_)

    def _join_gamma(self, new_labels, X_new, new_codes):
        """Kernel coefficient of every new node by the ``gamma`` rule."""
        gamma = self.gamma
        if isinstance(gamma, dict):
            missing = [label for label in new_labels.tolist() if label not in gamma]
            if missing:
                raise ValueError(
                    f"gamma is a dict but has no value for the new node(s) {missing[:5]}; "
                    "add their labels to it (set_params) before add_nodes."
                )
            return np.array([gamma[label] for label in new_labels.tolist()], dtype=np.float64)
        if not (gamma is None or isinstance(gamma, (str, numbers.Real))):
            raise ValueError(
                "gamma is an array of one value per fitted node, so it has no value "
                "for the new nodes; pass gamma as a dict keyed by node label that "
                "includes them (set_params) before add_nodes."
            )
        return _check_gamma(gamma, new_labels, X_new, new_codes, self.kernel_)

    def _join_functions(self, nodes, X, published):
        """Values on ``X`` of the functions of ``nodes`` (iterates, or the
        copies their neighbours hold when ``published``): (len(nodes), n, n_out)."""
        out = np.zeros((len(nodes), X.shape[0], self._n_outputs))
        for k, node in enumerate(nodes):
            D, W = self._join_model(node, published)
            if len(D):
                K = np.empty((X.shape[0], len(D)), dtype=self._dtype)
                _online_fast.kernel_matrix(
                    np.ascontiguousarray(X), np.ascontiguousarray(D), K,
                    self._kernel_kind, float(self.gamma_[node]), self._coef0, self._degree,
                )
                out[k] = K.astype(np.float64) @ W
        return out + self._linear_values(nodes, X)   # (_linear)

    def _join_model(self, node, published):
        if published:
            size = self._pub_sizes[node]
            return self._pub_points[node, :size], self._pub_weights[node, :size]
        size = self._sizes[node]
        return self._points[node, :size], self._weights[node, :size]

    def _join_select(self, sim, X_new, y_new, w_new, new_codes, candidates, degree, n_old,
                     offsets=None):
        """Step 1: every new node's neighbours, from its candidates' losses.

        A round at a time: a new node that is dropped, or all of whose
        candidates are, asks again in the next round.  The candidates are
        judged on the node's first ``q = min(k, _JOIN_QUERY_SAMPLES)``
        samples; every candidate that answers costs the cheaper of the query
        (those ``q`` samples out, ``q n_outputs`` values back: two messages)
        and the candidate's dictionary (one message), under the byte model.
        """
        n_new = len(candidates)
        value_bytes = float_bytes(self._dtype)
        header = sim.counter.header_bytes
        n_features, n_out = X_new.shape[1], self._n_outputs
        loss_name = self._loss_name()
        threshold = self._loss_threshold()
        rank = arrival_rank(new_codes, n_new)
        neighbours = [None] * n_new
        closest = np.zeros(n_new, dtype=np.intp)
        held_out = [None] * n_new   # per judged row, in the order of `rows`
        sums = getattr(self, "_network_fit_stats", None) if self._is_regressor() else None
        solved = getattr(self, "_network_solved", None)
        scale_sums = [None] * n_new
        offset_rows = [None] * n_new

        def visit(k, active):
            i = n_old + k
            # Its first _JOIN_QUERY_SAMPLES samples (arrival order) judge.
            rows = np.flatnonzero((new_codes == k) & (rank < _JOIN_QUERY_SAMPLES))
            answer = [j for j in candidates[k] if active[j]]
            if not answer:
                return False
            values = self._join_functions(answer, X_new[rows], published=False)
            query = 2 * header + _rows_bytes(len(rows), n_features, n_out, value_bytes)
            for j in answer:
                # A regressor's candidate adds its sums of the network
                # function's scale (float64) to its answer (_join_regress).
                extra = answer_extra_bytes(sums, solved, self.network_component_, j, offsets)
                dictionary = _rows_bytes(self._sizes[j], n_features, n_out, value_bytes)
                if header + dictionary < query:
                    sim.counter.send_message(j, i, dictionary + extra)
                else:
                    sim.counter.send_message(i, j, len(rows) * n_features * value_bytes)
                    sim.counter.send_message(j, i, len(rows) * n_out * value_bytes + extra)
            if sums is not None:
                scale_sums[k] = (np.asarray(answer, dtype=np.intp), sent_scale_sums(
                    sim, sums, answer, solved, self.network_component_))
                if offsets is not None:   # (_join_offset)
                    offset_rows[k] = sent_offset_sums(sim, offsets, answer, solved,
                                                      self.network_component_)
            if value_bytes == 4:
                values = values.astype(np.float32).astype(np.float64)
            values = sim.corrupt_value_rows(values, answer)
            weights = w_new[rows]
            per_row = np.array([loss_values(loss_name, values[c], y_new[rows], threshold)
                                for c in range(len(answer))]) * weights[None]
            losses = per_row.sum(axis=1) / weights.sum()
            best = np.argsort(losses, kind="stable")[:degree[k]]
            neighbours[k] = np.sort(np.asarray(answer, dtype=np.intp)[best])
            closest[k] = answer[best[0]]
            held_out[k] = self._join_held_out(per_row, values, y_new[rows], weights,
                                              np.asarray(answer), degree[k])
            return True

        _join_rounds(sim, n_old, n_new, visit)
        return neighbours, closest, held_out, scale_sums, offset_rows

    def _join_held_out(self, per_row, values, y, weights, answer, degree):
        """Leave-one-out loss of step 1's choice on the samples it judged by.

        For every judged sample ``s``: the ``degree`` candidates of least
        loss on the other judged samples (those of the best one's width
        with a data-driven ``gamma``, as the links are made), the plain
        mean of their values at ``s``, and its weighted loss at ``s``
        (returned per judged sample, in their order: the start's choice
        sums them, and a regressor's margin needs them one by one).  Its own
        candidates' answers only: nothing is sent.
        """
        means = np.empty(values.shape[1:])
        total = per_row.sum(axis=1)
        for s in range(per_row.shape[1]):
            rest = total - per_row[:, s]
            order = np.argsort(rest, kind="stable")[:degree]
            if isinstance(self.gamma, str):
                width = self.gamma_[answer[order]]
                order = order[width == width[0]]
            means[s] = values[order, s].mean(axis=0)
        return weights * self._join_criterion(means, y)

    def _join_criterion(self, F, y):
        """Per-row criterion of the start's choice: a regressor's loss, a
        classifier's errors (a mean of functions has small margins, so its
        hinge or log loss would misjudge it)."""
        loss = loss_values(self._loss_name(), F, y, self._loss_threshold())
        if self._is_regressor():
            return loss
        F = np.asarray(F).reshape(len(y), -1)
        if F.shape[1] == 1:
            wrong = np.where(F[:, 0] > 0, 1.0, -1.0) != y
        else:
            wrong = np.argmax(F, axis=1) != y
        return wrong.astype(np.float64)

    def _join_receive(self, sim, neighbours, n_old):
        """Step 2: every new node receives its neighbours' functions (as
        received: rounded, corrupted by rogue senders); returns the list of
        ``(points, weights)`` of every new node's neighbours."""
        published = self.exchange_every is not None
        value_bytes = float_bytes(self._dtype)
        n_features, n_out = self._points.shape[2], self._n_outputs
        received = [dict() for _ in neighbours]

        def answer(k, j):
            i = n_old + k
            # The neighbour's iterate as its graph neighbours hold it,
            # not the averaged function it predicts with: the newcomer's
            # stream couples to what it received (its consensus term), as
            # the fit's nodes couple to their neighbours' iterates, and
            # step 1 judged the neighbours by their iterates' values.
            # The averaged functions (same bytes) lost on held-out
            # families (related-clustered 0.25 / 0.57 / 0.20 at k = 5 /
            # 10 / 20, related-wide 0.42 at k = 20, seeds 0-2;
            # benchmarks/online_join_averaged.py).
            D, W = self._join_model(j, published)
            M = len(D)
            if published:
                # A whole copy, as _publish sends it to a neighbour that
                # holds nothing yet.
                payload = M * (n_features * value_bytes + 4) + M * n_out * value_bytes + 4
            else:
                payload = _rows_bytes(M, n_features, n_out, value_bytes)
            sim.counter.send_message(j, i, payload)
            if value_bytes == 4:
                W = W.astype(np.float32).astype(np.float64)
            W = sim.corrupt_value_rows(W[None], [j])[0]
            received[k][j] = (D, W)

        _join_answers(sim, n_old, neighbours, answer)
        return [[received[k][j] for j in neighbours[k]] for k in range(len(neighbours))]

    def _join_receive_network(self, sim, neighbours, n_old):
        """Step 2 (continued): every new node receives the network function
        from its first neighbour that is active (one message: its points and
        weights); returns ``(points, weights, gamma)`` of every new node."""
        value_bytes = float_bytes(self._dtype)
        n_features, n_out = self._points.shape[2], self._n_outputs
        received = [None] * len(neighbours)

        def visit(k, active):
            senders = [j for j in neighbours[k] if active[j]]
            if not senders:
                return False
            j = senders[0]
            c = self.network_component_[j]
            D, W = self.network_dictionary_[c], self.network_coef_[c]
            if self._linear_gate_open(c):
                # (_linear) w instead: d n_out float64
                sim.counter.send_message(j, n_old + k, self._linear_payload())
                received[k] = (D, W, float(self.network_gamma_[c]), c)
                return True
            sim.counter.send_message(j, n_old + k, _rows_bytes(len(D), n_features, n_out,
                                                               value_bytes)
                                     + payload_bytes(n_float64=int(
                                         self._network_linear_share(c) != 0)))
            if value_bytes == 4:
                W = W.astype(np.float32).astype(np.float64)
            W = sim.corrupt_value_rows(W[None], [j])[0]
            received[k] = (D, W, float(self.network_gamma_[c]), c)
            return True

        _join_rounds(sim, n_old, len(neighbours), visit)
        return received

    def _join_start(self, models, gammas, gamma, coef):
        """``sum_j coef[j] f_j`` over the received ``models`` as a function of
        the new node's kernel, compressed by KOMP: ``(points, weights,
        gram_inv, err)``.  A function of its width enters exactly, one of
        another width by its interpolant at its own points
        (:func:`in_width`); a point held by several once
        (:func:`union`)."""
        n_features = self._points.shape[2]
        parts = [in_width(D, W * a, g, gamma, self._join_kernel, self.kernel_ == "linear")
                 for (D, W), g, a in zip(models, gammas, coef)]
        Z, W = union(parts)
        if Z is None:
            return (np.zeros((0, n_features), dtype=self._dtype), np.zeros((0, self._n_outputs)),
                    np.zeros((0, 0)), 0.0)
        Z = np.ascontiguousarray(Z, dtype=self._dtype)
        return compress_union(Z, W, self._join_kernel(gamma)(Z, Z),
                              self.epsilon_ if self._compress else 0.0,
                              self._max_size if self._compress else 0, self._compress)

    def _join_kernel(self, gamma):
        def kernel(A, B):
            K = np.empty((A.shape[0], B.shape[0]), dtype=self._dtype)
            _online_fast.kernel_matrix(
                np.ascontiguousarray(A, dtype=self._dtype),
                np.ascontiguousarray(B, dtype=self._dtype), K,
                self._kernel_kind, float(gamma), self._coef0, self._degree,
            )
            return K.astype(np.float64)

        return kernel

    def _extend_state(self, new_labels, gamma, rogue_new, neighbours, start):
        """Append the new nodes to every per-node array and to the graph."""
        n_old = len(self.nodes_)
        n_new = len(new_labels)
        n_total = n_old + n_new
        self._append_nodes(new_labels)
        largest = max([len(s[0]) for s in start] + [0])
        if largest > self._points.shape[1]:
            self._grow(largest)

        def append(array, fill=0):
            extra = np.full((n_new,) + array.shape[1:], fill, dtype=array.dtype)
            return np.concatenate([array, extra])

        for name in ("_points", "_weights", "_avg_weights", "_pub_points", "_pub_weights",
                     "_gram_inv", "_pub_sizes", "_since_publish", "_n_steps",
                     "_komp_error", "_sizes"):
            setattr(self, name, append(getattr(self, name)))
        self._slot_ids = append(self._slot_ids, -1)
        for k, (D, W, Q, err) in enumerate(start):
            i = n_old + k
            M = len(D)
            self._points[i, :M] = D
            self._weights[i, :M] = W
            self._avg_weights[i, :M] = W
            if self._compress:
                self._gram_inv[i, :M, :M] = Q
            self._sizes[i] = M
            self._komp_error[i] = err
        self.gamma_ = np.concatenate([self.gamma_, gamma])
        rng = np.random.RandomState([self._network_seed, self._n_calls, 7901])
        seeds = node_seeds(rng, n_new)
        self._node_seeds = np.concatenate([self._node_seeds, seeds])
        self._rng_state = np.concatenate([self._rng_state, seeds])
        self._rogue = np.concatenate([self._rogue, rogue_new])
        rows = np.concatenate([np.full(len(nb), n_old + k) for k, nb in enumerate(neighbours)]
                              + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
        cols = np.concatenate(list(neighbours) + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
        A = sparse.coo_matrix(self.adjacency_)
        data = np.concatenate([A.data, np.ones(2 * len(rows), dtype=A.dtype)])
        self.adjacency_ = sparse.csr_matrix(
            (data, (np.concatenate([A.row, rows, cols]), np.concatenate([A.col, cols, rows]))),
            shape=(n_total, n_total),
        )
        self.adjacency_.sort_indices()
        # The stability bound of the step depends on the graph.
        self.__dict__.pop("_lambda_max", None)
        self._order_curve = np.concatenate(
            [self._order_curve, np.zeros((len(self._order_curve), n_new), dtype=np.intp)],
            axis=1,
        )
        self._set_fitted()
