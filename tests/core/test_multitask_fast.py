"""The Cython node solvers of kernelized MOCHA against NumPy references."""

import pickle

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from skfed._core._multitask_fast import (
    Hinge,
    Logistic,
    Squared,
    SquaredHinge,
    gap_terms,
    local_solve_kernel,
    local_solve_kernel_nodes,
    local_solve_linear,
    update_state,
    update_states,
)

RAND_R_MAX = 0x7FFFFFFF


# --------------------------------------------------------------- references
def _np_loss(name, z, y):
    if name == "hinge":
        return np.maximum(0.0, 1.0 - y * z)
    if name == "squared_hinge":
        return np.maximum(0.0, 1.0 - y * z) ** 2
    if name == "logistic":
        return np.logaddexp(0.0, -y * z)
    return 0.5 * (z - y) ** 2


def _np_conjugate(name, g, y):
    """l*(-g) from the definition sup_z (-g z - l(z)), by a fine 1-d search."""
    res = minimize_scalar(
        lambda z: g * z + _np_loss(name, z, y), bounds=(-60, 60), method="bounded",
        options={"xatol": 1e-12},
    )
    return -res.fun


def _xorshift(state):
    if state == 0:
        state = 49421
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state, state & RAND_R_MAX


def _shuffle(perm, state):
    for k in range(len(perm) - 1, 0, -1):
        state, r = _xorshift(state)
        j = r % (k + 1)
        perm[k], perm[j] = perm[j], perm[k]
    return state


def _np_local_solve(K, y, sw, g, p, c, loss_name, n_steps, seed):
    """Plain NumPy / Python dual coordinate ascent with the same visiting order."""
    LOSS = {"hinge": Hinge, "squared_hinge": SquaredHinge, "logistic": Logistic,
            "squared": Squared}[loss_name]()
    g, p = g.copy(), p.copy()
    n = len(y)
    delta = np.zeros(n)
    perm = list(range(n))
    state = int(seed)
    done = 0
    while done < n_steps:
        state = _shuffle(perm, state)
        for i in perm:
            if done >= n_steps:
                break
            done += 1
            if sw[i] <= 0:
                continue
            q = c * K[i, i] * sw[i]
            g_new = LOSS.py_step(g[i], p[i], y[i], q)
            if g_new != g[i]:
                da = sw[i] * (g_new - g[i])
                g[i] = g_new
                delta[i] += da
                p += c * da * K[i]
    return g, p, delta, state


def _problem(loss_name, n=12, d=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    K = np.exp(-0.3 * ((X[:, None] - X[None]) ** 2).sum(-1)) + 1.0
    if loss_name == "squared":
        y = rng.normal(size=n)
        g = 0.1 * rng.normal(size=n)
    else:
        y = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
        a = rng.uniform(0.05, 0.95, size=n) if loss_name != "squared_hinge" else rng.uniform(0, 2, n)
        g = y * a
    sw = rng.uniform(0.5, 2.0, size=n)
    sw[3] = 0.0
    g[3] = 0.0
    p = 0.5 * rng.normal(size=n)
    return X, K, y, sw, g, p


LOSSES = [("hinge", Hinge), ("squared_hinge", SquaredHinge), ("logistic", Logistic),
          ("squared", Squared)]


# ------------------------------------------------------------------- losses
@pytest.mark.parametrize("name, cls", LOSSES)
def test_loss_values_and_conjugates_match_definitions(name, cls):
    loss = cls()
    rng = np.random.RandomState(1)
    for _ in range(8):
        y = rng.choice([-1.0, 1.0]) if name != "squared" else rng.normal()
        z = 3 * rng.normal()
        assert loss.py_value(z, y) == pytest.approx(_np_loss(name, z, y), rel=1e-12)
        if name == "squared":
            g = rng.normal()
        elif name == "squared_hinge":
            g = y * rng.uniform(0, 3)
        else:
            g = y * rng.uniform(0.01, 0.99)
        assert loss.py_conjugate(g, y) == pytest.approx(_np_conjugate(name, g, y), abs=1e-7)


@pytest.mark.parametrize("name, cls", LOSSES)
def test_coordinate_step_maximises_the_one_dimensional_problem(name, cls):
    loss = cls()
    rng = np.random.RandomState(2)
    for _ in range(10):
        y = rng.choice([-1.0, 1.0]) if name != "squared" else rng.normal()
        p = 2 * rng.normal()
        q = rng.exponential(2.0)
        if name == "squared":
            g, lo, hi = rng.normal(), -50.0, 50.0
        elif name == "squared_hinge":
            g, lo, hi = y * rng.uniform(0, 2), 0.0, 20.0
        else:
            g, lo, hi = y * rng.uniform(0.01, 0.99), 1e-12, 1 - 1e-12

        def objective(a):  # in terms of a = y g' (classification) or g'
            gn = y * a if name != "squared" else a
            return -(
                -loss.py_conjugate(gn, y) - (gn - g) * p - 0.5 * q * (gn - g) ** 2
            )

        res = minimize_scalar(objective, bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-12})
        step = loss.py_step(g, p, y, q)
        a_step = y * step if name != "squared" else step
        assert objective(a_step) <= res.fun + 1e-10
        assert a_step == pytest.approx(res.x, abs=1e-5)


def test_hinge_step_without_curvature():
    loss = Hinge()
    assert loss.py_step(0.0, 0.5, 1.0, 0.0) == 1.0  # margin < 1: a -> 1
    assert loss.py_step(1.0, 2.0, 1.0, 0.0) == 0.0  # margin > 1: a -> 0
    assert loss.py_step(-0.3, -1.0, -1.0, 0.0) == -0.3  # margin == 1: unchanged


@pytest.mark.parametrize("name, cls", LOSSES)
def test_losses_pickle(name, cls):
    loss = pickle.loads(pickle.dumps(cls()))
    assert type(loss) is cls
    assert loss.py_value(0.3, 1.0) == cls().py_value(0.3, 1.0)


# -------------------------------------------------------------- node solvers
@pytest.mark.parametrize("name", ["hinge", "squared_hinge", "logistic", "squared"])
@pytest.mark.parametrize("n_steps", [5, 12, 30])
def test_local_solve_kernel_matches_numpy_reference(name, n_steps):
    cls = dict(LOSSES)[name]
    X, K, y, sw, g0, p0 = _problem(name)
    c = 0.37
    g, p = g0.copy(), p0.copy()
    delta = np.zeros_like(g)
    state = np.array([12345], dtype=np.uint32)
    perm = np.empty(len(y), dtype=np.intp)
    done, gap0, gap1 = local_solve_kernel(K, y, sw, g, p, delta, c, cls(), n_steps, 0.0,
                                          state, perm)
    g_ref, p_ref, delta_ref, state_ref = _np_local_solve(K, y, sw, g0, p0, c, name,
                                                         n_steps, 12345)
    assert done == n_steps
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(p, p_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(delta, delta_ref, rtol=1e-12, atol=1e-14)
    assert int(state[0]) == state_ref
    # The local view is f + c K dalpha and the gaps are the documented sums.
    np.testing.assert_allclose(p, p0 + c * K @ delta, rtol=1e-10, atol=1e-12)
    loss = cls()

    def local_gap(pp, gg):
        return sum(
            sw[i] * (loss.py_value(pp[i], y[i]) + loss.py_conjugate(gg[i], y[i]) + gg[i] * pp[i])
            for i in range(len(y)) if sw[i] > 0
        )

    assert gap0 == pytest.approx(local_gap(p0, g0), rel=1e-12)
    assert gap1 == pytest.approx(local_gap(p, g), rel=1e-10, abs=1e-12)
    assert delta[3] == 0.0  # zero weight: never touched


@pytest.mark.parametrize("name", ["hinge", "squared"])
def test_local_solve_increases_the_local_subproblem(name):
    cls = dict(LOSSES)[name]
    X, K, y, sw, g0, p0 = _problem(name, n=20, seed=3)
    c = 0.2
    loss = cls()

    def subproblem(delta):
        g = g0 + np.divide(delta, sw, out=np.zeros_like(delta), where=sw > 0)
        conj = sum(sw[i] * loss.py_conjugate(g[i], y[i]) for i in range(len(y)) if sw[i] > 0)
        return -conj - delta @ p0 - 0.5 * c * delta @ K @ delta

    values = []
    for steps in [0, 10, 20, 60, 200]:
        g, p = g0.copy(), p0.copy()
        delta = np.zeros_like(g)
        local_solve_kernel(K, y, sw, g, p, delta, c, cls(), steps, 0.0,
                           np.array([7], dtype=np.uint32), np.empty(len(y), dtype=np.intp))
        values.append(subproblem(delta))
    assert np.all(np.diff(values) >= -1e-12)


def test_local_gap_target_stops_early():
    X, K, y, sw, g0, p0 = _problem("hinge", n=30, seed=4)
    runs = {}
    for theta in [0.0, 0.5]:
        g, p = g0.copy(), p0.copy()
        delta = np.zeros_like(g)
        runs[theta] = local_solve_kernel(
            K, y, sw, g, p, delta, 0.3, Hinge(), 50 * 30, theta,
            np.array([1], dtype=np.uint32), np.empty(30, dtype=np.intp),
        )
    done_full, gap0, _ = runs[0.0]
    done_theta, gap0_theta, gap_theta = runs[0.5]
    assert done_full == 50 * 30
    assert done_theta < done_full and done_theta % 30 == 0
    assert gap_theta <= 0.5 * gap0_theta


@pytest.mark.parametrize("name", ["hinge", "logistic", "squared"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_local_solve_linear_equals_kernel_solver_on_the_linear_kernel(name, dtype):
    cls = dict(LOSSES)[name]
    X, _, y, sw, g0, _ = _problem(name, n=15, d=4, seed=5)
    X = X.astype(dtype)
    rng = np.random.RandomState(0)
    w = rng.normal(size=4)
    K = X.astype(np.float64) @ X.astype(np.float64).T
    p0 = X.astype(np.float64) @ w
    c = 0.25
    g_k, p_k = g0.copy(), p0.copy()
    delta_k = np.zeros(15)
    local_solve_kernel(K, y, sw, g_k, p_k, delta_k, c, cls(), 40, 0.0,
                       np.array([99], dtype=np.uint32), np.empty(15, dtype=np.intp))
    g_l = g0.copy()
    dv = np.zeros(4)
    delta_l = np.zeros(15)
    sq = np.einsum("ij,ij->i", X.astype(np.float64), X.astype(np.float64))
    local_solve_linear(X, sq, y, sw, g_l, w, dv, delta_l, np.empty(4), np.empty(15), c,
                       cls(), 40, 0.0, np.array([99], dtype=np.uint32),
                       np.empty(15, dtype=np.intp))
    np.testing.assert_allclose(g_l, g_k, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(delta_l, delta_k, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dv, X.astype(np.float64).T @ delta_l, rtol=1e-9, atol=1e-12)



@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name, cls", [("hinge", Hinge), ("logistic", Logistic)])
def test_kernel_nodes_solver_equals_one_call_per_node(name, cls, dtype):
    # Three nodes (5, 7 and 4 samples), two problems, node 1 idle this round:
    # the batched solver is the per-node solver, bit for bit.
    rng = np.random.RandomState(8)
    counts = np.array([5, 7, 4])
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    n, m, P = counts.sum(), 3, 2
    blocks = []
    for n_t in counts:
        A = rng.normal(size=(n_t, 3))
        blocks.append(np.ascontiguousarray(np.exp(-((A[:, None] - A[None]) ** 2).sum(-1))
                                           .astype(dtype)))
    Y = np.where(rng.rand(P, n) > 0.5, 1.0, -1.0)
    sw = rng.uniform(0.5, 2.0, n)
    G = rng.uniform(0.05, 0.5, (P, n)) * Y  # feasible for both losses
    F = rng.normal(size=(P, n))
    c = np.array([0.3, 0.7, 1.1])
    steps = np.array([11, 9, 6], dtype=np.intp)
    states = np.array([5, 6, 7], dtype=np.uint32)
    active = np.array([0, 2], dtype=np.intp)
    G1, F1, D1, st1 = G.copy(), F.copy(), np.zeros((P, n)), states.copy()
    local_solve_kernel_nodes(blocks, Y, sw, G1, F1, D1, active, offsets, c, steps, 0.0, cls(),
                             st1)
    G2, F2, D2, st2 = G.copy(), F.copy(), np.zeros((P, n)), states.copy()
    for t in active:
        sl = slice(offsets[t], offsets[t + 1])
        perm = np.empty(counts[t], dtype=np.intp)
        for k in range(P):
            g, p, d = G2[k, sl].copy(), F2[k, sl].copy(), np.zeros(counts[t])
            state = st2[t:t + 1].copy()
            local_solve_kernel(blocks[t], Y[k, sl].copy(), sw[sl].copy(), g, p, d, c[t], cls(),
                               steps[t], 0.0, state, perm)
            G2[k, sl], F2[k, sl], D2[k, sl], st2[t] = g, p, d, state[0]
    for a, b in ((G1, G2), (F1, F2), (D1, D2), (st1, st2)):
        np.testing.assert_array_equal(a, b)
    assert np.any(D1[:, offsets[0]:offsets[1]] != 0)
    np.testing.assert_array_equal(D1[:, offsets[1]:offsets[2]], 0.0)  # node 1 idle
    np.testing.assert_array_equal(G1[:, offsets[1]:offsets[2]], G[:, offsets[1]:offsets[2]])
    with pytest.raises(ValueError, match="block of node 2"):
        local_solve_kernel_nodes(blocks[:2] + [blocks[0]], Y, sw, G1, F1, D1, active, offsets,
                                 c, steps, 0.0, cls(), st1)


def test_solvers_accept_read_only_inputs():
    X, K, y, sw, g0, p0 = _problem("hinge")
    for a in (K, y, sw):
        a.setflags(write=False)
    g, p = g0.copy(), p0.copy()
    local_solve_kernel(K, y, sw, g, p, np.zeros(12), 0.3, Hinge(), 12, 0.0,
                       np.array([1], dtype=np.uint32), np.empty(12, dtype=np.intp))


def test_bad_shapes_raise():
    X, K, y, sw, g, p = _problem("hinge")
    with pytest.raises(ValueError, match="n_samples"):
        local_solve_kernel(K, y[:5], sw, g, p, np.zeros(12), 0.3, Hinge(), 3, 0.0,
                           np.array([1], dtype=np.uint32), np.empty(12, dtype=np.intp))
    with pytest.raises(ValueError, match="square"):
        local_solve_kernel(np.ascontiguousarray(K[:, :5]), y, sw, g, p, np.zeros(12), 0.3, Hinge(), 3, 0.0,
                           np.array([1], dtype=np.uint32), np.empty(12, dtype=np.intp))


# ------------------------------------------------------- state and gap sums
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_update_state_matches_numpy(dtype):
    rng = np.random.RandomState(6)
    cache = rng.normal(size=(7, 9)).astype(dtype)
    S = rng.normal(size=(6, 9))
    slots = np.array([0, 3, 3, 6], dtype=np.intp)
    rows = np.array([1, 1, 5, 0], dtype=np.intp)
    coefs = rng.normal(size=4)
    expected = S.copy()
    for s, r, a in zip(slots, rows, coefs):
        expected[r] += a * cache[s].astype(np.float64)
    update_state(cache, slots, rows, coefs, S)
    np.testing.assert_allclose(S, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="out of range"):
        update_state(cache, np.array([7], dtype=np.intp), rows[:1], coefs[:1], S)



@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_update_states_matches_numpy(dtype):
    # Three nodes of 4, 5 and 3 samples, two problems: every change goes to
    # its own node through the own block, to the others through their
    # cached rows, and is skipped where the slot is -1.
    rng = np.random.RandomState(7)
    counts = [4, 5, 3]
    m, P = 3, 2
    own = [rng.normal(size=(n, n)).astype(dtype) for n in counts]
    caches = [rng.normal(size=(6, n)).astype(dtype) for n in counts]
    states = [rng.normal(size=(P * m, n)) for n in counts]
    src = np.array([0, 1, 1, 2, 0, 2], dtype=np.intp)
    local = np.array([3, 0, 4, 2, 1, 0], dtype=np.intp)
    rows = (np.array([0, 1, 1, 0, 1, 0]) * m + src).astype(np.intp)
    coefs = rng.normal(size=6)
    slots = rng.randint(-1, 6, size=(m, 6)).astype(np.intp)
    expected = [S.copy() for S in states]
    again = [S.copy() for S in states]
    for u in range(m):
        for c in range(6):
            if src[c] == u:
                row = own[u][local[c]]
            elif slots[u, c] >= 0:
                row = caches[u][slots[u, c]]
            else:
                continue
            expected[u][rows[c]] += coefs[c] * row.astype(np.float64)
    untouched = states[1].copy()
    update_states(own, caches, states, np.array([0, 2], dtype=np.intp), src, local, rows,
                  coefs, slots)
    np.testing.assert_array_equal(states[1], untouched)  # not a receiver of this call
    update_states(own, caches, states, np.array([1], dtype=np.intp), src, local, rows,
                  coefs, slots)
    for u in range(m):
        np.testing.assert_allclose(states[u], expected[u], rtol=1e-12)
    # The same additions as one update_state call per node (bit-identical:
    # each row of S gets its changes in the same order).
    for u in range(m):
        mine = src == u
        update_state(own[u], local[mine], rows[mine], coefs[mine], again[u])
        other = (~mine) & (slots[u] >= 0)
        update_state(caches[u], slots[u, other], rows[other], coefs[other], again[u])
        np.testing.assert_array_equal(again[u], states[u])
    bad = slots.copy()
    bad[0, 1] = 6
    with pytest.raises(ValueError, match="slot index out of range"):
        update_states(own, caches, states, np.array([0], dtype=np.intp), src, local, rows,
                      coefs, bad)
    with pytest.raises(ValueError, match="local index out of range"):
        update_states(own, caches, states, np.array([2], dtype=np.intp), src,
                      local + 1, rows, coefs, slots)

@pytest.mark.parametrize("name", ["hinge", "squared_hinge", "logistic", "squared"])
def test_gap_terms_match_numpy(name):
    cls = dict(LOSSES)[name]
    _, _, y, sw, g, f = _problem(name, seed=8)
    loss = cls()
    ls, cs, xs = gap_terms(f, y, sw, g, loss)
    mask = sw > 0
    assert ls == pytest.approx(np.sum(sw[mask] * _np_loss(name, f[mask], y[mask])), rel=1e-12)
    conj = sum(sw[i] * loss.py_conjugate(g[i], y[i]) for i in np.flatnonzero(mask))
    assert cs == pytest.approx(conj, rel=1e-12)
    assert xs == pytest.approx(np.sum(sw * g * f), rel=1e-12)
