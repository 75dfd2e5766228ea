"""The two mode states of kernelized MOCHA: what the server and the nodes hold.

:class:`_PrimalState` (``kernel="linear"`` and the approximate modes: the
server keeps ``V``, a node its features) and :class:`_KernelState` (the
exact kernel mode: support vectors and dual changes relayed through the
server).  Each does its mode's local solves (Cython), applies the
updates, computes the margins for the duality gap and counts its mode's
message bytes; the round loop that drives them is
:class:`skfed.multitask._protocol._RoundProtocol`.
"""

from types import SimpleNamespace

import numpy as np
from joblib import delayed
from scipy import linalg

from .._core._kernels import pairwise_kernel_fast
from .._core._multitask_fast import (
    Hinge,
    Logistic,
    Squared,
    SquaredHinge,
    local_solve_exact_nodes,
    local_solve_kernel_nodes,
    local_solve_linear,
    local_solve_linear_nodes,
    node_margins,
    update_state,
    update_states,
)
from .._base import NodeLayout
from ..kernels import kernel_params, pairwise_kernel
from ._compression import _FLOAT, _INDEX
from ._multiclass import quantize_rows, quantized_rows_bytes, rows_sent
from ._omega import (
    _CONJUGATE_COEFFICIENTS,
    _LowRankSigma,
    _blas_controller,
    _sigma_diag,
    conjugate_change,
    joint_objectives,
    line_search_step,
)


_LOSSES = {
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "logistic": Logistic,
    "squared": Squared,
}


# local_solver="auto": a node solves its subproblem exactly (projected
# Newton on its n_t x n_t Gram matrix, n_t^2 floats kept) when the loss has a
# quadratic conjugate, it holds at most this many samples (8 MB of Gram
# matrix) ...
_EXACT_MAX_SAMPLES = 1000


# ... and when n_t^2 <= this times local_epochs d' (the cost of a Gram
# factorization, about n_t^3 / 3, against a round of coordinate ascent,
# local_epochs n_t d' multiply-adds, within a factor of about 30).  Measured
# (omega="shared", linear, CPU s and rounds, exact / coordinate): School
# (n_t 83, d' 29, ratio 23) 0.2 s, 12 rounds / 12.6 s, not converged in
# 1,000; 1,000 synthetic nodes (n_t 30, d' 21, ratio 4, hinge) 0.37 s, 13
# / 0.45 s, 23; Landmine (n_t 357, d' 10, ratio 1,276) squared hinge 0.43
# s, 6 / 0.12 s, 15, hinge 6.5 s, 8 / 0.16 s, 26 (learned Omega, hinge:
# 35.7 s / 0.27 s).
_EXACT_COST_RATIO = 100.0


# ... or whatever that ratio when it holds at most this many samples: its
# factorization then costs at most 256^3 / 3 (6 million) multiply-adds, a few
# milliseconds, while an inexact local solve costs rounds.  School's largest
# schools (188 samples in 29 dimensions, ratio 122) ran coordinate ascent
# under the ratio alone, and the shared model took 171-419 rounds (1.3-3.2x
# the raw upload) instead of 12 (0.1x) with every node exact.
_EXACT_SMALL = 256


_EXACT_KIND = {"hinge": 0, "squared_hinge": 1, "squared": 2}


# Exact solver: stop at this projected gradient (margin units, relative to
# max(1, max |y|)), after at most this many Newton iterations.
_EXACT_TOL = 1e-10


_EXACT_MAX_ITER = 200


def _run_parallel(parallel, function, items):
    if parallel is None:
        return [function(*item) for item in items]
    return parallel(delayed(function)(*item) for item in items)


def _primal_node_solve(Z, sq_norms, Y, sw, g, W, c, steps, theta, loss, state):
    """One round of the local solver on one node (primal modes), by value.

    ``Z`` (n_t, d'), ``sq_norms`` (n_t,), ``Y`` and ``g`` (n_problems, n_t),
    ``sw`` (n_t,), ``W`` (n_problems, d') the node's model and ``state``
    its xorshift state (uint32 array of length 1).  Neither ``g`` nor
    ``state`` is modified: the node may run in another process (a Dask
    worker), so everything it changes is returned, as
    ``(dvs, deltas, g, state)``.
    """
    n_problems, n_t = Y.shape
    d = Z.shape[1]
    g = np.array(g, dtype=np.float64, order="C")
    state = np.array(state, dtype=np.uint32).reshape(1)
    dvs = np.zeros((n_problems, d))
    deltas = np.zeros((n_problems, n_t))
    work = np.empty(d)
    p = np.empty(n_t)
    perm = np.empty(n_t, dtype=np.intp)
    for k in range(n_problems):
        local_solve_linear(
            Z, sq_norms, Y[k], sw, g[k], W[k], dvs[k], deltas[k], work, p, c, loss,
            steps, theta, state, perm,
        )
    return dvs, deltas, g, state


def _primal_solve_chunk(Z, sq_norms, Y, sw, G, W, active, offsets, c, steps, theta, loss,
                        states, exact=None):
    """One round of a block of consecutive nodes (one task per worker), by value.

    The arrays hold the block's rows and nodes only (``active`` and
    ``offsets`` relative to its first node); ``G`` and ``states`` are not
    modified.  Returns ``(dV, deltas, G, states)``, the same numbers as
    :func:`_primal_node_solve` per node (one :func:`local_solve_linear_nodes`
    call for the block).
    """
    G = np.array(G, dtype=np.float64, order="C")
    states = np.array(states, dtype=np.uint32)
    dV = np.zeros((Y.shape[0], len(active), Z.shape[1]))
    deltas = np.zeros_like(G)
    local_solve_linear_nodes(Z, sq_norms, Y, sw, G, W, dV, deltas, active, offsets, c, steps,
                             theta, loss, states)
    if exact is not None:
        # (mask, gram, gram_offsets, kind, tol, features): the exact nodes,
        # whose coordinate-ascent steps are 0 above
        local_solve_exact_nodes(exact[5], exact[1], exact[2], Y, sw, G, W, dV, deltas, active,
                                offsets, c, exact[0], exact[3], exact[4], _EXACT_MAX_ITER)
    return dV, deltas, G, states


def _chunks(n_items, n_chunks):
    """Contiguous ``slice``s splitting ``range(n_items)`` into ``n_chunks`` parts."""
    n_chunks = max(1, min(n_items, n_chunks))
    bounds = np.linspace(0, n_items, n_chunks + 1).round().astype(int)
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


class _PrimalMessages:
    """The byte model's round messages of the primal modes (any engine's server).

    Server -> node t: ``w_t``; node t -> server: the change of ``v_t``
    (``n_problems`` vectors of ``d'`` values each way, quantized to
    ``bits`` bits a value when compressed); the ``Sigma`` information of a
    node is ``sigma_tt`` and ``rho``; at the end of the fit every node gets
    its final ``w_t`` in float64.  See :mod:`skfed.multitask._protocol`.

    Parameters
    ----------
    n_problems : int
    d : int
        ``d'``, the features with the intercept column.
    n_nodes : int
    bits : int, default=None
        Bits a value of the compressed messages (None: float64).
    """

    sigma_info_floats = 2
    multinomial = False  # K - 1 class rows travel (_multiclass.rows_sent)

    def __init__(self, n_problems, d, n_nodes, bits=None):
        self.n_problems = n_problems
        self.d = d
        self.m = n_nodes
        self.bits = bits

    def vector_bytes(self, compressed=True):
        """Bytes of one model vector or update (all binary problems)."""
        if self.bits is None or not compressed:
            return rows_sent(self) * self.d * _FLOAT
        return quantized_rows_bytes(self, self.d, self.bits)

    def downlink(self, active, sigma=None, flush=False):
        """Server -> active nodes: ``w_t``."""
        return np.full(len(active), self.vector_bytes(), dtype=np.int64)

    def uplink(self, active, results=None):
        """Active nodes -> server: the change of ``v_t`` (compressed
        ``results`` only: warm-start duals and private updates go out in
        float64)."""
        compressed = getattr(results, "dV_true", None) is not None
        return np.full(len(active), self.vector_bytes(compressed), dtype=np.int64)

    def final_delivery(self, sigma=None):
        """End of fit: every node's final ``w_t``, in float64."""
        payloads = np.full(self.m, rows_sent(self) * self.d * _FLOAT, dtype=np.int64)
        return np.arange(self.m, dtype=np.intp), payloads


class _PrimalState(_PrimalMessages):
    """Linear MOCHA: ``kernel="linear"`` and the approximate modes.

    The server keeps ``V`` (n_problems, m, d'); node t the features ``Z_t``.
    ``Sigma`` is a dense m x m array, or a :class:`_LowRankSigma` (linear
    mode with ``n_problems d' < m``).
    """

    def __init__(self, Z, Y, sw, g, layout, totals, seeds, dtype_bytes, exact=None,
                 loss_name=None, bits=None):
        # Float32 features (float32 data) are also kept as they are: they
        # halve the memory read by the margins and the exact solver, the
        # passes over Z of every round (their sums stay in float64, from the
        # same products); the coordinate solver runs on the float64 copy.
        self.Z_pass = Z if Z.dtype == np.float32 else None
        Z = np.ascontiguousarray(Z, dtype=np.float64)
        if self.Z_pass is None:
            self.Z_pass = Z
        self.Z = Z
        self.Y = Y
        self.sw = sw
        self.g = g
        self.layout = layout
        self.totals = totals
        self.states = np.array(seeds, dtype=np.uint32)  # one xorshift state per node
        self.n_problems, self.n = Y.shape
        self.m = layout.n_nodes
        self.d = Z.shape[1]
        self.V = np.zeros((self.n_problems, self.m, self.d))
        self.sq_norms = np.einsum("ij,ij->i", Z, Z, dtype=np.float64)
        self.dtype_bytes = dtype_bytes
        # Nodes solving their subproblem exactly keep their Gram matrix
        # Z_t Z_t^T (n_t^2 floats each), row-major, one block after another.
        m, counts = self.m, layout.counts
        self.exact = np.zeros(m, dtype=np.uint8) if exact is None else exact.astype(np.uint8)
        sizes = np.where(self.exact > 0, counts.astype(np.int64) ** 2, 0)
        self.gram_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self.grams = np.empty(int(self.gram_offsets[-1]))
        for t in np.flatnonzero(self.exact):
            sl = layout.node_slice(t)
            block = self.grams[self.gram_offsets[t]:self.gram_offsets[t + 1]]
            block[...] = (Z[sl] @ Z[sl].T).ravel()
        self.kind = _EXACT_KIND.get(loss_name, -1)
        scale = max(1.0, float(np.max(np.abs(Y)))) if Y.size else 1.0
        self.exact_tol = _EXACT_TOL * scale
        # compression: every round's w_t and Delta v_t travel as `bits`-bit
        # integers and one scale (:func:`quantize`).  Node t keeps the part
        # of its updates the server has not received, R[:, t] = n_t (v_t -
        # V[:, t]) (error feedback: it goes out with the next update), and
        # the model it holds, W_node[:, t], which the server knows too: it
        # sends the quantized difference between w_t and it.
        self.bits = bits
        if bits is not None:
            self.R = np.zeros_like(self.V)
            self.W_node = np.zeros_like(self.V)

    def weights(self, sigma, lam):
        if isinstance(sigma, _LowRankSigma):
            return sigma.apply(self.V) / lam
        return np.einsum("tu,kud->ktd", sigma, self.V) / lam

    def true_V(self):
        """``V`` of the dual variables (the server's ``V`` plus what the
        nodes have not sent yet)."""
        if getattr(self, "bits", None) is None:
            return self.V
        return self.V + self.R / self.totals[None, :, None]

    def node_models(self, active, sigma, lam):
        """The models the nodes solve with this round (after its downlink).

        Uncompressed: ``W = V Sigma / lambda``.  Compressed: an active node
        adds the quantized difference between the server's ``w_t`` and the
        model it holds (error feedback: what rounding left out is in the
        next round's difference)."""
        W = self.weights(sigma, lam)
        if self.bits is None:
            if getattr(self, "V_own", None) is not None:
                # privacy: node t solves with the server's w_t plus its own
                # exact share in place of its noisy one
                W = W + self.own_correction(sigma, lam)
            return W
        held = self.W_node[:, active]
        self.W_node[:, active] = held + quantize_rows(W[:, active] - held, self.bits, self)
        # node t adds its own unsent part, sigma_tt R_t / (n_t lambda), which
        # it knows (the other nodes' it does not)
        own = _sigma_diag(sigma) / (self.totals * lam)
        self.views = self.W_node + own[None, :, None] * self.R
        return self.views

    def _encode(self, results):
        """Compressed: replace the nodes' steps by what the server receives,
        ``quantize(dv_t + R_t)``, keeping the exact steps in ``dV_true``."""
        if self.bits is not None:
            results.dV_true = results.dV
            results.dV = quantize_rows(results.dV + self.R[:, results.active], self.bits, self)
        return results

    def quadratic_terms(self, sigma, lam):
        """Compressed: ``(<V, Sigma V>, <V~, Sigma V~>) / (2 lambda)`` for the
        server's ``V`` (the returned model's regularizer) and the dual
        variables' ``V~`` (the dual's quadratic term); None otherwise (they
        are equal and come from the margins)."""
        if self.bits is None:
            return None
        out = []
        for V in (self.V, self.true_V()):
            SV = sigma.apply(V) if isinstance(sigma, _LowRankSigma) else np.einsum(
                "tu,kud->ktd", sigma, V)
            out.append(float(np.vdot(V, SV)) / (2.0 * lam))
        return out

    def _round_exact(self, full):
        """The nodes solving exactly this round: the exact ones doing their full
        work (a straggler does its fraction of coordinate-ascent epochs)."""
        if full is None or not self.exact.any():
            return None
        return (self.exact & np.asarray(full, dtype=np.uint8)).astype(np.uint8)

    def _block(self, nodes, W, c, steps, theta, loss, exact=None):
        """Arguments of :func:`_primal_solve_chunk` for the active ``nodes`` (a
        run of increasing indices): the rows and nodes from the first to the last."""
        first, last = nodes[0], nodes[-1] + 1
        offsets = self.layout.offsets
        lo, hi = offsets[first], offsets[last]
        return (
            self.Z[lo:hi], self.sq_norms[lo:hi], np.ascontiguousarray(self.Y[:, lo:hi]),
            self.sw[lo:hi], np.ascontiguousarray(self.g[:, lo:hi]),
            np.ascontiguousarray(W[:, first:last]), (nodes - first).astype(np.intp),
            (offsets[first:last + 1] - lo).astype(np.intp), c[first:last], steps[first:last],
            theta, loss, self.states[first:last],
            None if exact is None else (
                exact[first:last],
                self.grams[self.gram_offsets[first]:self.gram_offsets[last]],
                self.gram_offsets[first:last + 1] - self.gram_offsets[first],
                self.kind, self.exact_tol, self.Z_pass[lo:hi],
            ),
        )

    def solve(self, active, steps, c, sigma, lam, theta, loss, parallel, n_chunks=1, full=None):
        """Solve the active nodes' subproblems; write ``g`` and the RNG states back.

        ``full`` (n_nodes,) bool: the nodes doing their full work this round;
        those of them marked exact solve their subproblem to optimality
        (:func:`local_solve_exact_nodes`), the others run coordinate ascent.

        The block solves are pure (:func:`_primal_solve_chunk`), so they may
        run on any joblib backend, Dask worker processes included; with
        ``parallel`` they go out as ``n_chunks`` blocks of consecutive nodes
        (one task per worker and round).  Results never depend on the
        chunking: every node has its own seed, and the new dual variables
        and states are written back in node order.  Serially, all nodes run
        in one Cython call (:func:`local_solve_linear_nodes`, the same
        solver, bit-identical results).
        """
        W = self.node_models(active, sigma, lam)
        c = np.asarray(c, dtype=np.float64)
        steps = np.asarray(steps, dtype=np.intp)
        exact = self._round_exact(full)
        if exact is not None:
            steps = np.where(exact > 0, 0, steps)
        if parallel is None or len(active) <= 1:
            dV = np.zeros((self.n_problems, len(active), self.d))
            deltas = np.zeros_like(self.g)
            local_solve_linear_nodes(
                self.Z, self.sq_norms, self.Y, self.sw, self.g, W, dV, deltas, active,
                self.layout.offsets, c, steps, theta, loss, self.states,
            )
            if exact is not None:
                local_solve_exact_nodes(
                    self.Z_pass, self.grams, self.gram_offsets, self.Y, self.sw, self.g, W, dV,
                    deltas, active, self.layout.offsets, c, exact, self.kind, self.exact_tol,
                    _EXACT_MAX_ITER,
                )
            return self._encode(_PrimalResults(active, dV, deltas, self.layout))
        blocks = [active[sl] for sl in _chunks(len(active), n_chunks)]
        results = _run_parallel(
            parallel, _primal_solve_chunk,
            [self._block(nodes, W, c, steps, theta, loss, exact) for nodes in blocks],
        )
        deltas = np.zeros_like(self.g)
        offsets = self.layout.offsets
        for nodes, (_, block_deltas, g, states) in zip(blocks, results):
            lo, hi = offsets[nodes[0]], offsets[nodes[-1] + 1]
            self.g[:, lo:hi] = g
            deltas[:, lo:hi] = block_deltas
            self.states[nodes[0]:nodes[-1] + 1] = states
        dV = np.concatenate([result[0] for result in results], axis=1)
        return self._encode(_PrimalResults(active, dV, deltas, self.layout))

    def line_search(self, active, results, g_before, sigma, lam, loss_name):
        """The server's exact step along the round's combined direction.

        ``results`` holds the active nodes' full local steps and ``self.g``
        their dual variables after them (``g_before``: before).  Scales
        both, per binary problem, by the step ``s`` in [0, 1] of
        :func:`line_search_step` (from ``dV``, which the server receives,
        its ``V`` and the nodes' conjugate coefficients,
        :func:`conjugate_change`, ``loss_name`` its loss), and returns ``(s, ratio)``: ``s`` of
        shape (n_problems,) and the coupling ratio ``<dV, Sigma dV> / sum_t
        sigma_tt ||dv_t||^2`` of the full steps (1 for a diagonal Sigma, at
        most ``rho``), the scaling the nodes use next round.
        """
        dV = np.zeros((self.n_problems, self.m, self.d))
        dV[:, active] = results.dV / self.totals[active][None, :, None]
        SdV = sigma.apply(dV) if isinstance(sigma, _LowRankSigma) else np.einsum(
            "tu,kud->ktd", sigma, dV)
        if results.dV_true is None:
            cross = np.einsum("ktd,ktd->k", SdV, self.V)  # <dV, Sigma V>
        else:
            # Compressed: the server's V and the quantized steps miss the
            # nodes' residuals (first order in the slope), so each node
            # sends its own term lambda <dv_t / n_t, w_t> (one float per
            # problem) from its exact step and the model it solved with.
            own = results.dV_true / self.totals[active][None, :, None]
            cross = lam * np.einsum("ktd,ktd->k", own, self.views[:, active])
        curvature = np.einsum("ktd,ktd->k", SdV, dV)  # <dV, Sigma dV>
        separable = float(np.einsum("t,ktd,ktd->", _sigma_diag(sigma), dV, dV))
        linear, quadratic = conjugate_change(
            loss_name, self.Y, self.sw, g_before, self.g - g_before,
            self.sw / np.repeat(self.totals, self.layout.counts),
        )
        steps = line_search_step(linear, quadratic, cross, curvature, lam)
        self.g[...] = g_before + steps[:, None] * (self.g - g_before)
        results.dV *= steps[:, None, None]
        if results.dV_true is not None:
            results.dV_true = results.dV_true * steps[:, None, None]
        results.deltas *= steps[:, None]
        ratio = float(curvature.sum()) / separable if separable > 0.0 else 1.0
        return steps, ratio

    def start_private(self):
        """A private fit: the server's ``V`` is the sum of the nodes' noisy
        releases, and every node also keeps its exact ``v_t`` (``V_own``),
        which it never sends."""
        self.V_own = np.zeros_like(self.V)

    def own_correction(self, sigma, lam):
        """``sigma_tt (v_t - v~_t) / lambda`` per node: what node t adds to the
        server's ``w_t`` to use its own exact share (zero without privacy)."""
        if getattr(self, "V_own", None) is None:
            return 0.0
        own = _sigma_diag(sigma) / lam
        return own[None, :, None] * (self.V_own - self.V)

    def apply(self, active, results, parallel):
        # results: _PrimalResults, _PrivateRelease, or (dvs, deltas) per
        # active node (any sequence)
        if isinstance(results, _PrivateRelease):
            # the server adds the released change of v_t as it is (it never
            # sees n_t); the node adds its exact change to its own copy
            self.V[:, active, :] += results.released
            self.V_own[:, active, :] += results.dV / self.totals[active][None, :, None]
            return
        if isinstance(results, _PrimalResults):
            dV = results.dV
            if results.dV_true is not None:
                # what the server did not receive stays with the node
                self.R[:, active] += results.dV_true - dV
        else:
            dV = np.stack([dvs for dvs, _ in results], axis=1)
        self.V[:, active, :] += dV / self.totals[active][None, :, None]

    def margins(self, sigma, lam):
        W = self.weights(sigma, lam)
        out = np.empty((self.n_problems, self.n))
        if isinstance(sigma, _LowRankSigma) or self.Z_pass is not self.Z:
            node_margins(self.Z_pass, np.ascontiguousarray(W), self.layout.offsets, out)
            return out
        for t in range(self.m):
            sl = self.layout.node_slice(t)
            out[:, sl] = W[:, t, :] @ self.Z[sl].T
        return out

    def gram(self):
        return np.einsum("ktd,kud->tu", self.V, self.V)

    def omega_exchange(self, active, sigma):
        """Gram matrix for the Omega step, and the bytes it costs (none)."""
        return self.gram(), None

    def _stacked(self, A):
        """(n_problems, m, d) -> (m, n_problems d): ``A^T A`` summed over problems."""
        return A.transpose(1, 0, 2).reshape(self.m, -1)

    def low_rank_omega_update(self, sigma, lam):
        """The Omega step from ``W`` itself, ``O(m (n_problems d')^2)``, no m x m array."""
        return _LowRankSigma.omega_update(self._stacked(self.weights(sigma, lam)))

    def low_rank_joint_objectives(self, primal, dual, sigma, lam):
        """:func:`joint_objectives` without ``G``: ``tr(Sigma G) = <V, Sigma V>``,
        ``lambda_max(G)`` and the trace norm of ``W`` from two thin SVDs."""
        SV = sigma.apply(self.V)
        half_cross = float(np.vdot(self.V, SV)) / (2.0 * lam)
        V_dual = self.true_V()  # the dual's V (the server's one without compression)
        half_dual = half_cross if V_dual is self.V else float(
            np.vdot(V_dual, sigma.apply(V_dual))) / (2.0 * lam)
        with _blas_controller().limit(limits=1, user_api="blas"):
            top = linalg.svd(self._stacked(V_dual), compute_uv=False)
            trace_norm = float(linalg.svd(self._stacked(SV / lam), compute_uv=False).sum())
        top = float(top[0]) ** 2 if top.size else 0.0
        return (primal - half_cross + 0.5 * lam * trace_norm**2,
                dual + half_dual - top / (2.0 * lam))

    def compressed_joint_objectives(self, primal, dual, sigma, lam):
        """Compressed, dense ``Sigma``: :func:`joint_objectives` with the
        server's ``G`` for the primal (the returned model) and the dual
        variables' ``G`` for the dual."""
        V_dual = self.true_V()
        return (joint_objectives(primal, dual, self.gram(), sigma, lam)[0],
                joint_objectives(primal, dual, np.einsum("ktd,kud->tu", V_dual, V_dual),
                                 sigma, lam)[1])

class _PrimalResults:
    """The serial round's output: ``dV`` (n_problems, n_active, d') and the
    changes of ``alpha`` (n_problems, n), with ``results[i] = (dvs, deltas)``
    of the i-th active node for code that wants it node by node."""

    def __init__(self, active, dV, deltas, layout):
        self.active, self.dV, self.deltas, self.layout = active, dV, deltas, layout
        self.dV_true = None  # compressed: the exact steps (dV is what the server got)

    def __len__(self):
        return len(self.active)

    def __getitem__(self, i):
        return self.dV[:, i, :], self.deltas[:, self.layout.node_slice(self.active[i])]

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class _PrivateRelease:
    """A private round's output (primal modes): what the server receives,
    ``released`` (n_problems, n_active, d'), the active nodes' clipped and
    noised changes of ``v_t`` (not scaled by ``n_t``), and the exact steps
    ``dV`` (unnormalized, as in :class:`_PrimalResults`), which stay on the
    nodes."""

    dV_true = None  # never compressed

    def __init__(self, active, released, dV, deltas):
        self.active, self.released, self.dV, self.deltas = active, released, dV, deltas

    def __len__(self):
        return len(self.active)


class _KernelState:
    """Exact kernel mode: support-vector exchange through the server."""

    def __init__(self, X, Y, sw, g, layout, totals, seeds, spec, bias, needed,
                 dtype_bytes, parallel, capacity=None):
        self.X = X
        # capacity[u]: at most this many received kernel rows cached on node
        # u (None: unbounded); rows beyond it are recomputed when used.
        self.capacity = capacity
        self.Y = Y
        self.sw = sw
        self.g = g
        self.layout = layout
        self.totals = totals
        self.states = np.array(seeds, dtype=np.uint32)  # one xorshift state per node
        self.spec = spec
        self.bias = bias
        self.needed = needed  # needed[t, u]: node u needs node t's changes
        self.n_problems, self.n = Y.shape
        self.m = layout.n_nodes
        self.d = X.shape[1]
        self.dtype = X.dtype
        self.dtype_bytes = dtype_bytes
        self.sigma_info_floats = self.m + 1
        self.node_of = np.repeat(np.arange(self.m), layout.counts)
        # Own kernel blocks (the local subproblems) and states S_u.
        self.blocks = _run_parallel(
            parallel, self._own_block, [(t,) for t in range(self.m)]
        )
        self.S = [
            np.zeros((self.n_problems * self.m, layout.counts[u])) for u in range(self.m)
        ]
        # Kernel rows of received support vectors, per receiving node.
        self.slot = np.full((self.m, self.n), -1, dtype=np.intp)
        self.cache = [np.empty((0, layout.counts[u]), dtype=self.dtype) for u in range(self.m)]
        self.n_slots = np.zeros(self.m, dtype=np.intp)
        # Protocol bookkeeping (bytes only).
        self.server_has = np.zeros(self.n, dtype=bool)
        self.node_has = np.zeros((self.m, self.n), dtype=bool)
        for u in range(self.m):
            self.node_has[u, layout.node_slice(u)] = True
        self.pending = np.zeros((self.m, self.n), dtype=bool)
        self._arrays = None  # the last uplink's changes (see _changes)
        self._version = 0  # counts the state updates (see margins)
        self._margins = None

    @classmethod
    def server_side(cls, counts, n_problems, d, dtype_bytes, totals):
        """The server's part of the state, without data: the byte model's
        bookkeeping of which vectors and changes each endpoint holds
        (:meth:`downlink`, :meth:`uplink`, :attr:`_changes`), for an engine
        whose nodes hold the data (Flower)."""
        bk = cls.__new__(cls)
        m = len(counts)
        n = int(np.sum(counts))
        bk.m, bk.n, bk.n_problems, bk.d = m, n, n_problems, d
        bk.dtype_bytes = dtype_bytes
        bk.totals = totals
        bk.sigma_info_floats = m + 1
        bk.node_of = np.repeat(np.arange(m), counts)
        bk.layout = SimpleNamespace(
            offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        )
        bk.server_has = np.zeros(n, dtype=bool)
        bk.node_has = np.zeros((m, n), dtype=bool)
        for u in range(m):
            bk.node_has[u, bk.layout.offsets[u]:bk.layout.offsets[u + 1]] = True
        bk.pending = np.zeros((m, n), dtype=bool)
        return bk

    def kernel(self, A, B, out):
        """``out = k(A, B) + bias^2`` (out is C-contiguous)."""
        if self.spec.is_callable:
            out[...] = pairwise_kernel(A, B, kernel=self.spec)
        else:
            kind, gamma, coef0, degree = kernel_params(self.spec)
            pairwise_kernel_fast(A, B, kind, gamma, coef0, degree, out)
        if self.bias:
            out += self.bias * self.bias

    def _own_block(self, t):
        Xt = self.X[self.layout.node_slice(t)]
        out = np.empty((Xt.shape[0], Xt.shape[0]), dtype=self.dtype)
        if self.spec.is_callable:
            out[...] = pairwise_kernel(Xt, kernel=self.spec)
        else:
            kind, gamma, coef0, degree = kernel_params(self.spec)
            pairwise_kernel_fast(Xt, Xt, kind, gamma, coef0, degree, out)
        if self.bias:
            out += self.bias * self.bias
        return out

    # -- protocol
    def downlink(self, active, sigma, flush=False):
        entry = _INDEX + self.n_problems * _FLOAT
        # sent[a, j]: receiver active[a] gets sample j's pending change (all of
        # them on a flush, else those whose sigma with j's node is non-zero).
        # (Every node active: slices, not copies.)
        rows = slice(None) if len(active) == self.m else active
        sent = self.pending[rows]
        linked = sigma[:, active] != 0
        if not (flush or linked.all()):
            sent = sent & linked[self.node_of].T
        new = sent & ~self.node_has[rows]
        payloads = (np.count_nonzero(sent, axis=1) * entry
                    + np.count_nonzero(new, axis=1) * self.d * self.dtype_bytes).astype(np.int64)
        self.node_has[rows] |= new
        self.pending[rows] &= ~sent
        return payloads

    # -- local work
    def margins(self, sigma, lam):
        """Every node's margins ``f_t = sigma_t S_t / lambda``.

        The last result is kept until the states or ``Sigma`` change: the
        round's local solves start from the margins the gap was computed on.
        (Computed node by node as a deployed node does, so the Flower engine
        gets the same numbers bit for bit.)
        """
        last = self._margins
        if last is not None and last[0] is sigma and last[1] == lam and last[2] == self._version:
            return last[3]
        out = np.empty((self.n_problems, self.n))
        for t in range(self.m):
            S = self.S[t].reshape(self.n_problems, self.m, -1)
            out[:, self.layout.node_slice(t)] = np.einsum("u,kui->ki", sigma[t], S) / lam
        self._margins = (sigma, lam, self._version, out)
        return out

    def solve(self, active, steps, c, sigma, lam, theta, loss, parallel, n_chunks=1):
        """Every active node's local solve, from the margins (one Cython call,
        or one per block of nodes on threads): updates ``g`` and the RNG
        states in place, returns each active node's change of ``alpha``."""
        active = np.asarray(active, dtype=np.intp)
        local_view = self.margins(sigma, lam).copy()
        deltas = np.zeros((self.n_problems, self.n))
        c = np.asarray(c, dtype=np.float64)
        steps = np.asarray(steps, dtype=np.intp)
        args = (self.Y, self.sw, self.g, local_view, deltas)
        tail = (self.layout.offsets, c, steps, theta, loss, self.states)
        if parallel is None or active.size <= 1:
            local_solve_kernel_nodes(self.blocks, *args, active, *tail)
        else:
            # Shared-memory threads only (see _BaseMultiTask._parallel_context).
            _run_parallel(parallel, local_solve_kernel_nodes,
                          [(self.blocks, *args, active[sl], *tail)
                           for sl in _chunks(active.size, n_chunks)])
        return [deltas[:, self.layout.node_slice(t)] for t in active]

    def uplink(self, active, results):
        entry = _INDEX + self.n_problems * _FLOAT
        self._arrays = None
        if len(active) == 0:
            return np.zeros(0, dtype=np.int64)
        # All active nodes at once: their samples (node order) and changes.
        active = np.asarray(active, dtype=np.intp)
        offsets = self.layout.offsets
        counts = (offsets[active + 1] - offsets[active]).astype(np.intp)
        pos = np.repeat(offsets[active] - np.cumsum(counts) + counts, counts)
        pos += np.arange(pos.size)
        D = np.concatenate([np.reshape(r, (self.n_problems, -1)) for r in results], axis=1)
        which = np.repeat(np.arange(len(active)), counts)  # active index of each column
        nz = D != 0
        changed = np.any(nz, axis=0)
        idx = pos[changed]
        fresh = ~self.server_has[idx]
        self.server_has[idx[fresh]] = True
        payloads = (np.bincount(which[changed], minlength=len(active)) * entry
                    + np.bincount(which[changed][fresh], minlength=len(active))
                    * self.d * self.dtype_bytes).astype(np.int64)
        if idx.size:
            # Every other node now has these changes pending (one scatter).
            self.pending[:, idx] = True
            self.pending[self.node_of[idx], idx] = False
        k, j = np.nonzero(nz)
        src = self.node_of[pos[j]]
        self._arrays = (src, k * self.m + src, pos[j], D[k, j] / self.totals[src])
        return payloads

    @property
    def _changes(self):
        """The last uplink's changes as ``(t, k, indices, dalpha / W_t)``, node by node."""
        if self._arrays is None:
            return []
        src, rows, idx, coefs = self._arrays
        out = []
        order = np.lexsort((idx, rows // self.m, src))
        src, rows, idx, coefs = src[order], rows[order], idx[order], coefs[order]
        cuts = np.flatnonzero(np.diff(rows)) + 1
        for s_, r_, i_, c_ in zip(*(np.split(a, cuts) for a in (src, rows, idx, coefs))):
            out.append((int(s_[0]), int(r_[0] // self.m), i_, c_))
        return out

    # -- state update
    def _update_node(self, u, src, rows, idx, coefs):
        own = src == u
        if np.any(own):
            update_state(
                self.blocks[u], idx[own] - self.layout.offsets[u], rows[own], coefs[own],
                self.S[u],
            )
        other = (~own) & self.needed[src, u]
        if not np.any(other):
            return
        slots = self.slot[u, idx[other]]
        cached = slots >= 0
        if cached.all():
            update_state(self.cache[u], slots, rows[other], coefs[other], self.S[u])
            return
        if cached.any():
            update_state(self.cache[u], slots[cached], rows[other][cached],
                         coefs[other][cached], self.S[u])
        # Over the cache bound: the kernel rows are recomputed for this round.
        missing, where = np.unique(idx[other][~cached], return_inverse=True)
        block = np.empty((missing.size, self.layout.counts[u]), dtype=self.dtype)
        self.kernel(np.ascontiguousarray(self.X[missing]),
                    self.X[self.layout.node_slice(u)], block)
        update_state(block, where.astype(np.intp).ravel(), rows[other][~cached],
                     coefs[other][~cached], self.S[u])

    def _fill_cache(self, u, new, rows):
        """Kernel rows of the support vectors ``new`` (data ``rows``) on node u."""
        count = new.size
        start = self.n_slots[u]
        if start + count > self.cache[u].shape[0]:
            capacity = max(2 * self.cache[u].shape[0], start + count, 16)
            if self.capacity is not None:
                capacity = min(capacity, self.capacity[u])
            grown = np.empty((capacity, self.cache[u].shape[1]), dtype=self.dtype)
            grown[:start] = self.cache[u][:start]
            self.cache[u] = grown
        self.kernel(rows, self.X[self.layout.node_slice(u)], self.cache[u][start : start + count])
        self.slot[u, new] = np.arange(start, start + count)
        self.n_slots[u] = start + count

    def apply(self, active, results, parallel):
        if self._arrays is None or not self._arrays[0].size:
            return
        self._version += 1
        src, rows, idx, coefs = self._arrays
        # New kernel rows each receiving node needs (decided here, in a fixed
        # order, so results never depend on n_jobs).
        order = np.argsort(idx, kind="stable")
        cand = idx[order]
        cand_src = src[order]
        keep = np.ones(cand.size, dtype=bool)
        keep[1:] = cand[1:] != cand[:-1]
        cand, cand_src = cand[keep], cand_src[keep]
        # The rows are gathered once; a node that needs all of them (the
        # usual case) gets the gathered block itself.
        nodes = np.arange(self.m)
        masks = list(
            (cand_src[None, :] != nodes[:, None]) & self.needed[cand_src].T
            & (self.slot[:, cand] < 0)
        )
        if self.capacity is not None:
            for u, mask in enumerate(masks):
                # The first rows up to the bound are cached, the rest recomputed.
                free = max(int(self.capacity[u] - self.n_slots[u]), 0)
                mask[np.flatnonzero(mask)[free:]] = False
        union = np.any(masks, axis=0) if masks else np.zeros(0, dtype=bool)
        gathered = np.ascontiguousarray(self.X[cand[union]])
        jobs = []
        for u, mask in enumerate(masks):
            if not mask.any():
                continue
            inside = mask[union]
            block = gathered if inside.all() else np.ascontiguousarray(gathered[inside])
            jobs.append((u, cand[mask], block))
        _run_parallel(parallel, self._fill_cache, jobs)
        # Every receiving node adds the changes it holds the vectors of (one
        # Cython call, or one per block of nodes in parallel); a node with
        # rows over its cache bound recomputes them (_update_node).
        held = self.needed[src].T & (src[None, :] != nodes[:, None])
        slots = np.where(held, self.slot[:, idx], -1)
        over = np.any(held & (slots < 0), axis=1)
        local = idx - self.layout.offsets[src]
        fast = np.flatnonzero(~over).astype(np.intp)
        blocks = [fast] if parallel is None else [fast[sl] for sl in _chunks(fast.size, self.m)]
        _run_parallel(
            parallel, update_states,
            [(self.blocks, self.cache, self.S, b, src, local, rows, coefs, slots)
             for b in blocks if b.size],
        )
        _run_parallel(
            parallel, self._update_node,
            [(u, src, rows, idx, coefs) for u in np.flatnonzero(over)],
        )
        self._arrays = None

    def gram_rows(self):
        """``G[t, u] = sum_k sum_i alpha_kti S_t[k, u, i] / n_t`` (exact)."""
        G = np.zeros((self.m, self.m))
        for t in range(self.m):
            sl = self.layout.node_slice(t)
            alpha = self.g[:, sl] * self.sw[sl]
            S = self.S[t].reshape(self.n_problems, self.m, -1)
            G[t] = np.einsum("ki,kui->u", alpha, S) / self.totals[t]
        return G

    def gram(self):
        G = self.gram_rows()
        return 0.5 * (G + G.T)

    def omega_exchange(self, active, sigma):
        """The Gram matrix for the Omega step, and the bytes of the exchange.

        Participating nodes first get every pending change, then report
        their G row.  The entries of dropped nodes (their diagonal, and the
        pairs of two dropped nodes) the server computes itself from the
        support vectors and dual changes it relayed, so the step is exact.
        """
        down = self.downlink(active, sigma, flush=True)
        up = np.full(len(active), self.m * _FLOAT, dtype=np.int64)
        return self.gram(), (down, up)

    def final_delivery(self, sigma):
        everyone = np.arange(self.m, dtype=np.intp)
        return everyone, self.downlink(everyone, sigma)


def exact_mode_bytes(n, d, m, n_problems, dtype_bytes, rounds, omega_steps, header=16):
    """Upper bound on the bytes of the exact kernel mode (dense ``Sigma``).

    Every training row travels at most once to the server and once to each
    other node (``m n d`` values); every round every node sends the changes
    of its dual variables (an index and ``n_problems`` floats each) and the
    server relays each change to every other node (``m n`` entries a round
    at most); each Omega step sends every node its ``Sigma`` row (``m + 1``
    floats) and takes its row of ``G`` (``m`` floats); and every message
    carries a ``header`` and at most a few floats of gap terms, line-search
    coefficients and steps.  ``rounds`` and ``omega_steps`` as counted by the
    fit (``n_iter_``; the Omega steps at most ``rounds``).
    """
    entry = _INDEX + n_problems * _FLOAT
    search = max(_CONJUGATE_COEFFICIENTS.values()) + 1
    rows = m * n * d * dtype_bytes
    changes = rounds * m * n * entry
    sigma = (omega_steps + 1) * m * (m + 1) * _FLOAT
    omega = omega_steps * m * (m * _FLOAT + 2 * header)
    per_round = rounds * m * (2 * header + (4 + (search + 1) * n_problems) * _FLOAT)
    setup_final = m * (3 * header + (4 + n_problems) * _FLOAT)
    return int(rows + changes + sigma + omega + per_round + setup_final)


def _drop_zero_weight_rows(X, Y, sample_weight, layout):
    """Node-ordered data without its zero-weight rows (absent rows: they set
    no kernel width, no sample count, no landmark and are never sent).

    The returned layout's ``order`` still maps rows to the training ``X``
    (``support_``).  Data with a negative weight or a node without a positive
    weight are returned as they are, for ``_fit`` to refuse.
    """
    if sample_weight is None:
        return X, Y, sample_weight, layout
    sw = np.asarray(sample_weight)
    keep = sw > 0
    if keep.all() or (sw < 0).any():
        return X, Y, sample_weight, layout
    kept_counts = np.add.reduceat(keep.astype(np.intp), layout.offsets[:-1])
    kept_counts[layout.counts == 0] = 0
    if np.any(kept_counts == 0):
        return X, Y, sample_weight, layout
    kept = NodeLayout(np.repeat(np.arange(layout.n_nodes), kept_counts), layout.n_nodes)
    kept.order = layout.order[keep]
    return X[keep], np.ascontiguousarray(Y[:, keep]), sw[keep], kept
