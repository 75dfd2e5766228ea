"""DecentralizedKernelSGD{Classifier,Regressor} against independent references.

* epsilon = 0: the iterates equal a NumPy implementation of the functional
  SGD recursion with the consensus term;
* KOMP: the stored function (last iterate or averaged iterates) equals a
  NumPy destructive-KOMP projection recursion; after every step the RKHS
  distance to the uncompressed iterate,
  computed from a fresh Gram matrix, is within epsilon;
* the model order stays bounded over a 50,000-sample stream;
* the consensus disagreement matches the exact fixed point of the
  recursion (a linear system) and shrinks with c;
* bytes equal the closed form of the exchange rule;
* accuracy on Koppel's Gaussian-mixture network with bounded dictionaries.
"""

import copy
import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sklearn.exceptions import NotFittedError

from skfed.datasets import make_gaussian_mixture_network, train_test_split_per_node
from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor
from tests._helpers.online import numpy_encode, numpy_offset, numpy_scale


def rbf(A, B, gamma):
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def ring(n):
    A = np.zeros((n, n), bool)
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = True
    return A


# NumPy losses, written independently of the Cython ones.
def d_squared(f, y):
    return f - y


def d_logistic(f, y):
    return -y / (1.0 + np.exp(y * f))


def d_multiclass_hinge(f, y):
    y = int(y)
    wrong = np.where(np.arange(len(f)) == y, -np.inf, f)
    r = int(np.argmax(wrong))
    g = np.zeros_like(f)
    if 1 + f[r] - f[y] > 0:
        g[r], g[y] = 1.0, -1.0
    return g


def sgd_reference(X, y_enc, groups, adjacency, gamma, dloss, n_out, *, eta, alpha, c, epochs,
                  average=0.0, kernel=rbf, received=None):
    """Functional SGD with the consensus term, synchronous rounds, no compression.

    ``received(krow, W_j)`` (default ``krow @ W_j``) is the value of ``f_j(x)``
    a node uses, from the kernel row of ``x`` against ``j``'s dictionary.
    """
    n_nodes = adjacency.shape[0]
    queues = [np.tile(np.flatnonzero(groups == i), epochs) for i in range(n_nodes)]
    D = [np.zeros((0, X.shape[1])) for _ in range(n_nodes)]
    W = [np.zeros((0, n_out)) for _ in range(n_nodes)]
    history = [[] for _ in range(n_nodes)]

    def f(j, x):
        return kernel(x[None], D[j], gamma[j])[0] @ W[j]

    def f_neighbour(j, x):
        if received is None:
            return f(j, x)
        return received(kernel(x[None], D[j], gamma[j])[0], W[j])

    for t in range(max(len(q) for q in queues)):
        omegas = {}
        for i in range(n_nodes):
            if t >= len(queues[i]):
                continue
            x = X[queues[i][t]]
            fi = f(i, x)
            s = sum((fi - f_neighbour(j, x) for j in np.flatnonzero(adjacency[i])),
                    np.zeros(n_out))
            omegas[i] = np.atleast_1d(dloss(fi if n_out > 1 else fi[0], y_enc[queues[i][t]])) + c * s
        for i, omega in omegas.items():
            D[i] = np.vstack([D[i], X[queues[i][t]]])
            W[i] = np.vstack([(1 - eta * alpha) * W[i], -eta * omega])
            history[i].append(W[i])
    if average:
        # Mean of the iterates after the last `average` fraction of the steps
        # (zero weight on points added later), as averaged SGD.
        for i in range(n_nodes):
            start = int(np.floor((1 - average) * len(queues[i])))
            tail = history[i][start:]
            W[i] = sum(np.vstack([w, np.zeros((len(W[i]) - len(w), n_out))]) for w in tail)
            W[i] = W[i] / len(tail)
    return D, W


@pytest.mark.parametrize(
    "kind, loss, n_classes",
    [("clf", "log_loss", 2), ("clf", "hinge", 3), ("reg", "squared_error", None)],
)
@pytest.mark.parametrize("average", [0.0, 0.5, 0.8])
def test_epsilon_zero_equals_numpy_functional_sgd(kind, loss, n_classes, average):
    rng = np.random.RandomState(0)
    n_nodes, d = 4, 2
    counts = [7, 5, 6, 4]
    groups = np.repeat(np.arange(n_nodes), counts)
    X = rng.normal(size=(len(groups), d))
    gamma = np.array([0.5, 1.0, 2.0, 0.8])
    params = dict(gamma=gamma, eta0=0.3, alpha=0.05, consensus_penalty=0.4, epsilon=0.0,
                  max_dictionary_size=None, max_epochs=3, shuffle=False, average=average,
                  exchange_every=None, network=SimulatedNetwork(ring(n_nodes)))
    if kind == "clf":
        y = rng.randint(n_classes, size=len(groups))
        est = DecentralizedKernelSGDClassifier(loss=loss, **params).fit(X, y, groups=groups)
        if n_classes == 2:
            y_enc, dloss, n_out = np.where(y == 1, 1.0, -1.0), d_logistic, 1
        else:
            y_enc, dloss, n_out = y.astype(float), d_multiclass_hinge, n_classes
    else:
        y = rng.normal(size=len(groups))
        est = DecentralizedKernelSGDRegressor(loss="squared_error", **params).fit(X, y, groups=groups)
        # (the solver learns the targets in the nodes' agreed location and scale)
        _, offset, scale = numpy_encode(y, groups)
        assert est.target_offset_ == pytest.approx(offset, rel=1e-12)
        # (the log-scales travel rounded to 2^-32)
        assert est.target_scale_ == pytest.approx(scale, rel=1e-9)
        y_enc, dloss, n_out = (y - est.target_offset_) / est.target_scale_, d_squared, 1
    D, W = sgd_reference(X, y_enc, groups, ring(n_nodes), gamma, dloss, n_out,
                         eta=0.3, alpha=0.05, c=0.4, epochs=3, average=average)
    assert_array_equal(est.model_order_, 3 * np.array(counts))
    for i in range(n_nodes):
        assert_array_equal(est.dictionaries_[i], D[i])
        assert_allclose(est.dual_coef_[i], W[i], rtol=1e-12, atol=1e-14)
    # (+1: a regressor's first round agrees on the location and scale of y)
    assert est.n_iter_ == 3 * max(counts) + (kind == "reg")


def test_float32_query_exchange_uses_what_it_receives():
    """With float32 data every value is counted at 4 bytes, so a node must use
    the float32 answer (or, from a received dictionary, float32 weights).

    Integer features and a linear kernel make every kernel value exact in
    float32, so the only float32 effect left is the rounding of what is sent:
    the fit equals a float64 NumPy recursion that rounds the received values
    to 1e-12, and differs from one that does not by far more.
    """
    n_nodes, n, d, header = 4, 6, 2, 16
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.randint(-3, 4, size=(n_nodes * n, d)).astype(np.float64)
    y = rng.normal(size=n_nodes * n) * 100.0
    params = dict(kernel="linear", eta0=0.01, alpha=0.05, consensus_penalty=0.5, epsilon=0.0,
                  max_dictionary_size=None, max_epochs=2, shuffle=False, average=0.0,
                  exchange_every=None,
                  network=SimulatedNetwork(ring(n_nodes), header_bytes=header))
    reg = DecentralizedKernelSGDRegressor(loss="squared_error", **params).fit(X.astype(np.float32), y, groups=groups)
    # A dictionary is sent while 16 + M 12 < 2 16 + 12 (M <= 2), a query after.
    dictionary_sent = lambda krow: header + len(krow) * (d + 1) * 4 < 2 * header + (d + 1) * 4

    def received(krow, W):
        if dictionary_sent(krow):
            return krow @ W.astype(np.float32).astype(np.float64)
        return (krow @ W).astype(np.float32).astype(np.float64)

    def linear(A, B, gamma):
        return A @ B.T

    common = dict(eta=0.01, alpha=0.05, c=0.5, epochs=2, kernel=linear)
    gamma = np.ones(n_nodes)
    z = (y - reg.target_offset_) / reg.target_scale_  # (numpy_encode's, tested above)
    _, W_sent = sgd_reference(X, z, groups, ring(n_nodes), gamma, d_squared, 1,
                              received=received, **common)
    _, W_exact = sgd_reference(X, z, groups, ring(n_nodes), gamma, d_squared, 1, **common)
    gaps_sent, gaps_exact = [], []
    for i in range(n_nodes):
        scale = np.abs(W_sent[i]).max()
        gaps_sent.append(np.abs(reg.dual_coef_[i] - W_sent[i]).max() / scale)
        gaps_exact.append(np.abs(reg.dual_coef_[i] - W_exact[i]).max() / scale)
    assert max(gaps_sent) < 1e-12
    assert max(gaps_exact) > 1e-9
    # Both branches were taken.
    assert 0 < sum(dictionary_sent(np.zeros(t)) for t in range(2 * n)) < 2 * n


def test_komp_distance_to_uncompressed_iterate_within_epsilon():
    """Step one sample at a time; rebuild each uncompressed step in NumPy."""
    rng = np.random.RandomState(1)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    epsilon, eta, alpha, gamma = 0.05, 0.5, 0.01, 1.0
    clf = DecentralizedKernelSGDClassifier(
        loss="hinge", gamma=gamma, eta0=eta, alpha=alpha, epsilon=epsilon
    )
    groups = np.zeros(1, dtype=int)
    distances, orders = [], []
    for t in range(len(X)):
        if t == 0:
            D_prev, W_prev = np.zeros((0, 2)), np.zeros((0, 1))
        else:
            D_prev, W_prev = clf.dictionaries_[0], clf.dual_coef_[0]
        clf.partial_fit(X[t : t + 1], y[t : t + 1], groups=groups, classes=[0, 1])
        # The uncompressed step, from the previous (compressed) iterate.
        yt = 1.0 if y[t] == 1 else -1.0
        f = rbf(X[t : t + 1], D_prev, gamma)[0] @ W_prev[:, 0] if len(D_prev) else 0.0
        omega = -yt if yt * f < 1 else 0.0
        D_full = np.vstack([D_prev, X[t]])
        W_full = np.concatenate([(1 - eta * alpha) * W_prev[:, 0], [-eta * omega]])
        D_new, W_new = clf.dictionaries_[0], clf.dual_coef_[0][:, 0]
        Z = np.vstack([D_full, D_new])
        w = np.concatenate([W_full, -W_new])
        distances.append(np.sqrt(max(w @ rbf(Z, Z, gamma) @ w, 0.0)))
        orders.append(len(D_new))
    distances = np.array(distances)
    assert distances.max() <= epsilon + 1e-7
    assert distances.max() > 0.5 * epsilon  # KOMP did use its budget
    assert max(orders) < 100  # and pruned: 300 samples, far fewer elements
    assert clf.komp_error_[0] == pytest.approx(distances.max(), abs=1e-6)


def komp_reference(X, y, *, gamma, eta, alpha, epsilon, max_size, average):
    """One node's functional SGD (squared loss) with destructive KOMP, in NumPy.

    Every step forms the uncompressed function ``f~`` (the scaled iterate
    plus the new point) and removes, one at a time, the element whose
    removal leaves the smallest RKHS distance ``||f~ - P_S f~||``, computed
    from a fresh Gram matrix, while that distance is within ``epsilon`` (or
    while the dictionary is over ``max_size``); the iterate and the running
    mean of the iterates are then the orthogonal projections of their
    uncompressed functions onto the span of what is left.
    """
    D, W, A = np.zeros((0, X.shape[1])), np.zeros(0), np.zeros(0)
    start = int(np.floor((1 - average) * len(y))) if average else len(y)
    worst = 0.0
    for t in range(len(y)):
        f = rbf(X[t : t + 1], D, gamma)[0] @ W if len(D) else 0.0
        D_full = np.vstack([D, X[t]])
        W_full = np.append((1 - eta * alpha) * W, -eta * (f - y[t]))
        A_full = np.append(A, 0.0)
        K_full = rbf(D_full, D_full, gamma)

        def project(S, V):
            # Weights on D_full[S] of the projection of sum_m V_m k(D_full[m], .)
            if not S:
                return np.zeros(0)
            return np.linalg.solve(K_full[np.ix_(S, S)], K_full[S] @ V)

        def distance2(S):
            r = W_full.copy()
            r[S] -= project(S, W_full)
            return max(float(r @ K_full @ r), 0.0)

        S = list(range(len(D_full)))
        while S:
            costs = [distance2([m for m in S if m != j]) for j in S]
            j = int(np.argmin(costs))
            if not (len(S) > max_size or costs[j] <= epsilon**2):
                break
            S.pop(j)
        worst = max(worst, np.sqrt(distance2(S)))
        D, W, A = D_full[S], project(S, W_full), project(S, A_full)
        if t >= start:
            A = A + (W - A) / (t - start + 1)
    return D, (A if average else W), worst


@pytest.mark.parametrize("average", [0.0, 0.5])
def test_komp_projection_of_iterate_and_average_equals_numpy_omp(average):
    """The stored function (the last iterate, or the mean of the iterates
    projected by KOMP alongside them) equals the NumPy KOMP recursion's,
    element by element, with the budget and the cap both at work."""
    rng = np.random.RandomState(3)
    X = rng.normal(size=(60, 2))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=60)
    params = dict(gamma=1.0, eta=0.5, alpha=0.01, epsilon=0.05, max_size=8, average=average)
    reg = DecentralizedKernelSGDRegressor(
        loss="squared_error",
        gamma=1.0, eta0=0.5, alpha=0.01, epsilon=0.05, max_dictionary_size=8, max_epochs=1,
        shuffle=False, average=average,
    ).fit(X, y, groups=np.zeros(len(y), dtype=int))
    _, offset, scale = numpy_encode(y, np.zeros(len(y), dtype=int))
    assert (reg.target_offset_, reg.target_scale_) == pytest.approx((offset, scale), rel=1e-9)
    D, V, worst = komp_reference(X, (y - reg.target_offset_) / reg.target_scale_, **params)
    D_est, V_est = reg.dictionaries_[0], reg.dual_coef_[0][:, 0]
    assert len(D_est) == len(D) == 8  # the cap binds at the end
    # Same points (KOMP moves the last element into a freed slot: match rows).
    match = [int(np.flatnonzero((D == row).all(axis=1))[0]) for row in D_est]
    assert sorted(match) == list(range(len(D)))
    assert_allclose(V_est, V[match], rtol=1e-7, atol=1e-10)
    # The budget pruned below the cap along the way, and the error matches.
    assert reg.model_order_curve_[:, 0].min() < 8 <= reg.model_order_curve_[:, 0].max()
    assert reg.komp_error_[0] == pytest.approx(worst, rel=1e-6)
    if average:
        # The mean is not the last iterate.
        assert np.abs(V_est - reg._weights[0, : len(D_est), 0]).max() > 1e-3


def test_model_order_bounded_over_long_stream():
    """50,000 samples over 5 nodes, as a stream of partial_fit batches."""
    X, y, groups, A = make_gaussian_mixture_network(
        n_nodes=5, n_samples_per_node=10_000, topology="ring", random_state=0
    )
    eta = 0.2
    epsilon = 0.5 * eta**1.5  # the theory's epsilon = K eta^(3/2)
    clf = DecentralizedKernelSGDClassifier(
        gamma=1.0, eta0=eta, alpha=1e-3, epsilon=epsilon, consensus_penalty=0.1,
        max_dictionary_size=None, network=SimulatedNetwork(A), random_state=0,
    )
    order = np.random.RandomState(0).permutation(len(y))
    for batch in np.array_split(order, 10):
        clf.partial_fit(X[batch], y[batch], groups=groups[batch], classes=np.arange(5))
    curve = clf.model_order_curve_
    assert clf.n_steps_.sum() == 50_000
    assert curve.shape == (clf.n_iter_, 5)
    assert np.all(clf.komp_error_ <= epsilon * (1 + 1e-9))
    # Bounded: the second half never exceeds what the first half reached
    # (plus a little), far below the 10,000 samples per node.
    half = len(curve) // 2
    assert curve.max() < 300
    assert curve[half:].max() <= curve[:half].max() + 10


def _consensus_problem():
    rng = np.random.RandomState(0)
    n_nodes, n_i = 3, 15
    X = rng.uniform(-2, 2, size=(n_nodes * n_i, 1))
    groups = np.repeat(np.arange(n_nodes), n_i)
    y = np.sin(X[:, 0]) + (groups - 1.0)  # every node has its own offset
    A = np.zeros((3, 3), bool)
    A[0, 1] = A[1, 0] = A[1, 2] = A[2, 1] = True  # a path
    return X, y, groups, A


def _exact_fixed_point(X, y, groups, A, gamma, lam, c):
    """Fixed point of the mean recursion over the empirical distributions.

    ``f_i = sum_{s in node i} a_s k(x_s, .)`` with, for every node,
    ``[lam n_i I + (1 + c deg_i) K_ii] a_i - c sum_j K_ij a_j = y_i``.
    """
    idx = [np.flatnonzero(groups == i) for i in range(A.shape[0])]
    M = np.zeros((len(y), len(y)))
    for i, Ii in enumerate(idx):
        M[np.ix_(Ii, Ii)] = lam * len(Ii) * np.eye(len(Ii)) + (1 + c * A[i].sum()) * rbf(
            X[Ii], X[Ii], gamma
        )
        for j in np.flatnonzero(A[i]):
            M[np.ix_(Ii, idx[j])] = -c * rbf(X[Ii], X[idx[j]], gamma)
    a = np.linalg.solve(M, y)
    return lambda i, Z: rbf(Z, X[idx[i]], gamma) @ a[idx[i]]


def scale_round_bytes(n_nodes, header):
    """A regressor's first round on a connected topology: the agreed location
    and scale of y over a spanning tree (n - 1 edges), seven float64 up and
    two down."""
    return (n_nodes - 1) * ((header + 7 * 8) + (header + 2 * 8))


def _disagreement(predict, X, groups, A):
    values = []
    for i in range(A.shape[0]):
        Xi = X[groups == i]
        for j in np.flatnonzero(A[i]):
            values.append(np.mean((predict(i, Xi) - predict(j, Xi)) ** 2))
    return float(np.mean(values))


def test_consensus_disagreement_matches_fixed_point_and_shrinks_with_c():
    X, y, groups, A = _consensus_problem()
    lam, cs = 0.1, [0.5, 2.0, 8.0]
    # The solver's problem is on the encoded targets z; predictions map back.
    z, offset, scale = numpy_encode(y, groups)
    # 2 p*, p* <= value at f = 0 (in the units of y: scale^2 times z's)
    bound = scale ** 2 * sum(np.mean(z[groups == i] ** 2) for i in range(3))
    exact, estimated = [], []
    for c in cs:
        F_z = _exact_fixed_point(X, z, groups, A, 1.0, lam, c)

        def F(i, Z, F_z=F_z):
            return offset + scale * F_z(i, Z)

        reg = DecentralizedKernelSGDRegressor(
        loss="squared_error",
            gamma=1.0, alpha=lam, consensus_penalty=c, eta0=0.2,
            learning_rate="diminishing", power_t=0.55, epsilon=1e-6,
            max_dictionary_size=None, max_epochs=1000, exchange_every=None,
            network=SimulatedNetwork(A), random_state=0,
        ).fit(X, y, groups=groups)

        def predict(i, Z, reg=reg):
            return reg.predict(Z, groups=np.full(len(Z), i))

        for i in range(3):
            Xi = X[groups == i]
            assert_allclose(predict(i, Xi), F(i, Xi), atol=5e-3)
        exact.append(_disagreement(F, X, groups, A))
        estimated.append(_disagreement(predict, X, groups, A))
    exact, estimated = np.array(exact), np.array(estimated)
    assert_allclose(estimated, exact, rtol=0.03)
    assert np.all(np.diff(estimated) < 0)
    cs = np.array(cs)
    assert np.all(cs * estimated <= bound)  # disagreement <= 2 p* / c
    # From c = 0.5 to c = 8 it shrank at least like 1 / c.
    assert estimated[-1] <= estimated[0] * cs[0] / cs[-1]


@pytest.mark.parametrize("header", [16, 1000])
def test_bytes_match_closed_form(header):
    n_nodes, n, d = 4, 6, 2
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = rng.randint(2, size=n_nodes * n)
    clf = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, kernel="rbf",
        epsilon=0.0, network=SimulatedNetwork(ring(n_nodes), header_bytes=header),
        max_epochs=1, shuffle=False, exchange_every=None,
    ).fit(X, y, groups=groups)
    unit = (d + 1) * 8  # a point and a weight, float64
    n_directed_edges = 2 * n_nodes
    per_round, messages = [], 0
    for t in range(n):  # every dictionary holds t elements in round t
        if header + t * unit < 2 * header + unit:
            per_round.append(n_directed_edges * (header + t * unit))
            messages += n_directed_edges
        else:
            per_round.append(n_directed_edges * (2 * header + unit))
            messages += 2 * n_directed_edges
    assert_array_equal(clf.bytes_per_round_, per_round)
    assert clf.communication_.total_bytes == sum(per_round)
    assert clf.communication_.total_messages == messages
    # The totals add the network function's rounds (its own log).
    assert clf.n_bytes_sent_ == sum(per_round) + clf.network_communication_.total_bytes
    assert clf.communication_.n_rounds == clf.n_iter_ == n
    # float32 data: 4 bytes a value.
    clf32 = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, kernel="rbf",
        epsilon=0.0, network=SimulatedNetwork(ring(n_nodes), header_bytes=header),
        max_epochs=1, shuffle=False, exchange_every=None,
    ).fit(X.astype(np.float32), y, groups=groups)
    assert clf32.bytes_per_round_[-1] == n_directed_edges * min(
        2 * header + (d + 1) * 4, header + (n - 1) * (d + 1) * 4
    )


def test_copies_with_period_one_equal_the_query_exchange():
    X, y, groups = _small()
    params = dict(epsilon=0.05, random_state=0, network=SimulatedNetwork("ring", drop_rate=0.2))
    query = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, exchange_every=None, **params).fit(
        X, y, groups=groups)
    copies = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, exchange_every=1, **params).fit(X, y, groups=groups)
    assert_array_equal(copies.decision_function(X, groups=groups),
                       query.decision_function(X, groups=groups))
    assert copies.n_bytes_sent_ != query.n_bytes_sent_
    stale = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, exchange_every=5, **params).fit(X, y, groups=groups)
    assert not np.allclose(stale.decision_function(X, groups=groups),
                           query.decision_function(X, groups=groups))


@pytest.mark.parametrize("period, header", [(1, 16), (3, 16), (3, 1000)])
def test_copy_exchange_bytes_match_closed_form(period, header):
    # No compression: every step appends its sample, so the delta of a
    # publication after step t carries the `period` new points and t weights.
    n_nodes, n, d = 4, 7, 3
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = rng.normal(size=n_nodes * n)
    reg = DecentralizedKernelSGDRegressor(consensus_penalty=0.1, loss="squared_error", kernel="rbf",
        epsilon=0.0, max_dictionary_size=None, exchange_every=period, max_epochs=1,
        network=SimulatedNetwork(ring(n_nodes), header_bytes=header),
    ).fit(X, y, groups=groups)
    n_directed_edges = 2 * n_nodes
    per_round = [scale_round_bytes(n_nodes, header)]
    for t in range(1, n + 1):  # the round in which every node takes its t-th step
        if t % period:
            per_round.append(0)
        else:
            payload = period * (d * 8 + 4) + t * 8 + 4
            per_round.append(n_directed_edges * (header + payload))
    assert_array_equal(reg.bytes_per_round_, per_round)
    assert reg.communication_.total_bytes == sum(per_round)
    assert reg.communication_.total_messages == n_directed_edges * (n // period) + 2 * (n_nodes - 1)
    # float32 data: 4 bytes a value (points and weights).
    reg32 = DecentralizedKernelSGDRegressor(consensus_penalty=0.1, loss="squared_error", kernel="rbf",
        epsilon=0.0, max_dictionary_size=None, exchange_every=1, max_epochs=1,
        network=SimulatedNetwork(ring(n_nodes), header_bytes=header),
    ).fit(X.astype(np.float32), y, groups=groups)
    assert reg32.bytes_per_round_[-1] == n_directed_edges * (header + d * 4 + 4 + n * 4 + 4)


def test_copy_exchange_sends_a_seen_point_as_a_reference():
    # No compression, 2 passes, a publication after each pass (period n):
    # the first delta carries the n new points, the second the n new slots
    # holding the same samples again, which the neighbours already have: an
    # int32 slot index and an int32 reference each instead of the point.
    n_nodes, n, d, header = 4, 5, 3, 16
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = rng.normal(size=n_nodes * n)
    params = dict(epsilon=0.0, max_dictionary_size=None, max_epochs=2, shuffle=False,
                  network=SimulatedNetwork(ring(n_nodes), header_bytes=header))
    reg = DecentralizedKernelSGDRegressor(consensus_penalty=0.1, loss="squared_error", kernel="rbf", exchange_every=n, **params).fit(X, y, groups=groups)
    first = header + n * (4 + d * 8) + n * 8 + 4
    second = header + n * (4 + 4) + 2 * n * 8 + 4
    n_directed_edges = 2 * n_nodes
    per_round = np.zeros(2 * n + 1, dtype=np.int64)
    per_round[0] = scale_round_bytes(n_nodes, header)
    per_round[n] = n_directed_edges * first
    per_round[2 * n] = n_directed_edges * second
    assert_array_equal(reg.bytes_per_round_, per_round)
    assert_array_equal(reg.model_order_, 2 * n)
    # "auto" publishes once per pass: after n steps here.
    auto = DecentralizedKernelSGDRegressor(consensus_penalty=0.1, loss="squared_error", kernel="rbf", **params).fit(X, y, groups=groups)
    assert_array_equal(auto.bytes_per_round_, per_round)
    # float32 data: the neighbours hold the weights as float32 values, as sent.
    reg32 = DecentralizedKernelSGDRegressor(consensus_penalty=0.1, loss="squared_error", kernel="rbf", exchange_every=n, **params).fit(
        X.astype(np.float32), y, groups=groups)
    held = reg32._pub_weights[:, : 2 * n]
    assert_array_equal(held, held.astype(np.float32))
    assert reg32.bytes_per_round_[2 * n] == n_directed_edges * (
        header + n * (4 + 4) + 2 * n * 4 + 4)


def test_copy_exchange_counts_only_changed_slots():
    # With KOMP, a publication re-sends only the slots whose point changed:
    # replay the dictionaries step by step and count them.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    groups = np.zeros(60, dtype=int)
    groups[30:] = 1
    clf = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, kernel="rbf",
        gamma=1.0, epsilon=0.3, max_dictionary_size=8, exchange_every=1, shuffle=False,
        network=SimulatedNetwork(np.array([[0, 1], [1, 0]], bool)), random_state=0,
    )
    previous = [np.zeros((0, 2)), np.zeros((0, 2))]
    expected = 0
    for t in range(30):
        rows = [t, 30 + t]
        clf.partial_fit(X[rows], y[rows], groups=groups[rows], classes=[0, 1])
        for node in range(2):
            D = clf.dictionaries_[node]
            old = previous[node]
            changed = sum(
                1 for a in range(len(D)) if a >= len(old) or not np.array_equal(D[a], old[a])
            )
            expected += 16 + changed * (2 * 8 + 4) + len(D) * 8 + 4
            previous[node] = D.copy()
    assert clf.communication_.total_bytes == expected
    assert clf.model_order_.max() <= 8


def test_no_consensus_sends_nothing_and_auto_exchange_rule():
    X, y, groups = _small()
    alone = DecentralizedKernelSGDClassifier(kernel="rbf", consensus_penalty=0.0, random_state=0).fit(
        X, y, groups=groups)
    # (only the network function at the end: its own log)
    assert alone.communication_.total_bytes == alone.communication_.total_messages == 0
    assert alone.n_bytes_sent_ == alone.network_communication_.total_bytes > 0
    assert np.all(np.isnan(alone.consensus_error_curve_))
    copies = DecentralizedKernelSGDClassifier(kernel="rbf",
        consensus_penalty=0.0, exchange_every=1, random_state=0).fit(X, y, groups=groups)
    assert copies.communication_.total_bytes == 0
    assert_array_equal(copies.decision_function(X, groups=groups),
                       alone.decision_function(X, groups=groups))
    # "auto": copies refreshed once per pass over a node's samples, whatever
    # their number: one message per neighbour and pass.
    for n_pass, sizes in [(30, None), (None, [20, 30, 40])]:
        g = groups if sizes is None else np.repeat(["a", "b", "c"], sizes)
        fits = {
            every: DecentralizedKernelSGDClassifier(consensus_penalty=0.1, kernel="rbf",
                max_epochs=4, exchange_every=every, random_state=0).fit(X, y, groups=g)
            for every in ("auto", n_pass)
        }
        # 3 nodes, 2 neighbours, 4 passes
        assert fits["auto"].communication_.total_messages == 3 * 2 * 4
        if n_pass is not None:
            assert fits["auto"].n_bytes_sent_ == fits[n_pass].n_bytes_sent_
            assert_array_equal(fits["auto"].decision_function(X, groups=g),
                               fits[n_pass].decision_function(X, groups=g))


def test_dropped_nodes_process_every_sample_later():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(5), 20)
    X = rng.normal(size=(100, 2))
    y = rng.randint(2, size=100)
    # No compression (on the default ring a node whose two neighbours are
    # dropped and whose margin is met takes a zero step, which KOMP folds).
    params = dict(epsilon=0.0, max_dictionary_size=None, max_epochs=1, random_state=0,
                  exchange_every=None)
    perfect = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, kernel="rbf", **params)
    lossy = DecentralizedKernelSGDClassifier(consensus_penalty=0.1, kernel="rbf",
        **params,
        network=SimulatedNetwork(drop_rate=0.4, random_state=0),
    )
    perfect.fit(X, y, groups=groups)
    lossy.fit(X, y, groups=groups)
    # Nothing is lost: every sample is processed exactly once, later.
    assert_array_equal(lossy.n_steps_, 20)
    assert_array_equal(lossy.model_order_, 20)
    assert lossy.n_iter_ > perfect.n_iter_ == 20
    # Fewer exchanges per round: dropped nodes neither ask nor answer.
    assert (lossy.communication_.total_messages / lossy.n_iter_
            < perfect.communication_.total_messages / perfect.n_iter_)


def test_gaussian_mixture_network_accuracy_with_bounded_dictionaries():
    # The generator's default geometry (5 classes x 3 Gaussians on a circle,
    # Bayes accuracy 97.5 % on every seed); the papers report about 95.7 %.
    X, y, groups, A = make_gaussian_mixture_network(
        n_nodes=20, n_samples_per_node=400, random_state=0
    )
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split_per_node(X, y, groups, random_state=0)
    clf = DecentralizedKernelSGDClassifier(
        loss="hinge", gamma=1.0, eta0=0.3, alpha=1e-3, epsilon=0.1, consensus_penalty=0.1,
        max_epochs=5, network=SimulatedNetwork(A), random_state=0,
    ).fit(Xtr, ytr, groups=gtr)
    assert clf.score(Xte, yte, groups=gte) >= 0.95
    assert clf.model_order_.max() <= 100  # of 300 training samples a node
    assert clf.decision_function(Xte[:3], groups=gte[:3]).shape == (3, 5)


# ------------------------------------------------------------- the contract
def _small(seed=0, n_nodes=3, n=90):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 2))
    groups = np.repeat(np.array(["a", "b", "c"])[:n_nodes], n // n_nodes)
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y, groups


def test_reproducible_and_pickle_round_trip():
    X, y, groups = _small()
    params = dict(epsilon=0.05, random_state=0, network=SimulatedNetwork("ring", drop_rate=0.2))
    a = DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)
    b = DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)
    assert_array_equal(a.decision_function(X, groups=groups), b.decision_function(X, groups=groups))
    assert a.n_bytes_sent_ == b.n_bytes_sent_
    c = pickle.loads(pickle.dumps(a))
    assert_array_equal(c.decision_function(X, groups=groups), a.decision_function(X, groups=groups))
    # The pickled model keeps learning exactly like the original.
    a.partial_fit(X[:10], y[:10], groups=groups[:10])
    c.partial_fit(X[:10], y[:10], groups=groups[:10])
    assert_array_equal(c.decision_function(X, groups=groups), a.decision_function(X, groups=groups))


def test_float32_kept_and_close_to_float64():
    X, y, groups = _small()
    params = dict(epsilon=0.0, max_dictionary_size=None, shuffle=False)
    a = DecentralizedKernelSGDClassifier(kernel="rbf", **params).fit(X, y, groups=groups)
    b = DecentralizedKernelSGDClassifier(kernel="rbf", **params).fit(
        X.astype(np.float32), y, groups=groups
    )
    assert b.dictionaries_[0].dtype == np.float32
    assert_allclose(
        b.decision_function(X, groups=groups), a.decision_function(X, groups=groups), atol=1e-4
    )


def test_invariant_to_relabelling_and_permuting_nodes():
    X, y, groups = _small()
    params = dict(epsilon=0.05, shuffle=False, network=SimulatedNetwork("ring"))
    a = DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)
    relabel = {"a": "z", "b": "b", "c": "a"}  # permutes the sorted order
    g2 = np.array([relabel[g] for g in groups])
    # Rows reordered node by node (each node keeps its arrival order).
    perm = np.concatenate([np.flatnonzero(groups == k) for k in ["c", "b", "a"]])
    b = DecentralizedKernelSGDClassifier(**params).fit(X[perm], y[perm], groups=g2[perm])
    assert_allclose(b.decision_function(X, groups=g2), a.decision_function(X, groups=groups),
                    atol=1e-12)
    # (the network function's spanning tree is rooted at the first node, so
    # its merges, hence its sizes, depend on the order)
    assert a.communication_.total_bytes == b.communication_.total_bytes


def test_fit_one_pass_equals_partial_fit_and_stream_batches():
    X, y, groups = _small()
    params = dict(epsilon=0.05, shuffle=False, max_epochs=1, random_state=0, average=0.0)
    a = DecentralizedKernelSGDClassifier(kernel="rbf", **params).fit(X, y, groups=groups)
    b = DecentralizedKernelSGDClassifier(kernel="rbf", **params).partial_fit(X, y, groups=groups, classes=[0, 1])
    assert_allclose(b.decision_function(X, groups=groups), a.decision_function(X, groups=groups))
    # Without coupling (c = 0) the nodes are independent, so the stream can
    # be cut into batches anywhere (with a fixed gamma: "scale" reads the
    # first batch).
    params["consensus_penalty"] = 0.0
    params["gamma"] = None
    c = DecentralizedKernelSGDClassifier(kernel="rbf", **params).fit(X, y, groups=groups)
    d = DecentralizedKernelSGDClassifier(kernel="rbf", **params)
    interleaved = np.arange(len(y)).reshape(3, -1).T.ravel()  # nodes take turns
    for batch in np.array_split(interleaved, 4):
        d.partial_fit(X[batch], y[batch], groups=groups[batch], classes=[0, 1])
    assert_allclose(d.decision_function(X, groups=groups), c.decision_function(X, groups=groups))
    assert len(d.bytes_per_round_) == d.n_iter_ == len(d.consensus_error_curve_)
    assert d.bytes_per_round_.sum() == d.communication_.total_bytes
    assert d.n_bytes_sent_ == (d.communication_.total_bytes
                               + d.network_communication_.total_bytes)


def test_per_node_gamma_gives_each_node_its_own_kernel():
    X, y, groups = _small()
    gammas = {"a": 0.2, "b": 1.0, "c": 5.0}
    joint = DecentralizedKernelSGDClassifier(kernel="rbf",
        gamma=gammas, consensus_penalty=0.0, epsilon=0.0, shuffle=False
    ).fit(X, y, groups=groups)
    assert_allclose(joint.gamma_, [0.2, 1.0, 5.0])
    for node, gamma in gammas.items():
        mask = groups == node
        alone = DecentralizedKernelSGDClassifier(kernel="rbf",
            gamma=gamma, consensus_penalty=0.0, epsilon=0.0, shuffle=False
        ).fit(X[mask], y[mask], groups=groups[mask])
        assert_allclose(
            joint.decision_function(X, groups=np.full(len(X), node)),
            alone.decision_function(X, groups=np.full(len(X), node)),
        )


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly"])
def test_median_and_scale_gamma_per_node_against_numpy(kernel):
    rng = np.random.RandomState(0)
    sizes = [40, 2, 1, 1500]  # one sample: no pair, falls back to "scale"
    groups = np.repeat(np.arange(4), sizes)
    X = rng.normal(size=(len(groups), 3)) * np.repeat([1.0, 2.0, 3.0, 0.5], sizes)[:, None]
    y = rng.normal(size=len(groups))
    reg = DecentralizedKernelSGDRegressor(kernel=kernel, gamma="median", max_epochs=1)
    reg.fit(X, y, groups=groups)
    scale = DecentralizedKernelSGDRegressor(kernel=kernel, gamma="scale", max_epochs=1)
    scale.fit(X, y, groups=groups)
    expected, expected_scale = [], []
    for node, n in enumerate(sizes):
        Xi = X[groups == node]
        expected_scale.append(1.0 / (3 * Xi.var()) if Xi.var() > 0 else 1.0)
        if n > 1000:  # 1000 evenly spaced samples
            Xi = Xi[np.linspace(0, n - 1, 1000).astype(int)]
        a, b = np.triu_indices(len(Xi), 1)
        if kernel == "rbf":
            args = ((Xi[a] - Xi[b]) ** 2).sum(1)
        elif kernel == "laplacian":
            args = np.abs(Xi[a] - Xi[b]).sum(1)
        else:
            args = np.abs((Xi[a] * Xi[b]).sum(1))
        expected.append(1.0 / np.median(args) if len(args) else expected_scale[-1])
    assert_allclose(scale.gamma_, expected_scale, rtol=1e-10)
    assert_allclose(reg.gamma_, expected, rtol=1e-10)
    assert reg.gamma_[2] == scale.gamma_[2]


def laplacian(A, B, gamma):
    return np.exp(-gamma * np.abs(A[:, None, :] - B[None, :, :]).sum(-1))


@pytest.mark.parametrize("n_features, expected", [(9, "rbf"), (10, "laplacian")])
def test_auto_kernel_is_laplacian_from_ten_features_against_numpy(n_features, expected):
    # The classifier's default kernel="auto": the NumPy recursion with the
    # kernel it stands for, at that kernel's median-heuristic width per node.
    rng = np.random.RandomState(0)
    counts = [8, 6, 7]
    groups = np.repeat(np.arange(3), counts)
    X = rng.normal(size=(len(groups), n_features)) * np.repeat([1.0, 0.5, 2.0], counts)[:, None]
    y = rng.randint(3, size=len(groups))
    A = ring(3)
    params = dict(eta0=0.3, alpha=0.05, consensus_penalty=0.4, epsilon=0.0,
                  max_dictionary_size=None, max_epochs=2, shuffle=False, average=0.5,
                  exchange_every=None, network=SimulatedNetwork(A))
    est = DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)
    assert est.kernel == "auto" and est.kernel_ == expected
    gamma = []
    for node in range(3):
        Xi = X[groups == node]
        a, b = np.triu_indices(len(Xi), 1)
        if expected == "laplacian":
            gamma.append(1.0 / np.median(np.abs(Xi[a] - Xi[b]).sum(1)))
        else:
            gamma.append(1.0 / np.median(((Xi[a] - Xi[b]) ** 2).sum(1)))
    assert_allclose(est.gamma_, gamma, rtol=1e-12)
    D, W = sgd_reference(X, y.astype(float), groups, A, np.array(gamma), d_multiclass_hinge, 3,
                         eta=0.3, alpha=0.05, c=0.4, epochs=2, average=0.5,
                         kernel=laplacian if expected == "laplacian" else rbf)
    other = sgd_reference(X, y.astype(float), groups, A, np.array(gamma), d_multiclass_hinge, 3,
                          eta=0.3, alpha=0.05, c=0.4, epochs=2, average=0.5,
                          kernel=rbf if expected == "laplacian" else laplacian)[1]
    for i in range(3):
        assert_array_equal(est.dictionaries_[i], D[i])
        assert_allclose(est.dual_coef_[i], W[i], rtol=1e-12, atol=1e-14)
        assert not np.allclose(est.dual_coef_[i], other[i], rtol=1e-3)
    # The explicit kernel gives the same fit; with a fixed eta0 nothing is
    # selected (the regressor's default is "auto" too).
    explicit = DecentralizedKernelSGDClassifier(kernel=expected, **params).fit(X, y, groups=groups)
    for i in range(3):
        assert_array_equal(explicit.dual_coef_[i], est.dual_coef_[i])
    assert est.kernel_selection_ is None
    reg = DecentralizedKernelSGDRegressor(eta0=0.3, max_epochs=1)
    assert reg.fit(X, y.astype(float), groups=groups).kernel_ == expected
    assert reg.kernel == "auto" and reg.kernel_selection_ is None


def test_node_with_one_class_predicts_all_classes_and_unknown_node():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(90, 2))
    y = np.repeat([0, 1, 2], 30)
    groups = np.where(np.arange(90) < 30, "only0", rng.choice(["m", "n"], size=90))
    clf = DecentralizedKernelSGDClassifier(
        loss="log_loss", gamma=0.5, consensus_penalty=1.0, random_state=0
    ).fit(X, y, groups=groups)
    proba = clf.predict_proba(X, groups=groups)
    assert proba.shape == (90, 3)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert set(clf.classes_) == {0, 1, 2}
    # The unseen node gets the network function: the mean of all node
    # functions, within KOMP's budget at each of the tree's two levels
    # (|f(x)| <= ||f|| for the rbf kernel).
    unseen = clf.decision_function(X[:5], groups=["new"] * 5)
    mean = np.mean(
        [clf.decision_function(X[:5], groups=[node] * 5) for node in clf.nodes_], axis=0
    )
    assert np.abs(unseen - mean).max() <= 2 * clf.epsilon_
    assert_allclose(unseen, clf._network_values(np.asarray(X[:5])))
    strict = clf.set_params(handle_unknown="error")
    with pytest.raises(ValueError, match="not seen in fit"):
        strict.predict(X[:5], groups=["new"] * 5)


def test_hinge_has_no_predict_proba():
    assert not hasattr(DecentralizedKernelSGDClassifier(loss="hinge"), "predict_proba")
    assert hasattr(DecentralizedKernelSGDClassifier(loss="log_loss"), "predict_proba")


def test_max_dictionary_size_caps_every_node():
    X, y, groups = _small(n=300)
    clf = DecentralizedKernelSGDClassifier(kernel="rbf", epsilon=0.0, max_dictionary_size=7).fit(
        X, y, groups=groups
    )
    assert clf.model_order_curve_.max() == 7


def test_rogue_node_hurts_its_neighbours():
    # The last iterates (average=0): the default averaged model smooths the
    # attack out on this easy problem (same score), but differs.
    X, y, groups = _small(n=300)
    honest = DecentralizedKernelSGDClassifier(
        consensus_penalty=2.0, average=0.0, random_state=0).fit(X, y, groups=groups)
    attacked = DecentralizedKernelSGDClassifier(
        consensus_penalty=2.0, average=0.0, random_state=0,
        network=SimulatedNetwork(rogue_fraction=0.34, random_state=0),
    ).fit(X, y, groups=groups)
    assert attacked.score(X, y, groups=groups) < honest.score(X, y, groups=groups)
    averaged = [
        DecentralizedKernelSGDClassifier(consensus_penalty=2.0, random_state=0, network=net)
        .fit(X, y, groups=groups).decision_function(X, groups=groups)
        for net in (None, SimulatedNetwork(rogue_fraction=0.34, random_state=0))
    ]
    assert np.abs(averaged[0] - averaged[1]).max() > 0.1


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(eta0=2.0, alpha=0.5), "eta0 \\* alpha must be < 1"),
        (dict(kernel="sigmoid"), "not positive semi-definite"),
        (dict(gamma=[1.0, 2.0]), "one value per node"),
        (dict(gamma={"a": 1.0}), "no value for node"),
        (dict(gamma=-1.0), "gamma"),
    ],
)
def test_bad_parameters_raise(params, match):
    X, y, groups = _small()
    with pytest.raises(ValueError, match=match):
        DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)


def test_partial_fit_errors():
    X, y, groups = _small()
    with pytest.raises(ValueError, match="classes must be passed"):
        DecentralizedKernelSGDClassifier().partial_fit(X, y, groups=groups)
    clf = DecentralizedKernelSGDClassifier().partial_fit(X, y, groups=groups, classes=[0, 1])
    # Fitted with string ids: integer ids are refused naming groups (a
    # ValueError, still a TypeError as before), before anything changes.
    n_nodes = len(clf.nodes_)
    with pytest.raises(ValueError, match="groups holds node ids of kind number") as info:
        clf.partial_fit(X[:3], y[:3], groups=[7] * 3)
    assert isinstance(info.value, TypeError)
    assert len(clf.nodes_) == n_nodes
    with pytest.raises(ValueError, match="not in classes_"):
        clf.partial_fit(X[:3], [5, 5, 5], groups=groups[:3])
    with pytest.raises(ValueError, match="needs the node id"):
        clf.partial_fit(X[:3], y[:3])
    with pytest.raises(ValueError, match="at least 2 classes"):
        DecentralizedKernelSGDClassifier().fit(X, np.zeros(len(y)), groups=groups)


def test_unstable_consensus_step_refused():
    # Formerly a warning, now a refusal: the fit never runs an unstable step.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 2))
    y = rng.randint(2, size=60)
    groups = np.arange(60) % 30  # 30 nodes on the complete graph: lambda_max(L) = 30
    with pytest.raises(ValueError, match="eta0=0.5 is not below the stability bound"):
        DecentralizedKernelSGDClassifier(
            eta0=0.5, consensus_penalty=0.2, network=SimulatedNetwork("complete")
        ).fit(X, y, groups=groups)


# ------------------------------------------------------------ stability
def _shared_point_problem(n_nodes=6, n=200, seed=0):
    """Every node sees the same point x, with its own target: the nodes'
    values v_i = f_i(x) then follow a linear recursion exactly."""
    rng = np.random.RandomState(seed)
    A = rng.rand(n_nodes, n_nodes) < 0.6
    A = np.triu(A, 1)
    A = A | A.T
    A[np.arange(n_nodes), (np.arange(n_nodes) + 1) % n_nodes] = True  # connected
    A = A | A.T
    np.fill_diagonal(A, False)
    x = rng.normal(size=3)
    X = np.tile(x, (n_nodes * n, 1))
    groups = np.repeat(np.arange(n_nodes), n)
    targets = rng.uniform(-3, 3, size=n_nodes)
    return X, targets[groups], groups, A, targets


def numpy_shared_point_recursion(A, targets, *, eta, alpha, c, kxx, n_rounds):
    """v <- (1 - eta alpha) v - eta k(x, x) ((v - y) + c L v), from v = 0."""
    L = np.diag(A.sum(1)) - A.astype(float)
    v = np.zeros(len(targets))
    for _ in range(n_rounds):
        v = (1 - eta * alpha) * v - eta * kxx * ((v - targets) + c * L @ v)
    return v


@pytest.mark.parametrize("c", [0.3, 2.0])
def test_step_bound_against_numpy_recursion(c):
    X, y, groups, A, targets = _shared_point_problem()
    alpha, n = 0.01, 200
    L = np.diag(A.sum(1)) - A.astype(float)
    bound = 2.0 / (alpha + 1.0 * (1.0 + c * np.linalg.eigvalsh(L)[-1]))  # rbf: k(x, x) = 1
    params = dict(gamma=1.0, alpha=alpha, consensus_penalty=c, epsilon=0.0,
                  max_dictionary_size=None, max_epochs=1, shuffle=False, average=0.0,
                  exchange_every=None, network=SimulatedNetwork(A))
    # 5 % above the bound the NumPy recursion diverges, and the estimator refuses.
    above = numpy_shared_point_recursion(A, targets, eta=1.05 * bound, alpha=alpha, c=c,
                                         kxx=1.0, n_rounds=n)
    assert np.abs(above).max() > 1e3
    with pytest.raises(ValueError, match="stability bound") as info:
        DecentralizedKernelSGDRegressor(loss="squared_error", kernel="rbf", eta0=1.05 * bound, **params).fit(X, y, groups=groups)
    assert f"{bound:.6g}" in str(info.value) and "eta0=" in str(info.value)
    # 5 % below it converges, and the fit follows the recursion exactly, on
    # the targets less their agreed location (every node's targets are
    # constant: the scale is the spread between the nodes, review10; the
    # recursion is linear in the targets, so the scale cancels).
    offset = numpy_offset(y, groups)
    below = offset + numpy_shared_point_recursion(A, targets - offset, eta=0.95 * bound,
                                                  alpha=alpha, c=c, kxx=1.0, n_rounds=n)
    fixed = offset + np.linalg.solve((alpha + 1.0) * np.eye(len(targets)) + c * L,
                                     targets - offset)
    assert_allclose(below, fixed, atol=1e-3)
    reg = DecentralizedKernelSGDRegressor(loss="squared_error", kernel="rbf", eta0=0.95 * bound, **params).fit(X, y, groups=groups)
    assert reg.target_offset_ == pytest.approx(offset, rel=1e-12)
    assert reg.target_scale_ == pytest.approx(numpy_scale(y, groups), rel=1e-12)
    assert reg.target_scale_ != 1.0
    assert reg.step_bound_ == pytest.approx(bound, rel=1e-9)
    assert reg.eta0_ == 0.95 * bound
    values = [reg.predict(X[:1], groups=[i])[0] for i in range(len(targets))]
    assert_allclose(values, below, rtol=1e-8, atol=1e-10)
    # "auto": 1 / (alpha + K (1 + c lambda_max)), half the bound for the squared loss.
    auto = DecentralizedKernelSGDRegressor(loss="squared_error", kernel="rbf", **params).fit(X, y, groups=groups)
    assert auto.eta0_ == pytest.approx(bound / 2, rel=1e-9)
    values = [auto.predict(X[:1], groups=[i])[0] for i in range(len(targets))]
    assert_allclose(values, fixed, atol=1e-3)


def test_step_bound_uses_loss_smoothness_kernel_sup_and_sample_weight():
    X, y, groups, A, _ = _shared_point_problem(n=5)
    L = np.diag(A.sum(1)) - A.astype(float)
    lam_max = np.linalg.eigvalsh(L)[-1]
    sw = np.ones(len(y))
    sw[3] = 4.0
    reg = DecentralizedKernelSGDRegressor(
        kernel="linear", alpha=0.0, consensus_penalty=0.5, network=SimulatedNetwork(A)
    ).fit(X, y, groups=groups, sample_weight=sw)
    K = float(X[0] @ X[0])
    assert reg.step_bound_ == pytest.approx(2 / (K * (4.0 + 0.5 * lam_max)), rel=1e-9)
    clf = DecentralizedKernelSGDClassifier(kernel="rbf",
        loss="log_loss", alpha=0.1, consensus_penalty=0.5, network=SimulatedNetwork(A)
    ).fit(X, (y > 0).astype(int), groups=groups)
    assert clf.step_bound_ == pytest.approx(2 / (0.1 + 0.25 + 0.5 * lam_max), rel=1e-9)
    hinge = DecentralizedKernelSGDClassifier(kernel="rbf",
        alpha=0.1, consensus_penalty=0.5, network=SimulatedNetwork(A)
    ).fit(X, (y > 0).astype(int), groups=groups)
    assert hinge.step_bound_ == pytest.approx(2 / (0.1 + 0.5 * lam_max), rel=1e-9)
    assert hinge.eta0_ == pytest.approx(1 / (0.1 + 1 + 0.5 * lam_max), rel=1e-9)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(learning_rate="diminishing", power_t=0.5), "power_t must be in"),
        (dict(learning_rate="diminishing", power_t=1.5), "power_t must be in"),
        (dict(learning_rate="diminishing", eta0=20.0, alpha=0.1), "eta0 \\* alpha must be < 1"),
    ],
)
def test_diminishing_step_meets_the_paper_conditions(params, match):
    X, y, groups = _small()
    with pytest.raises(ValueError, match=match):
        DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)


def test_exploding_fit_raises_and_keeps_no_model():
    # A diminishing step far above the bound at first: the values explode
    # before the steps shrink; the run-time guard refuses the model.
    X, y, groups, A, _ = _shared_point_problem(n=50)
    reg = DecentralizedKernelSGDRegressor(
        gamma=1.0, alpha=1e-3, consensus_penalty=50.0, eta0=5.0, learning_rate="diminishing",
        power_t=1.0, epsilon=0.0, max_dictionary_size=None, network=SimulatedNetwork(A),
    )
    with pytest.raises(FloatingPointError, match="diverged at node") as info:
        reg.fit(X, y, groups=groups)
    # The node is named as the user gave it (an int), not as a NumPy repr.
    assert "np." not in str(info.value)
    assert not hasattr(reg, "dictionaries_")
    with pytest.raises(NotFittedError):
        reg.predict(X[:1], groups=[0])


def _thousand_nodes_two_samples():
    """The issue's reproducer: 1,000 nodes, 2 samples each, 5 features."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(2000, 5))
    y = X @ rng.uniform(-2, 2, size=5) + 0.5 * rng.normal(size=2000)
    return X, y, np.repeat(np.arange(1000), 2)


def test_finite_outputs_at_defaults_on_1000_nodes_with_2_samples():
    X, y, groups = _thousand_nodes_two_samples()
    reg = DecentralizedKernelSGDRegressor(random_state=0).fit(X, y, groups=groups)
    pred = reg.predict(X, groups=groups)
    assert np.all(np.isfinite(pred))
    assert np.abs(pred).max() <= np.abs(y).max()
    assert reg.score(X, y, groups=groups) > 0.3
    assert reg.eta0_ < reg.step_bound_ / 2 + 1e-12
    assert_array_equal(np.asarray(reg.adjacency_.sum(axis=1)).ravel(), 2)  # a ring
    clf = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y > 0, groups=groups)
    scores = clf.decision_function(X, groups=groups)
    assert np.all(np.isfinite(scores)) and np.abs(scores).max() < 10
    assert clf.score(X, y > 0, groups=groups) > 0.8


def _up_front_orders(codes, n_nodes, epochs, shuffle, seeds, call):
    """Every node's order over all passes at once (the orders before issue 31)."""
    orders = []
    for node in range(n_nodes):
        rows = np.flatnonzero(codes == node)
        if not shuffle:
            orders.append(np.tile(rows, epochs))
            continue
        rng = np.random.RandomState([int(seeds[node]), call])
        orders.append(np.concatenate([rows[rng.permutation(len(rows))] for _ in range(epochs)])
                      if len(rows) else rows)
    return orders


@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("block", [1, 7, 1000])
def test_streamed_epoch_orders_equal_the_up_front_orders(shuffle, block):
    from skfed.online import _EpochOrders

    rng = np.random.RandomState(0)
    codes = rng.randint(0, 5, size=60)
    codes[codes == 3] = 2  # a node with no sample
    seeds = np.arange(11, 16, dtype=np.uint32)
    expected = _up_front_orders(codes, 5, 6, shuffle, seeds, call=2)
    orders = _EpochOrders(codes, 5, 6, shuffle, seeds, call=2)
    assert_array_equal(orders.lengths, [len(o) for o in expected])
    consumed = [[] for _ in range(5)]
    while orders.remaining().any():
        orders.fill(block)
        held = orders.queue_end - orders.position
        # Every node holds the next `block` steps, or all it has left.
        assert np.all(held >= np.minimum(block, orders.remaining()))
        for node in range(5):  # consume up to `block` steps, as `block` rounds would
            take = min(block, held[node], rng.randint(0, block + 1))
            start = orders.position[node]
            consumed[node].extend(orders.queue[start:start + take].tolist())
            orders.position[node] += take
    for node in range(5):
        assert_array_equal(consumed[node], expected[node])


def test_short_orders_are_made_at_once_and_keep_no_random_state():
    # A node's whole order under _MIN_FILL_STEPS steps is made at the first
    # fill, whatever the block: no RandomState is kept (2.5 KiB each, more
    # than the order itself over 10^5 nodes).
    from skfed.online import _MIN_FILL_STEPS, _EpochOrders

    codes = np.repeat(np.arange(50), 3)
    seeds = np.arange(1, 51, dtype=np.uint32)
    orders = _EpochOrders(codes, 50, 10, True, seeds, 0)
    orders.fill(1)
    assert orders.queue.size == 50 * 30 and not orders._rngs
    assert_array_equal(orders.queue, np.concatenate(
        _up_front_orders(codes, 50, 10, True, seeds, call=0)))
    # A longer one is made _MIN_FILL_STEPS steps (whole passes) ahead.
    orders = _EpochOrders(np.repeat(np.arange(2), 100), 2, 10, True, seeds[:2], 0)
    orders.fill(1)
    passes = -(-_MIN_FILL_STEPS // 100)
    assert_array_equal(orders.queue_end - orders.position, [100 * passes] * 2)
    assert len(orders._rngs) == 2


def test_huge_max_epochs_holds_only_the_orders_in_use():
    # Issue 31: max_epochs=10**9 built every pass's order up front (MemoryError).
    from skfed.online import _EpochOrders

    codes = np.repeat(np.arange(8), 30)
    orders = _EpochOrders(codes, 8, 10**9, True, np.arange(1, 9, dtype=np.uint32), 0)
    assert orders.remaining().tolist() == [30 * 10**9] * 8
    orders.fill(1000)
    assert orders.queue.size == 8 * 1020  # 34 passes of 30 samples per node
    est = DecentralizedKernelSGDClassifier(max_epochs=10**9)
    est._validate_params()


def test_fit_does_not_depend_on_the_round_block(monkeypatch):
    # The orders and fault draws are streamed a block of rounds at a time;
    # any block gives the same fit (the default holds this fit in one block).
    import skfed.online as online

    X, y, groups = _small(seed=1)
    params = dict(max_epochs=4, random_state=0,
                  network=SimulatedNetwork(drop_rate=0.3, rogue_fraction=0.34))
    one = DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)
    monkeypatch.setattr(online, "_ROUND_BLOCK", 3 * len(one.nodes_))
    monkeypatch.setattr(online, "_MIN_FILL_STEPS", 1)  # a pass at a time
    blocks = DecentralizedKernelSGDClassifier(**params).fit(X, y, groups=groups)
    assert_array_equal(blocks.decision_function(X, groups=groups),
                       one.decision_function(X, groups=groups))
    assert_array_equal(blocks.bytes_per_round_, one.bytes_per_round_)
    assert blocks.n_iter_ == one.n_iter_


# ------------------------------------------------------- nodes that join later
def _join_setup(kind="classifier", loss="hinge", header=16, exchange_every=None,
                clustered=False, **params):
    # clustered: nodes 0, 1 and the new node 4 share one rule, nodes 2 and 3
    # learn its opposite (the network mean is then a poor start for node 4).
    rng = np.random.RandomState(3)
    n_old, n, d, k = 4, 8, 2, 5
    X = rng.normal(size=((n_old + 1) * n, d))
    groups = np.repeat(np.arange(n_old + 1), n)
    slope = 0.3 * (1 if clustered else groups)
    sign = np.where(clustered & np.isin(groups, [2, 3]), -1.0, 1.0)
    if kind == "classifier":
        y = (sign * (X[:, 0] + slope * X[:, 1]) > 0).astype(int)
        est = DecentralizedKernelSGDClassifier(kernel="rbf", loss=loss)
    else:
        y = sign * np.sin(X[:, 0]) + 0.1 * (0 if clustered else groups)
        est = DecentralizedKernelSGDRegressor(kernel="rbf", loss=loss)
        if loss == "huber":
            est.set_params(loss_epsilon=0.2)  # a small threshold: the kink is crossed
    est.set_params(**{**dict(
        gamma=0.7, epsilon=0.0, max_dictionary_size=None, average=0.0, max_epochs=2,
        shuffle=False, exchange_every=exchange_every, alpha=1e-3, consensus_penalty=0.3,
        network=SimulatedNetwork(ring(n_old), header_bytes=header), random_state=0), **params})
    old = groups < n_old
    # (clustered: nodes 2 and 3 weigh their samples more, so that their
    # opposite rule pulls the network mean clearly off node 4's: its
    # neighbours then win by more than a standard error, _JOIN_START_MARGIN)
    weight = np.where(clustered & np.isin(groups, [2, 3]), 4.0, 1.0)
    est.fit(X[old], y[old], groups=groups[old], sample_weight=weight[old])
    # (what a regressor's network scale is computed on, for the NumPy
    # references: _numpy_net_factor)
    est._test_fit_samples = (X[old], y[old], weight[old], n_old)
    new_rows = np.flatnonzero(~old)[:k]
    return est, X[new_rows], y[new_rows], groups[new_rows]


def _value_loss(kind, loss, threshold=None):
    if kind == "regressor" and loss == "huber":
        t = threshold
        return ((lambda f, y: 0.5 * (f - y) ** 2 if abs(f - y) <= t
                 else t * (abs(f - y) - t / 2)),
                (lambda f, y: min(max(f - y, -t), t)))
    if kind == "regressor":
        return lambda f, y: 0.5 * (f - y) ** 2, d_squared
    if loss == "hinge":
        return (lambda f, y: max(0.0, 1 - y * f)), (lambda f, y: -y if y * f < 1 else 0.0)
    return (lambda f, y: np.log1p(np.exp(-y * f))), d_logistic


@pytest.fixture
def join_constants(monkeypatch):
    """Set the join's budget and pass choices (``skfed.online._join``)."""
    import skfed.online._join as join

    def set_(budget=np.inf, passes=None, ratio=None):
        monkeypatch.setattr(join, "_JOIN_BUDGET", budget)
        if passes is not None:
            monkeypatch.setattr(join, "_JOIN_PASSES", passes)
        if ratio is not None:
            monkeypatch.setattr(join, "_JOIN_START_RATIO", ratio)

    return set_


def _encoded(est, y):
    """A regressor's targets as its solver sees them (numpy_encode's location
    and scale, checked against the fitted ones in the first tests)."""
    return (np.asarray(y, dtype=float) - est.target_offset_) / est.target_scale_


def _encoded_threshold(est):
    """The robust loss's threshold in the units of the encoded targets."""
    return float(est.loss_epsilon) if hasattr(est, "loss_threshold_") else None


def _numpy_start(values, targets):
    """The start's weights: least squares shrunk to the mean (unit weights)."""
    m = len(values)
    A = np.stack([v.ravel() for v in values], axis=1)
    G = A.T @ A
    rho = np.trace(G) / m
    u = np.full(m, 1.0 / m)
    return u + np.linalg.solve(G + rho * np.eye(m), A.T @ (targets.ravel() - A @ u))


def _numpy_net_factor(est, f_net):
    """A regressor's network scale when every fitted node is a candidate:
    ``sum w f0 y / sum w f0^2`` over the fit's samples, and the prior ``n``
    (the nodes' mean weight)."""
    X, y, w, n_old = est._test_fit_samples
    y = _encoded(est, y)
    f0 = np.array([f_net(x) for x in X])
    return np.dot(w, f0 * y) / np.dot(w, f0 * f0), w.sum() / n_old


def _numpy_start_rows(kind, value, f_old, f_net, Xn, y_enc, n_candidates, degree,
                      widths=None):
    """Per sample: the criterion (a classifier's errors, a regressor's
    loss) of the network function, and the leave-one-out criterion of the
    neighbours' choice (the ``degree`` candidates of least loss on the
    other samples, those of the best one's width when ``widths`` are given,
    their plain mean)."""
    def criterion(fx, t):
        if kind == "classifier":
            return float((1.0 if fx > 0 else -1.0) != t)
        return value(fx, t)

    net = np.array([criterion(f_net(x), t) for x, t in zip(Xn, y_enc)])
    per = np.array([[value(f_old(j, x), t) for x, t in zip(Xn, y_enc)]
                    for j in range(n_candidates)])
    loo = np.zeros(len(Xn))
    for s in range(len(Xn)):
        rest = per.sum(axis=1) - per[:, s]
        chosen = np.argsort(rest, kind="stable")[:degree]
        if widths is not None:
            chosen = chosen[widths[chosen] == widths[chosen[0]]]
        loo[s] = criterion(np.mean([f_old(j, Xn[s]) for j in chosen]), y_enc[s])
    return net, loo


def _numpy_start_choice(kind, value, f_old, f_net, Xn, y_enc, n_candidates, degree,
                        widths=None, margin=1.0, ratio=0.5):
    """``"network"`` or ``"neighbours"`` from :func:`_numpy_start_rows`:
    the network function unless the neighbours do better, a regressor's by
    more than ``margin`` standard errors of the summed difference and with
    at most ``ratio`` times its loss."""
    net, loo = _numpy_start_rows(kind, value, f_old, f_net, Xn, y_enc, n_candidates,
                                 degree, widths)
    diff = loo - net
    se = (np.sqrt(len(diff) * np.var(diff, ddof=1))
          if kind == "regressor" and len(diff) > 1 else 0.0)
    if kind == "regressor" and loo.sum() > ratio * net.sum():
        return "network"
    return "network" if net.sum() <= loo.sum() + margin * se else "neighbours"


def _numpy_passes(f_old, neighbours, D0, W0, Xn, y_enc, gamma, value, dloss, *, eta, alpha,
                  c, choices):
    """Cross-validated passes of a newcomer: dictionary-based steps on the
    other samples (leave-one-out for 5 samples), mean held-out loss."""
    n = len(Xn)
    scores = []
    for E in choices:
        total = 0.0
        for h in range(n):
            D, W = D0.copy(), W0.copy()
            train = [s for s in range(n) if s != h]
            for s in train * E:
                x = Xn[s]
                fi = rbf(x[None], D, gamma)[0] @ W[:, 0]
                omega = dloss(fi, y_enc[s]) + c * sum(fi - f_old(j, x) for j in neighbours)
                D = np.vstack([D, x])
                W = np.vstack([(1 - eta * alpha) * W, [[-eta * omega]]])
            total += value(rbf(Xn[h][None], D, gamma)[0] @ W[:, 0], y_enc[h])
        scores.append(total / n)
    scores = np.array(scores)
    return choices[np.flatnonzero(scores == scores.min())[-1]], scores


@pytest.mark.parametrize("loss", ["squared_error", "huber"])
def test_regressor_start_margin_is_one_standard_error(loss, join_constants, monkeypatch):
    # The clustered newcomer's neighbours beat the network function by
    # ``-sum(d)`` over its samples; it starts from them exactly when that
    # exceeds _JOIN_START_MARGIN standard errors of the sum.
    import skfed.online._join as join

    join_constants(passes=(0,))
    est, Xn, yn, gn = _join_setup("regressor", loss, clustered=True)
    value, _ = _value_loss("regressor", loss, _encoded_threshold(est))
    yn_enc = _encoded(est, yn)
    D_old = [D.copy() for D in est.dictionaries_]
    W_old = [W.copy() for W in est.dual_coef_]

    def f_old(j, x):
        return rbf(x[None], D_old[j], 0.7)[0] @ W_old[j][:, 0]

    D_net, W_net = est.network_dictionary_[0], est.network_coef_[0][:, 0]

    def f_mean(x):
        if est._network_solved[0]:   # (step 4's solve, tests/test_online_regressor_solve.py)
            return rbf(x[None], D_net, 0.7)[0] @ W_net
        return np.mean([f_old(j, x) for j in range(4)])

    factor, _ = _numpy_net_factor(est, f_mean)
    assert abs(factor - 1) > 0.05  # (the scale matters here)
    if est._network_solved[0]:
        factor = 1.0   # (a solved one is taken at scale 1)
    net, loo = _numpy_start_rows("regressor", value, f_old, lambda x: factor * f_mean(x),
                                 Xn, yn_enc, 4, 2)
    d = loo - net
    se = np.sqrt(len(d) * np.var(d, ddof=1))
    assert d.sum() < 0 and se > 0
    # (intermediate: the margin at which the choice flips; the ratio rule
    # set aside)
    flip = -d.sum() / se
    monkeypatch.setattr(join, "_JOIN_START_RATIO", 1.0)
    for margin, start in [(0.99 * flip, "neighbours"), (1.01 * flip, "network")]:
        monkeypatch.setattr(join, "_JOIN_START_MARGIN", margin)
        fresh = copy.deepcopy(est)
        fresh.add_nodes(Xn, yn, groups=gn)
        assert fresh.join_start_.tolist() == [start]
    # ... and the ratio of the losses at which it flips (within the margin)
    ratio = loo.sum() / net.sum()
    assert 0 < ratio < 1
    monkeypatch.setattr(join, "_JOIN_START_MARGIN", 0.99 * flip)
    for bound, start in [(1.01 * ratio, "neighbours"), (0.99 * ratio, "network")]:
        monkeypatch.setattr(join, "_JOIN_START_RATIO", bound)
        fresh = copy.deepcopy(est)
        fresh.add_nodes(Xn, yn, groups=gn)
        assert fresh.join_start_.tolist() == [start]


@pytest.mark.parametrize("kind, loss", [("classifier", "hinge"), ("classifier", "log_loss"),
                                        ("regressor", "squared_error"), ("regressor", "huber")])
@pytest.mark.parametrize("passes", [None, (2,)])
@pytest.mark.parametrize("clustered", [False, True])
def test_join_equals_numpy_neighbour_choice_start_and_steps(kind, loss, passes, clustered,
                                                            join_constants):
    # passes=None: the passes are cross-validated among 0, 1 and 2
    # (max_epochs); (2,): always 2, so the steps are always checked.  The
    # regressor's ratio rule set aside (ratio 1: its clustered newcomer has
    # 0.26 / 0.96 of the network's squared / huber loss; the rule's own
    # checks: test_regressor_start_margin_is_one_standard_error,
    # tests/test_online_join_start_ratio.py).
    join_constants(passes=passes or (0, 1, 3, 10), ratio=1.0)
    est, Xn, yn, gn = _join_setup(kind, loss, clustered=clustered)
    D_old = [D.copy() for D in est.dictionaries_]
    W_old = [W.copy() for W in est.dual_coef_]
    D_net, W_net = est.network_dictionary_[0].copy(), est.network_coef_[0].copy()
    est.add_nodes(Xn, yn, groups=gn)
    y_enc = np.where(yn == 1, 1.0, -1.0) if kind == "classifier" else _encoded(est, yn)
    value, dloss = _value_loss(kind, loss, _encoded_threshold(est))

    def f(D, W, x):
        return rbf(x[None], D, 0.7)[0] @ W[:, 0]

    def f_old(j, x):
        return f(D_old[j], W_old[j], x)

    # 1. neighbours: the 2 (median degree of the ring) of the 4 fitted nodes
    # (all candidates) with the smallest mean loss on the new node's samples.
    losses = [np.mean([value(f_old(j, x), t) for x, t in zip(Xn, y_enc)]) for j in range(4)]
    neighbours = np.sort(np.argsort(losses, kind="stable")[:2])
    assert_array_equal(est.adjacency_[4].indices, neighbours)
    assert_array_equal(est.adjacency_[:, 4].nonzero()[0], neighbours)
    # 2. start: the network function (the mean of the 4 fitted functions,
    # exact at epsilon=0: one width) or the least-squares combination of the
    # neighbours' functions at its samples, shrunk towards their mean (same
    # kernel: union), whichever the criterion on its samples prefers.
    # (a regressor's step 4 keeps its solve when the held-back rows' loss
    # falls by more than 1 %, tests/test_online_regressor_solve.py)
    solved = bool(est._network_solved[0])

    def f_mean(x):
        if kind == "classifier" or solved:   # the package's network function (step 4's solve)
            return f(D_net, W_net, x)
        return np.mean([f_old(j, x) for j in range(4)])

    # (a regressor takes the network function at its scale: _numpy_net_factor)
    factor, prior = _numpy_net_factor(est, f_mean) if kind == "regressor" else (1.0, None)
    if solved:
        factor = 1.0   # (a solved one is taken at scale 1; the prior is kept)
    choice = _numpy_start_choice(kind, value, f_old, lambda x: factor * f_mean(x),
                                 Xn, y_enc, 4, 2, ratio=1.0)
    assert est.join_start_.tolist() == [choice]
    # (both starts are checked: these data sets make the one and the other;
    # a classifier's network function is the mean's weights re-solved on the
    # fitted nodes' losses, tests/test_online_network_solve.py, which the
    # log-loss newcomer of the unclustered set finds worse than its
    # neighbours; the hinge one still starts from it)
    network_start = not clustered and (kind == "regressor" or loss == "hinge")
    assert choice == ("network" if network_start else "neighbours")
    if choice == "network" and (kind == "classifier" or solved):
        D, W = D_net, factor * W_net
    elif choice == "network":
        # (the fitted dictionaries repeat their points, which the network
        # function's unions hold once: compared as functions below)
        D, W = np.vstack(D_old), factor * np.vstack(W_old) / 4
    else:
        values = [np.array([f_old(j, x) for x in Xn]) for j in neighbours]
        a = _numpy_start(values, y_enc)
        D = np.vstack([D_old[j] for j in neighbours])
        W = np.vstack([a[n] * W_old[j] for n, j in enumerate(neighbours)])
    # 3. its passes, neighbours fixed: a regressor's cross-validated on its
    # samples; a classifier's max_epochs (2), or none when its start
    # (network function or neighbours) misclassifies at most a tenth of its
    # samples.
    eta, alpha, c = est.eta0_, 1e-3, 0.3
    share = 1.0
    if kind == "regressor" and choice == "network":
        # max_epochs passes, its samples weighted k / (n + k)
        E, share = 2, len(Xn) / (len(Xn) + prior)
        assert share == 5 / 13
    elif kind == "regressor":
        E, scores = _numpy_passes(f_old, neighbours, D, W, Xn, y_enc, 0.7, value, dloss,
                                  eta=eta, alpha=alpha, c=c,
                                  choices=[0, 1, 2] if passes is None else [2])
    else:
        errors = sum((f(D, W, x) > 0) != (t > 0) for x, t in zip(Xn, y_enc))
        E = 0 if errors <= 0.1 * len(Xn) else 2
    assert est.join_passes_.tolist() == [E]
    # (onlinesch38) a regressor's newcomer on a solved network function:
    # its own level, its residuals' mean shrunk by the fitted nodes' (all
    # 4 candidates answer) within- and between-node variances where their
    # levels pass the check; its passes fit its targets less it, its
    # predictions add it
    off = 0.0
    if kind == "regressor" and choice == "network" and solved:
        Xf, yf, wf, _ = est._test_fit_samples
        gf = np.repeat(np.arange(4), len(yf) // 4)
        r = _encoded(est, yf) - np.array([f_mean(x) for x in Xf])
        Wj = np.bincount(gf, wf)
        m = np.bincount(gf, wf * r) / Wj
        s2 = np.sum(np.bincount(gf, wf * r * r) - Wj * m * m) / np.sum(Wj - 1)
        assert np.mean(Wj * m * m) / s2 > 1 + 2 * np.sqrt(2 / 4)   # (levels 0.1 g)
        tau2 = max(0.0, np.mean(m * m - s2 / Wj))
        rn = y_enc - np.array([f_mean(x) for x in Xn])
        off = tau2 / (tau2 + s2 / len(Xn)) * rn.mean()
        assert off != 0.0
        assert_allclose(est.join_offset_, [est.target_scale_ * off], rtol=1e-9)
    for x, t in list(zip(Xn, y_enc - off)) * E:
        fi = f(D, W, x)
        omega = share * dloss(fi, t) + c * sum(fi - f_old(j, x) for j in neighbours)
        D = np.vstack([D, x])
        W = np.vstack([(1 - eta * alpha) * W, [[-eta * omega]]])
    # (as functions: the joins' unions hold a repeated point once)
    grid = np.random.RandomState(0).normal(size=(30, 2))
    assert_allclose([f(est.dictionaries_[4], est.dual_coef_[4], x) for x in grid],
                    [f(D, W, x) for x in grid], rtol=1e-10, atol=1e-12)
    assert_array_equal(np.unique(est.dictionaries_[4], axis=0), np.unique(D, axis=0))
    # The fitted nodes are bit-identical.
    for j in range(4):
        assert_array_equal(est.dictionaries_[j], D_old[j])
        assert_array_equal(est.dual_coef_[j], W_old[j])
    assert est.nodes_.tolist() == [0, 1, 2, 3, 4]
    assert est.n_steps_[4] == E * len(Xn)

def test_classifier_newcomer_keeps_its_neighbours_start_by_its_errors(join_constants,
                                                                      monkeypatch):
    # A classifier's newcomer that starts from its neighbours' combination
    # keeps it (no passes) when it misclassifies at most _JOIN_KEEP_ERRORS of
    # its samples, and otherwise makes max_epochs passes: both sides of the
    # threshold against NumPy.
    import skfed.online._join as join

    join_constants(passes=(2,))
    est, Xn, yn, gn = _join_setup("classifier", "hinge", clustered=True)
    D_old = [D.copy() for D in est.dictionaries_]
    W_old = [W.copy() for W in est.dual_coef_]
    y_enc = np.where(yn == 1, 1.0, -1.0)
    value, dloss = _value_loss("classifier", "hinge", None)

    def f(D, W, x):
        return rbf(x[None], D, 0.7)[0] @ W[:, 0]

    losses = [np.mean([value(f(D_old[j], W_old[j], x), t) for x, t in zip(Xn, y_enc)])
              for j in range(4)]
    neighbours = np.sort(np.argsort(losses, kind="stable")[:2])
    a = _numpy_start([np.array([f(D_old[j], W_old[j], x) for x in Xn]) for j in neighbours],
                     y_enc)
    D0 = np.vstack([D_old[j] for j in neighbours])
    W0 = np.vstack([a[n] * W_old[j] for n, j in enumerate(neighbours)])
    errors = sum((f(D0, W0, x) > 0) != (t > 0) for x, t in zip(Xn, y_enc))
    assert errors == 0 and len(Xn) == 5   # (intermediate: its start's errors)
    grid = np.random.RandomState(0).normal(size=(30, 2))
    alpha, c = 1e-3, 0.3
    for threshold, E in [(0.0, 0), (-1e-9, 2)]:
        monkeypatch.setattr(join, "_JOIN_KEEP_ERRORS", threshold)
        fresh = copy.deepcopy(est).add_nodes(Xn, yn, groups=gn)
        eta = fresh.eta0_   # (the step of the grown graph)
        assert fresh.join_start_.tolist() == ["neighbours"]
        assert_array_equal(fresh.adjacency_[4].indices, neighbours)
        assert fresh.join_passes_.tolist() == [E]
        D, W = D0, W0
        for x, t in list(zip(Xn, y_enc)) * E:
            fi = f(D, W, x)
            omega = dloss(fi, t) + c * sum(fi - f(D_old[j], W_old[j], x) for j in neighbours)
            D = np.vstack([D, x])
            W = np.vstack([(1 - eta * alpha) * W, [[-eta * omega]]])
        assert_allclose([f(fresh.dictionaries_[4], fresh.dual_coef_[4], x) for x in grid],
                        [f(D, W, x) for x in grid], rtol=1e-10, atol=1e-12)
        for j in range(4):   # the fitted nodes are unchanged
            assert_array_equal(fresh.dictionaries_[j], D_old[j])
            assert_array_equal(fresh.dual_coef_[j], W_old[j])


def test_join_passes_choose_what_its_samples_say(monkeypatch):
    # The cross-validation (a regressor's) is not a constant: on these joins
    # it keeps the start (0 passes) for some settings and streams for others
    # (from the neighbours' start: the ratio rule set aside).
    import skfed.online._join as join

    monkeypatch.setattr(join, "_JOIN_START_RATIO", 1.0)
    chosen = set()
    for loss in ("squared_error", "huber"):
        for c in (0.0, 0.3, 3.0):
            est, Xn, yn, gn = _join_setup("regressor", loss, consensus_penalty=c,
                                          clustered=True)
            chosen.add(int(est.add_nodes(Xn, yn, groups=gn).join_passes_[0]))
    assert chosen == {0, 2}, chosen


@pytest.mark.parametrize("header", [16, 1000])
@pytest.mark.parametrize("k", [5, 8])
def test_join_bytes_match_closed_form(header, k, join_constants):
    join_constants(budget=0.4, passes=())  # the default budget; always max_epochs passes
    est, _, _, _ = _join_setup(header=header)
    rng = np.random.RandomState(3)
    Xn = rng.normal(size=(k, 2))
    yn = (Xn[:, 0] > 0).astype(int)
    gn = np.full(k, 4)
    fit_bytes, fit_messages = est.n_bytes_sent_, est.n_messages_
    sizes = est.model_order_.copy()
    draws = np.random.RandomState([est._network_seed, est._n_calls, 7919])
    est.add_nodes(Xn, yn, groups=gn)
    unit = 3 * 8  # a point and a weight, float64
    q = min(k, 5)  # the samples a candidate is judged on
    # Its budget: 0.4 x the mean bytes of a fitted node's fit; a candidate
    # costs the cheaper of a query and a dictionary, a neighbour a dictionary.
    budget = 0.4 * est.communication_.total_bytes / 4  # (the rounds, not the network function)
    dictionary = header + sizes.mean() * unit
    candidate = min(2 * header + q * unit, dictionary)
    n_candidates = int(np.clip((budget - dictionary) // candidate, 2, 4))
    n_neighbours = int(np.clip((budget - n_candidates * candidate) // dictionary, 1, 2))
    draws.uniform(size=1)  # whether it is rogue
    candidates = np.sort(draws.choice(4, size=n_candidates, replace=False))
    neighbours = est.adjacency_[4].indices
    assert len(neighbours) == n_neighbours and set(neighbours) <= set(candidates)
    # 1. every candidate: the cheaper of the query and its dictionary; 2. the
    # neighbours' dictionaries; 3. the steps read what step 2 received.
    select = sum(min(2 * header + q * unit, header + sizes[j] * unit) for j in candidates)
    receive = sum(header + sizes[j] * unit for j in neighbours)
    # 2b. the network function from its first neighbour: at epsilon=0 the
    # union of the 4 fitted dictionaries' distinct points.
    n_net = len(np.unique(np.vstack(est.dictionaries_[:4]), axis=0))
    assert len(est.network_dictionary_[0]) == n_net
    receive += header + n_net * unit
    # 0. fitted node 0 sends it the two means its budget reads (mean
    # dictionary size, mean fit bytes): two float64 (online33)
    select += header + 2 * 8
    # (max_epochs passes, none where a classifier keeps the network start:
    # the test of the join's steps checks which)
    passes = est.join_passes_[0]
    assert passes in (0, 2)
    assert est.join_communication_.n_rounds == 3 + passes * k
    assert est.join_communication_.total_bytes == select + receive
    assert est.n_bytes_sent_ == fit_bytes + select + receive
    assert est.n_messages_ == fit_messages + est.join_communication_.total_messages
    # The fit's logs and curves are untouched.
    assert (est.communication_.total_bytes + est.network_communication_.total_bytes
            == fit_bytes)
    assert len(est.bytes_per_round_) == est.n_iter_ == len(est.consensus_error_curve_)
    assert est.model_order_curve_.shape == (est.n_iter_, 5)


@pytest.mark.parametrize("exchange_every", ["auto", 2])
def test_join_with_copies_keeps_old_nodes_and_later_partial_fit_uses_new_node(exchange_every,
                                                                               join_constants):
    join_constants(passes=())  # max_epochs passes
    est, Xn, yn, gn = _join_setup(exchange_every=exchange_every, epsilon=0.05,
                                  max_dictionary_size=6)
    old = [W.copy() for W in est.dual_coef_]
    est.add_nodes(Xn, yn, groups=gn)
    for j in range(4):
        assert_array_equal(est.dual_coef_[j], old[j])
    assert est.model_order_[4] <= 6
    assert est.komp_error_[4] >= 0
    # The new node is an ordinary node afterwards.
    rng = np.random.RandomState(1)
    X = rng.normal(size=(10, 2))
    g = np.array([0, 1, 2, 3, 4] * 2)
    y = (X[:, 0] > 0).astype(int)
    bytes_before = est.n_bytes_sent_
    est.partial_fit(X, y, groups=g)
    # (max_epochs passes, or none where a classifier keeps the network start)
    passes = est.join_passes_[0]
    assert passes in (0, 2)
    assert est.n_steps_[4] == passes * len(Xn) + 2
    assert est.n_bytes_sent_ == (est.communication_.total_bytes
                                 + est.network_communication_.total_bytes
                                 + est.join_communication_.total_bytes)
    assert est.n_bytes_sent_ > bytes_before


def test_partial_fit_with_new_node_ids_joins_them():
    est, Xn, yn, gn = _join_setup()
    rng = np.random.RandomState(2)
    X = rng.normal(size=(6, 2))
    g = np.array([0, 7, 1, 7, 9, 9])
    y = (X[:, 0] > 0).astype(int)
    est.partial_fit(X, y, groups=g)
    assert est.nodes_.tolist() == [0, 1, 2, 3, 7, 9]
    assert est.adjacency_.shape == (6, 6)
    assert est.n_steps_[4] == 2 and est.n_steps_[5] == 2
    assert est.join_communication_.total_bytes > 0
    assert est.communication_.n_nodes == 6
    pred = est.predict(X, groups=g)
    assert pred.shape == (6,)


def test_join_under_dropped_and_rogue_nodes(join_constants):
    join_constants(passes=())  # max_epochs passes
    est, Xn, yn, gn = _join_setup()
    est.set_params(network=SimulatedNetwork(ring(4), drop_rate=0.5, rogue_fraction=0.25,
                                            random_state=0))
    est.fit(*_join_fit_data())
    old = [W.copy() for W in est.dual_coef_]
    rogue = est._rogue.copy()
    est.add_nodes(Xn, yn, groups=gn)
    for j in range(4):
        assert_array_equal(est.dual_coef_[j], old[j])
    # Every sample of the new node is processed despite the drops (max_epochs
    # passes, or none where a classifier keeps the network start).
    passes = est.join_passes_[0]
    assert passes in (0, 2)
    assert est.join_communication_.n_rounds > passes * len(Xn) + 3
    assert est.n_steps_[4] == passes * len(Xn)
    assert_array_equal(est._rogue[:4], rogue)


def _join_fit_data():
    rng = np.random.RandomState(3)
    X = rng.normal(size=(32, 2))
    groups = np.repeat(np.arange(4), 8)
    return X, (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int), groups


def test_add_nodes_refuses_fitted_nodes_and_gamma_arrays():
    est, Xn, yn, gn = _join_setup()
    with pytest.raises(ValueError, match=r"already in nodes_ \(0\)"):
        est.add_nodes(Xn, yn, groups=np.zeros(len(Xn), dtype=int))
    with pytest.raises(ValueError, match="needs the node id of every sample"):
        est.add_nodes(Xn, yn)
    with pytest.raises(ValueError, match="features"):
        est.add_nodes(np.hstack([Xn, Xn]), yn, groups=gn)
    with pytest.raises(ValueError, match="not in classes_"):
        est.add_nodes(Xn, np.full(len(Xn), 5), groups=gn)
    est.set_params(gamma=np.full(4, 0.7))
    with pytest.raises(ValueError, match="gamma is an array"):
        est.add_nodes(Xn, yn, groups=gn)
    est.set_params(gamma={0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0})
    with pytest.raises(ValueError, match=r"no value for the new node\(s\) \[4\]"):
        est.add_nodes(Xn, yn, groups=gn)
    est.set_params(gamma={0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 2.0})
    est.add_nodes(Xn, yn, groups=gn)
    assert est.gamma_[4] == 2.0


def test_join_with_median_gamma_takes_its_closest_neighbours_width_and_function(join_constants):
    join_constants(passes=())  # all 4 candidates, max_epochs passes
    est, Xn, yn, gn = _join_setup(gamma="median")
    D_old = [D.copy() for D in est.dictionaries_]
    W_old = [W.copy() for W in est.dual_coef_]
    gammas = est.gamma_.copy()
    assert len(np.unique(gammas)) == 4
    est.add_nodes(Xn, yn, groups=gn)
    y_enc = np.where(yn == 1, 1.0, -1.0)

    def f(j, x, D=None, W=None, gamma=None):
        D = D_old[j] if D is None else D
        W = W_old[j] if W is None else W
        return rbf(x[None], D, gammas[j] if gamma is None else gamma)[0] @ W[:, 0]

    losses = [np.mean([max(0.0, 1 - t * f(j, x)) for x, t in zip(Xn, y_enc)]) for j in range(4)]
    order = np.argsort(losses, kind="stable")
    closest = order[0]
    # It links to the chosen node of its width only.
    neighbours = [closest]
    assert_array_equal(est.adjacency_[4].indices, neighbours)
    # The network function: every function in the geometric mean width,
    # by ridge interpolation at its own points, and their mean.
    width = np.exp(np.mean(np.log(gammas)))
    assert est.network_gamma_[0] == pytest.approx(width, rel=1e-12)
    moved = [np.linalg.solve(rbf(D_old[j], D_old[j], width) + 1e-6 * np.eye(len(D_old[j])),
                             rbf(D_old[j], D_old[j], gammas[j]) @ W_old[j]) for j in range(4)]

    def f_mean(x):
        return np.mean([rbf(x[None], D_old[j], width)[0] @ moved[j][:, 0] for j in range(4)])

    # Step 3's mean, on the network function's points (the weights its
    # step 4 starts from; tests/test_online_network_solve.py checks the
    # solve) ...
    grid = np.random.RandomState(1).normal(size=(20, 2))
    D_net = est.network_dictionary_[0]
    assert_allclose(rbf(grid, D_net, width) @ est._network_mean_coef[0][:, 0],
                    [f_mean(x) for x in grid], rtol=1e-8, atol=1e-10)
    # ... and the newcomer reads the package's network function, which the
    # solve replaced here (its error on the fitted nodes' samples within
    # the gate of their own functions').
    assert est._network_solved.tolist() == [True]
    W_net = est.network_coef_[0].copy()
    assert np.abs(W_net - est._network_mean_coef[0]).max() > 1e-3

    def f_net(x):
        return rbf(x[None], D_net, width)[0] @ W_net[:, 0]

    assert_allclose(est._network_values(grid)[:, 0], [f_net(x) for x in grid],
                    rtol=1e-8, atol=1e-10)
    choice = _numpy_start_choice("classifier", lambda fx, t: max(0.0, 1 - t * fx),
                                 lambda j, x: f(j, x), f_net, Xn, y_enc, 4, 2, gammas)
    assert est.join_start_.tolist() == [choice]
    eta, alpha, c = est.eta0_, 1e-3, 0.3
    if choice == "network":
        # Its width is the network function's, which it starts from (and
        # keeps when it misclassifies at most a tenth of its samples).
        assert est.gamma_[4] == est.network_gamma_[0]
        errors = sum((f_net(x) > 0) != (t > 0) for x, t in zip(Xn, y_enc))
        assert est.join_passes_.tolist() == [0 if errors <= 0.5 else 2]
        if errors <= 0.5:
            assert_allclose(est._node_function(4, grid)[:, 0], [f_net(x) for x in grid],
                            rtol=1e-8, atol=1e-10)
        return
    assert est.gamma_[4] == gammas[closest]
    # Its start: that function scaled by the least squares shrunk to 1.
    a = _numpy_start([np.array([f(closest, x) for x in Xn])], y_enc)
    D, W = D_old[closest], a[0] * W_old[closest]
    for x, t in list(zip(Xn, y_enc)) * 2:
        fi = f(None, x, D, W, gammas[closest])
        grad = -t if t * fi < 1 else 0.0
        omega = grad + c * sum(fi - f(j, x) for j in neighbours)
        D = np.vstack([D, x])
        W = np.vstack([(1 - eta * alpha) * W, [[-eta * omega]]])
    assert_allclose(est.dictionaries_[4], D)
    assert_allclose(est.dual_coef_[4], W, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls", [DecentralizedKernelSGDClassifier,
                                 DecentralizedKernelSGDRegressor])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_negative_sample_weight_is_refused_by_name(cls, method):
    # Issue 31: the regressor accepted weights of -1 and predicted about 7e7
    # on targets within +-9; the classifier accepted them silently.
    X, y, groups = _small()
    if cls is DecentralizedKernelSGDRegressor:
        y = X[:, 0] + 0.1 * X[:, 1]
    w = np.ones(len(y))
    w[7] = -1.0
    kwargs = {"classes": [0, 1]} if method == "partial_fit" and cls is not \
        DecentralizedKernelSGDRegressor else {}
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative; 1 of its 90 "
                                         r"values are negative \(the first, at index 7, is -1.0\)"):
        getattr(cls(max_epochs=2), method)(X, y, groups=groups, sample_weight=w, **kwargs)
