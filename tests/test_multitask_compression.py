"""Compressed round messages of the primal modes and the "auto" mode rules.

``compression=b``: every round's ``w_t`` (down) and ``Delta v_t`` (up) travel
as one float64 scale and ``b``-bit integers, with error feedback on both
links.  The references here: the rounding and its byte count in closed
form; a NumPy replay of the whole quantized protocol (squared loss, exact
local solves, a dense fixed Omega) against the fit's dual variables, models
and duality gaps; the uncompressed fit's optimum.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skfed.multitask import FederatedMultiTaskClassifier as _FederatedMultiTaskClassifier
from skfed.multitask import FederatedMultiTaskRegressor as _FederatedMultiTaskRegressor
from skfed.multitask import (
    auto_components,
    quantize,
    quantized_bytes,
)
from skfed.privacy import DifferentialPrivacy

from ._helpers.multitask import exact_kernel as _exact

# These tests check MOCHA's machinery (the learned Omega, the exact kernel and
# random-feature modes, the squared hinge), the defaults they were written
# for.  Issue 28 made the defaults kernel="linear", omega="auto" (the shared
# model) and the logistic loss, so here the former ones are pinned;
# test_multitask_defaults.py tests the new defaults.
_MOCHA = dict(kernel="rbf", omega="learn")


def FederatedMultiTaskClassifier(**params):  # noqa: N802
    return _FederatedMultiTaskClassifier(**{**_MOCHA, "loss": "squared_hinge", **_exact(params)})


def FederatedMultiTaskRegressor(**params):  # noqa: N802
    return _FederatedMultiTaskRegressor(**{**_MOCHA, **_exact(params)})

HEADER = 16


def _spd(m, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, m))
    return A @ A.T + m * np.eye(m)


def _regression(sizes=(30, 40, 50), d=4, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(len(groups), d))
    coef = rng.normal(size=(len(sizes), d))
    y = np.einsum("ij,ij->i", X, coef[groups]) + 0.1 * rng.normal(size=len(groups))
    return X, y, groups


def _classification(sizes=(40, 50, 60), d=3, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(len(groups), d))
    score = X[:, 0] + 0.5 * groups * X[:, 1] + 0.3 * rng.normal(size=len(groups))
    y = np.digitize(score, np.linspace(-1, 1, n_classes + 1)[1:-1])
    return X, y, groups


@pytest.mark.parametrize("bits", [2, 4, 8, 16])
def test_quantize_is_the_rounding_to_bits_levels(bits):
    rng = np.random.default_rng(bits)
    x = rng.normal(size=(3, 2, 17)) * np.array([1e-6, 1.0, 1e4])[:, None, None]
    x[1, 1] = 0.0
    q = quantize(x, bits)
    levels = 2 ** (bits - 1) - 1
    scale = np.abs(x).max(axis=-1, keepdims=True)
    codes = np.where(scale > 0, q * levels / np.where(scale > 0, scale, 1.0), 0.0)
    # integers in [-L, L]: what b bits carry
    np.testing.assert_allclose(codes, np.round(codes), atol=1e-6)
    assert np.abs(np.round(codes)).max() <= levels
    # nearest level: within half a level of x, the largest entry exact
    assert np.all(np.abs(q - x) <= scale / (2 * levels) * (1 + 1e-12))
    np.testing.assert_allclose(np.abs(q).max(axis=-1), scale[..., 0], rtol=1e-12)
    np.testing.assert_array_equal(q[1, 1], 0.0)
    # 17 values of b bits, packed, and a float64 scale
    assert quantized_bytes(17, bits) == 8 + math.ceil(17 * bits / 8)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_compressed_bytes_equal_closed_form(n_classes):
    # omega="independent" (rho = 1, nothing searched): every round each node
    # gets w_t and sends Delta v_t as k quantized vectors of d + 1 = 4
    # values (5 bits: 3 bytes, plus the 8-byte scale) and its three gap
    # terms; Sigma's two floats go out once; the final w_t goes out in float64.
    X, y, groups = _classification(n_classes=n_classes, seed=13)
    clf = FederatedMultiTaskClassifier(
        kernel="linear", omega="independent", tol=0, max_rounds=3, random_state=0,
        compression=5,
    )
    with pytest.warns(ConvergenceWarning):
        clf.fit(X.astype(np.float32), y, groups=groups)
    k = 1 if n_classes == 2 else 3
    vector = k * (8 + 3)
    down, up, sigma_info = HEADER + vector, HEADER + vector + 24, 16
    final = HEADER + k * 4 * 8
    per_round = 3 * (down + up)
    expected = [per_round + 3 * sigma_info, per_round, per_round + 3 * final]
    np.testing.assert_array_equal(clf.bytes_per_round_, expected)


def test_compressed_line_search_bytes_equal_closed_form():
    # A dense fixed Omega (rho > 1): as uncompressed, plus one float per
    # problem up (the node's own cross term <dv_t / n_t, w_t>).
    X, y, groups = _classification(seed=13)
    clf = FederatedMultiTaskClassifier(
        kernel="linear", omega=_spd(3, seed=4), tol=0, max_rounds=3, random_state=0,
        aggregation="line_search", compression=8, loss="hinge",
    )
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y, groups=groups)
    assert clf.rho_ > 1.0
    vector = 8 + 4
    down = HEADER + vector + 8  # and the scaling
    up = HEADER + vector + 24 + 8 + 8  # gap terms, conjugate change, cross term
    steps, sigma_info, final = 8, 16, HEADER + 4 * 8
    expected = [3 * (down + up + sigma_info), 3 * (down + steps + up),
                3 * (down + steps + up) + 3 * (final + steps)]
    np.testing.assert_array_equal(clf.bytes_per_round_, expected)


def _replay(X, y, groups, omega, C, bits, rounds):
    """The quantized protocol in NumPy: squared loss, exact local solves, adding."""
    m = len(np.unique(groups))
    Z = np.hstack([X, np.ones((len(X), 1))])
    d = Z.shape[1]
    n_t = np.bincount(groups).astype(float)
    lam = 1.0 / (C * len(y))
    sigma = np.linalg.inv(omega)
    scale = 1.0 / np.sqrt(np.diag(sigma))  # rho = lambda_max(D^-1/2 Sigma D^-1/2)
    rho = max(np.linalg.eigvalsh(sigma * scale[:, None] * scale[None, :])[-1], 1.0)
    g = np.zeros(len(y))
    V = np.zeros((m, d))  # the server's
    R = np.zeros((m, d))  # what each node has not sent, times n_t
    W_node = np.zeros((m, d))
    levels = 2.0 ** (bits - 1) - 1

    def q(x):
        s = np.abs(x).max()
        return x if s == 0 else np.rint(x * levels / s) * s / levels

    gaps, duals = [], []
    for _ in range(rounds):
        W = sigma @ V / lam
        for t in range(m):
            W_node[t] = W_node[t] + q(W[t] - W_node[t])
        dv = np.zeros((m, d))
        for t in range(m):
            rows = groups == t
            view = W_node[t] + sigma[t, t] * R[t] / (n_t[t] * lam)
            c = rho * sigma[t, t] / (lam * n_t[t])
            K = Z[rows] @ Z[rows].T
            delta = np.linalg.solve(np.eye(rows.sum()) + c * K,
                                    y[rows] - Z[rows] @ view - g[rows])
            g[rows] += delta
            dv[t] = Z[rows].T @ delta
        for t in range(m):
            sent = q(dv[t] + R[t])
            V[t] += sent / n_t[t]
            R[t] += dv[t] - sent
        # the gap of the server's model against the dual variables' dual
        W = sigma @ V / lam
        f = np.einsum("id,id->i", Z, W[groups])
        V_dual = V + R / n_t[:, None]
        primal = sum(0.5 * np.sum((f - y)[groups == t] ** 2) / n_t[t] for t in range(m))
        primal += np.sum(V * (sigma @ V)) / (2 * lam)
        dual = -sum(np.sum((0.5 * g**2 - g * y)[groups == t]) / n_t[t] for t in range(m))
        dual -= np.sum(V_dual * (sigma @ V_dual)) / (2 * lam)
        gaps.append(primal - dual)
        duals.append(dual)
    return g, W, np.array(gaps), np.array(duals), R


@pytest.mark.parametrize("bits", [3, 8])
def test_compressed_fit_equals_a_numpy_replay_of_the_protocol(bits):
    X, y, groups = _regression()
    omega = _spd(3, seed=2)
    rounds = 6
    reg = FederatedMultiTaskRegressor(
        kernel="linear", omega=omega, tol=0, max_rounds=rounds, C=1.0, random_state=0,
        aggregation="add", local_solver="exact", compression=bits,
    )
    with pytest.warns(ConvergenceWarning):
        reg.fit(X, y, groups=groups)
    g, W, gaps, duals, R = _replay(X, y, groups, omega, 1.0, bits, rounds)
    # dual variables (all are support vectors with the squared loss)
    np.testing.assert_allclose(reg._node_duals[1][0], g, rtol=1e-8, atol=1e-10)  # (on the nodes)
    np.testing.assert_allclose(reg.coef_, W[:, :-1], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(reg.intercept_, W[:, -1], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(reg.duality_gap_curve_, gaps, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(reg.dual_objective_curve_, duals, rtol=1e-8)
    # the rounding really happened: the server's V is not the duals' V
    assert np.abs(R).max() > 1e-6
    assert np.all(reg.duality_gap_curve_ >= 0)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_compressed_fit_reaches_the_uncompressed_optimum_fixed_omega(loss):
    X, y, groups = _classification(sizes=(60, 80, 100), d=30, seed=3)
    common = dict(kernel="linear", loss=loss, omega=_spd(3, seed=1), tol=1e-7,
                  max_rounds=3000, random_state=0)
    ref = FederatedMultiTaskClassifier(compression="none", **common).fit(X, y, groups=groups)
    for bits in (8, 4):
        clf = FederatedMultiTaskClassifier(compression=bits, **common).fit(X, y, groups=groups)
        # the certificate holds for the returned (server's) model
        assert clf.duality_gap_curve_[-1] <= 1e-7 * clf.objective_curve_[-1]
        assert clf.objective_curve_[-1] == pytest.approx(ref.objective_curve_[-1], rel=2e-7)
        np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=0,
                                   atol=2e-3 * np.abs(ref.coef_).max())
        assert clf.n_bytes_sent_ < 0.5 * ref.n_bytes_sent_


def test_compressed_learned_omega_stops_near_the_uncompressed_joint_objective():
    X, y, groups = _classification(sizes=(60, 80, 100, 70), seed=5)
    common = dict(approximation="rff", n_components=60, gamma=0.5, random_state=0)
    ref = FederatedMultiTaskClassifier(compression="none", **common).fit(X, y, groups=groups)
    clf = FederatedMultiTaskClassifier(**common).fit(X, y, groups=groups)  # 8 bits
    # both stop by the rule (relative joint change <= tol = 1e-3)
    assert clf.n_iter_ < clf._max_rounds() and ref.n_iter_ < ref._max_rounds()
    assert clf.joint_objective_ == pytest.approx(ref.joint_objective_, rel=5e-3)
    assert clf.joint_duality_gap_ >= 0
    assert clf.n_bytes_sent_ < 0.3 * ref.n_bytes_sent_
    agree = np.mean(clf.predict(X, groups=groups) == ref.predict(X, groups=groups))
    assert agree >= 0.98


def test_compression_refuses_the_exact_kernel_mode_and_privacy():
    X, y, groups = _classification()
    with pytest.raises(ValueError, match="compression=8 quantizes the model vectors"):
        FederatedMultiTaskClassifier(approximation=None, compression=8).fit(
            X, y, groups=groups)
    with pytest.raises(ValueError, match="compression=8 cannot be combined with privacy"):
        FederatedMultiTaskClassifier(
            kernel="linear", compression=8, max_rounds=5, omega="independent",
            privacy=DifferentialPrivacy(epsilon=1.0, delta=1e-5, clip_norm=1.0),
        ).fit(X, y, groups=groups)
    # "auto" is float64 there: the exact mode's bytes are those of "none"
    a = FederatedMultiTaskClassifier(approximation=None, max_rounds=5, random_state=0)
    b = FederatedMultiTaskClassifier(approximation=None, max_rounds=5, random_state=0,
                                     compression="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert a.fit(X, y, groups=groups).n_bytes_sent_ == b.fit(
            X, y, groups=groups).n_bytes_sent_


def test_auto_components_is_2_sqrt_n_log_n():
    for n in (1, 2, 100, 5137, 30_000):
        assert auto_components(n) == max(1, math.ceil(2 * math.sqrt(n) * math.log(max(n, 2))))
    assert auto_components(5137) == 1225
    # the cap: at most 4,096 features, so the n x D feature matrix stays
    # linear in n (300,000 samples would otherwise get 13,816)
    assert auto_components(300_000) == 4096
    assert auto_components(37_000) == math.ceil(2 * math.sqrt(37_000) * math.log(37_000))


def test_auto_approximation_weighs_the_bytes_of_both_modes():
    est = FederatedMultiTaskClassifier(approximation="auto")
    # HAR sitting's sizes: 5137 samples, 561 float32 features, 21 nodes
    est._resolve_mode(5137, 561, 21, 1, 4)
    assert est.approximation_ == "rff" and est.n_components_ == 1225
    # the rule: random features when 100 rounds of them cost less than the
    # exact mode's 100 rounds (exact_mode_bytes: every row to every node and
    # every dual change relayed to every node each round)
    from skfed.multitask._base import exact_mode_bytes
    from skfed.multitask._compression import quantized_bytes

    for n, d, m, compression in [(2000, 3, 4, "auto"), (2000, 3, 4, "none"),
                                 (60, 2, 2, "none"), (40, 2, 20, "auto")]:
        est.set_params(compression=compression)._resolve_mode(n, d, m, 1, 8)
        bits = 8 if compression == "auto" else 64
        exact = exact_mode_bytes(n, d, m, 1, 8, 100, 0)
        if est.approximation_ == "rff":
            assert 2 * 100 * m * quantized_bytes(est.n_components_ + 1, bits) < exact
        else:
            assert 2 * 100 * m * quantized_bytes(auto_components(n) + 1, bits) >= exact
    est.set_params(compression="auto")
    # other kernels, one node, explicit settings
    est.set_params(compression="auto", kernel="laplacian")._resolve_mode(5137, 561, 21, 1, 4)
    assert est.approximation_ is None
    est.set_params(kernel="rbf")._resolve_mode(5137, 561, 1, 1, 4)
    assert est.approximation_ is None
    # cache_size bounds the exact mode's kernel rows: asking for it keeps that mode
    est.set_params(cache_size=100.0)._resolve_mode(5137, 561, 21, 1, 4)
    assert est.approximation_ is None
    est.set_params(cache_size=None)
    est.set_params(approximation="nystroem", n_components=50)._resolve_mode(10, 2, 2, 1, 8)
    assert est.approximation_ == "nystroem" and est.n_components_ == 50
    # privacy: random features (nothing about the data leaves a node)
    private = FederatedMultiTaskClassifier(
        approximation="auto", privacy=DifferentialPrivacy(epsilon=1.0, delta=1e-5, clip_norm=1.0))
    private._resolve_mode(30, 2, 3, 1, 8)
    assert private.approximation_ == "rff"


def test_default_fit_uses_random_features_on_large_data_and_the_exact_mode_on_small():
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(4), 500)
    X = rng.normal(size=(2000, 60))
    y = (X[:, 0] + 0.5 * (groups - 1.5) * X[:, 1] > 0).astype(int)
    clf = FederatedMultiTaskClassifier(approximation="auto", random_state=0).fit(
        X, y, groups=groups)
    assert clf.approximation_ == "rff" and clf.n_components_ == auto_components(2000)
    assert clf.coef_.shape == (4, clf.n_components_)
    assert clf.score(X, y, groups=groups) > 0.9
    # 200 samples of 3 features on 4 nodes: no number of features keeps 100
    # rounds within the raw upload, and the exact mode relays every dual
    # change to every node each round: random features, which send less
    small = FederatedMultiTaskClassifier(approximation="auto", random_state=0).fit(
        X[::10, :3], y[::10], groups=groups[::10])
    exact = FederatedMultiTaskClassifier(approximation=None, random_state=0).fit(
        X[::10, :3], y[::10], groups=groups[::10])
    assert small.approximation_ == "rff" and small.n_components_ == auto_components(200)
    assert small.n_bytes_sent_ < exact.n_bytes_sent_
