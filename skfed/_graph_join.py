"""Nodes that join a fitted Dada or Perso-lin federation (issue 32).

:func:`graph_join_nodes` is what ``add_nodes`` of
:class:`~skfed.boosting.DecentralizedBoostingClassifier` and
:class:`~skfed.boosting.PersonalizedLinearClassifier` runs.  Besides the
fitted models and graph it needs what the fit keeps in ``_join_info``:
every fitted node's confidence-weighted loss ``l_j = c_j sum_p
L_j(alpha_j)`` (what it sends in a graph step), the largest node mass (the
confidences ``c = m / m_max``, a newcomer's at most
``NEWCOMER_CONFIDENCE_CAP``), which fitted nodes are rogue and the fit's
node count (its schedule), and, when the fit learned its graph once, the
models the graph was learned from.  :func:`join_info_from_data` recomputes
the losses and the mass from the training data (an independent reference
for tests).

A new node n joins in four steps, the fitted nodes' models and weights
held fixed (they only answer, and they gain one edge each toward the
newcomers that choose them), after Dada's feature vote:

0. **Feature vote** (Dada with ``feature_selection="vote"`` and stumps on
   the agreed ranges, no finite privacy budget; :mod:`skfed._graph_join_vote`).  Each
   newcomer casts the fit's ballots (``node_ballots``; a ranking ballot if
   it holds at least ``vote_min_samples_`` distinct samples) and sends them
   to the vote's root (fitted node 0), which adds them to the fit's counts
   and thresholds them with the fit's rule over all voters
   (``_count_votes``).  A newly selected feature gets the stumps
   ``make_stumps`` gives it under the new selection, appended to the
   estimator's with weight zero in every fitted model;
   the root sends the selection back.  Rotated moons, seed 0: the fitted
   nodes' vote missed an informative feature, and the join went from 64.6
   / 66.6 to 73.7 / 81.6 at ``k = 10 / 20`` (refit 77.5 / 83.2).
1. **Local model.**  It runs the fit's purely local steps on its samples
   (``ceil(max_iter / n_fitted)`` Frank-Wolfe steps for Dada, gradient
   steps for Perso-lin), as every node did before the graph was learned.
2. **Candidates.**  It asks ``min(n_fitted, 20 kappa)`` fitted nodes, drawn
   at random by the peer-sampling service, for their model, loss and degree
   (the answer of a graph step); dropped nodes do not answer, rogue ones
   answer a corrupted model and loss (``SimulatedNetwork.rogue_behavior``).
   The model and loss are those the fitted graph was learned from: the
   local ones when the fit learned its graph once (``graph_update_every=
   None``), so that the newcomer places itself as the fit placed everyone
   (on rotated moons its neighbours' weight in its own cluster went from
   0.36 with the final, smoothed models to 0.79, a refit's newcomers 0.89);
   the final ones when the fit re-learned it or the graph was given.
3. **Its row of the graph.**  With every other weight fixed, its weights
   ``v_r`` toward the candidates that answered minimize its row of the graph
   objective (eq. 5, :mod:`skfed.graph`)::

       sum_r v_r (l_n + l_r + (mu / 2) ||alpha_n - alpha_r||^2)
       + mu_graph (lambda_graph sum_r v_r^2 - log(D + delta)
                   - sum_r log(d_r + v_r + delta)),      D = sum_r v_r,

   solved exactly (``graph_row``: each ``v_r`` in closed form given D, D by
   bisection).  With ``peer_scoring`` the pair also pays ``2 e_nr``, the
   newcomer's own score ``e_nr = c_n (L_n(alpha_r) - L_n(alpha_n))`` counted
   for both directions (the fitted node's score of the newcomer would need
   its data, which it does not revisit).  Then the fit's post-processing:
   ``max_neighbors`` keeps the weights of the smallest ``(mu / 2) z_nr``
   (plus scores) and the row is solved again on them; ``sparsify_graph=
   "connected"`` drops the weights below ``min(t, max_r v_r)``, ``t`` the
   fitted graph's connectivity threshold (exactly what sparsifying the
   joined graph does to the newcomer's row, since every fitted weight is at
   least ``t``), except for a Perso-lin newcomer lighter than every node of
   the fit, which keeps its whole row: its few samples cannot rank the
   candidates (HAR sitting 91.6 / 92.8 / 93.8 -> 92.4 / 93.7 / 94.1 at
   ``k = 5 / 10 / 20``; ``benchmarks/new_nodes.py``'s docstring).  If the
   candidates answered with their local models, the chosen neighbours then
   send their final models.
4. **Its model.**  It runs the fit's mean number of wake-ups of a node
   (``max_iter / n_fitted``) of model steps on its block of eq. 1 with its
   neighbours' models fixed: Frank-Wolfe steps (``fw_join``) or the fit's
   ``local_update`` (block solves or steps ``1 / L``) from its local model (``lin_join``).  Dada's (without
   privacy) start from its neighbours' mean ``S / d`` (a point of the l1
   ball) with ``gamma = 2 / (tau + 2 + 8 T)``, ``T`` the steps (see
   ``_WARM_START``); counted from 0, the first step (``gamma = 1``) jumped
   to a vertex and forgot the start.  When the fit re-learns its graph
   (``graph_update_every``), the newcomer re-solves its row with its
   current model every ``max(50, ceil(graph_update_every / n_fitted))`` of
   its steps (every 50 for ``"n_nodes"`` and ``"geometric"``: one re-solve
   in 100 steps; each costs a row solve and, with peers, scoring their
   current models; see ``_RESOLVE_EVERY``); it then sends each final
   neighbour its weight (8 bytes).

Newcomers of one call that hold at least the fitted nodes' mean weight
(``mean(confidence_) max_mass``) also sample each other after step 1: each
asks ``min(n_peers - 1, 20 kappa)`` of them for the same answer (local
model, loss, its degree toward the fitted nodes), re-solves its row over
its fitted candidates and them (the weight between two newcomers is the
mean of the two rows' weights), and linked newcomers run step 4 in
:data:`skfed._graph_join_steps._SYNC_BLOCKS` synchronous blocks, sending each other their current
model between blocks.  Lighter newcomers keep to the fitted nodes (their
local models are poor guides: on HAR the exchange cost Dada 4-8 points).

What is sent (byte model of :mod:`skfed.network`): for Dada's vote, each
newcomer's ballots (its non-zero counts, as a subtree's in the fit's vote)
and the selection back to each newcomer; per candidate asked, a
request (header only) and, if it answers, its model
(:func:`~skfed.graph.model_message_bytes`) plus its loss and degree (16
bytes), a newcomer's first answer also the fit's mass summary (16 bytes for
Dada, 32 for Perso-lin: :mod:`skfed._node_mass`); after answers with local models, per neighbour a request and its
final model; per final neighbour one float64 weight.  Nothing else: the fitted
nodes never step.  Under a finite ``privacy`` budget the losses are not
sent (zeros, as in the fit), there is no peer scoring, and every local and
model step of the newcomer is private with the fit's mechanism (Dada's
exponential mechanism on its own grid, Perso-lin's clipped discrete Gaussian
release); it takes as many steps as a fitted node could afford, and its
spend is appended to ``privacy_spent_``.
"""

import math

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from ._core._boosting_fast import (
    fw_join,
    fw_local,
    graph_row,
    lin_join,
    lin_local,
    lin_losses,
    lse_losses,
)
from ._graph_join_unlike import keep_local_if_contradicted
from ._graph_join_fitted import (
    connected_threshold, csr_of_pairs, join_random_state, join_simulation,
    first_answer_bytes, join_rogue, newcomer_confidence, rogue_sent, share_joined_masses,
    row_sums,
)
from ._node_mass import node_scale
from ._graph_join_steps import _step_blocks
from .graph import model_message_bytes
from .network import payload_bytes

__all__ = ["graph_join_nodes", "join_info_from_data"]

# A newcomer asks this many fitted nodes per peer of a graph step (kappa).
# On rotated moons (80 fitted nodes, kappa = 5, k = 20, seeds 0-2) asking
# all of them instead of 50 took Perso-lin's join from 60.7 to 62.6 (its
# refit: 63.6) and Dada's from 69.8 / 73.3 / 80.0 to 70.6 / 73.8 / 80.0 at
# k = 5 / 10 / 20; Perso-lin at k = 5 / 10: 56.8 / 58.4 -> 56.5 / 58.1.
_CANDIDATES_PER_KAPPA = 20
# A newcomer re-solves its row at most every this many model steps when the
# fit re-learns its graph (Dada's default re-learns every n_nodes iterations,
# about one step per node).  Dada on rotated moons (80 fitted nodes, seeds
# 0-2, k = 5 / 10 / 20, mean accuracy; join CPU): every 10 steps 74.0, every
# 25 steps 74.0 at about half the CPU, every 50 steps 73.9, never 73.4.
# With the newcomers' feature vote (step 0), every 25 / 50 steps: rotated
# moons 72.0 / 76.1 / 81.9 and 71.4 / 76.7 / 81.9 at k = 5 / 10 / 20, HAR
# 89.1 / 88.5 / 90.3 and 88.8 / 89.1 / 90.5, Landmine 93.6 / 93.6 / 93.9
# both (seeds 0-2); every 50 takes about a quarter less of the join's CPU on
# rotated moons (20 newcomers, each re-scoring its peers at a re-solve).
_RESOLVE_EVERY = 50
# A Dada newcomer's model steps (without privacy) start from its neighbours'
# mean S / d and count from this many times their number (gamma = 2 / (8 T +
# tau + 2), T the steps; from 0 the first step, gamma = 1, forgot its start).
# Seeds 0-5, k = 5 / 10 / 20: HAR 90.2 / 91.3 / 91.6 -> 90.8 / 92.2 / 92.1,
# rotated moons 71.7 / 77.5 / 82.5 -> 73.0 / 78.3 / 82.8, Landmine +-0.02,
# held-out families -0.21 to +3.9 (a pull toward the neighbours: the block's
# objective ends higher; benchmarks/dada_join_newcomers.py, variant warm8).
_WARM_START = 8
# Bytes of a loss and a degree in an answer; of one weight.
_LOSS_DEGREE_BYTES = payload_bytes(n_float64=2)
_WEIGHT_BYTES = payload_bytes(n_float64=1)


def _is_dada(estimator):
    return hasattr(estimator, "n_estimators")


def _targets(estimator, y, dtype):
    """``(P, m)`` +-1 targets of the one-vs-rest problems of the fit."""
    classes = estimator.classes_
    codes = np.searchsorted(classes, y)
    if len(classes) == 2:
        Y = np.where(codes == 1, 1.0, -1.0)[None, :]
    else:
        Y = np.where(codes[None, :] == np.arange(len(classes))[:, None], 1.0, -1.0)
    return np.ascontiguousarray(Y, dtype=dtype)


def _models(estimator):
    """The models the fitted nodes send, ``(n_nodes, P, n_base)`` (intercept
    last), in the fit's dtype: under a finite privacy budget the released
    ones (``released_coef_``), never the refits a node keeps for itself."""
    return np.ascontiguousarray(
        estimator._full_coef(released=hasattr(estimator, "released_coef_")))


def _design(estimator, X, dtype):
    if _is_dada(estimator):
        return np.ascontiguousarray(estimator._base_matrix(X, dtype))
    return estimator._design(X, dtype)


def _loss(estimator):
    from .boosting import _LOSSES

    return _LOSSES[estimator.loss]()


def _private(estimator):
    spec = getattr(estimator, "privacy", None)
    return spec is not None and math.isfinite(spec.epsilon)


def _schedule(estimator, n_fitted):
    """``(n_local, n_steps)`` of a newcomer: the fit's local steps and mean wake-ups."""
    max_iter, n_local = estimator._schedule(n_fitted)
    if n_local == 0:  # a fixed graph: no local phase in the fit
        n_local = max(1, math.ceil(max_iter / n_fitted))
    return n_local, max(1, math.ceil(max_iter / n_fitted))


def join_info_from_data(estimator, X, y, groups, sample_weight=None, models=None):
    """What a fit keeps for later joins, recomputed from its training data.

    Parameters
    ----------
    estimator : DecentralizedBoostingClassifier or PersonalizedLinearClassifier
        Fitted on ``X, y, groups``.
    X, y, groups, sample_weight
        The fit's training data.
    models : ndarray of shape (n_fitted, n_problems, n_base), default=None
        The models whose losses to compute (default: the fitted ones; the
        fit keeps those of the models its graph was learned from).

    Returns
    -------
    dict
        ``losses`` (n_fitted,): ``l_j = c_j sum_p L_j(alpha_j)``, zeros under
        a finite privacy budget; ``max_mass``: the largest node mass;
        ``rogue`` (n_fitted,): all False (the fit's draw is in ``_join_info``).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.boosting import PersonalizedLinearClassifier
    >>> from skfed._graph_join import join_info_from_data
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] > 0).astype(int)
    >>> groups = np.repeat([0, 1, 2], 20)
    >>> clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=groups)
    >>> info = join_info_from_data(clf, X, y, groups)
    >>> info["losses"].shape, info["max_mass"]
    ((3,), 20.0)
    """
    X = np.asarray(X)
    dtype = _models(estimator).dtype
    codes = np.searchsorted(estimator.nodes_, np.asarray(groups))
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=len(estimator.nodes_))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, np.float64)
    sw = np.ascontiguousarray(sw[order], dtype=dtype)
    mass = np.add.reduceat(sw.astype(np.float64), offsets[:-1])
    Z = _design(estimator, np.ascontiguousarray(X[order], dtype=dtype), dtype)
    Y = _targets(estimator, np.asarray(y)[order], dtype)
    models = _models(estimator) if models is None else np.ascontiguousarray(models, dtype=dtype)
    losses = np.zeros((len(counts), Y.shape[0]))
    if _is_dada(estimator):
        margins = np.ascontiguousarray(
            np.stack([Y[p] * np.einsum("ij,ij->i", Z, models[codes[order], p])
                      for p in range(Y.shape[0])]), dtype=np.float64)
        lse_losses(margins, sw, offsets, losses)
    else:
        lin_losses(Z, Y, sw, offsets, models, _loss(estimator), 1.0 / mass,
                   float(estimator.alpha), X.shape[1], losses)
    confidence, max_mass = node_scale(mass)
    node_losses = confidence * losses.sum(axis=1)
    if _private(estimator):
        node_losses[:] = 0.0
    return {"losses": node_losses, "max_mass": max_mass,
            "rogue": np.zeros(len(counts), dtype=bool)}


# ------------------------------------------------------------------ the join
class _Newcomer:
    """One joining node's data and model, and its steps (see the module)."""

    def __init__(self, estimator, Z, Y, sw, max_mass, dtype, light_below=None):
        self.est = estimator
        self.light_below = light_below
        self.dada = _is_dada(estimator)
        self.Z, self.Y, self.sw = Z, Y, sw
        self.P, self.n = Y.shape[0], Z.shape[1]
        self.mass = float(sw.sum(dtype=np.float64))
        self.confidence = float(newcomer_confidence(self.mass, max_mass))
        self.model = np.zeros((1, self.P, self.n), dtype=dtype)
        self.shift = 0  # step 4's offset of the step count (Dada, set at tau = 0)
        self.losses = np.zeros(self.P)
        self.offsets = np.array([0, Z.shape[0]], dtype=np.intp)
        self.margins = np.zeros((self.P, Z.shape[0]))
        if self.dada:
            self._Z64 = np.asarray(Z, dtype=np.float64)
        else:
            self.loss = _loss(estimator)
            self.l2, self.n_penalized = float(estimator.alpha), Z.shape[1] - int(
                estimator.fit_intercept)
            self.lipschitz = self._lipschitz()

    def _lipschitz(self):
        rows = np.sqrt(self.sw.astype(np.float64))[:, None] * self.Z.astype(np.float64)
        top = np.linalg.norm(rows, 2) ** 2 if rows.size else 0.0
        return max(self.loss.py_curvature() * top / self.mass + self.l2, 1e-12)

    # ---------------------------------------------------------------- steps
    def local(self, n_steps, private=None):
        if self.dada:
            extra = {} if private is None else private.local_args(self)
            losses = np.zeros((1, self.P))
            fw_local(self.Z, self.Y, self.sw, self.offsets, self.model, self.margins, losses,
                     float(self.est.beta), int(n_steps), 0, 1, **extra)
        else:
            losses = np.zeros((1, self.P))
            if private is None:
                # Solved as the fitted nodes' local models (a light one certified).
                from .boosting._perso_lin import solve_newcomer_problems

                solve_newcomer_problems(self.Z, self.Y, self.sw, self.offsets, self.model,
                                        self.loss, self.est.loss, np.array([1.0 / self.mass]),
                                        self.l2, self.n_penalized, losses, self.light_below)
            else:
                extra = private.local_args(self, n_steps)  # first: sets the public lipschitz
                lin_local(self.Z, self.Y, self.sw, self.offsets, self.model, self.loss,
                          np.array([1.0 / self.mass]), np.array([self.lipschitz]), self.l2,
                          self.n_penalized, losses, int(n_steps), 0, 1, **extra)
        self.losses = losses[0].copy()

    def model_steps(self, S, degree, tau, n_steps, private=None, warm=0):
        mu = float(self.est.mu)
        if self.dada:
            extra = {} if private is None else private.step_args(self)
            if tau == 0:  # step 4's start: S / d (a newcomer without neighbours: its own)
                self.shift = warm if degree > 0 else 0
                if self.shift:
                    self.model[0] = (S / degree).astype(self.model.dtype)
                    self.margins[:] = self.Y * (self.model[0].astype(np.float64) @ self._Z64.T)
            tau += self.shift
            fw_join(self.Z, self.Y, self.sw, self.model, self.margins, self.losses, S,
                    float(degree), self.confidence, float(self.est.beta), mu, int(tau),
                    int(n_steps), **extra)
        else:
            extra = {} if private is None else private.step_args(self, n_steps)
            from .boosting._perso_lin_block import join_block_args  # (fit's local_update)

            extra.update(join_block_args(self.est, private is not None, self.Z, self.sw,
                                         self.offsets, self.loss, 1.0 / self.mass, self.l2,
                                         self.n_penalized, single=True))
            lin_join(self.Z, self.Y, self.sw, self.model, self.losses, self.loss,
                     1.0 / self.mass, self.lipschitz, self.l2, self.n_penalized, S,
                     float(degree), self.confidence, mu, int(n_steps), **extra)

    def graph_loss(self, private):
        return 0.0 if private else self.confidence * float(self.losses.sum())

    def own_data_loss(self):
        """``sum_p L_n(alpha_n)`` from the losses the steps keep."""
        total = float(self.losses.sum())
        if not self.dada:
            pen = self.model[0, :, :self.n_penalized].astype(np.float64)
            total -= 0.5 * self.l2 * float(np.sum(pen * pen))
        return total

    def data_losses(self, models):
        """``sum_p L_n(model)`` of every model of ``models`` (q, P, n): Dada's
        log-sum-exp of the margins, or Perso-lin's mean margin loss (the data
        term of F_n, without its l2 term), by the fit's kernels on the
        newcomer's samples repeated once per model."""
        q, m = models.shape[0], self.Z.shape[0]
        offsets = np.arange(q + 1, dtype=np.intp) * m
        out = np.zeros((q, self.P))
        sw = np.ascontiguousarray(np.tile(self.sw, q))
        if self.dada:
            # margins[p, r m + i] = y_pi (Z alpha_r,p)_i, one matrix product
            # (P, q, n) x (n, m)
            margins = np.matmul(np.asarray(models, dtype=np.float64).transpose(1, 0, 2),
                                self._Z64.T)
            margins *= self.Y[:, None, :]
            lse_losses(margins.reshape(self.P, q * m), sw, offsets, out)
        else:
            lin_losses(np.ascontiguousarray(np.tile(self.Z, (q, 1))),
                       np.ascontiguousarray(np.tile(self.Y, (1, q))), sw, offsets,
                       np.ascontiguousarray(models, dtype=self.Z.dtype), self.loss,
                       np.full(q, 1.0 / self.mass), 0.0, 0, out)
        return out.sum(axis=1)


class _Candidates:
    """What a newcomer received: models (fixed), losses, degrees; its scores of them."""

    def __init__(self, node, models, losses, degrees, scoring, sq=None):
        self.models = np.ascontiguousarray(models.reshape(len(models), -1), dtype=np.float64)
        self.sq = np.einsum("ij,ij->i", self.models, self.models) if sq is None else sq
        self.losses = np.asarray(losses, dtype=np.float64)
        self.degrees = np.ascontiguousarray(degrees, dtype=np.float64)
        self.data_losses = node.data_losses(models) if scoring else None

    def neighbour_sum(self, v, shape):
        return np.ascontiguousarray((v @ self.models).reshape(shape))


def _row(node, cand, est, private, threshold):
    """The newcomer's weights toward its candidates (see step 3 of the module)."""
    q = len(cand.losses)
    mu_graph = float(est.mu if est.mu_graph is None else est.mu_graph)
    if q == 0 or mu_graph <= 0:
        return np.zeros(q)
    flat = node.model.reshape(-1).astype(np.float64)
    z = np.maximum(cand.sq - 2.0 * (cand.models @ flat) + flat @ flat, 0.0)
    pair = 0.5 * float(est.mu) * z
    if cand.data_losses is not None and not private:
        # e_nr = s_n (L_n(alpha_r) - L_n(alpha_n)), for both directions, s_n the
        # estimator's score factor (Dada: peer_scoring's weight; Perso-lin: c_n).
        pair = pair + 2.0 * est._peer_score_scale(node.confidence) * (
            cand.data_losses - node.own_data_loss())
    a = np.ascontiguousarray(node.graph_loss(private) + cand.losses + pair)
    lam, delta = float(est.lambda_graph), float(est.delta)
    v = np.zeros(q)
    graph_row(a, cand.degrees, 0.0, mu_graph, lam, delta, v)
    cap = est.max_neighbors
    if cap is not None and np.count_nonzero(v) > cap:
        # The fit's cap keeps the most alike neighbours; the row is then
        # solved again on them.
        kept = np.flatnonzero(v > 0)
        kept = np.sort(kept[np.argsort(pair[kept], kind="stable")[:cap]])
        v[:] = 0.0
        sub = np.zeros(len(kept))
        graph_row(np.ascontiguousarray(a[kept]), np.ascontiguousarray(cand.degrees[kept]),
                  0.0, mu_graph, lam, delta, sub)
        v[kept] = sub
    if threshold is not None and v.max() > 0:
        v[v < min(threshold, v.max())] = 0.0
    return v


class _PrivateSteps:
    """The newcomer's private steps: the fit's mechanism, its own grid."""

    def __init__(self, estimator, mechanism, source):
        from ._secure_noise import CHOICE_RESOLUTION, gaussian_grid

        self.est, self.mechanism, self.source = estimator, mechanism, source
        self.resolution = CHOICE_RESOLUTION
        self.gaussian_grid = gaussian_grid
        self.stream = source.stream()

    # Dada: exponential mechanism on the Frank-Wolfe scores.
    def _unit(self, node):
        from .boosting import fw_score_sensitivity

        return float(fw_score_sensitivity(node.mass, self.est.beta)) / self.resolution

    def local_args(self, node, n_steps=None):
        if node.dada:
            return {"unit": np.array([self._unit(node)]), "scale": int(self.mechanism.scale),
                    "stream": self.stream}
        args = self._linear(node, n_steps)
        args["grid_step"] = np.array([args["grid_step"]])
        return args

    def step_args(self, node, n_steps=None):
        if node.dada:
            return {"unit": self._unit(node), "scale": int(self.mechanism.scale),
                    "stream": self.stream}
        return self._linear(node, n_steps)

    # Perso-lin: clipped gradients released on a grid with discrete Gaussian noise.
    def _linear(self, node, n_steps):
        clip = float(self.est.privacy.clip_norm)
        sensitivity = 2.0 * clip * math.sqrt(node.P) / node.mass
        step, grid_steps = self.gaussian_grid(1.0)
        noise = self.source.discrete_gaussian(grid_steps, (int(n_steps), node.P * node.n))
        # The public bound of the fit on the step (standardized features).
        node.lipschitz = node.loss.py_curvature() * node.n + node.l2
        return {"grid_step": float(self.mechanism.sigma * sensitivity * step),
                "noise": noise, "row_norm": np.linalg.norm(node.Z.astype(np.float64), axis=1),
                "clip": clip}


def _fit_budget(estimator, n_fitted, n_problems, n_columns):
    """The fit's privacy plan (``_WakeupBudget``): its calibrated mechanism and
    the wake-ups a node can afford.  A deterministic function of the privacy
    specification and the fit's schedule, so it is rebuilt, not stored."""
    from .boosting import _WakeupBudget
    from .privacy import calibrate_discrete_gaussian, calibrate_exponential

    max_iter, n_local = estimator._schedule(n_fitted)
    if _is_dada(estimator):
        calibrate, per = (lambda eps, delta, n: calibrate_exponential(eps, delta, n)), n_problems
    else:
        dim = n_problems * n_columns
        calibrate, per = (lambda eps, delta, n: calibrate_discrete_gaussian(
            eps, delta, 1.0, n, dim)), 1
    return _WakeupBudget(estimator.privacy, calibrate, n_nodes=n_fitted, max_iter=max_iter,
                         n_local=n_local, uses_per_step=per)


def graph_join_nodes(estimator, X, y, groups, sample_weight=None, *, info=None,
                     one_by_one=False):
    """Join new nodes to a fitted Dada / Perso-lin estimator (see the module).

    Appends the new nodes to ``nodes_``, ``coef_``, ``intercept_``,
    ``confidence_`` and ``collaboration_graph_`` and records what the join
    sent in ``join_communication_``; the fitted nodes' models are not
    touched.

    Parameters
    ----------
    estimator : DecentralizedBoostingClassifier or PersonalizedLinearClassifier
        Fitted.
    X, y, groups, sample_weight
        The new nodes' samples (every id absent from ``nodes_``).
    info : dict, default=None
        What the fit keeps (``estimator._join_info``, by default; or
        :func:`join_info_from_data`).
    one_by_one : bool, default=False
        Run every newcomer's steps newcomer by newcomer (a ``_Newcomer``
        each, Dada's peer scores one newcomer at a time) instead of in one
        batched pass (Perso-lin without privacy, peer scoring or rogue nodes:
        :mod:`skfed._graph_join_batch`; Dada's peer scores in one product
        per row solve).  The same steps, draws and messages, up to the
        rounding of sums taken in another order: the tests' reference for
        the batched paths; ``add_nodes`` never sets it.

    Returns
    -------
    estimator

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.boosting import PersonalizedLinearClassifier
    >>> from skfed._graph_join import graph_join_nodes, join_info_from_data
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
    >>> groups = np.repeat([0, 1, 2, 3, 4], 20)
    >>> clf = PersonalizedLinearClassifier(random_state=0).fit(X[:80], y[:80], groups[:80])
    >>> before = clf.coef_.copy()
    >>> info = join_info_from_data(clf, X[:80], y[:80], groups[:80])
    >>> clf = graph_join_nodes(clf, X[80:90], y[80:90], groups[80:90], info=info)
    >>> clf.nodes_.tolist(), bool(np.array_equal(clf.coef_[:4], before))
    ([0, 1, 2, 3, 4], True)
    """
    est = estimator
    name = type(est).__name__
    if info is None:
        info = getattr(est, "_join_info", None)
        if info is None:
            raise ValueError(
                f"This {name} was fitted by a version of skfed that did not keep what "
                "add_nodes needs (the nodes' losses and masses); refit it with fit "
                "first."
            )
    X, y, sample_weight, new_labels, layout = est._validate_join_data(
        X, y, groups, sample_weight)
    private = _private(est)
    if sample_weight is not None and getattr(est, "privacy", None) is not None:
        from .boosting import _check_private_inputs

        _check_private_inputs(est, sample_weight)
    sw_all = (np.ones(X.shape[0], dtype=X.dtype) if sample_weight is None
              else np.asarray(sample_weight))
    from ._base import check_network_faults

    check_network_faults(est, est.network, {
        "straggler_rate": "a node's step is atomic and asynchronous (a slow "
        "node wakes up less often, which its random clock already models), "
        "so there is no partial work to cut",
    })
    n_old, n_new = len(est.nodes_), len(new_labels)
    losses_old = np.asarray(info["losses"], dtype=np.float64)
    rogue_old = np.asarray(info.get("rogue", np.zeros(n_old, bool)), dtype=bool)
    if losses_old.shape != (n_old,) or rogue_old.shape != (n_old,):
        raise ValueError(
            f"info holds {losses_old.shape[0]} losses and {rogue_old.shape[0]} rogue flags "
            f"for {n_old} nodes."
        )
    # Step 0 (Dada's feature vote): the newcomers' ballots join the fit's
    # counts; a feature they carry over the threshold gets its stumps.
    from ._graph_join_vote import apply_vote, join_vote, vote_message_bytes

    # One RandomState, re-seeded for each of the join's three streams (the
    # vote's, the network's seed, the peer-sampling draws): constructing one
    # costs ten times a re-seed, so the thread keeps one for its joins (no
    # draw of a join depends on an earlier one: every stream starts from a
    # seed).  _random_seed is called once per stream, in this order (it
    # draws from a RandomState instance given as random_state).
    seed = int(getattr(est, "_join_seed", 0))
    rng = join_random_state([_random_seed(est), seed, 104711])
    vote = join_vote(est, X, y, sw_all, layout, rng)
    if vote is not None:
        info = apply_vote(est, vote, info)
    models = _models(est)
    dtype = models.dtype
    # The fit's node count sets the schedule (joined nodes answer, not step).
    n_fit = int(info.get("n_fit", n_old))
    n_local, n_steps = _schedule(est, n_fit)
    steps = budget = None
    if getattr(est, "privacy", None) is not None:
        budget = _fit_budget(est, n_fit, models.shape[1], models.shape[2])
    if private:
        from ._secure_noise import NoiseSource

        steps = _PrivateSteps(est, budget.mechanism,
                              NoiseSource.for_fit(est.privacy, type(est).__name__))
        # As many model steps as a fitted node could afford.
        n_steps = min(n_steps, int(budget.affordable))
    update = est.graph_update_every
    every = None
    if update is not None and est.graph is None:
        every = (_RESOLVE_EVERY if update in ("n_nodes", "geometric")
                 else max(_RESOLVE_EVERY, math.ceil(int(update) / n_fit)))
    threshold = None
    W_old = est.collaboration_graph_
    if not (sparse.issparse(W_old) and W_old.format == "csr"):
        W_old = sparse.csr_matrix(W_old)
    if est.sparsify_graph == "connected" and W_old.nnz:
        threshold = connected_threshold(W_old)
    degrees_old = row_sums(W_old.data, W_old.indptr)
    # Perso-lin's exceptions to step 1 (a light newcomer's solve is certified)
    # and to step 3 (one lighter than every fitted node keeps its whole row).
    whole_below = light_below = None
    if not _is_dada(est):
        from .boosting._perso_lin import light_mass
        light_below = light_mass(est.confidence_[:n_fit], info["max_mass"])
        if threshold is not None:
            whole_below = float(np.min(est.confidence_[:n_fit])) * float(info["max_mass"])

    # The network of the join: the fitted nodes, then the newcomers.
    rng_seed = [_random_seed(est), seed, 104729]
    rng.seed([_random_seed(est), seed, 104723])
    sim = join_simulation(est, n_old + n_new, rng)
    rng.seed(rng_seed)
    sim.rogue[:] = join_rogue(sim.network, rogue_old, n_new, rng_seed[:1] + [seed, 7919])
    if vote is not None:
        # Ballots up to the root of the fit's vote (fitted node 0), the
        # selection back down to every newcomer.
        up, down = vote_message_bytes(vote["ballots"], len(vote["selected"]),
                                       int(vote["selected"].sum()))
        sent = np.flatnonzero(up > 0)
        sim.counter.send_pairs((n_old + sent).astype(np.intp), np.zeros(len(sent), np.intp),
                               up[sent])
        sim.counter.next_round()
        sim.counter.send_pairs(np.zeros(n_new, np.intp), (n_old + np.arange(n_new)).astype(np.intp),
                               np.full(n_new, down, dtype=np.int64))
        sim.counter.next_round()
    share_joined_masses(sim, n_fit, n_old)  # (the mean mass over n_old, step 2b's rule)
    payloads = model_message_bytes(models.reshape(n_old, -1), dtype)
    # What the candidates answer with: the models the graph was learned from
    # (a graph learned once), else their final models.
    graph_models = info.get("graph_models")
    if graph_models is None:
        graph_models, answer_bytes = models, payloads
    else:
        graph_models = np.asarray(graph_models, dtype=dtype).reshape(models.shape)
        answer_bytes = model_message_bytes(graph_models.reshape(n_old, -1), dtype)
    separate = graph_models is not models
    n_candidates = min(n_old, _CANDIDATES_PER_KAPPA * int(est.kappa))
    # (RandomState.choice without replacement is the head of a permutation:
    # the same draws, without its per-call argument handling)
    candidates = np.sort(np.array(
        [rng.permutation(n_old)[:n_candidates] for _ in range(n_new)],
        dtype=np.intp).reshape(n_new, n_candidates), axis=1)

    # Step 2: every newcomer queries its candidates (rounds until one answers):
    # the round's requests and answers counted in one call each.
    answered = [None] * n_new
    waiting = np.arange(n_new)
    while len(waiting):
        active = sim.draw_rounds(1)[0][0]
        asking = waiting[active[n_old + waiting]]
        cand = candidates[asking]                        # (n_asking, n_candidates)
        ok = active[cand]
        sender = np.repeat(n_old + asking, n_candidates).astype(np.intp)
        sim.counter.send_pairs(sender, np.ascontiguousarray(cand.ravel(), dtype=np.intp),
                               np.zeros(cand.size, dtype=np.int64))
        got, n_ok = cand[ok], ok.sum(axis=1)  # (first answers: + the fit's mass summary)
        sim.counter.send_pairs(np.ascontiguousarray(got, dtype=np.intp), sender[ok.ravel()],
                               (answer_bytes[got] + _LOSS_DEGREE_BYTES).astype(np.int64)
                               + first_answer_bytes(n_ok, est))
        for i, k in enumerate(asking.tolist()):
            if n_ok[i]:
                answered[k] = cand[i][ok[i]]
        waiting = np.concatenate([waiting[~active[n_old + waiting]], asking[n_ok == 0]])
        waiting.sort()
        sim.counter.next_round()

    scoring = bool(getattr(est, "peer_scoring", False)) and not private
    if (not one_by_one and not _is_dada(est) and budget is None and not scoring
            and not sim.rogue.any()):
        # Perso-lin at its defaults: every newcomer in one pass
        # (skfed._graph_join_batch; the same steps, draws and messages).
        from ._graph_join_batch import lin_join_batched

        batch = lin_join_batched(
            est, X, y, sw_all, layout, answered=answered, models=models,
            graph_models=graph_models, losses_old=losses_old, degrees_old=degrees_old,
            max_mass=float(info["max_mass"]),
            mean_confidence=float(np.mean(est.confidence_[:n_old])), whole_below=whole_below,
            light_below=light_below, n_local=n_local,
            n_steps=n_steps, every=every, threshold=threshold, sim=sim, rng=rng,
            n_candidates=n_candidates)
        new_models, local_models = batch["models"], batch["local_models"]
        confidences, graph_losses = batch["confidence"], batch["graph_losses"]
        uses, rows, W_new, newcomers = batch["uses"], batch["rows"], batch["W_new"], []
    else:
        Z_all = _design(est, X, dtype)
        Y_all = _targets(est, y, dtype)
        shape = models.shape[1:]
        new_models = np.zeros((n_new,) + shape, dtype=dtype)
        local_models = np.zeros_like(new_models)
        confidences = np.zeros(n_new)
        uses, graph_losses = np.zeros(n_new, dtype=np.int64), np.zeros(n_new)
        local_losses = np.zeros(n_new)
        newcomers, cands_old, rows = [], [], []

        def cut_of(node):  # (step 3's exception: the whole row)
            return None if whole_below is not None and node.mass < whole_below else threshold

        # The answers in float64 and their squared norms, once for all
        # newcomers (a rogue answer is corrupted per request below).
        answers64 = graph_models.reshape(n_old, -1).astype(np.float64)
        answers_sq = np.einsum("ij,ij->i", answers64, answers64)
        # Step 1 and the row toward the fitted candidates.
        for k in range(n_new):
            idx = layout.node_indices(k)
            node = _Newcomer(est, np.ascontiguousarray(Z_all[idx]),
                             np.ascontiguousarray(Y_all[:, idx]),
                             np.ascontiguousarray(sw_all[idx], dtype=dtype),
                             float(info["max_mass"]), dtype, light_below)
            cand = answered[k]
            honest = not sim.rogue[cand].any()
            received = (answers64[cand] if honest else sim.corrupt_value_rows(
                answers64[cand], cand)).reshape((len(cand),) + shape)
            received_losses = sim.corrupt_value_rows(losses_old[cand][:, None], cand)[:, 0]
            node.local(n_local, steps)
            local_models[k] = node.model[0]
            local_losses[k] = node.graph_loss(private)
            cands = _Candidates(node, received, received_losses, degrees_old[cand], scoring,
                                sq=answers_sq[cand] if honest else None)
            rows.append(_row(node, cands, est, private, cut_of(node)))
            cands_old.append(cands)
            confidences[k] = node.confidence
            newcomers.append(node)

        # Step 2b: the newcomers of this call sample each other (after their
        # local models exist) and answer as fitted nodes do: the model the
        # graph is learned from (their local one), its loss and their degree
        # toward the fitted nodes.
        peers = [np.zeros(0, dtype=np.intp) for _ in range(n_new)]
        # Only newcomers at least as heavy as the fitted nodes' mean take part.
        mean_mass = float(np.mean(est.confidence_[:n_old])) * float(info["max_mass"])
        eligible = np.flatnonzero(np.array([node.mass for node in newcomers]) >= mean_mass)
        if len(eligible) > 1:
            new_payloads = model_message_bytes(local_models.reshape(n_new, -1), dtype)
            degrees_new = np.array([v.sum() for v in rows])
            n_peers = min(len(eligible) - 1, n_candidates)
            active = sim.draw_rounds(1)[0][0]
            for k in eligible.tolist():
                others = eligible[eligible != k]
                drawn = np.sort(rng.choice(others, size=n_peers, replace=False))
                if not active[n_old + k]:
                    continue  # a dropped newcomer keeps the fitted candidates only
                sim.counter.multicast_message(n_old + k, np.ascontiguousarray(n_old + drawn,
                                                                             dtype=np.intp), 0)
                ok = drawn[active[n_old + drawn]]
                for j in ok.tolist():
                    sim.counter.send_message(n_old + j, n_old + k,
                                             int(new_payloads[j]) + _LOSS_DEGREE_BYTES)
                peers[k] = ok
            sim.counter.next_round()

        # Dada's scores of the peers' models: every newcomer's samples against
        # its peers' models in one product and one loss call per row solve.
        gather = None
        if scoring and _is_dada(est) and not one_by_one and any(len(p) for p in peers):
            own = [layout.node_indices(k) for k in range(n_new)]
            g_rows = np.concatenate([np.tile(own[k], len(peers[k])) for k in range(n_new)])
            g_cols = np.concatenate([np.repeat(peers[k], len(own[k])) for k in range(n_new)])
            sizes = np.concatenate([np.full(len(peers[k]), len(own[k])) for k in range(n_new)])
            gather = (g_rows, g_cols, np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp),
                      np.ascontiguousarray(sw_all[g_rows], dtype=dtype),
                      np.asarray(Z_all, dtype=np.float64), np.cumsum([len(p) for p in peers]))

        def peer_scores(current):
            """``sum_p L_k(alpha_j)`` of every newcomer k and peer j (as
            ``_Newcomer.data_losses``), split by newcomer."""
            g_rows, g_cols, offsets, sw_g, Z64, ends = gather
            m = np.asarray(local_models if current is None else current, dtype=np.float64)
            margins = np.empty((m.shape[1], len(g_rows)))
            for p in range(m.shape[1]):
                margins[p] = (Z64 @ m[:, p, :].T)[g_rows, g_cols] * Y_all[p, g_rows]
            out = np.zeros((len(offsets) - 1, m.shape[1]))
            lse_losses(margins, sw_g, offsets, out)
            return np.split(out.sum(axis=1), ends[:-1])

        def full_candidates(k, current, scores=None):
            """Newcomer k's candidates: the fitted ones it asked, then its peers
            (with ``current``: their current models, else their answers)."""
            node, cands, p = newcomers[k], cands_old[k], peers[k]
            if not len(p):
                return cands
            peer_models = local_models[p] if current is None else current[p]
            both = _Candidates.__new__(_Candidates)
            flat_peers = peer_models.reshape(len(p), -1).astype(np.float64)
            both.models = np.concatenate([cands.models, flat_peers])
            both.sq = np.concatenate([cands.sq, np.einsum("ij,ij->i", flat_peers, flat_peers)])
            both.losses = np.concatenate([cands.losses, rogue_sent(sim, n_old, local_losses)[p]])
            both.degrees = np.ascontiguousarray(np.concatenate([cands.degrees, degrees_new[p]]))
            both.data_losses = (None if cands.data_losses is None else np.concatenate(
                [cands.data_losses, node.data_losses(peer_models.astype(dtype))
                 if scores is None else scores[k]]))
            return both

        def solve_rows(current):
            """Every newcomer's row over its fitted candidates and peers; the
            weight between two newcomers is the mean of what each chose."""
            toward = []
            current = rogue_sent(sim, n_old, local_models if current is None else current)
            scores = None if gather is None else peer_scores(current)
            for k in range(n_new):
                v = _row(newcomers[k], full_candidates(k, current, scores), est, private,
                         cut_of(newcomers[k]))
                q = len(cands_old[k].losses)
                rows[k] = v[:q]
                toward.append(v[q:])
            # Sparse: a newcomer weighs at most its few peers (no n_new^2 array).
            toward_new = sparse.csr_matrix(
                (np.concatenate(toward + [np.zeros(0)]),
                 (np.repeat(np.arange(n_new), [len(p) for p in peers]),
                  np.concatenate(peers + [np.zeros(0, dtype=np.intp)]))),
                shape=(n_new, n_new))
            W = (0.5 * (toward_new + toward_new.T)).tocsr()
            W.eliminate_zeros()
            return W

        def links(W):
            """``(k, j)`` of every positive weight, row by row."""
            coo = W.tocoo()
            order = np.lexsort((coo.col, coo.row))
            keep = order[coo.data[order] > 0]
            return coo.row[keep], coo.col[keep]

        W_new = solve_rows(None) if n_new > 1 else sparse.csr_matrix((n_new, n_new))
        if separate:
            # Step 3b: its fitted neighbours send their final models (the row
            # was learned from the graph models, as in the fit).
            for k in range(n_new):
                cand, v = answered[k], rows[k]
                nbrs = np.ascontiguousarray(cand[v > 0], dtype=np.intp)
                if len(nbrs):
                    sim.counter.multicast_message(n_old + k, nbrs, 0)
                    for j in nbrs.tolist():
                        sim.counter.send_message(j, n_old + k, int(payloads[j]))
                cands_old[k].models = np.ascontiguousarray(
                    sim.corrupt_value_rows(models[cand].astype(np.float64), cand)
                    .reshape(len(cand), -1))
                cands_old[k].sq = np.einsum("ij,ij->i", cands_old[k].models, cands_old[k].models)

        # Step 4: model steps with the fitted neighbours' models fixed; newcomers
        # linked to each other step in synchronous blocks and exchange their
        # current models after each.
        linked = len(links(W_new)[0]) > 0
        fixed = None  # the fitted neighbours' part of S, until the rows change
        warm = _WARM_START * n_steps if _is_dada(est) and not private else 0
        for tau, size, last, resolve in _step_blocks(n_steps, every, linked):
            current = np.stack([node.model[0] for node in newcomers]).astype(np.float64)
            flat = rogue_sent(sim, n_old, current.reshape(n_new, -1))
            mixed = W_new @ flat
            mass = np.asarray(W_new.sum(axis=1)).ravel()
            if fixed is None:
                fixed = [rows[k] @ cands_old[k].models for k in range(n_new)]
            for k, node in enumerate(newcomers):
                S = fixed[k] + mixed[k]
                node.model_steps(np.ascontiguousarray(S.reshape(shape)),
                                 float(rows[k].sum() + mass[k]), tau, size, steps, warm)
            if last:
                break
            current = np.stack([node.model[0] for node in newcomers])
            if linked:
                pay = model_message_bytes(current.reshape(n_new, -1), dtype)
                for k, j in zip(*links(W_new)):
                    sim.counter.send_message(n_old + j, n_old + k, int(pay[j]))
                sim.counter.next_round()
            if resolve:
                W_new = solve_rows(current.astype(np.float64))
                linked = len(links(W_new)[0]) > 0
                fixed = None
        for k, node in enumerate(newcomers):
            new_models[k] = node.model[0]
            graph_losses[k] = local_losses[k] if separate else node.graph_loss(private)
            uses[k] = node.P * (n_local + n_steps) if node.dada else (n_local + n_steps)
    keep_local_if_contradicted(est, X, y, sw_all, layout, new_models, local_models, graph_losses, separate)
    # Step 4's last message: each newcomer tells its fitted neighbours their
    # weight (a weight between two newcomers is known to both).
    # (counted in one call: a multicast counts one message per receiver)
    chosen = np.concatenate(rows + [np.zeros(0)]) > 0
    r = np.repeat(np.arange(n_old, n_old + n_new, dtype=np.intp),
                  [len(v) for v in rows])[chosen]
    c = np.concatenate(answered + [np.zeros(0, dtype=np.intp)]).astype(np.intp)[chosen]
    w = np.concatenate(rows + [np.zeros(0)])[chosen]
    sim.counter.send_pairs(r, c, np.full(len(r), _WEIGHT_BYTES, dtype=np.int64))
    sim.counter.next_round()

    # Append the newcomers.
    est._append_nodes(new_labels)
    n_base = models.shape[2]
    n_coef = n_base - int(est.fit_intercept)
    coef, intercept = new_models[:, :, :n_coef], (
        new_models[:, :, n_coef] if est.fit_intercept else np.zeros(new_models.shape[:2], dtype))
    if est.coef_.ndim == 2:
        est.coef_ = np.ascontiguousarray(np.concatenate([est.coef_, coef[:, 0, :]]))
        est.intercept_ = np.ascontiguousarray(np.concatenate([est.intercept_, intercept[:, 0]]))
    else:
        est.coef_ = np.ascontiguousarray(np.concatenate([est.coef_, coef]))
        est.intercept_ = np.ascontiguousarray(np.concatenate([est.intercept_, intercept]))
    if hasattr(est, "released_coef_"):
        # A private fit: a newcomer's model is its released one (it keeps no
        # refit of its own), and it records no refit choice (NaN).
        if est.released_coef_.ndim == 2:
            est.released_coef_ = np.concatenate([est.released_coef_, coef[:, 0, :]])
            est.released_intercept_ = np.concatenate([est.released_intercept_,
                                                      intercept[:, 0]])
        else:
            est.released_coef_ = np.concatenate([est.released_coef_, coef])
            est.released_intercept_ = np.concatenate([est.released_intercept_, intercept])
        for name in ("refit_trust_", "refit_radius_"):
            if hasattr(est, name):
                kept = getattr(est, name)
                setattr(est, name, np.concatenate(
                    [kept, np.full((n_new,) + kept.shape[1:], np.nan)]))
    est.confidence_ = np.concatenate([est.confidence_, confidences])
    n_all = n_old + n_new
    # The fitted graph's entries in stored order and the newcomers' upper
    # triangle (what W_old.tocoo() and sparse.triu(W_new, 1) give).
    old_row = np.repeat(np.arange(n_old, dtype=np.intp), np.diff(W_old.indptr))
    W_new = sparse.csr_matrix(W_new)
    new_row = np.repeat(np.arange(n_new, dtype=np.intp), np.diff(W_new.indptr))
    upper = W_new.indices > new_row
    nn_row, nn_col, nn_data = new_row[upper], W_new.indices[upper], W_new.data[upper]
    est.collaboration_graph_ = csr_of_pairs(
        np.concatenate([W_old.data, w, w, nn_data, nn_data]),
        np.concatenate([old_row, r, c, n_old + nn_row, n_old + nn_col]),
        np.concatenate([W_old.indices, c, r, n_old + nn_col, n_old + nn_row]), n_all)
    if budget is not None:
        _record_privacy(est, budget, uses, newcomers, steps)
    # Joined nodes answer later joins like fitted ones.
    est._join_info = {
        "losses": np.concatenate([losses_old, graph_losses]),
        "graph_models": (None if not separate else
                         np.concatenate([graph_models, local_models])),
        "max_mass": float(info["max_mass"]),
        "rogue": sim.rogue.copy(),  # the newcomers' draw kept (later joins)
        "n_fit": n_fit,
    }
    est._join_seed = int(seed) + 1
    est._record_join(sim.log(node_labels=est.nodes_))
    return est


def _record_privacy(est, budget, uses, newcomers, steps):
    """Append the newcomers' spend to ``privacy_spent_`` and their per-node
    entries to ``privacy_`` (uses, ``stopped_at`` -1: a join takes only the
    steps it can afford, and the mechanism's per-node scales)."""
    from .boosting import fw_score_sensitivity
    from .privacy import epsilon_spent

    est.privacy_spent_ = np.concatenate([
        est.privacy_spent_, epsilon_spent(budget.mechanism, uses, budget.delta)])
    record = getattr(est, "privacy_", None)
    if not isinstance(record, dict):
        return
    record = dict(record)
    n_new = len(newcomers)
    mass = np.array([node.mass for node in newcomers])
    extra = {"uses": uses, "stopped_at": np.full(n_new, -1, dtype=np.int64)}
    if _is_dada(est):
        extra["score_sensitivity_per_unit_weight"] = fw_score_sensitivity(mass, est.beta)
    else:
        P = newcomers[0].P if newcomers else 1
        sensitivity = 2.0 * float(est.privacy.clip_norm) * math.sqrt(P) / mass
        extra["gradient_sensitivity"] = sensitivity
        extra["sigma"] = budget.mechanism.sigma * sensitivity
        extra["lipschitz"] = np.array([node.lipschitz for node in newcomers])
        if steps is not None and record.get("grid_step") is not None:
            extra["grid_step"] = extra["sigma"] * steps.gaussian_grid(1.0)[0]
    for key, values in extra.items():
        old = record.get(key)
        if isinstance(old, np.ndarray) and old.ndim == 1:
            record[key] = np.concatenate([old, np.asarray(values, dtype=old.dtype)])
    est.privacy_ = record


def _random_seed(estimator):
    rs = estimator.random_state
    if isinstance(rs, (int, np.integer)):
        return int(rs) % (2**31)
    return int(check_random_state(rs).randint(2**31 - 1))
