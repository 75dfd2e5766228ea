"""MOCHA's learned-Omega stop against the true joint optimum (mocha33).

The reference is an independent central solve of the same joint objective
``sum_t mean_i log(1 + exp(-y_ti w_t . x_ti)) + (lam / 2) ||W||_*^2``
(intercept: a regularized column of ones, as MOCHA's), through the
factorization ``||W||_* = min_{W = A B^T} (||A||_F^2 + ||B||_F^2) / 2``,
which makes it smooth in ``(A, B)`` for L-BFGS-B: no alternation, no
duality, no code of the package; certified by its joint dual (the dual
variables of its models close the duality gap).
"""

import warnings

import numpy as np
import pytest
from scipy import linalg, optimize
from sklearn.exceptions import ConvergenceWarning

from skfed.datasets import make_related_tasks
from skfed.multitask import FederatedMultiTaskClassifier


def _joint(W, X, y, g, lam):
    loss = sum(np.mean(np.logaddexp(0.0, -y[g == t] * (X[g == t] @ W[t])))
               for t in range(W.shape[0]))
    return loss + 0.5 * lam * linalg.svdvals(W).sum() ** 2


def _optimum(X, y, g, lam, starts=3):
    m, d = g.max() + 1, X.shape[1]
    r = min(m, d)
    rows = [np.flatnonzero(g == t) for t in range(m)]

    def f(p):
        A, B = p[:m * r].reshape(m, r), p[m * r:].reshape(d, r)
        W = A @ B.T
        gW = np.empty_like(W)
        val = 0.0
        for t, rr in enumerate(rows):
            z = y[rr] * (X[rr] @ W[t])
            val += np.logaddexp(0.0, -z).sum() / rr.size
            gW[t] = -X[rr].T @ (y[rr] * np.exp(-np.logaddexp(0.0, z))) / rr.size
        s = 0.5 * (np.sum(A * A) + np.sum(B * B))
        return (val + 0.5 * lam * s * s,
                np.concatenate([(gW @ B + lam * s * A).ravel(), (gW.T @ A + lam * s * B).ravel()]))

    values, models = [], []
    for start in range(starts):
        p = optimize.minimize(f, 0.1 * np.random.RandomState(start).randn((m + d) * r),
                              jac=True, method="L-BFGS-B",
                              options=dict(gtol=1e-11, ftol=1e-16, maxiter=20000)).x
        models.append(p[:m * r].reshape(m, r) @ p[m * r:].reshape(d, r).T)
        values.append(_joint(models[-1], X, y, g, lam))
    return np.array(values), models[int(np.argmin(values))]


def _joint_dual(W, X, y, g, lam):
    """The joint dual at the dual variables of ``W`` (``a = -loss'(y w.x)``):
    ``-sum_t mean_i [a log a + (1 - a) log(1 - a)] - sigma_max(V)^2 / (2 lam)``,
    ``v_t = mean_i a_ti y_ti x_ti``: a lower bound on the optimum (weak
    duality of the trace-norm problem), equal to it at the optimum."""
    a = 1.0 / (1.0 + np.exp(y * np.einsum("ij,ij->i", X, W[g])))
    n_t = np.bincount(g).astype(float)[g]
    conj = np.sum((a * np.log(a) + (1 - a) * np.log1p(-a)) / n_t)
    V = np.zeros_like(W)
    np.add.at(V, g, (a * y / n_t)[:, None] * X)
    return -conj - linalg.svdvals(V)[0] ** 2 / (2.0 * lam)


@pytest.fixture(scope="module")
def problem():
    X, _, y, _, g, _, _ = make_related_tasks(n_nodes=6, n_samples_per_node=20, n_features=4,
                                             structure="clustered", random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    Xa = np.hstack([X, np.ones((len(y), 1))])
    lam = 1.0 / len(y)
    starts, W = _optimum(Xa, y, g, lam)
    return X, y, g, Xa, lam, starts, W


def _fit(X, y, g, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return FederatedMultiTaskClassifier(kernel="linear", omega="learn", random_state=0,
                                            max_rounds=5000, **kw).fit(X, y, groups=g)


def test_reference_is_the_optimum(problem):
    X, y, g, Xa, lam, starts, W = problem
    # every start reaches the same value (the factored problem has no
    # spurious minimum at this rank) ...
    assert np.ptp(starts) <= 1e-9 * starts.min()
    # ... certified: the joint dual at its dual variables closes the gap
    dual = _joint_dual(W, Xa, y, g, lam)
    assert dual <= starts.min() <= dual + 1e-7 * abs(dual)
    # ... and the package's alternation at tol=1e-7 approaches it from above
    tight = _fit(X, y, g, tol=1e-7)
    optimum = starts.min()
    assert optimum * (1 - 1e-9) <= tight.joint_objective_ <= optimum * (1 + 1e-4)


@pytest.mark.parametrize("tol", [1e-3, 1e-4])
def test_stopped_fit_within_the_documented_factor_of_the_optimum(problem, tol):
    X, y, g, Xa, lam, starts, _ = problem
    optimum = starts.min()
    est = _fit(X, y, g, tol=tol)
    # joint_objective_ is J of the returned models (coef_ and intercept_)
    W = np.hstack([est.coef_, est.intercept_[:, None]])
    assert _joint(W, Xa, y, g, lam) == pytest.approx(est.joint_objective_, rel=1e-10)
    # the certified bracket: joint dual <= optimum <= J
    assert est.joint_objective_ - est.joint_duality_gap_ <= optimum * (1 + 1e-9)
    assert est.joint_objective_ >= optimum * (1 - 1e-9)
    # the user guide's bound at tol=1e-3 (benchmarks/mocha_stopping.py:
    # 0.8-9.5 % above the optimum over 9 families, seeds 0-2); 0.28 % here
    assert est.joint_objective_ <= optimum * 1.10
    if tol == 1e-4:
        loose = _fit(X, y, g, tol=1e-3)
        assert est.joint_objective_ < loose.joint_objective_
