"""The private class vote on the Local model class (issue 27).

Perso-lin and MOCHA classifiers under a finite budget with no
``DifferentialPrivacy(local_estimator=...)``.

Local is one strategy for every node of a data set; a node's own choice
on its own handful of held-out samples often misses the class that suits
the federation (HAR's people keep the errorless logistic regression where
LinearSVC is the better class).  So the nodes vote: each casts one ballot,
the simplest class alone (logistic regression, LinearSVC, the rbf model)
that no other beats by one paired standard error of Platt-calibrated
held-out log-loss (:func:`class_ballot`; 0-1 errors for more than two
classes), or abstains (one class, fewer than two folds).  The federation
elects "no fixed class" (the logistic regression's ballots plus a guard,
:func:`vote_guard`), LinearSVC or the rbf model by the exponential
mechanism on the counts (:func:`elect`, sensitivity 1: a node's data,
or one of its samples, changes at most its own ballot), on the fit's secure
noise source.  Its budget is a public fraction of the fit's,
``VOTE_SHARE`` (:func:`split_budget`: the fit at half of epsilon, the
vote at the other half, when the fit has more nodes than the guard; else no
vote), composed into ``privacy_spent_`` (basic composition).  Then each
node keeps its fit of the elected class unless its collaborative model
wins :func:`collaboration_wins` (at level ``0.05 / n_nodes``), or, with
no fixed class, its own rule (:func:`skfed._kept_local.kept_choice`;
:func:`voted_model`).  What the vote
releases is the elected option (``elected_local_class_``); the ballots and
counts are not stored.  Unlike the fit's releases, which each node
noises itself, the vote is a central mechanism: the guarantee covers the
elected option and assumes the ballots reach the mechanism unseen (MOCHA's
server; the root of Perso-lin's vote tree, to which every ballot is sealed,
so that a relay reads none).  The ballots and the elected option travel as one more
round of the fit's simulated network, counted in ``communication_``,
``n_bytes_sent_`` and ``n_messages_``: MOCHA's server round
(:func:`server_tally`) and Perso-lin's ballots sealed to the root of a
tree of the online nodes, which checks them
(``skfed.boosting._private.tree_tally``: Perso-lin has no server); a node the round's fault draw drops neither votes nor hears the
result, and keeps its own rule.  MOCHA adds a federation-level pooled test
of the nodes' clipped held-out error differences, which can turn an
elected "no fixed class" into LinearSVC, the rbf model or, when its release
shows the classes equivalent, the logistic regression on every node
(:mod:`skfed._class_vote_pooled`;
``run_class_vote(pooled_epsilon=...)``).
"""

import math

import numpy as np

from ._kept_local import (  # the kept-model rule the vote extends
    CLASSIFIERS,
    SIMPLEST,
    _fit,
    classification_heldout,
    collaboration_wins,
    heldout_errors,
    kept_choice,
)


# The options of the vote, from the simplest: the first, "no fixed class",
# keeps each node's own one-standard-error rule (kept_choice over SIMPLEST);
# the other two put the class on every node (each keeps its fit of it unless
# its collaborative model wins collaboration_wins).  A ballot names the
# simplest class alone (the logistic regression standing for "no fixed
# class") that no other beats by one standard error (class_ballot).
BALLOT = ("LogisticRegression", "LinearSVC", "rff-LinearSVC")

# The vote's share of a private classifier fit's epsilon: the fit spends
# (1 - VOTE_SHARE) epsilon, the vote VOTE_SHARE epsilon (a fraction, so that
# it means the same at every epsilon).  privacy10 measured (epsilon 3,
# benchmarks/private_class_vote.py, seeds 0-2) that the fits at 2 lost
# nothing against the fits at 3 on any record: the kept models are the
# nodes' own fits, which spend nothing.  A third of epsilon 3 left HAR's
# 19-of-21 LinearSVC ballots electing "no fixed class" in 3.9 % of fits
# (vote_probabilities([2, 19, 0], 1)), about one 3-seed table in 11 under
# Local; half leaves 0.06 % (epsilon_v = 1.5, guard 7.1 ballots) and, on
# the table's rows at epsilon 1 / 3 / 10 (benchmarks/privacy_utility.py
# --epsilons 1 3 10 --kept default, seeds 0-2, lead 29 November 2026),
# every row at or above its value with a third.
VOTE_SHARE = 0.5

# The guard of the vote: "no fixed class" gets vote_guard(epsilon_v) extra
# quality, so that a class with no more ballots than the logistic regression
# is adopted with probability below VOTE_ALPHA.
VOTE_ALPHA = 0.01

# Grid of the vote's integer qualities: ballot counts times VOTE_RESOLUTION
# (exact, sensitivity VOTE_RESOLUTION), the guard floored onto it.
VOTE_RESOLUTION = 1024


def vote_guard(vote_epsilon, alpha=VOTE_ALPHA):
    """The guard ``T = (2 / epsilon_v) ln(2 / alpha)`` of "no fixed class".

    With qualities ``(n_0 + T, n_1, n_2)`` (``n_j`` the ballots of option j)
    and ``P(j) ~ exp(epsilon_v q_j / 2)``, a class j with ``n_j <= n_0`` is
    drawn with probability at most ``exp(-epsilon_v T / 2) = alpha / 2``, so
    either class with probability below ``alpha``.
    """
    return 2.0 / float(vote_epsilon) * math.log(2.0 / float(alpha))


def split_budget(epsilon, n_nodes, vote=True):
    """``(fit_epsilon, vote_epsilon)``: the public split of a private fit's budget.

    The vote is held (``vote_epsilon = VOTE_SHARE epsilon``, the fit at the
    rest) when ``vote`` (a classifier fit with no ``local_estimator``, whose
    nodes consider the Local classes) and epsilon is finite and the fit has
    more nodes than the guard :func:`vote_guard`: with ``n_nodes <= T`` even
    a unanimous class would be elected at most half of the time, so the
    whole budget goes to the fit (``vote_epsilon = 0``).  Both depend only on
    public quantities (epsilon, the number of nodes).
    """
    epsilon = float(epsilon)
    if not vote or not math.isfinite(epsilon):
        return epsilon, 0.0
    vote_epsilon = VOTE_SHARE * epsilon
    if not vote_epsilon > 0 or int(n_nodes) <= vote_guard(vote_epsilon):  # (0: underflow)
        return epsilon, 0.0
    return epsilon - vote_epsilon, vote_epsilon


def vote_scale(vote_epsilon):
    """``(scale, epsilon)``: the integer scale ``ceil(2 R / epsilon_v)`` of the
    election on qualities of sensitivity ``R = VOTE_RESOLUTION`` and the
    epsilon it spends, ``2 R / scale <= epsilon_v``."""
    scale = int(math.ceil(2.0 * VOTE_RESOLUTION / float(vote_epsilon)))
    return scale, 2.0 * VOTE_RESOLUTION / scale


def vote_qualities(counts, vote_epsilon):
    """Integer qualities of the options: ``R (n_0, n_1, n_2) + (floor(R T), 0, 0)``."""
    counts = np.asarray(counts, dtype=np.int64)
    quality = VOTE_RESOLUTION * counts
    quality[0] += int(math.floor(VOTE_RESOLUTION * vote_guard(vote_epsilon)))
    return quality


def vote_probabilities(counts, vote_epsilon):
    """The election's exact probabilities (a NumPy reference of :func:`elect`).

    ``P(j) ~ exp(q_j / scale)`` with the qualities of :func:`vote_qualities`
    and the scale of :func:`vote_scale`.
    """
    scale, _ = vote_scale(vote_epsilon)
    logits = vote_qualities(counts, vote_epsilon) / float(scale)
    p = np.exp(logits - logits.max())
    return p / p.sum()


def ballot_counts(ballots):
    """Counts of the options ``(3,)``; a ballot of -1 abstains."""
    ballots = np.asarray(ballots, dtype=np.intp)
    return np.bincount(ballots[ballots >= 0], minlength=len(BALLOT))[: len(BALLOT)]


def elect(ballots, vote_epsilon, source):
    """The elected option (an index into ``BALLOT``; 0: no fixed class).

    The exponential mechanism on the ballot counts: a node casts one ballot
    (or abstains), so replacing the node's data -- or one of its samples --
    moves every count by at most 1 (sensitivity 1; on the grid, exactly
    ``VOTE_RESOLUTION``); drawn by the exact sampler of ``source``
    (:meth:`skfed._secure_noise.NoiseSource.choice`), ``epsilon``-DP with
    the epsilon of :func:`vote_scale`.
    """
    scale, _ = vote_scale(vote_epsilon)
    return int(source.choice(vote_qualities(ballot_counts(ballots), vote_epsilon), scale))


def platt_losses(scores, codes):
    """Per-sample log-loss of Platt-calibrated binary scores.

    ``P(y = 1 | f) = 1 / (1 + exp(-(a f + b)))``, ``a >= 0``, fitted on the
    held-out scores themselves with Platt's smoothed targets
    ``(n_1 + 1) / (n_1 + 2)`` and ``1 / (n_0 + 2)``; the losses are those of
    the labels (probabilities clipped to ``[1e-6, 1 - 1e-6]``).
    """
    from scipy.optimize import minimize

    f = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(codes) == 1
    n1 = int(positive.sum())
    n0 = positive.size - n1
    target = np.where(positive, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))

    def objective(theta):
        u = theta[0] * f + theta[1]
        r = 0.5 * (1.0 + np.tanh(0.5 * u)) - target
        return float(np.mean(np.logaddexp(0.0, u) - target * u)), np.array(
            [np.mean(r * f), np.mean(r)])

    spread = max(float(np.std(f)), 1e-12)
    start = np.array([1.0 / spread, math.log((n1 + 1.0) / (n0 + 1.0))])
    a, b = minimize(objective, start, jac=True, method="L-BFGS-B",
                    bounds=[(0.0, None), (None, None)],
                    options={"ftol": 1e-13, "gtol": 1e-10}).x
    p = np.clip(0.5 * (1.0 + np.tanh(0.5 * (a * f + b))), 1e-6, 1.0 - 1e-6)
    return -np.where(positive, np.log(p), np.log1p(-p))


def class_ballot(losses):
    """A node's ballot: the simplest class that no other beats by one standard error.

    ``losses`` ``(3, m)``: the held-out per-sample losses of the ``BALLOT``
    classes on the same samples.  Class c is the ballot when, against every
    other class o, the mean of ``losses[c] - losses[o]`` is at most one
    standard error of that paired difference; the first such class from the
    simplest, else the logistic regression (0).
    """
    losses = np.asarray(losses, dtype=np.float64)
    m = losses.shape[1]
    if m < 2:
        return 0
    for c in range(losses.shape[0]):
        diff = losses[c][None, :] - losses
        mean, se = diff.mean(axis=1), diff.std(axis=1, ddof=1) / math.sqrt(m)
        if all(mean[o] <= se[o] + 1e-12 for o in range(losses.shape[0]) if o != c):
            return c
    return 0


def vote_evidence(X, codes, collab_scores, fold, n_folds, seed):
    """A node's held-out evidence for the class vote, or None (it abstains).

    Parameters
    ----------
    X, codes, collab_scores, fold, n_folds, seed
        As in :func:`choose_classifier`.

    Returns
    -------
    evidence : dict or None
        ``err`` ``(1 + len(CLASSIFIERS), m)``: the collaborative model's and
        the Local classifiers' held-out 0-1 errors (the rows of
        :func:`choose_classifier`); ``ballot``: the node's ballot
        (:func:`class_ballot` on the classes' Platt-calibrated held-out
        log-losses, :func:`platt_losses`, for two classes; on their 0-1
        errors for more); and the node's ``X``, ``codes`` and ``seed`` for
        the fit of the kept model.  None (no ballot) when the node has no
        held-out scores, fewer than two folds or one class: it keeps its
        collaborative model whatever the vote elects.
    """
    if collab_scores is None or n_folds < 2 or np.unique(codes).size < 2:
        return None
    local_err, local_scores = classification_heldout(X, codes, fold, n_folds, seed)
    rows = [CLASSIFIERS.index(name) for name in BALLOT]
    if np.shape(collab_scores)[0] == 1:
        losses = np.vstack([platt_losses(local_scores[r], codes) for r in rows])
    else:
        losses = local_err[rows]
    return {"err": np.vstack([heldout_errors(collab_scores, codes), local_err]),
            "ballot": class_ballot(losses), "X": X, "codes": codes, "seed": seed}


def voted_model(evidence, elected, n_nodes):
    """The node's kept Local classifier under the elected option, or None.

    ``elected`` 0 (no fixed class): the node's own class, the simplest of
    the models it trains alone (``SIMPLEST`` without the collaborative
    model) within one standard error (:func:`kept_choice`).  A class (its
    index into ``BALLOT``, or the name of the pooled test's common class,
    :func:`skfed._class_vote_pooled.common_decision`): the node's fit of
    it.  Either way the node keeps its collaborative model instead only when that model's held-out errors beat the chosen class's
    by the one-sided sign test at level ``0.05 / n_nodes``
    (:func:`collaboration_wins`).  Under "no fixed class" the
    collaborative model used to be one more candidate of the one-standard-
    error rule, which on nodes of 5-10 samples switched to it whenever it
    made no held-out error (with the fit's budget: persolin-computer at
    epsilon 10 0.63899 against Local's 0.64172 over seeds 0-5, 0.64325 with
    the sign test; ``benchmarks/rogue15_collab_switch.py``).
    """
    if evidence is None:
        return None
    err = evidence["err"]
    if isinstance(elected, str):  # the pooled test's common class (a name)
        name = elected
    elif elected == 0:
        order = [1 + CLASSIFIERS.index(n) for n in SIMPLEST if n != "collaborative"]
        name = CLASSIFIERS[order[kept_choice(err[order])] - 1]
    else:
        name = BALLOT[elected]
    if collaboration_wins(err[1 + CLASSIFIERS.index(name)], err[0], True, n_nodes):
        return None
    return _fit(name, evidence["X"], evidence["codes"], evidence["seed"])


def ballot_payloads(pooled=False):
    """``(up, down)`` payload bytes of one node's vote messages (no header).

    Up: a node's ballot naming one of the options or abstaining
    (``index_bits(len(BALLOT) + 1)`` bits, one byte; an abstaining node
    sends one too, so that the messages do not tell which nodes abstained)
    to MOCHA's server (Perso-lin relays the same bytes sealed to its vote
    tree's root, ``skfed.boosting._private.tree_tally``).  With MOCHA's
    pooled test (``pooled``, :mod:`skfed._class_vote_pooled`) the ballot's
    message also carries the node's three statistics ``(u_1, u_2, u_3)``
    (three float64; an abstaining node sends zeros).
    Down: the elected option (``index_bits(len(BALLOT))`` bits, one byte).
    """
    from .network import index_bits, payload_bytes

    up = payload_bytes(n_bits=index_bits(len(BALLOT) + 1), n_float64=3 if pooled else 0)
    return up, payload_bytes(n_bits=index_bits(len(BALLOT)))


def server_tally(counter, active_mask, ballots, pooled=False):
    """MOCHA's vote round on the fit's ``CommCounter``: every active node
    (``active_mask``, the round's fault draw) sends its ballot (and with
    ``pooled`` its pooled test's statistics, :func:`ballot_payloads`) to the server,
    which sends the elected option back to them; a dropped node neither
    votes nor hears the result.  Counted as one more round
    (``bytes_per_round_``).  Returns ``(reached, bytes, messages, counted)``,
    the bytes with headers, ``counted`` the ``ballots`` of the reached nodes
    (-1 elsewhere), as every tally of :func:`run_class_vote` returns."""
    up, down = ballot_payloads(pooled=pooled)
    reached = np.asarray(active_mask, dtype=bool)
    active = np.flatnonzero(reached).astype(np.intp)
    counter.gather_to_server(active, np.full(active.size, up, dtype=np.int64))
    counter.broadcast_from_server(active, np.full(active.size, down, dtype=np.int64))
    counter.next_round()
    counted = np.where(reached, np.asarray(ballots, dtype=np.intp), -1)
    return (reached,) + closed_round(counter) + (counted,)


def closed_round(counter):
    """``(bytes, messages)`` of the counter's last closed round, as logged."""
    log = counter.snapshot(dense=False)
    if not len(log["round_bytes"]):
        return 0, 0
    return int(log["round_bytes"][-1]), int(log["round_messages"][-1])


def record_no_vote(estimator):
    """A private classifier fit that held no class vote (no budget share:
    too few nodes for the guard, or a given ``local_estimator``):
    ``elected_local_class_`` None and ``privacy_["class_vote"]`` says so."""
    estimator.elected_local_class_ = None
    info = getattr(estimator, "privacy_", None)
    if isinstance(info, dict):
        info["class_vote"] = {"held": False, "epsilon": 0.0}


def run_class_vote(estimator, evidence, vote_epsilon, source, tally=None, pooled_epsilon=0.0):
    """Hold the class vote and return every node's kept Local model.

    Parameters
    ----------
    estimator : fitted private estimator
        Gets ``elected_local_class_`` (the elected class's name, or None: no
        fixed class, or no vote held) and, when a vote is held, the vote's
        epsilon added to every node's ``privacy_spent_`` (basic composition
        of the fit's ``(epsilon_fit, delta)`` and the vote's pure
        ``epsilon_v``) and described in ``privacy_["class_vote"]``.
    evidence : list
        Per node, :func:`vote_evidence` (or None).
    vote_epsilon : float
        :func:`split_budget`'s ``vote_epsilon``; 0: no vote (each node's own
        rule).
    source : NoiseSource
        The fit's secure source.
    tally : callable, default=None
        The vote's network round (:func:`server_tally`,
        ``skfed.boosting._private.tree_tally``):
        called once when a vote is held with every node's ballot (-1: the
        node abstains), it counts the messages on the fit's network and
        returns ``(reached, bytes, messages, counted)``: the nodes that hear
        the elected option (the others keep their own rule, as with no fixed
        class) and the ballots the tally counted (-1 not counted: a node not
        reached, or one whose ballot Perso-lin's root refused).  None: every
        ballot counted, no message (unit tests of the election).
    pooled_epsilon : float, default=0.0
        MOCHA's federation-level pooled test
        (:func:`skfed._class_vote_pooled.pooled_test`, on the counted nodes'
        statistics :func:`skfed._class_vote_pooled.node_statistics`) at this
        epsilon, drawn after the election: it turns an elected "no fixed
        class" into LinearSVC or the rbf model when it fixes one, or into
        the logistic regression on every node when its release shows the
        classes equivalent (:func:`skfed._class_vote_pooled.common_decision`,
        post-processing); its epsilon is added too.
        0: no pooled test (Perso-lin).

    Returns
    -------
    models : ndarray of shape (n_nodes,), dtype object
    """
    n_nodes = len(evidence)
    elected = 0
    record_no_vote(estimator)
    info = getattr(estimator, "privacy_", None)
    reached = np.ones(n_nodes, dtype=bool)
    n_bytes = n_messages = 0
    if vote_epsilon > 0.0:
        ballots = [-1 if e is None else e["ballot"] for e in evidence]
        if tally is not None:
            reached, n_bytes, n_messages, counted = tally(ballots)
            ballots = [int(b) for b in counted]
        elected = elect(ballots, vote_epsilon, source)
        scale, spent = vote_scale(vote_epsilon)
        pooled = None
        if pooled_epsilon > 0.0:
            from ._class_vote_pooled import node_statistics, pooled_test

            stats = [node_statistics(e["err"]) for k, e in enumerate(evidence)
                     if e is not None and reached[k]]
            fixed, pooled = pooled_test(np.reshape(stats, (-1, 3)), pooled_epsilon, source,
                                        n_nodes=n_nodes)
            # the tests only turn the ballots' "no fixed class" into a class
            pooled["elected_by_test"] = bool(elected == 0 and fixed > 0)
            if pooled["elected_by_test"]:
                elected = int(fixed)
            elif elected == 0 and pooled["common"]:
                # the classes equivalent over the federation: the simplest
                # for every node instead of each node's own (noisy) choice
                elected = BALLOT[0]
            spent += pooled["epsilon"]
        estimator.privacy_spent_ = np.asarray(estimator.privacy_spent_, dtype=float) + spent
        if isinstance(info, dict):
            info["class_vote"] = {
                "held": True, "mechanism": "exponential mechanism on the ballot counts (exact sampler)",
                "epsilon": spent, "share": VOTE_SHARE, "sensitivity": 1,
                "guard": vote_guard(vote_epsilon), "alpha": VOTE_ALPHA, "scale": scale,
                "resolution": VOTE_RESOLUTION, "options": ("own rule",) + BALLOT[1:],
                "bytes": n_bytes, "messages": n_messages,
                "ballots_counted": int(reached.sum()),
                "composition": "added to the fit's epsilon (basic composition)",
            }
            if pooled is not None:
                info["class_vote"]["pooled_test"] = pooled
    estimator.elected_local_class_ = (elected if isinstance(elected, str) else None
                                      if elected == 0 else BALLOT[elected])
    models = np.full(n_nodes, None, dtype=object)
    for k, e in enumerate(evidence):
        models[k] = voted_model(e, elected if reached[k] else 0, n_nodes)
    return models
