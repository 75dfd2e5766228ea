"""The graph steps' non-zero lists of the models (peer scores and squared distances).

``graph_steps`` lists every model's non-zero weights once per call and
reads them for the peer scores (with int8 base predictions) and, for
float64 models at most half non-zero, for the squared distances.  These
tests check the lists against NumPy and the steps that read them against
the dense NumPy replay of eq. 5 and against the dense loop (bit for bit).
"""

import numpy as np
import pytest

from skfed._core._graph_fast import _nonzero_lists
from skfed.graph import graph_objective

import importlib.util
import pathlib

# The dense file's helpers (a sibling module, not a package: loaded by path).
_spec = importlib.util.spec_from_file_location(
    "_graph_fast_dense_tests", pathlib.Path(__file__).with_name("test_graph_fast.py"))
_dense_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_dense_tests)
_run, ref_graph_step = _dense_tests._run, _dense_tests.ref_graph_step
ref_scores, _score_problem = _dense_tests.ref_scores, _dense_tests._score_problem


def _sparse_models(seed, K, n, zero_fraction):
    rng = np.random.RandomState(seed)
    models = rng.normal(size=(K, n))
    models[rng.uniform(size=models.shape) < zero_fraction] = 0.0
    models[0] = 0.0  # a model without any non-zero weight
    return models


@pytest.mark.parametrize("n_problems", [1, 3])
def test_nonzero_lists_match_numpy(n_problems):
    n_base = 7
    models = _sparse_models(0, 6, n_problems * n_base, 0.6)
    ptr, idx, val, P = _nonzero_lists(models, n_base)
    assert P == n_problems
    assert ptr.shape == (6 * n_problems + 1,) and ptr[0] == 0
    for k in range(6):
        for p in range(n_problems):
            block = models[k, p * n_base:(p + 1) * n_base]
            start, end = ptr[k * n_problems + p], ptr[k * n_problems + p + 1]
            np.testing.assert_array_equal(idx[start:end], np.flatnonzero(block))
            np.testing.assert_array_equal(val[start:end], block[block != 0])
    # All-zero models: empty lists (and one unused slot to point at).
    ptr, idx, val, _ = _nonzero_lists(np.zeros((3, 4)), 4)
    np.testing.assert_array_equal(ptr, np.zeros(4))
    assert idx.size == val.size == 1


def test_sparse_distances_replay_in_numpy():
    # 70 % zeros: the steps read the squared distances from the lists.
    K, kappa = 9, 3
    models = _sparse_models(3, K, 12, 0.7)
    losses = np.random.RandomState(4).uniform(0, 1, size=K)
    kw = dict(mu=1.2, mu_graph=0.6, lam=0.8, delta=1e-2)
    out, W, *_, curve, nodes, peers, _ = _run(models, losses, np.zeros((K, K)),
                                              kappa=kappa, n_steps=150, **kw)
    ref = np.zeros((K, K))
    for k, p in zip(nodes, peers):
        ref, _, _ = ref_graph_step(ref, models, losses, k, p, mu=1.2, mu_graph=0.6, lam=0.8,
                                   delta=1e-2)
    assert W.any()
    np.testing.assert_allclose(W, ref, rtol=1e-9, atol=1e-12)
    assert curve[-1] == pytest.approx(
        graph_objective(W, models, losses, mu=1.2, mu_graph=0.6, lambda_graph=0.8,
                        delta=1e-2), rel=1e-9)


def test_sparse_and_dense_distances_give_the_same_graph_bit_for_bit():
    # The merge of the lists against the dense loop on the same distances.
    K, kappa = 8, 3
    sparse_models = _sparse_models(5, K, 10, 0.8)
    losses = np.zeros(K)
    kw = dict(mu=1.0, mu_graph=0.7, lam=0.5, delta=1e-2, kappa=kappa, n_steps=120,
              max_neighbors=2)
    W_sparse = _run(sparse_models, losses, np.zeros((K, K)), **kw)[1]
    # Appending one shared column of ones changes no distance but makes the
    # models over half non-zero (dense loop): the same graph, bit for bit.
    padded = np.hstack([sparse_models, np.ones((K, 12))])
    assert np.count_nonzero(padded) * 2 > padded.size
    W_dense = _run(padded, losses, np.zeros((K, K)), **kw)[1]
    assert W_sparse.any()
    np.testing.assert_array_equal(W_sparse, W_dense)


def test_listed_scores_equal_numpy_and_the_float_scan():
    models, H, Y, sw, offsets, confidence = _score_problem(seed=7, K=10, P=2, n_base=6)
    models[models != 0] *= np.where(np.arange(models.size).reshape(models.shape) % 3, 1, 0)[
        models != 0]  # sparser still
    K = models.shape[0]
    E = ref_scores(models, H, Y, sw, offsets, confidence)
    kw = dict(mu=0.9, mu_graph=1.1, lam=0.6, delta=1e-2, kappa=3, n_steps=60,
              max_neighbors=3)
    losses = np.random.RandomState(2).uniform(0, 0.3, size=K)
    cost = np.full(K * K, np.nan)
    cost8 = np.full(K * K, np.nan)
    W = _run(models, losses, np.zeros((K, K)), pair_cost=cost,
             score=(H, Y, sw, offsets, confidence), **kw)[1]
    W8 = _run(models, losses, np.zeros((K, K)), pair_cost=cost8,
              score=(H, Y, sw, offsets, confidence, None, H.astype(np.int8)), **kw)[1]
    np.testing.assert_array_equal(W8, W)
    np.testing.assert_array_equal(cost8, cost)
    # Every stored score is the NumPy one of its link.
    wv_slots = ~np.isnan(cost8)
    assert wv_slots.any()
    rows, slots = np.divmod(np.flatnonzero(wv_slots), K)
    for k, s in zip(rows, slots):
        stored = np.flatnonzero(W8[k])
        if s < stored.size:
            assert cost8[k * K + s] == pytest.approx(E[k, stored[s]], rel=1e-12, abs=1e-12)
