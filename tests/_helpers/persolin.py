"""NumPy reference of Perso-lin's purely local models (``lin_local_solve``)."""

import numpy as np


def local_solve_numpy(grad, n, lipschitz, tol, max_iter):
    """Accelerated gradient from zero with the gradient restart.

    ``grad(theta)`` is the gradient of the node's ``F_k``; stops with the
    current extrapolated point once ``max |grad| <= tol * max |grad at the
    start|``, else after ``max_iter`` steps with the last iterate.  Returns
    ``(theta, steps)``.
    """
    x = np.zeros(n)
    y, t, limit, it = x.copy(), 1.0, None, 0
    while it < max_iter:
        g = grad(y)
        gmax = np.abs(g).max()
        limit = tol * gmax if limit is None else limit
        if gmax <= limit:
            return y, it
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
    return x, it
