"""Centralized reference of kernelized MOCHA's joint objective (libsvm / closed form).

The objective of :class:`~skfed.FederatedMultiTaskClassifier` /
``Regressor`` (``lambda = 1 / (C n)``)::

    min_{W, Sigma}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                    + (lambda / 2) tr(W Sigma^{-1} W^T),   tr(Sigma) = 1

With ``Sigma`` fixed, the W-step is one kernel machine on the multi-task
kernel ``sigma_tu (k(x, x') + b^2)`` with per-sample weights ``1 / n_t``:
for the hinge loss an SVM, solved by libsvm
(``SVC(kernel="precomputed", C=1 / lambda)`` with ``sample_weight``), for
the squared loss a kernel ridge regression (``KernelRidge(alpha=lambda)``,
exactly the same objective).  The Omega step is the closed form
``Sigma = (W^T W)^{1/2} / tr(...)`` (skfed's :func:`skfed.multitask.omega_update`
is not used: the square root is taken here by ``scipy.linalg.eigh``
independently).  The alternation runs until the joint objective
``loss(W) + (lambda / 2) ||W||_*^2`` (at the best Omega for ``W``) changes by
less than ``1e-7`` relative, or ``max_outer`` steps.

libsvm's SVM has an unregularized intercept shared by all tasks (skfed's
bias is the regularized constant feature ``b``): the reference optimizes
over one more free parameter, so its objective is at most skfed's optimum,
and "skfed within 1 % of the reference" is a conservative test.
"""

import time

import numpy as np
from scipy import linalg
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

_FLOOR = 1e-7


def _sqrt_step(wtw):
    wtw = 0.5 * (wtw + wtw.T)
    evals, evecs = linalg.eigh(wtw)
    evals = np.maximum(evals, _FLOOR * evals[-1])
    root = (evecs * np.sqrt(evals)) @ evecs.T
    root = 0.5 * (root + root.T)
    return root / np.trace(root), float(np.sqrt(evals).sum())


def reference_fit(X, y, groups, *, C=1.0, gamma="scale", intercept_scaling=1.0,
                  regression=False, max_outer=100, rtol=1e-7, sigma0=None, verbose=False):
    """Alternate the centralized W-step and the closed-form Omega step.

    Parameters
    ----------
    X : ndarray (n, d); y : ndarray (n,) (+-1 labels, or targets)
    groups : ndarray (n,) of node codes 0..m-1

    Returns
    -------
    dict with ``objective`` (final joint objective), ``objectives`` (after
    every outer step), ``sigma``, ``coef`` (n,) the dual coefficients ``c``
    of ``w_t = sum_u sigma_tu sum_{j in u} c_j phi(x_j)``, ``intercept``,
    ``time`` (seconds, kernel included), ``n_outer``.
    """
    t0 = time.perf_counter()
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    m = int(groups.max()) + 1
    counts = np.bincount(groups, minlength=m).astype(float)
    lam = 1.0 / (C * n)
    if gamma == "scale":
        gamma = 1.0 / (d * X.var())
    K = rbf_kernel(X, gamma=gamma)
    K += intercept_scaling**2
    sw = 1.0 / counts[groups]
    sigma = np.eye(m) / m if sigma0 is None else sigma0
    Kmt = np.empty_like(K)
    onehot = np.zeros((n, m))
    onehot[np.arange(n), groups] = 1.0
    objectives, duals = [], []
    best = None
    for it in range(max_outer):
        np.multiply(sigma[np.ix_(groups, groups)], K, out=Kmt)
        if regression:
            model = KernelRidge(kernel="precomputed", alpha=lam).fit(Kmt, y, sample_weight=sw)
            coef = np.ravel(model.dual_coef_)
            intercept = 0.0
            f = Kmt @ coef
        else:
            model = SVC(kernel="precomputed", C=1.0 / lam, tol=1e-5,
                        cache_size=1000).fit(Kmt, y, sample_weight=sw)
            coef = np.zeros(n)
            coef[model.support_] = model.dual_coef_[0]
            intercept = float(model.intercept_[0])
            # SVC's decision is positive for classes_[1] = +1
            f = Kmt[:, model.support_] @ model.dual_coef_[0] + intercept
        if regression:
            losses = 0.5 * (f - y) ** 2
        else:
            losses = np.maximum(0.0, 1.0 - y * f)
        loss_sum = float(np.sum(losses * sw))
        M = onehot * coef[:, None]
        Gc = M.T @ (K @ M)
        new_sigma, trace_norm = _sqrt_step(sigma @ Gc @ sigma)
        # joint objective at W and its best Omega (trace norm squared)
        objectives.append(loss_sum + 0.5 * lam * trace_norm**2)
        # joint dual of the dual variables alpha_j = lambda n_t c_j (no intercept)
        top = float(linalg.eigvalsh(0.5 * (Gc + Gc.T))[-1])
        if regression:
            alpha = lam * coef / sw
            conj = float(np.sum(sw * (0.5 * alpha**2 - alpha * y)))
        else:
            conj = -float(np.sum(sw * lam * y * coef / sw))
        duals.append(-conj - 0.5 * lam * top)
        if not regression:  # the best rescaling s alpha, s in [0, 1]
            scale = min(1.0, max(0.0, -conj / (lam * top)))
            duals[-1] = -scale * conj - 0.5 * scale**2 * lam * top
        if verbose:
            print(it, objectives[-1], duals[-1], loss_sum, flush=True)
        best = dict(sigma=sigma, coef=coef, intercept=intercept)
        sigma = new_sigma
        if it and abs(objectives[-2] - objectives[-1]) <= rtol * abs(objectives[-1]):
            break
    return dict(objective=objectives[-1], objectives=np.array(objectives),
                duals=np.array(duals), gamma=gamma,
                time=time.perf_counter() - t0, n_outer=len(objectives), lam=lam, **best)


def reference_decision(ref, X_train, groups_train, X, groups, intercept_scaling=1.0):
    """Decision values of the reference model on new samples of known nodes."""
    K = rbf_kernel(np.asarray(X, np.float64), np.asarray(X_train, np.float64),
                   gamma=ref["gamma"]) + intercept_scaling**2
    sigma = ref["sigma"]
    return np.einsum("ij,ij->i", K, sigma[np.ix_(groups, groups_train)] * ref["coef"]) \
        + ref["intercept"]
