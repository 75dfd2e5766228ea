"""NumPy reference of Perso-lin's purely local models (``lin_local_solve``)."""

import numpy as np


def jacobi_numpy(X, sw, curvature, l2, n_pen):
    """Diagonal curvature bounds and the preconditioned constant of one node.

    Written from the definition: ``A = c X^T S X / m + l2 I_pen``,
    ``D = diag(A)``; returns ``(scale, lipschitz)`` with
    ``scale = 1 / sqrt(D)`` (0 where ``D = 0``) and the bound
    ``c ||S^1/2 X D^-1/2||_2^2 / m + l2 max_{j pen} 1 / D_j``.
    """
    m = sw.sum()
    A = curvature * (X.T * sw) @ X / m
    A[np.arange(n_pen), np.arange(n_pen)] += l2
    D = np.diag(A).copy()
    scale = np.array([1.0 / np.sqrt(d) if d > 0 else 0.0 for d in D])
    top = np.linalg.norm(np.sqrt(sw)[:, None] * X * scale, 2) ** 2
    pen = max((scale[j] ** 2 for j in range(n_pen)), default=0.0) if l2 > 0 else 0.0
    return scale, max(curvature * top / m + l2 * pen, 1e-12)


def local_solve_numpy(grad, n, scale, lipschitz, tol, max_iter):
    """Preconditioned accelerated gradient from zero with the gradient restart.

    ``grad(theta)`` is the gradient of the node's ``F_k``.  The iterates are
    kept in the scaled coordinates ``v = theta / scale`` (where
    ``scale > 0``), where the method is plain accelerated gradient with
    step ``1 / lipschitz`` on ``G(v) = F_k(scale * v)``; stops with the
    current extrapolated point once ``max |grad G| <= tol * max |grad G at
    the start|``, else after ``max_iter`` steps with the last iterate.
    Returns ``(theta, steps)``.
    """
    scale = np.asarray(scale, dtype=np.float64)

    def grad_v(v):
        return scale * grad(scale * v)

    x = np.zeros(n)
    y, t, limit, it = x.copy(), 1.0, None, 0
    while it < max_iter:
        g = grad_v(y)
        gmax = np.abs(g).max()
        limit = tol * gmax if limit is None else limit
        if gmax <= limit:
            return scale * y, it
        xn = y - g / lipschitz
        uphill = g @ (xn - x)
        prev, x = x, xn
        it += 1
        if uphill > 0:
            t, y = 1.0, x.copy()
        else:
            t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            y = x + (t - 1.0) / t_next * (x - prev)
            t = t_next
    return scale * x, it


def centred_numpy(X, sw, n_pen):
    """``(Xc, shift)`` of one node: with one constant unpenalized column c
    (the intercept), the penalized columns less their mean over the samples
    of positive weight, and ``shift(theta)`` = ``theta_pen . m / c`` (the
    intercept of the centred problem is theta_c + shift); else ``(X, None)``."""
    if X.shape[1] != n_pen + 1 or not len(X) or X[0, n_pen] == 0 \
            or not np.all(X[:, n_pen] == X[0, n_pen]):
        return X, None
    w = np.where(sw > 0, sw, 0.0)
    m = (w @ X[:, :n_pen]) / w.sum() if w.sum() > 0 else np.zeros(n_pen)
    Xc = X.copy()
    Xc[:, :n_pen] -= m
    c = X[0, n_pen]
    return Xc, lambda theta: theta[..., :n_pen] @ m / c
