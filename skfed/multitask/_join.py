"""Nodes that join a fitted kernelized-MOCHA federation (issue 32).

:func:`multitask_join_nodes` is what ``add_nodes`` of
:class:`~skfed.multitask.FederatedMultiTaskClassifier` and
:class:`~skfed.multitask.FederatedMultiTaskRegressor` runs.  The fitted
tasks' models ``W_o`` and their block ``Sigma_oo`` of the task covariance
are held fixed; a new task n adds one row and column to ``Sigma``::

    Sigma' = [[Sigma_oo, s], [s^T, sigma_nn]],

and with ``W_o`` fixed the joint objective's regularizer splits by the
block inverse (the Gaussian conditional of the matrix-normal prior)::

    tr(W Omega' W^T) = tr(W_o Omega_oo W_o^T) + ||w_n - m_n||^2 / c_n,
    m_n = sum_t a_t w_t,  a = Omega_oo s,  c_n = sigma_nn - s^T Omega_oo s,

so the new task solves its own problem with a prior mean::

    min_w  (1 / W_n) sum_i s_i loss(w . phi(x_i), y_i) + (lambda / (2 c_n)) ||w - m_n||^2

by the fit's local solver (dual coordinate ascent, or the exact solver of
``local_solver``) on ``v = w - m_n``: it is the fit's local subproblem with
``Sigma`` diagonal, run to a relative duality gap of :data:`_GAP_TOL`.

A newcomer lighter than the fitted nodes trusts its prior more, a heavier
one less: ``c_n`` is multiplied by its confidence ``W_n / W_mean``,
``W_n`` its total sample weight and ``W_mean`` the fitted nodes' mean
(Dada's confidence, against the mean rather than the largest node).  The
fit's objective gives every node's *mean* loss the same weight, so 5
samples pull as hard as the fitted nodes' hundreds: as a sum, the
newcomer's loss is weighed as the fitted nodes' are, per sample.
Measured (``benchmarks/new_nodes.py``, seed 0, ``k = 5``): HAR 93.4 ->
97.6 (the refit: 93.4), Landmine 85.2 -> 93.1 (85.6), School R^2 -14.5 ->
6.6 (-14.2).  The confidence was capped at 1 before (a newcomer heavier
than the mean trusted its prior as a mean-weight node does); uncapped,
rotated moons, whose 20-sample newcomers are twice as heavy as its fitted
nodes, went from 61.4 to 63.2 at ``k = 20`` (seeds 0-2; Local
``LogisticRegression`` 62.6).

How much more (or less) a newcomer of ``k`` samples should trust its
prior than this per-sample rule says, the federation measures: with
``omega_mode_ == "shared"`` the fitted nodes *rehearse* newcomers
(:mod:`skfed.multitask._rehearsal`).  For a size k of 2, 5, 10, 20 and 50,
up to 32 draws of k samples of fitted nodes with more than k samples
solve the newcomer's problem at the fitted ``w_0`` with ``c_n`` times 1, 4,
1/4, 1/16 and 0 (``w_0`` alone) and score the node's other samples (the
error of ``score``).  A newcomer takes the scale with the lowest mean
error at the rehearsed size nearest its own (log scale; within a factor
2, else no rehearsal applies) if it beats 1 by at least one standard
error of the paired difference over the draws, else 1: a hyperparameter
transferred from nodes with data to spare, not chosen on the newcomer's
5-20 samples.  A classifier's newcomer whose samples hold one class
compares the same scales, not above its size's, on the fitted nodes'
one-class draws of its size (``k`` samples of one class of a node, scored
on the node's other samples at the node's class shares; its scale must
beat its size's by two standard errors over the rehearsing nodes): its
samples say where that class lies, not where the boundary does, and
personalizing on them pulls its model toward predicting that class
everywhere (HAR seed 1, a subject with no "sitting" among its first 20
samples: 85.2 joined at its size's scale, 91.8 with ``w_0``).  See
:func:`~skfed.multitask._rehearsal.one_class_scale`.  Measured (``benchmarks/new_nodes.py``, seeds 0-2, ``k = 5
/ 10 / 20``, means): HAR 95.9 / 97.0 / 97.6 -> 97.5 / 97.4 / 97.8, where
personalizing a few samples costs accuracy against ``w_0`` and the
rehearsal picks 1/16 or 0 (pooled ``LogisticRegression``: 97.8 / 97.9 /
97.9); rotated moons 53.3 / 54.3 / 55.0 -> 54.2 / 54.3 / 55.0 (its fitted
nodes hold 3-15 samples; without the standard-error rule the noisy
choices cost 1-4 points); School R^2 32.5 / 34.1 / 34.8 -> 32.9 / 33.8 /
35.0; Landmine within 0.1.  On held-out families of
:func:`~skfed.datasets.make_related_tasks` (alike nodes, clusters, 250
nodes of 8 samples, 100 noisy features, 5 features) it is within 0.3 of
no rehearsal.  A size is rehearsed by the first join that needs it (the
fit only fixes the draws and seeds, so the result is the same whichever
join asks): a fit nobody joins pays nothing for it, where rehearsing
every size when the fit ended cost 2-20 % of the fit's CPU time.  The
rehearsal runs on the nodes' own data; the join that needs a size sends
its nodes a request and collects their reports (per draw and scale, a
classifier's count of misclassified held-out samples in a few bits, or a
float; :meth:`~skfed.multitask._rehearsal.Rehearsal.collect`), and counts
both.

A classifier's newcomer whose joined model misclassifies its own samples
significantly more than chance (its labels oppose the fitted nodes'), or a
regressor's whose prior centre predicts them significantly worse than its
own mean, then re-chooses its scale on its own samples
(:mod:`skfed.multitask._join_unlike`).

Without a rehearsal (a fit by another engine, or no fitted node with
more than 2 samples) a regressor's newcomer (the squared loss) chooses how
much to trust its prior by cross-validation on its own samples (5 folds,
leave-one-out up to 5 samples): ``c_n`` times 1, 1/4, 1/16 or 1/256,
whichever predicts its left-out samples best (1 on ties; fold solves to a
relative gap of 1e-6; local, nothing sent); so does a regressor's newcomer
with a learned or given Omega.  Measured on School before the rehearsal
(seed 0, R^2 x 100, k = 5 / 10 / 20): 6.6 / 6.2 / 16.8 without it, 29.7
/ 30.5 / 35.4 with it.  Classifiers keep ``c_n`` there: on rotated moons
the same choice by held-out log-loss lost 1-2.5 points of accuracy (5-20
labels favour the shared model's loss where its accuracy is poor).

How ``a`` and ``c_n`` are chosen depends on ``omega_mode_``:

* ``"shared"`` (the default ``omega="auto"`` of the primal modes): the
  model is ``w_t = w_0 + v_t`` with the learned share ``b``; the newcomer
  is ``w_0 + v_n``, ``v_n`` solved on its data with the fit's personal
  weight ``mu = lambda m / (1 - b)`` (``m`` the fit's number of nodes), i.e.
  ``m_n = w_0`` and ``c_n = lambda / mu`` (times its confidence): the
  local problem every fitted node solved at the returned ``w_0``; or, if
  the rehearsal of its size found one better
  (:func:`~skfed.multitask._rehearsal.choose_centre`), ``m_n`` the share
  selection's ``w_0`` of a larger share, averaged over its folds (same
  ``mu``); or, where the fitted nodes' feature means tell tasks apart (a
  gate the fitted nodes measure; :mod:`skfed.multitask._join_neighbours`),
  ``m_n`` the size-weighted mean model of the 5 fitted nodes whose
  feature means are nearest its samples' (Landmine, seeds 0-2, ``k = 5 /
  10 / 20``: 93.55 / 93.58 / 93.53 -> 93.84 / 94.03 / 93.88, pooled
  ``SVC`` 93.81 / 93.77 / 93.78; the gate stayed closed on every held-out
  family); its scale is then rehearsed around the draws' own such centres
  (:mod:`skfed.multitask._rehearsal_centres`).
* ``"independent"``: ``a = 0`` and ``c_n`` the fit's ``sigma_tt = 1 / m``:
  the per-node model of the fit.
* ``"learn"`` and a given Omega (``"fixed"``): the Omega step restricted to
  the new row and column.  The newcomer first solves its independent
  problem (``m_n = 0``, ``c_n`` the mean of ``diag(Sigma_oo)``); then it
  forms the Gram matrix of the ``m + 1`` models (that local model and
  ``W_o``, summed over the binary problems), takes the fit's Omega step of
  it, ``S = sqrtm(W^T W) / tr(sqrtm(W^T W))``
  (:func:`~skfed.multitask._omega.omega_update`), and conditions it on the
  old tasks: ``a = S_oo^{-1} S_on``, ``c_n = kappa (S_nn - S_no a)`` with
  ``kappa = tr(Sigma_oo) / tr(S_oo)`` (``S``'s scale matched to the fitted
  block's), and solves its problem with ``m_n = W_o^T a``.  One step, not
  an alternation to a fixed point: with ``W_o`` fixed, repeating it drives
  ``c_n`` to 0 (each step pulls the model into the span of ``W_o``, which
  shrinks the next ``c_n``: 0.048, 0.026, 0.018, ... 0.003 after 40 steps
  on the tests' tasks), i.e. the newcomer's data would stop counting.  The
  fitted ``Sigma`` grows by ``s = Sigma_oo a`` and ``sigma_nn = c_n + a^T
  Sigma_oo a``, which gives back ``a`` and ``c_n`` exactly and keeps
  ``Sigma'`` positive definite (its Schur complement is ``c_n > 0``).

Protocol and bytes (byte model of :mod:`skfed.network`, float64 values, one
header a message): a newcomer downloads what its problem needs and uploads
what the server keeps, one exchange (phase) in each round it is not
dropped:

* ``"shared"``: with a rehearsal, up its number of samples and total
  weight (2 floats) and down ``w_0`` and its prior weight ``lambda /
  c_n``, which the server forms from them, ``mu``, the fitted nodes' mean
  weight and the rehearsed scale (``P d' + 1`` floats); without one, down
  ``w_0``, ``mu`` and the mean weight (``P d' + 2``); a join that
  needs a size not rehearsed yet also sends each of that size's
  rehearsing nodes a request (3 bits a size, and for a classifier one more
  saying whether it asks the ordinary or the one-class draws, which a
  one-class newcomer's size also needs) and collects its report (per draw
  and scale, ``ceil(log2(n_held + 1))`` bits of a count of errors on a
  classifier's node whose samples weigh 1, for a one-class draw such
  counts per class with the draw's class and held-out counts, else one
  float; an ordinary draw once per rehearsed centre;
  :meth:`~skfed.multitask._rehearsal.Rehearsal.collect`; with the share
  selection's centres at most a tenth of the fit's bytes: rounded to 8
  bits, else no centres, :mod:`skfed.multitask._rehearsal_bytes`); the
  first join
  also carries the feature-mean gate's exchange if it costs at most 5 % of
  the fit's bytes (per fitted node its mean, two models, its gain), and
  with the gate open a newcomer also uploads its feature mean
  (:mod:`skfed.multitask._join_neighbours`);
* ``"independent"``: down ``c_n`` (1 float);
* ``"learn"`` / fixed: the server, which holds ``W_o`` and ``Sigma_oo``
  (it takes the fit's Omega steps), computes the newcomer's row, in three
  phases: down the prior weight of its independent solve (1 float); up
  that model and its total weight (``P d' + 1``), down ``m_n = W_o^T a``
  and ``c_n`` (``P d' + 1``); up its final model and ``c_n`` (``P d' +
  1``; ``c_n`` times the scale a regressor's newcomer chose), from which
  the server forms the new row of ``Sigma`` and keeps the model for later
  joins.  The same numbers as when the newcomer computed the row itself,
  which downloaded ``W_o`` (``P m d' + 2`` floats, 80 models on rotated
  moons) and uploaded ``w_n``, ``a`` and ``c_n`` (``P d' + m + 1``): a
  join's bytes no longer grow with the number of fitted nodes;

In the first two modes the newcomer uploads no model: nobody else uses it
(the server's ``w_0`` and ``Sigma``'s new row, ``a = 0`` and the fit's
constant ``c_n``, do not depend on it, and a later newcomer downloads only
``w_0``), so it stays with the node that predicts with it, as under
``privacy``.  Uploading ``v_n`` was 40 % of a rotated-moons join's bytes
(168 + 16 of its 416 bytes a newcomer at ``d' = 21``; the join was 15 % of
that small refit's bytes, 9.7-10.0 % without it, 9.4-9.8 % with the prior
weight formed by the server).

``P`` the binary problems, ``d'`` the features with the intercept column,
``m`` the nodes before the join.  A dropped newcomer asks again in the next
round; the fitted nodes' rehearsal reports and gate messages run under the
join's draws too, each node taking a step in its first round up once the
step has started, and the newcomers start once they are complete
(:class:`~skfed.multitask._join_neighbours.FittedExchange`; one round
without drops); a straggler finishes its solve (a join has no deadline); rogue
nodes are refused as in the fit.  Under a finite ``privacy`` budget a
newcomer downloads the server's models (the post-processing of the fit's
noisy releases: no extra spend for the fitted nodes; with a learned Omega
it computes its row itself from ``W_o``, as above) and uploads nothing:
its model and row of ``Sigma`` stay with it, its spend is 0 and is
appended to ``privacy_spent_``.  The exact kernel mode has no join yet (a
newcomer would need the other nodes' support vectors, which are raw
samples).
"""

import math

import numpy as np
from sklearn.utils import check_random_state

from .._base import NodeLayout, check_C_weight, check_network_faults, node_seeds
from .._core._multitask_fast import (
    local_solve_exact_nodes,
    local_solve_linear_nodes,
    node_margins,
    problem_gap_terms,
)
from .._kept_local import extend_kept_local
from .._node_ids import plain_label
from .._seeding import reseeded as _seeded
from ..kernels import _check_join_kernel_settings
from ..network import resolve_network
from ._compression import _FLOAT
from ._join_warm import extend_dual_state
from ._node_data import refuse_dropped_join
from . import _join_coherent, _join_neighbours, _join_unlike
from ._join_cv import held_out_losses
from ._omega import _LowRankSigma, omega_update
from ._protocol import _UNSUPPORTED_FAULTS
from ._rehearsal import (
    REHEARSAL_EVIDENCE,
    REHEARSAL_REACH,
    REHEARSAL_SCALES,
    REHEARSAL_SIZES,
    rehearsal_draws,
    rehearse_newcomers,
)
from ._state import _EXACT_MAX_ITER, _PrimalState

__all__ = ["keep_for_joins", "multitask_join_nodes", "omega_row", "rehearsal_draws", "rehearse_newcomers"]  # and _AddNodesMixin

# A newcomer's local solve stops at this relative duality gap (its gap over
# its primal objective: the certified suboptimality of its model) ...  1e-14
# before: the last passes moved no prediction.  Measured on rotated moons
# (benchmarks/new_nodes.py, MOCHA, seeds 0-2, k = 5 / 10 / 20; the newcomers'
# accuracy at 1e-14 / 1e-10 / 1e-8 / 1e-6): identical down to 1e-8, and 1e-6
# changed seed 2 at k = 10 (62.365 -> 62.281); at k = 20 the newcomers'
# passes went from 3 / 4 / 9 to 2 / 2 / 5 and the join's CPU time by 13 % on
# average (8.6 / 9.7 / 12.0 -> 7.5 / 8.5 / 9.4 ms).
_GAP_TOL = 1e-8
# ... or after this many passes of its local solver.
_MAX_PASSES = 10000
# A light newcomer's prior variance is scaled by its confidence (see the module).
# (Not capped: capped at 1, the rule before, a newcomer of 20 samples trusted
# its prior as much as one of 9.  Measured with the rehearsal following the
# same rule (benchmarks/new_nodes.py, MOCHA, seeds 0-2, k = 5 / 10 / 20):
# rotated moons (fitted nodes of 3-15 samples, mean 8.5-9.1) 56.1 / 59.8 /
# 61.4 -> 56.1 / 60.5 / 63.2 (Local LogisticRegression 54.4 / 57.0 / 62.6);
# held-out related-small (250 nodes of 8 samples) 90.9 / 91.0 / 91.5 -> 90.9
# / 91.0 / 91.7; families whose newcomers are lighter than the fitted nodes
# (HAR, Landmine, School, related-alike, related-clustered) are unchanged by
# construction.)
# The fitted nodes' rehearsal of a newcomer (omega_mode_ "shared"; see
# skfed.multitask._rehearsal): its sizes, scales and rules.
_REHEARSAL_SIZES = REHEARSAL_SIZES
_REHEARSAL_SCALES = REHEARSAL_SCALES
_REHEARSAL_EVIDENCE = REHEARSAL_EVIDENCE
_REHEARSAL_REACH = REHEARSAL_REACH
# Scales of c_n a newcomer chooses from by cross-validation on its samples (the
# first wins ties); () keeps c_n.
_LOO_SCALES = (1.0, 0.25, 1.0 / 16, 1.0 / 256)
# ... in at most this many folds ...
_LOO_FOLDS = 5
# ... for these losses only (see the module: on classification the choice
# lost 1-2.5 points of accuracy on rotated moons) ...
_LOO_LOSSES = {"squared"}
# ... solving each fold to this relative gap, in at most this many passes
# (a choice among scales 4x apart needs no more).
_LOO_GAP_TOL = 1e-6
_LOO_PASSES = 20
# Rounds after which a join whose newcomers (or fitted nodes it asks) are
# still dropped gives up.
_MAX_JOIN_ROUNDS = 10000


def omega_row(W_old, w_new, trace_old):
    """The Omega step restricted to a new task: ``(a, c)``.

    Parameters
    ----------
    W_old : ndarray of shape (n_problems, m, d)
        The fitted tasks' models.
    w_new : ndarray of shape (n_problems, d)
        The new task's model.
    trace_old : float
        ``tr(Sigma_oo)``, the trace of the fitted tasks' block of ``Sigma``.

    Returns
    -------
    a : ndarray of shape (m,)
        Weights of the prior mean ``m_n = sum_t a_t w_t``.
    c : float
        The conditional variance ``c_n > 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask._join import omega_row
    >>> W = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    >>> a, c = omega_row(W, np.array([[1.0, 0.0]]), trace_old=1.0)
    >>> bool(a[0] > a[1]), bool(c > 0)
    (True, True)
    """
    W = np.concatenate([W_old, w_new[:, None, :]], axis=1)
    gram = np.einsum("ktd,kud->tu", W, W)
    S = omega_update(gram)
    m = W_old.shape[1]
    A, b = S[:m, :m], S[:m, m]
    a = np.linalg.solve(A, b)
    c = float(S[m, m] - b @ a)
    scale = float(trace_old) / float(np.trace(A))
    # omega_update floors the eigenvalues of S, so c > 0; keep it so in floats.
    c = max(c, 1e-12 * float(S[m, m])) * scale
    return a, c


class _JoinNodes(_PrimalState):
    """The newcomers: features, dual variables and their priors ``(M, mu)``.

    Node k solves ``min_v L_k(M_k + v) + (mu_k / 2) ||v||^2``; its model is
    ``M_k + u_k / mu_k`` (``u_k = V[:, k]``, the dual vector).
    """

    def set_prior(self, M, mu):
        self.M = np.ascontiguousarray(M, dtype=np.float64)
        self.mu = np.asarray(mu, dtype=np.float64)

    def node_models(self, active, sigma, lam):
        return np.ascontiguousarray(self.M + self.V / self.mu[None, :, None])

    def local_scaling(self):
        return 1.0 / (self.mu * self.totals)

    def gaps(self, loss, W=None):
        """Per node ``(gap, primal)`` of its problem, divided by its weight
        (``W``: the node models, if formed already)."""
        if W is None:
            W = self.node_models(None, None, None)
        f = np.empty((self.n_problems, self.n))
        node_margins(self.Z, W, self.layout.offsets, f)
        sums = np.zeros((self.m, 3))
        problem_gap_terms(f, self.Y, self.sw, self.g, self.layout.offsets, loss, sums)
        sums /= self.totals[:, None]
        uu = np.einsum("ktd,ktd->t", self.V, self.V)
        primal = sums[:, 0] + uu / (2.0 * self.mu)
        return sums.sum(axis=1), primal

    def solve_all(self, loss, steps, max_passes=_MAX_PASSES, tol=None):
        """Run the local solver until every node's relative gap is at most
        ``tol`` (None: :data:`_GAP_TOL`, read at the call) or ``max_passes``
        passes; returns whether all got there.  Each pass solves the nodes
        not yet there."""
        tol = _GAP_TOL if tol is None else tol
        m, P, d = self.m, self.n_problems, self.d
        everyone = np.arange(m, dtype=np.intp)
        offsets = self.layout.offsets
        # What _PrimalState.solve and apply do for a serial round of every
        # node doing its full work, uncompressed and not private (the
        # newcomers'), with what does not change between passes formed once:
        # the same calls on the same arrays (bit-identical), less Python.
        c = np.asarray(self.local_scaling(), dtype=np.float64)
        steps = np.asarray(steps, dtype=np.intp)
        exact = self._round_exact(np.ones(m, dtype=bool))
        if exact is not None:
            steps = np.where(exact > 0, 0, steps)
        todo = everyone
        W = self.node_models(None, None, None)
        for _ in range(max_passes):
            dV = np.zeros((P, len(todo), d))
            deltas = np.zeros_like(self.g)
            local_solve_linear_nodes(self.Z, self.sq_norms, self.Y, self.sw, self.g, W, dV,
                                     deltas, todo, offsets, c, steps, 0.0, loss, self.states)
            if exact is not None:
                local_solve_exact_nodes(self.Z_pass, self.grams, self.gram_offsets, self.Y,
                                        self.sw, self.g, W, dV, deltas, todo, offsets, c, exact,
                                        self.kind, self.exact_tol, _EXACT_MAX_ITER)
            if len(todo) == m:
                self.V += dV / self.totals[None, :, None]
            else:
                self.V[:, todo, :] += dV / self.totals[todo][None, :, None]
            W = self.node_models(None, None, None)  # (the next pass's too)
            self.models = W  # the models at the return (read-only)
            gap, primal = self.gaps(loss, W)
            todo = everyone[gap > tol * np.maximum(np.abs(primal), 1e-300)]
            if not todo.size:
                return True
        return False


def _sample_losses(name, f, y):
    """The fit's loss of margins or predictions ``f`` against ``y`` (+-1 or real)."""
    if name == "logistic":
        return np.logaddexp(0.0, -y * f)
    if name == "hinge":
        return np.maximum(0.0, 1.0 - y * f)
    if name == "squared_hinge":
        return 0.5 * np.maximum(0.0, 1.0 - y * f) ** 2
    return 0.5 * (f - y) ** 2


def _held_out_scales(make_nodes, sw, layout, M, c, lam, loss, steps, loss_name):
    """Each newcomer's scale of ``c_n`` in :data:`_LOO_SCALES`, by cross-validation.

    ``F = min(max n_k, _LOO_FOLDS)`` folds (leave-one-out up to 5 samples);
    fold f leaves out every newcomer's samples ``f, f + F, ...`` (newcomers
    with at least two samples); for each scale every newcomer solves its
    problem on the rest and scores the left-out samples with the fit's loss
    (weighted).  The scale of the smallest total wins (the first one, 1,
    on ties); a newcomer with one sample keeps 1.  Local: nothing is sent.
    """
    scales = np.asarray(_LOO_SCALES)
    counts, offsets = layout.counts, layout.offsets
    n_new = layout.n_nodes
    if not _LOO_SCALES or counts.max() < 2 or loss_name not in _LOO_LOSSES:
        return np.ones(n_new)
    n_folds = min(int(counts.max()), _LOO_FOLDS)
    folds = []
    for fold in range(n_folds):
        # newcomer k leaves out its samples i = fold, fold + F, ... (F folds)
        held = np.flatnonzero((counts >= 2) & (counts > fold))
        node_of = np.concatenate([np.full(len(range(fold, counts[k], n_folds)), k)
                                  for k in held]).astype(np.intp)
        rows = np.concatenate([offsets[k] + np.arange(fold, counts[k], n_folds)
                               for k in held]).astype(np.intp)
        weights = sw.copy()
        weights[rows] = 0.0
        mass = np.add.reduceat(weights, offsets[:-1])
        keep = mass[node_of] > 0  # (a newcomer keeps some weight)
        if keep.any():
            folds.append((rows[keep], node_of[keep]))
    scores = held_out_losses(
        make_nodes, sw, n_new, M, c, lam, loss, steps, scales, folds,
        lambda F, Y: _sample_losses(loss_name, F, Y).sum(axis=0), _LOO_PASSES, _LOO_GAP_TOL)
    return scales[np.argmin(scores, axis=0)]


def _one_class(Y, layout):
    """Whether each newcomer's samples hold a single class (its targets
    ``Y``, ``(P, n)`` sorted by node, are one column repeated)."""
    return np.array([bool(np.all(Y[:, sl] == Y[:, sl.start:sl.start + 1]))
                     for sl in (layout.node_slice(k) for k in range(layout.n_nodes))])


def _targets(est, y):
    """``(P, n)`` targets of the fit's problems (``+-1`` per class, or ``y``)."""
    if hasattr(est, "classes_"):
        codes = np.searchsorted(est.classes_, y)
        if len(est.classes_) == 2:
            return np.where(codes == 1, 1.0, -1.0)[None, :]
        return np.where(codes[None, :] == np.arange(len(est.classes_))[:, None], 1.0, -1.0)
    return np.asarray(y, dtype=np.float64)[None, :]


def _dense_sigma(est):
    sigma = est._task_covariance
    return sigma.dense() if isinstance(sigma, _LowRankSigma) else np.asarray(sigma)


def multitask_join_nodes(est, X, y, groups, sample_weight=None):
    """Join new nodes to a fitted kernelized-MOCHA estimator (see the module).

    Appends the new nodes to ``nodes_``, ``coef_``, ``intercept_``,
    ``task_covariance_`` / ``omega_`` (and ``privacy_spent_`` under
    ``privacy``) and records what the join sent in ``join_communication_``;
    the fitted nodes' models are not touched.

    Parameters
    ----------
    est : FederatedMultiTaskClassifier or FederatedMultiTaskRegressor
        Fitted.
    X, y, groups, sample_weight
        The new nodes' samples (every id absent from ``nodes_``).

    Returns
    -------
    est
    """
    name = type(est).__name__
    classifier = hasattr(est, "classes_")
    # (a classifier's y holds classes of classes_ only, checked there: the
    # kinds of target check_classification_targets refuses cannot pass it)
    X, y, sample_weight, new_labels, layout = est._validate_join_data(
        X, y, groups, sample_weight, y_numeric=not classifier)
    if not est._primal_mode():
        raise ValueError(
            f"{name}.add_nodes is not available in the exact kernel mode (approximation="
            "None with a non-linear kernel): a newcomer's model is a combination of the "
            "other nodes' support vectors, raw samples that would have to leave their "
            "nodes. Fit with approximation='rff' (or 'nystroem', or kernel='linear') to "
            "add nodes later."
        )
    private = est._noised()
    if private and sample_weight is not None:
        raise ValueError(f"{name}(privacy=...).add_nodes does not accept sample_weight.")
    if sample_weight is not None and not np.all(sample_weight > 0):
        # Zero-weight rows are absent rows: they must not count as samples
        # (the rehearsed size, the folds of the scale's choice); every new node
        # keeps one (checked in _validate_join_data).
        keep = sample_weight > 0
        X, y, sample_weight = X[keep], np.asarray(y)[keep], sample_weight[keep]
        layout = NodeLayout(layout.codes[keep], len(new_labels))
    check_network_faults(est, est.network, _UNSUPPORTED_FAULTS)
    lam = getattr(est, "_join_lam", None)
    if lam is None:
        raise ValueError(
            f"This {name} was fitted by a version of skfed that did not keep what "
            "add_nodes needs (lambda); refit it with fit first."
        )
    n_old, n_new = len(est.nodes_), len(new_labels)
    n_fit = int(getattr(est, "_join_n_fit", n_old))

    # The newcomers' data, node by node.
    Xs = layout.sort(X)
    Y = np.ascontiguousarray(_targets(est, layout.sort(np.asarray(y))))
    sw = (np.ones(X.shape[0]) if sample_weight is None
          else np.asarray(layout.sort(sample_weight), dtype=np.float64))
    # (every new node has a positive total: zero-weight rows were dropped
    # above after the check that each keeps one)
    totals = np.add.reduceat(sw, layout.offsets[:-1]) if len(sw) else np.zeros(n_new)
    C = float(getattr(est, "C_", getattr(est, "C", 1.0)))  # (the CV estimators' choice)
    for label, total in zip(new_labels, totals):  # (fit's bound, per newcomer)
        check_C_weight(C * float(total), f"{name}.add_nodes, new node {plain_label(label)!r}")
    Z = est._features(Xs)
    P, d = Y.shape[0], Z.shape[1]
    seed = int(getattr(est, "_join_seed", 0))
    rng = _seeded([_random_seed(est), seed, 7919])
    seeds, exact = node_seeds(rng, n_new), est._exact_nodes(layout, d)

    def make_nodes(weights):
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        mass = np.add.reduceat(weights, layout.offsets[:-1])
        return _JoinNodes(Z, Y, weights, np.zeros(Y.shape), layout, mass, seeds.copy(), 8,
                          exact=exact, loss_name=est.loss)

    nodes = make_nodes(sw)
    loss = est._fitted_loss()  # multinomial or the named loss (hook: mtl)
    steps = np.maximum(1, np.ceil(float(est.local_epochs) * layout.counts)).astype(np.intp)
    # The models the newcomers download: the server's (under privacy the
    # post-processing of the noisy releases, not the nodes' own corrections).
    W_server = getattr(est, "_released_W", None)
    if W_server is None:
        W_server = est._W[:, :n_old]
    W_server = np.asarray(W_server, dtype=np.float64)

    mode = est.omega_mode_
    A = np.zeros((n_new, n_old))
    rehearsal = neighbours = gate = coherent = None
    # A newcomer lighter than the fitted nodes' mean weight trusts its prior
    # that much more (see the module): c_n is scaled by its confidence.
    mean_mass = float(getattr(est, "_join_mass", np.mean(totals)))
    confidence = totals / mean_mass
    if mode == "shared":
        b = float(est.shared_weight_)
        mu = lam * n_fit / (1.0 - b) / confidence
        w0 = np.asarray(est._W[:, -1], dtype=np.float64)
        M = np.repeat(w0[:, None, :], n_new, axis=1)
        c = lam / mu
        rehearsal = getattr(est, "_join_rehearsal", None)
        if rehearsal is not None and len(rehearsal.sizes):
            fit_log = getattr(est, "communication_", None)
            # what a size's reports may cost with the share selection's
            # centres: a share of the fit's bytes (skfed.multitask._rehearsal_bytes)
            rehearsal.fit_bytes = None if fit_log is None else fit_log.total_bytes
            rehearsal.header_bytes = resolve_network(est.network).header_bytes
            # the sizes this join needs are rehearsed now (skfed.multitask._rehearsal)
            scales, asked = rehearsal.scales(layout.counts, _one_class(Y, layout))
            c = c * scales
            # the centre its size chose (the fitted w_0 unless the rehearsal
            # found a larger share's better; skfed.multitask._rehearsal)
            M = rehearsal.centres_for(layout.counts, M)
            gate = getattr(rehearsal, "neighbours", None)
            if gate is not None and not gate.affordable(
                    None if fit_log is None else fit_log.total_bytes, _FLOAT,
                    resolve_network(est.network).header_bytes):
                gate = None  # (too costly for this federation: no gate)
            if gate is not None and gate.open:
                neighbours = gate
                # the fitted nodes' feature means tell tasks apart: the
                # centre is its nearest-mean nodes' mean model
                # (skfed.multitask._join_neighbours)
                M = neighbours.centres(W_server[:, :n_fit], Z, layout.offsets, sw)
            else:
                # where the fitted models cancel in w_0, the centre the
                # server ranks by its label sum (skfed.multitask._join_coherent)
                coherent = _join_coherent.coherent_centres(
                    est, W_server[:, :n_fit], Z, Y, sw, layout.offsets)
                M = M if coherent is None else coherent
        else:
            rehearsal = None
            c = c * _held_out_scales(make_nodes, sw, layout, M, c, lam, loss, steps, est.loss)
        nodes.set_prior(M, lam / np.where(c > 0, c, lam / mu))  # (c = 0: below)
        converged = nodes.solve_all(loss, steps)
        # a newcomer whose own samples contradict its model trusts them
        # more (skfed.multitask._join_unlike; local, nothing sent)
        c, rescue_converged = _join_unlike.rescued(nodes, make_nodes, sw, layout, M, c,
                                                   lam, mu, loss, steps, not classifier)
        converged = converged and rescue_converged
        if rehearsal is not None:
            # It first sends its number of samples and total weight; the
            # server, which holds mu, the mean weight and the rehearsed
            # scales, answers w_0 and its prior weight lam / c_n.
            # (with the gate open also its feature mean)
            up = 2 + (neighbours.n_features if neighbours is not None else 0)
            up += 0 if coherent is None else _join_coherent.upload_floats(W_server)
            phases = [[("up", up), ("down", P * d + 1)]]
        else:
            # w_0, mu and the fitted nodes' mean weight
            phases = [[("down", P * d + 2)]]
        # (v_n stays with the newcomer: see the module)
    else:
        sigma_old = _dense_sigma(est)
        # The tasks whose models and rows of Sigma the server holds: under
        # privacy an earlier newcomer released neither (a NaN column of the
        # server's models), so it takes no part in a later newcomer's prior.
        held = np.isfinite(W_server).all(axis=(0, 2))
        diag = np.diag(sigma_old)[held]
        c = np.full(n_new, float(np.mean(diag)) if mode != "independent" else 1.0 / n_fit)
        nodes.set_prior(np.zeros((P, n_new, d)), lam / c)
        converged = nodes.solve_all(loss, steps)
        if mode == "independent":
            phases = [[("down", 1)]]  # c_n; w_n stays with the newcomer
        else:
            W_held = W_server[:, held]
            trace = float(np.trace(sigma_old[np.ix_(held, held)]))
            # one restricted Omega step from each newcomer's independent model
            W_local = nodes.node_models(None, None, None)
            M = np.zeros((P, n_new, d))
            for k in range(n_new):
                A[k, held], c[k] = omega_row(W_held, W_local[:, k], trace)
                c[k] *= confidence[k]
                M[:, k] = np.einsum("t,ktd->kd", A[k, held], W_held)
            c = c * _held_out_scales(make_nodes, sw, layout, M, c, lam, loss, steps, est.loss)
            # (the dual variables stay feasible: warm start from them)
            nodes.set_prior(M, lam / c)
            converged &= nodes.solve_all(loss, steps)
            if private:
                # it downloads W_o, tr(Sigma_oo) and the fitted nodes' mean
                # weight, computes its row itself and uploads nothing
                phases = [[("down", P * int(held.sum()) * d + 2)]]
            else:
                # The server, which holds W_o and Sigma_oo (it takes the
                # fit's Omega steps), computes the row: the newcomer
                # downloads the prior weight of its independent solve,
                # uploads that model and its total weight, downloads its
                # prior mean m_n = W_o^T a and c_n, and uploads its final
                # model and c_n (after its own choice of scale; the server
                # keeps both for Sigma and later joins).
                phases = [[("down", 1)], [("up", P * d + 1), ("down", P * d + 1)],
                          [("up", P * d + 1)]]
    if not converged:
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        warnings.warn(
            f"{name}.add_nodes: a new node's local solve did not reach the relative "
            f"duality gap {_GAP_TOL:g} in {_MAX_PASSES} passes.", ConvergenceWarning)
    W_new = nodes.node_models(None, None, None)  # (P, n_new, d)
    if mode == "shared":
        # a scale of 0: the newcomer keeps w_0 (its prior's variance is 0)
        W_new[:, c == 0] = M[:, c == 0]

    # The network of the join: the nodes so far, the newcomers, the server.
    network = resolve_network(est.network)
    sim = network.start(n_old + n_new, server=True,
                        random_state=_seeded([_random_seed(est), seed, 7907]))
    # The server's exchanges with the fitted nodes, through the join's drops
    # (skfed.multitask._join_neighbours.FittedExchange): the sizes first
    # rehearsed for this join (the server asks their nodes, which report
    # their errors; once per size) and the gate's exchange (once, open or not).
    fitted = _join_neighbours.FittedExchange()
    if mode == "shared" and rehearsal is not None:
        rehearsal.collect(fitted, asked, _FLOAT)
        fitted.add_recorded()
        if gate is not None:
            fitted.add(gate.steps(_FLOAT))
    # Once they are complete each newcomer takes its exchanges with the
    # server in order, one phase a round in which it is not dropped.
    done = np.zeros(n_new, dtype=np.intp)
    pending = done < len(phases)
    rounds, ready = 0, False
    while pending.any():
        drawn = sim.draw_rounds(1)[0][0]
        ready = ready or fitted.take_round(sim.counter, drawn)
        active = drawn[n_old:] & ready
        now = np.flatnonzero(active & pending)
        for phase in np.unique(done[now]).tolist():
            ids = (n_old + now[done[now] == phase]).astype(np.intp)
            for kind, floats in phases[phase]:
                payload = np.full(len(ids), floats * _FLOAT, np.int64)
                if kind == "up":
                    sim.counter.gather_to_server(ids, payload)
                else:
                    sim.counter.broadcast_from_server(ids, payload)
        done[now] += 1
        pending = done < len(phases)
        sim.counter.next_round()
        rounds += 1
        if rounds >= _MAX_JOIN_ROUNDS and not ready:
            raise RuntimeError(
                f"{name}.add_nodes: fitted node(s) "
                f"{np.asarray(est.nodes_)[fitted.pending].tolist()} had not answered "
                f"the server's join requests after {_MAX_JOIN_ROUNDS} rounds (each "
                "answers in a round in which it is not dropped); lower the network's "
                "drop_rate.")
        if rounds >= _MAX_JOIN_ROUNDS and pending.any():
            raise RuntimeError(
                f"{name}.add_nodes: {int(pending.sum())} new node(s) "
                f"{new_labels[pending].tolist()} had not finished their {len(phases)} "
                f"exchange(s) with the server after {_MAX_JOIN_ROUNDS} rounds (each "
                "takes a round in which the node is not dropped); lower the network's "
                "drop_rate.")

    # Append the newcomers (the fitted nodes' rows are not touched).
    est._join_n_fit = n_fit
    est._append_nodes(new_labels)
    W_all = est._W
    est._W = np.ascontiguousarray(np.concatenate(
        [W_all[:, :n_old], W_new.astype(W_all.dtype), W_all[:, n_old:]], axis=1))
    if getattr(est, "_released_W", None) is not None:
        # the newcomers' models stay with them: the server holds none
        est._released_W = np.concatenate(
            [est._released_W, np.full((P, n_new, d), np.nan)], axis=1)
    n_feat = d - int(bool(est.fit_intercept))
    dtype = est.coef_.dtype
    coef = W_new[:, :, :n_feat]
    intercept = (W_new[:, :, n_feat] * est.intercept_scaling if est.fit_intercept
                 else np.zeros((P, n_new)))
    if est.coef_.ndim == 2:
        est.coef_ = np.concatenate([est.coef_, coef[0].astype(dtype)])
        est.intercept_ = np.concatenate([est.intercept_, intercept[0].astype(dtype)])
    else:
        est.coef_ = np.concatenate([est.coef_, np.transpose(coef, (1, 0, 2)).astype(dtype)])
        est.intercept_ = np.concatenate([est.intercept_, intercept.T.astype(dtype)])
    est.n_support_ = np.concatenate([est.n_support_, np.zeros(n_new, dtype=np.int32)])
    _grow_sigma(est, mode, A, c, n_fit)
    if getattr(est, "privacy_spent_", None) is not None:
        # the newcomers released nothing
        est.privacy_spent_ = np.concatenate([est.privacy_spent_, np.zeros(n_new)])
        record = getattr(est, "privacy_", None)
        if isinstance(record, dict):
            record = dict(record)
            for key, value in record.items():
                if isinstance(value, np.ndarray) and value.ndim == 1 and len(value) == n_old:
                    record[key] = np.concatenate([value, np.zeros(n_new, dtype=value.dtype)])
            est.privacy_ = record
    # warm_start=True continues on the fitted and joined nodes (skfed.multitask._join_warm)
    extend_dual_state(est, n_old, layout.counts, Y, nodes.g,
                      keeps_centre=(c == 0) if mode == "shared" else None)
    est._join_seed = seed + 1
    est._record_join(sim.log(node_labels=est.nodes_))
    return est


def _grow_sigma(est, mode, A, c, n_fit):
    """``task_covariance_`` and ``omega_`` over the fitted and new tasks."""
    n_new, n_old = A.shape
    n_all = n_old + n_new
    if mode == "shared":
        b = float(est.shared_weight_)
        # On the small-node path the shared part keeps the learned share b_w.
        selection = getattr(est, "share_selection_", None) or {}
        b_w = float(selection.get("shared_part_share", b))
        sigma = _LowRankSigma((1.0 - b) / n_fit, np.full((n_all, 1), 1.0 / math.sqrt(n_all)),
                              np.array([b_w * n_all / n_fit]))
        est.task_covariance_ = sigma
        est.omega_ = sigma
        return
    S_oo = _dense_sigma(est)
    O_oo = np.asarray(est.omega_)
    # New tasks are conditionally independent given the old ones.
    S_on = S_oo @ A.T  # (n_old, n_new)
    S_nn = A @ S_oo @ A.T
    S_nn = 0.5 * (S_nn + S_nn.T) + np.diag(c)
    # (the fitted block of Sigma stays bit-identical)
    est.task_covariance_ = np.block([[S_oo, S_on], [S_on.T, S_nn]])
    # Block inverse: Omega' = [[O_oo + A^T C^-1 A, -A^T C^-1], [-C^-1 A, C^-1]].
    Ac = A / c[:, None]
    O_new = O_oo + A.T @ Ac
    est.omega_ = np.block([[0.5 * (O_new + O_new.T), -Ac.T], [-Ac, np.diag(1.0 / c)]])


def keep_for_joins(est, lam, totals):
    """Keep what ``add_nodes`` needs from a fit that ran elsewhere (Flower).

    The simulated fit keeps it itself; an engine that fits the learned or
    given Omega calls this once its models are stored.

    Parameters
    ----------
    est : FederatedMultiTaskClassifier or FederatedMultiTaskRegressor
        Fitted (``_W`` and the task covariance stored).
    lam : float
        The fit's regularization ``lambda``.
    totals : ndarray of shape (n_nodes,)
        The fitted nodes' total sample weights.
    """
    est._join_lam = float(lam)
    est._join_mass = float(np.mean(totals))  # a fitted node's mean weight
    for name in ("_released_W", "join_communication_", "_join_n_fit", "_join_seed",
                 "_join_rehearsal", "_node_data_dropped"):
        est.__dict__.pop(name, None)  # from an earlier fit and its joins


def _random_seed(est):
    rs = est.random_state
    if isinstance(rs, (int, np.integer)):
        return int(rs) % (2**31)
    return int(check_random_state(rs).randint(2**31 - 1))


class _AddNodesMixin:
    """``add_nodes`` of the kernelized-MOCHA estimators (this module)."""

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Give nodes that join after the fit their own models; the others stay.

        Every fitted node's model and the fitted block of ``Sigma`` are held
        fixed; each new task solves its own problem with the prior mean and
        variance they give it (the block inverse of ``Sigma`` extended by
        the new task's row): with ``omega_mode_ == "shared"`` it is ``w_0 +
        v_n`` with ``v_n`` solved on its data at the learned share; with a
        learned or given Omega its row is the fit's Omega step restricted to
        it.  See :mod:`skfed.multitask._join` and the user guide's page on
        growing federations.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples of the new nodes, with the features of ``fit``.
        y : array-like of shape (n_samples,)
            Their targets (classes of ``classes_`` for a classifier).
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``); each
            must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; every new node needs a positive total.

        Returns
        -------
        self : object
            With the new nodes appended to ``nodes_``, ``coef_``,
            ``intercept_``, ``task_covariance_`` and ``omega_`` (and
            ``privacy_spent_``), and what the join sent in
            ``join_communication_``.

        Examples
        --------
        >>> import numpy as np
        >>> from skfed.multitask import FederatedMultiTaskClassifier
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
        >>> groups = np.repeat([0, 1, 2, 3, 4], 40)
        >>> clf = FederatedMultiTaskClassifier(random_state=0).fit(X[:160], y[:160], groups=groups[:160])
        >>> before = clf.coef_.copy()
        >>> clf = clf.add_nodes(X[160:], y[160:], groups=groups[160:])
        >>> clf.nodes_.tolist(), bool(np.array_equal(clf.coef_[:4], before))
        ([0, 1, 2, 3, 4], True)
        """
        _check_join_kernel_settings(self)
        refuse_dropped_join(self)  # (skfed.multitask._node_data)
        n_before = len(getattr(self, "nodes_", ()))  # (unfitted: the join refuses)
        multitask_join_nodes(self, X, y, groups, sample_weight)
        extend_kept_local(self, len(self.nodes_) - n_before)
        return self
