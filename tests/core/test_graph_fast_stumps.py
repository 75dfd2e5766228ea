"""Peer scores read by stump groups (Dada's own stumps).

The stumps of one feature, sorted by threshold, are +1 on a prefix of the
group for every sample, so ``graph_steps`` and ``pair_scores`` can read a
model's margin from its prefix sums (one look-up per feature) instead of
summing its stumps.  These tests check the groups and the prefix sums
against NumPy, and the grouped scores and graph steps against the NumPy
scores and the stump-by-stump path.
"""

import importlib.util
import pathlib

import numpy as np
import pytest

from skfed._core._graph_fast import _stump_prefix, pair_scores
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting import _dada_state
from skfed.boosting._stumps import stump_groups, stump_predictions

_spec = importlib.util.spec_from_file_location(
    "_graph_fast_dense_tests", pathlib.Path(__file__).with_name("test_graph_fast.py"))
_dense_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_dense_tests)
_run, ref_scores = _dense_tests._run, _dense_tests.ref_scores


def _stump_problem(seed=0, K=9, P=1):
    """Node-sorted samples, stumps on 3 features (unsorted, one tie, one lone
    stump) and an intercept column; +-1 labels; sparse models."""
    rng = np.random.RandomState(seed)
    sizes = rng.randint(2, 8, size=K)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    X = rng.uniform(-1, 1, size=(offsets[-1], 4))
    features = np.array([2, 0, 0, 2, 0, 3, 2, 0], dtype=np.intp)
    thresholds = np.array([0.3, 0.5, -0.2, -0.6, 0.1, 0.0, 0.3, 0.8])
    H = np.column_stack([stump_predictions(X, features, thresholds, np.float64),
                         np.ones(X.shape[0])])
    Y = np.where(rng.uniform(size=(P, X.shape[0])) > 0.5, 1.0, -1.0)
    sw = rng.uniform(0.5, 2.0, size=X.shape[0])
    sw[rng.uniform(size=sw.size) < 0.15] = 0.0
    sw[offsets[:-1]] = 1.0
    models = rng.normal(size=(K, P * H.shape[1]))
    models[rng.uniform(size=models.shape) < 0.5] = 0.0
    models[1] = 0.0  # a model without any non-zero weight
    confidence = rng.uniform(0.2, 1.0, size=K)
    return X, features, thresholds, H, Y, sw, offsets, models, confidence


def test_stump_groups_match_numpy():
    X, features, thresholds, H, *_ = _stump_problem()
    perm, gptr, counts = stump_groups(H.astype(np.int8), features, thresholds)
    # Groups: feature 0 (4 stumps), 2 (3, one tie), 3 (1), then the intercept.
    np.testing.assert_array_equal(gptr, [0, 4, 7, 8, 9])
    np.testing.assert_array_equal(np.sort(perm), np.arange(9))
    assert perm[-1] == 8
    for f, feature in enumerate([0, 2, 3]):
        cols = perm[gptr[f]:gptr[f + 1]]
        assert np.all(features[cols] == feature)
        assert np.all(np.diff(thresholds[cols]) >= 0)
        # The count is the number of the group's thresholds below the sample.
        np.testing.assert_array_equal(
            counts[:, f], (X[:, [feature]] > thresholds[cols][None, :]).sum(axis=1))
    np.testing.assert_array_equal(counts[:, 3], np.ones(X.shape[0]))
    assert counts.dtype == np.int32
    # Columns that are not the stumps' predictions: no groups.
    broken = H.astype(np.int8)
    i = np.flatnonzero(broken[:, perm[1]] == 1)[0]
    broken[i, perm[0]] = -1  # +1 on the second stump of feature 0 but not the first
    assert stump_groups(broken, features, thresholds) is None


@pytest.mark.parametrize("P", [1, 2])
def test_stump_prefix_matches_numpy(P):
    _, features, thresholds, H, _, _, _, models, _ = _stump_problem(seed=1, P=P)
    perm, gptr, _ = stump_groups(H.astype(np.int8), features, thresholds)
    n_base = H.shape[1]
    ps, g_off, g_size, act_ptr, act_idx = _stump_prefix(models, n_base, perm, gptr)
    G = gptr.size - 1
    width = n_base + G
    np.testing.assert_array_equal(g_size, np.diff(gptr))
    np.testing.assert_array_equal(g_off, gptr[:-1] + np.arange(G))
    for l in range(models.shape[0]):
        for p in range(P):
            row = ps[(l * P + p) * width:(l * P + p + 1) * width]
            weights = models[l, p * n_base:(p + 1) * n_base]
            active = []
            for f in range(G):
                group = weights[perm[gptr[f]:gptr[f + 1]]]
                np.testing.assert_allclose(row[g_off[f]:g_off[f] + g_size[f] + 1],
                                           np.r_[0.0, np.cumsum(group)], rtol=1e-15)
                if np.any(group != 0):
                    active.append(f)
            np.testing.assert_array_equal(
                act_idx[act_ptr[l * P + p]:act_ptr[l * P + p + 1]], active)


@pytest.mark.parametrize("P", [1, 2])
def test_grouped_scores_match_numpy_and_the_stump_sums(P):
    _, features, thresholds, H, Y, sw, offsets, models, confidence = _stump_problem(
        seed=2, P=P)
    K = models.shape[0]
    H8 = H.astype(np.int8)
    groups = stump_groups(H8, features, thresholds)
    rows, cols = [a.astype(np.intp) for a in np.nonzero(np.ones((K, K), dtype=bool))]
    grouped = np.full(rows.size, np.nan)
    summed = np.full(rows.size, np.nan)
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, grouped, None, H8, groups)
    pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, summed, None, H8)
    E = ref_scores(models, H, Y, sw, offsets, confidence)
    np.testing.assert_allclose(grouped, E[rows, cols], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grouped, summed, rtol=1e-12, atol=1e-12)
    assert np.all(grouped[rows == cols] == 0.0)
    assert np.ptp(grouped) > 0.5  # the scores differ between pairs


def test_graph_steps_with_groups_equal_the_stump_sums():
    _, features, thresholds, H, Y, sw, offsets, models, confidence = _stump_problem(
        seed=3, K=10)
    K = models.shape[0]
    H8 = H.astype(np.int8)
    groups = stump_groups(H8, features, thresholds)
    losses = np.random.RandomState(4).uniform(0, 0.3, size=K)
    kw = dict(mu=0.9, mu_graph=1.1, lam=0.6, delta=1e-2, kappa=3, n_steps=80,
              max_neighbors=3)
    cost_sum = np.full(K * K, np.nan)
    cost_grp = np.full(K * K, np.nan)
    data = (H, Y, sw, offsets, confidence, None, H8)
    W_sum = _run(models, losses, np.zeros((K, K)), pair_cost=cost_sum, score=data, **kw)[1]
    W_grp = _run(models, losses, np.zeros((K, K)), pair_cost=cost_grp,
                 score=data + (groups,), **kw)[1]
    assert np.count_nonzero(W_grp) > K
    np.testing.assert_array_equal(W_grp > 0, W_sum > 0)
    np.testing.assert_allclose(W_grp, W_sum, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(np.isnan(cost_grp), np.isnan(cost_sum))
    known = ~np.isnan(cost_sum)
    np.testing.assert_allclose(cost_grp[known], cost_sum[known], rtol=1e-12, atol=1e-12)


def test_dada_fit_with_groups_equals_the_stump_sums(monkeypatch):
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(12), rng.randint(4, 9, size=12))
    X = rng.uniform(-1, 1, size=(g.size, 3))
    y = ((X[:, 0] > 0) ^ (g % 2 == 0)).astype(int)
    # The boosting models' scores (the kernel graph models read no stumps).
    kw = dict(n_estimators=20, feature_selection=None, random_state=0, graph_signal="boosting")
    grouped = DecentralizedBoostingClassifier(**kw).fit(X, y, groups=g)
    calls = []

    def no_groups(*args):
        calls.append(args)
        return None

    monkeypatch.setattr(_dada_state, "stump_groups", no_groups)
    summed = DecentralizedBoostingClassifier(**kw).fit(X, y, groups=g)
    assert len(calls) == 1  # the second fit asked for the groups once (and got none)
    assert grouped.collaboration_graph_.nnz > 0
    np.testing.assert_allclose(grouped.coef_, summed.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(grouped.collaboration_graph_.toarray(),
                               summed.collaboration_graph_.toarray(), rtol=1e-9, atol=1e-12)


def test_stump_groups_bad_input_names_the_parameter():
    """pair_scores' groups are ``stumps``: a wrong shape names it, and groups
    without H8 (or with a Perso-lin loss), which nothing would read, are
    refused instead of ignored."""
    from skfed._core._boosting_fast import Logistic

    _, features, thresholds, H, Y, sw, offsets, models, confidence = _stump_problem(seed=3)
    H8 = H.astype(np.int8)
    perm, gptr, counts = stump_groups(H8, features, thresholds)
    rows = cols = np.arange(models.shape[0], dtype=np.intp)
    out = np.zeros(rows.size)
    with pytest.raises(ValueError, match=r"^stumps must hold"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out, None, H8,
                    (perm[:-1], gptr, counts))
    with pytest.raises(ValueError, match=r"stumps .*H8"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out, None, None,
                    (perm, gptr, counts))
    with pytest.raises(ValueError, match=r"stumps .*H8"):
        pair_scores(models, H, Y, sw, offsets, confidence, rows, cols, out, Logistic(),
                    H8, (perm, gptr, counts))
