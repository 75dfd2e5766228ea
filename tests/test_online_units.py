"""The online regressor's agreed origin and scale of ``y`` (``_robust``).

The encoding is checked against a NumPy reference (``tests/_helpers/online``),
on its intermediate quantities (every node's winsorized mean and count, the
standard error that decides the offset) and end to end: the predictions follow
a change of unit and of origin of ``y``, partial_fit and add_nodes keep the
fit's encoding, and the MPI engine's per-rank pieces combine to the same
numbers.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDRegressor
from skfed.online._robust import (
    OFFSET_Z,
    agreed_offset,
    agreed_scale,
    node_centres,
    node_log_scales,
)
from tests._helpers.online import numpy_offset, numpy_scale


def _nodes(rng, n_nodes=8, n=12, level=0.0, spread=0.0):
    groups = np.repeat(np.arange(n_nodes), n)
    y = level + spread * rng.normal(size=n_nodes)[groups] + rng.normal(size=len(groups))
    return y, groups


def test_node_centres_are_winsorized_means_and_counts():
    rng = np.random.default_rng(0)
    groups = np.array([0] * 9 + [2] * 4)
    y = np.concatenate([rng.normal(size=8), [1e6], [1.0, 1.0, 1.0, 5.0]])
    got = node_centres(y, groups, 3)
    # node 0: the huge value is clipped to median + 3 * 1.4826 MAD
    v = y[:9]
    med = np.median(v)
    reach = 3 * 1.482602218505602 * np.median(np.abs(v - med))
    assert got[0, 0] == pytest.approx(np.mean(np.minimum(v, med + reach)), rel=1e-14)
    assert got[0, 0] < 10 and got[0, 1] == 9
    # node 1 has no target here; node 2's MAD is 0: no clipping at all
    assert np.isnan(got[1]).all()
    assert tuple(got[2]) == (2.0, 4.0)


@pytest.mark.parametrize("level, spread", [(0.0, 0.0), (0.05, 0.0), (3.0, 0.0), (0.3, 1.0),
                                           (20.0, 5.0)])
def test_agreed_offset_equals_numpy(level, spread):
    rng = np.random.default_rng(1)
    y, groups = _nodes(rng, level=level, spread=spread)
    n_nodes = groups.max() + 1
    scale = agreed_scale(node_log_scales(y, groups, n_nodes))
    assert scale == pytest.approx(numpy_scale(y, groups), rel=1e-9)
    got = agreed_offset(node_centres(y, groups, n_nodes), scale)
    assert got == pytest.approx(numpy_offset(y, groups), rel=1e-12, abs=0)
    # the decision: 0 when the level is within noise, the mean when clear
    if level >= 3.0:
        assert got != 0.0
    if level == 0.0:
        assert got == 0.0


def test_offset_decision_at_the_threshold():
    """A mean just above / below ``OFFSET_Z`` standard errors."""
    assert OFFSET_Z == 2.0
    centres = np.array([[1.0, 4.0], [3.0, 4.0]])  # m = 2, between-node se = sqrt(32) / 8
    assert agreed_offset(centres, scale=0.1) == 2.0  # (2 > 1.414)
    centres = np.array([[0.5, 4.0], [3.5, 4.0]])  # m = 2, se = sqrt(72) / 8
    assert agreed_offset(centres, scale=0.1) == 0.0  # (2 < 2.121)
    centres = np.array([[2.0, 4.0], [2.2, 4.0]])  # se = 0.1, but scale / sqrt(8) wins
    assert agreed_offset(centres, scale=10.0) == 0.0
    assert agreed_offset(centres, scale=0.5) == pytest.approx(2.1, rel=1e-15)
    # one node: only the within-node error
    assert agreed_offset(np.array([[1.0, 100.0]]), scale=4.0) == 1.0
    assert agreed_offset(np.array([[1.0, 100.0]]), scale=6.0) == 0.0
    # no node has a target
    assert agreed_offset(np.full((3, 2), np.nan), scale=1.0) == 0.0


def test_split_over_processes_combines_exactly():
    """Each node's row comes from its own process: fmax of the parts."""
    rng = np.random.default_rng(2)
    y, groups = _nodes(rng, level=2.0, spread=1.0)
    whole = node_centres(y, groups, 8)
    first = groups < 3
    parts = [node_centres(y[first], groups[first], 8), node_centres(y[~first], groups[~first], 8)]
    combined = np.fmax.reduce(np.asarray(parts), axis=0)
    np.testing.assert_array_equal(combined, whole)


def _fit(y, groups, X, **params):
    return DecentralizedKernelSGDRegressor(random_state=0, max_epochs=5, **params).fit(
        X, y, groups=groups)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_predictions_follow_the_unit_and_origin_of_y(kernel):
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(6), 15)
    X = rng.normal(size=(90, 2))
    y = 5.0 + np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=90)
    X_test = rng.normal(size=(30, 2))
    g_test = np.repeat(np.arange(6), 5)
    base = _fit(y, groups, X, kernel=kernel)
    assert base.target_offset_ != 0.0  # a clear origin: used before and after
    pred = base.predict(X_test, groups=g_test)
    for a, b in [(1e-3, 0.0), (1e4, 0.0), (1.0, 1e4), (-2.0, -7.0)]:
        moved = _fit(a * y + b, groups, X, kernel=kernel)
        assert moved.target_offset_ == pytest.approx(a * base.target_offset_ + b, rel=1e-9)
        assert moved.target_scale_ == pytest.approx(abs(a) * base.target_scale_, rel=1e-9)
        assert_allclose(moved.predict(X_test, groups=g_test), a * pred + b,
                        rtol=1e-6, atol=1e-6 * abs(a))
        # and so do the fitted models (the same solver problem)
        assert_allclose(moved.model_order_, base.model_order_)


def test_partial_fit_and_add_nodes_keep_the_fit_encoding():
    rng = np.random.default_rng(4)
    groups = np.repeat(np.arange(6), 15)
    X = rng.normal(size=(90, 2))
    y = 40.0 + 3 * X[:, 0] + rng.normal(size=90)
    est = DecentralizedKernelSGDRegressor(random_state=0, max_epochs=3).fit(X, y, groups=groups)
    offset, scale = est.target_offset_, est.target_scale_
    assert offset == pytest.approx(numpy_offset(y, groups), rel=1e-12)
    # A batch of other targets does not move the encoding.
    est.partial_fit(X[:30], y[:30] + 100.0, groups=groups[:30])
    assert (est.target_offset_, est.target_scale_) == (offset, scale)
    # Newcomers learn in the fit's units: a newcomer of the same rule
    # predicts near it (far from the 0 of the raw units).
    Xn = rng.normal(size=(10, 2))
    yn = 40.0 + 3 * Xn[:, 0]
    est.add_nodes(Xn, yn, groups=np.full(10, 99))
    assert (est.target_offset_, est.target_scale_) == (offset, scale)
    pred = est.predict(Xn, groups=np.full(10, 99))
    assert np.sqrt(np.mean((pred - yn) ** 2)) < 0.5 * np.std(yn)


def test_scale_round_bytes_for_every_regressor_loss():
    rng = np.random.default_rng(5)
    y, groups = _nodes(rng, n_nodes=5, n=8, level=10.0)
    X = rng.normal(size=(len(y), 2))
    header = 20
    sizes = []
    for loss in ("squared_error", "huber", "epsilon_insensitive"):
        est = DecentralizedKernelSGDRegressor(
            loss=loss, kernel="rbf", max_epochs=1, random_state=0, consensus_penalty=0.1,
            network=SimulatedNetwork("ring", header_bytes=header)).fit(X, y, groups=groups)
        sizes.append(est.bytes_per_round_[0])
    # 4 tree edges of a 5-ring: 7 float64 up, offset and scale down
    assert sizes == [4 * ((header + 7 * 8) + (header + 2 * 8))] * 3
