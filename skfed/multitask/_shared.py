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
``J`` of the model the round evaluated is an upper bound.  The fit stops
when the best ``J`` seen minus the best ``D`` is at most ``tol`` times the
best ``J``, and returns the model with that best ``J``
(:attr:`joint_objective_` is its ``J``).

Protocol and bytes (per round, per participating node).  Server -> node:
the change of ``w_0`` since the node's copy (``n_problems`` vectors of d'
values; quantized with ``compression``, each difference computed once and
the same for every node holding the previous point; a node that missed
rounds gets the point in float64) and ``mu`` (1 float).  Node -> server:
the change of ``u_t`` since the server's copy (quantized with
``compression``: the server's copy stays within one rounding of the
latest change, and the node knows that copy exactly) and four floats: its
loss and conjugate sums, ``||u_t||^2`` and the norm of the part of ``u_t``
the server's copy misses (so the dual bound stays a bound under
quantization).  A round in which a node is dropped is repeated for the
nodes still missing at the same point, so every evaluation is exact.  At
the end every node gets the number of the round whose ``w_0`` (which it
holds exactly: every node solved at every evaluated point) and own part it
keeps (the returned ``w_0`` travels in float64 only if ``max_rounds`` ran
out before the first evaluation completed).
"""

import numpy as np

from .._core._multitask_fast import node_gap_terms, node_margins
from ._compression import _FLOAT, quantize, quantized_bytes
from ._omega import _LowRankSigma
from ._state import _PrimalState

# L-BFGS at the server: curvature pairs kept, Armijo constant and backtracking factor.
_MEMORY = 10
_ARMIJO = 1e-4
_BACKTRACK = 0.3
# The share b is kept in [_SHARE_FLOOR, 1 - _SHARE_FLOOR] (logit bounded).
_SHARE_FLOOR = 1e-9
# Floats a node reports besides its vector: loss sum, conjugate sum, ||u_t||^2
# and the norm of what the server's copy of u_t misses.
_REPORT_FLOATS = 4


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

    def node_models(self, active, sigma, lam):
        return self.w0[:, None, :] + self.V / self.mu

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
        for k in range(self.n_problems):
            node_gap_terms(f[k], self.Y[k], self.sw, self.g[k], self.layout.offsets,
                           self.loss_obj, sums)
        sums /= self.totals[:, None]
        return sums[nodes, 0], sums[nodes, 1]


def _logit(b):
    return float(np.log(b) - np.log1p(-b))


def _share(theta):
    b = 1.0 / (1.0 + np.exp(-theta))
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
    """

    def __init__(self, estimator, protocol, nodes, lam, loss, bits, steps, theta, n_chunks,
                 warm=None):
        self.est = estimator
        self.protocol = protocol
        protocol.start_rounds()
        self.nodes = nodes
        self.lam = lam
        self.loss = loss
        nodes.loss_obj = loss
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
        self.report = np.zeros((m, _REPORT_FLOATS))
        self.b0 = 0.5 if warm is None else float(warm["share"])
        if warm is not None:
            self.w0_pub = np.array(warm["w0"], dtype=np.float64)
        self.best = None
        self.best_dual = -np.inf
        self.gaps, self.objectives, self.duals, self.joint_curve = [], [], [], []
        self.converged = False
        self.rounds = 0
        self.evaluations = 0

    # ---------------------------------------------------------------- bytes
    def _vector_bytes(self, quantized):
        if quantized and self.bits is not None:
            return self.P * quantized_bytes(self.d, self.bits)
        return self.P * self.d * _FLOAT

    # ------------------------------------------------------------ one point
    def evaluate(self, w0_target, b, parallel):
        """Publish ``w0_target`` (quantized) and ``b``; run rounds until every
        node has solved at that point.  Returns the published ``w0`` and the
        values of the point (a dict)."""
        est, protocol, nodes = self.est, self.protocol, self.nodes
        m = self.m
        step = w0_target - self.w0_pub
        if self.bits is not None:
            step = quantize(step, self.bits)
        previous = self.w0_pub
        self.w0_pub = previous + step
        stale = ~self.holds  # nodes that missed a published point: float64 catch-up
        self.holds[:] = False
        nodes.w0 = self.w0_pub
        nodes.mu = self.lam * m / (1.0 - b)
        pending = np.ones(m, dtype=bool)
        self.evaluations += 1
        while True:
            _, work, active = protocol.draw_round()
            protocol.count_setup()
            active = active[pending[active]]
            if active.size:
                self._node_round(active, work, stale, parallel)
                pending[active] = False
                self.holds[active] = True
            self.rounds += 1
            if not pending.any():
                return self._values(b)
            # A node was dropped: the point is not evaluated yet.
            self._record_partial()
            if self.rounds >= est._max_rounds():
                return None  # the round stays open for the final delivery
            protocol.end_round()

    def _node_round(self, active, work, stale, parallel):
        nodes, counter = self.nodes, self.protocol.counter
        down = np.where(stale[active], self._vector_bytes(False), self._vector_bytes(True))
        counter.broadcast_from_server(active, down + _FLOAT)  # + mu
        steps = self.steps(work)
        results = nodes.solve(active, steps, nodes.local_scaling(), None, None,
                              self.theta_local, self.loss, parallel, self.n_chunks,
                              full=work >= 1.0)
        nodes.apply(active, results, parallel)
        # Uplink: the change of u_t since the server's copy (quantized).
        change = nodes.V[:, active] - self.U[:, active]
        if self.bits is not None:
            change = quantize(change, self.bits)
        self.U[:, active] += change
        missing = np.sqrt(np.einsum("ktd,ktd->t", nodes.V[:, active] - self.U[:, active],
                                    nodes.V[:, active] - self.U[:, active]))
        loss_sum, conj_sum = nodes.node_terms(active)
        norms = np.einsum("ktd,ktd->t", nodes.V[:, active], nodes.V[:, active])
        self.report[active] = np.column_stack([loss_sum, conj_sum, norms, missing])
        counter.gather_to_server(active, np.full(len(active), self._vector_bytes(True)
                                                 + _REPORT_FLOATS * _FLOAT, dtype=np.int64))

    def _values(self, b):
        """F, its gradient in ``(w0, logit b)`` and the certificates at the point."""
        lam, m, nodes = self.lam, self.m, self.nodes
        mu = nodes.mu
        w0 = self.w0_pub
        loss_sum, conj_sum, uu, missing = self.report.sum(axis=0)
        S = self.U.sum(axis=1)  # (P, d): the server's sum of the u_t
        w_norm2 = float(np.vdot(w0, w0))
        F = lam * m * w_norm2 / (2.0 * b) + loss_sum + uu / (2.0 * mu)
        grad_w = lam * m * w0 / b - S
        dF_db = -lam * m * w_norm2 / (2.0 * b * b) + uu * lam * m / (2.0 * mu * mu * (1.0 - b) ** 2)
        grad = np.append(grad_w.ravel(), dF_db * b * (1.0 - b))
        joint = loss_sum + 0.5 * lam * m * (np.sqrt(w_norm2) + np.sqrt(uu) / mu) ** 2
        # ||sum_t u_t|| is within `missing` of the server's ||S||: a bound
        # that keeps the dual a lower bound under quantization.
        s_norm = float(np.sqrt(np.vdot(S, S))) + missing
        dual_joint = -conj_sum - max(s_norm**2, uu) / (2.0 * lam * m)
        dual_fixed = -conj_sum - (b * s_norm**2 + (1.0 - b) * uu) / (2.0 * lam * m)
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

    def _record(self, values):
        nodes = self.nodes
        self.best_dual = max(self.best_dual, values["dual_joint"])
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
        return gap <= self.est.tol * abs(self.best["joint"])

    # ------------------------------------------------------------- L-BFGS
    def run(self, parallel):
        """Minimize ``F(w0, logit b)`` until the certified joint gap is at most ``tol``."""
        protocol = self.protocol
        x = np.append(self.w0_pub.ravel(), _logit(self.b0))
        vals = self.evaluate(self.w0_pub, self.b0, parallel)
        S, Y = [], []
        while vals is not None:
            if self._record(vals):
                self.converged = True
                break
            if self.rounds >= self.est._max_rounds():
                break  # the round stays open for the final delivery
            protocol.end_round()
            f, g, b = vals["F"], vals["grad"], vals["b"]
            direction = self._direction(g, S, Y, b)
            if not g @ direction < 0:
                S, Y = [], []
                direction = self._direction(g, S, Y, b)
            t = 1.0
            while True:
                target = x + t * direction
                b_new = _share(target[-1])
                new = self.evaluate(target[:-1].reshape(self.P, self.d), b_new, parallel)
                if new is None:
                    vals = None
                    break
                x_new = np.append(new["w0"].ravel(), _logit(b_new))
                if new["F"] <= f + _ARMIJO * (g @ (x_new - x)) or t < 1e-10 \
                        or self.rounds >= self.est._max_rounds():
                    break
                # A rejected trial point still counts (and may be the best seen).
                if self._record(new) or self.rounds >= self.est._max_rounds():
                    self.converged = self.joint_gap <= self.est.tol * abs(self.best["joint"])
                    vals = None
                    break
                protocol.end_round()
                t *= _BACKTRACK
            if vals is None or new is None:
                break
            s, y = x_new - x, new["grad"] - g
            if s @ y > 1e-12 * (y @ y):
                S.append(s)
                Y.append(y)
                if len(S) > _MEMORY:
                    S.pop(0)
                    Y.pop(0)
            x, vals = x_new, new
        return self

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
            r[:-1] /= self.lam * self.m / b + self.m * self.nodes.mu
            r[-1] /= 4.0 * max(abs(g[-1]), 1.0)
        for (s, y), a in zip(zip(S, Y), reversed(alphas)):
            r += s * (a - (y @ r) / (y @ s))
        return -r

    # --------------------------------------------------------------- finish
    def finish(self):
        """Restore the best point in the nodes; count the final delivery; return it."""
        protocol, nodes, best = self.protocol, self.nodes, self.best
        # Every node solved at every evaluated point, so it holds the best
        # point's w0 exactly (the published, quantized sums): the round whose
        # w0 and own part to keep is enough.  Only if max_rounds ran out
        # before the first evaluation completed does w0 travel in float64.
        final = _FLOAT
        if best is None:
            best = dict(self._values(_share(_logit(self.b0))), g=nodes.g.copy(),
                        V=nodes.V.copy(), mu=nodes.mu, round=self.rounds)
            self.best = best
            self.joint_gap = np.nan
            final += self._vector_bytes(False)
        nodes.g[...] = best["g"]
        nodes.V[...] = best["V"]
        nodes.w0 = best["w0"]
        nodes.mu = best["mu"]
        protocol.counter.broadcast_from_server(
            np.arange(self.m, dtype=np.intp), np.full(self.m, final, dtype=np.int64))
        protocol.end_round()
        return best


def shared_sigma(m, b):
    """``Sigma`` of the fixed-``b`` problem, ``(b 1 1^T + (1 - b) I) / m``, factored."""
    U = np.full((m, 1), 1.0 / np.sqrt(m))
    return _LowRankSigma((1.0 - b) / m, U, np.array([b]))
