"""join_function="auto": the linear network function, its gate, and the
newcomers' linear terms (skfed/online/_linear.py, run_rounds' ``linear``)."""

import copy

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed._core import _online_fast
from skfed.network import SimulatedNetwork, payload_bytes
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.online._holdout import loss_values
from skfed.online._linear import LINEAR_GATE, gate_sums, t_from_sums, tree_round
from skfed.online._network_function import smooth_loss
from skfed.online._selection import tree_parents
from skfed.online._validation import _SCHEDULES


def _rbf(a, b, gamma):
    return np.exp(-gamma * np.sum((a - b) ** 2))


def _run_rounds(X, y, linear, on, exchange_every=0, value_bytes=8, rounds=4,
                eta=0.3, alpha=0.01, c=0.5, gamma=0.7):
    """Three nodes on a path 0-1-2 stepping ``rounds`` rounds on their
    queues (node i: rows i, i + 3, ...), no compression, no averaging."""
    n, d = 3, X.shape[1]
    queue = np.concatenate([np.arange(i, 3 * rounds, 3) for i in range(n)]).astype(np.intp)
    queue_end = np.array([rounds, 2 * rounds, 3 * rounds], dtype=np.intp)
    position = np.array([0, rounds, 2 * rounds], dtype=np.intp)
    active = np.ones((rounds, n), dtype=np.uint8)
    indptr = np.array([0, 1, 3, 4], dtype=np.intp)
    indices = np.array([1, 0, 2, 1], dtype=np.intp)
    cap = rounds + 1
    points = np.zeros((n, cap, d))
    weights = np.zeros((n, cap, 1))
    sizes = np.zeros(n, dtype=np.intp)
    sim = SimulatedNetwork(header_bytes=0).start(n, server=False)
    pub_points = np.zeros((n, cap, d))
    pub_weights = np.zeros((n, cap, 1))
    _online_fast.run_rounds(
        X, y, np.ones(len(y)), queue, queue_end, position, active, indptr, indices,
        np.full(n, gamma), _RBF_KIND, 1.0, 3.0, _online_fast.HingeLoss(),
        _SCHEDULES["constant"], eta, 0.75, alpha, c, 0.0, 0, False, 0, 1e12,
        exchange_every, points, weights, np.zeros((n, cap, cap)), sizes,
        np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint8), 0,
        np.arange(1, n + 1, dtype=np.uint32), sim.counter, value_bytes, np.empty(rounds),
        np.empty((rounds, n), dtype=np.intp), np.zeros(n), np.empty((n, cap)),
        np.empty((n, 1)), np.empty((8, cap)), pub_points, pub_weights,
        np.zeros(n, dtype=np.intp), np.zeros(n, dtype=np.int64), np.zeros((n, cap, 1)),
        np.zeros(n, dtype=np.int64), False, None, None,
        np.ones(n, dtype=np.int64) if exchange_every else None, linear, on)
    return points, weights, sizes


def _rbf_kind():
    clf = DecentralizedKernelSGDClassifier(kernel="rbf", gamma=1.0, max_epochs=1,
                                           consensus_penalty=0.0, eta0=0.1)
    rng = np.random.RandomState(0)
    clf.fit(rng.normal(size=(20, 2)), np.arange(20) % 2, groups=np.arange(20) % 2)
    return clf._kernel_kind


_RBF_KIND = _rbf_kind()


def _reference(X, y, linear, on, rounds=4, eta=0.3, alpha=0.01, c=0.5, gamma=0.7):
    """The same rounds in NumPy: f_i(x) = on_i L_i' x + sum_m W_im k(D_im, x);
    omega_i = hinge'(f_i(x), y) + c sum_j (f_i(x) - f_j(x)); W_i <- (1 - eta
    alpha) W_i, then x enters with -eta omega_i."""
    nbrs = {0: [1], 1: [0, 2], 2: [1]}
    D = [[] for _ in range(3)]
    W = [[] for _ in range(3)]

    def f(i, x):
        v = sum(w * _rbf(p, x, gamma) for p, w in zip(D[i], W[i]))
        return v + (float(x @ linear[i, :, 0]) if on[i] else 0.0)

    for t in range(rounds):
        omegas = []
        for i in range(3):
            x, yy = X[3 * t + i], y[3 * t + i]
            fi = f(i, x)
            g = -yy if 1 - yy * fi > 0 else 0.0
            omegas.append(g + c * sum(fi - f(j, x) for j in nbrs[i]))
        for i in range(3):
            W[i] = [(1 - eta * alpha) * w for w in W[i]] + [-eta * omegas[i]]
            D[i] = D[i] + [X[3 * t + i]]
    return D, W


@pytest.mark.parametrize("exchange_every", [0, 1])
def test_run_rounds_linear_term_equals_numpy(exchange_every):
    rng = np.random.RandomState(3)
    X = rng.normal(size=(12, 3))
    y = np.where(rng.rand(12) > 0.5, 1.0, -1.0)
    linear = rng.normal(size=(3, 3, 1))
    on = np.array([0, 0, 1], dtype=np.uint8)
    # (with copies published after every step, a neighbour's copy in a round
    # is its iterate of the previous round: the same reference)
    points, weights, sizes = _run_rounds(X, y, linear, on, exchange_every=exchange_every)
    D, W = _reference(X, y, linear, on)
    for i in range(3):
        assert sizes[i] == 4
        np.testing.assert_allclose(points[i, :4], np.array(D[i]))
        np.testing.assert_allclose(weights[i, :4, 0], np.array(W[i]), rtol=1e-12, atol=1e-14)
    # The term matters (the same run without it differs) and nodes without
    # a term read it only through their neighbour's values.
    _, w0, _ = _run_rounds(X, y, None, None, exchange_every=exchange_every)
    assert not np.allclose(w0[2, :4], weights[2, :4])
    _, w_off, _ = _run_rounds(X, y, linear, np.zeros(3, dtype=np.uint8),
                              exchange_every=exchange_every)
    np.testing.assert_array_equal(w_off, w0)


def test_gate_statistic_and_tree_sums():
    rng = np.random.RandomState(0)
    d = rng.normal(loc=-0.1, size=17)
    ref = d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))
    assert t_from_sums(*gate_sums(d)) == pytest.approx(ref, rel=1e-9)
    assert np.isnan(t_from_sums(*gate_sums([0.3])))
    assert np.isnan(t_from_sums(*gate_sums([0.0, 0.0])))
    assert t_from_sums(*gate_sums([0.2, 0.2])) == np.inf


def _data(seed=0, n_nodes=12, per=50, d=10, linear_rule=True):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_nodes * per, d))
    g = np.repeat(np.arange(n_nodes), per)
    score = X[:, 0] + 0.3 * X[:, 1] if linear_rule else X[:, 0] ** 2 + X[:, 1] ** 2 - 1.4
    return X, (score > 0).astype(int), g


def _fit(join_function="auto", network=None, **kw):
    X, y, g = _data(**kw)
    fit = g < 10
    clf = DecentralizedKernelSGDClassifier(kernel="rbf", gamma=0.5, max_epochs=5,
                                           random_state=0, join_function=join_function,
                                           network=network)
    return clf.fit(X[fit], y[fit], groups=g[fit]), X, y, g


def test_linear_solve_and_gate_equal_numpy():
    clf, X, y, g = _fit()
    fit = g < 10
    Xf, yf, codes = X[fit], clf._encode_targets(y[fit]), g[fit]
    w = clf.network_linear_coef_[0]
    # w minimizes sum of squared hinges + (alpha_w W / 2) ||w||^2 (a
    # centralized solve of the same objective, from 0), alpha_w = 3 alpha
    # (tests/test_online28_linear_alpha.py, tests/test_autocut37_*.py)
    gate = clf.network_linear_gate_
    assert gate["alpha_factor"][0] == 3.0
    alpha, total = gate["alpha_factor"][0] * float(clf.alpha), len(yf)

    def objective(v):
        value, grad = smooth_loss("hinge", (Xf @ v)[:, None], yf)
        return (value.sum() + 0.5 * alpha * total * v @ v,
                Xf.T @ grad[:, 0] + alpha * total * v)
    ref = minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-10, "maxiter": 1000}).x
    # (at most 10 iterations: within 1 % of the gap from w = 0; the exact
    # iterates: tests/test_autocut37_fixed_solve.py)
    f0, fw, fr = (objective(np.zeros(X.shape[1]))[0], objective(w[:, 0])[0],
                  objective(ref)[0])
    assert fr - 1e-9 * fr <= fw <= fr + 0.01 * (f0 - fr)
    # The gate: every node's mean hinge loss with X w minus with the
    # network function, the paired t over the nodes.
    per_row = (loss_values("hinge", Xf @ w, yf)
               - loss_values("hinge", clf._network_values(Xf), yf))
    node = np.bincount(codes, per_row) / np.bincount(codes)
    t = node.mean() / (node.std(ddof=1) / np.sqrt(len(node)))
    gate = clf.network_linear_gate_
    assert gate["t"][0] == pytest.approx(t, rel=1e-9)
    assert gate["open"][0] == (t <= LINEAR_GATE)
    assert gate["evaluations"][0] >= 2


@pytest.mark.parametrize("drop_rate", [0.0, 0.3])
def test_bytes_closed_form(drop_rate):
    # With drops a node reports in a later round: the same bytes, more rounds.
    network = SimulatedNetwork(drop_rate=drop_rate, random_state=0)
    base, X, y, g = _fit(join_function="network", network=network)
    clf, _, _, _ = _fit(network=network)
    d, n = X.shape[1], 10
    evals = int(clf.network_linear_gate_["evaluations"][0])
    edges = n - 1   # one spanning tree of the connected graph
    header = SimulatedNetwork().header_bytes
    # every evaluation: the nodes' loss, weight and gradient up (d + 2
    # float64), w down; the first report also carries the d x rank sketch
    # (rank = min(10, d)); then the gate (3 float64 up, the choice and w
    # down)
    rank = min(10, d)
    assert 2 <= evals <= 2 * 10 + 1
    extra = edges * (evals * (2 * header + payload_bytes(n_float64=d + 2)
                              + payload_bytes(n_float64=d))
                     + payload_bytes(n_float64=d * rank)
                     + 2 * header + payload_bytes(n_float64=3)
                     + payload_bytes(n_int32=1, n_float64=d))
    assert (clf.network_communication_.total_bytes
            - base.network_communication_.total_bytes) == extra
    assert clf.n_bytes_sent_ - base.n_bytes_sent_ == extra
    # The fit's own rounds are the same.
    assert clf.communication_.total_bytes == base.communication_.total_bytes
    rounds = (clf.network_communication_.bytes_per_round.size
              - base.network_communication_.bytes_per_round.size)
    tree_depth_rounds = 2 * (evals + 1)   # at least one up and one down round each
    assert rounds >= tree_depth_rounds
    if drop_rate:
        calm, _, _, _ = _fit()
        assert rounds > (calm.network_communication_.bytes_per_round.size
                         - _fit(join_function="network")[0].network_communication_.bytes_per_round.size)


def test_join_takes_linear_function_old_nodes_unchanged():
    clf, X, y, g = _fit()
    assert clf.network_linear_gate_["open"][0]
    closed = copy.deepcopy(clf)   # the same fit, its gate closed
    closed.network_linear_gate_["open"][:] = False
    before = copy.deepcopy((clf.dictionaries_, clf.dual_coef_))
    new = (g >= 10) & (np.arange(len(g)) % 50 < 10)
    clf.add_nodes(X[new], y[new], groups=g[new])
    closed.add_nodes(X[new], y[new], groups=g[new])
    for a, b in zip(before[0] + before[1], clf.dictionaries_[:10] + clf.dual_coef_[:10]):
        np.testing.assert_array_equal(a, b)
    assert list(clf.join_start_) == ["linear", "linear"]
    assert "linear" not in list(closed.join_start_)
    np.testing.assert_array_equal(clf.linear_scale_, [0] * 10 + [1, 1])
    np.testing.assert_array_equal(closed.linear_scale_, np.zeros(12))
    w = clf.network_linear_coef_[0]
    test = (g >= 10) & ~new
    # w' x classifies their samples: no passes, the function is w' x
    np.testing.assert_array_equal(clf.join_passes_, [0, 0])
    F = clf.decision_function(X[test], groups=g[test])
    np.testing.assert_allclose(F, X[test] @ w[:, 0], rtol=1e-12)
    # Each newcomer received w (d float64) instead of the network function
    # (100 points: their values and weights); the stream sends nothing
    # (the neighbours' copies were received in step 2).
    d, m = X.shape[1], len(clf.network_dictionary_[0])
    saved = 2 * (m * (d + 1) * 8 - payload_bytes(n_float64=d))
    assert (closed.join_communication_.total_bytes
            - clf.join_communication_.total_bytes) == saved
    assert clf.n_bytes_sent_ == (clf.communication_.total_bytes
                                 + clf.network_communication_.total_bytes
                                 + clf.join_communication_.total_bytes)


def test_streaming_newcomer_keeps_its_term_and_partial_fit():
    clf, X, y, g = _fit()
    new = (g >= 10) & (np.arange(len(g)) % 50 < 10)
    flipped = y.copy()
    flipped[new & (g == 11)] = 1 - flipped[new & (g == 11)]   # w' x misclassifies them
    clf.add_nodes(X[new], flipped[new], groups=g[new])
    assert clf.join_passes_[1] == clf.max_epochs and clf.linear_scale_[11] == 1
    rows = g == 11
    w = clf.network_linear_coef_[0]
    kernel = clf._join_kernel(clf.gamma_[11])(X[rows], clf.dictionaries_[11]) @ clf.dual_coef_[11]
    np.testing.assert_allclose(clf.decision_function(X[rows], groups=g[rows]),
                               kernel[:, 0] + X[rows] @ w[:, 0], rtol=1e-10, atol=1e-12)
    # a later partial_fit steps every node, the term kept
    more = (g >= 10) & (np.arange(len(g)) % 50 >= 40)
    clf.partial_fit(X[more], y[more], groups=g[more])
    assert clf.linear_scale_[11] == 1 and len(clf.linear_scale_) == 12


def test_gate_closed_on_curved_rule_and_default_unchanged():
    # (this small curved rule ends at t > 0: the gate stays closed)
    clf, X, y, g = _fit(linear_rule=False)
    gate = clf.network_linear_gate_
    assert not gate["open"][0] and gate["t"][0] > 0
    # bytes: the evaluations, the sketch, the gate round
    base, _, _, _ = _fit(join_function="network", linear_rule=False)
    d, edges, header = X.shape[1], 9, SimulatedNetwork().header_bytes
    evals = int(gate["evaluations"][0])
    assert 2 <= evals <= 2 * 10 + 1
    assert (clf.network_communication_.total_bytes
            - base.network_communication_.total_bytes) == edges * (
        evals * (2 * header + payload_bytes(n_float64=d + 2) + payload_bytes(n_float64=d))
        + payload_bytes(n_float64=10 * d) + 2 * header + payload_bytes(n_float64=3)
        + payload_bytes(n_int32=1, n_float64=d))
    base, _, _, _ = _fit(join_function="network", linear_rule=False)
    new = (g >= 10) & (np.arange(len(g)) % 50 < 10)
    clf.add_nodes(X[new], y[new], groups=g[new])
    base.add_nodes(X[new], y[new], groups=g[new])
    assert "linear" not in list(clf.join_start_)
    test = (g >= 10) & ~new
    np.testing.assert_array_equal(clf.decision_function(X[test], groups=g[test]),
                                  base.decision_function(X[test], groups=g[test]))
    assert base.network_linear_coef_ is None and base.network_linear_gate_ is None
    # the gate's t equals the statistic of w on the nodes' own rows
    fit = g < 10
    w = clf.network_linear_coef_[0]
    yf = clf._encode_targets(y[fit])
    per_row = (loss_values("hinge", X[fit] @ w, yf)
               - loss_values("hinge", clf._network_values(X[fit]), yf))
    node = np.bincount(g[fit], per_row) / np.bincount(g[fit])
    t = node.mean() / (node.std(ddof=1) / np.sqrt(len(node)))
    assert gate["t"][0] == pytest.approx(t, rel=1e-9)


def test_tree_round_through_drops_same_bytes():
    adjacency = np.zeros((6, 6))
    for a, b in [(0, 1), (1, 2), (1, 3), (3, 4), (4, 5)]:
        adjacency[a, b] = adjacency[b, a] = 1
    from scipy import sparse
    parents = tree_parents(sparse.csr_matrix(adjacency))
    calm = SimulatedNetwork(header_bytes=0).start(6, server=False)
    rough = SimulatedNetwork(header_bytes=0, drop_rate=0.5, random_state=1).start(6,
                                                                                server=False)
    r0 = tree_round(calm, parents, np.arange(6), 40, 8)
    r1 = tree_round(rough, parents, np.arange(6), 40, 8)
    assert calm.log().total_bytes == rough.log().total_bytes == 5 * 48
    assert r1 > r0


def test_refusals():
    X, y, g = _data()
    with pytest.raises(ValueError, match="join_function"):
        DecentralizedKernelSGDClassifier(join_function="linear").fit(X, y, groups=g)
    with pytest.raises(ValueError, match="join_function='auto' needs honest nodes"):
        DecentralizedKernelSGDClassifier(
            join_function="auto", max_epochs=1,
            network=SimulatedNetwork(rogue_fraction=0.2)).fit(X, y, groups=g)
    # (the MPI engine runs it: tests/test_online32_linear_mpi.py)


def test_network_function_carries_the_linear_terms():
    clf, X, y, g = _fit()
    new = (g >= 10) & (np.arange(len(g)) % 50 < 10)
    clf.add_nodes(X[new], y[new], groups=g[new])
    plain = copy.deepcopy(clf)   # the same nodes without their linear terms
    plain._linear_scale = None
    clf._network_round()
    plain._network_round()
    np.testing.assert_allclose(clf.network_linear_share_, [2 / 12])
    np.testing.assert_array_equal(plain.network_linear_share_, [0.0])
    # the kernel parts are the same mean; the linear part is share w' x
    w = clf.network_linear_coef_[0]
    np.testing.assert_allclose(clf._network_values(X) - plain._network_values(X),
                               (2 / 12) * (X @ w), rtol=1e-10, atol=1e-12)
    # one float64 more on each of the 11 tree edges, up and down
    extra = (clf.network_communication_.total_bytes
             - plain.network_communication_.total_bytes)
    assert extra == 2 * 11 * 8
    # a newcomer that now starts from the network function takes its share
    more = (g == 11) & (np.arange(len(g)) % 50 >= 45)
    late = copy.deepcopy(clf)
    late.network_linear_gate_["open"][:] = False
    Xn = X[more] + 0.0
    late.add_nodes(Xn, y[more], groups=np.full(more.sum(), 99))
    assert list(late.join_start_) == ["network"]
    assert late.linear_scale_[-1] == pytest.approx(2 / 12)
    rows = g == 11
    np.testing.assert_allclose(
        late.decision_function(X[rows], groups=np.full(rows.sum(), 99)),
        late._join_kernel(late.gamma_[-1])(X[rows], late.dictionaries_[-1])
        @ late.dual_coef_[-1][:, 0] + (2 / 12) * (X[rows] @ w[:, 0]), rtol=1e-10, atol=1e-12)


def test_refit_after_linear_join_uses_the_new_w():
    # A refit solves a new w; newcomers of a later join read it, not a
    # cached term of the first fit.
    clf, X, y, g = _fit()
    new = (g >= 10) & (np.arange(len(g)) % 50 < 10)
    flipped = y.copy()
    flipped[new & (g == 11)] = 1 - flipped[new & (g == 11)]   # it streams
    clf.add_nodes(X[new], flipped[new], groups=g[new])
    w_first = clf.network_linear_coef_[0].copy()
    fit = g < 10
    clf.fit(X[fit], 1 - y[fit], groups=g[fit])   # another w
    assert not np.allclose(clf.network_linear_coef_[0], w_first)
    ref = copy.deepcopy(clf)
    clf.add_nodes(X[new], 1 - flipped[new], groups=g[new])
    ref.__dict__.pop("_linear_cache", None)
    ref.add_nodes(X[new], 1 - flipped[new], groups=g[new])
    for a, b in zip(clf.dual_coef_, ref.dual_coef_):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fitted, later", [("auto", "network"), ("network", "auto")])
def test_join_function_changed_after_fit_is_refused(fitted, later):
    clf, X, y, g = _fit(join_function=fitted)
    new = (g >= 10) & (np.arange(len(g)) % 50 < 10)
    clf.set_params(join_function=later)
    before = len(clf.nodes_)
    with pytest.raises(ValueError, match=f"join_function='{later}' was set after the fit"):
        clf.add_nodes(X[new], y[new], groups=g[new])
    with pytest.raises(ValueError, match="join_function"):
        clf.partial_fit(X[new], y[new], groups=g[new])
    assert len(clf.nodes_) == before
    clf.set_params(join_function=fitted)
    clf.add_nodes(X[new], y[new], groups=g[new])
    assert len(clf.nodes_) == before + 2
