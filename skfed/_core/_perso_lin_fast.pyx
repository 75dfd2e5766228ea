# Node solvers of the personalized linear models (Perso-lin), for
# ``skfed.boosting``: every node's local objective F_k(theta) =
# (1 / m_k) sum_i s_i loss(y_i theta.x_i) + l2 penalty, learned alone
# (``lin_local``, ``lin_local_solve``) or together over the graph
# (``lin_async``: eq. 1 of Zantedeschi, Bellet & Tommasi, AISTATS 2020, with
# F_k in place of Dada's log-sum-exp), and a node that joins after the fit
# (``lin_join``).  Split from ``_boosting_fast`` (issue 30: no module over
# 1,000 lines), which re-exports every function here.
#
# Several binary problems (one-vs-rest) share the same graph: every array
# with a leading ``P`` axis holds one problem per row.  Python allocates
# every array and validates every argument; these functions only compute.
# ``# IN`` arrays are read, ``# IN/OUT`` arrays are updated in place,
# ``# OUT`` arrays are written.

from libc.math cimport exp, log, log1p, fabs, rint, sqrt, INFINITY
from cython cimport floating

import numpy as np

from ._boosting_base cimport LossFunction, _budget_spent, _neighbour_sum, _reg_terms
from ._comm cimport CommCounter
from ._random cimport rand_int, rand_uniform
from ._typedefs cimport int64_t, intp_t, uint8_t, uint32_t



# ------------------------------------------------------------------ Perso-lin
# Gradients are clamped to +-2^50 grid steps before rounding (a clamp never
# increases a sensitivity; below 2^50 steps the rounding of ``g / step`` is
# at most 1/8 of a step, inside the half step of floating-point error that
# ``skfed._secure_noise.grid_l2_sensitivity`` allows).
cdef double _GRID_LIMIT = 1125899906842624.0


cdef inline double _on_grid(double value, double step, int64_t z) noexcept nogil:
    """``step * (round(value / step) + z)``: a grid release (see ``skfed._secure_noise``)."""
    cdef double q = rint(value / step)
    if q > _GRID_LIMIT:
        q = _GRID_LIMIT
    elif q < -_GRID_LIMIT:
        q = -_GRID_LIMIT
    return step * (q + <double>z)


cdef double _lin_node_loss(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    const floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double* grad, const double* row_norm=NULL, double clip=0.0,
) noexcept nogil:
    """``F_k(theta) = inv_mass sum_i s_i loss(y_i theta.x_i) + l2/2 ||theta_pen||^2``.

    Also writes its gradient into ``grad`` when ``grad`` is not NULL; with
    ``clip > 0`` each sample's term ``loss'(y_i z_i) y_i x_i`` of the
    gradient is clipped to l2 norm ``clip`` (``row_norm[i] = ||x_i||``).
    """
    cdef intp_t n = X.shape[1], i, j
    cdef double f = 0.0, z, y, coef, v, gnorm
    if grad != NULL:
        for j in range(n):
            grad[j] = 0.0
    for i in range(start, end):
        if sw[i] > 0:
            z = 0.0
            for j in range(n):
                z += theta[k, p, j] * X[i, j]
            y = Y[p, i]
            f += sw[i] * loss.loss(y * z)
            if grad != NULL:
                coef = inv_mass * sw[i] * loss.dloss(y * z) * y
                if clip > 0.0:
                    gnorm = fabs(loss.dloss(y * z)) * row_norm[i]
                    if gnorm > clip:
                        coef *= clip / gnorm
                for j in range(n):
                    grad[j] += coef * X[i, j]
    f *= inv_mass
    for j in range(n_penalized):
        v = theta[k, p, j]
        f += 0.5 * l2 * v * v
        if grad != NULL:
            grad[j] += l2 * v
    return f


cdef void _lin_grad(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    const floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized, double* grad,
) noexcept nogil:
    """``grad F_k(theta)`` of problem p into ``grad``: the gradient
    :func:`_lin_node_loss` writes, term by term in its order (so the same
    bits), without the loss value (a step needs only the gradient; the
    logistic loss's ``log1p`` and second ``exp`` per sample were about half
    of a step's time).  Used by the local solve and the newcomers' batched
    join steps (``_join_fast``)."""
    cdef intp_t n = X.shape[1], i, j
    cdef double z, y, coef
    for j in range(n):
        grad[j] = 0.0
    for i in range(start, end):
        if sw[i] > 0:
            z = 0.0
            for j in range(n):
                z += theta[k, p, j] * X[i, j]
            y = Y[p, i]
            coef = inv_mass * sw[i] * loss.dloss(y * z) * y
            for j in range(n):
                grad[j] += coef * X[i, j]
    for j in range(n_penalized):
        grad[j] += l2 * theta[k, p, j]


def lin_losses(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    const floating[:, :, ::1] theta,   # IN (n_nodes, P, n_features)
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,) 1 / sum of the node's weights
    double l2,
    intp_t n_penalized,
    double[:, ::1] out,                # OUT (n_nodes, P)
):
    """Per-node losses ``F_k(theta_k)`` of every problem."""
    cdef intp_t K = offsets.shape[0] - 1, P = Y.shape[0], k, p
    with nogil:
        for k in range(K):
            for p in range(P):
                out[k, p] = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k,
                                           theta, loss, inv_mass[k], l2, n_penalized, NULL)


cdef void _lin_node_step(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double loss_weight, double mu, double dk, const double* S, double lipschitz,
    double* grad, double step=0.0, const int64_t* z=NULL,
    const double* row_norm=NULL, double clip=0.0,
) noexcept nogil:
    """Block gradient step of node k: ``theta_k -= grad_k / L_k``.

    ``grad_k = d_k c_k grad F_k(theta_k) + mu (d_k theta_k - sum_l w_kl theta_l)``
    and ``L_k = d_k c_k L_F + mu d_k`` (``lipschitz``).  With ``step > 0``
    (privacy) ``grad F_k`` has its per-sample terms clipped to ``clip`` and
    is released on the grid of ``step`` with the pre-drawn discrete Gaussian
    integers ``z`` (one per coordinate): ``step (round(g / step) + z)``.
    """
    cdef intp_t n = X.shape[1], j
    _lin_node_loss(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized, grad,
                   row_norm, clip)
    if step > 0.0:
        for j in range(n):
            grad[j] = _on_grid(grad[j], step, z[j])
    for j in range(n):
        grad[j] = loss_weight * grad[j]
        if mu != 0.0:
            grad[j] += mu * (dk * theta[k, p, j] - S[j])
        theta[k, p, j] = <floating>(theta[k, p, j] - grad[j] / lipschitz)


cdef intp_t _agd_solve(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double loss_weight, double mu, double dk, const double* S,
    const double* sc, const double* step, double limit, double tol, intp_t max_iter,
    double* grad, double* x, double* yv, double* prev, bint from_start=True,
) noexcept nogil:
    """Accelerated gradient with gradient restart on ``G(theta) = c F_k(theta)
    + (mu / 2)(d_k ||theta||^2 - 2 theta . S)`` (``c = loss_weight``; ``mu =
    0``: ``c F_k``, S unread), from ``theta_k``, steps ``step_j g_j``, until
    ``max_j |sc_j g_j|`` is at most ``limit`` and (``from_start``) at most
    ``tol`` times its value at the start (``limit < 0``: the latter only), or after
    ``max_iter`` iterations (then ``theta_k`` is the last ``x``).  The loop of ``lin_local_solve`` (see there) and of
    ``_lin_block_solve``.  Returns the iterations taken."""
    cdef intp_t n = X.shape[1], j, it = 0
    cdef double t = 1.0, t_next, beta, gmax, uphill, xn
    for j in range(n):
        x[j] = theta[k, p, j]
        yv[j] = x[j]
    while it < max_iter:
        for j in range(n):
            theta[k, p, j] = <floating>yv[j]
        _lin_grad(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized, grad)
        gmax = 0.0
        for j in range(n):
            grad[j] = loss_weight * grad[j]
            if mu != 0.0:
                grad[j] += mu * (dk * yv[j] - S[j])
            if fabs(sc[j] * grad[j]) > gmax:
                gmax = fabs(sc[j] * grad[j])
        if it == 0 and (limit < 0.0 or (from_start and tol * gmax < limit)):
            limit = tol * gmax
        if gmax <= limit:
            for j in range(n):
                x[j] = yv[j]
            break
        uphill = 0.0
        for j in range(n):
            xn = yv[j] - step[j] * grad[j]
            uphill += grad[j] * (xn - x[j])
            prev[j] = x[j]
            x[j] = xn
        it += 1
        if uphill > 0.0:
            t = 1.0
            for j in range(n):
                yv[j] = x[j]
        else:
            t_next = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t))
            beta = (t - 1.0) / t_next
            for j in range(n):
                yv[j] = x[j] + beta * (x[j] - prev[j])
            t = t_next
    for j in range(n):
        theta[k, p, j] = <floating>x[j]
    return it


cdef intp_t _lin_block_solve(
    const floating[:, ::1] X, const floating[:, ::1] Y, const floating[::1] sw,
    intp_t start, intp_t end, intp_t p, intp_t k,
    floating[:, :, ::1] theta, LossFunction loss,
    double inv_mass, double l2, intp_t n_penalized,
    double loss_weight, double mu, double dk, const double* S,
    const double* local_scale, double local_lipschitz, double tol, intp_t max_iter,
    double* grad, double* x, double* yv, double* prev, double* step, double* sc,
    bint from_start=True, double* g0=NULL, bint g0_ready=False, bint prepared=False,
) noexcept nogil:
    """Block solve of node k: ``theta_k`` minimizes its block of the objective.

    ``G(theta) = c F_k(theta) + (mu / 2) (d_k ||theta||^2 - 2 theta . S)``,
    ``c = loss_weight`` and ``S = sum_l w_kl theta_l`` fixed: the terms of
    the objective that hold ``theta_k``, up to a constant.  Its gradient is
    the one ``_lin_node_step`` steps along.  Solved from ``theta_k`` by the
    accelerated gradient with gradient restart of ``lin_local_solve`` in
    Jacobi-preconditioned coordinates: ``D'_j = c D_j + mu d_k`` (``D_j =
    1 / local_scale_j^2``, 0 where ``local_scale_j = 0``, the diagonal bound
    of ``local_preconditioner``), ``sc_j = 1 / sqrt(D'_j)``, and the
    Lipschitz constant in those coordinates bounded (Weyl) by
    ``local_lipschitz max_j r_j + max_j (1 - r_j)``, ``r_j = c D_j / D'_j``
    (the first term bounds ``c sc A sc = sqrt(r) (D^-1/2 A D^-1/2)
    sqrt(r)``).  Stops once ``max_j |sc_j g_j|`` is at most ``tol`` times
    the smaller of its value at the start and at ``theta = 0`` (the start
    alone would make a far-off wake-up solve its block ever more finely;
    every wake-up still divides its block's gradient by ``1 / tol``, so
    more wake-ups keep converging; without ``from_start``, the value at 0
    only: a newcomer's solves, which stop once one starts solved), or
    after ``max_iter`` iterations (``_agd_solve``).  Returns the
    iterations taken.

    Caches (the same bits as without them): with ``prepared``, ``sc`` and
    ``step`` already hold this node's values (they depend only on
    ``local_scale``, ``local_lipschitz``, ``loss_weight``, ``mu`` and
    ``d_k``, constant over a call of ``lin_async`` / the join steps);
    otherwise they are written.  With ``g0`` not NULL, ``g0`` holds
    ``grad F_k(0)`` of problem p when ``g0_ready`` (a function of the node's
    rows only), otherwise it is computed into ``g0``.
    """
    cdef intp_t n = X.shape[1], j
    cdef double Dj, Dp, rmax = 0.0, qmax = 0.0, lip, gmax
    cdef double* ref = grad if g0 == NULL else g0
    if not prepared:
        for j in range(n):
            Dj = 1.0 / (local_scale[j] * local_scale[j]) if local_scale[j] > 0.0 else 0.0
            Dp = loss_weight * Dj + mu * dk
            if Dp > 0.0:
                sc[j] = 1.0 / sqrt(Dp)
                if loss_weight * Dj / Dp > rmax:
                    rmax = loss_weight * Dj / Dp
                if mu * dk / Dp > qmax:
                    qmax = mu * dk / Dp
            else:
                sc[j] = 0.0
        lip = local_lipschitz * rmax + qmax
        if lip < 1e-12:
            lip = 1e-12
        for j in range(n):
            step[j] = sc[j] * sc[j] / lip
    if g0 == NULL or not g0_ready:
        # the reference: the scaled gradient of G at 0
        for j in range(n):
            x[j] = theta[k, p, j]
            theta[k, p, j] = 0
        _lin_grad(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized, ref)
        for j in range(n):
            theta[k, p, j] = <floating>x[j]
    gmax = 0.0
    for j in range(n):
        if fabs(sc[j] * (loss_weight * ref[j] - mu * S[j])) > gmax:
            gmax = fabs(sc[j] * (loss_weight * ref[j] - mu * S[j]))
    return _agd_solve(X, Y, sw, start, end, p, k, theta, loss, inv_mass, l2, n_penalized,
                      loss_weight, mu, dk, S, sc, step, tol * gmax, tol, max_iter, grad, x, yv,
                      prev, from_start)


def lin_local(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] theta,         # IN/OUT (n_nodes, P, n_features)
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,)
    const double[::1] lipschitz,       # IN (n_nodes,) L_F of every node's F_k
    double l2,
    intp_t n_penalized,
    double[:, ::1] losses,             # OUT (n_nodes, P)
    intp_t n_steps,
    intp_t node_start,
    intp_t node_end,
    const double[::1] grid_step=None,  # IN (n_nodes,) privacy: grid step of the release
    const int64_t[:, ::1] noise=None,  # IN (n_nodes * n_steps, P * n_features) integers
    const double[::1] row_norm=None,   # IN (n_samples,) ||x_i|| for the clipping
    double clip=0.0,                   # per-sample gradient clip (0: none)
):
    """Purely local models: ``n_steps`` gradient steps ``1 / L_F`` on each F_k.

    With ``grid_step`` every step is private (see ``_lin_node_step``); step
    tau of node k uses row ``k * n_steps + tau`` of ``noise``.
    """
    cdef intp_t n = X.shape[1], P = Y.shape[0], k, p, tau
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] grad = grad_arr
    cdef double dummy = 0.0, step = 0.0
    cdef bint private = grid_step is not None
    cdef const int64_t* z = NULL
    cdef const double* norms = NULL
    if private and noise.shape[0] < offsets.shape[0] * n_steps - n_steps:
        raise ValueError("noise must hold one row per node and step.")
    if clip > 0.0:
        if row_norm is None:
            raise ValueError("clip > 0 needs row_norm.")
        norms = &row_norm[0]
    with nogil:
        for k in range(node_start, node_end):
            if private:
                step = grid_step[k]
            for tau in range(n_steps):
                for p in range(P):
                    if private:
                        z = &noise[k * n_steps + tau, p * n]
                    _lin_node_step(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                   inv_mass[k], l2, n_penalized, 1.0, 0.0, 0.0, &dummy,
                                   lipschitz[k], &grad[0], step, z, norms, clip)
            for p in range(P):
                losses[k, p] = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k,
                                              theta, loss, inv_mass[k], l2, n_penalized, NULL)


def lin_local_solve(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] theta,         # IN/OUT (n_nodes, P, n_features) starting point
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,)
    const double[:, ::1] scale,        # IN (n_nodes, n_features) 1 / sqrt(D_kj), 0 if D_kj = 0
    const double[::1] lipschitz,       # IN (n_nodes,) L of the preconditioned problem
    double l2,
    intp_t n_penalized,
    double[:, ::1] losses,             # OUT (n_nodes, P)
    double tol,
    intp_t max_iter,
    intp_t node_start,
    intp_t node_end,
    intp_t[::1] n_iter,                # OUT (n_nodes,) steps taken, summed over the problems
    intp_t[::1] n_capped=None,         # OUT (n_nodes,) problems stopped at max_iter
):
    """Purely local models solved: preconditioned accelerated gradient on each ``F_k``.

    Nesterov's accelerated gradient with the gradient restart of
    O'Donoghue & Candes (2015), run in the Jacobi-preconditioned
    coordinates ``v_j = sqrt(D_j) theta_j`` (``D_j`` the diagonal curvature
    bound of coordinate j, ``scale[k, j] = 1 / sqrt(D_j)``, and
    ``lipschitz[k]`` a Lipschitz constant of the gradient in those
    coordinates; see ``skfed.boosting._perso_lin.local_preconditioner``)
    and written in ``theta``'s coordinates: from ``theta_k`` (``y = x``,
    ``t = 1``), every iteration evaluates ``g = grad F_k(y)`` and its
    preconditioned form ``h_j = scale_j g_j``; stops with ``theta_k = y``
    once ``max_j |h_j| <= tol * max_j |h0_j|`` (``h0`` at the start), else
    sets ``x+_j = y_j - scale_j^2 g_j / L`` and, when ``g . (x+ - x) > 0``
    (the momentum points uphill), restarts (``y = x+``, ``t = 1``);
    otherwise ``t+ = (1 + sqrt(1 + 4 t^2)) / 2`` and
    ``y = x+ + ((t - 1) / t+) (x+ - x)``.  Rescaling one feature rescales
    its ``D_j`` by the square of the factor, so the iterates (in ``v``),
    the steps and the stopping rule do not change with a feature's scale
    (up to the ``l2`` term, which is not scale invariant).  At most
    ``max_iter`` iterations per problem (then ``theta_k`` is the last
    ``x``, counted in ``n_capped`` when given).  Local computation only:
    nothing is sent, so solving to a tolerance costs no bytes.
    """
    cdef intp_t n = X.shape[1], P = Y.shape[0], k, p, j, it
    if scale.shape[0] < node_end or scale.shape[1] != n:
        raise ValueError("scale must hold one row of n_features per node.")
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    x_arr = np.zeros(max(n, 1), dtype=np.float64)
    y_arr = np.zeros(max(n, 1), dtype=np.float64)
    prev_arr = np.zeros(max(n, 1), dtype=np.float64)
    step_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] grad = grad_arr, x = x_arr, yv = y_arr, prev = prev_arr
    cdef double[::1] step = step_arr
    cdef bint count_capped = n_capped is not None
    with nogil:
        for k in range(node_start, node_end):
            n_iter[k] = 0
            if count_capped:
                n_capped[k] = 0
            for j in range(n):
                step[j] = scale[k, j] * scale[k, j] / lipschitz[k]
            for p in range(P):
                it = _agd_solve(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                inv_mass[k], l2, n_penalized, 1.0, 0.0, 0.0, NULL,
                                &scale[k, 0], &step[0], -1.0, tol, max_iter, &grad[0], &x[0],
                                &yv[0], &prev[0])
                losses[k, p] = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k,
                                              theta, loss, inv_mass[k], l2, n_penalized, NULL)
                n_iter[k] += it
                if count_capped and it == max_iter:
                    n_capped[k] += 1


def lin_async(
    const floating[:, ::1] X,          # IN (n_samples, n_features)
    const floating[:, ::1] Y,          # IN (P, n_samples)
    const floating[::1] sw,            # IN (n_samples,)
    const intp_t[::1] offsets,         # IN (n_nodes + 1,)
    floating[:, :, ::1] theta,         # IN/OUT (n_nodes, P, n_features)
    floating[:, :, ::1] public,        # IN/OUT (n_nodes, P, n_features)
    double[:, ::1] losses,             # IN/OUT (n_nodes, P)
    LossFunction loss,
    const double[::1] inv_mass,        # IN (n_nodes,)
    const double[::1] lipschitz,       # IN (n_nodes,) L_F of every node's F_k
    double l2,
    intp_t n_penalized,
    const intp_t[::1] indptr,          # IN graph CSR
    const intp_t[::1] indices,         # IN graph CSR
    const double[::1] weights,         # IN graph CSR
    const double[::1] degree,          # IN (n_nodes,)
    const double[::1] confidence,      # IN (n_nodes,)
    double mu,
    intp_t n_steps,
    uint32_t[::1] clock,               # IN/OUT (1,)
    uint32_t[::1] node_state,          # IN/OUT (n_nodes,) per-node xorshift states
    const uint8_t[::1] offline,        # IN (n_steps,) or (0,)
    const uint8_t[::1] rogue,          # IN (n_nodes,)
    int rogue_mode,                    # 0: negated model, 1: uniform noise of the same scale
    CommCounter counter,
    int64_t payload,                   # bytes of one model message, header excluded
    int64_t budget,
    int64_t spent,
    double objective,
    double[::1] objective_out,         # OUT (n_steps,)
    intp_t[::1] trace_node,            # OUT (n_steps,) or (0,)
    const double[::1] grid_step=None,  # IN (n_nodes,) privacy: grid step of the release
    const int64_t[:, ::1] noise=None,  # IN (n_rows, P * n_features) discrete Gaussian integers
    int64_t[::1] noise_used=None,      # IN/OUT (1,) rows of noise used so far
    const double[::1] row_norm=None,   # IN (n_samples,) ||x_i|| for the clipping
    double clip=0.0,                   # per-sample gradient clip (0: none)
    int64_t[::1] wakeups_left=None,    # IN/OUT (n_nodes,) private steps each node can afford
    int64_t[::1] stopped_at=None,      # IN/OUT (n_nodes,) iteration of the first refused step
    int64_t it_offset=0,               # global index of this call's first iteration
    const double[:, ::1] block_scale=None,   # IN (n_nodes, n_features) block solves
    const double[::1] block_lipschitz=None,  # IN (n_nodes,)
    double block_tol=0.0,
    intp_t block_max_iter=0,
    int64_t[::1] block_iter=None,      # IN/OUT (1,) block-solve iterations so far
    bint block_cache=True,             # reuse each node's preconditioner and gradient at 0
):
    """Asynchronous decentralized block coordinate descent of Perso-lin.

    At each global iteration a node drawn uniformly at random takes a block
    gradient step on its own model (every problem), with step ``1 / L_k``,
    ``L_k = d_k c_k L_F + mu d_k``, and sends its new model to its
    neighbours.  With ``block_scale`` (``local_update="block"``) the waking
    node instead minimizes its block of the objective, its neighbours'
    models fixed (``_lin_block_solve`` with ``local_preconditioner``'s
    ``block_scale[k]`` and ``block_lipschitz[k]``, ``block_tol``,
    ``block_max_iter``): the same message, sent the same way; not with
    privacy (the sensitivity is that of one gradient release).  With
    ``block_cache`` (the default) a node's block preconditioner and its
    problems' gradients at 0 are computed at its first wake-up of the call
    and reused (the same bits; ``False`` recomputes them at every wake-up,
    for the tests).  With ``grid_step`` (privacy) the gradient of ``F_k`` is
    clipped and released on the grid with the next row of ``noise``
    (``_lin_node_step``; every wake-up that steps uses one of
    ``wakeups_left``, so ``min(n_steps, sum(wakeups_left))`` rows suffice),
    and a node whose
    ``wakeups_left`` is 0 does nothing, like an offline node (the first
    such iteration goes to ``stopped_at[k]``, as in ``fw_async``).

    Returns
    -------
    (n_done, n_updates, spent, objective)
    """
    cdef intp_t K = offsets.shape[0] - 1
    cdef intp_t P = Y.shape[0], n = X.shape[1]
    cdef intp_t it, k, p, e, j, n_done = 0, n_updates = 0
    cdef double dk, lw, lip, new_loss, sq_old, dot_old, sq_new, dot_new, scale
    cdef double step = 0.0
    cdef bint private = grid_step is not None
    cdef bint budgeted = wakeups_left is not None
    cdef const int64_t* z = NULL
    cdef const int64_t* row = NULL
    cdef const double* norms = NULL
    if clip > 0.0:
        if row_norm is None:
            raise ValueError("clip > 0 needs row_norm.")
        norms = &row_norm[0]
    if private and (wakeups_left is None or noise_used is None
                    or noise.shape[0] < min(n_steps, int(np.sum(wakeups_left)))):
        raise ValueError("noise must hold min(n_steps, sum(wakeups_left)) rows.")
    cdef bint has_offline = offline.shape[0] > 0
    cdef bint has_trace = trace_node.shape[0] > 0
    cdef bint any_rogue = False
    cdef int64_t header = counter.header_bytes
    for k in range(K):
        if rogue[k]:
            any_rogue = True
    S_arr = np.zeros(max(n, 1), dtype=np.float64)
    St_arr = np.zeros(max(n, 1), dtype=np.float64)
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] S = S_arr
    cdef double[::1] S_true = St_arr
    cdef double[::1] grad = grad_arr
    cdef double* S_obj
    cdef bint block = block_scale is not None
    cdef int64_t n_block = 0
    if block:
        if private or clip > 0.0:
            raise ValueError("block solves are not private: a private fit steps.")
        if block_lipschitz is None or block_scale.shape[0] < K or block_scale.shape[1] != n:
            raise ValueError("block_scale must hold one row of n_features per node, "
                             "with block_lipschitz.")
    bx_arr = np.zeros((5, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] bx = bx_arr
    # Block solves: each node's preconditioner (sc, step) and its problems'
    # gradients at 0, computed at its first wake-up of this call and reused
    # (degree, confidence and mu are fixed for the call; the same bits).
    cdef intp_t KB = K if block and block_cache else 0
    bsc_arr = np.zeros((KB, max(n, 1)), dtype=np.float64)
    bstep_arr = np.zeros((KB, max(n, 1)), dtype=np.float64)
    bg0_arr = np.zeros((KB, P, max(n, 1)), dtype=np.float64)
    bready_arr = np.zeros(KB, dtype=np.uint8)
    cdef double[:, ::1] bsc = bsc_arr
    cdef double[:, ::1] bstep = bstep_arr
    cdef double[:, :, ::1] bg0 = bg0_arr
    cdef uint8_t[::1] bready = bready_arr
    with nogil:
        for it in range(n_steps):
            if budget >= 0 and spent >= budget:
                break
            k = rand_int(K, &clock[0])
            n_done += 1
            if has_trace:
                trace_node[it] = k
            if has_offline and offline[it]:
                objective_out[it] = objective
                counter.end_round()
                continue
            if budgeted:
                if _budget_spent(wakeups_left, stopped_at, k, it_offset + it):
                    objective_out[it] = objective
                    counter.end_round()
                    continue
            if private:
                step = grid_step[k]
                row = &noise[noise_used[0], 0]
                noise_used[0] += 1
            dk = degree[k]
            lw = (dk if dk > 0 else 1.0) * confidence[k]
            lip = lw * lipschitz[k] + mu * dk
            for p in range(P):
                _neighbour_sum(public, p, indptr, indices, weights, k, &S[0], n)
                if any_rogue:
                    _neighbour_sum(theta, p, indptr, indices, weights, k, &S_true[0], n)
                    S_obj = &S_true[0]
                else:
                    S_obj = &S[0]
                sq_old = _reg_terms(theta, k, p, S_obj, n, &dot_old)
                if private:
                    z = row + p * n
                if block:
                    n_block += _lin_block_solve(
                        X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss, inv_mass[k],
                        l2, n_penalized, lw, mu, dk, &S[0], &block_scale[k, 0],
                        block_lipschitz[k], block_tol, block_max_iter, &grad[0], &bx[0, 0],
                        &bx[1, 0], &bx[2, 0], &bstep[k, 0] if block_cache else &bx[3, 0],
                        &bsc[k, 0] if block_cache else &bx[4, 0], True,
                        &bg0[k, p, 0] if block_cache else NULL,
                        block_cache and bready[k] != 0,
                        block_cache and (bready[k] != 0 or p > 0))
                else:
                    _lin_node_step(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta, loss,
                                   inv_mass[k], l2, n_penalized, lw, mu, dk, &S[0], lip,
                                   &grad[0], step, z, norms, clip)
                new_loss = _lin_node_loss(X, Y, sw, offsets[k], offsets[k + 1], p, k, theta,
                                          loss, inv_mass[k], l2, n_penalized, NULL)
                sq_new = _reg_terms(theta, k, p, S_obj, n, &dot_new)
                objective += lw * (new_loss - losses[k, p])
                objective += 0.5 * mu * (dk * (sq_new - sq_old) - 2.0 * (dot_new - dot_old))
                losses[k, p] = new_loss
                if rogue[k] and rogue_mode == 1:
                    scale = 0.0
                    for j in range(n):
                        if fabs(theta[k, p, j]) > scale:
                            scale = fabs(theta[k, p, j])
                    if scale == 0.0:
                        scale = 1.0
                    for j in range(n):
                        public[k, p, j] = <floating>rand_uniform(-scale, scale, &node_state[k])
                else:
                    for j in range(n):
                        if rogue[k]:
                            public[k, p, j] = -theta[k, p, j]
                        else:
                            public[k, p, j] = theta[k, p, j]
            if block and block_cache:
                bready[k] = 1
            n_updates += 1
            for e in range(indptr[k], indptr[k + 1]):
                counter.send(k, indices[e], payload)
            spent += (indptr[k + 1] - indptr[k]) * (payload + header)
            objective_out[it] = objective
            counter.end_round()
    if block_iter is not None:
        block_iter[0] += n_block
    return n_done, n_updates, spent, objective


# ------------------------------------------------------------------ joining
# A node that joins after the fit (issue 32) learns alone: its neighbours'
# models and weights are fixed, so its part of eq. 1 is a function of its
# own model only, and its row of the graph objective (eq. 5 of skfed.graph)
# a function of its own weights only.

def lin_join(
    const floating[:, ::1] X,          # IN (m, n_features) the joining node's samples
    const floating[:, ::1] Y,          # IN (P, m)
    const floating[::1] sw,            # IN (m,)
    floating[:, :, ::1] theta,         # IN/OUT (1, P, n_features) its model
    double[::1] losses,                # OUT (P,) F_k after the steps
    LossFunction loss,
    double inv_mass,
    double lipschitz,                  # L_F of its F_k
    double l2,
    intp_t n_penalized,
    const double[:, ::1] S,            # IN (P, n_features) sum_l w_kl theta_l, fixed
    double dk,
    double confidence,
    double mu,
    intp_t n_steps,
    double grid_step=0.0,              # privacy: grid step of the releases (0: exact)
    const int64_t[:, ::1] noise=None,  # IN (n_steps, P * n_features) discrete Gaussian integers
    const double[::1] row_norm=None,   # IN (m,) ||x_i|| for the clipping
    double clip=0.0,
    const double[::1] block_scale=None,  # IN (n_features,) block solves (see lin_async)
    double block_lipschitz=1.0,
    double block_tol=0.0,
    intp_t block_max_iter=0,
    bint block_cache=True,             # reuse the preconditioner and gradients at 0
):
    """Block gradient steps of one node on its part of Perso-lin's objective.

    With ``block_scale`` each step is a block solve instead
    (``_lin_block_solve``, as a wake-up of ``lin_async`` with
    ``local_update="block"``); a solve that starts at its tolerance ends the
    steps (the neighbours are fixed: every later solve would stay there).

    Each step is ``theta -= g / L`` with ``g = d_k c_k grad F_k(theta) + mu
    (d_k theta - S)`` and ``L = d_k c_k L_F + mu d_k`` (a node of degree 0
    weighs its loss by 1), the neighbours' models fixed: the step of a
    wake-up in ``lin_async``.  With ``grid_step > 0`` the gradient of F_k is
    clipped and released on the grid with row tau of ``noise``.
    """
    cdef intp_t n = X.shape[1], P = Y.shape[0], m = X.shape[0], tau, p
    cdef double lw = (dk if dk > 0 else 1.0) * confidence
    cdef double lip = lw * lipschitz + mu * dk
    cdef bint private = grid_step > 0.0
    cdef const int64_t* z = NULL
    cdef const double* norms = NULL
    if private and (noise is None or noise.shape[0] < n_steps):
        raise ValueError("noise must hold one row per step.")
    if clip > 0.0:
        if row_norm is None:
            raise ValueError("clip > 0 needs row_norm.")
        norms = &row_norm[0]
    grad_arr = np.zeros(max(n, 1), dtype=np.float64)
    cdef double[::1] grad = grad_arr
    cdef bint block = block_scale is not None
    cdef intp_t moved
    if block and (private or clip > 0.0):
        raise ValueError("block solves are not private: a private join steps.")
    if block and block_scale.shape[0] != n:
        raise ValueError("block_scale must hold n_features values.")
    bx_arr = np.zeros((5, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] bx = bx_arr
    # the preconditioner and the gradients at 0, from the first solve on
    bg0_arr = np.zeros((P if block and block_cache else 0, max(n, 1)), dtype=np.float64)
    cdef double[:, ::1] bg0 = bg0_arr
    with nogil:
        for tau in range(n_steps):
            if block:
                moved = 0
                for p in range(P):
                    moved += _lin_block_solve(
                        X, Y, sw, 0, m, p, 0, theta, loss, inv_mass, l2, n_penalized, lw, mu,
                        dk, &S[p, 0], &block_scale[0], block_lipschitz, block_tol,
                        block_max_iter, &grad[0], &bx[0, 0], &bx[1, 0], &bx[2, 0], &bx[3, 0],
                        &bx[4, 0], False, &bg0[p, 0] if block_cache else NULL,
                        block_cache and tau > 0, block_cache and (tau > 0 or p > 0))
                if moved == 0:
                    break
                continue
            for p in range(P):
                if private:
                    z = &noise[tau, p * n]
                _lin_node_step(X, Y, sw, 0, m, p, 0, theta, loss, inv_mass, l2, n_penalized,
                               lw, mu, dk, &S[p, 0], lip, &grad[0], grid_step, z, norms, clip)
        for p in range(P):
            losses[p] = _lin_node_loss(X, Y, sw, 0, m, p, 0, theta, loss, inv_mass, l2,
                                       n_penalized, NULL)
    return None
