"""Support recovery plus a federated least-squares refit:
:class:`FederatedSparseLinearRegression`."""

import numbers
import warnings

import numpy as np
from scipy import linalg, sparse
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import FederatedRegressorMixin
from .._core._support_fast import refit_statistics
from ..network import payload_bytes
from ._intercepts import (
    _node_moments,
    _node_weights,
    constant_features,
    intercept_prior,
    node_level_values,
    shrunk_intercepts,
)
from ._join import join_sparse_linear
from ._protocol import _OneShotSupportMixin
from ._candidate_test import JOINT_MIN_DF, candidate_test, residual_products, wide_positions
from ._wide_refit import N_FOLDS, auto_candidates, candidate_features, choose_refit, unpack

# Messages of the refit round are computed this many values at a time.
_REFIT_BLOCK = 1 << 22

def _refit_round(X, y, w, layout, support, senders, sim, per_node, shared, moments=False,
                 n_folds=0, corrupt=True, keep=False):
    """Round 2 of the refit: every node's means, the sum of what the senders sent.

    Returns ``means`` (n_nodes, s + 1), each node's weighted ``[mean y,
    mean x_S]``, ``total``, the sum over ``senders`` of their messages
    (``G[triu_indices(m)]`` then ``b``; see
    :func:`~skfed._core._support_fast.refit_statistics`), rogue senders'
    messages corrupted on the way, and ``received``: with ``moments`` the
    senders' whole messages (the statistics then :func:`_node_moments`'
    values, corrupted alike), else None.  Linear in nodes, no Python loop
    over them: messages are computed in Cython a block of senders at a time.
    With ``n_folds``, also ``folds`` (n_folds, m (m + 1) / 2 + m): the sums
    of the statistics over the senders at positions ``f, f + n_folds, ...``
    (the server's cross-validation, :func:`._wide_refit.choose_refit`).
    With ``corrupt=False`` the messages are the honest ones (the caller
    corrupts what is actually sent); with ``keep`` ``received`` holds the
    senders' messages also without ``moments``.
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
    folds = np.zeros((n_folds, n_values))
    extra = _node_moments(y, w, layout, means, node_weight) if moments else None
    received = (np.zeros((len(senders), n_values + (extra.shape[1] if moments else 0)))
                if moments or keep else None)
    step = max(1, _REFIT_BLOCK // max(n_values, 1))
    row = np.zeros(max(m, 1))
    for first in range(0, len(senders) if (n_values or moments) else 0, step):
        block = np.ascontiguousarray(senders[first : first + step])
        messages = np.zeros((len(block), n_values))
        refit_statistics(
            XS, y, w, layout.offsets, block, means, bool(per_node), bool(shared),
            messages, row,
        )
        if moments:  # one message: the statistics, then the moments
            messages = np.hstack([messages, extra[block]])
        if corrupt:
            messages = np.asarray(sim.corrupt_value_rows(messages, block), dtype=np.float64)
        if moments or keep:
            received[first : first + len(block)] = messages
            messages = messages[:, :n_values]
        total += messages.sum(axis=0)
        if n_folds:
            np.add.at(folds, (first + np.arange(len(block))) % n_folds, messages)
    if n_folds:
        return means, total, received, folds
    return means, total, received


class FederatedSparseLinearRegression(
    _OneShotSupportMixin, FederatedRegressorMixin, BaseEstimator
):
    """Sparse linear regression: one-shot support recovery, then a federated refit.

    Round 1 is :class:`FederatedSupportRecovery` (Barik & Honorio's
    Algorithm 1).  Round 2 refits ordinary least squares on the recovered
    support ``S`` (``s = |S|`` features) from sufficient statistics: the
    server broadcasts ``S`` and every answering client sends the upper
    triangle of its Gram matrix ``X_S^T X_S`` and ``X_S^T y``; round 3
    broadcasts the coefficients.  With ``refit_candidates`` (by default 32,
    or fewer for clients of under 17 rows, when at least 5 clients
    answered round 1) the server also tests whether ``S`` is enough: the
    candidates ``C`` are ``S`` and, up to ``c = |C|`` features, those of
    smallest vote p-value.  In round 2c it broadcasts the support's least
    squares and the candidates; each client sends, for every candidate
    ``j`` off ``S``, ``a_ij = sum_t w_t x_tj r_t`` (``r`` its residuals,
    centred with per-node intercepts), and the server tests "mean zero over
    the clients" (a bootstrap-t over the clients of the candidates' largest
    ``|t_j|`` and of their sum of ``t_j^2``, each at 0.025, 1,000 client
    resamples from ``random_state``: :func:`._candidate_test.candidate_test`;
    with fewer than ``k + 10`` round-2 senders, ``k`` the candidates off
    ``S``, it skips the test, too weak there, and asks directly; clients
    dropped in round 2c leave the test fewer, and it runs on those that
    answered, keeping ``S`` when none did).
    Only if it rejects, round 2d asks the clients for the rest of their
    statistics on ``C`` and the server chooses, by 5-fold cross-validation
    over the clients that sent them (clients at positions ``f, f + 5, ...``
    in fold ``f``, the folds' sums of statistics), between least squares on
    ``S`` and ridge on ``C`` with penalty ``alpha G_jj`` on feature ``j``
    (``G_jj`` its summed squares, centred per node; ``alpha`` in 1e-3, 1e-2, 0.1,
    1).  ``support_`` is the vote's either way; ``coef_`` may then be
    non-zero outside it (``refit_features_``, ``refit_alpha_``)::

        round 1:  S = FederatedSupportRecovery(...).support_
        round 2:  coef_S = argmin_b  sum_{i answered} || y_i - c_i - X_{i,S} b ||^2
                  (c_i: the node's intercept, the client's own means when
                  per_node_intercept, one shared intercept otherwise)
        round 3:  every node receives coef_S (and the shared intercept, or
                  the intercepts' prior mu, tau^2 / sigma^2 when shrunk)

    Bytes (``header_bytes`` per message, float64 values):

    * round 1: ``g1 * (ceil(d / 8) + header)`` (the support bits);
    * round 2: ``n_nodes * (ceil(d / 8) + header)`` for the support
      broadcast, plus ``g2 * (8 m (m + 1) / 2 + 8 m + header)`` from the
      answering clients, ``m = s`` (with per-node intercepts the clients
      centre their data first; without intercept) or ``m = s + 1`` (a shared
      intercept: the statistics of ``[1, X_S]``); with
      ``per_node_intercept="shrunk"`` each answering client adds ``8 (s +
      3)`` bytes: its weight ``W_i``, its centred target's weighted sum of
      squares and its means ``[mean y_i, mean x_{i,S}]``, and ``ceil(d /
      8)`` bytes: one bit per feature, whether it is constant on its rows;
    * round 2b (only with shrunk intercepts and ``q > 0`` node-level
      features, those constant on every answering client): ``g2 *
      (ceil(d / 8) + header)`` for the features, ``g3 * (8 q + header)``
      back from the ``g3`` of them that answer (their values ``z_i``);
    * round 3: ``n_nodes * (8 s + header)``, plus 8 bytes each for a shared
      intercept, 16 for shrunk intercepts (``mu`` and ``tau^2 / sigma^2``),
      and with ``q > 0`` another ``8 q + ceil(d / 8)`` (``gamma`` and the
      features).

    With candidates (``k = c - s`` of them off ``S``, ``m_S`` the
    round-2 ``m``, at least 5 round-2 senders):

    * round 2c (with at least ``k + 10`` round-2 senders):
      ``g2 * (8 m_S + ceil(d / 8) + header)`` for the support's
      coefficients and the candidates' bits, ``g2c * (4 k + header)`` back
      (float32 products);
    * round 2d (only if the test rejects, or did not run):
      ``g2 * header`` for the request (plus ``ceil(d / 8)``, the
      candidates' bits, when round 2c did not run),
      ``g2d * (8 (n_C - n_S) + header)`` back, ``n = m (m + 1) / 2 + m`` on
      ``m_C = m_S + k`` and ``m_S`` columns, plus ``8 k`` with shrunk
      intercepts (the candidates' means); round 3 then sends ``c`` for
      ``s`` coefficients and a join the candidates' bits.

    With ``per_node_intercept=True`` each node computes its own intercept
    ``own_i = mean(y_i) - mean(X_{i,S}) coef_S`` from the broadcast
    coefficients; nothing more is sent.  With ``"shrunk"`` (the default)
    the intercepts are random effects, ``own_i = mu + z_i' gamma + u_i +
    e_i`` with ``u_i ~ (0, tau^2)`` and noise variance ``sigma^2 / W_i``,
    ``z_i`` the node's values of the node-level features (constant within
    every node, so invisible to the centred refit; none: ``q = 0``): the
    server estimates ``sigma^2`` (the clients' pooled residual variance),
    ``mu`` and ``gamma`` (least squares of their intercepts on ``[1,
    z_i]``, trimmed by ``rogue_tolerance_`` at each end of the residuals,
    ``gamma`` kept only if an F test of ``gamma = 0`` rejects at level
    0.01; with ``q = 0`` the trimmed mean) and ``tau^2`` (the residuals' variance
    less the noise's) by moments, and node ``i`` takes the best linear
    unbiased predictor, with ``p_i = mu + z_i' gamma``::

        intercept_i = p_i + W_i tau^2 / (W_i tau^2 + sigma^2) (own_i - p_i)

    A node of few samples moves toward ``p_i``, a large one keeps nearly
    its own; under 4 consistent answering clients (or ``sigma^2 = 0``)
    every node keeps ``own_i``.  ``W_i`` is the node's summed sample
    weight (its number of samples when unweighted: integer weights count
    as repeated rows).  A rogue client's values that fail the server's
    checks (``W_i >= 1``, non-negative residuals, finite) are left out; one
    that passes can only widen the intercepts' spread, which weakens the
    shrinkage toward the exact ``own_i``.

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
    per_node_intercept : bool or "shrunk", default="shrunk"
        With ``fit_intercept``: one intercept per node (heterogeneous
        nodes) rather than one shared intercept (False).  True: each node's
        exact intercept ``own_i`` from its own rows.  ``"shrunk"``: each
        node's intercept shrunk toward the federation's mean by its evidence
        (above), for ``s + 3`` more float64 per client in round 2 and 2 in
        round 3; on School's newcomers of 5 samples it lifts the R^2 from
        0.226 to 0.288, on every measured family it is at or above True
        (``benchmarks/support_shrunk_intercepts.py``).
    refit_candidates : int >= 0 or "auto", default="auto"
        Number of candidate features ``c`` of the refit: the support and
        the features of smallest vote p-value (ties by index); the server
        keeps the support's least squares or a ridge on
        all ``c`` by cross-validation over the clients (above), but asks
        for the candidates' statistics only when a test of their products
        with the support's residuals (one float32 per candidate and client)
        rejects "the support is enough" (with fewer than ``c - s + 10``
        answering clients, too few for the test, it asks directly).  0 (or
        at most ``s``): the support alone.  ``"auto"``: 32 when at least 5
        clients answered round 1, else the support alone; fewer when the
        median answering client has under 17 rows: the largest ``c`` whose
        statistics do not outnumber that client's rows on the ``c``
        columns, ``c (c + 1) / 2 + c <= n (c + 1)`` (18 for 10 rows).  When
        the test keeps the support (exact sparse models whose support the
        vote found) a client sends ``c - s`` float32 more than without
        candidates; when it rejects, about ``c (c + 1) / 2 + 2 c``
        instead of ``s (s + 1) / 2 + s``.  On exact sparse designs the fit
        sends 1.2-1.6 times its bytes without candidates (3-12 times when
        every client always sent the candidates' statistics).  On School's newcomers R^2 rises
        from 0.305 / 0.320 / 0.332 to 0.335 / 0.347 / 0.359 (``k`` = 5 /
        10 / 20), and by up to 25 points on held-out families whose support
        the vote finds only in part (``benchmarks/support_wide_refit.py``).
        If fewer than 5 clients answer round 2 (or round 2d) the support's
        refit is kept (with an integer given, a warning says so).
    auto_z, fwer : float, default=None
        The ``alpha="auto"`` rule's level and the server's test's family-wise
        error rate; see :class:`FederatedSupportRecovery` (defaults 1.0 and
        0.05).
    rogue_tolerance : float, "auto" or None, default="auto"
        The rogue fraction the server's test tolerates; ``"auto"`` resolves
        it from the clients' sizes (0.1 when every client has at least
        ``d + 4`` samples, 0.02 when none has); see
        :class:`FederatedSupportRecovery`.
    n_reported : int or "auto", default="auto"
        Features each client reports in round 1; see
        :class:`FederatedSupportRecovery`.
    vote : {"selection", "sign", "auto"}, default="auto"
        What each client sends per feature in round 1: the selection bit,
        or the sign of the feature's coefficient given its closest
        features (``"sign"``, for dense correlated supports and clients of
        few samples); ``"auto"`` (``vote_``) picks the sign for at least
        1,000 clients of 9-10 samples; see
        :class:`FederatedSupportRecovery`.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        With per-node intercepts, a node never seen in fit is predicted with
        ``intercept_mean_`` (shrunk intercepts) or the mean of the nodes'
        intercepts; ``"error"`` raises.
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
        Public randomness, among it the client resamples of the round-2c
        test (no privacy noise comes from it).
    n_jobs : int, default=None
        Number of threads that run the client passes.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Shared coefficients, zero outside ``refit_features_`` (and outside
        ``support_`` unless the server chose the ridge).
    refit_features_ : ndarray of shape (c,)
        Indices of the refit's columns: the support, or the candidates
        when round 2d ran with at least 5 answers.
    refit_alpha_ : float or None
        The ridge's ``alpha`` the cross-validation chose; None: least
        squares on the support.
    refit_test_features_ : ndarray of shape (c - s,) or None
        The candidates off the support the round-2c test tested (sorted);
        None without the test (no candidates, or too few clients).
    refit_test_pvalues_ : ndarray of shape (c - s,) or None
        Their bootstrap max-t adjusted p-values: the fraction of the
        1,000 client resamples whose largest ``|t*|`` is at least the
        candidate's ``|t|`` (as ``(1 + count) / 1001``); the test rejects
        when the smallest is at most 0.025.
    refit_test_joint_pvalue_ : float or None
        The bootstrap p-value of the candidates' sum of ``t_j^2`` (rejects
        at most 0.025); None without the test.
    refit_asked_ : bool
        Whether round 2d asked for the candidates' statistics (the test
        rejected, or too few clients for it).
    refit_test_answered_, refit_candidates_answered_ : ndarray of shape (n_nodes,), dtype=bool
        Clients whose products arrived in round 2c, whose statistics in 2d.
    refit_cv_losses_ : ndarray of shape (5,) or None
        Each model's cross-validated loss, the fold's residual sum of
        squares less its ``y' y`` summed over the folds (least squares on
        the support first, then each ``alpha``); None without the
        cross-validation.
    intercept_ : ndarray of shape (n_nodes,) or float
        Per-node intercepts (``per_node_intercept``), else one float (0.0
        without ``fit_intercept``).
    intercept_mean_ : float
        ``mu``, the intercepts' prior mean (only with
        ``per_node_intercept="shrunk"``).
    intercept_ratio_ : float
        ``tau^2 / sigma^2`` (``inf``: no shrinkage; only with
        ``per_node_intercept="shrunk"``).
    node_level_ : ndarray of shape (q,)
        Indices of the node-level features (constant on every answering
        client's rows, with at least two values over the clients: an
        all-zero column is not one) the prior's mean uses (only with
        ``per_node_intercept="shrunk"``).
    intercept_coef_ : ndarray of shape (q,)
        ``gamma``, the prior mean's coefficients on ``node_level_`` (only
        with ``per_node_intercept="shrunk"``).
    support_, votes_, n_reports_, vote_fraction_, debiased_fraction_, pvalues_, \
    reference_rate_, feature_reference_rate_, rogue_tolerance_, client_supports_, \
    ols_clients_, n_controls_, answered_, rogue_, n_answered_, vote_, \
    neighbour_reference_rate_, explained_by_, sign_band_, sign_centre_margin_
        As in :class:`FederatedSupportRecovery` (round 1; the last two only
        with the sign vote).
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
    bytes_per_round_ : ndarray of shape (n_rounds,)
        Rounds 1, 2, (2b), (2c), (2d), 3 as they ran.

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
        "per_node_intercept": ["boolean", StrOptions({"shrunk"})],
        "refit_candidates": [Interval(numbers.Integral, 0, None, closed="left"),
                             StrOptions({"auto"})],
    }

    def __init__(
        self,
        alpha="auto",
        *,
        threshold="auto",
        fit_intercept=True,
        per_node_intercept="shrunk",
        refit_candidates="auto",
        auto_z=None,
        rogue_tolerance="auto",
        fwer=None,
        n_reported="auto",
        vote="auto",
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
        self.refit_candidates = refit_candidates
        self.auto_z = auto_z
        self.rogue_tolerance = rogue_tolerance
        self.fwer = fwer
        self.n_reported = n_reported
        self.vote = vote
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
        shrunk = bool(per_node) and self.per_node_intercept == "shrunk"
        shared = self.fit_intercept and not self.per_node_intercept
        # the refit's columns: the support, or with refit_candidates the
        # candidates (support first, then the smallest vote p-values)
        columns = support
        auto = self.refit_candidates == "auto"
        # "auto": AUTO_CANDIDATES when round 1 had enough answering clients
        # for the server's cross-validation, else the support alone
        # (capped so that the median answering client's statistics do not
        # outnumber its rows on those columns: auto_candidates)
        sizes = np.diff(layout.offsets)[self.answered_]
        n_candidates = ((auto_candidates(sizes) if self.n_answered_ >= N_FOLDS else 0)
                        if auto else self.refit_candidates)
        if n_candidates > s:
            columns = candidate_features(self.support_, self.pvalues_, self.votes_,
                                         n_candidates)
        candidates, columns = columns, support
        wide = len(candidates) > s
        m = s + 1 if shared else s
        all_nodes = np.arange(n_nodes, dtype=np.intp)

        # Round 2: the server broadcasts S; answering clients send statistics
        # on S (and, for shrunk intercepts, their moments).
        counter = sim.counter
        counter.broadcast_from_server(
            all_nodes, np.full(n_nodes, payload_bytes(n_bits=d), dtype=np.int64)
        )
        active, work = sim.draw_round()
        answered = active & (work >= 1.0)
        senders = np.flatnonzero(answered).astype(np.intp)
        alpha, self.refit_cv_losses_ = None, None
        self.refit_test_pvalues_, self.refit_test_joint_pvalue_ = None, None
        self.refit_test_features_, self.refit_asked_ = None, False
        self.refit_test_answered_ = np.zeros(n_nodes, dtype=bool)
        self.refit_candidates_answered_ = np.zeros(n_nodes, dtype=bool)
        means, total, received = _refit_round(
            X, y, w, layout, support, senders, sim, per_node, shared, moments=shrunk,
            keep=wide)
        gram, rhs = unpack(total, m)
        n_values = m * (m + 1) // 2 + m + (s + 3 if shrunk else 0)
        # with shrunk intercepts each sender adds one bit per feature: whether
        # the feature is constant on its rows
        counter.gather_to_server(
            senders,
            np.full(len(senders), payload_bytes(n_float64=n_values, n_bits=d if shrunk else 0),
                    dtype=np.int64),
        )
        counter.next_round()
        levels, level_rows, second = np.zeros(0, dtype=np.intp), None, None
        if shrunk and len(senders):
            levels = np.flatnonzero(constant_features(X, layout)[senders].all(axis=0))
        if len(levels):
            # Round 2b: the server sends the node-level features (d bits) to
            # the senders; those that answer send their q values.
            counter.broadcast_from_server(
                senders, np.full(len(senders), payload_bytes(n_bits=d), dtype=np.int64))
            active, work = sim.draw_round()
            second = (active & (work >= 1.0))[senders]
            values = node_level_values(X, layout, levels)[senders[second]]
            level_rows = np.asarray(sim.corrupt_value_rows(values, senders[second]),
                                    dtype=np.float64)
            counter.gather_to_server(
                senders[second],
                np.full(int(second.sum()), payload_bytes(n_float64=len(levels)),
                        dtype=np.int64))
            counter.next_round()
            # A feature with one value on every answering client (an all-zero
            # column above all) is constant per node but carries nothing the
            # prior's mean does not: it leaves the node-level features (it
            # would only take a degree of freedom from the F test of gamma).
            finite = np.isfinite(level_rows).all(axis=1)
            varies = (np.ptp(level_rows[finite], axis=0) > 0 if finite.any()
                      else np.ones(len(levels), dtype=bool))
            levels, level_rows = levels[varies], level_rows[:, varies]
            if not len(levels):
                level_rows, second = None, None

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
        if wide and len(senders) < N_FOLDS and len(senders):
            if not auto:
                warnings.warn(
                    f"refit_candidates={self.refit_candidates}: only {len(senders)} "
                    f"clients answered the refit round, fewer than the {N_FOLDS} folds the "
                    "server's cross-validation needs, so the coefficients are least "
                    "squares on support_ (the candidates were not tested).",
                    UserWarning, stacklevel=2)
        elif wide and len(senders):  # (nobody to test or ask without senders)
            # Rounds 2c (the test) and 2d (the candidates' statistics, only
            # if the test rejects "the support is enough")
            outcome = self._candidate_rounds(
                X, y, w, layout, sim, support, candidates, senders, received, solution,
                per_node, shared, shrunk, auto)
            if outcome is not None:
                columns, solution, means, received, alpha, self.refit_cv_losses_ = outcome
        if shrunk:
            prior_rows = received if second is None else received[second]
        c = len(columns)
        m = c + 1 if shared else c

        # Round 3: the server broadcasts the coefficients (and the prior).
        # (with node-level features: gamma, q values, and the features, d bits)
        n_sent = m + (2 + len(levels) if shrunk else 0)
        counter.broadcast_from_server(
            all_nodes, np.full(n_nodes, payload_bytes(
                n_float64=n_sent, n_bits=d if len(levels) else 0), dtype=np.int64)
        )
        counter.next_round()

        coef_S = solution[1:] if shared else solution
        self.coef_ = np.zeros(d)
        self.coef_[columns] = coef_S
        self.refit_features_ = columns
        self.refit_alpha_ = alpha
        if per_node:
            own = means[:, 0] - means[:, 1:] @ coef_S
            if shrunk:
                trim = float(getattr(self, "rogue_tolerance_", 0.0) or 0.0)
                mu, ratio, gamma = intercept_prior(prior_rows, coef_S, trim, level_rows)
                if not np.isfinite(mu):  # no client answered: the nodes' mean
                    mu = float(own.mean())
                self.intercept_mean_ = mu
                self.intercept_ratio_ = ratio
                self.node_level_ = levels
                self.intercept_coef_ = gamma
                prior = mu + node_level_values(X, layout, levels) @ gamma
                self.intercept_ = shrunk_intercepts(own, _node_weights(w, layout), prior, ratio)
            else:
                self.intercept_ = own
        elif shared:
            self.intercept_ = float(solution[0])
        else:
            self.intercept_ = 0.0
        self.refit_answered_ = answered
        if s == 0 and d > 0:
            # A sparse model by assumption: with every feature's effect too
            # weak for the vote (a dense model, or too few clients) the refit
            # is intercepts only, which the user should hear (review13: a
            # dense d = 500 model fitted R^2 -0.03 without a word), or, with
            # candidates whose test rejected, the ridge the server's
            # cross-validation chose on them (review16: the warning said
            # intercepts only there too).
            if np.any(self.coef_):
                what = (f"the coefficients are the refit's ridge on its {len(columns)} "
                        "candidates (refit_features_: the smallest vote p-values, chosen "
                        "by the server's cross-validation), not a sparse model")
            else:
                what = f"{type(self).__name__} predicts the intercepts only"
            warnings.warn(
                f"No features were selected: no feature's vote was significant, so "
                f"{what}. It assumes a "
                "sparse model; if every feature matters a little (a dense model), "
                "use a dense estimator (MOCHA, or Ridge per node or pooled); "
                "pvalues_ has every feature's p-value.",
                UserWarning, stacklevel=2,
            )
        self._set_communication(sim)
        return self

    def _candidate_rounds(self, X, y, w, layout, sim, support, candidates, senders, received,
                          solution, per_node, shared, shrunk, auto):
        """Rounds 2c and 2d of the wider refit.

        2c: the server broadcasts the support's least squares ``solution``
        and the candidates' bits to the round-2 senders; each that answers
        sends its :func:`._candidate_test.residual_products` (one float32 per
        candidate off the support).  If :func:`._candidate_test.candidate_test`
        keeps "the support is enough", returns None.  2d: the server asks the
        round-2 senders (a header) for the rest of their statistics on the
        candidates (the Gram's entries and products with ``y`` that round 2
        did not carry; with shrunk intercepts also the candidates' means);
        with at least :data:`N_FOLDS` answers the server's cross-validation
        (:func:`._wide_refit.choose_refit`) runs on their whole statistics
        (round 2's part as received).  Returns ``(columns, solution, means,
        received, alpha, losses)`` on the candidates (``received`` one row
        per round-2 sender, NaN for those that did not answer 2d), or None.
        """
        d, s, c = X.shape[1], len(support), len(candidates)
        counter = sim.counter
        m_s, m_c = s + int(shared), c + int(shared)
        extra = np.setdiff1d(candidates, support).astype(np.intp)
        # the joint test needs JOINT_MIN_DF more clients than candidates:
        # with fewer the server asks for the statistics without a test
        tested = len(senders) >= len(extra) + JOINT_MIN_DF
        if tested:
            counter.broadcast_from_server(senders, np.full(
                len(senders), payload_bytes(n_float64=m_s, n_bits=d), dtype=np.int64))
            active, work = sim.draw_round()
            testers = senders[(active & (work >= 1.0))[senders]]
            self.refit_test_answered_[testers] = True
            # sent as float32: the test needs no more precision
            products = residual_products(X, y, w, layout, testers, support, extra, solution,
                                         per_node, shared).astype(np.float32)
            products = np.asarray(sim.corrupt_value_rows(products, testers), dtype=np.float64)
            counter.gather_to_server(testers, np.full(
                len(testers), payload_bytes(n_float32=len(extra)), dtype=np.int64))
            counter.next_round()
            # the bootstrap's client resamples: public randomness, its own stream
            pvalues, p_joint, rejected = candidate_test(
                products, random_state=np.random.RandomState([self._sign_seed(), 2]))
            self.refit_test_pvalues_, self.refit_test_joint_pvalue_ = pvalues, p_joint
            self.refit_test_features_ = extra
            if not rejected:
                return None
        self.refit_asked_ = True
        # the request (untested: with the candidates' bits)
        counter.broadcast_from_server(senders, np.full(
            len(senders), payload_bytes(n_bits=0 if tested else d), dtype=np.int64))
        active, work = sim.draw_round()
        second = (active & (work >= 1.0))[senders]
        wide = senders[second]
        self.refit_candidates_answered_[wide] = True
        on_support = np.searchsorted(candidates, support) + int(shared)
        if shared:
            on_support = np.concatenate([[0], on_support])
        inside, _ = wide_positions(on_support, m_c)
        n_c = m_c * (m_c + 1) // 2 + m_c
        if shrunk:  # the moments: W, yy, mean y, then the candidates' means
            inside = np.concatenate([inside, n_c + np.arange(3), n_c + 3 + on_support])
        means, _, honest = _refit_round(X, y, w, layout, candidates, wide, sim, per_node,
                                        shared, moments=shrunk, corrupt=False, keep=True)
        outside = np.setdiff1d(np.arange(honest.shape[1]), inside)
        rows = np.empty_like(honest)
        rows[:, inside] = received[second]
        rows[:, outside] = sim.corrupt_value_rows(honest[:, outside], wide)
        counter.gather_to_server(wide, np.full(
            len(wide), payload_bytes(n_float64=len(outside)), dtype=np.int64))
        counter.next_round()
        if len(wide) < N_FOLDS:
            if not auto:
                warnings.warn(
                    f"refit_candidates={self.refit_candidates}: only {len(wide)} clients "
                    f"sent the candidates' statistics, fewer than the {N_FOLDS} folds the "
                    "server's cross-validation needs, so the coefficients are least "
                    "squares on support_.", UserWarning, stacklevel=3)
            return None
        stats = rows[:, :n_c]
        folds = np.zeros((N_FOLDS, n_c))
        np.add.at(folds, np.arange(len(wide)) % N_FOLDS, stats)
        penalized = np.ones(m_c, dtype=bool)
        penalized[: int(shared)] = False
        solution, alpha, losses = choose_refit(stats.sum(axis=0), folds, m_c, on_support,
                                               penalized)
        full = np.full((len(senders), rows.shape[1]), np.nan)
        full[second] = rows
        return candidates, solution, means, full, alpha, losses

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Add nodes after the fit: each receives the model and sets its intercept.

        The shared model (``support_``, ``coef_``) was refitted on the
        fitted clients' statistics, so a new node does not vote (its vote
        could change the support, and the coefficients would then need a
        refit by every client): the server sends it the bits of the
        refit's columns (``refit_features_``) and the coefficients, as in
        round 3 (``ceil(d / 8) + header`` and ``8 m + header`` bytes, ``m =
        c``, or ``s`` without candidates, plus 1 for a shared intercept, plus 2
        for shrunk intercepts: the fit's ``mu`` and ``tau^2 / sigma^2``, plus
        ``8 q + ceil(d / 8)`` with ``q > 0`` node-level features: ``gamma``
        and the features), and with per-node intercepts it computes its
        own, ``mean(y) - mean(X_C) coef_C`` (weighted), from its rows,
        shrunk by its weight with ``"shrunk"`` toward ``mu + z' gamma``, ``z``
        its means of ``node_level_`` (the newcomers do not change the
        prior).  A node dropped by the network
        in that round receives it in the next one.  The fitted nodes are
        unchanged; their votes and statistics are not sent again.  New
        nodes are not in ``answered_`` / ``refit_answered_`` /
        ``refit_test_answered_`` / ``refit_candidates_answered_`` /
        ``ols_clients_`` (``client_supports_`` rows are all False,
        ``n_controls_`` 0); ``reported_features_`` keeps the voters' rows
        only.

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
        return join_sparse_linear(self, X, y, groups, sample_weight)

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
        unseen = getattr(self, "intercept_mean_", None)
        if unseen is None:
            unseen = self.intercept_.mean()
        intercepts = np.append(self.intercept_, unseen)
        return pred + intercepts[codes]
