"""``score_tables``: the look-up tables of fixed models, built once and passed in.

The MPI engine's graph steps are one-step calls on models that stay fixed
through a graph phase; ``pair_scores`` and ``graph_steps`` would rebuild
the non-zero lists and stump prefix sums over every model at each call.
Given the tables, both must give exactly what they give when they build
the tables themselves (and the NumPy reference scores).
"""
import functools
import importlib.util
import pathlib

import numpy as np
import pytest

from skfed._core._graph_fast import _nonzero_lists, graph_steps, pair_scores, score_tables
from skfed.boosting._stumps import stump_groups

_here = pathlib.Path(__file__)


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_tables_{name}", _here.with_name(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_dense_tests = _load("test_graph_fast.py")
_stump_tests = _load("test_graph_fast_stumps.py")


@pytest.mark.parametrize("P", [1, 3])
@pytest.mark.parametrize("grouped", [False, True])
def test_scores_with_tables_equal_the_built_ones_and_numpy(P, grouped):
    _, features, thresholds, H, Y, sw, offsets, models, confidence = \
        _stump_tests._stump_problem(seed=5, P=P)
    K = models.shape[0]
    H8 = H.astype(np.int8)
    groups = stump_groups(H8, features, thresholds) if grouped else None
    tables = score_tables(models, H.shape[1], groups)
    # The tables hold what the scorer would build: lists by problem, the
    # prefix sums with groups only, and lists of whole rows for distances.
    ptr, idx, val, n_problems = tables[0]
    assert n_problems == P and ptr.shape[0] == K * P + 1
    assert ptr[-1] == np.count_nonzero(models)
    assert (tables[1] is not None) == grouped
    dist = _nonzero_lists(models, models.shape[1])
    for a, b in zip(tables[2][:3], dist[:3]):
        np.testing.assert_array_equal(a, b)
    rows, cols = [a.astype(np.intp) for a in np.nonzero(np.ones((K, K), dtype=bool))]
    built = np.full(rows.size, np.nan)
    given = np.full(rows.size, np.nan)
    extra = (groups,) if grouped else ()
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, built, None, H8, *extra)
    # One pair per call, as the MPI engine asks, all reading the same tables.
    for r in range(rows.size):
        out = np.zeros(1)
        pair_scores(models, H, Y, sw, offsets, confidence, rows[r:r + 1], cols[r:r + 1], out,
                    None, H8, *extra, tables=tables)
        given[r] = out[0]
    np.testing.assert_array_equal(given, built)
    E = _dense_tests.ref_scores(models, H, Y, sw, offsets, confidence)
    np.testing.assert_allclose(given, E[rows, cols], rtol=1e-12, atol=1e-12)
    assert np.ptp(given) > 0.5


@pytest.mark.parametrize("P", [1, 2])
def test_graph_steps_with_tables_equal_the_built_ones(P, monkeypatch):
    _, features, thresholds, H, Y, sw, offsets, models, confidence = \
        _stump_tests._stump_problem(seed=6, K=10, P=P)
    K = models.shape[0]
    H8 = H.astype(np.int8)
    groups = stump_groups(H8, features, thresholds)
    losses = np.random.RandomState(7).uniform(0, 0.3, size=K)
    kw = dict(mu=0.9, mu_graph=1.1, lam=0.6, delta=1e-2, kappa=3, n_steps=60,
              max_neighbors=3)
    data = (H, Y, sw, offsets, confidence, None, H8, groups)
    cost_built = np.full(K * K, np.nan)
    built = _dense_tests._run(models, losses, np.zeros((K, K)), pair_cost=cost_built,
                              score=data, **kw)
    tables = score_tables(models, H.shape[1], groups)
    monkeypatch.setattr(_dense_tests, "graph_steps", functools.partial(graph_steps, tables=tables))
    cost_given = np.full(K * K, np.nan)
    given = _dense_tests._run(models, losses, np.zeros((K, K)), pair_cost=cost_given,
                              score=data, **kw)
    assert np.count_nonzero(given[1]) > K
    np.testing.assert_array_equal(given[1], built[1])
    np.testing.assert_array_equal(given[0][:4], built[0][:4])
    np.testing.assert_array_equal(cost_given, cost_built)
    assert given[3].nbytes == built[3].nbytes > 0


def test_tables_bad_input_names_the_parameter():
    _, features, thresholds, H, Y, sw, offsets, models, confidence = \
        _stump_tests._stump_problem(seed=8, P=1)
    H8 = H.astype(np.int8)
    groups = stump_groups(H8, features, thresholds)
    rows = cols = np.arange(models.shape[0], dtype=np.intp)
    out = np.zeros(rows.size)
    other = score_tables(models[:-1], H.shape[1], groups)  # another set of models
    with pytest.raises(ValueError, match=r"^tables must be score_tables"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out, None, H8, groups,
                    tables=other)
    no_prefix = score_tables(models, H.shape[1])  # built without the groups
    with pytest.raises(ValueError, match=r"^tables must be score_tables"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out, None, H8, groups,
                    tables=no_prefix)
    # Tables that nothing would read (no H8) are refused, not ignored.
    with pytest.raises(ValueError, match=r"^tables are read only with H8"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out, None,
                    tables=score_tables(models, H.shape[1]))
