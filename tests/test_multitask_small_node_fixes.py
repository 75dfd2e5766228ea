"""The multi-task model on small and few nodes: the personal selection's
held-out correction of ``w0``, the float32 reports, the byte cap of the
learned fit, one random-feature cap on every path, and the convergence
warning naming a badly scaled feature."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import skfed.multitask._shared as shared
from skfed._base import NodeLayout
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.multitask._features import _MAX_UNFIT_COMPONENTS, auto_components
from skfed.multitask._shared import _SharedNodes
from skfed.multitask._validation import held_out_shift, round_up_float32


def _weighted_two_part_ridge(Z, y, g, weights, lam, b):
    """argmin over (w0, V) of sum_i weights_i 0.5 (z_i.(w0 + v_g) - y_i)^2 +
    (lam m / 2) (||w0||^2 / b + ||V||^2 / (1 - b)) (NumPy, closed form)."""
    m, d = int(g.max()) + 1, Z.shape[1]
    A = np.zeros((len(y), (m + 1) * d))
    A[:, :d] = Z
    for i, t in enumerate(g):
        A[i, (t + 1) * d:(t + 2) * d] = Z[i]
    penalty = np.r_[np.full(d, lam * m / b), np.full(m * d, lam * m / (1.0 - b))]
    theta = np.linalg.solve(A.T @ (weights[:, None] * A) + np.diag(penalty),
                            A.T @ (weights * y))
    return theta[:d], theta[d:].reshape(m, d)


def _layout(g):
    return NodeLayout(g, int(g.max()) + 1)


@pytest.mark.parametrize("d", [3, 8, 40])
def test_held_out_shift_against_numpy_and_an_honest_refit(d):
    """The shift is the held-out rows' residual-weighted sum over ``n_t``
    times the curvature estimate (NumPy).  Against the shared model refitted
    without node t's held-out row (squared loss, closed form): the estimated
    move of the row's margin is within a factor 4 of the true move on
    average, and with at least as many features as rows a node (d = 8, 40)
    the corrected margins are closer to the refit's than the uncorrected
    ones on average.  With fewer (d = 3) the estimate overshoots (measured: 3 times the
    true move), a known limit: the node's own part absorbs part of the row."""
    rng = np.random.RandomState(0)
    m, n = 12, 8
    g = np.repeat(np.arange(m), n)
    Z = rng.randn(m * n, d)
    y = Z @ rng.randn(d) / np.sqrt(d) + 0.5 * rng.randn(m * n)
    lam, b = 1.0 / (m * n), 0.4
    w_full = 1.0 / n * np.ones(m * n)
    w0, V = _weighted_two_part_ridge(Z, y, g, w_full, lam, b)
    residual = y - np.einsum("id,id->i", Z, w0 + V[g])  # the squared loss's duals
    held = np.zeros(m * n, dtype=bool)
    held[np.arange(m) * n] = True  # each node holds out its first row
    nodes = _SharedNodes(Z, y[None, :], np.ones(m * n), residual[None, :].copy(), _layout(g),
                         np.full(m, float(n)), np.arange(1, m + 1), 8)
    shift = held_out_shift(nodes, residual[None, :], held.astype(float), np.full(m, float(n)),
                           b, lam)
    mu = lam * m / (1.0 - b)
    others = (m - 1) * min(1.0, n / d)
    curvature = lam * m / b + (1.0 + others) * mu
    moves = []
    for t in range(m):
        i = t * n
        np.testing.assert_allclose(shift[0, t], residual[i] * Z[i] / (n * curvature),
                                   rtol=1e-12, atol=1e-15)
        # node t's held-out row out of the shared model (the others keep all rows)
        w_t = w_full.copy()
        w_t[i] = 0.0
        w0_honest, _ = _weighted_two_part_ridge(Z, y, g, w_t, lam, b)
        honest, plain, corrected = Z[i] @ w0_honest, Z[i] @ w0, Z[i] @ (w0 - shift[0, t])
        moves.append((abs(honest - plain), abs(corrected - plain), abs(corrected - honest)))
    true_move, estimated, corrected_error = np.mean(moves, axis=0)
    assert 0.25 < estimated / true_move < 4.0
    if d >= n:
        assert corrected_error < 0.75 * true_move  # the uncorrected error is true_move


def test_round_up_float32_is_an_upper_bound_within_float32_rounding():
    rng = np.random.RandomState(0)
    x = np.r_[rng.randn(1000) * 10.0 ** rng.randint(-20, 20, 1000), 0.0, 1.0, -3.5]
    up = round_up_float32(x)
    assert np.all(up >= x)
    assert np.all(up.astype(np.float32).astype(np.float64) == up)  # float32 values
    # the smallest float32 at or above x (NumPy's nextafter as the reference)
    nearest = x.astype(np.float32)
    expected = np.where(nearest.astype(np.float64) < x,
                        np.nextafter(nearest, np.float32(np.inf)), nearest).astype(np.float64)
    np.testing.assert_array_equal(up, expected)
    assert np.all(np.abs(up - x) <= 2.0**-23 * np.abs(x))


def test_reports_travel_in_float32_under_compression_and_float64_without(monkeypatch):
    """Uplink bytes of every round: the quantized u_t change plus four
    reported floats, 4 bytes each under compression (8 with
    compression='none' or tol below 1e-5), plus the header."""
    rng = np.random.RandomState(1)
    g = np.repeat(np.arange(6), 20)
    X = rng.randn(len(g), 4)
    y = (X[:, 0] + 0.3 * rng.randn(len(g)) > 0).astype(int)
    sizes = {}
    for compression, tol in (("auto", 1e-3), ("none", 1e-3), ("auto", 1e-6)):
        fit = shared._SharedFit

        captured = []
        original = fit._node_round

        def spy(self, active, work, stale, parallel, _orig=original):
            captured.append(self._report_bytes())
            return _orig(self, active, work, stale, parallel)

        monkeypatch.setattr(fit, "_node_round", spy)
        FederatedMultiTaskClassifier(omega="shared", compression=compression, tol=tol,
                                     random_state=0).fit(X, y, groups=g)
        sizes[(compression, tol)] = set(captured)
        monkeypatch.setattr(fit, "_node_round", original)
    assert sizes[("auto", 1e-3)] == {4}
    assert sizes[("none", 1e-3)] == {8}
    assert sizes[("auto", 1e-6)] == {8}


def test_learned_fit_stops_at_its_byte_budget(monkeypatch):
    """On the personal-selection path the learned-share fit stops before the
    round that would take its messages past _PERSONAL_BYTE_BUDGET of the raw
    upload (a round costing its dearest round): the budget is a ceiling."""
    rng = np.random.RandomState(0)
    m, n, d = 200, 10, 8
    g = np.repeat(np.arange(m), n)
    X = rng.randn(m * n, d)
    y = X @ rng.randn(d) + 0.3 * rng.randn(m * n)
    raw = X.shape[0] * (d * 8 + 8) + m * 16
    spent = []
    original = shared._SharedFit.run

    def run(self, parallel):
        out = original(self, parallel)
        spent.append((self.byte_budget, self._spent() - self.start_bytes, self.rounds,
                      self.round_cost))
        return out

    monkeypatch.setattr(shared._SharedFit, "run", run)
    FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    budget, used, rounds, dearest = spent[0]
    assert budget == pytest.approx(shared._PERSONAL_BYTE_BUDGET * raw)
    assert rounds >= 2 and used / rounds <= dearest < used
    assert used <= budget < used + dearest
    assert spent[1][0] is None  # the refit has none: it runs to tol


@pytest.mark.parametrize("params", [
    dict(kernel="rbf", approximation="rff"),
    dict(kernel="rbf", approximation="nystroem"),
    dict(kernel="rbf", approximation="auto"),
])
def test_random_feature_cap_is_one_rule_on_every_path(params):
    """Nodes of a few rows (no number of features keeps 100 rounds within
    the raw upload): n_components='auto' is at most 512 whether the
    approximation is automatic or asked for; on large nodes an explicit
    approximation keeps the rate rule."""
    est = FederatedMultiTaskClassifier(**params)
    est._resolve_mode(16_000, 5, 1_600, 1, 8)  # 1,600 nodes of 10 rows
    assert est.n_components_ == min(auto_components(16_000), _MAX_UNFIT_COMPONENTS)
    if params["approximation"] != "auto":
        est._resolve_mode(20_000, 200, 4, 1, 8)  # 4 nodes of 5,000 rows
        assert est.n_components_ == auto_components(20_000)


def test_private_fit_has_the_same_cap():
    from skfed.privacy import DifferentialPrivacy

    est = FederatedMultiTaskClassifier(
        kernel="rbf", privacy=DifferentialPrivacy(epsilon=1.0, delta=1e-5, clip_norm=1.0))
    est._resolve_mode(16_000, 5, 1_600, 1, 8)
    assert est.approximation_ == "rff"
    assert est.n_components_ == _MAX_UNFIT_COMPONENTS


@pytest.mark.parametrize("Estimator", [FederatedMultiTaskClassifier,
                                       FederatedMultiTaskRegressor])
def test_convergence_warning_names_a_badly_scaled_feature(Estimator):
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(20), 30)
    X = rng.randn(600, 5)
    y = X[:, 0] + 0.3 * rng.randn(600)
    if Estimator is FederatedMultiTaskClassifier:
        y = (y > 0).astype(int)
    X[:, 2] *= 1e150
    with pytest.warns(ConvergenceWarning, match=r"feature 2's scale is 9\.81e\+149 times"):
        Estimator(max_rounds=20, random_state=0).fit(X, y, groups=g)
    # well scaled: converges, no warning
    X[:, 2] /= 1e150
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        Estimator(random_state=0).fit(X, y, groups=g)


def test_feature_scale_note_names_the_largest_and_counts_the_others():
    X = np.ones((6, 5))
    X[:, 1] = 1e4
    X[:, 3] = 1e6
    layout = _layout(np.repeat(np.arange(2), 3))
    note = shared.feature_scale_note(X, layout)
    assert note.startswith("feature 3's scale is 1e+06 times the median feature's (and 1 more)")
    assert shared.feature_scale_note(np.ones((6, 5)), layout) == ""
