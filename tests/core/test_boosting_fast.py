"""Dada's Frank-Wolfe and Perso-lin kernels against small NumPy implementations.

The references implement eqs. 1, 3 and 4 of Zantedeschi, Bellet & Tommasi
(AISTATS 2020) directly (gradient of the whole objective, l1-ball vertex,
step ``2K / (t + 2K)``) and the Perso-lin block gradient step, from the
formulas, not from the kernels.
"""

import pickle

import numpy as np
import pytest
from scipy.special import expit, logsumexp, softmax

from skfed._core._boosting_fast import (
    Logistic,
    SquaredHinge,
    fw_async,
    fw_local,
    lin_async,
    lin_local,
    lin_local_solve,
    lin_losses,
    lse_losses,
)
from skfed._core._comm import CommCounter
from skfed.network import index_bits, payload_bytes

from tests._helpers.persolin import jacobi_numpy, local_solve_numpy

HEADER = 16


def _vertex(grad):
    """Coordinate of the Frank-Wolfe vertex: largest |g_j|, ties (within a
    relative 1e-12) to the smallest index."""
    a = np.abs(grad)
    return int(np.flatnonzero(a >= a.max() * (1 - 1e-12))[0])


# --------------------------------------------------------------- references
def ref_objective(alpha, H, Y, sw, offsets, W, c, mu):
    """Eq. 1 (nodes of degree 0 weigh their loss by 1)."""
    K, P, _ = alpha.shape
    d = W.sum(axis=1)
    value = 0.0
    for k in range(K):
        rows = slice(offsets[k], offsets[k + 1])
        weight = (d[k] if d[k] > 0 else 1.0) * c[k]
        for p in range(P):
            margins = Y[p, rows] * (H[rows] @ alpha[k, p])
            value += weight * logsumexp(-margins, b=sw[rows])
    for k in range(K):
        for l in range(k + 1, K):
            value += 0.5 * mu * W[k, l] * np.sum((alpha[k] - alpha[l]) ** 2)
    return value


def ref_fw_step(alpha, H, Y, sw, offsets, W, c, mu, beta, k, t):
    """One Frank-Wolfe step of node k on every problem (eqs. 3-4)."""
    K, P, n = alpha.shape
    d = W.sum(axis=1)
    weight = (d[k] if d[k] > 0 else 1.0) * c[k]
    gamma = 2.0 * K / (t + 2.0 * K)
    rows = slice(offsets[k], offsets[k + 1])
    new = alpha.copy()
    coords, vertices = [], []
    for p in range(P):
        A = Y[p, rows, None] * H[rows]  # margin matrix A_k
        eta = softmax(-A @ alpha[k, p] + np.log(sw[rows]))
        grad = -weight * A.T @ eta + mu * (d[k] * alpha[k, p] - W[k] @ alpha[:, p])
        j = _vertex(grad)
        s = np.zeros(n)
        s[j] = -beta * np.sign(grad[j]) if grad[j] != 0 else beta
        new[k, p] = (1 - gamma) * alpha[k, p] + gamma * s
        coords.append(j)
        vertices.append(s[j])
    return new, coords, vertices, gamma


def _problem(rng, K=4, P=1, n_base=7, sizes=(3, 5, 4, 6), dtype=np.float64, real_h=False):
    sizes = np.asarray(sizes[:K])
    offsets = np.zeros(K + 1, dtype=np.intp)
    offsets[1:] = np.cumsum(sizes)
    n = offsets[-1]
    if real_h:
        H = rng.uniform(-1, 1, size=(n, n_base))
    else:
        H = rng.choice([-1.0, 1.0], size=(n, n_base))
    Y = rng.choice([-1.0, 1.0], size=(P, n))
    sw = rng.uniform(0.5, 2.0, size=n)
    W = np.triu(rng.uniform(0, 1, size=(K, K)) * (rng.uniform(size=(K, K)) < 0.7), 1)
    W = W + W.T
    mass = np.add.reduceat(sw, offsets[:-1])
    c = mass / mass.max()
    return (
        np.ascontiguousarray(H, dtype=dtype),
        np.ascontiguousarray(Y, dtype=dtype),
        np.ascontiguousarray(sw, dtype=dtype),
        offsets,
        W,
        c,
    )


def _csr(W):
    from scipy import sparse

    M = sparse.csr_matrix(W)
    M.sort_indices()
    return (
        M.indptr.astype(np.intp),
        M.indices.astype(np.intp),
        M.data.astype(np.float64),
    )


def _margins(alpha, H, Y, offsets):
    P = Y.shape[0]
    out = np.zeros((P, H.shape[0]))
    for k in range(len(offsets) - 1):
        rows = slice(offsets[k], offsets[k + 1])
        for p in range(P):
            out[p, rows] = Y[p, rows] * (H[rows] @ alpha[k, p].astype(np.float64))
    return out


def _run_fw(H, Y, sw, offsets, W, c, alpha, *, mu, beta, t_start, n_steps, seed,
            offline=None, rogue=None, rogue_mode=0, budget=-1, counter=None):
    K = len(offsets) - 1
    P = Y.shape[0]
    dtype = H.dtype
    alpha = np.array(alpha, dtype=dtype, order="C", copy=True)
    public = alpha.copy()
    margins = _margins(alpha, H, Y, offsets)
    losses = np.zeros((K, P))
    lse_losses(margins, sw, offsets, losses)
    indptr, indices, weights = _csr(W)
    counter = CommCounter(K, header_bytes=HEADER) if counter is None else counter
    n_base = H.shape[1]
    curve = np.zeros(n_steps)
    trace = (np.zeros(n_steps, np.intp), np.zeros(n_steps, np.intp), np.zeros(n_steps))
    objective = ref_objective(alpha.astype(np.float64), H, Y, sw, offsets, W, c, mu)
    out = fw_async(
        H, Y, sw, offsets, alpha, public, margins, losses, indptr, indices, weights,
        W.sum(axis=1), c, beta, mu, t_start, n_steps, np.array([seed], np.uint32),
        np.arange(1, K + 1, dtype=np.uint32),
        np.zeros(0, np.uint8) if offline is None else offline.astype(np.uint8),
        np.zeros(K, np.uint8) if rogue is None else rogue.astype(np.uint8), rogue_mode,
        counter, payload_bytes(n_float64=P, n_bits=P * index_bits(n_base)), budget, 0,
        objective, curve, *trace,
    )
    return out, alpha, public, margins, losses, curve, trace, counter


# ------------------------------------------------------------ Frank-Wolfe
@pytest.mark.parametrize("P", [1, 3])
@pytest.mark.parametrize("real_h", [False, True])
def test_one_fw_step_matches_numpy_eqs_3_4(P, real_h):
    rng = np.random.RandomState(0)
    H, Y, sw, offsets, W, c = _problem(rng, P=P, real_h=real_h)
    K, n_base = len(offsets) - 1, H.shape[1]
    beta, mu, t = 2.0, 0.7, 5
    alpha0 = rng.uniform(-1, 1, size=(K, P, n_base))
    alpha0 *= beta / np.abs(alpha0).sum(axis=2, keepdims=True) * 0.8  # inside the l1 ball
    (n_done, n_updates, _, objective), alpha, public, margins, losses, curve, trace, _ = _run_fw(
        H, Y, sw, offsets, W, c, alpha0, mu=mu, beta=beta, t_start=t, n_steps=1, seed=7
    )
    assert (n_done, n_updates) == (1, 1)
    k = trace[0][0]
    ref, coords, vertices, gamma = ref_fw_step(alpha0, H, Y, sw, offsets, W, c, mu, beta, k, t)
    np.testing.assert_allclose(alpha, ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(public, alpha)
    assert trace[1][0] == coords[0]
    assert trace[2][0] == pytest.approx(gamma * vertices[0] / beta)
    # Incremental margins, losses and objective equal their direct computation.
    np.testing.assert_allclose(margins, _margins(ref, H, Y, offsets), rtol=1e-12, atol=1e-12)
    ref_losses = np.zeros_like(losses)
    lse_losses(_margins(ref, H, Y, offsets), sw, offsets, ref_losses)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-12)
    assert objective == pytest.approx(ref_objective(ref, H, Y, sw, offsets, W, c, mu), rel=1e-12)
    assert curve[0] == pytest.approx(objective)
    assert np.all(np.abs(alpha).sum(axis=2) <= beta + 1e-12)


def test_many_fw_steps_replay_the_same_sequence_in_numpy():
    rng = np.random.RandomState(1)
    H, Y, sw, offsets, W, c = _problem(rng, P=2)
    K, n_base = len(offsets) - 1, H.shape[1]
    beta, mu, n_steps = 1.5, 0.3, 60
    alpha0 = np.zeros((K, 2, n_base))
    out, alpha, _, _, _, curve, trace, _ = _run_fw(
        H, Y, sw, offsets, W, c, alpha0, mu=mu, beta=beta, t_start=0, n_steps=n_steps, seed=3
    )
    ref = alpha0.copy()
    objective = []
    for t, k in enumerate(trace[0]):
        ref, _, _, _ = ref_fw_step(ref, H, Y, sw, offsets, W, c, mu, beta, k, t)
        objective.append(ref_objective(ref, H, Y, sw, offsets, W, c, mu))
    np.testing.assert_allclose(alpha, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(curve, objective, rtol=1e-9)
    assert out[1] == n_steps
    # Every node woke up: the clock draws uniformly over the nodes.
    assert set(trace[0].tolist()) == set(range(K))


def test_fw_float32_agrees_with_float64():
    rng = np.random.RandomState(2)
    problem64 = _problem(rng, P=1)
    H, Y, sw, offsets, W, c = problem64
    args = dict(mu=0.5, beta=3.0, t_start=0, n_steps=40, seed=11)
    K, n_base = len(offsets) - 1, H.shape[1]
    _, a64, *_ = _run_fw(H, Y, sw, offsets, W, c, np.zeros((K, 1, n_base)), **args)
    _, a32, *_ = _run_fw(
        H.astype(np.float32), Y.astype(np.float32), sw.astype(np.float32), offsets, W, c,
        np.zeros((K, 1, n_base)), **args
    )
    assert a32.dtype == np.float32
    np.testing.assert_allclose(a32, a64, rtol=1e-4, atol=1e-5)


def test_fw_messages_are_counted_per_neighbour():
    rng = np.random.RandomState(3)
    H, Y, sw, offsets, W, c = _problem(rng, P=2, n_base=300)
    K = len(offsets) - 1
    out, *_, trace, counter = _run_fw(
        H, Y, sw, offsets, W, c, np.zeros((K, 2, 300)), mu=0.1, beta=1.0, t_start=0,
        n_steps=25, seed=5,
    )
    snap = counter.snapshot()
    degree_count = (W > 0).sum(axis=1)
    # 2 problems: 2 x 9 bits of index (300 stumps) + 2 float64 signed steps.
    payload = 2 * 8 + (2 * 9 + 7) // 8
    assert payload == payload_bytes(n_float64=2, n_bits=2 * index_bits(300))
    expected = sum(degree_count[k] * (payload + HEADER) for k in trace[0])
    assert snap["pair_bytes"].sum() == expected == out[2]
    assert len(snap["round_bytes"]) == 25  # one round per global iteration
    for k in range(K):
        assert snap["pair_messages"][k].sum() == degree_count[k] * np.sum(trace[0] == k)


def test_fw_offline_nodes_do_nothing_and_budget_stops():
    rng = np.random.RandomState(4)
    H, Y, sw, offsets, W, c = _problem(rng)
    K, n_base = len(offsets) - 1, H.shape[1]
    offline = np.ones(10, dtype=bool)
    out, alpha, *_, counter = _run_fw(
        H, Y, sw, offsets, W, c, np.zeros((K, 1, n_base)), mu=1.0, beta=1.0, t_start=0,
        n_steps=10, seed=1, offline=offline,
    )
    assert out[:2] == (10, 0)
    assert not alpha.any() and counter.snapshot()["pair_bytes"].sum() == 0
    out, *_ = _run_fw(
        H, Y, sw, offsets, W, c, np.zeros((K, 1, n_base)), mu=1.0, beta=1.0, t_start=0,
        n_steps=50, seed=1, budget=100,
    )
    assert out[0] < 50 and out[2] >= 100


def test_rogue_complement_sends_the_opposite_vertex():
    rng = np.random.RandomState(5)
    H, Y, sw, offsets, W, c = _problem(rng)
    K, n_base = len(offsets) - 1, H.shape[1]
    rogue = np.ones(K, dtype=bool)
    out, alpha, public, *_ = _run_fw(
        H, Y, sw, offsets, W, c, np.zeros((K, 1, n_base)), mu=0.0, beta=1.0, t_start=0,
        n_steps=30, seed=2, rogue=rogue,
    )
    # With mu = 0 the nodes ignore each other, so honest models are unchanged
    # and the copies neighbours hold are exactly the negated models.
    np.testing.assert_allclose(public, -alpha)


def test_local_fw_is_classical_frank_wolfe():
    rng = np.random.RandomState(6)
    H, Y, sw, offsets, W, c = _problem(rng, P=2)
    K, n_base = len(offsets) - 1, H.shape[1]
    alpha = np.zeros((K, 2, n_base))
    margins = np.zeros((2, H.shape[0]))
    losses = np.zeros((K, 2))
    fw_local(H, Y, sw, offsets, alpha, margins, losses, 2.0, 15, 0, K)
    for k in range(K):
        rows = slice(offsets[k], offsets[k + 1])
        for p in range(2):
            a = np.zeros(n_base)
            A = Y[p, rows, None] * H[rows]
            for tau in range(15):
                grad = -A.T @ softmax(-A @ a + np.log(sw[rows]))
                j = _vertex(grad)
                s = np.zeros(n_base)
                s[j] = -2.0 * np.sign(grad[j])
                a = a + 2.0 / (tau + 2.0) * (s - a)
            np.testing.assert_allclose(alpha[k, p], a, rtol=1e-12, atol=1e-14)
            assert losses[k, p] == pytest.approx(logsumexp(-A @ a, b=sw[rows]))


def test_lse_losses_match_scipy():
    rng = np.random.RandomState(7)
    offsets = np.array([0, 3, 10, 11], dtype=np.intp)
    margins = rng.normal(scale=30, size=(2, 11))
    sw = rng.uniform(0.1, 3, size=11)
    sw[4] = 0.0
    out = np.zeros((3, 2))
    lse_losses(margins, sw, offsets, out)
    for k in range(3):
        rows = slice(offsets[k], offsets[k + 1])
        for p in range(2):
            assert out[k, p] == pytest.approx(logsumexp(-margins[p, rows], b=sw[rows]), rel=1e-12)


# ---------------------------------------------------------------- Perso-lin
@pytest.mark.parametrize("loss, name", [(Logistic(), "logistic"), (SquaredHinge(), "sq_hinge")])
def test_losses_values_derivatives_and_pickle(loss, name):
    z = np.linspace(-40, 40, 161)
    if name == "logistic":
        expected = np.logaddexp(0, -z)
        dexpected = -expit(-z)
        curvature = 0.25
    else:
        expected = np.maximum(0, 1 - z) ** 2
        dexpected = -2 * np.maximum(0, 1 - z)
        curvature = 2.0
    np.testing.assert_allclose([loss.py_loss(v) for v in z], expected, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose([loss.py_dloss(v) for v in z], dexpected, rtol=1e-12, atol=1e-300)
    eps = 1e-6
    for v in (-1.3, 0.2, 0.9, 2.5):
        fd = (loss.py_loss(v + eps) - loss.py_loss(v - eps)) / (2 * eps)
        assert loss.py_dloss(v) == pytest.approx(fd, rel=1e-6, abs=1e-9)
        fd2 = (loss.py_dloss(v + eps) - loss.py_dloss(v - eps)) / (2 * eps)
        assert fd2 <= curvature + 1e-6
    clone = pickle.loads(pickle.dumps(loss))
    assert type(clone) is type(loss) and clone.py_loss(0.3) == loss.py_loss(0.3)


def ref_lin_loss(theta, X, y, sw, l2, n_pen, loss):
    z = y * (X @ theta)
    value = np.sum(sw * np.array([loss.py_loss(v) for v in z])) / sw.sum()
    grad = X.T @ (sw * np.array([loss.py_dloss(v) for v in z]) * y) / sw.sum()
    value += 0.5 * l2 * np.sum(theta[:n_pen] ** 2)
    grad[:n_pen] += l2 * theta[:n_pen]
    return value, grad


@pytest.mark.parametrize("loss", [Logistic(), SquaredHinge()])
def test_one_perso_lin_step_matches_numpy(loss):
    rng = np.random.RandomState(8)
    H, Y, sw, offsets, W, c = _problem(rng, P=2, real_h=True)
    X = np.ascontiguousarray(np.column_stack([H[:, :-1], np.ones(H.shape[0])]))
    K, P, n = len(offsets) - 1, 2, X.shape[1]
    l2, n_pen, mu = 0.05, n - 1, 0.8
    inv_mass = 1.0 / np.add.reduceat(sw, offsets[:-1])
    lip = np.array([
        loss.py_curvature() * np.linalg.norm(np.sqrt(sw[offsets[k]:offsets[k + 1], None])
                                             * X[offsets[k]:offsets[k + 1]], 2) ** 2
        * inv_mass[k] + l2
        for k in range(K)
    ])
    theta0 = rng.normal(size=(K, P, n))
    theta, public = theta0.copy(), theta0.copy()
    losses = np.zeros((K, P))
    lin_losses(X, Y, sw, offsets, theta, loss, inv_mass, l2, n_pen, losses)
    indptr, indices, weights = _csr(W)
    d = W.sum(axis=1)
    counter = CommCounter(K, header_bytes=HEADER)
    trace = np.zeros(1, np.intp)
    curve = np.zeros(1)
    objective0 = sum((d[k] if d[k] > 0 else 1) * c[k] * losses[k].sum() for k in range(K)) + sum(
        0.5 * mu * W[k, l] * np.sum((theta0[k] - theta0[l]) ** 2)
        for k in range(K) for l in range(k + 1, K)
    )
    out = lin_async(
        X, Y, sw, offsets, theta, public, losses, loss, inv_mass, lip, l2, n_pen, indptr,
        indices, weights, d, c, mu, 1, np.array([9], np.uint32), np.arange(1, K + 1, dtype=np.uint32),
        np.zeros(0, np.uint8), np.zeros(K, np.uint8), 0, counter, 8 * P * n, -1, 0, objective0,
        curve, trace,
    )
    k = trace[0]
    weight = (d[k] if d[k] > 0 else 1) * c[k]
    L = weight * lip[k] + mu * d[k]
    ref = theta0.copy()
    rows = slice(offsets[k], offsets[k + 1])
    for p in range(P):
        _, g = ref_lin_loss(theta0[k, p], X[rows], Y[p, rows], sw[rows], l2, n_pen, loss)
        grad = weight * g + mu * (d[k] * theta0[k, p] - W[k] @ theta0[:, p])
        ref[k, p] = theta0[k, p] - grad / L
    np.testing.assert_allclose(theta, ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(public, theta)
    new_obj = sum(
        (d[j] if d[j] > 0 else 1) * c[j] * sum(
            ref_lin_loss(ref[j, p], X[offsets[j]:offsets[j + 1]], Y[p, offsets[j]:offsets[j + 1]],
                         sw[offsets[j]:offsets[j + 1]], l2, n_pen, loss)[0]
            for p in range(P)
        ) for j in range(K)
    ) + sum(0.5 * mu * W[a, b] * np.sum((ref[a] - ref[b]) ** 2)
            for a in range(K) for b in range(a + 1, K))
    assert out[3] == pytest.approx(new_obj, rel=1e-10)
    assert counter.snapshot()["pair_bytes"].sum() == (W[k] > 0).sum() * (8 * P * n + HEADER)


def test_lin_local_converges_to_the_node_optimum():
    from scipy.optimize import minimize

    rng = np.random.RandomState(9)
    X = np.column_stack([rng.normal(size=(30, 3)), np.ones(30)])
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=30) > 0, 1.0, -1.0)
    sw = np.ones(30)
    offsets = np.array([0, 30], dtype=np.intp)
    loss = Logistic()
    l2 = 0.1
    lip = np.array([0.25 * np.linalg.norm(X, 2) ** 2 / 30 + l2])
    theta = np.zeros((1, 1, 4))
    losses = np.zeros((1, 1))
    lin_local(X, y[None, :].copy(), sw, offsets, theta, loss, np.array([1 / 30]), lip, l2, 3,
              losses, 3000, 0, 1)
    res = minimize(lambda t: ref_lin_loss(t, X, y, sw, l2, 3, loss), np.zeros(4), jac=True,
                   method="L-BFGS-B", options=dict(gtol=1e-12, ftol=1e-15))
    np.testing.assert_allclose(theta[0, 0], res.x, atol=1e-6)
    assert losses[0, 0] == pytest.approx(res.fun, rel=1e-9)


@pytest.mark.parametrize("loss", [Logistic(), SquaredHinge()])
def test_lin_local_solve_matches_numpy_and_reaches_the_optimum(loss):
    # Two nodes (the second with a feature scaled by 30), two problems: the
    # same iterates and step counts as the NumPy reference (plain
    # accelerated gradient in the Jacobi-scaled coordinates), and at a tight
    # tolerance the node optimum of an independent solver.
    from scipy.optimize import minimize

    rng = np.random.RandomState(4)
    X = np.column_stack([rng.normal(size=(50, 3)), np.ones(50)])
    X[25:, 1] *= 30.0
    Y = np.vstack([np.where(X[:, 0] + 0.5 * rng.normal(size=50) > 0, 1.0, -1.0),
                   np.where(X[:, 2] - X[:, 1] / 30 > 0, 1.0, -1.0)])
    sw = rng.uniform(0.5, 2.0, 50)
    offsets = np.array([0, 25, 50], dtype=np.intp)
    l2, n_pen = 0.05, 3
    inv_mass = 1.0 / np.add.reduceat(sw, offsets[:-1])
    pre = [jacobi_numpy(X[a:b], sw[a:b], loss.py_curvature(), l2, n_pen)
           for a, b in zip(offsets[:-1], offsets[1:])]
    scale = np.array([sc for sc, _ in pre])
    lip = np.array([lp for _, lp in pre])
    # the scaled coordinates have a unit curvature bound on the diagonal
    assert (lip >= 1.0).all()
    steps = {}
    for tol, max_iter in [(1e-3, 10_000), (1e-2, 7), (1e-11, 100_000)]:
        theta = np.zeros((2, 2, 4))
        losses = np.zeros((2, 2))
        n_iter = np.zeros(2, dtype=np.intp)
        lin_local_solve(X, Y, sw, offsets, theta, loss, inv_mass, scale, lip, l2, n_pen,
                        losses, tol, max_iter, 0, 2, n_iter)
        for k in range(2):
            rows = slice(offsets[k], offsets[k + 1])
            total = 0
            for p in range(2):
                ref, it = local_solve_numpy(
                    lambda t: ref_lin_loss(t, X[rows], Y[p, rows], sw[rows], l2, n_pen, loss)[1],
                    4, scale[k], lip[k], tol, max_iter)
                total += it
                np.testing.assert_allclose(theta[k, p], ref, rtol=1e-9, atol=1e-12)
                value = ref_lin_loss(theta[k, p], X[rows], Y[p, rows], sw[rows], l2, n_pen,
                                     loss)[0]
                assert losses[k, p] == pytest.approx(value, rel=1e-12)
                if tol == 1e-11:
                    res = minimize(lambda t: ref_lin_loss(t, X[rows], Y[p, rows], sw[rows], l2,
                                                          n_pen, loss),
                                   np.zeros(4), jac=True, method="L-BFGS-B",
                                   options=dict(gtol=1e-13, ftol=1e-16, maxiter=10_000))
                    np.testing.assert_allclose(theta[k, p], res.x, atol=1e-6)
            assert n_iter[k] == total <= 2 * max_iter
        steps[tol] = n_iter.copy()
    # a tighter tolerance takes more steps on both nodes
    assert (steps[1e-11] > steps[1e-3]).all() and (steps[1e-3] > 0).all()


def test_lin_local_solve_steps_do_not_depend_on_a_feature_scale():
    # Node 1 is node 0 with an unpenalized column in other units (x1000):
    # the same problem in other coordinates; both have a column of zeros.  The
    # Jacobi-preconditioned solve takes the same steps, its coefficient of
    # that column is 1000x smaller, and the zero column (D_j = 0, scale 0)
    # stays at its start.
    rng = np.random.RandomState(5)
    X0 = np.column_stack([rng.normal(size=(40, 2)), rng.normal(size=40), np.ones(40)])
    y = np.where(X0[:, 0] - X0[:, 2] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    X1 = X0.copy()
    X1[:, 2] *= 1e3
    X = np.column_stack([np.vstack([X0, X1]), np.zeros(80)])
    Y = np.concatenate([y, y])[None, :]
    sw = np.ones(80)
    offsets = np.array([0, 40, 80], dtype=np.intp)
    l2, n_pen, loss = 0.05, 2, Logistic()
    pre = [jacobi_numpy(X[a:b], sw[a:b], 0.25, l2, n_pen) for a, b in [(0, 40), (40, 80)]]
    scale = np.array([sc for sc, _ in pre])
    lip = np.array([lp for _, lp in pre])
    assert (scale[:, 4] == 0.0).all() and scale[1, 2] == pytest.approx(scale[0, 2] / 1e3, rel=1e-12)
    theta = np.full((2, 1, 5), 0.0)
    theta[1, 0, 4] = 0.7  # the zero column's coefficient: not part of the problem
    losses = np.zeros((2, 1))
    n_iter = np.zeros(2, dtype=np.intp)
    lin_local_solve(X, Y, sw, offsets, theta, loss, np.full(2, 1 / 40), scale, lip, l2, n_pen,
                    losses, 1e-6, 10_000, 0, 2, n_iter)
    assert 10 < n_iter[0] == n_iter[1] < 10_000
    np.testing.assert_allclose(theta[1, 0, 2] * 1e3, theta[0, 0, 2], rtol=1e-8)
    np.testing.assert_allclose(theta[1, 0, [0, 1, 3]], theta[0, 0, [0, 1, 3]], rtol=1e-8)
    assert theta[1, 0, 4] == 0.7
    assert losses[1, 0] == pytest.approx(losses[0, 0], rel=1e-10)
