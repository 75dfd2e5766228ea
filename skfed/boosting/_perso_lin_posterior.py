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

    argmin_theta  TRUST c_n F_n(theta) + (mu / 2) ||theta - u||^2,

``c_n`` its paper confidence (its mass over the fit's largest, at most 1),
solved by L-BFGS on its own samples (nothing sent).  It then sends each
candidate of weight at least ``MIN_WEIGHT`` its weight ``a_r``: its row of
``collaboration_graph_`` (degree 1 up to the dropped weights).

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
that benchmark's docstring.
"""

import numpy as np

TRUST = 2.0  # the newcomer's confidence multiplier in its block (chosen on moons seeds 0-2)
MIN_WEIGHT = 1e-6  # posterior weights under this get no edge (they still enter u)


def posterior_weights(mass, data_losses):
    """``a_r`` proportional to ``exp(-mass * data_losses[r])``, summing to 1."""
    logits = -float(mass) * np.asarray(data_losses, dtype=np.float64)
    logits -= logits.max()
    a = np.exp(logits)
    return a / a.sum()


def check_posterior(est, spec):
    """Refuse ``join_neighbours="posterior"`` under a finite privacy budget."""
    import math

    if est.join_neighbours == "posterior" and spec is not None and math.isfinite(spec.epsilon):
        raise ValueError(
            "join_neighbours='posterior' releases the newcomers' models without noise: "
            "use join_neighbours='auto' or 'graph' with a finite privacy budget.")


def posterior_rule(est, spec):
    """After the fit's gates: ``"posterior"`` where ``"auto"``'s feature-mean
    gate ran and closed, or where it was asked for (see the module)."""
    if est.join_neighbours == "posterior":
        check_posterior(est, spec)
        est.newcomer_rule_, est.newcomer_gate_ = "posterior", None
        return
    gate = est.newcomer_gate_
    features = gate["features"] if isinstance(gate, dict) and "features" in gate else gate
    if est.newcomer_rule_ == "graph" and features is not None and not features.get("open"):
        est.newcomer_rule_ = "posterior"


def posterior_join(est, X, y, groups, sample_weight=None):
    """Newcomers take the posterior prior of their candidates (see the module)."""
    from .._graph_join import (_CANDIDATES_PER_KAPPA, _design, _models, _Newcomer,
                               _random_seed, _targets)
    from .._graph_join_fitted import join_random_state, join_rogue, join_simulation
    from .._mean_neighbours import _mean_and_loss, record_newcomers
    from ..graph import model_message_bytes
    from ..network import payload_bytes
    from ._perso_lin_shared import newcomer_block

    from .._base import check_network_faults

    info = est._join_info
    X, y, sample_weight, new_labels, layout = est._validate_join_data(
        X, y, groups, sample_weight)
    check_network_faults(est, est.network, {
        "straggler_rate": "a node's step is atomic and asynchronous (a slow "
        "node wakes up less often, which its random clock already models), "
        "so there is no partial work to cut",
    })
    sw = (np.ones(X.shape[0]) if sample_weight is None
          else np.asarray(sample_weight, dtype=np.float64))
    models = _models(est)
    dtype = models.dtype
    n_old, n_new = len(est.nodes_), len(new_labels)
    seed = int(getattr(est, "_join_seed", 0))
    rng = join_random_state([_random_seed(est), seed, 104761])
    sim = join_simulation(est, n_old + n_new, rng)
    rogue_old = np.asarray(info.get("rogue", np.zeros(n_old, bool)), dtype=bool)
    # each newcomer rogue with probability rogue_fraction, as in every join
    sim.rogue[:] = join_rogue(sim.network, rogue_old, n_new, [_random_seed(est), seed, 7919])
    rng.seed([_random_seed(est), seed, 104773])
    n_candidates = min(n_old, _CANDIDATES_PER_KAPPA * int(est.kappa))
    candidates = [np.sort(rng.permutation(n_old)[:n_candidates]).astype(np.intp)
                  for _ in range(n_new)]
    flat = models.reshape(n_old, -1)
    payloads = model_message_bytes(flat, dtype).astype(np.int64)
    newcomers = n_old + np.arange(n_new, dtype=np.intp)
    # Rounds: each newcomer asks the candidates that have not answered yet
    # (a down newcomer waits), each one up answers its model.
    received = [dict() for _ in range(n_new)]
    while any(len(received[k]) < n_candidates for k in range(n_new)):
        active = sim.draw_rounds(1)[0][0]
        for k in range(n_new):
            if not active[newcomers[k]]:
                continue
            todo = np.array([j for j in candidates[k] if int(j) not in received[k]],
                            dtype=np.intp)
            if not len(todo):
                continue
            sim.counter.send_pairs(np.full(len(todo), newcomers[k], np.intp), todo,
                                   np.zeros(len(todo), np.int64))
            got = todo[active[todo]]
            sim.counter.send_pairs(got, np.full(len(got), newcomers[k], np.intp), payloads[got])
            answers = (sim.corrupt_value_rows(flat[got].astype(np.float64), got).astype(dtype)
                       if len(got) else flat[got])
            for j, a in zip(got.tolist(), answers):
                received[k][j] = a
        sim.counter.next_round()
    Z_all, Y_all = _design(est, X, dtype), _targets(est, y, dtype)
    new_models = np.zeros((n_new,) + models.shape[1:], dtype=dtype)
    losses, confidences = np.zeros(n_new), np.zeros(n_new)
    rows, cols, weights = [], [], []
    n_pen = models.shape[2] - int(est.fit_intercept)
    for k in range(n_new):
        idx = layout.node_indices(k)
        node = _Newcomer(est, np.ascontiguousarray(Z_all[idx]), np.ascontiguousarray(Y_all[:, idx]),
                         np.ascontiguousarray(sw[idx], dtype=dtype), float(info["max_mass"]), dtype)
        cand = candidates[k]
        got = np.stack([received[k][int(j)] for j in cand]).reshape((len(cand),) + models.shape[1:])
        a = posterior_weights(node.mass, node.data_losses(got))
        prior = np.tensordot(a, got.astype(np.float64), axes=1)
        own = newcomer_block(node.Z, node.Y, node.sw, prior, TRUST * node.confidence, est.alpha,
                             est.mu, n_pen, est.loss)
        new_models[k], losses[k] = _mean_and_loss(est, node, own.astype(dtype))
        confidences[k] = node.confidence
        keep = a >= MIN_WEIGHT
        rows.append(np.full(int(keep.sum()), newcomers[k], np.intp))
        cols.append(cand[keep])
        weights.append(a[keep])
    r, c, w = np.concatenate(rows), np.concatenate(cols), np.concatenate(weights)
    # Last round: each newcomer tells its neighbours their weight.
    sim.counter.send_pairs(r, c, np.full(len(r), payload_bytes(n_float64=1), np.int64))
    sim.counter.next_round()
    return record_newcomers(est, sim, info, new_labels, models, new_models, losses,
                            confidences, (w, r, c), seed)
