"""The shared-component model (``omega="shared"``): ``w_t = w_0 + v_t``, how much to share learned.

Every node's model is a shared part plus its own part, and the fit learns
how much of the regularization budget goes to each (Evgeniou & Pontil's
multi-task kernel ``(b + (1 - b) delta_tu) k(x, x') / m`` with the share
``b`` learned)::

    min_{w_0, V, b}  sum_t (1 / n_t) sum_i loss((w_0 + v_t) . phi(x_ti), y_ti)
                     + (lambda m / 2) (||w_0||^2 / b + ||V||_F^2 / (1 - b)),   0 < b < 1

Minimizing over ``b`` in closed form gives the joint objective::

    J(w_0, V) = sum_t (1 / n_t) sum_i loss(...) + (lambda m / 2) (||w_0|| + ||V||_F)^2

so every node alone (``w_0 = 0``) is the per-node SVM at ``C`` and one
pooled model (``V = 0``) the pooled SVM at ``C``, at any number of nodes:
the data decide between them, and anything in between.  With ``b`` fixed
the problem is one kernel machine on the multi-task kernel ``K[(t, i), (u,
j)] = (b + (1 - b) [t = u]) k(x_ti, x_uj) / m`` with per-sample weights
``1 / n_t`` (the tests solve it with libsvm).

Algorithm (server L-BFGS on the shared part, exact personal parts).  For a
shared model ``w_0`` and share ``b``, node t's own part solves its local
problem ``min_v L_t(w_0 + v) + (mu / 2) ||v||^2``, ``mu = lambda m / (1 -
b)``, to optimality (its dual is MOCHA's local subproblem with ``Sigma``
diagonal, solved by the same local solvers), and its optimal value
``M_t(w_0)`` is a smooth convex function of ``w_0`` (a Moreau envelope)
with gradient ``-u_t``, ``u_t = sum_i alpha_ti x_ti / n_t`` the node's dual
vector.  The server minimizes the smooth convex function ``F(w_0, b) =
lambda m ||w_0||^2 / (2 b) + sum_t M_t(w_0)`` by L-BFGS in ``(w_0, logit
b)`` with a backtracking (Armijo) line search: one evaluation of ``F`` and
its gradient is one round in which every node solves its problem at the
server's point and reports.  Unlike dual decomposition (MOCHA's W-step,
whose steps every node must damp by the coupling of all the others), the
number of rounds does not grow with the number of nodes (measured: 13-14
at 300 and 1,000 nodes of the synthetic regimes).

Certificate.  The nodes' dual variables give, whatever their accuracy, the
dual of the joint problem::

    D(alpha) = -sum_t (1 / n_t) sum_i loss*(-alpha_ti)
               - max(||sum_t u_t||^2, sum_t ||u_t||^2) / (2 lambda m)

(the fixed-``b`` dual minimized over ``b``), a lower bound on the optimum;
so is its value at any convex combination of evaluated rounds' dual
variables, which the server bounds from what it holds (the best on the
segment from the previous best combination, :meth:`_SharedFit._combined_dual`;
on ill-conditioned problems it leads the single rounds' bound);
``J`` of the model the round evaluated is an upper bound.  The fit stops
when the best ``J`` seen minus the best ``D`` is at most ``tol`` times the
best ``J``, and returns the model with that best ``J``
(:attr:`joint_objective_` is its ``J``).

With ``omega="auto"`` the share is validated, and the returned model is the
certified optimum of one fixed-share problem (its objective ``F`` and
dual, :attr:`joint_objective_` is ``F`` of the returned model): at the
selected share ``b`` (the share selection), or, on small nodes (the
personal selection), with the personal parts' penalty ``||V||_F^2 / (1 -
b)`` at the selected ``b`` and the shared part's ``||w_0||^2 / b_w`` at the
learned share ``b_w`` (``share_selection_["shared_part_share"]``).

Protocol and bytes (per round, per participating node).  Server -> node:
the change of ``w_0`` since the node's copy (``n_problems`` vectors of d'
values; quantized with ``compression``, with a float32 scale
(:mod:`~skfed.multitask._shared_messages`), each difference computed once and
the same for every node holding the previous point; a node that missed
rounds gets the point in float64; nothing when the point did not move, as
in a fit's first round) and ``mu`` (1 float, when it differs from the
node's: float32 when the share is learned and the reports travel in
float32, the share then being the one of that float32; in the personal
path's refit, its index in the grid, with the first message).  Node -> server:
the change of ``u_t`` since the server's copy (quantized with
``compression``: the server's copy stays within one rounding of the
latest change, and the node knows that copy exactly), three floats (float32
under ``compression`` at ``tol >= 1e-5``): its loss and conjugate sums and
``||u_t||^2``, and under ``compression`` the norm of the part of ``u_t`` the
server's copy misses in one byte (a fraction, rounded up, of the bound the
server knows from the scale: the dual bound stays a bound).  Under the
multinomial loss the vectors' class rows sum to zero: ``K - 1`` rows travel
as one vector of one float32 scale and the receiver rebuilds the last
(:func:`~skfed.multitask._multiclass.quantize_rows`; the residual's bound
covers the rebuilt row, :func:`~skfed.multitask._multiclass.residual_code`).
A round in which a node is dropped is repeated for the
nodes still missing at the same point, so every evaluation is exact.  At
the end every node gets the number (int32) of the round whose ``w_0`` (which it
holds exactly: every node solved at every evaluated point) and own part it
keeps (the returned ``w_0`` travels in float64 only if ``max_rounds`` ran
out before the first evaluation completed).
"""

import warnings

import numpy as np
from joblib import effective_n_jobs
from sklearn.exceptions import ConvergenceWarning

from .._core._multitask_fast import Multinomial, node_margins, problem_gap_terms
from ..network import index_bits, payload_bytes
from ._byte_ceiling import (
    byte_ceiling,
    ceiling_note,
    near_certified,
    raw_upload_bytes,
    report_bound,
    round_bound,
)
from ._compression import _FLOAT, _INDEX
from ._multiclass import (
    quantize_rows,
    quantized_rows_bytes,
    residual_code,
    rows_sent,
    sent_scales,
)
from ._omega import _LowRankSigma
from ._personal import PERSONAL_GRID, select_personal
from ._protocol import _fault_note, _steps
from ._shared_dual import combined_dual, dual_value
from ._shared_messages import (
    RESIDUAL_BITS,
    quantize_float32_scale,
    quantized_vector_bytes,
)
from ._state import _PrimalState
from ._validation import (
    VALIDATION_FOLDS,
    feature_scale_note,
    round_up_float32,
    validation_folds,
    validation_sums,
)

# L-BFGS at the server: curvature pairs kept, Armijo constant and backtracking factor.
_MEMORY = 10
_ARMIJO = 1e-4
_BACKTRACK = 0.3
# The share b is kept in [_SHARE_FLOOR, 1 - _SHARE_FLOOR] (logit bounded).
_SHARE_FLOOR = 1e-9
# Floats a node reports besides its vector: loss sum, conjugate sum and
# ||u_t||^2 (and, under compression, the norm of what the server's copy of
# u_t misses, in RESIDUAL_BITS bits).
_REPORT_FLOATS = 3
_FLOAT32 = 4
# The reports travel in float32 (compression on) for fits of at least this
# relative tol: about 100 times float32's relative rounding (2^-23).
_FLOAT32_MIN_TOL = 1e-5
# The certificate's dual bound from combinations of the evaluated points'
# dual variables (:meth:`_SharedFit._combined_dual`), in the fits certified
# to the estimator's tol; the looser candidate fits (share selection,
# learned share before the personal selection) keep the single rounds'
# bound.  Measured (bench_multitask.py --defaults --datasets har-sitting
# landmine school shared-1000 --seeds 0): in every fit, Landmine's and
# shared-1000's candidates stopped on worse points and their refits took
# more rounds (0.21 -> 0.26 and 0.21 -> 0.22 of the raw upload); in the
# final fits only, 0.21 -> 0.20, 0.21 (HAR sitting unchanged, School 0.391
# -> 0.385), and the 4-class small family's refit still a round shorter.


class _SharedNodes(_PrimalState):
    """The nodes of the shared model: features, dual variables, exact ``u_t``.

    ``V`` (inherited) holds every node's exact dual vector ``u_t``; the
    nodes solve their local problems at the shared model ``w0`` with the
    personal weight ``mu`` (:meth:`node_models` is ``w0 + u_t / mu``).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.w0 = np.zeros((self.n_problems, self.d))
        self.mu = 1.0
        # Per node, what it takes off w0 (n_problems, m, d'), or None: the
        # personal selection's node-local correction for its held-out samples.
        self.w0_shift = None

    def node_models(self, active, sigma, lam):
        W = self.w0[:, None, :] + self.V / self.mu
        return W if self.w0_shift is None else W - self.w0_shift

    def weights(self, sigma, lam):
        """Every node's model ``w0 + u_t / mu`` (n_problems, m, d')."""
        return self.node_models(None, sigma, lam)

    def local_scaling(self):
        """``c_t = 1 / (mu W_t)``: the local problem is the node's own, exactly."""
        return 1.0 / (self.mu * self.totals)

    def node_terms(self, nodes):
        """Per node ``(loss, conjugate)`` sums (divided by the node's weight) of
        the dual variables and the models ``w0 + u_t / mu``, for ``nodes``."""
        W = np.ascontiguousarray(self.node_models(None, None, None))
        f = np.empty((self.n_problems, self.n))
        node_margins(self.Z_pass, W, self.layout.offsets, f)
        sums = np.zeros((self.m, 3))
        problem_gap_terms(f, self.Y, self.sw, self.g, self.layout.offsets, self.loss_obj, sums)
        sums /= self.totals[:, None]
        return sums[nodes, 0], sums[nodes, 1]


def _logit(b):
    return float(np.log(b) - np.log1p(-b))


def _share(theta):
    b = np.exp(-np.logaddexp(0.0, -theta))  # sigmoid, no overflow
    return float(min(max(b, _SHARE_FLOOR), 1.0 - _SHARE_FLOOR))


class _SharedFit:
    """Server side of one shared-model fit: rounds, bytes, L-BFGS and the stop.

    Parameters
    ----------
    protocol : _RoundProtocol
        Provides the simulation, its byte counter and the fault draws.
    nodes : _SharedNodes
    lam : float
    loss : Cython loss
    bits : int or None
        Quantization of the round vectors (``compression``), None for float64.
    steps : callable
        ``steps(work) -> ndarray``: coordinate steps of the nodes this round.
    theta, n_chunks, parallel
        As in :meth:`_PrimalState.solve`.
    warm : dict or None
        ``w0`` and ``share`` of a previous fit to start from.
    tol : float or None
        The relative certified gap to stop at (None: the estimator's ``tol``).
    fixed_share : float or None
        Fix the share ``b`` (the problem at fixed ``b``, one kernel machine on
        the multi-task kernel): the server's L-BFGS moves ``w0`` only, and the
        objective and certificate are the fixed-``b`` ones (``F`` and its dual).
    """

    def __init__(self, estimator, protocol, nodes, lam, loss, bits, steps, theta, n_chunks,
                 warm=None, fixed_share=None, tol=None, carry=0, shared_share=None,
                 byte_budget=None, memory=None, personal_mu=None, ceiling=None):
        self.est = estimator
        self.protocol = protocol
        protocol.start_rounds()
        self.nodes = nodes
        self.lam = lam
        self.loss = loss
        nodes.loss_obj = loss
        nodes.multinomial = isinstance(loss, Multinomial)  # K - 1 rows travel (rows_sent)
        self.bits = bits
        self.steps = steps
        self.theta_local = theta
        self.n_chunks = n_chunks
        P, m, d = nodes.n_problems, nodes.m, nodes.d
        self.P, self.m, self.d = P, m, d
        self.size = P * d
        # The point every node holds (the published w0) and which nodes hold it.
        self.w0_pub = np.zeros((P, d))
        self.holds = np.ones(m, dtype=bool)
        # The server's copies of the nodes' dual vectors, and what each node reported.
        self.U = np.zeros((P, m, d))
        self.report = np.zeros((m, _REPORT_FLOATS + 1))
        self.b0 = 0.5 if warm is None else float(warm["share"])
        self.fixed = None if fixed_share is None else float(fixed_share)
        self.tol = estimator.tol if tol is None else float(tol)
        if self.fixed is not None:
            self.b0 = self.fixed
        # The shared part's share in its penalty (lambda m ||w0||^2 / (2 b_w)):
        # the share b unless fixed apart (then with b fixed too).
        self.b_w = None if shared_share is None else float(shared_share)
        if warm is not None:
            self.w0_pub = np.array(warm["w0"], dtype=np.float64)
        self.best = None
        self.best_dual = -np.inf
        # The dual variables of the best bound (a combination of evaluated
        # ones, :meth:`_combined_dual`).
        self._anchor = None
        self.combine_duals = self.tol <= estimator.tol
        self.gaps, self.objectives, self.duals, self.joint_curve = [], [], [], []
        self.converged = False
        self.rounds = 0
        self.evaluations = 0
        # Stop (uncertified) once the fit's messages reach this many bytes.
        self.byte_budget = byte_budget
        # ... and before a round that would take the counter's bytes past
        # ``ceiling`` (skfed.multitask._byte_ceiling).
        self.ceiling, self.ceiling_hit = ceiling, False
        self.start_bytes = self._spent()
        self.round_cost = 0  # bytes of this fit's dearest round so far
        self.moved = True
        # The personal weight every node holds (sent only when it changes),
        # and bytes of the previous fit's end that travel with this fit's
        # first message to every node.
        self.node_mu = np.full(m, np.nan)
        # The personal weight of a refit at a selected candidate: the nodes
        # form it from the candidate's index (which travels in ``carry``).
        self.personal_mu = None if personal_mu is None else float(personal_mu)
        if self.personal_mu is not None:
            self.node_mu[:] = self.personal_mu
        self.carry = np.full(m, int(carry), dtype=np.int64)
        # L-BFGS curvature pairs to start from (a previous fit's), and this fit's.
        self.memory = ([], []) if memory is None else memory

    # ---------------------------------------------------------------- bytes
    def _spent(self):
        return int(np.sum(self.protocol.counter.pair_counts()[2]))

    def _out_of_bytes(self):
        """Whether one more round, costing as much as this fit's dearest
        round, would take its messages past ``byte_budget`` (the budget is
        a ceiling: the fit stops before the round that would cross it)."""
        if self.byte_budget is None:
            return False
        used = self._spent() - self.start_bytes
        return used + self.round_cost > self.byte_budget

    def _blocked(self, pending=None, stale=None):
        """Whether the next round (every ``pending`` node, default all, with
        ``stale`` ones, default those not holding the published point) could
        take the messages past ``ceiling`` (:func:`round_bound`).  Only a fit
        whose certified gap is within ``CEILING_GAP_FACTOR`` of its tolerance
        stops there (:func:`near_certified`): a fit further from its optimum
        continues, as a model stopped there is far from the objective's."""
        if self.ceiling is None or self.best is None \
                or not near_certified(self.joint_gap, self.tol, self.best["joint"]):
            return False
        pending = np.ones(self.m, dtype=bool) if pending is None else pending
        stale = ~self.holds if stale is None else stale
        self.ceiling_hit = self._spent() + round_bound(self, pending, stale) > self.ceiling
        return self.ceiling_hit

    def _float32_mu(self):
        """Whether ``mu`` travels in float32: the share is learned (``mu``
        changes every round) and the reports travel in float32
        (:meth:`_report_bytes`)."""
        return self.fixed is None and self._report_bytes() == _FLOAT32

    def _mu_bytes(self):
        """Bytes of the personal weight ``mu`` when it changes."""
        return _FLOAT32 if self._float32_mu() else _FLOAT

    def _personal_weight(self, b):
        """``mu = lambda m / (1 - b)`` as the nodes get it, and the share it
        implies: in float32 (:meth:`_float32_mu`) the share of the float32
        ``mu`` (rounded up if the share would fall under its floor), so the
        server's objective and gradient describe the point the nodes solve
        at; a refit at a selected candidate uses its weight."""
        if self.personal_mu is not None:
            return self.personal_mu, b
        mu = self.lam * self.m / (1.0 - b)
        if not self._float32_mu():
            return mu, b
        mu = np.float32(mu)
        while 1.0 - self.lam * self.m / float(mu) < _SHARE_FLOOR:  # rounded under the floor
            mu = np.nextafter(mu, np.float32(np.inf))
        return float(mu), 1.0 - self.lam * self.m / float(mu)

    def _vector_bytes(self, quantized):
        if quantized and self.bits is not None:
            return quantized_rows_bytes(self.nodes, self.d, self.bits, quantized_vector_bytes)
        return rows_sent(self.nodes) * self.d * _FLOAT

    # ------------------------------------------------------------ one point
    def evaluate(self, w0_target, b, parallel):
        """Publish ``w0_target`` (quantized) and ``b``; run rounds until every
        node has solved at that point.  Returns the published ``w0`` and the
        values of the point (a dict)."""
        est, protocol, nodes = self.est, self.protocol, self.nodes
        m = self.m
        step = w0_target - self.w0_pub
        if self.bits is not None:
            step = quantize_rows(step, self.bits, self.nodes, quantize_float32_scale)
        previous = self.w0_pub
        self.w0_pub = previous + step
        stale = ~self.holds  # nodes that missed a published point: float64 catch-up
        # an unmoved point (a refit's first) sends its holders only mu
        self.moved = bool(np.any(step))
        self.holds[:] = False
        nodes.w0 = self.w0_pub
        nodes.mu, b = self._personal_weight(b)
        pending = np.ones(m, dtype=bool)
        self.evaluations += 1
        while True:
            before = None if self.byte_budget is None else self._spent()
            _, work, active = protocol.draw_round()
            active = protocol.count_setup(active)
            active = active[pending[active]]
            if active.size:
                self._node_round(active, work, stale, parallel)
                pending[active] = False
                self.holds[active] = True
            self.rounds += 1
            if before is not None:
                self.round_cost = max(self.round_cost, self._spent() - before)
            if not pending.any():
                return self._values(b)
            # A node was dropped: the point is not evaluated yet.
            self._record_partial()
            if self.rounds >= est._max_rounds() or self._blocked(pending, stale):
                return None  # the round stays open for the final delivery
            protocol.end_round()

    def _node_round(self, active, work, stale, parallel):
        nodes, counter = self.nodes, self.protocol.counter
        down = np.where(stale[active], self._vector_bytes(False),
                        self._vector_bytes(True) if self.moved else 0)
        down = down + np.where(self.node_mu[active] != nodes.mu, self._mu_bytes(), 0) \
            + self.carry[active]
        self.node_mu[active] = nodes.mu
        self.carry[active] = 0
        counter.broadcast_from_server(active, down)
        steps = self.steps(work)
        results = nodes.solve(active, steps, nodes.local_scaling(), None, None,
                              self.theta_local, self.loss, parallel, self.n_chunks,
                              full=work >= 1.0)
        nodes.apply(active, results, parallel)
        # Uplink: the change of u_t since the server's copy (quantized).
        change = nodes.V[:, active] - self.U[:, active]
        scales = None
        if self.bits is not None:
            scales = sent_scales(change, self.nodes)
            change = quantize_rows(change, self.bits, self.nodes, quantize_float32_scale)
        self.U[:, active] += change
        missing = np.sqrt(np.einsum("ktd,ktd->t", nodes.V[:, active] - self.U[:, active],
                                    nodes.V[:, active] - self.U[:, active]))
        if scales is not None:
            missing = residual_code(missing, scales, self.nodes, self.d, self.bits)
        loss_sum, conj_sum = nodes.node_terms(active)
        norms = np.einsum("ktd,ktd->t", nodes.V[:, active], nodes.V[:, active])
        report = np.column_stack([loss_sum, conj_sum, norms])
        if self._report_bytes() == _FLOAT32:
            report = round_up_float32(report)
        self.report[active] = np.column_stack([report, missing])
        counter.gather_to_server(active, np.full(len(active), self._vector_bytes(True)
                                                 + self._report_payload(), dtype=np.int64))

    def _report_payload(self):
        """Bytes of a node's report besides its vector."""
        return _REPORT_FLOATS * self._report_bytes() + (
            0 if self.bits is None else -(-RESIDUAL_BITS // 8))

    def _report_bytes(self):
        """Bytes of each reported float: float32 under ``compression`` when
        the fit's ``tol`` is at least :data:`_FLOAT32_MIN_TOL` (float32's
        rounding, up to ``2^-23`` of every node's values, stays far below the
        gap to certify), else float64."""
        return _FLOAT32 if self.bits is not None and self.tol >= _FLOAT32_MIN_TOL else _FLOAT

    def _values(self, b):
        """F, its gradient in ``(w0, logit b)`` and the certificates at the point."""
        lam, m, nodes = self.lam, self.m, self.nodes
        mu = nodes.mu
        w0 = self.w0_pub
        loss_sum, conj_sum, uu, missing = self.report.sum(axis=0)
        S = self.U.sum(axis=1)  # (P, d): the server's sum of the u_t
        w_norm2 = float(np.vdot(w0, w0))
        b_w = b if self.b_w is None else self.b_w
        F = lam * m * w_norm2 / (2.0 * b_w) + loss_sum + uu / (2.0 * mu)
        grad_w = lam * m * w0 / b_w - S
        dF_db = -lam * m * w_norm2 / (2.0 * b * b) + uu * lam * m / (2.0 * mu * mu * (1.0 - b) ** 2)
        grad = np.append(grad_w.ravel(), dF_db * b * (1.0 - b))
        joint = loss_sum + 0.5 * lam * m * (np.sqrt(w_norm2) + np.sqrt(uu) / mu) ** 2
        # ||sum_t u_t|| is within `missing` of the server's ||S||: a bound
        # that keeps the dual a lower bound under quantization.
        s_norm = float(np.sqrt(np.vdot(S, S))) + missing
        dual_joint = -conj_sum - max(s_norm**2, uu) / (2.0 * lam * m)
        dual_fixed = -conj_sum - b_w * s_norm**2 / (2.0 * lam * m) - uu / (2.0 * mu)
        if self.fixed is not None:
            # b is fixed: the objective is F itself, bounded by its own dual.
            grad[-1] = 0.0
            joint, dual_joint = F, dual_fixed
        return dict(F=F, grad=grad, joint=joint, dual_joint=dual_joint, dual=dual_fixed,
                    b=b, w0=w0.copy())

    # ---------------------------------------------------------- the curves
    def _record_partial(self):
        """A round that did not complete an evaluation (a node was dropped)."""
        last = (self.gaps[-1], self.objectives[-1], self.duals[-1]) if self.gaps else (
            np.nan, np.nan, np.nan)
        self.gaps.append(last[0])
        self.objectives.append(last[1])
        self.duals.append(last[2])
        self.joint_curve.append(np.nan)

    _dual_value = dual_value
    _combined_dual = combined_dual

    def _record(self, values):
        nodes = self.nodes
        self.best_dual = max(self.best_dual, values["dual_joint"])
        if self.combine_duals:
            self.best_dual = max(self.best_dual, self._combined_dual())
        if self.best is None or values["joint"] < self.best["joint"]:
            # The nodes keep their dual variables of this point (the server
            # tells them with its next message: one float, counted there).
            self.best = dict(values, g=nodes.g.copy(), V=nodes.V.copy(), mu=nodes.mu,
                             round=self.rounds)
        self.gaps.append(values["F"] - values["dual"])
        self.objectives.append(values["F"])
        self.duals.append(values["dual"])
        self.joint_curve.append(values["joint"])
        gap = self.best["joint"] - self.best_dual
        self.joint_gap = gap
        if self.est.verbose:
            print(f"round {self.rounds}: joint objective {values['joint']:.6e} "
                  f"(best {self.best['joint']:.6e}, dual bound {self.best_dual:.6e}), "
                  f"share b {values['b']:.4g}")
        return gap <= self.tol * abs(self.best["joint"])

    # ------------------------------------------------------------- L-BFGS
    def run(self, parallel):
        """Minimize ``F(w0, logit b)`` until the certified joint gap is at most ``tol``."""
        protocol = self.protocol
        vals = self.evaluate(self.w0_pub, self.b0, parallel)  # (the caller checks the ceiling)
        # (the share of the point the nodes solved at: :meth:`_personal_weight`)
        x = np.append(self.w0_pub.ravel(), _logit(self.b0 if vals is None else vals["b"]))
        S, Y = self.memory
        inherited = bool(S)
        while vals is not None:
            if self._record(vals):
                self.converged = True
                break
            if self.rounds >= self.est._max_rounds() or self._out_of_bytes() or self._blocked():
                break  # the round stays open for the final delivery
            protocol.end_round()
            f, g, b = vals["F"], vals["grad"], vals["b"]
            direction = self._direction(g, S, Y, b)
            if not g @ direction < 0:
                S, Y = [], []
                direction = self._direction(g, S, Y, b)
            t, retried = 1.0, False
            while True:
                target = x + t * direction
                b_new = _share(target[-1]) if self.fixed is None else self.fixed
                new = self.evaluate(target[:-1].reshape(self.P, self.d), b_new, parallel)
                if new is None:
                    vals = None
                    break
                x_new = np.append(new["w0"].ravel(), _logit(new["b"]))
                if new["F"] <= f + _ARMIJO * (g @ (x_new - x)) or t < 1e-10 \
                        or self.rounds >= self.est._max_rounds():
                    break
                # A rejected trial point still counts (and may be the best seen).
                if self._record(new) or self.rounds >= self.est._max_rounds() or self._blocked():
                    self.converged = self.joint_gap <= self.tol * abs(self.best["joint"])
                    vals = None
                    break
                protocol.end_round()
                # The first rejected point's curvature pair gives the next
                # trial (shorter than the rejected step), else backtracking.
                rejected = x_new - x
                t *= _BACKTRACK
                if not retried and _retry_pairs(S, Y, rejected, new["grad"] - g):
                    retried, retry = True, self._direction(g, S, Y, b)
                    if g @ retry < 0 and retry @ retry < rejected @ rejected:
                        direction, t = retry, 1.0
            if vals is None or new is None:
                break
            if inherited:
                # the pairs of a previous fit served the first step only
                S, Y, inherited = [], [], False
            _retry_pairs(S, Y, x_new - x, new["grad"] - g)
            x, vals = x_new, new
        self.memory = (S, Y)
        return self

    def fixed_share_memory(self):
        """This fit's L-BFGS pairs for a fixed-share fit: their ``w0`` blocks,
        where still of positive curvature."""
        pairs = [(np.append(s[:-1], 0.0), np.append(y[:-1], 0.0)) for s, y in zip(*self.memory)]
        pairs = [(s, y) for s, y in pairs if s @ y > 1e-12 * (y @ y)]
        return [s for s, _ in pairs], [y for _, y in pairs]

    def _direction(self, g, S, Y, b):
        """The L-BFGS direction (two-loop recursion).  Without curvature
        pairs: the gradient scaled by an upper bound on the ``w0`` block's
        curvature, ``lambda m / b + sum_t mu`` (each ``M_t`` has curvature at
        most ``mu``), which makes the first step the average of the nodes'
        own parts; the share's coordinate by four times its gradient."""
        q = g.copy()
        alphas = []
        for s, y in reversed(list(zip(S, Y))):
            a = (s @ q) / (y @ s)
            alphas.append(a)
            q -= a * y
        if S:
            r = q * ((S[-1] @ Y[-1]) / (Y[-1] @ Y[-1]))
        else:
            r = q.copy()
            b_w = b if self.b_w is None else self.b_w
            r[:-1] /= self.lam * self.m / b_w + self.m * self.nodes.mu
            r[-1] /= 4.0 * max(abs(g[-1]), 1.0)
        for (s, y), a in zip(zip(S, Y), reversed(alphas)):
            r += s * (a - (y @ r) / (y @ s))
        return -r

    # --------------------------------------------------------------- finish
    def finish(self, deliver=True):
        """Restore the best point in the nodes; count the final delivery
        (``deliver=False``: it travels with the next fit's first message,
        ``carry``); return it."""
        protocol, nodes, best = self.protocol, self.nodes, self.best
        # Every node solved at every evaluated point, so it holds the best
        # point's w0 exactly (the published, quantized sums): the round whose
        # w0 and own part to keep is enough (an int32 index).  Only if
        # max_rounds ran out before the first evaluation completed does w0
        # travel in float64.
        final = _INDEX
        if best is None:
            b0 = _share(_logit(self.b0)) if self.fixed is None else self.fixed
            best = dict(self._values(b0), g=nodes.g.copy(),
                        V=nodes.V.copy(), mu=nodes.mu, round=self.rounds)
            self.best = best
            self.joint_gap = np.nan
            final += self._vector_bytes(False)
        nodes.g[...] = best["g"]
        nodes.V[...] = best["V"]
        nodes.w0 = best["w0"]
        nodes.mu = best["mu"]
        if deliver or final > _INDEX:
            protocol.counter.broadcast_from_server(  # (with setup downs never received)
                protocol.everyone, final + protocol.take_setup_down(protocol.everyone))
        protocol.end_round()
        return best


def _retry_pairs(S, Y, s, y):
    """Add the curvature pair ``(s, y)`` to the L-BFGS memory if its
    curvature is positive (the oldest pair leaves past ``_MEMORY``)."""
    if not s @ y > 1e-12 * (y @ y):
        return False
    S.append(s)
    Y.append(y)
    if len(S) > _MEMORY:
        S.pop(0)
        Y.pop(0)
    return True


def shared_sigma(m, b, b_w=None):
    """``Sigma`` of the fixed-``b`` problem, ``(b_w 1 1^T + (1 - b) I) / m``
    (``b_w``: the shared part's share, ``b`` unless given), factored."""
    U = np.full((m, 1), 1.0 / np.sqrt(m))
    return _LowRankSigma((1.0 - b) / m, U, np.array([b if b_w is None else b_w]))


# ------------------------------------------------ the share by validation
# omega="auto": the share b is chosen by within-node validation among the
# share the training objective learns and these values (C b is the shared
# part's C, C (1 - b) the personal parts').
SHARE_GRID = (0.9, 0.99, 0.5)
# The candidates' fits stop at this multiple of tol (the validation error
# does not need the last digits of the optimum).
SELECTION_TOL_FACTOR = 10.0
# The selection spends at most this fraction of the raw upload's bytes
# (every node's rows and targets sent once, one header per node): each next
# fit is run only if, costing what the last one cost, it stays within.
# Measured (benchmarks/multitask_share_selection.py, seeds 0-2): at 0.25
# instead of 0.5 the chosen shares score the same on the held-out 100 x 50 x
# 300 family (where the selection matters: +1.1 points over the learned
# share) and Landmine, for 0.19-0.24 of the raw upload instead of 0.38-0.57,
# and less than half the CPU time.
SELECTION_BYTE_BUDGET = 0.25
# Rounds of a typical fit (measured: 6 to 30) and the network's default
# header, for the check that one candidate's fit can fit the budget at all.
_TYPICAL_ROUNDS = 10
_HEADER = 16
# Up to this many samples the validation is K-fold within every node
# (every sample is held out once); above it one held-out fold of 1 / K of
# each node's samples (enough validation samples, and the cost of the
# selection stays that of a few warm-started fits).
# (VALIDATION_FOLDS = 5 folds, skfed.multitask._validation)
ALL_FOLDS_MAX_SAMPLES = 20_000
# At most this many of the folds are run (each a warm-started fit of every
# candidate).
SELECTION_MAX_FOLDS = VALIDATION_FOLDS


def select_share(protocol, layout, sw, make_nodes, loss, make_fit, parallel, seed,
                 raw_bytes):
    """The share ``b`` with the lowest within-node validation error.

    Candidates: the share the training objective learns (``None``), then
    :data:`SHARE_GRID` in that order, each fitted (to ``SELECTION_TOL_FACTOR
    tol``) on every node's samples outside the held-out fold
    (``make_nodes(sw_train, totals)``; held-out samples weigh 0), warm-started
    from the previous candidate's shared model and dual variables (the nodes
    keep them).  After each fit (whose final message tells every node the
    point it keeps) every node with held-out samples sends its error and
    loss sums there (2 floats).  Fold 0 first, candidate by candidate; then,
    up to :data:`ALL_FOLDS_MAX_SAMPLES` samples, the other folds with the
    candidates fold 0 ran.  A fit runs only if, costing what the last one
    cost, the selection stays within :data:`SELECTION_BYTE_BUDGET` of
    ``raw_bytes``.  The score of a candidate is the mean over the nodes of
    their validation error (ties: of their mean validation loss) over the
    folds run, the metric of ``score`` node by node.

    Returns None (no selection) when two fits of ``_TYPICAL_ROUNDS`` rounds
    would already exceed the budget (the learned share would be the only
    candidate: tiny data, whose raw upload is cheap, or many small nodes).

    Returns
    -------
    share : float or None
        The selected fixed share, or None for the learned one.
    point : dict
        The selected candidate's point (``w0``, ``share``, ``g``) in the last
        fold, to warm-start the refit on all samples.
    selection : dict
        ``shares`` (the candidates run; the learned one NaN),
        ``validation_error``, ``validation_loss``, ``n_folds`` and the
        candidates' curves (``gaps``, ``objectives``, ``duals``, ``joint``)
        in round order.
    """
    n = int(layout.offsets[-1])
    max_folds = min(SELECTION_MAX_FOLDS, VALIDATION_FOLDS if n <= ALL_FOLDS_MAX_SAMPLES else 1)
    fold = validation_folds(layout, seed, VALIDATION_FOLDS)
    grid = [None] + list(SHARE_GRID)
    m = layout.n_nodes
    errors = np.zeros((len(grid), m))
    losses = np.zeros((len(grid), m))
    weights = np.zeros(m)
    curves = dict(gaps=[], objectives=[], duals=[], joint=[])
    points = [None] * len(grid)
    starts = layout.offsets[:-1]
    node_of = np.repeat(np.arange(m), np.diff(layout.offsets))
    counter = protocol.counter
    budget = SELECTION_BYTE_BUDGET * raw_bytes

    def spent():
        return int(np.sum(counter.pair_counts()[2]))

    base = spent()
    tol = SELECTION_TOL_FACTOR * protocol.estimator.tol
    n_candidates, n_folds, fold_cost = len(grid), 0, None
    for f in range(max_folds):
        if f and spent() - base + fold_cost > budget:
            break
        fold_start = spent()
        held = fold == f
        # A node whose other samples weigh nothing holds none out in this fold.
        lacking = np.add.reduceat(np.where(held, 0.0, sw), starts) <= 0
        held &= ~lacking[node_of]
        sw_train = np.where(held, 0.0, sw)
        sw_val = np.where(held, sw, 0.0)
        train_totals = np.add.reduceat(sw_train, starts)
        val_totals = np.add.reduceat(sw_val, starts)
        reporters = np.flatnonzero(val_totals > 0).astype(np.intp)
        nodes = make_nodes(sw_train, train_totals)
        start, last_cost = None, None
        for c in range(n_candidates):
            before = spent()
            if f == 0 and c and before - base + last_cost > budget:
                n_candidates = c  # the remaining candidates do not fit the budget
                break
            fit = make_fit(nodes, start, grid[c], tol)
            if f == 0 and c == 0:
                # Not two fits of _TYPICAL_ROUNDS rounds fit the budget: the
                # learned share would be the only candidate, so no selection
                # (the caller fits the learned share).
                per_round = m * (2 * fit._vector_bytes(True) + _FLOAT
                                 + fit._report_payload() + 2 * _HEADER)
                if 2 * _TYPICAL_ROUNDS * per_round > budget:
                    return None
            fit.run(parallel)
            best = fit.finish()
            for key, values in (("gaps", fit.gaps), ("objectives", fit.objectives),
                                ("duals", fit.duals), ("joint", fit.joint_curve)):
                curves[key].extend(values)
            err, lss = validation_sums(nodes, sw_val, loss)
            errors[c] += err
            losses[c] += lss
            counter.gather_to_server(
                reporters, np.full(reporters.size, 2 * _FLOAT, dtype=np.int64))
            start = dict(w0=best["w0"].copy(), share=float(best["b"]))
            summed = start["w0"] + (points[c]["w0_sum"] if points[c] else 0.0)  # over folds
            points[c] = dict(start, g=nodes.g.copy(), w0_sum=summed)
            last_cost = spent() - before
        weights += val_totals
        n_folds += 1
        fold_cost = spent() - fold_start
        if n_candidates < 2:
            break  # only the learned share fitted: more folds cannot change the choice
    grid = grid[:n_candidates]
    errors, losses = errors[:n_candidates], losses[:n_candidates]
    scored = weights > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_error = (errors[:, scored] / weights[scored]).mean(axis=1)
        mean_loss = (losses[:, scored] / weights[scored]).mean(axis=1)
    order = np.lexsort((mean_loss, mean_error))
    i = int(order[0])
    # Every node kept each candidate's point of the last fold: the server
    # tells them which one the refit starts from (an int32 index).
    everyone = np.arange(m, dtype=np.intp)
    counter.broadcast_from_server(everyone, np.full(m, _INDEX, dtype=np.int64))
    selection = dict(shares=np.array([np.nan if c is None else c for c in grid]),
                     validation_error=mean_error, validation_loss=mean_loss,
                     n_folds=n_folds, centres=[(p["share"], p["w0"], p["w0_sum"] / n_folds)
                                               for p in points[:n_candidates]],
                     centre_fold=held, **curves)
    return grid[i], points[i], selection


# The personal selection (skfed.multitask._personal) runs only with at least
# this many nodes (the shared model was fitted
# with the held-out samples, a bias toward sharing that grows as the nodes
# get fewer).  Measured with the refit (benchmarks/multitask_small_nodes.py
# --families few-5 few-10 few-20 few-40 --tasks regression --seeds 0 1 2 3 4,
# --personal-min-nodes 1 against 1000000): mean per-node R^2 with the
# personal selection .777 / .794 / .773 / .843 at 5 / 10 / 20 / 40 nodes of
# 10 samples x 8 features, the learned share alone .767 / .777 / .701 / .788;
# below 5 nodes there is no evidence.
_PERSONAL_MIN_NODES = 5
# The learned share's fit before the personal selection stops at this
# multiple of tol: its shared model is refitted at the selected weight, so
# it needs no more (measured, 300 nodes x 20 samples x 10 features,
# regressor, seeds 0-2: the same R^2 for 0.44-0.50 of the raw upload
# instead of 1.04 at 10 tol).
_PERSONAL_TOL_FACTOR = 100.0
# ... or when its messages reach this fraction of the raw upload (its point
# only starts the personal selection and the refit).  Measured on nodes of
# 10 rows (benchmarks/multitask_bytes_small.py --no-baselines --seeds 0 1,
# 100 / 400 / 1,600 nodes): without it 1.29-1.63 (classifier) and 0.76-1.86
# (regressor) times the raw upload, at 0.4 1.03-1.59 and 0.76-0.89, at 0.5
# 1.04-1.60 and 0.76-1.01, the same per-node scores (within 0.01, most
# equal or higher).
_PERSONAL_BYTE_BUDGET = 0.4


def fit_shared(est, X, Y, sw, layout, totals, protocol, lam, loss, dtype, dtype_bytes):
    """Fit the shared-component model for ``est`` (omega="shared" or "auto").

    The simulated fit of :class:`~skfed.multitask._base._BaseMultiTask`
    when its Omega is the shared model: the share selection (omega="auto"),
    the refit at the chosen share, and the fitted attributes.  Returns ``est``.
    """
    m = layout.n_nodes
    g = np.zeros(Y.shape)
    Z = est._features(X)
    nodes = _SharedNodes(Z, Y, sw, g, layout, totals, protocol.seeds, dtype_bytes,
                         exact=est._exact_nodes(layout, Z.shape[1]), loss_name=est.loss)
    warm = est._warm_start_duals(Y, layout)
    start = None
    if warm is not None:
        # The nodes start from their previous dual variables (feasible at
        # any C) and the server from its previous shared model and share;
        # every node's dual vector reaches the server once (float64, its first round up)
        g[...] = warm
        alpha = warm * sw
        for t in range(m):
            sl = layout.node_slice(t)
            nodes.V[:, t] = alpha[:, sl] @ nodes.Z[sl] / totals[t]
        start = est._dual_state.get("shared")
        protocol.setup_up += Y.shape[0] * nodes.d * 8
    bits = est._compression_bits(None)

    def make_fit(fit_nodes, start, fixed, tol=None, carry=0, shared_share=None,
                 byte_budget=None, memory=None, personal_mu=None, ceiling=None):
        return _SharedFit(
            est, protocol, fit_nodes, lam, loss, bits,
            steps=lambda work: _steps(work, layout.counts, est.local_epochs),
            theta=0.0 if est.local_gap_target is None else float(est.local_gap_target),
            n_chunks=effective_n_jobs(est.n_jobs) if est._use_parallel() else 1,
            warm=start, fixed_share=fixed, tol=tol, carry=carry, shared_share=shared_share,
            byte_budget=byte_budget, memory=memory, personal_mu=personal_mu, ceiling=ceiling,
        )

    # omega="auto": the share by within-node validation (omega="shared":
    # the share the training objective learns).
    fixed, selection, shared_share = None, None, None
    validate = est.omega == "auto" and m > 1 and warm is None
    header = protocol.counter.header_bytes
    # the raw upload (skfed.baselines.pooled_data_bytes): every node's rows
    # and targets in one message; omega="auto" sends no more (its last
    # fit's ceiling, with room for its final message) unless the first
    # evaluations alone cost more (skfed.multitask._byte_ceiling)
    raw_bytes = raw_upload_bytes(X, dtype_bytes, m, header)
    ceiling = byte_ceiling(raw_bytes, m, header) if validate else None
    with est._parallel_context() as parallel:
        parallel = parallel if est._use_parallel() else None
        if validate:
            def make_nodes(sw_train, train_totals):
                train_nodes = _SharedNodes(
                    Z, Y, sw_train, np.zeros(Y.shape), layout, train_totals,
                    protocol.seeds, dtype_bytes,
                    exact=est._exact_nodes(layout, Z.shape[1]), loss_name=est.loss)
                train_nodes.loss_obj = loss
                return train_nodes

            chosen = select_share(
                protocol, layout, sw, make_nodes, loss, make_fit, parallel,
                seed=protocol.rng.randint(np.iinfo(np.int32).max), raw_bytes=raw_bytes)
            if chosen is None:  # not even one candidate fits the byte budget
                est.share_selection_ = None
        if validate and chosen is not None:
            fixed, point, selection = chosen
            # The refit on all samples starts from the selected point: the
            # nodes' dual variables (feasible at any weights) and the shared
            # model they hold; their u_t reach the server with the first round.
            g[...] = point["g"]
            alpha = g * sw
            for t in range(m):
                sl = layout.node_slice(t)
                nodes.V[:, t] = alpha[:, sl] @ nodes.Z[sl] / totals[t]
            start = dict(w0=point["w0"], share=point["share"])
            # every node keeps each candidate's w0 of the last fold and its mean
            # over the folds (newcomers' centres: skfed.multitask._rehearsal)
            nodes.share_centres = [c for c in selection["centres"] if c[1] is not point["w0"]]
            nodes.share_fold = (point["w0"], selection["centre_fold"])
        # Small nodes (no share selection): the learned share is fitted as a
        # candidate (to SELECTION_TOL_FACTOR tol), the personal weight
        # selected at its shared model, then the fixed-share problem at the
        # selected share refitted to tol.
        personal_path = validate and chosen is None and m >= _PERSONAL_MIN_NODES
        fit = make_fit(nodes, start, fixed,
                       _PERSONAL_TOL_FACTOR * est.tol if personal_path else None,
                       byte_budget=(_PERSONAL_BYTE_BUDGET * raw_bytes if personal_path
                                    else None),
                       ceiling=ceiling - report_bound(m, len(PERSONAL_GRID), header)
                       if personal_path else ceiling)
        if warm is not None:
            fit.U[...] = nodes.V
        fit.run(parallel)
        personal = None
        if personal_path and fit.best is not None and np.isfinite(fit.best["joint"]):
            # The share selection's fits do not fit its budget (small nodes):
            # the personal parts' weight by local validation at the fitted w0
            # (its messages in the fit's last round).
            personal = select_personal(
                protocol, layout, sw, make_nodes, loss, est, parallel,
                seed=protocol.rng.randint(np.iinfo(np.int32).max),
                point=dict(w0=fit.best["w0"], b=fit.best["b"], mu=fit.best["mu"],
                           g=fit.best["g"]), lam=lam)
        best = fit.finish(deliver=personal is None)
        if personal is not None:
            share, mu, selection = personal
            selection = dict(selection, gaps=[], objectives=[], duals=[], joint=[])
            fixed = share
            # The returned model is the optimum of one objective: the
            # fixed-share problem at the selected share, refitted to tol from
            # the learned fit's best point (the nodes hold its w0 and dual
            # variables, the server their u_t as it copied them; the round
            # of that point travels with the refit's first message), and
            # from its L-BFGS pairs (the first step, scaled by the curvature
            # bound lambda m / b + m mu, is tiny at a large personal weight).
            learned = fit
            shared_share = float(best["b"])
            # The refit's first message brings every node the learned fit's
            # round it keeps and the selected candidate's index, packed in
            # bits (each node forms mu from its kept point's weight and the
            # grid, as the server does).
            fit = make_fit(nodes, dict(w0=best["w0"], share=share), share,
                           carry=payload_bytes(n_bits=index_bits(learned.rounds)
                                               + index_bits(len(PERSONAL_GRID))),
                           shared_share=shared_share, memory=learned.fixed_share_memory(),
                           personal_mu=mu, ceiling=ceiling)
            fit.U[...] = learned.U
            best = fit.run(parallel).finish()
            for name in ("gaps", "objectives", "duals", "joint_curve"):
                setattr(fit, name, getattr(learned, name) + getattr(fit, name))
    if selection is not None:
        # The curves run over every fit (the candidates', then the refit).
        for name, key in (("gaps", "gaps"), ("objectives", "objectives"),
                          ("duals", "duals"), ("joint_curve", "joint")):
            setattr(fit, name, selection[key] + getattr(fit, name))
        est.share_selection_ = {
            key: selection[key] for key in ("shares", "validation_error",
                                            "validation_loss", "n_folds")}
        est.share_selection_["selected"] = np.nan if fixed is None else float(fixed)
        if shared_share is not None:
            est.share_selection_["shared_part_share"] = shared_share
    if not fit.converged:
        stop = (ceiling_note(raw_bytes, int(np.sum(protocol.counter.pair_counts()[2])))
                if fit.ceiling_hit else
                f"in max_rounds={est.max_rounds} rounds")
        warnings.warn(
            f"{type(est).__name__} (omega={est.omega!r}) did not certify its joint "
            f"objective within tol={est.tol} (relative): {stop} (best joint objective "
            f"{best['joint']:.3e}, certified gap {fit.joint_gap:.3e})"
            f"{_fault_note(est.network, protocol.simulation)}{protocol.setup_note()}; "
            + feature_scale_note(X, layout, est)
            + ("use omega='shared' (no byte ceiling) or a larger tol." if fit.ceiling_hit else
               "increase max_rounds or tol."),
            ConvergenceWarning,
        )
    b = float(best["b"])
    est.shared_weight_ = b
    est.n_iter_ = len(fit.gaps)
    est.joint_objective_ = float(best["joint"])
    est.joint_duality_gap_ = float(fit.joint_gap)
    est.joint_objective_curve_ = np.asarray(fit.joint_curve, dtype=np.float64)
    est.duality_gap_curve_ = np.asarray(fit.gaps, dtype=np.float64)
    est.objective_curve_ = np.asarray(fit.objectives, dtype=np.float64)
    est.dual_objective_curve_ = np.asarray(fit.duals, dtype=np.float64)
    b_w = b if shared_share is None else shared_share
    sigma = shared_sigma(m, b, b_w)
    est.task_covariance_ = sigma
    est.omega_ = sigma  # formed (m x m) on access only
    est.rho_ = 1.0 - b + m * b_w  # lambda_max(D^-1/2 Sigma D^-1/2), D = I / m
    est._set_communication(protocol.simulation)
    est._store_model(nodes, X, Y, sw, layout, totals, None, lam, 0.0, dtype)
    est._dual_state = dict(nodes=est.nodes_.copy(), counts=layout.counts.copy(),
                            loss=est.loss, Y=Y.copy(), g=g.copy(), sigma=None,
                            shared=dict(w0=best["w0"].copy(), share=b))
    return est
