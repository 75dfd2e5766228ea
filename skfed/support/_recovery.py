"""The one-shot selector: :class:`FederatedSupportRecovery`."""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from .._base import check_groups
from ._protocol import _OneShotSupportMixin


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
    * a smaller client tests each feature given its ``k`` closest ones: it
      picks the ``k`` features most correlated with ``x_j`` in its own rows
      (from ``X`` alone, never ``y``), regresses ``y`` on ``x_j`` and them,
      and selects ``j`` when the t-test of ``x_j``'s coefficient passes at
      level ``q0`` (``df = n_i - 2 - k``), ``k = min(4, d - 1, (n_i - 1) //
      3, n_i - 5)`` (``n_i`` instead of ``n_i - 1`` without intercept; 3
      controls at 10 samples, 4 from 13 on).  Very wide clients (``d > 20
      median(n_i)``, the median over the clients that answer the round)
      keep a sphericity gate instead: one whose design looks
      uncorrelated runs the marginal test, the others use ``(n_i - 1) // 4``
      controls (at ``d = 1000`` and 10 samples the controls are chance
      correlations).  A feature outside the support
      whose controls hold the support features it is correlated with (its
      two neighbours on a Toeplitz design) is selected at rate ``q0``,
      where the marginal test would select it as often as a support
      feature;
    * a client too small for one control (5 samples or fewer) selects ``j``
      when the sample correlation passes the t-test of ``corr(x_j, y) = 0``
      at level ``q0`` (``df = n_i - 2``): the lasso for uncorrelated
      predictors with the per-feature lambda ``r_i sqrt(sigma_ij
      var_i(y))``.

    The server then runs, for every feature, a one-sided binomial test of
    its votes against the highest rate a feature outside the support can
    reach, ``reference = (1 - beta) q0 + beta`` with ``beta =
    rogue_tolerance_`` (a fraction ``beta`` of rogue clients may send
    anything; 0.1 at the defaults when the clients have ``d + 4`` samples,
    0.02 when they have fewer), at family-wise level ``fwer`` over the
    ``d`` features (Bonferroni)::

        S = {j : P(Binomial(g, reference) >= votes_j) <= fwer / d}

    so a feature that clients detect at any rate above ``reference`` is
    recovered once there are enough clients, and more clients never hurt:
    the number of clients needed is ``O(log(d / fwer) / KL(q1 || reference))``
    for a feature detected at rate ``q1``, the paper's ``O(log d)``.

    A client with fewer than ``d + 4`` samples cannot condition on its
    features' real neighbours when ``d`` is large against its rows (its
    closest features are chance correlations), so a feature outside the
    support next to a support feature is selected above ``q0``.  Under the
    selection vote, when the clients are very wide (``d > 20 median(n_i)``,
    public), such clients therefore also send ``d`` sketch bits in the same
    message, the signs of one random zero-sum combination of their
    centred rows (from ``X`` alone), from which the server estimates the
    features' correlations ``rho``; after the binomial test it re-tests
    every selected feature ``j`` correlated with another selected ``l``
    against the rate ``j`` would reach from ``l`` alone (its test's
    noncentrality ``|rho_jl|`` times ``l``'s, read off ``l``'s vote
    fraction) and drops it unless its votes are significantly above that
    (:mod:`skfed.support._neighbours`).  This stage only removes features,
    so the test's family-wise error bound holds whatever rogue clients
    send.

    Each answering client sends one message of ``ceil(k / 8)`` bytes plus
    the header, ``k = n_reported`` (all ``d`` features by default), and a
    client of the small-client rule ``ceil(d / 8)`` more bytes of sketch
    under the selection vote with very wide clients; nothing else is
    communicated.

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
    rogue_tolerance : float in [0, 0.5), "auto" or None, default="auto"
        The fraction ``beta`` of answering clients that may be rogue
        (sending anything) without a false positive beyond ``fwer``.  A
        larger value protects against more rogue clients but needs clients
        to detect a support feature at a higher rate, ``(1 - beta) q1 > q0 +
        beta (1 - q0)``; with ``auto_z=1``, ``rogue_tolerance=0.3`` keeps the
        features detected at rate 0.75 or more.  ``"auto"`` (None is the
        same) resolves it from public quantities only, the answering
        clients' numbers of samples and ``d``, never from their votes::

            f    = share of the answering clients with n_i >= d + 4
                   (d + 3 without intercept): those that run the OLS test
            beta = 0.02 + (0.1 - 0.02) f

        so the fit tolerates a rogue fraction of 0.1 when every client has
        at least ``d + 4`` samples and 0.02 when none has (the resolved
        value is ``rogue_tolerance_``).  A client with fewer samples tests
        each feature on its few rows: on dense correlated designs it selects
        a support feature barely above ``q0`` (0.33-0.46 on a Toeplitz
        design with 10 of 20 features at 3 noise sd and 10 samples a
        client), below the 0.386 that 0.1 requires.  0.02 was chosen over
        0 to 0.1 on the independent, Toeplitz and heterogeneous designs of
        ``benchmarks/support_rogue_auto.py`` and the phase-transition
        problems: it recovers those dense supports, but a feature outside
        the support that such clients select at 0.34-0.37 (next to a strong
        support feature) becomes significant at 3,000-10,000 clients where
        0.1 keeps it out (see the user guide).  Under ``privacy`` (whose
        clients do not send their sizes) ``"auto"`` is 0.1.  With the sign
        vote (``vote_ == "sign"``, which ``vote="auto"`` picks for many
        small clients)
        ``"auto"`` is 0.05 (the band ``median +- beta``).  When the
        simulated ``network`` makes more clients rogue than the resolved
        value, the fit warns.  A number is used as given.  Only with
        ``alpha="auto"`` and ``threshold="auto"``.
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
    vote : {"selection", "sign", "auto"}, default="auto"
        What each client sends per feature and how the server tests it.
        ``"auto"`` (``vote_``): ``"sign"`` for many small clients, at least
        1,000 clients with a sample, of 9-10 samples (their median),
        with ``20 <= d <= 20 median(n_i)`` and ``alpha``, ``threshold`` and
        ``auto_z`` at their defaults; ``"selection"`` otherwise, and under a
        finite ``privacy`` budget (whose clients do not send their sizes).
        Resolved from these public quantities only, never from the votes.
        Measured at 10,000 clients of 10 samples (5 designs, ``d = 20 /
        200``, 5 seeds) the sign vote is exact on every problem, where the
        selection vote misses dense correlated supports (Toeplitz and
        heterogeneous 20/10, equicorrelated 200/5); with 7 controls at 10
        samples its features next to the support stay at least 0.013
        inside the band from 10,000 to 1,000,000 clients (Toeplitz 20/3,
        seeds 0-4), so recovery does not fall with more clients; see the
        user guide.  A dense model (more than half of the ``d`` features in
        the support) breaks the sign vote's median (it is then a support
        feature's); the fit warns, use ``"selection"``, when more than half
        of the features are selected or when a selected feature's sign
        fraction is not significantly different from 1/2 (two-sided
        binomial test at ``fwer / d``), the fraction a feature outside the
        support sends when it is independent of the others: then the
        median is not the null fraction.  Measured at 2,000 clients of 10
        samples, this warns on independent 20/16 and Toeplitz 20/16 (seeds
        0-1, 2-4 features outside the support selected) and not on the
        sparse 20/3 designs (equicorrelated: median 0.609); it does not
        catch a dense model whose features outside the support stay inside
        the band (independent 30/24: 3-7 of 24 selected; 20/14 seed 1: 4
        of 14; no warning;
        ``benchmarks/support_sign_dense.py``).
        ``"selection"``: the bit "selected" of the client rule above,
        tested against its null rate ``q0`` plus the rogue margin.
        ``"sign"`` (``alpha="auto"``, ``threshold="auto"`` and
        ``auto_z=None``; anything else is refused): the sign of each
        feature's coefficient.  A
        client with at least ``d + 4`` samples (``d + 3`` without
        intercept) sends the signs of its least-squares coefficients on all
        ``d`` features; a smaller one the sign of ``x_j``'s coefficient when
        ``y`` is regressed on ``x_j`` and its ``K`` most correlated features
        in its rows (chosen from ``X`` alone), ``K = min(max(7, m - 4), 32, d
        - 1, m - 2)`` with ``m = n_i - fit_intercept``: 7 at 10-12
        samples, 25 at 30.  Where the statistic is undefined (a constant
        feature) the client sends a fair coin.  The server keeps a feature whose fraction of ones is
        significantly outside ``median +- (beta + t)`` (the median over the
        ``d`` features; ``beta`` = ``rogue_tolerance``, 0.05 for "auto",
        which rogue clients can move a feature's distance to the median by;
        ``t`` = ``sign_centre_margin_``, for the median's own sampling
        noise; one-sided binomial tests at ``fwer / (2 d)`` each side, so
        a global null selects a feature with probability at most
        ``fwer``).  Under
        ``privacy`` the sign bits go through the same randomized response
        (and budget accounting) as the selection bits, and the median and
        band are taken on the debiased fractions ``(f - p) / (1 - 2 p)``
        (see ``sign_band_``).  A sign
        vote's distance from the null grows linearly with a client's
        effect where a selection vote's excess grows with its square, so on
        dense correlated supports whose clients have few samples it needs
        far fewer clients (Toeplitz 10 of 20 features with 10-sample
        clients: exact at 10,000 clients, where the default is not; see the
        user guide).  It assumes a sparse support (the median is a null
        feature's) and features whose null sign fraction is shared (an
        exchangeable design); it cannot separate features that all have the
        same sign on an equicorrelated design.
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
        no seed of its own, the features each client reports, and the
        coefficients of the small clients' sketches (see the neighbour
        stage above; None: fresh ones at every fit).  The
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
        Number of answering clients that reported feature ``j`` and could
        test it (``n_answered_`` for every feature unless ``n_reported <
        d`` or some clients could not test it: a column constant on a
        client, or collinear with the columns before it, such as the last
        level of a one-hot group, is not tested there; without privacy
        such a client also sends its "tested" bits).
    vote_fraction_ : ndarray of shape (n_features,)
        ``votes_ / n_reports_`` (zeros where nobody reported).
    debiased_fraction_ : ndarray of shape (n_features,)
        ``(vote_fraction_ - p) / (1 - 2 p)``, the estimated fraction of
        clients that selected ``j`` (``vote_fraction_`` without privacy).
    pvalues_ : ndarray of shape (n_features,) or None
        One-sided binomial p-values of the server's test (before the
        Bonferroni correction: a feature is kept when ``pvalues_ <= fwer /
        n_features`` and the neighbour stage keeps it, see
        ``neighbour_reference_rate_``; ``vote="sign"``: twice the smaller of its two
        one-sided p-values, at most 1); None when the server compares vote fractions with a
        fixed threshold.
    reference_rate_ : float
        The rate the votes were tested against, or the fixed threshold
        (``vote="sign"``: the median debiased fraction, the band's centre).
    feature_reference_rate_ : ndarray of shape (n_features,) or None
        Each feature's reference rate: ``reference_rate_`` with the rogue
        margin ``beta`` widened to ``min(1, beta a_j / n_reports_[j])``
        (``a_j`` the answering clients assigned to report it), since a
        rogue client can claim to have tested a feature that few honest
        clients could test; equal to ``reference_rate_`` where every
        assigned client tested it.  None with ``vote="sign"``.
    sign_band_ : tuple of float
        Only with ``vote="sign"``: ``(low, high)``, the band of debiased
        fractions outside which a feature is tested significant, the
        median ``+- (beta + t) / (1 - 2 p)`` (``p`` the flip probability
        under ``privacy``, else 0; ``t`` on the received scale), clipped
        to the fractions' range.
    sign_centre_margin_ : float
        Only with ``vote="sign"``: ``t / (1 - 2 p)``, the part of the
        band's half-width that covers the median's own sampling noise
        (:func:`skfed.support._rules.sign_centre_margin`: with it the
        binomial test of a feature's count at the band's end has the level
        of a test of its distance to the median of the other features,
        whose variance adds the median's, at most ``pi / (2 (d - 1))``
        times a fraction's).
    neighbour_reference_rate_ : ndarray of shape (n_features,) or None
        The neighbour stage's reference rate of every selected feature it
        re-tested (correlated with another selected feature in the
        sketches), NaN for the others; None when no sketch was sent (the
        sign vote, a fixed ``threshold``, privacy, ``n_reported < d``,
        ``d <= 20 median(n_i)``, or no client of the small-client rule).  A re-tested feature is kept
        when its votes are significantly above it.
    explained_by_ : ndarray of shape (n_features,), dtype=intp, or None
        The selected feature whose correlation set each re-tested
        feature's reference (-1 for the others); None as above.
    vote_ : {"selection", "sign"}
        The vote the clients sent: ``vote``, or what ``vote="auto"``
        resolved to.
    rogue_tolerance_ : float
        The rogue fraction ``beta`` the server's test tolerated: the
        resolved ``rogue_tolerance="auto"`` (see ``rogue_tolerance``), the
        number given, or 0.0 for the fixed-threshold rule (which has no
        margin beyond its threshold).
    client_supports_ : ndarray of shape (n_nodes, n_features), dtype=bool
        What each client's message said, as the server received it: after
        randomized response under ``privacy`` and corruption for rogue
        clients; False for features a client did not report and for
        clients that did not answer.
    ols_clients_ : ndarray of shape (n_nodes,), dtype=bool
        Clients that ran the OLS t-test (``alpha="auto"`` with enough
        samples and a non-singular Gram matrix); the others ran the
        test given ``k`` controls, the marginal test or a fixed lambda.
        None under ``privacy`` with a finite epsilon: it is computed on the
        clients and never sent.
    n_controls_ : ndarray of shape (n_nodes,), dtype=int64
        ``k``, the number of controls of each client that tested every
        feature given its closest features (``alpha="auto"`` with fewer
        than ``d + 4`` samples and a correlated design); 0 for the others.
        None under ``privacy`` with a finite epsilon (never sent).
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
        ``n_answered_ * (ceil(n_reported / 8) + header_bytes)``, plus
        ``ceil(d / 8)`` per answering client that sent a sketch (and the
        tested bits of clients that could not test every feature), over the
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
    privacy_public_ : dict
        Only with ``privacy``: what the fit treats as public (not protected
        by the randomized response), each with why.
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
    The auto tests have the exact null rate ``q0`` under Gaussian noise
    (OLS), and when the target is independent of the features (the test
    given ``k`` controls, whose controls do not depend on ``y``, and the
    marginal test), whatever the client's size.  With fewer than ``d + 4``
    samples, a feature outside the support correlated with a support feature
    that its controls miss is selected above ``q0`` (towards the marginal
    test's rate), and one whose controls were chosen over an omitted support
    feature is selected slightly below it (the omitted one is less
    correlated with it in the client's rows than at random); the margin of
    ``rogue_tolerance`` absorbs the first when it is rare.  The controls cost
    power on independent designs (their sample correlation with ``x_j`` is
    the largest of ``d - 1`` chance correlations): at 10 samples a client
    detects a feature of 2 noise sd beside two of 3 noise sd at about 0.44
    with 2 controls and 0.62 with the marginal test.  Every small client
    still uses them: one whose design is only weakly correlated cannot tell
    from its few rows, and under the marginal test it selects a feature
    between two support features far above ``q0``, which then becomes
    significant as clients are added (the user guide has the measurements).
    When most clients have fewer than ``d + 4`` samples and the vote
    needs a feature correlated 0.4 or more with the target in such a
    client, the fit warns that weaker features will be missed.

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
        recounted.  New clients send the fit's kind of bit (``vote_``):
        ``vote="auto"`` is resolved once, by the fit, and the join warns when
        the grown federation would resolve to the other vote (a fit on all
        clients would then differ).  Under the network's faults a new client may be dropped
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
