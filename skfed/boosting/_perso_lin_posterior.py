"""Perso-lin's newcomer prior from its candidates' likelihoods (issue 32).

A Perso-lin newcomer's model solves its block of the objective,
``min_theta c F_n(theta) + (mu / 2) ||theta - u||^2``, ``u`` its
neighbours' mean model.  The graph join (:mod:`skfed._graph_join`) takes
its neighbours from the row it learns from its own local model; with 5-20
samples in many dimensions that model cannot rank its candidates (on
rotated moons the row puts 32 / 46 / 59 % of its weight inside the
newcomer's cluster at ``k = 5 / 10 / 20``, and ``u`` scores 53-55 % while
the newcomer's own local model scores 55-60).  The candidates' models can
be ranked directly by how well they explain the newcomer's samples.

**The join** (``newcomer_rule_ == "posterior"``).  Each newcomer asks
``min(n_nodes, 20 kappa)`` nodes already in (fitted or joined earlier),
drawn by the peer-sampling service as in the graph join, for their models
(asked again while a node is down; a rogue node answers a corrupted
model).  On its own samples it weighs candidate ``r`` by

    a_r  proportional to  exp(-m_n L_n(theta_r)),

``L_n`` its sample-weighted mean loss (the data term of ``F_n``, summed
over the one-vs-rest problems) and ``m_n`` its mass: with the logistic loss
``exp(-m_n L_n)`` is the likelihood of its labels under ``theta_r``, and
``a`` the posterior over the candidates from a uniform prior.  Its prior is
``u = sum_r a_r theta_r`` and its model

    argmin_theta  (TRUST / rho_n^1.5) c_n F_n(theta) + (mu / 2) ||theta - u||^2,

``c_n`` its paper confidence (its mass over the fit's largest, at most 1)
and ``rho_n = ||u||^2 / sum_r a_r ||theta_r||^2`` the coherence of its
prior (:func:`prior_coherence`, in (0, 1]): where its likelihood cannot
tell candidates that disagree apart, ``u`` is their cancellation, not a
model of any of them, and the newcomer trusts its own samples more
(``rho_n <= 1`` by Cauchy-Schwarz: the trust is never under ``TRUST``).
Solved on its own samples (nothing sent) by Newton's method, every
newcomer of the call at once (:func:`newcomer_blocks`).  It then sends its
weight ``a_r`` to each of its ``max_neighbors`` heaviest candidates (the
fit's cap on a node's edges; all of them if ``None``) of weight at least
``MIN_WEIGHT``: its row of ``collaboration_graph_``.  The prior uses every
weight.  A newcomer whose model misclassifies its own samples
significantly more often than its most frequent class would (its labels
oppose its candidates': :mod:`skfed._graph_join_unlike`) takes instead the
model it fits alone, ``argmin_theta F_n(theta)`` (its row and messages as
before).  A join sends ``n_new q`` empty requests and as many models
(asked again while a node is down), then one float per edge.

**When.**  ``join_neighbours="auto"`` (the default) ends the fit with the
feature-mean gate (:mod:`skfed._mean_neighbours`); when the gate runs and
closes, newcomers join by this rule (``newcomer_rule_ = "posterior"``);
where no gate runs (a finite ``privacy`` budget, 6 fitted nodes or fewer)
they take the graph join.  ``join_neighbours="posterior"`` uses it without
the gate (refused under a finite ``privacy`` budget: the newcomer's
released model is not privatized); ``"graph"`` never.

**Chosen** (``benchmarks/persolin_moons_prior.py``): the temperature 1 (the
likelihood itself) against 0.5 and fixed scales, ``TRUST`` 2 against 1,
1.5 and 3, on rotated moons seeds 0-2 (55.8 / 59.3 / 62.5 at ``TRUST =
1``, 56.5 / 60.1 / 63.3 at 2; the graph join 54.1 / 57.9 / 61.6); the
posterior over every candidate against its 10 or 20 heaviest (which lose
0.4-1.6 on the held-out ``related-small`` and ``related-wide``).  Checked
on moons seeds 3-8 and on the held-out families (HAR, ``related-*``): see
that benchmark's docstring.  Per-newcomer trust rules (cross-validation,
Laplace evidence, the posterior's entropy) and sharper temperatures, chosen
on moons seeds 3-5 and checked on seeds 0-2, 6-8, ``related-*`` and HAR,
all lose over 0.1 somewhere (``benchmarks/persolin29_temperature.py``).
The coherence factor (``benchmarks/persolin_evidence_prior.py``): on
rotated moons the fitted models fall in their 4 clusters exactly, but a
newcomer's 5 samples put 30 % of its posterior in its cluster (39 / 50 %
at ``k = 10 / 20``), so ``u`` averages opposite tasks (``rho`` 0.27 / 0.37
/ 0.49; 0.82-0.97 on the ``related-*`` families); ``rho^-1.5`` chosen
against powers 0, 1, 2, 3 and ``TRUST`` 2-6 on moons seeds 3-5, checked on
seeds 0-2, 6-8, ``related-*`` and HAR (that benchmark's docstring).
"""

import numpy as np
from scipy.special import expit

from .._node_mass import MAX_MASS_BYTES
from .._pending import DropWait

TRUST = 2.0  # the newcomer's confidence multiplier in its block (chosen on moons seeds 0-2)
MIN_WEIGHT = 1e-6  # posterior weights under this get no edge (they still enter u)
COHERENCE_POWER = 1.5  # trust TRUST / rho^1.5 (chosen on moons seeds 3-5; persolin34)
MIN_COHERENCE = 1e-3  # a floor on rho (trust at most 2 / 1e-3^1.5 = 63,246): a numerical guard


def posterior_weights(mass, data_losses):
    """``a_r`` proportional to ``exp(-mass * data_losses[r])``, summing to 1."""
    logits = -float(mass) * np.asarray(data_losses, dtype=np.float64)
    logits -= logits.max()
    a = np.exp(logits)
    return a / a.sum()


def posterior_rule(est, spec):
    """After the fit's gates: ``"posterior"`` where ``"auto"``'s feature-mean
    gate ran and closed, or where it was asked for (see the module)."""
    if est.join_neighbours == "posterior":  # (refused under privacy by check_shared)
        est.newcomer_rule_, est.newcomer_gate_ = "posterior", None
        return
    gate = est.newcomer_gate_
    features = gate["features"] if isinstance(gate, dict) and "features" in gate else gate
    if est.newcomer_rule_ == "graph" and features is not None and not features.get("open"):
        est.newcomer_rule_ = "posterior"


def _loss_terms(loss, margins, values_only=False):
    """``loss(m)`` (``values_only``), else ``(None, loss'(m), loss''(m))``
    (squared hinge: its generalized second derivative), of Perso-lin's losses."""
    if values_only:
        if loss == "logistic":  # log(1 + exp(-m)), three times faster than logaddexp
            return np.log1p(np.exp(-np.abs(margins))) + np.maximum(-margins, 0.0)
        gap = np.maximum(0.0, 1.0 - margins)
        return gap * gap
    if loss == "logistic":
        p = expit(-margins)
        return None, -p, p * (1.0 - p)
    gap = np.maximum(0.0, 1.0 - margins)
    return gap * gap, -2.0 * gap, 2.0 * (gap > 0)


def newcomer_blocks(Z, Y, W, U, c, alpha, mu, n_pen, loss="logistic", tol=1e-8, max_iter=100):
    """Every newcomer's ``argmin c F(theta) + (mu / 2) ||theta - U||^2``, per
    problem, by Newton's method with backtracking (Woodbury solves in the
    samples' space).

    ``Z`` ``(n, k, d)`` the newcomers' designs padded with zero rows, ``Y``
    ``(n, P, k)`` their +-1 targets, ``W`` ``(n, k)`` their sample weights
    over their masses (0 on padding), ``U`` ``(n, P, d)`` the priors, ``c``
    ``(n,)`` the confidences; ``F(theta) = sum_i W_i loss(y_i theta.z_i) +
    (alpha / 2) ||theta[:n_pen]||^2``.  Stops at a gradient of ``tol``
    (every coordinate) or when a step no longer lowers its objective
    (rounding), problem by problem: each newcomer's iterates do not depend
    on the others solved with it.  Returns ``(n, P, d)``.
    """
    n, k, d = Z.shape
    theta = np.array(U, dtype=np.float64)
    lam = np.full((n, d), float(mu))
    lam[:, :n_pen] += c[:, None] * alpha
    cw = c[:, None] * W                                            # (n, k)
    ZL = Z / lam[:, None, :]                                       # (n, k, d)
    K = np.einsum("nid,njd->nij", Z, ZL)                           # (n, k, k)
    eye = np.eye(k)

    def value(th):
        values = _loss_terms(loss, Y * np.einsum("nkd,npd->npk", Z, th), values_only=True)
        pen, dev = th[:, :, :n_pen], th - U
        return (np.einsum("nk,npk->np", cw, values)
                + 0.5 * alpha * c[:, None] * np.einsum("npd,npd->np", pen, pen)
                + 0.5 * mu * np.einsum("npd,npd->np", dev, dev))

    f = value(theta)
    live = np.ones(f.shape, dtype=bool)  # (n, P): problems still iterating
    for _ in range(max_iter):
        _, d1, d2 = _loss_terms(loss, Y * np.einsum("nkd,npd->npk", Z, theta))
        g = np.einsum("npk,nkd->npd", cw[:, None, :] * Y * d1, Z) + mu * (theta - U)
        g[:, :, :n_pen] += alpha * c[:, None, None] * theta[:, :, :n_pen]
        live &= np.max(np.abs(g), axis=2) > tol
        if not live.any():
            break
        r = np.sqrt(cw[:, None, :] * d2)                           # (n, P, k)
        A = eye + r[:, :, :, None] * K[:, None] * r[:, :, None, :]
        gl = g / lam[:, None, :]
        b = r * np.einsum("nkd,npd->npk", Z, gl)
        try:
            sol = np.linalg.solve(A, b[..., None])[..., 0]
        except np.linalg.LinAlgError:  # I + r K r singular in floating point only
            sol = (np.linalg.pinv(A) @ b[..., None])[..., 0]  # (a feature in 1e9 units)
        step = -(gl - np.einsum("npk,nkd->npd", r * sol, ZL))
        slope = np.einsum("npd,npd->np", g, step)
        t = np.ones((n, theta.shape[1]))
        for _ in range(40):  # backtracking (Armijo), problem by problem
            trial = theta + t[..., None] * step
            f_trial = value(trial)
            # (Armijo, with room for the rounding of f near the minimum)
            bad = live & (f_trial > f + 1e-4 * t * slope + 1e-13 * (1.0 + np.abs(f)))
            if not bad.any():
                break
            t = np.where(bad, 0.5 * t, t)
        live &= f_trial < f  # a problem whose step no longer lowers it is at its rounding floor
        if not live.any():
            break
        theta, f = np.where(live[..., None], trial, theta), np.where(live, f_trial, f)
    return theta


def padded_newcomers(est, X, y, sw, layout, max_mass, dtype):
    """The newcomers' designs ``Z`` ``(n, k, d)`` padded with zero rows to the
    largest, their +-1 targets ``Y`` ``(n, P, k)``, sample weights ``S`` (0 on
    padding), weights over masses ``W``, masses and paper confidences
    (the design built in the models' ``dtype``, then float64)."""
    from .._graph_join import _design, _targets
    from .._graph_join_fitted import newcomer_confidence

    Z_all = np.asarray(_design(est, X, dtype), dtype=np.float64)
    Y_all = np.asarray(_targets(est, y, dtype), dtype=np.float64)
    counts = np.diff(layout.offsets)
    n_new, width = len(counts), int(counts.max())
    pad = np.arange(width)[None, :] < counts[:, None]               # (n_new, width)
    idx = np.zeros((n_new, width), dtype=np.intp)
    idx[pad] = layout.order
    Z = np.where(pad[..., None], Z_all[idx], 0.0)
    Y = np.where(pad[:, None, :], Y_all[:, idx].transpose(1, 0, 2), 1.0)
    S = np.where(pad, sw[idx], 0.0)
    mass = S.sum(axis=1)
    W = S / mass[:, None]
    confidences = np.asarray(newcomer_confidence(mass, max_mass), dtype=np.float64)
    return Z, Y, S, W, mass, confidences


def newcomer_losses(est, Z, Y, W, models, confidences):
    """Each newcomer's local term ``c_n F_n`` at its model (its graph loss)."""
    n_pen = models.shape[-1] - int(est.fit_intercept)
    own = _loss_terms(est.loss, Y * np.einsum("nkd,npd->npk", Z, models.astype(np.float64)),
                      values_only=True)
    pen = models[:, :, :n_pen].astype(np.float64)
    return confidences * (np.einsum("nk,npk->n", W, own)
                          + 0.5 * float(est.alpha) * np.einsum("npd,npd->n", pen, pen))


def prior_coherence(a, G):
    """``rho = ||u||^2 / sum_r a_r ||theta_r||^2`` per newcomer, ``u = sum_r
    a_r theta_r`` (every problem and coordinate, intercepts included): 1
    when its weighted candidates agree, near 0 when its prior is the
    cancellation of models that disagree.  ``a`` ``(n, q)``, ``G`` ``(n,
    q, P, d)``; a newcomer whose weighted candidates are all zero gets 1."""
    Gf = G.reshape(G.shape[0], G.shape[1], -1)
    u = np.einsum("nq,nqd->nd", a, Gf)
    second = np.einsum("nq,nq->n", a, np.einsum("nqd,nqd->nq", Gf, Gf))
    top = np.einsum("nd,nd->n", u, u)
    return np.where(second > 0, top / np.where(second > 0, second, 1.0), 1.0)


def _candidate_models(est, Z, Y, W, G, mass, confidences):
    """The posterior weights ``a`` ``(n, q)`` of the candidates' models ``G``
    ``(n, q, P, d)`` and the newcomers' models (see the module)."""
    values = _loss_terms(est.loss, Y[:, :, :, None] * np.einsum("nkd,nqpd->npkq", Z, G),
                         values_only=True)
    data_losses = np.einsum("nk,npkq->nq", W, values)
    a = np.stack([posterior_weights(mass[i], data_losses[i]) for i in range(len(Z))])
    U = np.einsum("nq,nqpd->npd", a, G)
    n_pen = G.shape[-1] - int(est.fit_intercept)
    trust = TRUST / np.maximum(prior_coherence(a, G), MIN_COHERENCE) ** COHERENCE_POWER
    return a, newcomer_blocks(Z, Y, W, U, trust * confidences, float(est.alpha),
                              float(est.mu), n_pen, est.loss)


def posterior_join(est, X, y, groups, sample_weight=None):
    """Newcomers take the posterior prior of their candidates (see the module)."""
    from .._graph_join import _CANDIDATES_PER_KAPPA, _random_seed
    from .._graph_join_unlike import keep_alone_if_contradicted
    from .._mean_neighbours import record_newcomers
    from ._perso_lin_shared import start_join
    from ..graph import model_message_bytes
    from ..network import payload_bytes

    info = est._join_info
    X, y, sw, new_labels, layout, models, seed, rng, sim, _ = start_join(
        est, X, y, groups, sample_weight, 104761)
    dtype = models.dtype
    n_old, n_new = len(est.nodes_), len(new_labels)
    P, nb = models.shape[1:]
    rng.seed([_random_seed(est), seed, 104773])
    q = min(n_old, _CANDIDATES_PER_KAPPA * int(est.kappa))
    cand = np.sort(np.array([rng.permutation(n_old)[:q] for _ in range(n_new)],
                            dtype=np.intp).reshape(n_new, q), axis=1)
    flat = models.reshape(n_old, -1)
    payloads = model_message_bytes(flat, dtype).astype(np.int64)
    newcomers = n_old + np.arange(n_new, dtype=np.intp)
    # Rounds: each newcomer that is up asks the candidates that have not
    # answered yet; each one up answers its model (a rogue one corrupted).
    # (one DropWait step of messages that wait for both ends)
    got_models = np.zeros((n_new, q, P * nb))
    have = np.zeros((n_new, q), dtype=bool)
    wait = DropWait([np.stack([np.repeat(newcomers, q), cand.ravel()], axis=1)])
    while not wait.complete:
        active = sim.draw_rounds(1)[0][0]
        asks = wait.left[active[newcomers[wait.left // q]]]
        sim.counter.send_pairs(newcomers[asks // q], cand.ravel()[asks],
                               np.zeros(len(asks), np.int64))
        ((_, sent),) = wait.take(active)
        (asker, where), asked = np.divmod(sent, q), cand.ravel()[sent]
        # (a newcomer's first answer also carries the fit's largest mass)
        first = (np.diff(asker, prepend=-1) != 0) & ~have[asker].any(axis=1)
        sim.counter.send_pairs(asked, newcomers[asker], payloads[asked] + MAX_MASS_BYTES * first)
        values = flat[asked].astype(np.float64)
        if sim.rogue[asked].any():
            values = sim.corrupt_value_rows(values, asked)
        got_models[asker, where] = values
        have[asker, where] = True
        sim.counter.next_round()
    G = got_models.reshape(n_new, q, P, nb)
    Z, Y, _, W, mass, confidences = padded_newcomers(est, X, y, sw, layout,
                                                     float(info["max_mass"]), dtype)
    a, new_models = _candidate_models(est, Z, Y, W, G, mass, confidences)
    new_models = new_models.astype(dtype)
    losses = newcomer_losses(est, Z, Y, W, new_models, confidences)
    # A newcomer its model contradicts fits alone instead (nothing sent).
    keep_alone_if_contradicted(est, X, y, sw, layout, new_models, losses)
    keep = a >= MIN_WEIGHT
    if est.max_neighbors is not None and q > est.max_neighbors:  # the fit's cap on its edges
        rank = np.argsort(np.argsort(-a, axis=1, kind="stable"), axis=1, kind="stable")
        keep &= rank < int(est.max_neighbors)
    r, c, w = np.repeat(newcomers, keep.sum(axis=1)), cand[keep], a[keep]
    # Last round: each newcomer tells its neighbours their weight.
    sim.counter.send_pairs(r, c, np.full(len(r), payload_bytes(n_float64=1), np.int64))
    sim.counter.next_round()
    return record_newcomers(est, sim, info, new_labels, models, new_models, losses,
                            confidences, (w, r, c), seed)
