"""Step 4 of the online network function for a regressor: the weights
re-solved on the nodes' rows that are not held back, kept only when the
held-back rows' loss falls by more than ``SOLVE_MARGIN`` of the mean's
(``skfed.online._network_function``).

References: the huber objective written in NumPy over the pooled rows that
are not held back, minimized by SciPy's L-BFGS-B on the plain weights; the
gate's losses recomputed in NumPy from the estimator's encoded targets; the
bytes in closed form from the solve's rounds.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize

import skfed.online._network_function as nf
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDRegressor

from .test_online_network_function import rbf, ring

HEADER = 16  # SimulatedNetwork's default header bytes


def _data(seed=0, noise=0.1, n=50):
    # 6 nodes; a smooth shared function with a node offset (the mean of the
    # nodes' functions is blurred, so a re-solve has something to gain).
    rng = np.random.RandomState(seed)
    n_nodes = 6
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, 2))
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] + 0.05 * groups + noise * rng.normal(size=len(X))
    w = 0.5 + rng.uniform(size=len(y))
    return X, y, groups, w


def _fit(X, y, groups, w, random_state=0, **params):
    est = DecentralizedKernelSGDRegressor(**{**dict(
        kernel="rbf", gamma=0.5, epsilon=0.05, max_dictionary_size=15, max_epochs=2,
        alpha=1e-2, consensus_penalty=0.1, exchange_every=None,
        network=SimulatedNetwork(ring(6)), random_state=random_state), **params})
    return est.fit(X, y, groups=groups, sample_weight=w)


def _huber(K, Kzz, y, w, alpha, delta):
    """NumPy: ``sum_s w_s huber(f(x_s) - y_s) + (alpha W / 2) a' Kzz a``."""
    W = w.sum()

    def value_grad(a):
        r = K @ a - y
        value = np.where(np.abs(r) <= delta, 0.5 * r * r, delta * (np.abs(r) - 0.5 * delta))
        Ka = Kzz @ a
        return (float(w @ value + 0.5 * alpha * W * a @ Ka),
                K.T @ (w * np.clip(r, -delta, delta)) + alpha * W * Ka)

    return value_grad


def _held(est, groups):
    """The held-back rows, drawn again from the public seed the estimator
    keeps (per node, its rows in order)."""
    held = np.zeros(len(groups), dtype=bool)
    for node in np.unique(groups):
        rows = np.flatnonzero(groups == node)
        rng = np.random.default_rng([est._network_seed, est._n_calls, 7949, int(node)])
        held[rows] = rng.random(len(rows)) < 0.2
    return held


def test_solve_equals_scipy_gate_equals_numpy_and_bytes_are_closed_form():
    X, y, groups, w = _data()
    est = _fit(X, y, groups, w)
    held = _held(est, groups)
    # Intermediate: about a fifth held back, every node keeps rows on both sides.
    assert 0.12 < held.mean() < 0.28
    for node in range(6):
        assert 0 < held[groups == node].sum() < 50
    D = est.network_dictionary_[0]
    m = len(D)
    assert 5 <= m < len(X)
    y_enc = est._encode_targets(y)
    K, Kzz = rbf(X, D, 0.5), rbf(D, D, 0.5)
    fit_rows = ~held
    value_grad = _huber(K[fit_rows], Kzz, y_enc[fit_rows], w[fit_rows], 1e-2,
                        float(est.loss_epsilon))
    ref = minimize(value_grad, np.zeros(m), jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "gtol": 1e-10, "ftol": 1e-15})
    assert ref.success
    mean = est._network_mean_coef[0][:, 0]
    assert est._network_solved.tolist() == [True]
    solved = est.network_coef_[0][:, 0]
    j_pkg, j_ref, j_mean = (value_grad(a)[0] for a in (solved, ref.x, mean))
    assert j_pkg <= j_ref * (1 + 1e-6) and j_pkg < j_mean
    assert_allclose(K @ solved, K @ ref.x, rtol=0, atol=2e-3)
    # The gate in NumPy: the held-back rows' weighted loss with the mean and
    # with the solved weights, and the 1 % margin.
    delta = float(est.loss_epsilon)

    def held_loss(a):
        r = K[held] @ a - y_enc[held]
        return float(w[held] @ np.where(np.abs(r) <= delta, 0.5 * r * r,
                                        delta * (np.abs(r) - 0.5 * delta)))

    assert_allclose(est._network_held_losses[0], [held_loss(mean), held_loss(solved)],
                    rtol=1e-10)
    assert held_loss(solved) <= 0.99 * held_loss(mean)
    # Bytes: per evaluation m + 2 float64 up and m down each of the ring's 5
    # tree edges, then the gate's 2 float64 up and an int32 down.
    rounds, edges = int(est._network_solve_rounds[0]), 5
    assert rounds >= 3
    solve_bytes = edges * ((rounds - 1) * (2 * HEADER + (2 * m + 2) * 8) + 2 * HEADER + 2 * 8 + 4)
    log = est.network_communication_
    plain = est._build_network_function()   # steps 1-3 again (no samples: no solve)
    assert_array_equal(est.network_coef_[0][:, 0], mean)
    assert log.total_bytes - plain.total_bytes == solve_bytes
    assert log.total_messages - plain.total_messages == 2 * edges * rounds
    # Each tree round goes up and back down the ring's tree of depth 3: 6
    # rounds (no drops).
    assert log.n_rounds - plain.n_rounds == 6 * rounds


def test_gate_rejects_a_solve_that_does_not_clear_the_margin(monkeypatch):
    # A margin no solve clears: the mean is kept bit for bit, the solve's and
    # the gate's rounds still counted; the decision is the NumPy one.
    X, y, groups, w = _data(seed=1)
    kept = _fit(X, y, groups, w)
    monkeypatch.setattr(nf, "SOLVE_MARGIN", 0.999)
    est = _fit(X, y, groups, w)
    mean_loss, solved_loss = est._network_held_losses[0]
    assert solved_loss > (1 - 0.999) * mean_loss
    assert est._network_solved.tolist() == [False]
    assert_array_equal(est.network_coef_[0], est._network_mean_coef[0])
    assert_array_equal(est._network_mean_coef[0], kept._network_mean_coef[0])
    assert est._network_solve_rounds[0] == kept._network_solve_rounds[0] >= 3
    assert est.n_bytes_sent_ == kept.n_bytes_sent_
    assert not np.array_equal(est.predict(X[:5], groups=[99] * 5),
                              kept.predict(X[:5], groups=[99] * 5))


def test_held_back_rows_follow_random_state_only():
    X, y, groups, w = _data()
    a, b = _fit(X, y, groups, w, random_state=3), _fit(X, y, groups, w, random_state=3)
    c = _fit(X, y, groups, w, random_state=4)
    assert_array_equal(_held(a, groups), nf.held_back_rows(groups, a._held_back_seed()))
    assert_array_equal(nf.held_back_rows(groups, a._held_back_seed()),
                       nf.held_back_rows(groups, b._held_back_seed()))
    assert not np.array_equal(nf.held_back_rows(groups, a._held_back_seed()),
                              nf.held_back_rows(groups, c._held_back_seed()))
    assert_array_equal(a.network_coef_[0], b.network_coef_[0])
    # A process holding some nodes' rows only draws the same for them (MPI).
    part = groups >= 3
    assert_array_equal(nf.held_back_rows(groups[part], a._held_back_seed()),
                       nf.held_back_rows(groups, a._held_back_seed())[part])


def test_join_leaves_fitted_nodes_bit_identical():
    X, y, groups, w = _data()
    est = _fit(X, y, groups, w)
    assert est._network_solved.tolist() == [True]
    before = [c.copy() for c in est.dual_coef_], est.predict(X, groups=groups)
    network = est.network_coef_[0].copy()
    rng = np.random.RandomState(9)
    Xn = rng.normal(size=(10, 2))
    est.add_nodes(Xn, np.sin(2 * Xn[:, 0]), groups=[99] * 10)
    for old, new in zip(before[0], est.dual_coef_[:6]):
        assert_array_equal(old, new)
    assert_array_equal(before[1], est.predict(X, groups=groups))
    assert_array_equal(network, est.network_coef_[0])


@pytest.mark.parametrize("loss", ["squared_error", "epsilon_insensitive"])
def test_other_losses_solve_and_gate(loss):
    X, y, groups, w = _data()
    est = _fit(X, y, groups, w, loss=loss, loss_epsilon=1.0 if loss == "squared_error" else 0.1)
    mean_loss, solved_loss = est._network_held_losses[0]
    assert mean_loss > 0
    assert est._network_solved[0] == (solved_loss <= 0.99 * mean_loss)
    assert est._network_solve_rounds[0] >= 2
