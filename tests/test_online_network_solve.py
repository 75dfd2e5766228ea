"""Step 4 of the online network function: a classifier's weights re-solved on
the fitted nodes' summed losses, then the gate (``skfed.online._network_function``).

The references are independent: the same objective written in NumPy over
the pooled samples (what the nodes' tree sums add up to) and minimized by
SciPy's L-BFGS-B on the plain weights to a tight tolerance; the gate's
errors from the estimator's own ``decision_function`` for fitted nodes; the
bytes in closed form from the number of tree rounds, itself checked against
the reports the solve asked the nodes for.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize

import skfed.online._network_function as nf
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

from .test_online_network_function import rbf, ring

HEADER = 16  # SimulatedNetwork's default header bytes


def _data(n_classes=2, clustered=False, seed=0):
    # 5 nodes of 40 samples, 2 features; the nodes' rules differ a little
    # (clustered: nodes 3 and 4 learn the opposite rule, which no pooled
    # function serves).
    rng = np.random.RandomState(seed)
    n_nodes, n, d = 5, 40, 2
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    score = X[:, 0] + 0.15 * groups * X[:, 1]
    if clustered:
        score = np.where(groups >= 3, -score, score)
    if n_classes == 2:
        y = (score > 0).astype(int)
    else:
        y = np.digitize(score, [-0.5, 0.5])
    w = 0.5 + rng.uniform(size=len(y))
    return X, y, groups, w


def _fit(loss="hinge", n_classes=2, clustered=False, **params):
    X, y, groups, w = _data(n_classes, clustered)
    est = DecentralizedKernelSGDClassifier(**{**dict(
        kernel="rbf", gamma=0.5, loss=loss, epsilon=0.05, max_dictionary_size=12,
        max_epochs=2, alpha=1e-2, consensus_penalty=0.1, exchange_every=None,
        network=SimulatedNetwork(ring(5)), random_state=0), **params})
    return est.fit(X, y, groups=groups, sample_weight=w), X, y, groups, w


def _objective(K, Kzz, Y, w, alpha, loss):
    """NumPy: ``sum_s w_s l(f(x_s), y_s) + (alpha W / 2) tr(A' Kzz A)`` and its
    gradient in ``A`` (raveled), ``l`` the squared hinge, the logistic loss or
    the squared Crammer-Singer margin; ``Y`` is +-1 (binary) or the class."""
    m = Kzz.shape[0]
    W = w.sum()

    def value_grad(a):
        A = a.reshape(m, -1)
        F = K @ A
        if loss == "hinge":
            slack = np.maximum(0.0, 1.0 - Y * F[:, 0])
            value, dF = slack ** 2, (-2.0 * slack * Y)[:, None]
        elif loss == "log_loss":
            z = Y * F[:, 0]
            value = np.logaddexp(0.0, -z)
            dF = (-Y / (1.0 + np.exp(z)))[:, None]
        else:  # squared Crammer-Singer
            rows = np.arange(len(Y))
            other = F.copy()
            other[rows, Y] = -np.inf
            j = np.argmax(other, axis=1)
            slack = np.maximum(0.0, 1.0 + F[rows, j] - F[rows, Y])
            value = slack ** 2
            dF = np.zeros_like(F)
            dF[rows, j] += 2.0 * slack
            dF[rows, Y] -= 2.0 * slack
        KA = Kzz @ A
        total = float(w @ value + 0.5 * alpha * W * np.sum(A * KA))
        return total, (K.T @ (w[:, None] * dF) + alpha * W * KA).ravel()

    return value_grad


@pytest.mark.parametrize("loss, n_classes", [("hinge", 2), ("log_loss", 2), ("hinge", 3)])
def test_solve_equals_scipy_on_the_pooled_objective_and_bytes_are_closed_form(
        loss, n_classes, monkeypatch):
    calls = []
    real_call = nf.NodeSums.__call__

    def counted(self, D, gamma, A, nodes):
        calls.append(A.copy())
        return real_call(self, D, gamma, A, nodes)

    monkeypatch.setattr(nf.NodeSums, "__call__", counted)
    est, X, y, groups, w = _fit(loss, n_classes)
    D = est.network_dictionary_[0]
    m, n_out = len(D), est.network_coef_[0].shape[1]
    assert n_out == (1 if n_classes == 2 else 3)
    # Intermediate sizes: fewer points than samples (a real fit, not an
    # interpolation of every sample).
    assert 5 <= m <= 5 * 12 and m < len(X)
    Y = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y
    K, Kzz = rbf(X, D, 0.5), rbf(D, D, 0.5)
    value_grad = _objective(K, Kzz, Y, w, 1e-2, loss if n_classes == 2 else "crammer_singer")
    # (from small random weights: at zero the Crammer-Singer margins tie)
    start = 1e-2 * np.random.RandomState(0).normal(size=m * n_out)
    ref = minimize(value_grad, start, jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "gtol": 1e-10, "ftol": 1e-15})
    assert ref.success
    solved = est.network_coef_[0]
    mean = est._network_mean_coef[0]
    assert est._network_solved.tolist() == [True]
    # The package's 50 whitened iterations reach SciPy's optimum: the same
    # objective value, and the same function on the samples.
    j_pkg, j_ref, j_mean = (value_grad(a.ravel())[0] for a in (solved, ref.x, mean))
    # (the squared Crammer-Singer margin's gradient jumps where the best
    # other class changes: both solvers stop a little further from its
    # optimum)
    rel, atol = (1e-6, 2e-3) if n_classes == 2 else (2e-5, 2e-2)
    assert j_pkg <= j_ref * (1 + rel)
    assert j_pkg < j_mean and np.abs(solved - mean).max() > 1e-2   # (it moved)
    assert_allclose(K @ solved, K @ ref.x.reshape(m, n_out), rtol=0, atol=atol)
    # Tree rounds: one per distinct weights asked of the nodes (the first at
    # the mean's), then the gate's.
    rounds = int(est._network_solve_rounds[0])
    assert rounds == len(calls) + 1
    assert_allclose(calls[0], mean, rtol=1e-9, atol=1e-12)
    assert len({a.tobytes() for a in calls}) == len(calls)
    # Bytes: per evaluation m n_out + 2 float64 up and m n_out down every
    # tree edge (4 of the ring of 5), then 3 float64 up and an int32 down.
    edges = 4
    solve_bytes = edges * ((rounds - 1) * (2 * HEADER + (2 * m * n_out + 2) * 8)
                           + 2 * HEADER + 3 * 8 + 4)
    log = est.network_communication_
    total, messages = log.total_bytes, log.total_messages
    # Steps 1-3 rebuilt alone (the same seeds, no samples: no solve).
    plain = est._build_network_function()
    assert_array_equal(est.network_coef_[0], mean)
    assert total - plain.total_bytes == solve_bytes
    assert messages - plain.total_messages == 2 * edges * rounds
    # Each tree round goes up and back down the ring's tree of depth 2: 4
    # rounds (no drops).
    assert log.n_rounds - plain.n_rounds == 4 * rounds


def _gate_errors(est, X, y, groups, w):
    """For the gate in NumPy: the kernel rows at the network function's
    points, which samples the fitted nodes' own functions (the estimator's
    decision for known nodes) misclassify, and the total weight."""
    F_own = est.decision_function(X, groups=groups)
    F_net = rbf(X, est.network_dictionary_[0], est.network_gamma_[0])
    if F_own.ndim == 1:
        own = np.where(F_own > 0, 1, 0) != y
    else:
        own = np.argmax(F_own, axis=1) != y
    return F_net, own, w.sum()


@pytest.mark.parametrize("clustered", [False, True])
def test_gate_keeps_the_solve_only_within_fifteen_points_of_the_nodes_own_error(clustered):
    est, X, y, groups, w = _fit("hinge", 2, clustered=clustered)
    K_net, own, W = _gate_errors(est, X, y, groups, w)
    mean = est._network_mean_coef[0]
    # The solved weights, whether kept or not: SciPy's optimum of the pooled
    # objective (which the package's solve reaches, test above).
    Y = np.where(y == 1, 1.0, -1.0)
    value_grad = _objective(K_net, rbf(est.network_dictionary_[0],
                                       est.network_dictionary_[0], 0.5), Y, w, 1e-2, "hinge")
    ref = minimize(value_grad, np.zeros(len(mean)), jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "gtol": 1e-10, "ftol": 1e-15}).x
    solved_wrong = (K_net @ ref > 0) != (y == 1)
    excess = (w @ solved_wrong - w @ own) / W
    kept = bool(est._network_solved[0])
    # Intermediate: these two federations fall on either side of the gate.
    if clustered:
        assert excess > 0.25
    else:
        assert excess < 0.05
    assert kept == (excess <= nf.SOLVE_GATE) == (not clustered)
    if kept:
        assert np.abs(est.network_coef_[0] - mean).max() > 1e-3
    else:
        # Rejected: the network function is step 3's mean, bit for bit; its
        # solve's rounds were still paid.
        assert_array_equal(est.network_coef_[0], mean)
        assert est._network_solve_rounds[0] >= 2


def test_no_solve_in_partial_fit_or_with_rogue_nodes():
    # (a regressor's fit solves since online16: tests/test_online_regressor_solve.py;
    # its stream does not)
    X, y, groups, w = _data()
    params = dict(kernel="rbf", gamma=0.5, epsilon=0.05, max_dictionary_size=12, max_epochs=2,
                  consensus_penalty=0.1, exchange_every=None, random_state=0)
    stream = DecentralizedKernelSGDClassifier(network=SimulatedNetwork(ring(5)), **params)
    stream.partial_fit(X, y, groups=groups, classes=[0, 1])
    regressor = DecentralizedKernelSGDRegressor(network=SimulatedNetwork(ring(5)), **params)
    regressor.partial_fit(X, X[:, 0] + 0.1 * groups, groups=groups)
    rogue = DecentralizedKernelSGDClassifier(
        network=SimulatedNetwork(ring(5), rogue_fraction=0.2, rogue_behavior="complement"),
        **params).fit(X, y, groups=groups)
    for est in (stream, regressor, rogue):
        assert est._network_solve_rounds.tolist() == [0]
        assert est._network_solved.tolist() == [False]
        assert_array_equal(est.network_coef_[0], est._network_mean_coef[0])
