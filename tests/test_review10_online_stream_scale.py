"""Review10: a regressor streamed one sample per node per call has a scale.

``partial_fit`` agrees on the targets' scale at its first call and keeps
it.  In a stream of one sample per node per call (the online use) no node
then has two targets, so the scale fell back to 1 in the unit of ``y``:
``1e-3 y`` or ``1e3 y`` were other solver problems (relative RMSE 1.21 /
0.49 / 1.21 at units 1e-3 / 1 / 1e3 here).  With no node of a positive
scale, the scale is now the spread of the nodes' means between the nodes,
``sqrt(sum_i n_i^2 (m_i - m)^2 / sum_i n_i^2)``, read from the sums the
nodes already send (their common value when every target is the same: a
constant 7e-10 was predicted as 0, a constant 7 exactly).
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone

from skfed.online import DecentralizedKernelSGDRegressor
from skfed.online._robust import between_node_scale, node_centres
from tests._helpers.mpi import launch, needs_mpi, saved_cases
from tests._helpers.online import numpy_scale


def _stream():
    rng = np.random.default_rng(0)
    n_nodes, n = 6, 40
    X = rng.standard_normal((n_nodes * n, 3))
    groups = np.tile(np.arange(n_nodes), n)  # round robin: one sample per node per call
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(len(X))
    return X, y, groups, n_nodes


def _streamed(X, y, groups, n_nodes):
    est = DecentralizedKernelSGDRegressor(random_state=0)
    for t in range(len(y) // n_nodes):
        rows = slice(t * n_nodes, (t + 1) * n_nodes)
        est.partial_fit(X[rows], y[rows], groups=groups[rows])
    return est


def test_between_node_scale_equals_numpy():
    X, y, groups, n_nodes = _stream()
    rows = slice(0, n_nodes)
    centres = node_centres(y[rows], groups[rows], n_nodes)
    m = y[rows].mean()
    assert between_node_scale(centres) == pytest.approx(np.sqrt(np.mean((y[rows] - m) ** 2)),
                                                        rel=1e-12)
    # nodes of different sizes: weights n_i^2 around the n_i-weighted mean
    c = np.array([[1.0, 2.0], [4.0, 1.0], [np.nan, np.nan], [-2.0, 3.0]])
    n, mi = np.array([2.0, 1.0, 3.0]), np.array([1.0, 4.0, -2.0])
    mean = np.dot(n, mi) / n.sum()
    assert between_node_scale(c) == pytest.approx(
        np.sqrt(np.sum(n ** 2 * (mi - mean) ** 2) / np.sum(n ** 2)), rel=1e-12)
    # equal targets: their common value (0 only for all-zero targets)
    assert between_node_scale(np.array([[-3.0, 1.0], [-3.0, 2.0]])) == 3.0
    assert between_node_scale(np.array([[0.0, 1.0], [0.0, 2.0]])) == 0.0


@pytest.mark.parametrize("value", [7.0, 7e-10, -3e8])
def test_equal_targets_are_predicted_at_any_unit(value):
    X, _, groups, _ = _stream()
    y = np.full(len(groups), value)
    est = DecentralizedKernelSGDRegressor(random_state=0, max_epochs=2).fit(X, y, groups=groups)
    assert est.target_scale_ == pytest.approx(abs(value), rel=1e-12)
    assert est.target_offset_ == pytest.approx(value, rel=1e-12)
    assert_allclose(est.predict(X, groups=groups), y, rtol=1e-9)


def test_streamed_predictions_follow_the_unit_of_y():
    X, y, groups, n_nodes = _stream()
    base = _streamed(X, y, groups, n_nodes)
    first = slice(0, n_nodes)
    assert base.target_scale_ == pytest.approx(
        between_node_scale(node_centres(y[first], groups[first], n_nodes)), rel=1e-12)
    pred = base.predict(X, groups=groups)
    for a in (1e-3, 1e3):
        moved = _streamed(X, a * y, groups, n_nodes)
        assert moved.target_scale_ == pytest.approx(a * base.target_scale_, rel=1e-9)
        assert_allclose(moved.predict(X, groups=groups), a * pred, rtol=1e-6, atol=1e-6 * a)


@needs_mpi
def test_mpi_agrees_on_the_fallback_scales(tmp_path):
    # nodes of equal targets (the between-node spread) and zero-inflated
    # nodes (mean absolute deviations): two ranks give the simulated bits
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(6), 10)
    X = rng.normal(size=(60, 2))
    level = (7.0 * rng.normal(size=6))[g]
    tied = np.where(rng.random_sample(60) < 0.7, 0.0, 3.0 + X[:, 0] ** 2)
    est = DecentralizedKernelSGDRegressor(kernel="rbf", gamma=0.5, max_epochs=2,
                                          max_dictionary_size=12, random_state=1)
    cases = saved_cases([("level", est, X, level, g, np.ones(60)),
                         ("tied", est, X, tied, g, np.ones(60))], tmp_path / "data")
    runs = launch(2, cases, tmp_path / "ranks2")
    for name, y in (("level", level), ("tied", tied)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = clone(est).fit(X, y, groups=g)
        assert sim.target_scale_ == pytest.approx(numpy_scale(y, g), rel=1e-9)
        assert sim.target_scale_ != 1.0
        run = runs[name]
        assert (run.target_offset_, run.target_scale_) == (sim.target_offset_, sim.target_scale_)
        np.testing.assert_array_equal(run.predict(X, groups=g), sim.predict(X, groups=g))
