"""Robust regression losses of the online learner: Huber and
epsilon-insensitive (values, derivatives, the agreed target scale, the
counted messages, one fit against a NumPy recursion, refused settings)."""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDRegressor
from skfed.online._holdout import loss_arrays
from skfed.online._robust import count_scale_messages, node_log_scales
from skfed.online._selection import tree_parents
from skfed.online._validation import _LOSSES
from tests._helpers.online import numpy_offset, numpy_scale


def ring(n):
    A = np.zeros((n, n), bool)
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = True
    return A


def numpy_huber(r, delta):
    a = np.abs(r)
    value = np.where(a <= delta, r ** 2 / 2, delta * a - delta ** 2 / 2)
    return value, np.minimum(np.maximum(r, -delta), delta)


def numpy_epsilon_insensitive(r, delta):
    return np.maximum(np.abs(r) - delta, 0.0), np.sign(r) * (np.abs(r) > delta)


@pytest.mark.parametrize("name, reference", [("huber", numpy_huber),
                                             ("epsilon_insensitive", numpy_epsilon_insensitive)])
@pytest.mark.parametrize("delta", [0.3, 1.7])
def test_robust_losses_against_closed_forms(name, reference, delta):
    rng = np.random.RandomState(0)
    y = rng.normal(size=60)
    # Residuals on both sides of the threshold and exactly at it.
    r = np.concatenate([4 * rng.normal(size=54), [delta, -delta, 0.0, 1e-3, -50.0, 50.0]])
    f = y + r
    value, grad = reference(r, delta)
    solver = _LOSSES[name](delta)
    assert_allclose([solver.py_value(f[i], y[i]) for i in range(60)], value, rtol=1e-12,
                    atol=1e-14)
    assert_allclose([solver.py_derivative(f[i], y[i])[0] for i in range(60)], grad,
                    rtol=1e-12, atol=1e-14)
    # The NumPy copy that scores held-out samples and joins.
    v, g = loss_arrays(name, f, y, delta)
    assert_allclose(v, value, rtol=1e-12, atol=1e-14)
    assert_allclose(g[:, 0], grad, rtol=1e-12, atol=1e-14)
    # Pickling keeps the threshold.
    copy = pickle.loads(pickle.dumps(solver))
    assert copy.delta == delta
    assert copy.py_value(f[0], y[0]) == solver.py_value(f[0], y[0])
    with pytest.raises(ValueError, match="threshold"):
        loss_arrays(name, f, y)


def test_huber_is_squared_within_and_linear_beyond():
    huber, squared = _LOSSES["huber"](2.0), _LOSSES["squared_error"]()
    assert huber.py_value(1.5, 0.0) == squared.py_value(1.5, 0.0)
    assert huber.py_value(12.0, 2.0) == pytest.approx(2.0 * 10.0 - 2.0)
    with pytest.raises(ValueError, match="delta"):
        _LOSSES["huber"](0.0)


def rbf(A, B, gamma):
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def numpy_rounds(X, y, groups, adjacency, gamma, dloss, *, eta, alpha, c, epochs):
    """Synchronous functional SGD with the consensus term, no compression;
    also returns how many steps had a residual beyond the loss's kink."""
    n_nodes = adjacency.shape[0]
    queues = [np.tile(np.flatnonzero(groups == i), epochs) for i in range(n_nodes)]
    D = [np.zeros((0, X.shape[1])) for _ in range(n_nodes)]
    W = [np.zeros(0) for _ in range(n_nodes)]
    clipped = 0

    def f(j, x):
        return float(rbf(x[None], D[j], gamma[j])[0] @ W[j])

    for t in range(max(len(q) for q in queues)):
        omegas = {}
        for i in range(n_nodes):
            if t >= len(queues[i]):
                continue
            x, target = X[queues[i][t]], y[queues[i][t]]
            fi = f(i, x)
            grad, beyond = dloss(fi - target)
            clipped += beyond
            omegas[i] = grad + c * sum(fi - f(j, x) for j in np.flatnonzero(adjacency[i]))
        for i, omega in omegas.items():
            D[i] = np.vstack([D[i], X[queues[i][t]]])
            W[i] = np.concatenate([(1 - eta * alpha) * W[i], [-eta * omega]])
    return D, W, clipped


@pytest.mark.parametrize("loss", ["huber", "epsilon_insensitive"])
def test_robust_fit_equals_numpy_functional_sgd(loss):
    rng = np.random.RandomState(0)
    n_nodes, counts = 4, [7, 5, 6, 4]
    groups = np.repeat(np.arange(n_nodes), counts)
    X = rng.normal(size=(len(groups), 2))
    y = 3.0 * X[:, 0] + 0.3 * rng.normal(size=len(groups))
    y[[2, 9, 15]] += [40.0, -25.0, 30.0]  # outlying targets
    gamma = np.array([0.5, 1.0, 2.0, 0.8])
    est = DecentralizedKernelSGDRegressor(
        loss=loss, loss_epsilon=0.4, gamma=gamma, eta0=0.3, alpha=0.05,
        consensus_penalty=0.4, epsilon=0.0, max_dictionary_size=None, max_epochs=3,
        shuffle=False, average=0.0, exchange_every=None,
        network=SimulatedNetwork(ring(n_nodes))).fit(X, y, groups=groups)
    scale = numpy_scale(y, groups)
    # (every node's log-scale is rounded to a multiple of 2^-32)
    assert est.target_scale_ == pytest.approx(scale, rel=1e-9)
    assert est.target_offset_ == pytest.approx(numpy_offset(y, groups), rel=1e-12)
    assert est.loss_threshold_ == 0.4 * est.target_scale_
    # The solver's steps: on the encoded targets, at the threshold in their units.
    y = (y - est.target_offset_) / est.target_scale_
    delta = 0.4
    if loss == "huber":
        def dloss(r):
            return float(np.clip(r, -delta, delta)), int(abs(r) > delta)
    else:
        def dloss(r):
            return float(np.sign(r) * (abs(r) > delta)), int(abs(r) > delta)
    D, W, clipped = numpy_rounds(X, y, groups, ring(n_nodes), gamma, dloss, eta=0.3,
                                 alpha=0.05, c=0.4, epochs=3)
    assert clipped > 10  # the kink is crossed: not the squared loss's steps
    for i in range(n_nodes):
        assert_array_equal(est.dictionaries_[i], D[i])
        assert_allclose(est.dual_coef_[i][:, 0], W[i], rtol=1e-12, atol=1e-14)


def test_scale_is_a_counted_round_of_its_own():
    rng = np.random.RandomState(1)
    groups = np.repeat(np.arange(6), 10)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    header = 16
    common = dict(kernel="rbf", max_epochs=1, random_state=0, consensus_penalty=0.1,
                  network=SimulatedNetwork("ring", header_bytes=header))
    huber = DecentralizedKernelSGDRegressor(loss="huber", **common).fit(X, y, groups=groups)
    plain = DecentralizedKernelSGDRegressor(loss="squared_error", **common).fit(X, y,
                                                                                groups=groups)
    # 5 tree edges: up, the sum of logs and their count and the five sums
    # of the location (7 float64); down, the offset and the scale.  Every regressor's loss.
    assert huber.bytes_per_round_[0] == 5 * ((header + 56) + (header + 16))
    assert plain.bytes_per_round_[0] == huber.bytes_per_round_[0]
    assert np.isnan(huber.consensus_error_curve_[0])
    # (the network function's rounds aside: each loss's solve takes its own)
    assert (huber.n_messages_ - huber.network_communication_.total_messages
            == plain.n_messages_ - plain.network_communication_.total_messages)
    # With kernel="auto" the scale shares the selection's round.
    # (3 candidate kernels: 4 float64 up, the choice back.)
    auto = DecentralizedKernelSGDRegressor(
        loss="huber", max_epochs=1, random_state=0, consensus_penalty=0.1,
        network=SimulatedNetwork("ring", header_bytes=header)).fit(X, y, groups=groups)
    assert auto.bytes_per_round_[0] == 5 * ((header + 56) + (header + 16)
                                            + (header + 4 * 8) + (header + 4))
    # consensus_penalty="auto": the same first round, over the weak graph.
    both = DecentralizedKernelSGDRegressor(
        loss="huber", max_epochs=1, random_state=0,
        network=SimulatedNetwork("ring", header_bytes=header)).fit(X, y, groups=groups)
    assert both.bytes_per_round_[0] == auto.bytes_per_round_[0]


def test_scale_contributions_split_over_processes_add_up():
    rng = np.random.RandomState(2)
    groups = np.repeat(np.arange(5), [1, 8, 9, 3, 7])
    y = rng.standard_t(1.5, size=len(groups)) * np.exp(3 * rng.normal(size=len(groups)))
    y[groups == 3] = 2.0  # MAD 0: no contribution
    whole = node_log_scales(y, groups, 5)
    first = np.isin(groups, [0, 1, 3])
    parts = (node_log_scales(y[first], groups[first], 5)
             + node_log_scales(y[~first], groups[~first], 5))
    assert_array_equal(parts, whole)  # exact in any order
    assert whole[1] == 3  # node 0 has one target, node 3 constant ones
    parents = tree_parents(ring(5))

    class Counter:
        def __init__(self):
            self.sent = []

        def send_message(self, a, b, n):
            self.sent.append((a, b, n))

    one, split = Counter(), Counter()
    count_scale_messages(one, parents)
    count_scale_messages(split, parents, senders=[0, 1])
    count_scale_messages(split, parents, senders=[2, 3, 4])
    assert sorted(one.sent) == sorted(split.sent)


def test_threshold_follows_the_unit_of_y():
    rng = np.random.RandomState(3)
    groups = np.repeat(np.arange(5), 20)
    X = rng.normal(size=(100, 2))
    y = np.sin(X[:, 0]) + 0.2 * rng.standard_t(2, size=100)
    # (KOMP's budget is absolute, so no compression here: the fit is then
    # equivariant to the unit of y exactly.)
    common = dict(loss="huber", max_epochs=3, random_state=0, epsilon=0.0,
                  max_dictionary_size=None)
    a = DecentralizedKernelSGDRegressor(**common).fit(X, y, groups=groups)
    b = DecentralizedKernelSGDRegressor(**common).fit(X, 1000.0 * y, groups=groups)
    assert b.loss_threshold_ == pytest.approx(1000.0 * a.loss_threshold_, rel=1e-12)
    assert b.kernel_ == a.kernel_
    assert_allclose(b.predict(X, groups=groups), 1000.0 * a.predict(X, groups=groups),
                    rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("params, message", [
    (dict(loss="absolute_error"), "loss"),
    (dict(loss="huber", loss_epsilon=-1.0), "loss_epsilon"),
    (dict(loss="huber", loss_epsilon=0.0), "loss_epsilon"),
    (dict(loss="epsilon_insensitive", loss_epsilon="wide"), "loss_epsilon"),
    (dict(loss="squared_error", loss_epsilon=2.0), "loss_epsilon"),
])
def test_bad_loss_or_loss_epsilon_is_refused_by_name(params, message):
    X = np.random.RandomState(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match=message):
        DecentralizedKernelSGDRegressor(**params).fit(X, X[:, 0], groups=np.repeat([0, 1], 10))


def test_epsilon_insensitive_accepts_a_zero_tube():
    X = np.random.RandomState(0).normal(size=(20, 2))
    reg = DecentralizedKernelSGDRegressor(loss="epsilon_insensitive", loss_epsilon=0.0,
                                          max_epochs=2, random_state=0)
    reg.fit(X, X[:, 0], groups=np.repeat([0, 1], 10))
    assert reg.loss_threshold_ == 0.0


def test_robust_fit_pickles_and_keeps_learning_alike():
    rng = np.random.RandomState(4)
    groups = np.repeat(np.arange(4), 15)
    X = rng.normal(size=(60, 2))
    y = X[:, 0] + rng.standard_t(1.5, size=60)
    a = DecentralizedKernelSGDRegressor(loss="huber", max_epochs=2, random_state=0)
    a.fit(X, y, groups=groups)
    b = pickle.loads(pickle.dumps(a))
    a.partial_fit(X, y, groups=groups)
    b.partial_fit(X, y, groups=groups)
    assert b.loss_threshold_ == a.loss_threshold_
    assert_allclose(b.predict(X, groups=groups), a.predict(X, groups=groups), rtol=1e-12)


def test_defaults_beat_local_svr_under_heavy_tailed_noise():
    """The adversarial case that made Huber the default: 30 nodes x 40
    samples, 10 features (a shared sparse linear rule, 0.1 personal), y =
    signal + 0.5 t(1.5), scored by R^2 against the noiseless signal.  The
    squared loss scored -0.48 here (Local SVR 0.43).  Seeded; a different
    seed could fail."""
    from sklearn.metrics import r2_score
    from sklearn.svm import SVR

    from skfed import LocalEstimator

    rng = np.random.RandomState(0)
    n_nodes, m, test_m, d, informative = 30, 40, 20, 10, 3
    coef = np.zeros((n_nodes, d))
    coef[:, :informative] = rng.normal(size=informative) + 0.1 * rng.normal(
        size=(n_nodes, informative))
    groups = np.repeat(np.arange(n_nodes), m + test_m)
    X = rng.normal(size=(len(groups), d))
    signal = np.einsum("ij,ij->i", X, coef[groups]) / np.sqrt(informative)
    y = signal + 0.5 * rng.standard_t(1.5, size=len(groups))
    train = np.tile(np.r_[np.ones(m, bool), np.zeros(test_m, bool)], n_nodes)

    def per_node_r2(pred):
        te = groups[~train]
        return np.mean([r2_score(signal[~train][te == k], pred[te == k])
                        for k in range(n_nodes)])

    reg = DecentralizedKernelSGDRegressor(random_state=0).fit(
        X[train], y[train], groups=groups[train])
    local = LocalEstimator(SVR()).fit(X[train], y[train], groups=groups[train])
    ours = per_node_r2(reg.predict(X[~train], groups=groups[~train]))
    theirs = per_node_r2(local.predict(X[~train], groups=groups[~train]))
    assert reg.loss == "huber"
    assert ours > theirs + 0.1
    squared = DecentralizedKernelSGDRegressor(loss="squared_error", random_state=0).fit(
        X[train], y[train], groups=groups[train])
    assert per_node_r2(squared.predict(X[~train], groups=groups[~train])) < ours - 0.3
