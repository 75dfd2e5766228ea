"""The parameter and attribute sections shared by the two estimators' docstrings."""

_COMMON_PARAMS_DOC = """
    kernel : {"auto", "rbf", "laplacian", "poly", "linear", "affine", \
            "sigmoid"}, default=%(kernel_default)s
        Kernel of the nodes' RKHS (as in :mod:`sklearn.metrics.pairwise`;
        ``"affine"`` is ``gamma x . x' + 1``, the linear kernel with an
        intercept, whatever ``degree`` and ``coef0``).
        ``"auto"`` chooses, by validation within the nodes, among the
        linear kernel, the affine one and a nonlinear one: ``"laplacian"``
        (``exp(-gamma ||x - x'||_1)``) with 10 features or more, ``"rbf"``
        below.  Every node holds out every 4th of its samples (in arrival
        order), fits the candidates alone on the others (no message), and
        reports its
        mean held-out loss for each; the reports are summed over spanning
        trees of the topology (every node sends its parent 4 float64
        values and receives the choice, one int32; counted, in a round of
        its own, the first of ``bytes_per_round_``) and every node streams
        with the kernel of least mean loss (``kernel_``; the reports are in
        ``kernel_selection_``).  The candidates cost about as much CPU as a
        fit without consensus each.  A linear rule shared by alike nodes,
        or few samples a node in many dimensions, favour the linear kernel;
        a rule with an offset (3 ordinal classes) the affine one; a curved
        boundary (HAR, two moons) the nonlinear one.  With a fixed
        ``eta0`` (a step for one kernel's scale: ``k(x, x)`` is 1 for rbf
        and laplacian, ``||x||^2`` for linear) ``"auto"`` is the nonlinear
        candidate, without selection.  Between the nonlinear kernels: one
        ``SVC(C=33)`` per node at ``gamma="median"`` scores higher with the
        laplacian kernel on the real data sets measured (HAR, digits,
        breast cancer, wine) and lower on the 2-feature Gaussian mixtures;
        L1 distances keep more contrast than Euclidean ones between many
        features (Aggarwal, Hinneburg & Keim, 2001).  ``"sigmoid"`` is not
        positive semi-definite and only works without compression
        (``epsilon=0``).
    gamma : "median", "scale", float, array-like of shape (n_nodes,), dict \
            or None, default="median"
        Kernel coefficient (set with kernel="linear": refused).
        ``"median"`` is the median heuristic applied by
        every node to its own training data: one over the median, over the
        pairs of its samples (at most 1,000 evenly spaced ones), of the
        kernel's argument at ``gamma=1`` (``||x - x'||^2`` for rbf,
        ``||x - x'||_1`` for laplacian, ``|x . x'|`` for poly and sigmoid),
        so the kernel width follows the data without any node sharing
        statistics (where that median is 0, ``"scale"``).  ``"scale"`` is
        ``SVC``'s rule, ``1 / (n_features X_i.var())``, per node; on HAR, with
        the rbf kernel, the median heuristic is about twice as narrow and
        scores higher (see the user guide).  Both assume features on comparable scales: put a
        ``StandardScaler`` in front otherwise.  ``None`` is
        ``1 / n_features``.  One value per node (an array in the order of
        ``nodes_``, or a dict keyed by node label) gives every node its own
        kernel: the consensus penalty only compares function values, so it
        works across kernels.
    degree : float, default=3
        Degree of the poly kernel (moved from 3 for another kernel: refused).
    coef0 : float, default=1.0
        Independent term of the poly and sigmoid kernels (refused for others).
    alpha : float, default=1e-4
        RKHS regularization ``lambda`` (about ``SVC(C=33)`` on a node of 300
        samples, ``lambda = 1 / (C n_i)``; on HAR one rbf ``SVC`` per node
        scores 0.936 / 0.987 / 0.986 mean per-node accuracy at ``C`` = 1 /
        10 / 100 on sitting-vs-rest, 0.963 / 0.989 / 0.991 on the six
        activities).  The constant step forgets its start like ``(1 - eta0
        alpha)^t``, so a smaller ``alpha`` needs more passes.
    consensus_penalty : "auto" or float, default="auto"
        Consensus penalty ``c``.  At the penalized optimum the disagreement
        between neighbours is at most ``2 p* / c`` (``p*`` the optimal value
        of the consensus-constrained problem), so it shrinks like ``1 / c``;
        a larger ``c`` lowers the stable step (see ``eta0``).  ``"auto"``
        chooses among a weak coupling (``c = 0.1`` over the default ring
        or ``network.topology``), a strong one (``c = 1`` with ``epsilon
        / 10``, over a random regular graph of degree about ``ln n_nodes``,
        ``topology="random_regular"``, when ``network.topology`` is None)
        and none (``c = 0``, nothing sent):
        every node holds out every 4th of its samples (as ``kernel="auto"``,
        with the kernel it chose), the candidates are fitted with their
        consensus on the other samples, every node reports its held-out
        error rate (classification) or loss (regression) for each, the
        reports are summed up a spanning tree (4 float64 values up, one
        int32 back) and every node keeps the candidate of least mean error
        (none only under 0.95 times the best coupling's error), the weak
        one on a tie or when no node can hold out a sample
        (``consensus_penalty_``, ``epsilon_``, ``consensus_selection_``; a
        single node, or a fixed ``eta0``, a step for one coupling: the weak
        one, without selection).
        The candidate fits' messages are counted (one round each, the first
        rounds of ``bytes_per_round_``): on the held-out families of the
        user guide the fit sends 4 to 7 times the bytes of ``c = 0.1`` and
        scores 4 to 5 points higher where nodes share one rule, the same
        elsewhere.  The MPI engine runs the same selection (its fit equals
        this one, bytes included).
    eta0 : "auto" or float, default="auto"
        Step size (``eta``).  Every fit derives the stability bound
        ``2 / (alpha + K (beta s_max + c lambda_max(L)))`` from what it
        knows (``K = max k(x, x)`` over the samples, ``beta`` the loss's
        smoothness: 1 squared, 1/4 logistic, 1/2 multinomial, 0 hinge;
        ``s_max`` the largest sample weight, ``lambda_max(L)`` the largest
        eigenvalue of the graph Laplacian) and exposes it as
        ``step_bound_``: at or above it the synchronous recursion diverges
        (every node's value at a shared point is multiplied by ``1 - eta
        (alpha + K (beta s + c mu))`` per round, ``mu`` an eigenvalue of
        ``L``).  ``"auto"`` takes ``1 / (alpha + K (s_max + c
        lambda_max(L)))``, at most half the bound.  A constant step at or
        above the bound, or any ``eta0`` with ``eta0 alpha >= 1`` (the
        paper's ``eta_0 < 1 / lambda``), raises a ``ValueError`` naming the
        values (a diminishing step may start above the bound: it falls
        below it after finitely many steps).  As a guard, a fit
        during which a node's value becomes non-finite or larger than
        ``10^6 max(1, max |y|, K s_max / alpha)`` raises
        ``FloatingPointError`` and keeps no model.
    learning_rate : {"constant", "diminishing"}, default="constant"
        ``"constant"``: ``eta_t = eta0`` and a constant KOMP budget
        ``epsilon`` (the regime where the model order provably stays
        finite: ``epsilon = K eta0^(3/2)``).  ``"diminishing"``:
        ``eta_t = eta0 / (1 + t)^power_t`` with ``t`` the node's step count
        and budget ``epsilon_t = epsilon (eta_t / eta0)^2`` (the exact
        convergence regime, where the model order may grow).
    power_t : float, default=0.75
        Exponent of the diminishing schedule; must be in ``(0.5, 1]`` with
        ``learning_rate="diminishing"`` (``sum eta_t = inf``, ``sum eta_t^2
        < inf``, the paper's conditions).
    epsilon : float, default=%(epsilon_default)s
        KOMP error budget: after every step the compressed function is
        within ``epsilon`` (RKHS norm) of the uncompressed one.  0 prunes
        nothing by budget: a point is then folded into the dictionary only
        when it lies in its span to numerical precision (squared RKHS
        distance to the span below ``1e-6 k(x, x)``, where the kept inverse
        kernel matrix would lose its accuracy); with
        ``max_dictionary_size=None`` as well there is no compression at all
        (the dictionary grows by one point per step).%(epsilon_units)s
    max_dictionary_size : int or None, default=100
        Hard cap ``M`` on every node's dictionary; when KOMP alone would
        leave more elements, the cheapest are removed anyway (the cap wins
        over the budget, so the error can then exceed ``epsilon``).  It
        bounds the cost of a step: ``(1 + deg) M`` kernel evaluations (own
        value and the neighbours' answers) and ``O(M^2)`` for KOMP, and the
        memory, ``M (n_features + M + n_outputs)`` floats a node.  ``None``
        lets the budget alone decide (the model order is then finite but
        data-dependent).  The network function of a linear or affine
        kernel (``network_dictionary_``) is not capped: it is held exactly
        as ``n_outputs`` points (one more for ``"affine"``) up to 1,023
        features.
    max_epochs : int, default=30
        Passes over every node's samples in ``fit`` (``partial_fit`` makes
        one pass in arrival order).  With ``"auto"`` exchanges a pass costs
        every neighbour the node's ``M n_outputs`` weights plus the samples
        that newly entered its dictionary.
    average : float in [0, 1), default=0.5
        Averaged SGD: the returned functions (``dual_coef_``, ``predict``)
        are the running mean of every node's iterates over the last
        ``average`` fraction of its steps in ``fit`` (of each
        ``partial_fit`` call), on the node's dictionary (KOMP projects the
        mean with the same formulas as the iterate; a new point enters it
        with weight 0).  The neighbours keep exchanging the iterates, so the
        algorithm and its bytes do not change; the mean removes most of the
        constant step's noise (HAR sitting-vs-rest at the issue-6
        defaults: 0.977 mean per-node accuracy against 0.973 for the last
        iterate).  0 returns the last iterate.
    exchange_every : "auto", int or None, default="auto"
        How a node learns its neighbours' values ``f_j(x)`` (with
        ``consensus_penalty=0`` nobody needs them and nothing is sent).
        ``None``: at every step it asks them (query exchange: ``x`` out,
        ``f_j(x)`` back, or ``j``'s whole dictionary when that is cheaper),
        ``deg (d + n_outputs)`` values a step.  Otherwise every node keeps a
        copy of its neighbours' functions and evaluates them itself; a node
        brings its neighbours' copies up to date by a delta (the dictionary
        slots that changed since its last update, an int32 index and ``d``
        values each, or an int32 index and an int32 reference for a sample
        it sent them before; plus all ``M n_outputs`` weights) once per
        pass over its own samples (``"auto"``: ``n_i`` steps, a whole
        ``partial_fit`` call) or after every ``T``-th of its steps (an int
        ``T``).  With ``T = 1`` and float64 data the fit is exactly the
        query exchange's (only the bytes differ; with float32 data the two
        round different values to float32); otherwise the copies are up to
        a pass (or ``T`` steps) old.  A node never sends one of its samples twice, so
        a fit sends every neighbour at most the node's own data plus the
        weights (``"auto"``: ``M n_outputs`` values a pass), however many
        passes it makes.
    shuffle : bool, default=True
        Shuffle each node's samples at every pass of ``fit`` (one seed per
        node).
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        A node never seen in fit is predicted with the network function
        (``"global"``: the KOMP-compressed mean of all nodes' functions
        that the fit ends with, see ``network_dictionary_``) or raises
        (``"error"``).
    network : SimulatedNetwork or None, default=None
        The peer-to-peer network (topology, dropped nodes, rogue nodes);
        ``None`` is a perfect network.  Without a topology (``None`` or a
        ``SimulatedNetwork`` whose ``topology`` is None) the nodes talk over
        a ring (``"k_regular"`` of degree 2; the complete graph below 4
        nodes), so a round costs the same per node at any number of nodes,
        and a fit sends every neighbour at most about the node's own data
        (see ``exchange_every``).  A dropped node neither steps
        nor answers in that round: its sample waits for its next round, and
        its neighbours leave it out of their consensus sums (with copies, its
        once-a-pass update of their copies waits for its next step).  Stragglers are
        refused with an error (a step is one sample and cannot be cut).  A
        rogue node answers ``-f_j(x)`` (``"complement"``) or noise of the
        same magnitude (``"random"``).
    random_state : int, RandomState instance or None, default=None
        Seeds the per-node shuffles, the network and the rogue noise.
    privacy : None, default=None
        Differential privacy is not supported: the exchanges send raw
        samples (new dictionary centres) and whole dictionaries, whose
        sensitivity to one sample is unbounded, so a
        :class:`~skfed.privacy.DifferentialPrivacy` is refused with an error.
"""

_COMMON_ATTRIBUTES_DOC = """
    nodes_ : ndarray of shape (n_nodes,)
        Node labels seen in fit; every per-node attribute follows this order.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined when ``X`` has feature names that are all strings.
    kernel_ : str
        The kernel used (``kernel``, or what ``"auto"`` chose).
    kernel_selection_ : dict or None
        How ``kernel="auto"`` chose (None when nothing was selected):
        ``"candidates"`` (nonlinear first), ``"node_validation_loss"``
        (n_candidates, n_nodes; NaN for a node of fewer than 4 samples,
        which reports nothing), ``"mean_validation_loss"`` (over the
        reporting nodes) and ``"kernel"``.
    consensus_penalty_ : float
        The consensus penalty used (``consensus_penalty``, or the choice of
        ``"auto"``).
    epsilon_ : float
        The KOMP budget used (``epsilon``, divided by 10 when ``"auto"``
        chose the strong coupling).
    consensus_selection_ : dict or None
        How ``consensus_penalty="auto"`` chose (None for a number, a
        single node or a fixed ``eta0``):
        ``"candidates"`` (``["weak", "strong", "none"]``), their
        ``"consensus_penalty"``, ``"epsilon"`` and ``"topology"``,
        ``"node_validation_error"`` (n_candidates, n_nodes; NaN for a node
        of fewer than 4 samples), ``"mean_validation_error"`` and
        ``"choice"``.
    gamma_ : ndarray of shape (n_nodes,)
        Kernel coefficient of every node.
    eta0_ : float
        The step size used (``eta0``, or its ``"auto"`` value).
    step_bound_ : float
        The stability bound of the step derived at fit (see ``eta0``).
    dictionaries_ : list of ndarray of shape (model_order_[i], n_features)
        Dictionary (kernel centres) of every node (KOMP fills a freed slot
        with the last element, so the order is not arrival order).
    dual_coef_ : list of ndarray of shape (model_order_[i], n_outputs)
        Weights of every node's dictionary: ``f_i(x) = sum_m
        dual_coef_[i][m] k_i(dictionaries_[i][m], x)`` (the averaged
        iterates when ``average > 0``, the last iterate otherwise).
    model_order_ : ndarray of shape (n_nodes,)
        Dictionary size of every node.
    model_order_curve_ : ndarray of shape (n_iter_, n_nodes)
        Dictionary sizes after every round.
    consensus_error_curve_ : ndarray of shape (n_iter_,)
        Mean over the (node, neighbour) exchanges of a round of
        ``||f_i(x_i) - f_j(x_i)||^2`` (honest values), NaN for a round
        without exchanges (every round with ``consensus_penalty=0``);
        aligned with ``bytes_per_round_``.
    komp_error_ : ndarray of shape (n_nodes,)
        Largest RKHS distance between a compressed and an uncompressed
        iterate over all steps of every node.
    n_steps_ : ndarray of shape (n_nodes,)
        Samples processed by every node.
    n_iter_ : int
        Synchronous rounds run (cumulative over ``partial_fit`` calls).
    adjacency_ : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        The communication graph used.
    communication_ : CommunicationLog
        Bytes and messages per node pair and per round of the fit's rounds.
    network_gamma_ : ndarray of shape (n_components,)
        Kernel coefficient of the network function: the nodes' common one,
        or the geometric mean of theirs (one per connected component of
        ``adjacency_``, usually one).
    network_dictionary_ : list of ndarray of shape (n_points, n_features)
        The network function's points (one array per component): every
        ``fit``, and a ``partial_fit`` after which the network's steps have
        doubled since it was last computed, ends with the nodes computing the mean
        of their functions ``(1 / n) sum_i f_i`` in that one width, merged
        up a breadth-first spanning tree and compressed by KOMP
        (``epsilon``, ``max_dictionary_size``) at every node, then sent
        back down, so that every node holds it; a node that joins starts
        from it or from its neighbours, and an unknown node is predicted
        with it.  With a linear or affine kernel and at most 1,023
        features the mean is exact and needs no compression: ``w' x + b``
        held as the ``n_outputs`` points ``w_k / gamma`` of weights the
        identity (and for ``"affine"`` the point 0), whatever the nodes'
        widths.
    network_coef_ : list of ndarray of shape (n_points, n_outputs)
        Its weights: the mean's, or, after a ``fit``, the weights re-solved
        on the nodes' summed losses over those points: a classifier's when
        their error on the nodes' samples is within 15 points of the
        nodes' own functions'; a regressor's, solved without the fifth of
        every node's samples it holds back (drawn from ``random_state``),
        when their loss on those held-back samples is more than 1 % under
        the mean's (see the user guide's online page).  With a linear or
        affine kernel (at most 1,023 features) the solve is over every
        affine function, not only over the mean's points, and a
        regressor keeps, of the weights its solve evaluated, those of
        least held-back loss (then gated as above); the points are then
        the solved function's.
    network_component_ : ndarray of shape (n_nodes,)
        The component (index into the lists above) of every node.
    network_excluded_ : ndarray of shape (n_nodes,), dtype=bool
        Nodes whose function is not in the network function: with rogue
        nodes in the network, the subtrees of the messages a parent dropped
        (they did worse on its samples than ignoring ``x``); on MPI, the
        nodes of a rank that stopped answering; nodes that joined since it
        was computed.
    network_communication_ : CommunicationLog
        What computing the network function sent (rounds appended call
        after call).
    n_bytes_sent_ : int
        Bytes of the fit, of the network function and of every join
        (``communication_``, ``network_communication_`` and
        ``join_communication_``).
    n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    join_communication_ : CommunicationLog
        What the joins of nodes after the fit sent (:meth:`add_nodes`, or
        ``partial_fit`` with new node ids), rounds appended join after
        join; only after a join.
    join_passes_ : ndarray of shape (n_new,)
        Passes over its samples every node of the last :meth:`add_nodes`
        made with its neighbours fixed (``max_epochs`` for a classifier,
        none where it keeps its start; chosen by
        cross-validation on its samples for a regressor); only after
        :meth:`add_nodes`.
    join_offset_ : ndarray of shape (n_new,)
        A regressor's: the level every node of the last :meth:`add_nodes`
        adds to its predictions (units of ``y``), nonzero for a node that
        starts from a solved network function where its candidates show
        levels of their own: its residuals' mean, shrunk as a random
        effect by the candidates' within- and between-node variances (two
        more float64 in each candidate's answer; its passes fit its targets
        less it).  Kept until the next ``fit`` or ``partial_fit``; only
        after :meth:`add_nodes`.
    join_start_ : ndarray of shape (n_new,), dtype=object
        What every node of the last join started from: ``"network"`` (the
        network function), ``"neighbours"``, ``"features"`` (the
        classifier's open gate), ``"linear"`` (the linear network function
        of ``join_function="auto"`` when its gate is open) or ``"zero"`` (a
        classifier newcomer whose own samples the start gets significantly
        wrong, which then streams without links); only after a join.
"""

# The classifier's newcomer gate (skfed/online/_join_gate.py).
_GATE_ATTRIBUTES_DOC = """
    newcomer_rule_ : {"features", "graph"}
        How nodes that join after the fit choose their start.  A fit ends
        with a gate over the fitted nodes: every node sends its feature
        mean to its graph neighbours and scores, on its own rows, the copy
        it holds of the function of the neighbour whose mean is nearest its
        own against the farthest's; ``t`` of these gains over the nodes,
        summed at fitted node 0, above 3 opens it (``"features"``): every
        node then sends its mean and mass to node 0, and a newcomer starts
        from the mass-weighted mean of the 5 fitted nodes nearest its own
        feature mean (their functions fetched, KOMP-compressed in the
        nearest's width), with no passes.  Otherwise ``"graph"``: the
        join of :meth:`add_nodes`.  No gate (``"graph"``) with at most 6
        nodes, with ``exchange_every=None`` or a zero coupling (no copies
        held), after ``partial_fit`` alone, or in the MPI engine's fit.
    newcomer_gate_ : dict or None
        The gate's ``t``, ``mean_gain``, ``gains`` (per node; NaN for a
        node of fewer than two neighbours), ``open``, ``m`` (5),
        ``n_bytes`` (its messages: decided at the end of the fit, they are
        sent and counted in ``join_communication_`` with the first join
        after it, so the fit's own bytes are unchanged) and ``sent``
        (whether they were); None when no gate ran.
"""


# The regressor's budget is in units of its targets' agreed scale.
_EPSILON_UNITS = """  The
        regressor's function is learned on ``(y - target_offset_) /
        target_scale_``, so its budget is in those units: the same at any
        unit of ``y``."""


def _doc(template, kernel_default, epsilon_default="0.01", epsilon_units="", gate=False):
    params = _COMMON_PARAMS_DOC.strip("\n").replace("%(kernel_default)s", kernel_default)
    params = params.replace("%(epsilon_default)s", epsilon_default).replace(
        "%(epsilon_units)s", epsilon_units)
    return template.replace("%(params)s", params).replace(
        "%(attributes)s", _COMMON_ATTRIBUTES_DOC.strip("\n")
        + ("\n" + _GATE_ATTRIBUTES_DOC.strip("\n") if gate else ""))
