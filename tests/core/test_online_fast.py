"""The online kernel solver (skfed._core._online_fast) against NumPy references.

* losses: values and derivatives against closed forms / finite differences;
* one node step with KOMP against a from-scratch NumPy KOMP (every
  candidate priced by solving the projection on the Gram matrix), and the
  RKHS distance to the uncompressed iterate computed from a fresh Gram;
* the inverse Gram kept by rank-one updates against ``inv(K)``;
* whole synchronous rounds (neighbours, dropped nodes, rogue nodes, byte
  counting) against a NumPy implementation of the same protocol.
"""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skfed._core import _online_fast as of
from skfed._core._comm import CommCounter

RBF = 1


def rbf(A, B, gamma):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


# ----------------------------------------------------------------- losses
LOSS_CASES = [
    (of.SquaredLoss(), np.array([0.3]), 1.2),
    (of.HingeLoss(), np.array([0.3]), 1.0),
    (of.HingeLoss(), np.array([-2.0]), -1.0),
    (of.LogisticLoss(), np.array([0.7]), -1.0),
    (of.LogisticLoss(), np.array([-40.0]), 1.0),
    (of.MulticlassHingeLoss(), np.array([0.2, 0.5, -0.1]), 0),
    (of.MulticlassHingeLoss(), np.array([3.0, 0.5, -0.1]), 0),
    (of.MultinomialLogLoss(), np.array([0.2, 0.5, -0.1]), 2),
]


@pytest.mark.parametrize("loss, f, y", LOSS_CASES)
def test_loss_derivative_matches_finite_differences(loss, f, y):
    grad = loss.py_derivative(f, y)
    h = 1e-6
    numeric = np.array(
        [
            (loss.py_value(f + h * e, y) - loss.py_value(f - h * e, y)) / (2 * h)
            for e in np.eye(len(f))
        ]
    )
    assert_allclose(grad, numeric, atol=1e-6)


def test_loss_values_closed_form():
    assert of.SquaredLoss().py_value([3.0], 1.0) == pytest.approx(2.0)
    assert of.HingeLoss().py_value([0.25], 1.0) == pytest.approx(0.75)
    assert of.HingeLoss().py_value([2.0], 1.0) == 0.0
    assert of.LogisticLoss().py_value([0.5], -1.0) == pytest.approx(np.log1p(np.exp(0.5)))
    # max(0, 1 + f_r - f_y) with r the best wrong class.
    assert of.MulticlassHingeLoss().py_value([0.2, 0.5, -0.1], 0) == pytest.approx(1.3)
    f = np.array([0.2, 0.5, -0.1])
    expected = np.log(np.exp(f).sum()) - f[1]
    assert of.MultinomialLogLoss().py_value(f, 1) == pytest.approx(expected)


@pytest.mark.parametrize("loss", [case[0] for case in LOSS_CASES[::2]])
def test_losses_pickle(loss):
    clone = pickle.loads(pickle.dumps(loss))
    assert type(clone) is type(loss)
    assert clone.py_value([0.3, 0.1, 0.0], 0) == loss.py_value([0.3, 0.1, 0.0], 0)


# ---------------------------------------------------------- one node step
def komp_reference(D, W, gamma, epsilon, max_size=0):
    """Destructive KOMP from scratch: price every candidate by re-projection."""
    K = rbf(D, D, gamma)
    norm2 = np.einsum("ir,ij,jr->", W, K, W)
    keep = list(range(len(D)))

    def projection(S):
        if not S:
            return norm2, np.zeros((0, W.shape[1]))
        KS = K[np.ix_(S, S)]
        beta = np.linalg.solve(KS, K[S] @ W)
        return norm2 - np.einsum("ir,ij,jr->", beta, KS, beta), beta

    while keep:
        errors = [projection([k for k in keep if k != j])[0] for j in keep]
        best = int(np.argmin(errors))
        forced = max_size > 0 and len(keep) > max_size
        if not forced and errors[best] > epsilon**2:
            break
        keep.pop(best)
    error2, beta = projection(keep)
    return D[keep], beta, np.sqrt(max(error2, 0.0))


def by_rows(D, W):
    """Dictionary and weights in lexicographic order of the points."""
    order = np.lexsort(D.T[::-1])
    return D[order], W[order]


def rkhs_distance(D1, W1, D2, W2, gamma):
    D = np.vstack([D1, D2])
    W = np.vstack([W1, -W2])
    return np.sqrt(max(np.einsum("ir,ij,jr->", W, rbf(D, D, gamma), W), 0.0))


@pytest.mark.parametrize("n_outputs, max_size", [(1, 0), (3, 0), (2, 6)])
def test_step_node_komp_matches_numpy_reference(n_outputs, max_size):
    rng = np.random.RandomState(n_outputs)
    d, gamma, epsilon, capacity = 2, 1.5, 0.05, 120
    points = np.zeros((capacity, d))
    weights = np.zeros((capacity, n_outputs))
    gram_inv = np.zeros((capacity, capacity))
    size = 0
    D_ref, W_ref = np.zeros((0, d)), np.zeros((0, n_outputs))
    sizes = []
    for _ in range(150):
        x = rng.normal(size=d)
        a = 0.3 * rng.normal(size=n_outputs)
        scale = 0.98
        size, error = of.py_step_node(
            points, weights, gram_inv, size, x, a, scale, RBF, gamma, 0.0, 3.0,
            True, epsilon, max_size,
        )
        D_full = np.vstack([D_ref, x])
        W_full = np.vstack([scale * W_ref, a])
        D_ref, W_ref, error_ref = komp_reference(D_full, W_full, gamma, epsilon, max_size)
        assert size == len(D_ref)
        # Same elements (the solver moves the last element into a freed slot).
        D_got, W_got = by_rows(points[:size], weights[:size])
        D_exp, W_exp = by_rows(D_ref, W_ref)
        assert_array_equal(D_got, D_exp)
        assert_allclose(W_got, W_exp, rtol=1e-8, atol=1e-10)
        # Squared norms: a difference of norms cancels to ~1e-16 at best.
        assert error**2 == pytest.approx(error_ref**2, rel=1e-6, abs=1e-12)
        # Independent check of the budget: distance to the uncompressed step.
        distance = rkhs_distance(D_full, W_full, points[:size], weights[:size], gamma)
        assert distance**2 == pytest.approx(error**2, rel=1e-6, abs=1e-12)
        if max_size == 0:
            assert distance**2 <= epsilon**2 * (1 + 1e-9) + 1e-12
        else:
            assert size <= max_size
        sizes.append(size)
    # KOMP did prune, and the dictionary stayed far below the 150 samples.
    assert max(sizes) < 60


def test_step_node_without_compression_is_plain_sgd():
    rng = np.random.RandomState(0)
    points = np.zeros((10, 3))
    weights = np.zeros((10, 2))
    empty = np.zeros((0, 0))
    size = 0
    W = np.zeros((0, 2))
    for t in range(10):
        x = rng.normal(size=3)
        a = rng.normal(size=2)
        size, error = of.py_step_node(
            points, weights, empty, size, x, a, 0.9, RBF, 1.0, 0.0, 3.0, False, 0.0, 0
        )
        W = np.vstack([0.9 * W, a])
        assert size == t + 1 and error == 0.0
        assert_array_equal(points[t], x)
    assert_array_equal(weights[:size], W)


def test_inverse_gram_tracks_inverse_after_many_updates():
    rng = np.random.RandomState(1)
    capacity, gamma = 200, 1.0
    points = np.zeros((capacity, 2))
    weights = np.zeros((capacity, 1))
    gram_inv = np.zeros((capacity, capacity))
    size = 0
    for _ in range(3000):
        size, _ = of.py_step_node(
            points, weights, gram_inv, size, rng.normal(size=2), 0.1 * rng.normal(size=1),
            0.999, RBF, gamma, 0.0, 3.0, True, 1e-2, 0,
        )
    K = rbf(points[:size], points[:size], gamma)
    Q = gram_inv[:size, :size]
    assert_allclose(Q, Q.T, rtol=1e-10, atol=1e-10)
    assert np.abs(Q @ K - np.eye(size)).max() < 1e-7
    # The Cholesky refactorization agrees with the incremental inverse.
    Q2 = np.zeros_like(gram_inv)
    assert of.py_refactor(points, size, Q2, RBF, gamma, 0.0, 3.0) == 0
    assert_allclose(Q2[:size, :size], Q, rtol=1e-6, atol=1e-6)


def test_duplicate_point_is_folded_into_the_dictionary():
    points = np.zeros((5, 2))
    weights = np.zeros((5, 1))
    gram_inv = np.zeros((5, 5))
    x = np.array([0.5, -0.5])
    size, _ = of.py_step_node(points, weights, gram_inv, 0, x, np.array([1.0]), 1.0,
                              RBF, 1.0, 0.0, 3.0, True, 1e-6, 0)
    size, error = of.py_step_node(points, weights, gram_inv, size, x.copy(),
                                  np.array([0.5]), 1.0, RBF, 1.0, 0.0, 3.0, True, 1e-6, 0)
    assert size == 1
    assert weights[0, 0] == pytest.approx(1.5)
    assert error < 1e-6


# ------------------------------------------------------------- whole rounds
def rounds_reference(X, y, sw, queues, active, adjacency, gamma, loss, n_outputs, *,
                     eta0, alpha, c, header, value_bytes, rogue=None, diminishing=False,
                     power_t=0.5):
    """NumPy implementation of the synchronous protocol (no compression)."""
    n_nodes = len(queues)
    d = X.shape[1]
    D = [np.zeros((0, d)) for _ in range(n_nodes)]
    W = [np.zeros((0, n_outputs)) for _ in range(n_nodes)]
    position = [0] * n_nodes
    steps = [0] * n_nodes
    pair_bytes = np.zeros((n_nodes, n_nodes), dtype=np.int64)
    pair_messages = np.zeros((n_nodes, n_nodes), dtype=np.int64)
    consensus = []
    rogue = np.zeros(n_nodes, bool) if rogue is None else rogue
    unit = (d + n_outputs) * value_bytes

    def f(j, x):
        return rbf(x[None, :], D[j], gamma[j])[0] @ W[j] if len(D[j]) else np.zeros(n_outputs)

    for r in range(active.shape[0]):
        if all(position[i] >= len(queues[i]) for i in range(n_nodes)):
            break
        omegas = {}
        total, pairs = 0.0, 0
        for i in range(n_nodes):
            if not active[r, i] or position[i] >= len(queues[i]):
                continue
            row = queues[i][position[i]]
            x = X[row]
            fi = f(i, x)
            s = np.zeros(n_outputs)
            for j in np.flatnonzero(adjacency[i]):
                if not active[r, j]:
                    continue
                if header + len(D[j]) * unit < 2 * header + unit:
                    pair_bytes[j, i] += header + len(D[j]) * unit
                    pair_messages[j, i] += 1
                else:
                    pair_bytes[i, j] += header + d * value_bytes
                    pair_bytes[j, i] += header + n_outputs * value_bytes
                    pair_messages[i, j] += 1
                    pair_messages[j, i] += 1
                fj = f(j, x)
                total += ((fi - fj) ** 2).sum()
                pairs += 1
                if rogue[j]:
                    fj = -fj
                s += fi - fj
            omegas[i] = sw[row] * loss.py_derivative(fi, y[row]) + c * s
        for i, omega in omegas.items():
            eta = eta0 / (1 + steps[i]) ** power_t if diminishing else eta0
            x = X[queues[i][position[i]]]
            D[i] = np.vstack([D[i], x])
            W[i] = np.vstack([(1 - eta * alpha) * W[i], -eta * omega])
            position[i] += 1
            steps[i] += 1
        consensus.append(total / pairs if pairs else np.nan)
    return D, W, pair_bytes, pair_messages, np.array(consensus)


def run_solver(X, y, sw, queues, active, adjacency, gamma, loss, n_outputs, *,
               eta0, alpha, c, header, rogue=None, diminishing=False, epsilon=0.0,
               max_size=0):
    n_nodes = len(queues)
    d = X.shape[1]
    capacity = max(len(q) for q in queues) + 1
    compress = epsilon > 0 or max_size > 0
    lengths = np.array([len(q) for q in queues])
    queue = np.concatenate(queues).astype(np.intp)
    queue_end = np.cumsum(lengths).astype(np.intp)
    position = (queue_end - lengths).astype(np.intp)
    from scipy import sparse

    A = sparse.csr_matrix(adjacency.astype(float))
    points = np.zeros((n_nodes, capacity, d), dtype=X.dtype)
    weights = np.zeros((n_nodes, capacity, n_outputs))
    gram_inv = np.zeros((n_nodes, capacity, capacity) if compress else (n_nodes, 0, 0))
    sizes = np.zeros(n_nodes, dtype=np.intp)
    steps = np.zeros(n_nodes, dtype=np.int64)
    counter = CommCounter(n_nodes, server=False, header_bytes=header)
    n_rounds = active.shape[0]
    consensus = np.empty(n_rounds)
    order = np.empty((n_rounds, n_nodes), dtype=np.intp)
    komp_error = np.zeros(n_nodes)
    rogue = np.zeros(n_nodes, np.uint8) if rogue is None else rogue.astype(np.uint8)
    done, status, _ = of.run_rounds(
        X, y, sw, queue, queue_end, position, active.astype(np.uint8),
        A.indptr.astype(np.intp), A.indices.astype(np.intp), np.asarray(gamma, float),
        RBF, 0.0, 3.0, loss, of.SCHEDULE_DIMINISHING if diminishing else of.SCHEDULE_CONSTANT,
        eta0, 0.5, alpha, c, epsilon, max_size, compress, 0, np.inf, 0, points, weights,
        gram_inv, sizes, steps, rogue, of.ROGUE_COMPLEMENT, np.arange(1, n_nodes + 1, dtype=np.uint32),
        counter, 8 if X.dtype == np.float64 else 4, consensus, order, komp_error,
        np.empty((n_nodes, capacity)), np.empty((n_nodes, n_outputs)),
        np.empty((8, max(capacity, n_outputs))), np.zeros_like(points), np.zeros_like(weights),
        np.zeros(n_nodes, np.intp), np.zeros(n_nodes, np.int64), np.zeros_like(weights),
        np.zeros(n_nodes, np.int64), False,
    )
    return (points, weights, sizes, counter.snapshot(), consensus[:done], order[:done],
            done, status, komp_error)


def _network_problem(seed=0, n_nodes=5, per_node=(6, 4, 7, 5, 6), n_outputs=1, d=3):
    rng = np.random.RandomState(seed)
    n = sum(per_node)
    X = rng.normal(size=(n, d))
    if n_outputs == 1:
        y = np.sign(rng.normal(size=n))
    else:
        y = rng.randint(n_outputs, size=n).astype(float)
    sw = rng.uniform(0.5, 2.0, size=n)
    offsets = np.concatenate([[0], np.cumsum(per_node)])
    queues = [rng.permutation(np.arange(offsets[i], offsets[i + 1])) for i in range(n_nodes)]
    adjacency = np.zeros((n_nodes, n_nodes), bool)
    for i in range(n_nodes):  # ring plus one chord
        adjacency[i, (i + 1) % n_nodes] = adjacency[(i + 1) % n_nodes, i] = True
    adjacency[0, 2] = adjacency[2, 0] = True
    gamma = rng.uniform(0.3, 1.5, size=n_nodes)  # one kernel per node
    return X, y, sw, queues, adjacency, gamma


@pytest.mark.parametrize(
    "loss, n_outputs, diminishing",
    [(of.LogisticLoss(), 1, False), (of.MulticlassHingeLoss(), 3, True),
     (of.SquaredLoss(), 1, False)],
)
def test_rounds_match_numpy_protocol_with_drops_and_rogue_node(loss, n_outputs, diminishing):
    X, y, sw, queues, adjacency, gamma = _network_problem(n_outputs=n_outputs)
    rng = np.random.RandomState(3)
    active = rng.uniform(size=(40, 5)) > 0.3
    rogue = np.array([False, False, False, True, False])
    kwargs = dict(eta0=0.3, alpha=0.1, c=0.5, header=4, rogue=rogue, diminishing=diminishing)
    D_ref, W_ref, bytes_ref, messages_ref, consensus_ref = rounds_reference(
        X, y, sw, queues, active, adjacency, gamma, loss, n_outputs, value_bytes=8, **kwargs
    )
    points, weights, sizes, snap, consensus, order, done, status, _ = run_solver(
        X, y, sw, queues, active, adjacency, gamma, loss, n_outputs, **kwargs
    )
    assert status == of.STATUS_ALL_DONE
    assert done == len(consensus_ref)
    for i in range(5):
        assert sizes[i] == len(queues[i])  # every sample processed once
        assert_array_equal(points[i, : sizes[i]], D_ref[i])
        assert_allclose(weights[i, : sizes[i]], W_ref[i], rtol=1e-12, atol=1e-14)
    assert_array_equal(snap["pair_bytes"], bytes_ref)
    assert_array_equal(snap["pair_messages"], messages_ref)
    assert_allclose(consensus, consensus_ref, rtol=1e-12, equal_nan=True)
    assert_array_equal(order[-1], sizes)


def test_dropped_node_neither_steps_nor_answers():
    X, y, sw, queues, adjacency, gamma = _network_problem()
    active = np.ones((2, 5), bool)
    active[1, 1] = False  # node 1 is down in round 1
    points, weights, sizes, snap, *_ = run_solver(
        X, y, sw, queues, active, adjacency, gamma, of.HingeLoss(), 1,
        eta0=0.5, alpha=0.0, c=1.0, header=16,
    )
    assert sizes[1] == 1 and all(sizes[i] == 2 for i in (0, 2, 3, 4))
    # In round 1 nobody talks to node 1: only round 0 exchanges touch it.
    assert snap["pair_messages"][1].sum() == snap["pair_messages"][:, 1].sum()
    assert snap["round_messages"][1] < snap["round_messages"][0] + 100
    # Round 0: every directed edge is one dictionary message (empty
    # dictionaries); round 1: queries of 2 messages except to/from node 1.
    n_edges = adjacency.sum()
    assert snap["round_messages"][0] == n_edges
    assert snap["round_messages"][1] == n_edges - 2 * adjacency[1].sum()


def test_capacity_status_and_resume():
    X, y, sw, queues, adjacency, gamma = _network_problem()
    n_nodes = 5
    lengths = np.array([len(q) for q in queues])
    queue = np.concatenate(queues).astype(np.intp)
    queue_end = np.cumsum(lengths).astype(np.intp)
    position = (queue_end - lengths).astype(np.intp)
    points = np.zeros((n_nodes, 2, 3))
    weights = np.zeros((n_nodes, 2, 1))
    sizes = np.zeros(n_nodes, dtype=np.intp)
    active = np.ones((10, n_nodes), np.uint8)
    from scipy import sparse

    A = sparse.csr_matrix(adjacency.astype(float))
    done, status, _ = of.run_rounds(
        X, y, sw, queue, queue_end, position, active, A.indptr.astype(np.intp),
        A.indices.astype(np.intp), gamma, RBF, 0.0, 3.0, of.HingeLoss(),
        of.SCHEDULE_CONSTANT, 0.1, 0.5, 0.0, 0.1, 0.0, 0, False, 0, np.inf, 0, points, weights,
        np.zeros((n_nodes, 0, 0)), sizes, np.zeros(n_nodes, np.int64),
        np.zeros(n_nodes, np.uint8), 0, np.ones(n_nodes, np.uint32),
        CommCounter(n_nodes), 8, np.empty(10), np.empty((10, n_nodes), np.intp),
        np.zeros(n_nodes), np.empty((n_nodes, 2)), np.empty((n_nodes, 1)), np.empty((8, 2)),
        np.zeros_like(points), np.zeros_like(weights), np.zeros(n_nodes, np.intp),
        np.zeros(n_nodes, np.int64), np.zeros_like(weights), np.zeros(n_nodes, np.int64), False,
    )
    assert (done, status) == (2, of.STATUS_NEED_CAPACITY)
    assert_array_equal(sizes, 2)
    assert_array_equal(position, queue_end - lengths + 2)


def test_rounds_with_komp_keep_budget_and_float32():
    X, y, sw, queues, adjacency, gamma = _network_problem(per_node=(60, 50, 70, 55, 65))
    active = np.ones((80, 5), bool)
    out64 = run_solver(X, y, sw, queues, active, adjacency, gamma, of.HingeLoss(), 1,
                       eta0=0.5, alpha=0.01, c=0.2, header=16, epsilon=0.05)
    out32 = run_solver(X.astype(np.float32), y, sw, queues, active, adjacency, gamma,
                       of.HingeLoss(), 1, eta0=0.5, alpha=0.01, c=0.2, header=16,
                       epsilon=0.05)
    komp_error = out64[-1]
    assert np.all(komp_error <= 0.05 * (1 + 1e-9)) and komp_error.max() > 0.04
    assert out64[2].sum() < 0.9 * 300  # pruned
    assert out32[0].dtype == np.float32
    # float32 data: same dictionary sizes up to a few prunings, close weights.
    assert np.abs(out32[2] - out64[2]).max() <= 3
