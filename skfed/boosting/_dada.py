"""Dada: decentralized personalized boosting over a learned collaboration graph.

Zantedeschi, Bellet & Tommasi, "Fully Decentralized Joint Learning of
Personalized Models and Collaboration Graphs" (AISTATS 2020): per-node
l1-constrained boosting of shared base predictors (decision stumps,
``_stumps.py``) by asynchronous decentralized Frank-Wolfe
(``_boosting_fast.fw_async``), alternated with decentralized learning of the
graph (:mod:`skfed.graph`).  The agreement steps before the first boosting
step are in ``_agreement.py``, the private choices in ``_private.py``.
"""

import numbers

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions
from .._join_params import fitted_param
from .._node_ids import plain_label
from .._node_mass import node_scale
from ..network import payload_bytes
from .._secure_noise import CHOICE_RESOLUTION
from ..privacy import DifferentialPrivacy, check_privacy
from ._agreement import (
    _check_connected,
    _flood_extremes,
    _tree_round_trip,
    agree_on_histogram,
)
from ._base import (
    _REFIT_ATTRIBUTES,
    _BaseGraphPersonalized,
    _fill_released_doc,
    _personalized_scores,
    _split_models,
    _squeeze_problems,
)
from .._kept_local import apply_kept_local
from ._private import _DADA_PUBLIC, _check_private_inputs, plan_private_choices
from ._kernel_graph import fit_graph_models, graph_signal_used
from ._dada_view import PeerViewMixin
from ._dada_radius import AutoRadiusJoinMixin, fit_auto_radius
from ._dada_mean_join import JOIN_NEIGHBOURS, OneClassJoinMixin, fit_gate
from ._dada_vote import vote_on_features
from ._stumps import (
    _stump_counts,
    make_stumps,
    resolve_n_estimators,
    stump_predictions,
)
__all__ = ["DecentralizedBoostingClassifier"]

from ._dada_state import (  # noqa: F401  (_BoostingState: skfed.boosting re-exports it)
    DEFAULT_SCORE_WEIGHT,
    _BoostingState,
    _distinct_samples,
    _node_sizes,
)


class DecentralizedBoostingClassifier(AutoRadiusJoinMixin, OneClassJoinMixin, PeerViewMixin,
                                      _BaseGraphPersonalized):
    """Dada: personalized l1-boosting per node, over a learned collaboration graph.

    Every node k boosts the same ``n_base`` base predictors ``h_j`` (decision
    stumps by default) into its own model ``alpha_k``; nodes whose tasks are
    similar pull their models together along the weighted edges of a
    collaboration graph, which is learned at the same time (Zantedeschi,
    Bellet & Tommasi, AISTATS 2020).  With ``A_k[i, j] = y_i h_j(x_i)`` the
    margin matrix of node k (it never leaves the node), the models solve
    (eq. 1)::

        min  sum_k d_k c_k L_k(alpha_k) + (mu / 2) sum_{k<l} w_kl ||alpha_k - alpha_l||^2
        s.t. ||alpha_k||_1 <= beta  for every node k,

        L_k(alpha_k) = log sum_i s_i exp(-[A_k alpha_k]_i),

    with ``w_kl`` the graph weights, ``d_k = sum_l w_kl`` the degrees,
    ``c_k = m_k / max_l m_l`` the confidence of node k (``m_k`` its total
    sample weight) and ``s_i`` the sample weights.  When the graph is
    learned (``graph=None``) it minimizes, given the models, the same
    objective plus ``mu_graph * (lambda_graph * ||w||^2 - sum_k log(d_k + delta))``
    (eq. 5, :mod:`skfed.graph`).

    **Models given the graph: asynchronous Frank-Wolfe.** Every node has an
    independent Poisson clock of rate 1; at each global iteration the node
    whose clock ticks, which is drawn uniformly at random (the superposition
    of n_nodes rate-1 Poisson processes ticks at rate n_nodes and each tick
    belongs to any given node with probability 1 / n_nodes, independently),
    computes the gradient ``g = -d_k c_k A_k^T softmax(-A_k alpha_k) + mu
    (d_k alpha_k - sum_l w_kl alpha_l)`` (eqs. 3-4) from its latest copies
    of its neighbours' models, moves toward the l1-ball vertex
    ``-beta sign(g_j) e_j``, ``j = argmax |g_j|``, with step
    ``gamma = 2 K / (t + 2 K)`` — K the number of nodes and t the number of
    updates done so far by all nodes together, the global iteration counter
    of Theorem 1 (block-coordinate Frank-Wolfe, ``E[f(alpha_t)] - f* <=
    2 K (C + f(alpha_0) - f*) / (t + 2 K)``) — and sends ``(j, gamma *
    sign)`` to its neighbours, who replay the step on their copy.  The
    margins ``A_k alpha_k`` are updated incrementally (one column of
    ``A_k``), so a step costs O(m_k n_base) for the gradient plus
    O(deg_k n_base) for the neighbour sum.  A node of degree 0 weighs its
    loss by 1 instead of 0 (it then boosts alone).

    **Graph given the models.** First learned from purely local models
    (each node boosts alone for ``ceil(max_iter / n_nodes)`` Frank-Wolfe
    steps, nothing sent), each node scoring its peers' models on its own
    data (``peer_scoring``); the decentralized Frank-Wolfe then starts from
    these local models (alternating minimization of the joint objective;
    its first steps, with gamma close to 1, mostly replace them) and the
    graph is re-learned every ``graph_update_every`` model iterations; see
    :class:`~skfed.graph.CollaborationGraphLearner` for the graph steps.
    The step counter t is not reset when the graph changes.  Smoothing makes
    connected models alike, so re-learning tends to add edges between
    neighbours of neighbours; ``max_neighbors`` (Remark 2 of the paper)
    bounds every node's number of neighbours by dropping the edges toward
    the most different models, which keeps the re-learned graph sparse and,
    on clustered tasks, inside the clusters.  ``graph_update_every=None``
    keeps the graph learned from the local models.

    **Which models the graph compares** (``graph_signal``).  By default
    each node also fits, once and alone, kernel ridge regression of its
    labels on random Fourier features of the stumps' features, rescaled to
    norm 2 (its graph model, :mod:`skfed.boosting._kernel_graph`), and
    the graph steps' model
    term and peer scores read those models (eq. 5 with them in place of
    ``alpha``); the boosting models, their losses ``l_k`` and eq. 1 are
    unchanged, so the fit alternates eq. 1 and eq. 5 on other models, not
    one joint objective.  A boosted stump model of a few samples, smoothed
    along the graph being learned, separates nearby clusters poorly; the
    kernel model keeps the node's own decision function (measured in the
    user guide's "Graph recovery").

    **Multiclass** problems are solved one-vs-rest: one binary problem per
    class, all sharing one collaboration graph (the graph objective sums the
    problems' losses and model distances); a waking node does one step on
    every problem and sends all of them in one message.

    **Messages** (byte model of :mod:`skfed.network`): min/max flooding
    over the topology for the stump thresholds (every node sends its
    ``2 n_features`` extremes to each topology neighbour in the first
    round, and again in a later round only if a neighbour's message
    improved them, so the flood ends by itself within the topology's
    diameter; on a complete topology one round suffices — no raw data
    moves); a model update
    is ``ceil(log2 n_base)`` bits of coordinate index plus one float64
    signed step per problem, to each neighbour; graph steps as in
    :class:`~skfed.graph.CollaborationGraphLearner` (models sent dense or as
    sparse index/value pairs, whichever is cheaper).  With
    ``graph_signal="kernel"`` the nodes first agree on the pooled mean and
    spread of the kernel's input features (up an aggregation tree, ``2 d +
    1`` float64 per node, ``2 d`` back down), and a graph model (``300 P``
    float64, never changing) travels once per (sender, receiver) pair, to at
    most ``peer_view_`` peers: the receiver keeps it, and later requests and
    answers between the two carry no model; the scores need no refresh
    before a re-learning.  A round of ``bytes_per_round_`` is one global
    iteration; the bytes of the setup (feature ranges, initial graph) count
    in the first round and those of each graph update in the round after it.

    Parameters
    ----------
    n_estimators : int or "auto", default="auto"
        Number of decision stumps.  An integer is used as it is.  ``"auto"``
        builds ``max(200, 2 * n_voted)`` stumps, ``n_voted`` being the number
        of features that get stumps (those the vote selects, or all varying
        features with ``feature_selection=None``): 200 below 100 such
        features (the fit is then the one of ``n_estimators=200``), two per
        feature above, so that a data set with hundreds of signal-carrying
        features (HAR: about 525 of 561 voted) does not leave most of them
        without a stump.  The resolved count is ``n_estimators_``; nodes
        joining a fitted model keep it, and a feature their vote adds gets
        the stumps this rule gives it on the grown selection.  Unused when
        ``base_predictors`` is given (another value is then refused).
    base_predictors : list of callables or estimators, default=None
        User-supplied base predictors, shared by all nodes: ``h(X)`` or
        ``h.predict(X)`` must return values in [-1, 1].
    stump_placement : {"range", "global_range", "quantile"}, default="range"
        Where the ``q`` stumps of every feature put their thresholds
        (:func:`make_stumps`): ``"range"`` evenly inside the feature's own
        agreed range (suits features on different scales with no strong
        outliers); ``"global_range"`` evenly inside the range of all features
        together, the same for every feature (suits features on one common
        scale, e.g. standardized or pixel data; a feature with a narrow range
        gets few useful stumps; the authors' code also shares one range
        between the features, but counts and spaces its thresholds
        differently, see :func:`make_stumps`);
        ``"quantile"`` at
        the quantiles of the pooled data of each feature, read from per-node
        histograms (256 bins over the agreed range) summed up a spanning tree
        of the topology (suits skewed or heavy-tailed features, and binary or
        ordinal ones, where evenly spaced thresholds repeat the same split).
        Unused when ``base_predictors`` is given (another value is then
        refused).
    feature_selection : {"vote", "conditional_vote", None}, default="vote"
        Which features get stumps.  ``"vote"``: the nodes vote, without
        pooling any data, for the features that carry their labels' signal,
        and the ``n_estimators`` stumps are spread over the features the
        vote singles out, so that features without signal do not dilute
        them and ``n_estimators`` means the same with 2 or 2,000 features.
        The nodes with at least the median number of distinct
        positive-weight samples vote (:func:`vote_eligible`: a node with a
        handful of samples ranks the features mostly at random; agreeing on
        the median costs one round trip up and down a spanning tree, a pair
        of int32 per distinct size up and one float64 down).  Each voter
        ranks the varying features by their correlation ratio with
        its labels (:func:`feature_relevance`: the share of the feature's
        variance at the node that the classes explain, scale-free) and votes
        for its ``q = ceil(sqrt(n_varying))`` best; the counts are summed up a
        spanning tree of the topology and a feature is kept when its count
        exceeds what chance gives with probability ``0.05 / n_varying``
        (:func:`vote_threshold`; under the null, every node votes for a
        given feature with probability ``q / n_varying``).  The ranking
        keeps only the few strongest features when many carry signal, so
        every node with two classes or more and more samples than classes
        also votes for each feature whose correlation ratio is significant
        at the node (:func:`significant_features`: an F test at level
        0.05), and a feature is also kept when that count exceeds what
        chance gives with probability ``0.05 / n_varying``
        (Binomial(nodes tested, 0.05)) and reaches 1.5 x 0.05 of the nodes
        tested (:func:`significance_threshold`: an effect size, so that at
        thousands of nodes a noise feature whose per-node test is slightly
        liberal does not pass; on HAR walking runs 0-9 it keeps 379-403
        features instead of 1-7, 99.41 % instead of 98.42 %).  When no feature
        stands out (all are alike, or ``q >= n_varying``: with 3 or fewer
        varying features), every varying feature keeps its stumps.  A
        selected feature takes at most as many stumps as there are distinct
        training samples of positive weight, summed over the nodes (no more
        distinct splits exist; a duplicated sample, like one of weight 2,
        counts once, and one of weight 0 not at all); the stumps it cannot take
        go evenly to the other varying features (``max_per_feature`` of
        :func:`make_stumps`).  A node's message up the tree is
        its subtree's numbers of voters and samples and its non-zero counts
        of the two ballots and of the nodes tested (an int32 and an index
        each, over ``2 n_features + 1`` counts); the selection comes back down
        as a bit per feature.  ``"conditional_vote"``: the vote, then a
        second round on the features it left out, ranked at every node by
        their partial correlation with the labels given the selected ones
        (a feature useful only together with a selected one, which the
        marginal ranking misses; nodes with exactly two classes and more
        samples than selected features plus two take part;
        :mod:`skfed.boosting._dada_vote`, opt-in: see its module docstring
        for the measured gains and losses).
        ``None``: every varying feature.  Ignored when
        ``base_predictors`` is given (the private mode, which needs them on
        a public range, makes no data-dependent choice of stumps).
    fit_intercept : bool, default=True
        Add the constant base predictor ``h(x) = 1`` (last coordinate,
        exposed as ``intercept_``), inside the same l1 ball.
    beta : float or "auto", default=3.0
        Radius of the l1 ball of every model (the largest margin a model
        can reach, whatever the number of stumps).  ``"auto"``: 3 or 10,
        chosen on a quarter of every node's rows held back (two candidate
        fits on the rest, ``mu`` scaled to keep ``mu beta``; 10 only when
        its mean per-node accuracy gain exceeds 2 standard errors), then a
        fit on all rows; ``beta_``, ``mu_`` and ``radius_selection_`` say
        what was chosen, ``communication_`` holds the three fits' messages
        (``skfed.boosting._dada_radius``).  Not with ``privacy`` or a
        ``communication_budget``.
    mu : float, default=3.0
        Weight of the graph smoothness term.  Models lie in an l1 ball of
        radius ``beta`` and the smoothing pulls with ``mu beta``, so keep
        ``mu beta`` about 10 when changing ``beta`` (the best settings of
        the moons, Computer buyers, School and HAR runs lie near
        ``mu beta = 10``; ``mu beta >= 90`` over-smooths).
    graph : None, array-like, sparse matrix or networkx graph, default=None
        ``None`` learns the graph; otherwise the fixed (oracle) graph:
        symmetric non-negative weights over the nodes in the order of
        ``nodes_`` (or a networkx graph whose nodes are the node labels).
        With a fixed graph nothing is learned: ``graph_update_every``,
        ``graph_init_iter``, ``graph_iter`` and ``graph_signal`` are used
        only when the graph is learned, and a non-default value of one of
        them is refused (ValueError naming it); the graph objective's and
        the peers' parameters (``mu_graph``, ``lambda_graph``, ``delta``,
        ``kappa``, ``max_neighbors``, ``sparsify_graph``, ``peer_scoring``)
        are then used only by :meth:`add_nodes`, which learns a newcomer's
        row with them.
    mu_graph : float, default=None
        Weight of the graph regularizer (``None``: ``mu``).
    lambda_graph : float, default=1.0
        l2 weight of the graph regularizer; smaller values give sparser graphs.
    delta : float, default=1e-3
        Offset of the degree log-barrier.
    kappa : int, default=5
        Peers sampled by a node at each graph step (all its neighbours when
        it has fewer); a value above ``n_nodes - 1`` warns, except the
        default (on 5 nodes or fewer it is every other node).
    max_neighbors : int, default=5
        Most non-zero graph weights a node keeps (Remark 2 of the paper):
        after each graph step the waking node and its peers set to zero their
        weights toward the neighbours with the most different models, but
        never a neighbour's last link (the node then keeps more).  Bounds
        each node's memory and per-update messages, and keeps the re-learned
        graph sparse as smoothing makes models alike (on the moons without
        peer scoring, 89 % of the weight inside the true clusters with 5,
        74 % with 10, 48 % with no cap).  A count, not a fraction: it means the same at any number
        of nodes.  ``None``: no cap.
    peer_scoring : bool or float, default=True
        Nodes score each other's models on their own data when learning the
        graph: the pair ``(k, l)`` also pays ``e_kl + e_lk``, with ``e_kl =
        s (L_k(alpha_l) - L_k(alpha_k))`` how much worse node k's samples
        are fit by l's model than by its own, and the cap drops the
        neighbours of the largest ``(mu / 2) ||alpha_k - alpha_l||^2 + e_kl
        + e_lk``.  ``True`` means the weight ``s = 3``, a float that weight,
        ``False`` (or 0) no scores.  Every node's score has the same weight,
        whatever its size (before issue 33's third session, ``s`` was the
        confidence ``c_k``: the scores of the small nodes, the ones most in
        need of the right neighbours, hardly counted).  A node computes
        ``e_kl`` from the model it receives, O(m_k n_base); a graph step's
        answer carries the peer's score (one more float64), and before every
        re-learning each node sends each graph neighbour its score of it
        (one float64).  Measured on the moons (seeds 0-4; test accuracy %,
        weight inside the true clusters %), ``c_k`` against ``s = 3``:
        paper layout 95.2 / 94.4 against 97.6 / 98.6, random layout 73.9 /
        85.9 against 74.8 / 90.6, held-out "noisy" family 75.5 / 72.9
        against 75.5 / 75.1, "jitter" 80.1 / 83.4 against 81.1 / 89.2;
        Computer buyers (runs 0-2) 71.81 against 71.99, School (runs 0-1)
        71.31 against 71.60, HAR walking (runs 0-2) 99.49 against 99.41.
        ``s = 10`` recovers more of the held-out clusters (78.1 % and 92.2
        %) but scores 99.23 on HAR walking, below pooled AdaBoost's 99.28.
        Not used under a finite ``privacy`` budget (the scores depend on the
        data, like the losses: the graph is then learned from the models
        alone); there an explicit weight is refused, ``True`` and ``False``
        fit without scores.
    graph_signal : {"kernel", "boosting"}, default="kernel"
        The models the graph steps compare and score (see above).
        ``"kernel"``: each node's kernel ridge model on 300 random Fourier
        features (bandwidth 0.3, ridge 1), rescaled to norm 2, of the
        stumps' features (every
        feature with ``base_predictors``) standardized by their pooled mean
        and spread; the directions are public randomness from
        ``random_state``.  ``"boosting"``: the boosting models (the default
        before issue 33's fourth session).  A finite ``privacy`` budget
        always uses the boosting models (the kernel models are not
        privatized; ``graph_signal_`` records the signal used); nodes added
        by :meth:`add_nodes` learn their rows from the boosting models.  The
        MPI engine runs both (:mod:`skfed.engines.mpi`).  Used only when
        the graph is learned (``graph=None``).
    peer_view : int, "auto" or None, default="auto"
        Most peers a node may sample in the fit's graph steps: a fixed random
        symmetric view per node, public (from ``random_state``), inside the
        topology (:mod:`skfed.boosting._dada_view`).  A node sends its kernel
        graph model to at most that many peers, so its bytes stop growing
        once the nodes outnumber the view (nodes of 10 samples: 546 kB at
        400 to 1,600 nodes; 1.50 MB at 800 without a view).  ``"auto"``:
        200 with the kernel signal, no view with the boosting one (re-sent
        models: its bytes do not depend on the distinct peers); None: the
        whole topology (the paper).  On 400-500 nodes 200 cost at most 0.12
        accuracy points, 100 up to 0.44 (``benchmarks/dada_peer_view.py``);
        on 201 nodes or fewer it changes nothing.  Used only when the graph
        is learned (``graph=None``), and not by :meth:`add_nodes` (a newcomer
        asks ``min(n_fitted, 20 kappa)`` fitted nodes, 100 at the defaults).
    sparsify_graph : {"connected", None}, default="connected"
        Post-processing of every learned graph (the initial one and each
        update) before the models use it: ``"connected"`` keeps only the
        weights at or above the largest threshold at which the graph keeps
        its connected components (:func:`~skfed.graph.sparsify_to_connected`,
        exact: the smallest weight of a maximum spanning forest); ``None``
        keeps every learned weight.  The authors' code also thresholds every
        learned graph, differently: it tries the largest weight divided by
        ``sqrt(10)``, 10, ``10 sqrt(10)``, ... and keeps the first threshold
        at which the Laplacian's second eigenvalue exceeds 1e-3, which keeps
        more edges than the exact threshold and, on a graph that cannot be
        connected, almost all of them.  The threshold is computed on the
        whole graph (O(nnz log nnz)), a global step outside the
        decentralized protocol whose messages are not counted.  A fixed
        ``graph`` is used as given.
    graph_update_every : int, "n_nodes", "geometric" or None, default="n_nodes"
        Model iterations between two graph updates (learned graph only);
        ``"n_nodes"``: as many as there are nodes (every node wakes up once
        on average between two updates; the paper's 100 iterations for its
        100 users), so the number of graph updates, ``max_iter /
        n_nodes``, does not grow with the number of nodes; ``"geometric"``:
        ``n_nodes`` iterations before the first update, each later gap twice
        the one before (7 updates at the default ``max_iter``, a tenth of
        the graph bytes: on the held-out "noisy" / "jitter" moons, seeds
        0-4, 74.6 / 80.0 % accuracy against 75.5 / 80.1 %, but 58.4 / 62.8
        % of the weight inside the true clusters against 72.9 / 83.4 %,
        measured with the former confidence-weighted scores); ``None``
        learns the graph once, from the local models, and keeps it.  Used
        only when the graph is learned (``graph=None``).
    graph_init_iter : int, default=None
        Graph steps of the initial graph learning (used only when the graph
        is learned, ``graph=None``); ``None``: ``10 * n_nodes``
        (each node wakes up about 10 times and samples ``kappa`` peers each
        time).  The first graph comes from purely local models, which are
        poor on a node with a few samples; learned to convergence
        (``50 * n_nodes``, the default before) it keeps more of their
        noise, and the re-learnings that follow start further from the
        clusters.  On the moons seeds used to choose it, ``10 * n_nodes``
        puts 81.5 % of the weight inside the true clusters on the random
        layout against 78.6 % with ``50 * n_nodes`` (20: 81.9 %, 30:
        81.3 %), 94.2 % on the paper layout (94.2 %), with a mean accuracy
        over the moons, Computer buyers, School and HAR walking runs of
        80.80 % against 80.66 % and 10-20 % fewer bytes; on the held-out
        seeds 85.9 % against 83.9 % (random) and 94.4 % against 93.9 %
        (paper), mean accuracy 81.65 % against 81.70 %.
    graph_iter : int, default=None
        Graph steps of each later graph update; ``None``: ``n_nodes``.  Used
        only when the graph is learned (``graph=None``).
    max_iter : int, default=None
        Global model iterations (node wake-ups); ``None``: ``100 * n_nodes``.
    communication_budget : int, default=None
        Stop as soon as this many bytes have been sent (checked before every
        iteration and graph step).
    network : SimulatedNetwork, default=None
        Topology (peers a node may sample; a fixed graph must lie inside it)
        and faults: a node that is dropped when its clock ticks does nothing;
        a rogue node sends the opposite vertex (``"complement"``) or a random
        vertex (``"random"``) to its neighbours.  Stragglers are refused
        with an error (a Frank-Wolfe step is atomic).  ``None`` is a perfect
        complete network.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        A node unseen in fit predicts with the average of the fit's node models
        (of the released models under a finite ``privacy`` budget).
    random_state : int, RandomState instance or None, default=None
    n_jobs : int, default=None
        Threads for the purely local phase (results do not depend on it).
    privacy : DifferentialPrivacy, default=None
        Make every node's messages ``(epsilon, delta)``-differentially
        private with respect to one of its samples (see Notes); needs
        ``base_predictors`` on a public range
        (:func:`make_stump_predictors`) and no ``sample_weight``
        (``clip_norm`` is not used: the scores are bounded by construction).
        None: no privacy.
    join_neighbours : {"auto", "graph"}, default="auto"
        ``"auto"``: where the hub hears every node (complete topology, no bounding
        ``peer_view``), over 6 nodes, no ``privacy``, not on MPI, a gate ends the fit (bytes
        in ``communication_``); if it opens, one-class newcomers take the mean model of their
        5 nearest-feature-mean fitted nodes (:mod:`skfed.boosting._dada_mean_join`).

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_nodes, n_base_stumps) or (n_nodes, n_classes, n_base_stumps)
        Weight of every base predictor in every node's model (sparse by
        nature: at most one new non-zero per step).
    intercept_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Weight of the constant predictor (zeros when ``fit_intercept=False``).
    n_estimators_ : int
        Number of base predictors of the fit: ``n_estimators`` resolved
        (``"auto"``) or the length of ``base_predictors``.
    stump_features_, stump_thresholds_ : ndarray of shape (n_stumps,)
        The stumps ``h_j(x) = +1 if x[stump_features_[j]] > stump_thresholds_[j]
        else -1`` (None with ``base_predictors``): the fit's
        ``n_estimators_``, then those ``add_nodes`` appended for a feature
        its vote added (``n_estimators_`` stays the fit's count).
    feature_range_ : ndarray of shape (2, n_features)
        The agreed minimum and maximum of every feature.
    selected_features_ : ndarray of shape (n_features,), dtype=bool
        The features that got stumps (None with ``base_predictors``).
    feature_votes_ : ndarray of shape (2, n_features), dtype=int64
        Nodes that voted for every feature (``feature_selection="vote"``),
        row 0 in their ranking ballots, row 1 in their significance ballots
        (shape ``(n_features,)``, zeros, when no vote was needed; None
        without ``feature_selection="vote"``).
    vote_threshold_ : ndarray of shape (2,), dtype=int64
        Votes a feature needed in either row to be selected (0 when no vote
        was needed, None without a vote).
    conditional_features_ : ndarray of shape (n_features,), dtype=bool
        The features the second round added (``"conditional_vote"``; None
        otherwise).
    conditional_votes_ : tuple or None
        The second round's ranking counts (ndarray of shape (n_features,),
        int64) and the count a candidate needed (int), None when it was not
        held.
    vote_min_samples_ : float
        Median of the nodes' distinct positive-weight samples: the nodes
        with at least that many voted (None when no vote was held).
    collaboration_graph_ : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        The graph used by the final models: symmetric, non-negative, zero diagonal.
    graph_signal_ : {"kernel", "boosting"} or None
        The models the graph steps compared (``graph_signal``, or
        ``"boosting"`` under a finite ``privacy`` budget); None when no
        graph was learned (a fixed ``graph`` or a single node).
    peer_view_ : int or None
        The view size the graph steps used (``peer_view`` resolved).
    kernel_features_ : ndarray of int
        Only with ``graph_signal_ == "kernel"``: the input features of the
        kernel graph models.
    confidence_ : ndarray of shape (n_nodes,)
    n_iter_ : int
        Global model iterations (wake-ups, including those of dropped nodes).
    n_updates_ : int
        Frank-Wolfe updates done (the step-size counter t).
    n_graph_updates_ : int
        Graph updates after the initial graph (0 with a fixed graph).
    objective_curve_ : ndarray of shape (n_iter_,)
        Objective (eq. 1, current graph) after every iteration.
    objective_ : float
        Final objective, recomputed from scratch.
    communication_ : CommunicationLog
    n_bytes_sent_, n_messages_ : int
        Bytes and messages of the fit and of every join (``communication_``
        plus ``join_communication_``).
    bytes_per_round_ : ndarray of shape (n_rounds,)
        The fit's ``n_iter_`` rounds (``beta="auto"``: after the candidates' and the choice's; gate: last).
    base_predictors_, n_base_predictors_ : list or None, int
        The user's ``base_predictors`` (None: stumps); the models' columns.
    beta_, mu_ : float
        The radius and coupling of the fitted models (``beta="auto"``: chosen).
    radius_selection_ : dict or None
        ``beta="auto"`` only: mean per-node held-back accuracy gain of
        radius 10 over 3 (``gain``), its standard error ``se``, ``z``, the
        nodes that held rows back ``n_nodes``, the rows ``n_held_back``.
    join_communication_ : CommunicationLog
        What the joins of :meth:`add_nodes` sent, rounds appended join after
        join; only after a join.
    newcomer_rule_, newcomer_gate_ : str, dict or None
        ``"one-class"`` if the fit's gate opened, else ``"graph"``; the gate's ``t``, ``gains``...
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    privacy_spent_ : ndarray of shape (n_nodes,)
        Only with ``privacy``: the epsilon each node spent at the
        specification's delta (the accountant's figure for its choices).
    privacy_ : dict
        Only with ``privacy``: mechanism, per-choice epsilon, integer choice
        scale, score sensitivities, uses per node, planned and affordable wake-ups,
        ``stopped_at`` (iteration at which a node ran out, -1 if never).
    privacy_public_ : dict
        Only with ``privacy``: what the fit treats as public (not protected
        by the noise), each with why.
    privacy_guarantee_void_ : bool
        Only with ``privacy``: True when the noise came from
        ``insecure_noise_seed`` (testing only: no guarantee).
    <released and refit attributes>
    refit_radius_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Only with a finite ``privacy`` budget: the l1 radius ``beta_f`` of
        each node's refit model (0: logistic regression on the base
        predictions, the node alone).

    Notes
    -----
    **Privacy** (``privacy=``).  What a node sends depends on its data only
    through the vertex ``(j, sign)`` it picks at each Frank-Wolfe step (the
    step value ``gamma`` is public, set by the schedule, and its models are
    replays of its choices, so the models sent to neighbours and to the
    graph peers are post-processing).  Each choice is the exponential
    mechanism over the 2 ``n_base`` vertices, sampled exactly from the
    secure noise source (:mod:`skfed._secure_noise`): the scores ``-sign
    g_j`` are floored onto the grid ``Delta_k / 1024`` and vertex ``v``
    drawn with probability proportional to ``exp(q_v / t)``, ``t`` an
    integer scale, ``epsilon_0``-DP and ``epsilon_0``-bounded range per
    choice, with ``Delta_k = d_k c_k Delta_A`` and
    ``Delta_A = 2 / (1 + (m_k - 1) e^(-2 beta))`` the sensitivity of the
    data term to one replaced sample (:func:`fw_score_sensitivity` derives
    it from the bounded softmax weights; the smoothing term depends only on
    models).  A node makes one choice per problem at each of its local
    steps and wake-ups; ``epsilon_0`` is calibrated so that the local steps
    plus ``ceil(a + 2 sqrt(a))`` wake-ups, ``a = max_iter / n_nodes``,
    spend the budget (per-node composition by the accountant of
    :mod:`skfed.privacy`), and a node that has used every wake-up the budget
    affords stops sending, like a dropped node, with a
    :class:`~skfed.privacy.PrivacyBudgetWarning` naming it and the
    iteration.  The graph steps then use the models alone (the loss values
    they otherwise exchange are not sent); what is treated as public (node
    sizes, class set, schedule...) is listed in ``privacy_public_``, and a
    private fit keeps no objective value (``objective_curve_`` and
    ``objective_`` are None).  The noise grows like ``e^(2 beta)
    / m_k``: privacy needs many samples per node or a small ``beta``.

    **What a node keeps** (finite budget).  The guarantee covers what a
    node sends: the models its neighbours hold, ``released_coef_`` and
    ``released_intercept_``.  Its final model ``coef_`` / ``intercept_`` is
    never sent, so each node refits it on its own samples, exactly (a node
    needs no protection from itself), with its graph neighbours held at
    their released models (post-processing: no budget spent).  Candidate
    0 is the node alone by ``LogisticRegression(C=1, fit_intercept=False)``
    on the base predictions (``refit_radius_`` 0); the others run
    Frank-Wolfe on its own block of eq. 1, ``min_a log sum_i exp(-[A_k
    a]_i) + (mu_f / 2) ||a - beta_f u_k||^2`` over the l1 ball of radius
    ``beta_f``, where ``u_k`` is the graph-weighted mean of its neighbours'
    released models, l1-normalized, at the radius ``beta_f`` in {1, 3, 10}
    and the trust ``mu_f`` in {0, 1, 10}.  5-fold cross-validation on the
    node's own samples (0-1 error; folds from ``random_state``) chooses; a
    candidate replaces candidate 0 only when it validates better by more
    than one standard error.  ``coef_`` is therefore, like a Local model, not
    private with respect to the node's own samples, and depends on the
    other nodes' data only through their released models; the choices are
    in ``refit_trust_`` and ``refit_radius_``.  On the same folds the node
    then compares that refit with the models it can train alone on its raw
    features (``LogisticRegression()``, the rbf SVM on public random
    Fourier features, AdaBoost over 50 stumps and ``LinearSVC()``: no model
    storing training rows) and keeps the simplest candidate whose held-out
    error is within one standard error of the lowest
    (``kept_local_models_``, None where the refit is kept; fitted on the
    class indices, so ``classes_[model.predict(X)]`` are its labels).
    Measured in the privacy user guide.

    See Also
    --------
    PersonalizedLinearClassifier : personalized linear models on the same graph.
    skfed.graph.CollaborationGraphLearner : the graph learner alone.
    sklearn.ensemble.AdaBoostClassifier : centralized boosting.

    References
    ----------
    V. Zantedeschi, A. Bellet and M. Tommasi. "Fully Decentralized Joint
    Learning of Personalized Models and Collaboration Graphs", AISTATS 2020.

    S. Lacoste-Julien, M. Jaggi, M. Schmidt and P. Pletscher. "Block-Coordinate
    Frank-Wolfe Optimization for Structural SVMs", ICML 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.boosting import DecentralizedBoostingClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2)); groups = np.repeat([0, 1, 2, 3], 50)
    >>> y = np.where(groups < 2, X[:, 0] > 0, X[:, 1] > 0).astype(int)
    >>> clf = DecentralizedBoostingClassifier(n_estimators=20, beta=5.0, mu=0.1,
    ...                                       random_state=0)
    >>> clf.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.9
    True
    """

    __doc__ = _fill_released_doc(__doc__, "mu_f")
    _graph_init_per_node = 10
    # a join re-runs the feature vote and gives a newly selected feature the
    # fit's stumps: add_nodes refuses these changed since fit, too
    _join_fixed_params = _BaseGraphPersonalized._join_fixed_params + (
        "stump_placement", "feature_selection", "join_neighbours")
    # a fixed graph compares no models either
    _learned_graph_only = (*_BaseGraphPersonalized._learned_graph_only, "graph_signal",
                           "peer_view")

    _parameter_constraints = {
        "n_estimators": [Interval(numbers.Integral, 1, None, closed="left"),
                         StrOptions({"auto"})],
        "base_predictors": [None, list, tuple],
        "stump_placement": [StrOptions({"range", "global_range", "quantile"})],
        "feature_selection": [None, StrOptions({"vote", "conditional_vote"})],
        "beta": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "peer_scoring": ["boolean", Interval(numbers.Real, 0, None, closed="left")],
        "graph_signal": [StrOptions({"kernel", "boosting"})],
        "peer_view": [None, StrOptions({"auto"}), Interval(numbers.Integral, 1, None,
                                                           closed="left")],
        "privacy": [None, DifferentialPrivacy],
        "join_neighbours": [StrOptions(set(JOIN_NEIGHBOURS))],
        **_BaseGraphPersonalized._common_constraints,
    }

    def __init__(
        self,
        n_estimators="auto",
        *,
        base_predictors=None,
        stump_placement="range",
        feature_selection="vote",
        fit_intercept=True,
        beta=3.0,
        mu=3.0,
        graph=None,
        mu_graph=None,
        lambda_graph=1.0,
        delta=1e-3,
        kappa=5,
        max_neighbors=5,
        peer_scoring=True,
        graph_signal="kernel",
        peer_view="auto",
        sparsify_graph="connected",
        graph_update_every="n_nodes",
        graph_init_iter=None,
        graph_iter=None,
        max_iter=None,
        communication_budget=None,
        network=None,
        group_column=None,
        handle_unknown="global",
        random_state=None,
        n_jobs=None,
        privacy=None,
        join_neighbours="auto",
    ):
        self.n_estimators = n_estimators
        self.base_predictors = base_predictors
        self.stump_placement = stump_placement
        self.feature_selection = feature_selection
        self.fit_intercept = fit_intercept
        self.beta = beta
        self.mu = mu
        self.graph = graph
        self.mu_graph = mu_graph
        self.lambda_graph = lambda_graph
        self.delta = delta
        self.kappa = kappa
        self.max_neighbors = max_neighbors
        self.peer_scoring = peer_scoring
        self.graph_signal = graph_signal
        self.peer_view = peer_view
        self.sparsify_graph = sparsify_graph
        self.graph_update_every = graph_update_every
        self.graph_init_iter = graph_init_iter
        self.graph_iter = graph_iter
        self.max_iter = max_iter
        self.communication_budget = communication_budget
        self.network = network
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.privacy = privacy
        self.join_neighbours = join_neighbours

    # -------------------------------------------------------- base predictors
    def _agree_on_ranges(self, Xs, sws, layout, simulation):
        """Agree on the global extremes of every feature; count the messages.

        Every node starts from the extremes of its own (positively weighted)
        samples.  On a complete topology they are combined up the
        aggregation tree (:func:`_aggregation_tree`: each node sends its
        subtree's ``2 n_features`` extremes to its parent, the root sends the
        global ones back down), ``2 (n_nodes - 1)`` messages; on any other
        topology by min/max flooding (:func:`_flood_extremes`).  Returns the
        extremes every node ends with (they agree) and the bytes spent.
        """
        starts = layout.offsets[:-1]
        keep = (sws > 0)[:, None]
        lo = np.minimum.reduceat(np.where(keep, Xs, np.inf), starts, axis=0)
        hi = np.maximum.reduceat(np.where(keep, Xs, -np.inf), starts, axis=0)
        lo, hi = lo.astype(np.float64), hi.astype(np.float64)
        payload = payload_bytes(
            **{("n_float32" if Xs.dtype == np.float32 else "n_float64"): 2 * Xs.shape[1]}
        )
        if simulation.is_complete:
            spent = _tree_round_trip(simulation, payload, payload)
            return lo.min(axis=0), hi.max(axis=0), spent
        adjacency = simulation.adjacency
        _check_connected(adjacency)
        lo, hi, spent, _ = _flood_extremes(lo, hi, adjacency, simulation.counter, payload)
        # The topology is connected, so every node holds the global extremes.
        return lo[0], hi[0], spent

    def _vote_on_features(self, Xs, y_codes, sws, layout, simulation, varying, seeds):
        """The federated feature vote (:func:`._dada_vote.vote_on_features`)."""
        return vote_on_features(self, Xs, y_codes, sws, layout, simulation, varying, seeds)

    def _agree_on_histogram(self, Xs, sws, layout, simulation, lo, hi, features):
        """:func:`~skfed.boosting._agreement.agree_on_histogram` (``stump_placement="quantile"``)."""
        return agree_on_histogram(Xs, sws, layout.n_nodes, simulation, lo, hi, features,
                                  self.n_estimators_)

    def _base_matrix(self, X, dtype):
        if self.base_predictors is not None:
            columns = []
            for index, h in enumerate(self.base_predictors_):
                values = h.predict(X) if hasattr(h, "predict") else h(X)
                values = np.asarray(values, dtype=np.float64).ravel()
                if values.shape[0] != X.shape[0]:
                    raise ValueError(
                        f"base_predictors[{index}] returned {values.shape[0]} values for "
                        f"{X.shape[0]} samples."
                    )
                if not np.all(np.isfinite(values)) or np.any(np.abs(values) > 1):
                    raise ValueError(
                        f"base_predictors[{index}] must return finite values in [-1, 1]."
                    )
                columns.append(values)
            H = np.column_stack(columns)
        else:
            H = stump_predictions(X, self.stump_features_, self.stump_thresholds_, np.float64)
        if fitted_param(self, "fit_intercept"):  # (the fit's: set_params waits for a fit)
            H = np.column_stack([H, np.ones(X.shape[0])])
        return np.ascontiguousarray(H, dtype=dtype)

    # -------------------------------------------------------------------- fit
    def fit(self, X, y, groups=None, sample_weight=None):
        """Jointly learn the per-node boosted models and the collaboration graph.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights ``s_i`` inside each node's loss
            ``L_k = log sum_i s_i exp(-[A_k alpha_k]_i)``; node masses set the
            confidences.  A weight acts as a repetition: weight 2 fits as the
            sample twice.  Multiplying every weight by ``c`` is therefore
            repeating every sample ``c`` times: each ``L_k`` rises by
            ``log c`` (the paper's loss is a sum, not a mean) and the graph
            step, which weighs the losses against the graph regularizer
            (``mu``), may learn another graph.  Rescale weights to mean 1 to
            keep the fit that unit weights give.

        Returns
        -------
        self : DecentralizedBoostingClassifier
        """
        if self.beta == "auto":  # (fit_auto_radius validates)
            return fit_auto_radius(self, X, y, groups, sample_weight)
        self._validate_params()
        if self.base_predictors is not None and len(self.base_predictors) == 0:
            raise ValueError("base_predictors must hold at least one predictor.")
        if self.base_predictors is not None:
            # (Dada's own stumps' settings: none of them is used with user predictors)
            for name, default in (("n_estimators", "auto"), ("stump_placement", "range")):
                if getattr(self, name) != default:
                    raise ValueError(
                        f"{name}={getattr(self, name)!r} sets Dada's own decision stumps, "
                        "which are not built when base_predictors is given; leave "
                        f"{name} at its default {default!r}.")
        spec = check_privacy(self.privacy, type(self).__name__, local_estimator=True)
        if spec is not None:
            _check_private_inputs(self, sample_weight, spec)
            if self.base_predictors is None:
                raise ValueError(
                    "DecentralizedBoostingClassifier(privacy=...) needs base_predictors on "
                    "a public feature range: its own stumps are placed on the extremes of "
                    "the nodes' samples, which the nodes would send in the clear. Pass "
                    "base_predictors=make_stump_predictors(feature_min, feature_max, "
                    "n_estimators) with a range known without the data."
                )
        Xs, Y, sws, layout, mass = self._prepare(X, y, groups, sample_weight)
        dtype = Xs.dtype
        rng = check_random_state(self.random_state)
        simulation, seeds = self._start(rng)
        setup_bytes = 0
        if self.base_predictors is None:
            lo, hi, setup_bytes = self._agree_on_ranges(Xs, sws, layout, simulation)
            self.feature_range_ = np.vstack([lo, hi])
            varying = hi > lo
            self.vote_min_samples_ = self._vote_tally = None  # (tally: for add_nodes' vote)
            self.conditional_features_ = self.conditional_votes_ = None
            if self.feature_selection in ("vote", "conditional_vote"):
                codes = (Y[0] > 0).astype(np.intp) if Y.shape[0] == 1 else np.argmax(Y, axis=0)
                selected, votes, threshold, spent = self._vote_on_features(
                    Xs, codes, sws, layout, simulation, varying, seeds[: len(self.nodes_)]
                )
                setup_bytes += spent
            else:
                selected, votes, threshold = varying.copy(), None, None
            if not selected.any():
                selected = np.ones_like(varying)
            self.selected_features_ = selected
            self.n_estimators_ = resolve_n_estimators(self.n_estimators, selected.sum())
            self.feature_votes_ = votes
            self.vote_threshold_ = threshold
            # The vote also sums the training samples (the cap of a feature's
            # stumps): each node's distinct positive-weight samples, so that a
            # zero weight counts as a dropped row and a weight of 2 as a
            # duplicated row (neither adds a distinct split).
            cap = _distinct_samples(Xs, sws, layout.offsets) if votes is not None else None
            histogram = None
            if self.stump_placement == "quantile":
                stumped = _stump_counts(lo, hi, self.n_estimators_, selected, cap) > 0
                histogram, spent = self._agree_on_histogram(
                    Xs, sws, layout, simulation, lo, hi, stumped)
                setup_bytes += spent
            self.stump_features_, self.stump_thresholds_ = make_stumps(
                lo, hi, self.n_estimators_, self.stump_placement, histogram, features=selected,
                max_per_feature=cap,
            )
            self.base_predictors_ = None
        else:
            self.base_predictors_ = list(self.base_predictors)
            self.n_estimators_ = len(self.base_predictors_)
            self.stump_features_ = self.stump_thresholds_ = None
            self.feature_range_ = None
            self.selected_features_ = self.feature_votes_ = self.vote_threshold_ = None
            self.vote_min_samples_ = self._vote_tally = None
            self.conditional_features_ = self.conditional_votes_ = None
        H = self._base_matrix(Xs, dtype)
        rogue, (confidence, max_mass) = simulation.rogue.astype(np.uint8), node_scale(mass)
        rogue_mode = 0 if simulation.network.rogue_behavior == "complement" else 1
        state = _BoostingState(
            H, Y, sws, layout.offsets, confidence, self.beta, self.mu, dtype,
            rogue, rogue_mode, score_weight=self._score_weight(),
        )
        state.setup_bytes = setup_bytes
        state.raw_X = Xs  # the nodes' raw features (private kept models)
        state.stump_layout = (None if self.base_predictors is not None  # own stumps
                              else (self.stump_features_, self.stump_thresholds_))
        state.max_mass, state.node_mass = max_mass, mass
        if spec is not None:
            self._plan_private_choices(state, spec, mass)
        self.graph_signal_ = graph_signal_used(self, spec, len(self.nodes_))
        self.__dict__.pop("kernel_features_", None)  # a previous kernel fit's
        if self.graph_signal_ == "kernel":
            state.setup_bytes += fit_graph_models(self, state, Xs, sws, layout, simulation, seeds)
        state = self._fit_alternating(state, simulation, seeds, self.n_jobs)
        if spec is not None:
            state.dp.finish(
                self, state, composition=(
                    f"{state.P} exponential-mechanism choice(s) per local step and per "
                    "wake-up of the node, composed over its steps"
                ),
                public=_DADA_PUBLIC,
                score_sensitivity_per_unit_weight=state.sensitivity,
                choice_scale=state.choice_scale,
                quality_resolution=CHOICE_RESOLUTION,
            )
        n_stumps = H.shape[1] - int(self.fit_intercept)
        refit = self._refit_private_final(state, rng)
        for name in _REFIT_ATTRIBUTES:  # a previous private fit's
            self.__dict__.pop(name, None)
        if refit is not None:
            self.released_coef_, self.released_intercept_ = _split_models(
                state.public, n_stumps, self.fit_intercept)
            self.refit_trust_ = _squeeze_problems(refit[1])
            self.refit_radius_ = _squeeze_problems(refit[2])
        self.coef_, self.intercept_ = _split_models(
            state.alpha if refit is None else refit[0], n_stumps, self.fit_intercept)
        self.n_base_predictors_, self.beta_, self.mu_ = H.shape[1], self.beta, self.mu
        self.radius_selection_, _ = None, self.__dict__.pop("_radius_join_params", None)
        fit_gate(self, state, simulation, spec)  # (add_nodes' one-class rule)
        return self

    def _score_weight(self):
        """The weight ``s`` of the peer scores (0: no scoring)."""
        value = plain_label(self.peer_scoring)  # (np.True_ is True)
        return DEFAULT_SCORE_WEIGHT if value is True else float(value)

    def _peer_score_scale(self, confidence):
        """Factor of a node's peer score: ``s``, whatever its confidence
        (``skfed._graph_join`` scores a newcomer's candidates with it)."""
        return self._score_weight()

    def _plan_private_choices(self, state, spec, mass):
        """Calibrate the exponential mechanism on the Frank-Wolfe scores; set the budget."""
        plan_private_choices(self, state, spec, mass)

    # ------------------------------------------------------------- predict
    def _full_coef(self, released=False):
        coef_, intercept_ = ((self.released_coef_, self.released_intercept_) if released
                             else (self.coef_, self.intercept_))
        coef = coef_ if coef_.ndim == 3 else coef_[:, None, :]
        intercept = intercept_ if intercept_.ndim == 2 else intercept_[:, None]
        if fitted_param(self, "fit_intercept"):  # (the fit's: set_params waits for a fit)
            return np.concatenate([coef, intercept[:, :, None]], axis=2)
        return coef

    def decision_function(self, X, groups=None):
        """Score of every sample under its node's model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``sum_j alpha_kj h_j(x)`` (for ``classes_[1]`` when binary).
        """
        check_is_fitted(self)
        X, codes = self._validate_predict_data(X, groups)
        H = self._base_matrix(X, np.float64)
        return apply_kept_local(  # hook: a node's kept Local model (issue 27)
            self, X, codes, _personalized_scores(H, codes, self._full_coef(), self._shared_coef()))

    def predict(self, X, groups=None):
        """Class of every sample under its node's model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X, groups)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
